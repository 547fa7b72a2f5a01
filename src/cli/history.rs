//! `scramblebot history`: the daemon's rounds summed up per phone and overall.

use std::path::PathBuf;

use scramblebot::daemon::{self, history};
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
    /// Also draw points per round and their share of the board's maximum, a line per
    /// phone over time, into this PNG file.
    #[arg(long, value_name = "FILE.png")]
    pub plot: Option<PathBuf>,
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
    let path = args
        .history
        .or_else(daemon::default_history)
        .ok_or_else(|| BadInput(anyhow::anyhow!("no --history and no HOME to find it in")))?;
    let (rounds, bad) = history::read(&path).map_err(|e| BadInput(e.into()))?;
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
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(());
    }
    println!(
        "{:<24} {:>7} {:>7} {:>10} {:>9} {:>12} {:>7}",
        "phone", "rounds", "played", "all words", "words", "points", "share"
    );
    let row = |name: &str, s: &history::Summary| {
        println!(
            "{name:<24} {:>7} {:>7} {:>10} {:>9} {:>12} {:>6.1}%",
            s.rounds,
            s.played,
            s.all_words,
            s.words_entered,
            s.points_claimed,
            s.share() * 100.0
        );
    };
    for (serial, s) in &phones {
        row(serial, s);
    }
    row("all", &all);
    if bad > 0 {
        eprintln!("{bad} lines of {} did not parse", path.display());
    }
    Ok(())
}

/// Draws the history's figure into the PNG `out`.
fn plot(rounds: &[history::RoundRecord], out: &std::path::Path) -> anyhow::Result<()> {
    let (panels, x_label) = history::figure(rounds);
    let figure = scramblebot::plot::Figure {
        width: 1000,
        height: 700,
        x_label,
    };
    let img = scramblebot::plot::draw(&figure, &panels).map_err(|e| BadInput(e.into()))?;
    img.save_with_format(out, image::ImageFormat::Png)
        .map_err(|e| BadInput(anyhow::anyhow!("cannot write {}: {e}", out.display())))?;
    let played: usize = panels[0].series.iter().map(|s| s.points.len()).sum();
    eprintln!("plotted {played} rounds played into {}", out.display());
    Ok(())
}
