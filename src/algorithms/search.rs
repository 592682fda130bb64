//! The shared frame of the lattice searches (Flash, OLA, exhaustive): a [`Search`] owns the
//! lattice and the checker, caches results, applies predictive tagging when the privacy models
//! are monotonic, and keeps the best valid transformation seen.
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

use rustc_hash::FxHashMap;

use crate::check::{CheckResult, Checker, CheckerConfig, CheckerStats};
use crate::data::EncodedTable;
use crate::lattice::{prop, Lattice, NodeId};
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

/// What a search returns.
#[derive(Debug, Clone)]
pub struct SearchOutcome {
    /// `None` if no transformation satisfies the privacy models within the budget.
    pub optimum: Option<Optimum>,
    /// Transformations checked.
    pub checks: u64,
    pub lattice_size: usize,
    pub stats: CheckerStats,
}

/// Lattice + checker + results.
pub struct Search<'a> {
    pub lattice: Lattice,
    pub checker: Checker<'a>,
    results: FxHashMap<NodeId, CheckResult>,
    best: Option<(NodeId, f64)>,
    /// Predictive tagging allowed (all criteria monotonic).
    tagging: bool,
    /// The metric is monotonic under the suppression setting.
    metric_monotonic: bool,
    /// Properties that mark a transformation the search will not check again.
    finished_mask: u8,
    levels: Vec<usize>,
    pruning: bool,
    /// Checked transformations whose class bound has not pruned their generalizations yet.
    pending: Vec<(NodeId, f64)>,
    slack: f64,
}

impl<'a> Search<'a> {
    pub fn new(
        table: &'a EncodedTable,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
        metric: Box<dyn Metric>,
        budget: u64,
        config: CheckerConfig,
    ) -> Result<Search<'a>> {
        let lattice = Lattice::from_hierarchies(&table.hierarchies).ok_or_else(|| {
            Error::Invalid(format!(
                "the generalization lattice has more than {} transformations",
                crate::lattice::MAX_SIZE
            ))
        })?;
        if criteria.is_empty() {
            return Err(Error::Invalid("no privacy model to satisfy".into()));
        }
        let metric_monotonic = metric.is_monotonic(budget > 0);
        let slack = metric.bound_slack();
        let checker = Checker::new(table, criteria, metric, budget, config)?;
        let tagging = checker.privacy_monotonic();
        let dims = lattice.dims();
        Ok(Search {
            lattice,
            checker,
            results: FxHashMap::default(),
            best: None,
            tagging,
            metric_monotonic,
            finished_mask: prop::RESOLVED,
            levels: vec![0; dims],
            pruning: false,
            pending: Vec::new(),
            slack,
        })
    }

    /// Lets the search prune up-sets by lower bounds (see the module docs).
    pub fn enable_pruning(&mut self) {
        self.pruning = true;
    }

    /// True if a loss of `bound` or more cannot beat the best loss.
    fn beaten(&self, bound: f64) -> bool {
        self.best
            .is_some_and(|(_, b)| bound >= b + self.slack * b.abs())
    }

    /// Prunes the generalizations of `id` (not `id` itself).
    fn prune_above(&mut self, id: NodeId) {
        let succ: Vec<NodeId> = self.lattice.successors(id).collect();
        for s in succ {
            self.lattice.tag_up(s, prop::PRUNED);
        }
    }

    /// Flash's decision on a node of a path: true if the search should go down (the node is
    /// anonymous, or everything above it is pruned). Checks the node if needed.
    pub fn decide(&mut self, id: NodeId) -> bool {
        if self.resolved(id) {
            return self.lattice.has(id, prop::ANONYMOUS | prop::PRUNED);
        }
        if self.pruning {
            self.lattice.levels_into(id, &mut self.levels);
            let bound = self.checker.metric().level_bound(&self.levels);
            if self.beaten(bound) {
                self.lattice.tag_up(id, prop::PRUNED);
                return true;
            }
        }
        let r = self.check(id);
        r.anonymous || self.lattice.has(id, prop::PRUNED)
    }

    /// True if predictive tagging is allowed.
    pub fn tagging(&self) -> bool {
        self.tagging
    }

    /// True if the classification has nothing more to learn from a node: its anonymity is
    /// known, or it is pruned.
    pub fn resolved(&self, id: NodeId) -> bool {
        self.lattice.has(id, prop::RESOLVED)
    }

    /// The result of checking `id` (checked once, then cached), with tagging.
    pub fn check(&mut self, id: NodeId) -> CheckResult {
        if let Some(r) = self.results.get(&id) {
            return *r;
        }
        self.lattice.levels_into(id, &mut self.levels);
        let lat = &self.lattice;
        let mask = self.finished_mask;
        let r = self
            .checker
            .check(&self.levels, &|lv: &[usize]| lat.has(lat.id(lv), mask));
        self.lattice.add(id, prop::CHECKED);
        let tag = if r.anonymous {
            prop::ANONYMOUS
        } else {
            prop::NOT_ANONYMOUS
        };
        match (self.tagging, r.anonymous) {
            (true, true) => self.lattice.tag_up(id, tag),
            (true, false) => self.lattice.tag_down(id, tag),
            (false, _) => self.lattice.add(id, tag),
        }
        self.results.insert(id, r);
        let mut improved = false;
        if let Some(loss) = r.loss {
            if self.best.is_none_or(|(_, b)| loss < b) {
                self.best = Some((id, loss));
                improved = true;
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
        r
    }

    /// The cached result of `id`, if checked.
    pub fn result(&self, id: NodeId) -> Option<&CheckResult> {
        self.results.get(&id)
    }

    /// After a classification phase: makes the best transformation globally optimal when the
    /// metric is not monotonic (or tagging was not allowed). See the module docs.
    pub fn optimize_remaining(&mut self) {
        if self.tagging && self.metric_monotonic {
            return;
        }
        self.checker.set_store_anonymous(true);
        self.finished_mask = prop::CHECKED | prop::NOT_ANONYMOUS | prop::PRUNED;
        if self.checker.metric().has_class_bound() {
            self.bottom_up_with_class_bounds();
        } else {
            self.by_level_bound();
        }
    }

    fn by_level_bound(&mut self) {
        let mut levels = vec![0; self.lattice.dims()];
        let mut cand: Vec<(f64, crate::lattice::OrderKey)> = Vec::new();
        for id in 0..self.lattice.size() as NodeId {
            if self.lattice.has(id, prop::NOT_ANONYMOUS | prop::PRUNED) {
                continue;
            }
            self.lattice.levels_into(id, &mut levels);
            let b = self.checker.metric().level_bound(&levels);
            cand.push((b, self.lattice.order_key(id)));
        }
        cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut stop = cand.len();
        for (i, &(bound, key)) in cand.iter().enumerate() {
            if self.beaten(bound) {
                stop = i;
                break;
            }
            self.check(key.id);
        }
        for &(_, key) in &cand[stop..] {
            self.lattice.add(key.id, prop::PRUNED);
        }
    }

    fn bottom_up_with_class_bounds(&mut self) {
        let order = self.lattice.ids_by_level();
        let mut prop_bound = vec![f64::NEG_INFINITY; self.lattice.size()];
        let mut levels = vec![0; self.lattice.dims()];
        for id in order {
            let mut p = self
                .lattice
                .predecessors(id)
                .map(|q| prop_bound[q as usize])
                .fold(f64::NEG_INFINITY, f64::max);
            let result = match self.results.get(&id) {
                Some(r) => Some(*r),
                None if self.lattice.has(id, prop::NOT_ANONYMOUS | prop::PRUNED) => None,
                None => {
                    self.lattice.levels_into(id, &mut levels);
                    let bound = p.max(self.checker.metric().level_bound(&levels));
                    if self.beaten(bound) {
                        self.lattice.add(id, prop::PRUNED);
                        None
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

    /// Which rows the transformation `levels` suppresses (outlier classes).
    pub fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool> {
        self.checker.outlier_rows(levels)
    }

    /// The outcome so far (final after the classification and [`Self::optimize_remaining`]).
    pub fn outcome(&self) -> SearchOutcome {
        let optimum = self.best.map(|(id, loss)| {
            let r = self.results[&id];
            Optimum {
                levels: self.lattice.levels(id),
                loss,
                suppressed: r.suppressed,
                classes: r.classes,
            }
        });
        SearchOutcome {
            optimum,
            checks: self.checker.stats().checks,
            lattice_size: self.lattice.size(),
            stats: self.checker.stats().clone(),
        }
    }
}
