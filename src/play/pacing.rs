//! Pacing to the game by its score: a real game takes words at its own pace (a swipe that
//! comes while it is still showing the last word is ignored) and from its own list. Looks at
//! the score while words go in tell what it took: the points entered (of words acknowledged a
//! little before the look) less the score shown is the deficit, which only grows when words
//! are lost. A look that finds it grown widens the pause between words, when the loss is
//! most of what went in since the last look (too fast), and marks those words to be entered
//! again; calm looks narrow the pause again. Pure: times and points in, a pause and suspects
//! out; `play::enter` looks and enters.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use super::accept::{self, Bounds};

/// The pause after each word that the pacing asks for, shared between the loop that looks at
/// the score and the loop that enters words; and a probe: a few words at another pause, then
/// the pause again.
#[derive(Clone, Debug, Default)]
pub struct Gap(Arc<GapInner>);

#[derive(Debug, Default)]
struct GapInner {
    pause_us: AtomicU64,
    probe_us: AtomicU64,
    probe_left: AtomicU32,
}

fn micros(d: Duration) -> u64 {
    d.as_micros().min(u128::from(u64::MAX)) as u64
}

impl Gap {
    pub fn new(d: Duration) -> Gap {
        let g = Gap::default();
        g.set(d);
        g
    }

    /// The pause asked for (a probe aside).
    pub fn get(&self) -> Duration {
        Duration::from_micros(self.0.pause_us.load(Ordering::Relaxed))
    }

    pub fn set(&self, d: Duration) {
        self.0.pause_us.store(micros(d), Ordering::Relaxed);
    }

    /// The next `words` words are followed by `pause` instead.
    pub fn probe(&self, pause: Duration, words: u32) {
        self.0.probe_us.store(micros(pause), Ordering::Relaxed);
        self.0.probe_left.store(words, Ordering::Relaxed);
    }

    /// The pause after the word just entered: a probe's while it lasts.
    pub fn next(&self) -> Duration {
        let probing = self
            .0
            .probe_left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .is_ok();
        if probing {
            Duration::from_micros(self.0.probe_us.load(Ordering::Relaxed))
        } else {
            self.get()
        }
    }
}

impl PartialEq for Gap {
    fn eq(&self, other: &Gap) -> bool {
        self.get() == other.get()
    }
}

/// A word the game acknowledged: when (since the round began for the bot), when its stroke
/// began (the game cannot have counted it before), which word of the plan, its points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entered {
    pub at: Duration,
    pub began: Duration,
    pub word: usize,
    pub points: u32,
}

/// Time for the game to take a word and draw its new score: words acknowledged less than this
/// before a look began may not be counted in it yet (a frame or two on a phone; more under
/// load).
pub const SETTLE: Duration = Duration::from_millis(150);
/// The least pause a loss widens to, and the most.
const MIN_WIDENED: Duration = Duration::from_millis(40);
const MAX_GAP: Duration = Duration::from_millis(600);
/// Words a probe of the game's pace lasts: enough that a pause too short loses two of them
/// (`accept::EXTRA`), few enough that little more is lost.
pub const PROBE_WORDS: u32 = 4;
/// Losses of at least this share of the points entered over the recent looks are a pace too
/// fast for the game (one word in two, typically); less is a word here and there it refused
/// (not in its list: one in ten, say), which a slower pace does not bring back.
const TOO_FAST_SHARE: f64 = 0.3;
/// Words the share is judged over (the most recent looks that hold this many): fewer, and
/// one refused word among three would look like a pace too fast.
const JUDGED_WORDS: usize = 10;
/// Looks in a row that find no loss before the pause is narrowed.
const CALM_LOOKS: u32 = 3;
/// How much a calm spell narrows the pause (a pause under 5 ms is none)...
const NARROW: f64 = 0.8;
/// ...but not below this much above the last pause that lost words, which itself is
/// forgotten by `FORGET` every `FORGET_LOOKS` calm looks (the game may have sped up; each
/// probe below its pace costs words, entered again later).
const ABOVE_LOSS: f64 = 1.25;
const FORGET: f64 = 0.95;
const FORGET_LOOKS: u32 = 60;

/// The pacing's state over one round.
#[derive(Clone, Debug)]
pub struct Pacing {
    gap: Duration,
    /// The highest deficit seen: an underestimate (a word counted in the score but not yet
    /// in the entered points) never lowers it.
    high: i64,
    /// Words settled at the last look (an index into the log).
    settled: usize,
    calm: u32,
    /// The pause in force at the last loss too fast, which calm narrowing stays above.
    floor: Duration,
    /// Points lost, points entered and words entered, look by look, since the pause last
    /// widened.
    recent: Vec<(i64, i64, usize)>,
    /// Calm looks since the floor was last lowered.
    calm_total: u32,
    /// Words to enter again, by plan index, in the order they were suspected.
    pub suspects: Vec<usize>,
    /// Looks that found points lost.
    pub lossy_looks: u32,
    /// The bounds on the game's accept gap that set the pause, once a word was lost to the
    /// pace (`accept`): calm looks then narrow nothing, and while they are unsettled (the
    /// pause a probe between them) losses widen nothing.
    fit: Option<Bounds>,
    /// The game widened its gap after the bounds settled: they are no longer taken.
    fit_off: bool,
    /// Words in the log once the last probe's are in: a look that counted them all has
    /// the probe's news.
    probe_end: Option<usize>,
}

impl Pacing {
    /// Starting at a pause of `gap` (what the last round learned).
    pub fn new(gap: Duration) -> Pacing {
        Pacing {
            gap,
            high: 0,
            settled: 0,
            calm: 0,
            floor: Duration::ZERO,
            recent: Vec::new(),
            calm_total: 0,
            suspects: Vec::new(),
            lossy_looks: 0,
            fit: None,
            fit_off: false,
            probe_end: None,
        }
    }

    /// Whether the looks would tell more of the game's pace (`fit`), with `entered` words in
    /// the log: until the bounds on its accept gap are settled, or the words they are taken
    /// over are all in (`accept::WORDS`: the bounds stay what they are then, and no probe
    /// follows them).
    pub fn wants_bounds(&self, entered: usize) -> bool {
        !self.fit_off && !self.fit.is_some_and(|b| b.settled()) && entered <= accept::WORDS
    }

    /// The bounds the looks give on the game's accept gap (`accept::bounds`), with `entered`
    /// words in the log: once a gap is known too short, the pause is just above the upper
    /// one. Returns the pause now asked for, and a probe to make (a pause halfway between
    /// them for `PROBE_WORDS` words) while they are far apart and the last probe's words
    /// have been looked at.
    pub fn fit(&mut self, bounds: Bounds, entered: usize) -> (Duration, Option<Duration>) {
        tracing::debug!("the game's accept gap: {bounds:?}");
        let Some(pause) = bounds.pause().filter(|_| !self.fit_off) else {
            return (self.gap, None);
        };
        if self.fit != Some(bounds) {
            // Losses are judged on the new pause only (a probe's are the bounds').
            self.recent.clear();
        }
        self.gap = pause.min(MAX_GAP);
        self.floor = bounds.above.unwrap_or_default();
        self.fit = Some(bounds);
        let probe = bounds
            .probe()
            .filter(|_| self.probe_end.is_none_or(|end| self.settled >= end));
        if probe.is_some() {
            self.probe_end = Some(entered + PROBE_WORDS as usize);
        }
        (self.gap, probe)
    }

    pub fn gap(&self) -> Duration {
        self.gap
    }

    /// One look at the score: `began` is when the look began (since the round began),
    /// `score` what the game showed, gained since the round began (the score then taken
    /// off), `log` every word acknowledged so far, in order. Returns the pause now asked for.
    pub fn look(&mut self, log: &[Entered], began: Duration, score: u32) -> Duration {
        let settled = log.partition_point(|e| e.at + SETTLE <= began);
        let entered: i64 = log[..settled].iter().map(|e| i64::from(e.points)).sum();
        let deficit = entered - i64::from(score);
        let window = &log[self.settled.min(settled)..settled];
        let window_points: i64 = window.iter().map(|e| i64::from(e.points)).sum();
        let lost = (deficit - self.high).max(0);
        self.recent.push((lost, window_points, window.len()));
        if lost > 0 {
            self.high = deficit;
            self.lossy_looks += 1;
            self.calm = 0;
            // Which of them were lost is not known: each is suspected, with the word on
            // either side of the window (whose side of the look is uncertain).
            let from = self.settled.min(settled).saturating_sub(1);
            let to = (settled + 1).min(log.len());
            for e in &log[from..to] {
                if !self.suspects.contains(&e.word) {
                    self.suspects.push(e.word);
                }
            }
            // The latest looks that hold `JUDGED_WORDS` words, when there are that many.
            let (mut lost, mut entered, mut words) = (0, 0, 0);
            for &(l, e, w) in self.recent.iter().rev() {
                (lost, entered, words) = (lost + l, entered + e, words + w);
                if words >= JUDGED_WORDS {
                    break;
                }
            }
            // A probe's losses are the bounds' to weigh; at the pace they settled on, losses
            // mean the game slowed: widened, and its bounds taken again from here.
            let probing = self.fit.is_some_and(|b| !b.settled());
            if !probing && words >= JUDGED_WORDS && lost as f64 >= entered as f64 * TOO_FAST_SHARE {
                self.fit_off |= self.fit.take().is_some();
                self.floor = self.gap;
                self.gap = (self.gap * 2).clamp(MIN_WIDENED, MAX_GAP);
                // The next verdict is on the new pace.
                self.recent.clear();
            }
        } else if !window.is_empty() {
            self.calm += 1;
            self.calm_total += 1;
            if self.calm_total >= FORGET_LOOKS {
                self.calm_total = 0;
                self.floor = self.floor.mul_f64(FORGET);
            }
            if self.calm >= CALM_LOOKS && self.fit.is_none() {
                self.calm = 0;
                self.gap = self.gap.mul_f64(NARROW).max(self.floor.mul_f64(ABOVE_LOSS));
                if self.gap < Duration::from_millis(5) {
                    self.gap = Duration::ZERO;
                }
            }
        }
        self.settled = settled;
        tracing::trace!("pace: {lost} points lost, pause {:?}", self.gap);
        self.gap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game that ignores a word begun within `accept` of the last it took and refuses the
    /// words `refuses` says, played at a steady `every` per word plus the pacing's pause,
    /// looked at every 100 ms: the points it took, the log, and the pacing.
    fn round(
        accept: Duration,
        every: Duration,
        words: usize,
        refuses: impl Fn(usize) -> bool,
    ) -> (u32, Vec<Entered>, Pacing) {
        played(accept, every, words, refuses, false)
    }

    /// `round`, with words of 2 to 11 points, and with `fit`, the pause also set by the
    /// bounds the looks give on the game's gap (`accept`), probes included, as `enter` does.
    fn played(
        accept: Duration,
        every: Duration,
        words: usize,
        refuses: impl Fn(usize) -> bool,
        fit: bool,
    ) -> (u32, Vec<Entered>, Pacing) {
        let points = |w: usize| if fit { 2 + (w * 7 % 10) as u32 } else { 10 };
        let mut pacing = Pacing::new(Duration::ZERO);
        let gap = Gap::default();
        let (mut t, mut last_taken, mut score, mut next_look) = (
            Duration::ZERO,
            None::<Duration>,
            0u32,
            Duration::from_millis(100),
        );
        let mut log = Vec::new();
        let mut looks = Vec::new();
        // The score the game shows at each moment: (time, score).
        let mut shown = vec![(Duration::ZERO, 0u32)];
        for word in 0..words {
            let start = t;
            let end = start + every;
            if !refuses(word) && last_taken.is_none_or(|l| start >= l + accept) {
                score += points(word);
                last_taken = Some(end);
                shown.push((end, score));
            }
            log.push(Entered {
                at: end,
                began: start,
                word,
                points: points(word),
            });
            t = end + gap.next();
            while next_look <= t {
                let at = shown
                    .iter()
                    .rev()
                    .find(|s| s.0 <= next_look)
                    .map_or(0, |s| s.1);
                let acked: Vec<Entered> =
                    log.iter().copied().filter(|e| e.at <= next_look).collect();
                gap.set(pacing.look(&acked, next_look, at));
                looks.push(super::super::taken::ScoreLook {
                    began: next_look,
                    ended: next_look + Duration::from_millis(20),
                    score: at,
                });
                if fit && pacing.wants_bounds(acked.len()) {
                    let bounds = super::super::accept::bounds(&acked, &looks);
                    let (pause, probe) = pacing.fit(bounds, acked.len());
                    gap.set(pause);
                    if let Some(probe) = probe {
                        gap.probe(probe, PROBE_WORDS);
                    }
                }
                next_look += Duration::from_millis(100);
            }
        }
        (score, log, pacing)
    }

    #[test]
    fn the_games_gap_is_found_in_the_first_words_and_kept_just_above() {
        let ms = Duration::from_millis;
        for accept in [ms(60), ms(120), ms(250)] {
            let (score, log, pacing) = played(accept, ms(65), 200, |_| false, true);
            let all: u32 = log.iter().map(|e| e.points).sum();
            // Settled within the first 60 words, a few percent above the game's gap.
            assert!(
                pacing.fit.is_some_and(|b| b.settled()),
                "{accept:?}: {pacing:?}"
            );
            assert!(
                pacing.gap() >= accept && pacing.gap() <= accept.mul_f64(1.15) + ms(10),
                "{accept:?}: {pacing:?}"
            );
            // Most words taken the first time: the losses are the first burst's and the
            // probes'.
            assert!(
                score * 100 >= all * 85,
                "{accept:?}: {score} of {all} ({pacing:?})"
            );
        }
    }

    #[test]
    fn probes_stop_once_the_words_the_bounds_are_taken_over_are_in() {
        // Bounds that never settle (noisy looks) would otherwise probe all round long.
        let ms = Duration::from_millis;
        let mut pacing = Pacing::new(Duration::ZERO);
        let wide = Bounds {
            above: Some(ms(60)),
            at_most: Some(ms(120)),
        };
        let (pause, probe) = pacing.fit(wide, 10);
        assert!(pause >= ms(120) && probe == Some(ms(90)), "{pacing:?}");
        assert!(pacing.wants_bounds(accept::WORDS));
        assert!(!pacing.wants_bounds(accept::WORDS + 1), "{pacing:?}");
    }

    #[test]
    fn a_game_that_takes_every_word_is_not_slowed_by_the_bounds() {
        let ms = Duration::from_millis;
        let (score, log, pacing) = played(Duration::ZERO, ms(65), 200, |_| false, true);
        assert_eq!(score, log.iter().map(|e| e.points).sum::<u32>());
        assert_eq!(pacing.gap(), Duration::ZERO, "{pacing:?}");
    }

    #[test]
    fn words_the_game_does_not_know_leave_the_bounds_near_its_gap() {
        // One word in nine refused by a game that needs 120 ms between words.
        let ms = Duration::from_millis;
        let (_, _, pacing) = played(ms(120), ms(65), 300, |w| w % 9 == 4, true);
        assert!(
            pacing.gap() >= ms(120) && pacing.gap() <= ms(150),
            "{pacing:?}"
        );
    }

    #[test]
    fn a_game_that_takes_words_slowly_widens_the_pause_until_it_takes_them_all() {
        let ms = Duration::from_millis;
        let (score, _, pacing) = round(ms(120), ms(65), 200, |_| false);
        // Open loop, one word in two is taken; paced, the losses are mostly the first 30
        // words', while the pause doubles to the game's 120 ms (they are entered again).
        assert!(score >= 10 * 170, "{score} of 2000 ({pacing:?})");
        assert!(pacing.gap() >= ms(120), "{pacing:?}");
        assert!(pacing.suspects.contains(&5));
    }

    #[test]
    fn a_game_that_takes_every_word_is_not_slowed() {
        let ms = Duration::from_millis;
        let (score, _, pacing) = round(Duration::ZERO, ms(65), 200, |_| false);
        assert_eq!(score, 2000);
        assert_eq!((pacing.gap(), pacing.lossy_looks), (Duration::ZERO, 0));
        assert!(pacing.suspects.is_empty());
    }

    #[test]
    fn words_the_game_refuses_do_not_slow_a_pace_it_keeps_up_with() {
        // One word in nine refused by a game that also needs 120 ms between words.
        let ms = Duration::from_millis;
        let (_, _, pacing) = round(ms(120), ms(65), 300, |w| w % 9 == 4);
        // Fast enough for the game (a pause of its 120 ms after each word), not far past it.
        assert!(
            pacing.gap() >= ms(120) && pacing.gap() <= ms(300),
            "{pacing:?}"
        );
    }

    #[test]
    fn a_word_the_game_refuses_is_suspected_without_slowing_the_pace() {
        let ms = Duration::from_millis;
        let mut pacing = Pacing::new(Duration::ZERO);
        let log: Vec<Entered> = (0..20)
            .map(|w| Entered {
                at: ms(100 + 60 * w as u64),
                began: ms(60 + 60 * w as u64),
                word: w,
                points: 10,
            })
            .collect();
        // Word 7 is not in the game's list: every look after it is 10 short.
        for look in (200..1400).step_by(100) {
            let began = ms(look);
            let acked: Vec<Entered> = log.iter().copied().filter(|e| e.at <= began).collect();
            let taken = acked
                .iter()
                .filter(|e| e.word != 7 && e.at + SETTLE <= began)
                .count();
            pacing.look(&acked, began, 10 * taken as u32);
        }
        assert_eq!(pacing.gap(), Duration::ZERO, "{pacing:?}");
        assert!(pacing.suspects.contains(&7), "{pacing:?}");
        assert!(pacing.suspects.len() <= 4, "{pacing:?}");
    }
}
