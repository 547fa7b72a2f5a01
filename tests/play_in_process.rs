//! `play` and `play --watch` as the library runs them (`play::see`, then `play::play_seen`,
//! what the command composes), in this process on tokio's paused clock, against virtual
//! phones reached in process: the waits for a screen, a lock or a round take game time, not
//! the test's. `tests/cli.rs` keeps the command itself through Debian's adb server.

use std::sync::Arc;
use std::time::Duration;

use scramblebot::phone::Phone;
use scramblebot::play::{self, EnterOptions, PlayError, PlayedBoard, Seen, Sight};
use scramblebot::profile::Profile;
use scramblebot::sim::game::{GameConfig, Key, ScreenLock};
use scramblebot::sim::local::Local;
use scramblebot::sim::{Model, SimConfig};
use scramblebot::{Board, Order};
use tokio::sync::watch;

/// The board every phone here shows.
const BOARD: &str = "cape/rwjq/xzvk/oybf";

fn phone(model: Model, game: GameConfig) -> Arc<Local> {
    Local::start(SimConfig {
        model,
        game,
        report: None,
        letters: None,
    })
}

/// Android 4.4 in the lobby; its round starts by itself after `advance_secs`.
fn small_in_lobby(advance_secs: u64, tweak: impl FnOnce(&mut GameConfig)) -> Arc<Local> {
    let mut game = GameConfig {
        board: Some(Board::parse(BOARD).unwrap()),
        lobby: true,
        auto_advance: Some(Duration::from_secs(advance_secs)),
        ..GameConfig::default()
    };
    tweak(&mut game);
    phone(Model::Small, game)
}

/// One round as `play --device NAME [--watch]` plays it: the board seen on the screen, played
/// to the deadline that sight fixes.
async fn play_round(local: &Arc<Local>, watch: bool) -> Result<(Seen, PlayedBoard), PlayError> {
    let phone = Phone::connect_in_process("phone", local.clone()).await?;
    let name = local.device().model().name();
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let profile = Profile::find(name, manifest, None)?;
    let (_stop_tx, stop) = watch::channel(false);
    let sight = play::see(&phone, &profile, watch, stop.clone(), &mut |_| {}).await?;
    let Sight::Sure { seen, .. } = sight else {
        panic!("the board on the screen is not read surely");
    };
    let round = Duration::from_secs_f64(profile.rules().round_secs);
    let opts = EnterOptions {
        route: None,
        deadline: seen.deadline(round).into(),
        finish_word_on_stop: false,
        score_before: None,
        score_at_start: seen.score,
        gap: None,
    };
    let done = play::play_seen(
        &phone,
        &profile,
        &seen,
        Order::Longest,
        opts,
        None,
        stop,
        &mut |_| {},
    )
    .await?;
    Ok((seen, done))
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
    phone(model, game)
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
