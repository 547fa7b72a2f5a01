//! What the trainers share: the glyphs the reader cuts from training screens, Adam, and
//! reading a flag.

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

/// Adam's state for one block of parameters.
pub struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Adam {
    pub fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    /// One step of `p` against its gradient `g`, the `t`th (from 1), with weight `decay`.
    pub fn step(&mut self, p: &mut [f32], g: &[f32], lr: f32, t: i32, decay: f32) {
        let (b1, b2) = (0.9f32, 0.999f32);
        let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
        for i in 0..p.len() {
            let gi = g[i] + decay * p[i];
            self.m[i] = b1 * self.m[i] + (1.0 - b1) * gi;
            self.v[i] = b2 * self.v[i] + (1.0 - b2) * gi * gi;
            p[i] -= lr * (self.m[i] / c1) / ((self.v[i] / c2).sqrt() + 1e-8);
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
