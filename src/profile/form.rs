//! A profile's TOML form (devices/*.toml): read with the line of every mistake and a hint,
//! and written back so that it reads to the same profile.

use serde::Deserialize;
use toml::Spanned;

use super::check::{MAX_SCREEN, Part, ProfileBuilder, number};
use super::model::{
    Clock, Glyphs, Input, Point, Profile, ProfileError, Route, Rules, SIDE, ScreenBox,
    default_freeze_secs, default_game, glyphs_table, toml_string,
};
use crate::vision::grid::Polarity;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProfile {
    pub(super) name: Spanned<String>,
    pub(super) screen: Spanned<RawScreen>,
    grid: Spanned<RawGrid>,
    /// Missing or empty on a game screen without lifelines.
    #[serde(default)]
    pub(super) buttons: Option<Spanned<RawButtons>>,
    pub(super) input: RawInput,
    pub(super) rules: Spanned<RawRules>,
    pub(super) glyphs: Option<Spanned<RawGlyphs>>,
    pub(super) advance: Option<Spanned<RawAdvance>>,
    pub(super) score: Option<Spanned<RawScore>>,
    pub(super) clock: Option<Spanned<RawClock>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClock {
    /// Left, top, right, bottom of the clock on the round's screen.
    #[serde(rename = "box")]
    pub(super) area: [f64; 4],
    /// The learned digits' strip, beside the profile.
    pub(super) digits: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScore {
    /// Left, top, right, bottom of the score on the round's screen.
    #[serde(rename = "box")]
    pub(super) area: [f64; 4],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAdvance {
    /// Where the results screen's Play/Next button is.
    pub(super) at: [f64; 2],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGlyphs {
    pub(super) file: String,
    /// The cells' tiles, space-separated ("R B E N Qu").
    pub(super) letters: Option<String>,
    /// The older form: 16 cells that spell a board.
    pub(super) board: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawScreen {
    pub(super) width: u32,
    pub(super) height: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrid {
    /// Centre of the top-left tile. (Numbers are read as f64 and checked into f32 pixels, so
    /// that 1e300 is refused as itself, not as an infinity.)
    pub(super) origin: Option<Spanned<[f64; 2]>>,
    pub(super) pitch: Option<Spanned<f64>>,
    /// Or all 16 centres, row-major.
    pub(super) centres: Option<Spanned<Vec<[f64; 2]>>>,
    pub(super) tile: Spanned<f64>,
    /// "dark" (on light tiles, the default) or "light" (on dark tiles).
    pub(super) letters: Option<Spanned<String>>,
}

/// `radius = R` and one `name = [x, y]` per button; `freeze` is required.
type RawButtons = std::collections::BTreeMap<String, Spanned<toml::Value>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInput {
    pub(super) route: Route,
    pub(super) sample_ms: Spanned<u32>,
    #[serde(default)]
    pub(super) between: u32,
    #[serde(default)]
    pub(super) word_pause_ms: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    pub(super) round_secs: f64,
    pub(super) min_len: Spanned<usize>,
    pub(super) freeze_every_secs: f64,
    pub(super) freeze_uses: Option<u32>,
    #[serde(default = "default_freeze_secs")]
    pub(super) freeze_secs: f64,
    #[serde(default = "default_game")]
    pub(super) game: String,
}

/// Line (from 1) of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Where each part of a profile file lies, for the line of a refusal.
struct Spans {
    pub(super) name: Span,
    pub(super) screen: Span,
    pub(super) centres: Span,
    pub(super) tile: Span,
    pub(super) buttons: Span,
    /// In the order the builder gets the buttons.
    pub(super) button: Vec<Span>,
    pub(super) sample_ms: Span,
    pub(super) rules: Span,
    pub(super) min_len: Span,
    pub(super) glyphs: Option<Span>,
    pub(super) advance: Option<Span>,
    pub(super) score: Option<Span>,
    pub(super) clock: Option<Span>,
}

type Span = std::ops::Range<usize>;

impl Spans {
    pub(super) fn of(&self, part: Part) -> Option<Span> {
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

/// A length or coordinate in pixels, as f32, when it is a finite number from 0 to the widest
/// screen; what to say otherwise.
pub(super) fn pixels(what: &str, v: f64) -> Result<f32, String> {
    if v.is_finite() && (0.0..=f64::from(MAX_SCREEN)).contains(&v) {
        Ok(v as f32)
    } else {
        Err(format!(
            "{what} {} is out of range: pixels from 0 to {MAX_SCREEN}",
            number(v)
        ))
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
        let polarity = match &grid.letters {
            None => Polarity::Light,
            Some(l) => Polarity::of_letters(l.get_ref().trim()).ok_or_else(|| {
                err(
                    Some(l.span()),
                    format!(
                        "letters = {}: neither \"dark\" nor \"light\"",
                        toml_string(l.get_ref())
                    ),
                    "letters = \"light\" for light letters on dark tiles; \"dark\" (the default) for dark letters on light ones",
                )
            })?,
        };
        ProfileBuilder::new(
            raw.name.get_ref(),
            (screen.width, screen.height),
            &centres,
            tile,
            buttons,
            radius,
        )
        .polarity(polarity)
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
        out += &format!("]\ntile = {}\n", self.tile);
        if self.polarity == Polarity::Dark {
            out += &format!(
                "letters = {}  # on dark tiles: read on the screen's negative\n",
                toml_string(self.polarity.letters())
            );
        }
        out += "\n";
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
}
