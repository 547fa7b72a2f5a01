//! A small convolutional letter classifier on a glyph's pixels, beside the nearest-reference
//! reader and its network on hand-made features (issue 37, item 2). The glyph's ink box is
//! fitted, its proportions kept, into a `SIDE` x `SIDE` square; three 3x3 convolutions (8, 16
//! and 32 maps, each rectified and halved by a 2x2 max pool) and two dense layers (`HIDDEN`
//! rectified units, then the 26 tiles) give a probability per tile. About 0.4 million
//! multiply-adds a glyph.
//!
//! Measured against the nearest-reference reader on the second generator's glyphs it reads
//! fewer right (97.5% against 99.7-99.9%) and is sure of wrong ones (docs/vision.md), so the
//! reader does not use it; `examples/train_cnn.rs` trains and measures it.
//!
//! Training lives here too (`Cnn::gradient`, the exact gradient of the cross-entropy, checked
//! against finite differences in the tests), so that `examples/train_cnn.rs` needs no crate
//! beyond the project's own.
//!
//! The weights' file: the bytes `SBCN`, a little-endian u32 count, then that many
//! little-endian f32s in `Cnn::params` order.

use super::features::Ink;

/// The input square's side, in pixels.
pub const SIDE: usize = 24;
/// One output per tile (0-25, `glyph::QU` for Qu).
pub const OUTPUTS: usize = 26;
/// Units of the first dense layer.
pub const HIDDEN: usize = 64;
/// Maps of the three convolutions.
const MAPS: [usize; 3] = [8, 16, 32];
/// The last pool's side: `SIDE` halved three times.
const LAST: usize = SIDE / 8;
const FLAT: usize = MAPS[2] * LAST * LAST;
const MAGIC: &[u8; 4] = b"SBCN";

/// Where each parameter block starts in `Cnn::params`, and the total.
struct Layout {
    conv_w: [usize; 3],
    conv_b: [usize; 3],
    fc1_w: usize,
    fc1_b: usize,
    fc2_w: usize,
    fc2_b: usize,
    len: usize,
}

const fn layout() -> Layout {
    let mut at = 0;
    let mut conv_w = [0; 3];
    let mut conv_b = [0; 3];
    let mut inputs = 1;
    let mut k = 0;
    while k < 3 {
        conv_w[k] = at;
        at += MAPS[k] * inputs * 9;
        conv_b[k] = at;
        at += MAPS[k];
        inputs = MAPS[k];
        k += 1;
    }
    let fc1_w = at;
    at += HIDDEN * FLAT;
    let fc1_b = at;
    at += HIDDEN;
    let fc2_w = at;
    at += OUTPUTS * HIDDEN;
    let fc2_b = at;
    at += OUTPUTS;
    Layout {
        conv_w,
        conv_b,
        fc1_w,
        fc1_b,
        fc2_w,
        fc2_b,
        len: at,
    }
}

const L: Layout = layout();

/// The number of parameters.
pub const PARAMS: usize = L.len;

/// A glyph as the network takes it: `SIDE` x `SIDE` ink amounts, row-major.
pub type Input = [f32; SIDE * SIDE];

/// The network's parameters, in one block.
#[derive(Clone, Debug, PartialEq)]
pub struct Cnn {
    pub params: Vec<f32>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CnnError {
    #[error("not a convolutional network file (it must start with SBCN)")]
    Magic,
    #[error("the network has {0} parameters; this build's has {PARAMS}")]
    Shape(usize),
    #[error("the network file is {0} bytes; its count needs {1}")]
    Length(usize, usize),
    #[error("the network holds a number that is not finite")]
    NotFinite,
}

/// What a forward pass keeps for the backward one.
struct Trace {
    /// Each convolution's input (the glyph, then the pools' outputs) and its rectified output.
    conv_in: [Vec<f32>; 3],
    conv_out: [Vec<f32>; 3],
    /// For each pool output, the index of the input it took.
    pool_from: [Vec<u32>; 3],
    flat: Vec<f32>,
    hidden: Vec<f32>,
    logits: [f32; OUTPUTS],
}

/// A 3x3 convolution of `maps_in` maps of side `n` (zero beyond the edge), rectified.
fn conv(input: &[f32], (maps_in, n): (usize, usize), w: &[f32], b: &[f32]) -> Vec<f32> {
    let maps_out = b.len();
    let mut out = vec![0f32; maps_out * n * n];
    for o in 0..maps_out {
        let plane = &mut out[o * n * n..(o + 1) * n * n];
        plane.fill(b[o]);
        for i in 0..maps_in {
            let src = &input[i * n * n..(i + 1) * n * n];
            for ky in 0..3 {
                for kx in 0..3 {
                    let k = w[(o * maps_in + i) * 9 + ky * 3 + kx];
                    for y in 0..n {
                        let sy = y as isize + ky as isize - 1;
                        if sy < 0 || sy >= n as isize {
                            continue;
                        }
                        let row = &src[sy as usize * n..(sy as usize + 1) * n];
                        let dst = &mut plane[y * n..(y + 1) * n];
                        // Output x reads input x + kx - 1.
                        let (x0, x1) = (usize::from(kx == 0), n - usize::from(kx == 2));
                        for x in x0..x1 {
                            dst[x] += k * row[x + kx - 1];
                        }
                    }
                }
            }
        }
    }
    for v in &mut out {
        *v = v.max(0.0);
    }
    out
}

/// The gradients of `conv` (given its input, its rectified output and the loss's gradient
/// at that output): added to `dw` and `db`, and the gradient at the input returned.
fn conv_back(
    input: &[f32],
    (maps_in, n): (usize, usize),
    w: &[f32],
    out: &[f32],
    dout: &[f32],
    dw: &mut [f32],
    db: &mut [f32],
) -> Vec<f32> {
    let maps_out = db.len();
    let mut din = vec![0f32; maps_in * n * n];
    let g: Vec<f32> = dout
        .iter()
        .zip(out)
        .map(|(&d, &o)| if o > 0.0 { d } else { 0.0 })
        .collect();
    for o in 0..maps_out {
        let go = &g[o * n * n..(o + 1) * n * n];
        db[o] += go.iter().sum::<f32>();
        for i in 0..maps_in {
            let src = &input[i * n * n..(i + 1) * n * n];
            let back = &mut din[i * n * n..(i + 1) * n * n];
            for ky in 0..3 {
                for kx in 0..3 {
                    let at = (o * maps_in + i) * 9 + ky * 3 + kx;
                    let k = w[at];
                    let mut acc = 0f32;
                    for y in 0..n {
                        let sy = y as isize + ky as isize - 1;
                        if sy < 0 || sy >= n as isize {
                            continue;
                        }
                        let sy = sy as usize;
                        let (x0, x1) = (usize::from(kx == 0), n - usize::from(kx == 2));
                        let grow = &go[y * n..(y + 1) * n];
                        let srow = &src[sy * n..(sy + 1) * n];
                        let brow = &mut back[sy * n..(sy + 1) * n];
                        for x in x0..x1 {
                            acc += grow[x] * srow[x + kx - 1];
                            brow[x + kx - 1] += grow[x] * k;
                        }
                    }
                    dw[at] += acc;
                }
            }
        }
    }
    din
}

/// 2x2 max pooling of `maps` maps of side `n`: the pooled maps and where each value came from.
fn pool(input: &[f32], maps: usize, n: usize) -> (Vec<f32>, Vec<u32>) {
    let h = n / 2;
    let mut out = vec![0f32; maps * h * h];
    let mut from = vec![0u32; maps * h * h];
    for m in 0..maps {
        for y in 0..h {
            for x in 0..h {
                let mut best = (f32::NEG_INFINITY, 0usize);
                for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    let at = m * n * n + (2 * y + dy) * n + 2 * x + dx;
                    if input[at] > best.0 {
                        best = (input[at], at);
                    }
                }
                let o = m * h * h + y * h + x;
                out[o] = best.0;
                from[o] = best.1 as u32;
            }
        }
    }
    (out, from)
}

/// A dense layer: `w` holds a row of `input.len()` weights per output.
fn dense(input: &[f32], w: &[f32], b: &[f32]) -> Vec<f32> {
    b.iter()
        .enumerate()
        .map(|(o, &bias)| {
            let row = &w[o * input.len()..(o + 1) * input.len()];
            bias + row.iter().zip(input).map(|(a, b)| a * b).sum::<f32>()
        })
        .collect()
}

/// The gradients of `dense`: added to `dw` and `db`; the gradient at its input returned.
fn dense_back(input: &[f32], w: &[f32], dout: &[f32], dw: &mut [f32], db: &mut [f32]) -> Vec<f32> {
    let n = input.len();
    let mut din = vec![0f32; n];
    for (o, &d) in dout.iter().enumerate() {
        if d == 0.0 {
            continue;
        }
        db[o] += d;
        let row = &w[o * n..(o + 1) * n];
        let drow = &mut dw[o * n..(o + 1) * n];
        for j in 0..n {
            drow[j] += d * input[j];
            din[j] += d * row[j];
        }
    }
    din
}

/// Probabilities from logits.
pub fn softmax(logits: &[f32; OUTPUTS]) -> [f32; OUTPUTS] {
    let top = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let e: [f32; OUTPUTS] = std::array::from_fn(|t| (logits[t] - top).exp());
    let sum: f32 = e.iter().sum();
    e.map(|v| v / sum)
}

impl Cnn {
    /// A network with small random weights drawn from `next` (uniform in 0..1), scaled for
    /// each layer's fan-in.
    pub fn random(mut next: impl FnMut() -> f32) -> Cnn {
        let mut params = vec![0f32; PARAMS];
        let mut fill = |from: usize, count: usize, fan_in: usize| {
            let scale = (6.0 / fan_in as f32).sqrt();
            for p in &mut params[from..from + count] {
                *p = (next() * 2.0 - 1.0) * scale;
            }
        };
        let mut inputs = 1;
        for (&at, &maps) in L.conv_w.iter().zip(&MAPS) {
            fill(at, maps * inputs * 9, inputs * 9);
            inputs = maps;
        }
        fill(L.fc1_w, HIDDEN * FLAT, FLAT);
        fill(L.fc2_w, OUTPUTS * HIDDEN, HIDDEN);
        Cnn { params }
    }

    fn forward(&self, input: &Input) -> Trace {
        let p = &self.params;
        let mut x = input.to_vec();
        let mut n = SIDE;
        let mut maps_in = 1;
        let mut conv_in: [Vec<f32>; 3] = Default::default();
        let mut conv_out: [Vec<f32>; 3] = Default::default();
        let mut pool_from: [Vec<u32>; 3] = Default::default();
        for k in 0..3 {
            let w = &p[L.conv_w[k]..L.conv_b[k]];
            let b = &p[L.conv_b[k]..L.conv_b[k] + MAPS[k]];
            let y = conv(&x, (maps_in, n), w, b);
            let (pooled, from) = pool(&y, MAPS[k], n);
            conv_in[k] = std::mem::replace(&mut x, pooled);
            conv_out[k] = y;
            pool_from[k] = from;
            maps_in = MAPS[k];
            n /= 2;
        }
        let flat = x;
        let mut hidden = dense(&flat, &p[L.fc1_w..L.fc1_b], &p[L.fc1_b..L.fc2_w]);
        for h in &mut hidden {
            *h = h.max(0.0);
        }
        let out = dense(&hidden, &p[L.fc2_w..L.fc2_b], &p[L.fc2_b..L.len]);
        let logits = std::array::from_fn(|t| out[t]);
        Trace {
            conv_in,
            conv_out,
            pool_from,
            flat,
            hidden,
            logits,
        }
    }

    /// The probability of each tile.
    pub fn probabilities(&self, input: &Input) -> [f32; OUTPUTS] {
        softmax(&self.forward(input).logits)
    }

    /// The cross-entropy of `input` against `tile`, with its gradient added to `grad` (as
    /// long as `params`).
    pub fn gradient(&self, input: &Input, tile: u8, grad: &mut [f32]) -> f32 {
        let p = &self.params;
        let t = self.forward(input);
        let probs = softmax(&t.logits);
        let loss = -probs[tile as usize].max(1e-12).ln();
        let mut dlogits = probs;
        dlogits[tile as usize] -= 1.0;
        let (head, fc2_b) = grad.split_at_mut(L.fc2_b);
        let (head, fc2_w) = head.split_at_mut(L.fc2_w);
        let mut dhidden = dense_back(&t.hidden, &p[L.fc2_w..L.fc2_b], &dlogits, fc2_w, fc2_b);
        for (d, &h) in dhidden.iter_mut().zip(&t.hidden) {
            if h <= 0.0 {
                *d = 0.0;
            }
        }
        let (head, fc1_b) = head.split_at_mut(L.fc1_b);
        let fc1_w = &mut head[L.fc1_w..];
        let mut dx = dense_back(&t.flat, &p[L.fc1_w..L.fc1_b], &dhidden, fc1_w, fc1_b);
        let mut n = LAST * 2;
        for k in (0..3).rev() {
            // Through the pool: each pooled value's gradient goes to the input it took.
            let mut dconv = vec![0f32; MAPS[k] * n * n];
            for (o, &from) in t.pool_from[k].iter().enumerate() {
                dconv[from as usize] += dx[o];
            }
            let maps_in = if k == 0 { 1 } else { MAPS[k - 1] };
            let (wb, rest) = grad[L.conv_w[k]..].split_at_mut(L.conv_b[k] - L.conv_w[k]);
            dx = conv_back(
                &t.conv_in[k],
                (maps_in, n),
                &p[L.conv_w[k]..L.conv_b[k]],
                &t.conv_out[k],
                &dconv,
                wb,
                &mut rest[..MAPS[k]],
            );
            n *= 2;
        }
        loss
    }

    /// The network from its file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Cnn, CnnError> {
        let body = bytes.strip_prefix(MAGIC).ok_or(CnnError::Magic)?;
        let count = body
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or(CnnError::Length(bytes.len(), 8))?;
        if count != PARAMS {
            return Err(CnnError::Shape(count));
        }
        let need = 8 + 4 * count;
        if bytes.len() != need {
            return Err(CnnError::Length(bytes.len(), need));
        }
        let params: Vec<f32> = body[4..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if !params.iter().all(|v| v.is_finite()) {
            return Err(CnnError::NotFinite);
        }
        Ok(Cnn { params })
    }

    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend((self.params.len() as u32).to_le_bytes());
        for v in &self.params {
            out.extend(v.to_le_bytes());
        }
        out
    }
}

/// The network's input for a glyph: its ink box (where ink reaches half), proportions kept,
/// scaled so that its longer side spans `SIDE` less a pixel each side, and centred. Each
/// pixel is the mean of 3x3 bilinear samples of the area it covers. `None` without ink.
pub fn input(ink: &Ink) -> Option<Input> {
    let (x0, y0, x1, y1) = ink.ink_box()?;
    input_of_box(ink, (x0 as f32, y0 as f32, x1 as f32, y1 as f32))
}

/// `input` with the glyph's box given (in the ink's pixels; training jitters it).
pub fn input_of_box(ink: &Ink, (x0, y0, x1, y1): (f32, f32, f32, f32)) -> Option<Input> {
    let (bw, bh) = (x1 - x0, y1 - y0);
    if bw <= 0.0 || bh <= 0.0 {
        return None;
    }
    let span = (SIDE - 2) as f32;
    let scale = bw.max(bh) / span;
    // The box's centre sits on the square's.
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let half = SIDE as f32 / 2.0;
    let mut out = [0f32; SIDE * SIDE];
    for y in 0..SIDE {
        for x in 0..SIDE {
            let mut s = 0.0;
            for sy in 0..3 {
                for sx in 0..3 {
                    let u = x as f32 + (sx as f32 + 0.5) / 3.0 - half;
                    let v = y as f32 + (sy as f32 + 0.5) / 3.0 - half;
                    s += ink.bilinear(cx + u * scale - 0.5, cy + v * scale - 0.5);
                }
            }
            out[y * SIDE + x] = s / 9.0;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: u64) -> impl FnMut() -> f32 {
        let mut r = crate::sample::Rng::new(seed);
        move || ((r.next_u64() >> 40) as f32) / (1u64 << 24) as f32
    }

    #[test]
    fn the_gradient_is_the_losss_slope() {
        // Finite differences on parameters of every block agree with the backward pass. On a
        // blank area every unit sits exactly on its rectifier's kink (the biases start at
        // zero): the input is ink everywhere, and the biases are moved off zero.
        let mut net = Cnn::random(rng(7));
        let mut next = rng(8);
        for p in &mut net.params {
            *p += 0.05 * (next() - 0.5);
        }
        let mut next = rng(3);
        let x: Input = std::array::from_fn(|_| next());
        let mut grad = vec![0f32; PARAMS];
        net.gradient(&x, 5, &mut grad);
        let loss = |n: &Cnn| {
            let mut g = vec![0f32; PARAMS];
            f64::from(n.gradient(&x, 5, &mut g))
        };
        let blocks = [
            L.conv_w[0],
            L.conv_b[0],
            L.conv_w[1] + 17,
            L.conv_w[2] + 301,
            L.conv_b[2] + 3,
            L.fc1_w + 1000,
            L.fc1_b + 9,
            L.fc2_w + 77,
            L.fc2_b + 5,
        ];
        let mut checked = 0;
        for start in blocks {
            for (at, &exact) in grad.iter().enumerate().skip(start).take(4) {
                let h = 1e-3f32;
                let (mut up, mut down) = (net.clone(), net.clone());
                up.params[at] += h;
                down.params[at] -= h;
                let numeric = (loss(&up) - loss(&down)) / (2.0 * f64::from(h));
                let exact = f64::from(exact);
                // A rectifier's kink between the two points would make them differ: rare.
                let off = (numeric - exact).abs();
                assert!(
                    off <= 2e-3 + 0.05 * exact.abs(),
                    "parameter {at}: numeric {numeric}, backward {exact}"
                );
                checked += usize::from(exact.abs() > 1e-6);
            }
        }
        assert!(checked >= 12, "only {checked} gradients were not zero");
    }

    #[test]
    fn training_steps_lower_the_loss_and_learn_two_shapes() {
        // A bar and a ring, told apart after some plain gradient steps.
        let bar = input(&shape(|x, y| (8..12).contains(&x) && (2..30).contains(&y))).unwrap();
        let ring = input(&shape(|x, y| {
            let d = ((x as f32 - 15.5).powi(2) + (y as f32 - 15.5).powi(2)).sqrt();
            (9.0..14.0).contains(&d)
        }))
        .unwrap();
        let mut net = Cnn::random(rng(11));
        let first = net.probabilities(&bar)[1] + net.probabilities(&ring)[14];
        for _ in 0..60 {
            let mut grad = vec![0f32; PARAMS];
            net.gradient(&bar, 1, &mut grad);
            net.gradient(&ring, 14, &mut grad);
            for (p, g) in net.params.iter_mut().zip(&grad) {
                *p -= 0.05 * g;
            }
        }
        let (pb, pr) = (net.probabilities(&bar), net.probabilities(&ring));
        assert!(
            pb[1] > 0.9 && pr[14] > 0.9,
            "{} {} (from {first})",
            pb[1],
            pr[14]
        );
    }

    fn shape(inked: impl Fn(usize, usize) -> bool) -> Ink {
        let mut ink = Ink::new(32, 32);
        for y in 0..32 {
            for x in 0..32 {
                ink.v[y * 32 + x] = f32::from(u8::from(inked(x, y)));
            }
        }
        ink
    }

    #[test]
    fn a_glyph_keeps_its_proportions_and_sits_in_the_middle() {
        // A bar 4 wide and 28 tall: 22 pixels tall in the input, about 3 wide, centred.
        let x = input(&shape(|x, y| (8..12).contains(&x) && (2..30).contains(&y))).unwrap();
        let inked = |x0: usize, y0: usize| x[y0 * SIDE + x0] > 0.5;
        let rows = (0..SIDE).filter(|&y| inked(SIDE / 2, y)).count();
        let cols = (0..SIDE).filter(|&c| inked(c, SIDE / 2)).count();
        assert!((21..=23).contains(&rows), "{rows} rows");
        assert!((2..=4).contains(&cols), "{cols} columns");
        assert!(inked(SIDE / 2, SIDE / 2) || inked(SIDE / 2 - 1, SIDE / 2));
        assert_eq!(input(&Ink::new(5, 5)), None);
    }

    #[test]
    fn a_file_is_read_back_and_a_bad_one_refused() {
        let net = Cnn::random(rng(1));
        assert_eq!(Cnn::from_bytes(&net.to_bytes()), Ok(net.clone()));
        assert_eq!(Cnn::from_bytes(b"SBLN\0\0\0\0"), Err(CnnError::Magic));
        let mut short = net.to_bytes();
        short.truncate(100);
        assert!(matches!(
            Cnn::from_bytes(&short),
            Err(CnnError::Length(100, _))
        ));
        let mut nan = net.to_bytes();
        nan[8..12].copy_from_slice(&f32::NAN.to_le_bytes());
        assert_eq!(Cnn::from_bytes(&nan), Err(CnnError::NotFinite));
    }
}
