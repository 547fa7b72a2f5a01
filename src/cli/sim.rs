//! `scramblebot sim`: a virtual phone on a loopback port, until Ctrl-C or SIGTERM; `tap X Y`
//! on its terminal is a finger on its screen.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use scramblebot::sim::game::{GameConfig, ScreenLock};
use scramblebot::sim::screen::Face;
use scramblebot::sim::{Cable, Device, Limits, Model, Sim, SimConfig};

use super::{ModelArg, game_board, seconds};

/// `--screen-lock`.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum LockArg {
    None,
    Swipe,
    Pin,
}

/// `--link`: the cable a virtual phone's bytes cross to the host.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum LinkArg {
    /// No cost: as fast as this machine's loopback.
    #[default]
    Loopback,
    /// USB 2 (about 30 MB/s): a 1080x2400 screenshot takes about 350 ms.
    Usb2,
    /// Wi-Fi (`adb connect`, about 5 MB/s).
    Wifi,
}

impl From<LinkArg> for Cable {
    fn from(l: LinkArg) -> Cable {
        match l {
            LinkArg::Loopback => Cable::Loopback,
            LinkArg::Usb2 => Cable::Usb2,
            LinkArg::Wifi => Cable::Wifi,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct SimArgs {
    /// Loopback port its adbd listens on (0 picks a free one).
    #[arg(long, default_value_t = 5555)]
    pub port: u16,
    /// Which phone to be: nexus7 (800x1280, Android 5.1), pixel (1080x2400, Android 13),
    /// small (480x800, Android 4.4).
    #[arg(long, value_enum, default_value_t = ModelArg::Nexus7)]
    pub model: ModelArg,
    /// The first round's board (16 letters, as `solve` takes them); default: rolled from
    /// the seed.
    #[arg(long, value_name = "LETTERS", conflicts_with = "seed")]
    pub board: Option<String>,
    /// Seed of the boards and bonus tiles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Length of a round in seconds.
    #[arg(
        long,
        default_value_t = 120.0,
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub round_secs: f64,
    /// Seconds one Freeze adds to the clock.
    #[arg(
        long,
        default_value_t = 15.0,
        value_name = "SECS",
        allow_negative_numbers = true
    )]
    pub freeze_secs: f64,
    /// Freezes allowed per round (default: unlimited).
    #[arg(long, value_name = "N")]
    pub freeze_uses: Option<u32>,
    /// The game's frame interval: it sees the latest touch sample of each frame.
    #[arg(long, default_value_t = 16.0, value_name = "MS")]
    pub frame_ms: f64,
    /// Start in the lobby (tap Play to start the round) instead of in a running round.
    #[arg(long)]
    pub lobby: bool,
    /// Start the next round by itself this many seconds after the results show, and the first
    /// this many seconds after starting in the lobby (default: only a tap on Play/Next does).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub auto_advance: Option<f64>,
    /// Cover the board of this round (1 is the first) with Android's "isn't responding"
    /// dialog, a board no reader can read: a bot must skip the round, touching nothing.
    #[arg(long, value_name = "ROUND", value_parser = clap::value_parser!(u32).range(1..))]
    pub dialog_round: Option<u32>,
    /// Dim the board of this round under a dark overlay ("Reconnecting...") for the whole
    /// round: a bot must wait, touching nothing, and say that it is waiting.
    #[arg(long, value_name = "ROUND", value_parser = clap::value_parser!(u32).range(1..))]
    pub dimmed_round: Option<u32>,
    /// Lay a banner ("Go!") across the board's middle two rows for this many seconds at the
    /// start of every round, as games do: the board cannot be read surely under it, the clock
    /// runs, and a touch then lands on the banner. A bot must wait it out and play the round.
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub banner_secs: Option<f64>,
    /// Ignore a word stroke that begins less than this many milliseconds after the last word
    /// the game took, as a real game busy with its last word does: a bot that swipes faster
    /// loses words unless it looks at the score.
    #[arg(long, value_name = "MS", default_value_t = 0.0)]
    pub accept_gap_ms: f64,
    /// The game's own word list (one word a line), instead of ENABLE: a real game refuses
    /// some words the bot's list has.
    #[arg(long, value_name = "FILE")]
    pub game_words: Option<PathBuf>,
    /// Turn the screen off after this many seconds without a touch or a key, as a phone's
    /// screen timeout does: the screen is black and touches are dropped until a wake key
    /// (`input keyevent KEYCODE_WAKEUP`) turns it on (default: never, as with Developer
    /// options > Stay awake).
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    pub screen_timeout: Option<f64>,
    /// The lock screen that shows once the screen has gone off: none; swipe (no secret: the
    /// MENU key, and `wm dismiss-keyguard` from Android 7, dismiss it); pin (only its owner
    /// unlocks it). While it shows, the game sees no touch.
    #[arg(long, value_name = "LOCK", default_value = "none")]
    pub screen_lock: LockArg,
    /// JSON report of every stroke, the score, freezes and violations (with --phones, one
    /// per phone: NAME-1.json, NAME-2.json, ...).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Serve this many phones, on consecutive ports from --port, the models in turn from
    /// --model (nexus7, pixel, small), each with its own seed (--seed, +1, ...).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub phones: u16,
    /// Draw the tiles' letters in this typeface (a TrueType or OpenType file), as a real game
    /// draws them in its own, instead of the built-in DejaVu Sans Bold that the board reader
    /// has references for.
    #[arg(long, value_name = "FILE")]
    pub font: Option<PathBuf>,
    /// The cable to model between phone and host: every byte the phone sends (a screenshot
    /// most of all) takes as long as it would over it.
    #[arg(long, value_enum, default_value_t = LinkArg::Loopback)]
    pub link: LinkArg,
}

pub fn run(args: SimArgs) -> anyhow::Result<()> {
    let first: Model = args.model.into();
    let board = args.board.as_deref().map(game_board).transpose()?;
    let letters = args
        .font
        .as_deref()
        .map(Face::load)
        .transpose()
        .map_err(|e| super::BadInput(e.into()))?;
    let game = GameConfig {
        board,
        seed: args.seed,
        round: seconds("--round-secs", args.round_secs, 1.0)?,
        freeze: seconds("--freeze-secs", args.freeze_secs, 0.0)?,
        freeze_uses: args.freeze_uses,
        frame: super::millis("--frame-ms", args.frame_ms, 1.0)?,
        lobby: args.lobby,
        auto_advance: args
            .auto_advance
            .map(|s| seconds("--auto-advance", s, 0.0))
            .transpose()?,
        dialog_round: args.dialog_round,
        dimmed_round: args.dimmed_round,
        banner: args
            .banner_secs
            .map(|s| seconds("--banner-secs", s, 0.0))
            .transpose()?,
        accept_gap: super::millis("--accept-gap-ms", args.accept_gap_ms, 0.0)?,
        words: args
            .game_words
            .as_deref()
            .map(scramblebot::Trie::load)
            .transpose()
            .map_err(|e| super::BadInput(e.into()))?,
        screen_timeout: args
            .screen_timeout
            .map(|s| seconds("--screen-timeout", s, 1.0))
            .transpose()?,
        screen_lock: match args.screen_lock {
            LockArg::None => ScreenLock::None,
            LockArg::Swipe => ScreenLock::Swipe,
            LockArg::Pin => ScreenLock::Pin,
        },
    };
    // The stop signals are caught before any phone listens: a SIGTERM sent as soon as a
    // phone answers (a test, a supervisor) writes the reports and exits 0 even on a machine
    // so busy that this thread has not gone further yet.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (mut term, mut interrupt) = {
        use tokio::signal::unix::{SignalKind, signal};
        let _inside = runtime.enter();
        (
            signal(SignalKind::terminate())?,
            signal(SignalKind::interrupt())?,
        )
    };
    let start = Model::ALL.iter().position(|&m| m == first).unwrap_or(0);
    let mut sims = Vec::new();
    for i in 0..args.phones as usize {
        let model = Model::ALL[(start + i) % Model::ALL.len()];
        let port = match args.port {
            0 => 0,
            p => p.checked_add(i as u16).ok_or_else(|| {
                super::BadInput(anyhow::anyhow!("--port {p} + {i} is past 65535"))
            })?,
        };
        let report = args.report.as_ref().map(|r| report_path(r, i, args.phones));
        let config = SimConfig {
            model,
            game: GameConfig {
                seed: args.seed + i as u64,
                ..game.clone()
            },
            report: report.clone(),
            letters: letters.clone(),
        };
        let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
        let limits = Limits {
            cable: args.link.into(),
            ..Limits::default()
        };
        let sim = Sim::start_limited(addr, config, limits).with_context(|| {
            format!("cannot listen on {addr} (is another phone or adb using it?)")
        })?;
        let addr = sim.addr();
        let r = sim.device().report();
        let (_, name, _) = model.product();
        let _ = super::outln!(
            "virtual {} ({name}, Android {}, sdk {}) listening on {addr}{}",
            model.name(),
            model.release(),
            model.sdk(),
            match limits.cable {
                Cable::Loopback => String::new(),
                c => format!(" (its bytes paced as over {})", c.name()),
            }
        );
        let _ = super::outln!(
            "board {}  (screen: {:?}, round {} s)",
            r.board,
            r.screen,
            args.round_secs
        );
        if let Some(face) = &letters {
            let _ = super::outln!("letters:  drawn in {}", face.path().display());
        }
        let _ = super::outln!("connect:  adb connect {addr}   then   adb -s {addr} shell ...");
        if let Some(path) = &report {
            let _ = super::outln!("report:   {}", path.display());
        }
        sims.push(sim);
    }
    let _ = super::outln!(
        "touch:    type `tap X Y` (display pixels) and Enter here: a finger taps the {}screen",
        if sims.len() > 1 { "first phone's " } else { "" }
    );
    let _ = super::outln!("stop with Ctrl-C");
    let _ = std::io::stdout().flush();
    let device = Arc::clone(sims[0].device());
    std::thread::Builder::new()
        .name("finger".into())
        .spawn(move || finger(&device))?;
    runtime.block_on(async {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = term.recv() => {}
        }
    });
    for sim in &sims {
        sim.device().write_report();
        let report = sim.device().report();
        super::errln!(
            "stopped {}: score {} of {} possible, {} words, {} strokes, {} violations",
            sim.addr(),
            report.score,
            report.max_score,
            report.words,
            report.strokes.len(),
            report.violations.len()
        );
    }
    Ok(())
}

/// The report file of phone `i` of `n`: the file itself for one phone, NAME-I.EXT for more.
fn report_path(path: &std::path::Path, i: usize, n: u16) -> PathBuf {
    if n <= 1 {
        return path.to_owned();
    }
    let stem = path
        .file_stem()
        .map_or_else(|| "report".into(), |s| s.to_string_lossy().into_owned());
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{}.{}", i + 1, ext.to_string_lossy()),
        None => format!("{stem}-{}", i + 1),
    };
    path.with_file_name(name)
}

/// The screen under a finger: what a person does to a phone (`calibrate --tap` reads it),
/// from `tap X Y` lines on stdin.
fn finger(device: &Device) {
    for line in std::io::stdin().lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let at = match words.as_slice() {
            ["tap", x, y] => x.parse::<f32>().ok().zip(y.parse::<f32>().ok()),
            [] => continue,
            _ => None,
        };
        let (w, h) = (device.layout().width, device.layout().height);
        match at {
            Some((x, y)) if (0.0..w as f32).contains(&x) && (0.0..h as f32).contains(&y) => {
                device.finger_tap((x, y), Duration::from_millis(80));
                let _ = super::outln!("tapped ({x}, {y})");
            }
            _ => super::errln!("not understood: {line:?} (tap X Y, inside {w}x{h})"),
        }
    }
}
