//! A round on a phone: the words in order, each entered once as one paced swipe, Freeze tapped
//! every N seconds of round time (between words, never mid-swipe), until every word is in, the
//! round clock (its length plus the freezes' extensions) runs out, or the caller stops it. The
//! finger is always lifted: a gesture cut short by an error or a stop ends with an up.

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::gesture::{self, Gesture, Phase, Touch};
use tokio::task::JoinHandle;

use crate::phone::sendevent::Sendevent;
use crate::phone::{Monkey, Phone, PhoneError};
use crate::profile::{Profile, Route};
use crate::solve::Solution;

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

/// The round's settings, from the profile.
#[derive(Clone, Debug)]
pub struct RoundSettings {
    /// The time on the clock when the round starts for us.
    pub round: Duration,
    pub freeze_every: Duration,
    /// What one Freeze adds to the clock.
    pub freeze_adds: Duration,
    pub freeze_uses: Option<u32>,
    pub sample: Duration,
    pub word_pause: Duration,
}

impl RoundSettings {
    pub fn from_profile(p: &Profile) -> RoundSettings {
        RoundSettings {
            round: Duration::from_secs_f64(p.rules.round_secs),
            freeze_every: Duration::from_secs_f64(p.rules.freeze_every_secs),
            freeze_adds: Duration::from_secs_f64(p.rules.freeze_secs),
            freeze_uses: p.rules.freeze_uses,
            sample: Duration::from_millis(p.input.sample_ms.into()),
            word_pause: Duration::from_millis(p.input.word_pause_ms.into()),
        }
    }
}

/// Why the round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    AllWords,
    Clock,
    Stopped,
    /// The phone failed (gone, or refusing): see `RoundOutcome::error`.
    Failed,
}

/// What the bot did.
#[derive(Clone, Debug, serde::Serialize)]
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
}

/// Progress after each word: (words entered, words planned, points, time left).
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, u32, Duration);

/// The device port the monkey listens on.
const MONKEY_PORT: u16 = 1080;

/// How gestures reach the phone: the route in use, and under `auto` on phones that allow
/// sendevent, the monkey starting in the background to take over between two words once it
/// answers (sendevent needs no JVM start, so the first word goes in at once).
pub struct Injector<'p> {
    active: Active<'p>,
    coming: Option<JoinHandle<Result<Monkey, PhoneError>>>,
    /// Each route used, with the index of the first word it entered.
    used: Vec<RouteUse>,
    first_touch: Option<Instant>,
}

enum Active<'p> {
    /// One persistent socket, a line per sample, paced by us (every Android version).
    Monkey(Monkey),
    /// One persistent shell, a line of `sendevent`s per sample, paced by us (sdk 28 and older).
    Sendevent(Sendevent),
    /// One shell command per word chaining `input motionevent` calls (sdk 29 and later); each
    /// call is slower than a frame, so the game sees every sample.
    Motionevent(&'p Phone),
    /// One shell command per tap: each tile, then the last again.
    Tap(&'p Phone),
}

impl Active<'_> {
    fn name(&self) -> &'static str {
        match self {
            Active::Monkey(_) => "monkey",
            Active::Sendevent(_) => "sendevent",
            Active::Motionevent(_) => "motionevent",
            Active::Tap(_) => "tap",
        }
    }

    async fn finish(self) {
        match self {
            Active::Monkey(m) => m.quit().await,
            Active::Sendevent(s) => s.quit().await,
            Active::Motionevent(_) | Active::Tap(_) => {}
        }
    }
}

/// A route and the first word it entered.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RouteUse {
    pub route: &'static str,
    pub from_word: usize,
}

impl<'p> Injector<'p> {
    /// Opens the profile's route on `phone`. `auto` probes: on sdk 28 and older, sendevent at
    /// once with the monkey taking over when it answers; otherwise the monkey, then
    /// motionevent (sdk 29+), then taps. `say` hears what was tried and chosen.
    pub async fn open(
        phone: &'p Phone,
        route: Route,
        say: &mut dyn FnMut(String),
    ) -> Result<Injector<'p>, PhoneError> {
        let active = match route {
            Route::Monkey => Active::Monkey(phone.monkey(MONKEY_PORT).await?),
            Route::Sendevent => Active::Sendevent(Sendevent::start(phone).await?),
            Route::Motionevent => {
                motionevent_works(phone).await?;
                Active::Motionevent(phone)
            }
            Route::Tap => Active::Tap(phone),
            Route::Auto => return Injector::auto(phone, say).await,
        };
        Ok(Injector::with(active, None))
    }

    fn with(active: Active<'p>, coming: Option<JoinHandle<Result<Monkey, PhoneError>>>) -> Self {
        Injector {
            used: vec![RouteUse {
                route: active.name(),
                from_word: 0,
            }],
            active,
            coming,
            first_touch: None,
        }
    }

    async fn auto(phone: &'p Phone, say: &mut dyn FnMut(String)) -> Result<Self, PhoneError> {
        if phone.sdk <= 28 {
            match Sendevent::start(phone).await {
                Ok(s) => {
                    let p = phone.clone();
                    let coming = tokio::spawn(async move { p.monkey(MONKEY_PORT).await });
                    say(format!(
                        "auto: sendevent on {} at once, the monkey when it answers",
                        s.panel().path
                    ));
                    return Ok(Injector::with(Active::Sendevent(s), Some(coming)));
                }
                Err(e) => say(format!("auto: no sendevent ({e})")),
            }
        }
        match phone.monkey(MONKEY_PORT).await {
            Ok(m) => {
                say("auto: monkey".into());
                return Ok(Injector::with(Active::Monkey(m), None));
            }
            Err(e) => say(format!("auto: no monkey ({e})")),
        }
        match motionevent_works(phone).await {
            Ok(()) => {
                say("auto: input motionevent".into());
                return Ok(Injector::with(Active::Motionevent(phone), None));
            }
            Err(e) => say(format!("auto: no motionevent ({e})")),
        }
        say("auto: taps".into());
        Ok(Injector::with(Active::Tap(phone), None))
    }

    /// The route in use now.
    pub fn name(&self) -> &'static str {
        self.active.name()
    }

    /// Each route used, with the first word it entered.
    pub fn routes(&self) -> &[RouteUse] {
        &self.used
    }

    /// When the first touch reached the phone.
    pub fn first_touch(&self) -> Option<Instant> {
        self.first_touch
    }

    /// Between two words: hands over to the monkey if it has started. `next_word` is the index
    /// of the word about to be entered.
    async fn between_words(&mut self, next_word: usize) {
        if !self.coming.as_ref().is_some_and(JoinHandle::is_finished) {
            return;
        }
        let Some(task) = self.coming.take() else {
            return;
        };
        match task.await {
            Ok(Ok(monkey)) => {
                let old = std::mem::replace(&mut self.active, Active::Monkey(monkey));
                old.finish().await;
                self.used.push(RouteUse {
                    route: "monkey",
                    from_word: next_word,
                });
            }
            Ok(Err(e)) => tracing::info!("the monkey did not start, staying on sendevent: {e}"),
            Err(e) => tracing::info!("the monkey's start failed, staying on sendevent: {e}"),
        }
    }

    /// Whether words are entered as taps.
    fn taps(&self) -> bool {
        matches!(self.active, Active::Tap(_))
    }

    /// Sends one gesture; false if `stop` cut it short.
    async fn gesture(
        &mut self,
        g: &Gesture,
        sample: Duration,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<bool, PhoneError> {
        let first = &mut self.first_touch;
        match &mut self.active {
            Active::Monkey(m) => send(m, g, sample, stop, first).await,
            Active::Sendevent(s) => send(s, g, sample, stop, first).await,
            Active::Motionevent(phone) => {
                let script: Vec<String> = g
                    .touches
                    .iter()
                    .map(|t| {
                        let action = match t.phase {
                            Phase::Down => "DOWN",
                            Phase::Move => "MOVE",
                            Phase::Up => "UP",
                        };
                        format!("input motionevent {action} {} {}", t.x, t.y)
                    })
                    .collect();
                shell_checked(phone, &script.join("; ")).await?;
                first.get_or_insert_with(Instant::now);
                Ok(true)
            }
            Active::Tap(phone) => {
                // A gesture here is one tap (tap entry is planned as taps).
                let t = g.touches[0];
                shell_checked(phone, &format!("input tap {} {}", t.x, t.y)).await?;
                first.get_or_insert_with(Instant::now);
                Ok(true)
            }
        }
    }

    /// Lifts the finger and ends the routes' processes on the phone.
    pub async fn finish(mut self) {
        if let Some(task) = self.coming.take() {
            // A monkey still starting is ended once it answers, so none is left running.
            match tokio::time::timeout(Duration::from_secs(5), task).await {
                Ok(Ok(Ok(m))) => m.quit().await,
                Ok(_) => {}
                Err(_) => tracing::info!("the monkey did not start in time; left to the phone"),
            }
        }
        self.active.finish().await;
    }
}

/// Checks that `input` knows `motionevent` (its usage text lists it from sdk 29).
async fn motionevent_works(phone: &Phone) -> Result<(), PhoneError> {
    if phone.sdk < 29 {
        return Err(PhoneError::Route(
            "motionevent",
            format!(
                "input motionevent needs Android 10 (sdk 29); this phone has sdk {}",
                phone.sdk
            ),
        ));
    }
    let usage = phone.shell("input 2>&1").await?;
    if !usage.contains("motionevent") {
        return Err(PhoneError::Route(
            "motionevent",
            "`input` does not list motionevent".into(),
        ));
    }
    Ok(())
}

/// Runs an `input` script; `input` exits 0 even when it refuses, so its output is the verdict.
async fn shell_checked(phone: &Phone, script: &str) -> Result<(), PhoneError> {
    let out = phone.shell(script).await?;
    if out.contains("Usage: input") || out.contains("Error:") || out.contains("Exception") {
        return Err(PhoneError::Unexpected(
            script.chars().take(60).collect(),
            out.lines().next().unwrap_or("").to_owned(),
        ));
    }
    Ok(())
}

/// Plays a round. `stop` turning true ends it between two samples. A phone failing mid-round
/// ends it too (`Stop::Failed`), with what was entered until then; an error is returned only
/// for a gesture that cannot be built, before any touch.
pub async fn play_round(
    injector: &mut Injector<'_>,
    profile: &Profile,
    settings: &RoundSettings,
    words: &[PlannedWord],
    mut stop: watch::Receiver<bool>,
    progress: Progress<'_>,
) -> Result<RoundOutcome, gesture::GestureError> {
    // Every gesture is built, and fence-checked, before the first touch. Tap entry makes a
    // word several taps.
    let gestures: Vec<Vec<Gesture>> = words
        .iter()
        .map(|w| match injector {
            _ if injector.taps() => gesture::taps(profile, &w.cells),
            _ => gesture::swipe(profile, &w.cells).map(|g| vec![g]),
        })
        .collect::<Result<_, _>>()?;
    let freeze = gesture::button(profile, "freeze")?;
    let start = Instant::now();
    let mut outcome = RoundOutcome {
        words_planned: words.len(),
        words_entered: 0,
        points_entered: 0,
        freezes: Vec::new(),
        elapsed_secs: 0.0,
        stop: Stop::AllWords,
        routes: Vec::new(),
        error: None,
    };
    let mut next_freeze = settings.freeze_every;
    let mut pace = Pace::default();
    let deadline = |freezes: usize| settings.round + settings.freeze_adds * freezes as u32;
    for (i, (word, g)) in words.iter().zip(&gestures).enumerate() {
        injector.between_words(i).await;
        if *stop.borrow_and_update() {
            outcome.stop = Stop::Stopped;
            break;
        }
        // Freeze when due in round time (the game clock's time: a freeze stops it), while the
        // clock runs (the tap itself must land before it ends).
        let now = start.elapsed();
        let round_time = now.saturating_sub(settings.freeze_adds * outcome.freezes.len() as u32);
        let uses_left = settings
            .freeze_uses
            .is_none_or(|n| (outcome.freezes.len() as u32) < n);
        let tap = pace.estimate(freeze.touches.len() as u32, settings.sample);
        if round_time >= next_freeze && uses_left && now + tap < deadline(outcome.freezes.len()) {
            if let Err(e) = injector.gesture(&freeze, settings.sample, &mut stop).await {
                outcome.stop = Stop::Failed;
                outcome.error = Some(e.to_string());
                break;
            }
            outcome.freezes.push(round_time.as_secs_f64());
            while next_freeze <= round_time {
                next_freeze += settings.freeze_every;
            }
        }
        // A word still being drawn when the clock ends is lost, and its touches land on the
        // results screen: none is started that would end after the clock. How long it takes is
        // judged by how long samples have taken so far on this route (a tap through `input`
        // costs a JVM start), with a margin.
        let samples: u32 = g.iter().map(|part| part.touches.len() as u32).sum();
        if start.elapsed() + pace.estimate(samples, settings.sample)
            >= deadline(outcome.freezes.len())
        {
            outcome.stop = Stop::Clock;
            break;
        }
        let word_start = Instant::now();
        let mut finished = true;
        for part in g {
            match injector.gesture(part, settings.sample, &mut stop).await {
                Ok(true) => {}
                Ok(false) => {
                    outcome.stop = Stop::Stopped;
                    finished = false;
                    break;
                }
                Err(e) => {
                    outcome.stop = Stop::Failed;
                    outcome.error = Some(e.to_string());
                    finished = false;
                    break;
                }
            }
        }
        if !finished {
            break;
        }
        pace.took(samples, word_start.elapsed());
        outcome.words_entered += 1;
        outcome.points_entered += word.points;
        let left = deadline(outcome.freezes.len()).saturating_sub(start.elapsed());
        progress(
            outcome.words_entered,
            words.len(),
            outcome.points_entered,
            left,
        );
        if !settings.word_pause.is_zero() {
            tokio::time::sleep(settings.word_pause).await;
        }
    }
    outcome.elapsed_secs = start.elapsed().as_secs_f64();
    outcome.routes = injector.routes().to_vec();
    Ok(outcome)
}

/// How long touch samples take to enter on this route, learnt as the round goes.
#[derive(Default)]
struct Pace {
    samples: u32,
    spent: Duration,
}

impl Pace {
    fn took(&mut self, samples: u32, spent: Duration) {
        self.samples += samples;
        self.spent += spent;
    }

    /// How long `samples` will take: at the slower of the planned pace and the pace seen so
    /// far, plus a quarter.
    fn estimate(&self, samples: u32, planned: Duration) -> Duration {
        let seen = self.spent.checked_div(self.samples).unwrap_or(planned);
        seen.max(planned) * samples * 5 / 4
    }
}

/// A finger on the phone: one touch sample at a time, sent when it is due.
trait Finger {
    async fn touch(&mut self, t: Touch) -> Result<(), PhoneError>;
}

impl Finger for Monkey {
    async fn touch(&mut self, t: Touch) -> Result<(), PhoneError> {
        Monkey::touch(self, t).await
    }
}

impl Finger for Sendevent {
    async fn touch(&mut self, t: Touch) -> Result<(), PhoneError> {
        Sendevent::touch(self, t).await
    }
}

/// Sends one gesture, paced: the down at once, each move one sample interval after the phone
/// took the last sample (not after it was sent: a sample that takes the phone long, such as a
/// down of five sendevents, must not squeeze the next two into one frame), the up right after
/// the last move (lifting makes the game take the pending move, so the up need not wait a
/// frame). Returns false if `stop` cut it short (the finger was lifted).
async fn send(
    finger: &mut impl Finger,
    g: &Gesture,
    sample: Duration,
    stop: &mut watch::Receiver<bool>,
    first_touch: &mut Option<Instant>,
) -> Result<bool, PhoneError> {
    let mut last: Option<Touch> = None;
    let mut taken = Instant::now();
    for &t in &g.touches {
        if t.phase == Phase::Move {
            tokio::time::sleep_until(taken + sample).await;
            if *stop.borrow() {
                lift(finger, last).await;
                return Ok(false);
            }
        }
        if let Err(e) = finger.touch(t).await {
            lift(finger, last).await;
            return Err(e);
        }
        taken = Instant::now();
        first_touch.get_or_insert(taken);
        last = (t.phase != Phase::Up).then_some(t);
    }
    Ok(true)
}

/// Lifts a finger left down (best effort: the phone may be gone).
async fn lift(finger: &mut impl Finger, down: Option<Touch>) {
    if let Some(t) = down {
        let up = Touch {
            phase: Phase::Up,
            ..t
        };
        let _ = finger.touch(up).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_timed_by_the_slower_of_plan_and_experience() {
        let ms = Duration::from_millis;
        let mut pace = Pace::default();
        // Nothing seen yet: the plan, and a quarter.
        assert_eq!(pace.estimate(4, ms(20)), ms(100));
        // Taps through `input`: 350 ms a sample.
        pace.took(2, ms(700));
        assert_eq!(pace.estimate(4, ms(20)), ms(1750));
        // A route faster than the plan is still paced by the plan.
        let mut quick = Pace::default();
        quick.took(10, ms(50));
        assert_eq!(quick.estimate(4, ms(20)), ms(100));
    }
}
