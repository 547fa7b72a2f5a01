//! A phone in this very process, reached by calls instead of a socket: what the built-in
//! virtual phone offers tests that run on tokio's paused clock (`sim::local`). It offers
//! adbd's services by their names; what a call asks is done inline, before the call returns,
//! on the caller's clock, and [`InProcess::settles_at`] says until when the caller must wait
//! for the time the phone let pass (a JVM starting, a swipe drawn). `direct::Direct` speaks
//! to it as to an adbd over TCP, so the rest of the bot cannot tell the two apart.

use std::fmt::Debug;

/// A phone reached in process.
pub trait InProcess: Send + Sync + Debug {
    /// Opens `service` as adbd names it (`shell:CMD`, `exec:CMD`, `framebuffer:`, `tcp:N`);
    /// an error says why the phone refused it (or that it is not there).
    fn open(&self, service: &str) -> Result<Box<dyn InStream>, String>;

    /// When the caller's clock will have caught up with the phone's, if it is ahead.
    fn settles_at(&self) -> Option<tokio::time::Instant>;
}

/// One open stream to a phone in process.
pub trait InStream: Send {
    /// Hands the service bytes; what they ask is done before this returns. An error when the
    /// stream has ended or the phone has gone.
    fn write(&mut self, bytes: &[u8]) -> Result<(), String>;

    /// What the service has written since the last call, and whether it has ended.
    fn take(&mut self) -> (Vec<u8>, bool);
}
