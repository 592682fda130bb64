//! What the search knows ([`State`]): the space, the property store, the result of every
//! check, the best valid transformation, and what tagging and pruning may rely on; and the
//! search's check ([`Search::check`]), which caches, tags, keeps the best and prunes.
//!
//! Tagging follows the checker's [`Classification`]: anonymity itself when the privacy models
//! are monotonic, else their monotonic relaxation (e.g. distinct l-diversity for entropy
//! l-diversity with suppression): a transformation failing it, and every specialization, is
//! invalid; one passing it is only possibly valid, so the final phase checks what is left.
//! Whether a transformation was checked, and single-node verdicts when nothing may be tagged
//! ([`Classification::None`]), come from the result cache, not the store.
//!
//! Pruning (opt-in, [`Search::enable_pruning`]; Flash uses it): the metrics' lower bounds are
//! monotonic along generalization, so a transformation whose bound reaches the best loss so far
//! cannot lead anywhere better, and neither can its generalizations. Such up-sets are tagged
//! [`prop::PRUNED`] without being checked: by the level bound before a check
//! ([`Search::decide`]), or by the class bound of a checked transformation (at once, or when the
//! best loss later improves). A pruned node counts as resolved for the search, like a tag.

use rustc_hash::FxHashMap;

use super::{Purpose, Search};
use crate::check::{CheckResult, Checker, Classification};
use crate::lattice::{prop, NodeId, PropertyStore, Space};

/// What the search knows (see the module docs).
pub(super) struct State<S> {
    space: Space,
    store: S,
    results: FxHashMap<NodeId, CheckResult>,
    best: Option<(NodeId, f64)>,
    /// What predictive tagging may rely on (see [`Classification`]).
    classification: Classification,
    /// The metric is monotonic under the suppression setting.
    metric_monotonic: bool,
    /// What marks a transformation the search will not check again (the history drops
    /// snapshots only such transformations could use).
    finished: Finished,
    pruning: bool,
    /// The strategy checks transformations the best loss beats ([`Search::classify_beyond_bound`]).
    beyond_bound: bool,
    /// Checked transformations whose class bound has not pruned their generalizations yet.
    pending: Vec<(NodeId, f64)>,
    /// How much a bound must exceed the best loss to beat it, relative to it (the metric's).
    slack: f64,
    /// Verdicts tag the store (off for the search's last check, [`Search::check_last`]).
    tagging: bool,
}

/// Which transformations count as finished for the checker's history.
#[derive(Debug, Clone, Copy)]
struct Finished {
    /// Properties (of the store, or single-node verdicts) that finish a transformation.
    bits: u8,
    /// A checked transformation is finished too.
    checked: bool,
}

impl<S: PropertyStore> State<S> {
    pub fn new(
        space: Space,
        store: S,
        classification: Classification,
        metric_monotonic: bool,
        slack: f64,
    ) -> State<S> {
        State {
            space,
            store,
            results: FxHashMap::default(),
            best: None,
            classification,
            metric_monotonic,
            finished: Finished {
                bits: prop::RESOLVED,
                checked: false,
            },
            pruning: false,
            beyond_bound: false,
            pending: Vec::new(),
            slack,
            tagging: true,
        }
    }

    pub fn space(&self) -> &Space {
        &self.space
    }

    /// True if `id` has any of the property `bits` (see [`Search::has`]).
    fn has(&self, id: NodeId, bits: u8) -> bool {
        if self.store.has(id, bits) {
            return true;
        }
        if self.classification == Classification::None && bits & prop::TAGGED != 0 {
            if let Some(r) = self.results.get(&id) {
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

    /// What marks a transformation finished for the checkers' histories ([`Finished`]), on
    /// the state alone (the checkers are borrowed mutably beside it).
    pub fn finished(&self) -> impl Fn(&[usize]) -> bool + Sync + '_ {
        move |lv: &[usize]| {
            let x = self.space.id(lv);
            (self.finished.checked && self.results.contains_key(&x))
                || self.has(x, self.finished.bits)
        }
    }
}

impl<'a, S: PropertyStore> Search<'a, S> {
    /// Transformations checked (each once: the result cache holds every accepted check).
    pub fn checks(&self) -> u64 {
        self.state.results.len() as u64
    }

    /// The search space.
    pub fn space(&self) -> &Space {
        &self.state.space
    }

    /// The property store.
    pub fn store(&self) -> &S {
        &self.state.store
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
        self.state.best
    }

    /// True if `id` has any of the property `bits` ([`prop`]): in the store, or, for the
    /// anonymity bits when nothing may be tagged, as the verdict of its own check.
    pub fn has(&self, id: NodeId, bits: u8) -> bool {
        self.state.has(id, bits)
    }

    /// True if `id` was checked.
    pub fn is_checked(&self, id: NodeId) -> bool {
        self.state.results.contains_key(&id)
    }

    /// The cached result of `id`, if checked.
    pub fn result(&self, id: NodeId) -> Option<&CheckResult> {
        self.state.results.get(&id)
    }

    /// The ids of the checked transformations, in no order.
    pub(super) fn checked_ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.state.results.keys().copied()
    }

    /// Lets the search prune up-sets by lower bounds (see the module docs).
    pub fn enable_pruning(&mut self) {
        self.state.pruning = true;
    }

    /// Tells the search that the strategy checks transformations whose bound the best loss
    /// beats, for their anonymity alone (BFS's paths): guesses are then not filtered by their
    /// bound ([`Search::worth_evaluating`]).
    pub fn classify_beyond_bound(&mut self) {
        self.state.beyond_bound = true;
    }

    /// True if the metric is monotonic under the suppression setting: no generalization of a
    /// valid transformation loses less.
    pub fn metric_monotonic(&self) -> bool {
        self.state.metric_monotonic
    }

    /// What predictive tagging relies on.
    pub fn classification(&self) -> Classification {
        self.state.classification
    }

    /// True if predictive tagging is allowed (exactly, or by the criteria's relaxation).
    pub fn tagging(&self) -> bool {
        self.state.classification != Classification::None
    }

    /// The verdict tagging follows: anonymity, or in [`Classification::Relaxed`] the relaxation
    /// (then "anonymous" tags mean "possibly anonymous" and the final phase decides).
    pub fn tag_verdict(&self, r: &CheckResult) -> bool {
        match self.state.classification {
            Classification::Relaxed => r.relaxed,
            _ => r.anonymous,
        }
    }

    /// True if the classification has nothing more to learn from a node: its anonymity is
    /// known, or it is pruned.
    pub fn resolved(&self, id: NodeId) -> bool {
        self.has(id, prop::RESOLVED)
    }

    /// True if a loss of `bound` or more cannot beat the best loss.
    pub fn beaten(&self, bound: f64) -> bool {
        self.state
            .best
            .is_some_and(|(_, b)| bound >= b + self.state.slack * b.abs())
    }

    /// Prunes `id` and its generalizations.
    pub(super) fn prune(&mut self, id: NodeId) {
        self.state.store.tag_up(id, prop::PRUNED);
    }

    /// Prunes the generalizations of `id` (not `id` itself).
    fn prune_above(&mut self, id: NodeId) {
        for s in self.state.space.successors(id) {
            self.state.store.tag_up(s, prop::PRUNED);
        }
    }

    /// From now on, checked transformations and those known invalid or pruned are finished
    /// for the checkers' histories (the final phase: it checks no transformation twice and
    /// nothing above a known invalid one).
    pub(super) fn finish_checked(&mut self) {
        self.state.finished = Finished {
            bits: prop::NOT_ANONYMOUS | prop::PRUNED,
            checked: true,
        };
    }

    /// The metric's bound of the loss of `id` from its levels alone.
    fn level_bound(&mut self, id: NodeId) -> f64 {
        self.state.space.levels_into(id, &mut self.levels);
        self.checker.metric().level_bound(&self.levels)
    }

    /// True if, with pruning on, the level bound of `id` excludes it from the search's
    /// interest (unless the strategy classifies beyond the bound, see
    /// [`Search::classify_beyond_bound`]).
    pub(super) fn bound_excludes(&self, id: NodeId) -> bool {
        if !self.state.pruning || self.state.beyond_bound {
            return false;
        }
        let levels = self.state.space.levels(id);
        self.beaten(self.checker.metric().level_bound(&levels))
    }

    /// Flash's decision on a node of a path: true if the search should go down (the node is
    /// anonymous, or everything above it is pruned). Checks the node if needed.
    pub fn decide(&mut self, id: NodeId) -> bool {
        if self.resolved(id) {
            return self.has(id, prop::ANONYMOUS | prop::PRUNED);
        }
        if self.state.pruning {
            let bound = self.level_bound(id);
            if self.beaten(bound) {
                self.prune(id);
                return true;
            }
        }
        let r = self.check(id);
        self.tag_verdict(&r) || self.has(id, prop::PRUNED)
    }

    /// The result of checking `id` (checked once, then cached), with tagging. Within
    /// [`Search::with_helpers`], a pending [`Search::guess`] goes to the lookahead worker
    /// first, and a result it computed for `id` is taken instead of checking again.
    pub fn check(&mut self, id: NodeId) -> CheckResult {
        let guess = self.take_guess();
        if let Some(r) = self.state.results.get(&id) {
            return *r;
        }
        if let Some(r) = self.take_evaluated_ahead(id, guess) {
            return self.record(id, r);
        }
        let cutoff = self.loss_cutoff();
        self.state.space.levels_into(id, &mut self.levels);
        self.checker.set_loss_cutoff(cutoff);
        let started = self.own_check_started();
        let finished = self.state.finished();
        let r = self.checker.check(&self.levels, &finished);
        drop(finished);
        self.own_check_done(started);
        self.join_team_if_due();
        self.record(id, r)
    }

    /// [`Self::check`] for the search's last check: its verdict is kept in the results but tags
    /// nothing, since nothing reads the tags any more (tagging the top as not anonymous walks
    /// the whole lattice, every transformation being below it: 20 s on 2^27 transformations).
    pub fn check_last(&mut self, id: NodeId) -> CheckResult {
        self.state.tagging = false;
        let r = self.check(id);
        self.state.tagging = true;
        r
    }

    /// The level bound from which a check need not compute a valid transformation's loss
    /// ([`Checker::set_loss_cutoff`]): when classifying with pruning on, a transformation the
    /// best loss beats ([`Search::beaten`]) cannot improve on it, and its anonymity is all the
    /// search asks. Elsewhere (candidates, the local search, which climbs from worse points,
    /// and searches without pruning, whose charts show every loss) every loss is computed.
    pub(super) fn loss_cutoff(&self) -> Option<f64> {
        if !self.state.pruning || self.purpose() != Purpose::Classification {
            return None;
        }
        self.state.best.map(|(_, b)| b + self.state.slack * b.abs())
    }

    /// Takes the result `r` of checking `id` (here or on another thread): caches it, tags, keeps
    /// the best and prunes by bounds. A loss computed ahead on another thread, with an older
    /// cutoff, is dropped if the current one would not have computed it, so that the results
    /// do not depend on the threads' timing.
    fn record(&mut self, id: NodeId, mut r: CheckResult) -> CheckResult {
        if let (Some(_), Some(cutoff)) = (r.loss, self.loss_cutoff()) {
            if self.level_bound(id) >= cutoff {
                r.loss = None;
            }
        }
        let verdict = self.tag_verdict(&r);
        let state = &mut self.state;
        match (state.classification, verdict) {
            // Nothing may be tagged: the verdict is a single-node mark, kept in the results.
            (Classification::None, _) => {}
            _ if !state.tagging => {}
            (_, true) => state.store.tag_up(id, prop::ANONYMOUS),
            (_, false) => state.store.tag_down(id, prop::NOT_ANONYMOUS),
        }
        state.results.insert(id, r);
        self.count_check(r.anonymous);
        let mut improved = false;
        if let Some(loss) = r.loss {
            if self.state.best.is_none_or(|(_, b)| loss < b) {
                self.state.best = Some((id, loss));
                improved = true;
                self.found_best();
            }
        }
        if self.state.pruning {
            if let Some(cb) = r.class_bound {
                self.state.pending.push((id, cb));
            }
            if improved {
                // Every pending bound is compared against the new best.
                let pending = std::mem::take(&mut self.state.pending);
                let (done, keep): (Vec<_>, Vec<_>) =
                    pending.into_iter().partition(|&(_, cb)| self.beaten(cb));
                self.state.pending = keep;
                for (y, _) in done {
                    self.prune_above(y);
                }
            } else if r.class_bound.is_some_and(|cb| self.beaten(cb)) {
                self.state.pending.pop();
                self.prune_above(id);
            }
        }
        self.notify(false);
        r
    }
}
