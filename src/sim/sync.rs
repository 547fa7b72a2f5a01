//! The phone's files and the `sync:` service that moves them (`adb push`, `adb pull`,
//! `adb shell ls`-free listing): version 1 requests of 4-byte id and u32 length (STAT, LIST,
//! SEND, RECV, QUIT), DATA chunks of at most 64 KiB, DONE, OKAY and FAIL answers. Files live
//! in memory, writable under /sdcard and /data/local/tmp only, with a cap on their total size.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read, Write};
use std::sync::Arc;

use super::adbd::StreamIo;
use super::{Device, Model};

/// Largest DATA chunk of the sync protocol.
pub const SYNC_DATA_MAX: usize = 64 * 1024;
/// Longest path a sync request may name.
const MAX_PATH: usize = 1024;
/// All files together may hold this much.
const CAPACITY: usize = 256 * 1024 * 1024;

const S_IFREG: u32 = 0o100000;
const S_IFDIR: u32 = 0o040000;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FsError {
    #[error("Read-only file system")]
    ReadOnly,
    #[error("No such file or directory")]
    NotFound,
    #[error("Is a directory")]
    IsDirectory,
    #[error("No space left on device")]
    Full,
    #[error("Permission denied")]
    Denied,
}

#[derive(Clone, Debug)]
struct File {
    mode: u32,
    mtime: u32,
    data: Vec<u8>,
}

/// The phone's files.
pub struct Files {
    files: BTreeMap<String, File>,
    dirs: BTreeSet<String>,
    used: usize,
}

/// Places a shell user may write.
const WRITABLE: [&str; 2] = ["/sdcard", "/data/local/tmp"];

fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

impl Files {
    pub fn new(_model: Model) -> Files {
        let dirs = [
            "/",
            "/data",
            "/data/local",
            "/data/local/tmp",
            "/dev",
            "/dev/input",
            "/sdcard",
            "/system",
            "/system/bin",
        ];
        Files {
            files: BTreeMap::new(),
            dirs: dirs.iter().map(|d| d.to_string()).collect(),
            used: 0,
        }
    }

    /// (mode, size, mtime) of a file or directory.
    pub fn stat(&self, path: &str) -> Option<(u32, u32, u32)> {
        let path = normalise(path);
        if let Some(f) = self.files.get(&path) {
            return Some((f.mode, f.data.len() as u32, f.mtime));
        }
        self.dirs
            .contains(&path)
            .then_some((S_IFDIR | 0o771, 4096, 0))
    }

    pub fn read(&self, path: &str) -> Result<&[u8], FsError> {
        let path = normalise(path);
        match self.files.get(&path) {
            Some(f) => Ok(&f.data),
            None if self.dirs.contains(&path) => Err(FsError::IsDirectory),
            None => Err(FsError::NotFound),
        }
    }

    /// Writes (or appends to) a regular file.
    pub fn write(
        &mut self,
        path: &str,
        data: &[u8],
        append: bool,
        mode: u32,
        mtime: u32,
    ) -> Result<(), FsError> {
        let path = normalise(path);
        if self.dirs.contains(&path) {
            return Err(FsError::IsDirectory);
        }
        let (parent, _) = path.rsplit_once('/').unwrap_or(("/", ""));
        let parent = if parent.is_empty() { "/" } else { parent };
        if !WRITABLE.iter().any(|w| path.starts_with(&format!("{w}/"))) {
            return Err(if self.dirs.contains(parent) {
                FsError::ReadOnly
            } else {
                FsError::NotFound
            });
        }
        if !self.dirs.contains(parent) {
            return Err(FsError::NotFound);
        }
        let old = self.files.get(&path).map_or(0, |f| f.data.len());
        let new_len = if append { old + data.len() } else { data.len() };
        if self.used - old + new_len > CAPACITY {
            return Err(FsError::Full);
        }
        self.used = self.used - old + new_len;
        let file = self.files.entry(path).or_insert(File {
            mode: S_IFREG | 0o644,
            mtime,
            data: Vec::new(),
        });
        if !append {
            file.data.clear();
            file.mode = S_IFREG | (mode & 0o7777);
        }
        file.mtime = mtime;
        file.data.extend_from_slice(data);
        Ok(())
    }

    /// Entries of a directory: (name, mode, size, mtime).
    fn list(&self, dir: &str) -> Vec<(String, u32, u32, u32)> {
        let dir = normalise(dir);
        let prefix = if dir == "/" {
            "/".to_owned()
        } else {
            format!("{dir}/")
        };
        let direct = |p: &str| {
            p.strip_prefix(&prefix)
                .filter(|rest| !rest.is_empty() && !rest.contains('/'))
                .map(str::to_owned)
        };
        let mut out: Vec<_> = self
            .dirs
            .iter()
            .filter_map(|d| direct(d).map(|n| (n, S_IFDIR | 0o771, 4096, 0)))
            .collect();
        out.extend(
            self.files
                .iter()
                .filter_map(|(p, f)| direct(p).map(|n| (n, f.mode, f.data.len() as u32, f.mtime))),
        );
        out
    }
}

fn packet(id: &[u8; 4], len: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + body.len());
    out.extend_from_slice(id);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(body);
    out
}

fn fail(io: &mut StreamIo, why: &str) -> io::Result<()> {
    io.write_all(&packet(b"FAIL", why.len() as u32, why.as_bytes()))?;
    io.flush()
}

/// Reads one request header: id and length.
fn header(io: &mut StreamIo) -> io::Result<Option<([u8; 4], u32)>> {
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

fn path_arg(io: &mut StreamIo, len: u32) -> io::Result<Option<String>> {
    if len as usize > MAX_PATH {
        fail(io, "path too long")?;
        return Ok(None);
    }
    let mut p = vec![0u8; len as usize];
    io.read_exact(&mut p)?;
    Ok(Some(String::from_utf8_lossy(&p).into_owned()))
}

/// Serves one `sync:` stream until QUIT, a protocol error, or the host closing it.
pub fn serve(device: &Arc<Device>, mut io: StreamIo) {
    if let Err(e) = serve_requests(device, &mut io) {
        tracing::debug!("sync stream ended: {e}");
    }
}

fn serve_requests(device: &Arc<Device>, io: &mut StreamIo) -> io::Result<()> {
    let files = || device.files.lock().unwrap_or_else(|e| e.into_inner());
    while let Some((id, len)) = header(io)? {
        match &id {
            b"QUIT" => return Ok(()),
            b"STAT" => {
                let Some(path) = path_arg(io, len)? else {
                    return Ok(());
                };
                let (mode, size, mtime) = files().stat(&path).unwrap_or((0, 0, 0));
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
                for (name, mode, size, mtime) in files().list(&path) {
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
fn receive_file(device: &Arc<Device>, io: &mut StreamIo, path: &str, mode: u32) -> io::Result<()> {
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
                let written = device
                    .files
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .write(path, &data, false, mode, len);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_writable_only_where_android_lets_the_shell_write() {
        let mut f = Files::new(Model::Pixel);
        // (path, result)
        let cases = [
            ("/sdcard/board.txt", Ok(())),
            ("/data/local/tmp/x", Ok(())),
            ("/data/local/tmp/../tmp/y", Ok(())),
            ("/system/bin/evil", Err(FsError::ReadOnly)),
            ("/sdcard/no/such/dir/x", Err(FsError::NotFound)),
            ("/sdcard", Err(FsError::IsDirectory)),
        ];
        for (path, result) in cases {
            assert_eq!(f.write(path, b"hi", false, 0o644, 7), result, "{path}");
        }
        assert_eq!(f.read("/data/local/tmp/y"), Ok(&b"hi"[..]));
        f.write("/sdcard/board.txt", b"!", true, 0, 8).unwrap();
        assert_eq!(f.read("/sdcard/board.txt"), Ok(&b"hi!"[..]));
        assert_eq!(f.stat("/sdcard/board.txt"), Some((S_IFREG | 0o644, 3, 8)));
        assert_eq!(f.stat("/nope"), None);
        let names: Vec<String> = f.list("/data/local/tmp").into_iter().map(|e| e.0).collect();
        assert_eq!(names, ["x", "y"]);
    }
}
