//! A profile made from one screen and what was found about the game, then written with its
//! overlay: the grid and buttons (`calibrate`), a Freeze and Play/Next given or tapped, the
//! game's clock, digits and score (`probe::Numbers`), and the glyphs of a board a person
//! confirmed. What `scramblebot calibrate` does once it has its screen, from a phone or a
//! file alike; the command only turns flags into a [`Request`] and prints the [`Made`].

use std::path::Path;

use image::RgbaImage;

use super::probe::Numbers;
use super::{CalibrateError, Freeze, SaveError, Saved, calibrate, save};
use crate::board::Board;
use crate::profile::{Clock, Glyphs, Point, Profile, ProfileError, ScreenBox};
use crate::vision::digits::Area;
use crate::vision::glyph::Classifier;

/// What a profile is made from.
pub struct Request<'a> {
    /// The profile's name (checked by the caller: `Profile::valid_name`).
    pub name: &'a str,
    /// Where it is written.
    pub dir: &'a Path,
    /// A screen of a round in progress.
    pub screen: &'a RgbaImage,
    /// What was said of the screen so far (the phone, a file), a line each.
    pub about: Vec<String>,
    pub freeze: Freeze,
    /// The results screen's Play/Next button.
    pub advance: Option<Point>,
    pub numbers: Numbers,
    /// The board on the screen, as a person confirmed it: its glyphs are kept.
    pub board: Option<&'a Board>,
    /// Replace a profile of that name, and learn a board the screen contradicts.
    pub force: bool,
}

/// What was made and written.
#[derive(Debug)]
pub struct Made {
    pub profile: Profile,
    /// What was found, a line each (the profile's header, and for the user).
    pub about: Vec<String>,
    /// Freeze was where the caller said, not found.
    pub freeze_given: bool,
    pub saved: Saved,
}

/// Why no profile was made.
#[derive(Debug, thiserror::Error)]
pub enum MakeError {
    #[error(transparent)]
    Calibrate(#[from] CalibrateError),
    /// The board confirmed is not the one the screen shows surely.
    #[error("{0}")]
    Contradicts(String),
    #[error(transparent)]
    Profile(#[from] ProfileError),
    #[error(transparent)]
    Save(#[from] SaveError),
}

/// Makes the profile `req` asks for and writes it.
pub fn make(req: Request) -> Result<Made, MakeError> {
    let Request {
        name,
        dir,
        screen,
        mut about,
        freeze,
        advance,
        numbers,
        board,
        force,
    } = req;
    let no_freeze = freeze == Freeze::Without;
    let files = super::paths(dir, name);
    let cal = calibrate(screen, freeze, &Classifier::built_in())?;
    if cal.buttons.is_empty() {
        about.push(if no_freeze {
            "no Freeze, as asked: Freeze will not be tapped".to_owned()
        } else {
            "no row of lifeline buttons under the grid: Freeze will not be tapped (add it with --freeze X,Y, or --tap on a phone)".to_owned()
        });
    }
    about.extend(numbers.about.iter().cloned());
    let clock = numbers.clock.map(|a| Clock {
        area: screen_box(a),
        digits: numbers
            .digits
            .as_ref()
            .map(|_| format!("{name}.digits.png")),
    });
    let mut profile = cal.profile(name).and_then(|p| {
        p.to_builder()
            .advance(advance)
            .clock(clock)
            .score(numbers.score.map(screen_box))
            .build()
    })?;
    let strip = match board {
        None => None,
        Some(board) => {
            if let Some(why) = cal.reading.contradiction(board).filter(|_| !force) {
                return Err(MakeError::Contradicts(why));
            }
            let (strip, differ) = cal.glyphs(screen, board)?;
            let unsure = cal.reading.tiles.iter().filter(|t| !t.sure()).count();
            about.push(format!(
                "glyph templates of {board} in {}; without them the built-in references {}",
                files.glyphs.clone().unwrap_or_default().display(),
                builtin_verdict(differ, unsure)
            ));
            let glyphs = Glyphs {
                file: format!("{name}.glyphs.png"),
                tiles: board.tiles().to_vec(),
            };
            profile = profile.to_builder().glyphs(Some(glyphs)).build()?;
            Some(strip)
        }
    };
    let reading = &cal.reading;
    about.push(format!(
        "board read {}{}",
        reading.board(),
        if reading.sure() {
            String::new()
        } else {
            format!(" (not sure of {})", crate::play::unsure_text(reading))
        }
    ));
    about.push(format!("check it on {}", files.overlay.display()));
    let header = std::iter::once(format!("{name}: calibrated by `scramblebot calibrate`"))
        .chain(about.iter().cloned())
        .collect::<Vec<_>>()
        .join("\n");
    let digits = numbers.digits.as_ref().map(|d| d.strip());
    let saved = save(
        dir,
        &profile,
        &header,
        screen,
        reading,
        strip.as_ref(),
        digits.as_ref(),
        force,
    )?;
    Ok(Made {
        profile,
        about,
        freeze_given: cal.freeze_given,
        saved,
    })
}

/// A box found on the screen, as the profile keeps it.
pub fn screen_box(a: Area) -> ScreenBox {
    ScreenBox {
        x0: a.x0 as f32,
        y0: a.y0 as f32,
        x1: a.x1 as f32,
        y1: a.y1 as f32,
    }
}

/// How the built-in references did against the board typed: "read 1 of 16 tiles
/// otherwise", "read all 16 tiles as typed, 3 of them unsure".
fn builtin_verdict(differ: usize, unsure: usize) -> String {
    let read = match differ {
        0 => "read all 16 tiles as typed".to_owned(),
        n => format!("read {n} of 16 tiles otherwise"),
    };
    let unsure = match unsure {
        0 => "every one surely".to_owned(),
        n => format!("{n} of them unsure"),
    };
    format!("{read}, {unsure}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_references_are_judged_in_words() {
        let cases = [
            (0, 0, "read all 16 tiles as typed, every one surely"),
            (0, 16, "read all 16 tiles as typed, 16 of them unsure"),
            (1, 0, "read 1 of 16 tiles otherwise, every one surely"),
            (3, 2, "read 3 of 16 tiles otherwise, 2 of them unsure"),
        ];
        for (differ, unsure, want) in cases {
            assert_eq!(super::builtin_verdict(differ, unsure), want);
        }
    }
}
