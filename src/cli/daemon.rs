//! `scramblebot daemon`: plays every round on every attached phone that has a profile, until
//! stopped (Ctrl-C or SIGTERM: the finger is lifted, the history flushed; a second signal
//! exits at once) or until each phone has played `--rounds`. The daemon itself is the
//! library's (`scramblebot::daemon`); this file merges the config file with the flags and
//! shows the events: a line each, or one JSON object per line with `--json`.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use scramblebot::daemon::config::DaemonConfig;
use scramblebot::daemon::worker::WorkerOptions;
use scramblebot::daemon::{self, Event, Options, Profiles};
use scramblebot::profile::Profile;

use super::{BadInput, OrderArg, RouteArg, bad, chosen_profile, ipv4, round_runtime};

#[derive(clap::Args, Debug)]
pub struct DaemonArgs {
    /// Config file: rounds, connect = ["HOST:PORT", ...], history, and [phones] mapping
    /// serials to profile names. Flags given as well win.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Play only on this phone (repeatable; default: every phone attached).
    #[arg(short = 's', long = "serial", value_name = "SERIAL")]
    pub serials: Vec<String>,
    /// Use this profile on every phone (as `play --device`); default: the profile whose
    /// screen size is the phone's (./devices, the config directory, then built in).
    #[arg(long, value_name = "NAME", conflicts_with = "profile")]
    pub device: Option<String>,
    /// Use this profile file on every phone.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Rounds to play on each phone, then stop (default: until stopped).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: Option<u32>,
    /// Keep this TCP phone connected through the adb server (repeatable): connected at start
    /// and again whenever it drops.
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Vec<String>,
    /// The history file, one JSON line per round (default:
    /// $XDG_STATE_HOME/scramblebot/history.jsonl).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Where screenshots of boards not read surely go (default: beside the history, in
    /// unsure/).
    #[arg(long, value_name = "DIR")]
    pub unsure_dir: Option<PathBuf>,
    /// Print one JSON event per line instead of lines for people.
    #[arg(long)]
    pub json: bool,
    /// Word order: longest first (then points), or most points first.
    #[arg(long, value_enum, default_value_t = OrderArg::Longest)]
    pub order: OrderArg,
    /// How to enter words, instead of each profile's `input.route`.
    #[arg(long, value_enum)]
    pub route: Option<RouteArg>,
    #[command(flatten)]
    pub server: super::ServerArgs,
}

/// The daemon's options from the flags and the config file (flags win).
fn options(args: &DaemonArgs) -> anyhow::Result<Options> {
    let config = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| BadInput(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
            DaemonConfig::from_toml_str(&text, &path.display().to_string()).map_err(bad)?
        }
        None => DaemonConfig::default(),
    };
    let mut connect = config.connect.clone();
    for c in &args.connect {
        connect.push(ipv4("--connect", c, None)?);
    }
    let cwd = std::env::current_dir()?;
    let config_dir = super::config_dir();
    let profiles = match chosen_profile(args.device.as_deref(), args.profile.as_deref())? {
        Some(p) => Profiles::One(Box::new(p)),
        None if !config.phones.is_empty() => {
            let mut map = HashMap::new();
            for (serial, name) in &config.phones {
                let p = Profile::find(name, &cwd, config_dir.as_deref()).map_err(bad)?;
                map.insert(serial.clone(), p);
            }
            Profiles::BySerial(map)
        }
        None => Profiles::BySize,
    };
    let history = args
        .history
        .clone()
        .or(config.history.clone())
        .or_else(daemon::default_history);
    let unsure_dir = args
        .unsure_dir
        .clone()
        .unwrap_or_else(|| daemon::default_unsure_dir(history.as_deref()));
    Ok(Options {
        server: args.server.addr()?,
        connect,
        only: (!args.serials.is_empty())
            .then(|| args.serials.iter().cloned().collect::<HashSet<_>>()),
        profiles,
        cwd,
        config_dir,
        worker: WorkerOptions {
            order: args.order.into(),
            route: args.route.map(Into::into),
            rounds: args.rounds.or(config.rounds),
            unsure_dir,
        },
        history,
        direct: false,
    })
}

pub fn run(args: DaemonArgs) -> anyhow::Result<()> {
    let opts = options(&args)?;
    let json = args.json;
    if !json {
        eprintln!(
            "scramblebot daemon: adb server {}, history {}; Ctrl-C to stop",
            opts.server,
            opts.history
                .as_ref()
                .map_or("off".to_owned(), |p| p.display().to_string())
        );
    }
    let runtime = round_runtime()?;
    let summary = runtime.block_on(async {
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        tokio::spawn(async move {
            let Ok(mut term) =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            else {
                return;
            };
            for n in 0.. {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
                if n > 0 {
                    eprintln!("stopped at once");
                    std::process::exit(130);
                }
                eprintln!("stopping: lifting the finger, writing the history (again to quit now)");
                let _ = stop_tx.send(true);
            }
        });
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let shown = tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                show(&event, json);
            }
        });
        let summary = daemon::run(opts, stop, tx).await;
        let _ = shown.await;
        summary
    })?;
    if !json {
        let mut phones: Vec<_> = summary.into_iter().collect();
        phones.sort();
        for (serial, rounds) in phones {
            eprintln!(
                "{serial}: {rounds} round{}",
                if rounds == 1 { "" } else { "s" }
            );
        }
    }
    Ok(())
}

/// One event, as a line for people or a JSON object.
pub(super) fn show(event: &Event, json: bool) {
    if json {
        if let Ok(line) = serde_json::to_string(event) {
            println!("{line}");
        }
        return;
    }
    let line = match event {
        Event::PhoneReady {
            serial,
            profile,
            model,
            screen,
        } => format!(
            "{serial}: {model} ({}x{}), profile {profile}",
            screen.0, screen.1
        ),
        Event::NoProfile { serial, screen } => format!(
            "no profile for {serial} ({}x{}): run scramblebot calibrate --name NAME -s {serial}",
            screen.0, screen.1
        ),
        Event::Advanced { serial } => format!("{serial}: tapped Play/Next"),
        Event::JoinedLate { serial, board } => {
            format!("{serial}: board {board} already on screen; waiting for the next round")
        }
        Event::RoundStarted {
            serial,
            round,
            board,
            bonuses,
            words,
        } => format!(
            "{serial}: round {round}, board {board}{}, {words} words",
            bonuses
                .as_ref()
                .map(|b| format!(" with {b}"))
                .unwrap_or_default()
        ),
        Event::Resumed {
            serial,
            board,
            words_left,
        } => format!("{serial}: back; board {board}, {words_left} words left"),
        Event::Progress { .. } => return,
        Event::RoundEnded { record: r } => format!(
            "{}: entered {} of {} words ({} of {} points as scored by the solver), {:?}",
            r.serial, r.words_entered, r.words_planned, r.points_claimed, r.max_points, r.ended
        ),
        Event::Skipped {
            serial,
            why,
            screenshot,
        } => format!(
            "{serial}: round skipped, the board is not read surely ({why}){}",
            screenshot
                .as_ref()
                .map(|p| format!("; screenshot {}", p.display()))
                .unwrap_or_default()
        ),
        Event::PhoneLost { serial, why } => format!("{serial}: lost ({why})"),
        Event::PhoneDone { serial, rounds } => format!("{serial}: done, {rounds} rounds"),
        Event::Note { text } => text.clone(),
    };
    println!("{line}");
}
