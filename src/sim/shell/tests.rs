//! Tests of the virtual phone's shell: scripts split as a shell splits them, commands
//! answered as Android does, the screen and the lock, screencap.

use super::*;
use crate::sim::device::SimConfig;
use crate::sim::game::{GameConfig, Key, ScreenLock};
use std::sync::Arc;
use std::time::Duration;

fn words(script: &str) -> Vec<Token> {
    tokenize(script)
}

fn w(s: &str) -> Token {
    Token::Word(s.into())
}

#[test]
fn scripts_split_as_a_shell_splits_them() {
    // (script, tokens)
    let cases: Vec<(&str, Vec<Token>)> = vec![
        ("echo hi  there", vec![w("echo"), w("hi"), w("there")]),
        ("echo 'a b' \"c d\"", vec![w("echo"), w("a b"), w("c d")]),
        ("echo a\\ b", vec![w("echo"), w("a b")]),
        ("echo '' x", vec![w("echo"), w(""), w("x")]),
        ("echo 'it\"s'", vec![w("echo"), w("it\"s")]),
        ("a;b", vec![w("a"), Token::Seq, w("b")]),
        (
            "a && b || c",
            vec![w("a"), Token::And, w("b"), Token::Or, w("c")],
        ),
        (
            "m --port 1 &",
            vec![w("m"), w("--port"), w("1"), Token::Background],
        ),
        ("echo '$?' $?", vec![w("echo"), w("$?"), w("\u{e000}")]),
        ("echo $HOME.x", vec![w("echo"), w(".x")]),
        ("a # comment", vec![w("a")]),
        (
            "x >/dev/null 2>&1",
            vec![
                w("x"),
                Token::Redirect {
                    fd: 1,
                    append: false,
                },
                w("/dev/null"),
                Token::Dup { fd: 2, to: 1 },
            ],
        ),
        (
            "x 2>> log",
            vec![
                w("x"),
                Token::Redirect {
                    fd: 2,
                    append: true,
                },
                w("log"),
            ],
        ),
        (
            "echo '2'>f",
            vec![
                w("echo"),
                w("2"),
                Token::Redirect {
                    fd: 1,
                    append: false,
                },
                w("f"),
            ],
        ),
        ("", vec![]),
    ];
    for (script, tokens) in cases {
        assert_eq!(words(script), tokens, "{script}");
    }
}

#[test]
fn syntax_errors_are_reported() {
    // (script, error)
    let cases = [
        ("&& x", SyntaxError::Unexpected("&&")),
        ("x &&", SyntaxError::Unexpected("end of file")),
        ("x | y", SyntaxError::Pipe),
        ("x >", SyntaxError::Unexpected("newline")),
    ];
    for (script, error) in cases {
        assert_eq!(parse(tokenize(script)).unwrap_err(), error, "{script}");
    }
}

/// Runs a script on a fresh phone: (stdout, stderr, status).
fn run(model: Model, script: &str) -> (String, String, i32) {
    let device = Device::new(SimConfig {
        model,
        ..SimConfig::default()
    });
    run_on(&device, script)
}

/// A phone whose time moves on at once where a service lets it pass (a JVM starting, a
/// swipe): the caller's clock, which outside a tokio runtime is the wall clock otherwise.
/// What these tests check is what the phone does, not how long it takes.
fn on_its_own_clock(config: SimConfig) -> Arc<Device> {
    Device::with_clock(config, crate::sim::clock::Clock::caller())
}

/// Runs a script on `device`: (stdout, stderr, status).
fn run_on(device: &Arc<Device>, script: &str) -> (String, String, i32) {
    let (mut out, mut err, mut stdin) = (Vec::new(), Vec::new(), io::empty());
    let alive = || true;
    let mut ctx = Ctx {
        device,
        out: &mut out,
        err: &mut err,
        stdin: &mut stdin,
        alive: &alive,
    };
    let status = Shell::default().run(&mut ctx, script);
    (
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
        status,
    )
}

#[test]
fn the_screen_times_out_and_a_wake_key_turns_it_on() {
    for model in Model::ALL {
        let device = on_its_own_clock(SimConfig {
            model,
            game: GameConfig {
                screen_timeout: Some(Duration::from_millis(300)),
                ..GameConfig::default()
            },
            ..SimConfig::default()
        });
        let wakefulness = || {
            let (out, _, status) = run_on(&device, "dumpsys power");
            assert_eq!(status, 0);
            crate::phone::parse_wakefulness(&out)
        };
        assert_eq!(wakefulness(), Some(true));
        device.clock().pass(Duration::from_millis(400));
        assert_eq!(wakefulness(), Some(false), "{model:?}");
        assert!(device.screenshot().pixels().all(|p| p.0 == [0, 0, 0, 255]));
        // A touch on the dark screen never reaches the game.
        let (_, _, status) = run_on(&device, "input tap 400 600");
        assert_eq!(status, 0);
        assert_eq!(device.report().touches_while_off, 2);
        assert_eq!(wakefulness(), Some(false));
        // KEYCODE_WAKEUP came with API 20; before it, POWER turns the screen on.
        let key = if model.sdk() >= 20 { "224" } else { "26" };
        let (_, _, status) = run_on(&device, &format!("input keyevent {key}"));
        assert_eq!(status, 0);
        assert_eq!(wakefulness(), Some(true), "{model:?}");
        assert!(device.screenshot().pixels().any(|p| p.0 != [0, 0, 0, 255]));
        // POWER again turns it off (straight to the device: `input` takes longer to start
        // than this screen's timeout). KEYCODE_WAKEUP means nothing before API 20.
        device.key(Key::Power);
        assert_eq!(wakefulness(), Some(false));
        run_on(&device, "input keyevent KEYCODE_WAKEUP");
        assert_eq!(wakefulness(), Some(model.sdk() >= 20), "{model:?}");
        let report = device.report();
        assert_eq!(report.screen_offs, 2);
        assert_eq!(report.screen_ons, 1 + u32::from(model.sdk() >= 20));
    }
}

#[test]
fn a_lock_screen_shows_after_the_screen_went_off_and_only_one_without_a_secret_goes() {
    for model in Model::ALL {
        for lock in [ScreenLock::None, ScreenLock::Swipe, ScreenLock::Pin] {
            let device = on_its_own_clock(SimConfig {
                model,
                game: GameConfig {
                    screen_lock: lock,
                    ..GameConfig::default()
                },
                ..SimConfig::default()
            });
            let keyguard = || {
                let (out, _, status) = run_on(&device, "dumpsys window policy");
                assert_eq!(status, 0);
                crate::phone::parse_keyguard(&out)
            };
            let case = format!("{model:?} {lock:?}");
            assert_eq!(keyguard(), Some(false), "{case}");
            device.key(Key::Power);
            device.key(Key::Power);
            let locked = lock != ScreenLock::None;
            assert_eq!(keyguard(), Some(locked), "{case}");
            // The lock screen takes the touch: the game sees none, the screen stays on.
            let before = device.report().touches_while_locked;
            run_on(&device, "input tap 400 600");
            let taken = device.report().touches_while_locked - before;
            assert_eq!(taken, if locked { 2 } else { 0 }, "{case}");
            // `wm dismiss-keyguard` from Android 7; MENU on every version.
            let (_, err, _) = run_on(&device, "wm dismiss-keyguard");
            assert_eq!(err.contains("usage"), model.sdk() < 24, "{case}: {err}");
            let dismissed = model.sdk() >= 24 && lock == ScreenLock::Swipe;
            assert_eq!(keyguard(), Some(locked && !dismissed), "{case}");
            run_on(&device, "input keyevent KEYCODE_MENU");
            assert_eq!(keyguard(), Some(lock == ScreenLock::Pin), "{case}");
            let unlocks = device.report().unlocks;
            assert_eq!(unlocks, u32::from(lock == ScreenLock::Swipe), "{case}");
        }
    }
}

#[test]
fn commands_answer_as_android_does() {
    // (model, script, stdout, stderr contains, status)
    let cases = [
        (Model::Pixel, "echo hi there", "hi there\n", "", 0),
        (Model::Pixel, "echo -n hi", "hi", "", 0),
        (Model::Pixel, "false; echo \"rc=$?\"", "rc=1\n", "", 0),
        (Model::Pixel, "true && echo yes || echo no", "yes\n", "", 0),
        (Model::Pixel, "false && echo yes || echo no", "no\n", "", 0),
        (
            Model::Pixel,
            "frob; echo $?",
            "127\n",
            "frob: inaccessible or not found",
            0,
        ),
        (Model::Pixel, "sh -c 'echo inner; exit 3'", "inner\n", "", 3),
        (Model::Pixel, "exit 4; echo never", "", "", 4),
        (Model::Nexus7, "wm size", "Physical size: 800x1280\n", "", 0),
        (Model::Pixel, "wm size", "Physical size: 1080x2400\n", "", 0),
        (Model::Small, "wm density", "Physical density: 240\n", "", 0),
        (Model::Nexus7, "getprop ro.build.version.sdk", "22\n", "", 0),
        (
            Model::Nexus7,
            "getprop ro.build.version.release",
            "5.1.1\n",
            "",
            0,
        ),
        (
            Model::Pixel,
            "getprop ro.product.cpu.abi",
            "arm64-v8a\n",
            "",
            0,
        ),
        (
            Model::Nexus7,
            "getprop ro.product.model",
            "Nexus 7\n",
            "",
            0,
        ),
        (
            Model::Nexus7,
            "getprop ro.product.device",
            "grouper\n",
            "",
            0,
        ),
        (Model::Pixel, "getprop no.such.key", "\n", "", 0),
        (
            Model::Pixel,
            "settings put system pointer_location 1 && settings get system pointer_location",
            "1\n",
            "",
            0,
        ),
        (Model::Pixel, "settings get global nothing", "null\n", "", 0),
        (
            Model::Pixel,
            "echo saved > /data/local/tmp/x; cat /data/local/tmp/x",
            "saved\n",
            "",
            0,
        ),
        (Model::Pixel, "frob 2>/dev/null; echo $?", "127\n", "", 0),
        (Model::Pixel, "frob >/dev/null 2>&1", "", "", 127),
        (Model::Pixel, "echo to-err >&2", "", "to-err", 0),
        (
            Model::Pixel,
            "frob 2>&1",
            "/system/bin/sh: frob: inaccessible or not found\n",
            "",
            127,
        ),
        (
            Model::Pixel,
            "echo a > /sdcard/f; echo b >> /sdcard/f; cat /sdcard/f",
            "a\nb\n",
            "",
            0,
        ),
        (
            Model::Pixel,
            "frob 2>&1 >/dev/null",
            "/system/bin/sh: frob: inaccessible or not found\n",
            "",
            127,
        ),
        (
            Model::Pixel,
            "echo x > /system/x",
            "",
            "can't create /system/x: Read-only",
            1,
        ),
        (Model::Pixel, "cat /nope", "", "No such file", 1),
        (Model::Pixel, "sleep 0.01 && echo slept", "slept\n", "", 0),
        (Model::Pixel, "sleep x", "", "invalid number", 1),
        (
            Model::Pixel,
            "echo a | cat",
            "",
            "pipes are not supported",
            2,
        ),
    ];
    for (model, script, out, err, status) in cases {
        let (o, e, s) = run(model, script);
        assert_eq!(
            (o.as_str(), s),
            (out, status),
            "{script} on {model:?} (stderr {e:?})"
        );
        assert!(e.contains(err), "{script}: stderr {e:?}");
    }
}

#[test]
fn screencap_headers_follow_the_android_version() {
    for (model, header) in [(Model::Nexus7, 12), (Model::Small, 12), (Model::Pixel, 16)] {
        let device = Device::new(SimConfig {
            model,
            ..SimConfig::default()
        });
        let img = device.screenshot();
        let raw = raw_screencap(model.sdk(), &img);
        let (w, h) = (device.layout().width, device.layout().height);
        assert_eq!(raw.len(), header + (w * h * 4) as usize, "{model:?}");
        assert_eq!(&raw[..4], &w.to_le_bytes());
        assert_eq!(&raw[4..8], &h.to_le_bytes());
        assert_eq!(&raw[8..12], &1u32.to_le_bytes());
    }
}
