//! Tests of the virtual phone's game: the referee's pace and word list, swipes and taps,
//! Freeze, the dialog, the banner, results and the lobby.

use super::*;
use crate::sim::model::Model;

fn game(board: &str) -> Game {
    let config = GameConfig {
        board: Some(Board::parse(board).unwrap()),
        round: Duration::from_secs(60),
        ..GameConfig::default()
    };
    Game::new(config, Layout::of(Model::Nexus7), Trie::enable())
}

/// Swipes through cells, one sample per cell centre, `gap` apart, starting at `t0`.
fn swipe(g: &mut Game, t0: Duration, gap: Duration, cells: &[usize]) -> Duration {
    let mut t = t0;
    for (i, &c) in cells.iter().enumerate() {
        let (x, y) = g.layout().centre(c);
        let action = if i == 0 { Action::Down } else { Action::Move };
        g.touch(t, Route::Raw, action, x, y);
        t += gap;
    }
    let (x, y) = g.layout().centre(*cells.last().unwrap());
    g.touch(t, Route::Raw, Action::Up, x, y);
    t + gap
}

fn last(g: &Game) -> &StrokeRecord {
    g.strokes().last().unwrap()
}

const FRAME: Duration = Duration::from_millis(20);

#[test]
fn a_word_too_soon_after_the_last_taken_is_ignored_and_its_list_is_the_games() {
    // c a t s / x x x x / ...; the game knows "cat", "cats" and "act", not "tac".
    let config = GameConfig {
        board: Some(Board::parse("cats/xxxx/xxxx/xxxx").unwrap()),
        round: Duration::from_secs(60),
        accept_gap: Duration::from_millis(120),
        ..GameConfig::default()
    };
    let words = Trie::from_word_list(b"cat\ncats\nact\n");
    let mut g = Game::new(config, Layout::of(Model::Nexus7), words);
    let ms = Duration::from_millis;
    // (start, cells, taken, reason contains): each swipe lasts 3 frames.
    let cases: &[(Duration, &[usize], bool, &str)] = &[
        (ms(100), &[0, 1, 2], true, ""),
        // Begins 60 ms after "cat" ended at 160 ms: ignored, and not spent.
        (ms(220), &[0, 1, 2, 3], false, "ignored: began 60 ms"),
        (ms(400), &[0, 1, 2, 3], true, ""),
        // Not in the game's list though in ENABLE.
        (ms(700), &[3, 2, 1], false, "not in the dictionary"),
    ];
    for &(t, cells, taken, why) in cases {
        swipe(&mut g, t, FRAME, cells);
        let s = last(&g);
        assert_eq!(s.accepted, taken, "{s:?}");
        assert!(s.reason.as_deref().unwrap_or("").contains(why), "{s:?}");
    }
    // "act" cannot be traced here (c and t are not adjacent).
    assert_eq!(g.report(ms(800)).words_possible, 2, "cat, cats");
}

#[test]
fn swipes_are_judged() {
    // c a t s / x x x x / ...: cells 0 1 2 3 in the first row.
    let mut g = game("cats/xxxx/xxxx/xxxx");
    let t = Duration::from_millis(100);
    // (cells, accepted, reason contains, word)
    let cases: &[(&[usize], bool, &str, &str)] = &[
        (&[0, 1, 2], true, "", "cat"),
        (&[0, 1, 2], false, "already found", "cat"),
        (&[0, 1, 2, 3], true, "", "cats"),
        (&[2, 1, 0], false, "not in the dictionary", "tac"),
        (&[0, 2], false, "not adjacent", "ct"),
        (&[0, 1, 0], false, "used twice", "cac"),
        (&[1, 2], true, "", "at"),
    ];
    let mut t = t;
    for &(cells, accepted, reason, word) in cases {
        t = swipe(&mut g, t, FRAME, cells);
        let r = last(&g);
        assert_eq!(r.accepted, accepted, "{cells:?}: {r:?}");
        assert_eq!(r.word.as_deref(), Some(word));
        assert!(r.reason.as_deref().unwrap_or("").contains(reason), "{r:?}");
    }
    // cat 4+1+1 = 6, cats 7, at 1 (two letters score 1).
    assert_eq!(g.score(), 6 + 7 + 1);
}

#[test]
fn a_move_inside_one_frame_is_not_seen() {
    let mut g = game("cats/xxxx/xxxx/xxxx");
    // Down on c; a, t, s within one 16 ms frame (1600..1616 ms): the app sees only s.
    let t0 = Duration::from_millis(1600);
    let quick = Duration::from_millis(3);
    swipe(&mut g, t0, quick, &[0, 1, 2, 3]);
    let r = last(&g);
    assert!(!r.accepted);
    assert_eq!(r.tiles, vec![[0, 0], [0, 3]], "{r:?}");
    // The same word paced one sample per frame is seen whole.
    swipe(&mut g, t0 + Duration::from_secs(1), FRAME, &[0, 1, 2, 3]);
    assert!(last(&g).accepted, "{:?}", last(&g));
}

#[test]
fn taps_enter_words_and_freeze_extends_the_clock() {
    let mut g = game("cats/xxxx/xxxx/xxxx");
    let mut t = Duration::from_millis(10);
    for cell in [0, 1, 2, 2] {
        t = swipe(&mut g, t, FRAME, &[cell]);
    }
    assert_eq!(last(&g).word.as_deref(), Some("cat"));
    assert!(last(&g).accepted && last(&g).kind == StrokeKind::Tap);
    assert_eq!(
        g.time_left(Duration::from_secs(10)),
        Duration::from_secs(50)
    );
    let freeze = g.layout().buttons[0];
    g.touch(t, Route::Raw, Action::Down, freeze.x, freeze.y);
    g.touch(t, Route::Raw, Action::Up, freeze.x, freeze.y);
    assert_eq!(last(&g).kind, StrokeKind::Freeze);
    assert_eq!(g.freezes().len(), 1);
    assert_eq!(
        g.time_left(Duration::from_secs(10)),
        Duration::from_secs(65)
    );
    assert!(g.violations().is_empty());
}

#[test]
fn touches_outside_are_violations_and_time_ends_the_round() {
    let mut g = game("cats/xxxx/xxxx/xxxx");
    g.touch(Duration::from_secs(1), Route::Raw, Action::Down, 5.0, 5.0);
    g.touch(Duration::from_secs(1), Route::Raw, Action::Up, 5.0, 5.0);
    assert_eq!(g.violations().len(), 1);
    g.tick(Duration::from_secs(61));
    assert_eq!(g.screen(), Screen::Results);
    swipe(&mut g, Duration::from_secs(62), FRAME, &[0, 1, 2]);
    assert!(!last(&g).accepted);
    // The Play button starts round 2, with bonus tiles.
    let play = g.layout().play;
    let (x, y) = ((play.x0 + play.x1) / 2.0, (play.y0 + play.y1) / 2.0);
    g.touch(Duration::from_secs(63), Route::Raw, Action::Down, x, y);
    g.touch(Duration::from_secs(63), Route::Raw, Action::Up, x, y);
    assert_eq!(g.screen(), Screen::Round);
    assert_eq!(g.bonuses().iter().count(), 3);
}

#[test]
fn the_dialog_covers_its_round_only_and_takes_every_touch() {
    let config = GameConfig {
        round: Duration::from_secs(10),
        auto_advance: Some(Duration::from_secs(3)),
        dialog_round: Some(1),
        ..GameConfig::default()
    };
    let mut g = Game::new(config, Layout::of(Model::Nexus7), Trie::enable());
    assert!(g.view(Duration::from_secs(1), false).dialog);
    swipe(&mut g, Duration::from_secs(2), FRAME, &[0, 1, 2]);
    assert_eq!(g.violations().len(), 1);
    assert!(last(&g).tiles.is_empty() && !last(&g).accepted);
    // Round 2, at 13 s, is the game's own again.
    assert!(!g.view(Duration::from_secs(14), false).dialog);
    swipe(&mut g, Duration::from_secs(14), FRAME, &[0, 1, 2]);
    assert_eq!(g.violations().len(), 1);
}

#[test]
fn the_banner_covers_each_rounds_start_and_takes_its_touches() {
    let config = GameConfig {
        round: Duration::from_secs(10),
        auto_advance: Some(Duration::from_secs(3)),
        banner: Some(Duration::from_secs(2)),
        ..GameConfig::default()
    };
    let mut g = Game::new(config, Layout::of(Model::Nexus7), Trie::enable());
    let ms = Duration::from_millis;
    // (time, banner shows): round 1 from 0 s, round 2 from 13 s.
    let cases = [
        (ms(0), true),
        (ms(1_999), true),
        (ms(2_000), false),
        (ms(9_000), false),
        (ms(13_500), true),
        (ms(15_100), false),
    ];
    for (t, shows) in cases {
        assert_eq!(g.view(t, false).banner, shows, "at {t:?}");
    }
    let mut g = Game::new(g.config.clone(), Layout::of(Model::Nexus7), Trie::enable());
    swipe(&mut g, ms(500), FRAME, &[0, 1, 2]);
    assert_eq!(g.violations().len(), 1);
    assert!(last(&g).tiles.is_empty() && !last(&g).accepted);
    swipe(&mut g, ms(2_500), FRAME, &[0, 1, 2]);
    assert_eq!(g.violations().len(), 1);
}

#[test]
fn results_advance_by_themselves_when_asked() {
    let config = GameConfig {
        round: Duration::from_secs(10),
        auto_advance: Some(Duration::from_secs(3)),
        ..GameConfig::default()
    };
    let mut g = Game::new(config, Layout::of(Model::Nexus7), Trie::enable());
    let s = Duration::from_secs;
    // (time, screen, round)
    let cases = [
        (s(9), Screen::Round, 1),
        (s(10), Screen::Results, 1),
        (s(12), Screen::Results, 1),
        (s(13), Screen::Round, 2),
        (s(22), Screen::Round, 2),
        (s(23), Screen::Results, 2),
        // Not looked at for a while: round 3 came and went, round 4 is on.
        (s(40), Screen::Round, 4),
    ];
    for (t, screen, round) in cases {
        g.tick(t);
        assert_eq!((g.screen(), g.round()), (screen, round), "at {t:?}");
    }
    assert_eq!(g.report(s(40)).rounds.len(), 3);
    // Round 2 has bonus tiles, as a match's second round does.
    assert_eq!(g.report(s(40)).rounds[1].bonuses.matches('@').count(), 3);
}

#[test]
fn the_lobby_advances_by_itself_too() {
    let config = GameConfig {
        lobby: true,
        round: Duration::from_secs(10),
        auto_advance: Some(Duration::from_secs(3)),
        ..GameConfig::default()
    };
    let mut g = Game::new(config, Layout::of(Model::Nexus7), Trie::enable());
    g.tick(Duration::from_secs(2));
    assert_eq!(g.screen(), Screen::Lobby);
    g.tick(Duration::from_secs(3));
    assert_eq!((g.screen(), g.round()), (Screen::Round, 1));
    g.tick(Duration::from_secs(13));
    assert_eq!(g.screen(), Screen::Results);
}
