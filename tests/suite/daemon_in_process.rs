//! The daemon in this process, on tokio's paused clock, against virtual phones reached in
//! process (`sim::local`): minutes of game time in a few seconds, the same way every run, no
//! adb needed. The phones are the same virtual phones the wall-clock tests reach through
//! Debian's adb server (`tests/suite/daemon.rs` keeps a few of those as smoke tests); only the
//! transport and the clock differ.

use crate::common::{self, OutputBounded};

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use scramblebot::daemon::history::{self, Ended};
use scramblebot::daemon::worker::WorkerOptions;
use scramblebot::daemon::{self, Event, Options, Profiles};
use scramblebot::phone::in_process::InProcess;
use scramblebot::profile::Profile;
use scramblebot::sim::game::{GameConfig, Key, Report, ScreenLock};
use scramblebot::sim::local::Local;
use scramblebot::sim::{Model, SimConfig};
use tokio::sync::{mpsc, watch};

/// The round's length on the virtual phones and in their profiles.
const ROUND_SECS: u64 = 30;
/// The length of `long_round`'s round.
const LONG_ROUND_SECS: u64 = 60;
/// The most game time a daemon is given to finish: past it the test fails.
const GAME_TIME_LIMIT: Duration = Duration::from_secs(1800);

/// A phone in the lobby whose rounds (of `round_secs`) start by themselves: the first
/// `advance_secs` after it starts, each next one `advance_secs` after the last one's
/// results show.
fn lobby_phone(model: Model, seed: u64, round_secs: u64, advance_secs: u64) -> Arc<Local> {
    common::local(
        model,
        GameConfig {
            seed,
            lobby: true,
            round: Duration::from_secs(round_secs),
            auto_advance: Some(Duration::from_secs(advance_secs)),
            ..GameConfig::default()
        },
    )
}

/// A Nexus 7 in the lobby whose rounds (of `round_secs`) start 2 s after it starts and after
/// each results screen, with `cover` setting what covers a round.
fn covered_phone(round_secs: u64, cover: impl FnOnce(&mut GameConfig)) -> Arc<Local> {
    let mut game = GameConfig {
        lobby: true,
        round: Duration::from_secs(round_secs),
        auto_advance: Some(Duration::from_secs(2)),
        ..GameConfig::default()
    };
    cover(&mut game);
    common::local(Model::Nexus7, game)
}

/// A phone whose one long round starts by itself two seconds after it starts.
fn long_round(model: Model) -> Arc<Local> {
    lobby_phone(model, 1, LONG_ROUND_SECS, 2)
}

/// The daemon's options, as `scramblebot daemon` makes them in `dir` by default: profiles
/// by screen size from dir/devices, the history and unsure screens beside it.
struct Daemon {
    opts: Options,
}

impl Daemon {
    fn new(dir: &Path) -> Daemon {
        let history = dir.join("history.jsonl");
        Daemon {
            opts: Options {
                server: "127.0.0.1:5037".parse().unwrap(),
                connect: Vec::new(),
                only: None,
                profiles: Profiles::BySize,
                cwd: dir.to_owned(),
                config_dir: None,
                worker: WorkerOptions {
                    order: scramblebot::Order::Longest,
                    route: None,
                    rounds: None,
                    unsure_dir: daemon::default_unsure_dir(Some(&history)),
                    keep_screens: 200,
                    state: None,
                },
                history: Some(history),
                direct: true,
                in_process: Vec::new(),
            },
        }
    }

    /// Plays `phone`, named `name`.
    fn phone(mut self, name: &str, phone: &Arc<Local>) -> Daemon {
        let phone: Arc<dyn InProcess> = phone.clone();
        self.opts.in_process.push((name.to_owned(), phone));
        self
    }

    /// `rounds` rounds on each phone.
    fn rounds(mut self, rounds: u32) -> Daemon {
        self.opts.worker.rounds = Some(rounds);
        self
    }

    /// Every phone with `profile` (`--device`).
    fn profile(mut self, profile: Profile) -> Daemon {
        self.opts.profiles = Profiles::One(Box::new(profile));
        self
    }

    fn keep_screens(mut self, n: usize) -> Daemon {
        self.opts.worker.keep_screens = n;
        self
    }

    /// Starts it in this process.
    fn start(self) -> Running {
        let (stop_tx, stop) = watch::channel(false);
        let (tx, mut rx) = mpsc::unbounded_channel::<Event>();
        let said = Arc::new(Mutex::new(String::new()));
        let collector = {
            let said = said.clone();
            tokio::spawn(async move {
                while let Some(event) = rx.recv().await {
                    let line = serde_json::to_string(&event).unwrap();
                    let mut said = said.lock().unwrap();
                    said.push_str(&line);
                    said.push('\n');
                }
            })
        };
        let task = tokio::spawn(daemon::run_direct(self.opts, stop, tx));
        Running {
            stop: stop_tx,
            task,
            collector,
            said,
        }
    }

    /// Runs it to its end; what it said, a JSON object a line (as `daemon --json`).
    async fn finished(self) -> String {
        self.start().finished().await
    }
}

/// A daemon running in this process.
struct Running {
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<Result<daemon::Summary, daemon::DaemonError>>,
    collector: tokio::task::JoinHandle<()>,
    said: Arc<Mutex<String>>,
}

impl Running {
    /// What it has said so far.
    fn said(&self) -> String {
        self.said.lock().unwrap().clone()
    }

    /// Waits, up to ten minutes of game time, until `ready` holds.
    async fn until(&self, what: &str, ready: impl Fn() -> bool) {
        let started = tokio::time::Instant::now();
        while !ready() {
            let waited = started.elapsed();
            assert!(
                waited < Duration::from_secs(600),
                "never: {what}\n{}",
                self.said()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Asks it to stop, as SIGTERM does.
    fn stop(&self) {
        let _ = self.stop.send(true);
    }

    /// What it said, once it has ended successfully (within `GAME_TIME_LIMIT`).
    async fn finished(self) -> String {
        let Running {
            task,
            collector,
            said,
            ..
        } = self;
        let text = || said.lock().unwrap().clone();
        let ended = tokio::time::timeout(GAME_TIME_LIMIT, task).await;
        let ended =
            ended.unwrap_or_else(|_| panic!("still running after {GAME_TIME_LIMIT:?}\n{}", text()));
        ended.expect("the daemon's task").expect("the daemon runs");
        collector.await.unwrap();
        text()
    }
}

/// The lines of `said` about `event`.
fn lines<'a>(said: &'a str, event: &str) -> Vec<&'a str> {
    let tag = format!("\"event\":\"{event}\"");
    said.lines().filter(|l| l.contains(&tag)).collect()
}

/// The rounds in `dir`'s history.
fn rounds_in(dir: &Path) -> Vec<history::RoundRecord> {
    let (rounds, bad) = history::read(&dir.join("history.jsonl")).unwrap();
    assert_eq!(bad, 0);
    rounds
}

/// How each of `serial`'s rounds ended, in order.
fn endings(rounds: &[history::RoundRecord], serial: &str) -> Vec<Ended> {
    rounds
        .iter()
        .filter(|r| r.serial == serial)
        .map(|r| r.ended)
        .collect()
}

/// Every word of the round taken.
fn every_word(report: &Report) {
    assert_eq!(
        report.words, report.words_possible,
        "{} of {} words taken",
        report.words, report.words_possible
    );
}

/// The phone's rounds played cleanly: no touch off the game's tiles and buttons, at most
/// `cut` words refused (those a fault cut), the finger lifted.
fn played_cleanly(phone: &Local, cut: usize) {
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert!(report.rejected() <= cut, "{:?}", report.strokes);
    assert!(!report.finger_down);
}

#[tokio::test(start_paused = true)]
async fn three_phones_play_three_rounds_each() {
    let dir = common::workdir("three", ROUND_SECS);
    let phones: Vec<(String, Arc<Local>)> = Model::ALL
        .iter()
        .zip(1..)
        .map(|(&m, seed)| {
            (
                format!("{}-{seed}", m.name()),
                lobby_phone(m, seed, ROUND_SECS, 3),
            )
        })
        .collect();
    let mut daemon = Daemon::new(&dir).rounds(3);
    for (name, p) in &phones {
        daemon = daemon.phone(name, p);
    }
    let started = tokio::time::Instant::now();
    let said = daemon.finished().await;
    // Game time passed: the clock is tokio's, paused, and moved only by waits.
    assert!(started.elapsed() > Duration::from_secs(9));
    assert_eq!(lines(&said, "phone_ready").len(), 3, "{said}");
    assert_eq!(lines(&said, "round_started").len(), 9, "{said}");
    assert_eq!(lines(&said, "phone_done").len(), 3, "{said}");
    let rounds = rounds_in(&dir);
    assert_eq!(rounds.len(), 9, "{rounds:#?}");
    for (serial, p) in &phones {
        let report = p.device().report();
        // The referee saw no touch outside a round's tiles and buttons, and took every word.
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
            // What the bot says it entered is what the game took, round by round.
            let judged = report
                .rounds
                .iter()
                .find(|g| g.board == r.board)
                .map(|g| g.words)
                .unwrap_or(report.words);
            assert_eq!(judged, r.words_entered, "{serial}: {r:?}");
            if r.ended == Ended::AllWords {
                assert_eq!(r.words_entered, r.words_planned, "{r:?}");
            }
        }
        // Rounds 2 and 3 of a match have bonus tiles, and the bot read them.
        assert!(
            mine[1].bonuses.is_some() && mine[2].bonuses.is_some(),
            "{mine:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A phone with no profile for its screen is left alone; stopping the daemon (as SIGTERM
/// does) finishes the stroke under way and lifts the finger.
#[tokio::test(start_paused = true)]
async fn a_phone_without_a_profile_is_left_alone_and_a_stop_finishes_the_stroke() {
    let dir = common::workdir("stop", LONG_ROUND_SECS);
    let (pixel, nexus) = (long_round(Model::Pixel), long_round(Model::Nexus7));
    let pixel_profile = Profile::load(&dir.join("devices/pixel.toml")).unwrap();
    let daemon = Daemon::new(&dir)
        .profile(pixel_profile)
        .phone("pixel", &pixel)
        .phone("nexus", &nexus)
        .start();
    daemon
        .until("ten words on the pixel", || {
            pixel.device().report().strokes.len() >= 10
        })
        .await;
    daemon.stop();
    let said = daemon.finished().await;
    // The Nexus 7's screen is another shape than the pixel profile's: one line, no touch.
    let no_profile = lines(&said, "no_profile");
    assert_eq!(no_profile.len(), 1, "{said}");
    assert!(no_profile[0].contains("\"nexus\""), "{said}");
    assert!(nexus.device().report().strokes.is_empty());
    let report = pixel.device().report();
    assert!(!report.finger_down);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert!(report.violations.is_empty());
    let rounds = rounds_in(&dir);
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_eq!(rounds[0].ended, Ended::Stopped);
    assert_eq!(rounds[0].words_entered, report.words);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The phone goes away mid-round (Wi-Fi, a cable) and is back a second later; the round goes
/// on on the phone, and the daemon resumes it: every word taken.
#[tokio::test(start_paused = true)]
async fn a_dropped_phone_is_connected_again_and_its_round_resumed() {
    let dir = common::workdir("drop", LONG_ROUND_SECS);
    let phone = long_round(Model::Nexus7);
    let daemon = Daemon::new(&dir).rounds(1).phone("nexus", &phone).start();
    daemon
        .until("ten words", || phone.device().report().strokes.len() >= 10)
        .await;
    phone.go_away();
    tokio::time::sleep(Duration::from_secs(1)).await;
    phone.back();
    let said = daemon.finished().await;
    assert_eq!(lines(&said, "phone_lost").len(), 1, "{said}");
    assert_eq!(lines(&said, "resumed").len(), 1, "{said}");
    let report = phone.device().report();
    // None on the wrong screen; at most the word cut by the drop entered twice (refused when
    // its first stroke did reach the game), and every word taken.
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert!(report.rejected() <= 1, "{:?}", report.strokes);
    every_word(&report);
    let rounds = rounds_in(&dir);
    assert_eq!(
        endings(&rounds, "nexus"),
        [Ended::PhoneLost, Ended::AllWords],
        "{rounds:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The phone goes away in the middle of a word's stroke, the finger down, and is back within
/// the round: the word whose stroke was cut is entered again, so every word is taken, and the
/// round's record says how many were entered again.
#[tokio::test(start_paused = true)]
async fn a_phone_gone_mid_stroke_and_back_in_the_round_loses_no_word() {
    let dir = common::workdir("mid-stroke", LONG_ROUND_SECS);
    let phone = long_round(Model::Nexus7);
    let daemon = Daemon::new(&dir).rounds(1).phone("nexus", &phone).start();
    daemon
        .until("ten words, and a finger down", || {
            let r = phone.device().report();
            r.strokes.len() >= 10 && r.finger_down
        })
        .await;
    phone.go_away();
    tokio::time::sleep(Duration::from_secs(1)).await;
    phone.back();
    let said = daemon.finished().await;
    assert_eq!(lines(&said, "phone_lost").len(), 1, "{said}");
    assert_eq!(lines(&said, "resumed").len(), 1, "{said}");
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    every_word(&report);
    let rounds = rounds_in(&dir);
    assert_eq!(
        endings(&rounds, "nexus"),
        [Ended::PhoneLost, Ended::AllWords],
        "{rounds:?}"
    );
    // At most the word in flight entered twice, and every word the game refused is one.
    let again = rounds[1].words_entered_again;
    assert!(again <= 1, "{rounds:?}");
    assert!(report.rejected() <= again, "{again}: {:?}", report.strokes);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Names the Play/Next button in `dir`'s Nexus 7 profile (the virtual Nexus 7's, in the lower
/// middle).
fn name_the_play_button(dir: &Path) {
    let play = scramblebot::sim::layout::Layout::of(Model::Nexus7).play;
    let (x, y) = ((play.x0 + play.x1) / 2.0, (play.y0 + play.y1) / 2.0);
    let profile = dir.join("devices/nexus7.toml");
    let text = std::fs::read_to_string(&profile).unwrap();
    std::fs::write(&profile, format!("{text}\n[advance]\nat = [{x}, {y}]\n")).unwrap();
}

#[tokio::test(start_paused = true)]
async fn the_play_button_is_tapped_between_rounds_and_nowhere_else() {
    let dir = common::workdir("advance", ROUND_SECS);
    name_the_play_button(&dir);
    // A phone in the lobby that starts nothing by itself.
    let phone = common::local(
        Model::Nexus7,
        GameConfig {
            lobby: true,
            round: Duration::from_secs(ROUND_SECS),
            ..GameConfig::default()
        },
    );
    let said = Daemon::new(&dir)
        .rounds(2)
        .phone("nexus", &phone)
        .finished()
        .await;
    assert_eq!(lines(&said, "round_started").len(), 2, "{said}");
    assert!(lines(&said, "advanced").len() >= 2, "{said}");
    let report = phone.device().report();
    assert_eq!(report.round, 2);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn a_board_not_read_surely_is_skipped_with_its_screenshot_and_the_next_played() {
    let dir = common::workdir("unsure", ROUND_SECS);
    // The first round's board is under Android's "isn't responding" dialog.
    let phone = covered_phone(ROUND_SECS, |g| g.dialog_round = Some(1));
    // An older run's screenshot, and a file of the user's, in the unsure directory: with
    // room for one screenshot, the old one goes and the user's stays.
    let unsure = dir.join("unsure");
    std::fs::create_dir_all(&unsure).unwrap();
    let (old, users) = (
        unsure.join("scramblebot-unsure-old-1.png"),
        unsure.join("notes.png"),
    );
    std::fs::write(&old, b"old").unwrap();
    std::fs::write(&users, b"mine").unwrap();
    let said = Daemon::new(&dir)
        .rounds(2)
        .keep_screens(1)
        .phone("nexus", &phone)
        .finished()
        .await;
    assert_eq!(lines(&said, "skipped").len(), 1, "{said}");
    assert!(!old.exists() && users.exists());
    let rounds = rounds_in(&dir);
    let ended: Vec<Ended> = rounds.iter().map(|r| r.ended).collect();
    assert!(
        matches!(ended[..], [Ended::Unsure, Ended::AllWords | Ended::Clock]),
        "{rounds:?}"
    );
    // The screenshot of the dialog was kept, beside the history; nothing touched the dialog.
    let shot = rounds[0].screenshot.as_ref().expect("a screenshot");
    assert!(shot.starts_with(&unsure), "{shot:?}");
    let name = shot.file_name().unwrap().to_string_lossy();
    assert!(name.starts_with("scramblebot-unsure-"), "{name}");
    let saved = image::open(shot).unwrap();
    assert_eq!((saved.width(), saved.height()), (800, 1280));
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert_eq!(report.rounds[0].words, 0);
    // The second round (over, or its words all in) was played.
    let second = report.rounds.get(1).map_or(&report.board, |g| &g.board);
    assert_eq!(&rounds[1].board, second);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn a_screen_gone_off_between_rounds_is_turned_on_and_the_next_round_played() {
    let dir = common::workdir("screen-off", ROUND_SECS);
    // The screen goes off 2 s after the last touch, as a phone's screen timeout turns it
    // off: in the lobby, and on the results screen, while the next round starts by itself
    // 3 s after the results under a black screen.
    let phone = covered_phone(ROUND_SECS, |g| {
        g.screen_timeout = Some(Duration::from_secs(2));
        g.auto_advance = Some(Duration::from_secs(3));
    });
    let said = Daemon::new(&dir)
        .rounds(2)
        .phone("nexus", &phone)
        .finished()
        .await;
    assert!(lines(&said, "woke").len() >= 2, "{said}");
    let rounds = rounds_in(&dir);
    assert_eq!(rounds.len(), 2, "{rounds:?}");
    let report = phone.device().report();
    for (r, g) in rounds.iter().zip(&report.rounds) {
        assert!(matches!(r.ended, Ended::AllWords | Ended::Clock), "{r:?}");
        assert!(g.words > 0, "{g:?}");
    }
    assert!(
        report.screen_offs >= 2 && report.screen_ons >= 2,
        "{report:?}"
    );
    // Nothing was swiped on the black screen, nothing landed off the board.
    assert_eq!(report.touches_while_off, 0);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn a_lock_screen_without_a_secret_is_dismissed_and_the_rounds_played() {
    let dir = common::workdir("swipe-lock", ROUND_SECS);
    // As the test above, with a lock screen (Swipe) up whenever the screen comes back on.
    let phone = covered_phone(ROUND_SECS, |g| {
        g.screen_timeout = Some(Duration::from_secs(2));
        g.auto_advance = Some(Duration::from_secs(3));
        g.screen_lock = ScreenLock::Swipe;
    });
    let said = Daemon::new(&dir)
        .rounds(2)
        .phone("nexus", &phone)
        .finished()
        .await;
    assert!(lines(&said, "woke").len() >= 2, "{said}");
    assert!(lines(&said, "unlocked").len() >= 2, "{said}");
    assert_eq!(lines(&said, "locked").len(), 0, "{said}");
    let rounds = rounds_in(&dir);
    assert_eq!(rounds.len(), 2, "{rounds:?}");
    let report = phone.device().report();
    for g in report.rounds.iter().take(2) {
        assert!(g.words > 0, "{g:?}");
    }
    assert!(report.unlocks >= 2, "{report:?}");
    // No touch landed on the lock screen or the black one, nor off the board.
    assert_eq!(report.touches_while_locked, 0);
    assert_eq!(report.touches_while_off, 0);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn a_round_found_behind_a_dark_or_locked_screen_is_joined_late_and_played_until_it_goes() {
    let dir = common::workdir("behind-lock", ROUND_SECS);
    // A round under way, on a screen gone off to a swipe lock before the daemon starts: how
    // long the round has run cannot be seen (the profile reads no clock), so it is joined
    // late: played until its board leaves the screen, for at most a whole round.
    let phone = common::local(
        Model::Nexus7,
        GameConfig {
            round: Duration::from_secs(ROUND_SECS),
            auto_advance: Some(Duration::from_secs(3)),
            screen_timeout: Some(Duration::from_secs(2)),
            screen_lock: ScreenLock::Swipe,
            ..GameConfig::default()
        },
    );
    let first = phone.device().report().board;
    // The screen goes off 2 s after the phone starts.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(!phone.device().game().screen_on(phone.device().now()));
    let said = Daemon::new(&dir)
        .rounds(1)
        .phone("nexus", &phone)
        .finished()
        .await;
    let joined = lines(&said, "joined_late");
    assert_eq!(joined.len(), 1, "{said}");
    assert!(joined[0].contains(&first), "{said}");
    let rounds = rounds_in(&dir);
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_eq!(rounds[0].board, first);
    assert!(
        matches!(rounds[0].ended, Ended::AllWords | Ended::BoardGone),
        "{rounds:?}"
    );
    let report = phone.device().report();
    // The round joined late, over or still on.
    let words = report.rounds.first().map_or(report.words, |r| r.words);
    assert!(words > 0, "{report:?}");
    // No word went in after a round's end, none was touched onto a dark or locked screen.
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert_eq!(report.touches_while_off + report.touches_while_locked, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn a_lock_screen_with_a_pin_is_said_once_and_never_touched() {
    let dir = common::workdir("pin-lock", ROUND_SECS);
    // The worker taps Play/Next while no board shows: never on a lock screen.
    name_the_play_button(&dir);
    // The phone's owner turned its screen off and on: its PIN's lock screen covers the lobby,
    // and the rounds that start under it.
    let phone = covered_phone(ROUND_SECS, |g| g.screen_lock = ScreenLock::Pin);
    phone.device().key(Key::Power);
    phone.device().key(Key::Power);
    let daemon = Daemon::new(&dir).rounds(2).phone("nexus", &phone).start();
    daemon
        .until("the lock screen said", || {
            !lines(&daemon.said(), "locked").is_empty()
        })
        .await;
    // A minute more, six of the worker's looks at the lock (every 10 s): it is not said again.
    tokio::time::sleep(Duration::from_secs(60)).await;
    daemon.stop();
    let said = daemon.finished().await;
    assert_eq!(lines(&said, "locked").len(), 1, "{said}");
    assert_eq!(lines(&said, "unlocked").len(), 0, "{said}");
    assert_eq!(lines(&said, "advanced").len(), 0, "{said}");
    // No Play/Next tap nor stroke landed on the lock screen.
    let report = phone.device().report();
    assert!(report.strokes.is_empty(), "{:?}", report.strokes);
    assert_eq!(report.touches_while_locked, 0);
    assert_eq!(report.unlocks, 0);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn a_board_dimmed_for_long_is_waited_out_and_said_once_with_its_screen() {
    // The first round's board stays dimmed ("Reconnecting...") the whole round, longer than
    // the worker's patience (10 s) for a toast before the round.
    let round_secs = 14;
    let dir = common::workdir("dimmed", round_secs);
    let phone = covered_phone(round_secs, |g| g.dimmed_round = Some(1));
    let said = Daemon::new(&dir)
        .rounds(1)
        .phone("nexus", &phone)
        .finished()
        .await;
    let dimmed = lines(&said, "still_dimmed");
    assert_eq!(dimmed.len(), 1, "{said}");
    let event: serde_json::Value = serde_json::from_str(dimmed[0]).unwrap();
    assert!(event["secs"].as_u64().unwrap() >= 10, "{event}");
    assert!(event["why"].as_str().unwrap().contains("dimmed"), "{event}");
    let shot = event["screenshot"].as_str().expect("a screenshot");
    assert!(Path::new(shot).starts_with(dir.join("unsure")), "{shot}");
    assert!(shot.contains("/scramblebot-dimmed-"), "{shot}");
    assert!(image::open(shot).is_ok());
    // Nothing touched the overlay, and the round after it was played.
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert_eq!(report.rounds[0].words, 0);
    let rounds = rounds_in(&dir);
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    let second = report.rounds.get(1).map_or(&report.board, |g| &g.board);
    assert_eq!(&rounds[0].board, second);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(start_paused = true)]
async fn a_score_that_does_not_move_is_warned_of_with_the_screen_saved() {
    let dir = common::workdir("score", ROUND_SECS);
    // The profile's score box is put on a corner of the screen that nothing ever changes, as
    // a box that misses the game's score (or a game that takes no word) leaves it.
    let path = dir.join("devices/nexus7.toml");
    let profile =
        std::fs::read_to_string(&path).unwrap() + "\n[score]\nbox = [300, 1030, 500, 1080]\n";
    std::fs::write(&path, profile).unwrap();
    let phone = lobby_phone(Model::Nexus7, 31, ROUND_SECS, 2);
    let said = Daemon::new(&dir)
        .rounds(1)
        .phone("nexus", &phone)
        .finished()
        .await;
    let still = lines(&said, "score_still");
    assert_eq!(still.len(), 1, "{said}");
    let still: serde_json::Value = serde_json::from_str(still[0]).unwrap();
    assert_eq!(still["after_words"], 3, "{said}");
    let shot = still["screenshot"].as_str().expect("a screenshot");
    assert!(Path::new(shot).is_file(), "{shot}");
    let rounds = rounds_in(&dir);
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_eq!(rounds[0].score_moved, Some(false));
    // The warning does not stop the round: the words went in (the game took them; only the
    // box was wrong).
    played_cleanly(&phone, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A banner across the board's middle rows at the round's start (a game's "Go!", or the last
/// round's "Time's up!") leaves the board unsure for longer than the worker's patience: the
/// screen is said and kept, and the round is played once the banner goes, its clock counted
/// from the lobby look before the banner.
#[tokio::test(start_paused = true)]
async fn a_round_opening_under_a_banner_is_played_once_the_banner_goes() {
    let dir = common::workdir("banner", LONG_ROUND_SECS);
    let phone = covered_phone(LONG_ROUND_SECS, |g| g.banner = Some(Duration::from_secs(4)));
    let said = Daemon::new(&dir)
        .rounds(1)
        .phone("nexus", &phone)
        .finished()
        .await;
    // The unsure screen was said, with its screenshot.
    assert!(!lines(&said, "skipped").is_empty(), "{said}");
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    every_word(&report);
    // One round, played: the unsure spell was the same round, not a round skipped.
    let ended: Vec<Ended> = rounds_in(&dir).iter().map(|r| r.ended).collect();
    assert_eq!(ended, [Ended::AllWords]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The face the game of `a_game_face_is_learned_letter_by_letter` draws its tiles in: a light
/// one the references do not know, of which the reader is sure of only some letters
/// (installed with the corpus typefaces, fonts-dosis).
const GAME_FACE: &str = "Dosis-Light";

/// A game whose letters the reader has no references for: the daemon skips a round it is not
/// sure of, saving its screenshot; a person confirms that board with `read --learn` (the real
/// command, run while the daemon waits) and the daemon reads with the glyphs from its next
/// look on. One confirmed board is enough: every later round is played unattended. (Were one
/// asked for, it would have to be for a letter never confirmed before.)
#[tokio::test(start_paused = true)]
async fn a_game_face_is_learned_letter_by_letter() {
    let Some(font) =
        scramblebot::vision::corpus::font_file(Path::new("/usr/share/fonts"), GAME_FACE)
    else {
        scramblebot::testing::skip(&format!("the typeface {GAME_FACE}"), "fonts-dosis");
        return;
    };
    const ROUND: u64 = 10;
    const ROUNDS: usize = 5;
    let dir = common::workdir("learn", ROUND);
    let phone = Local::start(SimConfig {
        model: Model::Pixel,
        game: GameConfig {
            seed: 5,
            lobby: true,
            round: Duration::from_secs(ROUND),
            auto_advance: Some(Duration::from_secs(3)),
            ..GameConfig::default()
        },
        report: None,
        letters: Some(scramblebot::sim::screen::Face::load(&font).unwrap()),
    });
    let daemon = Daemon::new(&dir)
        .rounds(ROUNDS as u32)
        .phone("pixel", &phone)
        .start();
    let history = dir.join("history.jsonl");
    let rounds_now = || history::read(&history).map(|(r, _)| r).unwrap_or_default();
    // A person at hand: every board the daemon skips is confirmed as it shows on the phone.
    let mut known = std::collections::BTreeSet::new();
    let mut asked = Vec::new();
    let started = tokio::time::Instant::now();
    while rounds_now().len() < ROUNDS && !daemon.task.is_finished() {
        let waited = started.elapsed();
        assert!(waited < Duration::from_secs(600), "{:#?}", rounds_now());
        let skipped: Vec<_> = rounds_now()
            .into_iter()
            .filter(|r| r.ended == Ended::Unsure)
            .collect();
        let Some(record) = skipped.get(asked.len()) else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let board = phone.device().report().board;
        let tiles: Vec<&str> = scramblebot::board::Board::parse(&board)
            .unwrap()
            .tiles()
            .iter()
            .map(|&t| scramblebot::board::tile_name(t))
            .collect();
        assert!(
            tiles.iter().any(|t| !known.contains(t)),
            "{board} was asked for, but its letters were all confirmed before: {known:?}"
        );
        let shot = record
            .screenshot
            .as_ref()
            .expect("the unsure board's screenshot");
        // The game's clock stands still while the person's command runs.
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_scramblebot"))
            .args(["read", "--device", "pixel", "--learn", &board])
            .arg(shot)
            .current_dir(&dir)
            .env("XDG_STATE_HOME", dir.join("state"))
            .output_bounded();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(" glyphs ("), "{said}");
        known.extend(tiles);
        asked.push(board);
    }
    let said = daemon.finished().await;
    let rounds = rounds_now();
    eprintln!(
        "{GAME_FACE}: {} of {ROUNDS} boards asked for ({asked:?}), {} letters learned",
        asked.len(),
        known.len()
    );
    assert_eq!(rounds.len(), ROUNDS, "{rounds:#?}");
    // The reader is not sure of this face at first; a confirmed board is read with at once,
    // and is all it takes: the letters it did not show are read surely too.
    assert_eq!(rounds[0].ended, Ended::Unsure, "{rounds:#?}");
    assert!(said.contains("the profile's glyphs changed"), "{said}");
    assert_eq!(asked.len(), 1, "{asked:?}");
    let played = rounds.iter().filter(|r| r.ended != Ended::Unsure).count();
    assert_eq!(played, ROUNDS - 1, "{rounds:#?}");
    for r in &rounds {
        assert!(
            matches!(r.ended, Ended::AllWords | Ended::Clock | Ended::Unsure),
            "{r:?}"
        );
    }
    let report = phone.device().report();
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    let _ = std::fs::remove_dir_all(&dir);
}
