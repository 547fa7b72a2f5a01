//! The play workflow, as library calls the CLI and the daemon share: see the board on the
//! phone (`see`), solve it by the profile's rules (`plan_words`), enter the words (`enter`),
//! and report what was done (`RoundOutcome`). Inside: `look` takes and reads screenshots,
//! `schedule` is the round's pure clock, `round` the async loop that keeps it, `inject` the
//! input routes. Talking to a person (prompts, progress bars) is the caller's: these functions
//! tell it what happens through `Event`s and stop when the `stop` signal it passes turns true.

pub mod inject;
pub mod look;
pub mod round;
pub mod schedule;

use std::path::{Path, PathBuf};
use std::time::Duration;

use image::RgbaImage;
use tokio::sync::watch;

pub use inject::Injector;
pub use round::{PlannedWord, Progress, RoundOutcome, RouteUse, Stop, plan, play_round};
pub use schedule::{Pace, RoundSettings, Schedule};

use crate::board::{Board, tile_name};
use crate::dict::Trie;
use crate::gesture::GestureError;
use crate::phone::{Phone, PhoneError};
use crate::profile::{Profile, ProfileError, Route};
use crate::score::{Bonuses, Rules};
use crate::solve::{Order, Solver};
use crate::vision::glyph::{Classifier, TemplateError, templates};
use crate::vision::grid::Grid;
use crate::vision::read::{Reading, SURE};
use look::{Look, Watch};

/// Why a play step failed.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Phone(#[from] PhoneError),
    #[error("profile {profile}: route {route}: {source}")]
    Route {
        profile: String,
        route: &'static str,
        source: PhoneError,
    },
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error(transparent)]
    Gesture(#[from] GestureError),
    #[error("profile {profile}: glyph templates {}: {source}", path.display())]
    Templates {
        profile: String,
        path: PathBuf,
        source: TemplatesError,
    },
    /// The caller's stop signal ended the wait.
    #[error("stopped before a board was seen")]
    Stopped,
}

/// Why a profile's glyph strip cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TemplatesError {
    #[error(transparent)]
    Image(#[from] image::ImageError),
    #[error(transparent)]
    Strip(#[from] TemplateError),
}

/// What a play step tells its caller as it goes.
pub enum Event<'a> {
    /// A line for a person (the route chosen, a board read).
    Note(String),
    /// `watch` is waiting for a board; this is its `n`th look.
    Waiting { n: usize, look: &'a Look },
    /// A word went in.
    Progress(Progress),
}

/// Where the board came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BoardSource {
    /// Given by the user (`--board`).
    #[serde(rename = "typed")]
    Typed,
    /// Read surely on the screen.
    #[serde(rename = "screen")]
    Screen,
    /// Read unsurely on the screen, then typed by the user.
    #[serde(rename = "screen, typed")]
    ScreenTyped,
}

/// The board a round is played on, and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub board: Board,
    pub bonuses: Bonuses,
    pub source: BoardSource,
}

impl Seen {
    pub fn typed(board: Board) -> Seen {
        Seen {
            board,
            bonuses: Bonuses::none(),
            source: BoardSource::Typed,
        }
    }

    /// The bonuses as `solve --bonus` takes them, if there are any.
    pub fn bonus_text(&self) -> Option<String> {
        (!self.bonuses.is_empty()).then(|| self.bonuses.text(&self.board))
    }
}

/// What `see` found on the screen.
pub enum Sight {
    /// A board read surely.
    Sure { seen: Seen, look: Look },
    /// Not a board, or not read surely: never played as it is. `why` says what was doubtful.
    Unsure { look: Look, why: String },
}

/// Reads the board on the phone's screen; with `watch`, waits until one shows (four looks a
/// second) and says so through `on`. `stop` turning true ends the wait (`PlayError::Stopped`).
pub async fn see(
    phone: &Phone,
    profile: &Profile,
    watch: bool,
    mut stop: watch::Receiver<bool>,
    on: &mut (dyn FnMut(Event) + Send),
) -> Result<Sight, PlayError> {
    let grid = Grid::from_centres(*profile.centres(), profile.tile());
    let classifier = classifier_for(Some(profile))?;
    let l = if watch {
        let mut n = 0;
        let waiting = look::watch(phone, &grid, &classifier, Watch::default(), |look| {
            n += 1;
            on(Event::Waiting { n, look });
        });
        tokio::select! {
            l = waiting => l?,
            _ = stop.wait_for(|s| *s) => return Err(PlayError::Stopped),
        }
    } else {
        look::look(phone, &grid, &classifier).await?
    };
    if let Some(r) = l.sure() {
        on(Event::Note(format!(
            "read the board {} on the screen ({})",
            r.board(),
            l.timing()
        )));
        let seen = Seen {
            board: r.board(),
            bonuses: r.bonuses(),
            source: BoardSource::Screen,
        };
        return Ok(Sight::Sure { seen, look: l });
    }
    let why = match &l.reading {
        Ok(r) => format!("not sure of {}", unsure_text(r)),
        Err(e) => e.to_string(),
    };
    Ok(Sight::Unsure { look: l, why })
}

/// Saves a screenshot as DIR/scramblebot-unsure-SECS.png, for a person to look at.
pub fn save_screenshot(image: &RgbaImage, dir: &Path) -> Result<PathBuf, image::ImageError> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let path = dir.join(format!("scramblebot-unsure-{secs}.png"));
    image.save(&path)?;
    Ok(path)
}

/// The board reader for `profile`: the built-in references, and the profile's glyph
/// templates (from `calibrate --board`) when it has them.
pub fn classifier_for(profile: Option<&Profile>) -> Result<Classifier, PlayError> {
    let Some((p, glyphs, path)) = profile.and_then(|p| Some((p, p.glyphs()?, p.glyphs_path()?)))
    else {
        return Ok(Classifier::built_in());
    };
    let learned = image::open(&path)
        .map_err(TemplatesError::from)
        .and_then(|strip| Ok(templates(&strip.to_luma8(), glyphs.board.tiles())?))
        .map_err(|source| PlayError::Templates {
            profile: p.name().to_owned(),
            path: path.clone(),
            source,
        })?;
    Ok(Classifier::with_templates(learned))
}

/// The words to enter on `board`, by the profile's rules, in `order`.
pub fn plan_words(
    trie: &Trie,
    profile: &Profile,
    board: &Board,
    bonuses: &Bonuses,
    order: Order,
) -> Vec<PlannedWord> {
    // The profile's min_len is checked to be a length Scramble allows.
    let rules = Rules::scramble()
        .with_min_len(profile.rules().min_len)
        .unwrap_or_else(|_| Rules::scramble());
    let mut solution = Solver::new(trie).solve(board, &rules, bonuses);
    solution.sort(order);
    plan(&solution)
}

/// How a round is entered.
#[derive(Clone, Copy, Debug, Default)]
pub struct EnterOptions {
    /// The route instead of the profile's.
    pub route: Option<Route>,
    /// Time on the game's clock now (default: the profile's whole round).
    pub time_left: Option<Duration>,
    /// A stop lets the word being drawn finish instead of lifting the finger mid-word.
    pub finish_word_on_stop: bool,
}

/// What `enter` did.
#[derive(Clone, Debug)]
pub struct Played {
    pub outcome: RoundOutcome,
    /// When the first touch reached the phone.
    pub first_touch: Option<std::time::Instant>,
}

/// Enters `words` on `phone` by the profile's route (or `opts.route`), tapping Freeze on
/// schedule, until every word is in, the clock ends or `stop` turns true (finger lifted).
pub async fn enter(
    phone: &Phone,
    profile: &Profile,
    words: &[PlannedWord],
    opts: EnterOptions,
    stop: watch::Receiver<bool>,
    on: &mut (dyn FnMut(Event) + Send),
) -> Result<Played, PlayError> {
    let route = opts.route.unwrap_or(profile.input().route);
    let mut injector = Injector::open(phone, route, &mut |line| on(Event::Note(line)))
        .await
        .map_err(|source| PlayError::Route {
            profile: profile.name().to_owned(),
            route: route.name(),
            source,
        })?;
    let mut settings = RoundSettings::from_profile(profile);
    if let Some(left) = opts.time_left {
        settings.round = left;
    }
    settings.finish_word_on_stop = opts.finish_word_on_stop;
    let outcome = play_round(&mut injector, profile, &settings, words, stop, &mut |p| {
        on(Event::Progress(p))
    })
    .await;
    let first_touch = injector.first_touch().map(|t| t.into_std());
    injector.finish().await;
    Ok(Played {
        outcome: outcome?,
        first_touch,
    })
}

/// The 4x4 tiles of a reading as a person reads them: each tile, `?` when unsure, its
/// confidence and badge; four lines.
pub fn reading_text(reading: &Reading) -> String {
    let mut out = String::new();
    for (i, t) in reading.tiles.iter().enumerate() {
        let name = tile_name(t.tile);
        let bonus = t.bonus.map(|b| format!(" {b:?}")).unwrap_or_default();
        let flag = if t.confidence < SURE { "?" } else { " " };
        out += &format!("{name:>3}{flag}{:>4.0}%{bonus:<4}", t.confidence * 100.0);
        out += if i % 4 == 3 { "\n" } else { "  " };
    }
    out
}

/// The unsure tiles of a reading: "row 1 col 2: E or F; ...".
pub fn unsure_text(reading: &Reading) -> String {
    let place = |i: usize| format!("row {} col {}", i / 4 + 1, i % 4 + 1);
    let unsure: Vec<(usize, &crate::vision::read::TileRead)> = reading
        .tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| t.confidence < SURE)
        .collect();
    // A tile whose best and second guesses are one letter showed no letter to tell apart.
    let (blank, doubtful): (Vec<_>, Vec<_>) =
        unsure.into_iter().partition(|(_, t)| t.tile == t.runner_up);
    let mut parts: Vec<String> = doubtful
        .iter()
        .map(|(i, t)| {
            format!(
                "{}: {} or {}",
                place(*i),
                tile_name(t.tile),
                tile_name(t.runner_up)
            )
        })
        .collect();
    match blank.len() {
        0 => {}
        n if n == reading.tiles.len() => parts.push("no letter on any tile".to_owned()),
        _ => parts.push(format!(
            "no letter on {}",
            blank
                .iter()
                .map(|(i, _)| place(*i))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    parts.join("; ")
}
