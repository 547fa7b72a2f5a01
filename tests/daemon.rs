//! The daemon through Debian's adb server, on three virtual phones at once (Android 5.1, 13
//! and 4.4): short rounds that start by themselves, three rounds each, every word entered or
//! the clock ran out, no touch the game refused, one history line per round.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use scramblebot::daemon::history::{self, Ended};
use scramblebot::sim::game::GameConfig;
use scramblebot::sim::{Model, Sim, SimConfig};

/// The round's length on the virtual phones and in their profiles.
const ROUND_SECS: u64 = 8;

/// A working directory whose devices/ holds the shipped profiles with `ROUND_SECS` rounds
/// (a profile says how long the game's rounds are).
fn workdir(name: &str) -> std::path::PathBuf {
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
                    format!("round_secs = {ROUND_SECS}\n")
                } else {
                    format!("{l}\n")
                }
            })
            .collect();
        std::fs::write(dir.join(format!("devices/{}.toml", model.name())), short).unwrap();
    }
    dir
}

/// A phone in the lobby whose rounds start by themselves: the first three seconds after it
/// starts (time for the daemon to attach), the next three seconds after each round's results
/// show.
fn phone(model: Model, seed: u64) -> Sim {
    common::start_with(SimConfig {
        model,
        game: GameConfig {
            seed,
            lobby: true,
            round: Duration::from_secs(ROUND_SECS),
            auto_advance: Some(Duration::from_secs(3)),
            ..GameConfig::default()
        },
        report: None,
    })
}

#[test]
fn three_phones_play_three_rounds_each() {
    let Some(server) = common::AdbServer::start() else {
        return;
    };
    let dir = workdir("daemon");
    let phones: Vec<Sim> = Model::ALL
        .iter()
        .zip(1..)
        .map(|(&m, seed)| phone(m, seed))
        .collect();
    let history = dir.join("history.jsonl");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_scramblebot"));
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
