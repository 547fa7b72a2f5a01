//! The board: an N x N grid of letter tiles (N from 3 to 6), parsed once from what a user types
//! into checked types. It owns the typed syntax, positions and adjacency; it knows nothing of
//! words or scores. Tiles are 0..=25 for a..z, where `q` (16) is the Qu tile.

use std::fmt;

use crate::dict::QU;

/// The smallest and largest board sides we accept.
pub const MIN_SIDE: usize = 3;
pub const MAX_SIDE: usize = 6;
/// Cells of the largest board.
pub const MAX_CELLS: usize = MAX_SIDE * MAX_SIDE;

/// A tile's place on a board: row and column from the top left, always inside the board it
/// came from (only `Board::pos` and `Board::positions` make them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    row: u8,
    col: u8,
}

impl Pos {
    pub fn row(self) -> usize {
        self.row as usize
    }
    pub fn col(self) -> usize {
        self.col as usize
    }
    /// Whether two positions touch, diagonals included (a tile does not touch itself).
    pub fn touches(self, other: Pos) -> bool {
        self != other && self.row.abs_diff(other.row) <= 1 && self.col.abs_diff(other.col) <= 1
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{},{}", self.row, self.col)
    }
}

/// Why typed text is not a board. Tile numbers count from 1, as a person reads them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BoardError {
    #[error("the board is empty: type 16 letters, for example lqreslusaticnren")]
    Empty,
    #[error("tile {tile} {found:?} is not a letter")]
    NotALetter { tile: usize, found: char },
    #[error("expected 16 tiles (4x4) or a square count (9, 25 or 36), got {got}")]
    WrongCount { got: usize },
    #[error(
        "row {row} has {got} tiles but row 1 has {expected}: rows separated by '/' must be equally long"
    )]
    RaggedRow {
        row: usize,
        got: usize,
        expected: usize,
    },
    #[error("{rows} {} of {cols} {} is not a square board", if *rows == 1 { "row" } else { "rows" }, if *cols == 1 { "tile" } else { "tiles" })]
    NotSquare { rows: usize, cols: usize },
}

/// An N x N board of tiles.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    side: u8,
    tiles: [u8; MAX_CELLS],
}

impl Board {
    /// Parses a typed board, case-insensitively, in any of these forms:
    /// `lqreslusaticnren` (a lone q is the Qu tile, and so is "qu"), `l qu r e s l u s a t i c n
    /// r e n` (tiles separated by spaces or commas), or `LQuRE/SLUS/ATIC/NREN` (rows separated by
    /// '/'). Inside a run of letters "qu" is one tile; when reading it so gives a count that is
    /// not square but reading each q alone does, the second reading wins (16 letters typed with
    /// a q followed by a u tile).
    pub fn parse(text: &str) -> Result<Board, BoardError> {
        let rows: Vec<&str> = text.split('/').collect();
        if rows.len() > 1 {
            let mut tiles = Vec::new();
            let mut first_len = 0;
            for (i, row) in rows.iter().enumerate() {
                let parsed = read_tiles(row, tiles.len(), true)?;
                if i == 0 {
                    first_len = parsed.len();
                } else if parsed.len() != first_len {
                    return Err(BoardError::RaggedRow {
                        row: i + 1,
                        got: parsed.len(),
                        expected: first_len,
                    });
                }
                tiles.extend(parsed);
            }
            if tiles.is_empty() {
                return Err(BoardError::Empty);
            }
            if first_len != rows.len() {
                return Err(BoardError::NotSquare {
                    rows: rows.len(),
                    cols: first_len,
                });
            }
            return Board::from_tiles(&tiles);
        }
        let greedy = read_tiles(text, 0, true)?;
        match Board::from_tiles(&greedy) {
            Err(BoardError::WrongCount { .. }) => {
                let lone = read_tiles(text, 0, false)?;
                Board::from_tiles(&lone).map_err(|_| BoardError::WrongCount { got: greedy.len() })
            }
            other => other,
        }
    }

    /// A board from tiles in reading order (0..=25, `q` for Qu); the count must be a square of
    /// a side from 3 to 6.
    pub fn from_tiles(tiles: &[u8]) -> Result<Board, BoardError> {
        if tiles.is_empty() {
            return Err(BoardError::Empty);
        }
        let side = (MIN_SIDE..=MAX_SIDE)
            .find(|s| s * s == tiles.len())
            .ok_or(BoardError::WrongCount { got: tiles.len() })?;
        let mut board = Board {
            side: side as u8,
            tiles: [0; MAX_CELLS],
        };
        for (i, &t) in tiles.iter().enumerate() {
            if t >= 26 {
                return Err(BoardError::NotALetter {
                    tile: i + 1,
                    found: char::REPLACEMENT_CHARACTER,
                });
            }
            board.tiles[i] = t;
        }
        Ok(board)
    }

    /// Tiles per row (and rows).
    pub fn side(&self) -> usize {
        self.side as usize
    }

    /// Number of tiles.
    pub fn cells(&self) -> usize {
        self.side() * self.side()
    }

    /// Tiles in reading order.
    pub fn tiles(&self) -> &[u8] {
        &self.tiles[..self.cells()]
    }

    /// The tile at `pos`.
    pub fn tile(&self, pos: Pos) -> u8 {
        self.tiles[self.index(pos)]
    }

    /// The position at `row`, `col`, if it is on this board.
    pub fn pos(&self, row: usize, col: usize) -> Option<Pos> {
        (row < self.side() && col < self.side()).then_some(Pos {
            row: row as u8,
            col: col as u8,
        })
    }

    /// The position of cell `index` in reading order. Panics past the last cell, which only a
    /// bug in this crate can ask for.
    pub fn pos_of(&self, index: usize) -> Pos {
        assert!(index < self.cells(), "cell {index} is off the board");
        Pos {
            row: (index / self.side()) as u8,
            col: (index % self.side()) as u8,
        }
    }

    /// The reading-order index of `pos`.
    pub fn index(&self, pos: Pos) -> usize {
        pos.row() * self.side() + pos.col()
    }

    /// Every position in reading order.
    pub fn positions(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.cells()).map(|i| self.pos_of(i))
    }

    /// The letters a path spells, lowercase ("qu" for the Qu tile).
    pub fn spell(&self, path: &[Pos]) -> String {
        let tiles: Vec<u8> = path.iter().map(|&p| self.tile(p)).collect();
        crate::dict::tiles_to_string(&tiles)
    }
}

/// Tile names as shown to people: "A".."Z" and "Qu".
pub fn tile_name(tile: u8) -> &'static str {
    const NAMES: [&str; 26] = [
        "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P", "Qu", "R",
        "S", "T", "U", "V", "W", "X", "Y", "Z",
    ];
    NAMES.get(tile as usize).copied().unwrap_or("?")
}

impl fmt::Display for Board {
    /// Rows joined by '/', as `Board::parse` reads them: `LQuRE/SLUS/ATIC/NREN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, &t) in self.tiles().iter().enumerate() {
            if i > 0 && i % self.side() == 0 {
                f.write_str("/")?;
            }
            f.write_str(tile_name(t))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Board({self})")
    }
}

impl std::str::FromStr for Board {
    type Err = BoardError;
    fn from_str(s: &str) -> Result<Board, BoardError> {
        Board::parse(s)
    }
}

/// Reads tiles from text with no '/' in it. `numbered_from` is how many tiles came before (for
/// error messages); `qu_pairs` says whether "qu" inside a run of letters is one tile.
fn read_tiles(text: &str, numbered_from: usize, qu_pairs: bool) -> Result<Vec<u8>, BoardError> {
    let mut tiles = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() || c == ',' {
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(BoardError::NotALetter {
                tile: numbered_from + tiles.len() + 1,
                found: c,
            });
        }
        let t = c.to_ascii_lowercase() as u8 - b'a';
        if t == QU && qu_pairs && chars.peek().is_some_and(|n| n.eq_ignore_ascii_case(&'u')) {
            chars.next();
        }
        tiles.push(t);
    }
    Ok(tiles)
}

/// Which cells touch which, for one board side: the solver's inner loop reads these lists.
/// Neighbours are in ascending cell order, so a depth-first search meets paths in
/// lexicographic order of their cells.
#[derive(Clone, Debug)]
pub struct Adjacency {
    side: usize,
    lists: [[u8; 8]; MAX_CELLS],
    counts: [u8; MAX_CELLS],
}

impl Adjacency {
    pub fn new(side: usize) -> Adjacency {
        let mut adj = Adjacency {
            side,
            lists: [[0; 8]; MAX_CELLS],
            counts: [0; MAX_CELLS],
        };
        for r in 0..side {
            for c in 0..side {
                let cell = r * side + c;
                for nr in r.saturating_sub(1)..=(r + 1).min(side - 1) {
                    for nc in c.saturating_sub(1)..=(c + 1).min(side - 1) {
                        if (nr, nc) != (r, c) {
                            let k = adj.counts[cell] as usize;
                            adj.lists[cell][k] = (nr * side + nc) as u8;
                            adj.counts[cell] += 1;
                        }
                    }
                }
            }
        }
        adj
    }

    pub fn side(&self) -> usize {
        self.side
    }

    /// The cells touching `cell`, in ascending order.
    #[inline(always)]
    pub fn of(&self, cell: usize) -> &[u8] {
        &self.lists[cell][..self.counts[cell] as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_forms() {
        // (typed, shown)
        let cases = [
            ("lqreslusaticnren", "LQuRE/SLUS/ATIC/NREN"),
            ("l qu r e s l u s a t i c n r e n", "LQuRE/SLUS/ATIC/NREN"),
            ("LQuRE/SLUS/ATIC/NREN", "LQuRE/SLUS/ATIC/NREN"),
            ("lqure slus atic nren", "LQuRE/SLUS/ATIC/NREN"),
            ("L,QU,R,E,S,L,U,S,A,T,I,C,N,R,E,N", "LQuRE/SLUS/ATIC/NREN"),
            ("  lqreslusaticnren\n", "LQuRE/SLUS/ATIC/NREN"),
            ("abc/def/ghi", "ABC/DEF/GHI"),
            ("abcdefghi", "ABC/DEF/GHI"),
            (
                "a b c d e f g h i j k l m n o p q r s t u v w x y",
                "ABCDE/FGHIJ/KLMNO/PQuRST/UVWXY",
            ),
            (&"e".repeat(36), "EEEEEE/EEEEEE/EEEEEE/EEEEEE/EEEEEE/EEEEEE"),
            // 16 letters where a u tile follows the Qu tile: "qu" as one tile gives 15.
            ("aquabcdefghijklm", "AQuUA/BCDE/FGHI/JKLM"),
            ("quuabcdefghijklm", "QuUUA/BCDE/FGHI/JKLM"),
            ("q u a b c d e f g h i j k l m n", "QuUAB/CDEF/GHIJ/KLMN"),
        ];
        for (typed, shown) in cases {
            let board = Board::parse(typed).unwrap_or_else(|e| panic!("{typed:?}: {e}"));
            assert_eq!(board.to_string(), shown, "{typed:?}");
            assert_eq!(Board::parse(shown), Ok(board), "{shown:?} reads back");
        }
    }

    #[test]
    fn errors_say_what_is_wrong() {
        // (typed, message)
        let cases = [
            (
                "",
                "the board is empty: type 16 letters, for example lqreslusaticnren",
            ),
            (
                "   ",
                "the board is empty: type 16 letters, for example lqreslusaticnren",
            ),
            (
                "lqreslusaticnre",
                "expected 16 tiles (4x4) or a square count (9, 25 or 36), got 15",
            ),
            (
                "abcd",
                "expected 16 tiles (4x4) or a square count (9, 25 or 36), got 4",
            ),
            (
                &"a".repeat(49),
                "expected 16 tiles (4x4) or a square count (9, 25 or 36), got 49",
            ),
            ("abcdeféghijklmno", "tile 7 'é' is not a letter"),
            ("abcd/ef1h/ijkl/mnop", "tile 7 '1' is not a letter"),
            (
                "abcd/efg/ijkl/mnop",
                "row 2 has 3 tiles but row 1 has 4: rows separated by '/' must be equally long",
            ),
            ("abcd/efgh/ijkl", "3 rows of 4 tiles is not a square board"),
            ("a/b/c/d", "4 rows of 1 tile is not a square board"),
            (
                "ab/cd",
                "expected 16 tiles (4x4) or a square count (9, 25 or 36), got 4",
            ),
            (
                "/",
                "the board is empty: type 16 letters, for example lqreslusaticnren",
            ),
            ("🦀🦀", "tile 1 '🦀' is not a letter"),
        ];
        for (typed, message) in cases {
            let err = Board::parse(typed).expect_err(typed);
            assert_eq!(err.to_string(), message, "{typed:?}");
        }
    }

    #[test]
    fn positions_and_adjacency() {
        let b = Board::parse("abcdefghijklmnop").unwrap();
        assert_eq!(b.pos(3, 3).map(|p| b.index(p)), Some(15));
        assert_eq!(b.pos(4, 0), None);
        assert_eq!(b.pos_of(6).to_string(), "1,2");
        let adj = Adjacency::new(4);
        assert_eq!(adj.of(0), &[1, 4, 5]);
        assert_eq!(adj.of(5), &[0, 1, 2, 4, 6, 8, 9, 10]);
        assert_eq!(adj.of(15), &[10, 11, 14]);
        for a in b.positions() {
            let listed: Vec<Pos> = adj
                .of(b.index(a))
                .iter()
                .map(|&i| b.pos_of(i as usize))
                .collect();
            let touching: Vec<Pos> = b.positions().filter(|&p| a.touches(p)).collect();
            assert_eq!(listed, touching);
        }
    }
}
