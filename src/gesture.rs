//! Words and taps as touch gestures on one phone: a word's path becomes one swipe with a
//! sample on every tile centre (plus evenly spaced samples between them when the profile asks),
//! a lifeline becomes a tap. Every point is checked against the profile's fence before a
//! gesture exists, so nothing outside the grid and the declared buttons can ever be sent.
//! Pure: pacing is the profile's number; sending is the input route's job.

use crate::profile::{Point, Profile};

/// What a touch sample does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Down,
    Move,
    Up,
}

/// One touch sample, in whole display pixels (what every route takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Touch {
    pub phase: Phase,
    pub x: i32,
    pub y: i32,
}

/// A finger down, moved, and lifted: samples to send `sample_ms` apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gesture {
    pub touches: Vec<Touch>,
    /// Where a finger cut short slides before it lifts (the grid's corner tiles' centres,
    /// fence-checked; `away_from` picks one): lifted where it is, it would tap whatever now
    /// shows there, as a results screen's button where a tile was.
    pub away: [(i32, i32); 4],
}

impl Gesture {
    /// The point of `away` farthest from `(x, y)`: sliding there leaves any button the
    /// finger went down on, so lifting clicks nothing.
    pub fn away_from(&self, x: i32, y: i32) -> (i32, i32) {
        let d = |&(ax, ay): &(i32, i32)| (i64::from(ax - x)).pow(2) + (i64::from(ay - y)).pow(2);
        self.away.iter().copied().max_by_key(d).unwrap_or((x, y))
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GestureError {
    #[error(
        "touch at ({x}, {y}) is outside the grid and the lifeline buttons of profile {profile}"
    )]
    OutsideFence { x: i32, y: i32, profile: String },
    #[error("a swipe needs at least one tile")]
    Empty,
    #[error("tile {0} is not on the 4x4 grid")]
    NoSuchTile(usize),
    #[error("profile {profile} has no button named {name}")]
    NoSuchButton { name: String, profile: String },
}

fn touch(profile: &Profile, phase: Phase, p: Point) -> Result<Touch, GestureError> {
    let (x, y) = (p.0.round() as i32, p.1.round() as i32);
    if !profile.in_fence((x as f32, y as f32)) {
        return Err(GestureError::OutsideFence {
            x,
            y,
            profile: profile.name().to_owned(),
        });
    }
    Ok(Touch { phase, x, y })
}

fn centre(profile: &Profile, cell: usize) -> Result<Point, GestureError> {
    profile
        .centres()
        .get(cell)
        .copied()
        .ok_or(GestureError::NoSuchTile(cell))
}

/// One swipe through `cells` (row-major indices): down on the first centre, a move on each
/// next centre (with `profile.input().between` samples between two centres), up on the last.
pub fn swipe(profile: &Profile, cells: &[usize]) -> Result<Gesture, GestureError> {
    let (&first, rest) = cells.split_first().ok_or(GestureError::Empty)?;
    let mut at = centre(profile, first)?;
    let mut touches = vec![touch(profile, Phase::Down, at)?];
    let between = profile.input().between;
    for &cell in rest {
        let next = centre(profile, cell)?;
        for k in 1..=between {
            let t = k as f32 / (between + 1) as f32;
            let p = (at.0 + (next.0 - at.0) * t, at.1 + (next.1 - at.1) * t);
            touches.push(touch(profile, Phase::Move, p)?);
        }
        touches.push(touch(profile, Phase::Move, next)?);
        at = next;
    }
    touches.push(touch(profile, Phase::Up, at)?);
    Ok(Gesture {
        touches,
        away: away(profile)?,
    })
}

/// The grid's corner tiles' centres, fence-checked: where a finger cut short slides.
fn away(profile: &Profile) -> Result<[(i32, i32); 4], GestureError> {
    let corner = |cell| {
        let t = touch(profile, Phase::Move, centre(profile, cell)?)?;
        Ok((t.x, t.y))
    };
    Ok([corner(0)?, corner(3)?, corner(12)?, corner(15)?])
}

/// A tap: down and up on one point.
pub fn tap(profile: &Profile, p: Point) -> Result<Gesture, GestureError> {
    Ok(Gesture {
        touches: vec![
            touch(profile, Phase::Down, p)?,
            touch(profile, Phase::Up, p)?,
        ],
        away: away(profile)?,
    })
}

/// A tap on the named lifeline button.
pub fn button(profile: &Profile, name: &str) -> Result<Gesture, GestureError> {
    let p = profile
        .buttons()
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| *p)
        .ok_or_else(|| GestureError::NoSuchButton {
            name: name.to_owned(),
            profile: profile.name().to_owned(),
        })?;
    tap(profile, p)
}

/// Tap entry: each tile tapped, then the last one again.
pub fn taps(profile: &Profile, cells: &[usize]) -> Result<Vec<Gesture>, GestureError> {
    let last = *cells.last().ok_or(GestureError::Empty)?;
    cells
        .iter()
        .chain(std::iter::once(&last))
        .map(|&c| tap(profile, centre(profile, c)?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::Input;

    fn nexus7() -> Profile {
        Profile::built_in("nexus7").unwrap()
    }

    #[test]
    fn a_swipe_samples_every_tile_centre() {
        let g = swipe(&nexus7(), &[0, 5, 6]).unwrap();
        let expected = [
            (Phase::Down, 100, 300),
            (Phase::Move, 300, 500),
            (Phase::Move, 500, 500),
            (Phase::Up, 500, 500),
        ];
        let got: Vec<_> = g.touches.iter().map(|t| (t.phase, t.x, t.y)).collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn samples_between_centres_stay_on_the_grid() {
        let p = nexus7();
        let input = Input {
            between: 1,
            ..p.input().clone()
        };
        let p = p.to_builder().input(input).build().unwrap();
        let g = swipe(&p, &[0, 5]).unwrap();
        let got: Vec<_> = g.touches.iter().map(|t| (t.x, t.y)).collect();
        assert_eq!(got, [(100, 300), (200, 400), (300, 500), (300, 500)]);
    }

    #[test]
    fn taps_and_buttons() {
        let p = nexus7();
        let t = taps(&p, &[0, 1]).unwrap();
        let points: Vec<_> = t.iter().map(|g| (g.touches[0].x, g.touches[0].y)).collect();
        assert_eq!(points, [(100, 300), (300, 300), (300, 300)]);
        let f = button(&p, "freeze").unwrap();
        assert_eq!((f.touches[0].x, f.touches[0].y), (200, 1200));
        assert!(matches!(
            button(&p, "vision"),
            Err(GestureError::NoSuchButton { .. })
        ));
    }

    #[test]
    fn nothing_outside_the_fence_or_the_grid_becomes_a_gesture() {
        let p = nexus7();
        // (result, expected error)
        let cases = [
            (tap(&p, (400.0, 50.0)), "outside the grid"),
            (tap(&p, (400.0, 1100.0)), "outside the grid"),
            (swipe(&p, &[]), "at least one tile"),
            (swipe(&p, &[0, 16]), "not on the 4x4 grid"),
        ];
        for (result, message) in cases {
            let e = result.unwrap_err();
            assert!(e.to_string().contains(message), "{e}");
        }
    }
}
