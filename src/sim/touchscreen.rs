//! The phone's touchscreen as the kernel sees it: its input nodes as `getevent -p` lists them
//! (raw ranges that need not match the pixels), multitouch protocol B between SYN_REPORTs,
//! and the events a finger makes. Pure state; the device keeps it behind its lock and turns
//! completed touches into the game's samples.

use std::time::Duration;

use super::game::Action;
use super::layout::Layout;
use super::model::Model;

pub const EV_SYN: u16 = 0;
pub const EV_KEY: u16 = 1;
pub const EV_ABS: u16 = 3;
pub const SYN_REPORT: u16 = 0;
pub const BTN_TOUCH: u16 = 0x14a;
pub const ABS_MT_SLOT: u16 = 0x2f;
pub const ABS_MT_TOUCH_MAJOR: u16 = 0x30;
pub const ABS_MT_POSITION_X: u16 = 0x35;
pub const ABS_MT_POSITION_Y: u16 = 0x36;
pub const ABS_MT_TRACKING_ID: u16 = 0x39;
pub const ABS_MT_PRESSURE: u16 = 0x3a;

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
        let layout = Layout::of(model);
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

    /// The node `path`, as its static name, if the phone has it.
    pub fn node(&self, path: &str) -> Option<&'static str> {
        self.nodes.iter().find(|n| n.path == path).map(|n| n.path)
    }

    /// Every input node, (path, name), as getevent opens them: the last first.
    pub fn nodes(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.nodes.iter().rev().map(|n| (n.path, n.name))
    }

    /// The raw events of a finger on the touchscreen at (x, y) display pixels with tracking
    /// id `id`: the contact going down (multitouch protocol B), and lifting.
    #[allow(clippy::type_complexity)]
    pub fn finger(
        &self,
        (x, y): (f32, f32),
        id: i32,
    ) -> (Vec<(u16, u16, i32)>, Vec<(u16, u16, i32)>) {
        let node = &self.nodes[self.touch];
        let raw = self.to_raw((x, y));
        let mut down = Vec::new();
        if node.abs.iter().any(|a| a.0 == ABS_MT_SLOT) {
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
        let up = vec![
            (EV_ABS, ABS_MT_TRACKING_ID, -1),
            (EV_KEY, BTN_TOUCH, 0),
            (EV_SYN, SYN_REPORT, 0),
        ];
        (down, up)
    }

    /// The touchscreen's device node.
    pub fn path(&self) -> &'static str {
        self.nodes[self.touch].path
    }

    /// Raw units to display pixels, as Android's input reader maps them in portrait.
    pub fn to_pixels(&self, raw: (i32, i32)) -> (f32, f32) {
        let map = |v: i32, (min, max): (i32, i32), size: u32| {
            (v - min) as f32 * size as f32 / (max - min + 1) as f32
        };
        (
            map(raw.0, self.x_range, self.width),
            map(raw.1, self.y_range, self.height),
        )
    }

    /// Display pixels to raw units (the nearest raw unit whose map back lands in the pixel).
    pub fn to_raw(&self, (x, y): (f32, f32)) -> (i32, i32) {
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
    pub fn event(
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
    pub fn describe(&self, labels: bool) -> String {
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

pub fn key_label(code: u16) -> Option<&'static str> {
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

pub fn abs_label(code: u16) -> Option<&'static str> {
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
}
