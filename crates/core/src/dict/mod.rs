//! The dictionary: a compact word graph (a DAWG: a trie with equal endings merged) over tiles (a..z, with `q` standing for the Qu tile). It owns
//! loading a word list (the built-in ENABLE, or any list) and answering prefix questions; it
//! does not search boards (that is `solve`). `Trie::from_word_list` and `Trie::from_bytes` do
//! the work on bytes in memory; `Trie::load` only reads a file and hands it to them.

pub(crate) mod compile;

use std::path::{Path, PathBuf};

pub use compile::Counts;
use compile::{HEADER_LEN, LETTERS, MAGIC, RECORD_LEN, TERMINAL};

/// The default list, compiled by build.rs from dict/enable1.txt.
static ENABLE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/enable1.trie"));

/// Why a dictionary could not be had.
#[derive(Debug, thiserror::Error)]
pub enum DictError {
    #[error("cannot read word list {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "word list {} has no playable words ({invalid} lines were not a-z words, {unplayable} were unplayable)",
        path.display()
    )]
    NoWords {
        path: PathBuf,
        invalid: u32,
        unplayable: u32,
    },
    #[error("corrupt compiled dictionary: {0}")]
    Corrupt(&'static str),
}

/// One edge record (see `compile`): which tiles continue from its target (and whether a word
/// ends there), where the target's own edges start, and the edge's word-id offset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Node {
    pub mask: u32,
    pub first: u32,
    pub offset: u32,
}

impl Node {
    #[inline(always)]
    pub fn is_word(self) -> bool {
        self.mask & TERMINAL != 0
    }
    #[inline(always)]
    pub fn children(self) -> u32 {
        self.mask & LETTERS
    }
    /// Index of the child for `letter`, which must be one of `children()`.
    #[inline(always)]
    pub fn child(self, letter: u8) -> u32 {
        self.first + (self.mask & ((1u32 << letter) - 1)).count_ones()
    }
}

/// A word list compiled into a word graph. Record 0 is the root (the empty prefix). It is
/// called a trie for what it answers: walked from the root it is exactly the list's trie.
#[derive(Clone, Debug)]
pub struct Trie {
    nodes: Vec<Node>,
    counts: Counts,
}

impl Trie {
    /// The built-in ENABLE list (no file needed: it is compiled into the binary).
    pub fn enable() -> Trie {
        Trie::from_bytes(ENABLE).expect("build.rs embeds a valid trie")
    }

    /// Compiles a word list held in memory: one word per line, any case, LF or CRLF. Lines that
    /// are not a-z words are skipped and counted in `counts()`.
    pub fn from_word_list(text: &[u8]) -> Trie {
        let (bytes, _) = compile::compile(text);
        Trie::from_bytes(&bytes).expect("the compiler writes a valid trie")
    }

    /// Reads and compiles a word list file. A file without a single playable word is refused:
    /// it is almost certainly the wrong file.
    pub fn load(path: &Path) -> Result<Trie, DictError> {
        let text = crate::files::read(path, crate::files::Kind::WordList).map_err(|source| {
            DictError::Io {
                path: path.to_owned(),
                source,
            }
        })?;
        let trie = Trie::from_word_list(&text);
        if trie.counts.words == 0 {
            return Err(DictError::NoWords {
                path: path.to_owned(),
                invalid: trie.counts.invalid,
                unplayable: trie.counts.unplayable,
            });
        }
        Ok(trie)
    }

    /// Reads a compiled trie, checking it so that no walk of it can index out of bounds. Only
    /// this crate's compiler makes these bytes (build.rs and `from_word_list`), and its word
    /// ids are proven by tests, so the checks are structural, and the door stays private.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Trie, DictError> {
        let header = bytes
            .get(..HEADER_LEN)
            .ok_or(DictError::Corrupt("shorter than its header"))?;
        if &header[..8] != MAGIC {
            return Err(DictError::Corrupt("wrong magic or version"));
        }
        let field =
            |i: usize| u32::from_le_bytes(header[8 + 4 * i..12 + 4 * i].try_into().unwrap());
        let record_count = field(0) as usize;
        let counts = Counts {
            words: field(1),
            invalid: field(2),
            unplayable: field(3),
            duplicates: field(4),
        };
        let body = &bytes[HEADER_LEN..];
        if record_count == 0 || body.len() != record_count * RECORD_LEN {
            return Err(DictError::Corrupt("record count does not match its length"));
        }
        let u32_at =
            |c: &[u8], i: usize| u32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap());
        let nodes: Vec<Node> = body
            .chunks_exact(RECORD_LEN)
            .map(|c| Node {
                mask: u32_at(c, 0),
                first: u32_at(c, 1),
                offset: u32_at(c, 2),
            })
            .collect();
        for n in &nodes {
            if n.mask & !(LETTERS | TERMINAL) != 0 {
                return Err(DictError::Corrupt("unknown bits in a node"));
            }
            let end = n.first as u64 + n.children().count_ones() as u64;
            if end > record_count as u64 {
                return Err(DictError::Corrupt("a child lies past the last node"));
            }
        }
        Ok(Trie { nodes, counts })
    }

    /// What loading the list found: words kept, lines skipped and why.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// How many edge records the graph has (12 bytes each).
    pub fn record_count(&self) -> usize {
        self.nodes.len()
    }

    pub(crate) fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The node reached by spelling `tiles` from the root, if any word starts that way.
    pub(crate) fn walk(&self, tiles: &[u8]) -> Option<Node> {
        let mut node = self.nodes[0];
        for &t in tiles {
            if t >= 26 || node.children() & (1 << t) == 0 {
                return None;
            }
            node = self.nodes[node.child(t) as usize];
        }
        Some(node)
    }

    /// Whether `word` (letters, any case; "qu" is one tile) is a playable word of the list.
    pub fn contains(&self, word: &str) -> bool {
        match compile::spell(word.as_bytes()) {
            compile::Spelling::Tiles(t) => self.walk(&t).is_some_and(Node::is_word),
            _ => false,
        }
    }

    /// Every word of the trie as tiles, in sorted order (for tests and the oracle solvers).
    pub fn words_as_tiles(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::with_capacity(self.counts.words as usize);
        let mut prefix = Vec::new();
        self.collect(0, &mut prefix, &mut out);
        out
    }

    fn collect(&self, idx: u32, prefix: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        let node = self.nodes[idx as usize];
        if node.is_word() {
            out.push(prefix.clone());
        }
        for letter in 0..26u8 {
            if node.children() & (1 << letter) != 0 {
                prefix.push(letter);
                self.collect(node.child(letter), prefix, out);
                prefix.pop();
            }
        }
    }
}

/// Spells tiles back as lowercase letters ("qu" for the Qu tile).
pub fn tiles_to_string(tiles: &[u8]) -> String {
    let mut s = String::with_capacity(tiles.len() + 1);
    for &t in tiles {
        s.push((b'a' + t) as char);
        if t == QU {
            s.push('u');
        }
    }
    s
}

/// The tile that stands for "qu".
pub const QU: u8 = b'q' - b'a';

#[cfg(test)]
mod tests {
    use super::*;

    const ENABLE_TEXT: &[u8] = include_bytes!("../../../../dict/enable1.txt");

    #[test]
    fn embedded_trie_is_exactly_the_text_list_compiled_now() {
        let (bytes, counts) = compile::compile(ENABLE_TEXT);
        assert!(
            bytes == ENABLE,
            "embedded trie differs from dict/enable1.txt"
        );
        assert_eq!(counts, Trie::enable().counts());
    }

    #[test]
    fn enable_counts() {
        let c = Trie::enable().counts();
        // 172,820 lines, all a-z; 29 have a q without u.
        assert_eq!(
            c,
            Counts {
                words: 172_791,
                invalid: 0,
                unplayable: 29,
                duplicates: 0
            }
        );
    }

    #[test]
    fn enable_text_is_the_documented_file() {
        // FNV-1a stands in for the sha256 in dict/README.md: it catches any edit of the file
        // without a hashing dependency. Its value was taken from the file whose sha256 matched.
        let mut h: u64 = 0xcbf29ce484222325;
        for &b in ENABLE_TEXT {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
        assert_eq!(ENABLE_TEXT.len(), 1_743_328);
        assert_eq!(h, FNV_OF_ENABLE);
    }
    const FNV_OF_ENABLE: u64 = 0x69d3_ba18_d9bb_dd24;

    #[test]
    fn every_enable_word_is_in_the_trie_and_nothing_else() {
        let trie = Trie::enable();
        let text = std::str::from_utf8(ENABLE_TEXT).unwrap();
        let mut expected: Vec<String> = text
            .lines()
            .filter(|w| {
                let b = w.as_bytes();
                !b.iter()
                    .enumerate()
                    .any(|(i, &c)| c == b'q' && b.get(i + 1) != Some(&b'u'))
            })
            .map(str::to_owned)
            .collect();
        expected.sort();
        let mut got: Vec<String> = trie
            .words_as_tiles()
            .iter()
            .map(|t| tiles_to_string(t))
            .collect();
        got.sort();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected);
        for w in ["quiet", "QUEEN", "aa", "zyzzyva"] {
            assert!(trie.contains(w), "{w}");
        }
        for w in ["qat", "qu", "zzz", "", "caté"] {
            assert!(!trie.contains(w), "{w}");
        }
    }

    #[test]
    fn word_lists_of_any_shape() {
        // (list, words, invalid, unplayable, duplicates)
        let cases: &[(&str, u32, u32, u32, u32)] = &[
            ("cat\ndog\n", 2, 0, 0, 0),
            ("CAT\r\nDog\r\n", 2, 0, 0, 0),
            ("cat\ncat\nCat\n", 1, 0, 0, 2),
            ("cat\n\n  \ndog", 2, 0, 0, 0),
            ("café\nit's\nx y\n123\ncat", 1, 4, 0, 0),
            ("qat\nquit\nq\nqu", 2, 0, 2, 0),
            ("qa1\n", 0, 1, 0, 0),
            (&"a".repeat(37), 0, 0, 1, 0),
            (&"a".repeat(36), 1, 0, 0, 0),
            ("", 0, 0, 0, 0),
        ];
        for &(list, words, invalid, unplayable, duplicates) in cases {
            let c = Trie::from_word_list(list.as_bytes()).counts();
            assert_eq!(
                c,
                Counts {
                    words,
                    invalid,
                    unplayable,
                    duplicates
                },
                "{list:?}"
            );
        }
    }

    #[test]
    fn corrupt_bytes_are_refused_not_trusted() {
        let good = compile::compile(b"cat\ndog\n").0;
        assert!(Trie::from_bytes(&good).is_ok());
        let mut cases: Vec<Vec<u8>> =
            vec![vec![], good[..10].to_vec(), good[..good.len() - 1].to_vec()];
        let mut bad_magic = good.clone();
        bad_magic[0] ^= 1;
        cases.push(bad_magic);
        let mut bad_child = good.clone();
        bad_child[HEADER_LEN + 4..HEADER_LEN + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        cases.push(bad_child);
        let mut bad_length = good.clone();
        bad_length.extend_from_slice(&[0; 8]);
        cases.push(bad_length);
        for bytes in cases {
            assert!(Trie::from_bytes(&bytes).is_err());
        }
    }

    #[test]
    fn load_reports_the_file_and_refuses_lists_without_words() {
        let missing = Trie::load(Path::new("/nonexistent/words.txt")).unwrap_err();
        assert!(missing.to_string().contains("/nonexistent/words.txt"));
        let dir = std::env::temp_dir().join(format!("scramblebot-dict-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.txt");
        std::fs::write(&empty, "1\n2\nqat\n").unwrap();
        let err = Trie::load(&empty).unwrap_err().to_string();
        assert!(
            err.contains("no playable words") && err.contains("2 lines"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
