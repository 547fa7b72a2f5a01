//! A round on a phone: the words in order, each entered once as one paced swipe, Freeze tapped
//! every N seconds of round time (between words, never mid-swipe), until every word is in, the
//! round clock (its length plus the freezes' extensions) runs out, or the caller stops it.
//! When to freeze and whether a word fits is the pure `Schedule`'s call; this loop only keeps
//! the time and talks to an `Entry` (the phone's input routes, or a recorder in tests).

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::schedule::{Pace, RoundSettings, Schedule};
use crate::gesture::{self, Gesture};
use crate::phone::PhoneError;
use crate::profile::Profile;
use crate::solve::Solution;

/// Time kept free at the end of the clock: a touch reaches the game a little after it is sent
/// (through the adb server, more under load), and the virtual phones' referee saw the last
/// sample of a word land 0.5 ms after the clock with none kept, and one land on the results
/// screen with 150 ms kept (two phones played by one daemon while the whole test suite ran
/// on two cores).
const END_MARGIN: Duration = Duration::from_millis(300);

/// One word to enter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedWord {
    pub text: String,
    pub points: u32,
    /// Row-major tile indices of its path.
    pub cells: Vec<usize>,
}

/// The words of a solution in its order, with their paths as tile indices.
pub fn plan(solution: &Solution) -> Vec<PlannedWord> {
    let side = solution.board().side();
    solution
        .words()
        .map(|w| PlannedWord {
            text: w.text(),
            points: w.points(),
            cells: w.path().iter().map(|p| p.row() * side + p.col()).collect(),
        })
        .collect()
}

/// Why the round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    AllWords,
    Clock,
    Stopped,
    /// The phone failed (gone, or refusing): see `RoundOutcome::error`.
    Failed,
    /// A look no longer found the round's board on the screen (the results screen, a
    /// dialog): the round is over, whatever the clock said.
    BoardGone,
}

impl Stop {
    /// As a person reads it in a summary.
    pub fn text(self) -> &'static str {
        match self {
            Stop::AllWords => "every word entered",
            Stop::Clock => "the clock ran out",
            Stop::Stopped => "stopped by the user",
            Stop::Failed => "the phone failed",
            Stop::BoardGone => "the board left the screen",
        }
    }
}

/// A route and the first word it entered.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RouteUse {
    pub route: String,
    pub from_word: usize,
}

/// What the bot did.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoundOutcome {
    pub words_planned: usize,
    pub words_entered: usize,
    /// Points of the entered words, as the solver scored them.
    pub points_entered: u32,
    /// Round time (the game clock's, which a freeze stops) of each Freeze tap, in seconds.
    pub freezes: Vec<f64>,
    pub elapsed_secs: f64,
    pub stop: Stop,
    /// The routes used, with the first word each entered (auto can hand over mid-round).
    pub routes: Vec<RouteUse>,
    /// Why the phone failed, when `stop` is `Failed`.
    pub error: Option<String>,
    /// The phone failed during a word's stroke (`stop` is `Failed`): that word, the one after
    /// the last entered, may never have reached the game.
    #[serde(default)]
    pub word_cut: bool,
    /// Words entered a second time in the round because the game's score said some of
    /// their kind went untaken (pacing to the game); counted in `words_entered` too.
    #[serde(default)]
    pub words_entered_again: usize,
    /// The pause between words that pacing to the game's score ended the round at, in ms.
    #[serde(default)]
    pub gap_ms: f64,
}

impl RoundOutcome {
    /// The routes as a person reads them: "monkey", "sendevent, monkey from word 9".
    pub fn routes_text(&self) -> String {
        self.routes
            .iter()
            .map(|r| match r.from_word {
                0 => r.route.clone(),
                n => format!("{} from word {}", r.route, n + 1),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Progress after each word.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    pub entered: usize,
    pub planned: usize,
    pub points: u32,
    /// Time left on the round's clock.
    pub left: Duration,
    /// How long the word's stroke took to send: it began that long before this progress.
    pub stroke: Duration,
    /// The game's score at the latest look that read it (while pacing to it).
    pub points_seen: Option<u32>,
}

/// Where gestures go: the phone's input routes (`Injector`), or anything that takes a gesture
/// the same way.
#[allow(async_fn_in_trait)] // implemented and called with concrete types only
pub trait Entry {
    /// Whether words are entered as taps (one gesture per tile) rather than one swipe.
    fn taps(&self) -> bool;
    /// Between two words; `next_word` is the index of the word about to be entered.
    async fn between_words(&mut self, next_word: usize);
    /// Sends one gesture, paced by `sample`; false if `stop` cut it short (finger lifted).
    async fn gesture(
        &mut self,
        g: &Gesture,
        sample: Duration,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<bool, PhoneError>;
    /// Each route used so far, with the first word it entered.
    fn routes(&self) -> Vec<RouteUse>;
}

/// A round ready to enter: the words in order with their gestures (built and fence-checked
/// before the first touch), the Freeze button's, and when the round's clock ends.
#[derive(Clone, Debug)]
pub struct Plan {
    pub words: Vec<PlannedWord>,
    /// Each word's gestures: one swipe, or one tap per tile.
    gestures: Vec<Vec<Gesture>>,
    /// `None` on a game without lifelines.
    freeze: Option<Gesture>,
    /// When the round's clock ends, before any Freeze: one instant, fixed from the moment
    /// the round's start is known (the look that read the game's clock, the last look
    /// before the board showed), never made again from a time left.
    pub deadline: Instant,
}

impl Plan {
    /// `words` on `profile`'s screen, as swipes (with `taps`, one tap per tile), to be in
    /// before `deadline`.
    pub fn new(
        profile: &Profile,
        words: Vec<PlannedWord>,
        taps: bool,
        deadline: Instant,
    ) -> Result<Plan, gesture::GestureError> {
        let gestures = words
            .iter()
            .map(|w| {
                if taps {
                    gesture::taps(profile, &w.cells)
                } else {
                    gesture::swipe(profile, &w.cells).map(|g| vec![g])
                }
            })
            .collect::<Result<_, _>>()?;
        let freeze = match profile.freeze() {
            Some(_) => Some(gesture::button(profile, "freeze")?),
            None => None,
        };
        Ok(Plan {
            words,
            gestures,
            freeze,
            deadline,
        })
    }

    /// The words at `indices` (out of range ones left out), to be in before `deadline`.
    pub fn only(&self, indices: &[usize], deadline: Instant) -> Plan {
        let (words, gestures) = indices
            .iter()
            .filter_map(|&i| Some((self.words.get(i)?.clone(), self.gestures.get(i)?.clone())))
            .unzip();
        Plan {
            words,
            gestures,
            freeze: self.freeze.clone(),
            deadline,
        }
    }
}

/// Ends a task when dropped.
struct Aborting(tokio::task::JoinHandle<()>);

impl Drop for Aborting {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Waits until `rx` turns true; forever when its sender is gone without it.
async fn turned(mut rx: watch::Receiver<bool>) {
    if rx.wait_for(|v| *v).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// A signal that turns true when the round's board leaves the screen (`over`), or when
/// `stop` does unless `finish_word` (then a stop waits for the word in hand): what cuts a
/// word mid-stroke. Ends with the returned guard.
fn cut_signal(
    over: &watch::Receiver<bool>,
    stop: &watch::Receiver<bool>,
    finish_word: bool,
) -> (watch::Receiver<bool>, Aborting) {
    let (tx, rx) = watch::channel(*over.borrow() || (!finish_word && *stop.borrow()));
    let (over, stop) = (over.clone(), stop.clone());
    let task = tokio::spawn(async move {
        tokio::select! {
            () = turned(over) => {}
            () = turned(stop), if !finish_word => {}
        }
        let _ = tx.send(true);
    });
    (rx, Aborting(task))
}

/// Plays a round's plan. `stop` turning true ends it between two samples. A phone failing
/// mid-round ends it too (`Stop::Failed`), with what was entered until then; a look finding
/// the board gone (`settings.clock`'s `over`) ends it at once, mid-stroke too
/// (`Stop::BoardGone`).
pub async fn play_round(
    entry: &mut impl Entry,
    plan: &Plan,
    settings: &RoundSettings,
    mut stop: watch::Receiver<bool>,
    progress: &mut (dyn FnMut(Progress) + Send),
) -> RoundOutcome {
    let (words, gestures, freeze) = (&plan.words, &plan.gestures, &plan.freeze);
    let freeze_taps = freeze.as_ref().map_or(1, |f| f.touches.len() as u32);
    let start = Instant::now();
    let mut schedule = Schedule::started(settings.clone(), start, plan.deadline);
    let mut outcome = RoundOutcome {
        words_planned: words.len(),
        words_entered: 0,
        points_entered: 0,
        freezes: Vec::new(),
        elapsed_secs: 0.0,
        stop: Stop::AllWords,
        routes: Vec::new(),
        error: None,
        word_cut: false,
        words_entered_again: 0,
        gap_ms: 0.0,
    };
    let mut pace = Pace::default();
    let mut over = settings.clock.on_over();
    // What cuts a word mid-stroke: the board gone, or a stop unless words are finished.
    let (mut cut, _cutting) = cut_signal(&over, &stop, settings.finish_word_on_stop);
    for (i, (word, g)) in words.iter().zip(gestures).enumerate() {
        entry.between_words(i).await;
        if *over.borrow_and_update() {
            outcome.stop = Stop::BoardGone;
            break;
        }
        if *stop.borrow_and_update() {
            outcome.stop = Stop::Stopped;
            break;
        }
        let tap = pace.estimate(freeze_taps, settings.sample) + END_MARGIN;
        if let (Some(round_time), Some(freeze)) =
            (schedule.freeze_due(start.elapsed(), tap), freeze)
        {
            if let Err(e) = entry.gesture(freeze, settings.sample, &mut cut).await {
                outcome.stop = Stop::Failed;
                outcome.error = Some(e.to_string());
                break;
            }
            schedule.froze(round_time);
        }
        // How long the word takes is judged by how long samples have taken so far on this
        // route, with a margin.
        let samples: u32 = g.iter().map(|part| part.touches.len() as u32).sum();
        let takes = pace.estimate(samples, settings.sample) + END_MARGIN;
        if !schedule.fits(start.elapsed(), takes) {
            // The clock is about to end; a Freeze that falls due before it does is waited
            // for, and the word tried again on the longer clock.
            let Some(at) = schedule.next_freeze_at(tap) else {
                outcome.stop = Stop::Clock;
                break;
            };
            let due = tokio::select! {
                _ = tokio::time::sleep_until(start + at) => None,
                () = turned(stop.clone()) => Some(Stop::Stopped),
                () = turned(over.clone()) => Some(Stop::BoardGone),
            };
            let round_time = schedule.freeze_due(start.elapsed(), tap);
            let (None, Some(round_time), Some(freeze)) = (due, round_time, freeze) else {
                outcome.stop = due.unwrap_or(Stop::Clock);
                break;
            };
            if let Err(e) = entry.gesture(freeze, settings.sample, &mut cut).await {
                outcome.stop = Stop::Failed;
                outcome.error = Some(e.to_string());
                break;
            }
            schedule.froze(round_time);
            if !schedule.fits(start.elapsed(), takes) {
                outcome.stop = Stop::Clock;
                break;
            }
        }
        let word_start = Instant::now();
        let mut ended = None;
        for part in g {
            match entry.gesture(part, settings.sample, &mut cut).await {
                Ok(true) => {}
                Ok(false) => {
                    let why = if *over.borrow() {
                        Stop::BoardGone
                    } else {
                        Stop::Stopped
                    };
                    ended = Some((why, None));
                    break;
                }
                Err(e) => {
                    ended = Some((Stop::Failed, Some(e.to_string())));
                    outcome.word_cut = true;
                    break;
                }
            }
        }
        if let Some((why, error)) = ended {
            outcome.stop = why;
            outcome.error = error;
            break;
        }
        let stroke = word_start.elapsed();
        pace.took(samples, stroke);
        outcome.words_entered += 1;
        outcome.points_entered += word.points;
        progress(Progress {
            entered: outcome.words_entered,
            planned: words.len(),
            points: outcome.points_entered,
            left: schedule.left(start.elapsed()),
            stroke,
            points_seen: None,
        });
        let pause = settings.word_pause + settings.gap.next();
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
    outcome.freezes = schedule
        .freezes()
        .iter()
        .map(Duration::as_secs_f64)
        .collect();
    outcome.elapsed_secs = start.elapsed().as_secs_f64();
    outcome.routes = entry.routes();
    outcome
}

#[cfg(test)]
mod tests {
    //! The loop under tokio's paused clock: time moves only when every task waits, so a
    //! two-minute round runs in milliseconds and every instant is exact.
    use super::*;
    use crate::gesture::{Phase, Touch};
    use crate::play::inject::{Finger, send};

    /// A finger that records each touch with its time, and fails from touch `fail_at` on.
    struct Recorder {
        start: Instant,
        touches: Vec<(Duration, Touch)>,
        fail_at: Option<usize>,
        first: Option<Instant>,
    }

    impl Recorder {
        fn new(fail_at: Option<usize>) -> Recorder {
            Recorder {
                start: Instant::now(),
                touches: Vec::new(),
                fail_at,
                first: None,
            }
        }
    }

    impl Finger for Recorder {
        async fn touch(&mut self, t: Touch) -> Result<(), PhoneError> {
            if self.fail_at.is_some_and(|n| self.touches.len() >= n) {
                return Err(PhoneError::Timeout {
                    what: "the pulled plug".into(),
                    limit: Duration::ZERO,
                });
            }
            // A sample takes the phone a little time to take.
            tokio::time::sleep(Duration::from_millis(2)).await;
            self.touches.push((self.start.elapsed(), t));
            Ok(())
        }
    }

    impl Entry for Recorder {
        fn taps(&self) -> bool {
            false
        }
        async fn between_words(&mut self, _: usize) {}
        async fn gesture(
            &mut self,
            g: &Gesture,
            sample: Duration,
            stop: &mut watch::Receiver<bool>,
        ) -> Result<bool, PhoneError> {
            let mut first = self.first;
            let r = send(self, g, sample, stop, &mut first).await;
            self.first = first;
            r
        }
        fn routes(&self) -> Vec<RouteUse> {
            vec![RouteUse {
                route: "recorder".into(),
                from_word: 0,
            }]
        }
    }

    fn profile() -> Profile {
        Profile::built_in("nexus7").unwrap()
    }

    /// `words` on the test profile as swipes, the clock ending `round` seconds from now.
    fn plan(p: &Profile, words: Vec<PlannedWord>, round: f64) -> Plan {
        let end = Instant::now() + Duration::from_secs_f64(round);
        Plan::new(p, words, false, end).unwrap()
    }

    fn settings(every: f64, adds: f64) -> RoundSettings {
        RoundSettings {
            freeze_every: Duration::from_secs_f64(every),
            freeze_adds: Duration::from_secs_f64(adds),
            freeze_uses: None,
            sample: Duration::from_millis(20),
            word_pause: Duration::ZERO,
            gap: Default::default(),
            clock: Default::default(),
            round_time_before: Duration::ZERO,
            last_freeze: None,
            finish_word_on_stop: false,
        }
    }

    /// `n` words along the top row and back down the second (8 tiles each).
    fn words(n: usize) -> Vec<PlannedWord> {
        (0..n)
            .map(|i| PlannedWord {
                text: format!("w{i}"),
                points: 3,
                cells: vec![0, 1, 2, 3, 7, 6, 5, 4],
            })
            .collect()
    }

    /// The times of the Freeze taps' downs: touches at the Freeze button.
    fn freeze_downs(r: &Recorder, p: &Profile) -> Vec<Duration> {
        let f = p.freeze().expect("the test profile has Freeze");
        r.touches
            .iter()
            .filter(|(_, t)| t.phase == Phase::Down && (t.x as f32 - f.0).abs() < 1.0)
            .map(|(at, _)| *at)
            .collect()
    }

    #[tokio::test(start_paused = true)]
    async fn the_clock_ends_the_round_and_freezes_fall_on_schedule() {
        let p = profile();
        let (round, s) = (10.0, settings(3.0, 2.0));
        let mut rec = Recorder::new(None);
        let (_tx, stop) = watch::channel(false);
        let mut seen = Vec::new();
        let out = play_round(
            &mut rec,
            &plan(&p, words(1000), round),
            &s,
            stop,
            &mut |pr| seen.push(pr),
        )
        .await;
        assert_eq!(out.stop, Stop::Clock);
        // Freezes at 3, 6, 9 s of round time (each within one word of when it fell due); the
        // fourth would fall at 12 s of round time, 18 s from the start, after the clock
        // (10 + 3 x 2 = 16 s) has ended.
        assert_eq!(out.freezes.len(), 3, "{:?}", out.freezes);
        for (k, f) in out.freezes.iter().enumerate() {
            let due = 3.0 * (k + 1) as f64;
            assert!((due..due + 0.5).contains(f), "freeze {k} at {f}");
        }
        assert_eq!(freeze_downs(&rec, &p).len(), 3);
        // No touch after the clock: 10 s plus what the freezes added.
        let deadline = Duration::from_secs(10 + 2 * out.freezes.len() as u64);
        let last = rec.touches.last().unwrap();
        assert!(last.0 < deadline, "{:?} after {deadline:?}", last.0);
        assert_eq!(last.1.phase, Phase::Up);
        // Progress after every word, counting up, the time left counting down...
        assert_eq!(seen.len(), out.words_entered);
        // ... rising only where a Freeze added to the clock.
        let rises = seen.windows(2).filter(|w| w[1].left > w[0].left).count();
        assert_eq!(rises, out.freezes.len());
        assert_eq!(out.points_entered, 3 * out.words_entered as u32);
    }

    #[tokio::test(start_paused = true)]
    async fn the_board_leaving_the_screen_cuts_the_stroke_and_ends_the_round() {
        let p = profile();
        // A clock far off; a look finds the board gone 1.03 s in, mid-stroke.
        let s = settings(30.0, 10.0);
        let clock = s.clock.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1030)).await;
            clock.over();
        });
        let mut rec = Recorder::new(None);
        // A stop that never comes; finishing the word in hand does not outlast the board.
        let (_tx, stop) = watch::channel(false);
        let s = RoundSettings {
            finish_word_on_stop: true,
            ..s
        };
        let out = play_round(
            &mut rec,
            &plan(&p, words(1000), 100.0),
            &s,
            stop,
            &mut |_| {},
        )
        .await;
        assert_eq!(out.stop, Stop::BoardGone, "{out:?}");
        let gone = Duration::from_millis(1030);
        let after: Vec<_> = rec.touches.iter().filter(|(at, _)| *at >= gone).collect();
        // Within a sample of the look: one slide to the grid's farthest corner, then the lift
        // there (not where the finger was, which would tap what came up under it).
        assert!(after.len() <= 3, "{after:?}");
        let (at, up) = rec.touches.last().unwrap();
        assert!(*at < gone + Duration::from_millis(40), "{at:?}");
        assert_eq!(up.phase, Phase::Up);
        let (slid_at, slid) = rec.touches[rec.touches.len() - 2];
        assert_eq!((slid.x, slid.y), (up.x, up.y));
        assert!(slid_at >= gone);
        let corners = [(100, 300), (700, 300), (100, 900), (700, 900)];
        assert!(corners.contains(&(up.x, up.y)), "{up:?}");
        // No word is started after the look.
        let downs = rec
            .touches
            .iter()
            .filter(|(at, t)| *at >= gone && t.phase == Phase::Down);
        assert_eq!(downs.count(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_freeze_due_just_before_the_clock_ends_is_waited_for() {
        let p = profile();
        // Words through all 16 tiles (about 0.4 s each, judged 0.8 s with the margins); the
        // clock would end at 2 s, a Freeze falls due at 1.6 s: some word before it will not
        // fit, and the Freeze that comes before the clock ends is waited for.
        let (round, s) = (2.0, settings(1.6, 1.0));
        let snake = vec![0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11, 15, 14, 13, 12];
        let long: Vec<PlannedWord> = words(100)
            .into_iter()
            .map(|w| PlannedWord {
                cells: snake.clone(),
                ..w
            })
            .collect();
        let mut rec = Recorder::new(None);
        let (_tx, stop) = watch::channel(false);
        let out = play_round(&mut rec, &plan(&p, long, round), &s, stop, &mut |_| {}).await;
        assert_eq!(out.stop, Stop::Clock);
        assert_eq!(out.freezes.len(), 1, "{:?}", out.freezes);
        assert!((1.6..1.7).contains(&out.freezes[0]), "{:?}", out.freezes);
        // Words went on on the clock the Freeze lengthened.
        assert!(out.elapsed_secs > 2.2, "{}", out.elapsed_secs);
        assert!(rec.touches.last().unwrap().0 < Duration::from_secs(3));
    }

    #[tokio::test(start_paused = true)]
    async fn the_plans_end_is_kept_however_late_the_round_starts() {
        let p = profile();
        // The clock ends 10 s after the plan was made, and no Freeze falls due before.
        let (round, s) = (10.0, settings(30.0, 15.0));
        let plan = plan(&p, words(1000), round);
        // The input route took 4 s to open: 6 s are left, not 10.
        tokio::time::advance(Duration::from_secs(4)).await;
        let mut rec = Recorder::new(None);
        let (_tx, stop) = watch::channel(false);
        let out = play_round(&mut rec, &plan, &s, stop, &mut |_| {}).await;
        assert_eq!(out.stop, Stop::Clock);
        let last = rec.touches.last().unwrap().0;
        assert!(last < Duration::from_secs(6), "{last:?}");
        assert!(last > Duration::from_secs(5), "{last:?}");
    }

    #[tokio::test(start_paused = true)]
    async fn every_word_in_before_the_clock_ends_the_round_early() {
        let p = profile();
        let (round, s) = (120.0, settings(30.0, 15.0));
        let mut rec = Recorder::new(None);
        let (_tx, stop) = watch::channel(false);
        let out = play_round(&mut rec, &plan(&p, words(20), round), &s, stop, &mut |_| {}).await;
        assert_eq!((out.stop, out.words_entered), (Stop::AllWords, 20));
        assert!(out.freezes.is_empty(), "{:?}", out.freezes);
        assert!(out.elapsed_secs < 30.0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_stop_mid_word_lifts_the_finger() {
        let p = profile();
        let (round, s) = (120.0, settings(30.0, 15.0));
        let mut rec = Recorder::new(None);
        let (tx, stop) = watch::channel(false);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(1_010)).await;
            let _ = tx.send(true);
        });
        let out = play_round(
            &mut rec,
            &plan(&p, words(1000), round),
            &s,
            stop,
            &mut |_| {},
        )
        .await;
        assert_eq!(out.stop, Stop::Stopped);
        assert!(
            (1.0..1.3).contains(&out.elapsed_secs),
            "{}",
            out.elapsed_secs
        );
        let downs = rec.touches.iter().filter(|t| t.1.phase == Phase::Down);
        let ups = rec.touches.iter().filter(|t| t.1.phase == Phase::Up);
        assert_eq!(downs.count(), ups.count(), "every down has its up");
        assert_eq!(rec.touches.last().unwrap().1.phase, Phase::Up);
    }

    #[tokio::test(start_paused = true)]
    async fn a_failing_phone_ends_the_round_with_what_was_entered() {
        let p = profile();
        let (round, s) = (120.0, settings(30.0, 15.0));
        let per_word = gesture::swipe(&p, &words(1)[0].cells)
            .unwrap()
            .touches
            .len();
        // Fails on the fourth word's third touch.
        let mut rec = Recorder::new(Some(per_word * 3 + 2));
        let (_tx, stop) = watch::channel(false);
        let out = play_round(&mut rec, &plan(&p, words(10), round), &s, stop, &mut |_| {}).await;
        assert_eq!((out.stop, out.words_entered), (Stop::Failed, 3));
        assert!(out.word_cut, "the fourth word was cut in its stroke");
        assert!(out.error.unwrap().contains("the pulled plug"));
    }
}
