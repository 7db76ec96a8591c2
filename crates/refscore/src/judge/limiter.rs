//! Bounds on a judge's traffic: requests in flight at once across the
//! whole run, and requests started per minute.

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A counting semaphore and a per-minute start limit.
#[derive(Debug)]
pub(crate) struct Limiter {
    max: usize,
    state: Mutex<State>,
    freed: Condvar,
    spacing: Option<Duration>,
}

#[derive(Debug)]
struct State {
    in_flight: usize,
    next_start: Option<Instant>,
}

/// A slot held while a request is in flight; freed on drop.
pub(crate) struct Permit<'a> {
    limiter: &'a Limiter,
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut s = self.limiter.state.lock().unwrap_or_else(PoisonError::into_inner);
        s.in_flight = s.in_flight.saturating_sub(1);
        drop(s);
        self.limiter.freed.notify_one();
    }
}

impl Limiter {
    /// At most `max` in flight (at least 1); with `per_minute`, starts are
    /// spaced evenly over the minute.
    pub(crate) fn new(max: usize, per_minute: Option<u32>) -> Self {
        Limiter {
            max: max.max(1),
            state: Mutex::new(State { in_flight: 0, next_start: None }),
            freed: Condvar::new(),
            spacing: per_minute
                .filter(|n| *n > 0)
                .map(|n| Duration::from_secs_f64(60.0 / f64::from(n))),
        }
    }

    /// Waits for a slot (and for the next start time), or gives up when
    /// `stop` says so; checked at least every 100 ms.
    pub(crate) fn acquire(&self, stop: &dyn Fn() -> bool) -> Option<Permit<'_>> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if stop() {
                return None;
            }
            if s.in_flight < self.max {
                let now = Instant::now();
                match (self.spacing, s.next_start) {
                    (Some(_), Some(at)) if at > now => {
                        let wait = (at - now).min(Duration::from_millis(100));
                        drop(s);
                        std::thread::sleep(wait);
                        s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
                        continue;
                    }
                    (Some(gap), next) => s.next_start = Some(next.unwrap_or(now).max(now) + gap),
                    (None, _) => {}
                }
                s.in_flight += 1;
                return Some(Permit { limiter: self });
            }
            s = self
                .freed
                .wait_timeout(s, Duration::from_millis(100))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn never_more_in_flight_than_allowed() {
        let l = Arc::new(Limiter::new(3, None));
        let now = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..12)
            .map(|_| {
                let (l, now, peak) = (Arc::clone(&l), Arc::clone(&now), Arc::clone(&peak));
                std::thread::spawn(move || {
                    let _p = l.acquire(&|| false).unwrap();
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(20));
                    now.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(peak.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn starts_are_spaced_and_stop_gives_up() {
        let l = Limiter::new(10, Some(1200)); // one start every 50 ms
        let t0 = Instant::now();
        for _ in 0..4 {
            drop(l.acquire(&|| false).unwrap());
        }
        assert!(t0.elapsed() >= Duration::from_millis(150), "{:?}", t0.elapsed());
        assert!(l.acquire(&|| true).is_none());
    }
}
