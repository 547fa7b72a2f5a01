//! Measures on colours (RGB, 0-255 per channel, as f32) and lightnesses that the grid search,
//! the reader and the overlay check share.

/// Luma (BT.601 weights) of a colour.
pub fn luma(px: [f32; 3]) -> f32 {
    0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2]
}

/// Euclidean distance of two colours.
pub fn distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// `x as u8` for x from 0 to 255 (NaN aside): the whole part, in the low byte of its float
/// with 2^23 added (whose last mantissa bit then counts ones). The cast saturates, which kept
/// loops over pixels (the grid's colour masks, the reader's histogram bins) a value at a time.
pub fn byte(x: f32) -> u8 {
    (x.trunc() + 8_388_608.0).to_bits() as u8
}

/// The median of `values` (the upper one of an even count) in `f32::total_cmp`'s order, if
/// any.
pub fn median(values: impl IntoIterator<Item = f32>) -> Option<f32> {
    select(values, |len| len / 2)
}

/// The value that stands at index `at(len)` (under `len`) once `values` are sorted by
/// `f32::total_cmp`, if any. Selected on integer keys in that order, which compare in one
/// instruction: a tile's face colour is the median of some 15,000 values a channel, for
/// every tile read.
pub fn select(
    values: impl IntoIterator<Item = f32>,
    at: impl FnOnce(usize) -> usize,
) -> Option<f32> {
    select_in(&mut Vec::new(), values, at)
}

/// `select` with the keys put in `keys` (emptied first), kept by callers that select often;
/// how many values there were is `keys.len()` after.
pub fn select_in(
    keys: &mut Vec<i32>,
    values: impl IntoIterator<Item = f32>,
    at: impl FnOnce(usize) -> usize,
) -> Option<f32> {
    keys.clear();
    keys.extend(values.into_iter().map(order_key));
    if keys.is_empty() {
        return None;
    }
    let k = at(keys.len()).min(keys.len() - 1);
    Some(from_order_key(*keys.select_nth_unstable(k).1))
}

/// `x`'s place in `f32::total_cmp`'s order as an integer's: its bits as a signed integer, the
/// bits other than the sign turned over for negative values (so that more negative is less).
fn order_key(x: f32) -> i32 {
    let bits = x.to_bits() as i32;
    bits ^ (((bits >> 31) as u32) >> 1) as i32
}

/// The value whose `order_key` is `key` (the same turn again undoes it: the sign is kept).
fn from_order_key(key: i32) -> f32 {
    f32::from_bits(order_key(f32::from_bits(key as u32)) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scramblebot_core::sample::Rng;

    /// The median and any other order statistic on integer keys are those `f32::total_cmp`
    /// selects, bit for bit, on values of every kind: negative zero, infinities, NaNs,
    /// subnormals and ties among them.
    #[test]
    fn selection_is_total_cmps() {
        let mut rng = Rng::new(0x3c6e_f372_fe94_f82b);
        let specials = [
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MIN_POSITIVE / 4.0,
            -1.5,
            255.0,
        ];
        for case in 0..2000 {
            let len = rng.below(40);
            let values: Vec<f32> = (0..len)
                .map(|_| match rng.below(4) {
                    0 => specials[rng.below(specials.len())],
                    1 => f32::from_bits(rng.below(1 << 31) as u32 | (rng.below(2) as u32) << 31),
                    _ => rng.below(256) as f32 / (1 + rng.below(4)) as f32,
                })
                .collect();
            let at = rng.below(len.max(1));
            for (k, got) in [
                (len / 2, median(values.iter().copied())),
                (at, select(values.iter().copied(), |_| at)),
            ] {
                let want = (!values.is_empty()).then(|| {
                    let mut v = values.clone();
                    *v.select_nth_unstable_by(k, f32::total_cmp).1
                });
                let (got, want) = (got.map(f32::to_bits), want.map(f32::to_bits));
                assert_eq!(got, want, "case {case}, index {k}: {values:?}");
            }
        }
    }
}
