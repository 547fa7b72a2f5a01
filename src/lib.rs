//! scramblebot: a bot for Boggle-style phone word games (Scramble With Friends first).
//!
//! The pure core takes values in memory and does no I/O: `board` (typed boards, positions),
//! `dict` (the word list as a trie), `solve` (every word and its best path), `score` (rules),
//! `sample` (seeded board sets), `structures` (the trie's classic alternatives). It is the
//! crate `scramblebot-core` (crates/core), and the board reader `vision` is
//! `scramblebot-vision` (crates/vision), which depends on the core alone: the compiler holds
//! both to it. They are re-exported here under their old names. The rest is this crate: the
//! I/O edge (`phone`, `play`, `daemon`, `calibrate`, `sim`, the virtual phone: sockets,
//! threads) and what the commands share. Dependencies point inward: the core never imports
//! the edge.
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

// The pure core and the board reader are crates of their own (crates/core, crates/vision);
// they keep their places here, so `crate::board` and `scramblebot::vision` mean what they
// always did.
pub use scramblebot_core::{board, dict, files, sample, score, solve, structures};
pub use scramblebot_vision as vision;

pub mod bench;
pub mod calibrate;
pub mod daemon;
#[doc(hidden)]
pub mod fuzz;
pub mod gesture;
pub mod phone;
pub mod play;
pub mod plot;
pub mod practice;
pub mod profile;
pub mod sim;
pub mod state;
#[doc(hidden)]
pub mod testing;
pub mod wire;

pub use board::{Board, BoardError, Pos};
pub use dict::{DictError, Trie};
pub use score::{Bonus, Bonuses, Rules, RulesKind};
pub use solve::{FoundWord, Order, Solution, Solver, Tally};
