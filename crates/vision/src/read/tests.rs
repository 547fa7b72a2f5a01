//! The reader's tests, tile by tile and board by board.

use super::crop::{INK, WORK};
use super::*;
use crate::glyph::QU;

/// An opaque colour.
fn rgba(c: [u8; 3]) -> Rgba<u8> {
    Rgba([c[0], c[1], c[2], 255])
}
use image::Rgba;

/// A light tile (centre (120, 120), side 200) with a navy bar for a glyph and, when
/// `badge` is set, a blue badge in its top-left corner that overlaps the bar.
fn tile(badge: bool) -> RgbaImage {
    let mut img = RgbaImage::from_pixel(240, 240, Rgba([40, 40, 60, 255]));
    let mut fill = |x0: u32, y0: u32, x1: u32, y1: u32, c: [u8; 3]| {
        for y in y0..y1 {
            for x in x0..x1 {
                img.put_pixel(x, y, Rgba([c[0], c[1], c[2], 255]));
            }
        }
    };
    fill(20, 20, 220, 220, [225, 195, 225]);
    fill(105, 60, 135, 180, [20, 20, 140]);
    if badge {
        fill(20, 20, 110, 70, [30, 110, 220]);
    }
    img
}

#[test]
fn a_badge_of_another_colour_touching_the_glyph_is_cut_off() {
    let ink_at = |glyph: &TileGlyph, x: f32, y: f32| {
        let ink = glyph.ink.as_ref().expect("a glyph");
        // Screen point to crop pixel: the crop is CROP of the tile, centred on it.
        let side = 200.0 * CROP;
        let k = ink.w as f32 / side;
        let (cx, cy) = ((x - 120.0 + side / 2.0) * k, (y - 120.0 + side / 2.0) * k);
        ink.v[cy as usize * ink.w + cx as usize]
    };
    let plain = tile_glyph(&tile(false), (120.0, 120.0), 200.0);
    let badged = tile_glyph(&tile(true), (120.0, 120.0), 200.0);
    for glyph in [&plain, &badged] {
        assert!(ink_at(glyph, 120.0, 120.0) > 0.9, "the bar is ink");
        assert!(
            ink_at(glyph, 120.0, 65.0) > 0.9,
            "the bar under the badge is ink"
        );
    }
    assert_eq!(ink_at(&badged, 60.0, 45.0), 0.0, "the badge is not ink");
}

/// A tile on a gap of violet with a dark-red bar for its letter and, maybe, a badge in its
/// top-left corner: (colour, letters, letters drawn touching).
fn badged(badge: Option<([u8; 3], &str, bool)>) -> RgbaImage {
    use super::super::corpus::rounded;
    let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
    rounded(
        &mut img,
        20.0,
        20.0,
        220.0,
        220.0,
        12.0,
        rgba([230, 230, 150]),
    );
    letter_bar(&mut img);
    if let Some((colour, text, touching)) = badge {
        draw_badge(&mut img, colour, text, touching);
    }
    img
}

/// The dark-red bar `badged` draws for a tile's letter.
fn letter_bar(img: &mut RgbaImage) {
    let bar = rgba([150, 30, 40]);
    super::super::corpus::rounded(img, 105.0, 60.0, 135.0, 180.0, 0.0, bar);
}

/// A badge of `colour` in the top-left corner of `badged`'s tile, its letters `text` in white
/// (drawn each on its own, close enough to touch, if `touching`).
fn draw_badge(img: &mut RgbaImage, colour: [u8; 3], text: &str, touching: bool) {
    use super::super::corpus::{rounded, text_centred};
    rounded(img, 26.0, 26.0, 90.0, 74.0, 8.0, rgba(colour));
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    let white = rgba([255, 255, 255]);
    if touching {
        // Each letter on its own, close enough that the T's bar meets the W.
        let (first, second) = text.split_at(1);
        text_centred(img, &font, first, 48.0, 50.0, 24.0, white);
        text_centred(img, &font, second, 64.0, 50.0, 24.0, white);
    } else {
        text_centred(img, &font, text, 58.0, 50.0, 24.0, white);
    }
}

const GAP: [u8; 3] = [70, 40, 170];

#[test]
fn badges_are_read_in_the_gaps_colour_and_with_touching_letters() {
    let read =
        |img: &RgbaImage| tile_badge(img, (120.0, 120.0), 200.0, &Classifier::built_in()).bonus();
    assert_eq!(read(&badged(None)), None, "no badge, none read");
    let orange = [220, 110, 30];
    assert_eq!(read(&badged(Some((orange, "DL", false)))), Some(Bonus::DL));
    // A badge the colour of the gap around the tile: the face around it sets it apart.
    assert_eq!(read(&badged(Some((GAP, "TL", false)))), Some(Bonus::TL));
    // Letters that touch come as one piece: cut apart.
    let img = badged(Some((orange, "TW", true)));
    assert_eq!(read(&img), Some(Bonus::TW));
}

/// A badge on a face shaded from top to bottom, on a flat panel of a vivid colour: the
/// panel, flat, has more cells of one lightness than the shaded face, but the face's colour
/// is the tile's (before, it was the panel's, the whole tile stood out from it, and the badge
/// did not: developed seed 1, sample 42).
#[test]
fn a_badge_is_read_on_a_shaded_face_on_a_flat_panel() {
    let panel = [16, 106, 22];
    let mut img = RgbaImage::from_pixel(240, 240, rgba(panel));
    for y in 20..220u32 {
        // 45 levels from top to bottom, yellow.
        let t = (y - 20) as f32 / 200.0;
        let shade = |top: f32, bottom: f32| (top + (bottom - top) * t).round() as u8;
        let face = rgba([shade(210.0, 165.0), shade(215.0, 172.0), shade(70.0, 52.0)]);
        for x in 20..220 {
            img.put_pixel(x, y, face);
        }
    }
    letter_bar(&mut img);
    draw_badge(&mut img, [100, 20, 140], "TL", false);
    let read = tile_badge(&img, (120.0, 120.0), 200.0, &Classifier::built_in()).bonus();
    assert_eq!(read, Some(Bonus::TL));
}

/// A light tile with a letter K and, maybe, a thin square frame drawn inset in the ink's
/// colour (outlined tiles).
fn framed(frame: bool) -> RgbaImage {
    use super::super::corpus::{rounded, text_centred};
    let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
    let (face, ink) = (rgba([200, 240, 190]), rgba([120, 20, 140]));
    rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 4.0, face);
    if frame {
        rounded(&mut img, 34.0, 34.0, 206.0, 206.0, 0.0, ink);
        rounded(&mut img, 40.0, 40.0, 200.0, 200.0, 0.0, face);
    }
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    text_centred(&mut img, &font, "K", 120.0, 120.0, 110.0, ink);
    img
}

#[test]
fn a_frame_reaching_the_crops_edge_as_dark_as_the_letter_leaves_it_whole() {
    // An outlined tile whose frame lies at its rim, on a dark background the crop takes
    // in (a grid's tile measured a little large): frame and background are one region
    // reaching the edge. The frame is as dark as the letter, in another colour, so the
    // ink's colour is a mix of both: keeping only "the glyph's own colour" kept nothing.
    use super::super::corpus::{rounded, text_centred};
    let mut img = RgbaImage::from_pixel(240, 240, rgba([140, 30, 115]));
    let (face, frame, ink) = (
        rgba([16, 255, 209]),
        rgba([0, 105, 86]),
        rgba([176, 23, 70]),
    );
    rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 0.0, frame);
    rounded(&mut img, 28.0, 28.0, 212.0, 212.0, 0.0, face);
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    text_centred(&mut img, &font, "D", 120.0, 120.0, 110.0, ink);
    let glyph = tile_glyph(&img, (120.0, 120.0), 224.0);
    let (x0, y0, x1, y1) = glyph.ink.expect("the letter").ink_box().expect("ink");
    // The D alone: about 60% of the crop's side tall, nothing of the frame.
    let n = 112;
    assert!(
        x0 > n / 5 && y0 > n / 5 && x1 < n * 4 / 5 && y1 < n * 4 / 5,
        "{:?}",
        (x0, y0, x1, y1)
    );
}

#[test]
fn a_frame_inside_the_tile_is_not_part_of_the_letter() {
    let box_of = |img: &RgbaImage| {
        let glyph = tile_glyph(img, (120.0, 120.0), 200.0);
        glyph.ink.expect("a glyph").ink_box()
    };
    let plain = box_of(&framed(false));
    assert!(plain.is_some());
    assert_eq!(box_of(&framed(true)), plain, "the same ink, frame or not");
    // A big O alone is a letter, not a frame.
    let mut o = RgbaImage::from_pixel(240, 240, Rgba([70, 40, 170, 255]));
    super::super::corpus::rounded(
        &mut o,
        20.0,
        20.0,
        220.0,
        220.0,
        4.0,
        Rgba([200, 240, 190, 255]),
    );
    super::super::corpus::rounded(
        &mut o,
        36.0,
        36.0,
        204.0,
        204.0,
        80.0,
        Rgba([120, 20, 140, 255]),
    );
    super::super::corpus::rounded(
        &mut o,
        60.0,
        60.0,
        180.0,
        180.0,
        56.0,
        Rgba([200, 240, 190, 255]),
    );
    assert!(
        tile_glyph(&o, (120.0, 120.0), 200.0).ink.is_some(),
        "a ring alone is a glyph"
    );
}

/// A tile with a letter K on a face `shade(x, y)` lighter in places (x and y from -1 to 1
/// across the tile), and maybe a translucent white line across it (a traced path's).
fn shaded(shade: impl Fn(f32, f32) -> f32, line: bool) -> RgbaImage {
    shaded_under(shade, line.then_some(0.5))
}

/// `shaded`, the line (when there is one) of opacity `line`.
fn shaded_under(shade: impl Fn(f32, f32) -> f32, line: Option<f32>) -> RgbaImage {
    use super::super::corpus::text_centred;
    let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
    for y in 20..220 {
        for x in 20..220 {
            let lift = shade((x as f32 - 120.0) / 100.0, (y as f32 - 120.0) / 100.0);
            let v = |c: f32| (c + lift).min(255.0) as u8;
            img.put_pixel(x, y, Rgba([v(190.0), v(200.0), v(150.0), 255]));
        }
    }
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    text_centred(
        &mut img,
        &font,
        "K",
        120.0,
        120.0,
        110.0,
        Rgba([30, 30, 120, 255]),
    );
    if let Some(alpha) = line {
        for y in 100..140 {
            for x in 20..220 {
                let p = img.get_pixel_mut(x, y);
                for c in 0..3 {
                    p[c] = (f32::from(p[c]) * (1.0 - alpha) + 255.0 * alpha) as u8;
                }
            }
        }
    }
    img
}

#[test]
fn shading_is_not_a_veil_and_a_drawn_line_is() {
    let veiled = |img: &RgbaImage| tile_glyph(img, (120.0, 120.0), 200.0).hidden.is_some();
    let radial = |x: f32, y: f32| 55.0 * (1.0 - (x * x + y * y).sqrt()).max(0.0);
    assert!(!veiled(&shaded(radial, false)), "a radially shaded face");
    assert!(
        !veiled(&shaded(|_, y| 40.0 * (1.0 - y) / 2.0, false)),
        "a glossy top"
    );
    // A glossy top half with a crisp edge: lighter along half the rim, as no line is.
    assert!(
        !veiled(&shaded(|_, y| if y < 0.0 { 40.0 } else { 0.0 }, false)),
        "a sheen with a crisp edge"
    );
    assert!(veiled(&shaded(|_, _| 0.0, true)), "a line over a flat face");
    assert!(veiled(&shaded(radial, true)), "a line over a shaded face");
}

#[test]
fn a_faintly_lighter_face_by_a_line_is_not_ink() {
    // A nearly opaque line across a shaded face: what is faintly lighter than the face
    // there is the face, and the letter under the line has no more ink than without it
    // (taking it for ink under the veil put blobs round letters, read as O, D and G).
    let ink = |img: &RgbaImage| {
        let g = tile_glyph(img, (120.0, 120.0), 200.0);
        let ink = g.ink.expect("a glyph");
        (
            ink.v.iter().filter(|&&v| v >= INK).count(),
            g.hidden.is_some(),
        )
    };
    // Darker towards the edges with the square of the distance, as the corpus's radial
    // tiles: lightness spreads evenly over a range, and the face's (most common) lightness
    // falls anywhere in it, with a ring of faintly lighter face round the letter.
    let gentle = |x: f32, y: f32| -20.0 * (x * x + y * y) / 2.0;
    let (bare, _) = ink(&shaded(gentle, false));
    for alpha in [0.75, 0.85] {
        let (lined, veiled) = ink(&shaded_under(gentle, Some(alpha)));
        assert!(veiled, "the line is seen at opacity {alpha}");
        // A pixel or two of rim may go either way; a blob is tens.
        assert!(
            lined <= bare + bare / 100,
            "opacity {alpha}: {lined} pixels of ink against {bare} without the line"
        );
    }
}

#[test]
fn a_veil_the_ink_shows_through_hides_nothing() {
    // A faint light line over the letter (or what looks like one: JPEG's halo round a
    // letter, a shaded face's lighter middle): the ink under it is still ink, so the glyph
    // is seen whole and read as surely as without it.
    let classifier = Classifier::built_in();
    let read = |img: &RgbaImage| {
        let seen = see_tile(img, (120.0, 120.0), 200.0, 240.0);
        let (tile, confidence, _) = judge(&seen, &classifier);
        (seen.veiled, tile, confidence)
    };
    let (_, k, bare) = read(&shaded(|_, _| 0.0, false));
    assert_eq!(k, 10, "a K");
    for alpha in [0.22, 0.3] {
        let (veiled, tile, confidence) = read(&shaded_under(|_, _| 0.0, Some(alpha)));
        assert!(!veiled, "opacity {alpha}: the K shows through");
        assert_eq!(tile, k, "opacity {alpha}");
        assert!(
            confidence >= 0.9 * bare,
            "opacity {alpha}: {confidence} against {bare} without the line"
        );
    }
    // Through a line as opaque as a game's, the strokes under it are lost: a veil.
    assert!(read(&shaded_under(|_, _| 0.0, Some(0.5))).0);
}

/// A flat tile (centre (120, 120), side 200) of colour `face` with `letter` in `ink` at
/// `size`, under a white line of opacity `alpha` where `line` says.
fn under_a_line(
    (letter, size): (&str, f32),
    (face, ink): ([u8; 3], [u8; 3]),
    line: impl Fn(f32, f32) -> bool,
    alpha: f32,
) -> RgbaImage {
    use super::super::corpus::text_centred;
    let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
    for y in 20..220 {
        for x in 20..220 {
            img.put_pixel(x, y, rgba(face));
        }
    }
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    text_centred(&mut img, &font, letter, 120.0, 120.0, size, rgba(ink));
    for (x, y, p) in img.enumerate_pixels_mut() {
        if line(x as f32, y as f32) {
            for c in 0..3 {
                p[c] = (f32::from(p[c]) * (1.0 - alpha) + 255.0 * alpha) as u8;
            }
        }
    }
    img
}

#[test]
fn a_stroke_under_lines_of_a_path_is_told_from_the_face_by_colour() {
    // A blue T on a beige face with a lighter top (a sheen), under two lines of a path
    // meeting beside it, one along the crossbar and one across the stem, as on a screen
    // of the held-back corpus (seed 3, sample 5: T read as A). Under the lines the ink is
    // as light as the veiled face, but bluer: the T is found whole, and the wedge of face
    // between the lines is no ink. (Judged by lightness, half the T was lost.)
    let (face, blue) = ([225, 200, 185], [70, 40, 200]);
    let bar = |_: f32, y: f32| (88.0..112.0).contains(&y);
    let across = |x: f32, y: f32| (x + y - 250.0).abs() / std::f32::consts::SQRT_2 < 12.0;
    let sheen = |img: &mut RgbaImage| {
        for y in 20..115 {
            for x in 20..220 {
                let p = img.get_pixel_mut(x, y);
                if p.0[..3] == face {
                    for c in 0..3 {
                        p[c] = (f32::from(p[c]) * 0.6 + 255.0 * 0.4) as u8;
                    }
                }
            }
        }
    };
    let mut bare = under_a_line(("T", 110.0), (face, blue), |_, _| false, 0.0);
    sheen(&mut bare);
    let mut lined = bare.clone();
    for (x, y, p) in lined.enumerate_pixels_mut() {
        if bar(x as f32, y as f32) || across(x as f32, y as f32) {
            for c in 0..3 {
                p[c] = (f32::from(p[c]) * 0.3 + 255.0 * 0.7) as u8;
            }
        }
    }
    let ink = |img: &RgbaImage| {
        let g = tile_glyph(img, (120.0, 120.0), 200.0);
        let ink = g.ink.expect("a glyph");
        let set: Vec<bool> = ink.v.iter().map(|&v| v >= INK).collect();
        (set, g.hidden.is_some())
    };
    let ((want, _), (got, veiled)) = (ink(&bare), ink(&lined));
    assert!(veiled, "the lines are seen");
    let (inked, missed, extra) = want
        .iter()
        .zip(&got)
        .fold((0, 0, 0), |(i, m, e), (&w, &g)| {
            (
                i + usize::from(w),
                m + usize::from(w && !g),
                e + usize::from(g && !w),
            )
        });
    assert!(
        missed * 10 <= inked && extra * 10 <= inked,
        "of {inked} pixels of ink, {missed} lost and {extra} more under the lines"
    );
    let seen = see_tile(&lined, (120.0, 120.0), 200.0, 240.0);
    let (tile, _, _) = judge(&seen, &Classifier::built_in());
    assert_eq!(tile, 19, "read as a T");
}

#[test]
fn what_colour_tells_under_a_line_is_in_sight() {
    // A purple E on a cyan face under a path's line along its bottom arm. Under the line
    // the ink is told from the face by colour, so only the line's soft edges are in doubt,
    // not the arm: judged as hidden, the whole line was (an E then looks like an F).
    let line = |x: f32, y: f32| x >= 60.0 && (y - 155.0).abs() < 14.0;
    let img = under_a_line(("E", 110.0), ([50, 210, 215], [100, 30, 100]), line, 0.6);
    let glyph = tile_glyph(&img, (120.0, 120.0), 200.0);
    let in_doubt = glyph
        .hidden
        .expect("the line is seen")
        .iter()
        .filter(|&&h| h)
        .count();
    // The line's area in the crop's cells.
    let cell = 200.0 * CROP / WORK as f32;
    let under_line = (20..220)
        .flat_map(|y| (20..220).map(move |x| (x as f32, y as f32)))
        .filter(|&(x, y)| line(x, y))
        .count() as f32
        / (cell * cell);
    assert!(
        (in_doubt as f32) < under_line / 3.0,
        "{in_doubt} cells in doubt of {under_line:.0} under the line"
    );
    let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
    let (tile, confidence, _) = judge(&seen, &Classifier::built_in());
    assert_eq!(tile, 4, "read as an E");
    assert!(confidence >= SURE, "read at {confidence}");
}

#[test]
fn a_glyph_wholly_under_a_nearly_opaque_line_is_found() {
    // A K under a white line of opacity 0.8, wider than the letter is tall: nothing in
    // the tile is darker than its face, but the veiled strokes are still there.
    let img = under_a_line(
        ("K", 70.0),
        ([200, 150, 60], [30, 30, 120]),
        |_, y| (80.0..160.0).contains(&y),
        0.8,
    );
    let glyph = tile_glyph(&img, (120.0, 120.0), 200.0);
    assert!(glyph.ink.is_some(), "the K under the line is found");
    assert!(glyph.hidden.is_some(), "and known to be under a veil");
    let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
    let (tile, _, _) = judge(&seen, &Classifier::built_in());
    assert_eq!(tile, 10, "read as a K");
}

#[test]
fn strokes_under_a_line_barely_lighter_than_the_face_are_not_lost() {
    // A B on a nearly white face under a white line that lightens the face by 12 levels
    // only (the face, flat, is found 4 levels lighter than it is: less than any veil is
    // looked for), but its strokes from 73 to about 188: the B is not read surely as
    // what is left in sight.
    // A line 24 pixels wide from the top right to the bottom left.
    let img = under_a_line(
        ("B", 110.0),
        ([236, 236, 236], [73, 73, 73]),
        |x, y| (x + y - 240.0).abs() / std::f32::consts::SQRT_2 < 12.0,
        0.63,
    );
    let glyph = tile_glyph(&img, (120.0, 120.0), 200.0);
    assert!(glyph.hidden.is_some(), "the B is known to be under a line");
    let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
    let (tile, confidence, _) = judge(&seen, &Classifier::built_in());
    assert!(
        tile == 1 || confidence < SURE,
        "read as {tile} at {confidence}"
    );
}

#[test]
fn the_network_decides_how_far_a_veiled_glyph_is_trusted() {
    // An H read at 0.8 under a line with 40% of it in sight.
    let v = |network| Verdict {
        tile: 7,
        confidence: 0.8,
        runner_up: 12,
        distance: 0.3,
        learned: false,
        network,
    };
    let alone = veiled_trust(&v(None), 0.4);
    assert!((alone - 0.8 * VEILED_TRUST * 0.4).abs() < 1e-6);
    // All but sure of the same letter: trusted as if the glyph were seen but veiled.
    let agrees = veiled_trust(&v(Some((7, 0.97))), 0.4);
    assert!((agrees - 0.8 * VEILED_TRUST).abs() < 1e-6, "{agrees}");
    // Less sure of it: as without the network.
    assert_eq!(veiled_trust(&v(Some((7, 0.9))), 0.4), alone);
    // Fairly sure of another letter (M, whose middle the line may hide): not trusted.
    assert_eq!(veiled_trust(&v(Some((12, 0.6))), 0.4), 0.0);
    assert_eq!(veiled_trust(&v(Some((12, 0.3))), 0.4), alone);
}

#[test]
fn a_glyph_touching_the_tiles_frame_is_read_without_it() {
    // An outlined tile whose "QU" is wider than the inside of its frame: the Q's and the
    // U's outer strokes cross the frame's lines, and glyph and frame are one region.
    use super::super::corpus::{rounded, text_centred};
    let (face, ink) = (rgba([220, 160, 180]), rgba([150, 20, 220]));
    let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
    rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 4.0, face);
    rounded(&mut img, 40.0, 40.0, 200.0, 200.0, 0.0, rgba([90, 60, 80]));
    rounded(&mut img, 46.0, 46.0, 194.0, 194.0, 0.0, face);
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::regular().to_vec()).unwrap();
    text_centred(&mut img, &font, "QU", 120.0, 120.0, 128.0, ink);
    // The grid takes the inside of the frame for the tile, as on the held-back screen.
    let classifier = Classifier::built_in();
    let seen = see_tile(&img, (120.0, 120.0), 150.0, 240.0);
    assert!(seen.glyph, "a glyph is found");
    let (tile, confidence, _) = judge(&seen, &classifier);
    assert_eq!((tile, confidence >= SURE), (QU, true), "{confidence}");
}

/// A 480x800 screen of one colour with a board of rounded tiles of another, its letters
/// "WORDSGAMELIKEBUT" in a third.
fn board_drawn(panel: [u8; 3], tile: [u8; 3], ink: [u8; 3]) -> RgbaImage {
    board_drawn_with(panel, tile, ink, &[])
}

/// `board_drawn`, with the tiles of `own` (index, tile colour, ink colour) in colours of
/// their own, as bonus tiles are tinted.
fn board_drawn_with(
    panel: [u8; 3],
    tile: [u8; 3],
    ink: [u8; 3],
    own: &[(usize, [u8; 3], [u8; 3])],
) -> RgbaImage {
    use super::super::corpus::{rounded, text_centred};
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    let mut img = RgbaImage::from_pixel(480, 800, rgba(panel));
    for (i, ch) in "WORDSGAMELIKEBUT".chars().enumerate() {
        let (x, y) = (
            40.0 + 102.0 * (i % 4) as f32,
            200.0 + 102.0 * (i / 4) as f32,
        );
        let (tile, ink) = own
            .iter()
            .find(|o| o.0 == i)
            .map_or((tile, ink), |o| (o.1, o.2));
        rounded(&mut img, x, y, x + 92.0, y + 92.0, 10.0, rgba(tile));
        let s = ch.to_string();
        text_centred(&mut img, &font, &s, x + 46.0, y + 46.0, 56.0, rgba(ink));
    }
    img
}

#[test]
fn a_tinted_tile_with_its_letter_the_other_way_round_is_read() {
    // Cream tiles with dark letters, but two bonus tiles dark blue with white letters (and,
    // on a board of dark tiles read on the negative, a light one with a dark letter): each
    // was a tile without a letter, read as A at no confidence.
    let cases = [
        (
            [70, 80, 100],
            [245, 235, 210],
            [40, 20, 50],
            [40, 90, 200],
            [250, 250, 250],
        ),
        (
            [225, 222, 210],
            [30, 95, 45],
            [250, 250, 245],
            [250, 230, 120],
            [30, 30, 30],
        ),
    ];
    for (panel, tile, ink, own_tile, own_ink) in cases {
        let img = board_drawn_with(
            panel,
            tile,
            ink,
            &[(5, own_tile, own_ink), (14, own_tile, own_ink)],
        );
        let r =
            read(&img, None, &Classifier::built_in()).unwrap_or_else(|e| panic!("{tile:?}: {e}"));
        assert_eq!(r.board().to_string(), "WORD/SGAM/ELIK/EBUT", "{tile:?}");
        assert!(r.playable(), "{tile:?}: {r:?}");
    }
}

#[test]
fn dark_tiles_with_light_letters_are_read_as_the_negative_of_the_screen() {
    // Dark green tiles with white letters on a light panel: no tile is lighter than what
    // lies between them, so the grid search finds none; on the screen's negative it does.
    let img = board_drawn([225, 222, 210], [30, 95, 45], [250, 250, 245]);
    assert!(super::super::grid::find(&img).is_none(), "found as it is");
    let r = read(&img, None, &Classifier::built_in()).expect("read on the negative");
    assert_eq!(r.board().to_string(), "WORD/SGAM/ELIK/EBUT");
    assert!(r.playable(), "{r:?}");
}

#[test]
fn tiles_as_light_as_their_panel_are_found_by_their_colour() {
    // Green tiles on a brown panel, and sand tiles on a sky-blue one, each as light as its
    // panel (Rec. 601 luma 89 and 90, 173 and 176): neither lighter nor darker, no grid in
    // light or on the negative; the colour tells them apart. The letters are read the way
    // round they are: light ones on the negative, dark ones as they are.
    for (panel, tile, ink) in [
        ([120, 80, 60], [40, 120, 60], [250, 250, 240]),
        ([140, 190, 200], [200, 170, 120], [30, 30, 30]),
    ] {
        let img = board_drawn(panel, tile, ink);
        assert!(
            super::super::grid::find(&img).is_none(),
            "{tile:?}: found in light"
        );
        let r = read(&img, None, &Classifier::built_in())
            .unwrap_or_else(|e| panic!("{tile:?} on {panel:?}: {e}"));
        assert_eq!(r.board().to_string(), "WORD/SGAM/ELIK/EBUT", "{tile:?}");
        assert!(r.playable(), "{tile:?}: {r:?}");
    }
}

#[test]
fn a_lone_q_is_read_as_qu_and_an_o_as_o() {
    // Some games draw the Qu tile as a Q alone: one glyph, told from O by its tail. Before,
    // a tile of one glyph was never Qu, and a lone Q was read as O, surely.
    use super::super::corpus::{rounded, text_centred};
    let (face, ink) = (rgba([240, 230, 205]), rgba([40, 30, 30]));
    let read = |font: &ab_glyph::FontVec, text: &str| {
        let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
        rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 16.0, face);
        text_centred(&mut img, font, text, 120.0, 120.0, 120.0, ink);
        let seen = see_tile(&img, (120.0, 120.0), 200.0, 240.0);
        let (tile, confidence, _) = judge(&seen, &Classifier::built_in());
        (tile, confidence >= SURE)
    };
    for bytes in [dejavu::sans::bold(), notosans::REGULAR_TTF] {
        let font = ab_glyph::FontVec::try_from_vec(bytes.to_vec()).unwrap();
        assert_eq!(read(&font, "Q"), (QU, true));
        assert_eq!(read(&font, "O"), (14, true));
    }
}

#[test]
fn a_q_with_a_small_u_is_read_as_qu_surely() {
    // Some games draw the Qu tile as a Q with a small u on its baseline. Before it was among
    // the references, such a Qu was read as Qu at 0.29-0.32 here (O the runner-up), and in
    // condensed faces at no confidence.
    use super::super::corpus::text_centred;
    let (face, ink) = (rgba([240, 230, 205]), rgba([40, 30, 30]));
    for bytes in [dejavu::sans::bold(), dejavu::serif::bold()] {
        let font = ab_glyph::FontVec::try_from_vec(bytes.to_vec()).unwrap();
        let mut img = RgbaImage::from_pixel(240, 240, face);
        text_centred(&mut img, &font, "Q", 100.0, 120.0, 120.0, ink);
        text_centred(&mut img, &font, "u", 163.0, 143.0, 62.0, ink);
        let seen = see_tile(&img, (120.0, 120.0), 220.0, 240.0);
        let (tile, confidence, runner_up) = judge(&seen, &Classifier::built_in());
        assert_eq!(tile, QU, "{runner_up}");
        assert!(confidence >= BOARD_TEMPLATE, "{confidence}, {runner_up}");
    }
}

#[test]
fn a_glyph_wider_than_the_grids_tile_is_looked_for_wider() {
    // The grid took the inside of an outlined tile's frame for the tile: a wide "Qu"
    // reaches past the crop it gives.
    use super::super::corpus::{rounded, text_centred};
    let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
    rounded(
        &mut img,
        15.0,
        15.0,
        225.0,
        225.0,
        8.0,
        rgba([230, 210, 40]),
    );
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    text_centred(
        &mut img,
        &font,
        "Qu",
        120.0,
        120.0,
        100.0,
        rgba([60, 30, 200]),
    );
    let classifier = Classifier::built_in();
    let seen = see_tile(&img, (120.0, 120.0), 120.0, 240.0);
    assert!(seen.glyph, "a glyph is found");
    assert_eq!(judge(&seen, &classifier).0, QU);
    // With no room beyond the grid's tile, nothing more is seen.
    assert!(!see_tile(&img, (120.0, 120.0), 120.0, 120.0).glyph);
}

#[test]
fn a_boards_own_sure_glyph_decides_its_unsure_twin() {
    // A shape no reference knows ('#'), shown on three tiles; one of them read (say, by a
    // face the references know better there) as X, surely.
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    let hash = Features::of(&super::super::glyph::render(&font, "#", 64.0)).unwrap();
    let classifier = Classifier::built_in();
    let tile_seen = |veiled| Seen {
        face: 200.0,
        glyph: true,
        features: Some(hash.clone()),
        veiled,
        in_sight: 1.0,
        allowed: &[],
        qu: QuMarks::default(),
        height: 64.0,
    };
    let seen = [tile_seen(false), tile_seen(false), tile_seen(true)];
    let alone = judge(&seen[1], &classifier);
    assert!(alone.1 < SURE, "the references alone are unsure: {alone:?}");
    let read = |(tile, confidence, runner_up)| TileRead {
        tile,
        confidence,
        runner_up,
        bonus: None,
    };
    let x = read((23, 0.9, 0));
    let mut out = [x, read(alone), read(judge(&seen[2], &classifier))];
    let before = out;
    read_with_board(&seen, &mut out, &classifier, true);
    assert_eq!(out[0], x, "a sure tile is kept");
    assert_eq!(out[1].tile, 23, "{:?}", out[1]);
    assert!(out[1].sure(), "{:?}", out[1]);
    // Under a line, the very glyph again decides too...
    assert_eq!(out[2].tile, 23, "{:?}", out[2]);
    // ...but not a glyph merely like it: the same sign in a lighter face, under a line.
    let light = ab_glyph::FontVec::try_from_vec(dejavu::sans::regular().to_vec()).unwrap();
    let like = super::super::glyph::render(&light, "#", 64.0);
    let like = Features::partly_hidden(&like, Some(&vec![false; like.w * like.h])).unwrap();
    let d = like.distance(&hash);
    assert!(
        d > super::super::glyph::TEMPLATE_SAME && d < 0.3,
        "a like glyph, not the same: {d}"
    );
    let like = Seen {
        features: Some(like),
        ..tile_seen(true)
    };
    let like_alone = read(judge(&like, &classifier));
    let mut out = [x, before[1], like_alone];
    read_with_board(
        &[tile_seen(false), tile_seen(false), like],
        &mut out,
        &classifier,
        true,
    );
    assert_eq!(
        out[2], like_alone,
        "a like glyph under a line is left alone"
    );
    // Read less surely than BOARD_TEMPLATE, the first tile teaches nothing.
    let mut out = [read((23, BOARD_TEMPLATE - 0.01, 0)), before[1], before[2]];
    read_with_board(&seen, &mut out, &classifier, true);
    assert_eq!(out[1..], before[1..]);
}

#[test]
fn a_partly_read_board_agrees_only_with_boards_showing_its_sure_letters() {
    use crate::board::Board;
    let board = Board::parse("ABCD/EFGH/IJKL/MNOP").unwrap();
    let centres = std::array::from_fn(|i| ((i % 4) as f32 * 10.0, (i / 4) as f32 * 10.0));
    // The middle two rows under a banner: read, but not surely.
    let reading = |tiles: &[u8], sure_rows: &[usize]| Reading {
        grid: Grid::from_centres(centres, 8.0),
        tiles: (0..16)
            .map(|i| TileRead {
                tile: tiles[i],
                confidence: if sure_rows.contains(&(i / 4)) {
                    0.9
                } else {
                    0.0
                },
                runner_up: 0,
                bonus: None,
            })
            .collect(),
        face: 200.0,
        covered: false,
    };
    let mut other = board.tiles().to_vec();
    other[0] = 25;
    let mut hidden_differs = board.tiles().to_vec();
    hidden_differs[5] = 25;
    // (tiles read, rows read surely, agrees)
    let cases: [(&[u8], &[usize], Option<bool>); 5] = [
        (board.tiles(), &[0, 3], Some(true)),
        (&hidden_differs, &[0, 3], Some(true)),
        (&other, &[0, 3], Some(false)),
        (&other, &[1, 2], Some(true)),
        (board.tiles(), &[], None),
    ];
    for (tiles, rows, agrees) in cases {
        assert_eq!(reading(tiles, rows).agrees_with(&board), agrees, "{rows:?}");
    }
}

#[test]
fn a_j_with_a_bar_on_its_top_is_read_surely() {
    // Monospace, Comic and some geometric faces draw J with a bar on its top, to the left of
    // its stem. No built-in face did: such a J (Sora's, Comic Neue's) was read as J at 0-4%,
    // S the runner-up. The bar's drawing now comes from JetBrains Mono. Here a
    // bar is put on the J of faces that draw none, as those faces do it: League Spartan's
    // was read at 0.10 without it.
    use super::super::corpus::{rounded, text_centred};
    let (face, ink) = (rgba([240, 230, 205]), rgba([40, 30, 30]));
    for bytes in [
        &include_bytes!("../fonts/Karla-Bold.otf")[..],
        include_bytes!("../fonts/Manrope-Bold.ttf"),
        include_bytes!("../fonts/LeagueSpartan-Bold.otf"),
    ] {
        let font = ab_glyph::FontVec::try_from_vec(bytes.to_vec()).unwrap();
        let mut img = RgbaImage::from_pixel(240, 240, face);
        text_centred(&mut img, &font, "J", 120.0, 120.0, 120.0, ink);
        // The stem: the inked columns of the glyph's top row.
        let dark = |x: u32, y: u32| img.get_pixel(x, y).0[0] < 120;
        let top = (0..240).find(|&y| (0..240).any(|x| dark(x, y))).unwrap();
        let stem: Vec<u32> = (0..240).filter(|&x| dark(x, top + 2)).collect();
        let (left, right) = (stem[0] as f32, *stem.last().unwrap() as f32 + 1.0);
        let weight = right - left;
        let bar = (
            left - 1.6 * weight,
            top as f32,
            right,
            top as f32 + 0.8 * weight,
        );
        rounded(&mut img, bar.0, bar.1, bar.2, bar.3, 0.0, ink);
        let seen = see_tile(&img, (120.0, 120.0), 220.0, 240.0);
        let (tile, confidence, runner_up) = judge(&seen, &Classifier::built_in());
        assert_eq!(tile, b'J' - b'A', "{runner_up}");
        assert!(confidence >= SURE, "{confidence}, {runner_up}");
    }
}

/// A tile of side 200 whose face falls evenly from `top` to `bottom` (lightness, greenish),
/// with a dark letter K, on a panel as dark as the face's bottom: as a game draws a gradient
/// tile. Read at a tile of 236, so the crop takes in the tile's rim and the panel beyond.
fn gradient_tile(top: f32, bottom: f32) -> RgbaImage {
    use super::super::corpus::text_centred;
    let mut img = RgbaImage::from_pixel(260, 260, rgba([bottom as u8 + 4; 3]));
    for y in 30..230 {
        let l = top + (bottom - top) * (y - 30) as f32 / 200.0;
        for x in 30..230 {
            img.put_pixel(
                x,
                y,
                Rgba([(l - 10.0) as u8, l as u8, (l - 20.0) as u8, 255]),
            );
        }
    }
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    text_centred(
        &mut img,
        &font,
        "K",
        130.0,
        130.0,
        110.0,
        rgba([40, 40, 30]),
    );
    img
}

#[test]
fn a_face_shaded_evenly_from_top_to_bottom_is_no_veil() {
    let c = crate::glyph::Classifier::built_in();
    for (top, bottom) in [(200.0, 200.0), (240.0, 180.0), (250.0, 170.0)] {
        let img = gradient_tile(top, bottom);
        let glyph = tile_glyph(&img, (130.0, 130.0), 236.0);
        assert!(
            glyph.hidden.is_none(),
            "{top}-{bottom}: the shading is no veil"
        );
        let (_, features) = tile_features(&img, (130.0, 130.0), 236.0);
        let v = features
            .and_then(|f| c.read_letter(&f, &[]))
            .unwrap_or_else(|| panic!("{top}-{bottom}: no glyph"));
        assert_eq!(v.tile, b'K' - b'A', "{top}-{bottom}");
        assert!(v.confidence >= crate::glyph::SURE, "{top}-{bottom}: {v:?}");
        // A traced path's line across the same face is still a veil over the glyph.
        let mut lined = img.clone();
        for y in 115..150 {
            for x in 0..260 {
                let p = lined.get_pixel_mut(x, y);
                for c in 0..3 {
                    p[c] = (f32::from(p[c]) * 0.5 + 127.5) as u8;
                }
            }
        }
        let glyph = tile_glyph(&lined, (130.0, 130.0), 236.0);
        assert!(glyph.hidden.is_some(), "{top}-{bottom}: a line is a veil");
    }
}

#[test]
fn a_q_with_a_short_tail_is_read_as_qu_surely_and_an_o_as_o() {
    // Some faces give the Q a tail that barely leaves the bowl (Tuffy's): the references
    // tell it from O by a cell or two, and such a Qu was read at no confidence. Its tail
    // (`qu::marks`) confirms it.
    use super::super::corpus::text_centred;
    let (face, ink) = (rgba([240, 230, 205]), rgba([40, 30, 30]));
    let font = ab_glyph::FontVec::try_from_vec(notosans::REGULAR_TTF.to_vec()).unwrap();
    let classifier = Classifier::built_in();
    let tile = |tail: bool| {
        let mut img = RgbaImage::from_pixel(240, 240, face);
        text_centred(&mut img, &font, "O", 120.0, 120.0, 120.0, ink);
        if tail {
            // From inside the bowl's foot, 7 pixels thick, 16 down and 6 right.
            for t in 0..=32 {
                let k = t as f32 / 32.0;
                let (x, y) = (120.0 + 6.0 * k, 140.0 + 16.0 * k);
                for oy in -3..=3 {
                    for ox in -3..=3 {
                        img.put_pixel((x as i32 + ox) as u32, (y as i32 + oy) as u32, ink);
                    }
                }
            }
        }
        see_tile(&img, (120.0, 120.0), 220.0, 240.0)
    };
    let q = tile(true);
    let (letter, confidence, runner_up) = judge(&q, &classifier);
    assert_eq!((letter, runner_up), (QU, 14), "{confidence}");
    assert!(confidence >= SURE, "{confidence}: {:?}", q.qu);
    let unmarked = Seen {
        qu: QuMarks::default(),
        ..q
    };
    let (_, alone, _) = judge(&unmarked, &classifier);
    assert!(alone < SURE, "the references alone are unsure: {alone}");
    let (letter, confidence, _) = judge(&tile(false), &classifier);
    assert_eq!(letter, 14);
    assert!(confidence >= SURE, "{confidence}");
}

#[test]
fn a_corner_value_drawn_touching_the_letter_is_not_read_with_it() {
    // A game's point value in the tile's top right corner, its foot on the letter's top: one
    // region with the letter. Read with it, these were a K (H, N), a Y (T) and an M at 3%.
    use super::super::corpus::text_centred;
    let (face, ink) = (rgba([240, 230, 205]), rgba([40, 30, 30]));
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    let classifier = Classifier::built_in();
    for (letter, tile, dx, dy) in [
        ("H", 7, 38.0, -42.0),
        ("M", 12, 40.0, -40.0),
        ("N", 13, 38.0, -42.0),
        ("T", 19, 40.0, -44.0),
        ("W", 22, 44.0, -40.0),
    ] {
        let mut img = RgbaImage::from_pixel(240, 240, face);
        text_centred(&mut img, &font, letter, 120.0, 120.0, 120.0, ink);
        text_centred(&mut img, &font, "5", 120.0 + dx, 120.0 + dy, 40.0, ink);
        let seen = see_tile(&img, (120.0, 120.0), 220.0, 240.0);
        let (read, confidence, runner_up) = judge(&seen, &classifier);
        assert_eq!(read, tile, "{letter}: {runner_up} at {confidence}");
        assert!(confidence >= SURE, "{letter}: {confidence}");
    }
}

#[test]
fn a_heavy_letter_on_a_face_shaded_widely_is_found() {
    // A face shaded from 245 at its top to 150 at its foot spreads over so many levels that
    // a heavy letter's ink was its commonest lightness, taken for the face: no glyph found.
    use super::super::corpus::text_centred;
    use super::crop::{crop, face_luma};
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    let mut img = RgbaImage::from_pixel(240, 240, rgba(GAP));
    for y in 20..220u32 {
        let v = (245.0 - 95.0 * (y - 20) as f32 / 200.0) as u8;
        for x in 20..220 {
            img.put_pixel(x, y, rgba([v, v, v.saturating_add(8)]));
        }
    }
    text_centred(
        &mut img,
        &font,
        "W",
        120.0,
        120.0,
        140.0,
        rgba([30, 20, 20]),
    );
    let shaded = crop(&img, (120.0, 120.0), 200.0 * CROP, WORK);
    assert!(
        face_luma(&shaded) < 60.0,
        "the ink is the commonest lightness"
    );
    // No room for a wider crop: the grid's tile is the pitch.
    let seen = see_tile(&img, (120.0, 120.0), 200.0, 200.0);
    assert!(seen.glyph, "a glyph is found");
    let (tile, confidence, runner_up) = judge(&seen, &Classifier::built_in());
    assert_eq!(tile, 22, "{runner_up} at {confidence}");
    assert!(confidence >= SURE, "{confidence}");
}

/// The negative of some rows turns over those rows' colours, keeps their alpha, leaves the
/// rest zero, and takes rows past the screen's bottom as up to it.
#[test]
fn a_negative_of_rows_turns_over_those_rows_alone() {
    let img = RgbaImage::from_fn(3, 5, |x, y| {
        Rgba([x as u8 * 40, y as u8 * 50, 200, 255 - y as u8])
    });
    let neg = negative_rows(&img, 2..100);
    for (x, y, p) in neg.enumerate_pixels() {
        let q = img.get_pixel(x, y).0;
        let want = if y >= 2 {
            [!q[0], !q[1], !q[2], q[3]]
        } else {
            [0; 4]
        };
        assert_eq!(p.0, want, "({x}, {y})");
    }
    assert_eq!(negative(&img), negative_rows(&img, 0..5));
    assert!(negative_rows(&img, 7..9).pixels().all(|p| p.0 == [0; 4]));
}

/// A negative made on a spare screen is the one made on a new screen, whatever rows the
/// spare's last negative turned over (above, below, across or inside these, or none), and a
/// spare of another size is not used.
#[test]
fn a_negative_on_a_spare_screen_is_a_negative_on_a_new_one() {
    let img = RgbaImage::from_fn(3, 9, |x, y| {
        Rgba([x as u8 * 40 + 1, y as u8 * 25 + 3, 200, 255 - y as u8])
    });
    let ranges = [0..0, 0..9, 2..5, 4..7, 6..9, 0..3, 3..4, 5..100];
    for was in ranges.clone() {
        for rows in ranges.clone() {
            let last = negative_rows(&img, was.clone());
            let spare = Some((last.into_raw(), bytes_of(&img, was.clone())));
            let on_spare = negative_rows_on(&img, rows.clone(), spare);
            assert_eq!(
                on_spare,
                negative_rows(&img, rows.clone()),
                "{was:?} then {rows:?}"
            );
        }
    }
    for (w, h) in [(3, 8), (3, 10), (4, 9)] {
        let other = RgbaImage::from_pixel(w, h, Rgba([9; 4]));
        let spare = Some((other.into_raw(), 0..(w * h * 4) as usize));
        assert_eq!(
            negative_rows_on(&img, 1..4, spare),
            negative_rows(&img, 1..4)
        );
    }
}

/// Ink spanning more than the tile both ways is a tile, not a glyph; a glyph as wide as a
/// wide Qu but not as tall, or as tall as a J but not as wide, is a glyph.
#[test]
fn ink_wider_and_taller_than_the_tile_is_no_glyph() {
    // A crop 130 wide of 65 cells: a cell is 130 x 0.92 / 65 = 1.84 pixels.
    let ink = |w: usize, h: usize| {
        let mut ink = crate::glyph::Ink::new(65, 65);
        for y in 0..h {
            for x in 0..w {
                ink.v[(2 + y) * 65 + 2 + x] = 1.0;
            }
        }
        ink
    };
    // 100 pixels of tile: 54.3 cells.
    assert!(super::wider_than(&ink(56, 56), 130.0, 100.0));
    assert!(!super::wider_than(&ink(60, 40), 130.0, 100.0));
    assert!(!super::wider_than(&ink(40, 60), 130.0, 100.0));
    assert!(!super::wider_than(&ink(54, 54), 130.0, 100.0));
    assert!(!super::wider_than(
        &crate::glyph::Ink::new(65, 65),
        130.0,
        100.0
    ));
}

/// A board of cream tiles (`board_drawn_with`) with a point value in the top-right corner of
/// each tile ("10"), and bonus tiles of their own colours, tiles 5 and 10, with `names`
/// written small on them in the letter's ink: the first under its glyph, the second in its
/// bottom-left corner (as the first and second generators draw them).
fn bonus_tiles_named(names: [&str; 2]) -> RgbaImage {
    use super::super::corpus::text_centred;
    let ink = [30, 30, 60];
    let own = [(5, [90, 200, 120], ink), (10, [230, 120, 160], ink)];
    let mut img = board_drawn_with([60, 60, 80], [240, 232, 200], ink, &own);
    let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
    let corner = |i: usize| {
        (
            40.0 + 102.0 * (i % 4) as f32,
            200.0 + 102.0 * (i / 4) as f32,
        )
    };
    for i in 0..16 {
        let (x, y) = corner(i);
        text_centred(&mut img, &font, "10", x + 76.0, y + 15.0, 15.0, rgba(ink));
    }
    for ((i, ..), (name, dx)) in own.iter().zip(names.iter().zip([46.0, 22.0])) {
        let (x, y) = corner(*i);
        text_centred(&mut img, &font, name, x + dx, y + 81.0, 15.0, rgba(ink));
    }
    img
}

#[test]
fn a_bonus_tile_told_by_its_colour_is_read_by_the_name_on_it() {
    // Before, no bonus tile without a badge was read: 1,382 of 3,519 bonuses on the twelve
    // bench sets, 2,336 with them.
    for (names, bonuses) in [
        (["DL", "TW"], [Bonus::DL, Bonus::TW]),
        (["TL", "DW"], [Bonus::TL, Bonus::DW]),
    ] {
        let img = bonus_tiles_named(names);
        let r = read(&img, None, &Classifier::built_in()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.board().to_string(), "WORD/SGAM/ELIK/EBUT");
        let read: Vec<(usize, Bonus)> = (r.tiles.iter().enumerate())
            .filter_map(|(i, t)| Some((i, t.bonus?)))
            .collect();
        assert_eq!(read, [(5, bonuses[0]), (10, bonuses[1])], "{names:?}");
    }
}

#[test]
fn writing_that_names_no_bonus_on_a_bonus_tile_is_not_read_as_one() {
    // Point values in the corners, digits read as the letters of a bonus's name when those
    // are all they are offered ("1" as T at 38%): each letter must also be the letter read
    // among all.
    for names in [["", ""], ["14", "11"], ["4", "OK"]] {
        let r = read(&bonus_tiles_named(names), None, &Classifier::built_in())
            .unwrap_or_else(|e| panic!("{e}"));
        let read: Vec<_> = r.tiles.iter().filter_map(|t| t.bonus).collect();
        assert_eq!(read, [], "{names:?}");
    }
}
