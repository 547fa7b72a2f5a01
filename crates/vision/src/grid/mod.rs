//! Finding the 4x4 grid on a screen without knowing the game: a regular lattice of similar,
//! roughly square tiles that stand out from what is between them. Nothing about position or
//! colour is assumed.
//!
//! The screen is shrunk to a working width (box averaging), then for several lightness
//! thresholds the light regions are labelled; regions of tile shape (near square, mostly
//! filled: the glyph makes holes) become candidates. The largest group of candidates of one
//! size whose centres fall into 4 evenly spaced columns and 4 evenly spaced rows is the grid
//! (other rows or columns of such regions, a hand or a row of buttons, are left out).
//! Tiles may be missing from the detections (a highlighted tile, a path line drawn across
//! tiles merges them): the lattice is fitted from those found, and at least
//! `MIN_TILES_SEEN` of 16 must agree. When no threshold gives a grid, the search is run again
//! at half the width on masks whose holes are filled and that are opened by a small square,
//! which cuts a line joining tiles; when a traced path closes a loop, filling every hole
//! would fill the loop too, so a last try fills only holes of a glyph's size (under the side
//! of the tiles the plain masks saw). `find_either` also looks for dark tiles (the same
//! search on the negative: plain masks both ways round before opened masks either way), then
//! tiles of one colour as light as their panel (on how near each pixel is to each of the
//! screen's common colours), then tiles of any colours on a panel of one (on how far each
//! pixel is from each), and last darker thresholds, which find a board dimmed under an
//! overlay; it says which way round the letters are, and moves the lattice onto the middle of
//! its tiles where a threshold cut them off centre (`refine`). When no tiles stand out at all
//! (cream on white, a few levels off a dark panel), the lattice is sought in the letters
//! (`letters`), and its tiles measured across it.

use image::RgbaImage;

use super::bits::Bits;
use super::colour::{byte, distance};
use super::regions::{Region, Runs, Touch};

mod letters;
mod refine;

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
    /// Which way round its letters are: light tiles with dark letters, or dark tiles with
    /// light letters, read on the screen's negative.
    pub polarity: Polarity,
}

impl Grid {
    /// A grid of light tiles given by its tile centres (a profile's) and tile side.
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
            polarity: Polarity::Light,
        }
    }

    /// This grid, its letters `polarity` round.
    pub fn with_polarity(self, polarity: Polarity) -> Grid {
        Grid { polarity, ..self }
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

/// The factor `img` is shrunk by, and the shrunk size.
fn shrunk_size(img: &RgbaImage) -> (usize, usize, usize) {
    let f = (img.width() / WORK_WIDTH).max(1) as usize;
    (f, img.width() as usize / f, img.height() as usize / f)
}

/// Sums each f x f block of `img`'s channels into one output pixel (red, green, blue and
/// alpha, as the screen lays them out), and hands each row of `w` sums to `row` with its
/// index, for `h` rows. The f lines of a block row are first added byte by byte (which
/// vectorises), the first set rather than added to zeros and the rest two at a time (one
/// pass over the sums per two lines), then each block's f pixels four channels at a time,
/// all in `T`, which must hold f x f times 255.
fn block_sums<T>(
    img: &RgbaImage,
    (f, w, h): (usize, usize, usize),
    mut row: impl FnMut(usize, &[[T; 4]]),
) where
    T: Copy + Default + From<u8> + std::ops::AddAssign + std::ops::Add<Output = T>,
{
    let raw = img.as_raw();
    let stride = img.width() as usize * 4;
    let mut columns = vec![[T::default(); 4]; w * f];
    let mut sums = vec![[T::default(); 4]; w];
    for y in 0..h {
        let line = |dy: usize| &raw[(y * f + dy) * stride..][..w * f * 4];
        let flat = columns.as_flattened_mut();
        for (c, &v) in flat.iter_mut().zip(line(0)) {
            *c = T::from(v);
        }
        let mut dy = 1;
        while dy + 1 < f {
            for ((c, &a), &b) in flat.iter_mut().zip(line(dy)).zip(line(dy + 1)) {
                *c += T::from(a) + T::from(b);
            }
            dy += 2;
        }
        if dy < f {
            for (c, &v) in flat.iter_mut().zip(line(dy)) {
                *c += T::from(v);
            }
        }
        // The common block sides with the side known to the compiler, which then adds a
        // block's pixels without a loop: a loop of two to four turns a block took a tenth of
        // a board's grid search.
        match f {
            2 => fold_blocks::<T, 2>(&mut sums, &columns),
            3 => fold_blocks::<T, 3>(&mut sums, &columns),
            4 => fold_blocks::<T, 4>(&mut sums, &columns),
            _ => fold_blocks_of(&mut sums, &columns, f),
        }
        row(y, &sums);
    }
}

/// Each of `sums` the sum of its block of `f` pixels of `columns`, in order.
fn fold_blocks_of<T>(sums: &mut [[T; 4]], columns: &[[T; 4]], f: usize)
where
    T: Copy + Default + std::ops::Add<Output = T>,
{
    for (sum, block) in sums.iter_mut().zip(columns.chunks_exact(f)) {
        *sum = block.iter().fold([T::default(); 4], |s, p| {
            std::array::from_fn(|c| s[c] + p[c])
        });
    }
}

/// `fold_blocks_of` for blocks of `F` pixels.
fn fold_blocks<T, const F: usize>(sums: &mut [[T; 4]], columns: &[[T; 4]])
where
    T: Copy + Default + std::ops::Add<Output = T>,
{
    fold_blocks_of(sums, columns, F);
}

/// Floored quotients by `d` of whole numbers up to `most`, taken by one multiplication and a
/// shift: `n / d` by division would cost an integer division a pixel (and by a multiplication
/// in f64, conversions both ways: the whole shrink took a third longer). With m = ceil(2^s / d),
/// m d = 2^s + e for some e < d, and n m / 2^s = n / d + n e / (d 2^s): while n e < 2^s the
/// error stays under 1 / d, short of the next whole number. s is the bits of `most` and of d
/// together, so that this holds for every n up to `most`. While n m fits in 64 bits (a
/// block's luma up to 91 pixels a side: screens up to 32,000 pixels wide), it is taken in 64,
/// one multiplication where 128 bits take three.
fn floor_quotient(d: u64, most: u64) -> impl Fn(u64) -> u8 {
    let bits = |v: u64| u64::BITS - v.leading_zeros();
    let s = (bits(most) + bits(d)).min(127);
    let m = (1u128 << s).div_ceil(u128::from(d));
    let narrow = bits(most) + (u128::BITS - m.leading_zeros()) <= u64::BITS && s < u64::BITS;
    let m64 = m as u64;
    move |n| {
        if narrow {
            ((n * m64) >> s) as u8
        } else {
            ((u128::from(n) * m) >> s) as u8
        }
    }
}

/// The screen's lightness shrunk, and, with `colours`, its colours shrunk alike (row-major, the
/// same size; empty without), from one pass over the screen.
fn shrink(img: &RgbaImage, colours: bool) -> (Shrunk, Vec<[u8; 3]>) {
    let f = shrunk_size(img).0;
    let area = (f * f) as u64;
    // A channel's mean by table, for every sum a block's channel can have: 255 f^2 + 1
    // entries, fewer than the screen's pixels (at least 360 f x 16 f).
    let means: Vec<u8> = if colours {
        (0..=255 * area)
            .map(floor_quotient(area, 255 * area))
            .collect()
    } else {
        Vec::new()
    };
    // A block's sums in 16 bits while they fit (blocks up to 16 pixels a side: screens up to
    // 6,119 pixels wide), which halves what is added and moved. The table is then padded to
    // every 16-bit sum, so that a sum indexes it without a check: with that, and the rows
    // written from empty rather than into zeros, a shrink takes an eighth fewer instructions.
    if f * f * 255 <= usize::from(u16::MAX) {
        let mut padded = means;
        padded.resize(1 << 16, 0);
        let padded: Box<[u8; 1 << 16]> = padded
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("a table of 2^16 entries"));
        shrink_in::<u16>(img, colours, |v| padded[usize::from(v)])
    } else {
        shrink_in::<u32>(img, colours, |v| means[v as usize])
    }
}

/// `shrink`, a block's sums taken in `T`, a channel's mean by `mean`.
fn shrink_in<T>(img: &RgbaImage, colours: bool, mean: impl Fn(T) -> u8) -> (Shrunk, Vec<[u8; 3]>)
where
    T: Copy + Default + From<u8> + Into<u32> + std::ops::AddAssign + std::ops::Add<Output = T>,
{
    let size @ (f, w, h) = shrunk_size(img);
    // Written row by row, in order, from empty.
    let mut luma = Vec::with_capacity(w * h);
    let mut rgb = Vec::with_capacity(if colours { w * h } else { 0 });
    let area = (f * f) as u64;
    // Rec. 601 luma in thousandths. (No screen is so wide that these overflow: a block's sums
    // would first, past a million pixels across.)
    let luma_of = floor_quotient(1000 * area, 255_000 * area);
    block_sums::<T>(img, size, |_, sums| {
        luma.extend(sums.iter().map(|sum| {
            let [r, g, b] = [0, 1, 2].map(|c| u64::from(sum[c].into()));
            luma_of(299 * r + 587 * g + 114 * b)
        }));
        if colours {
            rgb.extend(sums.iter().map(|sum| [0, 1, 2].map(|c| mean(sum[c]))));
        }
    });
    let s = Shrunk {
        w,
        h,
        luma,
        scale: f as f32,
    };
    (s, rgb)
}

/// `s` at half its size (2x2 means, rounded), an odd last row or column left out. Two rows
/// at a time and pixels in pairs, without an index a pixel: the colour searches halve a mask
/// a colour, and indexed, halving took 52M instructions over five reads of a board found by
/// colour (held-back s2-64), against 12M so.
fn halve(s: &Shrunk) -> Shrunk {
    let (w, h) = (s.w / 2, s.h / 2);
    let mut luma = vec![0u8; w * h];
    if w > 0 {
        for (out, rows) in luma.chunks_exact_mut(w).zip(s.luma.chunks_exact(2 * s.w)) {
            let (a, b) = rows.split_at(s.w);
            for ((o, a), b) in out.iter_mut().zip(a.chunks_exact(2)).zip(b.chunks_exact(2)) {
                let sum = u16::from(a[0]) + u16::from(a[1]) + u16::from(b[0]) + u16::from(b[1]);
                *o = ((sum + 2) / 4) as u8;
            }
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

/// The light regions at `threshold` that have a tile's shape.
fn blobs(s: &Shrunk, threshold: u8, scratch: &mut Scratch) -> Vec<Blob> {
    tile_shaped(s, &Bits::at_least(&s.luma, s.w, s.h, threshold), scratch)
}

/// The regions of `mask` (over `s`) that have a tile's shape.
fn tile_shaped(s: &Shrunk, mask: &Bits, scratch: &mut Scratch) -> Vec<Blob> {
    let w = s.w;
    let min_side = (w as f32 * 0.06).max(4.0);
    let max_side = w as f32 * 0.4;
    let found = mask.regions(Touch::Four, &mut scratch.runs);
    found
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

/// A light mask at a threshold and its holes (the regions of its clear pixels, four-connected)
/// with their runs: what both of the opened searches fill, found once for both. Opened, the
/// mask has its holes filled and is then opened by a square: a light line drawn from tile to
/// tile (a traced path) no wider than the square no longer joins them into one region.
struct Holed {
    mask: Bits,
    holes: Vec<Region>,
    runs: Vec<(usize, usize, usize, usize)>,
}

impl Holed {
    fn of(s: &Shrunk, threshold: u8, scratch: &mut Scratch) -> Holed {
        let mask = Bits::at_least(&s.luma, s.w, s.h, threshold);
        let holes = mask.inverted().regions(Touch::Four, &mut scratch.runs);
        let runs = scratch.runs.each().collect();
        Holed { mask, holes, runs }
    }

    /// The mask with its holes filled (those no larger than `max_hole` a side, when given),
    /// then opened by a square of half-side `r`.
    fn opened(&self, Opening { r, max_hole }: Opening) -> Bits {
        let enclosed: Vec<bool> = (self.holes.iter())
            .map(|h| !h.edge && max_hole.is_none_or(|m| fits(h, m)))
            .collect();
        let mut mask = self.mask.clone();
        for &(hole, y, x0, x1) in &self.runs {
            if enclosed[hole] {
                mask.fill_run(y, x0, x1);
            }
        }
        mask.square(r, true).square(r, false)
    }

    /// Whether every hole the mask encloses is `max_hole` a side or less: filled up to that
    /// size, the mask is then the one with every hole filled.
    fn fills_all(&self, max_hole: usize) -> bool {
        (self.holes.iter()).all(|h| h.edge || fits(h, max_hole))
    }
}

/// Whether `region` is at most `side` a side.
fn fits(region: &Region, side: usize) -> bool {
    region.x1 - region.x0 <= side && region.y1 - region.y0 <= side
}

/// Buffers reused across thresholds.
#[derive(Default)]
struct Scratch {
    runs: Runs,
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

/// At most this many clusters (the most populous) are tried as a lattice's rows or columns.
const MAX_CLUSTERS: usize = 24;

/// Four evenly spaced positions among clusters of blob centres, their pitch within
/// `(least, most)`; (positions, pitch). Clusters off the lattice (a hand, a button, a badge of
/// a tile's size) are left out: the four taken are those, evenly spaced, that hold the most
/// blobs. Requiring exactly four clusters, a pointing hand the size of a tile below the board
/// hid it (the second generator).
fn even_four(c: &[(f32, usize)], (least, most): (f32, f32)) -> Option<([f32; SIDE], f32)> {
    if c.len() < SIDE {
        return None;
    }
    let mut c = c.to_vec();
    if c.len() > MAX_CLUSTERS {
        c.sort_by_key(|p| std::cmp::Reverse(p.1));
        c.truncate(MAX_CLUSTERS);
        c.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    // (blobs held, positions) of the best choice.
    let mut best: Option<(usize, [f32; SIDE])> = None;
    for (i, first) in c.iter().enumerate() {
        for last in c.iter().skip(i + SIDE - 1) {
            let pitch = (last.0 - first.0) / (SIDE - 1) as f32;
            if !(pitch >= least && pitch <= most) {
                continue;
            }
            // The cluster nearest each lattice position, within 12% of the pitch.
            let mut chosen = [first.0; SIDE];
            let mut held = 0;
            let all_near = (0..SIDE).all(|k| {
                let want = first.0 + pitch * k as f32;
                c.iter()
                    .filter(|p| (p.0 - want).abs() <= pitch * 0.12)
                    .min_by(|a, b| (a.0 - want).abs().total_cmp(&(b.0 - want).abs()))
                    .map(|p| {
                        chosen[k] = p.0;
                        held += p.1;
                    })
                    .is_some()
            });
            if all_near && best.as_ref().is_none_or(|b| held > b.0) {
                best = Some((held, chosen));
            }
        }
    }
    let (_, chosen) = best?;
    // Evenly spaced at the pitch of the four chosen, centred on their mean.
    let pitch = (chosen[SIDE - 1] - chosen[0]) / (SIDE - 1) as f32;
    let first = chosen.iter().sum::<f32>() / SIDE as f32 - pitch * 1.5;
    let pos = [0, 1, 2, 3].map(|i| first + pitch * i as f32);
    Some((pos, pitch))
}

/// Fits the lattice to one group of same-size blobs.
fn lattice(group: &[Blob]) -> Option<(Grid, f32)> {
    let mut sizes: Vec<f32> = group.iter().map(|b| (b.w + b.h) / 2.0).collect();
    sizes.sort_by(f32::total_cmp);
    let size = sizes[sizes.len() / 2];
    let tol = size * 0.3;
    // Tiles are at least as wide as the streets between them.
    let pitch = (size * 0.95, size * 1.8);
    let (xs, px) = even_four(&clusters(group.iter().map(|b| b.cx).collect(), tol), pitch)?;
    let (ys, py) = even_four(&clusters(group.iter().map(|b| b.cy).collect(), tol), pitch)?;
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
            polarity: Polarity::Light,
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
    let size = |b: &Blob| (b.w + b.h) / 2.0;
    consider_groups(found, (size, 0.25), MIN_TILES_SEEN, lattice, best);
}

/// For each blob of `found`, the group of those whose `size` is within `same` of its share,
/// fitted by `fit` when it has at least `least` blobs: the best fit, with at least `least`
/// places seen, is kept in `best` when better (more places seen, then less error).
fn consider_groups(
    found: &[Blob],
    (size, same): (impl Fn(&Blob) -> f32, f32),
    least: usize,
    fit: impl Fn(&[Blob]) -> Option<(Grid, f32)>,
    best: &mut Option<(Grid, f32)>,
) {
    for anchor in found {
        let of = size(anchor);
        let group: Vec<Blob> = found
            .iter()
            .filter(|b| (size(b) / of - 1.0).abs() <= same)
            .copied()
            .collect();
        if group.len() < least {
            continue;
        }
        let Some((grid, err)) = fit(&group) else {
            continue;
        };
        let better = match best {
            None => true,
            Some((b, e)) => grid.seen > b.seen || (grid.seen == b.seen && err < *e),
        };
        if grid.seen >= least && better {
            *best = Some((grid, err));
        }
    }
}

/// Finds the 4x4 grid on `img`, or `None` when there is no such lattice (not a board).
pub fn find(img: &RgbaImage) -> Option<Grid> {
    let (s, _) = shrink(img, false);
    if s.w < 16 || s.h < 16 {
        return None;
    }
    let scratch = &mut Scratch::default();
    search(&s, scratch).or_else(|| search_plain(&s, &DIM_THRESHOLDS, scratch))
}

/// Which way round a board's letters are: dark on lighter tiles (what a game draws most), or
/// light on darker tiles, read on the screen's negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Polarity {
    Light,
    Dark,
}

impl Polarity {
    /// The letters' lightness as a profile and `read --json` name it: "dark" on light tiles,
    /// "light" on dark ones.
    pub fn letters(self) -> &'static str {
        match self {
            Polarity::Light => "dark",
            Polarity::Dark => "light",
        }
    }

    /// The polarity whose letters are `name` ("dark" or "light"), if either.
    pub fn of_letters(name: &str) -> Option<Polarity> {
        [Polarity::Light, Polarity::Dark]
            .into_iter()
            .find(|p| p.letters() == name)
    }
}

/// `find`, then, when there is no grid of light tiles, a grid of dark ones (tiles darker than
/// what lies between them: light on the screen's negative), then a grid of tiles of one colour
/// (as light as what lies between them, but of another colour); the grid says which way round
/// the board's letters are to be read (`Grid::polarity`).
pub fn find_either(img: &RgbaImage) -> Option<Grid> {
    // The colours are taken in the same pass: screens that need them would pay another.
    let (s, rgb) = shrink(img, true);
    if s.w < 16 || s.h < 16 {
        return None;
    }
    if let Some((grid, way)) = search_either(&s, &rgb) {
        return Some(refine::centred(&s, &rgb, grid).with_polarity(way));
    }
    // Last, so that no board found by its tiles is found otherwise: its letters.
    let grid = letters::search(&s, &mut Scratch::default())?;
    Some(refine::fitted(&s, &rgb, scaled(&s, grid)))
}

/// The searches of `find_either`, in order, on the shrunk screen and its colours.
fn search_either(s: &Shrunk, rgb: &[[u8; 3]]) -> Option<(Grid, Polarity)> {
    let scratch = &mut Scratch::default();
    let negative = Shrunk {
        luma: s.luma.iter().map(|l| 255 - l).collect(),
        ..*s
    };
    // Plain masks of both ways round before opened ones of either: a board of dark tiles
    // is found on its negative's plain masks without first paying for the light screen's
    // opened ones, which find nothing on it.
    let (light, light_sizes) = search_plain_sized(s, &THRESHOLDS, scratch);
    if let Some(g) = light {
        return Some((g, Polarity::Light));
    }
    let (dark, dark_sizes) = search_plain_sized(&negative, &THRESHOLDS, scratch);
    if let Some(g) = dark {
        return Some((g, Polarity::Dark));
    }
    if let Some(g) = search_opened(s, light_sizes, scratch) {
        return Some((g, Polarity::Light));
    }
    if let Some(g) = search_opened(&negative, dark_sizes, scratch) {
        return Some((g, Polarity::Dark));
    }
    if let Some(found) = by_colour(s, rgb, &[Closeness::Near, Closeness::Far], scratch) {
        return Some(found);
    }
    // Tiles a little lighter than what lies between them: dimmed under an overlay, or dark
    // tiles (whose letters are then lighter still) on a darker panel. Last: only the lighter
    // part of shaded tiles may pass these thresholds, and a grid of half tiles is a grid
    // misplaced (a J cut to an I, read surely, on the second generator).
    search_plain(s, &DIM_THRESHOLDS, scratch).map(|g| {
        let way = letters_way(s, &g);
        (g, way)
    })
}

/// The tile colours tried: the screen's most common colours, at most this many...
const COLOURS_TRIED: usize = 6;
/// ...of which no two are nearer than this (RGB distance)...
const COLOURS_APART: f32 = 48.0;
/// ...each on at least this share of the screen (16 small tiles cover more).
const COLOUR_SHARE: usize = 200;

/// How near a pixel is to a colour, as a mask for the grid search takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Closeness {
    /// Light where the pixel is that colour: tiles of one colour on a panel of another as
    /// light.
    Near,
    /// Light where the pixel is far from it: tiles of any colours on a panel of that colour,
    /// however they are shaded.
    Far,
}

/// A far mask's lightness per unit of colour distance: its thresholds (140-235) take pixels
/// 17.5-29 from the colour, past the JPEG noise of a flat panel.
const FAR_GAIN: f32 = 8.0;

/// A grid of tiles told apart by colour, whatever their lightness: the search is run on how
/// near each pixel is to a colour the screen shows much of (light where it is that colour), for
/// each such colour; then on how far each pixel is from each. Green tiles on a brown panel of
/// the same lightness are no grid in light or dark (the second generator drew a sixth of its
/// boards so), and neither are tiles shaded from lighter than their panel to darker, which
/// only the far masks show whole. `rgb`: the screen's colours as `shrink` gives them.
fn by_colour(
    s: &Shrunk,
    rgb: &[[u8; 3]],
    ways: &[Closeness],
    scratch: &mut Scratch,
) -> Option<(Grid, Polarity)> {
    let colours = common_colours(rgb);
    let planes = Planes::of(rgb);
    for &way in ways {
        for &colour in &colours {
            let mask = Shrunk {
                luma: planes.mask(colour, way),
                ..*s
            };
            // At half the working width and on plain masks alone: most screens have no
            // board, and each colour costs a search (a 480x800 menu took 180 ms at the
            // working width, every mask tried, against 60 ms before colours were).
            if let Some(grid) = search_plain(&halve(&mask), &THRESHOLDS, scratch) {
                let letters = letters_way(s, &grid);
                return Some((grid, letters));
            }
        }
    }
    None
}

/// The shrunk screen's colours a channel at a time, for masks. Over `[u8; 3]` pixels the
/// masks were made a pixel at a time; over three planes, several at once (a 360x800 mask took
/// 0.53 ms, and takes 0.16).
struct Planes([Vec<u8>; 3]);

impl Planes {
    fn of(rgb: &[[u8; 3]]) -> Planes {
        Planes([0, 1, 2].map(|k| rgb.iter().map(|p| p[k]).collect()))
    }

    /// Each pixel's lightness in the mask of how near to `colour` it is, or how far from it
    /// (`FAR_GAIN`): 255 less the colour distance, or the distance times the gain, cut to
    /// 0-255 and truncated.
    fn mask(&self, colour: [f32; 3], way: Closeness) -> Vec<u8> {
        let [r, g, b] = &self.0;
        let d = r
            .iter()
            .zip(g)
            .zip(b)
            .map(|((&r, &g), &b)| distance([r, g, b].map(f32::from), colour));
        match way {
            Closeness::Near => d.map(|d| 255 - byte(d.min(255.0))).collect(),
            Closeness::Far => d.map(|d| byte((d * FAR_GAIN).min(255.0))).collect(),
        }
    }
}

/// The screen's most common colours, most common first, mean colours of 16-level bins.
fn common_colours(rgb: &[[u8; 3]]) -> Vec<[f32; 3]> {
    const BINS: usize = 16 * 16 * 16;
    let mut count = vec![0u32; BINS];
    let mut sum = vec![[0u32; 3]; BINS];
    let bin = |p: &[u8; 3]| {
        (usize::from(p[0] >> 4) << 8) | (usize::from(p[1] >> 4) << 4) | usize::from(p[2] >> 4)
    };
    for p in rgb {
        let b = bin(p);
        count[b] += 1;
        for (s, &v) in sum[b].iter_mut().zip(p) {
            *s += u32::from(v);
        }
    }
    let least = (rgb.len() / COLOUR_SHARE).max(1) as u32;
    let mut bins: Vec<usize> = (0..BINS).filter(|&b| count[b] >= least).collect();
    bins.sort_by_key(|&b| std::cmp::Reverse(count[b]));
    let mut out: Vec<[f32; 3]> = Vec::new();
    for b in bins {
        let mean = sum[b].map(|v| v as f32 / count[b] as f32);
        let apart = |o: &[f32; 3]| distance(*o, mean) >= COLOURS_APART;
        if out.iter().all(apart) {
            out.push(mean);
            if out.len() == COLOURS_TRIED {
                break;
            }
        }
    }
    out
}

/// Whether the letters on `grid`'s tiles are darker than the tiles (read as they are) or
/// lighter (read on the negative): on most tiles, the middle, where the letter is, is darker
/// or lighter on the whole than the rim of the face round it.
fn letters_way(s: &Shrunk, grid: &Grid) -> Polarity {
    let side = grid.tile / s.scale;
    let (middle, rim_in, rim_out) = (side * 0.22, side * 0.3, side * 0.4);
    let darker = grid
        .centres
        .iter()
        .filter(|&&(x, y)| {
            let (cx, cy) = (x / s.scale, y / s.scale);
            let (mut mid, mut rim) = ((0.0, 0.0), (0.0, 0.0));
            let y0 = (cy - rim_out).max(0.0) as usize;
            let x0 = (cx - rim_out).max(0.0) as usize;
            for y in y0..((cy + rim_out) as usize).min(s.h) {
                for x in x0..((cx + rim_out) as usize).min(s.w) {
                    let far = (x as f32 + 0.5 - cx).abs().max((y as f32 + 0.5 - cy).abs());
                    let sum = if far <= middle {
                        &mut mid
                    } else if far >= rim_in {
                        &mut rim
                    } else {
                        continue;
                    };
                    sum.0 += f32::from(s.luma[y * s.w + x]);
                    sum.1 += 1.0;
                }
            }
            mid.1 > 0.0 && rim.1 > 0.0 && mid.0 / mid.1 < rim.0 / rim.1
        })
        .count();
    if darker * 2 >= grid.centres.len() {
        Polarity::Light
    } else {
        Polarity::Dark
    }
}

/// The grid search on a shrunk screen: plain masks, then, when they find none, opened ones.
fn search(s: &Shrunk, scratch: &mut Scratch) -> Option<Grid> {
    let (found, sizes) = search_plain_sized(s, &THRESHOLDS, scratch);
    found.or_else(|| search_opened(s, sizes, scratch))
}

/// The grid search on plain masks at `thresholds`, and the sizes of the tile-shaped regions
/// they showed.
fn search_plain_sized(
    s: &Shrunk,
    thresholds: &[u8],
    scratch: &mut Scratch,
) -> (Option<Grid>, Vec<f32>) {
    // (tiles seen, -mean error) decides.
    let mut best: Option<(Grid, f32)> = None;
    let mut sizes = Vec::new();
    for &t in thresholds {
        let found = blobs(s, t, scratch);
        sizes.extend(found.iter().map(|b| (b.w + b.h) / 2.0));
        consider(&found, &mut best);
    }
    (to_screen(s, best), sizes)
}

/// The grid search on opened masks (slower), for when plain ones find no grid, which is when
/// a traced path's line may have joined too many tiles. They are worked at half the working
/// width (a quarter of the pixels), their blobs brought back to the working scale. `sizes`:
/// the plain masks' tile-shaped regions' sizes.
fn search_opened(s: &Shrunk, mut sizes: Vec<f32>, scratch: &mut Scratch) -> Option<Grid> {
    let mut best: Option<(Grid, f32)> = None;
    let half = halve(s);
    let r = (half.w as f32 * OPENING).round() as usize;
    let k = half.scale / s.scale;
    let holed: Vec<Holed> = (THRESHOLDS.iter())
        .map(|&t| Holed::of(&half, t, scratch))
        .collect();
    let mut opened = |max_hole: Option<usize>, best: &mut Option<(Grid, f32)>| {
        for h in &holed {
            // Its mask would be the one with every hole filled, which showed no lattice
            // (this pass comes only when none did): on three boards found by colour, 2 to 8
            // of their 14 masks.
            if max_hole.is_some_and(|m| h.fills_all(m)) {
                continue;
            }
            let mut found = tile_shaped(&half, &h.opened(Opening { r, max_hole }), scratch);
            for b in &mut found {
                (b.cx, b.cy, b.w, b.h) = (b.cx * k, b.cy * k, b.w * k, b.h * k);
            }
            consider(&found, best);
        }
    };
    opened(None, &mut best);
    // A path that closes a loop encloses the streets inside it, and filling that hole joins
    // every tile in it: holes are then filled only up to a glyph's size, under the side of
    // the tiles the plain masks saw.
    if best.is_none() && !sizes.is_empty() {
        let mid = sizes.len() / 2;
        let size = *sizes.select_nth_unstable_by(mid, f32::total_cmp).1;
        opened(Some((size / k * GLYPH_HOLE) as usize), &mut best);
    }
    to_screen(s, best)
}

/// The grid search on plain masks alone, at `thresholds`.
fn search_plain(s: &Shrunk, thresholds: &[u8], scratch: &mut Scratch) -> Option<Grid> {
    search_plain_sized(s, thresholds, scratch).0
}

/// The best grid found, in the screen's pixels.
fn to_screen(s: &Shrunk, best: Option<(Grid, f32)>) -> Option<Grid> {
    best.map(|(grid, _)| scaled(s, grid))
}

/// `grid`, found in `s`'s working pixels, in the screen's.
fn scaled(s: &Shrunk, mut grid: Grid) -> Grid {
    for c in &mut grid.centres {
        *c = (c.0 * s.scale, c.1 * s.scale);
    }
    grid.pitch = (grid.pitch.0 * s.scale, grid.pitch.1 * s.scale);
    grid.tile *= s.scale;
    grid
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgba;

    /// A floored quotient by multiplication is the integer division's, for every numerator
    /// a block's lightness or colour can have, at block sides 1 to 12, and at the largest
    /// numerators and those next to a multiple of the divisor, for sides up to 4,104 (where
    /// a block's sums stop fitting in 32 bits; from 92, the luma's product takes 128 bits).
    #[test]
    fn a_floored_quotient_is_the_integer_divisions() {
        for f in 1..=12u64 {
            let area = f * f;
            let luma = floor_quotient(1000 * area, 255_000 * area);
            let mean = floor_quotient(area, 255 * area);
            for n in 0..=255_000 * area {
                assert_eq!(u64::from(luma(n)), n / (1000 * area), "f {f}, n {n}");
            }
            for n in 0..=255 * area {
                assert_eq!(u64::from(mean(n)), n / area, "f {f}, n {n}");
            }
        }
        for f in (13..=4_104u64).step_by(3) {
            let area = f * f;
            for (d, most) in [(1000 * area, 255_000 * area), (area, 255 * area)] {
                let q = floor_quotient(d, most);
                for n in (most - 3 * d..=most).rev().step_by(d as usize / 5 + 1) {
                    for n in [n, n - 1, n - n % d, n - n % d - 1, n % d] {
                        assert_eq!(u64::from(q(n)), n / d, "f {f}, n {n}");
                    }
                }
            }
        }
    }

    /// A colour mask made over the planes is the one made a pixel at a time, with the
    /// saturating cast: for every colour of a 7-level lattice (both ends among them) against
    /// screen colours, the common colours of a corpus (means, not whole) among them.
    #[test]
    fn a_mask_over_planes_is_the_mask_made_pixel_by_pixel() {
        let levels = [0u8, 1, 63, 127, 128, 254, 255];
        let rgb: Vec<[u8; 3]> = levels
            .iter()
            .flat_map(|&r| levels.iter().flat_map(move |&g| levels.map(|b| [r, g, b])))
            .collect();
        let planes = Planes::of(&rgb);
        let colours = [
            [0.0, 0.0, 0.0],
            [255.0, 255.0, 255.0],
            [121.37, 8.5, 250.99],
        ];
        for colour in rgb.iter().map(|p| p.map(f32::from)).chain(colours) {
            for way in [Closeness::Near, Closeness::Far] {
                let one_by_one: Vec<u8> = rgb
                    .iter()
                    .map(|&p| {
                        let d = distance(p.map(f32::from), colour);
                        match way {
                            Closeness::Near => 255 - d.min(255.0) as u8,
                            Closeness::Far => (d * FAR_GAIN).min(255.0) as u8,
                        }
                    })
                    .collect();
                assert_eq!(planes.mask(colour, way), one_by_one, "{colour:?} {way:?}");
            }
        }
        for x in [0.0, 0.49, 0.5, 0.99, 1.0, 127.5, 254.999, 255.0] {
            assert_eq!(byte(x), x as u8, "{x}");
        }
    }

    /// The shrunk screen is each block's mean lightness and colours, floored, as integer
    /// division gives them: on random screens whose blocks are 1-4 pixels a side and 16 (the
    /// last summed in 16 bits) and 17 (in 32), each with a ragged edge left over.
    #[test]
    fn a_shrunk_screen_is_each_blocks_floored_means() {
        let mut rng = crate::sample::Rng::new(49);
        for f in [1u32, 2, 3, 4, 16, 17] {
            let (w, h) = (WORK_WIDTH * f + rng.below(f as usize) as u32, 17 * f + 2);
            let mut img = RgbaImage::new(w, h);
            for v in img.as_mut() {
                // Mostly the extremes, so that blocks reach the largest sums.
                *v = match rng.below(3) {
                    0 => 255,
                    1 => rng.below(256) as u8,
                    _ => 254,
                };
            }
            let (s, rgb) = shrink(&img, true);
            let f = f as usize;
            assert_eq!(
                (s.w, s.h, rgb.len()),
                (w as usize / f, h as usize / f, s.w * s.h)
            );
            let area = (f * f) as u64;
            for (i, (&l, &c)) in s.luma.iter().zip(&rgb).enumerate() {
                let (bx, by) = (i % s.w * f, i / s.w * f);
                let mut sum = [0u64; 3];
                for y in by..by + f {
                    for x in bx..bx + f {
                        let p = img.get_pixel(x as u32, y as u32).0;
                        for (s, v) in sum.iter_mut().zip(p) {
                            *s += u64::from(v);
                        }
                    }
                }
                let luma = (299 * sum[0] + 587 * sum[1] + 114 * sum[2]) / (1000 * area);
                assert_eq!(u64::from(l), luma, "f {f}, block {i}");
                assert_eq!(c.map(u64::from), sum.map(|v| v / area), "f {f}, block {i}");
            }
        }
    }

    /// A halved screen is each 2x2 block's rounded mean, at every size, odd ones (whose last
    /// row or column is left out) and those too small to halve among them.
    #[test]
    fn a_halved_screen_is_each_blocks_rounded_mean() {
        let mut rng = crate::sample::Rng::new(50);
        for (w, h) in [(0, 0), (1, 5), (5, 1), (2, 2), (7, 9), (64, 33), (361, 800)] {
            let luma: Vec<u8> = (0..w * h).map(|_| rng.below(256) as u8).collect();
            let s = Shrunk {
                w,
                h,
                luma,
                scale: 3.0,
            };
            let half = halve(&s);
            assert_eq!((half.w, half.h, half.scale), (w / 2, h / 2, 6.0));
            assert_eq!(half.luma.len(), half.w * half.h);
            for (i, &got) in half.luma.iter().enumerate() {
                let (x, y) = (i % half.w * 2, i / half.w * 2);
                let at = |dx: usize, dy: usize| u32::from(s.luma[(y + dy) * w + x + dx]);
                let sum = at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1);
                assert_eq!(u32::from(got), (sum + 2) / 4, "{w}x{h}, pixel {i}");
            }
        }
    }

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
        let s = shrink(&img, false).0;
        let mut scratch = Scratch::default();
        assert!(blobs(&s, 140, &mut scratch).len() > MAX_BLOBS);
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
        let s = shrink(&img, false).0;
        let mut scratch = Scratch::default();
        let mut plain = None;
        for t in THRESHOLDS {
            consider(&blobs(&s, t, &mut scratch), &mut plain);
        }
        assert!(plain.is_none(), "the plain masks already found {plain:?}");
    }

    #[test]
    fn a_tile_sized_shape_off_the_board_does_not_hide_the_grid() {
        // A light disc of about a tile's size below the board (a pointing hand, a button)
        // makes a fifth row of tile-shaped regions: the lattice is the four rows and columns
        // that hold the most of them, evenly spaced.
        let (mut img, want) = screen(false, false);
        let (cx, cy, r) = (200.0f32, 1100.0f32, 58.0f32);
        for y in (cy - r) as u32..(cy + r) as u32 {
            for x in (cx - r) as u32..(cx + r) as u32 {
                if (x as f32 - cx).hypot(y as f32 - cy) <= r {
                    img.put_pixel(x, y, Rgba([230, 230, 230, 255]));
                }
            }
        }
        let grid = find(&img).expect("no grid");
        for (got, want) in grid.centres.iter().zip(want) {
            let off = ((got.0 - want.0).powi(2) + (got.1 - want.1).powi(2)).sqrt();
            assert!(off < 8.0, "{got:?} for {want:?}");
        }
        // Five rows where four are wanted: exactly four clusters were needed before.
        let rows = [415.0, 565.0, 715.0, 865.0, 1100.0].map(|y| (y, 4));
        let (ys, pitch) =
            even_four(&rows, (130.0 * 0.95, 130.0 * 1.8)).expect("four rows among five");
        assert_eq!(
            (ys.map(|y| y.round()), pitch),
            ([415.0, 565.0, 715.0, 865.0], 150.0)
        );
        assert!(
            even_four(&rows[1..], (130.0 * 0.95, 130.0 * 1.8)).is_none(),
            "three rows and a stray"
        );
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
        let half = halve(&shrink(&img, false).0);
        let r = (half.w as f32 * OPENING).round() as usize;
        let mut scratch = Scratch::default();
        let mut filled = None;
        for t in THRESHOLDS {
            let opening = Opening { r, max_hole: None };
            let opened = Holed::of(&half, t, &mut scratch).opened(opening);
            consider(&tile_shaped(&half, &opened, &mut scratch), &mut filled);
        }
        assert!(
            filled.is_none(),
            "every hole filled already found {filled:?}"
        );
    }

    /// Tiles shaded from lighter than their grey panel to darker, in another hue: every
    /// lightness threshold cuts them, and no one colour covers them; apart from the panel's
    /// colour they stand whole.
    #[test]
    fn tiles_shaded_across_their_panels_lightness_are_found_by_how_far_from_it_they_are() {
        let (img, want) =
            refine::tests::shaded([128, 128, 128], ([230, 200, 120], [60, 40, 10]), 1);
        let (s, rgb) = shrink(&img, true);
        let scratch = &mut Scratch::default();
        let near = by_colour(&s, &rgb, &[Closeness::Near], scratch);
        assert_eq!(near, None, "found by near colours");
        let grid = find_either(&img).expect("a grid");
        assert!(refine::tests::off(&grid, &want) <= 4.0, "{grid:?}");
    }
}
