//! What a capture does to a screen, drawn as image draws it but faster: the same pixels, bit
//! for bit (the corpora's screens, and so every figure measured on them, stay as they were).
//!
//! **Rescaling.** image's resize walks its output a column at a time (a pixel per row down
//! each column), so each step lands a row's length away from the last. Drawing the test
//! corpora spent about a sixth of the regression gallery's time there. Here each output row
//! is made whole: the source rows it needs are weighed into one row of floats, which is then
//! weighed across. The weights, the order in which each pixel's terms are added, and the
//! rounding are image's, so every channel comes out the same (the tests compare the two on
//! random images of many sizes, both ways and with each filter the corpora use).
//!
//! **JPEG.** image's encoder takes RGB, so a screen was copied to RGB first, and the decoded
//! RGB copied back to RGBA, through image's generic colour conversions (a twentieth of the
//! gallery's time). Here the encoder reads the RGBA screen as RGB in place, and the decoded
//! pixels are widened with an opaque alpha: the same bytes are encoded, the same pixels come
//! back (a test compares both with image's own round trip).

use image::imageops::FilterType;
use image::{GenericImageView, Rgb, RgbaImage};

/// A screen encoded as JPEG at `quality` and decoded again, as a capture app saves it; the
/// screen itself if the encoder refuses it (a side over 65,535 pixels).
pub fn jpeg(img: &RgbaImage, quality: u8) -> RgbaImage {
    let mut bytes = Vec::new();
    let mut encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality);
    if encoder.encode_image(&AsRgb(img)).is_err() {
        return img.clone();
    }
    let Ok(decoded) = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg) else {
        return img.clone();
    };
    let rgb = decoded.into_rgb8();
    let (w, h) = rgb.dimensions();
    let mut out = RgbaImage::new(w, h);
    for (to, from) in out.chunks_exact_mut(4).zip(rgb.as_raw().chunks_exact(3)) {
        to.copy_from_slice(&[from[0], from[1], from[2], 255]);
    }
    out
}

/// An RGBA screen seen as RGB, its alpha dropped, as `DynamicImage::to_rgb8` drops it.
struct AsRgb<'a>(&'a RgbaImage);

impl GenericImageView for AsRgb<'_> {
    type Pixel = Rgb<u8>;

    fn dimensions(&self) -> (u32, u32) {
        self.0.dimensions()
    }

    fn get_pixel(&self, x: u32, y: u32) -> Rgb<u8> {
        let [r, g, b, _] = self.0.get_pixel(x, y).0;
        Rgb([r, g, b])
    }
}

/// `image::imageops::resize(img, width, height, filter)`, faster, for the two filters the
/// corpora draw with (Triangle and CatmullRom); any other filter is image's own.
pub fn resize(img: &RgbaImage, width: u32, height: u32, filter: FilterType) -> RgbaImage {
    let (kernel, support): (fn(f32) -> f32, f32) = match filter {
        FilterType::Triangle => (triangle, 1.0),
        FilterType::CatmullRom => (catmull_rom, 2.0),
        _ => return image::imageops::resize(img, width, height, filter),
    };
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 || (width, height) == (w, h) || width == 0 || height == 0 {
        return image::imageops::resize(img, width, height, filter);
    }
    let across = taps(w, width, kernel, support);
    let down = taps(h, height, kernel, support);
    let src = img.as_raw();
    let row_len = w as usize * 4;
    let mut out = vec![0u8; width as usize * height as usize * 4];
    let mut column = vec![0f32; row_len];
    for (out_row, tap) in out.chunks_exact_mut(width as usize * 4).zip(&down) {
        // Down first, as image does: each pixel's terms are added in the source rows' order.
        column.fill(0.0);
        for (i, &wt) in tap.weights.iter().enumerate() {
            let y = tap.first + i;
            let row = &src[y * row_len..(y + 1) * row_len];
            for (acc, &v) in column.iter_mut().zip(row) {
                *acc += f32::from(v) * wt;
            }
        }
        for (px, tap) in out_row.chunks_exact_mut(4).zip(&across) {
            let mut t = [0f32; 4];
            for (i, &wt) in tap.weights.iter().enumerate() {
                let at = (tap.first + i) * 4;
                for (c, acc) in t.iter_mut().enumerate() {
                    *acc += column[at + c] * wt;
                }
            }
            for (v, acc) in px.iter_mut().zip(t) {
                *v = acc.clamp(0.0, 255.0).round() as u8;
            }
        }
    }
    RgbaImage::from_raw(width, height, out).expect("a buffer of the image's size")
}

/// The source pixels one output pixel is weighed from: the first, and each one's weight.
struct Tap {
    first: usize,
    weights: Vec<f32>,
}

/// image's sampling of one axis, `from` pixels to `to`: where each output pixel's centre
/// falls, which source pixels its kernel reaches, and their weights normalised to sum to 1.
fn taps(from: u32, to: u32, kernel: fn(f32) -> f32, support: f32) -> Vec<Tap> {
    let ratio = from as f32 / to as f32;
    let sratio = if ratio < 1.0 { 1.0 } else { ratio };
    let reach = support * sratio;
    (0..to)
        .map(|o| {
            let centre = (o as f32 + 0.5) * ratio;
            let left = ((centre - reach).floor() as i64).clamp(0, i64::from(from) - 1);
            let right = ((centre + reach).ceil() as i64).clamp(left + 1, i64::from(from));
            let centre = centre - 0.5;
            let mut weights: Vec<f32> = (left..right)
                .map(|i| kernel((i as f32 - centre) / sratio))
                .collect();
            let sum = weights.iter().fold(0.0, |s, w| s + w);
            for w in &mut weights {
                *w /= sum;
            }
            Tap {
                first: left as usize,
                weights,
            }
        })
        .collect()
}

fn triangle(x: f32) -> f32 {
    if x.abs() < 1.0 { 1.0 - x.abs() } else { 0.0 }
}

/// The cubic B-spline family at B = 0, C = 0.5, written as image writes it.
fn catmull_rom(x: f32) -> f32 {
    let (b, c) = (0.0f32, 0.5f32);
    let a = x.abs();
    let k = if a < 1.0 {
        (12.0 - 9.0 * b - 6.0 * c) * a.powi(3)
            + (-18.0 + 12.0 * b + 6.0 * c) * a.powi(2)
            + (6.0 - 2.0 * b)
    } else if a < 2.0 {
        (-b - 6.0 * c) * a.powi(3)
            + (6.0 * b + 30.0 * c) * a.powi(2)
            + (-12.0 * b - 48.0 * c) * a
            + (8.0 * b + 24.0 * c)
    } else {
        0.0
    };
    k / 6.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::Rng;

    /// A random image with smooth stretches and sharp edges, so that rounding near .5 and
    /// clamping at 0 and 255 (CatmullRom overshoots) are both met.
    fn random_image(rng: &mut Rng, w: u32, h: u32) -> RgbaImage {
        let mut img = RgbaImage::new(w, h);
        for (i, v) in img.as_mut().iter_mut().enumerate() {
            *v = match rng.below(4) {
                0 => 0,
                1 => 255,
                _ => ((i * 7) % 256) as u8 ^ rng.below(256) as u8,
            };
        }
        img
    }

    #[test]
    fn every_pixel_is_images_own() {
        let mut rng = Rng::new(37);
        let sizes = [
            (1, 1),
            (1, 5),
            (7, 1),
            (3, 4),
            (17, 23),
            (64, 40),
            (101, 57),
            (200, 333),
        ];
        for &(w, h) in &sizes {
            let img = random_image(&mut rng, w, h);
            for _ in 0..6 {
                let to_w = 1 + rng.below(2 * w as usize + 3) as u32;
                let to_h = 1 + rng.below(2 * h as usize + 3) as u32;
                for filter in [FilterType::Triangle, FilterType::CatmullRom] {
                    let ours = resize(&img, to_w, to_h, filter);
                    let theirs = image::imageops::resize(&img, to_w, to_h, filter);
                    assert!(
                        ours == theirs,
                        "{w}x{h} -> {to_w}x{to_h} by {filter:?} differs"
                    );
                }
            }
        }
    }

    /// image's own round trip, as the corpora first drew it: to RGB, encode, decode, to RGBA.
    fn images_jpeg(img: &RgbaImage, quality: u8) -> (Vec<u8>, RgbaImage) {
        let rgb = image::DynamicImage::ImageRgba8(img.clone()).to_rgb8();
        let mut bytes = Vec::new();
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, quality);
        rgb.write_with_encoder(encoder).unwrap();
        let back = image::load_from_memory(&bytes).unwrap().to_rgba8();
        (bytes, back)
    }

    #[test]
    fn a_jpeg_round_trip_is_images_own() {
        let mut rng = Rng::new(39);
        for &(w, h, quality) in &[
            (1, 1, 60),
            (9, 7, 72),
            (64, 40, 80),
            (333, 121, 95),
            (17, 200, 1),
        ] {
            let mut img = random_image(&mut rng, w, h);
            // Smooth stretches too, as screens have, so that blocks quantise to few terms.
            for (i, v) in img
                .as_mut()
                .iter_mut()
                .enumerate()
                .filter(|(i, _)| i % 3 == 0)
            {
                *v = (i / 97 % 256) as u8;
            }
            let (bytes, back) = images_jpeg(&img, quality);
            let mut ours = Vec::new();
            image::codecs::jpeg::JpegEncoder::new_with_quality(&mut ours, quality)
                .encode_image(&AsRgb(&img))
                .unwrap();
            assert!(ours == bytes, "{w}x{h} at q{quality}: other bytes");
            assert!(
                jpeg(&img, quality) == back,
                "{w}x{h} at q{quality}: other pixels"
            );
        }
    }

    /// The corpora's own chain: a 1080x2400 screen shrunk by a factor in 0.55-0.9 with each
    /// filter, then grown back by Triangle.
    #[test]
    fn a_screen_shrunk_and_grown_back_is_images_own() {
        let mut rng = Rng::new(38);
        let img = random_image(&mut rng, 1080, 2400);
        for (f, filter) in [
            (0.55f32, FilterType::Triangle),
            (0.83, FilterType::CatmullRom),
        ] {
            let (w, h) = ((1080.0 * f) as u32, (2400.0 * f) as u32);
            let down = resize(&img, w, h, filter);
            assert!(
                down == image::imageops::resize(&img, w, h, filter),
                "{f} down"
            );
            let up = resize(&down, 1080, 2400, FilterType::Triangle);
            let theirs = image::imageops::resize(&down, 1080, 2400, FilterType::Triangle);
            assert!(up == theirs, "{f} up");
        }
    }
}
