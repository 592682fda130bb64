//! Flash (Kohlmayer, Prasser et al., "Flash: Efficient, Stable and Optimal K-Anonymity", 2012).
//!
//! Bottom-up over the lattice levels; on each level the untagged transformations are enumerated
//! in the stable order ([`crate::lattice::OrderKey`]; a level of more than
//! [`super::LEVEL_CHUNK`] untagged ones in chunks of that many, walked in id order and each
//! sorted, so that memory does not grow with the lattice) and, from each one still untagged,
//! FINDPATH walks greedily up to the top (first untagged successor in the stable order) and
//! CHECKPATH binary-searches the path: an anonymous node tags its generalizations and sends the
//! search down, a non-anonymous one tags its specializations, goes into a min-heap (same order)
//! and sends the search up. A node whose lower bound cannot beat the best loss is pruned with its
//! up-set instead of being checked, and also sends the search down (see `search`). Successors
//! of the heap's nodes start new paths, which keeps consecutive checks close (roll-ups,
//! snapshots). When every node is tagged the classification is complete;
//! [`Search::optimize_remaining`] then makes the result global for metrics that are not
//! monotonic under suppression.
//!
//! With more than one thread the walk names, before each check of a path while the lookahead
//! worker is idle, the first check of a path to come as it looks now ([`Search::guess`]): of the
//! next untagged nodes of the level (or of the heap head's successors, then the next head's),
//! the first whose path's middle is neither known nor under way. The worker evaluates it
//! meanwhile ([`super::lookahead`]); the walk itself, and so every tag, count and the optimum,
//! is the same as on one thread. Looking past the next path keeps the worker busy while the walk
//! makes a path's further checks.
//! On larger inputs the threads share each check instead (see [`Search::with_helpers`]); the
//! walk is the same either way.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::search::Search;
use super::LEVEL_CHUNK;
use crate::lattice::{LevelNodes, NodeId, OrderKey, PropertyStore};

/// Runs Flash's classification on `search` (tagging must be allowed; otherwise it does nothing
/// and the caller's [`Search::optimize_remaining`] checks every candidate).
pub fn classify<S: PropertyStore>(search: &mut Search<'_, S>) {
    if !search.tagging() {
        return;
    }
    search.with_helpers(walk);
}

/// Flash's walk over the levels (see the module docs).
fn walk<S: PropertyStore>(search: &mut Search<'_, S>) {
    if search.budget() > 0 {
        // Without suppression the classification alone takes few checks, and a pruned
        // non-anonymous node would no longer tag its specializations: on ADULT pruning costs
        // 1.4-5x more checks at s = 0 and saves 2-8x at s > 0.
        search.enable_pruning();
    }
    let mut heap: BinaryHeap<Reverse<OrderKey>> = BinaryHeap::new();
    let (bottom, top) = (search.space().bottom(), search.space().top());
    for level in 0..=search.space().height() {
        let mut walk = search.space().level_nodes(bottom, top, level);
        loop {
            let Some(nodes) = next_chunk(search, &mut walk) else {
                return; // the deadline passed while walking the level
            };
            if nodes.is_empty() {
                break;
            }
            if !walk_chunk(search, &nodes, &mut heap) {
                return;
            }
        }
    }
}

/// The next at most [`LEVEL_CHUNK`] unresolved nodes of the level, in Flash's order; `None`
/// if the deadline passed meanwhile (a level of resolved nodes can be long to walk).
fn next_chunk<S: PropertyStore>(
    search: &mut Search<'_, S>,
    walk: &mut LevelNodes,
) -> Option<Vec<NodeId>> {
    let mut nodes = Vec::new();
    for id in walk.by_ref() {
        if search.tick() {
            return None;
        }
        if !search.resolved(id) {
            nodes.push(id);
            if nodes.len() == LEVEL_CHUNK {
                break;
            }
        }
    }
    search.space().sort(&mut nodes);
    Some(nodes)
}

/// Flash's walk from each node of `nodes` (sorted, of one level) still unresolved; false if
/// the search reached its limit.
fn walk_chunk<S: PropertyStore>(
    search: &mut Search<'_, S>,
    nodes: &[NodeId],
    heap: &mut BinaryHeap<Reverse<OrderKey>>,
) -> bool {
    for (i, &node) in nodes.iter().enumerate() {
        if search.out_of_time() {
            return false;
        }
        if search.resolved(node) {
            continue;
        }
        let path = find_path(search, node);
        let next = upcoming(search, &nodes[i + 1..], None);
        check_path(search, &path, heap, &next);
        while let Some(Reverse(head)) = heap.pop() {
            let ups = sorted_successors(search, head.id);
            for (j, &up) in ups.iter().enumerate() {
                if !search.resolved(up) && !search.out_of_time() {
                    let path = find_path(search, up);
                    let next = upcoming(search, &ups[j + 1..], heap.peek());
                    check_path(search, &path, heap, &next);
                }
            }
        }
    }
    true
}

/// Paths the walk will likely start next, as the tags are now (for the lookahead, see the
/// module docs): the untagged nodes of `rest` (of the level, or of the heap head's
/// successors), then those of the next heap head's successors; at most [`UPCOMING`].
fn upcoming<S: PropertyStore>(
    search: &Search<'_, S>,
    rest: &[NodeId],
    head: Option<&Reverse<OrderKey>>,
) -> Vec<NodeId> {
    if !search.looking_ahead() {
        return Vec::new();
    }
    let after = head.map(|Reverse(h)| sorted_successors(search, h.id));
    rest.iter()
        .chain(after.iter().flatten())
        .copied()
        .filter(|&n| !search.resolved(n))
        .take(UPCOMING)
        .collect()
}

/// Path starts the lookahead considers: the worker gets the first whose check is neither known
/// nor under way, so that it has work while the walk makes a path's further checks.
const UPCOMING: usize = 3;

fn sorted_successors<S: PropertyStore>(search: &Search<'_, S>, id: NodeId) -> Vec<NodeId> {
    let mut s: Vec<NodeId> = search.space().successors(id).collect();
    search.space().sort(&mut s);
    s
}

/// Greedy path of untagged nodes from `node` towards the top.
fn find_path<S: PropertyStore>(search: &Search<'_, S>, node: NodeId) -> Vec<NodeId> {
    let mut path = vec![node];
    let mut cur = node;
    while let Some(up) = sorted_successors(search, cur)
        .into_iter()
        .find(|&s| !search.resolved(s))
    {
        path.push(up);
        cur = up;
    }
    path
}

/// Binary search for the lowest anonymous node on `path`.
fn check_path<S: PropertyStore>(
    search: &mut Search<'_, S>,
    path: &[NodeId],
    heap: &mut BinaryHeap<Reverse<OrderKey>>,
    next: &[NodeId],
) {
    let (mut low, mut high) = (0isize, path.len() as isize - 1);
    while low <= high && !search.out_of_time() {
        let mid = (low + high) / 2;
        let node = path[mid as usize];
        if !next.is_empty() && search.lookahead_idle() {
            // The first check of a path to come, as the tags are now (see the module docs).
            for &n in next.iter().filter(|&&n| !search.resolved(n)) {
                let p = find_path(search, n);
                let first = p[(p.len() - 1) / 2];
                if search.worth_evaluating(first) {
                    search.guess(first);
                    break;
                }
            }
        }
        let fresh = !search.resolved(node);
        let down = search.decide(node);
        if fresh && search.result(node).is_some_and(|r| !search.tag_verdict(r)) {
            heap.push(Reverse(search.space().order_key(node)));
        }
        if down {
            high = mid - 1;
        } else {
            low = mid + 1;
        }
    }
}
