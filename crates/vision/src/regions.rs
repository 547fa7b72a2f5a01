//! Connected regions of a mask, found by runs (each row's stretches of set pixels joined to
//! those they touch in the row above): the one labelling that the grid search, glyph
//! isolation, badges and counter counting share.

/// How pixels touch: by a side only, or by a side or a corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    Four,
    Eight,
}

/// A connected region of a mask.
#[derive(Clone, Copy, Debug)]
pub struct Region {
    /// Its label (1, 2, ... in scan order of first pixels).
    pub id: u32,
    /// Pixels in it.
    pub count: usize,
    /// Its box; x1 and y1 are exclusive.
    pub x0: usize,
    pub y0: usize,
    pub x1: usize,
    pub y1: usize,
    /// It reaches the mask's border.
    pub edge: bool,
}

impl Region {
    /// A region of label `id` with no pixels yet.
    fn empty(id: u32) -> Region {
        Region {
            id,
            count: 0,
            x0: usize::MAX,
            y0: usize::MAX,
            x1: 0,
            y1: 0,
            edge: false,
        }
    }
    pub fn cx(&self) -> f32 {
        (self.x0 + self.x1) as f32 / 2.0
    }
    pub fn cy(&self) -> f32 {
        (self.y0 + self.y1) as f32 / 2.0
    }
}

/// Scratch space for `label` and `regions`, kept by callers that label often.
#[derive(Default)]
pub struct Runs {
    /// Each row's stretches of set pixels, in scan order: (row, first x, x past the last).
    runs: Vec<(u32, u32, u32)>,
    /// Each run's parent among the runs it touches (a run that is its own parent is the first
    /// run of its region).
    parent: Vec<u32>,
    /// A root's region (its index in the regions returned).
    region: Vec<u32>,
    /// The runs of the row above that a run of this row may still touch.
    above: std::ops::Range<usize>,
    /// This row's first run.
    row_first: usize,
    /// 1 when runs touch by corners too: a run of the row above then touches one that begins
    /// a pixel after it ends, or ends a pixel before it begins.
    reach: u32,
    /// The row being scanned, a byte a pixel: 1 where it is set.
    line: Vec<u8>,
}

impl Runs {
    /// The first run of `i`'s region, halving the path on the way.
    fn root(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let up = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = up;
            i = up;
        }
        i
    }

    /// Makes `a` and `b` one region, rooted at the run that comes first.
    fn join(&mut self, a: u32, b: u32) {
        let (a, b) = (self.root(a), self.root(b));
        let (first, last) = (a.min(b), a.max(b));
        self.parent[last as usize] = first;
    }

    /// Starts a labelling of pixels touching as `touch` says.
    pub(crate) fn start(&mut self, touch: Touch) {
        self.runs.clear();
        self.parent.clear();
        self.above = 0..0;
        self.row_first = 0;
        self.reach = u32::from(touch == Touch::Eight);
    }

    /// Starts the next row (the first after `start`).
    pub(crate) fn next_row(&mut self) {
        self.above = self.row_first..self.runs.len();
        self.row_first = self.runs.len();
    }

    /// Adds the stretch `x0..x1` of row `y` (the current row), left of any added after it,
    /// joined to the runs of the row above that it touches.
    pub(crate) fn push(&mut self, y: u32, x0: u32, x1: u32) {
        let i = self.runs.len() as u32;
        self.runs.push((y, x0, x1));
        self.parent.push(i);
        // Runs above that end (with the reach) before this one begins touch no later run of
        // this row either.
        let reach = self.reach;
        while self.above.start < self.above.end && self.runs[self.above.start].2 + reach <= x0 {
            self.above.start += 1;
        }
        for j in self.above.clone() {
            let (_, a0, a1) = self.runs[j];
            if a0 >= x1 + reach {
                break;
            }
            if a1 + reach > x0 {
                self.join(j as u32, i);
            }
        }
    }

    /// The regions of the runs added, numbered in the order of their first pixels, on a w x h
    /// image.
    pub(crate) fn finish(&mut self, w: usize, h: usize) -> Vec<Region> {
        // Every run's parent comes before it: in scan order, each run's parent becomes its
        // root.
        let n = self.runs.len();
        for i in 0..n {
            self.parent[i] = self.parent[self.parent[i] as usize];
        }
        self.region.clear();
        self.region.resize(n, 0);
        let mut out: Vec<Region> = Vec::new();
        for i in 0..n {
            // A root comes before every other run of its region: regions are numbered in the
            // order of their first pixels.
            let root = self.parent[i] as usize;
            if root == i {
                self.region[i] = out.len() as u32;
                out.push(Region::empty(out.len() as u32 + 1));
            }
            let r = &mut out[self.region[root] as usize];
            let (y, x0, x1) = self.runs[i];
            let (y, x0, x1) = (y as usize, x0 as usize, x1 as usize);
            r.count += x1 - x0;
            r.x0 = r.x0.min(x0);
            r.y0 = r.y0.min(y);
            r.x1 = r.x1.max(x1);
            r.y1 = r.y1.max(y + 1);
            r.edge |= x0 == 0 || y == 0 || x1 == w || y + 1 == h;
        }
        out
    }

    /// The runs of the last labelling, each as (its region's index among those returned, row,
    /// first x, x past the last).
    pub(crate) fn each(&self) -> impl Iterator<Item = (usize, usize, usize, usize)> + '_ {
        self.runs
            .iter()
            .zip(&self.parent)
            .map(|(&(y, x0, x1), &root)| {
                let region = self.region[root as usize] as usize;
                (region, y as usize, x0 as usize, x1 as usize)
            })
    }
}

/// The regions of the pixels of a w x h image (row-major indices) for which `set` holds; each
/// pixel's label (0 = unset) is written into `labels`. `runs` is scratch space, kept by
/// callers that label often.
pub fn label(
    set: impl Fn(usize) -> bool,
    w: usize,
    h: usize,
    touch: Touch,
    labels: &mut Vec<u32>,
    runs: &mut Runs,
) -> Vec<Region> {
    let out = regions(set, w, h, touch, runs);
    labels.clear();
    labels.resize(w * h, 0);
    for (region, y, x0, x1) in runs.each() {
        labels[y * w + x0..y * w + x1].fill(region as u32 + 1);
    }
    out
}

/// `label` without the labels, for callers that want the regions alone.
///
/// Found by runs: each row's stretches of set pixels are joined to the stretches of the row
/// above that they touch (union-find), then numbered. `set` is asked once a pixel, and the
/// work beyond that grows with the stretches, not the pixels.
pub fn regions(
    set: impl Fn(usize) -> bool,
    w: usize,
    h: usize,
    touch: Touch,
    runs: &mut Runs,
) -> Vec<Region> {
    runs.start(touch);
    // A row is asked of `set` whole first, every pixel alike (which vectorises where `set`
    // is a look-up or a comparison), then its stretches are found eight pixels at a time.
    let mut line = std::mem::take(&mut runs.line);
    line.clear();
    line.resize(w, 0);
    for y in 0..h {
        runs.next_row();
        let row = y * w;
        for (x, b) in line.iter_mut().enumerate() {
            *b = u8::from(set(row + x));
        }
        let mut x = 0;
        while let Some(x0) = next_with(&line, x, 1) {
            x = next_with(&line, x0, 0).unwrap_or(w);
            runs.push(y as u32, x0 as u32, x as u32);
        }
    }
    runs.line = line;
    runs.finish(w, h)
}

/// The first place from `from` on where `line` (of 0s and 1s) holds `v`.
fn next_with(line: &[u8], from: usize, v: u8) -> Option<usize> {
    // Eight bytes at a time, each turned over first when `v` is 0: the bytes holding `v`
    // are then a word's nonzero ones, the first of them at its trailing zeros over eight.
    const ONES: u64 = 0x0101_0101_0101_0101;
    let unlike = if v == 0 { ONES } else { 0 };
    let rest = line.get(from..)?;
    let mut words = rest.chunks_exact(8);
    for (k, word) in (&mut words).enumerate() {
        let bytes = u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ unlike;
        if bytes != 0 {
            return Some(from + k * 8 + bytes.trailing_zeros() as usize / 8);
        }
    }
    let tail = rest.len() - words.remainder().len();
    (words.remainder().iter())
        .position(|&b| b == v)
        .map(|i| from + tail + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scramblebot_core::sample::Rng;

    /// The flood fill `label` replaced: one pixel at a time from a stack, the reference its
    /// runs are checked against.
    fn flood(
        set: impl Fn(usize) -> bool,
        w: usize,
        h: usize,
        touch: Touch,
        labels: &mut Vec<u32>,
        stack: &mut Vec<usize>,
    ) -> Vec<Region> {
        labels.clear();
        labels.resize(w * h, 0);
        let mut out = Vec::new();
        for start in 0..w * h {
            if labels[start] != 0 || !set(start) {
                continue;
            }
            let id = out.len() as u32 + 1;
            labels[start] = id;
            stack.clear();
            stack.push(start);
            let mut r = Region::empty(id);
            while let Some(p) = stack.pop() {
                let (x, y) = (p % w, p / w);
                r.count += 1;
                r.x0 = r.x0.min(x);
                r.y0 = r.y0.min(y);
                r.x1 = r.x1.max(x + 1);
                r.y1 = r.y1.max(y + 1);
                r.edge |= x == 0 || y == 0 || x + 1 == w || y + 1 == h;
                let mut visit = |q: usize| {
                    if labels[q] == 0 && set(q) {
                        labels[q] = id;
                        stack.push(q);
                    }
                };
                let (left, right, up, down) = (x > 0, x + 1 < w, y > 0, y + 1 < h);
                if left {
                    visit(p - 1);
                }
                if right {
                    visit(p + 1);
                }
                if up {
                    visit(p - w);
                }
                if down {
                    visit(p + w);
                }
                if touch == Touch::Eight {
                    if up && left {
                        visit(p - w - 1);
                    }
                    if up && right {
                        visit(p - w + 1);
                    }
                    if down && left {
                        visit(p + w - 1);
                    }
                    if down && right {
                        visit(p + w + 1);
                    }
                }
            }
            out.push(r);
        }
        out
    }

    /// Labels and regions, run by run, are those of the flood fill on masks of every density,
    /// size and touch (a fixed seed: the same masks every run).
    #[test]
    fn runs_label_as_the_flood_fill_does() {
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
        let (mut labels, mut runs) = (Vec::new(), Runs::default());
        let (mut want_labels, mut stack) = (Vec::new(), Vec::new());
        for case in 0..600 {
            let (w, h) = (1 + rng.below(40), 1 + rng.below(30));
            let density = rng.below(100);
            let mask: Vec<bool> = (0..w * h).map(|_| rng.below(100) < density).collect();
            let touch = if case % 2 == 0 {
                Touch::Four
            } else {
                Touch::Eight
            };
            let got = label(|p| mask[p], w, h, touch, &mut labels, &mut runs);
            let want = flood(|p| mask[p], w, h, touch, &mut want_labels, &mut stack);
            let fields = |r: &Region| (r.id, r.count, r.x0, r.y0, r.x1, r.y1, r.edge);
            assert_eq!(
                got.iter().map(fields).collect::<Vec<_>>(),
                want.iter().map(fields).collect::<Vec<_>>(),
                "case {case}: {w} x {h}, {touch:?}"
            );
            assert_eq!(labels, want_labels, "case {case}");
        }
    }

    #[test]
    fn corners_join_regions_only_when_eight_connected() {
        // Two pixels touching by a corner, and one apart, in a 4 x 3 mask.
        let mask = [
            true, false, false, true, //
            false, true, false, false, //
            false, false, false, false,
        ];
        let (mut labels, mut runs) = (Vec::new(), Runs::default());
        let four = label(|p| mask[p], 4, 3, Touch::Four, &mut labels, &mut runs);
        assert_eq!(four.len(), 3);
        let eight = label(|p| mask[p], 4, 3, Touch::Eight, &mut labels, &mut runs);
        assert_eq!(eight.len(), 2);
        let r = eight[0];
        assert_eq!(
            (r.count, r.x0, r.y0, r.x1, r.y1, r.edge),
            (2, 0, 0, 2, 2, true)
        );
        assert_eq!(labels[5], labels[0]);
        assert!(!eight[1].edge || eight[1].x1 == 4);
    }
}
