//! What the bot keeps between rounds under the user's state directory
//! (`$XDG_STATE_HOME/scramblebot`, or `~/.local/state/scramblebot`), beside the histories:
//! the words each game refused (`refused/PACKAGE.txt`, one word a line), so that they are not
//! entered again on that game, and the pace each profile's game was last played at
//! (`pace/PROFILE.txt`, milliseconds between words), so that the next round starts at it.
//! Files are read with a bound (`files`) and rewritten whole through a temporary file and a rename: a
//! crash or a full disk leaves the old file, never half of a new one. An edit (read, change,
//! rename) holds a lock on `FILE.lock` beside the file throughout (fd-lock: flock), so that
//! two commands editing the refused words at once lose neither's change.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Why a state file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("cannot read {}: {cause}", path.display())]
    Read {
        path: PathBuf,
        cause: std::io::Error,
    },
    #[error("cannot write {}: {cause}", path.display())]
    Write {
        path: PathBuf,
        cause: std::io::Error,
    },
}

/// The user's state directory for the bot: `$XDG_STATE_HOME/scramblebot`, or
/// `~/.local/state/scramblebot`.
pub fn default_dir(xdg_state_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let base = xdg_state_home
        .filter(|p| p.is_absolute())
        .map(Path::to_path_buf)
        .or_else(|| home.map(|h| h.join(".local/state")))?;
    Some(base.join("scramblebot"))
}

/// The state directory by this process's environment.
pub fn dir_from_env() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_STATE_HOME").map(PathBuf::from);
    let home = std::env::var_os("HOME").map(PathBuf::from);
    default_dir(xdg.as_deref(), home.as_deref())
}

/// Reads a state file with the bound of its kind.
fn read(path: &Path, kind: crate::files::Kind) -> Result<Vec<u8>, StateError> {
    crate::files::read(path, kind).map_err(|cause| StateError::Read {
        path: path.to_owned(),
        cause,
    })
}

/// Writes `bytes` as the whole of `path` (its directory made if missing): to a temporary
/// file beside it, then renamed over it, so the file is the old one or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StateError> {
    write_whole(path, bytes).map_err(|cause| StateError::Write {
        path: path.to_owned(),
        cause,
    })
}

/// `write_atomic`, its error the I/O one.
pub fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::files::replace(path, bytes, crate::files::Sync::Durable)
}

/// The lock beside `path` (`PATH.lock`, made with its directory if missing) that an edit of
/// it holds from its read to its rename: the file itself is replaced by each edit, so a lock
/// on it would be on the old one.
fn lock_file(path: &Path) -> Result<fd_lock::RwLock<std::fs::File>, StateError> {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock = PathBuf::from(name);
    let failed = |cause| StateError::Write {
        path: lock.clone(),
        cause,
    };
    if let Some(dir) = lock.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock)
        .map_err(failed)?;
    Ok(fd_lock::RwLock::new(file))
}

/// What to say of a phone another process holds (`PhoneLock::hold`).
pub fn held_by(holder: Option<u32>) -> String {
    match holder {
        Some(pid) => format!("another scramblebot (process {pid}) is playing this phone"),
        None => "another scramblebot is playing this phone".into(),
    }
}

/// A phone's lock (`State::phone_lock`).
pub struct PhoneLock {
    lock: fd_lock::RwLock<std::fs::File>,
    path: PathBuf,
}

impl PhoneLock {
    /// Holds the phone for this process until the value is dropped; `Err` with the holder's
    /// process id (when it wrote one) while another process holds it.
    pub fn hold(mut self) -> Result<HeldPhone, Option<u32>> {
        match self.lock.try_write() {
            Ok(mut guard) => {
                use std::io::{Seek, Write};
                let _ = guard.set_len(0);
                let _ = guard.rewind();
                let _ = write!(guard, "{}", std::process::id());
                // Held until the file is closed (flock's lock goes with its descriptor), not
                // until the guard's end: the held phone is one value.
                std::mem::forget(guard);
            }
            Err(_) => {
                return Err(std::fs::read_to_string(&self.path)
                    .ok()
                    .and_then(|t| t.trim().parse().ok()));
            }
        }
        Ok(HeldPhone { _lock: self.lock })
    }
}

/// A phone this process holds (`PhoneLock::hold`), until dropped.
pub struct HeldPhone {
    _lock: fd_lock::RwLock<std::fs::File>,
}

/// Holds `serial` for this process in `state`, when there is one that can hold the lock (a
/// state directory that cannot does not stop a round: it is said, and the phone played
/// unlocked). `Err` naming the holder while another process holds it; this process's own
/// earlier hold (a daemon's worker winding down) is not another's.
pub fn hold_phone(state: Option<&State>, serial: &str) -> Result<Option<HeldPhone>, String> {
    let lock = match state.map(|s| s.phone_lock(serial)) {
        None => return Ok(None),
        Some(Err(e)) => {
            tracing::warn!("{e}: {serial} is not locked for this process");
            return Ok(None);
        }
        Some(Ok(lock)) => lock,
    };
    match lock.hold() {
        Ok(held) => Ok(Some(held)),
        Err(Some(pid)) if pid == std::process::id() => Ok(None),
        Err(holder) => Err(held_by(holder)),
    }
}

/// The bot's state directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    dir: PathBuf,
}

impl State {
    pub fn at(dir: impl Into<PathBuf>) -> State {
        State { dir: dir.into() }
    }

    /// The state directory by the environment, when there is a home to put it in.
    pub fn from_env() -> Option<State> {
        dir_from_env().map(State::at)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the words `game` (an Android package) refused.
    pub fn refused_path(&self, game: &str) -> PathBuf {
        self.dir
            .join("refused")
            .join(format!("{}.txt", file_stem(game)))
    }

    /// The words `game` refused, as written by `add_refused` (none when it never refused
    /// one). A line that is not a word of letters is skipped.
    pub fn refused(&self, game: &str) -> Result<BTreeSet<String>, StateError> {
        let path = self.refused_path(game);
        let bytes = match read(&path, crate::files::Kind::WordList) {
            Err(StateError::Read { cause, .. }) if cause.kind() == std::io::ErrorKind::NotFound => {
                return Ok(BTreeSet::new());
            }
            r => r?,
        };
        Ok(bytes
            .split(|&b| b == b'\n')
            .filter_map(|line| std::str::from_utf8(line).ok())
            .map(|w| w.trim().to_ascii_lowercase())
            .filter(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
            .collect())
    }

    /// Adds `words` to those `game` refused. Returns how many were new.
    pub fn add_refused<'a>(
        &self,
        game: &str,
        words: impl IntoIterator<Item = &'a str>,
    ) -> Result<usize, StateError> {
        self.edit_refused(game, |all| {
            all.extend(words.into_iter().map(str::to_ascii_lowercase))
        })
    }

    /// Takes `words` off those `game` refused (a person who knows the game takes them).
    /// Returns how many were there.
    pub fn forget_refused<'a>(
        &self,
        game: &str,
        words: impl IntoIterator<Item = &'a str>,
    ) -> Result<usize, StateError> {
        self.edit_refused(game, |all| {
            for w in words {
                all.remove(&w.to_ascii_lowercase());
            }
        })
    }

    /// Changes the words `game` refused by `edit`, rewriting the file when they changed.
    /// Returns how many words were added or taken off.
    fn edit_refused(
        &self,
        game: &str,
        edit: impl FnOnce(&mut BTreeSet<String>),
    ) -> Result<usize, StateError> {
        let path = self.refused_path(game);
        let mut lock = lock_file(&path)?;
        // Held from the read to the rename: another command's edit waits for this one's.
        let _held = lock.write().map_err(|cause| StateError::Write {
            path: path.clone(),
            cause,
        })?;
        let mut all = self.refused(game)?;
        let before = all.len();
        edit(&mut all);
        let changed = all.len().abs_diff(before);
        if changed > 0 {
            self.write_refused(game, &all)?;
        }
        Ok(changed)
    }

    fn write_refused(&self, game: &str, words: &BTreeSet<String>) -> Result<(), StateError> {
        let text: String = words.iter().map(|w| format!("{w}\n")).collect();
        write_atomic(&self.refused_path(game), text.as_bytes())
    }

    /// The lock a process holds on the phone `serial` while it plays it
    /// (`phones/SERIAL.lock`, holding the holder's process id): one process per phone.
    pub fn phone_lock(&self, serial: &str) -> Result<PhoneLock, StateError> {
        let path = self
            .dir
            .join("phones")
            .join(file_stem(&serial.replace([':', '.', '[', ']'], "_")));
        let mut held = path.as_os_str().to_owned();
        held.push(".lock");
        Ok(PhoneLock {
            lock: lock_file(&path)?,
            path: held.into(),
        })
    }

    /// The games with a file of refused words, by package.
    pub fn games(&self) -> Result<Vec<String>, StateError> {
        let dir = self.dir.join("refused");
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(cause) => return Err(StateError::Read { path: dir, cause }),
        };
        let mut games: Vec<String> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_owned();
                let game = name.strip_suffix(".txt")?;
                crate::profile::game_package(game).then(|| game.to_owned())
            })
            .collect();
        games.sort();
        Ok(games)
    }

    /// The file of the pace `profile`'s game was last played at.
    pub fn pace_path(&self, profile: &str) -> PathBuf {
        self.dir
            .join("pace")
            .join(format!("{}.txt", file_stem(profile)))
    }

    /// The pause between words `profile`'s game was last played at, when one was kept (a
    /// file that does not hold one is as none).
    pub fn pace(&self, profile: &str) -> Option<Duration> {
        let bytes = read(&self.pace_path(profile), crate::files::Kind::Config).ok()?;
        let ms: f64 = std::str::from_utf8(&bytes).ok()?.trim().parse().ok()?;
        (ms.is_finite() && (0.0..=10_000.0).contains(&ms))
            .then(|| Duration::from_secs_f64(ms / 1e3))
    }

    /// Keeps `gap` as the pace `profile`'s game was played at.
    pub fn set_pace(&self, profile: &str, gap: Duration) -> Result<(), StateError> {
        let text = format!("{:.0}\n", gap.as_secs_f64() * 1e3);
        write_atomic(&self.pace_path(profile), text.as_bytes())
    }
}

/// A name as a file's stem: letters, digits, '.', '-' and '_' kept, others as '_', never
/// starting with a dot.
fn file_stem(name: &str) -> String {
    let stem = crate::files::safe_name(name);
    match stem.strip_prefix('.') {
        Some(rest) => format!("_{rest}"),
        None if stem.is_empty() => "_".into(),
        None => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> State {
        let dir =
            std::env::temp_dir().join(format!("scramblebot-state-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        State::at(dir)
    }

    #[test]
    fn edits_at_once_lose_none_of_their_changes() {
        // 20 commands at once each take one word off a list of 200 (as `words --refused
        // --forget W` run in parallel, or play and the daemon keeping what a round
        // learned): without the lock, 195-198 words were left where 180 are.
        let state = temp("at-once");
        let game = "com.zynga.scramble";
        let words: Vec<String> = (0..200u32)
            .map(|i| {
                let (a, b, c) = (i % 26, i / 26 % 26, i / 676);
                [a, b, c]
                    .iter()
                    .map(|&k| char::from(b'a' + k as u8))
                    .collect()
            })
            .collect();
        state
            .add_refused(game, words.iter().map(String::as_str))
            .unwrap();
        std::thread::scope(|s| {
            for w in &words[..20] {
                let state = state.clone();
                s.spawn(move || state.forget_refused(game, [w.as_str()]).unwrap());
            }
        });
        assert_eq!(state.refused(game).unwrap().len(), 180);
        // The lock beside the list is no game's list.
        assert_eq!(state.games().unwrap(), vec![game.to_owned()]);
        let _ = std::fs::remove_dir_all(state.dir());
    }

    #[test]
    fn refused_words_are_kept_per_game_and_forgotten_on_request() {
        let s = temp("refused");
        assert!(s.refused("com.zynga.scramble").unwrap().is_empty());
        assert_eq!(
            s.add_refused("com.zynga.scramble", ["qi", "ZA", "qi"])
                .unwrap(),
            2
        );
        assert_eq!(s.add_refused("com.zynga.scramble", ["za"]).unwrap(), 0);
        assert_eq!(s.add_refused("org.other", ["ew"]).unwrap(), 1);
        let words: Vec<String> = s
            .refused("com.zynga.scramble")
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(words, ["qi", "za"]);
        assert_eq!(s.games().unwrap(), ["com.zynga.scramble", "org.other"]);
        assert_eq!(
            s.forget_refused("com.zynga.scramble", ["qi", "xu"])
                .unwrap(),
            1
        );
        let words: Vec<String> = s
            .refused("com.zynga.scramble")
            .unwrap()
            .into_iter()
            .collect();
        assert_eq!(words, ["za"]);
        // No temporary file is left beside it (each list has its lock beside it).
        let names: Vec<String> = std::fs::read_dir(s.dir().join("refused"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".txt.lock"))
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        std::fs::remove_dir_all(s.dir()).unwrap();
    }

    #[test]
    fn a_refused_file_with_bad_lines_keeps_its_words_and_an_endless_one_is_refused() {
        let s = temp("bad");
        let path = s.refused_path("g");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"qi\n\xff\xfe\nnot a word\n  za  \n").unwrap();
        let words: Vec<String> = s.refused("g").unwrap().into_iter().collect();
        assert_eq!(words, ["qi", "za"]);
        std::fs::remove_dir_all(s.dir()).unwrap();
    }

    #[test]
    fn the_pace_is_kept_per_profile() {
        let s = temp("pace");
        assert_eq!(s.pace("nexus7"), None);
        s.set_pace("nexus7", Duration::from_millis(120)).unwrap();
        assert_eq!(s.pace("nexus7"), Some(Duration::from_millis(120)));
        assert_eq!(s.pace("pixel"), None);
        std::fs::write(s.pace_path("pixel"), "fast\n").unwrap();
        assert_eq!(s.pace("pixel"), None);
        assert_eq!(file_stem("../x y"), "_._x_y");
        std::fs::remove_dir_all(s.dir()).unwrap();
    }

    #[test]
    fn the_state_directory_follows_xdg() {
        let d = default_dir(Some(Path::new("/s")), Some(Path::new("/h")));
        assert_eq!(d, Some(PathBuf::from("/s/scramblebot")));
        let d = default_dir(Some(Path::new("rel")), Some(Path::new("/h")));
        assert_eq!(d, Some(PathBuf::from("/h/.local/state/scramblebot")));
        assert_eq!(default_dir(None, None), None);
    }
}
