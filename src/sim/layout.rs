//! Where the game draws things on each virtual phone's screen, in display pixels: the 4x4 grid
//! (tile centres, pitch, tile size), the row of lifeline buttons under it, the Play button of
//! the lobby and results screens, and the header. The referee hit-tests touches against it
//! and the renderer draws from it, so the two can never disagree. Pure geometry.

use super::model::Model;

/// Tiles per side of the game's grid.
pub const SIDE: usize = 4;
/// A touch selects a tile when it lands within this fraction of the pitch of its centre.
pub const HIT_RADIUS: f32 = 0.38;

/// A round button (the lifelines).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Button {
    pub name: &'static str,
    pub x: f32,
    pub y: f32,
    pub radius: f32,
}

impl Button {
    pub fn contains(&self, x: f32, y: f32) -> bool {
        (x - self.x).hypot(y - self.y) <= self.radius
    }
}

/// An axis-aligned rectangle, edges included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

impl Rect {
    pub fn contains(&self, x: f32, y: f32) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.y0..=self.y1).contains(&y)
    }
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }
    pub fn height(&self) -> f32 {
        self.y1 - self.y0
    }
}

/// One phone's game screen.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub width: u32,
    pub height: u32,
    /// Height of Android's status bar at the top.
    pub status_bar: f32,
    /// Centre of the top-left tile.
    pub origin: (f32, f32),
    /// Distance between neighbouring tile centres.
    pub pitch: f32,
    /// Side of a tile's rounded square (smaller than the pitch: tiles have gaps).
    pub tile: f32,
    /// Freeze first, then the other lifelines.
    pub buttons: [Button; 3],
    /// The Play / Next round button of the lobby and results screens.
    pub play: Rect,
}

impl Layout {
    /// The game as each model shows it. The Nexus 7's is the real one the 2013 bot drove:
    /// centres at x = 100 + 200*col, y = 300 + 200*row, lifelines at y = 1200.
    pub fn of(model: Model) -> Layout {
        // (width, height, status bar, origin, pitch, tile, button y, button xs, radius)
        let (w, h, bar, origin, pitch, tile, by, bx, r) = match model {
            Model::Nexus7 => (
                800,
                1280,
                40.0,
                (100.0, 300.0),
                200.0,
                184.0,
                1200.0,
                [200.0, 400.0, 600.0],
                70.0,
            ),
            Model::Pixel => (
                1080,
                2400,
                96.0,
                (180.0, 860.0),
                240.0,
                222.0,
                1930.0,
                [270.0, 540.0, 810.0],
                92.0,
            ),
            Model::Small => (
                480,
                800,
                25.0,
                (75.0, 235.0),
                110.0,
                101.0,
                712.0,
                [120.0, 240.0, 360.0],
                44.0,
            ),
        };
        let names = ["Freeze", "Inspire", "Scramble"];
        let buttons = std::array::from_fn(|i| Button {
            name: names[i],
            x: bx[i],
            y: by,
            radius: r,
        });
        let (wf, hf) = (w as f32, h as f32);
        Layout {
            width: w,
            height: h,
            status_bar: bar,
            origin,
            pitch,
            tile,
            buttons,
            play: Rect {
                x0: wf * 0.25,
                y0: hf * 0.70,
                x1: wf * 0.75,
                y1: hf * 0.70 + hf * 0.075,
            },
        }
    }

    /// Centre of cell `cell` (row-major).
    pub fn centre(&self, cell: usize) -> (f32, f32) {
        let (row, col) = (cell / SIDE, cell % SIDE);
        (
            self.origin.0 + self.pitch * col as f32,
            self.origin.1 + self.pitch * row as f32,
        )
    }

    /// The tile a touch at (x, y) selects: within `HIT_RADIUS` x pitch of its centre.
    pub fn hit(&self, x: f32, y: f32) -> Option<usize> {
        let r = HIT_RADIUS * self.pitch;
        (0..SIDE * SIDE).find(|&cell| {
            let (cx, cy) = self.centre(cell);
            (x - cx).hypot(y - cy) <= r
        })
    }

    /// The whole grid, gaps and margins between tiles included.
    pub fn grid(&self) -> Rect {
        let half = self.pitch / 2.0;
        let span = self.pitch * (SIDE - 1) as f32;
        Rect {
            x0: self.origin.0 - half,
            y0: self.origin.1 - half,
            x1: self.origin.0 + span + half,
            y1: self.origin.1 + span + half,
        }
    }

    /// The round's header, between the status bar and the grid: the numbers' size, the
    /// middle of their line, and the side margin. On a tall header the numbers keep to a
    /// size the screen's width holds (the clock within its third).
    pub fn header(&self) -> (f32, f32, f32) {
        let band = self.grid().y0 - self.status_bar;
        let size = (band * 0.32).min(self.width as f32 * 0.08);
        let middle = self.status_bar + band * 0.5 + size * 0.15;
        (size, middle, self.width as f32 * 0.06)
    }

    /// Where the round's clock (m:ss) is drawn, with room around it: the header's left third.
    pub fn clock(&self) -> Rect {
        let (size, middle, margin) = self.header();
        Rect {
            x0: margin - size * 0.2,
            y0: middle - size * 0.75,
            x1: self.width as f32 * 0.35,
            y1: middle + size * 0.75,
        }
    }

    /// Where the round's score is drawn, right-aligned: the header's right third.
    pub fn score(&self) -> Rect {
        let (size, middle, margin) = self.header();
        Rect {
            x0: self.width as f32 * 0.65,
            y0: middle - size * 0.75,
            x1: self.width as f32 - margin + size * 0.2,
            y1: middle + size * 0.75,
        }
    }

    /// The lifeline button under (x, y).
    pub fn button(&self, x: f32, y: f32) -> Option<usize> {
        self.buttons.iter().position(|b| b.contains(x, y))
    }

    /// Where a touch belongs during a round: on the grid or a lifeline button.
    pub fn in_fence(&self, x: f32, y: f32) -> bool {
        self.grid().contains(x, y) || self.button(x, y).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nexus7_is_the_real_layout() {
        let l = Layout::of(Model::Nexus7);
        // (cell, centre)
        let cases = [
            (0, (100.0, 300.0)),
            (3, (700.0, 300.0)),
            (5, (300.0, 500.0)),
            (15, (700.0, 900.0)),
        ];
        for (cell, centre) in cases {
            assert_eq!(l.centre(cell), centre, "cell {cell}");
        }
        let freeze = l.buttons[0];
        assert_eq!((freeze.name, freeze.x, freeze.y), ("Freeze", 200.0, 1200.0));
        assert_eq!((l.buttons[1].x, l.buttons[2].x), (400.0, 600.0));
    }

    #[test]
    fn hits_fall_within_the_radius_only() {
        let l = Layout::of(Model::Nexus7);
        // (x, y, tile)
        let cases = [
            (100.0, 300.0, Some(0)),
            (100.0 + 75.0, 300.0, Some(0)),
            (100.0 + 77.0, 300.0, None),
            (200.0, 400.0, None), // the corner where four tiles meet
            (700.0, 900.0, Some(15)),
            (400.0, 1200.0, None),
        ];
        for (x, y, tile) in cases {
            assert_eq!(l.hit(x, y), tile, "({x}, {y})");
        }
    }

    #[test]
    fn every_model_fits_its_screen_without_overlaps() {
        for model in Model::ALL {
            let l = Layout::of(model);
            let g = l.grid();
            assert!(g.x0 >= 0.0 && g.x1 <= l.width as f32, "{model:?}");
            assert!(g.y0 > l.status_bar && g.y1 < l.buttons[0].y - l.buttons[0].radius);
            assert!(l.tile < l.pitch && HIT_RADIUS * l.pitch < l.tile / 2.0);
            for b in l.buttons {
                assert!(b.y + b.radius <= l.height as f32, "{model:?}");
            }
            for pair in l.buttons.windows(2) {
                assert!(pair[1].x - pair[0].x > 2.0 * pair[0].radius, "{model:?}");
            }
        }
    }
}
