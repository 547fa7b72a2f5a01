//! A tile's bonus badge: a strongly coloured region in a corner of the tile (it may stick out
//! of it), its two letters, lighter than the badge, read with the classifier restricted to D
//! or T, then L or W.

use image::RgbaImage;

use super::crop::{Crop, cells_across, commonest_luma, crop, may_spread};
use super::mask::morph;
use crate::colour::{luma, select_in};
use crate::glyph::{Classifier, Features, Ink, SURE};
use crate::regions::{Region, Runs, Touch, label};
use crate::score::Bonus;

/// A badge's crop is this much wider than the tile: badges may stick out of it.
const BADGE_CROP: f32 = 1.2;
/// The largest side a badge's crop is worked at (badge letters are small).
const BADGE_WORK: usize = 160;
/// Pixels this close in lightness to the most common one are the face's (for its colour).
const COMMON_TOLERANCE: f32 = 8.0;
/// Colours at least this far apart (Euclidean, in RGB) are different colours: a badge's from
/// the face's, the gap's from the face's.
const FAR_COLOUR: f32 = 70.0;
/// A pixel whose channels spread by more than this is vivid: badges are strongly coloured.
const VIVID: f32 = 50.0;
/// The gap is sampled beside the middle half of each side of the tile (badges sit at corners).
const BESIDE_MIDDLE: f32 = 0.5;
/// Gap samples needed (a share, 1/n, of the crop's side) before the gap's colour is trusted;
/// fewer, and the crop's border stands in for it.
const MIN_GAP_SAMPLES: usize = 8;
/// A badge's centre lies outside the middle band of the crop, 0.38 to 0.62 of its side, on
/// both axes: in a corner quarter.
const CORNER_LOW: f32 = 0.38;
const CORNER_HIGH: f32 = 0.62;
/// A badge's least width and height, and its greatest side, as shares of the crop's side.
const BADGE_MIN_W: f32 = 0.12;
const BADGE_MIN_H: f32 = 0.08;
const BADGE_MAX: f32 = 0.5;
/// A badge fills at least this share of its bounding box (a rounded rectangle or a circle
/// does; a thin diagonal rim does not).
const BADGE_FILL: f32 = 0.4;
/// The tile's corners start this far from the crop's middle (a share of its side) when they
/// are searched for gap-coloured pixels.
const CORNER_FROM_MIDDLE: f32 = 0.12;
/// The tile's inner part, without its outer 7% each side, where its own rounded corners show
/// the gap.
const TILE_INNER: f32 = 0.86;
/// The lightest of what the badge leaves uncovered in its box is this percentile (not the
/// maximum: one stray light pixel must not set it).
const LIGHTEST_PERCENT: usize = 95;
/// Letters are at least this much lighter than the badge, whatever else is in its box.
const MIN_LETTER_LIFT: f32 = 60.0;
/// A badge letter is at least this share of the badge's height (smaller is a speck).
const MIN_LETTER_HEIGHT: f32 = 0.2;

/// The geometry of a badge's crop: `n` cells a side, the tile's half side and the crop's
/// middle in cells.
pub(super) struct BadgeCrop {
    pub(super) crop: Crop,
    pub(super) nf: f32,
    pub(super) half: f32,
    pub(super) mid: f32,
}

impl BadgeCrop {
    fn new(img: &RgbaImage, c: (f32, f32), tile: f32) -> BadgeCrop {
        let side = tile * BADGE_CROP;
        let crop = crop(img, c, side, BADGE_WORK);
        let nf = crop.n as f32;
        BadgeCrop {
            half: tile * nf / side / 2.0,
            mid: (nf - 1.0) / 2.0,
            nf,
            crop,
        }
    }

    /// Crop cells [a, b) along an axis, from offsets relative to the middle.
    pub(super) fn span(&self, from: f32, to: f32) -> std::ops::Range<usize> {
        let cell = |d: f32| (self.mid + d).clamp(0.0, self.nf) as usize;
        cell(from)..cell(to)
    }
}

/// The spread of a colour's channels: 0 for greys.
fn chroma(p: [f32; 3]) -> f32 {
    let max = p[0].max(p[1]).max(p[2]);
    let min = p[0].min(p[1]).min(p[2]);
    max - min
}

/// The median of each channel (0 for none: the callers' sets are never empty).
fn median_colour(v: Vec<[f32; 3]>) -> [f32; 3] {
    let mut keys = Vec::with_capacity(v.len());
    [0, 1, 2].map(|ch| select_in(&mut keys, v.iter().map(|p| p[ch]), |len| len / 2).unwrap_or(0.0))
}

/// Whether two colours are `FAR_COLOUR` apart or more.
pub(super) fn far(p: [f32; 3], q: [f32; 3]) -> bool {
    (0..3).map(|c| (p[c] - q[c]).powi(2)).sum::<f32>() > FAR_COLOUR * FAR_COLOUR
}

/// The face's colour: the median of the tile's cells of its most common lightness, every
/// other cell each way. Taken on the tile alone (inside its rounded corners): over the whole
/// crop, a flat panel round a face shaded top to bottom had more cells of one lightness than
/// the face, and with the panel's colour for the face's, the whole tile was unlike it and no
/// badge stood out (developed seed 1, sample 42: two TL badges missed).
fn face_colour(b: &BadgeCrop) -> [f32; 3] {
    let (crop, n) = (&b.crop, b.crop.n);
    let inner = b.half * TILE_INNER;
    let tile = b.span(-inner, inner);
    // The tile's rows, as ranges of cells (copied a row at a time, not a cell at a time).
    let row = |y: usize| y * n + tile.start..y * n + tile.end;
    let mut lumas = Vec::with_capacity(tile.len() * tile.len());
    for y in tile.clone() {
        lumas.extend_from_slice(&crop.luma[row(y)]);
    }
    // The tile spans a third of the crop each way from its middle: never no cells.
    let common = commonest_luma(&lumas);
    let of_face = |&p: &usize| (crop.luma[p] - common).abs() <= COMMON_TOLERANCE;
    // Every other cell each way, as for the gap (`around_colour`): the face covers most of
    // the tile (the whole crop is taken should none of those be the face's: the median needs
    // one).
    let sampled = tile.clone().step_by(2).flat_map(|y| row(y).step_by(2));
    let mut common_px: Vec<[f32; 3]> = sampled.filter(of_face).map(|p| crop.rgb[p]).collect();
    if common_px.is_empty() {
        common_px = (0..n * n).filter(of_face).map(|p| crop.rgb[p]).collect();
    }
    median_colour(common_px)
}

/// The colour around the tile of face colour `face`: the gap beside the middle of each of its
/// sides (badges sit at corners), where the gap is wide enough to show; else the crop's
/// border. (The border alone can be the neighbours' faces, and a badge sticking out into the
/// gap would then join the gap into one region.)
fn around_colour(b: &BadgeCrop, face: [f32; 3]) -> [f32; 3] {
    let (crop, n) = (&b.crop, b.crop.n);
    let (nf, half) = (b.nf, b.half);
    let beside = b.span(-half * BESIDE_MIDDLE, half * BESIDE_MIDDLE);
    // One cell past the tile's edge, its antialiased rim.
    let outside = half + 1.0;
    let mut gap = Vec::new();
    // Every other cell each way is plenty for a median, at a quarter of the cost.
    for along in beside.step_by(2) {
        for out in b
            .span(-nf, -outside)
            .chain(b.span(outside + 1.0, nf))
            .step_by(2)
        {
            for p in [out * n + along, along * n + out] {
                if far(crop.rgb[p], face) {
                    gap.push(crop.rgb[p]);
                }
            }
        }
    }
    if gap.len() >= n / MIN_GAP_SAMPLES {
        median_colour(gap)
    } else {
        // The crop's border (its order is no matter to a median).
        let rows = [0, n - 1].map(|y| &crop.rgb[y * n..(y + 1) * n]);
        let sides = (1..n - 1).flat_map(|y| [crop.rgb[y * n], crop.rgb[y * n + n - 1]]);
        median_colour(rows.concat().into_iter().chain(sides).collect())
    }
}

/// The fewest pixels a badge's region has on a crop `nf` cells a side: `BADGE_FILL` of the
/// smallest box it may have.
fn smallest_badge(nf: f32) -> f32 {
    BADGE_FILL * (nf * BADGE_MIN_W) * (nf * BADGE_MIN_H)
}

/// The crop's vivid cells of a colour unlike the face's, `face` (without branches, every
/// cell alike, which vectorises).
fn vivid_unlike(crop: &Crop, face: [f32; 3]) -> Vec<bool> {
    (crop.rgb.iter())
        .map(|&c| (chroma(c) > VIVID) & far(c, face))
        .collect()
}

/// How many of `mask`'s cells are set (as a sum, which vectorises where counting them did
/// not).
fn cells_set(mask: &[bool]) -> f32 {
    mask.iter().map(|&m| u32::from(m)).sum::<u32>() as f32
}

/// Whether a crop `nf` cells a side whose vivid cells unlike the face are `vivid` is sure to
/// hold no badge: either way `find_badge` looks, its mask is such cells, more of them than
/// the smallest badge has. Told before the colour around the tile is (a tile of a vivid
/// colour has few cells unlike its own).
fn too_few_for_a_badge(vivid: &[bool], nf: f32) -> bool {
    cells_set(vivid) <= smallest_badge(nf)
}

/// A badge found on a crop, and the crop's labels (the badge's region among them).
struct FoundBadge {
    region: Region,
    pub(super) labels: Vec<u32>,
}

/// A badge: a sizeable region of a vivid colour unlike the face, whose centre lies in a
/// corner quarter of the tile. First among colours unlike what surrounds the tile too (a
/// badge may stick out into the gap); failing that, among all, for a badge of the gap's own
/// colour, which the face around it sets apart, and then its centre must lie on the tile (a
/// neighbour's corner in the crop's corner is no badge). Eroded once, which cuts the thin
/// antialiased rim of the tile (a blend of the two, often vivid too).
fn find_badge(b: &BadgeCrop, vivid: &[bool], around: [f32; 3]) -> Option<FoundBadge> {
    let (n, nf, half, mid) = (b.crop.n, b.nf, b.half, b.mid);
    let unlike_around: Vec<bool> = (b.crop.rgb.iter().zip(vivid))
        .map(|(&c, &v)| v & far(c, around))
        .collect();
    let (mut labels, mut runs) = (Vec::new(), Runs::default());
    let mut find = |mask: &[bool], anywhere: bool| {
        // A region passes with more cells than `BADGE_FILL` of a box larger than the
        // smallest badge's, and the erosion only takes cells away: a mask of no more cells
        // than that has none to find.
        if cells_set(mask) <= smallest_badge(nf) {
            return None;
        }
        let mask = morph(mask, n, true);
        let found = label(|p| mask[p], n, n, Touch::Eight, &mut labels, &mut runs);
        found
            .into_iter()
            .filter(|r| {
                let (w, h) = ((r.x1 - r.x0) as f32, (r.y1 - r.y0) as f32);
                let corner = (r.cx() < nf * CORNER_LOW || r.cx() > nf * CORNER_HIGH)
                    && (r.cy() < nf * CORNER_LOW || r.cy() > nf * CORNER_HIGH);
                let on_tile = (r.cx() - mid).abs() < half && (r.cy() - mid).abs() < half;
                corner
                    && (anywhere || on_tile)
                    && w > nf * BADGE_MIN_W
                    && h > nf * BADGE_MIN_H
                    && w < nf * BADGE_MAX
                    && h < nf * BADGE_MAX
                    && r.count as f32 > BADGE_FILL * w * h
            })
            .max_by_key(|r| r.count)
    };
    let region = match find(&unlike_around, true) {
        Some(r) => r,
        None => {
            // Only worth a second look when the tile's corners hold enough pixels of the gap's
            // colour for half the smallest badge (most tiles have no badge).
            let inner = half * TILE_INNER;
            let corners = || {
                b.span(-inner, -nf * CORNER_FROM_MIDDLE)
                    .chain(b.span(nf * CORNER_FROM_MIDDLE + 1.0, inner))
            };
            let gap_coloured = corners()
                .flat_map(|y| corners().map(move |x| y * n + x))
                .filter(|&p| vivid[p] && !unlike_around[p])
                .count();
            if (gap_coloured as f32) < smallest_badge(nf) / 2.0 {
                return None;
            }
            find(vivid, false)?
        }
    };
    Some(FoundBadge { region, labels })
}

/// The badge's letters as a mask over its bounding box (`bw` x `bh`): what is lighter than
/// halfway from the badge to the lightest of what it leaves uncovered in its box (its
/// letters, or the face at its rounded corners). Not "not the badge's colour": a thin stroke
/// blended with the badge (a small badge, a downscaled crop) is vivid too, and the badge
/// region swallows it.
fn badge_text(crop: &Crop, found: &FoundBadge) -> (Vec<bool>, usize, usize) {
    let n = crop.n;
    let (badge, labels) = (&found.region, &found.labels);
    let (bx0, by0, bx1, by1) = (badge.x0, badge.y0, badge.x1, badge.y1);
    let mut colour = [0.0f32; 3];
    let mut k = 0.0;
    for y in by0..by1 {
        for x in bx0..bx1 {
            if labels[y * n + x] == badge.id {
                let p = crop.rgb[y * n + x];
                for ch in 0..3 {
                    colour[ch] += p[ch];
                }
                k += 1.0;
            }
        }
    }
    let badge_luma = luma(colour) / k;
    let (bw, bh) = (bx1 - bx0, by1 - by0);
    let mut lumas: Vec<f32> = (by0..by1)
        .flat_map(|y| (bx0..bx1).map(move |x| (x, y)))
        .filter(|&(x, y)| labels[y * n + x] != badge.id)
        .map(|(x, y)| crop.luma[y * n + x])
        .collect();
    let light = if lumas.is_empty() {
        255.0
    } else {
        let k = (lumas.len() * LIGHTEST_PERCENT / 100).min(lumas.len() - 1);
        *lumas.select_nth_unstable_by(k, f32::total_cmp).1
    };
    let threshold = (badge_luma + light.max(badge_luma + MIN_LETTER_LIFT)) / 2.0;
    let mut text = vec![false; bw * bh];
    for y in by0..by1 {
        for x in bx0..bx1 {
            text[(y - by0) * bw + (x - bx0)] = crop.luma[y * n + x] > threshold;
        }
    }
    (text, bw, bh)
}

/// The badge's two letters in its text mask, left to right, each as (its region's id in
/// `text_labels`, its columns): the two largest light regions of the box, not touching its
/// edge. Two letters that touch (a T's bar reaching the W, at small sizes) come as one region
/// wider than tall: they are cut apart at the column with the least of it, in its middle.
#[allow(clippy::type_complexity)]
fn badge_letters(
    text: &[bool],
    bw: usize,
    bh: usize,
) -> Option<(Vec<u32>, [(u32, std::ops::Range<usize>); 2])> {
    let (mut text_labels, mut runs) = (Vec::new(), Runs::default());
    let mut letters: Vec<Region> = label(
        |p| text[p],
        bw,
        bh,
        Touch::Eight,
        &mut text_labels,
        &mut runs,
    )
    .into_iter()
    .filter(|r| !r.edge && (r.y1 - r.y0) as f32 >= bh as f32 * MIN_LETTER_HEIGHT)
    .collect();
    letters.sort_by_key(|r| std::cmp::Reverse(r.count));
    letters.truncate(2);
    letters.sort_by_key(|r| r.x0);
    let parts = match letters.as_slice() {
        [a, b] => [(a.id, a.x0..a.x1), (b.id, b.x0..b.x1)],
        [a] if a.x1 - a.x0 >= a.y1 - a.y0 => {
            let w = a.x1 - a.x0;
            let column = |x: usize| {
                (a.y0..a.y1)
                    .filter(|&y| text_labels[y * bw + x] == a.id)
                    .count()
            };
            // In the middle two fifths: the letters' own narrow parts lie outside it.
            let cut = (a.x0 + w * 3 / 10..=a.x0 + w * 7 / 10).min_by_key(|&x| column(x))?;
            [(a.id, a.x0..cut), (a.id, cut + 1..a.x1)]
        }
        _ => return None,
    };
    Some((text_labels, parts))
}

/// What a tile's corners showed: a badge read (or none), or no badge on a face of a vivid
/// colour, which may be a bonus tile told by its colour (`tinted_label` reads its name once
/// the board's other tiles tell whether its colour is a bonus's).
pub enum BadgeSeen {
    Badge(Option<Bonus>),
    /// No badge, on a face of this colour (with the tile's crop, for its label).
    VividFace(Box<BadgeCrop>, [f32; 3]),
}

impl BadgeSeen {
    /// The bonus read, if any.
    pub fn bonus(&self) -> Option<Bonus> {
        match self {
            BadgeSeen::Badge(b) => *b,
            BadgeSeen::VividFace(..) => None,
        }
    }
}

/// Looks for a bonus badge at the corners of the tile centred on `c` and reads its letters;
/// with no badge on a face of a vivid colour, says so, with the face's colour and the crop.
pub fn tile_badge(img: &RgbaImage, c: (f32, f32), tile: f32, classifier: &Classifier) -> BadgeSeen {
    // A badge is vivid, and its region is at least the smallest badge (`find_badge`): on a
    // crop with fewer vivid pixels than half of that, there is none to look for. (Counted
    // only as far as that: on a tile of a vivid colour, the first few rows have them.) Most
    // tiles have no vivid screen pixel at all, and are left before they are cropped.
    let side = tile * BADGE_CROP;
    let need = (smallest_badge(cells_across(side, BADGE_WORK) as f32) / 2.0).ceil() as usize;
    if !may_spread(img, (c, side, BADGE_WORK), VIVID, need) {
        return BadgeSeen::Badge(None);
    }
    let b = BadgeCrop::new(img, c, tile);
    let vivid = b.crop.rgb.iter().filter(|&&c| chroma(c) > VIVID);
    if vivid.take(need).count() < need {
        return BadgeSeen::Badge(None);
    }
    let face = face_colour(&b);
    let vivid = vivid_unlike(&b.crop, face);
    let found = (!too_few_for_a_badge(&vivid, b.nf))
        .then(|| find_badge(&b, &vivid, around_colour(&b, face)))
        .flatten();
    match found {
        Some(found) => BadgeSeen::Badge(badge_bonus(&b, &found, classifier)),
        None if chroma(face) > VIVID => BadgeSeen::VividFace(Box::new(b), face),
        None => BadgeSeen::Badge(None),
    }
}

/// The bonus a badge found on `b` names, if its letters are read surely.
fn badge_bonus(b: &BadgeCrop, found: &FoundBadge, classifier: &Classifier) -> Option<Bonus> {
    let (text, bw, bh) = badge_text(&b.crop, found);
    let (text_labels, parts) = badge_letters(&text, bw, bh)?;
    let letter = |(id, columns): &(u32, std::ops::Range<usize>)| {
        let mut ink = Ink::new(bw, bh);
        for (i, &l) in text_labels.iter().enumerate() {
            if l == *id && columns.contains(&(i % bw)) {
                ink.v[i] = 1.0;
            }
        }
        ink
    };
    read_bonus(classifier, &letter(&parts[0]), &letter(&parts[1]), false)
}

/// The bonus two small letters spell, D or T then L or W, each read with the classifier
/// kept to those two; none when either is doubtful: a bonus counted on the wrong tile or of
/// the wrong kind misleads the scoring more than one left out. When `alone`, each letter must
/// also be the one read among all letters: writing that is not a bonus's (a point value) is
/// not taken for one because two letters were all it was offered.
pub(super) fn read_bonus(
    classifier: &Classifier,
    first: &Ink,
    second: &Ink,
    alone: bool,
) -> Option<Bonus> {
    let read = |ink: &Ink, allowed: &[u8]| -> Option<u8> {
        let f = Features::of(ink)?;
        let v = classifier
            .classify(&f, allowed)
            .filter(|v| v.confidence >= SURE)?;
        (!alone || classifier.classify(&f, &[])?.tile == v.tile).then_some(v.tile)
    };
    match (read(first, &[D, T])?, read(second, &[L, W])?) {
        (D, L) => Some(Bonus::DL),
        (T, L) => Some(Bonus::TL),
        (D, W) => Some(Bonus::DW),
        _ => Some(Bonus::TW),
    }
}

/// The letters of the bonuses' names.
const D: u8 = 3;
const L: u8 = 11;
const T: u8 = 19;
const W: u8 = 22;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::rounded;
    use image::Rgba;

    /// Every badge `find_badge` finds passes `too_few_for_a_badge`, which `tile_badge` asks
    /// first: on a cream tile on grey with an orange rectangle in its corner, of every size
    /// from well under the smallest badge to several times it; and the test leaves some crops
    /// before `find_badge`.
    #[test]
    fn every_badge_find_badge_finds_has_enough_vivid_cells() {
        let (tile, c) = (200.0, (120.0, 120.0));
        let (mut left, mut found) = (0, 0);
        for w in (4..=40).step_by(2) {
            for h in (4..=30).step_by(2) {
                let mut img = RgbaImage::from_pixel(240, 240, Rgba([90, 90, 90, 255]));
                let face = Rgba([230, 230, 150, 255]);
                rounded(&mut img, 20.0, 20.0, 220.0, 220.0, 12.0, face);
                let (x0, y0) = (30.0, 30.0);
                let (x1, y1) = (x0 + w as f32 * 1.5, y0 + h as f32 * 1.5);
                rounded(&mut img, x0, y0, x1, y1, 0.0, Rgba([220, 110, 30, 255]));
                let b = BadgeCrop::new(&img, c, tile);
                let face = face_colour(&b);
                let vivid = vivid_unlike(&b.crop, face);
                let few = too_few_for_a_badge(&vivid, b.nf);
                if find_badge(&b, &vivid, around_colour(&b, face)).is_some() {
                    assert!(!few, "{w} x {h}: a badge, yet left for too few vivid cells");
                    found += 1;
                }
                left += usize::from(few);
            }
        }
        assert!(
            left > 10 && found > 10,
            "{left} crops left, {found} badges found"
        );
    }
}
