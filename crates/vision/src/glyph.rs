//! Telling which letter a glyph is, whatever the typeface.
//!
//! A glyph is given as an ink map (how much ink each pixel holds, 0 to 1) and described by
//! `Features` (vision/features.rs, which the network starts from too): the ink box stretched to a `SIDE` x `SIDE` grid of ink amounts, softened by one
//! cell, centred and scaled to unit length (so stroke weight and size drop out), plus the box's
//! aspect ratio (the one thing the stretch throws away, and what tells a narrow I from a wide M),
//! the four side profiles (how far in the ink starts, per row and column) and the number of
//! enclosed counters. Two glyphs differ by one minus the correlation of their grids plus
//! weighted penalties on the log of their aspect ratios, their mean profile difference and
//! their difference in counters.
//!
//! The references are rendered at first use from typefaces built into the binary (DejaVu Sans
//! bold, condensed bold and regular; Noto Sans bold and regular; the bold faces of Karla,
//! Cabin, League Spartan, Manrope, Play and Clear Sans, kept in `fonts/`; and JetBrains Mono's
//! J, for a J with a bar on its top), each also thickened and thinned, so that a game's font
//! need not be one of them.

use std::sync::LazyLock;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};

use super::features::{ASPECT_WEIGHT, FINE};
pub use super::features::{Features, INPUTS, Ink, SIDE};

/// Confidence below which a letter read (a tile's, a badge's) is not trusted.
pub const SURE: f32 = 0.15;

/// The tile index of Qu.
pub const QU: u8 = 16;

/// A reference glyph: its features and the tile it shows (0-25, `QU` for Qu).
#[derive(Clone, Debug)]
pub struct Reference {
    pub tile: u8,
    pub features: Features,
}

/// The verdict on one glyph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    pub tile: u8,
    /// 0 (a tie with another letter) to 1 (nothing else comes near).
    pub confidence: f32,
    /// The nearest other letter.
    pub runner_up: u8,
    /// Distance to the best reference.
    pub distance: f32,
    /// A template (a letter learned from the game's own screen) decided it.
    pub learned: bool,
    /// For a glyph under a veil, which the network's margin does not weigh in: the network's
    /// letter and its margin over the next, for the reader to judge the veil by.
    pub network: Option<(u8, f32)>,
}

/// Nearest-reference classification over a set of references, and the templates a profile
/// learned from its game's own screen, which take precedence.
#[derive(Clone)]
pub struct Classifier {
    references: &'static [Reference],
    templates: std::sync::Arc<[Reference]>,
    net: Option<&'static super::net::Net>,
    /// How much wider (log aspect) the templates' face draws its letters than the
    /// references do (`face_width`): a glyph is compared with the references both as seen
    /// and with this taken off its aspect, each letter by the nearer.
    widen: f32,
    /// How much farther than `UNFAMILIAR` and `UNKNOWN` a glyph may lie from every
    /// reference before its verdict is trusted less (`LEARNED_REACH` for an upright face
    /// the templates taught, else 0).
    reach: f32,
    /// A template far from a glyph rules its letter out only when the two differ in a
    /// trait that pixels cannot blur (counters, proportions; `alike`).
    rule_out_alike: bool,
}

/// A template claims a glyph only this near: the same letter in the same font, captured
/// again (blur, JPEG, a highlight), comes within it. Farther, the glyph is another letter,
/// and a learned letter of the same font (nearer than any built-in reference of the right
/// letter, by style) must not claim it: measured, serif letters not learned were read as a
/// learned one, surely, at 0.49 and more, the learned ones at 0.00 on clean screens.
const TEMPLATE_CLOSE: f32 = 0.3;

/// Two glyphs whose log aspects differ by at most this, with the same counters, may be one
/// letter drawn twice however far apart their cells lie: on a tile of 51 pixels two O's of
/// one board lay 0.56 apart (aspects -0.74 and -0.74), where a D and an O of one face differ
/// in aspect too.
const ALIKE_ASPECT: f32 = 0.03;

/// Whether `a` and `b` agree in the traits pixels cannot blur: their counters and, within
/// `ALIKE_ASPECT`, their proportions.
fn alike(a: &Features, b: &Features) -> bool {
    a.holes == b.holes && (a.log_aspect - b.log_aspect).abs() <= ALIKE_ASPECT
}

/// A template this near is the very glyph captured again. Measured on the virtual phone
/// drawing eleven faces the references do not know (`sim --font`, docs/vision.md): a letter against
/// its own template from another board, at most 0.079 on lossless screenshots (0.17 at JPEG
/// quality 60); against another letter's template, 0.168 and more (D and O in Dosis), and
/// under 0.3 in two faces (G against C in Jura and Dosis: read as C, surely, before this).
pub const TEMPLATE_SAME: f32 = 0.12;

/// A learned letter none of whose templates comes this near a glyph seen whole is not that
/// glyph's letter. Measured on the virtual phone (`examples/learn_faces.rs`): a letter
/// against its own template from another board, lossless, at most 0.079 in bold faces but
/// 0.354 in a hairline one (Inter Thin: thin strokes fall differently on the reader's grid
/// from tile to tile); against other letters' templates mostly 0.37 and more.
const TEMPLATE_FAR: f32 = 0.45;

/// Why a profile's glyph templates cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TemplateError {
    #[error(
        "the glyph strip is {0}x{1}: it must be (at least) {2} square cells side by side, one per letter of the profile's glyphs.letters"
    )]
    Shape(u32, u32, usize),
    #[error("cell {0} of the glyph strip is empty")]
    Empty(usize),
}

/// The glyphs of 16 tiles as one grey strip of square cells, ink dark on white (how profiles
/// keep the templates calibration learns). Every ink map must be n x n, the same n.
pub fn strip(inks: &[Ink]) -> image::GrayImage {
    let n = inks.first().map_or(1, |i| i.w.max(1));
    let mut out =
        image::GrayImage::from_pixel((n * inks.len()) as u32, n as u32, image::Luma([255]));
    for (k, ink) in inks.iter().enumerate() {
        for y in 0..ink.h.min(n) {
            for x in 0..ink.w.min(n) {
                let v = (255.0 * (1.0 - ink.v[y * ink.w + x])).round() as u8;
                out.put_pixel((k * n + x) as u32, y as u32, image::Luma([v]));
            }
        }
    }
    out
}

/// Templates from a strip of glyph cells and the tiles they show, in the same order. Cells
/// past the last tile named are passed over (learning appends cells to the strip before the
/// profile names them).
pub fn templates(strip: &image::GrayImage, tiles: &[u8]) -> Result<Vec<Reference>, TemplateError> {
    let (w, h) = strip.dimensions();
    if h == 0 || w % h != 0 || w < h * tiles.len() as u32 {
        return Err(TemplateError::Shape(w, h, tiles.len()));
    }
    tiles
        .iter()
        .zip(cells(strip))
        .enumerate()
        .map(|(k, (&tile, ink))| {
            let features = Features::of(&ink).ok_or(TemplateError::Empty(k))?;
            Ok(Reference { tile, features })
        })
        .collect()
}

/// The square cells of a strip (side: its height), left to right, as ink maps: what `strip`
/// wrote.
pub fn cells(strip: &image::GrayImage) -> Vec<Ink> {
    let n = strip.height() as usize;
    (0..strip.width() as usize / n.max(1))
        .map(|k| {
            let mut ink = Ink::new(n, n);
            for y in 0..n {
                for x in 0..n {
                    let l = strip.get_pixel((k * n + x) as u32, y as u32).0[0];
                    ink.v[y * n + x] = 1.0 - f32::from(l) / 255.0;
                }
            }
            ink
        })
        .collect()
}

/// The font files the built-in references come from.
fn built_in_font_files() -> [&'static [u8]; 11] {
    [
        dejavu::sans::bold(),
        dejavu::sans_condensed::bold(),
        dejavu::sans::regular(),
        notosans::BOLD_TTF,
        notosans::REGULAR_TTF,
        include_bytes!("fonts/Karla-Bold.otf"),
        include_bytes!("fonts/Cabin-Bold.otf"),
        include_bytes!("fonts/LeagueSpartan-Bold.otf"),
        include_bytes!("fonts/Manrope-Bold.ttf"),
        include_bytes!("fonts/Play-Bold.ttf"),
        include_bytes!("fonts/ClearSans-Bold.ttf"),
    ]
}

/// The typefaces the built-in references come from.
fn built_in_fonts() -> Vec<FontRef<'static>> {
    built_in_font_files()
        .into_iter()
        .filter_map(|bytes| FontRef::try_from_slice(bytes).ok())
        .collect()
}

/// One way a tile is drawn: its characters, each with its size against the tile's letters
/// (1, or `SMALL_U` for the small u some games draw after a Q).
pub type Spelling = Vec<(char, f32)>;

/// The size of a small u after a Q, against the Q: about a lowercase letter's x-height at
/// half the capital's size, as games that draw it so set it.
pub const SMALL_U: f32 = 0.55;

/// The ways each tile is drawn: the capital letter, and for Qu "Qu", "QU", a Q with a small
/// u, and a lone "Q" (some games draw the Qu tile as a Q alone: it is told from O by its
/// tail).
pub fn spellings(tile: u8) -> Vec<Spelling> {
    if tile == QU {
        vec![
            plain("Qu"),
            plain("QU"),
            vec![('Q', 1.0), ('u', SMALL_U)],
            plain("Q"),
        ]
    } else {
        vec![plain(&((b'A' + tile) as char).to_string())]
    }
}

/// `text` with every character at the letters' size.
fn plain(text: &str) -> Spelling {
    text.chars().map(|c| (c, 1.0)).collect()
}

/// Renders `text` in `font` at `size` pixels as an ink map with a margin.
pub fn render<F: Font>(font: &F, text: &str, size: f32) -> Ink {
    render_spelling(font, &plain(text), size)
}

/// Renders a spelling in `font`, its characters at their sizes on one baseline.
pub fn render_spelling<F: Font>(font: &F, spelling: &[(char, f32)], size: f32) -> Ink {
    let scaled = font.as_scaled(PxScale::from(size));
    let margin = (size * 0.2).ceil();
    let mut x = margin;
    let baseline = margin + scaled.ascent();
    let mut outlines = Vec::new();
    let mut previous = None;
    for &(c, k) in spelling {
        let at = font.as_scaled(PxScale::from(size * k));
        let id = at.glyph_id(c);
        if let Some(p) = previous {
            x += at.kern(p, id);
        }
        let glyph = id.with_scale_and_position(size * k, ab_glyph::point(x, baseline));
        x += at.h_advance(id);
        previous = Some(id);
        if let Some(o) = font.outline_glyph(glyph) {
            outlines.push(o);
        }
    }
    let w = (x + margin).ceil() as usize;
    let h = (baseline - scaled.descent() + margin).ceil() as usize;
    let mut ink = Ink::new(w.max(1), h.max(1));
    for o in outlines {
        let b = o.px_bounds();
        o.draw(|gx, gy, c| {
            let (px, py) = (b.min.x as i32 + gx as i32, b.min.y as i32 + gy as i32);
            if px >= 0 && py >= 0 && (px as usize) < ink.w && (py as usize) < ink.h {
                let v = &mut ink.v[py as usize * ink.w + px as usize];
                *v = (*v + c).min(1.0);
            }
        });
    }
    ink
}

/// The ink map blurred by a 3x3 box `passes` times then cut at `level`: below 0.5 thickens
/// the strokes, above thins them.
fn reweigh(ink: &Ink, passes: usize, level: f32) -> Ink {
    let mut cur = ink.clone();
    for _ in 0..passes {
        cur = box3(&cur);
    }
    for v in &mut cur.v {
        *v = ((*v - level) * 8.0 + 0.5).clamp(0.0, 1.0);
    }
    cur
}

/// One pass of a 3x3 box: each pixel the sum of its neighbours on the map over 9, the sum
/// taken from 0 in one order everywhere (the row above, its own, the one below, each left to
/// right), so that a pixel inside, taken from three slices, is the float an edge pixel's
/// checked loop would give it. Every letter of every built-in face is thickened and thinned
/// by two of these, and a process's first read waits for them.
fn box3(cur: &Ink) -> Ink {
    let (w, h) = (cur.w, cur.h);
    let mut next = Ink::new(w, h);
    let checked = |x: usize, y: usize| {
        let mut s = 0.0;
        for ny in y.saturating_sub(1)..(y + 2).min(h) {
            for nx in x.saturating_sub(1)..(x + 2).min(w) {
                s += cur.v[ny * w + nx];
            }
        }
        s / 9.0
    };
    for y in 0..h {
        if y == 0 || y + 1 >= h || w < 3 {
            for x in 0..w {
                next.v[y * w + x] = checked(x, y);
            }
            continue;
        }
        let (a, b, c) = (
            &cur.v[(y - 1) * w..y * w],
            &cur.v[y * w..(y + 1) * w],
            &cur.v[(y + 1) * w..(y + 2) * w],
        );
        let out = &mut next.v[y * w..(y + 1) * w];
        out[0] = checked(0, y);
        out[w - 1] = checked(w - 1, y);
        for x in 1..w - 1 {
            let s = 0.0 + a[x - 1] + a[x] + a[x + 1];
            let s = s + b[x - 1] + b[x] + b[x + 1];
            out[x] = (s + c[x - 1] + c[x] + c[x + 1]) / 9.0;
        }
    }
    next
}

/// The size references are drawn at.
const REFERENCE_SIZE: f32 = 64.0;

/// References of `tile` from one drawing of it: plain, thickened and thinned.
fn weights(tile: u8, ink: &Ink) -> impl Iterator<Item = Reference> {
    [ink.clone(), reweigh(ink, 2, 0.3), reweigh(ink, 2, 0.7)]
        .into_iter()
        .filter_map(move |variant| {
            Some(Reference {
                tile,
                features: Features::of(&variant)?,
            })
        })
}

/// References for every tile from `fonts`, each plain, thickened and thinned.
pub fn references_from<F: Font>(fonts: &[F]) -> Vec<Reference> {
    let mut out = Vec::new();
    for font in fonts {
        for tile in 0..26u8 {
            for spelling in spellings(tile) {
                out.extend(weights(
                    tile,
                    &render_spelling(font, &spelling, REFERENCE_SIZE),
                ));
            }
        }
    }
    out
}

static BUILT_IN: LazyLock<Vec<Reference>> = LazyLock::new(|| {
    let mut refs = references_from(&built_in_fonts());
    refs.extend(other_drawings());
    refs
});

/// Letters some games draw in a form none of the built-in faces has, each from a face that
/// has it: a J with a bar on its top (monospace faces, Comic and geometric ones).
fn other_drawings() -> Vec<Reference> {
    let Ok(mono) = FontRef::try_from_slice(include_bytes!("fonts/JetBrainsMono-Bold.ttf")) else {
        return Vec::new();
    };
    weights(b'J' - b'A', &render(&mono, "J", REFERENCE_SIZE)).collect()
}

/// The references of a serif face, for a profile whose templates show its game draws serifs.
static SERIF: LazyLock<Vec<Reference>> = LazyLock::new(|| {
    let fonts: Vec<FontRef<'static>> = [dejavu::serif::bold()]
        .into_iter()
        .filter_map(|bytes| FontRef::try_from_slice(bytes).ok())
        .collect();
    references_from(&fonts)
});

/// The built-in references and the serif ones.
static WITH_SERIF: LazyLock<Vec<Reference>> =
    LazyLock::new(|| BUILT_IN.iter().chain(SERIF.iter()).cloned().collect());

/// The distance from `glyph` to the nearest of `references` showing `tile`.
fn nearest_of(references: &[Reference], tile: u8, glyph: &Features) -> f32 {
    references
        .iter()
        .filter(|r| r.tile == tile)
        .map(|r| glyph.distance(&r.features))
        .fold(f32::INFINITY, f32::min)
}

/// How far the glyph leans right, in pixels across per pixel up: the slope of the middles of
/// its rows (between the left and right profiles), least squares.
fn lean(f: &Features) -> f32 {
    let (mut n, mut sy, mut sx, mut syy, mut sxy) = (0f32, 0f32, 0f32, 0f32, 0f32);
    for i in 0..FINE {
        let (left, right) = (f.profiles[i], f.profiles[FINE + i]);
        if left >= 1.0 || right >= 1.0 {
            continue;
        }
        let x = (left + 1.0 - right) / 2.0;
        let y = -(i as f32) / FINE as f32;
        n += 1.0;
        sy += y;
        sx += x;
        syy += y * y;
        sxy += x * y;
    }
    let var = syy - sy * sy / n.max(1.0);
    if n < 4.0 || var <= 0.0 {
        return 0.0;
    }
    (sxy - sx * sy / n) / var * f.log_aspect.exp()
}

/// A face whose letters lean this much more than the references' (`face_lean`) is slanted.
/// Measured with `examples/learn_faces.rs` on one board of each of the 276 faces under
/// /usr/share/fonts: every upright face 0.031 or less, every italic or oblique one 0.114 or
/// more.
const LEANING: f32 = 0.07;

/// How much more the face of `templates` leans than the references: the median over its
/// letters of the lean beyond the nearest reference of the same letter's.
fn face_lean(references: &[Reference], templates: &[Reference]) -> f32 {
    let mut leans = against_nearest(
        references,
        templates,
        |t, r| t.distance(r),
        |t, r| lean(t) - lean(r),
    );
    if leans.is_empty() {
        return 0.0;
    }
    leans.sort_by(f32::total_cmp);
    leans[leans.len() / 2]
}

/// For each template but Qu, `value` of it and the reference of its letter nearest to it by
/// `near`.
fn against_nearest(
    references: &[Reference],
    templates: &[Reference],
    near: impl Fn(&Features, &Features) -> f32,
    value: impl Fn(&Features, &Features) -> f32,
) -> Vec<f32> {
    templates
        .iter()
        .filter(|t| t.tile != QU)
        .filter_map(|t| {
            references
                .iter()
                .filter(|r| r.tile == t.tile)
                .map(|r| (near(&t.features, &r.features), r))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, r)| value(&t.features, &r.features))
        })
        .collect()
}

/// Whether the face of `templates` draws serifs: most of its letters lie nearer the serif
/// references than the built-in ones. Measured on one board of each of the 276 faces under
/// /usr/share/fonts (`examples/learn_faces.rs`): the upright serif and typewriter faces 60%
/// to 100% of their letters, every upright sans face 7% or less. Given to every face, the
/// serif references made slanted faces' boards wrong yet sure (29 boards after one
/// confirmed board), so a leaning face (`LEANING`) is not asked.
fn serif_face(templates: &[Reference]) -> bool {
    let letters: Vec<&Reference> = templates.iter().filter(|t| t.tile != QU).collect();
    if letters.len() < MIN_WIDTH_TEMPLATES {
        return false;
    }
    let nearer = letters
        .iter()
        .filter(|t| {
            nearest_of(&SERIF, t.tile, &t.features) < nearest_of(&BUILT_IN, t.tile, &t.features)
        })
        .count();
    nearer * 2 > letters.len()
}

/// The distance from `glyph` to each tile's nearest reference among the `allowed` ones, for
/// the two nearest tiles at least: a reference whose distance cannot come under the second
/// nearest so far (`Features::bound` reaches it) is skipped, so farther tiles may stay
/// infinite or above their true distance.
///
/// The distances are taken `AT_ONCE` references at a time (`Features::distances`): the next
/// that pass the bound so far, each then taken in turn as if alone, its bound asked again
/// against the second nearest as it then stands. The bound only falls, so a reference left
/// out of a batch would have been skipped in its turn too: the answer is the one a reference
/// at a time gives.
fn nearest_per_tile(references: &[Reference], glyph: &Features, allowed: &[bool; 26]) -> [f32; 26] {
    const AT_ONCE: usize = 4;
    let mut best = [f32::INFINITY; 26];
    let mut second = f32::INFINITY;
    let mut next = references
        .iter()
        .filter(|r| allowed[r.tile as usize])
        .peekable();
    // The references of a batch, each with its bound.
    let mut batch: Vec<(&Reference, f32)> = Vec::with_capacity(AT_ONCE);
    while next.peek().is_some() {
        batch.clear();
        for r in next.by_ref() {
            let bound = glyph.bound(&r.features);
            if bound < second {
                batch.push((r, bound));
                if batch.len() == AT_ONCE {
                    break;
                }
            }
        }
        let mut distances = [f32::INFINITY; AT_ONCE];
        match <[(&Reference, f32); AT_ONCE]>::try_from(batch.as_slice()) {
            Ok(four) => distances = glyph.distances(four.map(|(r, _)| &r.features)),
            Err(_) => {
                for (d, (r, _)) in distances.iter_mut().zip(&batch) {
                    *d = glyph.distance(&r.features);
                }
            }
        }
        for (&(r, bound), &d) in batch.iter().zip(&distances) {
            if bound >= second || d >= best[r.tile as usize] {
                continue;
            }
            best[r.tile as usize] = d;
            let (mut a, mut b) = (f32::INFINITY, f32::INFINITY);
            for &v in &best {
                if v < a {
                    (a, b) = (v, a);
                } else if v < b {
                    b = v;
                }
            }
            second = b;
        }
    }
    best
}

/// Templates it takes to tell how wide a face draws its letters (one board gives 16).
const MIN_WIDTH_TEMPLATES: usize = 6;

/// A face drawn wider or narrower than the references by less than this (log aspect) is
/// taken as theirs. Measured with `examples/learn_faces.rs` over the 276 faces under
/// /usr/share/fonts: the median face is 0.006 off, one in ten narrower than -0.28 (Dosis
/// -0.29, the thin M+ Code faces -0.38) and one in ten wider than 0.17 (serif faces); below
/// 0.1 a shift made no board sure and only flipped coin tosses (Lato Thin Italic, -0.02:
/// boards read right but unsure went 11 -> 1 of 11).
const MIN_WIDEN: f32 = 0.1;

/// How much wider (log aspect) the face of `templates` draws its letters than the
/// references: the median over the templates of the difference from the reference of the
/// same letter nearest in shape (aspect aside). 0 when too few templates tell, or the face is
/// about as wide as the references (`MIN_WIDEN`).
fn face_width(references: &[Reference], templates: &[Reference]) -> f32 {
    let aspect = |t: &Features, r: &Features| t.log_aspect - r.log_aspect;
    let mut shifts = against_nearest(
        references,
        templates,
        |t, r| t.distance(r) - ASPECT_WEIGHT * aspect(t, r).powi(2),
        aspect,
    );
    if shifts.len() < MIN_WIDTH_TEMPLATES {
        return 0.0;
    }
    shifts.sort_by(f32::total_cmp);
    let median = shifts[shifts.len() / 2];
    if median.abs() < MIN_WIDEN {
        0.0
    } else {
        median
    }
}

/// The nearest tile of `best` (distances by tile) and how far ahead of the next it is;
/// `taught` says which tiles' distances are a template's.
fn verdict(best: &[f32; 26], taught: &[bool; 26]) -> Option<Verdict> {
    let mut order: Vec<u8> = (0..26u8)
        .filter(|&t| best[t as usize].is_finite())
        .collect();
    order.sort_by(|&a, &b| best[a as usize].total_cmp(&best[b as usize]));
    let (&tile, rest) = order.split_first()?;
    let d1 = best[tile as usize];
    let (runner_up, d2) = rest
        .first()
        .map_or((tile, f32::INFINITY), |&t| (t, best[t as usize]));
    let confidence = if d2.is_finite() && d2 > 0.0 {
        ((d2 - d1) / d2).clamp(0.0, 1.0)
    } else {
        1.0
    };
    Some(Verdict {
        tile,
        confidence,
        runner_up,
        distance: d1,
        learned: taught[tile as usize],
        network: None,
    })
}

impl Classifier {
    /// The built-in references (rendered on the first call).
    pub fn built_in() -> Classifier {
        Classifier {
            references: &BUILT_IN,
            templates: std::sync::Arc::new([]),
            net: super::net::Net::built_in(),
            widen: 0.0,
            reach: 0.0,
            rule_out_alike: true,
        }
    }

    /// The built-in references, with `templates` taking precedence; and the serif references
    /// beside them when the templates show an upright serif face.
    pub fn with_templates(templates: Vec<Reference>) -> Classifier {
        let upright = face_lean(&BUILT_IN, &templates) < LEANING;
        let references: &'static [Reference] = if upright && serif_face(&templates) {
            &WITH_SERIF
        } else {
            &BUILT_IN
        };
        let reach = if upright && templates.len() >= MIN_WIDTH_TEMPLATES {
            LEARNED_REACH
        } else {
            0.0
        };
        Classifier {
            references,
            reach,
            widen: face_width(references, &templates),
            templates: templates.into(),
            ..Classifier::built_in()
        }
    }

    /// This classifier with `more` templates beside its own (a board's own sure glyphs).
    /// With `rule_out_alike` false, a template that lies beyond `TEMPLATE_FAR` from a glyph
    /// still does not rule its letter out when the two are `alike` (the same counters and
    /// proportions): for glyphs drawn in too few pixels for two of the same letter to come
    /// within `TEMPLATE_FAR` of each other.
    pub fn with_more_templates(&self, more: &[Reference], rule_out_alike: bool) -> Classifier {
        let mut templates = self.templates.to_vec();
        templates.extend_from_slice(more);
        Classifier {
            templates: templates.into(),
            rule_out_alike: self.rule_out_alike && rule_out_alike,
            ..self.clone()
        }
    }

    /// Templates in use.
    pub fn templates(&self) -> usize {
        self.templates.len()
    }

    /// The nearest template's distance for each tile among `allowed` (all when empty; infinite
    /// for a tile not learned or with no template within `TEMPLATE_FAR`), and the tiles
    /// `glyph` may be: all allowed but the letters the profile learned none of whose templates
    /// comes within `TEMPLATE_FAR` of a glyph seen whole. A learned letter is known by its
    /// template; a glyph none comes near is another letter, so a learned one is no runner-up
    /// to doubt an unlearned one by. (All allowed when that would leave none; under a line, a
    /// glyph may be far from its own template.)
    fn templates_near(&self, glyph: &Features, allowed: &[u8]) -> ([f32; 26], [bool; 26]) {
        let allowed: [bool; 26] =
            std::array::from_fn(|t| allowed.is_empty() || allowed.contains(&(t as u8)));
        let mut nearest = [f32::INFINITY; 26];
        let mut known = [false; 26];
        // Letters a template is `alike` to the glyph for, where that keeps them.
        let mut kept = [false; 26];
        for t in self.templates.iter() {
            let tile = t.tile as usize;
            known[tile] = true;
            if allowed[tile] && glyph.lower_bound(&t.features) <= TEMPLATE_FAR {
                nearest[tile] = nearest[tile].min(glyph.distance(&t.features));
            }
            if !self.rule_out_alike && alike(glyph, &t.features) {
                kept[tile] = true;
            }
        }
        if glyph.hidden.is_some() {
            return (nearest, allowed);
        }
        let left: [bool; 26] = std::array::from_fn(|t| {
            allowed[t] && (!known[t] || nearest[t] <= TEMPLATE_FAR || kept[t])
        });
        (nearest, if left.contains(&true) { left } else { allowed })
    }

    /// The nearest tile among `allowed` (all when empty): the built-in references' verdict,
    /// corrected by the profile's templates. A template nearer than `TEMPLATE_SAME` is the
    /// same glyph captured again and takes precedence (it wins a tie). One farther, up to
    /// `TEMPLATE_CLOSE`, may as well be a like letter of the same face (C for an unlearned
    /// G): where the references read a letter with no template, theirs stands with half its
    /// confidence; where they read another learned letter, the nearer stands, unsure.
    pub fn classify(&self, glyph: &Features, allowed: &[u8]) -> Option<Verdict> {
        self.classify_among(glyph, allowed).map(|(v, _)| v)
    }

    /// `classify`, with the tiles the glyph was found to be among. Where the profile's face
    /// is drawn narrower or wider than the references (`widen`), each letter's references
    /// are as near as they come to the glyph as seen or brought to their width: a letter the
    /// profile did not learn is drawn as narrow as the ones it did, and taken as seen alone,
    /// a condensed W is nearer a reference V than a reference W (Dosis Light, B612 Mono).
    /// Both, not the shifted glyph alone: a face's I keeps its width whatever the face's
    /// (taken narrower, every thin M+ Code I was read as Z).
    fn classify_among(&self, glyph: &Features, allowed: &[u8]) -> Option<(Verdict, [bool; 26])> {
        let (nearest, candidates) = self.templates_near(glyph, allowed);
        let mut references = nearest_per_tile(self.references, glyph, &candidates);
        if self.widen != 0.0 {
            let narrowed = Features {
                log_aspect: glyph.log_aspect - self.widen,
                ..glyph.clone()
            };
            let other = nearest_per_tile(self.references, &narrowed, &candidates);
            for (r, o) in references.iter_mut().zip(other) {
                *r = r.min(o);
            }
        }
        let learned: [f32; 26] = std::array::from_fn(|t| {
            if candidates[t] && nearest[t] <= TEMPLATE_CLOSE {
                nearest[t]
            } else {
                f32::INFINITY
            }
        });
        let by_references = verdict(&references, &[false; 26]);
        if learned.iter().all(|d| d.is_infinite()) {
            return by_references.map(|v| (v, candidates));
        }
        // Both kinds together, a tile's distance its nearer one's.
        let mut joined = references;
        let mut taught = [false; 26];
        for t in 0..26 {
            let d = learned[t];
            // A template takes precedence: it wins a tie.
            if d < joined[t] || (d <= joined[t] && d <= TEMPLATE_SAME) {
                joined[t] = d;
                taught[t] = true;
            }
        }
        let both = verdict(&joined, &taught)?;
        let Some(alone) = by_references else {
            return Some((both, candidates));
        };
        if learned[both.tile as usize] <= TEMPLATE_SAME {
            return Some((both, candidates));
        }
        if both.tile == alone.tile {
            // A like glyph of the same face, not the very glyph again: it is as near to a
            // like letter of the face that the profile has no template of (a stadium O to a
            // condensed face's D) as to its own. Against such a runner-up the references
            // alone can tell, and the template adds nothing.
            let like_untaught = learned[alone.runner_up as usize].is_infinite();
            let confidence = if like_untaught {
                both.confidence.min(alone.confidence)
            } else {
                both.confidence
            };
            return Some((Verdict { confidence, ..both }, candidates));
        }
        let v = if learned[alone.tile as usize].is_infinite() {
            Verdict {
                confidence: alone.confidence / 2.0,
                runner_up: both.tile,
                ..alone
            }
        } else {
            Verdict {
                confidence: 0.0,
                ..both
            }
        };
        Some((v, candidates))
    }

    /// The letter of a tile's glyph: the nearest reference's, its confidence weighed with the
    /// learned network's margin (`net`) where the network sees the whole glyph (none of it
    /// veiled) and no learned template decided. When the two agree, the confidence is the
    /// better of the nearest reference's and the mean of both; when they differ, the nearest
    /// reference's letter stands with half of what its confidence exceeds the network's margin.
    /// Measured on the held-back family (see docs/vision.md): the network alone reads as many tiles
    /// but is sure of wrong ones; weighing it in veiled glyphs too made wrong boards sure (for
    /// those, the network's letter and margin are given beside, in `network`, and the reader
    /// judges the veil with them). Then a single letter seen whole is trusted as far as it is
    /// `familiarity`'s.
    pub fn read_letter(&self, glyph: &Features, allowed: &[u8]) -> Option<Verdict> {
        let v = self.weighed(glyph, allowed)?;
        // Under a line a glyph is trusted less already; Qu is read only on a glyph of two
        // letters, and its references differ more from face to face than a letter's (median
        // distance over the 276 faces 0.45, against 0.28; never read as Qu wrongly there).
        if glyph.hidden.is_some() || v.tile == QU {
            return Some(v);
        }
        Some(Verdict {
            confidence: v.confidence * familiarity(&v, self.reach),
            ..v
        })
    }

    /// `read_letter` before its familiarity is weighed in.
    fn weighed(&self, glyph: &Features, allowed: &[u8]) -> Option<Verdict> {
        let (nearest, mask) = self.classify_among(glyph, allowed)?;
        let Some(net) = self.net.filter(|_| !nearest.learned) else {
            return Some(nearest);
        };
        let candidates: Vec<u8> = (0..26u8).filter(|&t| mask[t as usize]).collect();
        let p = net.probabilities(glyph, &candidates);
        let mut order: Vec<u8> = (0..26u8).collect();
        order.sort_by(|&a, &b| p[b as usize].total_cmp(&p[a as usize]));
        let (first, second) = (order[0], order[1]);
        let margin = p[first as usize] - p[second as usize];
        if glyph.hidden.is_some() {
            return Some(Verdict {
                network: Some((first, margin)),
                ..nearest
            });
        }
        Some(if first == nearest.tile {
            Verdict {
                confidence: nearest.confidence.max((nearest.confidence + margin) / 2.0),
                ..nearest
            }
        } else {
            Verdict {
                confidence: (nearest.confidence - margin).max(0.0) / 2.0,
                runner_up: first,
                ..nearest
            }
        })
    }
}

/// A glyph farther than this from every reference is of a shape the references do not know
/// (a slanted, hairline or ornate face) and its verdict is trusted less, down to not at all
/// at `UNKNOWN`. Measured over the 276 faces under /usr/share/fonts on the virtual phone
/// (`examples/learn_faces.rs`, docs/vision.md): letters read wrong with a confidence over `SURE`
/// (mostly an italic I read as J, at 0.57) lay 0.91 and farther from their nearest
/// reference, but for 11 of 526; letters read right and sure, 0.28 (median).
const UNFAMILIAR: f32 = 0.75;

const UNKNOWN: f32 = 0.9;

/// How much farther a glyph may lie from the references, for `familiarity`, once a profile's
/// templates show the face upright (`LEANING`). Letters such a face did not show on the
/// confirmed board, read right but far from every reference (the J of the thin and of the
/// M+ faces, 0.95 from every reference J), were left unsure. Measured with
/// `examples/learn_faces.rs` over the 276 faces under /usr/share/fonts, boards 2-12 after one
/// confirmed board: no board wrong yet sure with 0.2, 0.35, 0.6 and 1.0 (sure 1842 ->
/// 1885/1903/1930/1942 of 3036; through JPEG q60 with 0.35, 0.5 and 0.6, none either); with
/// no familiarity at all for such faces, one (a thin G read as H at 29%). Italic faces keep
/// the thresholds: given this reach, 241 of their boards were wrong yet sure (I as J).
const LEARNED_REACH: f32 = 0.5;

/// How far a verdict's confidence stands, by how near the glyph came to what the reader
/// knows: 1 up to `UNFAMILIAR` and for a learned template's verdict, 0 from `UNKNOWN`.
/// Weighed on glyphs seen whole and read as a single letter.
fn familiarity(v: &Verdict, reach: f32) -> f32 {
    if v.learned {
        1.0
    } else {
        ((UNKNOWN + reach - v.distance) / (UNKNOWN - UNFAMILIAR)).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scramblebot_core::sample::Rng;

    /// A partly hidden glyph's bound is below its distance to every built-in reference: for
    /// letters of a face the references are not drawn from, under a line across their top,
    /// middle and foot (their cells' correlation taken as at most one, as the bound takes it).
    #[test]
    fn a_hidden_glyphs_bound_is_below_its_distance_to_every_reference() {
        let font = FontRef::try_from_slice(include_bytes!("fonts/JetBrainsMono-Bold.ttf"))
            .expect("the built-in face");
        let mut checked = 0;
        for c in "AEJMQSWZ".chars() {
            let ink = render(&font, &c.to_string(), 40.0);
            let (_, y0, _, y1) = ink.ink_box().expect("ink");
            for at in [y0 + 2, (y0 + y1) / 2, y1 - 3] {
                let glyph = crate::features::under_band(&ink, at, 3).expect("ink left");
                assert!(glyph.hidden.is_some(), "{c} hidden at {at}");
                for r in BUILT_IN.iter() {
                    let (bound, d) = (glyph.bound(&r.features), glyph.distance(&r.features));
                    assert!(bound <= d, "{c} at {at}: bound {bound} > distance {d}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked} pairs");
    }

    /// The box pass is, to the bit, each pixel's in-map neighbours added from 0 in reading
    /// order and divided by 9: on maps of every shape from 1x1 (edges only, thin rows and
    /// columns) to 40x40, with values of coverage (0 to 1, many at 0 or 1, as drawn ink is).
    #[test]
    fn a_box_pass_is_the_neighbours_sum_over_nine_to_the_bit() {
        let mut rng = Rng::new(0x6b_0c35_12fe_9d01);
        for case in 0..400 {
            let (w, h) = (1 + rng.below(40), 1 + rng.below(40));
            let v: Vec<f32> = (0..w * h)
                .map(|_| match rng.below(4) {
                    0 => 0.0,
                    1 => 1.0,
                    _ => rng.below(1 << 24) as f32 / (1 << 24) as f32,
                })
                .collect();
            let ink = Ink { w, h, v };
            let got = box3(&ink);
            for y in 0..h {
                for x in 0..w {
                    let mut s = 0.0;
                    for dy in -1i32..=1 {
                        for dx in -1i32..=1 {
                            let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                            if (0..w as i32).contains(&nx) && (0..h as i32).contains(&ny) {
                                s += ink.v[ny as usize * w + nx as usize];
                            }
                        }
                    }
                    let want: f32 = s / 9.0;
                    assert_eq!(
                        got.v[y * w + x].to_bits(),
                        want.to_bits(),
                        "case {case}: {w}x{h} at ({x}, {y})"
                    );
                }
            }
        }
    }

    #[test]
    fn every_reference_font_parses_and_reads_its_own_letters() {
        assert_eq!(built_in_fonts().len(), built_in_font_files().len());
        let classifier = Classifier::built_in();
        for font in built_in_fonts() {
            for tile in 0..26u8 {
                for spelling in spellings(tile) {
                    let ink = render_spelling(&font, &spelling, 40.0);
                    let f = Features::of(&ink).expect("ink");
                    let v = classifier.classify(&f, &[]).expect("verdict");
                    assert_eq!(v.tile, tile, "{spelling:?}: {v:?}");
                }
            }
        }
    }

    /// The nearest reference of each tile, distances taken four at a time, is what taking
    /// them one at a time gives, to the bit: for the letters of two reference faces drawn
    /// thickened, each among every tile and among a third of them.
    #[test]
    fn distances_taken_four_at_a_time_are_those_taken_alone() {
        let one_at_a_time = |glyph: &Features, allowed: &[bool; 26]| {
            let mut best = [f32::INFINITY; 26];
            let mut second = f32::INFINITY;
            for r in BUILT_IN.iter().filter(|r| allowed[r.tile as usize]) {
                if glyph.bound(&r.features) >= second {
                    continue;
                }
                let d = glyph.distance(&r.features);
                if d < best[r.tile as usize] {
                    best[r.tile as usize] = d;
                    let mut sorted = best;
                    sorted.sort_by(f32::total_cmp);
                    second = sorted[1];
                }
            }
            best
        };
        let fonts = built_in_fonts();
        for font in &fonts[..2] {
            for tile in 0..26u8 {
                let f = Features::of(&reweigh(&render(font, &tile_text(tile), 30.0), 1, 0.35))
                    .expect("ink");
                let some: [bool; 26] =
                    std::array::from_fn(|t| (t + tile as usize).is_multiple_of(3));
                for allowed in [[true; 26], some] {
                    let bits = |d: [f32; 26]| d.map(f32::to_bits);
                    assert_eq!(
                        bits(nearest_per_tile(&BUILT_IN, &f, &allowed)),
                        bits(one_at_a_time(&f, &allowed)),
                        "tile {tile}"
                    );
                }
                let four = [0, 7, 100, 333].map(|i| &BUILT_IN[i % BUILT_IN.len()].features);
                let alone = four.map(|o| f.distance(o).to_bits());
                assert_eq!(f.distances(four).map(f32::to_bits), alone);
            }
        }
    }

    #[test]
    fn skipping_far_references_changes_no_verdict() {
        // The verdict as the whole scan gives it, every reference measured.
        let classifier = Classifier::built_in();
        let brute = |f: &Features| {
            let mut best = [f32::INFINITY; 26];
            for r in classifier.references {
                let slot = &mut best[r.tile as usize];
                *slot = slot.min(f.distance(&r.features));
            }
            let mut order: Vec<usize> = (0..26).collect();
            order.sort_by(|&a, &b| best[a].total_cmp(&best[b]));
            (
                order[0] as u8,
                order[1] as u8,
                best[order[0]],
                best[order[1]],
            )
        };
        let font = built_in_fonts().remove(0);
        let mut skipped_any = false;
        for tile in 0..26u8 {
            // Thickened and cut glyphs, so that verdicts are not all exact matches.
            let ink = reweigh(&render(&font, &tile_text(tile), 30.0), 1, 0.35);
            let mut cut = ink.clone();
            let half = cut.v.len() / 2;
            for v in cut.v.iter_mut().skip(half).step_by(3) {
                *v = 0.0;
            }
            let (x0, y0, x1, y1) = ink.ink_box().expect("ink");
            let middle = (y0 + y1) as f32 / 2.0;
            let (wiped, band) = wipe_band(
                &ink,
                (x0 as f32, middle - 3.0),
                (x1 as f32, middle + 3.0),
                2.0,
            );
            let veiled = Features::partly_hidden(&wiped, Some(&band)).expect("ink");
            for f in [Features::of(&ink), Features::of(&cut)]
                .map(|f| f.expect("ink"))
                .into_iter()
                .chain([veiled])
            {
                let v = classifier.classify(&f, &[]).expect("verdict");
                let (t1, t2, d1, d2) = brute(&f);
                assert_eq!((v.tile, v.runner_up), (t1, t2), "tile {tile}");
                assert!((v.distance - d1).abs() < 1e-6);
                assert!((v.confidence - ((d2 - d1) / d2).clamp(0.0, 1.0)).abs() < 1e-6);
                skipped_any |= classifier
                    .references
                    .iter()
                    .any(|r| f.bound(&r.features) >= d2);
            }
        }
        assert!(skipped_any, "the bound never prunes anything");
    }

    /// `ink` with the pixels within `half` of the line through `a` and `b` wiped (as a
    /// veil that hides what is under it leaves them), and those pixels.
    fn wipe_band(ink: &Ink, a: (f32, f32), b: (f32, f32), half: f32) -> (Ink, Vec<bool>) {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let len = (dx * dx + dy * dy).sqrt();
        let mut wiped = ink.clone();
        let mut band = vec![false; ink.v.len()];
        for y in 0..ink.h {
            for x in 0..ink.w {
                let (px, py) = (x as f32 - a.0, y as f32 - a.1);
                if (px * dy - py * dx).abs() / len <= half {
                    band[y * ink.w + x] = true;
                    wiped.v[y * ink.w + x] = 0.0;
                }
            }
        }
        (wiped, band)
    }

    #[test]
    fn what_is_hidden_is_not_held_against_a_letter() {
        let classifier = Classifier::built_in();
        let font = built_in_fonts().remove(0);
        let mut helped = 0;
        for text in ["R", "B", "A", "P", "E"] {
            let tile = text.as_bytes()[0] - b'A';
            let ink = render(&font, text, 40.0);
            let (x0, y0, x1, y1) = ink.ink_box().expect("ink");
            let (w, h) = ((x1 - x0) as f32, (y1 - y0) as f32);
            // A line across the glyph's upper middle, wiping a counter's wall.
            let (a, b) = (
                (0.0, y0 as f32 + h * 0.2),
                (ink.w as f32, y0 as f32 + h * 0.45),
            );
            let (wiped, band) = wipe_band(&ink, a, b, w.min(h) * 0.08);
            let plain = Features::of(&wiped).expect("ink");
            let hidden = Features::partly_hidden(&wiped, Some(&band)).expect("ink");
            let reference = Features::of(&ink).expect("ink");
            // Nearer its own letter once the wiped part is known to be hidden.
            assert!(
                hidden.distance(&reference) < plain.distance(&reference),
                "{text}"
            );
            let v = classifier.classify(&hidden, &[]).expect("verdict");
            assert_eq!(v.tile, tile, "{text}: {v:?}");
            helped += usize::from(classifier.classify(&plain, &[]).expect("verdict").tile != tile);
        }
        assert!(
            helped > 0,
            "every wiped glyph is read right without knowing what is hidden"
        );
    }

    #[test]
    fn nothing_hidden_compares_as_a_plain_glyph() {
        let font = built_in_fonts().remove(0);
        let ink = render(&font, "K", 40.0);
        let other = Features::of(&render(&font, "X", 40.0)).expect("ink");
        let none = vec![false; ink.v.len()];
        let plain = Features::of(&ink).expect("ink");
        let hidden = Features::partly_hidden(&ink, Some(&none)).expect("ink");
        assert!((plain.distance(&other) - hidden.distance(&other)).abs() < 1e-4);
    }

    fn tile_text(tile: u8) -> String {
        spellings(tile)
            .remove(0)
            .into_iter()
            .map(|(c, _)| c)
            .collect()
    }

    #[test]
    fn a_far_template_alike_in_counters_and_proportions_rules_out_only_where_told() {
        // A board's own O drawn in so few pixels that its cells lie far from another O of
        // the board: the same counter, the same proportions, other cells.
        let font = FontRef::try_from_slice(dejavu::sans::bold()).unwrap();
        let features = |text: &str| Features::of(&render(&font, text, 40.0)).unwrap();
        let o = features("O");
        let x = features("X");
        let mut blurred = o.clone();
        (blurred.cells, blurred.profiles) = (x.cells, x.profiles);
        assert!(
            o.distance(&blurred) > TEMPLATE_FAR,
            "{}",
            o.distance(&blurred)
        );
        let template = |features: Features| Reference { tile: 14, features };
        let base = Classifier::built_in();
        assert_eq!(base.classify(&o, &[]).unwrap().tile, 14);
        // Ruling out as a profile's templates do: a far O template takes O away.
        let ruling = base.with_more_templates(&[template(blurred.clone())], true);
        assert_ne!(ruling.classify(&o, &[]).unwrap().tile, 14);
        // Not where alike ones may not...
        let alike = base.with_more_templates(&[template(blurred)], false);
        assert_eq!(alike.classify(&o, &[]).unwrap().tile, 14);
        // ...but still where the template has no counter: another letter's shape.
        let unlike = base.with_more_templates(&[template(x)], false);
        assert_ne!(unlike.classify(&o, &[]).unwrap().tile, 14);
    }

    #[test]
    fn an_empty_map_has_no_features_and_distance_is_zero_to_itself() {
        assert!(Features::of(&Ink::new(10, 10)).is_none());
        let font = built_in_fonts().remove(0);
        let f = Features::of(&render(&font, "R", 30.0)).unwrap();
        assert!(f.distance(&f).abs() < 1e-4);
        let g = Features::of(&render(&font, "O", 30.0)).unwrap();
        assert!(f.distance(&g) > 0.2);
    }

    #[test]
    fn templates_take_precedence_and_survive_their_strip() {
        let font = built_in_fonts().remove(0);
        // An "R" taught as a K reads K; the other letters are untouched.
        let cells: Vec<Ink> = ["R", "E"]
            .iter()
            .map(|t| {
                let ink = render(&font, t, 40.0);
                let n = ink.w.max(ink.h);
                let mut square = Ink::new(n, n);
                for y in 0..ink.h {
                    for x in 0..ink.w {
                        square.v[y * n + x] = ink.v[y * ink.w + x];
                    }
                }
                square
            })
            .collect();
        let strip = strip(&cells);
        let taught = Classifier::with_templates(templates(&strip, &[10, 4]).unwrap());
        assert_eq!(taught.templates(), 2);
        // The glyphs as the game draws them: the templates' own size.
        let read = |c: &Classifier, t: &str| {
            let f = Features::of(&render(&font, t, 40.0)).unwrap();
            c.classify(&f, &[]).unwrap().tile
        };
        assert_eq!(read(&Classifier::built_in(), "R"), 17);
        assert_eq!(read(&taught, "R"), 10);
        assert_eq!(read(&taught, "E"), 4);
        assert_eq!(read(&taught, "O"), 14);
        // A strip with fewer cells than letters, or with an empty cell, is refused; cells
        // past the letters named (appended by learning, not yet named) are passed over.
        assert_eq!(
            templates(&strip, &[1, 2, 3]).unwrap_err(),
            TemplateError::Shape(strip.width(), strip.height(), 3)
        );
        assert_eq!(templates(&strip, &[10]).unwrap().len(), 1);
        let blank = image::GrayImage::from_pixel(20, 10, image::Luma([255]));
        assert_eq!(
            templates(&blank, &[1, 2]).unwrap_err(),
            TemplateError::Empty(0)
        );
    }

    #[test]
    fn a_restricted_choice_stays_inside_it() {
        let font = built_in_fonts().remove(0);
        let f = Features::of(&render(&font, "E", 30.0)).unwrap();
        let v = Classifier::built_in().classify(&f, &[3, 19]).unwrap();
        assert!(v.tile == 3 || v.tile == 19);
    }

    #[test]
    fn a_shape_unlike_every_reference_is_no_sure_letter() {
        let font = built_in_fonts().remove(0);
        let classifier = Classifier::built_in();
        let read = |text: &str| {
            let f = Features::of(&render(&font, text, 40.0)).unwrap();
            (
                classifier.classify(&f, &[]).unwrap(),
                classifier.read_letter(&f, &[]).unwrap(),
            )
        };
        // A letter of a reference face: near, trusted as weighed.
        let (nearest, letter) = read("K");
        assert!(nearest.distance < UNFAMILIAR && letter.confidence >= nearest.confidence);
        // Symbols no reference is near get a nearest letter with some lead, yet no trust.
        let mut far = 0;
        for symbol in ["@", "%", "&", "#", "§", "¶"] {
            let (nearest, letter) = read(symbol);
            if nearest.distance >= UNKNOWN {
                far += 1;
                assert_eq!(letter.confidence, 0.0, "{symbol}: {nearest:?}");
            }
        }
        assert!(far >= 2, "too few symbols far from every letter");
    }
}

#[cfg(test)]
mod two_letters {
    use super::*;

    #[test]
    fn only_a_qu_can_be_two_letters() {
        let mut wide = Vec::new();
        for (f, font) in built_in_fonts().iter().enumerate() {
            for text in ["Qu", "QU"] {
                assert!(
                    render(font, text, 48.0).maybe_two_letters(),
                    "{text} in font {f}"
                );
            }
            for tile in (0..26u8).filter(|&t| t != QU) {
                let text = ((b'A' + tile) as char).to_string();
                if render(font, &text, 48.0).maybe_two_letters() {
                    wide.push(text);
                }
            }
            // A bare Q, and the round letters an O-like Q is mistaken for, are one letter.
            for text in ["Q", "O", "G", "C", "D"] {
                assert!(
                    !render(font, text, 48.0).maybe_two_letters(),
                    "{text} in font {f}"
                );
            }
        }
        // W is as wide as a Qu in every face (the classifier tells them apart); nothing else.
        assert!(wide.iter().all(|t| t == "W" || t == "M"), "{wide:?}");
    }

    #[test]
    fn the_network_weighs_in_only_on_what_it_sees_whole() {
        let font = ab_glyph::FontVec::try_from_vec(dejavu::sans::bold().to_vec()).unwrap();
        let k = Features::of(&render(&font, "K", 64.0)).unwrap();
        let built_in = Classifier::built_in();
        let nearest = built_in.classify(&k, &[]).unwrap();
        let read = built_in.read_letter(&k, &[]).unwrap();
        assert_eq!((read.tile, nearest.tile), (10, 10));
        assert!(
            read.confidence >= nearest.confidence,
            "agreement never lowers it"
        );
        // A network sure of Z disagrees: K stands, less sure than the references alone.
        let mut z = super::super::net::Net::zeros();
        z.b2[25] = 20.0;
        let stubborn = Classifier {
            net: Some(Box::leak(Box::new(z))),
            ..Classifier::built_in()
        };
        let doubted = stubborn.read_letter(&k, &[]).unwrap();
        assert_eq!((doubted.tile, doubted.runner_up), (10, 25));
        assert!(doubted.confidence < nearest.confidence / 2.0 + 1e-6);
        // A learned template decides alone.
        let learned = Classifier {
            templates: vec![Reference {
                tile: 10,
                features: k.clone(),
            }]
            .into(),
            ..stubborn
        };
        let v = learned.read_letter(&k, &[]).unwrap();
        assert!(
            v.learned
                && v.tile == 10
                && v.confidence == learned.classify(&k, &[]).unwrap().confidence
        );
        // Part of the glyph under a line: the references alone decide; the network's letter
        // is told beside (the reader weighs the veil with it).
        let ink = render(&font, "K", 64.0);
        let mut band = vec![false; ink.v.len()];
        band[ink.v.len() / 2..ink.v.len() / 2 + ink.w * 3].fill(true);
        let veiled = Features::partly_hidden(&ink, Some(&band)).unwrap();
        let alone = stubborn.classify(&veiled, &[]).unwrap();
        let v = stubborn.read_letter(&veiled, &[]).unwrap();
        assert_eq!(
            Verdict { network: None, ..v },
            alone,
            "the references' verdict as it is"
        );
        assert!(v.network.is_some_and(|(t, margin)| t == 25 && margin > 0.9));
    }
}
