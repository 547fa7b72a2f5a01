//! Connected regions of a mask, labelled by flood fill: the one labelling that the grid search,
//! glyph isolation, badges and counter counting share.

/// How pixels touch: by a side only, or by a side or a corner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    Four,
    Eight,
}

/// A connected region of a mask.
#[derive(Clone, Copy, Debug)]
pub struct Region {
    /// Its label (1, 2, ... in scan order of first pixels).
    pub id: u32,
    /// Pixels in it.
    pub count: usize,
    /// Its box; x1 and y1 are exclusive.
    pub x0: usize,
    pub y0: usize,
    pub x1: usize,
    pub y1: usize,
    /// It reaches the mask's border.
    pub edge: bool,
}

impl Region {
    pub fn cx(&self) -> f32 {
        (self.x0 + self.x1) as f32 / 2.0
    }
    pub fn cy(&self) -> f32 {
        (self.y0 + self.y1) as f32 / 2.0
    }
}

/// The regions of the pixels of a w x h image (row-major indices) for which `set` holds; each
/// pixel's label (0 = unset) is written into `labels`. `stack` is scratch space, kept by
/// callers that label often.
pub fn label(
    set: impl Fn(usize) -> bool,
    w: usize,
    h: usize,
    touch: Touch,
    labels: &mut Vec<u32>,
    stack: &mut Vec<usize>,
) -> Vec<Region> {
    labels.clear();
    labels.resize(w * h, 0);
    let mut out = Vec::new();
    for start in 0..w * h {
        if labels[start] != 0 || !set(start) {
            continue;
        }
        let id = out.len() as u32 + 1;
        labels[start] = id;
        stack.clear();
        stack.push(start);
        let mut r = Region {
            id,
            count: 0,
            x0: usize::MAX,
            y0: usize::MAX,
            x1: 0,
            y1: 0,
            edge: false,
        };
        while let Some(p) = stack.pop() {
            let (x, y) = (p % w, p / w);
            r.count += 1;
            r.x0 = r.x0.min(x);
            r.y0 = r.y0.min(y);
            r.x1 = r.x1.max(x + 1);
            r.y1 = r.y1.max(y + 1);
            r.edge |= x == 0 || y == 0 || x + 1 == w || y + 1 == h;
            let mut visit = |q: usize| {
                if labels[q] == 0 && set(q) {
                    labels[q] = id;
                    stack.push(q);
                }
            };
            let (left, right, up, down) = (x > 0, x + 1 < w, y > 0, y + 1 < h);
            if left {
                visit(p - 1);
            }
            if right {
                visit(p + 1);
            }
            if up {
                visit(p - w);
            }
            if down {
                visit(p + w);
            }
            if touch == Touch::Eight {
                if up && left {
                    visit(p - w - 1);
                }
                if up && right {
                    visit(p - w + 1);
                }
                if down && left {
                    visit(p + w - 1);
                }
                if down && right {
                    visit(p + w + 1);
                }
            }
        }
        out.push(r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_join_regions_only_when_eight_connected() {
        // Two pixels touching by a corner, and one apart, in a 4 x 3 mask.
        let mask = [
            true, false, false, true, //
            false, true, false, false, //
            false, false, false, false,
        ];
        let (mut labels, mut stack) = (Vec::new(), Vec::new());
        let four = label(|p| mask[p], 4, 3, Touch::Four, &mut labels, &mut stack);
        assert_eq!(four.len(), 3);
        let eight = label(|p| mask[p], 4, 3, Touch::Eight, &mut labels, &mut stack);
        assert_eq!(eight.len(), 2);
        let r = eight[0];
        assert_eq!(
            (r.count, r.x0, r.y0, r.x1, r.y1, r.edge),
            (2, 0, 0, 2, 2, true)
        );
        assert_eq!(labels[5], labels[0]);
        assert!(!eight[1].edge || eight[1].x1 == 4);
    }
}
