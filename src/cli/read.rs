//! `scramblebot read`: the board on a screenshot, tile by tile, or one JSON object.

use std::io::Write;
use std::path::PathBuf;

use scramblebot::board::tile_name;
use scramblebot::play::{reading_text, unsure_text};
use scramblebot::score::Bonus;
use scramblebot::vision::read;
use serde::Serialize;

use super::{BadInput, NotSure, chosen_profile, classifier_for, load_image};

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
    /// The board the screenshot shows, as `solve` takes it (a person's word for it, say for a
    /// screenshot the daemon saved unsure): its glyphs are added to the profile's templates
    /// (with --device or --profile, a profile file of your own), and the screen is read again
    /// with them.
    #[arg(long, value_name = "LETTERS")]
    pub learn: Option<String>,
    /// With --learn: learn the board even where it contradicts tiles read surely.
    #[arg(long, requires = "learn")]
    pub force: bool,
}

/// Adds the glyphs of `letters` (the board the person says `img` shows) to `p`'s templates;
/// returns the profile as its file now says.
fn learn_board(
    p: &scramblebot::profile::Profile,
    img: &image::RgbaImage,
    letters: &str,
    force: bool,
) -> anyhow::Result<scramblebot::profile::Profile> {
    let board = super::game_board(letters)?;
    let learned = scramblebot::calibrate::learn::learn(p, img, &board, force)
        .map_err(|e| BadInput(anyhow::anyhow!("cannot learn {board}: {e}")))?;
    super::errln!("{}: {}", p.name(), learned.text());
    let path = p.source().expect("learn needs a file");
    Ok(scramblebot::profile::Profile::load(path).map_err(super::bad)?)
}

/// What `read --json` prints for a board.
#[derive(Serialize)]
struct ReadJson<'a> {
    image: &'a PathBuf,
    board: String,
    sure: bool,
    /// An overlay covers the board: not in play (the letters may still be read).
    dimmed: bool,
    tiles: Vec<TileJson>,
    grid: GridJson,
    /// The game's score and clock, with a profile that knows where they are and their digits
    /// (`calibrate`); each null when not read surely.
    score: Option<u32>,
    clock_secs: Option<u32>,
    ms: f64,
}

/// What `read --json` prints for a screen that is not a board.
#[derive(Serialize)]
struct RefusedJson<'a> {
    image: &'a PathBuf,
    board: Option<String>,
    refused: String,
    ms: f64,
}

#[derive(Serialize)]
struct TileJson {
    tile: &'static str,
    confidence: f32,
    runner_up: &'static str,
    bonus: Option<Bonus>,
}

#[derive(Serialize)]
struct GridJson {
    centres: [(f32, f32); 16],
    pitch: (f32, f32),
    tile: f32,
    tiles_seen: usize,
    /// "dark" on light tiles, or "light" on dark tiles (read on the screen's negative).
    letters: &'static str,
    from_profile: Option<String>,
}

pub fn run(args: ReadArgs) -> anyhow::Result<()> {
    let profile = chosen_profile(args.device.as_deref(), args.profile.as_deref())?;
    let img = load_image(&args.image)?;
    let grid = match &profile {
        Some(p) => {
            let (w, h) = p.screen();
            anyhow::ensure!(
                (w, h) == img.dimensions(),
                BadInput(anyhow::anyhow!(
                    "the profile {} is for a {w}x{h} screen, the image is {}x{}",
                    p.name(),
                    img.width(),
                    img.height()
                ))
            );
            Some(p.grid())
        }
        None => None,
    };
    let profile = match (&args.learn, profile) {
        (Some(letters), Some(p)) => Some(learn_board(&p, &img, letters, args.force)?),
        (Some(_), None) => {
            return Err(BadInput(anyhow::anyhow!(
                "--learn keeps the glyphs in a profile: give it with --device NAME or --profile FILE"
            ))
            .into());
        }
        (None, p) => p,
    };
    let classifier = classifier_for(profile.as_ref())?;
    // The game's own figures, with a profile that has learned its digits.
    let book = match &profile {
        Some(p) => scramblebot::play::digit_book_for(p)?.map(|b| (p, b)),
        None => None,
    };
    let numbers = book
        .as_ref()
        .map(|(p, b)| scramblebot::play::numbers(&img, p, b));
    let started = std::time::Instant::now();
    let result = read::read(&img, grid.as_ref(), &classifier);
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let reading = match result {
        Ok(r) => r,
        Err(e) => {
            if args.json {
                let refused = RefusedJson {
                    image: &args.image,
                    board: None,
                    refused: e.to_string(),
                    ms,
                };
                super::outln!("{}", serde_json::to_string(&refused)?)?;
            }
            return Err(NotSure(format!("{}: {e}", args.image.display())).into());
        }
    };
    let board = reading.board();
    if args.json {
        let g = &reading.grid;
        let json = ReadJson {
            image: &args.image,
            board: board.to_string(),
            sure: reading.sure(),
            dimmed: reading.dimmed(),
            tiles: reading
                .tiles
                .iter()
                .map(|t| TileJson {
                    tile: tile_name(t.tile),
                    confidence: t.confidence,
                    runner_up: tile_name(t.runner_up),
                    bonus: t.bonus,
                })
                .collect(),
            grid: GridJson {
                centres: g.centres,
                pitch: g.pitch,
                tile: g.tile,
                tiles_seen: g.seen,
                letters: g.polarity.letters(),
                from_profile: profile.as_ref().map(|p| p.name().to_owned()),
            },
            score: numbers.and_then(|n| n.score),
            clock_secs: numbers.and_then(|n| n.clock_secs),
            ms,
        };
        super::outln!("{}", serde_json::to_string(&json)?)?;
    } else {
        let mut out = std::io::stdout().lock();
        write!(out, "{}", reading_text(&reading))?;
        let g = &reading.grid;
        writeln!(
            out,
            "board {board}{}; grid: first centre ({:.0}, {:.0}), pitch {:.1} x {:.1}, tile {:.0} px, {}; read in {ms:.1} ms",
            if reading.dimmed() {
                " (dimmed under an overlay: not in play)"
            } else {
                ""
            },
            g.centres[0].0,
            g.centres[0].1,
            g.pitch.0,
            g.pitch.1,
            g.tile,
            match &profile {
                Some(p) => format!("from profile {}", p.name()),
                None => format!("found ({} of 16 tiles seen)", g.seen),
            }
        )?;
        if let Some(n) = numbers {
            let said = |v: Option<u32>, show: &dyn Fn(u32) -> String| {
                v.map_or_else(|| "not read surely".to_owned(), show)
            };
            writeln!(
                out,
                "the game shows: score {}, clock {}",
                said(n.score, &|s| s.to_string()),
                said(n.clock_secs, &|s| format!("{}:{:02}", s / 60, s % 60)),
            )?;
        }
    }
    if !reading.sure() {
        return Err(NotSure(format!("not sure of {}", unsure_text(&reading))).into());
    }
    if let Some(why) = reading.overlay() {
        return Err(NotSure(format!("{why}: not in play")).into());
    }
    Ok(())
}
