//! The row of lifeline buttons under the grid (Freeze, Inspire, Scramble in Scramble With
//! Friends): round or squarish blobs of one size, side by side, that stand out from the
//! background. Pure: pixels and a grid in, button centres out.
//!
//! The background under the grid may be a gradient, so each screen row is compared with its
//! own most common colour (buttons may cover more than half of a row, but each has a colour
//! of its own, or shares one with fewer pixels than the background's). What differs from it by more
//! than `CONTRAST` is foreground; its 8-connected regions of button size and shape are grouped
//! by height, and the group nearest under the grid is the row of buttons. Labels under the
//! buttons are letters, far smaller than a button, and are left out by size.

use image::RgbaImage;

use super::grid::Grid;
use super::regions::{Runs, Touch, label};

/// Sum of channel differences from the row's median that makes a pixel foreground.
const CONTRAST: i32 = 60;

/// A button found: its centre and radius, in screen pixels.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Button {
    pub x: f32,
    pub y: f32,
    pub radius: f32,
}

/// The row of buttons nearest under `grid`, left to right; empty when there is none.
pub fn find(img: &RgbaImage, grid: &Grid) -> Vec<Button> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let pitch = grid.pitch.0.min(grid.pitch.1);
    let bottom = grid.centres.iter().map(|c| c.1).fold(0.0, f32::max);
    let top = (bottom + grid.tile / 2.0 + pitch * 0.05).ceil() as usize;
    if top + 4 >= h || w < 8 {
        return Vec::new();
    }
    let rows = h - top;
    let raw = img.as_raw();
    let mut fore = vec![false; w * rows];
    // Per row, the most common colour (to 4 bits a channel) is the background's.
    let mut bins = vec![0u16; 4096];
    let bin =
        |p: &[u8]| ((p[0] as usize >> 4) << 8) | ((p[1] as usize >> 4) << 4) | (p[2] as usize >> 4);
    for y in 0..rows {
        let row = &raw[(top + y) * w * 4..(top + y + 1) * w * 4];
        bins.fill(0);
        for p in row.chunks_exact(4) {
            bins[bin(p)] += 1;
        }
        let mode = (0..bins.len()).max_by_key(|&b| bins[b]).unwrap_or(0);
        let (mut sum, mut n) = ([0i32; 3], 0);
        for p in row.chunks_exact(4).filter(|p| bin(p) == mode) {
            for c in 0..3 {
                sum[c] += p[c] as i32;
            }
            n += 1;
        }
        let background = sum.map(|v| v / n.max(1));
        for (x, p) in row.chunks_exact(4).enumerate() {
            let d: i32 = (0..3).map(|c| (p[c] as i32 - background[c]).abs()).sum();
            fore[y * w + x] = d > CONTRAST;
        }
    }
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let regions = label(|i| fore[i], w, rows, Touch::Eight, &mut labels, &mut runs);
    // Button-sized, roughly round or square, mostly filled, whole.
    let mut blobs: Vec<Button> = regions
        .iter()
        .filter(|r| !r.edge)
        .filter_map(|r| {
            let (bw, bh) = ((r.x1 - r.x0) as f32, (r.y1 - r.y0) as f32);
            let fill = r.count as f32 / (bw * bh);
            let sized = (0.25 * pitch..=1.6 * pitch).contains(&bw)
                && (0.25 * pitch..=1.6 * pitch).contains(&bh);
            let shaped = (0.75..=1.33).contains(&(bw / bh)) && (0.55..=1.0).contains(&fill);
            (sized && shaped).then(|| Button {
                x: (r.x0 + r.x1) as f32 / 2.0,
                y: top as f32 + (r.y0 + r.y1) as f32 / 2.0,
                radius: (bw + bh) / 4.0,
            })
        })
        .collect();
    blobs.sort_by(|a, b| a.y.total_cmp(&b.y));
    // The first group, from the top, of blobs level with each other and of one size.
    for (i, first) in blobs.iter().enumerate() {
        let mut row: Vec<Button> = blobs[i..]
            .iter()
            .filter(|b| {
                (b.y - first.y).abs() <= 0.2 * pitch && (b.radius / first.radius - 1.0).abs() <= 0.3
            })
            .copied()
            .collect();
        if row.len() >= 2 || (row.len() == 1 && blobs.len() == 1) {
            row.sort_by(|a, b| a.x.total_cmp(&b.x));
            return row;
        }
    }
    Vec::new()
}
