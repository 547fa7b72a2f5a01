//! `scramblebot bench`: the solver's throughput on seeded board sets, or the board reader's
//! accuracy on a seeded corpus of screens.

use std::io::Write;
use std::path::PathBuf;

use scramblebot::Rules;
use scramblebot::bench::{Built, Mode};
use scramblebot::sample::BoardSet;
use scramblebot::structures::Structure;

use super::{BadInput, DictArgs, load_dictionary};

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// What to measure: the solver (default), or the board reader on a seeded corpus of
    /// screens drawn in typefaces it has no references for.
    #[arg(value_enum, default_value_t = BenchWhat::Solve)]
    pub what: BenchWhat,
    /// Headers the `numbers` bench draws and reads.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..))]
    pub headers: u64,
    /// Screens in the vision corpus.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..))]
    pub screens: u64,
    /// Which vision corpus: the held-back family of the widened corpus (typefaces and tile
    /// styles the reader was never developed against: the headline), the developed family,
    /// or the classic corpus of flat tiles.
    #[arg(long, value_enum, default_value_t = CorpusArg::HeldBack)]
    pub corpus: CorpusArg,
    /// Where the vision corpus's typefaces are looked for (see `vision/corpus.rs` for the
    /// Debian packages that hold them).
    #[arg(long, value_name = "DIR", default_value = "/usr/share/fonts")]
    pub fonts: PathBuf,
    /// Board set: uniform letters, New Boggle dice rolls, or boards near a near-optimal one.
    #[arg(long, value_enum, default_value_t = SetArg::All)]
    pub set: SetArg,
    /// Boards per set.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub boards: u32,
    /// What to compute: points only, every word with its path, or both.
    #[arg(long, value_enum, default_value_t = ModeArg::Both)]
    pub mode: ModeArg,
    /// Dictionary structure the search walks: the trie, or one of the classic alternatives
    /// (answers are checked against the trie's).
    #[arg(long, value_enum, default_value_t = StructureArg::Trie)]
    pub structure: StructureArg,
    /// Seed of the board sets (default: each set's fixed seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Solve the boards of this file instead of a seeded set: one board a line, as `solve`
    /// takes it (blank lines and lines starting with # skipped), so the figures can be set
    /// beside another solver's on the same boards.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["set", "seed", "boards"])]
    pub boards_file: Option<PathBuf>,
    /// With `pace`: the game's accept gaps to play at, in ms.
    #[arg(long, value_delimiter = ',', default_values_t = [0u64, 60, 120, 250])]
    pub gaps: Vec<u64>,
    /// With `pace`: the cable between the virtual phone and the bot, whose cost each
    /// screenshot pays by its bytes.
    #[arg(long, value_enum, default_value_t = super::sim::LinkArg::Loopback)]
    pub link: super::sim::LinkArg,
    /// Print JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
    /// vision: add the screens read exactly and surely to this regression gallery (a file of
    /// "CORPUS SEED INDEX" lines that `cargo test` reads again; tests/gallery.txt).
    #[arg(long, value_name = "FILE")]
    pub gallery: Option<PathBuf>,
    #[command(flatten)]
    pub dict: DictArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum CorpusArg {
    HeldBack,
    Developed,
    Classic,
    /// The second generator: other rasterisers and typefaces (never developed against).
    Second,
}

impl From<CorpusArg> for scramblebot::vision::corpus::Corpus {
    fn from(c: CorpusArg) -> Self {
        use scramblebot::vision::corpus::Corpus;
        match c {
            CorpusArg::HeldBack => Corpus::HeldBack,
            CorpusArg::Developed => Corpus::Developed,
            CorpusArg::Classic => Corpus::Classic,
            CorpusArg::Second => Corpus::Second,
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum BenchWhat {
    Solve,
    Vision,
    /// Pacing to the game's score: open against closed loop at each accept gap (--gaps),
    /// words taken per second, screenshots per second, the bot's CPU.
    Pace,
    /// The game's clock and score found and read on headers of a generator of its own
    /// (layouts, icons, labels, typefaces nobody here drew): calibrate's watch, then play's
    /// looks, each set against what was drawn.
    Numbers,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetArg {
    Uniform,
    Dice,
    Near,
    All,
}

impl SetArg {
    fn sets(self) -> Vec<BoardSet> {
        match self {
            SetArg::Uniform => vec![BoardSet::Uniform],
            SetArg::Dice => vec![BoardSet::Dice],
            SetArg::Near => vec![BoardSet::Near],
            SetArg::All => BoardSet::ALL.to_vec(),
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeArg {
    Score,
    Full,
    Both,
}

impl ModeArg {
    fn modes(self) -> Vec<Mode> {
        match self {
            ModeArg::Score => vec![Mode::Score],
            ModeArg::Full => vec![Mode::Full],
            ModeArg::Both => vec![Mode::Score, Mode::Full],
        }
    }
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum StructureArg {
    Trie,
    Sorted,
    Prefixes,
}

impl From<StructureArg> for Structure {
    fn from(s: StructureArg) -> Structure {
        match s {
            StructureArg::Trie => Structure::Trie,
            StructureArg::Sorted => Structure::Sorted,
            StructureArg::Prefixes => Structure::Prefixes,
        }
    }
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.what {
        BenchWhat::Vision => return vision(&args),
        BenchWhat::Pace => {
            return super::pace::run(&args.gaps, args.link.into(), &args.fonts, args.json);
        }
        BenchWhat::Numbers => return super::headers::run(args),
        BenchWhat::Solve => {}
    }
    let dict = load_dictionary(&args.dict)?;
    let rules = Rules::boggle();
    let structure: Structure = args.structure.into();
    let built = Built::new(&dict.trie, structure);
    let reference =
        (!matches!(structure, Structure::Trie)).then(|| Built::new(&dict.trie, Structure::Trie));
    let boards = args.boards as usize;
    // The boards first: a file that will not do is said before any table begins.
    let sets: Vec<(&'static str, Vec<scramblebot::Board>)> = match &args.boards_file {
        Some(path) => vec![("file", boards_file(path)?)],
        None => args
            .set
            .sets()
            .into_iter()
            .map(|set| {
                let seed = args.seed.unwrap_or(set.default_seed());
                (set.name(), set.boards(boards, seed))
            })
            .collect(),
    };
    let mut out = std::io::stdout().lock();
    if !args.json {
        let boards = match (&args.boards_file, sets.first()) {
            (Some(path), Some((_, list))) => {
                format!("{} boards from {}", list.len(), path.display())
            }
            _ => format!("{boards} boards per set"),
        };
        writeln!(
            out,
            "dictionary {} ({} words), boggle rules, 1 thread, {boards}, best of {} passes",
            dict.name,
            dict.trie.counts().words,
            scramblebot::bench::PASSES
        )?;
        writeln!(
            out,
            "{:<8} {:<9} {:<10} {:>12} {:>10} {:>12}",
            "set", "structure", "mode", "boards/s", "words/bd", "points/bd"
        )?;
    }
    for (name, list) in &sets {
        for mode in args.mode.modes() {
            // On a terminal, a bar per set and mode: a long file takes minutes.
            let passes = 1 + scramblebot::bench::PASSES + usize::from(reference.is_some());
            let bar = progress_bar(args.json, (list.len() * passes) as u64, "boards solved");
            bar.set_message(format!("{name} {}", mode.name()));
            let tell = |n: usize| bar.inc(n as u64);
            let fig = built.measure_list(name, list, mode, &rules, &tell);
            let answers = reference
                .as_ref()
                .filter(|_| fig.is_ok())
                .map(|r| r.answers_list(list, mode, &rules, &tell));
            bar.finish_and_clear();
            let fig = fig?;
            if let Some((words, points)) = answers {
                anyhow::ensure!(
                    (words, points) == (fig.words, fig.points),
                    "{} gave {} words / {} points on the {} set, the trie {words} / {points}",
                    fig.structure,
                    fig.words,
                    fig.points,
                    fig.set,
                );
            }
            if args.json {
                serde_json::to_writer(&mut out, &fig)?;
                writeln!(out)?;
            } else {
                writeln!(
                    out,
                    "{:<8} {:<9} {:<10} {:>12.0} {:>10.1} {:>12.1}",
                    fig.set,
                    fig.structure,
                    fig.mode,
                    fig.boards_per_sec,
                    fig.words as f64 / list.len() as f64,
                    fig.points as f64 / list.len() as f64
                )?;
            }
            out.flush()?;
        }
    }
    if reference.is_some() && !args.json {
        writeln!(out, "answers identical to the trie's on every set")?;
    }
    Ok(())
}

/// The boards of a file, one a line; a line that is not a board is the user's to fix, with
/// its number.
fn boards_file(path: &std::path::Path) -> anyhow::Result<Vec<scramblebot::Board>> {
    let text = scramblebot::files::read_text(path, scramblebot::files::Kind::Boards)
        .map_err(|e| BadInput(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
    let mut boards = Vec::new();
    for (n, line) in (1..).zip(text.lines()) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let board = scramblebot::Board::parse(line)
            .map_err(|e| BadInput(anyhow::anyhow!("{}:{n}: {e}", path.display())))?;
        boards.push(board);
    }
    anyhow::ensure!(
        !boards.is_empty(),
        BadInput(anyhow::anyhow!("{} holds no board", path.display()))
    );
    Ok(boards)
}

/// Adds to the gallery at `path` the screens of `which` with `seed` in `screens` (index,
/// description) that it does not hold yet; how many were added. The file is rewritten whole.
fn keep_in_gallery(
    path: &std::path::Path,
    which: scramblebot::vision::corpus::Corpus,
    seed: u64,
    screens: &[(u64, String)],
) -> anyhow::Result<usize> {
    use scramblebot::files::{self, Kind};
    use scramblebot::vision::corpus::gallery::{self, Entry};
    let mut text = match files::read_text(path, Kind::Boards) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => {
            return Err(BadInput(anyhow::anyhow!("cannot read {}: {e}", path.display())).into());
        }
    };
    let held =
        gallery::parse(&text).map_err(|e| BadInput(anyhow::anyhow!("{}: {e}", path.display())))?;
    let mut added = 0;
    for (index, description) in screens {
        let entry = Entry {
            corpus: which,
            seed,
            index: *index,
        };
        if held.contains(&entry) {
            continue;
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&entry.line(description));
        text.push('\n');
        added += 1;
    }
    files::replace(path, text.as_bytes(), files::Sync::Durable)?;
    Ok(added)
}

/// A bar of `len` steps (`what`) on stderr when it is a terminal and the output is a table;
/// hidden otherwise.
pub(super) fn progress_bar(json: bool, len: u64, what: &str) -> indicatif::ProgressBar {
    if json || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len);
    let template = format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {what}, {{eta}} left");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn vision(args: &BenchArgs) -> anyhow::Result<()> {
    use scramblebot::vision::{corpus, glyph::Classifier};
    let which = corpus::Corpus::from(args.corpus);
    let faces = corpus::load_named(&args.fonts, which.face_names());
    anyhow::ensure!(
        !faces.is_empty(),
        BadInput(anyhow::anyhow!(
            "none of the {} corpus's typefaces ({}) under {}; on Debian: apt-get install {}",
            which.name(),
            which.face_names().join(", "),
            args.fonts.display(),
            which.packages()
        ))
    );
    let seed = args.seed.unwrap_or(1);
    let classifier = Classifier::built_in();
    let bar = progress_bar(args.json, args.screens, "screens read");
    let r = corpus::measure(which, &faces, seed, args.screens, &classifier, |i| {
        bar.set_position(i)
    });
    bar.finish_and_clear();
    if let Some(path) = &args.gallery {
        let added = keep_in_gallery(path, which, seed, &r.exact_sure)?;
        super::errln!(
            "gallery {}: {added} screens added of {} read exactly and surely",
            path.display(),
            r.exact_sure.len()
        );
    }
    if args.json {
        super::outln!("{}", serde_json::to_string(&r)?)?;
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    for m in &r.misreads {
        writeln!(out, "  {m}")?;
    }
    writeln!(
        out,
        "vision corpus {} seed {seed}: {} screens in {} typefaces ({})",
        r.corpus,
        r.screens,
        r.faces.len(),
        r.faces.join(", ")
    )?;
    writeln!(
        out,
        "tiles read right {}/{} ({:.2}%); boards exactly {}/{} ({:.2}%), of them sure {}; wrong but sure {}; refused {}",
        r.tiles_right,
        r.tiles,
        r.tile_accuracy() * 100.0,
        r.boards_exact,
        r.boards,
        r.board_accuracy() * 100.0,
        r.boards_exact_sure,
        r.boards_wrong_sure,
        r.boards_refused
    )?;
    writeln!(
        out,
        "Qu {}/{}; bonuses {}/{} (phantom {}); not a board refused {}/{}; read time mean {:.1} ms, max {:.1} ms",
        r.qu_right,
        r.qu_tiles,
        r.bonuses_right,
        r.bonuses,
        r.bonuses_phantom,
        r.non_boards_refused,
        r.non_boards,
        r.mean_read_ms,
        r.max_read_ms
    )?;
    writeln!(
        out,
        "dimmed boards held (not played) {}/{}, their letters read exactly {}; live boards read as dimmed {}",
        r.dimmed_held, r.dimmed, r.dimmed_exact, r.live_held
    )?;
    let mut from = 0.0;
    let bands: Vec<String> = r
        .calibration
        .iter()
        .map(|b| {
            let text = format!(
                "{:.0}-{:.0}%: {}/{} wrong",
                from * 100.0,
                b.below.min(1.0) * 100.0,
                b.wrong,
                b.tiles
            );
            from = b.below;
            text
        })
        .collect();
    writeln!(
        out,
        "calibration (confidence: wrong/tiles): {}",
        bands.join("; ")
    )?;
    Ok(())
}
