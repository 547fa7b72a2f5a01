//! The solver against an independent oracle: for every word of the whole list, a plain
//! path search on the board (no trie, no prefix pruning, its own spelling of "qu"), on
//! hundreds of seeded boards of every kind and size, with and without bonus tiles. Word sets,
//! points and the chosen path (most points, then fewest diagonal steps, then smallest cells)
//! must be identical.

use std::collections::BTreeMap;

use scramblebot::sample::{BoardSet, Rng};
use scramblebot::score::Bonus;
use scramblebot::{Board, Bonuses, Pos, Rules, Solver, Trie};

const ENABLE: &str = include_str!("../../dict/enable1.txt");

/// A word as the oracle spells it: tiles, with "qu" one tile; None if it cannot be played.
fn oracle_spell(word: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut letters = word.bytes();
    while let Some(c) = letters.next() {
        if c == b'q' && letters.next() != Some(b'u') {
            return None;
        }
        out.push(c - b'a');
    }
    Some(out)
}

/// Every path spelling `word` on `board`, by brute force.
fn all_paths(board: &Board, word: &[u8]) -> Vec<Vec<Pos>> {
    fn go(board: &Board, word: &[u8], path: &mut Vec<Pos>, out: &mut Vec<Vec<Pos>>) {
        if path.len() == word.len() {
            out.push(path.clone());
            return;
        }
        for p in board.positions() {
            let ok_step = path.last().is_none_or(|&last| {
                last != p && last.row().abs_diff(p.row()) <= 1 && last.col().abs_diff(p.col()) <= 1
            });
            if ok_step && !path.contains(&p) && board.tile(p) == word[path.len()] {
                path.push(p);
                go(board, word, path, out);
                path.pop();
            }
        }
    }
    let mut out = Vec::new();
    go(board, word, &mut Vec::new(), &mut out);
    out
}

fn diagonal_steps(path: &[Pos]) -> usize {
    path.windows(2)
        .filter(|w| w[0].row() != w[1].row() && w[0].col() != w[1].col())
        .count()
}

/// word -> (points, path) as the rules say the bot should choose it.
fn oracle(
    board: &Board,
    bonuses: &Bonuses,
    rules: &Rules,
    words: &[(String, Vec<u8>)],
) -> BTreeMap<String, (u32, Vec<Pos>)> {
    let on_board: u32 = board.tiles().iter().fold(0, |m, &t| m | 1 << t);
    let mut out = BTreeMap::new();
    for (text, tiles) in words {
        if text.len() < rules.min_len() || tiles.len() > board.cells() {
            continue;
        }
        if tiles.iter().any(|&t| on_board & (1 << t) == 0) {
            continue;
        }
        let best = all_paths(board, tiles).into_iter().min_by(|a, b| {
            let (pa, pb) = (
                rules.score_path(board, bonuses, a),
                rules.score_path(board, bonuses, b),
            );
            pb.cmp(&pa)
                .then(diagonal_steps(a).cmp(&diagonal_steps(b)))
                .then(a.cmp(b))
        });
        if let Some(path) = best {
            out.insert(
                text.clone(),
                (rules.score_path(board, bonuses, &path), path),
            );
        }
    }
    out
}

fn enable_words() -> Vec<(String, Vec<u8>)> {
    ENABLE
        .lines()
        .filter_map(|w| oracle_spell(w).map(|t| (w.to_owned(), t)))
        .collect()
}

fn random_bonuses(board: &Board, rng: &mut Rng) -> Bonuses {
    let mut b = Bonuses::none();
    for _ in 0..rng.below(5) {
        let kind = [Bonus::DL, Bonus::TL, Bonus::DW, Bonus::TW][rng.below(4)];
        let p = board.pos_of(rng.below(board.cells()));
        let _ = b.set(board, p, kind); // a tile that already has one keeps it
    }
    b
}

fn check(
    board: &Board,
    bonuses: &Bonuses,
    rules: &Rules,
    words: &[(String, Vec<u8>)],
    solver: &mut Solver<'_>,
) {
    let want = oracle(board, bonuses, rules, words);
    let solution = solver.solve(board, rules, bonuses);
    let got: BTreeMap<String, (u32, Vec<Pos>)> = solution
        .words()
        .map(|w| (w.text(), (w.points(), w.path())))
        .collect();
    assert_eq!(got.len(), solution.len(), "{board}: a word reported twice");
    if got != want {
        let missing: Vec<_> = want
            .keys()
            .filter(|k| !got.contains_key(*k))
            .take(10)
            .collect();
        let extra: Vec<_> = got
            .keys()
            .filter(|k| !want.contains_key(*k))
            .take(10)
            .collect();
        let differ: Vec<_> = want
            .iter()
            .filter(|(k, v)| got.get(*k).is_some_and(|g| g != *v))
            .take(5)
            .collect();
        panic!(
            "{board} with {bonuses:?}: missing {missing:?}, extra {extra:?}, different {differ:?}"
        );
    }
    assert_eq!(
        solution.total_points(),
        want.values().map(|v| v.0).sum::<u32>()
    );
    let tally = solver.tally(board, rules, bonuses);
    assert_eq!(
        (tally.words, tally.points),
        (solution.len(), solution.total_points()),
        "{board}: score-only mode disagrees"
    );
}

#[test]
fn oracle_spelling_is_its_own() {
    assert_eq!(oracle_spell("quiz"), Some(vec![16, 8, 25]));
    assert_eq!(oracle_spell("equus"), Some(vec![4, 16, 20, 18]));
    assert_eq!(oracle_spell("qat"), None);
}

#[test]
fn solver_matches_the_oracle_on_seeded_4x4_boards() {
    let trie = Trie::enable();
    let words = enable_words();
    let mut solver = Solver::new(&trie);
    let mut rng = Rng::new(2024);
    let mut boards: Vec<Board> = Vec::new();
    boards.extend(BoardSet::Dice.boards(100, 11));
    boards.extend(BoardSet::Uniform.boards(80, 12));
    boards.extend(BoardSet::Near.boards(20, 13));
    // Boards that surely hold the Qu tile, next to u and e so "qu" words appear.
    for _ in 0..30 {
        let mut tiles: Vec<u8> = BoardSet::Dice.one(&mut rng).tiles().to_vec();
        tiles[rng.below(16)] = 16;
        tiles[rng.below(16)] = b'u' - b'a';
        boards.push(Board::from_tiles(&tiles).unwrap());
    }
    assert!(boards.len() >= 200);
    let with_qu = boards.iter().filter(|b| b.tiles().contains(&16)).count();
    assert!(with_qu >= 30, "only {with_qu} boards have Qu");
    for (i, board) in boards.iter().enumerate() {
        check(
            board,
            &Bonuses::none(),
            &Rules::boggle(),
            &words,
            &mut solver,
        );
        // Every board again under Scramble rules (tile values), every other one with bonus
        // tiles, where paths differ (the solver searches each of the three cases its own way).
        let bonuses = if i % 2 == 0 {
            random_bonuses(board, &mut rng)
        } else {
            Bonuses::none()
        };
        check(board, &bonuses, &Rules::scramble(), &words, &mut solver);
    }
}

#[test]
fn solver_matches_the_oracle_on_other_sizes_and_lengths() {
    let trie = Trie::enable();
    let words = enable_words();
    let mut solver = Solver::new(&trie);
    let mut rng = Rng::new(77);
    for side in [3usize, 5, 6, 3, 4, 5, 6] {
        for _ in 0..4 {
            // Dice letters keep big boards word-rich without being slow for the oracle.
            let tiles: Vec<u8> = (0..side * side)
                .map(|_| {
                    let die = scramblebot::sample::NEW_BOGGLE_DICE[rng.below(16)].as_bytes();
                    die[rng.below(6)] - b'a'
                })
                .collect();
            let board = Board::from_tiles(&tiles).unwrap();
            for min_len in [2, 5] {
                let rules = Rules::scramble().with_min_len(min_len).unwrap();
                let bonuses = random_bonuses(&board, &mut rng);
                check(&board, &bonuses, &rules, &words, &mut solver);
            }
        }
    }
}
