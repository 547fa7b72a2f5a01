//! Reading a board off a screen: for each tile of a grid, the main glyph (not the corner value,
//! not a bonus badge), what letter it is and how sure that is, and the badge's bonus if any.
//!
//! A tile is cropped and resampled to at most `WORK` pixels a side. Its face is the most common
//! lightness; ink is what is darker than the face by at least half of the darkest contrast near
//! the middle (a path line drawn over a tile is lighter than the face, so it is not ink). The
//! main glyph is the largest ink region near the middle, joined by the regions in the middle of
//! the tile or level with it that reach below its top fifth (the "u" of "Qu", pieces of a letter
//! cut by a path line); a corner value, which sits above it, and regions touching the crop's
//! edge are left out.
//!
//! A badge is a strongly coloured region in a corner of the tile (it may stick out of it); its
//! two letters, lighter than the badge, are read with the same classifier restricted to D or T,
//! then L or W.

use image::RgbaImage;

use super::glyph::{Classifier, Features, Ink, Verdict};
use super::grid::Grid;
use super::regions::{Region, Touch, label};
use crate::score::Bonus;

/// The largest side a tile is worked at.
const WORK: usize = 112;
/// Share of the tile's side that is cropped.
const CROP: f32 = 0.92;
/// Faces darker than this (luma) are not tiles in play (a dimmed overlay, a disabled board).
const MIN_FACE: f32 = 110.0;
/// Glyphs with less contrast than this against their face are not read.
const MIN_CONTRAST: f32 = 45.0;

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
    #[error("the tiles are dimmed (face lightness {0:.0} of 255): an overlay covers the board")]
    Dimmed(f32),
}

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
    let n = (side.round() as usize).clamp(8, work);
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
            luma[j * n + i] = 0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2];
        }
    }
    Crop { n, luma, rgb }
}

/// The most common lightness (histogram mode, smoothed over 9 levels).
fn face_luma(crop: &Crop) -> f32 {
    let mut hist = [0u32; 256];
    for &l in &crop.luma {
        hist[l.round().clamp(0.0, 255.0) as usize] += 1;
    }
    let smooth = |i: usize| -> u32 { hist[i.saturating_sub(4)..=(i + 4).min(255)].iter().sum() };
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
    // The darkest ink near the middle (the 1.5th percentile of the central 60%: a thin I in a
    // small size covers 2% of it).
    let mut middle: Vec<f32> = Vec::new();
    let (m0, m1) = (n / 5, n - n / 5);
    for y in m0..m1 {
        for x in m0..m1 {
            middle.push(crop.luma[y * n + x]);
        }
    }
    let k = middle.len() * 15 / 1000;
    let dark = *middle.select_nth_unstable_by(k, f32::total_cmp).1;
    let contrast = face - dark;
    if contrast < MIN_CONTRAST {
        return TileGlyph::blank(face);
    }
    let amount = |l: f32| ((face - l) / contrast).clamp(0.0, 1.0);
    // The face's and the ink's colours (the mean colours near their lightness), found when
    // first needed: most tiles have neither a veil nor a badge touching the glyph.
    let tol = (contrast * 0.1).max(3.0);
    let found_palette = std::cell::OnceCell::new();
    let palette = || {
        *found_palette.get_or_init(|| {
            mean_colour_near(&crop, face, tol).zip(mean_colour_near(&crop, dark, tol))
        })
    };
    // Ink amount per pixel, seen through a light veil where there is one.
    let mut ink_of: Vec<f32> = crop.luma.iter().map(|&l| amount(l)).collect();
    let veil = unveil(&crop, face, &palette, &amount, &mut ink_of);
    let (mut labels, mut stack) = (Vec::new(), Vec::new());
    let mut found = label(
        |p| ink_of[p] >= 0.5,
        n,
        n,
        Touch::Eight,
        &mut labels,
        &mut stack,
    );
    let nf = n as f32;
    let near_middle =
        |r: &Region| (r.cx() - nf / 2.0).abs() < nf * 0.25 && (r.cy() - nf / 2.0).abs() < nf * 0.25;
    // The glyph reaching the crop's edge is a glyph joined to something else: a bonus badge
    // or a highlight in another colour. Only ink of the glyph's own colour is kept then.
    if found
        .iter()
        .filter(|r| near_middle(r))
        .max_by_key(|r| r.count)
        .is_some_and(|r| r.edge)
        && let Some(palette) = palette()
    {
        own_colour_only(&crop, palette, &mut ink_of);
        found = label(
            |p| ink_of[p] >= 0.5,
            n,
            n,
            Touch::Eight,
            &mut labels,
            &mut stack,
        );
    }
    let Some(main) = found
        .iter()
        .filter(|r| !r.edge && near_middle(r))
        .max_by_key(|r| r.count)
        .copied()
    else {
        return TileGlyph::blank(face);
    };
    // The rest of the glyph: regions in the middle of the tile that reach below the top fifth
    // of the main region (a corner value sits above it), or level with it (the u of Qu).
    let main_h = (main.y1 - main.y0) as f32;
    // Regions the veil touches are pieces of a glyph it cuts, wherever they lie.
    let mut cut = vec![false; found.len() + 1];
    if let Some(v) = &veil {
        for (&l, &b) in labels.iter().zip(&v.band) {
            if b {
                cut[l as usize] = true;
            }
        }
    }
    let keep: Vec<u32> = found
        .iter()
        .filter(|r| {
            let central =
                (r.cx() - nf / 2.0).abs() < nf * 0.3 && (r.cy() - nf / 2.0).abs() < nf * 0.3;
            let level = r.cy() >= main.y0 as f32 && r.cy() <= main.y1 as f32;
            // Right on top of the main region and within its width: the glyph's upper part,
            // cut off by a line (a corner value lies beside the glyph, not over it).
            let stacked =
                r.x0 >= main.x0 && r.x1 <= main.x1 && r.y1 as f32 + nf * 0.05 >= main.y0 as f32;
            r.id == main.id
                || (!r.edge
                    && r.count * 50 >= main.count
                    && (r.y1 as f32 > main.y0 as f32 + main_h * 0.2
                        || cut[r.id as usize]
                        || stacked)
                    && (central || level)
                    && r.cx() > nf * 0.08
                    && r.cx() < nf * 0.92)
        })
        .map(|r| r.id)
        .collect();
    // Too short for a letter (a speck, a dash): no glyph. The kept pieces count together, as
    // a veil may cut the main one short.
    let (top, bottom) = found
        .iter()
        .filter(|r| keep.contains(&r.id))
        .fold((usize::MAX, 0), |(t, b), r| (t.min(r.y0), b.max(r.y1)));
    if ((bottom - top) as f32) < nf * 0.15 {
        return TileGlyph::blank(face);
    }
    // The glyph is veiled when ink was found under the veil or the veil touches what is kept.
    let hidden = veil
        .filter(|v| v.hid_ink || keep.iter().any(|&id| cut[id as usize]))
        .map(|v| v.band);
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
fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
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

/// `mask` eroded twice then dilated twice: what is thinner than about five pixels goes.
fn open_twice(mask: &[bool], n: usize) -> Vec<bool> {
    let eroded = morph(&morph(mask, n, true), n, true);
    morph(&morph(&eroded, n, false), n, false)
}

/// A veil found over a tile.
struct Veil {
    /// Where it lies, grown by two pixels.
    band: Vec<bool>,
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
fn unveil(
    crop: &Crop,
    face: f32,
    palette: &dyn Fn() -> Option<([f32; 3], [f32; 3])>,
    amount: &dyn Fn(f32) -> f32,
    ink_of: &mut [f32],
) -> Option<Veil> {
    let n = crop.n;
    let clear = (face + 10.0).min(250.0);
    let mut light: Vec<f32> = crop.luma.iter().copied().filter(|&l| l > clear).collect();
    if light.len() * 30 < n * n {
        return None;
    }
    // The veil's lightness: the upper quartile of what is lighter than the face (a textured
    // face has a tail of light pixels too, but not as light as the veil).
    let k = light.len() * 3 / 4;
    let veil = *light.select_nth_unstable_by(k, f32::total_cmp).1;
    let alpha = (veil - face) / (255.0 - face);
    if veil < face + 12.0 || !(0.2..0.95).contains(&alpha) {
        return None;
    }
    // Where the veil lies: the veiled face, and what the veiled face sandwiches along a line
    // (a stroke the veil crosses: veiled face on both sides, no more than a stroke's width
    // apart along the veil, in one of the four directions).
    let mut veiled_face: Vec<bool> = crop
        .luma
        .iter()
        .map(|&l| l > face + 6.0 && (l - veil).abs() <= 12.0)
        .collect();
    // Only sizeable stretches: stray pixels of that lightness (texture, noise) would sandwich
    // wedges of face between them and the veil.
    let (mut labels, mut stack) = (Vec::new(), Vec::new());
    let stretches = label(
        |p| veiled_face[p],
        n,
        n,
        Touch::Eight,
        &mut labels,
        &mut stack,
    );
    let sizeable: Vec<bool> = std::iter::once(false)
        .chain(stretches.iter().map(|r| r.count * 300 >= n * n))
        .collect();
    for (v, &l) in veiled_face.iter_mut().zip(&labels) {
        *v = sizeable[l as usize];
    }
    let mut band = sandwiched(&veiled_face, n, (n as f32 * 0.3) as u32);
    // And veiled ink that nothing sandwiches (where the line ends on a stroke): next to the
    // veiled face, a plateau of the colour the veil gives the darkest ink, thicker than a
    // glyph's antialiased rim (when that colour is unlike both the face's and the veil's: in
    // colour, as blue ink under a white veil can be as light as a green face).
    let veiled = |c: [f32; 3]| c.map(|v| v * (1.0 - alpha) + 255.0 * alpha);
    // (face, veiled ink) colours when the veiled ink can be told from the face.
    let unlike_face = palette()
        .map(|(f, i)| (f, veiled(i)))
        .filter(|&(f, vi)| distance(vi, f) > 30.0);
    if let Some((f, veiled_ink)) = unlike_face
        && distance(veiled_ink, veiled(f)) > 30.0
    {
        let plateau: Vec<bool> = crop
            .rgb
            .iter()
            .map(|&c| distance(c, veiled_ink) <= 20.0)
            .collect();
        let plateau = open_twice(&plateau, n);
        let mut near = veiled_face.clone();
        for _ in 0..n / 10 {
            near = morph(&near, n, false);
        }
        for ((b, &p), &c) in band.iter_mut().zip(&plateau).zip(&near) {
            *b |= p && c;
        }
    }
    let unblended = |l: f32| amount((l - alpha * 255.0) / (1.0 - alpha));
    // In the band, a pixel of the face's own colour is bare face (a concave corner of the
    // line sandwiches some), unless the veil makes ink look like the face.
    let bare = |c: [f32; 3]| unlike_face.is_some_and(|(f, _)| distance(c, f) <= 12.0);
    let under: Vec<bool> = crop
        .luma
        .iter()
        .zip(&crop.rgb)
        .zip(&band)
        .map(|((&l, &c), &b)| ((b && !bare(c)) || l > face + 6.0) && unblended(l) >= 0.5)
        .collect();
    let opened = open_twice(&under, n);
    // Ink found under the veil, a few pixels at least (else the "veil" may be a light texture
    // or bevel, or a line over bare face).
    let mut found = 0;
    for (p, &o) in opened.iter().enumerate() {
        if o && under[p] {
            let a = unblended(crop.luma[p]);
            if ink_of[p] < 0.5 && a >= 0.5 {
                found += 1;
            }
            ink_of[p] = ink_of[p].max(a);
        }
    }
    for _ in 0..2 {
        band = morph(&band, n, false);
    }
    Some(Veil {
        band,
        hid_ink: found * 2000 >= n * n,
    })
}

/// Looks for a bonus badge at the corners of the tile centred on `c` and reads its letters.
pub fn tile_badge(
    img: &RgbaImage,
    c: (f32, f32),
    tile: f32,
    classifier: &Classifier,
) -> Option<Bonus> {
    // A wider crop: badges may stick out of the tile.
    let side = tile * 1.2;
    let crop = crop(img, c, side, 160);
    let n = crop.n;
    let chroma = |p: [f32; 3]| {
        let max = p[0].max(p[1]).max(p[2]);
        let min = p[0].min(p[1]).min(p[2]);
        max - min
    };
    // The face's colour (the median of the pixels of the most common lightness) and the
    // colour around the tile (see below), per channel.
    let median = |mut v: Vec<[f32; 3]>| -> [f32; 3] {
        let mut out = [0.0; 3];
        let k = v.len() / 2;
        for (ch, o) in out.iter_mut().enumerate() {
            *o = v
                .select_nth_unstable_by(k, |a, b| a[ch].total_cmp(&b[ch]))
                .1[ch];
        }
        out
    };
    let common = face_luma(&crop);
    let mut common_px = Vec::new();
    let mut border = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let p = crop.rgb[y * n + x];
            if (crop.luma[y * n + x] - common).abs() <= 8.0 {
                common_px.push(p);
            }
            if x == 0 || y == 0 || x + 1 == n || y + 1 == n {
                border.push(p);
            }
        }
    }
    let face = median(common_px);
    let far =
        |p: [f32; 3], q: [f32; 3]| (0..3).map(|c| (p[c] - q[c]).powi(2)).sum::<f32>() > 70.0 * 70.0;
    let nf = n as f32;
    // What lies around the tile: the gap beside the middle of each of its sides (badges sit
    // at corners), where the gap is wide enough to show; else the crop's border. (The border
    // alone can be the neighbours' faces, and a badge sticking out into the gap would then
    // join the gap into one region.)
    let half = tile * nf / side / 2.0;
    let mid = (nf - 1.0) / 2.0;
    // Crop cells [a, b) along an axis, from offsets relative to the middle.
    let span = |from: f32, to: f32| {
        let cell = |d: f32| (mid + d).clamp(0.0, nf) as usize;
        cell(from)..cell(to)
    };
    let (beside, outside) = (span(-half * 0.5, half * 0.5), half + 1.0);
    let mut gap = Vec::new();
    // Every other cell each way is plenty for a median, at a quarter of the cost.
    for along in beside.step_by(2) {
        for out in span(-nf, -outside)
            .chain(span(outside + 1.0, nf))
            .step_by(2)
        {
            for p in [out * n + along, along * n + out] {
                if far(crop.rgb[p], face) {
                    gap.push(crop.rgb[p]);
                }
            }
        }
    }
    let around = if gap.len() >= n / 8 {
        median(gap)
    } else {
        median(border)
    };
    // A badge: a sizeable region of a vivid colour unlike the face, whose centre lies in a
    // corner quarter of the tile. First among colours unlike what surrounds the tile too (a
    // badge may stick out into the gap); failing that, among all, for a badge of the gap's own
    // colour, which the face around it sets apart, and then its centre must lie on the tile
    // (a neighbour's corner in the crop's corner is no badge). Eroded once, which cuts the
    // thin antialiased rim of the tile (a blend of the two, often vivid too).
    let (mut vivid, mut unlike_around) = (vec![false; n * n], vec![false; n * n]);
    for (p, &c) in crop.rgb.iter().enumerate() {
        vivid[p] = chroma(c) > 50.0 && far(c, face);
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
                let corner = (r.cx() < nf * 0.38 || r.cx() > nf * 0.62)
                    && (r.cy() < nf * 0.38 || r.cy() > nf * 0.62);
                let on_tile = (r.cx() - mid).abs() < half && (r.cy() - mid).abs() < half;
                corner
                    && (anywhere || on_tile)
                    && w > nf * 0.12
                    && h > nf * 0.08
                    && w < nf * 0.5
                    && h < nf * 0.5
                    && r.count as f32 > 0.4 * w * h
            })
            .max_by_key(|r| r.count)
    };
    let badge = match find(&unlike_around, true) {
        Some(b) => Some(b),
        None => {
            // Only worth a second look when the tile's corners hold enough pixels of the gap's
            // colour for half the smallest badge (most tiles have no badge). Not counting the
            // tile's outer 7%, where its own rounded corners show the gap.
            let inner = half * 0.86;
            let corners = || span(-inner, -nf * 0.12).chain(span(nf * 0.12 + 1.0, inner));
            let gap_coloured = corners()
                .flat_map(|y| corners().map(move |x| y * n + x))
                .filter(|&p| vivid[p] && !unlike_around[p])
                .count();
            let smallest = 0.4 * (nf * 0.12) * (nf * 0.08);
            if (gap_coloured as f32) < smallest / 2.0 {
                return None;
            }
            find(&vivid, false)
        }
    };
    let badge = badge?;
    // Its letters: light pixels inside the badge's box that the badge surrounds.
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
    let badge_luma = (0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]) / k;
    let (bw, bh) = (bx1 - bx0, by1 - by0);
    // Letters are what is lighter than halfway from the badge to the lightest of what it
    // leaves uncovered in its box (its letters, or the face at its rounded corners). Not
    // "not the badge's colour": a thin stroke blended with the badge (a small badge, a
    // downscaled crop) is vivid too, and the badge region swallows it.
    let mut lumas: Vec<f32> = (by0..by1)
        .flat_map(|y| (bx0..bx1).map(move |x| (x, y)))
        .filter(|&(x, y)| labels[y * n + x] != badge.id)
        .map(|(x, y)| crop.luma[y * n + x])
        .collect();
    let light = if lumas.is_empty() {
        255.0
    } else {
        let k = (lumas.len() * 95 / 100).min(lumas.len() - 1);
        *lumas.select_nth_unstable_by(k, f32::total_cmp).1
    };
    let threshold = (badge_luma + light.max(badge_luma + 60.0)) / 2.0;
    let mut text = vec![false; bw * bh];
    for y in by0..by1 {
        for x in bx0..bx1 {
            text[(y - by0) * bw + (x - bx0)] = crop.luma[y * n + x] > threshold;
        }
    }
    // The two largest light regions of the box, not touching its edge, left to right.
    let mut text_labels = Vec::new();
    let mut letters: Vec<Region> = label(
        |p| text[p],
        bw,
        bh,
        Touch::Eight,
        &mut text_labels,
        &mut stack,
    )
    .into_iter()
    .filter(|r| !r.edge && (r.y1 - r.y0) as f32 >= bh as f32 * 0.2)
    .collect();
    letters.sort_by_key(|r| std::cmp::Reverse(r.count));
    letters.truncate(2);
    letters.sort_by_key(|r| r.x0);
    // Each letter as (its region's id, its columns). Two letters that touch (a T's bar reaching
    // the W, at small sizes) come as one region wider than tall: they are cut apart at the
    // column with the least of it, in its middle.
    let parts: [(u32, std::ops::Range<usize>); 2] = match letters.as_slice() {
        [a, b] => [(a.id, a.x0..a.x1), (b.id, b.x0..b.x1)],
        [a] if a.x1 - a.x0 >= a.y1 - a.y0 => {
            let w = a.x1 - a.x0;
            let column = |x: usize| {
                (a.y0..a.y1)
                    .filter(|&y| text_labels[y * bw + x] == a.id)
                    .count()
            };
            let cut = (a.x0 + w * 3 / 10..=a.x0 + w * 7 / 10).min_by_key(|&x| column(x))?;
            [(a.id, a.x0..cut), (a.id, cut + 1..a.x1)]
        }
        _ => return None,
    };
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
}

/// How much of its confidence a glyph under a veil keeps.
const VEILED_TRUST: f32 = 0.5;

/// How far off the face-to-ink colour line (as a share of its length) a pixel may be and still
/// count as the glyph's ink when its colour decides.
const OFF_COLOUR: f32 = 0.2;

/// Confidence below which a tile is not trusted.
pub const SURE: f32 = 0.15;

impl Reading {
    /// True when every tile is read with at least `SURE` confidence.
    pub fn sure(&self) -> bool {
        self.tiles.iter().all(|t| t.confidence >= SURE)
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
        None => super::grid::find(img).ok_or(NotABoard::NoGrid)?,
    };
    let tiles = read_tiles(img, &grid, classifier, threads)?;
    Ok(Reading { grid, tiles })
}

/// Reads one tile: its glyph's face lightness, and what is on it.
fn read_tile(
    img: &RgbaImage,
    c: (f32, f32),
    tile: f32,
    classifier: &Classifier,
) -> (f32, TileRead) {
    let glyph = tile_glyph(img, c, tile);
    let features = glyph
        .ink
        .as_ref()
        .and_then(|ink| Features::partly_hidden(ink, glyph.hidden.as_deref()));
    let in_sight = features.as_ref().map_or(1.0, Features::share_in_sight);
    let verdict = features.and_then(|f| classifier.classify(&f, &[]));
    let Verdict {
        tile: letter,
        confidence,
        runner_up,
        ..
    } = verdict.unwrap_or(Verdict {
        tile: 0,
        confidence: 0.0,
        runner_up: 0,
        distance: f32::INFINITY,
    });
    // What a veil hides cannot be seen: a glyph under one is trusted half as much (a stroke
    // lost under the line can turn one letter into another at a fair distance), and less the
    // more of it is hidden.
    let confidence = if glyph.hidden.is_some() {
        confidence * VEILED_TRUST * in_sight
    } else {
        confidence
    };
    let read = TileRead {
        tile: letter,
        confidence,
        runner_up,
        bonus: tile_badge(img, c, tile, classifier),
    };
    (glyph.face, read)
}

/// Reads each tile of `grid` on `img`, the tiles shared among `threads` threads (the tiles are
/// independent; the answer does not depend on the split).
fn read_tiles(
    img: &RgbaImage,
    grid: &Grid,
    classifier: &Classifier,
    threads: usize,
) -> Result<Vec<TileRead>, NotABoard> {
    let per = grid.centres.len().div_ceil(threads.clamp(1, 16));
    let read_chunk = |chunk: &[(f32, f32)]| -> Vec<(f32, TileRead)> {
        chunk
            .iter()
            .map(|&c| read_tile(img, c, grid.tile, classifier))
            .collect()
    };
    let done: Vec<(f32, TileRead)> = if per >= grid.centres.len() {
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
    let mut faces: Vec<f32> = done.iter().map(|d| d.0).collect();
    let out: Vec<TileRead> = done.into_iter().map(|d| d.1).collect();
    faces.sort_by(f32::total_cmp);
    let median = faces[faces.len() / 2];
    if median < MIN_FACE {
        return Err(NotABoard::Dimmed(median));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
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
        let rgba = |c: [u8; 3]| Rgba([c[0], c[1], c[2], 255]);
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
}
