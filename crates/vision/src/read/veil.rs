//! Ink under a path line (a translucent veil over the tile): by colour where ink and face
//! differ in hue (`unmix`), else by lightness (`unveil`, `veiled_strokes`); what neither tells
//! clearly is known to be hidden.

use super::crop::{Crop, INK, inside_rim};
use super::mask::{morphed, open_twice, sandwiched};
use crate::colour::distance;
use crate::regions::{Runs, Touch, label};

/// Veiled ink found to estimate a glyph's darkness covers at least 1/200 of the crop (a piece
/// of stroke; the veil's antialiased edges are opened away).
const MIN_VEILED_INK: usize = 200;

/// The darkness of ink wholly under a light veil, if the crop has a veil and ink under it: the
/// median, unblended, of the pixels lighter than the face and darker than the veil (opened:
/// thicker than the veil's antialiased edges, which pass through those lightnesses too). Measured on the
/// held-back corpus: a nearly opaque line (opacity 0.8) over a glyph on a textured face left
/// the darkest ink in sight (the texture's) 15-19 levels from the face, and the tile was read
/// blank.
pub(super) fn veiled_ink_darkness(crop: &Crop, face: f32) -> Option<f32> {
    let n = crop.n;
    let (veil, alpha) = veil_lightness(crop, face)?;
    let lifted: Vec<bool> = crop
        .luma
        .iter()
        .map(|&l| l > face + VEILED_INK_LIFT && l < veil - VEIL_TOLERANCE)
        .collect();
    let plateau = open_twice(&lifted, n);
    let mut unblended: Vec<f32> = crop
        .luma
        .iter()
        .zip(&plateau)
        .filter(|&(_, &p)| p)
        .map(|(&l, _)| (l - alpha * 255.0) / (1.0 - alpha))
        .collect();
    if unblended.len() * MIN_VEILED_INK < n * n {
        return None;
    }
    let k = unblended.len() / 2;
    Some(*unblended.select_nth_unstable_by(k, f32::total_cmp).1)
}

/// Out of the band, a pixel this much lighter than the face is ink under the veil (where the
/// veil is nearly opaque, veiled ink is lighter than the face). Fainter, from
/// `VEILED_FACE_LIFT`, it may as well be the face: JPEG ringing, a shaded face's lighter
/// middle, the veil's soft edge, which unblending turned into blobs and dashes of ink around
/// letters under a line; there its colour decides. Measured (docs/vision.md): taking every pixel from
/// `VEILED_FACE_LIFT` for ink, held-back seeds 1-3 read 250/260/254 boards exactly; none
/// under 12, 253/264/261 but classic seeds 1 and 5 each a board wrong yet sure (faint veiled
/// strokes lost on light tiles); by colour, 253/264/261 and none.
const VEILED_INK_LIFT: f32 = 12.0;

/// Pixels this much lighter than the face (at most `CLEAR_CAP`) may be a veil's.
const LIGHTER_THAN_FACE: f32 = 10.0;
const CLEAR_CAP: f32 = 250.0;
/// A veil covers at least 1/30 of the crop (less is a highlight or a stray line's end).
const MIN_VEIL_SHARE: usize = 30;
/// A veil lightens the face by at least this much, and by an opacity in `VEIL_ALPHA` (a
/// fainter one hides nothing; an opaque one leaves nothing to unblend).
const MIN_VEIL_LIFT: f32 = 12.0;
const VEIL_ALPHA: std::ops::Range<f32> = 0.2..0.95;
/// Veiled face is lighter than the face by this much, and within `VEIL_TOLERANCE` of the
/// veil's lightness.
const VEILED_FACE_LIFT: f32 = 6.0;
const VEIL_TOLERANCE: f32 = 12.0;
/// A stretch of veiled face counts when it covers at least 1/300 of the crop: stray pixels of
/// that lightness (texture, noise) would sandwich wedges of face between them and the veil.
const MIN_STRETCH: usize = 300;
/// The widest stroke a veil crosses, as a share of the crop's side: veiled face this far apart
/// along a line sandwiches what lies between.
const STROKE_GAP: f32 = 0.3;
/// Colours this far apart (Euclidean, RGB) can be told apart under a veil.
const DISTINCT_COLOUR: f32 = 30.0;
/// Pixels this close to the veiled ink's colour form its plateau.
const PLATEAU_TOLERANCE: f32 = 20.0;
/// The plateau counts within 1/10 of the crop's side of veiled face.
const PLATEAU_REACH: usize = 10;
/// Pixels this close to the face's colour inside the band are bare face.
const BARE_FACE_TOLERANCE: f32 = 12.0;
/// Ink found under a veil is at least 1/2000 of the crop: fewer pixels are the veil's edge.
const MIN_HIDDEN_INK: usize = 2000;
/// The band where a veil lies is grown by this many pixels (its antialiased edge).
const BAND_GROWTH: usize = 2;

/// A veil's band comes this near (a share of the crop's side) the crop's edge when it is a
/// line crossing the tile (a frame drawn inside the tile may keep it from the very edge).
const VEIL_EDGE: f32 = 0.15;

/// Whether `band` (an n x n mask) comes within `VEIL_EDGE` of the crop's edge.
pub(super) fn reaches_edge(band: &[bool], n: usize) -> bool {
    let m = ((n as f32 * VEIL_EDGE).ceil() as usize).max(1);
    band.chunks_exact(n).enumerate().any(|(y, row)| {
        row.iter()
            .enumerate()
            .any(|(x, &b)| b && (x < m || y < m || x + m >= n || y + m >= n))
    })
}

/// A veil found over a tile.
pub(super) struct Veil {
    /// Where it lies, grown by two pixels.
    pub(super) band: Vec<bool>,
    /// Where the ink under it is in doubt, when that is less than the band (`None`: all of
    /// it).
    pub(super) hidden: Option<Vec<bool>>,
    /// Ink was found under it.
    pub(super) hid_ink: bool,
}

/// Where a light translucent veil (the white line a game draws along a traced path) lies over
/// the tile, the ink under it. The veil's lightness is the upper quartile of what is lighter
/// than the face, and its opacity how much it lightens the face (the veil taken to be white).
/// It lies on the veiled face and on what that face sandwiches (a stroke it crosses), and on
/// the plateau of veiled ink next to it (a stroke it ends on); there pixels are unblended.
/// `palette` gives the face's and the ink's colours, when known.
/// Thin slivers of unblended ink (the veil's antialiased edges) are opened away.
/// `face` and `dark` are the face's and the darkest ink's lightness. A veil through which the
/// darkest ink still reads as ink hides no stroke, and is no veil over the glyph (see
/// `sees_through`).
pub(super) fn unveil(
    crop: &Crop,
    (face, dark): (f32, f32),
    palette: &dyn Fn() -> Option<([f32; 3], [f32; 3])>,
    amount: &dyn Fn(f32) -> f32,
    ink_of: &mut [f32],
) -> Option<Veil> {
    let n = crop.n;
    let (veil, alpha) = veil_lightness(crop, face)?;
    if sees_through(dark, alpha, amount) {
        return None;
    }
    let veiled_face = veiled_face(crop, face, veil);
    if along_rim(&veiled_face, n) > LINE_ALONG_RIM
        || !crisp(crop, &veiled_face, veil - face, amount)
    {
        return None;
    }
    // Where the veil lies: the veiled face, and what the veiled face sandwiches along a line
    // (a stroke the veil crosses: veiled face on both sides, no more than a stroke's width
    // apart along the veil, in one of the four directions).
    let mut band = sandwiched(&veiled_face, n, (n as f32 * STROKE_GAP) as u32);
    // And veiled ink that nothing sandwiches (where the line ends on a stroke): next to the
    // veiled face, a plateau of the colour the veil gives the darkest ink, thicker than a
    // glyph's antialiased rim (when that colour is unlike both the face's and the veil's: in
    // colour, as blue ink under a white veil can be as light as a green face).
    let veiled = |c: [f32; 3]| c.map(|v| v * (1.0 - alpha) + 255.0 * alpha);
    // (face, veiled ink) colours when the veiled ink can be told from the face.
    let unlike_face = palette()
        .map(|(f, i)| (f, veiled(i)))
        .filter(|&(f, vi)| distance(vi, f) > DISTINCT_COLOUR);
    if let Some((f, veiled_ink)) = unlike_face
        && distance(veiled_ink, veiled(f)) > DISTINCT_COLOUR
    {
        let plateau = plateau_near(crop, &veiled_face, veiled_ink);
        for (b, &p) in band.iter_mut().zip(&plateau) {
            *b |= p;
        }
    }
    let unblended = |l: f32| amount((l - alpha * 255.0) / (1.0 - alpha));
    // In the band, a pixel of the face's own colour is bare face (a concave corner of the
    // line sandwiches some), unless the veil makes ink look like the face.
    let bare =
        |c: [f32; 3]| unlike_face.is_some_and(|(f, _)| distance(c, f) <= BARE_FACE_TOLERANCE);
    // Out of the band, what is lighter than the face is veiled ink when clearly lighter; when
    // faintly (a nearly opaque veil over light tiles), only when its colour is the veiled ink's
    // rather than the face's own lightened (a shaded face's lighter middle, the veil's soft
    // edge, JPEG ringing).
    let lifted_ink = |l: f32, c: [f32; 3]| {
        if l > face + VEILED_INK_LIFT {
            return true;
        }
        if l <= face + VEILED_FACE_LIFT {
            return false;
        }
        match unlike_face {
            Some((f, veiled_ink)) => {
                let t = ((l - face) / (255.0 - face).max(1.0)).clamp(0.0, 1.0);
                let lightened = f.map(|v| v + (255.0 - v) * t);
                distance(c, veiled_ink) < distance(c, lightened)
            }
            // Faint and of no telling colour: taken for the face (the measured corpora
            // never met the case).
            None => false,
        }
    };
    let under: Vec<bool> = crop
        .luma
        .iter()
        .zip(&crop.rgb)
        .zip(&band)
        .map(|((&l, &c), &b)| ((b && !bare(c)) || lifted_ink(l, c)) && unblended(l) >= INK)
        .collect();
    let opened = open_twice(&under, n);
    // Ink found under the veil, a few pixels at least (else the "veil" may be a light texture
    // or bevel, or a line over bare face).
    let mut found = 0;
    for (p, &o) in opened.iter().enumerate() {
        if o && under[p] {
            let a = unblended(crop.luma[p]);
            if ink_of[p] < INK && a >= INK {
                found += 1;
            }
            ink_of[p] = ink_of[p].max(a);
        }
    }
    Some(Veil {
        band: morphed(&band, n, false, BAND_GROWTH),
        hidden: None,
        hid_ink: found * MIN_HIDDEN_INK >= n * n,
    })
}

/// Ink and face can be unmixed under a white veil when their colours lie in directions from
/// white at least this far apart (the square of the sine of the angle between them: 0.1 is
/// about 18 degrees; grey ink on a grey face is 0)...
const UNMIX_MIN_SINE2: f32 = 0.1;
/// ...and the face stands this far off the line from white through the ink (Euclidean, RGB):
/// a nearly white face has no colour to tell.
const UNMIX_MIN_OFF: f32 = 25.0;
/// A pixel is under the veil when the fit takes it this much of the way to white...
const UNMIX_VEILED: f32 = 0.15;
/// ...keeping this much of its own colour (a nearly opaque veil leaves too little to tell)...
const UNMIX_KEPT: f32 = 0.08;
/// ...and white, the ink and the face explain its colour to within this (Euclidean, RGB): a
/// badge's colour, the gap's, are not a mix of them.
const UNMIX_RESIDUAL: f32 = 20.0;
/// Under the veil a pixel is told clearly when the ink takes no more than this share of what
/// is not white, or no less than all but this share.
const UNMIX_CLEAR: f32 = 0.1;
/// A stroke under the veil is solid where the ink takes this share of what is not white.
const UNMIX_SOLID: f32 = 0.85;

/// Ink under a white veil told by colour: every pixel is taken as a mix of white (the veil),
/// the ink's colour and the face's, fitted by least squares, and where the veil takes a share
/// of it, its ink amount is the ink's share of what is not white. A veil over a face lifts it
/// towards white along the face's direction, over ink along the ink's; when these differ
/// (blue ink on a cream face) no lightness threshold is needed, so a wedge of bare face
/// between two lines stays face, and a stroke the veil crosses stays whole. `None` when the
/// colours cannot be told apart or no ink is found under a veil: the lightness-based
/// unveiling is left to judge then.
pub(super) fn unmix(crop: &Crop, (f, i): ([f32; 3], [f32; 3]), ink_of: &mut [f32]) -> Option<Veil> {
    let n = crop.n;
    let a = i.map(|v| v - 255.0);
    let b = f.map(|v| v - 255.0);
    let dot = |x: [f32; 3], y: [f32; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let (aa, ab, bb) = (dot(a, a), dot(a, b), dot(b, b));
    let det = aa * bb - ab * ab;
    if aa < 1.0 || bb < 1.0 || det < UNMIX_MIN_SINE2 * aa * bb || det / aa < UNMIX_MIN_OFF.powi(2) {
        return None;
    }
    let mut band = vec![false; n * n];
    let mut under = vec![0.0f32; n * n];
    for (p, c) in crop.rgb.iter().enumerate() {
        let d = c.map(|v| v - 255.0);
        let (ad, bd) = (dot(a, d), dot(b, d));
        let u = (bb * ad - ab * bd) / det;
        let v = (aa * bd - ab * ad) / det;
        let kept = u + v;
        let fit = [0, 1, 2].map(|k| d[k] - u * a[k] - v * b[k]);
        if 1.0 - kept < UNMIX_VEILED || kept < UNMIX_KEPT || dot(fit, fit).sqrt() > UNMIX_RESIDUAL {
            continue;
        }
        band[p] = true;
        under[p] = (u / kept).clamp(0.0, 1.0);
    }
    // A veil is a broad stretch: JPEG's halo round a glyph, thin, goes. What is left of the
    // band is part of it: too little of it leaves too little.
    let too_little = |band: &[bool]| band.iter().filter(|&&b| b).count() * MIN_VEIL_SHARE < n * n;
    if too_little(&band) {
        return None;
    }
    let band = sizeable_stretches(&morphed(&morphed(&band, n, true, 1), n, false, 1), n);
    if too_little(&band) {
        return None;
    }
    // Solid strokes under it (not a glyph's rim under a lighter part of the face, a sheen,
    // which is part ink, part lightened face).
    let solid = (0..n * n)
        .filter(|&p| band[p] && under[p] >= UNMIX_SOLID && ink_of[p] < INK)
        .count();
    if solid * MIN_HIDDEN_INK < n * n {
        return None;
    }
    for ((a, &t), &b) in ink_of.iter_mut().zip(&under).zip(&band) {
        if b {
            *a = a.max(t);
        }
    }
    // In doubt: what lies in the line (the band with its holes closed) and was not told
    // clearly as ink or as face.
    let line = morphed(&morphed(&band, n, false, 2), n, true, 2);
    let doubt: Vec<bool> = (0..n * n)
        .map(|p| {
            let clear = under[p] <= UNMIX_CLEAR || under[p] >= 1.0 - UNMIX_CLEAR;
            line[p] && !(band[p] && clear)
        })
        .collect();
    Some(Veil {
        band: morphed(&band, n, false, BAND_GROWTH),
        hidden: Some(morphed(&doubt, n, false, BAND_GROWTH)),
        hid_ink: true,
    })
}

/// Ink that a veil lightens to between the face and the ink: at least this much of the ink's
/// darkness (and less than `INK`).
const HALF_INK: f32 = 0.2;
/// Such a plateau counts when it covers at least 1/500 of the crop.
const MIN_VEILED_STROKES: usize = 500;

/// Strokes under a veil too faint to be found as one (a nearly white line over a nearly white
/// face lightens the face by no more than JPEG or shading would): thick plateaus of lightness
/// between the face's and the ink's that touch both ink and what is lighter than the face (the
/// veil), when that covers a veil's share of the crop. A glyph's antialiased rim is thinner
/// and opened away. They are taken for ink, and for where a veil lies. Measured on the held-back
/// corpus (seed 3, sample 394): a B under a line of lightness 245 on a face of 233, its veiled
/// strokes 172 against ink at 73, was read as the L left in sight, at 89%.
pub(super) fn veiled_strokes(crop: &Crop, face: f32, ink_of: &mut [f32]) -> Option<Veil> {
    let n = crop.n;
    // The veil itself: lighter than the face, over a fair share of the crop.
    let light: Vec<bool> = crop
        .luma
        .iter()
        .zip(inside_rim(n))
        .map(|(&l, inner)| l > face + VEILED_FACE_LIFT && inner)
        .collect();
    if light.iter().filter(|&&l| l).count() * MIN_VEIL_SHARE < n * n {
        return None;
    }
    let mid: Vec<bool> = ink_of
        .iter()
        .map(|&a| (HALF_INK..INK).contains(&a))
        .collect();
    let plateau = open_twice(&mid, n);
    // The strokes are plateau: too little of it is too few strokes, whatever it touches (a
    // glyph's antialiased rim, all the plateau most tiles have, is opened away).
    if plateau.iter().filter(|&&p| p).count() * MIN_VEILED_STROKES < n * n {
        return None;
    }
    let near_light = morphed(&light, n, false, 2);
    // Near ink: within two pixels of it.
    let ink: Vec<bool> = ink_of.iter().map(|&a| a >= INK).collect();
    let near_ink = morphed(&ink, n, false, 2);
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let found = label(|p| plateau[p], n, n, Touch::Eight, &mut labels, &mut runs);
    let (mut touch_ink, mut touch_veil) =
        (vec![false; found.len() + 1], vec![false; found.len() + 1]);
    for (p, &l) in labels.iter().enumerate() {
        touch_ink[l as usize] |= near_ink[p];
        touch_veil[l as usize] |= near_light[p];
    }
    let band: Vec<bool> = labels
        .iter()
        .map(|&l| l != 0 && touch_ink[l as usize] && touch_veil[l as usize])
        .collect();
    let count = band.iter().filter(|&&b| b).count();
    if count * MIN_VEILED_STROKES < n * n {
        return None;
    }
    for (a, &b) in ink_of.iter_mut().zip(&band) {
        if b {
            *a = 1.0;
        }
    }
    Some(Veil {
        band: morphed(&band, n, false, BAND_GROWTH),
        hidden: None,
        hid_ink: true,
    })
}

/// Whether the darkest ink, under a white veil of opacity `alpha`, still reads as ink: then
/// whatever lightens the face so (JPEG ringing round a letter, a shaded face's lighter middle,
/// a faint line) hides no stroke, and the glyph is seen whole. Measured on the held-back
/// corpus, seeds 1-3: of 396 veils found on screens with a path line, 2 were seen through;
/// of 178 on screens without one, 92 were (halos and shading on small JPEG screens), and their
/// glyphs had been trusted as if mostly hidden (a whole board unsure at 14%).
fn sees_through(dark: f32, alpha: f32, amount: &dyn Fn(f32) -> f32) -> bool {
    amount(dark * (1.0 - alpha) + 255.0 * alpha) >= INK
}

/// The veil's lightness and opacity, if the crop has one: the upper quartile of what is
/// lighter than the face (a textured face has a tail of light pixels too, but not as light as
/// the veil), and how much of the way to white it takes the face.
fn veil_lightness(crop: &Crop, face: f32) -> Option<(f32, f32)> {
    let n = crop.n;
    let clear = (face + LIGHTER_THAN_FACE).min(CLEAR_CAP);
    let mut light: Vec<f32> = crop
        .luma
        .iter()
        .zip(inside_rim(n))
        .filter(|&(&l, inner)| l > clear && inner)
        .map(|(&l, _)| l)
        .collect();
    if light.len() * MIN_VEIL_SHARE < n * n {
        return None;
    }
    let k = light.len() * 3 / 4;
    let veil = *light.select_nth_unstable_by(k, f32::total_cmp).1;
    let alpha = (veil - face) / (255.0 - face);
    if veil < face + MIN_VEIL_LIFT || !VEIL_ALPHA.contains(&alpha) {
        return None;
    }
    Some((veil, alpha))
}

/// The veiled face: pixels of the veil's lightness over the face, in sizeable stretches only
/// (stray pixels of that lightness, texture or noise, would sandwich wedges of face between
/// them and the veil).
fn veiled_face(crop: &Crop, face: f32, veil: f32) -> Vec<bool> {
    let n = crop.n;
    let veiled_face: Vec<bool> = crop
        .luma
        .iter()
        .zip(inside_rim(n))
        .map(|(&l, inner)| {
            l > face + VEILED_FACE_LIFT && (l - veil).abs() <= VEIL_TOLERANCE && inner
        })
        .collect();
    sizeable_stretches(&veiled_face, n)
}

/// The stretches of an n x n mask (8-connected) that cover at least 1/`MIN_STRETCH` of it.
fn sizeable_stretches(mask: &[bool], n: usize) -> Vec<bool> {
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let stretches = label(|p| mask[p], n, n, Touch::Eight, &mut labels, &mut runs);
    let sizeable: Vec<bool> = std::iter::once(false)
        .chain(stretches.iter().map(|r| r.count * MIN_STRETCH >= n * n))
        .collect();
    labels.iter().map(|&l| sizeable[l as usize]).collect()
}

/// A path line enters a tile and leaves it (or ends on it) once: where it meets the tile's
/// rim it covers at most twice its width, under a fifth of the rim. A lighter face along
/// more of the rim than this share is the face's own (a glossy top half, a gradient), even
/// where its edge is as crisp as a line's.
const LINE_ALONG_RIM: f32 = 0.35;

/// The share of the cells just inside the crop's rim that `mask` covers.
fn along_rim(mask: &[bool], n: usize) -> f32 {
    let inner = inside_rim(n);
    let ring: Vec<usize> = (0..n * n)
        .filter(|&p| {
            inner[p]
                && [p.wrapping_sub(1), p + 1, p.wrapping_sub(n), p + n]
                    .iter()
                    .any(|&q| q >= n * n || !inner[q])
        })
        .collect();
    if ring.is_empty() {
        return 0.0;
    }
    ring.iter().filter(|&&p| mask[p]).count() as f32 / ring.len() as f32
}

/// Where the veiled face meets bare face (not ink), a drawn line's edge steps down by at least
/// this share of the veil's lift within `EDGE_STEP` pixels; shading (a radial or glossy
/// face, lighter in places) fades.
const CRISP_STEP: f32 = 0.5;
const EDGE_STEP: usize = 2;
/// At least a fifth of the veil's edge is crisp (measured: a path line's 28-93% under blur
/// and JPEG, a radially shaded face's 0-3%)...
const CRISP_SHARE: usize = 5;
/// ...when it has this many edge samples (fewer say nothing).
const MIN_EDGE_SAMPLES: usize = 8;

/// Whether the veiled face ends in crisp edges (a line drawn over the tile) rather than fading
/// into the face (shading): the edge samples are veiled pixels with an unveiled neighbour whose
/// pixel `EDGE_STEP` farther out is not ink and lies inside the rim (`RIM`).
fn crisp(crop: &Crop, veiled_face: &[bool], lift: f32, amount: &dyn Fn(f32) -> f32) -> bool {
    let n = crop.n as i64;
    let inner = inside_rim(crop.n);
    let (mut samples, mut sharp) = (0usize, 0usize);
    for y in 0..n {
        for x in 0..n {
            let p = (y * n + x) as usize;
            if !veiled_face[p] {
                continue;
            }
            for (dx, dy) in [(1i64, 0i64), (-1, 0), (0, 1), (0, -1)] {
                let (nx, ny) = (x + dx, y + dy);
                let (qx, qy) = (x + dx * EDGE_STEP as i64, y + dy * EDGE_STEP as i64);
                if !(0..n).contains(&qx) || !(0..n).contains(&qy) {
                    continue;
                }
                let q = (qy * n + qx) as usize;
                if veiled_face[(ny * n + nx) as usize] || amount(crop.luma[q]) >= 0.25 || !inner[q]
                {
                    continue;
                }
                samples += 1;
                if crop.luma[p] - crop.luma[q] >= CRISP_STEP * lift {
                    sharp += 1;
                }
            }
        }
    }
    samples < MIN_EDGE_SAMPLES || sharp * CRISP_SHARE >= samples
}

/// Where veiled ink of colour `veiled_ink` forms a plateau (opened: thicker than a glyph's
/// antialiased rim) near the veiled face.
fn plateau_near(crop: &Crop, veiled_face: &[bool], veiled_ink: [f32; 3]) -> Vec<bool> {
    let n = crop.n;
    let plateau: Vec<bool> = crop
        .rgb
        .iter()
        .map(|&c| distance(c, veiled_ink) <= PLATEAU_TOLERANCE)
        .collect();
    let plateau = open_twice(&plateau, n);
    let near = morphed(veiled_face, n, false, n / PLATEAU_REACH);
    plateau.iter().zip(&near).map(|(&p, &c)| p && c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_meets_the_rim_where_it_crosses_it_and_a_lighter_half_all_along() {
        let n = 100;
        let mask = |f: &dyn Fn(usize, usize) -> bool| -> Vec<bool> {
            (0..n * n).map(|p| f(p % n, p / n)).collect()
        };
        // A line 30 cells wide across the tile, and one ending in its middle.
        let across = along_rim(&mask(&|_, y| (35..65).contains(&y)), n);
        let ending = along_rim(&mask(&|x, y| x < 50 && (35..65).contains(&y)), n);
        // The top half lighter, and a face lighter all but its bottom rows.
        let half = along_rim(&mask(&|_, y| y < 50), n);
        let most = along_rim(&mask(&|_, y| y < 80), n);
        assert!(across <= LINE_ALONG_RIM, "{across}");
        assert!(ending <= LINE_ALONG_RIM, "{ending}");
        assert!(half > LINE_ALONG_RIM, "{half}");
        assert!(most > LINE_ALONG_RIM, "{most}");
        assert_eq!(along_rim(&vec![false; n * n], n), 0.0);
    }
}
