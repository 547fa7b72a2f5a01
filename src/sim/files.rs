//! The phone's files: in memory, writable under /sdcard and /data/local/tmp only, with a cap
//! on their total size, as `sync:`, the shell's redirections and `cat` see them. Pure state;
//! the device keeps it behind its lock.

use std::collections::{BTreeMap, BTreeSet};

/// All files together may hold this much.
pub const CAPACITY: usize = 256 * 1024 * 1024;

pub const S_IFREG: u32 = 0o100000;
pub const S_IFDIR: u32 = 0o040000;

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

impl Default for Files {
    fn default() -> Files {
        Files::new()
    }
}

impl Files {
    pub fn new() -> Files {
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
    pub fn list(&self, dir: &str) -> Vec<(String, u32, u32, u32)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_writable_only_where_android_lets_the_shell_write() {
        let mut f = Files::new();
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
