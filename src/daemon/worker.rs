//! One phone's worker: round after round, it waits for a board on the screen, reads it (a
//! board not read surely is never played: its screenshot is saved, and the round is skipped
//! unless the board becomes readable in it, as when a banner leaves it), solves it, enters the
//! words, and waits for the board to go before looking for the next.
//! A board counts as new when its letters or bonuses differ, or a screen of the game that is
//! not a board (results, lobby) was seen since the last one: a screen gone off or a lock
//! screen does not count, as the game goes on unseen behind it. With a profile that learned
//! the game's digits, every round ends when the game's clock says, read off the look that
//! showed the board, so a round already under way is played for the time it has left.
//! Without them, a board already showing when the worker starts (or first seen once the
//! screen is on and unlocked) is joined only when it is the round the worker was playing when
//! its phone went away (the clock is known then); otherwise the worker waits for the next
//! round, as it cannot know how much time is left.

use std::path::PathBuf;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::Event;
use super::history::{Ended, RoundRecord};
use crate::dict::Trie;
use crate::phone::{Lock, Phone, PhoneError};
use crate::play::look::{self, Look};
use crate::play::watcher::{Do, Patience, Watcher};
use crate::play::{self, Kept, PlannedWord, PlayError, Stop};
use crate::profile::{Profile, Route};
use crate::solve::Order;
use crate::vision::glyph::Classifier;
use crate::vision::grid::Grid;
use crate::vision::read::Reading;

/// Time between two looks while waiting.
const LOOK_EVERY: Duration = Duration::from_millis(250);
/// A Play/Next tap that brought no board is tried again after this long (the screen may not
/// have been ready for it).
const ADVANCE_AGAIN: Duration = Duration::from_secs(3);
/// How long a board may stay unsure before it is given up on (one mid-animation becomes
/// readable; one in a font the reader cannot read does not).
const UNSURE_PATIENCE: Duration = Duration::from_secs(2);
/// A board dimmed this long is more than a toast before the round ("Get ready!" lasts a few
/// seconds): the worker says so once, with the screen, and keeps waiting.
const DIMMED_PATIENCE: Duration = Duration::from_secs(10);

/// How a worker plays.
#[derive(Clone, Debug)]
pub struct WorkerOptions {
    pub order: Order,
    pub route: Option<Route>,
    /// Rounds to play on this phone; `None`: until stopped.
    pub rounds: Option<u32>,
    /// Where screenshots of boards not read surely go.
    pub unsure_dir: PathBuf,
    /// The most screenshots kept there: past it, the oldest the bot kept are removed, so a
    /// daemon left running for days does not fill the disk.
    pub keep_screens: usize,
    /// Where what the rounds learn of each game is kept (the words it refused, its pace);
    /// `None`: nothing is kept.
    pub state: Option<crate::state::State>,
}

/// What a phone's worker remembers across its restarts (the phone lost and back).
#[derive(Clone, Debug, Default)]
pub struct Memory {
    /// Rounds played (or skipped) on this phone.
    pub rounds: u32,
    /// The round being played when the phone went away.
    pub interrupted: Option<Interrupted>,
}

/// A round cut short by the phone going away.
#[derive(Clone, Debug)]
pub struct Interrupted {
    /// The round's board, and when it was first seen.
    pub seen: play::Seen,
    /// The words not entered yet, first the one whose stroke the phone's going cut (it may
    /// never have reached the game: entering it again costs a swipe, losing it its points).
    pub left: Vec<PlannedWord>,
    /// Words entered again so far in this round, as cut by a phone's going.
    pub entered_again: usize,
    /// When the round's clock ends, with what the Freezes tapped so far added to it.
    pub deadline: std::time::Instant,
}

/// A phone's worker: what it needs, and where it reports.
pub struct Worker<'a> {
    pub phone: &'a Phone,
    pub profile: &'a Profile,
    pub trie: &'a Trie,
    pub opts: &'a WorkerOptions,
    pub events: &'a tokio::sync::mpsc::UnboundedSender<Event>,
    pub stop: watch::Receiver<bool>,
    /// The last look, whose reading a still screen reuses.
    pub last: Option<Look>,
}

impl Worker<'_> {
    fn emit(&self, event: Event) {
        let _ = self.events.send(event);
    }

    fn serial(&self) -> String {
        self.phone.serial.clone()
    }

    fn stopped(&self) -> bool {
        *self.stop.borrow()
    }

    /// The reader with the templates the profile's file has now, when they can be read (a
    /// note says what was taken, or why not).
    fn reloaded_classifier(&self) -> Option<Classifier> {
        let path = self.profile.source()?;
        let (w, h) = self.profile.screen();
        let result = Profile::load(path)
            .and_then(|p| p.for_screen(w, h))
            .map_err(|e| e.to_string())
            .and_then(|p| {
                let letters = p.glyphs().map(|g| g.learned()).unwrap_or_default();
                play::classifier_for(Some(&p))
                    .map(|c| (c, letters))
                    .map_err(|e| e.to_string())
            });
        let text = match &result {
            Ok((_, letters)) => format!(
                "{}: the profile's glyphs changed; reading with them now (letters learned: {letters})",
                self.serial()
            ),
            Err(e) => format!(
                "{}: the profile changed but cannot be used, the glyphs it had are kept: {e}",
                self.serial()
            ),
        };
        self.emit(Event::Note { text });
        result.ok().map(|(c, _)| c)
    }

    /// Waits `d`, or less if stopped; false if stopped.
    async fn pause(&mut self, d: Duration) -> bool {
        let mut stop = self.stop.clone();
        let stopped = tokio::select! {
            _ = tokio::time::sleep(d) => false,
            _ = stop.wait_for(|s| *s) => true,
        };
        !stopped && !self.stopped()
    }

    /// Plays rounds until its rounds are done or it is stopped; an error when the phone goes.
    pub async fn run(&mut self, memory: &mut Memory) -> Result<(), PlayError> {
        let mut skipped = None;
        let result = self.rounds(memory, &mut skipped).await;
        // A board given up on as unsure when the worker ends is a round skipped.
        self.count_skipped(skipped, memory);
        result
    }

    /// Counts the round a board given up on skipped, if there is one.
    fn count_skipped(&self, skipped: Option<RoundRecord>, memory: &mut Memory) {
        if let Some(record) = skipped {
            memory.rounds += 1;
            self.emit(Event::RoundEnded {
                record: Box::new(record),
            });
        }
    }

    /// `run`'s loop, driving the watcher (`play::watcher`), which says what each look
    /// means; `skipped` is the round of a board given up on as unsure, until it is counted.
    async fn rounds(
        &mut self,
        memory: &mut Memory,
        skipped: &mut Option<RoundRecord>,
    ) -> Result<(), PlayError> {
        let grid = self.profile.grid();
        let mut classifier = play::classifier_for(Some(self.profile))?;
        // The game's digits: its clock then says when each round ends.
        let book = match play::digit_book_for(self.profile) {
            Ok(book) => book,
            Err(e) => {
                self.emit(Event::Note {
                    text: format!(
                        "{}: {e}: the game's clock and score are not read",
                        self.serial()
                    ),
                });
                None
            }
        };
        let mut stamp = profile_stamp(self.profile);
        let mut watcher = Watcher::new(Patience {
            unsure: UNSURE_PATIENCE,
            dimmed: DIMMED_PATIENCE,
            advance: self.profile.advance().map(|_| ADVANCE_AGAIN),
        });
        // Whether the screen has gone off or a lock screen covers the game.
        let mut sentry = look::Sentry::default();
        let done = |memory: &Memory| self.opts.rounds.is_some_and(|n| memory.rounds >= n);
        loop {
            if self.stopped() || done(memory) {
                return Ok(());
            }
            // Glyphs a person taught the profile meanwhile (`read --learn` on a screenshot
            // this daemon saved unsure) are used from the next look on.
            let now = profile_stamp(self.profile);
            if now != stamp {
                stamp = now;
                if let Some(taught) = self.reloaded_classifier() {
                    classifier = taught;
                    self.last = None;
                }
            }
            let started = Instant::now();
            let l = self.look(&grid, &classifier).await?;
            let (saw, sight) = look::saw(&mut sentry, self.phone, &l).await?;
            if let Some(sight) = &sight {
                self.say(sight);
            }
            let mut at_once = false;
            for answer in watcher.saw(started, &saw) {
                match answer {
                    Do::LookNow => at_once = true,
                    Do::Advance => self.advance().await?,
                    Do::SayDimmed(secs) => {
                        if let Ok(r) = &l.reading {
                            self.still_dimmed(&l, r, secs);
                        }
                    }
                    Do::GiveUp => *skipped = Some(self.skip_unsure(&l)),
                    Do::Skipped => self.count_skipped(skipped.take(), memory),
                    Do::ReadNow => {
                        *skipped = None;
                        self.emit(Event::Note {
                            text: format!(
                                "{}: the board is read surely now; playing the round",
                                self.serial()
                            ),
                        });
                    }
                    Do::SameRound => {
                        tracing::info!("{}: the board again: the same round", self.serial());
                    }
                    Do::Play {
                        board,
                        bonuses,
                        after,
                        behind,
                    } => {
                        if done(memory) {
                            return Ok(());
                        }
                        // The game's figures, read off this look: the round ends when its
                        // clock does, however late the round was joined.
                        let numbers = book
                            .as_ref()
                            .map(|b| play::numbers(&l.image, self.profile, b))
                            .unwrap_or_default();
                        let seen = play::Seen {
                            board,
                            bonuses,
                            source: play::BoardSource::Screen,
                            at: started.into_std(),
                            after: after.map(Instant::into_std),
                            behind,
                            clock: numbers.clock_secs.map(|s| (started.into_std(), s)),
                            score: numbers.score,
                        };
                        // A board whose start is unknown may be the round the phone's going
                        // cut short.
                        let resume = memory.interrupted.take().filter(|i| {
                            after.is_none() && (i.seen.board, i.seen.bonuses) == (board, bonuses)
                        });
                        let round = match resume {
                            Some(i) => self.resumed(i),
                            None => self.new_round(seen, &l.image),
                        };
                        self.play(round, memory).await?;
                        if self.stopped() || done(memory) {
                            return Ok(());
                        }
                        // The board stays until the round's results: waited out from here.
                        watcher.round_over(Instant::now());
                    }
                }
            }
            let next = started + LOOK_EVERY;
            if !at_once
                && !self
                    .pause(next.saturating_duration_since(Instant::now()))
                    .await
            {
                return Ok(());
            }
        }
    }

    /// Says what the sentry did: the screen turned on, a lock screen dismissed, or one
    /// that stays.
    fn say(&self, sight: &look::Sighting) {
        let serial = self.serial();
        if sight.roused.woke {
            self.emit(Event::Woke {
                serial: serial.clone(),
            });
        }
        if sight.roused.lock == Lock::Dismissed {
            self.emit(Event::Unlocked {
                serial: serial.clone(),
            });
        }
        if sight.newly_locked {
            self.emit(Event::Locked { serial });
        }
    }

    /// Taps the profile's Play/Next button, if it has one: only while no board shows (the
    /// caller's look said so), so it never lands on a round.
    async fn advance(&self) -> Result<(), PlayError> {
        let Some((x, y)) = self.profile.advance() else {
            return Ok(());
        };
        let (x, y) = (x.round() as i32, y.round() as i32);
        self.phone.shell(&format!("input tap {x} {y}")).await?;
        self.emit(Event::Advanced {
            serial: self.serial(),
        });
        Ok(())
    }

    /// Looks at the screen (reading it only when it changed since the last look).
    async fn look(&mut self, grid: &Grid, classifier: &Classifier) -> Result<Look, PlayError> {
        let l = look::look_again(self.phone, grid, classifier, self.last.as_ref()).await?;
        // Only what identifies the picture is kept, not the picture.
        self.last = Some(Look {
            began: l.began,
            image: image::RgbaImage::new(0, 0),
            reading: l.reading.clone(),
            capture: l.capture,
            read: l.read,
            fingerprint: l.fingerprint,
        });
        Ok(l)
    }

    /// `image`, saved beside the unsure boards' (`None` when it cannot be).
    fn save_screen(&self, image: &image::RgbaImage, why: Kept) -> Option<PathBuf> {
        let dir = &self.opts.unsure_dir;
        let saved = play::save_screenshot(image, dir, why, &self.phone.serial)
            .inspect_err(|e| tracing::warn!("cannot save a screenshot: {e}"))
            .ok()?;
        if let Err(e) = play::prune_screenshots(dir, self.opts.keep_screens) {
            tracing::warn!("cannot remove old screenshots in {}: {e}", dir.display());
        }
        Some(saved)
    }

    /// Says that the board of `l`, read as `r`, has stayed dimmed for `secs`.
    fn still_dimmed(&self, l: &Look, r: &Reading, secs: Duration) {
        let why = r.overlay().map_or_else(String::new, |o| o.to_string());
        self.emit(Event::StillDimmed {
            serial: self.serial(),
            why,
            secs: secs.as_secs(),
            screenshot: self.save_screen(&l.image, Kept::Dimmed),
        });
    }

    /// A board not read surely: never played. Its screenshot is saved and said; the record of
    /// the round skipped is returned, to be kept unless the round becomes readable.
    fn skip_unsure(&self, l: &Look) -> RoundRecord {
        let why = match &l.reading {
            Ok(r) => format!("not sure of {}", play::unsure_text(r)),
            Err(e) => e.to_string(),
        };
        let saved = self.save_screen(&l.image, Kept::Unsure);
        let board = l.reading.as_ref().map(|r| r.board().to_string());
        self.emit(Event::Skipped {
            serial: self.serial(),
            why,
            screenshot: saved.clone(),
        });
        RoundRecord {
            time: unix_now(),
            serial: self.serial(),
            profile: self.profile.name().to_owned(),
            board: board.unwrap_or_default(),
            bonuses: None,
            route: String::new(),
            words_entered: 0,
            words_planned: 0,
            points_claimed: 0,
            max_points: 0,
            first_touch_ms: None,
            duration_secs: 0.0,
            ended: Ended::Unsure,
            screenshot: saved,
            score_moved: None,
            words_entered_again: 0,
            points_seen: None,
            words_taken: None,
            words_not_taken: None,
            words_refused: None,
            words_unknown: None,
            clock_seen: None,
            score_looked: false,
        }
    }

    /// A new round on the board `seen` showed on `screen`. Its clock ends where the game's
    /// clock says, else a whole round from when the board came up; a board already showing
    /// when its clock cannot be read (joined late) is played until it leaves the screen.
    fn new_round(&self, seen: play::Seen, screen: &image::RgbaImage) -> play::Round {
        let whole = Duration::from_secs_f64(self.profile.rules().round_secs);
        let round = play::Round::new(seen, whole);
        if round.end == play::End::AtMost {
            self.emit(Event::JoinedLate {
                serial: self.serial(),
                board: round.seen.board.to_string(),
            });
        }
        if let Some(line) = round
            .clock_line(self.profile)
            .filter(|_| round.end != play::End::Clock)
        {
            self.emit(Event::Note {
                text: format!("{}: {line}", self.serial()),
            });
        }
        // The screen the board was read on holds the round's starting score. Copied
        // (megabytes) only for a profile that knows where the score is.
        match self.profile.score() {
            Some(_) => round.started_on(std::sync::Arc::new(screen.clone())),
            None => round,
        }
    }

    /// The rest of a round cut short by the phone going away (no screen of the round's
    /// start: the score is taken as the first words go in).
    fn resumed(&self, i: Interrupted) -> play::Round {
        self.emit(Event::Resumed {
            serial: self.serial(),
            board: i.seen.board.to_string(),
            words_left: i.left.len(),
        });
        play::Round::resumed(i.seen, i.deadline, i.left, i.entered_again)
    }

    /// Plays `round`; records it, or what is left of it when the phone goes.
    async fn play(&mut self, mut round: play::Round, memory: &mut Memory) -> Result<(), PlayError> {
        let serial = self.serial();
        let state = self.opts.state.as_ref();
        // What the round tells: its progress and its notes, as the daemon's events.
        let events = self.events.clone();
        let on = &mut |e: play::Event| {
            if let Some(event) = round_event(&serial, e) {
                let _ = events.send(event);
            }
        };
        let planned = round
            .plan(self.trie, self.profile, self.opts.order, state, on)
            .len();
        let seen = round.seen.clone();
        let (deadline, entered_again) = (round.deadline(), round.entered_again);
        let bonus_text = seen.bonus_text();
        self.emit(Event::RoundStarted {
            serial: serial.clone(),
            round: memory.rounds + 1,
            board: seen.board.to_string(),
            bonuses: bonus_text.clone(),
            words: planned,
        });
        let how = play::How {
            order: self.opts.order,
            route: self.opts.route,
            // SIGTERM finishes the stroke in progress, then lifts the finger.
            finish_word_on_stop: true,
        };
        let done = round
            .play(self.phone, self.profile, how, state, self.stop.clone(), on)
            .await?;
        if let Some(why) = &done.not_kept {
            self.emit(Event::Note {
                text: format!("{serial}: what the round learned is not kept: {why}"),
            });
        }
        let (played, words) = (&done.played, &done.words);
        let outcome = &played.outcome;
        if let Some(check) = played.score.as_ref().filter(|c| !c.moved) {
            let saved = self.save_screen(&check.screenshot, Kept::ScoreStill);
            self.emit(Event::ScoreStill {
                serial: serial.clone(),
                after_words: check.after_words,
                screenshot: saved,
            });
        }
        let ended = ended_by(outcome.stop);
        if ended == Ended::PhoneLost {
            let freeze_adds = Duration::from_secs_f64(self.profile.rules().freeze_secs);
            memory.interrupted = Some(Interrupted {
                left: words.iter().skip(outcome.words_entered).cloned().collect(),
                entered_again: entered_again + usize::from(outcome.word_cut),
                deadline: deadline + freeze_adds * outcome.freezes.len() as u32,
                seen: seen.clone(),
            });
        } else {
            memory.rounds += 1;
        }
        let record = self.record(&seen, bonus_text, &done, ended, entered_again);
        self.emit(Event::RoundEnded {
            record: Box::new(record),
        });
        match &outcome.error {
            Some(e) => Err(PlayError::Phone(PhoneError::Unexpected {
                asked: "the round".into(),
                answer: e.clone(),
            })),
            None => Ok(()),
        }
    }

    /// The history's record of a round played on `seen`: what was entered and what the game
    /// showed (`done`), how it `ended`, and the words entered twice (`entered_again` before
    /// a phone's loss, and after it by the game's score).
    fn record(
        &self,
        seen: &play::Seen,
        bonus_text: Option<String>,
        done: &play::PlayedBoard,
        ended: Ended,
        entered_again: usize,
    ) -> RoundRecord {
        let (played, words) = (&done.played, &done.words);
        let outcome = &played.outcome;
        let max_points = words.iter().map(|w| w.points).sum();
        RoundRecord {
            time: unix_now(),
            serial: self.serial(),
            profile: self.profile.name().to_owned(),
            board: seen.board.to_string(),
            bonuses: bonus_text,
            route: outcome.routes_text(),
            words_entered: outcome.words_entered,
            words_planned: outcome.words_planned,
            points_claimed: outcome.points_entered,
            max_points,
            first_touch_ms: played
                .first_touch
                .map(|t| t.saturating_duration_since(seen.at).as_secs_f64() * 1e3),
            duration_secs: outcome.elapsed_secs,
            ended,
            screenshot: None,
            score_moved: played.score.as_ref().map(|c| c.moved),
            // Cut by the phone's going, and entered again as the game's score said.
            words_entered_again: entered_again + outcome.words_entered_again,
            points_seen: played.points_seen,
            score_looked: played.score_looked,
            words_taken: played.judged.as_ref().map(|j| j.taken),
            words_not_taken: played.judged.as_ref().map(|j| j.not_taken.len()),
            words_refused: played.judged.as_ref().map(|j| j.refused.len()),
            words_unknown: played.judged.as_ref().map(|j| j.unknown),
            clock_seen: seen.clock.map(|(_, secs)| secs),
        }
    }
}

/// What the round tells (its progress, its notes) as the daemon's event for `serial`;
/// `None` for what the daemon does not pass on.
fn round_event(serial: &str, e: play::Event) -> Option<Event> {
    match e {
        play::Event::Progress(p) => Some(Event::Progress {
            serial: serial.to_owned(),
            entered: p.entered,
            planned: p.planned,
            points: p.points,
            points_seen: p.points_seen,
            left_secs: p.left.as_secs_f64(),
        }),
        play::Event::Note(n) => Some(Event::Note {
            text: format!("{serial}: {n}"),
        }),
        play::Event::Waiting { .. } => None,
    }
}

/// How a round that stopped for `stop` is recorded as having ended.
fn ended_by(stop: Stop) -> Ended {
    match stop {
        Stop::AllWords => Ended::AllWords,
        Stop::Clock => Ended::Clock,
        Stop::BoardGone => Ended::BoardGone,
        Stop::Stopped => Ended::Stopped,
        Stop::Failed => Ended::PhoneLost,
    }
}

/// When the profile's file was last written (`None` for a built-in profile): learning
/// rewrites it.
fn profile_stamp(profile: &Profile) -> Option<std::time::SystemTime> {
    std::fs::metadata(profile.source()?).ok()?.modified().ok()
}

/// Seconds since the Unix epoch.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
