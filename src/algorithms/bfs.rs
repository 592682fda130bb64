//! Best-first branch and bound over an implicit space (Prasser et al., "Efficient and effective
//! pruning strategies for health data de-identification", 2016), exact for every metric and
//! privacy model of the checker, with or without suppression.
//!
//! Transformations wait in a priority queue ordered by a lower bound of their information loss
//! (the metric's level bound, raised by the class bound inherited from the transformation that
//! generated it), ties by lattice level, then id. The search pops the smallest bound:
//! - if it cannot beat the best loss found, neither can anything still queued nor anything they
//!   would generate (bounds only grow along generalization): the best is **proven optimal**;
//! - a transformation in a pruned up-set ("insufficient quality") is dropped with its up-set;
//! - one known invalid ("insufficient protection": in the down-set of a checked invalid one,
//!   when the models' classification allows tagging) is not checked, only expanded;
//! - one known valid by tagging, when the classification is exact and the metric monotonic, is
//!   dropped with its up-set: the checked transformation that tagged it loses no more;
//! - anything else is checked ([`Search::check`]: caching, tagging both ways, class-bound
//!   pruning, the best loss). A valid result with a monotonic metric is not expanded (no
//!   generalization loses less); otherwise the transformation is expanded.
//!
//! **No visited set.** Expanding `x` generates only its *canonical* successors, `x + e_d` for
//! every dimension `d` at or above the last dimension where `x` is above level 0 (every `d` for
//! the bottom). Every transformation `y` then has exactly one generator (`y - e_d` for the last
//! `d` with `y_d > 0`), so it is queued at most once, and memory grows with the queue, never
//! with the space. Dropping a transformation without expanding it drops its whole canonical
//! subtree, which lies in its up-set; every reason to drop is up-closed (pruned up-sets; bounds
//! that grow along generalization; a monotonic metric above a valid transformation), so nothing
//! that could beat the best is ever lost.
//!
//! **Seed.** Before the queue, one path from the bottom to the top (greedy in Flash's order) is
//! binary-searched for its lowest valid transformation, and a hill-climb over direct
//! specializations (and generalizations, when those can lose less) improves it to a local
//! optimum: a few dozen checks that give a good valid result at once, so bounds prune from the
//! start and an interrupted search has a good answer.
//!
//! **Anytime.** At the search's [`Limit`](super::search::Limit) it stops; the smallest bound in
//! the queue bounds everything unexplored, which the outcome reports as `lower_bound` beside the
//! best transformation found.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::observe::Phase;
use super::search::Search;
use crate::check::Classification;
use crate::lattice::{prop, NodeId, PropertyStore};

/// A queued transformation.
#[derive(Debug, Clone, Copy)]
struct Entry {
    bound: f64,
    level: u32,
    id: NodeId,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bound
            .total_cmp(&other.bound)
            .then(self.level.cmp(&other.level))
            .then(self.id.cmp(&other.id))
    }
}

/// Runs best-first branch and bound on `search` to the proof of optimality, or to its limit.
pub fn search<S: PropertyStore>(search: &mut Search<'_, S>) {
    search.enable_pruning();
    let exact_monotonic =
        search.classification() == Classification::Exact && search.metric_monotonic();
    if !exact_monotonic {
        search.expect_generalizations_of_valid();
    }
    search.enter_phase(Phase::BestFirst);
    seed(search);
    improve(search);
    let dims = search.space().dims();
    let mut levels = vec![0usize; dims];
    let mut queue: BinaryHeap<Reverse<Entry>> = BinaryHeap::new();
    let bottom = search.space().bottom();
    queue.push(Reverse(Entry {
        bound: level_bound(search, bottom, &mut levels),
        level: 0,
        id: bottom,
    }));
    while let Some(&Reverse(head)) = queue.peek() {
        search.report_frontier(head.bound, Some(queue.len() as u64));
        if search.beaten(head.bound) {
            break; // proven: nothing queued or below can beat the best
        }
        if search.out_of_time() {
            search.stop_with_bound(head.bound);
            return;
        }
        queue.pop();
        let id = head.id;
        if search.has(id, prop::PRUNED) {
            continue;
        }
        let mut inherited = head.bound;
        let expand = if search.is_checked(id) {
            // Checked by the seed: its verdict is known.
            let r = *search.result(id).expect("checked");
            inherited = inherited.max(r.class_bound.unwrap_or(f64::NEG_INFINITY));
            !(r.loss.is_some() && search.metric_monotonic())
        } else if search.has(id, prop::NOT_ANONYMOUS) {
            true
        } else if exact_monotonic && search.has(id, prop::ANONYMOUS) {
            false
        } else if search.tagging() && !search.resolved(id) {
            // Resolve it with a path, then decide again from what is known (at the limit, the
            // loop stops with this transformation still queued).
            classify_path(search, id);
            queue.push(Reverse(head));
            continue;
        } else {
            let r = search.check(id);
            inherited = inherited.max(r.class_bound.unwrap_or(f64::NEG_INFINITY));
            !(r.loss.is_some() && search.metric_monotonic())
        };
        if !expand || search.beaten(inherited) {
            continue;
        }
        let space = search.space();
        let from = (0..dims)
            .rev()
            .find(|&d| space.level_of(id, d) > 0)
            .unwrap_or(0);
        let children: Vec<NodeId> = (from..dims)
            .filter_map(|d| space.successor(id, d))
            .collect();
        for child in children {
            if search.has(child, prop::PRUNED) {
                continue;
            }
            let bound = level_bound(search, child, &mut levels).max(inherited);
            if search.beaten(bound) {
                continue;
            }
            queue.push(Reverse(Entry {
                bound,
                level: head.level + 1,
                id: child,
            }));
        }
    }
}

fn level_bound<S: PropertyStore>(search: &Search<'_, S>, id: NodeId, levels: &mut [usize]) -> f64 {
    search.space().levels_into(id, levels);
    search.checker().metric().level_bound(levels)
}

/// Classifies `id` as Flash does: binary search on the greedy path of unresolved
/// transformations from `id` up, so that a transformation found invalid high on the path tags
/// its whole down-set, `id` included, with one check. Afterwards `id` is resolved (checked,
/// tagged or pruned), unless the limit stopped the search.
///
/// The path's transformations are checked even where their bound cannot beat the best loss:
/// what BFS needs from them is their anonymity, and an invalid transformation high above the
/// bound tags far more of the region under it than one inside it (pruning them unchecked, as
/// Flash's `decide` does, made q=10 of the census benchmark take 15,161 checks and 945 M grouped
/// items; checking them, 10,439 and 268 M).
fn classify_path<S: PropertyStore>(search: &mut Search<'_, S>, id: NodeId) {
    let mut path = vec![id];
    let mut cur = id;
    loop {
        let space = search.space();
        let mut next: Vec<NodeId> = space.successors(cur).collect();
        space.sort(&mut next);
        match next.into_iter().find(|&s| !search.resolved(s)) {
            Some(s) => {
                path.push(s);
                cur = s;
            }
            None => break,
        }
    }
    let (mut low, mut high) = (0isize, path.len() as isize - 1);
    while low <= high {
        if search.out_of_time() {
            return;
        }
        let mid = (low + high) / 2;
        let node = path[mid as usize];
        let down = if search.resolved(node) {
            search.has(node, prop::ANONYMOUS | prop::PRUNED)
        } else {
            let r = search.check(node);
            search.tag_verdict(&r)
        };
        if down {
            high = mid - 1;
        } else {
            low = mid + 1;
        }
    }
}

/// Hill-climbs from the best transformation: checks its direct specializations (and, when a
/// generalization can lose less, its direct generalizations) that are not excluded, moves to the
/// best one that improves the loss, and stops at a local optimum. A handful of checks that make
/// the best loss, and so the bounds' pruning and an interrupted search's answer, much better
/// early; everything checked stays cached for the exact search.
fn improve<S: PropertyStore>(search: &mut Search<'_, S>) {
    let mut levels = vec![0usize; search.space().dims()];
    let both_ways = !search.metric_monotonic();
    while let Some((current, _)) = search.best() {
        let space = search.space();
        let mut next: Vec<NodeId> = space.predecessors(current).collect();
        if both_ways {
            next.extend(space.successors(current));
        }
        for id in next {
            if search.out_of_time() {
                return;
            }
            if search.is_checked(id) || search.has(id, prop::NOT_ANONYMOUS | prop::PRUNED) {
                continue;
            }
            if search.beaten(level_bound(search, id, &mut levels)) {
                continue;
            }
            search.check(id);
        }
        if search.best().map(|b| b.0) == Some(current) {
            return;
        }
    }
}

/// Binary search for the lowest valid transformation on one greedy path from the bottom to the
/// top (first successor in Flash's order at each step).
fn seed<S: PropertyStore>(search: &mut Search<'_, S>) {
    let space = search.space();
    let mut path = vec![space.bottom()];
    let mut cur = space.bottom();
    loop {
        let mut next: Vec<NodeId> = space.successors(cur).collect();
        if next.is_empty() {
            break;
        }
        space.sort(&mut next);
        cur = next[0];
        path.push(cur);
    }
    let (mut low, mut high) = (0usize, path.len());
    while low < high {
        if search.out_of_time() {
            return;
        }
        let mid = (low + high) / 2;
        let r = search.check(path[mid]);
        if r.loss.is_some() || search.tag_verdict(&r) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
}
