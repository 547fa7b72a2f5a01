//! The probing half of calibration: what the phone says about itself (`wm size`, the
//! touchscreen in `getevent -p`), its screenshot, which input routes it takes, and, when asked,
//! where a person taps Freeze. The pure half (`super::calibrate`) makes the profile.

use std::time::Duration;

use image::RgbaImage;

use crate::phone::sendevent::{Panel, parse_getevent};
use crate::phone::{Lock, Phone, PhoneError};
use crate::play::Injector;
use crate::profile::{Point, Route};

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
}

impl Probed {
    /// Where the person tapped `button`, if asked to.
    pub fn tapped(&self, button: Button) -> Option<Point> {
        self.tapped.iter().find(|t| t.0 == button).map(|t| t.1)
    }
}

/// Probes `phone`, then asks for a tap on each of `taps` in turn (`ask` is called first, to
/// tell the person) and waits up to `tap_wait` for each.
pub async fn probe(
    phone: &Phone,
    taps: &[Button],
    tap_wait: Duration,
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
