//! Morphology on square masks (n x n, row-major): filling between pixels, erosion and
//! dilation.

/// `set` and every pixel that lies between two set pixels at most `gap` steps apart along a
/// row, a column or a diagonal.
///
/// Along each direction, each pixel's steps from the nearest set pixel before it (`back`) and
/// after it (`ahead`) are counted in one pass each, the rows taken in an order that has a
/// pixel's neighbour along the direction counted before it. Down a column or a diagonal, a
/// row's steps are its neighbour row's moved by a place and one more (which vectorises);
/// along a row, each pixel's follow the last one's. (Asking for each pixel, through its
/// position along the direction, whether its neighbour lay on the crop, the bands of five
/// reads of a board of veiled tiles, second s1-4, took 58.5M instructions, against 24.2M
/// so.)
pub(super) fn sandwiched(set: &[bool], n: usize, gap: u32) -> Vec<bool> {
    let mut out = set.to_vec();
    let far = u32::MAX / 4;
    let (mut back, mut ahead) = (vec![far; n * n], vec![far; n * n]);
    // (steps across, steps down): right, down, down-right, up-right.
    for (dx, dy) in [(1usize, 0isize), (0, 1), (1, 1), (1, -1)] {
        let order: Vec<usize> = if dy < 0 {
            (0..n).rev().collect()
        } else {
            (0..n).collect()
        };
        for &y in &order {
            steps_on_row(&mut back, set, (n, y), (-(dx as isize), -dy), far);
        }
        for &y in order.iter().rev() {
            steps_on_row(&mut ahead, set, (n, y), (dx as isize, dy), far);
        }
        for ((o, &b), &a) in out.iter_mut().zip(&back).zip(&ahead) {
            *o |= b + a <= gap;
        }
    }
    out
}

/// Row y's steps from the nearest set pixel along a direction, with each pixel's neighbour
/// along it (`dx` places across and `dy` rows down from it) counted already: 0 on a set pixel,
/// else the neighbour's and one, or `far` where the neighbour is off the crop.
fn steps_on_row(
    steps: &mut [u32],
    set: &[bool],
    (n, y): (usize, usize),
    (dx, dy): (isize, isize),
    far: u32,
) {
    let set_row = &set[y * n..(y + 1) * n];
    let one = |on: bool, s: u32| if on { 0 } else { s + 1 };
    let edge = |on: bool| if on { 0 } else { far };
    let Some(r) = y.checked_add_signed(dy).filter(|&r| r < n) else {
        for (s, &on) in steps[y * n..(y + 1) * n].iter_mut().zip(set_row) {
            *s = edge(on);
        }
        return;
    };
    let k = dx.unsigned_abs().min(n);
    if r == y {
        // Along the row: each pixel after its neighbour, in the order that has it first.
        let row = &mut steps[y * n..(y + 1) * n];
        if dx < 0 {
            for x in 0..n {
                row[x] = if x >= k {
                    one(set_row[x], row[x - k])
                } else {
                    edge(set_row[x])
                };
            }
        } else {
            for x in (0..n).rev() {
                row[x] = if x + k < n {
                    one(set_row[x], row[x + k])
                } else {
                    edge(set_row[x])
                };
            }
        }
        return;
    }
    let (from, row) = if r < y {
        let (a, b) = steps.split_at_mut(y * n);
        (&a[r * n..(r + 1) * n], &mut b[..n])
    } else {
        let (a, b) = steps.split_at_mut(r * n);
        (&b[..n], &mut a[y * n..(y + 1) * n])
    };
    // The neighbour row moved k places: pixel x takes its x - k (left) or x + k (right).
    let (take, none) = if dx < 0 {
        (k..n, 0..k)
    } else {
        (0..n - k, n - k..n)
    };
    let shift = |x: usize| if dx < 0 { x - k } else { x + k };
    let from = &from[shift(take.start)..][..take.len()];
    for ((s, &on), &f) in row[take.clone()].iter_mut().zip(&set_row[take]).zip(from) {
        *s = one(on, f);
    }
    for (s, &on) in row[none.clone()].iter_mut().zip(&set_row[none]) {
        *s = edge(on);
    }
}

/// One step of erosion (`erode`: a pixel stays when it and its four neighbours are set) or
/// dilation (a pixel is set when it or a neighbour is) of an n x n mask. Outside the mask
/// counts as neither: erosion ignores it, dilation gets nothing from it.
pub(super) fn morph(src: &[bool], n: usize, erode: bool) -> Vec<bool> {
    // Worked a whole row at a time (which vectorises): the row itself, then the rows above
    // and below it and itself shifted a pixel either way, each taken in (all, or any). What
    // lies outside changes nothing, so a row or a shift that would reach it is left out.
    let take = |out: &mut [bool], from: &[bool]| {
        for (o, &f) in out.iter_mut().zip(from) {
            *o = if erode { *o & f } else { *o | f };
        }
    };
    let mut out = src.to_vec();
    for y in 0..n {
        let row = &src[y * n..(y + 1) * n];
        let o = &mut out[y * n..(y + 1) * n];
        if y > 0 {
            take(o, &src[(y - 1) * n..y * n]);
        }
        if y + 1 < n {
            take(o, &src[(y + 1) * n..(y + 2) * n]);
        }
        if n > 1 {
            take(&mut o[1..], &row[..n - 1]);
            take(&mut o[..n - 1], &row[1..]);
        }
    }
    out
}

/// `morph` applied `times` times.
pub(super) fn morphed(mask: &[bool], n: usize, erode: bool, times: usize) -> Vec<bool> {
    if times == 0 {
        return mask.to_vec();
    }
    let mut out = morph(mask, n, erode);
    for _ in 1..times {
        out = morph(&out, n, erode);
    }
    out
}

/// `mask` eroded twice then dilated twice: what is thinner than about five pixels goes.
pub(super) fn open_twice(mask: &[bool], n: usize) -> Vec<bool> {
    morphed(&morphed(mask, n, true, 2), n, false, 2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scramblebot_core::sample::Rng;

    /// A random n x n mask, n from 1 to `most`, of a random density (0-100%).
    fn random_mask(rng: &mut Rng, most: usize) -> (usize, Vec<bool>) {
        let n = 1 + rng.below(most);
        let density = rng.below(101);
        (n, (0..n * n).map(|_| rng.below(100) < density).collect())
    }

    /// A pixel is sandwiched when it is set, or when set pixels lie before and after it
    /// along a row, a column or a diagonal, at most `gap` steps apart in all: on random masks
    /// of every density, sizes from 1 up, gaps from 0 up.
    #[test]
    fn a_sandwiched_pixel_lies_between_set_pixels_near_enough() {
        let mut rng = Rng::new(0x7361_6e64_7769_6368);
        for case in 0..400 {
            let gap = rng.below(12) as u32;
            let (n, mask) = random_mask(&mut rng, 20);
            let set = |x: i64, y: i64| {
                (0..n as i64).contains(&x)
                    && (0..n as i64).contains(&y)
                    && mask[y as usize * n + x as usize]
            };
            let want: Vec<bool> = (0..n * n)
                .map(|p| {
                    let (x, y) = ((p % n) as i64, (p / n) as i64);
                    // The nearest set pixel k steps along (dx, dy), k from 1 to the gap.
                    let nearest = |dx: i64, dy: i64| {
                        (1..=i64::from(gap)).find(|&k| set(x + k * dx, y + k * dy))
                    };
                    mask[p]
                        || [(1, 0), (0, 1), (1, 1), (1, -1)]
                            .into_iter()
                            .any(|(dx, dy)| {
                                matches!(
                                    (nearest(-dx, -dy), nearest(dx, dy)),
                                    (Some(a), Some(b)) if a + b <= i64::from(gap)
                                )
                            })
                })
                .collect();
            assert_eq!(
                sandwiched(&mask, n, gap),
                want,
                "case {case}: n {n}, gap {gap}"
            );
        }
    }

    /// One step of erosion or dilation is its definition, pixel by pixel, on random masks of
    /// every density and sizes from 1 (where there are no neighbours) up.
    #[test]
    fn a_step_of_morphology_is_its_definition() {
        let mut rng = Rng::new(0x6d6f_7270_6800_0001);
        for _ in 0..400 {
            let (n, mask) = random_mask(&mut rng, 24);
            for erode in [true, false] {
                let want: Vec<bool> = (0..n * n)
                    .map(|p| {
                        let (x, y) = ((p % n) as i64, (p / n) as i64);
                        // The pixel and its four neighbours that lie on the mask.
                        let near = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]
                            .into_iter()
                            .map(|(dx, dy)| (x + dx, y + dy))
                            .filter(|&(a, b)| {
                                (0..n as i64).contains(&a) && (0..n as i64).contains(&b)
                            })
                            .map(|(a, b)| mask[b as usize * n + a as usize]);
                        if erode {
                            near.into_iter().all(|m| m)
                        } else {
                            near.into_iter().any(|m| m)
                        }
                    })
                    .collect();
                assert_eq!(morph(&mask, n, erode), want, "n {n}, erode {erode}");
            }
        }
    }
}
