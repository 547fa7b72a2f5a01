//! A small learned letter classifier beside the nearest-reference one: a network of one hidden
//! layer (`HIDDEN` rectified units) from a glyph's `Features::vector` to the 26 tiles, trained
//! by `examples/train_letters.rs` on glyphs the reader itself cut from generated screens in
//! typefaces of no held-back family (so the held-back figures stay honest), its weights kept
//! in `letters.net` and built into the binary.
//!
//! The file: the bytes `SBLN`, then little-endian u32s (inputs, hidden units, outputs), then
//! little-endian f32s: the inputs' means and scales, the hidden layer's weights (row per unit)
//! and biases, the output layer's weights (row per tile) and biases.

use std::sync::LazyLock;

use super::features::{Features, INPUTS};

/// Hidden units.
pub const HIDDEN: usize = 64;
/// One output per tile (0-25, `glyph::QU` for Qu).
pub const OUTPUTS: usize = 26;
const MAGIC: &[u8; 4] = b"SBLN";

/// The network's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// Subtracted from each input, then multiplied by `scale`.
    pub mean: Vec<f32>,
    pub scale: Vec<f32>,
    /// `HIDDEN` x `INPUTS`, row-major.
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    /// `OUTPUTS` x `HIDDEN`, row-major.
    pub w2: Vec<f32>,
    pub b2: Vec<f32>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum NetError {
    #[error("not a letter network file (it must start with SBLN)")]
    Magic,
    #[error("the network is {0}x{1}x{2}; this build reads {INPUTS}x{HIDDEN}x{OUTPUTS}")]
    Shape(u32, u32, u32),
    #[error("the network file is {0} bytes; its shape needs {1}")]
    Length(usize, usize),
    #[error("the network holds a number that is not finite")]
    NotFinite,
}

static BUILT_IN: LazyLock<Option<Net>> =
    LazyLock::new(|| Net::from_bytes(include_bytes!("letters.net")).ok());

/// The sizes of the parameter blocks, in file order.
const BLOCKS: [usize; 6] = [
    INPUTS,
    INPUTS,
    HIDDEN * INPUTS,
    HIDDEN,
    OUTPUTS * HIDDEN,
    OUTPUTS,
];

impl Net {
    /// The network built into the binary (`None` if its file does not parse: a test checks
    /// it does).
    pub fn built_in() -> Option<&'static Net> {
        BUILT_IN.as_ref()
    }

    /// All parameters zero but the scales (one): the start of training.
    pub fn zeros() -> Net {
        Net {
            mean: vec![0.0; INPUTS],
            scale: vec![1.0; INPUTS],
            w1: vec![0.0; HIDDEN * INPUTS],
            b1: vec![0.0; HIDDEN],
            w2: vec![0.0; OUTPUTS * HIDDEN],
            b2: vec![0.0; OUTPUTS],
        }
    }

    pub fn from_bytes(b: &[u8]) -> Result<Net, NetError> {
        if b.len() < 16 || &b[..4] != MAGIC {
            return Err(NetError::Magic);
        }
        let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let (i, h, o) = (word(4), word(8), word(12));
        if (i as usize, h as usize, o as usize) != (INPUTS, HIDDEN, OUTPUTS) {
            return Err(NetError::Shape(i, h, o));
        }
        let need = 16 + 4 * BLOCKS.iter().sum::<usize>();
        if b.len() != need {
            return Err(NetError::Length(b.len(), need));
        }
        let mut floats = b[16..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        let mut block = |n: usize| -> Vec<f32> { floats.by_ref().take(n).collect() };
        let net = Net {
            mean: block(BLOCKS[0]),
            scale: block(BLOCKS[1]),
            w1: block(BLOCKS[2]),
            b1: block(BLOCKS[3]),
            w2: block(BLOCKS[4]),
            b2: block(BLOCKS[5]),
        };
        if net
            .blocks()
            .iter()
            .any(|b| b.iter().any(|v| !v.is_finite()))
        {
            return Err(NetError::NotFinite);
        }
        Ok(net)
    }

    fn blocks(&self) -> [&[f32]; 6] {
        [
            &self.mean,
            &self.scale,
            &self.w1,
            &self.b1,
            &self.w2,
            &self.b2,
        ]
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for d in [INPUTS, HIDDEN, OUTPUTS] {
            out.extend_from_slice(&(d as u32).to_le_bytes());
        }
        for block in self.blocks() {
            for v in block {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// The inputs normalised, the hidden units' activations and the outputs' logits.
    pub fn forward(&self, v: &[f32; INPUTS]) -> ([f32; INPUTS], [f32; HIDDEN], [f32; OUTPUTS]) {
        let x: [f32; INPUTS] = std::array::from_fn(|i| (v[i] - self.mean[i]) * self.scale[i]);
        let h: [f32; HIDDEN] = std::array::from_fn(|j| {
            let row = &self.w1[j * INPUTS..(j + 1) * INPUTS];
            let z = self.b1[j] + row.iter().zip(&x).map(|(w, x)| w * x).sum::<f32>();
            z.max(0.0)
        });
        let logits: [f32; OUTPUTS] = std::array::from_fn(|k| {
            let row = &self.w2[k * HIDDEN..(k + 1) * HIDDEN];
            self.b2[k] + row.iter().zip(&h).map(|(w, h)| w * h).sum::<f32>()
        });
        (x, h, logits)
    }

    /// The chance of each tile, among `allowed` (all when empty; the others get 0).
    pub fn probabilities(&self, glyph: &Features, allowed: &[u8]) -> [f32; OUTPUTS] {
        let (_, _, logits) = self.forward(&glyph.vector());
        softmax(&logits, allowed)
    }
}

/// Softmax of `logits` over `allowed` (all when empty).
pub fn softmax(logits: &[f32; OUTPUTS], allowed: &[u8]) -> [f32; OUTPUTS] {
    let ok = |k: usize| allowed.is_empty() || allowed.contains(&(k as u8));
    let top = (0..OUTPUTS)
        .filter(|&k| ok(k))
        .map(|k| logits[k])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut p: [f32; OUTPUTS] =
        std::array::from_fn(|k| if ok(k) { (logits[k] - top).exp() } else { 0.0 });
    let sum: f32 = p.iter().sum();
    if sum > 0.0 {
        for v in &mut p {
            *v /= sum;
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_network_parses_and_its_bytes_round_trip() {
        let net = Net::built_in().expect("letters.net parses");
        assert_eq!(Net::from_bytes(&net.to_bytes()).as_ref(), Ok(net));
        let mut bytes = net.to_bytes();
        bytes.pop();
        assert!(matches!(Net::from_bytes(&bytes), Err(NetError::Length(..))));
        bytes.truncate(10);
        assert_eq!(Net::from_bytes(&bytes), Err(NetError::Magic));
        let mut nan = Net::zeros();
        nan.b2[3] = f32::NAN;
        assert_eq!(Net::from_bytes(&nan.to_bytes()), Err(NetError::NotFinite));
    }

    #[test]
    fn softmax_keeps_to_the_allowed_tiles() {
        let mut logits = [0f32; OUTPUTS];
        logits[5] = 10.0;
        let p = softmax(&logits, &[1, 2]);
        assert_eq!(p[5], 0.0);
        assert!((p[1] - 0.5).abs() < 1e-6 && (p[1] + p[2] - 1.0).abs() < 1e-6);
        let all = softmax(&logits, &[]);
        assert!(all[5] > 0.99);
    }
}
