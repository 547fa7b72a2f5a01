//! Draws the game's screens (lobby, round, results) at a phone's resolution, from a `View`
//! and the phone's `Layout`, with DejaVu Sans built into the binary. The look follows the
//! real game: light rounded tiles with a big bold letter and a small point value in a corner,
//! coloured DL/TL/DW/TW badges, a clock and score above the grid, three round lifeline
//! buttons under it. The tiles' letters may be drawn in another typeface (`Face`), as a real
//! game draws them in its own. Pure: pixels in memory; encoding and sending them is the
//! caller's.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use ab_glyph::{Font, FontRef, FontVec, PxScale};
use image::{GrayImage, Luma, Rgba, RgbaImage};
use imageproc::drawing::{
    draw_filled_circle_mut, draw_filled_rect_mut, draw_hollow_circle_mut, draw_line_segment_mut,
    draw_text_mut, text_size,
};
use imageproc::rect::Rect as PixelRect;

use super::game::{Screen, View};
use super::layout::{Layout, Rect, SIDE};
use crate::board::tile_name;
use crate::score::{Bonus, Rules};

fn bold() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(dejavu::sans::bold()).expect("DejaVu Sans Bold"))
}

fn regular() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(dejavu::sans::regular()).expect("DejaVu Sans"))
}

/// A typeface the tiles' letters are drawn in, read from a TrueType or OpenType file.
#[derive(Clone)]
pub struct Face {
    path: PathBuf,
    font: Arc<FontVec>,
}

impl std::fmt::Debug for Face {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Face({})", self.path.display())
    }
}

/// Why a typeface file cannot draw the tiles.
#[derive(Debug, thiserror::Error)]
pub enum FaceError {
    #[error("cannot read the typeface {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a TrueType or OpenType font", path.display())]
    NotAFont { path: PathBuf },
    #[error("the typeface {} has no glyph for {letter:?}: it cannot draw every tile", path.display())]
    Missing { path: PathBuf, letter: char },
}

impl Face {
    /// The face in the file at `path` (a collection's first), checked to draw every tile
    /// (A to Z and the u of Qu) and the clock and score (0 to 9 and the colon).
    pub fn load(path: &Path) -> Result<Face, FaceError> {
        let data =
            crate::files::read(path, crate::files::Kind::Font).map_err(|source| FaceError::Io {
                path: path.to_owned(),
                source,
            })?;
        let font = FontVec::try_from_vec(data).map_err(|_| FaceError::NotAFont {
            path: path.to_owned(),
        })?;
        if let Some(letter) = ('A'..='Z')
            .chain(['u', ':'])
            .chain('0'..='9')
            .find(|&c| font.glyph_id(c).0 == 0 || font.outline(font.glyph_id(c)).is_none())
        {
            return Err(FaceError::Missing {
                path: path.to_owned(),
                letter,
            });
        }
        Ok(Face {
            path: path.to_owned(),
            font: Arc::new(font),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

const fn rgb(r: u8, g: u8, b: u8) -> Rgba<u8> {
    Rgba([r, g, b, 255])
}

const SKY_TOP: Rgba<u8> = rgb(38, 86, 150);
const SKY_BOTTOM: Rgba<u8> = rgb(16, 38, 80);
const TILE: Rgba<u8> = rgb(250, 242, 222);
const TILE_SHADOW: Rgba<u8> = rgb(150, 128, 96);
const TILE_SELECTED: Rgba<u8> = rgb(255, 190, 70);
const INK: Rgba<u8> = rgb(40, 36, 32);
const WHITE: Rgba<u8> = rgb(255, 255, 255);
const PALE: Rgba<u8> = rgb(200, 215, 240);
const GREEN: Rgba<u8> = rgb(76, 175, 80);
const GREEN_DARK: Rgba<u8> = rgb(46, 125, 50);

fn badge_colour(bonus: Bonus) -> Rgba<u8> {
    match bonus {
        Bonus::DL => rgb(52, 136, 214),
        Bonus::TL => rgb(40, 150, 90),
        Bonus::DW => rgb(230, 120, 50),
        Bonus::TW => rgb(200, 45, 70),
    }
}

/// The screen `view` shows, drawn for `layout`, the tiles' letters in `letters` (DejaVu Sans Bold
/// without one).
pub fn render(layout: &Layout, view: &View, letters: Option<&Face>) -> RgbaImage {
    if view.off {
        // A screen that is off: screencap gives black.
        return RgbaImage::from_pixel(layout.width, layout.height, Rgba([0, 0, 0, 255]));
    }
    let mut img = RgbaImage::new(layout.width, layout.height);
    if view.locked {
        lock_screen(&mut img, layout);
        return img;
    }
    background(&mut img);
    status_bar(&mut img, layout);
    match view.screen {
        Screen::Lobby => lobby(&mut img, layout),
        Screen::Round => round(&mut img, layout, view, letters),
        Screen::Results => results(&mut img, layout, view),
    }
    overlays(&mut img, layout, view);
    img
}

/// What lies over the game: a system dialog, the dimming while it reconnects, the round's
/// banner.
fn overlays(img: &mut RgbaImage, layout: &Layout, view: &View) {
    if view.dialog {
        not_responding(img, layout);
    }
    if view.dimmed {
        reconnecting(img, layout);
    }
    if view.banner && view.screen == Screen::Round {
        banner(img, layout);
    }
}

/// What stays on a round's screen while its board does: the sky, the status bar, the tiles
/// (none selected) and the lifelines. Kept by a phone, drawn once a board: the letters' text
/// was most of the cost of every screenshot.
#[derive(Default)]
pub struct Backdrop {
    /// The board (tiles, bonuses) drawn, and the drawing.
    drawn: Option<(Vec<u8>, Vec<Option<Bonus>>, RgbaImage)>,
}

/// `render`, a round's screen drawn on `backdrop` (drawn again when its board changed): the
/// header and the selected tiles are drawn over a copy of it, then what lies over the game.
/// The pixels are `render`'s: the header and the tiles do not meet, and a tile's face is drawn
/// without antialiasing, so a selected one drawn over a plain one covers it exactly.
pub fn render_on(
    layout: &Layout,
    view: &View,
    letters: Option<&Face>,
    backdrop: &mut Backdrop,
) -> RgbaImage {
    if view.off || view.locked || view.screen != Screen::Round {
        return render(layout, view, letters);
    }
    let drawn = match &backdrop.drawn {
        Some((tiles, bonuses, img)) if *tiles == view.tiles && *bonuses == view.bonuses => img,
        _ => {
            let mut img = RgbaImage::new(layout.width, layout.height);
            background(&mut img);
            status_bar(&mut img, layout);
            let plain = View {
                selected: Vec::new(),
                ..view.clone()
            };
            tiles(&mut img, layout, &plain, letters, true, |_| true);
            lifelines(&mut img, layout);
            let board = (view.tiles.clone(), view.bonuses.clone(), img);
            &backdrop.drawn.insert(board).2
        }
    };
    let mut img = drawn.clone();
    header(&mut img, layout, view, letters);
    tiles(&mut img, layout, view, letters, false, |c| {
        view.selected.contains(&c)
    });
    overlays(&mut img, layout, view);
    img
}

/// The game's banner at a round's start: a dark rounded box across the board's middle two
/// rows, a word in white across it; the rows above and below stay in view.
fn banner(img: &mut RgbaImage, layout: &Layout) {
    let grid = layout.grid();
    let cy = (grid.y0 + grid.y1) / 2.0;
    let h = layout.pitch * 1.8;
    let bx = Rect {
        x0: grid.x0 - layout.pitch * 0.1,
        y0: cy - h / 2.0,
        x1: grid.x1 + layout.pitch * 0.1,
        y1: cy + h / 2.0,
    };
    rounded(img, bx, layout.pitch * 0.25, rgb(34, 30, 44));
    text_centred(
        img,
        "Go!",
        layout.width as f32 / 2.0,
        cy,
        layout.pitch * 0.7,
        rgb(250, 250, 250),
        bold(),
    );
}

/// Android's lock screen over the game: a dark wallpaper, the clock, a padlock, and a hint at
/// the bottom.
fn lock_screen(img: &mut RgbaImage, layout: &Layout) {
    let (w, h) = (layout.width as f32, layout.height as f32);
    for (_, y, p) in img.enumerate_pixels_mut() {
        let t = y as f32 / h.max(1.0);
        let v = (22.0 + 30.0 * t).round() as u8;
        *p = Rgba([v / 2, v, v + 18, 255]);
    }
    status_bar(img, layout);
    let white = rgb(245, 245, 245);
    text_centred(img, "12:00", w / 2.0, h * 0.22, w * 0.22, white, regular());
    let (cx, cy, r) = (w / 2.0, h * 0.88, w * 0.05);
    draw_filled_circle_mut(img, (cx as i32, cy as i32), r as i32, white);
    let hint = "Swipe up to unlock";
    text_centred(img, hint, w / 2.0, h * 0.95, w * 0.035, white, regular());
}

/// The game's overlay while it reconnects: the screen at a third of its lightness, a line of
/// white text over the middle of the grid.
fn reconnecting(img: &mut RgbaImage, layout: &Layout) {
    for p in img.pixels_mut() {
        for c in &mut p.0[..3] {
            *c /= 3;
        }
    }
    let grid = layout.grid();
    let size = layout.pitch * 0.3;
    text_centred(
        img,
        "Reconnecting...",
        layout.width as f32 / 2.0,
        (grid.y0 + grid.y1) / 2.0,
        size,
        rgb(250, 250, 250),
        bold(),
    );
}

/// Android's "isn't responding" dialog: the screen dimmed, a white box across the middle of
/// the grid with the question and its two buttons.
fn not_responding(img: &mut RgbaImage, layout: &Layout) {
    for p in img.pixels_mut() {
        for c in &mut p.0[..3] {
            *c /= 2;
        }
    }
    let w = layout.width as f32;
    let grid = layout.grid();
    let cy = (grid.y0 + grid.y1) / 2.0;
    let h = layout.pitch * 1.6;
    let bx = Rect {
        x0: w * 0.08,
        y0: cy - h / 2.0,
        x1: w * 0.92,
        y1: cy + h / 2.0,
    };
    fill(img, bx, rgb(250, 250, 250));
    let size = h * 0.11;
    text_left(
        img,
        "Scramble isn't responding",
        bx.x0 + size,
        bx.y0 + size * 1.5,
        size * 1.15,
        INK,
        regular(),
    );
    text_left(
        img,
        "Do you want to close it?",
        bx.x0 + size,
        bx.y0 + size * 3.2,
        size,
        INK,
        regular(),
    );
    let teal = rgb(0, 133, 119);
    text_right(
        img,
        "WAIT",
        bx.x1 - size,
        bx.y1 - size * 1.3,
        size,
        teal,
        bold(),
    );
    text_right(
        img,
        "CLOSE APP",
        bx.x1 - size * 5.0,
        bx.y1 - size * 1.3,
        size,
        teal,
        bold(),
    );
}

/// The sky from top to bottom, a colour a row (drawn for every screenshot: a row at a time).
fn background(img: &mut RgbaImage) {
    let (w, h) = (img.width() as usize, img.height().max(1) as f32);
    if w == 0 {
        return;
    }
    for (y, row) in img.chunks_exact_mut(w * 4).enumerate() {
        let t = y as f32 / h;
        let mix = |a: u8, b: u8| (a as f32 * (1.0 - t) + b as f32 * t).round() as u8;
        let p = [
            mix(SKY_TOP[0], SKY_BOTTOM[0]),
            mix(SKY_TOP[1], SKY_BOTTOM[1]),
            mix(SKY_TOP[2], SKY_BOTTOM[2]),
            255,
        ];
        for px in row.chunks_exact_mut(4) {
            px.copy_from_slice(&p);
        }
    }
}

fn status_bar(img: &mut RgbaImage, layout: &Layout) {
    let h = layout.status_bar;
    fill(
        img,
        Rect {
            x0: 0.0,
            y0: 0.0,
            x1: layout.width as f32,
            y1: h,
        },
        rgb(10, 20, 40),
    );
    let s = h * 0.6;
    text_right(
        img,
        "12:30",
        layout.width as f32 - h * 0.4,
        h * 0.5,
        s,
        WHITE,
        regular(),
    );
    // Battery and signal, as plain shapes.
    let bx = layout.width as f32 - h * 3.6;
    fill(
        img,
        Rect {
            x0: bx,
            y0: h * 0.3,
            x1: bx + h * 1.1,
            y1: h * 0.72,
        },
        WHITE,
    );
    for i in 0..4 {
        let x = bx - h * 1.6 + i as f32 * h * 0.28;
        let top = h * (0.72 - 0.1 * (i + 1) as f32);
        fill(
            img,
            Rect {
                x0: x,
                y0: top,
                x1: x + h * 0.18,
                y1: h * 0.72,
            },
            WHITE,
        );
    }
}

fn lobby(img: &mut RgbaImage, layout: &Layout) {
    let w = layout.width as f32;
    let h = layout.height as f32;
    text_centred(img, "SCRAMBLE", w / 2.0, h * 0.28, w * 0.14, WHITE, bold());
    text_centred(
        img,
        "with friends",
        w / 2.0,
        h * 0.36,
        w * 0.06,
        PALE,
        regular(),
    );
    text_centred(
        img,
        "Round 1 of 3 - 2:00",
        w / 2.0,
        h * 0.5,
        w * 0.05,
        PALE,
        regular(),
    );
    play_button(img, layout, "Play");
}

fn results(img: &mut RgbaImage, layout: &Layout, view: &View) {
    let w = layout.width as f32;
    let h = layout.height as f32;
    text_centred(img, "Time's up!", w / 2.0, h * 0.2, w * 0.1, WHITE, bold());
    let lines = [
        format!("Round {}", view.round),
        format!("Score {}", view.score),
        format!("Words {}", view.words),
        format!("Best possible {}", view.max_score),
    ];
    for (i, line) in lines.iter().enumerate() {
        let y = h * (0.32 + 0.07 * i as f32);
        text_centred(img, line, w / 2.0, y, w * 0.06, PALE, regular());
    }
    play_button(img, layout, "Next round");
}

fn play_button(img: &mut RgbaImage, layout: &Layout, label: &str) {
    let r = layout.play;
    let radius = r.height() * 0.3;
    rounded(img, shifted(r, r.height() * 0.08), radius, GREEN_DARK);
    rounded(img, r, radius, GREEN);
    let (cx, cy) = ((r.x0 + r.x1) / 2.0, (r.y0 + r.y1) / 2.0);
    text_centred(img, label, cx, cy, r.height() * 0.5, WHITE, bold());
}

fn round(img: &mut RgbaImage, layout: &Layout, view: &View, letters: Option<&Face>) {
    header(img, layout, view, letters);
    tiles(img, layout, view, letters, true, |_| true);
    lifelines(img, layout);
}

/// A round's header: its number, the clock and the score, and the last word entered.
fn header(img: &mut RgbaImage, layout: &Layout, view: &View, letters: Option<&Face>) {
    let w = layout.width as f32;
    // Header: round, clock, score, between the status bar and the grid.
    let (big, numbers, margin) = layout.header();
    let y_mid = numbers - big * 0.15;
    let clock = format!("{}:{:02}", view.secs_left / 60, view.secs_left % 60);
    text_left(
        img,
        &format!("Round {}", view.round),
        margin,
        y_mid - big * 0.9,
        big * 0.45,
        PALE,
        regular(),
    );
    // The clock and the score in the game's typeface (the tiles'), as a real game draws
    // them: a reader has no references for its digits.
    let (clock_at, score_at) = ((margin, numbers), (w - margin, numbers));
    match letters {
        Some(face) => {
            let font = face.font.as_ref();
            text_left(img, &clock, clock_at.0, clock_at.1, big, WHITE, font);
            let score = view.score.to_string();
            text_right(img, &score, score_at.0, score_at.1, big, WHITE, font);
        }
        None => {
            text_left(img, &clock, clock_at.0, clock_at.1, big, WHITE, bold());
            let score = view.score.to_string();
            text_right(img, &score, score_at.0, score_at.1, big, WHITE, bold());
        }
    }
    text_right(
        img,
        "Score",
        w - margin,
        y_mid - big * 0.9,
        big * 0.45,
        PALE,
        regular(),
    );
    if let Some((word, ok)) = &view.last_word {
        let colour = if *ok {
            rgb(140, 230, 140)
        } else {
            rgb(240, 150, 150)
        };
        text_centred(
            img,
            &word.to_uppercase(),
            w / 2.0,
            y_mid + big * 0.15,
            big * 0.5,
            colour,
            bold(),
        );
    }
}

/// The tiles for which `drawn` holds (by cell), selected ones lit, each on its shadow with
/// `shadows` (a tile drawn again over itself keeps the shadow it has).
fn tiles(
    img: &mut RgbaImage,
    layout: &Layout,
    view: &View,
    letters: Option<&Face>,
    shadows: bool,
    drawn: impl Fn(usize) -> bool,
) {
    let rules = Rules::scramble();
    for cell in (0..SIDE * SIDE).filter(|&c| drawn(c)) {
        let (cx, cy) = layout.centre(cell);
        let half = layout.tile / 2.0;
        let r = Rect {
            x0: cx - half,
            y0: cy - half,
            x1: cx + half,
            y1: cy + half,
        };
        let radius = layout.tile * 0.12;
        if shadows {
            rounded(img, shifted(r, layout.tile * 0.045), radius, TILE_SHADOW);
        }
        let colour = if view.selected.contains(&cell) {
            TILE_SELECTED
        } else {
            TILE
        };
        rounded(img, r, radius, colour);
        let tile = view.tiles.get(cell).copied().unwrap_or(0);
        let name = tile_name(tile);
        let size = layout.tile * if name.len() > 1 { 0.5 } else { 0.62 };
        match letters {
            Some(face) => ink_centred(img, name, cx, cy, size, INK, face.font.as_ref()),
            None => text_centred(img, name, cx, cy + layout.tile * 0.03, size, INK, bold()),
        }
        let (value, _) = rules.tile_terms(tile, None);
        let small = layout.tile * 0.2;
        text_right(
            img,
            &value.to_string(),
            r.x1 - layout.tile * 0.08,
            r.y0 + small * 0.75,
            small,
            INK,
            regular(),
        );
        if let Some(bonus) = view.bonuses.get(cell).copied().flatten() {
            let b = Rect {
                x0: r.x0 + layout.tile * 0.05,
                y0: r.y0 + layout.tile * 0.05,
                x1: r.x0 + layout.tile * 0.36,
                y1: r.y0 + layout.tile * 0.25,
            };
            rounded(img, b, layout.tile * 0.05, badge_colour(bonus));
            let (bx, by) = ((b.x0 + b.x1) / 2.0, (b.y0 + b.y1) / 2.0);
            text_centred(
                img,
                &bonus.to_string(),
                bx,
                by,
                b.height() * 0.75,
                WHITE,
                bold(),
            );
        }
    }
}

/// The lifelines: Freeze, Inspire, Scramble.
fn lifelines(img: &mut RgbaImage, layout: &Layout) {
    for (i, b) in layout.buttons.iter().enumerate() {
        let c = (b.x.round() as i32, b.y.round() as i32);
        let colours = [rgb(110, 200, 240), rgb(250, 200, 60), rgb(190, 120, 230)];
        draw_filled_circle_mut(
            img,
            (c.0, c.1 + (b.radius * 0.08) as i32),
            b.radius as i32,
            rgb(10, 25, 55),
        );
        draw_filled_circle_mut(img, c, b.radius as i32, colours[i]);
        draw_hollow_circle_mut(img, c, b.radius as i32, WHITE);
        icon(img, i, b.x, b.y, b.radius * 0.55);
        // The name under the button where the screen has room for it (not on the Nexus 7).
        let label_y = b.y + b.radius * 1.3;
        if label_y + b.radius * 0.3 < layout.height as f32 {
            text_centred(img, b.name, b.x, label_y, b.radius * 0.4, WHITE, regular());
        }
    }
}

/// A lifeline's icon: a snowflake, a light bulb, crossed arrows, as simple strokes.
fn icon(img: &mut RgbaImage, which: usize, x: f32, y: f32, r: f32) {
    let line = |img: &mut RgbaImage, a: (f32, f32), b: (f32, f32)| {
        for d in [-1.5f32, -0.5, 0.5, 1.5] {
            draw_line_segment_mut(img, (a.0 + d, a.1), (b.0 + d, b.1), WHITE);
            draw_line_segment_mut(img, (a.0, a.1 + d), (b.0, b.1 + d), WHITE);
        }
    };
    match which {
        0 => {
            for k in 0..3 {
                let a = std::f32::consts::PI * k as f32 / 3.0;
                let (dx, dy) = (r * a.cos(), r * a.sin());
                line(img, (x - dx, y - dy), (x + dx, y + dy));
            }
        }
        1 => {
            draw_filled_circle_mut(
                img,
                (x as i32, (y - r * 0.2) as i32),
                (r * 0.6) as i32,
                WHITE,
            );
            fill(
                img,
                Rect {
                    x0: x - r * 0.3,
                    y0: y + r * 0.4,
                    x1: x + r * 0.3,
                    y1: y + r * 0.8,
                },
                WHITE,
            );
        }
        _ => {
            line(img, (x - r, y - r * 0.6), (x + r, y + r * 0.6));
            line(img, (x - r, y + r * 0.6), (x + r, y - r * 0.6));
        }
    }
}

fn shifted(r: Rect, dy: f32) -> Rect {
    Rect {
        y0: r.y0 + dy,
        y1: r.y1 + dy,
        ..r
    }
}

fn fill(img: &mut RgbaImage, r: Rect, colour: Rgba<u8>) {
    let (w, h) = (r.width().round() as u32, r.height().round() as u32);
    if w > 0 && h > 0 {
        let at = PixelRect::at(r.x0.round() as i32, r.y0.round() as i32).of_size(w, h);
        draw_filled_rect_mut(img, at, colour);
    }
}

/// A rectangle with rounded corners of `radius`.
fn rounded(img: &mut RgbaImage, r: Rect, radius: f32, colour: Rgba<u8>) {
    let rad = radius.min(r.width() / 2.0).min(r.height() / 2.0);
    fill(
        img,
        Rect {
            x0: r.x0 + rad,
            x1: r.x1 - rad,
            ..r
        },
        colour,
    );
    fill(
        img,
        Rect {
            y0: r.y0 + rad,
            y1: r.y1 - rad,
            ..r
        },
        colour,
    );
    for (cx, cy) in [
        (r.x0 + rad, r.y0 + rad),
        (r.x1 - rad, r.y0 + rad),
        (r.x0 + rad, r.y1 - rad),
        (r.x1 - rad, r.y1 - rad),
    ] {
        draw_filled_circle_mut(
            img,
            (cx.round() as i32, cy.round() as i32),
            rad.round() as i32,
            colour,
        );
    }
}

/// Draws `text` with its ink box's centre at (cx, cy).
fn text_centred(
    img: &mut RgbaImage,
    text: &str,
    cx: f32,
    cy: f32,
    size: f32,
    colour: Rgba<u8>,
    font: &impl Font,
) {
    let (w, _) = text_size(PxScale::from(size), font, text);
    place(img, text, cx - w as f32 / 2.0, cy, size, colour, font);
}

fn text_left(
    img: &mut RgbaImage,
    text: &str,
    x: f32,
    cy: f32,
    size: f32,
    colour: Rgba<u8>,
    font: &impl Font,
) {
    place(img, text, x, cy, size, colour, font);
}

fn text_right(
    img: &mut RgbaImage,
    text: &str,
    x: f32,
    cy: f32,
    size: f32,
    colour: Rgba<u8>,
    font: &impl Font,
) {
    let (w, _) = text_size(PxScale::from(size), font, text);
    place(img, text, x - w as f32, cy, size, colour, font);
}

/// Draws `text` in any `font` with the box of its ink centred on (cx, cy): drawn apart first,
/// so that no metric of the face is assumed.
fn ink_centred(
    img: &mut RgbaImage,
    text: &str,
    cx: f32,
    cy: f32,
    size: f32,
    colour: Rgba<u8>,
    font: &impl Font,
) {
    let scale = PxScale::from(size);
    let (w, h) = text_size(scale, font, text);
    let pad = size.ceil() as u32;
    let mut ink = GrayImage::new(w + 2 * pad, h + 2 * pad);
    draw_text_mut(
        &mut ink,
        Luma([255]),
        pad as i32,
        pad as i32,
        scale,
        font,
        text,
    );
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
    for (x, y, p) in ink.enumerate_pixels() {
        if p.0[0] > 0 {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
    }
    if x0 > x1 {
        return;
    }
    let dx = (cx - (x0 + x1 + 1) as f32 / 2.0).round() as i64;
    let dy = (cy - (y0 + y1 + 1) as f32 / 2.0).round() as i64;
    for y in y0..=y1 {
        for x in x0..=x1 {
            let a = ink.get_pixel(x, y).0[0] as f32 / 255.0;
            let (tx, ty) = (x as i64 + dx, y as i64 + dy);
            if a == 0.0 || tx < 0 || ty < 0 || tx >= img.width() as i64 || ty >= img.height() as i64
            {
                continue;
            }
            let p = img.get_pixel_mut(tx as u32, ty as u32);
            for (c, &k) in p.0[..3].iter_mut().zip(&colour.0[..3]) {
                *c = (*c as f32 * (1.0 - a) + k as f32 * a).round() as u8;
            }
        }
    }
}

/// Draws `text` starting at x with its capital letters vertically centred on cy.
fn place(
    img: &mut RgbaImage,
    text: &str,
    x: f32,
    cy: f32,
    size: f32,
    colour: Rgba<u8>,
    font: &impl Font,
) {
    // DejaVu's capitals rise 0.73 em above the baseline, which sits 0.76 em below the top.
    let top = cy - size * (0.76 - 0.73 / 2.0);
    draw_text_mut(
        img,
        colour,
        x.round() as i32,
        top.round() as i32,
        PxScale::from(size),
        font,
        text,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::model::Model;

    fn view(screen: Screen) -> View {
        View {
            screen,
            round: 2,
            tiles: (0..16).collect(),
            bonuses: (0..16).map(|i| (i == 5).then_some(Bonus::DW)).collect(),
            secs_left: 95,
            score: 42,
            words: 7,
            selected: vec![0, 1],
            last_word: Some(("cat".into(), true)),
            max_score: 900,
            dialog: false,
            dimmed: false,
            banner: false,
            off: false,
            locked: false,
        }
    }

    /// A screen drawn on a kept backdrop is the screen drawn whole, pixel for pixel: for each
    /// phone, strokes of every length, with and without a last word, a badge, overlays, and a
    /// board changed under the backdrop (drawn again).
    #[test]
    fn a_round_drawn_on_its_backdrop_is_the_round_drawn_whole() {
        for model in Model::ALL {
            let layout = Layout::of(model);
            let mut backdrop = Backdrop::default();
            let views = [
                view(Screen::Round),
                View {
                    selected: vec![5, 6, 10, 15, 14, 13, 12, 8, 4, 0],
                    last_word: None,
                    ..view(Screen::Round)
                },
                View {
                    selected: Vec::new(),
                    dimmed: true,
                    ..view(Screen::Round)
                },
                View {
                    banner: true,
                    dialog: true,
                    selected: vec![9],
                    ..view(Screen::Round)
                },
                View {
                    tiles: (0..16).rev().collect(),
                    bonuses: (0..16).map(|i| (i % 5 == 0).then_some(Bonus::TL)).collect(),
                    selected: vec![3, 7],
                    ..view(Screen::Round)
                },
                view(Screen::Results),
                view(Screen::Round),
            ];
            for (i, v) in views.iter().enumerate() {
                let on = render_on(&layout, v, None, &mut backdrop);
                assert!(on == render(&layout, v, None), "{model:?}, view {i}");
            }
        }
    }

    #[test]
    fn every_screen_draws_at_the_models_resolution() {
        for model in Model::ALL {
            let layout = Layout::of(model);
            for screen in [Screen::Lobby, Screen::Round, Screen::Results] {
                let img = render(&layout, &view(screen), None);
                assert_eq!(img.dimensions(), (layout.width, layout.height));
            }
        }
    }

    #[test]
    fn the_lock_screen_covers_the_game_and_is_no_board() {
        let layout = Layout::of(Model::Nexus7);
        let locked = View {
            locked: true,
            ..view(Screen::Round)
        };
        let img = render(&layout, &locked, None);
        assert_ne!(img, render(&layout, &view(Screen::Round), None));
        let (cx, cy) = layout.centre(2);
        assert_ne!(*img.get_pixel(cx as u32, cy as u32), TILE);
        assert!(!crate::play::look::black(&img));
        let centres: [(f32, f32); 16] = std::array::from_fn(|i| layout.centre(i));
        let grid = crate::vision::grid::Grid::from_centres(centres, layout.tile);
        let classifier = crate::vision::glyph::Classifier::built_in();
        for grid in [Some(&grid), None] {
            let read = crate::vision::read::read(&img, grid, &classifier);
            assert!(read.is_err(), "a lock screen read as a board");
        }
    }

    #[test]
    fn a_screenshot_turned_or_cut_is_no_board_in_the_profile_s_grid() {
        // A phone turned to landscape (its launcher or lock screen follows it) gives a
        // screenshot of another shape than its profile's; a cut one, part of the grid off it.
        // Either may look like a board, but never one read surely: nothing is played.
        let layout = Layout::of(Model::Nexus7);
        let img = render(&layout, &view(Screen::Round), None);
        let centres: [(f32, f32); 16] = std::array::from_fn(|i| layout.centre(i));
        let grid = crate::vision::grid::Grid::from_centres(centres, layout.tile);
        let classifier = crate::vision::glyph::Classifier::built_in();
        assert!(crate::vision::read::read(&img, Some(&grid), &classifier).is_ok());
        let (w, h) = img.dimensions();
        let cut = |w: u32, h: u32| image::imageops::crop_imm(&img, 0, 0, w, h).to_image();
        for other in [
            image::imageops::rotate90(&img),
            cut(w, h / 2),
            cut(w / 2, h),
            cut(1, 1),
        ] {
            let read = crate::vision::read::read(&other, Some(&grid), &classifier);
            assert!(
                !read.is_ok_and(|r| r.playable()),
                "{:?} read as a board to play",
                other.dimensions()
            );
        }
    }

    #[test]
    fn tiles_are_light_with_dark_ink_and_selected_tiles_stand_out() {
        let layout = Layout::of(Model::Nexus7);
        let img = render(&layout, &view(Screen::Round), None);
        // A tile's face near its edge is the tile colour; the middle of "A" (cell 0, selected)
        // and of "B" (cell 2, plain) hold dark ink somewhere on their centre row.
        let px = |x: f32, y: f32| *img.get_pixel(x as u32, y as u32);
        let (cx, cy) = layout.centre(2);
        assert_eq!(px(cx - layout.tile * 0.4, cy), TILE);
        assert_eq!(
            px(layout.centre(0).0 - layout.tile * 0.4, layout.centre(0).1),
            TILE_SELECTED
        );
        let dark = (0..layout.tile as u32 / 2)
            .map(|dx| px(cx - layout.tile / 4.0 + dx as f32, cy))
            .filter(|p| p[0] < 100)
            .count();
        assert!(dark > 5, "the letter's ink: {dark} dark pixels");
    }
}
