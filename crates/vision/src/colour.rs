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

/// The median of `values` (the upper one of an even count), if any.
pub fn median(mut values: Vec<f32>) -> Option<f32> {
    if values.is_empty() {
        return None;
    }
    let k = values.len() / 2;
    Some(*values.select_nth_unstable_by(k, f32::total_cmp).1)
}
