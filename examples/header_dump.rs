//! Writes what calibrate's watch saw of a header of the header generator, so a person can
//! see why its numbers were not found: the frame at the watch's end, and what was found.
//!
//!     cargo run --release --example header_dump -- SEED INDEX OUT.png
//!
//! When no clock was found, it lists what ticked. Development seeds only (1 and 3): seed 2 is
//! the check, measured and never looked into.

use scramblebot::calibrate::headers;
use scramblebot::vision::corpus::{self, header, second};
use scramblebot::vision::digits::{self, Area};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [seed, index, out, boxes @ ..] = &args[..] else {
        return Err("usage: header_dump SEED INDEX OUT.png [X0,Y0,X1,Y1]...".into());
    };
    let (seed, index): (u64, u64) = (seed.parse()?, index.parse()?);
    if seed == 2 {
        return Err("seed 2 is the check: it is measured, never looked into".into());
    }
    let faces = corpus::load_named(std::path::Path::new("/usr/share/fonts"), &second::FACES);
    let h = header::header(&faces, seed, index).ok_or("no face")?;
    println!("{}", h.description);
    let (t, found) = headers::watch(&h);
    for line in &found.about {
        println!("  {line}");
    }
    println!("  watched {t:.2} s; shown then {:?}", h.shown(t));
    if found.clock.is_none() {
        ticking(&h, t);
    }
    let at = std::env::var("AT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(t);
    let img = h.frame(at);
    img.save(out)?;
    // Looks as play takes them (evenly here), each read set against what was drawn; the
    // first look read wrong is written beside OUT.png as OUT.wrong.png.
    if let Some(book) = &found.digits {
        let mut wrote = false;
        for k in 0..60 {
            let at = t + 1.0 + 0.45 * f64::from(k);
            let frame = h.frame(at);
            let read = scramblebot::play::numbers_in(&frame, found.score, found.clock, book);
            let truth = h.shown(at);
            let wrong = read.score.is_some_and(|s| s != truth.score)
                || read.clock_secs.is_some_and(|c| c != truth.secs_left);
            if wrong || read.score.is_none() {
                println!("  at {at:.2}: drawn {truth:?}, read {read:?}");
            }
            if wrong && !wrote {
                frame.save(format!("{out}.wrong.png"))?;
                wrote = true;
            }
        }
    }
    for b in boxes {
        let v: Vec<u32> = b.split(',').map(str::parse).collect::<Result<_, _>>()?;
        let area = Area {
            x0: v[0],
            y0: v[1],
            x1: v[2],
            y1: v[3],
        };
        let cut = digits::cut(&img, area);
        println!(
            "  box {b}: {} glyphs, groups {}, separators {:?}, stray {}, clipped {}, ink {:?}",
            cut.glyphs.len(),
            cut.groups.len(),
            cut.separators,
            cut.stray,
            cut.clipped,
            cut.ink
        );
        if let Some(book) = &found.digits {
            for g in &cut.glyphs {
                println!("    {:?}", book.classify(g));
            }
            println!(
                "    number {:?}, plain {:?}",
                book.number(&cut),
                book.plain_number(&cut)
            );
        }
    }
    Ok(())
}

/// What changed once a second over the watch's `secs` (the parts calibrate takes the clock
/// from), each with the glyphs its line of ink cuts into: why no clock was found.
fn ticking(h: &header::Header, secs: f64) {
    use scramblebot::calibrate::numbers::{Changes, line_around};
    let [x0, y0, x1, y1] = h.board;
    let mut changes = Changes::new(h.width, h.height, Area { x0, y0, x1, y1 });
    let mut t = 0.0;
    while t < secs {
        changes.see(t, h.frame(t));
        t += 0.25;
    }
    let Some(img) = changes.last() else { return };
    let parts = changes.ticking();
    println!("  {} parts tick once a second", parts.len());
    for p in parts {
        let line = line_around(img, p);
        let cut = digits::cut(img, line);
        println!(
            "    [{}, {}, {}, {}]: line [{}, {}, {}, {}], {} glyphs, colons before {:?}",
            p.x0,
            p.y0,
            p.x1,
            p.y1,
            line.x0,
            line.y0,
            line.x1,
            line.y1,
            cut.glyphs.len(),
            cut.colons
        );
    }
}
