//! The play workflow, as library calls the CLI and the daemon share: see the board on the
//! phone (`see`), solve it by the profile's rules (`plan_words`), enter the words (`enter`),
//! and report what was done (`RoundOutcome`). Inside: `look` takes and reads screenshots,
//! `schedule` is the round's pure clock, `round` the async loop that keeps it, `inject` the
//! input routes. Talking to a person (prompts, progress bars) is the caller's: these functions
//! tell it what happens through `Event`s and stop when the `stop` signal it passes turns true.

pub mod inject;
pub mod look;
pub mod pacing;
pub mod round;
pub mod schedule;
pub mod taken;
pub mod watcher;

use std::path::{Path, PathBuf};
use std::time::Duration;

use image::RgbaImage;
use tokio::sync::watch;

pub use inject::Injector;
pub use round::{
    Entry, Plan, PlannedWord, Progress, RoundOutcome, RouteUse, Stop, plan, play_round,
};
pub use schedule::{Pace, RoundSettings, Schedule};

use crate::board::{Board, tile_name};
use crate::dict::Trie;
use crate::gesture::GestureError;
use crate::phone::{Lock, Phone, PhoneError};
use crate::profile::{Profile, ProfileError, Route, ScreenBox};
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
    /// Given by the user, and read surely on the screen as the same board.
    #[serde(rename = "typed, on the screen")]
    TypedSeen,
}

/// The board a round is played on, and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub board: Board,
    pub bonuses: Bonuses,
    pub source: BoardSource,
    /// When the look that read the board began (for a board typed: when it was given).
    pub at: std::time::Instant,
    /// The board came up after this: the start of the last look that showed the game
    /// without it (`None`: not known, as for a board already showing, or typed).
    pub after: Option<std::time::Instant>,
    /// The screen was dark or locked since `after`: the board came up out of sight.
    pub behind: bool,
    /// The game's clock on the look the board was read on, and when that look began (with a
    /// profile that learned the game's digits, and the clock read surely).
    pub clock: Option<(std::time::Instant, u32)>,
    /// The game's score on that look, read surely: what the round's words add to.
    pub score: Option<u32>,
}

impl Seen {
    /// When the game's clock ends by what it showed: a lower bound, as a clock showing m:ss
    /// has between one second less and that much left (it rounds one way or the other).
    pub fn clock_deadline(&self) -> Option<std::time::Instant> {
        let (at, secs) = self.clock?;
        Some(at + clock_left(secs))
    }

    /// When the round's clock ends, by what was seen: the game's clock where it was read;
    /// else a whole `round` from when the board came up (after `after`), or, that not being
    /// known, from when it was read or typed. One instant, fixed here, that the round is
    /// played to.
    pub fn deadline(&self, round: Duration) -> std::time::Instant {
        self.clock_deadline()
            .unwrap_or_else(|| self.after.unwrap_or(self.at) + round)
    }
}

/// The time surely left when the game's clock shows `secs` (m:ss): a second less, as a clock
/// rounds one way or the other.
pub fn clock_left(secs: u32) -> Duration {
    Duration::from_secs(u64::from(secs.saturating_sub(1)))
}

impl Seen {
    pub fn typed(board: Board) -> Seen {
        Seen {
            board,
            bonuses: Bonuses::none(),
            source: BoardSource::Typed,
            at: std::time::Instant::now(),
            after: None,
            behind: false,
            clock: None,
            score: None,
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
    let score = profile
        .score()
        .and_then(|b| book.number(&digits::cut(img, area(b))))
        .filter(|n| n.sure)
        .map(|n| n.value);
    let clock_secs = profile
        .clock()
        .and_then(|c| book.clock(&digits::cut(img, area(c.area))))
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

/// How a round is entered.
#[derive(Clone, Debug)]
pub struct EnterOptions {
    /// The route instead of the profile's.
    pub route: Option<Route>,
    /// When the game's clock ends (before any Freeze), as fixed when the round's start
    /// became known (`Seen::deadline`): the input route's start-up comes off the round.
    pub deadline: tokio::time::Instant,
    /// A stop lets the word being drawn finish instead of lifting the finger mid-word.
    pub finish_word_on_stop: bool,
    /// The screen the board was read on. With a profile that knows the score's box, the
    /// score is looked at again after the first words, to see that the game takes them
    /// (without this screen, one is taken as the first words go in).
    pub score_before: Option<std::sync::Arc<RgbaImage>>,
    /// The game's score on the screen the board was read on (`Seen::score`): what the
    /// round's words add to. Without it, the first look at the score stands for it, when no
    /// word could count in it yet.
    pub score_at_start: Option<u32>,
    /// The pause between words to start at (what the game's last round was paced to).
    pub gap: Option<Duration>,
}

/// What `enter` did.
#[derive(Clone, Debug)]
pub struct Played {
    pub outcome: RoundOutcome,
    /// When the first touch reached the phone.
    pub first_touch: Option<std::time::Instant>,
    /// The score looked at after the first words, when it was.
    pub score: Option<ScoreCheck>,
    /// The score the game showed once the round's words were in (at its last look that read
    /// it, when the clock ended the round first): read off the screen with the digits the
    /// profile learned, when it has them and read it surely.
    pub points_seen: Option<u32>,
    /// Which words the game took, by its score looked at as they went in (with a profile
    /// that learned the game's digits, and the looks fitting one account of them).
    pub judged: Option<Judged>,
}

/// The game's score, looked at after the round's first words.
#[derive(Clone, Debug)]
pub struct ScoreCheck {
    /// Whether the score's box changed since the board was read. A still score means the
    /// game took none of the words the bot entered (a profile that misses the tiles, a
    /// dialog over the game): what the bot counts as entered is then not what was scored.
    pub moved: bool,
    /// Words acknowledged when it was looked at.
    pub after_words: usize,
    /// The screen it was looked at on.
    pub screenshot: RgbaImage,
}

/// Words acknowledged before the score is looked at: by then the game has counted some.
pub const SCORE_AFTER_WORDS: usize = 3;
/// Time for the game to draw its new score after the last of those words (a few frames).
const SCORE_SETTLE: Duration = Duration::from_millis(300);
/// A channel difference that counts a pixel as changed (JPEG noise and dithering stay below).
const SCORE_PIXEL_DIFF: u8 = 48;
/// Share of the box's pixels that must change for the score to have moved: one digit of a
/// score is several percent of its box; a blinking cursor or noise is less.
const SCORE_MOVED_SHARE: f64 = 0.01;

/// Whether the pixels in `area` differ enough between `before` and `after`.
pub fn score_moved(before: &RgbaImage, after: &RgbaImage, area: ScreenBox) -> bool {
    if before.dimensions() != after.dimensions() {
        return true;
    }
    let (w, h) = before.dimensions();
    let clamp = |v: f32, max: u32| (v.max(0.0) as u32).min(max);
    let (x0, x1) = (clamp(area.x0, w), clamp(area.x1, w));
    let (y0, y1) = (clamp(area.y0, h), clamp(area.y1, h));
    let total = u64::from(x1.saturating_sub(x0)) * u64::from(y1.saturating_sub(y0));
    if total == 0 {
        return true;
    }
    let changed = (y0..y1)
        .flat_map(|y| (x0..x1).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let (a, b) = (before.get_pixel(x, y).0, after.get_pixel(x, y).0);
            (0..3).any(|c| a[c].abs_diff(b[c]) > SCORE_PIXEL_DIFF)
        })
        .count();
    changed as f64 / total as f64 > SCORE_MOVED_SHARE
}

/// What `play_seen` did.
#[derive(Debug)]
pub struct PlayedBoard {
    pub played: Played,
    /// Words of the board left out as the game refused them in an earlier round.
    pub left_out: usize,
    /// Why what the round learned (words refused, the pace) could not be kept, if so.
    pub not_kept: Option<String>,
}

/// Plays the board `seen` showed, as `play` does: its words by the profile's rules in
/// `order`; with `state`, less those the game refused before, started at the pace its last
/// round learned, and what this round learns kept. Lines for a person go to `on` as notes.
#[allow(clippy::too_many_arguments)]
pub async fn play_seen(
    phone: &Phone,
    profile: &Profile,
    seen: &Seen,
    order: Order,
    mut opts: EnterOptions,
    state: Option<&State>,
    stop: watch::Receiver<bool>,
    on: &mut (dyn FnMut(Event) + Send),
) -> Result<PlayedBoard, PlayError> {
    let mut words = plan_words(&Trie::enable(), profile, &seen.board, &seen.bonuses, order);
    let planned = words.len();
    if let Some(state) = state {
        words = without_refused(words, state, &profile.rules().game, &mut |line| {
            on(Event::Note(line))
        });
        opts.gap = opts.gap.or_else(|| state.pace(profile.name()));
    }
    let played = enter(phone, profile, &words, opts, stop, on).await?;
    let mut not_kept = None;
    if let Some(state) = state {
        match keep_learned(state, profile, &played) {
            Ok(new) if !new.is_empty() => on(Event::Note(format!(
                "{} refused {}: kept in {}, not entered on it again",
                profile.rules().game,
                new.join(", "),
                state.refused_path(&profile.rules().game).display()
            ))),
            Ok(_) => {}
            Err(e) => not_kept = Some(e.to_string()),
        }
    }
    Ok(PlayedBoard {
        played,
        left_out: planned - words.len(),
        not_kept,
    })
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
    // The game's digits, to read its score at the end (a strip that will not load is said,
    // and the round is played without).
    let book = match digit_book_for(profile) {
        Ok(book) => book.filter(|_| profile.score().is_some()),
        Err(e) => {
            on(Event::Note(format!(
                "{e}: the game's score will not be read"
            )));
            None
        }
    };
    let mut injector = Injector::open(phone, route, &mut |line| on(Event::Note(line)))
        .await
        .map_err(|source| PlayError::Route {
            profile: profile.name().to_owned(),
            route: route.name(),
            source,
        })?;
    let mut settings = RoundSettings::from_profile(profile);
    if let Some(gap) = opts.gap {
        settings.gap.set(gap);
    }
    settings.finish_word_on_stop = opts.finish_word_on_stop;
    // Every gesture built, and fence-checked, before the first touch.
    let plan = Plan::new(profile, words.to_vec(), injector.taps(), opts.deadline)?;
    let deadline = plan.deadline;
    let start = tokio::time::Instant::now();
    let (entered_tx, mut entered) = watch::channel(0usize);
    // Every word acknowledged, for pacing to the game's score.
    let log = std::sync::Mutex::new(Vec::<pacing::Entered>::new());
    let (done_tx, done) = watch::channel(false);
    // The score as the latest look read it, for the progress shown while words go in.
    let (seen_tx, seen_rx) = watch::channel(None::<u32>);
    // A word of the plan acknowledged now, its stroke having taken `stroke`.
    let record = |word: usize, stroke: Duration| {
        if let Ok(mut log) = log.lock() {
            let at = start.elapsed();
            log.push(pacing::Entered {
                at,
                began: at.saturating_sub(stroke),
                word,
                points: words.get(word).map_or(0, |w| w.points),
            });
        }
    };
    let round = async {
        let tx = entered_tx;
        let outcome = play_round(&mut injector, &plan, &settings, stop.clone(), &mut |p| {
            let _ = tx.send(p.entered);
            record(p.entered - 1, p.stroke);
            on(Event::Progress(Progress {
                points_seen: *seen_rx.borrow(),
                ..p
            }))
        })
        .await;
        // A round over before its first words leaves the score unlooked at.
        drop(tx);
        let _ = done_tx.send(true);
        outcome
    };
    let check = async {
        let area = profile.score()?;
        // Without the screen the board was read on, one is taken as the first words go in
        // (alongside them, so the first touch waits for nothing), and the words counted
        // from there.
        let (before, from) = match &opts.score_before {
            Some(img) => (img.clone(), 0),
            None => {
                let img = phone.screenshot().await.ok()?;
                (std::sync::Arc::new(img), *entered.borrow())
            }
        };
        let after_words = *entered
            .wait_for(|n| *n >= from + SCORE_AFTER_WORDS)
            .await
            .ok()?;
        tokio::time::sleep(SCORE_SETTLE).await;
        let screenshot = phone.screenshot().await.ok()?;
        Some(ScoreCheck {
            moved: score_moved(&before, &screenshot, area),
            after_words,
            screenshot,
        })
    };
    // Looks at the score while the words go in, on connections of their own, and paces the
    // words to what the game takes.
    let mut watch = book.as_ref().map(|book| ScoreWatch {
        phone,
        profile,
        book,
        start,
        clock: settings.clock.clone(),
        seen: seen_tx,
        base: opts.score_at_start,
        base_sure: opts.score_at_start.is_some(),
        looks: Vec::new(),
    });
    let mut pacing = pacing::Pacing::new(settings.gap.get());
    let pace = async {
        if let Some(w) = watch.as_mut() {
            w.run(done, &log, Some((&mut pacing, &settings.gap))).await;
        }
    };
    let (outcome, score, ()) = tokio::join!(round, check, pace);
    let mut outcome = outcome;
    let first_pass = log.lock().map_or(0, |l| l.len());
    // What the game took of the first pass, from a look once its last word had settled.
    let suspects: Vec<usize> = match watch.as_mut() {
        Some(w) if outcome.stop == Stop::AllWords => {
            tokio::time::sleep(pacing::SETTLE).await;
            w.look(&log).await;
            let log = log.lock().map(|l| l.clone()).unwrap_or_default();
            match w.judge(&log) {
                Some(v) => log
                    .iter()
                    .zip(v)
                    .filter(|(_, v)| *v != taken::Taken::Yes)
                    .map(|(e, _)| e.word)
                    .collect(),
                // No assignment fits the looks: the pacing's own suspects.
                None => pacing.suspects.clone(),
            }
        }
        _ => Vec::new(),
    };
    // The words the score said went untaken, entered again while the clock allows, unhurried
    // and each in a look of its own, so that one still not taken is known refused.
    if let Some(w) = watch.as_mut().filter(|_| !suspects.is_empty()) {
        // The round goes on: its clock (and what its Freezes added), its Freezes where they
        // fall due, those left to use.
        let mut later = settings.clone();
        let freezes = outcome.freezes.len() as u32;
        let again = plan.only(&suspects, deadline + later.freeze_adds * freezes);
        // The schedule's round time, never before the last Freeze's (which it stops).
        later.last_freeze = outcome.freezes.last().map(|&t| Duration::from_secs_f64(t));
        later.round_time_before = start
            .elapsed()
            .saturating_sub(later.freeze_adds * freezes)
            .max(later.last_freeze.unwrap_or_default());
        later.freeze_uses = later.freeze_uses.map(|n| n.saturating_sub(freezes));
        later.gap = pacing::Gap::new(
            settings
                .gap
                .get()
                .max(AGAIN_GAP)
                .max(pacing::SETTLE + w.look_time() * 2),
        );
        on(Event::Note(format!(
            "the game's score says some words went untaken: entering {} again",
            again.words.len()
        )));
        let (done_tx, done) = watch::channel(false);
        let second = async {
            let r = play_round(&mut injector, &again, &later, stop.clone(), &mut |p| {
                if let Some(&word) = suspects.get(p.entered - 1) {
                    record(word, p.stroke);
                }
            })
            .await;
            let _ = done_tx.send(true);
            r
        };
        // Looks for the verdicts only: the pace is not learned from words spaced for judging.
        let (second, ()) = tokio::join!(second, w.run(done, &log, None));
        outcome.words_entered += second.words_entered;
        outcome.words_entered_again = second.words_entered;
        outcome.freezes.extend(&second.freezes);
        outcome.elapsed_secs = start.elapsed().as_secs_f64();
        if second.stop != Stop::AllWords {
            outcome.stop = second.stop;
            outcome.error = second.error;
        }
    }
    outcome.gap_ms = settings.gap.get().as_secs_f64() * 1e3;
    let first_touch = injector.first_touch().map(|t| t.into_std());
    injector.finish().await;
    // The game draws its score a few frames after the last word: a last look then is what
    // it showed, and settles every word for the verdicts.
    let (points_seen, judged) = match watch.as_mut() {
        Some(w) => {
            tokio::time::sleep(pacing::SETTLE).await;
            // A round the clock ended shows its results by now: the last look that read the
            // score is what the game showed.
            w.look(&log).await;
            let points_seen = w.looks.last().and_then(|l| Some(w.base? + l.score));
            let log = log.lock().map(|l| l.clone()).unwrap_or_default();
            tracing::trace!(
                "words acknowledged {log:?}; looks at the score {:?}",
                w.looks
            );
            let judged = w.judge(&log).map(|v| {
                let by = taken::by_word(&log, &v, first_pass);
                let text = |ws: &[usize]| -> Vec<String> {
                    ws.iter()
                        .filter_map(|&i| words.get(i).map(|w| w.text.clone()))
                        .collect()
                };
                Judged {
                    taken: by.taken.len(),
                    not_taken: text(&by.not_taken),
                    refused: text(&by.refused),
                    unknown: by.unknown.len(),
                }
            });
            (points_seen, judged)
        }
        None => (None, None),
    };
    Ok(Played {
        outcome,
        first_touch,
        score,
        points_seen,
        judged,
    })
}

/// Looks at the game's score while a round's words go in: each look's score and times, for
/// pacing and for the verdicts on which words the game took.
struct ScoreWatch<'a> {
    phone: &'a Phone,
    profile: &'a Profile,
    book: &'a DigitBook,
    start: tokio::time::Instant,
    /// The game's clock, as the round keeps to it.
    clock: schedule::GameClock,
    /// The score the latest look read, for those showing progress.
    seen: watch::Sender<Option<u32>>,
    /// The score before the round's words, once known...
    base: Option<u32>,
    /// ...and whether surely: read before any word could count in it.
    base_sure: bool,
    looks: Vec<taken::ScoreLook>,
}

impl ScoreWatch<'_> {
    /// One look: the points gained since the round began, when the score was read surely
    /// (a toast over it, a frame mid-draw are passed over).
    async fn look(&mut self, log: &std::sync::Mutex<Vec<pacing::Entered>>) -> Option<u32> {
        let taps = self.clock.taps();
        let at = tokio::time::Instant::now();
        let img = self.phone.screenshot().await.ok()?;
        let done = tokio::time::Instant::now();
        let (began, ended) = (at - self.start, done - self.start);
        let shown = numbers(&img, self.profile, self.book);
        // The game's clock, read again: the round is played to it (a Freeze's time too).
        if let Some(secs) = shown.clock_secs {
            self.clock.seen(at, done, secs, taps);
        }
        let score = shown.score?;
        // Without the score of the board's screen, the first look's stands for it, surely
        // when no word was acknowledged before it ended.
        let base = match self.base {
            Some(b) => b,
            None => {
                self.base_sure = log
                    .lock()
                    .is_ok_and(|l| l.first().is_none_or(|e| e.at > ended));
                *self.base.insert(score)
            }
        };
        self.seen.send_replace(Some(score));
        let gained = score.checked_sub(base)?;
        self.looks.push(taken::ScoreLook {
            began,
            ended,
            score: gained,
        });
        Some(gained)
    }

    /// Looks until `done` turns true; with `pacing`, paces the words entered (`log`) to the
    /// game: the gap is set to the pause the pacing asks for.
    async fn run(
        &mut self,
        mut done: watch::Receiver<bool>,
        log: &std::sync::Mutex<Vec<pacing::Entered>>,
        mut pacing: Option<(&mut pacing::Pacing, &pacing::Gap)>,
    ) {
        while !*done.borrow() {
            let began = self.start.elapsed();
            if let (Some(gained), Some((p, gap))) = (self.look(log).await, pacing.as_mut()) {
                let log = log.lock().map(|l| l.clone()).unwrap_or_default();
                gap.set(p.look(&log, began, gained));
            }
            tokio::select! {
                _ = tokio::time::sleep(PACE_LOOK_EVERY) => {}
                _ = done.wait_for(|d| *d) => {}
            }
        }
    }

    /// The verdicts on each word of `log` by the looks so far, when the score before the
    /// round is known and an assignment fits them.
    fn judge(&self, log: &[pacing::Entered]) -> Option<Vec<taken::Taken>> {
        if !self.base_sure {
            tracing::debug!("the score before the round's words is not known: no verdicts");
            return None;
        }
        let v = taken::judge_settled(log, &self.looks);
        if v.is_none() {
            tracing::debug!(
                "no account of the words fits the looks at the score: words {log:?}, looks {:?}",
                self.looks
            );
        }
        v
    }

    /// A look's usual time (its median).
    fn look_time(&self) -> Duration {
        let mut t: Vec<Duration> = self.looks.iter().map(|l| l.ended - l.began).collect();
        t.sort();
        t.get(t.len() / 2)
            .copied()
            .unwrap_or(Duration::from_millis(100))
    }
}

/// Which words the game took, by the looks at its score (`taken`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// Words the game took.
    pub taken: usize,
    /// Words it did not take, whatever the bot did.
    pub not_taken: Vec<String>,
    /// Of those, the words it did not take entered again alone and unhurried: not in its
    /// list.
    pub refused: Vec<String>,
    /// Words the looks could not tell of (two of equal points, one of them taken).
    pub unknown: usize,
}

/// Time between two looks at the score while words go in (a screenshot takes tens of
/// milliseconds on a fast phone, hundreds on a slow one; they follow one another).
const PACE_LOOK_EVERY: Duration = Duration::from_millis(50);
/// The least pause between words entered again: unhurried, so that the game takes each.
const AGAIN_GAP: Duration = Duration::from_millis(150);

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
