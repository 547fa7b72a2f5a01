//! The game the virtual phone runs and its referee: screens (lobby, round, results), the round
//! clock with Freeze, and every touch turned into strokes, tiles, words and points. Only what
//! the game would see counts: each sample is hit-tested where it lands (no interpolation), and
//! moves are sampled once per frame, so a finger that crosses a tile between two frames does
//! not select it. Scoring goes through `score.rs`, never a copy of the rules. Pure: time comes
//! in as a `Duration` since the phone started; nothing here reads a clock or touches a file.

use std::collections::HashSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::layout::{Layout, SIDE};
use crate::board::{Board, Pos};
use crate::dict::Trie;
use crate::sample::{BoardSet, Rng};
use crate::score::{Bonus, Bonuses, Rules};
use crate::solve::Solver;

/// Samples kept per stroke in the report; a finger held down forever must not grow memory.
const MAX_SAMPLES_KEPT: usize = 512;
/// Strokes kept in the report; older ones are dropped (and counted).
const MAX_STROKES_KEPT: usize = 20_000;

/// How the game is set up.
#[derive(Clone, Debug)]
pub struct GameConfig {
    /// The first round's board; later rounds (and the first, without it) come from `seed`.
    pub board: Option<Board>,
    pub seed: u64,
    pub round: Duration,
    /// What one Freeze adds to the clock.
    pub freeze: Duration,
    /// Freezes allowed per round; `None` is unlimited.
    pub freeze_uses: Option<u32>,
    /// The app's frame interval: it sees the latest move sample of each frame.
    pub frame: Duration,
    /// Start in the lobby (a tap on Play starts the round) instead of in a round.
    pub lobby: bool,
    /// The lobby (from the start) and the results screen start the next round by themselves
    /// after this long (as a match does when every player is ready); `None`: only a tap on
    /// Play/Next does.
    pub auto_advance: Option<Duration>,
    /// Android's "isn't responding" dialog covers the board through this round (1 is the
    /// first), as it does when the game stalls: the board cannot be read, and a touch in that
    /// round lands on the dialog (a violation).
    pub dialog_round: Option<u32>,
    /// The board is dimmed under a dark overlay through this round, as a game keeps it while
    /// it reconnects: it reads as dimmed, and a touch in that round lands on the overlay (a
    /// violation).
    pub dimmed_round: Option<u32>,
    /// A banner ("Go!") lies across the middle two rows of the board for this long after
    /// each round starts, as a game shows one at a round's start (or "Time's up!" at its
    /// end): the tiles under it are hidden, those above and below show, so the board reads
    /// as unsure. The clock runs under it, and a touch then lands on the banner (a
    /// violation). `None`: no banner.
    pub banner: Option<Duration>,
    /// A word stroke that begins less than this after the last word the game took ended is
    /// ignored, as a game busy showing its last word ignores the next swipe: not judged,
    /// not scored (a bot that goes too fast loses words). Zero: every stroke is judged.
    pub accept_gap: Duration,
    /// The game's own word list, when it is not ENABLE (a real game's differs: words it
    /// refuses, a few it knows that ENABLE lacks).
    pub words: Option<Trie>,
    /// The screen goes off after this long without a touch or a key, as a phone's screen
    /// timeout turns it off: the screen is black, and touches are dropped until a wake key
    /// (`input keyevent KEYCODE_WAKEUP`, POWER, the monkey's `wake`) turns it on. `None`:
    /// never (Developer options, Stay awake).
    pub screen_timeout: Option<Duration>,
    /// The lock screen (keyguard) that shows once the screen has gone off.
    pub screen_lock: ScreenLock,
}

/// A phone's screen lock (Settings, Security, Screen lock), as far as a bot goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScreenLock {
    /// None: the screen comes back on to the app.
    #[default]
    None,
    /// Swipe (Android 5 on; "Slide" before): a lock screen without a secret, which the MENU
    /// key dismisses (`config_disableMenuKeyInLockScreen` false, as AOSP builds it), and
    /// `wm dismiss-keyguard` from Android 7.
    Swipe,
    /// A PIN (or a pattern, a password): only the owner dismisses it. MENU or
    /// `wm dismiss-keyguard` bring up its entry pad, which stays a lock screen.
    Pin,
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            board: None,
            seed: 1,
            round: Duration::from_secs(120),
            freeze: Duration::from_secs(15),
            freeze_uses: None,
            frame: Duration::from_millis(16),
            lobby: false,
            auto_advance: None,
            dialog_round: None,
            dimmed_round: None,
            banner: None,
            accept_gap: Duration::ZERO,
            words: None,
            screen_timeout: None,
            screen_lock: ScreenLock::None,
        }
    }
}

/// What the phone shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Screen {
    Lobby,
    Round,
    Results,
}

/// How a touch reached the phone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// The `input` command (tap, swipe, motionevent).
    Input,
    /// Events written to the touchscreen's /dev/input node (`sendevent`).
    Sendevent,
    /// The monkey's network protocol.
    Monkey,
    /// Injected by the program hosting the sim (tests), below every Android route.
    Raw,
    /// A finger on the touchscreen: the panel's own kernel events (which `getevent` shows).
    Finger,
}

/// A touch event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Down,
    Move,
    Up,
    /// The gesture is abandoned (`input motionevent CANCEL`): nothing is entered.
    Cancel,
}

/// One touch sample as it reached the phone.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub t_ms: f64,
    pub action: Action,
    pub x: f32,
    pub y: f32,
}

/// What a stroke was, as the game took it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StrokeKind {
    /// A swipe (or taps) over tiles.
    Word,
    /// A tap on one tile (tap entry: the word is built tap by tap).
    Tap,
    Freeze,
    /// Another lifeline button.
    Lifeline,
    /// Play, in the lobby.
    Play,
    /// Nothing the game takes.
    None,
}

/// A finished stroke, for the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StrokeRecord {
    pub index: usize,
    pub round: u32,
    pub route: Route,
    pub start_ms: f64,
    pub end_ms: f64,
    /// Every sample that arrived (the first `MAX_SAMPLES_KEPT`).
    pub samples: Vec<Sample>,
    pub sample_count: usize,
    /// Samples the app saw (one move per frame, plus down and up).
    pub seen: usize,
    /// Tiles selected, in order, as (row, col).
    pub tiles: Vec<[usize; 2]>,
    pub kind: StrokeKind,
    pub word: Option<String>,
    pub accepted: bool,
    pub reason: Option<String>,
    pub points: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FreezeRecord {
    pub round: u32,
    pub at_ms: f64,
    /// Round time when it was tapped.
    pub round_ms: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    pub stroke: usize,
    pub round: u32,
    pub route: Route,
    pub at_ms: f64,
    pub x: f32,
    pub y: f32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoundSummary {
    pub round: u32,
    pub board: String,
    pub bonuses: String,
    pub score: u32,
    pub max_score: u32,
    pub words: usize,
    pub words_possible: usize,
    pub freezes: usize,
    /// From the round's start (its board on the screen) to its first touch.
    pub first_touch_ms: Option<f64>,
}

/// Everything on screen, enough to draw it; equal views draw equal pictures.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub screen: Screen,
    pub round: u32,
    pub tiles: Vec<u8>,
    pub bonuses: Vec<Option<Bonus>>,
    /// Whole seconds left on the clock (rounded up).
    pub secs_left: u64,
    pub score: u32,
    pub words: usize,
    /// Tiles of the stroke in progress (highlighted).
    pub selected: Vec<usize>,
    pub last_word: Option<(String, bool)>,
    pub max_score: u32,
    /// A system dialog covers the round's board.
    pub dialog: bool,
    /// A dark overlay dims the round's board.
    pub dimmed: bool,
    /// A banner lies across the middle of the round's board (`GameConfig::banner`).
    pub banner: bool,
    /// The screen is off: it shows black.
    pub off: bool,
    /// The screen is on, and its lock screen covers the game.
    pub locked: bool,
}

impl View {
    /// A round in play with tiles A to P and nothing else going on, its clock at `secs_left`
    /// and its score at `score`: the screen a bot watches the game's numbers on.
    pub fn round_at(secs_left: u64, score: u32) -> View {
        View {
            screen: Screen::Round,
            round: 1,
            tiles: (0..16).collect(),
            bonuses: vec![None; 16],
            secs_left,
            score,
            words: 0,
            selected: Vec::new(),
            last_word: None,
            max_score: 0,
            dialog: false,
            dimmed: false,
            banner: false,
            off: false,
            locked: false,
        }
    }
}

/// A key reaching the phone (`input keyevent`, the monkey), as far as the screen's power
/// goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    /// KEYCODE_WAKEUP (224, from Android 4.4W): the screen on.
    Wakeup,
    /// KEYCODE_SLEEP (223): the screen off.
    Sleep,
    /// KEYCODE_POWER (26): the screen on if off, off if on.
    Power,
    /// KEYCODE_MENU (82): dismisses a lock screen without a secret.
    Menu,
    /// Any other key: user activity while the screen is on; dropped while it is off.
    Other,
}

/// A stroke in progress.
#[derive(Debug)]
struct Stroke {
    route: Route,
    start: Duration,
    samples: Vec<Sample>,
    count: usize,
    /// The latest move of the current frame, not yet seen by the app.
    pending: Option<(u64, Sample)>,
    seen: Vec<Sample>,
    tiles: Vec<usize>,
    outside: Option<Sample>,
}

/// The game and its referee.
pub struct Game {
    config: GameConfig,
    layout: Layout,
    trie: Trie,
    rules: Rules,
    screen: Screen,
    round: u32,
    board: Board,
    bonuses: Bonuses,
    round_start: Duration,
    extension: Duration,
    found: HashSet<String>,
    score: u32,
    max_score: u32,
    words_possible: usize,
    round_freezes: u32,
    strokes: Vec<StrokeRecord>,
    strokes_dropped: usize,
    stroke_count: usize,
    freezes: Vec<FreezeRecord>,
    violations: Vec<Violation>,
    rounds: Vec<RoundSummary>,
    first_screenshot: Option<Duration>,
    /// Screenshots taken (a bot watching for a board takes several a second).
    screenshots: u64,
    first_touch: Option<Duration>,
    /// The first touch of the round now on, since it started.
    round_first_touch: Option<Duration>,
    /// The first touch that came after the first screenshot.
    first_touch_seen: Option<Duration>,
    current: Option<Stroke>,
    taps: Vec<usize>,
    last_word: Option<(String, bool)>,
    /// When the last word the game took ended (`accept_gap` counts from it).
    last_taken: Option<Duration>,
    power: Power,
}

/// The screen's power: when it was last used, and whether it is off.
#[derive(Debug, Default)]
struct Power {
    last_activity: Duration,
    off: bool,
    /// Times the screen went off (timed out or put to sleep) and came on.
    offs: u32,
    ons: u32,
    /// Touch samples dropped because the screen was off.
    touches_dropped: u64,
    /// The lock screen shows (over the game, while the screen is on).
    locked: bool,
    /// Times the lock screen was dismissed.
    unlocks: u32,
    /// Touch samples that landed on the lock screen instead of the game.
    touches_locked: u64,
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// When `sample` was taken (its `t_ms` back as time since the game began, to the microsecond).
fn at(sample: Sample) -> Duration {
    Duration::from_secs_f64(sample.t_ms / 1e3)
}

impl Game {
    /// A game on `layout`, started at time zero (in a round, or in the lobby).
    pub fn new(config: GameConfig, layout: Layout, trie: Trie) -> Game {
        let board = config.board.unwrap_or_else(|| Game::dealt(config.seed, 1));
        let mut game = Game {
            layout,
            trie,
            rules: Rules::scramble(),
            screen: Screen::Lobby,
            round: 0,
            board,
            bonuses: Bonuses::none(),
            round_start: Duration::ZERO,
            extension: Duration::ZERO,
            found: HashSet::new(),
            score: 0,
            max_score: 0,
            words_possible: 0,
            round_freezes: 0,
            strokes: Vec::new(),
            strokes_dropped: 0,
            stroke_count: 0,
            freezes: Vec::new(),
            violations: Vec::new(),
            rounds: Vec::new(),
            first_screenshot: None,
            screenshots: 0,
            first_touch: None,
            round_first_touch: None,
            first_touch_seen: None,
            current: None,
            taps: Vec::new(),
            last_word: None,
            last_taken: None,
            power: Power::default(),
            config,
        };
        if !game.config.lobby {
            game.start_round(Duration::ZERO);
        }
        game
    }

    /// A board rolled from the New Boggle dice for round `round` of the game seeded `seed`.
    fn dealt(seed: u64, round: u32) -> Board {
        let mut rng = Rng::new(seed ^ (round as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        BoardSet::Dice.one(&mut rng)
    }

    fn start_round(&mut self, now: Duration) {
        // Rounds 1, 2, 3 of a match: plain, then DL/DW, then TL/TW.
        self.round += 1;
        let in_match = (self.round - 1) % 3;
        if self.round > 1 || self.config.board.is_none() {
            self.board = Game::dealt(self.config.seed, self.round);
        }
        self.bonuses = Bonuses::none();
        let placed = match in_match {
            1 => [Bonus::DL, Bonus::DL, Bonus::DW],
            2 => [Bonus::TL, Bonus::TL, Bonus::TW],
            _ => [Bonus::DL; 3],
        };
        if in_match > 0 {
            let mut rng = Rng::new(self.config.seed.wrapping_add(self.round as u64 * 7919));
            let mut cells: Vec<usize> = (0..SIDE * SIDE).collect();
            for bonus in placed {
                let cell = cells.remove(rng.below(cells.len()));
                let pos = self.board.pos_of(cell);
                let _ = self.bonuses.set(&self.board, pos, bonus);
            }
        }
        let best = Solver::new(&self.trie).solve(&self.board, &self.rules, &self.bonuses);
        self.max_score = best.total_points();
        self.words_possible = best.len();
        self.screen = Screen::Round;
        self.round_start = now;
        self.extension = Duration::ZERO;
        self.found.clear();
        self.score = 0;
        self.round_freezes = 0;
        self.taps.clear();
        self.last_word = None;
        self.last_taken = None;
        self.round_first_touch = None;
    }

    /// Whether the round on screen is under the system dialog.
    fn dialog_shows(&self) -> bool {
        self.screen == Screen::Round && self.config.dialog_round == Some(self.round)
    }

    /// Whether the round on screen is dimmed under an overlay.
    fn dimmed_shows(&self) -> bool {
        self.screen == Screen::Round && self.config.dimmed_round == Some(self.round)
    }

    /// Whether the round's opening banner lies over the board at `now`.
    fn banner_shows(&self, now: Duration) -> bool {
        self.screen == Screen::Round
            && self
                .config
                .banner
                .is_some_and(|b| now < self.round_start + b)
    }

    /// Whether something modal covers the round on screen at `now`: it takes every touch.
    fn covered(&self, now: Duration) -> bool {
        self.dialog_shows() || self.dimmed_shows() || self.banner_shows(now)
    }

    /// When the round's clock runs out.
    fn round_end(&self) -> Duration {
        self.round_start + self.config.round + self.extension
    }

    /// Moves the game on to `now`: a round whose clock has run out shows its results.
    pub fn tick(&mut self, now: Duration) {
        if let Some(wait) = self.config.auto_advance
            && self.screen == Screen::Lobby
            && now >= wait
        {
            self.start_round(wait);
        }
        loop {
            if self.screen == Screen::Round && now >= self.round_end() {
                self.end_round();
            }
            // With auto-advance, the next round starts when the wait ends, whenever the game
            // is next looked at (rounds that would have ended meanwhile are played out empty).
            match self.config.auto_advance {
                Some(wait)
                    if self.screen == Screen::Results
                        && now >= self.round_end() + wait
                        && !(self.config.round + wait).is_zero() =>
                {
                    self.start_round(self.round_end() + wait);
                }
                _ => break,
            }
        }
    }

    /// The clock has run out: the results screen, and the round's summary.
    fn end_round(&mut self) {
        self.screen = Screen::Results;
        self.rounds.push(RoundSummary {
            round: self.round,
            board: self.board.to_string(),
            bonuses: self.bonus_text(),
            score: self.score,
            max_score: self.max_score,
            words: self.found.len(),
            words_possible: self.words_possible,
            freezes: self.round_freezes as usize,
            first_touch_ms: self.round_first_touch.map(ms),
        });
    }

    fn bonus_text(&self) -> String {
        self.bonuses
            .iter()
            .map(|(i, b)| {
                let p = self.board.pos_of(i);
                format!("{b}@{},{}", p.row(), p.col())
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The round now on, or last played (1 for the first).
    pub fn round(&self) -> u32 {
        self.round
    }

    pub fn screen(&self) -> Screen {
        self.screen
    }
    pub fn board(&self) -> &Board {
        &self.board
    }
    pub fn bonuses(&self) -> &Bonuses {
        &self.bonuses
    }
    pub fn score(&self) -> u32 {
        self.score
    }
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// Whether a finger is on the screen now.
    pub fn finger_down(&self) -> bool {
        self.current.is_some()
    }

    pub fn strokes(&self) -> &[StrokeRecord] {
        &self.strokes
    }
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }
    pub fn freezes(&self) -> &[FreezeRecord] {
        &self.freezes
    }

    /// Time left on the round clock at `now` (zero outside a round).
    pub fn time_left(&self, now: Duration) -> Duration {
        match self.screen {
            Screen::Round => self.round_end().saturating_sub(now),
            _ => Duration::ZERO,
        }
    }

    /// Whether the screen is on at `now` (it goes off once the timeout has passed since the
    /// last touch or key, never with a finger down).
    pub fn screen_on(&mut self, now: Duration) -> bool {
        let timed_out = self
            .config
            .screen_timeout
            .is_some_and(|t| now.saturating_sub(self.power.last_activity) >= t);
        if !self.power.off && timed_out && self.current.is_none() {
            self.go_off();
        }
        !self.power.off
    }

    /// The screen goes off; the lock screen, if the phone has one, is up when it comes on.
    fn go_off(&mut self) {
        self.power.off = true;
        self.power.offs += 1;
        if self.config.screen_lock != ScreenLock::None {
            self.power.locked = true;
        }
    }

    /// Whether the lock screen shows at `now` (it is up while the screen is off, too).
    pub fn keyguard_showing(&mut self, now: Duration) -> bool {
        self.screen_on(now);
        self.power.locked
    }

    /// `wm dismiss-keyguard` (and MENU): the lock screen goes if it has no secret and the
    /// screen is on; a PIN's stays.
    pub fn dismiss_keyguard(&mut self, now: Duration) {
        if !self.screen_on(now) || !self.power.locked {
            return;
        }
        self.power.last_activity = now;
        if self.config.screen_lock != ScreenLock::Pin {
            self.power.locked = false;
            self.power.unlocks += 1;
        }
    }

    /// A key at `now`: the wake and sleep keys turn the screen on or off.
    pub fn key(&mut self, now: Duration, key: Key) {
        let on = self.screen_on(now);
        if key == Key::Menu && on && self.power.locked {
            self.dismiss_keyguard(now);
            return;
        }
        let turn_on = match key {
            Key::Wakeup => true,
            Key::Sleep => false,
            Key::Power => !on,
            Key::Other | Key::Menu => on,
        };
        if turn_on {
            self.power.last_activity = now;
            if !on {
                self.power.off = false;
                self.power.ons += 1;
            }
        } else if on && matches!(key, Key::Sleep | Key::Power) {
            self.go_off();
        }
    }

    /// What the screen shows at `now`; a screenshot also starts the "first touch" timer.
    pub fn view(&mut self, now: Duration, screenshot: bool) -> View {
        self.tick(now);
        let off = !self.screen_on(now);
        if screenshot {
            self.screenshots += 1;
            self.first_screenshot.get_or_insert(now);
        }
        View {
            screen: self.screen,
            round: self.round,
            tiles: self.board.tiles().to_vec(),
            bonuses: (0..self.board.cells())
                .map(|i| self.bonuses.at(i))
                .collect(),
            secs_left: self.time_left(now).as_secs_f64().ceil() as u64,
            score: self.score,
            words: self.found.len(),
            selected: self
                .current
                .as_ref()
                .map(|s| s.tiles.clone())
                .unwrap_or_default(),
            last_word: self.last_word.clone(),
            max_score: self.max_score,
            dialog: self.dialog_shows(),
            dimmed: self.dimmed_shows(),
            banner: self.banner_shows(now),
            off,
            locked: !off && self.power.locked,
        }
    }

    /// One touch sample. Returns true when it ended a stroke (the report changed).
    pub fn touch(&mut self, now: Duration, route: Route, action: Action, x: f32, y: f32) -> bool {
        self.tick(now);
        // With the screen off, Android's input policy drops touches before the app sees
        // them (the panel itself is off for a real finger).
        if !self.screen_on(now) {
            self.power.touches_dropped += 1;
            return false;
        }
        // The lock screen takes the touch (and keeps the screen on); the game sees none.
        if self.power.locked {
            self.power.last_activity = now;
            self.power.touches_locked += 1;
            return false;
        }
        self.power.last_activity = now;
        self.first_touch.get_or_insert(now);
        if self.screen == Screen::Round {
            self.round_first_touch
                .get_or_insert(now.saturating_sub(self.round_start));
        }
        if self.first_touch_seen.is_none() && self.first_screenshot.is_some() {
            self.first_touch_seen = Some(now);
        }
        let sample = Sample {
            t_ms: ms(now),
            action,
            x,
            y,
        };
        match action {
            Action::Down => {
                let ended = self.current.is_some();
                if let Some(old) = self.current.take() {
                    self.finish(old, now, Some("cancelled: a new touch began"));
                }
                let mut stroke = Stroke {
                    route,
                    start: now,
                    samples: Vec::new(),
                    count: 0,
                    pending: None,
                    seen: Vec::new(),
                    tiles: Vec::new(),
                    outside: None,
                };
                self.record(&mut stroke, sample);
                self.see(&mut stroke, sample);
                self.current = Some(stroke);
                ended
            }
            Action::Move => {
                // A move without a finger down is dropped by Android's input dispatcher.
                let Some(mut stroke) = self.current.take() else {
                    return false;
                };
                self.record(&mut stroke, sample);
                let frame = (now.as_nanos() / self.config.frame.as_nanos().max(1)) as u64;
                match stroke.pending {
                    Some((f, _)) if f == frame => {}
                    Some((_, older)) => self.see(&mut stroke, older),
                    None => {}
                }
                stroke.pending = Some((frame, sample));
                self.current = Some(stroke);
                false
            }
            Action::Up | Action::Cancel => {
                let Some(mut stroke) = self.current.take() else {
                    return false;
                };
                self.record(&mut stroke, sample);
                let cancelled = action == Action::Cancel;
                if !cancelled {
                    if let Some((_, last)) = stroke.pending.take() {
                        self.see(&mut stroke, last);
                    }
                    self.see(&mut stroke, sample);
                }
                self.finish(stroke, now, cancelled.then_some("cancelled"));
                true
            }
        }
    }

    fn record(&self, stroke: &mut Stroke, sample: Sample) {
        stroke.count += 1;
        if stroke.samples.len() < MAX_SAMPLES_KEPT {
            stroke.samples.push(sample);
        }
        let fence = match self.screen {
            Screen::Round => !self.covered(at(sample)) && self.layout.in_fence(sample.x, sample.y),
            Screen::Lobby | Screen::Results => self.layout.play.contains(sample.x, sample.y),
        };
        if !fence && stroke.outside.is_none() {
            stroke.outside = Some(sample);
        }
    }

    /// The app sees one sample: it selects the tile under it, if any.
    fn see(&self, stroke: &mut Stroke, sample: Sample) {
        if stroke.seen.len() < MAX_SAMPLES_KEPT {
            stroke.seen.push(sample);
        }
        // A system dialog or an overlay is modal: what it covers gets no touch.
        if self.covered(at(sample)) {
            return;
        }
        if let Some(cell) = self.layout.hit(sample.x, sample.y)
            && stroke.tiles.last() != Some(&cell)
        {
            stroke.tiles.push(cell);
        }
    }

    /// Judges a finished stroke and records it.
    fn finish(&mut self, stroke: Stroke, now: Duration, cancelled: Option<&str>) {
        let index = self.stroke_count;
        self.stroke_count += 1;
        if let Some(s) = stroke.outside {
            self.violations.push(Violation {
                stroke: index,
                round: self.round,
                route: stroke.route,
                at_ms: s.t_ms,
                x: s.x,
                y: s.y,
            });
        }
        let mut record = StrokeRecord {
            index,
            round: self.round,
            route: stroke.route,
            start_ms: ms(stroke.start),
            end_ms: ms(now),
            samples: stroke.samples.clone(),
            sample_count: stroke.count,
            seen: stroke.seen.len(),
            tiles: stroke.tiles.iter().map(|&c| [c / SIDE, c % SIDE]).collect(),
            kind: StrokeKind::None,
            word: None,
            accepted: false,
            reason: None,
            points: 0,
        };
        let verdict = match cancelled {
            Some(why) => Err(why.to_owned()),
            None => self.judge(&stroke, now, &mut record),
        };
        match verdict {
            Ok(points) => {
                record.accepted = true;
                record.points = points;
            }
            Err(why) => record.reason = Some(why),
        }
        if self.strokes.len() >= MAX_STROKES_KEPT {
            self.strokes.remove(0);
            self.strokes_dropped += 1;
        }
        self.strokes.push(record);
    }

    /// What a stroke did: Ok(points) when it counted (a word, a tile tap, a lifeline, Play).
    fn judge(
        &mut self,
        stroke: &Stroke,
        now: Duration,
        record: &mut StrokeRecord,
    ) -> Result<u32, String> {
        let seen = &stroke.seen;
        let within = |hit: &dyn Fn(&Sample) -> bool| !seen.is_empty() && seen.iter().all(hit);
        if self.screen != Screen::Round {
            if within(&|s| self.layout.play.contains(s.x, s.y)) {
                record.kind = StrokeKind::Play;
                self.start_round(now);
                return Ok(0);
            }
            return Err(format!("no round is running ({:?} screen)", self.screen));
        }
        if let Some(b) = self.layout.button(seen[0].x, seen[0].y)
            && stroke.tiles.is_empty()
            && within(&|s| self.layout.buttons[b].contains(s.x, s.y))
        {
            return self.lifeline(b, now, record);
        }
        match stroke.tiles.len() {
            0 => Err("no tile touched".into()),
            1 => {
                record.kind = StrokeKind::Tap;
                self.tap(stroke.tiles[0], record)
            }
            _ => {
                record.kind = StrokeKind::Word;
                self.taps.clear();
                if let Some(taken) = self.last_taken
                    && stroke.start < taken + self.config.accept_gap
                {
                    return Err(format!(
                        "ignored: began {:.0} ms after the last word taken",
                        ms(stroke.start.saturating_sub(taken))
                    ));
                }
                let points = self.enter(&stroke.tiles, record)?;
                self.last_taken = Some(now);
                Ok(points)
            }
        }
    }

    fn lifeline(
        &mut self,
        b: usize,
        now: Duration,
        record: &mut StrokeRecord,
    ) -> Result<u32, String> {
        if b != 0 {
            record.kind = StrokeKind::Lifeline;
            return Err(format!(
                "the {} lifeline is not simulated",
                self.layout.buttons[b].name
            ));
        }
        record.kind = StrokeKind::Freeze;
        if self
            .config
            .freeze_uses
            .is_some_and(|limit| self.round_freezes >= limit)
        {
            return Err("no Freeze left this round".into());
        }
        self.round_freezes += 1;
        self.extension += self.config.freeze;
        self.freezes.push(FreezeRecord {
            round: self.round,
            at_ms: ms(now),
            round_ms: ms(now.saturating_sub(self.round_start)),
        });
        Ok(0)
    }

    /// Tap entry: tap each tile, then the last one again.
    fn tap(&mut self, cell: usize, record: &mut StrokeRecord) -> Result<u32, String> {
        if self.taps.last() == Some(&cell) {
            let tiles = std::mem::take(&mut self.taps);
            return self.enter(&tiles, record);
        }
        let extends = match self.taps.last() {
            None => true,
            Some(&last) => {
                self.board.pos_of(last).touches(self.board.pos_of(cell))
                    && !self.taps.contains(&cell)
            }
        };
        if !extends {
            let abandoned = self.board.spell(&self.path(&self.taps));
            self.taps = vec![cell];
            return Err(format!(
                "tapped a tile that does not extend {abandoned:?}; starting again from it"
            ));
        }
        self.taps.push(cell);
        Ok(0)
    }

    fn path(&self, tiles: &[usize]) -> Vec<Pos> {
        tiles.iter().map(|&c| self.board.pos_of(c)).collect()
    }

    /// A word entered along `tiles`: checked, and scored if it counts.
    fn enter(&mut self, tiles: &[usize], record: &mut StrokeRecord) -> Result<u32, String> {
        let path = self.path(tiles);
        let word = self.board.spell(&path);
        record.word = Some(word.clone());
        let verdict = self.check(&path, &word);
        self.last_word = Some((word.clone(), verdict.is_ok()));
        let points = verdict?;
        self.found.insert(word);
        self.score += points;
        Ok(points)
    }

    fn check(&self, path: &[Pos], word: &str) -> Result<u32, String> {
        if let Some(w) = path.windows(2).find(|w| !w[0].touches(w[1])) {
            return Err(format!("tiles {} and {} are not adjacent", w[0], w[1]));
        }
        for (i, p) in path.iter().enumerate() {
            if path[..i].contains(p) {
                return Err(format!("tile {p} used twice"));
            }
        }
        let min = self.rules.min_len();
        if word.len() < min {
            return Err(format!("shorter than {min} letters"));
        }
        if !self.trie.contains(word) {
            return Err("not in the dictionary".into());
        }
        if self.found.contains(word) {
            return Err("already found this round".into());
        }
        Ok(self.rules.score_path(&self.board, &self.bonuses, path))
    }

    /// The report: everything the referee saw, as JSON.
    pub fn report(&mut self, now: Duration) -> Report {
        self.tick(now);
        let after = match (self.first_screenshot, self.first_touch_seen) {
            (Some(s), Some(t)) => Some(ms(t.saturating_sub(s))),
            _ => None,
        };
        let mut found: Vec<String> = self.found.iter().cloned().collect();
        found.sort();
        Report {
            model: None,
            screen: self.screen,
            round: self.round,
            board: self.board.to_string(),
            bonuses: self.bonus_text(),
            round_secs: self.config.round.as_secs_f64(),
            frame_ms: ms(self.config.frame),
            time_ms: ms(now),
            time_left_ms: ms(self.time_left(now)),
            score: self.score,
            max_score: self.max_score,
            words: self.found.len(),
            words_possible: self.words_possible,
            found,
            first_screenshot_ms: self.first_screenshot.map(ms),
            screenshots: self.screenshots,
            finger_down: self.current.is_some(),
            first_touch_ms: self.first_touch.map(ms),
            first_touch_after_screenshot_ms: after,
            freezes: self.freezes.clone(),
            violations: self.violations.clone(),
            rounds: self.rounds.clone(),
            strokes_dropped: self.strokes_dropped,
            strokes: self.strokes.clone(),
            screen_offs: self.power.offs,
            screen_ons: self.power.ons,
            touches_while_off: self.power.touches_dropped,
            unlocks: self.power.unlocks,
            touches_while_locked: self.power.touches_locked,
        }
    }
}

/// The referee's report: what the game saw, as the report file and `demo` show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Which phone (filled in by the device).
    pub model: Option<String>,
    pub screen: Screen,
    pub round: u32,
    pub board: String,
    pub bonuses: String,
    pub round_secs: f64,
    pub frame_ms: f64,
    /// Time since the phone started.
    pub time_ms: f64,
    pub time_left_ms: f64,
    pub score: u32,
    pub max_score: u32,
    /// Words accepted this round.
    pub words: usize,
    pub words_possible: usize,
    /// The words accepted, sorted.
    pub found: Vec<String>,
    pub first_screenshot_ms: Option<f64>,
    /// Screenshots taken since the phone started.
    pub screenshots: u64,
    /// A finger is on the screen now (a stroke begun and not lifted).
    pub finger_down: bool,
    pub first_touch_ms: Option<f64>,
    pub first_touch_after_screenshot_ms: Option<f64>,
    pub freezes: Vec<FreezeRecord>,
    pub violations: Vec<Violation>,
    pub rounds: Vec<RoundSummary>,
    pub strokes_dropped: usize,
    pub strokes: Vec<StrokeRecord>,
    /// Times the screen went off, and came on again (a wake key).
    #[serde(default)]
    pub screen_offs: u32,
    #[serde(default)]
    pub screen_ons: u32,
    /// Touch samples dropped because the screen was off.
    #[serde(default)]
    pub touches_while_off: u64,
    /// Times the lock screen was dismissed.
    #[serde(default)]
    pub unlocks: u32,
    /// Touch samples that landed on the lock screen instead of the game.
    #[serde(default)]
    pub touches_while_locked: u64,
}

impl Report {
    /// Strokes the game did not accept.
    pub fn rejected(&self) -> usize {
        self.strokes.iter().filter(|s| !s.accepted).count()
    }
}

#[cfg(test)]
mod tests;
