//! `scramblebot calibrate`: a profile for a new phone from its screen (or a screenshot file),
//! written with an overlay picture to check. Probing and the profile itself are the library's
//! (`scramblebot::calibrate`); this file adds the flags' hints to its refusals.

use std::io::Write;
use std::path::PathBuf;

use scramblebot::calibrate::make::{MakeError, Request, make};
use scramblebot::calibrate::probe::{self, Button, ProbeError};
use scramblebot::calibrate::{self, CalibrateError, SaveError};
use scramblebot::profile::Profile;
use scramblebot::vision::digits::Area;

use super::{BadInput, NotSure, PhoneArgs, game_board, load_image, on_round_runtime, seconds};

#[derive(clap::Args, Debug)]
pub struct CalibrateArgs {
    /// Name of the new profile (letters, digits, - and _): written as DIR/NAME.toml, and used
    /// as `play --device NAME`.
    #[arg(long)]
    pub name: String,
    /// Calibrate from this screenshot (PNG, JPEG or raw screencap) instead of a phone.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["serial", "connect"])]
    pub image: Option<PathBuf>,
    /// The board on the screenshot, as `solve` takes it: its glyphs are kept as the profile's
    /// templates, which the reader prefers (for games whose font it reads poorly).
    #[arg(long, value_name = "LETTERS")]
    pub board: Option<String>,
    /// Where Freeze is, in screen pixels, when it is not the first button under the grid.
    #[arg(long, value_name = "X,Y", conflicts_with = "no_freeze")]
    pub freeze: Option<String>,
    /// The game shows no Freeze to tap: write a profile without lifeline buttons (as is done,
    /// and said, when no row of them is found under the grid).
    #[arg(long, conflicts_with = "tap")]
    pub no_freeze: bool,
    /// Where the results screen's Play/Next button is, in screen pixels: the daemon taps it
    /// between rounds (only while no board shows).
    #[arg(long, value_name = "X,Y")]
    pub advance: Option<String>,
    /// Ask for a tap on the Freeze button and take its place from the touchscreen
    /// (`getevent`), instead of guessing the first button under the grid. Tapping uses a
    /// Freeze of the round in progress.
    #[arg(long, conflicts_with_all = ["freeze", "image"])]
    pub tap: bool,
    /// Ask, after the Freeze tap if there is one, for a tap on the results screen's
    /// Play/Next button once the round is over, and take the daemon's `advance` from it.
    #[arg(long, conflicts_with_all = ["advance", "image"])]
    pub tap_advance: bool,
    /// Where the game's round clock (m:ss, counting down) is, as LEFT,TOP,RIGHT,BOTTOM in
    /// screen pixels, when watching the round does not find it.
    #[arg(long, value_name = "L,T,R,B")]
    pub clock_box: Option<String>,
    /// Where the game's score is, as LEFT,TOP,RIGHT,BOTTOM in screen pixels, when watching
    /// the round does not find it.
    #[arg(long, value_name = "L,T,R,B")]
    pub score_box: Option<String>,
    /// How long to watch the round on the phone for its clock, the clock's digits (learned as
    /// it counts down: 10 to 20 s) and the score, in seconds; 0 watches nothing. The bot then
    /// reads what the game shows: its score, and the time left.
    #[arg(
        long,
        value_name = "SECS",
        allow_negative_numbers = true,
        default_value_t = 30.0
    )]
    pub watch_secs: f64,
    /// How long `--tap` and `--tap-advance` wait for each tap, in seconds.
    #[arg(
        long,
        value_name = "SECS",
        allow_negative_numbers = true,
        default_value_t = 60.0
    )]
    pub tap_wait: f64,
    /// Directory to write NAME.toml and NAME.overlay.png in (made if missing; its parent
    /// must exist).
    #[arg(long, value_name = "DIR", default_value = DEVICES)]
    pub dir: PathBuf,
    /// Replace an existing profile of that name, and learn a --board that contradicts what
    /// the built-in references read surely on the screen.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub phone: PhoneArgs,
}

/// Where profiles are found by name (`--device NAME`), from the working directory.
const DEVICES: &str = "devices";

/// "L,T,R,B" in screen pixels.
fn four(what: &str, text: &str) -> Result<Area, BadInput> {
    let v: Vec<u32> = text
        .split(',')
        .map(|p| p.trim().parse().ok())
        .collect::<Option<_>>()
        .unwrap_or_default();
    match v[..] {
        [x0, y0, x1, y1] if x0 < x1 && y0 < y1 => Ok(Area { x0, y0, x1, y1 }),
        _ => Err(BadInput(anyhow::anyhow!(
            "{what} {text:?} is not LEFT,TOP,RIGHT,BOTTOM in whole pixels, left of right and above bottom"
        ))),
    }
}

/// "X,Y" in screen pixels.
fn point(what: &str, text: &str) -> Result<(f32, f32), BadInput> {
    text.split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)))
        .filter(|(x, y): &(f32, f32)| x.is_finite() && y.is_finite())
        .ok_or_else(|| BadInput(anyhow::anyhow!("{what} {text:?} is not X,Y in pixels")))
}

pub fn run(args: CalibrateArgs) -> anyhow::Result<()> {
    if !Profile::valid_name(&args.name) {
        return Err(BadInput(anyhow::anyhow!(
            "--name {:?} is not a device name: letters, digits, - and _",
            args.name
        ))
        .into());
    }
    let given_freeze = args
        .freeze
        .as_deref()
        .map(|f| point("--freeze", f))
        .transpose()?;
    let tap_wait = seconds("--tap-wait", args.tap_wait, 1.0)?;
    let taps: Vec<Button> = [
        (args.tap, Button::Freeze),
        (args.tap_advance, Button::Advance),
    ]
    .into_iter()
    .filter_map(|(asked, b)| asked.then_some(b))
    .collect();
    let typed = args.board.as_deref().map(game_board).transpose()?;
    let given_clock = args
        .clock_box
        .as_deref()
        .map(|b| four("--clock-box", b))
        .transpose()?;
    let given_score = args
        .score_box
        .as_deref()
        .map(|b| four("--score-box", b))
        .transpose()?;
    let watch = if args.watch_secs == 0.0 {
        None
    } else {
        Some(seconds("--watch-secs", args.watch_secs, 1.0)?)
    };
    let given_advance = args
        .advance
        .as_deref()
        .map(|a| point("--advance", a))
        .transpose()?;
    let paths = calibrate::paths(&args.dir, &args.name);
    if paths.profile.exists() && !args.force {
        return Err(BadInput(anyhow::anyhow!(
            "{} exists: choose another --name, or --force to replace it",
            paths.profile.display()
        ))
        .into());
    }
    let given_numbers = || probe::Numbers {
        clock: given_clock,
        digits: None,
        score: given_score,
        about: Vec::new(),
    };
    let (img, about, freeze, advance, numbers) = match &args.image {
        Some(path) => {
            let about = vec![format!("from the screenshot {}", path.display())];
            let img = load_image(path)?;
            (img, about, given_freeze, given_advance, given_numbers())
        }
        None => {
            let ask = watch.map(|limit| probe::NumbersAsk {
                clock: given_clock,
                score: given_score,
                limit,
            });
            let probed = probe_phone(&args.phone, &taps, tap_wait, ask)?;
            let freeze = probed.tapped(Button::Freeze).or(given_freeze);
            let advance = probed.tapped(Button::Advance).or(given_advance);
            let numbers = probed.numbers.unwrap_or_else(given_numbers);
            (probed.screenshot, probed.about, freeze, advance, numbers)
        }
    };
    let freeze = match (freeze, args.no_freeze) {
        (_, true) => calibrate::Freeze::Without,
        (Some(at), false) => calibrate::Freeze::At(at),
        (None, false) => calibrate::Freeze::Find,
    };
    let made = make(Request {
        name: &args.name,
        dir: &args.dir,
        screen: &img,
        about,
        freeze,
        advance,
        numbers,
        board: typed.as_ref(),
        force: args.force,
    })
    .map_err(|e| match e {
        MakeError::Calibrate(e @ CalibrateError::NotABoard(_)) => NotSure(e.to_string()).into(),
        MakeError::Calibrate(e @ CalibrateError::FreezeOffScreen(..)) => {
            BadInput(anyhow::anyhow!("--freeze: {e}")).into()
        }
        MakeError::Save(e @ (SaveError::Io { .. } | SaveError::Image { .. })) => {
            anyhow::Error::new(e)
        }
        e => BadInput(e.into()).into(),
    })?;
    let by_name = args.dir == std::path::Path::new(DEVICES);
    summary(
        &made.about,
        &made.profile,
        made.freeze_given,
        &made.saved,
        &args.name,
        by_name,
    )
}

/// Probes the phone through the adb server (and reads a tap on each of `taps`, waiting
/// `tap_wait` for each).
fn probe_phone(
    phone: &PhoneArgs,
    taps: &[Button],
    tap_wait: std::time::Duration,
    numbers: Option<probe::NumbersAsk>,
) -> anyhow::Result<probe::Probed> {
    let opts = phone.options()?;
    on_round_runtime(async {
        let phone = super::connect(&opts).await?;
        let ask = &mut |button: Button, limit: std::time::Duration| {
            super::errln!(
                "Tap {} on the phone (waiting {} s)...",
                button.describe(),
                limit.as_secs_f64()
            );
        };
        if let Some(n) = &numbers {
            super::errln!(
                "Watching the round for its clock and score (up to {} s)...",
                n.limit.as_secs()
            );
        }
        probe::probe(&phone, taps, tap_wait, numbers, ask)
            .await
            .map_err(|e| match e {
                e @ ProbeError::NoTouchscreen => {
                    anyhow::anyhow!("{e}: give --freeze X,Y or --advance X,Y instead")
                }
                e => e.into(),
            })
    })?
}

/// What was found and written, for the user.
fn summary(
    about: &[String],
    profile: &Profile,
    freeze_given: bool,
    saved: &calibrate::Saved,
    name: &str,
    by_name: bool,
) -> anyhow::Result<()> {
    let c = profile.centres();
    let mut out = std::io::stdout().lock();
    for line in about {
        writeln!(out, "{line}")?;
    }
    let buttons = if profile.buttons().is_empty() {
        "none (Freeze is not tapped)".to_owned()
    } else {
        format!(
            "{} (radius {}){}",
            profile
                .buttons()
                .iter()
                .map(|(n, p)| format!("{n} ({}, {})", p.0, p.1))
                .collect::<Vec<_>>()
                .join(", "),
            profile.button_radius(),
            if freeze_given {
                ", freeze as given"
            } else {
                ""
            }
        )
    };
    writeln!(
        out,
        "grid: first centre ({}, {}), last ({}, {}), tile {} px; buttons: {buttons}",
        c[0].0,
        c[0].1,
        c[15].0,
        c[15].1,
        profile.tile(),
    )?;
    if let Some((x, y)) = profile.advance() {
        writeln!(
            out,
            "Play/Next at ({x}, {y}): the daemon taps it between rounds"
        )?;
    }
    if saved.made_dir {
        let dir = saved.profile.parent().unwrap_or(std::path::Path::new("."));
        writeln!(out, "made the directory {}", dir.display())?;
    }
    // --device finds a profile in ./devices (or the config directory) by name; anywhere
    // else, only its path does.
    let how = if by_name {
        format!(
            "--device {name} (from this directory) or --profile {}",
            saved.profile.display()
        )
    } else {
        format!("--profile {}", saved.profile.display())
    };
    writeln!(
        out,
        "wrote {} and {}; play with {how}",
        saved.profile.display(),
        saved.overlay.display(),
    )?;
    Ok(())
}
