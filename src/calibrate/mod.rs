//! Calibrating a new phone from one screenshot of a round in progress: the grid and its tiles
//! (found, then read, so a menu or a dimmed board is refused), the row of lifeline buttons
//! under it (Freeze first, unless the user points at it), a checked `Profile` built from them,
//! and an overlay picture of what was found for a person to check at a glance. This file is
//! pure; `probe` asks the phone (its screenshot, its touchscreen, the input routes it takes, a
//! tap on Freeze) and `save` writes the profile with its pictures.

pub mod headers;
pub mod learn;
pub mod make;
pub mod numbers;
pub mod probe;

use std::path::{Path, PathBuf};

use image::{Rgba, RgbaImage};

use crate::board::tile_name;
use crate::profile::{Point, Profile, ProfileBuilder, ProfileError, SIDE};
use crate::vision::buttons::{self, Button};
use crate::vision::glyph::Classifier;
use crate::vision::grid::{self, Grid};
use crate::vision::read::{self, NotABoard, Reading};

/// Why a screen cannot be calibrated from.
#[derive(Debug, thiserror::Error)]
pub enum CalibrateError {
    #[error("{0}: calibrate on a screenshot of a round in progress")]
    NotABoard(#[from] NotABoard),
    #[error("Freeze at ({0}, {1}) is off the {2}x{3} screen")]
    FreezeOffScreen(f32, f32, u32, u32),
    #[error("the profile found is not valid: {0}")]
    Profile(#[from] ProfileError),
    #[error("row {0} col {1}: no glyph to learn on this tile")]
    NoGlyph(usize, usize),
    #[error("{0}: calibrate on a screenshot taken once the round is live")]
    Dimmed(read::Overlay),
}

/// What one screenshot shows.
#[derive(Clone, Debug)]
pub struct Calibration {
    pub width: u32,
    pub height: u32,
    pub reading: Reading,
    /// The lifeline buttons, Freeze first; none on a game screen without them.
    pub buttons: Vec<Button>,
    /// Freeze was given by the user, not found.
    pub freeze_given: bool,
}

/// Where Freeze comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Freeze {
    /// The first of the lifeline buttons found under the grid, if there is a row of them.
    Find,
    /// The button the user pointed at, in screen pixels.
    At(Point),
    /// None: the user says the game has no Freeze to tap (lifelines found are left out).
    Without,
}

/// Button names in the game's order, left to right.
const NAMES: [&str; 3] = ["freeze", "inspire", "scramble"];

/// Finds the grid, reads it, and finds the lifeline buttons on `img` (none when the screen
/// shows no row of them); `freeze` says where Freeze comes from.
pub fn calibrate(
    img: &RgbaImage,
    freeze: Freeze,
    classifier: &Classifier,
) -> Result<Calibration, CalibrateError> {
    let (width, height) = img.dimensions();
    // Either way round: a game of dark tiles with light letters is read on the negative, and
    // its profile says so.
    let grid = grid::find_either(img).ok_or(NotABoard::NoGrid)?;
    let reading = read::read(img, Some(&grid), classifier)?;
    if let Some(why) = reading.overlay() {
        return Err(CalibrateError::Dimmed(why));
    }
    let mut found = match freeze {
        Freeze::Without => Vec::new(),
        _ => buttons::find(img, &grid),
    };
    if let Freeze::At((x, y)) = freeze {
        if !(0.0..width as f32).contains(&x) || !(0.0..height as f32).contains(&y) {
            return Err(CalibrateError::FreezeOffScreen(x, y, width, height));
        }
        let radius = match found.first() {
            Some(b) => b.radius,
            None => 0.35 * grid.pitch.0.min(grid.pitch.1),
        };
        // The button pointed at becomes Freeze; the others keep their order.
        found.retain(|b| (b.x - x).hypot(b.y - y) > b.radius);
        found.insert(0, Button { x, y, radius });
    }
    Ok(Calibration {
        width,
        height,
        reading,
        buttons: found,
        freeze_given: matches!(freeze, Freeze::At(_)),
    })
}

/// Tenths of a pixel are plenty, and keep the file readable.
fn tenth(v: f32) -> f32 {
    (v * 10.0).round() / 10.0
}

impl Calibration {
    /// The glyphs of `img`'s 16 tiles as a template strip for `board` (the letters the user
    /// says the screen shows), and how many tiles the built-in references read otherwise.
    pub fn glyphs(
        &self,
        img: &RgbaImage,
        board: &crate::board::Board,
    ) -> Result<(image::GrayImage, usize), CalibrateError> {
        let g = &self.reading.grid;
        let seen = read::as_read(img, g);
        let inks = g
            .centres
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                read::tile_glyph(&seen, c, g.tile)
                    .ink
                    .ok_or(CalibrateError::NoGlyph(i / SIDE + 1, i % SIDE + 1))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let differ = board
            .tiles()
            .iter()
            .zip(&self.reading.tiles)
            .filter(|(b, r)| **b != r.tile)
            .count();
        Ok((crate::vision::glyph::strip(&inks), differ))
    }

    /// The profile `name` for this screen, with the default input and the game's rules,
    /// checked as any profile file is.
    pub fn profile(&self, name: &str) -> Result<Profile, ProfileError> {
        let grid: &Grid = &self.reading.grid;
        let centres: [Point; SIDE * SIDE] =
            std::array::from_fn(|i| (tenth(grid.centres[i].0), tenth(grid.centres[i].1)));
        let buttons = self
            .buttons
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let name = NAMES
                    .get(i)
                    .map_or_else(|| format!("button{}", i + 1), |n| (*n).to_owned());
                (name, (tenth(b.x), tenth(b.y)))
            })
            .collect();
        // The smallest radius found: a touch at the centre lands inside any of them (none
        // without buttons).
        let radius = self
            .buttons
            .iter()
            .map(|b| b.radius)
            .reduce(f32::min)
            .unwrap_or(0.0);
        // Through the builder, so that every check a profile file gets applies; the default
        // input (the fastest route that works) and the game's rules.
        ProfileBuilder::new(
            name,
            (self.width, self.height),
            &centres,
            tenth(grid.tile),
            buttons,
            tenth(radius),
        )
        .polarity(grid.polarity)
        .build()
    }
}

/// `img` with `profile` drawn on it: each tile's square (where the bot may touch) and centre,
/// the letter read there, and each button's circle, for a person to check at a glance.
pub fn overlay(img: &RgbaImage, profile: &Profile, reading: Option<&Reading>) -> RgbaImage {
    use imageproc::drawing::{draw_hollow_circle_mut, draw_hollow_rect_mut, draw_text_mut};
    use imageproc::rect::Rect;
    let mut out = img.clone();
    let green = Rgba([0, 200, 60, 255]);
    let red = Rgba([230, 30, 30, 255]);
    let magenta = Rgba([220, 0, 220, 255]);
    let thick = (profile.pitch() / 60.0).ceil().max(1.0) as i32;
    let half = profile.tile() / 2.0;
    let font = ab_glyph::FontRef::try_from_slice(dejavu::sans::bold()).expect("DejaVu Sans Bold");
    let scale = ab_glyph::PxScale::from(profile.tile() * 0.22);
    for (i, c) in profile.centres().iter().enumerate() {
        for t in 0..thick {
            let side = (profile.tile() as i32 - 2 * t).max(1) as u32;
            let rect =
                Rect::at((c.0 - half) as i32 + t, (c.1 - half) as i32 + t).of_size(side, side);
            draw_hollow_rect_mut(&mut out, rect, green);
        }
        mark(&mut out, *c, profile.tile() * 0.08, thick, red);
        if let Some(t) = reading.and_then(|r| r.tiles.get(i)) {
            let (x, y) = ((c.0 - half * 0.9) as i32, (c.1 + half * 0.55) as i32);
            draw_text_mut(&mut out, magenta, x, y, scale, &font, tile_name(t.tile));
        }
    }
    for (_, b) in profile.buttons() {
        for t in 0..thick {
            let r = (profile.button_radius() as i32 - t).max(1);
            draw_hollow_circle_mut(&mut out, (b.0 as i32, b.1 as i32), r, red);
        }
        mark(&mut out, *b, profile.button_radius() * 0.15, thick, red);
    }
    out
}

/// A plus sign of arm `arm` and thickness `thick` centred on `c`.
fn mark(img: &mut RgbaImage, c: Point, arm: f32, thick: i32, colour: Rgba<u8>) {
    use imageproc::drawing::draw_filled_rect_mut;
    use imageproc::rect::Rect;
    let (arm, t) = (arm.max(2.0) as i32, thick.max(1));
    let (x, y) = (c.0 as i32, c.1 as i32);
    let long = (2 * arm + 1) as u32;
    draw_filled_rect_mut(
        img,
        Rect::at(x - arm, y - t / 2).of_size(long, t as u32),
        colour,
    );
    draw_filled_rect_mut(
        img,
        Rect::at(x - t / 2, y - arm).of_size(t as u32, long),
        colour,
    );
}

/// Where `save` wrote a profile.
#[derive(Clone, Debug)]
pub struct Saved {
    pub profile: PathBuf,
    pub overlay: PathBuf,
    /// The glyph strip, when one was learned.
    pub glyphs: Option<PathBuf>,
    /// The game's digits (learned off its clock), when they were.
    pub digits: Option<PathBuf>,
    /// The directory did not exist and was made.
    pub made_dir: bool,
}

/// Why a calibration could not be saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    #[error("{} exists", .0.display())]
    Exists(PathBuf),
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// The directory's parent is missing: a mistyped path, not made silently.
    #[error("cannot make the directory {}: {} does not exist", dir.display(), parent.display())]
    NoParent { dir: PathBuf, parent: PathBuf },
    #[error("cannot write {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Image {
        path: PathBuf,
        source: image::ImageError,
    },
}

/// The files a profile named `name` is kept in under `dir`: NAME.toml, NAME.overlay.png and
/// NAME.glyphs.png.
pub fn paths(dir: &Path, name: &str) -> Saved {
    Saved {
        profile: dir.join(format!("{name}.toml")),
        overlay: dir.join(format!("{name}.overlay.png")),
        glyphs: Some(dir.join(format!("{name}.glyphs.png"))),
        digits: Some(dir.join(format!("{name}.digits.png"))),
        made_dir: false,
    }
}

/// Writes `profile` (with `header` as its opening comment), the overlay of `reading` on `img`,
/// and the glyph strip and the digits' strip if there are, into `dir` (made if missing, when
/// its parent exists). An existing profile is kept unless `replace`.
#[allow(clippy::too_many_arguments)] // each is one file's content; a struct would only rename them
pub fn save(
    dir: &Path,
    profile: &Profile,
    header: &str,
    img: &RgbaImage,
    reading: &Reading,
    strip: Option<&image::GrayImage>,
    digits: Option<&image::GrayImage>,
    replace: bool,
) -> Result<Saved, SaveError> {
    let mut saved = paths(dir, profile.name());
    if saved.profile.exists() && !replace {
        return Err(SaveError::Exists(saved.profile));
    }
    if dir.exists() && !dir.is_dir() {
        return Err(SaveError::NotADirectory(dir.to_owned()));
    }
    if !dir.exists() {
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
        if let Some(parent) = parent.filter(|p| !p.is_dir()) {
            return Err(SaveError::NoParent {
                dir: dir.to_owned(),
                parent: parent.to_owned(),
            });
        }
        std::fs::create_dir(dir).map_err(|source| SaveError::Io {
            path: dir.to_owned(),
            source,
        })?;
        saved.made_dir = true;
    }
    // Each file is written whole or not at all (a full disk leaves no empty file).
    let write = |path: &Path, bytes: &[u8]| {
        crate::state::write_whole(path, bytes).map_err(|source| SaveError::Io {
            path: path.to_owned(),
            source,
        })
    };
    let png = |path: &Path, img: image::DynamicImage| {
        let mut bytes = Vec::new();
        img.write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .map_err(|source| SaveError::Image {
            path: path.to_owned(),
            source,
        })?;
        write(path, &bytes)
    };
    png(&saved.overlay, overlay(img, profile, Some(reading)).into())?;
    match (strip, &saved.glyphs) {
        (Some(strip), Some(path)) => png(path, strip.clone().into())?,
        _ => saved.glyphs = None,
    }
    match (digits, &saved.digits) {
        (Some(strip), Some(path)) => png(path, strip.clone().into())?,
        _ => saved.digits = None,
    }
    write(&saved.profile, profile.to_toml(header).as_bytes())?;
    Ok(saved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::game::GameConfig;
    use crate::sim::{Device, Model, SimConfig};

    fn screen(model: Model) -> RgbaImage {
        let device = Device::new(SimConfig {
            model,
            game: GameConfig::default(),
            report: None,
            letters: None,
        });
        (*device.screenshot()).clone()
    }

    #[test]
    fn every_virtual_phone_calibrates_to_its_shipped_profile() {
        for model in Model::ALL {
            let img = screen(model);
            let cal = calibrate(&img, Freeze::Find, &Classifier::built_in()).expect("a round");
            let found = cal.profile("found").unwrap();
            let shipped = Profile::built_in(model.name()).unwrap();
            let near = |a: Point, b: Point, tol: f32| (a.0 - b.0).hypot(a.1 - b.1) <= tol;
            let tol = shipped.pitch() * 0.02;
            for (a, b) in found.centres().iter().zip(shipped.centres()) {
                assert!(near(*a, *b, tol), "{model:?}: centre {a:?} for {b:?}");
            }
            assert_eq!(found.buttons().len(), shipped.buttons().len(), "{model:?}");
            for ((n1, a), (n2, b)) in found.buttons().iter().zip(shipped.buttons()) {
                assert_eq!(n1, n2, "{model:?}");
                assert!(near(*a, *b, tol), "{model:?}: {n1} at {a:?} for {b:?}");
            }
            let r = found.button_radius() / shipped.button_radius();
            assert!(
                (0.8..=1.1).contains(&r),
                "{model:?}: radius {}",
                found.button_radius()
            );
            // The overlay is the screen with marks on it.
            let drawn = overlay(&img, &found, Some(&cal.reading));
            assert_eq!(drawn.dimensions(), img.dimensions());
            assert_ne!(drawn.as_raw(), img.as_raw());
        }
    }

    /// A game of dark tiles with light letters (a virtual phone's screen turned over) is
    /// calibrated: its profile says `letters = "light"`, reads the board in its grid as the
    /// screen the right way round reads, and learns the same glyphs.
    #[test]
    fn a_game_of_light_letters_on_dark_tiles_is_calibrated_and_read() {
        let img = screen(Model::Nexus7);
        let turned = read::negative(&img);
        let classifier = Classifier::built_in();
        let plain = calibrate(&img, Freeze::Without, &classifier).unwrap();
        let cal = calibrate(&turned, Freeze::Without, &classifier).expect("a round");
        let text = cal.profile("turned").unwrap().to_toml("");
        assert!(text.contains("letters = \"light\""), "{text}");
        let p = Profile::from_toml_str(&text, "turned").unwrap();
        let r = read::read(&turned, Some(&p.grid()), &classifier).unwrap();
        assert_eq!(r.board(), plain.reading.board());
        assert!(r.playable(), "{r:?}");
        let board = plain.reading.board();
        assert_eq!(
            cal.glyphs(&turned, &board).unwrap(),
            plain.glyphs(&img, &board).unwrap()
        );
    }

    #[test]
    fn freeze_pointed_at_comes_first_and_screens_without_a_round_are_refused() {
        let img = screen(Model::Nexus7);
        let classifier = Classifier::built_in();
        // Pointing at the third button makes it Freeze.
        let cal = calibrate(&img, Freeze::At((600.0, 1200.0)), &classifier).unwrap();
        let p = cal.profile("x").unwrap();
        assert_eq!(p.freeze(), Some((600.0, 1200.0)));
        assert_eq!(p.buttons().len(), 3);
        assert!(cal.freeze_given);
        assert!(matches!(
            calibrate(&img, Freeze::At((900.0, 10.0)), &classifier),
            Err(CalibrateError::FreezeOffScreen(..))
        ));
        // The lobby is not a round.
        let device = Device::new(SimConfig {
            model: Model::Nexus7,
            game: GameConfig {
                lobby: true,
                ..GameConfig::default()
            },
            report: None,
            letters: None,
        });
        assert!(matches!(
            calibrate(&device.screenshot(), Freeze::Find, &classifier),
            Err(CalibrateError::NotABoard(_))
        ));
        // A screen with the grid but nothing under it: a profile without Freeze, unless the
        // user points at it.
        let mut cropped = img.clone();
        for y in 1100..1280 {
            for x in 0..800 {
                cropped.put_pixel(x, y, *img.get_pixel(x, 1095));
            }
        }
        let p = calibrate(&cropped, Freeze::Find, &classifier)
            .unwrap()
            .profile("bare")
            .unwrap();
        assert_eq!((p.buttons().len(), p.freeze()), (0, None));
        let written = p.to_toml("bare");
        assert_eq!(Profile::from_toml_str(&written, "bare.toml").unwrap(), p);
        let p = calibrate(&cropped, Freeze::At((400.0, 1200.0)), &classifier)
            .unwrap()
            .profile("y")
            .unwrap();
        assert_eq!(p.buttons().len(), 1);
        // Asked for none, none is kept even where the row is.
        let p = calibrate(&img, Freeze::Without, &classifier)
            .unwrap()
            .profile("z")
            .unwrap();
        assert_eq!(p.freeze(), None);
    }
}
