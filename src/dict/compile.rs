//! Compiles a word list into the trie's serialized form. This file is shared, as is, by
//! `build.rs` (which embeds the default list in the binary) and by the runtime loader of
//! `--dict` lists, so both produce the same bytes from the same text. It must stay
//! self-contained: no `crate::` paths, no I/O, std only.
//!
//! Symbols: a word is spelled in tiles, 0..=25 for a..z, where 16 (`q`) stands for the Qu tile
//! and consumes the letters "qu". A word with a `q` not followed by `u` has no spelling.
//!
//! Layout: nodes are `(mask, first)` pairs of u32. Bits 0..26 of `mask` say which children
//! exist, bit 31 says a word ends here; the children of a node sit next to each other from
//! `first`, in letter order, so the child for letter `l` is at
//! `first + popcount(mask & ((1 << l) - 1))`. Child blocks are laid out depth-first, so a
//! search that descends finds the next block close by.

/// The first bytes of a serialized trie (the version is in the last two).
pub const MAGIC: &[u8; 8] = b"SBTRIE01";
/// Bit of a node's mask that says a word ends at this node.
pub const TERMINAL: u32 = 1 << 31;
/// Bits of a node's mask that say which letters have a child.
pub const LETTERS: u32 = (1 << 26) - 1;
/// The longest word the trie keeps, in tiles: a 6x6 board, the largest we support, has 36.
pub const MAX_WORD_TILES: usize = 36;
/// Header: magic, then five u32: nodes, words, invalid lines, unplayable words, duplicates.
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
    let mut nodes: Vec<[u32; 2]> = vec![[0, 0]];
    fill(&mut nodes, 0, &refs, 0);

    let mut out = Vec::with_capacity(HEADER_LEN + nodes.len() * 8);
    out.extend_from_slice(MAGIC);
    for v in [
        nodes.len() as u32,
        counts.words,
        counts.invalid,
        counts.unplayable,
        counts.duplicates,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for [mask, first] in nodes {
        out.extend_from_slice(&mask.to_le_bytes());
        out.extend_from_slice(&first.to_le_bytes());
    }
    (out, counts)
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
