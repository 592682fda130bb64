//! The final phase ([`Search::optimize_remaining`]): global optimality when the
//! classification alone does not give it.
//!
//! With a metric that is monotonic under the suppression setting (DM*, Height, or any metric
//! when nothing may be suppressed) the optimum is a minimal anonymous transformation; every
//! such transformation is explicitly checked (nothing can tag it anonymous) unless pruned, so
//! the best checked one is optimal. Otherwise a generalization can lose less (fewer suppressed
//! records), and the final phase evaluates every transformation that is not known to be
//! invalid and not excluded by a proven lower bound:
//! - metrics with a bound from the levels alone (Precision, Loss, Entropy) are visited in
//!   ascending order of the bound, stopping at the first bound >= the best loss
//!   ([`Search::by_level_bound`]);
//! - metrics with a bound from a checked transformation's classes, valid for all its
//!   generalizations (DM, AECS) are visited bottom-up, each transformation inheriting the largest
//!   bound of its direct specializations ([`Search::bottom_up_with_class_bounds`]).
//!
//! Above [`crate::algorithms::DENSE_LIMIT`] transformations neither list fits: the candidates are
//! walked best-first from the bottom instead ([`Search::best_first_remaining`]).
//!
//! With more than one thread, the phase takes the next batch of candidates in its sequential
//! order (bound order; bottom-up within one level, whose inherited bounds come from lower
//! levels and are final) that the current best loss does not exclude, checks them on the
//! search's pool, one checker per thread ([`Search::speculate`]), and then walks the batch in
//! the sequential order again, deciding each candidate exactly as one thread would (a bound
//! beaten by a loss found earlier in the batch is pruned and its early result never recorded)
//! and recording the results it keeps. The best loss, tags, pruning, tie-breaking (first
//! strictly smaller loss in that order) and the count of checks all come from the sequential
//! walk, so the optimum, the counts and the report are the same for every number of threads.

use super::{Purpose, Queued, Search};
use crate::algorithms::observe::Phase;
use crate::check::Classification;
use crate::lattice::{prop, NodeId, OrderKey, PropertyStore};

/// Candidates evaluated ahead per thread in the final phase: bounds the work wasted when the
/// best loss improves within a batch.
const BATCH_PER_THREAD: usize = 16;

impl<S: PropertyStore> Search<'_, S> {
    /// After a classification phase: makes the best transformation globally optimal when the
    /// metric is not monotonic (or tagging was not allowed). See the module docs.
    pub fn optimize_remaining(&mut self) {
        if self.classification() == Classification::Exact && self.metric_monotonic()
            || self.stopped()
        {
            return;
        }
        self.expect_generalizations_of_valid();
        self.enter_phase(Phase::Final);
        self.set_purpose(Purpose::Candidates);
        self.finish_checked();
        if self.space().size() > self.list_limit {
            self.best_first_remaining();
        } else if self.checker.metric().has_class_bound() {
            self.bottom_up_with_class_bounds();
        } else {
            self.by_level_bound();
        }
    }

    /// The final phase on a lattice too large to list (above [`crate::algorithms::DENSE_LIMIT`]):
    /// the candidates in ascending bound from the bottom, as [`Search::unexplored_bound`] walks
    /// them (each generated once by its canonical generator, [`crate::lattice::Space::children`]),
    /// so that memory grows with the walk, not with the lattice. A transformation's bound is
    /// its level bound raised by what it inherits from its generator: the generator's bound
    /// and the class bound of its check (valid for every generalization). Bounds only grow
    /// from a generator to what it generates, so the first bound the best loss beats ends the
    /// phase; a pruned transformation is dropped with its canonical subtree (its up-set), one
    /// known invalid is only expanded. Candidates are checked on the search's thread.
    fn best_first_remaining(&mut self) {
        let mut levels = vec![0; self.space().dims()];
        let bottom = self.space().bottom();
        self.space().levels_into(bottom, &mut levels);
        let mut queue = std::collections::BinaryHeap::new();
        let bound = self.checker.metric().level_bound(&levels);
        queue.push(Queued(bound, self.space().order_key(bottom)));
        while let Some(Queued(bound, key)) = queue.pop() {
            if self.tick() || self.beaten(bound) {
                return;
            }
            let id = key.id;
            if self.has(id, prop::PRUNED) {
                continue;
            }
            self.report_frontier(bound, Some(queue.len() as u64));
            let result = match self.result(id).copied() {
                Some(r) => Some(r),
                None if self.has(id, prop::NOT_ANONYMOUS) => None,
                None if self.out_of_time() => return,
                None => Some(self.check(id)),
            };
            let inherited = result
                .and_then(|r| r.class_bound)
                .map_or(bound, |cb| bound.max(cb));
            for up in self.space().children(id) {
                self.space().levels_into(up, &mut levels);
                let b = self.checker.metric().level_bound(&levels).max(inherited);
                if !self.beaten(b) {
                    queue.push(Queued(b, self.space().order_key(up)));
                }
            }
        }
    }

    /// The final phase by ascending level bound (see the module docs).
    fn by_level_bound(&mut self) {
        let mut levels = vec![0; self.space().dims()];
        let mut cand: Vec<(f64, OrderKey)> = Vec::new();
        for id in 0..self.space().size() {
            if self.tick() {
                return;
            }
            if self.has(id, prop::NOT_ANONYMOUS | prop::PRUNED) {
                continue;
            }
            self.space().levels_into(id, &mut levels);
            let b = self.checker.metric().level_bound(&levels);
            cand.push((b, self.space().order_key(id)));
        }
        cand.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut stop = cand.len();
        let batch = self.threads() * BATCH_PER_THREAD;
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
            if self.threads() > 1 && i >= upto {
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
            self.prune(key.id);
        }
    }

    /// The final phase bottom-up, with the class bounds inherited (see the module docs).
    fn bottom_up_with_class_bounds(&mut self) {
        let order = self.space().ids_by_level();
        let mut prop_bound = vec![f64::NEG_INFINITY; self.space().size() as usize];
        let mut levels = vec![0; self.space().dims()];
        let batch = self.threads() * BATCH_PER_THREAD;
        let mut upto = 0;
        let inherited = |s: &Self, prop_bound: &[f64], id: NodeId| {
            s.space()
                .predecessors(id)
                .map(|q| prop_bound[q as usize])
                .fold(f64::NEG_INFINITY, f64::max)
        };
        for (i, &id) in order.iter().enumerate() {
            if self.tick() {
                return;
            }
            self.report_work(i as u64, order.len() as u64);
            if self.threads() > 1 && i >= upto {
                // A batch within one level: its bounds come from lower levels, all final.
                let level = self.space().level(id);
                upto = i + order[i..(i + batch).min(order.len())]
                    .iter()
                    .take_while(|&&x| self.space().level(x) == level)
                    .count();
                let next: Vec<NodeId> = order[i..upto]
                    .iter()
                    .copied()
                    .filter(|&x| {
                        if self.has(x, prop::NOT_ANONYMOUS | prop::PRUNED) {
                            return false;
                        }
                        let lv = self.space().levels(x);
                        let bound = inherited(self, &prop_bound, x)
                            .max(self.checker.metric().level_bound(&lv));
                        !self.beaten(bound)
                    })
                    .collect();
                self.speculate(&next);
            }
            let mut p = inherited(self, &prop_bound, id);
            let result = match self.result(id) {
                Some(r) => Some(*r),
                None if self.has(id, prop::NOT_ANONYMOUS | prop::PRUNED) => None,
                None => {
                    self.space().levels_into(id, &mut levels);
                    let bound = p.max(self.checker.metric().level_bound(&levels));
                    if self.beaten(bound) {
                        // The inherited class bounds hold for every generalization too.
                        self.prune(id);
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
}
