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
//!   finished (the search will never check them) are dropped first, then the least recently used.

use super::groupify::Csr;

#[derive(Debug, Clone)]
pub struct Snapshot {
    pub levels: Vec<usize>,
    pub reps: Vec<u32>,
    pub counts: Vec<u32>,
    pub dist: Vec<Csr>,
    last_used: u64,
}

impl Snapshot {
    pub fn len(&self) -> usize {
        self.counts.len()
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
}

/// True if `a` is a specialization of (or equal to) `b`.
fn specializes(a: &[usize], b: &[usize]) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

impl History {
    pub fn new(
        capacity: usize,
        max_classes: usize,
        min_reduction: f64,
        max_levels: Vec<usize>,
    ) -> History {
        History {
            snapshots: Vec::new(),
            capacity,
            max_classes,
            min_reduction,
            max_levels,
            clock: 0,
        }
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

    /// Marks snapshot `i` as used now (LRU).
    pub fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.snapshots[i].last_used = self.clock;
    }

    /// True if every direct generalization of `levels` is finished.
    fn prunable(&self, levels: &[usize], finished: &dyn Fn(&[usize]) -> bool) -> bool {
        let mut up = levels.to_vec();
        for d in 0..levels.len() {
            if levels[d] < self.max_levels[d] {
                up[d] += 1;
                let done = finished(&up);
                up[d] -= 1;
                if !done {
                    return false;
                }
            }
        }
        true
    }

    /// Stores a snapshot of the classes of `levels` if the controls allow; `fill` copies the
    /// classes into the snapshot. Returns true if stored.
    pub fn store(
        &mut self,
        levels: &[usize],
        classes: usize,
        finished: &dyn Fn(&[usize]) -> bool,
        fill: impl FnOnce(&mut Snapshot),
    ) -> bool {
        if self.capacity == 0 || classes > self.max_classes || self.prunable(levels, finished) {
            return false;
        }
        if let Some(i) = self.best_for(levels) {
            if classes as f64 > self.min_reduction * self.snapshots[i].len() as f64 {
                return false;
            }
        }
        if self.snapshots.len() >= self.capacity {
            let snaps = std::mem::take(&mut self.snapshots);
            self.snapshots = snaps
                .into_iter()
                .filter(|s| !self.prunable(&s.levels, finished))
                .collect();
            if self.snapshots.len() >= self.capacity {
                let lru = self
                    .snapshots
                    .iter()
                    .enumerate()
                    .min_by_key(|(_, s)| s.last_used)
                    .map(|(i, _)| i)
                    .unwrap();
                self.snapshots.swap_remove(lru);
            }
        }
        self.clock += 1;
        let mut s = Snapshot {
            levels: levels.to_vec(),
            reps: Vec::with_capacity(classes),
            counts: Vec::with_capacity(classes),
            dist: Vec::new(),
            last_used: self.clock,
        };
        fill(&mut s);
        self.snapshots.push(s);
        true
    }

    /// Bytes held by the snapshots (approximate).
    pub fn bytes(&self) -> usize {
        self.snapshots
            .iter()
            .map(|s| {
                8 * s.len()
                    + s.dist
                        .iter()
                        .map(|c| 4 * (c.offsets.len() + 2 * c.codes.len()))
                        .sum::<usize>()
            })
            .sum()
    }
}
