//! Trains the convolutional letter classifier (`src/vision/cnn.rs`), writes its weights, and
//! measures it against the reader's letters on screens of the second generator.
//!
//!     cargo run --release --example train_cnn -- [--screens N] [--epochs E] [--out PATH]
//!         [--second N] [--seed S] [--load PATH] [--dump PNG]
//!
//! The glyphs are cut by the reader itself (grid finder, tile isolation) from screens of the
//! developed and classic corpora drawn in every upright heavy face under /usr/share/fonts of
//! no held-back family and no second-generator family (`corpus::training_faces`), so both
//! measure the network on typefaces it never saw. Each glyph is kept as drawn and twice with
//! its box jittered (place, size and proportions, up to 12%), its strokes thickened or
//! thinned, and slanted by up to 0.15 either way. Training screens use seed 1000, validation
//! screens seed 1001. Then, with `--second N` (400 by default), every glyph the reader cuts
//! whole from N screens of the second generator (seed `--seed`, 1 by default) is read both
//! ways: how many tiles each gets right, and for the network how many it gets wrong at each
//! margin. `--load` measures a network written before instead of training one; `--dump`
//! draws the first 400 validation glyphs as the network is given them. Deterministic: the
//! same fonts and arguments give the same file.

use std::path::PathBuf;

mod common;

use scramblebot::sample::Rng;
use scramblebot::vision::cnn::{self, Cnn, Input, OUTPUTS, PARAMS, SIDE};
use scramblebot::vision::corpus::{Corpus, Face, load_named, training_faces};
use scramblebot::vision::features::Ink;
use scramblebot::vision::glyph::{Classifier, SURE};
use scramblebot::vision::{grid, read};

type Example = (Input, u8);

fn unit(rng: &mut Rng) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32
}

/// The glyph's ink thickened (`level` below 0.5) or thinned (above) by a 3x3 box blur cut
/// again at `level`.
fn reweighed(x: &Input, level: f32) -> Input {
    let n = SIDE as isize;
    std::array::from_fn(|i| {
        let (x0, y0) = ((i % SIDE) as isize, (i / SIDE) as isize);
        let mut s = 0.0;
        for dy in -1..=1 {
            for dx in -1..=1 {
                let (xx, yy) = (x0 + dx, y0 + dy);
                if xx >= 0 && yy >= 0 && xx < n && yy < n {
                    s += x[(yy * n + xx) as usize];
                }
            }
        }
        ((s / 9.0 - level) * 4.0 + 0.5).clamp(0.0, 1.0)
    })
}

/// The most a jittered glyph is slanted (horizontal shift per pixel of height).
const SLANT: f32 = 0.15;

/// The glyph slanted by `k` about its middle row (bilinear, none beyond the edge).
fn sheared(x: &Input, k: f32) -> Input {
    let at = |xx: isize, yy: usize| {
        if xx < 0 || xx >= SIDE as isize {
            0.0
        } else {
            x[yy * SIDE + xx as usize]
        }
    };
    std::array::from_fn(|i| {
        let (px, py) = (i % SIDE, i / SIDE);
        let sx = px as f32 + k * (py as f32 - SIDE as f32 / 2.0);
        let x0 = sx.floor();
        let f = sx - x0;
        at(x0 as isize, py) * (1.0 - f) + at(x0 as isize + 1, py) * f
    })
}

/// The glyph as drawn, and `extra` times with its box, weight and slant jittered.
fn variants(ink: &Ink, rng: &mut Rng, extra: usize) -> Vec<Input> {
    let Some((x0, y0, x1, y1)) = ink.ink_box() else {
        return Vec::new();
    };
    let (x0, y0, x1, y1) = (x0 as f32, y0 as f32, x1 as f32, y1 as f32);
    let mut out: Vec<Input> = cnn::input(ink).into_iter().collect();
    for _ in 0..extra {
        let (w, h) = (x1 - x0, y1 - y0);
        let mut j = |span: f32| (unit(rng) * 2.0 - 1.0) * 0.12 * span;
        let b = (x0 + j(w), y0 + j(h), x1 + j(w), y1 + j(h));
        if let Some(x) = cnn::input_of_box(ink, b) {
            let level = 0.35 + 0.3 * unit(rng);
            let slant = (unit(rng) * 2.0 - 1.0) * SLANT;
            out.push(sheared(&reweighed(&x, level), slant));
        }
    }
    out
}

/// The glyphs the reader cuts from `count` screens of each training corpus with `seed`: each
/// seen whole with its tile, and `extra` jittered copies.
fn glyphs(faces: &[Face], seed: u64, count: u64, extra: usize) -> Vec<Example> {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut out = Vec::new();
    common::cut_glyphs(faces, seed, count, |glyph, _, tile| {
        if let (Some(ink), None) = (&glyph.ink, &glyph.hidden) {
            for x in variants(ink, &mut rng, extra) {
                out.push((x, tile));
            }
        }
    });
    out
}

/// The summed gradient of `batch` over two threads, and the summed loss.
fn batch_gradient(net: &Cnn, batch: &[&Example]) -> (Vec<f32>, f32) {
    let half = batch.len().div_ceil(2);
    let parts: Vec<(Vec<f32>, f32)> = std::thread::scope(|s| {
        let handles: Vec<_> = batch
            .chunks(half.max(1))
            .map(|part| {
                s.spawn(move || {
                    let mut g = vec![0f32; PARAMS];
                    let loss: f32 = part.iter().map(|(x, y)| net.gradient(x, *y, &mut g)).sum();
                    (g, loss)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut g = vec![0f32; PARAMS];
    let mut loss = 0.0;
    for (pg, pl) in parts {
        for (a, b) in g.iter_mut().zip(pg) {
            *a += b;
        }
        loss += pl;
    }
    (g, loss)
}

fn accuracy(net: &Cnn, data: &[Example]) -> f64 {
    let right = data
        .iter()
        .filter(|(x, y)| best(&net.probabilities(x)).0 == *y)
        .count();
    right as f64 / data.len().max(1) as f64
}

/// The likeliest tile and its margin over the next.
fn best(p: &[f32; OUTPUTS]) -> (u8, f32) {
    let mut order: Vec<usize> = (0..OUTPUTS).collect();
    order.sort_by(|&a, &b| p[b].total_cmp(&p[a]));
    (order[0] as u8, p[order[0]] - p[order[1]])
}

/// Reads every glyph of `count` second-generator screens both ways and says how each did.
fn against_the_reader(net: &Cnn, fonts: &std::path::Path, seed: u64, count: u64) {
    let faces = load_named(fonts, Corpus::Second.face_names());
    let classifier = Classifier::built_in();
    let (mut tiles, mut reader_right, mut net_right, mut both_wrong) = (0, 0, 0, 0);
    let (mut reader_sure_wrong, mut reader_unsure) = (0, 0);
    // Glyphs the reader is unsure of that the network reads with a margin of 0.9, and how
    // many of those it reads wrong.
    let mut unsure_net_sure = (0, 0);
    let mut spent = std::time::Duration::ZERO;
    // Wrong and all, by the network's margin: at least 0.5, 0.8, 0.9, 0.95, 0.99.
    let margins = [0.5f32, 0.8, 0.9, 0.95, 0.99];
    let mut at = [(0usize, 0usize); 5];
    for i in 0..count {
        let s = Corpus::Second.sample(&faces, seed, i);
        let Some((truth, _)) = s.board else { continue };
        let Some(g) = grid::find(&s.image) else {
            continue;
        };
        for (k, &c) in g.centres.iter().enumerate() {
            let (glyph, features) = read::tile_features(&s.image, c, g.tile);
            let (Some(ink), Some(f)) = (&glyph.ink, features) else {
                continue;
            };
            if glyph.hidden.is_some() {
                continue;
            }
            let Some(x) = cnn::input(ink) else { continue };
            tiles += 1;
            let v = classifier.read_letter(&f, &[]);
            let r = v.is_some_and(|v| v.tile == truth[k]);
            reader_right += usize::from(r);
            let unsure = v.is_some_and(|v| v.confidence < SURE);
            reader_unsure += usize::from(unsure);
            reader_sure_wrong +=
                usize::from(v.is_some_and(|v| v.tile != truth[k] && v.confidence >= SURE));
            let started = std::time::Instant::now();
            let probabilities = net.probabilities(&x);
            spent += started.elapsed();
            let (t, margin) = best(&probabilities);
            net_right += usize::from(t == truth[k]);
            if unsure && margin >= 0.9 {
                unsure_net_sure.0 += 1;
                unsure_net_sure.1 += usize::from(t != truth[k]);
            }
            both_wrong += usize::from(!r && t != truth[k]);
            for (m, slot) in margins.iter().zip(&mut at) {
                if margin >= *m {
                    slot.0 += 1;
                    slot.1 += usize::from(t != truth[k]);
                }
            }
        }
    }
    let pct = |n: usize| 100.0 * n as f64 / tiles.max(1) as f64;
    println!(
        "second seed {seed}, {count} screens: {tiles} glyphs seen whole; reader right {reader_right} ({:.2}%, {reader_sure_wrong} wrong yet sure), network right {net_right} ({:.2}%), both wrong {both_wrong}",
        pct(reader_right),
        pct(net_right)
    );
    println!(
        "  the network's time: {:.3} ms a glyph, one thread",
        spent.as_secs_f64() * 1e3 / tiles.max(1) as f64
    );
    println!(
        "  reader unsure of {reader_unsure}; of those the network has {} at a margin >= 0.9, {} wrong",
        unsure_net_sure.0, unsure_net_sure.1
    );
    for (m, (n, wrong)) in margins.iter().zip(at) {
        println!(
            "  network margin >= {m}: {n} glyphs ({:.1}%), {wrong} wrong",
            pct(n)
        );
    }
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: &str| common::flag(&args, name, default);
    let number = |flag: &str, default: &str| -> Result<u64, String> {
        value(flag, default)
            .parse()
            .map_err(|e| format!("{flag}: {e}"))
    };
    let screens = number("--screens", "1500")?;
    let epochs = number("--epochs", "8")? as usize;
    let second = number("--second", "400")?;
    let seed = number("--seed", "1")?;
    let out = PathBuf::from(value("--out", "target/letters.cnn"));
    let fonts = PathBuf::from(value("--fonts", "/usr/share/fonts"));
    let load = value("--load", "");

    let net = if load.is_empty() {
        let names = training_faces(&fonts);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let faces = load_named(&fonts, &refs);
        if faces.is_empty() {
            return Err(format!("no training typefaces under {}", fonts.display()));
        }
        eprintln!("{} training typefaces: {}", faces.len(), names.join(" "));
        let train = glyphs(&faces, 1000, screens, 2);
        let valid = glyphs(&faces, 1001, screens / 5, 0);
        eprintln!(
            "{} training glyphs, {} validation glyphs",
            train.len(),
            valid.len()
        );
        let dump = value("--dump", "");
        if !dump.is_empty() {
            sheet(&valid[..valid.len().min(400)], &dump)?;
        }
        let net = train_net(&train, &valid, epochs);
        std::fs::write(&out, net.to_bytes()).map_err(|e| format!("{}: {e}", out.display()))?;
        eprintln!("wrote {}", out.display());
        net
    } else {
        let bytes = std::fs::read(&load).map_err(|e| format!("{load}: {e}"))?;
        Cnn::from_bytes(&bytes).map_err(|e| format!("{load}: {e}"))?
    };
    if second > 0 {
        against_the_reader(&net, &fonts, seed, second);
    }
    Ok(())
}

fn train_net(train: &[Example], valid: &[Example], epochs: usize) -> Cnn {
    let mut rng = Rng::new(7);
    let mut net = Cnn::random(|| unit(&mut rng));
    let mut adam = common::Adam::new(PARAMS);
    let mut steps = 0;
    const BATCH: usize = 64;
    let mut order: Vec<usize> = (0..train.len()).collect();
    for epoch in 0..epochs {
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        let lr = 2e-3 * 0.5 * (1.0 + (std::f32::consts::PI * epoch as f32 / epochs as f32).cos());
        let started = std::time::Instant::now();
        let mut total = 0.0;
        for batch in order.chunks(BATCH) {
            let examples: Vec<&Example> = batch.iter().map(|&k| &train[k]).collect();
            let (mut g, loss) = batch_gradient(&net, &examples);
            total += f64::from(loss);
            let n = batch.len() as f32;
            g.iter_mut().for_each(|v| *v /= n);
            steps += 1;
            adam.step(&mut net.params, &g, lr, steps, 0.0);
        }
        eprintln!(
            "epoch {}: loss {:.4}, validation {:.2}% ({:.0} s)",
            epoch + 1,
            total / train.len().max(1) as f64,
            100.0 * accuracy(&net, valid),
            started.elapsed().as_secs_f64()
        );
    }
    net
}

/// The glyphs as one picture, 20 to a row (for looking at what the network is given); their
/// letters are printed.
fn sheet(glyphs: &[Example], path: &str) -> Result<(), String> {
    let cell = SIDE as u32 + 4;
    let rows = glyphs.len().div_ceil(20) as u32;
    let mut img = image::GrayImage::from_pixel(20 * cell, rows * cell, image::Luma([255]));
    for (i, (x, _)) in glyphs.iter().enumerate() {
        let (cx, cy) = ((i % 20) as u32 * cell + 2, (i / 20) as u32 * cell + 2);
        for (p, v) in x.iter().enumerate() {
            let l = (255.0 * (1.0 - v.clamp(0.0, 1.0))) as u8;
            img.put_pixel(
                cx + (p % SIDE) as u32,
                cy + (p / SIDE) as u32,
                image::Luma([l]),
            );
        }
    }
    let labels: String = glyphs
        .iter()
        .map(|(_, t)| if *t == 16 { 'q' } else { (b'A' + t) as char })
        .collect();
    eprintln!("labels: {labels}");
    img.save(path).map_err(|e| format!("{path}: {e}"))
}
