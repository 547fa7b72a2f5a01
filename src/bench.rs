//! Whole-program throughput figures for `scramblebot bench`: solves a seeded board set with one
//! structure in one mode on one thread and reports boards per second. It owns the clock; the
//! criterion benches in benches/ measure the same searches with statistics.

use std::time::{Duration, Instant};

use crate::dict::Trie;
use crate::sample::BoardSet;
use crate::score::{Bonuses, Rules};
use crate::solve::{Lexicon, Solution, Solver, Tally};
use crate::structures::{PrefixSet, SortedWords, Structure};

/// What a solve produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Words and points only.
    Score,
    /// Every word with its path (what the bot uses).
    Full,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Score => "score-only",
            Mode::Full => "full",
        }
    }
}

/// One measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Figure {
    pub set: &'static str,
    pub structure: &'static str,
    pub mode: &'static str,
    pub boards: usize,
    pub seconds: f64,
    pub boards_per_sec: f64,
    /// Words and points summed over the set: equal across structures when answers are.
    pub words: u64,
    pub points: u64,
}

/// Builds the searchable form of `structure` once, so its build time is not measured.
pub enum Built<'t> {
    Trie(&'t Trie),
    Sorted(SortedWords),
    Prefixes(PrefixSet),
}

impl<'t> Built<'t> {
    pub fn new(trie: &'t Trie, structure: Structure) -> Built<'t> {
        match structure {
            Structure::Trie => Built::Trie(trie),
            Structure::Sorted => Built::Sorted(SortedWords::new(trie)),
            Structure::Prefixes => Built::Prefixes(PrefixSet::new(trie)),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Built::Trie(_) => "trie",
            Built::Sorted(_) => "sorted",
            Built::Prefixes(_) => "prefixes",
        }
    }

    /// Solves every board of a seeded set once untimed, then `PASSES` times timed, and keeps
    /// the fastest pass.
    pub fn measure(
        &self,
        set: BoardSet,
        boards: usize,
        seed: u64,
        mode: Mode,
        rules: &Rules,
    ) -> Result<Figure, BenchError> {
        self.measure_list(set.name(), &set.boards(boards, seed), mode, rules, &|_| {})
    }

    /// `measure` on the boards of `list`, reported as the set `name`; `progress` is told of
    /// boards solved as the passes go (every [`PROGRESS_EVERY`] boards, `list.len() * (1 +
    /// PASSES)` in all), so that a long file shows it is moving.
    pub fn measure_list(
        &self,
        name: &'static str,
        list: &[crate::Board],
        mode: Mode,
        rules: &Rules,
        progress: &dyn Fn(usize),
    ) -> Result<Figure, BenchError> {
        let (tally, elapsed) = self.run(list, mode, rules, PASSES, progress)?;
        let seconds = elapsed.as_secs_f64();
        Ok(Figure {
            set: name,
            structure: self.name(),
            mode: mode.name(),
            boards: list.len(),
            seconds,
            boards_per_sec: list.len() as f64 / seconds.max(1e-9),
            words: tally.0,
            points: tally.1,
        })
    }

    /// Words and points summed over the set, solved once and untimed: what another
    /// structure's answers are checked against.
    pub fn answers(
        &self,
        set: BoardSet,
        boards: usize,
        seed: u64,
        mode: Mode,
        rules: &Rules,
    ) -> (u64, u64) {
        self.answers_list(&set.boards(boards, seed), mode, rules, &|_| {})
    }

    /// `answers` on the boards of `list`, telling `progress` as `measure_list` does (one
    /// pass: `list.len()` boards in all).
    pub fn answers_list(
        &self,
        list: &[crate::Board],
        mode: Mode,
        rules: &Rules,
        progress: &dyn Fn(usize),
    ) -> (u64, u64) {
        match self.run(list, mode, rules, 0, progress) {
            Ok((sum, _)) => sum,
            // Without timed passes there is nothing to disagree with the first.
            Err(BenchError::Inconsistent { first, .. }) => first,
        }
    }

    fn run(
        &self,
        list: &[crate::Board],
        mode: Mode,
        rules: &Rules,
        passes: usize,
        progress: &dyn Fn(usize),
    ) -> Result<((u64, u64), Duration), BenchError> {
        match self {
            Built::Trie(t) => time(*t, list, mode, rules, passes, progress),
            Built::Sorted(s) => time(s, list, mode, rules, passes, progress),
            Built::Prefixes(p) => time(p, list, mode, rules, passes, progress),
        }
    }
}

fn time<L: Lexicon>(
    lexicon: &L,
    boards: &[crate::Board],
    mode: Mode,
    rules: &Rules,
    passes: usize,
    progress: &dyn Fn(usize),
) -> Result<((u64, u64), Duration), BenchError> {
    let mut solver = Solver::new(lexicon);
    let bonuses = Bonuses::none();
    let mut out = Solution::new(crate::Board::from_tiles(&[0; 16]).expect("16 tiles"));
    let mut pass = || {
        let mut sum = (0u64, 0u64);
        for (i, b) in boards.iter().enumerate() {
            // Once in a while, not per board: the pass is what is timed.
            if i % PROGRESS_EVERY == 0 && i > 0 {
                progress(PROGRESS_EVERY);
            }
            let t = match mode {
                Mode::Score => solver.tally(b, rules, &bonuses),
                Mode::Full => {
                    solver.solve_into(b, rules, &bonuses, &mut out);
                    Tally {
                        words: out.len(),
                        points: out.total_points(),
                    }
                }
            };
            sum.0 += t.words as u64;
            sum.1 += t.points as u64;
        }
        let told = boards.len().saturating_sub(1) / PROGRESS_EVERY * PROGRESS_EVERY;
        progress(boards.len() - told);
        sum
    };
    let first = pass();
    let mut best = None::<Duration>;
    for n in 1..=passes {
        let start = Instant::now();
        let sum = pass();
        let took = start.elapsed();
        // A fast pass that found other words is not a measurement of this solver.
        if sum != first {
            return Err(BenchError::Inconsistent {
                pass: n,
                got: sum,
                first,
            });
        }
        best = Some(best.map_or(took, |b| b.min(took)));
    }
    Ok((first, best.unwrap_or_default()))
}

/// Why a measurement is void.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error(
        "timed pass {pass} found {} words / {} points, the first pass {} / {}",
        got.0, got.1, first.0, first.1
    )]
    Inconsistent {
        pass: usize,
        got: (u64, u64),
        first: (u64, u64),
    },
}

/// How many boards a pass solves between two reports of its progress.
pub const PROGRESS_EVERY: usize = 1024;

/// Timed passes over a set; the fastest is reported, the pass least disturbed by whatever
/// else the machine was doing (the first, untimed pass warms the caches).
pub const PASSES: usize = 5;
