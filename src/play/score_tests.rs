//! Tests of the score as the game shows it: read off the screen, moved only by its digits.

use super::*;

#[test]
fn the_score_moved_when_its_digits_changed_not_for_noise() {
    let area = ScreenBox {
        x0: 10.0,
        y0: 10.0,
        x1: 110.0,
        y1: 50.0,
    };
    let before = RgbaImage::from_pixel(200, 100, image::Rgba([20, 40, 90, 255]));
    // A new digit: a white block of 12x20 pixels in the box (6% of it).
    let mut digit = before.clone();
    for y in 20..40 {
        for x in 60..72 {
            digit.put_pixel(x, y, image::Rgba([255, 255, 255, 255]));
        }
    }
    // Noise everywhere: each channel off by up to 30.
    let mut noise = before.clone();
    for (i, p) in noise.pixels_mut().enumerate() {
        p.0[0] = p.0[0].saturating_add((i % 31) as u8);
    }
    // A change outside the box.
    let mut outside = before.clone();
    for y in 60..100 {
        for x in 0..200 {
            outside.put_pixel(x, y, image::Rgba([255, 0, 0, 255]));
        }
    }
    let cases = [
        (&before, false),
        (&digit, true),
        (&noise, false),
        (&outside, false),
    ];
    for (after, moved) in cases {
        assert_eq!(score_moved(&before, after, area), moved);
    }
}
