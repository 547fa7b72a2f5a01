//! scramblebot's pure core: values in memory, no I/O beyond reading a file whole and
//! bounded (`files`). `board` (typed boards, positions), `dict` (the word list as a trie,
//! ENABLE built in), `solve` (every word and its best path), `score` (the games' rules),
//! `sample` (seeded board sets), `structures` (the trie's classic alternatives, for the
//! benchmarks). Everything else in the project depends on it; it depends on nothing of it.

#![forbid(unsafe_code)]

pub mod board;
pub mod dict;
pub mod files;
pub mod sample;
pub mod score;
pub mod solve;
pub mod structures;

pub use board::{Board, BoardError, Pos};
pub use dict::{DictError, Trie};
pub use score::{Bonus, Bonuses, Rules, RulesKind};
pub use solve::{FoundWord, Order, Solution, Solver, Tally};
