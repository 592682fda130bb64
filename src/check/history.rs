//! The history: compact snapshots of the classes of earlier, more specialized transformations.
//!
//! A snapshot is `(representative row, count)` per class (plus the class distributions when a
//! privacy model needs them): 8 bytes per class. A transformation can be grouped by merging the
//! classes of any snapshot of a specialization of it; the one with the fewest classes is used.
//! Controls, as in the Flash paper (defaults in [`super::CheckerConfig`]):
//! - a snapshot is stored only if it has at most `max_fraction * rows` classes,
//! - and only if it has at most `min_reduction` times the classes of the best snapshot that could
//!   already serve its transformation,
//! - at most `capacity` snapshots; when full, snapshots whose direct generalizations are all
//!   finished (the search will never check them) are dropped first, then the least recently used;
//! - at most `max_bytes` in all: above, the least recently used are dropped (the count alone let
//!   a best-first search's history grow with the snapshots' size, which grows with the
//!   quasi-identifiers).
//!
//! That last rule, and the refusal to store such a snapshot, assume a search that walks up
//! paths (Flash, OLA): what lies above finished generalizations is reached through them. A
//! search that jumps (best-first) checks far above transformations whose direct
//! generalizations are all known invalid, so for it ([`History::forget_path_order`]) the history
//! keeps every snapshot the other controls allow and drops the least recently used (with hubs,
//! see `transition`, it then starts far fewer checks from scratch; `BENCHMARKS.md`).
//!
//! A snapshot's classes are shared (`Arc`): the checkers of one search on several threads offer
//! each other what they keep ([`History::store_shared`]), and the histories then hold the same
//! classes, each under its own controls and recency. A dropped snapshot's buffers are reused
//! for the next one only when no other history still holds them.

use std::sync::Arc;

use super::groupify::Csr;

/// The classes of a snapshot: `(representative, count)` per class, and the distributions and
/// cached verdicts when the criteria need them. Shared (`Arc`) between the histories of a
/// search's checkers: a snapshot one checker stores is offered to the others without a copy
/// (see [`History::store_shared`]).
#[derive(Debug, Clone, Default)]
pub struct Classes {
    pub reps: Vec<u32>,
    pub counts: Vec<u32>,
    pub dist: Vec<Csr>,
    /// Cached class verdicts (see `groupify::VERDICT_OK`), if the checker caches them.
    pub verdict: Vec<u8>,
}

impl Classes {
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Bytes held (approximate: allocated capacity).
    pub fn bytes(&self) -> usize {
        4 * (self.reps.capacity() + self.counts.capacity())
            + self.verdict.capacity()
            + self
                .dist
                .iter()
                .map(|c| 4 * (c.offsets.capacity() + c.codes.capacity() + c.counts.capacity()))
                .sum::<usize>()
    }
}

/// One transformation's classes in a history: its levels, the (possibly shared) classes, and
/// this history's bookkeeping.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub levels: Vec<usize>,
    pub classes: Arc<Classes>,
    last_used: u64,
    /// A dimension whose direct generalization was unfinished (see `History::prunable`).
    witness: usize,
}

impl Snapshot {
    pub fn empty() -> Snapshot {
        Snapshot {
            levels: Vec::new(),
            classes: Arc::default(),
            last_used: 0,
            witness: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Bytes held by its classes (shared classes count in every history that holds them).
    pub fn bytes(&self) -> usize {
        self.classes.bytes()
    }
}

#[derive(Debug, Clone)]
pub struct History {
    pub snapshots: Vec<Snapshot>,
    capacity: usize,
    max_classes: usize,
    min_reduction: f64,
    /// Maximum level per dimension (to enumerate direct generalizations).
    max_levels: Vec<usize>,
    clock: u64,
    /// Dropped snapshots kept for their allocations (a store reuses one instead of allocating).
    free: Vec<Snapshot>,
    /// Scratch levels for `prunable`.
    up: Vec<usize>,
    /// Whether the search walks up paths (see the module docs).
    path_order: bool,
    /// Most bytes the snapshots may hold ([`Snapshot::bytes`]).
    max_bytes: usize,
}

/// Dropped snapshots kept for reuse.
const FREE_SNAPSHOTS: usize = 8;

/// True if `a` is a specialization of (or equal to) `b`.
pub(super) fn specializes(a: &[usize], b: &[usize]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

impl History {
    pub fn new(
        capacity: usize,
        max_classes: usize,
        min_reduction: f64,
        max_levels: Vec<usize>,
        max_bytes: usize,
    ) -> History {
        History {
            snapshots: Vec::new(),
            capacity,
            max_classes,
            min_reduction,
            max_levels,
            clock: 0,
            free: Vec::new(),
            up: Vec::new(),
            path_order: true,
            max_bytes,
        }
    }

    /// Most classes a snapshot may have.
    pub fn max_classes(&self) -> usize {
        self.max_classes
    }

    /// Drops every snapshot and the allocations kept for reuse.
    pub fn clear(&mut self) {
        self.snapshots = Vec::new();
        self.free = Vec::new();
    }

    /// The snapshot with the fewest classes among specializations of `levels`, if any.
    pub fn best_for(&self, levels: &[usize]) -> Option<usize> {
        self.snapshots
            .iter()
            .enumerate()
            .filter(|(_, s)| specializes(&s.levels, levels))
            .min_by_key(|(_, s)| s.len())
            .map(|(i, _)| i)
    }

    /// The search does not walk up paths: keep snapshots whose direct generalizations are all
    /// finished, drop the least recently used (see the module docs).
    pub fn forget_path_order(&mut self) {
        self.path_order = false;
    }

    /// Changes the most bytes the snapshots may hold (effective at the next store).
    pub fn set_max_bytes(&mut self, max_bytes: usize) {
        self.max_bytes = max_bytes;
    }

    /// Changes the number of snapshots kept (effective at the next store).
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
    }

    /// Marks snapshot `i` as used now (LRU).
    pub fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.snapshots[i].last_used = self.clock;
    }

    /// True if every direct generalization of `levels` is finished. `levels` is raised one
    /// dimension at a time in place and restored. `witness` is a dimension whose generalization
    /// was unfinished last time: it is tried first (finished is monotonic within a phase, so it
    /// usually still answers) and updated; the verdict does not depend on it.
    fn prunable(
        max_levels: &[usize],
        levels: &mut [usize],
        finished: &dyn Fn(&[usize]) -> bool,
        witness: &mut usize,
    ) -> bool {
        let dims = levels.len();
        let first = (*witness).min(dims.saturating_sub(1));
        for d in std::iter::once(first).chain((0..dims).filter(|&d| d != first)) {
            if dims > 0 && levels[d] < max_levels[d] {
                levels[d] += 1;
                let done = finished(levels);
                levels[d] -= 1;
                if !done {
                    *witness = d;
                    return false;
                }
            }
        }
        true
    }

    /// Stores a snapshot of the classes of `levels` if the controls allow; `fill` copies the
    /// classes into the snapshot's (emptied) classes. `max_classes` replaces the history's own
    /// limit of classes (hubs may be larger). Returns the stored classes (to share them).
    pub fn store(
        &mut self,
        levels: &[usize],
        classes: usize,
        max_classes: Option<usize>,
        finished: &dyn Fn(&[usize]) -> bool,
        fill: impl FnOnce(&mut Classes),
    ) -> Option<Arc<Classes>> {
        let witness = self.admit(levels, classes, max_classes, finished)?;
        // Reuse a dropped snapshot's buffers if no other history holds them.
        let mut shared = self
            .free
            .pop()
            .map(|s| s.classes)
            .filter(|c| Arc::strong_count(c) == 1)
            .unwrap_or_default();
        let c = Arc::get_mut(&mut shared).expect("unshared classes");
        c.reps.clear();
        c.reps.reserve(classes);
        c.counts.clear();
        c.counts.reserve(classes);
        fill(c);
        // Reused classes keep the capacity of their largest use; give back what is far more
        // than these need (the history counts capacity, which is what it holds).
        if c.reps.capacity() > 2 * classes.max(1024) {
            c.reps.shrink_to_fit();
            c.counts.shrink_to_fit();
            c.verdict.shrink_to_fit();
        }
        self.push(levels, shared.clone(), witness);
        Some(shared)
    }

    /// Stores `classes` of `levels`, held by another history too, if the controls allow
    /// (no copy). Returns true if stored.
    pub fn store_shared(
        &mut self,
        levels: &[usize],
        classes: &Arc<Classes>,
        finished: &dyn Fn(&[usize]) -> bool,
    ) -> bool {
        match self.admit(levels, classes.len(), None, finished) {
            Some(witness) => {
                self.push(levels, classes.clone(), witness);
                true
            }
            None => false,
        }
    }

    /// Applies the controls to a snapshot of `classes` classes of `levels` and makes room for
    /// it; `Some(witness)` (see [`Self::prunable`]) if it may be stored.
    fn admit(
        &mut self,
        levels: &[usize],
        classes: usize,
        max_classes: Option<usize>,
        finished: &dyn Fn(&[usize]) -> bool,
    ) -> Option<usize> {
        let max_classes = max_classes.unwrap_or(self.max_classes);
        let mut up = std::mem::take(&mut self.up);
        up.clear();
        up.extend_from_slice(levels);
        let mut witness = 0;
        let refused = self.capacity == 0
            || classes > max_classes
            || self.path_order && Self::prunable(&self.max_levels, &mut up, finished, &mut witness);
        self.up = up;
        if refused {
            return None;
        }
        if let Some(i) = self.best_for(levels) {
            if classes as f64 > self.min_reduction * self.snapshots[i].len() as f64 {
                return None;
            }
        }
        if self.snapshots.len() >= self.capacity {
            // Drop the unusable snapshots (order kept), then the least recently used.
            let mut snaps = std::mem::take(&mut self.snapshots);
            let mut free = std::mem::take(&mut self.free);
            let max_levels = &self.max_levels;
            let path_order = self.path_order;
            snaps.retain_mut(|s| {
                let keep = !path_order
                    || !Self::prunable(max_levels, &mut s.levels, finished, &mut s.witness);
                if !keep && free.len() < FREE_SNAPSHOTS {
                    free.push(std::mem::replace(s, Snapshot::empty()));
                }
                keep
            });
            self.snapshots = snaps;
            self.free = free;
            if self.snapshots.len() >= self.capacity {
                self.drop_least_recently_used(self.snapshots.len());
            }
        }
        Some(witness)
    }

    /// Appends an admitted snapshot, then drops the least recently used others while the
    /// snapshots hold more than the bytes allowed.
    fn push(&mut self, levels: &[usize], classes: Arc<Classes>, witness: usize) {
        self.clock += 1;
        self.snapshots.push(Snapshot {
            levels: levels.to_vec(),
            classes,
            last_used: self.clock,
            witness,
        });
        let mut bytes = self.bytes();
        while bytes > self.max_bytes && self.snapshots.len() > 1 {
            bytes -= self.drop_least_recently_used(self.snapshots.len() - 1);
        }
    }

    /// Drops the least recently used of the first `among` snapshots (keeping its buffers for
    /// reuse if there is room); returns the bytes it held.
    fn drop_least_recently_used(&mut self, among: usize) -> usize {
        let lru = (0..among)
            .min_by_key(|&i| self.snapshots[i].last_used)
            .expect("a snapshot to drop");
        let old = self.snapshots.swap_remove(lru);
        let bytes = old.bytes();
        if self.free.len() < FREE_SNAPSHOTS {
            self.free.push(old);
        }
        bytes
    }

    /// Bytes held by the snapshots (approximate).
    pub fn bytes(&self) -> usize {
        self.snapshots.iter().map(Snapshot::bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(capacity: usize) -> History {
        History::new(capacity, 1000, 0.8, vec![3, 3], usize::MAX)
    }

    fn fill(reps: &[u32]) -> impl FnOnce(&mut Classes) + '_ {
        move |c: &mut Classes| {
            c.reps.extend_from_slice(reps);
            c.counts.extend(reps.iter().map(|_| 1));
        }
    }

    /// Classes one history shares with another are never reused for the first one's next
    /// snapshot once it drops them: the other history still reads them.
    #[test]
    fn shared_classes_outlive_the_history_that_dropped_them() {
        let unfinished = |_: &[usize]| false;
        let mut a = history(1);
        let mut b = history(4);
        let shared = a
            .store(&[0, 0], 3, None, &unfinished, fill(&[0, 1, 2]))
            .unwrap();
        assert!(b.store_shared(&[0, 0], &shared, &unfinished));
        drop(shared);
        // `a` is full: storing drops its snapshot (kept for reuse) and stores another.
        a.store(&[1, 0], 2, None, &unfinished, fill(&[7, 8]))
            .unwrap();
        assert_eq!(a.snapshots.len(), 1);
        assert_eq!(a.snapshots[0].classes.reps, vec![7, 8]);
        assert_eq!(b.snapshots[0].levels, vec![0, 0]);
        assert_eq!(b.snapshots[0].classes.reps, vec![0, 1, 2]);
        assert_eq!(b.snapshots[0].classes.counts, vec![1, 1, 1]);
    }

    /// A shared snapshot is under the receiving history's own controls: one that would not
    /// reduce the classes of a snapshot already serving its transformation is refused.
    #[test]
    fn shared_classes_obey_the_receiving_history() {
        let unfinished = |_: &[usize]| false;
        let mut a = history(4);
        let mut b = history(4);
        let small = a
            .store(&[0, 0], 2, None, &unfinished, fill(&[0, 1]))
            .unwrap();
        let large = a.store(&[0, 1], 3, None, &unfinished, fill(&[0, 1, 2]));
        assert!(large.is_none(), "three classes do not reduce two");
        assert!(b.store_shared(&[0, 0], &small, &unfinished));
        let other = history(4)
            .store(&[1, 1], 3, None, &unfinished, fill(&[4, 5, 6]))
            .unwrap();
        assert!(!b.store_shared(&[1, 1], &other, &unfinished));
        assert_eq!(b.best_for(&[1, 1]), Some(0));
    }
}
