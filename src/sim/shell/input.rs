//! Touch input on the virtual phone, by every route Android offers a shell user, each as its
//! Android version allows: `input tap|swipe` (all versions, a JVM start per call), `input
//! motionevent` (sdk 29 and later; before, `input` prints its usage and exits 0, as the real
//! one does), `sendevent` and writes to /dev/input (up to sdk 28; later, SELinux says
//! "Permission denied"), and the monkey's network protocol. `getevent -p` describes the
//! touchscreen in the real output format, with raw ranges that need not match the pixels.
//! Every route ends in `Device::touch`, where the referee judges the samples.

use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::time::Duration;

use super::ctx::Ctx;
use crate::sim::device::{Device, Inline};
use crate::sim::game::{Action, Key, Route};
use crate::sim::stream::StreamIo;
use crate::sim::touchscreen::{EV_ABS, EV_KEY, EV_SYN, SYN_REPORT, abs_label, key_label};

/// What one `sendevent` process costs on the phone.
const SENDEVENT_COST: Duration = Duration::from_millis(2);

/// The `input` command's usage text, as each Android version prints it.
fn input_usage(sdk: u32) -> String {
    let motion = sdk >= 29;
    let mut s = String::from("Usage: input [<source>] <command> [<arg>...]\n\nThe sources are: \n");
    for source in SOURCES {
        s += &format!("      {source}\n");
    }
    s += "\nThe commands and default sources are:\n";
    s += "      text <string> (Default: touchscreen)\n";
    s += "      keyevent [--longpress] <key code number or name> ... (Default: keyboard)\n";
    s += "      tap <x> <y> (Default: touchscreen)\n";
    s += "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)\n";
    s += "      press (Default: trackball)\n";
    s += "      roll <dx> <dy> (Default: trackball)\n";
    if motion {
        s += "      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)\n";
    }
    s
}

const SOURCES: [&str; 10] = [
    "dpad",
    "keyboard",
    "mouse",
    "touchpad",
    "gamepad",
    "touchnavigation",
    "joystick",
    "touchscreen",
    "stylus",
    "trackball",
];

/// `input [SOURCE] tap|swipe|motionevent|text|keyevent ...`
pub fn input_command(ctx: &mut Ctx, args: &[String]) -> i32 {
    let model = ctx.device.model();
    // Every call starts a JVM before it does anything.
    if !ctx.sleep(model.jvm_start()) {
        return 130;
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let args = match args.first() {
        Some(s) if SOURCES.contains(s) => &args[1..],
        _ => &args[..],
    };
    let num = |s: &str| s.parse::<f32>().ok().filter(|v| v.is_finite());
    let usage = |ctx: &mut Ctx| {
        let _ = ctx.err.write_all(input_usage(model.sdk()).as_bytes());
        0
    };
    let device = ctx.device.clone();
    match args {
        ["tap", x, y] => match (num(x), num(y)) {
            (Some(x), Some(y)) => {
                device.touch(Route::Input, Action::Down, x, y);
                device.touch(Route::Input, Action::Up, x, y);
                0
            }
            _ => bad_number(ctx, &[x, y]),
        },
        ["swipe", x1, y1, x2, y2, rest @ ..] if rest.len() <= 1 => {
            let nums = [num(x1), num(y1), num(x2), num(y2)];
            let duration = match rest.first() {
                None => Some(300),
                Some(d) => d.parse::<u64>().ok(),
            };
            let ([Some(x1), Some(y1), Some(x2), Some(y2)], Some(ms)) = (nums, duration) else {
                return bad_number(ctx, &[x1, y1, x2, y2]);
            };
            swipe(
                ctx,
                (x1, y1),
                (x2, y2),
                Duration::from_millis(ms.min(60_000)),
            )
        }
        ["motionevent", action, x, y] if model.sdk() >= 29 => {
            let action = match action.to_ascii_uppercase().as_str() {
                "DOWN" => Action::Down,
                "MOVE" => Action::Move,
                "UP" => Action::Up,
                "CANCEL" => Action::Cancel,
                _ => return usage(ctx),
            };
            match (num(x), num(y)) {
                (Some(x), Some(y)) => {
                    device.touch(Route::Input, action, x, y);
                    0
                }
                _ => bad_number(ctx, &[x, y]),
            }
        }
        ["keyevent", keys @ ..] => {
            for key in keys.iter().filter(|k| !k.starts_with("--")) {
                device.key(key_of(key, model.sdk()));
            }
            0
        }
        ["text", ..] | ["press"] | ["roll", _, _] => 0,
        _ => usage(ctx),
    }
}

/// A key code as `input keyevent` takes it (a number, or a name with or without KEYCODE_), as
/// far as the screen's power and lock go. KEYCODE_WAKEUP and KEYCODE_SLEEP came with API 20.
fn key_of(key: &str, sdk: u32) -> Key {
    let name = key.strip_prefix("KEYCODE_").unwrap_or(key);
    match name {
        "26" | "POWER" => Key::Power,
        "224" | "WAKEUP" if sdk >= 20 => Key::Wakeup,
        "223" | "SLEEP" if sdk >= 20 => Key::Sleep,
        "82" | "MENU" => Key::Menu,
        _ => Key::Other,
    }
}

fn bad_number(ctx: &mut Ctx, args: &[&str]) -> i32 {
    let _ = writeln!(
        ctx.err,
        "Error: NumberFormatException: Invalid float: \"{}\"",
        args.join(" ")
    );
    // The JVM dies with an exception: exit status 1 on every version.
    1
}

/// `input swipe`: down at the start, moves along the line as fast as they can be injected
/// for the duration, up at the end.
fn swipe(ctx: &mut Ctx, from: (f32, f32), to: (f32, f32), duration: Duration) -> i32 {
    let device = ctx.device.clone();
    device.touch(Route::Input, Action::Down, from.0, from.1);
    let start = device.now();
    loop {
        let t = device.now() - start;
        if t >= duration || !(ctx.alive)() {
            break;
        }
        let a = t.as_secs_f32() / duration.as_secs_f32();
        let lerp = |p: f32, q: f32| p + (q - p) * a;
        device.touch(
            Route::Input,
            Action::Move,
            lerp(from.0, to.0),
            lerp(from.1, to.1),
        );
        device.clock().pass(Duration::from_millis(4));
    }
    device.touch(Route::Input, Action::Up, to.0, to.1);
    0
}

/// `sendevent DEVICE TYPE CODE VALUE` (decimal, as toolbox's atoi reads them).
pub fn sendevent(ctx: &mut Ctx, args: &[String]) -> i32 {
    ctx.device.clock().pass(SENDEVENT_COST);
    let [path, kind, code, value] = args else {
        let _ = writeln!(ctx.err, "use: sendevent device type code value");
        return 1;
    };
    if ctx.device.model().sdk() > 28 {
        let _ = writeln!(ctx.err, "sendevent: {path}: Permission denied");
        return 1;
    }
    if !ctx.device.has_input_node(path) {
        let _ = writeln!(ctx.err, "could not open {path}, No such file or directory");
        return 1;
    }
    let int = |s: &str| s.parse::<i64>().unwrap_or(0);
    ctx.device
        .input_event(path, int(kind) as u16, int(code) as u16, int(value) as i32);
    0
}

/// `getevent [-t] [-l] [-q] [-c COUNT] [DEVICE]`: the events of every input node (or of
/// DEVICE) as they happen, one line each: `[TIME] DEVICE: TYPE CODE VALUE` in hex (the
/// device named, and the nodes listed first, only when watching them all), or with `-l`
/// their names. Runs until COUNT events or until the host goes. `-p` (`-lp`) describes the
/// devices instead.
pub fn getevent(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut describe, mut labels, mut times, mut quiet) = (false, false, false, false);
    let mut count: Option<u64> = None;
    let mut device: Option<&str> = None;
    let mut args = args.iter();
    while let Some(a) = args.next() {
        match a.strip_prefix('-') {
            Some(flags) => {
                for f in flags.chars() {
                    match f {
                        'p' | 'i' => describe = true,
                        'l' => labels = true,
                        't' => times = true,
                        'q' => quiet = true,
                        'c' => count = args.next().and_then(|n| n.parse().ok()),
                        _ => {}
                    }
                }
            }
            None => device = Some(a),
        }
    }
    if describe {
        let text = ctx.device.describe_input(labels);
        let _ = ctx.out.write_all(text.as_bytes());
        return 0;
    }
    if let Some(path) = device
        && !ctx.device.has_input_node(path)
    {
        let _ = writeln!(ctx.err, "could not open {path}, No such file or directory");
        return 1;
    }
    let events = ctx.device.watch_input();
    // As getevent.c: watching every node, it names each as it opens it and each event's node;
    // watching one, neither.
    if !quiet && device.is_none() {
        for (i, (path, name)) in ctx.device.input_nodes().into_iter().enumerate() {
            let _ = write!(
                ctx.out,
                "add device {}: {path}\n  name:     \"{name}\"\n",
                i + 1
            );
        }
    }
    let mut shown = 0;
    while count.is_none_or(|c| shown < c) {
        let _ = ctx.out.flush();
        let e = if ctx.device.clock().is_caller() {
            // Run inline, nothing more can happen while it runs: what came, then the end.
            match events.try_recv() {
                Ok(e) => e,
                Err(_) => break,
            }
        } else {
            match events.recv_timeout(Duration::from_millis(50)) {
                Ok(e) => e,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) if (ctx.alive)() => continue,
                Err(_) => break,
            }
        };
        if device.is_some_and(|d| d != e.path) {
            continue;
        }
        let mut line = String::new();
        if times {
            line += &format!("[{:8}.{:06}] ", e.time.as_secs(), e.time.subsec_micros());
        }
        if device.is_none() {
            line += &format!("{}: ", e.path);
        }
        let named = labels
            .then(|| event_labels(e.kind, e.code, e.value))
            .flatten();
        match named {
            Some((kind, code, value)) => line += &format!("{kind:<12} {code:<20} {value}"),
            None => line += &format!("{:04x} {:04x} {:08x}", e.kind, e.code, e.value),
        }
        let _ = writeln!(ctx.out, "{line}");
        shown += 1;
    }
    let _ = ctx.out.flush();
    0
}

/// `getevent -l`'s names of an event: type, code, value (keys as DOWN/UP).
fn event_labels(kind: u16, code: u16, value: i32) -> Option<(&'static str, String, String)> {
    Some(match kind {
        EV_SYN if code == SYN_REPORT => ("EV_SYN", "SYN_REPORT".into(), format!("{value:08x}")),
        EV_KEY => (
            "EV_KEY",
            key_label(code)?.into(),
            if value == 0 { "UP" } else { "DOWN" }.into(),
        ),
        EV_ABS => ("EV_ABS", abs_label(code)?.into(), format!("{value:08x}")),
        _ => return None,
    })
}

/// `monkey --port N`: serves the monkey network protocol on device port N (reach it with
/// `adb forward tcp:X tcp:N`), one connection at a time, until a client says `quit` or the
/// host ends the shell that started it.
pub fn monkey(ctx: &mut Ctx, args: &[String]) -> i32 {
    let port = match args {
        [flag, port, ..] if flag == "--port" => port.parse::<u16>().ok(),
        _ => None,
    };
    let Some(port) = port.filter(|&p| p != 0) else {
        let _ = writeln!(
            ctx.err,
            "usage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...]\n              [--port port]\n              [-s SEED] [-v [-v] ...]\n              [--throttle MILLISEC]\n              COUNT"
        );
        return 1;
    };
    if !ctx.sleep(ctx.device.model().jvm_start()) {
        return 130;
    }
    if ctx.device.clock().is_caller() {
        // On the caller's clock nothing may wait for a connection: whoever connects to the
        // port runs the monkey's lines inline, until one says `quit`.
        if ctx.device.listen_inline(port, Inline::Monkey) {
            return 0;
        }
        let _ = writeln!(ctx.err, "Error binding to network socket.");
        return 1;
    }
    let Some(listener) = ctx.device.listen(port) else {
        let _ = writeln!(ctx.err, "Error binding to network socket.");
        return 1;
    };
    let device: Arc<Device> = ctx.device.clone();
    loop {
        if !(ctx.alive)() {
            return 0;
        }
        let conn = match listener.incoming.recv_timeout(Duration::from_millis(100)) {
            Ok(c) => c,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => continue,
            Err(_) => return 0,
        };
        if serve_monkey(&device, conn) == Session::Quit {
            // Stop listening before the shell reports the exit.
            drop(listener);
            let _ = writeln!(ctx.out, "// Monkey finished");
            return 0;
        }
    }
}

#[derive(PartialEq, Eq)]
enum Session {
    Done,
    Quit,
}

/// One client of the monkey: a line in, `OK` or `ERROR:reason` out.
fn serve_monkey(device: &Arc<Device>, conn: StreamIo) -> Session {
    let mut reader = BufReader::new(conn);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return Session::Done,
            Ok(_) => {}
        }
        let text = match monkey_line(device, &line) {
            MonkeyLine::Nothing => continue,
            MonkeyLine::Done => return Session::Done,
            MonkeyLine::Quit => {
                let _ = reader.get_mut().write_all(b"OK\n");
                let _ = reader.get_mut().flush();
                return Session::Quit;
            }
            MonkeyLine::Reply(text) => text,
        };
        let conn = reader.get_mut();
        if conn
            .write_all(text.as_bytes())
            .and_then(|()| conn.flush())
            .is_err()
        {
            return Session::Done;
        }
    }
}

/// What one line sent to the monkey comes to.
#[derive(Debug, PartialEq, Eq)]
pub enum MonkeyLine {
    /// This answer (`OK` or `ERROR:reason`, with its line end).
    Reply(String),
    /// `quit`: answered `OK`, and the monkey stops listening.
    Quit,
    /// `done`: the client's session ends, unanswered.
    Done,
    /// An empty line: nothing.
    Nothing,
}

/// Does what one line sent to the monkey asks.
pub fn monkey_line(device: &Arc<Device>, line: &str) -> MonkeyLine {
    let words: Vec<&str> = line.split_whitespace().collect();
    let int = |s: &str| s.parse::<i32>().ok();
    let reply: Result<(), &str> = match words.as_slice() {
        [] => return MonkeyLine::Nothing,
        ["quit"] => return MonkeyLine::Quit,
        ["done"] => return MonkeyLine::Done,
        ["touch", action, x, y] => match (*action, int(x), int(y)) {
            (a @ ("down" | "move" | "up"), Some(x), Some(y)) => {
                let action = match a {
                    "down" => Action::Down,
                    "move" => Action::Move,
                    _ => Action::Up,
                };
                device.touch(Route::Monkey, action, x as f32, y as f32);
                Ok(())
            }
            _ => Err("Invalid Argument"),
        },
        ["tap", x, y] => match (int(x), int(y)) {
            (Some(x), Some(y)) => {
                device.touch(Route::Monkey, Action::Down, x as f32, y as f32);
                device.touch(Route::Monkey, Action::Up, x as f32, y as f32);
                Ok(())
            }
            _ => Err("Invalid Argument"),
        },
        ["sleep", ms] => match ms.parse::<u64>() {
            Ok(ms) => {
                device.clock().pass(Duration::from_millis(ms.min(60_000)));
                Ok(())
            }
            Err(_) => Err("Invalid Argument"),
        },
        // The monkey wakes the screen through the power manager, on every version.
        ["wake"] => {
            device.key(Key::Wakeup);
            Ok(())
        }
        ["key", "down" | "up", _] | ["press", _] | ["type", ..] => Ok(()),
        _ => Err("unknown command"),
    };
    MonkeyLine::Reply(match reply {
        Ok(()) => "OK\n".to_owned(),
        Err(why) => format!("ERROR:{why}\n"),
    })
}
