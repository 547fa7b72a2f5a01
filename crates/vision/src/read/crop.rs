//! The tile's crop, resampled, and the measures every stage of reading it shares: the face's
//! lightness, the darkest ink near the middle, mean colours.

use image::RgbaImage;

use crate::colour::{self, median};

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

/// The cells of a crop: `n` a side, and along each axis the screen span [a, b) each cell
/// averages (at least one pixel, clamped to the screen).
struct Cells {
    n: usize,
    xs: Vec<(usize, usize)>,
    ys: Vec<(usize, usize)>,
}

/// The cells of the square of side `side` centred on `c`, at most `work` a side.
fn cells(img: &RgbaImage, c: (f32, f32), side: f32, work: usize) -> Cells {
    let n = cells_across(side, work);
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
    Cells {
        n,
        xs: spans(c.0 - side / 2.0, i64::from(img.width())),
        ys: spans(c.1 - side / 2.0, i64::from(img.height())),
    }
}

/// How many cells a side a crop of side `side` has, at most `work`.
pub(super) fn cells_across(side: f32, work: usize) -> usize {
    (side.round() as usize).clamp(MIN_CROP, work)
}

/// Box-averages the square of side `side` centred on `c` into at most `WORK` pixels a side.
/// Each output pixel is the mean of the screen pixels whose box it covers (at least one), so
/// each screen pixel is read once: per output row, each screen row's pixels are summed into
/// their output column.
pub(super) fn crop(img: &RgbaImage, c: (f32, f32), side: f32, work: usize) -> Crop {
    let cells = cells(img, c, side, work);
    // A cell's rows are added in 16 bits while they fit (at most 257 rows a cell: any crop
    // but a vast one), twice as many at a time as in 32.
    let rows = cells.ys.iter().map(|&(a, b)| b - a).max().unwrap_or(0);
    if rows * 255 <= usize::from(u16::MAX) {
        crop_in::<u16>(img, cells)
    } else {
        crop_in::<u32>(img, cells)
    }
}

/// A cell's channel sums below this are whole numbers an f32 holds exactly, however they are
/// converted: a signed conversion is one instruction (four at a time), an unsigned one a
/// sequence of them.
const EXACT_IN_F32: usize = 1 << 24;

/// `crop` of `cells`, a cell's rows added in `T`.
fn crop_in<T>(img: &RgbaImage, Cells { n, xs, ys }: Cells) -> Crop
where
    T: Copy + Default + From<u8> + Into<u32> + std::ops::AddAssign + std::ops::Add<Output = T>,
{
    let raw = img.as_raw();
    let stride = img.width() as usize * 4;
    // Every cell is written once, in order.
    let mut luma = Vec::with_capacity(n * n);
    let mut rgb = Vec::with_capacity(n * n);
    // The largest sum a cell's channel can have: while below `EXACT_IN_F32`, the sums are
    // converted as signed numbers, to the same floats.
    let most = |spans: &[(usize, usize)]| spans.iter().map(|&(a, b)| b - a).max().unwrap_or(0);
    let signed = most(&xs) * most(&ys) * 255 < EXACT_IN_F32;
    // The screen columns the crop covers: each output row's screen rows are first added
    // column by column, byte by byte (which vectorises), then run along the row, four
    // channels at a time (the fourth, alpha, unused): a cell's sums are the run at its right
    // edge less the run at its left, whatever its width. The runs wrap past 2^32 as the
    // cell's own sums would.
    let (left, right) = (xs[0].0, xs[n - 1].1.max(xs[0].0));
    let mut columns = vec![T::default(); (right - left) * 4];
    let mut runs = vec![[0u32; 4]; right - left + 1];
    // Each cell's column span as places in `runs`, and its width.
    let spans: Vec<(usize, usize, usize)> = (xs.iter())
        .map(|&(xa, xb)| (xa - left, xb - left, xb - xa))
        .collect();
    for &(ya, yb) in &ys {
        // The first line set rather than added to zeros, the rest two at a time: one pass
        // over the sums per two lines.
        let line = |y: usize| &raw[y * stride + left * 4..y * stride + right * 4];
        if ya < yb {
            for (c, &v) in columns.iter_mut().zip(line(ya)) {
                *c = T::from(v);
            }
        } else {
            columns.fill(T::default());
        }
        let mut y = ya + 1;
        while y + 1 < yb {
            for ((c, &a), &b) in columns.iter_mut().zip(line(y)).zip(line(y + 1)) {
                *c += T::from(a) + T::from(b);
            }
            y += 2;
        }
        if y < yb {
            for (c, &v) in columns.iter_mut().zip(line(y)) {
                *c += T::from(v);
            }
        }
        let mut run = [0u32; 4];
        for (r, p) in runs[1..].iter_mut().zip(columns.chunks_exact(4)) {
            for (s, &v) in run.iter_mut().zip(p) {
                *s = s.wrapping_add(v.into());
            }
            *r = run;
        }
        let rows = yb - ya;
        let start = rgb.len();
        if signed {
            // Fewer pixels than the sums' bound: the count converts exactly either way. An
            // empty cell's sums are nothing, and taken over one it is black, as below.
            rgb.extend(spans.iter().map(|&(a, b, width)| {
                let (a, b) = (runs[a], runs[b]);
                let k = (width * rows).max(1) as i32 as f32;
                let q: [f32; 4] =
                    std::array::from_fn(|c| b[c].wrapping_sub(a[c]) as i32 as f32 / k);
                [q[0], q[1], q[2]]
            }));
        } else {
            rgb.extend(spans.iter().map(|&(a, b, width)| {
                let (a, b) = (runs[a], runs[b]);
                let count = width * rows;
                if count == 0 {
                    [0.0; 3]
                } else {
                    [0, 1, 2].map(|c| b[c].wrapping_sub(a[c]) as f32 / count as f32)
                }
            }));
        }
        luma.extend(rgb[start..].iter().map(|&px| colour::luma(px)));
    }
    Crop { n, luma, rgb }
}

/// Whether the crop `crop(img, c, side, work)` may have `need` cells whose channels spread
/// by more than `spread` (`colour`'s chroma), told from the screen's pixels without the crop.
/// A cell's mean spreads by no more than the most any of its pixels does (the spread, a
/// maximum less a minimum, is convex), so such a cell has a pixel spreading by more than
/// `spread` less the mean's rounding: for whole channels, by at least `spread` rounded down.
/// Each such pixel makes at most as many such cells as cover it (one, unless the cells are
/// smaller than a pixel).
pub(super) fn may_spread(
    img: &RgbaImage,
    (c, side, work): ((f32, f32), f32, usize),
    spread: f32,
    need: usize,
) -> bool {
    let Cells { n, xs, ys } = cells(img, c, side, work);
    let per_pixel = most_cover(&xs) * most_cover(&ys);
    let least = spread.floor().clamp(0.0, 255.0) as u8;
    let raw = img.as_raw();
    let stride = img.width() as usize * 4;
    let (left, right) = (xs[0].0, xs[n - 1].1.max(xs[0].0));
    let mut found = 0;
    for y in ys[0].0..ys[n - 1].1.max(ys[0].0) {
        let row = &raw[y * stride + left * 4..y * stride + right * 4];
        found += row
            .chunks_exact(4)
            .filter(|p| p[0].max(p[1]).max(p[2]) - p[0].min(p[1]).min(p[2]) >= least)
            .count()
            * per_pixel;
        if found >= need {
            return true;
        }
    }
    false
}

/// The most spans any one pixel lies in.
fn most_cover(spans: &[(usize, usize)]) -> usize {
    let Some(end) = spans.iter().map(|s| s.1).max() else {
        return 0;
    };
    let mut starts = vec![0i64; end + 1];
    for &(a, b) in spans.iter().filter(|s| s.0 < s.1) {
        starts[a] += 1;
        starts[b] -= 1;
    }
    let mut open = 0;
    starts
        .iter()
        .map(|d| {
            open += d;
            open
        })
        .max()
        .unwrap_or(0) as usize
}

/// The whole level nearest `l` (halves up), 0 to 255: `l.round().clamp(0.0, 255.0)`, NaN to
/// 0 as a cast takes it. Clamped first (`max` takes a NaN to 0) and rounded by parts, which
/// vectorises: `round` rounds halves away from zero, which no vector instruction does, and a
/// cast to an integer saturates; each took a sequence of instructions per value (the whole
/// part is taken as `colour::byte` takes it).
pub(super) fn level(l: f32) -> u8 {
    // Not `clamp`, which keeps a NaN (and its payload, which the low byte would then show).
    #[allow(clippy::manual_clamp)]
    let c = l.max(0.0).min(255.0);
    colour::byte(c) + u8::from(c - c.trunc() >= 0.5)
}

/// The most common lightness (histogram mode, smoothed over 2 x `FACE_SMOOTH` + 1 levels).
pub(super) fn face_luma(crop: &Crop) -> f32 {
    commonest_luma(&crop.luma)
}

/// `face_luma` of the lightnesses `luma`.
pub(super) fn commonest_luma(luma: &[f32]) -> f32 {
    // Counted into four histograms in turn, then added: a face's cells fall in a few bins,
    // and each count waited on the one before it in the same bin.
    // The bins are worked out first, all alike (which vectorises).
    let bins: Vec<u8> = luma.iter().map(|&l| level(l)).collect();
    let mut hists = [[0u32; 256]; 4];
    let mut fours = bins.chunks_exact(4);
    for four in &mut fours {
        for (hist, &b) in hists.iter_mut().zip(four) {
            hist[usize::from(b)] += 1;
        }
    }
    for &b in fours.remainder() {
        hists[0][usize::from(b)] += 1;
    }
    let hist: [u32; 256] = std::array::from_fn(|i| hists.iter().map(|h| h[i]).sum());
    let smooth = |i: usize| -> u32 {
        hist[i.saturating_sub(FACE_SMOOTH)..=(i + FACE_SMOOTH).min(255)]
            .iter()
            .sum()
    };
    (0..256).max_by_key(|&i| smooth(i)).unwrap_or(0) as f32
}

/// The cells of the ring just inside the crop's rim (`RIM`) this wide, as a share of the side.
const RING: f32 = 0.05;

/// The median lightness of the ring just inside the crop's rim: the face's, taken where no
/// letter reaches. On a face shaded so widely that no lightness of it is common, the
/// commonest (`face_luma`) can be the ink's.
pub(super) fn ring_luma(crop: &Crop) -> Option<f32> {
    let n = crop.n;
    let inner = rim_inside(n);
    let width = ((n as f32 * RING).ceil() as usize).max(1);
    let ring = |i: usize| i < inner.start + width || i + width >= inner.end;
    let cells: Vec<f32> = (0..n * n)
        .filter(|&p| {
            let (x, y) = (p % n, p / n);
            inner.contains(&x) && inner.contains(&y) && (ring(x) || ring(y))
        })
        .map(|p| crop.luma[p])
        .collect();
    median(cells)
}

/// The darkest ink near the middle of the crop: the `DARK_PER_MILLE` percentile of its
/// middle's lightness.
pub(super) fn darkest_in_middle(crop: &Crop) -> f32 {
    let n = crop.n;
    let (m0, m1) = (n / MIDDLE_FROM_EDGE, n - n / MIDDLE_FROM_EDGE);
    let middle = (m0..m1).flat_map(|y| crop.luma[y * n + m0..y * n + m1].iter().copied());
    // A crop is at least `MIN_CROP` a side: its middle is never empty.
    colour::select(middle, |len| len * DARK_PER_MILLE / 1000).unwrap_or(0.0)
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

/// The crop's rim, this share of its side each way, is the tile's edge and the panel beyond
/// (rounded corners, a bevel, jigsaw notches), not its face: the face's shading is measured
/// inside it, and no veil (nor an edge of one) is looked for on it; a path line crosses the
/// tile's middle. Measured on the second generator: on a face shaded 60 levels from top to
/// bottom, a panel darker than the top (or lighter than a darker top) met the face all along
/// the rim in edges as crisp as a line's, and the shading was unveiled as a band of ink
/// across the letter.
const RIM: f32 = 0.1;

/// Which cells of an n x n crop lie inside its rim (`RIM`), row-major.
pub(super) fn inside_rim(n: usize) -> Vec<bool> {
    let inner = rim_inside(n);
    let mut out = vec![false; n * n];
    for row in out.chunks_exact_mut(n).take(inner.end).skip(inner.start) {
        row[inner.clone()].fill(true);
    }
    out
}

/// The rows (or columns) of an n x n crop inside its rim (`RIM`).
fn rim_inside(n: usize) -> std::ops::Range<usize> {
    let rim = (n as f32 * RIM).ceil() as usize;
    rim..n.saturating_sub(rim)
}

/// A row (or column) counts towards the shading when at least this share of its cells in the
/// middle are face (lighter than halfway from the darkest ink to the face).
const SHADE_MIN_FACE: f32 = 0.25;

/// The face's lightness falls along a straight line, row by row (or column by column), when
/// nine in ten rows lie within this many levels of it (JPEG and noise move a row's median by
/// one or two).
const SHADE_FIT: f32 = 4.0;

/// A face that changes less than this across the crop is taken as flat: a veil lifts the face
/// by at least 12 levels (`veil::MIN_VEIL_LIFT`), and shading this faint cannot pass for one.
const MIN_SHADE: f32 = 16.0;

/// The shaded face is taken at least this far from the ink and from white where it is brought
/// level.
const SHADE_MIN_CONTRAST: f32 = 10.0;

/// The straight line that the medians `m[i]` (absent where `None`) follow, when they follow
/// one: its slope, 0 when they change by less than `MIN_SHADE` across `span` cells; `None`
/// when they follow no straight line (`SHADE_FIT`) or too few tell. Rows off the line a robust
/// first fit finds (a decoration or a coloured trail across a third of them) are left out of
/// the second, as long as two in three are kept.
fn shade_slope(m: &[Option<f32>], span: f32) -> Option<f32> {
    let pts: Vec<(f32, f32)> = m
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i as f32, v)))
        .collect();
    if pts.len() < 8 {
        return None;
    }
    let (a, b) = robust_line(&pts);
    let kept: Vec<(f32, f32)> = pts
        .iter()
        .copied()
        .filter(|p| (p.1 - (a + b * p.0)).abs() <= SHADE_FIT)
        .collect();
    if kept.len() * 3 < pts.len() * 2 {
        return None;
    }
    let (a, b) = fit_line(&kept);
    let mut off: Vec<f32> = kept.iter().map(|p| (p.1 - (a + b * p.0)).abs()).collect();
    off.sort_by(f32::total_cmp);
    if off[(off.len() * 9 / 10).min(off.len() - 1)] > SHADE_FIT {
        None
    } else if (b * span).abs() < MIN_SHADE {
        Some(0.0)
    } else {
        Some(b)
    }
}

/// The Theil-Sen line through `pts` (at least two): the median of the slopes between pairs,
/// and the median intercept at it. A third of the points off the line move it little.
fn robust_line(pts: &[(f32, f32)]) -> (f32, f32) {
    let mut slopes = Vec::with_capacity(pts.len() * pts.len() / 2);
    for (i, p) in pts.iter().enumerate() {
        for q in &pts[i + 1..] {
            if q.0 != p.0 {
                slopes.push((q.1 - p.1) / (q.0 - p.0));
            }
        }
    }
    let b = median(slopes).unwrap_or(0.0);
    let a = median(pts.iter().map(|p| p.1 - b * p.0)).unwrap_or(0.0);
    (a, b)
}

/// The least-squares line `y = a + b * x` through `pts` (at least two).
fn fit_line(pts: &[(f32, f32)]) -> (f32, f32) {
    let k = pts.len() as f32;
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f32>() / k,
        pts.iter().map(|p| p.1).sum::<f32>() / k,
    );
    let sxx: f32 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f32 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let b = sxy / sxx.max(f32::EPSILON);
    (my - b * mx, b)
}

/// Brings a face shaded evenly from one side to the other (a gradient: lighter at the top,
/// darker at the bottom) level, as its lightness in the middle, keeping the ink's darkness
/// and white: each pixel darker than its own place's face is moved along the line from the
/// darkest ink, each lighter one along the line to white. Every later stage takes one
/// lightness for the face; on a face whose top is 60 levels lighter than its bottom, the top
/// read as a light veil over the face (a traced path's line), and unveiling it drew bands of
/// ink across the tile. The shading is measured on the medians of
/// the face's rows and columns in the middle of the crop, and taken as a shading only where
/// they fall along a straight line one way and are level the other (`shade_slope`): a line
/// drawn over the tile, a radial sheen or a bevel are not so, and are left as they are.
/// `face` and `dark` are the crop's face lightness (`face_luma`) and darkest ink
/// (`darkest_in_middle`); says whether it changed the crop (a face found shaded and brought
/// level), after which those are to be found again.
pub(super) fn flatten_from(crop: &mut Crop, face: f32, dark: f32) -> bool {
    let n = crop.n;
    if face - dark < SHADE_MIN_CONTRAST * 2.0 {
        return false;
    }
    let cut = dark + (face - dark) / 2.0;
    let inner = rim_inside(n);
    if inner.len() < 8 {
        return false;
    }
    let need = (inner.len() as f32 * SHADE_MIN_FACE) as usize;
    let middle = (n as f32 - 1.0) / 2.0;
    // The medians of the face's rows (`down`) or columns, each cell first taken `slope` per
    // cell off along the other way; none for a row with too little face.
    let medians = |down: bool, slope: f32| -> Vec<Option<f32>> {
        let mut keys = Vec::with_capacity(n);
        inner
            .clone()
            .map(|a| {
                let cells = inner.clone().map(|b| {
                    let (y, x) = if down { (a, b) } else { (b, a) };
                    let l = crop.luma[y * n + x];
                    // A face cell stays one; the slope is taken off its lightness alone.
                    if l > cut {
                        l - slope * (b as f32 - middle)
                    } else {
                        l
                    }
                });
                let face = cells.filter(|&l| l > cut);
                colour::select_in(&mut keys, face, |len| len / 2)
                    .filter(|_| keys.len() >= need.max(1))
            })
            .collect()
    };
    let span = n as f32;
    // Shaded one way, the face is level the other once that shading is taken off: a line
    // drawn across the tile (or a sheen) is not.
    let shading = |down: bool| -> Option<f32> {
        let b = shade_slope(&medians(down, 0.0), span).filter(|&b| b != 0.0)?;
        (shade_slope(&medians(!down, b), span) == Some(0.0)).then_some(b)
    };
    let (by, bx) = if let Some(by) = shading(true) {
        (by, 0.0)
    } else if let Some(bx) = shading(false) {
        (0.0, bx)
    } else {
        return false;
    };
    let level = |y: usize, x: usize| by * (y as f32 - middle) + bx * (x as f32 - middle);
    // The face in the middle, where the shading is taken to be nothing.
    let Some(centre) = median(
        inner
            .clone()
            .flat_map(|y| inner.clone().map(move |x| (y, x)))
            .map(|(y, x)| crop.luma[y * n + x] - level(y, x))
            .filter(|&l| l > cut),
    ) else {
        return false;
    };
    for y in 0..n {
        for x in 0..n {
            let here = centre + level(y, x);
            // Darker than the face here: moved along the line from the darkest ink, which
            // stays. Lighter: along the line to white, which stays, so that a translucent
            // white line over the face keeps its opacity.
            let to_ink = (centre - dark) / (here - dark).max(SHADE_MIN_CONTRAST);
            let to_white = (255.0 - centre) / (255.0 - here).max(SHADE_MIN_CONTRAST);
            let p = y * n + x;
            let map = |v: f32| {
                if crop.luma[p] <= here {
                    dark + (v - dark) * to_ink
                } else {
                    255.0 - (255.0 - v) * to_white
                }
                .clamp(0.0, 255.0)
            };
            crop.rgb[p] = crop.rgb[p].map(map);
            crop.luma[p] = map(crop.luma[p]);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crop as its doc states it, cell by cell: the mean of each channel over the cell's
    /// pixels (their sum divided by their count, as f32), and its luma.
    fn crop_by_cell(img: &RgbaImage, cells: Cells) -> Crop {
        let mut out = Crop {
            n: cells.n,
            luma: Vec::new(),
            rgb: Vec::new(),
        };
        for &(ya, yb) in &cells.ys {
            for &(xa, xb) in &cells.xs {
                let mut sum = [0u32; 3];
                for y in ya..yb {
                    for x in xa..xb {
                        let p = img.get_pixel(x as u32, y as u32).0;
                        (0..3).for_each(|c| sum[c] += u32::from(p[c]));
                    }
                }
                let k = ((xb - xa) * (yb - ya)) as f32;
                let px = if k == 0.0 {
                    [0.0; 3]
                } else {
                    sum.map(|s| s as f32 / k)
                };
                out.rgb.push(px);
                out.luma.push(colour::luma(px));
            }
        }
        out
    }

    /// A crop is each cell's mean, to the bit, however its sums are taken: random screens of
    /// bright pixels (the largest sums), cropped at sides up to 3,000 pixels (cells of over
    /// 257 rows take 32 bits, cells of over 65,792 pixels sums past `EXACT_IN_F32`) and off
    /// the screen's edges (cells of no pixel).
    #[test]
    fn a_crop_is_each_cells_mean() {
        let mut rng = scramblebot_core::sample::Rng::new(43);
        let mut img = RgbaImage::new(400, 380);
        for v in img.as_mut() {
            *v = 255 - rng.below(8) as u8;
        }
        let bits = |c: &Crop| {
            let rgb: Vec<u32> = c.rgb.iter().flatten().map(|v| v.to_bits()).collect();
            let luma: Vec<u32> = c.luma.iter().map(|v| v.to_bits()).collect();
            (c.n, rgb, luma)
        };
        let (mut wide, mut vast, mut empty) = (0, 0, 0);
        for round in 0..90 {
            let c = (rng.below(440) as f32 - 20.0, rng.below(420) as f32 - 20.0);
            let side = 4.0 + rng.below(30_000) as f32 / 10.0;
            let work = [8, 20, 112][round % 3];
            let cells = cells(&img, c, side, work);
            let most = |s: &[(usize, usize)]| s.iter().map(|&(a, b)| b - a).max().unwrap_or(0);
            wide += usize::from(most(&cells.ys) > 257);
            vast += usize::from(most(&cells.xs) * most(&cells.ys) * 255 >= EXACT_IN_F32);
            let spans = cells.xs.iter().chain(&cells.ys);
            empty += usize::from(spans.clone().any(|&(a, b)| a == b));
            let want = crop_by_cell(&img, cells);
            assert_eq!(
                bits(&crop(&img, c, side, work)),
                bits(&want),
                "{c:?} {side}"
            );
        }
        assert!(wide > 0 && vast > 0 && empty > 0, "{wide} {vast} {empty}");
    }

    /// `level` is `round`, clamped, for every kind of float: a stride through every bit
    /// pattern (NaNs, infinities, subnormals, both signs), and every float within 64 steps
    /// of each half level from -1 to 256.
    #[test]
    fn a_level_is_the_value_rounded_and_clamped() {
        let want = |l: f32| l.round().clamp(0.0, 255.0) as i32 as u8;
        let mut checked = 0;
        for bits in (0..=u32::MAX).step_by(997) {
            let l = f32::from_bits(bits);
            assert_eq!(level(l), want(l), "{l:e} ({bits:#x})");
            checked += 1;
        }
        for half in -2..=512 {
            let at = half as f32 / 2.0;
            for d in -64i32..=64 {
                let l = f32::from_bits(at.to_bits().wrapping_add_signed(d));
                assert_eq!(level(l), want(l), "{l:e}");
            }
        }
        assert!(checked > 4_000_000);
    }

    /// `may_spread` says no only where the crop has fewer cells spreading by more than the
    /// spread than asked: on random screens of greys with a few vivid pixels, and screens
    /// whose every pixel spreads by exactly the spread (the rounding's edge), cropped at many
    /// sides (cells smaller than a pixel among them) and off the screen's edge. And it does
    /// say no on many.
    #[test]
    fn may_spread_says_no_only_where_the_crop_has_too_few_vivid_cells() {
        let mut rng = scramblebot_core::sample::Rng::new(41);
        let spread = 50.0;
        let mut said_no = 0;
        for round in 0..300 {
            let mut img = RgbaImage::new(60, 50);
            let vivid = rng.below(40);
            // A quarter of the screens spread by exactly the spread everywhere: a mean of
            // such pixels is rounded above it at times (151/3 - 1/3 is 50.000004 in f32).
            let edge = round % 4 == 3;
            for p in img.pixels_mut() {
                let grey = rng.below(if edge { 200 } else { 256 }) as u8;
                p.0 = [grey, grey + if edge { 50 } else { 0 }, grey, 255];
            }
            for _ in 0..vivid {
                let (x, y) = (rng.below(60) as u32, rng.below(50) as u32);
                let base = rng.below(200) as u8;
                let lift = if rng.below(2) == 0 {
                    50
                } else {
                    51 + rng.below(5) as u8
                };
                img.put_pixel(
                    x,
                    y,
                    image::Rgba([base, base.saturating_add(lift), base, 255]),
                );
            }
            let c = (rng.below(70) as f32 - 5.0, rng.below(60) as f32 - 5.0);
            let side = 4.0 + rng.below(700) as f32 / 10.0;
            let work = [8, 20, 160][round % 3];
            let need = 1 + rng.below(4);
            let cells = crop(&img, c, side, work)
                .rgb
                .iter()
                .filter(|p| p[0].max(p[1]).max(p[2]) - p[0].min(p[1]).min(p[2]) > spread)
                .count();
            let may = may_spread(&img, (c, side, work), spread, need);
            assert!(
                may || cells < need,
                "round {round}: {cells} vivid cells of {need} asked, at {c:?} side {side}"
            );
            said_no += usize::from(!may);
        }
        assert!(said_no > 60, "said no on {said_no} of 300");
    }

    /// `flatten_from` with the crop's own face and ink.
    fn flatten(crop: &mut Crop) -> bool {
        let (face, dark) = (face_luma(crop), darkest_in_middle(crop));
        flatten_from(crop, face, dark)
    }

    /// A crop of side 100 whose face falls from `top` to `bottom` lightness, with a dark bar
    /// (lightness 30) down its middle and, when `band`, a white line of opacity 0.5 across
    /// rows 40-59.
    fn shaded(top: f32, bottom: f32, band: bool) -> Crop {
        let n = 100;
        let luma: Vec<f32> = (0..n * n)
            .map(|p| {
                let (x, y) = (p % n, p / n);
                let face = top + (bottom - top) * y as f32 / (n - 1) as f32;
                let l = if (45..55).contains(&x) && (20..80).contains(&y) {
                    30.0
                } else {
                    face
                };
                if band && (40..60).contains(&y) {
                    l * 0.5 + 127.5
                } else {
                    l
                }
            })
            .collect();
        let rgb = luma.iter().map(|&l| [l; 3]).collect();
        Crop { n, luma, rgb }
    }

    #[test]
    fn a_face_shaded_top_to_bottom_is_brought_level_and_the_ink_kept() {
        let mut c = shaded(240.0, 180.0, false);
        assert!(flatten(&mut c), "a shaded face is changed");
        let at = |c: &Crop, x: usize, y: usize| c.luma[y * c.n + x];
        // The face: level from top to bottom, at its middle's lightness.
        for y in [12, 50, 88] {
            assert!(
                (at(&c, 20, y) - 210.0).abs() < 2.0,
                "row {y}: {}",
                at(&c, 20, y)
            );
        }
        // The ink keeps its darkness.
        assert!((at(&c, 50, 30) - 30.0).abs() < 1.0);
        assert!((at(&c, 50, 70) - 30.0).abs() < 1.0);
        // A flat face is left as it is, and so is a face with a line across it (its rows
        // follow no straight line).
        for crop in [shaded(210.0, 210.0, false), shaded(210.0, 210.0, true)] {
            let before = crop.luma.clone();
            let mut after = crop;
            assert!(!flatten(&mut after), "nothing to bring level");
            assert_eq!(after.luma, before);
        }
    }
}
