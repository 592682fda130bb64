//! The groupify operator: an open-addressing hash table of equivalence classes.
//!
//! Keys are packed generalized rows (`[u64; W]`, see `encode`). Entries are kept in insertion
//! order in flat arrays (key, count, representative row); each slot of the table holds only its
//! entry index + 1 (0 = empty), 4 bytes, and a probe compares the entry's key in the key array:
//! one cache miss more per probe than a slot holding its key, for a quarter of the memory (a
//! table of millions of classes: 8 to 16 bytes a class instead of 32 to 64, and a check keeps
//! two tables); linear probing, load factor at most 1/2, Fibonacci hashing on the top bits.
//! Per-class distributions of sensitive attributes, when a privacy model needs them, are kept
//! as one [`Csr`] per sensitive column, built after grouping by [`merge_slots`].

use crate::sync::lock;

/// Sparse per-class distributions of one sensitive column: class `e` has the codes
/// `codes[offsets[e]..offsets[e + 1]]` (ascending) with `counts[...]` records each.
#[derive(Debug, Default)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub codes: Vec<u32>,
    pub counts: Vec<u32>,
}

impl Clone for Csr {
    fn clone(&self) -> Csr {
        Csr {
            offsets: self.offsets.clone(),
            codes: self.codes.clone(),
            counts: self.counts.clone(),
        }
    }

    /// Field by field, so a history snapshot reuses its buffers.
    fn clone_from(&mut self, src: &Csr) {
        self.offsets.clone_from(&src.offsets);
        self.codes.clone_from(&src.codes);
        self.counts.clone_from(&src.counts);
    }
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

/// A class whose verdict is not known yet.
pub const VERDICT_UNKNOWN: u8 = 0;
/// A class that satisfies every criterion.
pub const VERDICT_OK: u8 = 1;
/// An outlier class.
pub const VERDICT_OUTLIER: u8 = 2;

const EMPTY: u32 = 0;

#[inline(always)]
pub(super) fn hash<const W: usize>(k: &[u64; W]) -> u64 {
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
    /// Per class, the criteria's cached verdict ([`VERDICT_UNKNOWN`], [`VERDICT_OK`],
    /// [`VERDICT_OUTLIER`]); empty when no criterion needs more than class sizes.
    pub verdict: Vec<u8>,
    /// Entry index + 1; 0 = empty.
    slots: Vec<u32>,
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
            verdict: Vec::new(),
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
        self.verdict.clear();
        for d in &mut self.dist {
            d.clear();
        }
        let bits = (expected.max(8) * 2).next_power_of_two().trailing_zeros();
        self.bits = bits;
        let cap = 1usize << bits;
        self.clear_slots(cap);
    }

    fn clear_slots(&mut self, cap: usize) {
        if self.slots.len() < cap {
            self.slots.resize(cap, EMPTY);
        }
        self.slots[..cap].fill(EMPTY);
    }

    #[cold]
    fn grow(&mut self) {
        // A table built by `concat` has no slots yet: as many doublings as its classes need.
        self.bits = self.bits.max(3) + 1;
        while self.counts.len() * 2 + 2 > 1usize << self.bits {
            self.bits += 1;
        }
        let cap = 1usize << self.bits;
        self.clear_slots(cap);
        let mask = cap - 1;
        let shift = 64 - self.bits;
        for (e, k) in self.keys.iter().enumerate() {
            let mut i = (hash(k) >> shift) as usize;
            while self.slots[i] != EMPTY {
                i = (i + 1) & mask;
            }
            self.slots[i] = e as u32 + 1;
        }
    }

    /// The class with `key` (`Ok`), or the empty slot where it would go (`Err`).
    #[inline(always)]
    fn probe(&self, key: &[u64; W]) -> Result<u32, usize> {
        let mask = (1usize << self.bits) - 1;
        let mut i = (hash(key) >> (64 - self.bits)) as usize;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return Err(i);
            }
            if self.keys[(s - 1) as usize] == *key {
                return Ok(s - 1);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `count` records with `key` (representative `rep` if the class is new);
    /// returns the class index.
    #[inline(always)]
    pub fn insert(&mut self, key: [u64; W], count: u32, rep: u32) -> u32 {
        if (self.counts.len() + 1) * 2 > (1usize << self.bits) {
            self.grow();
        }
        match self.probe(&key) {
            Ok(e) => {
                self.counts[e as usize] += count;
                e
            }
            Err(i) => {
                let e = self.counts.len() as u32;
                self.slots[i] = e + 1;
                self.keys.push(key);
                self.counts.push(count);
                self.reps.push(rep);
                e
            }
        }
    }

    /// Makes this table the classes of `parts`, one after the other (each in its order; keys,
    /// counts, representatives, distributions and cached verdicts), copying part `q` on `run`'s
    /// part `q` (see [`super::team`]). The slot table is rebuilt at the next insert.
    pub fn concat(
        &mut self,
        parts: &[std::sync::Mutex<Groups<W>>],
        run: impl Fn(&(dyn Fn(usize) + Sync)),
    ) {
        let guards: Vec<_> = parts.iter().map(lock).collect();
        let lens: Vec<usize> = guards.iter().map(|p| p.len()).collect();
        let total: usize = lens.iter().sum();
        let slots = self.dist.len();
        // Per slot, where each part's codes start.
        let code_at: Vec<Vec<usize>> = (0..slots)
            .map(|d| {
                let mut at = vec![0];
                for p in &guards {
                    at.push(at[at.len() - 1] + p.dist[d].codes.len());
                }
                at
            })
            .collect();
        let verdicts = guards.iter().any(|p| !p.verdict.is_empty());
        drop(guards);
        self.levels = None;
        self.bits = 0;
        self.keys.resize(total, [0; W]);
        self.counts.resize(total, 0);
        self.reps.resize(total, 0);
        self.verdict.clear();
        if verdicts {
            self.verdict.resize(total, VERDICT_UNKNOWN);
        }
        for (d, at) in self.dist.iter_mut().zip(&code_at) {
            d.offsets.resize(total + 1, 0);
            d.codes.resize(at[parts.len()], 0);
            d.counts.resize(at[parts.len()], 0);
        }
        let mut outs: Vec<std::sync::Mutex<Part<'_, W>>> = Vec::with_capacity(parts.len());
        let mut keys = &mut self.keys[..];
        let mut counts = &mut self.counts[..];
        let mut reps = &mut self.reps[..];
        let mut verdict = &mut self.verdict[..];
        // Offsets: entry 0 stays 0, part q writes its classes' ends.
        let mut dists: Vec<(&mut [u32], &mut [u32], &mut [u32])> = self
            .dist
            .iter_mut()
            .map(|d| (&mut d.offsets[1..], &mut d.codes[..], &mut d.counts[..]))
            .collect();
        for (q, &n) in lens.iter().enumerate() {
            let (k, kr) = std::mem::take(&mut keys).split_at_mut(n);
            let (c, cr) = std::mem::take(&mut counts).split_at_mut(n);
            let (r, rr) = std::mem::take(&mut reps).split_at_mut(n);
            let (v, vr) = std::mem::take(&mut verdict).split_at_mut(if verdicts { n } else { 0 });
            (keys, counts, reps, verdict) = (kr, cr, rr, vr);
            let mut dist = Vec::with_capacity(slots);
            for (d, (offsets, codes, cnts)) in dists.iter_mut().enumerate() {
                let len = code_at[d][q + 1] - code_at[d][q];
                let (o, or) = std::mem::take(offsets).split_at_mut(n);
                let (cd, cdr) = std::mem::take(codes).split_at_mut(len);
                let (ct, ctr) = std::mem::take(cnts).split_at_mut(len);
                (*offsets, *codes, *cnts) = (or, cdr, ctr);
                dist.push((o, cd, ct, code_at[d][q] as u32));
            }
            outs.push(std::sync::Mutex::new(Part {
                keys: k,
                counts: c,
                reps: r,
                verdict: v,
                dist,
            }));
        }
        run(&|q| {
            let src = lock(&parts[q]);
            let mut out = lock(&outs[q]);
            let out = &mut *out;
            out.keys.copy_from_slice(&src.keys);
            out.counts.copy_from_slice(&src.counts);
            out.reps.copy_from_slice(&src.reps);
            if !out.verdict.is_empty() {
                out.verdict.copy_from_slice(&src.verdict);
            }
            for ((o, cd, ct, base), d) in out.dist.iter_mut().zip(&src.dist) {
                for (o, &end) in o.iter_mut().zip(&d.offsets[1..]) {
                    *o = *base + end;
                }
                cd.copy_from_slice(&d.codes);
                ct.copy_from_slice(&d.counts);
            }
        });
    }

    /// Re-groups these classes in place (a roll-up without distributions): class `e`'s key
    /// becomes `moved(key, reps[e])`, and classes with equal new keys merge (counts added, the
    /// first one's representative kept), in order of first appearance: the same classes, in
    /// the same order, as inserting them one by one into an empty table. A class's new index
    /// is never above its old one, so the entries move down their own arrays and only the slot
    /// table is rebuilt: a roll-up of millions of classes needs no second table. Verdicts and
    /// distributions are not merged (they must be empty).
    ///
    /// Returns false, leaving the table half-rewritten (no classes), as soon as there are more
    /// than `limit` classes.
    pub fn regroup(&mut self, limit: usize, mut moved: impl FnMut(&mut [u64; W], u32)) -> bool {
        debug_assert!(self.verdict.is_empty() && self.dist.iter().all(|d| d.offsets.is_empty()));
        let n = self.len();
        let levels = self.levels.take();
        self.bits = (n.max(8) * 2).next_power_of_two().trailing_zeros();
        self.clear_slots(1 << self.bits);
        let mut out = 0usize;
        for e in 0..n {
            let mut key = self.keys[e];
            let rep = self.reps[e];
            let count = self.counts[e];
            moved(&mut key, rep);
            // Entries below `out` are the new classes; `e >= out` has been read.
            match self.probe(&key) {
                Ok(t) => self.counts[t as usize] += count,
                Err(i) => {
                    self.slots[i] = out as u32 + 1;
                    self.keys[out] = key;
                    self.counts[out] = count;
                    self.reps[out] = rep;
                    out += 1;
                    if out > limit {
                        self.keys.truncate(out);
                        self.counts.truncate(out);
                        self.reps.truncate(out);
                        return false;
                    }
                }
            }
        }
        self.keys.truncate(out);
        self.counts.truncate(out);
        self.reps.truncate(out);
        self.levels = levels;
        true
    }
}

/// The share of a table that one part of [`Groups::concat`] writes: its classes' keys, counts,
/// representatives and verdicts, and per distribution slot its classes' offset ends, codes and
/// counts, with the first code's place.
struct Part<'a, const W: usize> {
    keys: &'a mut [[u64; W]],
    counts: &'a mut [u32],
    reps: &'a mut [u32],
    verdict: &'a mut [u8],
    dist: Vec<SlotPart<'a>>,
}

/// One distribution slot's share in a [`Part`]: offset ends, codes, counts, first code's place.
type SlotPart<'a> = (&'a mut [u32], &'a mut [u32], &'a mut [u32], u32);

/// Reusable buffers of [`merge_csr`] (kept by the checker, so a check allocates nothing).
/// `dense` and `scratch` are all zeros between calls.
#[derive(Debug, Clone, Default)]
pub struct MergeBuffers {
    start: Vec<u32>,
    fill: Vec<u32>,
    members: Vec<u32>,
    single: Vec<u32>,
    pairs: Vec<u64>,
    touched: Vec<u32>,
    dense: Vec<u32>,
    masks: Vec<u64>,
    scratch: Vec<u32>,
}

/// Merges every distribution slot of the source items into the classes of `dst` (item `i` goes
/// to class `targets[i]`), as [`merge_csr`] does for one slot; with `cache`, slot 0 also carries
/// the items' cached verdicts. Used by every checker path that builds classes from items.
pub fn merge_slots<const W: usize>(
    dst: &mut Groups<W>,
    src_dist: &[Csr],
    src_verdict: &[u8],
    targets: &[u32],
    domains: &[usize],
    buf: &mut MergeBuffers,
    cache: bool,
) {
    merge_slots_of(
        dst,
        src_dist,
        src_verdict,
        targets.iter().copied().enumerate(),
        domains,
        buf,
        cache,
    );
}

/// [`merge_slots`] of the source classes `pairs` yields, each with its new class: `(source,
/// new class)`, in any order (a split check merges one partition's sources, see
/// `partitioned`).
pub fn merge_slots_of<const W: usize>(
    dst: &mut Groups<W>,
    src_dist: &[Csr],
    src_verdict: &[u8],
    pairs: impl Iterator<Item = (usize, u32)> + Clone,
    domains: &[usize],
    buf: &mut MergeBuffers,
    cache: bool,
) {
    let classes = dst.counts.len();
    for (slot, (out, src)) in dst.dist.iter_mut().zip(src_dist).enumerate() {
        let verdicts = if cache && slot == 0 {
            Some((src_verdict, &mut dst.verdict))
        } else {
            None
        };
        merge_pairs(
            out,
            classes,
            pairs.clone(),
            src,
            domains[slot],
            buf,
            verdicts,
        );
    }
}

/// Builds `out`, the distributions of `classes` new classes, from the classes of `src`: source
/// class `i` went into new class `targets[i]`; codes are `< m`.
///
/// Domains of up to 64 values: one sequential pass over the sources adds their counts into a
/// dense class x code matrix and marks the codes of each class in a 64-bit mask; a second pass
/// emits each class's codes by iterating its mask (in order, no sort) and zeroes what it read.
/// Larger domains: the sources are read in order and their `(code, count)` pairs scattered into
/// one region per new class; a region from a single source is already sorted, others are added
/// up in a dense array of `m` entries and emitted in ascending code order.
///
/// With `verdicts = Some((source verdicts, new verdicts))`, a new class made of one source class
/// (same records, same distributions) inherits its verdict; the others get
/// [`VERDICT_UNKNOWN`].
pub fn merge_csr(
    out: &mut Csr,
    classes: usize,
    targets: &[u32],
    src: &Csr,
    m: usize,
    buf: &mut MergeBuffers,
    verdicts: Option<(&[u8], &mut Vec<u8>)>,
) {
    merge_pairs(
        out,
        classes,
        targets.iter().copied().enumerate(),
        src,
        m,
        buf,
        verdicts,
    );
}

/// [`merge_csr`] of the `(source, new class)` pairs.
fn merge_pairs(
    out: &mut Csr,
    classes: usize,
    pairs: impl Iterator<Item = (usize, u32)> + Clone,
    src: &Csr,
    m: usize,
    buf: &mut MergeBuffers,
    verdicts: Option<(&[u8], &mut Vec<u8>)>,
) {
    if m <= 64 {
        merge_dense(out, classes, pairs, src, m, buf);
    } else {
        merge_sparse(out, classes, pairs, src, m, buf);
    }
    if let Some((from, to)) = verdicts {
        to.clear();
        to.extend((0..classes).map(|c| {
            if buf.members[c] == 1 {
                from[buf.single[c] as usize]
            } else {
                VERDICT_UNKNOWN
            }
        }));
    }
}

/// Members per new class and, for each, its last source (the only one if it has one).
fn count_members(
    classes: usize,
    pairs: impl Iterator<Item = (usize, u32)>,
    buf: &mut MergeBuffers,
) {
    buf.members.clear();
    buf.members.resize(classes, 0);
    buf.single.clear();
    buf.single.resize(classes, 0);
    for (i, t) in pairs {
        buf.members[t as usize] += 1;
        buf.single[t as usize] = i as u32;
    }
}

fn merge_dense(
    out: &mut Csr,
    classes: usize,
    pairs: impl Iterator<Item = (usize, u32)> + Clone,
    src: &Csr,
    m: usize,
    buf: &mut MergeBuffers,
) {
    count_members(classes, pairs.clone(), buf);
    out.clear();
    out.offsets.reserve(classes + 1);
    out.offsets.push(0);
    let need = classes * m;
    if buf.dense.len() < need {
        buf.dense.resize(need, 0);
    }
    buf.masks.clear();
    buf.masks.resize(classes, 0);
    let dense = &mut buf.dense[..need];
    let mut total = 0;
    for (i, t) in pairs {
        let t = t as usize;
        let (codes, counts) = src.class(i);
        let mut mask = 0u64;
        for (&code, &k) in codes.iter().zip(counts) {
            dense[t * m + code as usize] += k;
            mask |= 1 << code;
        }
        total += codes.len();
        buf.masks[t] |= mask;
    }
    out.codes.reserve(total);
    out.counts.reserve(total);
    for (t, &mask) in buf.masks.iter().enumerate() {
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
}

fn merge_sparse(
    out: &mut Csr,
    classes: usize,
    pairs: impl Iterator<Item = (usize, u32)> + Clone,
    src: &Csr,
    m: usize,
    buf: &mut MergeBuffers,
) {
    count_members(classes, pairs.clone(), buf);
    if buf.scratch.len() < m {
        buf.scratch.resize(m, 0);
    }
    let scratch = &mut buf.scratch[..m];
    buf.start.clear();
    buf.start.resize(classes + 1, 0);
    for (i, t) in pairs.clone() {
        buf.start[t as usize + 1] += src.offsets[i + 1] - src.offsets[i];
    }
    for c in 1..buf.start.len() {
        buf.start[c] += buf.start[c - 1];
    }
    buf.fill.clear();
    buf.fill.extend_from_slice(&buf.start[..classes]);
    buf.pairs.clear();
    buf.pairs.resize(buf.start[classes] as usize, 0);
    for (i, t) in pairs {
        let (codes, counts) = src.class(i);
        let f = &mut buf.fill[t as usize];
        for (&code, &n) in codes.iter().zip(counts) {
            buf.pairs[*f as usize] = (code as u64) << 32 | n as u64;
            *f += 1;
        }
    }
    out.clear();
    out.offsets.reserve(classes + 1);
    out.codes.reserve(buf.pairs.len());
    out.counts.reserve(buf.pairs.len());
    out.offsets.push(0);
    for c in 0..classes {
        let region = &buf.pairs[buf.start[c] as usize..buf.start[c + 1] as usize];
        if buf.members[c] == 1 {
            for &p in region {
                out.codes.push((p >> 32) as u32);
                out.counts.push(p as u32);
            }
        } else {
            buf.touched.clear();
            for &p in region {
                let code = (p >> 32) as u32;
                let s = &mut scratch[code as usize];
                if *s == 0 {
                    buf.touched.push(code);
                }
                *s += p as u32;
            }
            buf.touched.sort_unstable();
            for &code in &buf.touched {
                out.codes.push(code);
                out.counts.push(scratch[code as usize]);
                scratch[code as usize] = 0;
            }
        }
        out.offsets.push(out.codes.len() as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::Groups;

    /// `regroup` gives the classes, counts, representatives and order of inserting the moved
    /// keys into an empty table, on random tables with many merges and none.
    #[test]
    fn regroup_in_place_equals_inserting_anew() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..200 {
            let items = (next() % 3000) as usize;
            let range = 1 + next() % 5000;
            let divisor = 1 + next() % (if round % 4 == 0 { 1 } else { 700 });
            let mut g = Groups::<2>::new(0);
            g.reset(next() as usize % 64);
            for i in 0..items {
                let k = next() % range;
                g.insert([k, k ^ 7], 1 + (next() % 3) as u32, i as u32);
            }
            let moved = |key: &mut [u64; 2], rep: u32| {
                key[0] /= divisor;
                key[1] = u64::from(rep.is_multiple_of(2) && divisor == 1);
            };
            let mut want = Groups::<2>::new(0);
            want.reset(0);
            for e in 0..g.len() {
                let mut key = g.keys[e];
                moved(&mut key, g.reps[e]);
                want.insert(key, g.counts[e], g.reps[e]);
            }
            assert!(g.regroup(usize::MAX, moved));
            assert_eq!(g.keys, want.keys, "round {round}");
            assert_eq!(g.counts, want.counts, "round {round}");
            assert_eq!(g.reps, want.reps, "round {round}");
            // The rebuilt slot table finds every class, and a new key still goes in.
            for (e, key) in want.keys.iter().enumerate() {
                assert_eq!(g.insert(*key, 1, 0), e as u32);
            }
            assert_eq!(g.insert([u64::MAX, 0], 1, 0) as usize, want.len());
        }
    }
}
