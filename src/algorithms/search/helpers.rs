//! The search's other threads ([`Search::set_threads`], `-threads`). Every strategy decides
//! sequentially; other threads only evaluate ahead what it will check next, or share the work
//! of each check, and a result is recorded only when the sequential search asks for it:
//! - Flash's walk and BFS run [`Search::with_helpers`]: while the search's own checker
//!   checks the current transformation, a worker with a second checker evaluates the one the
//!   strategy names with [`Search::guess`] (Flash: the next path's first check, see
//!   [`crate::algorithms::lookahead`]) or [`Search::guess_two`] (BFS: the next two of a chain, see its
//!   module docs);
//! - on inputs of [`crate::check::TEAM_INPUT_ITEMS`] items and more, each check of the walk is
//!   split over a team of the threads instead ([`Checker::set_team`]: classes partitioned by
//!   the items' parts or by hash, the same classes in another order, and integer sums), and
//!   there is no lookahead worker. The team joins only once the walk has run for
//!   [`crate::check::TEAM_AFTER`] on its own thread: a search that ends within milliseconds
//!   never starts a thread nor lays the items out for a team (which costs as much as a few
//!   checks), and a longer one loses at most that much of the team's help;
//! - on inputs of [`crate::check::SPLIT_CHECK_ITEMS`] items and more, the other threads split
//!   each check from scratch ([`Checker::set_pool`]: the same classes in the same order);
//! - the final phase evaluates batches of candidates on all threads ([`Search::speculate`],
//!   see `final_phase`);
//! - OLA evaluates nothing ahead.
//!
//! A check's result depends only on the transformation, never on the checker's state, so a
//! result computed ahead is the one the search would compute; only the work counters of
//! [`CheckerStats`] other than `checks` (roll-ups, snapshots, items) and the time differ.
//!
//! The pool's threads start on first use (the lookahead worker, the team joining, the final
//! phase's batches), except on inputs whose checks split over them from the first check; only
//! then does the search itself run on the pool (see `algorithms::execute_observed`).

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use super::{Ahead, Search};
use crate::algorithms::lookahead::Lookahead;
use crate::check::{CheckResult, Checker, CheckerStats, Team};
use crate::lattice::{NodeId, PropertyStore};

/// The lookahead guesses only when the search's own checks take this long on average: shorter
/// checks (mostly roll-ups, as on ADULT without suppression) gain less from the worker than
/// the guesses' bookkeeping and the worker's checks from scratch cost.
const LOOKAHEAD_MIN_CHECK: Duration = Duration::from_micros(25);

/// Checks measured before the lookahead may guess.
const LOOKAHEAD_AFTER_CHECKS: u64 = 16;

/// The search's threads, the other checkers, and what they evaluated ahead.
pub(super) struct Helpers<'a> {
    /// Threads of the final phase (1: the search runs on the calling thread only).
    threads: usize,
    /// The pool of `threads` threads (with more than one), started on first use: the final
    /// phase's candidates, the lookahead worker, the team's helpers and the ranges of a large
    /// check from scratch ([`Checker::set_pool`]) run on it. The extra checkers (forks of the
    /// search's) are built on first use.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The checker splits its checks from scratch over the pool ([`Checker::set_pool`]).
    splits: bool,
    /// Within [`Search::with_helpers`] on an input a team serves: when the walk started, and
    /// the team once it has joined ([`Search::join_team_if_due`]).
    team: Option<TeamPlan>,
    workers: Vec<Checker<'a>>,
    /// Results evaluated ahead on other threads, recorded only when the sequential search
    /// checks their transformation.
    ready: FxHashMap<NodeId, CheckResult>,
    ahead: Ahead,
    /// The transformation the strategy will likely check after the next one
    /// ([`Search::guess`]), and the one after it ([`Search::guess_two`]).
    guess: Option<NodeId>,
    guess_after: Option<NodeId>,
    /// The lookahead worker's mailbox ([`Search::with_helpers`]) and what it is checking.
    lookahead: Option<Arc<Lookahead>>,
    in_flight: Option<NodeId>,
    /// Checks made by the search's own checker within [`Search::with_helpers`], and their
    /// time.
    own_checks: (u64, Duration),
    /// The strategy's checks are scattered over the lattice ([`Search::scatter_checks`]).
    scattered: bool,
    /// The checkers keep snapshots of valid transformations, and more of them
    /// ([`Search::expect_generalizations_of_valid`]).
    generalizations_of_valid: bool,
}

/// A team that joins the walk once it has run long enough (see the module docs).
struct TeamPlan {
    since: Instant,
    /// Checks made before the walk started.
    checks: u64,
    /// The team, once joined; shared with the guard that closes it however the walk ends.
    joined: Arc<OnceLock<Arc<Team>>>,
}

/// Closes the team of a walk, if one joined, when dropped (at the end of the walk, or when it
/// panics: the helpers must not wait for tasks forever).
struct CloseJoined(Arc<OnceLock<Arc<Team>>>);

impl Drop for CloseJoined {
    fn drop(&mut self) {
        if let Some(team) = self.0.get() {
            team.close();
        }
    }
}

impl Helpers<'_> {
    pub fn new() -> Self {
        Helpers {
            threads: 1,
            pool: None,
            splits: false,
            team: None,
            workers: Vec::new(),
            ready: FxHashMap::default(),
            ahead: Ahead::default(),
            guess: None,
            guess_after: None,
            lookahead: None,
            in_flight: None,
            own_checks: (0, Duration::ZERO),
            scattered: false,
            generalizations_of_valid: false,
        }
    }

    /// Checks evaluated ahead, and used.
    pub fn ahead(&self) -> Ahead {
        self.ahead
    }
}

impl<'a, S: PropertyStore> Search<'a, S> {
    /// Lets the final phase ([`Search::optimize_remaining`]) and large checks from scratch run
    /// on `threads` threads (at least 1). The result does not depend on it (see the module
    /// docs).
    pub fn set_threads(&mut self, threads: usize) {
        let h = &mut self.helpers;
        h.threads = threads.max(1);
        h.pool = None;
        // Checks from scratch of a huge input split over the pool from the first one: its
        // threads start now. Elsewhere they start on first use (see the module docs).
        h.splits = self.checker.would_split(h.threads);
        if h.splits {
            h.pool = pool_of(h.threads);
            h.splits = h.pool.is_some();
        }
        self.checker
            .set_pool(h.pool.clone().filter(|_| self.helpers.splits));
    }

    /// The pool of the search's threads if they are started already: from the start when the
    /// checker splits its checks over them (the search then runs on the pool), else none.
    pub fn pool(&self) -> Option<Arc<rayon::ThreadPool>> {
        self.helpers.pool.clone()
    }

    /// The pool of the search's threads, started now if need be (none with one thread, or if
    /// the threads cannot be started).
    fn started_pool(&mut self) -> Option<Arc<rayon::ThreadPool>> {
        let h = &mut self.helpers;
        if h.pool.is_none() && h.threads > 1 {
            h.pool = pool_of(h.threads);
        }
        h.pool.clone()
    }

    /// Threads the search may use (see [`Search::set_threads`]).
    pub fn threads(&self) -> usize {
        self.helpers.threads
    }

    /// Runs `strategy` with the search's other threads helping, when it has more than one:
    /// - inputs of [`crate::check::SPLIT_CHECK_ITEMS`] items and more: each check from scratch
    ///   splits over the pool ([`Checker::set_pool`]);
    /// - from [`crate::check::TEAM_INPUT_ITEMS`] items ([`Checker::prefers_team`]): each
    ///   check splits over a team of the pool's threads ([`Checker::set_team`]), once the
    ///   strategy has run for [`crate::check::TEAM_AFTER`] ([`Search::join_team_if_due`]);
    /// - below: a lookahead worker ([`crate::algorithms::lookahead`]) evaluates ahead what the strategy
    ///   names ([`Search::guess`]).
    pub fn with_helpers(&mut self, strategy: impl FnOnce(&mut Self)) {
        if self.helpers.threads <= 1 || self.helpers.splits {
            return strategy(self);
        }
        if self.checker.prefers_team() {
            let joined: Arc<OnceLock<Arc<Team>>> = Arc::default();
            self.helpers.team = Some(TeamPlan {
                since: Instant::now(),
                checks: self.checks(),
                joined: joined.clone(),
            });
            {
                // Closed however the strategy ends (as the lookahead below).
                let _close = CloseJoined(joined.clone());
                self.join_team_if_due();
                strategy(self);
            }
            self.helpers.team = None;
            if joined.get().is_some() {
                self.checker.set_team(None);
            }
            return;
        }
        let Some(pool) = self.started_pool() else {
            return strategy(self);
        };
        self.add_workers();
        let mut worker = self.helpers.workers.remove(0);
        let lookahead = Arc::new(Lookahead::new());
        self.helpers.lookahead = Some(lookahead.clone());
        pool.in_place_scope(|scope| {
            scope.spawn(|_| lookahead.serve(&mut worker));
            // Closed however the strategy ends: a panic must not leave the scope waiting for a
            // worker that waits for requests.
            let _close = lookahead.closer();
            strategy(self);
        });
        // The worker has ended: a request it never started has no answer.
        self.harvest(false);
        self.helpers.lookahead = None;
        self.helpers.in_flight = None;
        self.helpers.workers.insert(0, worker);
    }

    /// Within [`Search::with_helpers`] on an input a team serves, lets the team join once the
    /// strategy has run for [`crate::check::TEAM_AFTER`] (and made
    /// [`crate::check::CheckerConfig::team_after_checks`] checks): starts the pool, lays the
    /// items out for the team (the checker's classes and snapshots of the former order are
    /// dropped, see [`Checker::set_team`]) and hands each helper to a pool thread. The search's
    /// results do not depend on when, or whether, it joins (see the module docs).
    pub(super) fn join_team_if_due(&mut self) {
        let Some(plan) = &self.helpers.team else {
            return;
        };
        let config = self.checker.config();
        if plan.joined.get().is_some()
            || self.checks() - plan.checks < config.team_after_checks
            || plan.since.elapsed() < config.team_after
        {
            return;
        }
        let joined = plan.joined.clone();
        let Some(pool) = self.started_pool() else {
            self.helpers.team = None;
            return;
        };
        let team = Arc::new(Team::new(self.helpers.threads - 1));
        // Set before the helpers start, so that the guard closes the team whatever happens.
        let _ = joined.set(team.clone());
        for i in 0..team.parts() - 1 {
            let team = team.clone();
            pool.spawn(move || team.serve(i));
        }
        self.checker.set_team(Some(team));
    }

    /// True within [`Search::with_helpers`] once the search's own checks take long enough
    /// on average for a worker to pay ([`LOOKAHEAD_MIN_CHECK`]): guesses are used.
    pub fn looking_ahead(&self) -> bool {
        let (n, time) = self.helpers.own_checks;
        self.helpers.lookahead.is_some()
            && n >= LOOKAHEAD_AFTER_CHECKS
            && time >= LOOKAHEAD_MIN_CHECK * n as u32
    }

    /// Tells the search which transformation the strategy will likely check after the next
    /// one (Flash: the first check of the next path). Within [`Search::with_helpers`], the
    /// next [`Search::check`] that checks hands it to the lookahead worker first, if the
    /// worker is idle; its result is recorded only if the strategy does check it (see the
    /// module docs). The guess is dropped at the next check, used or not.
    pub fn guess(&mut self, id: NodeId) {
        self.guess_two(id, None);
    }

    /// [`Search::guess`] `next`, and name the one likely checked after it: when the next
    /// check is served by a result the worker computed, the search's thread checks `next`
    /// itself and the worker takes `after` meanwhile (posting `next` then made the search
    /// wait for the worker on it instead). BFS's guesses come in chains (a maximal sweep's
    /// raises, a path's binary search), which pairs keep both threads on.
    pub fn guess_two(&mut self, next: NodeId, after: Option<NodeId>) {
        if self.looking_ahead() {
            self.helpers.guess = Some(next);
            self.helpers.guess_after = after;
        }
    }

    /// True if the lookahead worker has nothing to do (its last result, if any, is
    /// collected): a guess now would be taken at the next check.
    pub fn lookahead_idle(&mut self) -> bool {
        self.harvest(false);
        self.looking_ahead() && self.helpers.in_flight.is_none()
    }

    /// True if a guess made now, for the check of `id`, could go to the lookahead worker: it
    /// is idle, or busy with `id` itself (the check waits for it), and guesses are used.
    pub fn lookahead_free_at(&mut self, id: NodeId) -> bool {
        self.harvest(false);
        let in_flight = self.helpers.in_flight;
        self.looking_ahead() && (in_flight.is_none() || in_flight == Some(id))
    }

    /// True if evaluating `id` ahead can serve the search: it is neither checked nor
    /// evaluated nor under way, not resolved, and (with pruning) not excluded by its level
    /// bound.
    pub fn worth_evaluating(&self, id: NodeId) -> bool {
        let h = &self.helpers;
        if self.is_checked(id)
            || h.ready.contains_key(&id)
            || h.in_flight == Some(id)
            || self.resolved(id)
        {
            return false;
        }
        !self.bound_excludes(id)
    }

    /// The guess for the next check, taken (see [`Search::guess`]).
    pub(super) fn take_guess(&mut self) -> Option<NodeId> {
        self.helpers.guess.take()
    }

    /// Before the search checks `id` itself: collects the worker's result (waiting for it if
    /// it is `id`'s) and returns the result evaluated ahead for `id`, if any, handing the
    /// guess after it to the worker; else hands `guess` to the worker.
    pub(super) fn take_evaluated_ahead(
        &mut self,
        id: NodeId,
        guess: Option<NodeId>,
    ) -> Option<CheckResult> {
        self.harvest(self.helpers.in_flight == Some(id));
        let cutoff = self.loss_cutoff();
        let after = self.helpers.guess_after.take();
        if let Some(r) = self.helpers.ready.remove(&id) {
            self.helpers.ahead.used += 1;
            // The search's thread checks the next one itself: the worker takes the one after.
            if let Some(g) = after {
                self.post(g, id, cutoff);
            }
            return Some(r);
        }
        if let Some(g) = guess {
            self.post(g, id, cutoff);
        }
        None
    }

    /// When the search's own checker starts a check: the time, if the lookahead measures it.
    pub(super) fn own_check_started(&self) -> Option<Instant> {
        self.helpers.lookahead.is_some().then(Instant::now)
    }

    /// After the search's own checker's check (started at `started`, see
    /// [`Self::own_check_started`]): counts its time, and offers the classes it kept to the
    /// lookahead worker.
    pub(super) fn own_check_done(&mut self, started: Option<Instant>) {
        let h = &mut self.helpers;
        if let Some(t) = started {
            h.own_checks.0 += 1;
            h.own_checks.1 += t.elapsed();
        }
        if let (Some(l), Some(kept)) = (&h.lookahead, self.checker.kept()) {
            l.offer(kept);
        }
    }

    /// Hands the guess `g` to the lookahead worker if it is idle and `g` is worth evaluating
    /// (and is not `id`, which the search is about to check or take).
    fn post(&mut self, g: NodeId, id: NodeId, cutoff: Option<f64>) {
        let idle = self.helpers.lookahead.clone().filter(|l| l.idle());
        if let Some(l) = idle.filter(|_| g != id && self.worth_evaluating(g)) {
            l.post(g, self.space().levels(g), cutoff);
            self.helpers.in_flight = Some(g);
        }
    }

    /// Moves the lookahead worker's result, if it has one, to the results computed ahead;
    /// with `wait`, waits for the one in flight.
    fn harvest(&mut self, wait: bool) {
        let h = &mut self.helpers;
        if h.in_flight.is_none() {
            return;
        }
        let Some(l) = &h.lookahead else {
            return;
        };
        match l.take(wait) {
            Some((g, r, classes)) => {
                h.ahead.evaluated += 1;
                h.ready.insert(g, r);
                h.in_flight = None;
                if let Some(c) = classes {
                    let finished = self.state.finished();
                    self.checker.adopt(c, &finished);
                }
            }
            // Withdrawn (see `Lookahead::take`), or still running.
            None if wait || l.idle() => h.in_flight = None,
            None => {}
        }
    }

    /// Makes sure there is one checker per thread: this search's own and `threads - 1`
    /// forks of it (shared encoding, own tables and history, whose bytes they share), with
    /// the search's history settings.
    fn add_workers(&mut self) {
        let h = &mut self.helpers;
        if h.threads <= 1 || h.workers.len() + 1 >= h.threads {
            return;
        }
        if h.workers.is_empty() {
            self.checker.split_history(h.threads);
        }
        while h.workers.len() + 1 < h.threads {
            let mut w = self.checker.fork();
            if h.generalizations_of_valid {
                w.set_store_anonymous(true);
                w.scale_history(5);
            }
            if h.scattered {
                w.set_scattered();
            }
            w.split_history(h.threads);
            h.workers.push(w);
        }
    }

    /// For searches that check generalizations of valid transformations too, in bound order
    /// rather than along paths (the final phase, BFS with a non-monotonic metric or models):
    /// the checkers keep snapshots of valid transformations, and more of them (five times as
    /// many: far fewer checks from scratch where this applies).
    pub fn expect_generalizations_of_valid(&mut self) {
        self.helpers.generalizations_of_valid = true;
        for c in std::iter::once(&mut self.checker).chain(&mut self.helpers.workers) {
            c.set_store_anonymous(true);
            c.scale_history(5);
        }
    }

    /// For strategies whose checks jump around the lattice instead of walking up paths (BFS):
    /// the checkers keep their snapshots accordingly ([`Checker::set_scattered`]).
    pub fn scatter_checks(&mut self) {
        self.helpers.scattered = true;
        self.checker.set_scattered();
        for w in &mut self.helpers.workers {
            w.set_scattered();
        }
    }

    /// Checks `ids` on the pool's threads (one checker per thread: this search's own and
    /// forks of it) without recording anything: the results, in the order of `ids`. The
    /// callers merge them in their sequential order (see `final_phase`).
    fn evaluate(&mut self, ids: &[NodeId]) -> Vec<CheckResult> {
        let pool = self.started_pool();
        self.add_workers();
        let cutoff = self.loss_cutoff();
        self.checker.set_loss_cutoff(cutoff);
        for w in &mut self.helpers.workers {
            w.set_loss_cutoff(cutoff);
        }
        // The candidates keep every thread busy: no check splits (see `Checker::set_pool`).
        self.checker.set_pool(None);
        let space = self.state.space();
        let finished = self.state.finished();
        let checkers: Vec<std::sync::Mutex<&mut Checker<'a>>> = std::iter::once(&mut self.checker)
            .chain(self.helpers.workers.iter_mut())
            .map(std::sync::Mutex::new)
            .collect();
        let run = |id: &NodeId| {
            // Each pool thread uses its own checker: the lock is never contended.
            let t = rayon::current_thread_index().unwrap_or(0) % checkers.len();
            let mut checker = crate::sync::lock(&checkers[t]);
            let levels = space.levels(*id);
            checker.check(&levels, &finished)
        };
        let results = match &pool {
            Some(pool) => pool.install(|| {
                use rayon::prelude::*;
                ids.par_iter().with_max_len(1).map(run).collect()
            }),
            None => ids.iter().map(run).collect(),
        };
        drop(checkers);
        self.checker.set_pool(pool.filter(|_| self.helpers.splits));
        results
    }

    /// With more than one thread: evaluates in parallel the transformations of `ids` that are
    /// neither checked nor evaluated already, and keeps their results for [`Search::check`],
    /// which records one only when the sequential search asks for it. A strategy passes what
    /// it will (or likely will) check next; a guess that the search never asks for is work
    /// wasted on an otherwise idle thread, never a change of the result, the counts or the
    /// order (see the module docs). Does nothing on one thread.
    pub(super) fn speculate(&mut self, ids: &[NodeId]) {
        if self.helpers.threads <= 1 {
            return;
        }
        let mut fresh: Vec<NodeId> = Vec::with_capacity(ids.len());
        for &id in ids {
            if !self.is_checked(id) && !self.helpers.ready.contains_key(&id) && !fresh.contains(&id)
            {
                fresh.push(id);
            }
        }
        if fresh.len() < 2 {
            return; // nothing to run beside the search's own next check
        }
        let rs = self.evaluate(&fresh);
        self.helpers.ahead.evaluated += fresh.len() as u64;
        self.helpers.ready.extend(fresh.into_iter().zip(rs));
    }

    /// Which rows the transformation `levels` suppresses (outlier classes). Called when the
    /// search is over: frees the checkers' buffers first (see [`Checker::free_buffers`]). A
    /// checked transformation that suppresses no record has no outlier row: nothing is grouped
    /// again (every search without suppression, and most short ones).
    pub fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool> {
        let id = self.space().id(levels);
        if self.result(id).is_some_and(|r| r.suppressed == 0) {
            return vec![false; self.checker.rows()];
        }
        self.checker.free_buffers();
        for w in &mut self.helpers.workers {
            w.free_buffers();
        }
        self.checker.outlier_rows(levels)
    }

    /// The work counters of every thread's checker, summed; `checks` counts each transformation
    /// once (a check another thread made in vain, whose candidate the sequential order had
    /// pruned meanwhile, is not counted), so it is the same for every number of threads.
    pub(super) fn stats(&self) -> CheckerStats {
        let mut t = self.checker.stats().clone();
        for w in &self.helpers.workers {
            t.add(w.stats());
        }
        t.checks = self.checks();
        t
    }
}

/// The process's pool of `threads` threads, built on first use and kept for later searches
/// (starting the threads costs a noticeable share of a short search); `None` if the threads
/// cannot be started.
fn pool_of(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    type Pools = std::sync::Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>>;
    static POOLS: std::sync::OnceLock<Pools> = std::sync::OnceLock::new();
    let mut pools = crate::sync::lock(POOLS.get_or_init(Default::default));
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(p.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .ok()
        .map(Arc::new)?;
    pools.push((threads, pool.clone()));
    Some(pool)
}
