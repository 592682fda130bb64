//! What the search tells about itself: to its observer while it runs ([`crate::algorithms::observe`]:
//! phase, work, frontier, throttled notices) and, in its outcome, its figures (checks per
//! [`Purpose`], tag hits, when the first valid and the best transformation were found).

use std::time::Instant;

use super::{Purpose, PurposeCount, Search, SearchOutcome};
use crate::algorithms::observe::{Phase, SearchObserver, SearchStatus, Throttle};
use crate::lattice::PropertyStore;

/// The observer and the search's figures.
pub(super) struct Telemetry<'a> {
    /// Who hears about the search's progress, and when it last did.
    observer: Option<Box<dyn SearchObserver + 'a>>,
    throttle: Throttle,
    started: Instant,
    phase: Phase,
    phase_started: Instant,
    /// The current phase's work known in advance (done, total).
    work: Option<(u64, u64)>,
    /// The strategy's lower bound of what is unexplored, and BFS's queue length.
    frontier: Option<f64>,
    queued: Option<u64>,
    /// The purpose the current checks count for, and the counts.
    purpose: Purpose,
    purposes: [PurposeCount; 4],
    tag_hits: u64,
    /// Seconds from the start to the first valid transformation, and to the best.
    first_valid: Option<f64>,
    best_found: Option<f64>,
}

impl Telemetry<'_> {
    pub fn new(started: Instant) -> Self {
        Telemetry {
            observer: None,
            throttle: Throttle::new(),
            started,
            phase: Phase::Classify,
            phase_started: Instant::now(),
            work: None,
            frontier: None,
            queued: None,
            purpose: Purpose::Classification,
            purposes: [PurposeCount::default(); 4],
            tag_hits: 0,
            first_valid: None,
            best_found: None,
        }
    }

    /// Checks per purpose (in [`Purpose::ALL`]'s order).
    pub fn purposes(&self) -> [PurposeCount; 4] {
        self.purposes
    }

    pub fn tag_hits(&self) -> u64 {
        self.tag_hits
    }

    pub fn first_valid(&self) -> Option<f64> {
        self.first_valid
    }

    pub fn best_found(&self) -> Option<f64> {
        self.best_found
    }
}

impl<'a, S: PropertyStore> Search<'a, S> {
    /// Lets `observer` follow the search ([`crate::algorithms::observe`]).
    pub fn set_observer(&mut self, observer: Box<dyn SearchObserver + 'a>) {
        self.telemetry.observer = Some(observer);
    }

    /// The search's progress now.
    pub fn status(&self) -> SearchStatus {
        let t = &self.telemetry;
        let now = Instant::now();
        let best = self.best().map(|(_, loss)| loss);
        SearchStatus {
            phase: t.phase,
            checks: self.checks(),
            lattice_size: self.space().size(),
            queued: t.queued,
            best_loss: best,
            lower_bound: t.frontier.map(|f| best.map_or(f, |b| b.min(f))),
            work: t.work,
            elapsed: now.duration_since(t.started),
            phase_elapsed: now.duration_since(t.phase_started),
            time_left: self
                .limits
                .deadline()
                .map(|d| d.saturating_duration_since(now)),
            finished: false,
        }
    }

    /// Starts a phase of the search (for the observer).
    pub fn enter_phase(&mut self, phase: Phase) {
        let t = &mut self.telemetry;
        t.phase = phase;
        t.phase_started = Instant::now();
        t.work = None;
        t.frontier = None;
        t.queued = None;
        self.notify(true);
    }

    /// The strategy's smallest bound of what it left unexplored, and (BFS) its queue length,
    /// for the observer.
    pub fn report_frontier(&mut self, bound: f64, queued: Option<u64>) {
        if self.telemetry.observer.is_some() {
            self.telemetry.frontier = Some(bound);
            self.telemetry.queued = queued;
            self.notify(false);
        }
    }

    /// Work of the current phase: `done` of `total` steps, for the observer.
    pub(super) fn report_work(&mut self, done: u64, total: u64) {
        if self.telemetry.observer.is_some() {
            self.telemetry.work = Some((done, total));
            self.notify(false);
        }
    }

    /// Tells the observer the final status: `out`'s figures (the last notice).
    pub fn finish_observing(&mut self, out: &SearchOutcome) {
        if self.telemetry.observer.is_none() {
            return;
        }
        let mut status = SearchStatus {
            finished: true,
            lower_bound: out.lower_bound,
            ..self.status()
        };
        if out.proven_optimal {
            status.queued = status.queued.map(|_| 0);
        }
        if let Some(o) = &mut self.telemetry.observer {
            o.update(&status);
        }
    }

    /// Tells the observer the status if a notice is due (see [`Throttle`]).
    pub(super) fn notify(&mut self, force: bool) {
        let t = &mut self.telemetry;
        let Some(interval) = t.observer.as_ref().map(|o| o.interval()) else {
            return;
        };
        if !t.throttle.due(force, interval) {
            return;
        }
        let status = self.status();
        if let Some(o) = &mut self.telemetry.observer {
            o.update(&status);
        }
    }

    /// Sets the purpose the following checks count for.
    pub fn set_purpose(&mut self, purpose: Purpose) {
        self.telemetry.purpose = purpose;
    }

    /// The purpose the current checks count for.
    pub(super) fn purpose(&self) -> Purpose {
        self.telemetry.purpose
    }

    /// Counts a transformation the strategy skipped because a tag resolved it.
    pub fn count_tag_hit(&mut self) {
        self.telemetry.tag_hits += 1;
    }

    /// Counts a check recorded for the current purpose.
    pub(super) fn count_check(&mut self, valid: bool) {
        let t = &mut self.telemetry;
        let counter = &mut t.purposes[t.purpose as usize];
        counter.checks += 1;
        counter.valid += u64::from(valid);
    }

    /// Notes the time a better valid transformation was found (the first one too).
    pub(super) fn found_best(&mut self) {
        let t = &mut self.telemetry;
        let at = t.started.elapsed().as_secs_f64();
        t.first_valid.get_or_insert(at);
        t.best_found = Some(at);
    }
}
