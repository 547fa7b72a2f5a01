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

use crate::wire::{Command, Message};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The part of a connection that stream threads share: the socket's write side and the state
/// of every open stream.
pub struct Link {
    socket: Mutex<TcpStream>,
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
    /// A link writing to `socket`, with no stream open yet.
    pub fn new(socket: TcpStream) -> Link {
        Link {
            socket: Mutex::new(socket),
            max_payload: AtomicUsize::new(4096),
            streams: Mutex::new(HashMap::new()),
            changed: Condvar::new(),
        }
    }

    /// Sends one message to the host.
    pub fn send(&self, m: &Message) -> io::Result<()> {
        lock(&self.socket).write_all(&m.encode())
    }

    /// Ends every stream (the connection is gone): their services see end of input and
    /// failing writes, and finish.
    pub fn close_all(&self) {
        lock(&self.streams).clear();
        self.changed.notify_all();
    }
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
    /// read.
    pub fn open_stream(self: &Arc<Self>, local: u32, remote: u32, queue: usize) -> StreamIo {
        let (tx, rx) = std::sync::mpsc::sync_channel(queue);
        lock(&self.streams).insert(
            local,
            StreamState {
                waiting: false,
                input: tx,
            },
        );
        StreamIo {
            link: self.clone(),
            local,
            remote,
            input: rx,
            read_buf: Vec::new(),
            read_pos: 0,
            write_buf: Vec::new(),
        }
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

    /// Sends one payload once the host has acknowledged the last.
    fn send_chunk(&self, chunk: &[u8]) -> io::Result<()> {
        let mut streams = lock(&self.link.streams);
        loop {
            match streams.get_mut(&self.local) {
                None => return Err(io::ErrorKind::BrokenPipe.into()),
                Some(s) if !s.waiting => {
                    s.waiting = true;
                    break;
                }
                Some(_) => {
                    streams = self
                        .link
                        .changed
                        .wait(streams)
                        .unwrap_or_else(|e| e.into_inner());
                }
            }
        }
        drop(streams);
        self.link.send(&Message::new(
            Command::WRTE,
            self.local,
            self.remote,
            chunk.to_vec(),
        ))
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
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let max = self.max_payload();
        self.write_buf.extend_from_slice(buf);
        while self.write_buf.len() >= max {
            let rest = self.write_buf.split_off(max);
            let full = std::mem::replace(&mut self.write_buf, rest);
            self.send_chunk(&full)?;
        }
        Ok(buf.len())
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
