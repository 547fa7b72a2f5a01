//! `scramblebot solve`: every word on a typed board, as a table or one JSON object.

use std::io::Write;
use std::time::Instant;

use scramblebot::board::tile_name;
use scramblebot::{Board, Bonuses, Order, Rules, Solution, Solver};
use serde::Serialize;

use super::{BadInput, DictArgs, OrderArg, RulesArg, bad, load_dictionary, micros};

#[derive(clap::Args, Debug)]
pub struct SolveArgs {
    /// The board: 16 letters (or 9, 25, 36), spaces and '/' between rows allowed.
    #[arg(required = true, num_args = 1.., value_name = "BOARD")]
    pub board: Vec<String>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Word order: longest first (then points), or most points first.
    #[arg(long, value_enum, default_value_t = OrderArg::Longest)]
    pub order: OrderArg,
    /// Shortest word to report, in letters (Qu counts 2); default: 2 for scramble, 3 for boggle.
    #[arg(long, value_name = "N")]
    pub min_len: Option<usize>,
    /// Scoring rules.
    #[arg(long, value_enum, default_value_t = RulesArg::Scramble)]
    pub rules: RulesArg,
    /// Bonus tiles, as KIND@ROW,COL separated by commas (rows and columns from 0), KIND one
    /// of DL, TL, DW, TW: e.g. `TL@0,0,TW@2,3`.
    #[arg(long, value_name = "LIST", allow_hyphen_values = false)]
    pub bonus: Option<String>,
    #[command(flatten)]
    pub dict: DictArgs,
}

/// What `solve --json` prints.
#[derive(Serialize)]
struct SolveJson {
    board: String,
    rules: &'static str,
    min_len: usize,
    order: &'static str,
    bonuses: Vec<BonusJson>,
    dictionary: DictionaryJson,
    words: Vec<WordJson>,
    word_count: usize,
    total_points: u32,
    timings_us: TimingsJson,
}

#[derive(Serialize)]
struct BonusJson {
    kind: String,
    row: usize,
    col: usize,
}

#[derive(Serialize)]
struct DictionaryJson {
    source: String,
    words: u32,
}

#[derive(Serialize)]
struct WordJson {
    word: String,
    points: u32,
    path: Vec<[usize; 2]>,
}

#[derive(Serialize)]
struct TimingsJson {
    dictionary: u64,
    solve: u64,
    total: u64,
}

pub fn run(args: SolveArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let board = Board::parse(&args.board.join(" ")).map_err(bad)?;
    let mut rules = Rules::new(args.rules.into());
    if let Some(n) = args.min_len {
        rules = rules.with_min_len(n).map_err(bad)?;
    }
    let bonuses = match &args.bonus {
        Some(text) => Bonuses::parse(text, &board).map_err(bad)?,
        None => Bonuses::none(),
    };
    rules
        .check_bonuses(&bonuses)
        .map_err(|e| BadInput(anyhow::anyhow!("{e}: use --rules scramble with --bonus")))?;
    let dict = load_dictionary(&args.dict)?;

    let solve_start = Instant::now();
    let mut solution = Solver::new(&dict.trie).solve(&board, &rules, &bonuses);
    let order: Order = args.order.into();
    solution.sort(order);
    let solve_us = micros(solve_start.elapsed());

    let mut out = std::io::stdout().lock();
    if args.json {
        let json = SolveJson {
            board: board.to_string(),
            rules: rules.kind().name(),
            min_len: rules.min_len(),
            order: match order {
                Order::Longest => "longest",
                Order::Score => "score",
            },
            bonuses: bonuses
                .iter()
                .map(|(i, b)| {
                    let p = board.pos_of(i);
                    BonusJson {
                        kind: b.to_string(),
                        row: p.row(),
                        col: p.col(),
                    }
                })
                .collect(),
            dictionary: DictionaryJson {
                source: dict.name.clone(),
                words: dict.trie.counts().words,
            },
            words: solution
                .words()
                .map(|w| WordJson {
                    word: w.text(),
                    points: w.points(),
                    path: w.path().iter().map(|p| [p.row(), p.col()]).collect(),
                })
                .collect(),
            word_count: solution.len(),
            total_points: solution.total_points(),
            timings_us: TimingsJson {
                dictionary: dict.load_us,
                solve: solve_us,
                total: micros(started.elapsed()),
            },
        };
        serde_json::to_writer(&mut out, &json)?;
        writeln!(out)?;
    } else {
        table(&mut out, &board, &bonuses, &solution)?;
        writeln!(
            out,
            "\n{} word{}, {} points ({} rules, min length {}); solved in {:.2} ms; dictionary {} ({} words) loaded in {:.2} ms",
            solution.len(),
            if solution.len() == 1 { "" } else { "s" },
            solution.total_points(),
            rules.kind().name(),
            rules.min_len(),
            solve_us as f64 / 1000.0,
            dict.name,
            dict.trie.counts().words,
            dict.load_us as f64 / 1000.0,
        )?;
    }
    out.flush()?;
    Ok(())
}

/// The board with its bonuses, then one line per word with its points and path.
fn table(
    out: &mut impl Write,
    board: &Board,
    bonuses: &Bonuses,
    solution: &Solution,
) -> std::io::Result<()> {
    let width = solution
        .words()
        .map(|w| w.letters())
        .max()
        .unwrap_or(4)
        .max(4);
    writeln!(out, "board {board}")?;
    for row in 0..board.side() {
        let line: Vec<String> = (0..board.side())
            .map(|col| {
                let i = row * board.side() + col;
                let name = tile_name(board.tiles()[i]);
                match bonuses.at(i) {
                    Some(b) => format!("{name:<2}{b:<3}"),
                    None => format!("{name:<5}"),
                }
            })
            .collect();
        writeln!(out, "  {}", line.join(" ").trim_end())?;
    }
    writeln!(out)?;
    writeln!(out, "{:<width$}  {:>6}  PATH (row,col)", "WORD", "POINTS")?;
    for w in solution.words() {
        let path: Vec<String> = w.path().iter().map(ToString::to_string).collect();
        writeln!(
            out,
            "{:<width$}  {:>6}  {}",
            w.text(),
            w.points(),
            path.join(" ")
        )?;
    }
    Ok(())
}
