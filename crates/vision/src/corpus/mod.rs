//! A seeded corpus of game screens the reader has never seen, to measure it: boards drawn in
//! typefaces other than the reader's references (loaded from font files on disk), in random
//! colours, sizes and resolutions, with corner values, bonus badges, highlighted tiles, a traced
//! path's translucent line, blur and JPEG; and screens that are not boards (menus, results, a
//! board under a dimmed overlay, a keyboard).

pub mod capture;
pub mod gallery;
pub mod header;
pub mod second;
pub mod wide;

use std::path::{Path, PathBuf};

use ab_glyph::{Font, FontVec, PxScale, ScaleFont};
use image::{Rgba, RgbaImage};
use imageproc::drawing::{draw_filled_circle_mut, draw_polygon_mut, draw_text_mut};
use imageproc::point::Point;

use crate::board::tile_name;
use crate::sample::Rng;
use crate::score::{Bonus, Rules};

/// Bold sans-serif faces that Debian packages and the reader has no references for (file stems;
/// packages fonts-liberation2 fonts-roboto-unhinted fonts-open-sans fonts-lato fonts-urw-base35
/// fonts-freefont-ttf fonts-cantarell fonts-croscore fonts-inter).
pub const UNSEEN_FACES: [&str; 14] = [
    "LiberationSans-Bold",
    "Roboto-Bold",
    "RobotoCondensed-Bold",
    "OpenSans-Bold",
    "OpenSans-Semibold",
    "Lato-Bold",
    "Lato-Black",
    "NimbusSans-Bold",
    "NimbusSansNarrow-Bold",
    "URWGothic-Demi",
    "FreeSansBold",
    "Cantarell-Bold",
    "Arimo-Bold",
    "Inter-Bold",
];

/// The Debian packages that hold every corpus's typefaces.
pub const FONT_PACKAGES: &str = "fonts-liberation2 fonts-roboto-unhinted fonts-open-sans fonts-lato fonts-urw-base35 fonts-freefont-ttf fonts-cantarell fonts-croscore fonts-inter fonts-comfortaa fonts-quicksand fonts-dosis fonts-oxygen fonts-b612 fonts-jura fonts-sil-andika fonts-hack fonts-mplus";

/// Families held back from development, by file-name prefix: no learned part of the reader
/// is trained on a face of theirs (`wide::HELD_BACK_FACES`), nor on their kin: Liberation
/// Mono is Cousine's design, and Hack was made from DejaVu Sans Mono.
pub const HELD_BACK_FAMILIES: [&str; 12] = [
    "Comfortaa",
    "Quicksand",
    "Dosis",
    "Oxygen",
    "B612",
    "Jura",
    "Andika",
    "Hack",
    "Mplus",
    "Cousine",
    "LiberationMono",
    "DejaVuSansMono",
];

/// Weights a face's name says it is heavy enough for a game tile.
const HEAVY: [&str; 6] = ["Bold", "Black", "Heavy", "Demi", "Semibold", "SemiBold"];

/// The typefaces under `dir` the reader's learned parts may be trained on (file stems,
/// sorted): every upright heavy face that draws every capital and u (a face for another
/// script draws them as empty boxes), of no held-back family and of no family the second
/// generator draws in, so that both measure faces never trained on.
pub fn training_faces(dir: &Path) -> Vec<String> {
    let named = |s: &str| {
        HEAVY.iter().any(|h| s.contains(h))
            && !s.contains("Italic")
            && !s.contains("Oblique")
            && !HELD_BACK_FAMILIES
                .iter()
                .chain(&second::FAMILIES)
                .any(|f| s.starts_with(f))
    };
    // Only the files the name admits are opened.
    let draws_latin = |p: &Path| {
        std::fs::read(p).is_ok_and(|bytes| {
            ab_glyph::FontRef::try_from_slice(&bytes)
                .is_ok_and(|f| ('A'..='Z').chain(['u']).all(|c| f.glyph_id(c).0 != 0))
        })
    };
    let mut stems: Vec<String> = font_files(dir)
        .iter()
        .filter_map(|p| Some((p, p.file_stem()?.to_str()?)))
        .filter(|&(p, s)| named(s) && draws_latin(p))
        .map(|(_, s)| s.to_owned())
        .collect();
    stems.sort();
    stems.dedup();
    stems
}

/// A typeface loaded from disk.
pub struct Face {
    pub name: String,
    pub font: FontVec,
}

/// Finds the `UNSEEN_FACES` under `dir` (searched recursively; the first file of each name).
pub fn load_faces(dir: &Path) -> Vec<Face> {
    load_named(dir, &UNSEEN_FACES)
}

/// The TrueType and OpenType files under `dir` (searched recursively), sorted.
pub fn font_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|e| e.to_str()), Some("ttf" | "otf")) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// The first of `font_files(dir)` whose name without extension is `stem`.
pub fn font_file(dir: &Path, stem: &str) -> Option<PathBuf> {
    font_files(dir)
        .into_iter()
        .find(|p| p.file_stem().and_then(|s| s.to_str()) == Some(stem))
}

/// Finds the faces of these file stems under `dir` (searched recursively; the first file of
/// each name), in the order named; those not found are left out.
pub fn load_named(dir: &Path, names: &[&str]) -> Vec<Face> {
    let files = font_files(dir);
    let mut out = Vec::new();
    for &name in names {
        let found = files
            .iter()
            .find(|p| p.file_stem().and_then(|s| s.to_str()) == Some(name));
        if let Some(p) = found
            && let Ok(bytes) = std::fs::read(p)
            && let Ok(font) = FontVec::try_from_vec(bytes)
        {
            out.push(Face {
                name: name.to_string(),
                font,
            });
        }
    }
    out
}

/// One generated screen and what is on it.
pub struct Sample {
    pub image: RgbaImage,
    /// The tiles and bonuses, row-major, when the screen shows a board in play.
    pub board: Option<([u8; 16], [Option<Bonus>; 16])>,
    /// The board is under a dark overlay (a toast before the round): not yet playable.
    pub dimmed: bool,
    /// What kind of screen this is and how it was drawn, for reports.
    pub description: String,
}

const SIZES: [(u32, u32); 6] = [
    (480, 800),
    (720, 1280),
    (1080, 1920),
    (1080, 2400),
    (1125, 2436),
    (1440, 3120),
];

fn uniform(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    lo + (hi - lo) * (rng.below(1_000_001) as f32 / 1_000_000.0)
}

fn chance(rng: &mut Rng, p: f32) -> bool {
    uniform(rng, 0.0, 1.0) < p
}

fn luma(c: Rgba<u8>) -> f32 {
    0.299 * c[0] as f32 + 0.587 * c[1] as f32 + 0.114 * c[2] as f32
}

/// A random colour whose lightness lies in `lo..hi`.
fn colour(rng: &mut Rng, lo: f32, hi: f32) -> Rgba<u8> {
    loop {
        let c = Rgba([
            rng.below(256) as u8,
            rng.below(256) as u8,
            rng.below(256) as u8,
            255,
        ]);
        if (lo..hi).contains(&luma(c)) {
            return c;
        }
    }
}

/// A saturated colour of middle lightness, as badges are.
fn vivid(rng: &mut Rng) -> Rgba<u8> {
    loop {
        let c = colour(rng, 50.0, 160.0);
        let max = c[0].max(c[1]).max(c[2]);
        let min = c[0].min(c[1]).min(c[2]);
        if max - min >= 120 {
            return c;
        }
    }
}

/// Blends `c` over `p` with opacity `a`.
fn blend(p: &mut Rgba<u8>, c: Rgba<u8>, a: f32) {
    for ch in 0..3 {
        p[ch] = (p[ch] as f32 * (1.0 - a) + c[ch] as f32 * a).round() as u8;
    }
}

/// Fills a rectangle with rounded corners (antialiased at the corners by 4x4 supersampling).
pub fn rounded(img: &mut RgbaImage, x0: f32, y0: f32, x1: f32, y1: f32, r: f32, c: Rgba<u8>) {
    painted(img, (x0, y0, x1, y1), r, |_, _| c);
}

/// `rounded`, each pixel's colour given by `paint` from its place in the box (0 to 1 across,
/// 0 to 1 down): gradients and textures.
fn painted(
    img: &mut RgbaImage,
    (x0, y0, x1, y1): (f32, f32, f32, f32),
    r: f32,
    paint: impl Fn(f32, f32) -> Rgba<u8>,
) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let r = r.min((x1 - x0) / 2.0).min((y1 - y0) / 2.0);
    let inside = |x: f32, y: f32| {
        // max-then-min, not clamp: with r half the side, x0 + r may round above x1 - r.
        let cx = x.max(x0 + r).min(x1 - r);
        let cy = y.max(y0 + r).min(y1 - r);
        (x - cx).powi(2) + (y - cy).powi(2) <= r * r && x >= x0 && x <= x1 && y >= y0 && y <= y1
    };
    for y in (y0.floor() as i64).max(0)..(y1.ceil() as i64).min(h) {
        for x in (x0.floor() as i64).max(0)..(x1.ceil() as i64).min(w) {
            let (fx, fy) = (x as f32, y as f32);
            let corner = (fx < x0 + r || fx > x1 - r - 1.0) && (fy < y0 + r || fy > y1 - r - 1.0);
            let edge = fx < x0 + 1.0 || fy < y0 + 1.0 || fx > x1 - 2.0 || fy > y1 - 2.0;
            let a = if corner || edge {
                let mut k = 0;
                for sy in 0..4 {
                    for sx in 0..4 {
                        if inside(fx + (sx as f32 + 0.5) / 4.0, fy + (sy as f32 + 0.5) / 4.0) {
                            k += 1;
                        }
                    }
                }
                k as f32 / 16.0
            } else {
                1.0
            };
            if a > 0.0 {
                let c = paint((fx - x0) / (x1 - x0), (fy - y0) / (y1 - y0));
                blend(img.get_pixel_mut(x as u32, y as u32), c, a);
            }
        }
    }
}

/// Draws `text` with the centre of its capitals' box at (cx, cy).
pub fn text_centred(
    img: &mut RgbaImage,
    font: &FontVec,
    text: &str,
    cx: f32,
    cy: f32,
    size: f32,
    c: Rgba<u8>,
) {
    let scaled = font.as_scaled(PxScale::from(size));
    let mut width = 0.0;
    let mut previous = None;
    for ch in text.chars() {
        let id = scaled.glyph_id(ch);
        if let Some(p) = previous {
            width += scaled.kern(p, id);
        }
        width += scaled.h_advance(id);
        previous = Some(id);
    }
    // The capital height: the box of 'H'.
    let cap = font
        .outline_glyph(scaled.glyph_id('H').with_scale(size))
        .map(|o| o.px_bounds().height())
        .unwrap_or(size * 0.7);
    // imageproc puts the top of the line (ascent) at y.
    let top = cy + cap / 2.0 - scaled.ascent();
    draw_text_mut(
        img,
        c,
        (cx - width / 2.0).round() as i32,
        top.round() as i32,
        PxScale::from(size),
        font,
        text,
    );
}

/// Box blur of radius 1, `passes` times.
fn blur(img: &mut RgbaImage, passes: usize) {
    // Each pixel becomes the mean (floored) of the 3x3 square around it, of those of its
    // pixels on the screen. A square's sums are its three rows' sums of three: each row's
    // sums of three are taken once (whole rows shifted and added, which vectorises), then
    // added three rows at a time.
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w == 0 || h == 0 {
        return;
    }
    let line = w * 4;
    // Sums of each byte's row neighbours (itself and the same channel on either side).
    let mut across = vec![0u16; line * h];
    let mut square = vec![0u16; line];
    // n / d floored is (n * m) >> 20 with m = 2^20 / d rounded up, for every sum of nine
    // bytes and every count of pixels (1 to 9): the error stays under 1/456 of a unit.
    let over: [u32; 10] = std::array::from_fn(|d| (1u32 << 20).div_ceil(d.max(1) as u32));
    for _ in 0..passes {
        for (sums, row) in across
            .chunks_exact_mut(line)
            .zip(img.as_raw().chunks_exact(line))
        {
            for (s, &v) in sums.iter_mut().zip(row) {
                *s = u16::from(v);
            }
            for (s, &v) in sums[4..].iter_mut().zip(&row[..line - 4]) {
                *s += u16::from(v);
            }
            for (s, &v) in sums[..line - 4].iter_mut().zip(&row[4..]) {
                *s += u16::from(v);
            }
        }
        for (y, out) in img.as_mut().chunks_exact_mut(line).enumerate() {
            let rows = y.saturating_sub(1)..(y + 2).min(h);
            let tall = rows.len();
            square.copy_from_slice(&across[rows.start * line..][..line]);
            for ny in rows.skip(1) {
                for (s, &a) in square.iter_mut().zip(&across[ny * line..][..line]) {
                    *s += a;
                }
            }
            for (x, (px, sums)) in out
                .chunks_exact_mut(4)
                .zip(square.chunks_exact(4))
                .enumerate()
            {
                let wide = 1 + usize::from(x > 0) + usize::from(x + 1 < w);
                let m = over[tall * wide];
                for (v, &sum) in px[..3].iter_mut().zip(sums) {
                    *v = ((u32::from(sum) * m) >> 20) as u8;
                }
            }
        }
    }
}

fn background(rng: &mut Rng, w: u32, h: u32) -> RgbaImage {
    let top = colour(rng, 10.0, 120.0);
    let bottom = colour(rng, 10.0, 120.0);
    // One colour a row, filled along it.
    let mut img = RgbaImage::new(w, h);
    for (y, row) in img.as_mut().chunks_exact_mut(w as usize * 4).enumerate() {
        let t = y as f32 / h as f32;
        let mut p = top;
        blend(&mut p, bottom, t);
        for px in row.chunks_exact_mut(4) {
            px.copy_from_slice(&p.0);
        }
    }
    img
}

/// Random text of `n` capitals and digits.
fn gibberish(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| {
            let k = rng.below(36);
            if k < 26 {
                (b'A' + k as u8) as char
            } else {
                (b'0' + (k - 26) as u8) as char
            }
        })
        .collect()
}

/// The board part of a screen: returns the tiles and bonuses drawn.
fn draw_board(
    img: &mut RgbaImage,
    rng: &mut Rng,
    faces: &[Face],
    notes: &mut Vec<String>,
) -> ([u8; 16], [Option<Bonus>; 16]) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let face = &faces[rng.below(faces.len())];
    notes.push(face.name.clone());
    let tile = w * uniform(rng, 0.15, 0.2);
    let gap = tile * uniform(rng, 0.06, 0.22);
    let pitch = tile + gap;
    let x0 = w / 2.0 - pitch * 1.5 + uniform(rng, -0.02, 0.02) * w;
    let y0 = h * uniform(rng, 0.35, 0.55) - pitch * 1.5;
    let radius = tile * uniform(rng, 0.03, 0.2);
    let face_colour = colour(rng, 200.0, 256.0);
    let ink = colour(rng, 0.0, 70.0);
    let glyph_size = tile * uniform(rng, 0.5, 0.7);
    let qu_text = if chance(rng, 0.5) { "Qu" } else { "QU" };
    let shadow = chance(rng, 0.6).then(|| colour(rng, 0.0, 90.0));
    let value_corner = rng.below(4); // 0 top-right, 1 top-left, 2 bottom-right, 3 none
    let badge_corner = if value_corner == 1 { 0 } else { 1 }; // 0 top-right, 1 top-left
    let badge_round = chance(rng, 0.5);
    let badge_out = chance(rng, 0.5);
    let (tiles, bonuses) = deal(rng, 0.5);
    let badge_colours = [vivid(rng), vivid(rng), vivid(rng), vivid(rng)];
    let highlighted = highlights(rng, 0.3);
    let highlight = colour(rng, 160.0, 230.0);
    for i in 0..16 {
        let ((cx, cy), (tx0, ty0, tx1, ty1)) = tile_box((x0, y0), pitch, tile, i);
        if let Some(s) = shadow {
            rounded(
                img,
                tx0,
                ty0 + tile * 0.05,
                tx1,
                ty1 + tile * 0.05,
                radius,
                s,
            );
        }
        let fc = if highlighted.contains(&i) {
            highlight
        } else {
            face_colour
        };
        rounded(img, tx0, ty0, tx1, ty1, radius, fc);
        let text = if tiles[i] == 16 {
            qu_text
        } else {
            tile_name(tiles[i])
        };
        let size = if tiles[i] == 16 {
            glyph_size * 0.8
        } else {
            glyph_size
        };
        text_centred(img, &face.font, text, cx, cy, size, ink);
        if value_corner < 3 {
            let small = tile * uniform(rng, 0.15, 0.22);
            let at = (tx0, ty0, tx1, ty1);
            corner_value(img, &face.font, tiles[i], at, value_corner, small, ink);
        }
        if let Some(b) = bonuses[i] {
            let bs = tile * uniform(rng, 0.24, 0.32);
            let off = if badge_out { -bs * 0.3 } else { tile * 0.03 };
            let bx0 = if badge_corner == 1 {
                tx0 + off
            } else {
                tx1 - off - bs
            };
            let by0 = ty0 + off;
            let bc = badge_colours[b as usize];
            let r = if badge_round { bs / 2.0 } else { bs * 0.15 };
            rounded(img, bx0, by0, bx0 + bs, by0 + bs * 0.8, r, bc);
            text_centred(
                img,
                &face.font,
                &format!("{b:?}"),
                bx0 + bs / 2.0,
                by0 + bs * 0.4,
                bs * 0.42,
                Rgba([255, 255, 255, 255]),
            );
        }
    }
    let at = |i: usize| (x0 + pitch * (i % 4) as f32, y0 + pitch * (i / 4) as f32);
    path_line(img, rng, at, tile, &highlighted, notes);
    (tiles, bonuses)
}

/// What a capture does to a screen: a blur (with chance `p.0`), JPEG from quality
/// `lowest` to 95 (with chance `p.1`).
fn degrade(img: &mut RgbaImage, rng: &mut Rng, notes: &mut Vec<String>, p: (f32, f32), lowest: u8) {
    if chance(rng, p.0) {
        blur(img, 1);
        notes.push("blur".into());
    }
    if chance(rng, p.1) {
        let q = lowest + rng.below(usize::from(96 - lowest)) as u8;
        *img = capture::jpeg(img, q);
        notes.push(format!("jpeg q{q}"));
    }
}

/// Tile `i` (row-major) of a board whose first centre is `first`: its centre and its box
/// (left, top, right, bottom).
fn tile_box(
    first: (f32, f32),
    pitch: f32,
    tile: f32,
    i: usize,
) -> ((f32, f32), (f32, f32, f32, f32)) {
    let (cx, cy) = (
        first.0 + pitch * (i % 4) as f32,
        first.1 + pitch * (i / 4) as f32,
    );
    let h = tile / 2.0;
    ((cx, cy), (cx - h, cy - h, cx + h, cy + h))
}

/// Random tiles (Qu on about a third of the boards) and, with chance `p`, one to four bonus
/// tiles.
fn deal(rng: &mut Rng, p: f32) -> ([u8; 16], [Option<Bonus>; 16]) {
    let mut tiles = [0u8; 16];
    for t in &mut tiles {
        *t = rng.below(26) as u8;
    }
    if chance(rng, 0.35) {
        tiles[rng.below(16)] = 16;
    }
    let mut bonuses = [None; 16];
    if chance(rng, p) {
        for _ in 0..1 + rng.below(4) {
            bonuses[rng.below(16)] =
                Some([Bonus::DL, Bonus::TL, Bonus::DW, Bonus::TW][rng.below(4)]);
        }
    }
    (tiles, bonuses)
}

/// With chance `p`, one to five highlighted tiles (the same may come twice).
fn highlights(rng: &mut Rng, p: f32) -> Vec<usize> {
    if chance(rng, p) {
        (0..1 + rng.below(5)).map(|_| rng.below(16)).collect()
    } else {
        Vec::new()
    }
}

/// The tile's Scramble value in a corner of its box (left, top, right, bottom): `corner` 0
/// top-right, 1 top-left, 2 bottom-right.
fn corner_value(
    img: &mut RgbaImage,
    font: &FontVec,
    tile: u8,
    (x0, y0, x1, y1): (f32, f32, f32, f32),
    corner: usize,
    size: f32,
    ink: Rgba<u8>,
) {
    let value = Rules::scramble().tile_terms(tile, None).0.to_string();
    let inset = (x1 - x0) * 0.15;
    let x = if corner == 1 { x0 + inset } else { x1 - inset };
    let y = if corner == 2 { y1 - inset } else { y0 + inset };
    text_centred(img, font, &value, x, y, size, ink);
}

/// Maybe (one time in two, when at least two tiles are highlighted) a traced path: a solid
/// translucent white line through the `highlighted` tiles' centres (`at`), with round joints,
/// as games draw it.
fn path_line(
    img: &mut RgbaImage,
    rng: &mut Rng,
    at: impl Fn(usize) -> (f32, f32),
    tile: f32,
    highlighted: &[usize],
    notes: &mut Vec<String>,
) {
    if highlighted.len() >= 2 && chance(rng, 0.5) {
        let width = tile * uniform(rng, 0.1, 0.2);
        let alpha = uniform(rng, 0.5, 0.85);
        let mut mark = RgbaImage::new(img.width(), img.height());
        let white = Rgba([255, 255, 255, 255]);
        for pair in highlighted.windows(2) {
            let (a, b) = (at(pair[0]), at(pair[1]));
            let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
            if len < 1.0 {
                continue;
            }
            let (nx, ny) = (
                -(b.1 - a.1) / len * width / 2.0,
                (b.0 - a.0) / len * width / 2.0,
            );
            let corner = |x: f32, y: f32| Point::new(x.round() as i32, y.round() as i32);
            let quad = [
                corner(a.0 + nx, a.1 + ny),
                corner(b.0 + nx, b.1 + ny),
                corner(b.0 - nx, b.1 - ny),
                corner(a.0 - nx, a.1 - ny),
            ];
            draw_polygon_mut(&mut mark, &quad, white);
        }
        for &i in highlighted {
            let (cx, cy) = at(i);
            let r = (width / 2.0).round() as i32;
            draw_filled_circle_mut(&mut mark, (cx.round() as i32, cy.round() as i32), r, white);
        }
        // The line's pixels (set in `mark`) are veiled in white.
        for (p, m) in img.pixels_mut().zip(mark.pixels()) {
            if m[3] > 0 {
                blend(p, Rgba([255, 255, 255, 255]), alpha);
            }
        }
        notes.push("path line".into());
    }
}

fn header(img: &mut RgbaImage, rng: &mut Rng, faces: &[Face]) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let font = &faces[rng.below(faces.len())].font;
    let light = colour(rng, 180.0, 256.0);
    text_centred(
        img,
        font,
        &gibberish(rng, 4),
        w * 0.2,
        h * 0.08,
        w * 0.07,
        light,
    );
    text_centred(
        img,
        font,
        &format!("{}:{:02}", rng.below(3), rng.below(60)),
        w * 0.5,
        h * 0.08,
        w * 0.09,
        light,
    );
    text_centred(
        img,
        font,
        &gibberish(rng, 3),
        w * 0.8,
        h * 0.08,
        w * 0.07,
        light,
    );
}

/// A menu: a title and a column of wide buttons.
fn menu(img: &mut RgbaImage, rng: &mut Rng, faces: &[Face], notes: &mut Vec<String>) {
    let (w, h) = img.dimensions();
    notes.push("menu".into());
    let font = &faces[rng.below(faces.len())].font;
    let (wf, hf) = (w as f32, h as f32);
    text_centred(
        img,
        font,
        &gibberish(rng, 8),
        wf / 2.0,
        hf * 0.15,
        wf * 0.09,
        Rgba([255, 255, 255, 255]),
    );
    let c = colour(rng, 150.0, 250.0);
    for i in 0..4 {
        let y = hf * (0.35 + 0.12 * i as f32);
        rounded(img, wf * 0.15, y, wf * 0.85, y + hf * 0.08, hf * 0.02, c);
        text_centred(
            img,
            font,
            &gibberish(rng, 6),
            wf / 2.0,
            y + hf * 0.04,
            wf * 0.06,
            Rgba([20, 20, 20, 255]),
        );
    }
}

/// A results screen: lines of text and one button.
fn results(img: &mut RgbaImage, rng: &mut Rng, faces: &[Face], notes: &mut Vec<String>) {
    let (w, h) = img.dimensions();
    notes.push("results".into());
    let font = &faces[rng.below(faces.len())].font;
    let (wf, hf) = (w as f32, h as f32);
    for i in 0..6 {
        let y = hf * (0.2 + 0.08 * i as f32);
        let len = 5 + rng.below(8);
        text_centred(
            img,
            font,
            &gibberish(rng, len),
            wf / 2.0,
            y,
            wf * 0.06,
            Rgba([240, 240, 240, 255]),
        );
    }
    let c = colour(rng, 120.0, 220.0);
    rounded(img, wf * 0.25, hf * 0.8, wf * 0.75, hf * 0.88, hf * 0.02, c);
}

/// A keyboard: rows of light keys.
fn keyboard(img: &mut RgbaImage, rng: &mut Rng, faces: &[Face], notes: &mut Vec<String>) {
    let (w, h) = img.dimensions();
    notes.push("keyboard".into());
    let (wf, hf) = (w as f32, h as f32);
    let font = &faces[rng.below(faces.len())].font;
    let c = colour(rng, 200.0, 256.0);
    let key = wf / 10.0;
    for (row, n) in [10usize, 9, 7].iter().enumerate() {
        for k in 0..*n {
            let x = (wf - key * *n as f32) / 2.0 + key * k as f32;
            let y = hf * 0.65 + key * 1.4 * row as f32;
            rounded(
                img,
                x + key * 0.08,
                y,
                x + key * 0.92,
                y + key * 1.25,
                key * 0.1,
                c,
            );
            text_centred(
                img,
                font,
                &gibberish(rng, 1),
                x + key / 2.0,
                y + key * 0.6,
                key * 0.5,
                Rgba([20, 20, 20, 255]),
            );
        }
    }
}

/// Generates sample `index` of the corpus with `seed`: about one in six is not a board.
pub fn sample(faces: &[Face], seed: u64, index: u64) -> Sample {
    // Each sample's stream starts from a mixed state, unrelated to its neighbours'.
    let mut rng = Rng::new(Rng::new(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) ^ index).next_u64());
    let (w, h) = SIZES[rng.below(SIZES.len())];
    let mut img = background(&mut rng, w, h);
    let mut notes = vec![format!("{w}x{h}")];
    let kind = rng.below(12);
    let mut board = None;
    match kind {
        0 => menu(&mut img, &mut rng, faces, &mut notes),
        1 => results(&mut img, &mut rng, faces, &mut notes),
        2 => {
            // A board under a dimmed overlay with a dialog on top.
            notes.push("dimmed board".into());
            header(&mut img, &mut rng, faces);
            draw_board(&mut img, &mut rng, faces, &mut notes);
            let a = uniform(&mut rng, 0.55, 0.8);
            for p in img.pixels_mut() {
                blend(p, Rgba([0, 0, 0, 255]), a);
            }
            let (wf, hf) = (w as f32, h as f32);
            let c = colour(&mut rng, 200.0, 256.0);
            rounded(
                &mut img,
                wf * 0.1,
                hf * 0.3,
                wf * 0.9,
                hf * 0.55,
                wf * 0.04,
                c,
            );
        }
        3 if chance(&mut rng, 0.5) => keyboard(&mut img, &mut rng, faces, &mut notes),
        _ => {
            header(&mut img, &mut rng, faces);
            board = Some(draw_board(&mut img, &mut rng, faces, &mut notes));
        }
    }
    degrade(&mut img, &mut rng, &mut notes, (0.3, 0.5), 60);
    Sample {
        image: img,
        board,
        dimmed: false,
        description: notes.join(", "),
    }
}

/// Which corpus of screens to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Corpus {
    /// The first corpus: flat tiles in `UNSEEN_FACES` (what the reader was developed on).
    Classic,
    /// The widened corpus's family the reader may be developed on.
    Developed,
    /// The widened corpus's held-back family: measured only.
    HeldBack,
    /// The second generator (`second`): other rasterisers, other typefaces, measured only.
    Second,
}

impl Corpus {
    pub const ALL: [Corpus; 4] = [
        Corpus::Classic,
        Corpus::Developed,
        Corpus::HeldBack,
        Corpus::Second,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Corpus::Classic => "classic",
            Corpus::Developed => "developed",
            Corpus::HeldBack => "held-back",
            Corpus::Second => "second",
        }
    }

    /// The typefaces it draws in (file stems).
    pub fn face_names(self) -> &'static [&'static str] {
        match (self, self.family()) {
            (Corpus::Second, _) => &second::FACES,
            (_, Some(f)) => f.faces(),
            (_, None) => &UNSEEN_FACES,
        }
    }

    /// The Debian packages that hold its typefaces.
    pub fn packages(self) -> &'static str {
        match self {
            Corpus::Second => second::PACKAGES,
            _ => FONT_PACKAGES,
        }
    }

    fn family(self) -> Option<wide::Family> {
        match self {
            Corpus::Classic | Corpus::Second => None,
            Corpus::Developed => Some(wide::Family::Developed),
            Corpus::HeldBack => Some(wide::Family::HeldBack),
        }
    }

    /// Screen `index` of this corpus with `seed`, drawn in `faces` (at least one).
    pub fn sample(self, faces: &[Face], seed: u64, index: u64) -> Sample {
        match (self, self.family()) {
            (Corpus::Second, _) => second::sample(faces, seed, index),
            (_, Some(f)) => wide::sample(f, faces, seed, index),
            (_, None) => sample(faces, seed, index),
        }
    }
}

/// Upper ends of the confidence bands of the calibration curve.
pub const BANDS: [f32; 8] = [0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.8, 1.01];

/// Tiles read at a confidence in one band, and how many of them were wrong.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Band {
    /// Confidences from the previous band's end up to this (exclusive).
    pub below: f32,
    pub tiles: usize,
    pub wrong: usize,
}

/// How the reader did on a corpus.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    pub corpus: String,
    pub seed: u64,
    pub faces: Vec<String>,
    pub screens: usize,
    pub boards: usize,
    /// Boards whose 16 tiles were all read right.
    pub boards_exact: usize,
    /// ... and sure of, and not held as dimmed (what `play` would swipe without asking).
    pub boards_exact_sure: usize,
    /// Boards read wrong but with every tile sure: the errors that would reach the phone.
    pub boards_wrong_sure: usize,
    /// Boards refused as not a board.
    pub boards_refused: usize,
    pub tiles: usize,
    pub tiles_right: usize,
    pub qu_tiles: usize,
    pub qu_right: usize,
    pub bonuses: usize,
    pub bonuses_right: usize,
    /// Bonuses read on tiles without one.
    pub bonuses_phantom: usize,
    pub non_boards: usize,
    /// Non-boards refused or read unsure (never swiped).
    pub non_boards_refused: usize,
    /// Boards under a dark overlay (counted apart from `boards`).
    pub dimmed: usize,
    /// ... read as dimmed (or refused): not played until the overlay goes.
    pub dimmed_held: usize,
    /// ... whose letters were all read right through the overlay.
    pub dimmed_exact: usize,
    /// Live boards read as dimmed (never played: the bot would wait for an overlay that is
    /// not there), counted among `boards`.
    pub live_held: usize,
    /// The calibration curve: per confidence band, tiles of live boards and how many of them
    /// were wrong.
    pub calibration: Vec<Band>,
    pub mean_read_ms: f64,
    pub max_read_ms: f64,
    /// The misreads, for people: every screen read wrong or held wrongly, and every board
    /// with a tile read unsure.
    pub misreads: Vec<String>,
    /// The screens whose board was read exactly and surely (what `play` would swipe), by
    /// index with their description: what the regression gallery keeps.
    #[serde(skip)]
    pub exact_sure: Vec<(u64, String)>,
}

impl Report {
    pub fn tile_accuracy(&self) -> f64 {
        self.tiles_right as f64 / self.tiles.max(1) as f64
    }
    pub fn board_accuracy(&self) -> f64 {
        self.boards_exact as f64 / self.boards.max(1) as f64
    }
}

/// Reads `count` samples of `corpus` with `seed` and tallies the results; `progress` is
/// called after each screen.
pub fn measure(
    corpus: Corpus,
    faces: &[Face],
    seed: u64,
    count: u64,
    classifier: &super::glyph::Classifier,
    mut progress: impl FnMut(u64),
) -> Report {
    let mut r = Report {
        corpus: corpus.name().into(),
        seed,
        faces: faces.iter().map(|f| f.name.clone()).collect(),
        calibration: BANDS
            .iter()
            .map(|&below| Band {
                below,
                ..Band::default()
            })
            .collect(),
        ..Report::default()
    };
    let mut total_ms = 0.0;
    for index in 0..count {
        let s = corpus.sample(faces, seed, index);
        let t = std::time::Instant::now();
        let read = super::read::read(&s.image, None, classifier);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        total_ms += ms;
        r.max_read_ms = r.max_read_ms.max(ms);
        r.screens += 1;
        let Some((tiles, bonuses)) = s.board else {
            r.non_boards += 1;
            match &read {
                Ok(reading) if reading.playable() => r.misreads.push(format!(
                    "sample {index} ({}): not a board, read as {}",
                    s.description,
                    reading.board()
                )),
                _ => r.non_boards_refused += 1,
            }
            progress(index + 1);
            continue;
        };
        if s.dimmed {
            r.dimmed += 1;
            match &read {
                Ok(reading) if reading.playable() => r.misreads.push(format!(
                    "sample {index} ({}): dimmed, read as live: {}",
                    s.description,
                    reading.board()
                )),
                _ => r.dimmed_held += 1,
            }
            if let Ok(reading) = &read
                && reading.tiles.iter().zip(tiles).all(|(t, w)| t.tile == w)
            {
                r.dimmed_exact += 1;
            }
            progress(index + 1);
            continue;
        }
        r.boards += 1;
        r.tiles += 16;
        r.bonuses += bonuses.iter().flatten().count();
        r.qu_tiles += tiles.iter().filter(|&&t| t == 16).count();
        let reading = match read {
            Ok(reading) => reading,
            Err(e) => {
                r.boards_refused += 1;
                r.misreads
                    .push(format!("sample {index} ({}): refused: {e}", s.description));
                continue;
            }
        };
        let mut wrong = Vec::new();
        for (i, t) in reading.tiles.iter().enumerate() {
            let band = BANDS
                .iter()
                .position(|&b| t.confidence < b)
                .unwrap_or(BANDS.len() - 1);
            r.calibration[band].tiles += 1;
            if t.tile != tiles[i] {
                r.calibration[band].wrong += 1;
            }
            if t.tile == tiles[i] {
                r.tiles_right += 1;
                if tiles[i] == 16 {
                    r.qu_right += 1;
                }
            } else {
                wrong.push(format!(
                    "{} as {} ({:.2})",
                    tile_name(tiles[i]),
                    tile_name(t.tile),
                    t.confidence
                ));
            }
            match (bonuses[i], t.bonus) {
                (Some(a), Some(b)) if a == b => r.bonuses_right += 1,
                (None, Some(_)) => r.bonuses_phantom += 1,
                (Some(a), b) => wrong.push(format!("bonus {a:?} as {b:?}")),
                _ => {}
            }
        }
        if let Some(why) = reading.overlay() {
            r.live_held += 1;
            wrong.push(format!("live, read as dimmed ({why})"));
        }
        let letters_right = reading.tiles.iter().zip(tiles).all(|(t, w)| t.tile == w);
        if letters_right {
            r.boards_exact += 1;
            if reading.playable() {
                r.boards_exact_sure += 1;
                r.exact_sure.push((index, s.description.clone()));
            }
        } else if reading.sure() {
            r.boards_wrong_sure += 1;
        }
        let unsure: Vec<String> = reading
            .tiles
            .iter()
            .filter(|t| t.confidence < super::read::SURE)
            .map(|t| format!("{}({:.2})", tile_name(t.tile), t.confidence))
            .collect();
        if !wrong.is_empty() || !unsure.is_empty() {
            r.misreads.push(format!(
                "sample {index} ({}): {} unsure: {}",
                s.description,
                wrong.join(", "),
                unsure.join(" ")
            ));
        }
        progress(index + 1);
    }
    r.mean_read_ms = total_ms / count.max(1) as f64;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blur as first written, a pixel and its neighbours at a time: the reference.
    fn blur_by_pixel(img: &mut RgbaImage, passes: usize) {
        for _ in 0..passes {
            let src = img.clone();
            let (w, h) = (img.width() as i64, img.height() as i64);
            for y in 0..h {
                for x in 0..w {
                    let mut s = [0u32; 3];
                    let mut k = 0;
                    for dy in -1..=1 {
                        for dx in -1..=1 {
                            let (nx, ny) = (x + dx, y + dy);
                            if nx >= 0 && ny >= 0 && nx < w && ny < h {
                                let p = src.get_pixel(nx as u32, ny as u32);
                                for ch in 0..3 {
                                    s[ch] += p[ch] as u32;
                                }
                                k += 1;
                            }
                        }
                    }
                    let p = img.get_pixel_mut(x as u32, y as u32);
                    for ch in 0..3 {
                        p[ch] = (s[ch] / k) as u8;
                    }
                }
            }
        }
    }

    /// The blur by row sums draws what the blur by pixels drew, to the byte, at every size
    /// down to one pixel and for one pass or two: the corpora's screens stay the same.
    #[test]
    fn the_blur_by_rows_is_the_blur_by_pixels() {
        let mut rng = Rng::new(7);
        for (w, h) in [(1, 1), (1, 5), (6, 1), (2, 2), (17, 9), (40, 33)] {
            for passes in [1, 2] {
                let img = RgbaImage::from_fn(w, h, |_, _| {
                    Rgba([0, 1, 2, 3].map(|_| rng.below(256) as u8))
                });
                let (mut by_rows, mut by_pixels) = (img.clone(), img);
                blur(&mut by_rows, passes);
                blur_by_pixel(&mut by_pixels, passes);
                assert!(by_rows == by_pixels, "{w} x {h}, {passes} passes");
            }
        }
    }

    #[test]
    fn a_pill_of_any_size_is_drawn() {
        // r at half the side: x0 + r can round above x1 - r (a screen of the widened corpus
        // hit it with 39.267673 > 39.26767, and the drawing panicked).
        let mut img = RgbaImage::new(64, 64);
        // Boxes for which x0 + r > x1 - r in f32 (found by search).
        for (a, b) in [(6.170_048_7, 24.474_571), (7.579_804_4, 25.848_614)] {
            assert!(a + (b - a) / 2.0 > b - (b - a) / 2.0, "a case that rounds");
            rounded(&mut img, a, a, b, b, 1e9, Rgba([200, 10, 10, 255]));
        }
        assert_eq!(img.get_pixel(12, 12)[0], 200);
    }
}
