//! The command line: clap types (their doc comments are the help text) and the commands that
//! turn parsed arguments into calls on the library and output for people or machines. Logic
//! that is not about arguments or output belongs in the library.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;

use clap::{Parser, Subcommand, ValueEnum};
use scramblebot::bench::{Built, Mode};
use scramblebot::board::tile_name;
use scramblebot::sample::BoardSet;
use scramblebot::structures::Structure;
use scramblebot::{Board, Bonuses, Order, Rules, RulesKind, Solver, Trie};

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
    Solve(SolveArgs),
    /// Measure solver throughput (boards per second, one thread) on seeded board sets.
    Bench(BenchArgs),
    /// Run a virtual phone: a simulated Android device playing a round of the game, that the
    /// real `adb` and adb_client can drive (`adb connect 127.0.0.1:5555`).
    ///
    /// It listens on loopback only, referees every touch, and writes what it saw to the
    /// report file after every stroke and when stopped (Ctrl-C or SIGTERM).
    Sim(SimArgs),
    /// Play one round against the built-in virtual phone: start it on a free loopback port,
    /// connect over ADB (TCP), read its board on the screen, solve it, enter every word by the
    /// fastest route, tapping Freeze on schedule, and print what the game's referee saw. Needs
    /// no phone and no adb.
    Demo(DemoArgs),
    /// Play a round on a phone through the adb server: connect, read the board on the screen
    /// (or take it from --board), solve it, enter every word as one swipe (longest first),
    /// tapping Freeze every 30 s of round time.
    ///
    /// A board not read surely is never played: the screenshot is saved, what was read is
    /// shown, and the letters are asked for on the terminal (exit code 3 without one).
    Play(PlayArgs),
    /// Make a profile for a new phone from a screenshot of a round in progress: find the grid
    /// and the lifeline buttons under it, probe the input routes, and write DIR/NAME.toml with
    /// an overlay picture of what was found, to check at a glance.
    Calibrate(CalibrateArgs),
    /// Read the board on a screenshot (PNG, JPEG or a raw `screencap` dump): the 16 tiles with
    /// their confidence, the bonus badges, and where the grid is. Exit code 3 when the screen
    /// is not a board or a tile is not read surely.
    Read(ReadArgs),
}

#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    /// The screenshot.
    pub image: PathBuf,
    /// Use this device profile's grid instead of searching for one (as `play --device`).
    #[arg(long, value_name = "NAME", conflicts_with = "profile")]
    pub device: Option<String>,
    /// Use this profile file's grid.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Device profile by name: ./devices/NAME.toml, then
    /// $XDG_CONFIG_HOME/scramblebot/devices/NAME.toml, then the built-in ones (nexus7, pixel,
    /// small).
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with = "profile",
        required_unless_present = "profile"
    )]
    pub device: Option<String>,
    /// Device profile file.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// The board, as `solve` takes it; without it, the board is read on the phone's screen.
    #[arg(long, value_name = "LETTERS")]
    pub board: Option<String>,
    /// Wait for a board to show on the screen (four looks a second), so that the bot can be
    /// started before the round.
    #[arg(long, conflicts_with = "board")]
    pub watch: bool,
    #[command(flatten)]
    pub phone: PhoneArgs,
    /// Seconds left on the game's clock now (default: the profile's whole round, as when the
    /// bot starts with the round). No word is started that would end after the clock.
    #[arg(long, value_name = "SECS")]
    pub time_left: Option<f64>,
    #[command(flatten)]
    pub round: RoundArgs,
}

/// Which phone, through which adb server (`play` and `calibrate`).
#[derive(clap::Args, Debug)]
pub struct PhoneArgs {
    /// Host of the adb server.
    #[arg(short = 'H', long = "host", default_value = "127.0.0.1")]
    pub host: String,
    /// Port of the adb server.
    #[arg(
        short = 'P',
        long = "port",
        env = "ANDROID_ADB_SERVER_PORT",
        default_value_t = 5037
    )]
    pub port: u16,
    /// Serial of the phone to use (default: the only one attached).
    #[arg(short = 's', long = "serial", env = "ANDROID_SERIAL")]
    pub serial: Option<String>,
    /// First ask the adb server to connect this TCP phone (as `adb connect HOST:PORT`).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
}

impl PhoneArgs {
    fn options(&self) -> Result<scramblebot::phone::ServerOptions, BadInput> {
        Ok(scramblebot::phone::ServerOptions {
            server: ipv4("-H", &self.host, Some(self.port))?,
            serial: self.serial.clone(),
            connect: self
                .connect
                .as_deref()
                .map(|c| ipv4("--connect", c, None))
                .transpose()?,
        })
    }
}

#[derive(clap::Args, Debug)]
pub struct CalibrateArgs {
    /// Name of the new profile (letters, digits, - and _): written as DIR/NAME.toml, and used
    /// as `play --device NAME`.
    #[arg(long)]
    pub name: String,
    /// Calibrate from this screenshot (PNG, JPEG or raw screencap) instead of a phone.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["serial", "connect"])]
    pub image: Option<PathBuf>,
    /// The board on the screenshot, as `solve` takes it: its glyphs are kept as the profile's
    /// templates, which the reader prefers (for games whose font it reads poorly).
    #[arg(long, value_name = "LETTERS")]
    pub board: Option<String>,
    /// Where Freeze is, in screen pixels, when it is not the first button under the grid.
    #[arg(long, value_name = "X,Y")]
    pub freeze: Option<String>,
    /// Ask for a tap on the Freeze button and take its place from the touchscreen
    /// (`getevent`), instead of guessing the first button under the grid. Tapping uses a
    /// Freeze of the round in progress.
    #[arg(long, conflicts_with_all = ["freeze", "image"])]
    pub tap: bool,
    /// How long `--tap` waits for the tap, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0, requires = "tap")]
    pub tap_wait: f64,
    /// Directory to write NAME.toml and NAME.overlay.png in.
    #[arg(long, value_name = "DIR", default_value = "devices")]
    pub dir: PathBuf,
    /// Replace an existing profile of that name.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub phone: PhoneArgs,
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

#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Which virtual phone to play on.
    #[arg(long, value_enum, default_value_t = ModelArg::Nexus7)]
    pub model: ModelArg,
    /// Seed of the board.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Length of the round in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECS")]
    pub round_secs: f64,
    /// Tap Freeze every this many seconds of round time.
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub freeze_every_secs: f64,
    /// Seconds one Freeze adds to the clock.
    #[arg(long, default_value_t = 15.0, value_name = "SECS")]
    pub freeze_secs: f64,
    #[command(flatten)]
    pub round: RoundArgs,
}

#[derive(clap::Args, Debug)]
pub struct SimArgs {
    /// Loopback port its adbd listens on (0 picks a free one).
    #[arg(long, default_value_t = 5555)]
    pub port: u16,
    /// Which phone to be: nexus7 (800x1280, Android 5.1), pixel (1080x2400, Android 13),
    /// small (480x800, Android 4.4).
    #[arg(long, value_enum, default_value_t = ModelArg::Nexus7)]
    pub model: ModelArg,
    /// The first round's board (16 letters, as `solve` takes them); default: rolled from
    /// the seed.
    #[arg(long, value_name = "LETTERS", conflicts_with = "seed")]
    pub board: Option<String>,
    /// Seed of the boards and bonus tiles.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Length of a round in seconds.
    #[arg(long, default_value_t = 120.0, value_name = "SECS")]
    pub round_secs: f64,
    /// Seconds one Freeze adds to the clock.
    #[arg(long, default_value_t = 15.0, value_name = "SECS")]
    pub freeze_secs: f64,
    /// Freezes allowed per round (default: unlimited).
    #[arg(long, value_name = "N")]
    pub freeze_uses: Option<u32>,
    /// The game's frame interval: it sees the latest touch sample of each frame.
    #[arg(long, default_value_t = 16.0, value_name = "MS")]
    pub frame_ms: f64,
    /// Start in the lobby (tap Play to start the round) instead of in a running round.
    #[arg(long)]
    pub lobby: bool,
    /// JSON report of every stroke, the score, freezes and violations.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum ModelArg {
    Nexus7,
    Pixel,
    Small,
}

#[derive(clap::Args, Debug)]
pub struct DictArgs {
    /// Word list to use instead of the built-in ENABLE: one word per line, any case, LF or
    /// CRLF; lines that are not a-z words are skipped and counted.
    #[arg(long, value_name = "PATH")]
    pub dict: Option<PathBuf>,
}

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

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// What to measure: the solver (default), or the board reader on a seeded corpus of
    /// screens drawn in typefaces it has no references for.
    #[arg(value_enum, default_value_t = BenchWhat::Solve)]
    pub what: BenchWhat,
    /// Screens in the vision corpus.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..))]
    pub screens: u64,
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
    /// Print JSON lines instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dict: DictArgs,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum BenchWhat {
    Solve,
    Vision,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum OrderArg {
    Longest,
    Score,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum RulesArg {
    Scramble,
    Boggle,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetArg {
    Uniform,
    Dice,
    Near,
    All,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeArg {
    Score,
    Full,
    Both,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum StructureArg {
    Trie,
    Sorted,
    Prefixes,
}

/// A duration given in (fractional) seconds, checked.
fn seconds(what: &str, secs: f64, min: f64) -> Result<Duration, BadInput> {
    if !(secs.is_finite() && secs >= min && secs <= 86_400.0) {
        return Err(BadInput(anyhow::anyhow!(
            "{what} must be between {min} and 86400 seconds, got {secs}"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

pub fn sim(args: SimArgs) -> anyhow::Result<()> {
    use scramblebot::sim::game::GameConfig;
    use scramblebot::sim::{Model, Sim, SimConfig};
    let model = match args.model {
        ModelArg::Nexus7 => Model::Nexus7,
        ModelArg::Pixel => Model::Pixel,
        ModelArg::Small => Model::Small,
    };
    let board = match &args.board {
        Some(text) => {
            let board = Board::parse(text).map_err(bad)?;
            if board.side() != 4 {
                let side = board.side();
                return Err(BadInput(anyhow::anyhow!(
                    "the game's board is 4x4, got {side}x{side}"
                ))
                .into());
            }
            Some(board)
        }
        None => None,
    };
    let config = SimConfig {
        model,
        game: GameConfig {
            board,
            seed: args.seed,
            round: seconds("--round-secs", args.round_secs, 1.0)?,
            freeze: seconds("--freeze-secs", args.freeze_secs, 0.0)?,
            freeze_uses: args.freeze_uses,
            frame: seconds("--frame-ms", args.frame_ms / 1000.0, 0.001)?,
            lobby: args.lobby,
        },
        report: args.report.clone(),
    };
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], args.port));
    let sim = Sim::start(addr, config)
        .with_context(|| format!("cannot listen on {addr} (is another phone or adb using it?)"))?;
    let addr = sim.addr();
    {
        let game = sim.device().game();
        let (_, name, _) = model.product();
        println!(
            "virtual {} ({name}, Android {}, sdk {}) listening on {addr}",
            model.name(),
            model.release(),
            model.sdk()
        );
        println!(
            "board {}  (screen: {:?}, round {} s)",
            game.board(),
            game.screen(),
            args.round_secs
        );
    }
    println!("connect:  adb connect {addr}   then   adb -s {addr} shell ...");
    if let Some(path) = &args.report {
        println!("report:   {}", path.display());
    }
    println!("touch:    type `tap X Y` (display pixels) and Enter here: a finger taps the screen");
    println!("stop with Ctrl-C");
    let _ = std::io::stdout().flush();
    // The screen under a finger: what a person does to a phone (`calibrate --tap` reads it).
    let device = std::sync::Arc::clone(sim.device());
    std::thread::Builder::new()
        .name("finger".into())
        .spawn(move || {
            for line in std::io::stdin().lines() {
                let Ok(line) = line else { break };
                let words: Vec<&str> = line.split_whitespace().collect();
                let at = match words.as_slice() {
                    ["tap", x, y] => x.parse::<f32>().ok().zip(y.parse::<f32>().ok()),
                    [] => continue,
                    _ => None,
                };
                let (w, h) = (device.layout().width, device.layout().height);
                match at {
                    Some((x, y))
                        if (0.0..w as f32).contains(&x) && (0.0..h as f32).contains(&y) =>
                    {
                        device.finger_tap((x, y), Duration::from_millis(80));
                        println!("tapped ({x}, {y})");
                    }
                    _ => eprintln!("not understood: {line:?} (tap X Y, inside {w}x{h})"),
                }
            }
        })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r,
            _ = term.recv() => Ok(()),
        }
    })?;
    sim.device().write_report();
    let report = sim.device().report();
    eprintln!(
        "stopped: score {} of {} possible, {} words, {} strokes, {} violations",
        report["score"],
        report["max_score"],
        report["words"],
        report["strokes"].as_array().map_or(0, Vec::len),
        report["violations"].as_array().map_or(0, Vec::len)
    );
    Ok(())
}

pub fn demo(args: DemoArgs) -> anyhow::Result<()> {
    use scramblebot::phone::Phone;
    use scramblebot::profile::Profile;
    use scramblebot::sim::game::GameConfig;
    use scramblebot::sim::{Model, Sim, SimConfig};
    let model = match args.model {
        ModelArg::Nexus7 => Model::Nexus7,
        ModelArg::Pixel => Model::Pixel,
        ModelArg::Small => Model::Small,
    };
    let round = seconds("--round-secs", args.round_secs, 1.0)?;
    let every = seconds("--freeze-every-secs", args.freeze_every_secs, 0.1)?;
    let freeze = seconds("--freeze-secs", args.freeze_secs, 0.0)?;
    let sim = Sim::start(
        ([127, 0, 0, 1], 0).into(),
        SimConfig {
            model,
            game: GameConfig {
                seed: args.seed,
                round,
                freeze,
                ..GameConfig::default()
            },
            report: None,
        },
    )
    .context("cannot start the virtual phone")?;
    let bot_start_ms = sim.device().now().as_secs_f64() * 1e3;
    let mut profile = Profile::built_in(model.name()).expect("every model has a profile");
    profile.rules.round_secs = round.as_secs_f64();
    profile.rules.freeze_every_secs = every.as_secs_f64();
    profile.rules.freeze_secs = freeze.as_secs_f64();
    let runtime = round_runtime()?;
    let (outcome, phone_model, seen) = runtime.block_on(async {
        let phone = Phone::connect_direct(sim.addr()).await?;
        let profile = profile.for_screen(phone.screen.0, phone.screen.1)?;
        // The board as `play` gets it: read on the screen.
        let seen = see_board(&phone, &profile, false, &args.round).await?;
        // The time left, as a user reads it off the game's clock.
        let left = sim.device().report()["time_left_ms"]
            .as_f64()
            .map(|ms| Duration::from_secs_f64(ms.max(0.0) / 1e3));
        let played = solve_and_play(
            &phone,
            &profile,
            &seen.board,
            &seen.bonuses,
            left,
            &args.round,
        )
        .await?;
        anyhow::Ok((played.outcome, phone.model.clone(), seen))
    })?;
    let board = seen.board;
    let (route, words) = (routes_text(&outcome), outcome.words_planned);
    let report = sim.device().report();
    let strokes = report["strokes"].as_array().cloned().unwrap_or_default();
    let rejected = strokes.iter().filter(|s| s["accepted"] != true).count();
    let first_touch = report["first_touch_ms"].as_f64().map(|t| t - bot_start_ms);
    let words_per_sec = outcome.words_entered as f64 / outcome.elapsed_secs.max(1e-9);
    if args.round.json {
        let summary = serde_json::json!({
            "model": model.name(),
            "board": board.to_string(),
            "route": route,
            "bot": outcome,
            "words_per_sec": words_per_sec,
            "first_touch_ms": first_touch,
            "referee": {
                "score": report["score"],
                "max_score": report["max_score"],
                "words": report["words"],
                "words_possible": report["words_possible"],
                "strokes": strokes.len(),
                "rejected": rejected,
                "violations": report["violations"].as_array().map_or(0, Vec::len),
                "freezes": report["freezes"],
            },
        });
        println!("{}", serde_json::to_string_pretty(&summary)?);
        return failed(&outcome);
    }
    println!(
        "virtual {} ({phone_model}, Android {}), board {board}, {words} words to enter, route {route}",
        model.name(),
        model.release()
    );
    println!(
        "referee: {} words accepted of {} possible, {} points of {} possible",
        report["words"], report["words_possible"], report["score"], report["max_score"]
    );
    println!(
        "         {} strokes, {rejected} rejected, {} violations, {} freezes at {:?} s",
        strokes.len(),
        report["violations"].as_array().map_or(0, Vec::len),
        outcome.freezes.len(),
        outcome
            .freezes
            .iter()
            .map(|f| (f * 10.0).round() / 10.0)
            .collect::<Vec<_>>()
    );
    println!(
        "bot:     {} words in {:.1} s ({words_per_sec:.1} words/s), stopped: {:?}, first touch {} ms after start",
        outcome.words_entered,
        outcome.elapsed_secs,
        outcome.stop,
        first_touch.map_or("-".to_owned(), |t| format!("{t:.0}"))
    );
    failed(&outcome)
}

fn ipv4(
    what: &str,
    text: &str,
    default_port: Option<u16>,
) -> Result<std::net::SocketAddrV4, BadInput> {
    use std::net::ToSocketAddrs;
    let with_port = match default_port {
        Some(p) => format!("{text}:{p}"),
        None => text.to_owned(),
    };
    with_port
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| {
            a.find_map(|a| match a {
                std::net::SocketAddr::V4(v4) => Some(v4),
                _ => None,
            })
        })
        .ok_or_else(|| BadInput(anyhow::anyhow!("{what} {text:?} is not HOST:PORT")))
}

/// The board from --board, or typed on the terminal when there is one.
fn board_from(arg: Option<&str>) -> Result<Board, BadInput> {
    use std::io::IsTerminal;
    let text = match arg {
        Some(t) => t.to_owned(),
        None => {
            if !std::io::stdin().is_terminal() {
                return Err(BadInput(anyhow::anyhow!(
                    "no --board given and stdin is not a terminal to type it on"
                )));
            }
            eprint!("the 16 letters of the board, row by row: ");
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .map_err(|e| BadInput(e.into()))?;
            line
        }
    };
    let board = Board::parse(text.trim()).map_err(bad)?;
    if board.side() != 4 {
        let side = board.side();
        return Err(BadInput(anyhow::anyhow!(
            "the game's board is 4x4, got {side}x{side}"
        )));
    }
    Ok(board)
}

impl RoundArgs {
    /// A progress line only for a person watching a terminal.
    fn show_progress(&self) -> bool {
        use std::io::IsTerminal;
        !self.quiet && !self.json && std::io::stderr().is_terminal()
    }
}

/// The runtime a round runs on: the round loop, the phone's I/O, the Ctrl-C watcher.
fn round_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// When this process started (main touches it first).
pub static START: std::sync::LazyLock<std::time::Instant> =
    std::sync::LazyLock::new(std::time::Instant::now);

/// What `solve_and_play` did.
struct Played {
    outcome: scramblebot::play::RoundOutcome,
    /// When the first touch reached the phone.
    first_touch: Option<std::time::Instant>,
}

/// The routes of a round as a person reads them: "monkey", "sendevent, monkey from word 9".
fn routes_text(outcome: &scramblebot::play::RoundOutcome) -> String {
    outcome
        .routes
        .iter()
        .map(|r| match r.from_word {
            0 => r.route.to_owned(),
            n => format!("{} from word {}", r.route, n + 1),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Solves `board` by the profile's rules and plays the round on `phone` by the profile's
/// route, with `time_left` on the clock (default: the whole round). Ctrl-C stops it, finger
/// lifted. With `round.show_progress()`, a progress bar.
async fn solve_and_play(
    phone: &scramblebot::phone::Phone,
    profile: &scramblebot::profile::Profile,
    board: &Board,
    bonuses: &Bonuses,
    time_left: Option<Duration>,
    round: &RoundArgs,
) -> anyhow::Result<Played> {
    use scramblebot::play::{self, Injector, RoundSettings};
    use scramblebot::profile::Route;
    let rules = Rules::scramble().with_min_len(profile.rules.min_len)?;
    let trie = Trie::enable();
    let mut solution = Solver::new(&trie).solve(board, &rules, bonuses);
    solution.sort(match round.order {
        OrderArg::Longest => Order::Longest,
        OrderArg::Score => Order::Score,
    });
    let words = play::plan(&solution);
    let talk = !round.quiet && !round.json;
    let mut say = |line: String| {
        if talk {
            eprintln!("{line}");
        }
    };
    let route = match round.route {
        None => profile.input.route,
        Some(RouteArg::Auto) => Route::Auto,
        Some(RouteArg::Monkey) => Route::Monkey,
        Some(RouteArg::Motionevent) => Route::Motionevent,
        Some(RouteArg::Sendevent) => Route::Sendevent,
        Some(RouteArg::Tap) => Route::Tap,
    };
    let mut injector = Injector::open(phone, route, &mut say)
        .await
        .with_context(|| format!("profile {}: route {}", profile.name, route.name()))?;
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            let _ = stop_tx.send(true);
        }
    });
    let mut settings = RoundSettings::from_profile(profile);
    if let Some(left) = time_left {
        settings.round = left;
    }
    let bar = if round.show_progress() {
        indicatif::ProgressBar::new(words.len() as u64)
    } else {
        indicatif::ProgressBar::hidden()
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} words  {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut progress = |done: usize, _total: usize, points: u32, left: Duration| {
        bar.set_position(done as u64);
        bar.set_message(format!(
            "{points} points  {}:{:02} left",
            left.as_secs() / 60,
            left.as_secs() % 60
        ));
    };
    let outcome = play::play_round(
        &mut injector,
        profile,
        &settings,
        &words,
        stop,
        &mut progress,
    )
    .await;
    let first_touch = injector.first_touch().map(|t| t.into_std());
    injector.finish().await;
    bar.finish_and_clear();
    Ok(Played {
        outcome: outcome?,
        first_touch,
    })
}

/// The board a round is played on, and where it came from.
struct Seen {
    board: Board,
    bonuses: Bonuses,
    /// "typed", "screen" or "screen, typed" (unsure, then typed on the terminal).
    source: &'static str,
}

impl Seen {
    fn typed(board: Board) -> Seen {
        Seen {
            board,
            bonuses: Bonuses::none(),
            source: "typed",
        }
    }

    /// The bonuses as `solve --bonus` takes them, if there are any.
    fn bonus_text(&self) -> Option<String> {
        (!self.bonuses.is_empty()).then(|| self.bonuses.text(&self.board))
    }
}

/// The 4x4 tiles of a reading as a person reads them: each tile, `?` when unsure, its
/// confidence and badge; four lines.
fn reading_text(reading: &scramblebot::vision::read::Reading) -> String {
    use scramblebot::vision::read::SURE;
    let mut out = String::new();
    for (i, t) in reading.tiles.iter().enumerate() {
        let name = tile_name(t.tile);
        let bonus = t.bonus.map(|b| format!(" {b:?}")).unwrap_or_default();
        let flag = if t.confidence < SURE { "?" } else { " " };
        out += &format!("{name:>3}{flag}{:>4.0}%{bonus:<4}", t.confidence * 100.0);
        out += if i % 4 == 3 { "\n" } else { "  " };
    }
    out
}

/// The unsure tiles of a reading: "row 1 col 2: E or F; ...".
fn unsure_text(reading: &scramblebot::vision::read::Reading) -> String {
    use scramblebot::vision::read::SURE;
    reading
        .tiles
        .iter()
        .enumerate()
        .filter(|(_, t)| t.confidence < SURE)
        .map(|(i, t)| {
            format!(
                "row {} col {}: {} or {}",
                i / 4 + 1,
                i % 4 + 1,
                tile_name(t.tile),
                tile_name(t.runner_up)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads the board on the phone's screen (with `watch`, once one shows). A board not read
/// surely is never played: the screenshot is saved in the current directory, what was read is
/// shown, and the letters are asked for on the terminal; without a terminal, `NotSure`.
async fn see_board(
    phone: &scramblebot::phone::Phone,
    profile: &scramblebot::profile::Profile,
    watch: bool,
    round: &RoundArgs,
) -> anyhow::Result<Seen> {
    use scramblebot::look::{self, Watch};
    use scramblebot::vision::grid::Grid;
    let talk = !round.quiet && !round.json;
    let grid = Grid::from_centres(profile.centres, profile.tile);
    let classifier = classifier_for(Some(profile))?;
    let l = if watch {
        if talk {
            eprintln!("waiting for a board on the screen (Ctrl-C to stop)");
        }
        let spinner = if round.show_progress() {
            indicatif::ProgressBar::new_spinner()
        } else {
            indicatif::ProgressBar::hidden()
        };
        let mut looks = 0;
        let waiting = look::watch(phone, &grid, &classifier, Watch::default(), |l| {
            looks += 1;
            spinner.set_message(match &l.reading {
                Ok(_) => format!("look {looks}: a board, not read surely yet"),
                Err(e) => format!("look {looks}: {e}"),
            });
            spinner.tick();
        });
        let l = tokio::select! {
            l = waiting => l?,
            _ = tokio::signal::ctrl_c() => {
                spinner.finish_and_clear();
                return Err(Interrupted.into());
            }
        };
        spinner.finish_and_clear();
        l
    } else {
        look::look(phone, &grid, &classifier).await?
    };
    let timing = format!(
        "screenshot {:.0} ms, read {:.0} ms",
        l.capture.as_secs_f64() * 1e3,
        l.read.as_secs_f64() * 1e3
    );
    if let Some(r) = l.sure() {
        if talk {
            eprintln!("read the board {} on the screen ({timing})", r.board());
        }
        return Ok(Seen {
            board: r.board(),
            bonuses: r.bonuses(),
            source: "screen",
        });
    }
    let why = match &l.reading {
        Ok(r) => format!("not sure of {}", unsure_text(r)),
        Err(e) => e.to_string(),
    };
    let saved = std::env::current_dir()
        .map(|d| {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            d.join(format!("scramblebot-unsure-{secs}.png"))
        })
        .map_err(anyhow::Error::from)
        .and_then(|path| {
            l.image
                .save(&path)
                .with_context(|| format!("cannot save the screenshot as {}", path.display()))?;
            Ok(path)
        });
    let saved_text = match &saved {
        Ok(p) => format!("the screenshot is saved as {}", p.display()),
        Err(e) => format!("{e:#}"),
    };
    if let Ok(r) = &l.reading {
        eprint!("read on the screen ({timing}):\n{}", reading_text(r));
    }
    eprintln!("the board is not read surely: {why}; {saved_text}");
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        return Err(NotSure(format!(
            "the board on the screen is not read surely ({why}); {saved_text}; give it with --board"
        ))
        .into());
    }
    // The letters typed, the badges read (when a grid was read at all).
    let bonuses = l.reading.as_ref().map_or(Bonuses::none(), |r| r.bonuses());
    let board = tokio::task::spawn_blocking(|| board_from(None)).await??;
    Ok(Seen {
        board,
        bonuses,
        source: "screen, typed",
    })
}

/// The board reader for `profile`: the built-in references, and the profile's glyph
/// templates (from `calibrate --board`) when it has them.
fn classifier_for(
    profile: Option<&scramblebot::profile::Profile>,
) -> anyhow::Result<scramblebot::vision::glyph::Classifier> {
    use scramblebot::vision::glyph::{Classifier, templates};
    let Some((p, glyphs, path)) =
        profile.and_then(|p| Some((p, p.glyphs.as_ref()?, p.glyphs_path()?)))
    else {
        return Ok(Classifier::built_in());
    };
    let strip = image::open(&path)
        .with_context(|| format!("profile {}: glyph templates {}", p.name, path.display()))
        .map_err(BadInput)?
        .to_luma8();
    let learned = templates(&strip, glyphs.board.tiles())
        .with_context(|| format!("profile {}: glyph templates {}", p.name, path.display()))
        .map_err(BadInput)?;
    Ok(Classifier::with_templates(learned))
}

/// The profile named by `--device NAME` or `--profile FILE`, if either is given.
fn chosen_profile(
    device: Option<&str>,
    file: Option<&std::path::Path>,
) -> anyhow::Result<Option<scramblebot::profile::Profile>> {
    use scramblebot::profile::Profile;
    Ok(match (device, file) {
        (_, Some(path)) => Some(Profile::load(path).map_err(bad)?),
        (Some(name), None) => {
            let cwd = std::env::current_dir()?;
            let config = std::env::var_os("XDG_CONFIG_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
                .map(|d| d.join("scramblebot"));
            Some(Profile::find(name, &cwd, config.as_deref()).map_err(bad)?)
        }
        (None, None) => None,
    })
}

pub fn play(args: PlayArgs) -> anyhow::Result<()> {
    use scramblebot::phone::Phone;
    let profile = chosen_profile(args.device.as_deref(), args.profile.as_deref())?
        .expect("clap requires --device or --profile");
    let opts = args.phone.options()?;
    let typed = args
        .board
        .as_deref()
        .map(|b| board_from(Some(b)))
        .transpose()?;
    let time_left = args
        .time_left
        .map(|t| seconds("--time-left", t, 0.0))
        .transpose()?;
    let runtime = round_runtime()?;
    let (played, phone_line, seen) = runtime.block_on(async {
        let phone = Phone::connect_server(&opts).await?;
        let profile = profile.for_screen(phone.screen.0, phone.screen.1)?;
        let seen = match typed {
            Some(board) => Seen::typed(board),
            None => see_board(&phone, &profile, args.watch, &args.round).await?,
        };
        let played = solve_and_play(
            &phone,
            &profile,
            &seen.board,
            &seen.bonuses,
            time_left,
            &args.round,
        )
        .await?;
        let line = format!(
            "{} ({}, sdk {}, {}x{}), profile {}",
            phone.serial, phone.model, phone.sdk, phone.screen.0, phone.screen.1, profile.name
        );
        anyhow::Ok((played, line, seen))
    })?;
    let board = seen.board;
    let outcome = played.outcome;
    let route = routes_text(&outcome);
    // From the start of this process: what a user waits before the game sees a finger.
    let first_touch_ms = played
        .first_touch
        .map(|t| t.saturating_duration_since(*START).as_secs_f64() * 1e3);
    if args.round.json {
        let summary = serde_json::json!({
            "phone": phone_line,
            "board": board.to_string(),
            "board_from": seen.source,
            "bonuses": seen.bonus_text(),
            "route": route,
            "first_touch_ms": first_touch_ms,
            "bot": outcome,
        });
        println!("{}", serde_json::to_string_pretty(&summary)?);
        return failed(&outcome);
    }
    println!(
        "{phone_line}, board {board}{} ({}), route {route}",
        seen.bonus_text()
            .map(|b| format!(" with {b}"))
            .unwrap_or_default(),
        seen.source
    );
    if let Some(ms) = first_touch_ms {
        println!("first touch {ms:.0} ms after start");
    }
    println!(
        "entered {} of {} words ({} points as scored by the solver) in {:.1} s, {} freezes, stopped: {:?}",
        outcome.words_entered,
        outcome.words_planned,
        outcome.points_entered,
        outcome.elapsed_secs,
        outcome.freezes.len(),
        outcome.stop
    );
    failed(&outcome)
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

/// The dictionary a command uses, with what to tell the user about it.
struct Dictionary {
    trie: Trie,
    name: String,
    load_us: u128,
}

fn load_dictionary(args: &DictArgs) -> anyhow::Result<Dictionary> {
    let start = Instant::now();
    let (trie, name) = match &args.dict {
        None => (Trie::enable(), "ENABLE (built in)".to_owned()),
        Some(path) => (Trie::load(path)?, path.display().to_string()),
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
        load_us: start.elapsed().as_micros(),
    })
}

fn bad<E: std::error::Error + Send + Sync + 'static>(e: E) -> BadInput {
    BadInput(anyhow::Error::new(e))
}

pub fn solve(args: SolveArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    let board = Board::parse(&args.board.join(" ")).map_err(bad)?;
    let mut rules = Rules::new(match args.rules {
        RulesArg::Scramble => RulesKind::Scramble,
        RulesArg::Boggle => RulesKind::Boggle,
    });
    if let Some(n) = args.min_len {
        rules = rules.with_min_len(n).map_err(bad)?;
    }
    let bonuses = match &args.bonus {
        Some(text) => Bonuses::parse(text, &board).map_err(bad)?,
        None => Bonuses::none(),
    };
    rules.check_bonuses(&bonuses).map_err(bad)?;
    let dict = load_dictionary(&args.dict)?;

    let solve_start = Instant::now();
    let mut solution = Solver::new(&dict.trie).solve(&board, &rules, &bonuses);
    let order = match args.order {
        OrderArg::Longest => Order::Longest,
        OrderArg::Score => Order::Score,
    };
    solution.sort(order);
    let solve_us = solve_start.elapsed().as_micros();

    let mut out = std::io::stdout().lock();
    if args.json {
        let words: Vec<serde_json::Value> = solution
            .words()
            .map(|w| {
                serde_json::json!({
                    "word": w.text(),
                    "points": w.points(),
                    "path": w.path().iter().map(|p| [p.row(), p.col()]).collect::<Vec<_>>(),
                })
            })
            .collect();
        let value = serde_json::json!({
            "board": board.to_string(),
            "rules": rules.kind().name(),
            "min_len": rules.min_len(),
            "order": format!("{order:?}").to_lowercase(),
            "bonuses": bonuses.iter().map(|(i, b)| {
                let p = board.pos_of(i);
                serde_json::json!({"kind": b.to_string(), "row": p.row(), "col": p.col()})
            }).collect::<Vec<_>>(),
            "dictionary": {"source": dict.name, "words": dict.trie.counts().words},
            "words": words,
            "word_count": solution.len(),
            "total_points": solution.total_points(),
            "timings_us": {
                "dictionary": dict.load_us,
                "solve": solve_us,
                "total": started.elapsed().as_micros(),
            },
        });
        serde_json::to_writer(&mut out, &value)?;
        writeln!(out)?;
    } else {
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

pub fn bench(args: BenchArgs) -> anyhow::Result<()> {
    if let BenchWhat::Vision = args.what {
        return bench_vision(&args);
    }
    let dict = load_dictionary(&args.dict)?;
    let rules = Rules::boggle();
    let structure = match args.structure {
        StructureArg::Trie => Structure::Trie,
        StructureArg::Sorted => Structure::Sorted,
        StructureArg::Prefixes => Structure::Prefixes,
    };
    let sets: Vec<BoardSet> = match args.set {
        SetArg::Uniform => vec![BoardSet::Uniform],
        SetArg::Dice => vec![BoardSet::Dice],
        SetArg::Near => vec![BoardSet::Near],
        SetArg::All => BoardSet::ALL.to_vec(),
    };
    let modes: Vec<Mode> = match args.mode {
        ModeArg::Score => vec![Mode::Score],
        ModeArg::Full => vec![Mode::Full],
        ModeArg::Both => vec![Mode::Score, Mode::Full],
    };
    let built = Built::new(&dict.trie, structure);
    let reference =
        (!matches!(structure, Structure::Trie)).then(|| Built::new(&dict.trie, Structure::Trie));
    let boards = args.boards as usize;
    let mut out = std::io::stdout().lock();
    if !args.json {
        writeln!(
            out,
            "dictionary {} ({} words), boggle rules, 1 thread, {boards} boards per set, best of {} passes",
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
    for &set in &sets {
        let seed = args.seed.unwrap_or(set.default_seed());
        for &mode in &modes {
            let fig = built.measure(set, boards, seed, mode, &rules);
            if let Some(reference) = &reference {
                let (words, points) = reference.answers(set, boards, seed, mode, &rules);
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
                    fig.words as f64 / boards as f64,
                    fig.points as f64 / boards as f64
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

pub fn read(args: ReadArgs) -> anyhow::Result<()> {
    use scramblebot::vision::{self, grid::Grid, read};
    let profile = chosen_profile(args.device.as_deref(), args.profile.as_deref())?;
    let bytes = std::fs::read(&args.image)
        .with_context(|| format!("cannot read {}", args.image.display()))
        .map_err(BadInput)?;
    let img = vision::decode(&bytes)
        .with_context(|| args.image.display().to_string())
        .map_err(BadInput)?;
    let grid = match &profile {
        Some(p) => {
            anyhow::ensure!(
                (p.width, p.height) == (img.width(), img.height()),
                BadInput(anyhow::anyhow!(
                    "the profile {} is for a {}x{} screen, the image is {}x{}",
                    p.name,
                    p.width,
                    p.height,
                    img.width(),
                    img.height()
                ))
            );
            Some(Grid::from_centres(p.centres, p.tile))
        }
        None => None,
    };
    let classifier = classifier_for(profile.as_ref())?;
    let started = std::time::Instant::now();
    let result = read::read(&img, grid.as_ref(), &classifier);
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let reading = match result {
        Ok(r) => r,
        Err(e) => {
            if args.json {
                let v = serde_json::json!({"image": args.image, "board": null, "refused": e.to_string(), "ms": ms});
                println!("{v}");
            }
            return Err(NotSure(format!("{}: {e}", args.image.display())).into());
        }
    };
    let board = reading.board();
    if args.json {
        let tiles: Vec<serde_json::Value> = reading
            .tiles
            .iter()
            .map(|t| {
                serde_json::json!({
                    "tile": tile_name(t.tile),
                    "confidence": t.confidence,
                    "runner_up": tile_name(t.runner_up),
                    "bonus": t.bonus,
                })
            })
            .collect();
        let v = serde_json::json!({
            "image": args.image,
            "board": board.to_string(),
            "sure": reading.sure(),
            "tiles": tiles,
            "grid": {
                "centres": reading.grid.centres,
                "pitch": reading.grid.pitch,
                "tile": reading.grid.tile,
                "tiles_seen": reading.grid.seen,
                "from_profile": profile.as_ref().map(|p| p.name.clone()),
            },
            "ms": ms,
        });
        println!("{v}");
    } else {
        let mut out = std::io::stdout().lock();
        write!(out, "{}", reading_text(&reading))?;
        let g = &reading.grid;
        writeln!(
            out,
            "board {board}; grid: first centre ({:.0}, {:.0}), pitch {:.1} x {:.1}, tile {:.0} px, {}; read in {ms:.1} ms",
            g.centres[0].0,
            g.centres[0].1,
            g.pitch.0,
            g.pitch.1,
            g.tile,
            match &profile {
                Some(p) => format!("from profile {}", p.name),
                None => format!("found ({} of 16 tiles seen)", g.seen),
            }
        )?;
    }
    if !reading.sure() {
        return Err(NotSure(format!("not sure of {}", unsure_text(&reading))).into());
    }
    Ok(())
}

fn bench_vision(args: &BenchArgs) -> anyhow::Result<()> {
    use scramblebot::vision::{corpus, glyph::Classifier};
    let faces = corpus::load_faces(&args.fonts);
    anyhow::ensure!(
        !faces.is_empty(),
        BadInput(anyhow::anyhow!(
            "none of the corpus typefaces ({}) under {}; on Debian: apt-get install fonts-liberation2 fonts-roboto-unhinted fonts-open-sans fonts-lato fonts-urw-base35 fonts-freefont-ttf fonts-cantarell fonts-croscore fonts-inter",
            corpus::UNSEEN_FACES.join(", "),
            args.fonts.display()
        ))
    );
    let seed = args.seed.unwrap_or(1);
    let classifier = Classifier::built_in();
    let bar = if args.json || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(args.screens)
    };
    let r = corpus::measure(&faces, seed, args.screens, &classifier, |i| {
        bar.set_position(i)
    });
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string(&r)?);
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    for m in &r.misreads {
        writeln!(out, "  {m}")?;
    }
    writeln!(
        out,
        "vision corpus seed {seed}: {} screens in {} typefaces ({})",
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
    Ok(())
}

/// "X,Y" in screen pixels.
fn point(what: &str, text: &str) -> Result<(f32, f32), BadInput> {
    text.split_once(',')
        .and_then(|(x, y)| Some((x.trim().parse().ok()?, y.trim().parse().ok()?)))
        .filter(|(x, y): &(f32, f32)| x.is_finite() && y.is_finite())
        .ok_or_else(|| BadInput(anyhow::anyhow!("{what} {text:?} is not X,Y in pixels")))
}

pub fn calibrate(args: CalibrateArgs) -> anyhow::Result<()> {
    use scramblebot::calibrate::{self, CalibrateError};
    use scramblebot::phone::Phone;
    use scramblebot::phone::sendevent::{Panel, parse_getevent};
    use scramblebot::play::Injector;
    use scramblebot::profile::{Profile, Route};
    use scramblebot::vision::glyph::Classifier;
    if !Profile::valid_name(&args.name) {
        return Err(BadInput(anyhow::anyhow!(
            "--name {:?} is not a device name: letters, digits, - and _",
            args.name
        ))
        .into());
    }
    let mut freeze = args
        .freeze
        .as_deref()
        .map(|f| point("--freeze", f))
        .transpose()?;
    let tap_wait = args
        .tap
        .then(|| seconds("--tap-wait", args.tap_wait, 1.0))
        .transpose()?;
    let typed = args
        .board
        .as_deref()
        .map(|b| board_from(Some(b)))
        .transpose()?;
    let toml_path = args.dir.join(format!("{}.toml", args.name));
    let overlay_path = args.dir.join(format!("{}.overlay.png", args.name));
    if toml_path.exists() && !args.force {
        return Err(BadInput(anyhow::anyhow!(
            "{} exists: choose another --name, or --force to replace it",
            toml_path.display()
        ))
        .into());
    }
    // The screen, and what the phone says about itself.
    let mut about: Vec<String> = Vec::new();
    let img = match &args.image {
        Some(path) => {
            let bytes = std::fs::read(path)
                .with_context(|| format!("cannot read {}", path.display()))
                .map_err(BadInput)?;
            about.push(format!("from the screenshot {}", path.display()));
            scramblebot::vision::decode(&bytes)
                .with_context(|| path.display().to_string())
                .map_err(BadInput)?
        }
        None => {
            let opts = args.phone.options()?;
            let runtime = round_runtime()?;
            runtime.block_on(async {
                let phone = Phone::connect_server(&opts).await?;
                about.push(format!(
                    "from {} ({}, sdk {}, wm size {}x{})",
                    phone.serial, phone.model, phone.sdk, phone.screen.0, phone.screen.1
                ));
                let img = phone.screenshot().await?;
                if img.dimensions() != phone.screen {
                    anyhow::bail!(
                        "the screenshot is {}x{} but `wm size` says {}x{}: hold the phone upright (portrait) and calibrate again",
                        img.width(),
                        img.height(),
                        phone.screen.0,
                        phone.screen.1
                    );
                }
                let getevent = phone.shell("getevent -p").await?;
                let panel = Panel::find(&parse_getevent(&getevent), phone.screen);
                about.push(match &panel {
                    Some(panel) => format!("touchscreen {}", panel.describe()),
                    None => "no touchscreen in `getevent -p` (sendevent cannot be used)".into(),
                });
                // Which routes this phone takes; `auto` picks the fastest at play time.
                let mut works = Vec::new();
                for route in [Route::Monkey, Route::Motionevent, Route::Sendevent] {
                    match Injector::open(&phone, route, &mut |_| {}).await {
                        Ok(injector) => {
                            injector.finish().await;
                            works.push(route.name().to_owned());
                        }
                        Err(e) => about.push(format!("route {}: no ({e})", route.name())),
                    }
                }
                works.push("tap".into());
                about.push(format!("routes that work: {}", works.join(", ")));
                if let Some(limit) = tap_wait {
                    let Some(panel) = &panel else {
                        anyhow::bail!(
                            "--tap reads the touchscreen, and `getevent -p` lists none: give --freeze X,Y instead"
                        );
                    };
                    eprintln!(
                        "Tap the Freeze button on the phone (waiting {} s)...",
                        limit.as_secs_f64()
                    );
                    let (x, y) = panel.wait_for_tap(&phone, limit).await?;
                    about.push(format!("Freeze tapped at ({x:.0}, {y:.0})"));
                    freeze = Some((x, y));
                }
                anyhow::Ok(img)
            })?
        }
    };
    let classifier = Classifier::built_in();
    let cal = match calibrate::calibrate(&img, freeze, &classifier) {
        Ok(c) => c,
        Err(e @ CalibrateError::NotABoard(_)) => return Err(NotSure(e.to_string()).into()),
        Err(e) => return Err(BadInput(e.into()).into()),
    };
    let mut profile = cal.profile(&args.name).map_err(bad)?;
    let reading = &cal.reading;
    let glyphs_path = args.dir.join(format!("{}.glyphs.png", args.name));
    let strip = match &typed {
        None => None,
        Some(board) => {
            let (strip, differ) = cal.glyphs(&img, board).map_err(|e| BadInput(e.into()))?;
            about.push(format!(
                "glyph templates of {board} in {}; the built-in references read {differ} of 16 tiles otherwise",
                glyphs_path.display()
            ));
            profile.glyphs = Some(scramblebot::profile::Glyphs {
                file: format!("{}.glyphs.png", args.name),
                board: *board,
            });
            Some(strip)
        }
    };
    about.push(format!(
        "board read {}{}",
        reading.board(),
        if reading.sure() {
            String::new()
        } else {
            format!(" (not sure of {})", unsure_text(reading))
        }
    ));
    about.push(format!("check it on {}", overlay_path.display()));
    let header = std::iter::once(format!(
        "{}: calibrated by `scramblebot calibrate`",
        args.name
    ))
    .chain(about.iter().cloned())
    .collect::<Vec<_>>()
    .join("\n");
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("cannot create {}", args.dir.display()))?;
    calibrate::overlay(&img, &profile, Some(reading))
        .save(&overlay_path)
        .with_context(|| format!("cannot write {}", overlay_path.display()))?;
    if let Some(strip) = strip {
        strip
            .save(&glyphs_path)
            .with_context(|| format!("cannot write {}", glyphs_path.display()))?;
    }
    std::fs::write(&toml_path, profile.to_toml(&header))
        .with_context(|| format!("cannot write {}", toml_path.display()))?;
    let c = &profile.centres;
    let mut out = std::io::stdout().lock();
    for line in &about {
        writeln!(out, "{line}")?;
    }
    writeln!(
        out,
        "grid: first centre ({}, {}), last ({}, {}), tile {} px; buttons: {} (radius {}){}",
        c[0].0,
        c[0].1,
        c[15].0,
        c[15].1,
        profile.tile,
        profile
            .buttons
            .iter()
            .map(|(n, p)| format!("{n} ({}, {})", p.0, p.1))
            .collect::<Vec<_>>()
            .join(", "),
        profile.button_radius,
        if cal.freeze_given {
            ", freeze as given"
        } else {
            ""
        }
    )?;
    writeln!(
        out,
        "wrote {} and {}; play with --device {} (from this directory) or --profile {}",
        toml_path.display(),
        overlay_path.display(),
        args.name,
        toml_path.display()
    )?;
    Ok(())
}
