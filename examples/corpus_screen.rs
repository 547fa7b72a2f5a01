//! Writes screens of the reader's corpora to PNG files, so a person can look at what the
//! reader misread (`bench vision` names the samples).
//!
//!     cargo run --release --example corpus_screen -- [--corpus held-back|developed|classic] [--seed N] OUT_DIR INDEX...
//!
//! Each screen is written as OUT_DIR/CORPUS-sSEED-INDEX.png, and its board printed.

use std::path::PathBuf;

use scramblebot::board::tile_name;
use scramblebot::vision::corpus::{self, Corpus};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (mut which, mut seed, mut out, mut indices) = (Corpus::HeldBack, 1u64, None, Vec::new());
    while let Some(a) = args.next() {
        match a.as_str() {
            "--corpus" => {
                let name = args.next().ok_or("--corpus needs a name")?;
                which = *Corpus::ALL
                    .iter()
                    .find(|c| c.name() == name)
                    .ok_or_else(|| format!("no corpus {name}"))?;
            }
            "--seed" => seed = args.next().ok_or("--seed needs a number")?.parse()?,
            _ if out.is_none() => out = Some(PathBuf::from(a)),
            _ => indices.push(a.parse::<u64>()?),
        }
    }
    let out = out.ok_or("usage: corpus_screen [--corpus C] [--seed N] OUT_DIR INDEX...")?;
    std::fs::create_dir_all(&out)?;
    let faces = corpus::load_named(std::path::Path::new("/usr/share/fonts"), which.face_names());
    if faces.is_empty() {
        return Err("none of the corpus's typefaces is installed (see .ci/run)".into());
    }
    for index in indices {
        let s = which.sample(&faces, seed, index);
        let path = out.join(format!("{}-s{seed}-{index}.png", which.name()));
        s.image.save(&path)?;
        let board = s.board.map_or("no board".to_string(), |(tiles, _)| {
            tiles
                .iter()
                .map(|&t| tile_name(t))
                .collect::<Vec<_>>()
                .join(" ")
        });
        println!("{}: {} ({})", path.display(), board, s.description);
    }
    Ok(())
}
