//! The second generator: game screens drawn from a description of their own, by other
//! rasterisers than the rest of the corpus (tiny-skia for shapes, fontdue for glyphs), in
//! typefaces no other corpus uses. The reader is never developed against it: its figures are
//! how the reader does on screens it was not shaped on.
//!
//! What it draws, as a person would describe the screens of such games:
//! - a phone screen of a common size (480x800 to 1440x3120), its background a vertical or
//!   diagonal gradient, plain, striped or dotted, with a status bar, a score and a clock above
//!   the board and round buttons below it;
//! - a board panel, square, its tiles 4x4 with gaps, square or rounded corners, painted flat,
//!   in a vertical gradient, bevelled (light top-left, dark bottom-right), grained like card
//!   stock, or cream on a near-white screen (low contrast); some boards cut jigsaw notches
//!   into the right edge of each tile and set a knob on the left one;
//! - the letter in a bold sans, dark on light tiles or light on dark ones, with a point value
//!   in a corner on some boards; the Q tile drawn QU, Qu, Q with a small u, or a lone Q;
//! - bonus tiles tinted with their two letters in a corner, or a round badge;
//! - over the board: a red pointer arrow at a tile's lower right, a hand, sparkles, a swipe
//!   trail through neighbouring tiles, a toast or a banner over the panel's edge;
//! - then what a capture goes through: a blur, a chain of downscale and upscale, JPEG at
//!   quality 60 to 80;
//! - and screens that are not boards: menus of buttons, a results list, a keyboard.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use image::RgbaImage;
use tiny_skia::{
    Color, FillRule, GradientStop, LineCap, LineJoin, LinearGradient, Paint, Path, PathBuilder,
    Pixmap, Point, RadialGradient, Rect, Shader, SpreadMode, Stroke, Transform,
};

use super::{Face, Sample};
use crate::board::tile_name;
use crate::sample::Rng;
use crate::score::Bonus;

/// Bold faces from Debian packages that no other corpus and none of the reader's references
/// use (file stems; packages in `PACKAGES`).
pub const FACES: [&str; 12] = [
    "Go-Bold",
    "Tuffy_Bold",
    "BebasNeue-Bold",
    "GilliusADF-Bold",
    "ComicNeue-Bold",
    "Sora-Bold",
    "Carlito-Bold",
    "PTS75F",
    "SwitzeraADF-Bold",
    "AveriaSansGWF-Bold",
    "YanoneKaffeesatz-Bold",
    "NationalPark-Heavy",
];

/// The families of `FACES`, by file-name prefix: no learned part of the reader is trained on
/// a face of theirs (Go Mono and PT Mono are kin to Go and PT Sans).
pub const FAMILIES: [&str; 12] = [
    "Go",
    "Tuffy",
    "BebasNeue",
    "GilliusADF",
    "ComicNeue",
    "Sora",
    "Carlito",
    "PT",
    "SwitzeraADF",
    "AveriaSans",
    "YanoneKaffeesatz",
    "NationalPark",
];

/// The Debian packages that hold `FACES`.
pub const PACKAGES: &str = "fonts-go fonts-tuffy fonts-bebas-neue fonts-adf-gillius fonts-comic-neue fonts-sora fonts-crosextra-carlito fonts-paratype fonts-adf-switzera fonts-averia-sans-gwf fonts-yanone-kaffeesatz fonts-national-park";

const SIZES: [(u32, u32); 7] = [
    (480, 800),
    (540, 960),
    (720, 1280),
    (1080, 1920),
    (1080, 2340),
    (1080, 2400),
    (1440, 3120),
];

/// A face as fontdue holds it, parsed once per process.
pub(super) fn rasteriser(face: &Face) -> Option<Arc<fontdue::Font>> {
    static PARSED: OnceLock<Mutex<HashMap<String, Option<Arc<fontdue::Font>>>>> = OnceLock::new();
    let mut parsed = PARSED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    parsed
        .entry(face.name.clone())
        .or_insert_with(|| {
            let settings = fontdue::FontSettings::default();
            fontdue::Font::from_bytes(face.font.as_slice(), settings)
                .ok()
                .map(Arc::new)
        })
        .clone()
}

/// A uniform number in [lo, hi).
pub(super) fn between(rng: &mut Rng, lo: f32, hi: f32) -> f32 {
    let u = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    lo + (hi - lo) * u
}

pub(super) fn odds(rng: &mut Rng, p: f32) -> bool {
    between(rng, 0.0, 1.0) < p
}

pub(super) fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len())]
}

pub(super) type Rgb = [u8; 3];

pub(super) fn rgba(c: Rgb, a: u8) -> Color {
    Color::from_rgba8(c[0], c[1], c[2], a)
}

pub(super) fn solid(c: Rgb, a: u8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(rgba(c, a));
    p.anti_alias = true;
    p
}

pub(super) fn shaded(shader: Option<Shader<'static>>, fallback: Rgb) -> Paint<'static> {
    match shader {
        Some(shader) => Paint {
            shader,
            anti_alias: true,
            ..Paint::default()
        },
        None => solid(fallback, 255),
    }
}

pub(super) fn mix(a: Rgb, b: Rgb, t: f32) -> Rgb {
    std::array::from_fn(|i| (a[i] as f32 + (b[i] as f32 - a[i] as f32) * t).round() as u8)
}

pub(super) fn luma(c: Rgb) -> f32 {
    0.299 * c[0] as f32 + 0.587 * c[1] as f32 + 0.114 * c[2] as f32
}

pub(super) fn hue(rng: &mut Rng, lo: u8, hi: u8) -> Rgb {
    std::array::from_fn(|_| lo + rng.below((hi - lo) as usize + 1) as u8)
}

/// A rectangle with corners of radius `r`, as a path.
pub(super) fn round_rect(x: f32, y: f32, w: f32, h: f32, r: f32) -> Option<Path> {
    let r = r.clamp(0.0, w.min(h) / 2.0);
    if r < 0.5 {
        return Some(PathBuilder::from_rect(Rect::from_xywh(x, y, w, h)?));
    }
    // The control points of a quarter circle drawn as a cubic.
    let k = r * 0.552_284_8;
    let mut pb = PathBuilder::new();
    pb.move_to(x + r, y);
    pb.line_to(x + w - r, y);
    pb.cubic_to(x + w - r + k, y, x + w, y + r - k, x + w, y + r);
    pb.line_to(x + w, y + h - r);
    pb.cubic_to(x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h);
    pb.line_to(x + r, y + h);
    pb.cubic_to(x + r - k, y + h, x, y + h - r + k, x, y + h - r);
    pb.line_to(x, y + r);
    pb.cubic_to(x, y + r - k, x + r - k, y, x + r, y);
    pb.close();
    pb.finish()
}

pub(super) fn fill(px: &mut Pixmap, path: Option<Path>, paint: &Paint) {
    if let Some(path) = path {
        px.fill_path(&path, paint, FillRule::Winding, Transform::identity(), None);
    }
}

pub(super) fn circle(px: &mut Pixmap, x: f32, y: f32, r: f32, paint: &Paint) {
    fill(px, PathBuilder::from_circle(x, y, r.max(0.5)), paint);
}

pub(super) fn vertical(top: Rgb, bottom: Rgb, y0: f32, y1: f32) -> Option<Shader<'static>> {
    LinearGradient::new(
        Point::from_xy(0.0, y0),
        Point::from_xy(0.0, y1),
        vec![
            GradientStop::new(0.0, rgba(top, 255)),
            GradientStop::new(1.0, rgba(bottom, 255)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    )
}

/// Composites a string's glyphs, rasterised by fontdue at `px`, centred on (cx, cy) (the
/// centre of their ink), in `colour`. `small_last` draws the last glyph at 55% and lower, as
/// some games draw the u of Qu.
#[allow(clippy::too_many_arguments)]
pub(super) fn text(
    px: &mut Pixmap,
    font: &fontdue::Font,
    s: &str,
    size: f32,
    cx: f32,
    cy: f32,
    colour: Rgb,
    small_last: bool,
) {
    let chars: Vec<char> = s.chars().collect();
    // Lay out on a baseline at 0: each glyph's bitmap and its top-left corner.
    let mut pen = 0.0f32;
    let mut placed = Vec::new();
    for (i, &ch) in chars.iter().enumerate() {
        let small = small_last && i + 1 == chars.len() && chars.len() > 1;
        let px_size = if small { size * 0.55 } else { size };
        let (m, bitmap) = font.rasterize(ch, px_size);
        let drop = if small { size * 0.06 } else { 0.0 };
        let left = pen + m.xmin as f32;
        let top = -(m.ymin as f32 + m.height as f32) + drop;
        placed.push((left, top, m.width, m.height, bitmap));
        pen += m.advance_width;
    }
    // The ink's box, over every glyph.
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for (left, top, gw, gh, _) in &placed {
        x0 = x0.min(*left);
        y0 = y0.min(*top);
        x1 = x1.max(left + *gw as f32);
        y1 = y1.max(top + *gh as f32);
    }
    let (dx, dy) = (cx - (x0 + x1) / 2.0, cy - (y0 + y1) / 2.0);
    let (w, h) = (px.width() as i32, px.height() as i32);
    let data = px.data_mut();
    for (left, top, gw, gh, bitmap) in placed {
        let (ox, oy) = ((left + dx).round() as i32, (top + dy).round() as i32);
        for gy in 0..gh {
            for gx in 0..gw {
                let a = bitmap[gy * gw + gx] as u32;
                let (x, y) = (ox + gx as i32, oy + gy as i32);
                if a == 0 || x < 0 || y < 0 || x >= w || y >= h {
                    continue;
                }
                let i = ((y * w + x) * 4) as usize;
                // Over an opaque pixmap, premultiplied or not is the same.
                for c in 0..3 {
                    let d = data[i + c] as u32;
                    data[i + c] = ((colour[c] as u32 * a + d * (255 - a)) / 255) as u8;
                }
            }
        }
    }
}

/// How the tiles are painted.
#[derive(Clone, Copy, Debug)]
enum Finish {
    Flat,
    Gradient,
    Bevel,
    Card,
    Cream,
}

/// How the Q tile is written.
#[derive(Clone, Copy, Debug)]
enum QuForm {
    Upper,
    Mixed,
    SmallU,
    LoneQ,
}

/// Screen `index` of the second generator with `seed`, in one of `faces` (at least one).
pub fn sample(faces: &[Face], seed: u64, index: u64) -> Sample {
    let mut rng = Rng::new(
        seed.wrapping_mul(0xA076_1D64_78BD_642F)
            ^ index.wrapping_mul(0xE703_7ED1_A0B4_28DB)
            ^ 0x5EC0,
    );
    for _ in 0..3 {
        rng.next_u64();
    }
    let face = &faces[rng.below(faces.len())];
    let font = rasteriser(face);
    let (w, h) = pick(&mut rng, &SIZES);
    let mut px = Pixmap::new(w, h).expect("a screen size");
    let dark = odds(&mut rng, 0.4);
    backdrop(&mut px, &mut rng, dark);
    let Some(font) = font else {
        // A face fontdue cannot parse: a blank screen that is not a board.
        return finish(px, &mut rng, None, format!("{}: unparsable", face.name));
    };
    if odds(&mut rng, 0.08) {
        let what = not_a_board(&mut px, &mut rng, &font, dark);
        let description = format!("{} {w}x{h}: {what}", face.name);
        return finish(px, &mut rng, None, description);
    }
    let (tiles, bonuses) = deal(&mut rng);
    let described = board(&mut px, &mut rng, &font, dark, &tiles, &bonuses);
    let description = format!("{} {w}x{h}{described}", face.name);
    finish(px, &mut rng, Some((tiles, bonuses)), description)
}

/// Letters uniformly, a Q tile on a third of the boards, bonuses on a third.
fn deal(rng: &mut Rng) -> ([u8; 16], [Option<Bonus>; 16]) {
    let mut tiles: [u8; 16] = std::array::from_fn(|_| rng.below(26) as u8);
    if odds(rng, 0.33) {
        tiles[rng.below(16)] = 16;
    }
    let mut bonuses = [None; 16];
    if odds(rng, 0.33) {
        for _ in 0..1 + rng.below(3) {
            bonuses[rng.below(16)] = Some(pick(rng, &[Bonus::DL, Bonus::TL, Bonus::DW, Bonus::TW]));
        }
    }
    (tiles, bonuses)
}

fn backdrop(px: &mut Pixmap, rng: &mut Rng, dark: bool) {
    let (w, h) = (px.width() as f32, px.height() as f32);
    let (a, b) = if dark {
        (hue(rng, 10, 70), hue(rng, 10, 70))
    } else {
        (hue(rng, 200, 255), hue(rng, 180, 255))
    };
    let diagonal = odds(rng, 0.3);
    let end = if diagonal {
        Point::from_xy(w, h)
    } else {
        Point::from_xy(0.0, h)
    };
    let shader = LinearGradient::new(
        Point::from_xy(0.0, 0.0),
        end,
        vec![
            GradientStop::new(0.0, rgba(a, 255)),
            GradientStop::new(1.0, rgba(b, 255)),
        ],
        SpreadMode::Pad,
        Transform::identity(),
    );
    px.fill_rect(
        Rect::from_xywh(0.0, 0.0, w, h).expect("a screen"),
        &shaded(shader, a),
        Transform::identity(),
        None,
    );
    let ink = if dark { [255, 255, 255] } else { [0, 0, 0] };
    match rng.below(3) {
        0 => {
            // Stripes, faint, at a slant.
            let gap = w / between(rng, 8.0, 20.0);
            let paint = solid(ink, 10 + rng.below(12) as u8);
            let stroke = Stroke {
                width: gap * 0.4,
                ..Stroke::default()
            };
            let mut x = -h;
            while x < w {
                let mut pb = PathBuilder::new();
                pb.move_to(x, 0.0);
                pb.line_to(x + h, h);
                if let Some(p) = pb.finish() {
                    px.stroke_path(&p, &paint, &stroke, Transform::identity(), None);
                }
                x += gap;
            }
        }
        1 => {
            // Dots on a grid.
            let gap = w / between(rng, 10.0, 24.0);
            let paint = solid(ink, 14 + rng.below(14) as u8);
            let mut y = gap / 2.0;
            while y < h {
                let mut x = gap / 2.0;
                while x < w {
                    circle(px, x, y, gap * 0.12, &paint);
                    x += gap;
                }
                y += gap;
            }
        }
        _ => {}
    }
}

/// Draws a board and its screen; says how, for reports.
fn board(
    px: &mut Pixmap,
    rng: &mut Rng,
    font: &fontdue::Font,
    dark: bool,
    tiles: &[u8; 16],
    bonuses: &[Option<Bonus>; 16],
) -> String {
    let (w, h) = (px.width() as f32, px.height() as f32);
    let side = w * between(rng, 0.80, 0.96);
    let left = (w - side) / 2.0;
    let top = h * between(rng, 0.22, 0.42);
    let mut said = Vec::new();
    chrome(px, rng, font, dark, top, top + side);
    let finish = if !dark && odds(rng, 0.2) {
        Finish::Cream
    } else {
        pick(
            rng,
            &[Finish::Flat, Finish::Gradient, Finish::Bevel, Finish::Card],
        )
    };
    // The panel behind the tiles.
    let panel = match finish {
        Finish::Cream => mix(hue(rng, 235, 255), [255, 255, 255], 0.5),
        _ if dark => hue(rng, 20, 90),
        _ => hue(rng, 60, 200),
    };
    let pad = side * between(rng, 0.0, 0.04);
    let corner = side * between(rng, 0.0, 0.05);
    if odds(rng, 0.5) {
        // A soft shadow under the panel.
        fill(
            px,
            round_rect(left + pad * 0.5, top + side * 0.012, side, side, corner),
            &solid([0, 0, 0], 40),
        );
    }
    fill(
        px,
        round_rect(left, top, side, side, corner),
        &solid(panel, 255),
    );
    let gap = side * between(rng, 0.012, 0.05);
    let tile = (side - 2.0 * pad - 5.0 * gap) / 4.0;
    let radius = tile * between(rng, 0.0, 0.28);
    let face_colour = match finish {
        Finish::Cream => [247, 236, 212],
        _ if odds(rng, 0.6) => hue(rng, 205, 255),
        _ => hue(rng, 20, 120),
    };
    let light_tiles = luma(face_colour) > 140.0;
    let ink = if light_tiles {
        hue(rng, 0, 60)
    } else {
        hue(rng, 225, 255)
    };
    let jigsaw = odds(rng, 0.2);
    let values = odds(rng, 0.45);
    let qu = pick(
        rng,
        &[QuForm::Upper, QuForm::Mixed, QuForm::SmallU, QuForm::LoneQ],
    );
    let letter_size = tile * between(rng, 0.48, 0.68);
    let badge = odds(rng, 0.5);
    said.push(format!("{finish:?} tiles"));
    if jigsaw {
        said.push("jigsaw".into());
    }
    let mut centres = [(0.0f32, 0.0f32); 16];
    for i in 0..16 {
        let (r, c) = ((i / 4) as f32, (i % 4) as f32);
        let x = left + pad + gap + c * (tile + gap);
        let y = top + pad + gap + r * (tile + gap);
        centres[i] = (x + tile / 2.0, y + tile / 2.0);
        let bonus = bonuses[i];
        let base = match (bonus, badge) {
            (Some(b), false) => bonus_colour(b),
            _ => face_colour,
        };
        tile_face(px, rng, finish, base, x, y, tile, radius);
        if jigsaw {
            // A notch cut into the right edge (the panel shows through), a knob on the left.
            let r = tile * 0.1;
            circle(px, x + tile, y + tile / 2.0, r, &solid(panel, 255));
            circle(px, x, y + tile / 2.0, r, &solid(base, 255));
        }
        let tile_ink = if bonus.is_some() && !badge && luma(base) < 140.0 {
            [255, 255, 255]
        } else if bonus.is_some() && !badge {
            [20, 20, 20]
        } else {
            ink
        };
        let (cx, cy) = centres[i];
        let letter = tiles[i];
        let (s, small) = match (letter, qu) {
            (16, QuForm::Upper) => ("QU".to_string(), false),
            (16, QuForm::Mixed) => ("Qu".to_string(), false),
            (16, QuForm::SmallU) => ("Qu".to_string(), true),
            (16, QuForm::LoneQ) => ("Q".to_string(), false),
            (l, _) => (tile_name(l).to_uppercase(), false),
        };
        let size = if s.len() > 1 && !small {
            letter_size * 0.8
        } else {
            letter_size
        };
        text(px, font, &s, size, cx, cy, tile_ink, small);
        if values && letter != 16 {
            let v = (1 + (letter as usize * 7) % 10).to_string();
            text(
                px,
                font,
                &v,
                tile * 0.2,
                x + tile * 0.82,
                y + tile * 0.2,
                tile_ink,
                false,
            );
        }
        if let Some(b) = bonus {
            let label = format!("{b:?}");
            if badge {
                let (bx, by) = (x + tile * 0.17, y + tile * 0.17);
                circle(px, bx, by, tile * 0.16, &solid(bonus_colour(b), 255));
                text(
                    px,
                    font,
                    &label,
                    tile * 0.13,
                    bx,
                    by,
                    [255, 255, 255],
                    false,
                );
            } else {
                text(
                    px,
                    font,
                    &label,
                    tile * 0.16,
                    x + tile * 0.22,
                    y + tile * 0.85,
                    tile_ink,
                    false,
                );
            }
        }
    }
    if tiles.contains(&16) {
        said.push(format!("Q as {qu:?}"));
    }
    said.extend(decorate(px, rng, &centres, tile, top + side));
    format!(" {}", said.join(", "))
}

fn bonus_colour(b: Bonus) -> Rgb {
    match b {
        Bonus::DL => [90, 160, 230],
        Bonus::TL => [40, 90, 200],
        Bonus::DW => [235, 120, 150],
        Bonus::TW => [210, 50, 60],
    }
}

#[allow(clippy::too_many_arguments)]
fn tile_face(
    px: &mut Pixmap,
    rng: &mut Rng,
    finish: Finish,
    base: Rgb,
    x: f32,
    y: f32,
    t: f32,
    r: f32,
) {
    let lighter = mix(base, [255, 255, 255], 0.35);
    let darker = mix(base, [0, 0, 0], 0.3);
    match finish {
        Finish::Flat => fill(px, round_rect(x, y, t, t, r), &solid(base, 255)),
        Finish::Gradient => fill(
            px,
            round_rect(x, y, t, t, r),
            &shaded(vertical(lighter, darker, y, y + t), base),
        ),
        Finish::Bevel => {
            let edge = t * 0.07;
            fill(px, round_rect(x, y, t, t, r), &solid(darker, 255));
            fill(
                px,
                round_rect(x, y, t - edge, t - edge, r),
                &solid(lighter, 255),
            );
            fill(
                px,
                round_rect(x + edge, y + edge, t - 2.0 * edge, t - 2.0 * edge, r * 0.8),
                &solid(base, 255),
            );
        }
        Finish::Card | Finish::Cream => {
            fill(px, round_rect(x, y, t, t, r), &solid(base, 255));
            // Grain: faint short strokes and specks.
            let paint = solid(darker, 22);
            let stroke = Stroke {
                width: (t * 0.012).max(0.8),
                line_cap: LineCap::Round,
                ..Stroke::default()
            };
            for _ in 0..10 {
                let (sx, sy) = (
                    x + between(rng, 0.05, 0.95) * t,
                    y + between(rng, 0.05, 0.95) * t,
                );
                let mut pb = PathBuilder::new();
                pb.move_to(sx, sy);
                pb.quad_to(
                    sx + t * 0.1,
                    sy + between(rng, -0.03, 0.03) * t,
                    sx + t * 0.2,
                    sy,
                );
                if let Some(p) = pb.finish() {
                    px.stroke_path(&p, &paint, &stroke, Transform::identity(), None);
                }
            }
            if matches!(finish, Finish::Cream) {
                // A thin edge a shade darker than the face: barely there on a white screen.
                let edge = Stroke {
                    width: (t * 0.015).max(1.0),
                    ..Stroke::default()
                };
                if let Some(p) = round_rect(x, y, t, t, r) {
                    px.stroke_path(
                        &p,
                        &solid(mix(base, [120, 100, 70], 0.25), 255),
                        &edge,
                        Transform::identity(),
                        None,
                    );
                }
            }
        }
    }
}

/// The screen around the board: a status bar, a score and a clock above it, round buttons
/// under it.
fn chrome(
    px: &mut Pixmap,
    rng: &mut Rng,
    font: &fontdue::Font,
    dark: bool,
    board_top: f32,
    board_bottom: f32,
) {
    let (w, h) = (px.width() as f32, px.height() as f32);
    let ink = if dark { [235, 235, 240] } else { [30, 30, 40] };
    let bar = h * 0.03;
    fill(
        px,
        Some(PathBuilder::from_rect(
            Rect::from_xywh(0.0, 0.0, w, bar).expect("a bar"),
        )),
        &solid([0, 0, 0], 90),
    );
    text(
        px,
        font,
        "12:41",
        bar * 0.55,
        w * 0.1,
        bar / 2.0,
        [255, 255, 255],
        false,
    );
    let above = board_top * 0.55;
    let score = format!("{}", rng.below(900));
    text(
        px,
        font,
        &score,
        (board_top * 0.18).min(w * 0.09),
        w * 0.25,
        above,
        ink,
        false,
    );
    let clock = format!("{}:{:02}", rng.below(3), rng.below(60));
    text(
        px,
        font,
        &clock,
        (board_top * 0.18).min(w * 0.09),
        w * 0.75,
        above,
        ink,
        false,
    );
    let below = board_bottom + (h - board_bottom) * 0.35;
    if below < h * 0.97 {
        let r = (w * 0.07).min((h - board_bottom) * 0.2);
        for k in 0..3 {
            let x = w * (0.25 + 0.25 * k as f32);
            circle(px, x, below, r, &solid(hue(rng, 60, 220), 255));
        }
    }
}

/// Things drawn over the board; what was drawn, for reports.
fn decorate(
    px: &mut Pixmap,
    rng: &mut Rng,
    centres: &[(f32, f32); 16],
    tile: f32,
    bottom: f32,
) -> Vec<String> {
    let mut said = Vec::new();
    let w = px.width() as f32;
    if odds(rng, 0.2) {
        // A red pointer at a tile's lower right corner, pointing up-left at the letter.
        let (cx, cy) = centres[rng.below(16)];
        let (tx, ty) = (cx + tile * 0.28, cy + tile * 0.28);
        let s = tile * 0.22;
        let mut pb = PathBuilder::new();
        pb.move_to(tx, ty);
        pb.line_to(tx + s, ty + s * 0.35);
        pb.line_to(tx + s * 0.35, ty + s);
        pb.close();
        fill(px, pb.finish(), &solid([220, 40, 40], 255));
        said.push("pointer".into());
    }
    if odds(rng, 0.12) {
        // A hand: a palm and a finger reaching a tile's corner.
        let (cx, cy) = centres[rng.below(16)];
        let skin = [240, 200, 170];
        let f = tile * 0.12;
        fill(
            px,
            round_rect(cx + tile * 0.3, cy + tile * 0.3, f, tile * 0.5, f / 2.0),
            &solid(skin, 255),
        );
        circle(
            px,
            cx + tile * 0.5,
            cy + tile * 0.85,
            tile * 0.3,
            &solid(skin, 255),
        );
        said.push("hand".into());
    }
    if odds(rng, 0.2) {
        // Sparkles: four-pointed stars on tile corners.
        for _ in 0..2 + rng.below(4) {
            let (cx, cy) = centres[rng.below(16)];
            let (sx, sy) = (
                cx + tile * pick(rng, &[-0.42, 0.42]),
                cy + tile * pick(rng, &[-0.42, 0.42]),
            );
            let (a, b) = (tile * 0.12, tile * 0.03);
            let mut pb = PathBuilder::new();
            pb.move_to(sx, sy - a);
            pb.line_to(sx + b, sy - b);
            pb.line_to(sx + a, sy);
            pb.line_to(sx + b, sy + b);
            pb.line_to(sx, sy + a);
            pb.line_to(sx - b, sy + b);
            pb.line_to(sx - a, sy);
            pb.line_to(sx - b, sy - b);
            pb.close();
            fill(px, pb.finish(), &solid([255, 250, 190], 230));
        }
        said.push("sparkles".into());
    }
    if odds(rng, 0.2) {
        // A swipe trail through neighbouring tiles.
        let mut at = rng.below(16);
        let mut pb = PathBuilder::new();
        pb.move_to(centres[at].0, centres[at].1);
        for _ in 0..2 + rng.below(4) {
            let (r, c) = ((at / 4) as i32, (at % 4) as i32);
            let (nr, nc) = (
                (r + rng.below(3) as i32 - 1).clamp(0, 3),
                (c + rng.below(3) as i32 - 1).clamp(0, 3),
            );
            at = (nr * 4 + nc) as usize;
            pb.line_to(centres[at].0, centres[at].1);
        }
        if let Some(p) = pb.finish() {
            let stroke = Stroke {
                width: tile * between(rng, 0.12, 0.25),
                line_cap: LineCap::Round,
                line_join: LineJoin::Round,
                ..Stroke::default()
            };
            px.stroke_path(
                &p,
                &solid(hue(rng, 80, 255), 90),
                &stroke,
                Transform::identity(),
                None,
            );
        }
        said.push("trail".into());
    }
    if odds(rng, 0.12) {
        // A toast over the panel's bottom edge, clear of the letters.
        let th = tile * 0.3;
        fill(
            px,
            round_rect(w * 0.2, bottom - th * 0.25, w * 0.6, th, th / 2.0),
            &solid([30, 30, 30], 220),
        );
        said.push("toast".into());
    }
    if odds(rng, 0.08) {
        // A glow behind one tile's corner: radial, soft.
        let (cx, cy) = centres[rng.below(16)];
        let shader = RadialGradient::new(
            Point::from_xy(cx - tile / 2.0, cy - tile / 2.0),
            Point::from_xy(cx - tile / 2.0, cy - tile / 2.0),
            tile * 0.3,
            vec![
                GradientStop::new(0.0, rgba([255, 255, 200], 120)),
                GradientStop::new(1.0, rgba([255, 255, 200], 0)),
            ],
            SpreadMode::Pad,
            Transform::identity(),
        );
        circle(
            px,
            cx - tile / 2.0,
            cy - tile / 2.0,
            tile * 0.3,
            &shaded(shader, [255, 255, 200]),
        );
        said.push("glow".into());
    }
    said
}

/// A screen with no board on it; what it is.
fn not_a_board(px: &mut Pixmap, rng: &mut Rng, font: &fontdue::Font, dark: bool) -> String {
    let (w, h) = (px.width() as f32, px.height() as f32);
    let ink = if dark { [240, 240, 240] } else { [20, 20, 30] };
    match rng.below(3) {
        0 => {
            for (k, label) in ["PLAY", "FRIENDS", "SHOP", "SETTINGS"].iter().enumerate() {
                let y = h * (0.3 + 0.13 * k as f32);
                fill(
                    px,
                    round_rect(w * 0.15, y, w * 0.7, h * 0.09, h * 0.03),
                    &solid(hue(rng, 40, 220), 255),
                );
                text(
                    px,
                    font,
                    label,
                    h * 0.04,
                    w / 2.0,
                    y + h * 0.045,
                    [255, 255, 255],
                    false,
                );
            }
            "a menu".into()
        }
        1 => {
            for k in 0..12 {
                let word: String = (0..3 + rng.below(5))
                    .map(|_| (b'A' + rng.below(26) as u8) as char)
                    .collect();
                let (col, row) = (k % 2, k / 2);
                text(
                    px,
                    font,
                    &word,
                    h * 0.03,
                    w * (0.3 + 0.4 * col as f32),
                    h * (0.25 + 0.06 * row as f32),
                    ink,
                    false,
                );
            }
            "a results list".into()
        }
        _ => {
            // A keyboard: three rows of small keys.
            let rows = ["QWERTYUIOP", "ASDFGHJKL", "ZXCVBNM"];
            let key = w / 10.5;
            for (r, letters) in rows.iter().enumerate() {
                let offset = (w - key * letters.len() as f32) / 2.0;
                for (c, ch) in letters.chars().enumerate() {
                    let x = offset + c as f32 * key;
                    let y = h * 0.7 + r as f32 * key * 1.3;
                    fill(
                        px,
                        round_rect(x + key * 0.06, y, key * 0.88, key * 1.15, key * 0.12),
                        &solid(hue(rng, 200, 255), 255),
                    );
                    text(
                        px,
                        font,
                        &ch.to_string(),
                        key * 0.5,
                        x + key / 2.0,
                        y + key * 0.57,
                        [30, 30, 30],
                        false,
                    );
                }
            }
            "a keyboard".into()
        }
    }
}

/// What a capture goes through: blur, rescaling, JPEG. The sample is made of what is left.
fn finish(
    px: Pixmap,
    rng: &mut Rng,
    board: Option<([u8; 16], [Option<Bonus>; 16])>,
    mut description: String,
) -> Sample {
    let (w, h) = (px.width(), px.height());
    let mut img = RgbaImage::from_raw(w, h, px.take()).expect("a pixmap's size");
    if odds(rng, 0.2) {
        let sigma = between(rng, 0.5, 1.1);
        img = image::imageops::blur(&img, sigma);
        description.push_str(&format!(", blur {sigma:.1}"));
    }
    if odds(rng, 0.4) {
        use image::imageops::FilterType;
        let f = between(rng, 0.55, 0.9);
        let (sw, sh) = (((w as f32) * f) as u32, ((h as f32) * f) as u32);
        img = super::capture::resize(
            &img,
            sw,
            sh,
            pick(rng, &[FilterType::Triangle, FilterType::CatmullRom]),
        );
        if odds(rng, 0.5) {
            img = super::capture::resize(&img, w, h, FilterType::Triangle);
            description.push_str(&format!(", down {f:.2} and up"));
        } else {
            description.push_str(&format!(", down {f:.2}"));
        }
    }
    if odds(rng, 0.6) {
        let quality = 60 + rng.below(21) as u8;
        img = super::capture::jpeg(&img, quality);
        description.push_str(&format!(", JPEG q{quality}"));
    }
    Sample {
        image: img,
        board,
        dimmed: false,
        description,
    }
}
