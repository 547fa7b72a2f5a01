//! What the trainers share: the glyphs the reader cuts from training screens.

use scramblebot::vision::corpus::{Corpus, Face};
use scramblebot::vision::features::Features;
use scramblebot::vision::grid;
use scramblebot::vision::read::{self, TileGlyph};

/// Cuts every tile of `count` screens of the developed and the classic corpus with `seed`
/// (boards in play only; a screen whose grid is not found is left out), as the reader cuts
/// them, and hands each glyph, its features and its tile to `each`.
pub fn cut_glyphs(
    faces: &[Face],
    seed: u64,
    count: u64,
    mut each: impl FnMut(TileGlyph, Option<Features>, u8),
) {
    for corpus in [Corpus::Developed, Corpus::Classic] {
        for i in 0..count {
            let s = corpus.sample(faces, seed, i);
            let Some((tiles, _)) = s.board else { continue };
            if s.dimmed {
                continue;
            }
            let Some(g) = grid::find(&s.image) else {
                continue;
            };
            for (k, &c) in g.centres.iter().enumerate() {
                let (glyph, features) = read::tile_features(&s.image, c, g.tile);
                each(glyph, features, tiles[k]);
            }
            if (i + 1) % 500 == 0 {
                eprintln!("  {} seed {seed}: {} screens", corpus.name(), i + 1);
            }
        }
    }
}

/// The value after `--flag` among `args`, or `default`.
pub fn flag(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}
