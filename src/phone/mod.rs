//! The phone as the bot sees it: a connection over ADB, the facts the bot needs (screen size,
//! Android version), shell commands, and the input routes that carry gestures to the game.
//! Every call is bounded by a timeout: a phone that stops answering is an error, never a hang.
//! Two ways to reach a phone: through the adb server, as every Android tool does (adb_client,
//! blocking, so each call runs on a blocking thread under a timeout), or `direct`, straight to
//! a phone's adbd over TCP (the built-in virtual phone needs no adb at all), or to a phone in
//! this process (`in_process`, the virtual phone in tests on a paused clock). Two input routes
//! live here, each a persistent connection paced by the host: the monkey's socket, and
//! `sendevent` lines fed to a shell (`sendevent`).

pub mod direct;
pub mod host;
pub mod in_process;
pub mod sendevent;
pub mod track;

use std::net::{SocketAddr, SocketAddrV4};
use std::time::Duration;

use adb_client::ADBDeviceExt;
use adb_client::server_device::ADBServerDevice;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::gesture::{Phase, Touch};
use direct::{Direct, DirectError, Stream};

/// How long one shell command may take.
const SHELL_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a screenshot may take (a 1440x3120 raw dump is 18 MB).
const SCREENSHOT_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a screen just turned on is given before the keyguard is asked about.
const SCREEN_ON_WAIT: Duration = Duration::from_millis(500);
/// How long a keyguard is given to go after a key or command that dismisses it.
const KEYGUARD_SETTLE: Duration = Duration::from_millis(500);
/// How long one monkey command may take to be answered.
const MONKEY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the monkey may take to start listening (a JVM start, slow on old phones).
const MONKEY_START: Duration = Duration::from_secs(15);

/// Why talking to a phone failed. Every variant carries what a caller needs to say what
/// happened or to act on it; none names a command-line flag (the CLI adds those hints).
#[derive(Debug, thiserror::Error)]
pub enum PhoneError {
    #[error(transparent)]
    Adb(#[from] DirectError),
    #[error("the phone did not answer {what} within {limit:?}")]
    Timeout { what: String, limit: Duration },
    #[error("unexpected answer to {asked}: {answer:?}")]
    Unexpected { asked: String, answer: String },
    #[error("the monkey refused {command:?}: {answer}")]
    Monkey { command: String, answer: String },
    #[error(
        "no adb server answers at {server} and none could be started (is `adb` installed? `apt-get install adb`): {why}"
    )]
    NoServer { server: SocketAddrV4, why: String },
    #[error("no phone is attached to the adb server")]
    NoDevice,
    #[error("several phones are attached ({})", list(.attached))]
    SeveralDevices { attached: Vec<String> },
    #[error("no phone {serial} is attached to the adb server (attached: {})", list(.attached))]
    NotAttached {
        serial: String,
        attached: Vec<String>,
    },
    #[error("phone {serial} is unauthorized: unlock it and accept this computer's key")]
    Unauthorized { serial: String },
    #[error("phone {serial} is {state}, not ready (wait for it, or reconnect it)")]
    NotReady { serial: String, state: String },
    #[error("the adb server cannot connect to {addr}: {why}")]
    Connect { addr: SocketAddr, why: String },
    #[error("adb server: {call}: {why}")]
    AdbServer { call: String, why: String },
    #[error("the {route} route cannot be used on this phone: {why}")]
    Route { route: &'static str, why: String },
    #[error("the screenshot from {service} is unreadable: {source}")]
    Screenshot {
        service: &'static str,
        source: crate::vision::VisionError,
    },
}

/// "a, b" (or "none").
fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items.join(", ")
    }
}

/// Runs a blocking adb_client call on a blocking thread, bounded by `limit`. (A call that
/// hangs or spins is abandoned on its thread: adb_client offers no way to cancel it. A
/// runtime dropped waits for such threads, so the commands shut theirs down with a grace
/// instead: `on_round_runtime` in src/cli/mod.rs.)
async fn blocking<T: Send + 'static>(
    what: &str,
    limit: Duration,
    f: impl FnOnce() -> Result<T, adb_client::RustADBError> + Send + 'static,
) -> Result<T, PhoneError> {
    let task = tokio::task::spawn_blocking(f);
    match tokio::time::timeout(limit, task).await {
        Err(_) => Err(PhoneError::Timeout {
            what: what.to_owned(),
            limit,
        }),
        Ok(Err(join)) => Err(PhoneError::AdbServer {
            call: what.to_owned(),
            why: join.to_string(),
        }),
        Ok(Ok(r)) => r.map_err(|e| PhoneError::AdbServer {
            call: what.to_owned(),
            why: e.to_string(),
        }),
    }
}

/// Asks the adb server at `server` (started if it is on loopback and not running) to connect
/// the TCP phone at `target`, as `adb connect` does.
pub async fn connect_tcp(server: SocketAddrV4, target: SocketAddr) -> Result<(), PhoneError> {
    // Making sure of the server first tells "no server" apart from "cannot reach the phone".
    ensure_server(server).await?;
    host::connect(server, target).await
}

/// Makes sure an adb server answers at `server`, starting one on loopback if none does.
pub async fn ensure_server(server: SocketAddrV4) -> Result<(), PhoneError> {
    host::ensure_server(server).await
}

/// Where the adb server is and which phone to use.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    pub server: SocketAddrV4,
    /// `-s SERIAL` (or ANDROID_SERIAL); `None`: the only phone attached.
    pub serial: Option<String>,
    /// `--connect HOST:PORT`: ask the server to attach this TCP phone first.
    pub connect: Option<SocketAddr>,
}

#[derive(Clone)]
enum Link {
    Direct(Direct),
    Server {
        server: SocketAddrV4,
        serial: String,
    },
}

async fn bounded<T>(
    what: &str,
    limit: Duration,
    f: impl std::future::Future<Output = Result<T, PhoneError>>,
) -> Result<T, PhoneError> {
    tokio::time::timeout(limit, f)
        .await
        .map_err(|_| PhoneError::Timeout {
            what: what.to_owned(),
            limit,
        })?
}

/// A connected phone (a clone shares the connection).
#[derive(Clone)]
pub struct Phone {
    link: Link,
    /// How to name it to the user (serial or address).
    pub serial: String,
    /// The Android API level.
    pub sdk: u32,
    /// Display size in portrait pixels (`wm size`, the override if there is one).
    pub screen: (u32, u32),
    pub model: String,
}

impl Phone {
    /// Connects straight to a phone's adbd at `addr` and reads what the bot needs to know.
    pub async fn connect_direct(addr: SocketAddr) -> Result<Phone, PhoneError> {
        let adb = bounded("the handshake", SHELL_TIMEOUT, async {
            Ok(Direct::connect(addr).await?)
        })
        .await?;
        let phone = Phone {
            link: Link::Direct(adb),
            serial: addr.to_string(),
            sdk: 0,
            screen: (0, 0),
            model: String::new(),
        };
        phone.learn().await
    }

    /// Reaches a phone in this process (the built-in virtual phone on the caller's clock, in
    /// tests), named `serial`, and reads what the bot needs to know.
    pub async fn connect_in_process(
        serial: &str,
        phone: std::sync::Arc<dyn in_process::InProcess>,
    ) -> Result<Phone, PhoneError> {
        let phone = Phone {
            link: Link::Direct(Direct::in_process(phone)),
            serial: serial.to_owned(),
            sdk: 0,
            screen: (0, 0),
            model: String::new(),
        };
        phone.learn().await
    }

    /// Connects through the adb server, picking the phone as `adb` would.
    pub async fn connect_server(opts: &ServerOptions) -> Result<Phone, PhoneError> {
        let server = opts.server;
        ensure_server(server).await?;
        if let Some(target) = opts.connect {
            host::connect(server, target).await?;
        }
        let wanted = opts
            .serial
            .clone()
            .or_else(|| opts.connect.map(|a| a.to_string()));
        // A TCP phone comes online a moment after `connect`.
        let started = tokio::time::Instant::now();
        let serial = loop {
            let devices = host::devices(server).await?;
            let listed: Vec<String> = devices
                .iter()
                .map(|d| format!("{} {}", d.serial, d.state))
                .collect();
            let chosen =
                match &wanted {
                    Some(w) => devices.iter().find(|d| &d.serial == w).ok_or_else(|| {
                        PhoneError::NotAttached {
                            serial: w.clone(),
                            attached: listed.clone(),
                        }
                    }),
                    None => match devices.as_slice() {
                        [] => Err(PhoneError::NoDevice),
                        [one] => Ok(one),
                        _ => Err(PhoneError::SeveralDevices {
                            attached: listed.clone(),
                        }),
                    },
                };
            let waiting = started.elapsed() < Duration::from_secs(5);
            match chosen {
                Ok(d) if d.ready() => break d.serial.clone(),
                Ok(d) if d.state == "unauthorized" => {
                    return Err(PhoneError::Unauthorized {
                        serial: d.serial.clone(),
                    });
                }
                Ok(d) if !waiting => {
                    return Err(PhoneError::NotReady {
                        serial: d.serial.clone(),
                        state: d.state.clone(),
                    });
                }
                Err(e) if !waiting || opts.connect.is_none() => return Err(e),
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        };
        let phone = Phone {
            link: Link::Server {
                server,
                serial: serial.clone(),
            },
            serial,
            sdk: 0,
            screen: (0, 0),
            model: String::new(),
        };
        phone.learn().await
    }

    /// Reads the Android version, the model and the screen size.
    async fn learn(mut self) -> Result<Phone, PhoneError> {
        let sdk = self.shell("getprop ro.build.version.sdk").await?;
        self.sdk = sdk.trim().parse().map_err(|_| PhoneError::Unexpected {
            asked: "getprop ro.build.version.sdk".into(),
            answer: sdk,
        })?;
        self.model = self
            .shell("getprop ro.product.model")
            .await?
            .trim()
            .to_owned();
        let size = self.shell("wm size").await?;
        self.screen = parse_wm_size(&size).ok_or_else(|| PhoneError::Unexpected {
            asked: "wm size".into(),
            answer: size.clone(),
        })?;
        Ok(self)
    }

    /// Whether adbd has the `exec:` service (a command without a terminal): Android 5, sdk
    /// 21, and later.
    fn has_exec(&self) -> bool {
        self.sdk >= 21
    }

    /// Runs a shell command and returns its output as text, lines ending in LF. Through
    /// `shell:` on both links, as every Android version has it (`exec:` came with Android 5,
    /// and the sdk is not known until a command has told it).
    pub async fn shell(&self, cmd: &str) -> Result<String, PhoneError> {
        match &self.link {
            Link::Direct(adb) => {
                let out = bounded(cmd, SHELL_TIMEOUT, async { Ok(adb.shell(cmd).await?) }).await?;
                // Before Android 7 the shell runs through a terminal: CRLF line ends.
                Ok(String::from_utf8_lossy(&out).replace("\r\n", "\n"))
            }
            Link::Server { server, serial } => {
                let (server, serial, cmd_owned) = (*server, serial.clone(), cmd.to_owned());
                let out = blocking(cmd, SHELL_TIMEOUT, move || {
                    let mut device = ADBServerDevice::new(serial, Some(server));
                    let mut out = Vec::new();
                    device.shell_command(&cmd_owned, Some(&mut out), None)?;
                    Ok(out)
                })
                .await?;
                // Before Android 7 the shell runs through a terminal: CRLF line ends.
                Ok(String::from_utf8_lossy(&out).replace("\r\n", "\n"))
            }
        }
    }

    /// Whether the screen is on (`dumpsys power`); `None` when the phone does not say.
    pub async fn screen_on(&self) -> Result<Option<bool>, PhoneError> {
        Ok(parse_wakefulness(&self.shell("dumpsys power").await?))
    }

    /// Turns the screen on if `dumpsys power` says it is off; true if it was. KEYCODE_WAKEUP
    /// from Android 4.4W (API 20); before it POWER, which turns an off screen on (and an on
    /// one off, hence the question first). A phone that does not say is taken to be on.
    pub async fn wake_if_off(&self) -> Result<bool, PhoneError> {
        if self.screen_on().await? != Some(false) {
            return Ok(false);
        }
        let key = if self.sdk >= 20 { 224 } else { 26 };
        self.shell(&format!("input keyevent {key}")).await?;
        Ok(true)
    }

    /// Whether a lock screen (keyguard) shows, as `dumpsys window policy` says; `None` when
    /// the phone does not say in a form known here (`parse_keyguard`).
    pub async fn keyguard_showing(&self) -> Result<Option<bool>, PhoneError> {
        Ok(parse_keyguard(&self.shell("dumpsys window policy").await?))
    }

    /// Turns the screen on if it has gone off, then, if a lock screen shows and `unlock`
    /// allows, dismisses it the ways a lock without a PIN, pattern or password is dismissed
    /// from the shell: `wm dismiss-keyguard` from Android 7 (API 24, where `wm` has it), then
    /// the MENU key, which the keyguard takes as "unlock" unless the phone's build turns that
    /// off (`config_disableMenuKeyInLockScreen`). Each is followed by a look at the keyguard,
    /// and MENU is sent only while it still shows (on the game it would open a menu). A
    /// secure lock stays: the bot cannot enter a PIN and never tries.
    pub async fn rouse(&self, unlock: bool) -> Result<Roused, PhoneError> {
        let woke = self.wake_if_off().await?;
        if woke {
            tokio::time::sleep(SCREEN_ON_WAIT).await;
        }
        let mut lock = Lock::None;
        if self.keyguard_showing().await? == Some(true) {
            lock = Lock::Stays;
            if unlock {
                let steps: &[&str] = if self.sdk >= 24 {
                    &["wm dismiss-keyguard", "input keyevent 82"]
                } else {
                    &["input keyevent 82"]
                };
                for step in steps {
                    self.shell(step).await?;
                    tokio::time::sleep(KEYGUARD_SETTLE).await;
                    if self.keyguard_showing().await? != Some(true) {
                        lock = Lock::Dismissed;
                        break;
                    }
                }
            }
        }
        Ok(Roused { woke, lock })
    }

    /// The screen, as pixels. Raw `screencap` through `exec:` from Android 5; before, adbd has
    /// no `exec:` and `shell:` runs through a terminal that mangles binary output, so the
    /// `framebuffer:` service. Never `screencap -p`: encoding a PNG on the phone takes seconds.
    pub async fn screenshot(&self) -> Result<image::RgbaImage, PhoneError> {
        Ok(self.screenshot_timed().await?.0)
    }

    /// `screenshot`, and when its first bytes came: the phone took the frame before then, so
    /// the screen it shows was on the phone no later (over a slow link the rest of the
    /// bytes take far longer than the frame took).
    pub async fn screenshot_timed(
        &self,
    ) -> Result<(image::RgbaImage, tokio::time::Instant), PhoneError> {
        let service = if self.has_exec() {
            "exec:screencap"
        } else {
            "framebuffer:"
        };
        let (bytes, first) = bounded(service, SCREENSHOT_TIMEOUT, async {
            match &self.link {
                Link::Direct(adb) => Ok(adb.open(service).await?.read_to_end_timed().await?),
                Link::Server { server, serial } => {
                    let mut socket = server_stream(*server, serial, service).await?;
                    let failed = |e: std::io::Error| PhoneError::AdbServer {
                        call: service.to_owned(),
                        why: e.to_string(),
                    };
                    let mut out = vec![0; 64 * 1024];
                    let n = socket.read(&mut out).await.map_err(failed)?;
                    let first = (n > 0).then(tokio::time::Instant::now);
                    out.truncate(n);
                    if n > 0 {
                        socket.read_to_end(&mut out).await.map_err(failed)?;
                    }
                    Ok((out, first))
                }
            }
        })
        .await?;
        let image = crate::vision::decode(&bytes)
            .map_err(|source| PhoneError::Screenshot { service, source })?;
        Ok((image, first.unwrap_or_else(tokio::time::Instant::now)))
    }

    /// Starts `cmd` in a shell and reads what it prints a line at a time, as it comes (for
    /// commands that run until stopped, such as `getevent`); it stops when the value is
    /// dropped.
    pub async fn watch(&self, cmd: &str) -> Result<Watch, PhoneError> {
        // `shell:`, which every Android version has (before 7 through a terminal: CRLF).
        let service = format!("shell:{cmd}");
        bounded(&service, SHELL_TIMEOUT, async {
            Ok(match &self.link {
                Link::Direct(adb) => Watch::Direct(adb.open(&service).await?),
                Link::Server { server, serial } => Watch::Server(BufReader::new(
                    server_stream(*server, serial, &service).await?,
                )),
            })
        })
        .await
    }

    /// Opens an interactive shell to feed lines to (what it prints is ignored).
    pub async fn line_shell(&self) -> Result<LineShell, PhoneError> {
        match &self.link {
            Link::Direct(adb) => {
                let stream = bounded("shell:", SHELL_TIMEOUT, async {
                    Ok(adb.open("shell:").await?)
                })
                .await?;
                Ok(LineShell {
                    link: LineShellLink::Direct(stream),
                    done: 0,
                })
            }
            Link::Server { server, serial } => {
                // adb_client's interactive shell asks for "shell,raw:", which adbd refuses before
                // Android 7 (no shell v2): a plain "shell:" stream of our own through the server.
                let socket = bounded("shell:", SHELL_TIMEOUT, async {
                    server_stream(*server, serial, "shell:").await
                })
                .await?;
                let (read, write) = socket.into_split();
                Ok(LineShell {
                    link: LineShellLink::Server {
                        read: BufReader::new(read),
                        write,
                    },
                    done: 0,
                })
            }
        }
    }

    /// Starts the monkey on device port `port` and connects to it. The monkey runs until
    /// `Monkey::quit` (or, directly connected, until the returned value is dropped).
    pub async fn monkey(&self, port: u16) -> Result<Monkey, PhoneError> {
        match &self.link {
            Link::Direct(adb) => {
                // `exec:` where adbd has it (Android 5), else `shell:`.
                let service = if self.has_exec() { "exec" } else { "shell" };
                let process = adb.open(&format!("{service}:monkey --port {port}")).await?;
                let started = tokio::time::Instant::now();
                loop {
                    // Until the monkey listens, the device refuses its port.
                    if let Ok(socket) = adb.open(&format!("tcp:{port}")).await {
                        let mut monkey = Monkey {
                            link: MonkeyLink::Direct {
                                _process: process,
                                socket,
                            },
                            _forward: None,
                        };
                        monkey.send("wake").await?;
                        return Ok(monkey);
                    }
                    monkey_wait(started).await?;
                }
            }
            Link::Server { server, serial } => monkey_through_server(*server, serial, port).await,
        }
    }
}

/// A pause before the next try at the monkey's port, or the timeout once it has had
/// `MONKEY_START` since `started` to listen.
async fn monkey_wait(started: tokio::time::Instant) -> Result<(), PhoneError> {
    if started.elapsed() > MONKEY_START {
        return Err(PhoneError::Timeout {
            what: "monkey --port".into(),
            limit: MONKEY_START,
        });
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(())
}

/// The monkey on `port` of the phone `serial`, reached through the adb server at `server`:
/// a port of this host forwarded to it (removed with the monkey), its shell on a thread.
async fn monkey_through_server(
    server: SocketAddrV4,
    serial: &str,
    port: u16,
) -> Result<Monkey, PhoneError> {
    let local = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(DirectError::Io)?
        .port();
    let s2 = serial.to_owned();
    blocking("adb forward", SHELL_TIMEOUT, move || {
        ADBServerDevice::new(s2, Some(server))
            .forward(format!("tcp:{port}"), format!("tcp:{local}"))
    })
    .await?;
    let forward = Forward {
        server,
        serial: serial.to_owned(),
        local,
    };
    // The monkey's shell lasts as long as the monkey: it gets a thread of its own.
    let s3 = serial.to_owned();
    std::thread::Builder::new()
        .name("monkey".into())
        .spawn(move || {
            let mut device = ADBServerDevice::new(s3, Some(server));
            let cmd = format!("monkey --port {port}");
            if let Err(e) = device.shell_command(&cmd, None, None) {
                tracing::debug!("monkey shell ended: {e}");
            }
        })
        .map_err(DirectError::Io)?;
    let started = tokio::time::Instant::now();
    loop {
        // Until the monkey listens, the forwarded connection closes at once.
        if let Ok(socket) = tokio::net::TcpStream::connect(("127.0.0.1", local)).await {
            let _ = socket.set_nodelay(true);
            let mut monkey = Monkey {
                link: MonkeyLink::Tcp(BufReader::new(socket)),
                _forward: None,
            };
            if monkey.send("wake").await.is_ok() {
                monkey._forward = Some(forward);
                return Ok(monkey);
            }
        }
        monkey_wait(started).await?;
    }
}

/// Whether the screen is on, from `dumpsys power`: `mWakefulness=Awake` is on; `Asleep`,
/// `Dozing` (an always-on display) and `Dreaming` (a screensaver) are not the game. `None`
/// when the text does not say.
pub fn parse_wakefulness(text: &str) -> Option<bool> {
    text.lines()
        .find_map(|l| l.trim().strip_prefix("mWakefulness="))
        .map(|w| w.trim() == "Awake")
}

/// Whether a lock screen shows, from `dumpsys window policy` (the window manager's policy
/// dump): `None` when it names none of the fields known here. Versions name it in their own
/// ways, and one version's dump may carry more than one of them (the fields below are read
/// from AOSP's `PhoneWindowManager.dump` and `KeyguardServiceDelegate.dump`):
/// - `mShowingLockscreen=` (Android 4; Android 5 still prints it, but draws the keyguard in
///   the status bar, so there it stays false);
/// - `isStatusBarKeyguard=` (from Android 5, printed with no line end after it);
/// - `showing=` under a `KeyguardServiceDelegate` heading (the keyguard service's own state,
///   in later versions' dumps).
///
/// Any one of them true means it shows.
pub fn parse_keyguard(text: &str) -> Option<bool> {
    // `name` followed by true or false, where `name` starts a word (`mShowingLockscreen=`
    // is not `showing=`).
    let field = |line: &str, name: &str| -> Option<bool> {
        let at = line.find(name)?;
        if line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            return None;
        }
        let value = &line[at + name.len()..];
        [("true", true), ("false", false)]
            .into_iter()
            .find_map(|(word, v)| value.starts_with(word).then_some(v))
    };
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut seen: Option<bool> = None;
    // The indentation of the `KeyguardServiceDelegate` heading while in its block.
    let mut delegate: Option<usize> = None;
    for line in text.lines() {
        if delegate.is_some_and(|d| line.trim().is_empty() || indent(line) <= d) {
            delegate = None;
        }
        if line.trim() == "KeyguardServiceDelegate" {
            delegate = Some(indent(line));
            continue;
        }
        let delegate_showing = delegate.and_then(|_| field(line.trim(), "showing="));
        for v in [
            field(line, "mShowingLockscreen="),
            field(line, "isStatusBarKeyguard="),
            delegate_showing,
        ]
        .into_iter()
        .flatten()
        {
            seen = Some(seen.unwrap_or(false) || v);
        }
    }
    seen
}

/// "Physical size: 800x1280" (and "Override size: ..." when set, which wins).
pub fn parse_wm_size(text: &str) -> Option<(u32, u32)> {
    let size = |prefix: &str| {
        text.lines().find_map(|l| {
            let (w, h) = l.trim().strip_prefix(prefix)?.trim().split_once('x')?;
            Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
        })
    };
    size("Override size:").or_else(|| size("Physical size:"))
}

/// What `Phone::rouse` found and did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Roused {
    /// The screen had gone off and was turned on.
    pub woke: bool,
    pub lock: Lock,
}

impl Roused {
    /// The screen was turned on or a lock screen dismissed: what shows has changed.
    pub fn changed(&self) -> bool {
        self.woke || self.lock == Lock::Dismissed
    }

    /// What was done, a line each for a person.
    pub fn lines(&self) -> impl Iterator<Item = &'static str> {
        [
            self.woke.then_some("the screen was off: turned it on"),
            (self.lock == Lock::Dismissed)
                .then_some("a lock screen covered the game: dismissed it"),
        ]
        .into_iter()
        .flatten()
    }
}

/// A lock screen, as `Phone::rouse` left it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Lock {
    /// None showed (or the phone did not say).
    #[default]
    None,
    /// One showed and was dismissed.
    Dismissed,
    /// One shows still: a PIN, pattern or password, or a phone that takes neither way.
    Stays,
}

/// A running shell command's output, line by line (`Phone::watch`).
pub enum Watch {
    Direct(Stream),
    Server(BufReader<tokio::net::TcpStream>),
}

impl Watch {
    /// The next line (without its line end), `None` when the command has ended, or a timeout
    /// error when none comes within `limit`.
    pub async fn next_line(&mut self, limit: Duration) -> Result<Option<String>, PhoneError> {
        bounded("the next line", limit, async {
            let line = match self {
                Watch::Direct(stream) => stream.read_line().await?,
                Watch::Server(read) => {
                    let mut l = String::new();
                    match read.read_line(&mut l).await {
                        Ok(0) => None,
                        Ok(_) => Some(l),
                        Err(e) => {
                            return Err(PhoneError::AdbServer {
                                call: "shell".into(),
                                why: e.to_string(),
                            });
                        }
                    }
                }
            };
            Ok(line.map(|l| l.trim_end_matches(['\r', '\n']).to_owned()))
        })
        .await
    }
}

/// An interactive shell on the phone fed one command line at a time, each acknowledged once
/// it has run (it ends with an `echo` of a marker, and we wait for the marker).
pub struct LineShell {
    link: LineShellLink,
    /// Lines run so far (numbers the markers).
    done: u64,
}

enum LineShellLink {
    /// A `shell:` stream straight to adbd.
    Direct(Stream),
    /// A `shell:` stream through the adb server.
    Server {
        read: BufReader<tokio::net::tcp::OwnedReadHalf>,
        write: tokio::net::tcp::OwnedWriteHalf,
    },
}

impl LineShell {
    /// Runs one command line and waits until it has run. What it prints is dropped.
    pub async fn run(&mut self, line: &str) -> Result<(), PhoneError> {
        self.done += 1;
        // The marker's line may start with the prompt ("shell@grouper:/ $ sb:7"); before
        // Android 7 the shell has a terminal, whose echo of the line typed ends with the marker
        // too ("...;echo sb:7"), and is skipped.
        let marker = format!("sb:{}", self.done);
        let text = format!("{line};echo {marker}\n");
        let echo = format!("echo {marker}");
        let is_marker = |l: &str| {
            let l = l.trim_end();
            l.ends_with(&marker) && !l.ends_with(&echo)
        };
        let closed = || PhoneError::Adb(DirectError::Closed);
        bounded("a shell line", MONKEY_TIMEOUT, async {
            match &mut self.link {
                LineShellLink::Direct(stream) => {
                    stream.write(text.as_bytes()).await?;
                    loop {
                        match stream.read_line().await? {
                            Some(l) if is_marker(&l) => break,
                            Some(_) => {}
                            None => return Err(closed()),
                        }
                    }
                }
                LineShellLink::Server { read, write } => {
                    write
                        .write_all(text.as_bytes())
                        .await
                        .map_err(|_| closed())?;
                    let mut l = String::new();
                    loop {
                        l.clear();
                        match read.read_line(&mut l).await {
                            Ok(0) | Err(_) => return Err(closed()),
                            Ok(_) if is_marker(&l) => break,
                            Ok(_) => {}
                        }
                    }
                }
            }
            Ok(())
        })
        .await
    }

    /// Ends the shell.
    pub async fn close(mut self) {
        let text = b"exit\n";
        let _ = tokio::time::timeout(MONKEY_TIMEOUT, async {
            match &mut self.link {
                LineShellLink::Direct(stream) => stream.write(text).await.is_ok(),
                LineShellLink::Server { write, .. } => write.write_all(text).await.is_ok(),
            }
        })
        .await;
    }
}

/// Opens `service` on phone `serial` through the adb server's smart socket: the request
/// `host:transport:SERIAL`, then the service; each answered OKAY (or FAIL and a reason).
async fn server_stream(
    server: SocketAddrV4,
    serial: &str,
    service: &str,
) -> Result<tokio::net::TcpStream, PhoneError> {
    let io = |e: std::io::Error| PhoneError::AdbServer {
        call: service.to_owned(),
        why: e.to_string(),
    };
    let mut socket = tokio::net::TcpStream::connect(server).await.map_err(io)?;
    socket.set_nodelay(true).map_err(io)?;
    for request in [format!("host:transport:{serial}"), service.to_owned()] {
        let framed = format!("{:04x}{request}", request.len());
        socket.write_all(framed.as_bytes()).await.map_err(io)?;
        let mut status = [0u8; 4];
        socket.read_exact(&mut status).await.map_err(io)?;
        if &status != b"OKAY" {
            let mut len = [0u8; 4];
            let mut reason = String::new();
            if socket.read_exact(&mut len).await.is_ok() {
                let n = std::str::from_utf8(&len)
                    .ok()
                    .and_then(|l| usize::from_str_radix(l, 16).ok())
                    .unwrap_or(0);
                let mut text = vec![0u8; n.min(4096)];
                if socket.read_exact(&mut text).await.is_ok() {
                    reason = String::from_utf8_lossy(&text).into_owned();
                }
            }
            return Err(PhoneError::AdbServer {
                call: request.to_owned(),
                why: reason,
            });
        }
    }
    Ok(socket)
}

/// The monkey's network protocol on one socket: a line per event, `OK` back.
pub struct Monkey {
    link: MonkeyLink,
    /// The adb server's forward to it, removed with it (through the server only).
    _forward: Option<Forward>,
}

enum MonkeyLink {
    /// A `tcp:N` stream on a direct connection (and the stream running the monkey).
    Direct { _process: Stream, socket: Stream },
    /// A socket to the adb server's forwarded port.
    Tcp(BufReader<tokio::net::TcpStream>),
}

/// A port the adb server forwards to the phone for the bot: removed when the bot is done with
/// it, so that a daemon running for weeks does not leave one behind a round.
struct Forward {
    server: SocketAddrV4,
    serial: String,
    local: u16,
}

/// How long removing a forward may hold up the end of a round.
const FORWARD_REMOVE: Duration = Duration::from_secs(2);

impl Drop for Forward {
    fn drop(&mut self) {
        let (server, serial, local) = (self.server, self.serial.clone(), self.local);
        let (tx, rx) = std::sync::mpsc::channel();
        // adb_client blocks: on a thread of its own, waited for a bounded time.
        let spawned = std::thread::Builder::new()
            .name("forward".into())
            .spawn(move || {
                let removed = ADBServerDevice::new(serial, Some(server))
                    .forward_remove(format!("tcp:{local}"));
                let _ = tx.send(removed);
            });
        match spawned.map(|_| rx.recv_timeout(FORWARD_REMOVE)) {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => tracing::debug!("adb forward tcp:{local} not removed: {e}"),
            _ => tracing::debug!("adb forward tcp:{local} not removed in time"),
        }
    }
}

impl Monkey {
    /// Sends one command and waits for its `OK`.
    pub async fn send(&mut self, line: &str) -> Result<(), PhoneError> {
        let link = &mut self.link;
        bounded(line, MONKEY_TIMEOUT, async {
            let text = format!("{line}\n");
            let reply = match link {
                MonkeyLink::Direct { socket, .. } => {
                    socket.write(text.as_bytes()).await?;
                    socket.read_line().await?
                }
                MonkeyLink::Tcp(socket) => {
                    socket
                        .get_mut()
                        .write_all(text.as_bytes())
                        .await
                        .map_err(DirectError::Io)?;
                    let mut reply = String::new();
                    let n = socket
                        .read_line(&mut reply)
                        .await
                        .map_err(DirectError::Io)?;
                    (n > 0).then(|| reply.trim_end().to_owned())
                }
            };
            match reply {
                Some(reply) if reply == "OK" => Ok(()),
                Some(reply) => Err(PhoneError::Monkey {
                    command: line.to_owned(),
                    answer: reply,
                }),
                None => Err(PhoneError::Adb(DirectError::Closed)),
            }
        })
        .await
    }

    /// Ends the monkey on the phone.
    pub async fn quit(mut self) {
        let _ = self.send("quit").await;
    }

    /// One touch sample.
    pub async fn touch(&mut self, t: Touch) -> Result<(), PhoneError> {
        let phase = match t.phase {
            Phase::Down => "down",
            Phase::Move => "move",
            Phase::Up => "up",
        };
        self.send(&format!("touch {phase} {} {}", t.x, t.y)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wm_size_is_read_with_its_override() {
        // (output, size)
        let cases = [
            ("Physical size: 800x1280\n", Some((800, 1280))),
            (
                "Physical size: 1080x2400\r\nOverride size: 720x1600\r\n",
                Some((720, 1600)),
            ),
            ("Physical size: 800 x 1280", Some((800, 1280))),
            ("wm: not found", None),
        ];
        for (text, size) in cases {
            assert_eq!(parse_wm_size(text), size, "{text}");
        }
    }

    #[test]
    fn a_lock_screen_is_told_by_any_version_s_policy_dump() {
        // (dumpsys window policy, showing)
        let kitkat = "WINDOW MANAGER POLICY STATE (dumpsys window policy)\n    \
                      mDockLayer=268435456 mStatusBarLayer=181000\n    \
                      mShowingLockscreen=true mShowingDream=false mDreamingLockscreen=true\n";
        // Android 5: the keyguard is the status bar; mShowingLockscreen stays false, and
        // isStatusBarKeyguard runs into the next field.
        let lollipop = "    mShowingLockscreen=false mShowingDream=false mDreamingLockscreen=false\n    \
                        mStatusBar=Window{2f3c StatusBar}\n    \
                        isStatusBarKeyguard=true    mNavigationBar=Window{1a NavigationBar}\n";
        let lollipop_off =
            lollipop.replace("isStatusBarKeyguard=true", "isStatusBarKeyguard=false");
        let later = "    mTopIsFullscreen=false\n    KeyguardServiceDelegate\n      showing=true\n      \
                     inputRestricted=true\n      occluded=false\n    mGlobalKeyManager\n";
        let later_gone = later.replace("showing=true", "showing=false");
        // `showing=` outside the delegate's block is some other thing's.
        let stray =
            "    KeyguardServiceDelegate\n      showing=false\n    Toast\n      showing=true\n";
        let cases = [
            (kitkat.to_owned(), Some(true)),
            (kitkat.replace("=true", "=false"), Some(false)),
            (lollipop.to_owned(), Some(true)),
            (lollipop_off, Some(false)),
            (later.to_owned(), Some(true)),
            (later_gone, Some(false)),
            (stray.to_owned(), Some(false)),
            ("Can't find service: window\n".to_owned(), None),
            ("    mShowingLockscreen=maybe\n".to_owned(), None),
        ];
        for (text, showing) in cases {
            assert_eq!(parse_keyguard(&text), showing, "{text}");
        }
    }

    #[test]
    fn the_screen_is_on_only_when_awake() {
        // (dumpsys power, on)
        let cases = [
            (
                "Power Manager State:\n  mDirty=0x0\n  mWakefulness=Awake\n",
                Some(true),
            ),
            (
                "  mWakefulness=Asleep\r\n  mWakefulnessChanging=false\r\n",
                Some(false),
            ),
            ("  mWakefulness=Dozing\n", Some(false)),
            ("  mWakefulness=Dreaming\n", Some(false)),
            ("Can't find service: power\n", None),
        ];
        for (text, on) in cases {
            assert_eq!(parse_wakefulness(text), on, "{text}");
        }
    }
}
