//! scramblebot: a bot for Boggle-style phone word games (Scramble With Friends first).
//!
//! The pure core takes values in memory and does no I/O: `board` (typed boards, positions),
//! `dict` (the word list as a trie), `solve` (every word and its best path), `score` (rules),
//! `sample` (seeded board sets), `structures` (the trie's classic alternatives). The I/O edge
//! comes after it: `bench` (clocks). Dependencies point inward: the core never imports the edge.

#![forbid(unsafe_code)]

pub mod bench;
pub mod board;
pub mod dict;
pub mod sample;
pub mod score;
pub mod solve;
pub mod structures;

pub use board::{Board, BoardError, Pos};
pub use dict::{DictError, Trie};
pub use score::{Bonus, Bonuses, Rules, RulesKind};
pub use solve::{FoundWord, Order, Solution, Solver, Tally};
