//! The daemon in this process, on tokio's paused clock, against virtual phones reached in
//! process (`sim::local`): minutes of game time in a few seconds, the same way every run, no
//! adb needed. The phones are the same virtual phones the wall-clock tests reach through
//! Debian's adb server (`tests/daemon.rs` keeps a few of those as smoke tests); only the
//! transport and the clock differ.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use scramblebot::daemon::history::{self, Ended};
use scramblebot::daemon::worker::WorkerOptions;
use scramblebot::daemon::{self, Event, Options, Profiles};
use scramblebot::phone::in_process::InProcess;
use scramblebot::profile::Profile;
use scramblebot::sim::game::GameConfig;
use scramblebot::sim::local::Local;
use scramblebot::sim::{Model, SimConfig};
use tokio::sync::{mpsc, watch};

/// The round's length on the virtual phones and in their profiles.
const ROUND_SECS: u64 = 30;

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("scramblebot-inproc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The shipped profile of `model`, with rounds of `round_secs`.
fn profile(model: Model, round_secs: u64) -> Profile {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("devices/{}.toml", model.name()));
    let text: String = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| {
            if l.starts_with("round_secs") {
                format!("round_secs = {round_secs}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    Profile::from_toml_str(&text, &file.display().to_string()).unwrap()
}

/// A phone in the lobby whose rounds (of `round_secs`) start by themselves: the first
/// `advance_secs` after it starts, each next one `advance_secs` after the last one's
/// results show.
fn lobby_phone(model: Model, seed: u64, round_secs: u64, advance_secs: u64) -> Arc<Local> {
    Local::start(SimConfig {
        model,
        game: GameConfig {
            seed,
            lobby: true,
            round: Duration::from_secs(round_secs),
            auto_advance: Some(Duration::from_secs(advance_secs)),
            ..GameConfig::default()
        },
        report: None,
        letters: None,
    })
}

/// A daemon's run: the phones it was given by name, its options.
struct Run {
    phones: Vec<(String, Arc<Local>)>,
    opts: Options,
}

impl Run {
    /// A daemon for `phones` (each playing with its model's shipped profile, rounds of
    /// `round_secs`), `rounds` rounds each, its history and unsure screens in `dir`.
    fn new(dir: &Path, phones: Vec<(Model, Arc<Local>)>, round_secs: u64, rounds: u32) -> Run {
        let phones: Vec<(String, Arc<Local>)> = phones
            .into_iter()
            .enumerate()
            .map(|(i, (m, p))| (format!("{}-{i}", m.name()), p))
            .collect();
        let profiles: HashMap<String, Profile> = phones
            .iter()
            .map(|(name, p)| (name.clone(), profile(p.device().model(), round_secs)))
            .collect();
        let opts = Options {
            server: "127.0.0.1:5037".parse().unwrap(),
            connect: Vec::new(),
            only: None,
            profiles: Profiles::BySerial(profiles),
            cwd: dir.to_owned(),
            config_dir: None,
            worker: WorkerOptions {
                order: scramblebot::Order::Longest,
                route: None,
                rounds: Some(rounds),
                unsure_dir: dir.join("unsure"),
                keep_screens: 20,
                state: None,
            },
            history: Some(dir.join("history.jsonl")),
            direct: true,
            in_process: phones
                .iter()
                .map(|(n, p)| (n.clone(), p.clone() as Arc<dyn InProcess>))
                .collect(),
        };
        Run { phones, opts }
    }

    /// Runs the daemon to its end; what it said.
    async fn events(self) -> Vec<Event> {
        let (_stop_tx, stop) = watch::channel(false);
        let (tx, mut rx) = mpsc::unbounded_channel();
        daemon::run_direct(self.opts, stop, tx)
            .await
            .expect("the daemon runs");
        let mut events = Vec::new();
        while let Ok(e) = rx.try_recv() {
            events.push(e);
        }
        events
    }
}

fn count(events: &[Event], what: impl Fn(&Event) -> bool) -> usize {
    events.iter().filter(|e| what(e)).count()
}

#[tokio::test(start_paused = true)]
async fn three_phones_play_three_rounds_each() {
    let dir = scratch("three");
    let phones: Vec<(Model, Arc<Local>)> = Model::ALL
        .iter()
        .zip(1..)
        .map(|(&m, seed)| (m, lobby_phone(m, seed, ROUND_SECS, 3)))
        .collect();
    let run = Run::new(&dir, phones, ROUND_SECS, 3);
    let phones = run.phones.clone();
    let started = tokio::time::Instant::now();
    let events = run.events().await;
    let took = started.elapsed();
    let said = format!("{events:#?}");
    assert_eq!(
        count(&events, |e| matches!(e, Event::PhoneReady { .. })),
        3,
        "{said}"
    );
    assert_eq!(
        count(&events, |e| matches!(e, Event::RoundStarted { .. })),
        9,
        "{said}"
    );
    assert_eq!(
        count(&events, |e| matches!(e, Event::PhoneDone { .. })),
        3,
        "{said}"
    );
    // Game time passed: the clock is tokio's, paused, and moved only by waits.
    assert!(took > Duration::from_secs(9), "{took:?}");
    let (rounds, bad) = history::read(&dir.join("history.jsonl")).unwrap();
    assert_eq!((rounds.len(), bad), (9, 0), "{rounds:#?}");
    for (serial, p) in &phones {
        let report = p.device().report();
        assert!(
            report.violations.is_empty(),
            "{serial}: {:?}",
            report.violations
        );
        assert_eq!(report.rejected(), 0, "{serial}: {:?}", report.strokes);
        let mine: Vec<_> = rounds.iter().filter(|r| &r.serial == serial).collect();
        assert_eq!(mine.len(), 3, "{serial}");
        for r in &mine {
            assert!(matches!(r.ended, Ended::AllWords | Ended::Clock), "{r:?}");
            let judged = report
                .rounds
                .iter()
                .find(|g| g.board == r.board)
                .map(|g| g.words)
                .unwrap_or(report.words);
            assert_eq!(judged, r.words_entered, "{serial}: {r:?}");
        }
        assert!(
            mine[1].bonuses.is_some() && mine[2].bonuses.is_some(),
            "{mine:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
