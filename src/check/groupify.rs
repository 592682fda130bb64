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

/// Calls its second argument with the (code, count) pairs of one source item.
pub type Emit<'a> = &'a mut dyn FnMut(u32, u32);

/// Builds `out` (the distributions of `classes` new classes) from source items: item `i` went
/// into class `targets[i]` and carries the (code, count) pairs `source(i)` yields.
/// `scratch` must be all zeros with one entry per sensitive code; it is left all zeros.
pub fn merge_distributions(
    out: &mut Csr,
    classes: usize,
    targets: &[u32],
    scratch: &mut [u32],
    source: &mut dyn FnMut(usize, Emit<'_>),
) {
    // Counting sort of the items by class.
    let mut start = vec![0u32; classes + 1];
    for &t in targets {
        start[t as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut order = vec![0u32; targets.len()];
    let mut fill = start.clone();
    for (i, &t) in targets.iter().enumerate() {
        order[fill[t as usize] as usize] = i as u32;
        fill[t as usize] += 1;
    }
    out.clear();
    out.offsets.push(0);
    let mut touched: Vec<u32> = Vec::new();
    for c in 0..classes {
        touched.clear();
        for &i in &order[start[c] as usize..start[c + 1] as usize] {
            source(i as usize, &mut |code, cnt| {
                let s = &mut scratch[code as usize];
                if *s == 0 {
                    touched.push(code);
                }
                *s += cnt;
            });
        }
        touched.sort_unstable();
        for &code in &touched {
            out.codes.push(code);
            out.counts.push(scratch[code as usize]);
            scratch[code as usize] = 0;
        }
        out.offsets.push(out.codes.len() as u32);
    }
}
