//! The header generator: the strip above a word game's board where it shows its clock and
//! its score, drawn from a description of its own (fontdue for glyphs, tiny-skia for shapes),
//! unlike the virtual phone's screens. It is how the number reader is measured on layouts
//! nobody here drew; the reader is never developed against its check seeds (see
//! docs/vision.md).
//!
//! What it draws, as a person would describe the headers of such games:
//! - a phone screen of a common width, a status bar, a header band (plain or a gradient,
//!   dark or light), the board's panel below it;
//! - a clock counting down, m:ss or seconds only, and a score, each placed left, centre or
//!   right, anchored by its left edge, its centre or its right edge (a right-aligned score
//!   grows leftwards), 16 to 120 px, in one of a dozen typefaces;
//! - beside a number, sometimes, an icon (a stopwatch, an hourglass, a star, a coin) at a
//!   gap of a quarter to one digit height, a label ("TIME", "Score:", "PTS") beside it or
//!   above it, a pill behind it;
//! - the score with thousands separators ("1,234", "1.234") in some games, counting up over
//!   a few hundred milliseconds after each word in some;
//! - after each word, a "+N" burst beside or above the score and the word flashed in the
//!   header for most of a second;
//! - then what a capture goes through: JPEG at quality 50 to 90, a rescale, a blur.

use std::sync::Arc;

use image::RgbaImage;
use tiny_skia::{LineCap, PathBuilder, Pixmap, Stroke, Transform};

use super::Face;
use super::second::{
    Rgb, between, circle, fill, luma, mix, odds, pick, rasteriser, rgba, round_rect, shaded, solid,
    vertical,
};
use crate::sample::Rng;

/// Screen widths of common phones (the header's height follows its numbers).
const WIDTHS: [u32; 6] = [480, 540, 720, 1080, 1200, 1440];

/// A box on the screen in pixels, left and top included: `[x0, y0, x1, y1]`.
pub type Place = [u32; 4];

/// One game's header, and the round it shows.
pub struct Header {
    pub width: u32,
    pub height: u32,
    /// The board's panel below the header (its tiles light up when touched): what
    /// calibrate leaves out of its watch.
    pub board: Place,
    /// How it was drawn, for reports.
    pub description: String,
    font: Arc<fontdue::Font>,
    header_bottom: f32,
    band: (Rgb, Rgb),
    screen: Rgb,
    panel: Rgb,
    clock: Element,
    score: Element,
    seconds_only: bool,
    separator: Option<char>,
    /// Where the word just entered is flashed: its centre and size.
    flash: (f32, f32, f32),
    burst: Burst,
    /// Milliseconds the score takes to count up to its new value (0: at once).
    count_up_ms: f64,
    capture: Capture,
    seed: u64,
    /// Seconds on the clock at the header's time 0.
    start: u32,
    words: Vec<Word>,
}

/// A number on the header and what is drawn with it.
struct Element {
    anchor: Anchor,
    /// The anchor's x (the ink's left edge, centre or right edge).
    x: f32,
    /// The digits' baseline.
    baseline: f32,
    size: f32,
    ink: Rgb,
    icon: Option<Icon>,
    label: Option<Label>,
    /// A pill behind the number (and its icon), its colour.
    pill: Option<Rgb>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Anchor {
    Left,
    Centre,
    Right,
}

#[derive(Clone, Copy, Debug)]
enum IconKind {
    Stopwatch,
    Hourglass,
    Star,
    Coin,
}

struct Icon {
    kind: IconKind,
    /// Left of the number (else right).
    left: bool,
    /// The gap to the number, in digit heights.
    gap: f32,
    colour: Rgb,
}

struct Label {
    text: &'static str,
    /// Above the number (else beside it, left).
    above: bool,
    /// Its size over the number's.
    scale: f32,
    colour: Rgb,
}

#[derive(Clone, Copy, Debug)]
enum Burst {
    /// "+N" right of the score, at this gap in digit heights.
    Beside(f32),
    /// "+N" above the score, rising.
    Above,
}

#[derive(Clone, Copy, Debug)]
struct Capture {
    jpeg: Option<u8>,
    rescale: Option<f32>,
    blur: Option<f32>,
}

/// A word the player entered: when (seconds on the header's time), its points, whether the
/// game took it.
struct Word {
    at: f64,
    points: u32,
    text: String,
    took: bool,
}

/// What a look at the header should read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shown {
    /// Seconds on the clock.
    pub secs_left: u32,
    /// The score as drawn (mid-count when it counts up).
    pub score: u32,
}

const LABELS_CLOCK: [&str; 4] = ["TIME", "Time", "Time:", "TIME LEFT"];
const LABELS_SCORE: [&str; 5] = ["SCORE", "Score:", "PTS", "Points", "pts"];
const FLASH_WORDS: [&str; 8] = [
    "QUARTZ", "stone", "TONES", "notes", "ONSET", "quiet", "RATES", "jams",
];

/// Header `index` of the generator with `seed`, in one of `faces` (at least one); `None`
/// when no face can be rasterised.
pub fn header(faces: &[Face], seed: u64, index: u64) -> Option<Header> {
    let mut rng = Rng::new(Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index).next_u64());
    let face = &faces[rng.below(faces.len())];
    let font = rasteriser(face)?;
    let width = pick(&mut rng, &WIDTHS);
    let dark = odds(&mut rng, 0.6);
    let band_top = if dark {
        [
            20 + rng.below(60) as u8,
            20 + rng.below(80) as u8,
            40 + rng.below(100) as u8,
        ]
    } else {
        [
            200 + rng.below(55) as u8,
            200 + rng.below(55) as u8,
            190 + rng.below(65) as u8,
        ]
    };
    let band_bottom = if odds(&mut rng, 0.5) {
        mix(band_top, if dark { [0; 3] } else { [255; 3] }, 0.3)
    } else {
        band_top
    };
    let ink_for = |rng: &mut Rng| -> Rgb {
        if dark {
            pick(rng, &[[255, 255, 255], [255, 220, 90], [250, 250, 235]])
        } else {
            pick(rng, &[[20, 20, 30], [40, 40, 90], [120, 30, 30]])
        }
    };
    // The slots along the header; the clock and the score take two different ones.
    let slots = [0.18, 0.5, 0.82];
    let clock_slot = rng.below(3);
    let score_slot = (clock_slot + 1 + rng.below(2)) % 3;
    let flash_slot = 3 - clock_slot - score_slot;
    let status = (width as f32 * 0.06).round();
    // The widest the numbers may be: a third of the screen, less margins.
    let room = width as f32 * 0.3;
    let size_for = |rng: &mut Rng, chars: f32| {
        let fit = room / (chars * 0.62 + 1.6);
        between(rng, 16.0, fit.clamp(17.0, 120.0))
    };
    let seconds_only = odds(&mut rng, 0.25);
    let separator = [None, Some(','), Some('.')][rng.below(3)];
    let clock_size = size_for(&mut rng, if seconds_only { 2.0 } else { 4.0 });
    let score_size = size_for(&mut rng, if separator.is_some() { 6.0 } else { 5.0 });
    let tallest = clock_size.max(score_size);
    let labels_above = odds(&mut rng, 0.3);
    let top = status + tallest * if labels_above { 1.0 } else { 0.5 };
    let baseline = top + tallest * 0.8;
    let header_bottom = baseline + tallest * between(&mut rng, 0.5, 1.0);
    let element = |rng: &mut Rng, slot: usize, size: f32, clock: bool| {
        let anchor = match slot {
            0 => pick(rng, &[Anchor::Left, Anchor::Centre]),
            1 => Anchor::Centre,
            _ => pick(rng, &[Anchor::Right, Anchor::Centre]),
        };
        let icon = odds(rng, 0.5).then(|| Icon {
            kind: if clock {
                pick(rng, &[IconKind::Stopwatch, IconKind::Hourglass])
            } else {
                pick(rng, &[IconKind::Star, IconKind::Coin])
            },
            left: odds(rng, 0.6),
            gap: between(rng, 0.25, 1.0),
            colour: ink_for(rng),
        });
        let label = odds(rng, 0.4).then(|| Label {
            text: if clock {
                pick(rng, &LABELS_CLOCK)
            } else {
                pick(rng, &LABELS_SCORE)
            },
            above: labels_above,
            scale: between(rng, 0.4, 0.8),
            colour: ink_for(rng),
        });
        let pill = odds(rng, 0.3).then(|| {
            let towards = if dark { [0; 3] } else { [255; 3] };
            mix(band_top, towards, between(rng, 0.15, 0.4))
        });
        // Room at the screen's edge for what stands beside the number on that side.
        let d = size * 0.72;
        let icon_left = icon
            .as_ref()
            .map_or(0.0, |i| if i.left { d * (1.0 + i.gap) } else { 0.0 });
        let icon_right = icon
            .as_ref()
            .map_or(0.0, |i| if i.left { 0.0 } else { d * (1.0 + i.gap) });
        let label_left = label.as_ref().map_or(0.0, |l| {
            if l.above {
                0.0
            } else {
                ink_width(&font, l.text, size * l.scale) + size * 0.4
            }
        });
        let x = match anchor {
            Anchor::Left => width as f32 * 0.05 + icon_left + label_left,
            Anchor::Centre => width as f32 * slots[slot],
            Anchor::Right => width as f32 * 0.95 - icon_right,
        };
        Element {
            anchor,
            x,
            baseline: baseline + between(rng, -0.05, 0.05) * size,
            size,
            ink: ink_for(rng),
            icon,
            label,
            pill,
        }
    };
    let clock = element(&mut rng, clock_slot, clock_size, true);
    let score = element(&mut rng, score_slot, score_size, false);
    let flash_size = score_size * between(&mut rng, 0.5, 1.0);
    let flash = (
        width as f32 * slots[flash_slot],
        baseline - score_size * 0.35 + between(&mut rng, -0.3, 0.6) * score_size,
        flash_size,
    );
    let burst = if odds(&mut rng, 0.5) {
        Burst::Beside(between(&mut rng, 0.3, 1.0))
    } else {
        Burst::Above
    };
    let count_up_ms = pick(&mut rng, &[0.0, 0.0, 300.0, 450.0, 600.0]);
    let capture = Capture {
        jpeg: odds(&mut rng, 0.5).then(|| 50 + rng.below(41) as u8),
        rescale: odds(&mut rng, 0.2).then(|| between(&mut rng, 0.6, 0.9)),
        blur: odds(&mut rng, 0.1).then(|| between(&mut rng, 0.4, 0.9)),
    };
    let board_top = header_bottom + width as f32 * 0.05;
    // The board's top rows: enough of it to leave out of the watch.
    let height = (board_top + width as f32 * 0.3).ceil() as u32;
    let board = [
        (width as f32 * 0.05) as u32,
        board_top as u32,
        (width as f32 * 0.95) as u32,
        height,
    ];
    let start = if seconds_only {
        85 + rng.below(15) as u32
    } else {
        100 + rng.below(81) as u32
    };
    // Points a word: small games (1-30), big ones (50-900, so that thousands show).
    let big = odds(&mut rng, 0.4);
    let words = words(&mut rng, big);
    let mut h = Header {
        width,
        height,
        board,
        description: String::new(),
        font,
        header_bottom,
        band: (band_top, band_bottom),
        screen: if dark { [16, 18, 24] } else { [236, 236, 230] },
        panel: mix(band_top, [128; 3], 0.5),
        clock,
        score,
        seconds_only,
        separator,
        flash,
        burst,
        count_up_ms,
        capture,
        seed: seed ^ index.rotate_left(17),
        start,
        words,
    };
    h.description = h.describe(&face.name, dark, big);
    Some(h)
}

/// The words a player enters, from the start or from 30 s on, 0.7 to 3 s apart, until 90 s:
/// 1-30 points each, or 50-900 in a `big` game; 85% taken.
fn words(rng: &mut Rng, big: bool) -> Vec<Word> {
    let playing_from = if odds(rng, 0.5) { 0.0 } else { 30.0 };
    let mut words = Vec::new();
    let mut at = playing_from + between(rng, 0.5, 2.0) as f64;
    while at < 90.0 {
        let points = if big {
            50 + rng.below(851) as u32
        } else {
            1 + rng.below(30) as u32
        };
        words.push(Word {
            at,
            points,
            text: pick(rng, &FLASH_WORDS).to_owned(),
            took: odds(rng, 0.85),
        });
        at += between(rng, 0.7, 3.0) as f64;
    }
    words
}

fn anchor_name(a: Anchor) -> &'static str {
    match a {
        Anchor::Left => " from the left",
        Anchor::Centre => " centred",
        Anchor::Right => " from the right",
    }
}

fn icon_name(icon: &Option<Icon>) -> String {
    icon.as_ref().map_or(String::new(), |i| {
        format!(
            " {:?} {} at {:.2}",
            i.kind,
            if i.left { "left" } else { "right" },
            i.gap
        )
    })
}

fn label_name(label: &Option<Label>) -> String {
    label.as_ref().map_or(String::new(), |l| {
        format!(
            " label {:?} {}",
            l.text,
            if l.above { "above" } else { "beside" }
        )
    })
}

impl Header {
    /// How it was drawn, in a line.
    fn describe(&self, face: &str, dark: bool, big: bool) -> String {
        let element = |e: &Element| {
            format!(
                "{:.0}px{}{}{}{}",
                e.size,
                anchor_name(e.anchor),
                icon_name(&e.icon),
                label_name(&e.label),
                if e.pill.is_some() { " in a pill" } else { "" }
            )
        };
        let capture = &self.capture;
        format!(
            "{face} {} wide, {} band, clock {} {}, score {} {}{}, burst {:?}, count-up {} ms{}{}{}",
            self.width,
            if dark { "dark" } else { "light" },
            if self.seconds_only { "secs" } else { "m:ss" },
            element(&self.clock),
            self.separator
                .map_or("plain".to_owned(), |c| format!("'{c}'")),
            element(&self.score),
            if big { " big" } else { "" },
            self.burst,
            self.count_up_ms,
            capture
                .jpeg
                .map_or(String::new(), |q| format!(", JPEG q{q}")),
            capture
                .rescale
                .map_or(String::new(), |f| format!(", rescaled {f:.2}")),
            capture
                .blur
                .map_or(String::new(), |s| format!(", blur {s:.1}")),
        )
    }

    /// What the header shows at `t` seconds.
    pub fn shown(&self, t: f64) -> Shown {
        Shown {
            secs_left: self.start.saturating_sub(t.max(0.0) as u32),
            score: self.score_at(t),
        }
    }

    fn score_at(&self, t: f64) -> u32 {
        let mut score = 0;
        for w in self.words.iter().filter(|w| w.took && w.at <= t) {
            let done = if self.count_up_ms > 0.0 {
                ((t - w.at) * 1000.0 / self.count_up_ms).min(1.0)
            } else {
                1.0
            };
            score += (f64::from(w.points) * done).floor() as u32;
        }
        score
    }

    /// The word entered last before `t`, while its flash and burst last (0.8 s), and how
    /// far into them `t` is (0 to 1).
    fn last_word(&self, t: f64) -> Option<(&Word, f32)> {
        self.words
            .iter()
            .rev()
            .find(|w| w.at <= t)
            .filter(|w| t - w.at < 0.8)
            .map(|w| (w, ((t - w.at) / 0.8) as f32))
    }

    /// The screen at `t` seconds, as a capture of it comes back.
    pub fn frame(&self, t: f64) -> RgbaImage {
        let mut px = Pixmap::new(self.width, self.height).expect("a header's size");
        px.fill(rgba(self.screen, 255));
        let band = vertical(self.band.0, self.band.1, 0.0, self.header_bottom);
        fill(
            &mut px,
            round_rect(0.0, 0.0, self.width as f32, self.header_bottom, 0.0),
            &shaded(band, self.band.0),
        );
        self.status_bar(&mut px);
        self.board_panel(&mut px);
        let shown = self.shown(t);
        let clock = if self.seconds_only {
            shown.secs_left.to_string()
        } else {
            format!("{}:{:02}", shown.secs_left / 60, shown.secs_left % 60)
        };
        self.draw_element(
            &mut px,
            &self.clock,
            &clock,
            if self.seconds_only { 2 } else { 4 },
        );
        let score = grouped(shown.score, self.separator);
        let score_ink = self.draw_element(&mut px, &self.score, &score, 6);
        if let Some((word, age)) = self.last_word(t) {
            let (cx, cy, size) = self.flash;
            let colour = if word.took {
                [90, 220, 120]
            } else {
                [240, 90, 80]
            };
            let w = ink_width(&self.font, &word.text, size);
            draw_text(
                &mut px,
                &self.font,
                &word.text,
                size,
                cx - w / 2.0,
                cy + size * 0.35,
                colour,
            );
            if word.took {
                self.draw_burst(&mut px, word.points, age, score_ink);
            }
        }
        self.finish(px, t)
    }

    fn status_bar(&self, px: &mut Pixmap) {
        let s = self.width as f32 * 0.032;
        let ink = if luma(self.band.0) > 128.0 {
            [40; 3]
        } else {
            [230; 3]
        };
        draw_text(px, &self.font, "9:41", s, s, s * 1.4, ink);
        let w = self.width as f32;
        fill(
            px,
            round_rect(w - s * 2.6, s * 0.5, s * 1.6, s * 0.9, s * 0.15),
            &solid(ink, 255),
        );
    }

    fn board_panel(&self, px: &mut Pixmap) {
        let [x0, y0, x1, _] = self.board.map(|v| v as f32);
        let side = x1 - x0;
        fill(
            px,
            round_rect(x0, y0, side, side, side * 0.03),
            &solid(self.panel, 255),
        );
        let pitch = side / 4.0;
        for i in 0..16 {
            let (c, r) = ((i % 4) as f32, (i / 4) as f32);
            fill(
                px,
                round_rect(
                    x0 + c * pitch + pitch * 0.06,
                    y0 + r * pitch + pitch * 0.06,
                    pitch * 0.88,
                    pitch * 0.88,
                    pitch * 0.1,
                ),
                &solid([240, 225, 190], 255),
            );
        }
    }

    /// Draws a number with what goes with it; returns its ink's box (x0, top, x1, baseline).
    fn draw_element(&self, px: &mut Pixmap, e: &Element, text: &str, widest: usize) -> [f32; 4] {
        let font = &*self.font;
        let w = ink_width(font, text, e.size);
        let d = digit_height(font, e.size);
        let x0 = match e.anchor {
            Anchor::Left => e.x,
            Anchor::Centre => e.x - w / 2.0,
            Anchor::Right => e.x - w,
        };
        let top = e.baseline - d;
        if let Some(pill) = e.pill {
            // Wide enough for the widest the number gets, and its icon.
            let most = ink_width(font, &"8".repeat(widest), e.size).max(w);
            let icon = e.icon.as_ref().map_or(0.0, |i| d * (1.0 + i.gap));
            let (pad_x, pad_y) = (d * 0.45, d * 0.35);
            let (left, right) = match e.anchor {
                Anchor::Left => (x0, x0 + most),
                Anchor::Centre => (e.x - most / 2.0, e.x + most / 2.0),
                Anchor::Right => (e.x - most, e.x),
            };
            let (left, right) = match &e.icon {
                Some(i) if i.left => (left - icon, right),
                Some(_) => (left, right + icon),
                None => (left, right),
            };
            let h = d + 2.0 * pad_y;
            fill(
                px,
                round_rect(
                    left - pad_x,
                    top - pad_y,
                    right - left + 2.0 * pad_x,
                    h,
                    h / 2.0,
                ),
                &solid(pill, 255),
            );
        }
        draw_text(px, font, text, e.size, x0, e.baseline, e.ink);
        if let Some(icon) = &e.icon {
            let cx = if icon.left {
                x0 - d * icon.gap - d / 2.0
            } else {
                x0 + w + d * icon.gap + d / 2.0
            };
            draw_icon(px, icon, cx, top + d / 2.0, d);
        }
        if let Some(label) = &e.label {
            let s = e.size * label.scale;
            let lw = ink_width(font, label.text, s);
            if label.above {
                draw_text(
                    px,
                    font,
                    label.text,
                    s,
                    x0 + w / 2.0 - lw / 2.0,
                    top - d * 0.25,
                    label.colour,
                );
            } else {
                // Beside, left of the number (and of its icon when that is left), a word's
                // space apart.
                let left_of = match &e.icon {
                    Some(i) if i.left => x0 - d * (i.gap + 1.0),
                    _ => x0,
                };
                draw_text(
                    px,
                    font,
                    label.text,
                    s,
                    left_of - e.size * 0.3 - lw,
                    e.baseline,
                    label.colour,
                );
            }
        }
        [x0, top, x0 + w, e.baseline]
    }

    fn draw_burst(&self, px: &mut Pixmap, points: u32, age: f32, score: [f32; 4]) {
        let [x0, top, x1, baseline] = score;
        let d = baseline - top;
        let text = format!("+{points}");
        let size = self.score.size * 0.7;
        let colour = [255, 200, 40];
        match self.burst {
            Burst::Beside(gap) => {
                // On the side towards the middle of the screen.
                let x = if self.score.anchor == Anchor::Right {
                    x0 - gap * d - ink_width(&self.font, &text, size)
                } else {
                    x1 + gap * d
                };
                draw_text(px, &self.font, &text, size, x, baseline, colour);
            }
            Burst::Above => {
                let w = ink_width(&self.font, &text, size);
                let rise = d * (0.3 + 0.6 * age);
                draw_text(
                    px,
                    &self.font,
                    &text,
                    size,
                    (x0 + x1) / 2.0 - w / 2.0,
                    top - rise,
                    colour,
                );
            }
        }
    }

    fn finish(&self, px: Pixmap, t: f64) -> RgbaImage {
        let (w, h) = (px.width(), px.height());
        let mut img = RgbaImage::from_raw(w, h, px.take()).expect("a pixmap's size");
        if let Some(sigma) = self.capture.blur {
            img = image::imageops::blur(&img, sigma);
        }
        if let Some(f) = self.capture.rescale {
            use image::imageops::FilterType;
            let small = super::capture::resize(
                &img,
                (w as f32 * f) as u32,
                (h as f32 * f) as u32,
                FilterType::Triangle,
            );
            img = super::capture::resize(&small, w, h, FilterType::Triangle);
        }
        if let Some(q) = self.capture.jpeg {
            // The codec's noise differs a little from frame to frame: the quality wanders.
            let wander =
                ((self.seed ^ (t * 4.0) as u64).wrapping_mul(0x2545_f491_4f6c_dd1d) >> 61) as u8;
            img = super::capture::jpeg(&img, (q + wander).min(95));
        }
        img
    }
}

/// `n` written with `sep` between groups of three digits.
fn grouped(n: u32, sep: Option<char>) -> String {
    let digits = n.to_string();
    let Some(sep) = sep else {
        return digits;
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// The ink's width of `s` drawn at `size`.
fn ink_width(font: &fontdue::Font, s: &str, size: f32) -> f32 {
    let (mut pen, mut x0, mut x1) = (0.0f32, f32::MAX, f32::MIN);
    for ch in s.chars() {
        let m = font.metrics(ch, size);
        if m.width > 0 {
            x0 = x0.min(pen + m.xmin as f32);
            x1 = x1.max(pen + m.xmin as f32 + m.width as f32);
        }
        pen += m.advance_width;
    }
    (x1 - x0).max(0.0)
}

/// The height of the face's digits at `size` (its 0's ink).
fn digit_height(font: &fontdue::Font, size: f32) -> f32 {
    font.metrics('0', size).height as f32
}

/// Draws `s` with its ink's left edge at `left` and its baseline at `baseline`.
fn draw_text(
    px: &mut Pixmap,
    font: &fontdue::Font,
    s: &str,
    size: f32,
    left: f32,
    baseline: f32,
    colour: Rgb,
) {
    let first = s
        .chars()
        .map(|c| font.metrics(c, size))
        .find(|m| m.width > 0)
        .map_or(0.0, |m| m.xmin as f32);
    let mut pen = left - first;
    let (w, h) = (px.width() as i32, px.height() as i32);
    let data = px.data_mut();
    for ch in s.chars() {
        let (m, bitmap) = font.rasterize(ch, size);
        let ox = (pen + m.xmin as f32).round() as i32;
        let oy = (baseline - (m.ymin as f32 + m.height as f32)).round() as i32;
        for gy in 0..m.height {
            for gx in 0..m.width {
                let a = u32::from(bitmap[gy * m.width + gx]);
                let (x, y) = (ox + gx as i32, oy + gy as i32);
                if a == 0 || x < 0 || y < 0 || x >= w || y >= h {
                    continue;
                }
                let i = ((y * w + x) * 4) as usize;
                for c in 0..3 {
                    let d = u32::from(data[i + c]);
                    data[i + c] = ((u32::from(colour[c]) * a + d * (255 - a)) / 255) as u8;
                }
            }
        }
        pen += m.advance_width;
    }
}

/// An icon of height `d` centred on (cx, cy).
fn draw_icon(px: &mut Pixmap, icon: &Icon, cx: f32, cy: f32, d: f32) {
    let paint = solid(icon.colour, 255);
    let r = d * 0.45;
    match icon.kind {
        IconKind::Stopwatch => {
            let mut pb = PathBuilder::new();
            pb.push_circle(cx, cy + d * 0.05, r * 0.9);
            pb.move_to(cx, cy + d * 0.05);
            pb.line_to(cx + r * 0.45, cy - r * 0.35);
            pb.move_to(cx - r * 0.3, cy - r - d * 0.05);
            pb.line_to(cx + r * 0.3, cy - r - d * 0.05);
            if let Some(path) = pb.finish() {
                let stroke = Stroke {
                    width: (d * 0.1).max(1.0),
                    line_cap: LineCap::Round,
                    ..Stroke::default()
                };
                px.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
            }
        }
        IconKind::Hourglass => {
            let mut pb = PathBuilder::new();
            pb.move_to(cx - r * 0.8, cy - d / 2.0);
            pb.line_to(cx + r * 0.8, cy - d / 2.0);
            pb.line_to(cx, cy);
            pb.line_to(cx + r * 0.8, cy + d / 2.0);
            pb.line_to(cx - r * 0.8, cy + d / 2.0);
            pb.line_to(cx, cy);
            pb.close();
            fill(px, pb.finish(), &paint);
        }
        IconKind::Star => {
            let mut pb = PathBuilder::new();
            for k in 0..10 {
                let a = std::f32::consts::PI * (k as f32 / 5.0 - 0.5);
                let rr = if k % 2 == 0 { d * 0.55 } else { d * 0.22 };
                let (x, y) = (cx + rr * a.cos(), cy + d * 0.05 + rr * a.sin());
                if k == 0 {
                    pb.move_to(x, y);
                } else {
                    pb.line_to(x, y);
                }
            }
            pb.close();
            fill(px, pb.finish(), &paint);
        }
        IconKind::Coin => {
            circle(px, cx, cy, d * 0.5, &paint);
            circle(
                px,
                cx,
                cy,
                d * 0.32,
                &solid(mix(icon.colour, [0; 3], 0.3), 255),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_grouped_as_the_game_writes_them() {
        assert_eq!(grouped(0, Some(',')), "0");
        assert_eq!(grouped(999, Some('.')), "999");
        assert_eq!(grouped(1234, Some(',')), "1,234");
        assert_eq!(grouped(1_234_567, Some('.')), "1.234.567");
        assert_eq!(grouped(1234, None), "1234");
    }
}
