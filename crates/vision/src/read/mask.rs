//! Morphology on square masks (n x n, row-major): filling between pixels, erosion and
//! dilation.

/// `set` and every pixel that lies between two set pixels at most `gap` steps apart along a
/// row, a column or a diagonal.
pub(super) fn sandwiched(set: &[bool], n: usize, gap: u32) -> Vec<bool> {
    let mut out = set.to_vec();
    let far = u32::MAX / 4;
    // Steps from the nearest set pixel before (`back`) and after (`ahead`) along a direction.
    let (mut back, mut ahead) = (vec![far; n * n], vec![far; n * n]);
    let side = 0..n as i32;
    for (dx, dy) in [(1i32, 0i32), (0, 1), (1, 1), (1, -1)] {
        // The pixel `k` steps along the direction from (x, y), if on the crop.
        let along = |x: usize, y: usize, k: i32| {
            let (px, py) = (x as i32 + k * dx, y as i32 + k * dy);
            (side.contains(&px) && side.contains(&py)).then(|| py as usize * n + px as usize)
        };
        // Row order such that a pixel's predecessor is done before it (for dy = -1 it lies in
        // the row below); successors in the reverse order.
        let row = |i: usize| if dy < 0 { n - 1 - i } else { i };
        for i in 0..n {
            let y = row(i);
            for x in 0..n {
                let p = y * n + x;
                back[p] = if set[p] {
                    0
                } else {
                    along(x, y, -1).map_or(far, |q| back[q] + 1)
                };
            }
        }
        for i in (0..n).rev() {
            let y = row(i);
            for x in (0..n).rev() {
                let p = y * n + x;
                ahead[p] = if set[p] {
                    0
                } else {
                    along(x, y, 1).map_or(far, |q| ahead[q] + 1)
                };
            }
        }
        for p in 0..n * n {
            if back[p] + ahead[p] <= gap {
                out[p] = true;
            }
        }
    }
    out
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

    /// One step of erosion or dilation is its definition, pixel by pixel, on random masks of
    /// every density and sizes from 1 (where there are no neighbours) up.
    #[test]
    fn a_step_of_morphology_is_its_definition() {
        let mut rng = Rng::new(0x6d6f_7270_6800_0001);
        for _ in 0..400 {
            let n = 1 + rng.below(24);
            let density = rng.below(101);
            let mask: Vec<bool> = (0..n * n).map(|_| rng.below(100) < density).collect();
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
