//! The virtual phone: a simulated Android device that real ADB software can drive, running a
//! round of the game and refereeing every touch. It must behave like a real phone: the bot may
//! never know it is talking to a simulator.
//!
//! Its modules import one way, from the wire to the leaves:
//! - `adbd` speaks the device side of ADB over loopback TCP and opens streams (`stream`),
//!   each message paying for its bytes on the phone's `cable` (USB 2, Wi-Fi, or nothing);
//! - `service` runs what a stream opens: `shell` (the little of Android's shell the bot and
//!   its users need, with `shell::input` for the touch routes), `sync` (files), framebuffer,
//!   device sockets;
//! - `device` is the phone's state behind one lock: the `game` and its referee, what it looks
//!   like (`layout`, `screen`), `files`, the `touchscreen`;
//! - `model` says which phone and which Android version, and is imported by all;
//! - `clock` is where the phone's time comes from: the wall clock, or the caller's tokio clock
//!   when `local` serves the phone in process (no adbd, no threads: services run inline in
//!   the caller's calls), for tests on a paused clock.
//!
//! This file only declares them and starts a [`Sim`]: a device plus the adbd serving it.

pub mod adbd;
pub mod cable;
pub mod clock;
pub mod device;
pub mod files;
pub mod game;
pub mod layout;
pub mod local;
pub mod model;
pub mod screen;
pub mod service;
pub mod shell;
pub mod stream;
pub mod sync;
pub mod touchscreen;

pub use device::{Device, PortGuard, SimConfig};
pub use model::Model;

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use adbd::Adbd;
pub use adbd::Limits;
pub use cable::Cable;

/// A virtual phone served over ADB on a loopback port. Dropping it stops it.
pub struct Sim {
    device: Arc<Device>,
    adbd: Adbd,
    limits: Limits,
}

impl Sim {
    /// Starts a phone and its adbd on `addr` (port 0 picks a free one).
    pub fn start(addr: SocketAddr, config: SimConfig) -> io::Result<Sim> {
        Sim::start_limited(addr, config, Limits::default())
    }

    /// `start` with its adbd's `limits` on connections and stalled hosts.
    pub fn start_limited(addr: SocketAddr, config: SimConfig, limits: Limits) -> io::Result<Sim> {
        let device = Device::new(config);
        let adbd = Adbd::start_limited(addr, device.clone(), limits)?;
        Ok(Sim {
            device,
            adbd,
            limits,
        })
    }

    /// Where its adbd listens.
    pub fn addr(&self) -> SocketAddr {
        self.adbd.addr()
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The phone's adbd dies and comes back after `down` on the same address, as when a
    /// phone reboots its adbd or drops off USB: every connection ends at once, a touch in
    /// flight never finished (the finger stays down until the next touch cancels it), and
    /// the game goes on meanwhile with its round, its clock and the words it took.
    pub fn restart(&mut self, down: std::time::Duration) -> io::Result<()> {
        let limits = self.limits;
        let addr = self.adbd.addr();
        // A placeholder on a free port while the old adbd stops, so its listener is gone
        // before the address is taken again.
        let old = std::mem::replace(
            &mut self.adbd,
            Adbd::start_limited("127.0.0.1:0".parse().unwrap(), self.device.clone(), limits)?,
        );
        drop(old);
        std::thread::sleep(down);
        self.adbd = Adbd::start_limited(addr, self.device.clone(), limits)?;
        Ok(())
    }
}
