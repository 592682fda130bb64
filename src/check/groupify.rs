//! The groupify operator: an open-addressing hash table of equivalence classes.
//!
//! Keys are packed generalized rows (`[u64; W]`, see `encode`). Entries are kept in insertion
//! order in flat arrays (key, count, representative row); each slot of the table holds a key and
//! its entry index + 1 (0 = empty), so a probe costs one cache miss; linear probing, load factor
//! at most 1/2, Fibonacci hashing on the top bits.
//! Per-class distributions of sensitive attributes, when a privacy model needs them, are kept
//! as one [`Csr`] per sensitive column, built after grouping by [`merge_distributions`].

/// Sparse per-class distributions of one sensitive column: class `e` has the codes
/// `codes[offsets[e]..offsets[e + 1]]` (ascending) with `counts[...]` records each.
#[derive(Debug, Clone, Default)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub codes: Vec<u32>,
    pub counts: Vec<u32>,
}

impl Csr {
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.codes.clear();
        self.counts.clear();
    }

    /// The (codes, counts) of class `e`.
    #[inline]
    pub fn class(&self, e: usize) -> (&[u32], &[u32]) {
        let (a, b) = (self.offsets[e] as usize, self.offsets[e + 1] as usize);
        (&self.codes[a..b], &self.counts[a..b])
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot<const W: usize> {
    key: [u64; W],
    /// Entry index + 1; 0 = empty.
    entry: u32,
}

const EMPTY: u32 = 0;

#[inline(always)]
fn hash<const W: usize>(k: &[u64; W]) -> u64 {
    let mut h = 0u64;
    for &w in k {
        h = (h.rotate_left(29) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    h
}

/// The classes of one transformation.
#[derive(Debug, Clone)]
pub struct Groups<const W: usize> {
    /// The transformation these classes belong to (`None`: not valid).
    pub levels: Option<Vec<usize>>,
    pub keys: Vec<[u64; W]>,
    pub counts: Vec<u32>,
    pub reps: Vec<u32>,
    /// One per distribution slot.
    pub dist: Vec<Csr>,
    slots: Vec<Slot<W>>,
    /// log2 of the capacity in use.
    bits: u32,
}

impl<const W: usize> Groups<W> {
    pub fn new(slots: usize) -> Groups<W> {
        Groups {
            levels: None,
            keys: Vec::new(),
            counts: Vec::new(),
            reps: Vec::new(),
            dist: vec![Csr::default(); slots],
            slots: Vec::new(),
            bits: 0,
        }
    }

    /// Number of classes.
    #[inline]
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Empties the table, sized for about `expected` classes.
    pub fn reset(&mut self, expected: usize) {
        self.levels = None;
        self.keys.clear();
        self.counts.clear();
        self.reps.clear();
        for d in &mut self.dist {
            d.clear();
        }
        let bits = (expected.max(8) * 2).next_power_of_two().trailing_zeros();
        self.bits = bits;
        let cap = 1usize << bits;
        self.clear_slots(cap);
    }

    fn clear_slots(&mut self, cap: usize) {
        let empty = Slot {
            key: [0; W],
            entry: EMPTY,
        };
        if self.slots.len() < cap {
            self.slots.resize(cap, empty);
        }
        self.slots[..cap].iter_mut().for_each(|s| s.entry = EMPTY);
    }

    #[cold]
    fn grow(&mut self) {
        self.bits += 1;
        let cap = 1usize << self.bits;
        self.clear_slots(cap);
        let mask = cap - 1;
        let shift = 64 - self.bits;
        for (e, k) in self.keys.iter().enumerate() {
            let mut i = (hash(k) >> shift) as usize;
            while self.slots[i].entry != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = Slot {
                key: *k,
                entry: e as u32 + 1,
            };
        }
    }

    /// Adds `count` records with `key` (representative `rep` if the class is new);
    /// returns the class index.
    #[inline(always)]
    pub fn insert(&mut self, key: [u64; W], count: u32, rep: u32) -> u32 {
        if (self.counts.len() + 1) * 2 > (1usize << self.bits) {
            self.grow();
        }
        let mask = (1usize << self.bits) - 1;
        let mut i = (hash(&key) >> (64 - self.bits)) as usize;
        loop {
            let s = &mut self.slots[i];
            if s.entry == EMPTY {
                let e = self.counts.len() as u32;
                *s = Slot { key, entry: e + 1 };
                self.keys.push(key);
                self.counts.push(count);
                self.reps.push(rep);
                return e;
            }
            if s.key == key {
                let e = s.entry - 1;
                self.counts[e as usize] += count;
                return e;
            }
            i = (i + 1) & mask;
        }
    }
}

/// Reusable buffers of [`merge_distributions`] (kept by the checker, so a check allocates
/// nothing). `dense` is all zeros between calls.
#[derive(Debug, Clone, Default)]
pub struct MergeScratch {
    dense: Vec<u32>,
    masks: Vec<u64>,
    start: Vec<u32>,
    order: Vec<u32>,
    touched: Vec<u32>,
}

/// Builds `out`, the distributions of `classes` new classes, from source items: item `i` went
/// into class `targets[i]` and carries the distribution `src.class(i)`. `m` is the size of the
/// sensitive domain (codes are `< m`).
///
/// Domains of up to 64 values: one sequential pass over the items adds their counts into a dense
/// class x code matrix and marks the codes of each class in a 64-bit mask; a second pass emits
/// each class's codes by iterating its mask (in order, no sort) and zeroes what it read.
/// Larger domains: the items are counting-sorted by class; a class made of one item copies that
/// item's distribution, others accumulate in a dense array of `m` entries whose touched codes
/// are sorted.
pub fn merge_distributions(
    out: &mut Csr,
    classes: usize,
    targets: &[u32],
    src: &Csr,
    m: usize,
    w: &mut MergeScratch,
) {
    out.clear();
    out.offsets.reserve(classes + 1);
    out.offsets.push(0);
    if m <= 64 {
        let need = classes * m;
        if w.dense.len() < need {
            w.dense.resize(need, 0);
        }
        w.masks.clear();
        w.masks.resize(classes, 0);
        let dense = &mut w.dense[..need];
        for (i, &t) in targets.iter().enumerate() {
            let t = t as usize;
            let (a, b) = (src.offsets[i] as usize, src.offsets[i + 1] as usize);
            let mut mask = 0u64;
            for (&code, &k) in src.codes[a..b].iter().zip(&src.counts[a..b]) {
                dense[t * m + code as usize] += k;
                mask |= 1 << code;
            }
            w.masks[t] |= mask;
        }
        out.codes.reserve(targets.len());
        out.counts.reserve(targets.len());
        for (t, &mask) in w.masks.iter().enumerate() {
            let row = &mut dense[t * m..t * m + m];
            let mut mask = mask;
            while mask != 0 {
                let code = mask.trailing_zeros() as usize;
                mask &= mask - 1;
                out.codes.push(code as u32);
                out.counts.push(row[code]);
                row[code] = 0;
            }
            out.offsets.push(out.codes.len() as u32);
        }
        return;
    }
    // Counting sort of the items by class.
    w.start.clear();
    w.start.resize(classes + 1, 0);
    for &t in targets {
        w.start[t as usize + 1] += 1;
    }
    for i in 1..w.start.len() {
        w.start[i] += w.start[i - 1];
    }
    w.order.clear();
    w.order.resize(targets.len(), 0);
    let mut fill = std::mem::take(&mut w.touched);
    fill.clear();
    fill.extend_from_slice(&w.start[..classes]);
    for (i, &t) in targets.iter().enumerate() {
        let f = &mut fill[t as usize];
        w.order[*f as usize] = i as u32;
        *f += 1;
    }
    let mut touched = fill;
    if w.dense.len() < m {
        w.dense.resize(m, 0);
    }
    let dense = &mut w.dense[..m];
    let item = |i: u32| {
        let (a, b) = (
            src.offsets[i as usize] as usize,
            src.offsets[i as usize + 1] as usize,
        );
        (&src.codes[a..b], &src.counts[a..b])
    };
    for c in 0..classes {
        let items = &w.order[w.start[c] as usize..w.start[c + 1] as usize];
        if let [only] = items {
            let (codes, counts) = item(*only);
            out.codes.extend_from_slice(codes);
            out.counts.extend_from_slice(counts);
        } else {
            touched.clear();
            for &i in items {
                let (codes, counts) = item(i);
                for (&code, &k) in codes.iter().zip(counts) {
                    let s = &mut dense[code as usize];
                    if *s == 0 {
                        touched.push(code);
                    }
                    *s += k;
                }
            }
            touched.sort_unstable();
            for &code in &touched {
                out.codes.push(code);
                out.counts.push(dense[code as usize]);
                dense[code as usize] = 0;
            }
        }
        out.offsets.push(out.codes.len() as u32);
    }
    w.touched = touched;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Both merge paths (dense mask for domains <= 64, counting sort above) agree with a
        /// naive per-class count, and the scratch buffers are left reusable.
        #[test]
        fn merge_matches_naive_counts(
            items in prop::collection::vec(
                (0u32..6, prop::collection::btree_map(0u32..100, 1u32..5, 1..4)), 1..40),
            small in any::<bool>(),
        ) {
            let m = if small { 64 } else { 100 };
            let items: Vec<(u32, Vec<(u32, u32)>)> = items
                .into_iter()
                .map(|(t, d)| (t, d.into_iter().map(|(c, k)| (c % m as u32, k)).collect()))
                .collect();
            let classes = items.iter().map(|i| i.0 as usize + 1).max().unwrap();
            let mut src = Csr { offsets: vec![0], ..Csr::default() };
            for (_, d) in &items {
                let mut d: Vec<(u32, u32)> = d.clone();
                d.sort();
                d.dedup_by(|b, a| if a.0 == b.0 { a.1 += b.1; true } else { false });
                for (c, k) in d {
                    src.codes.push(c);
                    src.counts.push(k);
                }
                src.offsets.push(src.codes.len() as u32);
            }
            let targets: Vec<u32> = items.iter().map(|i| i.0).collect();
            let mut w = MergeScratch::default();
            for _ in 0..2 {
                let mut out = Csr::default();
                merge_distributions(&mut out, classes, &targets, &src, m, &mut w);
                for c in 0..classes {
                    let mut naive = std::collections::BTreeMap::new();
                    for (i, &t) in targets.iter().enumerate() {
                        if t as usize == c {
                            let (codes, counts) = src.class(i);
                            for (&code, &k) in codes.iter().zip(counts) {
                                *naive.entry(code).or_insert(0u32) += k;
                            }
                        }
                    }
                    let (codes, counts) = out.class(c);
                    let got: Vec<(u32, u32)> = codes.iter().copied().zip(counts.iter().copied()).collect();
                    prop_assert_eq!(got, naive.into_iter().collect::<Vec<_>>());
                }
            }
            prop_assert!(w.dense.iter().all(|&x| x == 0));
        }
    }
}
