//! The virtual phone's adbd: listens on a loopback TCP port and speaks the device side of ADB
//! to any host (Debian's adb server, adb_client, or a test), one thread per connection. It owns
//! the handshake, streams and their flow control; what a stream's service does is `shell`'s.
//! Bad traffic ends only the connection it came on, and nothing a peer sends can make it hold
//! more than one message's worth of memory per connection.

use std::collections::{HashMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::Model;
use super::shell::{self, Service};
use super::wire::{Command, Decoder, MAX_PAYLOAD, Message, VERSION, WireError};

/// A running adbd. Dropping it stops it and closes every connection.
pub struct Adbd {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    connections: Connections,
    accept: Option<JoinHandle<()>>,
}

/// A clone of every live connection's socket, by connection number, so `Drop` can end them.
type Connections = Arc<Mutex<HashMap<u64, TcpStream>>>;

impl Adbd {
    /// Listens on `addr` (use port 0 for a free one) for a phone of `model`.
    pub fn start(addr: SocketAddr, model: Model) -> io::Result<Adbd> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let connections = Connections::default();
        let accept = {
            let (stop, connections) = (stop.clone(), connections.clone());
            std::thread::Builder::new()
                .name("adbd-accept".into())
                .spawn(move || accept_loop(listener, model, stop, connections))?
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
        for (_, c) in self
            .connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain()
        {
            let _ = c.shutdown(Shutdown::Both);
        }
    }
}

fn accept_loop(
    listener: TcpListener,
    model: Model,
    stop: Arc<AtomicBool>,
    connections: Connections,
) {
    for (number, stream) in (0u64..).zip(listener.incoming()) {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let _ = stream.set_nodelay(true);
        if let Ok(clone) = stream.try_clone() {
            let mut live = connections.lock().unwrap_or_else(|e| e.into_inner());
            live.insert(number, clone);
        }
        let live = connections.clone();
        let spawned = std::thread::Builder::new()
            .name("adbd-conn".into())
            .spawn(move || {
                let peer = stream.peer_addr().ok();
                match Connection::new(model).serve(&stream) {
                    Ok(()) => tracing::debug!(?peer, "host disconnected"),
                    Err(e) => tracing::info!(?peer, "connection closed: {e}"),
                }
                // A clone of this socket is kept for `Drop`, so dropping ours would not close
                // it: the host must see the connection end.
                let _ = stream.shutdown(Shutdown::Both);
                live.lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&number);
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot serve a connection: {e}");
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
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// One stream the host opened: the output still to send, and whether the host has
/// acknowledged the last write (one unacknowledged write at a time).
struct Stream {
    host_id: u32,
    pending: VecDeque<Vec<u8>>,
    waiting_for_okay: bool,
}

/// One host connection's state.
struct Connection {
    model: Model,
    connected: bool,
    /// The largest payload the host takes.
    max_payload: usize,
    streams: HashMap<u32, Stream>,
    next_id: u32,
}

impl Connection {
    fn new(model: Model) -> Connection {
        Connection {
            model,
            connected: false,
            max_payload: 4096,
            streams: HashMap::new(),
            next_id: 1,
        }
    }

    fn serve(mut self, mut stream: &TcpStream) -> Result<(), ConnectionError> {
        let mut decoder = Decoder::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let want = decoder.wanted().min(buf.len());
            let n = match stream.read(&mut buf[..want]) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            decoder.feed(&buf[..n]);
            while let Some(msg) = decoder.decode()? {
                let mut out = Vec::new();
                self.handle(msg, &mut out)?;
                for m in out {
                    stream.write_all(&m.encode())?;
                }
            }
        }
    }

    /// Answers one message from the host with the messages to send back.
    fn handle(&mut self, msg: Message, out: &mut Vec<Message>) -> Result<(), ConnectionError> {
        if msg.command == Command::CNXN {
            self.connected = true;
            self.max_payload = (msg.arg1.min(MAX_PAYLOAD) as usize).max(256);
            self.streams.clear();
            out.push(Message::new(
                Command::CNXN,
                VERSION,
                MAX_PAYLOAD,
                self.model.banner().into_bytes(),
            ));
            return Ok(());
        }
        if !self.connected {
            // As adbd does: nothing but CNXN means anything before the handshake.
            return Ok(());
        }
        match msg.command {
            Command::OPEN => self.open(msg.arg0, &msg.payload, out),
            Command::OKAY => {
                let ours = self.known(msg.command, msg.arg1)?;
                if let Some(s) = ours {
                    s.waiting_for_okay = false;
                    self.flush(msg.arg1, out);
                }
            }
            Command::WRTE => {
                // Input to a stream: acknowledged and, for the services so far, unread.
                if self.known(msg.command, msg.arg1)?.is_some() {
                    out.push(Message::new(Command::OKAY, msg.arg1, msg.arg0, Vec::new()));
                }
            }
            Command::CLSE => {
                self.known(msg.command, msg.arg1)?;
                self.streams.remove(&msg.arg1);
            }
            // We never ask for authentication or TLS, so a host has no reason to send these.
            _ => tracing::debug!("ignoring {msg:?}"),
        }
        Ok(())
    }

    /// The stream `id` if it is open; `None` if it was opened and has closed since (the host
    /// may still acknowledge or close it); an error if this connection never opened it.
    fn known(&mut self, command: Command, id: u32) -> Result<Option<&mut Stream>, ConnectionError> {
        if id == 0 || id >= self.next_id {
            return Err(ConnectionError::UnknownStream(command, id));
        }
        Ok(self.streams.get_mut(&id))
    }

    fn open(&mut self, host_id: u32, payload: &[u8], out: &mut Vec<Message>) {
        let name =
            String::from_utf8_lossy(payload.strip_suffix(b"\0").unwrap_or(payload)).into_owned();
        let output = match Service::parse(&name) {
            Some(service) => shell::run(&service, &self.model),
            None => {
                tracing::debug!("refusing service {name:?}");
                out.push(Message::new(Command::CLSE, 0, host_id, Vec::new()));
                return;
            }
        };
        let id = self.next_id;
        self.next_id += 1;
        out.push(Message::new(Command::OKAY, id, host_id, Vec::new()));
        let pending = output
            .chunks(self.max_payload)
            .map(<[u8]>::to_vec)
            .collect();
        self.streams.insert(
            id,
            Stream {
                host_id,
                pending,
                waiting_for_okay: false,
            },
        );
        self.flush(id, out);
    }

    /// Sends the stream's next write if the host has acknowledged the last; closes it when
    /// everything is sent (without waiting for the last acknowledgement, as adbd does).
    fn flush(&mut self, id: u32, out: &mut Vec<Message>) {
        let Some(s) = self.streams.get_mut(&id) else {
            return;
        };
        if s.waiting_for_okay {
            return;
        }
        match s.pending.pop_front() {
            Some(chunk) => {
                s.waiting_for_okay = true;
                out.push(Message::new(Command::WRTE, id, s.host_id, chunk));
                if s.pending.is_empty() {
                    out.push(Message::new(Command::CLSE, id, s.host_id, Vec::new()));
                    self.streams.remove(&id);
                }
            }
            None => {
                out.push(Message::new(Command::CLSE, id, s.host_id, Vec::new()));
                self.streams.remove(&id);
            }
        }
    }
}
