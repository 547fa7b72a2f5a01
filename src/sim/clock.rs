//! The virtual phone's time: how long since it started, and how a service lets time pass (a
//! JVM starting, a swipe being drawn, `sleep 2`). Served over ADB the phone lives on the wall
//! clock: its services run on threads of their own and sleep for real. Reached in process
//! (`sim::local`) it lives on the caller's tokio clock, paused in tests: its services run
//! inline, in the caller's call, and time they let pass moves the phone's clock ahead of the
//! caller's at once; the caller then waits until its own clock has caught up
//! ([`Clock::settles_at`]), so both agree again and nothing the phone did is earlier than
//! what the caller did before it. The phone's clock never runs backwards.

use std::sync::Mutex;
use std::time::Duration;

/// Where a phone's time comes from.
#[derive(Debug)]
pub enum Clock {
    /// The wall clock, from the phone's start.
    Wall(std::time::Instant),
    /// The caller's tokio clock from `epoch`, or `ahead` where services have let more time
    /// pass than the caller has yet.
    Caller {
        epoch: tokio::time::Instant,
        ahead: Mutex<Duration>,
    },
}

impl Clock {
    /// The wall clock, starting now.
    pub fn wall() -> Clock {
        Clock::Wall(std::time::Instant::now())
    }

    /// The tokio clock of the runtime this is called on, starting now. (Outside a runtime,
    /// tokio's clock is the wall clock.)
    pub fn caller() -> Clock {
        Clock::Caller {
            epoch: tokio::time::Instant::now(),
            ahead: Mutex::new(Duration::ZERO),
        }
    }

    /// Time since the phone started.
    pub fn now(&self) -> Duration {
        match self {
            Clock::Wall(epoch) => epoch.elapsed(),
            Clock::Caller { epoch, ahead } => {
                let ahead = *ahead.lock().unwrap_or_else(|e| e.into_inner());
                epoch.elapsed().max(ahead)
            }
        }
    }

    /// Lets `d` pass on the phone: a real sleep on the wall clock; on the caller's clock the
    /// phone's time moves on at once.
    pub fn pass(&self, d: Duration) {
        match self {
            Clock::Wall(_) => std::thread::sleep(d),
            Clock::Caller { epoch, ahead } => {
                let mut ahead = ahead.lock().unwrap_or_else(|e| e.into_inner());
                *ahead = epoch.elapsed().max(*ahead) + d;
            }
        }
    }

    /// When the caller's clock will have caught up with the phone's (`None` on the wall
    /// clock, which needs no catching up).
    pub fn settles_at(&self) -> Option<tokio::time::Instant> {
        match self {
            Clock::Wall(_) => None,
            Clock::Caller { epoch, ahead } => {
                Some(*epoch + *ahead.lock().unwrap_or_else(|e| e.into_inner()))
            }
        }
    }

    /// Whether services run inline on the caller's clock (and must never wait for anything
    /// that only another call could bring).
    pub fn is_caller(&self) -> bool {
        matches!(self, Clock::Caller { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn time_let_pass_moves_the_phone_ahead_until_the_caller_catches_up() {
        let clock = Clock::caller();
        assert_eq!(clock.now(), Duration::ZERO);
        clock.pass(Duration::from_millis(300));
        // The phone is ahead; the caller's clock has not moved.
        assert_eq!(clock.now(), Duration::from_millis(300));
        let settles = clock.settles_at().unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(clock.now(), Duration::from_millis(300), "never backwards");
        tokio::time::sleep_until(settles).await;
        assert_eq!(clock.now(), Duration::from_millis(300));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            clock.now(),
            Duration::from_millis(350),
            "the caller's clock again"
        );
        // Time let pass counts from the later of the two clocks.
        clock.pass(Duration::from_millis(10));
        assert_eq!(clock.now(), Duration::from_millis(360));
    }

    #[test]
    fn the_wall_clock_sleeps_for_real() {
        let clock = Clock::wall();
        let before = clock.now();
        clock.pass(Duration::from_millis(20));
        assert!(clock.now() - before >= Duration::from_millis(20));
        assert_eq!(clock.settles_at(), None);
        assert!(!clock.is_caller());
    }
}
