//! Whether something lies over a board's grid: a toast before the round ("GO!", "Round 2")
//! or a dialog, drawn on top of the tiles and the streets between them. Such a board is not in
//! play yet, even when the overlay under it is too light to darken the tiles below `MIN_FACE`.
//!
//! What is looked at are the streets: the midline of each gap between two neighbouring tiles
//! (not the crossings of four, where badges stick out). On a live board every street shows
//! the same thing (the background, a frame's rim, a shadow), so each sample is compared with
//! what a plane fitted through all samples of its kind predicts; a traced path's line, a
//! translucent white band over the street, is forgiven. A street most of whose samples are
//! something else is covered, and `MIN_COVERED` covered anywhere put the board under an
//! overlay; so do two side by side in one gap between rows that something covers only in
//! part (`SIDE_SHARE`): a toast of bare text, whose letters cross the streets stroke by
//! stroke. Pure: pixels and a grid in, a yes or no out; it never touches a tile's glyph.

use image::RgbaImage;

use super::colour::{self, distance};
use super::grid::Grid;

/// Samples along a gap's midline, from one end to the other: dense enough that a toast's
/// thin letters, crossing a street stroke by stroke, cover a share of them (at 9, a third of
/// the toasts of bare text over a light dim fell between the samples).
const ALONG: usize = 33;
/// The street's usual colour is fitted on every this many samples along it (9 a street).
const FIT_EVERY: usize = 4;
/// A gap's samples span this share of the pitch each side of the tiles' middle (the tiles'
/// corners, where badges sit and stick out into the gap, are left out).
const SPAN: f32 = 0.3;
/// A sample differs from the street's usual colour when it is this far from it (Euclidean,
/// 0-255 channels): more than a background's gradient across the grid or JPEG's noise.
const DIFFERENT: f32 = 48.0;
/// ... unless it is the usual colour under a translucent white veil (a path line), to within
/// this much.
const VEIL_RESIDUE: f32 = 24.0;
/// A street is covered when at least this share of its samples differ.
const COVERED_SHARE: f32 = 0.6;
/// Covered streets that make a covered board wherever they are: a bonus tile's tinted rim or
/// shadow can cover two (see `Streets::side_by_side` for fewer).
const MIN_COVERED: usize = 3;
/// Two streets side by side in one gap between rows make a covered board when something
/// covers this share of each. Measured with 33 samples a street (`ALONG`): the toasts of
/// bare text over a light dim that lie across a gap cover 0.18-0.55 of both streets (the
/// held-back corpus, seeds 1-3); on live boards no pair reached more than 0.09, on the
/// held-back, developed and classic corpora (a path line's white is forgiven; a tinted bonus
/// tile's rim is under one street of a pair).
const SIDE_SHARE: f32 = 0.15;

/// A tile's face is sampled this share of its side from its centre, both ways: off the
/// glyph, inside the tile.
const FACE_AT: f32 = 0.36;

type Rgb = [f32; 3];

/// The mean colour of the square of half-side `half` around `(x, y)`, clamped to the image.
fn mean_at(img: &RgbaImage, (x, y): (f32, f32), half: f32) -> Rgb {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let r = half.max(0.0).round() as i64;
    let (cx, cy) = (x.round() as i64, y.round() as i64);
    let mut sum = [0.0f32; 3];
    let mut n = 0.0f32;
    for py in (cy - r).max(0)..=(cy + r).min(h - 1) {
        for px in (cx - r).max(0)..=(cx + r).min(w - 1) {
            let p = img.get_pixel(px as u32, py as u32).0;
            for k in 0..3 {
                sum[k] += f32::from(p[k]);
            }
            n += 1.0;
        }
    }
    if n == 0.0 {
        return [0.0; 3];
    }
    sum.map(|s| s / n)
}

/// Whether `p` is `usual` under a translucent white veil (or `usual` itself).
fn veiled(p: Rgb, usual: Rgb) -> bool {
    let room: f32 = (0..3).map(|k| 255.0 - usual[k]).sum();
    if room < 1.0 {
        return true;
    }
    let alpha = ((0..3).map(|k| p[k] - usual[k]).sum::<f32>() / room).clamp(0.0, 1.0);
    let expected = [0, 1, 2].map(|k| usual[k] + alpha * (255.0 - usual[k]));
    distance(p, expected) <= VEIL_RESIDUE
}

/// The streets of a 4x4 grid, by kind: each a list of sample points (screen pixels).
fn streets(grid: &Grid) -> [Vec<Vec<(f32, f32)>>; 2] {
    let c = |r: usize, k: usize| grid.centres[r * 4 + k];
    let (px, py) = grid.pitch;
    let along = |from: f32, to: f32| -> Vec<f32> {
        (0..ALONG)
            .map(|i| from + (to - from) * i as f32 / (ALONG - 1) as f32)
            .collect()
    };
    let mut upright = Vec::new();
    let mut level = Vec::new();
    for r in 0..4 {
        for k in 0..3 {
            // The gap between (r, k) and (r, k + 1).
            let (a, b) = (c(r, k), c(r, k + 1));
            let mid = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
            upright.push(
                along(mid.1 - SPAN * py, mid.1 + SPAN * py)
                    .into_iter()
                    .map(|y| (mid.0, y))
                    .collect(),
            );
            // The gap between (k, r) and (k + 1, r).
            let (a, b) = (c(k, r), c(k + 1, r));
            let mid = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
            level.push(
                along(mid.0 - SPAN * px, mid.0 + SPAN * px)
                    .into_iter()
                    .map(|x| (x, mid.1))
                    .collect(),
            );
        }
    }
    [upright, level]
}

/// The colour a street's background has at each point: per channel, a plane through the
/// samples of one kind. A plane, not one colour: backgrounds are often gradients, and the
/// streets of the top row and the bottom row may differ by more than `DIFFERENT`. Fitted so
/// that a few streets of one row unlike the rest (two tinted bonus tiles' rims, a toast) do
/// not tilt it (least squares did: it took them for a gradient): the slope across is the
/// median of the slopes between samples level with each other, the slope down the median of
/// those between samples one above the other, and the offset the median of what is left.
/// Fitted on every `FIT_EVERY`th sample of each street, as many as `ALONG` was before it
/// grew: the medians over all pairs of samples cost as the square of their number.
fn background(points: &[(f32, f32)], colours: &[Rgb], at: &[(f32, f32)]) -> Vec<Rgb> {
    let mut planes = [[0.0f32; 3]; 3];
    for (k, plane) in planes.iter_mut().enumerate() {
        let (mut across, mut down) = (Vec::new(), Vec::new());
        for (i, (p, a)) in points.iter().zip(colours).enumerate() {
            for (q, b) in points.iter().zip(colours).skip(i + 1) {
                let (dx, dy) = (q.0 - p.0, q.1 - p.1);
                let dc = b[k] - a[k];
                if dy.abs() < LEVEL && dx.abs() >= LEVEL {
                    across.push(dc / dx);
                } else if dx.abs() < LEVEL && dy.abs() >= LEVEL {
                    down.push(dc / dy);
                }
            }
        }
        let sx = if across.is_empty() {
            0.0
        } else {
            median(across)
        };
        let sy = if down.is_empty() { 0.0 } else { median(down) };
        let offset = median(
            points
                .iter()
                .zip(colours)
                .map(|(p, c)| c[k] - sx * p.0 - sy * p.1)
                .collect(),
        );
        *plane = [offset, sx, sy];
    }
    at.iter()
        .map(|p| planes.map(|[o, sx, sy]| o + sx * p.0 + sy * p.1))
        .collect()
}

/// Samples nearer than this (pixels) along an axis are level with each other on it.
const LEVEL: f32 = 0.5;

/// Which streets of `grid` on `img` something unlike the others covers: the gaps between
/// tiles side by side (`upright`, row-major: row, then the gap's column 0-2), and between
/// tiles one above the other (`level`: column, then the gap's row 0-2).
pub fn covered_streets(img: &RgbaImage, grid: &Grid) -> Streets {
    let [upright, level] = street_shares(img, grid);
    Streets { upright, level }
}

/// For each street of `grid` on `img` (as `covered_streets` orders them), the share of its
/// samples unlike the street's usual colour (0 for all when the "streets" show the tiles'
/// faces).
fn street_shares(img: &RgbaImage, grid: &Grid) -> [[f32; 12]; 2] {
    let gap = (grid.pitch.0.min(grid.pitch.1) - grid.tile).max(0.0);
    // Each sample averages a square a sixth of the gap across: JPEG's blocks and noise.
    let half = gap / 12.0;
    let [upright, level] = streets(grid);
    let face = face_colour(img, grid);
    let shares = |kind: &[Vec<(f32, f32)>]| -> [f32; 12] {
        let points: Vec<(f32, f32)> = kind.iter().flatten().copied().collect();
        let colours: Vec<Rgb> = points.iter().map(|&p| mean_at(img, p, half)).collect();
        let (fit_points, fit_colours): (Vec<(f32, f32)>, Vec<Rgb>) = points
            .iter()
            .zip(&colours)
            .enumerate()
            .filter(|(i, _)| (i % ALONG).is_multiple_of(FIT_EVERY))
            .map(|(_, (&p, &c))| (p, c))
            .unzip();
        let usual = background(&fit_points, &fit_colours, &points);
        let per = kind[0].len();
        let middle = [0, 1, 2].map(|k| median(usual.iter().map(|u| u[k]).collect()));
        if distance(middle, face) <= DIFFERENT {
            // These "streets" show the tiles' faces: tiles that touch (or a bevel filling the
            // gap), where a bonus tile's tint would pass for an overlay.
            return [0.0; 12];
        }
        // Per street, which samples differ, a path line's forgiven.
        let differ: Vec<Vec<bool>> = (0..kind.len())
            .map(|j| {
                let street = j * per..(j + 1) * per;
                let unlike: Vec<bool> = street
                    .clone()
                    .map(|i| distance(colours[i], usual[i]) > DIFFERENT)
                    .collect();
                let white: Vec<bool> = street
                    .zip(&unlike)
                    .map(|(i, &d)| d && veiled(colours[i], usual[i]))
                    .collect();
                let line = path_line(&white);
                (0..per).map(|i| unlike[i] && !line.contains(&i)).collect()
            })
            .collect();
        let own = own_marks(&differ, per);
        std::array::from_fn(|j| {
            let count = (0..per).filter(|&i| differ[j][i] && !own[i]).count();
            count as f32 / per as f32
        })
    };
    [shares(&upright), shares(&level)]
}

/// The samples, by their place along a street, that differ on most streets of a kind
/// (`OWN_MARK`): a mark the board draws in every street at one place, such as jigsaw notches
/// jutting into the middle of each gap, is the board's own, not something over it. (A dialog
/// over that many streets is no mark: it is then what the streets' usual colour is fitted
/// to, and the streets it leaves bare are the ones that differ.)
fn own_marks(differ: &[Vec<bool>], per: usize) -> Vec<bool> {
    (0..per)
        .map(|i| {
            let n = differ.iter().filter(|d| d[i]).count();
            n as f32 >= differ.len() as f32 * OWN_MARK
        })
        .collect()
}

/// A place along the streets is a mark of the board's own where this share of the streets
/// of a kind differ there.
const OWN_MARK: f32 = 0.75;

/// Where a path line crosses a street, given which of its samples differ from its usual
/// colour as that colour under a `white` veil: the run of such samples nearest the street's
/// middle (empty when none). A line runs from tile centre to tile centre, so it crosses a
/// street once, square across its middle (a diagonal one passes through the crossings,
/// outside the samples); a toast's white letters cross it stroke by stroke, anywhere, and
/// the veiled samples outside the line's run are theirs.
fn path_line(white: &[bool]) -> std::ops::Range<usize> {
    let middle = white.len() / 2;
    let mut best = 0..0;
    let mut best_off = usize::MAX;
    let mut i = 0;
    while i < white.len() {
        if !white[i] {
            i += 1;
            continue;
        }
        let start = i;
        while i < white.len() && white[i] {
            i += 1;
        }
        let off = if (start..i).contains(&middle) {
            0
        } else {
            middle.abs_diff(start).min(middle.abs_diff(i - 1))
        };
        if off < best_off {
            (best, best_off) = (start..i, off);
        }
    }
    best
}

/// How much of each street something unlike the rest covers (`street_shares`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Streets {
    pub upright: [f32; 12],
    pub level: [f32; 12],
}

impl Streets {
    /// The streets covered (`COVERED_SHARE` of them or more).
    pub fn count(&self) -> usize {
        self.upright
            .iter()
            .chain(&self.level)
            .filter(|&&c| c >= COVERED_SHARE)
            .count()
    }

    /// Two streets side by side in one gap between rows, each covered at least in part
    /// (`SIDE_SHARE`): what a toast or a dialog box, wider than tall, covers; a bonus tile's
    /// tinted rim or shadow covers the streets of one tile.
    fn side_by_side(&self) -> bool {
        (0..9).any(|j| self.level[j] >= SIDE_SHARE && self.level[j + 3] >= SIDE_SHARE)
    }
}

/// The median of `v`; 0 for none.
fn median(v: Vec<f32>) -> f32 {
    colour::median(v).unwrap_or(0.0)
}

/// The tiles' usual face colour: the median over points near each tile's corners (off the
/// glyph; a corner value or a badge on a few of them does not move a median).
fn face_colour(img: &RgbaImage, grid: &Grid) -> Rgb {
    let off = grid.tile * FACE_AT;
    let colours: Vec<Rgb> = grid
        .centres
        .iter()
        .flat_map(|&(x, y)| {
            [(-off, -off), (off, -off), (-off, off), (off, off)]
                .map(|(dx, dy)| mean_at(img, (x + dx, y + dy), 1.0))
        })
        .collect();
    [0, 1, 2].map(|k| median(colours.iter().map(|c| c[k]).collect()))
}

/// Whether something (a toast, a dialog) lies over the board in `grid` on `img`.
pub fn covered(img: &RgbaImage, grid: &Grid) -> bool {
    let s = covered_streets(img, grid);
    s.side_by_side() || s.count() >= MIN_COVERED
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    const BACK: Rgba<u8> = Rgba([40, 60, 120, 255]);
    const FACE: Rgba<u8> = Rgba([235, 225, 200, 255]);

    /// A board of plain tiles (side 80, pitch 100) on a 480x520 screen.
    fn board() -> (RgbaImage, Grid) {
        let mut img = RgbaImage::from_pixel(480, 520, BACK);
        let mut centres = [(0.0, 0.0); 16];
        for (i, c) in centres.iter_mut().enumerate() {
            *c = (
                90.0 + 100.0 * (i % 4) as f32,
                110.0 + 100.0 * (i / 4) as f32,
            );
            fill(
                &mut img,
                (c.0 - 40.0, c.1 - 40.0, c.0 + 40.0, c.1 + 40.0),
                |_| FACE,
            );
        }
        (img, Grid::from_centres(centres, 80.0))
    }

    fn fill(
        img: &mut RgbaImage,
        (l, t, r, b): (f32, f32, f32, f32),
        f: impl Fn(Rgba<u8>) -> Rgba<u8>,
    ) {
        for y in t.max(0.0) as u32..(b as u32).min(img.height()) {
            for x in l.max(0.0) as u32..(r as u32).min(img.width()) {
                let p = *img.get_pixel(x, y);
                img.put_pixel(x, y, f(p));
            }
        }
    }

    fn veil(p: Rgba<u8>, a: f32) -> Rgba<u8> {
        let v = |c: u8| (f32::from(c) + a * (255.0 - f32::from(c))).round() as u8;
        Rgba([v(p[0]), v(p[1]), v(p[2]), 255])
    }

    /// Jigsaw notches: a knob of the tile's face jutting into the middle of every gap, on
    /// every side. They cover a third of each street, side by side in every gap between rows,
    /// at the same place along every street: the board's own marks, no overlay. A toast box
    /// over the middle still covers it.
    #[test]
    fn notches_in_every_street_are_no_overlay() {
        let (mut img, grid) = board();
        for &(x, y) in &grid.centres {
            for (dx, dy) in [(50.0, 0.0), (-50.0, 0.0), (0.0, 50.0), (0.0, -50.0)] {
                let (kx, ky) = (x + dx, y + dy);
                fill(
                    &mut img,
                    (kx - 10.0, ky - 10.0, kx + 10.0, ky + 10.0),
                    |_| FACE,
                );
            }
        }
        let streets = covered_streets(&img, &grid);
        assert!(!covered(&img, &grid), "{streets:?}");
        fill(&mut img, (127.5, 225.0, 352.5, 295.0), |_| {
            Rgba([160, 170, 40, 255])
        });
        assert!(covered(&img, &grid), "{:?}", covered_streets(&img, &grid));
    }

    #[test]
    fn a_plain_board_is_not_covered() {
        let (img, grid) = board();
        assert_eq!(covered_streets(&img, &grid).count(), 0);
    }

    #[test]
    fn a_steep_gradient_behind_the_board_is_no_overlay() {
        let (mut img, grid) = board();
        // The background lightens by 0.3 a channel a pixel from top to bottom: the top
        // row's streets and the bottom row's differ by 90 levels a channel.
        fill(&mut img, (0.0, 0.0, 480.0, 520.0), |p| {
            if p == FACE { p } else { Rgba([0, 0, 0, 255]) }
        });
        for y in 0..520 {
            for x in 0..480 {
                if *img.get_pixel(x, y) != FACE {
                    let v = |c: f32| (c + 0.3 * y as f32).min(255.0) as u8;
                    img.put_pixel(x, y, Rgba([v(20.0), v(40.0), v(60.0), 255]));
                }
            }
        }
        assert_eq!(covered_streets(&img, &grid).count(), 0);
    }

    #[test]
    fn a_toast_box_over_the_middle_covers_the_board() {
        let (mut img, grid) = board();
        // A box 2.25 pitches wide and 0.7 tall over the grid's middle, as "GO!" is drawn.
        fill(&mut img, (127.5, 225.0, 352.5, 295.0), |_| {
            Rgba([160, 170, 40, 255])
        });
        assert!(covered(&img, &grid), "{:?}", covered_streets(&img, &grid));
    }

    /// A board under a light dim (35% black, the tiles still light), then "ROUND 2" in bare
    /// text of `colour` over the gap between rows 1 and 2, across columns 1 and 2: its
    /// letters' upright strokes (6 pixels wide, one every 18) cover a third of the streets
    /// they cross.
    fn bare_toast(colour: Rgba<u8>) -> (RgbaImage, Grid) {
        let (mut img, grid) = board();
        fill(&mut img, (0.0, 0.0, 480.0, 520.0), |p| {
            let d = |c: u8| (f32::from(c) * 0.65) as u8;
            Rgba([d(p[0]), d(p[1]), d(p[2]), 255])
        });
        for k in 0..12 {
            let x = 130.0 + 18.0 * k as f32;
            fill(&mut img, (x, 242.0, x + 6.0, 278.0), |_| colour);
        }
        (img, grid)
    }

    #[test]
    fn a_toast_of_bare_text_over_a_dimmed_board_covers_it() {
        let (img, grid) = bare_toast(Rgba([230, 235, 140, 255]));
        let streets = covered_streets(&img, &grid);
        assert!(covered(&img, &grid), "{streets:?}");
        // No street is covered over most of its length: only a thin toast's side by side
        // streets tell.
        assert_eq!(streets.count(), 0, "{streets:?}");
    }

    #[test]
    fn a_toast_of_white_text_is_no_path_line() {
        // Every stroke of a white toast is the street's colour under a full white veil, as
        // a path line's middle is, but the strokes cross the streets all along them, not
        // once across the middle.
        let (img, grid) = bare_toast(Rgba([250, 250, 250, 255]));
        assert!(covered(&img, &grid), "{:?}", covered_streets(&img, &grid));
    }

    #[test]
    fn a_path_line_across_streets_is_no_overlay() {
        let (mut img, grid) = board();
        // A broad translucent white line (0.44 of the pitch) from tile (1,0) across row 1 to
        // tile (1,3), and another down column 2: each covers two thirds of the streets it
        // crosses.
        fill(&mut img, (90.0, 188.0, 390.0, 232.0), |p| veil(p, 0.6));
        fill(&mut img, (268.0, 110.0, 312.0, 410.0), |p| veil(p, 0.6));
        assert_eq!(covered_streets(&img, &grid).count(), 0);
        assert!(!covered(&img, &grid), "{:?}", covered_streets(&img, &grid));
    }

    #[test]
    fn tinted_tiles_touching_their_neighbours_are_no_overlay() {
        let (mut img, grid) = board();
        // Tiles as tall as the pitch: one above another they touch, so the gaps between rows
        // show their faces; two tinted bonus tiles side by side in the top row change the two
        // "streets" under them.
        for (i, &(x, y)) in grid.centres.iter().enumerate() {
            let tint = i == 1 || i == 2;
            fill(&mut img, (x - 40.0, y - 50.0, x + 40.0, y + 50.0), |_| {
                if tint {
                    Rgba([120, 200, 90, 255])
                } else {
                    FACE
                }
            });
        }
        assert!(!covered(&img, &grid), "{:?}", covered_streets(&img, &grid));
    }

    #[test]
    fn one_badge_sticking_into_a_crossing_is_no_overlay() {
        let (mut img, grid) = board();
        // A vivid badge on tile (0,0)'s lower right corner, reaching into the crossing.
        fill(&mut img, (110.0, 130.0, 145.0, 165.0), |_| {
            Rgba([20, 160, 60, 255])
        });
        assert!(!covered(&img, &grid));
    }
}
