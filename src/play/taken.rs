//! Which words the game took, told from its score. Each word entered was acknowledged at a
//! known time; each look at the score began and ended at known times and showed the points
//! the game had counted by then. A look counts every word acknowledged `settle` before it
//! began (the game has drawn them), none acknowledged after it ended, and of those between, a
//! first part in order. So the score a look shows is the points taken among a prefix of the
//! words whose length lies in a known range. Every assignment of taken or not to the words
//! that fits every look is found at once, by a pass forward and a pass back over (word,
//! points so far): a word taken in all of them was taken, in none was not, and otherwise the
//! looks cannot tell. Pure: times and points in, verdicts out.

use std::time::Duration;

use super::pacing::Entered;

/// One look at the score: when it began and ended (since the round began for the bot), and
/// the points gained since the round began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreLook {
    pub began: Duration,
    pub ended: Duration,
    pub score: u32,
}

/// What the looks say of one word entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Taken {
    Yes,
    No,
    /// Either fits every look.
    Unknown,
}

/// The verdict on each entry of `log` that fits every one of `looks`, or `None` when no
/// assignment fits them all (the game was slower than `settle`, a score misread).
pub fn judge(log: &[Entered], looks: &[ScoreLook], settle: Duration) -> Option<Vec<Taken>> {
    judge_with(log, looks, settle, &vec![true; log.len()])
}

/// What the looks at the score ask of the points taken among the first words of a log.
pub(super) struct Counted {
    /// The points of every word entered.
    pub total: u32,
    /// Bounds on the points taken among the first k words...
    upper: Vec<u32>,
    lower: Vec<u32>,
    /// ...and the scores no word from k to k+1 may jump over (a look that counted a prefix
    /// ending in that span saw one of them).
    over: Vec<Vec<u32>>,
}

impl Counted {
    /// What `looks` ask of `log`, a look counting every word acknowledged `settle` before it
    /// began and none begun after it ended; `None` when a look shows more than every word.
    pub fn new(log: &[Entered], looks: &[ScoreLook], settle: Duration) -> Option<Counted> {
        let n = log.len();
        let total: u32 = log.iter().map(|e| e.points).sum();
        let mut c = Counted {
            total,
            upper: vec![total; n + 1],
            lower: vec![0u32; n + 1],
            over: vec![Vec::new(); n],
        };
        for l in looks {
            if l.score > total {
                return None;
            }
            let lo = log.partition_point(|e| e.at + settle <= l.began);
            // Strokes come in order; one begun after the look's end is not in it (one
            // acknowledged after may be: a route that acknowledges once the phone has taken
            // it).
            let hi = log.partition_point(|e| e.began <= l.ended).max(lo);
            c.upper[lo] = c.upper[lo].min(l.score);
            c.lower[hi] = c.lower[hi].max(l.score);
            for s in &mut c.over[lo..hi] {
                s.push(l.score);
            }
        }
        Some(c)
    }

    /// Whether `points` taken among the first `k` words fit every look.
    pub fn fits(&self, k: usize, points: u32) -> bool {
        self.lower[k] <= points && points <= self.upper[k]
    }

    /// Whether word `i` of `points` may be taken with `so_far` taken before it: no look saw
    /// a score between.
    pub fn may_take(&self, i: usize, so_far: u32, points: u32) -> bool {
        let to = so_far + points;
        to <= self.total && !self.over[i].iter().any(|&s| so_far < s && s < to)
    }
}

/// `judge`, with the entries `may` holds false for known not taken.
fn judge_with(
    log: &[Entered],
    looks: &[ScoreLook],
    settle: Duration,
    may: &[bool],
) -> Option<Vec<Taken>> {
    let n = log.len();
    let counted = Counted::new(log, looks, settle)?;
    let width = counted.total as usize + 1;
    let fits = |k: usize, c: usize| counted.fits(k, c as u32);
    let may_take = |i: usize, c: usize| may[i] && counted.may_take(i, c as u32, log[i].points);
    // Forward: the points so far reachable before word k.
    let mut fwd = vec![false; (n + 1) * width];
    if !fits(0, 0) {
        return None;
    }
    fwd[0] = true;
    for i in 0..n {
        for c in 0..width {
            if !fwd[i * width + c] {
                continue;
            }
            if fits(i + 1, c) {
                fwd[(i + 1) * width + c] = true;
            }
            let to = c + log[i].points as usize;
            if may_take(i, c) && fits(i + 1, to) {
                fwd[(i + 1) * width + to] = true;
            }
        }
    }
    // Back: the points so far from which the rest can still fit every look.
    let mut back = vec![false; (n + 1) * width];
    for c in 0..width {
        back[n * width + c] = fwd[n * width + c];
    }
    if !back[n * width..].iter().any(|&b| b) {
        return None;
    }
    let mut verdicts = vec![Taken::Unknown; n];
    for i in (0..n).rev() {
        let (mut yes, mut no) = (false, false);
        for c in 0..width {
            if !fwd[i * width + c] {
                continue;
            }
            let skip = back[(i + 1) * width + c];
            let to = c + log[i].points as usize;
            let take = may_take(i, c) && back[(i + 1) * width + to];
            no |= skip;
            yes |= take;
            back[i * width + c] = skip || take;
        }
        verdicts[i] = match (yes, no) {
            (true, false) => Taken::Yes,
            (false, true) => Taken::No,
            _ => Taken::Unknown,
        };
    }
    Some(verdicts)
}

/// The time a game is given to draw a word's points before a look must count them: tried
/// from `super::pacing::SETTLE`, doubled while no assignment fits (a game slower than that
/// under load), up to this many times.
const SETTLE_TRIES: u32 = 3;

/// `judge` at the least settling time that fits the looks, knowing that a game takes a word
/// once: when one entry of a word was taken, its other entries were not (an entry again
/// taken means the first went untaken; a first taken means the game ignored the others).
/// That knowledge is applied until it tells nothing more.
pub fn judge_settled(log: &[Entered], looks: &[ScoreLook]) -> Option<Vec<Taken>> {
    let settle = (0..SETTLE_TRIES)
        .map(|k| super::pacing::SETTLE * (1 << k))
        .find(|&s| judge(log, looks, s).is_some())?;
    let mut may = vec![true; log.len()];
    loop {
        let v = judge_with(log, looks, settle, &may)?;
        let mut changed = false;
        for (i, e) in log.iter().enumerate() {
            let other_taken = log
                .iter()
                .zip(&v)
                .enumerate()
                .any(|(j, (f, t))| j != i && f.word == e.word && *t == Taken::Yes);
            if other_taken && may[i] {
                may[i] = false;
                changed = true;
            }
        }
        if !changed {
            return Some(v);
        }
    }
}

/// What the looks say of each word (by plan index) over all its entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WordVerdicts {
    /// Words one of whose entries the game took.
    pub taken: Vec<usize>,
    /// Words none of whose entries it took.
    pub not_taken: Vec<usize>,
    /// Of those, words it did not take when entered again alone and unhurried: not in its
    /// list.
    pub refused: Vec<usize>,
    /// Words the looks cannot tell of.
    pub unknown: Vec<usize>,
}

/// Sums the verdicts on each entry of `log` by word. An entry at or past `again_from` was
/// entered again, unhurried: a word whose entries were all not taken, one of them such, is
/// refused.
pub fn by_word(log: &[Entered], verdicts: &[Taken], again_from: usize) -> WordVerdicts {
    let mut words: Vec<usize> = log.iter().map(|e| e.word).collect();
    words.sort_unstable();
    words.dedup();
    let mut out = WordVerdicts::default();
    for w in words {
        let entries = || {
            log.iter()
                .zip(verdicts)
                .enumerate()
                .filter(move |(_, (e, _))| e.word == w)
        };
        if entries().any(|(_, (_, v))| *v == Taken::Yes) {
            out.taken.push(w);
        } else if entries().all(|(_, (_, v))| *v == Taken::No) {
            out.not_taken.push(w);
            if entries().any(|(i, _)| i >= again_from) {
                out.refused.push(w);
            }
        } else {
            out.unknown.push(w);
        }
    }
    out
}

/// `words` reordered so that words of equal points stand as far apart as they can: a look
/// that takes in two of them, one taken, cannot tell which, where it can tell a 3 from a 5.
/// The words of each value go round in turn, the most numerous value first.
pub fn apart_by_points(words: &[usize], points: impl Fn(usize) -> u32) -> Vec<usize> {
    let mut by_value: Vec<(u32, Vec<usize>)> = Vec::new();
    for &w in words {
        let p = points(w);
        match by_value.iter_mut().find(|(v, _)| *v == p) {
            Some((_, ws)) => ws.push(w),
            None => by_value.push((p, vec![w])),
        }
    }
    by_value.sort_by_key(|(v, ws)| (std::cmp::Reverse(ws.len()), *v));
    let rounds = by_value.first().map_or(0, |(_, ws)| ws.len());
    (0..rounds)
        .flat_map(|r| {
            by_value
                .iter()
                .filter_map(move |(_, ws)| ws.get(r).copied())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A word whose 40 ms stroke was acknowledged at `at`.
    fn entered(at: u64, word: usize, points: u32) -> Entered {
        Entered {
            at: ms(at),
            began: ms(at - 40),
            word,
            points,
        }
    }

    fn look(began: u64, ended: u64, score: u32) -> ScoreLook {
        ScoreLook {
            began: ms(began),
            ended: ms(ended),
            score,
        }
    }

    #[test]
    fn words_of_equal_points_are_set_apart() {
        let points = [2, 2, 2, 3, 3, 5, 8];
        let order = apart_by_points(&[0, 1, 2, 3, 4, 5, 6], |w| points[w]);
        assert_eq!(order.len(), 7);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3, 4, 5, 6]);
        for pair in order.windows(2) {
            assert_ne!(points[pair[0]], points[pair[1]], "{order:?}");
        }
    }

    #[test]
    fn a_look_after_each_word_tells_every_word() {
        let log = [entered(100, 0, 5), entered(400, 1, 7), entered(700, 2, 3)];
        // The second word was not taken.
        let looks = [look(300, 350, 5), look(600, 650, 5), look(900, 950, 8)];
        let v = judge(&log, &looks, ms(150)).unwrap();
        assert_eq!(v, [Taken::Yes, Taken::No, Taken::Yes]);
    }

    #[test]
    fn points_tell_which_of_a_burst_was_lost() {
        // Four words between two looks; 6 of their 5+6+7+9 points missing: the second.
        let log = [
            entered(100, 0, 5),
            entered(150, 1, 6),
            entered(200, 2, 7),
            entered(250, 3, 9),
        ];
        let looks = [look(0, 50, 0), look(500, 550, 21)];
        let v = judge(&log, &looks, ms(150)).unwrap();
        assert_eq!(v, [Taken::Yes, Taken::No, Taken::Yes, Taken::Yes]);
        // Words of equal points: which of them is not known.
        let log = [entered(100, 0, 5), entered(150, 1, 5), entered(200, 2, 4)];
        let v = judge(&log, &[look(500, 550, 9)], ms(150)).unwrap();
        assert_eq!(v, [Taken::Unknown, Taken::Unknown, Taken::Yes]);
    }

    #[test]
    fn a_look_mid_burst_counts_a_prefix_of_what_was_acknowledged() {
        // Acknowledged at 100 and 200; the look began at 220 (neither settled) and ended at
        // 260: it counted none, the first, or both. It showed 7: the first was not taken,
        // the second was (a prefix of both), as the final look says 7 too.
        let log = [entered(100, 0, 5), entered(200, 1, 7)];
        let looks = [look(220, 260, 7), look(600, 650, 7)];
        let v = judge(&log, &looks, ms(150)).unwrap();
        assert_eq!(v, [Taken::No, Taken::Yes]);
        // A score no prefix sums to: no assignment fits.
        assert_eq!(judge(&log, &[look(600, 650, 6)], ms(150)), None);
    }

    #[test]
    fn a_game_slower_than_the_settling_time_is_judged_at_a_longer_one() {
        // Taken, but drawn 250 ms after: a look 200 ms after it still shows 0.
        let log = [entered(100, 0, 5), entered(1000, 1, 4)];
        let looks = [look(300, 320, 0), look(400, 420, 5), look(1500, 1520, 9)];
        assert_eq!(judge(&log, &looks, ms(150)), None);
        assert_eq!(
            judge_settled(&log, &looks).unwrap(),
            [Taken::Yes, Taken::Yes]
        );
    }

    #[test]
    fn a_word_taken_when_entered_again_tells_of_its_twin() {
        // Two words of 5 points in one burst, one taken; entered again, the second is taken:
        // so it was the first that the burst's score counted.
        let log = [
            entered(100, 0, 5),
            entered(150, 1, 5),
            entered(1000, 0, 5),
            entered(1500, 1, 5),
        ];
        let looks = [
            look(0, 10, 0),
            look(600, 620, 5),
            look(1300, 1320, 5),
            look(1800, 1820, 10),
        ];
        assert_eq!(
            judge(&log, &looks, ms(150)).unwrap(),
            [Taken::Unknown, Taken::Unknown, Taken::No, Taken::Yes]
        );
        assert_eq!(
            judge_settled(&log, &looks).unwrap(),
            [Taken::Yes, Taken::No, Taken::No, Taken::Yes]
        );
    }

    #[test]
    fn words_refused_are_those_not_taken_when_entered_again() {
        let log = [
            entered(100, 0, 5),
            entered(200, 1, 6),
            entered(300, 2, 7),
            // Entered again: 1 is taken now, 2 is not.
            entered(1000, 1, 6),
            entered(1500, 2, 7),
        ];
        let looks = [
            look(0, 10, 0),
            look(800, 820, 5),
            look(1300, 1320, 11),
            look(1800, 1820, 11),
        ];
        let v = judge(&log, &looks, ms(150)).unwrap();
        assert_eq!(v, [Taken::Yes, Taken::No, Taken::No, Taken::Yes, Taken::No]);
        let w = by_word(&log, &v, 3);
        assert_eq!(w.taken, [0, 1]);
        assert_eq!((w.not_taken, w.refused), (vec![2], vec![2]));
        // Not taken at speed only: not refused.
        let w = by_word(&log[..3], &v[..3], 3);
        assert_eq!((w.not_taken, w.refused), (vec![1, 2], vec![]));
    }
}
