//! The virtual phone reached in process, on the caller's tokio clock (paused in tests): no
//! adbd, no sockets, no threads. Each service a host opens runs inline in the call that asks
//! for it (a command to its end, an interactive shell a line at a time, the monkey a line
//! at a time once `monkey --port N` has started it), and time the phone lets pass moves its
//! clock ahead of the caller's until the caller waits it out (`clock`). So a test can drive
//! the whole bot against a phone for minutes of game time in milliseconds, the same way every
//! run. What adbd refuses, this refuses too; what only a socket can carry (file transfer, a
//! shell protocol v2 session) is refused here, with the reason.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::clock::Clock;
use super::device::{Device, Inline, SimConfig};
use super::service::{self, Service};
use super::shell::input::{MonkeyLine, monkey_line};
use super::shell::{self, Framing, Shell};
use crate::phone::in_process::{InProcess, InStream};

/// A virtual phone reached in process.
pub struct Local {
    device: Arc<Device>,
    /// Counts the phone's goings: a stream opened before the last one is dead.
    visit: Arc<AtomicU64>,
    /// Whether it can be reached now.
    here: AtomicBool,
}

impl Local {
    /// A phone whose time is the tokio clock of the runtime this is called on.
    pub fn start(config: SimConfig) -> Arc<Local> {
        Arc::new(Local {
            device: Device::with_clock(config, Clock::caller()),
            visit: Arc::new(AtomicU64::new(0)),
            here: AtomicBool::new(true),
        })
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The phone goes away (off USB, its adbd dead): every stream ends, the monkey with its
    /// shell, and nothing can be opened until it is `back`. The game goes on meanwhile.
    pub fn go_away(&self) {
        self.here.store(false, Ordering::SeqCst);
        self.visit.fetch_add(1, Ordering::SeqCst);
        self.device.stop_all_inline();
    }

    /// The phone can be reached again.
    pub fn back(&self) {
        self.here.store(true, Ordering::SeqCst);
    }

    fn here(&self) -> bool {
        self.here.load(Ordering::SeqCst)
    }
}

impl std::fmt::Debug for Local {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Local")
            .field("model", &self.device.model())
            .field("here", &self.here())
            .finish()
    }
}

impl InProcess for Local {
    fn open(&self, name: &str) -> Result<Box<dyn InStream>, String> {
        if !self.here() {
            return Err("the phone is not there".into());
        }
        let service = Service::parse(name, self.device.model()).ok_or("not offered")?;
        let device = self.device.clone();
        let life = Life {
            visit: self.visit.clone(),
            opened: self.visit.load(Ordering::SeqCst),
        };
        let output = |bytes| -> Box<dyn InStream> {
            Box::new(Output {
                bytes,
                life: life.clone(),
            })
        };
        Ok(match service {
            Service::Shell { cmd, v2, pty } if cmd.trim().is_empty() => {
                if v2 {
                    return Err("an interactive shell protocol v2 session needs a socket".into());
                }
                let framing = service::framing(v2, pty);
                // A prompt has no line end: no framing changes it.
                Box::new(Interactive {
                    out: shell::prompt(&device).into_bytes(),
                    device,
                    shell: Shell::default(),
                    framing,
                    typed: Vec::new(),
                    life,
                })
            }
            Service::Shell { cmd, v2, pty } => output(shell::run_captured(
                &device,
                &cmd,
                service::framing(v2, pty),
            )),
            Service::Exec(cmd) => output(shell::run_captured(&device, &cmd, Framing::Raw)),
            Service::Framebuffer => {
                let mut bytes = Vec::new();
                let _ = service::framebuffer(&device, &mut bytes);
                output(bytes)
            }
            Service::Tcp(port) => match device.inline_listener(port) {
                Some(Inline::Monkey) => Box::new(Monkey {
                    device,
                    port,
                    typed: Vec::new(),
                    out: Vec::new(),
                    ended: false,
                    life,
                }),
                None => return Err(format!("nothing listens on port {port}")),
            },
            Service::Sync => return Err("file transfer needs a socket".into()),
        })
    }

    fn settles_at(&self) -> Option<tokio::time::Instant> {
        self.device.clock().settles_at()
    }
}

/// Whether a stream still lives: the phone has not gone since it was opened.
#[derive(Clone, Debug)]
struct Life {
    visit: Arc<AtomicU64>,
    opened: u64,
}

impl Life {
    fn alive(&self) -> bool {
        self.visit.load(Ordering::SeqCst) == self.opened
    }

    fn check(&self) -> Result<(), String> {
        if self.alive() {
            Ok(())
        } else {
            Err("the phone went away".into())
        }
    }
}

/// A service that has done all it will: its output, then its end.
struct Output {
    bytes: Vec<u8>,
    life: Life,
}

impl InStream for Output {
    fn write(&mut self, _: &[u8]) -> Result<(), String> {
        self.life.check()?;
        // A command run with no input has ended; what is written to it is dropped, as adbd
        // drops writes to a stream whose service has finished reading.
        Ok(())
    }

    fn take(&mut self) -> (Vec<u8>, bool) {
        if !self.life.alive() {
            return (Vec::new(), true);
        }
        (std::mem::take(&mut self.bytes), true)
    }
}

/// Lines typed into `bytes` so far, and what is left of an unfinished one.
fn lines(typed: &mut Vec<u8>, bytes: &[u8]) -> Vec<String> {
    let mut lines = Vec::new();
    for &b in bytes {
        if b == b'\n' || b == b'\r' {
            lines.push(String::from_utf8_lossy(typed).into_owned());
            typed.clear();
        } else {
            typed.push(b);
        }
    }
    lines
}

/// An interactive shell (`shell:`), run a line at a time as the lines are written.
struct Interactive {
    device: Arc<Device>,
    shell: Shell,
    framing: Framing,
    typed: Vec<u8>,
    out: Vec<u8>,
    life: Life,
}

impl InStream for Interactive {
    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.life.check()?;
        if self.shell.exited() {
            return Err("the shell has exited".into());
        }
        for line in lines(&mut self.typed, bytes) {
            let printed = shell::type_line(&self.device, &mut self.shell, self.framing, &line);
            self.out.extend_from_slice(&printed);
            if self.shell.exited() {
                break;
            }
        }
        Ok(())
    }

    fn take(&mut self) -> (Vec<u8>, bool) {
        if !self.life.alive() {
            return (Vec::new(), true);
        }
        (std::mem::take(&mut self.out), self.shell.exited())
    }
}

/// A connection to the monkey on device port `port`.
struct Monkey {
    device: Arc<Device>,
    port: u16,
    typed: Vec<u8>,
    out: Vec<u8>,
    ended: bool,
    life: Life,
}

impl InStream for Monkey {
    fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.life.check()?;
        if self.ended {
            return Err("the monkey's connection has ended".into());
        }
        for line in lines(&mut self.typed, bytes) {
            match monkey_line(&self.device, &line) {
                MonkeyLine::Nothing => {}
                MonkeyLine::Reply(text) => self.out.extend_from_slice(text.as_bytes()),
                MonkeyLine::Done => self.ended = true,
                MonkeyLine::Quit => {
                    self.out.extend_from_slice(b"OK\n");
                    self.device.stop_inline(self.port);
                    self.ended = true;
                }
            }
            if self.ended {
                break;
            }
        }
        Ok(())
    }

    fn take(&mut self) -> (Vec<u8>, bool) {
        if !self.life.alive() {
            return (Vec::new(), true);
        }
        (std::mem::take(&mut self.out), self.ended)
    }
}
