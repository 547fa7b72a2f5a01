//! `scramblebot calibrate`: a profile for a new phone from its screen (or a screenshot file),
//! written with an overlay picture to check. Probing and the profile itself are the library's
//! (`scramblebot::calibrate`); this file adds the flags' hints to its refusals.

use std::io::Write;
use std::path::PathBuf;

use scramblebot::calibrate::probe::{self, Button, ProbeError};
use scramblebot::calibrate::{self, CalibrateError, SaveError};
use scramblebot::play::unsure_text;
use scramblebot::profile::{Glyphs, Profile};
use scramblebot::vision::glyph::Classifier;

use super::{BadInput, NotSure, PhoneArgs, game_board, load_image, round_runtime, seconds};

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
    /// How long `--tap` and `--tap-advance` wait for each tap, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    pub tap_wait: f64,
    /// Directory to write NAME.toml and NAME.overlay.png in (made if missing; its parent
    /// must exist).
    #[arg(long, value_name = "DIR", default_value = DEVICES)]
    pub dir: PathBuf,
    /// Replace an existing profile of that name.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub phone: PhoneArgs,
}

/// Where profiles are found by name (`--device NAME`), from the working directory.
const DEVICES: &str = "devices";

/// How the built-in references did against the board typed: "read 1 of 16 tiles
/// otherwise", "read all 16 tiles as typed, 3 of them unsure".
fn builtin_verdict(differ: usize, unsure: usize) -> String {
    let read = match differ {
        0 => "read all 16 tiles as typed".to_owned(),
        n => format!("read {n} of 16 tiles otherwise"),
    };
    match unsure {
        0 => format!("{read}, every one surely"),
        n => format!("{read}, {n} of them unsure"),
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
    let (img, mut about, freeze, advance) = match &args.image {
        Some(path) => {
            let about = vec![format!("from the screenshot {}", path.display())];
            (load_image(path)?, about, given_freeze, given_advance)
        }
        None => {
            let probed = probe_phone(&args.phone, &taps, tap_wait)?;
            let freeze = probed.tapped(Button::Freeze).or(given_freeze);
            let advance = probed.tapped(Button::Advance).or(given_advance);
            (probed.screenshot, probed.about, freeze, advance)
        }
    };
    let choice = match (freeze, args.no_freeze) {
        (_, true) => calibrate::Freeze::Without,
        (Some(at), false) => calibrate::Freeze::At(at),
        (None, false) => calibrate::Freeze::Find,
    };
    let cal = calibration(&img, choice)?;
    if cal.buttons.is_empty() {
        about.push(if args.no_freeze {
            "no Freeze, as asked: Freeze will not be tapped".to_owned()
        } else {
            "no row of lifeline buttons under the grid: Freeze will not be tapped (add it with --freeze X,Y, or --tap on a phone)".to_owned()
        });
    }
    let mut profile = cal
        .profile(&args.name)
        .and_then(|p| p.to_builder().advance(advance).build())
        .map_err(super::bad)?;
    let strip = match &typed {
        None => None,
        Some(board) => {
            let (strip, differ) = cal.glyphs(&img, board).map_err(|e| BadInput(e.into()))?;
            let unsure = cal.reading.tiles.iter().filter(|t| !t.sure()).count();
            about.push(format!(
                "glyph templates of {board} in {}; without them the built-in references {}",
                paths.glyphs.clone().unwrap_or_default().display(),
                builtin_verdict(differ, unsure)
            ));
            let glyphs = Glyphs {
                file: format!("{}.glyphs.png", args.name),
                tiles: board.tiles().to_vec(),
            };
            profile = profile
                .to_builder()
                .glyphs(Some(glyphs))
                .build()
                .map_err(super::bad)?;
            Some(strip)
        }
    };
    let reading = &cal.reading;
    about.push(format!(
        "board read {}{}",
        reading.board(),
        if reading.sure() {
            String::new()
        } else {
            format!(" (not sure of {})", unsure_text(reading))
        }
    ));
    about.push(format!("check it on {}", paths.overlay.display()));
    let header = std::iter::once(format!(
        "{}: calibrated by `scramblebot calibrate`",
        args.name
    ))
    .chain(about.iter().cloned())
    .collect::<Vec<_>>()
    .join("\n");
    let saved = calibrate::save(
        &args.dir,
        &profile,
        &header,
        &img,
        reading,
        strip.as_ref(),
        args.force,
    )
    .map_err(|e| match e {
        e @ (SaveError::Exists(_) | SaveError::NoParent { .. } | SaveError::NotADirectory(_)) => {
            BadInput(e.into()).into()
        }
        e => anyhow::Error::new(e),
    })?;
    let by_name = args.dir == std::path::Path::new(DEVICES);
    summary(
        &about,
        &profile,
        cal.freeze_given,
        &saved,
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
) -> anyhow::Result<probe::Probed> {
    let opts = phone.options()?;
    round_runtime()?.block_on(async {
        let phone = super::connect(&opts).await?;
        let ask = &mut |button: Button, limit: std::time::Duration| {
            eprintln!(
                "Tap {} on the phone (waiting {} s)...",
                button.describe(),
                limit.as_secs_f64()
            );
        };
        probe::probe(&phone, taps, tap_wait, ask)
            .await
            .map_err(|e| match e {
                e @ ProbeError::NoTouchscreen => {
                    anyhow::anyhow!("{e}: give --freeze X,Y or --advance X,Y instead")
                }
                e => e.into(),
            })
    })
}

/// The grid and the buttons found on `img`, with the flags that fix a refusal.
fn calibration(
    img: &image::RgbaImage,
    freeze: calibrate::Freeze,
) -> anyhow::Result<calibrate::Calibration> {
    calibrate::calibrate(img, freeze, &Classifier::built_in()).map_err(|e| match e {
        e @ CalibrateError::NotABoard(_) => NotSure(e.to_string()).into(),
        e @ CalibrateError::FreezeOffScreen(..) => {
            BadInput(anyhow::anyhow!("--freeze: {e}")).into()
        }
        e => BadInput(e.into()).into(),
    })
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_references_are_judged_in_words() {
        let cases = [
            (0, 0, "read all 16 tiles as typed, every one surely"),
            (0, 16, "read all 16 tiles as typed, 16 of them unsure"),
            (1, 0, "read 1 of 16 tiles otherwise, every one surely"),
            (3, 2, "read 3 of 16 tiles otherwise, 2 of them unsure"),
        ];
        for (differ, unsure, want) in cases {
            assert_eq!(super::builtin_verdict(differ, unsure), want);
        }
    }
}
