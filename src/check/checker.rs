//! The checker of one table ([`Checker`]): what a search sees of the check.
//!
//! It holds one [`Engine`] of the key width the table's quasi-identifiers need (1, 2, 3, 4 or
//! 8 words; [`Engines`]) and forwards each call to it, so that every check runs on keys of a
//! width known at compile time.

use std::sync::Arc;

use super::encode::Encoding;
use super::engine::Engine;
use super::snapshot::SharedClasses;
use super::team::Team;
use super::{CheckResult, CheckerConfig, CheckerStats, Class};
use crate::data::EncodedTable;
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;
use crate::{Error, Result};

/// The checker of one table, privacy criteria, metric and suppression budget.
pub struct Checker<'a> {
    engine: Engines<'a>,
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

/// The engine of a checker, by key width.
enum Engines<'a> {
    W1(Box<Engine<'a, 1>>),
    W2(Box<Engine<'a, 2>>),
    W3(Box<Engine<'a, 3>>),
    W4(Box<Engine<'a, 4>>),
    W8(Box<Engine<'a, 8>>),
}

/// `$body` on the engine of `$engines`, bound to `$e`, whatever its width.
macro_rules! on_engine {
    ($engines:expr, $e:ident => $body:expr) => {
        match $engines {
            Engines::W1($e) => $body,
            Engines::W2($e) => $body,
            Engines::W3($e) => $body,
            Engines::W4($e) => $body,
            Engines::W8($e) => $body,
        }
    };
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
        let classification = classification(&criteria, budget > 0);
        let enc = Encoding::new(table, config.dedup);
        macro_rules! engine {
            ($variant:ident) => {
                Engines::$variant(Box::new(Engine::new(
                    table, enc, criteria, metric, budget, config,
                )))
            };
        }
        let engine = match enc.words {
            1 => engine!(W1),
            2 => engine!(W2),
            3 => engine!(W3),
            4 => engine!(W4),
            5..=8 => engine!(W8),
            w => {
                return Err(Error::Invalid(format!(
                    "the quasi-identifiers need {w} 64-bit words per record; the in-memory \
                     engine supports 8 (use fewer quasi-identifiers)"
                )))
            }
        };
        Ok(Checker {
            engine,
            classification,
            budget,
        })
    }

    /// Another checker of the same table, criteria, metric and budget, for another thread: it
    /// shares this one's encoding, base distributions and cached verdicts (built once) and has
    /// its own groupify tables, buffers, snapshot history and statistics (empty).
    pub fn fork(&self) -> Checker<'a> {
        let engine = match &self.engine {
            Engines::W1(e) => Engines::W1(Box::new(e.fork())),
            Engines::W2(e) => Engines::W2(Box::new(e.fork())),
            Engines::W3(e) => Engines::W3(Box::new(e.fork())),
            Engines::W4(e) => Engines::W4(Box::new(e.fork())),
            Engines::W8(e) => Engines::W8(Box::new(e.fork())),
        };
        Checker {
            engine,
            classification: self.classification,
            budget: self.budget,
        }
    }

    /// Checks the transformation `levels`. `finished(levels)` tells whether the search will never
    /// check a transformation again (used to drop useless snapshots).
    pub fn check(&mut self, levels: &[usize], finished: &dyn Fn(&[usize]) -> bool) -> CheckResult {
        on_engine!(&mut self.engine, e => e.check(levels, finished))
    }

    /// The classes of the last check, decoded.
    pub fn classes(&self) -> Vec<Class> {
        on_engine!(&self.engine, e => e.classes())
    }

    /// For the transformation `levels`, which released rows fall into outlier classes (rows
    /// outside a research subset are never outliers).
    pub fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool> {
        on_engine!(&mut self.engine, e => e.outlier_rows(levels))
    }

    pub fn stats(&self) -> &CheckerStats {
        on_engine!(&self.engine, e => e.stats())
    }

    pub fn metric(&self) -> &dyn Metric {
        on_engine!(&self.engine, e => e.metric())
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
        on_engine!(&mut self.engine, e => e.set_store_anonymous(yes))
    }

    /// Keeps `factor` times the configured number of snapshots (if the history is on).
    pub fn scale_history(&mut self, factor: usize) {
        on_engine!(&mut self.engine, e => e.scale_history(factor))
    }

    /// Tells the checker that the search's checks are scattered over the lattice (best-first
    /// search) rather than walking paths upward (Flash, OLA): the history then drops the least
    /// recently used snapshots only, without the path heuristic, and builds hubs (see
    /// `transition`).
    pub fn set_scattered(&mut self) {
        on_engine!(&mut self.engine, e => e.set_scattered())
    }

    /// From now on, a transformation whose level bound is at least `cutoff` gets no loss
    /// computed even when anonymous: the search has a result that loses no more. Computing the
    /// loss reads every suppressed record's row, a large share of a best-first search's time
    /// where most valid checks are far above the best.
    pub fn set_loss_cutoff(&mut self, cutoff: Option<f64>) {
        on_engine!(&mut self.engine, e => e.set_loss_cutoff(cutoff))
    }

    /// Gives this checker's history a `parts`-th of the configured bytes, so that the checkers
    /// of `parts` threads hold no more together than one would alone.
    pub fn split_history(&mut self, parts: usize) {
        on_engine!(&mut self.engine, e => e.split_history(parts))
    }

    /// Lets checks from scratch of at least [`super::SPLIT_CHECK_ITEMS`] items run on `pool`'s
    /// threads (see `plain`: the same classes, in the same order, as on one thread). Forks do
    /// not split. Never while this checker runs on one of `pool`'s threads beside other
    /// checkers that take their jobs from the same pool: a thread waiting for its ranges runs
    /// other jobs of the pool, which could be a check of this very checker.
    pub fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>) {
        on_engine!(&mut self.engine, e => e.set_pool(pool))
    }

    /// Lets checks of [`CheckerConfig::team_items`] items and more be split over `team`'s
    /// threads (see `layout` and `partitioned`); `None`: on the calling thread only. The first
    /// team, if this checker has not been forked yet, lays the items out in its number of
    /// parts (`layout`), which drops the checker's classes and snapshots: set it before a
    /// search, not in the middle of one.
    pub fn set_team(&mut self, team: Option<Arc<Team>>) {
        on_engine!(&mut self.engine, e => e.set_team(team))
    }

    /// True if a search with more than one thread should split this checker's checks over a
    /// team rather than evaluate ahead with a second checker (see
    /// [`CheckerConfig::team_input_items`]).
    pub fn prefers_team(&self) -> bool {
        on_engine!(&self.engine, e => e.prefers_team())
    }

    /// The classes of the last check, if it completed and its classes are few enough for a
    /// snapshot: for another checker of the same table to keep ([`Checker::adopt`]). Classes
    /// are (representative item, count) pairs of the shared encoding, so they are the same in
    /// every checker.
    pub fn share_classes(&self) -> Option<SharedClasses> {
        on_engine!(&self.engine, e => e.share_classes())
    }

    /// The classes the last check kept as a snapshot, if it kept one (taken: the next call
    /// returns `None`). Sharing them costs no copy: the histories hold the same classes.
    pub fn kept(&mut self) -> Option<SharedClasses> {
        on_engine!(&mut self.engine, e => e.kept())
    }

    /// Offers `classes` from another checker to the history, under the history's rules (see
    /// `history`): a later check of a generalization may start from them.
    pub fn adopt(&mut self, classes: SharedClasses, finished: &dyn Fn(&[usize]) -> bool) {
        on_engine!(&mut self.engine, e => e.adopt(classes, finished))
    }

    /// True if this checker's checks from scratch split over the threads of its pool
    /// ([`Checker::set_pool`]).
    pub fn splits_checks(&self) -> bool {
        on_engine!(&self.engine, e => e.splits_checks())
    }

    /// True if this checker's checks from scratch would split over a pool of `threads`
    /// threads ([`Checker::set_pool`]): the input has [`CheckerConfig::split_items`] items.
    pub fn would_split(&self, threads: usize) -> bool {
        on_engine!(&self.engine, e => threads > 1 && e.s.enc.items() >= e.s.config.split_items)
    }

    /// The checker's switches and thresholds.
    pub fn config(&self) -> &CheckerConfig {
        on_engine!(&self.engine, e => &e.s.config)
    }

    /// The table's records (the length of [`Checker::outlier_rows`]).
    pub fn rows(&self) -> usize {
        on_engine!(&self.engine, e => e.s.enc.table_rows())
    }

    /// Frees the buffer, the groupify tables and the history (when the search is over: the
    /// release is computed next, and these would only add to its peak memory). Checks still
    /// work afterwards, from scratch.
    pub fn free_buffers(&mut self) {
        on_engine!(&mut self.engine, e => e.free_buffers())
    }
}

/// How a search may tag under `criteria` (see [`Classification`]).
fn classification(criteria: &[Box<dyn PrivacyCriterion>], suppression: bool) -> Classification {
    if criteria.iter().all(|c| c.is_monotonic(suppression)) {
        Classification::Exact
    } else if criteria.iter().any(|c| {
        c.is_monotonic(suppression)
            || c.requirements().min_class_size > 1
            || c.relaxation().is_some_and(|r| r.is_monotonic(suppression))
    }) {
        Classification::Relaxed
    } else {
        Classification::None
    }
}
