//! Seeded boards: the three sets the benchmarks and tests use (uniform letters, rolls of the
//! "New Boggle" dice, boards near a near-optimal one), made from a small deterministic RNG so
//! every run of every machine sees the same boards. No I/O, no clock.

use crate::board::Board;

/// SplitMix64: tiny, fast and good enough to pick letters; the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (n > 0), without modulo bias worth noticing for small n.
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// The 16 dice of "New Boggle"; `q` on a die is the Qu face.
pub const NEW_BOGGLE_DICE: [&str; 16] = [
    "aaeegn", "abbjoo", "achops", "affkps", "aoottw", "cimotu", "deilrx", "delrvy", "distty",
    "eeghnw", "eeinsu", "ehrtvw", "eiosst", "elrtty", "himnuq", "hlnnrz",
];

/// A near-optimal 4x4 board for ENABLE (thousands of points): the centre of the `near` set.
pub const NEAR_OPTIMAL: &str = "perslatgsineters";

/// A kind of board set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardSet {
    /// Each tile a letter a-z, all equally likely (q is Qu): few words, most paths die at once.
    Uniform,
    /// The 16 New Boggle dice, shuffled and rolled: boards like a real game's.
    Dice,
    /// `perslatgsineters` with one or two letters changed or tiles swapped: rich boards.
    Near,
}

impl BoardSet {
    pub const ALL: [BoardSet; 3] = [BoardSet::Uniform, BoardSet::Dice, BoardSet::Near];

    pub fn name(self) -> &'static str {
        match self {
            BoardSet::Uniform => "uniform",
            BoardSet::Dice => "dice",
            BoardSet::Near => "near",
        }
    }

    /// The seed a set is generated from unless another is asked for.
    pub fn default_seed(self) -> u64 {
        match self {
            BoardSet::Uniform => 0x5eed_0001,
            BoardSet::Dice => 0x5eed_0002,
            BoardSet::Near => 0x5eed_0003,
        }
    }

    /// `count` 4x4 boards of this set from `seed`.
    pub fn boards(self, count: usize, seed: u64) -> Vec<Board> {
        let mut rng = Rng::new(seed);
        (0..count).map(|_| self.one(&mut rng)).collect()
    }

    /// One board of this set.
    pub fn one(self, rng: &mut Rng) -> Board {
        let tiles: Vec<u8> = match self {
            BoardSet::Uniform => (0..16).map(|_| rng.below(26) as u8).collect(),
            BoardSet::Dice => roll_dice(rng),
            BoardSet::Near => {
                let mut tiles: Vec<u8> = NEAR_OPTIMAL.bytes().map(|b| b - b'a').collect();
                for _ in 0..1 + rng.below(2) {
                    if rng.below(2) == 0 {
                        tiles[rng.below(16)] = rng.below(26) as u8;
                    } else {
                        let (a, b) = (rng.below(16), rng.below(16));
                        tiles.swap(a, b);
                    }
                }
                tiles
            }
        };
        Board::from_tiles(&tiles).expect("16 letters make a 4x4 board")
    }
}

/// The dice shuffled into places, each showing a random face.
pub fn roll_dice(rng: &mut Rng) -> Vec<u8> {
    let mut order: Vec<usize> = (0..16).collect();
    for i in (1..16).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
        .iter()
        .map(|&d| NEW_BOGGLE_DICE[d].as_bytes()[rng.below(6)] - b'a')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_fixed_by_their_seed_and_differ_between_seeds() {
        for set in BoardSet::ALL {
            let a = set.boards(50, set.default_seed());
            assert_eq!(a, set.boards(50, set.default_seed()));
            assert_ne!(a, set.boards(50, set.default_seed() + 1));
            let distinct: std::collections::HashSet<_> = a.iter().collect();
            assert!(
                distinct.len() > 40,
                "{}: {} distinct boards",
                set.name(),
                distinct.len()
            );
        }
    }

    #[test]
    fn dice_boards_use_each_die_once() {
        // Tile i can come from die d if d has that face; a board is a roll when tiles and dice
        // can be matched one to one (augmenting paths, as a letter is on several dice).
        fn assign(
            tile: usize,
            tiles: &[u8],
            owner: &mut [Option<usize>; 16],
            seen: &mut [bool; 16],
        ) -> bool {
            for d in 0..16 {
                if !seen[d]
                    && NEW_BOGGLE_DICE[d]
                        .as_bytes()
                        .contains(&(b'a' + tiles[tile]))
                {
                    seen[d] = true;
                    if owner[d].is_none_or(|other| assign(other, tiles, owner, seen)) {
                        owner[d] = Some(tile);
                        return true;
                    }
                }
            }
            false
        }
        for board in BoardSet::Dice.boards(100, 7) {
            let mut owner = [None; 16];
            for tile in 0..16 {
                assert!(
                    assign(tile, board.tiles(), &mut owner, &mut [false; 16]),
                    "{board}"
                );
            }
        }
        // And a board no roll can make is told apart: sixteen z.
        let mut owner = [None; 16];
        assert!(!(0..16).all(|t| assign(t, &[25; 16], &mut owner, &mut [false; 16])));
    }

    #[test]
    fn near_boards_are_at_most_two_edits_away() {
        let centre: Vec<u8> = NEAR_OPTIMAL.bytes().map(|b| b - b'a').collect();
        for board in BoardSet::Near.boards(100, 9) {
            let changed = board
                .tiles()
                .iter()
                .zip(&centre)
                .filter(|(a, b)| a != b)
                .count();
            assert!(changed <= 4, "{board}");
        }
    }

    #[test]
    fn below_stays_below() {
        let mut rng = Rng::new(1);
        let mut seen = [0u32; 26];
        for _ in 0..26_000 {
            seen[rng.below(26)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }
}
