//! The virtual phone: a simulated Android device that real ADB software can drive, running a
//! round of the game and refereeing every touch. `adbd` speaks the device side of ADB over
//! loopback TCP; `service` runs what a stream opens (shell, exec, sync, framebuffer, tcp);
//! `shell` is the little of Android's shell the bot and its users need; `input` turns the
//! touch routes (`input`, `sendevent`, `monkey`) into samples; `game` is the game and its
//! referee; `layout` and `screen` are what it looks like. It must behave like a real phone:
//! the bot may never know it is talking to a simulator.
//!
//! [`Device`] is the phone's shared state (the game, device-side sockets, files, the
//! touchscreen); [`Sim`] is a device plus the adbd serving it.

pub mod adbd;
pub mod game;
pub mod input;
pub mod layout;
pub mod screen;
pub mod service;
pub mod shell;
pub mod sync;
/// The ADB message codec (shared with the host side in `phone`).
pub use crate::wire;

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use image::RgbaImage;

use crate::dict::Trie;
use adbd::{Adbd, StreamIo};
use game::{Action, Game, GameConfig, Route, View};
use layout::Layout;

/// The phones the simulator can be, each with its own Android version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// Nexus 7 (2012): 800x1280, Android 5.1 (sdk 22), the phone the original bot drove.
    Nexus7,
    /// A recent Pixel: 1080x2400, Android 13 (sdk 33).
    Pixel,
    /// A small old phone: 480x800, Android 4.4 (sdk 19).
    Small,
}

impl Model {
    pub const ALL: [Model; 3] = [Model::Nexus7, Model::Pixel, Model::Small];

    /// The name users type (`--model nexus7`).
    pub fn name(self) -> &'static str {
        match self {
            Model::Nexus7 => "nexus7",
            Model::Pixel => "pixel",
            Model::Small => "small",
        }
    }

    /// The Android API level.
    pub fn sdk(self) -> u32 {
        match self {
            Model::Nexus7 => 22,
            Model::Pixel => 33,
            Model::Small => 19,
        }
    }

    /// ro.build.version.release
    pub fn release(self) -> &'static str {
        match self {
            Model::Nexus7 => "5.1.1",
            Model::Pixel => "13",
            Model::Small => "4.4.4",
        }
    }

    /// ro.product.cpu.abi
    pub fn abi(self) -> &'static str {
        match self {
            Model::Pixel => "arm64-v8a",
            Model::Nexus7 | Model::Small => "armeabi-v7a",
        }
    }

    /// (ro.product.name, ro.product.model, ro.product.device)
    pub fn product(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Model::Nexus7 => ("nakasi", "Nexus 7", "grouper"),
            Model::Pixel => ("panther", "Pixel 7", "panther"),
            Model::Small => ("scramblebot_small", "Small Phone", "small"),
        }
    }

    /// Screen density in dpi (`wm density`).
    pub fn density(self) -> u32 {
        match self {
            Model::Nexus7 => 213,
            Model::Pixel => 420,
            Model::Small => 240,
        }
    }

    /// What starting a Java tool (`input`, `monkey`) costs on this phone: a JVM per call,
    /// hundreds of milliseconds before Android 12, tens after.
    pub fn jvm_start(self) -> Duration {
        Duration::from_millis(match self {
            Model::Nexus7 => 350,
            Model::Pixel => 60,
            Model::Small => 500,
        })
    }

    /// Whether adbd has the `exec:` service, a command without a terminal (`adb exec-out`;
    /// Android 5.0, sdk 21, and later).
    pub fn has_exec(self) -> bool {
        self.sdk() >= 21
    }

    /// Whether adbd speaks shell protocol v2 (Android 7, sdk 24, and later).
    pub fn has_shell_v2(self) -> bool {
        self.sdk() >= 24
    }

    /// What adbd says of itself in its CNXN. Only features the sim implements are claimed: a
    /// host that sees a feature uses it.
    pub fn banner(self) -> String {
        let (name, model, device) = self.product();
        let features = if self.has_shell_v2() { "shell_v2" } else { "" };
        format!(
            "device::ro.product.name={name};ro.product.model={model};ro.product.device={device};features={features}"
        )
    }
}

/// Everything a virtual phone is started with.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub model: Model,
    pub game: GameConfig,
    /// Where the JSON report is rewritten after every stroke.
    pub report: Option<PathBuf>,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            model: Model::Nexus7,
            game: GameConfig::default(),
            report: None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A virtual phone's state, shared by every connection and service.
pub struct Device {
    model: Model,
    layout: Layout,
    epoch: Instant,
    game: Mutex<Game>,
    /// Device-side sockets listening on loopback ports (what `tcp:N` connects to).
    ports: Mutex<HashMap<u16, SyncSender<StreamIo>>>,
    pub(crate) files: Mutex<sync::Files>,
    pub(crate) touchscreen: Mutex<input::Touchscreen>,
    /// Where each kernel input event goes besides the touchscreen (running `getevent`s).
    pub(crate) input_watchers: Mutex<Vec<std::sync::mpsc::Sender<input::InputEvent>>>,
    pub(crate) settings: Mutex<BTreeMap<String, String>>,
    screen: Mutex<Option<(View, Arc<RgbaImage>)>>,
    report: Option<PathBuf>,
    report_lock: Mutex<()>,
}

impl Device {
    pub fn new(config: SimConfig) -> Arc<Device> {
        let layout = Layout::of(config.model);
        let game = Game::new(config.game, layout.clone(), Trie::enable());
        let device = Arc::new(Device {
            model: config.model,
            epoch: Instant::now(),
            game: Mutex::new(game),
            ports: Mutex::new(HashMap::new()),
            files: Mutex::new(sync::Files::new(config.model)),
            touchscreen: Mutex::new(input::Touchscreen::new(config.model)),
            input_watchers: Mutex::new(Vec::new()),
            settings: Mutex::new(BTreeMap::new()),
            screen: Mutex::new(None),
            report: config.report,
            report_lock: Mutex::new(()),
            layout,
        });
        device.write_report();
        device
    }

    pub fn model(&self) -> Model {
        self.model
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Time since the phone started.
    pub fn now(&self) -> Duration {
        self.epoch.elapsed()
    }

    /// The game, locked (for its state and report; touches go through `touch`).
    pub fn game(&self) -> MutexGuard<'_, Game> {
        lock(&self.game)
    }

    /// One touch sample reaching the app, from `route`, in display pixels.
    pub fn touch(&self, route: Route, action: Action, x: f32, y: f32) {
        let ended = lock(&self.game).touch(self.now(), route, action, x, y);
        if ended {
            self.write_report();
        }
    }

    /// What the screen shows now (drawn again only when something on it changed).
    pub fn screenshot(&self) -> Arc<RgbaImage> {
        let view = lock(&self.game).view(self.now(), true);
        let mut cache = lock(&self.screen);
        if let Some((v, img)) = cache.as_ref()
            && *v == view
        {
            return img.clone();
        }
        let img = Arc::new(screen::render(&self.layout, &view));
        *cache = Some((view, img.clone()));
        img
    }

    /// The referee's report.
    pub fn report(&self) -> game::Report {
        let mut report = lock(&self.game).report(self.now());
        report.model = Some(self.model.name().to_owned());
        report
    }

    /// Rewrites the report file, if there is one (atomically: a reader never sees half).
    pub fn write_report(&self) {
        let Some(path) = &self.report else { return };
        let _one_writer = lock(&self.report_lock);
        let text = match serde_json::to_string_pretty(&self.report()) {
            Ok(t) => t,
            Err(e) => return tracing::warn!("cannot serialise the report: {e}"),
        };
        let tmp = path.with_extension("json.tmp");
        let written = std::fs::write(&tmp, text + "\n").and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = written {
            tracing::warn!("cannot write the report to {}: {e}", path.display());
        }
    }

    /// Writes a file as the shell would (`> PATH`): /dev/null swallows everything, input
    /// nodes take raw events (where Android allows), the rest goes to the phone's files.
    pub fn write_file(&self, path: &str, bytes: &[u8], append: bool) -> Result<(), sync::FsError> {
        if path == "/dev/null" {
            return Ok(());
        }
        if path.starts_with("/dev/input/") {
            return self.write_input_node(path, bytes);
        }
        let mtime = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as u32);
        lock(&self.files).write(path, bytes, append, 0o644, mtime)
    }

    /// A file's contents, or why it cannot be read.
    pub fn read_file_checked(&self, path: &str) -> Result<Vec<u8>, sync::FsError> {
        if path == "/dev/null" {
            return Ok(Vec::new());
        }
        lock(&self.files).read(path).map(<[u8]>::to_vec)
    }

    /// A file's contents, if it can be read.
    pub fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        self.read_file_checked(path).ok()
    }

    /// Starts listening on device port `port`; `None` if something already listens there.
    /// Connections arrive on the receiver; dropping the guard stops listening.
    pub fn listen(self: &Arc<Self>, port: u16) -> Option<PortGuard> {
        let mut ports = lock(&self.ports);
        if ports.contains_key(&port) {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        ports.insert(port, tx);
        Some(PortGuard {
            device: self.clone(),
            port,
            incoming: rx,
        })
    }

    /// What listens on device port `port`.
    pub(crate) fn listener(&self, port: u16) -> Option<SyncSender<StreamIo>> {
        lock(&self.ports).get(&port).cloned()
    }
}

/// A listening device-side socket.
pub struct PortGuard {
    device: Arc<Device>,
    port: u16,
    pub incoming: Receiver<StreamIo>,
}

impl Drop for PortGuard {
    fn drop(&mut self) {
        lock(&self.device.ports).remove(&self.port);
    }
}

/// A virtual phone served over ADB on a loopback port. Dropping it stops it.
pub struct Sim {
    device: Arc<Device>,
    adbd: Adbd,
}

impl Sim {
    /// Starts a phone and its adbd on `addr` (port 0 picks a free one).
    pub fn start(addr: SocketAddr, config: SimConfig) -> io::Result<Sim> {
        let device = Device::new(config);
        let adbd = Adbd::start(addr, device.clone())?;
        Ok(Sim { device, adbd })
    }

    /// Where its adbd listens.
    pub fn addr(&self) -> SocketAddr {
        self.adbd.addr()
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }
}
