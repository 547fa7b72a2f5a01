//! scramblebot: a bot for Boggle-style phone word games (Scramble With Friends first).
//!
//! The pure core takes values in memory and does no I/O: `board` (typed boards, positions),
//! `dict` (the word list as a trie), `solve` (every word and its best path), `score` (rules),
//! `sample` (seeded board sets), `structures` (the trie's classic alternatives). The I/O edge
//! comes after it: `bench` (clocks), `sim` (the virtual phone: sockets, threads). Dependencies point inward: the core never imports the edge.
//!
//! ```
//! use scramblebot::{Board, Bonuses, Order, Rules, Solver, Trie};
//!
//! let trie = Trie::enable();
//! let board = Board::parse("LQuRE/SLUS/ATIC/NREN")?;
//! let mut solution = Solver::new(&trie).solve(&board, &Rules::scramble(), &Bonuses::none());
//! solution.sort(Order::Longest);
//! let first = solution.words().next().expect("a rich board");
//! assert_eq!((first.text().as_str(), first.points()), ("linecuts", 29));
//! assert_eq!(first.path().len(), 8);
//! # Ok::<(), scramblebot::BoardError>(())
//! ```

#![forbid(unsafe_code)]

pub mod bench;
pub mod board;
pub mod calibrate;
pub mod daemon;
pub mod dict;
pub mod files;
#[doc(hidden)]
pub mod fuzz;
pub mod gesture;
pub mod phone;
pub mod play;
pub mod plot;
pub mod practice;
pub mod profile;
pub mod sample;
pub mod score;
pub mod sim;
pub mod solve;
pub mod state;
pub mod structures;
#[doc(hidden)]
pub mod testing;
pub mod vision;
pub mod wire;

pub use board::{Board, BoardError, Pos};
pub use dict::{DictError, Trie};
pub use score::{Bonus, Bonuses, Rules, RulesKind};
pub use solve::{FoundWord, Order, Solution, Solver, Tally};
