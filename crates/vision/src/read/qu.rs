//! The marks only a Q has: a tail that breaks the symmetry of its round bowl, and, where a
//! game draws the Qu tile as a Q with a small u, the u on the bowl's baseline beside it.
//!
//! The nearest reference tells a lone Q from an O, and a condensed Q with a small u from a C
//! or an O, by a few cells of a 16 x 16 grid: read right, such a tile was left at no
//! confidence (a coin toss with O or C), and a board with one was never played. These marks
//! are measured on the glyph's own ink map, at the working resolution, where the tail is
//! tens of pixels; they confirm a verdict of Qu, never make one.

use crate::features::{self, Ink};
use crate::regions::{Region, Runs, Touch, label};

/// Pixels with at least this much ink are the glyph's.
const INK: f32 = 0.5;

/// A piece of ink smaller than 1/SPECK of the largest is a speck.
const SPECK: usize = 30;

/// What of a Q a glyph shows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QuMarks {
    /// How far the bowl's outline reaches farther below its counter than above it, at the
    /// column where it does most (beyond what it does across the bowl), as a share of the
    /// largest piece's height: about 0 for an O, the tail's reach for a Q. 0 when that piece
    /// has not exactly one counter.
    pub tail: f32,
    /// A small u stands on the bowl's baseline to its right.
    pub small_u: bool,
}

/// A tail that reaches this share of the glyph's height farther below its counter than the
/// rest of its outline does is a Q's. Measured with `examples/qu_marks.rs` on the developed
/// family, seed 1: O 0.065 at most (171 tiles), D 0.143 (one of 176, 0.056 the next).
const TAIL: f32 = 0.12;

impl QuMarks {
    /// The glyph shows a Q's tail or its small u.
    pub fn is_a_q(&self) -> bool {
        self.small_u || self.tail >= TAIL
    }
}

/// The marks of a Q in `ink` (an n x n map of the glyph alone).
pub fn marks(ink: &Ink) -> QuMarks {
    let (w, h) = (ink.w, ink.h);
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let pieces = label(
        |p| ink.v[p] >= INK,
        w,
        h,
        Touch::Eight,
        &mut labels,
        &mut runs,
    );
    let Some(main) = pieces.iter().max_by_key(|r| r.count).copied() else {
        return QuMarks::default();
    };
    let [counter] = counters(&labels, w, &main)[..] else {
        return QuMarks::default();
    };
    let others: Vec<&Region> = pieces
        .iter()
        .filter(|r| r.id != main.id && r.count * SPECK >= main.count)
        .collect();
    QuMarks {
        tail: tail(&labels, w, &main, &counter),
        small_u: others
            .iter()
            .any(|r| beside_on_baseline(&main, &counter, r) && u_shaped(&labels, w, r)),
    }
}

/// The counters of the piece `main` (`features::counters`: other pieces in its box count as
/// empty), their boxes on the map.
fn counters(labels: &[u32], w: usize, main: &Region) -> Vec<Region> {
    let bw = main.x1 - main.x0;
    let outside = |p: usize| labels[(main.y0 + p / bw) * w + main.x0 + p % bw] != main.id;
    features::counters(outside, bw, main.y1 - main.y0)
        .into_iter()
        .map(|c| Region {
            x0: c.x0 + main.x0,
            x1: c.x1 + main.x0,
            y0: c.y0 + main.y0,
            y1: c.y1 + main.y0,
            ..c
        })
        .collect()
}

/// The tail's reach (see `QuMarks::tail`): per column of the piece, how much farther its
/// lowest ink lies below the counter's middle than its highest lies above it; the most of
/// that over two neighbouring columns (a lone column is noise), less the median over the
/// columns (a face whose bottom stroke is heavier than its top shifts them all).
fn tail(labels: &[u32], w: usize, main: &Region, counter: &Region) -> f32 {
    let middle = (counter.y0 + counter.y1) as f32 / 2.0;
    let excess: Vec<f32> = (main.x0..main.x1)
        .filter_map(|x| {
            let mut rows = (main.y0..main.y1).filter(|&y| labels[y * w + x] == main.id);
            let top = rows.next()?;
            let bottom = rows.next_back().unwrap_or(top);
            Some((bottom as f32 + 1.0 - middle) - (middle - top as f32))
        })
        .collect();
    if excess.len() < 3 {
        return 0.0;
    }
    let mut sorted = excess.clone();
    sorted.sort_by(f32::total_cmp);
    let median = sorted[sorted.len() / 2];
    let most = excess
        .windows(2)
        .map(|p| p[0].min(p[1]))
        .fold(f32::MIN, f32::max);
    ((most - median) / (main.y1 - main.y0) as f32).max(0.0)
}

/// A small u's place: right of the bowl's middle, starting right of most of it, about half
/// the bowl's height, its foot level with the bowl's (within a tenth of the glyph's height; a
/// Q's tail may reach lower than both).
fn beside_on_baseline(main: &Region, counter: &Region, r: &Region) -> bool {
    let mh = (main.y1 - main.y0) as f32;
    let rh = (r.y1 - r.y0) as f32;
    let bowl_foot = counter.y1 as f32 + (counter.y0 - main.y0) as f32;
    r.x0 as f32 >= counter.x1 as f32
        && (0.3..=0.75).contains(&(rh / mh))
        && (r.y1 as f32 - bowl_foot).abs() <= 0.1 * mh
        && r.y0 as f32 >= main.y0 as f32 + 0.25 * mh
}

/// Whether the piece `r` is shaped like a u: no counter, its top open between its stems (the
/// middle third of its width holds little ink in its upper half) and its foot closed (that
/// third holds ink in its lowest quarter).
fn u_shaped(labels: &[u32], w: usize, r: &Region) -> bool {
    let (bw, bh) = (r.x1 - r.x0, r.y1 - r.y0);
    if bw < 3 || bh < 4 || !counters(labels, w, r).is_empty() {
        return false;
    }
    let share = |ys: std::ops::Range<usize>| {
        let xs = r.x0 + bw / 3..r.x1 - bw / 3;
        let cells = (xs.len() * ys.len()).max(1) as f32;
        let on = ys
            .flat_map(|y| xs.clone().map(move |x| (x, y)))
            .filter(|&(x, y)| labels[y * w + x] == r.id)
            .count();
        on as f32 / cells
    };
    share(r.y0..r.y0 + bh / 2) <= 0.15 && share(r.y1 - bh / 4..r.y1) >= 0.5
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glyph::{SMALL_U, render, render_spelling};

    fn faces() -> Vec<ab_glyph::FontVec> {
        [dejavu::sans::bold(), notosans::REGULAR_TTF]
            .into_iter()
            .map(|b| ab_glyph::FontVec::try_from_vec(b.to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn a_q_has_a_tail_and_round_letters_have_none() {
        for font in faces() {
            let of = |text| marks(&render(&font, text, 80.0));
            let q = of("Q");
            assert!(q.tail >= TAIL && q.is_a_q(), "Q: {q:?}");
            for round in ["O", "D", "C", "G"] {
                let m = of(round);
                assert!(m.tail < TAIL && !m.is_a_q(), "{round}: {m:?}");
            }
            // R, P and A have ink below their counter that reaches as far as a tail: the
            // reason a Q's marks confirm Qu only against round letters (`ROUND_ALIKE`).
            assert!(of("R").tail >= TAIL, "R");
        }
    }

    #[test]
    fn a_small_u_beside_the_bowl_is_found_and_a_digit_there_is_not() {
        for font in faces() {
            let qu = marks(&render_spelling(&font, &[('Q', 1.0), ('u', SMALL_U)], 80.0));
            assert!(qu.small_u, "Q with a small u: {qu:?}");
            for other in ["O1", "O2", "O7", "On", "D4"] {
                let spelling: Vec<(char, f32)> = other.chars().zip([1.0, SMALL_U]).collect();
                let m = marks(&render_spelling(&font, &spelling, 80.0));
                assert!(!m.small_u, "{other}: {m:?}");
            }
        }
    }
}
