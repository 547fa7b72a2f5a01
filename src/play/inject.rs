//! How gestures reach the phone: the input routes (the monkey's socket, a `sendevent` shell,
//! `input motionevent`, `input tap`) behind one `Injector`, and the paced sending of one
//! gesture's touch samples. The finger is always lifted: a gesture cut short by an error ends
//! with an up; one cut by a stop first slides to a far corner of the grid, so that the up
//! clicks nothing that came up under the finger (a results screen's button).

use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::round::{Entry, RouteUse};
use crate::gesture::{Gesture, Phase, Touch};
use crate::phone::sendevent::Sendevent;
use crate::phone::{Monkey, Phone, PhoneError};
use crate::profile::Route;

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

impl<'p> Injector<'p> {
    /// Opens the profile's route on `phone`. `auto` probes: on sdk 28 and older, sendevent at
    /// once with the monkey taking over when it answers; otherwise the monkey, then
    /// motionevent (sdk 29+), then taps. `say` hears what was tried and chosen.
    pub async fn open(
        phone: &'p Phone,
        route: Route,
        say: &mut (dyn FnMut(String) + Send),
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
                route: active.name().to_owned(),
                from_word: 0,
            }],
            active,
            coming,
            first_touch: None,
        }
    }

    async fn auto(
        phone: &'p Phone,
        say: &mut (dyn FnMut(String) + Send),
    ) -> Result<Self, PhoneError> {
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

    /// When the first touch reached the phone.
    pub fn first_touch(&self) -> Option<Instant> {
        self.first_touch
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

impl Entry for Injector<'_> {
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
                    route: "monkey".to_owned(),
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

    fn routes(&self) -> Vec<RouteUse> {
        self.used.clone()
    }
}

/// Checks that `input` knows `motionevent` (its usage text lists it from sdk 29).
async fn motionevent_works(phone: &Phone) -> Result<(), PhoneError> {
    if phone.sdk < 29 {
        return Err(PhoneError::Route {
            route: "motionevent",
            why: format!(
                "input motionevent needs Android 10 (sdk 29); this phone has sdk {}",
                phone.sdk
            ),
        });
    }
    let usage = phone.shell("input 2>&1").await?;
    if !usage.contains("motionevent") {
        return Err(PhoneError::Route {
            route: "motionevent",
            why: "`input` does not list motionevent".into(),
        });
    }
    Ok(())
}

/// Runs an `input` script; `input` exits 0 even when it refuses, so its output is the verdict.
async fn shell_checked(phone: &Phone, script: &str) -> Result<(), PhoneError> {
    let out = phone.shell(script).await?;
    if out.contains("Usage: input") || out.contains("Error:") || out.contains("Exception") {
        return Err(PhoneError::Unexpected {
            asked: script.chars().take(60).collect(),
            answer: out.lines().next().unwrap_or("").to_owned(),
        });
    }
    Ok(())
}

/// A finger on the phone: one touch sample at a time, sent when it is due.
pub(super) trait Finger {
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
pub(super) async fn send(
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
                lift_away(finger, last, g).await;
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

/// Lifts a finger cut short, after sliding it to the point of `g.away` farthest from it, so
/// that the lift clicks nothing that came up under it (best effort: the phone may be gone).
async fn lift_away(finger: &mut impl Finger, down: Option<Touch>, g: &Gesture) {
    if let Some(t) = down {
        let (x, y) = g.away_from(t.x, t.y);
        let slid = Touch {
            phase: Phase::Move,
            x,
            y,
        };
        let _ = finger.touch(slid).await;
        lift(finger, Some(slid)).await;
    }
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
