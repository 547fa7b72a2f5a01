//! The virtual phone's adbd: listens on a loopback TCP port and speaks the device side of ADB
//! to any host (Debian's adb server, adb_client, or a test). It owns the handshake, streams and
//! their flow control; what a stream does is its service's (`service`). Each connection has a
//! reader thread; each open stream runs its service on a thread of its own behind a
//! [`StreamIo`], which is plain `Read + Write` with ADB flow control underneath: a service that
//! writes faster than the host acknowledges blocks, and the host's input is acknowledged only
//! once the service has read it. So nothing a peer sends can make the sim hold more than a few
//! messages' worth of memory per stream, and bad traffic ends only the connection it came on.
//!
//! What bounds it in all ([`Limits`]): connections served at once, streams open at once on all
//! of them, and a deadline for each message a host begins (and for its handshake), so a host
//! that drips bytes cannot keep a slot. When every slot is taken, a host that has not finished
//! its handshake or its message makes room for a new one, so a real host still gets in.
//! Refusals are logged at most once per [`WARN_EVERY`], with the count.

use std::collections::HashMap;
use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::TrySendError;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::cable::{Cable, Wire};
use super::device::Device;
use super::service::{self, Service};
use super::stream::{Budget, Link};
use crate::wire::{Command, Decoder, MAX_PAYLOAD, Message, WireError};

/// Streams one connection may hold open at once; more are refused, as a busy adbd would.
const MAX_STREAMS: usize = 64;
/// Host writes one stream may have waiting to be read. The host may send one write before our
/// acknowledgement; a host that sends more is breaking the protocol.
const INPUT_QUEUE: usize = 4;
/// The least time between two warnings of the same kind; the ones between are counted.
pub const WARN_EVERY: Duration = Duration::from_secs(10);

/// What one adbd allows its hosts, so that no peer can make it hold threads or memory
/// without bound.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once. One past this takes the place of a host that has not
    /// finished its handshake or a message, or is closed as soon as it is accepted.
    pub connections: usize,
    /// Streams open at once on all connections together (each a service with up to a
    /// payload of output buffered); more are refused.
    pub streams: usize,
    /// How long a host may take over its handshake, over any one message it has begun, and
    /// over reading what the phone sends it; a connection idle between messages is kept.
    pub stall: Duration,
    /// The cable its hosts are reached over: what each byte sent costs (none on loopback).
    pub cable: Cable,
}

impl Default for Limits {
    /// A real adbd serves one adb server and a few tools; a slow link still sends a 24-byte
    /// header or a 1 MiB payload within seconds. 128 streams of at most a 1 MiB payload each
    /// keep the phone's buffers under about 128 MiB whatever its hosts open.
    fn default() -> Limits {
        Limits {
            connections: 64,
            streams: 128,
            stall: Duration::from_secs(10),
            cable: Cable::Loopback,
        }
    }
}

/// A running adbd. Dropping it stops it and closes every connection.
pub struct Adbd {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    connections: Connections,
    accept: Option<JoinHandle<()>>,
}

/// Every live connection, by number, so `Drop` can end them and a new host can take the
/// place of one that is not done with its handshake or a message.
type Connections = Arc<Mutex<HashMap<u64, Slot>>>;

/// A live connection as the accept loop sees it.
struct Slot {
    /// A clone of its socket.
    socket: TcpStream,
    /// Since when (milliseconds after `Unsettled::epoch`, plus one) the host has been in the
    /// middle of its handshake or a message; 0 while it is idle between messages.
    unsettled: Arc<AtomicU64>,
}

/// Where a connection marks itself unsettled, in time since its adbd started.
#[derive(Clone)]
struct Unsettled {
    epoch: Instant,
    since: Arc<AtomicU64>,
}

impl Unsettled {
    fn set(&self, unsettled: bool) {
        let value = if unsettled {
            self.epoch.elapsed().as_millis() as u64 + 1
        } else {
            0
        };
        // Only the first moment counts: a host is unsettled since it began.
        if !unsettled || self.since.load(Ordering::Relaxed) == 0 {
            self.since.store(value, Ordering::Relaxed);
        }
    }
}

/// A warning said at most once per `WARN_EVERY`; the ones held back meanwhile are counted
/// and said with the next.
#[derive(Debug, Default)]
pub struct Hush {
    last: Option<Instant>,
    held: usize,
}

impl Hush {
    /// Whether to say a warning at `now`, and how many were held back before it.
    pub fn say(&mut self, now: Instant) -> Option<usize> {
        if self
            .last
            .is_some_and(|last| now.duration_since(last) < WARN_EVERY)
        {
            self.held += 1;
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.held))
    }
}

/// " (and N more like it since the last warning)", or nothing.
fn held_back(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(" (and {n} more like it since the last warning)"),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Adbd {
    /// Listens on `addr` (use port 0 for a free one) for `device`, with the default limits.
    pub fn start(addr: SocketAddr, device: Arc<Device>) -> io::Result<Adbd> {
        Adbd::start_limited(addr, device, Limits::default())
    }

    /// `start` with `limits`.
    pub fn start_limited(
        addr: SocketAddr,
        device: Arc<Device>,
        limits: Limits,
    ) -> io::Result<Adbd> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Connections::default();
        let accept = {
            let (stop, connections) = (stop.clone(), connections.clone());
            std::thread::Builder::new()
                .name("adbd-accept".into())
                .spawn(move || accept_loop(listener, device, stop, connections, limits))?
        };
        Ok(Adbd {
            addr,
            stop,
            connections,
            accept: Some(accept),
        })
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Adbd {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop, then end every connection's blocking read.
        let _ = TcpStream::connect(self.addr);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        for (_, c) in lock(&self.connections).drain() {
            let _ = c.socket.shutdown(Shutdown::Both);
        }
    }
}

fn accept_loop(
    listener: TcpListener,
    device: Arc<Device>,
    stop: Arc<AtomicBool>,
    connections: Connections,
    limits: Limits,
) {
    let epoch = Instant::now();
    let budget = Budget::new(limits.streams);
    let wire = Arc::new(Wire::new(limits.cable));
    let mut refusals = Hush::default();
    let mut evictions = Hush::default();
    for (number, stream) in (0u64..).zip(listener.incoming()) {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let peer = stream.peer_addr().ok();
        {
            let mut live = lock(&connections);
            if live.len() >= limits.connections {
                match make_room(&mut live, epoch) {
                    Some(waited) => {
                        if let Some(held) = evictions.say(Instant::now()) {
                            tracing::info!(
                                ?peer,
                                "all {} connections are taken: closing one that has been in the middle of its handshake or a message for {waited:?} to serve a new one{}",
                                limits.connections,
                                held_back(held)
                            );
                        }
                    }
                    None => {
                        if let Some(held) = refusals.say(Instant::now()) {
                            tracing::warn!(
                                ?peer,
                                "refusing a connection: {} are open already{}",
                                limits.connections,
                                held_back(held)
                            );
                        }
                        let _ = stream.shutdown(Shutdown::Both);
                        continue;
                    }
                }
            }
        }
        let _ = stream.set_nodelay(true);
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        let unsettled = Unsettled {
            epoch,
            since: Arc::new(AtomicU64::new(0)),
        };
        // Unsettled from the start: a host owes its handshake.
        unsettled.set(true);
        lock(&connections).insert(
            number,
            Slot {
                socket: clone,
                unsettled: unsettled.since.clone(),
            },
        );
        let live = connections.clone();
        let device = device.clone();
        let (budget, wire) = (budget.clone(), wire.clone());
        let spawned = std::thread::Builder::new()
            .name("adbd-conn".into())
            .spawn(move || {
                match serve(&stream, device, budget, wire, limits.stall, unsettled) {
                    Ok(()) => tracing::debug!(?peer, "host disconnected"),
                    Err(e) => tracing::info!(?peer, "connection closed: {e}"),
                }
                // A clone of this socket is kept for `Drop`, so dropping ours would not close
                // it: the host must see the connection end.
                let _ = stream.shutdown(Shutdown::Both);
                lock(&live).remove(&number);
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot serve a connection: {e}");
            if let Some(c) = lock(&connections).remove(&number) {
                let _ = c.socket.shutdown(Shutdown::Both);
            }
        }
    }
}

/// Closes the connection that has been unsettled longest, if any is, and says for how long.
fn make_room(live: &mut HashMap<u64, Slot>, epoch: Instant) -> Option<Duration> {
    let (&number, since) = live
        .iter()
        .map(|(n, slot)| (n, slot.unsettled.load(Ordering::Relaxed)))
        .filter(|&(_, since)| since > 0)
        .min_by_key(|&(_, since)| since)?;
    let slot = live.remove(&number)?;
    let _ = slot.socket.shutdown(Shutdown::Both);
    let began = Duration::from_millis(since - 1);
    Some(epoch.elapsed().saturating_sub(began))
}

/// Why a connection ended early.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("{0:?} for stream {1}, which this connection never opened")]
    UnknownStream(Command, u32),
    #[error("the host wrote to stream {0} again and again without waiting for acknowledgements")]
    Flooded(u32),
    #[error("the host had sent {0} bytes of a message and did not finish it within {1:?}")]
    Stalled(usize, Duration),
    #[error("the host did not finish its handshake within {0:?}")]
    NoHandshake(Duration),
    #[error(transparent)]
    Io(#[from] io::Error),
}

fn serve(
    socket: &TcpStream,
    device: Arc<Device>,
    budget: Arc<Budget>,
    wire: Arc<Wire>,
    stall: Duration,
    unsettled: Unsettled,
) -> Result<(), ConnectionError> {
    // A host that stops reading what we send is given as long as one that stops sending.
    socket.set_write_timeout(Some(stall))?;
    let link = Arc::new(Link::new(socket.try_clone()?, budget, wire));
    let mut conn = Connection {
        device,
        link: link.clone(),
        connected: false,
        next_id: 1,
    };
    let result = conn.read_loop(socket, stall, &unsettled);
    link.close_all();
    result
}

/// One host connection, as its reader thread sees it.
struct Connection {
    device: Arc<Device>,
    link: Arc<Link>,
    connected: bool,
    next_id: u32,
}

impl Connection {
    /// Reads and handles messages until the host leaves. A host has `stall` for its
    /// handshake and for each message from its first byte to its last; between messages it
    /// may stay quiet as long as it likes.
    fn read_loop(
        &mut self,
        mut socket: &TcpStream,
        stall: Duration,
        unsettled: &Unsettled,
    ) -> Result<(), ConnectionError> {
        let mut decoder = Decoder::default();
        let mut buf = vec![0u8; 64 * 1024];
        let accepted = Instant::now();
        let mut began = None;
        loop {
            let deadline = match (self.connected, began) {
                (false, _) => Some(accepted + stall),
                (true, Some(began)) => Some(began + stall),
                (true, None) => None,
            };
            if let Some(deadline) = deadline {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(self.late(decoder.pending(), stall));
                }
                socket.set_read_timeout(Some(left))?;
            } else {
                socket.set_read_timeout(None)?;
            }
            let want = decoder.wanted().min(buf.len());
            let n = match socket.read(&mut buf[..want]) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Err(self.late(decoder.pending(), stall));
                }
                Err(e) => return Err(e.into()),
            };
            if decoder.pending() == 0 {
                began = Some(Instant::now());
                unsettled.set(true);
            }
            decoder.feed(&buf[..n]);
            while let Some(msg) = decoder.decode()? {
                self.handle(msg)?;
            }
            if decoder.pending() == 0 {
                began = None;
                if self.connected {
                    unsettled.set(false);
                }
            }
        }
    }

    /// Why a host that ran out of time is dropped.
    fn late(&self, pending: usize, stall: Duration) -> ConnectionError {
        if self.connected {
            ConnectionError::Stalled(pending, stall)
        } else {
            ConnectionError::NoHandshake(stall)
        }
    }

    fn handle(&mut self, msg: Message) -> Result<(), ConnectionError> {
        let link = &self.link;
        if msg.command == Command::CNXN {
            // A new handshake resets the connection, as adbd does.
            link.close_all();
            self.connected = true;
            let (version, ours) = self.device.model().adb_protocol();
            let max = (msg.arg1.min(ours).min(MAX_PAYLOAD) as usize).max(256);
            link.set_max_payload(max);
            link.send(&Message::new(
                Command::CNXN,
                version,
                ours,
                self.device.model().banner().into_bytes(),
            ))?;
            return Ok(());
        }
        if !self.connected {
            // As adbd does: nothing but CNXN means anything before the handshake.
            return Ok(());
        }
        match msg.command {
            Command::OPEN => self.open(msg.arg0, &msg.payload)?,
            Command::OKAY => {
                self.check_known(msg.command, msg.arg1)?;
                link.acknowledged(msg.arg1);
            }
            Command::WRTE => {
                self.check_known(msg.command, msg.arg1)?;
                link.deliver(msg.arg1, msg.payload)
                    .map_err(|_| ConnectionError::Flooded(msg.arg1))?;
            }
            Command::CLSE => {
                self.check_known(msg.command, msg.arg1)?;
                link.closed_by_host(msg.arg1);
            }
            // We never ask for authentication or TLS, so a host has no reason to send these.
            _ => tracing::debug!("ignoring {msg:?}"),
        }
        Ok(())
    }

    /// Stream ids this connection handed out may still be acknowledged or closed by the host
    /// after they closed on our side; an id never handed out is an error.
    fn check_known(&self, command: Command, id: u32) -> Result<(), ConnectionError> {
        if id == 0 || id >= self.next_id {
            return Err(ConnectionError::UnknownStream(command, id));
        }
        Ok(())
    }

    fn open(&mut self, remote: u32, payload: &[u8]) -> Result<(), ConnectionError> {
        let name =
            String::from_utf8_lossy(payload.strip_suffix(b"\0").unwrap_or(payload)).into_owned();
        let refuse = |why: &str| {
            tracing::debug!("refusing service {name:?}: {why}");
            self.link
                .send(&Message::new(Command::CLSE, 0, remote, Vec::new()))
        };
        let Some(service) = Service::parse(&name, self.device.model()) else {
            return Ok(refuse("not offered")?);
        };
        if self.link.open_streams() >= MAX_STREAMS {
            return Ok(refuse("too many open streams")?);
        }
        // A device-side socket must have a listener before the stream exists.
        let listener = match &service {
            Service::Tcp(port) => match self.device.listener(*port) {
                Some(l) => Some(l),
                None => return Ok(refuse("nothing listens on that port")?),
            },
            _ => None,
        };
        let local = self.next_id;
        let Some(io) = self.link.open_stream(local, remote, INPUT_QUEUE) else {
            return Ok(refuse("too many streams open on all connections")?);
        };
        self.next_id += 1;
        self.link
            .send(&Message::new(Command::OKAY, local, remote, Vec::new()))?;
        if let Some(listener) = listener {
            // The stream becomes the accepted socket of whatever listens on the port.
            // A listener with a full backlog refuses, like a real one: the stream just closes.
            if let Err(TrySendError::Full(io) | TrySendError::Disconnected(io)) =
                listener.try_send(io)
            {
                drop(io);
            }
            return Ok(());
        }
        let device = self.device.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("svc-{local}"))
            .spawn(move || service::run(&device, service, io));
        if let Err(e) = spawned {
            tracing::warn!("cannot start a service thread: {e}");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_is_said_once_a_window_with_the_count_held_back() {
        let mut hush = Hush::default();
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(hush.say(at(0)), Some(0));
        assert_eq!(hush.say(at(1)), None);
        assert_eq!(hush.say(at(9_999)), None);
        assert_eq!(hush.say(at(10_000)), Some(2));
        assert_eq!(hush.say(at(10_001)), None);
        assert_eq!(hush.say(at(30_000)), Some(1));
        assert_eq!(held_back(0), "");
        assert_eq!(held_back(2), " (and 2 more like it since the last warning)");
    }
}
