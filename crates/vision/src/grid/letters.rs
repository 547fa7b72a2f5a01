//! A grid found by its letters, when no tiles stand out from what lies between them.
//!
//! Every other search looks for the tiles: regions of a tile's shape on one side of a
//! threshold of lightness or colour. Cream tiles on a white panel, dark tiles a few levels
//! off a dark panel, tiles shaded down into their panel's colour, or tiles joined by jigsaw
//! notches show no such regions, but their letters still stand out (a game draws them to be
//! read): sixteen glyphs of one cap height whose centres fall into 4 evenly spaced columns and
//! 4 evenly spaced rows, at a pitch of one and a half to four times that height. The side of a
//! tile is then measured from the colours across the lattice (`refine::fitted`).

use super::{Blob, Grid, Polarity, SIDE, Scratch, Shrunk, clusters, consider_groups, even_four};
use crate::bits::Bits;
use crate::regions::Touch;

/// Lightness thresholds at which glyphs are looked for, both ways round.
const THRESHOLDS: [u8; 10] = [60, 90, 120, 140, 160, 175, 190, 205, 220, 235];

/// A glyph's height as a share of the working width: a board on a third of a phone's width
/// shows letters about 4% of it tall, one on the whole width 15%.
const HEIGHT: (f32, f32) = (0.025, 0.2);

/// The pitch of a lattice of letters, in cap heights: a letter fills 30-65% of its tile.
const PITCH: (f32, f32) = (1.5, 4.0);

/// A glyph stands at a lattice place when its centre is within this many of its heights of
/// it (letters are centred on their tiles).
const AT_PLACE: f32 = 0.3;

/// Glyphs whose heights are within this share of each other are of one cap height.
const SAME_HEIGHT: f32 = 0.12;

/// A glyph whose centre lies within this share of the pitch of a lattice place, across and
/// down, stands on that tile (a "QU" drawn as two letters stands on one).
const IN_TILE: f32 = 0.4;

/// Glyphs of the lattice's height among its places but on none of its tiles: at most this
/// many (a decoration of a letter's size), or the glyphs are lines of text, not a board.
const MAX_STRAYS: usize = 2;

/// Letters that must stand where the lattice puts them: more than for tiles
/// (`MIN_TILES_SEEN`), since glyphs in rows and columns are commoner than tiles so.
const MIN_LETTERS_SEEN: usize = 12;

/// Letters at the places of a fifth row or column that carry a lattice on past four: at
/// least this many of the four (a score and a clock above a board may stand on two).
const CARRIED_ON: usize = 3;

/// More glyph-shaped regions than this at one threshold is text or texture, not a board.
const MAX_GLYPHS: usize = 256;

/// The regions of `mask` of a glyph's shape: off the screen's edge, of a letter's height, no
/// wider than a wide W, not a hairline.
fn glyphs(s: &Shrunk, mask: &Bits, scratch: &mut Scratch) -> Vec<Blob> {
    let (lo, hi) = ((s.w as f32 * HEIGHT.0).max(6.0), s.w as f32 * HEIGHT.1);
    mask.regions(Touch::Eight, &mut scratch.runs)
        .into_iter()
        .filter_map(|r| {
            let (bw, bh) = ((r.x1 - r.x0) as f32, (r.y1 - r.y0) as f32);
            let fill = r.count as f32 / (bw * bh);
            (!r.edge && (lo..=hi).contains(&bh) && bw >= 2.0 && bw <= bh * 1.8 && fill >= 0.1).then(
                || Blob {
                    cx: r.cx(),
                    cy: r.cy(),
                    w: bw,
                    h: bh,
                },
            )
        })
        .collect()
}

/// The lattice of one group of glyphs of one height, with its mean error (in heights).
fn lattice(group: &[Blob]) -> Option<(Grid, f32)> {
    let mut heights: Vec<f32> = group.iter().map(|b| b.h).collect();
    heights.sort_by(f32::total_cmp);
    let h = heights[heights.len() / 2];
    let tol = h * 0.3;
    let pitch = (h * PITCH.0, h * PITCH.1);
    let (xs, px) = even_four(&clusters(group.iter().map(|b| b.cx).collect(), tol), pitch)?;
    let (ys, py) = even_four(&clusters(group.iter().map(|b| b.cy).collect(), tol), pitch)?;
    if (px / py - 1.0).abs() > 0.15 {
        return None;
    }
    let near = |x: f32, y: f32| {
        group
            .iter()
            .map(|b| ((b.cx - x).powi(2) + (b.cy - y).powi(2)).sqrt())
            .fold(f32::INFINITY, f32::min)
    };
    // A board is four by four: a fifth column or row of letters carrying the lattice on (a
    // calendar's days, a word search) makes it something else.
    let (left, right) = (xs[0] - px, xs[SIDE - 1] + px);
    let (top, bottom) = (ys[0] - py, ys[SIDE - 1] + py);
    let carried = |places: [(f32, f32); SIDE]| {
        places
            .iter()
            .filter(|&&(x, y)| near(x, y) < h * AT_PLACE)
            .count()
            >= CARRIED_ON
    };
    if carried(ys.map(|y| (left, y)))
        || carried(ys.map(|y| (right, y)))
        || carried(xs.map(|x| (x, top)))
        || carried(xs.map(|x| (x, bottom)))
    {
        return None;
    }
    let mut centres = [(0.0, 0.0); 16];
    let (mut seen, mut error) = (0, 0.0);
    for r in 0..SIDE {
        for c in 0..SIDE {
            let (x, y) = (xs[c], ys[r]);
            centres[r * SIDE + c] = (x, y);
            let near = near(x, y);
            if near < h * AT_PLACE {
                seen += 1;
                error += near;
            }
        }
    }
    // A board's letters stand each on its tile; lines of text also run between the places.
    let in_a_tile = |b: &Blob| {
        xs.iter().any(|&x| (b.cx - x).abs() <= px * IN_TILE)
            && ys.iter().any(|&y| (b.cy - y).abs() <= py * IN_TILE)
    };
    let within = |b: &Blob| {
        (xs[0] - px / 2.0..=xs[SIDE - 1] + px / 2.0).contains(&b.cx)
            && (ys[0] - py / 2.0..=ys[SIDE - 1] + py / 2.0).contains(&b.cy)
    };
    if group.iter().filter(|b| within(b) && !in_a_tile(b)).count() > MAX_STRAYS {
        return None;
    }
    let grid = Grid {
        centres,
        pitch: (px, py),
        // Measured once the lattice is chosen; until then a tile is taken to fill most of
        // its pitch.
        tile: px.min(py) * 0.8,
        seen,
        polarity: Polarity::Light,
    };
    Some((grid, error / seen.max(1) as f32 / h))
}

/// The best lattice of letters on `s`, in working pixels, its polarity the letters' way
/// round: the most letters where it puts them, then the least error.
pub(super) fn search(s: &Shrunk, scratch: &mut Scratch) -> Option<Grid> {
    let mut best: Option<(Grid, f32)> = None;
    for way in [Polarity::Light, Polarity::Dark] {
        for t in THRESHOLDS {
            let light = Bits::at_least(&s.luma, s.w, s.h, t);
            // Light tiles show dark letters: below the threshold.
            let mask = match way {
                Polarity::Light => light.inverted(),
                Polarity::Dark => light,
            };
            let found = glyphs(s, &mask, scratch);
            if found.len() > MAX_GLYPHS {
                continue;
            }
            let fit =
                |group: &[Blob]| lattice(group).map(|(grid, err)| (grid.with_polarity(way), err));
            let height = |b: &Blob| b.h;
            consider_groups(
                &found,
                (height, SAME_HEIGHT),
                MIN_LETTERS_SEEN,
                fit,
                &mut best,
            );
        }
    }
    best.map(|(grid, _)| grid)
}

#[cfg(test)]
mod tests {
    use super::super::refine::tests::off;
    use super::super::{find_either, shrink};
    use super::*;
    use image::{Rgba, RgbaImage};

    /// Draws a glyph-like shape of `ink` centred on (cx, cy), 64 pixels tall: a bar (I), a
    /// ring (O) or an L, by `kind`.
    fn glyph(img: &mut RgbaImage, (cx, cy): (u32, u32), kind: u32, ink: [u8; 3]) {
        let [r, g, b] = ink;
        for y in cy - 32..cy + 32 {
            for x in cx - 24..cx + 24 {
                let (dx, dy) = (x.abs_diff(cx), y.abs_diff(cy));
                let on = match kind % 3 {
                    0 => dx < 7,
                    1 => !(dx < 12 && dy < 20),
                    _ => x < cx - 10 || y >= cy + 20,
                };
                if on {
                    img.put_pixel(x, y, Rgba([r, g, b, 255]));
                }
            }
        }
    }

    /// A screen of `panel`, 1280 tall and wide enough, with `cols` x `rows` glyphs of `ink` at a pitch of 150
    /// (the first at 135, 415), on square tiles of side `tile` and colour `face` when given;
    /// and the centres of the first 4x4 of them.
    fn letters(
        panel: [u8; 3],
        ink: [u8; 3],
        (cols, rows): (u32, u32),
        tiles: Option<(u32, [u8; 3])>,
    ) -> (RgbaImage, [(f32, f32); 16]) {
        let [r, g, b] = panel;
        let (pitch, x0, y0) = (150u32, 135u32, 415u32);
        let width = (2 * x0 + pitch * (cols - 1)).max(720);
        let mut img = RgbaImage::from_pixel(width, 1280, Rgba([r, g, b, 255]));
        let mut centres = [(0.0, 0.0); 16];
        for row in 0..rows {
            for col in 0..cols {
                let (cx, cy) = (x0 + pitch * col, y0 + pitch * row);
                if row < 4 && col < 4 {
                    centres[(row * 4 + col) as usize] = (cx as f32, cy as f32);
                }
                if let Some((side, [r, g, b])) = tiles {
                    for y in cy - side / 2..cy + side / 2 {
                        for x in cx - side / 2..cx + side / 2 {
                            img.put_pixel(x, y, Rgba([r, g, b, 255]));
                        }
                    }
                }
                glyph(&mut img, (cx, cy), row + col, ink);
            }
        }
        (img, centres)
    }

    /// Letters on a screen with no tiles to be seen (the tiles of the panel's own colour) are
    /// a board found by the letters, either way round; the side is then taken as most of the
    /// pitch.
    #[test]
    fn a_board_whose_tiles_do_not_stand_out_is_found_by_its_letters() {
        for (panel, ink, way) in [
            ([250, 250, 245], [40, 30, 30], Polarity::Light),
            ([40, 50, 45], [240, 240, 230], Polarity::Dark),
        ] {
            let (img, want) = letters(panel, ink, (4, 4), None);
            let grid = find_either(&img).expect("a grid of letters");
            assert!(off(&grid, &want) <= 3.0, "{grid:?}");
            assert_eq!(grid.polarity, way);
            assert_eq!(grid.seen, 16);
            assert!((grid.tile - 120.0).abs() <= 2.0, "{grid:?}");
        }
    }

    /// Cream tiles a few levels off a white panel (too near for any threshold or colour the
    /// tile search tries): found by their letters, then measured across the lattice.
    #[test]
    fn cream_tiles_on_white_found_by_their_letters_are_measured() {
        let (img, want) = letters(
            [255, 255, 255],
            [60, 40, 30],
            (4, 4),
            Some((130, [250, 248, 243])),
        );
        let (s, rgb) = shrink(&img, true);
        assert_eq!(
            super::super::search_either(&s, &rgb),
            None,
            "found by tiles"
        );
        let grid = find_either(&img).expect("a grid of letters");
        assert!(off(&grid, &want) <= 4.0, "{grid:?}");
        // Measured, not the lattice's guess of 0.8 of the pitch (120).
        assert!((grid.tile - 130.0).abs() <= 3.0, "{grid:?}");
    }

    /// A calendar's days (seven columns of glyphs) carry the lattice past four: no board.
    #[test]
    fn a_lattice_of_glyphs_wider_than_four_is_no_board() {
        let (img, _) = letters([250, 250, 250], [30, 30, 30], (7, 4), None);
        assert_eq!(find_either(&img), None);
        // Its first four columns alone are a board.
        let (img, _) = letters([250, 250, 250], [30, 30, 30], (4, 4), None);
        assert!(find_either(&img).is_some());
    }

    /// Glyphs of the letters' height between the places, as lines of text have, are no board.
    #[test]
    fn glyphs_between_the_places_are_text_not_a_board() {
        let (mut img, want) = letters([250, 250, 250], [30, 30, 30], (4, 4), None);
        for (i, &(cx, cy)) in want.iter().enumerate().filter(|(i, _)| i % 4 < 3) {
            glyph(
                &mut img,
                (cx as u32 + 75, cy as u32),
                i as u32,
                [30, 30, 30],
            );
        }
        assert_eq!(find_either(&img), None);
    }
}
