//! A round on a phone: the words in order, each entered once as one paced swipe, Freeze tapped
//! every N seconds of round time (between words, never mid-swipe), until every word is in, the
//! round clock (its length plus the freezes' extensions) runs out, or the caller stops it. The
//! finger is always lifted: a gesture cut short by an error or a stop ends with an up.

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use crate::gesture::{self, Gesture, Phase, Touch};
use crate::phone::{Monkey, Phone, PhoneError};
use crate::profile::Profile;
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
}

/// What the bot did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RoundOutcome {
    pub words_planned: usize,
    pub words_entered: usize,
    /// Points of the entered words, as the solver scored them.
    pub points_entered: u32,
    /// Round time of each Freeze tap, in seconds.
    pub freezes: Vec<f64>,
    pub elapsed_secs: f64,
    pub stop: Stop,
}

/// Progress after each word: (words entered, words planned, points, time left).
pub type Progress<'a> = &'a mut dyn FnMut(usize, usize, u32, Duration);

/// How gestures reach the phone.
pub enum Injector<'p> {
    /// One persistent socket, a line per sample, paced by us (every Android version).
    Monkey(Monkey),
    /// One shell command per word chaining `input motionevent` calls (sdk 29 and later); each
    /// call is slower than a frame, so the game sees every sample.
    Motionevent(&'p Phone),
    /// One shell command per word: `input tap` on each tile, then on the last again.
    Tap(&'p Phone),
}

impl Injector<'_> {
    pub fn name(&self) -> &'static str {
        match self {
            Injector::Monkey(_) => "monkey",
            Injector::Motionevent(_) => "motionevent",
            Injector::Tap(_) => "tap",
        }
    }

    /// Sends one gesture; false if `stop` cut it short.
    async fn gesture(
        &mut self,
        g: &Gesture,
        sample: Duration,
        stop: &mut watch::Receiver<bool>,
    ) -> Result<bool, PhoneError> {
        match self {
            Injector::Monkey(m) => send(m, g, sample, stop).await,
            Injector::Motionevent(phone) => {
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
                Ok(true)
            }
            Injector::Tap(phone) => {
                // A gesture here is one tap (tap entry is planned as taps).
                let t = g.touches[0];
                shell_checked(phone, &format!("input tap {} {}", t.x, t.y)).await?;
                Ok(true)
            }
        }
    }

    /// Lifts the finger and ends the route's process on the phone.
    pub async fn finish(self) {
        if let Injector::Monkey(m) = self {
            m.quit().await;
        }
    }
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

/// Plays a round. `stop` turning true ends it between two samples.
pub async fn play_round(
    injector: &mut Injector<'_>,
    profile: &Profile,
    settings: &RoundSettings,
    words: &[PlannedWord],
    mut stop: watch::Receiver<bool>,
    progress: Progress<'_>,
) -> Result<RoundOutcome, PlayError> {
    // Every gesture is built, and fence-checked, before the first touch. Tap entry makes a
    // word several taps.
    let gestures: Vec<Vec<Gesture>> = words
        .iter()
        .map(|w| match injector {
            Injector::Tap(_) => gesture::taps(profile, &w.cells),
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
    };
    let mut next_freeze = settings.freeze_every;
    let deadline = |freezes: usize| settings.round + settings.freeze_adds * freezes as u32;
    for (word, g) in words.iter().zip(&gestures) {
        if *stop.borrow_and_update() {
            outcome.stop = Stop::Stopped;
            break;
        }
        let now = start.elapsed();
        if now >= deadline(outcome.freezes.len()) {
            outcome.stop = Stop::Clock;
            break;
        }
        let uses_left = settings
            .freeze_uses
            .is_none_or(|n| (outcome.freezes.len() as u32) < n);
        if now >= next_freeze && uses_left {
            injector
                .gesture(&freeze, settings.sample, &mut stop)
                .await?;
            outcome.freezes.push(now.as_secs_f64());
            while next_freeze <= now {
                next_freeze += settings.freeze_every;
            }
        }
        let mut finished = true;
        for part in g {
            if !injector.gesture(part, settings.sample, &mut stop).await? {
                finished = false;
                break;
            }
        }
        if !finished {
            outcome.stop = Stop::Stopped;
            break;
        }
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
    Ok(outcome)
}

#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Gesture(#[from] gesture::GestureError),
    #[error(transparent)]
    Phone(#[from] PhoneError),
}

/// Sends one gesture, paced: the down at once, each move one sample interval after the last,
/// the up right after the last move (lifting makes the game take the pending move, so the up
/// need not wait a frame). Returns false if `stop` cut it short (the finger was lifted).
async fn send(
    monkey: &mut Monkey,
    g: &Gesture,
    sample: Duration,
    stop: &mut watch::Receiver<bool>,
) -> Result<bool, PhoneError> {
    let start = Instant::now();
    let mut last: Option<Touch> = None;
    let mut moves = 0u32;
    for &t in &g.touches {
        if t.phase == Phase::Move {
            moves += 1;
            tokio::time::sleep_until(start + sample * moves).await;
            if *stop.borrow() {
                lift(monkey, last).await;
                return Ok(false);
            }
        }
        if let Err(e) = monkey.touch(t).await {
            lift(monkey, last).await;
            return Err(e);
        }
        last = (t.phase != Phase::Up).then_some(t);
    }
    Ok(true)
}

/// Lifts a finger left down (best effort: the phone may be gone).
async fn lift(monkey: &mut Monkey, down: Option<Touch>) {
    if let Some(t) = down {
        let up = Touch {
            phase: Phase::Up,
            ..t
        };
        let _ = monkey.touch(up).await;
    }
}
