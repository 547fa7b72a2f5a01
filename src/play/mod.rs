//! The play workflow, as library calls the CLI and the daemon share: see the board on the
//! phone (`see`), solve it by the profile's rules (`plan_words`), enter the words (`enter`),
//! and report what was done (`RoundOutcome`). Inside: `look` takes and reads screenshots,
//! `schedule` is the round's pure clock, `round` the async loop that keeps it, `inject` the
//! input routes. Talking to a person (prompts, progress bars) is the caller's: these functions
//! tell it what happens through `Event`s and stop when the `stop` signal it passes turns true.

pub mod accept;
pub mod enter;
pub mod inject;
pub mod look;
pub mod pacing;
pub mod round;
pub mod schedule;
pub mod seen;
pub mod taken;
pub mod watcher;

use std::path::{Path, PathBuf};
use std::time::Duration;

use image::RgbaImage;
use tokio::sync::watch;

pub use enter::{EnterOptions, Judged, Played, SCORE_AFTER_WORDS, ScoreCheck, enter, score_moved};
pub use inject::Injector;
pub use round::{
    Entry, Plan, PlannedWord, Progress, RoundOutcome, RouteUse, Stop, plan, play_round,
};
pub use schedule::{Pace, RoundSettings, Schedule};
pub use seen::{BoardSource, End, How, PlayedBoard, Round, Seen, clock_left};

use crate::board::{Board, tile_name};
use crate::dict::Trie;
use crate::gesture::GestureError;
use crate::phone::{Lock, Phone, PhoneError};
use crate::profile::{Profile, ProfileError, ScreenBox};
use crate::score::{Bonuses, Rules};
use crate::solve::{Order, Solver};
use crate::state::State;
use crate::vision::digits::{self, Area, DigitBook};
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
    #[error("profile {profile}: digits {}: {why}", path.display())]
    Digits {
        profile: String,
        path: PathBuf,
        why: String,
    },
    /// The caller's stop signal ended the wait.
    #[error("stopped before a board was seen")]
    Stopped,
    /// A lock screen covers the game and could not be dismissed: nothing can be played (a
    /// board typed by hand neither: every touch would land on the lock screen).
    #[error("{}", look::LOCKED)]
    Locked,
    /// A board typed by hand that the screen shows surely otherwise (`Reading::contradiction`).
    #[error("{0}")]
    NotOnScreen(String),
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
    let grid = profile.grid();
    let classifier = classifier_for(Some(profile))?;
    let book = digit_book_for(profile)?;
    let (l, after, behind) = if watch {
        let mut n = 0;
        let waiting = look::watch(phone, &grid, &classifier, Watch::default(), |look| {
            n += 1;
            on(Event::Waiting { n, look });
        });
        let watched = tokio::select! {
            w = waiting => w?,
            _ = stop.wait_for(|s| *s) => return Err(PlayError::Stopped),
        };
        let after = watched.after.map(tokio::time::Instant::into_std);
        (watched.look, after, watched.behind)
    } else {
        (
            look_roused(phone, &grid, &classifier, on).await?,
            None,
            false,
        )
    };
    if let Some(r) = l.sure() {
        on(Event::Note(format!(
            "read the board {} on the screen ({})",
            r.board(),
            l.timing()
        )));
        let mut seen = seen_on(&l, r, profile, book.as_ref(), BoardSource::Screen);
        (seen.after, seen.behind) = (after, behind);
        return Ok(Sight::Sure { seen, look: l });
    }
    let why = match &l.reading {
        Ok(r) => match r.overlay() {
            Some(why) => format!("{why}: not in play yet"),
            None => format!("not sure of {}", unsure_text(r)),
        },
        Err(e) => e.to_string(),
    };
    Ok(Sight::Unsure { look: l, why })
}

/// One look at the screen. No board: the screen may have gone off (its timeout), or a lock
/// screen cover the game; turned on and unlocked, it is looked at again.
async fn look_roused(
    phone: &Phone,
    grid: &Grid,
    classifier: &Classifier,
    on: &mut (dyn FnMut(Event) + Send),
) -> Result<Look, PlayError> {
    let l = look::look(phone, grid, classifier).await?;
    if l.reading.is_ok() {
        return Ok(l);
    }
    let r = phone.rouse(true).await?;
    for line in r.lines() {
        on(Event::Note(line.into()));
    }
    if r.lock == Lock::Stays {
        return Err(PlayError::Locked);
    }
    if r.changed() {
        return Ok(look::look(phone, grid, classifier).await?);
    }
    Ok(l)
}

/// The round's board as a look read it surely, with the game's clock and score on that look
/// where the profile knows the game's digits.
fn seen_on(
    l: &Look,
    r: &Reading,
    profile: &Profile,
    book: Option<&DigitBook>,
    source: BoardSource,
) -> Seen {
    let began = l.began.into_std();
    let shown = book
        .map(|b| numbers(&l.image, profile, b))
        .unwrap_or_default();
    Seen {
        board: r.board(),
        bonuses: r.bonuses(),
        source,
        at: began,
        after: None,
        behind: false,
        clock: shown.clock_secs.map(|secs| (began, secs)),
        score: shown.score,
    }
}

/// A board typed by hand, held against the screen (one look): refused where the screen shows
/// tiles surely as other letters (unless `force`: the person knows better), so that a typo or
/// an old board is never played as if it were the one showing. Where the screen shows the
/// same board surely, it comes with what that look saw (bonuses, the game's clock and score);
/// where the screen cannot say (no board found, tiles unsure), it is played as typed.
pub async fn check_typed(
    phone: &Phone,
    profile: &Profile,
    board: Board,
    force: bool,
    on: &mut (dyn FnMut(Event) + Send),
) -> Result<Seen, PlayError> {
    let grid = profile.grid();
    let classifier = classifier_for(Some(profile))?;
    let book = digit_book_for(profile)?;
    let l = look_roused(phone, &grid, &classifier, on).await?;
    let typed = Seen::typed(board);
    let r = match &l.reading {
        Ok(r) => r,
        Err(e) => {
            on(Event::Note(format!(
                "the screen cannot check the board typed ({e}): entering it as typed"
            )));
            return Ok(typed);
        }
    };
    if let Some(why) = r.contradiction(&typed.board) {
        if !force {
            return Err(PlayError::NotOnScreen(why));
        }
        on(Event::Note(format!(
            "{why}: entering it as typed (--force)"
        )));
        return Ok(typed);
    }
    match l.sure() {
        Some(r) => {
            on(Event::Note(format!(
                "the screen shows the board typed ({})",
                l.timing()
            )));
            Ok(seen_on(
                &l,
                r,
                profile,
                book.as_ref(),
                BoardSource::TypedSeen,
            ))
        }
        None => {
            on(Event::Note(format!(
                "the screen agrees with the board typed where it is sure, but is not sure of {}: entering it as typed",
                unsure_text(r)
            )));
            Ok(typed)
        }
    }
}

/// Why a screenshot was kept for a person to look at; it names the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// A board not read surely (or not seen at all).
    Unsure,
    /// A board that stayed dimmed under an overlay.
    Dimmed,
    /// The game's score had not moved after the round's first words.
    ScoreStill,
}

impl Kept {
    fn name(self) -> &'static str {
        match self {
            Kept::Unsure => "unsure",
            Kept::Dimmed => "dimmed",
            Kept::ScoreStill => "score-still",
        }
    }
}

/// Saves a screenshot of the phone `serial` as DIR/scramblebot-WHY-SERIAL-SECS.png (DIR made
/// if need be), for a person to look at. Never over another file: two phones, or two kinds of
/// screenshot, kept in the same second get `-2`, `-3`... before `.png`.
pub fn save_screenshot(
    image: &RgbaImage,
    dir: &Path,
    why: Kept,
    serial: &str,
) -> Result<PathBuf, image::ImageError> {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // A serial may be HOST:PORT.
    let serial = crate::files::safe_name(serial);
    std::fs::create_dir_all(dir)?;
    let stem = format!("scramblebot-{}-{serial}-{secs}", why.name());
    let (path, file) = new_file(dir, &stem)?;
    let mut out = std::io::BufWriter::new(file);
    let written = image
        .write_to(&mut out, image::ImageFormat::Png)
        .and_then(|()| Ok(std::io::Write::flush(&mut out)?));
    if written.is_err() {
        // No half a picture left behind under a name a message will give.
        let _ = std::fs::remove_file(&path);
    }
    written.map(|()| path)
}

/// Removes the oldest screenshots `save_screenshot` kept in `dir` (files named
/// `scramblebot-{unsure,dimmed,score-still}-*.png`, by time written, then name) until at most
/// `keep` remain; other files are never touched. Returns how many were removed. A file
/// another process removed meanwhile is not an error.
pub fn prune_screenshots(dir: &Path, keep: usize) -> std::io::Result<usize> {
    let kinds = [Kept::Unsure, Kept::Dimmed, Kept::ScoreStill];
    let mut kept = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.ends_with(".png")
            && kinds
                .iter()
                .any(|k| name.starts_with(&format!("scramblebot-{}-", k.name())));
        if !ours || !entry.file_type()?.is_file() {
            continue;
        }
        let written = entry
            .metadata()?
            .modified()
            .unwrap_or(std::time::UNIX_EPOCH);
        kept.push((written, name));
    }
    kept.sort();
    let mut removed = 0;
    for (_, name) in &kept[..kept.len().saturating_sub(keep)] {
        match std::fs::remove_file(dir.join(name)) {
            Ok(()) => removed += 1,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(removed)
}

/// A file made anew as DIR/STEM.png, or STEM-2.png, STEM-3.png... if that one exists.
fn new_file(dir: &Path, stem: &str) -> std::io::Result<(PathBuf, std::fs::File)> {
    let mut n = 1u32;
    loop {
        let name = match n {
            1 => format!("{stem}.png"),
            _ => format!("{stem}-{n}.png"),
        };
        let path = dir.join(name);
        match std::fs::File::create_new(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 1000 => n += 1,
            Err(e) => return Err(e),
        }
    }
}

/// The board reader for `profile`: the built-in references, and the profile's glyph
/// templates (from `calibrate --board`) when it has them.
pub fn classifier_for(profile: Option<&Profile>) -> Result<Classifier, PlayError> {
    let Some((p, glyphs, path)) = profile.and_then(|p| Some((p, p.glyphs()?, p.glyphs_path()?)))
    else {
        return Ok(Classifier::built_in());
    };
    let learned = crate::files::image(&path, crate::files::Kind::Strip)
        .map_err(TemplatesError::from)
        .and_then(|strip| Ok(templates(&strip.to_luma8(), &glyphs.tiles)?))
        .map_err(|source| PlayError::Templates {
            profile: p.name().to_owned(),
            path: path.clone(),
            source,
        })?;
    Ok(Classifier::with_templates(learned))
}

/// The game's digits as the profile's clock taught them (`calibrate`), when it has them.
pub fn digit_book_for(profile: &Profile) -> Result<Option<DigitBook>, PlayError> {
    let Some(path) = profile.digits_path() else {
        return Ok(None);
    };
    let failed = |why: String| PlayError::Digits {
        profile: profile.name().to_owned(),
        path: path.clone(),
        why,
    };
    let strip =
        crate::files::image(&path, crate::files::Kind::Strip).map_err(|e| failed(e.to_string()))?;
    DigitBook::from_strip(&strip.to_luma8())
        .map(Some)
        .ok_or_else(|| failed("not a strip of ten digits".into()))
}

/// A box of a profile as the digit reader takes it (whole pixels, clamped at 0).
pub fn area(b: ScreenBox) -> Area {
    let px = |v: f32| v.max(0.0).round() as u32;
    Area {
        x0: px(b.x0),
        y0: px(b.y0),
        x1: px(b.x1),
        y1: px(b.y1),
    }
}

/// What the game's numbers show on `img`: its score and its clock (in seconds), each when the
/// profile knows where it is and it is read surely with `book`.
pub fn numbers(img: &RgbaImage, profile: &Profile, book: &DigitBook) -> Numbers {
    numbers_in(
        img,
        profile.score().map(area),
        profile.clock().map(|c| area(c.area)),
        book,
    )
}

/// What the `score` and `clock` boxes of `img` show, each read surely with `book`.
pub fn numbers_in(
    img: &RgbaImage,
    score: Option<Area>,
    clock: Option<Area>,
    book: &DigitBook,
) -> Numbers {
    let score = score
        .and_then(|b| book.number(&digits::cut(img, b)))
        .filter(|n| n.sure)
        .map(|n| n.value);
    let clock_secs = clock
        .and_then(|c| book.clock(&digits::cut(img, c)))
        .filter(|n| n.sure)
        .map(|n| n.value);
    Numbers { score, clock_secs }
}

/// Under this share of the points entered, the score the game shows is warned of: the game
/// took fewer words than the bot entered (too fast for it, words it does not know, a miss).
pub const SEEN_SHARE_WARNED: f64 = 0.95;

/// Whether the game shows loudly less than the bot entered (`SEEN_SHARE_WARNED`).
pub fn seen_short(seen: u32, entered: u32) -> bool {
    f64::from(seen) < f64::from(entered) * SEEN_SHARE_WARNED
}

/// The game's own figures on one screen, each `None` when not read surely.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Numbers {
    pub score: Option<u32>,
    pub clock_secs: Option<u32>,
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

/// Takes the words `game` refused in earlier rounds (kept in `state`) out of `words`, and
/// says how many through `on`. A state that cannot be read is said, and nothing is taken out.
pub fn without_refused(
    words: Vec<PlannedWord>,
    state: &State,
    game: &str,
    on: &mut dyn FnMut(String),
) -> Vec<PlannedWord> {
    let refused = match state.refused(game) {
        Ok(r) => r,
        Err(e) => {
            on(format!("{e}: the words {game} refused before are entered"));
            return words;
        }
    };
    let before = words.len();
    let words: Vec<PlannedWord> = words
        .into_iter()
        .filter(|w| !refused.contains(&w.text))
        .collect();
    if words.len() < before {
        on(format!(
            "{} {} that {game} refused before left out",
            before - words.len(),
            plural(before - words.len(), "word", "words")
        ));
    }
    words
}

/// Keeps what a round taught of its game in `state`: the words it refused (not entered on
/// it again) and the pace it took words at (the next round starts at it). Returns the words
/// newly refused.
pub fn keep_learned(
    state: &State,
    profile: &Profile,
    played: &Played,
) -> Result<Vec<String>, crate::state::StateError> {
    // Only a round whose score was looked at learned a pace.
    if played.points_seen.is_some() {
        let gap = Duration::from_secs_f64(played.outcome.gap_ms.max(0.0) / 1e3);
        state.set_pace(profile.name(), gap)?;
    }
    let refused = played.judged.as_ref().map_or(&[][..], |j| &j.refused[..]);
    let known = state.refused(&profile.rules().game)?;
    let new: Vec<String> = refused
        .iter()
        .filter(|w| !known.contains(*w))
        .cloned()
        .collect();
    state.add_refused(&profile.rules().game, new.iter().map(String::as_str))?;
    Ok(new)
}

/// `one` or `many` by `n`.
pub fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
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

#[cfg(test)]
mod save_tests;
#[cfg(test)]
mod score_tests;
