//! The daemon's history: one JSON line per round played (or skipped), appended to a file the
//! user keeps (`$XDG_STATE_HOME/scramblebot/history.jsonl` by default), and the summaries
//! `scramblebot history` shows. A line is written whole with one append, so several workers
//! may share the file; a line that does not parse (a crash mid-write, a hand edit) is skipped
//! and counted, never fatal.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::plot::{Legend, Panel, Series};

/// How a round ended for the bot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// Every word was entered.
    AllWords,
    /// The round's clock ran out first.
    Clock,
    /// A look found the board gone from the screen first (the results screen, a dialog):
    /// the round was over, whatever the clock said.
    BoardGone,
    /// The user stopped the daemon.
    Stopped,
    /// The phone went away (or refused) mid-round.
    PhoneLost,
    /// The board was not read surely: not played, its screenshot saved.
    #[default]
    Unsure,
}

/// One round, as the history keeps it (the default: nothing played).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    /// When the round ended for the bot, in seconds since the Unix epoch.
    pub time: u64,
    pub serial: String,
    pub profile: String,
    pub board: String,
    /// As `solve --bonus` takes them, when there are any.
    pub bonuses: Option<String>,
    /// The routes used ("monkey", "sendevent, monkey from word 4"); empty when not played.
    pub route: String,
    pub words_entered: usize,
    pub words_planned: usize,
    /// Points of the words entered, as the solver scores them (the game's own score may
    /// differ when the profile's rules do).
    pub points_claimed: u32,
    /// Points of every word on the board.
    pub max_points: u32,
    /// From the board first seen to the first touch.
    pub first_touch_ms: Option<f64>,
    pub duration_secs: f64,
    pub ended: Ended,
    /// The screenshot saved for a board not read surely.
    pub screenshot: Option<PathBuf>,
    /// Whether the game's score moved after the first words (with a profile that knows the
    /// score's box); false means the game took none of them.
    #[serde(default)]
    pub score_moved: Option<bool>,
    /// Words entered a second time in the round: each one whose stroke the phone's going cut
    /// (it may never have reached the game), and those the game's score said went untaken.
    #[serde(default)]
    pub words_entered_again: usize,
    /// The score the game showed after the round's words, read off the screen (with a
    /// profile that learned the game's digits); `points_claimed` is what the bot entered.
    #[serde(default)]
    pub points_seen: Option<u32>,
    /// Whether the round's looks tried to read the score (the profile knows its box and the
    /// game's digits): with no `points_seen`, it was never read surely.
    #[serde(default)]
    pub score_looked: bool,
    /// Words the game took, by its score looked at as they went in (`play::taken`); null
    /// when the score was not read or the looks did not fit one account.
    #[serde(default)]
    pub words_taken: Option<usize>,
    /// Words entered that it did not take.
    #[serde(default)]
    pub words_not_taken: Option<usize>,
    /// Of those, words not taken when entered again alone and unhurried: not in its list.
    #[serde(default)]
    pub words_refused: Option<usize>,
    /// Words the looks at the score could not tell of (two of equal points gone in together,
    /// one of them taken): counted in none of the above.
    #[serde(default)]
    pub words_unknown: Option<usize>,
    /// The game's clock, in seconds, on the look that read the board (null when not read:
    /// the round was then played until its board left the screen).
    #[serde(default)]
    pub clock_seen: Option<u32>,
}

/// Why the history could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("cannot write the history {}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot read the history {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// Where the history is kept unless the user says: `$XDG_STATE_HOME/scramblebot/history.jsonl`,
/// or `~/.local/state/scramblebot/history.jsonl`.
pub fn default_path(xdg_state_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    Some(crate::state::default_dir(xdg_state_home, home)?.join("history.jsonl"))
}

/// Appends `record` as one line to the history at `path` (its directory made if missing).
pub fn append(path: &Path, record: &RoundRecord) -> Result<(), HistoryError> {
    append_line(path, record)
}

/// Appends `record` as one JSON line to the file at `path` (its directory made if missing):
/// the daemon's rounds, the trainer's practices.
pub fn append_line(path: &Path, record: &impl Serialize) -> Result<(), HistoryError> {
    let line = serde_json::to_string(record).map_err(|e| HistoryError::Write {
        path: path.to_owned(),
        cause: e.into(),
    })?;
    append_lines(path, &[line])
}

/// Appends `lines` to the file at `path` with one write. A file whose last line was cut (a
/// crash, a full disk) gets a newline first: the cut line stays one bad line, and the new
/// ones are whole.
fn append_lines(path: &Path, lines: &[String]) -> Result<(), HistoryError> {
    use std::io::{Read, Seek, SeekFrom};
    let write = |e| HistoryError::Write {
        path: path.to_owned(),
        cause: e,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(write)?;
    let mut text = String::new();
    let len = file.metadata().map_err(write)?.len();
    if len > 0 {
        let mut last = [0u8];
        file.seek(SeekFrom::Start(len - 1)).map_err(write)?;
        file.read_exact(&mut last).map_err(write)?;
        if last[0] != b'\n' {
            text.push('\n');
        }
    }
    for line in lines {
        text += line;
        text.push('\n');
    }
    file.write_all(text.as_bytes()).map_err(write)?;
    file.flush().map_err(write)
}

/// Checks at start that a history can be kept at `path`: not empty, not a directory, its
/// directory made and the file opened for appending (nothing is written).
pub fn check_path(path: &Path) -> Result<(), HistoryError> {
    let fail = |m: &str| HistoryError::Write {
        path: path.to_owned(),
        cause: std::io::Error::other(m.to_owned()),
    };
    if path.as_os_str().is_empty() {
        return Err(fail("an empty path: name a file"));
    }
    if path.is_dir() {
        return Err(fail("a directory: name a file in it"));
    }
    let write = |e| HistoryError::Write {
        path: path.to_owned(),
        cause: e,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(write)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map(drop)
        .map_err(write)
}

/// The daemon's history as rounds end: each record appended; one that cannot be written (a
/// full disk, the file gone read-only) is kept and written with the next, so a failed write
/// never stops a round or a phone, and loses nothing while the daemon runs.
#[derive(Debug, Default)]
pub struct Recorder {
    path: Option<PathBuf>,
    pending: Vec<String>,
}

impl Recorder {
    /// A recorder appending to `path` (`None`: no history).
    pub fn new(path: Option<PathBuf>) -> Recorder {
        Recorder {
            path,
            pending: Vec::new(),
        }
    }

    /// Appends `record` (and any kept before it). On failure, a warning to say.
    pub fn record(&mut self, record: &RoundRecord) -> Result<(), String> {
        if self.path.is_none() {
            return Ok(());
        }
        match serde_json::to_string(record) {
            Ok(line) => self.pending.push(line),
            Err(e) => return Err(format!("WARNING: a round's record is not written: {e}")),
        }
        self.flush()
    }

    /// Writes the records kept. On failure, a warning to say.
    pub fn flush(&mut self) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if self.pending.is_empty() {
            return Ok(());
        }
        match append_lines(path, &self.pending) {
            Ok(()) => {
                self.pending.clear();
                Ok(())
            }
            Err(e) => Err(format!(
                "WARNING: {e}; {} kept in memory, written when it can be",
                match self.pending.len() {
                    1 => "the round is".to_owned(),
                    n => format!("{n} rounds are"),
                }
            )),
        }
    }

    /// The records not written, as JSON lines.
    pub fn pending_lines(&self) -> &[String] {
        &self.pending
    }
}

/// The rounds of a history file, and how many lines did not parse.
pub fn read(path: &Path) -> Result<(Vec<RoundRecord>, usize), HistoryError> {
    read_lines(path)
}

/// The records of a JSON-lines file, and how many lines did not parse (a line cut by a
/// crash, a hand edit, bytes that are not text). Read with a history's bound.
pub fn read_lines<T: DeserializeOwned>(path: &Path) -> Result<(Vec<T>, usize), HistoryError> {
    let bytes =
        crate::files::read(path, crate::files::Kind::History).map_err(|e| HistoryError::Read {
            path: path.to_owned(),
            cause: e,
        })?;
    Ok(parse_bytes(&bytes))
}

/// The records of a JSON-lines text, and how many non-empty lines did not parse.
pub fn parse<T: DeserializeOwned>(text: &str) -> (Vec<T>, usize) {
    parse_bytes(text.as_bytes())
}

/// `parse` over bytes: a line that is not UTF-8 is one that did not parse.
pub fn parse_bytes<T: DeserializeOwned>(bytes: &[u8]) -> (Vec<T>, usize) {
    let mut bad = 0;
    let rounds = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.trim_ascii().is_empty())
        .filter_map(|l| serde_json::from_slice(l).map_err(|_| bad += 1).ok())
        .collect();
    (rounds, bad)
}

/// A phone's rounds summed up (or every phone's).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub rounds: usize,
    /// Rounds played (not skipped as unsure).
    pub played: usize,
    pub words_entered: usize,
    pub points_claimed: u64,
    pub max_points: u64,
    /// Rounds in which every word went in.
    pub all_words: usize,
    /// Rounds whose final score the game was seen to show, and those scores summed.
    pub rounds_seen: usize,
    pub points_seen: u64,
    /// Words the game was seen to take, and to refuse (over the rounds where it was told).
    pub words_taken: usize,
    pub words_refused: usize,
}

impl Summary {
    fn add(&mut self, r: &RoundRecord) {
        self.rounds += 1;
        if r.ended != Ended::Unsure {
            self.played += 1;
        }
        self.words_entered += r.words_entered;
        self.points_claimed += u64::from(r.points_claimed);
        self.max_points += u64::from(r.max_points);
        if r.ended == Ended::AllWords {
            self.all_words += 1;
        }
        if let Some(seen) = r.points_seen {
            self.rounds_seen += 1;
            self.points_seen += u64::from(seen);
        }
        self.words_taken += r.words_taken.unwrap_or(0);
        self.words_refused += r.words_refused.unwrap_or(0);
    }

    /// Points claimed as a share of the boards' maxima (0 when there were none).
    pub fn share(&self) -> f64 {
        if self.max_points == 0 {
            0.0
        } else {
            self.points_claimed as f64 / self.max_points as f64
        }
    }
}

/// The rounds summed up per phone (by serial), and over all.
pub fn summarise(rounds: &[RoundRecord]) -> (BTreeMap<String, Summary>, Summary) {
    let mut per = BTreeMap::<String, Summary>::new();
    let mut all = Summary::default();
    for r in rounds {
        per.entry(r.serial.clone()).or_default().add(r);
        all.add(r);
    }
    (per, all)
}

/// A round cut short by its phone going away and the round resumed after it (the same phone,
/// the same board, the next record of that phone) are one round: one row, its words and
/// points summed, its planned words and maximum the first part's, its ending the last's.
/// Rounds stay in the order of their last part.
pub fn merge_resumed(rounds: &[RoundRecord]) -> Vec<RoundRecord> {
    let mut out: Vec<RoundRecord> = Vec::with_capacity(rounds.len());
    // Each phone's last round so far, by its place in `out`.
    let mut last: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rounds {
        let cut = last.get(r.serial.as_str()).copied().filter(|&i| {
            let a = &out[i];
            a.ended == Ended::PhoneLost && a.board == r.board && a.bonuses == r.bonuses
        });
        let merged = match cut {
            Some(at) => {
                let both = |x: Option<usize>, y: Option<usize>| x.zip(y).map(|(x, y)| x + y);
                let a = out.remove(at);
                for i in last.values_mut() {
                    if *i > at {
                        *i -= 1;
                    }
                }
                RoundRecord {
                    time: r.time,
                    route: if a.route == r.route || r.route.is_empty() {
                        a.route.clone()
                    } else {
                        format!("{}, then {}", a.route, r.route)
                    },
                    words_entered: a.words_entered + r.words_entered,
                    points_claimed: a.points_claimed + r.points_claimed,
                    duration_secs: a.duration_secs + r.duration_secs,
                    ended: r.ended,
                    screenshot: r.screenshot.clone().or(a.screenshot.clone()),
                    score_moved: a.score_moved.or(r.score_moved),
                    words_entered_again: a.words_entered_again + r.words_entered_again,
                    // The game's score at the end is the whole round's.
                    points_seen: r.points_seen.or(a.points_seen),
                    score_looked: a.score_looked || r.score_looked,
                    words_taken: both(a.words_taken, r.words_taken),
                    words_not_taken: both(a.words_not_taken, r.words_not_taken),
                    words_refused: both(a.words_refused, r.words_refused),
                    words_unknown: both(a.words_unknown, r.words_unknown),
                    ..a
                }
            }
            None => r.clone(),
        };
        last.insert(r.serial.as_str(), out.len());
        out.push(merged);
    }
    out
}

/// The charts `history --plot` draws: points claimed per round, and their share of the
/// board's maximum, a line per phone over time since the first round, in seconds, minutes,
/// hours or days as its span needs (rounds not played, unsure, are left out). The x axis's
/// label names the unit and the first round's time.
pub fn figure(rounds: &[RoundRecord]) -> (Vec<Panel>, String) {
    let played: Vec<&RoundRecord> = rounds.iter().filter(|r| r.ended != Ended::Unsure).collect();
    let first = played.iter().map(|r| r.time).min().unwrap_or(0);
    let span = played.iter().map(|r| r.time).max().unwrap_or(0) - first;
    let (unit, unit_name) = crate::plot::time_unit(span);
    let since = |r: &RoundRecord| r.time.saturating_sub(first) as f64 / unit;
    // A line per phone of `y` over the rounds it has a value for.
    let per_phone = |y: &dyn Fn(&RoundRecord) -> Option<f64>| {
        let mut by: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for r in &played {
            if let Some(y) = y(r) {
                by.entry(&r.serial).or_default().push((since(r), y));
            }
        }
        by.into_iter()
            .map(|(name, mut points)| {
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series {
                    name: name.to_owned(),
                    points,
                }
            })
            .collect::<Vec<_>>()
    };
    let share = |r: &RoundRecord| {
        Some(if r.max_points == 0 {
            0.0
        } else {
            100.0 * f64::from(r.points_claimed) / f64::from(r.max_points)
        })
    };
    let mut panels = Vec::new();
    // The game's own score, where it was read (rounds without it are left out of it).
    if played.iter().any(|r| r.points_seen.is_some()) {
        panels.push(Panel {
            title: "Points the game showed per round".into(),
            y_label: "points".into(),
            y_range: None,
            legend: Legend::UpperRight,
            series: per_phone(&|r| r.points_seen.map(f64::from)),
        });
    }
    panels.extend([
        Panel {
            title: "Points entered per round (the bot's count)".into(),
            y_label: "points".into(),
            y_range: None,
            legend: Legend::UpperRight,
            series: per_phone(&|r| Some(f64::from(r.points_claimed))),
        },
        Panel {
            title: "Share of the board's maximum entered".into(),
            y_label: "% of the maximum".into(),
            y_range: Some((0.0, 105.0)),
            legend: Legend::LowerRight,
            series: per_phone(&share),
        },
    ]);
    (
        panels,
        format!("{unit_name} since {}", crate::plot::utc(first)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(serial: &str, entered: usize, points: u32, max: u32, ended: Ended) -> RoundRecord {
        RoundRecord {
            time: 1_700_000_000,
            serial: serial.into(),
            profile: "nexus7".into(),
            board: "RBEN/STLA/EOUO/NCAQu".into(),
            bonuses: None,
            route: "monkey".into(),
            words_entered: entered,
            words_planned: 178,
            points_claimed: points,
            max_points: max,
            first_touch_ms: Some(120.0),
            duration_secs: 11.0,
            ended,
            screenshot: None,
            score_moved: Some(true),
            words_entered_again: 0,
            points_seen: None,
            words_taken: None,
            words_not_taken: None,
            words_refused: None,
            words_unknown: None,
            clock_seen: None,
            score_looked: false,
        }
    }

    #[test]
    fn records_round_trip_and_bad_lines_are_counted() {
        let dir = std::env::temp_dir().join(format!("scramblebot-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("deeper/history.jsonl");
        let a = record("a", 178, 1220, 1220, Ended::AllWords);
        let b = record("b", 0, 0, 900, Ended::Unsure);
        append(&path, &a).unwrap();
        append(&path, &b).unwrap();
        let mut text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        text.push_str("{not json\n\n");
        std::fs::write(&path, text).unwrap();
        let (rounds, bad) = read(&path).unwrap();
        assert_eq!((rounds, bad), (vec![a, b], 1));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn summaries_per_phone_and_overall() {
        let rounds = [
            record("a", 178, 1220, 1220, Ended::AllWords),
            record("a", 100, 500, 1000, Ended::Clock),
            record("b", 0, 0, 900, Ended::Unsure),
        ];
        let (per, all) = summarise(&rounds);
        assert_eq!(per["a"].rounds, 2);
        assert_eq!(per["a"].all_words, 1);
        assert!((per["a"].share() - 1720.0 / 2220.0).abs() < 1e-12);
        assert_eq!((per["b"].rounds, per["b"].played), (1, 0));
        assert_eq!((all.rounds, all.played, all.words_entered), (3, 2, 278));
    }

    #[test]
    fn a_round_resumed_after_its_phone_went_away_is_one_round() {
        // Phone a: a round cut at 71 of 178 words, resumed with the 107 left, all entered;
        // phone b's round between them; then a's next round on the same board, not a resume.
        let mut cut = record("a", 71, 500, 1220, Ended::PhoneLost);
        cut.words_planned = 178;
        cut.points_seen = Some(480);
        let mut resumed = record("a", 107, 720, 1220, Ended::AllWords);
        resumed.words_planned = 107;
        resumed.points_seen = Some(1200);
        resumed.time += 40;
        let other = record("b", 90, 300, 1200, Ended::Clock);
        let next = record("a", 178, 1220, 1220, Ended::AllWords);
        let merged = merge_resumed(&[cut.clone(), other.clone(), resumed.clone(), next.clone()]);
        assert_eq!(merged.len(), 3, "{merged:#?}");
        assert_eq!(merged[0], other);
        let one = &merged[1];
        assert_eq!(
            (
                one.words_entered,
                one.words_planned,
                one.points_claimed,
                one.max_points
            ),
            (178, 178, 1220, 1220)
        );
        assert_eq!(
            (one.ended, one.time, one.points_seen),
            (Ended::AllWords, resumed.time, Some(1200))
        );
        assert_eq!(merged[2], next);
        // Summed up, the phone took every word once: a share of 100%, not 1220 of 2440.
        let (phones, _) = summarise(&merged);
        assert!((phones["a"].share() - 1.0).abs() < 1e-9);
        // A cut round followed by another board is not merged.
        let mut elsewhere = resumed.clone();
        elsewhere.board = "CATS/XXXX/XXXX/XXXX".into();
        assert_eq!(
            merge_resumed(&[cut.clone(), elsewhere.clone()]),
            [cut, elsewhere]
        );
    }

    #[test]
    fn the_figure_has_a_line_per_phone_without_unsure_rounds() {
        let mut rounds = [
            record("b", 100, 500, 1000, Ended::Clock),
            record("a", 178, 1220, 1220, Ended::AllWords),
            record("a", 0, 0, 900, Ended::Unsure),
            record("a", 90, 300, 1200, Ended::Clock),
        ];
        rounds[1].time += 3600;
        rounds[3].time += 1800;
        let (panels, x_label) = figure(&rounds);
        // An hour's span reads in minutes.
        assert_eq!(x_label, "minutes since 2023-11-14 22:13 UTC");
        let lines = |p: &Panel| -> Vec<(String, Vec<(f64, f64)>)> {
            p.series
                .iter()
                .map(|s| (s.name.clone(), s.points.clone()))
                .collect()
        };
        let a_points = vec![(30.0, 300.0), (60.0, 1220.0)];
        assert_eq!(
            lines(&panels[0]),
            [("a".into(), a_points), ("b".into(), vec![(0.0, 500.0)])]
        );
        assert_eq!(
            lines(&panels[1]),
            [
                ("a".into(), vec![(30.0, 25.0), (60.0, 100.0)]),
                ("b".into(), vec![(0.0, 50.0)])
            ]
        );
    }

    #[test]
    fn a_record_that_cannot_be_written_is_kept_and_written_with_the_next() {
        let dir = std::env::temp_dir().join(format!("scramblebot-recorder-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // The history's directory is a file for now: no write can succeed.
        let blocker = dir.join("sub");
        std::fs::write(&blocker, "").unwrap();
        let path = blocker.join("history.jsonl");
        let mut rec = Recorder::new(Some(path.clone()));
        let one = record("a", 10, 100, 200, Ended::AllWords);
        let warning = rec.record(&one).unwrap_err();
        assert!(
            warning.starts_with("WARNING: cannot write the history"),
            "{warning}"
        );
        assert!(warning.ends_with("the round is kept in memory, written when it can be"));
        assert_eq!(rec.pending_lines().len(), 1);
        // The disk is back: both go in, in order.
        std::fs::remove_file(&blocker).unwrap();
        let two = record("b", 20, 200, 200, Ended::Clock);
        rec.record(&two).unwrap();
        let (rounds, bad) = read(&path).unwrap();
        assert_eq!((rounds, bad), (vec![one, two], 0));
        assert!(rec.pending_lines().is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_default_place_follows_xdg() {
        let p = |s: &str| Some(PathBuf::from(s));
        let cases = [
            (
                p("/x/state"),
                p("/home/u"),
                p("/x/state/scramblebot/history.jsonl"),
            ),
            (
                None,
                p("/home/u"),
                p("/home/u/.local/state/scramblebot/history.jsonl"),
            ),
            (None, None, None),
        ];
        for (xdg, home, want) in cases {
            assert_eq!(default_path(xdg.as_deref(), home.as_deref()), want);
        }
    }
}
