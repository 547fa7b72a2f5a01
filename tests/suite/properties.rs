//! Invariants of every solution, on boards proptest makes up: every path is 8-adjacent, never
//! reuses a tile and spells its word; every word is in the dictionary and long enough; points
//! are what the rules say for that path; the order is the one asked for. Plus: the sorted-list
//! and prefix-set searches give exactly the trie's answers.

use std::collections::HashSet;
use std::sync::OnceLock;

use proptest::prelude::*;
use scramblebot::sample::BoardSet;
use scramblebot::score::Bonus;
use scramblebot::structures::{PrefixSet, SortedWords};
use scramblebot::{Board, Bonuses, Order, Rules, Solver, Trie};

fn trie() -> &'static Trie {
    static TRIE: OnceLock<Trie> = OnceLock::new();
    TRIE.get_or_init(Trie::enable)
}

fn word_list() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| include_str!("../../dict/enable1.txt").lines().collect())
}

/// A board of side 3 to 6, letters weighted like English (so boards have words), with Qu.
fn board() -> impl Strategy<Value = Board> {
    const COMMON: &[u8] = b"eeeeeaaaiiioootttnnssrrllddcuumhgpbyfkwvqxjz";
    (3usize..=6).prop_flat_map(|side| {
        proptest::collection::vec(proptest::sample::select(COMMON), side * side).prop_map(
            |letters| {
                Board::from_tiles(&letters.iter().map(|c| c - b'a').collect::<Vec<_>>()).unwrap()
            },
        )
    })
}

fn bonuses_for(board: &Board, picks: &[(usize, u8)]) -> Bonuses {
    let mut b = Bonuses::none();
    for &(cell, kind) in picks {
        let kind = [Bonus::DL, Bonus::TL, Bonus::DW, Bonus::TW][kind as usize % 4];
        let _ = b.set(board, board.pos_of(cell % board.cells()), kind);
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_word_is_real_and_every_path_is_legal(
        board in board(),
        picks in proptest::collection::vec((0usize..36, 0u8..4), 0..4),
        min_len in 2usize..5,
        by_score in any::<bool>(),
    ) {
        let bonuses = bonuses_for(&board, &picks);
        let rules = Rules::scramble().with_min_len(min_len).unwrap();
        let mut solution = Solver::new(trie()).solve(&board, &rules, &bonuses);
        let order = if by_score { Order::Score } else { Order::Longest };
        solution.sort(order);
        let mut seen = HashSet::new();
        let mut previous: Option<(usize, u32, String)> = None;
        for w in solution.words() {
            let text = w.text();
            let path = w.path();
            prop_assert!(seen.insert(text.clone()), "{} reported twice", text);
            prop_assert!(word_list().contains(text.as_str()), "{} is not in ENABLE", text);
            prop_assert!(trie().contains(&text));
            prop_assert_eq!(board.spell(&path), text.clone());
            prop_assert!(text.len() >= min_len);
            prop_assert_eq!(w.letters(), text.len());
            for step in path.windows(2) {
                let (a, b) = (step[0], step[1]);
                prop_assert!(a.row().abs_diff(b.row()) <= 1 && a.col().abs_diff(b.col()) <= 1 && a != b,
                    "{}: {} to {} is not a step", text, a, b);
            }
            let distinct: HashSet<_> = path.iter().collect();
            prop_assert_eq!(distinct.len(), path.len(), "{} reuses a tile", text);
            prop_assert_eq!(w.points(), rules.score_path(&board, &bonuses, &path));
            let key = (w.letters(), w.points(), text.clone());
            if let Some(prev) = previous.replace(key.clone()) {
                let ok = match order {
                    Order::Longest => (prev.0, prev.1) > (key.0, key.1) || ((prev.0, prev.1) == (key.0, key.1) && prev.2 < key.2),
                    Order::Score => (prev.1, prev.0) > (key.1, key.0) || ((prev.1, prev.0) == (key.1, key.0) && prev.2 < key.2),
                };
                prop_assert!(ok, "{:?} before {:?} in {:?} order", prev, key, order);
            }
        }
        prop_assert_eq!(solution.total_points(), solution.words().map(|w| w.points()).sum::<u32>());
    }

    #[test]
    fn typed_boards_never_panic(text in "\\PC{0,60}") {
        let _ = Board::parse(&text);
        let b = Board::parse("abcdefghijklmnop").unwrap();
        let _ = Bonuses::parse(&text, &b);
    }

    #[test]
    fn a_board_reads_back_from_its_display(board in board()) {
        prop_assert_eq!(Board::parse(&board.to_string()), Ok(board));
    }

    /// Every word the solver finds on a 4x4 board becomes a swipe on every shipped profile,
    /// and every point of it lies inside that profile's fence, with samples between centres
    /// too.
    #[test]
    fn every_gesture_point_lies_inside_the_fence(
        letters in proptest::collection::vec(0u8..26, 16),
        between in 0u32..3,
    ) {
        use scramblebot::gesture::swipe;
        use scramblebot::profile::{BUILT_IN, Input, Profile};
        let board = Board::from_tiles(&letters).unwrap();
        let solution = Solver::new(trie()).solve(&board, &Rules::scramble(), &Bonuses::none());
        for (name, _) in BUILT_IN {
            let shipped = Profile::built_in(name).unwrap();
            let input = Input { between, ..shipped.input().clone() };
            let profile = shipped.to_builder().input(input).build().unwrap();
            for w in solution.words() {
                let cells: Vec<usize> = w.path().iter().map(|p| p.row() * 4 + p.col()).collect();
                let g = swipe(&profile, &cells).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(g.touches.len(), cells.len() + 1 + (cells.len() - 1) * between as usize);
                for t in &g.touches {
                    prop_assert!(profile.in_fence((t.x as f32, t.y as f32)), "{:?} on {}", t, name);
                }
            }
        }
    }
}

#[test]
fn the_classic_alternatives_give_the_tries_answers() {
    let trie = trie();
    let sorted = SortedWords::new(trie);
    let prefixes = PrefixSet::new(trie);
    let (mut a, mut b, mut c) = (
        Solver::new(trie),
        Solver::new(&sorted),
        Solver::new(&prefixes),
    );
    let rules = Rules::scramble();
    for set in BoardSet::ALL {
        for board in set.boards(40, 5) {
            let bonuses = Bonuses::parse("TL@0,0,DW@2,1", &board).unwrap();
            let want = a.solve(&board, &rules, &bonuses);
            assert!(
                want == b.solve(&board, &rules, &bonuses),
                "sorted differs on {board}"
            );
            assert!(
                want == c.solve(&board, &rules, &bonuses),
                "prefixes differ on {board}"
            );
            assert_eq!(
                b.tally(&board, &rules, &bonuses),
                a.tally(&board, &rules, &bonuses)
            );
        }
    }
}

#[test]
fn a_solver_reused_across_boards_answers_as_a_fresh_one() {
    let trie = trie();
    let mut reused = Solver::new(trie);
    let rules = Rules::boggle();
    for board in BoardSet::Near
        .boards(20, 3)
        .iter()
        .chain(&BoardSet::Uniform.boards(20, 4))
    {
        let fresh = Solver::new(trie).solve(board, &rules, &Bonuses::none());
        assert!(
            reused.solve(board, &rules, &Bonuses::none()) == fresh,
            "{board}"
        );
        assert_eq!(
            reused.tally(board, &rules, &Bonuses::none()).words,
            fresh.len()
        );
    }
}

#[test]
fn known_boards() {
    // (board, rules, words, points): figures checked by hand for the small ones; the
    // near-optimal board's are the oracle's.
    let trie = trie();
    let mut solver = Solver::new(trie);
    let cases: &[(&str, Rules, usize, u32)] = &[
        ("cat/zzz/zzz", Rules::scramble(), 3, 8), // cat 6, at 1, ta 1
        ("cat/zzz/zzz", Rules::boggle(), 1, 1),   // cat
        ("qiz/zzz/zzz", Rules::scramble(), 1, 21), // quiz: qu10 i1 z10
        ("zzz/zzz/zzz", Rules::scramble(), 0, 0),
    ];
    for (typed, rules, words, points) in cases {
        let board = Board::parse(typed).unwrap();
        let s = solver.solve(&board, rules, &Bonuses::none());
        let list: Vec<String> = s.words().map(|w| w.text()).collect();
        assert_eq!(
            (s.len(), s.total_points()),
            (*words, *points),
            "{typed}: {list:?}"
        );
    }
    let quit = Board::parse("qit/xxx/xxx").unwrap();
    let s = solver.solve(&quit, &Rules::scramble(), &Bonuses::none());
    let quit_word = s
        .words()
        .find(|w| w.text() == "quit")
        .expect("quit on Qu-I-T");
    assert_eq!((quit_word.letters(), quit_word.path().len()), (4, 3));
    assert_eq!(quit_word.points(), 12); // qu10 i1 t1, 4 letters: no length bonus
}

#[test]
fn every_word_id_is_its_rank_in_sorted_order() {
    use scramblebot::solve::Lexicon;
    let small =
        Trie::from_word_list(b"sing\nsings\nring\nrings\nringing\nsinging\nthing\nthings\nking\n");
    for trie in [trie(), &small] {
        let words = trie.words_as_tiles();
        assert_eq!(words.len(), trie.counts().words as usize);
        for (rank, word) in words.iter().enumerate() {
            let mut at = trie.root();
            for &t in word {
                at = trie.step(&at, t).expect("a word's prefixes continue");
            }
            assert_eq!(trie.word(&at), Some(rank as u32), "{word:?}");
        }
    }
    // Shared endings are stored once: far fewer records than the trie's 387,568 nodes.
    assert!(trie().record_count() < 130_000, "{}", trie().record_count());
}
