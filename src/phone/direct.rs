//! An ADB host that talks straight to a phone's adbd over TCP (what `adb connect` reaches, and
//! what the built-in virtual phone serves), with no adb server in between: the handshake, then
//! any number of streams multiplexed on one socket, each with ADB's flow control. Unlike
//! adb_client's `ADBTcpDevice` it can open `tcp:N` streams (the monkey's socket) and several
//! streams at once. Async (tokio): one reader task demultiplexes messages to the streams.
//! The same host reaches a phone in this process (`in_process`) by calls instead.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;

use super::in_process::{InProcess, InStream};
use crate::wire::{Command, Decoder, MAX_PAYLOAD, Message, VERSION};

/// How long the handshake may take.
const HANDSHAKE: Duration = Duration::from_secs(5);
/// How often a stream to a phone in process looks for output that its service has not
/// written yet (one that runs until stopped, as `getevent`).
const IN_PROCESS_POLL: Duration = Duration::from_millis(10);

#[derive(Debug, thiserror::Error)]
pub enum DirectError {
    #[error("cannot connect to {addr}: {source}")]
    Connect {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("{0} did not answer the ADB handshake in time")]
    Silent(SocketAddr),
    #[error(
        "{0} asks for authentication: connect it through the adb server (`adb connect`) and accept the key on the phone"
    )]
    Unauthorized(SocketAddr),
    #[error("{0} does not speak ADB: {1}")]
    NotAdb(SocketAddr, String),
    #[error("the phone refused the service {0:?}")]
    Refused(String),
    #[error("the connection to the phone is closed")]
    Closed,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

enum Event {
    Okay(u32),
    Data(Vec<u8>),
    Close,
}

type Routes = Arc<Mutex<HashMap<u32, mpsc::UnboundedSender<Event>>>>;

struct Inner {
    writer: tokio::sync::Mutex<OwnedWriteHalf>,
    routes: Routes,
    next_local: AtomicU32,
    max_payload: usize,
}

impl Inner {
    async fn send(&self, m: Message) -> Result<(), DirectError> {
        let bytes = m.encode();
        self.writer
            .lock()
            .await
            .write_all(&bytes)
            .await
            .map_err(|_| DirectError::Closed)
    }
}

/// One connection to a phone's adbd, or a phone in this process.
#[derive(Clone)]
pub struct Direct {
    via: Via,
}

#[derive(Clone)]
enum Via {
    Tcp(Arc<Inner>),
    InProcess(Arc<dyn InProcess>),
}

impl Direct {
    /// Connects and shakes hands.
    pub async fn connect(addr: SocketAddr) -> Result<Direct, DirectError> {
        let socket = tokio::time::timeout(HANDSHAKE, TcpStream::connect(addr))
            .await
            .map_err(|_| DirectError::Silent(addr))?
            .map_err(|source| DirectError::Connect { addr, source })?;
        socket.set_nodelay(true)?;
        let (mut read, mut write) = socket.into_split();
        let hello = Message::new(Command::CNXN, VERSION, MAX_PAYLOAD, &b"host::\0"[..]);
        write.write_all(&hello.encode()).await?;
        let mut decoder = Decoder::default();
        let answer = tokio::time::timeout(HANDSHAKE, next_message(&mut read, &mut decoder))
            .await
            .map_err(|_| DirectError::Silent(addr))?
            .map_err(|e| DirectError::NotAdb(addr, e.to_string()))?;
        if answer.command == Command::AUTH {
            return Err(DirectError::Unauthorized(addr));
        }
        if answer.command != Command::CNXN {
            return Err(DirectError::NotAdb(addr, format!("{answer:?}")));
        }
        let routes = Routes::default();
        let inner = Arc::new(Inner {
            writer: tokio::sync::Mutex::new(write),
            routes: routes.clone(),
            next_local: AtomicU32::new(1),
            max_payload: (answer.arg1 as usize).clamp(256, MAX_PAYLOAD as usize),
        });
        tokio::spawn(read_loop(read, decoder, routes));
        Ok(Direct {
            via: Via::Tcp(inner),
        })
    }

    /// A phone in this process.
    pub fn in_process(phone: Arc<dyn InProcess>) -> Direct {
        Direct {
            via: Via::InProcess(phone),
        }
    }

    /// Opens a stream to `service` ("exec:CMD", "tcp:1080", ...).
    pub async fn open(&self, service: &str) -> Result<Stream, DirectError> {
        let inner = match &self.via {
            Via::Tcp(inner) => inner,
            Via::InProcess(phone) => {
                let stream = phone.open(service).map_err(|why| {
                    tracing::debug!("refused {service:?}: {why}");
                    DirectError::Refused(service.to_owned())
                });
                settle(phone.as_ref()).await;
                return Ok(Stream {
                    end: End::InProcess {
                        phone: phone.clone(),
                        stream: stream?,
                    },
                    pending: Vec::new(),
                    closed: false,
                });
            }
        };
        let local = inner.next_local.fetch_add(1, Ordering::SeqCst);
        let (tx, mut rx) = mpsc::unbounded_channel();
        inner
            .routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(local, tx);
        let mut name = service.as_bytes().to_vec();
        name.push(0);
        inner
            .send(Message::new(Command::OPEN, local, 0, name))
            .await?;
        match rx.recv().await {
            Some(Event::Okay(remote)) => Ok(Stream {
                end: End::Tcp {
                    inner: inner.clone(),
                    local,
                    remote,
                    rx,
                },
                pending: Vec::new(),
                closed: false,
            }),
            _ => {
                inner
                    .routes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&local);
                Err(DirectError::Refused(service.to_owned()))
            }
        }
    }

    /// Runs a command through `shell:`, which every Android version has, and returns its
    /// output: before Android 7 it went through a terminal, so lines end in CRLF.
    pub async fn shell(&self, cmd: &str) -> Result<Vec<u8>, DirectError> {
        let mut s = self.open(&format!("shell:{cmd}")).await?;
        s.read_to_end().await
    }
}

/// Why no message came from the phone.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error(transparent)]
    Wire(#[from] crate::wire::WireError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("the connection closed")]
    Closed,
}

async fn next_message(
    read: &mut tokio::net::tcp::OwnedReadHalf,
    decoder: &mut Decoder,
) -> Result<Message, ReadError> {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        if let Some(m) = decoder.decode()? {
            return Ok(m);
        }
        let want = decoder.wanted().min(buf.len());
        let n = read.read(&mut buf[..want]).await?;
        if n == 0 {
            return Err(ReadError::Closed);
        }
        decoder.feed(&buf[..n]);
    }
}

async fn read_loop(mut read: tokio::net::tcp::OwnedReadHalf, mut decoder: Decoder, routes: Routes) {
    while let Ok(m) = next_message(&mut read, &mut decoder).await {
        let event = match m.command {
            Command::OKAY => Event::Okay(m.arg0),
            Command::WRTE => Event::Data(m.payload),
            Command::CLSE => Event::Close,
            _ => continue,
        };
        let mut routes = routes.lock().unwrap_or_else(|e| e.into_inner());
        let close = matches!(event, Event::Close);
        if let Some(tx) = routes.get(&m.arg1) {
            let _ = tx.send(event);
        }
        if close {
            routes.remove(&m.arg1);
        }
    }
    // The phone is gone: every stream sees its end.
    for (_, tx) in routes.lock().unwrap_or_else(|e| e.into_inner()).drain() {
        let _ = tx.send(Event::Close);
    }
}

/// Waits until the caller's clock has caught up with the phone's.
async fn settle(phone: &dyn InProcess) {
    if let Some(at) = phone.settles_at() {
        tokio::time::sleep_until(at).await;
    }
}

/// One open stream.
pub struct Stream {
    end: End,
    pending: Vec<u8>,
    closed: bool,
}

/// What is at the other end of a stream.
enum End {
    Tcp {
        inner: Arc<Inner>,
        local: u32,
        remote: u32,
        rx: mpsc::UnboundedReceiver<Event>,
    },
    InProcess {
        phone: Arc<dyn InProcess>,
        stream: Box<dyn InStream>,
    },
}

impl Stream {
    /// Writes everything, one payload at a time, each after the phone acknowledged the last.
    pub async fn write(&mut self, data: &[u8]) -> Result<(), DirectError> {
        let (inner, local, remote) = match &mut self.end {
            End::InProcess { phone, stream } => {
                let written = stream.write(data);
                settle(phone.as_ref()).await;
                return written.map_err(|why| {
                    tracing::debug!("in-process stream: {why}");
                    self.closed = true;
                    DirectError::Closed
                });
            }
            End::Tcp {
                inner,
                local,
                remote,
                ..
            } => (inner.clone(), *local, *remote),
        };
        for chunk in data.chunks(inner.max_payload) {
            if self.closed {
                return Err(DirectError::Closed);
            }
            inner
                .send(Message::new(Command::WRTE, local, remote, chunk.to_vec()))
                .await?;
            loop {
                match self.recv().await {
                    Some(Event::Okay(_)) => break,
                    Some(Event::Data(d)) => self.take(d).await?,
                    Some(Event::Close) | None => {
                        self.closed = true;
                        return Err(DirectError::Closed);
                    }
                }
            }
        }
        Ok(())
    }

    /// The next message on a TCP stream (`None` in process).
    async fn recv(&mut self) -> Option<Event> {
        match &mut self.end {
            End::Tcp { rx, .. } => rx.recv().await,
            End::InProcess { .. } => None,
        }
    }

    /// Keeps data that came over TCP, and acknowledges it.
    async fn take(&mut self, data: Vec<u8>) -> Result<(), DirectError> {
        self.pending.extend_from_slice(&data);
        if let End::Tcp {
            inner,
            local,
            remote,
            ..
        } = &self.end
        {
            inner
                .send(Message::new(Command::OKAY, *local, *remote, Vec::new()))
                .await?;
        }
        Ok(())
    }

    /// Waits for more data; false at the end of the stream.
    async fn fill(&mut self) -> Result<bool, DirectError> {
        while !self.closed {
            let event = match &mut self.end {
                End::Tcp { .. } => self.recv().await,
                End::InProcess { phone, stream } => {
                    let (data, ended) = stream.take();
                    settle(phone.as_ref()).await;
                    if !data.is_empty() {
                        // A screenshot comes whole: taken over, not copied.
                        if self.pending.is_empty() {
                            self.pending = data;
                        } else {
                            self.pending.extend_from_slice(&data);
                        }
                        return Ok(true);
                    }
                    if ended {
                        self.closed = true;
                        continue;
                    }
                    tokio::time::sleep(IN_PROCESS_POLL).await;
                    continue;
                }
            };
            match event {
                Some(Event::Data(d)) => {
                    self.take(d).await?;
                    return Ok(true);
                }
                Some(Event::Okay(_)) => {}
                Some(Event::Close) | None => self.closed = true,
            }
        }
        Ok(false)
    }

    /// One line without its end (LF or CRLF); `None` at the end of the stream.
    pub async fn read_line(&mut self) -> Result<Option<String>, DirectError> {
        loop {
            if let Some(i) = self.pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=i).collect();
                let text = String::from_utf8_lossy(&line);
                return Ok(Some(text.trim_end_matches(['\r', '\n']).to_owned()));
            }
            if !self.fill().await? {
                return Ok(None);
            }
        }
    }

    /// Everything until the phone closes the stream.
    pub async fn read_to_end(&mut self) -> Result<Vec<u8>, DirectError> {
        Ok(self.read_to_end_timed().await?.0)
    }

    /// `read_to_end`, and when its first bytes came (`None` when none did): what they tell
    /// of was done on the phone before then (a screenshot's frame was taken).
    pub async fn read_to_end_timed(
        &mut self,
    ) -> Result<(Vec<u8>, Option<tokio::time::Instant>), DirectError> {
        let mut first = None;
        while self.fill().await? {
            first.get_or_insert_with(tokio::time::Instant::now);
        }
        Ok((std::mem::take(&mut self.pending), first))
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        let End::Tcp {
            inner,
            local,
            remote,
            ..
        } = &self.end
        else {
            // A stream in process ends with its value.
            return;
        };
        inner
            .routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(local);
        if self.closed {
            return;
        }
        let (inner, local, remote) = (inner.clone(), *local, *remote);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = inner
                    .send(Message::new(Command::CLSE, local, remote, Vec::new()))
                    .await;
            });
        }
    }
}
