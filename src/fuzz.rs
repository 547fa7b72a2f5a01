//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`, run with cargo-fuzz), kept in the
//! library so that `tests/suite/fuzz_corpus.rs` replays the same inputs on stable Rust in every test
//! run. Each takes arbitrary bytes and must neither panic nor hang; where a parser has an
//! invariant (a profile written out parses back to itself), it is checked here too.

use std::sync::{Arc, LazyLock};

use crate::board::Board;
use crate::phone::sendevent::{Panel, parse_getevent};
use crate::profile::Profile;
use crate::sim::{Device, SimConfig};
use crate::vision::glyph::Classifier;
use crate::wire::{Decoder, MAX_PAYLOAD};

/// The board parser: a board it accepts prints as text that parses to the same board.
pub fn board(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(b) = Board::parse(text) {
        assert_eq!(Board::parse(&b.to_string()).ok(), Some(b), "{text:?}");
    }
}

/// The profile parser: a profile it accepts, written out, parses back to itself.
pub fn profile(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = Profile::from_toml_str(text, "fuzz.toml") {
        let again = Profile::from_toml_str(&p.to_toml(""), "again.toml")
            .unwrap_or_else(|e| panic!("{text:?} written out is refused: {e}"));
        assert_eq!(again, p, "{text:?}");
    }
}

/// The largest picture the fuzzer's image target reads (a reading of a big one only takes
/// longer, which the fuzzer would count as a hang).
const READ_AT_MOST: u64 = 1 << 20;
/// The largest PNG or JPEG it decodes; bigger ones have their header read only. Decoding
/// time grows with the pixels a file declares, not its bytes: a 696-byte JPEG declaring
/// 6939x6936 (within `vision::MAX_SIDE`) took over the fuzzer's 10 s to decode under
/// AddressSanitizer, 0.97 s to decode and read in a release build.
const DECODE_AT_MOST: u64 = 1 << 22;

/// Decoding a screenshot (PNG, JPEG, raw dumps, framebuffer answers), then reading it.
pub fn image(data: &[u8]) {
    static CLASSIFIER: LazyLock<Classifier> = LazyLock::new(Classifier::built_in);
    if crate::vision::declared_size(data)
        .is_some_and(|(w, h)| u64::from(w) * u64::from(h) > DECODE_AT_MOST)
    {
        return;
    }
    if let Ok(img) = crate::vision::decode(data)
        && u64::from(img.width()) * u64::from(img.height()) <= READ_AT_MOST
    {
        let _ = crate::vision::read::read(&img, None, &CLASSIFIER);
    }
}

/// The ADB wire decoder (the phone's adbd and the bot's direct link both read with it), fed
/// in chunks whose sizes the first byte chooses: every message it gives encodes back to the
/// bytes it came from.
pub fn wire(data: &[u8]) {
    let Some((&chunk, rest)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(chunk).max(1);
    let mut decoder = Decoder::new(MAX_PAYLOAD);
    let mut taken = 0;
    for piece in rest.chunks(chunk) {
        let mut piece = piece;
        while !piece.is_empty() {
            let n = decoder.wanted().min(piece.len());
            decoder.feed(&piece[..n]);
            piece = &piece[n..];
            match decoder.decode() {
                Ok(Some(m)) => {
                    // The same bytes, but for the checksum: a sender may leave it 0 (since
                    // protocol 0x01000001), and encoding always fills it in.
                    let bytes = m.encode();
                    let sent = &rest[taken..taken + bytes.len()];
                    assert_eq!(bytes[..16], sent[..16]);
                    assert_eq!(bytes[20..], sent[20..]);
                    assert!(sent[16..20] == [0; 4] || sent[16..20] == bytes[16..20]);
                    taken += bytes.len();
                }
                Ok(None) => {}
                Err(_) => return,
            }
        }
    }
}

/// The virtual phone's shell parser.
pub fn shell(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::sim::shell::syntax(text);
    }
}

/// The virtual phone's `sync:` protocol, on one phone for the whole run (its files bounded
/// by their capacity).
pub fn sync(data: &[u8]) {
    static PHONE: LazyLock<Arc<Device>> = LazyLock::new(|| Device::new(SimConfig::default()));
    let _ = crate::sim::sync::serve_bytes(&PHONE, data);
}

/// `getevent -p` as phones print it, and finding the touchscreen in it.
pub fn getevent(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let devices = parse_getevent(&text);
    if let Some(panel) = Panel::find(&devices, (800, 1280)) {
        let _ = panel.describe();
    }
}

/// A fuzz target: any bytes in, no panic out.
pub type Target = fn(&[u8]);

/// Every target by name, as `fuzz/fuzz_targets` and the corpus replay know them.
pub const TARGETS: [(&str, Target); 7] = [
    ("board", board),
    ("profile", profile),
    ("image", image),
    ("wire", wire),
    ("shell", shell),
    ("sync", sync),
    ("getevent", getevent),
];
