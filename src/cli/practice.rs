//! `scramblebot practice`: a timed board for a person. On a terminal, a full-screen trainer
//! (ratatui): the board drawn large, the clock, the words found, an input line judged at each
//! Enter, and when time is up every missed word, whose path the arrow keys draw on the board.
//! With stdin piped, one word a line is judged and printed, for scripts and tests. The session
//! itself (judging, the clock as a value, the summary) is the library's `practice`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};
use scramblebot::board::{Board, tile_name};
use scramblebot::daemon::{self, history};
use scramblebot::practice::{Practice, PracticeRecord, Summary, Verdict, Word};
use scramblebot::sample::{Rng, roll_dice};
use scramblebot::score::{Bonuses, Rules};
use scramblebot::vision::read;
use serde::Serialize;

use super::{
    BadInput, DictArgs, NotSure, RulesArg, bad, classifier_for, game_board, load_dictionary,
    load_image, seconds,
};

#[derive(clap::Args, Debug)]
pub struct PracticeArgs {
    /// The board, as `solve` takes it (16 letters); default: rolled with the game's dice.
    #[arg(long, value_name = "LETTERS", conflicts_with_all = ["image", "seed"])]
    pub board: Option<String>,
    /// Take the board (and its bonus tiles) from a screenshot of the game.
    #[arg(long, value_name = "FILE", conflicts_with = "seed")]
    pub image: Option<PathBuf>,
    /// Roll the dice from this seed: the same seed gives the same board (to compare with a
    /// friend); without one, a seed is chosen and shown.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// How long the clock runs, in seconds.
    #[arg(
        long,
        value_name = "SECS",
        allow_negative_numbers = true,
        default_value_t = 120.0
    )]
    pub secs: f64,
    /// Scoring rules.
    #[arg(long, value_enum, default_value_t = RulesArg::Scramble)]
    pub rules: RulesArg,
    /// Shortest word accepted, in letters (Qu counts 2); default: 2 for scramble, 3 for boggle.
    #[arg(long, value_name = "N")]
    pub min_len: Option<usize>,
    /// Bonus tiles, as `solve --bonus` takes them (KIND@ROW,COL, ...).
    #[arg(long, value_name = "LIST")]
    pub bonus: Option<String>,
    /// Print one JSON object as the last line: board, secs, rules, score, max_score, found
    /// and missed (each a list of {word, points, path}, missed longest first).
    #[arg(long)]
    pub json: bool,
    /// The practice history (default: $XDG_STATE_HOME/scramblebot/practice.jsonl).
    #[arg(long, value_name = "FILE", conflicts_with = "no_history")]
    pub history: Option<PathBuf>,
    /// Keep this practice out of the history.
    #[arg(long)]
    pub no_history: bool,
    #[command(flatten)]
    pub dict: DictArgs,
}

/// What `practice --json` prints as its last line.
#[derive(Serialize)]
struct PracticeJson<'a> {
    board: String,
    bonuses: Option<String>,
    secs: f64,
    rules: &'static str,
    min_len: usize,
    seed: Option<u64>,
    score: u32,
    max_score: u32,
    found: &'a [Word],
    missed: &'a [Word],
}

pub fn run(args: PracticeArgs) -> anyhow::Result<()> {
    let secs = seconds("--secs", args.secs, 1.0)?;
    let mut rules = Rules::new(args.rules.into());
    if let Some(n) = args.min_len {
        rules = rules.with_min_len(n).map_err(bad)?;
    }
    let (board, bonuses, seed) = chosen_board(&args)?;
    rules.check_bonuses(&bonuses).map_err(|e| {
        BadInput(anyhow::anyhow!(
            "{e}: use --rules scramble with bonus tiles"
        ))
    })?;
    let dict = load_dictionary(&args.dict)?;
    let mut practice = Practice::new(board, bonuses, rules, &dict.trie, secs);
    let history = (!args.no_history)
        .then(|| {
            args.history
                .clone()
                .or_else(daemon::default_practice_history)
        })
        .flatten();
    let interrupted = if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        trainer(&mut practice, &dict.trie, seed)?
    } else {
        piped(&mut practice, &dict.trie, seed)?;
        false
    };
    let summary = practice.summary();
    print_summary(&practice, &summary)?;
    if let Some(path) = &history {
        let time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        history::append_line(path, &PracticeRecord::of(&practice, time, seed))?;
    }
    if args.json {
        let json = PracticeJson {
            board: practice.board().to_string(),
            bonuses: (!practice.bonuses().is_empty())
                .then(|| practice.bonuses().text(practice.board())),
            secs: secs.as_secs_f64(),
            rules: practice.rules().kind().name(),
            min_len: practice.rules().min_len(),
            seed,
            score: summary.score,
            max_score: summary.max_score,
            found: &summary.found,
            missed: &summary.missed,
        };
        super::outln!("{}", serde_json::to_string(&json)?)?;
    }
    if interrupted {
        return Err(super::Interrupted.into());
    }
    Ok(())
}

/// The board to practise on: typed, read from a screenshot, or rolled (with its seed).
fn chosen_board(args: &PracticeArgs) -> anyhow::Result<(Board, Bonuses, Option<u64>)> {
    let (board, read_bonuses, seed) = if let Some(text) = &args.board {
        (game_board(text)?, None, None)
    } else if let Some(path) = &args.image {
        let img = load_image(path)?;
        let reading = read::read(&img, None, &classifier_for(None)?)
            .map_err(|e| NotSure(format!("{}: {e}", path.display())))?;
        if !reading.sure() {
            return Err(NotSure(format!(
                "{}: the board is not read surely (not sure of {}): give it with --board",
                path.display(),
                scramblebot::play::unsure_text(&reading)
            ))
            .into());
        }
        (reading.board(), Some(reading.bonuses()), None)
    } else {
        let seed = args.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64 % 1_000_000)
        });
        let tiles = roll_dice(&mut Rng::new(seed));
        let board = Board::from_tiles(&tiles).map_err(bad)?;
        (board, None, Some(seed))
    };
    let bonuses = match (&args.bonus, read_bonuses) {
        (Some(text), _) => Bonuses::parse(text, &board).map_err(bad)?,
        (None, Some(read)) => read,
        (None, None) => Bonuses::none(),
    };
    Ok((board, bonuses, seed))
}

/// "board RBEN/STLA/EOUO/NCAQu (seed 42), scramble rules, words of 2+ letters, 120 s".
fn heading(practice: &Practice, seed: Option<u64>) -> String {
    let bonuses = practice.bonuses();
    format!(
        "board {}{}{}, {} rules, words of {}+ letters, {} s",
        practice.board(),
        if bonuses.is_empty() {
            String::new()
        } else {
            format!(" with {}", bonuses.text(practice.board()))
        },
        seed.map(|s| format!(" (seed {s})")).unwrap_or_default(),
        practice.rules().kind().name(),
        practice.rules().min_len(),
        practice.secs().as_secs_f64()
    )
}

/// Stdin piped: a word a line, each judged on a line of its own, until the input ends or the
/// practice's time is up. A line longer than any word is skipped, never held whole (endless
/// input, `< /dev/zero`, stays in a few bytes).
fn piped(
    practice: &mut Practice,
    trie: &scramblebot::Trie,
    seed: Option<u64>,
) -> anyhow::Result<()> {
    super::errln!("practice: {}; one word a line", heading(practice, seed));
    let started = Instant::now();
    let mut out = std::io::stdout().lock();
    let mut input = std::io::stdin().lock();
    let secs = practice.secs();
    let time_up = || started.elapsed() >= secs;
    loop {
        // Bytes that are not text make a line the trainer does not understand, not the end
        // of the session.
        let line = match bounded_line(&mut input, MAX_LINE, &time_up)? {
            PipedLine::End => return Ok(()),
            PipedLine::TimeUp => {
                super::errln!("time is up: the rest of the input is not read");
                return Ok(());
            }
            PipedLine::TooLong => {
                writeln!(out, "(a line of over {MAX_LINE} bytes: skipped)")?;
                continue;
            }
            PipedLine::Text(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        };
        if line.trim().is_empty() {
            continue;
        }
        let verdict = practice.submit(&line, started.elapsed(), trie);
        writeln!(out, "{}: {}", line.trim(), verdict.describe())?;
    }
}

/// The longest line of piped input judged: far past any word on a board.
const MAX_LINE: usize = 64;

/// One line of piped input, read with a bound.
#[derive(Debug, PartialEq)]
enum PipedLine {
    Text(Vec<u8>),
    /// Longer than the bound: read to its end and dropped.
    TooLong,
    End,
    TimeUp,
}

/// The next line of `input` (without its newline) of at most `max` bytes; a longer one is
/// read past, its bytes dropped as they come. `time_up` is asked between reads: a line that
/// never ends does not hold the session past its time.
fn bounded_line(
    input: &mut impl std::io::BufRead,
    max: usize,
    time_up: &impl Fn() -> bool,
) -> std::io::Result<PipedLine> {
    let (mut line, mut too_long, mut any) = (Vec::new(), false, false);
    loop {
        if time_up() {
            return Ok(PipedLine::TimeUp);
        }
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => PipedLine::End,
                (true, true) => PipedLine::TooLong,
                (true, false) => PipedLine::Text(line),
            });
        }
        any = true;
        let (part, ended) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if !too_long && line.len() + part.len() <= max {
            line.extend_from_slice(part);
        } else {
            too_long = true;
            line.clear();
        }
        let used = ended.unwrap_or(buf.len());
        input.consume(used);
        if ended.is_some() {
            return Ok(if too_long {
                PipedLine::TooLong
            } else {
                PipedLine::Text(line)
            });
        }
    }
}

/// The summary people read after a practice, on stdout.
fn print_summary(practice: &Practice, summary: &Summary) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let all = practice.words().len();
    writeln!(
        out,
        "score {} of {} points; {} of {all} words found",
        summary.score,
        summary.max_score,
        summary.found.len()
    )?;
    if !summary.missed.is_empty() {
        writeln!(out, "missed, longest first ({}):", summary.missed.len())?;
        for w in &summary.missed {
            writeln!(out, "  {:<16} {:>3}", w.word, w.points)?;
        }
    }
    Ok(())
}

/// What the trainer shows besides the session.
struct Screen {
    input: String,
    /// The last word judged and its verdict.
    last: Option<(String, Verdict)>,
    /// An accepted word's path, shown on the board until then.
    flash: Option<(Vec<[usize; 2]>, Instant)>,
    /// Once time is up: the words missed, and the one selected.
    missed: Option<(ListState, Vec<Word>)>,
    heading: String,
}

/// How long an accepted word's path stays on the board.
const FLASH: Duration = Duration::from_millis(1200);
/// How often the clock is redrawn while no key comes.
const TICK: Duration = Duration::from_millis(200);
/// The longest word the input line takes.
const MAX_INPUT: usize = 24;

/// The full-screen trainer; true when it was ended with Ctrl-C.
fn trainer(
    practice: &mut Practice,
    trie: &scramblebot::Trie,
    seed: Option<u64>,
) -> anyhow::Result<bool> {
    let mut terminal = ratatui::init();
    let result = trainer_loop(&mut terminal, practice, trie, seed);
    ratatui::restore();
    result
}

fn trainer_loop(
    terminal: &mut ratatui::DefaultTerminal,
    practice: &mut Practice,
    trie: &scramblebot::Trie,
    seed: Option<u64>,
) -> anyhow::Result<bool> {
    let started = Instant::now();
    let mut screen = Screen {
        input: String::new(),
        last: None,
        flash: None,
        missed: None,
        heading: heading(practice, seed),
    };
    // Once time is up (or Esc), the clock stops where it was.
    let mut ended_at: Option<Duration> = None;
    loop {
        let now = ended_at.unwrap_or_else(|| started.elapsed());
        if ended_at.is_none() && practice.over(now) {
            ended_at = Some(now);
        }
        if ended_at.is_some() && screen.missed.is_none() {
            let missed = practice.summary().missed;
            screen.missed = Some((ListState::default().with_selected(Some(0)), missed));
        }
        terminal.draw(|f| draw(f, practice, &screen, now))?;
        if !event::poll(TICK)? {
            continue;
        }
        let Event::Key(key) = event::read()? else {
            continue; // a resize: drawn again at the top of the loop
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Ok(true);
        }
        match &mut screen.missed {
            None => match key.code {
                KeyCode::Esc => ended_at = Some(started.elapsed()),
                _ => typing(key, practice, trie, &mut screen, started.elapsed()),
            },
            Some((list, _)) => match key.code {
                KeyCode::Esc | KeyCode::Enter | KeyCode::Char('q') => return Ok(false),
                KeyCode::Down => list.select_next(),
                KeyCode::Up => list.select_previous(),
                KeyCode::PageDown => list.scroll_down_by(10),
                KeyCode::PageUp => list.scroll_up_by(10),
                KeyCode::Home => list.select_first(),
                KeyCode::End => list.select_last(),
                _ => {}
            },
        }
    }
}

/// A key while the clock runs: letters, Backspace, Enter to judge.
fn typing(
    key: KeyEvent,
    practice: &mut Practice,
    trie: &scramblebot::Trie,
    screen: &mut Screen,
    now: Duration,
) {
    match key.code {
        KeyCode::Char(c) if c.is_ascii_alphabetic() && screen.input.len() < MAX_INPUT => {
            screen.input.push(c.to_ascii_lowercase());
        }
        KeyCode::Backspace => {
            screen.input.pop();
        }
        KeyCode::Enter if !screen.input.is_empty() => {
            let word = std::mem::take(&mut screen.input);
            let verdict = practice.submit(&word, now, trie);
            if let Verdict::Accepted(w) = &verdict {
                screen.flash = Some((w.path.clone(), Instant::now()));
            }
            screen.last = Some((word, verdict));
        }
        _ => {}
    }
}

fn draw(f: &mut ratatui::Frame, practice: &Practice, screen: &Screen, now: Duration) {
    let area = f.area();
    // The board is 30 columns by 14 rows; the words want some room beside it.
    if area.width < 60 || area.height < 19 {
        f.render_widget(
            Paragraph::new("The terminal is too small for the trainer: 60x19 at least.")
                .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let [top, body, bottom] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(14),
        Constraint::Length(4),
    ])
    .areas(area);
    let [left, right] =
        Layout::horizontal([Constraint::Length(32), Constraint::Min(20)]).areas(body);
    f.render_widget(
        Paragraph::new(format!("scramblebot practice: {}", screen.heading))
            .style(Style::new().add_modifier(Modifier::BOLD)),
        top,
    );
    let path: &[[usize; 2]] = match &screen.missed {
        Some((list, missed)) => list
            .selected()
            .and_then(|i| missed.get(i))
            .map_or(&[], |w| w.path.as_slice()),
        None => screen
            .flash
            .as_ref()
            .filter(|(_, at)| at.elapsed() < FLASH)
            .map_or(&[], |(p, _)| p.as_slice()),
    };
    f.render_widget(board_widget(practice, path), left);
    match &screen.missed {
        None => playing(f, practice, screen, now, right, bottom),
        Some((list, missed)) => over(f, practice, list, missed, right, bottom),
    }
}

/// The board, four tiles of 7x3 cells a row; the tiles of `path` lit, numbered in order, and
/// bonus tiles named in their top edge.
fn board_widget(practice: &Practice, path: &[[usize; 2]]) -> Paragraph<'static> {
    let board = practice.board();
    let side = board.side();
    let mut lines: Vec<Line> = Vec::new();
    for r in 0..side {
        let mut rows: [Vec<Span>; 3] = Default::default();
        for c in 0..side {
            let i = r * side + c;
            let step = path.iter().position(|&p| p == [r, c]);
            let style = match step {
                Some(0) => Style::new().fg(Color::Black).bg(Color::LightGreen),
                Some(_) => Style::new().fg(Color::Black).bg(Color::Yellow),
                None => Style::new(),
            };
            let badge = practice
                .bonuses()
                .at(i)
                .map(|b| b.to_string())
                .unwrap_or_default();
            let name = tile_name(board.tiles()[i]);
            let top = format!("╭{badge:─<5}╮");
            let middle = format!("│{name:^5}│");
            let bottom = match step {
                Some(n) => format!("╰{:─^5}╯", n + 1),
                None => "╰─────╯".to_owned(),
            };
            rows[0].push(Span::styled(top, style));
            rows[1].push(Span::styled(middle, style.add_modifier(Modifier::BOLD)));
            rows[2].push(Span::styled(bottom, style));
        }
        lines.extend(rows.into_iter().map(Line::from));
    }
    Paragraph::new(Text::from(lines)).block(Block::bordered().title(" board "))
}

/// "1:05".
fn clock(d: Duration) -> String {
    let s = d.as_secs_f64().ceil() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

/// While the clock runs: the clock and score, the words found (newest first), the input line
/// and the last verdict.
fn playing(
    f: &mut ratatui::Frame,
    practice: &Practice,
    screen: &Screen,
    now: Duration,
    right: Rect,
    bottom: Rect,
) {
    let found: Vec<&Word> = practice.found().collect();
    let status = format!(
        "time {}   score {}\nfound {} of {} words",
        clock(practice.left(now)),
        practice.score(),
        found.len(),
        practice.words().len()
    );
    let items: Vec<ListItem> = found
        .iter()
        .rev()
        .map(|w| ListItem::new(format!("{:<16} {:>3}", w.word, w.points)))
        .collect();
    let [status_area, list_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(right);
    f.render_widget(
        Paragraph::new(status).style(Style::new().add_modifier(Modifier::BOLD)),
        status_area,
    );
    f.render_widget(
        List::new(items).block(Block::bordered().title(" found ")),
        list_area,
    );
    let verdict = match &screen.last {
        Some((word, v)) => {
            let colour = if matches!(v, Verdict::Accepted(_)) {
                Color::Green
            } else {
                Color::Red
            };
            Span::styled(format!("{word}: {}", v.describe()), Style::new().fg(colour))
        }
        None => Span::raw("type a word and Enter"),
    };
    let input = Text::from(vec![
        Line::from(format!("> {}_", screen.input)),
        Line::from(verdict),
    ]);
    f.render_widget(
        Paragraph::new(input).block(
            Block::bordered().title(" Enter: judge · Backspace · Esc: end now · Ctrl-C: quit "),
        ),
        bottom,
    );
}

/// Time is up: the score, and every missed word, longest first; the selected one's path is on
/// the board.
fn over(
    f: &mut ratatui::Frame,
    practice: &Practice,
    list: &ListState,
    missed: &[Word],
    right: Rect,
    bottom: Rect,
) {
    let status = format!(
        "time is up: score {} of {} points\n{} of {} words found",
        practice.score(),
        practice.max_score(),
        practice.found().len(),
        practice.words().len()
    );
    let [status_area, list_area] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(right);
    f.render_widget(
        Paragraph::new(status).style(Style::new().add_modifier(Modifier::BOLD)),
        status_area,
    );
    let items: Vec<ListItem> = missed
        .iter()
        .map(|w| ListItem::new(format!("{:<16} {:>3}", w.word, w.points)))
        .collect();
    let mut state = *list;
    f.render_stateful_widget(
        List::new(items)
            .block(Block::bordered().title(format!(" missed ({}) ", missed.len())))
            .highlight_style(Style::new().add_modifier(Modifier::REVERSED))
            .highlight_symbol("> "),
        list_area,
        &mut state,
    );
    f.render_widget(
        Paragraph::new(
            "↑↓ PgUp PgDn Home End: a missed word's path on the board\nq or Enter: done",
        )
        .block(Block::bordered()),
        bottom,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn piped_lines_are_bounded_and_an_endless_one_ends_with_the_time() {
        let never = || false;
        let mut input = std::io::Cursor::new(b"cat\n\nlong-long-long\nend".to_vec());
        let mut lines = Vec::new();
        loop {
            match bounded_line(&mut input, 8, &never).unwrap() {
                PipedLine::End => break,
                l => lines.push(l),
            }
        }
        assert_eq!(
            lines,
            [
                PipedLine::Text(b"cat".to_vec()),
                PipedLine::Text(Vec::new()),
                PipedLine::TooLong,
                PipedLine::Text(b"end".to_vec()),
            ]
        );
        // A line with no end (stdin from /dev/zero) is dropped as it comes, and the session's
        // time ends it.
        let reads = std::cell::Cell::new(0);
        let up = || {
            reads.set(reads.get() + 1);
            reads.get() > 1000
        };
        let mut zeros = std::io::BufReader::with_capacity(4096, std::io::repeat(0));
        assert_eq!(bounded_line(&mut zeros, 8, &up).unwrap(), PipedLine::TimeUp);
    }
}
