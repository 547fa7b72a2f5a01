//! Isolating a tile's main glyph as an ink map: not the corner value, not a badge, not a
//! frame drawn inside the tile, with what a veil hides marked.

use image::RgbaImage;

use super::crop::{
    Crop, INK, WORK, crop, darkest_in_middle, face_luma, flatten_from, level, mean_colour_near,
    ring_luma,
};
use super::veil::{Veil, reaches_edge, unmix, unveil, veiled_ink_darkness, veiled_strokes};
use crate::glyph::Ink;
use crate::regions::{Region, Runs, Touch, label};

/// Share of the tile's side that is cropped.
pub const CROP: f32 = 0.92;

/// Glyphs with less contrast than this against their face are not read.
const MIN_CONTRAST: f32 = 45.0;

/// Pixels within this share of the contrast (and at least `MIN_PALETTE_TOLERANCE` levels)
/// of the face's or the ink's lightness give their colours.
const PALETTE_TOLERANCE: f32 = 0.1;

const MIN_PALETTE_TOLERANCE: f32 = 3.0;

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

/// How far off the face-to-ink colour line (as a share of its length) a pixel may be and still
/// count as the glyph's ink when its colour decides.
const OFF_COLOUR: f32 = 0.2;

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
    pub(super) fn blank(face: f32) -> TileGlyph {
        TileGlyph {
            face,
            ink: None,
            hidden: None,
        }
    }
}

/// Isolates the main glyph of the tile centred on `c`.
pub fn tile_glyph(img: &RgbaImage, c: (f32, f32), tile: f32) -> TileGlyph {
    tile_glyph_with(img, c, tile, Face::Commonest)
}

/// How a tile's face lightness is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Face {
    /// The commonest lightness of the crop (no glyph where the ring inside the crop's rim
    /// shows that to be the ink's).
    Commonest,
    /// The commonest, or, where that is no lighter than the ink by a glyph's contrast, the
    /// ring inside the crop's rim when it is (`crop::ring_luma`). A last resort: on a crop
    /// that cuts the glyph short the ring finds a glyph where none was read before, and a
    /// wider crop, which sees it whole, is tried first.
    OrRing,
    /// The commonest, and where the glyph joins something of another colour (a hand, a
    /// pointer) that the glyph's colour alone does not part from it, a colour nearer the
    /// glyph's (half `OFF_COLOUR`). Last of all: a glyph of a shaded or blurred colour loses
    /// strokes so, and was read as another letter where a wider crop read it right.
    OwnColour,
}

/// `tile_glyph`, the face found as `how` says.
pub fn tile_glyph_with(img: &RgbaImage, c: (f32, f32), tile: f32, how: Face) -> TileGlyph {
    glyph_on(&Levelled::new(img, c, tile), how)
}

/// A tile's crop brought level (`flatten_from`), with its commonest lightness and darkest
/// ink: what every way of finding the face (`Face`) starts from, so a tile looked at more
/// than one way is cropped once for each size (a tile with no glyph is tried four ways, at
/// two sizes).
pub(super) struct Levelled {
    crop: Crop,
    face: f32,
    dark: f32,
}

impl Levelled {
    /// The crop of the tile centred on `c`, `tile` its side.
    pub(super) fn new(img: &RgbaImage, c: (f32, f32), tile: f32) -> Levelled {
        let mut crop = crop(img, c, tile * CROP, WORK);
        let (mut face, mut dark) = (face_luma(&crop), darkest_in_middle(&crop));
        // Brought level, the crop has a face and ink of its own.
        if flatten_from(&mut crop, face, dark) {
            (face, dark) = (face_luma(&crop), darkest_in_middle(&crop));
        }
        Levelled { crop, face, dark }
    }
}

/// `tile_glyph_with` on the tile's crop as `Levelled::new` leaves it.
pub(super) fn glyph_on(levelled: &Levelled, how: Face) -> TileGlyph {
    let Levelled {
        ref crop,
        mut face,
        mut dark,
    } = *levelled;
    let n = crop.n;
    // On a face shaded so widely that none of its lightnesses is common, a heavy letter's ink
    // can be the commonest: then the ring inside the crop's rim, where no letter reaches, is
    // lighter than it by a glyph's contrast, and it is the face.
    if face - dark < MIN_CONTRAST
        && let Some(ring) = ring_luma(crop).filter(|&r| r - face >= MIN_CONTRAST)
    {
        match how {
            Face::OrRing => face = ring,
            // Not a glyph under a line (whose face is the commonest): no glyph, this way.
            Face::Commonest | Face::OwnColour => return TileGlyph::blank(face),
        }
    }
    // A glyph wholly under a nearly opaque line is lighter than the face there: its darkness
    // is what the veiled ink unblends to.
    if face - dark < MIN_CONTRAST {
        match veiled_ink_darkness(crop, face) {
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
            mean_colour_near(crop, face, tol).zip(mean_colour_near(crop, dark, tol))
        })
    };
    // Ink amount per pixel, seen through a light veil where there is one.
    let local = local_faces(crop, face, contrast);
    let mut ink_of: Vec<f32> = crop
        .luma
        .chunks_exact(n)
        .zip(&local)
        .flat_map(|(row, &f)| {
            row.iter()
                .map(move |&l| ((f - l) / (f - dark).max(1.0)).clamp(0.0, 1.0))
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
    let mut veil = palette().and_then(|p| unmix(crop, p, &mut ink_of));
    veil = crossing(veil, &mut ink_of);
    if veil.is_none() {
        veil = unveil(crop, (face, dark), &palette, &amount, &mut ink_of);
        veil = crossing(veil, &mut ink_of);
    }
    let veil = veil.or_else(|| veiled_strokes(crop, face, &mut ink_of));
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let mut found = ink_regions(&ink_of, n, &mut labels, &mut runs);
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
    let main_at_edge = |found: &[Region], frames: &[u32]| {
        found
            .iter()
            .filter(|r| near_middle(r) && !frames.contains(&r.id))
            .max_by_key(|r| r.count)
            .is_some_and(|r| r.edge)
    };
    if main_at_edge(&found, &frames)
        && let Some(palette) = palette()
    {
        own_colour_only(crop, palette, OFF_COLOUR, &mut ink_of);
        found = ink_regions(&ink_of, n, &mut labels, &mut runs);
        frames = frames_of(&found, nf, near_middle);
        if how == Face::OwnColour && main_at_edge(&found, &frames) {
            own_colour_only(crop, palette, OFF_COLOUR / 2.0, &mut ink_of);
            found = ink_regions(&ink_of, n, &mut labels, &mut runs);
            frames = frames_of(&found, nf, near_middle);
        }
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
        found = ink_regions(&ink_of, n, &mut labels, &mut runs);
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
    if hidden.is_none() {
        cut_corner_value(&mut ink);
    }
    TileGlyph {
        face,
        ink: Some(ink),
        hidden,
    }
}

/// A capital's ink rises to one cap line across its width. Ink that rises above the cap line
/// of the rest of the glyph by more than this share of the crop's side, in the glyph's outer
/// `CORNER_SIDE` on one side only, is a corner value drawn touching the letter (a 5 on a
/// W's right arm), not the letter.
const ABOVE_CAP: f32 = 0.03;

/// The share of the glyph's width, each side, a corner value joined to it may lie in; the cap
/// line is taken on the rest, from the other side.
const CORNER_SIDE: f32 = 0.35;

/// The share of the glyph's width between a corner and the rest, where an arm rising to the
/// cap line may still climb, left out of both.
const CORNER_GAP: f32 = 0.05;

/// Takes off the ink of a corner value joined to the glyph (`ABOVE_CAP`): what of it lies
/// above the cap line, and what hangs beside the letter in columns the letter does not reach
/// down. Only what rises apart in the outer part of one side, and less than half the glyph's
/// height, is taken: a glyph leaning or rotated rises on one side across its whole width,
/// and a letter of its own height beside the glyph is no corner value.
fn cut_corner_value(ink: &mut Ink) {
    let Some((x0, y0, x1, y1)) = ink.ink_box() else {
        return;
    };
    let (n, bw, bh) = (ink.w, x1 - x0, y1 - y0);
    let top = |x: usize| (y0..y1).find(|&y| ink.v[y * n + x] >= 0.5);
    let side = (bw as f32 * CORNER_SIDE).round() as usize;
    let gap = (bw as f32 * CORNER_GAP).round() as usize;
    let margin = (n as f32 * ABOVE_CAP).ceil() as usize;
    // The right corner against the cap of the columns left of it, then the left corner.
    for (corner, others) in [
        (x1 - side..x1, x0..x1 - side - gap),
        (x0..x0 + side, x0 + side + gap..x1),
    ] {
        let Some(cap) = others.clone().filter_map(top).min() else {
            continue;
        };
        let Some(highest) = corner.clone().filter_map(top).min() else {
            continue;
        };
        // The value stands apart from the rest above the cap line: the corner's innermost
        // column does not rise (a round letter's shoulder, a Q's arc beside a small u, a
        // glyph leaning up to one side all rise from the rest).
        let inner = if corner.start == x0 {
            corner.end - 1
        } else {
            corner.start
        };
        let apart = top(inner).is_none_or(|t| t + margin / 2 >= cap);
        if !apart || highest + margin > cap || (cap - highest) * 2 > bh {
            continue;
        }
        for x in corner.clone() {
            // What of the value hangs below the cap line beside the letter goes too: a
            // column with no ink below the cap line's band is the value's alone.
            let letter = (cap + margin..y1).any(|y| ink.v[y * n + x] >= 0.5);
            let end = if letter {
                cap.saturating_sub(margin / 2)
            } else {
                cap + margin
            };
            for y in highest..end.min(y1) {
                ink.v[y * n + x] = 0.0;
            }
        }
        return;
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
                h[usize::from(level(l))] += 1;
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
pub(super) fn spans(r: &Region, nf: f32) -> bool {
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
fn ink_regions(ink_of: &[f32], n: usize, labels: &mut Vec<u32>, runs: &mut Runs) -> Vec<Region> {
    label(|p| ink_of[p] >= INK, n, n, Touch::Eight, labels, runs)
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
pub(super) fn height(found: &[Region], keep: &[u32]) -> usize {
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
            // Right under it, starting under its middle half: a tail drawn apart from its
            // letter (the Q of PT Sans, whose tail starts under the bowl's middle, was read as
            // O, surely). A corner value under a wide letter starts under its end.
            let quarter = (main.x1 - main.x0) / 4;
            let tail = r.y0 >= main.y1
                && r.y0 as f32 <= main.y1 as f32 + nf * STACKED_GAP
                && r.x0 > main.x0 + quarter
                && r.x0 < main.x1 - quarter;
            r.id == main.id
                || (!r.edge
                    && r.count * PIECE_MIN_SHARE >= main.count
                    && (r.y1 as f32 > main.y0 as f32 + main_h * CORNER_VALUE_TOP
                        || cut[r.id as usize]
                        || stacked)
                    && (central || level || tail)
                    && r.cx() > nf * PIECE_LEFT
                    && r.cx() < nf * PIECE_RIGHT)
        })
        .map(|r| r.id)
        .collect()
}

/// Clears the ink of colours off the line from the face's colour `f` to the ink's `i` (the
/// glyph's and its antialiased rim's), such as a coloured badge's.
fn own_colour_only(crop: &Crop, (f, i): ([f32; 3], [f32; 3]), off: f32, ink_of: &mut [f32]) {
    let axis = [i[0] - f[0], i[1] - f[1], i[2] - f[2]];
    let len2: f32 = axis.iter().map(|a| a * a).sum();
    if len2 < 1.0 {
        return;
    }
    let limit = off * len2.sqrt();
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
