//! Finding the game's numbers on its round screen, without a person: the clock is what
//! changes there every second (outside the grid), widened to its whole line of ink; its
//! digits are learned as it counts down (`vision::digits::Countdown`); the score is a number
//! those digits read surely elsewhere on the screen. Pure: looks in, boxes and digits out;
//! `probe::watch_numbers` takes the looks.

use std::collections::VecDeque;

use image::RgbaImage;

use crate::vision::digits::{self, Area, Countdown, DigitBook};

/// A channel difference that counts a pixel as changed between two looks (JPEG noise and
/// dithering stay below).
const CHANGED: u8 = 48;
/// Gaps of ink wider than this many digit heights end a number's line.
const LINE_GAP: f32 = 1.2;

/// Looks that must pass before the busiest pixels are taken for the clock (three ticks).
const CLOCK_LOOKS: u32 = 12;

/// What watching a round's screen found of the game's numbers.
pub struct Numbers {
    pub clock: Option<Area>,
    /// The digits the clock taught, when it counted down long enough.
    pub digits: Option<DigitBook>,
    pub score: Option<Area>,
    /// What was found, or not, a line each, for the user.
    pub about: Vec<String>,
}

/// What calibrate makes of a round's screen, look by look: first the clock (what changes
/// every second outside `skip`), then its digits as it counts down, then the score. Pure:
/// `probe::watch_numbers` takes the looks off a phone, the header bench off a generator.
pub struct Watch {
    changes: Changes,
    clock: Option<Area>,
    score: Option<Area>,
    skip: Area,
    countdown: Countdown,
    /// The latest looks since the clock was found (at most `STEADY_LOOKS`), the header's
    /// rows only: the score is found on the last and must hold on them all.
    recent: VecDeque<RgbaImage>,
    book: Option<DigitBook>,
    /// When the clock was found (0 when given).
    found_at: f64,
    /// Looks taken since the digits were learned, and when they were.
    looks_with_book: u32,
    learned_at: f64,
}

/// Looks between two searches for the score once the digits are known (one a second at
/// calibrate's pace).
const SCORE_EVERY: u32 = 4;
/// Looks the score is looked for once the digits are known (ten seconds), before the watch
/// ends without it (a game may show none).
const SCORE_LOOKS: u32 = 40;

/// Looks kept to tell the score from a flash: about three seconds at calibrate's pace.
const STEADY_LOOKS: usize = 12;

impl Watch {
    /// For a `width` x `height` screen, the grid `skip` left out; a `clock` or `score` box
    /// the user gave is taken as found.
    pub fn new(
        width: u32,
        height: u32,
        skip: Area,
        clock: Option<Area>,
        score: Option<Area>,
    ) -> Watch {
        Watch {
            changes: Changes::new(width, height, skip),
            clock,
            score,
            skip,
            countdown: Countdown::default(),
            recent: VecDeque::new(),
            book: None,
            found_at: 0.0,
            looks_with_book: 0,
            learned_at: 0.0,
        }
    }

    /// Takes the look `img`, at `at` seconds on any steady clock; true once the digits are
    /// learned and the score found, or looked for long enough (nothing more to watch for).
    pub fn see(&mut self, at: f64, img: RgbaImage) -> bool {
        match self.clock {
            None => {
                self.changes.see(at, img);
                if self.changes.looks >= CLOCK_LOOKS {
                    self.clock = clock_box(&self.changes);
                    if self.clock.is_some() {
                        self.found_at = at;
                    }
                }
            }
            Some(area) => {
                self.countdown.see(at, &digits::cut(&img, area));
                if self.recent.len() == STEADY_LOOKS {
                    self.recent.pop_front();
                }
                // Above the grid is all the score is looked for in.
                let rows = if self.skip.y1 > self.skip.y0 {
                    self.skip.y0.min(img.height())
                } else {
                    img.height()
                };
                let top = image::imageops::crop_imm(&img, 0, 0, img.width(), rows).to_image();
                self.recent.push_back(top);
                if self.book.is_none() {
                    self.book = self.countdown.book();
                    if self.book.is_some() {
                        self.learned_at = at;
                    }
                }
                // Once the digits are known, the score is looked for about once a second
                // until found: it may be hidden a moment (a burst over it, counting up).
                self.looks_with_book += u32::from(self.book.is_some());
                if self.score.is_none()
                    && self.looks_with_book % SCORE_EVERY == 1
                    && let (Some(book), Some(last)) = (&self.book, self.recent.back())
                {
                    let recent = &self.recent;
                    self.score =
                        score_box_where(last, book, self.skip, area, |a| steady(recent, book, a));
                }
            }
        }
        self.book.is_some() && (self.score.is_some() || self.looks_with_book >= SCORE_LOOKS)
    }

    /// What was found after `secs` of watching, with a line each for the user.
    pub fn finish(self, secs: f64) -> Numbers {
        let (found_at, learned_at) = (self.found_at, self.learned_at);
        let (skip, countdown, recent) = (self.skip, self.countdown, self.recent);
        let last = recent.back();
        let (found, book, score) = (self.clock, self.book, self.score);
        let mut about = Vec::new();
        let Some(clock) = found else {
            about.push(format!(
            "no clock found in {secs:.0} s (nothing outside the grid changed every second): give --clock-box, or calibrate during a round"
        ));
            return Numbers {
                clock: None,
                digits: None,
                score,
                about,
            };
        };
        let place = |a: Area| format!("[{}, {}, {}, {}]", a.x0, a.y0, a.x1, a.y1);
        let Some(book) = book else {
            about.push(format!(
            "clock at {} (found after {:.0} s), its digits not learned in {secs:.0} s ({}; {} looks were no clock): the score and clock will not be read",
            place(clock),
            found_at,
            countdown.trouble().unwrap_or("no book"),
            countdown.not_clocks
        ));
            return Numbers {
                clock: Some(clock),
                digits: None,
                score,
                about,
            };
        };
        about.push(format!(
            "clock at {}: its ten digits learned in {:.0} s",
            place(clock),
            learned_at
        ));
        // The clock read back with the digits just learned, as play will read it: a box that
        // takes in more than the number (an icon beside it) is said now, not found out in play.
        if let Some(img) = last
            && book.clock(&digits::cut(img, clock)).is_none_or(|n| !n.sure)
        {
            about.push(format!(
            "WARNING: the clock at {} does not read back surely with the digits learned (something beside the number in its box?): play will not read the game's clock, and plays each round until its board leaves the screen; give --clock-box around the digits only",
            place(clock)
        ));
        }
        let score = score.or_else(|| {
            last.and_then(|img| {
                score_box_where(img, &book, skip, clock, |a| steady(&recent, &book, a))
            })
        });
        match (score, last) {
            (Some(s), Some(img)) => {
                let shows = book
                    .number(&digits::cut(img, s))
                    .filter(|n| n.sure)
                    .map_or_else(|| "not read surely".to_owned(), |n| n.value.to_string());
                about.push(format!("score at {} (shows {shows})", place(s)));
            }
            (Some(s), None) => about.push(format!("score at {}", place(s))),
            (None, _) => about.push(
                "no score found (no other number the clock's digits read): give --score-box".into(),
            ),
        }
        Numbers {
            clock: Some(clock),
            digits: Some(book),
            score,
            about,
        }
    }
}

/// The grid's whole box on the screen (tiles and the gaps between them), left out of the
/// watch: tiles light up there when touched.
pub fn grid_area(g: &crate::vision::grid::Grid) -> Area {
    let (first, last) = (g.centres[0], g.centres[15]);
    let half = (g.pitch.0.max(g.pitch.1) / 2.0).max(g.tile / 2.0);
    Area {
        x0: (first.0 - half).max(0.0) as u32,
        y0: (first.1 - half).max(0.0) as u32,
        x1: (last.0 + half).max(0.0) as u32,
        y1: (last.1 + half).max(0.0) as u32,
    }
}

/// Side of the square cells the screen is watched in, in pixels.
const CELL: u32 = 2;
/// A cell that changed in fewer looks than this is not watched for a rhythm.
const MIN_EVENTS: u16 = 3;
/// A clock's seconds change once a second: its changes come at this many a second, give or
/// take `RATE_SLACK`...
const RATE_SLACK: f64 = 0.3;
/// ...and at one phase of the second: the mean resultant length of their times on the circle
/// of one second at least this (1 for changes exactly a second apart; a word's flash, a
/// score or a burst, at the times words are entered, far less).
const MIN_PHASE: f64 = 0.8;

/// Watches which parts of the screen change, cell by cell and look by look, outside a part
/// left out (the grid, where a board's tiles may light up), to find what changes once a
/// second: the clock's seconds.
pub struct Changes {
    width: u32,
    height: u32,
    skip: Area,
    cols: u32,
    /// Per cell, the looks it changed in.
    counts: Vec<u16>,
    /// Per look that changed anything: when, and the cells it changed.
    events: Vec<(f64, Vec<u32>)>,
    last: Option<RgbaImage>,
    pub looks: u32,
}

impl Changes {
    /// For a `width` x `height` screen, leaving out `skip`.
    pub fn new(width: u32, height: u32, skip: Area) -> Changes {
        let cols = width.div_ceil(CELL);
        Changes {
            width,
            height,
            skip,
            cols,
            counts: vec![0; (cols * height.div_ceil(CELL)) as usize],
            events: Vec::new(),
            last: None,
            looks: 0,
        }
    }

    /// Takes one look, at `at` seconds on any steady clock (a screenshot of another size is
    /// passed over).
    pub fn see(&mut self, at: f64, img: RgbaImage) {
        if img.dimensions() != (self.width, self.height) {
            return;
        }
        self.looks += 1;
        if let Some(last) = &self.last {
            let s = self.skip;
            let mut changed = Vec::new();
            for (i, (a, b)) in last.pixels().zip(img.pixels()).enumerate() {
                let (x, y) = ((i as u32) % self.width, (i as u32) / self.width);
                if (s.x0..s.x1).contains(&x) && (s.y0..s.y1).contains(&y) {
                    continue;
                }
                if (0..3).any(|c| a.0[c].abs_diff(b.0[c]) > CHANGED) {
                    changed.push((y / CELL) * self.cols + x / CELL);
                }
            }
            changed.sort_unstable();
            changed.dedup();
            for &c in &changed {
                self.counts[c as usize] = self.counts[c as usize].saturating_add(1);
            }
            if !changed.is_empty() {
                self.events.push((at, changed));
            }
        }
        self.last = Some(img);
    }

    /// The boxes of the parts that change once a second at one phase of it (the clock's
    /// seconds, once it has ticked a few times; a label or an icon that a number of
    /// proportional digits pushes about), those that changed most often first.
    pub fn ticking(&self) -> Vec<Area> {
        let (component, boxes) = self.components();
        // Pieces of one glyph, and glyphs of one number, each change in a piece of their own
        // (a 3 becoming a 2 changes two strokes): pieces near each other are one part.
        let (group, boxes) = merge_near(&boxes);
        let component: Vec<Option<usize>> =
            component.into_iter().map(|c| c.map(|c| group[c])).collect();
        // Per part, the looks it changed in and how many of its cells each changed.
        let mut changes: Vec<Vec<(f64, usize)>> = vec![Vec::new(); boxes.len()];
        for (at, cells) in &self.events {
            let mut hit: Vec<usize> = cells
                .iter()
                .filter_map(|&c| component[c as usize])
                .collect();
            hit.sort_unstable();
            for same in hit.chunk_by(|a, b| a == b) {
                changes[same[0]].push((*at, same.len()));
            }
        }
        let mut parts: Vec<(usize, Area)> = changes
            .iter()
            .zip(boxes)
            .filter_map(|(c, b)| ticks(c).map(|n| (n, b)))
            .collect();
        parts.sort_by_key(|&(n, _)| std::cmp::Reverse(n));
        parts.into_iter().map(|(_, b)| b).collect()
    }

    /// The cells that changed in at least `MIN_EVENTS` looks, in 8-connected parts: each
    /// cell's part, and each part's box in pixels.
    fn components(&self) -> (Vec<Option<usize>>, Vec<Area>) {
        let rows = self.counts.len() as u32 / self.cols;
        let busy = |c: u32| self.counts[c as usize] >= MIN_EVENTS;
        let mut part: Vec<Option<usize>> = vec![None; self.counts.len()];
        let mut boxes = Vec::new();
        for start in 0..self.counts.len() as u32 {
            if !busy(start) || part[start as usize].is_some() {
                continue;
            }
            let k = boxes.len();
            let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
            let mut stack = vec![start];
            part[start as usize] = Some(k);
            while let Some(c) = stack.pop() {
                let (cx, cy) = (c % self.cols, c / self.cols);
                (x0, y0, x1, y1) = (x0.min(cx), y0.min(cy), x1.max(cx + 1), y1.max(cy + 1));
                for ny in cy.saturating_sub(1)..(cy + 2).min(rows) {
                    for nx in cx.saturating_sub(1)..(cx + 2).min(self.cols) {
                        let n = ny * self.cols + nx;
                        if busy(n) && part[n as usize].is_none() {
                            part[n as usize] = Some(k);
                            stack.push(n);
                        }
                    }
                }
            }
            boxes.push(Area {
                x0: x0 * CELL,
                y0: y0 * CELL,
                x1: (x1 * CELL).min(self.width),
                y1: (y1 * CELL).min(self.height),
            });
        }
        (part, boxes)
    }

    /// The last look.
    pub fn last(&self) -> Option<&RgbaImage> {
        self.last.as_ref()
    }
}

/// `boxes` joined while two of them are nearer than half the taller one's height (across
/// or up and down): the group each box is in, and each group's box.
fn merge_near(boxes: &[Area]) -> (Vec<usize>, Vec<Area>) {
    let mut group: Vec<usize> = (0..boxes.len()).collect();
    let mut merged: Vec<Option<Area>> = boxes.iter().copied().map(Some).collect();
    let near = |a: &Area, b: &Area| {
        let reach = (a.y1 - a.y0).max(b.y1 - b.y0) / 2;
        a.x0 <= b.x1 + reach && b.x0 <= a.x1 + reach && a.y0 <= b.y1 + reach && b.y0 <= a.y1 + reach
    };
    loop {
        let mut joined = false;
        for i in 0..merged.len() {
            for j in i + 1..merged.len() {
                let (Some(a), Some(b)) = (merged[i], merged[j]) else {
                    continue;
                };
                if near(&a, &b) {
                    merged[i] = Some(Area {
                        x0: a.x0.min(b.x0),
                        y0: a.y0.min(b.y0),
                        x1: a.x1.max(b.x1),
                        y1: a.y1.max(b.y1),
                    });
                    merged[j] = None;
                    for g in group.iter_mut().filter(|g| **g == j) {
                        *g = i;
                    }
                    joined = true;
                }
            }
        }
        if !joined {
            break;
        }
    }
    // Renumbered over the groups left.
    let kept: Vec<usize> = (0..merged.len()).filter(|&i| merged[i].is_some()).collect();
    let index = |g: usize| kept.iter().position(|&k| k == g).unwrap_or(0);
    (
        group.iter().map(|&g| index(g)).collect(),
        kept.iter().filter_map(|&k| merged[k]).collect(),
    )
}

/// Changes of a part (when, and how many of its cells) that hold fewer than this many
/// looks at a size are too few to be told a clock's ticks by their size alone.
const MIN_SIZED_TICKS: usize = 6;

/// How many of a part's `changes` (when, how many of its cells; ascending in time) are the
/// ticks of a clock's seconds, when they come once a second at one phase of it; `None` when
/// they do not. A screenshot's noise (a JPEG's, its quality wandering from look to look)
/// changes a few cells along a number's edges on most looks; a tick changes a digit's
/// strokes: the changes of the size of the smallest tick and above are the ticks, tried
/// from all of them to the largest few.
fn ticks(changes: &[(f64, usize)]) -> Option<usize> {
    let times = |least: usize| -> Vec<f64> {
        changes
            .iter()
            .filter(|&&(_, n)| n >= least)
            .map(|&(t, _)| t)
            .collect()
    };
    let all = times(0);
    if once_a_second(&all) {
        return Some(all.len());
    }
    let mut sizes: Vec<usize> = changes.iter().map(|&(_, n)| n).collect();
    sizes.sort_unstable();
    sizes.dedup();
    sizes.into_iter().skip(1).find_map(|least| {
        let kept = times(least);
        (kept.len() >= MIN_SIZED_TICKS && once_a_second(&kept)).then_some(kept.len())
    })
}

/// Whether changes at `times` (seconds, ascending) come once a second, at one phase of it.
fn once_a_second(times: &[f64]) -> bool {
    let n = times.len();
    if n < usize::from(MIN_EVENTS) {
        return false;
    }
    let span = times[n - 1] - times[0];
    let rate = (n - 1) as f64 / span.max(f64::EPSILON);
    let (sin, cos) = times.iter().fold((0.0, 0.0), |(s, c), t| {
        let a = std::f64::consts::TAU * t;
        (s + a.sin(), c + a.cos())
    });
    let phase = (sin * sin + cos * cos).sqrt() / n as f64;
    (rate - 1.0).abs() <= RATE_SLACK && phase >= MIN_PHASE
}

/// A lightness this far from the paper's is ink, for finding a line of it.
const INK_OFF: u32 = 64;

/// The lightness of a pixel, 0 to 255.
fn light(img: &RgbaImage, x: u32, y: u32) -> u32 {
    let p = img.get_pixel(x, y).0;
    (u32::from(p[0]) * 299 + u32::from(p[1]) * 587 + u32::from(p[2]) * 114) / 1000
}

/// The most common lightness in `area` of `img` (clamped to it), by a coarse histogram.
fn paper(img: &RgbaImage, area: Area) -> u32 {
    let mut hist = [0u32; 32];
    for y in area.y0..area.y1.min(img.height()) {
        for x in area.x0..area.x1.min(img.width()) {
            hist[(light(img, x, y) / 8) as usize] += 1;
        }
    }
    hist.iter()
        .enumerate()
        .max_by_key(|&(_, n)| *n)
        .map_or(0, |(i, _)| i as u32 * 8 + 4)
}

/// The paper around `seed`: the most common lightness of its box grown by half its height
/// each way (a pill behind a number is its paper, not the band around the pill).
fn paper_around(img: &RgbaImage, seed: Area) -> u32 {
    let half = (seed.y1 - seed.y0) / 2;
    paper(
        img,
        Area {
            x0: seed.x0.saturating_sub(half),
            y0: seed.y0.saturating_sub(half),
            x1: seed.x1 + half,
            y1: seed.y1 + half,
        },
    )
}

/// Whether `inked` of `all` pixels across a row or column is the edge of a background (a
/// pill's, a band's), which no glyph fills.
fn wall(inked: usize, all: usize) -> bool {
    inked * 20 >= all * 19
}

/// `seed` grown up and down while its columns hold ink on the next row (to a glyph's whole
/// height when only a sliver of it changed), at most three times its height each way, and
/// never past a row that differs from the paper all across (a pill's or a band's edge).
fn grow_rows(img: &RgbaImage, seed: Area) -> Area {
    let h = seed.y1 - seed.y0;
    let (top, bottom) = (
        seed.y0.saturating_sub(3 * h),
        (seed.y1 + 3 * h).min(img.height()),
    );
    let paper = paper_around(img, seed);
    let ink = |y: u32, columns: std::ops::Range<u32>| {
        columns
            .filter(|&x| light(img, x, y).abs_diff(paper) > INK_OFF)
            .count()
    };
    let columns = seed.x0..seed.x1.min(img.width());
    // A wall is looked for a height beyond the seed each way: a glyph's stroke may fill a
    // narrow seed's row (a colon's dot, a 7's bar), never one three times as wide.
    let wide = seed.x0.saturating_sub(h)..(seed.x1 + h).min(img.width());
    let grows = |y: u32| ink(y, columns.clone()) > 0 && !wall(ink(y, wide.clone()), wide.len());
    let (mut y0, mut y1) = (seed.y0, seed.y1.min(img.height()));
    while y0 > top && grows(y0 - 1) {
        y0 -= 1;
    }
    while y1 < bottom && grows(y1) {
        y1 += 1;
    }
    Area { y0, y1, ..seed }
}

/// The whole line of ink around `seed` (a part of a number: one digit, say): the band of
/// rows it spans, widened left and right while ink follows within `LINE_GAP` digit heights,
/// up to a column that differs from the paper all down (a pill's or a band's edge), with a
/// margin.
pub fn line_around(img: &RgbaImage, seed: Area) -> Area {
    let h = seed.y1 - seed.y0;
    let margin = (h / 8).max(1);
    let (y0, y1) = (
        seed.y0.saturating_sub(margin),
        (seed.y1 + margin).min(img.height()),
    );
    let paper = paper_around(img, seed);
    let rows = (y1 - y0) as usize;
    // Each column: how many of its rows are ink.
    let inked: Vec<usize> = (0..img.width())
        .map(|x| {
            (y0..y1)
                .filter(|&y| light(img, x, y).abs_diff(paper) > INK_OFF)
                .count()
        })
        .collect();
    let gap = (h as f32 * LINE_GAP).ceil() as usize;
    // From `from`, the last inked column before a gap wider than `gap` or a wall, walking
    // by `step`.
    let reach = |from: usize, step: isize| {
        let (mut x, mut last, mut empty) = (from as isize, from, 0);
        loop {
            x += step;
            if x < 0 || x as usize >= inked.len() || empty > gap || wall(inked[x as usize], rows) {
                return last;
            }
            if inked[x as usize] > 0 {
                last = x as usize;
                empty = 0;
            } else {
                empty += 1;
            }
        }
    };
    let x0 = reach(seed.x0 as usize, -1) as u32;
    let x1 = reach(seed.x1.saturating_sub(1) as usize, 1) as u32 + 1;
    Area {
        x0: x0.saturating_sub(margin),
        y0,
        x1: (x1 + margin).min(img.width()),
        y1,
    }
}

/// The clock's box: the line of ink around what changes once a second, cut to the clock's
/// own glyphs (its seconds, the tens before them, the colon and minutes before those), with a
/// margin each way that stops halfway to any other ink (an icon, a label, a pill's edge):
/// the box holds the number only.
pub fn clock_box(changes: &Changes) -> Option<Area> {
    let img = changes.last()?;
    let parts = changes.ticking();
    // A part may hold a label above or below the number (centred over a clock of
    // proportional digits, it moves when the clock does): each line of the part's ink is
    // tried, the tallest first.
    let seeds: Vec<Area> = parts.iter().flat_map(|&p| lines_of(img, p)).collect();
    // An m:ss clock over any part that ticks, before a clock of seconds only (which a label
    // pushed about by the clock beside it could pass for).
    [true, false]
        .into_iter()
        .find_map(|mss| seeds.iter().find_map(|&p| clock_over(img, p, mss)))
}

/// The lines of ink in `part` of `img`: its rows cut where no pixel across it is ink, each
/// line's rows, the tallest first (the whole part when it is one line).
fn lines_of(img: &RgbaImage, part: Area) -> Vec<Area> {
    let paper = paper_around(img, part);
    let inked = |y: u32| {
        (part.x0..part.x1.min(img.width())).any(|x| light(img, x, y).abs_diff(paper) > INK_OFF)
    };
    let mut lines: Vec<Area> = Vec::new();
    let mut start = None;
    for y in part.y0..=part.y1.min(img.height()) {
        match (start, y < part.y1.min(img.height()) && inked(y)) {
            (None, true) => start = Some(y),
            (Some(y0), false) => {
                lines.push(Area { y0, y1: y, ..part });
                start = None;
            }
            _ => {}
        }
    }
    if lines.len() < 2 {
        return vec![part];
    }
    lines.sort_by_key(|a| std::cmp::Reverse(a.y1 - a.y0));
    lines
}

/// The clock's box over `ticking`: m:ss (when `mss`) or seconds only.
fn clock_over(img: &RgbaImage, ticking: Area, mss: bool) -> Option<Area> {
    let ticking = grow_rows(img, ticking);
    let line = line_around(img, ticking);
    let cut = digits::cut(img, line);
    let overlaps = |a: &Area| a.x0 < ticking.x1 && ticking.x0 < a.x1;
    let n = cut.spans.len();
    let (first, ones) = if mss {
        // A colon with a glyph before it and two after, over what ticks (a number centred
        // on the screen shifts as a whole when its digits' widths change).
        cut.colons
            .iter()
            .rev()
            .find(|&&c| c >= 1 && c + 1 < n && cut.spans[c - 1..=c + 1].iter().any(overlaps))
            .map(|&c| (c - 1, c + 1))?
    } else {
        // Seconds only: what ticks, and the tens beside it. A round is watched while its
        // clock shows ten seconds and more: a lone glyph that ticks is an icon drawn beside
        // a centred number, which moves as the number's width changes.
        let ones = cut.spans.iter().rposition(overlaps)?;
        let height = cut.spans[ones].y1 - cut.spans[ones].y0;
        let near = ones >= 1
            && cut.spans[ones].x0.saturating_sub(cut.spans[ones - 1].x1) as f32
                <= 0.6 * height as f32;
        // A colon or a dot just before the tens: an m:ss clock whose colon was not seen
        // whole (a small face, JPEG), its minutes not to be left out.
        if !near
            || cut.colons.contains(&(ones - 1))
            || cut.separators.contains(&(ones - 1))
            || more_before(&cut, ones - 1, height)
        {
            return None;
        }
        (ones - 1, ones)
    };
    let height = cut.spans[ones].y1 - cut.spans[ones].y0;
    let glyphs = &cut.spans[first..=ones];
    let (x0, x1) = (glyphs[0].x0, glyphs[glyphs.len() - 1].x1);
    let y0 = glyphs.iter().map(|g| g.y0).min()?;
    let y1 = glyphs.iter().map(|g| g.y1).max()?;
    let margin = (height * 2 / 5).max(2);
    // Halfway to the nearest other ink on each side, when nearer than the margin.
    let before = cut.ink.iter().filter(|r| r.x1 <= x0).map(|r| r.x1).max();
    let after = cut.ink.iter().filter(|r| r.x0 >= x1).map(|r| r.x0).min();
    let left = before.map_or(0, |b| (b + x0).div_ceil(2));
    let right = after.map_or(img.width(), |a| (a + x1) / 2);
    let vertical = (height / 5).max(1);
    let area = Area {
        x0: x0.saturating_sub(margin).max(left),
        y0: y0.saturating_sub(vertical).max(line.y0),
        x1: (x1 + margin).min(right).min(img.width()),
        y1: (y1 + vertical).min(line.y1),
    };
    digits::cut(img, area).clock()?;
    Some(area)
}

/// Whether more of a number stands just before glyph `tens` of `cut` (the seconds' tens, the
/// ones after it; digits `height` tall), which a box of seconds only would leave out: a glyph
/// of a digit's height with a mark between it and the tens (a colon too small or too blurred
/// to be told one: an m:ss clock's minutes), set as close as the seconds' own glyphs (a
/// third digit, or minutes run into their colon), or drawn as a digit of the same face a
/// colon's width away (minutes whose colon does not show). A label's smaller letters and an
/// icon at a word's space are none of these.
fn more_before(cut: &digits::Cut, tens: usize, height: u32) -> bool {
    let (Some(before), Some(&after), Some(ones)) = (
        tens.checked_sub(1).map(|i| cut.spans[i]),
        cut.spans.get(tens),
        cut.spans.get(tens + 1),
    ) else {
        return false;
    };
    let gap = after.x0.saturating_sub(before.x1) as f32;
    let inner = ones.x0.saturating_sub(after.x1) as f32;
    let h = height as f32;
    let tall = (before.y1 - before.y0) as f32 >= 0.7 * h;
    let marked = cut
        .ink
        .iter()
        .any(|r| r.x0 >= before.x1 && r.x1 <= after.x0 && r.x1 > r.x0);
    // A digit of the same face: as tall, its top and foot in line with the tens' (a pixel
    // off at the least: a small face's edges round either way), no wider.
    let off = (0.08 * h).max(1.0);
    let digit = (before.y0 as f32 - after.y0 as f32).abs() <= off
        && (before.y1 as f32 - after.y1 as f32).abs() <= off
        && (before.x1 - before.x0) as f32 <= 1.3 * (after.x1 - after.x0).max(1) as f32;
    tall && ((marked && gap <= 1.2 * h) || gap <= 1.5 * inner + 1.0 || (digit && gap <= 0.6 * h))
}

/// The score's box on `img`: a number `book` reads surely, above `skip` (the grid: a game's
/// header, not its buttons' counts) and outside the `clock`, found by sliding a window over
/// the screen at the clock's size, then smaller and larger ones (the score may be drawn at
/// any size beside it); its box holds that number's own glyphs with room for five more
/// digits each way (a score grows leftwards, rightwards or both). `None` when no number
/// shows.
pub fn score_box(img: &RgbaImage, book: &DigitBook, skip: Area, clock: Area) -> Option<Area> {
    score_box_where(img, book, skip, clock, |_| true)
}

/// Whether the number in `area` holds on the `looks` as a score does: read surely on two
/// looks in three at least (a "+N" burst may hide it a moment), and never less than on a
/// look before. A word flashed in the header, or what a burst shows, does neither.
fn steady(looks: &VecDeque<RgbaImage>, book: &DigitBook, area: Area) -> bool {
    let reads: Vec<u32> = looks
        .iter()
        .filter_map(|img| book.number(&digits::cut(img, area)).filter(|n| n.sure))
        .map(|n| n.value)
        .collect();
    3 * reads.len() >= 2 * looks.len() && reads.windows(2).all(|w| w[0] <= w[1])
}

/// `score_box`, the first box found that `accept` takes.
fn score_box_where(
    img: &RgbaImage,
    book: &DigitBook,
    skip: Area,
    clock: Area,
    accept: impl Fn(Area) -> bool,
) -> Option<Area> {
    let (sw, sh) = img.dimensions();
    // Above the grid when there is one; below the status bar (24 dp: a 15th of a phone's
    // width, 360 dp at most, in portrait), whose time a small face may draw without a colon
    // one can see.
    let bottom = if skip.y1 > skip.y0 && skip.y0 > sw / 15 {
        skip.y0
    } else {
        sh
    };
    let overlaps = |a: Area, b: Area| a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
    let (ch, cw) = (clock.y1 - clock.y0, clock.x1 - clock.x0);
    SCORE_SCALES.iter().find_map(|&scale| {
        let h = (ch as f32 * scale).round() as u32;
        let w = (cw as f32 * scale).round() as u32;
        if h < MIN_SCORE_WINDOW || w > sw {
            return None;
        }
        let step = (h / 4).max(1);
        let mut y = sw / 15;
        while y + h <= bottom {
            let mut x = 0;
            while x + w <= sw {
                let window = Area {
                    x0: x,
                    y0: y,
                    x1: x + w,
                    y1: y + h,
                };
                if !overlaps(window, skip) && !overlaps(window, clock) {
                    let cut = digits::cut(img, window);
                    // Ink cut by the window's side is part of something wider (a battery's
                    // drawing, a word): no number stands alone there.
                    let alone = cut.ink.iter().all(|a| a.x0 > window.x0 && a.x1 < window.x1);
                    if alone
                        && book.plain_number(&cut).is_some_and(|n| n.sure)
                        && let Some(found) = widen(img, window, book, skip, clock)
                        && accept(found)
                    {
                        return Some(found);
                    }
                }
                x += step;
            }
            y += step;
        }
        None
    })
}

/// The sizes of the window the score is looked for with, as shares of the clock's box: its
/// own first, then nearer sizes before farther ones.
const SCORE_SCALES: [f32; 7] = [1.0, 0.7, 1.4, 0.5, 2.0, 2.8, 0.35];
/// A window shorter than this many pixels holds no number the digits can be read in.
const MIN_SCORE_WINDOW: u32 = 10;

/// A window holding the score, made the box of its number's glyphs, with room for five more
/// digits. The number is its whole line or one group of it (a label, an icon beside it at
/// more than `digits::GROUP_GAP` of its height, ignored as play's reading ignores them);
/// `None` when no group of the line reads surely as a number, or two do.
fn widen(img: &RgbaImage, window: Area, book: &DigitBook, skip: Area, clock: Area) -> Option<Area> {
    let line = line_around(img, window);
    let cut = digits::cut(img, line);
    let number = &book.number_part(&cut)?;
    let (first, last) = (number.ink.first()?, number.ink.last()?);
    // The number found is the one in the window.
    if first.x0 < window.x0 || last.x1 > window.x1 {
        return None;
    }
    let (x0, x1) = (first.x0, last.x1);
    let y0 = number.ink.iter().map(|a| a.y0).min()?;
    let y1 = number.ink.iter().map(|a| a.y1).max()?;
    let height = y1 - y0;
    // The whole of what is drawn there, not a slice of something taller (a letter, an
    // icon) that a small window read: above and below the glyphs, a quarter of their
    // height each way, no ink over their columns.
    let pad = (height / 4).max(2);
    let tol = (height / 10).max(1);
    let around = digits::cut(
        img,
        Area {
            x0,
            y0: y0.saturating_sub(pad),
            x1,
            y1: y1 + pad,
        },
    );
    if around
        .ink
        .iter()
        .any(|a| a.y0 + tol < y0 || a.y1 > y1 + tol)
    {
        return None;
    }
    // A lone 1 is as likely a stroke of an icon or a letter (I, l) as a score.
    if number.glyphs.len() == 1 && book.plain_number(number).is_some_and(|n| n.value == 1) {
        return None;
    }
    // Nor what stands right beside the clock, on its rows: its icon or its label.
    let near = (clock.y1 - clock.y0) * 3 / 2;
    if y0 < clock.y1 && clock.y0 < y1 && x1 + near > clock.x0 && x0 < clock.x1 + near {
        return None;
    }
    let (margin, vertical) = ((height * 2 / 5).max(2), (height / 5).max(1));
    // Five more digits of a proportional face (about 0.7 of the height each) and a
    // separator, each way: a score anchored by its centre grows both ways, and which way
    // one grows is not seen on a number that has not changed yet.
    let room = height * 7 / 2;
    let (sw, _) = img.dimensions();
    let mut out = Area {
        x0: x0.saturating_sub(margin + room),
        y0: y0.saturating_sub(vertical).max(line.y0),
        x1: (x1 + margin + room).min(sw),
        y1: (y1 + vertical).min(line.y1),
    };
    // Never over the clock or the grid.
    for other in [clock, skip] {
        let same_rows = out.y0 < other.y1 && other.y0 < out.y1;
        if same_rows && other.x1 <= x0 && out.x0 < other.x1 {
            out.x0 = other.x1;
        }
        if same_rows && other.x0 >= x1 && out.x1 > other.x0 {
            out.x1 = other.x0;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::game::View;
    use crate::sim::layout::{Layout, Rect};
    use crate::sim::model::Model;
    use crate::sim::screen::render;

    fn view(secs_left: u64, score: u32) -> View {
        View::round_at(secs_left, score)
    }

    fn area(r: Rect) -> Area {
        Area {
            x0: r.x0.max(0.0) as u32,
            y0: r.y0.max(0.0) as u32,
            x1: r.x1 as u32,
            y1: r.y1 as u32,
        }
    }

    #[test]
    fn the_clock_the_digits_and_the_score_are_found_by_watching_a_round() {
        found_by_watching(None);
        // A face whose digits differ in width (its 1 narrow): the box found on 1:5x holds
        // 0:09 too.
        let fonts = std::path::Path::new("/usr/share/fonts");
        match crate::vision::corpus::font_file(fonts, "Comfortaa-Bold") {
            Some(f) => found_by_watching(Some(&crate::sim::screen::Face::load(&f).unwrap())),
            None => crate::testing::skip("the typeface Comfortaa-Bold", "fonts-comfortaa"),
        }
    }

    #[test]
    fn a_score_larger_than_the_clock_beside_a_label_is_found_and_read() {
        use ab_glyph::{FontRef, PxScale};
        let font = FontRef::try_from_slice(dejavu::sans::bold()).unwrap();
        let layout = Layout::of(Model::Nexus7);
        let grid = area(layout.grid());
        let mut changes = Changes::new(layout.width, layout.height, grid);
        for k in 0..24u32 {
            let secs = 117 - u64::from(k) / 4;
            changes.see(f64::from(k) * 0.25, render(&layout, &view(secs, 0), None));
        }
        let clock = clock_box(&changes).unwrap();
        let mut countdown = Countdown::default();
        for k in 0..80u32 {
            let t = f64::from(k) * 0.25;
            countdown.see(
                t,
                &digits::cut(&render(&layout, &view(111 - t as u64, 0), None), clock),
            );
        }
        let book = countdown.book().unwrap();
        // The game's own score painted over with the header's paper, then a label and a
        // score half as tall again as the clock's digits, in the clock's ink.
        let mut img = render(&layout, &view(90, 0), None);
        let drawn = area(layout.score());
        let paper = *img.get_pixel(drawn.x1 - 2, drawn.y0 + 2);
        let ink = *img
            .enumerate_pixels()
            .filter(|(x, y, _)| {
                (clock.x0..clock.x1).contains(x) && (clock.y0..clock.y1).contains(y)
            })
            .map(|(_, _, p)| p)
            .max_by_key(|p| {
                (0..3)
                    .map(|c| p.0[c].abs_diff(paper.0[c]) as u32)
                    .sum::<u32>()
            })
            .unwrap();
        for y in drawn.y0..drawn.y1 {
            for x in layout.width * 2 / 5..drawn.x1 {
                img.put_pixel(x, y, paper);
            }
        }
        let (size, middle, _) = layout.header();
        let big = size * 1.5;
        let w = layout.width as f32;
        imageproc::drawing::draw_text_mut(
            &mut img,
            ink,
            (w * 0.4) as i32,
            (middle - size * 0.4) as i32,
            PxScale::from(size * 0.5),
            &font,
            "PTS",
        );
        imageproc::drawing::draw_text_mut(
            &mut img,
            ink,
            (w * 0.52) as i32,
            (middle - big * 0.6) as i32,
            PxScale::from(big),
            &font,
            "1,234",
        );
        let score = score_box(&img, &book, grid, clock).expect("a score");
        let read = book.number(&digits::cut(&img, score));
        assert_eq!(
            read.map(|n| (n.value, n.sure)),
            Some((1234, true)),
            "{score:?}"
        );
    }

    fn found_by_watching(face: Option<&crate::sim::screen::Face>) {
        let render = |layout: &Layout, view: &View| render(layout, view, face);
        for model in Model::ALL {
            let layout = Layout::of(model);
            let grid = area(layout.grid());
            let mut changes = Changes::new(layout.width, layout.height, grid);
            // Six seconds of a round at four looks a second, its score still.
            for k in 0..24u32 {
                let secs = 117 - u64::from(k) / 4;
                changes.see(f64::from(k) * 0.25, render(&layout, &view(secs, 0)));
            }
            let clock = clock_box(&changes).unwrap_or_else(|| panic!("{}: no clock", model.name()));
            // Around the clock's glyphs, in the header's band, on its left half.
            let drawn = area(layout.clock());
            assert!(
                clock.y0 >= drawn.y0 && clock.y1 <= drawn.y1 && clock.x1 <= layout.width / 2,
                "{}: {clock:?} {drawn:?}",
                model.name()
            );
            let mut countdown = Countdown::default();
            for k in 0..80u32 {
                let t = f64::from(k) * 0.25;
                let img = render(&layout, &view(111 - t as u64, 0));
                countdown.see(t, &digits::cut(&img, clock));
            }
            let book = countdown
                .book()
                .unwrap_or_else(|| panic!("{}: no digits", model.name()));
            let img = render(&layout, &view(90, 0));
            let score = score_box(&img, &book, grid, clock)
                .unwrap_or_else(|| panic!("{}: no score", model.name()));
            // About the score's glyphs (with room to grow), off the clock and the grid.
            let drawn = area(layout.score());
            assert!(
                score.x1 > drawn.x0
                    && score.x0 < drawn.x1
                    && score.y0 < drawn.y1
                    && score.y1 > drawn.y0,
                "{}: {score:?} {drawn:?}",
                model.name()
            );
            assert!(
                score.x0 >= clock.x1 && score.y1 <= grid.y0,
                "{}: {score:?}",
                model.name()
            );
            // Room for a five-digit score, read surely, and the clock near the end.
            let late = render(&layout, &view(9, 12_345));
            let read = book.number(&digits::cut(&late, score));
            assert_eq!(
                read.map(|n| (n.value, n.sure)),
                Some((12_345, true)),
                "{}",
                model.name()
            );
            let read = book.clock(&digits::cut(&late, clock));
            assert_eq!(
                read.map(|n| (n.value, n.sure)),
                Some((9, true)),
                "{}",
                model.name()
            );
            // The word just entered, flashed in the header (into the score's box, on the
            // virtual phone's layouts): the score is still read, surely, and right.
            for (word, took) in [("quarterbacks", true), ("zax", false), ("io", true)] {
                let flash = View {
                    last_word: Some((word.into(), took)),
                    ..view(9, 12_345)
                };
                let read = book.number(&digits::cut(&render(&layout, &flash), score));
                assert_eq!(
                    read.map(|n| (n.value, n.sure)),
                    Some((12_345, true)),
                    "{} {word}",
                    model.name()
                );
            }
            // A stopwatch beside the clock, in its box (a disc of the digits' height, set
            // apart by 0.8 of it, right of the clock: the layouts leave no room left of it):
            // the clock still read, surely.
            let mut icon = late.clone();
            let (top, bottom, right) = ink_extent(&late, clock);
            let r = (bottom - top) / 2;
            let cx = right + (bottom - top) * 8 / 10 + r + 1;
            imageproc::drawing::draw_filled_circle_mut(
                &mut icon,
                (cx as i32, ((top + bottom) / 2) as i32),
                r as i32,
                image::Rgba([255, 255, 255, 255]),
            );
            let clock_and_icon = Area {
                x1: (cx + r + 2).max(clock.x1),
                ..clock
            };
            let read = book.clock(&digits::cut(&icon, clock_and_icon));
            assert_eq!(
                read.map(|n| (n.value, n.sure)),
                Some((9, true)),
                "{}",
                model.name()
            );
        }
    }

    /// The rows (top, bottom excluded) and the rightmost column (excluded) of the ink in
    /// `a` of `img`: pixels far from the box's top-left one.
    fn ink_extent(img: &RgbaImage, a: Area) -> (u32, u32, u32) {
        let paper = img.get_pixel(a.x0, a.y0).0;
        let ink = |x: u32, y: u32| {
            let p = img.get_pixel(x, y).0;
            (0..3).any(|c| p[c].abs_diff(paper[c]) > 96)
        };
        let rows: Vec<u32> = (a.y0..a.y1)
            .filter(|&y| (a.x0..a.x1).any(|x| ink(x, y)))
            .collect();
        let right = (a.x0..a.x1)
            .rev()
            .find(|&x| (a.y0..a.y1).any(|y| ink(x, y)))
            .map_or(a.x0, |x| x + 1);
        (rows[0], rows[rows.len() - 1] + 1, right)
    }

    #[test]
    fn what_changes_once_a_second_at_one_phase_ticks_and_words_do_not() {
        let ticks: Vec<f64> = (0..12).map(|k| 3.25 + f64::from(k)).collect();
        assert!(once_a_second(&ticks));
        // Looks a quarter second apart see a tick a look early or late now and then.
        let late: Vec<f64> = ticks
            .iter()
            .enumerate()
            .map(|(i, t)| if i % 5 == 2 { t + 0.25 } else { *t })
            .collect();
        assert!(once_a_second(&late));
        // A word's flash on and off, words 0.7 to 3 s apart; a burst rising look by look.
        let words = [
            1.0, 1.75, 2.5, 3.25, 5.5, 6.25, 7.0, 7.75, 10.0, 10.75, 12.0, 12.75,
        ];
        assert!(!once_a_second(&words));
        let burst: Vec<f64> = (0..12).map(|k| 2.0 + 0.25 * f64::from(k)).collect();
        assert!(!once_a_second(&burst));
        // Twice a second, at one phase of the half second: no clock's seconds.
        let twice: Vec<f64> = (0..12).map(|k| 0.5 * f64::from(k)).collect();
        assert!(!once_a_second(&twice));
        assert!(!once_a_second(&ticks[..2]));
    }

    /// A JPEG's noise changes a few of a number's cells on most looks; its ticks change a
    /// digit's strokes once a second: the ticks are told by their size.
    #[test]
    fn ticks_are_told_from_a_screenshots_noise_by_their_size() {
        let mut changes = Vec::new();
        for look in 0..80u32 {
            let at = f64::from(look) * 0.25 + 0.1;
            let tick = look % 4 == 0;
            let noise = look % 3 != 2;
            if tick || noise {
                changes.push((at, if tick { 40 } else { 3 + (look % 5) as usize }));
            }
        }
        assert!(!once_a_second(
            &changes.iter().map(|c| c.0).collect::<Vec<_>>()
        ));
        assert_eq!(ticks(&changes), Some(20));
        // Words entered at uneven times, each changing many cells, under the same noise:
        // no size of change comes once a second.
        let words = [
            0.3, 1.9, 2.4, 4.8, 5.1, 7.7, 8.0, 10.6, 12.2, 12.9, 15.5, 17.0,
        ];
        let noisy: Vec<(f64, usize)> = (0..80u32)
            .map(|look| {
                let at = f64::from(look) * 0.25;
                let word = words.iter().any(|w| (w - at).abs() < 0.125);
                (at, if word { 60 } else { 2 + (look % 7) as usize })
            })
            .collect();
        assert_eq!(ticks(&noisy), None);
    }

    #[test]
    fn a_still_screen_shows_no_clock() {
        let layout = Layout::of(Model::Nexus7);
        let mut changes = Changes::new(layout.width, layout.height, area(layout.grid()));
        for k in 0..24 {
            changes.see(f64::from(k) * 0.25, render(&layout, &view(60, 0), None));
        }
        assert!(changes.ticking().is_empty());
        assert_eq!(clock_box(&changes), None);
    }
}
