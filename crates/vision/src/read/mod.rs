//! Reading a board off a screen: for each tile of a grid, the main glyph (not the corner value,
//! not a bonus badge), what letter it is and how sure that is, and the badge's bonus if any.
//!
//! A tile is cropped and resampled to at most `WORK` pixels a side. Its face is the most common
//! lightness, and each row's the face-like lightness of the rows around it; ink is what is
//! darker than the row's face by at least half of the contrast to the darkest ink near the
//! middle (a path line drawn over a tile is lighter than the face, so it is not ink). The
//! main glyph is the largest ink region near the middle, joined by the regions in the middle of
//! the tile or level with it that reach below its top fifth (the "u" of "Qu", pieces of a letter
//! cut by a path line); a corner value, which sits above it, and regions touching the crop's
//! edge are left out.
//!
//! Under a path line (a translucent white veil) ink is found again: by colour where ink and
//! face differ in hue (each pixel unmixed into white, ink and face: `unmix`), else by
//! lightness (`unveil`, `veiled_strokes`); what neither tells clearly is known to be hidden.
//!
//! A badge is a strongly coloured region in a corner of the tile (it may stick out of it); its
//! two letters, lighter than the badge, are read with the same classifier restricted to D or T,
//! then L or W.
//!
//! The stages, a file each, each using only those before it: `crop` (the tile resampled, its
//! face and its darkest ink), `mask` (morphology on masks), `veil` (ink under a path line),
//! `ink` (the main glyph isolated), `badge` (the bonus); here, each tile's letter is judged
//! and the board put together.

mod badge;
mod crop;
mod ink;
mod label;
mod mask;
mod qu;
#[cfg(test)]
mod tests;
mod veil;

use image::RgbaImage;

use super::glyph::Ink;
pub use super::glyph::SURE;
use super::glyph::{Classifier, Features, QU, Reference, Verdict};
use super::grid::{Grid, Polarity};
use crate::score::Bonus;
use badge::{BadgeSeen, tile_badge};
pub use ink::{CROP, Face, TileGlyph, tile_glyph, tile_glyph_with};
use ink::{Levelled, glyph_on};
use label::tinted_label;
pub use qu::{QuMarks, marks};

/// Faces darker than this (luma) are not tiles in play (a dimmed overlay, a disabled board).
const MIN_FACE: f32 = 110.0;

/// One tile as read.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TileRead {
    /// 0-25 for A-Z, 16 for Qu.
    pub tile: u8,
    /// 0 (a coin toss with `runner_up`) to 1.
    pub confidence: f32,
    pub runner_up: u8,
    pub bonus: Option<Bonus>,
}

/// Why a screen is not read as a board.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NotABoard {
    #[error("no 4x4 grid of tiles on this screen")]
    NoGrid,
    #[error("no tiles where the grid is: dark and without letters (lightness {0:.0} of 255)")]
    Dark(f32),
}

/// A glyph this many times the board's median glyph height is no letter of it (a Q's tail
/// or a J's descender reach about 1.2).
const TALLER_THAN_LETTERS: f32 = 1.4;

/// Tiles with a glyph a dark grid must show to be a board under an overlay.
const MIN_DIMMED_GLYPHS: usize = 10;

/// A board read off a screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub grid: Grid,
    /// Row-major.
    pub tiles: Vec<TileRead>,
    /// The median lightness of the tiles' faces (0-255).
    pub face: f32,
    /// Something lies over the grid's streets: a toast or a dialog (`overlay::covered`).
    pub covered: bool,
}

/// Why a board is not in play though its letters show.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Overlay {
    /// The tiles' faces are this dark (under `MIN_FACE`).
    Dark(f32),
    /// Something lies over the streets of a board read surely.
    Covered,
}

impl std::fmt::Display for Overlay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Overlay::Dark(face) => write!(
                f,
                "the board is dimmed under an overlay (tile faces at {face:.0} of 255)"
            ),
            Overlay::Covered => {
                f.write_str("something lies over the board (a toast or a dialog between the tiles)")
            }
        }
    }
}

/// How much of its confidence a glyph under a veil keeps.
const VEILED_TRUST: f32 = 0.5;

impl TileRead {
    /// Read with at least `SURE` confidence.
    pub fn sure(&self) -> bool {
        self.confidence >= SURE
    }
}

/// The tiles of a reading that were read surely (`None` where not): what a later board is
/// held against to tell whether it is the same one, come out from under what covered it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SureTiles(pub Vec<Option<u8>>);

impl SureTiles {
    /// Whether `board` may be under these tiles: every sure tile shows its letter. `None`
    /// when no tile is sure (nothing to judge by).
    pub fn agree_with(&self, board: &crate::board::Board) -> Option<bool> {
        let mut judged = false;
        for (t, &want) in self.0.iter().zip(board.tiles()) {
            if let Some(t) = t {
                judged = true;
                if *t != want {
                    return Some(false);
                }
            }
        }
        judged.then_some(true)
    }
}

impl Reading {
    /// True when every tile is read with at least `SURE` confidence (dimmed or not).
    pub fn sure(&self) -> bool {
        self.tiles.iter().all(TileRead::sure)
    }

    /// The tiles' faces are darker than tiles in play (`MIN_FACE`), or a toast lies over the
    /// grid of a board read surely: an overlay covers the board ("Get ready!"), which is not
    /// playable until it goes.
    pub fn dimmed(&self) -> bool {
        self.overlay().is_some()
    }

    /// Why the board is dimmed (`None` when it is not). Something over the
    /// streets counts only when every tile is read surely: a toast between the tiles leaves
    /// them readable but may hide a stroke (an L's foot, and the L was read as I, surely),
    /// so such a board is never played. Over a board read unsure it is left to the unsure
    /// path: a system dialog ("isn't responding") hides tiles and stays until a person acts,
    /// so it is skipped with its screenshot rather than waited out in silence.
    pub fn overlay(&self) -> Option<Overlay> {
        if self.face < MIN_FACE {
            Some(Overlay::Dark(self.face))
        } else if self.covered && self.sure() {
            Some(Overlay::Covered)
        } else {
            None
        }
    }

    /// A board to play now: every tile sure, and not dimmed.
    pub fn playable(&self) -> bool {
        self.sure() && !self.dimmed()
    }

    /// Whether `board` may be the one under this reading: every tile read surely shows the
    /// board's letter there. `None` when no tile is read surely (nothing to judge by).
    pub fn agrees_with(&self, board: &crate::board::Board) -> Option<bool> {
        self.sure_tiles().agree_with(board)
    }

    /// The tiles read surely, each `None` where the tile was not.
    pub fn sure_tiles(&self) -> SureTiles {
        SureTiles(
            self.tiles
                .iter()
                .map(|t| t.sure().then_some(t.tile))
                .collect(),
        )
    }

    /// The tiles read surely as another letter than `board` has there: (index, read, typed).
    pub fn disagreements(&self, board: &crate::board::Board) -> Vec<(usize, u8, u8)> {
        self.tiles
            .iter()
            .zip(board.tiles())
            .enumerate()
            .filter(|(_, (t, want))| t.sure() && t.tile != **want)
            .map(|(i, (t, &want))| (i, t.tile, want))
            .collect()
    }

    /// Why a board typed for this screen is not the one on it: the tiles read surely as
    /// other letters, as "row 1 col 2 reads E surely, typed Z"; `None` when no sure tile
    /// disagrees. (A typo taken as the truth would teach the reader a wrong glyph that it then
    /// reads surely, or play a board the game does not show.)
    pub fn contradiction(&self, board: &crate::board::Board) -> Option<String> {
        self.contradicting_tiles(board).map(|tiles| {
            format!(
                "the board typed is not the one on the screen: {tiles} (--force if the screen is what is wrong)"
            )
        })
    }

    /// The tiles of `contradiction`, as "row 1 col 2 reads E surely, typed Z; ...".
    pub fn contradicting_tiles(&self, board: &crate::board::Board) -> Option<String> {
        let differ = self.disagreements(board);
        (!differ.is_empty()).then(|| {
            let tiles: Vec<String> = differ
                .iter()
                .map(|&(i, read, typed)| {
                    format!(
                        "row {} col {} reads {} surely, typed {}",
                        i / 4 + 1,
                        i % 4 + 1,
                        crate::board::tile_name(read),
                        crate::board::tile_name(typed)
                    )
                })
                .collect();
            tiles.join("; ")
        })
    }

    /// The board read (`Board::from_tiles` of the tiles).
    pub fn board(&self) -> crate::board::Board {
        let tiles: Vec<u8> = self.tiles.iter().map(|t| t.tile).collect();
        crate::board::Board::from_tiles(&tiles).expect("16 tiles in range")
    }

    /// The bonus badges read, for scoring.
    pub fn bonuses(&self) -> crate::score::Bonuses {
        let board = self.board();
        let mut bonuses = crate::score::Bonuses::none();
        for (i, t) in self.tiles.iter().enumerate() {
            if let (Some(b), Some(pos)) = (t.bonus, board.pos(i / 4, i % 4)) {
                // One badge per tile: `set` cannot refuse here.
                let _ = bonuses.set(&board, pos, b);
            }
        }
        bonuses
    }
}

/// Reads the board on `img`: in `grid` when given (a profile's), else in the grid found, the
/// way round the grid says (a grid of dark tiles on the screen's negative). The tiles are read
/// on up to `READ_THREADS` threads, as many as the machine has cores.
pub fn read(
    img: &RgbaImage,
    grid: Option<&Grid>,
    classifier: &Classifier,
) -> Result<Reading, NotABoard> {
    // Asking the system reads cgroup files on Linux: once per process is enough.
    static CORES: std::sync::LazyLock<usize> =
        std::sync::LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    read_on(img, grid, classifier, (*CORES).min(READ_THREADS))
}

/// At most this many threads read tiles: beyond four tiles each, starting a thread costs
/// about what it saves.
pub const READ_THREADS: usize = 4;

/// `read` with the tiles read on `threads` threads (1: on the caller's).
pub fn read_on(
    img: &RgbaImage,
    grid: Option<&Grid>,
    classifier: &Classifier,
    threads: usize,
) -> Result<Reading, NotABoard> {
    let grid = match grid {
        Some(g) => g.clone(),
        None => super::grid::find_either(img).ok_or(NotABoard::NoGrid)?,
    };
    // Dark tiles with light letters: read on the negative, where they are light tiles with
    // dark letters as the reader knows them. Before, such a board was "no 4x4 grid" (a third
    // of the second generator's boards).
    let rows = rows_read(&grid, img.height());
    let img = as_read(img, &grid);
    let read = read_found(&img, grid, classifier, threads);
    // The negative's screen, kept for the next board of dark tiles read on this thread.
    if let std::borrow::Cow::Owned(negative) = img {
        let turned = bytes_of(&negative, rows);
        SPARE.set(Some((negative.into_raw(), turned)));
    }
    read
}

thread_local! {
    /// The screen of the last negative `read_on` made on this thread, and the bytes of it
    /// that were turned over (the rest are zero), for the next: a 1080x2400 screen is 10 MB,
    /// which the allocator handed back to be cleared for each board of dark tiles read (about
    /// 5% of reading one, session 49). Held as long as the thread lives.
    static SPARE: std::cell::Cell<Option<(Vec<u8>, std::ops::Range<usize>)>> =
        const { std::cell::Cell::new(None) };
}

/// `img` as the reader looks at it in `grid`: itself, or for a grid of dark tiles with light
/// letters the negative of the rows it looks at (on this thread's spare screen, if any).
pub fn as_read<'a>(img: &'a RgbaImage, grid: &Grid) -> std::borrow::Cow<'a, RgbaImage> {
    match grid.polarity {
        Polarity::Light => std::borrow::Cow::Borrowed(img),
        Polarity::Dark => std::borrow::Cow::Owned(negative_rows_on(
            img,
            rows_read(grid, img.height()),
            SPARE.take(),
        )),
    }
}

/// The screen with every colour turned to its opposite: dark tiles with light letters become
/// light tiles with dark ones, what the grid search and the reader look for.
pub fn negative(img: &RgbaImage) -> RgbaImage {
    negative_rows(img, 0..img.height())
}

/// `negative` on the rows `rows` of `img` alone; the others are left black and transparent.
/// A reading looks at its grid's tiles and the streets between them, so the rows of a screen
/// above and below its board need not be turned over: a 1080x2400 screen is 10 MB, and
/// turning it all over took about a tenth of reading a board of dark tiles.
pub fn negative_rows(img: &RgbaImage, rows: std::ops::Range<u32>) -> RgbaImage {
    negative_rows_on(img, rows, None)
}

/// The bytes of `rows` of `img` (rows past its bottom as up to it).
fn bytes_of(img: &RgbaImage, rows: std::ops::Range<u32>) -> std::ops::Range<usize> {
    let row = img.width() as usize * 4;
    let end = rows.end.min(img.height());
    rows.start.min(end) as usize * row..end as usize * row
}

/// `negative_rows`, made on `spare` when it is a screen of `img`'s size (with the bytes a
/// negative turned over on it: made black again where these rows do not cover them), else on
/// a new one.
fn negative_rows_on(
    img: &RgbaImage,
    rows: std::ops::Range<u32>,
    spare: Option<(Vec<u8>, std::ops::Range<usize>)>,
) -> RgbaImage {
    let len = img.as_raw().len();
    let bytes = bytes_of(img, rows);
    let mut out = match spare {
        Some((mut out, was)) if out.len() == len => {
            for stale in [
                was.start..was.end.min(bytes.start),
                was.start.max(bytes.end)..was.end,
            ] {
                if stale.start < stale.end {
                    out[stale].fill(0);
                }
            }
            out
        }
        // Zeroed memory: fresh from the system, its pages cost nothing until written.
        _ => vec![0u8; len],
    };
    // 255 - v is v with its bits turned over: copied, then a pixel's red, green and blue
    // turned over at once as a word's low three bytes (which vectorises; a quarter faster
    // than byte by byte).
    let part = &mut out[bytes.clone()];
    part.copy_from_slice(&img.as_raw()[bytes]);
    for p in part.as_chunks_mut::<4>().0 {
        *p = (u32::from_le_bytes(*p) ^ 0x00ff_ffff).to_le_bytes();
    }
    RgbaImage::from_raw(img.width(), img.height(), out).expect("the screen's own size")
}

/// The rows a reading of `grid` looks at, on a screen `height` rows tall: a pitch above its
/// top row of tiles' centres to a pitch below its bottom one. A tile's widest crop (`WIDER`
/// times its side but at most the pitch, and a fifth more for its negative) reaches at most
/// 0.6 of a pitch from its centre; the streets and badges lie between the tiles.
fn rows_read(grid: &Grid, height: u32) -> std::ops::Range<u32> {
    let top = grid.centres[0].1.min(grid.centres[3].1) - grid.pitch.1;
    let bottom = grid.centres[12].1.max(grid.centres[15].1) + grid.pitch.1;
    let top = top.floor().clamp(0.0, height as f32) as u32;
    let bottom = (bottom.ceil().max(0.0) as u32).clamp(top, height);
    top..bottom
}

fn read_found(
    img: &RgbaImage,
    grid: Grid,
    classifier: &Classifier,
    threads: usize,
) -> Result<Reading, NotABoard> {
    let (tiles, face, glyphs) = read_tiles(img, &grid, classifier, threads);
    // Dark where the tiles should be, and mostly blank: no board (a lobby, a results page
    // under the grid a profile gives). Dark with letters: a board under an overlay.
    if face < MIN_FACE && glyphs < MIN_DIMMED_GLYPHS {
        return Err(NotABoard::Dark(face));
    }
    let covered = super::overlay::covered(img, &grid);
    Ok(Reading {
        grid,
        tiles,
        face,
        covered,
    })
}

/// The main glyph of the tile centred on `c` and its features (what of it a veil hides
/// counting less).
pub fn tile_features(img: &RgbaImage, c: (f32, f32), tile: f32) -> (TileGlyph, Option<Features>) {
    tile_features_with(img, c, tile, Face::Commonest)
}

/// `tile_features`, the face found as `how` says.
pub fn tile_features_with(
    img: &RgbaImage,
    c: (f32, f32),
    tile: f32,
    how: Face,
) -> (TileGlyph, Option<Features>) {
    features_on(&Levelled::new(img, c, tile), how)
}

/// `tile_features_with` on the tile's crop as `Levelled::new` leaves it.
fn features_on(levelled: &Levelled, how: Face) -> (TileGlyph, Option<Features>) {
    let glyph = glyph_on(levelled, how);
    let features = glyph
        .ink
        .as_ref()
        .and_then(|ink| Features::partly_hidden(ink, glyph.hidden.as_deref()));
    (glyph, features)
}

/// What one tile shows before a letter is chosen for it.
struct Seen {
    /// The tile's face lightness.
    face: f32,
    /// A glyph was found (a blank tile has none).
    glyph: bool,
    features: Option<Features>,
    /// A veil (a traced path's line) lies over the glyph.
    veiled: bool,
    /// The share of the glyph in sight (1 when nothing hides it).
    in_sight: f32,
    /// The tiles the glyph may be (empty: any).
    allowed: &'static [u8],
    /// The marks of a Q the glyph shows, when it is seen whole.
    qu: QuMarks,
    /// The glyph's height in the screen's pixels (0 without one).
    height: f32,
}

/// A tile where no glyph was found is looked at again this much wider (at most `room`, the
/// grid's pitch): every tile of a board has a letter, and the grid's tile may be less than the
/// tile, as on outlined tiles, whose light square is the inside of their frame. A wide glyph
/// (Comfortaa's Qu) then reached the crop's edge and was taken for something else. Measured
/// on the held-back corpus, seeds 1-3: Qu 279/287/268 -> 279/288/272 of 284/288/273, boards
/// read exactly 253/264/263 -> 253/265/266, with no more dimmed boards read as live.
const WIDER: f32 = 1.3;

/// Whether `ink`, found on a crop of a tile `side` wide, spans more than `tile` both ways: a
/// glyph lies on its tile, and what is wider and taller than the tile's face is a tile, a
/// tinted bonus tile as dark as its letter is light, seen whole on a lighter panel by a crop
/// wider than the tile (second generator seed 4 sample 9: read as B surely once its grid was
/// centred; its letter is then read the other way round).
fn wider_than(ink: &Ink, side: f32, tile: f32) -> bool {
    let cell = side * CROP / ink.w as f32;
    ink.ink_box().is_some_and(|(x0, y0, x1, y1)| {
        (x1 - x0) as f32 * cell > tile && (y1 - y0) as f32 * cell > tile
    })
}

/// Finds the glyph of the tile centred on `c` (`tile` its side as the grid has it, at most
/// `room` in fact) and what it may be: the face as the commonest lightness, at the grid's size
/// then wider; then from the ring inside the crop's rim, likewise (`Face::OrRing`).
fn see_tile(img: &RgbaImage, c: (f32, f32), tile: f32, room: f32) -> Seen {
    see_tile_as(img, c, (tile, room), &[Face::Commonest, Face::OrRing])
}

/// `see_tile`, the face found each way of `hows` in turn, at the grid's size then wider, until
/// a glyph is found.
fn see_tile_as(img: &RgbaImage, c: (f32, f32), (tile, room): (f32, f32), hows: &[Face]) -> Seen {
    let wider = (tile * WIDER).min(room);
    let mut sizes = vec![tile];
    if wider > tile {
        sizes.push(wider);
    }
    let (mut glyph, mut features) = (TileGlyph::blank(0.0), None);
    let mut crop_side = tile;
    // Each size's crop, made when first tried and kept for the other ways.
    let mut crops: Vec<Option<Levelled>> = sizes.iter().map(|_| None).collect();
    let tries = hows.iter().flat_map(|&how| {
        sizes
            .iter()
            .enumerate()
            .map(move |(i, &side)| (i, side, how))
    });
    for (i, side, how) in tries {
        if glyph.ink.is_some() {
            break;
        }
        let levelled = crops[i].get_or_insert_with(|| Levelled::new(img, c, side));
        (glyph, features) = features_on(levelled, how);
        crop_side = side;
        if glyph
            .ink
            .as_ref()
            .is_some_and(|ink| wider_than(ink, side, tile))
        {
            (glyph, features) = (TileGlyph::blank(glyph.face), None);
        }
    }
    let in_sight = features.as_ref().map_or(1.0, Features::share_in_sight);
    let qu = match (&glyph.ink, &glyph.hidden) {
        (Some(ink), None) => marks(ink),
        _ => QuMarks::default(),
    };
    let height = glyph.ink.as_ref().map_or(0.0, |ink| {
        let cell = crop_side * CROP / ink.w as f32;
        ink.ink_box()
            .map_or(0.0, |(_, y0, _, y1)| (y1 - y0) as f32 * cell)
    });
    Seen {
        height,
        face: glyph.face,
        glyph: glyph.ink.is_some(),
        features,
        veiled: glyph.hidden.is_some(),
        in_sight,
        // Any tile may be Qu, one glyph too: some games draw it as a lone Q (told from O by
        // its tail). Kept to two-letter glyphs, a lone Q was read as O, surely: 11-20 boards
        // of 400 wrong yet sure on the second generator, none since.
        allowed: &[],
        qu,
    }
}

/// What a tile shows on the negative of the square around it: a tile of its own colour (a
/// tinted bonus tile) may show its letter the other way round from the rest, light on dark.
/// `None` when no glyph is found that way either.
fn see_tile_other_way(img: &RgbaImage, c: (f32, f32), tile: f32, room: f32) -> Option<Seen> {
    let wider = (tile * WIDER).min(room);
    let (around, at) = negative_around(img, c, wider.max(tile) * 1.2)?;
    let seen = see_tile(&around, at, tile, room);
    seen.glyph.then_some(seen)
}

/// The negative of the square of side `side` around `c` (as much of it as is on the screen),
/// and where `c` lies in it; none when too little of it is.
fn negative_around(img: &RgbaImage, c: (f32, f32), side: f32) -> Option<(RgbaImage, (f32, f32))> {
    let half = side / 2.0;
    let x0 = (c.0 - half).floor().clamp(0.0, img.width() as f32) as u32;
    let y0 = (c.1 - half).floor().clamp(0.0, img.height() as f32) as u32;
    let x1 = ((c.0 + half).ceil() as u32).clamp(x0, img.width());
    let y1 = ((c.1 + half).ceil() as u32).clamp(y0, img.height());
    if x1 - x0 < 2 || y1 - y0 < 2 {
        return None;
    }
    let part = image::imageops::crop_imm(img, x0, y0, x1 - x0, y1 - y0).to_image();
    Some((negative(&part), (c.0 - x0 as f32, c.1 - y0 as f32)))
}

/// Under a veil, the network's letter decides how far the nearest reference's is trusted: the
/// same with at least this margin, at least `VEILED_TRUST` of its confidence however much is
/// hidden...
const NETWORK_AGREES: f32 = 0.95;
/// ...another with at least this margin, not at all.
const NETWORK_DIFFERS: f32 = 0.5;

/// The letter `classifier` reads in what a tile shows, and how sure of it: a glyph under a
/// veil is trusted half as much (a stroke lost under the line can turn one letter into
/// another at a fair distance), and less the more of it is hidden, unless the network, which
/// sees the glyph another way, is all but sure of the same letter; when it is fairly sure of
/// another, the glyph is not trusted. Measured (docs/vision.md): held-back seeds 1-3, boards exactly
/// and sure 244/253/254 -> 249/256/261, classic seeds 1-6 and developed seed 1 up by 0-5, no
/// board more wrong yet sure; simulated on the tiles' verdicts, the same letter alone made one
/// (classic seed 1: a Z under a line read as L at 0.2, the network saying Z).
fn judge(seen: &Seen, classifier: &Classifier) -> (u8, f32, u8) {
    let verdict = seen
        .features
        .as_ref()
        .and_then(|f| classifier.read_letter(f, seen.allowed));
    let Some(v) = verdict else {
        return (0, 0.0, 0);
    };
    let confidence = if seen.veiled {
        veiled_trust(&v, seen.in_sight)
    } else if v.tile == QU && ROUND_ALIKE.contains(&v.runner_up) && seen.qu.is_a_q() {
        v.confidence.max(QU_MARKED)
    } else if ROUND_ALIKE.contains(&v.tile)
        && v.runner_up == QU
        && v.confidence < SURE
        && seen.qu.is_a_q()
    {
        // A coin toss between a round letter and Qu, on a glyph with a Q's marks: Qu is
        // the likelier, but the marks only break the tie, never make it sure.
        return (QU, 0.0, v.tile);
    } else {
        v.confidence
    };
    (v.tile, confidence, v.runner_up)
}

/// The letters a Q is nearest to that have no tail and no second piece of their own: against
/// them, a Q's marks (`QuMarks`) tell Qu apart. (R, P and A have a counter and ink below it
/// that reaches as far as a tail; they are left to the references.)
const ROUND_ALIKE: [u8; 4] = [b'O' - b'A', b'C' - b'A', b'G' - b'A', b'D' - b'A'];

/// How sure a verdict of Qu is, at least, when its runner-up is `ROUND_ALIKE` and the glyph
/// shows a Q's marks: sure, but under `BOARD_TEMPLATE` (no template for the rest of the
/// board).
const QU_MARKED: f32 = 0.3;

/// How far the verdict `v` on a glyph under a veil, `in_sight` of it seen, is trusted.
fn veiled_trust(v: &Verdict, in_sight: f32) -> f32 {
    let hidden = v.confidence * VEILED_TRUST * in_sight;
    match v.network {
        Some((t, margin)) if t == v.tile && margin >= NETWORK_AGREES => {
            hidden.max(v.confidence * VEILED_TRUST)
        }
        Some((t, margin)) if t != v.tile && margin >= NETWORK_DIFFERS => 0.0,
        _ => hidden,
    }
}

/// A glyph read this surely and seen whole is a template for the rest of its board: the 16
/// tiles of a board are drawn in one face, so an unsure tile is compared with its neighbours'
/// letters as with letters a profile learned. Measured on the held-back corpus (docs/vision.md): of
/// about 4,300 tiles a seed read at 0.5 or more, at most 1 was wrong (seeds 1-3).
const BOARD_TEMPLATE: f32 = 0.5;

/// Reads again, with the board's own sure glyphs as templates (`BOARD_TEMPLATE`), the tiles
/// read less surely than that: those seen whole, and those under a path line that come within
/// `TEMPLATE_SAME` of one of them (the very glyph again, what the line hides left out). Not
/// every glyph under a line: a stroke lost under it brings it near another letter of the same
/// face (measured: an N under a line read as the board's own H, surely, on held-back seed 2).
/// With `rule_out_alike` false (tiles under `SMALL_TILE`), a board's glyph rules its letter
/// out only for glyphs unlike it in counters or proportions (`glyph::alike`): two glyphs of
/// one letter drawn in so few pixels can lie farther apart than `TEMPLATE_FAR` (two O's 0.56
/// apart on a 51-pixel tile of the second generator, seed 2: the board's O ruled O out for
/// the other, read as D surely).
fn read_with_board(
    seen: &[Seen],
    out: &mut [TileRead],
    classifier: &Classifier,
    rule_out_alike: bool,
) {
    // Most boards are read surely throughout: nothing to read again.
    if out.iter().all(|r| r.confidence >= BOARD_TEMPLATE) {
        return;
    }
    let own: Vec<Reference> = seen
        .iter()
        .zip(out.iter())
        .filter(|(s, r)| !s.veiled && r.confidence >= BOARD_TEMPLATE)
        .filter_map(|(s, r)| {
            s.features.clone().map(|features| Reference {
                tile: r.tile,
                features,
            })
        })
        .collect();
    if own.is_empty() {
        return;
    }
    let with_board = classifier.with_more_templates(&own, rule_out_alike);
    for (s, r) in seen.iter().zip(out.iter_mut()) {
        let Some(f) = s.features.as_ref() else {
            continue;
        };
        // Under a line, only the very glyph again (within `TEMPLATE_SAME`) may decide.
        let same = || {
            own.iter()
                .any(|t| f.distance(&t.features) <= super::glyph::TEMPLATE_SAME)
        };
        if r.confidence < BOARD_TEMPLATE && (!s.veiled || same()) {
            (r.tile, r.confidence, r.runner_up) = judge(s, &with_board);
        }
    }
}

/// Tiles smaller than this (screen pixels) show their glyphs in so few pixels that near twins
/// differ by a pixel or two, and a verdict on them is trusted less, in proportion. Measured
/// on held-back seed 5: a Jura D on a 38-pixel tile (a 321x241 crop) was read as O at 21%,
/// the one board wrong yet sure on held-back seeds 1-5. The size was chosen on that board (at
/// 50 it stays sure); it changes no other figure on held-back seeds 1-5 or classic seeds 1-6,
/// and costs developed seed 1 one board read exactly but no longer surely (251 -> 250).
const SMALL_TILE: f32 = 60.0;

/// A bonus tile told by its colour has a colour few of the board's tiles share: at most this
/// many (itself among them). So a board of tiles all of one vivid colour is not looked at for
/// labels: looking at every such tile cost held-back seed 1 sample 25 a sixth more
/// instructions a read (175M -> 206M); looking at these, at most 3% more on the 31 screens
/// of `examples/read_time` (the slowest, held-back seed 2 sample 64: 229M -> 235M).
const TINT_SHARED_BY: usize = 6;
/// Two faces nearer than this in colour (RGB distance) share it.
const TINT_APART: f32 = 30.0;

/// The bonuses named on tiles of a vivid colour that at most `TINT_SHARED_BY` of the board's
/// tiles have (`badges`, as `tile_badge` saw each of them), by tile.
fn tinted_labels(badges: &[BadgeSeen], classifier: &Classifier) -> Vec<(usize, Option<Bonus>)> {
    let faces: Vec<[f32; 3]> = badges
        .iter()
        .filter_map(|b| match b {
            BadgeSeen::VividFace(_, face) => Some(*face),
            BadgeSeen::Badge(_) => None,
        })
        .collect();
    let shared_by = |face: [f32; 3]| {
        (faces.iter())
            .filter(|&&f| crate::colour::distance(f, face) < TINT_APART)
            .count()
    };
    badges
        .iter()
        .enumerate()
        .filter_map(|(i, b)| match b {
            BadgeSeen::VividFace(crop, face) if shared_by(*face) <= TINT_SHARED_BY => {
                Some((i, tinted_label(crop, *face, classifier)))
            }
            _ => None,
        })
        .collect()
}

/// Reads each tile of `grid` on `img` (with the median face lightness and how many tiles show
/// a glyph), the tiles shared among `threads` threads (the tiles are
/// independent; the answer does not depend on the split).
fn read_tiles(
    img: &RgbaImage,
    grid: &Grid,
    classifier: &Classifier,
    threads: usize,
) -> (Vec<TileRead>, f32, usize) {
    let per = grid.centres.len().div_ceil(threads.clamp(1, 16));
    let read_chunk = |chunk: &[(f32, f32)]| -> Vec<((Seen, TileRead), BadgeSeen)> {
        chunk
            .iter()
            .map(|&c| {
                let seen = see_tile(img, c, grid.tile, grid.pitch.0.min(grid.pitch.1));
                let (tile, confidence, runner_up) = judge(&seen, classifier);
                let badge = tile_badge(img, c, grid.tile, classifier);
                let read = TileRead {
                    tile,
                    confidence,
                    runner_up,
                    bonus: badge.bonus(),
                };
                ((seen, read), badge)
            })
            .collect()
    };
    let done: Vec<((Seen, TileRead), BadgeSeen)> = if per >= grid.centres.len() {
        read_chunk(&grid.centres)
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = grid
                .centres
                .chunks(per)
                .map(|chunk| scope.spawn(move || read_chunk(chunk)))
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    };
    let (done, badges): (Vec<(Seen, TileRead)>, Vec<BadgeSeen>) = done.into_iter().unzip();
    let (mut seen, mut out): (Vec<Seen>, Vec<TileRead>) = done.into_iter().unzip();
    for (i, label) in tinted_labels(&badges, classifier) {
        out[i].bonus = label;
    }
    // A board shows most of its letters one way round; a tile without a glyph among them may
    // be a tinted bonus tile showing its letter the other way. Seen so, the bonus tiles of the
    // second generator were read where each had been a tile without a letter (read as A at no
    // confidence). Not on a screen of few glyphs: a lock screen in a profile's grid has its
    // clock and icons the other way round too, and is no board. So is a tile whose glyph is
    // far taller than the board's letters: no letter of it, but a tinted tile's face, shaded
    // so that part of it passed for ink round its letter (second seed 13, sample 212: a W
    // read as D at 50%, surely). Where the other way shows no glyph, it stays as read.
    if seen.iter().filter(|s| s.glyph).count() >= MIN_DIMMED_GLYPHS {
        let heights = seen.iter().filter(|s| s.glyph).map(|s| s.height);
        let cap = crate::colour::median(heights).unwrap_or(f32::INFINITY);
        let room = grid.pitch.0.min(grid.pitch.1);
        for ((s, r), &c) in seen.iter_mut().zip(&mut out).zip(&grid.centres) {
            if s.glyph && s.height <= cap * TALLER_THAN_LETTERS {
                continue;
            }
            // Last, where no glyph was found, one joined to something of a colour near its
            // own (a hand over the tile), parted by its colour alone (`Face::OwnColour`).
            // After the other way: a tinted tile's letter, seen this way so, lost strokes and
            // read as another.
            let own = || see_tile_as(img, c, (grid.tile, room), &[Face::OwnColour]);
            let found = see_tile_other_way(img, c, grid.tile, room)
                .or_else(|| (!s.glyph).then(own).filter(|o| o.glyph));
            if let Some(other) = found {
                (r.tile, r.confidence, r.runner_up) = judge(&other, classifier);
                // The face as the screen shows it: what tells a board dimmed under an overlay.
                *s = Seen {
                    face: s.face,
                    ..other
                };
            }
        }
    }
    // On small tiles two glyphs of one letter can lie as far apart as two letters do: there
    // the board's own glyphs rule a letter out only for glyphs unlike them.
    read_with_board(&seen, &mut out, classifier, grid.tile >= SMALL_TILE);
    if grid.tile < SMALL_TILE {
        for r in &mut out {
            r.confidence *= grid.tile / SMALL_TILE;
        }
    }
    let mut faces: Vec<f32> = seen.iter().map(|s| s.face).collect();
    let glyphs = seen.iter().filter(|s| s.glyph).count();
    faces.sort_by(f32::total_cmp);
    (out, faces[faces.len() / 2], glyphs)
}
