//! The solver: a depth-first search over the board walked in step with a dictionary, so a
//! path is abandoned as soon as no word starts with what it spells. It owns finding words,
//! choosing each word's path and ordering the result; it does no I/O and keeps no clock.
//!
//! The search is generic over `Lexicon`, the one question it asks of a dictionary ("does any
//! word continue this prefix with this tile?"), so the trie and the two structures the classic
//! essays compare it with (a sorted list searched by bisection, a hash set of every prefix) run
//! exactly the same search and must give exactly the same answers.
//!
//! Each distinct word is reported once. Of its paths, the one kept scores the most (bonus tiles
//! make paths differ), then has the fewest diagonal steps (every step is one pitch straight or
//! 1.41 diagonally, and all paths of a word have as many steps, so this is the shortest swipe),
//! then has the lexicographically smallest cells, so the answer never depends on search order.
//!
//! The inner loop never tries a neighbour whose tile cannot continue the prefix: per board it
//! precomputes, for each cell, the tiles next to it and which neighbours hold each tile, and
//! intersects that with the dictionary's continuations, stepping the dictionary once per tile
//! even when several neighbours show it.

use std::cmp::Ordering;

use crate::board::{Adjacency, Board, MAX_CELLS, Pos};
use crate::dict::{Node, QU, Trie};
use crate::score::{Bonuses, Rules};

/// What the search asks of a dictionary. A cursor stands for a prefix that some word starts
/// with; ids tell words apart so each is reported once.
pub trait Lexicon {
    type Cursor: Copy;
    /// The empty prefix.
    fn root(&self) -> Self::Cursor;
    /// The prefix extended by `tile`, if any word starts with it.
    fn step(&self, at: &Self::Cursor, tile: u8) -> Option<Self::Cursor>;
    /// The id of the word that ends at this prefix, if one does.
    fn word(&self, at: &Self::Cursor) -> Option<u32>;
    /// The tiles that may continue this prefix, as bits (bit `t` for tile `t`); a superset
    /// is allowed (`step` decides), 0 means no word is longer than the prefix.
    fn next_tiles(&self, at: &Self::Cursor) -> u32;
    /// One more than the largest id `word` returns.
    fn id_bound(&self) -> usize;
}

/// An edge record and the sum of the offsets that led to it: at a word's end, its id.
#[derive(Clone, Copy)]
pub struct TrieCursor {
    id: u32,
    node: Node,
}

impl Lexicon for Trie {
    type Cursor = TrieCursor;
    #[inline(always)]
    fn root(&self) -> TrieCursor {
        TrieCursor {
            id: 0,
            node: self.nodes()[0],
        }
    }
    #[inline(always)]
    fn step(&self, at: &TrieCursor, tile: u8) -> Option<TrieCursor> {
        if at.node.children() & (1 << tile) == 0 {
            return None;
        }
        let node = self.nodes()[at.node.child(tile) as usize];
        Some(TrieCursor {
            id: at.id.wrapping_add(node.offset),
            node,
        })
    }
    #[inline(always)]
    fn word(&self, at: &TrieCursor) -> Option<u32> {
        // The bound check makes a corrupt offset harmless (an id past it cannot be marked).
        // `&`, not `&&`: whether a prefix is a word is a coin toss to the branch predictor.
        (at.node.is_word() & (at.id < self.counts().words)).then_some(at.id)
    }
    #[inline(always)]
    fn next_tiles(&self, at: &TrieCursor) -> u32 {
        at.node.children()
    }
    fn id_bound(&self) -> usize {
        self.counts().words as usize
    }
}

/// How to order a solution's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Order {
    /// Longest first (in letters), then most points, then alphabetical.
    #[default]
    Longest,
    /// Most points first, then longest, then alphabetical.
    Score,
}

/// One word as found: its points, its letters and where its path lies in the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    points: u32,
    start: u32,
    tiles: u8,
    letters: u8,
    diagonals: u8,
}

/// Every word found on a board, each with one path. Paths live in one arena, so a solve makes
/// no allocation per word; `words()` gives them out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    board: Board,
    entries: Vec<Entry>,
    cells: Vec<u8>,
    total: u32,
}

/// One word of a solution.
#[derive(Clone, Copy, Debug)]
pub struct FoundWord<'s> {
    board: &'s Board,
    cells: &'s [u8],
    points: u32,
    letters: usize,
}

impl FoundWord<'_> {
    /// The word, lowercase.
    pub fn text(&self) -> String {
        crate::dict::tiles_to_string(&self.tiles())
    }
    /// The tiles it spells (0..=25, `q` for Qu).
    pub fn tiles(&self) -> Vec<u8> {
        self.tile_iter().collect()
    }
    fn tile_iter(&self) -> impl Iterator<Item = u8> + '_ {
        self.cells.iter().map(|&c| self.board.tiles()[c as usize])
    }
    /// Its path, one position per tile.
    pub fn path(&self) -> Vec<Pos> {
        self.cells
            .iter()
            .map(|&c| self.board.pos_of(c as usize))
            .collect()
    }
    pub fn points(&self) -> u32 {
        self.points
    }
    /// Length in letters (the Qu tile counts 2).
    pub fn letters(&self) -> usize {
        self.letters
    }
}

impl Solution {
    pub fn new(board: Board) -> Solution {
        Solution {
            board,
            entries: Vec::new(),
            cells: Vec::new(),
            total: 0,
        }
    }
    pub fn board(&self) -> &Board {
        &self.board
    }
    /// Number of distinct words.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Points of all words together.
    pub fn total_points(&self) -> u32 {
        self.total
    }
    /// The words in their current order (search order until `sort`).
    pub fn words(&self) -> impl ExactSizeIterator<Item = FoundWord<'_>> + '_ {
        self.entries.iter().map(|e| self.found(e))
    }

    fn found(&self, e: &Entry) -> FoundWord<'_> {
        FoundWord {
            board: &self.board,
            cells: &self.cells[e.start as usize..e.start as usize + e.tiles as usize],
            points: e.points,
            letters: e.letters as usize,
        }
    }

    /// Puts the words in `order`. Ties end alphabetically, so the order is total.
    pub fn sort(&mut self, order: Order) {
        let mut entries = std::mem::take(&mut self.entries);
        entries.sort_by(|a, b| compare(order, &self.found(a), &self.found(b)));
        self.entries = entries;
    }

    fn clear(&mut self, board: Board) {
        self.board = board;
        self.entries.clear();
        self.cells.clear();
        self.total = 0;
    }
}

/// Words and points only: what score-only mode counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Tally {
    pub words: usize,
    pub points: u32,
}

/// A step the search has still to take: onto `cell` with the prefix `at`, and what the path
/// so far carries (see `Search::arrive` for `len`). A search writes only the fields it reads:
/// `sum` and `factor` when points depend on tile values, `depth` in full mode; the others
/// keep whatever an earlier search left.
#[derive(Clone, Copy)]
struct Pending<C> {
    at: C,
    used: u64,
    sum: u32,
    factor: u32,
    len: u32,
    cell: u8,
    depth: u8,
}

/// Room for the steps pending at once: each of a path's at most `MAX_CELLS` steps leaves at
/// most 8 siblings (a cell has 8 neighbours), so 8 x 36 = 288 fit; a power of two so that
/// `& PENDING_MASK` needs no bounds check.
const PENDING: usize = 512;
const PENDING_MASK: usize = PENDING - 1;
const _: () = assert!(PENDING > 8 * MAX_CELLS + 1);

/// A reusable solver over one dictionary.
///
/// Which words a solve has found is one bit per word id: 21 KB for ENABLE, small enough to
/// stay in cache (a word-sized mark per id would be 690 KB and miss on most finds).
/// Only the bits a solve set are cleared after it, so a solve costs nothing per id.
pub struct Solver<'d, L: Lexicon = Trie> {
    lexicon: &'d L,
    found: Vec<u64>,
    /// Per found id: its entry (full mode) or its best points (score-only mode); read only on
    /// a second find.
    slots: Vec<u32>,
    /// The ids whose bits this solve set, in its first `Tally::words` places. It has room for
    /// every id and one more, so score-only mode writes each id it meets without a branch (a
    /// place is taken only if the word was new).
    found_ids: Vec<u32>,
    /// The search's stack of steps still to take (see `Search::walk`); kept here so no solve
    /// pays to initialise its own.
    pending: Box<[Pending<L::Cursor>; PENDING]>,
    adjacency: Adjacency,
    /// Per cell: the tiles on its neighbours, as bits.
    near_tiles: [u32; SLOTS],
    /// Per cell and tile: the neighbours showing that tile, as cell bits. Only the entries
    /// named by `near_tiles` are current; the rest are left over from earlier boards.
    near_cells: Box<[[u64; 32]; SLOTS]>,
}

impl<'d, L: Lexicon> Solver<'d, L> {
    pub fn new(lexicon: &'d L) -> Self {
        Solver {
            lexicon,
            found: vec![0; lexicon.id_bound().div_ceil(64)],
            slots: vec![0; lexicon.id_bound()],
            found_ids: vec![0; lexicon.id_bound() + 1],
            pending: Box::new(
                [Pending {
                    at: lexicon.root(),
                    used: 0,
                    sum: 0,
                    factor: 1,
                    len: 0,
                    cell: 0,
                    depth: 0,
                }; PENDING],
            ),
            adjacency: Adjacency::new(4),
            near_tiles: [0; SLOTS],
            near_cells: Box::new([[0; 32]; SLOTS]),
        }
    }

    /// Every word on `board` with its best path, in search order (see `Solution::sort`).
    pub fn solve(&mut self, board: &Board, rules: &Rules, bonuses: &Bonuses) -> Solution {
        let mut out = Solution::new(*board);
        self.solve_into(board, rules, bonuses, &mut out);
        out
    }

    /// `solve`, reusing `out`'s buffers.
    pub fn solve_into(
        &mut self,
        board: &Board,
        rules: &Rules,
        bonuses: &Bonuses,
        out: &mut Solution,
    ) {
        out.clear(*board);
        out.total = self.run::<true>(board, rules, bonuses, out).points;
    }

    /// Counts words and points without recording paths: the fastest mode.
    pub fn tally(&mut self, board: &Board, rules: &Rules, bonuses: &Bonuses) -> Tally {
        let mut scratch = Solution::new(*board);
        self.run::<false>(board, rules, bonuses, &mut scratch)
    }

    fn run<const FULL: bool>(
        &mut self,
        board: &Board,
        rules: &Rules,
        bonuses: &Bonuses,
        out: &mut Solution,
    ) -> Tally {
        // Rules that count length only get a search that carries no tile values: fewer
        // instructions per step, in a loop that runs a few thousand times per rich board.
        if rules.by_length_only() {
            self.search::<FULL, false>(board, rules, bonuses, out)
        } else {
            self.search::<FULL, true>(board, rules, bonuses, out)
        }
    }

    fn search<const FULL: bool, const VALUED: bool>(
        &mut self,
        board: &Board,
        rules: &Rules,
        bonuses: &Bonuses,
        out: &mut Solution,
    ) -> Tally {
        if self.adjacency.side() != board.side() {
            self.adjacency = Adjacency::new(board.side());
        }
        let tiles = board.tiles();
        for cell in 0..board.cells() {
            self.near_tiles[cell] = 0;
            for &n in self.adjacency.of(cell) {
                let t = tiles[n as usize] as usize;
                if self.near_tiles[cell] & (1 << t) == 0 {
                    self.near_tiles[cell] |= 1 << t;
                    self.near_cells[cell][t] = 0;
                }
                self.near_cells[cell][t] |= 1 << n;
            }
        }
        let mut search = Search::<L, FULL, VALUED> {
            lexicon: self.lexicon,
            found: &mut self.found,
            slots: &mut self.slots,
            found_ids: &mut self.found_ids,
            pending: &mut self.pending,
            varying: VALUED && !bonuses.is_empty(),
            near_tiles: &self.near_tiles,
            near_cells: &self.near_cells,
            rules,
            side: board.side(),
            tiles: [0; SLOTS],
            value: [0; SLOTS],
            factor: [1; SLOTS],
            width: [1; SLOTS],
            path: [0; SLOTS],
            out,
            tally: Tally::default(),
        };
        for (i, &t) in board.tiles().iter().enumerate() {
            search.tiles[i] = t;
            (search.value[i], search.factor[i]) = rules.tile_terms(t, bonuses.at(i));
            search.width[i] = if t == QU { 2 } else { 1 };
        }
        let root = self.lexicon.root();
        for cell in 0..board.cells() {
            if let Some(at) = self.lexicon.step(&root, search.tiles[cell]) {
                search.walk(Pending {
                    at,
                    used: 1 << cell,
                    sum: search.value[cell],
                    factor: search.factor[cell],
                    len: search.width[cell] as u32,
                    cell: cell as u8,
                    depth: 0,
                });
            }
        }
        let tally = search.tally;
        for &id in &self.found_ids[..tally.words] {
            self.found[id as usize / 64] &= !(1 << (id % 64));
        }
        tally
    }
}

/// The state of one solve. `FULL`: every word's path is kept (else points only). `VALUED`:
/// points depend on the tiles' values and bonuses (else on length alone).
struct Search<'a, L: Lexicon, const FULL: bool, const VALUED: bool> {
    lexicon: &'a L,
    found: &'a mut [u64],
    slots: &'a mut [u32],
    found_ids: &'a mut [u32],
    pending: &'a mut [Pending<L::Cursor>; PENDING],
    /// Whether a word's points can differ between its paths (bonus tiles).
    varying: bool,
    near_tiles: &'a [u32; SLOTS],
    near_cells: &'a [[u64; 32]; SLOTS],
    rules: &'a Rules,
    side: usize,
    tiles: [u8; SLOTS],
    /// Each tile's value with its letter bonus.
    value: [u32; SLOTS],
    /// Each tile's word-bonus factor.
    factor: [u32; SLOTS],
    /// Letters on each tile: 2 for Qu.
    width: [u8; SLOTS],
    path: [u8; SLOTS],
    out: &'a mut Solution,
    tally: Tally,
}

impl<L: Lexicon, const FULL: bool, const VALUED: bool> Search<'_, L, FULL, VALUED> {
    /// Takes `first` and every step that follows from it, depth first. The steps still to take
    /// wait on a stack, not in the call stack: a step is popped, its word (if any) recorded,
    /// and every step onward from it pushed. All of a step's children are looked up in the
    /// dictionary before any is taken, so their cache misses overlap; nothing that decides
    /// where the next push goes waits on such a lookup. On rich boards the search is bound by
    /// mispredicted branches more than by arithmetic, so it spends instructions to save
    /// branches the predictor cannot learn.
    fn walk(&mut self, first: Pending<L::Cursor>) {
        self.pending[0] = first;
        let mut top = 1;
        while top != 0 {
            top -= 1;
            let step = self.pending[top & PENDING_MASK];
            let cell = step.cell as usize & SLOT_MASK;
            self.arrive(&step);
            let mut todo = self.lexicon.next_tiles(&step.at) & self.near_tiles[cell];
            while todo != 0 {
                let tile = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let mut cells = self.near_cells[cell][tile & 31] & !step.used;
                let Some(child) = self.lexicon.step(&step.at, tile as u8) else {
                    continue;
                };
                // Most often one free neighbour shows the tile, often none: the first is
                // pushed without a branch (and not counted when there is none), others loop.
                loop {
                    let next = cells.trailing_zeros() as usize & SLOT_MASK;
                    // Full mode also counts the path's diagonal steps, packed above the letters.
                    let diagonal = if FULL {
                        let d = cell.abs_diff(next);
                        usize::from(d != 1 && d != self.side) * DIAGONAL
                    } else {
                        0
                    };
                    // Field by field: what this search does not carry is not stored.
                    let onward = &mut self.pending[top & PENDING_MASK];
                    onward.at = child;
                    onward.used = step.used | 1 << next;
                    onward.len = step.len + self.width[next] as u32 + diagonal as u32;
                    onward.cell = next as u8;
                    if VALUED {
                        onward.sum = step.sum + self.value[next];
                        onward.factor = step.factor * self.factor[next];
                    }
                    if FULL {
                        onward.depth = step.depth + 1;
                    }
                    top += usize::from(cells != 0);
                    cells &= cells.wrapping_sub(1);
                    if cells == 0 {
                        break;
                    }
                }
            }
        }
    }

    /// Takes `step`: records the word its prefix spells on its cell, if any. Its `len` is the
    /// letters so far plus, in full mode, `DIAGONAL` per diagonal step; of the other fields,
    /// only those this search carries are read.
    #[inline(always)]
    fn arrive(&mut self, step: &Pending<L::Cursor>) {
        let (at, len) = (&step.at, step.len as usize);
        let depth = if FULL { step.depth as usize } else { 0 };
        let (sum, factor) = if VALUED {
            (step.sum, step.factor)
        } else {
            (0, 1)
        };
        if FULL {
            self.path[depth & SLOT_MASK] = step.cell;
        }
        let letters = len % DIAGONAL;
        if !FULL && !self.varying {
            // Points only, the same on every path: no branch on what the dictionary says (a
            // word or not, found before or not), as those are the least predictable.
            let word = self.lexicon.word(at);
            let hit = word.is_some() & (letters >= self.rules.min_len());
            let id = if hit { word.unwrap_or(0) } else { 0 };
            let (word, bit) = (id as usize / 64, id % 64);
            let fresh = u64::from(hit) & !(self.found[word] >> bit) & 1;
            self.found[word] |= fresh << bit;
            self.found_ids[self.tally.words] = id;
            self.tally.words += fresh as usize;
            self.tally.points +=
                self.rules.points(letters, sum, factor) & 0u32.wrapping_sub(fresh as u32);
            return;
        }
        if let Some(id) = self.lexicon.word(at)
            && letters >= self.rules.min_len()
        {
            let points = self.rules.points(letters, sum, factor);
            self.found(id, depth + 1, letters, (len / DIAGONAL) as u8, points);
        }
    }

    fn found(&mut self, id: u32, tiles: usize, letters: usize, diagonals: u8, points: u32) {
        let (word, bit) = (id as usize / 64, 1u64 << (id % 64));
        if self.found[word] & bit == 0 {
            self.found[word] |= bit;
            self.found_ids[self.tally.words] = id;
            self.tally.words += 1;
            self.tally.points += points;
            if FULL {
                self.slots[id as usize] = self.out.entries.len() as u32;
                let path = &self.path[..tiles];
                self.out.entries.push(Entry {
                    points,
                    start: self.out.cells.len() as u32,
                    tiles: tiles as u8,
                    letters: letters as u8,
                    diagonals,
                });
                self.out.cells.extend_from_slice(path);
            } else {
                self.slots[id as usize] = points;
            }
            return;
        }
        if FULL {
            let entry = &mut self.out.entries[self.slots[id as usize] as usize];
            let kept = &mut self.out.cells[entry.start as usize..][..tiles];
            let new = &self.path[..tiles];
            let better = match points.cmp(&entry.points) {
                Ordering::Greater => true,
                Ordering::Less => false,
                Ordering::Equal => (diagonals, new) < (entry.diagonals, &*kept),
            };
            if better {
                self.tally.points += points - entry.points;
                entry.points = points;
                entry.diagonals = diagonals;
                kept.copy_from_slice(new);
            }
        } else if self.varying {
            let best = &mut self.slots[id as usize];
            if points > *best {
                self.tally.points += points - *best;
                *best = points;
            }
        }
    }
}

/// Length of the per-cell and per-depth tables of a search: a power of two above the 36 cells
/// (and path depths) of the largest board, so that indexing with `& SLOT_MASK` needs no bounds
/// check in the inner loop and is the identity on every real index.
const SLOTS: usize = 64;
const SLOT_MASK: usize = SLOTS - 1;
const _: () = assert!(SLOTS.is_power_of_two() && SLOTS > MAX_CELLS);

/// One diagonal step in the packed length the search carries (letters stay below it: a word
/// has at most `MAX_LETTERS` = 72).
const DIAGONAL: usize = 256;

/// Compares two found words in `order`; ties end alphabetically.
fn compare(order: Order, a: &FoundWord<'_>, b: &FoundWord<'_>) -> Ordering {
    let first = match order {
        Order::Longest => b.letters.cmp(&a.letters).then(b.points.cmp(&a.points)),
        Order::Score => b.points.cmp(&a.points).then(b.letters.cmp(&a.letters)),
    };
    // Tile order is letter order: every q is followed by u, so "qu" sorts as one letter would.
    first.then_with(|| a.tile_iter().cmp(b.tile_iter()))
}
