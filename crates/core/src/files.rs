//! Reading the files a user hands the bot, each with a bound that fits its kind: a device
//! that never ends (`/dev/zero`), a huge file given by mistake or a sparse one is refused
//! promptly, with the bound in the message, and never read past it into memory. And writing
//! a file whole ([`replace`]): a reader sees the old one or the new one, never half, and a
//! full disk leaves no empty file behind.

use std::io::{Read, Write};
use std::path::Path;

/// Whether [`replace`] waits for the new file to reach the disk before it takes the old one's
/// place (so a crash leaves one or the other), or lets the system write it when it will (for
/// a file rewritten many times a second).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sync {
    Durable,
    Lazy,
}

/// Writes `bytes` as the whole of `path` (its directory made if missing): to a temporary file
/// beside it, then renamed over it. On any failure (a full disk among them) the temporary
/// file is removed and the old file, if any, is untouched.
pub fn replace(path: &Path, bytes: &[u8], sync: Sync) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)?;
    }
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync == Sync::Durable {
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// What a file holds, and the most of it the bot reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A screenshot: PNG, JPEG or a raw `screencap` dump (a 1440x3200 raw one is 18 MB).
    Screenshot,
    /// A word list (ENABLE is 1.7 MB) or a font.
    WordList,
    /// A file of boards, one a line.
    Boards,
    /// A profile or a config file.
    Config,
    /// A history of rounds or practices, a line each (a round's line is under 1 kB).
    History,
    /// A PNG strip of glyphs or digits a profile keeps.
    Strip,
    /// A typeface (TrueType or OpenType).
    Font,
}

impl Kind {
    /// The most bytes a file of this kind may hold.
    pub fn limit(self) -> u64 {
        const MB: u64 = 1 << 20;
        match self {
            Kind::Screenshot => 64 * MB,
            Kind::WordList => 64 * MB,
            Kind::Boards => 64 * MB,
            Kind::Config => MB,
            Kind::History => 256 * MB,
            Kind::Strip => 16 * MB,
            Kind::Font => 64 * MB,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Screenshot => "a screenshot",
            Kind::WordList => "a word list",
            Kind::Boards => "a file of boards",
            Kind::Config => "a config file",
            Kind::History => "a history",
            Kind::Strip => "a profile's strip",
            Kind::Font => "a typeface",
        }
    }
}

/// The error for a file past its kind's bound.
fn too_big(kind: Kind) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::FileTooLarge,
        format!(
            "larger than the {} MB {} may be",
            kind.limit() >> 20,
            kind.name()
        ),
    )
}

/// The whole of the file at `path`, refused past `kind`'s bound: by its size when it has one
/// (a sparse file is not read at all), else after reading one byte past the bound (a device
/// that never ends).
pub fn read(path: &Path, kind: Kind) -> std::io::Result<Vec<u8>> {
    let limit = kind.limit();
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "a directory, not a file",
        ));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(too_big(kind));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(kind));
    }
    Ok(bytes)
}

/// An image file with `kind`'s bound (PNG or JPEG, by its bytes).
pub fn image(path: &Path, kind: Kind) -> image::ImageResult<image::DynamicImage> {
    let bytes = read(path, kind).map_err(image::ImageError::IoError)?;
    image::load_from_memory(&bytes)
}

/// `name` as part of a file's name: letters, digits, '.', '-' and '_' kept, any other
/// character (a serial's ':', a slash) as '_'.
pub fn safe_name(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '-' | '_' => c,
            _ => '_',
        })
        .collect()
}

/// `read`, as text: a file that is not UTF-8 is refused, naming the line.
pub fn read_text(path: &Path, kind: Kind) -> std::io::Result<String> {
    let bytes = read(path, kind)?;
    String::from_utf8(bytes).map_err(|e| {
        let line = 1 + e.as_bytes()[..e.utf8_error().valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("line {line} is not text (UTF-8)"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_huge_and_sparse_files_are_refused_with_their_bound() {
        if Path::new("/dev/zero").exists() {
            let e = read(Path::new("/dev/zero"), Kind::Config).unwrap_err();
            assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
            assert!(e.to_string().contains("1 MB a config file"), "{e}");
        }
        let dir = std::env::temp_dir().join(format!("scramblebot-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // 3 GB that take no room: refused by their size, not read.
        let sparse = dir.join("sparse");
        let f = std::fs::File::create(&sparse).unwrap();
        f.set_len(3 << 30).unwrap();
        let e = read(&sparse, Kind::Screenshot).unwrap_err();
        assert!(e.to_string().contains("64 MB a screenshot"), "{e}");
        let e = read(&dir, Kind::Config).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::IsADirectory);
        let text = dir.join("text");
        std::fs::write(&text, b"one\ntwo\n\xff\n").unwrap();
        let e = read_text(&text, Kind::Config).unwrap_err();
        assert!(e.to_string().contains("line 3 is not text"), "{e}");
        std::fs::write(&text, b"one\n").unwrap();
        assert_eq!(read_text(&text, Kind::Config).unwrap(), "one\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
