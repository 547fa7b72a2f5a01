//! `scramblebot history`: the daemon's rounds summed up per phone and overall, or (with
//! `--practice`) the trainer's practices and the progress they show.

use std::path::PathBuf;

use scramblebot::daemon::{self, history};
use scramblebot::practice::{self, PracticeRecord};
use serde::Serialize;

use super::BadInput;

#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    /// The history file (default: $XDG_STATE_HOME/scramblebot/history.jsonl).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Also draw the points the game showed per round (where read), the points entered, and
    /// their share of the board's maximum, a line per phone over time, into this PNG file (with --practice: your practices).
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
    /// Your practices (`scramblebot practice`) instead of the daemon's rounds: a line each,
    /// then your progress (default file: $XDG_STATE_HOME/scramblebot/practice.jsonl).
    #[arg(long)]
    pub practice: bool,
}

/// What `history --practice --json` prints.
#[derive(Serialize)]
struct PracticeHistoryJson {
    file: PathBuf,
    practices: Vec<PracticeRecord>,
    /// The mean share of the boards' maxima: over all practices, the first five, the last five.
    mean_share: f64,
    first_five_share: f64,
    last_five_share: f64,
    bad_lines: usize,
}

/// What `history --json` prints.
#[derive(Serialize)]
struct HistoryJson {
    file: PathBuf,
    phones: std::collections::BTreeMap<String, history::Summary>,
    all: history::Summary,
    bad_lines: usize,
}

pub fn run(args: HistoryArgs) -> anyhow::Result<()> {
    if args.practice {
        return practices(args);
    }
    let path = args
        .history
        .or_else(daemon::default_history)
        .ok_or_else(|| BadInput(anyhow::anyhow!("no --history and no HOME to find it in")))?;
    if !path.exists() {
        super::errln!(
            "no rounds yet: the daemon writes {} after its first round{}",
            path.display(),
            if args.plot.is_some() {
                " (nothing to plot)"
            } else {
                ""
            }
        );
        return Ok(());
    }
    let (records, bad) = history::read(&path).map_err(|e| BadInput(e.into()))?;
    // A round its phone cut short and the round resumed after it are one round.
    let rounds = history::merge_resumed(&records);
    let (phones, all) = history::summarise(&rounds);
    if let Some(out) = &args.plot {
        plot(&rounds, out)?;
    }
    if args.json {
        let json = HistoryJson {
            file: path,
            phones,
            all,
            bad_lines: bad,
        };
        super::outln!("{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(());
    }
    // "entered" is the bot's count of what it entered; "seen" the scores the game showed
    // (over the rounds where they were read; "-" where none was).
    super::outln!(
        "{:<24} {:>7} {:>7} {:>10} {:>9} {:>12} {:>12} {:>7}",
        "phone",
        "rounds",
        "played",
        "all words",
        "words",
        "entered",
        "seen",
        "share"
    )?;
    let row = |name: &str, s: &history::Summary| {
        let seen = match s.rounds_seen {
            0 => "-".to_owned(),
            _ => s.points_seen.to_string(),
        };
        super::outln!(
            "{name:<24} {:>7} {:>7} {:>10} {:>9} {:>12} {seen:>12} {:>6.1}%",
            s.rounds,
            s.played,
            s.all_words,
            s.words_entered,
            s.points_claimed,
            s.share() * 100.0
        )
    };
    for (serial, s) in &phones {
        row(serial, s)?;
    }
    row("all", &all)?;
    if bad > 0 {
        super::errln!("{bad} lines of {} did not parse", path.display());
    }
    Ok(())
}

/// The mean share of the boards' maxima over `records` (0 for none).
fn mean_share(records: &[PracticeRecord]) -> f64 {
    if records.is_empty() {
        0.0
    } else {
        records.iter().map(PracticeRecord::share).sum::<f64>() / records.len() as f64
    }
}

/// `history --practice`: a line per practice, then the progress.
fn practices(args: HistoryArgs) -> anyhow::Result<()> {
    let path = args
        .history
        .or_else(daemon::default_practice_history)
        .ok_or_else(|| BadInput(anyhow::anyhow!("no --history and no HOME to find it in")))?;
    if !path.exists() {
        super::errln!(
            "no practices yet: `scramblebot practice` writes {} after each one{}",
            path.display(),
            if args.plot.is_some() {
                " (nothing to plot)"
            } else {
                ""
            }
        );
        return Ok(());
    }
    let (records, bad): (Vec<PracticeRecord>, usize) =
        history::read_lines(&path).map_err(|e| BadInput(e.into()))?;
    let n = records.len();
    let first = &records[..n.min(5)];
    let last = &records[n.saturating_sub(5)..];
    if let Some(out) = &args.plot {
        let (panels, x_label) = practice::figure(&records);
        draw(&panels, x_label, out, "practices")?;
    }
    if args.json {
        let json = PracticeHistoryJson {
            mean_share: mean_share(&records),
            first_five_share: mean_share(first),
            last_five_share: mean_share(last),
            file: path,
            practices: records,
            bad_lines: bad,
        };
        super::outln!("{}", serde_json::to_string_pretty(&json)?)?;
        return Ok(());
    }
    super::outln!(
        "{:<20} {:<22} {:>6} {:>7} {:>6} {:>11}",
        "when",
        "board",
        "secs",
        "score",
        "share",
        "words"
    )?;
    for r in &records {
        super::outln!(
            "{:<20} {:<22} {:>6} {:>7} {:>5.1}% {:>11}",
            scramblebot::plot::utc(r.time),
            r.board,
            r.secs,
            format!("{}/{}", r.score, r.max_score),
            r.share() * 100.0,
            format!("{}/{}", r.found.len(), r.found.len() + r.missed.len())
        )?;
    }
    super::outln!(
        "{n} {}; share of the maximum {:.1}% on average, {:.1}% over the first five, {:.1}% over the last five",
        scramblebot::play::plural(n, "practice", "practices"),
        mean_share(&records) * 100.0,
        mean_share(first) * 100.0,
        mean_share(last) * 100.0
    )?;
    if bad > 0 {
        super::errln!("{bad} lines of {} did not parse", path.display());
    }
    Ok(())
}

/// Draws the history's figure into `out` (PNG or JPEG, by its name).
fn plot(rounds: &[history::RoundRecord], out: &std::path::Path) -> anyhow::Result<()> {
    let (panels, x_label) = history::figure(rounds);
    draw(&panels, x_label, out, "rounds played")
}

/// Draws `panels` into `out` (PNG or JPEG, by its name), saying how many `what` it has.
fn draw(
    panels: &[scramblebot::plot::Panel],
    x_label: String,
    out: &std::path::Path,
    what: &str,
) -> anyhow::Result<()> {
    let figure = scramblebot::plot::Figure {
        width: 1000,
        height: 700,
        x_label,
    };
    // The kind the name asks for; the file is written whole or not at all (a full disk
    // leaves no empty file).
    let ext = out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let format = match ext.as_deref() {
        Some("png") => image::ImageFormat::Png,
        Some("jpg" | "jpeg") => image::ImageFormat::Jpeg,
        _ => {
            return Err(BadInput(anyhow::anyhow!(
                "--plot {}: name a .png or .jpg file",
                out.display()
            ))
            .into());
        }
    };
    let img = scramblebot::plot::draw(&figure, panels).map_err(|e| BadInput(e.into()))?;
    let mut bytes = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut bytes), format)?;
    // A file that cannot be written is a failure (exit 1), as the README says.
    scramblebot::state::write_atomic(out, &bytes)?;
    let count = panels.last().map_or(0, |p| {
        p.series.iter().map(|s| s.points.len()).sum::<usize>()
    });
    super::errln!("plotted {count} {what} into {}", out.display());
    Ok(())
}
