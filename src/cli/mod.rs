//! The command line: one file per command, each turning its flags into library calls and
//! printing the result (a summary for people, a typed struct as JSON for scripts). This file
//! holds what several commands share: the top-level parser, the shared flags and their
//! conversions into library types, the errors that choose the exit code, and small helpers.
//! Workflows (seeing a board, playing a round, calibrating) live in the library.

mod bench;
mod calibrate;
mod daemon;
mod demo;
mod headers;
mod history;
mod pace;
mod play;
mod practice;
mod read;
mod sim;
mod solve;
mod words;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use scramblebot::board::Board;
use scramblebot::profile::{Profile, Route};
use scramblebot::{Order, RulesKind};

/// A bot for Boggle-style phone word games (Scramble With Friends): it solves a 4x4 board with
/// a trie and enters every word on an Android phone over ADB.
#[derive(Parser, Debug)]
#[command(name = "scramblebot", version, propagate_version = true)]
pub struct Cli {
    /// Log more (-v info, -vv debug, -vvv trace) on stderr.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Find every word on a board, with its points and the path to swipe.
    ///
    /// The board is typed row by row, in any case: `lqreslusaticnren` (a lone q is the Qu
    /// tile), `l qu r e s l u s a t i c n r e n`, or `LQuRE/SLUS/ATIC/NREN`. Boards of 3x3 to
    /// 6x6 are accepted.
    Solve(solve::SolveArgs),
    /// Measure solver throughput (boards per second, one thread) on seeded board sets.
    Bench(bench::BenchArgs),
    /// Run a virtual phone: a simulated Android device playing a round of the game, that the
    /// real `adb` and adb_client can drive (`adb connect 127.0.0.1:5555`).
    ///
    /// It listens on loopback only, referees every touch, and writes what it saw to the
    /// report file after every stroke and when stopped (Ctrl-C or SIGTERM).
    Sim(sim::SimArgs),
    /// Play one round against the built-in virtual phone: start it on a free loopback port,
    /// connect over ADB (TCP), read its board on the screen, solve it, enter every word by the
    /// fastest route, tapping Freeze on schedule, and print what the game's referee saw. Needs
    /// no phone and no adb.
    Demo(demo::DemoArgs),
    /// Play a round on a phone through the adb server: connect, read the board on the screen
    /// (or take it from --board), solve it, enter every word as one swipe (longest first),
    /// tapping Freeze every 30 s of round time.
    ///
    /// A board not read surely is never played: the screenshot is saved, what was read is
    /// shown, and the letters are asked for on the terminal (exit code 3 without one).
    Play(play::PlayArgs),
    /// Make a profile for a new phone from a screenshot of a round in progress: find the grid
    /// and the lifeline buttons under it, probe the input routes, and write DIR/NAME.toml with
    /// an overlay picture of what was found, to check at a glance.
    Calibrate(calibrate::CalibrateArgs),
    /// Play every round on every attached phone that has a profile, unattended: follow the
    /// adb server's phones, read each board, enter its words, wait for the next round, and
    /// keep a history of every round. Ctrl-C or SIGTERM stops it (the finger lifted).
    Daemon(daemon::DaemonArgs),
    /// The daemon's rounds summed up per phone and overall, from its history (or, with
    /// --practice, your practices).
    History(history::HistoryArgs),
    /// Practise against the clock: a board (rolled with the game's dice, typed, or read from a
    /// screenshot), an input line that judges each word at once, and when time is up every
    /// word you missed, longest first, its path drawn on the board. With stdin piped, one
    /// word a line is judged and printed.
    Practice(practice::PracticeArgs),
    /// Read the board on a screenshot (PNG, JPEG or a raw `screencap` dump): the 16 tiles with
    /// their confidence, the bonus badges, and where the grid is. Exit code 3 when the screen
    /// is not a board or a tile is not read surely.
    Read(read::ReadArgs),
    /// The words each game refused: entered again alone and unhurried, its score did not
    /// move. They are kept per game and never entered on it again (--forget takes some back).
    Words(words::WordsArgs),
}

/// `println!` that hands back the write's error instead of panicking: output into a closed
/// pipe (`scramblebot read ... | head -c 100`) ends the command quietly (`main` takes a
/// broken pipe for success).
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout(), $($arg)*)
    }};
}
pub(crate) use outln;

/// `eprintln!` that never panics: a line for a person whose stderr has gone (`scramblebot
/// demo 2>&1 | head -1`) is dropped, and the command goes on. `eprintln!` panicked there,
/// mid-round as readily as before it, and a daemon's panicked signal task left it deaf to
/// SIGTERM.
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}
pub(crate) use errln;

/// `errln!` without the line's end (a prompt).
macro_rules! errs {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut err = std::io::stderr();
        let _ = write!(err, $($arg)*);
        let _ = err.flush();
    }};
}
pub(crate) use errs;

/// Runs the command.
pub fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Solve(a) => solve::run(a),
        Command::Bench(a) => bench::run(a),
        Command::Sim(a) => sim::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Play(a) => play::run(a),
        Command::Read(a) => read::run(a),
        Command::Calibrate(a) => calibrate::run(a),
        Command::Daemon(a) => daemon::run(a),
        Command::History(a) => history::run(a),
        Command::Practice(a) => practice::run(a),
        Command::Words(a) => words::run(a),
    }
}

/// Which adb server (`play`, `calibrate`, `daemon`).
#[derive(clap::Args, Debug)]
pub struct ServerArgs {
    /// Host of the adb server.
    #[arg(short = 'H', long = "host", default_value = "127.0.0.1")]
    pub host: String,
    /// Port of the adb server.
    #[arg(
        short = 'P',
        long = "port",
        env = "ANDROID_ADB_SERVER_PORT",
        hide_env_values = true,
        default_value_t = 5037
    )]
    pub port: u16,
}

impl ServerArgs {
    fn addr(&self) -> Result<std::net::SocketAddrV4, BadInput> {
        server_addr(&self.host, self.port)
    }
}

/// Which phone, through which adb server (`play` and `calibrate`).
#[derive(clap::Args, Debug)]
pub struct PhoneArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Serial of the phone to use (default: the only one attached).
    #[arg(
        short = 's',
        long = "serial",
        env = "ANDROID_SERIAL",
        hide_env_values = true
    )]
    pub serial: Option<String>,
    /// First ask the adb server to connect this TCP phone (as `adb connect HOST:PORT`).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
}

impl PhoneArgs {
    fn options(&self) -> Result<scramblebot::phone::ServerOptions, BadInput> {
        Ok(scramblebot::phone::ServerOptions {
            server: self.server.addr()?,
            serial: self.serial.clone(),
            connect: self
                .connect
                .as_deref()
                .map(|c| phone_addr("--connect", c))
                .transpose()?,
        })
    }
}

/// How a round is played and reported (`play` and `demo`).
#[derive(clap::Args, Debug)]
pub struct RoundArgs {
    /// Word order: longest first (then points), or most points first.
    #[arg(long, value_enum, default_value_t = OrderArg::Longest)]
    pub order: OrderArg,
    /// Print one JSON object at the end instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// No progress bar and no notes on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// How to enter words, instead of the profile's `input.route`.
    #[arg(long, value_enum)]
    pub route: Option<RouteArg>,
}

impl RoundArgs {
    /// A progress line only for a person watching a terminal.
    fn show_progress(&self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && !self.json && std::io::stderr().is_terminal()
    }

    /// Notes on stderr (what was read, which route) unless quiet or JSON.
    fn talk(&self) -> bool {
        !self.quiet && !self.json
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum RouteArg {
    /// Probe the phone and use the fastest route that works.
    Auto,
    /// The monkey's network protocol on a forwarded socket (every Android version).
    Monkey,
    /// `input motionevent`, a shell command per word (Android 10 and later).
    Motionevent,
    /// `sendevent` to the touchscreen in raw units (Android 9 and older).
    Sendevent,
    /// Tap each tile, then the last one again.
    Tap,
}

impl From<RouteArg> for Route {
    fn from(r: RouteArg) -> Route {
        match r {
            RouteArg::Auto => Route::Auto,
            RouteArg::Monkey => Route::Monkey,
            RouteArg::Motionevent => Route::Motionevent,
            RouteArg::Sendevent => Route::Sendevent,
            RouteArg::Tap => Route::Tap,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum ModelArg {
    Nexus7,
    Pixel,
    Small,
}

impl From<ModelArg> for scramblebot::sim::Model {
    fn from(m: ModelArg) -> scramblebot::sim::Model {
        use scramblebot::sim::Model;
        match m {
            ModelArg::Nexus7 => Model::Nexus7,
            ModelArg::Pixel => Model::Pixel,
            ModelArg::Small => Model::Small,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum OrderArg {
    Longest,
    Score,
}

impl From<OrderArg> for Order {
    fn from(o: OrderArg) -> Order {
        match o {
            OrderArg::Longest => Order::Longest,
            OrderArg::Score => Order::Score,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum RulesArg {
    Scramble,
    Boggle,
}

impl From<RulesArg> for RulesKind {
    fn from(r: RulesArg) -> RulesKind {
        match r {
            RulesArg::Scramble => RulesKind::Scramble,
            RulesArg::Boggle => RulesKind::Boggle,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct DictArgs {
    /// Word list to use instead of the built-in ENABLE: one word per line, any case, LF or
    /// CRLF; lines that are not a-z words are skipped and counted.
    #[arg(long, value_name = "PATH")]
    pub dict: Option<PathBuf>,
}

/// The dictionary a command uses, with what to tell the user about it.
struct Dictionary {
    trie: scramblebot::Trie,
    name: String,
    load_us: u64,
}

fn load_dictionary(args: &DictArgs) -> anyhow::Result<Dictionary> {
    use scramblebot::Trie;
    let start = std::time::Instant::now();
    let (trie, name) = match &args.dict {
        None => (Trie::enable(), "ENABLE (built in)".to_owned()),
        // A list that holds no word is bad input (exit 2); one that cannot be read is a
        // failure with its cause (exit 1), as any file.
        Some(path) => (
            Trie::load(path).map_err(|e| match e {
                e @ scramblebot::dict::DictError::NoWords { .. } => BadInput(e.into()).into(),
                e => anyhow::Error::from(e),
            })?,
            path.display().to_string(),
        ),
    };
    let c = trie.counts();
    if c.invalid + c.unplayable + c.duplicates > 0 {
        tracing::info!(
            invalid = c.invalid,
            unplayable = c.unplayable,
            duplicates = c.duplicates,
            "skipped lines of {name}"
        );
    }
    Ok(Dictionary {
        trie,
        name,
        load_us: micros(start.elapsed()),
    })
}

/// Whole microseconds.
fn micros(d: Duration) -> u64 {
    d.as_micros().try_into().unwrap_or(u64::MAX)
}

/// A duration given in (fractional) milliseconds on flag `what`, checked (said in the
/// flag's own unit).
fn millis(what: &str, ms: f64, min: f64) -> Result<Duration, BadInput> {
    if !(ms.is_finite() && ms >= min && ms <= 86_400_000.0) {
        return Err(BadInput(anyhow::anyhow!(
            "{what} must be between {min} and 86400000 milliseconds, got {ms}"
        )));
    }
    Ok(Duration::from_secs_f64(ms / 1000.0))
}

/// A duration given in (fractional) seconds on flag `what`, checked.
fn seconds(what: &str, secs: f64, min: f64) -> Result<Duration, BadInput> {
    if !(secs.is_finite() && secs >= min && secs <= 86_400.0) {
        // A number of hundreds of digits is said in a few.
        let got = if secs.abs() < 1e9 {
            format!("{secs}")
        } else {
            format!("{secs:e}")
        };
        return Err(BadInput(anyhow::anyhow!(
            "{what} must be between {min} and 86400 seconds, got {got}"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// The adb server's address from `-H HOST` and `-P PORT`: IPv4 (a name is looked up).
fn server_addr(host: &str, port: u16) -> Result<std::net::SocketAddrV4, BadInput> {
    use std::net::ToSocketAddrs;
    (host, port)
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| {
            a.find_map(|a| match a {
                std::net::SocketAddr::V4(v4) => Some(v4),
                _ => None,
            })
        })
        .ok_or_else(|| BadInput(anyhow::anyhow!("-H {host:?} is not HOST:PORT")))
}

/// A TCP phone's address as `adb connect` takes it: `HOST:PORT`, the host a name, an IPv4
/// address or an IPv6 one in brackets (`[::1]:5555`); a name is looked up, IPv4 first.
fn phone_addr(what: &str, text: &str) -> Result<std::net::SocketAddr, BadInput> {
    use std::net::ToSocketAddrs;
    let found: Vec<std::net::SocketAddr> = text
        .to_socket_addrs()
        .map_err(|_| {
            BadInput(anyhow::anyhow!(
                "{what} {text:?} is not HOST:PORT (an IPv6 address goes in brackets: [::1]:5555)"
            ))
        })?
        .collect();
    found
        .iter()
        .find(|a| a.is_ipv4())
        .or(found.first())
        .copied()
        .ok_or_else(|| BadInput(anyhow::anyhow!("{what} {text:?}: no address found")))
}

/// A screenshot file (PNG, JPEG or raw screencap); a file that cannot be read or decoded is
/// the user's to fix.
fn load_image(path: &std::path::Path) -> Result<image::RgbaImage, BadInput> {
    use anyhow::Context;
    let bytes = scramblebot::files::read(path, scramblebot::files::Kind::Screenshot)
        .with_context(|| format!("cannot read {}", path.display()))
        .map_err(BadInput)?;
    scramblebot::vision::decode(&bytes)
        .with_context(|| path.display().to_string())
        .map_err(BadInput)
}

/// A 4x4 board as `solve` takes it.
fn game_board(text: &str) -> Result<Board, BadInput> {
    let board = Board::parse(text.trim()).map_err(bad)?;
    if board.side() != 4 {
        let side = board.side();
        return Err(BadInput(anyhow::anyhow!(
            "the game's board is 4x4, got {side}x{side}"
        )));
    }
    Ok(board)
}

/// The board typed on the terminal, when there is one.
fn typed_board() -> Result<Board, BadInput> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return Err(BadInput(anyhow::anyhow!(
            "no --board given and stdin is not a terminal to type it on"
        )));
    }
    errs!("the 16 letters of the board, row by row: ");
    let mut line = String::new();
    std::io::stdin()
        .read_line(&mut line)
        .map_err(|e| BadInput(e.into()))?;
    game_board(&line)
}

/// Connects to the phone through the adb server, with the flags that fix a refusal.
async fn connect(
    opts: &scramblebot::phone::ServerOptions,
) -> anyhow::Result<scramblebot::phone::Phone> {
    use scramblebot::phone::{Phone, PhoneError};
    Phone::connect_server(opts).await.map_err(|e| match e {
        e @ PhoneError::NoDevice => {
            anyhow::anyhow!("{e} (plug one in, or --connect HOST:PORT)")
        }
        e @ PhoneError::SeveralDevices { .. } => {
            anyhow::anyhow!("{e}: pick one with -s SERIAL or ANDROID_SERIAL")
        }
        e => e.into(),
    })
}

/// Runs `work` to its end on the runtime a round runs on (the round loop, the phone's I/O,
/// the Ctrl-C watcher), then leaves behind whatever blocking call is still running. An
/// adb_client call past its timeout cannot be cancelled (`phone::blocking` abandons it on its
/// thread), and dropping the runtime would wait for it: a phone that went silent mid-call
/// kept `play` from ever saying its error and exiting.
fn on_round_runtime<F: std::future::Future>(work: F) -> std::io::Result<F::Output> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let out = runtime.block_on(work);
    runtime.shutdown_timeout(ABANDON_AFTER);
    Ok(out)
}

/// How long the blocking calls still running when a command's work is done are waited for
/// before the process goes on without them. None of them keeps anything of ours: they are
/// adb calls given up on, screen reads and a line being typed.
const ABANDON_AFTER: std::time::Duration = std::time::Duration::from_millis(500);

/// A stop signal that turns true on Ctrl-C (call inside the runtime).
fn ctrl_c_stops() -> tokio::sync::watch::Receiver<bool> {
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = stop_tx.send(true);
        }
    });
    stop
}

/// When this process started (main touches it first).
pub static START: std::sync::LazyLock<std::time::Instant> =
    std::sync::LazyLock::new(std::time::Instant::now);

/// The user's config directory: $XDG_CONFIG_HOME/scramblebot, or ~/.config/scramblebot.
fn config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|d| d.join("scramblebot"))
}

/// The profile named by `--device NAME` or `--profile FILE`, if either is given.
fn chosen_profile(
    device: Option<&str>,
    file: Option<&std::path::Path>,
) -> anyhow::Result<Option<Profile>> {
    Ok(match (device, file) {
        (_, Some(path)) => Some(Profile::load(path).map_err(bad)?),
        (Some(name), None) => {
            let cwd = std::env::current_dir()?;
            let config = config_dir();
            let found = Profile::find(name, &cwd, config.as_deref());
            Some(found.map_err(|e| match e.line {
                // Not a profile's refusal but the name's: the flag that takes a file instead.
                None if !Profile::valid_name(name) => {
                    BadInput(anyhow::anyhow!("{e}; or give a file with --profile"))
                }
                _ => bad(e),
            })?)
        }
        (None, None) => None,
    })
}

/// The board reader for a profile; a glyph strip that cannot be used is the user's to fix.
fn classifier_for(
    profile: Option<&Profile>,
) -> anyhow::Result<scramblebot::vision::glyph::Classifier> {
    use scramblebot::play::{self, PlayError};
    play::classifier_for(profile).map_err(|e| match e {
        e @ PlayError::Templates { .. } => BadInput(e.into()).into(),
        e => e.into(),
    })
}

/// A round the phone cut short is a failure (exit 1), one the user stopped an interruption
/// (exit 130, as for any program stopped with Ctrl-C); both reported after its summary.
fn failed(outcome: &scramblebot::play::RoundOutcome) -> anyhow::Result<()> {
    use scramblebot::play::Stop;
    match (&outcome.error, outcome.stop) {
        (Some(e), _) => Err(anyhow::anyhow!(
            "the round stopped after {} of {} words: {e}",
            outcome.words_entered,
            outcome.words_planned
        )),
        (None, Stop::Stopped) => Err(Interrupted.into()),
        (None, _) => Ok(()),
    }
}

/// A progress bar for a round's words, hidden unless a person watches.
fn words_bar(show: bool, words: usize) -> indicatif::ProgressBar {
    let bar = if show {
        indicatif::ProgressBar::new(words as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} words  {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// What a round's events show a person: notes on stderr, progress on the bar.
fn show_event(round: &RoundArgs, bar: &indicatif::ProgressBar, event: scramblebot::play::Event) {
    use scramblebot::play::Event;
    match event {
        Event::Note(line) if round.talk() => errln!("{line}"),
        Event::Note(_) => {}
        Event::Waiting { n, look } => {
            bar.set_message(match &look.reading {
                Ok(_) => format!("look {n}: a board, not read surely yet"),
                Err(e) => format!("look {n}: {e}"),
            });
            bar.tick();
        }
        Event::Progress(p) => {
            bar.set_length(p.planned as u64);
            bar.set_position(p.entered as u64);
            bar.set_message(format!(
                "{}  {}:{:02} left",
                points_text(p.points, p.points_seen),
                p.left.as_secs() / 60,
                p.left.as_secs() % 60
            ));
        }
    }
}

/// Points for a live line: what the game shows beside what was entered, when its score is
/// read ("412 shown, 498 entered"); else the points entered, said to be so.
fn points_text(entered: u32, seen: Option<u32>) -> String {
    match seen {
        Some(seen) => format!("{seen} shown, {entered} entered"),
        None => format!("{entered} points entered"),
    }
}

/// Prints a typed summary as pretty JSON on stdout.
fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    outln!("{}", serde_json::to_string_pretty(value)?)?;
    Ok(())
}

/// The user stopped the round (Ctrl-C); the finger was lifted.
#[derive(Debug, thiserror::Error)]
#[error("stopped by the user; the finger is lifted")]
pub struct Interrupted;

/// The screen is not a board, or not surely read (exit code 3).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NotSure(pub String);

/// A user's mistake in what they typed (exit code 2), as opposed to a failure (exit code 1).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct BadInput(#[from] pub anyhow::Error);

fn bad<E: std::error::Error + Send + Sync + 'static>(e: E) -> BadInput {
    BadInput(anyhow::Error::new(e))
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations_out_of_range_are_said_plainly() {
        let said = |secs: f64| {
            super::seconds("--time-left", secs, 0.0)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            said(-5.0),
            "--time-left must be between 0 and 86400 seconds, got -5"
        );
        assert_eq!(
            said(1e300),
            "--time-left must be between 0 and 86400 seconds, got 1e300"
        );
        // A negative number reaches that check instead of clap's "unexpected argument".
        use clap::Parser;
        let args = [
            "scramblebot",
            "play",
            "--device",
            "nexus7",
            "--time-left",
            "-5",
        ];
        let cli = super::Cli::try_parse_from(args);
        assert!(cli.is_ok(), "{:?}", cli.err());
    }

    #[test]
    fn a_phone_is_reached_by_ipv4_ipv6_or_name() {
        let addr = |text: &str| super::phone_addr("--connect", text);
        assert_eq!(
            addr("192.168.1.20:5555").unwrap(),
            "192.168.1.20:5555".parse().unwrap()
        );
        let v6 = addr("[::1]:5555").unwrap();
        assert!(v6.is_ipv6() && v6.port() == 5555, "{v6}");
        let named = addr("localhost:5037").unwrap();
        assert!(named.ip().is_loopback() && named.port() == 5037, "{named}");
        for bad in ["phone", "1.2.3.4:99999", "[::1]"] {
            let said = addr(bad).unwrap_err().to_string();
            assert!(said.contains("is not HOST:PORT"), "{bad}: {said}");
        }
    }

    #[test]
    fn the_help_names_the_adb_variables_without_an_empty_value() {
        use clap::CommandFactory;
        let mut cli = super::Cli::command();
        let play = cli.find_subcommand_mut("play").expect("play");
        let help = play.render_long_help().to_string();
        for name in ["ANDROID_ADB_SERVER_PORT", "ANDROID_SERIAL"] {
            assert!(help.contains(&format!("[env: {name}]")), "{help}");
            assert!(!help.contains(&format!("{name}=")), "{help}");
        }
    }
}
