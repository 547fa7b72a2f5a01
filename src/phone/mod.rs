//! The phone as the bot sees it: a connection over ADB, the facts the bot needs (screen size,
//! Android version), shell commands, and the input routes that carry gestures to the game.
//! Every call is bounded by a timeout: a phone that stops answering is an error, never a hang.
//! So far the connection is `direct` (straight to a phone's adbd over TCP: the virtual phone,
//! or a phone on `adb connect`'s port) and the route is the monkey's.

pub mod direct;

use std::net::SocketAddr;
use std::time::Duration;

use crate::gesture::{Phase, Touch};
use direct::{Direct, DirectError, Stream};

/// How long one shell command may take.
const SHELL_TIMEOUT: Duration = Duration::from_secs(15);
/// How long one monkey command may take to be answered.
const MONKEY_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the monkey may take to start listening (a JVM start, slow on old phones).
const MONKEY_START: Duration = Duration::from_secs(15);

#[derive(Debug, thiserror::Error)]
pub enum PhoneError {
    #[error(transparent)]
    Adb(#[from] DirectError),
    #[error("the phone did not answer {0} within {1:?}")]
    Timeout(String, Duration),
    #[error("unexpected answer to {0}: {1:?}")]
    Unexpected(String, String),
    #[error("the monkey refused {0:?}: {1}")]
    Monkey(String, String),
}

async fn bounded<T>(
    what: &str,
    limit: Duration,
    f: impl std::future::Future<Output = Result<T, PhoneError>>,
) -> Result<T, PhoneError> {
    tokio::time::timeout(limit, f)
        .await
        .map_err(|_| PhoneError::Timeout(what.to_owned(), limit))?
}

/// A connected phone.
pub struct Phone {
    adb: Direct,
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
        let mut phone = Phone {
            adb,
            sdk: 0,
            screen: (0, 0),
            model: String::new(),
        };
        let sdk = phone.shell("getprop ro.build.version.sdk").await?;
        phone.sdk = sdk
            .trim()
            .parse()
            .map_err(|_| PhoneError::Unexpected("getprop ro.build.version.sdk".into(), sdk))?;
        phone.model = phone
            .shell("getprop ro.product.model")
            .await?
            .trim()
            .to_owned();
        let size = phone.shell("wm size").await?;
        phone.screen = parse_wm_size(&size)
            .ok_or_else(|| PhoneError::Unexpected("wm size".into(), size.clone()))?;
        Ok(phone)
    }

    /// Runs a shell command (through `exec:`, so output arrives unchanged) and returns its
    /// output.
    pub async fn shell(&self, cmd: &str) -> Result<String, PhoneError> {
        bounded(cmd, SHELL_TIMEOUT, async {
            let out = self.adb.exec(cmd).await?;
            Ok(String::from_utf8_lossy(&out).into_owned())
        })
        .await
    }

    /// Starts the monkey on device port `port` and connects to it. The monkey runs as long as
    /// the returned value lives.
    pub async fn monkey(&self, port: u16) -> Result<Monkey, PhoneError> {
        let process = self.adb.open(&format!("exec:monkey --port {port}")).await?;
        let started = tokio::time::Instant::now();
        loop {
            // Until the monkey listens, the device refuses its port.
            if let Ok(socket) = self.adb.open(&format!("tcp:{port}")).await {
                let mut monkey = Monkey {
                    _process: process,
                    socket,
                };
                monkey.send("wake").await?;
                return Ok(monkey);
            }
            if started.elapsed() > MONKEY_START {
                return Err(PhoneError::Timeout("monkey --port".into(), MONKEY_START));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
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

/// The monkey's network protocol on one socket: a line per event, `OK` back.
pub struct Monkey {
    _process: Stream,
    socket: Stream,
}

impl Monkey {
    /// Sends one command and waits for its `OK`.
    pub async fn send(&mut self, line: &str) -> Result<(), PhoneError> {
        let socket = &mut self.socket;
        bounded(line, MONKEY_TIMEOUT, async {
            socket.write(format!("{line}\n").as_bytes()).await?;
            match socket.read_line().await? {
                Some(reply) if reply == "OK" => Ok(()),
                Some(reply) => Err(PhoneError::Monkey(line.to_owned(), reply)),
                None => Err(PhoneError::Adb(DirectError::Closed)),
            }
        })
        .await
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
}
