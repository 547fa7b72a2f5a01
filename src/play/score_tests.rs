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

#[test]
fn the_rounds_end_is_fixed_from_what_was_seen() {
    let t0 = std::time::Instant::now();
    let s = Duration::from_secs;
    let round = s(120);
    let board = Board::parse("lqreslusaticnren").unwrap();
    let seen = |at: u64, after: Option<u64>, clock: Option<(u64, u32)>| Seen {
        at: t0 + s(at),
        after: after.map(|a| t0 + s(a)),
        clock: clock.map(|(c, secs)| (t0 + s(c), secs)),
        ..Seen::typed(board)
    };
    // (read at, came up after, clock read at and showing, the end, seconds after t0)
    let cases = [
        // Already showing, or typed: a whole round from when it was read.
        (seen(10, None, None), 130),
        // Came up after a look at the lobby 2 s before it was read.
        (seen(10, Some(8), None), 128),
        // The game's clock says 0:31 (at least 30 s left), whatever else is known.
        (seen(10, Some(8), Some((10, 31))), 40),
        (seen(10, None, Some((10, 31))), 40),
    ];
    for (i, (seen, end)) in cases.into_iter().enumerate() {
        assert_eq!(seen.deadline(round), t0 + s(end), "case {i}");
    }
}
