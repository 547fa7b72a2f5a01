//! A virtual phone's state, shared by every connection and service: the game, the screen it
//! shows, device-side sockets, files, the touchscreen, running `getevent`s and settings, all
//! behind one lock (`State`), so no two parts can be seen out of step and no lock order can
//! deadlock. The lock is never held across I/O or drawing: a screenshot is drawn outside it,
//! and the report file is written under a writer lock of its own.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use image::RgbaImage;

use super::clock::Clock;
use super::files::{Files, FsError};
use super::game::{Action, Game, GameConfig, Key, Report, Route, View};
use super::layout::Layout;
use super::model::Model;
use super::screen::{self, Face};
use super::stream::StreamIo;
use super::touchscreen::{InputEvent, Touchscreen};
use crate::dict::Trie;

/// Everything a virtual phone is started with.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub model: Model,
    pub game: GameConfig,
    /// Where the JSON report is rewritten after every stroke.
    pub report: Option<PathBuf>,
    /// The typeface of the tiles' letters (DejaVu Sans Bold without one).
    pub letters: Option<Face>,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            model: Model::Nexus7,
            game: GameConfig::default(),
            report: None,
            letters: None,
        }
    }
}

/// Everything on the phone that changes, in typed parts.
struct State {
    game: Game,
    /// The last screen drawn, with the view it shows (drawn again only when that changes).
    screen: Option<(View, Arc<RgbaImage>)>,
    /// Device-side sockets listening on loopback ports (what `tcp:N` connects to).
    ports: HashMap<u16, Listener>,
    files: Files,
    touchscreen: Touchscreen,
    /// Where each kernel input event goes besides the touchscreen (running `getevent`s).
    input_watchers: Vec<Sender<InputEvent>>,
    /// `settings put` values, by "namespace/key".
    settings: BTreeMap<String, String>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A virtual phone's state, shared by every connection and service.
pub struct Device {
    model: Model,
    layout: Layout,
    clock: Clock,
    state: Mutex<State>,
    report: Option<PathBuf>,
    letters: Option<Face>,
    /// What stays on the screen while a round's board does (drawn outside the state's lock).
    backdrop: Mutex<screen::Backdrop>,
    /// One report writer at a time (the file is replaced whole).
    report_writer: Mutex<()>,
}

/// The game, locked: the phone's state is, for as long as this lives.
pub struct GameGuard<'a>(MutexGuard<'a, State>);

impl std::ops::Deref for GameGuard<'_> {
    type Target = Game;
    fn deref(&self) -> &Game {
        &self.0.game
    }
}

impl std::ops::DerefMut for GameGuard<'_> {
    fn deref_mut(&mut self) -> &mut Game {
        &mut self.0.game
    }
}

impl Device {
    pub fn new(config: SimConfig) -> Arc<Device> {
        Device::with_clock(config, Clock::wall())
    }

    /// A phone whose time is `clock`'s.
    pub fn with_clock(config: SimConfig, clock: Clock) -> Arc<Device> {
        let layout = Layout::of(config.model);
        let mut game = config.game;
        // The game's own list, held once (by the game), or ENABLE.
        let words = game.words.take().unwrap_or_else(Trie::enable);
        let game = Game::new(game, layout.clone(), words);
        let device = Arc::new(Device {
            model: config.model,
            clock,
            state: Mutex::new(State {
                game,
                screen: None,
                ports: HashMap::new(),
                files: Files::new(),
                touchscreen: Touchscreen::new(config.model),
                input_watchers: Vec::new(),
                settings: BTreeMap::new(),
            }),
            report: config.report,
            letters: config.letters,
            backdrop: Mutex::new(screen::Backdrop::default()),
            report_writer: Mutex::new(()),
            layout,
        });
        device.write_report();
        device
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub fn model(&self) -> Model {
        self.model
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Time since the phone started.
    pub fn now(&self) -> Duration {
        self.clock.now()
    }

    /// Where the phone's time comes from, and how its services let time pass.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The game, locked (for its state and report; touches go through `touch`). Hold it only
    /// for a statement: every other part of the phone waits meanwhile.
    pub fn game(&self) -> GameGuard<'_> {
        GameGuard(self.state())
    }

    /// One touch sample reaching the app, from `route`, in display pixels.
    pub fn touch(&self, route: Route, action: Action, x: f32, y: f32) {
        let ended = self.state().game.touch(self.now(), route, action, x, y);
        if ended {
            self.write_report();
        }
    }

    /// A key pressed: the wake and sleep keys turn the screen on or off.
    pub fn key(&self, key: Key) {
        let now = self.now();
        self.state().game.key(now, key);
    }

    /// What the screen shows now (drawn again only when something on it changed; drawing
    /// happens outside the lock).
    pub fn screenshot(&self) -> Arc<RgbaImage> {
        let view = {
            let mut state = self.state();
            let view = state.game.view(self.now(), true);
            if let Some((v, img)) = &state.screen
                && *v == view
            {
                return img.clone();
            }
            view
        };
        let img = screen::render_on(
            &self.layout,
            &view,
            self.letters.as_ref(),
            &mut lock(&self.backdrop),
        );
        let img = Arc::new(img);
        self.state().screen = Some((view, img.clone()));
        img
    }

    /// The referee's report.
    pub fn report(&self) -> Report {
        let mut report = self.state().game.report(self.now());
        report.model = Some(self.model.name().to_owned());
        report
    }

    /// Rewrites the report file, if there is one (atomically: a reader never sees half).
    pub fn write_report(&self) {
        let Some(path) = &self.report else { return };
        let _one_writer = lock(&self.report_writer);
        let text = match serde_json::to_string_pretty(&self.report()) {
            Ok(t) => t,
            Err(e) => return tracing::warn!("cannot serialise the report: {e}"),
        };
        // A regular file (or a new one) is replaced whole; anything else (/dev/null, a pipe,
        // a terminal) is written to, never renamed over: `--report /dev/null` run as root
        // once replaced the machine's /dev/null with a file.
        let regular = std::fs::metadata(path).map_or(true, |m| m.is_file());
        let written = if regular {
            // Rewritten after every word: the system writes it to disk when it will.
            crate::files::replace(path, (text + "\n").as_bytes(), crate::files::Sync::Lazy)
        } else {
            std::fs::write(path, text + "\n")
        };
        if let Err(e) = written {
            tracing::warn!("cannot write the report to {}: {e}", path.display());
        }
    }

    /// Writes a file as the shell would (`> PATH`): /dev/null swallows everything, input
    /// nodes take raw events (where Android allows), the rest goes to the phone's files.
    pub fn write_file(&self, path: &str, bytes: &[u8], append: bool) -> Result<(), FsError> {
        if path == "/dev/null" {
            return Ok(());
        }
        if path.starts_with("/dev/input/") {
            return self.write_input_node(path, bytes);
        }
        let mtime = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as u32);
        self.state().files.write(path, bytes, append, 0o644, mtime)
    }

    /// A file's contents, or why it cannot be read.
    pub fn read_file_checked(&self, path: &str) -> Result<Vec<u8>, FsError> {
        if path == "/dev/null" {
            return Ok(Vec::new());
        }
        self.state().files.read(path).map(<[u8]>::to_vec)
    }

    /// A file's contents, if it can be read.
    pub fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        self.read_file_checked(path).ok()
    }

    /// Works on the phone's files (for `sync:`), locked for as long as `f` runs.
    pub fn with_files<T>(&self, f: impl FnOnce(&mut Files) -> T) -> T {
        f(&mut self.state().files)
    }

    /// A setting (`settings get`), by "namespace/key".
    pub fn setting(&self, key: &str) -> Option<String> {
        self.state().settings.get(key).cloned()
    }

    /// Sets a setting (`settings put`).
    pub fn set_setting(&self, key: String, value: String) {
        self.state().settings.insert(key, value);
    }

    /// Starts listening on device port `port`; `None` if something already listens there.
    /// Connections arrive on the receiver; dropping the guard stops listening.
    pub fn listen(self: &Arc<Self>, port: u16) -> Option<PortGuard> {
        let mut state = self.state();
        if state.ports.contains_key(&port) {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        state.ports.insert(port, Listener::Streams(tx));
        Some(PortGuard {
            device: self.clone(),
            port,
            incoming: rx,
        })
    }

    /// What listens on device port `port`.
    pub fn listener(&self, port: u16) -> Option<SyncSender<StreamIo>> {
        match self.state().ports.get(&port)? {
            Listener::Streams(tx) => Some(tx.clone()),
            Listener::Inline(_) => None,
        }
    }

    /// Starts serving `service` inline on device port `port` (on the caller's clock, where a
    /// command cannot wait for connections); false if something already listens there.
    pub fn listen_inline(&self, port: u16, service: Inline) -> bool {
        let mut state = self.state();
        if state.ports.contains_key(&port) {
            return false;
        }
        state.ports.insert(port, Listener::Inline(service));
        true
    }

    /// What is served inline on device port `port`.
    pub fn inline_listener(&self, port: u16) -> Option<Inline> {
        match self.state().ports.get(&port)? {
            Listener::Inline(service) => Some(*service),
            Listener::Streams(_) => None,
        }
    }

    /// Stops everything served inline (the shells that started it have gone).
    pub fn stop_all_inline(&self) {
        self.state()
            .ports
            .retain(|_, l| !matches!(l, Listener::Inline(_)));
    }

    /// Stops what is served inline on device port `port`.
    pub fn stop_inline(&self, port: u16) {
        let mut state = self.state();
        if let Some(Listener::Inline(_)) = state.ports.get(&port) {
            state.ports.remove(&port);
        }
    }

    /// The touchscreen's nodes as `getevent -p` describes them (`labels`: with `-l`).
    pub fn describe_input(&self, labels: bool) -> String {
        self.state().touchscreen.describe(labels)
    }

    /// Every input node, (path, name), as getevent opens them.
    pub fn input_nodes(&self) -> Vec<(&'static str, &'static str)> {
        self.state().touchscreen.nodes().collect()
    }

    /// Whether `path` is an input device node of this phone.
    pub fn has_input_node(&self, path: &str) -> bool {
        self.state().touchscreen.node(path).is_some()
    }

    /// One kernel input event written to a /dev/input node (by `sendevent` or a raw write).
    pub fn input_event(&self, path: &str, kind: u16, code: u16, value: i32) {
        self.kernel_event(path, kind, code, value, Route::Sendevent);
    }

    /// One event on an input node, from `route`: to the running `getevent`s, and to the
    /// touchscreen's state (the app sees the touch it completes).
    fn kernel_event(&self, path: &str, kind: u16, code: u16, value: i32, route: Route) {
        let touch = {
            let mut state = self.state();
            let touch = state.touchscreen.event(path, kind, code, value);
            if let Some(path) = state.touchscreen.node(path) {
                let event = InputEvent {
                    path,
                    time: self.now(),
                    kind,
                    code,
                    value,
                };
                state
                    .input_watchers
                    .retain(|w| w.send(event.clone()).is_ok());
            }
            touch
        };
        if let Some((action, x, y)) = touch {
            self.touch(route, action, x, y);
        }
    }

    /// The events on every input node from now on, until the receiver is dropped.
    pub fn watch_input(&self) -> Receiver<InputEvent> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.state().input_watchers.push(tx);
        rx
    }

    /// A finger taps the touchscreen at (x, y) display pixels: the panel reports the contact
    /// in its raw units (multitouch protocol B), held `hold`, as a person's tap. The game sees
    /// it and `getevent` shows it, as on a phone.
    pub fn finger_tap(&self, at: (f32, f32), hold: Duration) {
        let id = self.now().as_millis() as i32 & 0xffff;
        let (path, (down, up)) = {
            let state = self.state();
            (state.touchscreen.path(), state.touchscreen.finger(at, id))
        };
        for (kind, code, value) in down {
            self.kernel_event(path, kind, code, value, Route::Finger);
        }
        self.clock.pass(hold);
        for (kind, code, value) in up {
            self.kernel_event(path, kind, code, value, Route::Finger);
        }
    }

    /// Raw `struct input_event` records written to a node (16 bytes on 32-bit phones, 24 on
    /// 64-bit: the time, then type u16, code u16, value i32).
    fn write_input_node(&self, path: &str, bytes: &[u8]) -> Result<(), FsError> {
        if self.model.sdk() > 28 {
            return Err(FsError::Denied);
        }
        if !self.has_input_node(path) {
            return Err(FsError::NotFound);
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
            let value = i32::from_le_bytes([body[4], body[5], body[6], body[7]]);
            self.input_event(path, kind, code, value);
        }
        Ok(())
    }
}

/// What listens on a device port.
enum Listener {
    /// A command waiting for connections (`PortGuard::incoming`).
    Streams(SyncSender<StreamIo>),
    /// A service run inline by whoever connects, on the caller's clock.
    Inline(Inline),
}

/// A service a device port can serve inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inline {
    /// The monkey's network protocol.
    Monkey,
}

/// A listening device-side socket.
pub struct PortGuard {
    device: Arc<Device>,
    port: u16,
    pub incoming: Receiver<StreamIo>,
}

impl Drop for PortGuard {
    fn drop(&mut self) {
        self.device.state().ports.remove(&self.port);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::game::StrokeKind;
    use crate::sim::touchscreen::{
        ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID, EV_ABS, EV_SYN, SYN_REPORT,
    };

    #[test]
    fn a_report_to_something_not_a_file_is_written_to_not_renamed_over() {
        use std::io::Read;
        use std::os::unix::fs::FileTypeExt;
        // A named pipe stands for /dev/null and its kind, which a test must not risk.
        let dir = std::env::temp_dir().join(format!("scramblebot-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("report");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("note: no mkfifo here; skipped");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || {
                let mut text = String::new();
                let _ = std::fs::File::open(&fifo).and_then(|mut f| f.read_to_string(&mut text));
                text
            })
        };
        let device = Device::new(SimConfig {
            report: Some(fifo.clone()),
            ..SimConfig::default()
        });
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(reader.join().unwrap().contains("\"board\""));
        drop(device);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn raw_writes_to_the_touch_node_work_up_to_android_9() {
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
            letters: None,
        };
        let nexus = Device::new(config(Model::Nexus7));
        nexus
            .write_file("/dev/input/event0", &events, false)
            .unwrap();
        let strokes = nexus.game().strokes().to_vec();
        assert_eq!(strokes.len(), 1);
        assert_eq!(
            (strokes[0].kind, &strokes[0].tiles[..]),
            (StrokeKind::Tap, &[[0, 0]][..])
        );
        let pixel = Device::new(config(Model::Pixel));
        assert_eq!(
            pixel.write_file("/dev/input/event3", &events, false),
            Err(FsError::Denied)
        );
    }
}
