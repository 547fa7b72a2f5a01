//! Compiles a word list into the trie's serialized form. This file is shared, as is, by
//! `build.rs` (which embeds the default list in the binary) and by the runtime loader of
//! `--dict` lists, so both produce the same bytes from the same text. It must stay
//! self-contained: no `crate::` paths, no I/O, std only.
//!
//! Symbols: a word is spelled in tiles, 0..=25 for a..z, where 16 (`q`) stands for the Qu tile
//! and consumes the letters "qu". A word with a `q` not followed by `u` has no spelling.
//!
//! Shape: the trie of the list is minimised into a DAWG (prefixes that end the same way, like
//! every "...ings", share one subgraph), which for ENABLE is 123k edges instead of 388k trie
//! nodes: a third of the memory, so far more of it stays in cache while a board is searched.
//! Words keep distinct ids all the same: each edge carries an offset, the number of words
//! that sort before any word through it among its siblings' and its parent's, so the sum of
//! the offsets along a word's path is the word's rank in sorted order.
//!
//! Layout: one record per edge (record 0 stands for the root), each three u32: `mask`, whose
//! bits 0..26 say which tiles continue and bit 31 that a word ends at the edge's target;
//! `first`, where the records of the target's own edges start, side by side in letter order,
//! so the edge for tile `l` is record `first + popcount(mask & ((1 << l) - 1))`; and `offset`.
//! Edge blocks are laid out depth-first, so a search that descends finds the next block close
//! by.

/// The first bytes of a serialized trie (the version is in the last two).
pub const MAGIC: &[u8; 8] = b"SBDAWG02";
/// Bytes per record.
pub const RECORD_LEN: usize = 12;
/// Bit of a node's mask that says a word ends at this node.
pub const TERMINAL: u32 = 1 << 31;
/// Bits of a node's mask that say which letters have a child.
pub const LETTERS: u32 = (1 << 26) - 1;
/// The longest word the trie keeps, in tiles: a 6x6 board, the largest we support, has 36.
pub const MAX_WORD_TILES: usize = 36;
/// Header: magic, then five u32: records, words, invalid lines, unplayable words, duplicates.
pub const HEADER_LEN: usize = 8 + 5 * 4;

/// What compiling a list found, besides the trie.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Distinct playable words in the trie.
    pub words: u32,
    /// Non-blank lines that are not a single word of letters a-z (in any case).
    pub invalid: u32,
    /// Words of letters that no board can hold: a `q` without `u`, or longer than 36 tiles.
    pub unplayable: u32,
    /// Lines that repeat a word already seen (after lowercasing).
    pub duplicates: u32,
}

/// Spells `word` in tiles (see the module doc), or says why it cannot be.
pub enum Spelling {
    Tiles(Vec<u8>),
    Invalid,
    Unplayable,
}

/// Turns one line of a word list into tiles. Case does not matter; a trailing `\r` is ignored.
pub fn spell(line: &[u8]) -> Spelling {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut tiles = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        let c = line[i].to_ascii_lowercase();
        if !c.is_ascii_lowercase() {
            return Spelling::Invalid;
        }
        if c == b'q' {
            if line.get(i + 1).map(u8::to_ascii_lowercase) != Some(b'u') {
                // Keep reading: a line with a non-letter later on is invalid, not unplayable.
                return if line[i + 1..].iter().all(u8::is_ascii_alphabetic) {
                    Spelling::Unplayable
                } else {
                    Spelling::Invalid
                };
            }
            i += 1;
        }
        tiles.push(c - b'a');
        i += 1;
    }
    if tiles.len() > MAX_WORD_TILES {
        return Spelling::Unplayable;
    }
    Spelling::Tiles(tiles)
}

/// Compiles a word list (one word per line, LF or CRLF) into the serialized trie.
pub fn compile(text: &[u8]) -> (Vec<u8>, Counts) {
    let mut counts = Counts::default();
    let mut words: Vec<Vec<u8>> = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match spell(line) {
            Spelling::Tiles(t) => words.push(t),
            Spelling::Invalid => counts.invalid += 1,
            Spelling::Unplayable => counts.unplayable += 1,
        }
    }
    words.sort_unstable();
    let before = words.len();
    words.dedup();
    counts.duplicates = (before - words.len()) as u32;
    counts.words = words.len() as u32;

    let refs: Vec<&[u8]> = words.iter().map(Vec::as_slice).collect();
    let mut trie: Vec<[u32; 2]> = vec![[0, 0]];
    fill(&mut trie, 0, &refs, 0);
    let records = lay_out(&minimise(&trie));

    let mut out = Vec::with_capacity(HEADER_LEN + records.len() * RECORD_LEN);
    out.extend_from_slice(MAGIC);
    for v in [
        records.len() as u32,
        counts.words,
        counts.invalid,
        counts.unplayable,
        counts.duplicates,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for record in records {
        for v in record {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    (out, counts)
}

/// A state of the minimised automaton: whether a word ends here, its children by tile (as
/// state numbers) and how many words start from it.
struct State {
    mask: u32,
    children: Vec<u32>,
    words: u32,
}

/// Merges trie nodes with the same future (same end-of-word flag, same children) into one
/// state, bottom-up. Returns the states; the root is the last.
fn minimise(trie: &[[u32; 2]]) -> Vec<State> {
    let mut states: Vec<State> = Vec::new();
    let mut known: std::collections::HashMap<(u32, Vec<u32>), u32> = Default::default();
    let mut state_of = vec![0u32; trie.len()];
    // Children always come after their parent in the trie, so walking backwards meets every
    // child before its parent.
    for idx in (0..trie.len()).rev() {
        let [mask, first] = trie[idx];
        let n = (mask & LETTERS).count_ones();
        let children: Vec<u32> = (first..first + n).map(|c| state_of[c as usize]).collect();
        let key = (mask, children);
        state_of[idx] = match known.get(&key) {
            Some(&s) => s,
            None => {
                let words = (mask & TERMINAL != 0) as u32
                    + key.1.iter().map(|&c| states[c as usize].words).sum::<u32>();
                let s = states.len() as u32;
                states.push(State {
                    mask,
                    children: key.1.clone(),
                    words,
                });
                known.insert(key, s);
                s
            }
        };
    }
    // The root is trie node 0, met last; it has no twin (nothing else is the empty prefix).
    debug_assert_eq!(state_of[0] as usize, states.len() - 1);
    states
}

/// Gives every state a block of edge records, depth-first from the root, and fills them.
fn lay_out(states: &[State]) -> Vec<[u32; 3]> {
    fn place(s: usize, states: &[State], block: &mut [u32], next: &mut u32) {
        let state = &states[s];
        if state.children.is_empty() || block[s] != u32::MAX {
            return;
        }
        block[s] = *next;
        *next += state.children.len() as u32;
        for &c in &state.children {
            place(c as usize, states, block, next);
        }
    }
    let root = states.len() - 1;
    let mut block = vec![u32::MAX; states.len()];
    let mut next = 1;
    place(root, states, &mut block, &mut next);
    let first = |s: usize| if block[s] == u32::MAX { 0 } else { block[s] };
    let mut records = vec![[0u32; 3]; next as usize];
    records[0] = [states[root].mask, first(root), 0];
    for (s, state) in states.iter().enumerate() {
        if block[s] == u32::MAX {
            continue;
        }
        let mut before = (state.mask & TERMINAL != 0) as u32;
        for (k, &c) in state.children.iter().enumerate() {
            let child = &states[c as usize];
            records[block[s] as usize + k] = [child.mask, first(c as usize), before];
            before += child.words;
        }
    }
    records
}

/// Fills node `idx` from `words`, sorted and distinct, which all share their first `depth`
/// tiles. Recursion depth is bounded by `MAX_WORD_TILES`.
fn fill(nodes: &mut Vec<[u32; 2]>, idx: usize, words: &[&[u8]], depth: usize) {
    let mut mask = 0;
    let mut rest = words;
    if rest.first().is_some_and(|w| w.len() == depth) {
        mask |= TERMINAL;
        rest = &rest[1..];
    }
    let mut groups: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let letter = rest[i][depth];
        let mut j = i + 1;
        while j < rest.len() && rest[j][depth] == letter {
            j += 1;
        }
        mask |= 1 << letter;
        groups.push((i, j));
        i = j;
    }
    let first = nodes.len();
    nodes.resize(first + groups.len(), [0, 0]);
    for (k, &(i, j)) in groups.iter().enumerate() {
        fill(nodes, first + k, &rest[i..j], depth + 1);
    }
    nodes[idx] = [mask, if groups.is_empty() { 0 } else { first as u32 }];
}
