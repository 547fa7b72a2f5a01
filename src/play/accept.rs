//! The game's pace, bounded from its score. A game that ignores a swipe begun less than some
//! time after the last word it took (its accept gap) takes, of words entered at known times,
//! what that time allows less the words it does not know. Each gap tried is set against the
//! looks at the score: the fewest words the game must not know for the looks to fit that
//! gap (`refusals`, a pass over (word, points so far, the last word taken while it still
//! blocks)). A gap too long cannot fit at all (the game took a word it would have ignored):
//! the game's gap is at most the longest that fits (`at_most`). A gap too short fits only
//! if the game did not know words it really ignored for the pace: one that needs `EXTRA`
//! more such words than the upper bound is too short (`above`).
//!
//! The bot's pause is then set just above the upper bound, or halfway between the two while
//! they are far apart: the words of such a probe tell which half holds the gap. Pure: the
//! words' and looks' times in, bounds out.

use std::collections::HashMap;
use std::time::Duration;

use super::pacing::Entered;
use super::taken::{Counted, ScoreLook};

/// What the looks say of the game's accept gap, in the bot's times (from a word's
/// acknowledgement to the next stroke's start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// The gap is more than this: with a gap this short, the game would not have known
    /// `EXTRA` more words than with the upper bound. `None`: no gap is known that short.
    pub above: Option<Duration>,
    /// The gap is at most this: with a longer one, the game would have ignored a word it
    /// took. `None`: the looks fit every gap tried (too few words yet).
    pub at_most: Option<Duration>,
}

/// The gaps tried: every `STEP` up to `MOST`.
const STEP: Duration = Duration::from_millis(2);
const MOST: Duration = Duration::from_millis(600);
/// Words more the game must not know for a gap to be too short.
pub const EXTRA: u32 = 2;
/// The words the bounds are taken over: the first this many (the pace is found on them; the
/// pass's cost grows with the words and their points).
pub const WORDS: usize = 60;
/// Times a look may need to count a word (from `SETTLE`, doubled while the looks fit no gap:
/// a game slower than that under load).
const SETTLE_TRIES: u32 = 3;

/// The bounds the looks at the score (`looks`, points gained since the round began) give
/// on the first words entered (`log`, in order).
pub fn bounds(log: &[Entered], looks: &[ScoreLook]) -> Bounds {
    // Only looks that counted none of the later words.
    let later = log.get(WORDS).map(|e| e.began);
    let looks: Vec<ScoreLook> = looks
        .iter()
        .copied()
        .filter(|l| later.is_none_or(|b| l.ended < b))
        .collect();
    let log = &log[..log.len().min(WORDS)];
    let counted = (0..SETTLE_TRIES)
        .filter_map(|k| Counted::new(log, &looks, super::pacing::SETTLE * (1 << k)))
        .find_map(|c| Some((refusals(log, &c, Duration::ZERO)?, c)));
    let Some((at_none, counted)) = counted else {
        return Bounds::default();
    };
    let steps = (MOST.as_millis() / STEP.as_millis()) as u32;
    let r = |k: u32| refusals(log, &counted, STEP * k);
    // Fitting is monotone in the gap: what a longer gap allows, a shorter one does too.
    if r(steps).is_some() {
        return Bounds::default();
    }
    let last = last_where(0, steps, |k| r(k).is_some());
    let at_least = r(last).unwrap_or(0) + EXTRA;
    let above = (at_none >= at_least)
        .then(|| STEP * last_where(0, last, |k| r(k).is_some_and(|n| n >= at_least)));
    Bounds {
        above,
        at_most: Some(STEP * last),
    }
}

/// The last `k` in `lo..=hi` where `holds` (which holds at `lo` and turns false once), by
/// halving.
fn last_where(lo: u32, hi: u32, holds: impl Fn(u32) -> bool) -> u32 {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if holds(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// The fewest words of `log` the game must not know for `counted`'s looks to fit a game of
/// gap `gap`; `None` when none fits.
fn refusals(log: &[Entered], counted: &Counted, gap: Duration) -> Option<u32> {
    if !counted.fits(0, 0) {
        return None;
    }
    // (points so far, the last word taken while it may still block one) -> fewest refusals.
    let mut states: HashMap<(u32, Option<usize>), u32> = HashMap::from([((0, None), 0)]);
    for (i, e) in log.iter().enumerate() {
        let mut next: HashMap<(u32, Option<usize>), u32> = HashMap::new();
        let mut keep = |k: (u32, Option<usize>), n: u32| {
            let v = next.entry(k).or_insert(n);
            *v = (*v).min(n);
        };
        for (&(c, last), &n) in &states {
            let blocks = last.filter(|&j| e.began < log[j].at + gap);
            let allowed = blocks.is_none();
            if counted.fits(i + 1, c) {
                keep((c, blocks), n + u32::from(allowed));
            }
            if allowed && counted.may_take(i, c, e.points) && counted.fits(i + 1, c + e.points) {
                keep((c + e.points, Some(i)), n);
            }
        }
        if next.is_empty() {
            return None;
        }
        states = next;
    }
    states.into_values().min()
}

/// The span of the bounds below which the pause is not halved further: a few milliseconds,
/// or this share of the upper bound (the pace is then within it of the game's limit).
const SETTLED_SHARE: f64 = 0.06;
const SETTLED_LEAST: Duration = Duration::from_millis(6);
/// What the pause keeps above the upper bound: the phone's and the link's jitter make the
/// game's times differ from the bot's by a few milliseconds.
const MARGIN_SHARE: f64 = 0.05;
const MARGIN_LEAST: Duration = Duration::from_millis(8);

impl Bounds {
    /// Whether the span between the bounds is narrow enough to keep to the upper one.
    pub fn settled(&self) -> bool {
        match (self.above, self.at_most) {
            (Some(a), Some(m)) => {
                m.saturating_sub(a) <= SETTLED_LEAST.max(m.mul_f64(SETTLED_SHARE))
            }
            _ => false,
        }
    }

    /// The pause the bounds ask for, once a gap is known too short: just above the upper
    /// bound.
    pub fn pause(&self) -> Option<Duration> {
        self.above?;
        let at_most = self.at_most?;
        Some(at_most + MARGIN_LEAST.max(at_most.mul_f64(MARGIN_SHARE)))
    }

    /// A pause to probe with while the bounds are far apart: halfway between them (its words
    /// tell which half holds the gap).
    pub fn probe(&self) -> Option<Duration> {
        let (above, at_most) = (self.above?, self.at_most?);
        (!self.settled()).then(|| (above + at_most) / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Words of 60 ms strokes, each begun `pause` after the last was acknowledged, of the
    /// points `points` gives; a game that takes a word begun at least `gap` after the last it
    /// took, and knows every word but those `refuses` names; a look at the score every 100 ms
    /// (20 ms long). The bounds at the end.
    fn played(
        gap: Duration,
        pauses: &[u64],
        points: impl Fn(usize) -> u32,
        refuses: impl Fn(usize) -> bool,
    ) -> Bounds {
        let mut t = Duration::ZERO;
        let mut last = None::<Duration>;
        let mut log = Vec::new();
        let mut taken_at = Vec::new();
        for (i, &p) in pauses.iter().enumerate() {
            let began = t + ms(p);
            let at = began + ms(60);
            if !refuses(i) && last.is_none_or(|l| began >= l + gap) {
                last = Some(at);
                taken_at.push((at, points(i)));
            }
            log.push(Entered {
                at,
                began,
                word: i,
                points: points(i),
            });
            t = at;
        }
        let looks: Vec<ScoreLook> = (1..=t.as_millis() as u64 / 100 + 3)
            .map(|k| {
                let began = ms(100 * k);
                let score = taken_at
                    .iter()
                    .filter(|(at, _)| *at + ms(10) <= began)
                    .map(|(_, p)| p)
                    .sum();
                ScoreLook {
                    began,
                    ended: began + ms(20),
                    score,
                }
            })
            .collect();
        bounds(&log, &looks)
    }

    /// Points of 2 to 11, never two alike in a row.
    fn varied(i: usize) -> u32 {
        2 + (i * 7 % 10) as u32
    }

    #[test]
    fn words_at_full_speed_bound_the_gap_to_a_strokes_width() {
        // At no pause, one word in three is taken by a game of 100 ms: 120 ms apart.
        let b = played(ms(100), &[0; 15], varied, |_| false);
        assert!(b.above >= Some(ms(58)) && b.above < Some(ms(62)), "{b:?}");
        assert!(
            b.at_most >= Some(ms(118)) && b.at_most <= Some(ms(120)),
            "{b:?}"
        );
        assert!(!b.settled());
        // Kept just above 120, probed at 90.
        assert!(
            b.pause() >= Some(ms(126)) && b.pause() <= Some(ms(130)),
            "{b:?}"
        );
        let probe = b.probe().unwrap();
        assert!(probe > ms(85) && probe < ms(95), "{b:?}");
    }

    #[test]
    fn a_probe_halves_the_span_then_the_pause_keeps_just_above_the_gap() {
        // A game of 80 ms: at no pause 120 apart; then at 90 ms (all taken: at most 90),
        // then at 75 (lost: above 75).
        let mut pauses = vec![0; 15];
        pauses.extend([90; 5]);
        let b = played(ms(80), &pauses, varied, |_| false);
        assert!(
            b.above >= Some(ms(58)) && b.at_most == Some(ms(90)),
            "{b:?}"
        );
        pauses.extend([75; 5]);
        let b = played(ms(80), &pauses, varied, |_| false);
        assert!(
            b.above >= Some(ms(74)) && b.at_most == Some(ms(90)),
            "{b:?}"
        );
        assert!(!b.settled());
        // Lost at 97 and 98, taken at 102: within 6 ms, kept just above 102.
        let mut pauses = vec![0; 15];
        pauses.extend([98, 98, 97, 97, 98, 102, 102, 102, 102]);
        let b = played(ms(100), &pauses, varied, |_| false);
        assert!(
            b.above >= Some(ms(96)) && b.at_most == Some(ms(102)),
            "{b:?}"
        );
        assert!(b.settled(), "{b:?}");
        assert_eq!(b.probe(), None);
        assert!(b.pause().unwrap() >= ms(110), "{b:?}");
    }

    #[test]
    fn a_game_that_takes_every_word_gives_no_pause() {
        let b = played(Duration::ZERO, &[0; 15], varied, |_| false);
        assert_eq!(b.above, None);
        assert_eq!(b.at_most, Some(Duration::ZERO));
        assert_eq!((b.pause(), b.probe()), (None, None));
    }

    #[test]
    fn words_the_game_does_not_know_do_not_make_a_slow_enough_pace_too_fast() {
        // Paced at 150 ms for a game of 100: one word in nine refused.
        let b = played(ms(100), &[150; 30], varied, |i| i % 9 == 4);
        assert_eq!(b.above, None, "{b:?}");
        assert!(b.at_most >= Some(ms(150)), "{b:?}");
    }

    #[test]
    fn looks_that_fit_no_gap_bound_nothing() {
        let log: Vec<Entered> = (0..4)
            .map(|i| Entered {
                at: ms(100 * i + 60),
                began: ms(100 * i),
                word: i as usize,
                points: 5,
            })
            .collect();
        // A score no set of the words makes (a misread): no bounds.
        let looks = [ScoreLook {
            began: ms(600),
            ended: ms(620),
            score: 7,
        }];
        assert_eq!(bounds(&log, &looks), Bounds::default());
        // Two words in 200 ms: the gap is at most 40 (the second began 40 after the first).
        let looks = [ScoreLook {
            began: ms(600),
            ended: ms(620),
            score: 20,
        }];
        assert_eq!(bounds(&log, &looks).at_most, Some(ms(40)));
    }
}
