//! The regression gallery: every corpus screen that was ever read exactly and surely, kept as
//! a line "CORPUS SEED INDEX" (the screen is drawn again from them) with its typeface and
//! description after a `#`. `scramblebot bench vision --gallery FILE` adds the screens a run
//! read exactly and surely; `tests/vision.rs` reads every screen of `tests/gallery.txt` again,
//! so a reader change that loses one fails. Lines are never removed by the tool: a screen
//! lost is the reader's to win back.

use std::collections::BTreeSet;

use super::Corpus;

/// One screen of the gallery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    pub corpus: Corpus,
    pub seed: u64,
    pub index: u64,
}

impl Entry {
    /// The line that keeps it, with a comment.
    pub fn line(&self, comment: &str) -> String {
        format!(
            "{} {} {}  # {comment}",
            self.corpus.name(),
            self.seed,
            self.index
        )
    }
}

/// Why a gallery line is not one.
#[derive(Debug, thiserror::Error)]
#[error("line {line}: {why} (expected CORPUS SEED INDEX, then an optional # comment)")]
pub struct GalleryError {
    pub line: usize,
    pub why: String,
}

/// The entries of a gallery file's text, in order, without repeats.
pub fn parse(text: &str) -> Result<Vec<Entry>, GalleryError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (n, line) in (1..).zip(text.lines()) {
        let body = line.split('#').next().unwrap_or("").trim();
        if body.is_empty() {
            continue;
        }
        let bad = |why: String| GalleryError { line: n, why };
        let fields: Vec<&str> = body.split_whitespace().collect();
        let [corpus, seed, index] = fields[..] else {
            return Err(bad(format!("{} fields", fields.len())));
        };
        let corpus = *Corpus::ALL
            .iter()
            .find(|c| c.name() == corpus)
            .ok_or_else(|| bad(format!("no corpus {corpus:?}")))?;
        let number = |s: &str| s.parse::<u64>().map_err(|e| bad(format!("{s:?}: {e}")));
        let entry = Entry {
            corpus,
            seed: number(seed)?,
            index: number(index)?,
        };
        if seen.insert(entry) {
            out.push(entry);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_back_and_bad_ones_named() {
        let e = Entry {
            corpus: Corpus::Second,
            seed: 3,
            index: 17,
        };
        let text = format!(
            "# a gallery\n{}\n\n{}\n",
            e.line("Go-Bold 480x800"),
            e.line("again")
        );
        assert_eq!(parse(&text).unwrap(), [e]);
        let err = parse("second 3\n").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(parse("third 1 2").unwrap_err().why.contains("no corpus"));
        assert!(parse("classic x 2").is_err());
    }
}
