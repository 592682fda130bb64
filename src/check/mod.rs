//! The checker: transforms, groups and evaluates one transformation at a time.
//!
//! Given a levels vector, [`Checker::check`] picks a transition, builds the equivalence classes,
//! asks the privacy criteria which classes are outliers, applies the suppression budget and asks
//! the metric for the information loss. It never sees the lattice; the search passes a
//! `finished` predicate so the history can drop snapshots nobody will use.
//!
//! Transitions (each switchable off in [`CheckerConfig`] for the ablation benchmark):
//! - **plain**: every item (distinct input tuple with its count, or every row without
//!   deduplication, see `encode`). The transformer keeps a buffer with one packed key per row (the
//!   generalized row, see `encode`) at the buffer's levels; with **projection** only the columns
//!   whose level differs are rewritten, otherwise all are recomputed.
//! - **roll-up**: when the target generalizes the previous check's transformation, its classes
//!   are merged: each previous class's key is moved to the target levels (projection: only the
//!   changed columns, using its representative row) and inserted with its count.
//! - **snapshot**: from the history snapshot of a specialization with the fewest classes:
//!   `(representative, count)` pairs, each keyed from the buffer row of its representative plus
//!   the columns where the buffer's levels differ from the target's.
//!
//! The source with the fewest items wins (rows for plain, classes otherwise).
//!
//! **Hubs** (with the history, when the search's checks are scattered, see
//! [`Checker::set_scattered`]): when a transformation `T` has no source but the items, the
//! checker first groups the *meet* `H` of `T` and a recent transformation that had none either
//! (levels taken one by one as the smaller), keeps `H`'s classes as a snapshot (up to
//! [`HUB_MAX_FRACTION`] of the items, more than ordinary snapshots may hold), and rolls `H` up
//! to `T`. A search that works in one region of the lattice keeps coming back to
//! transformations above such a meet, which then start from its classes instead of every item
//! (the census benchmark at q=12: a seventh of the checks were from scratch and grouped two
//! thirds of all items; with hubs, a seventieth, and the search took half the time). Flash's
//! walks gain nothing from them (q=10: 27 % slower). The result never depends on it: a
//! roll-up groups exactly as a check from scratch.
//!
//! **Stopping early** (from [`STOP_EARLY_ITEMS`] items, see [`CheckerConfig::stop_early_items`]):
//! every class smaller than the criteria's minimum size `m` is an outlier, so an anonymous
//! transformation has at most `rows / m` kept classes plus `budget` outlier classes. A grouping
//! that passes that many classes stops: the transformation is not anonymous, whatever the rest
//! would give. On a huge input of nearly distinct tuples (the people benchmark: 20 M rows, 20 M
//! items) the transformations near the bottom would otherwise fill a table of as many classes as
//! items; stopped, no table grows past `rows / m` classes, and those checks take a fraction of
//! the time. Not with a research subset (classes of no released record), nor when the criteria
//! have a relaxed condition to report. The stopped check leaves no classes (no roll-up, no
//! snapshot from it) and no class bound: the search's results are the same, only its work
//! differs. Below the threshold the tables are small and an invalid transformation's classes
//! are worth keeping as the next roll-up's source, so checks run to the end.
//!
//! Roll-ups and snapshots move a key with one lookup per changed column: per check, each step
//! gets a table by leaf code of what it adds to its key word (`gm[to] - gm[from]`, wrapping), built
//! when it has no more entries than the source has classes (else the two-lookup `apply`).
//!
//! **Threads**: on inputs of [`SPLIT_CHECK_ITEMS`] items and more, a check from scratch splits
//! its items into ranges over the pool's threads and merges the ranges' tables
//! ([`Checker::set_pool`]); on inputs of [`TEAM_INPUT_ITEMS`] items and more below that, a
//! search splits every grouping and tally of [`TEAM_ITEMS`] items or more over a team of its
//! threads ([`Checker::set_team`], `team`): the items are laid out once in parts by one column's
//! values at one level, and a transformation at or below that level is grouped part by part
//! (`layout`), the others with their classes partitioned by hash (`partitioned`). Either way
//! the classes, and so every result, are those of one thread.
//!
//! State machine: the checker's state is (buffer levels: none | L, previous classes: none | P).
//! `plain(T)` moves the buffer to T (all rows, so the buffer is always consistent) and sets P = T;
//! `roll-up(T)` needs P <= T and sets P = T; `snapshot(T)` needs a buffer and a snapshot S <= T,
//! and sets P = T. Roll-ups and snapshots never write the buffer, so no transition can leave it
//! half-transformed; that is what makes projection after a roll-up safe.
//!
//! Research subset (δ-presence, `EncodedTable::with_subset`): counts and distributions cover the
//! released records only (item weights, see `encode`), except the membership column's, which
//! counts every record so δ-presence sees the population. Classes of count 0 (population records
//! only) are not classes of the released data: they are never outliers and are judged only by
//! criteria that [`PrivacyCriterion::judges_empty_classes`]; failing one makes the
//! transformation invalid, whatever the budget.

mod encode;
mod groupify;
mod history;
mod layout;
mod partitioned;
mod tally;
pub mod team;

use crate::data::{Codes, EncodedTable};
use crate::metrics::{ClassStats, Metric};
use crate::privacy::{ClassView, Distribution, PrivacyCriterion};
use crate::{Error, Result};
use encode::Encoding;
use groupify::{
    merge_csr, merge_slots, Csr, Groups, MergeBuffers, VERDICT_OK, VERDICT_OUTLIER, VERDICT_UNKNOWN,
};
use history::History;
use partitioned::Partitions;
use std::sync::Arc;
pub use team::Team;

/// The history's bytes by default: 256 MiB, a fraction of what a search's other structures
/// need at the sizes it serves, for a small loss of speed where it binds.
pub const HISTORY_MAX_BYTES: usize = 256 << 20;

/// Items from which checks stop early (module docs): below it the groupify tables are small and
/// the classes of an invalid transformation are worth keeping as the next roll-up's source.
pub const STOP_EARLY_ITEMS: usize = 1 << 19;

/// Items from which a check from scratch is split over the threads of the checker's pool
/// ([`Checker::set_pool`]). Below it, Flash gains more from a lookahead worker on the other
/// thread (see `algorithms::lookahead`), since most checks are roll-ups and snapshots there:
/// census benchmark at q=10 (101,778 items), 2 threads: 6.05 s with the lookahead, 6.88 s
/// split, 6.99 s on one thread; people 1M (about 10^6 items): 0.78 s with the lookahead, 0.51 s
/// split, 0.64 s on one thread. On ADULT (19,502 items) splitting alone was slower than one
/// thread (0.160 against 0.136 s).
pub const SPLIT_CHECK_ITEMS: usize = 1 << 19;

/// Items (or source classes, or classes to tally) from which a check is split over the
/// checker's team ([`Checker::set_team`], see `partitioned`): below, the hand-overs (about a
/// microsecond each, three per check) cost more than half the work saves.
pub const TEAM_ITEMS: usize = 2048;

/// Distinct tuples from which a search splits its checks over a team ([`Checker::set_team`])
/// instead of running a lookahead worker, below [`SPLIT_CHECK_ITEMS`]. Measured on 2 cores
/// (search time, 1 thread -> 2 threads): CUP (63,441 items) k=5 2 % Loss 0.34 s -> 0.22 s on
/// the team, 0.34 s with the lookahead; with distributions to merge (the census benchmark at
/// q=10, 101,778 items, t-closeness): 152 s on one thread, 109 s on the team, 127 s with the
/// lookahead. On ADULT (19,502 items) the team split by hash and the lookahead each won some
/// rows; with the items laid out in parts (see `layout`) the team wins 10 of 14 rows with
/// suppression (k=5 2 % Precision 0.169 s -> 0.143 s with the lookahead, 0.124 s on the team;
/// 4 % Loss 0.071 -> 0.084 / 0.061 s; 4 % DM 0.194 -> 0.151 / 0.167 s).
pub const TEAM_INPUT_ITEMS: usize = 1 << 14;

/// Largest part of the items laid out for a team, relative to an equal share
/// ([`CheckerConfig::layout_balance`]): a grouping on the team takes as long as its largest
/// part. On ADULT with two parts, age at level 3 splits the items 50.5 / 49.5.
pub const LAYOUT_BALANCE: f64 = 1.1;

/// Transformations without a source remembered for choosing hubs (module docs).
const HUB_WINDOW: usize = 4;

/// Largest hub kept, in classes relative to the items: a hub pays when it has clearly fewer
/// classes than the items it replaces.
const HUB_MAX_FRACTION: f64 = 0.5;

/// Switches and controls of the checker's optimizations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckerConfig {
    /// Rewrite only the columns whose level changed.
    pub projection: bool,
    /// Merge the previous check's classes when the target generalizes it.
    pub rollup: bool,
    /// Keep snapshots of earlier classes.
    pub history: bool,
    /// Group identical input tuples once, so checks from scratch cost distinct tuples, not rows.
    pub dedup: bool,
    /// Largest snapshot, in classes relative to rows (paper: 0.2).
    pub snapshot_max_fraction: f64,
    /// A new snapshot must have at most this fraction of the classes of the best snapshot that
    /// could already serve its transformation (ARX: 0.8).
    pub snapshot_min_reduction: f64,
    /// Number of snapshots kept (paper: 200).
    pub history_capacity: usize,
    /// Most bytes the snapshots may hold in all (see `history`).
    pub history_max_bytes: usize,
    /// Group a hub below transformations that have no source but the items (module docs).
    pub hubs: bool,
    /// Stop grouping a transformation once it has more classes than an anonymous one can have
    /// (module docs), when there are at least this many items; `usize::MAX`: never.
    pub stop_early_items: usize,
    /// Split a check from scratch over the threads of the checker's pool
    /// ([`Checker::set_pool`]) when there are at least this many items; `usize::MAX`: never.
    pub split_items: usize,
    /// Split a check over the checker's team ([`Checker::set_team`]) when it groups or tallies
    /// at least this many items or classes.
    pub team_items: usize,
    /// A search with more than one thread splits its checks over a team, instead of running a
    /// lookahead worker, from this many items (and below `split_items`); `usize::MAX`: never.
    pub team_input_items: usize,
    /// Largest part of the items laid out for a team, relative to an equal share (see
    /// `layout`); `f64::INFINITY` accepts any split, `0.0` none.
    pub layout_balance: f64,
}

impl Default for CheckerConfig {
    fn default() -> Self {
        CheckerConfig {
            projection: true,
            rollup: true,
            history: true,
            dedup: true,
            snapshot_max_fraction: 0.2,
            snapshot_min_reduction: 0.8,
            history_capacity: 200,
            history_max_bytes: HISTORY_MAX_BYTES,
            hubs: true,
            stop_early_items: STOP_EARLY_ITEMS,
            split_items: SPLIT_CHECK_ITEMS,
            team_items: TEAM_ITEMS,
            team_input_items: TEAM_INPUT_ITEMS,
            layout_balance: LAYOUT_BALANCE,
        }
    }
}

impl CheckerConfig {
    /// Every optimization off: each check transforms and groups all rows.
    pub fn plain() -> CheckerConfig {
        CheckerConfig {
            projection: false,
            rollup: false,
            history: false,
            dedup: false,
            hubs: false,
            stop_early_items: usize::MAX,
            split_items: usize::MAX,
            team_input_items: usize::MAX,
            ..CheckerConfig::default()
        }
    }
}

/// Which transition built the classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Plain,
    Rollup,
    Snapshot,
}

/// The verdict on one transformation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckResult {
    /// The outlier records fit the suppression budget (and, with a research subset, no class
    /// without released records fails).
    pub anonymous: bool,
    /// Released records in outlier classes (suppressed if `anonymous`).
    pub suppressed: u64,
    /// Classes that are not outliers (classes without released records excluded).
    pub classes: u64,
    /// All classes, outliers included (classes without released records excluded).
    ///
    /// For a check that stopped at the class limit (module docs), `suppressed`, `classes` and
    /// `all_classes` are lower bounds: the budget + 1, 0 and the limit + 1.
    pub all_classes: u64,
    /// The monotonic necessary condition of the criteria holds within the budget (classes
    /// failing a criterion's [`relaxation`](PrivacyCriterion::relaxation), a monotonic criterion
    /// or a minimum size fit the budget). If false, no specialization is anonymous either.
    /// Equal to `anonymous` when the criteria are monotonic.
    pub relaxed: bool,
    /// Information loss, if `anonymous`, unless the metric's level bound already reached the
    /// cutoff set by [`Checker::set_loss_cutoff`] (then `None` though `anonymous`).
    pub loss: Option<f64>,
    /// The metric's lower bound for every generalization, if it has one.
    pub class_bound: Option<f64>,
    pub source: Source,
}

/// Work counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckerStats {
    pub checks: u64,
    pub plain: u64,
    pub rollups: u64,
    pub snapshots: u64,
    /// Items (input tuples or classes) inserted into the groupify table.
    pub items: u64,
    /// Cells (item x column) transformed.
    pub cells: u64,
    pub snapshots_stored: u64,
    /// Hubs grouped (counted in `plain` too: each groups every item).
    pub hubs: u64,
    /// Peak bytes held by the history.
    pub history_peak_bytes: usize,
    /// Checks stopped at the class limit (counted in `plain`, `rollups` or `snapshots` too).
    pub stopped: u64,
    /// Checks from scratch split over the threads ([`Checker::set_pool`], counted in `plain`).
    pub split: u64,
    /// Groupings and tallies split over the team ([`Checker::set_team`]).
    pub team: u64,
    /// Of those, groupings whose parts were the items' parts, with no lists (see `layout`).
    pub covered: u64,
}

impl CheckerStats {
    /// Adds another checker's counters (of another thread of the same search); peaks add up
    /// too, since the threads' histories coexist.
    pub fn add(&mut self, o: &CheckerStats) {
        self.checks += o.checks;
        self.plain += o.plain;
        self.rollups += o.rollups;
        self.snapshots += o.snapshots;
        self.items += o.items;
        self.cells += o.cells;
        self.snapshots_stored += o.snapshots_stored;
        self.hubs += o.hubs;
        self.history_peak_bytes += o.history_peak_bytes;
        self.stopped += o.stopped;
        self.split += o.split;
        self.team += o.team;
        self.covered += o.covered;
    }
}

/// One class of the current grouping, decoded (for tests and diagnostics).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Class {
    /// Hierarchy ids at the transformation's levels, decoded from the class key.
    pub ids: Vec<u32>,
    /// Released records (all records, without a research subset).
    pub count: u64,
    /// Per distribution slot: (sensitive code, count), codes ascending.
    pub distributions: Vec<Vec<(u32, u32)>>,
    /// Hierarchy ids of the representative row (must equal `ids`).
    pub rep_ids: Vec<u32>,
}

trait Core<'a>: Send {
    /// A fresh engine over the same shared part (see [`Checker::fork`]).
    fn fork(&self) -> Box<dyn Core<'a> + 'a>;
    fn check(&mut self, levels: &[usize], finished: &dyn Fn(&[usize]) -> bool) -> CheckResult;
    fn classes(&self) -> Vec<Class>;
    fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool>;
    fn stats(&self) -> &CheckerStats;
    fn metric(&self) -> &dyn Metric;
    fn set_store_anonymous(&mut self, yes: bool);
    fn scale_history(&mut self, factor: usize);
    fn set_scattered(&mut self);
    fn set_loss_cutoff(&mut self, cutoff: Option<f64>);
    fn split_history(&mut self, parts: usize);
    fn free_buffers(&mut self);
    fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>);
    fn set_team(&mut self, team: Option<Arc<Team>>);
    fn prefers_team(&self) -> bool;
    fn splits_checks(&self) -> bool;
    fn share_classes(&self) -> Option<SharedClasses>;
    fn kept(&mut self) -> Option<SharedClasses>;
    fn adopt(&mut self, classes: SharedClasses, finished: &dyn Fn(&[usize]) -> bool);
}

/// The classes of a check, handed from one checker to another of the same table
/// ([`Checker::share_classes`], [`Checker::kept`], [`Checker::adopt`]): the transformation
/// and its classes, shared, never copied, between the histories that keep them.
#[derive(Clone)]
pub struct SharedClasses {
    levels: Vec<usize>,
    classes: Arc<history::Classes>,
}

/// The checker of one table, privacy criteria, metric and suppression budget.
pub struct Checker<'a> {
    core: Box<dyn Core<'a> + 'a>,
    classification: Classification,
    budget: u64,
}

/// How far a search may classify the lattice by predictive tagging.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classification {
    /// All criteria are monotonic: tag anonymity both ways.
    Exact,
    /// Some criterion is not, but a monotonic necessary condition exists
    /// ([`CheckResult::relaxed`]): tag by it (its failure makes every specialization invalid).
    Relaxed,
    /// Nothing to tag by: every transformation must be checked (or pruned by a bound).
    None,
}

impl<'a> Checker<'a> {
    /// A checker for `table`. `budget` is the number of records that may be suppressed.
    pub fn new(
        table: &'a EncodedTable,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
        metric: Box<dyn Metric>,
        budget: u64,
        config: CheckerConfig,
    ) -> Result<Checker<'a>> {
        if table.rows() >= u32::MAX as usize {
            return Err(Error::Invalid(format!(
                "{} records are too many for the in-memory engine",
                table.rows()
            )));
        }
        for c in &criteria {
            for &s in &c.requirements().distributions {
                if s >= table.sensitive.len() {
                    return Err(Error::Invalid(format!(
                        "{} needs sensitive attribute #{s}, but the table has {}",
                        c.name(),
                        table.sensitive.len()
                    )));
                }
            }
        }
        let suppression = budget > 0;
        let classification = if criteria.iter().all(|c| c.is_monotonic(suppression)) {
            Classification::Exact
        } else if criteria.iter().any(|c| {
            c.is_monotonic(suppression)
                || c.requirements().min_class_size > 1
                || c.relaxation().is_some_and(|r| r.is_monotonic(suppression))
        }) {
            Classification::Relaxed
        } else {
            Classification::None
        };
        let enc = Encoding::new(table, config.dedup);
        let core: Box<dyn Core<'a> + 'a> = match enc.words {
            1 => Box::new(Engine::<1>::new(
                table, enc, criteria, metric, budget, config,
            )),
            2 => Box::new(Engine::<2>::new(
                table, enc, criteria, metric, budget, config,
            )),
            3 => Box::new(Engine::<3>::new(
                table, enc, criteria, metric, budget, config,
            )),
            4 => Box::new(Engine::<4>::new(
                table, enc, criteria, metric, budget, config,
            )),
            5..=8 => Box::new(Engine::<8>::new(
                table, enc, criteria, metric, budget, config,
            )),
            w => {
                return Err(Error::Invalid(format!(
                    "the quasi-identifiers need {w} 64-bit words per record; the in-memory \
                     engine supports 8 (use fewer quasi-identifiers)"
                )))
            }
        };
        Ok(Checker {
            core,
            classification,
            budget,
        })
    }

    /// Another checker of the same table, criteria, metric and budget, for another thread: it
    /// shares this one's encoding, base distributions and cached verdicts (built once) and has
    /// its own groupify tables, buffers, snapshot history and statistics (empty).
    pub fn fork(&self) -> Checker<'a> {
        Checker {
            core: self.core.fork(),
            classification: self.classification,
            budget: self.budget,
        }
    }

    /// Checks the transformation `levels`. `finished(levels)` tells whether the search will never
    /// check a transformation again (used to drop useless snapshots).
    pub fn check(&mut self, levels: &[usize], finished: &dyn Fn(&[usize]) -> bool) -> CheckResult {
        self.core.check(levels, finished)
    }

    /// The classes of the last check, decoded.
    pub fn classes(&self) -> Vec<Class> {
        self.core.classes()
    }

    /// For the transformation `levels`, which released rows fall into outlier classes (rows
    /// outside a research subset are never outliers).
    pub fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool> {
        self.core.outlier_rows(levels)
    }

    pub fn stats(&self) -> &CheckerStats {
        self.core.stats()
    }

    pub fn metric(&self) -> &dyn Metric {
        self.core.metric()
    }

    /// The suppression budget in records.
    pub fn budget(&self) -> u64 {
        self.budget
    }

    /// How a search may tag, given the criteria and the suppression setting.
    pub fn classification(&self) -> Classification {
        self.classification
    }

    /// Whether snapshots of anonymous transformations are stored (default: no, as in ARX: a
    /// monotonic search never checks their generalizations).
    pub fn set_store_anonymous(&mut self, yes: bool) {
        self.core.set_store_anonymous(yes)
    }

    /// Keeps `factor` times the configured number of snapshots (if the history is on).
    pub fn scale_history(&mut self, factor: usize) {
        self.core.scale_history(factor)
    }

    /// Tells the checker that the search's checks are scattered over the lattice (best-first
    /// search) rather than walking paths upward (Flash, OLA): the history then drops the least
    /// recently used snapshots only, without the path heuristic, and builds hubs (module docs).
    pub fn set_scattered(&mut self) {
        self.core.set_scattered()
    }

    /// From now on, a transformation whose level bound is at least `cutoff` gets no loss
    /// computed even when anonymous: the search has a result that loses no more. Computing the
    /// loss reads every suppressed record's row (Loss: a quarter of a best-first search's time
    /// at q=12 of the census benchmark, where most valid checks are far above the best).
    pub fn set_loss_cutoff(&mut self, cutoff: Option<f64>) {
        self.core.set_loss_cutoff(cutoff)
    }

    /// Gives this checker's history a `parts`-th of the configured bytes, so that the checkers
    /// of `parts` threads hold no more together than one would alone.
    pub fn split_history(&mut self, parts: usize) {
        self.core.split_history(parts)
    }

    /// Lets checks from scratch of at least [`SPLIT_CHECK_ITEMS`] items run on `pool`'s threads
    /// (see `Engine::plain_split`: the same classes, in the same order, as on one thread).
    /// Forks do not split. Never while this checker runs on one of `pool`'s threads beside
    /// other checkers that take their jobs from the same pool: a thread waiting for its ranges
    /// runs other jobs of the pool, which could be a check of this very checker.
    pub fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>) {
        self.core.set_pool(pool)
    }

    /// Lets checks of [`CheckerConfig::team_items`] items and more be split over `team`'s
    /// threads (see `layout` and `partitioned`); `None`: on the calling thread only. The first
    /// team, if this checker has not been forked yet, lays the items out in its number of
    /// parts (`layout`), which drops the checker's classes and snapshots: set it before a
    /// search, not in the middle of one.
    pub fn set_team(&mut self, team: Option<Arc<Team>>) {
        self.core.set_team(team)
    }

    /// True if a search with more than one thread should split this checker's checks over a
    /// team rather than evaluate ahead with a second checker (see
    /// [`CheckerConfig::team_input_items`]).
    pub fn prefers_team(&self) -> bool {
        self.core.prefers_team()
    }

    /// The classes of the last check, if it completed and its classes are few enough for a
    /// snapshot: for another checker of the same table to keep ([`Checker::adopt`]). Classes
    /// are (representative item, count) pairs of the shared encoding, so they are the same in
    /// every checker.
    pub fn share_classes(&self) -> Option<SharedClasses> {
        self.core.share_classes()
    }

    /// The classes the last check kept as a snapshot, if it kept one (taken: the next call
    /// returns `None`). Sharing them costs no copy: the histories hold the same classes.
    pub fn kept(&mut self) -> Option<SharedClasses> {
        self.core.kept()
    }

    /// Offers `classes` from another checker to the history, under the history's rules (see
    /// `history`): a later check of a generalization may start from them.
    pub fn adopt(&mut self, classes: SharedClasses, finished: &dyn Fn(&[usize]) -> bool) {
        self.core.adopt(classes, finished)
    }

    /// True if this checker's checks from scratch split over the threads of its pool
    /// ([`Checker::set_pool`]).
    pub fn splits_checks(&self) -> bool {
        self.core.splits_checks()
    }

    /// Frees the buffer, the groupify tables and the history (when the search is over: the
    /// release is computed next, and these would only add to its peak memory). Checks still
    /// work afterwards, from scratch.
    pub fn free_buffers(&mut self) {
        self.core.free_buffers()
    }
}

/// One transition step: column `j` in key word `word`, from level `from` (None: not yet
/// transformed) to level `to`.
#[derive(Debug, Clone, Copy)]
struct Step {
    j: usize,
    word: usize,
    from: Option<usize>,
    to: usize,
}

/// What every thread's engine shares, built once per search (encoding, criteria, metric, base
/// distributions and cached verdicts); read-only during checks.
struct Shared<'a> {
    table: &'a EncodedTable,
    enc: Encoding<'a>,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    /// Criteria that need `is_satisfied` (not size-only).
    evaluated: Vec<usize>,
    /// Whether verdicts of the monotonic relaxation are computed (some criterion is not
    /// monotonic), with its criteria (indices into `criteria`: the monotonic criteria and the
    /// relaxations, which follow the job's criteria) and minimum class size.
    relaxing: bool,
    relaxed_set: Vec<usize>,
    relaxed_min_size: u64,
    /// Criteria that judge classes without released records.
    judges_empty: Vec<usize>,
    /// The items' parts for a team, once laid out (see `layout`).
    item_parts: Option<layout::ItemParts>,
    /// Per criterion, its distributions' slots.
    maps: Vec<Vec<usize>>,
    min_size: u64,
    /// Sensitive column of each distribution slot.
    slots: Vec<usize>,
    metric: Box<dyn Metric>,
    budget: u64,
    config: CheckerConfig,
    /// Size of the sensitive domain of each distribution slot (codes are below it).
    domains: Vec<usize>,
    /// Per slot, the distributions of the items.
    base_dist: Vec<Csr>,
    /// Per item, its verdict as a class of its own (when verdicts are cached).
    base_verdict: Vec<u8>,
    /// Most classes an anonymous transformation can have, if checks stop early (module docs);
    /// `usize::MAX` otherwise.
    class_limit: usize,
}

/// One thread's checker state over the [`Shared`] part: its groupify tables, buffers and
/// snapshot history.
struct Engine<'a, const W: usize> {
    s: Arc<Shared<'a>>,
    store_anonymous: bool,
    buffer: Vec<[u64; W]>,
    buffer_levels: Option<Vec<usize>>,
    groups: Groups<W>,
    spare: Groups<W>,
    history: History,
    outliers: Vec<(u32, u32)>,
    targets: Vec<u32>,
    steps: Vec<Step>,
    /// Per-code key deltas of the planned steps (see `plan_deltas`), and where each step's start.
    deltas: Vec<u64>,
    delta_at: Vec<usize>,
    stats: CheckerStats,
    last_plain_classes: usize,
    merge_buffers: MergeBuffers,
    /// The search's checks are scattered ([`Checker::set_scattered`]).
    scattered: bool,
    /// See [`Checker::set_loss_cutoff`].
    loss_cutoff: Option<f64>,
    /// The last transformations that had no source but the items, newest last (for hubs).
    recent_plain: Vec<Vec<usize>>,
    /// Threads a large check from scratch is split over ([`Checker::set_pool`]).
    pool: Option<Arc<rayon::ThreadPool>>,
    /// The tables of a split check's ranges, one per range; the first range's becomes the
    /// checker's table (see [`Engine::plain_split`]).
    chunks: Vec<Chunk<W>>,
    /// The snapshot the last check kept ([`Checker::kept`]).
    kept: Option<SharedClasses>,
    /// The team checks are split over ([`Checker::set_team`]), and its buffers.
    team: Option<Arc<Team>>,
    partitions: Partitions<W>,
    /// Per part of a split tally, its outliers.
    part_outliers: Vec<partitioned::Padded<Vec<(u32, u32)>>>,
}

/// One range of a split check: its classes and its items' classes in them. Aligned to its own
/// cache lines: each range's thread pushes to its vectors, and neighbours' lengths would
/// otherwise share a line.
#[repr(align(128))]
struct Chunk<const W: usize> {
    groups: Groups<W>,
    targets: Vec<u32>,
    /// Items grouped, negated if the range stopped at the class limit.
    done: isize,
}

impl<const W: usize> Chunk<W> {
    fn new(slots: usize) -> Chunk<W> {
        Chunk {
            groups: Groups::new(slots),
            targets: Vec::new(),
            done: 0,
        }
    }
}

impl<'a> Shared<'a> {
    /// True if class verdicts are cached and inherited (criteria that read distributions).
    fn caches_verdicts(&self) -> bool {
        !self.evaluated.is_empty() && !self.slots.is_empty()
    }

    fn needs_targets(&self) -> bool {
        !self.slots.is_empty()
    }

    /// True if a class of `count` (released) records whose distributions are class `e` of
    /// `dist` satisfies every criterion.
    fn judge<'g>(
        &self,
        count: u64,
        dist: &'g [Csr],
        e: usize,
        views: &mut Vec<Distribution<'g>>,
    ) -> bool {
        // A class without released records (count 0, research subset only) is judged only by
        // the criteria that judge such classes.
        let judges = if count == 0 {
            &self.judges_empty
        } else if count < self.min_size {
            return false;
        } else {
            &self.evaluated
        };
        if judges.is_empty() {
            return true;
        }
        views.clear();
        for d in dist {
            let (codes, counts) = d.class(e);
            views.push(Distribution { codes, counts });
        }
        judges
            .iter()
            .all(|&i| self.criteria[i].is_satisfied(&ClassView::new(count, views, &self.maps[i])))
    }

    /// True if a class (as in [`Self::judge`]) satisfies the monotonic relaxation.
    fn judge_relaxed<'g>(
        &self,
        count: u64,
        dist: &'g [Csr],
        e: usize,
        views: &mut Vec<Distribution<'g>>,
    ) -> bool {
        if count < self.relaxed_min_size {
            return false;
        }
        if self.relaxed_set.is_empty() {
            return true;
        }
        views.clear();
        for d in dist {
            let (codes, counts) = d.class(e);
            views.push(Distribution { codes, counts });
        }
        self.relaxed_set
            .iter()
            .all(|&i| self.criteria[i].is_satisfied(&ClassView::new(count, views, &self.maps[i])))
    }
}

impl<'a, const W: usize> Engine<'a, W> {
    fn new(
        table: &'a EncodedTable,
        enc: Encoding<'a>,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
        metric: Box<dyn Metric>,
        budget: u64,
        config: CheckerConfig,
    ) -> Self {
        let suppression = budget > 0;
        let relaxing = !criteria.iter().all(|c| c.is_monotonic(suppression));
        let job_criteria = criteria.len();
        let mut criteria = criteria;
        let mut relaxed_set = Vec::new();
        if relaxing {
            for i in 0..job_criteria {
                if criteria[i].is_monotonic(suppression) {
                    relaxed_set.push(i);
                } else if let Some(r) = criteria[i].relaxation() {
                    if r.is_monotonic(suppression) {
                        relaxed_set.push(criteria.len());
                        criteria.push(r);
                    }
                }
            }
        }
        let mut slots: Vec<usize> = Vec::new();
        let mut maps = Vec::new();
        let mut evaluated = Vec::new();
        let mut judges_empty = Vec::new();
        let mut min_size = 1;
        let mut relaxed_min_size = 1;
        for (i, c) in criteria.iter().enumerate() {
            let req = c.requirements();
            if i < job_criteria {
                min_size = min_size.max(req.min_class_size);
            }
            relaxed_min_size = relaxed_min_size.max(req.min_class_size);
            let map = req
                .distributions
                .iter()
                .map(|s| match slots.iter().position(|x| x == s) {
                    Some(p) => p,
                    None => {
                        slots.push(*s);
                        slots.len() - 1
                    }
                })
                .collect();
            maps.push(map);
            if i < job_criteria && !c.size_only() {
                evaluated.push(i);
            }
            if i < job_criteria && c.judges_empty_classes() {
                judges_empty.push(i);
            }
        }
        relaxed_set.retain(|&i| !criteria[i].size_only());
        let domains: Vec<usize> = slots
            .iter()
            .map(|&s| {
                let col = &table.sensitive[s];
                let top = col.codes.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
                col.values.len().max(top)
            })
            .collect();
        let mut merge_buffers = MergeBuffers::default();
        let base_dist = slots
            .iter()
            .zip(&domains)
            .map(|(&s, &m)| {
                // Each row is a source "class" of one record; with a research subset, of none
                // unless released (the membership column counts every record).
                let col = &table.sensitive[s].codes;
                let rows = match table.subset() {
                    Some(members) if table.subset_column() != Some(s) => {
                        let mut rows = groupify::Csr::default();
                        rows.offsets.push(0);
                        for (&c, &m) in col.iter().zip(members) {
                            if m {
                                rows.codes.push(c);
                                rows.counts.push(1);
                            }
                            rows.offsets.push(rows.codes.len() as u32);
                        }
                        rows
                    }
                    _ => groupify::Csr {
                        offsets: (0..=col.len() as u32).collect(),
                        codes: col.clone(),
                        counts: vec![1; col.len()],
                    },
                };
                let mut out = Csr::default();
                let row_item = enc.row_items();
                merge_csr(
                    &mut out,
                    enc.items(),
                    &row_item,
                    &rows,
                    m,
                    &mut merge_buffers,
                    None,
                );
                out
            })
            .collect();
        let mut shared = Shared {
            table,
            enc,
            criteria,
            evaluated,
            relaxing,
            relaxed_set,
            relaxed_min_size,
            judges_empty,
            maps,
            min_size,
            slots,
            metric,
            budget,
            config,
            domains,
            base_dist,
            base_verdict: Vec::new(),
            class_limit: usize::MAX,
            item_parts: None,
        };
        // Every class below `min_size` is an outlier, so an anonymous transformation has at most
        // rows / min_size kept classes and `budget` outlier classes (each of at least one record:
        // without a research subset no class is empty). The relaxed verdict is not derived.
        if shared.enc.items() >= config.stop_early_items
            && shared.min_size > 1
            && !shared.relaxing
            && table.subset().is_none()
        {
            let limit = shared.enc.rows as u64 / shared.min_size + budget;
            shared.class_limit = usize::try_from(limit).unwrap_or(usize::MAX);
        }
        if shared.caches_verdicts() {
            let mut views = Vec::new();
            shared.base_verdict = (0..shared.enc.items())
                .map(|i| {
                    let count = shared.enc.weights[i] as u64;
                    verdict(shared.judge(count, &shared.base_dist, i, &mut views))
                })
                .collect();
        }
        Self::with_shared(Arc::new(shared), merge_buffers)
    }

    /// A fresh engine (empty buffer, tables and history) over `s`.
    fn with_shared(s: Arc<Shared<'a>>, merge_buffers: MergeBuffers) -> Self {
        let config = s.config;
        let max_levels = s.table.hierarchies.iter().map(|h| h.max_level()).collect();
        let max_classes = (config.snapshot_max_fraction * s.table.rows() as f64) as usize;
        let nslots = s.slots.len();
        Engine {
            s,
            store_anonymous: false,
            buffer: Vec::new(),
            buffer_levels: None,
            groups: Groups::new(nslots),
            spare: Groups::new(nslots),
            history: History::new(
                if config.history {
                    config.history_capacity
                } else {
                    0
                },
                max_classes,
                config.snapshot_min_reduction,
                max_levels,
                config.history_max_bytes,
            ),
            outliers: Vec::new(),
            targets: Vec::new(),
            steps: Vec::new(),
            deltas: Vec::new(),
            delta_at: Vec::new(),
            stats: CheckerStats::default(),
            last_plain_classes: 0,
            merge_buffers,
            scattered: false,
            loss_cutoff: None,
            recent_plain: Vec::new(),
            pool: None,
            chunks: Vec::new(),
            kept: None,
            team: None,
            partitions: Partitions::new(),
            part_outliers: Vec::new(),
        }
    }

    /// Steps that move keys at levels `from` (None: zero keys) to `to`.
    fn plan(&mut self, from: Option<&[usize]>, to: &[usize]) {
        self.steps.clear();
        for j in 0..self.s.enc.dims {
            let f = if self.s.config.projection {
                from.map(|f| f[j])
            } else {
                None
            };
            if f != Some(to[j]) {
                self.steps.push(Step {
                    j,
                    word: self.s.enc.word[j],
                    from: f,
                    to: to[j],
                });
            }
        }
    }

    /// Applies the planned steps to one key, for source row `row`.
    #[inline]
    fn apply(enc: &Encoding, steps: &[Step], key: &mut [u64; W], row: usize) {
        for s in steps {
            let l = enc.levels[s.j];
            let base = enc.codes[s.j].get(row) as usize * l;
            let g = &enc.gm[s.j];
            let add = g[base + s.to];
            key[s.word] = match s.from {
                Some(f) => key[s.word].wrapping_sub(g[base + f]).wrapping_add(add),
                None => key[s.word].wrapping_add(add),
            };
        }
    }

    /// Builds `deltas` for the planned steps if that costs at most `items` entries: per step, for
    /// every code of its column, what the step adds to the key word (`gm[to] - gm[from]`), so a
    /// key moves with one lookup per step. Returns false (deltas not built) otherwise.
    fn plan_deltas(&mut self, items: usize) -> bool {
        let total: usize = self
            .steps
            .iter()
            .map(|s| self.s.enc.gm[s.j].len() / self.s.enc.levels[s.j].max(1))
            .sum();
        if total > items {
            return false;
        }
        self.deltas.clear();
        self.delta_at.clear();
        for s in &self.steps {
            let l = self.s.enc.levels[s.j];
            let g = &self.s.enc.gm[s.j];
            self.delta_at.push(self.deltas.len());
            self.deltas
                .extend(g.chunks_exact(l).map(|row| match s.from {
                    Some(f) => row[s.to].wrapping_sub(row[f]),
                    None => row[s.to],
                }));
        }
        true
    }

    /// The planned steps with their deltas resolved (after [`Self::plan_deltas`] built them,
    /// `use_deltas`): per step, its column's codes, its deltas by code and its key word; none
    /// without deltas (the steps then go by two lookups in `gm`, [`Self::apply`]).
    fn resolve<'e>(
        enc: &'e Encoding,
        steps: &[Step],
        deltas: &'e [u64],
        delta_at: &[usize],
        use_deltas: bool,
    ) -> Vec<(Codes<'e>, &'e [u64], usize)> {
        if !use_deltas {
            return Vec::new();
        }
        steps
            .iter()
            .zip(delta_at)
            .map(|(s, &at)| {
                let n = enc.gm[s.j].len() / enc.levels[s.j].max(1);
                (enc.codes[s.j].view(), &deltas[at..at + n], s.word)
            })
            .collect()
    }

    /// Applies resolved steps ([`Self::resolve`]) to one key, for source row `row`.
    #[inline(always)]
    fn apply_deltas(cols: &[(Codes<'_>, &[u64], usize)], key: &mut [u64; W], row: usize) {
        for &(codes, deltas, word) in cols {
            key[word] = key[word].wrapping_add(deltas[codes.get(row) as usize]);
        }
    }

    /// The hub to group before `levels`, which has no source but the items: its meet with the
    /// newest recent such transformation that is neither `levels` nor that transformation
    /// (which, having no snapshot, was too large to keep or was dropped). See the module docs.
    fn hub_below(&self, levels: &[usize]) -> Option<Vec<usize>> {
        let c = &self.s.config;
        if !self.scattered || !c.hubs || !c.history || c.history_capacity == 0 {
            return None;
        }
        self.recent_plain.iter().rev().find_map(|p| {
            let meet: Vec<usize> = p.iter().zip(levels).map(|(&a, &b)| a.min(b)).collect();
            (meet != levels && meet != *p).then_some(meet)
        })
    }

    /// Keeps the current classes (of `levels`) as a snapshot if the history's controls allow;
    /// `max_classes` replaces its own limit of classes (hubs, see the module docs).
    fn keep_groups(
        &mut self,
        levels: &[usize],
        max_classes: Option<usize>,
        finished: &dyn Fn(&[usize]) -> bool,
    ) {
        let g = &self.groups;
        let kept = self
            .history
            .store(levels, g.len(), max_classes, finished, |s| {
                s.reps.extend_from_slice(&g.reps);
                s.counts.extend_from_slice(&g.counts);
                s.dist.clone_from(&g.dist);
                s.verdict.clone_from(&g.verdict);
            });
        if let Some(classes) = kept {
            Self::count_stored(&mut self.stats, &self.history);
            self.kept = Some(SharedClasses {
                levels: levels.to_vec(),
                classes,
            });
        }
    }

    /// Counts a snapshot the history has just stored.
    fn count_stored(stats: &mut CheckerStats, history: &History) {
        stats.snapshots_stored += 1;
        stats.history_peak_bytes = stats.history_peak_bytes.max(history.bytes());
    }

    /// Groups every item at `levels`; false if it stopped at the class limit (module docs).
    /// From [`SPLIT_CHECK_ITEMS`] items, with a pool ([`Checker::set_pool`]), the items are
    /// split over its threads (see [`Self::plain_split`]).
    fn plain(&mut self, levels: &[usize]) -> bool {
        let n = self.s.enc.items();
        // The team merges the distributions itself.
        let mut merged = false;
        let complete = match (self.pool.clone(), self.team.clone()) {
            (_, Some(team)) if n >= self.s.config.team_items => {
                merged = true;
                if self.covers(levels) {
                    self.stats.covered += 1;
                    self.plain_covered(levels, &team)
                } else {
                    self.plain_team(levels, &team)
                }
            }
            (Some(pool), _) if n >= self.s.config.split_items && pool.current_num_threads() > 1 => {
                self.plain_split(levels, &pool)
            }
            _ => {
                let use_deltas = self.prepare_transform(levels);
                let mut buffer = std::mem::take(&mut self.buffer);
                let cols = self.step_columns(use_deltas);
                Self::transform_range(&self.s.enc, &self.steps, &cols, &mut buffer, 0);
                self.buffer = buffer;
                let track = self.s.needs_targets();
                self.targets.clear();
                self.groups.reset(n.min(self.last_plain_classes.max(1024)));
                let done = Self::group_range(
                    &mut self.groups,
                    &self.buffer,
                    &self.s.enc.weights,
                    0,
                    self.s.class_limit,
                    track.then_some(&mut self.targets),
                );
                self.stats.items += done.unsigned_abs() as u64;
                done >= 0
            }
        };
        self.buffer_levels = Some(levels.to_vec());
        self.stats.cells += (n * self.steps.len()) as u64;
        self.last_plain_classes = self.groups.len();
        if complete && !merged {
            self.merge_item_distributions();
        }
        complete
    }

    /// [`Self::plain`] over the pool's threads. The items are cut into one consecutive range
    /// per thread; each thread moves its range's buffer keys and groups them into a table of
    /// its own. The other tables are then inserted, in range order and each in its own order,
    /// into the first range's, which becomes the checker's: a class
    /// keeps the representative and the place of its first item, so the result is the very
    /// table one thread builds (same classes, counts, representatives and order), whatever
    /// the number of threads. The merge is sequential and costs the other ranges' classes,
    /// so the split pays when classes are fewer than items (on the people benchmark, most
    /// checks from scratch have a few percent as many classes as items), and the class limit
    /// bounds it where they are not. Stopping: a range with more classes than the limit, or
    /// a merge that passes it, means the whole has more.
    fn plain_split(&mut self, levels: &[usize], pool: &rayon::ThreadPool) -> bool {
        use rayon::prelude::*;
        let n = self.s.enc.items();
        self.stats.split += 1;
        // One range per thread: every further range costs its classes again in the merge.
        let parts = pool.current_num_threads().min(n).max(1);
        let use_deltas = self.prepare_transform(levels);
        // Out of `self` while the columns borrow it.
        let mut buffer = std::mem::take(&mut self.buffer);
        let mut chunks = std::mem::take(&mut self.chunks);
        let cols = self.step_columns(use_deltas);
        let track = self.s.needs_targets();
        let limit = self.s.class_limit;
        let size = n.div_ceil(parts);
        let expected = size.min(self.last_plain_classes.max(1024));
        while chunks.len() < parts {
            chunks.push(Chunk::new(self.s.slots.len()));
        }
        let (enc, steps, weights) = (&self.s.enc, &self.steps[..], &self.s.enc.weights[..]);
        let cols = &cols[..];
        pool.install(|| {
            chunks[..parts]
                .par_iter_mut()
                .zip(buffer.par_chunks_mut(size))
                .enumerate()
                .with_max_len(1)
                .for_each(|(i, (chunk, keys))| {
                    let start = i * size;
                    Self::transform_range(enc, steps, cols, keys, start);
                    chunk.groups.reset(expected);
                    chunk.targets.clear();
                    chunk.done = Self::group_range(
                        &mut chunk.groups,
                        keys,
                        weights,
                        start,
                        limit,
                        track.then_some(&mut chunk.targets),
                    );
                })
        });
        self.buffer = buffer;
        self.chunks = chunks;
        let chunks = &mut self.chunks[..parts];
        self.stats.items += chunks
            .iter()
            .map(|c| c.done.unsigned_abs() as u64)
            .sum::<u64>();
        if chunks.iter().any(|c| c.done < 0) {
            return false;
        }
        let (first, rest) = chunks.split_at_mut(1);
        let first = &mut first[0];
        let mut remap: Vec<u32> = Vec::new();
        for chunk in rest.iter() {
            remap.clear();
            let g = &chunk.groups;
            for e in 0..g.len() {
                let t = first.groups.insert(g.keys[e], g.counts[e], g.reps[e]);
                if t as usize >= limit {
                    return false;
                }
                if track {
                    remap.push(t);
                }
            }
            if track {
                first
                    .targets
                    .extend(chunk.targets.iter().map(|&l| remap[l as usize]));
            }
        }
        std::mem::swap(&mut self.groups, &mut first.groups);
        std::mem::swap(&mut self.targets, &mut first.targets);
        true
    }

    /// Plans moving the buffer to `levels` (projection: only the columns whose level changed;
    /// rebuilding: every key zeroed first) and sizes it; true if the steps go by per-leaf
    /// deltas (see [`Self::plan_deltas`]).
    fn prepare_transform(&mut self, levels: &[usize]) -> bool {
        let n = self.s.enc.items();
        if self.buffer.len() != n {
            self.buffer = vec![[0; W]; n];
            self.buffer_levels = None;
        }
        let from = self.buffer_levels.take();
        self.plan(from.as_deref(), levels);
        if self.steps.iter().any(|s| s.from.is_none()) {
            // Rebuilding: every key starts at zero and adds all columns.
            self.plan(None, levels);
        }
        self.plan_deltas(n)
    }

    /// The planned steps resolved to per-leaf deltas, if `use_deltas`; else none (the steps
    /// go by two lookups in `gm`).
    fn step_columns(&self, use_deltas: bool) -> Vec<(Codes<'_>, &[u64], usize)> {
        Self::resolve(
            &self.s.enc,
            &self.steps,
            &self.deltas,
            &self.delta_at,
            use_deltas,
        )
    }

    /// Moves the buffer keys `keys` of items `start..` by the planned `steps` (`cols`: their
    /// resolved deltas, or empty): one sequential sweep per changed column, adding what the
    /// step adds to each leaf code's key (one lookup in a table of the column's leaves: at 5 M
    /// items the two lookups in `gm` missed the cache), or with two lookups when the leaves
    /// outnumber the items. Steps from no level (rebuilding) zero the keys first.
    fn transform_range(
        enc: &Encoding,
        steps: &[Step],
        cols: &[(Codes<'_>, &[u64], usize)],
        keys: &mut [[u64; W]],
        start: usize,
    ) {
        let range = start..start + keys.len();
        if steps.iter().any(|s| s.from.is_none()) {
            keys.iter_mut().for_each(|k| *k = [0; W]);
        }
        if !cols.is_empty() || steps.is_empty() {
            for &(codes, deltas, w) in cols {
                crate::with_codes!(codes.slice(range.clone()), codes => {
                    for (k, &c) in keys.iter_mut().zip(codes) {
                        k[w] = k[w].wrapping_add(deltas[c as usize]);
                    }
                });
            }
            return;
        }
        for s in steps {
            let l = enc.levels[s.j];
            let g = &enc.gm[s.j];
            let w = s.word;
            crate::with_codes!(enc.codes[s.j].view().slice(range.clone()), codes => match s.from {
                Some(f) => {
                    for (k, &c) in keys.iter_mut().zip(codes) {
                        let base = c as usize * l;
                        k[w] = k[w].wrapping_sub(g[base + f]).wrapping_add(g[base + s.to]);
                    }
                }
                None => {
                    for (k, &c) in keys.iter_mut().zip(codes) {
                        k[w] = k[w].wrapping_add(g[c as usize * l + s.to]);
                    }
                }
            });
        }
    }

    /// Groups the items `start..` by their buffer keys `keys` into `groups` (already reset),
    /// pushing each item's class to `targets` if given. Returns the items grouped, negated if
    /// it stopped at the class limit.
    fn group_range(
        groups: &mut Groups<W>,
        keys: &[[u64; W]],
        weights: &[u32],
        start: usize,
        limit: usize,
        mut targets: Option<&mut Vec<u32>>,
    ) -> isize {
        for (i, (key, &w)) in keys.iter().zip(&weights[start..]).enumerate() {
            let t = groups.insert(*key, w, (start + i) as u32);
            if t as usize >= limit {
                return -(i as isize + 1);
            }
            if let Some(targets) = targets.as_deref_mut() {
                targets.push(t);
            }
        }
        keys.len() as isize
    }

    /// After grouping every item: merges the items' distributions (and cached verdicts) into
    /// their classes (`targets`), when a criterion needs them.
    fn merge_item_distributions(&mut self) {
        if !self.s.needs_targets() {
            return;
        }
        let cache = self.s.caches_verdicts();
        merge_slots(
            &mut self.groups,
            &self.s.base_dist,
            &self.s.base_verdict,
            &self.targets,
            &self.s.domains,
            &mut self.merge_buffers,
            cache,
        );
    }

    /// Merges the current classes into those of `levels`, which generalizes them; false if it
    /// stopped at the class limit.
    fn rollup(&mut self, levels: &[usize]) -> bool {
        let from = self.groups.levels.clone().expect("roll-up needs classes");
        self.plan(Some(&from), levels);
        let use_deltas = self.plan_deltas(self.groups.len());
        let track = !self.s.slots.is_empty();
        let scratch_start = self.s.config.projection;
        let n = self.groups.len();
        self.stats.cells += (n * self.steps.len()) as u64;
        if let Some(team) = self.team.clone().filter(|_| n >= self.s.config.team_items) {
            // The spare table's buffers take the result.
            let spare = std::mem::replace(&mut self.spare, Groups::new(0));
            let src = std::mem::replace(&mut self.groups, spare);
            let keys = &src.keys;
            let start_key = |e: usize| if scratch_start { keys[e] } else { [0; W] };
            let from = track.then(|| (&src.dist[..], &src.verdict[..]));
            let done = self.regroup_split(
                levels,
                &src.counts,
                &src.reps,
                &start_key,
                from,
                use_deltas,
                &team,
            );
            self.spare = src;
            return done;
        }
        self.stats.items += n as u64;
        // Field by field: the tables are written while the columns are read.
        let cols = Self::resolve(
            &self.s.enc,
            &self.steps,
            &self.deltas,
            &self.delta_at,
            use_deltas,
        );
        if !track {
            // No distributions to merge: in place (see `Groups::regroup`).
            let (enc, steps) = (&self.s.enc, &self.steps);
            return self.groups.regroup(self.s.class_limit, |key, rep| {
                if !scratch_start {
                    *key = [0; W];
                }
                if use_deltas {
                    Self::apply_deltas(&cols, key, rep as usize);
                } else {
                    Self::apply(enc, steps, key, rep as usize);
                }
            });
        }
        let src = &self.groups;
        let dst = &mut self.spare;
        dst.reset(n);
        self.targets.clear();
        for e in 0..n {
            let rep = src.reps[e];
            let mut key = if scratch_start { src.keys[e] } else { [0; W] };
            if use_deltas {
                Self::apply_deltas(&cols, &mut key, rep as usize);
            } else {
                Self::apply(&self.s.enc, &self.steps, &mut key, rep as usize);
            }
            let t = dst.insert(key, src.counts[e], rep);
            if t as usize >= self.s.class_limit {
                return false;
            }
            self.targets.push(t);
        }
        merge_slots(
            dst,
            &src.dist,
            &src.verdict,
            &self.targets,
            &self.s.domains,
            &mut self.merge_buffers,
            !self.s.evaluated.is_empty(),
        );
        std::mem::swap(&mut self.groups, &mut self.spare);
        true
    }

    /// Groups the classes of history snapshot `index` at `levels`, which generalizes it; false
    /// if it stopped at the class limit.
    fn snapshot(&mut self, index: usize, levels: &[usize]) -> bool {
        let from = self
            .buffer_levels
            .clone()
            .expect("snapshots need the buffer");
        self.plan(Some(&from), levels);
        let use_deltas = self.plan_deltas(self.history.snapshots[index].len());
        self.history.touch(index);
        let track = !self.s.slots.is_empty();
        let n = self.history.snapshots[index].len();
        if let Some(team) = self.team.clone().filter(|_| n >= self.s.config.team_items) {
            self.stats.cells += (n * self.steps.len()) as u64;
            let snap = self.history.snapshots[index].classes.clone();
            let buffer = std::mem::take(&mut self.buffer);
            let projection = self.s.config.projection;
            let start_key = |e: usize| {
                if projection {
                    buffer[snap.reps[e] as usize]
                } else {
                    [0; W]
                }
            };
            let from = track.then(|| (&snap.dist[..], &snap.verdict[..]));
            let done = self.regroup_split(
                levels,
                &snap.counts,
                &snap.reps,
                &start_key,
                from,
                use_deltas,
                &team,
            );
            self.buffer = buffer;
            return done;
        }
        // Field by field: the tables are written while the columns are read.
        let cols = Self::resolve(
            &self.s.enc,
            &self.steps,
            &self.deltas,
            &self.delta_at,
            use_deltas,
        );
        let snap = &*self.history.snapshots[index].classes;
        let dst = &mut self.groups;
        dst.reset(snap.len());
        self.targets.clear();
        let projection = self.s.config.projection;
        for (&rep, &count) in snap.reps.iter().zip(&snap.counts) {
            let mut key = if projection {
                self.buffer[rep as usize]
            } else {
                [0; W]
            };
            if use_deltas {
                Self::apply_deltas(&cols, &mut key, rep as usize);
            } else {
                Self::apply(&self.s.enc, &self.steps, &mut key, rep as usize);
            }
            let t = dst.insert(key, count, rep);
            if t as usize >= self.s.class_limit {
                return false;
            }
            if track {
                self.targets.push(t);
            }
        }
        self.stats.items += snap.len() as u64;
        self.stats.cells += (snap.len() * self.steps.len()) as u64;
        if track {
            merge_slots(
                dst,
                &snap.dist,
                &snap.verdict,
                &self.targets,
                &self.s.domains,
                &mut self.merge_buffers,
                !self.s.evaluated.is_empty(),
            );
        }
        true
    }

    /// True if class `e` of `g` satisfies every criterion (its cached verdict if known).
    fn class_ok<'g>(&self, g: &'g Groups<W>, e: usize, views: &mut Vec<Distribution<'g>>) -> bool {
        match g.verdict.get(e) {
            Some(&VERDICT_OK) => true,
            Some(&VERDICT_OUTLIER) => false,
            _ => self.s.judge(g.counts[e] as u64, &g.dist, e, views),
        }
    }

    fn evaluate(&mut self, levels: &[usize], source: Source) -> CheckResult {
        let mut outliers = std::mem::take(&mut self.outliers);
        outliers.clear();
        let cache = self.s.caches_verdicts();
        let mut verdicts = std::mem::take(&mut self.groups.verdict);
        if cache {
            verdicts.resize(self.groups.len(), VERDICT_UNKNOWN);
        }
        let n = self.groups.len();
        let t = match self.team.clone().filter(|_| n >= self.s.config.team_items) {
            Some(team) => self.tally_team(&team, &mut verdicts, &mut outliers),
            None => tally::tally(&self.s, &self.groups, 0..n, &mut verdicts, &mut outliers),
        };
        let tally::Tally {
            supp,
            kept,
            sq_all,
            sq_kept,
            raise,
            relaxed_supp,
            empty,
            empty_fail,
        } = t;
        let anonymous = supp <= self.s.budget && !empty_fail;
        let all_classes = n as u64 - empty;
        let relaxed = if self.s.relaxing {
            relaxed_supp <= self.s.budget
        } else {
            anonymous
        };
        let stats = ClassStats {
            rows: self.s.enc.rows as u64,
            suppressed: supp,
            kept_classes: kept,
            all_classes,
            sum_sq_all: sq_all,
            sum_sq_kept: sq_kept,
            sum_sq_raised: sq_all + raise,
            outliers: &outliers,
        };
        let wanted = self
            .loss_cutoff
            .is_none_or(|c| self.s.metric.level_bound(levels) < c);
        let loss =
            (anonymous && wanted).then(|| self.s.metric.evaluate(self.s.table, levels, &stats));
        let class_bound = self.s.metric.class_bound(&stats);
        self.outliers = outliers;
        self.groups.verdict = verdicts;
        CheckResult {
            anonymous,
            relaxed,
            suppressed: supp,
            classes: kept,
            all_classes,
            loss,
            class_bound,
            source,
        }
    }
}

impl<const W: usize> Engine<'_, W> {
    /// The result of a check that stopped at the class limit: not anonymous (module docs). The
    /// half-built table holds no classes.
    fn stopped(&mut self, source: Source) -> CheckResult {
        self.stats.stopped += 1;
        self.groups.reset(0);
        let limit = self.s.class_limit as u64;
        CheckResult {
            anonymous: false,
            relaxed: false,
            suppressed: self.s.budget + 1,
            classes: 0,
            all_classes: limit + 1,
            loss: None,
            class_bound: None,
            source,
        }
    }
}

fn verdict(ok: bool) -> u8 {
    if ok {
        VERDICT_OK
    } else {
        VERDICT_OUTLIER
    }
}

/// True if `a` is a specialization of (or equal to) `b`.
fn specializes(a: &[usize], b: &[usize]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

impl<'a, const W: usize> Core<'a> for Engine<'a, W> {
    fn fork(&self) -> Box<dyn Core<'a> + 'a> {
        Box::new(Engine::<W>::with_shared(
            self.s.clone(),
            MergeBuffers::default(),
        ))
    }

    fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>) {
        self.pool = pool;
    }

    fn set_team(&mut self, team: Option<Arc<Team>>) {
        self.team = team.filter(|t| t.parts() > 1);
        if let Some(t) = &self.team {
            self.lay_out(t.parts());
        }
    }

    fn share_classes(&self) -> Option<SharedClasses> {
        let g = &self.groups;
        let levels = g.levels.as_ref()?;
        if let Some(kept) = self.kept.as_ref().filter(|k| k.levels == *levels) {
            return Some(kept.clone());
        }
        if !self.s.config.history || g.len() > self.history.max_classes() {
            return None;
        }
        let classes = history::Classes {
            reps: g.reps.clone(),
            counts: g.counts.clone(),
            dist: g.dist.clone(),
            verdict: g.verdict.clone(),
        };
        Some(SharedClasses {
            levels: levels.clone(),
            classes: Arc::new(classes),
        })
    }

    fn kept(&mut self) -> Option<SharedClasses> {
        self.kept.take()
    }

    fn adopt(&mut self, c: SharedClasses, finished: &dyn Fn(&[usize]) -> bool) {
        if !self.s.config.history || self.buffer_levels.is_none() {
            return;
        }
        if self.history.store_shared(&c.levels, &c.classes, finished) {
            Self::count_stored(&mut self.stats, &self.history);
        }
    }

    fn prefers_team(&self) -> bool {
        let items = self.s.enc.items();
        items >= self.s.config.team_input_items && items < self.s.config.split_items
    }

    fn splits_checks(&self) -> bool {
        self.pool
            .as_ref()
            .is_some_and(|p| p.current_num_threads() > 1)
            && self.s.enc.items() >= self.s.config.split_items
    }

    fn check(&mut self, levels: &[usize], finished: &dyn Fn(&[usize]) -> bool) -> CheckResult {
        assert_eq!(levels.len(), self.s.enc.dims, "levels per quasi-identifier");
        self.stats.checks += 1;
        self.kept = None;
        let mut source = Source::Plain;
        let mut cost = self.s.enc.items();
        if self.s.config.rollup {
            if let Some(p) = &self.groups.levels {
                if specializes(p, levels) && self.groups.len() <= cost {
                    source = Source::Rollup;
                    cost = self.groups.len();
                }
            }
        }
        let mut snap = None;
        if self.s.config.history && self.buffer_levels.is_some() {
            if let Some(i) = self.history.best_for(levels) {
                if self.history.snapshots[i].len() < cost {
                    source = Source::Snapshot;
                    snap = Some(i);
                }
            }
        }
        let complete = match source {
            Source::Plain => {
                self.stats.plain += 1;
                let complete = match self.hub_below(levels) {
                    Some(hub) => {
                        self.stats.hubs += 1;
                        if self.plain(&hub) {
                            self.groups.levels = Some(hub.clone());
                            let cap = (HUB_MAX_FRACTION * self.s.enc.items() as f64) as usize;
                            self.keep_groups(&hub, Some(cap), finished);
                            self.rollup(levels)
                        } else {
                            // The hub has too many classes; `levels` may not.
                            self.plain(levels)
                        }
                    }
                    None => self.plain(levels),
                };
                if self.recent_plain.len() == HUB_WINDOW {
                    self.recent_plain.remove(0);
                }
                self.recent_plain.push(levels.to_vec());
                complete
            }
            Source::Rollup => {
                self.stats.rollups += 1;
                self.rollup(levels)
            }
            Source::Snapshot => {
                self.stats.snapshots += 1;
                self.snapshot(snap.unwrap(), levels)
            }
        };
        if !complete {
            return self.stopped(source);
        }
        self.groups.levels = Some(levels.to_vec());
        let result = self.evaluate(levels, source);
        if self.s.config.history && (self.store_anonymous || !result.anonymous) {
            self.keep_groups(levels, None, finished);
        }
        result
    }

    fn classes(&self) -> Vec<Class> {
        let g = &self.groups;
        let Some(levels) = &g.levels else {
            return Vec::new();
        };
        (0..g.len())
            .map(|e| {
                let rep: Vec<u32> = self
                    .s
                    .table
                    .tuple(self.s.enc.tuple(g.reps[e] as usize) as usize)
                    .collect();
                Class {
                    ids: self.s.enc.decode(&g.keys[e], levels),
                    count: g.counts[e] as u64,
                    distributions: g
                        .dist
                        .iter()
                        .map(|d| {
                            let (c, k) = d.class(e);
                            c.iter().copied().zip(k.iter().copied()).collect()
                        })
                        .collect(),
                    rep_ids: (0..self.s.enc.dims)
                        .map(|j| self.s.table.hierarchies[j].get(rep[j], levels[j]))
                        .collect(),
                }
            })
            .collect()
    }

    fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool> {
        let n = self.s.enc.items();
        let mut g = Groups::<W>::new(self.s.slots.len());
        g.reset(n.min(1 << 16));
        let mut steps = std::mem::take(&mut self.steps);
        steps.clear();
        steps.extend((0..self.s.enc.dims).map(|j| Step {
            j,
            word: self.s.enc.word[j],
            from: None,
            to: levels[j],
        }));
        let mut targets = Vec::with_capacity(n);
        for i in 0..n {
            let mut key = [0; W];
            Self::apply(&self.s.enc, &steps, &mut key, i);
            targets.push(g.insert(key, self.s.enc.weights[i], i as u32));
        }
        self.steps = steps;
        merge_slots(
            &mut g,
            &self.s.base_dist,
            &[],
            &targets,
            &self.s.domains,
            &mut self.merge_buffers,
            false,
        );
        let mut views = Vec::new();
        let ok: Vec<bool> = (0..g.len())
            .map(|e| self.class_ok(&g, e, &mut views))
            .collect();
        let enc = &self.s.enc;
        (0..enc.table_rows())
            .map(|r| {
                let i = enc.item_of_row(r) as usize;
                self.s.table.is_released(r) && !ok[targets[i] as usize]
            })
            .collect()
    }

    fn stats(&self) -> &CheckerStats {
        &self.stats
    }

    fn free_buffers(&mut self) {
        let slots = self.s.slots.len();
        self.buffer = Vec::new();
        self.buffer_levels = None;
        self.groups = Groups::new(slots);
        self.spare = Groups::new(slots);
        self.history.clear();
        self.targets = Vec::new();
        self.outliers = Vec::new();
        self.recent_plain.clear();
        self.chunks = Vec::new();
        self.kept = None;
        self.partitions = Partitions::new();
        self.part_outliers = Vec::new();
    }

    fn metric(&self) -> &dyn Metric {
        &*self.s.metric
    }

    fn set_store_anonymous(&mut self, yes: bool) {
        self.store_anonymous = yes;
    }

    fn set_scattered(&mut self) {
        self.scattered = true;
        self.history.forget_path_order();
    }

    fn set_loss_cutoff(&mut self, cutoff: Option<f64>) {
        self.loss_cutoff = cutoff;
    }

    fn split_history(&mut self, parts: usize) {
        self.history
            .set_max_bytes(self.s.config.history_max_bytes / parts.max(1));
    }

    fn scale_history(&mut self, factor: usize) {
        if self.s.config.history {
            self.history
                .set_capacity(self.s.config.history_capacity.saturating_mul(factor));
        }
    }
}
