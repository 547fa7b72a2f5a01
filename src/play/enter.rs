//! Entering a round's words on a phone (`enter`): the input route opened, the words entered
//! by the round loop (`play_round`) while the screen is looked at on a connection of its own.
//! Every look checks that the round's board still shows (its grid where the profile says, its
//! letters as read): the first that does not find it ends the round at once, whatever any
//! clock says, so no stroke lands on a results screen or a dialog for long. With the game's
//! digits, the looks also read its score (pacing the words to what the game takes, then
//! telling which words it took) and its clock (the round is played to it).

use std::time::Duration;

use image::RgbaImage;
use tokio::sync::watch;

use super::{
    Entry, Injector, Plan, PlannedWord, PlayError, RoundOutcome, RoundSettings, Stop,
    digit_book_for, look, numbers, pacing, play_round, schedule, taken,
};
use super::{Event, Progress};
use crate::board::Board;
use crate::phone::Phone;
use crate::profile::{Profile, Route, ScreenBox};
use crate::vision::digits::DigitBook;
use crate::vision::glyph::Classifier;
use crate::vision::grid::Grid;

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
    /// The board as the screen showed it: every look while entering checks that it still
    /// shows, and the round ends at the first that does not find it. `None` for a board
    /// typed and never seen on the screen (nothing to check it against).
    pub on_screen: Option<Board>,
    /// The deadline is the game's own (its clock read, or told): the board is then looked
    /// for every `KNOWN_END_LOOK_EVERY` only (the score, when read, still every look), as it
    /// leaves before the deadline only for a dialog. Otherwise the board leaving is the
    /// round's end, and every look looks for it.
    pub end_known: bool,
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
    /// Whether the looks tried to read the score (the profile knows its box and the game's
    /// digits): with no `points_seen`, it was never read surely.
    pub score_looked: bool,
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
        Ok(book) => book,
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
    // Looks at the screen while the words go in, on connections of their own: the board
    // still there, and the score (pacing the words to what the game takes).
    let board = match opts.on_screen {
        Some(board) => Some(std::sync::Arc::new((
            board,
            profile.grid(),
            super::classifier_for(Some(profile))?,
        ))),
        None => None,
    };
    let mut watch = (book.is_some() || board.is_some()).then(|| RoundWatch {
        phone,
        profile,
        book: book.as_ref(),
        board,
        start,
        clock: settings.clock.clone(),
        seen: seen_tx,
        base: opts.score_at_start,
        base_sure: opts.score_at_start.is_some(),
        looks: Vec::new(),
        every: if book.is_some() || !opts.end_known {
            PACE_LOOK_EVERY
        } else {
            KNOWN_END_LOOK_EVERY
        },
        board_every: if opts.end_known {
            KNOWN_END_LOOK_EVERY
        } else {
            Duration::ZERO
        },
        board_checked: None,
    });
    let mut pacing = pacing::Pacing::new(settings.gap.get());
    let pace = async {
        if let Some(w) = watch.as_mut() {
            let pacing = w.scores().then_some((&mut pacing, &settings.gap));
            w.run(done, &log, pacing).await;
        }
    };
    let (outcome, score, ()) = tokio::join!(round, check, pace);
    let mut outcome = outcome;
    let first_pass = log.lock().map_or(0, |l| l.len());
    // What the game took of the first pass, from a look once its last word had settled.
    let suspects = match watch.as_mut().filter(|w| w.scores()) {
        Some(w) if outcome.stop == Stop::AllWords => w.suspects(&log, &pacing, &plan).await,
        _ => Vec::new(),
    };
    // The words the score said went untaken, entered again while the clock allows, unhurried
    // and told apart by the looks, so that one still not taken is known refused.
    if let Some(w) = watch.as_mut().filter(|_| !suspects.is_empty()) {
        let freezes = outcome.freezes.len() as u32;
        let again = plan.only(&suspects, deadline + settings.freeze_adds * freezes);
        let pauses = AgainPauses::new(settings.gap.get(), w.look_every(), &again.words);
        let later = settings_after(&settings, &outcome, start.elapsed(), pauses.calm);
        let gap = later.gap.clone();
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
                gap.set(pauses.after(p.entered - 1));
            })
            .await;
            let _ = done_tx.send(true);
            r
        };
        // Looks for the verdicts only: the pace is not learned from words spaced for judging.
        let (second, ()) = tokio::join!(second, w.run(done, &log, None));
        add_again(&mut outcome, second, start.elapsed());
    }
    outcome.gap_ms = settings.gap.get().as_secs_f64() * 1e3;
    let first_touch = injector.first_touch().map(|t| t.into_std());
    injector.finish().await;
    // The game draws its score a few frames after the last word: a last look then is what
    // it showed, and settles every word for the verdicts.
    let score_looked = watch.as_ref().is_some_and(|w| w.scores());
    let (points_seen, judged) = match watch.as_mut().filter(|w| w.scores()) {
        Some(w) => w.verdict(&log, words, first_pass).await,
        None => (None, None),
    };
    Ok(Played {
        outcome,
        first_touch,
        score,
        points_seen,
        score_looked,
        judged,
    })
}

/// The settings for the words entered again after the first pass (`outcome`), `elapsed`
/// into the round, each followed by `pause` at least: the round goes on, its clock (and what
/// its Freezes added), its Freezes where they fall due, those left to use.
fn settings_after(
    settings: &RoundSettings,
    outcome: &RoundOutcome,
    elapsed: Duration,
    pause: Duration,
) -> RoundSettings {
    let mut later = settings.clone();
    let freezes = outcome.freezes.len() as u32;
    // The schedule's round time, never before the last Freeze's (which it stops).
    later.last_freeze = outcome.freezes.last().map(|&t| Duration::from_secs_f64(t));
    later.round_time_before = elapsed
        .saturating_sub(later.freeze_adds * freezes)
        .max(later.last_freeze.unwrap_or_default());
    later.freeze_uses = later.freeze_uses.map(|n| n.saturating_sub(freezes));
    later.gap = pacing::Gap::new(pause);
    later
}

/// The round's outcome with the words entered again (`second`) added, `elapsed` into it.
fn add_again(outcome: &mut RoundOutcome, second: RoundOutcome, elapsed: Duration) {
    outcome.words_entered += second.words_entered;
    outcome.words_entered_again = second.words_entered;
    outcome.freezes.extend(&second.freezes);
    outcome.elapsed_secs = elapsed.as_secs_f64();
    if second.stop != Stop::AllWords {
        outcome.stop = second.stop;
        outcome.error = second.error;
    }
}

/// Looks at the screen while a round's words go in: that the board still shows (the round
/// is over at the first look that does not find it), and with the game's digits each look's
/// score and times, for pacing and for the verdicts on which words the game took.
struct RoundWatch<'a> {
    phone: &'a Phone,
    profile: &'a Profile,
    /// The game's digits, when the profile learned them.
    book: Option<&'a DigitBook>,
    /// The board as the screen showed it, with the grid and the reader to find it again.
    board: Option<std::sync::Arc<(Board, Grid, Classifier)>>,
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
    /// Time between a look's end and the next one's start.
    every: Duration,
    /// Least time between two looks that check the board still shows (a read of the grid,
    /// tens of milliseconds of CPU), and when the last one began.
    board_every: Duration,
    board_checked: Option<tokio::time::Instant>,
}

impl RoundWatch<'_> {
    /// One look: whether the board still shows (when it does not, the round is over), and
    /// the points gained since the round began, when the score was read surely (a toast over
    /// it, a frame mid-draw are passed over).
    async fn look(&mut self, log: &std::sync::Mutex<Vec<pacing::Entered>>) -> Option<u32> {
        let taps = self.clock.taps();
        let at = tokio::time::Instant::now();
        // The frame was taken before its first bytes came: what it shows was on the screen
        // between the look's start and then (the rest of the bytes tell nothing of when).
        let (img, done) = self.phone.screenshot_timed().await.ok()?;
        let (began, ended) = (at - self.start, done - self.start);
        let (img, shows) = self.board_shows(img).await;
        if !shows {
            self.clock.over();
            return None;
        }
        let shown = self
            .book
            .map(|book| numbers(&img, self.profile, book))
            .unwrap_or_default();
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

    /// The words of the first pass (`log`) the score says the game did not take, from a look
    /// once the last had settled; the pacing's own suspects when no account fits the looks.
    async fn suspects(
        &mut self,
        log: &std::sync::Mutex<Vec<pacing::Entered>>,
        pacing: &pacing::Pacing,
        plan: &Plan,
    ) -> Vec<usize> {
        tokio::time::sleep(pacing::SETTLE).await;
        self.look(log).await;
        let log = log.lock().map(|l| l.clone()).unwrap_or_default();
        let suspects: Vec<usize> = match self.judge(&log) {
            Some(v) => log
                .iter()
                .zip(v)
                .filter(|(_, v)| *v != taken::Taken::Yes)
                .map(|(e, _)| e.word)
                .collect(),
            None => pacing.suspects.clone(),
        };
        taken::apart_by_points(&suspects, |i| plan.words.get(i).map_or(0, |w| w.points))
    }

    /// What the game showed once the round's `words` were in (`log`, its first `first_pass`
    /// entries the first pass): the score at the last look that read it (a look now, a few
    /// frames after the last word, settles it; a round the clock ended shows its results by
    /// now), and which words it took.
    async fn verdict(
        &mut self,
        log: &std::sync::Mutex<Vec<pacing::Entered>>,
        words: &[PlannedWord],
        first_pass: usize,
    ) -> (Option<u32>, Option<Judged>) {
        tokio::time::sleep(pacing::SETTLE).await;
        self.look(log).await;
        let points_seen = self.looks.last().and_then(|l| Some(self.base? + l.score));
        let log = log.lock().map(|l| l.clone()).unwrap_or_default();
        tracing::trace!(
            "words acknowledged {log:?}; looks at the score {:?}",
            self.looks
        );
        let judged = self.judge(&log).map(|v| {
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

    /// Whether the looks read the game's score: the profile knows its digits and its box.
    fn scores(&self) -> bool {
        self.book.is_some() && self.profile.score().is_some()
    }

    /// Whether the round's board still shows on `img` (taken as showing when there is no
    /// board to look for, or it was looked for within `board_every`), read off the runtime's
    /// threads; the picture is given back.
    async fn board_shows(&mut self, img: RgbaImage) -> (RgbaImage, bool) {
        let Some(find) = self.board.clone() else {
            return (img, true);
        };
        let now = tokio::time::Instant::now();
        if self
            .board_checked
            .is_some_and(|t| now < t + self.board_every)
        {
            return (img, true);
        }
        self.board_checked = Some(now);
        let read = tokio::task::spawn_blocking(move || {
            let (board, grid, classifier) = &*find;
            let reading = crate::vision::read::read(&img, Some(grid), classifier);
            let shows = look::board_shows(&reading, board);
            (img, shows)
        });
        // A reader that failed says nothing of the screen: taken as still showing.
        match read.await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!("reading a look at the round failed: {e}");
                (RgbaImage::new(0, 0), true)
            }
        }
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
                // The game's pace, from what it took: found within the first words.
                if p.wants_bounds(log.len()) && self.base_sure {
                    let bounds = super::accept::bounds(&log, &self.looks);
                    let (pause, probe) = p.fit(bounds, log.len());
                    gap.set(pause);
                    if let Some(probe) = probe {
                        gap.probe(probe, pacing::PROBE_WORDS);
                    }
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(self.every) => {}
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

    /// The usual time from one look's start to the next's (their median).
    fn look_every(&self) -> Duration {
        let mut t: Vec<Duration> = self
            .looks
            .windows(2)
            .map(|l| l[1].began.saturating_sub(l[0].began))
            .collect();
        t.sort();
        t.get(t.len() / 2)
            .copied()
            .unwrap_or(Duration::from_millis(100))
    }
}

/// The pauses after words entered again: at the pace learned, a little slower (each look
/// tells the words apart by their points, which their order sets apart), and after a word
/// whose next has its points (too many share a value to set apart), long enough for a look
/// of its own.
struct AgainPauses {
    calm: Duration,
    alone: Duration,
    points: Vec<u32>,
}

impl AgainPauses {
    fn new(kept: Duration, look_every: Duration, words: &[PlannedWord]) -> AgainPauses {
        let calm = kept + (kept / 10).max(AGAIN_MARGIN);
        AgainPauses {
            calm,
            alone: calm.max(pacing::SETTLE + look_every * 2),
            points: words.iter().map(|w| w.points).collect(),
        }
    }

    /// The pause after the `k`th word.
    fn after(&self, k: usize) -> Duration {
        match (self.points.get(k), self.points.get(k + 1)) {
            (Some(a), Some(b)) if a == b => self.alone,
            _ => self.calm,
        }
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
/// Time between two looks for the board alone, when the round's end is known otherwise: each
/// look is a screenshot and a read of the grid (tens of milliseconds of CPU each).
const KNOWN_END_LOOK_EVERY: Duration = Duration::from_millis(500);
/// What words entered again add to the pause learned (or a tenth of it, if more):
/// unhurried, so that a word the game does not take then is one it refuses.
const AGAIN_MARGIN: Duration = Duration::from_millis(10);
