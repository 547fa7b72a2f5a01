//! What the looks at a phone mean for its rounds, as one pure state machine: fed when each
//! look began and what it saw (`Saw`), it answers what to do (`Do`): look again at once, tap
//! Play/Next, say a board stays dimmed, give up on a board not read surely, play a round from
//! a known start, or nothing. `play --watch` and the daemon's worker are drivers around it:
//! they take the screenshots, ask the sentry about dark and locked screens, and act on the
//! answers; every rule of what a screen means lives here once, and is tested with times.
//!
//! The rules:
//! - A board's round began after the last look that showed the game without that board (a
//!   results screen, a lobby, a dimmed board, another board): that look's start is the
//!   round's earliest start (`Do::Play::after`). A look at a black or locked screen shows no
//!   game: the game goes on behind it, and a round may start there unseen (`behind`).
//! - A board at the first look that showed the game has no known start (`after` is `None`).
//! - A board read unsurely is never played; past `patience.unsure` it is given up on
//!   (`Do::GiveUp`); its round counts as skipped (`Do::Skipped`) once another screen, or
//!   another board, follows, and is played after all if the board becomes readable
//!   (`Do::ReadNow`, then `Do::Play`).
//! - A board, once played, is waited out: the same board again, with only a dark or locked
//!   screen between, is the same round (`Do::SameRound`), not a new one.

use std::time::Duration;

use tokio::time::Instant;

use crate::board::Board;
use crate::score::Bonuses;
use crate::vision::read::{Reading, SureTiles};

/// What one look saw, as the watcher takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Saw {
    /// No game in sight: the screen black (gone off), or a lock screen over the game.
    /// `roused`: the screen was just turned on or a lock dismissed, so a look at once shows
    /// what is behind.
    Hidden { roused: bool },
    /// A screen of the game without a board (results, lobby, a menu).
    NoBoard,
    /// A board dimmed under an overlay ("Get ready!"): not in play yet.
    Dimmed(SureTiles),
    /// A board not read surely.
    Unsure(SureTiles),
    /// A board read surely, in play.
    Sure(Board, Bonuses),
}

impl Saw {
    /// What a reading shows (a screen without a board, and a hidden one, are the caller's to
    /// tell from the sentry).
    pub fn reading(r: &Reading) -> Saw {
        if r.dimmed() {
            Saw::Dimmed(r.sure_tiles())
        } else if r.sure() {
            Saw::Sure(r.board(), r.bonuses())
        } else {
            Saw::Unsure(r.sure_tiles())
        }
    }
}

/// What to do after a look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Do {
    /// Look again at once (the screen was just turned on or unlocked).
    LookNow,
    /// Tap Play/Next: the game shows no board, and was not tapped lately.
    Advance,
    /// The board has stayed dimmed this long: more than a toast before the round. Said once.
    SayDimmed(Duration),
    /// The board has stayed unsure past patience: it is not played. Its screenshot is for a
    /// person; its round counts as skipped once `Skipped` follows.
    GiveUp,
    /// The round given up on is over (another screen or board came) without its board
    /// becoming readable: count it as skipped.
    Skipped,
    /// The board given up on is read surely now (what covered it left): its round is
    /// played after all (a `Play` follows).
    ReadNow,
    /// Play a round on this board. It came up after `after` (the start of the last look
    /// that showed the game without it); `None`: the first look at the game showed it, and
    /// when it came up is not known. `behind`: the screen was dark or locked since that look,
    /// so the board came up out of sight.
    Play {
        board: Board,
        bonuses: Bonuses,
        after: Option<Instant>,
        behind: bool,
    },
    /// The board last played, back after a dark or locked screen: the same round, its clock
    /// long counted. Not played again.
    SameRound,
}

/// How long the watcher waits on a screen before it acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Patience {
    /// A board unsure this long is given up on (one mid-animation becomes readable; one in
    /// a typeface the reader cannot read does not).
    pub unsure: Duration,
    /// A board dimmed this long is said (a "Get ready!" lasts a few seconds).
    pub dimmed: Duration,
    /// Play/Next tapped this long ago without a board coming up is tapped again; `None`:
    /// never tapped (the driver has no button, or must not touch).
    pub advance: Option<Duration>,
}

impl Default for Patience {
    fn default() -> Patience {
        Patience {
            unsure: Duration::from_secs(2),
            dimmed: Duration::from_secs(10),
            advance: Some(Duration::from_secs(3)),
        }
    }
}

/// A spell of looks at a board not read surely.
#[derive(Clone, Debug)]
struct Spell {
    /// When its first look began.
    since: Instant,
    /// When its latest look began: a board that differs from it came up after.
    last: Instant,
    /// What its latest look read surely.
    tiles: SureTiles,
    /// Whether it was given up on (`Do::GiveUp` answered).
    given_up: bool,
}

/// Where the watcher is.
#[derive(Clone, Debug)]
enum State {
    /// Looking for a board to play.
    Looking,
    /// A board was played (or joined, or found the same round): waiting for it to go.
    /// `previous`: when the last look that showed it began.
    OnBoard {
        board: (Board, Bonuses),
        previous: Instant,
    },
}

/// The state machine: see the module's rules.
#[derive(Clone, Debug)]
pub struct Watcher {
    patience: Patience,
    state: State,
    /// The start of the last look that showed the game without the board now looked for.
    before: Option<Instant>,
    /// A look at a dark or locked screen came since `before`.
    behind: bool,
    /// The board last played, and whether a screen of the game without it came since.
    last_board: Option<(Board, Bonuses)>,
    other_screen_since: bool,
    spell: Option<Spell>,
    /// Since when the board has been dimmed, and whether that was said.
    dimmed_since: Option<(Instant, bool)>,
    /// When Play/Next was last tapped since the last board.
    advanced: Option<Instant>,
}

impl Watcher {
    pub fn new(patience: Patience) -> Watcher {
        Watcher {
            patience,
            state: State::Looking,
            before: None,
            behind: false,
            last_board: None,
            other_screen_since: false,
            spell: None,
            dimmed_since: None,
            advanced: None,
        }
    }

    /// The round given up on and not yet counted, if any: when the driver stops, it is a
    /// round skipped.
    pub fn given_up(&self) -> bool {
        self.spell.as_ref().is_some_and(|s| s.given_up)
    }

    /// The round answered with `Play` is over at `now`: the board is waited out from here.
    pub fn round_over(&mut self, now: Instant) {
        if let State::OnBoard { previous, .. } = &mut self.state {
            *previous = now;
        }
    }

    /// A look that began at `t` saw `saw`: what to do, in order.
    pub fn saw(&mut self, t: Instant, saw: &Saw) -> Vec<Do> {
        if let State::OnBoard { board, previous } = &self.state {
            let (board, previous) = (*board, *previous);
            let gone = match saw {
                Saw::Sure(b, bonuses) => (b, bonuses) != (&board.0, &board.1),
                Saw::Unsure(tiles) | Saw::Dimmed(tiles) => {
                    tiles.agree_with(&board.0) == Some(false)
                }
                // A dark or locked screen hides when the board went: the same board back
                // after it is told by `SameRound`.
                Saw::NoBoard | Saw::Hidden { .. } => true,
            };
            if !gone {
                self.state = State::OnBoard { board, previous: t };
                return Vec::new();
            }
            // The board went after the last look that showed it: what came next came up
            // after that look.
            self.state = State::Looking;
            self.before = Some(previous);
            self.behind = false;
        }
        self.looking(t, saw)
    }

    fn looking(&mut self, t: Instant, saw: &Saw) -> Vec<Do> {
        let mut out = Vec::new();
        if !matches!(saw, Saw::Dimmed(_)) {
            self.dimmed_since = None;
        }
        match saw {
            Saw::Hidden { roused } => {
                self.behind = true;
                if *roused {
                    out.push(Do::LookNow);
                }
            }
            Saw::NoBoard => {
                self.end_spell(&mut out);
                self.game_without_board(t);
                if let Some(again) = self.patience.advance
                    && self
                        .advanced
                        .is_none_or(|a| t.saturating_duration_since(a) >= again)
                {
                    self.advanced = Some(t);
                    out.push(Do::Advance);
                }
            }
            Saw::Dimmed(_) => {
                self.end_spell(&mut out);
                self.game_without_board(t);
                let (since, said) = self.dimmed_since.get_or_insert((t, false));
                let dimmed = t.saturating_duration_since(*since);
                if !*said && dimmed >= self.patience.dimmed {
                    *said = true;
                    out.push(Do::SayDimmed(dimmed));
                }
            }
            Saw::Unsure(tiles) => {
                let s = self.spell.get_or_insert_with(|| Spell {
                    since: t,
                    last: t,
                    tiles: tiles.clone(),
                    given_up: false,
                });
                s.last = t;
                s.tiles = tiles.clone();
                if !s.given_up && t.saturating_duration_since(s.since) >= self.patience.unsure {
                    s.given_up = true;
                    out.push(Do::GiveUp);
                }
            }
            Saw::Sure(board, bonuses) => {
                self.advanced = None;
                if let Some(s) = self.spell.take() {
                    if s.tiles.agree_with(board) == Some(false) {
                        // Another board than the spell's: it came up after the spell's
                        // last look, and the spell's round is over.
                        self.before = Some(s.last);
                        self.behind = false;
                        self.other_screen_since = true;
                        if s.given_up {
                            out.push(Do::Skipped);
                        }
                    } else if s.given_up {
                        out.push(Do::ReadNow);
                    }
                }
                let b = (*board, *bonuses);
                let again = !self.other_screen_since && self.last_board.as_ref() == Some(&b);
                out.push(if again {
                    Do::SameRound
                } else {
                    Do::Play {
                        board: *board,
                        bonuses: *bonuses,
                        after: self.before,
                        behind: self.behind,
                    }
                });
                self.last_board = Some(b);
                self.other_screen_since = false;
                self.state = State::OnBoard {
                    board: b,
                    previous: t,
                };
            }
        }
        out
    }

    /// A look at `t` showed the game without a board to play.
    fn game_without_board(&mut self, t: Instant) {
        self.before = Some(t);
        self.behind = false;
        self.other_screen_since = true;
    }

    /// The spell under way ends: its round is counted if it was given up on.
    fn end_spell(&mut self, out: &mut Vec<Do>) {
        if self.spell.take().is_some_and(|s| s.given_up) {
            out.push(Do::Skipped);
        }
    }
}

#[cfg(test)]
#[path = "watcher_tests.rs"]
mod tests;
