//! The watcher's rules, each as a script of looks (when each began, what it saw, what the
//! watcher answered), run on tokio's paused clock: the same answers every run, in no time.

use super::*;

fn board(text: &str) -> Board {
    Board::parse(text).expect("a board")
}

const A: &str = "lqreslusaticnren";
const B: &str = "abcdefghijklmnop";

fn sure(text: &str) -> Saw {
    Saw::Sure(board(text), Bonuses::none())
}

/// A board read with only its first `n` tiles sure (those of `text`).
fn partly(text: &str, n: usize) -> SureTiles {
    let b = board(text);
    SureTiles(
        b.tiles()
            .iter()
            .enumerate()
            .map(|(i, &t)| (i < n).then_some(t))
            .collect(),
    )
}

/// One look of a script: milliseconds after the script's start, what it saw, and the
/// answer expected, with `Play`'s start given in milliseconds too.
struct Step {
    at: u64,
    saw: Saw,
    want: Vec<Want>,
}

#[derive(Debug)]
enum Want {
    Do(Do),
    Play {
        board: &'static str,
        after: Option<u64>,
        behind: bool,
    },
}

fn step(at: u64, saw: Saw, want: Vec<Want>) -> Step {
    Step { at, saw, want }
}

fn play(board: &'static str, after: Option<u64>, behind: bool) -> Want {
    Want::Play {
        board,
        after,
        behind,
    }
}

fn d(x: Do) -> Want {
    Want::Do(x)
}

/// Runs `steps` through a watcher with `patience`, advancing the paused clock to each look.
async fn run(patience: Patience, steps: Vec<Step>) -> Watcher {
    let t0 = Instant::now();
    let mut w = Watcher::new(patience);
    for (i, s) in steps.into_iter().enumerate() {
        let at = t0 + Duration::from_millis(s.at);
        tokio::time::advance(at.saturating_duration_since(Instant::now())).await;
        let got = w.saw(Instant::now(), &s.saw);
        let want: Vec<Do> = s
            .want
            .into_iter()
            .map(|w| match w {
                Want::Do(x) => x,
                Want::Play {
                    board: text,
                    after,
                    behind,
                } => Do::Play {
                    board: board(text),
                    bonuses: Bonuses::none(),
                    after: after.map(|ms| t0 + Duration::from_millis(ms)),
                    behind,
                },
            })
            .collect();
        assert_eq!(got, want, "look {} at {} ms: {:?}", i + 1, s.at, s.saw);
    }
    w
}

#[tokio::test(start_paused = true)]
async fn a_board_after_the_lobby_is_played_from_the_last_look_without_it() {
    run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, Saw::NoBoard, vec![]),
            // Play/Next tapped again once it brought no board for 3 s.
            step(3000, Saw::NoBoard, vec![d(Do::Advance)]),
            step(3250, sure(A), vec![play(A, Some(3000), false)]),
            // The board stays while its round is played: nothing to do.
            step(90_000, sure(A), vec![]),
            // The results; a tap; the next round's board.
            step(91_000, Saw::NoBoard, vec![d(Do::Advance)]),
            step(91_250, sure(B), vec![play(B, Some(91_000), false)]),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_board_at_the_first_look_has_no_known_start() {
    run(
        Patience::default(),
        vec![step(0, sure(A), vec![play(A, None, false)])],
    )
    .await;
    // Nor one at the first look that shows the game, after a dark screen.
    run(
        Patience::default(),
        vec![
            step(0, Saw::Hidden { roused: true }, vec![d(Do::LookNow)]),
            step(10, sure(A), vec![play(A, None, true)]),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_board_that_came_up_behind_a_dark_screen_counts_from_the_last_look_at_the_game() {
    run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, Saw::Hidden { roused: false }, vec![]),
            step(1250, Saw::Hidden { roused: true }, vec![d(Do::LookNow)]),
            step(1260, sure(A), vec![play(A, Some(0), true)]),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn the_board_played_back_after_a_dark_screen_is_the_same_round() {
    run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, sure(A), vec![play(A, Some(0), false)]),
            step(60_000, Saw::Hidden { roused: true }, vec![d(Do::LookNow)]),
            step(60_010, sure(A), vec![d(Do::SameRound)]),
            // Gone dark again, and back on the results: a new round may have the same letters.
            step(61_000, Saw::Hidden { roused: false }, vec![]),
            step(62_000, Saw::NoBoard, vec![d(Do::Advance)]),
            step(62_250, sure(A), vec![play(A, Some(62_000), false)]),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn an_unsure_board_is_given_up_on_and_its_round_skipped_when_the_screen_moves_on() {
    let w = run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, Saw::Unsure(partly(A, 10)), vec![]),
            step(2000, Saw::Unsure(partly(A, 10)), vec![]),
            step(2250, Saw::Unsure(partly(A, 10)), vec![d(Do::GiveUp)]),
            step(2500, Saw::Unsure(partly(A, 10)), vec![]),
        ],
    )
    .await;
    assert!(w.given_up(), "a driver stopping now counts the round");
    run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, Saw::Unsure(partly(A, 10)), vec![]),
            step(2250, Saw::Unsure(partly(A, 10)), vec![d(Do::GiveUp)]),
            step(2500, Saw::NoBoard, vec![d(Do::Skipped)]),
            step(3000, Saw::NoBoard, vec![d(Do::Advance)]),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn an_unsure_board_read_surely_later_is_played_from_before_its_spell() {
    run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, Saw::Unsure(partly(A, 10)), vec![]),
            step(2250, Saw::Unsure(partly(A, 12)), vec![d(Do::GiveUp)]),
            // The banner over it left.
            step(2500, sure(A), vec![d(Do::ReadNow), play(A, Some(0), false)]),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_board_unlike_the_unsure_one_is_a_new_round_after_the_spell() {
    run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, Saw::Unsure(partly(A, 10)), vec![]),
            step(2250, Saw::Unsure(partly(A, 10)), vec![d(Do::GiveUp)]),
            step(
                2500,
                sure(B),
                vec![d(Do::Skipped), play(B, Some(2250), false)],
            ),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_dimmed_board_is_waited_out_and_said_once_when_it_stays() {
    let dimmed = || Saw::Dimmed(partly(A, 16));
    run(
        Patience::default(),
        vec![
            step(0, dimmed(), vec![]),
            step(9_750, dimmed(), vec![]),
            step(
                10_000,
                dimmed(),
                vec![d(Do::SayDimmed(Duration::from_secs(10)))],
            ),
            step(10_250, dimmed(), vec![]),
            // Never tapped: the overlay is the game's to lift.
            step(20_000, dimmed(), vec![]),
            step(20_250, sure(A), vec![play(A, Some(20_000), false)]),
        ],
    )
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_board_played_is_waited_out_until_another_shows() {
    let w = run(
        Patience::default(),
        vec![
            step(0, Saw::NoBoard, vec![d(Do::Advance)]),
            step(250, sure(A), vec![play(A, Some(0), false)]),
            // A pause menu over it, and a banner that hides some tiles: the same board.
            step(5_000, Saw::Dimmed(partly(A, 16)), vec![]),
            step(5_250, Saw::Unsure(partly(A, 8)), vec![]),
            step(5_500, Saw::Unsure(SureTiles(vec![None; 16])), vec![]),
            step(6_000, Saw::Hidden { roused: true }, vec![d(Do::LookNow)]),
            step(6_010, sure(A), vec![d(Do::SameRound)]),
        ],
    )
    .await;
    // The next board under a banner: it came up after the last look that showed this one.
    let mut w = w;
    tokio::time::advance(Duration::from_millis(250)).await;
    let t = Instant::now();
    assert_eq!(w.saw(t, &Saw::Unsure(partly(B, 6))), vec![]);
    let got = w.saw(t + Duration::from_millis(250), &sure(B));
    let Some(Do::Play { after, .. }) = got.first() else {
        panic!("{got:?}");
    };
    assert_eq!(
        *after,
        Some(t - Duration::from_millis(250)),
        "the look at 6010 ms"
    );
}

#[tokio::test(start_paused = true)]
async fn a_round_played_is_waited_out_from_its_end() {
    let mut w = run(
        Patience::default(),
        vec![step(0, sure(A), vec![play(A, None, false)])],
    )
    .await;
    // The round took 90 s, with no look meanwhile; the next look shows the next board.
    tokio::time::advance(Duration::from_secs(90)).await;
    let end = Instant::now();
    w.round_over(end);
    let got = w.saw(end + Duration::from_millis(250), &sure(B));
    assert_eq!(
        got,
        vec![Do::Play {
            board: board(B),
            bonuses: Bonuses::none(),
            after: Some(end),
            behind: false
        }]
    );
}

#[tokio::test(start_paused = true)]
async fn a_watcher_that_must_not_touch_never_taps() {
    run(
        Patience {
            advance: None,
            ..Patience::default()
        },
        vec![
            step(0, Saw::NoBoard, vec![]),
            step(5_000, Saw::NoBoard, vec![]),
            step(5_250, sure(A), vec![play(A, Some(5_000), false)]),
        ],
    )
    .await;
}

#[test]
fn sure_tiles_judge_a_board_only_where_they_are_sure() {
    assert_eq!(partly(A, 5).agree_with(&board(A)), Some(true));
    assert_eq!(partly(A, 5).agree_with(&board(B)), Some(false));
    assert_eq!(SureTiles(vec![None; 16]).agree_with(&board(B)), None);
}
