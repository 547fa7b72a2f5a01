//! Shows what the reader makes of tiles of a screen, so a person can see why a letter was
//! misread: for each tile index (0-15, row-major), a PNG of three panels side by side, each
//! 3x the reader's working crop: the crop as the screen has it, the ink the reader took for
//! the glyph (black), and where it judged the glyph hidden under a path line (red).
//!
//!     cargo run --release --example tile_dump -- SCREEN OUT_PREFIX INDEX...
//!
//! Each tile is written as OUT_PREFIX-tINDEX.png (`corpus_screen` writes corpus screens).
//! `TILE_SCALE=1.3` looks at a crop that much wider than the grid's tile, as the reader does
//! where it finds no glyph at the grid's size. `OTHER_WAY=1` looks at the tiles the other way
//! round from the board (a tinted bonus tile's letter, as the reader looks at it again).

use image::{Rgba, RgbaImage};
use scramblebot::vision::{grid, read};

/// Each panel's cells are drawn this many pixels a side.
const ZOOM: u32 = 3;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [screen, prefix, indices @ ..] = &args[..] else {
        return Err("usage: tile_dump SCREEN OUT_PREFIX INDEX...".into());
    };
    let img = image::open(screen)?.to_rgba8();
    let g = grid::find_either(&img).ok_or("no 4x4 grid of tiles on this screen")?;
    // Light letters on darker tiles are read on the negative, as `read` does.
    let img = read::as_read(&img, &g);
    let img = if std::env::var_os("OTHER_WAY").is_some() {
        std::borrow::Cow::Owned(read::negative(&img))
    } else {
        img
    };
    for index in indices {
        let t: usize = index.parse()?;
        let &(cx, cy) = g.centres.get(t).ok_or("a tile index is 0 to 15")?;
        let scale: f32 = std::env::var("TILE_SCALE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1.0);
        let (glyph, _) = read::tile_features(&img, (cx, cy), g.tile * scale);
        let Some(ink) = glyph.ink else {
            println!("tile {t}: no glyph found (face {})", glyph.face);
            continue;
        };
        let n = ink.w;
        let side = g.tile * read::CROP;
        let cell = side / n as f32;
        let mut out = RgbaImage::new(3 * n as u32, n as u32);
        for y in 0..n {
            for x in 0..n {
                let sx = (cx - side / 2.0 + (x as f32 + 0.5) * cell)
                    .clamp(0.0, img.width() as f32 - 1.0);
                let sy = (cy - side / 2.0 + (y as f32 + 0.5) * cell)
                    .clamp(0.0, img.height() as f32 - 1.0);
                let (x, y) = (x as u32, y as u32);
                out.put_pixel(x, y, *img.get_pixel(sx as u32, sy as u32));
                let v = 255 - (ink.v[y as usize * n + x as usize].clamp(0.0, 1.0) * 255.0) as u8;
                out.put_pixel(n as u32 + x, y, Rgba([v, v, v, 255]));
                let hidden = glyph
                    .hidden
                    .as_ref()
                    .is_some_and(|h| h[y as usize * n + x as usize]);
                let c = if hidden { [255, 0, 0, 255] } else { [255; 4] };
                out.put_pixel(2 * n as u32 + x, y, Rgba(c));
            }
        }
        let big = image::imageops::resize(
            &out,
            out.width() * ZOOM,
            out.height() * ZOOM,
            image::imageops::FilterType::Nearest,
        );
        let path = format!("{prefix}-t{t}.png");
        big.save(&path)?;
        println!(
            "{path}: face {}, {}",
            glyph.face,
            if glyph.hidden.is_some() {
                "partly hidden under a path line"
            } else {
                "seen whole"
            }
        );
    }
    Ok(())
}
