//! The cable between the virtual phone and its host, and what carrying bytes over it costs.
//! On loopback a 4 MB screenshot arrives in a few milliseconds; over a real phone's USB 2
//! cable it takes about 130 ms, over Wi-Fi the best part of a second, and everything else the
//! phone sends that moment waits behind it. A phone started with a `Cable` other than
//! `Loopback` holds each message it sends for as long as its bytes take at the cable's rate,
//! one message after another on the one cable, whichever host connection sends it.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a phone reaches its host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cable {
    /// As fast as this machine's loopback: no cost modelled.
    #[default]
    Loopback,
    /// USB 2 (high speed) as adb reaches it: about 30 MB/s of payload.
    Usb2,
    /// `adb connect` over Wi-Fi: about 5 MB/s.
    Wifi,
}

impl Cable {
    /// Bytes a second the cable carries; `None` for loopback.
    pub fn bytes_per_sec(self) -> Option<u64> {
        match self {
            Cable::Loopback => None,
            Cable::Usb2 => Some(30_000_000),
            Cable::Wifi => Some(5_000_000),
        }
    }

    /// How long `bytes` take on the cable.
    pub fn takes(self, bytes: usize) -> Duration {
        self.bytes_per_sec().map_or(Duration::ZERO, |rate| {
            Duration::from_secs_f64(bytes as f64 / rate as f64)
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Cable::Loopback => "loopback",
            Cable::Usb2 => "usb2",
            Cable::Wifi => "wifi",
        }
    }
}

/// One phone's cable in use: messages take their turn on it.
#[derive(Debug, Default)]
pub struct Wire {
    cable: Cable,
    /// When the cable is next free.
    free_at: Mutex<Option<Instant>>,
}

impl Wire {
    pub fn new(cable: Cable) -> Wire {
        Wire {
            cable,
            free_at: Mutex::new(None),
        }
    }

    pub fn cable(&self) -> Cable {
        self.cable
    }

    /// Holds the caller until `bytes` have crossed the cable after whatever is on it already:
    /// call before writing them to the host, so the host has them when a real cable would
    /// have delivered them.
    pub fn carry(&self, bytes: usize) {
        let takes = self.cable.takes(bytes);
        if takes.is_zero() {
            return;
        }
        let done = {
            let mut free_at = self.free_at.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let done = free_at.map_or(now, |f| f.max(now)) + takes;
            *free_at = Some(done);
            done
        };
        std::thread::sleep(done.saturating_duration_since(Instant::now()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raw_tablet_screenshot_takes_a_usb2_cable_about_140_ms_and_wifi_800() {
        // 800 x 1280 RGBA and a 16-byte header.
        let shot = 800 * 1280 * 4 + 16;
        assert_eq!(Cable::Usb2.takes(shot).as_millis(), 136);
        assert_eq!(Cable::Wifi.takes(shot).as_millis(), 819);
        assert_eq!(Cable::Loopback.takes(shot), Duration::ZERO);
    }

    #[test]
    fn messages_take_their_turn_on_one_wire() {
        let wire = std::sync::Arc::new(Wire::new(Cable::Wifi));
        let start = Instant::now();
        // Two senders of 100 kB each at 5 MB/s: 20 ms each, 40 ms for both.
        let threads: Vec<_> = (0..2)
            .map(|_| {
                let wire = wire.clone();
                std::thread::spawn(move || wire.carry(100_000))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(
            start.elapsed() >= Duration::from_millis(40),
            "{:?}",
            start.elapsed()
        );
    }
}
