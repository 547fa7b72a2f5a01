//! Seeing the board on a screenshot (pure: bytes or pixels in, a reading out): decoding every
//! screenshot form a phone gives (PNG, JPEG, raw `screencap` dumps, `framebuffer:` answers),
//! finding the 4x4 grid (`grid`), reading the letters and badges (`read`, `glyph`), and the
//! generated screens the reader is measured on (`corpus`).

#![forbid(unsafe_code)]

// The core's modules, by the names the reader's files use for them.
use scramblebot_core::{board, sample, score};

pub mod bits;
pub mod buttons;
pub mod cnn;
pub mod colour;
pub mod corpus;
pub mod digits;
pub mod features;
pub mod glyph;
pub mod grid;
pub mod net;
pub mod overlay;
pub mod read;
pub mod regions;

use image::RgbaImage;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VisionError {
    #[error("not an image: neither PNG, JPEG nor a raw screencap dump ({0} bytes)")]
    NotAnImage(usize),
    #[error("cannot decode the image: {0}")]
    Decode(String),
    #[error("raw screencap pixel format {0} is not one this reads (1 RGBA, 2 RGBX, 5 BGRA)")]
    PixelFormat(u32),
    #[error("framebuffer channels are not whole bytes of a 32-bit pixel")]
    FramebufferLayout,
    #[error(
        "the JPEG is cut short: it ends without its end marker ({0} bytes; damaged or still being written?)"
    )]
    TruncatedJpeg(usize),
    #[error(
        "the image is {width}x{height}; screenshots this reads are at most {MAX_SIDE}x{MAX_SIDE}"
    )]
    TooLarge { width: u32, height: u32 },
}

/// The widest or tallest screenshot read (a 1440x3120 phone is well inside); bigger ones are
/// refused before their pixels are decoded, so no file can make the reader allocate gigabytes.
pub const MAX_SIDE: u32 = 10_000;

/// Decodes a screenshot: PNG, JPEG, a raw `screencap` dump (a header of width, height, pixel
/// format, and from Android 8 a dataspace, as little-endian u32s, then the pixels), or a
/// `framebuffer:` service answer.
pub fn decode(bytes: &[u8]) -> Result<RgbaImage, VisionError> {
    let png = bytes.starts_with(b"\x89PNG\r\n\x1a\n");
    let jpeg = bytes.starts_with(&[0xff, 0xd8, 0xff]);
    if jpeg && !ends_jpeg(bytes) {
        // The decoder fills what is missing with grey and says nothing.
        return Err(VisionError::TruncatedJpeg(bytes.len()));
    }
    if png || jpeg {
        return compressed(bytes);
    }
    raw_screencap(bytes)
        .or_else(|| framebuffer(bytes))
        .unwrap_or(Err(VisionError::NotAnImage(bytes.len())))
}

/// Whether a JPEG ends with its end-of-image marker (some writers pad a few zero bytes after
/// it).
fn ends_jpeg(bytes: &[u8]) -> bool {
    let end = bytes.len() - bytes.iter().rev().take(16).take_while(|&&b| b == 0).count();
    bytes[..end].ends_with(&[0xff, 0xd9])
}

/// The size a PNG or JPEG says it is (its header only), if `bytes` is one.
pub fn declared_size(bytes: &[u8]) -> Option<(u32, u32)> {
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") && !bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        return None;
    }
    image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .into_dimensions()
        .ok()
}

/// A PNG or JPEG, its size checked before its pixels are decoded.
fn compressed(bytes: &[u8]) -> Result<RgbaImage, VisionError> {
    let decode = |e: image::ImageError| VisionError::Decode(e.to_string());
    let reader = || {
        image::ImageReader::new(std::io::Cursor::new(bytes))
            .with_guessed_format()
            .map_err(|e| VisionError::Decode(e.to_string()))
    };
    let (width, height) = reader()?.into_dimensions().map_err(decode)?;
    if width > MAX_SIDE || height > MAX_SIDE {
        return Err(VisionError::TooLarge { width, height });
    }
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    let mut reader = reader()?;
    reader.limits(limits);
    // A decoder's own bug must not take the bot down with it: zune-jpeg 0.5.15 multiplies a
    // block's DC value by its quantiser unchecked (found by fuzzing: it panics where overflow
    // is checked, as in tests, and wraps to garbage in release builds).
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.decode()))
        .map_err(|_| VisionError::Decode("the decoder failed on this file (damaged?)".into()))?
        .map(|i| i.to_rgba8())
        .map_err(decode)
}

/// The `i`th little-endian u32 of a dump's header.
fn word(bytes: &[u8], i: usize) -> Option<u32> {
    let b = bytes.get(i * 4..i * 4 + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// A sane screen size.
fn plausible(w: u32, h: u32) -> bool {
    (1..=10_000).contains(&w) && (1..=10_000).contains(&h)
}

/// An opaque w x h image from 32-bit pixels whose red, green and blue are the bytes at `rgb`.
/// Every look at a phone decodes one (2.6 million pixels at 1080x2400): pixels are written in
/// place, and in RGBA order copied whole, only the alpha set.
fn opaque(data: &[u8], w: u32, h: u32, rgb: [usize; 3]) -> Result<RgbaImage, VisionError> {
    let whole = data.len() / 4 * 4;
    let mut out = if rgb == [0, 1, 2] {
        data[..whole].to_vec()
    } else {
        let mut out = vec![0; whole];
        for (o, p) in out.chunks_exact_mut(4).zip(data.chunks_exact(4)) {
            o[..3].copy_from_slice(&[p[rgb[0]], p[rgb[1]], p[rgb[2]]]);
        }
        out
    };
    // Four pixels' alpha set at once, as one 16-byte word: a byte at a time, this pass took
    // as long as the copy.
    const ALPHA: u128 =
        u128::from_le_bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]);
    let mut fours = out.chunks_exact_mut(16);
    for four in &mut fours {
        let word = u128::from_le_bytes(four.try_into().expect("16 bytes")) | ALPHA;
        four.copy_from_slice(&word.to_le_bytes());
    }
    for p in fours.into_remainder().chunks_exact_mut(4) {
        p[3] = 255;
    }
    RgbaImage::from_raw(w, h, out).ok_or(VisionError::NotAnImage(data.len()))
}

/// A `framebuffer:` service answer, if `bytes` is one: a header of little-endian u32s
/// (version; bits per pixel; from version 2 a colour space; size in bytes; width; height;
/// then offset and length in bits of red, blue, green and alpha), then the pixels. Version 1
/// is what adbd sends before Android 8, version 2 after.
fn framebuffer(bytes: &[u8]) -> Option<Result<RgbaImage, VisionError>> {
    let word = |i| word(bytes, i);
    let (header, first) = match word(0)? {
        1 => (13, 2),
        2 => (14, 3),
        _ => return None,
    };
    let (bpp, size, w, h) = (word(1)?, word(first)?, word(first + 1)?, word(first + 2)?);
    if !plausible(w, h) || bpp != 32 {
        return None;
    }
    if size as usize != w as usize * h as usize * 4 || bytes.len() != header * 4 + size as usize {
        return None;
    }
    // (offset, length) in bits of red, blue, green (then alpha, unused).
    let byte_of = |k: usize| {
        let (offset, len) = (word(first + 3 + 2 * k)?, word(first + 4 + 2 * k)?);
        (len == 8 && offset % 8 == 0 && offset < 32).then_some(offset as usize / 8)
    };
    let (Some(r), Some(b), Some(g)) = (byte_of(0), byte_of(1), byte_of(2)) else {
        return Some(Err(VisionError::FramebufferLayout));
    };
    Some(opaque(&bytes[header * 4..], w, h, [r, g, b]))
}

/// A raw dump, if `bytes` is one (its length must match the header exactly).
fn raw_screencap(bytes: &[u8]) -> Option<Result<RgbaImage, VisionError>> {
    let (w, h, format) = (word(bytes, 0)?, word(bytes, 1)?, word(bytes, 2)?);
    if !plausible(w, h) {
        return None;
    }
    let pixels = w as usize * h as usize * 4;
    let header = [12usize, 16]
        .into_iter()
        .find(|&n| bytes.len() == n + pixels)?;
    let rgb = match format {
        1 | 2 => [0, 1, 2],
        5 => [2, 1, 0],
        other => return Some(Err(VisionError::PixelFormat(other))),
    };
    Some(opaque(&bytes[header..], w, h, rgb))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(header_words: &[u32], pixels: &[[u8; 4]]) -> Vec<u8> {
        let mut b: Vec<u8> = header_words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for p in pixels {
            b.extend_from_slice(p);
        }
        b
    }

    fn encoded(img: &RgbaImage, format: image::ImageFormat) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        image::DynamicImage::ImageRgba8(img.clone())
            .to_rgb8()
            .write_to(&mut out, format)
            .unwrap();
        out.into_inner()
    }

    /// CRC-32 as PNG chunks carry it.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn damaged_and_huge_images_are_refused_as_such() {
        let img = RgbaImage::from_pixel(40, 30, image::Rgba([200, 100, 50, 255]));
        let jpeg = encoded(&img, image::ImageFormat::Jpeg);
        assert_eq!(decode(&jpeg).unwrap().dimensions(), (40, 30));
        let mut padded = jpeg.clone();
        padded.extend_from_slice(&[0, 0, 0]);
        assert!(decode(&padded).is_ok());
        let cut = &jpeg[..jpeg.len() * 2 / 3];
        assert_eq!(decode(cut), Err(VisionError::TruncatedJpeg(cut.len())));
        // A PNG whose header claims 20000x20000: refused before any pixel is decoded.
        let mut png = encoded(&img, image::ImageFormat::Png);
        png[16..20].copy_from_slice(&20_000u32.to_be_bytes());
        png[20..24].copy_from_slice(&20_000u32.to_be_bytes());
        let crc = crc32(&png[12..29]);
        png[29..33].copy_from_slice(&crc.to_be_bytes());
        let err = decode(&png).unwrap_err();
        assert_eq!(
            err,
            VisionError::TooLarge {
                width: 20_000,
                height: 20_000
            }
        );
        assert!(err.to_string().contains("at most 10000x10000"), "{err}");
        // A PNG cut short is a decoding error, not a screen without a board.
        let png = encoded(&img, image::ImageFormat::Png);
        assert!(matches!(
            decode(&png[..png.len() - 20]),
            Err(VisionError::Decode(_))
        ));
    }

    #[test]
    fn raw_dumps_of_both_header_sizes_decode() {
        let px = [[10, 20, 30, 255], [40, 50, 60, 0]];
        for header in [vec![2, 1, 1], vec![2, 1, 1, 0]] {
            let img = decode(&dump(&header, &px)).expect("a raw dump");
            assert_eq!(img.dimensions(), (2, 1));
            assert_eq!(img.get_pixel(1, 0).0, [40, 50, 60, 255]);
        }
        // BGRA comes out as RGBA.
        let img = decode(&dump(&[1, 1, 5], &[[30, 20, 10, 255]])).unwrap();
        assert_eq!(img.get_pixel(0, 0).0, [10, 20, 30, 255]);
        assert_eq!(
            decode(&dump(&[1, 1, 4], &[[0, 0, 0, 0]])),
            Err(VisionError::PixelFormat(4))
        );
        // Every pixel of a screen made opaque, its colour kept, in the words of four pixels
        // and the few after them (7x3: five words and one pixel).
        let px: Vec<[u8; 4]> = (0..21u8).map(|i| [i, 100 + i, 200 + i, i % 3]).collect();
        let img = decode(&dump(&[7, 3, 1, 0], &px)).unwrap();
        for (i, p) in img.pixels().enumerate() {
            let i = i as u8;
            assert_eq!(p.0, [i, 100 + i, 200 + i, 255]);
        }
    }

    #[test]
    fn framebuffer_answers_of_both_versions_decode() {
        // BGRA in memory: blue at bit 0, green 8, red 16, alpha 24.
        let px = [[30, 20, 10, 255], [60, 50, 40, 0]];
        let v1 = [1, 32, 8, 2, 1, 16, 8, 0, 8, 8, 8, 24, 8];
        let v2 = [2, 32, 0, 8, 2, 1, 16, 8, 0, 8, 8, 8, 24, 8];
        for header in [&v1[..], &v2[..]] {
            let img = decode(&dump(header, &px)).expect("a framebuffer answer");
            assert_eq!(img.dimensions(), (2, 1));
            assert_eq!(img.get_pixel(0, 0).0, [10, 20, 30, 255]);
            assert_eq!(img.get_pixel(1, 0).0, [40, 50, 60, 255]);
        }
        // A 16-bit framebuffer is not one this reads.
        assert!(decode(&dump(&[1, 16, 4, 1, 1, 11, 5, 0, 5, 5, 6, 0, 0], &[[0; 4]])).is_err());
    }

    #[test]
    fn anything_else_is_refused_not_a_panic() {
        for bytes in [
            &b""[..],
            b"hello",
            &[0xff, 0xd8, 0xff, 0],
            b"\x89PNG\r\n\x1a\n....",
        ] {
            assert!(decode(bytes).is_err(), "{bytes:?}");
        }
        // A header whose size does not match the bytes is not a dump.
        assert_eq!(
            decode(&dump(&[100, 100, 1], &[[0; 4]])),
            Err(VisionError::NotAnImage(16))
        );
    }

    #[test]
    fn the_declared_size_is_read_from_the_header_alone() {
        let img = RgbaImage::new(37, 21);
        for format in [image::ImageFormat::Png, image::ImageFormat::Jpeg] {
            let bytes = encoded(&img, format);
            assert_eq!(declared_size(&bytes), Some((37, 21)), "{format:?}");
        }
        assert_eq!(declared_size(b"not an image at all"), None);
        assert_eq!(
            declared_size(&dump(&[2, 2, 1], &[[0; 4]; 4])),
            None,
            "a raw dump"
        );
    }
}
