//! Device profiles (devices/*.toml): where one phone shows the game's tiles and lifeline
//! buttons, how to enter words on it, and the round's rules. Parsed once into a checked
//! `Profile`: a profile with a zero pitch, a tile off the screen or overlapping tiles never
//! exists, and every refusal names the file, the line and a hint. Pure: `from_toml_str` does
//! the work; `load` only reads the file; `find` looks in the places a user keeps profiles.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

/// Tiles per side.
pub const SIDE: usize = 4;

/// The profiles built into the binary (the same files as devices/).
pub const BUILT_IN: [(&str, &str); 3] = [
    ("nexus7", include_str!("../devices/nexus7.toml")),
    ("pixel", include_str!("../devices/pixel.toml")),
    ("small", include_str!("../devices/small.toml")),
];

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

fn default_game() -> String {
    SCRAMBLE_PACKAGE.to_owned()
}

/// A checked profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    name: String,
    width: u32,
    height: u32,
    /// Tile centres, row-major.
    centres: [Point; SIDE * SIDE],
    /// Side of a tile's square.
    tile: f32,
    /// Lifeline buttons by name; "freeze" is always there.
    buttons: Vec<(String, Point)>,
    button_radius: f32,
    input: Input,
    rules: Rules,
    /// Glyph templates learned by `calibrate --board`, which the reader prefers.
    glyphs: Option<Glyphs>,
    /// The results screen's Play/Next button, tapped between rounds (only while no board
    /// shows); `None`: nothing is tapped between rounds.
    advance: Option<Point>,
    /// The game's score on the round's screen, as a box (left, top, right, bottom).
    score: Option<ScreenBox>,
    /// The game's clock (m:ss, counting down) on the round's screen, and its digits.
    clock: Option<Clock>,
    /// The file it was loaded from (glyph strips are found beside it).
    source: Option<PathBuf>,
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

/// Whether `file` names a file beside the profile (no folder above it, not absolute).
fn beside(file: &str) -> bool {
    let file = file.trim();
    !(file.is_empty() || file.contains("..") || Path::new(file).is_absolute())
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
    fn parse_letters(text: &str) -> Option<Vec<u8>> {
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    name: Spanned<String>,
    screen: Spanned<RawScreen>,
    grid: Spanned<RawGrid>,
    /// Missing or empty on a game screen without lifelines.
    #[serde(default)]
    buttons: Option<Spanned<RawButtons>>,
    input: RawInput,
    rules: Spanned<RawRules>,
    glyphs: Option<Spanned<RawGlyphs>>,
    advance: Option<Spanned<RawAdvance>>,
    score: Option<Spanned<RawScore>>,
    clock: Option<Spanned<RawClock>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClock {
    /// Left, top, right, bottom of the clock on the round's screen.
    #[serde(rename = "box")]
    area: [f64; 4],
    /// The learned digits' strip, beside the profile.
    digits: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScore {
    /// Left, top, right, bottom of the score on the round's screen.
    #[serde(rename = "box")]
    area: [f64; 4],
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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAdvance {
    /// Where the results screen's Play/Next button is.
    at: [f64; 2],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGlyphs {
    file: String,
    /// The cells' tiles, space-separated ("R B E N Qu").
    letters: Option<String>,
    /// The older form: 16 cells that spell a board.
    board: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScreen {
    width: u32,
    height: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrid {
    /// Centre of the top-left tile. (Numbers are read as f64 and checked into f32 pixels, so
    /// that 1e300 is refused as itself, not as an infinity.)
    origin: Option<Spanned<[f64; 2]>>,
    pitch: Option<Spanned<f64>>,
    /// Or all 16 centres, row-major.
    centres: Option<Spanned<Vec<[f64; 2]>>>,
    tile: Spanned<f64>,
}

/// `radius = R` and one `name = [x, y]` per button; `freeze` is required.
type RawButtons = std::collections::BTreeMap<String, Spanned<toml::Value>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInput {
    route: Route,
    sample_ms: Spanned<u32>,
    #[serde(default)]
    between: u32,
    #[serde(default)]
    word_pause_ms: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    round_secs: f64,
    min_len: Spanned<usize>,
    freeze_every_secs: f64,
    freeze_uses: Option<u32>,
    #[serde(default = "default_freeze_secs")]
    freeze_secs: f64,
    #[serde(default = "default_game")]
    game: String,
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

fn default_freeze_secs() -> f64 {
    15.0
}

/// Line (from 1) of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The part of a profile a refusal is about (a TOML file maps it to a line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Name,
    Screen,
    Centres,
    Tile,
    Buttons,
    /// The button at this index of `ProfileBuilder::buttons`.
    Button(usize),
    SampleMs,
    Rules,
    MinLen,
    Glyphs,
    Advance,
    Score,
    Clock,
}

/// What is wrong with a profile's parts, before it is placed in a file.
struct Refusal {
    part: Part,
    message: String,
    hint: &'static str,
}

fn refuse(part: Part, message: String, hint: &'static str) -> Result<(), Refusal> {
    Err(Refusal {
        part,
        message,
        hint,
    })
}

/// A profile's parts, checked into a `Profile` by `build`: the one way to make or change a
/// profile outside this module (a file goes through it too), so no profile skips a check.
#[derive(Clone, Debug, PartialEq)]
pub struct ProfileBuilder {
    name: String,
    width: u32,
    height: u32,
    centres: Vec<Point>,
    tile: f32,
    buttons: Vec<(String, Point)>,
    button_radius: f32,
    input: Input,
    rules: Rules,
    glyphs: Option<Glyphs>,
    advance: Option<Point>,
    /// The game's score on the round's screen, as a box (left, top, right, bottom).
    score: Option<ScreenBox>,
    clock: Option<Clock>,
    source: Option<PathBuf>,
}

impl ProfileBuilder {
    /// A profile of `name` for a `width`x`height` screen, its 16 tile centres row by row,
    /// the tiles' side, and its buttons (`freeze` among them) with their radius; input and
    /// rules are the defaults (`Input::default`, `Rules::default`) until set.
    pub fn new(
        name: &str,
        (width, height): (u32, u32),
        centres: &[Point],
        tile: f32,
        buttons: Vec<(String, Point)>,
        button_radius: f32,
    ) -> ProfileBuilder {
        ProfileBuilder {
            name: name.trim().to_owned(),
            width,
            height,
            centres: centres.to_vec(),
            tile,
            buttons,
            button_radius,
            input: Input::default(),
            rules: Rules::default(),
            glyphs: None,
            advance: None,
            score: None,
            clock: None,
            source: None,
        }
    }

    /// The results screen's Play/Next button, tapped between rounds.
    /// Where the game shows its score during a round.
    pub fn score(mut self, area: Option<ScreenBox>) -> ProfileBuilder {
        self.score = area;
        self
    }

    /// Where the game shows its round's clock, and its learned digits.
    pub fn clock(mut self, clock: Option<Clock>) -> ProfileBuilder {
        self.clock = clock;
        self
    }

    pub fn advance(mut self, at: Option<Point>) -> ProfileBuilder {
        self.advance = at;
        self
    }

    pub fn input(mut self, input: Input) -> ProfileBuilder {
        self.input = input;
        self
    }

    pub fn rules(mut self, rules: Rules) -> ProfileBuilder {
        self.rules = rules;
        self
    }

    pub fn glyphs(mut self, glyphs: Option<Glyphs>) -> ProfileBuilder {
        self.glyphs = glyphs;
        self
    }

    /// The file the profile is kept in (glyph strips are found beside it).
    pub fn source(mut self, source: Option<PathBuf>) -> ProfileBuilder {
        self.source = source;
        self
    }

    /// The checked profile, or why not (named after the profile, without a line).
    pub fn build(self) -> Result<Profile, ProfileError> {
        let file = format!("profile {}", self.name);
        self.build_or_refuse().map_err(|r| ProfileError {
            file,
            line: None,
            message: r.message,
            hint: (!r.hint.is_empty()).then(|| r.hint.to_owned()),
        })
    }

    fn build_or_refuse(mut self) -> Result<Profile, Refusal> {
        self.check()?;
        // Freeze first: `Profile::freeze` and the overlay rely on it.
        if let Some(i) = self.buttons.iter().position(|(n, _)| n == "freeze") {
            let freeze = self.buttons.remove(i);
            self.buttons.insert(0, freeze);
        }
        self.input.between = self.input.between.min(MAX_BETWEEN);
        // Without buttons a radius means nothing (and is not written out): one profile, one
        // form. Found by fuzzing: `[buttons]` holding only a radius did not round-trip.
        if self.buttons.is_empty() {
            self.button_radius = 0.0;
        }
        Ok(Profile {
            centres: self.centres.try_into().expect("checked: 16 centres"),
            name: self.name,
            width: self.width,
            height: self.height,
            tile: self.tile,
            buttons: self.buttons,
            button_radius: self.button_radius,
            input: self.input,
            rules: self.rules,
            glyphs: self.glyphs,
            advance: self.advance,
            score: self.score,
            clock: self.clock,
            source: self.source,
        })
    }

    fn check(&self) -> Result<(), Refusal> {
        self.check_screen()?;
        self.check_grid()?;
        self.check_buttons()?;
        self.check_input_and_rules()?;
        if !Profile::valid_name(&self.name) {
            return refuse(
                Part::Name,
                format!("the name {:?} is not a device name", self.name),
                "letters, digits, - and _ (it names the file and `--device NAME`)",
            );
        }
        if let Some(b) = self.score {
            self.check_box(
                Part::Score,
                "score",
                b,
                "box = [left, top, right, bottom] around the game's score, in pixels",
            )?;
        }
        if let Some(c) = &self.clock {
            self.check_box(
                Part::Clock,
                "clock",
                c.area,
                "box = [left, top, right, bottom] around the game's clock (m:ss), in pixels",
            )?;
            if let Some(file) = &c.digits
                && !beside(file)
            {
                return refuse(
                    Part::Clock,
                    format!("clock.digits {file:?} is not a file name beside the profile"),
                    "",
                );
            }
        }
        if let Some(p) = self.advance
            && !(p.0.is_finite() && p.1.is_finite() && self.on_screen(p, 0.0))
        {
            return refuse(
                Part::Advance,
                format!("advance at ({}, {}) is off the screen", p.0, p.1),
                "at = [x, y] of the results screen's Play/Next button, in pixels",
            );
        }
        if let Some(g) = &self.glyphs {
            if g.tiles.is_empty() || g.tiles.len() > MAX_GLYPHS || g.tiles.iter().any(|&t| t > 25) {
                return refuse(
                    Part::Glyphs,
                    format!(
                        "glyphs.letters holds {} cells: from 1 to {MAX_GLYPHS} letters are kept",
                        g.tiles.len()
                    ),
                    "the letter of each cell of the strip, left to right: letters = \"R B E N Qu\"",
                );
            }
            if !beside(&g.file) {
                let file = g.file.trim();
                return refuse(
                    Part::Glyphs,
                    format!("glyphs.file {file:?} is not a file name beside the profile"),
                    "",
                );
            }
        }
        Ok(())
    }

    fn check_screen(&self) -> Result<(), Refusal> {
        let (w, h) = (self.width, self.height);
        if w == 0 || h == 0 || w > MAX_SCREEN || h > MAX_SCREEN {
            return refuse(
                Part::Screen,
                format!("screen {w}x{h} is not a phone screen"),
                "width and height in pixels, as `adb shell wm size` prints them",
            );
        }
        if w > h {
            return refuse(
                Part::Screen,
                format!("screen {w}x{h} is landscape"),
                "give the portrait size: width < height",
            );
        }
        Ok(())
    }

    /// Whether a circle (or square) of radius `half` around `p` lies on the screen.
    fn on_screen(&self, (x, y): Point, half: f32) -> bool {
        x - half >= 0.0
            && y - half >= 0.0
            && x + half <= self.width as f32
            && y + half <= self.height as f32
    }

    /// Refuses `b`, the `what` box, unless it is a box (not flat, not inverted) on the screen.
    fn check_box(
        &self,
        part: Part,
        what: &str,
        b: ScreenBox,
        hint: &'static str,
    ) -> Result<(), Refusal> {
        let is_box = b.x0 < b.x1
            && b.y0 < b.y1
            && self.on_screen((b.x0, b.y0), 0.0)
            && self.on_screen((b.x1, b.y1), 0.0);
        if is_box {
            return Ok(());
        }
        refuse(
            part,
            format!(
                "{what} box [{}, {}, {}, {}] is not a box on the {}x{} screen",
                b.x0, b.y0, b.x1, b.y1, self.width, self.height
            ),
            hint,
        )
    }

    fn check_grid(&self) -> Result<(), Refusal> {
        let (centres, tile) = (&self.centres, self.tile);
        if centres.len() != SIDE * SIDE {
            return refuse(
                Part::Centres,
                format!("{} tile centres, expected 16", centres.len()),
                "list the centres row by row, [x, y] each",
            );
        }
        if !(tile.is_finite() && tile > 0.0) {
            return refuse(
                Part::Tile,
                format!("tile size {tile} must be positive"),
                "the side of a tile's square, in pixels",
            );
        }
        for i in 0..centres.len() {
            for j in i + 1..centres.len() {
                let (a, b) = (centres[i], centres[j]);
                if (a.0 - b.0).abs() < tile && (a.1 - b.1).abs() < tile {
                    return refuse(
                        Part::Tile,
                        format!(
                            "tiles {i} and {j} overlap: centres closer than the tile size {tile}"
                        ),
                        "the tile size must not exceed the pitch",
                    );
                }
            }
        }
        check_row_order(centres)?;
        let (w, h) = (self.width, self.height);
        for (i, &c) in centres.iter().enumerate() {
            if !self.on_screen(c, tile / 2.0) {
                return refuse(
                    Part::Centres,
                    format!(
                        "tile {i} (row {}, col {}) at ({}, {}) is off the {w}x{h} screen",
                        i / SIDE,
                        i % SIDE,
                        c.0,
                        c.1
                    ),
                    "check origin, pitch and tile against a screenshot",
                );
            }
        }
        Ok(())
    }

    fn check_buttons(&self) -> Result<(), Refusal> {
        let radius = self.button_radius;
        // A game screen without lifelines (an old version, a crop) has no buttons at all:
        // then Freeze is never tapped.
        if self.buttons.is_empty() {
            return Ok(());
        }
        if !(radius.is_finite() && radius > 0.0) {
            return refuse(
                Part::Buttons,
                "buttons need a positive radius".into(),
                "radius = N, in pixels",
            );
        }
        if !self.buttons.iter().any(|(n, _)| n == "freeze") {
            return refuse(
                Part::Buttons,
                "buttons but no freeze among them".into(),
                "freeze = [x, y], the first lifeline under the grid (or no buttons at all)",
            );
        }
        let half = self.tile / 2.0;
        for (k, (name, p)) in self.buttons.iter().enumerate() {
            // Found by fuzzing: a button named '' was taken, and written out as a bare `=`.
            if !Profile::valid_name(name) {
                return refuse(
                    Part::Button(k),
                    format!("button name {name:?} is not a name"),
                    "letters, digits, - and _ (freeze, inspire, scramble)",
                );
            }
            if !self.on_screen(*p, radius) {
                return refuse(
                    Part::Button(k),
                    format!(
                        "button {name} at ({}, {}) with radius {radius} is off the {}x{} screen",
                        p.0, p.1, self.width, self.height
                    ),
                    "[x, y] of the button's centre, in screen pixels",
                );
            }
            if let Some(i) = self.centres.iter().position(|c| {
                (c.0 - p.0).abs() < half + radius && (c.1 - p.1).abs() < half + radius
            }) {
                return refuse(
                    Part::Button(k),
                    format!("button {name} overlaps tile {i}"),
                    "lifeline buttons sit under the grid",
                );
            }
        }
        Ok(())
    }

    fn check_input_and_rules(&self) -> Result<(), Refusal> {
        let sample_ms = self.input.sample_ms;
        if !(1..=1000).contains(&sample_ms) {
            return refuse(
                Part::SampleMs,
                format!("sample_ms {sample_ms} is out of range"),
                "one touch sample per game frame at most: 17 to 25 for a 60 Hz phone",
            );
        }
        let r = &self.rules;
        let secs = |what: &str, v: f64, zero: bool, hint: &'static str| {
            if v.is_finite() && (v > 0.0 || zero && v == 0.0) && v <= MAX_SECS {
                Ok(())
            } else {
                let from = if zero { "from 0" } else { "over 0" };
                let m = format!(
                    "{what} {} is out of range: seconds {from} to {MAX_SECS}",
                    number(v)
                );
                refuse(Part::Rules, m, hint)
            }
        };
        secs(
            "round_secs",
            r.round_secs,
            false,
            "how long the game's round lasts: 120 for Scramble With Friends",
        )?;
        secs(
            "freeze_secs",
            r.freeze_secs,
            true,
            "what one Freeze adds to the clock: 15 in Scramble With Friends",
        )?;
        secs(
            "freeze_every_secs",
            r.freeze_every_secs,
            false,
            "how often Freeze is tapped, in round time: 30",
        )?;
        if !game_package(&r.game) {
            return refuse(
                Part::Rules,
                format!(
                    "game {} is not an Android package name",
                    toml_string(&r.game)
                ),
                "the game's package, as `adb shell pm list packages` names it: com.zynga.scramble for Scramble With Friends",
            );
        }
        if !(2..=16).contains(&r.min_len) {
            return refuse(
                Part::MinLen,
                format!("min_len {} is not 2 to 16", r.min_len),
                "2 for Scramble With Friends, 3 for Boggle",
            );
        }
        Ok(())
    }
}

/// How far a step between neighbouring centres may differ from the grid's typical step (as a
/// share of it): a hand-measured grid is off by a few pixels, a swapped tile by a whole pitch.
const PITCH_TOLERANCE: f32 = 0.25;

/// "tile 5 (row 1, col 1) at (300, 500)".
fn tile_at(i: usize, c: Point) -> String {
    format!(
        "tile {i} (row {}, col {}) at ({}, {})",
        i / SIDE,
        i % SIDE,
        c.0,
        c.1
    )
}

/// The centres must form the grid row by row: each tile right of the one before it in its
/// row and below the one above it, every step about the same length. A profile with two
/// tiles swapped would otherwise swipe other letters than the solver's words.
fn check_row_order(centres: &[Point]) -> Result<(), Refusal> {
    const HINT: &str = "list the centres row by row: left to right, top to bottom";
    let at = |r: usize, c: usize| (r * SIDE + c, centres[r * SIDE + c]);
    let mut steps = Vec::with_capacity(2 * SIDE * (SIDE - 1));
    for r in 0..SIDE {
        for c in 0..SIDE {
            let (i, p) = at(r, c);
            if c > 0 {
                let (j, q) = at(r, c - 1);
                if p.0 <= q.0 {
                    let m = format!("{} is not right of {}", tile_at(i, p), tile_at(j, q));
                    return refuse(Part::Centres, m, HINT);
                }
                steps.push((i, p, j, q));
            }
            if r > 0 {
                let (j, q) = at(r - 1, c);
                if p.1 <= q.1 {
                    let m = format!("{} is not below {}", tile_at(i, p), tile_at(j, q));
                    return refuse(Part::Centres, m, HINT);
                }
                steps.push((i, p, j, q));
            }
        }
    }
    let length = |&(_, p, _, q): &(usize, Point, usize, Point)| (p.0 - q.0).hypot(p.1 - q.1);
    let mut lengths: Vec<f32> = steps.iter().map(length).collect();
    lengths.sort_by(f32::total_cmp);
    let typical = lengths[lengths.len() / 2];
    if let Some(step) = steps
        .iter()
        .find(|s| (length(s) - typical).abs() > typical * PITCH_TOLERANCE)
    {
        let (i, p, j, q) = *step;
        let m = format!(
            "{} is {:.0} px from {}, where neighbours are {typical:.0} px apart",
            tile_at(i, p),
            length(step),
            tile_at(j, q)
        );
        return refuse(
            Part::Centres,
            m,
            "every tile's centre one pitch from its neighbours, row by row",
        );
    }
    Ok(())
}

/// The widest or tallest screen a profile may describe, in pixels.
const MAX_SCREEN: u32 = 20_000;
/// The longest round (and Freeze) a profile may describe: an hour.
const MAX_SECS: f64 = 3600.0;
/// The most extra samples between two tile centres a swipe takes (more only slows it down).
const MAX_BETWEEN: u32 = 16;

/// Where each part of a profile file lies, for the line of a refusal.
struct Spans {
    name: Span,
    screen: Span,
    centres: Span,
    tile: Span,
    buttons: Span,
    /// In the order the builder gets the buttons.
    button: Vec<Span>,
    sample_ms: Span,
    rules: Span,
    min_len: Span,
    glyphs: Option<Span>,
    advance: Option<Span>,
    score: Option<Span>,
    clock: Option<Span>,
}

type Span = std::ops::Range<usize>;

impl Spans {
    fn of(&self, part: Part) -> Option<Span> {
        Some(match part {
            Part::Name => self.name.clone(),
            Part::Screen => self.screen.clone(),
            Part::Centres => self.centres.clone(),
            Part::Tile => self.tile.clone(),
            Part::Buttons => self.buttons.clone(),
            Part::Button(i) => self.button.get(i)?.clone(),
            Part::SampleMs => self.sample_ms.clone(),
            Part::Rules => self.rules.clone(),
            Part::MinLen => self.min_len.clone(),
            Part::Glyphs => self.glyphs.clone()?,
            Part::Advance => self.advance.clone()?,
            Part::Score => self.score.clone()?,
            Part::Clock => self.clock.clone()?,
        })
    }
}

/// A refusal of a profile file: its file, the line of `span`, the message and the hint.
fn file_error(
    text: &str,
    file: &str,
    span: Option<Span>,
    message: String,
    hint: &str,
) -> ProfileError {
    ProfileError {
        file: file.to_owned(),
        line: span.map(|s| line_of(text, s.start)),
        message,
        hint: (!hint.is_empty()).then(|| hint.to_owned()),
    }
}

/// A TOML number as f64.
fn toml_number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// `text` as a TOML string, quoted and escaped as TOML wants (Rust's `{:?}` writes escapes
/// like `\u{f1f1}` that TOML refuses).
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// A length or coordinate in pixels, as f32, when it is a finite number from 0 to the widest
/// screen; what to say otherwise.
fn pixels(what: &str, v: f64) -> Result<f32, String> {
    if v.is_finite() && (0.0..=f64::from(MAX_SCREEN)).contains(&v) {
        Ok(v as f32)
    } else {
        Err(format!(
            "{what} {} is out of range: pixels from 0 to {MAX_SCREEN}",
            number(v)
        ))
    }
}

/// A number as a person wrote it: 1e300, not three hundred digits.
fn number(v: f64) -> String {
    if v != 0.0 && !(1e-4..1e7).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// A grid's point in pixels.
fn grid_point(what: &str, p: [f64; 2]) -> Result<Point, String> {
    Ok((pixels(what, p[0])?, pixels(what, p[1])?))
}

/// The 16 centres of a `[grid]`: from origin and pitch, or listed.
fn grid_centres(grid: &Spanned<RawGrid>) -> Result<Vec<Point>, (Span, String, &'static str)> {
    const PITCH: &str = "the distance between neighbouring tile centres, in pixels";
    const CENTRE: &str = "[x, y] in screen pixels";
    let g = grid.get_ref();
    match (&g.origin, &g.pitch, &g.centres) {
        (Some(o), Some(p), None) => {
            let pitch = pixels("pitch", *p.get_ref()).map_err(|m| (p.span(), m, PITCH))?;
            if pitch <= 0.0 {
                return Err((p.span(), format!("pitch {pitch} must be positive"), PITCH));
            }
            let o = grid_point("origin", *o.get_ref()).map_err(|m| (o.span(), m, CENTRE))?;
            Ok((0..SIDE * SIDE)
                .map(|i| {
                    let (r, c) = ((i / SIDE) as f32, (i % SIDE) as f32);
                    (o.0 + pitch * c, o.1 + pitch * r)
                })
                .collect())
        }
        (None, None, Some(list)) => list
            .get_ref()
            .iter()
            .enumerate()
            .map(|(i, &p)| grid_point(&format!("centre {i}"), p))
            .collect::<Result<_, _>>()
            .map_err(|m| (list.span(), m, CENTRE)),
        _ => Err((
            grid.span(),
            "the grid needs either origin and pitch, or centres".into(),
            "origin = [x, y] of the top-left tile's centre and pitch = N, or 16 centres",
        )),
    }
}

/// The `[buttons]` table: its radius (0 when missing or not a number, which the checks
/// refuse), and each button as a point with its span.
#[allow(clippy::type_complexity)]
fn raw_buttons(
    buttons: &RawButtons,
) -> Result<(f32, Vec<(String, Point)>, Vec<Span>), (Span, String, &'static str)> {
    let radius = match buttons.get("radius") {
        Some(v) => match toml_number(v.get_ref()) {
            Some(r) => pixels("radius", r).map_err(|m| (v.span(), m, "radius = N, in pixels"))?,
            None => 0.0,
        },
        None => 0.0,
    };
    let mut points = Vec::new();
    let mut spans = Vec::new();
    for (name, v) in buttons.iter().filter(|(n, _)| *n != "radius") {
        let point = match v.get_ref() {
            toml::Value::Array(a) if a.len() == 2 => {
                a.iter().map(toml_number).collect::<Option<Vec<f64>>>()
            }
            _ => None,
        };
        let Some(p) = point else {
            return Err((
                v.span(),
                format!("button {name} is not a point"),
                "name = [x, y] in pixels",
            ));
        };
        let p = grid_point(&format!("button {name}"), [p[0], p[1]])
            .map_err(|m| (v.span(), m, "name = [x, y] in pixels"))?;
        points.push((name.clone(), p));
        spans.push(v.span());
    }
    Ok((radius, points, spans))
}

impl Profile {
    /// Parses and checks a profile; `file` names it in errors.
    pub fn from_toml_str(text: &str, file: &str) -> Result<Profile, ProfileError> {
        let err = |span: Option<Span>, message: String, hint: &str| {
            file_error(text, file, span, message, hint)
        };
        let raw: RawProfile = toml::from_str(text).map_err(|e| {
            err(
                e.span(),
                e.message().trim().to_owned(),
                "see devices/README.md for the fields",
            )
        })?;
        let form = |(span, message, hint): (Span, String, &str)| err(Some(span), message, hint);
        let centres = grid_centres(&raw.grid).map_err(form)?;
        let no_buttons = RawButtons::new();
        let (radius, buttons, button_spans) =
            raw_buttons(raw.buttons.as_ref().map_or(&no_buttons, Spanned::get_ref))
                .map_err(form)?;
        let glyphs = match &raw.glyphs {
            None => None,
            Some(g) => {
                let raw = g.get_ref();
                let tiles = match (&raw.letters, &raw.board) {
                    (Some(letters), None) => Glyphs::parse_letters(letters).ok_or_else(|| {
                        err(
                            Some(g.span()),
                            format!("glyphs.letters {letters:?} holds a word that is not a tile"),
                            "the letter of each cell, left to right, spaces between: \"R B E N Qu\"",
                        )
                    })?,
                    (None, Some(board)) => crate::board::Board::parse(board)
                        .ok()
                        .filter(|b| b.side() == SIDE)
                        .ok_or_else(|| {
                            err(
                                Some(g.span()),
                                format!("glyphs.board {board:?} is not a 4x4 board"),
                                "the 16 tiles the strip shows, row by row",
                            )
                        })?
                        .tiles()
                        .to_vec(),
                    _ => {
                        return Err(err(
                            Some(g.span()),
                            "[glyphs] needs its cells' letters (and not also a board)".into(),
                            "letters = \"R B E N Qu\", the letter of each cell, left to right",
                        ));
                    }
                };
                Some(Glyphs {
                    file: raw.file.trim().to_owned(),
                    tiles,
                })
            }
        };
        let grid = raw.grid.get_ref();
        let spans = Spans {
            name: raw.name.span(),
            screen: raw.screen.span(),
            centres: grid
                .origin
                .as_ref()
                .map(Spanned::span)
                .or(grid.centres.as_ref().map(Spanned::span))
                .unwrap_or(raw.grid.span()),
            tile: grid.tile.span(),
            buttons: raw.buttons.as_ref().map_or(0..0, Spanned::span),
            button: button_spans,
            sample_ms: raw.input.sample_ms.span(),
            rules: raw.rules.span(),
            min_len: raw.rules.get_ref().min_len.span(),
            glyphs: raw.glyphs.as_ref().map(Spanned::span),
            advance: raw.advance.as_ref().map(Spanned::span),
            score: raw.score.as_ref().map(Spanned::span),
            clock: raw.clock.as_ref().map(Spanned::span),
        };
        let (screen, input, rules) = (raw.screen.get_ref(), &raw.input, raw.rules.get_ref());
        let screen_box = |what: &str, a: [f64; 4], span: Span| {
            let corner = |x, y| {
                grid_point(what, [x, y]).map_err(|m| {
                    err(
                        Some(span.clone()),
                        m,
                        "box = [left, top, right, bottom], in pixels",
                    )
                })
            };
            let ((x0, y0), (x1, y1)) = (corner(a[0], a[1])?, corner(a[2], a[3])?);
            Ok::<_, ProfileError>(ScreenBox { x0, y0, x1, y1 })
        };
        let score = match &raw.score {
            Some(b) => Some(screen_box("score box", b.get_ref().area, b.span())?),
            None => None,
        };
        let clock = match &raw.clock {
            Some(c) => Some(Clock {
                area: screen_box("clock box", c.get_ref().area, c.span())?,
                digits: c.get_ref().digits.clone(),
            }),
            None => None,
        };
        let advance = match &raw.advance {
            Some(a) => Some(grid_point("advance", a.get_ref().at).map_err(|m| {
                err(
                    Some(a.span()),
                    m,
                    "at = [x, y] of the results screen's Play/Next",
                )
            })?),
            None => None,
        };
        let tile = pixels("tile size", *grid.tile.get_ref()).map_err(|m| {
            err(
                Some(grid.tile.span()),
                m,
                "the side of a tile's square, in pixels",
            )
        })?;
        ProfileBuilder::new(
            raw.name.get_ref(),
            (screen.width, screen.height),
            &centres,
            tile,
            buttons,
            radius,
        )
        .input(Input {
            route: input.route,
            sample_ms: *input.sample_ms.get_ref(),
            between: input.between,
            word_pause_ms: input.word_pause_ms,
        })
        .rules(Rules {
            round_secs: rules.round_secs,
            min_len: *rules.min_len.get_ref(),
            freeze_every_secs: rules.freeze_every_secs,
            freeze_uses: rules.freeze_uses,
            freeze_secs: rules.freeze_secs,
            game: rules.game.trim().to_owned(),
        })
        .glyphs(glyphs)
        .advance(advance)
        .score(score)
        .clock(clock)
        .build_or_refuse()
        .map_err(|r| err(spans.of(r.part), r.message, r.hint))
    }

    /// This profile's parts, to change and check again.
    pub fn to_builder(&self) -> ProfileBuilder {
        ProfileBuilder {
            name: self.name.clone(),
            width: self.width,
            height: self.height,
            centres: self.centres.to_vec(),
            tile: self.tile,
            buttons: self.buttons.clone(),
            button_radius: self.button_radius,
            input: self.input.clone(),
            rules: self.rules.clone(),
            glyphs: self.glyphs.clone(),
            advance: self.advance,
            score: self.score,
            clock: self.clock.clone(),
            source: self.source.clone(),
        }
    }

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

    /// Reads and checks a profile file.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let text = crate::files::read_text(path, crate::files::Kind::Config).map_err(|e| {
            ProfileError {
                file: path.display().to_string(),
                line: None,
                message: e.to_string(),
                hint: None,
            }
        })?;
        let mut profile = Profile::from_toml_str(&text, &path.display().to_string())?;
        profile.source = Some(path.to_owned());
        Ok(profile)
    }

    /// The glyph strip's path, when the profile has templates and was loaded from a file.
    pub fn glyphs_path(&self) -> Option<PathBuf> {
        let glyphs = self.glyphs.as_ref()?;
        let dir = self.source.as_ref()?.parent()?;
        Some(dir.join(&glyphs.file))
    }

    /// A profile built into the binary.
    pub fn built_in(name: &str) -> Option<Profile> {
        BUILT_IN.iter().find(|(n, _)| *n == name).map(|(n, text)| {
            Profile::from_toml_str(text, &format!("(built-in {n}.toml)"))
                .expect("shipped profiles are tested")
        })
    }

    /// A device name is letters, digits, - and _ (it becomes a file name).
    pub fn valid_name(name: &str) -> bool {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    }

    /// The profile as a devices/*.toml file that `from_toml_str` reads back to the same
    /// profile (the grid as its 16 centres). `header` lines become comments at the top.
    pub fn to_toml(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out += &format!("# {line}\n");
        }
        out += &format!("name = {}\n\n", toml_string(&self.name));
        out += &format!(
            "[screen]\nwidth = {}\nheight = {}\n\n",
            self.width, self.height
        );
        out += "[grid]\ncentres = [ # row by row\n";
        for row in self.centres.chunks(SIDE) {
            let cells: Vec<String> = row.iter().map(|c| format!("[{}, {}]", c.0, c.1)).collect();
            out += &format!("    {},\n", cells.join(", "));
        }
        out += &format!("]\ntile = {}\n\n", self.tile);
        if self.buttons.is_empty() {
            out += "# No lifeline buttons on this game's screen: Freeze is not tapped.\n\n";
        } else {
            out += "[buttons]\n";
            for (name, b) in &self.buttons {
                out += &format!("{name} = [{}, {}]\n", b.0, b.1);
            }
            out += &format!("radius = {}\n\n", self.button_radius);
        }
        let i = &self.input;
        out += &format!(
            "[input]\nroute = {}\nsample_ms = {}\nbetween = {}\nword_pause_ms = {}\n\n",
            toml_string(i.route.name()),
            i.sample_ms,
            i.between,
            i.word_pause_ms
        );
        let r = &self.rules;
        out += &format!(
            "[rules]\nround_secs = {}\nmin_len = {}\nfreeze_every_secs = {}\nfreeze_secs = {}\ngame = {}\n",
            r.round_secs,
            r.min_len,
            r.freeze_every_secs,
            r.freeze_secs,
            toml_string(&r.game)
        );
        if let Some(n) = r.freeze_uses {
            out += &format!("freeze_uses = {n}\n");
        }
        if let Some(b) = self.score {
            out += &format!(
                "\n[score]             # the game's score in a round: checked to move after the first words\nbox = [{}, {}, {}, {}]\n",
                b.x0, b.y0, b.x1, b.y1
            );
        }
        if let Some(c) = &self.clock {
            let b = c.area;
            out += &format!(
                "\n[clock]             # the round's clock (m:ss): the deadline, and its digits read the score\nbox = [{}, {}, {}, {}]\n",
                b.x0, b.y0, b.x1, b.y1
            );
            if let Some(d) = &c.digits {
                out += &format!("digits = {}\n", toml_string(d));
            }
        }
        if let Some(a) = self.advance {
            out += &format!(
                "\n[advance]           # the results screen's Play/Next, tapped between rounds\nat = [{}, {}]\n",
                a.0, a.1
            );
        }
        if let Some(g) = &self.glyphs {
            out += &glyphs_table(g);
        }
        out
    }

    /// The profile for a `width`x`height` screen: the first, by name, in ./devices, then in
    /// `config_dir/devices`, then built in, whose screen is that size. Files that do not load
    /// are passed over (each is named in the second list, with why).
    pub fn for_screen_size(
        (width, height): (u32, u32),
        cwd: &Path,
        config_dir: Option<&Path>,
    ) -> (Option<Profile>, Vec<ProfileError>) {
        let mut refused = Vec::new();
        let dirs =
            std::iter::once(cwd.join("devices")).chain(config_dir.map(|d| d.join("devices")));
        for dir in dirs {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut paths: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            paths.sort();
            for path in paths {
                match Profile::load(&path) {
                    Ok(p) if p.screen() == (width, height) => return (Some(p), refused),
                    Ok(_) => {}
                    Err(e) => refused.push(e),
                }
            }
        }
        let built_in = BUILT_IN
            .iter()
            .filter_map(|(n, _)| Profile::built_in(n))
            .find(|p| p.screen() == (width, height));
        (built_in, refused)
    }

    /// Finds `--device NAME`: ./devices, then `config_dir/devices` (the user's
    /// `$XDG_CONFIG_HOME/scramblebot`), then the built-in profiles.
    pub fn find(
        name: &str,
        cwd: &Path,
        config_dir: Option<&Path>,
    ) -> Result<Profile, ProfileError> {
        if !Profile::valid_name(name) {
            return Err(ProfileError {
                file: name.to_owned(),
                line: None,
                message: "not a device name".into(),
                hint: Some("letters, digits, - and _".into()),
            });
        }
        let mut tried: Vec<PathBuf> = vec![cwd.join("devices")];
        tried.extend(config_dir.map(|d| d.join("devices")));
        for dir in &tried {
            let path = dir.join(format!("{name}.toml"));
            if path.is_file() {
                return Profile::load(&path);
            }
        }
        Profile::built_in(name).ok_or_else(|| ProfileError {
            file: format!("{name}.toml"),
            line: None,
            message: format!(
                "no profile named {name:?} in {} or built in ({})",
                tried
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                BUILT_IN.map(|(n, _)| n).join(", ")
            ),
            hint: Some("run `scramblebot calibrate --name NAME` for a new phone".into()),
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"name = "test"
[screen]
width = 800
height = 1280
[grid]
origin = [100, 300]
pitch = 200
tile = 184
[buttons]
freeze = [200, 1200]
inspire = [400, 1200]
radius = 70
[input]
route = "monkey"
sample_ms = 20
[rules]
round_secs = 120
min_len = 2
freeze_every_secs = 30
"#;

    #[test]
    fn every_shipped_profile_loads_and_matches_its_file() {
        for (name, text) in BUILT_IN {
            let p = Profile::from_toml_str(text, name).unwrap();
            assert_eq!(p.name, name);
            let on_disk = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("devices")
                .join(format!("{name}.toml"));
            let mut loaded = Profile::load(&on_disk).unwrap();
            assert_eq!(loaded.source.as_deref(), Some(on_disk.as_path()));
            loaded.source = None;
            assert_eq!(loaded, p);
        }
        let n7 = Profile::built_in("nexus7").unwrap();
        assert_eq!((n7.width, n7.height), (800, 1280));
        assert_eq!(n7.centres[0], (100.0, 300.0));
        assert_eq!(n7.centres[15], (700.0, 900.0));
        assert_eq!(n7.freeze(), Some((200.0, 1200.0)));
        let others: Vec<Point> = n7.buttons[1..].iter().map(|b| b.1).collect();
        assert_eq!(others, [(400.0, 1200.0), (600.0, 1200.0)]);
    }

    #[test]
    fn bad_profiles_are_refused_with_line_and_hint() {
        // (replace, with, line, message contains)
        let cases = [
            (
                "pitch = 200",
                "pitch = 0",
                Some(7),
                "pitch 0 must be positive",
            ),
            ("tile = 184", "tile = 250", Some(8), "overlap"),
            (
                "origin = [100, 300]",
                "origin = [50, 300]",
                Some(6),
                "off the 800x1280 screen",
            ),
            (
                "route = \"monkey\"",
                "route = \"telepathy\"",
                Some(14),
                "unknown variant",
            ),
            (
                "sample_ms = 20",
                "sample_ms = 20\nspeed = 3",
                Some(16),
                "unknown field `speed`",
            ),
            ("width = 800", "width = 2000", Some(2), "landscape"),
            (
                "freeze = [200, 1200]",
                "freeze = [300, 500]",
                Some(10),
                "overlaps tile",
            ),
            ("min_len = 2", "min_len = 1", Some(18), "min_len 1"),
            ("pitch = 200\n", "", Some(5), "either origin and pitch"),
            (
                "pitch = 200",
                "pitch = 1e300",
                Some(7),
                "pitch 1e300 is out of range: pixels from 0 to 20000",
            ),
            (
                "tile = 184",
                "tile = -3",
                Some(8),
                "tile size -3 is out of range",
            ),
            (
                "radius = 70",
                "radius = 1e40",
                Some(12),
                "radius 1e40 is out of range",
            ),
            (
                "round_secs = 120",
                "round_secs = 0",
                Some(16),
                "round_secs 0 is out of range: seconds over 0 to 3600",
            ),
            (
                "freeze_every_secs = 30",
                "freeze_every_secs = 1e300",
                Some(16),
                "freeze_every_secs 1e300 is out of range",
            ),
            (
                "inspire = [400, 1200]",
                "inspire = [790, 1200]",
                Some(11),
                "button inspire at (790, 1200) with radius 70 is off the 800x1280 screen",
            ),
        ];
        for (from, to, line, message) in cases {
            let text = GOOD.replace(from, to);
            let e = Profile::from_toml_str(&text, "devices/test.toml").unwrap_err();
            assert_eq!(e.line, line, "{to}: {e}");
            assert!(e.message.contains(message), "{to}: {e}");
            assert!(e.to_string().starts_with("devices/test.toml:"), "{e}");
        }
    }

    #[test]
    fn strings_are_written_as_toml_escapes_them() {
        // Found by fuzzing: `{:?}` wrote "\u{f1f1}", which TOML refuses.
        let text = GOOD.to_owned()
            + "[glyphs]\nfile = \"gl\\uf1f1yphs \\\"q\\\".png\"\nboard = \"RBEN/STLA/EOUO/NCAQu\"\n";
        let p = Profile::from_toml_str(&text, "t").unwrap();
        assert_eq!(p.glyphs().unwrap().file, "gl\u{f1f1}yphs \"q\".png");
        assert_eq!(Profile::from_toml_str(&p.to_toml("x"), "again").unwrap(), p);
        // And a name is a device name, or refused.
        let odd = GOOD.replace("name = \"test\"", "name = \"a b\"");
        let e = Profile::from_toml_str(&odd, "t").unwrap_err();
        assert!(e.message.contains("not a device name"), "{e}");
    }

    #[test]
    fn centres_must_form_the_grid_row_by_row() {
        let grid = |centres: &[(f32, f32)]| {
            let list: Vec<String> = centres
                .iter()
                .map(|c| format!("[{}, {}]", c.0, c.1))
                .collect();
            GOOD.replace(
                "origin = [100, 300]\npitch = 200",
                &format!("centres = [{}]", list.join(", ")),
            )
        };
        let good: Vec<(f32, f32)> = (0..16)
            .map(|i| {
                (
                    100.0 + 200.0 * (i % 4) as f32,
                    300.0 + 200.0 * (i / 4) as f32,
                )
            })
            .collect();
        assert!(Profile::from_toml_str(&grid(&good), "t").is_ok());
        // A few pixels off, as a hand-measured grid is: accepted.
        let mut measured = good.clone();
        measured[5].0 += 6.0;
        measured[10].1 -= 5.0;
        assert!(Profile::from_toml_str(&grid(&measured), "t").is_ok());
        // (what is wrong, the centres, the message)
        let mut swapped = good.clone();
        swapped.swap(4, 5);
        let mut rows = good.clone();
        rows.swap(1, 5);
        let mut wide = good.clone();
        wide[3].0 += 120.0;
        let cases = [
            (
                swapped,
                "tile 5 (row 1, col 1) at (100, 500) is not right of tile 4 (row 1, col 0) at (300, 500)",
            ),
            (
                rows,
                "tile 5 (row 1, col 1) at (300, 300) is not below tile 1 (row 0, col 1) at (300, 500)",
            ),
            (
                wide,
                "tile 3 (row 0, col 3) at (820, 300) is 320 px from tile 2 (row 0, col 2) at (500, 300), where neighbours are 200 px apart",
            ),
        ];
        for (centres, want) in cases {
            let e = Profile::from_toml_str(&grid(&centres), "t").unwrap_err();
            assert!(e.message.contains(want), "{e}");
            assert!(e.hint.is_some(), "{e}");
        }
    }

    #[test]
    fn a_screen_of_the_same_shape_scales_another_is_refused() {
        let p = Profile::from_toml_str(GOOD, "t").unwrap();
        let big = p.for_screen(1200, 1920).unwrap();
        assert_eq!(big.centres[0], (150.0, 450.0));
        assert_eq!(big.freeze(), Some((300.0, 1800.0)));
        assert_eq!(big.tile, 276.0);
        let e = p.for_screen(1080, 2400).unwrap_err();
        assert!(e.to_string().contains("calibrate"), "{e}");
    }

    #[test]
    fn to_toml_reads_back_to_the_same_profile() {
        for (name, _) in BUILT_IN {
            let p = Profile::built_in(name).unwrap();
            let text = p.to_toml("written by a test\nsecond line");
            assert!(text.starts_with("# written by a test\n# second line\n"));
            assert_eq!(Profile::from_toml_str(&text, "x").unwrap(), p, "{text}");
        }
        let mut odd = Profile::built_in("pixel").unwrap();
        odd.centres[5].0 += 0.3;
        odd.tile = 221.7;
        odd.rules.freeze_uses = Some(2);
        odd.input.route = Route::Monkey;
        odd.glyphs = Some(Glyphs {
            file: "odd.glyphs.png".into(),
            tiles: crate::board::Board::parse("LQuRE/SLUS/ATIC/NREN")
                .unwrap()
                .tiles()
                .to_vec(),
        });
        odd.advance = Some((540.0, 1770.5));
        odd.clock = Some(Clock {
            area: ScreenBox {
                x0: 40.0,
                y0: 300.5,
                x1: 378.0,
                y1: 430.0,
            },
            digits: Some("odd \"digits\".png".into()),
        });
        let text = odd.to_toml("");
        assert_eq!(Profile::from_toml_str(&text, "x").unwrap(), odd, "{text}");
        // An advance button off the screen is refused with its line.
        let off = text.replace("at = [540, 1770.5]", "at = [540, 9999]");
        let e = Profile::from_toml_str(&off, "x").unwrap_err();
        assert!(e.message.contains("advance"), "{e}");
        assert_eq!(e.line, off.lines().position(|l| l == "[advance]           # the results screen's Play/Next, tapped between rounds").map(|i| i + 1), "{e}");
    }

    #[test]
    fn a_clock_is_a_box_on_the_screen_with_its_digits_beside_the_profile() {
        let clock = |rest: &str| format!("{GOOD}\n[clock]\n{rest}\n");
        let p = Profile::from_toml_str(&clock("box = [40, 90, 280, 170]"), "t").unwrap();
        let c = p.clock().unwrap();
        assert_eq!(
            (c.area.x0, c.area.y1, c.digits.as_deref()),
            (40.0, 170.0, None)
        );
        assert_eq!(
            p.for_screen(1200, 1920).unwrap().clock().unwrap().area.x1,
            420.0
        );
        // (the table's rest, message contains)
        let cases = [
            (
                "box = [280, 90, 40, 170]",
                "clock box [280, 90, 40, 170] is not a box",
            ),
            ("box = [40, 90, 280, 1700]", "on the 800x1280 screen"),
            (
                "box = [40, 90, 280, 170]\ndigits = \"../d.png\"",
                "not a file name beside",
            ),
            ("box = [40, 90, 280, 170]\nfont = 3", "unknown field `font`"),
        ];
        for (rest, message) in cases {
            let text = clock(rest);
            let e = Profile::from_toml_str(&text, "t").unwrap_err();
            assert!(e.message.contains(message), "{rest}: {e}");
            let line = text.lines().position(|l| l == "[clock]").unwrap() + 1;
            assert!(e.line.is_some_and(|l| l >= line), "{rest}: {e}");
        }
    }

    #[test]
    fn the_fence_is_tiles_and_buttons() {
        let p = Profile::from_toml_str(GOOD, "t").unwrap();
        // (point, inside)
        let cases = [
            ((100.0, 300.0), true),
            ((190.0, 300.0), true),
            ((200.0, 300.0), true), // the gap between two tiles, which swipes cross
            ((100.0, 195.0), false), // above the grid
            ((200.0, 1200.0), true),
            ((600.0, 1200.0), false), // no such button in this profile
            ((10.0, 10.0), false),
        ];
        for (point, inside) in cases {
            assert_eq!(p.in_fence(point), inside, "{point:?}");
        }
    }

    #[test]
    fn lookup_prefers_the_working_directory_then_the_config_dir_then_built_in() {
        let base =
            std::env::temp_dir().join(format!("scramblebot-profiles-{}", std::process::id()));
        let (cwd, config) = (base.join("cwd"), base.join("config"));
        for d in [&cwd, &config] {
            std::fs::create_dir_all(d.join("devices")).unwrap();
        }
        std::fs::write(
            cwd.join("devices/mine.toml"),
            GOOD.replace("\"test\"", "\"mine\""),
        )
        .unwrap();
        std::fs::write(config.join("devices/mine.toml"), "broken").unwrap();
        std::fs::write(config.join("devices/theirs.toml"), GOOD).unwrap();
        assert_eq!(
            Profile::find("mine", &cwd, Some(&config)).unwrap().name,
            "mine"
        );
        assert_eq!(
            Profile::find("theirs", &cwd, Some(&config)).unwrap().name,
            "test"
        );
        assert_eq!(
            Profile::find("nexus7", &cwd, Some(&config)).unwrap().name,
            "nexus7"
        );
        let e = Profile::find("nokia", &cwd, Some(&config)).unwrap_err();
        assert!(e.to_string().contains("calibrate"), "{e}");
        assert!(Profile::find("../etc/passwd", &cwd, None).is_err());
        let _ = std::fs::remove_dir_all(base);
    }
}
