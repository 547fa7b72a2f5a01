//! Learning a game's glyphs as it is played: every board a person confirms (types after the
//! reader was unsure, gives to `calibrate --board` or `read --learn`) adds its tiles' glyphs
//! to the profile's templates, for letters the profile has fewer than `PER_LETTER` of. The
//! reader then matches that game's own letters, so each is asked for once.

use std::path::{Path, PathBuf};

use image::RgbaImage;

use crate::board::Board;
use crate::profile::{Glyphs, MAX_GLYPHS, Profile, glyphs_table};
use crate::vision::glyph::{Ink, cells, strip};
use crate::vision::grid::Grid;
use crate::vision::read;

/// Glyphs of one letter a profile keeps: two faces of the same letter (a plain tile and a
/// highlighted one, a sharp and a blurred capture) are worth more than one.
pub const PER_LETTER: usize = 2;

/// Why a board's glyphs could not be learned.
#[derive(Debug, thiserror::Error)]
pub enum LearnError {
    #[error(
        "the profile {0} is built in, not a file: there is nowhere to keep its glyphs (calibrate one of your own with `scramblebot calibrate --board LETTERS`)"
    )]
    NoFile(String),
    #[error("{0} is not a 4x4 board")]
    NotFourByFour(String),
    #[error("the glyph strip {}: {source}", path.display())]
    Strip {
        path: PathBuf,
        source: image::ImageError,
    },
    #[error("the glyph strip {} does not match the profile's glyphs.letters: {source}", path.display())]
    Mismatch {
        path: PathBuf,
        source: crate::vision::glyph::TemplateError,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The board typed contradicts tiles read surely (`Reading::contradiction`).
    #[error("{0}")]
    Contradicts(String),
    /// The profile's reader cannot be made (its glyph strip will not load).
    #[error("{0}")]
    Reader(String),
    #[error("the profile written back is not the one meant (kept as it was): {0}")]
    Rewrite(String),
    #[error("{0}")]
    Profile(#[from] crate::profile::ProfileError),
}

/// What a confirmed board taught.
#[derive(Clone, Debug, PartialEq)]
pub struct Learned {
    /// The tiles whose glyphs were added, in board order.
    pub added: Vec<u8>,
    /// The profile's glyphs now.
    pub glyphs: Glyphs,
}

impl Learned {
    /// "learned 5 glyphs (B E N R S); the profile knows 12 letters: ABEGINORSTUY".
    pub fn text(&self) -> String {
        let names: Vec<&str> = self
            .added
            .iter()
            .map(|&t| crate::board::tile_name(t))
            .collect();
        let known = self.glyphs.learned();
        let count = self.glyphs.known().len();
        if names.is_empty() {
            format!(
                "no glyph to learn (each of these letters is known {PER_LETTER} times); the profile knows {count} letters: {known}"
            )
        } else {
            format!(
                "learned {} glyphs ({}); the profile knows {count} letters: {known}",
                names.len(),
                names.join(" ")
            )
        }
    }
}

/// The strip's cells as ink maps of side `n`, with the glyphs of `board`'s tiles on `img` in
/// `grid` added for letters `tiles` holds fewer than `PER_LETTER` of (tiles without a glyph
/// are passed over). Returns the cells, their tiles, and what was added.
pub fn add(
    cells: Vec<Ink>,
    tiles: Vec<u8>,
    img: &RgbaImage,
    grid: &Grid,
    board: &Board,
) -> (Vec<Ink>, Vec<u8>, Vec<u8>) {
    let (mut cells, mut tiles) = (cells, tiles);
    let mut added = Vec::new();
    let img = read::as_read(img, grid);
    for (&c, &tile) in grid.centres.iter().zip(board.tiles()) {
        if tiles.len() >= MAX_GLYPHS || tiles.iter().filter(|&&t| t == tile).count() >= PER_LETTER {
            continue;
        }
        let Some(ink) = read::tile_glyph(&img, c, grid.tile).ink else {
            continue;
        };
        // Every cell of a strip has one side: the first's.
        let n = cells.first().map_or(ink.w, |first| first.w);
        cells.push(ink.resized(n));
        tiles.push(tile);
        added.push(tile);
    }
    (cells, tiles, added)
}

/// Learns the glyphs of `board` on `img` (a screenshot of `profile`'s screen) into the
/// profile's file and its glyph strip beside it (`NAME.glyphs.png` when it has none yet).
/// The new profile text is checked to read back as meant before anything is written; then the
/// strip (new cells only ever appended) and the profile are each written to a temporary file
/// and renamed over the old, the strip first: a crash between the two leaves a strip with
/// cells the profile does not name yet, which the reader passes over.
///
/// A board that contradicts tiles the profile's reader reads surely on `img` is refused
/// unless `force`: a typo would teach a wrong glyph that is then read surely.
pub fn learn(
    profile: &Profile,
    img: &RgbaImage,
    board: &Board,
    force: bool,
) -> Result<Learned, LearnError> {
    let source = profile
        .source()
        .ok_or_else(|| LearnError::NoFile(profile.name().to_owned()))?
        .to_owned();
    if board.side() != 4 {
        return Err(LearnError::NotFourByFour(board.to_string()));
    }
    // The file as it is now (the profile in hand may be scaled to a phone's screen).
    let profile = &Profile::load(&source)?;
    let (width, height) = img.dimensions();
    let on_screen = profile.for_screen(width, height)?;
    let grid = on_screen.grid();
    if !force {
        let classifier = crate::play::classifier_for(Some(&on_screen))
            .map_err(|e| LearnError::Reader(e.to_string()))?;
        if let Some(why) = read::read(img, Some(&grid), &classifier)
            .ok()
            .and_then(|r| r.contradiction(board))
        {
            return Err(LearnError::Contradicts(why));
        }
    }
    let dir = source.parent().unwrap_or(Path::new(".")).to_owned();
    let (file, cells, tiles) = match (profile.glyphs(), profile.glyphs_path()) {
        (Some(g), Some(path)) => {
            let strip = crate::files::image(&path, crate::files::Kind::Strip)
                .map_err(|source| LearnError::Strip {
                    path: path.clone(),
                    source,
                })?
                .to_luma8();
            // The strip must be what the profile says it is before anything is added.
            crate::vision::glyph::templates(&strip, &g.tiles).map_err(|source| {
                LearnError::Mismatch {
                    path: path.clone(),
                    source,
                }
            })?;
            (g.file.clone(), cells(&strip), g.tiles.clone())
        }
        _ => (
            format!("{}.glyphs.png", profile.name()),
            Vec::new(),
            Vec::new(),
        ),
    };
    let (cells, tiles, added) = add(cells, tiles, img, &grid, board);
    let glyphs = Glyphs { file, tiles };
    let learned = Learned {
        added: added.clone(),
        glyphs: glyphs.clone(),
    };
    if added.is_empty() {
        return Ok(learned);
    }
    let text = crate::files::read_text(&source, crate::files::Kind::Config).map_err(|e| {
        LearnError::Io {
            path: source.clone(),
            source: e,
        }
    })?;
    let new_text = with_glyphs(&text, &glyphs);
    // The file written back must say what the profile says, with the new glyphs.
    let again = Profile::from_toml_str(&new_text, &source.display().to_string())
        .map_err(|e| LearnError::Rewrite(e.to_string()))?;
    let meant = profile
        .to_builder()
        .glyphs(Some(glyphs.clone()))
        .source(None)
        .build()
        .map_err(|e| LearnError::Rewrite(e.to_string()))?;
    if again != meant {
        return Err(LearnError::Rewrite(
            "the [glyphs] table did not read back as written".into(),
        ));
    }
    let strip_path = dir.join(&glyphs.file);
    let tmp = strip_path.with_extension("png.part");
    strip(&cells)
        .save_with_format(&tmp, image::ImageFormat::Png)
        .map_err(|source| LearnError::Strip {
            path: tmp.clone(),
            source,
        })?;
    rename(&tmp, &strip_path)?;
    let tmp = source.with_extension("toml.part");
    std::fs::write(&tmp, new_text).map_err(|e| LearnError::Io {
        path: tmp.clone(),
        source: e,
    })?;
    rename(&tmp, &source)?;
    Ok(learned)
}

fn rename(from: &Path, to: &Path) -> Result<(), LearnError> {
    std::fs::rename(from, to).map_err(|e| LearnError::Io {
        path: to.to_owned(),
        source: e,
    })
}

/// `text` (a profile file) with its `[glyphs]` table replaced by `glyphs`' (or added at the
/// end): every other line, comments included, is kept as the person wrote it.
pub fn with_glyphs(text: &str, glyphs: &Glyphs) -> String {
    let mut out = String::new();
    let mut inside = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with('[') {
            inside = t.starts_with("[glyphs]");
        }
        if !inside {
            out.push_str(line);
            out.push('\n');
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out + &glyphs_table(glyphs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::corpus::{Face, load_named, rounded, text_centred};
    use crate::vision::glyph::{Classifier, templates};
    use image::Rgba;

    /// A plain game screen (720x1280) with `board` in `face`: light tiles on a dark ground.
    fn screen(face: &Face, board: &Board) -> (RgbaImage, Grid) {
        let mut img = RgbaImage::from_pixel(720, 1280, Rgba([40, 30, 90, 255]));
        let (tile, pitch, x0, y0) = (150.0, 165.0, 112.5, 420.0);
        let mut centres = [(0.0, 0.0); 16];
        for (i, &t) in board.tiles().iter().enumerate() {
            let (cx, cy) = (x0 + pitch * (i % 4) as f32, y0 + pitch * (i / 4) as f32);
            centres[i] = (cx, cy);
            let h = tile / 2.0;
            rounded(
                &mut img,
                cx - h,
                cy - h,
                cx + h,
                cy + h,
                14.0,
                Rgba([245, 235, 210, 255]),
            );
            let size = if t == 16 { 72.0 } else { 90.0 };
            let text = crate::board::tile_name(t);
            text_centred(
                &mut img,
                &face.font,
                text,
                cx,
                cy,
                size,
                Rgba([40, 30, 30, 255]),
            );
        }
        (img, Grid::from_centres(centres, tile))
    }

    /// Faces the built-in references read poorly (serif: no game draws its tiles in one, which
    /// is what makes them a test of learning) and held-back sans faces they read well.
    const FACES: [&str; 4] = [
        "URWBookman-Demi",
        "DejaVuSerif-Bold",
        "Jura-Bold",
        "Hack-Bold",
    ];

    fn jpeg(img: &RgbaImage, quality: u8) -> RgbaImage {
        let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
        let mut bytes = Vec::new();
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality);
        rgb.write_with_encoder(encoder).unwrap();
        image::load_from_memory(&bytes).unwrap().to_rgba8()
    }

    #[test]
    fn one_confirmed_board_teaches_its_letters_and_spoils_none() {
        let faces = load_named(Path::new("/usr/share/fonts"), &FACES);
        if faces.len() < FACES.len() {
            crate::testing::skip(
                &format!("one of the typefaces {FACES:?}"),
                "fonts-urw-base35 fonts-dejavu-core fonts-jura fonts-hack",
            );
            return;
        }
        let boards = crate::sample::BoardSet::Dice.boards(12, 5);
        for face in &faces {
            let (first, grid) = screen(face, &boards[0]);
            let (cells, tiles, added) = add(Vec::new(), Vec::new(), &first, &grid, &boards[0]);
            // Every letter of the board is learned (a letter thrice, twice).
            assert!(
                boards[0].tiles().iter().all(|t| added.contains(t)),
                "{}",
                face.name
            );
            assert!(added.len() >= 14, "{}: {added:?}", face.name);
            let taught = Classifier::with_templates(templates(&strip(&cells), &tiles).unwrap());
            let (mut plain_ok, mut taught_ok, mut plain_wrong, mut taught_wrong) = (0, 0, 0, 0);
            for b in &boards[1..] {
                // Later screens come blurred by JPEG, as captures are.
                let (img, grid) = screen(face, b);
                let img = jpeg(&img, 60);
                let plain = read::read(&img, Some(&grid), &Classifier::built_in()).unwrap();
                let learned = read::read(&img, Some(&grid), &taught).unwrap();
                plain_ok += usize::from(plain.sure() && plain.board() == *b);
                taught_ok += usize::from(learned.sure() && learned.board() == *b);
                for ((p, t), &want) in plain.tiles.iter().zip(&learned.tiles).zip(b.tiles()) {
                    plain_wrong += usize::from(p.sure() && p.tile != want);
                    taught_wrong += usize::from(t.sure() && t.tile != want);
                    // A letter learned is read right and surely, every time.
                    if tiles.contains(&want) {
                        assert!(
                            t.sure() && t.tile == want,
                            "{}: {t:?} for {want}",
                            face.name
                        );
                    }
                }
            }
            // Learning spoils nothing: as many boards read exactly and surely, no more tiles
            // read wrong yet surely.
            assert!(
                taught_ok >= plain_ok,
                "{}: {taught_ok} < {plain_ok}",
                face.name
            );
            assert!(
                taught_wrong <= plain_wrong,
                "{}: {taught_wrong} > {plain_wrong}",
                face.name
            );
        }
    }

    #[test]
    fn the_glyphs_table_is_replaced_and_every_other_line_kept() {
        let text = "# my phone\nname = \"x\"\n[glyphs]\nfile = \"x.png\"\nboard = \"ABCD/EFGH/IJKL/MNOP\"\n\n[rules] # mine\nround_secs = 90\n";
        let g = Glyphs {
            file: "x.glyphs.png".into(),
            tiles: vec![0, 16, 4],
        };
        let out = with_glyphs(text, &g);
        assert!(
            out.starts_with("# my phone\nname = \"x\"\n[rules] # mine\nround_secs = 90\n"),
            "{out}"
        );
        assert!(
            out.ends_with(
                "# letters learned: AEQu\nfile = \"x.glyphs.png\"\nletters = \"A Qu E\"\n"
            ),
            "{out}"
        );
        assert!(!out.contains("board ="), "{out}");
    }
}
