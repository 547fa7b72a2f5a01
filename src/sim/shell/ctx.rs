//! What a shell command runs with: the phone, its outputs and input, and whether the host is
//! still there. The command table (`super`) and the commands that plug into it (`input` and
//! the built-ins) all take a `Ctx`; it imports none of them.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use crate::sim::device::Device;

/// What a command runs with.
pub struct Ctx<'a> {
    pub device: &'a Arc<Device>,
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub stdin: &'a mut dyn Read,
    /// False once the host has gone (the stream closed): long commands stop.
    pub alive: &'a dyn Fn() -> bool,
}

impl Ctx<'_> {
    /// Sleeps `d`, or less if the host goes away; false if it did.
    pub fn sleep(&mut self, d: Duration) -> bool {
        let _ = self.out.flush();
        let clock = self.device.clock();
        let end = clock.now() + d;
        loop {
            if !(self.alive)() {
                return false;
            }
            let left = end.saturating_sub(clock.now());
            if left.is_zero() {
                return true;
            }
            clock.pass(left.min(Duration::from_millis(50)));
        }
    }
}
