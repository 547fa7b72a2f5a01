//! The round's schedule as plain values: when a Freeze is due, whether the next word fits
//! before the clock ends, how long the time left is, and the pace touch samples take on the
//! route in use. Pure: times are durations since the round started for the bot, passed in by
//! the caller; nothing here reads a clock, sleeps or touches a phone, so every rule is tested
//! with numbers.

use std::time::Duration;

use crate::profile::Profile;

/// The round's settings, from the profile.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundSettings {
    /// The time on the clock when the round starts for us.
    pub round: Duration,
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
    /// A stop lets the word being drawn finish (the daemon's way) instead of lifting the
    /// finger mid-word (a person's Ctrl-C on `play`).
    pub finish_word_on_stop: bool,
}

impl RoundSettings {
    pub fn from_profile(p: &Profile) -> RoundSettings {
        let (rules, input) = (p.rules(), p.input());
        RoundSettings {
            round: Duration::from_secs_f64(rules.round_secs),
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
            finish_word_on_stop: false,
        }
    }
}

/// The round's clock as the bot keeps it: the settings, the Freezes tapped so far and when
/// the next is due. `now` is always the time since the round started for the bot.
#[derive(Clone, Debug)]
pub struct Schedule {
    settings: RoundSettings,
    /// Round time of each Freeze tapped.
    freezes: Vec<Duration>,
    next_freeze: Duration,
}

impl Schedule {
    pub fn new(settings: RoundSettings) -> Schedule {
        Schedule {
            next_freeze: settings.freeze_every,
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
        self.settings.round + self.settings.freeze_adds * self.freezes.len() as u32
    }

    /// The time left on the clock at `now`.
    pub fn left(&self, now: Duration) -> Duration {
        self.deadline().saturating_sub(now)
    }

    /// The game clock's time at `now`: a Freeze stops it for as long as it adds.
    pub fn round_time(&self, now: Duration) -> Duration {
        now.saturating_sub(self.settings.freeze_adds * self.freezes.len() as u32)
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
        let at = self.next_freeze + self.settings.freeze_adds * self.freezes.len() as u32;
        (uses_left && at + tap < self.deadline()).then_some(at)
    }

    /// Records a Freeze tapped at `round_time`; the next is due at the first multiple of the
    /// interval after it (a late tap does not bring on a burst of them).
    pub fn froze(&mut self, round_time: Duration) {
        self.freezes.push(round_time);
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

    fn settings(round: f64, every: f64, adds: f64, uses: Option<u32>) -> RoundSettings {
        RoundSettings {
            round: s(round),
            freeze_every: s(every),
            freeze_adds: s(adds),
            freeze_uses: uses,
            sample: Duration::from_millis(20),
            word_pause: Duration::ZERO,
            gap: Default::default(),
            finish_word_on_stop: false,
        }
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
            let mut sch = Schedule::new(settings(120.0, 30.0, 15.0, None));
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
        let mut sch = Schedule::new(settings(120.0, 30.0, 15.0, Some(1)));
        assert!(sch.freeze_due(s(30.0), s(0.1)).is_some());
        sch.froze(s(30.0));
        assert_eq!(sch.freeze_due(s(100.0), s(0.1)), None);
        // No uses at all: never.
        let none = Schedule::new(settings(120.0, 30.0, 15.0, Some(0)));
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
            let mut sch = Schedule::new(settings(120.0, 30.0, 15.0, None));
            for &f in done {
                sch.froze(s(f));
            }
            let got = sch.next_freeze_at(s(tap)).map(|d| d.as_secs_f64());
            assert_eq!(got, want, "freezes {done:?}");
        }
        let none_left = Schedule::new(settings(120.0, 30.0, 15.0, Some(0)));
        assert_eq!(none_left.next_freeze_at(s(0.1)), None);
    }

    #[test]
    fn a_late_freeze_does_not_bring_on_a_burst() {
        let mut sch = Schedule::new(settings(600.0, 30.0, 0.0, None));
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
            let mut sch = Schedule::new(settings(120.0, 30.0, 15.0, None));
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
