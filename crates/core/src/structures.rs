//! The two dictionary structures the classic Boggle-solver essays compare a trie with, as
//! `Lexicon`s the solver can search: a sorted word list, bisected to test prefixes, and a hash
//! set of every prefix. They exist so `scramblebot bench --structure` can show what the trie
//! buys, with answers that must be identical. Built from a `Trie`'s words, so all three hold
//! the same list. No I/O.

use std::collections::HashMap;

use crate::board::MAX_CELLS;
use crate::dict::Trie;
use crate::solve::Lexicon;

/// Every tile, as `Lexicon::next_tiles` bits.
const ANY_TILE: u32 = (1 << 26) - 1;

/// Which structure a search walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Structure {
    Trie,
    Sorted,
    Prefixes,
}

/// Words sorted by their tiles; a prefix is the range of words that start with it.
pub struct SortedWords {
    words: Vec<Vec<u8>>,
}

/// A range of `SortedWords` sharing their first `depth` tiles.
#[derive(Clone, Copy)]
pub struct Range {
    lo: u32,
    hi: u32,
    depth: u8,
}

impl SortedWords {
    pub fn new(trie: &Trie) -> SortedWords {
        SortedWords {
            words: trie.words_as_tiles(),
        }
    }
}

impl Lexicon for SortedWords {
    type Cursor = Range;
    fn root(&self) -> Range {
        Range {
            lo: 0,
            hi: self.words.len() as u32,
            depth: 0,
        }
    }
    fn step(&self, at: &Range, tile: u8) -> Option<Range> {
        let d = at.depth as usize;
        let words = &self.words[at.lo as usize..at.hi as usize];
        // Within the range every word has the prefix; those longer than it are sorted by their
        // tile at `d`, after the one word (if any) that is the prefix itself.
        let lo = words.partition_point(|w| w.len() <= d || w[d] < tile);
        let hi = words.partition_point(|w| w.len() <= d || w[d] <= tile);
        (lo < hi).then_some(Range {
            lo: at.lo + lo as u32,
            hi: at.lo + hi as u32,
            depth: at.depth + 1,
        })
    }
    fn word(&self, at: &Range) -> Option<u32> {
        (self.words[at.lo as usize].len() == at.depth as usize).then_some(at.lo)
    }
    fn next_tiles(&self, at: &Range) -> u32 {
        // A sorted list cannot say which tiles follow without scanning; it can say whether any.
        let exact = self.words[at.lo as usize].len() == at.depth as usize;
        if at.hi - at.lo > exact as u32 {
            ANY_TILE
        } else {
            0
        }
    }
    fn id_bound(&self) -> usize {
        self.words.len()
    }
}

/// Every prefix of every word, mapped to what it is: a word (with its id) and/or the start of
/// longer words.
pub struct PrefixSet {
    prefixes: HashMap<Vec<u8>, PrefixInfo>,
    words: usize,
}

#[derive(Clone, Copy, Default)]
struct PrefixInfo {
    word: Option<u32>,
    longer: bool,
}

/// A prefix spelled out (the hash set needs the tiles themselves to look it up).
#[derive(Clone, Copy)]
pub struct Spelled {
    tiles: [u8; MAX_CELLS],
    len: u8,
    info: PrefixInfo,
}

impl PrefixSet {
    pub fn new(trie: &Trie) -> PrefixSet {
        let words = trie.words_as_tiles();
        let mut prefixes: HashMap<Vec<u8>, PrefixInfo> = HashMap::new();
        for (id, w) in words.iter().enumerate() {
            for len in 0..w.len() {
                prefixes.entry(w[..len].to_vec()).or_default().longer = true;
            }
            prefixes.entry(w.clone()).or_default().word = Some(id as u32);
        }
        PrefixSet {
            prefixes,
            words: words.len(),
        }
    }
}

impl Lexicon for PrefixSet {
    type Cursor = Spelled;
    fn root(&self) -> Spelled {
        Spelled {
            tiles: [0; MAX_CELLS],
            len: 0,
            info: self.prefixes.get(&[][..]).copied().unwrap_or_default(),
        }
    }
    fn step(&self, at: &Spelled, tile: u8) -> Option<Spelled> {
        let len = at.len as usize;
        if len >= MAX_CELLS {
            return None;
        }
        let mut next = *at;
        next.tiles[len] = tile;
        next.len += 1;
        next.info = *self.prefixes.get(&next.tiles[..=len])?;
        Some(next)
    }
    fn word(&self, at: &Spelled) -> Option<u32> {
        at.info.word
    }
    fn next_tiles(&self, at: &Spelled) -> u32 {
        if at.info.longer { ANY_TILE } else { 0 }
    }
    fn id_bound(&self) -> usize {
        self.words
    }
}
