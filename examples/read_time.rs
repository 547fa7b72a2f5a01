//! Times the board reader on screenshots, as `read` reads them (grid search included), on one
//! thread and from decoded pixels, so builds can be compared on the same files:
//!
//!     cargo run --release --example read_time -- [--rounds N] [--reference] FILE...
//!
//! Prints, per file, the median and the fastest read in ms over N rounds (default 20), the
//! median of the grid search alone (`grid::find_either`, which the read begins with), and what
//! was read (a board, or why not).
//!
//! With `--reference`, the machine's speed at the time, before the files and after them: the
//! solver's boards a second on `scramblebot bench`'s dice set, score-only (one thread, best
//! of its passes). This machine's speed swings by half and more from hour to hour; a read time
//! means something beside the same run's reference, which docs/solving.md gives at the
//! machine's usual speed.

use scramblebot::bench::{Built, Mode};
use scramblebot::sample::BoardSet;
use scramblebot::structures::Structure;
use scramblebot::vision::{glyph::Classifier, grid, read};
use scramblebot::{Rules, Trie};
use std::time::Instant;

/// Boards in the reference set: about a tenth of a second at the machine's usual speed.
const REFERENCE_BOARDS: usize = 10_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).peekable();
    let mut rounds = 20usize;
    let mut reference = false;
    loop {
        match args.peek().map(String::as_str) {
            Some("--rounds") => {
                args.next();
                rounds = args.next().ok_or("--rounds needs a number")?.parse()?;
            }
            Some("--reference") => {
                args.next();
                reference = true;
            }
            _ => break,
        }
    }
    let trie = reference.then(Trie::enable);
    let speed = |when: &str| -> Result<(), Box<dyn std::error::Error>> {
        if let Some(trie) = &trie {
            let set = BoardSet::Dice;
            let figure = Built::new(trie, Structure::Trie).measure(
                set,
                REFERENCE_BOARDS,
                set.default_seed(),
                Mode::Score,
                &Rules::boggle(),
            )?;
            println!(
                "reference {when}: the solver did {:.0} dice boards/s score-only",
                figure.boards_per_sec
            );
        }
        Ok(())
    };
    speed("before")?;
    let classifier = Classifier::built_in();
    for file in args {
        let img = image::open(&file)?.to_rgba8();
        let mut times = Vec::with_capacity(rounds);
        let mut grid_times = Vec::with_capacity(rounds);
        let mut what = String::new();
        for _ in 0..rounds.max(1) {
            let start = Instant::now();
            std::hint::black_box(grid::find_either(&img));
            grid_times.push(start.elapsed().as_secs_f64() * 1e3);
            let start = Instant::now();
            let r = read::read_on(&img, None, &classifier, 1);
            times.push(start.elapsed().as_secs_f64() * 1e3);
            what = match r {
                Ok(r) => format!("{}", r.board()),
                Err(e) => e.to_string(),
            };
        }
        times.sort_by(f64::total_cmp);
        grid_times.sort_by(f64::total_cmp);
        println!(
            "{file} {}x{}: median {:.1} ms, fastest {:.1} ms, grid search {:.1} ms: {what}",
            img.width(),
            img.height(),
            times[times.len() / 2],
            times[0],
            grid_times[grid_times.len() / 2]
        );
    }
    speed("after")?;
    Ok(())
}
