//! What a running method tells the outside world, through small observer interfaces.
//!
//! The strategies know nothing of terminals: a [`Search`](super::Search) given an observer
//! ([`Search::set_observer`](super::Search::set_observer)) hands it a [`SearchStatus`] after
//! checks and frontier moves, at most every [`SearchObserver::interval`] ([`NOTICE_INTERVAL`]
//! by default; a [`Recorder`] takes every one), and once more at the end.
//! A status is a snapshot of plain figures: checks done out of the lattice size, BFS's queue,
//! the best loss so far, the current lower bound of what is unexplored (BFS's queue head, or the
//! final phase's candidate bound), the work of the current phase where it is known in advance,
//! and the deadline of `-timeLimit`. [`SearchStatus::eta`] estimates the time left from them
//! where that is possible. The interface's progress bar is one observer; tests record statuses
//! with another.
//!
//! The toolbox's methods (Datafly, Mondrian, Incognito, Anatomy) have no figures of that kind:
//! they tell a [`StepObserver`] when their search starts, the step they are at, as one line
//! (`Datafly: generalizing age to level 2`), and when they are done. The interface shows the
//! line on a spinner; `()` shows nothing.

use std::time::{Duration, Instant};

/// The shortest time between two notices (the last one is always sent).
pub const NOTICE_INTERVAL: Duration = Duration::from_millis(100);

/// The phases of a lattice search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Flash's or OLA's path walks (or the exhaustive sweep): tagging and checks.
    Classify,
    /// The final phase: every remaining candidate, in bound order.
    Final,
    /// Best-first branch and bound: a queue ordered by lower bounds.
    BestFirst,
}

impl Phase {
    pub fn name(self) -> &'static str {
        match self {
            Phase::Classify => "classify",
            Phase::Final => "final phase",
            Phase::BestFirst => "best-first",
        }
    }
}

/// A snapshot of a search in progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchStatus {
    pub phase: Phase,
    /// Transformations checked so far.
    pub checks: u64,
    /// Transformations in the lattice.
    pub lattice_size: u64,
    /// BFS: transformations waiting in the queue.
    pub queued: Option<u64>,
    /// Loss of the best valid transformation found so far.
    pub best_loss: Option<f64>,
    /// No transformation left unexplored loses less than this (when the strategy knows it).
    pub lower_bound: Option<f64>,
    /// Work of the current phase known in advance: (done, total).
    pub work: Option<(u64, u64)>,
    /// Time since the search started, and since the current phase started.
    pub elapsed: Duration,
    pub phase_elapsed: Duration,
    /// Time left before `-timeLimit` stops the search.
    pub time_left: Option<Duration>,
    /// The search has ended (the last notice).
    pub finished: bool,
}

impl SearchStatus {
    /// The time left, where it can be estimated: the current phase's rate over its known work,
    /// capped by the time limit (a search never runs past it). `None` when neither is known.
    pub fn eta(&self) -> Option<Duration> {
        if self.finished {
            return Some(Duration::ZERO);
        }
        let by_work = self.work.and_then(|(done, total)| {
            (done > 0 && total >= done).then(|| {
                self.phase_elapsed
                    .mul_f64((total - done) as f64 / done as f64)
            })
        });
        match (by_work, self.time_left) {
            (Some(w), Some(t)) => Some(w.min(t)),
            (w, t) => w.or(t),
        }
    }
}

/// Receives a search's statuses (see the module docs).
pub trait SearchObserver: Send {
    fn update(&mut self, status: &SearchStatus);

    /// The shortest time between two notices this observer wants.
    fn interval(&self) -> Duration {
        NOTICE_INTERVAL
    }
}

/// An observer that keeps every status, unthrottled (tests, benchmarks).
#[derive(Debug, Default, Clone)]
pub struct Recorder {
    pub statuses: Vec<SearchStatus>,
}

impl SearchObserver for Recorder {
    fn update(&mut self, status: &SearchStatus) {
        self.statuses.push(*status);
    }

    fn interval(&self) -> Duration {
        Duration::ZERO
    }
}

impl<T: SearchObserver + ?Sized> SearchObserver for &mut T {
    fn update(&mut self, status: &SearchStatus) {
        (**self).update(status);
    }

    fn interval(&self) -> Duration {
        (**self).interval()
    }
}

/// Follows a toolbox method's steps (see the module docs).
pub trait StepObserver {
    /// The method starts its search, at `step`.
    fn start(&mut self, step: &str);
    /// The method is at `step`.
    fn step(&mut self, step: &str);
    /// The method is done.
    fn finish(&mut self);
    /// `done` of the `total` units of the method's work are settled (Incognito: nodes of the
    /// lattice checked or ruled out below a success), for a bar with an ETA.
    fn work(&mut self, _done: u64, _total: u64) {}
}

impl StepObserver for () {
    fn start(&mut self, _: &str) {}
    fn step(&mut self, _: &str) {}
    fn finish(&mut self) {}
}

/// When the search last told its observer, for throttling.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Throttle {
    last: Option<Instant>,
}

impl Throttle {
    pub(crate) fn new() -> Throttle {
        Throttle { last: None }
    }

    /// True if a notice is due now, at most one per `interval` (and records it).
    pub(crate) fn due(&mut self, force: bool, interval: Duration) -> bool {
        let now = Instant::now();
        if force || self.last.is_none_or(|t| now.duration_since(t) >= interval) {
            self.last = Some(now);
            return true;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status() -> SearchStatus {
        SearchStatus {
            phase: Phase::Final,
            checks: 10,
            lattice_size: 100,
            queued: None,
            best_loss: Some(0.5),
            lower_bound: Some(0.25),
            work: None,
            elapsed: Duration::from_secs(4),
            phase_elapsed: Duration::from_secs(2),
            time_left: None,
            finished: false,
        }
    }

    #[test]
    fn eta_from_the_phase_rate_and_the_time_limit() {
        let mut s = status();
        assert_eq!(s.eta(), None);
        // 2 s for a quarter of the work: 6 s for the rest.
        s.work = Some((25, 100));
        assert_eq!(s.eta(), Some(Duration::from_secs(6)));
        // The time limit caps it.
        s.time_left = Some(Duration::from_secs(3));
        assert_eq!(s.eta(), Some(Duration::from_secs(3)));
        s.work = Some((0, 100));
        assert_eq!(s.eta(), Some(Duration::from_secs(3)));
        s.finished = true;
        assert_eq!(s.eta(), Some(Duration::ZERO));
    }

    #[test]
    fn throttle_lets_the_first_and_forced_notices_through() {
        let mut t = Throttle::new();
        assert!(t.due(false, NOTICE_INTERVAL));
        assert!(!t.due(false, NOTICE_INTERVAL));
        assert!(t.due(true, NOTICE_INTERVAL));
        assert!(t.due(false, Duration::ZERO));
    }
}
