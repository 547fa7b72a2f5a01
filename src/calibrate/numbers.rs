//! Finding the game's numbers on its round screen, without a person: the clock is what
//! changes there every second (outside the grid), widened to its whole line of ink; its
//! digits are learned as it counts down (`vision::digits::Countdown`); the score is a number
//! those digits read surely elsewhere on the screen. Pure: looks in, boxes and digits out;
//! `probe::watch_numbers` takes the looks.

use image::RgbaImage;

use crate::vision::digits::{self, Area, Countdown, DigitBook};

/// A channel difference that counts a pixel as changed between two looks (JPEG noise and
/// dithering stay below).
const CHANGED: u8 = 48;
/// A clock's pixels change at most once a second; looks a quarter second apart see a change
/// in at least this share of the looks a busy pixel changed in.
const BUSY_SHARE: f32 = 0.5;
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
    last: Option<RgbaImage>,
    book: Option<DigitBook>,
}

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
            last: None,
            book: None,
        }
    }

    /// Takes the look `img`, at `at` seconds on any steady clock; true once the digits are
    /// learned (nothing more to watch for).
    pub fn see(&mut self, at: f64, img: RgbaImage) -> bool {
        match self.clock {
            None => {
                self.changes.see(img);
                if self.changes.looks >= CLOCK_LOOKS {
                    self.clock = clock_box(&self.changes);
                }
            }
            Some(area) => {
                self.countdown.see(at, &digits::cut(&img, area));
                self.last = Some(img);
                self.book = self.countdown.book();
            }
        }
        self.book.is_some()
    }

    /// What was found after `secs` of watching, with a line each for the user.
    pub fn finish(self, secs: f64) -> Numbers {
        let (skip, countdown, last) = (self.skip, self.countdown, self.last);
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
            "clock at {}, its digits not learned in {secs:.0} s ({} looks were no m:ss): the score and clock will not be read",
            place(clock),
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
            "clock at {}: its ten digits learned in {secs:.0} s",
            place(clock)
        ));
        // The clock read back with the digits just learned, as play will read it: a box that
        // takes in more than the number (an icon beside it) is said now, not found out in play.
        if let Some(img) = &last
            && book.clock(&digits::cut(img, clock)).is_none_or(|n| !n.sure)
        {
            about.push(format!(
            "WARNING: the clock at {} does not read back surely with the digits learned (something beside the number in its box?): play will not read the game's clock, and plays each round until its board leaves the screen; give --clock-box around the digits only",
            place(clock)
        ));
        }
        let score = score.or_else(|| {
            last.as_ref()
                .and_then(|img| score_box(img, &book, skip, clock))
        });
        match (score, &last) {
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

/// Counts, pixel by pixel, how many successive looks changed it, outside a part of the
/// screen left out (the grid, where a board's tiles may light up).
pub struct Changes {
    width: u32,
    height: u32,
    skip: Area,
    counts: Vec<u16>,
    last: Option<RgbaImage>,
    pub looks: u32,
}

impl Changes {
    /// For a `width` x `height` screen, leaving out `skip`.
    pub fn new(width: u32, height: u32, skip: Area) -> Changes {
        Changes {
            width,
            height,
            skip,
            counts: vec![0; width as usize * height as usize],
            last: None,
            looks: 0,
        }
    }

    /// Takes one look (a screenshot of another size is passed over).
    pub fn see(&mut self, img: RgbaImage) {
        if img.dimensions() != (self.width, self.height) {
            return;
        }
        self.looks += 1;
        if let Some(last) = &self.last {
            let s = self.skip;
            for (i, (a, b)) in last.pixels().zip(img.pixels()).enumerate() {
                let (x, y) = ((i as u32) % self.width, (i as u32) / self.width);
                if (s.x0..s.x1).contains(&x) && (s.y0..s.y1).contains(&y) {
                    continue;
                }
                if (0..3).any(|c| a.0[c].abs_diff(b.0[c]) > CHANGED) {
                    self.counts[i] = self.counts[i].saturating_add(1);
                }
            }
        }
        self.last = Some(img);
    }

    /// The box of what changed most often (the clock's last digit, once it has ticked a few
    /// times); `None` while nothing has changed in two looks.
    pub fn busiest(&self) -> Option<Area> {
        let most = *self.counts.iter().max()?;
        if most < 2 {
            return None;
        }
        let floor = ((f32::from(most) * BUSY_SHARE).ceil() as u16).max(2);
        let mut b: Option<Area> = None;
        for (i, &c) in self.counts.iter().enumerate() {
            if c < floor {
                continue;
            }
            let (x, y) = ((i as u32) % self.width, (i as u32) / self.width);
            let a = b.get_or_insert(Area {
                x0: x,
                y0: y,
                x1: x + 1,
                y1: y + 1,
            });
            a.x0 = a.x0.min(x);
            a.y0 = a.y0.min(y);
            a.x1 = a.x1.max(x + 1);
            a.y1 = a.y1.max(y + 1);
        }
        b
    }

    /// The last look.
    pub fn last(&self) -> Option<&RgbaImage> {
        self.last.as_ref()
    }
}

/// The whole line of ink around `seed` (a part of a number: one digit, say): the band of
/// rows it spans, widened left and right while ink follows within `LINE_GAP` digit heights,
/// with a margin.
pub fn line_around(img: &RgbaImage, seed: Area) -> Area {
    let h = seed.y1 - seed.y0;
    let margin = (h / 4).max(2);
    let (y0, y1) = (
        seed.y0.saturating_sub(margin),
        (seed.y1 + margin).min(img.height()),
    );
    // Paper: the band's most common lightness, by a coarse histogram.
    let light = |x: u32, y: u32| {
        let p = img.get_pixel(x, y).0;
        (u32::from(p[0]) * 299 + u32::from(p[1]) * 587 + u32::from(p[2]) * 114) / 1000
    };
    let mut hist = [0u32; 32];
    for y in y0..y1 {
        for x in 0..img.width() {
            hist[(light(x, y) / 8) as usize] += 1;
        }
    }
    let paper = hist
        .iter()
        .enumerate()
        .max_by_key(|&(_, n)| *n)
        .map_or(0, |(i, _)| i as u32 * 8 + 4);
    let inked: Vec<bool> = (0..img.width())
        .map(|x| (y0..y1).any(|y| light(x, y).abs_diff(paper) > 64))
        .collect();
    let gap = (h as f32 * LINE_GAP).ceil() as usize;
    // From `from`, the last inked column before a gap wider than `gap`, walking by `step`.
    let reach = |from: usize, step: isize| {
        let (mut x, mut last, mut empty) = (from as isize, from, 0);
        loop {
            x += step;
            if x < 0 || x as usize >= inked.len() || empty > gap {
                return last;
            }
            if inked[x as usize] {
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

/// The clock's box: the line around what changed most often, when it reads as m:ss, with a
/// digit's room on each side (in a face whose digits differ in width, 0:59 is wider than
/// 1:11; the line's gap keeps other ink that far away).
pub fn clock_box(changes: &Changes) -> Option<Area> {
    let img = changes.last()?;
    let line = line_around(img, changes.busiest()?);
    digits::cut(img, line).clock_part()?;
    let room = line.y1 - line.y0;
    Some(Area {
        x0: line.x0.saturating_sub(room),
        x1: (line.x1 + room).min(img.width()),
        ..line
    })
}

/// The score's box on `img`: a number `book` reads surely, outside `skip` (the grid) and
/// the `clock`, found by sliding a window of the clock's height over the screen; widened to
/// hold three more digits on the side away from the nearer screen edge (a score right-aligned
/// grows leftwards). `None` when no number shows.
pub fn score_box(img: &RgbaImage, book: &DigitBook, skip: Area, clock: Area) -> Option<Area> {
    let h = clock.y1 - clock.y0;
    let w = clock.x1 - clock.x0;
    let step = (h / 4).max(1);
    let (sw, sh) = img.dimensions();
    let overlaps = |a: Area, b: Area| a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
    let mut y = 0;
    while y + h <= sh {
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
                // The number alone in the window: a window holding a number among other
                // ink (on the virtual pixel, one over its status bar, the time beside the
                // battery's drawing, read so) is no score's place.
                if book.plain_number(&cut).is_some_and(|n| n.sure) {
                    return Some(widen(img, window, book, skip, clock));
                }
            }
            x += step;
        }
        y += step;
    }
    None
}

/// A window holding the score, made its line's box with room for three more digits.
fn widen(img: &RgbaImage, window: Area, book: &DigitBook, skip: Area, clock: Area) -> Area {
    let line = line_around(img, window);
    let line = if book
        .plain_number(&digits::cut(img, line))
        .is_some_and(|n| n.sure)
    {
        line
    } else {
        window
    };
    let room = (line.y1 - line.y0) * 2;
    let (sw, _) = img.dimensions();
    let centre = (line.x0 + line.x1) / 2;
    let right_side = centre > sw / 2;
    let mut out = line;
    if right_side {
        out.x0 = line.x0.saturating_sub(room);
    } else {
        out.x1 = (line.x1 + room).min(sw);
    }
    // Never over the clock or the grid.
    for other in [clock, skip] {
        let same_rows = out.y0 < other.y1 && other.y0 < out.y1;
        if same_rows && other.x1 <= line.x0 && out.x0 < other.x1 {
            out.x0 = other.x1;
        }
        if same_rows && other.x0 >= line.x1 && out.x1 > other.x0 {
            out.x1 = other.x0;
        }
    }
    out
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

    fn found_by_watching(face: Option<&crate::sim::screen::Face>) {
        let render = |layout: &Layout, view: &View| render(layout, view, face);
        for model in Model::ALL {
            let layout = Layout::of(model);
            let grid = area(layout.grid());
            let mut changes = Changes::new(layout.width, layout.height, grid);
            // Six seconds of a round at four looks a second, its score still.
            for k in 0..24u32 {
                let secs = 117 - u64::from(k) / 4;
                changes.see(render(&layout, &view(secs, 0)));
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
    fn a_still_screen_shows_no_clock() {
        let layout = Layout::of(Model::Nexus7);
        let mut changes = Changes::new(layout.width, layout.height, area(layout.grid()));
        for _ in 0..24 {
            changes.see(render(&layout, &view(60, 0), None));
        }
        assert_eq!(changes.busiest(), None);
        assert_eq!(clock_box(&changes), None);
    }
}
