//! The round's schedule as plain values: when a Freeze is due, whether the next word fits
//! before the clock ends, how long the time left is, and the pace touch samples take on the
//! route in use. Pure: times are durations since the round started for the bot, passed in by
//! the caller; nothing here reads a clock, sleeps or touches a phone, so every rule is tested
//! with numbers.

use std::time::Duration;

use tokio::time::Instant;

use crate::profile::Profile;

/// The round's settings, from the profile.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundSettings {
    /// Tap Freeze every this much round time (the game clock's time, which a Freeze stops).
    pub freeze_every: Duration,
    /// What one Freeze adds to the clock.
    pub freeze_adds: Duration,
    /// Freezes to use in the round; `None`: as many as the schedule asks.
    pub freeze_uses: Option<u32>,
    /// Time between two touch samples of a swipe.
    pub sample: Duration,
    /// Pause after each word.
    pub word_pause: Duration,
    /// A further pause after each word, as pacing to the game's score asks (`pacing`).
    pub gap: super::pacing::Gap,
    /// The game's clock as looks at the screen read it while words go in: when present, it
    /// says when the round ends, not `round`.
    pub clock: GameClock,
    /// Round time already played when this schedule starts (a round's words entered again
    /// after its first pass)...
    pub round_time_before: Duration,
    /// ...and the round time of the last Freeze tapped before it: the next falls due at the
    /// first multiple of `freeze_every` after that one, at once if that time has passed.
    pub last_freeze: Option<Duration>,
    /// A stop lets the word being drawn finish (the daemon's way) instead of lifting the
    /// finger mid-word (a person's Ctrl-C on `play`).
    pub finish_word_on_stop: bool,
}

impl RoundSettings {
    pub fn from_profile(p: &Profile) -> RoundSettings {
        let (rules, input) = (p.rules(), p.input());
        RoundSettings {
            freeze_every: Duration::from_secs_f64(rules.freeze_every_secs),
            freeze_adds: Duration::from_secs_f64(rules.freeze_secs),
            // A game without a Freeze button gets none.
            freeze_uses: if p.freeze().is_some() {
                rules.freeze_uses
            } else {
                Some(0)
            },
            sample: Duration::from_millis(input.sample_ms.into()),
            word_pause: Duration::from_millis(input.word_pause_ms.into()),
            gap: super::pacing::Gap::default(),
            clock: GameClock::default(),
            round_time_before: Duration::ZERO,
            last_freeze: None,
            finish_word_on_stop: false,
        }
    }
}

/// The game's clock as read off the screen while words go in, shared between the looks that
/// read it and the round that keeps to it. A look that began at `b`, ended at `e` and read
/// m:ss as `secs` says the round ends between `b + secs - 1` and `e + secs + 1` (the clock
/// rounds one way or the other); looks since the last Freeze narrow that, and the round is
/// played to its earliest end. A Freeze tapped since adds what it adds.
///
/// It also says when the round is over on the screen: a look that no longer finds the
/// round's board (the results screen, a dialog) ends the round at once, whatever any clock
/// says (`over`).
#[derive(Clone, Debug, Default)]
pub struct GameClock {
    state: std::sync::Arc<std::sync::Mutex<ClockState>>,
    over: std::sync::Arc<Over>,
}

/// Whether the round's board has left the screen, for those waiting on it.
#[derive(Debug)]
struct Over(tokio::sync::watch::Sender<bool>);

impl Default for Over {
    fn default() -> Over {
        Over(tokio::sync::watch::channel(false).0)
    }
}

#[derive(Debug, Default)]
struct ClockState {
    /// Freezes tapped in the round so far.
    taps: usize,
    /// The round's earliest and latest end by the looks since a Freeze, and the taps then.
    ends: Option<(Instant, Instant, usize)>,
    /// Looks in a row whose reading did not fit the others.
    conflicts: u32,
}

/// Looks in a row that disagree with the earlier ones before they are believed instead (the
/// game's clock was changed: a lifeline of the game's own, a round restarted).
const CLOCK_CONFLICTS: u32 = 3;

impl GameClock {
    fn state(&self) -> std::sync::MutexGuard<'_, ClockState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A look found the round's board gone from the screen: the round is over.
    pub fn over(&self) {
        self.over.0.send_replace(true);
    }

    /// Whether a look found the round's board gone.
    pub fn is_over(&self) -> bool {
        *self.over.0.borrow()
    }

    /// Turns true when a look finds the round's board gone (`over`).
    pub fn on_over(&self) -> tokio::sync::watch::Receiver<bool> {
        self.over.0.subscribe()
    }

    /// Freezes tapped so far: a look passes it back to `seen`, read as it began.
    pub fn taps(&self) -> usize {
        self.state().taps
    }

    /// A Freeze was tapped.
    pub fn tapped(&self) {
        self.state().taps += 1;
    }

    /// A look that began at `began` (with `taps` Freezes tapped then) and ended at `ended`
    /// read the clock as `secs`. A Freeze tapped meanwhile leaves it unknown which clock it
    /// read: such a look is passed over.
    pub fn seen(&self, began: Instant, ended: Instant, secs: u32, taps: usize) {
        let mut s = self.state();
        if s.taps != taps {
            return;
        }
        let lo = began + Duration::from_secs(u64::from(secs.saturating_sub(1)));
        let hi = ended + Duration::from_secs(u64::from(secs) + 1);
        s.ends = match s.ends {
            Some((a, b, t)) if t == taps => {
                let (a2, b2) = (a.max(lo), b.min(hi));
                if a2 <= b2 {
                    s.conflicts = 0;
                    Some((a2, b2, t))
                } else if s.conflicts + 1 >= CLOCK_CONFLICTS {
                    s.conflicts = 0;
                    Some((lo, hi, taps))
                } else {
                    s.conflicts += 1;
                    Some((a, b, t))
                }
            }
            _ => Some((lo, hi, taps)),
        };
    }

    /// The round's earliest end by the clock read, with what Freezes tapped since add; `None`
    /// before the clock was read.
    pub fn end(&self, freeze_adds: Duration) -> Option<Instant> {
        let s = self.state();
        let (lo, _, then) = s.ends?;
        Some(lo + freeze_adds * (s.taps.saturating_sub(then)) as u32)
    }
}

impl PartialEq for GameClock {
    /// Settings compare by what they ask for, not by what a round read.
    fn eq(&self, _: &GameClock) -> bool {
        true
    }
}

/// The round's clock as the bot keeps it: the settings, the Freezes tapped so far and when
/// the next is due. `now` is always the time since the round started for the bot, at
/// `origin`; the clock ends at `end` (one instant, fixed when the round's start became
/// known), and later by what each Freeze adds.
#[derive(Clone, Debug)]
pub struct Schedule {
    settings: RoundSettings,
    origin: Instant,
    end: Instant,
    /// Round time of each Freeze tapped.
    freezes: Vec<Duration>,
    next_freeze: Duration,
}

impl Schedule {
    /// The schedule of a round that started for the bot at `origin` and whose clock ends at
    /// `end` (before any Freeze).
    pub fn started(settings: RoundSettings, origin: Instant, end: Instant) -> Schedule {
        // The first Freeze due after the last one tapped (one that fell due between two
        // schedules is due at once).
        let mut next_freeze = settings.freeze_every;
        if let Some(last) = settings.last_freeze {
            while !settings.freeze_every.is_zero() && next_freeze <= last {
                next_freeze += settings.freeze_every;
            }
        }
        Schedule {
            origin,
            end,
            next_freeze,
            settings,
            freezes: Vec::new(),
        }
    }

    pub fn settings(&self) -> &RoundSettings {
        &self.settings
    }

    /// Round time of each Freeze tapped.
    pub fn freezes(&self) -> &[Duration] {
        &self.freezes
    }

    /// When the clock ends: the round and what the Freezes tapped so far added to it.
    pub fn deadline(&self) -> Duration {
        if let Some(end) = self.settings.clock.end(self.settings.freeze_adds) {
            return end.saturating_duration_since(self.origin);
        }
        (self.end + self.settings.freeze_adds * self.freezes.len() as u32)
            .saturating_duration_since(self.origin)
    }

    /// The time left on the clock at `now`.
    pub fn left(&self, now: Duration) -> Duration {
        self.deadline().saturating_sub(now)
    }

    /// The game clock's time at `now`: a Freeze stops it for as long as it adds.
    pub fn round_time(&self, now: Duration) -> Duration {
        self.settings.round_time_before
            + now.saturating_sub(self.settings.freeze_adds * self.freezes.len() as u32)
    }

    /// Whether a Freeze is due at `now` and may be tapped: its round time has come, a use is
    /// left, and the tap (taking `tap`) lands before the clock ends. Returns the round time to
    /// record with `froze`.
    pub fn freeze_due(&self, now: Duration, tap: Duration) -> Option<Duration> {
        let round_time = self.round_time(now);
        let uses_left = self
            .settings
            .freeze_uses
            .is_none_or(|n| (self.freezes.len() as u32) < n);
        (round_time >= self.next_freeze && uses_left && now + tap < self.deadline())
            .then_some(round_time)
    }

    /// When (time since the start) the next Freeze falls due, if a use is left and a tap taking
    /// `tap` then would land before the clock ends: what to wait for when the clock is about
    /// to end.
    pub fn next_freeze_at(&self, tap: Duration) -> Option<Duration> {
        let uses_left = self
            .settings
            .freeze_uses
            .is_none_or(|n| (self.freezes.len() as u32) < n);
        let at = (self.next_freeze + self.settings.freeze_adds * self.freezes.len() as u32)
            .saturating_sub(self.settings.round_time_before);
        (uses_left && at + tap < self.deadline()).then_some(at)
    }

    /// Records a Freeze tapped at `round_time`; the next is due at the first multiple of the
    /// interval after it (a late tap does not bring on a burst of them).
    pub fn froze(&mut self, round_time: Duration) {
        self.freezes.push(round_time);
        self.settings.clock.tapped();
        while self.next_freeze <= round_time {
            self.next_freeze += self.settings.freeze_every;
        }
    }

    /// Whether a word started at `now` and taking `takes` ends before the clock does. A word
    /// still being drawn when the clock ends is lost, and its touches land on the results
    /// screen.
    pub fn fits(&self, now: Duration, takes: Duration) -> bool {
        now + takes < self.deadline()
    }
}

/// How long touch samples take to enter on the route in use, learnt as the round goes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pace {
    samples: u32,
    spent: Duration,
}

impl Pace {
    /// Records that `samples` took `spent`.
    pub fn took(&mut self, samples: u32, spent: Duration) {
        self.samples += samples;
        self.spent += spent;
    }

    /// How long `samples` will take: at the slower of the planned pace and the pace seen so
    /// far, plus a quarter (a tap through `input` costs a JVM start, far above the plan).
    pub fn estimate(&self, samples: u32, planned: Duration) -> Duration {
        let seen = self.spent.checked_div(self.samples).unwrap_or(planned);
        seen.max(planned) * samples * 5 / 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(secs: f64) -> Duration {
        Duration::from_secs_f64(secs)
    }

    /// A schedule started now whose clock ends `round` seconds from now.
    fn sched(round: f64, settings: RoundSettings) -> Schedule {
        let now = Instant::now();
        Schedule::started(settings, now, now + s(round))
    }

    fn settings(every: f64, adds: f64, uses: Option<u32>) -> RoundSettings {
        RoundSettings {
            freeze_every: s(every),
            freeze_adds: s(adds),
            freeze_uses: uses,
            sample: Duration::from_millis(20),
            word_pause: Duration::ZERO,
            gap: Default::default(),
            clock: GameClock::default(),
            round_time_before: Duration::ZERO,
            last_freeze: None,
            finish_word_on_stop: false,
        }
    }

    #[test]
    fn a_schedule_that_goes_on_with_a_round_keeps_its_freezes_where_they_fall() {
        // 20 s of round time played, one Freeze of two used: the next falls due 10 s in.
        let mut later = settings(30.0, 15.0, Some(1));
        later.round_time_before = s(20.0);
        let mut sch = sched(120.0, later);
        assert_eq!(sch.freeze_due(s(9.0), s(0.1)), None);
        assert_eq!(sch.next_freeze_at(s(0.1)), Some(s(10.0)));
        assert_eq!(sch.freeze_due(s(10.0), s(0.1)), Some(s(30.0)));
        sch.froze(s(30.0));
        assert_eq!(sch.freeze_due(s(60.0), s(0.1)), None);
        // A Freeze that fell due between the two (30 s, none tapped) is due at once; one
        // tapped at 30 s makes the next due at 60.
        let mut later = settings(30.0, 15.0, None);
        later.round_time_before = s(30.2);
        assert_eq!(
            sched(120.0, later.clone()).freeze_due(s(0.0), s(0.1)),
            Some(s(30.2))
        );
        later.last_freeze = Some(s(30.0));
        assert_eq!(sched(120.0, later).next_freeze_at(s(0.1)), Some(s(29.8)));
    }

    #[test]
    fn the_games_clock_read_while_playing_is_the_deadline_and_a_freeze_adds_to_it() {
        let origin = Instant::now();
        let at = |secs: f64| origin + s(secs);
        let sch = Schedule::started(settings(30.0, 15.0, None), origin, origin + s(120.0));
        // Not read yet: the profile's round.
        assert_eq!(sch.deadline(), s(120.0));
        let clock = sch.settings().clock.clone();
        // Joined with 0:31 on the clock (a look from 0 to 0.1 s): at least 30 s left.
        clock.seen(at(0.0), at(0.1), 31, 0);
        assert_eq!(sch.deadline(), s(30.0));
        // A later look narrows it: still 0:31 at 0.6 s means at least 30.6 s.
        clock.seen(at(0.6), at(0.7), 31, 0);
        assert_eq!(sch.deadline(), s(30.6));
        // A look that disagrees (a misread 0:50) is passed over...
        clock.seen(at(1.0), at(1.1), 50, 0);
        assert_eq!(sch.deadline(), s(30.6));
        // ...and one begun before a Freeze and ended after it too.
        let mut sch = sch;
        let taps = clock.taps();
        sch.froze(s(1.2));
        clock.seen(at(1.1), at(1.3), 29, taps);
        // The Freeze adds its 15 s, until a look after it says what the clock shows.
        assert_eq!(sch.deadline(), s(45.6));
        clock.seen(at(2.0), at(2.1), 43, clock.taps());
        assert_eq!(sch.deadline(), s(44.0));
        // Three looks in a row that agree with each other but not with the rest are the
        // clock changed.
        for t in [3.0, 3.5, 4.0] {
            clock.seen(at(t), at(t + 0.1), 100, clock.taps());
        }
        assert_eq!(sch.deadline(), s(103.0));
    }

    #[test]
    fn a_word_is_timed_by_the_slower_of_plan_and_experience() {
        let ms = Duration::from_millis;
        let mut pace = Pace::default();
        // Nothing seen yet: the plan, and a quarter.
        assert_eq!(pace.estimate(4, ms(20)), ms(100));
        // Taps through `input`: 350 ms a sample.
        pace.took(2, ms(700));
        assert_eq!(pace.estimate(4, ms(20)), ms(1750));
        // A route faster than the plan is still paced by the plan.
        let mut quick = Pace::default();
        quick.took(10, ms(50));
        assert_eq!(quick.estimate(4, ms(20)), ms(100));
    }

    #[test]
    fn freezes_fall_due_in_round_time() {
        // (freezes already tapped at these round times, now, tap takes, due at round time)
        let cases: &[(&[f64], f64, f64, Option<f64>)] = &[
            (&[], 29.9, 0.1, None),                  // not yet
            (&[], 30.0, 0.1, Some(30.0)),            // on time
            (&[], 44.0, 0.1, Some(44.0)),            // late: tapped as soon as possible
            (&[30.0], 59.0, 0.1, None),              // 59 s since start is 44 s of round time
            (&[30.0], 75.0, 0.1, Some(60.0)),        // 75 - 15 frozen
            (&[30.0, 60.0], 119.0, 0.1, None),       // 119 - 30 = 89 s of round time
            (&[30.0, 60.0], 121.0, 0.1, Some(91.0)), // 121 - 30
            (&[], 119.95, 0.1, None),                // the tap would land after the clock
        ];
        for &(done, now, tap, due) in cases {
            let mut sch = sched(120.0, settings(30.0, 15.0, None));
            for &f in done {
                sch.froze(s(f));
            }
            let got = sch.freeze_due(s(now), s(tap)).map(|d| d.as_secs_f64());
            let want = due.map(|d| (d * 1e6).round() / 1e6);
            let got = got.map(|d| (d * 1e6).round() / 1e6);
            assert_eq!(got, want, "freezes {done:?}, now {now}");
        }
    }

    #[test]
    fn freezes_stop_when_the_uses_are_spent() {
        let mut sch = sched(120.0, settings(30.0, 15.0, Some(1)));
        assert!(sch.freeze_due(s(30.0), s(0.1)).is_some());
        sch.froze(s(30.0));
        assert_eq!(sch.freeze_due(s(100.0), s(0.1)), None);
        // No uses at all: never.
        let none = sched(120.0, settings(30.0, 15.0, Some(0)));
        assert_eq!(none.freeze_due(s(60.0), s(0.1)), None);
    }

    #[test]
    fn the_next_freeze_is_waited_for_only_when_it_lands_in_time() {
        // (freezes tapped, tap takes, next freeze at)
        let cases: &[(&[f64], f64, Option<f64>)] = &[
            (&[], 0.1, Some(30.0)),
            (&[30.0], 0.1, Some(75.0)), // 60 s of round time, 15 s frozen
            (&[30.0, 60.0], 0.1, Some(120.0)), // 90 s of round time; deadline 150
            (&[30.0, 60.0, 90.0], 0.1, None), // 120 + 45 is the deadline: 0.1 s late
        ];
        for &(done, tap, want) in cases {
            let mut sch = sched(120.0, settings(30.0, 15.0, None));
            for &f in done {
                sch.froze(s(f));
            }
            let got = sch.next_freeze_at(s(tap)).map(|d| d.as_secs_f64());
            assert_eq!(got, want, "freezes {done:?}");
        }
        let none_left = sched(120.0, settings(30.0, 15.0, Some(0)));
        assert_eq!(none_left.next_freeze_at(s(0.1)), None);
    }

    #[test]
    fn a_late_freeze_does_not_bring_on_a_burst() {
        let mut sch = sched(600.0, settings(30.0, 0.0, None));
        // Tapped at 95 s of round time: 30, 60 and 90 are spent; the next is at 120.
        sch.froze(s(95.0));
        assert_eq!(sch.freeze_due(s(119.0), s(0.1)), None);
        assert!(sch.freeze_due(s(120.0), s(0.1)).is_some());
    }

    #[test]
    fn each_freeze_moves_the_deadline() {
        // (freezes, now, takes, fits, left)
        let cases = [
            (0, 100.0, 19.9, true, 20.0),
            (0, 100.0, 20.0, false, 20.0),
            (1, 100.0, 34.9, true, 35.0),
            (2, 140.0, 9.9, true, 10.0),
            (2, 151.0, 0.0, false, 0.0),
        ];
        for (freezes, now, takes, fits, left) in cases {
            let mut sch = sched(120.0, settings(30.0, 15.0, None));
            for i in 0..freezes {
                sch.froze(s(30.0 * (i + 1) as f64));
            }
            assert_eq!(sch.fits(s(now), s(takes)), fits, "{freezes} freezes, {now}");
            assert!(
                (sch.left(s(now)).as_secs_f64() - left).abs() < 1e-9,
                "{freezes} freezes, {now}"
            );
        }
    }
}
