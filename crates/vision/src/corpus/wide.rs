//! The widened corpus: boards in tile styles and on screens the classic corpus never draws
//! (gradient, bevelled, textured and glossy tiles, bonus tiles told by colour, badges in every
//! corner and shape, status bars, banners, crops down to 320 px wide, JPEG down to quality 40,
//! boards dimmed under an overlay with a toast), split into two families. The reader is
//! developed against `Family::Developed`; `Family::HeldBack` (typefaces and tile styles of its
//! own) is only measured, and its figures are the headline.

use ab_glyph::FontVec;
use image::{Rgba, RgbaImage};

use super::{
    Face, Sample, background, blend, chance, colour, corner_value, deal, gibberish, header,
    highlights, painted, path_line, rounded, text_centred, uniform, vivid,
};
use crate::board::tile_name;
use crate::sample::Rng;
use crate::score::Bonus;

/// Which half of the widened corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// What the reader may be developed against: the classic corpus's typefaces, and flat,
    /// gradient and bevelled tiles.
    Developed,
    /// Measured only: typeface families the reader was never looked at in, and wood-grained,
    /// glossy, outlined and radially shaded tiles.
    HeldBack,
}

/// Bold faces of typeface families that neither the references nor the developed corpus
/// use (file stems; Debian packages fonts-comfortaa fonts-quicksand fonts-dosis fonts-oxygen
/// fonts-b612 fonts-jura fonts-sil-andika fonts-hack fonts-mplus fonts-croscore). Serif
/// faces are left out: no game of the kind draws its tiles in one.
pub const HELD_BACK_FACES: [&str; 11] = [
    "Comfortaa-Bold",
    "Quicksand-Bold",
    "Dosis-ExtraBold",
    "Oxygen-Sans-Bold",
    "B612-Bold",
    "Jura-Bold",
    "Andika-Bold",
    "Hack-Bold",
    "Mplus1-Bold",
    "Mplus2-Black",
    "Cousine-Bold",
];

/// How a tile's face is painted.
#[derive(Clone, Copy, Debug)]
enum Style {
    Flat,
    /// Lighter at the top, darker at the bottom.
    Gradient,
    /// A lighter band on the top and left edges, a darker one on the bottom and right.
    Bevel,
    /// Cream wood: wavy grain lines of varying darkness.
    Wood,
    /// A white gloss over the upper part, its lower edge curved.
    Sheen,
    /// A darker line just inside the edge.
    Outlined,
    /// Lightest in the middle, darker towards the corners.
    Radial,
}

/// How bonus tiles show their bonus.
#[derive(Clone, Copy, Debug, PartialEq)]
enum BonusLook {
    /// A small badge with its two letters in a corner.
    Badge,
    /// The whole tile in the bonus's colour, its two letters small under the glyph.
    Tinted,
}

impl Family {
    /// The typefaces the family draws in (file stems).
    pub fn faces(self) -> &'static [&'static str] {
        match self {
            Family::Developed => &super::UNSEEN_FACES,
            Family::HeldBack => &HELD_BACK_FACES,
        }
    }

    fn styles(self) -> &'static [Style] {
        match self {
            Family::Developed => &[Style::Flat, Style::Gradient, Style::Bevel],
            Family::HeldBack => &[Style::Wood, Style::Sheen, Style::Outlined, Style::Radial],
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Developed => "developed",
            Family::HeldBack => "held-back",
        }
    }
}

fn darker(c: Rgba<u8>, by: f32) -> Rgba<u8> {
    let mut p = c;
    blend(&mut p, Rgba([0, 0, 0, 255]), by);
    p
}

fn lighter(c: Rgba<u8>, by: f32) -> Rgba<u8> {
    let mut p = c;
    blend(&mut p, Rgba([255, 255, 255, 255]), by);
    p
}

/// The colour of `style` at (u, v) in the tile (0 to 1 each way), on a face of `base`.
fn paint(style: Style, base: Rgba<u8>, k: [f32; 3], u: f32, v: f32) -> Rgba<u8> {
    match style {
        Style::Flat => base,
        // As games shade them: a fifth lighter at the top to a quarter darker at the bottom.
        Style::Gradient => darker(lighter(base, 0.2 * k[0] * (1.0 - v)), 0.25 * k[1] * v),
        Style::Bevel => {
            let band = 0.04 + 0.06 * k[2];
            if u < band || v < band {
                lighter(base, 0.35 + k[0] * 0.3)
            } else if u > 1.0 - band || v > 1.0 - band {
                darker(base, 0.2 + k[1] * 0.2)
            } else {
                base
            }
        }
        Style::Wood => {
            // Grain: lines across the tile that wander, some darker than others.
            let phase = v * (14.0 + 10.0 * k[0]) + 1.5 * (u * 5.0 + k[1] * 9.0).sin();
            let grain = 0.5 + 0.5 * phase.sin();
            let knots = 0.5 + 0.5 * (phase * 2.7 + k[2] * 4.0).sin();
            darker(base, 0.05 + 0.12 * grain * knots)
        }
        Style::Sheen => {
            let edge = 0.45 + 0.08 * (u * std::f32::consts::PI).sin() + 0.1 * k[0];
            if v < edge {
                lighter(base, 0.25 + 0.3 * k[1])
            } else {
                base
            }
        }
        Style::Outlined => {
            let (inner, width) = (0.04 + 0.03 * k[0], 0.02 + 0.03 * k[1]);
            let d = u.min(v).min(1.0 - u).min(1.0 - v);
            if (inner..inner + width).contains(&d) {
                darker(base, 0.35 + 0.3 * k[2])
            } else {
                base
            }
        }
        Style::Radial => {
            let r =
                ((u - 0.5).powi(2) + (v - 0.5).powi(2)).sqrt() / std::f32::consts::FRAC_1_SQRT_2;
            darker(base, (0.1 + 0.25 * k[0]) * r * r)
        }
    }
}

/// A bonus tile's colour when bonuses are told by colour: vivid but light enough to read
/// dark letters on (green and yellow, as Scramble With Friends has them, and others).
fn tint(rng: &mut Rng) -> Rgba<u8> {
    loop {
        let c = colour(rng, 140.0, 220.0);
        let max = c[0].max(c[1]).max(c[2]);
        let min = c[0].min(c[1]).min(c[2]);
        if max - min >= 90 {
            return c;
        }
    }
}

/// A badge with `text` in a box at (x0, y0) of side `bs`: a rounded box, a circle, or (held
/// back only) a wide pill.
#[allow(clippy::too_many_arguments)]
fn badge(
    img: &mut RgbaImage,
    font: &FontVec,
    text: &str,
    (x0, y0): (f32, f32),
    bs: f32,
    shape: usize,
    c: Rgba<u8>,
    text_colour: Rgba<u8>,
) {
    // Width, height and corner radius of each shape.
    let (w, h, r) = match shape {
        0 => (bs, bs * 0.8, bs * 0.15),
        1 => (bs, bs, bs / 2.0),
        _ => (bs * 1.2, bs * 0.7, bs * 0.35),
    };
    rounded(img, x0, y0, x0 + w, y0 + h, r, c);
    text_centred(
        img,
        font,
        text,
        x0 + w / 2.0,
        y0 + h / 2.0,
        h * 0.5,
        text_colour,
    );
}

/// What a wide board is drawn with.
struct Board {
    tiles: [u8; 16],
    bonuses: [Option<Bonus>; 16],
    /// The board's outer box: left, top, right, bottom.
    bounds: (f32, f32, f32, f32),
    pitch: f32,
}

fn draw_board(
    img: &mut RgbaImage,
    rng: &mut Rng,
    family: Family,
    faces: &[Face],
    notes: &mut Vec<String>,
) -> Board {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let face = &faces[rng.below(faces.len())];
    notes.push(face.name.clone());
    let styles = family.styles();
    let style = styles[rng.below(styles.len())];
    notes.push(format!("{style:?}").to_lowercase());
    let k = [
        uniform(rng, 0.0, 1.0),
        uniform(rng, 0.0, 1.0),
        uniform(rng, 0.0, 1.0),
    ];
    let tile = w * uniform(rng, 0.13, 0.21);
    let gap = tile * uniform(rng, 0.03, 0.25);
    let pitch = tile + gap;
    let x0 = w / 2.0 - pitch * 1.5 + uniform(rng, -0.02, 0.02) * w;
    let y0 = h * uniform(rng, 0.35, 0.55) - pitch * 1.5;
    let radius = tile * uniform(rng, 0.0, 0.22);
    let base = colour(rng, 170.0, 256.0);
    let ink = colour(rng, 0.0, 80.0);
    let glyph_size = tile * uniform(rng, 0.45, 0.72);
    let qu_text = if chance(rng, 0.5) { "Qu" } else { "QU" };
    let shadow = chance(rng, 0.5).then(|| colour(rng, 0.0, 90.0));
    let value_corner = rng.below(4); // 0 top-right, 1 top-left, 2 bottom-right, 3 none
    let look = if chance(rng, 0.35) {
        BonusLook::Tinted
    } else {
        BonusLook::Badge
    };
    // Badges: the developed family keeps to the top corners, as the classic corpus does; the
    // held-back one puts them in any corner, in any shape, on or over the edge.
    // Badge corners as the values' (0 top-right, 1 top-left, 2 bottom-right) and 3
    // bottom-left; never the value's corner.
    let (badge_corner, shape) = match family {
        Family::Developed => (if value_corner == 1 { 0 } else { 1 }, rng.below(2)),
        Family::HeldBack => {
            let free: Vec<usize> = (0..4).filter(|&c| c != value_corner).collect();
            (free[rng.below(free.len())], rng.below(3))
        }
    };
    let badge_out = chance(rng, 0.5);
    let (tiles, bonuses) = deal(rng, 0.6);
    let badge_colours = [vivid(rng), vivid(rng), vivid(rng), vivid(rng)];
    let tints = [tint(rng), tint(rng), tint(rng), tint(rng)];
    let highlighted = highlights(rng, 0.25);
    let highlight = colour(rng, 160.0, 230.0);
    notes.push(
        match look {
            BonusLook::Badge => "badges",
            BonusLook::Tinted => "tinted bonus tiles",
        }
        .into(),
    );
    for i in 0..16 {
        let ((cx, cy), (tx0, ty0, tx1, ty1)) = super::tile_box((x0, y0), pitch, tile, i);
        if let Some(s) = shadow {
            let drop = tile * 0.05;
            rounded(
                img,
                tx0 + drop * 0.3,
                ty0 + drop,
                tx1,
                ty1 + drop,
                radius,
                s,
            );
        }
        let fc = match (bonuses[i], look) {
            _ if highlighted.contains(&i) => highlight,
            (Some(b), BonusLook::Tinted) => tints[b as usize],
            _ => base,
        };
        painted(img, (tx0, ty0, tx1, ty1), radius, |u, v| {
            paint(style, fc, k, u, v)
        });
        let (text, size) = if tiles[i] == 16 {
            (qu_text, glyph_size * 0.8)
        } else {
            (tile_name(tiles[i]), glyph_size)
        };
        let lift = if look == BonusLook::Tinted && bonuses[i].is_some() {
            tile * 0.06
        } else {
            0.0
        };
        text_centred(img, &face.font, text, cx, cy - lift, size, ink);
        if value_corner < 3 {
            let small = tile * uniform(rng, 0.14, 0.22);
            let at = (tx0, ty0, tx1, ty1);
            corner_value(img, &face.font, tiles[i], at, value_corner, small, ink);
        }
        let Some(b) = bonuses[i] else { continue };
        let label = format!("{b:?}");
        match look {
            BonusLook::Tinted => {
                text_centred(
                    img,
                    &face.font,
                    &label,
                    cx,
                    ty1 - tile * 0.13,
                    tile * 0.14,
                    ink,
                );
            }
            BonusLook::Badge => {
                let bs = tile * uniform(rng, 0.24, 0.32);
                let off = if badge_out { -bs * 0.3 } else { tile * 0.03 };
                let left = badge_corner % 2 == 1;
                let bottom = badge_corner >= 2;
                let bx0 = if left { tx0 + off } else { tx1 - off - bs };
                let by0 = if bottom { ty1 - off - bs } else { ty0 + off };
                let white = Rgba([255, 255, 255, 255]);
                let bc = badge_colours[b as usize];
                badge(img, &face.font, &label, (bx0, by0), bs, shape, bc, white);
            }
        }
    }
    let at = |i: usize| (x0 + pitch * (i % 4) as f32, y0 + pitch * (i / 4) as f32);
    path_line(img, rng, at, tile, &highlighted, notes);
    let half = tile / 2.0;
    Board {
        tiles,
        bonuses,
        bounds: (
            x0 - half,
            y0 - half,
            x0 + pitch * 3.0 + half,
            y0 + pitch * 3.0 + half,
        ),
        pitch,
    }
}

/// Android's status bar: a band at the top with the time, a few icons and a battery.
fn status_bar(img: &mut RgbaImage, rng: &mut Rng, font: &FontVec) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let bar = h * uniform(rng, 0.025, 0.035);
    let c = colour(rng, 0.0, 60.0);
    rounded(img, 0.0, 0.0, w, bar, 0.0, c);
    let white = Rgba([240, 240, 240, 255]);
    let time = format!("{}:{:02}", 1 + rng.below(12), rng.below(60));
    text_centred(img, font, &time, w * 0.08, bar / 2.0, bar * 0.55, white);
    for k in 0..1 + rng.below(4) {
        let x = w * (0.2 + 0.04 * k as f32);
        rounded(
            img,
            x,
            bar * 0.3,
            x + bar * 0.4,
            bar * 0.7,
            bar * 0.1,
            white,
        );
    }
    rounded(
        img,
        w * 0.9,
        bar * 0.25,
        w * 0.95,
        bar * 0.75,
        bar * 0.08,
        white,
    );
}

/// An advertising banner across the bottom: a vivid gradient, text and a button.
fn banner(img: &mut RgbaImage, rng: &mut Rng, font: &FontVec) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (top, tall) = (h * uniform(rng, 0.9, 0.93), h * uniform(rng, 0.05, 0.08));
    let (a, b) = (vivid(rng), vivid(rng));
    painted(img, (0.0, top, w, top + tall), 0.0, |u, _| {
        let mut p = a;
        blend(&mut p, b, u);
        p
    });
    let len = 6 + rng.below(8);
    let text_colour = if chance(rng, 0.5) {
        Rgba([255, 255, 255, 255])
    } else {
        Rgba([10, 10, 10, 255])
    };
    text_centred(
        img,
        font,
        &gibberish(rng, len),
        w * 0.4,
        top + tall / 2.0,
        tall * 0.4,
        text_colour,
    );
    let c = colour(rng, 150.0, 256.0);
    rounded(
        img,
        w * 0.78,
        top + tall * 0.2,
        w * 0.96,
        top + tall * 0.8,
        tall * 0.15,
        c,
    );
}

/// A dark veil over the whole screen and a toast on it ("GET READY!", "ROUND 2"), as games
/// show before a round starts.
fn dim(img: &mut RgbaImage, rng: &mut Rng, font: &FontVec, at: (f32, f32), size: f32) {
    let a = uniform(rng, 0.35, 0.75);
    for p in img.pixels_mut() {
        blend(p, Rgba([0, 0, 0, 255]), a);
    }
    let toast = ["GET READY!", "ROUND 2", "ROUND 3", "GO!", "3", "TIME BONUS"][rng.below(6)];
    if chance(rng, 0.5) {
        let c = colour(rng, 30.0, 200.0);
        rounded(
            img,
            at.0 - size * 2.5,
            at.1 - size * 0.8,
            at.0 + size * 2.5,
            at.1 + size * 0.8,
            size * 0.3,
            c,
        );
    }
    let light = colour(rng, 200.0, 256.0);
    text_centred(img, font, toast, at.0, at.1, size, light);
}

/// Generates sample `index` of the `family` corpus with `seed`: about one in six is not a
/// board, and about one board in seven is dimmed under an overlay.
pub fn sample(family: Family, faces: &[Face], seed: u64, index: u64) -> Sample {
    let salt = match family {
        Family::Developed => 0x5eed_0001,
        Family::HeldBack => 0x5eed_0002,
    };
    let mut rng =
        Rng::new(Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index ^ salt).next_u64());
    let (w, h) = super::SIZES[rng.below(super::SIZES.len())];
    let mut img = background(&mut rng, w, h);
    let mut notes = vec![format!("{family:?}"), format!("{w}x{h}")];
    let font = &faces[rng.below(faces.len())].font;
    let mut board = None;
    let mut dimmed = false;
    match rng.below(18) {
        0 => super::menu(&mut img, &mut rng, faces, &mut notes),
        1 => super::results(&mut img, &mut rng, faces, &mut notes),
        2 => super::keyboard(&mut img, &mut rng, faces, &mut notes),
        _ => {
            if chance(&mut rng, 0.8) {
                header(&mut img, &mut rng, faces);
            }
            let b = draw_board(&mut img, &mut rng, family, faces, &mut notes);
            if chance(&mut rng, 0.6) {
                status_bar(&mut img, &mut rng, font);
                notes.push("status bar".into());
            }
            if chance(&mut rng, 0.3) {
                banner(&mut img, &mut rng, font);
                notes.push("banner".into());
            }
            if chance(&mut rng, 0.15) {
                let (l, t, r, bottom) = b.bounds;
                let at = ((l + r) / 2.0, (t + bottom) / 2.0);
                dim(&mut img, &mut rng, font, at, b.pitch * 0.45);
                dimmed = true;
                notes.push("dimmed".into());
            }
            if chance(&mut rng, 0.25) {
                img = crop(&img, &mut rng, b.bounds, b.pitch);
                notes.push(format!("crop {}x{}", img.width(), img.height()));
            }
            board = Some((b.tiles, b.bonuses));
        }
    }
    super::degrade(&mut img, &mut rng, &mut notes, (0.2, 0.6), 40);
    Sample {
        image: img,
        board,
        dimmed,
        description: notes.join(", "),
    }
}

/// The board cut out of its screen with a margin, maybe scaled down (to as little as 320 px
/// wide), as a screenshot cropped by hand or by another tool.
fn crop(
    img: &RgbaImage,
    rng: &mut Rng,
    (l, t, r, b): (f32, f32, f32, f32),
    pitch: f32,
) -> RgbaImage {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let m = |rng: &mut Rng| pitch * uniform(rng, 0.1, 1.2);
    let x0 = (l - m(rng)).clamp(0.0, w - 1.0) as u32;
    let y0 = (t - m(rng)).clamp(0.0, h - 1.0) as u32;
    let x1 = (r + m(rng)).clamp(x0 as f32 + 1.0, w) as u32;
    let y1 = (b + m(rng)).clamp(y0 as f32 + 1.0, h) as u32;
    let cut = image::imageops::crop_imm(img, x0, y0, x1 - x0, y1 - y0).to_image();
    let cw = cut.width();
    if cw > 320 && chance(rng, 0.5) {
        let to = 320 + rng.below((cw.min(720) - 320) as usize + 1) as u32;
        let th = (cut.height() as f32 * to as f32 / cw as f32)
            .round()
            .max(1.0) as u32;
        super::capture::resize(&cut, to, th, image::imageops::FilterType::Triangle)
    } else {
        cut
    }
}
