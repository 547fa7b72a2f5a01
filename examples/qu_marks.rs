//! Prints, for every tile of a corpus's boards, the marks of a Q the reader finds in its
//! glyph (`read::marks`) beside the tile's truth and the reader's verdict, one line a tile:
//!
//!     cargo run --release --example qu_marks -- CORPUS SEED SCREENS
//!
//! as `truth read confidence runner-up tail small-u sample`, so the marks can be weighed
//! against every letter they might be mistaken on.

use scramblebot::board::tile_name;
use scramblebot::vision::corpus::{self, Corpus};
use scramblebot::vision::glyph::Classifier;
use scramblebot::vision::read;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name, seed, screens] = &args[..] else {
        return Err("usage: qu_marks CORPUS SEED SCREENS".into());
    };
    let which = *Corpus::ALL
        .iter()
        .find(|c| c.name() == name)
        .ok_or_else(|| format!("no corpus {name}"))?;
    let (seed, screens): (u64, u64) = (seed.parse()?, screens.parse()?);
    let faces = corpus::load_named(std::path::Path::new("/usr/share/fonts"), which.face_names());
    let classifier = Classifier::built_in();
    for index in 0..screens {
        let s = which.sample(&faces, seed, index);
        let Some((truth, _)) = s.board else { continue };
        let Ok(r) = read::read(&s.image, None, &classifier) else {
            continue;
        };
        let img = read::as_read(&s.image, &r.grid);
        for (t, tile) in r.tiles.iter().enumerate() {
            let (glyph, _) = read::tile_features(&img, r.grid.centres[t], r.grid.tile);
            let Some(ink) = glyph.ink else { continue };
            let m = read::marks(&ink);
            println!(
                "{} {} {:.3} {} {:.3} {} {}:{index}:{t} {}",
                tile_name(truth[t]),
                tile_name(tile.tile),
                tile.confidence,
                tile_name(tile.runner_up),
                m.tail,
                m.small_u,
                which.name(),
                s.description.split(' ').next().unwrap_or(""),
            );
        }
    }
    Ok(())
}
