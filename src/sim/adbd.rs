//! The virtual phone's adbd: listens on a loopback TCP port and speaks the device side of ADB
//! to any host (Debian's adb server, adb_client, or a test). It owns the handshake, streams and
//! their flow control; what a stream does is its service's (`service`). Each connection has a
//! reader thread; each open stream runs its service on a thread of its own behind a
//! [`StreamIo`], which is plain `Read + Write` with ADB flow control underneath: a service that
//! writes faster than the host acknowledges blocks, and the host's input is acknowledged only
//! once the service has read it. So nothing a peer sends can make the sim hold more than a few
//! messages' worth of memory per stream, and bad traffic ends only the connection it came on.

use std::collections::HashMap;
use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::TrySendError;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use super::device::Device;
use super::service::{self, Service};
use super::stream::Link;
use crate::wire::{Command, Decoder, MAX_PAYLOAD, Message, VERSION, WireError};

/// Streams one connection may hold open at once; more are refused, as a busy adbd would.
const MAX_STREAMS: usize = 64;
/// Host writes one stream may have waiting to be read. The host may send one write before our
/// acknowledgement; a host that sends more is breaking the protocol.
const INPUT_QUEUE: usize = 4;

/// What one adbd allows its hosts, so that no peer can make it hold threads or memory
/// without bound.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once; one past this is closed as soon as it is accepted.
    pub connections: usize,
    /// How long a host may take to finish a message it has begun, or to send its first one
    /// (the handshake); a connection idle between messages is kept.
    pub stall: Duration,
}

impl Default for Limits {
    /// A real adbd serves one adb server and a few tools; a slow link still sends a 24-byte
    /// header or a 1 MiB payload within seconds.
    fn default() -> Limits {
        Limits {
            connections: 64,
            stall: Duration::from_secs(10),
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

/// A clone of every live connection's socket, by connection number, so `Drop` can end them.
type Connections = Arc<Mutex<HashMap<u64, TcpStream>>>;

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
            let _ = c.shutdown(Shutdown::Both);
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
    for (number, stream) in (0u64..).zip(listener.incoming()) {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        if lock(&connections).len() >= limits.connections {
            tracing::warn!(
                peer = ?stream.peer_addr().ok(),
                "refusing a connection: {} are open already",
                limits.connections
            );
            let _ = stream.shutdown(Shutdown::Both);
            continue;
        }
        let _ = stream.set_nodelay(true);
        let Ok(clone) = stream.try_clone() else {
            continue;
        };
        lock(&connections).insert(number, clone);
        let live = connections.clone();
        let device = device.clone();
        let spawned = std::thread::Builder::new()
            .name("adbd-conn".into())
            .spawn(move || {
                let peer = stream.peer_addr().ok();
                match serve(&stream, device, limits.stall) {
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
                let _ = c.shutdown(Shutdown::Both);
            }
        }
    }
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
    #[error("the host sent {0} bytes of a message and then nothing for {1:?}")]
    Stalled(usize, Duration),
    #[error("the host sent no handshake within {0:?}")]
    NoHandshake(Duration),
    #[error(transparent)]
    Io(#[from] io::Error),
}

fn serve(socket: &TcpStream, device: Arc<Device>, stall: Duration) -> Result<(), ConnectionError> {
    socket.set_read_timeout(Some(stall))?;
    let link = Arc::new(Link::new(socket.try_clone()?));
    let mut conn = Connection {
        device,
        link: link.clone(),
        connected: false,
        next_id: 1,
    };
    let result = conn.read_loop(socket);
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
    fn read_loop(&mut self, mut socket: &TcpStream) -> Result<(), ConnectionError> {
        let mut decoder = Decoder::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let want = decoder.wanted().min(buf.len());
            let n = match socket.read(&mut buf[..want]) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // The read timeout is the stall limit: a message begun must be finished, and
                // a host must shake hands; between messages a host may stay quiet.
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    let stall = socket.read_timeout()?.unwrap_or_default();
                    if decoder.pending() > 0 {
                        return Err(ConnectionError::Stalled(decoder.pending(), stall));
                    }
                    if !self.connected {
                        return Err(ConnectionError::NoHandshake(stall));
                    }
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            decoder.feed(&buf[..n]);
            while let Some(msg) = decoder.decode()? {
                self.handle(msg)?;
            }
        }
    }

    fn handle(&mut self, msg: Message) -> Result<(), ConnectionError> {
        let link = &self.link;
        if msg.command == Command::CNXN {
            // A new handshake resets the connection, as adbd does.
            link.close_all();
            self.connected = true;
            let max = (msg.arg1.min(MAX_PAYLOAD) as usize).max(256);
            link.set_max_payload(max);
            link.send(&Message::new(
                Command::CNXN,
                VERSION,
                MAX_PAYLOAD,
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
        self.next_id += 1;
        let io = self.link.open_stream(local, remote, INPUT_QUEUE);
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
