//! The `sync:` service that moves the phone's files (`adb push`, `adb pull`, listing):
//! version 1 requests of 4-byte id and u32 length (STAT, LIST, SEND, RECV, QUIT), DATA chunks
//! of at most 64 KiB, DONE, OKAY and FAIL answers. The files themselves are `files::Files`.

use std::io::{self, Read, Write};
use std::sync::Arc;

use super::device::Device;
use super::files::{CAPACITY, FsError};
use super::stream::StreamIo;

/// Largest DATA chunk of the sync protocol.
pub const SYNC_DATA_MAX: usize = 64 * 1024;
/// Longest path a sync request may name.
const MAX_PATH: usize = 1024;
fn packet(id: &[u8; 4], len: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + body.len());
    out.extend_from_slice(id);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(body);
    out
}

fn fail(io: &mut impl Write, why: &str) -> io::Result<()> {
    io.write_all(&packet(b"FAIL", why.len() as u32, why.as_bytes()))?;
    io.flush()
}

/// Reads one request header: id and length.
fn header(io: &mut impl Read) -> io::Result<Option<([u8; 4], u32)>> {
    let mut h = [0u8; 8];
    match io.read_exact(&mut h) {
        Ok(()) => Ok(Some((
            h[..4].try_into().unwrap(),
            u32::from_le_bytes(h[4..].try_into().unwrap()),
        ))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

fn path_arg(io: &mut (impl Read + Write), len: u32) -> io::Result<Option<String>> {
    if len as usize > MAX_PATH {
        fail(io, "path too long")?;
        return Ok(None);
    }
    let mut p = vec![0u8; len as usize];
    io.read_exact(&mut p)?;
    Ok(Some(String::from_utf8_lossy(&p).into_owned()))
}

/// Serves the requests of `input` as one `sync:` stream would, and returns the answers: the
/// protocol without a connection, for fuzzing and tests.
pub fn serve_bytes(device: &Arc<Device>, input: &[u8]) -> Vec<u8> {
    struct Duplex<'a> {
        input: &'a [u8],
        output: Vec<u8>,
    }
    impl Read for Duplex<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.input.read(buf)
        }
    }
    impl Write for Duplex<'_> {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.output.write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut duplex = Duplex {
        input,
        output: Vec::new(),
    };
    if let Err(e) = serve_requests(device, &mut duplex) {
        tracing::debug!("sync requests ended: {e}");
    }
    duplex.output
}

/// Serves one `sync:` stream until QUIT, a protocol error, or the host closing it.
pub fn serve(device: &Arc<Device>, mut io: StreamIo) {
    if let Err(e) = serve_requests(device, &mut io) {
        tracing::debug!("sync stream ended: {e}");
    }
}

fn serve_requests(device: &Arc<Device>, io: &mut (impl Read + Write)) -> io::Result<()> {
    while let Some((id, len)) = header(io)? {
        match &id {
            b"QUIT" => return Ok(()),
            b"STAT" => {
                let Some(path) = path_arg(io, len)? else {
                    return Ok(());
                };
                let (mode, size, mtime) = device.with_files(|f| f.stat(&path)).unwrap_or((0, 0, 0));
                let mut body = Vec::new();
                for v in [mode, size, mtime] {
                    body.extend_from_slice(&v.to_le_bytes());
                }
                io.write_all(&[b"STAT".as_slice(), &body].concat())?;
                io.flush()?;
            }
            b"LIST" => {
                let Some(path) = path_arg(io, len)? else {
                    return Ok(());
                };
                // Listed first: the phone's state is not held while the host reads.
                let entries = device.with_files(|f| f.list(&path));
                for (name, mode, size, mtime) in entries {
                    let mut body = Vec::new();
                    for v in [mode, size, mtime, name.len() as u32] {
                        body.extend_from_slice(&v.to_le_bytes());
                    }
                    body.extend_from_slice(name.as_bytes());
                    io.write_all(&[b"DENT".as_slice(), &body].concat())?;
                }
                io.write_all(&packet(b"DONE", 0, &[0u8; 12]))?;
                io.flush()?;
            }
            b"RECV" => {
                let Some(path) = path_arg(io, len)? else {
                    return Ok(());
                };
                let data = match device.read_file_checked(&path) {
                    Ok(d) => d,
                    Err(e) => {
                        fail(io, &e.to_string())?;
                        continue;
                    }
                };
                for chunk in data.chunks(SYNC_DATA_MAX) {
                    io.write_all(&packet(b"DATA", chunk.len() as u32, chunk))?;
                }
                io.write_all(&packet(b"DONE", 0, &[]))?;
                io.flush()?;
            }
            b"SEND" => {
                let Some(spec) = path_arg(io, len)? else {
                    return Ok(());
                };
                // "path,mode": the mode is octal-free decimal, as adb sends it.
                let (path, mode) = match spec.rsplit_once(',') {
                    Some((p, m)) => (p.to_owned(), m.parse().unwrap_or(0o644)),
                    None => (spec.clone(), 0o644),
                };
                receive_file(device, io, &path, mode)?;
            }
            _ => {
                fail(io, "unknown sync request")?;
                return Ok(());
            }
        }
    }
    Ok(())
}

/// The DATA chunks of a SEND, then DONE with the mtime; answers OKAY or FAIL. The file is
/// written as a whole at DONE, so a push that breaks off leaves no half file.
fn receive_file(
    device: &Arc<Device>,
    io: &mut (impl Read + Write),
    path: &str,
    mode: u32,
) -> io::Result<()> {
    let mut data = Vec::new();
    loop {
        let Some((id, len)) = header(io)? else {
            return Ok(());
        };
        match &id {
            b"DATA" => {
                if len as usize > SYNC_DATA_MAX {
                    return fail(io, "DATA chunk too large");
                }
                if data.len() + len as usize > CAPACITY {
                    return fail(io, &FsError::Full.to_string());
                }
                let start = data.len();
                data.resize(start + len as usize, 0);
                io.read_exact(&mut data[start..])?;
            }
            b"DONE" => {
                let written = device.with_files(|f| f.write(path, &data, false, mode, len));
                return match written {
                    Ok(()) => {
                        io.write_all(&packet(b"OKAY", 0, &[]))?;
                        io.flush()
                    }
                    Err(e) => fail(io, &format!("couldn't create file: {e}")),
                };
            }
            _ => return fail(io, "expected DATA or DONE"),
        }
    }
}
