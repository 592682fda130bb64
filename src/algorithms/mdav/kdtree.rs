//! A k-d tree over weighted points that shrinks as MDAV takes records away: the farthest point
//! from a query and the nearest points to it, among the points that still hold records.
//!
//! Built once by median splits on the widest side (leaves of [`LEAF`] points). Each node keeps
//! the records still under it and the bounding box of the points that still hold some: taking
//! the last record of a point recomputes its leaf's box and its ancestors' (stopping where a box
//! does not change), so the boxes stay tight while MDAV eats the table from the outside in, and
//! both queries prune by them (the farthest by the largest distance to a box, the nearest by
//! the smallest). A query costs about a root-to-leaf path plus the leaves near the answer,
//! instead of the scan of every remaining record that makes plain MDAV quadratic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Points per leaf.
const LEAF: usize = 8;
const NONE: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Node {
    /// The node's points: `order[start..end]`.
    start: u32,
    end: u32,
    left: u32,
    right: u32,
    parent: u32,
    /// Records still under the node.
    weight: u64,
}

/// The tree; points are indexes into the coordinates given to [`KdTree::new`].
pub struct KdTree<'a> {
    dims: usize,
    coords: &'a [f64],
    weight: Vec<u64>,
    order: Vec<u32>,
    nodes: Vec<Node>,
    leaf_of: Vec<u32>,
    /// Per node, the box of its live points: `lo[node * dims + j]`, `hi[..]`.
    lo: Vec<f64>,
    hi: Vec<f64>,
    /// A box being recomputed (`2 * dims`).
    scratch: Vec<f64>,
}

/// A candidate of the nearest search, ordered by distance then point (a max-heap keeps the
/// worst on top).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Near(f64, u32);
impl Eq for Near {}
impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Near {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

impl<'a> KdTree<'a> {
    /// A tree over `coords` (row-major, `dims` per point) with `weight[p]` records per point.
    pub fn new(coords: &'a [f64], dims: usize, weight: Vec<u64>) -> KdTree<'a> {
        let n = weight.len();
        assert_eq!(coords.len(), n * dims, "dims coordinates per point");
        let mut tree = KdTree {
            dims,
            coords,
            order: (0..n as u32).filter(|&p| weight[p as usize] > 0).collect(),
            weight,
            nodes: Vec::new(),
            leaf_of: vec![NONE; n],
            lo: Vec::new(),
            hi: Vec::new(),
            scratch: vec![0.0; 2 * dims],
        };
        let len = tree.order.len() as u32;
        if len > 0 {
            tree.build(0, len, NONE);
        }
        tree
    }

    fn at(&self, p: u32, j: usize) -> f64 {
        self.coords[p as usize * self.dims + j]
    }

    /// The point's coordinates.
    pub fn point(&self, p: u32) -> &[f64] {
        &self.coords[p as usize * self.dims..(p as usize + 1) * self.dims]
    }

    /// Records point `p` still holds.
    pub fn weight(&self, p: u32) -> u64 {
        self.weight[p as usize]
    }

    /// Records still in the tree.
    pub fn total(&self) -> u64 {
        self.nodes.first().map_or(0, |n| n.weight)
    }

    fn build(&mut self, start: u32, end: u32, parent: u32) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            start,
            end,
            left: NONE,
            right: NONE,
            parent,
            weight: 0,
        });
        self.lo
            .extend(std::iter::repeat_n(f64::INFINITY, self.dims));
        self.hi
            .extend(std::iter::repeat_n(f64::NEG_INFINITY, self.dims));
        self.fit_box(id);
        if (end - start) as usize <= LEAF {
            let mut w = 0;
            for i in start..end {
                let p = self.order[i as usize];
                self.leaf_of[p as usize] = id;
                w += self.weight[p as usize];
            }
            self.nodes[id as usize].weight = w;
            return id;
        }
        let d = self.dims;
        let base = id as usize * d;
        let axis = (0..d)
            .max_by(|&a, &b| {
                (self.hi[base + a] - self.lo[base + a])
                    .total_cmp(&(self.hi[base + b] - self.lo[base + b]))
            })
            .unwrap_or(0);
        let mid = (start + end) / 2;
        let coords = self.coords;
        self.order[start as usize..end as usize].select_nth_unstable_by(
            (mid - start) as usize,
            |&a, &b| {
                coords[a as usize * d + axis]
                    .total_cmp(&coords[b as usize * d + axis])
                    .then(a.cmp(&b))
            },
        );
        let left = self.build(start, mid, id);
        let right = self.build(mid, end, id);
        let weight = self.nodes[left as usize].weight + self.nodes[right as usize].weight;
        let node = &mut self.nodes[id as usize];
        node.left = left;
        node.right = right;
        node.weight = weight;
        id
    }

    /// Recomputes a node's box from its live points (a leaf) or children; whether it changed.
    fn fit_box(&mut self, id: u32) -> bool {
        let d = self.dims;
        let base = id as usize * d;
        let mut scratch = std::mem::take(&mut self.scratch);
        let (lo, hi) = scratch.split_at_mut(d);
        lo.fill(f64::INFINITY);
        hi.fill(f64::NEG_INFINITY);
        let node = &self.nodes[id as usize];
        if node.left == NONE {
            for i in node.start..node.end {
                let p = self.order[i as usize];
                if self.weight[p as usize] > 0 {
                    for j in 0..d {
                        let x = self.at(p, j);
                        lo[j] = lo[j].min(x);
                        hi[j] = hi[j].max(x);
                    }
                }
            }
        } else {
            for c in [node.left, node.right] {
                if self.nodes[c as usize].weight > 0 {
                    let cb = c as usize * d;
                    for j in 0..d {
                        lo[j] = lo[j].min(self.lo[cb + j]);
                        hi[j] = hi[j].max(self.hi[cb + j]);
                    }
                }
            }
        }
        let changed = *lo != self.lo[base..base + d] || *hi != self.hi[base..base + d];
        self.lo[base..base + d].copy_from_slice(lo);
        self.hi[base..base + d].copy_from_slice(hi);
        self.scratch = scratch;
        changed
    }

    /// Takes `n` records of point `p` (at most those it holds).
    pub fn take(&mut self, p: u32, n: u64) {
        debug_assert!(n <= self.weight[p as usize]);
        self.weight[p as usize] -= n;
        let leaf = self.leaf_of[p as usize];
        let mut id = leaf;
        while id != NONE {
            self.nodes[id as usize].weight -= n;
            id = self.nodes[id as usize].parent;
        }
        if self.weight[p as usize] == 0 {
            let mut id = leaf;
            while id != NONE && self.fit_box(id) {
                id = self.nodes[id as usize].parent;
            }
        }
    }

    /// Squared distances from `q` to the nearest and farthest corners of a node's box.
    fn box_dist(&self, id: u32, q: &[f64]) -> (f64, f64) {
        let base = id as usize * self.dims;
        let (mut near, mut far) = (0.0, 0.0);
        for (j, &x) in q.iter().enumerate() {
            let (lo, hi) = (self.lo[base + j], self.hi[base + j]);
            let below = lo - x;
            let above = x - hi;
            let gap = below.max(above).max(0.0);
            near += gap * gap;
            let f = (x - lo).abs().max((hi - x).abs());
            far += f * f;
        }
        (near, far)
    }

    fn dist(&self, p: u32, q: &[f64]) -> f64 {
        self.point(p)
            .iter()
            .zip(q)
            .map(|(a, b)| (a - b) * (a - b))
            .sum()
    }

    /// The live point farthest from `q` (ties: the smaller point). Depth first, the child whose
    /// box reaches farther first; a box is skipped when its farthest corner is nearer than the
    /// best point (not when as near: it may hold a tie with a smaller index).
    pub fn farthest(&self, q: &[f64]) -> Option<u32> {
        if self.total() == 0 {
            return None;
        }
        let mut best: Option<(f64, u32)> = None;
        let mut stack = vec![(self.box_dist(0, q).1, 0u32)];
        while let Some((bound, id)) = stack.pop() {
            if best.is_some_and(|(bd, _)| bound < bd) {
                continue;
            }
            let node = &self.nodes[id as usize];
            if node.left == NONE {
                for i in node.start..node.end {
                    let p = self.order[i as usize];
                    if self.weight[p as usize] > 0 {
                        let d = self.dist(p, q);
                        if best.is_none_or(|(bd, bp)| d > bd || (d == bd && p < bp)) {
                            best = Some((d, p));
                        }
                    }
                }
            } else {
                let (l, r) = (node.left, node.right);
                let (fl, fr) = (self.box_dist(l, q).1, self.box_dist(r, q).1);
                let live = |c: u32| self.nodes[c as usize].weight > 0;
                // Pushed last, searched first.
                let order = if fl >= fr {
                    [(fr, r), (fl, l)]
                } else {
                    [(fl, l), (fr, r)]
                };
                for (bound, c) in order {
                    if live(c) {
                        stack.push((bound, c));
                    }
                }
            }
        }
        best.map(|(_, p)| p)
    }

    /// The `m` live points nearest to `q`, nearest first (ties: the smaller point first).
    pub fn nearest(&self, q: &[f64], m: usize) -> Vec<u32> {
        let mut heap: BinaryHeap<Near> = BinaryHeap::with_capacity(m + 1);
        if m == 0 || self.total() == 0 {
            return Vec::new();
        }
        let mut stack = vec![0u32];
        while let Some(id) = stack.pop() {
            let node = &self.nodes[id as usize];
            if node.weight == 0 {
                continue;
            }
            if heap.len() == m
                && self.box_dist(id, q).0 > heap.peek().map_or(f64::INFINITY, |w| w.0)
            {
                continue;
            }
            if node.left == NONE {
                for i in node.start..node.end {
                    let p = self.order[i as usize];
                    if self.weight[p as usize] > 0 {
                        let c = Near(self.dist(p, q), p);
                        if heap.len() < m {
                            heap.push(c);
                        } else if heap.peek().is_some_and(|w| c < *w) {
                            heap.pop();
                            heap.push(c);
                        }
                    }
                }
            } else {
                let (l, r) = (node.left, node.right);
                let (nl, nr) = (self.box_dist(l, q).0, self.box_dist(r, q).0);
                if nl <= nr {
                    stack.push(r);
                    stack.push(l);
                } else {
                    stack.push(l);
                    stack.push(r);
                }
            }
        }
        heap.into_sorted_vec().into_iter().map(|n| n.1).collect()
    }

    /// Every live point, in index order.
    pub fn live(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.weight.len() as u32).filter(|&p| self.weight[p as usize] > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The tree's answers equal a scan's while points are taken away one by one.
    #[test]
    fn queries_agree_with_a_scan_while_shrinking() {
        let mut seed = 7;
        let (n, d) = (300, 3);
        let coords: Vec<f64> = (0..n * d)
            .map(|_| (lcg(&mut seed) * 10.0).round())
            .collect();
        let weight: Vec<u64> = (0..n).map(|i| 1 + (i % 3) as u64).collect();
        let mut w = weight.clone();
        let mut tree = KdTree::new(&coords, d, weight);
        let dist = |p: usize, q: &[f64]| -> f64 {
            (0..d).map(|j| (coords[p * d + j] - q[j]).powi(2)).sum()
        };
        for step in 0..n * 2 {
            let q: Vec<f64> = (0..d).map(|_| lcg(&mut seed) * 12.0 - 1.0).collect();
            let live: Vec<usize> = (0..n).filter(|&p| w[p] > 0).collect();
            if live.is_empty() {
                assert_eq!(tree.farthest(&q), None);
                break;
            }
            let far = live
                .iter()
                .copied()
                .max_by(|&a, &b| dist(a, &q).total_cmp(&dist(b, &q)).then(b.cmp(&a)))
                .unwrap();
            assert_eq!(tree.farthest(&q), Some(far as u32), "step {step}");
            let mut near = live.clone();
            near.sort_by(|&a, &b| dist(a, &q).total_cmp(&dist(b, &q)).then(a.cmp(&b)));
            near.truncate(5);
            let got: Vec<usize> = tree.nearest(&q, 5).iter().map(|&p| p as usize).collect();
            assert_eq!(got, near, "step {step}");
            let p = live[(lcg(&mut seed) * live.len() as f64) as usize];
            tree.take(p as u32, 1);
            w[p] -= 1;
            assert_eq!(tree.total(), w.iter().sum::<u64>());
        }
    }
}
