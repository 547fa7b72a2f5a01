//! The daemon through Debian's adb server, on three virtual phones at once (Android 5.1, 13
//! and 4.4): short rounds that start by themselves, three rounds each, every word entered or
//! the clock ran out, no touch the game refused, one history line per round.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use scramblebot::daemon::history::{self, Ended};
use scramblebot::sim::game::{GameConfig, Key, ScreenLock};
use scramblebot::sim::{Model, Sim, SimConfig};

/// The round's length on the virtual phones and in their profiles.
const ROUND_SECS: u64 = 8;

/// A working directory whose devices/ holds the shipped profiles with rounds of `round_secs`
/// (a profile says how long the game's rounds are).
fn workdir(name: &str, round_secs: u64) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("scramblebot-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("devices")).unwrap();
    for model in Model::ALL {
        let shipped = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("devices/{}.toml", model.name())),
        )
        .unwrap();
        let short: String = shipped
            .lines()
            .map(|l| {
                if l.starts_with("round_secs") {
                    format!("round_secs = {round_secs}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(dir.join(format!("devices/{}.toml", model.name())), short).unwrap();
    }
    dir
}

/// A phone in the lobby whose rounds (of `round_secs`) start by themselves: the first
/// `advance_secs` after it starts (time for the daemon to attach), each next one
/// `advance_secs` after the last one's results show.
fn lobby_phone(model: Model, seed: u64, round_secs: u64, advance_secs: u64) -> Sim {
    lobby_phone_at("127.0.0.1:0", model, seed, round_secs, advance_secs)
}

/// `lobby_phone` listening on `addr`.
fn lobby_phone_at(addr: &str, model: Model, seed: u64, round_secs: u64, advance_secs: u64) -> Sim {
    let config = SimConfig {
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
    };
    Sim::start(addr.parse().unwrap(), config).expect("the sim listens")
}

/// A Nexus 7 in the lobby whose rounds (of `round_secs`) start 2 s after it starts and after
/// each results screen, with `cover` setting what covers a round (`dialog_round`,
/// `dimmed_round`).
fn covered_phone(round_secs: u64, cover: impl FnOnce(&mut GameConfig)) -> Sim {
    let mut game = GameConfig {
        lobby: true,
        round: Duration::from_secs(round_secs),
        auto_advance: Some(Duration::from_secs(2)),
        ..GameConfig::default()
    };
    cover(&mut game);
    let config = SimConfig {
        model: Model::Nexus7,
        game,
        report: None,
        letters: None,
    };
    Sim::start("127.0.0.1:0".parse().unwrap(), config).expect("the sim listens")
}

#[test]
fn three_phones_play_three_rounds_each() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon", ROUND_SECS);
    let phones: Vec<Sim> = Model::ALL
        .iter()
        .zip(1..)
        .map(|(&m, seed)| lobby_phone(m, seed, ROUND_SECS, 3))
        .collect();
    let history = dir.join("history.jsonl");
    let mut cmd = common::bin();
    cmd.args([
        "daemon",
        "-P",
        &server.port.to_string(),
        "--rounds",
        "3",
        "--json",
    ])
    .arg("--history")
    .arg(&history)
    .env("HOME", &server.home)
    .env_remove("ANDROID_SERIAL")
    .current_dir(&dir)
    .stdin(std::process::Stdio::null());
    for p in &phones {
        cmd.args(["--connect", &p.addr().to_string()]);
    }
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stderr}\n{stdout}");
    // Every event is a JSON object naming its kind.
    let events: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let kinds = |k: &str| events.iter().filter(|e| e["event"] == k).count();
    assert_eq!(kinds("phone_ready"), 3, "{stdout}");
    assert_eq!(kinds("round_started"), 9, "{stdout}");
    assert_eq!(kinds("phone_done"), 3, "{stdout}");
    let (rounds, bad) = history::read(&history).unwrap();
    assert_eq!((rounds.len(), bad), (9, 0), "{rounds:#?}");
    for p in &phones {
        let serial = p.addr().to_string();
        let report = p.device().report();
        // The referee saw no touch outside a round's tiles and buttons, and took every word.
        assert!(
            report.violations.is_empty(),
            "{serial}: {:?}",
            report.violations
        );
        assert_eq!(report.rejected(), 0, "{serial}: {:?}", report.strokes);
        let mine: Vec<_> = rounds.iter().filter(|r| r.serial == serial).collect();
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

/// Starts the daemon through `server` in `dir` with `args`, its output piped.
fn spawn_daemon(server: &common::AdbServer, dir: &Path, args: &[String]) -> std::process::Child {
    common::bin()
        .args(["daemon", "-P", &server.port.to_string(), "--json"])
        .args(args)
        .env("HOME", &server.home)
        .env_remove("ANDROID_SERIAL")
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Sends SIGTERM to the daemon, as a supervisor stops it.
fn terminate(daemon: &std::process::Child) {
    let kill = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
}

/// Waits, up to a minute, until `ready` holds.
fn wait_until(what: &str, ready: impl Fn() -> bool) {
    let started = std::time::Instant::now();
    while !ready() {
        assert!(started.elapsed().as_secs() < 60, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The length of `long_round`'s round.
const LONG_ROUND_SECS: u64 = 60;

/// A phone whose one long round starts by itself two seconds after it starts.
fn long_round(model: Model) -> Sim {
    lobby_phone(model, 1, LONG_ROUND_SECS, 2)
}

#[test]
fn a_phone_without_a_profile_is_left_alone_and_sigterm_finishes_the_stroke() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-sigterm", LONG_ROUND_SECS);
    let (pixel, nexus) = (long_round(Model::Pixel), long_round(Model::Nexus7));
    let history = dir.join("history.jsonl");
    let args: Vec<String> = [
        "--device",
        "pixel",
        "--history",
        history.to_str().unwrap(),
        "--connect",
        &pixel.addr().to_string(),
        "--connect",
        &nexus.addr().to_string(),
    ]
    .map(String::from)
    .to_vec();
    let daemon = spawn_daemon(&server, &dir, &args);
    wait_until("ten words on the pixel", || {
        pixel.device().report().strokes.len() >= 10
    });
    terminate(&daemon);
    let stdout = finished(daemon);
    // The Nexus 7's screen is another shape than the pixel profile's: one line, no touch.
    let nexus_serial = nexus.addr().to_string();
    let no_profile = stdout
        .lines()
        .filter(|l| l.contains("\"no_profile\"") && l.contains(&nexus_serial))
        .count();
    assert_eq!(no_profile, 1, "{stdout}");
    assert!(nexus.device().report().strokes.is_empty());
    // The stroke in progress was finished and the finger lifted: every stroke a word the game
    // took, none left down; the history has the round, stopped.
    let report = pixel.device().report();
    assert!(!report.finger_down);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert!(report.violations.is_empty());
    let (rounds, _) = history::read(&history).unwrap();
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_eq!(rounds[0].ended, Ended::Stopped);
    assert_eq!(rounds[0].words_entered, report.words);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_dropped_phone_is_connected_again_and_its_round_resumed() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-drop", LONG_ROUND_SECS);
    let phone = long_round(Model::Nexus7);
    let serial = phone.addr().to_string();
    let history = dir.join("history.jsonl");
    let args: Vec<String> = [
        "--rounds",
        "1",
        "--history",
        history.to_str().unwrap(),
        "--connect",
        &serial,
    ]
    .map(String::from)
    .to_vec();
    let daemon = spawn_daemon(&server, &dir, &args);
    wait_until("ten words", || phone.device().report().strokes.len() >= 10);
    // The connection drops mid-round (as Wi-Fi does); the round goes on on the phone.
    assert!(server.adb(&["disconnect", &serial]).status.success());
    let stdout = finished(daemon);
    assert!(stdout.contains("\"phone_lost\""), "{stdout}");
    assert!(stdout.contains("\"resumed\""), "{stdout}");
    let report = phone.device().report();
    // None on the wrong screen; at most the word cut by the drop entered twice (refused when
    // its first stroke did reach the game), and every word taken.
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert!(report.rejected() <= 1, "{:?}", report.strokes);
    every_word(&report);
    let (rounds, _) = history::read(&history).unwrap();
    let ended: Vec<Ended> = rounds.iter().map(|r| r.ended).collect();
    assert_eq!(ended, [Ended::PhoneLost, Ended::AllWords], "{rounds:?}");
    // `history` counts the cut round and its resumption as one round, every word entered
    // (before: two rows, and a share of the maximum near half).
    let out = common::bin()
        .args(["history", "--json", "--history"])
        .arg(&history)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            summary["all"]["rounds"].as_u64(),
            summary["all"]["all_words"].as_u64()
        ),
        (Some(1), Some(1)),
        "{summary}"
    );
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

#[test]
fn the_play_button_is_tapped_between_rounds_and_nowhere_else() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-advance", ROUND_SECS);
    name_the_play_button(&dir);
    // A phone in the lobby that starts nothing by itself.
    let phone = common::start_with(SimConfig {
        model: Model::Nexus7,
        game: GameConfig {
            lobby: true,
            round: Duration::from_secs(ROUND_SECS),
            ..GameConfig::default()
        },
        report: None,
        letters: None,
    });
    let args: Vec<String> = ["--rounds", "2", "--connect", &phone.addr().to_string()]
        .map(String::from)
        .to_vec();
    let stdout = finished(spawn_daemon(&server, &dir, &args));
    assert_eq!(stdout.matches("\"round_started\"").count(), 2, "{stdout}");
    assert!(stdout.matches("\"advanced\"").count() >= 2, "{stdout}");
    let report = phone.device().report();
    assert_eq!(report.round, 2);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The daemon's arguments for `rounds` rounds on `phone`, its history in `history`.
fn rounds_on(rounds: u32, history: &Path, phone: &Sim) -> Vec<String> {
    vec![
        "--rounds".into(),
        rounds.to_string(),
        "--history".into(),
        history.display().to_string(),
        "--connect".into(),
        phone.addr().to_string(),
    ]
}

/// Starts the daemon on `phones` with `args`, and waits until every phone has had ten words.
fn daemon_under_way(
    server: &common::AdbServer,
    dir: &Path,
    phones: &[&Sim],
    args: &[&str],
) -> std::process::Child {
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    for p in phones {
        all.extend(["--connect".to_owned(), p.addr().to_string()]);
    }
    let daemon = spawn_daemon(server, dir, &all);
    for p in phones {
        wait_until("ten words on every phone", || {
            p.device().report().strokes.len() >= 10
        });
    }
    daemon
}

/// The daemon's stdout once it has exited, successfully, within two minutes (it is killed
/// and the test fails past that).
fn finished(mut daemon: std::process::Child) -> String {
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(daemon.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(daemon.stderr.take().map(|p| Box::new(p) as _));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = daemon.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = daemon.kill();
            let _ = daemon.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}\n{stderr}\n{stdout}"
    );
    stdout
}

/// Every word of the round taken: the one whose stroke a fault cut is entered again once the
/// phone is back.
fn every_word(report: &scramblebot::sim::game::Report) {
    assert_eq!(
        report.words, report.words_possible,
        "{} of {} words taken",
        report.words, report.words_possible
    );
}

/// How each of `serial`'s rounds ended, in order.
fn endings(rounds: &[history::RoundRecord], serial: &str) -> Vec<Ended> {
    rounds
        .iter()
        .filter(|r| r.serial == serial)
        .map(|r| r.ended)
        .collect()
}

/// The phone's rounds played cleanly: no touch off the game's tiles and buttons, at most the
/// word cut by a fault refused, every word in or the clock out.
fn played_cleanly(phone: &Sim, cut: usize) {
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert!(report.rejected() <= cut, "{:?}", report.strokes);
    assert!(!report.finger_down);
}

#[test]
fn the_adb_server_killed_mid_round_is_started_again_and_every_phone_resumes() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-server", LONG_ROUND_SECS);
    let phones = [long_round(Model::Nexus7), long_round(Model::Small)];
    let history = dir.join("history.jsonl");
    let daemon = daemon_under_way(
        &server,
        &dir,
        &phones.iter().collect::<Vec<_>>(),
        &["--rounds", "1", "--history", history.to_str().unwrap()],
    );
    assert!(server.adb(&["kill-server"]).status.success());
    let stdout = finished(daemon);
    // Nobody but the daemon started the server again, on its own port (not adb's default):
    // the phones could not have resumed otherwise.
    assert!(stdout.contains("lost the adb server"), "{stdout}");
    let (rounds, _) = history::read(&history).unwrap();
    for p in &phones {
        played_cleanly(p, 1);
        every_word(&p.device().report());
        let ended = endings(&rounds, &p.addr().to_string());
        assert_eq!(ended, [Ended::PhoneLost, Ended::AllWords], "{rounds:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_phone_killed_and_started_again_plays_on_and_the_other_is_unaffected() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-restart", ROUND_SECS);
    let killed = lobby_phone(Model::Nexus7, 1, ROUND_SECS, 2);
    let other = lobby_phone(Model::Small, 2, ROUND_SECS, 2);
    let addr = killed.addr().to_string();
    let history = dir.join("history.jsonl");
    let daemon = daemon_under_way(
        &server,
        &dir,
        &[&killed, &other],
        &["--rounds", "2", "--history", history.to_str().unwrap()],
    );
    // The phone dies mid-round (its game with it) and comes back on the same port, in the
    // lobby of a new match.
    let first = killed.device().report();
    drop(killed);
    std::thread::sleep(Duration::from_secs(1));
    let killed = lobby_phone_at(&addr, Model::Nexus7, 3, ROUND_SECS, 2);
    let stdout = finished(daemon);
    assert!(stdout.contains("\"phone_lost\""), "{stdout}");
    assert!(first.violations.is_empty(), "{:?}", first.violations);
    assert_eq!(first.rejected(), 0, "{:?}", first.strokes);
    // The new phone's round was played whole, and the other phone's two rounds too.
    played_cleanly(&killed, 0);
    played_cleanly(&other, 0);
    let (rounds, _) = history::read(&history).unwrap();
    let ended = |serial: &str| endings(&rounds, serial);
    // The phone's first round was cut; the rounds after it were the new phone's (a round
    // already on when the phone came back is left to the next, as the clock is unknown).
    let mine = ended(&addr);
    assert_eq!(mine[0], Ended::PhoneLost, "{rounds:?}");
    assert!(mine.len() >= 2, "{rounds:?}");
    let report = killed.device().report();
    let shown: Vec<&str> = report
        .rounds
        .iter()
        .map(|g| g.board.as_str())
        .chain([report.board.as_str()])
        .collect();
    for r in rounds.iter().filter(|r| r.serial == addr).skip(1) {
        assert!(matches!(r.ended, Ended::AllWords | Ended::Clock), "{r:?}");
        assert!(shown.contains(&r.board.as_str()), "{r:?} {shown:?}");
    }
    let others = ended(&other.addr().to_string());
    assert_eq!(others.len(), 2, "{rounds:?}");
    assert!(
        others
            .iter()
            .all(|e| matches!(e, Ended::AllWords | Ended::Clock)),
        "{rounds:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_board_not_read_surely_is_skipped_with_its_screenshot_and_the_next_played() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-unsure", ROUND_SECS);
    // The first round's board is under Android's "isn't responding" dialog.
    let phone = covered_phone(ROUND_SECS, |g| g.dialog_round = Some(1));
    let history = dir.join("history.jsonl");
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
    let mut args = rounds_on(2, &history, &phone);
    args.extend(["--keep-screens".into(), "1".into()]);
    let stdout = finished(spawn_daemon(&server, &dir, &args));
    assert!(stdout.contains("\"skipped\""), "{stdout}");
    assert!(!old.exists() && users.exists());
    let (rounds, _) = history::read(&history).unwrap();
    let ended: Vec<Ended> = rounds.iter().map(|r| r.ended).collect();
    assert!(
        matches!(ended[..], [Ended::Unsure, Ended::AllWords | Ended::Clock]),
        "{rounds:?}"
    );
    // The screenshot of the dialog was kept, beside the history; nothing touched the dialog.
    let shot = rounds[0].screenshot.as_ref().expect("a screenshot");
    assert!(shot.starts_with(dir.join("unsure")), "{shot:?}");
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

#[test]
fn a_screen_gone_off_between_rounds_is_turned_on_and_the_next_round_played() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-screen-off", ROUND_SECS);
    // The screen goes off 2 s after the last touch, as a phone's screen timeout turns it
    // off: in the lobby, and on the results screen, while the next round starts by itself
    // 3 s after the results under a black screen.
    let phone = covered_phone(ROUND_SECS, |g| {
        g.screen_timeout = Some(Duration::from_secs(2));
        g.auto_advance = Some(Duration::from_secs(3));
    });
    let history = dir.join("history.jsonl");
    let args = rounds_on(2, &history, &phone);
    let stdout = finished(spawn_daemon(&server, &dir, &args));
    let woke = stdout.lines().filter(|l| l.contains("\"woke\"")).count();
    assert!(woke >= 2, "{stdout}");
    let (rounds, _) = history::read(&history).unwrap();
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

#[test]
fn a_lock_screen_without_a_secret_is_dismissed_and_the_rounds_played() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-swipe-lock", ROUND_SECS);
    // As the test above, with a lock screen (Swipe) up whenever the screen comes back on.
    let phone = covered_phone(ROUND_SECS, |g| {
        g.screen_timeout = Some(Duration::from_secs(2));
        g.auto_advance = Some(Duration::from_secs(3));
        g.screen_lock = ScreenLock::Swipe;
    });
    let history = dir.join("history.jsonl");
    let args = rounds_on(2, &history, &phone);
    let stdout = finished(spawn_daemon(&server, &dir, &args));
    let said = |event: &str| stdout.lines().filter(|l| l.contains(event)).count();
    assert!(said("\"woke\"") >= 2, "{stdout}");
    assert!(said("\"unlocked\"") >= 2, "{stdout}");
    assert_eq!(said("\"locked\""), 0, "{stdout}");
    let (rounds, _) = history::read(&history).unwrap();
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

#[test]
fn a_round_found_behind_a_dark_or_locked_screen_is_joined_late_not_played_on_a_guess() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-behind-lock", ROUND_SECS);
    // A round under way, on a screen gone off to a swipe lock before the daemon starts: how
    // long the round has run cannot be seen, so it is not played; and as nothing touches
    // the phone meanwhile, the screen goes off again during it, and the same board comes
    // back each time it is turned on. The next round is played.
    let phone = common::start_with(SimConfig {
        model: Model::Nexus7,
        game: GameConfig {
            round: Duration::from_secs(ROUND_SECS),
            auto_advance: Some(Duration::from_secs(3)),
            screen_timeout: Some(Duration::from_secs(2)),
            screen_lock: ScreenLock::Swipe,
            ..GameConfig::default()
        },
        report: None,
        letters: None,
    });
    let first = phone.device().report().board;
    wait_until("the screen off", || {
        !phone.device().game().screen_on(phone.device().now())
    });
    let history = dir.join("history.jsonl");
    let args = rounds_on(1, &history, &phone);
    let stdout = finished(spawn_daemon(&server, &dir, &args));
    let joined: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("\"joined_late\""))
        .collect();
    assert_eq!(joined.len(), 1, "{stdout}");
    assert!(joined[0].contains(&first), "{stdout}");
    let (rounds, _) = history::read(&history).unwrap();
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_ne!(rounds[0].board, first);
    let report = phone.device().report();
    assert_eq!(report.rounds[0].words, 0, "{:?}", report.rounds);
    // No word went in after a round's end, none was touched onto a dark or locked screen.
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert_eq!(report.touches_while_off + report.touches_while_locked, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_lock_screen_with_a_pin_is_said_once_and_never_touched() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-pin-lock", ROUND_SECS);
    // The worker taps Play/Next while no board shows: never on a lock screen.
    name_the_play_button(&dir);
    // The phone's owner turned its screen off and on: its PIN's lock screen covers the lobby,
    // and the rounds that start under it.
    let phone = covered_phone(ROUND_SECS, |g| g.screen_lock = ScreenLock::Pin);
    phone.device().key(Key::Power);
    phone.device().key(Key::Power);
    let history = dir.join("history.jsonl");
    let args = rounds_on(2, &history, &phone);
    let mut daemon = spawn_daemon(&server, &dir, &args);
    let out = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let reader = {
        let (out, pipe) = (out.clone(), daemon.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(std::io::BufReader::new(pipe)) {
                let Ok(line) = line else { break };
                let mut out = out.lock().unwrap();
                out.push_str(&line);
                out.push('\n');
            }
        })
    };
    wait_until("the lock screen said", || {
        out.lock().unwrap().contains("\"locked\"")
    });
    // Past the worker's next look at the lock (every 10 s): it is not said again.
    std::thread::sleep(Duration::from_secs(11));
    terminate(&daemon);
    let status = daemon.wait().unwrap();
    reader.join().unwrap();
    let stdout = out.lock().unwrap().clone();
    assert!(status.success(), "{status:?}\n{stdout}");
    let said = |event: &str| stdout.lines().filter(|l| l.contains(event)).count();
    assert_eq!(said("\"locked\""), 1, "{stdout}");
    assert_eq!(said("\"unlocked\""), 0, "{stdout}");
    assert_eq!(said("\"advanced\""), 0, "{stdout}");
    // No Play/Next tap nor stroke landed on the lock screen.
    let report = phone.device().report();
    assert!(report.strokes.is_empty(), "{:?}", report.strokes);
    assert_eq!(report.touches_while_locked, 0);
    assert_eq!(report.unlocks, 0);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_board_dimmed_for_long_is_waited_out_and_said_once_with_its_screen() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    // The first round's board stays dimmed ("Reconnecting...") the whole round, longer than
    // the worker's patience (10 s) for a toast before the round.
    let round_secs = 14;
    let dir = workdir("daemon-dimmed", round_secs);
    let phone = covered_phone(round_secs, |g| g.dimmed_round = Some(1));
    let history = dir.join("history.jsonl");
    let args = rounds_on(1, &history, &phone);
    let stdout = finished(spawn_daemon(&server, &dir, &args));
    let said: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("\"still_dimmed\""))
        .collect();
    assert_eq!(said.len(), 1, "{stdout}");
    let event: serde_json::Value = serde_json::from_str(said[0]).unwrap();
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
    let (rounds, _) = history::read(&history).unwrap();
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    let second = report.rounds.get(1).map_or(&report.board, |g| &g.board);
    assert_eq!(&rounds[0].board, second);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_score_that_does_not_move_is_warned_of_with_the_screen_saved() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-score", ROUND_SECS);
    // The profile's score box is put on a corner of the screen that nothing ever changes, as
    // a box that misses the game's score (or a game that takes no word) leaves it.
    let path = dir.join("devices/nexus7.toml");
    let profile =
        std::fs::read_to_string(&path).unwrap() + "\n[score]\nbox = [300, 1030, 500, 1080]\n";
    std::fs::write(&path, profile).unwrap();
    let phone = lobby_phone(Model::Nexus7, 31, ROUND_SECS, 2);
    let history = dir.join("history.jsonl");
    let args = rounds_on(1, &history, &phone);
    let stdout = finished(spawn_daemon(&server, &dir, &args));
    let still: Vec<serde_json::Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "score_still")
        .collect();
    assert_eq!(still.len(), 1, "{stdout}");
    assert_eq!(still[0]["after_words"], 3, "{stdout}");
    let shot = still[0]["screenshot"].as_str().expect("a screenshot");
    assert!(Path::new(shot).is_file(), "{shot}");
    let (rounds, _) = history::read(&history).unwrap();
    assert_eq!(rounds.len(), 1, "{rounds:?}");
    assert_eq!(rounds[0].score_moved, Some(false));
    // The warning does not stop the round: the words went in (the game took them; only the
    // box was wrong).
    played_cleanly(&phone, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The face the game of `a_game_face_is_learned_letter_by_letter` draws its tiles in: a light
/// one the references do not know, of which the reader is sure of only some letters
/// (installed with the corpus typefaces, fonts-dosis).
const GAME_FACE: &str = "Dosis-Light";

/// A game whose letters the reader has no references for: the daemon skips a round it is not
/// sure of, saving its screenshot; a person confirms that board with `read --learn` while the
/// daemon runs, and it reads with the glyphs from its next look on. One confirmed board is
/// enough: every later round is played unattended. (Were one asked for, it would have to be
/// for a letter never confirmed before.)
#[test]
fn a_game_face_is_learned_letter_by_letter() {
    let Some(font) =
        scramblebot::vision::corpus::font_file(Path::new("/usr/share/fonts"), GAME_FACE)
    else {
        scramblebot::testing::skip(&format!("the typeface {GAME_FACE}"), "fonts-dosis");
        return;
    };
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    const ROUND: u64 = 10;
    let dir = workdir("daemon-learn", ROUND);
    let phone = Sim::start(
        "127.0.0.1:0".parse().unwrap(),
        SimConfig {
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
        },
    )
    .unwrap();
    const ROUNDS: usize = 5;
    let history = dir.join("history.jsonl");
    let args: Vec<String> = [
        "--rounds",
        &ROUNDS.to_string(),
        "--history",
        history.to_str().unwrap(),
        "--connect",
        &phone.addr().to_string(),
    ]
    .map(String::from)
    .to_vec();
    let mut daemon = spawn_daemon(&server, &dir, &args);
    let rounds_now = || history::read(&history).map(|(r, _)| r).unwrap_or_default();
    // A person at hand: every board the daemon skips is confirmed as it shows on the phone.
    let mut known = std::collections::BTreeSet::new();
    let mut asked = Vec::new();
    let started = std::time::Instant::now();
    while rounds_now().len() < ROUNDS && daemon.try_wait().unwrap().is_none() {
        assert!(started.elapsed().as_secs() < 150, "{:#?}", rounds_now());
        let skipped: Vec<_> = rounds_now()
            .into_iter()
            .filter(|r| r.ended == Ended::Unsure)
            .collect();
        let Some(record) = skipped.get(asked.len()) else {
            std::thread::sleep(Duration::from_millis(20));
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
        let out = common::bin()
            .args(["read", "--device", "pixel", "--learn", &board])
            .arg(shot)
            .current_dir(&dir)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains(" glyphs ("), "{said}");
        known.extend(tiles);
        asked.push(board);
    }
    let stdout = finished(daemon);
    let rounds = rounds_now();
    eprintln!(
        "{GAME_FACE}: {} of {ROUNDS} boards asked for ({asked:?}), {} letters learned",
        asked.len(),
        known.len()
    );
    assert_eq!(rounds.len(), ROUNDS, "{rounds:#?}");
    // The reader is not sure of this face at first; a confirmed board is read with at once,
    // and is all it takes: the letters it did not show are read surely too (before the
    // face's width was learned with its glyphs, its W was read as V, and a second board was
    // asked for).
    assert_eq!(rounds[0].ended, Ended::Unsure, "{rounds:#?}");
    assert!(stdout.contains("the profile's glyphs changed"), "{stdout}");
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

/// A banner across the board's middle rows at the round's start (a game's "Go!", or the last
/// round's "Time's up!") leaves the board unsure for longer than the worker's patience: the
/// screen is said and kept, and the round is played once the banner goes, its clock counted
/// from the lobby look before the banner. Before, the worker waited for "the board to go" and
/// entered nothing in a round it could have played whole.
#[test]
fn a_round_opening_under_a_banner_is_played_once_the_banner_goes() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-banner", LONG_ROUND_SECS);
    let phone = covered_phone(LONG_ROUND_SECS, |g| g.banner = Some(Duration::from_secs(4)));
    let history = dir.join("history.jsonl");
    let stdout = finished(spawn_daemon(&server, &dir, &rounds_on(1, &history, &phone)));
    // The unsure screen was said, with its screenshot.
    assert!(stdout.contains("\"skipped\""), "{stdout}");
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.rejected(), 0, "{:?}", report.strokes);
    assert_eq!(
        report.words, report.words_possible,
        "every word of the board taken"
    );
    // One round, played: the unsure spell was the same round, not a round skipped.
    let (rounds, _) = history::read(&history).unwrap();
    let ended: Vec<Ended> = rounds.iter().map(|r| r.ended).collect();
    assert_eq!(ended, [Ended::AllWords], "{rounds:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The phone's adbd dies in the middle of a word's stroke and is back on the same port within
/// the round, the game going on: the word whose stroke was cut is entered again after the
/// reconnect, so every word of the board is taken (the referee's count), and the round's
/// record says how many were entered again. Before, the cut word was left out as "maybe
/// taken": 360 of 361.
#[test]
fn a_phone_killed_mid_stroke_and_back_in_the_round_loses_no_word() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon-kill-stroke", LONG_ROUND_SECS);
    let mut phone = long_round(Model::Nexus7);
    let history = dir.join("history.jsonl");
    let daemon = spawn_daemon(&server, &dir, &rounds_on(1, &history, &phone));
    wait_until("ten words, and a finger down", || {
        let r = phone.device().report();
        r.strokes.len() >= 10 && r.finger_down
    });
    phone.restart(Duration::from_secs(1)).unwrap();
    let stdout = finished(daemon);
    assert!(stdout.contains("\"phone_lost\""), "{stdout}");
    assert!(stdout.contains("\"resumed\""), "{stdout}");
    let report = phone.device().report();
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(
        report.words, report.words_possible,
        "every word of the board taken across the reconnect"
    );
    let (rounds, _) = history::read(&history).unwrap();
    let ended: Vec<Ended> = rounds.iter().map(|r| r.ended).collect();
    assert_eq!(ended, [Ended::PhoneLost, Ended::AllWords], "{rounds:?}");
    // At most the word in flight entered twice, and every word the game refused is one.
    let again = rounds[1].words_entered_again;
    assert!(again <= 1, "{rounds:?}");
    assert!(report.rejected() <= again, "{again}: {:?}", report.strokes);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A round long enough for every word of seed 1 and 2 (about 12 s), with room under load.
const WHOLE_ROUND_SECS: u64 = 25;

/// Two phones attached, the daemon asked for one (`-s`) and one round: it plays that round and
/// exits, leaving the other phone untouched.
#[test]
fn a_daemon_asked_for_one_phone_and_one_round_exits_after_it() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("only-one", WHOLE_ROUND_SECS);
    let (one, other) = (
        lobby_phone(Model::Nexus7, 1, WHOLE_ROUND_SECS, 2),
        lobby_phone(Model::Nexus7, 2, WHOLE_ROUND_SECS, 2),
    );
    for p in [&one, &other] {
        let addr = p.addr().to_string();
        assert!(server.adb(&["connect", &addr]).status.success());
        server.wait_for_device(&addr);
    }
    let history = dir.join("history.jsonl");
    let args: Vec<String> = [
        "-s",
        &one.addr().to_string(),
        "--rounds",
        "1",
        "--history",
        history.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    finished(spawn_daemon(&server, &dir, &args));
    every_word(&one.device().report());
    assert!(other.device().report().strokes.is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A history that cannot be written (`/dev/full`: every write fails) stops no phone: both
/// play their round whole, the daemon says loudly that the records are kept, and at the end
/// prints them rather than lose them.
#[test]
fn a_history_write_that_fails_stops_no_phone_and_loses_no_record() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("full-history", WHOLE_ROUND_SECS);
    let phones = [
        lobby_phone(Model::Nexus7, 1, WHOLE_ROUND_SECS, 2),
        lobby_phone(Model::Small, 2, WHOLE_ROUND_SECS, 2),
    ];
    let mut args: Vec<String> = ["--rounds", "1", "--history", "/dev/full"]
        .map(String::from)
        .to_vec();
    for p in &phones {
        args.extend(["--connect".to_owned(), p.addr().to_string()]);
    }
    let mut daemon = spawn_daemon(&server, &dir, &args);
    let mut stderr = daemon.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let stdout = finished(daemon);
    let err = err.join().unwrap();
    for p in &phones {
        every_word(&p.device().report());
    }
    assert!(
        stdout.contains("WARNING: cannot write the history /dev/full"),
        "{stdout}"
    );
    // Both records, printed on stderr as the history's lines.
    let printed: Vec<history::RoundRecord> = err
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(printed.len(), 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--connect` to an address where nothing listens is said at once (not after 8 s of
/// silence), once, while the daemon keeps trying.
#[test]
fn a_phone_that_cannot_be_reached_is_said_at_once() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("unreachable", ROUND_SECS);
    // A port nothing listens on: bound, then let go.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut daemon = spawn_daemon(&server, &dir, &["--connect".into(), addr.clone()]);
    let stdout = daemon.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let started = std::time::Instant::now();
    let said = format!("cannot connect {addr}");
    let mut lines = Vec::new();
    while started.elapsed() < Duration::from_secs(6) {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(100)) {
            lines.push((started.elapsed(), line));
        }
    }
    terminate(&daemon);
    let _ = daemon.wait();
    let told: Vec<Duration> = lines
        .iter()
        .filter(|(_, l)| l.contains(&said))
        .map(|(at, _)| *at)
        .collect();
    assert_eq!(told.len(), 1, "{lines:#?}");
    assert!(told[0] < Duration::from_secs(3), "{lines:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}
