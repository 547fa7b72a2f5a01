//! What one confirmed board teaches the reader about a game's typeface: the virtual phone
//! draws its tiles in each face (`sim --font`), the reader reads boards 2..N with the
//! built-in references alone, then learns board 1's glyphs into a profile file (as `play`,
//! `calibrate --board` and `read --learn` do when a person confirms a board) and reads boards
//! 2..N again with them.
//!
//!     cargo run --release --example learn_faces -- [--boards N] [--model pixel] [--jpeg Q] [FONT...]
//!
//! `--jpeg Q` reads boards 2..N through JPEG at quality Q (board 1 is learned as shot).
//! Without fonts, every TrueType or OpenType file under /usr/share/fonts is tried (one
//! that cannot draw every tile is passed over). One line per face, then the totals.

use std::path::{Path, PathBuf};

use scramblebot::board::{Board, tile_name};
use scramblebot::calibrate::learn;
use scramblebot::play::classifier_for;
use scramblebot::profile::Profile;
use scramblebot::sim::game::GameConfig;
use scramblebot::sim::screen::Face;
use scramblebot::sim::{Device, Model, SimConfig};
use scramblebot::vision::glyph::Classifier;
use scramblebot::vision::grid::Grid;
use scramblebot::vision::read;

#[derive(Default, Clone, Copy)]
struct Tally {
    boards: usize,
    right: usize,
    sure: usize,
    wrong_sure: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.boards += other.boards;
        self.right += other.right;
        self.sure += other.sure;
        self.wrong_sure += other.wrong_sure;
    }

    fn text(&self) -> String {
        format!(
            "right {:3}/{:<3} sure {:3} wrong-sure {}",
            self.right, self.boards, self.sure, self.wrong_sure
        )
    }
}

fn tally(
    screens: &[(Board, image::RgbaImage)],
    grid: &Grid,
    classifier: &Classifier,
    label: &str,
) -> Tally {
    let mut t = Tally::default();
    for (board, img) in screens {
        t.boards += 1;
        let Ok(r) = read::read(img, Some(grid), classifier) else {
            continue;
        };
        let right = r.board() == *board;
        if std::env::var_os("VERBOSE").is_some() {
            for (t, &truth) in r.tiles.iter().zip(board.tiles()) {
                if t.tile != truth || !t.sure() {
                    eprintln!(
                        "  {label}: {} read as {} ({:.2}, then {}){}",
                        tile_name(truth),
                        tile_name(t.tile),
                        t.confidence,
                        tile_name(t.runner_up),
                        if r.sure() { " SURE" } else { "" }
                    );
                }
            }
        }
        t.right += right as usize;
        t.sure += r.sure() as usize;
        t.wrong_sure += (r.sure() && !right) as usize;
    }
    t
}

/// `img` as a JPEG of quality `q` shows it.
fn through_jpeg(img: &image::RgbaImage, q: u8) -> image::RgbaImage {
    let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
    let mut bytes = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, q)
        .encode_image(&rgb)
        .expect("JPEG in memory");
    image::load_from_memory(&bytes)
        .expect("our own JPEG")
        .to_rgba8()
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (mut boards, mut model, mut fonts) = (12u64, Model::Pixel, Vec::new());
    let mut jpeg: Option<u8> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--boards" => boards = args.next().unwrap_or_default().parse()?,
            "--jpeg" => jpeg = Some(args.next().unwrap_or_default().parse()?),
            "--model" => {
                let name = args.next().unwrap_or_default();
                model = Model::ALL
                    .into_iter()
                    .find(|m| m.name() == name)
                    .ok_or_else(|| anyhow::anyhow!("no model {name}"))?;
            }
            _ => fonts.push(PathBuf::from(a)),
        }
    }
    anyhow::ensure!(boards >= 2, "--boards must be 2 or more");
    if fonts.is_empty() {
        fonts = scramblebot::vision::corpus::font_files(Path::new("/usr/share/fonts"));
    }
    let dir = std::env::temp_dir().join(format!("scramblebot-learn-faces-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("devices")
        .join(format!("{}.toml", model.name()));
    let built_in = Classifier::built_in();
    let (mut before, mut after) = (Tally::default(), Tally::default());
    let (mut faces, mut all_sure_before, mut all_sure_after) = (0, 0, 0);
    for font in &fonts {
        let Ok(face) = Face::load(font) else {
            continue;
        };
        let screens: Vec<(Board, image::RgbaImage)> = (1..=boards)
            .map(|seed| {
                let device = Device::new(SimConfig {
                    model,
                    game: GameConfig {
                        seed,
                        ..GameConfig::default()
                    },
                    report: None,
                    letters: Some(face.clone()),
                });
                let mut img = (*device.screenshot()).clone();
                if let Some(q) = jpeg.filter(|_| seed > 1) {
                    img = through_jpeg(&img, q);
                }
                let board = Board::parse(&device.report().board).expect("the phone's board");
                (board, img)
            })
            .collect();
        let path = dir.join("face.toml");
        let _ = std::fs::remove_file(dir.join("face.glyphs.png"));
        std::fs::copy(&source, &path)?;
        let profile = Profile::load(&path)?;
        let grid = Grid::from_centres(*profile.centres(), profile.tile());
        let b = tally(&screens[1..], &grid, &built_in, "before");
        let (board, img) = &screens[0];
        let learned = learn::learn(&profile, img, board, false)?;
        let taught = classifier_for(Some(&Profile::load(&path)?))?;
        let a = tally(&screens[1..], &grid, &taught, "after");
        println!(
            "{:40} before: {}  after: {}  ({} glyphs)",
            font.file_stem().unwrap_or_default().to_string_lossy(),
            b.text(),
            a.text(),
            learned.added.len()
        );
        faces += 1;
        all_sure_before += (b.sure == b.boards) as usize;
        all_sure_after += (a.sure == a.boards) as usize;
        before.add(b);
        after.add(a);
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "{faces} faces, boards 2..{boards} on a virtual {}:\n  references alone:         {}; every board sure in {all_sure_before} faces\n  after one confirmed board: {}; every board sure in {all_sure_after} faces",
        model.name(),
        before.text(),
        after.text()
    );
    Ok(())
}
