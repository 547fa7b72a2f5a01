//! Trains the learned letter classifier (`src/vision/net.rs`) and writes its weights.
//!
//!     cargo run --release --example train_letters -- [--screens N] [--epochs E] [--out PATH]
//!
//! The glyphs are cut by the reader itself (grid finder, tile isolation, features) from
//! screens of the developed and classic corpora drawn in every upright heavy face under
//! /usr/share/fonts of no held-back family, no held-back kin and no second-generator family
//! (`corpus::training_faces`), so both measure the network on typefaces it never saw. Training screens use seed 1000, validation screens
//! seed 1001; a tile whose glyph the reader cannot cut is left out. Deterministic: the same
//! fonts and arguments give the same file.

use std::path::PathBuf;

mod common;

use scramblebot::sample::Rng;
use scramblebot::vision::corpus::{load_named, training_faces, wide::HELD_BACK_FACES};
use scramblebot::vision::glyph::INPUTS;
use scramblebot::vision::net::{HIDDEN, Net, OUTPUTS, softmax};

type Example = ([f32; INPUTS], u8);

/// The glyphs the reader cuts from `count` screens of each training corpus with `seed`.
fn glyphs(faces: &[scramblebot::vision::corpus::Face], seed: u64, count: u64) -> Vec<Example> {
    let mut out = Vec::new();
    common::cut_glyphs(faces, seed, count, |_, features, tile| {
        if let Some(f) = features {
            out.push((f.vector(), tile));
        }
    });
    out
}

fn gaussian(rng: &mut Rng) -> f32 {
    let u = |rng: &mut Rng| ((rng.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    let (a, b) = (u(rng), u(rng));
    ((-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()) as f32
}

fn accuracy(net: &Net, data: &[Example]) -> (f64, f64) {
    let (mut right, mut loss) = (0usize, 0f64);
    for (x, y) in data {
        let (_, _, logits) = net.forward(x);
        let p = softmax(&logits, &[]);
        let best = (0..OUTPUTS)
            .max_by(|&a, &b| p[a].total_cmp(&p[b]))
            .unwrap_or(0);
        right += usize::from(best == *y as usize);
        loss -= f64::from(p[*y as usize].max(1e-9)).ln();
    }
    let n = data.len().max(1) as f64;
    (right as f64 / n, loss / n)
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: &str| common::flag(&args, name, default);
    let screens: u64 = value("--screens", "1500")
        .parse()
        .map_err(|e| format!("--screens: {e}"))?;
    let epochs: usize = value("--epochs", "30")
        .parse()
        .map_err(|e| format!("--epochs: {e}"))?;
    let out = PathBuf::from(value("--out", "src/vision/letters.net"));
    let fonts = PathBuf::from(value("--fonts", "/usr/share/fonts"));

    let names = training_faces(&fonts);
    for held in HELD_BACK_FACES {
        if names.iter().any(|n| n == held) {
            return Err(format!("{held} is held back but would be trained on"));
        }
    }
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let faces = load_named(&fonts, &refs);
    if faces.is_empty() {
        return Err(format!("no training typefaces under {}", fonts.display()));
    }
    eprintln!("{} training typefaces: {}", faces.len(), names.join(" "));
    let train = glyphs(&faces, 1000, screens);
    let valid = glyphs(&faces, 1001, screens / 5);
    eprintln!(
        "{} training glyphs, {} validation glyphs",
        train.len(),
        valid.len()
    );

    let mut net = Net::zeros();
    for i in 0..INPUTS {
        let n = train.len().max(1) as f64;
        let mean = train.iter().map(|e| f64::from(e.0[i])).sum::<f64>() / n;
        let var = train
            .iter()
            .map(|e| (f64::from(e.0[i]) - mean).powi(2))
            .sum::<f64>()
            / n;
        net.mean[i] = mean as f32;
        net.scale[i] = (1.0 / (var.sqrt() + 1e-3)) as f32;
    }
    let mut rng = Rng::new(7);
    let s1 = (2.0 / INPUTS as f32).sqrt();
    net.w1.iter_mut().for_each(|w| *w = gaussian(&mut rng) * s1);
    let s2 = (1.0 / HIDDEN as f32).sqrt();
    net.w2.iter_mut().for_each(|w| *w = gaussian(&mut rng) * s2);

    let mut adam = [
        common::Adam::new(net.w1.len()),
        common::Adam::new(HIDDEN),
        common::Adam::new(net.w2.len()),
        common::Adam::new(OUTPUTS),
    ];
    const BATCH: usize = 64;
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut t = 0;
    for epoch in 0..epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let lr = 1e-3 * 0.5 * (1.0 + (std::f32::consts::PI * epoch as f32 / epochs as f32).cos());
        for batch in order.chunks(BATCH) {
            let mut g1 = vec![0f32; net.w1.len()];
            let mut gb1 = [0f32; HIDDEN];
            let mut g2 = vec![0f32; net.w2.len()];
            let mut gb2 = [0f32; OUTPUTS];
            for &k in batch {
                let (x, y) = &train[k];
                let (xn, h, logits) = net.forward(x);
                let mut d = softmax(&logits, &[]);
                d[*y as usize] -= 1.0;
                let mut dh = [0f32; HIDDEN];
                for (o, &dk) in d.iter().enumerate() {
                    gb2[o] += dk;
                    let row = &mut g2[o * HIDDEN..(o + 1) * HIDDEN];
                    for j in 0..HIDDEN {
                        row[j] += dk * h[j];
                        dh[j] += dk * net.w2[o * HIDDEN + j];
                    }
                }
                for j in 0..HIDDEN {
                    if h[j] <= 0.0 {
                        continue;
                    }
                    gb1[j] += dh[j];
                    let row = &mut g1[j * INPUTS..(j + 1) * INPUTS];
                    for (g, &xi) in row.iter_mut().zip(&xn) {
                        *g += dh[j] * xi;
                    }
                }
            }
            let n = batch.len() as f32;
            for g in [&mut g1[..], &mut gb1[..], &mut g2[..], &mut gb2[..]] {
                g.iter_mut().for_each(|v| *v /= n);
            }
            t += 1;
            adam[0].step(&mut net.w1, &g1, lr, t, 1e-4);
            adam[1].step(&mut net.b1, &gb1, lr, t, 0.0);
            adam[2].step(&mut net.w2, &g2, lr, t, 1e-4);
            adam[3].step(&mut net.b2, &gb2, lr, t, 0.0);
        }
        let (ta, tl) = accuracy(&net, &train);
        let (va, vl) = accuracy(&net, &valid);
        eprintln!(
            "epoch {:>2}: train {:.2}% (loss {tl:.3}), validation {:.2}% (loss {vl:.3})",
            epoch + 1,
            100.0 * ta,
            100.0 * va
        );
    }
    std::fs::write(&out, net.to_bytes()).map_err(|e| format!("{}: {e}", out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
