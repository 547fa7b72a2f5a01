//! Looking at the phone: a screenshot read as a board, once (`look`) or until a board shows
//! (`watch`). The screenshot and the reading are kept together, so that a caller who cannot
//! trust the reading can save what the phone showed and tell the user what was read.

use std::time::Duration;

use image::RgbaImage;
use tokio::time::Instant;

use crate::phone::{Lock, Phone, PhoneError, Roused};
use crate::vision::glyph::Classifier;
use crate::vision::grid::Grid;
use crate::vision::read::{self, NotABoard, Reading};

use super::watcher::{Do, Patience, Saw, Watcher};

/// One screenshot and what was read on it.
pub struct Look {
    /// When the look began (before its screenshot was asked for).
    pub began: Instant,
    pub image: RgbaImage,
    pub reading: Result<Reading, NotABoard>,
    /// How long the screenshot took to arrive.
    pub capture: Duration,
    /// How long reading it took (zero when the picture was the last look's).
    pub read: Duration,
    /// A hash of the picture's pixels: equal pictures have equal fingerprints.
    pub fingerprint: u64,
}

impl Look {
    /// "screenshot 80 ms, read 20 ms".
    pub fn timing(&self) -> String {
        format!(
            "screenshot {:.0} ms, read {:.0} ms",
            self.capture.as_secs_f64() * 1e3,
            self.read.as_secs_f64() * 1e3
        )
    }

    /// The reading, when it is a board read surely and in play (not dimmed).
    pub fn sure(&self) -> Option<&Reading> {
        self.reading.as_ref().ok().filter(|r| r.playable())
    }
}

/// A fast hash of a picture's bytes (words multiplied and rotated, in four lanes that the
/// processor keeps going at once, then folded together): a still screen is told from a
/// changed one in well under a millisecond, where reading it takes tens.
pub fn fingerprint(image: &RgbaImage) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let step = |h: u64, v: u64| (h ^ v).wrapping_mul(K).rotate_left(29);
    let bytes = image.as_raw();
    let mut blocks = bytes.chunks_exact(32);
    let shape = u64::from(image.width()) << 32 | u64::from(image.height());
    let mut lanes = [shape, shape ^ 1, shape ^ 2, shape ^ 3].map(|l| l.wrapping_mul(K));
    for block in &mut blocks {
        for (lane, w) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = step(*lane, u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
    }
    let mut h = lanes.into_iter().fold(0, step);
    for &b in blocks.remainder() {
        h = step(h, u64::from(b));
    }
    h
}

/// Takes a screenshot and reads it in `grid` (a profile's grid, scaled to the phone).
pub async fn look(phone: &Phone, grid: &Grid, classifier: &Classifier) -> Result<Look, PhoneError> {
    look_again(phone, grid, classifier, None).await
}

/// `look`, reusing `previous`'s reading when the screen has not changed since (a screen that
/// stands still, a lobby or a results page, is read once however often it is looked at).
pub async fn look_again(
    phone: &Phone,
    grid: &Grid,
    classifier: &Classifier,
    previous: Option<&Look>,
) -> Result<Look, PhoneError> {
    let started = Instant::now();
    let image = phone.screenshot().await?;
    let capture = started.elapsed();
    let (grid, classifier) = (grid.clone(), classifier.clone());
    let known = previous.map(|p| (p.fingerprint, p.reading.clone()));
    // Reading is tens of milliseconds of arithmetic: off the runtime's threads.
    let (image, reading, read, fingerprint) = tokio::task::spawn_blocking(move || {
        let started = std::time::Instant::now();
        let print = fingerprint(&image);
        let reading = match known {
            Some((p, reading)) if p == print => reading,
            _ => read::read(&image, Some(&grid), &classifier),
        };
        (image, reading, started.elapsed(), print)
    })
    .await
    .map_err(|e| PhoneError::Unexpected {
        asked: "reading the screenshot".into(),
        answer: e.to_string(),
    })?;
    Ok(Look {
        began: started,
        image,
        reading,
        capture,
        read,
        fingerprint,
    })
}

/// Tiles that must read surely as the round's board's for it to still show: a stroke's
/// highlight or a "+12" drawn over a few tiles may leave them unsure, but a results screen or
/// a dialog where the grid was reads as no board, or as letters that are not these.
pub const STILL_SHOWS_SURE: usize = 8;

/// Whether the round's `board` still shows on a look that read `reading` in the profile's
/// grid: a grid of tiles, not dimmed, no tile read surely as another letter, and at least
/// `STILL_SHOWS_SURE` read surely as the board's.
pub fn board_shows(reading: &Result<Reading, NotABoard>, board: &crate::board::Board) -> bool {
    let Ok(r) = reading else {
        return false;
    };
    let agree = r
        .tiles
        .iter()
        .zip(board.tiles())
        .filter(|(t, want)| t.sure() && t.tile == **want)
        .count();
    r.overlay().is_none() && r.disagreements(board).is_empty() && agree >= STILL_SHOWS_SURE
}

/// How `watch` waits.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    /// Time between two screenshots (from the start of one to the start of the next).
    pub every: Duration,
    /// How long a board may stay unsure before `watch` gives up on it (a board drawn in
    /// a font the reader cannot read will not become readable by waiting; one mid-animation
    /// will).
    pub patience: Duration,
}

impl Default for Watch {
    fn default() -> Watch {
        Watch {
            every: Duration::from_millis(250),
            patience: Duration::from_secs(2),
        }
    }
}

/// Looks every `w.every` until a board is read surely, and returns that look; or returns the
/// last look once a board has been on screen, unsure, for `w.patience`. Screens that are not
/// boards (a menu, a results screen, a board dimmed under an overlay) are waited out for as
/// long as it takes: the caller stops the wait by dropping the future. `seen` is called with
/// every look. What each look means is the watcher's call (`play::watcher`); nothing is
/// tapped but the sentry's waking and unlocking.
pub async fn watch(
    phone: &Phone,
    grid: &Grid,
    classifier: &Classifier,
    w: Watch,
    mut seen: impl FnMut(&Look),
) -> Result<Watched, PhoneError> {
    let mut watcher = Watcher::new(Patience {
        unsure: w.patience,
        advance: None,
        ..Patience::default()
    });
    let mut sentry = Sentry::default();
    loop {
        let started = Instant::now();
        let l = look(phone, grid, classifier).await?;
        seen(&l);
        let (saw, sight) = saw(&mut sentry, phone, &l).await?;
        if let Some(sight) = sight {
            for line in sight.roused.lines() {
                tracing::info!("{line}");
            }
            if sight.newly_locked {
                tracing::warn!("{LOCKED}");
            }
        }
        let mut at_once = false;
        for answer in watcher.saw(started, &saw) {
            match answer {
                Do::Play { after, behind, .. } => {
                    return Ok(Watched {
                        look: l,
                        after,
                        behind,
                    });
                }
                Do::GiveUp => {
                    return Ok(Watched {
                        look: l,
                        after: None,
                        behind: false,
                    });
                }
                Do::LookNow => at_once = true,
                Do::Advance | Do::SayDimmed(_) | Do::Skipped | Do::ReadNow | Do::SameRound => {}
            }
        }
        if !at_once {
            tokio::time::sleep_until(started + w.every).await;
        }
    }
}

/// What a look saw, as the watcher takes it. A look without a board is first shown to the
/// sentry, which may turn the screen on or dismiss a lock (what it did comes back with it).
pub async fn saw(
    sentry: &mut Sentry,
    phone: &Phone,
    l: &Look,
) -> Result<(Saw, Option<Sighting>), PhoneError> {
    if let Ok(r) = &l.reading {
        return Ok((Saw::reading(r), None));
    }
    let sight = sentry.look_after(phone, l).await?;
    let roused = sight.roused.changed();
    let saw = if roused || sight.hidden {
        Saw::Hidden { roused }
    } else {
        Saw::NoBoard
    };
    Ok((saw, Some(sight)))
}

/// What `watch` returns: the look, and for a board read surely, when it came up: after
/// `after`, the start of the last look that showed the game without it (`None`: the first
/// look at the game showed it); `behind`: out of sight, the screen dark or locked since.
pub struct Watched {
    pub look: Look,
    pub after: Option<Instant>,
    pub behind: bool,
}

/// What is said of a lock screen that stays.
pub const LOCKED: &str = "the phone's lock screen covers the game and cannot be dismissed from \
     here (a PIN, pattern or password): unlock it, or set Settings > Security > Screen lock to \
     None for unattended play";

/// A lock screen that could not be dismissed is tried again after this long (its owner may
/// have changed it to one without a secret; a PIN's entry pad, which each try brings up,
/// keeps the screen on, so not often).
const UNLOCK_AGAIN: Duration = Duration::from_secs(300);

/// How often, while no board shows, the sentry asks whether the screen has gone off (its
/// timeout passes between rounds, when nothing touches it) or a lock screen covers the game:
/// at most once a second while the screen is black, every 10 s otherwise (each question is a
/// whole shell command).
const CHECK_BLACK: Duration = Duration::from_secs(1);
const CHECK: Duration = Duration::from_secs(10);

/// Keeps the game in sight while no board shows, for the daemon's worker and `watch`: asks
/// whether the screen has gone off or a lock screen covers the game, turns it on and
/// dismisses a lock without a secret (`Phone::rouse`), and keeps a lock that stays from being
/// tried again before `UNLOCK_AGAIN` or said twice.
#[derive(Debug, Default)]
pub struct Sentry {
    /// When the phone was last asked.
    checked: Option<Instant>,
    /// When a lock screen that stays was last tried; `None` while none shows.
    tried: Option<Instant>,
}

/// What `Sentry::look_after` found.
#[derive(Debug, Default)]
pub struct Sighting {
    /// What was done (nothing when it was not time to ask).
    pub roused: Roused,
    /// A lock screen that stays showed, and had not before: to be said once.
    pub newly_locked: bool,
    /// The look showed no game: the screen was black, or a lock screen covered it. The game
    /// goes on behind, and a round may start there unseen.
    pub hidden: bool,
}

impl Sentry {
    /// After `l`, a look that showed no board: asks the phone if it is time to, and acts.
    pub async fn look_after(&mut self, phone: &Phone, l: &Look) -> Result<Sighting, PhoneError> {
        let black = black(&l.image);
        let every = if black { CHECK_BLACK } else { CHECK };
        let mut sight = Sighting::default();
        if self.checked.is_none_or(|t| t.elapsed() >= every) {
            self.checked = Some(Instant::now());
            let unlock = self.tried.is_none_or(|t| t.elapsed() >= UNLOCK_AGAIN);
            sight.roused = phone.rouse(unlock).await?;
            if sight.roused.lock == Lock::Stays {
                sight.newly_locked = self.tried.is_none();
                if unlock || sight.newly_locked {
                    self.tried = Some(Instant::now());
                }
            } else {
                self.tried = None;
            }
        }
        sight.hidden = black || sight.roused.lock != Lock::None || self.locked();
        Ok(sight)
    }

    /// Whether a lock screen that stays showed when the phone was last asked.
    pub fn locked(&self) -> bool {
        self.tried.is_some()
    }
}

/// Whether a screenshot is black, as a screen that is off gives it (every sample of a coarse
/// grid darker than 8 of 255).
pub fn black(img: &image::RgbaImage) -> bool {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return false;
    }
    (0..24u32).all(|i| {
        (0..24u32).all(|j| {
            let p = img.get_pixel(i * (w - 1) / 23, j * (h - 1) / 23);
            p[0] < 8 && p[1] < 8 && p[2] < 8
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_tells_pictures_apart_by_one_pixel() {
        let a = RgbaImage::from_pixel(800, 1280, image::Rgba([20, 40, 60, 255]));
        let mut b = a.clone();
        assert_eq!(fingerprint(&a), fingerprint(&b));
        b.put_pixel(799, 1279, image::Rgba([20, 40, 61, 255]));
        assert_ne!(fingerprint(&a), fingerprint(&b));
        // The same bytes in another shape are another picture.
        let c = RgbaImage::from_pixel(1280, 800, image::Rgba([20, 40, 60, 255]));
        assert_ne!(fingerprint(&a), fingerprint(&c));
    }

    /// The virtual phone's nexus7 screen of `view`, read as a round's look reads it with the
    /// shipped profile: whether the board A to P still shows.
    fn shows(view: &crate::sim::game::View) -> bool {
        use crate::sim::{Model, layout::Layout, screen::render};
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let profile = crate::profile::Profile::find("nexus7", manifest, None).unwrap();
        let classifier = super::super::classifier_for(Some(&profile)).unwrap();
        let img = render(&Layout::of(Model::Nexus7), view, None);
        let reading = crate::vision::read::read(&img, Some(&profile.grid()), &classifier);
        let board = crate::board::Board::parse("abcd/efgh/ijkl/mnop").unwrap();
        board_shows(&reading, &board)
    }

    #[test]
    fn the_board_still_shows_under_a_long_strokes_highlight_not_on_other_screens() {
        use crate::sim::game::{Screen, View};
        let round = View::round_at(60, 120);
        assert!(shows(&round));
        // Twelve tiles highlighted by the stroke in progress, the word before flashed.
        let stroke = View {
            selected: vec![0, 1, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11],
            last_word: Some(("abcdhgfe".into(), true)),
            ..round.clone()
        };
        assert!(shows(&stroke));
        // The results screen, a system dialog, a dimming overlay, the screen off: gone.
        let results = View {
            screen: Screen::Results,
            ..round.clone()
        };
        assert!(!shows(&results));
        assert!(!shows(&View {
            dialog: true,
            ..round.clone()
        }));
        assert!(!shows(&View {
            dimmed: true,
            ..round.clone()
        }));
        assert!(!shows(&View {
            off: true,
            ..round.clone()
        }));
        // Another round's board, in the same grid: not this round's.
        let other = View {
            tiles: (0..16).rev().collect(),
            ..round
        };
        assert!(!shows(&other));
    }
}
