//! A profile's parts put together and checked: every part on the screen, the tiles a 4x4
//! lattice row by row, buttons off the grid, numbers in range. A refusal names the part.

use std::path::{Path, PathBuf};

use super::model::{
    Clock, Glyphs, Input, MAX_GLYPHS, Point, Profile, ProfileError, Rules, SIDE, ScreenBox,
    game_package, toml_string,
};
use crate::vision::grid::Polarity;

/// Whether `file` names a file beside the profile (no folder above it, not absolute).
pub(super) fn beside(file: &str) -> bool {
    let file = file.trim();
    !(file.is_empty() || file.contains("..") || Path::new(file).is_absolute())
}

/// The part of a profile a refusal is about (a TOML file maps it to a line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
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
pub(super) struct Refusal {
    pub(super) part: Part,
    pub(super) message: String,
    pub(super) hint: &'static str,
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
    pub(super) name: String,
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) centres: Vec<Point>,
    pub(super) tile: f32,
    pub(super) buttons: Vec<(String, Point)>,
    pub(super) button_radius: f32,
    pub(super) input: Input,
    pub(super) rules: Rules,
    pub(super) glyphs: Option<Glyphs>,
    pub(super) advance: Option<Point>,
    /// The game's score on the round's screen, as a box (left, top, right, bottom).
    pub(super) score: Option<ScreenBox>,
    pub(super) clock: Option<Clock>,
    pub(super) source: Option<PathBuf>,
    pub(super) polarity: Polarity,
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
            polarity: Polarity::Light,
        }
    }

    /// Which way round the board's letters are (dark on light tiles unless set).
    pub fn polarity(mut self, polarity: Polarity) -> ProfileBuilder {
        self.polarity = polarity;
        self
    }

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

    /// The results screen's Play/Next button, tapped between rounds.
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

    pub(super) fn build_or_refuse(mut self) -> Result<Profile, Refusal> {
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
            polarity: self.polarity,
        })
    }

    pub(super) fn check(&self) -> Result<(), Refusal> {
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
pub(super) const MAX_SCREEN: u32 = 20_000;

/// The longest round (and Freeze) a profile may describe: an hour.
const MAX_SECS: f64 = 3600.0;

/// The most extra samples between two tile centres a swipe takes (more only slows it down).
const MAX_BETWEEN: u32 = 16;

/// A number as a person wrote it: 1e300, not three hundred digits.
pub(super) fn number(v: f64) -> String {
    if v != 0.0 && !(1e-4..1e7).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

impl Profile {
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
            polarity: self.polarity,
        }
    }
}
