//! One ADB connection's streams as the device's services see them: `Link` is what the
//! connection's threads share (the socket's write side, the open streams and their flow
//! control), `StreamIo` one stream as a `Read + Write`. adbd opens streams on a link and feeds
//! them the host's messages; services, the shell and sync only read and write a `StreamIo`.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::cable::Wire;
use crate::wire::{Command, Message, header};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The part of a connection that stream threads share: the socket's write side and the state
/// of every open stream.
pub struct Link {
    socket: Mutex<TcpStream>,
    /// How long one message may take to write: the socket's write timeout when the link was
    /// made (its adbd's stall limit); each write call is given what is left of it.
    stall: Option<Duration>,
    budget: Arc<Budget>,
    /// The cable to the host, which every message crosses in turn.
    wire: Arc<Wire>,
    max_payload: AtomicUsize,
    streams: Mutex<HashMap<u32, StreamState>>,
    /// Signalled when a stream is acknowledged or closed.
    changed: Condvar,
}

struct StreamState {
    /// Our last write has not been acknowledged yet.
    waiting: bool,
    /// Where the host's writes go; dropping it is the service's end of input.
    input: SyncSender<Vec<u8>>,
}

impl Link {
    /// A link writing to `socket` over `wire`, with no stream open yet, its streams counted
    /// in `budget`; the socket's write timeout, if set, is how long a message may take to
    /// write.
    pub fn new(socket: TcpStream, budget: Arc<Budget>, wire: Arc<Wire>) -> Link {
        Link {
            stall: socket.write_timeout().ok().flatten(),
            socket: Mutex::new(socket),
            budget,
            wire,
            max_payload: AtomicUsize::new(4096),
            streams: Mutex::new(HashMap::new()),
            changed: Condvar::new(),
        }
    }

    /// Sends one message to the host. A message that could not be sent whole (the host did
    /// not take it in within the stall limit, or left) leaves the connection unusable, so
    /// the socket is shut down and the connection ends.
    pub fn send(&self, m: &Message) -> io::Result<()> {
        self.send_parts(m.command, m.arg0, m.arg1, &m.payload)
    }

    /// `send` of a message carrying `payload`, written from where it lies. The stall limit
    /// bounds the whole message, not each write: a host that takes in a few bytes now and
    /// then (a window opened a crack) would otherwise keep a write going for many limits
    /// (three, measured).
    fn send_parts(&self, command: Command, arg0: u32, arg1: u32, payload: &[u8]) -> io::Result<()> {
        let mut socket = lock(&self.socket);
        self.wire.carry(crate::wire::HEADER_LEN + payload.len());
        let deadline = self.stall.map(|l| Instant::now() + l);
        let sent = write_by(&mut socket, &header(command, arg0, arg1, payload), deadline)
            .and_then(|()| write_by(&mut socket, payload, deadline));
        if sent.is_err() {
            let _ = socket.shutdown(std::net::Shutdown::Both);
        }
        sent
    }

    /// Ends every stream (the connection is gone): their services see end of input and
    /// failing writes, and finish.
    pub fn close_all(&self) {
        lock(&self.streams).clear();
        self.changed.notify_all();
    }
}

/// Writes all of `bytes` before `deadline` (if any), or fails with `TimedOut`.
fn write_by(socket: &mut TcpStream, mut bytes: &[u8], deadline: Option<Instant>) -> io::Result<()> {
    while !bytes.is_empty() {
        if let Some(deadline) = deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(io::ErrorKind::TimedOut.into());
            }
            socket.set_write_timeout(Some(left))?;
        }
        match socket.write(bytes) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => bytes = &bytes[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// What the host did to a stream's input that it must not.
#[derive(Debug, PartialEq, Eq)]
pub struct Flooded;

impl Link {
    /// The most one write may carry, as agreed in the handshake.
    pub fn set_max_payload(&self, max: usize) {
        self.max_payload.store(max, Ordering::SeqCst);
    }

    /// Streams open now.
    pub fn open_streams(&self) -> usize {
        lock(&self.streams).len()
    }

    /// Opens stream `local` to the host's `remote`, with room for `queue` host writes not yet
    /// read; `None` when the budget of streams open on every connection is spent.
    pub fn open_stream(
        self: &Arc<Self>,
        local: u32,
        remote: u32,
        queue: usize,
    ) -> Option<StreamIo> {
        let ticket = self.budget.take()?;
        let (tx, rx) = std::sync::mpsc::sync_channel(queue);
        lock(&self.streams).insert(
            local,
            StreamState {
                waiting: false,
                input: tx,
            },
        );
        Some(StreamIo {
            link: self.clone(),
            local,
            remote,
            input: rx,
            read_buf: Vec::new(),
            read_pos: 0,
            write_buf: Vec::new(),
            _ticket: ticket,
        })
    }

    /// The host acknowledged our last write on stream `id`.
    pub fn acknowledged(&self, id: u32) {
        if let Some(s) = lock(&self.streams).get_mut(&id) {
            s.waiting = false;
        }
        self.changed.notify_all();
    }

    /// The host wrote `payload` to stream `id`; `Flooded` if it wrote again and again without
    /// waiting for our acknowledgements.
    pub fn deliver(&self, id: u32, payload: Vec<u8>) -> Result<(), Flooded> {
        let streams = lock(&self.streams);
        if let Some(s) = streams.get(&id) {
            match s.input.try_send(payload) {
                // Disconnected: the service has finished reading; its stream is about to close.
                Ok(()) | Err(TrySendError::Disconnected(_)) => {}
                Err(TrySendError::Full(_)) => return Err(Flooded),
            }
        }
        Ok(())
    }

    /// The host closed stream `id`.
    pub fn closed_by_host(&self, id: u32) {
        lock(&self.streams).remove(&id);
        self.changed.notify_all();
    }
}

/// One stream, from the device's side: what the host writes is read, what is written goes to
/// the host (buffered until `flush`, a full payload, or the end). Dropping it closes the
/// stream. Reads return end of input once the host closes the stream or the connection ends;
/// writes then fail with `BrokenPipe`.
pub struct StreamIo {
    link: Arc<Link>,
    local: u32,
    remote: u32,
    input: Receiver<Vec<u8>>,
    read_buf: Vec<u8>,
    read_pos: usize,
    write_buf: Vec<u8>,
    /// This stream's place in the budget, given back when it is dropped.
    _ticket: Ticket,
}

/// How many streams may be open at once on all of an adbd's connections together. Each holds
/// a service (a thread) and up to a payload of output and a few of input, so this bounds the
/// phone's memory and threads whatever its hosts do.
#[derive(Debug)]
pub struct Budget {
    open: AtomicUsize,
    max: usize,
}

impl Budget {
    pub fn new(max: usize) -> Arc<Budget> {
        Arc::new(Budget {
            open: AtomicUsize::new(0),
            max,
        })
    }

    /// Streams open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    fn take(self: &Arc<Self>) -> Option<Ticket> {
        self.open
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.max).then_some(n + 1)
            })
            .ok()
            .map(|_| Ticket(self.clone()))
    }
}

/// One stream's place in a [`Budget`].
#[derive(Debug)]
struct Ticket(Arc<Budget>);

impl Drop for Ticket {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

impl StreamIo {
    /// The host has closed this stream (or its connection).
    pub fn is_closed(&self) -> bool {
        !lock(&self.link.streams).contains_key(&self.local)
    }

    fn accept_input(&mut self, chunk: Vec<u8>) -> io::Result<()> {
        self.read_buf = chunk;
        self.read_pos = 0;
        // Acknowledged only now that it is ours: this is the host's flow control.
        self.link.send(&Message::new(
            Command::OKAY,
            self.local,
            self.remote,
            Vec::new(),
        ))
    }

    /// Sends one payload once the host has acknowledged the last. A host that has not
    /// within the link's stall limit is not reading what the phone sends (as a full socket
    /// would say with larger payloads): the connection is ended.
    fn send_chunk(&self, chunk: &[u8]) -> io::Result<()> {
        let deadline = self.link.stall.map(|l| Instant::now() + l);
        let mut streams = lock(&self.link.streams);
        loop {
            match streams.get_mut(&self.local) {
                None => return Err(io::ErrorKind::BrokenPipe.into()),
                Some(s) if !s.waiting => {
                    s.waiting = true;
                    break;
                }
                Some(_) => {
                    let wait = deadline.map(|d| d.saturating_duration_since(Instant::now()));
                    if wait.is_some_and(|w| w.is_zero()) {
                        drop(streams);
                        let _ = lock(&self.link.socket).shutdown(std::net::Shutdown::Both);
                        return Err(io::ErrorKind::TimedOut.into());
                    }
                    streams = match wait {
                        Some(w) => {
                            self.link
                                .changed
                                .wait_timeout(streams, w)
                                .unwrap_or_else(|e| e.into_inner())
                                .0
                        }
                        None => self
                            .link
                            .changed
                            .wait(streams)
                            .unwrap_or_else(|e| e.into_inner()),
                    };
                }
            }
        }
        drop(streams);
        self.link
            .send_parts(Command::WRTE, self.local, self.remote, chunk)
    }

    fn max_payload(&self) -> usize {
        self.link.max_payload.load(Ordering::SeqCst)
    }
}

impl Read for StreamIo {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.read_pos >= self.read_buf.len() {
            // Whatever we wrote must reach the host before we wait for its answer.
            self.flush()?;
            match self.input.recv() {
                Ok(chunk) => self.accept_input(chunk)?,
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.read_buf.len() - self.read_pos);
        buf[..n].copy_from_slice(&self.read_buf[self.read_pos..self.read_pos + n]);
        self.read_pos += n;
        Ok(n)
    }
}

impl Write for StreamIo {
    /// Takes at most what fills the payload being gathered, and sends it once full, so a
    /// stream never holds more than one payload of output however much a service writes.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let max = self.max_payload();
        if self.write_buf.len() >= max {
            self.flush()?;
        }
        let n = buf.len().min(max.saturating_sub(self.write_buf.len()));
        self.write_buf.extend_from_slice(&buf[..n]);
        if self.write_buf.len() >= max {
            self.flush()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.write_buf.is_empty() {
            return Ok(());
        }
        let out = std::mem::take(&mut self.write_buf);
        self.send_chunk(&out)
    }
}

impl Drop for StreamIo {
    fn drop(&mut self) {
        let _ = self.flush();
        // Closed without waiting for the last acknowledgement, as adbd does; not at all if the
        // host closed it first.
        if lock(&self.link.streams).remove(&self.local).is_some() {
            self.link.changed.notify_all();
            let _ = self.link.send(&Message::new(
                Command::CLSE,
                self.local,
                self.remote,
                Vec::new(),
            ));
        }
    }
}
