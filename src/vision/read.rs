//! Reading a board off a screen: for each tile of a grid, the main glyph (not the corner value,
//! not a bonus badge), what letter it is and how sure that is, and the badge's bonus if any.
//!
//! A tile is cropped and resampled to at most `WORK` pixels a side. Its face is the most common
//! lightness, and each row's the face-like lightness of the rows around it; ink is what is
//! darker than the row's face by at least half of the contrast to the darkest ink near the
//! middle (a path line drawn over a tile is lighter than the face, so it is not ink). The
//! main glyph is the largest ink region near the middle, joined by the regions in the middle of
//! the tile or level with it that reach below its top fifth (the "u" of "Qu", pieces of a letter
//! cut by a path line); a corner value, which sits above it, and regions touching the crop's
//! edge are left out.
//!
//! Under a path line (a translucent white veil) ink is found again: by colour where ink and
//! face differ in hue (each pixel unmixed into white, ink and face: `unmix`), else by
//! lightness (`unveil`, `veiled_strokes`); what neither tells clearly is known to be hidden.
//!
//! A badge is a strongly coloured region in a corner of the tile (it may stick out of it); its
//! two letters, lighter than the badge, are read with the same classifier restricted to D or T,
//! then L or W.

use image::RgbaImage;

use super::glyph::{Classifier, Features, Ink, Reference, Verdict};
use super::grid::{Grid, Polarity};
use super::regions::{Region, Touch, label};
use crate::score::Bonus;

/// The largest side a tile is worked at.
const WORK: usize = 112;
/// Share of the tile's side that is cropped.
pub const CROP: f32 = 0.92;
/// Faces darker than this (luma) are not tiles in play (a dimmed overlay, a disabled board).
const MIN_FACE: f32 = 110.0;
/// Glyphs with less contrast than this against their face are not read.
const MIN_CONTRAST: f32 = 45.0;
/// The smallest crop side, in cells: below it no glyph has a shape.
const MIN_CROP: usize = 8;
/// The face's lightness is the histogram's mode smoothed over this many levels each side
/// (antialiasing and JPEG spread a flat face over a few levels).
const FACE_SMOOTH: usize = 4;
/// The middle of a tile, where the darkest ink is looked for, leaves out a fifth of each side
/// (the corner value and the badges lie there).
const MIDDLE_FROM_EDGE: usize = 5;
/// The darkest ink is this percentile (per mille) of the middle's lightness: a thin I in a
/// small size covers 2% of it, and the darkest pixel alone may be noise.
const DARK_PER_MILLE: usize = 15;
/// Pixels within this share of the contrast (and at least `MIN_PALETTE_TOLERANCE` levels)
/// of the face's or the ink's lightness give their colours.
const PALETTE_TOLERANCE: f32 = 0.1;
const MIN_PALETTE_TOLERANCE: f32 = 3.0;
/// A pixel is ink when at least this much of it is the ink's darkness (halfway: the middle of
/// an antialiased edge).
const INK: f32 = 0.5;
/// The main glyph's centre lies within this share of the crop's side from its middle.
const MAIN_NEAR_MIDDLE: f32 = 0.25;
/// Other pieces of the glyph lie within this share of the side from the middle (or level with
/// the main piece).
const PIECE_CENTRAL: f32 = 0.3;
/// A piece right on top of the main one may be this share of the side above it.
const STACKED_GAP: f32 = 0.05;
/// A piece of the glyph is at least 1/50 of the main one (smaller is a speck of noise).
const PIECE_MIN_SHARE: usize = 50;
/// A corner value sits in the top fifth of the main glyph's height, or above: a piece that
/// reaches below it is part of the glyph.
const CORNER_VALUE_TOP: f32 = 0.2;
/// Pieces centred in the crop's outer 8% each side are the neighbouring tiles' or the rim's.
const PIECE_LEFT: f32 = 0.08;
const PIECE_RIGHT: f32 = 0.92;
/// A glyph is at least this share of the crop's side tall (shorter is a speck or a dash).
const MIN_GLYPH_HEIGHT: f32 = 0.15;
/// Ink this wide and tall around other ink in the middle is a frame drawn inside the tile
/// (an inset border), never a letter: letters stand in a tile with a margin, under 70% of
/// its side.
const FRAME_SPAN: f32 = 0.75;

/// Luma (BT.601 weights) of a colour.
fn luma_of(px: [f32; 3]) -> f32 {
    0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2]
}

/// One tile as read.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TileRead {
    /// 0-25 for A-Z, 16 for Qu.
    pub tile: u8,
    /// 0 (a coin toss with `runner_up`) to 1.
    pub confidence: f32,
    pub runner_up: u8,
    pub bonus: Option<Bonus>,
}

/// Why a screen is not read as a board.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NotABoard {
    #[error("no 4x4 grid of tiles on this screen")]
    NoGrid,
    #[error("no tiles where the grid is: dark and without letters (lightness {0:.0} of 255)")]
    Dark(f32),
}

/// Tiles with a glyph a dark grid must show to be a board under an overlay.
const MIN_DIMMED_GLYPHS: usize = 10;

/// A resampled square crop: luma and colour.
struct Crop {
    n: usize,
    luma: Vec<f32>,
    rgb: Vec<[f32; 3]>,
}

/// Box-averages the square of side `side` centred on `c` into at most `WORK` pixels a side.
/// Each output pixel is the mean of the screen pixels whose box it covers (at least one), so
/// each screen pixel is read once: per output row, each screen row's pixels are summed into
/// their output column.
fn crop(img: &RgbaImage, c: (f32, f32), side: f32, work: usize) -> Crop {
    let n = (side.round() as usize).clamp(MIN_CROP, work);
    let (iw, ih) = (img.width() as i64, img.height() as i64);
    let step = side / n as f32;
    // The screen span [a, b) of output cell k along an axis starting at `origin`, clamped.
    let spans = |origin: f32, limit: i64| -> Vec<(usize, usize)> {
        (0..n)
            .map(|k| {
                let a = (origin + k as f32 * step).floor() as i64;
                let b = ((origin + (k + 1) as f32 * step).floor() as i64).max(a + 1);
                (a.clamp(0, limit) as usize, b.clamp(0, limit) as usize)
            })
            .collect()
    };
    let xs = spans(c.0 - side / 2.0, iw);
    let ys = spans(c.1 - side / 2.0, ih);
    let raw = img.as_raw();
    let stride = iw as usize * 4;
    let mut luma = vec![0.0; n * n];
    let mut rgb = vec![[0.0; 3]; n * n];
    let mut sums = vec![[0u32; 3]; n];
    for (j, &(ya, yb)) in ys.iter().enumerate() {
        sums.fill([0; 3]);
        for y in ya..yb {
            let row = &raw[y * stride..(y + 1) * stride];
            for (sum, &(xa, xb)) in sums.iter_mut().zip(&xs) {
                for p in row[xa * 4..xb * 4].chunks_exact(4) {
                    sum[0] += u32::from(p[0]);
                    sum[1] += u32::from(p[1]);
                    sum[2] += u32::from(p[2]);
                }
            }
        }
        for (i, (sum, &(xa, xb))) in sums.iter().zip(&xs).enumerate() {
            let k = ((xb - xa) * (yb - ya)) as f32;
            let px = if k == 0.0 {
                [0.0; 3]
            } else {
                sum.map(|s| s as f32 / k)
            };
            rgb[j * n + i] = px;
            luma[j * n + i] = luma_of(px);
        }
    }
    Crop { n, luma, rgb }
}

/// The most common lightness (histogram mode, smoothed over 2 x `FACE_SMOOTH` + 1 levels).
fn face_luma(crop: &Crop) -> f32 {
    let mut hist = [0u32; 256];
    for &l in &crop.luma {
        hist[l.round().clamp(0.0, 255.0) as usize] += 1;
    }
    let smooth = |i: usize| -> u32 {
        hist[i.saturating_sub(FACE_SMOOTH)..=(i + FACE_SMOOTH).min(255)]
            .iter()
            .sum()
    };
    (0..256).max_by_key(|&i| smooth(i)).unwrap_or(0) as f32
}

/// The main glyph of a tile as an ink map, and the tile's face lightness.
pub struct TileGlyph {
    pub face: f32,
    pub ink: Option<Ink>,
    /// Where a light veil (a traced path's line) lies over the glyph, when one does (n x n,
    /// as the ink): part of the glyph may be hidden there.
    pub hidden: Option<Vec<bool>>,
}

impl TileGlyph {
    /// A tile with no glyph found.
    fn blank(face: f32) -> TileGlyph {
        TileGlyph {
            face,
            ink: None,
            hidden: None,
        }
    }
}

/// Isolates the main glyph of the tile centred on `c`.
pub fn tile_glyph(img: &RgbaImage, c: (f32, f32), tile: f32) -> TileGlyph {
    let crop = crop(img, c, tile * CROP, WORK);
    let n = crop.n;
    let face = face_luma(&crop);
    let mut dark = darkest_in_middle(&crop);
    // A glyph wholly under a nearly opaque line is lighter than the face there: its darkness
    // is what the veiled ink unblends to.
    if face - dark < MIN_CONTRAST {
        match veiled_ink_darkness(&crop, face) {
            Some(d) if face - d >= MIN_CONTRAST => dark = d,
            _ => return TileGlyph::blank(face),
        }
    }
    let contrast = face - dark;
    let amount = |l: f32| ((face - l) / contrast).clamp(0.0, 1.0);
    // The face's and the ink's colours (the mean colours near their lightness), found when
    // first needed: most tiles have neither a veil nor a badge touching the glyph.
    let tol = (contrast * PALETTE_TOLERANCE).max(MIN_PALETTE_TOLERANCE);
    let found_palette = std::cell::OnceCell::new();
    let palette = || {
        *found_palette.get_or_init(|| {
            mean_colour_near(&crop, face, tol).zip(mean_colour_near(&crop, dark, tol))
        })
    };
    // Ink amount per pixel, seen through a light veil where there is one.
    let local = local_faces(&crop, face, contrast);
    let mut ink_of: Vec<f32> = crop
        .luma
        .iter()
        .enumerate()
        .map(|(p, &l)| {
            let f = local[p / n];
            ((f - l) / (f - dark).max(1.0)).clamp(0.0, 1.0)
        })
        .collect();
    // A traced path's line runs from tile to tile: a veil over the face that stays inside the
    // tile is a highlight of the face (a radial sheen's light middle), and the ink is as first
    // seen. (What `veiled_strokes` finds lies on the strokes alone: no edge to reach.)
    let seen = ink_of.clone();
    let crossing = |v: Option<Veil>, ink_of: &mut [f32]| match v {
        Some(v) if !reaches_edge(&v.band, n) => {
            ink_of.copy_from_slice(&seen);
            None
        }
        v => v,
    };
    let mut veil = palette().and_then(|p| unmix(&crop, p, &mut ink_of));
    veil = crossing(veil, &mut ink_of);
    if veil.is_none() {
        veil = unveil(&crop, (face, dark), &palette, &amount, &mut ink_of);
        veil = crossing(veil, &mut ink_of);
    }
    let veil = veil.or_else(|| veiled_strokes(&crop, face, &mut ink_of));
    let (mut labels, mut stack) = (Vec::new(), Vec::new());
    let mut found = ink_regions(&ink_of, n, &mut labels, &mut stack);
    let nf = n as f32;
    let near_middle = |r: &Region| {
        (r.cx() - nf / 2.0).abs() < nf * MAIN_NEAR_MIDDLE
            && (r.cy() - nf / 2.0).abs() < nf * MAIN_NEAR_MIDDLE
    };
    // The glyph reaching the crop's edge is a glyph joined to something else: a bonus badge
    // or a highlight in another colour. Only ink of the glyph's own colour is kept then. A
    // frame drawn inside the tile is no glyph, though it may reach the edge through the
    // background beyond the tile's rim (and be as dark as the letter, in another colour).
    let mut frames = frames_of(&found, nf, near_middle);
    if found
        .iter()
        .filter(|r| near_middle(r) && !frames.contains(&r.id))
        .max_by_key(|r| r.count)
        .is_some_and(|r| r.edge)
        && let Some(palette) = palette()
    {
        own_colour_only(&crop, palette, &mut ink_of);
        found = ink_regions(&ink_of, n, &mut labels, &mut stack);
        frames = frames_of(&found, nf, near_middle);
    }
    let main_of = |found: &[Region], frames: &[u32]| {
        found
            .iter()
            .filter(|r| !r.edge && near_middle(r) && !frames.contains(&r.id))
            .max_by_key(|r| r.count)
            .copied()
    };
    let mut main = main_of(&found, &frames);
    // A frame the glyph touches (a wide "QU" inside an outlined tile's frame) makes one
    // region of both, taken for the glyph (or, reaching the crop's edge, for none): its lines
    // are taken off and the glyph looked for again.
    let framed = match main {
        Some(m) => Some(m).filter(|m| spans(m, nf)),
        None => found.iter().find(|f| spans(f, nf)).copied(),
    };
    if let Some(frame) = framed
        && unframe(&mut ink_of, n, &labels, &frame)
    {
        found = ink_regions(&ink_of, n, &mut labels, &mut stack);
        frames = frames_of(&found, nf, near_middle);
        main = main_of(&found, &frames);
    }
    let Some(main) = main else {
        return TileGlyph::blank(face);
    };
    let cut = veil_cuts(found.len(), &labels, veil.as_ref());
    let mut keep = glyph_pieces(&found, &main, &cut, nf);
    keep.retain(|id| !frames.contains(id));
    // Too short for a letter (a speck, a dash): no glyph. The kept pieces count together, as
    // a veil may cut the main one short.
    if (height(&found, &keep) as f32) < nf * MIN_GLYPH_HEIGHT {
        return TileGlyph::blank(face);
    }
    // The glyph is veiled when ink was found under the veil or the veil touches what is kept.
    let hidden = veil
        .filter(|v| v.hid_ink || keep.iter().any(|&id| cut[id as usize]))
        .map(|v| v.hidden.unwrap_or(v.band));
    let mut ink = Ink::new(n, n);
    for (i, &l) in labels.iter().enumerate() {
        if l != 0 && keep.contains(&l) {
            ink.v[i] = ink_of[i];
        }
    }
    TileGlyph {
        face,
        ink: Some(ink),
        hidden,
    }
}

/// Rows of the crop this far each way (a share of its side) give a row's own face.
const LOCAL_FACE_REACH: usize = 8;

/// Each row's own face lightness: the median of the face-like pixels (lighter than halfway
/// from `face` to the ink) of the rows around it; `face` where there are too few. A face
/// shaded from top to bottom, or lighter on its top half, has ink judged against the face
/// beside it, not the whole tile's.
fn local_faces(crop: &Crop, face: f32, contrast: f32) -> Vec<f32> {
    let n = crop.n;
    let reach = (n / LOCAL_FACE_REACH).max(1);
    let cut = face - contrast / 2.0;
    // Per row, a histogram of its face-like pixels (whole levels); the window's is their sum,
    // slid down a row at a time.
    let rows: Vec<[u16; 256]> = (0..n)
        .map(|y| {
            let mut h = [0u16; 256];
            for &l in crop.luma[y * n..(y + 1) * n].iter().filter(|&&l| l > cut) {
                h[l.round().clamp(0.0, 255.0) as usize] += 1;
            }
            h
        })
        .collect();
    let mut window = [0u32; 256];
    // A row's histogram into the window (`into`) or out of it.
    let shift = |window: &mut [u32; 256], h: &[u16; 256], into: bool| {
        for (w, &v) in window.iter_mut().zip(h) {
            *w = if into {
                *w + u32::from(v)
            } else {
                *w - u32::from(v)
            };
        }
    };
    for h in rows.iter().take(reach + 1) {
        shift(&mut window, h, true);
    }
    let mut out = vec![face; n];
    for (y, o) in out.iter_mut().enumerate() {
        if y > 0 {
            if let Some(h) = rows.get(y + reach) {
                shift(&mut window, h, true);
            }
            if let Some(k) = y.checked_sub(reach + 1) {
                shift(&mut window, &rows[k], false);
            }
        }
        let count = window.iter().map(|&c| c as usize).sum::<usize>();
        if count * 2 >= n {
            // The median: the level where the cumulative count passes half.
            let half = count / 2;
            let mut seen = 0usize;
            for (level, &c) in window.iter().enumerate() {
                seen += c as usize;
                if seen > half {
                    *o = level as f32;
                    break;
                }
            }
        }
    }
    out
}

/// Whether `r` spans `FRAME_SPAN` of the crop's side both ways, as a frame does.
fn spans(r: &Region, nf: f32) -> bool {
    (r.x1 - r.x0) as f32 >= nf * FRAME_SPAN && (r.y1 - r.y0) as f32 >= nf * FRAME_SPAN
}

/// Takes the lines of `frame` (a region spanning the crop both ways) off `ink_of`: along each
/// side of its box, the band as thick as the median run of its ink inward from that side
/// (a frame's line is as thick all along; a glyph touching it is a few places), and a pixel
/// more for the antialiased rim. False when the runs are too thick for lines (a filled
/// square).
fn unframe(ink_of: &mut [f32], n: usize, labels: &[u32], frame: &Region) -> bool {
    let on = |x: usize, y: usize| labels[y * n + x] == frame.id;
    let run = |cells: &mut dyn Iterator<Item = (usize, usize)>| {
        cells.take_while(|&(x, y)| on(x, y)).count()
    };
    let (x0, y0, x1, y1) = (frame.x0, frame.y0, frame.x1, frame.y1);
    let median = |mut v: Vec<usize>| {
        v.sort_unstable();
        v[v.len() / 2]
    };
    let top = median(
        (x0..x1)
            .map(|x| run(&mut (y0..y1).map(|y| (x, y))))
            .collect(),
    );
    let bottom = median(
        (x0..x1)
            .map(|x| run(&mut (y0..y1).rev().map(|y| (x, y))))
            .collect(),
    );
    let left = median(
        (y0..y1)
            .map(|y| run(&mut (x0..x1).map(|x| (x, y))))
            .collect(),
    );
    let right = median(
        (y0..y1)
            .map(|y| run(&mut (x0..x1).rev().map(|x| (x, y))))
            .collect(),
    );
    let thickest = top.max(bottom).max(left).max(right);
    if [top, bottom, left, right].contains(&0) || thickest * 5 > (x1 - x0).min(y1 - y0) {
        return false;
    }
    for y in y0..y1 {
        for x in x0..x1 {
            let band = y < y0 + top + 1
                || y + bottom + 1 >= y1
                || x < x0 + left + 1
                || x + right + 1 >= x1;
            if band && on(x, y) {
                ink_of[y * n + x] = 0.0;
            }
        }
    }
    true
}

/// The regions (by id) that are frames: at least `FRAME_SPAN` of the crop's side both ways,
/// with other ink in the middle inside their box (a letter O that large has nothing inside).
fn frames_of(found: &[Region], nf: f32, near_middle: impl Fn(&Region) -> bool) -> Vec<u32> {
    found
        .iter()
        .filter(|f| {
            spans(f, nf)
                && found.iter().any(|r| {
                    r.id != f.id
                        && near_middle(r)
                        && r.x0 > f.x0
                        && r.x1 < f.x1
                        && r.y0 > f.y0
                        && r.y1 < f.y1
                        && (r.y1 - r.y0) as f32 >= nf * MIN_GLYPH_HEIGHT
                })
        })
        .map(|f| f.id)
        .collect()
}

/// The ink regions of an n x n ink map (8-connected), labelled into `labels`.
fn ink_regions(
    ink_of: &[f32],
    n: usize,
    labels: &mut Vec<u32>,
    stack: &mut Vec<usize>,
) -> Vec<Region> {
    label(|p| ink_of[p] >= INK, n, n, Touch::Eight, labels, stack)
}

/// Which regions (by id, with room for id 0) the veil touches: pieces of a glyph it cuts,
/// wherever they lie.
fn veil_cuts(regions: usize, labels: &[u32], veil: Option<&Veil>) -> Vec<bool> {
    let mut cut = vec![false; regions + 1];
    if let Some(v) = veil {
        for (&l, &b) in labels.iter().zip(&v.band) {
            if b {
                cut[l as usize] = true;
            }
        }
    }
    cut
}

/// The height, in cells, of the regions `keep` together.
fn height(found: &[Region], keep: &[u32]) -> usize {
    let (top, bottom) = found
        .iter()
        .filter(|r| keep.contains(&r.id))
        .fold((usize::MAX, 0), |(t, b), r| (t.min(r.y0), b.max(r.y1)));
    bottom - top
}

/// The pieces of the glyph among the ink regions `found`: the `main` one, and regions in the
/// middle of the tile that reach below the top fifth of the main region (a corner value sits
/// above it), or level with it (the u of Qu), or that the veil cuts (`cut`, by region id).
fn glyph_pieces(found: &[Region], main: &Region, cut: &[bool], nf: f32) -> Vec<u32> {
    let main_h = (main.y1 - main.y0) as f32;
    found
        .iter()
        .filter(|r| {
            let central = (r.cx() - nf / 2.0).abs() < nf * PIECE_CENTRAL
                && (r.cy() - nf / 2.0).abs() < nf * PIECE_CENTRAL;
            let level = r.cy() >= main.y0 as f32 && r.cy() <= main.y1 as f32;
            // Right on top of the main region and within its width: the glyph's upper part,
            // cut off by a line (a corner value lies beside the glyph, not over it).
            let stacked = r.x0 >= main.x0
                && r.x1 <= main.x1
                && r.y1 as f32 + nf * STACKED_GAP >= main.y0 as f32;
            r.id == main.id
                || (!r.edge
                    && r.count * PIECE_MIN_SHARE >= main.count
                    && (r.y1 as f32 > main.y0 as f32 + main_h * CORNER_VALUE_TOP
                        || cut[r.id as usize]
                        || stacked)
                    && (central || level)
                    && r.cx() > nf * PIECE_LEFT
                    && r.cx() < nf * PIECE_RIGHT)
        })
        .map(|r| r.id)
        .collect()
}

/// The darkest ink near the middle of the crop: the `DARK_PER_MILLE` percentile of its
/// middle's lightness.
fn darkest_in_middle(crop: &Crop) -> f32 {
    let n = crop.n;
    let mut middle: Vec<f32> = Vec::new();
    let (m0, m1) = (n / MIDDLE_FROM_EDGE, n - n / MIDDLE_FROM_EDGE);
    for y in m0..m1 {
        for x in m0..m1 {
            middle.push(crop.luma[y * n + x]);
        }
    }
    let k = middle.len() * DARK_PER_MILLE / 1000;
    *middle.select_nth_unstable_by(k, f32::total_cmp).1
}

/// Veiled ink found to estimate a glyph's darkness covers at least 1/200 of the crop (a piece
/// of stroke; the veil's antialiased edges are opened away).
const MIN_VEILED_INK: usize = 200;

/// The darkness of ink wholly under a light veil, if the crop has a veil and ink under it: the
/// median, unblended, of the pixels lighter than the face and darker than the veil (opened:
/// thicker than the veil's antialiased edges, which pass through those lightnesses too). Measured on the
/// held-back corpus: a nearly opaque line (opacity 0.8) over a glyph on a textured face left
/// the darkest ink in sight (the texture's) 15-19 levels from the face, and the tile was read
/// blank.
fn veiled_ink_darkness(crop: &Crop, face: f32) -> Option<f32> {
    let n = crop.n;
    let (veil, alpha) = veil_lightness(crop, face)?;
    let lifted: Vec<bool> = crop
        .luma
        .iter()
        .map(|&l| l > face + VEILED_INK_LIFT && l < veil - VEIL_TOLERANCE)
        .collect();
    let plateau = open_twice(&lifted, n);
    let mut unblended: Vec<f32> = crop
        .luma
        .iter()
        .zip(&plateau)
        .filter(|&(_, &p)| p)
        .map(|(&l, _)| (l - alpha * 255.0) / (1.0 - alpha))
        .collect();
    if unblended.len() * MIN_VEILED_INK < n * n {
        return None;
    }
    let k = unblended.len() / 2;
    Some(*unblended.select_nth_unstable_by(k, f32::total_cmp).1)
}

/// The mean colour of the crop's pixels within `tol` of lightness `level`, if any.
fn mean_colour_near(crop: &Crop, level: f32, tol: f32) -> Option<[f32; 3]> {
    let (mut sum, mut k) = ([0f32; 3], 0);
    for (px, &l) in crop.rgb.iter().zip(&crop.luma) {
        if (l - level).abs() <= tol {
            (0..3).for_each(|i| sum[i] += px[i]);
            k += 1;
        }
    }
    (k > 0).then(|| sum.map(|s| s / k as f32))
}

/// Euclidean distance of two colours.
pub(super) fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Clears the ink of colours off the line from the face's colour `f` to the ink's `i` (the
/// glyph's and its antialiased rim's), such as a coloured badge's.
fn own_colour_only(crop: &Crop, (f, i): ([f32; 3], [f32; 3]), ink_of: &mut [f32]) {
    let axis = [i[0] - f[0], i[1] - f[1], i[2] - f[2]];
    let len2: f32 = axis.iter().map(|a| a * a).sum();
    if len2 < 1.0 {
        return;
    }
    let limit = OFF_COLOUR * len2.sqrt();
    for (px, a) in crop.rgb.iter().zip(ink_of.iter_mut()) {
        let d = [px[0] - f[0], px[1] - f[1], px[2] - f[2]];
        let t = (d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2]) / len2;
        let off: f32 = (0..3)
            .map(|k| (d[k] - t * axis[k]).powi(2))
            .sum::<f32>()
            .sqrt();
        if off > limit {
            *a = 0.0;
        }
    }
}

/// `set` and every pixel that lies between two set pixels at most `gap` steps apart along a
/// row, a column or a diagonal.
fn sandwiched(set: &[bool], n: usize, gap: u32) -> Vec<bool> {
    let mut out = set.to_vec();
    let far = u32::MAX / 4;
    // Steps from the nearest set pixel before (`back`) and after (`ahead`) along a direction.
    let (mut back, mut ahead) = (vec![far; n * n], vec![far; n * n]);
    let side = 0..n as i32;
    for (dx, dy) in [(1i32, 0i32), (0, 1), (1, 1), (1, -1)] {
        // The pixel `k` steps along the direction from (x, y), if on the crop.
        let along = |x: usize, y: usize, k: i32| {
            let (px, py) = (x as i32 + k * dx, y as i32 + k * dy);
            (side.contains(&px) && side.contains(&py)).then(|| py as usize * n + px as usize)
        };
        // Row order such that a pixel's predecessor is done before it (for dy = -1 it lies in
        // the row below); successors in the reverse order.
        let row = |i: usize| if dy < 0 { n - 1 - i } else { i };
        for i in 0..n {
            let y = row(i);
            for x in 0..n {
                let p = y * n + x;
                back[p] = if set[p] {
                    0
                } else {
                    along(x, y, -1).map_or(far, |q| back[q] + 1)
                };
            }
        }
        for i in (0..n).rev() {
            let y = row(i);
            for x in (0..n).rev() {
                let p = y * n + x;
                ahead[p] = if set[p] {
                    0
                } else {
                    along(x, y, 1).map_or(far, |q| ahead[q] + 1)
                };
            }
        }
        for p in 0..n * n {
            if back[p] + ahead[p] <= gap {
                out[p] = true;
            }
        }
    }
    out
}

/// One step of erosion (`erode`: a pixel stays when it and its four neighbours are set) or
/// dilation (a pixel is set when it or a neighbour is) of an n x n mask. Outside the mask
/// counts as neither: erosion ignores it, dilation gets nothing from it.
fn morph(src: &[bool], n: usize, erode: bool) -> Vec<bool> {
    let mut out = vec![false; n * n];
    for y in 0..n {
        for x in 0..n {
            let p = y * n + x;
            let left = if x > 0 { src[p - 1] } else { erode };
            let right = if x + 1 < n { src[p + 1] } else { erode };
            let up = if y > 0 { src[p - n] } else { erode };
            let down = if y + 1 < n { src[p + n] } else { erode };
            out[p] = if erode {
                src[p] && left && right && up && down
            } else {
                src[p] || left || right || up || down
            };
        }
    }
    out
}

/// `morph` applied `times` times.
fn morphed(mask: &[bool], n: usize, erode: bool, times: usize) -> Vec<bool> {
    let mut out = mask.to_vec();
    for _ in 0..times {
        out = morph(&out, n, erode);
    }
    out
}

/// `mask` eroded twice then dilated twice: what is thinner than about five pixels goes.
fn open_twice(mask: &[bool], n: usize) -> Vec<bool> {
    morphed(&morphed(mask, n, true, 2), n, false, 2)
}

/// Out of the band, a pixel this much lighter than the face is ink under the veil (where the
/// veil is nearly opaque, veiled ink is lighter than the face). Fainter, from
/// `VEILED_FACE_LIFT`, it may as well be the face: JPEG ringing, a shaded face's lighter
/// middle, the veil's soft edge, which unblending turned into blobs and dashes of ink around
/// letters under a line; there its colour decides. Measured (docs/vision.md): taking every pixel from
/// `VEILED_FACE_LIFT` for ink, held-back seeds 1-3 read 250/260/254 boards exactly; none
/// under 12, 253/264/261 but classic seeds 1 and 5 each a board wrong yet sure (faint veiled
/// strokes lost on light tiles); by colour, 253/264/261 and none.
const VEILED_INK_LIFT: f32 = 12.0;

/// Pixels this much lighter than the face (at most `CLEAR_CAP`) may be a veil's.
const LIGHTER_THAN_FACE: f32 = 10.0;
const CLEAR_CAP: f32 = 250.0;
/// A veil covers at least 1/30 of the crop (less is a highlight or a stray line's end).
const MIN_VEIL_SHARE: usize = 30;
/// A veil lightens the face by at least this much, and by an opacity in `VEIL_ALPHA` (a
/// fainter one hides nothing; an opaque one leaves nothing to unblend).
const MIN_VEIL_LIFT: f32 = 12.0;
const VEIL_ALPHA: std::ops::Range<f32> = 0.2..0.95;
/// Veiled face is lighter than the face by this much, and within `VEIL_TOLERANCE` of the
/// veil's lightness.
const VEILED_FACE_LIFT: f32 = 6.0;
const VEIL_TOLERANCE: f32 = 12.0;
/// A stretch of veiled face counts when it covers at least 1/300 of the crop: stray pixels of
/// that lightness (texture, noise) would sandwich wedges of face between them and the veil.
const MIN_STRETCH: usize = 300;
/// The widest stroke a veil crosses, as a share of the crop's side: veiled face this far apart
/// along a line sandwiches what lies between.
const STROKE_GAP: f32 = 0.3;
/// Colours this far apart (Euclidean, RGB) can be told apart under a veil.
const DISTINCT_COLOUR: f32 = 30.0;
/// Pixels this close to the veiled ink's colour form its plateau.
const PLATEAU_TOLERANCE: f32 = 20.0;
/// The plateau counts within 1/10 of the crop's side of veiled face.
const PLATEAU_REACH: usize = 10;
/// Pixels this close to the face's colour inside the band are bare face.
const BARE_FACE_TOLERANCE: f32 = 12.0;
/// Ink found under a veil is at least 1/2000 of the crop: fewer pixels are the veil's edge.
const MIN_HIDDEN_INK: usize = 2000;
/// The band where a veil lies is grown by this many pixels (its antialiased edge).
const BAND_GROWTH: usize = 2;

/// A veil's band comes this near (a share of the crop's side) the crop's edge when it is a
/// line crossing the tile (a frame drawn inside the tile may keep it from the very edge).
const VEIL_EDGE: f32 = 0.15;

/// Whether `band` (an n x n mask) comes within `VEIL_EDGE` of the crop's edge.
fn reaches_edge(band: &[bool], n: usize) -> bool {
    let m = ((n as f32 * VEIL_EDGE).ceil() as usize).max(1);
    band.iter().enumerate().any(|(i, &b)| {
        let (x, y) = (i % n, i / n);
        b && (x < m || y < m || x + m >= n || y + m >= n)
    })
}

/// A veil found over a tile.
struct Veil {
    /// Where it lies, grown by two pixels.
    band: Vec<bool>,
    /// Where the ink under it is in doubt, when that is less than the band (`None`: all of
    /// it).
    hidden: Option<Vec<bool>>,
    /// Ink was found under it.
    hid_ink: bool,
}

/// Where a light translucent veil (the white line a game draws along a traced path) lies over
/// the tile, the ink under it. The veil's lightness is the upper quartile of what is lighter
/// than the face, and its opacity how much it lightens the face (the veil taken to be white).
/// It lies on the veiled face and on what that face sandwiches (a stroke it crosses), and on
/// the plateau of veiled ink next to it (a stroke it ends on); there pixels are unblended.
/// `palette` gives the face's and the ink's colours, when known.
/// Thin slivers of unblended ink (the veil's antialiased edges) are opened away.
/// `face` and `dark` are the face's and the darkest ink's lightness. A veil through which the
/// darkest ink still reads as ink hides no stroke, and is no veil over the glyph (see
/// `sees_through`).
fn unveil(
    crop: &Crop,
    (face, dark): (f32, f32),
    palette: &dyn Fn() -> Option<([f32; 3], [f32; 3])>,
    amount: &dyn Fn(f32) -> f32,
    ink_of: &mut [f32],
) -> Option<Veil> {
    let n = crop.n;
    let (veil, alpha) = veil_lightness(crop, face)?;
    if sees_through(dark, alpha, amount) {
        return None;
    }
    let veiled_face = veiled_face(crop, face, veil);
    if !crisp(crop, &veiled_face, veil - face, amount) {
        return None;
    }
    // Where the veil lies: the veiled face, and what the veiled face sandwiches along a line
    // (a stroke the veil crosses: veiled face on both sides, no more than a stroke's width
    // apart along the veil, in one of the four directions).
    let mut band = sandwiched(&veiled_face, n, (n as f32 * STROKE_GAP) as u32);
    // And veiled ink that nothing sandwiches (where the line ends on a stroke): next to the
    // veiled face, a plateau of the colour the veil gives the darkest ink, thicker than a
    // glyph's antialiased rim (when that colour is unlike both the face's and the veil's: in
    // colour, as blue ink under a white veil can be as light as a green face).
    let veiled = |c: [f32; 3]| c.map(|v| v * (1.0 - alpha) + 255.0 * alpha);
    // (face, veiled ink) colours when the veiled ink can be told from the face.
    let unlike_face = palette()
        .map(|(f, i)| (f, veiled(i)))
        .filter(|&(f, vi)| distance(vi, f) > DISTINCT_COLOUR);
    if let Some((f, veiled_ink)) = unlike_face
        && distance(veiled_ink, veiled(f)) > DISTINCT_COLOUR
    {
        let plateau = plateau_near(crop, &veiled_face, veiled_ink);
        for (b, &p) in band.iter_mut().zip(&plateau) {
            *b |= p;
        }
    }
    let unblended = |l: f32| amount((l - alpha * 255.0) / (1.0 - alpha));
    // In the band, a pixel of the face's own colour is bare face (a concave corner of the
    // line sandwiches some), unless the veil makes ink look like the face.
    let bare =
        |c: [f32; 3]| unlike_face.is_some_and(|(f, _)| distance(c, f) <= BARE_FACE_TOLERANCE);
    // Out of the band, what is lighter than the face is veiled ink when clearly lighter; when
    // faintly (a nearly opaque veil over light tiles), only when its colour is the veiled ink's
    // rather than the face's own lightened (a shaded face's lighter middle, the veil's soft
    // edge, JPEG ringing).
    let lifted_ink = |l: f32, c: [f32; 3]| {
        if l > face + VEILED_INK_LIFT {
            return true;
        }
        if l <= face + VEILED_FACE_LIFT {
            return false;
        }
        match unlike_face {
            Some((f, veiled_ink)) => {
                let t = ((l - face) / (255.0 - face).max(1.0)).clamp(0.0, 1.0);
                let lightened = f.map(|v| v + (255.0 - v) * t);
                distance(c, veiled_ink) < distance(c, lightened)
            }
            // Faint and of no telling colour: taken for the face (the measured corpora
            // never met the case).
            None => false,
        }
    };
    let under: Vec<bool> = crop
        .luma
        .iter()
        .zip(&crop.rgb)
        .zip(&band)
        .map(|((&l, &c), &b)| ((b && !bare(c)) || lifted_ink(l, c)) && unblended(l) >= INK)
        .collect();
    let opened = open_twice(&under, n);
    // Ink found under the veil, a few pixels at least (else the "veil" may be a light texture
    // or bevel, or a line over bare face).
    let mut found = 0;
    for (p, &o) in opened.iter().enumerate() {
        if o && under[p] {
            let a = unblended(crop.luma[p]);
            if ink_of[p] < INK && a >= INK {
                found += 1;
            }
            ink_of[p] = ink_of[p].max(a);
        }
    }
    Some(Veil {
        band: morphed(&band, n, false, BAND_GROWTH),
        hidden: None,
        hid_ink: found * MIN_HIDDEN_INK >= n * n,
    })
}

/// Ink and face can be unmixed under a white veil when their colours lie in directions from
/// white at least this far apart (the square of the sine of the angle between them: 0.1 is
/// about 18 degrees; grey ink on a grey face is 0)...
const UNMIX_MIN_SINE2: f32 = 0.1;
/// ...and the face stands this far off the line from white through the ink (Euclidean, RGB):
/// a nearly white face has no colour to tell.
const UNMIX_MIN_OFF: f32 = 25.0;
/// A pixel is under the veil when the fit takes it this much of the way to white...
const UNMIX_VEILED: f32 = 0.15;
/// ...keeping this much of its own colour (a nearly opaque veil leaves too little to tell)...
const UNMIX_KEPT: f32 = 0.08;
/// ...and white, the ink and the face explain its colour to within this (Euclidean, RGB): a
/// badge's colour, the gap's, are not a mix of them.
const UNMIX_RESIDUAL: f32 = 20.0;
/// Under the veil a pixel is told clearly when the ink takes no more than this share of what
/// is not white, or no less than all but this share.
const UNMIX_CLEAR: f32 = 0.1;
/// A stroke under the veil is solid where the ink takes this share of what is not white.
const UNMIX_SOLID: f32 = 0.85;

/// Ink under a white veil told by colour: every pixel is taken as a mix of white (the veil),
/// the ink's colour and the face's, fitted by least squares, and where the veil takes a share
/// of it, its ink amount is the ink's share of what is not white. A veil over a face lifts it
/// towards white along the face's direction, over ink along the ink's; when these differ
/// (blue ink on a cream face) no lightness threshold is needed, so a wedge of bare face
/// between two lines stays face, and a stroke the veil crosses stays whole. `None` when the
/// colours cannot be told apart or no ink is found under a veil: the lightness-based
/// unveiling is left to judge then.
fn unmix(crop: &Crop, (f, i): ([f32; 3], [f32; 3]), ink_of: &mut [f32]) -> Option<Veil> {
    let n = crop.n;
    let a = i.map(|v| v - 255.0);
    let b = f.map(|v| v - 255.0);
    let dot = |x: [f32; 3], y: [f32; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let (aa, ab, bb) = (dot(a, a), dot(a, b), dot(b, b));
    let det = aa * bb - ab * ab;
    if aa < 1.0 || bb < 1.0 || det < UNMIX_MIN_SINE2 * aa * bb || det / aa < UNMIX_MIN_OFF.powi(2) {
        return None;
    }
    let mut band = vec![false; n * n];
    let mut under = vec![0.0f32; n * n];
    for (p, c) in crop.rgb.iter().enumerate() {
        let d = c.map(|v| v - 255.0);
        let (ad, bd) = (dot(a, d), dot(b, d));
        let u = (bb * ad - ab * bd) / det;
        let v = (aa * bd - ab * ad) / det;
        let kept = u + v;
        let fit = [0, 1, 2].map(|k| d[k] - u * a[k] - v * b[k]);
        if 1.0 - kept < UNMIX_VEILED || kept < UNMIX_KEPT || dot(fit, fit).sqrt() > UNMIX_RESIDUAL {
            continue;
        }
        band[p] = true;
        under[p] = (u / kept).clamp(0.0, 1.0);
    }
    // A veil is a broad stretch: JPEG's halo round a glyph, thin, goes.
    let band = sizeable_stretches(&morphed(&morphed(&band, n, true, 1), n, false, 1), n);
    if band.iter().filter(|&&b| b).count() * MIN_VEIL_SHARE < n * n {
        return None;
    }
    // Solid strokes under it (not a glyph's rim under a lighter part of the face, a sheen,
    // which is part ink, part lightened face).
    let solid = (0..n * n)
        .filter(|&p| band[p] && under[p] >= UNMIX_SOLID && ink_of[p] < INK)
        .count();
    if solid * MIN_HIDDEN_INK < n * n {
        return None;
    }
    for ((a, &t), &b) in ink_of.iter_mut().zip(&under).zip(&band) {
        if b {
            *a = a.max(t);
        }
    }
    // In doubt: what lies in the line (the band with its holes closed) and was not told
    // clearly as ink or as face.
    let line = morphed(&morphed(&band, n, false, 2), n, true, 2);
    let doubt: Vec<bool> = (0..n * n)
        .map(|p| {
            let clear = under[p] <= UNMIX_CLEAR || under[p] >= 1.0 - UNMIX_CLEAR;
            line[p] && !(band[p] && clear)
        })
        .collect();
    Some(Veil {
        band: morphed(&band, n, false, BAND_GROWTH),
        hidden: Some(morphed(&doubt, n, false, BAND_GROWTH)),
        hid_ink: true,
    })
}

/// Ink that a veil lightens to between the face and the ink: at least this much of the ink's
/// darkness (and less than `INK`).
const HALF_INK: f32 = 0.2;
/// Such a plateau counts when it covers at least 1/500 of the crop.
const MIN_VEILED_STROKES: usize = 500;

/// Strokes under a veil too faint to be found as one (a nearly white line over a nearly white
/// face lightens the face by no more than JPEG or shading would): thick plateaus of lightness
/// between the face's and the ink's that touch both ink and what is lighter than the face (the
/// veil), when that covers a veil's share of the crop. A glyph's antialiased rim is thinner
/// and opened away. They are taken for ink, and for where a veil lies. Measured on the held-back
/// corpus (seed 3, sample 394): a B under a line of lightness 245 on a face of 233, its veiled
/// strokes 172 against ink at 73, was read as the L left in sight, at 89%.
fn veiled_strokes(crop: &Crop, face: f32, ink_of: &mut [f32]) -> Option<Veil> {
    let n = crop.n;
    // The veil itself: lighter than the face, over a fair share of the crop.
    let light: Vec<bool> = crop
        .luma
        .iter()
        .map(|&l| l > face + VEILED_FACE_LIFT)
        .collect();
    if light.iter().filter(|&&l| l).count() * MIN_VEIL_SHARE < n * n {
        return None;
    }
    let near_light = morphed(&light, n, false, 2);
    let mid: Vec<bool> = ink_of
        .iter()
        .map(|&a| (HALF_INK..INK).contains(&a))
        .collect();
    let plateau = open_twice(&mid, n);
    // Near ink: within two pixels of it.
    let ink: Vec<bool> = ink_of.iter().map(|&a| a >= INK).collect();
    let near_ink = morphed(&ink, n, false, 2);
    let (mut labels, mut stack) = (Vec::new(), Vec::new());
    let found = label(|p| plateau[p], n, n, Touch::Eight, &mut labels, &mut stack);
    let (mut touch_ink, mut touch_veil) =
        (vec![false; found.len() + 1], vec![false; found.len() + 1]);
    for (p, &l) in labels.iter().enumerate() {
        touch_ink[l as usize] |= near_ink[p];
        touch_veil[l as usize] |= near_light[p];
    }
    let band: Vec<bool> = labels
        .iter()
        .map(|&l| l != 0 && touch_ink[l as usize] && touch_veil[l as usize])
        .collect();
    let count = band.iter().filter(|&&b| b).count();
    if count * MIN_VEILED_STROKES < n * n {
        return None;
    }
    for (a, &b) in ink_of.iter_mut().zip(&band) {
        if b {
            *a = 1.0;
        }
    }
    Some(Veil {
        band: morphed(&band, n, false, BAND_GROWTH),
        hidden: None,
        hid_ink: true,
    })
}

/// Whether the darkest ink, under a white veil of opacity `alpha`, still reads as ink: then
/// whatever lightens the face so (JPEG ringing round a letter, a shaded face's lighter middle,
/// a faint line) hides no stroke, and the glyph is seen whole. Measured on the held-back
/// corpus, seeds 1-3: of 396 veils found on screens with a path line, 2 were seen through;
/// of 178 on screens without one, 92 were (halos and shading on small JPEG screens), and their
/// glyphs had been trusted as if mostly hidden (a whole board unsure at 14%).
fn sees_through(dark: f32, alpha: f32, amount: &dyn Fn(f32) -> f32) -> bool {
    amount(dark * (1.0 - alpha) + 255.0 * alpha) >= INK
}

/// The veil's lightness and opacity, if the crop has one: the upper quartile of what is
/// lighter than the face (a textured face has a tail of light pixels too, but not as light as
/// the veil), and how much of the way to white it takes the face.
fn veil_lightness(crop: &Crop, face: f32) -> Option<(f32, f32)> {
    let n = crop.n;
    let clear = (face + LIGHTER_THAN_FACE).min(CLEAR_CAP);
    let mut light: Vec<f32> = crop.luma.iter().copied().filter(|&l| l > clear).collect();
    if light.len() * MIN_VEIL_SHARE < n * n {
        return None;
    }
    let k = light.len() * 3 / 4;
    let veil = *light.select_nth_unstable_by(k, f32::total_cmp).1;
    let alpha = (veil - face) / (255.0 - face);
    if veil < face + MIN_VEIL_LIFT || !VEIL_ALPHA.contains(&alpha) {
        return None;
    }
    Some((veil, alpha))
}

/// The veiled face: pixels of the veil's lightness over the face, in sizeable stretches only
/// (stray pixels of that lightness, texture or noise, would sandwich wedges of face between
/// them and the veil).
fn veiled_face(crop: &Crop, face: f32, veil: f32) -> Vec<bool> {
    let n = crop.n;
    let veiled_face: Vec<bool> = crop
        .luma
        .iter()
        .map(|&l| l > face + VEILED_FACE_LIFT && (l - veil).abs() <= VEIL_TOLERANCE)
        .collect();
    sizeable_stretches(&veiled_face, n)
}

/// The stretches of an n x n mask (8-connected) that cover at least 1/`MIN_STRETCH` of it.
fn sizeable_stretches(mask: &[bool], n: usize) -> Vec<bool> {
    let (mut labels, mut stack) = (Vec::new(), Vec::new());
    let stretches = label(|p| mask[p], n, n, Touch::Eight, &mut labels, &mut stack);
    let sizeable: Vec<bool> = std::iter::once(false)
        .chain(stretches.iter().map(|r| r.count * MIN_STRETCH >= n * n))
        .collect();
    labels.iter().map(|&l| sizeable[l as usize]).collect()
}

/// Where the veiled face meets bare face (not ink), a drawn line's edge steps down by at least
/// this share of the veil's lift within `EDGE_STEP` pixels; shading (a radial or glossy
/// face, lighter in places) fades.
const CRISP_STEP: f32 = 0.5;
const EDGE_STEP: usize = 2;
/// At least a fifth of the veil's edge is crisp (measured: a path line's 28-93% under blur
/// and JPEG, a radially shaded face's 0-3%)...
const CRISP_SHARE: usize = 5;
/// ...when it has this many edge samples (fewer say nothing).
const MIN_EDGE_SAMPLES: usize = 8;

/// Whether the veiled face ends in crisp edges (a line drawn over the tile) rather than fading
/// into the face (shading): the edge samples are veiled pixels with an unveiled neighbour whose
/// pixel `EDGE_STEP` farther out is not ink.
fn crisp(crop: &Crop, veiled_face: &[bool], lift: f32, amount: &dyn Fn(f32) -> f32) -> bool {
    let n = crop.n as i64;
    let (mut samples, mut sharp) = (0usize, 0usize);
    for y in 0..n {
        for x in 0..n {
            let p = (y * n + x) as usize;
            if !veiled_face[p] {
                continue;
            }
            for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                let (nx, ny) = (x + dx, y + dy);
                let (qx, qy) = (x + dx * EDGE_STEP as i64, y + dy * EDGE_STEP as i64);
                if !(0..n).contains(&qx) || !(0..n).contains(&qy) {
                    continue;
                }
                let q = (qy * n + qx) as usize;
                if veiled_face[(ny * n + nx) as usize] || amount(crop.luma[q]) >= 0.25 {
                    continue;
                }
                samples += 1;
                if crop.luma[p] - crop.luma[q] >= CRISP_STEP * lift {
                    sharp += 1;
                }
            }
        }
    }
    samples < MIN_EDGE_SAMPLES || sharp * CRISP_SHARE >= samples
}

/// Where veiled ink of colour `veiled_ink` forms a plateau (opened: thicker than a glyph's
/// antialiased rim) near the veiled face.
fn plateau_near(crop: &Crop, veiled_face: &[bool], veiled_ink: [f32; 3]) -> Vec<bool> {
    let n = crop.n;
    let plateau: Vec<bool> = crop
        .rgb
        .iter()
        .map(|&c| distance(c, veiled_ink) <= PLATEAU_TOLERANCE)
        .collect();
    let plateau = open_twice(&plateau, n);
    let near = morphed(veiled_face, n, false, n / PLATEAU_REACH);
    plateau.iter().zip(&near).map(|(&p, &c)| p && c).collect()
}

/// A badge's crop is this much wider than the tile: badges may stick out of it.
const BADGE_CROP: f32 = 1.2;
/// The largest side a badge's crop is worked at (badge letters are small).
const BADGE_WORK: usize = 160;
/// Pixels this close in lightness to the most common one are the face's (for its colour).
const COMMON_TOLERANCE: f32 = 8.0;
/// Colours at least this far apart (Euclidean, in RGB) are different colours: a badge's from
/// the face's, the gap's from the face's.
const FAR_COLOUR: f32 = 70.0;
/// A pixel whose channels spread by more than this is vivid: badges are strongly coloured.
const VIVID: f32 = 50.0;
/// The gap is sampled beside the middle half of each side of the tile (badges sit at corners).
const BESIDE_MIDDLE: f32 = 0.5;
/// Gap samples needed (a share, 1/n, of the crop's side) before the gap's colour is trusted;
/// fewer, and the crop's border stands in for it.
const MIN_GAP_SAMPLES: usize = 8;
/// A badge's centre lies outside the middle band of the crop, 0.38 to 0.62 of its side, on
/// both axes: in a corner quarter.
const CORNER_LOW: f32 = 0.38;
const CORNER_HIGH: f32 = 0.62;
/// A badge's least width and height, and its greatest side, as shares of the crop's side.
const BADGE_MIN_W: f32 = 0.12;
const BADGE_MIN_H: f32 = 0.08;
const BADGE_MAX: f32 = 0.5;
/// A badge fills at least this share of its bounding box (a rounded rectangle or a circle
/// does; a thin diagonal rim does not).
const BADGE_FILL: f32 = 0.4;
/// The tile's corners start this far from the crop's middle (a share of its side) when they
/// are searched for gap-coloured pixels.
const CORNER_FROM_MIDDLE: f32 = 0.12;
/// The tile's inner part, without its outer 7% each side, where its own rounded corners show
/// the gap.
const TILE_INNER: f32 = 0.86;
/// The lightest of what the badge leaves uncovered in its box is this percentile (not the
/// maximum: one stray light pixel must not set it).
const LIGHTEST_PERCENT: usize = 95;
/// Letters are at least this much lighter than the badge, whatever else is in its box.
const MIN_LETTER_LIFT: f32 = 60.0;
/// A badge letter is at least this share of the badge's height (smaller is a speck).
const MIN_LETTER_HEIGHT: f32 = 0.2;

/// The geometry of a badge's crop: `n` cells a side, the tile's half side and the crop's
/// middle in cells.
struct BadgeCrop {
    crop: Crop,
    nf: f32,
    half: f32,
    mid: f32,
}

impl BadgeCrop {
    fn new(img: &RgbaImage, c: (f32, f32), tile: f32) -> BadgeCrop {
        let side = tile * BADGE_CROP;
        let crop = crop(img, c, side, BADGE_WORK);
        let nf = crop.n as f32;
        BadgeCrop {
            half: tile * nf / side / 2.0,
            mid: (nf - 1.0) / 2.0,
            nf,
            crop,
        }
    }

    /// Crop cells [a, b) along an axis, from offsets relative to the middle.
    fn span(&self, from: f32, to: f32) -> std::ops::Range<usize> {
        let cell = |d: f32| (self.mid + d).clamp(0.0, self.nf) as usize;
        cell(from)..cell(to)
    }
}

/// The spread of a colour's channels: 0 for greys.
fn chroma(p: [f32; 3]) -> f32 {
    let max = p[0].max(p[1]).max(p[2]);
    let min = p[0].min(p[1]).min(p[2]);
    max - min
}

/// The median of each channel.
fn median_colour(mut v: Vec<[f32; 3]>) -> [f32; 3] {
    let mut out = [0.0; 3];
    let k = v.len() / 2;
    for (ch, o) in out.iter_mut().enumerate() {
        *o = v
            .select_nth_unstable_by(k, |a, b| a[ch].total_cmp(&b[ch]))
            .1[ch];
    }
    out
}

/// Whether two colours are `FAR_COLOUR` apart or more.
fn far(p: [f32; 3], q: [f32; 3]) -> bool {
    (0..3).map(|c| (p[c] - q[c]).powi(2)).sum::<f32>() > FAR_COLOUR * FAR_COLOUR
}

/// The face's colour (the median of the pixels of the most common lightness) and the colour
/// around the tile: the gap beside the middle of each of its sides (badges sit at corners),
/// where the gap is wide enough to show; else the crop's border. (The border alone can be the
/// neighbours' faces, and a badge sticking out into the gap would then join the gap into one
/// region.)
fn face_and_around(b: &BadgeCrop) -> ([f32; 3], [f32; 3]) {
    let (crop, n) = (&b.crop, b.crop.n);
    let common = face_luma(crop);
    let mut common_px = Vec::new();
    let mut border = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let p = crop.rgb[y * n + x];
            if (crop.luma[y * n + x] - common).abs() <= COMMON_TOLERANCE {
                common_px.push(p);
            }
            if x == 0 || y == 0 || x + 1 == n || y + 1 == n {
                border.push(p);
            }
        }
    }
    let face = median_colour(common_px);
    let (nf, half) = (b.nf, b.half);
    let beside = b.span(-half * BESIDE_MIDDLE, half * BESIDE_MIDDLE);
    // One cell past the tile's edge, its antialiased rim.
    let outside = half + 1.0;
    let mut gap = Vec::new();
    // Every other cell each way is plenty for a median, at a quarter of the cost.
    for along in beside.step_by(2) {
        for out in b
            .span(-nf, -outside)
            .chain(b.span(outside + 1.0, nf))
            .step_by(2)
        {
            for p in [out * n + along, along * n + out] {
                if far(crop.rgb[p], face) {
                    gap.push(crop.rgb[p]);
                }
            }
        }
    }
    let around = if gap.len() >= n / MIN_GAP_SAMPLES {
        median_colour(gap)
    } else {
        median_colour(border)
    };
    (face, around)
}

/// A badge found on a crop, and the crop's labels (the badge's region among them).
struct FoundBadge {
    region: Region,
    labels: Vec<u32>,
}

/// A badge: a sizeable region of a vivid colour unlike the face, whose centre lies in a
/// corner quarter of the tile. First among colours unlike what surrounds the tile too (a
/// badge may stick out into the gap); failing that, among all, for a badge of the gap's own
/// colour, which the face around it sets apart, and then its centre must lie on the tile (a
/// neighbour's corner in the crop's corner is no badge). Eroded once, which cuts the thin
/// antialiased rim of the tile (a blend of the two, often vivid too).
fn find_badge(b: &BadgeCrop, face: [f32; 3], around: [f32; 3]) -> Option<FoundBadge> {
    let (n, nf, half, mid) = (b.crop.n, b.nf, b.half, b.mid);
    let (mut vivid, mut unlike_around) = (vec![false; n * n], vec![false; n * n]);
    for (p, &c) in b.crop.rgb.iter().enumerate() {
        vivid[p] = chroma(c) > VIVID && far(c, face);
        unlike_around[p] = vivid[p] && far(c, around);
    }
    let (mut labels, mut stack) = (Vec::new(), Vec::new());
    let mut find = |mask: &[bool], anywhere: bool| {
        let mask = morph(mask, n, true);
        let found = label(|p| mask[p], n, n, Touch::Eight, &mut labels, &mut stack);
        found
            .into_iter()
            .filter(|r| {
                let (w, h) = ((r.x1 - r.x0) as f32, (r.y1 - r.y0) as f32);
                let corner = (r.cx() < nf * CORNER_LOW || r.cx() > nf * CORNER_HIGH)
                    && (r.cy() < nf * CORNER_LOW || r.cy() > nf * CORNER_HIGH);
                let on_tile = (r.cx() - mid).abs() < half && (r.cy() - mid).abs() < half;
                corner
                    && (anywhere || on_tile)
                    && w > nf * BADGE_MIN_W
                    && h > nf * BADGE_MIN_H
                    && w < nf * BADGE_MAX
                    && h < nf * BADGE_MAX
                    && r.count as f32 > BADGE_FILL * w * h
            })
            .max_by_key(|r| r.count)
    };
    let region = match find(&unlike_around, true) {
        Some(r) => r,
        None => {
            // Only worth a second look when the tile's corners hold enough pixels of the gap's
            // colour for half the smallest badge (most tiles have no badge).
            let inner = half * TILE_INNER;
            let corners = || {
                b.span(-inner, -nf * CORNER_FROM_MIDDLE)
                    .chain(b.span(nf * CORNER_FROM_MIDDLE + 1.0, inner))
            };
            let gap_coloured = corners()
                .flat_map(|y| corners().map(move |x| y * n + x))
                .filter(|&p| vivid[p] && !unlike_around[p])
                .count();
            let smallest = BADGE_FILL * (nf * BADGE_MIN_W) * (nf * BADGE_MIN_H);
            if (gap_coloured as f32) < smallest / 2.0 {
                return None;
            }
            find(&vivid, false)?
        }
    };
    Some(FoundBadge { region, labels })
}

/// The badge's letters as a mask over its bounding box (`bw` x `bh`): what is lighter than
/// halfway from the badge to the lightest of what it leaves uncovered in its box (its
/// letters, or the face at its rounded corners). Not "not the badge's colour": a thin stroke
/// blended with the badge (a small badge, a downscaled crop) is vivid too, and the badge
/// region swallows it.
fn badge_text(crop: &Crop, found: &FoundBadge) -> (Vec<bool>, usize, usize) {
    let n = crop.n;
    let (badge, labels) = (&found.region, &found.labels);
    let (bx0, by0, bx1, by1) = (badge.x0, badge.y0, badge.x1, badge.y1);
    let mut colour = [0.0f32; 3];
    let mut k = 0.0;
    for y in by0..by1 {
        for x in bx0..bx1 {
            if labels[y * n + x] == badge.id {
                let p = crop.rgb[y * n + x];
                for ch in 0..3 {
                    colour[ch] += p[ch];
                }
                k += 1.0;
            }
        }
    }
    let badge_luma = luma_of(colour) / k;
    let (bw, bh) = (bx1 - bx0, by1 - by0);
    let mut lumas: Vec<f32> = (by0..by1)
        .flat_map(|y| (bx0..bx1).map(move |x| (x, y)))
        .filter(|&(x, y)| labels[y * n + x] != badge.id)
        .map(|(x, y)| crop.luma[y * n + x])
        .collect();
    let light = if lumas.is_empty() {
        255.0
    } else {
        let k = (lumas.len() * LIGHTEST_PERCENT / 100).min(lumas.len() - 1);
        *lumas.select_nth_unstable_by(k, f32::total_cmp).1
    };
    let threshold = (badge_luma + light.max(badge_luma + MIN_LETTER_LIFT)) / 2.0;
    let mut text = vec![false; bw * bh];
    for y in by0..by1 {
        for x in bx0..bx1 {
            text[(y - by0) * bw + (x - bx0)] = crop.luma[y * n + x] > threshold;
        }
    }
    (text, bw, bh)
}

/// The badge's two letters in its text mask, left to right, each as (its region's id in
/// `text_labels`, its columns): the two largest light regions of the box, not touching its
/// edge. Two letters that touch (a T's bar reaching the W, at small sizes) come as one region
/// wider than tall: they are cut apart at the column with the least of it, in its middle.
#[allow(clippy::type_complexity)]
fn badge_letters(
    text: &[bool],
    bw: usize,
    bh: usize,
) -> Option<(Vec<u32>, [(u32, std::ops::Range<usize>); 2])> {
    let (mut text_labels, mut stack) = (Vec::new(), Vec::new());
    let mut letters: Vec<Region> = label(
        |p| text[p],
        bw,
        bh,
        Touch::Eight,
        &mut text_labels,
        &mut stack,
    )
    .into_iter()
    .filter(|r| !r.edge && (r.y1 - r.y0) as f32 >= bh as f32 * MIN_LETTER_HEIGHT)
    .collect();
    letters.sort_by_key(|r| std::cmp::Reverse(r.count));
    letters.truncate(2);
    letters.sort_by_key(|r| r.x0);
    let parts = match letters.as_slice() {
        [a, b] => [(a.id, a.x0..a.x1), (b.id, b.x0..b.x1)],
        [a] if a.x1 - a.x0 >= a.y1 - a.y0 => {
            let w = a.x1 - a.x0;
            let column = |x: usize| {
                (a.y0..a.y1)
                    .filter(|&y| text_labels[y * bw + x] == a.id)
                    .count()
            };
            // In the middle two fifths: the letters' own narrow parts lie outside it.
            let cut = (a.x0 + w * 3 / 10..=a.x0 + w * 7 / 10).min_by_key(|&x| column(x))?;
            [(a.id, a.x0..cut), (a.id, cut + 1..a.x1)]
        }
        _ => return None,
    };
    Some((text_labels, parts))
}

/// Looks for a bonus badge at the corners of the tile centred on `c` and reads its letters.
pub fn tile_badge(
    img: &RgbaImage,
    c: (f32, f32),
    tile: f32,
    classifier: &Classifier,
) -> Option<Bonus> {
    let b = BadgeCrop::new(img, c, tile);
    let (face, around) = face_and_around(&b);
    let found = find_badge(&b, face, around)?;
    let (text, bw, bh) = badge_text(&b.crop, &found);
    let (text_labels, parts) = badge_letters(&text, bw, bh)?;
    let read = |(id, columns): &(u32, std::ops::Range<usize>), allowed: &[u8]| -> Option<u8> {
        let mut ink = Ink::new(bw, bh);
        for (i, &l) in text_labels.iter().enumerate() {
            if l == *id && columns.contains(&(i % bw)) {
                ink.v[i] = 1.0;
            }
        }
        let f = Features::of(&ink)?;
        // A doubtful letter leaves the badge unread: a bonus counted on the wrong tile or of
        // the wrong kind misleads the scoring more than one left out.
        classifier
            .classify(&f, allowed)
            .filter(|v| v.confidence >= SURE)
            .map(|v| v.tile)
    };
    const D: u8 = 3;
    const L: u8 = 11;
    const T: u8 = 19;
    const W: u8 = 22;
    match (read(&parts[0], &[D, T])?, read(&parts[1], &[L, W])?) {
        (D, L) => Some(Bonus::DL),
        (T, L) => Some(Bonus::TL),
        (D, W) => Some(Bonus::DW),
        _ => Some(Bonus::TW),
    }
}

/// A board read off a screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub grid: Grid,
    /// Row-major.
    pub tiles: Vec<TileRead>,
    /// The median lightness of the tiles' faces (0-255).
    pub face: f32,
    /// Something lies over the grid's streets: a toast or a dialog (`overlay::covered`).
    pub covered: bool,
}

/// Why a board is not in play though its letters show.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Overlay {
    /// The tiles' faces are this dark (under `MIN_FACE`).
    Dark(f32),
    /// Something lies over the streets of a board read surely.
    Covered,
}

impl std::fmt::Display for Overlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Overlay::Dark(face) => write!(
                f,
                "the board is dimmed under an overlay (tile faces at {face:.0} of 255)"
            ),
            Overlay::Covered => {
                f.write_str("something lies over the board (a toast or a dialog between the tiles)")
            }
        }
    }
}

/// How much of its confidence a glyph under a veil keeps.
const VEILED_TRUST: f32 = 0.5;

/// How far off the face-to-ink colour line (as a share of its length) a pixel may be and still
/// count as the glyph's ink when its colour decides.
const OFF_COLOUR: f32 = 0.2;

/// Confidence below which a tile is not trusted.
pub const SURE: f32 = 0.15;

impl TileRead {
    /// Read with at least `SURE` confidence.
    pub fn sure(&self) -> bool {
        self.confidence >= SURE
    }
}

impl Reading {
    /// True when every tile is read with at least `SURE` confidence (dimmed or not).
    pub fn sure(&self) -> bool {
        self.tiles.iter().all(TileRead::sure)
    }

    /// The tiles' faces are darker than tiles in play (`MIN_FACE`), or a toast lies over the
    /// grid of a board read surely: an overlay covers the board ("Get ready!"), which is not
    /// playable until it goes.
    pub fn dimmed(&self) -> bool {
        self.overlay().is_some()
    }

    /// Why the board is dimmed (`None` when it is not). Something over the
    /// streets counts only when every tile is read surely: a toast between the tiles leaves
    /// them readable but may hide a stroke (an L's foot, and the L was read as I, surely),
    /// so such a board is never played. Over a board read unsure it is left to the unsure
    /// path: a system dialog ("isn't responding") hides tiles and stays until a person acts,
    /// so it is skipped with its screenshot rather than waited out in silence.
    pub fn overlay(&self) -> Option<Overlay> {
        if self.face < MIN_FACE {
            Some(Overlay::Dark(self.face))
        } else if self.covered && self.sure() {
            Some(Overlay::Covered)
        } else {
            None
        }
    }

    /// A board to play now: every tile sure, and not dimmed.
    pub fn playable(&self) -> bool {
        self.sure() && !self.dimmed()
    }

    /// Whether `board` may be the one under this reading: every tile read surely shows the
    /// board's letter there. `None` when no tile is read surely (nothing to judge by).
    pub fn agrees_with(&self, board: &crate::board::Board) -> Option<bool> {
        let mut judged = false;
        for (t, &want) in self.tiles.iter().zip(board.tiles()) {
            if t.sure() {
                judged = true;
                if t.tile != want {
                    return Some(false);
                }
            }
        }
        judged.then_some(true)
    }

    /// The tiles read surely as another letter than `board` has there: (index, read, typed).
    pub fn disagreements(&self, board: &crate::board::Board) -> Vec<(usize, u8, u8)> {
        self.tiles
            .iter()
            .zip(board.tiles())
            .enumerate()
            .filter(|(_, (t, want))| t.sure() && t.tile != **want)
            .map(|(i, (t, &want))| (i, t.tile, want))
            .collect()
    }

    /// Why a board typed for this screen is not the one on it: the tiles read surely as
    /// other letters, as "row 1 col 2 reads E surely, typed Z"; `None` when no sure tile
    /// disagrees. (A typo taken as the truth would teach the reader a wrong glyph that it then
    /// reads surely, or play a board the game does not show.)
    pub fn contradiction(&self, board: &crate::board::Board) -> Option<String> {
        self.contradicting_tiles(board).map(|tiles| {
            format!(
                "the board typed is not the one on the screen: {tiles} (--force if the screen is what is wrong)"
            )
        })
    }

    /// The tiles of `contradiction`, as "row 1 col 2 reads E surely, typed Z; ...".
    pub fn contradicting_tiles(&self, board: &crate::board::Board) -> Option<String> {
        let differ = self.disagreements(board);
        (!differ.is_empty()).then(|| {
            let tiles: Vec<String> = differ
                .iter()
                .map(|&(i, read, typed)| {
                    format!(
                        "row {} col {} reads {} surely, typed {}",
                        i / 4 + 1,
                        i % 4 + 1,
                        crate::board::tile_name(read),
                        crate::board::tile_name(typed)
                    )
                })
                .collect();
            tiles.join("; ")
        })
    }

    /// The board read (`Board::from_tiles` of the tiles).
    pub fn board(&self) -> crate::board::Board {
        let tiles: Vec<u8> = self.tiles.iter().map(|t| t.tile).collect();
        crate::board::Board::from_tiles(&tiles).expect("16 tiles in range")
    }

    /// The bonus badges read, for scoring.
    pub fn bonuses(&self) -> crate::score::Bonuses {
        let board = self.board();
        let mut bonuses = crate::score::Bonuses::none();
        for (i, t) in self.tiles.iter().enumerate() {
            if let (Some(b), Some(pos)) = (t.bonus, board.pos(i / 4, i % 4)) {
                // One badge per tile: `set` cannot refuse here.
                let _ = bonuses.set(&board, pos, b);
            }
        }
        bonuses
    }
}

/// Reads the board on `img`: in `grid` when given (a profile's), else in the grid found. The
/// tiles are read on up to `READ_THREADS` threads, as many as the machine has cores.
pub fn read(
    img: &RgbaImage,
    grid: Option<&Grid>,
    classifier: &Classifier,
) -> Result<Reading, NotABoard> {
    // Asking the system reads cgroup files on Linux: once per process is enough.
    static CORES: std::sync::LazyLock<usize> =
        std::sync::LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    read_on(img, grid, classifier, (*CORES).min(READ_THREADS))
}

/// At most this many threads read tiles: beyond four tiles each, starting a thread costs
/// about what it saves.
pub const READ_THREADS: usize = 4;

/// `read` with the tiles read on `threads` threads (1: on the caller's).
pub fn read_on(
    img: &RgbaImage,
    grid: Option<&Grid>,
    classifier: &Classifier,
    threads: usize,
) -> Result<Reading, NotABoard> {
    let grid = match grid {
        Some(g) => g.clone(),
        None => match super::grid::find_either(img).ok_or(NotABoard::NoGrid)? {
            (g, Polarity::Light) => g,
            // Dark tiles with light letters: read on the negative, where they are light tiles
            // with dark letters as the reader knows them. Before, such a board was "no 4x4
            // grid" (a third of the second generator's boards).
            (g, Polarity::Dark) => return read_found(&negative(img), g, classifier, threads),
        },
    };
    read_found(img, grid, classifier, threads)
}

/// The screen with every colour turned to its opposite: dark tiles with light letters become
/// light tiles with dark ones, what the grid search and the reader look for.
pub fn negative(img: &RgbaImage) -> RgbaImage {
    let mut out = img.clone();
    for p in out.pixels_mut() {
        p.0 = [255 - p.0[0], 255 - p.0[1], 255 - p.0[2], p.0[3]];
    }
    out
}

fn read_found(
    img: &RgbaImage,
    grid: Grid,
    classifier: &Classifier,
    threads: usize,
) -> Result<Reading, NotABoard> {
    let (tiles, face, glyphs) = read_tiles(img, &grid, classifier, threads);
    // Dark where the tiles should be, and mostly blank: no board (a lobby, a results page
    // under the grid a profile gives). Dark with letters: a board under an overlay.
    if face < MIN_FACE && glyphs < MIN_DIMMED_GLYPHS {
        return Err(NotABoard::Dark(face));
    }
    let covered = super::overlay::covered(img, &grid);
    Ok(Reading {
        grid,
        tiles,
        face,
        covered,
    })
}

/// The main glyph of the tile centred on `c` and its features (what of it a veil hides
/// counting less).
pub fn tile_features(img: &RgbaImage, c: (f32, f32), tile: f32) -> (TileGlyph, Option<Features>) {
    let glyph = tile_glyph(img, c, tile);
    let features = glyph
        .ink
        .as_ref()
        .and_then(|ink| Features::partly_hidden(ink, glyph.hidden.as_deref()));
    (glyph, features)
}

/// What one tile shows before a letter is chosen for it.
struct Seen {
    /// The tile's face lightness.
    face: f32,
    /// A glyph was found (a blank tile has none).
    glyph: bool,
    features: Option<Features>,
    /// A veil (a traced path's line) lies over the glyph.
    veiled: bool,
    /// The share of the glyph in sight (1 when nothing hides it).
    in_sight: f32,
    /// The tiles the glyph may be (empty: any).
    allowed: &'static [u8],
}

/// A tile where no glyph was found is looked at again this much wider (at most `room`, the
/// grid's pitch): every tile of a board has a letter, and the grid's tile may be less than the
/// tile, as on outlined tiles, whose light square is the inside of their frame. A wide glyph
/// (Comfortaa's Qu) then reached the crop's edge and was taken for something else. Measured
/// on the held-back corpus, seeds 1-3: Qu 279/287/268 -> 279/288/272 of 284/288/273, boards
/// read exactly 253/264/263 -> 253/265/266, with no more dimmed boards read as live.
const WIDER: f32 = 1.3;

/// Finds the glyph of the tile centred on `c` (`tile` its side as the grid has it, at most
/// `room` in fact) and what it may be.
fn see_tile(img: &RgbaImage, c: (f32, f32), tile: f32, room: f32) -> Seen {
    let (mut glyph, mut features) = tile_features(img, c, tile);
    let wider = (tile * WIDER).min(room);
    if glyph.ink.is_none() && wider > tile {
        (glyph, features) = tile_features(img, c, wider);
    }
    let in_sight = features.as_ref().map_or(1.0, Features::share_in_sight);
    Seen {
        face: glyph.face,
        glyph: glyph.ink.is_some(),
        features,
        veiled: glyph.hidden.is_some(),
        in_sight,
        // Any tile may be Qu, one glyph too: some games draw it as a lone Q (told from O by
        // its tail). Kept to two-letter glyphs, a lone Q was read as O, surely: 11-20 boards
        // of 400 wrong yet sure on the second generator, none since.
        allowed: &[],
    }
}

/// Under a veil, the network's letter decides how far the nearest reference's is trusted: the
/// same with at least this margin, at least `VEILED_TRUST` of its confidence however much is
/// hidden...
const NETWORK_AGREES: f32 = 0.95;
/// ...another with at least this margin, not at all.
const NETWORK_DIFFERS: f32 = 0.5;

/// The letter `classifier` reads in what a tile shows, and how sure of it: a glyph under a
/// veil is trusted half as much (a stroke lost under the line can turn one letter into
/// another at a fair distance), and less the more of it is hidden, unless the network, which
/// sees the glyph another way, is all but sure of the same letter; when it is fairly sure of
/// another, the glyph is not trusted. Measured (docs/vision.md): held-back seeds 1-3, boards exactly
/// and sure 244/253/254 -> 249/256/261, classic seeds 1-6 and developed seed 1 up by 0-5, no
/// board more wrong yet sure; simulated on the tiles' verdicts, the same letter alone made one
/// (classic seed 1: a Z under a line read as L at 0.2, the network saying Z).
fn judge(seen: &Seen, classifier: &Classifier) -> (u8, f32, u8) {
    let verdict = seen
        .features
        .as_ref()
        .and_then(|f| classifier.read_letter(f, seen.allowed));
    let Some(v) = verdict else {
        return (0, 0.0, 0);
    };
    let confidence = if seen.veiled {
        veiled_trust(&v, seen.in_sight)
    } else {
        v.confidence
    };
    (v.tile, confidence, v.runner_up)
}

/// How far the verdict `v` on a glyph under a veil, `in_sight` of it seen, is trusted.
fn veiled_trust(v: &Verdict, in_sight: f32) -> f32 {
    let hidden = v.confidence * VEILED_TRUST * in_sight;
    match v.network {
        Some((t, margin)) if t == v.tile && margin >= NETWORK_AGREES => {
            hidden.max(v.confidence * VEILED_TRUST)
        }
        Some((t, margin)) if t != v.tile && margin >= NETWORK_DIFFERS => 0.0,
        _ => hidden,
    }
}

/// A glyph read this surely and seen whole is a template for the rest of its board: the 16
/// tiles of a board are drawn in one face, so an unsure tile is compared with its neighbours'
/// letters as with letters a profile learned. Measured on the held-back corpus (docs/vision.md): of
/// about 4,300 tiles a seed read at 0.5 or more, at most 1 was wrong (seeds 1-3).
const BOARD_TEMPLATE: f32 = 0.5;

/// Reads again, with the board's own sure glyphs as templates (`BOARD_TEMPLATE`), the tiles
/// read less surely than that: those seen whole, and those under a path line that come within
/// `TEMPLATE_SAME` of one of them (the very glyph again, what the line hides left out). Not
/// every glyph under a line: a stroke lost under it brings it near another letter of the same
/// face (measured: an N under a line read as the board's own H, surely, on held-back seed 2).
fn read_with_board(seen: &[Seen], out: &mut [TileRead], classifier: &Classifier) {
    // Most boards are read surely throughout: nothing to read again.
    if out.iter().all(|r| r.confidence >= BOARD_TEMPLATE) {
        return;
    }
    let own: Vec<Reference> = seen
        .iter()
        .zip(out.iter())
        .filter(|(s, r)| !s.veiled && r.confidence >= BOARD_TEMPLATE)
        .filter_map(|(s, r)| {
            s.features.clone().map(|features| Reference {
                tile: r.tile,
                features,
            })
        })
        .collect();
    if own.is_empty() {
        return;
    }
    let with_board = classifier.with_more_templates(&own);
    for (s, r) in seen.iter().zip(out.iter_mut()) {
        let Some(f) = s.features.as_ref() else {
            continue;
        };
        // Under a line, only the very glyph again (within `TEMPLATE_SAME`) may decide.
        let same = || {
            own.iter()
                .any(|t| f.distance(&t.features) <= super::glyph::TEMPLATE_SAME)
        };
        if r.confidence < BOARD_TEMPLATE && (!s.veiled || same()) {
            (r.tile, r.confidence, r.runner_up) = judge(s, &with_board);
        }
    }
}

/// Tiles smaller than this (screen pixels) show their glyphs in so few pixels that near twins
/// differ by a pixel or two, and a verdict on them is trusted less, in proportion. Measured
/// on held-back seed 5: a Jura D on a 38-pixel tile (a 321x241 crop) was read as O at 21%,
/// the one board wrong yet sure on held-back seeds 1-5. The size was chosen on that board (at
/// 50 it stays sure); it changes no other figure on held-back seeds 1-5 or classic seeds 1-6,
/// and costs developed seed 1 one board read exactly but no longer surely (251 -> 250).
const SMALL_TILE: f32 = 60.0;

/// Reads each tile of `grid` on `img` (with the median face lightness and how many tiles show
/// a glyph), the tiles shared among `threads` threads (the tiles are
/// independent; the answer does not depend on the split).
fn read_tiles(
    img: &RgbaImage,
    grid: &Grid,
    classifier: &Classifier,
    threads: usize,
) -> (Vec<TileRead>, f32, usize) {
    let per = grid.centres.len().div_ceil(threads.clamp(1, 16));
    let read_chunk = |chunk: &[(f32, f32)]| -> Vec<(Seen, TileRead)> {
        chunk
            .iter()
            .map(|&c| {
                let seen = see_tile(img, c, grid.tile, grid.pitch.0.min(grid.pitch.1));
                let (tile, confidence, runner_up) = judge(&seen, classifier);
                let read = TileRead {
                    tile,
                    confidence,
                    runner_up,
                    bonus: tile_badge(img, c, grid.tile, classifier),
                };
                (seen, read)
            })
            .collect()
    };
    let done: Vec<(Seen, TileRead)> = if per >= grid.centres.len() {
        read_chunk(&grid.centres)
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = grid
                .centres
                .chunks(per)
                .map(|chunk| scope.spawn(move || read_chunk(chunk)))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    let (seen, mut out): (Vec<Seen>, Vec<TileRead>) = done.into_iter().unzip();
    read_with_board(&seen, &mut out, classifier);
    if grid.tile < SMALL_TILE {
        for r in &mut out {
            r.confidence *= grid.tile / SMALL_TILE;
        }
    }
    let mut faces: Vec<f32> = seen.iter().map(|s| s.face).collect();
    let glyphs = seen.iter().filter(|s| s.glyph).count();
    faces.sort_by(f32::total_cmp);
    (out, faces[faces.len() / 2], glyphs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::glyph::QU;

    /// An opaque colour.
    fn rgba(c: [u8; 3]) -> Rgba<u8> {
        Rgba([c[0], c[1], c[2], 255])
    }
    use image::Rgba;

    /// A light tile (centre (120, 120), side 200) with a navy bar for a glyph and, when
    /// `badge` is set, a blue badge in its top-left corner that overlaps the bar.
    fn tile(badge: bool) -> RgbaImage {
        let mut img = RgbaImage::from_pixel(240, 240, Rgba([40, 40, 60, 255]));
        let mut fill = |x0: u32, y0: u32, x1: u32, y1: u32, c: [u8; 3]| {
            for y in y0..y1 {
                for x in x0..x1 {
                    img.put_pixel(x, y, Rgba([c[0], c[1], c[2], 255]));
                }
            }
        };
        fill(20, 20, 220, 220, [225, 195, 225]);
        fill(105, 60, 135, 180, [20, 20, 140]);
        if badge {
            fill(20, 20, 110, 70, [30, 110, 220]);
        }
        img
    }

    #[test]
    fn a_badge_of_another_colour_touching_the_glyph_is_cut_off() {
        let ink_at = |glyph: &TileGlyph, x: f32, y: f32| {
            let ink = glyph.ink.as_ref().expect("a glyph");
            // Screen point to crop pixel: the crop is CROP of the tile, centred on it.
            let side = 200.0 * CROP;
            let k = ink.w as f32 / side;
            let (cx, cy) = ((x - 120.0 + side / 2.0) * k, (y - 120.0 + side / 2.0) * k);
            ink.v[cy as usize * ink.w + cx as usize]
        };
        let plain = tile_glyph(&tile(false), (120.0, 120.0), 200.0);
        let badged = tile_glyph(&tile(true), (120.0, 120.0), 200.0);
        for glyph in [&plain, &badged] {
            assert!(ink_at(glyph, 120.0, 120.0) > 0.9, "the bar is ink");
            assert!(
                ink_at(glyph, 120.0, 65.0) > 0.9,
                "the bar under the badge is ink"
            );
        }
        assert_eq!(ink_at(&badged, 60.0, 45.0), 0.0, "the badge is not ink");
    }

    /// A tile on a gap of violet with a dark-red bar for its letter and, maybe, a badge in its
    /// top-left corner: (colour, letters, letters drawn touching).
    fn badged(badge: Option<([u8; 3], &str, bool)>) -> RgbaImage {
        use super::super::corpus::{rounded, text_centred};
        let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
        rounded(
            &mut img,
            20.0,
            20.0,
            220.0,
            220.0,
            12.0,
            rgba([230, 230, 150]),
        );
        rounded(
            &mut img,
            105.0,
            60.0,
            135.0,
            180.0,
            0.0,
            rgba([150, 30, 40]),
        );
        if let Some((colour, text, touching)) = badge {
            rounded(&mut img, 26.0, 26.0, 90.0, 74.0, 8.0, rgba(colour));
            let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
            let white = rgba([255, 255, 255]);
            if touching {
                // Each letter on its own, close enough that the T's bar meets the W.
                let (first, second) = text.split_at(1);
                text_centred(&mut img, &font, first, 48.0, 50.0, 24.0, white);
                text_centred(&mut img, &font, second, 64.0, 50.0, 24.0, white);
            } else {
                text_centred(&mut img, &font, text, 58.0, 50.0, 24.0, white);
            }
        }
        img
    }

    const GAP: [u8; 3] = [70, 40, 170];

    #[test]
    fn badges_are_read_in_the_gaps_colour_and_with_touching_letters() {
        let read =
            |img: &RgbaImage| tile_badge(img, (120.0, 120.0), 200.0, &Classifier::built_in());
        assert_eq!(read(&badged(None)), None, "no badge, none read");
        let orange = [220, 110, 30];
        assert_eq!(read(&badged(Some((orange, "DL", false)))), Some(Bonus::DL));
        // A badge the colour of the gap around the tile: the face around it sets it apart.
        assert_eq!(read(&badged(Some((GAP, "TL", false)))), Some(Bonus::TL));
        // Letters that touch come as one piece: cut apart.
        let img = badged(Some((orange, "TW", true)));
        assert_eq!(read(&img), Some(Bonus::TW));
    }

    /// A light tile with a letter K and, maybe, a thin square frame drawn inset in the ink's
    /// colour (outlined tiles).
    fn framed(frame: bool) -> RgbaImage {
        use super::super::corpus::{rounded, text_centred};
        let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
        let (face, ink) = (rgba([200, 240, 190]), rgba([120, 20, 140]));
        rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 4.0, face);
        if frame {
            rounded(&mut img, 34.0, 34.0, 206.0, 206.0, 0.0, ink);
            rounded(&mut img, 40.0, 40.0, 200.0, 200.0, 0.0, face);
        }
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        text_centred(&mut img, &font, "K", 120.0, 120.0, 110.0, ink);
        img
    }

    #[test]
    fn a_frame_reaching_the_crops_edge_as_dark_as_the_letter_leaves_it_whole() {
        // An outlined tile whose frame lies at its rim, on a dark background the crop takes
        // in (a grid's tile measured a little large): frame and background are one region
        // reaching the edge. The frame is as dark as the letter, in another colour, so the
        // ink's colour is a mix of both: keeping only "the glyph's own colour" kept nothing.
        use super::super::corpus::{rounded, text_centred};
        let mut img = RgbaImage::from_pixel(240, 240, rgba([140, 30, 115]));
        let (face, frame, ink) = (
            rgba([16, 255, 209]),
            rgba([0, 105, 86]),
            rgba([176, 23, 70]),
        );
        rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 0.0, frame);
        rounded(&mut img, 28.0, 28.0, 212.0, 212.0, 0.0, face);
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        text_centred(&mut img, &font, "D", 120.0, 120.0, 110.0, ink);
        let glyph = tile_glyph(&img, (120.0, 120.0), 224.0);
        let (x0, y0, x1, y1) = glyph.ink.expect("the letter").ink_box().expect("ink");
        // The D alone: about 60% of the crop's side tall, nothing of the frame.
        let n = 112;
        assert!(
            x0 > n / 5 && y0 > n / 5 && x1 < n * 4 / 5 && y1 < n * 4 / 5,
            "{:?}",
            (x0, y0, x1, y1)
        );
    }

    #[test]
    fn a_frame_inside_the_tile_is_not_part_of_the_letter() {
        let box_of = |img: &RgbaImage| {
            let glyph = tile_glyph(img, (120.0, 120.0), 200.0);
            glyph.ink.expect("a glyph").ink_box()
        };
        let plain = box_of(&framed(false));
        assert!(plain.is_some());
        assert_eq!(box_of(&framed(true)), plain, "the same ink, frame or not");
        // A big O alone is a letter, not a frame.
        let mut o = RgbaImage::from_pixel(240, 240, Rgba([70, 40, 170, 255]));
        super::super::corpus::rounded(
            &mut o,
            20.0,
            20.0,
            220.0,
            220.0,
            4.0,
            Rgba([200, 240, 190, 255]),
        );
        super::super::corpus::rounded(
            &mut o,
            36.0,
            36.0,
            204.0,
            204.0,
            80.0,
            Rgba([120, 20, 140, 255]),
        );
        super::super::corpus::rounded(
            &mut o,
            60.0,
            60.0,
            180.0,
            180.0,
            56.0,
            Rgba([200, 240, 190, 255]),
        );
        assert!(
            tile_glyph(&o, (120.0, 120.0), 200.0).ink.is_some(),
            "a ring alone is a glyph"
        );
    }

    /// A tile with a letter K on a face `shade(x, y)` lighter in places (x and y from -1 to 1
    /// across the tile), and maybe a translucent white line across it (a traced path's).
    fn shaded(shade: impl Fn(f32, f32) -> f32, line: bool) -> RgbaImage {
        shaded_under(shade, line.then_some(0.5))
    }

    /// `shaded`, the line (when there is one) of opacity `line`.
    fn shaded_under(shade: impl Fn(f32, f32) -> f32, line: Option<f32>) -> RgbaImage {
        use super::super::corpus::text_centred;
        let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
        for y in 20..220 {
            for x in 20..220 {
                let lift = shade((x as f32 - 120.0) / 100.0, (y as f32 - 120.0) / 100.0);
                let v = |c: f32| (c + lift).min(255.0) as u8;
                img.put_pixel(x, y, Rgba([v(190.0), v(200.0), v(150.0), 255]));
            }
        }
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        text_centred(
            &mut img,
            &font,
            "K",
            120.0,
            120.0,
            110.0,
            Rgba([30, 30, 120, 255]),
        );
        if let Some(alpha) = line {
            for y in 100..140 {
                for x in 20..220 {
                    let p = img.get_pixel_mut(x, y);
                    for c in 0..3 {
                        p[c] = (f32::from(p[c]) * (1.0 - alpha) + 255.0 * alpha) as u8;
                    }
                }
            }
        }
        img
    }

    #[test]
    fn shading_is_not_a_veil_and_a_drawn_line_is() {
        let veiled = |img: &RgbaImage| tile_glyph(img, (120.0, 120.0), 200.0).hidden.is_some();
        let radial = |x: f32, y: f32| 55.0 * (1.0 - (x * x + y * y).sqrt()).max(0.0);
        assert!(!veiled(&shaded(radial, false)), "a radially shaded face");
        assert!(
            !veiled(&shaded(|_, y| 40.0 * (1.0 - y) / 2.0, false)),
            "a glossy top"
        );
        assert!(veiled(&shaded(|_, _| 0.0, true)), "a line over a flat face");
        assert!(veiled(&shaded(radial, true)), "a line over a shaded face");
    }

    #[test]
    fn a_faintly_lighter_face_by_a_line_is_not_ink() {
        // A nearly opaque line across a shaded face: what is faintly lighter than the face
        // there is the face, and the letter under the line has no more ink than without it
        // (taking it for ink under the veil put blobs round letters, read as O, D and G).
        let ink = |img: &RgbaImage| {
            let g = tile_glyph(img, (120.0, 120.0), 200.0);
            let ink = g.ink.expect("a glyph");
            (
                ink.v.iter().filter(|&&v| v >= INK).count(),
                g.hidden.is_some(),
            )
        };
        // Darker towards the edges with the square of the distance, as the corpus's radial
        // tiles: lightness spreads evenly over a range, and the face's (most common) lightness
        // falls anywhere in it, with a ring of faintly lighter face round the letter.
        let gentle = |x: f32, y: f32| -20.0 * (x * x + y * y) / 2.0;
        let (bare, _) = ink(&shaded(gentle, false));
        for alpha in [0.75, 0.85] {
            let (lined, veiled) = ink(&shaded_under(gentle, Some(alpha)));
            assert!(veiled, "the line is seen at opacity {alpha}");
            // A pixel or two of rim may go either way; a blob is tens.
            assert!(
                lined <= bare + bare / 100,
                "opacity {alpha}: {lined} pixels of ink against {bare} without the line"
            );
        }
    }

    #[test]
    fn a_veil_the_ink_shows_through_hides_nothing() {
        // A faint light line over the letter (or what looks like one: JPEG's halo round a
        // letter, a shaded face's lighter middle): the ink under it is still ink, so the glyph
        // is seen whole and read as surely as without it.
        let classifier = Classifier::built_in();
        let read = |img: &RgbaImage| {
            let seen = see_tile(img, (120.0, 120.0), 200.0, 240.0);
            let (tile, confidence, _) = judge(&seen, &classifier);
            (seen.veiled, tile, confidence)
        };
        let (_, k, bare) = read(&shaded(|_, _| 0.0, false));
        assert_eq!(k, 10, "a K");
        for alpha in [0.22, 0.3] {
            let (veiled, tile, confidence) = read(&shaded_under(|_, _| 0.0, Some(alpha)));
            assert!(!veiled, "opacity {alpha}: the K shows through");
            assert_eq!(tile, k, "opacity {alpha}");
            assert!(
                confidence >= 0.9 * bare,
                "opacity {alpha}: {confidence} against {bare} without the line"
            );
        }
        // Through a line as opaque as a game's, the strokes under it are lost: a veil.
        assert!(read(&shaded_under(|_, _| 0.0, Some(0.5))).0);
    }

    /// A flat tile (centre (120, 120), side 200) of colour `face` with `letter` in `ink` at
    /// `size`, under a white line of opacity `alpha` where `line` says.
    fn under_a_line(
        (letter, size): (&str, f32),
        (face, ink): ([u8; 3], [u8; 3]),
        line: impl Fn(f32, f32) -> bool,
        alpha: f32,
    ) -> RgbaImage {
        use super::super::corpus::text_centred;
        let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
        for y in 20..220 {
            for x in 20..220 {
                img.put_pixel(x, y, rgba(face));
            }
        }
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        text_centred(&mut img, &font, letter, 120.0, 120.0, size, rgba(ink));
        for (x, y, p) in img.enumerate_pixels_mut() {
            if line(x as f32, y as f32) {
                for c in 0..3 {
                    p[c] = (f32::from(p[c]) * (1.0 - alpha) + 255.0 * alpha) as u8;
                }
            }
        }
        img
    }

    #[test]
    fn a_stroke_under_lines_of_a_path_is_told_from_the_face_by_colour() {
        // A blue T on a beige face with a lighter top (a sheen), under two lines of a path
        // meeting beside it, one along the crossbar and one across the stem, as on a screen
        // of the held-back corpus (seed 3, sample 5: T read as A). Under the lines the ink is
        // as light as the veiled face, but bluer: the T is found whole, and the wedge of face
        // between the lines is no ink. (Judged by lightness, half the T was lost.)
        let (face, blue) = ([225, 200, 185], [70, 40, 200]);
        let bar = |_: f32, y: f32| (88.0..112.0).contains(&y);
        let across = |x: f32, y: f32| (x + y - 250.0).abs() / std::f32::consts::SQRT_2 < 12.0;
        let sheen = |img: &mut RgbaImage| {
            for y in 20..115 {
                for x in 20..220 {
                    let p = img.get_pixel_mut(x, y);
                    if p.0[..3] == face {
                        for c in 0..3 {
                            p[c] = (f32::from(p[c]) * 0.6 + 255.0 * 0.4) as u8;
                        }
                    }
                }
            }
        };
        let mut bare = under_a_line(("T", 110.0), (face, blue), |_, _| false, 0.0);
        sheen(&mut bare);
        let mut lined = bare.clone();
        for (x, y, p) in lined.enumerate_pixels_mut() {
            if bar(x as f32, y as f32) || across(x as f32, y as f32) {
                for c in 0..3 {
                    p[c] = (f32::from(p[c]) * 0.3 + 255.0 * 0.7) as u8;
                }
            }
        }
        let ink = |img: &RgbaImage| {
            let g = tile_glyph(img, (120.0, 120.0), 200.0);
            let ink = g.ink.expect("a glyph");
            let set: Vec<bool> = ink.v.iter().map(|&v| v >= INK).collect();
            (set, g.hidden.is_some())
        };
        let ((want, _), (got, veiled)) = (ink(&bare), ink(&lined));
        assert!(veiled, "the lines are seen");
        let (inked, missed, extra) =
            want.iter()
                .zip(&got)
                .fold((0, 0, 0), |(i, m, e), (&w, &g)| {
                    (
                        i + usize::from(w),
                        m + usize::from(w && !g),
                        e + usize::from(g && !w),
                    )
                });
        assert!(
            missed * 10 <= inked && extra * 10 <= inked,
            "of {inked} pixels of ink, {missed} lost and {extra} more under the lines"
        );
        let seen = see_tile(&lined, (120.0, 120.0), 200.0, 240.0);
        let (tile, _, _) = judge(&seen, &Classifier::built_in());
        assert_eq!(tile, 19, "read as a T");
    }

    #[test]
    fn what_colour_tells_under_a_line_is_in_sight() {
        // A purple E on a cyan face under a path's line along its bottom arm. Under the line
        // the ink is told from the face by colour, so only the line's soft edges are in doubt,
        // not the arm: judged as hidden, the whole line was (an E then looks like an F).
        let line = |x: f32, y: f32| x >= 60.0 && (y - 155.0).abs() < 14.0;
        let img = under_a_line(("E", 110.0), ([50, 210, 215], [100, 30, 100]), line, 0.6);
        let glyph = tile_glyph(&img, (120.0, 120.0), 200.0);
        let in_doubt = glyph
            .hidden
            .expect("the line is seen")
            .iter()
            .filter(|&&h| h)
            .count();
        // The line's area in the crop's cells.
        let cell = 200.0 * CROP / WORK as f32;
        let under_line = (20..220)
            .flat_map(|y| (20..220).map(move |x| (x as f32, y as f32)))
            .filter(|&(x, y)| line(x, y))
            .count() as f32
            / (cell * cell);
        assert!(
            (in_doubt as f32) < under_line / 3.0,
            "{in_doubt} cells in doubt of {under_line:.0} under the line"
        );
        let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
        let (tile, confidence, _) = judge(&seen, &Classifier::built_in());
        assert_eq!(tile, 4, "read as an E");
        assert!(confidence >= SURE, "read at {confidence}");
    }

    #[test]
    fn a_glyph_wholly_under_a_nearly_opaque_line_is_found() {
        // A K under a white line of opacity 0.8, wider than the letter is tall: nothing in
        // the tile is darker than its face, but the veiled strokes are still there.
        let img = under_a_line(
            ("K", 70.0),
            ([200, 150, 60], [30, 30, 120]),
            |_, y| (80.0..160.0).contains(&y),
            0.8,
        );
        let glyph = tile_glyph(&img, (120.0, 120.0), 200.0);
        assert!(glyph.ink.is_some(), "the K under the line is found");
        assert!(glyph.hidden.is_some(), "and known to be under a veil");
        let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
        let (tile, _, _) = judge(&seen, &Classifier::built_in());
        assert_eq!(tile, 10, "read as a K");
    }

    #[test]
    fn strokes_under_a_line_barely_lighter_than_the_face_are_not_lost() {
        // A B on a nearly white face under a white line that lightens the face by 12 levels
        // only (the face, flat, is found 4 levels lighter than it is: less than any veil is
        // looked for), but its strokes from 73 to about 188: the B is not read surely as
        // what is left in sight.
        // A line 24 pixels wide from the top right to the bottom left.
        let img = under_a_line(
            ("B", 110.0),
            ([236, 236, 236], [73, 73, 73]),
            |x, y| (x + y - 240.0).abs() / std::f32::consts::SQRT_2 < 12.0,
            0.63,
        );
        let glyph = tile_glyph(&img, (120.0, 120.0), 200.0);
        assert!(glyph.hidden.is_some(), "the B is known to be under a line");
        let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
        let (tile, confidence, _) = judge(&seen, &Classifier::built_in());
        assert!(
            tile == 1 || confidence < SURE,
            "read as {tile} at {confidence}"
        );
    }

    #[test]
    fn the_network_decides_how_far_a_veiled_glyph_is_trusted() {
        // An H read at 0.8 under a line with 40% of it in sight.
        let v = |network| Verdict {
            tile: 7,
            confidence: 0.8,
            runner_up: 12,
            distance: 0.3,
            learned: false,
            network,
        };
        let alone = veiled_trust(&v(None), 0.4);
        assert!((alone - 0.8 * VEILED_TRUST * 0.4).abs() < 1e-6);
        // All but sure of the same letter: trusted as if the glyph were seen but veiled.
        let agrees = veiled_trust(&v(Some((7, 0.97))), 0.4);
        assert!((agrees - 0.8 * VEILED_TRUST).abs() < 1e-6, "{agrees}");
        // Less sure of it: as without the network.
        assert_eq!(veiled_trust(&v(Some((7, 0.9))), 0.4), alone);
        // Fairly sure of another letter (M, whose middle the line may hide): not trusted.
        assert_eq!(veiled_trust(&v(Some((12, 0.6))), 0.4), 0.0);
        assert_eq!(veiled_trust(&v(Some((12, 0.3))), 0.4), alone);
    }

    #[test]
    fn a_glyph_touching_the_tiles_frame_is_read_without_it() {
        // An outlined tile whose "QU" is wider than the inside of its frame: the Q's and the
        // U's outer strokes cross the frame's lines, and glyph and frame are one region.
        use super::super::corpus::{rounded, text_centred};
        let (face, ink) = (rgba([220, 160, 180]), rgba([150, 20, 220]));
        let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
        rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 4.0, face);
        rounded(&mut img, 40.0, 40.0, 200.0, 200.0, 0.0, rgba([90, 60, 80]));
        rounded(&mut img, 46.0, 46.0, 194.0, 194.0, 0.0, face);
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::regular().to_vec()).unwrap();
        text_centred(&mut img, &font, "QU", 120.0, 120.0, 128.0, ink);
        // The grid takes the inside of the frame for the tile, as on the held-back screen.
        let classifier = Classifier::built_in();
        let seen = see_tile(&img, (120.0, 120.0), 150.0, 240.0);
        assert!(seen.glyph, "a glyph is found");
        let (tile, confidence, _) = judge(&seen, &classifier);
        assert_eq!((tile, confidence >= SURE), (QU, true), "{confidence}");
    }

    /// A 480x800 screen of one colour with a board of rounded tiles of another, its letters
    /// "WORDSGAMELIKEBUT" in a third.
    fn board_drawn(panel: [u8; 3], tile: [u8; 3], ink: [u8; 3]) -> RgbaImage {
        use super::super::corpus::{rounded, text_centred};
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        let mut img = RgbaImage::from_pixel(480, 800, rgba(panel));
        for (i, ch) in "WORDSGAMELIKEBUT".chars().enumerate() {
            let (x, y) = (
                40.0 + 102.0 * (i % 4) as f32,
                200.0 + 102.0 * (i / 4) as f32,
            );
            rounded(&mut img, x, y, x + 92.0, y + 92.0, 10.0, rgba(tile));
            let s = ch.to_string();
            text_centred(&mut img, &font, &s, x + 46.0, y + 46.0, 56.0, rgba(ink));
        }
        img
    }

    #[test]
    fn dark_tiles_with_light_letters_are_read_as_the_negative_of_the_screen() {
        // Dark green tiles with white letters on a light panel: no tile is lighter than what
        // lies between them, so the grid search finds none; on the screen's negative it does.
        let img = board_drawn([225, 222, 210], [30, 95, 45], [250, 250, 245]);
        assert!(super::super::grid::find(&img).is_none(), "found as it is");
        let r = read(&img, None, &Classifier::built_in()).expect("read on the negative");
        assert_eq!(r.board().to_string(), "WORD/SGAM/ELIK/EBUT");
        assert!(r.playable(), "{r:?}");
    }

    #[test]
    fn tiles_as_light_as_their_panel_are_found_by_their_colour() {
        // Green tiles on a brown panel, and sand tiles on a sky-blue one, each as light as its
        // panel (Rec. 601 luma 89 and 90, 173 and 176): neither lighter nor darker, no grid in
        // light or on the negative; the colour tells them apart. The letters are read the way
        // round they are: light ones on the negative, dark ones as they are.
        for (panel, tile, ink) in [
            ([120, 80, 60], [40, 120, 60], [250, 250, 240]),
            ([140, 190, 200], [200, 170, 120], [30, 30, 30]),
        ] {
            let img = board_drawn(panel, tile, ink);
            assert!(
                super::super::grid::find(&img).is_none(),
                "{tile:?}: found in light"
            );
            let r = read(&img, None, &Classifier::built_in())
                .unwrap_or_else(|e| panic!("{tile:?} on {panel:?}: {e}"));
            assert_eq!(r.board().to_string(), "WORD/SGAM/ELIK/EBUT", "{tile:?}");
            assert!(r.playable(), "{tile:?}: {r:?}");
        }
    }

    #[test]
    fn a_lone_q_is_read_as_qu_and_an_o_as_o() {
        // Some games draw the Qu tile as a Q alone: one glyph, told from O by its tail. Before,
        // a tile of one glyph was never Qu, and a lone Q was read as O, surely.
        use super::super::corpus::{rounded, text_centred};
        let (face, ink) = (rgba([240, 230, 205]), rgba([40, 30, 30]));
        let read = |font: &ab_glyph::FontVec, text: &str| {
            let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
            rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 16.0, face);
            text_centred(&mut img, font, text, 120.0, 120.0, 120.0, ink);
            let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
            let (tile, confidence, _) = judge(&seen, &Classifier::built_in());
            (tile, confidence >= SURE)
        };
        for bytes in [dejavu::sans::bold(), notosans::REGULAR_TTF] {
            let font = ab_glyph::FontVec::try_from_vec(bytes.to_vec()).unwrap();
            assert_eq!(read(&font, "Q"), (QU, true));
            assert_eq!(read(&font, "O"), (14, true));
        }
    }

    #[test]
    fn a_glyph_wider_than_the_grids_tile_is_looked_for_wider() {
        // The grid took the inside of an outlined tile's frame for the tile: a wide "Qu"
        // reaches past the crop it gives.
        use super::super::corpus::{rounded, text_centred};
        let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
        rounded(
            &mut img,
            15.0,
            15.0,
            225.0,
            225.0,
            8.0,
            rgba([230, 210, 40]),
        );
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        text_centred(
            &mut img,
            &font,
            "Qu",
            120.0,
            120.0,
            100.0,
            rgba([60, 30, 200]),
        );
        let classifier = Classifier::built_in();
        let seen = see_tile(&img, (120.0, 120.0), 120.0, 240.0);
        assert!(seen.glyph, "a glyph is found");
        assert_eq!(judge(&seen, &classifier).0, QU);
        // With no room beyond the grid's tile, nothing more is seen.
        assert!(!see_tile(&img, (120.0, 120.0), 120.0, 120.0).glyph);
    }

    #[test]
    fn a_boards_own_sure_glyph_decides_its_unsure_twin() {
        // A shape no reference knows ('#'), shown on three tiles; one of them read (say, by a
        // face the references know better there) as X, surely.
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        let hash = Features::of(&super::super::glyph::render(&font, "#", 64.0)).unwrap();
        let classifier = Classifier::built_in();
        let tile_seen = |veiled| Seen {
            face: 200.0,
            glyph: true,
            features: Some(hash.clone()),
            veiled,
            in_sight: 1.0,
            allowed: &[],
        };
        let seen = [tile_seen(false), tile_seen(false), tile_seen(true)];
        let alone = judge(&seen[1], &classifier);
        assert!(alone.1 < SURE, "the references alone are unsure: {alone:?}");
        let read = |(tile, confidence, runner_up)| TileRead {
            tile,
            confidence,
            runner_up,
            bonus: None,
        };
        let x = read((23, 0.9, 0));
        let mut out = [x, read(alone), read(judge(&seen[2], &classifier))];
        let before = out;
        read_with_board(&seen, &mut out, &classifier);
        assert_eq!(out[0], x, "a sure tile is kept");
        assert_eq!(out[1].tile, 23, "{:?}", out[1]);
        assert!(out[1].sure(), "{:?}", out[1]);
        // Under a line, the very glyph again decides too...
        assert_eq!(out[2].tile, 23, "{:?}", out[2]);
        // ...but not a glyph merely like it: the same sign in a lighter face, under a line.
        let light = ab_glyph::FontVec::try_from_vec(dejavu::sans::regular().to_vec()).unwrap();
        let like = super::super::glyph::render(&light, "#", 64.0);
        let like = Features::partly_hidden(&like, Some(&vec![false; like.w * like.h])).unwrap();
        let d = like.distance(&hash);
        assert!(
            d > super::super::glyph::TEMPLATE_SAME && d < 0.3,
            "a like glyph, not the same: {d}"
        );
        let like = Seen {
            features: Some(like),
            ..tile_seen(true)
        };
        let like_alone = read(judge(&like, &classifier));
        let mut out = [x, before[1], like_alone];
        read_with_board(
            &[tile_seen(false), tile_seen(false), like],
            &mut out,
            &classifier,
        );
        assert_eq!(
            out[2], like_alone,
            "a like glyph under a line is left alone"
        );
        // Read less surely than BOARD_TEMPLATE, the first tile teaches nothing.
        let mut out = [read((23, BOARD_TEMPLATE - 0.01, 0)), before[1], before[2]];
        read_with_board(&seen, &mut out, &classifier);
        assert_eq!(out[1..], before[1..]);
    }

    #[test]
    fn a_partly_read_board_agrees_only_with_boards_showing_its_sure_letters() {
        use crate::board::Board;
        let board = Board::parse("ABCD/EFGH/IJKL/MNOP").unwrap();
        let centres = std::array::from_fn(|i| ((i % 4) as f32 * 10.0, (i / 4) as f32 * 10.0));
        // The middle two rows under a banner: read, but not surely.
        let reading = |tiles: &[u8], sure_rows: &[usize]| Reading {
            grid: Grid::from_centres(centres, 8.0),
            tiles: (0..16)
                .map(|i| TileRead {
                    tile: tiles[i],
                    confidence: if sure_rows.contains(&(i / 4)) {
                        0.9
                    } else {
                        0.0
                    },
                    runner_up: 0,
                    bonus: None,
                })
                .collect(),
            face: 200.0,
            covered: false,
        };
        let mut other = board.tiles().to_vec();
        other[0] = 25;
        let mut hidden_differs = board.tiles().to_vec();
        hidden_differs[5] = 25;
        // (tiles read, rows read surely, agrees)
        let cases: [(&[u8], &[usize], Option<bool>); 5] = [
            (board.tiles(), &[0, 3], Some(true)),
            (&hidden_differs, &[0, 3], Some(true)),
            (&other, &[0, 3], Some(false)),
            (&other, &[1, 2], Some(true)),
            (board.tiles(), &[], None),
        ];
        for (tiles, rows, agrees) in cases {
            assert_eq!(reading(tiles, rows).agrees_with(&board), agrees, "{rows:?}");
        }
    }
}
