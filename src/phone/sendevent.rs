//! The sendevent route (Android up to 9, sdk 28: later, SELinux denies the shell user writes
//! to /dev/input). Touches go to the touchscreen's device node as kernel input events in raw
//! panel units, multitouch protocol B, one `sendevent` process per event.
//!
//! The touchscreen and its ranges come from `getevent -p`: the device with ABS_MT_POSITION_X
//! and _Y (codes 0035, 0036), preferring one with INPUT_PROP_DIRECT. A pixel maps to
//! `raw = min + px * (max - min + 1) / size`, as Android's input reader maps back.
//!
//! Pacing: one persistent interactive shell is fed one line per sample (the events of that
//! sample), written when the sample is due and acknowledged once it has run, so the next is
//! paced from when the phone took this one. A single shell command per word would have to pace
//! itself with `sleep`, which takes only whole seconds on the toolbox of Android 5 and older,
//! and would pay a stream set-up per word.

use crate::gesture::{Phase, Touch};

use super::{LineShell, Phone, PhoneError};

const EV_SYN: u16 = 0;
const EV_KEY: u16 = 1;
const EV_ABS: u16 = 3;
const BTN_TOUCH: u16 = 0x14a;
const ABS_MT_SLOT: u16 = 0x2f;
const ABS_MT_POSITION_X: u16 = 0x35;
const ABS_MT_POSITION_Y: u16 = 0x36;
const ABS_MT_TRACKING_ID: u16 = 0x39;

/// One input device as `getevent -p` describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputDevice {
    pub path: String,
    pub name: String,
    /// (code, min, max) of each absolute axis.
    pub abs: Vec<(u16, i32, i32)>,
    /// INPUT_PROP_DIRECT: a touchscreen, as opposed to a touchpad.
    pub direct: bool,
}

impl InputDevice {
    fn axis(&self, code: u16) -> Option<(i32, i32)> {
        self.abs
            .iter()
            .find(|a| a.0 == code)
            .map(|&(_, min, max)| (min, max))
    }
}

/// Reads `getevent -p` (or `-lp`) output. Lines it does not understand are skipped.
pub fn parse_getevent(text: &str) -> Vec<InputDevice> {
    let mut devices: Vec<InputDevice> = Vec::new();
    // Which section of the current device we are in.
    let mut in_abs = false;
    let mut in_props = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if let Some(rest) = trimmed.strip_prefix("add device ") {
            let path = rest.split_once(':').map_or("", |(_, p)| p.trim());
            devices.push(InputDevice {
                path: path.to_owned(),
                ..InputDevice::default()
            });
            (in_abs, in_props) = (false, false);
            continue;
        }
        let Some(dev) = devices.last_mut() else {
            continue;
        };
        if let Some(name) = trimmed.strip_prefix("name:") {
            dev.name = name.trim().trim_matches('"').to_owned();
            continue;
        }
        if trimmed.starts_with("input props:") {
            (in_abs, in_props) = (false, true);
            continue;
        }
        if in_props {
            if trimmed == "INPUT_PROP_DIRECT" || trimmed.starts_with("0001") {
                dev.direct = true;
            }
            continue;
        }
        // An event-type header ("KEY (0001):", "ABS (0003):") starts a section; an ABS
        // section's lines (the first after the header) are "code : value V, min A, max B, ...".
        let mut body = trimmed;
        if let Some((head, rest)) = trimmed.split_once("):") {
            in_abs = head.ends_with("(0003");
            body = rest.trim();
        }
        if !in_abs || body.is_empty() {
            continue;
        }
        let Some((label, values)) = body.split_once(" : ") else {
            continue;
        };
        let code = match u16::from_str_radix(label.trim(), 16) {
            Ok(c) => c,
            Err(_) => match label.trim() {
                "ABS_MT_SLOT" => ABS_MT_SLOT,
                "ABS_MT_POSITION_X" => ABS_MT_POSITION_X,
                "ABS_MT_POSITION_Y" => ABS_MT_POSITION_Y,
                "ABS_MT_TRACKING_ID" => ABS_MT_TRACKING_ID,
                _ => continue,
            },
        };
        let field = |name: &str| {
            values.split(',').find_map(|f| {
                let (k, v) = f.trim().split_once(' ')?;
                (k == name).then(|| v.trim().parse::<i32>().ok())?
            })
        };
        if let (Some(min), Some(max)) = (field("min"), field("max")) {
            dev.abs.push((code, min, max));
        }
    }
    devices
}

/// Follows `getevent`'s lines on a touchscreen node (multitouch protocol B, first slot) to a
/// finished tap. Lines are `[TIME] [NODE:] TYPE CODE VALUE` in hex; others are skipped.
#[derive(Default)]
pub struct TapReader {
    slot: i64,
    tracking: Option<i64>,
    raw: (Option<i64>, Option<i64>),
    /// Where the contact was at its last report.
    reported: Option<(i64, i64)>,
}

impl TapReader {
    /// Takes one line; the raw position of the tap it ends, if it ends one.
    pub fn feed(&mut self, line: &str) -> Option<(i64, i64)> {
        let mut line = line.trim();
        if line.starts_with('[') {
            line = line.split_once(']')?.1.trim();
        }
        if let Some((node, rest)) = line.split_once(": ")
            && node.starts_with('/')
        {
            line = rest.trim();
        }
        let mut fields = line.split_whitespace();
        let hex = |f: Option<&str>| u32::from_str_radix(f?, 16).ok();
        let (kind, code, value) = (
            hex(fields.next())?,
            hex(fields.next())?,
            hex(fields.next())?,
        );
        if fields.next().is_some() {
            return None;
        }
        let value = i64::from(value as i32);
        match (kind as u16, code as u16) {
            (EV_ABS, ABS_MT_SLOT) => self.slot = value,
            (EV_ABS, _) if self.slot != 0 => {}
            (EV_ABS, ABS_MT_TRACKING_ID) => self.tracking = Some(value),
            (EV_ABS, ABS_MT_POSITION_X) => self.raw.0 = Some(value),
            (EV_ABS, ABS_MT_POSITION_Y) => self.raw.1 = Some(value),
            (EV_SYN, 0) => match (self.tracking, self.raw) {
                (Some(id), (Some(x), Some(y))) if id >= 0 => self.reported = Some((x, y)),
                (Some(id), _) if id < 0 => {
                    self.tracking = None;
                    return self.reported.take();
                }
                _ => {}
            },
            _ => {}
        }
        None
    }
}

/// The touchscreen to write to, and how pixels map to its raw units.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    pub path: String,
    pub name: String,
    x: (i32, i32),
    y: (i32, i32),
    /// The display in portrait pixels.
    screen: (u32, u32),
    slots: bool,
}

impl Panel {
    /// The touchscreen among `devices` (multitouch X and Y; a direct one first).
    pub fn find(devices: &[InputDevice], screen: (u32, u32)) -> Option<Panel> {
        let usable = |d: &&InputDevice| {
            d.axis(ABS_MT_POSITION_X).is_some() && d.axis(ABS_MT_POSITION_Y).is_some()
        };
        let dev = devices
            .iter()
            .filter(usable)
            .find(|d| d.direct)
            .or_else(|| devices.iter().find(usable))?;
        let (x, y) = (dev.axis(ABS_MT_POSITION_X)?, dev.axis(ABS_MT_POSITION_Y)?);
        if x.1 <= x.0 || y.1 <= y.0 || screen.0 == 0 || screen.1 == 0 {
            return None;
        }
        Some(Panel {
            path: dev.path.clone(),
            name: dev.name.clone(),
            x,
            y,
            screen,
            slots: dev.axis(ABS_MT_SLOT).is_some(),
        })
    }

    /// "PATH (NAME): x MIN..MAX, y MIN..MAX raw units" for people.
    pub fn describe(&self) -> String {
        format!(
            "{} ({}): x {}..{}, y {}..{} raw units",
            self.path, self.name, self.x.0, self.x.1, self.y.0, self.y.1
        )
    }

    /// Display pixels to raw panel units.
    pub fn raw(&self, px: i32, py: i32) -> (i64, i64) {
        let map = |v: i32, (min, max): (i32, i32), size: u32| {
            let span = i64::from(max) - i64::from(min) + 1;
            let (v, size) = (i64::from(v).max(0), i64::from(size));
            // Rounded, so that Android's map back lands on the pixel's nearest raw unit.
            (i64::from(min) + (v * span + size / 2) / size).min(i64::from(max))
        };
        (
            map(px, self.x, self.screen.0),
            map(py, self.y, self.screen.1),
        )
    }

    /// Raw panel units to display pixels (as Android's input reader maps them).
    pub fn pixels(&self, raw: (i64, i64)) -> (f32, f32) {
        let map = |v: i64, (min, max): (i32, i32), size: u32| {
            (v - i64::from(min)) as f32 * size as f32 / (i64::from(max) - i64::from(min) + 1) as f32
        };
        (
            map(raw.0, self.x, self.screen.0),
            map(raw.1, self.y, self.screen.1),
        )
    }

    /// Waits for a finger to tap the panel, reading `getevent` on its node: where the first
    /// contact was when it lifted, in display pixels. An error when no tap comes within
    /// `limit` or the stream ends.
    pub async fn wait_for_tap(
        &self,
        phone: &super::Phone,
        limit: std::time::Duration,
    ) -> Result<(f32, f32), super::PhoneError> {
        let mut events = phone.watch(&format!("getevent {}", self.path)).await?;
        let deadline = tokio::time::Instant::now() + limit;
        let mut taps = TapReader::default();
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let line = match events.next_line(left).await {
                Ok(Some(line)) => line,
                Ok(None) => {
                    return Err(super::PhoneError::Unexpected {
                        asked: format!("getevent {}", self.path),
                        answer: "it ended before a tap".into(),
                    });
                }
                Err(super::PhoneError::Timeout { .. }) => {
                    return Err(super::PhoneError::Timeout {
                        what: "a tap on the screen".into(),
                        limit,
                    });
                }
                Err(e) => return Err(e),
            };
            if let Some(raw) = taps.feed(&line) {
                return Ok(self.pixels(raw));
            }
        }
    }

    /// The `(type, code, value)` events of one touch sample. `id` is the contact's tracking id
    /// (used by the down).
    pub fn events(&self, t: Touch, id: i64) -> Vec<(u16, u16, i64)> {
        let (x, y) = self.raw(t.x, t.y);
        let mut ev = Vec::new();
        match t.phase {
            Phase::Down => {
                if self.slots {
                    ev.push((EV_ABS, ABS_MT_SLOT, 0));
                }
                ev.push((EV_ABS, ABS_MT_TRACKING_ID, id));
                ev.push((EV_ABS, ABS_MT_POSITION_X, x));
                ev.push((EV_ABS, ABS_MT_POSITION_Y, y));
                ev.push((EV_KEY, BTN_TOUCH, 1));
            }
            Phase::Move => {
                ev.push((EV_ABS, ABS_MT_POSITION_X, x));
                ev.push((EV_ABS, ABS_MT_POSITION_Y, y));
            }
            Phase::Up => {
                // -1, not 0xffffffff: toolbox reads the value with atoi.
                ev.push((EV_ABS, ABS_MT_TRACKING_ID, -1));
                ev.push((EV_KEY, BTN_TOUCH, 0));
            }
        }
        ev.push((EV_SYN, 0, 0));
        ev
    }

    /// One shell line running `events` in order.
    pub fn script(&self, events: &[(u16, u16, i64)]) -> String {
        events
            .iter()
            .map(|(t, c, v)| format!("sendevent {} {t} {c} {v}", self.path))
            .collect::<Vec<_>>()
            .join(";")
    }
}

/// The sendevent route on a phone: its touchscreen and a shell fed one line per sample.
pub struct Sendevent {
    panel: Panel,
    shell: LineShell,
    next_id: i64,
}

impl Sendevent {
    /// Finds the touchscreen, checks that the shell may write to it, and opens the shell.
    pub async fn start(phone: &Phone) -> Result<Sendevent, PhoneError> {
        let unusable = |why: String| PhoneError::Route {
            route: "sendevent",
            why,
        };
        if phone.sdk > 28 {
            return Err(unusable(format!(
                "Android sdk {} denies the shell writes to /dev/input (sdk 28 and older allow them)",
                phone.sdk
            )));
        }
        let listing = phone.shell("getevent -p").await?;
        let panel = Panel::find(&parse_getevent(&listing), phone.screen)
            .ok_or_else(|| unusable("`getevent -p` lists no multitouch touchscreen".into()))?;
        // A lone SYN_REPORT changes nothing, and tells whether we may write.
        let probe = phone
            .shell(&format!(
                "sendevent {} 0 0 0; echo sendevent=$?",
                panel.path
            ))
            .await?;
        if !probe.contains("sendevent=0") {
            return Err(unusable(format!(
                "writing to {} failed: {}",
                panel.path,
                probe.lines().next().unwrap_or("").trim()
            )));
        }
        let shell = phone.line_shell().await?;
        Ok(Sendevent {
            panel,
            shell,
            next_id: 1,
        })
    }

    pub fn panel(&self) -> &Panel {
        &self.panel
    }

    /// One touch sample, sent now; returns once the phone has taken it.
    pub async fn touch(&mut self, t: Touch) -> Result<(), PhoneError> {
        if t.phase == Phase::Down {
            self.next_id = self.next_id % 65535 + 1;
        }
        let line = self.panel.script(&self.panel.events(t, self.next_id));
        self.shell.run(&line).await
    }

    /// Ends the shell.
    pub async fn quit(self) {
        self.shell.close().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEXUS7: &str = "add device 1: /dev/input/event1
  name:     \"gpio-keys\"
  events:
    KEY (0001): 0072  0073  0074 
  input props:
    <none>
add device 2: /dev/input/event0
  name:     \"elan-touchscreen\"
  events:
    KEY (0001): 014a 
    ABS (0003): 002f  : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                0030  : value 0, min 0, max 255, fuzz 0, flat 0, resolution 0
                0035  : value 0, min 0, max 4095, fuzz 0, flat 0, resolution 0
                0036  : value 0, min 0, max 4095, fuzz 0, flat 0, resolution 0
                0039  : value 0, min 0, max 65535, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
";

    #[test]
    fn getevent_listing_is_read() {
        let devices = parse_getevent(NEXUS7);
        assert_eq!(devices.len(), 2);
        assert_eq!(devices[0].path, "/dev/input/event1");
        assert!(devices[0].abs.is_empty() && !devices[0].direct);
        let ts = &devices[1];
        assert_eq!(
            (ts.path.as_str(), ts.name.as_str()),
            ("/dev/input/event0", "elan-touchscreen")
        );
        assert!(ts.direct);
        assert_eq!(ts.axis(ABS_MT_POSITION_X), Some((0, 4095)));
        assert_eq!(ts.axis(ABS_MT_POSITION_Y), Some((0, 4095)));
        assert_eq!(ts.abs.len(), 5);
    }

    #[test]
    fn labelled_listing_is_read() {
        let text = "add device 1: /dev/input/event3
  name:     \"fts_ts\"
  events:
    KEY (0001): BTN_TOUCH            
    ABS (0003): ABS_MT_SLOT           : value 0, min 0, max 9, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_X     : value 0, min 0, max 1079, fuzz 0, flat 0, resolution 0
                ABS_MT_POSITION_Y     : value 0, min 0, max 2399, fuzz 0, flat 0, resolution 0
  input props:
    INPUT_PROP_DIRECT
";
        let panel = Panel::find(&parse_getevent(text), (1080, 2400)).expect("a panel");
        assert_eq!(panel.path, "/dev/input/event3");
        assert_eq!(panel.raw(540, 1200), (540, 1200));
    }

    #[test]
    fn pixels_map_to_raw_units_and_back() {
        let panel = Panel::find(&parse_getevent(NEXUS7), (800, 1280)).expect("a panel");
        assert_eq!(panel.raw(0, 0), (0, 0));
        assert_eq!(panel.raw(100, 300), (512, 960));
        assert_eq!(panel.raw(799, 1279), (4091, 4093));
        // Android maps back with px = (raw - min) * size / (max - min + 1), in floating point:
        // within a tenth of a pixel here (5.12 raw units a pixel).
        for px in [0, 1, 100, 399, 700, 799] {
            let (raw, _) = panel.raw(px, 0);
            let back = raw as f64 * 800.0 / 4096.0;
            assert!((back - f64::from(px)).abs() < 0.1, "{px}: {back}");
            let (x, _) = panel.pixels((raw, 0));
            assert!((f64::from(x) - back).abs() < 1e-3, "{px}: {x}");
        }
    }

    #[test]
    fn a_tap_is_read_from_getevent_in_any_of_its_line_forms() {
        // One device watched (bare), all watched (node first), with -t (time first), and a
        // terminal's CRLF: each a tap at raw (1040, 3000) after a second finger's noise.
        let tap = [
            "0003 002f 00000001", // slot 1: another finger, ignored
            "0003 0039 00000007",
            "0003 0035 00000010",
            "0000 0000 00000000",
            "0003 002f 00000000",
            "0003 0039 0000002a",
            "0003 0035 00000400",
            "0003 0036 00000bb8",
            "0001 014a 00000001",
            "0000 0000 00000000",
            "0003 0035 00000410", // it drifts a little before lifting
            "0000 0000 00000000",
            "0003 0039 ffffffff",
            "0001 014a 00000000",
            "0000 0000 00000000",
        ];
        let forms: [&dyn Fn(&str) -> String; 4] = [
            &|l| l.to_owned(),
            &|l| format!("/dev/input/event0: {l}"),
            &|l| format!("[   51234.001200] /dev/input/event0: {l}"),
            &|l| format!("{l}\r"),
        ];
        for form in forms {
            let mut reader = TapReader::default();
            let mut reader_lines = vec![
                "add device 1: /dev/input/event0".to_owned(),
                "  name:     \"elan-touchscreen\"".to_owned(),
            ];
            reader_lines.extend(tap.iter().map(|l| form(l)));
            let taps: Vec<(i64, i64)> =
                reader_lines.iter().filter_map(|l| reader.feed(l)).collect();
            assert_eq!(taps, [(1040, 3000)], "{}", form("..."));
        }
        // A lift with no contact seen (the finger was down before getevent started): no tap.
        let mut reader = TapReader::default();
        for l in &tap[12..] {
            assert_eq!(reader.feed(l), None);
        }
    }

    #[test]
    fn no_touchscreen_no_panel() {
        let keys_only = "add device 1: /dev/input/event0\n  name: \"gpio-keys\"\n  events:\n    KEY (0001): 0072\n  input props:\n    <none>\n";
        assert_eq!(Panel::find(&parse_getevent(keys_only), (800, 1280)), None);
        assert_eq!(Panel::find(&parse_getevent(""), (800, 1280)), None);
        assert_eq!(Panel::find(&parse_getevent(NEXUS7), (0, 1280)), None);
    }

    #[test]
    fn a_touch_is_protocol_b() {
        let panel = Panel::find(&parse_getevent(NEXUS7), (800, 1280)).expect("a panel");
        let touch = |phase| Touch {
            phase,
            x: 100,
            y: 300,
        };
        assert_eq!(
            panel.script(&panel.events(touch(Phase::Down), 7)),
            "sendevent /dev/input/event0 3 47 0;sendevent /dev/input/event0 3 57 7;\
             sendevent /dev/input/event0 3 53 512;sendevent /dev/input/event0 3 54 960;\
             sendevent /dev/input/event0 1 330 1;sendevent /dev/input/event0 0 0 0"
        );
        assert_eq!(
            panel.events(touch(Phase::Move), 7),
            vec![(3, 0x35, 512), (3, 0x36, 960), (0, 0, 0)]
        );
        assert_eq!(
            panel.events(touch(Phase::Up), 7),
            vec![(3, 0x39, -1), (1, 0x14a, 0), (0, 0, 0)]
        );
    }
}
