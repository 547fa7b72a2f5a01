//! `scramblebot daemon`: plays every round on every attached phone that has a profile, until
//! stopped (Ctrl-C or SIGTERM: the finger is lifted, the history flushed; a second signal
//! exits at once) or until each phone has played `--rounds`. The daemon itself is the
//! library's (`scramblebot::daemon`); this file merges the config file with the flags and
//! shows the events: a line each, or one JSON object per line with `--json`.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use std::io::IsTerminal;

use anyhow::Context;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use scramblebot::daemon::config::DaemonConfig;
use scramblebot::daemon::history::{Ended, RoundRecord};
use scramblebot::daemon::worker::WorkerOptions;
use scramblebot::daemon::{self, Event, Options, Profiles};
use scramblebot::profile::Profile;
use tokio::signal::unix::{SignalKind, signal};

use super::{BadInput, OrderArg, RouteArg, bad, chosen_profile, on_round_runtime, phone_addr};

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
    /// The most screenshots kept in the unsure directory: past it, the oldest the bot saved
    /// there are removed (other files are never touched).
    #[arg(long, value_name = "N", default_value_t = 200,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub keep_screens: u32,
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
            let text = scramblebot::files::read_text(path, scramblebot::files::Kind::Config)
                .map_err(|e| BadInput(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
            DaemonConfig::from_toml_str(&text, &path.display().to_string()).map_err(bad)?
        }
        None => DaemonConfig::default(),
    };
    let mut connect = config.connect.clone();
    for c in &args.connect {
        connect.push(phone_addr("--connect", c)?);
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
    // A history that cannot be kept is said before any phone plays, not after its round.
    if let Some(path) = &history {
        scramblebot::daemon::history::check_path(path).map_err(bad)?;
    }
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
            keep_screens: args.keep_screens as usize,
            state: scramblebot::state::State::from_env(),
        },
        history,
        direct: false,
        in_process: Vec::new(),
    })
}

pub fn run(args: DaemonArgs) -> anyhow::Result<()> {
    let opts = options(&args)?;
    let json = args.json;
    if !json {
        super::errln!(
            "scramblebot daemon: adb server {}, history {}; Ctrl-C to stop",
            opts.server,
            opts.history
                .as_ref()
                .map_or("off".to_owned(), |p| p.display().to_string())
        );
    }
    let summary = on_round_runtime(async {
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        // The signals are caught from here on, before any phone is looked for. SIGHUP (the
        // terminal closed, the ssh session ended) stops it as SIGTERM does: the round in
        // progress recorded as stopped, the finger lifted.
        let (mut term, mut interrupt, mut hangup) = (
            signal(SignalKind::terminate()).context("cannot catch SIGTERM")?,
            signal(SignalKind::interrupt()).context("cannot catch SIGINT")?,
            signal(SignalKind::hangup()).context("cannot catch SIGHUP")?,
        );
        tokio::spawn(async move {
            for n in 0.. {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = term.recv() => {}
                    _ = hangup.recv() => {}
                }
                if n > 0 {
                    super::errln!("stopped at once");
                    std::process::exit(130);
                }
                super::errln!(
                    "stopping: lifting the finger, writing the history (again to quit now)"
                );
                let _ = stop_tx.send(true);
            }
        });
        let (tx, shown) = display(json);
        let summary = daemon::run(opts, stop, tx).await;
        let _ = shown.await;
        anyhow::Ok(summary?)
    })??;
    if !json {
        let mut phones: Vec<_> = summary.into_iter().collect();
        phones.sort();
        for (serial, rounds) in phones {
            super::errln!("{serial}: {}", plural(rounds, "round"));
        }
    }
    Ok(())
}

/// Starts showing the daemon's events as they come (see [`Display`]); the task ends when
/// the sender is dropped.
pub(super) fn display(
    json: bool,
) -> (
    tokio::sync::mpsc::UnboundedSender<Event>,
    tokio::task::JoinHandle<()>,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let shown = tokio::spawn(async move {
        let mut display = Display::new(json);
        while let Some(event) = rx.recv().await {
            display.show(&event);
        }
        display.finish();
    });
    (tx, shown)
}

/// How the events reach the user: one JSON object a line (`--json`); on a terminal, a live
/// line per phone (state, round, words entered of all, points, time left) under the lines
/// of what happened; otherwise those lines alone, on stdout.
enum Display {
    Json,
    Lines,
    Live(Live),
}

impl Display {
    fn new(json: bool) -> Display {
        if json {
            Display::Json
        } else if std::io::stderr().is_terminal() {
            Display::Live(Live {
                multi: MultiProgress::new(),
                bars: HashMap::new(),
            })
        } else {
            Display::Lines
        }
    }

    fn show(&mut self, event: &Event) {
        match self {
            Display::Json => {
                if let Ok(line) = serde_json::to_string(event) {
                    let _ = super::outln!("{line}");
                }
            }
            Display::Lines => {
                if let Some(line) = line(event) {
                    let _ = super::outln!("{line}");
                }
            }
            Display::Live(live) => live.show(event),
        }
    }

    fn finish(&mut self) {
        if let Display::Live(live) = self {
            for (bar, _) in live.bars.values() {
                bar.abandon();
            }
        }
    }
}

/// The live lines, one per phone.
struct Live {
    multi: MultiProgress,
    /// Each phone's line, and the round it is playing.
    bars: HashMap<String, (ProgressBar, u32)>,
}

impl Live {
    fn bar(&mut self, serial: &str) -> &mut (ProgressBar, u32) {
        self.bars.entry(serial.to_owned()).or_insert_with(|| {
            let style = ProgressStyle::with_template(
                "{prefix:<21!} {bar:24.cyan/blue} {pos:>3}/{len:<3} words  {msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            let bar = self.multi.add(ProgressBar::new(0).with_style(style));
            bar.set_prefix(serial.to_owned());
            (bar, 0)
        })
    }

    fn show(&mut self, event: &Event) {
        if let Some(line) = line(event) {
            let _ = self.multi.println(line);
        }
        let Some(serial) = event.serial() else {
            return;
        };
        let (bar, playing) = self.bar(serial);
        match event {
            Event::PhoneReady { profile, .. } => {
                bar.set_message(format!("ready ({profile}); waiting for a board"));
            }
            Event::NoProfile { .. } => bar.set_message("no profile: left alone"),
            Event::JoinedLate { .. } => {
                bar.set_message("joined late: playing until the board goes")
            }
            Event::Advanced { .. } => bar.set_message("tapped Play/Next"),
            Event::Woke { .. } => bar.set_message("the screen was off: turned it on"),
            Event::Unlocked { .. } => bar.set_message("dismissed the lock screen"),
            Event::Locked { .. } => bar.set_message("locked: waiting for its owner"),
            Event::RoundStarted { round, words, .. } => {
                bar.set_length(*words as u64);
                bar.set_position(0);
                bar.set_message(format!("round {round}"));
                *playing = *round;
            }
            Event::Resumed { words_left, .. } => {
                bar.set_message(format!("back, {words_left} words left"));
            }
            Event::Progress {
                entered,
                planned,
                points,
                points_seen,
                left_secs,
                ..
            } => {
                bar.set_length(*planned as u64);
                bar.set_position(*entered as u64);
                let left = left_secs.max(0.0).round() as u64;
                bar.set_message(format!(
                    "round {playing}: {}, {}:{:02} left",
                    super::points_text(*points, *points_seen),
                    left / 60,
                    left % 60
                ));
            }
            Event::RoundEnded { record } => bar.set_message(format!(
                "{} points ({}); waiting for the next board",
                record.points_claimed,
                ended(record.ended)
            )),
            Event::Skipped { .. } => bar.set_message("not read surely: not played"),
            Event::StillDimmed { secs, .. } => {
                bar.set_message(format!("the board has been dimmed for {secs} s; waiting"));
            }
            Event::ScoreStill { .. } => bar.set_message("WARNING: the score is not moving"),
            Event::PhoneLost { .. } => bar.set_message("lost; waiting for it to come back"),
            Event::PhoneDone { rounds, .. } => {
                bar.set_message(format!("done, {}", plural(*rounds, "round")));
            }
            Event::Note { .. } => {}
        }
    }
}

/// "1 round", "3 rounds".
fn plural(n: u32, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// How a round ended, in words.
fn ended(e: Ended) -> &'static str {
    match e {
        Ended::AllWords => "every word entered",
        Ended::Clock => "the clock ran out",
        Ended::BoardGone => "the board left the screen",
        Ended::Stopped => "stopped",
        Ended::PhoneLost => "the phone went away",
        Ended::Unsure => "not read surely",
    }
}

/// One event as a line for people; none for progress.
fn line(event: &Event) -> Option<String> {
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
        Event::Woke { serial } => {
            format!("{serial}: the screen had gone off (screen timeout): turned it on")
        }
        Event::Unlocked { serial } => {
            format!("{serial}: a lock screen covered the game: dismissed it")
        }
        Event::Locked { serial } => format!(
            "{serial}: its lock screen covers the game and cannot be dismissed from here \
             (a PIN, pattern or password): unlock it, or set Settings > Security > Screen \
             lock to None for unattended play; waiting"
        ),
        Event::JoinedLate { serial, board } => {
            format!(
                "{serial}: board {board} already on screen, its start unknown: playing it until it leaves the screen"
            )
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
        Event::Progress { .. } => return None,
        Event::RoundEnded { record } => round_ended(record),
        Event::Skipped {
            serial,
            why,
            screenshot,
        } => format!(
            "{serial}: the board is not read surely ({why}): not played while it stays so{}",
            screenshot
                .as_ref()
                .map(|p| format!("; screenshot {}", p.display()))
                .unwrap_or_default()
        ),
        Event::StillDimmed {
            serial,
            why,
            secs,
            screenshot,
        } => format!(
            "{serial}: the board has stayed dimmed for {secs} s ({why}): not played, waiting for it to clear{}",
            screenshot
                .as_ref()
                .map(|p| format!("; screenshot {}", p.display()))
                .unwrap_or_default()
        ),
        Event::ScoreStill {
            serial,
            after_words,
            screenshot,
        } => format!(
            "WARNING {serial}: the game's score has not moved after {after_words} words: the game is not taking them (check the profile against the screen{})",
            screenshot
                .as_ref()
                .map(|p| format!(", {}", p.display()))
                .unwrap_or_default()
        ),
        Event::PhoneLost { serial, why } => format!("{serial}: lost ({why})"),
        Event::PhoneDone { serial, rounds } => {
            format!("{serial}: done, {}", plural(*rounds, "round"))
        }
        Event::Note { text } => text.clone(),
    };
    Some(line)
}

/// The daemon's line for a round that ended: what it entered, what the game showed and took,
/// and how it ended.
fn round_ended(r: &RoundRecord) -> String {
    format!(
        "{}: entered {} of {} words ({} of {} points as scored by the solver{}{}{}{}), {}",
        r.serial,
        r.words_entered,
        r.words_planned,
        r.points_claimed,
        r.max_points,
        match r.points_seen {
            Some(seen) if scramblebot::play::seen_short(seen, r.points_claimed) =>
                format!("; WARNING: the game shows only {seen}"),
            Some(seen) => format!("; the game shows {seen}"),
            // A profile that knows where the score is, and never read it surely.
            None if r.score_looked => "; the game's score not read surely".into(),
            None => String::new(),
        },
        match (r.words_taken, r.words_refused) {
            (Some(t), Some(0) | None) => format!("; it took {}", plural(t as u32, "word")),
            (Some(t), Some(n)) => format!(
                "; it took {}, refused {n} (not in its list)",
                plural(t as u32, "word")
            ),
            (None, _) => String::new(),
        },
        match r.words_unknown {
            Some(n) if n > 0 => format!(", {n} not told apart by the score"),
            _ => String::new(),
        },
        match r.words_entered_again {
            0 => String::new(),
            n => format!("; {} entered again", plural(n as u32, "word")),
        },
        ended(r.ended)
    )
}

#[cfg(test)]
#[path = "daemon_tests.rs"]
mod tests;
