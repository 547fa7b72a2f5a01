//! A found lattice moved onto its tiles as they stand out from the streets between them.
//!
//! The grid search sees a tile as the region on one side of a lightness threshold. A tile
//! shaded from light to dark is cut there, and the lattice of the cut tiles sits off the
//! tiles: on the second generator, a board of tiles shaded down into the panel's colour had
//! its crops a seventh of a tile too high, and the tail of a Q below them was lost (read as O,
//! surely). Only the centres move: the crops keep the found side, which lies inside the tile's
//! face (a crop grown to the whole tile takes in its rounded corners and a bonus tile's label,
//! and a tinted H was read surely as D so).

use super::{Grid, SIDE, Shrunk};
use crate::colour::distance;

/// A lattice off its tiles by less than this share of the side it was found with is left
/// where it was found.
const SLACK: f32 = 0.04;

/// Street samples within this colour distance of each other are one colour (JPEG's noise on
/// a flat colour; the edge of a tile shaded down near the street's colour may be 15 from it).
const STREET_CLUSTER: f32 = 8.0;

/// How far along an axis the tiles are looked at, each way from their centres, in pitches: a
/// street on either side of a tile found up to a quarter of a pitch off.
const REACH: f32 = 0.75;

/// The share of a tile's side, each way across its centre line, whose pixels are averaged at
/// each offset: clear of the rounded corners and the badges there.
const ACROSS: f32 = 0.3;

/// `grid` (in the screen's pixels; `s` and `rgb` the shrunk screen and its colours) with its
/// centres moved to the middle of its tiles.
///
/// The streets' colour is the largest cluster of the colours at the 24 midpoints between
/// neighbouring centres (a lattice off its tiles puts some of them on tiles). Along each axis,
/// the mean colour distance from it of the tiles' pixels at each offset from their centres,
/// over all 16 tiles, is low across a street (its noise) and higher across a tile, even where
/// a shaded tile comes near the street's colour. The tile is the run of offsets round its
/// found centre above the streets' level. The grid is left as found unless both axes show a
/// street on both sides of a tile, the two runs are of about one length (a square tile) and
/// shorter than the pitch.
pub(super) fn centred(s: &Shrunk, rgb: &[[u8; 3]], grid: Grid) -> Grid {
    let k = s.scale;
    match tiles(s, rgb, &grid) {
        Some(((dx, dy), _)) if dx.abs().max(dy.abs()) >= SLACK * (grid.tile / k) => Grid {
            centres: grid.centres.map(|(x, y)| (x + dx * k, y + dy * k)),
            ..grid
        },
        _ => grid,
    }
}

/// A lattice found by its letters (`letters::search`), in the screen's pixels, with its tiles
/// measured: the centres moved onto the middle of its tiles' runs and the side their mean
/// length, when the runs are those of square tiles narrower than the pitch; otherwise as found.
pub(super) fn fitted(s: &Shrunk, rgb: &[[u8; 3]], grid: Grid) -> Grid {
    let k = s.scale;
    match tiles(s, rgb, &grid) {
        Some(((dx, dy), side)) => Grid {
            centres: grid.centres.map(|(x, y)| (x + dx * k, y + dy * k)),
            tile: side * k,
            ..grid
        },
        None => grid,
    }
}

/// Where `grid`'s tiles lie by their runs (`runs`), in working pixels: the offset of their
/// middle from the centres, and their side (the two runs' mean length); `None` unless the two
/// runs are of about one length (a square tile) and shorter than the pitch.
fn tiles(s: &Shrunk, rgb: &[[u8; 3]], grid: &Grid) -> Option<((f32, f32), f32)> {
    let ((x0, x1), (y0, y1)) = runs(s, rgb, grid)?;
    let (w, h) = (x1 - x0, y1 - y0);
    let pitch = (grid.pitch.0 / s.scale, grid.pitch.1 / s.scale);
    let square = (w - h).abs() <= 0.15 * w.max(h);
    let narrower = w < pitch.0 && h < pitch.1;
    (square && narrower).then(|| (((x0 + x1) / 2.0, (y0 + y1) / 2.0), (w + h) / 2.0))
}

/// The runs of `grid`'s tiles across each axis, as the offsets of their edges from the
/// centres in working pixels, (x, y): see `centred`.
fn runs(s: &Shrunk, rgb: &[[u8; 3]], grid: &Grid) -> Option<((f32, f32), (f32, f32))> {
    let k = s.scale;
    let centres = grid.centres.map(|(x, y)| (x / k, y / k));
    let pitch = (grid.pitch.0 / k, grid.pitch.1 / k);
    let tile = grid.tile / k;
    let colour = |x: usize, y: usize| rgb[y * s.w + x].map(f32::from);
    let at = |x: f32, y: f32| Some(colour(place(x, s.w)?, place(y, s.h)?));
    let street = street_colour(&centres, pitch, at)?;
    let run = |axis: usize| -> Option<(f32, f32)> {
        let p = if axis == 0 { pitch.0 } else { pitch.1 };
        let (reach, across) = ((p * REACH) as i32, (tile * ACROSS) as i32);
        if reach < 2 || across < 1 {
            return None;
        }
        let profile = profile(&centres, street, axis, (reach, across), (s.w, s.h), colour);
        tile_run(&profile).map(|(a, b)| (a - reach as f32, b - reach as f32))
    };
    Some((run(0)?, run(1)?))
}

/// The mean colour distance from `street` of the tiles' pixels at each offset from -reach to
/// reach from the `centres` along `axis`, over `across` pixels each way across it, on a
/// screen of w x h pixels whose `colour`s are given by column and row; pixels off it left
/// out. A point is the pixel it rounds to. Where a pixel lies along the axis is found once a
/// tile, and across it once a line. Each offset's sum takes the tiles in order and each
/// tile's lines in order; the line's offsets, in the innermost loop, are sums side by side
/// that do not wait on each other. (Taken four offsets at a time over every tile and line,
/// each line's place found again for each four, refining five reads of a board, held-back
/// s1-48, took 37.4M instructions, against 28.1M so.)
fn profile(
    centres: &[(f32, f32); 16],
    street: [f32; 3],
    axis: usize,
    (reach, across): (i32, i32),
    (w, h): (usize, usize),
    colour: impl Fn(usize, usize) -> [f32; 3],
) -> Vec<f32> {
    let len = (2 * reach + 1) as usize;
    let (mut sums, mut counts) = (vec![0.0f32; len], vec![0u32; len]);
    let mut places = Vec::with_capacity(len);
    for &(cx, cy) in centres {
        let ((along, long), (other, wide)) = if axis == 0 {
            ((cx, w), (cy, h))
        } else {
            ((cy, h), (cx, w))
        };
        places.clear();
        places.extend((-reach..=reach).map(|d| place(along + d as f32, long)));
        for u in -across..=across {
            let Some(v) = place(other + u as f32, wide) else {
                continue;
            };
            for ((&a, sum), n) in places.iter().zip(&mut sums).zip(&mut counts) {
                if let Some(a) = a {
                    let (x, y) = if axis == 0 { (a, v) } else { (v, a) };
                    *sum += distance(colour(x, y), street);
                    *n += 1;
                }
            }
        }
    }
    sums.iter()
        .zip(counts)
        .map(|(&sum, n)| sum / n.max(1) as f32)
        .collect()
}

/// The pixel `v` rounds to along an axis `limit` pixels long, if on it.
fn place(v: f32, limit: usize) -> Option<usize> {
    let v = v.round();
    (v >= 0.0 && (v as usize) < limit).then_some(v as usize)
}

/// The streets' colour: the mean of the largest cluster of the colours at the midpoints
/// between neighbouring `centres` (working pixels), when it holds at least a third of them.
/// The midpoints between columns come first and win a tie: a tile is mostly shaded from top to
/// bottom, so a lattice found off its tiles is off vertically, and the midpoints between rows
/// may then fall on the tiles' shaded edges.
fn street_colour(
    centres: &[(f32, f32); 16],
    pitch: (f32, f32),
    at: impl Fn(f32, f32) -> Option<[f32; 3]>,
) -> Option<[f32; 3]> {
    let between_columns = (0..SIDE * (SIDE - 1)).map(|i| {
        let (x, y) = centres[i / (SIDE - 1) * SIDE + i % (SIDE - 1)];
        (x + pitch.0 / 2.0, y)
    });
    let between_rows = (0..SIDE * (SIDE - 1)).map(|i| {
        let (x, y) = centres[i];
        (x, y + pitch.1 / 2.0)
    });
    let samples: Vec<[f32; 3]> = between_columns
        .chain(between_rows)
        .filter_map(|(x, y)| at(x, y))
        .collect();
    let near = |c: [f32; 3]| {
        samples
            .iter()
            .filter(move |p| distance(**p, c) <= STREET_CLUSTER)
    };
    let mut best: Option<(usize, [f32; 3])> = None;
    for &c in &samples {
        let n = near(c).count();
        if best.is_none_or(|(m, _)| n > m) {
            best = Some((n, c));
        }
    }
    let (n, seed) = best?;
    if n * 3 < 2 * SIDE * (SIDE - 1) {
        return None;
    }
    Some([0, 1, 2].map(|i| near(seed).map(|p| p[i]).sum::<f32>() / n as f32))
}

/// The run of a tile across `profile` (mean distances from the streets' colour at each
/// offset, the found centre in the middle), as the offsets of its two edges, each halfway
/// between the last offset above the streets' level and the first at or below it: the level
/// is the profile's least (the streets' noise) raised by its own share and a margin, never
/// under 12, above the noise of a flat street under JPEG. None when the middle is at the
/// streets' level or no street shows on one side.
fn tile_run(profile: &[f32]) -> Option<(f32, f32)> {
    let least = profile.iter().copied().fold(f32::INFINITY, f32::min);
    let level = (2.5 * least + 4.0).max(12.0);
    let mid = profile.len() / 2;
    if profile[mid] <= level {
        return None;
    }
    let start = (0..mid).rev().find(|&i| profile[i] <= level)?;
    let end = (mid..profile.len()).find(|&i| profile[i] <= level)?;
    Some((start as f32 + 0.5, end as f32 - 0.5))
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{find_either, search_either, shrink};
    use super::*;
    use image::{Rgba, RgbaImage};

    /// The profile taken four offsets at a time is the one taken an offset at a time, to the
    /// bit: random colours on a small screen, its edges within reach along the axis and across
    /// it (pixels off it left out).
    #[test]
    fn a_profile_taken_four_offsets_at_once_is_taken_as_alone() {
        let mut rng = scramblebot_core::sample::Rng::new(47);
        let (w, h) = (90usize, 70usize);
        let colours: Vec<[f32; 3]> = (0..w * h)
            .map(|_| [0, 1, 2].map(|_| rng.below(256) as f32))
            .collect();
        let at = |x: f32, y: f32| -> Option<[f32; 3]> {
            let (x, y) = (x.round(), y.round());
            (x >= 0.0 && y >= 0.0 && (x as usize) < w && (y as usize) < h)
                .then(|| colours[y as usize * w + x as usize])
        };
        let centres: [(f32, f32); 16] =
            std::array::from_fn(|i| (8.3 + 22.0 * (i % 4) as f32, 5.6 + 19.0 * (i / 4) as f32));
        let street = [40.5, 200.25, 99.0];
        for axis in [0, 1] {
            for (reach, across) in [(2, 1), (11, 4), (17, 6), (13, 9)] {
                let alone: Vec<u32> = (-reach..=reach)
                    .map(|d| {
                        let (mut sum, mut n) = (0.0f32, 0u32);
                        for &(cx, cy) in &centres {
                            for u in -across..=across {
                                let (x, y) = if axis == 0 {
                                    (cx + d as f32, cy + u as f32)
                                } else {
                                    (cx + u as f32, cy + d as f32)
                                };
                                if let Some(px) = at(x, y) {
                                    sum += distance(px, street);
                                    n += 1;
                                }
                            }
                        }
                        (sum / n.max(1) as f32).to_bits()
                    })
                    .collect();
                let colour = |x: usize, y: usize| colours[y * w + x];
                let at_once: Vec<u32> =
                    profile(&centres, street, axis, (reach, across), (w, h), colour)
                        .iter()
                        .map(|v| v.to_bits())
                        .collect();
                assert_eq!(at_once, alone, "axis {axis}, reach {reach}");
            }
        }
    }

    /// A 720x1280 screen of `panel` with a 4x4 lattice of tiles (side 130, pitch 150) shaded
    /// from `top` down to `bottom` (evenly at `power` 1; at 2 quickly, then slowly, lingering
    /// near `bottom`), each with a white bar for a glyph; and the tiles' centres.
    pub(in super::super) fn shaded(
        panel: [u8; 3],
        (top, bottom): ([u8; 3], [u8; 3]),
        power: i32,
    ) -> (RgbaImage, [(f32, f32); 16]) {
        let [r, g, b] = panel;
        let mut img = RgbaImage::from_pixel(720, 1280, Rgba([r, g, b, 255]));
        let (tile, pitch, x0, y0) = (130u32, 150u32, 135u32, 415u32);
        let mut centres = [(0.0, 0.0); 16];
        for i in 0..16u32 {
            let (cx, cy) = (x0 + pitch * (i % 4), y0 + pitch * (i / 4));
            // The middle of the pixels cx - 65 to cx + 64.
            centres[i as usize] = (cx as f32 - 0.5, cy as f32 - 0.5);
            for (j, y) in (cy - tile / 2..cy + tile / 2).enumerate() {
                let t = 1.0 - (1.0 - j as f32 / (tile - 1) as f32).powi(power);
                let shade: [u8; 3] = std::array::from_fn(|c| {
                    (top[c] as f32 * (1.0 - t) + bottom[c] as f32 * t) as u8
                });
                for x in cx - tile / 2..cx + tile / 2 {
                    let glyph = x.abs_diff(cx) < 12 && y.abs_diff(cy) < 40;
                    let [r, g, b] = if glyph { [250; 3] } else { shade };
                    img.put_pixel(x, y, Rgba([r, g, b, 255]));
                }
            }
        }
        (img, centres)
    }

    /// The largest distance of `grid`'s centres from `want`.
    pub(in super::super) fn off(grid: &Grid, want: &[(f32, f32); 16]) -> f32 {
        grid.centres
            .iter()
            .zip(want)
            .map(|(g, w)| ((g.0 - w.0).powi(2) + (g.1 - w.1).powi(2)).sqrt())
            .fold(0.0, f32::max)
    }

    /// Tiles shaded from lighter than their panel down to within 15 of its colour: the search
    /// sees only their upper part, and the lattice it fits sits 12 pixels high; centred, it
    /// lies within 4 pixels of the tiles' centres (of a 130 pixel tile: the faintest rows,
    /// under 12 from the panel once shrunk, are left out).
    #[test]
    fn a_lattice_of_tiles_shaded_into_their_panel_is_centred_on_them() {
        let (img, want) = shaded([72, 58, 80], ([190, 150, 170], [81, 65, 89]), 2);
        let (s, rgb) = shrink(&img, true);
        let (found, _) = search_either(&s, &rgb).expect("a grid of the tiles' upper parts");
        assert!(
            off(&found, &want) > 10.0,
            "found {found:?} already on the tiles"
        );
        let grid = find_either(&img).expect("a grid");
        assert!(off(&grid, &want) <= 4.0, "{grid:?}");
        assert_eq!(grid.tile, found.tile, "the side is kept");
    }

    /// A lattice on plain flat tiles is left where it was found: its runs are centred.
    #[test]
    fn a_lattice_on_flat_tiles_is_left_as_found() {
        let (img, _) = shaded([40, 40, 60], ([225, 225, 225], [225, 225, 225]), 1);
        let (s, rgb) = shrink(&img, true);
        let (found, _) = search_either(&s, &rgb).expect("a grid");
        assert_eq!(centred(&s, &rgb, found.clone()), found);
    }

    /// The edges of a tile's run lie halfway between the last offset above the streets' level
    /// and the first at it; no street on a side, or a middle at the streets' level, is no run.
    #[test]
    fn a_tile_runs_between_its_streets() {
        let p = [2.0, 3.0, 30.0, 80.0, 90.0, 80.0, 20.0, 1.0, 0.0];
        assert_eq!(tile_run(&p), Some((1.5, 6.5)));
        assert_eq!(tile_run(&[2.0, 30.0, 80.0, 90.0, 80.0, 20.0, 14.0]), None);
        assert_eq!(tile_run(&[0.0, 30.0, 8.0, 9.0, 80.0, 20.0, 0.0]), None);
    }
}
