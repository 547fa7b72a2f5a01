//! An ADB host that talks straight to a phone's adbd over TCP (what `adb connect` reaches, and
//! what the built-in virtual phone serves), with no adb server in between: the handshake, then
//! any number of streams multiplexed on one socket, each with ADB's flow control. Unlike
//! adb_client's `ADBTcpDevice` it can open `tcp:N` streams (the monkey's socket) and several
//! streams at once. Async (tokio): one reader task demultiplexes messages to the streams.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::OwnedWriteHalf;
use tokio::sync::mpsc;

use crate::wire::{Command, Decoder, MAX_PAYLOAD, Message, VERSION};

/// How long the handshake may take.
const HANDSHAKE: Duration = Duration::from_secs(5);

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

/// One connection to a phone's adbd.
#[derive(Clone)]
pub struct Direct {
    inner: Arc<Inner>,
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
        Ok(Direct { inner })
    }

    /// Opens a stream to `service` ("exec:CMD", "tcp:1080", ...).
    pub async fn open(&self, service: &str) -> Result<Stream, DirectError> {
        let local = self.inner.next_local.fetch_add(1, Ordering::SeqCst);
        let (tx, mut rx) = mpsc::unbounded_channel();
        self.inner
            .routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(local, tx);
        let mut name = service.as_bytes().to_vec();
        name.push(0);
        self.inner
            .send(Message::new(Command::OPEN, local, 0, name))
            .await?;
        match rx.recv().await {
            Some(Event::Okay(remote)) => Ok(Stream {
                inner: self.inner.clone(),
                local,
                remote,
                rx,
                pending: Vec::new(),
                closed: false,
            }),
            _ => {
                self.inner
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

/// One open stream.
pub struct Stream {
    inner: Arc<Inner>,
    local: u32,
    remote: u32,
    rx: mpsc::UnboundedReceiver<Event>,
    pending: Vec<u8>,
    closed: bool,
}

impl Stream {
    /// Writes everything, one payload at a time, each after the phone acknowledged the last.
    pub async fn write(&mut self, data: &[u8]) -> Result<(), DirectError> {
        for chunk in data.chunks(self.inner.max_payload) {
            if self.closed {
                return Err(DirectError::Closed);
            }
            self.inner
                .send(Message::new(
                    Command::WRTE,
                    self.local,
                    self.remote,
                    chunk.to_vec(),
                ))
                .await?;
            loop {
                match self.rx.recv().await {
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

    async fn take(&mut self, data: Vec<u8>) -> Result<(), DirectError> {
        self.pending.extend_from_slice(&data);
        self.inner
            .send(Message::new(
                Command::OKAY,
                self.local,
                self.remote,
                Vec::new(),
            ))
            .await
    }

    /// Waits for more data; false at the end of the stream.
    async fn fill(&mut self) -> Result<bool, DirectError> {
        while !self.closed {
            match self.rx.recv().await {
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
        while self.fill().await? {}
        Ok(std::mem::take(&mut self.pending))
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.inner
            .routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.local);
        if self.closed {
            return;
        }
        let (inner, local, remote) = (self.inner.clone(), self.local, self.remote);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let _ = inner
                    .send(Message::new(Command::CLSE, local, remote, Vec::new()))
                    .await;
            });
        }
    }
}
