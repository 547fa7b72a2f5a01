//! A glyph's ink map and its `Features`: the ink box stretched to a `SIDE` x `SIDE` grid of
//! ink amounts, softened by one cell, centred and scaled to unit length (so stroke weight and
//! size drop out), plus the box's aspect ratio, the four side profiles and the number of
//! enclosed counters; and the distance between two glyphs' features. Both classifiers, the
//! nearest reference (`glyph`) and the network (`net`), start from these.

use std::sync::LazyLock;

use super::regions::{Region, Runs, Touch, label};

/// The side of the feature grid.
pub const SIDE: usize = 16;

const CELLS: usize = SIDE * SIDE;

/// The side of the fine grid the cells and profiles are taken from.
pub(super) const FINE: usize = 2 * SIDE;

/// Weight of each counter more or less.
const HOLE_WEIGHT: f32 = 0.5;

/// Weight of the mean profile difference in the distance.
const PROFILE_WEIGHT: f32 = 4.0;

/// Weight of the squared log aspect-ratio difference in the distance.
pub(super) const ASPECT_WEIGHT: f32 = 0.6;

/// How much less a hidden cell counts in the correlation: what unblending recovers under a
/// path line is worth keeping a little of (30%), not as much as what is in sight.
const HIDDEN_DISCOUNT: f32 = 0.7;

/// Length of `Features::vector`.
pub const INPUTS: usize = CELLS + 4 * FINE + 3 + 1;

/// A rectangle of ink amounts, row-major.
#[derive(Clone, Debug)]
pub struct Ink {
    pub w: usize,
    pub h: usize,
    pub v: Vec<f32>,
}

impl Ink {
    pub fn new(w: usize, h: usize) -> Ink {
        Ink {
            w,
            h,
            v: vec![0.0; w * h],
        }
    }

    /// The ink at (x, y), bilinearly between pixels' centres, none outside the map.
    pub fn bilinear(&self, x: f32, y: f32) -> f32 {
        let (x0, y0) = (x.floor(), y.floor());
        let (fx, fy) = (x - x0, y - y0);
        let get = |xi: f32, yi: f32| {
            if xi < 0.0 || yi < 0.0 || xi >= self.w as f32 || yi >= self.h as f32 {
                0.0
            } else {
                self.v[yi as usize * self.w + xi as usize]
            }
        };
        let top = get(x0, y0) * (1.0 - fx) + get(x0 + 1.0, y0) * fx;
        let bottom = get(x0, y0 + 1.0) * (1.0 - fx) + get(x0 + 1.0, y0 + 1.0) * fx;
        top * (1.0 - fy) + bottom * fy
    }

    /// The map resampled (bilinearly) to n x n; itself when it is n x n already.
    pub fn resized(&self, n: usize) -> Ink {
        if self.w == n && self.h == n {
            return self.clone();
        }
        let mut out = Ink::new(n, n);
        let (kx, ky) = (self.w as f32 / n as f32, self.h as f32 / n as f32);
        for y in 0..n {
            for x in 0..n {
                let (sx, sy) = ((x as f32 + 0.5) * kx - 0.5, (y as f32 + 0.5) * ky - 0.5);
                out.v[y * n + x] = self.bilinear(sx.max(0.0), sy.max(0.0));
            }
        }
        out
    }

    /// The box holding every pixel with at least half ink: (x0, y0, x1, y1), exclusive ends.
    pub fn ink_box(&self) -> Option<(usize, usize, usize, usize)> {
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for y in 0..self.h {
            for x in 0..self.w {
                if self.v[y * self.w + x] >= 0.5 {
                    x0 = x0.min(x);
                    y0 = y0.min(y);
                    x1 = x1.max(x + 1);
                    y1 = y1.max(y + 1);
                }
            }
        }
        (x0 < x1).then_some((x0, y0, x1, y1))
    }
}

/// A glyph box at least this much wider than tall can hold two letters (Q and u joined by the
/// Q's tail); no single capital in a bold face comes near it but W and M, which a Qu is far from.
const WIDE_FOR_ONE: f32 = 1.15;

/// The share of a glyph's ink each side of a clear column must hold for them to be two letters.
pub(super) const SIDE_SHARE: f32 = 0.12;

impl Ink {
    /// Whether the ink can be two letters side by side (a Qu tile's Q and u): a column free of
    /// ink splits it into two substantial parts, or its box is wider than one letter's. A tile
    /// with one glyph is never Qu, however much its O or G looks like a Q.
    pub fn maybe_two_letters(&self) -> bool {
        let Some((x0, y0, x1, y1)) = self.ink_box() else {
            return false;
        };
        let (bw, bh) = ((x1 - x0) as f32, (y1 - y0) as f32);
        if bw >= bh * WIDE_FOR_ONE {
            return true;
        }
        let columns: Vec<f32> = (x0..x1)
            .map(|x| (y0..y1).map(|y| self.v[y * self.w + x]).sum())
            .collect();
        let total: f32 = columns.iter().sum();
        let mut left = 0.0;
        for (k, &c) in columns.iter().enumerate() {
            // A clear column: less ink than a tenth of a pixel's worth per row.
            if c < 0.1 && left >= total * SIDE_SHARE {
                let right: f32 = columns[k..].iter().sum();
                if right >= total * SIDE_SHARE {
                    return true;
                }
            }
            left += c;
        }
        false
    }
}

/// Counts the regions without ink inside the box that do not reach its edge and hold at
/// least 1/150 of its area (smaller ones are noise).
pub(super) fn holes(ink: &Ink, (x0, y0, x1, y1): (usize, usize, usize, usize)) -> u8 {
    let w = x1 - x0;
    let n = counters(
        |p| ink.v[(y0 + p / w) * ink.w + x0 + p % w] < 0.5,
        w,
        y1 - y0,
    )
    .len();
    n.min(u8::MAX as usize) as u8
}

/// The counters of a w x h box whose cells `empty` says are free of ink: the regions of
/// them (4-connected, as the ink is 8-connected) that do not reach the box's edge and hold at
/// least 1/150 of its area (smaller ones are noise), with boxes in its cells.
pub(crate) fn counters(empty: impl Fn(usize) -> bool, w: usize, h: usize) -> Vec<Region> {
    let min = (w * h / 150).max(2);
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    label(empty, w, h, Touch::Four, &mut labels, &mut runs)
        .into_iter()
        .filter(|r| !r.edge && r.count >= min)
        .collect()
}

/// How far along `line` (indices into the fine grid, from one side inwards) the ink starts, as
/// a share of the side; 1 when there is none.
pub(super) fn inset(fine: &[f32], line: &[u16; FINE]) -> f32 {
    line.iter()
        .position(|&k| fine[usize::from(k)] >= 0.5)
        .map_or(1.0, |p| p as f32 / FINE as f32)
}

/// Sub-samples a side of a fine grid's point: each point is the mean of 2x2.
const SUB: usize = 2;

/// The ink of the box (x0, y0, width, height) of `ink` stretched to a `FINE` x `FINE` grid,
/// each point the mean of 2x2 bilinear samples.
///
/// Worked as `Ink::bilinear` works, in two steps: the samples' columns are fixed, so each map
/// row a sample needs is interpolated across them once (rows shared by neighbouring samples
/// once between them), and each sample is then between two such rows. The values are those of
/// `Ink::bilinear` to the bit: the same products, added in the same order.
fn fine_grid(ink: &Ink, (x0, y0, bw, bh): (usize, usize, f32, f32)) -> [f32; FINE * FINE] {
    const N: usize = FINE * SUB;
    // A sample's position on one axis: the pixel before it and how far past that pixel.
    let at = |start: usize, span: f32, i: usize| {
        let p = start as f32 + (i as f32 + 0.5) / N as f32 * span - 0.5;
        (p.floor(), p - p.floor())
    };
    let columns: [(f32, f32); N] = std::array::from_fn(|i| at(x0, bw, i));
    // Map row `r` (a float, which may lie outside) interpolated at every sample's column.
    let across = |r: f32, out: &mut [f32; N]| {
        if r < 0.0 || r >= ink.h as f32 {
            out.fill(0.0);
            return;
        }
        let row = &ink.v[r as usize * ink.w..][..ink.w];
        let get = |xi: f32| {
            if xi < 0.0 || xi >= ink.w as f32 {
                0.0
            } else {
                row[xi as usize]
            }
        };
        for (o, &(c, fx)) in out.iter_mut().zip(&columns) {
            *o = get(c) * (1.0 - fx) + get(c + 1.0) * fx;
        }
    };
    let (mut top, mut bottom) = ([0f32; N], [0f32; N]);
    let mut rows_at = f32::NAN;
    let mut samples = [[0f32; N]; SUB];
    let mut fine = [0f32; FINE * FINE];
    for fy in 0..FINE {
        for (sy, line) in samples.iter_mut().enumerate() {
            let (r, fyr) = at(y0, bh, fy * SUB + sy);
            if r != rows_at {
                if r == rows_at + 1.0 {
                    top = bottom;
                } else {
                    across(r, &mut top);
                }
                across(r + 1.0, &mut bottom);
                rows_at = r;
            }
            for (l, (&t, &b)) in line.iter_mut().zip(top.iter().zip(&bottom)) {
                *l = t * (1.0 - fyr) + b * fyr;
            }
        }
        for fx in 0..FINE {
            let mut sum = 0.0;
            for line in &samples {
                for sample in &line[fx * SUB..(fx + 1) * SUB] {
                    sum += sample;
                }
            }
            fine[fy * FINE + fx] = sum / (SUB * SUB) as f32;
        }
    }
    fine
}

/// The `SIDE` x `SIDE` cells of a fine grid: each the mean of its 2x2 points.
fn coarse(fine: &[f32; FINE * FINE]) -> [f32; CELLS] {
    let mut raw = [0f32; CELLS];
    for cy in 0..SIDE {
        for cx in 0..SIDE {
            let f = |dx: usize, dy: usize| fine[(cy * 2 + dy) * FINE + cx * 2 + dx];
            raw[cy * SIDE + cx] = (f(0, 0) + f(1, 0) + f(0, 1) + f(1, 1)) / 4.0;
        }
    }
    raw
}

/// The fine grid's lines a profile is taken along, each from the side inwards: rows from the
/// left, rows from the right, columns from the top, columns from the bottom.
static LINES: LazyLock<[[u16; FINE]; 4 * FINE]> = LazyLock::new(|| {
    std::array::from_fn(|j| {
        let (side, i) = (j / FINE, j % FINE);
        std::array::from_fn(|k| {
            let (x, y) = match side {
                0 => (k, i),
                1 => (FINE - 1 - k, i),
                2 => (i, k),
                _ => (i, FINE - 1 - k),
            };
            (y * FINE + x) as u16
        })
    })
});

/// The Pearson correlation of a hidden glyph's cells `a` with another's `b`, each cell
/// weighing `w`, from their sums over the cells (each added up in the cells' order): of `w`,
/// `w * a`, `w * a * a` (`Hidden::own`), `w * b`, `w * b * b` and `w * a * b`.
fn weighted_correlation([sw, sa, saa]: [f32; 3], sb: f32, sbb: f32, sab: f32) -> f32 {
    if sw <= f32::EPSILON {
        return 0.0;
    }
    let cov = sab - sa * sb / sw;
    let var = (saa - sa * sa / sw) * (sbb - sb * sb / sw);
    if var <= 1e-12 { 0.0 } else { cov / var.sqrt() }
}

/// The side of the blocks of cells `Outline` adds up.
const BLOCK: usize = 2;

/// Blocks of cells on a side.
const BLOCKS: usize = SIDE / BLOCK;

/// Profiles `Outline` adds up together (neighbouring lines of one side).
const RUN: usize = 4;

/// What `Features::bound` may be above the distance by rounding alone (both are sums of a
/// few hundred terms of about one, off by well under 1e-4), taken off the bound.
const ROUNDING: f32 = 1e-3;

/// A glyph's features added up coarsely, for a lower bound of the distance at a fraction of
/// its cost (`Features::bound`).
#[derive(Clone, Debug)]
pub(super) struct Outline {
    /// The cells' sums over each `BLOCK` x `BLOCK` block, row-major.
    blocks: [f32; BLOCKS * BLOCKS],
    /// The profiles' sums over each `RUN` of them.
    runs: [f32; 4 * FINE / RUN],
    /// Half of one less the cells' squared length (0 for unit length).
    slack: f32,
}

impl Outline {
    fn of(cells: &[f32; CELLS], profiles: &[f32; 4 * FINE]) -> Outline {
        let mut blocks = [0f32; BLOCKS * BLOCKS];
        for (i, &c) in cells.iter().enumerate() {
            let (y, x) = (i / SIDE, i % SIDE);
            blocks[y / BLOCK * BLOCKS + x / BLOCK] += c;
        }
        let runs = std::array::from_fn(|g| profiles[g * RUN..(g + 1) * RUN].iter().sum());
        let length: f32 = cells.iter().map(|c| c * c).sum();
        Outline {
            blocks,
            runs,
            slack: (1.0 - length) / 2.0,
        }
    }
}

/// The sum over places of `term` of the `rows`' values there (all as long, a multiple of 8),
/// added in eight lanes (which vectorises): in another order than one by one, off by
/// rounding.
fn lanes<const K: usize>(rows: [&[f32]; K], term: impl Fn([f32; K]) -> f32) -> f32 {
    let mut lane = [0f32; 8];
    for at in (0..rows[0].len()).step_by(8) {
        let eight = rows.map(|r| &r[at..at + 8]);
        for (k, sum) in lane.iter_mut().enumerate() {
            *sum += term(eight.map(|r| r[k]));
        }
    }
    lane.iter().sum()
}

/// What a glyph is compared by.
#[derive(Clone, Debug)]
pub struct Features {
    pub(super) cells: [f32; CELLS],
    pub(super) profiles: [f32; 4 * FINE],
    pub(super) outline: Outline,
    /// Enclosed counters (O has one, B two, C none): the most font-proof trait there is. A
    /// range when part of the glyph is hidden: as seen, and with the hidden part taken for ink.
    pub(super) holes: (u8, u8),
    pub(super) log_aspect: f32,
    /// What of the glyph cannot be seen, when something hides part of it.
    pub(super) hidden: Option<Box<Hidden>>,
}

/// How much of each feature of a partly hidden glyph can be trusted.
#[derive(Clone, Debug)]
pub(super) struct Hidden {
    /// Weight of each cell in the correlation: 1 when in sight, less the more of it is hidden
    /// (`HIDDEN_DISCOUNT`).
    pub(super) weights: [f32; CELLS],
    /// The profiles known, in order: their lines meet no hidden pixel before the ink.
    known: Vec<u8>,
    /// Each cell's weight times the glyph's ink there.
    weighted: [f32; CELLS],
    /// The glyph's own sums in the correlation (`weighted_correlation`), taken once: of the
    /// weights, of `weighted` and of `weighted` times the ink, in the cells' order.
    own: [f32; 3],
    /// 1 for each profile known, 0 for the others: the known profiles' differences in
    /// eight lanes (`Features::bound`).
    known_mask: [f32; 4 * FINE],
}

impl Hidden {
    /// What is hidden of the glyph of `cells`: each cell's weight, and which profiles are
    /// known.
    fn new(weights: [f32; CELLS], known: &[bool; 4 * FINE], cells: &[f32; CELLS]) -> Hidden {
        let weighted: [f32; CELLS] = std::array::from_fn(|i| weights[i] * cells[i]);
        let mut own = [0f32; 3];
        for ((&w, &wa), &a) in weights.iter().zip(&weighted).zip(cells) {
            own[0] += w;
            own[1] += wa;
            own[2] += wa * a;
        }
        Hidden {
            weights,
            known: (0..4 * FINE as u8)
                .filter(|&j| known[usize::from(j)])
                .collect(),
            weighted,
            own,
            known_mask: known.map(f32::from),
        }
    }
}

impl Features {
    /// The features of the ink in `ink`, or `None` when it holds none.
    pub fn of(ink: &Ink) -> Option<Features> {
        Features::partly_hidden(ink, None)
    }

    /// The features of the ink in `ink`, of which the pixels set in `hidden` (as many as
    /// `ink` has) cannot be seen (a line drawn over them): those count less in `distance`, or
    /// not at all. `None` when there is no ink.
    pub fn partly_hidden(ink: &Ink, hidden: Option<&[bool]>) -> Option<Features> {
        let (x0, y0, x1, y1) = ink.ink_box()?;
        let (bw, bh) = ((x1 - x0) as f32, (y1 - y0) as f32);
        let fine = fine_grid(ink, (x0, y0, bw, bh));
        let raw = coarse(&fine);
        // Profiles: how far in from each side of the box the ink starts, per row and column.
        let profiles: [f32; 4 * FINE] = std::array::from_fn(|j| inset(&fine, &LINES[j]));
        let hidden = hidden.map(|mask| {
            let mut shade = Ink::new(ink.w, ink.h);
            for (v, &m) in shade.v.iter_mut().zip(mask) {
                *v = f32::from(u8::from(m));
            }
            let fine_shade = fine_grid(&shade, (x0, y0, bw, bh));
            let weights = coarse(&fine_shade).map(|h| 1.0 - HIDDEN_DISCOUNT * h.clamp(0.0, 1.0));
            // A profile is unknown when a hidden point comes before (or at) the ink on it.
            let known: [bool; 4 * FINE] = std::array::from_fn(|j| {
                let line = &LINES[j];
                let end = line
                    .iter()
                    .position(|&k| fine[usize::from(k)] >= 0.5)
                    .unwrap_or(FINE - 1);
                line[..=end]
                    .iter()
                    .all(|&k| fine_shade[usize::from(k)] < 0.5)
            });
            let mut filled = ink.clone();
            for (v, &m) in filled.v.iter_mut().zip(mask) {
                if m {
                    *v = 1.0;
                }
            }
            let seen = holes(ink, (x0, y0, x1, y1));
            let with_hidden = holes(&filled, (x0, y0, x1, y1));
            // And a whole counter may lie under what is hidden inside the ink's box.
            let inside = (y0..y1).any(|y| (x0..x1).any(|x| mask[y * ink.w + x]));
            (
                (weights, known),
                (
                    seen.min(with_hidden),
                    seen.max(with_hidden) + u8::from(inside),
                ),
            )
        });
        // Soften: each cell takes a quarter of its four neighbours' mean.
        let mut cells = [0f32; CELLS];
        for y in 0..SIDE {
            for x in 0..SIDE {
                let mut n = 0.0;
                let mut k = 0.0;
                for (dx, dy) in [(-1i32, 0i32), (1, 0), (0, -1), (0, 1)] {
                    let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                    if (0..SIDE as i32).contains(&nx) && (0..SIDE as i32).contains(&ny) {
                        n += raw[ny as usize * SIDE + nx as usize];
                        k += 1.0;
                    }
                }
                cells[y * SIDE + x] = 0.75 * raw[y * SIDE + x] + 0.25 * n / k;
            }
        }
        let mean = cells.iter().sum::<f32>() / CELLS as f32;
        let mut norm = 0.0;
        for c in &mut cells {
            *c -= mean;
            norm += *c * *c;
        }
        let norm = norm.sqrt();
        if norm > 1e-6 {
            for c in &mut cells {
                *c /= norm;
            }
        }
        let (hidden, holes) = match hidden {
            Some(((weights, known), range)) => {
                (Some(Box::new(Hidden::new(weights, &known, &cells))), range)
            }
            None => {
                let n = holes(ink, (x0, y0, x1, y1));
                (None, (n, n))
            }
        };
        Some(Features {
            outline: Outline::of(&cells, &profiles),
            cells,
            profiles,
            holes,
            log_aspect: (bw / bh).ln(),
            hidden,
        })
    }

    /// The features as one vector for `net`: the cells (scaled to about unit spread), the
    /// profiles, the counters seen (none, one, two or more) and the log aspect.
    pub fn vector(&self) -> [f32; INPUTS] {
        let mut v = [0f32; INPUTS];
        for (o, c) in v.iter_mut().zip(&self.cells) {
            *o = c * SIDE as f32;
        }
        v[CELLS..CELLS + 4 * FINE].copy_from_slice(&self.profiles);
        v[CELLS + 4 * FINE + usize::from(self.holes.0.min(2))] = 1.0;
        v[INPUTS - 1] = self.log_aspect;
        v
    }

    /// How much of the glyph's box counts in the comparison: 1 when nothing is hidden, down
    /// to 1 - `HIDDEN_DISCOUNT` when all of it is.
    pub fn share_in_sight(&self) -> f32 {
        self.hidden
            .as_ref()
            .map_or(1.0, |h| h.weights.iter().sum::<f32>() / CELLS as f32)
    }

    /// How many counters apart two glyphs are: none when their ranges meet.
    fn hole_gap(&self, other: &Features) -> f32 {
        let (a, b) = (self.holes, other.holes);
        f32::from(a.0.saturating_sub(b.1).max(b.0.saturating_sub(a.1)))
    }

    /// A cheap lower bound of `distance`: its aspect and counter terms (the others are never
    /// negative).
    pub fn lower_bound(&self, other: &Features) -> f32 {
        let da = self.log_aspect - other.log_aspect;
        ASPECT_WEIGHT * da * da + HOLE_WEIGHT * self.hole_gap(other)
    }

    /// A lower bound of `distance`, tighter than `lower_bound` for a glyph nothing hides, at
    /// a fraction of the distance's cost. The cells' term, one less their product, is half
    /// their difference's squared length plus each one's `slack`; a difference is no shorter
    /// than its sums over blocks (each block's sum over its side, the difference projected
    /// on the block's cells), and the profiles differ in sum by no more than one by one.
    /// For a partly hidden glyph, the known profiles' term as the distance has it, and the
    /// cells' term at its least (a correlation is at most one). The aspect and counters alone
    /// let through about ten thousand references in a read each of two boards with veiled
    /// glyphs, each then costing the correlation; with the profiles' term, about half.
    /// Less `ROUNDING`, so that it stays below the distance as the floats come out.
    pub fn bound(&self, other: &Features) -> f32 {
        if let Some(h) = &self.hidden {
            let rows = [&self.profiles[..], &other.profiles, &h.known_mask];
            let dp = lanes(rows, |[a, b, m]| (a - b).abs() * m) / h.known.len().max(1) as f32;
            return PROFILE_WEIGHT * dp + self.lower_bound(other) - ROUNDING;
        }
        let (a, b) = (&self.outline, &other.outline);
        let apart = lanes([&a.blocks, &b.blocks], |[x, y]| (x - y) * (x - y));
        let runs = lanes([&a.runs, &b.runs], |[x, y]| (x - y).abs());
        apart / (2 * BLOCK * BLOCK) as f32
            + a.slack
            + b.slack
            + PROFILE_WEIGHT * runs / (4 * FINE) as f32
            + self.lower_bound(other)
            - ROUNDING
    }

    /// How unlike two glyphs are: 0 for the same shape, about 1 for unrelated ones. What is
    /// hidden of `self` (not of `other`) is judged only as far as it can be seen: its cells
    /// weigh by the share in sight, its unknown profiles and its counters' range are left out.
    pub fn distance(&self, other: &Features) -> f32 {
        self.distances([other])[0]
    }

    /// `distance` to each of `others`. For a glyph nothing hides, the sums are taken for all
    /// of them in one pass, each in its own order, so each is what it is alone: one sum is a
    /// chain of additions, each waiting on the last, and several side by side do not wait
    /// on each other.
    pub fn distances<const N: usize>(&self, others: [&Features; N]) -> [f32; N] {
        let Some(h) = &self.hidden else {
            // Iterator::sum's own start for floats.
            let (mut correlation, mut dp) = ([-0.0f32; N], [-0.0f32; N]);
            for (i, &a) in self.cells.iter().enumerate() {
                for (c, o) in correlation.iter_mut().zip(others) {
                    *c += a * o.cells[i];
                }
            }
            for (i, &a) in self.profiles.iter().enumerate() {
                for (d, o) in dp.iter_mut().zip(others) {
                    *d += (a - o.profiles[i]).abs();
                }
            }
            return std::array::from_fn(|k| {
                self.combined(others[k], correlation[k], dp[k] / (4 * FINE) as f32)
            });
        };
        // The other glyphs' sums in the correlation, and the known profiles' differences.
        let (mut sb, mut sbb, mut sab, mut dp) = ([0f32; N], [0f32; N], [0f32; N], [0f32; N]);
        for ((&w, &wa), i) in h.weights.iter().zip(&h.weighted).zip(0..) {
            for (k, o) in others.iter().enumerate() {
                let b = o.cells[i];
                let wb = w * b;
                sb[k] += wb;
                sbb[k] += wb * b;
                sab[k] += wa * b;
            }
        }
        for &j in &h.known {
            let (j, a) = (usize::from(j), self.profiles[usize::from(j)]);
            for (d, o) in dp.iter_mut().zip(others) {
                *d += (a - o.profiles[j]).abs();
            }
        }
        let known = h.known.len().max(1) as f32;
        std::array::from_fn(|k| {
            let correlation = weighted_correlation(h.own, sb[k], sbb[k], sab[k]);
            self.combined(others[k], correlation, dp[k] / known)
        })
    }

    /// The distance from its terms: the cells' correlation and the profiles' mean difference.
    fn combined(&self, other: &Features, correlation: f32, dp: f32) -> f32 {
        let da = self.log_aspect - other.log_aspect;
        1.0 - correlation
            + ASPECT_WEIGHT * da * da
            + PROFILE_WEIGHT * dp
            + HOLE_WEIGHT * self.hole_gap(other)
    }
}

/// The features of `ink` with the rows within `half` of row `at` hidden, as a line drawn
/// across it hides them: their ink taken off.
#[cfg(test)]
pub(crate) fn under_band(ink: &Ink, at: usize, half: usize) -> Option<Features> {
    let band: Vec<bool> = (0..ink.v.len())
        .map(|i| (i / ink.w).abs_diff(at) <= half)
        .collect();
    let mut cut = ink.clone();
    for (v, &b) in cut.v.iter_mut().zip(&band) {
        if b {
            *v = 0.0;
        }
    }
    Features::partly_hidden(&cut, Some(&band))
}

#[cfg(test)]
mod tests {
    use super::*;
    use scramblebot_core::sample::Rng;

    /// The fine grid as defined: each point the mean of its 2x2 samples, each sample taken
    /// alone by `Ink::bilinear`.
    fn fine_grid_by_samples(ink: &Ink, (x0, y0, bw, bh): (usize, usize, f32, f32)) -> Vec<f32> {
        let n = (FINE * SUB) as f32;
        let mut fine = vec![0f32; FINE * FINE];
        for fy in 0..FINE {
            for fx in 0..FINE {
                let mut sum = 0.0;
                for sy in 0..SUB {
                    for sx in 0..SUB {
                        let u = (fx * SUB + sx) as f32 + 0.5;
                        let v = (fy * SUB + sy) as f32 + 0.5;
                        let x = x0 as f32 + u / n * bw - 0.5;
                        let y = y0 as f32 + v / n * bh - 0.5;
                        sum += ink.bilinear(x, y);
                    }
                }
                fine[fy * FINE + fx] = sum / (SUB * SUB) as f32;
            }
        }
        fine
    }

    /// The distance of a glyph nothing hides is its terms' sums taken alone, as written
    /// before they were taken side by side: on random inks, one against four others.
    #[test]
    fn a_distance_is_its_sums_taken_alone() {
        let mut rng = Rng::new(53);
        let mut random = || {
            let (w, h) = (8 + rng.below(30), 8 + rng.below(30));
            let mut ink = Ink::new(w, h);
            for v in &mut ink.v {
                *v = if rng.below(3) == 0 {
                    rng.below(11) as f32 / 10.0
                } else {
                    0.0
                };
            }
            Features::of(&ink).expect("ink")
        };
        for _ in 0..20 {
            let f = random();
            let others = [random(), random(), random(), random()];
            let four = [&others[0], &others[1], &others[2], &others[3]];
            let alone = four.map(|o| {
                let correlation: f32 = f.cells.iter().zip(&o.cells).map(|(a, b)| a * b).sum();
                let pairs = f.profiles.iter().zip(&o.profiles);
                let dp = pairs.map(|(a, b)| (a - b).abs()).sum::<f32>() / (4 * FINE) as f32;
                let da = f.log_aspect - o.log_aspect;
                (1.0 - correlation
                    + ASPECT_WEIGHT * da * da
                    + PROFILE_WEIGHT * dp
                    + HOLE_WEIGHT * f.hole_gap(o))
                .to_bits()
            });
            assert_eq!(f.distances(four).map(f32::to_bits), alone);
            assert_eq!(four.map(|o| f.distance(o).to_bits()), alone);
        }
    }

    /// The fine grid, worked row by row, is the one sample by sample to the bit, on boxes
    /// smaller and larger than the grid, at the map's edges and reaching past them.
    #[test]
    fn the_fine_grid_is_its_samples_to_the_bit() {
        let mut rng = Rng::new(0x853c_49e6_748f_ea9b);
        for case in 0..300 {
            let (w, h) = (1 + rng.below(120), 1 + rng.below(120));
            let mut ink = Ink::new(w, h);
            for v in &mut ink.v {
                *v = rng.below(1000) as f32 / 999.0;
            }
            let (x0, y0) = (rng.below(w), rng.below(h));
            let bw = 1.0 + rng.below(w - x0 + 2) as f32;
            let bh = 1.0 + rng.below(h - y0 + 2) as f32;
            let want = fine_grid_by_samples(&ink, (x0, y0, bw, bh));
            let got = fine_grid(&ink, (x0, y0, bw, bh));
            let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "case {case}: {w} x {h}");
        }
    }

    /// Capitals of a built-in face, each drawn plain and thickened, and the same cut by a
    /// band hidden across the middle (`hidden` set), as glyphs the reader meets.
    fn some_glyphs() -> Vec<Features> {
        let font = ab_glyph::FontRef::try_from_slice(include_bytes!("fonts/ClearSans-Bold.ttf"))
            .expect("the built-in face");
        let mut out = Vec::new();
        for c in "ABEGKMOQRSWX".chars() {
            let plain = crate::glyph::render(&font, &c.to_string(), 30.0);
            let mut thick = plain.clone();
            for (i, v) in thick.v.iter_mut().enumerate() {
                let right = plain.v.get(i + 1).copied().unwrap_or(0.0);
                *v = v.max(right);
            }
            for ink in [plain, thick] {
                out.extend(Features::of(&ink));
                let (_, y0, _, y1) = ink.ink_box().expect("ink");
                out.extend(under_band(&ink, (y0 + y1) / 2, 2));
            }
        }
        assert!(out.iter().any(|f| f.hidden.is_some()), "some glyphs hidden");
        out
    }

    /// `distance` of a partly hidden glyph, as defined: the Pearson correlation of the cells
    /// weighing each by its weight, every sum taken in the cells' order, and the mean
    /// difference of the known profiles.
    fn hidden_distance_by_definition(a: &Features, b: &Features) -> f32 {
        let h = a.hidden.as_ref().expect("hidden");
        let (mut sw, mut sa, mut sb, mut saa, mut sbb, mut sab) =
            (0f32, 0f32, 0f32, 0f32, 0f32, 0f32);
        for ((&x, &y), &w) in a.cells.iter().zip(&b.cells).zip(&h.weights) {
            sw += w;
            sa += w * x;
            sb += w * y;
            saa += w * x * x;
            sbb += w * y * y;
            sab += w * x * y;
        }
        let correlation = weighted_correlation([sw, sa, saa], sb, sbb, sab);
        let (mut sum, mut count) = (0f32, 0usize);
        for (j, (x, y)) in a.profiles.iter().zip(&b.profiles).enumerate() {
            if h.known.contains(&(j as u8)) {
                sum += (x - y).abs();
                count += 1;
            }
        }
        a.combined(b, correlation, sum / count.max(1) as f32)
    }

    /// A partly hidden glyph's distances, four at a time from its sums taken once, are the
    /// definition's to the bit.
    #[test]
    fn hidden_distances_are_the_definitions() {
        let glyphs = some_glyphs();
        let mut checked = 0;
        for a in glyphs.iter().filter(|g| g.hidden.is_some()) {
            for four in glyphs.chunks_exact(4) {
                let want = std::array::from_fn(|k| hidden_distance_by_definition(a, &four[k]));
                let got = a.distances([&four[0], &four[1], &four[2], &four[3]]);
                assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits));
                assert_eq!(a.distance(&four[0]).to_bits(), want[0].to_bits());
                checked += 4;
            }
        }
        assert!(checked > 1000, "{checked} pairs");
    }

    /// The bound is at most the distance, for every pair of the glyphs (their own pairs, at
    /// distance nearly 0, included) and for a glyph whose cells are all alike (which centre
    /// to nothing); and it is tighter than the aspect and counters alone, by a tenth on about
    /// half of the pairs.
    #[test]
    fn the_bound_is_below_the_distance() {
        let mut glyphs = some_glyphs();
        let blank = Features {
            cells: [0.0; CELLS],
            outline: Outline::of(&[0.0; CELLS], &glyphs[0].profiles),
            ..glyphs[0].clone()
        };
        assert_eq!(blank.outline.slack, 0.5);
        glyphs.push(blank);
        let (mut pairs, mut tighter) = (0, 0);
        for a in &glyphs {
            for b in &glyphs {
                let (bound, d) = (a.bound(b), a.distance(b));
                assert!(bound <= d, "{bound} > {d}");
                pairs += 1;
                tighter += usize::from(bound > a.lower_bound(b) + 0.1);
            }
        }
        assert!(tighter * 3 > pairs, "tighter on {tighter} of {pairs} pairs");
    }
}
