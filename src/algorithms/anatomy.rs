//! Anatomy (Xiao and Tao, VLDB 2006) as the UT Dallas toolbox meant it to work.
//!
//! Anatomy does not generalize: it partitions the records into groups of at least `l` distinct
//! sensitive values and publishes the quasi-identifiers (QIT) and the sensitive values (ST)
//! separately, joined only by the group id. The toolbox's version (`../shared/UTD-TOOLBOX.md`
//! §7.4) never succeeds because of two SQL defects (§8); this one follows its algorithm and
//! works:
//!
//! 1. `l` is rounded as the toolbox does ([`integer_l`]: `Math.round`, at least 2). A run's `l`
//!    is already a whole number: the config refuses a fractional one (Anatomy enforces distinct
//!    l-diversity, and rounding took 2.4 for 2).
//! 2. The records are bucketed by sensitive value. Buckets are ordered by count descending; ties
//!    keep ascending sensitive value (the toolbox's `ORDER BY COUNT(*)` over a `GROUP BY`, then a
//!    stable descending sort). Eligibility: at least `l` buckets, else
//!    `Anatomy l-diversity cannot be satisfied on this dataset!!!`; no bucket holding more than
//!    n/l records, else `This dataset is not eligible for Anatomy!!!`.
//! 3. Group creation: while the `l` largest buckets are non-empty, group g (1, 2, ...) takes one
//!    record from each of them, in bucket order: the record at offset `rand.nextInt(count)` among
//!    the bucket's remaining records in record order, `rand` being `java.util.Random(seed)`
//!    ([`JavaRandom`], seed 3345 by default as in the toolbox). Then the buckets are re-sorted
//!    (stably) by their new counts.
//! 4. Residue: every remaining record (record order; with an eligible table there are fewer
//!    than `l`, with distinct values) joins a random group lacking its sensitive value: the
//!    candidates in ascending group id, one picked with `rand.nextInt(candidates)`.
//!
//! Every group of step 3 holds `l` distinct values and step 4 only adds values a group lacks, so
//! every group holds at least `l` distinct sensitive values.
//!
//! Storage: the algorithm only counts and picks; where records live is a [`Source`]. The
//! in-memory [`MemorySource`] keeps each bucket's record numbers and an order-statistic tree of
//! the remaining ones (`O(log n)` per pick); the store's source does the same picks through SQL.
//! Re-sorting uses buckets grouped by count ([`BucketOrder`]), `O(l log m)` per group, so a
//! numeric sensitive attribute with many values costs no more than a categorical one.

use std::collections::{BTreeMap, VecDeque};

use super::tuples::Backend;
use super::{Details, StepObserver};
use crate::data::load::Encoding;
use crate::data::SensitiveAttribute;
use crate::store::{AnatomyRecords, Store};
use crate::{Error, Result};

/// What Anatomy is asked for: the run builds it from its plan.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    /// The l of distinct l-diversity, rounded as the toolbox does ([`integer_l`]).
    pub l: f64,
    /// The seed of the random picks ([`JavaRandom`]).
    pub seed: u64,
    /// The sensitive attributes: Anatomy needs exactly one.
    pub sensitive: &'a [SensitiveAttribute],
}

/// Records up to which Anatomy keeps its buckets in memory (about 16 bytes per record); beyond,
/// the picks go through SQL and only an order-statistic tree (4 bytes per record) stays in
/// memory.
pub const MEMORY_RECORDS: u64 = 4_000_000;

/// The toolbox's default seed of Anatomy's `java.util.Random`.
pub const TOOLBOX_SEED: u64 = 3345;

/// `java.util.Random`, bit for bit: a 48-bit linear congruential generator.
#[derive(Debug, Clone)]
pub struct JavaRandom {
    seed: u64,
}

impl JavaRandom {
    const MULTIPLIER: u64 = 0x5_DEEC_E66D;
    const ADDEND: u64 = 0xB;
    const MASK: u64 = (1 << 48) - 1;

    /// `new Random(seed)`; the seed is Java's `long` (a `u64` is taken as its two's complement).
    pub fn new(seed: u64) -> JavaRandom {
        JavaRandom {
            seed: (seed ^ Self::MULTIPLIER) & Self::MASK,
        }
    }

    /// `next(bits)`: the top `bits` bits of the next state, as Java's `int`.
    fn next(&mut self, bits: u32) -> i32 {
        self.seed = (self
            .seed
            .wrapping_mul(Self::MULTIPLIER)
            .wrapping_add(Self::ADDEND))
            & Self::MASK;
        (self.seed >> (48 - bits)) as i64 as i32
    }

    /// `nextInt()`.
    pub fn next_int(&mut self) -> i32 {
        self.next(32)
    }

    /// `nextInt(bound)`: uniform in `0..bound`. `bound` must be positive (Java throws
    /// `IllegalArgumentException: bound must be positive`).
    pub fn next_int_bounded(&mut self, bound: i32) -> i32 {
        assert!(bound > 0, "bound must be positive");
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((bound as i64 * r as i64) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            // Java: `u - r + m < 0` in int arithmetic, i.e. the sum overflows.
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextInt(bound)` for a count; an error if the count does not fit Java's `int`.
    fn pick(&mut self, count: u64) -> Result<u64> {
        let bound = i32::try_from(count)
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "Anatomy: cannot draw among {count} records (java.util.Random takes 1 to \
                     2147483647)"
                ))
            })?;
        Ok(self.next_int_bounded(bound) as u64)
    }
}

/// The toolbox's integer l: `Math.round(l)` (halves round up), and 2 if that is 1 or less.
pub fn integer_l(l: f64) -> usize {
    let r = (l + 0.5).floor();
    if r <= 1.0 {
        2
    } else {
        r as usize
    }
}

/// Where Anatomy's records live. Buckets are numbered by the caller (`0..m`); records are
/// numbered from 1 in input order; groups from 1.
pub trait Source {
    /// Puts the record at `offset` (0-based, in record order) among the not yet grouped records
    /// of `bucket` into `group`.
    fn take(&mut self, bucket: usize, offset: u64, group: u32) -> Result<()>;
    /// The records not yet grouped, in record order, with their buckets.
    fn remaining(&mut self) -> Result<Vec<(u64, usize)>>;
    /// The groups (ascending) that hold a record of `bucket`.
    fn groups_with(&mut self, bucket: usize) -> Result<Vec<u32>>;
    /// Puts record `record` into `group`.
    fn assign(&mut self, record: u64, group: u32) -> Result<()>;
}

/// What a run of Anatomy did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grouping {
    /// The l used (after [`integer_l`]).
    pub l: usize,
    /// Groups created (their ids are `1..=groups`).
    pub groups: u32,
    /// Records placed by the residue step.
    pub residue: u64,
}

/// Buckets ordered by count descending, stable: a list of buckets per count.
///
/// After each group the `l` buckets it took from lose one record. A stable re-sort of the whole
/// list puts a decremented bucket, now at count c-1, before every bucket that already had c-1
/// (those were all behind the first `l` places), and keeps the decremented ones in their
/// order: exactly "prepend to the list of count c-1, in order".
#[derive(Debug, Default)]
struct BucketOrder {
    by_count: BTreeMap<u64, VecDeque<usize>>,
    len: usize,
}

impl BucketOrder {
    /// From `(bucket, count)` pairs already in the initial order; empty buckets are left out.
    fn new(initial: &[(usize, u64)]) -> BucketOrder {
        let mut o = BucketOrder::default();
        for &(b, c) in initial {
            if c > 0 {
                o.by_count.entry(c).or_default().push_back(b);
                o.len += 1;
            }
        }
        o
    }

    /// Removes the first `l` buckets (largest first) with their counts; `None` if there are
    /// fewer than `l` non-empty buckets.
    fn take_front(&mut self, l: usize, out: &mut Vec<(usize, u64)>) -> bool {
        out.clear();
        if self.len < l {
            return false;
        }
        while out.len() < l {
            let mut entry = self.by_count.last_entry().expect("len counts the buckets");
            let count = *entry.key();
            let list = entry.get_mut();
            while out.len() < l {
                match list.pop_front() {
                    Some(b) => out.push((b, count)),
                    None => break,
                }
            }
            if list.is_empty() {
                entry.remove();
            }
        }
        self.len -= l;
        true
    }

    /// Puts back buckets taken by [`take_front`](Self::take_front), each one record smaller.
    fn put_back_decremented(&mut self, taken: &[(usize, u64)]) {
        for &(b, c) in taken.iter().rev() {
            if c > 1 {
                self.by_count.entry(c - 1).or_default().push_front(b);
                self.len += 1;
            }
        }
    }
}

/// Runs Anatomy. `counts[b]` is the number of records in bucket `b`; buckets are numbered in
/// ascending sensitive value (the tie order). `say` receives the toolbox's console lines.
pub fn anatomize(
    counts: &[u64],
    l_param: f64,
    seed: u64,
    source: &mut impl Source,
    say: &mut dyn FnMut(&str),
) -> Result<Grouping> {
    let l = integer_l(l_param);
    if l_param.fract() != 0.0 {
        say(&format!("Converting rational l value to integer: {l}"));
    }
    let n: u64 = counts.iter().sum();
    let mut initial: Vec<(usize, u64)> = counts
        .iter()
        .enumerate()
        .filter(|(_, &c)| c > 0)
        .map(|(b, &c)| (b, c))
        .collect();
    if initial.len() < l {
        say("Anatomy l-diversity cannot be satisfied on this dataset!!!");
        return Err(Error::Invalid(format!(
            "Anatomy: distinct {l}-diversity cannot be satisfied: the sensitive attribute has \
             {} distinct values; give -l {} or less",
            initial.len(),
            initial.len()
        )));
    }
    // count / n > 1 / l, in integers.
    if let Some(&(_, c)) = initial
        .iter()
        .find(|&&(_, c)| c as u128 * l as u128 > n as u128)
    {
        say("This dataset is not eligible for Anatomy!!!");
        let most = n / c.max(1);
        let relax = if most >= 2 {
            format!("give -l {most} or less")
        } else {
            "no l of 2 or more is possible on this table (the value is on more than half of \
             the records)"
                .to_string()
        };
        return Err(Error::Invalid(format!(
            "Anatomy: the table is not eligible for distinct {l}-diversity: a sensitive value \
             occurs in {c} of {n} records, more than 1/l; {relax}"
        )));
    }
    initial.sort_by_key(|e| std::cmp::Reverse(e.1)); // stable: ties keep ascending value
    let mut order = BucketOrder::new(&initial);
    let mut rand = JavaRandom::new(seed);
    let mut taken = Vec::with_capacity(l);
    let mut groups = 0u32;
    while order.take_front(l, &mut taken) {
        groups += 1;
        for &(bucket, count) in &taken {
            let offset = rand.pick(count)?;
            source.take(bucket, offset, groups)?;
        }
        order.put_back_decremented(&taken);
    }

    let remaining = source.remaining()?;
    let mut candidates: BTreeMap<usize, Vec<u32>> = BTreeMap::new();
    for &(record, bucket) in &remaining {
        if let std::collections::btree_map::Entry::Vacant(e) = candidates.entry(bucket) {
            let with = source.groups_with(bucket)?;
            e.insert(complement(&with, groups));
        }
        let list = candidates.get_mut(&bucket).expect("just filled");
        if list.is_empty() {
            return Err(Error::Invalid(format!(
                "Anatomy: record {record} cannot join any group: every group already holds its \
                 sensitive value"
            )));
        }
        let i = rand.pick(list.len() as u64)? as usize;
        let group = list.remove(i);
        source.assign(record, group)?;
    }
    Ok(Grouping {
        l,
        groups,
        residue: remaining.len() as u64,
    })
}

/// The groups `1..=groups` not in `with` (ascending, deduplicated).
fn complement(with: &[u32], groups: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut it = with.iter().copied().peekable();
    for g in 1..=groups {
        while it.peek().is_some_and(|&w| w < g) {
            it.next();
        }
        if it.peek() != Some(&g) {
            out.push(g);
        }
    }
    out
}

/// Positions `0..len` with a "still present" mark, answering "the k-th present position" in
/// `O(log len)` (a Fenwick tree of 0/1 counts).
#[derive(Debug, Clone)]
pub struct OrderStatistic {
    tree: Vec<u32>,
    top: usize,
}

impl OrderStatistic {
    /// All `len` positions present.
    pub fn full(len: usize) -> OrderStatistic {
        let mut tree = vec![0u32; len + 1];
        for i in 1..=len {
            tree[i] += 1;
            let parent = i + (i & i.wrapping_neg());
            if parent <= len {
                tree[parent] += tree[i];
            }
        }
        let top = if len == 0 {
            0
        } else {
            1 << (usize::BITS - 1 - len.leading_zeros())
        };
        OrderStatistic { tree, top }
    }

    /// Number of positions still present.
    pub fn len(&self) -> usize {
        let mut n = 0usize;
        let mut i = self.tree.len() - 1;
        while i > 0 {
            n += self.tree[i] as usize;
            i &= i - 1;
        }
        n
    }

    /// True if no position is present.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes and returns the position of the `k`-th (0-based) present position.
    pub fn take(&mut self, k: u64) -> usize {
        let mut pos = 0usize;
        let mut rest = k + 1;
        let mut step = self.top;
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && (self.tree[next] as u64) < rest {
                pos = next;
                rest -= self.tree[next] as u64;
            }
            step >>= 1;
        }
        // pos + 1 is the 1-based index of the k-th present position.
        assert!(
            pos < self.tree.len() - 1,
            "offset beyond the present positions"
        );
        let mut i = pos + 1;
        while i < self.tree.len() {
            self.tree[i] -= 1;
            i += i & i.wrapping_neg();
        }
        pos
    }
}

/// Anatomy over records in memory: each bucket's record numbers (ascending) and an order
/// statistic over those not yet grouped; `group[record - 1]` (0 = none yet).
#[derive(Debug)]
pub struct MemorySource {
    records: Vec<Vec<u32>>,
    present: Vec<OrderStatistic>,
    group: Vec<u32>,
}

impl MemorySource {
    /// From each record's bucket (`buckets[record - 1]`) and the number of buckets.
    pub fn new(buckets: &[u32], bucket_count: usize) -> MemorySource {
        let mut records: Vec<Vec<u32>> = vec![Vec::new(); bucket_count];
        for (i, &b) in buckets.iter().enumerate() {
            records[b as usize].push(i as u32 + 1);
        }
        let present = records
            .iter()
            .map(|r| OrderStatistic::full(r.len()))
            .collect();
        MemorySource {
            records,
            present,
            group: vec![0; buckets.len()],
        }
    }

    /// Records per bucket.
    pub fn counts(&self) -> Vec<u64> {
        self.records.iter().map(|r| r.len() as u64).collect()
    }

    /// The group of every record (`[record - 1]`), once Anatomy ran.
    pub fn into_groups(self) -> Vec<u32> {
        self.group
    }
}

impl Source for MemorySource {
    fn take(&mut self, bucket: usize, offset: u64, group: u32) -> Result<()> {
        let pos = self.present[bucket].take(offset);
        let record = self.records[bucket][pos];
        self.group[record as usize - 1] = group;
        Ok(())
    }

    fn remaining(&mut self) -> Result<Vec<(u64, usize)>> {
        let mut out = Vec::new();
        for (b, recs) in self.records.iter().enumerate() {
            for &r in recs {
                if self.group[r as usize - 1] == 0 {
                    out.push((r as u64, b));
                }
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    fn groups_with(&mut self, bucket: usize) -> Result<Vec<u32>> {
        let mut g: Vec<u32> = self.records[bucket]
            .iter()
            .map(|&r| self.group[r as usize - 1])
            .filter(|&g| g != 0)
            .collect();
        g.sort_unstable();
        g.dedup();
        Ok(g)
    }

    fn assign(&mut self, record: u64, group: u32) -> Result<()> {
        self.group[record as usize - 1] = group;
        Ok(())
    }
}

/// Runs Anatomy on a loaded store: every record's group goes to
/// `AnonRecordTable.EquivalenceID`, one `EquivalenceTable` row per group (no generalization:
/// its labels are empty, the QIT file publishes the exact values). Console lines go to `say`.
pub fn run(
    store: &Store,
    params: &Params<'_>,
    encoding: &Encoding,
    records: u64,
    observer: &mut dyn StepObserver,
    backend: Backend,
    say: &mut dyn FnMut(&str),
) -> Result<super::Outcome> {
    if params.sensitive.len() != 1 {
        return Err(Error::Invalid(
            "Anatomy: Set 1 (and only 1) sensitive attribute!!".into(),
        ));
    }
    let s = &params.sensitive[0];
    let enc = &encoding.sensitive[0];
    // Buckets in ascending sensitive value (the tie order): the mapped integer of a category,
    // the number, or the hierarchy file's order.
    let codes = enc.dictionary.len();
    let key = |code: usize| -> f64 {
        match (&s.map, &enc.numeric) {
            (Some(map), _) => map.get(enc.dictionary.value(code as u32)).unwrap_or(0) as f64,
            (None, Some(values)) => values[code],
            (None, None) => code as f64,
        }
    };
    let mut order: Vec<usize> = (0..codes).collect();
    order.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
    let mut bucket_of = vec![0u32; codes];
    for (b, &code) in order.iter().enumerate() {
        bucket_of[code] = b as u32;
    }

    observer.start("Anatomy");
    let in_memory = match backend {
        Backend::Auto => records <= MEMORY_RECORDS,
        Backend::Memory => true,
        Backend::Sql => false,
        Backend::Hybrid(m) => records <= m,
    };
    let outcome = if in_memory {
        let mut buckets = Vec::with_capacity(records as usize);
        store.for_each_sensitive_code(0, |code| {
            buckets.push(bucket_of[code as usize]);
            Ok(())
        })?;
        let mut src = MemorySource::new(&buckets, codes);
        let outcome = anatomize(&src.counts(), params.l, params.seed, &mut src, say)?;
        store.write_record_groups(&src.into_groups())?;
        outcome
    } else {
        let mut src = SqlSource::new(store, &bucket_of, &order)?;
        let tx = store.begin()?;
        let result = src
            .counts()
            .and_then(|counts| anatomize(&counts, params.l, params.seed, &mut src, say));
        let outcome = match result {
            Ok(o) => {
                tx.commit()?;
                o
            }
            Err(e) => {
                drop(tx);
                let _ = src.drop_tables();
                return Err(e);
            }
        };
        src.drop_tables()?;
        outcome
    };
    let empty: Vec<&str> = vec![""; encoding.qids.len()];
    let tx = store.begin()?;
    for (g, n) in tx.record_group_sizes()? {
        tx.insert_class(g, &empty, n, false)?;
    }
    tx.commit()?;
    observer.finish();
    Ok(super::Outcome {
        equivalence_classes: outcome.groups as u64,
        suppression_limit: Some(0),
        details: Details::Anatomy {
            backend: if in_memory { "memory" } else { "sql" },
            l: outcome.l,
            seed: params.seed,
            residue: outcome.residue,
        },
        ..super::Outcome::default()
    })
}

/// Anatomy's picks through SQL ([`AnatomyRecords`]: each bucket's records numbered in record
/// order): an order statistic per bucket turns "the k-th remaining" into a rank, and the
/// record's group is written straight to `AnonRecordTable`.
struct SqlSource<'a> {
    records: AnatomyRecords<'a>,
    /// Sensitive code of each bucket.
    code_of: Vec<u32>,
    present: Vec<OrderStatistic>,
}

impl<'a> SqlSource<'a> {
    fn new(store: &'a Store, bucket_of: &[u32], order: &[usize]) -> Result<SqlSource<'a>> {
        let records = AnatomyRecords::create(store, 0, bucket_of)?;
        let present = records
            .bucket_sizes(order.len())?
            .into_iter()
            .map(|n| OrderStatistic::full(n as usize))
            .collect();
        Ok(SqlSource {
            records,
            code_of: order.iter().map(|&c| c as u32).collect(),
            present,
        })
    }

    fn counts(&self) -> Result<Vec<u64>> {
        Ok(self.present.iter().map(|p| p.len() as u64).collect())
    }

    fn drop_tables(&self) -> Result<()> {
        self.records.drop_tables()
    }
}

impl Source for SqlSource<'_> {
    fn take(&mut self, bucket: usize, offset: u64, group: u32) -> Result<()> {
        let rank = self.present[bucket].take(offset);
        self.records.take(bucket, rank, group)
    }

    fn remaining(&mut self) -> Result<Vec<(u64, usize)>> {
        self.records.remaining()
    }

    fn groups_with(&mut self, bucket: usize) -> Result<Vec<u32>> {
        self.records.groups_with(self.code_of[bucket])
    }

    fn assign(&mut self, record: u64, group: u32) -> Result<()> {
        self.records.assign(record, group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bounds cycled through by the golden sequences below.
    const BOUNDS: [i32; 12] = [
        1,
        2,
        3,
        7,
        10,
        16,
        100,
        463,
        1_000_000,
        1 << 30,
        (1 << 30) + 1,
        i32::MAX,
    ];

    /// `new Random(seed)`: 24 × `nextInt(BOUNDS[i % 12])`, then 4 × `nextInt()`, printed by
    /// OpenJDK 17 (see the test below for the program).
    const GOLDEN: &[(i64, [i32; 24], [i32; 4])] = &[
        (
            3345,
            [
                0, 0, 0, 6, 2, 9, 20, 118, 354671, 495060258, 445507277, 1805517436, 0, 0, 2, 0, 3,
                4, 26, 426, 878406, 592562464, 412063103, 103450696,
            ],
            [946286576, 1363909823, 1706567513, -1657207780],
        ),
        (
            0,
            [
                0, 1, 1, 2, 5, 4, 91, 124, 218719, 839166427, 715581077, 542832677, 0, 1, 2, 0, 4,
                0, 41, 238, 459143, 336012444, 276804524, 790221947,
            ],
            [629649304, -1266264776, 99807007, 5955764],
        ),
        (
            42,
            [
                0, 0, 0, 3, 0, 15, 5, 344, 255519, 98059046, 969067502, 791955276, 0, 0, 2, 0, 0,
                12, 9, 140, 327863, 468678613, 944462913, 1610411243,
            ],
            [-297936814, 1660292060, -866352379, 761834774],
        ),
        (
            -1,
            [
                0, 0, 0, 6, 4, 9, 77, 127, 177765, 60706365, 665220512, 121954317, 0, 0, 0, 2, 2,
                8, 55, 49, 206257, 998843631, 975495143, 1335117720,
            ],
            [1440933800, 999165090, 12531289, 756071893],
        ),
        (
            123456789012345,
            [
                0, 1, 2, 1, 5, 13, 60, 451, 432479, 424882642, 146958768, 600863488, 0, 1, 2, 1, 2,
                1, 49, 349, 454809, 330624573, 370477417, 246382167,
            ],
            [-646406152, -1764789958, 428243492, -1892663951],
        ),
    ];

    /// The golden values come from this Java program (OpenJDK 17.0.15):
    /// ```java
    /// Random r = new Random(s);
    /// for (int i = 0; i < 24; i++) print(r.nextInt(bounds[i % bounds.length]));
    /// for (int i = 0; i < 4; i++) print(r.nextInt());
    /// ```
    #[test]
    fn java_random_matches_openjdk() {
        for (seed, bounded, unbounded) in GOLDEN {
            let mut r = JavaRandom::new(*seed as u64);
            for (i, want) in bounded.iter().enumerate() {
                assert_eq!(
                    r.next_int_bounded(BOUNDS[i % BOUNDS.len()]),
                    *want,
                    "seed {seed}, draw {i}"
                );
            }
            for want in unbounded {
                assert_eq!(r.next_int(), *want, "seed {seed}");
            }
        }
    }

    #[test]
    fn integer_l_rounds_like_math_round() {
        assert_eq!(integer_l(2.0), 2);
        assert_eq!(integer_l(2.5), 3);
        assert_eq!(integer_l(2.49), 2);
        assert_eq!(integer_l(1.2), 2);
        assert_eq!(integer_l(1.5), 2);
        assert_eq!(integer_l(0.3), 2);
        assert_eq!(integer_l(10.0), 10);
    }

    #[test]
    fn order_statistic_takes_kth_present() {
        for len in [1usize, 2, 3, 7, 8, 9, 100] {
            let mut os = OrderStatistic::full(len);
            let mut naive: Vec<usize> = (0..len).collect();
            let mut r = JavaRandom::new(len as u64);
            while !naive.is_empty() {
                let k = r.next_int_bounded(naive.len() as i32) as usize;
                assert_eq!(os.take(k as u64), naive.remove(k), "len {len}");
            }
        }
    }

    #[test]
    fn bucket_order_is_a_stable_resort() {
        // Naive: a Vec re-sorted stably after each round.
        let counts = [5u64, 3, 5, 1, 2, 4, 4, 1];
        let l = 3;
        let mut naive: Vec<(usize, u64)> = counts.iter().copied().enumerate().collect();
        naive.sort_by_key(|e| std::cmp::Reverse(e.1));
        let mut order = BucketOrder::new(&naive);
        let mut taken = Vec::new();
        loop {
            naive.retain(|e| e.1 > 0);
            let ok = order.take_front(l, &mut taken);
            assert_eq!(ok, naive.len() >= l);
            if !ok {
                break;
            }
            assert_eq!(taken, naive[..l]);
            for e in &mut naive[..l] {
                e.1 -= 1;
            }
            naive.sort_by_key(|e| std::cmp::Reverse(e.1));
            order.put_back_decremented(&taken);
        }
    }

    #[test]
    fn complement_of_groups() {
        assert_eq!(complement(&[2, 2, 4], 5), vec![1, 3, 5]);
        assert_eq!(complement(&[], 2), vec![1, 2]);
        assert_eq!(complement(&[1, 2], 2), Vec::<u32>::new());
    }

    /// Every group has at least l distinct values and every record is in exactly one group,
    /// checked for many random tables.
    #[test]
    fn groups_are_l_diverse() {
        let mut r = JavaRandom::new(7);
        for trial in 0..300 {
            let m = 2 + r.next_int_bounded(8) as usize;
            let n = 1 + r.next_int_bounded(200) as usize;
            let buckets: Vec<u32> = (0..n)
                .map(|_| r.next_int_bounded(m as i32) as u32)
                .collect();
            let l = 2.0 + r.next_int_bounded(3) as f64;
            let mut src = MemorySource::new(&buckets, m);
            let counts = src.counts();
            let res = anatomize(&counts, l, trial, &mut src, &mut |_| {});
            let li = l as usize;
            let distinct = counts.iter().filter(|&&c| c > 0).count();
            let max = *counts.iter().max().unwrap();
            match res {
                Err(e) => {
                    let msg = e.to_string();
                    if distinct < li {
                        assert!(msg.contains("cannot be satisfied"), "{msg}");
                    } else {
                        assert!(max as usize * li > n, "{msg}");
                        assert!(msg.contains("not eligible"), "{msg}");
                    }
                }
                Ok(out) => {
                    assert!(distinct >= li && max as usize * li <= n);
                    assert!(out.residue < li as u64, "residue {}", out.residue);
                    let groups = src.into_groups();
                    let mut values: Vec<Vec<u32>> = vec![Vec::new(); out.groups as usize];
                    for (i, &g) in groups.iter().enumerate() {
                        assert!(g >= 1 && g <= out.groups, "record {i} in group {g}");
                        values[g as usize - 1].push(buckets[i]);
                    }
                    for v in &mut values {
                        v.sort_unstable();
                        v.dedup();
                        assert!(v.len() >= li, "group with {} values, l = {li}", v.len());
                    }
                }
            }
        }
    }

    #[test]
    fn eligibility_messages() {
        let mut src = MemorySource::new(&[0, 0, 1], 2);
        let e = anatomize(&src.counts(), 3.0, 1, &mut src, &mut |_| {}).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("Anatomy: distinct 3-diversity cannot be satisfied"));
        let mut src = MemorySource::new(&[0, 0, 1], 2);
        let e = anatomize(&src.counts(), 2.0, 1, &mut src, &mut |_| {}).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("Anatomy: the table is not eligible for distinct"));
        let mut lines = Vec::new();
        let mut src = MemorySource::new(&[0, 1, 0, 1], 2);
        anatomize(&src.counts(), 1.2, 1, &mut src, &mut |s| {
            lines.push(s.to_string())
        })
        .unwrap();
        assert_eq!(lines, ["Converting rational l value to integer: 2"]);
    }
}
