//! The board a round is played on (`Seen`), and the round itself (`Round`): its words, when
//! its clock ends and how that is known, the screen it started on. Every caller plays a round
//! through `Round::play` (`play`, the daemon, `demo`, `bench pace`), so the round's deadline
//! and its flow (the words planned less those refused, the pace learned, the board watched
//! while the words go in) are fixed in one place.

use std::sync::Arc;
use std::time::{Duration, Instant};

use image::RgbaImage;
use tokio::sync::watch;

use super::{
    EnterOptions, Event, PlannedWord, PlayError, Played, enter, keep_learned, plan_words,
    without_refused,
};
use crate::board::Board;
use crate::dict::Trie;
use crate::phone::Phone;
use crate::profile::{Profile, Route};
use crate::score::Bonuses;
use crate::solve::Order;
use crate::state::State;

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
    pub at: Instant,
    /// The board came up after this: the start of the last look that showed the game
    /// without it (`None`: not known, as for a board already showing, or typed).
    pub after: Option<Instant>,
    /// The screen was dark or locked since `after`: the board came up out of sight.
    pub behind: bool,
    /// The game's clock on the look the board was read on, and when that look began (with a
    /// profile that learned the game's digits, and the clock read surely).
    pub clock: Option<(Instant, u32)>,
    /// The game's score on that look, read surely: what the round's words add to.
    pub score: Option<u32>,
}

impl Seen {
    pub fn typed(board: Board) -> Seen {
        Seen {
            board,
            bonuses: Bonuses::none(),
            source: BoardSource::Typed,
            at: Instant::now(),
            after: None,
            behind: false,
            clock: None,
            score: None,
        }
    }

    /// When the game's clock ends by what it showed: a lower bound, as a clock showing m:ss
    /// has between one second less and that much left (it rounds one way or the other).
    pub fn clock_deadline(&self) -> Option<Instant> {
        let (at, secs) = self.clock?;
        Some(at + clock_left(secs))
    }

    /// When the round's clock ends, by what was seen: the game's clock where it was read;
    /// else a whole `round` from when the board came up (after `after`), or, that not being
    /// known, from when it was read or typed (the latest it can end).
    pub fn deadline(&self, round: Duration) -> Instant {
        self.clock_deadline()
            .unwrap_or_else(|| self.after.unwrap_or(self.at) + round)
    }

    /// The bonuses as `solve --bonus` takes them, if there are any.
    pub fn bonus_text(&self) -> Option<String> {
        (!self.bonuses.is_empty()).then(|| self.bonuses.text(&self.board))
    }

    /// Whether the board was read surely on the screen, so that a look can tell it still
    /// shows (a board read unsurely, or typed and never seen, cannot be told).
    pub fn on_screen(&self) -> bool {
        matches!(self.source, BoardSource::Screen | BoardSource::TypedSeen)
    }
}

/// The time surely left when the game's clock shows `secs` (m:ss): a second less, as a clock
/// rounds one way or the other.
pub fn clock_left(secs: u32) -> Duration {
    Duration::from_secs(u64::from(secs.saturating_sub(1)))
}

/// How the end of a round's clock is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The game's clock, read on the board's screen.
    Clock,
    /// Told by the user (`--time-left`) or by the game itself (the virtual phone's report).
    Told,
    /// A whole round from when the board came up, seen between two looks.
    Counted,
    /// A whole round from when the board was read or typed: its start is not known, so this
    /// is the latest it can end. A board on the screen is played until it leaves it.
    AtMost,
    /// Carried over from the round a phone's going cut short.
    Resumed,
}

/// A round to play: the board seen, when its clock ends and how that is known, and what is
/// carried into it (the screen it started on, the words left of a round cut short).
#[derive(Clone, Debug)]
pub struct Round {
    pub seen: Seen,
    deadline: Instant,
    pub end: End,
    /// The screen the board was read on, for checking the score moved after the first words.
    score_before: Option<Arc<RgbaImage>>,
    /// The words to enter, once planned (for a round resumed: those it had left).
    words: Option<Vec<PlannedWord>>,
    /// Words of the board left out as the game refused them before.
    left_out: usize,
    /// Words entered again in this round so far (cut by a phone's going).
    pub entered_again: usize,
}

/// How a round's words go in: the caller's choices.
#[derive(Clone, Copy, Debug)]
pub struct How {
    pub order: Order,
    /// The route instead of the profile's.
    pub route: Option<Route>,
    /// A stop lets the word being drawn finish instead of lifting the finger mid-word.
    pub finish_word_on_stop: bool,
}

/// What `Round::play` did.
#[derive(Debug)]
pub struct PlayedBoard {
    pub played: Played,
    /// The words the round had to enter, in order (`played.outcome.words_entered` of them
    /// went in).
    pub words: Vec<PlannedWord>,
    /// Words of the board left out as the game refused them in an earlier round.
    pub left_out: usize,
    /// Why what the round learned (words refused, the pace) could not be kept, if so.
    pub not_kept: Option<String>,
}

impl Round {
    /// A round on the board `seen` showed, its clock ending by what was seen
    /// (`Seen::deadline`, with `whole` the game's full round).
    pub fn new(seen: Seen, whole: Duration) -> Round {
        let end = match (seen.clock, seen.after) {
            (Some(_), _) => End::Clock,
            (None, Some(_)) => End::Counted,
            (None, None) => End::AtMost,
        };
        let deadline = seen.deadline(whole);
        Round::with(seen, deadline, end)
    }

    /// A round on `seen` whose clock ends at `deadline`, as told by the user or the game.
    pub fn told(seen: Seen, deadline: Instant) -> Round {
        Round::with(seen, deadline, End::Told)
    }

    /// The rest of a round a phone's going cut short: its words `left`, its clock ending at
    /// `deadline` (with what its Freezes added), `entered_again` words cut and entered again.
    pub fn resumed(
        seen: Seen,
        deadline: Instant,
        left: Vec<PlannedWord>,
        entered_again: usize,
    ) -> Round {
        Round {
            words: Some(left),
            entered_again,
            ..Round::with(seen, deadline, End::Resumed)
        }
    }

    fn with(seen: Seen, deadline: Instant, end: End) -> Round {
        Round {
            seen,
            deadline,
            end,
            score_before: None,
            words: None,
            left_out: 0,
            entered_again: 0,
        }
    }

    /// The screen the board was read on: the score is looked at again after the first words
    /// to see that the game takes them (without it, a screen is taken as they go in).
    pub fn started_on(mut self, screen: Arc<RgbaImage>) -> Round {
        self.score_before = Some(screen);
        self
    }

    /// When the round's clock ends (before any Freeze): the round is played to it, or until
    /// the board leaves the screen when that comes first.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Plans the round's words, once: the board's words in `trie` by the profile's rules in `order`;
    /// with `state`, less those the game refused before (said through `on`). A round resumed
    /// keeps the words it had left.
    pub fn plan(
        &mut self,
        trie: &Trie,
        profile: &Profile,
        order: Order,
        state: Option<&State>,
        on: &mut (dyn FnMut(Event) + Send),
    ) -> &[PlannedWord] {
        if self.words.is_none() {
            let seen = &self.seen;
            let words = plan_words(trie, profile, &seen.board, &seen.bonuses, order);
            let planned = words.len();
            let words = match state {
                Some(state) => without_refused(words, state, &profile.rules().game, &mut |l| {
                    on(Event::Note(l))
                }),
                None => words,
            };
            self.left_out = planned - words.len();
            self.words = Some(words);
        }
        self.words.as_deref().unwrap_or_default()
    }

    /// What a person is told of the round's clock before the first word, when there is
    /// something to tell: the game's clock as read, or that it was not read and how long the
    /// round is played for instead.
    pub fn clock_line(&self, profile: &Profile) -> Option<String> {
        let left = self
            .deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        let until = if self.seen.on_screen() {
            format!("playing until the board leaves the screen, at most {left:.1} s")
        } else {
            format!("playing for at most {left:.1} s")
        };
        let counted = |after: Instant| {
            let behind = if self.seen.behind {
                " (it came up while the screen was dark or locked)"
            } else {
                ""
            };
            format!(
                "; the round is counted from when the board came up, {:.1} s ago{behind}",
                after.elapsed().as_secs_f64()
            )
        };
        let not_read = match (self.seen.source, profile.clock()) {
            (BoardSource::Typed | BoardSource::ScreenTyped, _) => "the game's clock is not read",
            (_, Some(c)) if c.digits.is_some() => "the game's clock is not read surely",
            (_, _) => "the profile reads no clock (calibrate learns it)",
        };
        match self.end {
            End::Clock => self.seen.clock.map(|(_, secs)| {
                format!(
                    "the game's clock shows {}:{:02}: playing for the {left:.1} s it has left",
                    secs / 60,
                    secs % 60
                )
            }),
            End::Counted => Some(format!(
                "{not_read}: {until}{}",
                self.seen.after.map(counted).unwrap_or_default()
            )),
            End::AtMost => Some(format!("{not_read}: {until}")),
            End::Told | End::Resumed => None,
        }
    }

    /// Plays the round on `phone`: its words (`plan`ned now if they were not) entered by the
    /// profile's route, Freeze tapped on schedule, until every word is in, the clock ends,
    /// the board leaves the screen (for a board read there) or `stop` turns true. With
    /// `state`, started at the pace the game's last round learned, and what this one learns
    /// (words refused, the pace) kept. Lines for a person go to `on` as notes.
    #[allow(clippy::too_many_arguments)]
    pub async fn play(
        mut self,
        phone: &Phone,
        profile: &Profile,
        how: How,
        state: Option<&State>,
        stop: watch::Receiver<bool>,
        on: &mut (dyn FnMut(Event) + Send),
    ) -> Result<PlayedBoard, PlayError> {
        if self.words.is_none() {
            self.plan(&Trie::enable(), profile, how.order, state, on);
        }
        let words = self.words.take().unwrap_or_default();
        let opts = EnterOptions {
            route: how.route,
            deadline: self.deadline.into(),
            finish_word_on_stop: how.finish_word_on_stop,
            score_before: self.score_before.take(),
            score_at_start: self.seen.score,
            gap: state.and_then(|s| s.pace(profile.name())),
            on_screen: self.seen.on_screen().then_some(self.seen.board),
            end_known: matches!(self.end, End::Clock | End::Told),
        };
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
            words,
            left_out: self.left_out,
            not_kept,
        })
    }
}
