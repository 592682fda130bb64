//! The antichain property store: for each closed property only its extreme elements.
//!
//! An up-closed set (anonymous, pruned) is determined by its minimal elements, a down-closed set
//! (not anonymous) by its maximal ones: `x` is anonymous iff some minimal anonymous `m <= x`
//! (levels compared one by one). Tagging `x` inserts it, unless an element already covers it,
//! and removes the elements it covers, so each set stays an antichain (no two elements
//! comparable) and stays small: it grows with the frontier of what the search learnt, not with
//! the space. Down-closed sets are stored mirrored (`max - x`), which turns "some maximal
//! `M >= x`" into "some `m <= x'`", so one structure, [`MinimalSet`], serves both.
//!
//! [`MinimalSet`] is a prefix tree over the levels (Prasser et al. 2016): depth `d` branches on
//! the level of dimension `d`, a leaf at depth `dims` is an element, siblings are sorted by level.
//! Every node keeps the smallest and largest sum of the remaining levels of the elements below it,
//! so a query skips a subtree when no element below can be `<= x` (its smallest remaining sum
//! exceeds `x`'s) or, when removing covered elements, `>= x`. Nodes live in one arena
//! (first-child / next-sibling links, 16 bytes each) with a free list; nothing is allocated per
//! query.

use super::{prop, NodeId, PropertyStore, Space, StoreSizes, MAX_LEVEL};

/// Most dimensions the antichain store handles (levels are decoded into a stack buffer).
pub const MAX_DIMS: usize = 64;

const NONE: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct TrieNode {
    /// Level of this node's dimension (unused at the root).
    level: u8,
    first: u32,
    next: u32,
    /// Smallest / largest sum of the levels below this node (dimensions depth..dims).
    min_rest: u16,
    max_rest: u16,
}

/// The minimal elements of an up-closed set of level vectors (see the module docs).
#[derive(Debug, Clone)]
pub struct MinimalSet {
    dims: usize,
    nodes: Vec<TrieNode>,
    free: Vec<u32>,
    len: u64,
}

impl MinimalSet {
    pub fn new(dims: usize) -> MinimalSet {
        let root = TrieNode {
            level: 0,
            first: NONE,
            next: NONE,
            min_rest: u16::MAX,
            max_rest: 0,
        };
        MinimalSet {
            dims,
            nodes: vec![root],
            free: Vec::new(),
            len: 0,
        }
    }

    /// Number of minimal elements.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True if some element is `<= x` (so `x` is in the up-closed set).
    pub fn covers(&self, x: &[u8]) -> bool {
        debug_assert_eq!(x.len(), self.dims);
        if self.len == 0 {
            return false;
        }
        let rest = suffix_sums(x);
        self.covers_from(0, 0, x, &rest)
    }

    fn covers_from(&self, node: u32, depth: usize, x: &[u8], rest: &[u16; MAX_DIMS + 1]) -> bool {
        if depth == self.dims {
            return true;
        }
        let mut c = self.nodes[node as usize].first;
        while c != NONE {
            let n = self.nodes[c as usize];
            if n.level > x[depth] {
                break; // sorted: every later sibling is larger too
            }
            if n.min_rest <= rest[depth + 1] && self.covers_from(c, depth + 1, x, rest) {
                return true;
            }
            c = n.next;
        }
        false
    }

    /// Adds `x` unless it is already covered; removes the elements `x` covers. Returns true if
    /// `x` was added.
    pub fn insert(&mut self, x: &[u8]) -> bool {
        debug_assert_eq!(x.len(), self.dims);
        if self.covers(x) {
            return false;
        }
        let rest = suffix_sums(x);
        if self.len > 0 {
            self.remove_covered(0, 0, x, &rest);
        }
        // Insert the path of `x`, creating nodes where missing.
        let mut node = 0u32;
        for (d, &level) in x.iter().enumerate() {
            let n = &mut self.nodes[node as usize];
            n.min_rest = n.min_rest.min(rest[d]);
            n.max_rest = n.max_rest.max(rest[d]);
            node = self.child(node, level, rest[d + 1]);
        }
        self.len += 1;
        true
    }

    /// The child of `node` with `level`, created (in sorted position) if missing; its rest
    /// bounds are widened to include `rest`.
    fn child(&mut self, node: u32, level: u8, rest: u16) -> u32 {
        let mut prev = NONE;
        let mut c = self.nodes[node as usize].first;
        while c != NONE && self.nodes[c as usize].level < level {
            prev = c;
            c = self.nodes[c as usize].next;
        }
        if c != NONE && self.nodes[c as usize].level == level {
            let n = &mut self.nodes[c as usize];
            n.min_rest = n.min_rest.min(rest);
            n.max_rest = n.max_rest.max(rest);
            return c;
        }
        let fresh = TrieNode {
            level,
            first: NONE,
            next: c,
            min_rest: rest,
            max_rest: rest,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = fresh;
                id
            }
            None => {
                self.nodes.push(fresh);
                (self.nodes.len() - 1) as u32
            }
        };
        if prev == NONE {
            self.nodes[node as usize].first = id;
        } else {
            self.nodes[prev as usize].next = id;
        }
        id
    }

    /// Removes every element `>= x` below `node` (at `depth`). Returns true if `node` has no
    /// element left; otherwise its rest bounds are recomputed.
    fn remove_covered(
        &mut self,
        node: u32,
        depth: usize,
        x: &[u8],
        rest: &[u16; MAX_DIMS + 1],
    ) -> bool {
        if depth == self.dims {
            self.len -= 1;
            return true;
        }
        let mut prev = NONE;
        let mut c = self.nodes[node as usize].first;
        while c != NONE {
            let n = self.nodes[c as usize];
            let next = n.next;
            let mut gone = false;
            if n.level >= x[depth] && n.max_rest >= rest[depth + 1] {
                gone = self.remove_covered(c, depth + 1, x, rest);
            }
            if gone {
                if prev == NONE {
                    self.nodes[node as usize].first = next;
                } else {
                    self.nodes[prev as usize].next = next;
                }
                self.free.push(c);
            } else {
                prev = c;
            }
            c = next;
        }
        let first = self.nodes[node as usize].first;
        if first == NONE {
            let n = &mut self.nodes[node as usize];
            n.min_rest = u16::MAX;
            n.max_rest = 0;
            return true;
        }
        // Recompute this node's bounds from its children.
        let (mut lo, mut hi) = (u16::MAX, 0u16);
        let mut c = first;
        while c != NONE {
            let n = self.nodes[c as usize];
            lo = lo.min(n.level as u16 + n.min_rest);
            hi = hi.max(n.level as u16 + n.max_rest);
            c = n.next;
        }
        let n = &mut self.nodes[node as usize];
        n.min_rest = lo;
        n.max_rest = hi;
        false
    }

    /// Every element, in lexicographic order (for tests and diagnostics).
    pub fn elements(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        let mut path = Vec::new();
        self.collect(0, &mut path, &mut out);
        out
    }

    fn collect(&self, node: u32, path: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if path.len() == self.dims {
            out.push(path.clone());
            return;
        }
        let mut c = self.nodes[node as usize].first;
        while c != NONE {
            path.push(self.nodes[c as usize].level);
            self.collect(c, path, out);
            path.pop();
            c = self.nodes[c as usize].next;
        }
    }

    /// Bytes held by the arena.
    pub fn bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<TrieNode>() + self.free.capacity() * 4
    }
}

/// `rest[d]` = sum of `x[d..]`.
fn suffix_sums(x: &[u8]) -> [u16; MAX_DIMS + 1] {
    let mut rest = [0u16; MAX_DIMS + 1];
    for d in (0..x.len()).rev() {
        rest[d] = rest[d + 1] + x[d] as u16;
    }
    rest
}

/// Predictive properties as antichains (see the module docs).
#[derive(Debug, Clone)]
pub struct Antichain {
    space: Space,
    anonymous: MinimalSet,
    pruned: MinimalSet,
    /// Mirrored: holds `max - x` for the maximal not-anonymous elements.
    not_anonymous: MinimalSet,
}

impl Antichain {
    fn decode(&self, id: NodeId, buf: &mut [u8; MAX_DIMS]) {
        for (d, b) in buf.iter_mut().take(self.space.dims()).enumerate() {
            *b = self.space.level_of(id, d) as u8;
        }
    }

    fn mirror(&self, buf: &mut [u8; MAX_DIMS]) {
        for (b, &m) in buf.iter_mut().zip(self.space.max_levels()) {
            *b = m as u8 - *b;
        }
    }

    /// True if the store can hold a space of these highest levels (see
    /// [`PropertyStore::for_space`]).
    pub fn fits(max_levels: &[usize]) -> bool {
        max_levels.len() <= MAX_DIMS
            && max_levels.iter().all(|&m| m <= MAX_LEVEL)
            && max_levels.iter().sum::<usize>() <= 65535
    }

    /// Bytes held by the three prefix trees.
    pub fn bytes(&self) -> usize {
        self.anonymous.bytes() + self.pruned.bytes() + self.not_anonymous.bytes()
    }
}

impl PropertyStore for Antichain {
    /// `None` if the space has more than [`MAX_DIMS`] dimensions, a dimension above level
    /// [`MAX_LEVEL`] (255), or
    /// a height above 65,535 (the trees store levels in bytes and sums in 16 bits).
    fn for_space(space: &Space) -> Option<Antichain> {
        let dims = space.dims();
        if !Antichain::fits(space.max_levels()) {
            return None;
        }
        Some(Antichain {
            space: space.clone(),
            anonymous: MinimalSet::new(dims),
            pruned: MinimalSet::new(dims),
            not_anonymous: MinimalSet::new(dims),
        })
    }

    fn has(&self, id: NodeId, bits: u8) -> bool {
        let dims = self.space.dims();
        let mut buf = [0u8; MAX_DIMS];
        self.decode(id, &mut buf);
        if bits & prop::ANONYMOUS != 0 && self.anonymous.covers(&buf[..dims]) {
            return true;
        }
        if bits & prop::PRUNED != 0 && self.pruned.covers(&buf[..dims]) {
            return true;
        }
        if bits & prop::NOT_ANONYMOUS != 0 {
            self.mirror(&mut buf);
            return self.not_anonymous.covers(&buf[..dims]);
        }
        false
    }

    fn tag_up(&mut self, id: NodeId, bits: u8) {
        debug_assert_eq!(bits & !prop::UP, 0, "tag_up sets up-closed properties only");
        let dims = self.space.dims();
        let mut buf = [0u8; MAX_DIMS];
        self.decode(id, &mut buf);
        if bits & prop::ANONYMOUS != 0 {
            self.anonymous.insert(&buf[..dims]);
        }
        if bits & prop::PRUNED != 0 {
            self.pruned.insert(&buf[..dims]);
        }
    }

    fn tag_down(&mut self, id: NodeId, bits: u8) {
        debug_assert_eq!(
            bits & !prop::DOWN,
            0,
            "tag_down sets down-closed properties only"
        );
        if bits & prop::NOT_ANONYMOUS != 0 {
            let dims = self.space.dims();
            let mut buf = [0u8; MAX_DIMS];
            self.decode(id, &mut buf);
            self.mirror(&mut buf);
            self.not_anonymous.insert(&buf[..dims]);
        }
    }

    fn sizes(&self) -> StoreSizes {
        StoreSizes {
            anonymous: self.anonymous.len(),
            not_anonymous: self.not_anonymous.len(),
            pruned: self.pruned.len(),
        }
    }

    fn name(&self) -> &'static str {
        "antichain"
    }
}
