//! A bonus told by the tile's colour: the whole tile in a vivid colour, the bonus's name
//! written small on it in the letter's ink ("DL" under the glyph, "TW" in a corner), as games
//! that draw no badge show it.

use super::badge::{BadgeCrop, read_bonus};
use crate::colour::{luma, median};
use crate::glyph::{Classifier, Ink};
use crate::regions::{Region, Runs, Touch, label};
use crate::score::Bonus;

/// The label is looked for this far from the tile's middle, as a share of its half side (a
/// label may come near the tile's edge, and the grid's tiles may be found a little small).
const LABEL_REACH: f32 = 1.05;
/// Ink differs from the face by at least this much lightness.
const MIN_INK_CONTRAST: f32 = 40.0;
/// A label's letters are at least and at most this tall, as shares of the tile's side...
const LETTER_MIN: f32 = 0.05;
const LETTER_MAX: f32 = 0.2;
/// ...at most this much wider than tall (a W is the widest)...
const LETTER_ASPECT: f32 = 1.8;
/// ...and at most this share of the glyph's height.
const OF_GLYPH: f32 = 0.6;
/// A label's two letters side by side: heights within this ratio of each other, overlapping
/// by at least this share of the shorter's height, at most this many heights apart.
const PAIR_HEIGHTS: f32 = 1.4;
const PAIR_OVERLAP: f32 = 0.6;
const PAIR_GAP: f32 = 0.8;
/// Two letters that touch make one region this many times wider than tall.
const JOINED_MIN: f32 = 1.2;
const JOINED_MAX: f32 = 3.5;

/// The bonus named small on a tile of a vivid colour, `face`: two letters of the tile's ink,
/// side by side, well apart from its glyph and much smaller, read as D or T then L or W,
/// each the letter read among all letters too (a point value's digits, written the same way,
/// are not a bonus's name). None when no such pair is read, or two pairs name different
/// bonuses.
pub(super) fn tinted_label(
    b: &BadgeCrop,
    face: [f32; 3],
    classifier: &Classifier,
) -> Option<Bonus> {
    let n = b.crop.n;
    let span = b.span(-b.half * LABEL_REACH, b.half * LABEL_REACH);
    let w = span.len();
    // The ink is what is nearer the glyph's colour than the face's: a bevel's or a shadow's
    // darker band of the face's own colour, which the label may touch, is not.
    let ink = glyph_colour(b, span.clone(), face)?;
    // Nearer `ink` than `face`: on the ink's side of the plane halfway between them.
    let towards = [0, 1, 2].map(|ch| ink[ch] - face[ch]);
    let halfway: f32 = (0..3)
        .map(|ch| towards[ch] * (ink[ch] + face[ch]) / 2.0)
        .sum();
    let mut inked = Vec::with_capacity(w * w);
    for y in span.clone() {
        let row = &b.crop.rgb[y * n + span.start..y * n + span.end];
        inked.extend(
            row.iter()
                .map(|c| c[0] * towards[0] + c[1] * towards[1] + c[2] * towards[2] > halfway),
        );
    }
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let regions = label(|p| inked[p], w, w, Touch::Eight, &mut labels, &mut runs);
    let glyph = regions.iter().filter(|r| !r.edge).max_by_key(|r| r.count)?;
    let side = 2.0 * b.half;
    let height = |r: &Region| (r.y1 - r.y0) as f32;
    let width = |r: &Region| (r.x1 - r.x0) as f32;
    // Writing the size of a label's letters, away from the glyph.
    let small: Vec<&Region> = regions
        .iter()
        .filter(|r| {
            let h = height(r);
            !r.edge
                && r.id != glyph.id
                && h >= side * LETTER_MIN
                && h <= side * LETTER_MAX
                && h <= height(glyph) * OF_GLYPH
                && !overlap(r, glyph)
        })
        .collect();
    // The ink of region `r`'s columns `xs`, for the classifier.
    let ink_of = |r: &Region, xs: std::ops::Range<usize>| {
        let (rw, rh) = (xs.len(), r.y1 - r.y0);
        let mut ink = Ink::new(rw, rh);
        for y in r.y0..r.y1 {
            for x in xs.clone() {
                if labels[y * w + x] == r.id {
                    ink.v[(y - r.y0) * rw + (x - xs.start)] = 1.0;
                }
            }
        }
        ink
    };
    let mut pairs: Vec<(Ink, Ink)> = Vec::new();
    for a in &small {
        // Two letters that touch (small, blurred or compressed), cut apart.
        if (JOINED_MIN..=JOINED_MAX).contains(&(width(a) / height(a))) {
            // Every cut in the middle two fifths: the column with the least ink may be
            // inside the first letter (a T's bar, thinner than the W beside it).
            let wide = a.x1 - a.x0;
            for cut in a.x0 + wide * 3 / 10..=a.x0 + wide * 7 / 10 {
                pairs.push((ink_of(a, a.x0..cut), ink_of(a, cut + 1..a.x1)));
            }
        }
        for z in &small {
            let (ha, hz) = (height(a), height(z));
            let shorter = ha.min(hz);
            let overlap_y = (a.y1.min(z.y1) as f32 - a.y0.max(z.y0) as f32).max(0.0);
            let side_by_side = a.x1 <= z.x0
                && width(a).max(width(z)) <= shorter * LETTER_ASPECT
                && ha.max(hz) <= shorter * PAIR_HEIGHTS
                && overlap_y >= shorter * PAIR_OVERLAP
                && (z.x0 - a.x1) as f32 <= ha.max(hz) * PAIR_GAP;
            if side_by_side {
                pairs.push((ink_of(a, a.x0..a.x1), ink_of(z, z.x0..z.x1)));
            }
        }
    }
    let mut named = None;
    for (first, second) in &pairs {
        let Some(bonus) = read_bonus(classifier, first, second, true) else {
            continue;
        };
        if named.is_some_and(|b| b != bonus) {
            return None;
        }
        named = Some(bonus);
    }
    named
}

/// The colour of the glyph of the tile on `b` of face colour `face`, looked for over the
/// crop's cells `span` each way (every other one, which is plenty for a glyph): the largest
/// region away from the edge of the cells on the ink's side of halfway from the face to the
/// ink. The ink is darker or lighter than the face, whichever more cells are by far.
fn glyph_colour(b: &BadgeCrop, span: std::ops::Range<usize>, face: [f32; 3]) -> Option<[f32; 3]> {
    let n = b.crop.n;
    let cells: Vec<usize> = (span.clone().step_by(2))
        .flat_map(|y| span.clone().step_by(2).map(move |x| y * n + x))
        .collect();
    let w = span.len().div_ceil(2);
    let face_l = luma(face);
    // Each cell's lightness from the face's, the ink's way positive.
    let mut from_face: Vec<f32> = cells.iter().map(|&p| b.crop.luma[p] - face_l).collect();
    let darker = from_face.iter().filter(|&&d| d < -MIN_INK_CONTRAST).count();
    let lighter = from_face.iter().filter(|&&d| d > MIN_INK_CONTRAST).count();
    if darker >= lighter {
        from_face.iter_mut().for_each(|d| *d = -*d);
    }
    let ink = median(from_face.iter().copied().filter(|&d| d > MIN_INK_CONTRAST))?;
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let regions = label(
        |i| from_face[i] > ink / 2.0,
        w,
        w,
        Touch::Eight,
        &mut labels,
        &mut runs,
    );
    let glyph = regions.iter().filter(|r| !r.edge).max_by_key(|r| r.count)?;
    let mut ink = [0.0f32; 3];
    for (&p, _) in cells.iter().zip(&labels).filter(|(_, l)| **l == glyph.id) {
        for (sum, v) in ink.iter_mut().zip(b.crop.rgb[p]) {
            *sum += v / glyph.count as f32;
        }
    }
    Some(ink)
}

/// Whether two regions' boxes overlap.
fn overlap(a: &Region, b: &Region) -> bool {
    a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}
