//! When the search must stop ([`Limit`], `-timeLimit`), and what a stopped search reports.
//!
//! Strategies ask [`Search::out_of_time`] before each check and [`Search::tick`] at each step of
//! a walk that checks nothing (a level of resolved transformations, the final phase's listing),
//! so no phase runs past the deadline by more than a few steps; what a stopped search computes
//! afterwards is bounded too (its lower bound, [`Search::unexplored_bound`]; the top, when
//! nothing valid was found, [`Search::fall_back_to_top`]).

use std::time::{Duration, Instant};

use super::{Purpose, Queued, Search};
use crate::check::Classification;
use crate::lattice::{prop, NodeId, PropertyStore};
use crate::sync::Stop;

/// When a search must stop: a wall-clock deadline, a number of checks (for tests), a flag the
/// caller raises (an interrupted library call), or any of them. A stopped search keeps its
/// best valid transformation and reports a lower bound.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Limit {
    pub deadline: Option<Instant>,
    pub max_checks: Option<u64>,
    pub stop: Option<Stop>,
}

impl Limit {
    /// True once the deadline has passed or the flag was raised.
    fn reached(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
            || self.stop.as_ref().is_some_and(Stop::raised)
    }
}

/// Excluded transformations [`Search::unexplored_bound`] passes at most before it settles for
/// the bound it has reached.
const UNEXPLORED_STEPS: u64 = 1 << 20;

/// Steps between two readings of the clock in [`Search::tick`] (a reading costs no more than a
/// step).
const TICKS: u32 = 256;

/// Queued transformations [`Search::unexplored_bound`] holds at most (16 bytes each).
const UNEXPLORED_QUEUE: usize = 1 << 20;

/// With a deadline, the time [`Search::unexplored_bound`] takes at most past it.
const UNEXPLORED_TIME: Duration = Duration::from_millis(300);

/// The search's limit and whether it stopped at it.
pub(super) struct Limits {
    limit: Limit,
    /// When the search started.
    started: Instant,
    /// Steps of walks that check nothing, since the clock was last read ([`Search::tick`]).
    ticks: u32,
    /// Set when the search stopped at its limit; the bound of what it left unexplored, if known
    /// (see [`Search::stop_with_bound`]).
    stopped: Option<Option<f64>>,
}

impl Limits {
    pub fn new(started: Instant) -> Limits {
        Limits {
            limit: Limit::default(),
            started,
            ticks: 0,
            stopped: None,
        }
    }

    /// The deadline, if the search has one.
    pub fn deadline(&self) -> Option<Instant> {
        self.limit.deadline
    }
}

impl<S: PropertyStore> Search<'_, S> {
    /// Sets when the search must stop (see [`Limit`]); the deadline and the flag are read at
    /// the same places.
    pub fn set_limit(&mut self, limit: Limit) {
        self.limits.limit = limit;
    }

    /// True if the search has reached its limit, or stopped at it earlier. Strategies ask before
    /// each step and return when it says so; the first positive answer marks the search as
    /// stopped (not proven).
    pub fn out_of_time(&mut self) -> bool {
        if self.limits.stopped.is_some() {
            return true;
        }
        let checks = self.checks();
        let limit = &self.limits.limit;
        let over = limit.max_checks.is_some_and(|m| checks >= m) || limit.reached();
        if over {
            self.limits.stopped = Some(None);
        }
        over
    }

    /// For walks over transformations that check nothing (a lattice level, the final phase's
    /// candidates), called once per step: true once the deadline has passed, which stops the
    /// search as [`Search::out_of_time`] does. The clock is read every [`TICKS`] steps; the
    /// limit on checks is left to `out_of_time`, asked before each check.
    pub fn tick(&mut self) -> bool {
        let l = &mut self.limits;
        if l.stopped.is_some() {
            return true;
        }
        l.ticks += 1;
        if l.ticks < TICKS {
            return false;
        }
        l.ticks = 0;
        let over = l.limit.reached();
        if over {
            l.stopped = Some(None);
        }
        over
    }

    /// After the strategy: if it stopped at its limit before any valid transformation was
    /// found, checks the top (every quasi-identifier at its hierarchy's top), the release that
    /// generalizes most, valid whenever anything is with monotonic models. One check past the
    /// limit, a pass over the distinct tuples (not past a limit on checks). If the top is not
    /// valid and the classification is exact, nothing is: the search is then proven (nothing
    /// to release).
    pub fn fall_back_to_top(&mut self) {
        // A limit on checks (tests) is kept to the letter.
        let counted = self
            .limits
            .limit
            .max_checks
            .is_some_and(|m| self.checks() >= m);
        if !self.stopped() || self.best().is_some() || counted {
            return;
        }
        let top = self.space().top();
        self.set_purpose(Purpose::Seed);
        let r = self.check_last(top);
        if !r.anonymous && self.classification() == Classification::Exact {
            self.limits.stopped = None;
        }
    }

    /// True if the search has a deadline and has used at least `share` of the time to it (a
    /// strategy can leave the rest of the time to another phase).
    pub fn past_share(&self, share: f64) -> bool {
        let started = self.limits.started;
        self.limits.limit.deadline.is_some_and(|d| {
            let total = d.saturating_duration_since(started).as_secs_f64();
            started.elapsed().as_secs_f64() >= share * total
        })
    }

    /// True if the search stopped at its limit.
    pub fn stopped(&self) -> bool {
        self.limits.stopped.is_some()
    }

    /// Records the smallest lower bound of what a stopped strategy left unexplored (BFS knows it
    /// from its queue). Without it, [`Search::outcome`] computes one by enumerating the space.
    pub fn stop_with_bound(&mut self, bound: f64) {
        self.limits.stopped = Some(Some(bound));
    }

    /// No transformation loses less than this: the best loss when the search is proven, else
    /// the smallest lower bound of what was left unexplored (or the best loss, if smaller).
    /// `None` when nothing valid is known and nothing bounds the rest (see
    /// [`super::SearchOutcome::lower_bound`]).
    pub(super) fn lower_bound(&self) -> Option<f64> {
        let best = self.best().map(|(_, loss)| loss);
        match self.limits.stopped {
            None => best,
            Some(frontier) => {
                let rest = frontier.unwrap_or_else(|| self.unexplored_bound());
                Some(best.map_or(rest, |b| b.min(rest))).filter(|b| b.is_finite())
            }
        }
    }

    /// The smallest level bound of every transformation not checked and not excluded (invalid,
    /// or pruned by a bound): no unexplored transformation loses less.
    ///
    /// Best-first from the bottom in ascending level bound, generating each transformation once
    /// from its canonical generator as BFS does (bounds only grow along generalization): the
    /// first transformation taken that is neither checked nor excluded has the smallest bound.
    /// After [`UNEXPLORED_STEPS`] excluded ones, with [`UNEXPLORED_QUEUE`] queued or, with a
    /// deadline, after [`UNEXPLORED_TIME`], the bound reached bounds everything not yet
    /// taken, and is returned (a weaker, still true bound); so it is once the stop flag is up. Enumerating the space instead took
    /// time in proportion to the lattice, far past any deadline on large ones.
    fn unexplored_bound(&self) -> f64 {
        let space = self.space();
        let mut levels = vec![0; space.dims()];
        let mut bound = |id: NodeId| {
            space.levels_into(id, &mut levels);
            self.checker.metric().level_bound(&levels)
        };
        let bottom = space.bottom();
        let mut queue = std::collections::BinaryHeap::new();
        queue.push(Queued(bound(bottom), bottom));
        let mut steps = 0;
        let until = self
            .limits
            .limit
            .deadline
            .map(|_| Instant::now() + UNEXPLORED_TIME);
        while let Some(Queued(low, id)) = queue.pop() {
            let excluded = self.is_checked(id) || self.has(id, prop::NOT_ANONYMOUS | prop::PRUNED);
            let enough = steps >= UNEXPLORED_STEPS
                || queue.len() >= UNEXPLORED_QUEUE
                || (steps % u64::from(TICKS) == 0
                    && (until.is_some_and(|u| Instant::now() >= u)
                        || self.limits.limit.stop.as_ref().is_some_and(Stop::raised)));
            if !excluded || enough {
                return low;
            }
            steps += 1;
            for up in space.children(id) {
                queue.push(Queued(bound(up), up));
            }
        }
        f64::INFINITY
    }
}
