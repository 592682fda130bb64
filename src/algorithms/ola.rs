//! OLA, El Emam et al.'s Optimal Lattice Anonymization ("A globally optimal k-anonymity method
//! for the de-identification of health data", JAMIA 2009), on the same checker as Flash.
//!
//! Divide and conquer over sub-lattices `(b, t)` (generalizations of `b` that specialize `t`):
//! enumerate the nodes halfway between (stable order), check each untagged one, and recurse into
//! `(b, m)` if `m` is anonymous, else into `(m, t)`. A two-node (or one-node) sub-lattice yields
//! its lowest anonymous node as a k-minimal candidate. Sub-lattices already processed are
//! skipped (memo), which bounds the recursion. As in Flash, the best checked anonymous node is
//! optimal for monotonic metrics; [`super::search::Search::optimize_remaining`] handles the rest.

use rustc_hash::FxHashSet;

use super::search::Search;
use super::LEVEL_CHUNK;
use crate::lattice::{prop, LevelNodes, NodeId, PropertyStore};

/// Runs OLA's classification on `search` (requires tagging; otherwise does nothing).
pub fn classify<S: PropertyStore>(search: &mut Search<'_, S>) {
    if !search.tagging() {
        return;
    }
    let (bottom, top) = (search.space().bottom(), search.space().top());
    if search.out_of_time() {
        return;
    }
    let r = search.check(top);
    if !search.tag_verdict(&r) {
        return; // nothing is anonymous
    }
    let mut memo = FxHashSet::default();
    // Depth-first with an explicit stack (deep lattices must not overflow the thread stack):
    // each frame is a sub-lattice and its middle level, walked in chunks; a middle node's
    // sub-lattice is processed before the next middle node is looked at, as in the recursion.
    let mut stack: Vec<Frame> = Vec::new();
    enter(search, &mut memo, &mut stack, bottom, top);
    while let Some(frame) = stack.last_mut() {
        if search.out_of_time() {
            return;
        }
        if frame.next == frame.nodes.len() {
            frame.nodes.clear();
            frame.nodes.extend(frame.walk.by_ref().take(LEVEL_CHUNK));
            search.space().sort(&mut frame.nodes);
            frame.next = 0;
            if frame.nodes.is_empty() {
                stack.pop();
            }
            continue;
        }
        let (b, t, m) = (frame.b, frame.t, frame.nodes[frame.next]);
        frame.next += 1;
        if anonymous(search, m) {
            enter(search, &mut memo, &mut stack, b, m);
        } else {
            enter(search, &mut memo, &mut stack, m, t);
        }
    }
}

/// A sub-lattice `(b, t)` being processed: its middle level, taken in chunks of at most
/// [`LEVEL_CHUNK`] nodes in Flash's order (a middle level of up to that many is sorted whole;
/// the first middle level of 30 two-level quasi-identifiers has 155 million nodes), and the
/// index of the next node of the chunk. The stack holds about log2(height) frames: each
/// sub-lattice is half as high as its parent's.
struct Frame {
    b: NodeId,
    t: NodeId,
    walk: LevelNodes,
    nodes: Vec<NodeId>,
    next: usize,
}

/// Starts processing the sub-lattice `(b, t)`: a frame with its middle level, or, for one or two
/// nodes, the decision itself.
fn enter<S: PropertyStore>(
    search: &mut Search<'_, S>,
    memo: &mut FxHashSet<(NodeId, NodeId)>,
    stack: &mut Vec<Frame>,
    b: NodeId,
    t: NodeId,
) {
    if !memo.insert((b, t)) {
        return;
    }
    let (lb, lt) = (search.space().level(b), search.space().level(t));
    let h = lt - lb;
    if h > 1 {
        let walk = search.space().level_nodes(b, t, lb + h / 2);
        stack.push(Frame {
            b,
            t,
            walk,
            nodes: Vec::new(),
            next: 0,
        });
    } else {
        // One or two nodes: t is anonymous (the recursion only descends into anonymous tops),
        // so the k-minimal candidate is b if anonymous, else t. Either is checked (a node
        // tagged anonymous from below is not minimal), so deciding b suffices.
        anonymous(search, b);
    }
}

/// The anonymity of `id`: from its tag, else by checking it.
fn anonymous<S: PropertyStore>(search: &mut Search<'_, S>, id: NodeId) -> bool {
    if search.resolved(id) {
        search.has(id, prop::ANONYMOUS)
    } else if search.out_of_time() {
        false // the caller's loop stops at its next step
    } else {
        let r = search.check(id);
        search.tag_verdict(&r)
    }
}
