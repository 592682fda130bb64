//! The shared frame of the lattice searches (Flash, OLA, exhaustive, best-first): a [`Search`]
//! owns the implicit [`Space`], a [`PropertyStore`] of predictive properties and the checker; it
//! caches results, applies predictive tagging when the privacy models are monotonic, prunes by
//! lower bounds, and keeps the best valid transformation seen. The strategies only decide which
//! transformation to look at next, through [`Search::check`], [`Search::decide`] and the
//! property queries; they never see rows.
//!
//! `Search` is generic over the store: [`Dense`] (one byte per transformation, the default) for
//! spaces up to [`super::DENSE_LIMIT`], [`crate::lattice::Antichain`] for any size. Whether a
//! transformation was checked, and single-node verdicts when nothing may be tagged
//! ([`Classification::None`]), come from the result cache, not the store.
//!
//! Tagging follows the checker's [`Classification`]: anonymity itself when the privacy models are
//! monotonic, else their monotonic relaxation (e.g. distinct l-diversity for entropy
//! l-diversity with suppression): a transformation failing it, and every specialization, is
//! invalid; one passing it is only possibly valid, so the final phase checks what is left.
//!
//! Pruning (opt-in, [`Search::enable_pruning`]; Flash uses it): the metrics' lower bounds are
//! monotonic along generalization, so a transformation whose bound reaches the best loss so far
//! cannot lead anywhere better, and neither can its generalizations. Such up-sets are tagged
//! [`prop::PRUNED`] without being checked: by the level bound before a check
//! ([`Search::decide`]), or by the class bound of a checked transformation (at once, or when the
//! best loss later improves). A pruned node counts as resolved for the search, like a tag.
//!
//! Global optimality. With a metric that is monotonic under the suppression setting (DM*,
//! Height, or any metric when nothing may be suppressed) the optimum is a minimal anonymous
//! transformation; every such transformation is explicitly checked (nothing can tag it
//! anonymous) unless pruned, so the best checked one is optimal. Otherwise a generalization can
//! lose less (fewer suppressed records), and [`Search::optimize_remaining`] evaluates every
//! transformation that is not known to be invalid and not excluded by a proven lower bound:
//! - metrics with a bound from the levels alone (Precision, Loss, Entropy) are visited in
//!   ascending order of the bound, stopping at the first bound >= the best loss;
//! - metrics with a bound from a checked transformation's classes, valid for all its
//!   generalizations (DM, AECS) are visited bottom-up, each transformation inheriting the largest
//!   bound of its direct specializations.
//!
//! Above [`super::DENSE_LIMIT`] transformations neither list fits: the candidates are walked
//! best-first from the bottom instead ([`Search::best_first_remaining`]).
//!
//! Limits ([`Limit`], `-timeLimit`). Strategies ask [`Search::out_of_time`] before each check
//! and [`Search::tick`] at each step of a walk that checks nothing (a level of resolved
//! transformations, the final phase's listing), so no phase runs past the deadline by more than
//! a few steps; what a stopped search computes afterwards is bounded too (its lower bound,
//! [`Search::unexplored_bound`]; the top, when nothing valid was found,
//! [`Search::fall_back_to_top`]).
//!
//! Threads ([`Search::set_threads`], `-threads`). Every strategy decides sequentially; other
//! threads only evaluate ahead what it will check next, or share the work of each check, and a
//! result is recorded only when the sequential search asks for it:
//! - Flash's walk and BFS run [`Search::with_helpers`]: while the search's own checker
//!   checks the current transformation, a worker with a second checker evaluates the one the
//!   strategy names with [`Search::guess`] (Flash: the next path's first check, see
//!   [`super::lookahead`]) or [`Search::guess_two`] (BFS: the next two of a chain, see its
//!   module docs);
//! - on inputs of [`crate::check::TEAM_INPUT_ITEMS`] items and more, each check of the walk is
//!   split over a team of the threads instead
//!   ([`Checker::set_team`]: classes partitioned by the items' parts or by hash, the same
//!   classes in another order, and integer sums), and there is no lookahead worker;
//! - on inputs of [`crate::check::SPLIT_CHECK_ITEMS`] items and more, the other threads split
//!   each check from scratch ([`Checker::set_pool`]: the same classes in the same order);
//! - OLA evaluates nothing ahead.
//!
//! The final phase takes the next batch of
//! candidates in its sequential order (bound order; bottom-up within one level, whose inherited
//! bounds come from lower levels and are final) that the current best loss does not exclude,
//! checks them on a dedicated rayon pool, one checker per thread ([`Checker::fork`]: shared
//! encoding, own tables and history), and then walks the batch in the sequential order again,
//! deciding each candidate exactly as one thread would (a bound beaten by a loss found earlier in
//! the batch is pruned and its early result never recorded) and recording the results it keeps. A
//! check's result depends only on the transformation, never on the checker's state, and the
//! best loss, tags, pruning, tie-breaking (first strictly smaller loss in that order) and the
//! count of checks all come from the sequential walk, so the optimum, the counts and the report
//! are the same for every number of threads; only the work counters of [`CheckerStats`] other
//! than `checks` (roll-ups, snapshots, items) and the time differ.

use rustc_hash::FxHashMap;

use super::lookahead::Lookahead;
use super::observe::{Phase, SearchObserver, SearchStatus, Throttle};
use crate::check::{CheckResult, Checker, CheckerConfig, CheckerStats, Classification};
use crate::data::EncodedTable;
use crate::hierarchy::Hierarchy;
use crate::lattice::{prop, Dense, NodeId, PropertyStore, Space, StoreSizes};
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;
use crate::{Error, Result};

/// The optimal transformation found.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimum {
    /// Levels, one per quasi-identifier.
    pub levels: Vec<usize>,
    pub loss: f64,
    /// Records suppressed (outlier classes).
    pub suppressed: u64,
    /// Equivalence classes, suppressed records excluded.
    pub classes: u64,
}

/// Why a strategy checks a transformation; the report counts checks per purpose (`checks_by_purpose`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A first valid transformation (BFS: binary search on one path).
    Seed,
    /// Improving the best by local moves (BFS's iterated local search).
    LocalSearch,
    /// Classifying transformations as anonymous or not (Flash's and OLA's walks, BFS's paths).
    Classification,
    /// Candidates checked for their loss (BFS's queue, the final phase of Flash and OLA).
    Candidates,
}

impl Purpose {
    pub const ALL: [Purpose; 4] = [
        Purpose::Seed,
        Purpose::LocalSearch,
        Purpose::Classification,
        Purpose::Candidates,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Purpose::Seed => "seed",
            Purpose::LocalSearch => "local_search",
            Purpose::Classification => "classification",
            Purpose::Candidates => "candidates",
        }
    }
}

/// Checks of one [`Purpose`] and how many of them were valid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PurposeCount {
    pub checks: u64,
    pub valid: u64,
}

/// What a search returns.
#[derive(Debug, Clone)]
pub struct SearchOutcome {
    /// `None` if no transformation satisfies the privacy models within the budget.
    pub optimum: Option<Optimum>,
    /// Transformations checked.
    pub checks: u64,
    pub lattice_size: u64,
    pub stats: CheckerStats,
    /// The property store that was used ("dense", "antichain") and what it holds at the end.
    pub store: &'static str,
    pub store_sizes: StoreSizes,
    /// The search ran to its end: the optimum is proven (or nothing is valid).
    pub proven_optimal: bool,
    /// No transformation loses less than this: the optimum's loss when proven, else the smallest
    /// lower bound of what was left unexplored (or the best loss, if smaller). `None` when
    /// nothing valid is known and nothing bounds the rest.
    pub lower_bound: Option<f64>,
    /// Seconds from the search's start to its first valid transformation, and to the best.
    pub first_valid_seconds: Option<f64>,
    pub best_seconds: Option<f64>,
    /// The transformations the search checked (all, or a sample of [`CHECKED_CAP`]).
    pub checked: CheckedSample,
    /// Checks per [`Purpose`] (in [`Purpose::ALL`]'s order).
    pub purposes: [PurposeCount; 4],
    /// Transformations a strategy found resolved by a tag (known invalid, or pruned) when it
    /// came to them, so that it did not check them.
    pub tag_hits: u64,
    /// Checks evaluated ahead on other threads ([`Search::speculate`], the lookahead worker),
    /// and how many of them the search then used (the others were work lost; the counts
    /// above never include them).
    pub ahead: Ahead,
}

/// Checks evaluated ahead on other threads, and used (see [`SearchOutcome::ahead`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ahead {
    pub evaluated: u64,
    pub used: u64,
}

/// At most this many checked transformations are kept for the report's chart; above, an even
/// sample (every n-th in transformation order, the optimum always included).
pub const CHECKED_CAP: usize = 20_000;

/// One checked transformation, as the report's chart shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedTransformation {
    pub levels: Vec<usize>,
    /// Satisfies the privacy models within the suppression budget.
    pub valid: bool,
    /// Information loss (valid ones); for an invalid one, or a valid one whose loss the search
    /// did not need (its bound already reached the best, see [`Checker::set_loss_cutoff`]), the
    /// metric's lower bound of its loss (from its levels and classes), what it at least loses.
    pub loss: f64,
}

/// The checked transformations of a search, all of them or an even sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckedSample {
    /// Transformations checked.
    pub total: u64,
    /// Every `stride`-th of them in transformation order (1: all), and the optimum.
    pub stride: u64,
    pub items: Vec<CheckedTransformation>,
}

/// When a search must stop: a wall-clock deadline, a number of checks (for tests), or both.
/// A stopped search keeps its best valid transformation and reports a lower bound.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limit {
    pub deadline: Option<std::time::Instant>,
    pub max_checks: Option<u64>,
}

/// The number of transformations of the lattice of hierarchies of `levels` levels each (the
/// product). Fails if it has more than 2^64 transformations (ids are `u64`): 30 or 40
/// quasi-identifiers of a few levels each.
pub fn lattice_size(levels: &[usize]) -> Result<u64> {
    levels
        .iter()
        .try_fold(1u64, |size, &l| size.checked_mul(l as u64))
        .ok_or_else(|| {
            Error::Invalid(format!(
                "the generalization lattice of the {} quasi-identifiers has more than 2^64 \
                 transformations (the product of their hierarchies' levels): no lattice search \
                 can run on it; use fewer quasi-identifiers or hierarchy levels",
                levels.len()
            ))
        })
}

/// The space of full-domain transformations over `hierarchies` (their heights and the
/// distinct values of each level, for Flash's order). Fails if it has more than 2^64
/// transformations ([`lattice_size`]).
pub fn space_of(hierarchies: &[Hierarchy]) -> Result<Space> {
    let levels: Vec<usize> = hierarchies.iter().map(|h| h.levels()).collect();
    lattice_size(&levels)?;
    let max: Vec<usize> = hierarchies.iter().map(|h| h.max_level()).collect();
    let distinct: Vec<Vec<usize>> = hierarchies
        .iter()
        .map(|h| (0..h.levels()).map(|l| h.width(l)).collect())
        .collect();
    Ok(Space::new(&max, &distinct).expect("its size fits in 64 bits"))
}

/// Space + property store + checker + results.
pub struct Search<'a, S: PropertyStore = Dense> {
    space: Space,
    store: S,
    checker: Checker<'a>,
    results: FxHashMap<NodeId, CheckResult>,
    best: Option<(NodeId, f64)>,
    /// What predictive tagging may rely on (see [`Classification`]).
    classification: Classification,
    /// The metric is monotonic under the suppression setting.
    metric_monotonic: bool,
    /// What marks a transformation the search will not check again (the history drops
    /// snapshots only such transformations could use).
    finished: Finished,
    levels: Vec<usize>,
    pruning: bool,
    /// The strategy checks transformations the best loss beats ([`Search::classify_beyond_bound`]).
    beyond_bound: bool,
    /// The transformation likely checked after the guess ([`Search::guess_two`]).
    guess_after: Option<NodeId>,
    /// Checked transformations whose class bound has not pruned their generalizations yet.
    pending: Vec<(NodeId, f64)>,
    slack: f64,
    limit: Limit,
    /// Steps of walks that check nothing, since the clock was last read ([`Search::tick`]).
    ticks: u32,
    /// Up to this many transformations the final phase lists its candidates; above, it walks
    /// them best-first ([`super::DENSE_LIMIT`]; tests lower it).
    list_limit: u64,
    /// Set when the search stopped at its limit; the bound of what it left unexplored, if known
    /// (see [`Search::stop_with_bound`]).
    stopped: Option<Option<f64>>,
    started: std::time::Instant,
    first_valid: Option<f64>,
    best_found: Option<f64>,
    /// Threads of the final phase (1: the search runs on the calling thread only).
    threads: usize,
    /// The pool of `threads` threads (with more than one): the final phase's candidates and
    /// the ranges of a large check from scratch ([`Checker::set_pool`]) run on it. The extra
    /// checkers (forks of `checker`) are built on first use.
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    workers: Vec<Checker<'a>>,
    /// Who hears about the search's progress ([`super::observe`]), and when it last did.
    observer: Option<Box<dyn SearchObserver + 'a>>,
    throttle: Throttle,
    phase: Phase,
    phase_started: std::time::Instant,
    /// The current phase's work known in advance (done, total).
    work: Option<(u64, u64)>,
    /// The strategy's lower bound of what is unexplored, and BFS's queue length.
    frontier: Option<f64>,
    queued: Option<u64>,
    /// Results evaluated ahead on the pool ([`Search::speculate`]), recorded only when the
    /// sequential search checks their transformation.
    ready: FxHashMap<NodeId, CheckResult>,
    purpose: Purpose,
    purposes: [PurposeCount; 4],
    tag_hits: u64,
    ahead: Ahead,
    /// The strategy's checks are scattered over the lattice ([`Search::scatter_checks`]).
    scattered: bool,
    /// The checkers keep snapshots of valid transformations, and more of them
    /// ([`Search::expect_generalizations_of_valid`]).
    generalizations_of_valid: bool,
    /// The transformation the strategy will likely check after the next one
    /// ([`Search::guess`]).
    guess: Option<NodeId>,
    /// The lookahead worker's mailbox ([`Search::with_helpers`]) and what it is checking.
    lookahead: Option<std::sync::Arc<Lookahead>>,
    in_flight: Option<NodeId>,
    /// Checks made by the search's own checker within [`Search::with_helpers`], and their
    /// time.
    own_checks: (u64, std::time::Duration),
}

/// The lookahead guesses only when the search's own checks take this long on average: on
/// ADULT without suppression (checks of about 20 µs, mostly roll-ups) the guesses' bookkeeping
/// and the worker's checks from scratch made the search slower (3.3 -> 4.1 ms); with DM and 2 %
/// suppression (checks of 35 µs) they made it faster (95 -> 76 ms).
const LOOKAHEAD_MIN_CHECK: std::time::Duration = std::time::Duration::from_micros(25);

/// Excluded transformations [`Search::unexplored_bound`] passes at most before it settles for
/// the bound it has reached (a second or so).
const UNEXPLORED_STEPS: u64 = 1 << 20;

/// Steps between two readings of the clock in [`Search::tick`] (a reading costs about 25 ns;
/// a step at least as much).
const TICKS: u32 = 256;

/// Queued transformations [`Search::unexplored_bound`] holds at most (16 bytes each).
const UNEXPLORED_QUEUE: usize = 1 << 20;

/// With a deadline, the time [`Search::unexplored_bound`] takes at most past it.
const UNEXPLORED_TIME: std::time::Duration = std::time::Duration::from_millis(300);

/// Checks measured before the lookahead may guess.
const LOOKAHEAD_AFTER_CHECKS: u64 = 16;

/// Which transformations count as finished for the checker's history.
#[derive(Debug, Clone, Copy)]
struct Finished {
    /// Properties (of the store, or single-node verdicts) that finish a transformation.
    bits: u8,
    /// A checked transformation is finished too.
    checked: bool,
}

impl<'a, S: PropertyStore> Search<'a, S> {
    pub fn new(
        table: &'a EncodedTable,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
        metric: Box<dyn Metric>,
        budget: u64,
        config: CheckerConfig,
    ) -> Result<Search<'a, S>> {
        let space = space_of(&table.hierarchies)?;
        let store = S::for_space(&space).ok_or_else(|| {
            Error::Invalid(format!(
                "the generalization lattice ({} transformations) is too large for this search's \
                 property store",
                space.size()
            ))
        })?;
        if criteria.is_empty() {
            return Err(Error::Invalid("no privacy model to satisfy".into()));
        }
        let metric_monotonic = metric.is_monotonic(budget > 0);
        let slack = metric.bound_slack();
        let checker = Checker::new(table, criteria, metric, budget, config)?;
        let classification = checker.classification();
        let dims = space.dims();
        Ok(Search {
            space,
            store,
            checker,
            results: FxHashMap::default(),
            best: None,
            classification,
            metric_monotonic,
            finished: Finished {
                bits: prop::RESOLVED,
                checked: false,
            },
            levels: vec![0; dims],
            pruning: false,
            beyond_bound: false,
            guess_after: None,
            pending: Vec::new(),
            slack,
            limit: Limit::default(),
            ticks: 0,
            list_limit: super::DENSE_LIMIT,
            stopped: None,
            started: std::time::Instant::now(),
            first_valid: None,
            best_found: None,
            threads: 1,
            pool: None,
            workers: Vec::new(),
            observer: None,
            throttle: Throttle::new(),
            phase: Phase::Classify,
            phase_started: std::time::Instant::now(),
            work: None,
            frontier: None,
            queued: None,
            ready: FxHashMap::default(),
            purpose: Purpose::Classification,
            purposes: [PurposeCount::default(); 4],
            tag_hits: 0,
            ahead: Ahead::default(),
            scattered: false,
            generalizations_of_valid: false,
            guess: None,
            lookahead: None,
            in_flight: None,
            own_checks: (0, std::time::Duration::ZERO),
        })
    }

    /// Lets `observer` follow the search ([`super::observe`]).
    pub fn set_observer(&mut self, observer: Box<dyn SearchObserver + 'a>) {
        self.observer = Some(observer);
    }

    /// The search's progress now.
    pub fn status(&self) -> SearchStatus {
        let now = std::time::Instant::now();
        let best = self.best.map(|(_, loss)| loss);
        SearchStatus {
            phase: self.phase,
            checks: self.checks(),
            lattice_size: self.space.size(),
            queued: self.queued,
            best_loss: best,
            lower_bound: self.frontier.map(|f| best.map_or(f, |b| b.min(f))),
            work: self.work,
            elapsed: now.duration_since(self.started),
            phase_elapsed: now.duration_since(self.phase_started),
            time_left: self
                .limit
                .deadline
                .map(|d| d.saturating_duration_since(now)),
            finished: false,
        }
    }

    /// Starts a phase of the search (for the observer).
    pub fn enter_phase(&mut self, phase: Phase) {
        self.phase = phase;
        self.phase_started = std::time::Instant::now();
        self.work = None;
        self.frontier = None;
        self.queued = None;
        self.notify(true);
    }

    /// The strategy's smallest bound of what it left unexplored, and (BFS) its queue length,
    /// for the observer.
    pub fn report_frontier(&mut self, bound: f64, queued: Option<u64>) {
        if self.observer.is_some() {
            self.frontier = Some(bound);
            self.queued = queued;
            self.notify(false);
        }
    }

    /// Work of the current phase: `done` of `total` steps, for the observer.
    pub fn report_work(&mut self, done: u64, total: u64) {
        if self.observer.is_some() {
            self.work = Some((done, total));
            self.notify(false);
        }
    }

    /// Tells the observer the final status: `out`'s figures (the last notice).
    pub fn finish_observing(&mut self, out: &SearchOutcome) {
        if self.observer.is_none() {
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
        if let Some(o) = &mut self.observer {
            o.update(&status);
        }
    }

    /// Tells the observer the status if a notice is due (see [`super::observe::Throttle`]).
    fn notify(&mut self, force: bool) {
        let Some(interval) = self.observer.as_ref().map(|o| o.interval()) else {
            return;
        };
        if !self.throttle.due(force, interval) {
            return;
        }
        let status = self.status();
        if let Some(o) = &mut self.observer {
            o.update(&status);
        }
    }

    /// Lets the final phase ([`Search::optimize_remaining`]) and large checks from scratch run
    /// on `threads` threads (at least 1). The result does not depend on it (see the module
    /// docs).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
        self.pool = (self.threads > 1).then(|| pool_of(self.threads)).flatten();
        self.checker.set_pool(self.pool.clone());
    }

    /// Sets the purpose the following checks count for.
    pub fn set_purpose(&mut self, purpose: Purpose) {
        self.purpose = purpose;
    }

    /// Counts a transformation the strategy skipped because a tag resolved it.
    pub fn count_tag_hit(&mut self) {
        self.tag_hits += 1;
    }

    /// Transformations checked (each once: the result cache holds every accepted check).
    pub fn checks(&self) -> u64 {
        self.results.len() as u64
    }

    /// The search space.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The property store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The checker (its metric, budget and statistics).
    pub fn checker(&self) -> &Checker<'a> {
        &self.checker
    }

    /// The suppression budget in records.
    pub fn budget(&self) -> u64 {
        self.checker.budget()
    }

    /// The best valid transformation so far and its loss.
    pub fn best(&self) -> Option<(NodeId, f64)> {
        self.best
    }

    /// True if `id` has any of the property `bits` ([`prop`]): in the store, or, for the
    /// anonymity bits when nothing may be tagged, as the verdict of its own check.
    pub fn has(&self, id: NodeId, bits: u8) -> bool {
        known(&self.store, &self.results, self.classification, id, bits)
    }

    /// True if `id` was checked.
    pub fn is_checked(&self, id: NodeId) -> bool {
        self.results.contains_key(&id)
    }

    /// Sets when the search must stop (see [`Limit`]).
    pub fn set_limit(&mut self, limit: Limit) {
        self.limit = limit;
    }

    /// True if the search has reached its limit, or stopped at it earlier. Strategies ask before
    /// each step and return when it says so; the first positive answer marks the search as
    /// stopped (not proven).
    pub fn out_of_time(&mut self) -> bool {
        if self.stopped.is_some() {
            return true;
        }
        let checks = self.checks();
        let over = self.limit.max_checks.is_some_and(|m| checks >= m)
            || self
                .limit
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d);
        if over {
            self.stopped = Some(None);
        }
        over
    }

    /// For walks over transformations that check nothing (a lattice level, the final phase's
    /// candidates), called once per step: true once the deadline has passed, which stops the
    /// search as [`Search::out_of_time`] does. The clock is read every [`TICKS`] steps; the
    /// limit on checks is left to `out_of_time`, asked before each check.
    pub fn tick(&mut self) -> bool {
        if self.stopped.is_some() {
            return true;
        }
        self.ticks += 1;
        if self.ticks < TICKS {
            return false;
        }
        self.ticks = 0;
        let over = self
            .limit
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d);
        if over {
            self.stopped = Some(None);
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
        let counted = self.limit.max_checks.is_some_and(|m| self.checks() >= m);
        if !self.stopped() || self.best.is_some() || counted {
            return;
        }
        let top = self.space.top();
        self.set_purpose(Purpose::Seed);
        let r = self.check(top);
        if !r.anonymous && self.classification == Classification::Exact {
            self.stopped = None;
        }
    }

    /// True if the search has a deadline and has used at least `share` of the time to it (a
    /// strategy can leave the rest of the time to another phase).
    pub fn past_share(&self, share: f64) -> bool {
        self.limit.deadline.is_some_and(|d| {
            let total = d.saturating_duration_since(self.started).as_secs_f64();
            self.started.elapsed().as_secs_f64() >= share * total
        })
    }

    /// True if the search stopped at its limit.
    pub fn stopped(&self) -> bool {
        self.stopped.is_some()
    }

    /// Records the smallest lower bound of what a stopped strategy left unexplored (BFS knows it
    /// from its queue). Without it, [`Search::outcome`] computes one by enumerating the space.
    pub fn stop_with_bound(&mut self, bound: f64) {
        self.stopped = Some(Some(bound));
    }

    /// The smallest level bound of every transformation not checked and not excluded (invalid,
    /// or pruned by a bound): no unexplored transformation loses less.
    ///
    /// Best-first from the bottom in ascending level bound, generating each transformation once
    /// from its canonical generator as BFS does (bounds only grow along generalization): the
    /// first transformation taken that is neither checked nor excluded has the smallest bound.
    /// After [`UNEXPLORED_STEPS`] excluded ones, with [`UNEXPLORED_QUEUE`] queued or, with a
    /// deadline, after [`UNEXPLORED_TIME`], the bound reached bounds everything not yet
    /// taken, and is returned (a weaker, still true bound). Enumerating the space instead took
    /// minutes on a lattice of 10^9 transformations (Flash with `-timeLimit 2`, 20
    /// quasi-identifiers), and hours on BFS's larger ones.
    fn unexplored_bound(&self) -> f64 {
        #[derive(PartialEq)]
        struct Queued(f64, NodeId);
        impl Eq for Queued {}
        impl PartialOrd for Queued {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for Queued {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                // Reversed: the binary heap pops the smallest bound first.
                other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
            }
        }
        let dims = self.space.dims();
        let mut levels = vec![0; dims];
        let mut bound = |id: NodeId| {
            self.space.levels_into(id, &mut levels);
            self.checker.metric().level_bound(&levels)
        };
        let bottom = self.space.bottom();
        let mut queue = std::collections::BinaryHeap::new();
        queue.push(Queued(bound(bottom), bottom));
        let mut steps = 0;
        let until = self
            .limit
            .deadline
            .map(|_| std::time::Instant::now() + UNEXPLORED_TIME);
        while let Some(Queued(low, id)) = queue.pop() {
            let excluded =
                self.results.contains_key(&id) || self.has(id, prop::NOT_ANONYMOUS | prop::PRUNED);
            let enough = steps >= UNEXPLORED_STEPS
                || queue.len() >= UNEXPLORED_QUEUE
                || (steps % u64::from(TICKS) == 0
                    && until.is_some_and(|u| std::time::Instant::now() >= u));
            if !excluded || enough {
                return low;
            }
            steps += 1;
            for up in self.space.children(id) {
                queue.push(Queued(bound(up), up));
            }
        }
        f64::INFINITY
    }

    /// Lets the search prune up-sets by lower bounds (see the module docs).
    pub fn enable_pruning(&mut self) {
        self.pruning = true;
    }

    /// Tells the search that the strategy checks transformations whose bound the best loss
    /// beats, for their anonymity alone (BFS's paths): guesses are then not filtered by their
    /// bound ([`Search::worth_evaluating`]).
    pub fn classify_beyond_bound(&mut self) {
        self.beyond_bound = true;
    }

    /// True if the metric is monotonic under the suppression setting: no generalization of a
    /// valid transformation loses less.
    pub fn metric_monotonic(&self) -> bool {
        self.metric_monotonic
    }

    /// What predictive tagging relies on.
    pub fn classification(&self) -> Classification {
        self.classification
    }

    /// True if a loss of `bound` or more cannot beat the best loss.
    pub fn beaten(&self, bound: f64) -> bool {
        self.best
            .is_some_and(|(_, b)| bound >= b + self.slack * b.abs())
    }

    /// Prunes the generalizations of `id` (not `id` itself).
    pub fn prune_above(&mut self, id: NodeId) {
        for s in self.space.successors(id) {
            self.store.tag_up(s, prop::PRUNED);
        }
    }

    /// Flash's decision on a node of a path: true if the search should go down (the node is
    /// anonymous, or everything above it is pruned). Checks the node if needed.
    pub fn decide(&mut self, id: NodeId) -> bool {
        if self.resolved(id) {
            return self.has(id, prop::ANONYMOUS | prop::PRUNED);
        }
        if self.pruning {
            self.space.levels_into(id, &mut self.levels);
            let bound = self.checker.metric().level_bound(&self.levels);
            if self.beaten(bound) {
                self.store.tag_up(id, prop::PRUNED);
                return true;
            }
        }
        let r = self.check(id);
        self.tag_verdict(&r) || self.has(id, prop::PRUNED)
    }

    /// True if predictive tagging is allowed (exactly, or by the criteria's relaxation).
    pub fn tagging(&self) -> bool {
        self.classification != Classification::None
    }

    /// The verdict tagging follows: anonymity, or in [`Classification::Relaxed`] the relaxation
    /// (then "anonymous" tags mean "possibly anonymous" and the final phase decides).
    pub fn tag_verdict(&self, r: &CheckResult) -> bool {
        match self.classification {
            Classification::Relaxed => r.relaxed,
            _ => r.anonymous,
        }
    }

    /// True if the classification has nothing more to learn from a node: its anonymity is
    /// known, or it is pruned.
    pub fn resolved(&self, id: NodeId) -> bool {
        self.has(id, prop::RESOLVED)
    }

    /// The result of checking `id` (checked once, then cached), with tagging. Within
    /// [`Search::with_helpers`], a pending [`Search::guess`] goes to the lookahead worker
    /// first, and a result it computed for `id` is taken instead of checking again.
    pub fn check(&mut self, id: NodeId) -> CheckResult {
        let guess = self.guess.take();
        if let Some(r) = self.results.get(&id) {
            return *r;
        }
        self.harvest(self.in_flight == Some(id));
        let cutoff = self.loss_cutoff();
        let after = self.guess_after.take();
        if let Some(r) = self.ready.remove(&id) {
            self.ahead.used += 1;
            // The search's thread checks the next one itself: the worker takes the one after.
            if let Some(g) = after {
                self.post(g, id, cutoff);
            }
            return self.record(id, r);
        }
        if let Some(g) = guess {
            self.post(g, id, cutoff);
        }
        self.space.levels_into(id, &mut self.levels);
        self.checker.set_loss_cutoff(cutoff);
        let started = self.lookahead.is_some().then(std::time::Instant::now);
        let finished = finished_of!(self);
        let r = self.checker.check(&self.levels, &finished);
        drop(finished);
        if let Some(t) = started {
            self.own_checks.0 += 1;
            self.own_checks.1 += t.elapsed();
        }
        if let (Some(l), Some(kept)) = (&self.lookahead, self.checker.kept()) {
            l.offer(kept);
        }
        self.record(id, r)
    }

    /// Hands the guess `g` to the lookahead worker if it is idle and `g` is worth evaluating
    /// (and is not `id`, which the search is about to check or take).
    fn post(&mut self, g: NodeId, id: NodeId, cutoff: Option<f64>) {
        let idle = self.lookahead.clone().filter(|l| l.idle());
        if let Some(l) = idle.filter(|_| g != id && self.worth_evaluating(g)) {
            l.post(g, self.space.levels(g), cutoff);
            self.in_flight = Some(g);
        }
    }

    /// Moves the lookahead worker's result, if it has one, to the results computed ahead;
    /// with `wait`, waits for the one in flight.
    fn harvest(&mut self, wait: bool) {
        if self.in_flight.is_none() {
            return;
        }
        let Some(l) = &self.lookahead else {
            return;
        };
        match l.take(wait) {
            Some((g, r, classes)) => {
                self.ahead.evaluated += 1;
                self.ready.insert(g, r);
                self.in_flight = None;
                if let Some(c) = classes {
                    let finished = finished_of!(self);
                    self.checker.adopt(c, &finished);
                }
            }
            // Withdrawn (see `Lookahead::take`), or still running.
            None if wait || l.idle() => self.in_flight = None,
            None => {}
        }
    }

    /// Runs `strategy` with the search's other threads helping, when it has more than one:
    /// - inputs of [`crate::check::SPLIT_CHECK_ITEMS`] items and more: each check from scratch
    ///   splits over the pool ([`Checker::set_pool`]);
    /// - from [`crate::check::TEAM_INPUT_ITEMS`] items ([`Checker::prefers_team`]): each
    ///   check splits over a team of the pool's threads ([`Checker::set_team`]);
    /// - below: a lookahead worker ([`super::lookahead`]) evaluates ahead what the strategy
    ///   names ([`Search::guess`]).
    pub fn with_helpers(&mut self, strategy: impl FnOnce(&mut Self)) {
        // A pool exists with more than one thread only.
        let pool = match self.pool.clone() {
            Some(pool) if !self.checker.splits_checks() => pool,
            _ => return strategy(self),
        };
        if self.checker.prefers_team() {
            let helpers = pool.current_num_threads() - 1;
            let team = std::sync::Arc::new(crate::check::Team::new(helpers));
            self.checker.set_team(Some(team.clone()));
            pool.in_place_scope(|scope| {
                for i in 0..helpers {
                    let team = &team;
                    scope.spawn(move |_| team.serve(i));
                }
                // Closed however the strategy ends (as the lookahead below).
                let _close = team.closer();
                strategy(self);
            });
            self.checker.set_team(None);
            return;
        }
        self.add_workers();
        let mut worker = self.workers.remove(0);
        let lookahead = std::sync::Arc::new(Lookahead::new());
        self.lookahead = Some(lookahead.clone());
        pool.in_place_scope(|scope| {
            scope.spawn(|_| lookahead.serve(&mut worker));
            // Closed however the strategy ends: a panic must not leave the scope waiting for a
            // worker that waits for requests.
            let _close = lookahead.closer();
            strategy(self);
        });
        // The worker has ended: a request it never started has no answer.
        self.harvest(false);
        self.lookahead = None;
        self.in_flight = None;
        self.workers.insert(0, worker);
    }

    /// True within [`Search::with_helpers`] once the search's own checks take long enough
    /// on average for a worker to pay ([`LOOKAHEAD_MIN_CHECK`]): guesses are used.
    pub fn looking_ahead(&self) -> bool {
        let (n, time) = self.own_checks;
        self.lookahead.is_some()
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
    /// itself and the worker takes `after` meanwhile. (Posting `next` then made the search
    /// wait for the worker on it instead: Flash, ADULT, k=2, 2 %, DM*: 0.098 -> 0.107 s.) BFS's
    /// guesses come in chains (a maximal sweep's raises, a path's binary search), which pairs
    /// keep both threads on.
    pub fn guess_two(&mut self, next: NodeId, after: Option<NodeId>) {
        if self.looking_ahead() {
            self.guess = Some(next);
            self.guess_after = after;
        }
    }

    /// True if the lookahead worker has nothing to do (its last result, if any, is
    /// collected): a guess now would be taken at the next check.
    pub fn lookahead_idle(&mut self) -> bool {
        self.harvest(false);
        self.looking_ahead() && self.in_flight.is_none()
    }

    /// True if a guess made now, for the check of `id`, could go to the lookahead worker: it
    /// is idle, or busy with `id` itself (the check waits for it), and guesses are used.
    pub fn lookahead_free_at(&mut self, id: NodeId) -> bool {
        self.harvest(false);
        self.looking_ahead() && (self.in_flight.is_none() || self.in_flight == Some(id))
    }

    /// True if evaluating `id` ahead can serve the search: it is neither checked nor
    /// evaluated nor under way, not resolved, and (with pruning) not excluded by its level
    /// bound.
    pub fn worth_evaluating(&self, id: NodeId) -> bool {
        if self.results.contains_key(&id)
            || self.ready.contains_key(&id)
            || self.in_flight == Some(id)
            || self.resolved(id)
        {
            return false;
        }
        if !self.pruning || self.beyond_bound {
            return true;
        }
        let levels = self.space.levels(id);
        !self.beaten(self.checker.metric().level_bound(&levels))
    }

    /// Makes sure there is one checker per thread: this search's own and `threads - 1`
    /// forks of it (shared encoding, own tables and history, whose bytes they share), with
    /// the search's history settings.
    fn add_workers(&mut self) {
        if self.threads <= 1 || self.workers.len() + 1 >= self.threads {
            return;
        }
        if self.workers.is_empty() {
            self.checker.split_history(self.threads);
        }
        while self.workers.len() + 1 < self.threads {
            let mut w = self.checker.fork();
            if self.generalizations_of_valid {
                w.set_store_anonymous(true);
                w.scale_history(5);
            }
            if self.scattered {
                w.set_scattered();
            }
            w.split_history(self.threads);
            self.workers.push(w);
        }
    }

    /// The level bound from which a check need not compute a valid transformation's loss
    /// ([`Checker::set_loss_cutoff`]): when classifying with pruning on, a transformation the
    /// best loss beats ([`Search::beaten`]) cannot improve on it, and its anonymity is all the
    /// search asks. Elsewhere (candidates, the local search, which climbs from worse points,
    /// and searches without pruning, whose charts show every loss) every loss is computed.
    fn loss_cutoff(&self) -> Option<f64> {
        if !self.pruning || self.purpose != Purpose::Classification {
            return None;
        }
        self.best.map(|(_, b)| b + self.slack * b.abs())
    }

    /// Takes the result `r` of checking `id` (here or on another thread): caches it, tags, keeps
    /// the best and prunes by bounds. A loss computed ahead on another thread, with an older
    /// cutoff, is dropped if the current one would not have computed it, so that the results
    /// do not depend on the threads' timing.
    fn record(&mut self, id: NodeId, mut r: CheckResult) -> CheckResult {
        if let (Some(_), Some(cutoff)) = (r.loss, self.loss_cutoff()) {
            self.space.levels_into(id, &mut self.levels);
            if self.checker.metric().level_bound(&self.levels) >= cutoff {
                r.loss = None;
            }
        }
        let verdict = self.tag_verdict(&r);
        match (self.classification, verdict) {
            // Nothing may be tagged: the verdict is a single-node mark, kept in the results.
            (Classification::None, _) => {}
            (_, true) => self.store.tag_up(id, prop::ANONYMOUS),
            (_, false) => self.store.tag_down(id, prop::NOT_ANONYMOUS),
        }
        self.results.insert(id, r);
        let counter = &mut self.purposes[self.purpose as usize];
        counter.checks += 1;
        counter.valid += u64::from(r.anonymous);
        let mut improved = false;
        if let Some(loss) = r.loss {
            if self.best.is_none_or(|(_, b)| loss < b) {
                self.best = Some((id, loss));
                improved = true;
                let at = self.started.elapsed().as_secs_f64();
                self.first_valid.get_or_insert(at);
                self.best_found = Some(at);
            }
        }
        if self.pruning {
            if let Some(cb) = r.class_bound {
                self.pending.push((id, cb));
            }
            if improved {
                // Every pending bound is compared against the new best.
                let pending = std::mem::take(&mut self.pending);
                let (done, keep): (Vec<_>, Vec<_>) =
                    pending.into_iter().partition(|&(_, cb)| self.beaten(cb));
                self.pending = keep;
                for (y, _) in done {
                    self.prune_above(y);
                }
            } else if r.class_bound.is_some_and(|cb| self.beaten(cb)) {
                self.pending.pop();
                self.prune_above(id);
            }
        }
        self.notify(false);
        r
    }

    /// The cached result of `id`, if checked.
    pub fn result(&self, id: NodeId) -> Option<&CheckResult> {
        self.results.get(&id)
    }

    /// For searches that check generalizations of valid transformations too, in bound order
    /// rather than along paths (the final phase, BFS with a non-monotonic metric or models):
    /// the checker keeps snapshots of valid transformations, and more of them (on ADULT's
    /// t-closeness row, 5x the snapshots cut checks from scratch from 1,713 to 255 of 4,301).
    pub fn expect_generalizations_of_valid(&mut self) {
        self.generalizations_of_valid = true;
        for c in std::iter::once(&mut self.checker).chain(&mut self.workers) {
            c.set_store_anonymous(true);
            c.scale_history(5);
        }
    }

    /// For strategies whose checks jump around the lattice instead of walking up paths (BFS):
    /// the checkers keep their snapshots accordingly ([`Checker::set_scattered`]).
    pub fn scatter_checks(&mut self) {
        self.scattered = true;
        self.checker.set_scattered();
        for w in &mut self.workers {
            w.set_scattered();
        }
    }

    /// After a classification phase: makes the best transformation globally optimal when the
    /// metric is not monotonic (or tagging was not allowed). See the module docs.
    pub fn optimize_remaining(&mut self) {
        if self.classification == Classification::Exact && self.metric_monotonic || self.stopped() {
            return;
        }
        self.expect_generalizations_of_valid();
        self.enter_phase(Phase::Final);
        self.set_purpose(Purpose::Candidates);
        self.finished = Finished {
            bits: prop::NOT_ANONYMOUS | prop::PRUNED,
            checked: true,
        };
        if self.space.size() > self.list_limit {
            self.best_first_remaining();
        } else if self.checker.metric().has_class_bound() {
            self.bottom_up_with_class_bounds();
        } else {
            self.by_level_bound();
        }
    }

    /// The final phase on a lattice too large to list (above [`super::DENSE_LIMIT`]): the
    /// candidates in ascending bound from the bottom, as [`Search::unexplored_bound`] walks
    /// them (each generated once by its canonical generator, [`Space::children`]), so that
    /// memory grows with the walk, not with the lattice. A transformation's bound is its level
    /// bound raised by what it inherits from its generator: the generator's bound and the class
    /// bound of its check (valid for every generalization). Bounds only grow from a generator
    /// to what it generates, so the first bound the best loss beats ends the phase; a pruned
    /// transformation is dropped with its canonical subtree (its up-set), one known invalid is
    /// only expanded. Candidates are checked on the search's thread.
    fn best_first_remaining(&mut self) {
        #[derive(PartialEq)]
        struct Queued(f64, crate::lattice::OrderKey);
        impl Eq for Queued {}
        impl PartialOrd for Queued {
            fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for Queued {
            fn cmp(&self, other: &Self) -> std::cmp::Ordering {
                // Reversed: the binary heap pops the smallest bound first.
                other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
            }
        }
        let mut levels = vec![0; self.space.dims()];
        let bottom = self.space.bottom();
        self.space.levels_into(bottom, &mut levels);
        let mut queue = std::collections::BinaryHeap::new();
        let bound = self.checker.metric().level_bound(&levels);
        queue.push(Queued(bound, self.space.order_key(bottom)));
        while let Some(Queued(bound, key)) = queue.pop() {
            if self.tick() || self.beaten(bound) {
                return;
            }
            let id = key.id;
            if self.has(id, prop::PRUNED) {
                continue;
            }
            self.report_frontier(bound, Some(queue.len() as u64));
            let result = match self.results.get(&id).copied() {
                Some(r) => Some(r),
                None if self.has(id, prop::NOT_ANONYMOUS) => None,
                None if self.out_of_time() => return,
                None => Some(self.check(id)),
            };
            let inherited = result
                .and_then(|r| r.class_bound)
                .map_or(bound, |cb| bound.max(cb));
            for up in self.space.children(id) {
                self.space.levels_into(up, &mut levels);
                let b = self.checker.metric().level_bound(&levels).max(inherited);
                if !self.beaten(b) {
                    queue.push(Queued(b, self.space.order_key(up)));
                }
            }
        }
    }

    /// Checks `ids` on the pool's threads (one checker per thread: this search's own and
    /// forks of it) without recording anything: the results, in the order of `ids`. The
    /// callers merge them in their sequential order (see the module docs).
    fn evaluate(&mut self, ids: &[NodeId]) -> Vec<CheckResult> {
        self.add_workers();
        let cutoff = self.loss_cutoff();
        self.checker.set_loss_cutoff(cutoff);
        for w in &mut self.workers {
            w.set_loss_cutoff(cutoff);
        }
        // The candidates keep every thread busy: no check splits (see `Checker::set_pool`).
        self.checker.set_pool(None);
        let space = &self.space;
        let finished = finished_of!(self);
        let checkers: Vec<std::sync::Mutex<&mut Checker<'a>>> = std::iter::once(&mut self.checker)
            .chain(self.workers.iter_mut())
            .map(std::sync::Mutex::new)
            .collect();
        let run = |id: &NodeId| {
            // Each pool thread uses its own checker: the lock is never contended.
            let t = rayon::current_thread_index().unwrap_or(0) % checkers.len();
            let mut checker = crate::sync::lock(&checkers[t]);
            let levels = space.levels(*id);
            checker.check(&levels, &finished)
        };
        let results = match &self.pool {
            Some(pool) => pool.install(|| {
                use rayon::prelude::*;
                ids.par_iter().with_max_len(1).map(run).collect()
            }),
            None => ids.iter().map(run).collect(),
        };
        drop(checkers);
        self.checker.set_pool(self.pool.clone());
        results
    }

    /// With more than one thread: evaluates in parallel the transformations of `ids` that are
    /// neither checked nor evaluated already, and keeps their results for [`Search::check`],
    /// which records one only when the sequential search asks for it. A strategy passes what
    /// it will (or likely will) check next; a guess that the search never asks for is work
    /// wasted on an otherwise idle thread, never a change of the result, the counts or the
    /// order (see the module docs). Does nothing on one thread.
    pub fn speculate(&mut self, ids: &[NodeId]) {
        if self.threads <= 1 {
            return;
        }
        let mut fresh: Vec<NodeId> = Vec::with_capacity(ids.len());
        for &id in ids {
            if !self.results.contains_key(&id)
                && !self.ready.contains_key(&id)
                && !fresh.contains(&id)
            {
                fresh.push(id);
            }
        }
        if fresh.len() < 2 {
            return; // nothing to run beside the search's own next check
        }
        let rs = self.evaluate(&fresh);
        self.ahead.evaluated += fresh.len() as u64;
        self.ready.extend(fresh.into_iter().zip(rs));
    }

    /// The pool of the search's threads (none with one thread).
    pub fn pool(&self) -> Option<std::sync::Arc<rayon::ThreadPool>> {
        self.pool.clone()
    }

    /// Threads the search may use (see [`Search::set_threads`]).
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Candidates evaluated ahead per thread in the final phase: bounds the work wasted when the
    /// best loss improves within a batch.
    const BATCH_PER_THREAD: usize = 16;

    fn by_level_bound(&mut self) {
        let mut levels = vec![0; self.space.dims()];
        let mut cand: Vec<(f64, crate::lattice::OrderKey)> = Vec::new();
        for id in 0..self.space.size() {
            if self.tick() {
                return;
            }
            if self.has(id, prop::NOT_ANONYMOUS | prop::PRUNED) {
                continue;
            }
            self.space.levels_into(id, &mut levels);
            let b = self.checker.metric().level_bound(&levels);
            cand.push((b, self.space.order_key(id)));
        }
        cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut stop = cand.len();
        let batch = self.threads * Self::BATCH_PER_THREAD;
        let mut upto = 0;
        for (i, &(bound, key)) in cand.iter().enumerate() {
            if self.beaten(bound) {
                stop = i;
                break;
            }
            // Candidates come in bound order: none left loses less than this one's bound.
            self.report_frontier(bound, None);
            self.report_work(i as u64, cand.len() as u64);
            if self.out_of_time() {
                return;
            }
            if self.threads > 1 && i >= upto {
                upto = (i + batch).min(cand.len());
                let next: Vec<NodeId> = cand[i..upto]
                    .iter()
                    .filter(|c| !self.beaten(c.0))
                    .map(|c| c.1.id)
                    .collect();
                self.speculate(&next);
            }
            self.check(key.id);
        }
        // Bounds are monotonic along generalization: a beaten bound prunes the whole up-set.
        for &(_, key) in &cand[stop..] {
            self.store.tag_up(key.id, prop::PRUNED);
        }
    }

    fn bottom_up_with_class_bounds(&mut self) {
        let order = self.space.ids_by_level();
        let mut prop_bound = vec![f64::NEG_INFINITY; self.space.size() as usize];
        let mut levels = vec![0; self.space.dims()];
        let batch = self.threads * Self::BATCH_PER_THREAD;
        let mut upto = 0;
        let inherited = |s: &Self, prop_bound: &[f64], id: NodeId| {
            s.space
                .predecessors(id)
                .map(|q| prop_bound[q as usize])
                .fold(f64::NEG_INFINITY, f64::max)
        };
        for (i, &id) in order.iter().enumerate() {
            if self.tick() {
                return;
            }
            self.report_work(i as u64, order.len() as u64);
            if self.threads > 1 && i >= upto {
                // A batch within one level: its bounds come from lower levels, all final.
                let level = self.space.level(id);
                upto = i + order[i..(i + batch).min(order.len())]
                    .iter()
                    .take_while(|&&x| self.space.level(x) == level)
                    .count();
                let next: Vec<NodeId> = order[i..upto]
                    .iter()
                    .copied()
                    .filter(|&x| {
                        if self.has(x, prop::NOT_ANONYMOUS | prop::PRUNED) {
                            return false;
                        }
                        let lv = self.space.levels(x);
                        let bound = inherited(self, &prop_bound, x)
                            .max(self.checker.metric().level_bound(&lv));
                        !self.beaten(bound)
                    })
                    .collect();
                self.speculate(&next);
            }
            let mut p = inherited(self, &prop_bound, id);
            let result = match self.results.get(&id) {
                Some(r) => Some(*r),
                None if self.has(id, prop::NOT_ANONYMOUS | prop::PRUNED) => None,
                None => {
                    self.space.levels_into(id, &mut levels);
                    let bound = p.max(self.checker.metric().level_bound(&levels));
                    if self.beaten(bound) {
                        // The inherited class bounds hold for every generalization too.
                        self.store.tag_up(id, prop::PRUNED);
                        None
                    } else if self.out_of_time() {
                        return;
                    } else {
                        Some(self.check(id))
                    }
                }
            };
            if let Some(cb) = result.and_then(|r| r.class_bound) {
                p = p.max(cb);
            }
            prop_bound[id as usize] = p;
        }
    }

    /// Which rows the transformation `levels` suppresses (outlier classes). Called when the
    /// search is over: frees the checkers' buffers first (see [`Checker::free_buffers`]).
    pub fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool> {
        self.checker.free_buffers();
        for w in &mut self.workers {
            w.free_buffers();
        }
        self.checker.outlier_rows(levels)
    }

    /// The work counters of every thread's checker, summed; `checks` counts each transformation
    /// once (a check another thread made in vain, whose candidate the sequential order had
    /// pruned meanwhile, is not counted), so it is the same for every number of threads.
    fn stats(&self) -> CheckerStats {
        let mut t = self.checker.stats().clone();
        for w in &self.workers {
            t.add(w.stats());
        }
        t.checks = self.checks();
        t
    }

    /// The outcome so far (final after the classification and [`Self::optimize_remaining`]).
    pub fn outcome(&self) -> SearchOutcome {
        let optimum = self.best.map(|(id, loss)| {
            let r = self.results[&id];
            Optimum {
                levels: self.space.levels(id),
                loss,
                suppressed: r.suppressed,
                classes: r.classes,
            }
        });
        let best = self.best.map(|(_, loss)| loss);
        let lower_bound = match self.stopped {
            None => best,
            Some(frontier) => {
                let rest = frontier.unwrap_or_else(|| self.unexplored_bound());
                Some(best.map_or(rest, |b| b.min(rest))).filter(|b| b.is_finite())
            }
        };
        SearchOutcome {
            optimum,
            proven_optimal: self.stopped.is_none(),
            lower_bound,
            first_valid_seconds: self.first_valid,
            best_seconds: self.best_found,
            checks: self.checks(),
            lattice_size: self.space.size(),
            stats: self.stats(),
            store: self.store.name(),
            store_sizes: self.store.sizes(),
            checked: self.checked_sample(),
            purposes: self.purposes,
            tag_hits: self.tag_hits,
            ahead: self.ahead,
        }
    }

    /// The checked transformations, sampled down to [`CHECKED_CAP`].
    fn checked_sample(&self) -> CheckedSample {
        let mut ids: Vec<NodeId> = self.results.keys().copied().collect();
        ids.sort_unstable();
        let total = ids.len() as u64;
        let stride = total.div_ceil(CHECKED_CAP as u64).max(1);
        let best = self.best.map(|(id, _)| id);
        let metric = self.checker.metric();
        let items = ids
            .iter()
            .enumerate()
            .filter(|&(i, &id)| (i as u64).is_multiple_of(stride) || Some(id) == best)
            .map(|(_, &id)| {
                let r = &self.results[&id];
                let levels = self.space.levels(id);
                let loss = match r.loss {
                    Some(loss) if r.anonymous => loss,
                    _ => metric
                        .level_bound(&levels)
                        .max(r.class_bound.unwrap_or(0.0)),
                };
                CheckedTransformation {
                    valid: r.anonymous,
                    loss,
                    levels,
                }
            })
            .collect();
        CheckedSample {
            total,
            stride,
            items,
        }
    }
}

/// The process's pool of `threads` threads, built on first use and kept for later searches
/// (starting two threads took about 0.3 ms, a tenth of a search on ADULT without
/// suppression); `None` if the threads cannot be started.
fn pool_of(threads: usize) -> Option<std::sync::Arc<rayon::ThreadPool>> {
    type Pools = std::sync::Mutex<Vec<(usize, std::sync::Arc<rayon::ThreadPool>)>>;
    static POOLS: std::sync::OnceLock<Pools> = std::sync::OnceLock::new();
    let mut pools = crate::sync::lock(POOLS.get_or_init(Default::default));
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Some(p.clone());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .ok()
        .map(std::sync::Arc::new)?;
    pools.push((threads, pool.clone()));
    Some(pool)
}

/// [`finished_on`] over a search's own fields, borrowed one by one so that its checker can be
/// borrowed mutably beside them.
macro_rules! finished_of {
    ($search:expr) => {
        finished_on(
            &$search.space,
            &$search.store,
            &$search.results,
            $search.finished,
            $search.classification,
        )
    };
}
use finished_of;

/// What marks a transformation finished for the checkers' histories ([`Finished`]), on the
/// search's borrowed parts (the checker is borrowed mutably beside them).
fn finished_on<'s, S: PropertyStore>(
    space: &'s Space,
    store: &'s S,
    results: &'s FxHashMap<NodeId, CheckResult>,
    finished: Finished,
    classification: Classification,
) -> impl Fn(&[usize]) -> bool + Sync + 's {
    move |lv: &[usize]| {
        let x = space.id(lv);
        (finished.checked && results.contains_key(&x))
            || known(store, results, classification, x, finished.bits)
    }
}

/// [`Search::has`] on borrowed parts (the checker's `finished` predicate needs it while the
/// checker is borrowed mutably).
fn known<S: PropertyStore>(
    store: &S,
    results: &FxHashMap<NodeId, CheckResult>,
    classification: Classification,
    id: NodeId,
    bits: u8,
) -> bool {
    if store.has(id, bits) {
        return true;
    }
    if classification == Classification::None && bits & prop::TAGGED != 0 {
        if let Some(r) = results.get(&id) {
            let bit = if r.anonymous {
                prop::ANONYMOUS
            } else {
                prop::NOT_ANONYMOUS
            };
            return bits & bit != 0;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Generalization, QuasiIdentifier};
    use crate::lattice::Antichain;
    use crate::metrics::MetricKind;
    use crate::privacy::SuppressionLimit;

    /// ADULT with its nine columns as quasi-identifiers, each with its hierarchy file (as
    /// `configs/adult.xml` has them).
    fn adult() -> EncodedTable {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adult");
        let names = [
            "sex",
            "age",
            "race",
            "marital-status",
            "education",
            "native-country",
            "workclass",
            "occupation",
            "salary-class",
        ];
        let qids: Vec<QuasiIdentifier> = names
            .iter()
            .enumerate()
            .map(|(index, name)| {
                let path = dir.join(format!("adult_hierarchy_{name}.csv"));
                let text = std::fs::read_to_string(&path).unwrap();
                let rows: Vec<Vec<String>> = text
                    .lines()
                    .map(|l| l.split(';').map(str::to_string).collect())
                    .collect();
                let hierarchy = crate::hierarchy::Hierarchy::from_label_rows(*name, &rows);
                QuasiIdentifier {
                    index,
                    name: name.to_string(),
                    generalization: Generalization::File { path, hierarchy },
                }
            })
            .collect();
        let source = crate::data::load::Source {
            path: &dir.join("adult.csv"),
            format: crate::io::Format::new(";", true).unwrap(),
            ids: &[],
            qids: &qids,
            sensitive: &[],
        };
        crate::data::load::load_table(&source, None, &mut ())
            .unwrap()
            .0
    }

    /// The final phase's best-first walk (lattices above [`super::super::DENSE_LIMIT`]) finds
    /// the loss the listing finds, on ADULT with suppression, for a metric with level bounds
    /// only and for ones with class bounds, on the antichain store it runs on.
    #[test]
    fn best_first_final_phase_finds_the_listed_optimum() {
        let table = adult();
        let metrics = [
            MetricKind::Loss,
            MetricKind::Entropy,
            MetricKind::Dm,
            MetricKind::Aecs,
        ];
        for metric in metrics {
            for (k, s) in [(5, 0.02), (50, 0.1)] {
                let budget = SuppressionLimit::Fraction(s).budget(table.rows() as u64);
                let run = |list_limit: u64| {
                    let criteria: Vec<Box<dyn PrivacyCriterion>> =
                        vec![Box::new(crate::privacy::KAnonymity { k })];
                    let metric = crate::metrics::build(metric, &table);
                    let mut search: Search<'_, Antichain> =
                        Search::new(&table, criteria, metric, budget, CheckerConfig::default())
                            .unwrap();
                    search.list_limit = list_limit;
                    super::super::flash::classify(&mut search);
                    search.optimize_remaining();
                    search.outcome()
                };
                let (listed, walked) = (run(u64::MAX), run(0));
                let (a, b) = (listed.optimum.unwrap(), walked.optimum.unwrap());
                assert!(
                    (a.loss - b.loss).abs() <= 1e-9 * a.loss.abs().max(1.0),
                    "{metric:?} k={k} s={s}: listed {a:?}, walked {b:?}"
                );
                assert!(walked.proven_optimal && listed.proven_optimal);
            }
        }
    }
}
