//! The virtual phone's game, driven over real TCP the way a bot drives a phone: every input
//! route enters a word the referee accepts, each Android version's gates hold, bad strokes are
//! rejected for the right reason, Freeze extends the clock, a touch outside the game is a
//! violation, and screenshots decode to the screen's size.

use crate::common;

use std::time::Duration;

use common::{Host, start_with};
use scramblebot::Board;
use scramblebot::sim::game::{GameConfig, StrokeKind, StrokeRecord};
use scramblebot::sim::layout::Layout;
use scramblebot::sim::{Model, Sim, SimConfig};

/// c a t s on the top row; nothing else makes words.
const BOARD: &str = "cats/xxxx/xxxx/xxxx";

fn sim(model: Model) -> Sim {
    start_with(SimConfig {
        model,
        game: GameConfig {
            board: Some(Board::parse(BOARD).unwrap()),
            round: Duration::from_secs(600),
            ..GameConfig::default()
        },
        report: None,
        letters: None,
    })
}

fn strokes(sim: &Sim) -> Vec<StrokeRecord> {
    sim.device().game().strokes().to_vec()
}

fn last(sim: &Sim) -> StrokeRecord {
    strokes(sim).pop().expect("a stroke")
}

/// Centre of cell (0, col) in pixels, rounded.
fn top(model: Model, col: usize) -> (i32, i32) {
    let (x, y) = Layout::of(model).centre(col);
    (x.round() as i32, y.round() as i32)
}

#[test]
fn input_taps_and_swipes_on_android_5_which_has_no_motionevent() {
    let sim = sim(Model::Nexus7);
    let mut host = Host::ready(sim.addr());
    // Tap entry: c, a, t, then t again.
    host.exec("input tap 100 300; input tap 300 300; input tap 500 300; input tap 500 300");
    let r = last(&sim);
    assert_eq!(
        (r.word.as_deref(), r.accepted, r.kind),
        (Some("cat"), true, StrokeKind::Tap),
        "{r:?}"
    );
    // One straight swipe through c a t s.
    host.exec("input swipe 100 300 700 300 500");
    let r = last(&sim);
    assert_eq!(
        (r.word.as_deref(), r.accepted),
        (Some("cats"), true),
        "{r:?}"
    );
    assert!(r.sample_count > 10, "a swipe is many move samples: {r:?}");
    // Android 5.1's input has no motionevent: it prints its usage and still exits 0.
    let before = strokes(&sim).len();
    let out = host.exec("input motionevent DOWN 100 300; echo rc=$?");
    assert!(
        out.contains("Usage: input") && out.ends_with("rc=0\n"),
        "{out}"
    );
    assert!(!out.contains("motionevent"), "{out}");
    assert_eq!(strokes(&sim).len(), before);
    assert_eq!(sim.device().game().score(), 6 + 7);
    assert!(sim.device().game().violations().is_empty());
    // A tap outside the grid and the lifelines is a violation.
    host.exec("input touchscreen tap 400 50");
    assert_eq!(sim.device().game().violations().len(), 1);
}

/// The touchscreen node and raw ranges, read from `getevent -p` as a bot must.
fn touchscreen(getevent: &str) -> (String, (i64, i64), (i64, i64)) {
    let mut node = String::new();
    let (mut x, mut y) = ((0, 0), (0, 0));
    let mut found = None;
    for line in getevent.lines() {
        if let Some(rest) = line.strip_prefix("add device ") {
            node = rest.split(": ").nth(1).unwrap_or("").to_owned();
        }
        let range = |line: &str| {
            let num = |key: &str| -> i64 {
                let at = line.find(key).unwrap() + key.len();
                line[at..]
                    .split(',')
                    .next()
                    .unwrap()
                    .trim()
                    .parse()
                    .unwrap()
            };
            (num("min "), num("max "))
        };
        if line.contains(" 0035 ") {
            x = range(line);
        }
        if line.contains(" 0036 ") {
            y = range(line);
        }
        if line.contains("INPUT_PROP_DIRECT") {
            found = Some((node.clone(), x, y));
        }
    }
    found.expect("a touchscreen")
}

#[test]
fn sendevent_speaks_raw_units_up_to_android_9_only() {
    let sim = sim(Model::Nexus7);
    let mut host = Host::ready(sim.addr());
    let (node, xr, yr) = touchscreen(&host.exec("getevent -p"));
    assert_eq!(
        (node.as_str(), xr, yr),
        ("/dev/input/event0", (0, 4095), (0, 4095))
    );
    let raw = |px: i32, (min, max): (i64, i64), size: i64| min + px as i64 * (max - min + 1) / size;
    let mut script = Vec::new();
    for (i, col) in [0, 1, 2].into_iter().enumerate() {
        let (x, y) = top(Model::Nexus7, col);
        let (rx, ry) = (raw(x, xr, 800), raw(y, yr, 1280));
        if i == 0 {
            script.push(format!("sendevent {node} 3 57 1"));
        }
        script.push(format!("sendevent {node} 3 53 {rx}"));
        script.push(format!("sendevent {node} 3 54 {ry}"));
        if i == 0 {
            script.push(format!("sendevent {node} 1 330 1"));
        }
        script.push(format!("sendevent {node} 0 0 0"));
        script.push("sleep 0.03".into());
    }
    script.push(format!("sendevent {node} 3 57 -1"));
    script.push(format!("sendevent {node} 1 330 0"));
    script.push(format!("sendevent {node} 0 0 0"));
    host.exec(&script.join(" && "));
    let r = last(&sim);
    assert_eq!(
        (r.word.as_deref(), r.accepted, format!("{:?}", r.route)),
        (Some("cat"), true, "Sendevent".to_owned()),
        "{r:?}"
    );

    // Android 13: SELinux keeps the shell away from /dev/input.
    let pixel = self::sim(Model::Pixel);
    let mut host = Host::ready(pixel.addr());
    let out = host.exec("sendevent /dev/input/event3 0 0 0; echo rc=$?");
    assert!(
        out.contains("Permission denied") && out.ends_with("rc=1\n"),
        "{out}"
    );
    let out = host.exec("echo x > /dev/input/event3; echo rc=$?");
    assert!(
        out.contains("Permission denied") && out.ends_with("rc=1\n"),
        "{out}"
    );
    assert!(strokes(&pixel).is_empty());
}

#[test]
fn motionevent_drags_on_android_13_and_cancel_enters_nothing() {
    let sim = sim(Model::Pixel);
    let mut host = Host::ready(sim.addr());
    let p = |col| top(Model::Pixel, col);
    let (c, a, t) = (p(0), p(1), p(2));
    host.exec(&format!(
        "input motionevent DOWN {} {} && input motionevent MOVE {} {} && input motionevent MOVE {} {} && input motionevent UP {} {}",
        c.0, c.1, a.0, a.1, t.0, t.1, t.0, t.1
    ));
    let r = last(&sim);
    assert_eq!(
        (r.word.as_deref(), r.accepted),
        (Some("cat"), true),
        "{r:?}"
    );
    host.exec(&format!(
        "input motionevent DOWN {} {}; input motionevent MOVE {} {}; input motionevent CANCEL {} {}",
        c.0, c.1, a.0, a.1, a.0, a.1
    ));
    let r = last(&sim);
    assert!(
        !r.accepted && r.reason.as_deref() == Some("cancelled"),
        "{r:?}"
    );
}

#[test]
fn monkey_over_a_device_socket_is_refereed_like_a_finger() {
    let sim = sim(Model::Small);
    let model = Model::Small;
    let mut host = Host::ready(sim.addr());
    // Nothing listens yet: a device socket is refused.
    assert!(host.open("tcp:1080").is_none());
    // Android 4.4: no `exec:` yet.
    assert!(host.open("exec:echo hello").is_none());
    assert_eq!(host.bytes("shell:echo hello"), b"hello\r\n");
    host.shell("monkey --port 1080 >/dev/null 2>&1 &");
    // The monkey's JVM takes a moment to start listening.
    let mut m = host.open_retrying("tcp:1080", Duration::from_secs(10));
    let swipe = |host: &mut Host, m: &mut common::Stream, cols: &[usize], pause: Duration| {
        for (i, &col) in cols.iter().enumerate() {
            let (x, y) = top(model, col);
            let action = if i == 0 { "down" } else { "move" };
            assert_eq!(host.ask(m, &format!("touch {action} {x} {y}")), "OK");
            // Paced on the phone, by the monkey's own `sleep`.
            if !pause.is_zero() {
                assert_eq!(host.ask(m, &format!("sleep {}", pause.as_millis())), "OK");
            }
        }
        let (x, y) = top(model, *cols.last().unwrap());
        assert_eq!(host.ask(m, &format!("touch up {x} {y}")), "OK");
    };
    let paced = Duration::from_millis(25);
    // (cells, accepted, reason)
    let cases: &[(&[usize], bool, &str)] = &[
        (&[0, 1, 2], true, ""),
        (&[0, 1, 2], false, "already found"),
        (&[2, 1, 0], false, "not in the dictionary"),
        (&[0, 2], false, "not adjacent"),
    ];
    for &(cells, accepted, reason) in cases {
        swipe(&mut host, &mut m, cells, paced);
        let r = last(&sim);
        assert_eq!(r.accepted, accepted, "{cells:?}: {r:?}");
        assert!(r.reason.as_deref().unwrap_or("").contains(reason), "{r:?}");
        assert_eq!(format!("{:?}", r.route), "Monkey");
    }
    // Too fast: c a t s within one frame; the app sees c, then s (or one tile between).
    swipe(&mut host, &mut m, &[0, 1, 2, 3], Duration::ZERO);
    let r = last(&sim);
    assert!(
        !r.accepted && r.reason.as_deref().unwrap_or("").contains("not adjacent"),
        "{r:?}"
    );
    assert!(r.seen < r.sample_count, "{r:?}");
    // Freeze adds 15 s to the clock.
    let left = || {
        let now = sim.device().now();
        sim.device().game().time_left(now)
    };
    let before = left();
    let freeze = Layout::of(model).buttons[0];
    assert_eq!(
        host.ask(&mut m, &format!("tap {} {}", freeze.x, freeze.y)),
        "OK"
    );
    let gained = left().as_secs_f64() - before.as_secs_f64();
    assert!((14.0..=15.0).contains(&gained), "Freeze gained {gained} s");
    assert_eq!(sim.device().game().freezes().len(), 1);
    // A touch on the header is a violation; bad commands get ERROR.
    assert_eq!(host.ask(&mut m, "tap 240 60"), "OK");
    assert_eq!(sim.device().game().violations().len(), 1);
    assert!(host.ask(&mut m, "touch down 1.5 2").starts_with("ERROR"));
    assert!(host.ask(&mut m, "fly away").starts_with("ERROR"));
    // quit ends the monkey: its port closes.
    assert_eq!(host.ask(&mut m, "quit"), "OK");
    common::wait_until("the monkey's port closed", Duration::from_secs(10), || {
        host.open("tcp:1080").is_none()
    });
}

#[test]
fn screenshots_decode_to_the_screen_size() {
    for model in Model::ALL {
        let sim = sim(model);
        let layout = Layout::of(model);
        let (w, h) = (layout.width, layout.height);
        let mut host = Host::ready(sim.addr());
        let word = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
        // The screen as the phone draws it (its clock may tick while adb reads it: either
        // side of a reading counts); Android 5 and later also give it by `exec:`.
        let before = sim.device().screenshot();
        let shows_screen = |pixels: &[u8]| {
            let after = sim.device().screenshot();
            [&before, &after].iter().any(|s| {
                let same = |(i, (a, b)): (usize, (&u8, &u8))| i % 4 == 3 || a == b;
                s.as_raw().len() == pixels.len()
                    && s.as_raw().iter().zip(pixels).enumerate().all(same)
            })
        };
        if model.has_exec() {
            let png = host.bytes("exec:screencap -p");
            let img = image::load_from_memory_with_format(&png, image::ImageFormat::Png)
                .unwrap_or_else(|e| panic!("{model:?}: PNG: {e}"));
            assert_eq!((img.width(), img.height()), (w, h), "{model:?}");
            let raw = host.bytes("exec:screencap");
            let header = if model.sdk() >= 26 { 16 } else { 12 };
            assert_eq!(raw.len(), header + (w * h * 4) as usize, "{model:?}");
            assert_eq!((word(&raw, 0), word(&raw, 1), word(&raw, 2)), (w, h, 1));
            // The raw pixels are the PNG's pixels, and the screen's.
            assert_eq!(
                &raw[header..],
                img.to_rgba8().as_raw().as_slice(),
                "{model:?}"
            );
            assert!(shows_screen(&raw[header..]), "{model:?}: raw is the screen");
        } else {
            // Before Android 5 adbd has no `exec:` (and `shell:` mangles binary output, see
            // below): the framebuffer service is the way.
            assert!(host.open("exec:screencap").is_none(), "{model:?}");
        }
        let fb = host.bytes("framebuffer:");
        // Version 1 before Android 8, version 2 (with a colour space) after.
        let (version, at) = if model.sdk() >= 26 { (2, 4) } else { (1, 3) };
        assert_eq!(
            (word(&fb, 0), word(&fb, at), word(&fb, at + 1)),
            (version, w, h)
        );
        assert_eq!(fb.len(), 4 * (at + 10) + (w * h * 4) as usize);
        let decoded = scramblebot::vision::decode(&fb).expect("a framebuffer answer decodes");
        assert_eq!(decoded.dimensions(), (w, h), "{model:?}");
        let first_difference = decoded
            .as_raw()
            .iter()
            .zip(&fb[4 * (at + 10)..])
            .enumerate()
            .position(|(i, (a, b))| i % 4 != 3 && a != b);
        assert_eq!(first_difference, None, "{model:?}: RGB decodes unchanged");
        assert!(
            shows_screen(decoded.as_raw()),
            "{model:?}: the framebuffer is the screen"
        );
    }
    // Before Android 7, `shell:` goes through a terminal and breaks binary output.
    let sim = sim(Model::Nexus7);
    let mut host = Host::ready(sim.addr());
    let mangled = host.bytes("shell:screencap -p");
    assert!(image::load_from_memory(&mangled).is_err());
}

#[test]
fn shipped_profiles_agree_with_the_virtual_phones_screens() {
    use scramblebot::profile::Profile;
    for model in Model::ALL {
        let profile = Profile::built_in(model.name()).unwrap();
        let layout = Layout::of(model);
        assert_eq!(profile.screen(), (layout.width, layout.height));
        for cell in 0..16 {
            assert_eq!(
                profile.centres()[cell],
                layout.centre(cell),
                "{model:?} {cell}"
            );
        }
        let buttons: Vec<(f32, f32)> = profile.buttons().iter().map(|b| b.1).collect();
        let drawn: Vec<(f32, f32)> = layout.buttons.iter().map(|b| (b.x, b.y)).collect();
        assert_eq!(buttons, drawn, "{model:?}: Freeze first, then the others");
        // The bot's fence is inside the game's: whatever the bot may touch, the game allows.
        assert!(profile.button_radius() <= layout.buttons[0].radius);
    }
}

#[test]
fn getevent_streams_the_kernels_events_a_finger_and_sendevent_not_input() {
    let sim = sim(Model::Nexus7);
    let mut watcher = Host::ready(sim.addr());
    let mut events = watcher
        .open("exec:getevent /dev/input/event0")
        .expect("getevent runs");
    let mut other = Host::ready(sim.addr());
    // A SYN_REPORT from sendevent, until getevent (started on its own thread) shows it: one
    // node watched, so no node before the event. An event sent before getevent listens is
    // not seen, so each try waits a moment only (waiting for a line that will never come
    // failed this test on a loaded machine).
    let mut tries = 0;
    while watcher
        .read_line_within(&mut events, Duration::from_millis(300))
        .is_none_or(|l| l != "0000 0000 00000000")
    {
        tries += 1;
        assert!(tries < 100, "getevent never showed sendevent's event");
        other.exec("sendevent /dev/input/event0 0 0 0");
    }
    // The events of earlier tries getevent saw too.
    while let Some(l) = watcher.read_line_within(&mut events, Duration::from_millis(500)) {
        assert_eq!(l, "0000 0000 00000000");
    }
    // `input` injects above the kernel: getevent does not see it. A finger it does.
    other.exec("input tap 300 500");
    sim.device()
        .finger_tap((300.0, 500.0), Duration::from_millis(20));
    let mut lines = Vec::new();
    while lines
        .last()
        .is_none_or(|l: &String| l.as_str() != "0003 0039 ffffffff")
    {
        lines.push(watcher.read_line(&mut events));
    }
    // Down, the panel's first line (none of input's before it): slot 0, a tracking id, then
    // x and y in raw units (300/800 and 500/1280 of 0..4095).
    assert_eq!(lines[0], "0003 002f 00000000", "{lines:?}");
    assert!(lines[1].starts_with("0003 0039 "), "{lines:?}");
    assert_eq!(
        lines[2..4],
        ["0003 0035 00000600", "0003 0036 00000640"],
        "{lines:?}"
    );
    assert!(
        lines.contains(&"0001 014a 00000001".to_owned()),
        "{lines:?}"
    );
    // Both taps reached the game: the tile at (300, 500) was touched twice.
    assert_eq!(sim.device().game().strokes().len(), 2);
}
