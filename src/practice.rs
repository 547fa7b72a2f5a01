//! The practice trainer's session, as a value: a board, every word on it, the words a person
//! has found, and a clock given as the time since the start. `submit` judges a typed word;
//! `summary` says what was found and what was missed. Pure: no terminal, no clock of its own;
//! `scramblebot practice` draws it and feeds it keys and time.

use std::collections::HashMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::board::Board;
use crate::dict::Trie;
use crate::plot::{Legend, Panel, Series};
use crate::score::{Bonuses, Rules};
use crate::solve::{Order, Solver};

/// A word on the board: its points and one path through the tiles, as [row, col].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Word {
    pub word: String,
    pub points: u32,
    pub path: Vec<[usize; 2]>,
}

/// The judgement of one typed word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A word on the board, found for the first time.
    Accepted(Word),
    /// A word of the dictionary that cannot be traced on this board.
    NotOnBoard,
    /// Not in the dictionary.
    NotAWord,
    /// Shorter than the rules allow (`min` letters, Qu counting two).
    TooShort {
        min: usize,
    },
    AlreadyFound,
    /// Typed after the clock ran out.
    TimeUp,
    /// Nothing but spaces, or characters that are not letters.
    NotLetters,
}

impl Verdict {
    /// The verdict in a few words, as the trainer shows it.
    pub fn describe(&self) -> String {
        match self {
            Verdict::Accepted(w) => format!(
                "accepted, {} point{}",
                w.points,
                if w.points == 1 { "" } else { "s" }
            ),
            Verdict::NotOnBoard => "not on the board".into(),
            Verdict::NotAWord => "not a word".into(),
            Verdict::TooShort { min } => format!("too short (at least {min} letters)"),
            Verdict::AlreadyFound => "already found".into(),
            Verdict::TimeUp => "time is up".into(),
            Verdict::NotLetters => "letters only".into(),
        }
    }
}

/// A practice session.
pub struct Practice {
    board: Board,
    bonuses: Bonuses,
    rules: Rules,
    secs: Duration,
    /// Every word on the board, longest first (then most points, then alphabetical).
    all: Vec<Word>,
    index: HashMap<String, usize>,
    /// Indices into `all`, in the order found.
    found: Vec<usize>,
    max_score: u32,
}

/// What a session came to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub score: u32,
    pub max_score: u32,
    /// In the order found.
    pub found: Vec<Word>,
    /// Longest first, then most points.
    pub missed: Vec<Word>,
}

impl Practice {
    /// A session on `board` lasting `secs`, its words found with `trie` under `rules`.
    pub fn new(
        board: Board,
        bonuses: Bonuses,
        rules: Rules,
        trie: &Trie,
        secs: Duration,
    ) -> Practice {
        let mut solution = Solver::new(trie).solve(&board, &rules, &bonuses);
        solution.sort(Order::Longest);
        let all: Vec<Word> = solution
            .words()
            .map(|w| Word {
                word: w.text(),
                points: w.points(),
                path: w.path().iter().map(|p| [p.row(), p.col()]).collect(),
            })
            .collect();
        let index = all
            .iter()
            .enumerate()
            .map(|(i, w)| (w.word.clone(), i))
            .collect();
        Practice {
            board,
            bonuses,
            rules,
            secs,
            max_score: solution.total_points(),
            all,
            index,
            found: Vec::new(),
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn bonuses(&self) -> &Bonuses {
        &self.bonuses
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// How long the session lasts.
    pub fn secs(&self) -> Duration {
        self.secs
    }

    /// Time left at `now` (time since the start).
    pub fn left(&self, now: Duration) -> Duration {
        self.secs.saturating_sub(now)
    }

    pub fn over(&self, now: Duration) -> bool {
        now >= self.secs
    }

    /// Every word on the board, longest first.
    pub fn words(&self) -> &[Word] {
        &self.all
    }

    /// The words found so far, in the order found.
    pub fn found(&self) -> impl ExactSizeIterator<Item = &Word> {
        self.found.iter().map(|&i| &self.all[i])
    }

    pub fn score(&self) -> u32 {
        self.found().map(|w| w.points).sum()
    }

    pub fn max_score(&self) -> u32 {
        self.max_score
    }

    /// Judges `typed` at `now`; an accepted word counts as found.
    pub fn submit(&mut self, typed: &str, now: Duration, trie: &Trie) -> Verdict {
        if self.over(now) {
            return Verdict::TimeUp;
        }
        let word = typed.trim().to_ascii_lowercase();
        if word.is_empty() || !word.bytes().all(|b| b.is_ascii_lowercase()) {
            return Verdict::NotLetters;
        }
        if word.len() < self.rules.min_len() {
            return Verdict::TooShort {
                min: self.rules.min_len(),
            };
        }
        match self.index.get(&word) {
            Some(i) if self.found.contains(i) => Verdict::AlreadyFound,
            Some(&i) => {
                self.found.push(i);
                Verdict::Accepted(self.all[i].clone())
            }
            None if trie.contains(&word) => Verdict::NotOnBoard,
            None => Verdict::NotAWord,
        }
    }

    /// What was found and what was missed.
    pub fn summary(&self) -> Summary {
        Summary {
            score: self.score(),
            max_score: self.max_score,
            found: self.found().cloned().collect(),
            missed: self
                .all
                .iter()
                .enumerate()
                .filter(|(i, _)| !self.found.contains(i))
                .map(|(_, w)| w.clone())
                .collect(),
        }
    }
}

/// One practice, as the practice history keeps it (a JSON line each).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PracticeRecord {
    /// When it ended, in seconds since the Unix epoch.
    pub time: u64,
    pub board: String,
    /// As `solve --bonus` takes them, when there were any.
    pub bonuses: Option<String>,
    pub rules: String,
    pub min_len: usize,
    pub secs: f64,
    /// The dice's seed, when the board was rolled.
    pub seed: Option<u64>,
    pub score: u32,
    pub max_score: u32,
    /// The words found, in the order found.
    pub found: Vec<String>,
    /// The words missed, longest first.
    pub missed: Vec<String>,
}

impl PracticeRecord {
    /// The record of `practice` as it stands, ended at `time`.
    pub fn of(practice: &Practice, time: u64, seed: Option<u64>) -> PracticeRecord {
        let summary = practice.summary();
        let words = |w: Vec<Word>| w.into_iter().map(|w| w.word).collect();
        PracticeRecord {
            time,
            board: practice.board.to_string(),
            bonuses: (!practice.bonuses.is_empty()).then(|| practice.bonuses.text(&practice.board)),
            rules: practice.rules.kind().name().to_owned(),
            min_len: practice.rules.min_len(),
            secs: practice.secs.as_secs_f64(),
            seed,
            score: summary.score,
            max_score: summary.max_score,
            found: words(summary.found),
            missed: words(summary.missed),
        }
    }

    /// The score as a share of the board's maximum (0 for a board without words).
    pub fn share(&self) -> f64 {
        if self.max_score == 0 {
            0.0
        } else {
            f64::from(self.score) / f64::from(self.max_score)
        }
    }
}

/// The charts `history --practice --plot` draws: the score of each practice and its share of
/// the board's maximum, over the practices in order. The x axis's label names the first.
pub fn figure(records: &[PracticeRecord]) -> (Vec<Panel>, String) {
    let line = |name: &str, y: &dyn Fn(&PracticeRecord) -> f64| Series {
        name: name.to_owned(),
        points: (1..)
            .zip(records)
            .map(|(i, r)| (f64::from(i), y(r)))
            .collect(),
    };
    let panels = vec![
        Panel {
            title: "Points per practice".into(),
            y_label: "points".into(),
            y_range: None,
            legend: Legend::UpperRight,
            series: vec![
                line("yours", &|r| f64::from(r.score)),
                line("the board's maximum", &|r| f64::from(r.max_score)),
            ],
        },
        Panel {
            title: "Share of the board's maximum".into(),
            y_label: "% of the maximum".into(),
            y_range: Some((0.0, 105.0)),
            legend: Legend::UpperRight,
            series: vec![line("yours", &|r| 100.0 * r.share())],
        },
    ];
    let first = records.iter().map(|r| r.time).min().unwrap_or(0);
    (
        panels,
        format!("practices in order, from {}", crate::plot::utc(first)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(rules: Rules) -> (Practice, Trie) {
        let trie = Trie::enable();
        let board = Board::parse("RBEN/STLA/EOUO/NCAQu").unwrap();
        let p = Practice::new(
            board,
            Bonuses::none(),
            rules,
            &trie,
            Duration::from_secs(120),
        );
        (p, trie)
    }

    #[test]
    fn typed_words_are_judged() {
        let (mut p, trie) = session(Rules::scramble());
        let s = Duration::from_secs;
        let longest = p.words()[0].word.clone();
        let short = p.words().last().unwrap().word.clone();
        let shouted = format!(" {} ", short.to_uppercase());
        // (typed, at, verdict)
        let cases: Vec<(&str, Duration, Verdict)> = vec![
            ("", s(1), Verdict::NotLetters),
            ("ca t", s(1), Verdict::NotLetters),
            ("a", s(1), Verdict::TooShort { min: 2 }),
            ("zebra", s(2), Verdict::NotOnBoard),
            ("qxzt", s(2), Verdict::NotAWord),
            (&shouted, s(3), Verdict::Accepted(word(&p, &short))),
            (&short, s(4), Verdict::AlreadyFound),
            (&longest, s(5), Verdict::Accepted(word(&p, &longest))),
            ("stab", s(120), Verdict::TimeUp),
        ];
        for (typed, at, want) in cases {
            assert_eq!(p.submit(typed, at, &trie), want, "{typed:?} at {at:?}");
        }
        assert_eq!(p.found().len(), 2);
        assert_eq!(
            p.score(),
            word(&p, &short).points + word(&p, &longest).points
        );
    }

    fn word(p: &Practice, w: &str) -> Word {
        p.words().iter().find(|x| x.word == w).unwrap().clone()
    }

    #[test]
    fn a_record_keeps_what_was_found_and_missed() {
        let (mut p, trie) = session(Rules::scramble());
        let first = p.words()[3].clone();
        p.submit(&first.word, Duration::ZERO, &trie);
        let r = PracticeRecord::of(&p, 1_700_000_000, Some(42));
        assert_eq!(r.board, "RBEN/STLA/EOUO/NCAQu");
        assert_eq!(
            (r.rules.as_str(), r.min_len, r.secs),
            ("scramble", 2, 120.0)
        );
        assert_eq!(r.found, std::slice::from_ref(&first.word));
        assert_eq!(r.missed.len(), p.words().len() - 1);
        assert_eq!((r.score, r.max_score), (first.points, p.max_score()));
        let (panels, label) = figure(&[r.clone(), r]);
        assert_eq!(panels[1].series[0].points.len(), 2);
        assert!(label.ends_with("2023-11-14 22:13 UTC"), "{label}");
    }

    #[test]
    fn boggle_rules_want_three_letters_and_qu_counts_two() {
        let (mut p, trie) = session(Rules::boggle());
        let s = Duration::from_secs(1);
        assert_eq!(p.submit("be", s, &trie), Verdict::TooShort { min: 3 });
        // The Qu tile spells two letters: "qua" is three letters long, on two tiles.
        match p.submit("qua", s, &trie) {
            Verdict::Accepted(w) => assert_eq!(w.path, [[3, 3], [3, 2]]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_summary_has_every_missed_word_longest_first() {
        let (mut p, trie) = session(Rules::scramble());
        let total = p.words().len();
        let some = p.words()[7].word.clone();
        p.submit(&some, Duration::ZERO, &trie);
        let summary = p.summary();
        assert_eq!(summary.found.len(), 1);
        assert_eq!(summary.missed.len(), total - 1);
        assert!(summary.missed.iter().all(|w| w.word != some));
        assert!(
            summary
                .missed
                .windows(2)
                .all(|w| w[0].word.len() >= w[1].word.len())
        );
        assert_eq!(
            summary.max_score,
            p.words().iter().map(|w| w.points).sum::<u32>()
        );
        // Every word's path spells it on the board, tile after neighbouring tile.
        for w in p.words() {
            let spelled: String = w
                .path
                .iter()
                .map(|&[r, c]| {
                    crate::board::tile_name(p.board().tiles()[r * 4 + c]).to_ascii_lowercase()
                })
                .collect();
            assert_eq!(spelled, w.word);
            for step in w.path.windows(2) {
                let (a, b) = (step[0], step[1]);
                assert!(a[0].abs_diff(b[0]) <= 1 && a[1].abs_diff(b[1]) <= 1 && a != b);
            }
        }
    }
}
