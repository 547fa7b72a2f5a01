//! Finding the 4x4 grid on a screen without knowing the game: a regular lattice of similar,
//! light, roughly square tiles. Nothing about position or colour is assumed beyond "tiles are
//! lighter than what is between them".
//!
//! The screen is shrunk to a working width (box averaging), then for several lightness
//! thresholds the light regions are labelled; regions of tile shape (near square, mostly
//! filled: the glyph makes holes) become candidates. The largest group of candidates of one
//! size whose centres fall into 4 evenly spaced columns and 4 evenly spaced rows is the grid.
//! Tiles may be missing from the detections (a highlighted tile, a path line drawn across
//! tiles merges them): the lattice is fitted from those found, and at least
//! `MIN_TILES_SEEN` of 16 must agree. When no threshold gives a grid, the search is run again
//! at half the width on masks whose holes are filled and that are opened by a small square,
//! which cuts a line joining tiles; when a traced path closes a loop, filling every hole
//! would fill the loop too, so a last try fills only holes of a glyph's size (under the side
//! of the tiles the plain masks saw). Last, darker thresholds find a board dimmed under an
//! overlay.

use image::RgbaImage;

use super::regions::{Touch, label};

/// The working width the screen is shrunk to.
const WORK_WIDTH: u32 = 360;
/// Lightness thresholds tried (0-255 luma).
const THRESHOLDS: [u8; 7] = [140, 160, 175, 190, 205, 220, 235];
/// Thresholds tried last, when no other finds a grid: tiles under a dark overlay (a toast
/// before the round, a dialog), which the reader reports as dimmed.
const DIM_THRESHOLDS: [u8; 6] = [45, 60, 75, 90, 105, 120];
/// Half-side of the square that opens the light masks, as a share of the working width: cuts
/// light bridges up to 6% of the width across (a line, with the narrow gap between two tiles
/// it crosses, which blur and JPEG lighten), a third of a small tile. 2% left two corpus
/// screens with narrow gaps refused.
const OPENING: f32 = 0.03;
/// A glyph's hole is at most this share of the tile's side each way (a wide W, a Qu).
const GLYPH_HOLE: f32 = 0.85;
/// Tiles that must be seen where the lattice puts them.
pub const MIN_TILES_SEEN: usize = 10;
const SIDE: usize = 4;

/// A grid found on a screen, in the screen's pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Tile centres, row-major.
    pub centres: [(f32, f32); 16],
    /// Distance between neighbouring centres (x, y).
    pub pitch: (f32, f32),
    /// Side of a tile (its light square).
    pub tile: f32,
    /// Tiles detected where the lattice puts them (of 16).
    pub seen: usize,
}

impl Grid {
    /// A grid given by its tile centres (a profile's) and tile side.
    pub fn from_centres(centres: [(f32, f32); 16], tile: f32) -> Grid {
        let pitch = (
            (centres[3].0 - centres[0].0) / 3.0,
            (centres[12].1 - centres[0].1) / 3.0,
        );
        Grid {
            centres,
            pitch,
            tile,
            seen: 16,
        }
    }
}

/// A light region of tile shape, in working pixels.
#[derive(Clone, Copy, Debug)]
struct Blob {
    cx: f32,
    cy: f32,
    w: f32,
    h: f32,
}

/// The screen's lightness, shrunk by an integer factor.
struct Shrunk {
    w: usize,
    h: usize,
    luma: Vec<u8>,
    scale: f32,
}

fn shrink(img: &RgbaImage) -> Shrunk {
    let f = (img.width() / WORK_WIDTH).max(1) as usize;
    let (w, h) = (img.width() as usize / f, img.height() as usize / f);
    let mut luma = vec![0u8; w * h];
    let raw = img.as_raw();
    let stride = img.width() as usize * 4;
    // Rec. 601 luma in thousandths, summed per output pixel a screen row at a time.
    let mut sums = vec![0u32; w];
    for y in 0..h {
        sums.fill(0);
        for dy in 0..f {
            let row = &raw[(y * f + dy) * stride..][..w * f * 4];
            for (sum, block) in sums.iter_mut().zip(row.chunks_exact(f * 4)) {
                for p in block.chunks_exact(4) {
                    *sum += 299 * u32::from(p[0]) + 587 * u32::from(p[1]) + 114 * u32::from(p[2]);
                }
            }
        }
        let per = 1000 * (f * f) as u32;
        for (out, sum) in luma[y * w..(y + 1) * w].iter_mut().zip(&sums) {
            *out = (sum / per) as u8;
        }
    }
    Shrunk {
        w,
        h,
        luma,
        scale: f as f32,
    }
}

/// `s` at half its size (2x2 means).
fn halve(s: &Shrunk) -> Shrunk {
    let (w, h) = (s.w / 2, s.h / 2);
    let mut luma = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let at = |dx: usize, dy: usize| u16::from(s.luma[(2 * y + dy) * s.w + 2 * x + dx]);
            luma[y * w + x] = ((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4) as u8;
        }
    }
    Shrunk {
        w,
        h,
        luma,
        scale: s.scale * 2.0,
    }
}

/// How a light mask is opened before its regions are taken: its holes (the glyphs) are
/// filled, those no larger than `max_hole` a side when it is given, then it is opened by a
/// square of half-side `r`.
#[derive(Clone, Copy, Debug)]
struct Opening {
    r: usize,
    max_hole: Option<usize>,
}

/// The light regions at `threshold` that have a tile's shape. With `open`, the light mask
/// first has its holes filled and is then opened by a square: a light line drawn from tile to
/// tile (a traced path) no wider than the square no longer joins them into one region.
fn blobs(s: &Shrunk, threshold: u8, open: Option<Opening>, scratch: &mut Scratch) -> Vec<Blob> {
    let (w, h) = (s.w, s.h);
    let min_side = (w as f32 * 0.06).max(4.0);
    let max_side = w as f32 * 0.4;
    let regions = match open {
        None => label(
            |p| s.luma[p] >= threshold,
            w,
            h,
            Touch::Four,
            &mut scratch.labels,
            &mut scratch.stack,
        ),
        Some(Opening { r, max_hole }) => {
            let mut mask: Vec<bool> = s.luma.iter().map(|&l| l >= threshold).collect();
            let holes = label(
                |p| !mask[p],
                w,
                h,
                Touch::Four,
                &mut scratch.labels,
                &mut scratch.stack,
            );
            let enclosed: Vec<bool> = std::iter::once(false)
                .chain(holes.iter().map(|h| {
                    !h.edge && max_hole.is_none_or(|m| h.x1 - h.x0 <= m && h.y1 - h.y0 <= m)
                }))
                .collect();
            for (m, &l) in mask.iter_mut().zip(&scratch.labels) {
                *m |= enclosed[l as usize];
            }
            let mask = square(&square(&mask, w, h, r, true), w, h, r, false);
            label(
                |p| mask[p],
                w,
                h,
                Touch::Four,
                &mut scratch.labels,
                &mut scratch.stack,
            )
        }
    };
    regions
        .into_iter()
        .filter_map(|r| {
            let (bw, bh) = ((r.x1 - r.x0) as f32, (r.y1 - r.y0) as f32);
            let aspect = bw / bh;
            let fill = r.count as f32 / (bw * bh);
            (bw >= min_side
                && bh >= min_side
                && bw <= max_side
                && bh <= max_side
                && (0.7..=1.43).contains(&aspect)
                && fill >= 0.5)
                .then(|| Blob {
                    cx: r.cx(),
                    cy: r.cy(),
                    w: bw,
                    h: bh,
                })
        })
        .collect()
}

/// Erosion (`erode`: set where the whole square of half-side `r` around is set; outside the
/// image counts as set) or dilation (set where any of it is) of a w x h mask, from a table of
/// running counts, so its cost does not grow with `r`.
fn square(mask: &[bool], w: usize, h: usize, r: usize, erode: bool) -> Vec<bool> {
    // sums[(y * (w + 1)) + x]: set pixels above and left of (x, y), exclusive.
    let mut sums = vec![0u32; (w + 1) * (h + 1)];
    for y in 0..h {
        let mut row = 0;
        for x in 0..w {
            row += u32::from(mask[y * w + x]);
            sums[(y + 1) * (w + 1) + x + 1] = sums[y * (w + 1) + x + 1] + row;
        }
    }
    let mut out = vec![false; w * h];
    for y in 0..h {
        let (y0, y1) = (y.saturating_sub(r), (y + r + 1).min(h));
        for x in 0..w {
            let (x0, x1) = (x.saturating_sub(r), (x + r + 1).min(w));
            let set = sums[y1 * (w + 1) + x1] + sums[y0 * (w + 1) + x0]
                - sums[y0 * (w + 1) + x1]
                - sums[y1 * (w + 1) + x0];
            let area = ((y1 - y0) * (x1 - x0)) as u32;
            out[y * w + x] = if erode { set == area } else { set > 0 };
        }
    }
    out
}

/// Buffers reused across thresholds.
#[derive(Default)]
struct Scratch {
    labels: Vec<u32>,
    stack: Vec<usize>,
}

/// Groups sorted values into clusters no wider than `tol` between neighbours; their means.
fn clusters(mut values: Vec<f32>, tol: f32) -> Vec<(f32, usize)> {
    values.sort_by(f32::total_cmp);
    let mut out: Vec<(f32, usize)> = Vec::new();
    let mut current: Vec<f32> = Vec::new();
    for v in values {
        if let Some(&last) = current.last()
            && v - last > tol
        {
            out.push((
                current.iter().sum::<f32>() / current.len() as f32,
                current.len(),
            ));
            current.clear();
        }
        current.push(v);
    }
    if !current.is_empty() {
        out.push((
            current.iter().sum::<f32>() / current.len() as f32,
            current.len(),
        ));
    }
    out
}

/// Four evenly spaced positions from clusters, if they are that; (positions, pitch).
fn even_four(c: &[(f32, usize)], size: f32) -> Option<([f32; SIDE], f32)> {
    if c.len() != SIDE {
        return None;
    }
    let gaps: Vec<f32> = c.windows(2).map(|p| p[1].0 - p[0].0).collect();
    let pitch = (c[SIDE - 1].0 - c[0].0) / (SIDE - 1) as f32;
    if !(pitch >= size * 0.95 && pitch <= size * 1.8) {
        return None;
    }
    if gaps.iter().any(|g| (g - pitch).abs() > pitch * 0.12) {
        return None;
    }
    // Evenly spaced at that pitch, centred on the four clusters' mean.
    let first = c.iter().map(|p| p.0).sum::<f32>() / SIDE as f32 - pitch * 1.5;
    let pos = [0, 1, 2, 3].map(|i| first + pitch * i as f32);
    Some((pos, pitch))
}

/// Fits the lattice to one group of same-size blobs.
fn lattice(group: &[Blob]) -> Option<(Grid, f32)> {
    let mut sizes: Vec<f32> = group.iter().map(|b| (b.w + b.h) / 2.0).collect();
    sizes.sort_by(f32::total_cmp);
    let size = sizes[sizes.len() / 2];
    let tol = size * 0.3;
    let (xs, px) = even_four(&clusters(group.iter().map(|b| b.cx).collect(), tol), size)?;
    let (ys, py) = even_four(&clusters(group.iter().map(|b| b.cy).collect(), tol), size)?;
    if (px / py - 1.0).abs() > 0.15 {
        return None;
    }
    let mut centres = [(0.0, 0.0); 16];
    let mut seen = 0;
    let mut error = 0.0;
    for r in 0..SIDE {
        for c in 0..SIDE {
            let (x, y) = (xs[c], ys[r]);
            centres[r * SIDE + c] = (x, y);
            let near = group
                .iter()
                .map(|b| ((b.cx - x).powi(2) + (b.cy - y).powi(2)).sqrt())
                .fold(f32::INFINITY, f32::min);
            if near < size * 0.25 {
                seen += 1;
                error += near;
            }
        }
    }
    Some((
        Grid {
            centres,
            pitch: (px, py),
            tile: size,
            seen,
        },
        error / seen.max(1) as f32 / size,
    ))
}

/// More tile-shaped regions than this at one threshold is texture or noise, not a screen
/// with a board (a board's screen shows a few dozen: tiles, buttons, keys). Found by fuzzing:
/// a 24x9768 JPEG of noise gave thousands, and grouping them (quadratic) took 0.6 s in a
/// release build and over 10 s in the fuzzer's.
const MAX_BLOBS: usize = 256;

/// The best lattice among `found`'s groups of same-size blobs, if better than `best`.
fn consider(found: &[Blob], best: &mut Option<(Grid, f32)>) {
    if found.len() > MAX_BLOBS {
        return;
    }
    // Each blob's size class: the blobs within 25% of its size.
    for anchor in found {
        let size = (anchor.w + anchor.h) / 2.0;
        let group: Vec<Blob> = found
            .iter()
            .filter(|b| ((b.w + b.h) / 2.0 / size - 1.0).abs() <= 0.25)
            .copied()
            .collect();
        if group.len() < MIN_TILES_SEEN {
            continue;
        }
        let Some((grid, err)) = lattice(&group) else {
            continue;
        };
        let better = match best {
            None => true,
            Some((b, e)) => grid.seen > b.seen || (grid.seen == b.seen && err < *e),
        };
        if grid.seen >= MIN_TILES_SEEN && better {
            *best = Some((grid, err));
        }
    }
}

/// Finds the 4x4 grid on `img`, or `None` when there is no such lattice (not a board).
pub fn find(img: &RgbaImage) -> Option<Grid> {
    let s = shrink(img);
    if s.w < 16 || s.h < 16 {
        return None;
    }
    search(&s, true)
}

/// Which way round a grid was found: light tiles (what a game draws most), or dark tiles with
/// light letters, found on the screen's negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polarity {
    Light,
    Dark,
}

/// `find`, then, when there is no grid of light tiles, a grid of dark ones (tiles darker than
/// what lies between them: light on the screen's negative), and which it was.
pub fn find_either(img: &RgbaImage) -> Option<(Grid, Polarity)> {
    let mut s = shrink(img);
    if s.w < 16 || s.h < 16 {
        return None;
    }
    if let Some(g) = search(&s, true) {
        return Some((g, Polarity::Light));
    }
    for l in &mut s.luma {
        *l = 255 - *l;
    }
    // No dimmed pass on the negative: an overlay darkens, it does not lighten.
    search(&s, false).map(|g| (g, Polarity::Dark))
}

/// The grid search on a shrunk screen; `dimmed`: with the dark thresholds last.
fn search(s: &Shrunk, dimmed: bool) -> Option<Grid> {
    let mut scratch = Scratch::default();
    // (tiles seen, -mean error) decides.
    let mut best: Option<(Grid, f32)> = None;
    // Plain masks first; opened ones (slower) only when they find no grid, which is when a
    // traced path's line may have joined too many tiles. Those are worked at half the working
    // width (a quarter of the pixels), their blobs brought back to the working scale.
    let mut sizes = Vec::new();
    for t in THRESHOLDS {
        let found = blobs(s, t, None, &mut scratch);
        sizes.extend(found.iter().map(|b| (b.w + b.h) / 2.0));
        consider(&found, &mut best);
    }
    if best.is_none() {
        let half = halve(s);
        let r = (half.w as f32 * OPENING).round() as usize;
        let k = half.scale / s.scale;
        let mut opened = |max_hole: Option<usize>, best: &mut Option<(Grid, f32)>| {
            for t in THRESHOLDS {
                let mut found = blobs(&half, t, Some(Opening { r, max_hole }), &mut scratch);
                for b in &mut found {
                    (b.cx, b.cy, b.w, b.h) = (b.cx * k, b.cy * k, b.w * k, b.h * k);
                }
                consider(&found, best);
            }
        };
        opened(None, &mut best);
        // A path that closes a loop encloses the streets inside it, and filling that hole
        // joins every tile in it: holes are then filled only up to a glyph's size, under the
        // side of the tiles the plain masks saw.
        if best.is_none() && !sizes.is_empty() {
            let mid = sizes.len() / 2;
            let size = *sizes.select_nth_unstable_by(mid, f32::total_cmp).1;
            opened(Some((size / k * GLYPH_HOLE) as usize), &mut best);
        }
    }
    if best.is_none() && dimmed {
        for t in DIM_THRESHOLDS {
            consider(&blobs(s, t, None, &mut scratch), &mut best);
        }
    }
    let (mut grid, _) = best?;
    // Back to the screen's pixels.
    for c in &mut grid.centres {
        *c = (c.0 * s.scale, c.1 * s.scale);
    }
    grid.pitch = (grid.pitch.0 * s.scale, grid.pitch.1 * s.scale);
    grid.tile *= s.scale;
    Some(grid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    /// A dark screen with a 4x4 lattice of light tiles (each with a dark glyph-like bar) and,
    /// when `line` is set, a light line drawn through the tiles of rows 1 and 2 and down the
    /// first column, as a traced path leaves it; with `closed`, also down the last column
    /// from row 1 to row 2, so the path closes a loop round the street between those rows.
    fn screen(line: bool, closed: bool) -> (RgbaImage, [(f32, f32); 16]) {
        let mut img = RgbaImage::from_pixel(720, 1280, Rgba([40, 40, 60, 255]));
        let (tile, pitch, x0, y0) = (130u32, 150u32, 135u32, 415u32);
        let mut centres = [(0.0, 0.0); 16];
        for i in 0..16u32 {
            let (cx, cy) = (x0 + pitch * (i % 4), y0 + pitch * (i / 4));
            centres[i as usize] = (cx as f32, cy as f32);
            for y in cy - tile / 2..cy + tile / 2 {
                for x in cx - tile / 2..cx + tile / 2 {
                    let glyph = x.abs_diff(cx) < 12 && y.abs_diff(cy) < 40;
                    let c = if glyph { 30 } else { 225 };
                    img.put_pixel(x, y, Rgba([c, c, c, 255]));
                }
            }
        }
        if line {
            let half = 14;
            let mut light = |x: u32, y: u32| img.put_pixel(x, y, Rgba([250, 250, 250, 255]));
            for row in [1, 2] {
                let cy = y0 + pitch * row;
                for y in cy - half..cy + half {
                    for x in x0..x0 + 3 * pitch {
                        light(x, y);
                    }
                }
            }
            for y in y0..y0 + 3 * pitch {
                for x in x0 - half..x0 + half {
                    light(x, y);
                }
            }
            if closed {
                let x3 = x0 + 3 * pitch;
                for y in y0 + pitch - half..y0 + 2 * pitch + half {
                    for x in x3 - half..x3 + half {
                        light(x, y);
                    }
                }
            }
        }
        (img, centres)
    }

    #[test]
    fn a_screen_of_thousands_of_tile_shaped_specks_is_not_searched_for_a_grid() {
        // A checkerboard of 6x6 squares: every light square is a tile-shaped region.
        let img = RgbaImage::from_fn(40, 6000, |x, y| {
            let light = (x / 6 + y / 6) % 2 == 0;
            let c = if light { 240 } else { 20 };
            Rgba([c, c, c, 255])
        });
        let s = shrink(&img);
        let mut scratch = Scratch::default();
        assert!(blobs(&s, 140, None, &mut scratch).len() > MAX_BLOBS);
        assert!(find(&img).is_none());
        // Past the cap nothing is grouped, not even a lattice that is there: 16 tiles on a
        // 4x4 lattice are a grid alone, and not among more specks than the cap.
        let tile = |cx: f32, cy: f32, side: f32| Blob {
            cx,
            cy,
            w: side,
            h: side,
        };
        let lattice: Vec<Blob> = (0..16)
            .map(|i| {
                tile(
                    40.0 + 30.0 * (i % 4) as f32,
                    40.0 + 30.0 * (i / 4) as f32,
                    25.0,
                )
            })
            .collect();
        let mut best = None;
        consider(&lattice, &mut best);
        assert!(best.is_some(), "the lattice alone is a grid");
        let specks = (0..MAX_BLOBS).map(|k| {
            tile(
                200.0 + (k % 20) as f32 * 9.0,
                200.0 + (k / 20) as f32 * 9.0,
                6.0,
            )
        });
        let crowded: Vec<Blob> = lattice.into_iter().chain(specks).collect();
        let mut best = None;
        consider(&crowded, &mut best);
        assert!(best.is_none(), "{best:?}");
    }

    #[test]
    fn a_traced_line_joining_tiles_does_not_hide_the_grid() {
        for line in [false, true] {
            let (img, want) = screen(line, false);
            let grid = find(&img).unwrap_or_else(|| panic!("no grid (line {line})"));
            for (got, want) in grid.centres.iter().zip(want) {
                let off = ((got.0 - want.0).powi(2) + (got.1 - want.1).powi(2)).sqrt();
                assert!(off < 8.0, "line {line}: {got:?} for {want:?}");
            }
        }
        // The line is what the opened masks are for: without it every tile is seen plainly.
        let (img, _) = screen(true, false);
        let s = shrink(&img);
        let mut scratch = Scratch::default();
        let mut plain = None;
        for t in THRESHOLDS {
            consider(&blobs(&s, t, None, &mut scratch), &mut plain);
        }
        assert!(plain.is_none(), "the plain masks already found {plain:?}");
    }

    #[test]
    fn a_traced_path_closing_a_loop_does_not_hide_the_grid() {
        let (img, want) = screen(true, true);
        let grid = find(&img).expect("no grid");
        for (got, want) in grid.centres.iter().zip(want) {
            let off = ((got.0 - want.0).powi(2) + (got.1 - want.1).powi(2)).sqrt();
            assert!(off < 8.0, "{got:?} for {want:?}");
        }
        // Filling every hole fills the loop, street and all, and no opening cuts that.
        let half = halve(&shrink(&img));
        let r = (half.w as f32 * OPENING).round() as usize;
        let mut scratch = Scratch::default();
        let mut filled = None;
        for t in THRESHOLDS {
            let opening = Opening { r, max_hole: None };
            consider(&blobs(&half, t, Some(opening), &mut scratch), &mut filled);
        }
        assert!(
            filled.is_none(),
            "every hole filled already found {filled:?}"
        );
    }
}
