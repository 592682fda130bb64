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
//! **Seed and local search.** Before the queue, one path from the bottom to the top (greedy in
//! Flash's order) is binary-searched for its lowest valid transformation; an iterated local
//! search then improves it ([`improve`]): climbs over direct specializations, generalizations
//! (when those can lose less) and swaps (one attribute up, another down), kicked by seeded
//! random double swaps until a few dozen kicks in a row find nothing better. A few hundred checks
//! that usually reach the optimum or come close, so the bounds prune from the start and an
//! interrupted search has a good answer.
//!
//! **Threads.** The strategy is sequential: which transformation it checks next depends on the
//! tags of the previous check. With more than one thread it runs within
//! [`Search::with_helpers`] and names, before a check, the two it will most likely check
//! next ([`Search::guess_two`]), assuming the verdict seen more often so far at that kind of
//! check ([`Odds`]): in [`maximize`] the raises of the next dimensions if raises are mostly
//! found anonymous, else the next raises of the same dimension; in a
//! path's binary search the next probes above or below; in [`climb`] the next candidates (most
//! lose no less). Where paths mostly end with their first check (DM*: a checked point's class
//! bound prunes what lies above it), the first check of the path of the queue's next
//! transformation is guessed instead. The lookahead worker evaluates the first guess while the
//! search's thread checks; when the search then takes the worker's result, the worker goes on
//! with the second while the search's thread checks the first, so a chain keeps both threads
//! on. A result is recorded only when the search asks for that transformation, so every check,
//! tag, count and the optimum are those of one thread. Guesses here are not filtered by their
//! bound ([`Search::classify_beyond_bound`]): paths are checked above it for their anonymity.
//!
//! An earlier design that waited for batches of guesses was slower than one thread; this one
//! never waits except for the very transformation it needs, and the checkers share their
//! snapshots ([`super::lookahead`]). What limits it: far more of the worker's checks start
//! from scratch than of the search's (its history holds what was offered to it, not all the
//! search's; handing it the search's nearest snapshot with each request halved its grouped
//! items and saved no time); the worker is idle half the time (one request in flight); DM*'s
//! next path is often one the current check's expansion puts first in the queue, not the
//! queue's next; and simulating a guess exactly through the tags (passing known points,
//! following a finished binary search into its sweep) used more of them and was slower. The
//! figures (two threads against one on the census benchmark) are in `BENCHMARKS.md`.
//!
//! **Anytime.** At the search's [`Limit`](super::search::Limit) it stops; the smallest bound in
//! the queue bounds everything unexplored, which the outcome reports as `lower_bound` beside the
//! best transformation found.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::observe::Phase;
use super::search::{Purpose, Search};
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
    search.with_helpers(best_first);
}

/// The search proper (see the module docs), within [`Search::with_helpers`].
fn best_first<S: PropertyStore>(search: &mut Search<'_, S>) {
    search.enable_pruning();
    search.classify_beyond_bound();
    search.scatter_checks();
    let exact_monotonic =
        search.classification() == Classification::Exact && search.metric_monotonic();
    if !exact_monotonic {
        search.expect_generalizations_of_valid();
    }
    search.enter_phase(Phase::BestFirst);
    search.set_purpose(Purpose::Seed);
    seed(search);
    search.set_purpose(Purpose::LocalSearch);
    improve(search);
    let dims = search.space().dims();
    let mut levels = vec![0usize; dims];
    let mut queue: BinaryHeap<Reverse<Entry>> = BinaryHeap::new();
    let mut odds = Odds::default();
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
            search.count_tag_hit();
            continue;
        }
        let mut inherited = head.bound;
        let expand = if search.is_checked(id) {
            // Checked by the seed: its verdict is known.
            let r = *search.result(id).expect("checked");
            inherited = inherited.max(r.class_bound.unwrap_or(f64::NEG_INFINITY));
            !(r.anonymous && search.metric_monotonic())
        } else if search.has(id, prop::NOT_ANONYMOUS) {
            search.count_tag_hit();
            true
        } else if exact_monotonic && search.has(id, prop::ANONYMOUS) {
            false
        } else if search.tagging() && !search.resolved(id) {
            // Resolve it with a path, then decide again from what is known (at the limit, the
            // loop stops with this transformation still queued).
            search.set_purpose(Purpose::Classification);
            let then = queue.peek().map(|e| e.0.id);
            classify_path(search, id, then, &mut odds);
            queue.push(Reverse(head));
            continue;
        } else {
            search.set_purpose(Purpose::Candidates);
            let r = search.check(id);
            inherited = inherited.max(r.class_bound.unwrap_or(f64::NEG_INFINITY));
            !(r.anonymous && search.metric_monotonic())
        };
        if !expand || search.beaten(inherited) {
            continue;
        }
        let children: Vec<NodeId> = search.space().children(id).collect();
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
/// its whole down-set, `id` included, with one check; the highest invalid point found is then
/// raised to a maximal invalid transformation ([`maximize`]). Afterwards `id` is resolved
/// (checked, tagged or pruned), unless the limit stopped the search.
///
/// The path's transformations are checked even where their bound cannot beat the best loss:
/// what BFS needs from them is their anonymity, and an invalid transformation high above the
/// bound tags far more of the region under it than one inside it (pruning them unchecked, as
/// Flash's `decide` does, took more checks and grouped several times the items;
/// `BENCHMARKS.md`).
///
/// `then` is the transformation the queue holds next, whose path the lookahead may guess.
fn classify_path<S: PropertyStore>(
    search: &mut Search<'_, S>,
    id: NodeId,
    then: Option<NodeId>,
    odds: &mut Odds,
) {
    let checks_before = search.checks();
    let path = greedy_path(search, id);
    // Binary search for the border (the lowest anonymous or pruned transformation).
    let (mut low, mut high) = (0, path.len() as isize - 1);
    while low <= high {
        let mid = (low + high) / 2;
        let node = path[mid as usize];
        let unknown = !search.resolved(node);
        let first = search.checks() == checks_before;
        // A guess can go to the worker: `node` will be checked, and the worker is free.
        let free = unknown && search.lookahead_free_at(node);
        if free && first && !odds.more.likely() {
            // Paths mostly end with their first check (DM*, whose class bounds prune what
            // lies above a checked point): guess the first check of the next path.
            if let Some(next) = then.filter(|&t| t != id && !search.resolved(t)) {
                search.guess(path_middle(search, next));
            }
        } else if free {
            // The search goes down from an anonymous point, up from another.
            let (next, after) = if odds.probes.likely() {
                let next = (low + mid - 1) / 2;
                (next, (next > low).then(|| (low + next - 1) / 2))
            } else {
                let next = (mid + 1 + high) / 2;
                (next, (next < high).then(|| (next + 1 + high) / 2))
            };
            if (low..=high).contains(&next) && next != mid {
                search.guess_two(path[next as usize], after.map(|a| path[a as usize]));
            }
        }
        match probe(search, &path, mid) {
            None => return,
            Some(down) => {
                if unknown {
                    odds.probes.count(down);
                }
                if down {
                    high = mid - 1;
                } else {
                    low = mid + 1;
                }
            }
        }
    }
    if low > 0 {
        maximize(search, path[low as usize - 1], odds);
    }
    // Tally whether the path's first check was followed by another.
    let checks = search.checks() - checks_before;
    if checks > 0 {
        odds.more.count(checks > 1);
    }
}

/// The first point [`classify_path`] would check from `id`: the middle of its greedy path, as
/// the tags are now (a guess for the lookahead).
fn path_middle<S: PropertyStore>(search: &Search<'_, S>, id: NodeId) -> NodeId {
    let path = greedy_path(search, id);
    path[(path.len() - 1) / 2]
}

/// The greedy path of unresolved transformations from `id` up: at each step the first
/// unresolved successor in Flash's order. (Not inlined: inlined into [`classify_path`], the
/// census benchmark took longer, see `BENCHMARKS.md`.)
#[inline(never)]
fn greedy_path<S: PropertyStore>(search: &Search<'_, S>, id: NodeId) -> Vec<NodeId> {
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
    path
}

/// Raises the invalid transformation `from` to a *maximal* invalid one, whose check tags the
/// largest down-set reachable from it: each dimension in turn is raised while its successor is
/// not known anonymous (or pruned) and is found invalid (known invalid ones are passed through
/// unchecked). One sweep suffices: a successor found anonymous stays anonymous under every later
/// raise (monotonicity), so no earlier dimension becomes raisable again. The sweep starts at a
/// different dimension for each transformation (its id modulo the dimensions), so that the
/// maximal elements found spread along the border instead of all leaning one way.
///
/// The path's binary search stops at a border point that is maximal only along the path; its
/// down-set misses most of what lies beside the path, which later paths then had to check
/// again. Raising it costs a few checks (mostly anonymous successors, cheap high in the
/// lattice) and saves more checks and time (`BENCHMARKS.md`).
fn maximize<S: PropertyStore>(search: &mut Search<'_, S>, from: NodeId, odds: &mut Odds) {
    let dims = search.space().dims();
    let start = (from % dims as u64) as usize;
    let mut cur = from;
    for i in 0..dims {
        let d = (start + i) % dims;
        while let Some(up) = search.space().successor(cur, d) {
            if search.has(up, prop::ANONYMOUS | prop::PRUNED) {
                break;
            }
            if !search.has(up, prop::NOT_ANONYMOUS) {
                if search.out_of_time() {
                    return;
                }
                if search.lookahead_free_at(up) {
                    let space = search.space();
                    let unknown = |s: &NodeId| !search.resolved(*s);
                    let next: Vec<NodeId> = if odds.raises.likely() {
                        // Found anonymous, the sweep goes on from `cur` in the next dimensions.
                        (i + 1..dims)
                            .filter_map(|j| space.successor(cur, (start + j) % dims))
                            .filter(unknown)
                            .take(2)
                            .collect()
                    } else {
                        // Found not anonymous, it raises `up` further in this dimension.
                        std::iter::successors(space.successor(up, d), |&s| space.successor(s, d))
                            .take(2)
                            .take_while(unknown)
                            .collect()
                    };
                    if let Some((&first, rest)) = next.split_first() {
                        search.guess_two(first, rest.first().copied());
                    }
                }
                let r = search.check(up);
                let anonymous = search.tag_verdict(&r);
                odds.raises.count(anonymous);
                if anonymous {
                    break;
                }
            }
            cur = up;
        }
    }
}

/// How the checks went so far, for the lookahead's guesses (see the module docs).
#[derive(Default)]
struct Odds {
    /// Raises of [`maximize`] found anonymous (yes) or not.
    raises: Tally,
    /// Probes of a path's binary search that sent it down (yes: anonymous or pruned) or up.
    probes: Tally,
    /// Paths whose first check was followed by another (yes) or was their only one.
    more: Tally,
}

#[derive(Default)]
struct Tally {
    yes: u64,
    no: u64,
}

impl Tally {
    fn count(&mut self, yes: bool) {
        if yes {
            self.yes += 1;
        } else {
            self.no += 1;
        }
    }

    /// True if the next one is more likely yes (ties: yes).
    fn likely(&self) -> bool {
        self.yes >= self.no
    }
}

/// Whether the search goes down from `path[i]` (anonymous, or pruned): from the tags, or by
/// checking it. `None` at the limit.
fn probe<S: PropertyStore>(search: &mut Search<'_, S>, path: &[NodeId], i: isize) -> Option<bool> {
    let node = path[i as usize];
    if search.resolved(node) {
        return Some(search.has(node, prop::ANONYMOUS | prop::PRUNED));
    }
    if search.out_of_time() {
        return None;
    }
    let r = search.check(node);
    Some(search.tag_verdict(&r))
}

/// Climbs from the valid transformation `start` to a local optimum of its neighbourhood: direct
/// specializations, direct generalizations when one can lose less (a non-monotonic metric), and
/// *swaps* (one attribute a level up, another a level down), the move that trades generality
/// between attributes, which single steps cannot make from a minimal valid transformation.
/// Candidates are tried in ascending order of their level bound, skipping those that cannot lose
/// less than the current point or beat the best (bound), are known invalid or pruned (tags), or
/// were checked; the climb moves on the first improvement. Everything checked stays cached and
/// tagged for the exact search. Returns the local optimum.
fn climb<S: PropertyStore>(search: &mut Search<'_, S>, start: NodeId) -> NodeId {
    let dims = search.space().dims();
    let mut levels = vec![0usize; dims];
    let both_ways = !search.metric_monotonic();
    let mut current = start;
    loop {
        let Some(here) = search.result(current).and_then(|r| r.loss) else {
            return current;
        };
        let space = search.space();
        let mut next: Vec<NodeId> = space.predecessors(current).collect();
        if both_ways {
            next.extend(space.successors(current));
        }
        for up in 0..dims {
            let Some(raised) = space.successor(current, up) else {
                continue;
            };
            next.extend(
                (0..dims)
                    .filter(|&down| down != up)
                    .filter_map(|down| space.predecessor(raised, down)),
            );
        }
        let mut ranked: Vec<(f64, NodeId)> = next
            .into_iter()
            .map(|id| (level_bound(search, id, &mut levels), id))
            .collect();
        ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut moved = false;
        for (i, &(bound, id)) in ranked.iter().enumerate() {
            if bound >= here || search.beaten(bound) {
                break; // sorted: no later candidate can lose less
            }
            if search.out_of_time() {
                return current;
            }
            if settled(search, id) {
                continue;
            }
            if search.lookahead_free_at(id) {
                // Most candidates lose no less: the climb then tries the next ones.
                let mut later = ranked[i + 1..]
                    .iter()
                    .take_while(|c| c.0 < here)
                    .filter(|c| !settled(search, c.1));
                if let Some(&(_, next)) = later.next() {
                    let after = later.next().map(|c| c.1);
                    search.guess_two(next, after);
                }
            }
            if search.check(id).loss.is_some_and(|loss| loss < here) {
                current = id;
                moved = true;
                break;
            }
        }
        if !moved {
            return current;
        }
    }
}

/// True if the local search has nothing to learn from checking `id`: checked already, or known
/// invalid or pruned.
fn settled<S: PropertyStore>(search: &Search<'_, S>, id: NodeId) -> bool {
    search.is_checked(id) || search.has(id, prop::NOT_ANONYMOUS | prop::PRUNED)
}

/// Rounds of perturbation without a better transformation before the local search hands over
/// to the exact search.
const STALE_ROUNDS: u32 = 24;

/// Iterated local search from the best transformation (after the seed): climb to a local
/// optimum, then repeatedly kick the best with two random swaps (or a raise, when no swap
/// applies), and climb again from the kicked point if it is valid. Stops after
/// [`STALE_ROUNDS`] kicks in a row that did not improve the best, or when it has used 80 % of a
/// time limit ([`LOCAL_SEARCH_SHARE`]). A few hundred checks that usually find the optimum or
/// come close, so the bounds prune from the start and an interrupted search has a good answer.
/// Seeded, so every run (and thread count) takes the same steps.
fn improve<S: PropertyStore>(search: &mut Search<'_, S>) {
    let Some((best, _)) = search.best() else {
        return;
    };
    climb(search, best);
    let dims = search.space().dims();
    let mut rng = SplitMix(0x5EED_A7B0_C5EA_2C4D);
    let mut stale = 0;
    // With a time limit, a fifth of it is left to the exact search, whose queue gives
    // the lower bound of the certificate.
    while stale < STALE_ROUNDS && !search.past_share(LOCAL_SEARCH_SHARE) && !search.out_of_time() {
        let Some((best, before)) = search.best() else {
            return;
        };
        let space = search.space();
        let mut kicked = best;
        for _ in 0..2 {
            let up = rng.below(dims);
            let down = rng.below(dims);
            if let Some(x) = space.successor(kicked, up) {
                kicked = if down == up {
                    x
                } else {
                    space.predecessor(x, down).unwrap_or(x)
                };
            }
        }
        stale += 1;
        if kicked == best || settled(search, kicked) {
            continue;
        }
        if search.check(kicked).anonymous {
            climb(search, kicked);
        }
        if search.best().is_some_and(|(_, loss)| loss < before) {
            stale = 0;
        }
    }
}

/// The share of a time limit the local search may use at most: most of it, since a short limit
/// asks first for a good result (its best often comes late), but not all, so that the queue
/// gives the certificate a real bound.
const LOCAL_SEARCH_SHARE: f64 = 0.8;

/// A small seeded generator (SplitMix64) for the local search's kicks.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z % n.max(1) as u64) as usize
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
        if r.anonymous || search.tag_verdict(&r) {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
}
