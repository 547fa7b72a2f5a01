//! The host daemon: it follows the adb server's device list (`host:track-devices`), starts a
//! worker for every phone that comes ready and has a profile, plays round after round on each
//! (`worker`), keeps TCP phones connected (`--connect`), and records every round in the
//! history (`history`). One phone's failure never stops another: a worker whose phone goes
//! ends, and a new one starts when the phone is back, resuming the round it was playing if
//! that round is still on. It stops when its stop signal turns true (workers lift the finger
//! and finish), or when every phone has played its rounds.

pub mod config;
pub mod history;
pub mod worker;

use std::collections::{HashMap, HashSet};
use std::net::SocketAddrV4;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;

use crate::dict::Trie;
use crate::phone::in_process::InProcess;
use crate::phone::track::Tracker;
use crate::phone::{self, Phone, PhoneError, ServerOptions};
use crate::profile::Profile;
use history::RoundRecord;
use worker::{Memory, Worker, WorkerOptions};

/// How often a TCP phone that is not attached is connected again.
const RECONNECT_EVERY: Duration = Duration::from_secs(2);
/// How long to wait before following the server's list again after it went away.
const SERVER_RETRY: Duration = Duration::from_secs(1);

/// Which profile a phone plays with.
#[derive(Clone, Debug)]
pub enum Profiles {
    /// This one for every phone (scaled to a screen of the same shape).
    One(Box<Profile>),
    /// By serial; a phone not listed gets the profile its screen size has, as `BySize`.
    BySerial(HashMap<String, Profile>),
    /// The first profile whose screen has the phone's size: ./devices, then the config
    /// directory's devices, then the built-in ones.
    BySize,
}

/// Everything the daemon is started with.
#[derive(Clone, Debug)]
pub struct Options {
    pub server: SocketAddrV4,
    /// TCP phones to keep connected through the server.
    pub connect: Vec<std::net::SocketAddr>,
    /// Only these phones (by serial); `None`: every phone.
    pub only: Option<HashSet<String>>,
    pub profiles: Profiles,
    /// Where `Profiles::BySize` looks: the working directory and the config directory.
    pub cwd: PathBuf,
    pub config_dir: Option<PathBuf>,
    pub worker: WorkerOptions,
    /// The history file; `None`: no history.
    pub history: Option<PathBuf>,
    /// The phones are `connect`'s addresses reached straight over TCP, without an adb server
    /// (the built-in virtual phones: `demo --phones`).
    pub direct: bool,
    /// Phones in this process, by name (the virtual phone on a paused clock, in tests):
    /// `run_direct` plays them beside `connect`'s.
    pub in_process: Vec<(String, Arc<dyn InProcess>)>,
}

/// What the daemon tells its caller, as it happens (`--json` prints one per line).
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// A phone came ready and has a profile: its worker starts.
    PhoneReady {
        serial: String,
        profile: String,
        model: String,
        screen: (u32, u32),
    },
    /// A phone came ready without a profile for its screen: it is left alone.
    NoProfile {
        serial: String,
        screen: (u32, u32),
    },
    /// The profile's Play/Next button was tapped (no board showed).
    Advanced {
        serial: String,
    },
    /// The phone's screen had gone off (its screen timeout): it was turned on again.
    Woke {
        serial: String,
    },
    /// A lock screen without a secret covered the game: it was dismissed.
    Unlocked {
        serial: String,
    },
    /// A lock screen covers the game and stays (a PIN, a pattern, a password, or a phone
    /// that takes no dismissal from the shell): no round can be played until its owner
    /// unlocks it. Said once; the worker waits.
    Locked {
        serial: String,
    },
    /// A board already showing when the worker started (its start unknown, the clock not
    /// read): played until it leaves the screen.
    JoinedLate {
        serial: String,
        board: String,
    },
    RoundStarted {
        serial: String,
        round: u32,
        board: String,
        bonuses: Option<String>,
        words: usize,
    },
    /// A round cut short by the phone going away goes on.
    Resumed {
        serial: String,
        board: String,
        words_left: usize,
    },
    Progress {
        serial: String,
        entered: usize,
        planned: usize,
        /// Points entered, as the solver scores them...
        points: u32,
        /// ...and the game's score at the latest look (with a profile that reads it).
        points_seen: Option<u32>,
        left_secs: f64,
    },
    RoundEnded {
        record: Box<RoundRecord>,
    },
    /// The game's score did not move after the round's first words: the game took none of
    /// them (the profile misses the tiles, something covers the game). Loud, with the screen.
    ScoreStill {
        serial: String,
        after_words: usize,
        screenshot: Option<PathBuf>,
    },
    /// A board has stayed dimmed under an overlay far longer than a toast before the round
    /// lasts (a modal the game or the system keeps up): said once, with the screen; the
    /// worker keeps waiting for it to clear.
    StillDimmed {
        serial: String,
        why: String,
        secs: u64,
        screenshot: Option<PathBuf>,
    },
    /// A board not read surely: not played while it stays so (the round is recorded as
    /// skipped unless it becomes readable).
    Skipped {
        serial: String,
        why: String,
        screenshot: Option<PathBuf>,
    },
    /// The phone went away or failed; its worker ended.
    PhoneLost {
        serial: String,
        why: String,
    },
    /// The phone has played its rounds.
    PhoneDone {
        serial: String,
        rounds: u32,
    },
    /// Something worth a line that is not about one phone (a reconnect, the server back).
    Note {
        text: String,
    },
}

impl Event {
    /// The phone the event is about, if one.
    pub fn serial(&self) -> Option<&str> {
        match self {
            Event::PhoneReady { serial, .. }
            | Event::NoProfile { serial, .. }
            | Event::JoinedLate { serial, .. }
            | Event::Advanced { serial }
            | Event::Woke { serial }
            | Event::Unlocked { serial }
            | Event::Locked { serial }
            | Event::RoundStarted { serial, .. }
            | Event::Resumed { serial, .. }
            | Event::Progress { serial, .. }
            | Event::Skipped { serial, .. }
            | Event::StillDimmed { serial, .. }
            | Event::ScoreStill { serial, .. }
            | Event::PhoneLost { serial, .. }
            | Event::PhoneDone { serial, .. } => Some(serial),
            Event::RoundEnded { record } => Some(&record.serial),
            Event::Note { .. } => None,
        }
    }
}

/// Why the daemon could not run.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Phone(#[from] PhoneError),
}

/// What a run did, per phone: rounds played.
pub type Summary = HashMap<String, u32>;

/// The profile for a phone of `screen`, by the daemon's rule.
fn profile_for(opts: &Options, serial: &str, screen: (u32, u32)) -> Option<Profile> {
    let by_size = || {
        Profile::for_screen_size(screen, &opts.cwd, opts.config_dir.as_deref())
            .0
            .filter(|p| p.screen() == screen)
    };
    match &opts.profiles {
        Profiles::One(p) => p.for_screen(screen.0, screen.1).ok(),
        Profiles::BySerial(map) => match map.get(serial) {
            Some(p) => p.for_screen(screen.0, screen.1).ok(),
            None => by_size(),
        },
        Profiles::BySize => by_size(),
    }
}

/// One phone's worker task: connect, choose the profile, play. Returns the phone's memory.
async fn work(
    opts: Arc<Options>,
    trie: Arc<Trie>,
    serial: String,
    mut memory: Memory,
    stop: watch::Receiver<bool>,
    events: mpsc::UnboundedSender<Event>,
) -> (String, Memory, Result<bool, String>) {
    let in_process = opts.in_process.iter().find(|(name, _)| *name == serial);
    // A serial that is an address the server does not know is a phone reached directly.
    let connected = match (in_process, serial.parse::<std::net::SocketAddr>()) {
        (Some((name, phone)), _) => Phone::connect_in_process(name, phone.clone()).await,
        (None, Ok(addr)) if opts.direct => Phone::connect_direct(addr).await,
        _ => {
            let server = ServerOptions {
                server: opts.server,
                serial: Some(serial.clone()),
                connect: None,
            };
            Phone::connect_server(&server).await
        }
    };
    let phone = match connected {
        Ok(p) => p,
        Err(e) => return (serial, memory, Err(e.to_string())),
    };
    // One process per phone: another that plays it holds it until it is done, and this one
    // tries again later.
    let _held = match crate::state::hold_phone(opts.worker.state.as_ref(), &serial) {
        Ok(held) => held,
        Err(why) => return (serial, memory, Err(why)),
    };
    let Some(profile) = profile_for(&opts, &serial, phone.screen) else {
        let _ = events.send(Event::NoProfile {
            serial: serial.clone(),
            screen: phone.screen,
        });
        return (serial, memory, Ok(false));
    };
    let _ = events.send(Event::PhoneReady {
        serial: serial.clone(),
        profile: profile.name().to_owned(),
        model: phone.model.clone(),
        screen: phone.screen,
    });
    let mut worker = Worker {
        phone: &phone,
        profile: &profile,
        trie: &trie,
        opts: &opts.worker,
        events: &events,
        stop,
        last: None,
    };
    let result = worker.run(&mut memory).await.map_err(|e| e.to_string());
    (serial, memory, result.map(|()| true))
}

/// A phone the daemon knows: its memory, and whether it is done or has no profile.
#[derive(Default)]
struct Known {
    memory: Memory,
    done: bool,
    no_profile: bool,
}

/// Runs the daemon until `stop` turns true or every phone has played its rounds. Events go
/// to `events`; rounds are appended to the history as they end.
pub async fn run(
    opts: Options,
    stop: watch::Receiver<bool>,
    events: mpsc::UnboundedSender<Event>,
) -> Result<Summary, DaemonError> {
    let opts = Arc::new(opts);
    let mut recorder = history::Recorder::new(opts.history.clone());
    let trie = Arc::new(Trie::enable());
    let (inner_tx, mut inner_rx) = mpsc::unbounded_channel::<Event>();
    let mut known: HashMap<String, Known> = HashMap::new();
    // The running workers, by task: a worker that panics still frees its phone.
    let mut running: HashMap<tokio::task::Id, String> = HashMap::new();
    let mut tasks = JoinSet::new();
    let mut tracker: Option<Tracker> = None;
    let mut reconnect = tokio::time::interval(RECONNECT_EVERY);
    let mut stop_wait = stop.clone();
    let mut attached: Vec<String> = Vec::new();
    // The phones of `opts.connect` not reached, and why, as last said.
    let mut unreachable: HashMap<std::net::SocketAddr, String> = HashMap::new();
    loop {
        if *stop.borrow() && tasks.is_empty() {
            break;
        }
        let all_done = opts.worker.rounds.is_some()
            && !known.is_empty()
            && tasks.is_empty()
            && known.values().all(|k| k.done || k.no_profile)
            && known.values().any(|k| k.done);
        if all_done {
            break;
        }
        if tracker.is_none() && !*stop.borrow() {
            match open_tracker(opts.server).await {
                Ok(t) => tracker = Some(t),
                Err(e) => {
                    let _ = events.send(Event::Note {
                        text: format!("waiting for the adb server: {e}"),
                    });
                    tokio::time::sleep(SERVER_RETRY).await;
                    continue;
                }
            }
        }
        tokio::select! {
            list = async { tracker.as_mut().expect("opened above").next().await }, if tracker.is_some() => {
                match list {
                    Ok(list) => {
                        // A phone that left the list is not aborted: its worker fails on its
                        // next call and keeps what it knows of the round it was playing.
                        attached = list.iter().filter(|a| a.ready()).map(|a| a.serial.clone()).collect();
                        if !*stop.borrow() {
                            for serial in &attached {
                                // A phone not asked for (`-s`) is not known: the run ends
                                // when those asked for are done.
                                if !opts.only.as_ref().is_none_or(|o| o.contains(serial)) {
                                    continue;
                                }
                                let k = known.entry(serial.clone()).or_default();
                                if !k.done && !k.no_profile && !running.values().any(|s| s == serial) {
                                    let handle = tasks.spawn(work(
                                        opts.clone(),
                                        trie.clone(),
                                        serial.clone(),
                                        k.memory.clone(),
                                        stop.clone(),
                                        inner_tx.clone(),
                                    ));
                                    running.insert(handle.id(), serial.clone());
                                }
                            }
                        }
                    }
                    Err(e) => {
                        tracker = None;
                        let _ = events.send(Event::Note { text: format!("lost the adb server: {e}") });
                    }
                }
            }
            Some(event) = inner_rx.recv() => forward(event, &mut recorder, &events),
            done = tasks.join_next_with_id(), if !tasks.is_empty() => {
                let Some(done) = done else { continue };
                // What the worker said before it ended comes before what is said of its end.
                drain(&mut inner_rx, &mut recorder, &events);
                match done {
                    Ok((id, (serial, memory, result))) => {
                        running.remove(&id);
                        let k = known.entry(serial.clone()).or_default();
                        let rounds = memory.rounds;
                        k.memory = memory;
                        match result {
                            Ok(true) => {
                                k.done = opts.worker.rounds.is_some_and(|n| rounds >= n);
                                if k.done {
                                    let _ = events.send(Event::PhoneDone { serial, rounds });
                                }
                            }
                            Ok(false) => k.no_profile = true,
                            Err(why) => {
                                let _ = events.send(Event::PhoneLost { serial, why });
                            }
                        }
                    }
                    Err(join) => {
                        let serial = running.remove(&join.id()).unwrap_or_default();
                        let _ = events.send(Event::PhoneLost { serial, why: format!("its worker failed: {join}") });
                    }
                }
            }
            _ = reconnect.tick(), if !opts.connect.is_empty() && !*stop.borrow() => {
                for addr in &opts.connect {
                    if attached.contains(&addr.to_string()) {
                        continue;
                    }
                    // A phone that cannot be reached is said at once, and again only when
                    // why changes: the daemon keeps trying every RECONNECT_EVERY.
                    let said = unreachable.get(addr).cloned();
                    match phone::connect_tcp(opts.server, *addr).await {
                        Ok(_) => {
                            unreachable.remove(addr);
                            let _ = events.send(Event::Note { text: format!("connected {addr}") });
                        }
                        Err(e) if said.as_deref() != Some(e.to_string().as_str()) => {
                            let _ = events.send(Event::Note {
                                text: format!(
                                    "cannot connect {addr}: {e}; trying again every {} s",
                                    RECONNECT_EVERY.as_secs()
                                ),
                            });
                            unreachable.insert(*addr, e.to_string());
                        }
                        Err(_) => {}
                    }
                }
            }
            _ = stop_wait.wait_for(|s| *s), if !*stop.borrow() => {}
        }
    }
    Ok(finish(&mut inner_rx, &mut recorder, &events, known))
}

/// Sends on what the workers have said and is not sent yet.
fn drain(
    inner: &mut mpsc::UnboundedReceiver<Event>,
    recorder: &mut history::Recorder,
    events: &mpsc::UnboundedSender<Event>,
) {
    while let Ok(event) = inner.try_recv() {
        forward(event, recorder, events);
    }
}

/// Sends on what the workers said last, and sums up the rounds per phone. Records the
/// history could not take are tried once more, then printed on stderr rather than lost.
fn finish(
    inner: &mut mpsc::UnboundedReceiver<Event>,
    recorder: &mut history::Recorder,
    events: &mpsc::UnboundedSender<Event>,
    known: HashMap<String, Known>,
) -> Summary {
    drain(inner, recorder, events);
    if let Err(text) = recorder.flush() {
        let _ = events.send(Event::Note { text });
        // Written as they can be: with stderr gone too, they are lost however it is done,
        // and a panic would take the summary with them.
        use std::io::Write as _;
        for line in recorder.pending_lines() {
            let _ = writeln!(std::io::stderr(), "{line}");
        }
    }
    known
        .into_iter()
        .map(|(s, k)| (s, k.memory.rounds))
        .collect()
}

/// Sends a worker's event on, appending a round that ended to the history. A write that
/// fails stops nothing: the record is kept and written with the next one, and said loudly.
fn forward(event: Event, recorder: &mut history::Recorder, events: &mpsc::UnboundedSender<Event>) {
    let warning = match &event {
        Event::RoundEnded { record } => recorder.record(record).err(),
        _ => None,
    };
    let _ = events.send(event);
    if let Some(text) = warning {
        let _ = events.send(Event::Note { text });
    }
}

/// `run` for phones reached straight over TCP (`opts.direct`, the addresses in
/// `opts.connect`): a worker per phone, started again `RECONNECT_EVERY` after its phone
/// fails, until stopped or every phone has played its rounds.
pub async fn run_direct(
    opts: Options,
    stop: watch::Receiver<bool>,
    events: mpsc::UnboundedSender<Event>,
) -> Result<Summary, DaemonError> {
    let opts = Arc::new(Options {
        direct: true,
        ..opts
    });
    let mut recorder = history::Recorder::new(opts.history.clone());
    let trie = Arc::new(Trie::enable());
    let (inner_tx, mut inner_rx) = mpsc::unbounded_channel::<Event>();
    let mut known: HashMap<String, Known> = HashMap::new();
    let mut tasks = JoinSet::new();
    let spawn = |tasks: &mut JoinSet<_>, serial: String, memory: Memory, delay: Duration| {
        let (opts, trie, stop, tx) = (opts.clone(), trie.clone(), stop.clone(), inner_tx.clone());
        tasks.spawn(async move {
            tokio::time::sleep(delay).await;
            work(opts, trie, serial, memory, stop, tx).await
        });
    };
    let names = opts.connect.iter().map(ToString::to_string);
    for name in names.chain(opts.in_process.iter().map(|(name, _)| name.clone())) {
        spawn(&mut tasks, name, Memory::default(), Duration::ZERO);
    }
    while !tasks.is_empty() {
        tokio::select! {
            Some(event) = inner_rx.recv() => forward(event, &mut recorder, &events),
            done = tasks.join_next() => {
                let Some(Ok((serial, memory, result))) = done else { continue };
                drain(&mut inner_rx, &mut recorder, &events);
                let rounds = memory.rounds;
                let k = known.entry(serial.clone()).or_default();
                match result {
                    Ok(true) if opts.worker.rounds.is_some_and(|n| rounds >= n) || *stop.borrow() => {
                        k.done = true;
                        let _ = events.send(Event::PhoneDone { serial: serial.clone(), rounds });
                    }
                    Ok(false) => k.no_profile = true,
                    Ok(true) => {}
                    Err(why) => {
                        let _ = events.send(Event::PhoneLost { serial: serial.clone(), why });
                    }
                }
                let again = !k.done && !k.no_profile && !*stop.borrow();
                k.memory = memory.clone();
                if again {
                    spawn(&mut tasks, serial, memory, RECONNECT_EVERY);
                }
            }
        }
    }
    Ok(finish(&mut inner_rx, &mut recorder, &events, known))
}

/// Starts the server if need be and follows its device list.
async fn open_tracker(server: SocketAddrV4) -> Result<Tracker, PhoneError> {
    phone::ensure_server(server).await?;
    Tracker::open(server, Duration::from_secs(5)).await
}

/// The history's place when the user gives none, from the environment.
pub fn default_history() -> Option<PathBuf> {
    crate::state::dir_from_env().map(|d| d.join("history.jsonl"))
}

/// The practice trainer's history when the user gives none: `practice.jsonl` beside the
/// daemon's.
pub fn default_practice_history() -> Option<PathBuf> {
    default_history().map(|h| h.with_file_name("practice.jsonl"))
}

/// Where a daemon's unreadable screenshots go by default: beside the history.
pub fn default_unsure_dir(history: Option<&Path>) -> PathBuf {
    history
        .and_then(Path::parent)
        .map_or_else(|| PathBuf::from("."), |d| d.join("unsure"))
}
