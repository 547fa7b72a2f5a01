//! What a device profile is: the phone's screen, its grid of tiles, its lifeline buttons, its
//! input route and the game's rules, with what each part is for.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::vision::grid::{Grid, Polarity};

/// Tiles per side.
pub const SIDE: usize = 4;

/// How words reach the phone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// Probe the phone and use the fastest route that works.
    Auto,
    /// The monkey's network protocol through a forwarded socket (every Android version).
    Monkey,
    /// `input motionevent` (Android 10, sdk 29, and later).
    Motionevent,
    /// `sendevent` in raw touchscreen units (up to Android 9, sdk 28).
    Sendevent,
    /// Tap each tile, then the last one again.
    Tap,
}

impl Route {
    pub fn name(self) -> &'static str {
        match self {
            Route::Auto => "auto",
            Route::Monkey => "monkey",
            Route::Motionevent => "motionevent",
            Route::Sendevent => "sendevent",
            Route::Tap => "tap",
        }
    }
}

/// A point on the screen, in display pixels.
pub type Point = (f32, f32);

/// How to enter words.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    pub route: Route,
    /// Time between touch samples of a swipe; at least the game's frame, with a margin.
    pub sample_ms: u32,
    /// Extra samples between two tile centres (0: one sample per tile).
    pub between: u32,
    /// Pause after each word.
    pub word_pause_ms: u32,
}

impl Default for Input {
    /// The fastest route that works, one sample per tile a frame and a bit apart.
    fn default() -> Input {
        Input {
            route: Route::Auto,
            sample_ms: 20,
            between: 0,
            word_pause_ms: 0,
        }
    }
}

/// The round as this phone's game plays it.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    pub round_secs: f64,
    pub min_len: usize,
    /// Tap Freeze every this many seconds of round time.
    pub freeze_every_secs: f64,
    /// Freezes to use per round; `None`: as many as the schedule asks.
    pub freeze_uses: Option<u32>,
    /// Seconds one Freeze adds to the round clock.
    pub freeze_secs: f64,
    /// The game's Android package: the words it refused are kept per game
    /// (`scramblebot words --refused`).
    pub game: String,
}

/// Scramble With Friends' package on Android.
pub const SCRAMBLE_PACKAGE: &str = "com.zynga.scramble";

/// Whether `s` is an Android package name (letters, digits, `_` and `.`), as the file of
/// the words a game refused is named after it.
pub fn game_package(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

pub(super) fn default_game() -> String {
    SCRAMBLE_PACKAGE.to_owned()
}

/// A checked profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub(super) name: String,
    pub(super) width: u32,
    pub(super) height: u32,
    /// Tile centres, row-major.
    pub(super) centres: [Point; SIDE * SIDE],
    /// Side of a tile's square.
    pub(super) tile: f32,
    /// Lifeline buttons by name; "freeze" is always there.
    pub(super) buttons: Vec<(String, Point)>,
    pub(super) button_radius: f32,
    pub(super) input: Input,
    pub(super) rules: Rules,
    /// Glyph templates learned by `calibrate --board`, which the reader prefers.
    pub(super) glyphs: Option<Glyphs>,
    /// The results screen's Play/Next button, tapped between rounds (only while no board
    /// shows); `None`: nothing is tapped between rounds.
    pub(super) advance: Option<Point>,
    /// The game's score on the round's screen, as a box (left, top, right, bottom).
    pub(super) score: Option<ScreenBox>,
    /// The game's clock (m:ss, counting down) on the round's screen, and its digits.
    pub(super) clock: Option<Clock>,
    /// The file it was loaded from (glyph strips are found beside it).
    pub(super) source: Option<PathBuf>,
    /// Which way round the board's letters are: dark on light tiles, or light on dark ones
    /// (`letters = "light"` in `[grid]`), read on the screen's negative.
    pub(super) polarity: Polarity,
}

/// Where the game shows its round's clock (m:ss, counting down), and the file beside the
/// profile holding the digits learned off it (`vision::digits`): the score's digits too, in
/// the same typeface.
#[derive(Clone, Debug, PartialEq)]
pub struct Clock {
    pub area: ScreenBox,
    /// The digits' strip (a PNG beside the profile), once learned.
    pub digits: Option<String>,
}

/// Where a profile keeps its glyph templates: a strip of glyph cells side by side (a PNG
/// beside the profile), and the tile each cell shows, in order. Calibration starts it with a
/// board's 16 tiles; every board a person confirms adds the glyphs of letters it has few of.
#[derive(Clone, Debug, PartialEq)]
pub struct Glyphs {
    /// The PNG, relative to the profile's directory.
    pub file: String,
    /// The tile of each cell (0-25, 16 for Qu).
    pub tiles: Vec<u8>,
}

/// The most glyph cells a profile's strip may hold (a few of each letter).
pub const MAX_GLYPHS: usize = 26 * 4;

impl Glyphs {
    /// The cells' tiles as the profile writes them: "R B E N Qu".
    pub fn letters(&self) -> String {
        let names: Vec<&str> = self
            .tiles
            .iter()
            .map(|&t| crate::board::tile_name(t))
            .collect();
        names.join(" ")
    }

    /// The tiles learned, each once, in order.
    pub fn known(&self) -> Vec<u8> {
        let mut tiles = self.tiles.clone();
        tiles.sort_unstable();
        tiles.dedup();
        tiles
    }

    /// The letters learned, each once, alphabetically: "ABENQuR".
    pub fn learned(&self) -> String {
        self.known()
            .iter()
            .map(|&t| crate::board::tile_name(t))
            .collect()
    }

    /// Tiles from "R B E N Qu" (any case), or `None` when a word is not a tile's name.
    pub(super) fn parse_letters(text: &str) -> Option<Vec<u8>> {
        text.split_whitespace()
            .map(|w| match w.to_ascii_lowercase().as_str() {
                "qu" => Some(16),
                l if l.len() == 1 && l.as_bytes()[0].is_ascii_lowercase() && l != "q" => {
                    Some(l.as_bytes()[0] - b'a')
                }
                _ => None,
            })
            .collect()
    }
}

/// The `[glyphs]` table of a profile file, the letters learned in a comment for people.
pub fn glyphs_table(g: &Glyphs) -> String {
    format!(
        "\n[glyphs]            # templates learned from boards a person confirmed\n# letters learned: {}\nfile = {}\nletters = {}\n",
        g.learned(),
        toml_string(&g.file),
        toml_string(&g.letters())
    )
}

/// Why a profile was refused: where, what, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ProfileError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
    pub hint: Option<String>,
}

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

/// Where the game shows its score during a round, in screen pixels: after the round's first
/// words the bot checks it has moved (a game that takes no word leaves it still).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScreenBox {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

impl Default for Rules {
    /// Scramble With Friends: two minutes, words of two letters, Freeze every 30 s adding 15.
    fn default() -> Rules {
        Rules {
            round_secs: 120.0,
            min_len: 2,
            freeze_every_secs: 30.0,
            freeze_uses: None,
            freeze_secs: default_freeze_secs(),
            game: default_game(),
        }
    }
}

pub(super) fn default_freeze_secs() -> f64 {
    15.0
}

impl Profile {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The screen it is for, (width, height) in pixels, portrait.
    pub fn screen(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Tile centres, row-major.
    pub fn centres(&self) -> &[Point; SIDE * SIDE] {
        &self.centres
    }

    /// Side of a tile's square.
    pub fn tile(&self) -> f32 {
        self.tile
    }

    /// The grid the board is read in: the tiles' centres and side, and which way round the
    /// letters are.
    pub fn grid(&self) -> Grid {
        Grid::from_centres(self.centres, self.tile).with_polarity(self.polarity)
    }

    /// Lifeline buttons by name, Freeze first.
    pub fn buttons(&self) -> &[(String, Point)] {
        &self.buttons
    }

    pub fn button_radius(&self) -> f32 {
        self.button_radius
    }

    pub fn input(&self) -> &Input {
        &self.input
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Glyph templates learned by `calibrate --board`, which the reader prefers.
    pub fn glyphs(&self) -> Option<&Glyphs> {
        self.glyphs.as_ref()
    }

    /// The results screen's Play/Next button, tapped between rounds.
    pub fn advance(&self) -> Option<Point> {
        self.advance
    }

    /// Where the game shows its score during a round, when the profile knows.
    pub fn score(&self) -> Option<ScreenBox> {
        self.score
    }

    /// Where the game shows its round's clock, and its learned digits, when the profile knows.
    pub fn clock(&self) -> Option<&Clock> {
        self.clock.as_ref()
    }

    /// The learned digits' strip, when the profile has one and was loaded from a file.
    pub fn digits_path(&self) -> Option<PathBuf> {
        let file = self.clock.as_ref()?.digits.as_ref()?;
        Some(self.source.as_ref()?.parent()?.join(file.trim()))
    }

    /// The file it was loaded from.
    pub fn source(&self) -> Option<&Path> {
        self.source.as_deref()
    }

    /// The glyph strip's path, when the profile has templates and was loaded from a file.
    pub fn glyphs_path(&self) -> Option<PathBuf> {
        let glyphs = self.glyphs.as_ref()?;
        let dir = self.source.as_ref()?.parent()?;
        Some(dir.join(&glyphs.file))
    }

    /// A device name is letters, digits, - and _ (it becomes a file name).
    pub fn valid_name(name: &str) -> bool {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    }

    /// The distance between neighbouring tile centres (the smallest one, for explicit grids).
    pub fn pitch(&self) -> f32 {
        let c = &self.centres;
        (c[1].0 - c[0].0).hypot(c[1].1 - c[0].1)
    }

    /// The Freeze button, when the game shows one.
    pub fn freeze(&self) -> Option<Point> {
        self.buttons.iter().find(|b| b.0 == "freeze").map(|b| b.1)
    }

    /// This profile on a screen of `width`x`height`: the same if equal, scaled if the aspect
    /// ratio is the same (within half a percent), refused otherwise.
    pub fn for_screen(&self, width: u32, height: u32) -> Result<Profile, ProfileError> {
        if (width, height) == (self.width, self.height) {
            return Ok(self.clone());
        }
        let (sx, sy) = (
            width as f32 / self.width as f32,
            height as f32 / self.height as f32,
        );
        if (sx / sy - 1.0).abs() > 0.005 {
            return Err(ProfileError {
                file: self.name.clone(),
                line: None,
                message: format!(
                    "the phone's screen is {width}x{height}, the profile's {}x{}, another shape",
                    self.width, self.height
                ),
                hint: Some(format!(
                    "run `scramblebot calibrate --name {}` for this phone",
                    self.name
                )),
            });
        }
        let s = (sx + sy) / 2.0;
        let mut p = self.clone();
        p.width = width;
        p.height = height;
        for c in &mut p.centres {
            *c = (c.0 * sx, c.1 * sy);
        }
        for b in &mut p.buttons {
            b.1 = (b.1.0 * sx, b.1.1 * sy);
        }
        p.advance = p.advance.map(|a| (a.0 * sx, a.1 * sy));
        let scaled = |b: ScreenBox| ScreenBox {
            x0: b.x0 * sx,
            y0: b.y0 * sy,
            x1: b.x1 * sx,
            y1: b.y1 * sy,
        };
        p.score = p.score.map(scaled);
        if let Some(c) = &mut p.clock {
            c.area = scaled(c.area);
        }
        p.tile *= s;
        p.button_radius *= s;
        Ok(p)
    }

    /// Whether a touch at `p` is inside a tile's cell of the grid (its square plus half the
    /// gap to its neighbours, where a swipe passes between tiles) or a lifeline button: the
    /// only places the bot may touch.
    pub fn in_fence(&self, p: Point) -> bool {
        let half = self.pitch().max(self.tile) / 2.0;
        self.centres
            .iter()
            .any(|c| (p.0 - c.0).abs() <= half && (p.1 - c.1).abs() <= half)
            || self
                .buttons
                .iter()
                .any(|(_, b)| (p.0 - b.0).hypot(p.1 - b.1) <= self.button_radius)
    }
}

/// `text` as a TOML string, quoted and escaped as TOML wants (Rust's `{:?}` writes escapes
/// like `\u{f1f1}` that TOML refuses).
pub(super) fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}
