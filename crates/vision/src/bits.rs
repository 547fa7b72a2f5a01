//! A mask packed 64 pixels to a word: thresholding, regions, and erosion or dilation by a
//! square, each working a word (64 pixels) at a time where a byte or bool mask works a pixel at
//! a time. The grid search labels a dozen masks of a screen and opens a dozen more; packed,
//! a row of 360 pixels is 6 words, and its stretches are found by counting zeros.

use crate::regions::{Region, Runs, Touch};

/// A w x h mask. Each row starts on a word; pixel x of a row is bit x % 64 of its word x / 64,
/// and the bits past the row's end are clear.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bits {
    w: usize,
    h: usize,
    /// Words a row.
    stride: usize,
    words: Vec<u64>,
}

/// Eight bytes of 0 or 1, as a little-endian word, times this have the eight in their top
/// byte, byte i as bit i: byte i (at bit 8i) meets the term 2^(56 - 7i), and the other terms
/// carry nothing into the top byte.
const PACK: u64 = 0x0102_0408_1020_4080;

impl Bits {
    /// A w x h mask with nothing set.
    pub fn new(w: usize, h: usize) -> Bits {
        let stride = w.div_ceil(64);
        Bits {
            w,
            h,
            stride,
            words: vec![0; stride * h],
        }
    }

    /// The mask of the pixels of a w x h image (row-major indices) for which `set` holds.
    #[cfg(test)]
    pub fn from_fn(w: usize, h: usize, set: impl Fn(usize) -> bool) -> Bits {
        let mut out = Bits::new(w, h);
        for y in 0..h {
            for x in 0..w {
                if set(y * w + x) {
                    out.words[y * out.stride + x / 64] |= 1 << (x % 64);
                }
            }
        }
        out
    }

    /// The mask of the pixels of a w x h image of `values` (row-major) at or above
    /// `threshold`. The comparisons are made a byte each into a buffer (which vectorises),
    /// and each eight packed by one multiplication.
    pub fn at_least(values: &[u8], w: usize, h: usize, threshold: u8) -> Bits {
        assert_eq!(values.len(), w * h, "a value a pixel");
        let mut out = Bits::new(w, h);
        let mut flags = [0u8; 64];
        if w == 0 {
            return out;
        }
        let packed = |flags: &[u8; 64]| {
            flags
                .chunks_exact(8)
                .enumerate()
                .fold(0, |word, (i, eight)| {
                    let bytes = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
                    word | ((bytes.wrapping_mul(PACK) >> 56) << (8 * i))
                })
        };
        for (line, words) in values
            .chunks_exact(w)
            .zip(out.words.chunks_exact_mut(out.stride))
        {
            // Whole words first, at a length the compiler knows; then the row's tail, its
            // flags past the row's end cleared.
            let whole = line.chunks_exact(64);
            let tail = whole.remainder();
            let mut words = words.iter_mut();
            for (chunk, word) in whole.zip(&mut words) {
                for (f, &v) in flags.iter_mut().zip(chunk) {
                    *f = u8::from(v >= threshold);
                }
                *word = packed(&flags);
            }
            if let (false, Some(word)) = (tail.is_empty(), words.next()) {
                for (f, &v) in flags.iter_mut().zip(tail) {
                    *f = u8::from(v >= threshold);
                }
                flags[tail.len()..].fill(0);
                *word = packed(&flags);
            }
        }
        out
    }

    fn row(&self, y: usize) -> &[u64] {
        &self.words[y * self.stride..(y + 1) * self.stride]
    }

    /// Sets x0..x1 of row y.
    pub fn fill_run(&mut self, y: usize, x0: usize, x1: usize) {
        let row = &mut self.words[y * self.stride..(y + 1) * self.stride];
        set_range(row, x0, x1);
    }

    /// Clears the bits past each row's end.
    fn clear_padding(&mut self) {
        let tail = self.w % 64;
        if tail == 0 {
            return;
        }
        for row in self.words.chunks_exact_mut(self.stride) {
            row[self.stride - 1] &= (1 << tail) - 1;
        }
    }

    /// The mask turned over: set where this one is not.
    pub fn inverted(&self) -> Bits {
        let mut out = Bits {
            words: self.words.iter().map(|w| !w).collect(),
            ..*self
        };
        out.clear_padding();
        out
    }

    /// The connected regions of the set pixels, as `regions::regions` finds them (the same
    /// regions, numbered alike). A row's stretches begin and end where a bit differs from the
    /// one before it: the set bits of the word xor itself shifted by one.
    pub fn regions(&self, touch: Touch, runs: &mut Runs) -> Vec<Region> {
        runs.start(touch);
        for y in 0..self.h {
            runs.next_row();
            let (mut start, mut carry) = (0u32, 0u64);
            for (i, &word) in self.row(y).iter().enumerate() {
                let mut edges = word ^ ((word << 1) | carry);
                carry = word >> 63;
                while edges != 0 {
                    let b = edges.trailing_zeros();
                    let x = i as u32 * 64 + b;
                    if word >> b & 1 == 1 {
                        start = x;
                    } else {
                        runs.push(y as u32, start, x);
                    }
                    edges &= edges - 1;
                }
            }
            // Only a row that fills its last word ends on a set bit with no edge after it.
            if carry == 1 {
                runs.push(y as u32, start, self.w as u32);
            }
        }
        runs.finish(self.w, self.h)
    }

    /// Erosion (`erode`: set where the whole square of half-side `r` around is set; outside
    /// the mask counts as set) or dilation (set where any of it is; outside counts as unset).
    /// A square is a row's stretch then a column's.
    pub fn square(&self, r: usize, erode: bool) -> Bits {
        let op = |a: u64, b: u64| if erode { a & b } else { a | b };
        let mut across = Bits::new(self.w, self.h);
        self.across(r, erode, &mut across);
        across.clear_padding();
        // Down the columns likewise, a row's words at a time: the rows with r rows of the
        // outside (set for erosion, clear for dilation: either way they change nothing) above
        // and below, then windows of 1, 2, 4... rows by one pass each, and the 2r + 1 row
        // window from two overlapping ones. After a pass, row i of `padded` holds its rows i
        // to i + len - 1 combined.
        let (stride, outside) = (self.stride, if erode { !0 } else { 0 });
        let (span, rows) = (2 * r + 1, self.h + 2 * r);
        let mut padded = vec![outside; rows * stride];
        padded[r * stride..(r + self.h) * stride].copy_from_slice(&across.words);
        let mut len = 1;
        while len * 2 <= span {
            // Row i takes in row i + len, up to the last row a window of 2 len fits below
            // (the rows past it are not needed again).
            let windows = (rows + 1).saturating_sub(2 * len) * stride;
            for i in 0..windows {
                padded[i] = op(padded[i], padded[i + len * stride]);
            }
            len *= 2;
        }
        let far = (span - len) * stride;
        let mut out = Bits::new(self.w, self.h);
        for (i, o) in out.words.iter_mut().enumerate() {
            *o = op(padded[i], padded[i + far]);
        }
        out.clear_padding();
        out
    }

    /// The row's stretch of `square`: pixel x of each row of `out` takes the row's x - r to
    /// x + r, the outside (set for erosion, clear for dilation) past either end. The rows are
    /// laid end to end in one line, whole words of the outside (more than r pixels) before,
    /// between and after them and their padding made the outside; along the line a window of
    /// 1, 2, 4... pixels from each pixel on is made by a pass of a shift and an operation a
    /// word, and the 2r + 1 pixel window from two overlapping ones. No window of a row's
    /// pixels reaches the next row's, and the words past the last one a pass reaches are left
    /// as they were, all outside, as are the windows from them. Each row's windows are then
    /// taken r pixels back. Row by row, each word fetching its neighbours or the outside past
    /// the row's ends, the squares of five reads of a board found by colour (second s1-4)
    /// took 72.6M instructions of their own, against 26.9M so.
    fn across(&self, r: usize, erode: bool, out: &mut Bits) {
        let op = |a: u64, b: u64| if erode { a & b } else { a | b };
        let outside: u64 = if erode { !0 } else { 0 };
        let (tail, stride) = (self.w % 64, self.stride);
        if stride == 0 {
            return;
        }
        let pad = r / 64 + 1;
        let step = stride + pad;
        // Row y starts at word pad + y step.
        let mut line = vec![outside; pad + self.h * step];
        for (row, at) in self
            .words
            .chunks_exact(stride)
            .zip(line[pad..].chunks_mut(step))
        {
            at[..stride].copy_from_slice(row);
            if tail != 0 {
                at[stride - 1] |= outside & !((1u64 << tail) - 1);
            }
        }
        // Each word taken with what lies k pixels above it, as far as the line reaches.
        let widen = |a: &mut [u64], k: usize| {
            let (kw, kb) = (k / 64, (k % 64) as u32);
            let reach = a.len() - kw - 1;
            if kb == 0 {
                for j in 0..reach {
                    a[j] = op(a[j], a[j + kw]);
                }
            } else {
                for j in 0..reach {
                    a[j] = op(a[j], (a[j + kw] >> kb) | (a[j + kw + 1] << (64 - kb)));
                }
            }
        };
        let (n, mut len) = (2 * r + 1, 1);
        while len * 2 <= n {
            widen(&mut line, len);
            len *= 2;
        }
        if len < n {
            widen(&mut line, n - len);
        }
        // Pixel x of row y has its window from bit 64 (pad + y step) + x - r.
        let from = 64 * pad - r;
        let (fw, fb) = (from / 64, (from % 64) as u32);
        for (y, out_row) in out.words.chunks_exact_mut(stride).enumerate() {
            let at = &line[y * step + fw..];
            for (i, o) in out_row.iter_mut().enumerate() {
                *o = if fb == 0 {
                    at[i]
                } else {
                    (at[i] >> fb) | (at[i + 1] << (64 - fb))
                };
            }
        }
    }
}

/// Sets bits a..b of `words` (those it has), a word at a time: the bits from a's on in its
/// word, the whole words between, the bits below b's in its word.
fn set_range(words: &mut [u64], a: usize, b: usize) {
    let b = b.min(words.len() * 64);
    if a >= b {
        return;
    }
    let (first, last) = (a / 64, (b - 1) / 64);
    let from = !0u64 << (a % 64);
    let to = !0u64 >> (63 - (b - 1) % 64);
    if first == last {
        words[first] |= from & to;
    } else {
        words[first] |= from;
        words[first + 1..last].fill(!0);
        words[last] |= to;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regions::regions;
    use scramblebot_core::sample::Rng;

    /// Random w x h masks of every density and size, widths across word boundaries.
    fn masks(seed: u64, cases: usize) -> impl Iterator<Item = (usize, usize, Vec<bool>)> {
        let mut rng = Rng::new(seed);
        (0..cases).map(move |_| {
            let (w, h) = (1 + rng.below(150), 1 + rng.below(20));
            let density = rng.below(101);
            let mask = (0..w * h).map(|_| rng.below(100) < density).collect();
            (w, h, mask)
        })
    }

    /// Packing by multiplication puts byte i at bit i, for every pattern of eight.
    #[test]
    fn eight_flags_pack_into_their_bits() {
        for pattern in 0u16..256 {
            let flags: [u8; 8] = std::array::from_fn(|i| (pattern >> i & 1) as u8);
            let bytes = u64::from_le_bytes(flags);
            assert_eq!(bytes.wrapping_mul(PACK) >> 56, u64::from(pattern));
        }
    }

    /// A threshold's mask has the pixels the threshold takes, and nothing past a row's end.
    #[test]
    fn a_threshold_takes_the_pixels_at_or_above_it() {
        let mut rng = Rng::new(0x51_7cc1_b727_220a);
        for case in 0..300 {
            let (w, h) = (1 + rng.below(200), 1 + rng.below(8));
            let values: Vec<u8> = (0..w * h).map(|_| rng.below(256) as u8).collect();
            let t = rng.below(256) as u8;
            let got = Bits::at_least(&values, w, h, t);
            assert_eq!(got, Bits::from_fn(w, h, |p| values[p] >= t), "case {case}");
        }
    }

    /// Packed regions are the regions a pixel at a time finds: the same boxes, counts, edges
    /// and numbering, touching by sides or corners.
    #[test]
    fn packed_regions_are_the_pixel_regions() {
        let mut runs = Runs::default();
        for (case, (w, h, mask)) in masks(0x2f_8e31_a1b0_55c7, 600).enumerate() {
            let bits = Bits::from_fn(w, h, |p| mask[p]);
            for touch in [Touch::Four, Touch::Eight] {
                let fields = |r: &Region| (r.id, r.count, r.x0, r.y0, r.x1, r.y1, r.edge);
                let want: Vec<_> = regions(|p| mask[p], w, h, touch, &mut runs)
                    .iter()
                    .map(fields)
                    .collect();
                let got: Vec<_> = bits.regions(touch, &mut runs).iter().map(fields).collect();
                assert_eq!(got, want, "case {case}: {w} x {h}, {touch:?}");
            }
        }
    }

    /// Turned over, every pixel inside flips and the padding stays clear.
    #[test]
    fn an_inverted_mask_flips_every_pixel() {
        for (case, (w, h, mask)) in masks(0x7a_3c95_0e1d_44b9, 200).enumerate() {
            let got = Bits::from_fn(w, h, |p| mask[p]).inverted();
            assert_eq!(got, Bits::from_fn(w, h, |p| !mask[p]), "case {case}");
        }
    }

    /// Erosion and dilation by a square are what their definitions say, pixel by pixel, for
    /// half-sides up to past a word.
    #[test]
    fn a_square_erodes_and_dilates_as_defined() {
        let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
        for (case, (w, h, mask)) in masks(0x63_d0a4_19f2_8e07, 300).enumerate() {
            let r = if case % 10 == 0 {
                rng.below(80)
            } else {
                rng.below(7)
            };
            let bits = Bits::from_fn(w, h, |p| mask[p]);
            for erode in [true, false] {
                let got = bits.square(r, erode);
                let want = Bits::from_fn(w, h, |p| {
                    let (x, y) = (p % w, p / w);
                    let mut window = (y.saturating_sub(r)..(y + r + 1).min(h)).flat_map(|v| {
                        (x.saturating_sub(r)..(x + r + 1).min(w)).map(move |u| (u, v))
                    });
                    if erode {
                        window.all(|(u, v)| mask[v * w + u])
                    } else {
                        window.any(|(u, v)| mask[v * w + u])
                    }
                });
                assert_eq!(got, want, "case {case}: {w} x {h}, r {r}, erode {erode}");
            }
        }
    }

    /// A run filled sets those pixels and no others.
    #[test]
    fn a_filled_run_sets_its_pixels() {
        let mut rng = Rng::new(0x0d_41c2_6b5e_9f13);
        for case in 0..200 {
            let (w, h) = (1 + rng.below(200), 1 + rng.below(4));
            let y = rng.below(h);
            let x0 = rng.below(w + 1);
            let x1 = x0 + rng.below(w + 1 - x0);
            let mut got = Bits::new(w, h);
            got.fill_run(y, x0, x1);
            let want = Bits::from_fn(w, h, |p| p / w == y && (x0..x1).contains(&(p % w)));
            assert_eq!(got, want, "case {case}");
        }
    }
}
