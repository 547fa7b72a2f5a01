//! Numbers the game draws in its own typeface: the round's clock (m:ss, counting down) and its
//! score. The reader has no references for that typeface, so the digits are learned from the
//! screen, without a person: the clock counts down a second at a time, so successive looks
//! label its glyphs (`Countdown`), and the score is then read with the digits the clock
//! taught (`DigitBook`). Pure: pixels in, glyphs and numbers out; what is learned is kept as
//! a picture of the ten digits (`DigitBook::strip`), which a person can look at.

use image::{GrayImage, Luma, RgbaImage};

/// A box on the screen, in pixels: left and top included, right and bottom excluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Area {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
}

impl Area {
    /// `self` clamped to a `w` x `h` image; `None` when nothing of it is left.
    fn within(self, w: u32, h: u32) -> Option<Area> {
        let a = Area {
            x0: self.x0.min(w),
            y0: self.y0.min(h),
            x1: self.x1.min(w),
            y1: self.y1.min(h),
        };
        (a.x1 > a.x0 && a.y1 > a.y0).then_some(a)
    }
}

/// Columns and rows of a glyph's normalised picture: enough to tell a 3 from an 8 at any size
/// a phone draws a score (20 to 120 pixels tall), few enough to compare in microseconds.
const NORM_W: usize = 12;
const NORM_H: usize = 18;
/// The least lightness difference between ink and paper for a box to hold a number at all
/// (anti-aliased white on a dark header is 150 and more; JPEG noise is under 20).
const MIN_CONTRAST: f32 = 48.0;
/// A pixel is ink when it differs from the paper by more than this share of the box's
/// contrast (the middle of an anti-aliased edge).
const INK_SHARE: f32 = 0.5;
/// A colon's dots are each under this share of the digits' height.
const DOT_HEIGHT: f32 = 0.35;
/// A run of ink shorter than this share of the tallest is no digit (a dot, a dash, noise).
const DIGIT_HEIGHT: f32 = 0.6;
/// A separator's mark starts at least this share of the line's height below its top (a
/// dot or a comma sits on the baseline; a colon's upper dot, a '+' or a '-' do not).
const SEPARATOR_LOW: f32 = 0.55;
/// A separator's mark is shorter than this share of the line's height (a comma reaches below
/// the baseline: about 0.45 of a digit's height in DejaVu Sans Bold).
const SEPARATOR_HEIGHT: f32 = 0.55;

/// One glyph of a number: its ink scaled into `NORM_W` x `NORM_H` cells (0 paper, 1 ink), and
/// its width over its height (a 1 is narrow in every face).
#[derive(Clone, Debug, PartialEq)]
pub struct Glyph {
    cells: Vec<f32>,
    aspect: f32,
}

impl Glyph {
    /// How unlike two glyphs are: the mean difference of their cells, plus how far apart
    /// their shapes' proportions are. 0 for the same picture.
    pub fn distance(&self, other: &Glyph) -> f32 {
        let cells = self
            .cells
            .iter()
            .zip(&other.cells)
            .map(|(a, b)| (a - b).abs())
            .sum::<f32>()
            / self.cells.len() as f32;
        cells + 0.5 * (self.aspect / other.aspect).ln().abs()
    }
}

/// What a box shows, cut into glyphs from left to right, and where a colon stands (the index
/// of the glyph it precedes).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cut {
    pub glyphs: Vec<Glyph>,
    /// Ink that is neither a digit nor a colon (a sign, a word, a smudge): not a plain number.
    pub stray: bool,
    /// Ink cut by the box's left or right side: part of something wider than the box (a
    /// number grown past it), which no reading of the box is sure of.
    pub clipped: bool,
    /// Marks low on the line between two glyphs, a dot or a comma (thousands separators,
    /// "1,234" and "1.234"), as the index of the glyph each precedes.
    pub separators: Vec<usize>,
    /// The box's ink in groups set apart by gaps wider than `GROUP_GAP` of their height (the
    /// number, an icon beside it, a word flashed next to it), each cut on its own; empty when
    /// the ink is one group (the cut itself).
    pub groups: Vec<Cut>,
    /// Where each glyph's ink lies on the image, as `glyphs` are ordered.
    pub spans: Vec<Area>,
    /// Every colon, as the index of the glyph it precedes (a label's "Time:" may stand before
    /// a clock's).
    pub colons: Vec<usize>,
    /// Where every run of ink lies on the image (glyphs, the colon's dots, stray marks), left
    /// to right.
    pub ink: Vec<Area>,
    /// Where the stray ink lies (what made `stray` true).
    pub strays: Vec<Area>,
}

/// The glyphs of a clock: its minutes (none on a clock of seconds only), the tens of its
/// seconds (none under ten seconds on a clock of seconds only), its seconds.
pub struct ClockGlyphs<'a> {
    pub minutes: &'a [Glyph],
    pub tens: Option<&'a Glyph>,
    pub ones: &'a Glyph,
}

/// Ink apart from its neighbour by more than this share of the taller one's height is another
/// group: digits of one number stand closer (a 1's bearings leave about 0.35 of the height in
/// a proportional face), an icon or a word beside the number usually further.
const GROUP_GAP: f32 = 0.7;

impl Cut {
    /// Where the first colon stands: the index of the glyph it precedes.
    pub fn colon(&self) -> Option<usize> {
        self.colons.first().copied()
    }

    /// The part of the box that is a clock: the whole, or its one group shaped as one (an
    /// icon beside the clock set apart).
    pub fn clock_part(&self) -> Option<&Cut> {
        if self.clock().is_some() {
            return Some(self);
        }
        // A group of one glyph (an icon, a sign) is no clock beside another.
        let mut clocks = self
            .groups
            .iter()
            .filter(|g| g.clock().is_some_and(|c| c.tens.is_some()));
        match (clocks.next(), clocks.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// Glyphs `from..to` of the cut as a cut of their own, with the colons, separators and
    /// stray marks that stand among them; clipped when the whole is.
    pub fn part(&self, from: usize, to: usize) -> Cut {
        let (x0, x1) = (self.spans[from].x0, self.spans[to - 1].x1);
        let within = |a: &&Area| a.x0 >= x0 && a.x1 <= x1;
        let inner = |i: &&usize| **i > from && **i < to;
        let strays: Vec<Area> = self.strays.iter().filter(within).copied().collect();
        Cut {
            glyphs: self.glyphs[from..to].to_vec(),
            stray: !strays.is_empty(),
            clipped: self.clipped,
            separators: self
                .separators
                .iter()
                .filter(inner)
                .map(|i| i - from)
                .collect(),
            groups: Vec::new(),
            spans: self.spans[from..to].to_vec(),
            colons: self.colons.iter().filter(inner).map(|i| i - from).collect(),
            ink: self.ink.iter().filter(within).copied().collect(),
            strays,
        }
    }

    /// The glyphs of a clock: m:ss or mm:ss, or seconds only (one or two glyphs and no colon:
    /// three glyphs without one may be an m:ss whose colon was lost, and are no clock).
    pub fn clock(&self) -> Option<ClockGlyphs<'_>> {
        let n = self.glyphs.len();
        if self.stray || !self.separators.is_empty() {
            return None;
        }
        match self.colon() {
            Some(colon) if (1..=2).contains(&colon) && n == colon + 2 => Some(ClockGlyphs {
                minutes: &self.glyphs[..colon],
                tens: Some(&self.glyphs[n - 2]),
                ones: &self.glyphs[n - 1],
            }),
            None if (1..=2).contains(&n) => Some(ClockGlyphs {
                minutes: &[],
                tens: (n == 2).then(|| &self.glyphs[0]),
                ones: &self.glyphs[n - 1],
            }),
            _ => None,
        }
    }
}

/// Cuts what `area` of `img` shows into glyphs. An empty cut when the box holds no ink.
pub fn cut(img: &RgbaImage, area: Area) -> Cut {
    let Some(a) = area.within(img.width(), img.height()) else {
        return Cut::default();
    };
    let (w, h) = ((a.x1 - a.x0) as usize, (a.y1 - a.y0) as usize);
    let light: Vec<f32> = (a.y0..a.y1)
        .flat_map(|y| (a.x0..a.x1).map(move |x| (x, y)))
        .map(|(x, y)| {
            let p = img.get_pixel(x, y).0;
            0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
        })
        .collect();
    let paper = paper(&light, w, h);
    let off: Vec<f32> = light.iter().map(|l| (l - paper).abs()).collect();
    let contrast = off.iter().copied().fold(0.0, f32::max);
    if contrast < MIN_CONTRAST {
        return Cut::default();
    }
    let ink = |x: usize, y: usize| off[y * w + x] > contrast * INK_SHARE;
    let runs = column_runs(w, h, &ink);
    let on_image = |r: &Run| Area {
        x0: a.x0 + r.x0 as u32,
        y0: a.y0 + r.top as u32,
        x1: a.x0 + r.x1 as u32,
        y1: a.y0 + r.bottom as u32,
    };
    let glyphs = |runs: &[Run]| {
        let tallest = runs.iter().map(|r| r.bottom - r.top).max().unwrap_or(0) as f32;
        // The top of the line's glyphs, which a separator's mark stays well below, and their
        // baseline, which it reaches (a dash does not).
        let tall = || {
            runs.iter()
                .filter(|r| (r.bottom - r.top) as f32 >= tallest * DIGIT_HEIGHT)
        };
        let top = tall().map(|r| r.top).min().unwrap_or(0) as f32;
        let base = tall().map(|r| r.bottom).max().unwrap_or(0) as f32;
        let mut out = Cut::default();
        for (i, r) in runs.iter().enumerate() {
            out.ink.push(on_image(r));
            out.clipped |= r.x0 == 0 || r.x1 == w;
            let height = (r.bottom - r.top) as f32;
            // A colon's dots span much of a digit's height: told by its two blobs first.
            if is_colon(r, tallest, &ink) {
                out.colons.push(out.glyphs.len());
            } else if height >= tallest * DIGIT_HEIGHT {
                out.glyphs.push(normalise(&off, w, contrast, r));
                out.spans.push(on_image(r));
            } else if !out.glyphs.is_empty()
                && i + 1 < runs.len()
                && height < tallest * SEPARATOR_HEIGHT
                && ((r.x1 - r.x0) as f32) < tallest * DOT_HEIGHT
                && r.top as f32 >= top + tallest * SEPARATOR_LOW
                && r.bottom as f32 >= base - tallest * SEPARATOR_LOW / 5.0
            {
                out.separators.push(out.glyphs.len());
            } else {
                out.stray = true;
                out.strays.push(on_image(r));
            }
        }
        out
    };
    let mut out = glyphs(&runs);
    let groups = groups(&runs);
    if groups.len() > 1 {
        out.groups = groups.iter().map(|g| glyphs(g)).collect();
    }
    out
}

/// `runs` (left to right) in groups split where the gap between two neighbours is wider than
/// `GROUP_GAP` of the taller one's height.
fn groups(runs: &[Run]) -> Vec<&[Run]> {
    let mut out = Vec::new();
    let mut from = 0;
    for i in 1..runs.len() {
        let (a, b) = (&runs[i - 1], &runs[i]);
        let tall = (a.bottom - a.top).max(b.bottom - b.top) as f32;
        if (b.x0 - a.x1) as f32 > GROUP_GAP * tall {
            out.push(&runs[from..i]);
            from = i;
        }
    }
    if from < runs.len() {
        out.push(&runs[from..]);
    }
    out
}

/// The paper's lightness: the median of the box's rim, where a number drawn inside it does
/// not reach.
fn paper(light: &[f32], w: usize, h: usize) -> f32 {
    let mut rim: Vec<f32> = (0..w)
        .flat_map(|x| [light[x], light[(h - 1) * w + x]])
        .chain((0..h).flat_map(|y| [light[y * w], light[y * w + w - 1]]))
        .collect();
    rim.sort_by(f32::total_cmp);
    rim[rim.len() / 2]
}

/// Columns `x0..x1` holding ink with no empty column between, and their ink's rows.
#[derive(Clone, Copy, Debug)]
struct Run {
    x0: usize,
    x1: usize,
    top: usize,
    bottom: usize,
}

fn column_runs(w: usize, h: usize, ink: &impl Fn(usize, usize) -> bool) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut open: Option<Run> = None;
    for x in 0..=w {
        // One column past the last closes a run that reaches the box's edge.
        let rows: Vec<usize> = if x < w {
            (0..h).filter(|&y| ink(x, y)).collect()
        } else {
            Vec::new()
        };
        match (rows.first(), rows.last(), open.as_mut()) {
            (Some(&t), Some(&b), Some(r)) => {
                r.x1 = x + 1;
                r.top = r.top.min(t);
                r.bottom = r.bottom.max(b + 1);
            }
            (Some(&t), Some(&b), None) => {
                open = Some(Run {
                    x0: x,
                    x1: x + 1,
                    top: t,
                    bottom: b + 1,
                });
            }
            _ => runs.extend(open.take()),
        }
    }
    runs
}

/// Whether a short run is a colon: two blobs of ink one above the other, each small.
fn is_colon(r: &Run, tallest: f32, ink: &impl Fn(usize, usize) -> bool) -> bool {
    let rows: Vec<bool> = (r.top..r.bottom)
        .map(|y| (r.x0..r.x1).any(|x| ink(x, y)))
        .collect();
    let mut blobs = Vec::new();
    let mut start = None;
    for (i, &on) in rows.iter().chain([&false]).enumerate() {
        match (on, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                blobs.push(i - s);
                start = None;
            }
            _ => {}
        }
    }
    blobs.len() == 2
        && blobs
            .iter()
            .all(|&b| (b as f32) < tallest * DOT_HEIGHT && b > 0)
}

/// A run's ink in the normalised cells: square cells of a `NORM_H`th of the run's height,
/// the middle column at the ink's centre of mass, each cell the mean ink of 3 x 3 points
/// sampled in it (ink outside the run's columns left out: a neighbour's). Placed by its mass,
/// not by its outermost columns, the picture stays put when an anti-aliased or JPEG-rung
/// edge column counts as ink on one look and not the next.
fn normalise(off: &[f32], w: usize, contrast: f32, r: &Run) -> Glyph {
    let (gw, gh) = (r.x1 - r.x0, r.bottom - r.top);
    // Ink by degree: anti-aliased edges count for what they are.
    let degree = |x: usize, y: usize| ((off[y * w + x] / contrast - 0.25) / 0.5).clamp(0.0, 1.0);
    let (mut mass, mut moment) = (0.0f32, 0.0f32);
    for y in r.top..r.bottom {
        for x in r.x0..r.x1 {
            let d = degree(x, y);
            mass += d;
            moment += d * (x as f32 + 0.5);
        }
    }
    let centre = if mass > 0.0 {
        moment / mass
    } else {
        (r.x0 + r.x1) as f32 / 2.0
    };
    // The ink at (fx, fy) in pixels, bilinear between pixel centres, 0 off the run.
    let at = |fx: f32, fy: f32| {
        let (px, py) = (fx - 0.5, fy - 0.5);
        let (x0, y0) = (px.floor(), py.floor());
        let (tx, ty) = (px - x0, py - y0);
        let mut sum = 0.0;
        for (dy, wy) in [(0.0, 1.0 - ty), (1.0, ty)] {
            for (dx, wx) in [(0.0, 1.0 - tx), (1.0, tx)] {
                let (x, y) = (x0 + dx, y0 + dy);
                if x >= r.x0 as f32 && x < r.x1 as f32 && y >= r.top as f32 && y < r.bottom as f32 {
                    sum += wx * wy * degree(x as usize, y as usize);
                }
            }
        }
        sum
    };
    let cell = gh as f32 / NORM_H as f32;
    let left = centre - cell * NORM_W as f32 / 2.0;
    let mut cells = Vec::with_capacity(NORM_W * NORM_H);
    for cy in 0..NORM_H {
        for cx in 0..NORM_W {
            let mut sum = 0.0;
            for sy in 0..3 {
                for sx in 0..3 {
                    let fx = left + (cx as f32 + (sx as f32 + 0.5) / 3.0) * cell;
                    let fy = r.top as f32 + (cy as f32 + (sy as f32 + 0.5) / 3.0) * cell;
                    sum += at(fx, fy);
                }
            }
            cells.push(sum / 9.0);
        }
    }
    Glyph {
        cells: soften(&cells),
        aspect: gw as f32 / gh as f32,
    }
}

/// The cells smoothed with a 1-2-1 kernel each way: a glyph drawn small (its strokes a pixel
/// or two, blurred by anti-aliasing) and the same drawn large then differ less than two
/// digits do.
fn soften(cells: &[f32]) -> Vec<f32> {
    let at = |x: isize, y: isize| {
        let (x, y) = (
            x.clamp(0, NORM_W as isize - 1) as usize,
            y.clamp(0, NORM_H as isize - 1) as usize,
        );
        cells[y * NORM_W + x]
    };
    let mut out = Vec::with_capacity(cells.len());
    for y in 0..NORM_H as isize {
        for x in 0..NORM_W as isize {
            let mut sum = 0.0;
            for (dy, wy) in [(-1, 1.0), (0, 2.0), (1, 1.0)] {
                for (dx, wx) in [(-1, 1.0), (0, 2.0), (1, 1.0)] {
                    sum += wy * wx * at(x + dx, y + dy);
                }
            }
            out.push(sum / 16.0);
        }
    }
    out
}

/// Glyphs this near are one drawing: the clock's 5 seen twice, at one size and colour.
pub const SAME_DRAWING: f32 = 0.05;
/// A digit is read surely when its nearest digit is at most this far (the digits of DejaVu
/// Sans, Sans Bold and Sans Mono drawn at 30 to 90 pixels, dark on light, lie at most 0.17
/// from those learned off a 44-pixel clock, white on blue)...
pub const READ_NEAR: f32 = 0.22;
/// ...and every other digit at least this many times as far (there, 1.39 at least; drawn at
/// 20-26 pixels a 5 came within 1.12 of a 3 or a 6, and is left unsure).
pub const READ_RATIO: f32 = 1.3;

/// A glyph this far from every digit is no digit (an icon, a letter): the nearest digit of a
/// digit is within `READ_NEAR`.
const FAR: f32 = 0.3;
/// Glyphs whose height differs from a number's by more than this share are not its digits (a
/// label's letters drawn smaller beside it).
const HEIGHT_OFF: f32 = 0.12;

/// An icon is no wider than this share of its height.
const ICON_ASPECT: f32 = 1.2;
/// Least gaps, in shares of the number's height, between a number and an icon beside it
/// (more than a 1's bearings leave: about 0.35), and a label's smaller letters.
const ICON_GAP: f32 = 0.4;
const LABEL_GAP: f32 = 0.2;

/// Whether glyphs `from..to` of `cut` stand apart from the rest of its ink: every gap to ink
/// outside them wider than any gap between their own ink, by half, and than `least` of
/// their `height`.
fn stands_apart(cut: &Cut, from: usize, to: usize, height: f32, least: f32) -> bool {
    let (x0, x1) = (cut.spans[from].x0, cut.spans[to - 1].x1);
    let inner: Vec<&Area> = cut
        .ink
        .iter()
        .filter(|a| a.x0 >= x0 && a.x1 <= x1)
        .collect();
    let widest = inner
        .windows(2)
        .map(|w| w[1].x0.saturating_sub(w[0].x1))
        .max()
        .unwrap_or(0) as f32;
    let need = (1.5 * widest).max(least * height);
    let before = cut.ink.iter().filter(|a| a.x1 <= x0).map(|a| a.x1).max();
    let after = cut.ink.iter().filter(|a| a.x0 >= x1).map(|a| a.x0).min();
    // Ink reaching into the number's columns from outside them (a mark over it) is no gap.
    let overlapping = cut
        .ink
        .iter()
        .any(|a| a.x0 < x1 && a.x1 > x0 && !(a.x0 >= x0 && a.x1 <= x1));
    !overlapping
        && before.is_none_or(|b| (x0 - b) as f32 > need)
        && after.is_none_or(|a| (a - x1) as f32 > need)
}

/// A group of ink under this share of the tallest in its box is drawn small beside the number.
const SMALL_BESIDE: f32 = 0.8;

/// Whether `group` of `cut` is much shorter than the box's tallest ink: what is drawn small
/// beside the number (a "+7" burst), never the number.
fn small_beside(cut: &Cut, group: &Cut) -> bool {
    let tallest = cut.ink.iter().map(|a| a.y1 - a.y0).max().unwrap_or(0) as f32;
    let own = group.spans.iter().map(|a| a.y1 - a.y0).max().unwrap_or(0) as f32;
    own < SMALL_BESIDE * tallest
}

/// What `read` makes of `cut`: of the whole, when its ink is one group; else of the one group
/// it reads surely. Two groups read surely (the score and a "12" flashed beside it) are not
/// told apart: the first is given, unsure, as is the first read at all when none is sure.
fn in_groups(cut: &Cut, read: impl Fn(&Cut) -> Option<ReadNumber>) -> Option<ReadNumber> {
    if cut.groups.is_empty() {
        return read(cut);
    }
    let tall = |g: &Cut| !small_beside(cut, g);
    let reads: Vec<ReadNumber> = cut
        .groups
        .iter()
        .filter_map(|g| {
            read(g).map(|r| ReadNumber {
                sure: r.sure && tall(g),
                ..r
            })
        })
        .collect();
    let mut sure = reads.iter().filter(|r| r.sure);
    match (sure.next(), sure.next()) {
        (Some(&one), None) => Some(one),
        _ => reads.first().map(|&r| ReadNumber { sure: false, ..r }),
    }
}

/// The ten digits of one typeface, as learned from the screen.
#[derive(Clone, Debug, PartialEq)]
pub struct DigitBook {
    digits: [Glyph; 10],
}

/// A number read with a book, and how sure of it the reading is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReadNumber {
    pub value: u32,
    /// Every glyph read within `READ_NEAR` of its digit, and `READ_RATIO` times nearer it
    /// than any other.
    pub sure: bool,
}

impl DigitBook {
    /// The digit nearest `g`, whether it is sure, and its distance.
    pub fn classify(&self, g: &Glyph) -> (u8, bool, f32) {
        let mut d: Vec<(f32, u8)> = self
            .digits
            .iter()
            .zip(0u8..)
            .map(|(t, i)| (t.distance(g), i))
            .collect();
        d.sort_by(|a, b| a.0.total_cmp(&b.0));
        let sure = d[0].0 <= READ_NEAR && d[1].0 >= READ_RATIO * d[0].0;
        (d[0].1, sure, d[0].0)
    }

    /// The whole number `cut` shows: its glyphs (no colon, no stray ink), or, when its ink
    /// stands in groups (an icon, a label, a word flashed beside the number), the one group
    /// that reads surely as a number, the others ignored (`in_groups`); in a group, what
    /// stands close beside the number and is no digit (`trimmed`) is ignored too. `None` when
    /// no glyphs or group read as a number of one to nine digits.
    pub fn number(&self, cut: &Cut) -> Option<ReadNumber> {
        in_groups(cut, |c| {
            self.trimmed(c, |p| self.plain_number(p)).map(|(_, r)| r)
        })
    }

    /// The part of `cut` that `number` reads surely: the whole, or the one group that reads
    /// surely as a number, less what stands beside the number and is no digit (`None` when
    /// none reads surely, or two do).
    pub fn number_part(&self, cut: &Cut) -> Option<Cut> {
        let sure = |c: &Cut| {
            self.trimmed(c, |p| self.plain_number(p))
                .filter(|(_, r)| r.sure)
                .map(|(p, _)| p)
        };
        if cut.groups.is_empty() {
            return sure(cut);
        }
        let mut parts = cut
            .groups
            .iter()
            .filter(|g| !small_beside(cut, g))
            .filter_map(sure);
        match (parts.next(), parts.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// What `read` makes of `cut`, and the part read: the whole when it reads surely; else
    /// the one run of its glyphs that reads surely once what stands close before and after
    /// it is set aside (glyphs, and marks too short for digits: a label's small letters),
    /// when what is set aside is no digit (an icon, a label's letters: each glyph of it is
    /// `FAR` from every digit, or drawn smaller than the number) and stands apart (a wider
    /// gap than any between the number's own ink). Two such runs, or none: the whole's
    /// reading, unsure.
    fn trimmed(
        &self,
        cut: &Cut,
        read: impl Fn(&Cut) -> Option<ReadNumber>,
    ) -> Option<(Cut, ReadNumber)> {
        let whole = read(cut);
        let n = cut.glyphs.len();
        if whole.is_some_and(|r| r.sure) || n == 0 {
            return whole.map(|r| (cut.clone(), r));
        }
        let unsure = whole.map(|r| (cut.clone(), ReadNumber { sure: false, ..r }));
        let height = |k: usize| (cut.spans[k].y1 - cut.spans[k].y0) as f32;
        // An icon: far from every digit and no wider than tall (wider, it is as likely two
        // digits run together, which no digit is near either).
        let icon: Vec<bool> = cut
            .glyphs
            .iter()
            .map(|g| self.classify(g).2 > FAR && g.aspect <= ICON_ASPECT)
            .collect();
        let mut found = None;
        for from in 0..n {
            for to in from + 1..=n {
                let mut heights: Vec<f32> = (from..to).map(height).collect();
                heights.sort_by(f32::total_cmp);
                let median = heights[heights.len() / 2];
                let slack = (HEIGHT_OFF * median).max(1.5);
                let off = |k: usize| (height(k) - median).abs() > slack;
                // Only what is drawn smaller is set aside for its height: the number is the
                // tallest of what stands beside it, but for an icon.
                let smaller = |k: usize| height(k) + slack < median;
                let mut set_aside = (0..from).chain(to..n);
                if (from..to).any(off) || !set_aside.all(|k| icon[k] || smaller(k)) {
                    continue;
                }
                // Beside an icon, a wider gap than a 1's bearings leave; beside a label's
                // smaller letters, a fifth of the height.
                let icons = (0..from).chain(to..n).any(|k| icon[k] && !smaller(k));
                let gap = if icons { ICON_GAP } else { LABEL_GAP };
                if !stands_apart(cut, from, to, median, gap) {
                    continue;
                }
                let part = cut.part(from, to);
                // A lone 1 is as likely a stroke of what was set aside.
                let lone_one = |r: &ReadNumber| to - from == 1 && r.value == 1;
                if let Some(r) = read(&part).filter(|r| r.sure && !lone_one(r)) {
                    if found.is_some() {
                        return unsure;
                    }
                    found = Some((part, r));
                }
            }
        }
        found.or(unsure)
    }

    /// The number the glyphs of `cut` show, all of them: nothing else in the box (what
    /// calibrate looks for a score box by).
    pub fn plain_number(&self, cut: &Cut) -> Option<ReadNumber> {
        if cut.glyphs.is_empty() || cut.glyphs.len() > 9 || cut.colon().is_some() {
            return None;
        }
        // Separators stand between groups of three digits counted from the right, the first
        // group of one to three: "1,234,567", never "12,34".
        let (n, m) = (cut.glyphs.len(), cut.separators.len());
        let grouped = n
            .checked_sub(3 * m)
            .is_some_and(|first| m == 0 || (1..=3).contains(&first))
            && cut
                .separators
                .iter()
                .enumerate()
                .all(|(k, &at)| n - at == 3 * (m - k));
        let mut value = 0u32;
        let mut sure = !cut.stray && !cut.clipped && grouped;
        for g in &cut.glyphs {
            let (digit, s, _) = self.classify(g);
            value = value * 10 + u32::from(digit);
            sure &= s;
        }
        Some(ReadNumber { value, sure })
    }

    /// The seconds a clock's glyphs show (m:ss), when `cut` is one, or when one of its
    /// groups is and reads surely (an icon beside the clock ignored, as for `number`).
    pub fn clock(&self, cut: &Cut) -> Option<ReadNumber> {
        in_groups(cut, |c| self.plain_clock(c))
    }

    /// The seconds the glyphs of `cut` show, all of them a clock.
    fn plain_clock(&self, cut: &Cut) -> Option<ReadNumber> {
        let ClockGlyphs {
            minutes,
            tens,
            ones,
        } = cut.clock()?;
        let mut sure = !cut.clipped;
        let mut digit = |g: &Glyph| {
            let (d, s, _) = self.classify(g);
            sure &= s;
            u32::from(d)
        };
        let m = minutes.iter().fold(0, |m, g| m * 10 + digit(g));
        let (t, o) = (tens.map_or(0, &mut digit), digit(ones));
        Some(ReadNumber {
            value: m * 60 + t * 10 + o,
            // m:ss counts the tens of seconds up to 5; seconds only, up to 9.
            sure: sure && (minutes.is_empty() || t < 6),
        })
    }

    /// The ten digits as a strip of grey pictures (ink dark on white), each `NORM_W` x
    /// `NORM_H` pixels scaled up 4 times, its proportions in the first column's top pixel
    /// row: the form a profile keeps them in.
    pub fn strip(&self) -> GrayImage {
        const S: u32 = STRIP_SCALE;
        let (cw, ch) = (NORM_W as u32 * S, NORM_H as u32 * S + S);
        let mut img = GrayImage::from_pixel(cw * 10, ch, Luma([255]));
        for (i, g) in self.digits.iter().enumerate() {
            let x0 = i as u32 * cw;
            // The aspect, in hundredths, as two bytes in the top band.
            let aspect = (g.aspect * 100.0).round().clamp(0.0, 65_535.0) as u16;
            let [hi, lo] = aspect.to_be_bytes();
            for (k, byte) in [hi, lo, STRIP_VERSION].into_iter().enumerate() {
                for dx in 0..S {
                    img.put_pixel(x0 + k as u32 * S + dx, 0, Luma([byte]));
                }
            }
            for (c, v) in g.cells.iter().enumerate() {
                let (cx, cy) = ((c % NORM_W) as u32, (c / NORM_W) as u32);
                let grey = 255 - (v.clamp(0.0, 1.0) * 255.0).round() as u8;
                for dy in 0..S {
                    for dx in 0..S {
                        img.put_pixel(x0 + cx * S + dx, S + cy * S + dy, Luma([grey]));
                    }
                }
            }
        }
        img
    }

    /// A book back from its `strip`; `None` when the picture is not one.
    pub fn from_strip(img: &GrayImage) -> Option<DigitBook> {
        const S: u32 = STRIP_SCALE;
        let (cw, ch) = (NORM_W as u32 * S, NORM_H as u32 * S + S);
        if img.dimensions() != (cw * 10, ch) {
            return None;
        }
        let digits: Vec<Glyph> = (0..10)
            .map(|i| {
                let x0 = i * cw;
                let hi = img.get_pixel(x0, 0).0[0];
                let lo = img.get_pixel(x0 + S, 0).0[0];
                let aspect = f32::from(u16::from_be_bytes([hi, lo])) / 100.0;
                if img.get_pixel(x0 + 2 * S, 0).0[0] != STRIP_VERSION {
                    // Cells of another normalisation (an older version's): no book.
                    return Glyph {
                        cells: Vec::new(),
                        aspect: 0.0,
                    };
                }
                let cells = (0..NORM_W * NORM_H)
                    .map(|c| {
                        let (cx, cy) = ((c % NORM_W) as u32, (c / NORM_W) as u32);
                        let grey = img.get_pixel(x0 + cx * S, S + cy * S).0[0];
                        f32::from(255 - grey) / 255.0
                    })
                    .collect();
                Glyph { cells, aspect }
            })
            .collect();
        if digits.iter().any(|g| !(0.05..=5.0).contains(&g.aspect)) {
            return None;
        }
        Some(DigitBook {
            digits: digits.try_into().ok()?,
        })
    }
}

/// Pixels per cell in a book's strip.
const STRIP_SCALE: u32 = 4;
/// The normalisation a strip's cells were made with, in its third top-band byte (strips
/// from before it have white there): cells placed by their centre of mass.
const STRIP_VERSION: u8 = 2;

/// Learns a typeface's ten digits from a clock counting down, look by look. Each look's
/// glyphs are sorted into drawings (glyphs within `SAME_DRAWING` of each other); a look a second
/// after another whose seconds' drawing changed says that drawing is one less than the last
/// (mod 10), and the look where the tens changed with it says the seconds went from 0 to 9.
/// Once the ten drawings are tied to ten digits without a contradiction, the book is known.
#[derive(Clone, Debug, Default)]
pub struct Countdown {
    /// One glyph per drawing seen.
    drawings: Vec<Glyph>,
    /// The last look: when (in seconds), and its drawings (minutes, tens, ones).
    last: Option<(f64, Vec<usize>, usize, usize)>,
    /// Seconds' drawings one step apart: (before, after, the tens changed too).
    steps: Vec<(usize, usize, bool)>,
    /// Looks that were no clock.
    pub not_clocks: usize,
    /// The clock as each look showed it (its part of the box), and when: a book must read
    /// them as a clock counting down a second a second.
    history: Vec<(f64, Cut)>,
}

/// A turn of the ten tried by `Countdown::book`: its rank (steps arguing with it, looks its
/// book reads), its labels, its book.
type Turn = (
    (usize, std::cmp::Reverse<usize>),
    Vec<Option<u8>>,
    DigitBook,
);

/// Looks kept to check a book against: a minute at four looks a second.
const HISTORY: usize = 240;
/// How far apart two looks' seconds on the clock plus their times may lie and still count
/// down together: a second (the clock ticks between looks), and the slack of when a look is
/// dated (a screenshot's latency).
const KEEPS_TIME: f64 = 1.5;

/// Drawings farther apart than this are of two digits; nearer, they may be one digit drawn
/// with another look's noise (JPEG, an edge column counted as ink or not).
const OTHER_DIGIT: f32 = 3.0 * SAME_DRAWING;
/// Ten digits nearer each other than this are not told apart: no book.
const APART: f32 = 2.0 * SAME_DRAWING;
/// Looks farther apart than this may straddle two ticks of the clock: they teach nothing.
const TICK: f64 = 1.0;
/// More drawings than this is no clock in one typeface (ten digits, with a few doubles from
/// noise or scaling).
const MAX_DRAWINGS: usize = 30;

impl Countdown {
    /// Takes one look at the clock, at `at` seconds on any steady clock.
    pub fn see(&mut self, at: f64, cut: &Cut) {
        let Some(ClockGlyphs {
            minutes,
            tens: Some(tens),
            ones,
        }) = cut.clock_part().and_then(Cut::clock)
        else {
            self.not_clocks += 1;
            self.last = None;
            return;
        };
        if self.history.len() < HISTORY
            && let Some(part) = cut.clock_part()
        {
            self.history.push((at, part.clone()));
        }
        let minutes: Vec<usize> = minutes.iter().map(|g| self.drawing(g)).collect();
        let (tens, ones) = (self.drawing(tens), self.drawing(ones));
        if self.drawings.len() > MAX_DRAWINGS {
            *self = Countdown {
                not_clocks: self.not_clocks + 1,
                ..Countdown::default()
            };
            return;
        }
        // Two drawings of one digit (a look's noise apart) are no tick.
        let other = |a: usize, b: usize| {
            a != b && self.drawings[a].distance(&self.drawings[b]) > OTHER_DIGIT
        };
        if let Some((t, _, last_tens, last_ones)) = &self.last
            && at - t < TICK
            && other(*last_ones, ones)
        {
            let step = (*last_ones, ones, other(*last_tens, tens));
            if !self.steps.contains(&step) {
                self.steps.push(step);
            }
        }
        self.last = Some((at, minutes, tens, ones));
    }

    /// The drawing `g` is, a new one if it is like none seen.
    fn drawing(&mut self, g: &Glyph) -> usize {
        match self
            .drawings
            .iter()
            .position(|d| d.distance(g) <= SAME_DRAWING)
        {
            Some(i) => i,
            None => {
                self.drawings.push(g.clone());
                self.drawings.len() - 1
            }
        }
    }

    /// The digits, once every one has been tied to a drawing without a contradiction.
    ///
    /// The steps tie the drawings to digits up to a turn of the ten (which one is 0); a step
    /// where the tens changed says which, but the tens' drawing may flicker on a look (a
    /// small face, JPEG) on a step that was no borrow. Each step where the tens changed is
    /// tried as the borrow from 0 to 9, and the turn kept is the one the fewest steps argue
    /// with: a step from 0 whose tens did not change, or a step from elsewhere whose tens did.
    /// A turn whose book reads the looks seen as no countdown (`keeps_time`) is none; two
    /// turns argued with equally and reading as many looks are no book yet (more looks may
    /// tell them apart).
    pub fn book(&self) -> Option<DigitBook> {
        // The turn argued with least; between two argued with equally, the one whose book
        // reads more of the looks seen surely.
        let mut best: Option<Turn> = None;
        let mut tied = false;
        for &(zero, nine, _) in self.steps.iter().filter(|s| s.2) {
            // A turn whose book does not read the looks seen as a clock counting down (a
            // tens' flicker taken for the borrow shifts every digit) is none.
            let Some((label, book, reads)) = self.labels(zero, nine).and_then(|l| {
                let book = self.book_of(&l)?;
                let reads = self.keeps_time(&book)?;
                Some((l, book, reads))
            }) else {
                continue;
            };
            if best.as_ref().is_some_and(|(_, l, _)| *l == label) {
                continue;
            }
            let argued = self
                .steps
                .iter()
                .filter(|&&(before, _, tens)| label[before].is_some_and(|b| (b == 0) != tens))
                .count();
            let rank = (argued, std::cmp::Reverse(reads));
            match &best {
                Some((r, _, _)) if rank > *r => {}
                Some((r, _, _)) if rank == *r => tied = true,
                _ => {
                    best = Some((rank, label, book));
                    tied = false;
                }
            }
        }
        best.filter(|_| !tied).map(|(_, _, book)| book)
    }

    /// Why no book is known yet, for the user: the first thing missing of what `book`
    /// needs; `None` once there is a book.
    pub fn trouble(&self) -> Option<&'static str> {
        if self.book().is_some() {
            return None;
        }
        let borrows: Vec<(usize, usize)> = self
            .steps
            .iter()
            .filter(|s| s.2)
            .map(|&(zero, nine, _)| (zero, nine))
            .collect();
        if self.steps.is_empty() {
            return Some("the seconds were never seen to change");
        }
        if borrows.is_empty() {
            return Some("no step from 0 to 9 seen: the tens never told apart");
        }
        let labels: Vec<Vec<Option<u8>>> = borrows
            .iter()
            .filter_map(|&(zero, nine)| self.labels(zero, nine))
            .collect();
        if labels.is_empty() {
            return Some("its steps contradict each other");
        }
        let whole = |l: &Vec<Option<u8>>| (0..10).all(|d| l.contains(&Some(d)));
        if !labels.iter().any(whole) {
            return Some("not every digit was seen to tick into the next");
        }
        let books: Vec<DigitBook> = labels.iter().filter_map(|l| self.book_of(l)).collect();
        if books.is_empty() {
            return Some("two digits were drawn alike");
        }
        if books.iter().all(|b| self.keeps_time(b).is_none()) {
            return Some("no book read its looks as one countdown");
        }
        Some("two books read its looks equally well")
    }

    /// How many of the clock's looks `book` reads surely, when it reads them as one
    /// countdown: each look's seconds plus its time within `KEEPS_TIME` of every other's.
    /// `None` when they are not, or when it reads none of them (a book shifted by a digit,
    /// a tens' flicker taken for the borrow, reads the looks whose seconds end in 9 ten
    /// seconds apart from their neighbours, or puts the tens out of range).
    fn keeps_time(&self, book: &DigitBook) -> Option<usize> {
        let read: Vec<f64> = self
            .history
            .iter()
            .filter_map(|(at, c)| {
                book.clock(c)
                    .filter(|n| n.sure)
                    .map(|n| f64::from(n.value) + at)
            })
            .collect();
        let (lo, hi) = read
            .iter()
            .fold((f64::MAX, f64::MIN), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        let none = read.is_empty() && !self.history.is_empty();
        (!none && hi - lo <= KEEPS_TIME).then_some(read.len())
    }

    /// The book `label` makes: each digit's drawing (two drawings of one digit only when
    /// alike), ten digits told apart.
    fn book_of(&self, label: &[Option<u8>]) -> Option<DigitBook> {
        let mut digits: [Option<Glyph>; 10] = Default::default();
        for (i, l) in label.iter().enumerate() {
            if let Some(d) = l {
                match &digits[usize::from(*d)] {
                    // Two drawings of one digit (at two places, a pixel's fraction apart)
                    // are fine only if they are alike.
                    Some(g) if g.distance(&self.drawings[i]) > READ_NEAR => return None,
                    Some(_) => {}
                    None => digits[usize::from(*d)] = Some(self.drawings[i].clone()),
                }
            }
        }
        let digits: Vec<Glyph> = digits.into_iter().collect::<Option<_>>()?;
        let book = DigitBook {
            digits: digits.try_into().ok()?,
        };
        // Ten digits that are not told apart are no book.
        let apart = (0..10)
            .all(|i| (0..10).all(|j| i == j || book.digits[i].distance(&book.digits[j]) > APART));
        apart.then_some(book)
    }

    /// Each drawing's digit with `zero` taken for 0 and `nine` for 9, every step's drawing
    /// after one less than its drawing before; `None` when the steps contradict it.
    fn labels(&self, zero: usize, nine: usize) -> Option<Vec<Option<u8>>> {
        let mut label: Vec<Option<u8>> = vec![None; self.drawings.len()];
        label[zero] = Some(0);
        label[nine] = Some(9);
        loop {
            let mut grew = false;
            for &(before, after, _) in &self.steps {
                match (label[before], label[after]) {
                    (Some(b), None) => {
                        label[after] = Some((b + 9) % 10);
                        grew = true;
                    }
                    (None, Some(a)) => {
                        label[before] = Some((a + 1) % 10);
                        grew = true;
                    }
                    (Some(b), Some(a)) if (b + 9) % 10 != a => return None,
                    _ => {}
                }
            }
            if !grew {
                return Some(label);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ab_glyph::{FontRef, PxScale};
    use image::Rgba;
    use imageproc::drawing::draw_text_mut;

    /// `text` drawn in `font` at `size` on a `bg` box, as a game's header draws its numbers.
    fn drawn(font: &FontRef, text: &str, size: f32, ink: [u8; 3], bg: [u8; 3]) -> RgbaImage {
        let w = (size * 0.8 * text.len() as f32 + size) as u32;
        let h = (size * 1.6) as u32;
        let mut img = RgbaImage::from_pixel(w, h, Rgba([bg[0], bg[1], bg[2], 255]));
        let (x, y) = ((size * 0.4) as i32, (size * 0.2) as i32);
        let colour = Rgba([ink[0], ink[1], ink[2], 255]);
        draw_text_mut(&mut img, colour, x, y, PxScale::from(size), font, text);
        img
    }

    fn all(img: &RgbaImage) -> Area {
        Area {
            x0: 0,
            y0: 0,
            x1: img.width(),
            y1: img.height(),
        }
    }

    fn faces() -> Vec<(&'static str, FontRef<'static>)> {
        vec![
            (
                "DejaVu Sans Bold",
                FontRef::try_from_slice(dejavu::sans::bold()).unwrap(),
            ),
            (
                "DejaVu Sans",
                FontRef::try_from_slice(dejavu::sans::regular()).unwrap(),
            ),
            (
                "DejaVu Sans Mono",
                FontRef::try_from_slice(dejavu::sans_mono::regular()).unwrap(),
            ),
        ]
    }

    /// A clock counting down from `from` seconds, looked at four times a second, in `font`.
    fn learn(font: &FontRef, from: u32, looks: u32, size: f32) -> Countdown {
        let mut c = Countdown::default();
        for k in 0..looks {
            let t = f64::from(k) * 0.25;
            let left = from - (t as u32);
            let text = format!("{}:{:02}", left / 60, left % 60);
            let img = drawn(font, &text, size, [255, 255, 255], [30, 60, 120]);
            c.see(t, &cut(&img, all(&img)));
        }
        c
    }

    #[test]
    fn a_clock_is_cut_into_minutes_colon_and_seconds() {
        for (name, font) in faces() {
            // (text, glyphs, colon)
            let cases = [
                ("1:58", 3, Some(1)),
                ("10:05", 4, Some(2)),
                ("2450", 4, None),
            ];
            for (text, n, colon) in cases {
                let img = drawn(&font, text, 40.0, [250, 250, 250], [40, 80, 140]);
                let c = cut(&img, all(&img));
                assert_eq!(
                    (c.glyphs.len(), c.colon(), c.stray),
                    (n, colon, false),
                    "{name} {text}"
                );
            }
        }
    }

    #[test]
    fn twenty_seconds_of_a_clock_teach_every_digit_and_the_score_is_read_with_them() {
        for (name, font) in faces() {
            // From 1:57 the seconds pass 0 to 9 at 1:50: 20 s of looks hold a borrow and a
            // full turn of the seconds.
            let book = learn(&font, 117, 80, 44.0)
                .book()
                .unwrap_or_else(|| panic!("{name}: no book"));
            // Numbers drawn at other sizes, dark on light, as a score box may be.
            for (value, size) in [
                (0, 44.0),
                (1821, 30.0),
                (5532, 60.0),
                (907_364, 36.0),
                (61_702_948, 90.0),
            ] {
                let img = drawn(
                    &font,
                    &value.to_string(),
                    size,
                    [20, 20, 20],
                    [240, 230, 200],
                );
                let read = book.number(&cut(&img, all(&img)));
                assert_eq!(
                    read,
                    Some(ReadNumber { value, sure: true }),
                    "{name} {value} at {size}"
                );
            }
            let img = drawn(&font, "0:20", 44.0, [255, 255, 255], [30, 60, 120]);
            assert_eq!(
                book.clock(&cut(&img, all(&img))),
                Some(ReadNumber {
                    value: 20,
                    sure: true
                }),
                "{name}"
            );
        }
    }

    #[test]
    fn thousands_separators_are_read_past_and_must_group_by_three() {
        for (name, font) in faces() {
            let book = learn(&font, 117, 80, 44.0).book().unwrap();
            let read = |text: &str| {
                let img = drawn(&font, text, 40.0, [250, 250, 250], [60, 30, 90]);
                book.number(&cut(&img, all(&img)))
            };
            for (text, value) in [("1,234", 1234), ("12.345", 12345), ("1.234.567", 1_234_567)] {
                assert_eq!(
                    read(text),
                    Some(ReadNumber { value, sure: true }),
                    "{name}: {text}"
                );
            }
            // Separators where no thousands fall, or a mark above the baseline: not sure.
            for text in ["12,34", "1234,5", "1-234"] {
                assert!(
                    read(text).is_none_or(|n| !n.sure),
                    "{name}: {text} read surely"
                );
            }
            // A clock has none.
            let img = drawn(&font, "1:2.3", 40.0, [250, 250, 250], [60, 30, 90]);
            assert!(
                book.clock(&cut(&img, all(&img))).is_none_or(|n| !n.sure),
                "{name}"
            );
        }
    }

    /// `number` drawn at `size` with, `gap` digit heights to its right, a disc a digit high
    /// (a coin) or, when `wide`, a bar 1.5 times as wide as high (two digits run together);
    /// `label` drawn at 0.6 of the size before it, 0.3 of the size apart.
    fn beside(
        font: &FontRef,
        label: &str,
        number: &str,
        size: f32,
        gap: f32,
        wide: Option<bool>,
    ) -> RgbaImage {
        use imageproc::drawing::{draw_filled_circle_mut, draw_filled_rect_mut, text_size};
        let (ink, bg) = (Rgba([250, 250, 250, 255]), Rgba([60, 30, 90, 255]));
        let mut img = RgbaImage::from_pixel((size * 12.0) as u32, (size * 1.6) as u32, bg);
        let scale = PxScale::from(size);
        let mut x = (size * 0.4) as i32;
        if !label.is_empty() {
            let small = PxScale::from(size * 0.6);
            draw_text_mut(&mut img, ink, x, (size * 0.45) as i32, small, font, label);
            x += text_size(small, font, label).0 as i32 + (size * 0.3) as i32;
        }
        draw_text_mut(&mut img, ink, x, (size * 0.2) as i32, scale, font, number);
        let drawn = cut(&img, all(&img));
        let (right, top, bottom) = drawn.ink.iter().fold((0, u32::MAX, 0), |(r, t, b), a| {
            (r.max(a.x1), t.min(a.y0), b.max(a.y1))
        });
        let high = (bottom - top) as f32;
        let x0 = right as f32 + gap * high;
        match wide {
            Some(false) => {
                let r = (high / 2.0) as i32;
                let centre = ((x0 + high / 2.0) as i32, ((top + bottom) / 2) as i32);
                draw_filled_circle_mut(&mut img, centre, r, ink);
            }
            Some(true) => {
                let rect = imageproc::rect::Rect::at(x0 as i32, top as i32)
                    .of_size((1.5 * high) as u32, bottom - top);
                draw_filled_rect_mut(&mut img, rect, ink);
            }
            None => {}
        }
        img
    }

    /// The column just right of the rightmost ink on `img`.
    fn ink_right(img: &RgbaImage) -> i32 {
        cut(img, all(img))
            .ink
            .iter()
            .map(|a| a.x1)
            .max()
            .unwrap_or(0) as i32
    }

    #[test]
    fn an_icon_or_a_label_close_beside_a_number_is_set_aside_and_never_digits_run_together() {
        for (name, font) in faces() {
            let book = learn(&font, 117, 80, 44.0).book().unwrap();
            let read = |img: &RgbaImage| book.number(&cut(img, all(img)));
            let sure = |value| Some(ReadNumber { value, sure: true });
            // A coin half a digit's height after the number: one group of ink with it.
            let img = beside(&font, "", "174", 40.0, 0.5, Some(false));
            assert!(cut(&img, all(&img)).groups.is_empty(), "{name}: one group");
            assert_eq!(read(&img), sure(174), "{name}: coin beside");
            assert_eq!(
                book.number_part(&cut(&img, all(&img)))
                    .map(|c| c.glyphs.len()),
                Some(3)
            );
            // A label's smaller letters before it.
            for label in ["PTS", "SCORE"] {
                let img = beside(&font, label, "0", 40.0, 0.0, None);
                assert_eq!(read(&img), sure(0), "{name}: {label} 0");
            }
            // Ink as wide as two digits beside one is no icon: nothing read surely.
            let img = beside(&font, "", "25", 40.0, 0.5, Some(true));
            assert!(
                read(&img).is_none_or(|n| !n.sure),
                "{name}: 25 beside a bar"
            );
            // Nor a coin closer than a 1's bearings leave.
            let img = beside(&font, "", "174", 40.0, 0.15, Some(false));
            assert!(read(&img).is_none_or(|n| !n.sure), "{name}: coin touching");
        }
    }

    /// A "+7" burst's digit drawn small beside the number, far enough to be a group of its
    /// own, is never read for the number.
    #[test]
    fn a_small_burst_beside_the_number_is_never_the_number() {
        for (name, font) in faces() {
            let book = learn(&font, 117, 80, 44.0).book().unwrap();
            // "40" run together (as a small, blurred capture draws it) and a burst after it.
            let mut img = RgbaImage::from_pixel(480, 64, Rgba([60, 30, 90, 255]));
            let bar = imageproc::rect::Rect::at(20, 14).of_size(44, 30);
            imageproc::drawing::draw_filled_rect_mut(&mut img, bar, Rgba([250, 250, 250, 255]));
            let small = PxScale::from(22.0);
            draw_text_mut(
                &mut img,
                Rgba([250, 250, 250, 255]),
                110,
                30,
                small,
                &font,
                "+7",
            );
            let c = cut(&img, all(&img));
            assert!(!c.groups.is_empty(), "{name}: the burst stands apart");
            assert!(
                book.number(&c).is_none_or(|n| !n.sure),
                "{name}: {:?}",
                book.number(&c)
            );
            // A "+7" burst two thirds the number's size, close enough to be one group with
            // it: its 7 stands apart from the plus, but is never read for the number.
            let mut img = beside(&font, "", "194", 40.0, 0.0, None);
            let end = ink_right(&img);
            let (ink, small) = (Rgba([250, 250, 250, 255]), PxScale::from(26.0));
            draw_text_mut(&mut img, ink, end + 8, 19, small, &font, "+");
            let plus = ink_right(&img);
            draw_text_mut(&mut img, ink, plus + 4, 19, small, &font, "7");
            let read = book.number(&cut(&img, all(&img)));
            assert!(
                read.is_none_or(|n| n.value == 194 || !n.sure),
                "{name}: {read:?}"
            );
        }
    }

    #[test]
    fn a_number_cut_by_its_box_is_never_read_surely() {
        for (name, font) in faces() {
            let book = learn(&font, 117, 80, 44.0).book().unwrap();
            let img = drawn(&font, "12345", 40.0, [250, 250, 250], [60, 30, 90]);
            let whole = cut(&img, all(&img));
            assert_eq!(book.number(&whole).map(|n| n.sure), Some(true), "{name}");
            // The box's right side a pixel into the last glyph: what shows still reads as
            // 12345, but the box holds only part of what is drawn: not sure (without the
            // check this read surely).
            let part = Area {
                x1: whole.spans[4].x1 - 1,
                ..all(&img)
            };
            assert!(
                book.number(&cut(&img, part)).is_none_or(|n| !n.sure),
                "{name}: a cut number read surely"
            );
        }
    }

    #[test]
    fn a_flicker_of_the_tens_is_not_taken_for_the_borrow() {
        for (name, font) in faces() {
            let clean = learn(&font, 117, 80, 44.0);
            let truth = clean.book().unwrap();
            // The tens' drawing flickered on one look: a step that was no borrow says the
            // tens changed, and it is the first such step seen.
            let mut c = clean.clone();
            let &(from, to, _) = c.steps.iter().find(|s| !s.2).unwrap();
            c.steps.insert(0, (from, to, true));
            let book = c.book().unwrap_or_else(|| panic!("{name}: no book"));
            for d in 0..10 {
                assert!(
                    book.digits[d].distance(&truth.digits[d]) < SAME_DRAWING,
                    "{name}: {d} learned as another digit"
                );
            }
            // With no step to tell the flicker from the borrow (only two tens changes, the
            // steps that would argue with either gone), the looks seen tell them apart: the
            // flicker's book reads them as a clock that jumps at the borrow.
            let mut c = clean.clone();
            let borrow = *c.steps.iter().find(|s| s.2).unwrap();
            c.steps.retain(|s| s.0 != borrow.0 && s.0 != from);
            c.steps.extend([borrow, (from, to, true)]);
            assert_eq!(c.book().as_ref(), Some(&truth), "{name}: the looks tell");
            // Without them, no book rather than a wrong one.
            c.history.clear();
            assert!(c.book().is_none(), "{name}: a book from a tie");
        }
    }

    #[test]
    fn digits_drawn_small_are_never_read_wrong_and_sure() {
        for (name, font) in faces() {
            let book = learn(&font, 117, 80, 44.0).book().unwrap();
            for size in [16.0, 20.0, 26.0] {
                let img = drawn(&font, "0123456789", size, [20; 3], [240, 230, 200]);
                let c = cut(&img, all(&img));
                assert_eq!(c.glyphs.len(), 10, "{name} at {size}");
                for (i, g) in c.glyphs.iter().enumerate() {
                    let (digit, sure, _) = book.classify(g);
                    assert!(
                        !sure || usize::from(digit) == i,
                        "{name} at {size}: {i} read as {digit}"
                    );
                }
            }
        }
    }

    #[test]
    fn too_few_looks_teach_nothing_and_a_still_clock_teaches_nothing() {
        let font = FontRef::try_from_slice(dejavu::sans::bold()).unwrap();
        // 8 s without a borrow (1:57 to 1:50 is reached at 7 s: 1:58 to 1:51 is not).
        let short = learn(&font, 118, 32, 44.0);
        assert!(short.book().is_none());
        // calibrate says why.
        assert_eq!(
            short.trouble(),
            Some("no step from 0 to 9 seen: the tens never told apart")
        );
        // 1:52 to 1:48: the borrow from 1:50 to 1:49 is seen, 3 to 7 are not yet.
        assert_eq!(
            learn(&font, 112, 20, 44.0).trouble(),
            Some("not every digit was seen to tick into the next")
        );
        assert_eq!(learn(&font, 117, 80, 44.0).trouble(), None);
        // A frozen clock: the same drawing every look.
        let mut c = Countdown::default();
        let img = drawn(&font, "1:30", 44.0, [255, 255, 255], [30, 60, 120]);
        for k in 0..100 {
            c.see(f64::from(k) * 0.25, &cut(&img, all(&img)));
        }
        assert!(c.book().is_none());
        assert_eq!(c.trouble(), Some("the seconds were never seen to change"));
        // Looks two seconds apart may straddle two ticks: they tie nothing.
        let mut c = Countdown::default();
        for k in 0..40u32 {
            let left = 117 - 2 * k;
            let img = drawn(
                &font,
                &format!("{}:{:02}", left / 60, left % 60),
                44.0,
                [255; 3],
                [0; 3],
            );
            c.see(f64::from(k) * 2.0, &cut(&img, all(&img)));
        }
        assert!(c.book().is_none());
    }

    #[test]
    fn a_clock_of_seconds_only_teaches_its_digits_and_is_read() {
        let font = FontRef::try_from_slice(dejavu::sans::bold()).unwrap();
        // From 97 the seconds pass 90 to 89 at 8 s: 20 s of looks hold the borrow.
        let mut c = Countdown::default();
        for k in 0..80u32 {
            let t = f64::from(k) * 0.25;
            let img = drawn(
                &font,
                &(97 - t as u32).to_string(),
                40.0,
                [255; 3],
                [20, 90, 60],
            );
            c.see(t, &cut(&img, all(&img)));
        }
        let book = c.book().expect("a book off a clock of seconds");
        for (text, secs) in [("88", 88), ("7", 7), ("0:42", 42), ("1:05", 65)] {
            let img = drawn(&font, text, 40.0, [255; 3], [20, 90, 60]);
            assert_eq!(
                book.clock(&cut(&img, all(&img))),
                Some(ReadNumber {
                    value: secs,
                    sure: true
                }),
                "{text}"
            );
        }
        // Three glyphs and no colon may be an m:ss that lost its colon: no clock.
        let img = drawn(&font, "105", 40.0, [255; 3], [20, 90, 60]);
        assert_eq!(book.clock(&cut(&img, all(&img))), None);
    }

    #[test]
    fn a_strip_of_another_normalisation_is_no_book() {
        let font = FontRef::try_from_slice(dejavu::sans::bold()).unwrap();
        let book = learn(&font, 117, 80, 44.0).book().unwrap();
        let mut old = book.strip();
        // Strips from before the version byte have white there.
        for dx in 0..STRIP_SCALE {
            old.put_pixel(2 * STRIP_SCALE + dx, 0, Luma([255]));
        }
        assert!(DigitBook::from_strip(&old).is_none());
    }

    #[test]
    fn a_book_survives_its_strip() {
        let font = FontRef::try_from_slice(dejavu::sans::bold()).unwrap();
        let book = learn(&font, 117, 80, 44.0).book().unwrap();
        let back = DigitBook::from_strip(&book.strip()).expect("a strip");
        for (a, b) in book.digits.iter().zip(&back.digits) {
            assert!(a.distance(b) < 0.01, "{a:?} {b:?}");
        }
        assert!(DigitBook::from_strip(&GrayImage::new(10, 10)).is_none());
    }

    #[test]
    fn an_empty_or_flat_box_holds_no_number() {
        let img = RgbaImage::from_pixel(40, 20, Rgba([90, 90, 90, 255]));
        assert_eq!(cut(&img, all(&img)), Cut::default());
        let off = Area {
            x0: 100,
            y0: 100,
            x1: 200,
            y1: 200,
        };
        assert_eq!(cut(&img, off), Cut::default());
    }
}
