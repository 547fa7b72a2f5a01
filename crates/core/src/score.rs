//! Scoring rules as data: Scramble With Friends (letter values, DL/TL/DW/TW bonus tiles, length
//! bonus) and classic Boggle (points by length). This is the only copy of the rules: the
//! solver, the bot and the virtual phone's referee all score through it. No I/O.
//!
//! Length is counted in letters, so the Qu tile counts 2 towards the length bonus and the
//! minimum length ("quit" is 4 letters on 3 tiles), as the word's own spelling does.

use std::fmt;

use crate::board::{Board, MAX_CELLS, Pos};

/// The longest word in letters: every tile of a 6x6 board, each a Qu.
pub const MAX_LETTERS: usize = 2 * MAX_CELLS;

/// A bonus printed on a tile (Scramble With Friends rounds 2 and 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Bonus {
    /// Double letter.
    DL,
    /// Triple letter.
    TL,
    /// Double word.
    DW,
    /// Triple word.
    TW,
}

impl Bonus {
    /// Multiplies the value of its tile's letter.
    pub fn letter_factor(self) -> u32 {
        match self {
            Bonus::DL => 2,
            Bonus::TL => 3,
            _ => 1,
        }
    }
    /// Multiplies the value of every word through its tile.
    pub fn word_factor(self) -> u32 {
        match self {
            Bonus::DW => 2,
            Bonus::TW => 3,
            _ => 1,
        }
    }
    fn parse(name: &str) -> Option<Bonus> {
        match name.to_ascii_uppercase().as_str() {
            "DL" => Some(Bonus::DL),
            "TL" => Some(Bonus::TL),
            "DW" => Some(Bonus::DW),
            "TW" => Some(Bonus::TW),
            _ => None,
        }
    }
}

impl fmt::Display for Bonus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Why a bonus list is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BonusError {
    #[error("bonus {item:?}: expected KIND@ROW,COL with KIND one of DL, TL, DW, TW (e.g. TL@0,0)")]
    Syntax { item: String },
    #[error(
        "bonus {kind}@{row},{col} is off the {side}x{side} board (rows and columns count from 0)"
    )]
    OffBoard {
        kind: Bonus,
        row: usize,
        col: usize,
        side: usize,
    },
    #[error("tile {row},{col} has two bonuses")]
    Twice { row: usize, col: usize },
}

/// The bonus tiles of one board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bonuses {
    cells: [Option<Bonus>; MAX_CELLS],
}

impl Default for Bonuses {
    fn default() -> Bonuses {
        Bonuses {
            cells: [None; MAX_CELLS],
        }
    }
}

impl Bonuses {
    /// No bonus anywhere (round 1, and Boggle).
    pub fn none() -> Bonuses {
        Bonuses::default()
    }

    /// Parses `TL@0,0,TW@2,3` (kinds in any case, rows and columns from 0) for `board`.
    pub fn parse(text: &str, board: &Board) -> Result<Bonuses, BonusError> {
        let mut bonuses = Bonuses::none();
        let items: Vec<&str> = text.split(',').map(str::trim).collect();
        if items.len() == 1 && items[0].is_empty() {
            return Ok(bonuses);
        }
        for pair in items.chunks(2) {
            let item = pair.join(",");
            let syntax = || BonusError::Syntax { item: item.clone() };
            let [head, col] = pair else {
                return Err(syntax());
            };
            let (kind, row) = head.split_once('@').ok_or_else(syntax)?;
            let kind = Bonus::parse(kind.trim()).ok_or_else(syntax)?;
            let row: usize = row.trim().parse().map_err(|_| syntax())?;
            let col: usize = col.parse().map_err(|_| syntax())?;
            let pos = board.pos(row, col).ok_or(BonusError::OffBoard {
                kind,
                row,
                col,
                side: board.side(),
            })?;
            bonuses
                .set(board, pos, kind)
                .map_err(|_| BonusError::Twice { row, col })?;
        }
        Ok(bonuses)
    }

    /// The bonuses as `parse` reads them for `board` (`TL@0,0,TW@2,3`); empty when none.
    pub fn text(&self, board: &Board) -> String {
        let side = board.side();
        self.iter()
            .map(|(i, b)| format!("{b}@{},{}", i / side, i % side))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Puts `bonus` on `pos`; refuses a second bonus on one tile.
    pub fn set(&mut self, board: &Board, pos: Pos, bonus: Bonus) -> Result<(), Bonus> {
        let cell = &mut self.cells[board.index(pos)];
        match *cell {
            Some(existing) => Err(existing),
            None => {
                *cell = Some(bonus);
                Ok(())
            }
        }
    }

    /// The bonus on cell `index` (reading order).
    pub fn at(&self, index: usize) -> Option<Bonus> {
        self.cells.get(index).copied().flatten()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.iter().all(Option::is_none)
    }

    /// Every bonus with its cell index, in reading order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, Bonus)> + '_ {
        self.cells
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.map(|b| (i, b)))
    }
}

/// Which rule set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RulesKind {
    /// Scramble With Friends: letter values, bonus tiles, length bonus; minimum length 2.
    Scramble,
    /// Classic Boggle: points by length (3:1 4:1 5:2 6:3 7:5 8+:11); minimum length 3.
    Boggle,
}

impl RulesKind {
    pub fn name(self) -> &'static str {
        match self {
            RulesKind::Scramble => "scramble",
            RulesKind::Boggle => "boggle",
        }
    }
}

/// Scramble With Friends letter values (Words With Friends'), a..z; the Qu tile is worth 10.
const SCRAMBLE_VALUES: [u32; 26] = [
    1, 4, 4, 2, 1, 4, 3, 3, 1, 10, 5, 2, 4, 2, 1, 4, 10, 1, 1, 1, 2, 5, 4, 8, 3, 10,
];

/// How words score: a rule set, compiled into tables the solver reads in its inner loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    kind: RulesKind,
    min_len: usize,
    /// Value of each tile (0 for Boggle, which counts length only).
    values: [u32; 26],
    /// Points added for a word of each length in letters.
    length_points: [u32; MAX_LETTERS + 1],
    /// Whether bonus tiles count.
    bonuses: bool,
}

/// Why rules cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("minimum word length {0} is out of range: it must be 1 to {MAX_LETTERS}")]
    MinLen(usize),
    #[error("{0} rules have no bonus tiles")]
    NoBonuses(&'static str),
}

impl Rules {
    /// The rule set `kind` with its own minimum length.
    pub fn new(kind: RulesKind) -> Rules {
        let mut length_points = [0; MAX_LETTERS + 1];
        for (len, p) in length_points.iter_mut().enumerate() {
            *p = match kind {
                RulesKind::Scramble => match len {
                    0..=4 => 0,
                    5 => 3,
                    6 => 6,
                    7 => 10,
                    _ => 15 + 5 * (len as u32 - 8),
                },
                RulesKind::Boggle => match len {
                    0..=2 => 0,
                    3 | 4 => 1,
                    5 => 2,
                    6 => 3,
                    7 => 5,
                    _ => 11,
                },
            };
        }
        Rules {
            kind,
            min_len: match kind {
                RulesKind::Scramble => 2,
                RulesKind::Boggle => 3,
            },
            values: match kind {
                RulesKind::Scramble => SCRAMBLE_VALUES,
                RulesKind::Boggle => [0; 26],
            },
            length_points,
            bonuses: kind == RulesKind::Scramble,
        }
    }

    pub fn scramble() -> Rules {
        Rules::new(RulesKind::Scramble)
    }

    pub fn boggle() -> Rules {
        Rules::new(RulesKind::Boggle)
    }

    /// The same rules with another minimum word length (in letters).
    pub fn with_min_len(mut self, min_len: usize) -> Result<Rules, RulesError> {
        if !(1..=MAX_LETTERS).contains(&min_len) {
            return Err(RulesError::MinLen(min_len));
        }
        self.min_len = min_len;
        Ok(self)
    }

    /// Checks that `bonuses` mean something under these rules.
    pub fn check_bonuses(&self, bonuses: &Bonuses) -> Result<(), RulesError> {
        if !self.bonuses && !bonuses.is_empty() {
            return Err(RulesError::NoBonuses(self.kind.name()));
        }
        Ok(())
    }

    pub fn kind(&self) -> RulesKind {
        self.kind
    }

    /// The shortest word that counts, in letters.
    pub fn min_len(&self) -> usize {
        self.min_len
    }

    /// A tile's value with its letter bonus, and its word factor: the two numbers a search
    /// carries along a path.
    #[inline(always)]
    pub fn tile_terms(&self, tile: u8, bonus: Option<Bonus>) -> (u32, u32) {
        let base = self.values[tile as usize];
        match bonus.filter(|_| self.bonuses) {
            Some(b) => (base * b.letter_factor(), b.word_factor()),
            None => (base, 1),
        }
    }

    /// Whether a word's points depend on its length alone (not on its tiles' values or bonus
    /// tiles), so a search need not carry the two numbers `tile_terms` gives.
    pub fn by_length_only(&self) -> bool {
        self.kind == RulesKind::Boggle
    }

    /// Points of a word of `letters` letters whose tiles' values (with letter bonuses) add up
    /// to `value_sum` and whose word bonuses multiply to `word_factor`.
    #[inline(always)]
    pub fn points(&self, letters: usize, value_sum: u32, word_factor: u32) -> u32 {
        match self.kind {
            RulesKind::Scramble if letters == 2 => word_factor,
            RulesKind::Scramble => value_sum * word_factor + self.length_points[letters],
            RulesKind::Boggle => self.length_points[letters],
        }
    }

    /// Points of the word a path spells on `board`, scored from scratch (the referee's way).
    pub fn score_path(&self, board: &Board, bonuses: &Bonuses, path: &[Pos]) -> u32 {
        let (mut letters, mut sum, mut factor) = (0, 0, 1);
        for &p in path {
            let i = board.index(p);
            let tile = board.tiles()[i];
            let (value, f) = self.tile_terms(tile, bonuses.at(i));
            letters += if tile == crate::dict::QU { 2 } else { 1 };
            sum += value;
            factor *= f;
        }
        self.points(letters.min(MAX_LETTERS), sum, factor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(board: &Board, cells: &[(usize, usize)]) -> Vec<Pos> {
        cells
            .iter()
            .map(|&(r, c)| board.pos(r, c).unwrap())
            .collect()
    }

    #[test]
    fn scramble_points() {
        let board = Board::parse("catsqxyzeeeeeeee").unwrap();
        let rules = Rules::scramble();
        // (bonuses, path, points)
        type Case<'a> = (&'a str, &'a [(usize, usize)], u32);
        let cases: &[Case] = &[
            ("", &[(0, 0), (0, 1)], 1),                // "ca": 2 letters score 1
            ("DW@0,0", &[(0, 0), (0, 1)], 2),          // ... times the word bonus
            ("TL@0,0", &[(0, 0), (0, 1)], 1),          // letter bonuses do not count for 2 letters
            ("", &[(0, 0), (0, 1), (0, 2)], 6),        // c4 a1 t1
            ("TL@0,0", &[(0, 0), (0, 1), (0, 2)], 14), // 12+1+1
            ("DL@0,1", &[(0, 0), (0, 1), (0, 2)], 7),  // 4+2+1
            ("DW@0,2", &[(0, 0), (0, 1), (0, 2)], 12), // 6x2
            ("TW@0,2,DW@0,0", &[(0, 0), (0, 1), (0, 2)], 36), // 6x2x3
            ("TL@0,0,DW@0,1", &[(0, 0), (0, 1), (0, 2)], 28), // (12+1+1)x2
            ("", &[(0, 2), (0, 1), (0, 0), (1, 0)], 19), // t a c qu: 16, 5 letters +3
            ("DL@1,0", &[(0, 2), (0, 1), (0, 0), (1, 0)], 29), // qu doubled: 26 + 3
            ("", &[(1, 1), (1, 2), (1, 3), (2, 3), (2, 2)], 26), // x8 y3 z10 e1 e1 = 23, +3
            (
                "",
                &[
                    (2, 0),
                    (2, 1),
                    (2, 2),
                    (2, 3),
                    (3, 3),
                    (3, 2),
                    (3, 1),
                    (3, 0),
                ],
                23,
            ), // 8 e: 8 + 15
        ];
        for &(bonus, cells, points) in cases {
            let b = Bonuses::parse(bonus, &board).unwrap();
            let p = path(&board, cells);
            let got = rules.score_path(&board, &b, &p);
            assert_eq!(got, points, "{} with {bonus:?}", board.spell(&p));
        }
    }

    #[test]
    fn length_bonus_counts_letters() {
        let r = Rules::scramble();
        // (letters, value sum, expected)
        for (len, sum, want) in [
            (3, 5, 5),
            (4, 5, 5),
            (5, 5, 8),
            (6, 5, 11),
            (7, 5, 15),
            (8, 5, 20),
            (9, 5, 25),
            (12, 0, 35),
        ] {
            assert_eq!(r.points(len, sum, 1), want, "{len} letters");
        }
        let b = Rules::boggle();
        for (len, want) in [
            (2, 0),
            (3, 1),
            (4, 1),
            (5, 2),
            (6, 3),
            (7, 5),
            (8, 11),
            (16, 11),
        ] {
            assert_eq!(b.points(len, 99, 3), want, "{len} letters");
        }
        assert_eq!(Rules::boggle().min_len(), 3);
        assert_eq!(Rules::scramble().min_len(), 2);
    }

    #[test]
    fn bonus_errors() {
        let board = Board::parse("abcdefghijklmnop").unwrap();
        // (typed, message)
        let cases = [
            (
                "TL@0",
                "bonus \"TL@0\": expected KIND@ROW,COL with KIND one of DL, TL, DW, TW (e.g. TL@0,0)",
            ),
            (
                "XX@0,0",
                "bonus \"XX@0,0\": expected KIND@ROW,COL with KIND one of DL, TL, DW, TW (e.g. TL@0,0)",
            ),
            (
                "TL0,0",
                "bonus \"TL0,0\": expected KIND@ROW,COL with KIND one of DL, TL, DW, TW (e.g. TL@0,0)",
            ),
            (
                "TL@a,0",
                "bonus \"TL@a,0\": expected KIND@ROW,COL with KIND one of DL, TL, DW, TW (e.g. TL@0,0)",
            ),
            (
                "TL@4,0",
                "bonus TL@4,0 is off the 4x4 board (rows and columns count from 0)",
            ),
            ("TL@0,0,DW@0,0", "tile 0,0 has two bonuses"),
        ];
        for (typed, message) in cases {
            assert_eq!(
                Bonuses::parse(typed, &board).unwrap_err().to_string(),
                message
            );
        }
        let ok = Bonuses::parse("tl@0,0, DW@3,3", &board).unwrap();
        assert_eq!(
            ok.iter().collect::<Vec<_>>(),
            vec![(0, Bonus::TL), (15, Bonus::DW)]
        );
        assert_eq!(ok.text(&board), "TL@0,0,DW@3,3");
        assert_eq!(Bonuses::parse(&ok.text(&board), &board).unwrap(), ok);
        assert_eq!(Bonuses::none().text(&board), "");
        assert!(Rules::boggle().check_bonuses(&ok).is_err());
        assert!(Rules::scramble().check_bonuses(&ok).is_ok());
        assert!(Rules::scramble().with_min_len(0).is_err());
    }
}
