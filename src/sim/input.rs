//! Touch input on the virtual phone, by every route Android offers a shell user, each as its
//! Android version allows: `input tap|swipe` (all versions, a JVM start per call), `input
//! motionevent` (sdk 29 and later; before, `input` prints its usage and exits 0, as the real
//! one does), `sendevent` and writes to /dev/input (up to sdk 28; later, SELinux says
//! "Permission denied"), and the monkey's network protocol. `getevent -p` describes the
//! touchscreen in the real output format, with raw ranges that need not match the pixels.
//! Every route ends in `Device::touch`, where the referee judges the samples.

use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::game::{Action, Route};
use super::shell::Ctx;
use super::{Device, Model};

const EV_SYN: u16 = 0;
const EV_KEY: u16 = 1;
const EV_ABS: u16 = 3;
const SYN_REPORT: u16 = 0;
const BTN_TOUCH: u16 = 0x14a;
const ABS_MT_SLOT: u16 = 0x2f;
const ABS_MT_TOUCH_MAJOR: u16 = 0x30;
const ABS_MT_POSITION_X: u16 = 0x35;
const ABS_MT_POSITION_Y: u16 = 0x36;
const ABS_MT_TRACKING_ID: u16 = 0x39;
const ABS_MT_PRESSURE: u16 = 0x3a;

/// What one `sendevent` process costs on the phone.
const SENDEVENT_COST: Duration = Duration::from_millis(2);

/// An input device node as `getevent -p` lists it.
struct Node {
    path: &'static str,
    name: &'static str,
    keys: &'static [u16],
    /// (code, min, max) of each absolute axis.
    abs: Vec<(u16, i32, i32)>,
    direct: bool,
}

/// The phone's touchscreen as the kernel sees it: its node, raw ranges, and the state of
/// multitouch protocol B between SYN_REPORTs.
pub struct Touchscreen {
    nodes: Vec<Node>,
    touch: usize,
    x_range: (i32, i32),
    y_range: (i32, i32),
    width: u32,
    height: u32,
    slot: i32,
    /// Slot 0's contact: tracking id (-1 none) and raw position.
    tracking: i32,
    raw: (i32, i32),
    /// What was last reported for slot 0: down, and where.
    reported: Option<(i32, i32)>,
}

impl Touchscreen {
    pub fn new(model: Model) -> Touchscreen {
        let layout = super::layout::Layout::of(model);
        // (touch node, name, x range, y range): the Nexus 7's panel reports 0..4095 on both
        // axes whatever the pixels; the small phone's has twice the pixels' resolution.
        let (path, name, x, y) = match model {
            Model::Nexus7 => (
                "/dev/input/event0",
                "elan-touchscreen",
                (0, 4095),
                (0, 4095),
            ),
            Model::Pixel => ("/dev/input/event3", "fts_ts", (0, 1079), (0, 2399)),
            Model::Small => ("/dev/input/event1", "synaptics-rmi-ts", (0, 959), (0, 1599)),
        };
        let touch = Node {
            path,
            name,
            keys: &[BTN_TOUCH],
            abs: vec![
                (ABS_MT_SLOT, 0, 9),
                (ABS_MT_TOUCH_MAJOR, 0, 255),
                (ABS_MT_POSITION_X, x.0, x.1),
                (ABS_MT_POSITION_Y, y.0, y.1),
                (ABS_MT_TRACKING_ID, 0, 65535),
                (ABS_MT_PRESSURE, 0, 255),
            ],
            direct: true,
        };
        let keys = |path| Node {
            path,
            name: "gpio-keys",
            keys: &[0x72, 0x73, 0x74],
            abs: Vec::new(),
            direct: false,
        };
        let mut nodes = match model {
            Model::Nexus7 => vec![keys("/dev/input/event1")],
            Model::Pixel => vec![
                Node {
                    path: "/dev/input/event0",
                    name: "qpnp_pon",
                    keys: &[0x72, 0x74],
                    abs: Vec::new(),
                    direct: false,
                },
                keys("/dev/input/event1"),
                Node {
                    path: "/dev/input/event2",
                    name: "uinput-fpc",
                    keys: &[0x66, 0x8b],
                    abs: Vec::new(),
                    direct: false,
                },
            ],
            Model::Small => vec![keys("/dev/input/event0")],
        };
        nodes.push(touch);
        nodes.sort_by_key(|n| n.path);
        let touch = nodes.iter().position(|n| n.direct).unwrap_or(0);
        Touchscreen {
            nodes,
            touch,
            x_range: x,
            y_range: y,
            width: layout.width,
            height: layout.height,
            slot: 0,
            tracking: -1,
            raw: (0, 0),
            reported: None,
        }
    }

    /// The touchscreen's device node.
    pub fn path(&self) -> &'static str {
        self.nodes[self.touch].path
    }

    /// Raw units to display pixels, as Android's input reader maps them in portrait.
    fn to_pixels(&self, raw: (i32, i32)) -> (f32, f32) {
        let map = |v: i32, (min, max): (i32, i32), size: u32| {
            (v - min) as f32 * size as f32 / (max - min + 1) as f32
        };
        (
            map(raw.0, self.x_range, self.width),
            map(raw.1, self.y_range, self.height),
        )
    }

    /// Display pixels to raw units (the nearest raw unit whose map back lands in the pixel).
    fn to_raw(&self, (x, y): (f32, f32)) -> (i32, i32) {
        let map = |v: f32, (min, max): (i32, i32), size: u32| {
            let span = (max - min + 1) as f32;
            (min + (v.max(0.0) * span / size as f32).round() as i32).min(max)
        };
        (
            map(x, self.x_range, self.width),
            map(y, self.y_range, self.height),
        )
    }

    /// One event written to `path`. Returns the touch to report, if this event completed one
    /// (a SYN_REPORT after a change of slot 0).
    fn event(
        &mut self,
        path: &str,
        kind: u16,
        code: u16,
        value: i32,
    ) -> Option<(Action, f32, f32)> {
        if path != self.path() {
            return None; // buttons and other devices: accepted, nothing the game sees
        }
        match (kind, code) {
            (EV_ABS, ABS_MT_SLOT) => self.slot = value,
            // Only the first finger plays; a second finger's events are read and ignored.
            (EV_ABS, _) if self.slot != 0 => {}
            (EV_ABS, ABS_MT_TRACKING_ID) => self.tracking = value,
            (EV_ABS, ABS_MT_POSITION_X) => self.raw.0 = value,
            (EV_ABS, ABS_MT_POSITION_Y) => self.raw.1 = value,
            // Android tracks contacts by tracking id; BTN_TOUCH only repeats it.
            (EV_KEY, _) => {}
            (EV_SYN, SYN_REPORT) => {
                let down = self.tracking >= 0;
                let action = match (self.reported, down) {
                    (None, true) => Some(Action::Down),
                    (Some(at), true) if at != self.raw => Some(Action::Move),
                    (Some(_), false) => Some(Action::Up),
                    _ => None,
                };
                let at = match (action, self.reported) {
                    (Some(Action::Up), Some(last)) => last,
                    _ => self.raw,
                };
                self.reported = down.then_some(self.raw);
                let (x, y) = self.to_pixels(at);
                return action.map(|a| (a, x, y));
            }
            _ => {}
        }
        None
    }

    /// `getevent -p` (or `-lp` with labels).
    fn describe(&self, labels: bool) -> String {
        let mut s = String::new();
        // Listed in directory order, newest node first, numbered as getevent finds them.
        for (i, n) in self.nodes.iter().rev().enumerate() {
            s += &format!(
                "add device {}: {}\n  name:     \"{}\"\n  events:\n",
                i + 1,
                n.path,
                n.name
            );
            if !n.keys.is_empty() {
                s += "    KEY (0001):";
                for (k, &code) in n.keys.iter().enumerate() {
                    let per_line = if labels { 4 } else { 8 };
                    if k > 0 && k % per_line == 0 {
                        s += "\n               ";
                    }
                    match key_label(code).filter(|_| labels) {
                        Some(l) => s += &format!(" {l:<20} "),
                        None => s += &format!(" {code:04x} "),
                    }
                }
                s += "\n";
            }
            for (k, &(code, min, max)) in n.abs.iter().enumerate() {
                s += if k == 0 {
                    "    ABS (0003):"
                } else {
                    "               "
                };
                match abs_label(code).filter(|_| labels) {
                    Some(l) => s += &format!(" {l:<20} "),
                    None => s += &format!(" {code:04x} "),
                }
                s += &format!(" : value 0, min {min}, max {max}, fuzz 0, flat 0, resolution 0\n");
            }
            s += "  input props:\n";
            s += if n.direct {
                "    INPUT_PROP_DIRECT\n"
            } else {
                "    <none>\n"
            };
        }
        s
    }
}

fn key_label(code: u16) -> Option<&'static str> {
    Some(match code {
        BTN_TOUCH => "BTN_TOUCH",
        0x72 => "KEY_VOLUMEDOWN",
        0x73 => "KEY_VOLUMEUP",
        0x74 => "KEY_POWER",
        0x66 => "KEY_HOME",
        0x8b => "KEY_MENU",
        _ => return None,
    })
}

fn abs_label(code: u16) -> Option<&'static str> {
    Some(match code {
        ABS_MT_SLOT => "ABS_MT_SLOT",
        ABS_MT_TOUCH_MAJOR => "ABS_MT_TOUCH_MAJOR",
        ABS_MT_POSITION_X => "ABS_MT_POSITION_X",
        ABS_MT_POSITION_Y => "ABS_MT_POSITION_Y",
        ABS_MT_TRACKING_ID => "ABS_MT_TRACKING_ID",
        ABS_MT_PRESSURE => "ABS_MT_PRESSURE",
        _ => return None,
    })
}

/// One kernel input event, as `getevent` sees it.
#[derive(Clone, Debug)]
pub struct InputEvent {
    pub path: &'static str,
    /// Since the phone started.
    pub time: Duration,
    pub kind: u16,
    pub code: u16,
    pub value: i32,
}

impl Device {
    /// One kernel input event written to a /dev/input node (by `sendevent` or a raw write).
    fn input_event(&self, path: &str, kind: u16, code: u16, value: i32) {
        self.kernel_event(path, kind, code, value, Route::Sendevent);
    }

    /// One event on an input node, from `route`: to the running `getevent`s, and to the
    /// touchscreen's state (the app sees the touch it completes).
    fn kernel_event(&self, path: &str, kind: u16, code: u16, value: i32, route: Route) {
        let (touch, node) = {
            let mut ts = self.touchscreen.lock().unwrap_or_else(|e| e.into_inner());
            let node = ts.nodes.iter().find(|n| n.path == path).map(|n| n.path);
            (ts.event(path, kind, code, value), node)
        };
        if let Some(path) = node {
            let event = InputEvent {
                path,
                time: self.now(),
                kind,
                code,
                value,
            };
            let mut watchers = self
                .input_watchers
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            watchers.retain(|w| w.send(event.clone()).is_ok());
        }
        if let Some((action, x, y)) = touch {
            self.touch(route, action, x, y);
        }
    }

    /// The events on every input node from now on, until the receiver is dropped.
    fn watch_input(&self) -> std::sync::mpsc::Receiver<InputEvent> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.input_watchers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(tx);
        rx
    }

    /// A finger taps the touchscreen at (x, y) display pixels: the panel reports the contact
    /// in its raw units (multitouch protocol B), held `hold`, as a person's tap. The game sees
    /// it and `getevent` shows it, as on a phone.
    pub fn finger_tap(&self, (x, y): (f32, f32), hold: Duration) {
        let (path, raw, slots) = {
            let ts = self.touchscreen.lock().unwrap_or_else(|e| e.into_inner());
            let node = &ts.nodes[ts.touch];
            (
                node.path,
                ts.to_raw((x, y)),
                node.abs.iter().any(|a| a.0 == ABS_MT_SLOT),
            )
        };
        let id = self.now().as_millis() as i32 & 0xffff;
        let mut down = Vec::new();
        if slots {
            down.push((EV_ABS, ABS_MT_SLOT, 0));
        }
        down.extend([
            (EV_ABS, ABS_MT_TRACKING_ID, id),
            (EV_ABS, ABS_MT_POSITION_X, raw.0),
            (EV_ABS, ABS_MT_POSITION_Y, raw.1),
            (EV_ABS, ABS_MT_PRESSURE, 60),
            (EV_KEY, BTN_TOUCH, 1),
            (EV_SYN, SYN_REPORT, 0),
        ]);
        for (kind, code, value) in down {
            self.kernel_event(path, kind, code, value, Route::Finger);
        }
        std::thread::sleep(hold);
        for (kind, code, value) in [
            (EV_ABS, ABS_MT_TRACKING_ID, -1),
            (EV_KEY, BTN_TOUCH, 0),
            (EV_SYN, SYN_REPORT, 0),
        ] {
            self.kernel_event(path, kind, code, value, Route::Finger);
        }
    }

    /// Whether `path` is an input device node of this phone.
    fn has_input_node(&self, path: &str) -> bool {
        let ts = self.touchscreen.lock().unwrap_or_else(|e| e.into_inner());
        ts.nodes.iter().any(|n| n.path == path)
    }

    /// Raw `struct input_event` records written to a node (16 bytes on 32-bit phones, 24 on
    /// 64-bit: the time, then type u16, code u16, value i32).
    pub(crate) fn write_input_node(
        &self,
        path: &str,
        bytes: &[u8],
    ) -> Result<(), super::sync::FsError> {
        if self.model.sdk() > 28 {
            return Err(super::sync::FsError::Denied);
        }
        if !self.has_input_node(path) {
            return Err(super::sync::FsError::NotFound);
        }
        let size = if self.model.abi().starts_with("arm64") {
            24
        } else {
            16
        };
        for rec in bytes.chunks_exact(size) {
            let body = &rec[size - 8..];
            let kind = u16::from_le_bytes([body[0], body[1]]);
            let code = u16::from_le_bytes([body[2], body[3]]);
            let value = i32::from_le_bytes(body[4..8].try_into().unwrap());
            self.input_event(path, kind, code, value);
        }
        Ok(())
    }
}

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
        ["text", ..] | ["keyevent", ..] | ["press"] | ["roll", _, _] => 0,
        _ => usage(ctx),
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
    let start = Instant::now();
    loop {
        let t = start.elapsed();
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
        std::thread::sleep(Duration::from_millis(4));
    }
    device.touch(Route::Input, Action::Up, to.0, to.1);
    0
}

/// `sendevent DEVICE TYPE CODE VALUE` (decimal, as toolbox's atoi reads them).
pub fn sendevent(ctx: &mut Ctx, args: &[String]) -> i32 {
    std::thread::sleep(SENDEVENT_COST);
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
        let text = ctx
            .device
            .touchscreen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .describe(labels);
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
        let ts = ctx
            .device
            .touchscreen
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for (i, n) in ts.nodes.iter().rev().enumerate() {
            let _ = write!(
                ctx.out,
                "add device {}: {}\n  name:     \"{}\"\n",
                i + 1,
                n.path,
                n.name
            );
        }
    }
    let mut shown = 0;
    while count.is_none_or(|c| shown < c) {
        let _ = ctx.out.flush();
        let e = match events.recv_timeout(Duration::from_millis(50)) {
            Ok(e) => e,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) if (ctx.alive)() => continue,
            Err(_) => break,
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
fn serve_monkey(device: &Arc<Device>, conn: super::adbd::StreamIo) -> Session {
    let mut reader = BufReader::new(conn);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return Session::Done,
            Ok(_) => {}
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let int = |s: &str| s.parse::<i32>().ok();
        let reply: Result<(), &str> = match words.as_slice() {
            [] => continue,
            ["quit"] => {
                let _ = reader.get_mut().write_all(b"OK\n");
                let _ = reader.get_mut().flush();
                return Session::Quit;
            }
            ["done"] => return Session::Done,
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
                    std::thread::sleep(Duration::from_millis(ms.min(60_000)));
                    Ok(())
                }
                Err(_) => Err("Invalid Argument"),
            },
            ["wake"] | ["key", "down" | "up", _] | ["press", _] | ["type", ..] => Ok(()),
            _ => Err("unknown command"),
        };
        let text = match reply {
            Ok(()) => "OK\n".to_owned(),
            Err(why) => format!("ERROR:{why}\n"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_b_events_become_touches_in_pixels() {
        let mut ts = Touchscreen::new(Model::Nexus7);
        let path = ts.path();
        let mut feed = |events: &[(u16, u16, i32)]| -> Vec<(Action, f32, f32)> {
            events
                .iter()
                .filter_map(|&(t, c, v)| ts.event(path, t, c, v))
                .collect()
        };
        // Raw 0..4095 on 800x1280: raw 512 is x = 100, raw 960 is y = 300.
        let down = feed(&[
            (EV_ABS, ABS_MT_TRACKING_ID, 7),
            (EV_ABS, ABS_MT_POSITION_X, 512),
            (EV_ABS, ABS_MT_POSITION_Y, 960),
            (EV_KEY, BTN_TOUCH, 1),
            (EV_SYN, SYN_REPORT, 0),
        ]);
        assert_eq!(down, vec![(Action::Down, 100.0, 300.0)]);
        let moved = feed(&[(EV_ABS, ABS_MT_POSITION_X, 1536), (EV_SYN, SYN_REPORT, 0)]);
        assert_eq!(moved, vec![(Action::Move, 300.0, 300.0)]);
        // A report with nothing changed is no event; a second finger is ignored.
        assert!(feed(&[(EV_SYN, SYN_REPORT, 0)]).is_empty());
        assert!(
            feed(&[
                (EV_ABS, ABS_MT_SLOT, 1),
                (EV_ABS, ABS_MT_TRACKING_ID, 8),
                (EV_ABS, ABS_MT_POSITION_X, 0),
                (EV_SYN, SYN_REPORT, 0),
                (EV_ABS, ABS_MT_SLOT, 0),
            ])
            .is_empty()
        );
        let up = feed(&[
            (EV_ABS, ABS_MT_TRACKING_ID, -1),
            (EV_KEY, BTN_TOUCH, 0),
            (EV_SYN, SYN_REPORT, 0),
        ]);
        assert_eq!(up, vec![(Action::Up, 300.0, 300.0)]);
        // Other nodes take events without effect.
        assert!(
            ts.event("/dev/input/event1", EV_SYN, SYN_REPORT, 0)
                .is_none()
        );
    }

    #[test]
    fn getevent_describes_the_touchscreen_in_the_real_format() {
        let ts = Touchscreen::new(Model::Nexus7);
        let plain = ts.describe(false);
        assert!(plain.contains("add device 2: /dev/input/event0\n  name:     \"elan-touchscreen\"\n  events:\n    KEY (0001): 014a \n"), "{plain}");
        assert!(
            plain.contains(
                "\n                0035  : value 0, min 0, max 4095, fuzz 0, flat 0, resolution 0\n"
            ),
            "{plain}"
        );
        assert!(plain.contains("  input props:\n    INPUT_PROP_DIRECT\n"));
        let labelled = ts.describe(true);
        assert!(
            labelled.contains(" ABS_MT_POSITION_Y     : value 0, min 0, max 4095,"),
            "{labelled}"
        );
        let pixel = Touchscreen::new(Model::Pixel).describe(false);
        assert!(
            pixel.contains("/dev/input/event3") && pixel.contains("max 2399"),
            "{pixel}"
        );
    }

    #[test]
    fn raw_writes_to_the_touch_node_work_up_to_android_9() {
        use crate::sim::game::GameConfig;
        use crate::sim::{Device, SimConfig};
        // struct input_event on a 32-bit phone: timeval (8 bytes), type, code, value.
        let record = |kind: u16, code: u16, value: i32| {
            let mut r = vec![0u8; 8];
            r.extend_from_slice(&kind.to_le_bytes());
            r.extend_from_slice(&code.to_le_bytes());
            r.extend_from_slice(&value.to_le_bytes());
            r
        };
        let events: Vec<u8> = [
            (EV_ABS, ABS_MT_TRACKING_ID, 1),
            (EV_ABS, ABS_MT_POSITION_X, 512),
            (EV_ABS, ABS_MT_POSITION_Y, 960),
            (EV_SYN, SYN_REPORT, 0),
            (EV_ABS, ABS_MT_TRACKING_ID, -1),
            (EV_SYN, SYN_REPORT, 0),
        ]
        .iter()
        .flat_map(|&(t, c, v)| record(t, c, v))
        .collect();
        let config = |model| SimConfig {
            model,
            game: GameConfig::default(),
            report: None,
        };
        let nexus = Device::new(config(Model::Nexus7));
        nexus
            .write_file("/dev/input/event0", &events, false)
            .unwrap();
        let strokes = nexus.game().strokes().to_vec();
        assert_eq!(strokes.len(), 1);
        assert_eq!(
            (strokes[0].kind, &strokes[0].tiles[..]),
            (crate::sim::game::StrokeKind::Tap, &[[0, 0]][..])
        );
        let pixel = Device::new(config(Model::Pixel));
        assert_eq!(
            pixel.write_file("/dev/input/event3", &events, false),
            Err(crate::sim::sync::FsError::Denied)
        );
    }
}
