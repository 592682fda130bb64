//! The search space of full-domain generalization, implicit: transformations are computed, never
//! stored, so a space of 10^10 transformations costs a few vectors.
//!
//! A transformation is a vector of levels, one per quasi-identifier. [`Space`] numbers them by a
//! mixed-radix index (`id = sum levels[i] * mult[i]`, `mult[0] = 1`) in a `u64`, without a size
//! cap. Direct generalizations (successors) increment one level, direct specializations
//! (predecessors) decrement one; both are arithmetic on the id. The space knows the maximum level
//! of each dimension and, for Flash's order only, how many distinct values each level keeps: plain
//! numbers the search passes in. It knows nothing of hierarchies, rows or properties (those live
//! in a [`super::PropertyStore`]).
//!
//! [`Space::order_key`] is Flash's stable total order (paper, Section V-B): level, then the
//! average relative generalization, then the average share of distinct values lost, then the id
//! (a last tie-break for determinism). It depends only on the hierarchies, not on column order.

use std::cmp::Ordering;

/// Id of a transformation: its mixed-radix index.
pub type NodeId = u64;

/// Flash's order key: compare with [`OrderKey::cmp`]; smaller is enumerated first.
#[derive(Debug, Clone, Copy)]
pub struct OrderKey {
    pub level: u32,
    /// Sum of relative levels (level / max level).
    pub generalization: f64,
    /// Sum of (1 - distinct values at the level / distinct values at level 0).
    pub distinct_loss: f64,
    pub id: NodeId,
}

impl PartialEq for OrderKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for OrderKey {}
impl PartialOrd for OrderKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrderKey {
    fn cmp(&self, other: &Self) -> Ordering {
        self.level
            .cmp(&other.level)
            .then(self.generalization.total_cmp(&other.generalization))
            .then(self.distinct_loss.total_cmp(&other.distinct_loss))
            .then(self.id.cmp(&other.id))
    }
}

/// The generalization lattice, implicit: arithmetic on ids, no per-node state.
#[derive(Debug, Clone)]
pub struct Space {
    /// Maximum level per dimension.
    max: Vec<usize>,
    /// Id multiplier per dimension.
    mult: Vec<u64>,
    size: u64,
    height: usize,
    /// `gen[i][l]` = l / max_i (0 when max_i = 0).
    gen: Vec<Vec<f64>>,
    /// `loss[i][l]` = 1 - distinct(i, l) / distinct(i, 0).
    loss: Vec<Vec<f64>>,
}

impl Space {
    /// A space with `max[i]` as the highest level of dimension `i` and `distinct[i][l]` the
    /// number of distinct values of dimension `i` at level `l` (used by the order only).
    /// Returns `None` only if the number of transformations does not fit a `u64`.
    pub fn new(max: &[usize], distinct: &[Vec<usize>]) -> Option<Space> {
        assert_eq!(max.len(), distinct.len());
        let mut mult = Vec::with_capacity(max.len());
        let mut size: u64 = 1;
        for &m in max {
            mult.push(size);
            size = size.checked_mul(m as u64 + 1)?;
        }
        let gen = max
            .iter()
            .map(|&m| {
                (0..=m)
                    .map(|l| if m == 0 { 0.0 } else { l as f64 / m as f64 })
                    .collect()
            })
            .collect();
        let loss = distinct
            .iter()
            .zip(max)
            .map(|(d, &m)| {
                assert!(d.len() > m, "distinct counts for every level");
                let base = d[0].max(1) as f64;
                (0..=m).map(|l| 1.0 - d[l] as f64 / base).collect()
            })
            .collect();
        Some(Space {
            max: max.to_vec(),
            mult,
            size,
            height: max.iter().sum(),
            gen,
            loss,
        })
    }

    /// The highest level of each dimension.
    pub fn max_levels(&self) -> &[usize] {
        &self.max
    }

    /// Number of transformations.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Number of dimensions (quasi-identifiers).
    pub fn dims(&self) -> usize {
        self.max.len()
    }

    /// Level of the top node (sum of maximum levels).
    pub fn height(&self) -> usize {
        self.height
    }

    pub fn bottom(&self) -> NodeId {
        0
    }

    pub fn top(&self) -> NodeId {
        self.size - 1
    }

    /// Id of a levels vector.
    pub fn id(&self, levels: &[usize]) -> NodeId {
        debug_assert_eq!(levels.len(), self.dims());
        levels
            .iter()
            .zip(&self.mult)
            .map(|(&l, &m)| l as u64 * m)
            .sum()
    }

    /// Level of dimension `dim` in node `id`.
    #[inline]
    pub fn level_of(&self, id: NodeId, dim: usize) -> usize {
        ((id / self.mult[dim]) as usize) % (self.max[dim] + 1)
    }

    /// Writes the levels of `id` into `out` (length `dims()`).
    pub fn levels_into(&self, id: NodeId, out: &mut [usize]) {
        for (d, o) in out.iter_mut().enumerate() {
            *o = self.level_of(id, d);
        }
    }

    /// The levels of `id`.
    pub fn levels(&self, id: NodeId) -> Vec<usize> {
        let mut v = vec![0; self.dims()];
        self.levels_into(id, &mut v);
        v
    }

    /// Lattice level (sum of the levels) of `id`.
    pub fn level(&self, id: NodeId) -> usize {
        (0..self.dims()).map(|d| self.level_of(id, d)).sum()
    }

    /// Direct generalizations of `id` (one level up in one dimension), in dimension order.
    pub fn successors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.dims())
            .filter(move |&d| self.level_of(id, d) < self.max[d])
            .map(move |d| id + self.mult[d])
    }

    /// The direct generalizations of `id` in its last raised dimension and the ones after it:
    /// from the bottom, every node is generated exactly once (by raising the dimensions in
    /// order), which is how a best-first walk enumerates the space without a visited set.
    pub fn children(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let dims = self.dims();
        let from = (0..dims)
            .rev()
            .find(|&d| self.level_of(id, d) > 0)
            .unwrap_or(0);
        (from..dims).filter_map(move |d| self.successor(id, d))
    }

    /// The direct generalization of `id` in dimension `dim`, if `dim` is below its maximum.
    #[inline]
    pub fn successor(&self, id: NodeId, dim: usize) -> Option<NodeId> {
        (self.level_of(id, dim) < self.max[dim]).then(|| id + self.mult[dim])
    }

    /// The direct specialization of `id` in dimension `dim`, if `dim` is above level 0.
    #[inline]
    pub fn predecessor(&self, id: NodeId, dim: usize) -> Option<NodeId> {
        (self.level_of(id, dim) > 0).then(|| id - self.mult[dim])
    }

    /// Direct specializations of `id`, in dimension order.
    pub fn predecessors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        (0..self.dims())
            .filter(move |&d| self.level_of(id, d) > 0)
            .map(move |d| id - self.mult[d])
    }

    /// True if `a` generalizes `b` (every level of `a` >= that of `b`); true for `a == b`.
    pub fn generalizes(&self, a: NodeId, b: NodeId) -> bool {
        (0..self.dims()).all(|d| self.level_of(a, d) >= self.level_of(b, d))
    }

    /// Flash's order key of `id`.
    #[inline]
    pub fn order_key(&self, id: NodeId) -> OrderKey {
        let mut level = 0;
        let mut g = 0.0;
        let mut l = 0.0;
        for d in 0..self.dims() {
            let x = self.level_of(id, d);
            level += x as u32;
            g += self.gen[d][x];
            l += self.loss[d][x];
        }
        OrderKey {
            level,
            generalization: g,
            distinct_loss: l,
            id,
        }
    }

    /// Sorts ids by Flash's order.
    pub fn sort(&self, ids: &mut [NodeId]) {
        ids.sort_by_cached_key(|&id| self.order_key(id));
    }

    /// All nodes on lattice level `level`, in id order.
    pub fn nodes_on_level(&self, level: usize) -> Vec<NodeId> {
        self.nodes_between(self.bottom(), self.top(), level)
    }

    /// Nodes of the sub-lattice between `low` and `high` (generalizations of `low` that are
    /// specializations of `high`) on lattice level `level`, in id order. Allocates the whole
    /// level: strategies that may meet large levels walk them with [`Space::level_nodes`].
    pub fn nodes_between(&self, low: NodeId, high: NodeId, level: usize) -> Vec<NodeId> {
        self.level_nodes(low, high, level).collect()
    }

    /// The nodes of [`Space::nodes_between`], produced one at a time in id order: memory
    /// `O(dims)` however large the level (the middle level of 30 two-level quasi-identifiers
    /// has 155 million nodes).
    pub fn level_nodes(&self, low: NodeId, high: NodeId, level: usize) -> LevelNodes {
        let lo = self.levels(low);
        let cap: Vec<usize> = self
            .levels(high)
            .iter()
            .zip(&lo)
            .map(|(&h, &l)| h.saturating_sub(l))
            .collect();
        let base: usize = lo.iter().sum();
        let room: usize = cap.iter().sum();
        let mut nodes = LevelNodes {
            mult: self.mult.clone(),
            cap,
            raise: Vec::new(),
            id: low,
            done: level < base || level > base + room,
        };
        if !nodes.done {
            // The first node in id order: the raise on the least significant dimensions.
            let mut rest = level - base;
            nodes.raise = vec![0; self.dims()];
            for d in 0..self.dims() {
                let x = rest.min(nodes.cap[d]);
                nodes.raise[d] = x;
                nodes.id += x as u64 * nodes.mult[d];
                rest -= x;
            }
        }
        nodes
    }

    /// All node ids ordered by lattice level (counting sort), ids ascending within a level.
    /// Enumerates the whole space: only for spaces that fit in memory.
    pub fn ids_by_level(&self) -> Vec<NodeId> {
        let levels: Vec<u32> = (0..self.size).map(|id| self.level(id) as u32).collect();
        let mut start = vec![0usize; self.height + 2];
        for &l in &levels {
            start[l as usize + 1] += 1;
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut out = vec![0; self.size as usize];
        for (id, &l) in levels.iter().enumerate() {
            out[start[l as usize]] = id as NodeId;
            start[l as usize] += 1;
        }
        out
    }
}

/// The nodes of one level of a sub-lattice in id order, one at a time ([`Space::level_nodes`]).
///
/// A node is its raise above the sub-lattice's bottom (at most `cap[d]` in dimension `d`, a
/// fixed sum). Ids grow with the raise read from the last dimension (the most significant) to
/// the first, so the next node raises the first dimension `d` that can take one more level while
/// dimensions below it hold some, and puts the rest of theirs back on the lowest dimensions.
#[derive(Debug, Clone)]
pub struct LevelNodes {
    mult: Vec<u64>,
    cap: Vec<usize>,
    raise: Vec<usize>,
    /// The id of the current raise (above the sub-lattice's bottom).
    id: NodeId,
    done: bool,
}

impl Iterator for LevelNodes {
    type Item = NodeId;

    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        if self.done {
            return None;
        }
        let current = self.id;
        // Advance to the next raise of the same sum.
        let mut below = 0;
        let mut next = None;
        for d in 0..self.raise.len() {
            if below > 0 && self.raise[d] < self.cap[d] {
                next = Some(d);
                break;
            }
            below += self.raise[d];
        }
        match next {
            None => self.done = true,
            Some(d) => {
                self.raise[d] += 1;
                self.id += self.mult[d];
                let mut rest = below - 1;
                for e in 0..d {
                    let x = rest.min(self.cap[e]);
                    self.id =
                        self.id - self.raise[e] as u64 * self.mult[e] + x as u64 * self.mult[e];
                    self.raise[e] = x;
                    rest -= x;
                }
            }
        }
        Some(current)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example lattice of the Flash paper: heights 3, 2, 6.
    fn example() -> Space {
        Space::new(
            &[2, 1, 5],
            &[vec![4, 2, 1], vec![2, 1], vec![4, 4, 2, 1, 1, 1]],
        )
        .unwrap()
    }

    #[test]
    fn ids_round_trip_and_neighbours() {
        let l = example();
        assert_eq!(l.size(), 36);
        assert_eq!(l.height(), 8);
        for id in 0..36 {
            let v = l.levels(id);
            assert_eq!(l.id(&v), id);
            for s in l.successors(id) {
                assert_eq!(l.level(s), l.level(id) + 1);
                assert!(l.generalizes(s, id));
                assert!(l.predecessors(s).any(|p| p == id));
            }
        }
        assert_eq!(l.levels(l.top()), vec![2, 1, 5]);
        assert_eq!(l.successors(l.top()).count(), 0);
        assert_eq!(l.predecessors(0).count(), 0);
        let total: usize = (0..=8).map(|lv| l.nodes_on_level(lv).len()).sum();
        assert_eq!(total, 36);
        assert_eq!(l.nodes_on_level(1).len(), 3);
        let (a, b) = (l.id(&[1, 0, 1]), l.id(&[2, 1, 3]));
        let mid = l.nodes_between(a, b, 4);
        assert!(!mid.is_empty());
        for id in 0..36 {
            let inside = l.generalizes(id, a) && l.generalizes(b, id) && l.level(id) == 4;
            assert_eq!(mid.contains(&id), inside);
        }
        let by = l.ids_by_level();
        assert!(by.windows(2).all(|w| l.level(w[0]) <= l.level(w[1])));
    }

    /// Every level of every sub-lattice of the example, walked one node at a time, is the
    /// brute-force list of its nodes in id order.
    #[test]
    fn level_nodes_walk_every_sub_lattice_level_in_id_order() {
        let l = example();
        for low in 0..l.size() {
            for high in (0..l.size()).filter(|&h| l.generalizes(h, low)) {
                for level in 0..=l.height() + 1 {
                    let want: Vec<NodeId> = (0..l.size())
                        .filter(|&x| l.generalizes(x, low) && l.generalizes(high, x))
                        .filter(|&x| l.level(x) == level)
                        .collect();
                    let got: Vec<NodeId> = l.level_nodes(low, high, level).collect();
                    assert_eq!(got, want, "{low} {high} {level}");
                }
            }
        }
    }

    #[test]
    fn order_prefers_less_generalization() {
        let l = example();
        // Same level 1: (0,0,1) has relative generalization 1/5 < (1,0,0) 1/2 < (0,1,0) 1.
        let mut v = l.nodes_on_level(1);
        l.sort(&mut v);
        let got: Vec<Vec<usize>> = v.iter().map(|&id| l.levels(id)).collect();
        assert_eq!(got, vec![vec![0, 0, 1], vec![1, 0, 0], vec![0, 1, 0]]);
    }
}
