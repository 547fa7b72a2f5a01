//! The tile's crop, resampled, and the measures every stage of reading it shares: the face's
//! lightness, the darkest ink near the middle, mean colours.

use image::RgbaImage;

use crate::colour;

/// The largest side a tile is worked at.
pub(super) const WORK: usize = 112;

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

/// A pixel is ink when at least this much of it is the ink's darkness (halfway: the middle of
/// an antialiased edge).
pub(super) const INK: f32 = 0.5;

/// A resampled square crop: luma and colour.
pub(super) struct Crop {
    pub(super) n: usize,
    pub(super) luma: Vec<f32>,
    pub(super) rgb: Vec<[f32; 3]>,
}

/// Box-averages the square of side `side` centred on `c` into at most `WORK` pixels a side.
/// Each output pixel is the mean of the screen pixels whose box it covers (at least one), so
/// each screen pixel is read once: per output row, each screen row's pixels are summed into
/// their output column.
pub(super) fn crop(img: &RgbaImage, c: (f32, f32), side: f32, work: usize) -> Crop {
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
            luma[j * n + i] = colour::luma(px);
        }
    }
    Crop { n, luma, rgb }
}

/// The most common lightness (histogram mode, smoothed over 2 x `FACE_SMOOTH` + 1 levels).
pub(super) fn face_luma(crop: &Crop) -> f32 {
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

/// The darkest ink near the middle of the crop: the `DARK_PER_MILLE` percentile of its
/// middle's lightness.
pub(super) fn darkest_in_middle(crop: &Crop) -> f32 {
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

/// The mean colour of the crop's pixels within `tol` of lightness `level`, if any.
pub(super) fn mean_colour_near(crop: &Crop, level: f32, tol: f32) -> Option<[f32; 3]> {
    let (mut sum, mut k) = ([0f32; 3], 0);
    for (px, &l) in crop.rgb.iter().zip(&crop.luma) {
        if (l - level).abs() <= tol {
            (0..3).for_each(|i| sum[i] += px[i]);
            k += 1;
        }
    }
    (k > 0).then(|| sum.map(|s| s / k as f32))
}
