//! The probing half of calibration: what the phone says about itself (`wm size`, the
//! touchscreen in `getevent -p`), its screenshot, which input routes it takes, and, when asked,
//! where a person taps Freeze. The pure half (`super::calibrate`) makes the profile.

use std::time::Duration;

use image::RgbaImage;

use super::numbers;
pub use super::numbers::Numbers;
use crate::phone::sendevent::{Panel, parse_getevent};
use crate::phone::{Lock, Phone, PhoneError};
use crate::play::Injector;
use crate::profile::{Point, Route};
use crate::vision::digits::Area;

/// Why a phone could not be probed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Phone(#[from] PhoneError),
    /// The phone is held sideways: its screenshot does not match `wm size`.
    #[error(
        "the screenshot is {}x{} but `wm size` says {}x{}: hold the phone upright (portrait) and calibrate again",
        shot.0, shot.1, wm.0, wm.1
    )]
    NotPortrait { shot: (u32, u32), wm: (u32, u32) },
    /// A lock screen covers the game and could not be dismissed.
    #[error("{}", crate::play::look::LOCKED)]
    Locked,
    /// A tap was asked for, and `getevent -p` lists no touchscreen to read it from.
    #[error("`getevent -p` lists no touchscreen, so a tap cannot be read")]
    NoTouchscreen,
}

/// A button a person is asked to tap, so that its place is read from the touchscreen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    /// The Freeze lifeline, during a round.
    Freeze,
    /// The results screen's Play/Next, once the round is over.
    Advance,
}

impl Button {
    /// What the person is told to tap.
    pub fn describe(self) -> &'static str {
        match self {
            Button::Freeze => "the Freeze button",
            Button::Advance => "the results screen's Play/Next button once the round is over",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Button::Freeze => "Freeze",
            Button::Advance => "Play/Next",
        }
    }
}

/// What to watch the round for, and for how long (`watch_numbers`).
#[derive(Clone, Copy, Debug)]
pub struct NumbersAsk {
    /// The clock's box when the user gave it.
    pub clock: Option<Area>,
    /// The score's box when the user gave it.
    pub score: Option<Area>,
    pub limit: Duration,
}

/// What probing found.
pub struct Probed {
    pub screenshot: RgbaImage,
    /// What the phone said about itself and what was tried, a line each, for the profile's
    /// header and the user.
    pub about: Vec<String>,
    pub panel: Option<Panel>,
    /// The routes that work, fastest first (taps always do).
    pub routes: Vec<Route>,
    /// Where the person tapped each button asked for, in the order asked.
    pub tapped: Vec<(Button, Point)>,
    /// The game's numbers, when asked for and the screenshot showed a grid to leave out.
    pub numbers: Option<Numbers>,
}

impl Probed {
    /// Where the person tapped `button`, if asked to.
    pub fn tapped(&self, button: Button) -> Option<Point> {
        self.tapped.iter().find(|t| t.0 == button).map(|t| t.1)
    }
}

/// Probes `phone`, watches the round for its numbers when asked (before any tap: a Freeze
/// stops the clock, and the results screen has none), then asks for a tap on each of `taps`
/// in turn (`ask` is called first, to tell the person) and waits up to `tap_wait` for each.
pub async fn probe(
    phone: &Phone,
    taps: &[Button],
    tap_wait: Duration,
    numbers: Option<NumbersAsk>,
    ask: &mut (dyn FnMut(Button, Duration) + Send),
) -> Result<Probed, ProbeError> {
    let mut about = vec![format!(
        "from {} ({}, sdk {}, wm size {}x{})",
        phone.serial, phone.model, phone.sdk, phone.screen.0, phone.screen.1
    )];
    // A screen gone off shows black, a lock screen no round: the game is brought back first.
    let roused = phone.rouse(true).await?;
    about.extend(roused.lines().map(String::from));
    if roused.lock == Lock::Stays {
        return Err(ProbeError::Locked);
    }
    let screenshot = phone.screenshot().await?;
    if screenshot.dimensions() != phone.screen {
        return Err(ProbeError::NotPortrait {
            shot: screenshot.dimensions(),
            wm: phone.screen,
        });
    }
    let getevent = phone.shell("getevent -p").await?;
    let panel = Panel::find(&parse_getevent(&getevent), phone.screen);
    about.push(match &panel {
        Some(panel) => format!("touchscreen {}", panel.describe()),
        None => "no touchscreen in `getevent -p` (sendevent cannot be used)".into(),
    });
    let routes = working_routes(phone, &mut about).await;
    let grid = crate::vision::grid::find_either(&screenshot);
    let numbers = match (numbers, grid) {
        (Some(n), Some(grid)) => {
            let skip = numbers::grid_area(&grid);
            Some(watch_numbers(phone, skip, n.clock, n.score, n.limit).await?)
        }
        _ => None,
    };
    let mut tapped = Vec::new();
    for &button in taps {
        let panel = panel.as_ref().ok_or(ProbeError::NoTouchscreen)?;
        ask(button, tap_wait);
        let (x, y) = panel.wait_for_tap(phone, tap_wait).await?;
        about.push(format!("{} tapped at ({x:.0}, {y:.0})", button.name()));
        tapped.push((button, (x, y)));
    }
    Ok(Probed {
        screenshot,
        about,
        panel,
        routes,
        tapped,
        numbers,
    })
}

/// Which routes this phone takes (`auto` picks the fastest at play time); each refusal is
/// noted in `about`.
async fn working_routes(phone: &Phone, about: &mut Vec<String>) -> Vec<Route> {
    let mut works = Vec::new();
    for route in [Route::Monkey, Route::Motionevent, Route::Sendevent] {
        match Injector::open(phone, route, &mut |_| {}).await {
            Ok(injector) => {
                injector.finish().await;
                works.push(route);
            }
            Err(e) => about.push(format!("route {}: no ({e})", route.name())),
        }
    }
    works.push(Route::Tap);
    about.push(format!(
        "routes that work: {}",
        works
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    ));
    works
}

/// Time between two looks at the clock (it ticks once a second).
const NUMBERS_EVERY: Duration = Duration::from_millis(250);

/// Watches the round on `phone` for up to `limit`, the grid (`skip`) left out: finds the
/// clock (what changes every second), learns its digits as it counts down, then finds the
/// score (a number they read surely), as `numbers::Watch` makes of the looks. `clock` given
/// by the user skips finding it; so does `score`.
pub async fn watch_numbers(
    phone: &Phone,
    skip: Area,
    clock: Option<Area>,
    score: Option<Area>,
    limit: Duration,
) -> Result<Numbers, ProbeError> {
    let started = tokio::time::Instant::now();
    let (w, h) = phone.screen;
    let mut watch = numbers::Watch::new(w, h, skip, clock, score);
    while started.elapsed() < limit {
        let look = tokio::time::Instant::now();
        let img = phone.screenshot().await?;
        if watch.see(started.elapsed().as_secs_f64(), img) {
            break;
        }
        tokio::time::sleep_until(look + NUMBERS_EVERY).await;
    }
    Ok(watch.finish(started.elapsed().as_secs_f64()))
}
