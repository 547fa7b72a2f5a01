//! `scramblebot bench numbers`: the game's clock and score found by calibrate's watch and read
//! by play's looks on headers of the header generator, layouts nobody here drew. Seed 1 is
//! the one looked at while developing the number reader; the other seeds are only measured
//! (docs/vision.md).

use std::io::Write;

use scramblebot::calibrate::headers;
use scramblebot::vision::corpus::{self, second};

use super::BadInput;
use super::bench::{BenchArgs, progress_bar};

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    let faces = corpus::load_named(&args.fonts, &second::FACES);
    anyhow::ensure!(
        !faces.is_empty(),
        BadInput(anyhow::anyhow!(
            "none of the header generator's typefaces ({}) under {}; on Debian: apt-get install {}",
            second::FACES.join(", "),
            args.fonts.display(),
            second::PACKAGES
        ))
    );
    let seed = args.seed.unwrap_or(1);
    let bar = progress_bar(args.json, args.headers, "headers read");
    let mut misses = Vec::new();
    let tally = headers::measure(&faces, seed, args.headers, |run| {
        bar.inc(1);
        let missed = run.clock.right < run.clock.looks || run.score.right < run.score.looks;
        if missed {
            misses.push(run.clone());
        }
    });
    bar.finish_and_clear();
    if args.json {
        for run in &misses {
            super::outln!("{}", serde_json::to_string(run)?)?;
        }
        super::outln!("{}", serde_json::to_string(&tally)?)?;
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    for run in &misses {
        writeln!(
            out,
            "  #{}: clock {}/{} ({} wrong), score {}/{} ({} wrong): {}",
            run.index,
            run.clock.right,
            run.clock.looks,
            run.clock.wrong,
            run.score.right,
            run.score.looks,
            run.score.wrong,
            run.description
        )?;
        for line in &run.about {
            writeln!(out, "      {line}")?;
        }
    }
    let pct = |n: u64| 100.0 * n as f64 / tally.headers.max(1) as f64;
    writeln!(
        out,
        "header generator seed {seed}: {} headers, {} looks each after calibrating",
        tally.headers,
        headers::LOOKS
    )?;
    writeln!(
        out,
        "calibrate found the clock on {:.1}%, learned its digits on {:.1}%, found the score on {:.1}%",
        pct(tally.clocks_found),
        pct(tally.digits_learned),
        pct(tally.scores_found)
    )?;
    for (name, r) in [("clock", tally.clock), ("score", tally.score)] {
        writeln!(
            out,
            "{name}: read surely and right on {:.2}% of {} looks; wrong yet sure {}",
            100.0 * r.share(),
            r.looks,
            r.wrong
        )?;
    }
    Ok(())
}
