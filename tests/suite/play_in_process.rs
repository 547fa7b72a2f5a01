//! `play` and `play --watch` as the library runs them (`play::see`, then `play::Round::play`,
//! what the command composes), in this process on tokio's paused clock, against virtual
//! phones reached in process: the waits for a screen, a lock or a round take game time, not
//! the test's. `tests/suite/cli.rs` keeps the command itself through Debian's adb server.

use crate::common::{self, OutputBounded};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use scramblebot::calibrate::Freeze;
use scramblebot::calibrate::make::{Made, Request, make};
use scramblebot::calibrate::probe::{self, NumbersAsk};
use scramblebot::daemon::worker::WorkerOptions;
use scramblebot::daemon::{self, Event};
use scramblebot::phone::Phone;
use scramblebot::phone::in_process::InProcess;
use scramblebot::play::{self, PlayError, PlayedBoard, Seen, Sight, Stop};
use scramblebot::profile::Profile;
use scramblebot::sim::game::{GameConfig, Key, ScreenLock};
use scramblebot::sim::local::Local;
use scramblebot::sim::{Model, SimConfig};
use scramblebot::state::State;
use scramblebot::{Board, Order};
use tokio::sync::watch;

/// The board every phone here shows.
const BOARD: &str = "cape/rwjq/xzvk/oybf";

/// Android 4.4 in the lobby; its round starts by itself after `advance_secs`.
fn small_in_lobby(advance_secs: u64, tweak: impl FnOnce(&mut GameConfig)) -> Arc<Local> {
    let mut game = GameConfig {
        board: Some(Board::parse(BOARD).unwrap()),
        lobby: true,
        auto_advance: Some(Duration::from_secs(advance_secs)),
        ..GameConfig::default()
    };
    tweak(&mut game);
    common::local(Model::Small, game)
}

/// The shipped profile of `local`'s model.
fn shipped(local: &Local) -> Profile {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    Profile::find(local.device().model().name(), manifest, None).unwrap()
}

/// One round as `play --device NAME [--watch]` plays it with the shipped profile.
async fn play_round(local: &Arc<Local>, watch: bool) -> Result<(Seen, PlayedBoard), PlayError> {
    play_with(local, &shipped(local), watch, None).await
}

/// One round as `play` plays it with `profile` (and what the game taught, in `state`): the
/// board seen on the screen, played to the deadline that sight fixes.
async fn play_with(
    local: &Arc<Local>,
    profile: &Profile,
    watch: bool,
    state: Option<&State>,
) -> Result<(Seen, PlayedBoard), PlayError> {
    let phone = Phone::connect_in_process("phone", local.clone()).await?;
    let profile = profile.for_screen(phone.screen.0, phone.screen.1)?;
    let (_stop_tx, stop) = watch::channel(false);
    let sight = play::see(&phone, &profile, watch, stop.clone(), &mut |_| {}).await?;
    let Sight::Sure { seen, .. } = sight else {
        panic!("the board on the screen is not read surely");
    };
    let whole = Duration::from_secs_f64(profile.rules().round_secs);
    let round = play::Round::new(seen.clone(), whole);
    let how = play::How {
        order: Order::Longest,
        route: None,
        finish_word_on_stop: false,
    };
    let done = round
        .play(&phone, &profile, how, state, stop, &mut |_| {})
        .await?;
    Ok((seen, done))
}

/// `scramblebot calibrate --name NAME` on `local` (watching the round for `watch_secs`),
/// written into `dir`: the profile made.
async fn calibrate(local: &Arc<Local>, dir: &Path, name: &str, watch_secs: u64) -> Made {
    let phone = Phone::connect_in_process("phone", local.clone())
        .await
        .unwrap();
    let ask = NumbersAsk {
        clock: None,
        score: None,
        limit: Duration::from_secs(watch_secs),
    };
    let probed = probe::probe(
        &phone,
        &[],
        Duration::from_secs(60),
        Some(ask),
        &mut |_, _| {},
    )
    .await
    .unwrap();
    make(Request {
        name,
        dir,
        screen: &probed.screenshot,
        about: probed.about,
        freeze: Freeze::Find,
        advance: None,
        numbers: probed.numbers.expect("the round watched"),
        board: None,
        force: false,
    })
    .unwrap()
}

/// A scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("scramblebot-play-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The referee took every word the bot says it entered, and every word of the board.
fn referee_agrees(phone: &Local, done: &PlayedBoard) {
    let report = phone.device().report();
    assert_eq!(
        report.words, done.played.outcome.words_entered,
        "{report:?}"
    );
    assert_eq!(report.words, report.words_possible, "{report:?}");
    assert!(report.violations.is_empty(), "{report:?}");
    assert_eq!(report.rejected(), 0, "{report:?}");
}

#[tokio::test(start_paused = true)]
async fn play_watch_turns_on_a_screen_gone_off_and_plays_the_round() {
    // Android 4.4 (no KEYCODE_WAKEUP: POWER turns the screen on). The screen goes off 1 s
    // after start, in the lobby; the round starts by itself at 3 s, under a black screen.
    let phone = small_in_lobby(3, |g| g.screen_timeout = Some(Duration::from_secs(1)));
    let (seen, done) = play_round(&phone, true).await.unwrap();
    assert_eq!(seen.board.to_string(), "CAPE/RWJQu/XZVK/OYBF");
    referee_agrees(&phone, &done);
    let report = phone.device().report();
    assert!(report.screen_ons >= 1, "{report:?}");
    assert_eq!(report.touches_while_off, 0);

    // Without --watch too: a round on a screen that has gone off is turned on and played.
    let dark = phone_in_round(Model::Small, |g| {
        g.screen_timeout = Some(Duration::from_secs(2));
    });
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(!dark.device().game().screen_on(dark.device().now()));
    let (seen, done) = play_round(&dark, false).await.unwrap();
    assert_eq!(seen.board.to_string(), "CAPE/RWJQu/XZVK/OYBF");
    referee_agrees(&dark, &done);
    assert_eq!(dark.device().report().touches_while_off, 0);
}

/// A phone of `model` in a round on `BOARD`.
fn phone_in_round(model: Model, tweak: impl FnOnce(&mut GameConfig)) -> Arc<Local> {
    let mut game = GameConfig {
        board: Some(Board::parse(BOARD).unwrap()),
        ..GameConfig::default()
    };
    tweak(&mut game);
    common::local(model, game)
}

#[tokio::test(start_paused = true)]
async fn play_dismisses_a_lock_screen_without_a_secret_and_stops_at_a_pin() {
    // A phone in a round whose owner turned the screen off and on: its lock screen covers
    // the game.
    let locked = |model: Model, lock: ScreenLock| {
        let phone = phone_in_round(model, |g| g.screen_lock = lock);
        phone.device().key(Key::Power);
        phone.device().key(Key::Power);
        phone
    };
    // Android 13 (`wm dismiss-keyguard`), then Android 4.4 with --watch (the MENU key).
    for (model, watch) in [(Model::Pixel, false), (Model::Small, true)] {
        let phone = locked(model, ScreenLock::Swipe);
        let (seen, done) = play_round(&phone, watch).await.unwrap();
        assert_eq!(seen.board.to_string(), "CAPE/RWJQu/XZVK/OYBF");
        referee_agrees(&phone, &done);
        let report = phone.device().report();
        assert_eq!(report.unlocks, 1, "{model:?}");
        assert_eq!(report.touches_while_locked, 0, "{model:?}");
    }
    // A PIN: play says so, touches nothing, and does not claim a board.
    let phone = locked(Model::Pixel, ScreenLock::Pin);
    let error = play_round(&phone, false).await.unwrap_err();
    assert!(matches!(error, PlayError::Locked), "{error}");
    assert!(error.to_string().contains("lock screen"), "{error}");
    let report = phone.device().report();
    assert!(report.strokes.is_empty(), "{:?}", report.strokes);
    assert_eq!(report.touches_while_locked, 0);
}

#[tokio::test(start_paused = true)]
async fn play_watch_counts_the_clock_of_a_round_that_began_behind_a_dark_screen() {
    // Android 4.4 in the lobby; the round starts by itself at 5 s. Its owner turns the
    // screen off at 4.8 s, to a swipe lock: the round begins behind it, unseen.
    let phone = small_in_lobby(5, |g| g.screen_lock = ScreenLock::Swipe);
    let playing = {
        let phone = phone.clone();
        tokio::spawn(async move { play_round(&phone, true).await })
    };
    tokio::time::sleep(Duration::from_millis(4800)).await;
    assert!(
        phone.device().report().screenshots > 0,
        "play --watch never looked"
    );
    phone.device().key(Key::Power);
    let (seen, done) = playing.await.unwrap().unwrap();
    // Counted from the last look at the lobby, before the screen went dark.
    assert!(seen.behind, "{seen:?}");
    let after = seen.after.expect("when the board came up, at the latest");
    let ago = seen.at.saturating_duration_since(after);
    assert!(
        (Duration::from_millis(200)..Duration::from_secs(5)).contains(&ago),
        "{ago:?} before the board was read"
    );
    let report = phone.device().report();
    assert_eq!(report.unlocks, 1, "{report:?}");
    assert!(report.violations.is_empty(), "{report:?}");
    assert_eq!(report.rejected(), 0, "{report:?}");
    assert!(done.played.outcome.words_entered > 0);
}

/// A game face the reader has no references for (Comfortaa Bold, letters and digits), or
/// `None`, said, when it is not installed.
fn game_face() -> Option<scramblebot::sim::screen::Face> {
    let fonts = Path::new("/usr/share/fonts");
    let Some(font) = scramblebot::vision::corpus::font_file(fonts, "Comfortaa-Bold") else {
        scramblebot::testing::skip("the typeface Comfortaa-Bold", "fonts-comfortaa");
        return None;
    };
    Some(scramblebot::sim::screen::Face::load(&font).expect("Comfortaa draws every tile"))
}

/// A game drawn in a face the reader has no references for, which ignores a word begun less
/// than 120 ms after the last it took and knows 1 word in 11 fewer than ENABLE: `calibrate`
/// finds its clock and score by watching the round and learns the digits off the clock, with
/// no person; `play` paces its words to the score the game shows and enters again what went
/// untaken: at least 97% of the words the game knows are taken (open loop, 53 of 178 were),
/// and it reports the game's score exactly; `read` shows the score and the clock. Of the
/// words, it tells which the game took (never one it did not) and which it refused (never
/// one it knows): those are kept for the game, and the next round on it leaves them out.
#[tokio::test(start_paused = true)]
async fn the_games_score_is_read_off_its_screen_in_a_face_the_reader_never_saw() {
    let Some(face) = game_face() else {
        return;
    };
    let enable =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("dict/enable1.txt"))
            .unwrap();
    let games: String = enable
        .lines()
        .enumerate()
        .filter(|(i, _)| i % 11 != 5)
        .map(|(_, w)| format!("{w}\n"))
        .collect();
    let game = || GameConfig {
        accept_gap: Duration::from_millis(120),
        words: Some(scramblebot::Trie::from_word_list(games.as_bytes())),
        ..GameConfig::default()
    };
    let phone = Local::start(SimConfig {
        model: Model::Nexus7,
        game: game(),
        report: None,
        letters: Some(face.clone()),
    });
    let dir = scratch("numbers");
    // One state directory for the whole test: what a round learns, the next one uses.
    // What `XDG_STATE_HOME=DIR/state` gives the commands run below.
    let state_home = dir.join("state");
    let state = State::at(scramblebot::state::default_dir(Some(&state_home), None).unwrap());
    let made = calibrate(&phone, &dir.join("devices"), "swf", 30).await;
    let said = made.about.join("\n");
    assert!(said.contains("its ten digits learned in"), "{said}");
    assert!(said.contains("score at ["), "{said}");
    assert!(dir.join("devices/swf.digits.png").is_file());
    let profile = Profile::load(&made.saved.profile).unwrap();
    let (seen, done) = play_with(&phone, &profile, false, Some(&state))
        .await
        .unwrap();
    let played = &done.played;
    let report = phone.device().report();
    eprintln!(
        "{} of the {} words the game knows taken, {} points of {}; {:?}",
        report.words, report.words_possible, report.score, report.max_score, played.outcome
    );
    assert!(
        report.words * 100 >= report.words_possible * 97,
        "{} of the {} words the game knows taken",
        report.words,
        report.words_possible
    );
    assert_eq!(played.points_seen, Some(report.score));
    // Each word the game refused was entered at most twice.
    for word in report.strokes.iter().filter_map(|s| s.word.as_ref()) {
        let times = report
            .strokes
            .iter()
            .filter(|s| s.word.as_ref() == Some(word))
            .count();
        assert!(times <= 2, "{word} entered {times} times");
    }
    // The bot entered words the game does not know: what it shows is under what was
    // entered, which `play` says.
    let entered = played.outcome.points_entered;
    assert!(report.score < entered);
    assert!(play::seen_short(report.score, entered));
    // What the game took, told from its score: never a word it did not score, nearly all it
    // did, and refused only words it does not know (most of those on the board).
    let judged = played.judged.as_ref().expect("words told");
    assert!(
        judged.taken <= report.words && judged.taken * 10 >= report.words * 9,
        "{} of the {} words the game took told",
        judged.taken,
        report.words
    );
    let solution = scramblebot::Solver::new(&scramblebot::Trie::enable()).solve(
        &seen.board,
        &scramblebot::Rules::scramble(),
        &scramblebot::Bonuses::none(),
    );
    let unknown: std::collections::BTreeSet<String> = solution
        .words()
        .map(|w| w.text())
        .filter(|w| !games.lines().any(|g| g == w))
        .collect();
    let refused = judged.refused.clone();
    eprintln!("refused {refused:?} of {unknown:?}");
    for w in &refused {
        assert!(unknown.contains(w), "{w} refused, but the game knows it");
    }
    assert!(
        refused.len() * 10 >= unknown.len() * 7,
        "{} of the {} words the game does not know found refused",
        refused.len(),
        unknown.len()
    );
    // They are kept for the game, and `words --refused` lists them.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scramblebot"))
        .args(["words", "--refused", "--json"])
        .env("XDG_STATE_HOME", &state_home)
        .output_bounded();
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut sorted = refused.clone();
    sorted.sort();
    assert_eq!(
        listed["games"]["com.zynga.scramble"],
        serde_json::json!(sorted),
        "{listed}"
    );
    // The screen as it is now, read by `read` with the profile: the score, and the clock.
    let png = dir.join("now.png");
    phone.device().screenshot().save(&png).unwrap();
    let left = phone.device().report().time_left_ms;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scramblebot"))
        .arg("read")
        .arg(&png)
        .arg("--profile")
        .arg(&made.saved.profile)
        .arg("--json")
        .output_bounded();
    let j: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(j["score"], report.score, "{j}");
    let clock = j["clock_secs"].as_f64().expect("the clock read");
    assert!(
        (clock - left / 1e3).abs() <= 1.5,
        "{clock} s read, {left} ms left"
    );
    // The same board on another phone of the same game: no refused word is entered, and the
    // round starts at the pace this one learned.
    let second = Local::start(SimConfig {
        model: Model::Nexus7,
        game: game(),
        report: None,
        letters: Some(face),
    });
    let (_, done2) = play_with(&second, &profile, false, Some(&state))
        .await
        .unwrap();
    assert_eq!(done2.left_out, refused.len());
    let report2 = second.device().report();
    for s in &report2.strokes {
        if let Some(w) = &s.word {
            assert!(!refused.contains(w), "{w} entered again on the next round");
        }
    }
    // It may find more of them (those the first round could not tell of), never one the
    // game knows; together most of those on the board.
    let judged2 = done2.played.judged.as_ref().expect("words told");
    for w in &judged2.refused {
        assert!(unknown.contains(w) && !refused.contains(w), "{w}");
    }
    assert!((refused.len() + judged2.refused.len()) * 10 >= unknown.len() * 8);
    assert!(judged2.taken <= report2.words && judged2.taken * 10 >= report2.words * 9);
    assert_eq!(done2.played.points_seen, Some(report2.score));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A round of 48 s whose Freeze adds 5 s, on a profile that says 120 s and 15 (calibrate
/// writes Scramble's rules): `play` keeps to the game's clock as it reads it while playing,
/// the Freeze's 5 s included, and sends no stroke after the clock shows 0:00 (with the
/// profile's figures it would go on 10 s past it). The game takes a word 200 ms after the
/// last at the earliest: the board's words need more than the 38 s left after calibrating.
#[tokio::test(start_paused = true)]
async fn play_keeps_to_the_games_clock_read_while_playing_freeze_included() {
    let Some(face) = game_face() else {
        return;
    };
    let round = Duration::from_secs(48);
    let freeze = Duration::from_secs(5);
    let phone = Local::start(SimConfig {
        model: Model::Nexus7,
        game: GameConfig {
            round,
            freeze,
            accept_gap: Duration::from_millis(200),
            ..GameConfig::default()
        },
        report: None,
        letters: Some(face),
    });
    let dir = scratch("clock-reread");
    let made = calibrate(&phone, &dir, "swf", 15).await;
    assert!(dir.join("swf.digits.png").is_file());
    let profile = Profile::load(&made.saved.profile).unwrap();
    let (_, done) = play_with(&phone, &profile, false, None).await.unwrap();
    let played = &done.played;
    let report = phone.device().report();
    assert_eq!(played.outcome.stop, Stop::Clock, "{:?}", played.outcome);
    assert_eq!(report.freezes.len(), 1, "{:?}", played.outcome);
    let end_ms = (round + freeze).as_secs_f64() * 1e3;
    for s in &report.strokes {
        assert!(
            s.end_ms <= end_ms,
            "a stroke {:.0} ms after the game's clock showed 0:00",
            s.end_ms - end_ms
        );
    }
    // The score as the last look in the round saw it: words in flight then may be missing.
    let seen = played.points_seen.expect("the score seen");
    assert!(
        seen <= report.score && seen * 100 >= report.score * 95,
        "{seen} seen, {} scored",
        report.score
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A round joined late, on a game whose clock the profile can read: `play` reads the time
/// left off the clock and stops before it ends (no stroke on the results screen), where the
/// profile's full round would have run far past it; then the daemon, started while the next
/// game's round is under way, plays that round by its clock instead of waiting for another.
#[tokio::test(start_paused = true)]
async fn a_round_joined_late_is_played_for_the_time_its_clock_shows() {
    let Some(face) = game_face() else {
        return;
    };
    let phone = |round_secs: u64| {
        Local::start(SimConfig {
            model: Model::Nexus7,
            game: GameConfig {
                round: Duration::from_secs(round_secs),
                ..GameConfig::default()
            },
            report: None,
            letters: Some(face.clone()),
        })
    };
    let first = phone(24);
    let dir = scratch("late");
    let devices = dir.join("devices");
    let made = calibrate(&first, &devices, "late", 30).await;
    // Slowed to about 8 words a second, the board's 178 words need over 20 s: more than is
    // left of the round once calibrated (the profile says 120 s rounds).
    let toml = std::fs::read_to_string(&made.saved.profile).unwrap();
    std::fs::write(
        &made.saved.profile,
        toml.replace("word_pause_ms = 0", "word_pause_ms = 60"),
    )
    .unwrap();
    let profile = Profile::load(&made.saved.profile).unwrap();
    let (seen, done) = play_with(&first, &profile, false, None).await.unwrap();
    let (_, clock) = seen.clock.expect("the clock read");
    assert!(clock < 20, "{seen:?}");
    assert_eq!(
        done.played.outcome.stop,
        Stop::Clock,
        "{:?}",
        done.played.outcome
    );
    let report = first.device().report();
    assert!(report.words > 0, "{report:?}");
    assert!(
        report.violations.is_empty(),
        "a stroke after 0:00: {:?}",
        report.violations
    );
    // A round 4 s under way when the daemon starts (in this directory: the profile by size).
    let second = phone(20);
    tokio::time::sleep(Duration::from_secs(4)).await;
    let said = daemon_once(&dir, &second).await;
    assert!(
        said.iter().any(|e| matches!(e, Event::RoundStarted { .. })),
        "{said:?}"
    );
    assert!(
        !said.iter().any(|e| matches!(e, Event::JoinedLate { .. })),
        "{said:?}"
    );
    let report = second.device().report();
    assert!(report.words > 0, "{report:?}");
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `scramblebot daemon --rounds 1` in `dir` on `phone`: what it said.
async fn daemon_once(dir: &Path, phone: &Arc<Local>) -> Vec<Event> {
    let opts = daemon::Options {
        server: "127.0.0.1:5037".parse().unwrap(),
        connect: Vec::new(),
        only: None,
        profiles: daemon::Profiles::BySize,
        cwd: dir.to_owned(),
        config_dir: None,
        worker: WorkerOptions {
            order: Order::Longest,
            route: None,
            rounds: Some(1),
            unsure_dir: dir.join("unsure"),
            keep_screens: 20,
            state: None,
        },
        history: None,
        direct: true,
        in_process: vec![("phone".to_owned(), phone.clone() as Arc<dyn InProcess>)],
    };
    let (_stop_tx, stop) = watch::channel(false);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    daemon::run_direct(opts, stop, tx).await.unwrap();
    let mut said = Vec::new();
    while let Ok(e) = rx.try_recv() {
        said.push(e);
    }
    said
}

/// Strokes the game got after its round ended (on its results screen).
fn strokes_past_the_clock(phone: &Local) -> usize {
    let report = phone.device().report();
    report
        .strokes
        .iter()
        .filter(|s| {
            s.reason
                .as_deref()
                .is_some_and(|r| r.starts_with("no round is running"))
        })
        .count()
}

/// A game whose clock the profile cannot read, with rounds far shorter than the profile
/// says (12 s, not 120): `play` on a round joined late, then the daemon on one already under
/// way, each plays until a look no longer finds the board on the screen, and says so.
#[tokio::test(start_paused = true)]
async fn a_round_whose_clock_is_not_read_ends_when_its_board_leaves_the_screen() {
    let phone = || {
        common::local(
            Model::Nexus7,
            GameConfig {
                round: Duration::from_secs(12),
                auto_advance: None,
                ..GameConfig::default()
            },
        )
    };
    // The shipped profile (no clock learned), slowed to about 8 words a second: the board's
    // words need more than the round has.
    let dir = common::workdir("board-gone", 120);
    let path = dir.join("devices/nexus7.toml");
    let toml = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        toml.replace("word_pause_ms = 0", "word_pause_ms = 60"),
    )
    .unwrap();
    let profile = Profile::load(&path).unwrap();
    assert!(profile.clock().is_none());

    let first = phone();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let (seen, done) = play_with(&first, &profile, false, None).await.unwrap();
    assert!(seen.clock.is_none() && seen.after.is_none(), "{seen:?}");
    let outcome = &done.played.outcome;
    assert_eq!(outcome.stop, Stop::BoardGone, "{outcome:?}");
    let report = first.device().report();
    assert!(report.words > 20, "{report:?}");
    assert!(outcome.words_entered < outcome.words_planned, "{outcome:?}");
    // The round, its clock unread, lasted the game's 10 s left, not the profile's 120.
    assert!(outcome.elapsed_secs < 12.0, "{outcome:?}");
    let past = strokes_past_the_clock(&first);
    assert!(past <= 1, "{past} strokes on the results screen");

    // The daemon, started 3 s into a round: joined late, played until the board left.
    let second = phone();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let said = daemon_once(&dir, &second).await;
    assert!(
        said.iter().any(|e| matches!(e, Event::JoinedLate { .. })),
        "{said:?}"
    );
    let ended = said.iter().find_map(|e| match e {
        Event::RoundEnded { record } => Some(record.clone()),
        _ => None,
    });
    let record = ended.expect("the round recorded");
    assert_eq!(
        record.ended,
        daemon::history::Ended::BoardGone,
        "{record:?}"
    );
    assert!(second.device().report().words > 20);
    let past = strokes_past_the_clock(&second);
    assert!(past <= 1, "{past} strokes on the results screen");
    let _ = std::fs::remove_dir_all(&dir);
}
