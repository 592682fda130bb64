//! Attribute risk: which quasi-identifiers single records out, alone and together with the
//! others (ARX's attribute-risk view, and the minimal sample uniques of SUDA, Elliot et al.
//! 2002), from a frequency set (the distinct tuples with their records), so its cost grows with
//! the distinct tuples, never with the rows.
//!
//! Per attribute:
//! - `distinction` (distinct values / records) and `separation` (the share of pairs of records
//!   it tells apart), as ARX's attribute risks;
//! - `unique_alone`: the share of records whose value no other record has;
//! - `needed`: the share of records that are unique on all the quasi-identifiers but not on
//!   the others without this one: leaving it out would hide them in a class;
//! - `in_msus`: the share of records with a minimal sample unique that holds it. A set of
//!   attributes is a minimal sample unique (MSU) of a record if the record's values on it are
//!   unique in the table and on no proper subset. Only records unique on all the attributes
//!   can have one (uniqueness grows with the set), so they alone are examined.
//!
//! MSUs are searched by size, up to [`MAX_MSU`] attributes, as SUDA's users bound them: a set
//! is one of a record's MSUs if the record is unique on it and on none of its subsets one
//! attribute smaller (non-uniqueness passes to subsets). Each set's grouping refines that of
//! its prefix one attribute shorter by one more attribute (a depth-first walk), and "unique
//! without attribute j" refines the groups of the attributes before j by those after it, so
//! every grouping is one pass over the distinct tuples; where the product of the two group
//! counts is small the pass indexes a table instead of hashing. The sizes stop early where the
//! sets times the tuples would exceed [`WORK_LIMIT`] (`msu_max_size` says where it stopped), so
//! that a report on many attributes stays quick.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

/// The largest minimal sample unique searched.
pub const MAX_MSU: usize = 4;

/// Tuples times attribute sets grouped at most, over all MSU sizes.
pub const WORK_LIMIT: u64 = 100_000_000;

/// One quasi-identifier's figures (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributeRisk {
    pub name: String,
    pub distinct: u64,
    pub distinction: f64,
    pub separation: f64,
    pub unique_alone: f64,
    pub needed: f64,
    pub in_msus: f64,
}

/// The attribute risks of one table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributeRisks {
    pub records: u64,
    /// Records unique on all the quasi-identifiers, as a share of the records.
    pub sample_uniqueness: f64,
    /// The largest MSU size searched (at most [`MAX_MSU`]; smaller where the work limit
    /// stopped it), and the records with an MSU of each size from 1 on (a record may have
    /// several), as shares of the records.
    pub msu_max_size: usize,
    pub records_with_msu_of_size: Vec<f64>,
    pub attributes: Vec<AttributeRisk>,
}

impl AttributeRisks {
    /// The figures of the frequency set `tuples` (codes per attribute, records), whose
    /// attributes are `names`. Tuples with no records are ignored; equal tuples are merged.
    pub fn of_tuples(names: &[String], tuples: &[(Vec<u32>, u64)]) -> AttributeRisks {
        let width = names.len();
        let mut grouper = Grouper::default();
        // The distinct tuples, each attribute's values numbered densely (`columns[j]`).
        let (columns, records_of) = {
            let mut merged: FxHashMap<&[u32], usize> = FxHashMap::default();
            let mut records_of: Vec<u64> = Vec::new();
            let mut rows: Vec<&[u32]> = Vec::new();
            for (codes, n) in tuples.iter().filter(|t| t.1 > 0) {
                debug_assert_eq!(codes.len(), width);
                let next = rows.len();
                let t = *merged.entry(codes.as_slice()).or_insert(next);
                if t == next {
                    rows.push(codes);
                    records_of.push(0);
                }
                records_of[t] += n;
            }
            let columns: Vec<Groups> = (0..width)
                .map(|j| {
                    grouper.group(
                        rows.iter().map(|r| u64::from(r[j])),
                        u64::from(u32::MAX) + 1,
                        &records_of,
                    )
                })
                .collect();
            (columns, records_of)
        };
        let tuples = records_of.len();
        let records: u64 = records_of.iter().sum();
        let share = |x: u64| {
            if records == 0 {
                0.0
            } else {
                x as f64 / records as f64
            }
        };
        // Candidates: the tuples of one record, unique on all the attributes.
        let candidates: Vec<usize> = (0..tuples).filter(|&t| records_of[t] == 1).collect();

        // Unique without attribute j: the groups of the attributes before j combined with
        // those of the attributes after it (`after[j]`: attributes j.. ; kept from the last).
        let everything = Groups::one(&records_of);
        let mut after: Vec<Groups> = Vec::with_capacity(width + 1);
        after.push(everything.clone());
        for j in (0..width).rev() {
            let next = grouper.refine(after.last().expect("pushed"), &columns[j], &records_of);
            after.push(next);
        }
        after.reverse();
        let mut before = everything;
        let mut attributes = Vec::with_capacity(width);
        for (j, name) in names.iter().enumerate() {
            let values = &columns[j];
            let without = grouper.refine(&before, &after[j + 1], &records_of);
            let not_unique_without = candidates.iter().filter(|&&t| !without.unique(t)).count();
            let pairs = records as f64 * (records as f64 - 1.0);
            let same: f64 = values
                .records
                .iter()
                .map(|&n| n as f64 * (n as f64 - 1.0))
                .sum();
            attributes.push(AttributeRisk {
                name: name.clone(),
                distinct: values.len() as u64,
                distinction: share(values.len() as u64),
                separation: if pairs > 0.0 { 1.0 - same / pairs } else { 0.0 },
                unique_alone: share(values.records.iter().filter(|&&n| n == 1).count() as u64),
                needed: share(not_unique_without as u64),
                in_msus: 0.0,
            });
            before = grouper.refine(&before, values, &records_of);
        }
        drop(after);

        // MSUs by size, up to the largest size whose work (sets × tuples, summed over the
        // sizes) stays under the limit.
        let mut max_size = 0;
        let mut with_msu_of_size = Vec::new();
        let mut has_msu_with = vec![Bits::new(candidates.len()); width];
        if candidates.is_empty() {
            // No record is unique: none has an MSU of any size.
            max_size = MAX_MSU.min(width);
            with_msu_of_size = vec![0.0; max_size];
        } else if width <= 64 {
            let mut work = 0u64;
            for size in 1..=MAX_MSU.min(width) {
                work = work.saturating_add(binomial(width, size).saturating_mul(tuples as u64));
                if work > WORK_LIMIT {
                    break;
                }
                max_size = size;
            }
            // `unique[set]`: the candidates unique on `set` (bit i: attribute i), every set up
            // to `max_size`, each grouped once from its prefix one attribute shorter.
            let mut unique: FxHashMap<u64, Bits> = FxHashMap::default();
            let mut search = MsuSearch {
                columns: &columns,
                records_of: &records_of,
                candidates: &candidates,
                max_size,
                grouper: &mut grouper,
                unique: &mut unique,
            };
            for (j, column) in columns.iter().enumerate() {
                search.visit(1 << j, j, column);
            }
            for size in 1..=max_size {
                let mut has_msu = Bits::new(candidates.len());
                for set in subsets(width, size) {
                    // Minimal: unique on no subset one smaller (none for one attribute).
                    let mut minimal = unique[&set].clone();
                    if size > 1 {
                        for i in (0..width).filter(|&i| set >> i & 1 == 1) {
                            minimal.and_not(&unique[&(set & !(1 << i))]);
                        }
                    }
                    has_msu.or(&minimal);
                    for i in (0..width).filter(|&i| set >> i & 1 == 1) {
                        has_msu_with[i].or(&minimal);
                    }
                }
                with_msu_of_size.push(share(has_msu.count()));
            }
        }
        for (a, has) in attributes.iter_mut().zip(&has_msu_with) {
            a.in_msus = share(has.count());
        }
        AttributeRisks {
            records,
            sample_uniqueness: share(candidates.len() as u64),
            msu_max_size: max_size,
            records_with_msu_of_size: with_msu_of_size,
            attributes,
        }
    }
}

/// The depth-first walk over the sets of attributes up to `max_size`: each set (bit i:
/// attribute i) grouped once, from its prefix one attribute shorter; at most `max_size`
/// groupings are alive at once.
struct MsuSearch<'a> {
    columns: &'a [Groups],
    records_of: &'a [u64],
    candidates: &'a [usize],
    max_size: usize,
    grouper: &'a mut Grouper,
    /// The candidates unique on each set.
    unique: &'a mut FxHashMap<u64, Bits>,
}

impl MsuSearch<'_> {
    fn visit(&mut self, set: u64, last: usize, groups: &Groups) {
        self.unique
            .insert(set, Bits::of(self.candidates, |t| groups.unique(t)));
        if (set.count_ones() as usize) < self.max_size {
            for j in last + 1..self.columns.len() {
                let refined = self
                    .grouper
                    .refine(groups, &self.columns[j], self.records_of);
                self.visit(set | 1 << j, j, &refined);
            }
        }
    }
}

/// The distinct tuples grouped on a set of attributes: each tuple's group, numbered densely
/// from 0, and each group's records.
#[derive(Clone)]
struct Groups {
    of: Vec<u32>,
    records: Vec<u64>,
}

impl Groups {
    /// Every tuple in one group (the empty set of attributes).
    fn one(records_of: &[u64]) -> Groups {
        Groups {
            of: vec![0; records_of.len()],
            records: vec![records_of.iter().sum()],
        }
    }

    fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether tuple `t` is the only record of its group.
    fn unique(&self, t: usize) -> bool {
        self.records[self.of[t] as usize] == 1
    }
}

/// Numbers the groups of keys: with a table indexed by the key where the keys' space is small
/// enough (no hashing; cleared after each use by the same keys), else with a hash map.
#[derive(Default)]
struct Grouper {
    /// Group number + 1 of each key seen, 0 for none.
    dense: Vec<u32>,
}

/// The largest key space numbered by [`Grouper::dense`] (16 MiB of table).
const DENSE_KEYS: u64 = 1 << 22;

impl Grouper {
    /// The groups of the tuples' `keys` (each below `space`), weighted by `records_of`.
    fn group(
        &mut self,
        keys: impl Iterator<Item = u64> + Clone,
        space: u64,
        records_of: &[u64],
    ) -> Groups {
        let mut of = Vec::with_capacity(records_of.len());
        let mut records: Vec<u64> = Vec::new();
        if space <= DENSE_KEYS {
            if (self.dense.len() as u64) < space {
                self.dense.resize(space as usize, 0);
            }
            for (key, &n) in keys.clone().zip(records_of) {
                let slot = &mut self.dense[key as usize];
                if *slot == 0 {
                    records.push(0);
                    *slot = records.len() as u32;
                }
                of.push(*slot - 1);
                records[(*slot - 1) as usize] += n;
            }
            for key in keys {
                self.dense[key as usize] = 0;
            }
        } else {
            let mut numbers: FxHashMap<u64, u32> = FxHashMap::default();
            for (key, &n) in keys.zip(records_of) {
                let g = *numbers.entry(key).or_insert_with(|| {
                    records.push(0);
                    (records.len() - 1) as u32
                });
                of.push(g);
                records[g as usize] += n;
            }
        }
        Groups { of, records }
    }

    /// The groups of `a` split by those of `b`: the groups of the union of their attributes.
    fn refine(&mut self, a: &Groups, b: &Groups, records_of: &[u64]) -> Groups {
        let width = b.len() as u64;
        let keys =
            a.of.iter()
                .zip(&b.of)
                .map(move |(&x, &y)| u64::from(x) * width + u64::from(y));
        self.group(keys, a.len() as u64 * width, records_of)
    }
}

/// A set of candidates (bit c: the c-th candidate).
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    /// The candidates for which `f` of their tuple holds.
    fn of(candidates: &[usize], f: impl Fn(usize) -> bool) -> Bits {
        let mut b = Bits::new(candidates.len());
        for (c, &t) in candidates.iter().enumerate() {
            if f(t) {
                b.0[c / 64] |= 1 << (c % 64);
            }
        }
        b
    }

    fn or(&mut self, o: &Bits) {
        self.0.iter_mut().zip(&o.0).for_each(|(a, b)| *a |= b);
    }

    fn and_not(&mut self, o: &Bits) {
        self.0.iter_mut().zip(&o.0).for_each(|(a, b)| *a &= !b);
    }

    fn count(&self) -> u64 {
        self.0.iter().map(|w| u64::from(w.count_ones())).sum()
    }
}

/// n choose k, saturating.
fn binomial(n: usize, k: usize) -> u64 {
    (0..k).fold(1u64, |acc, i| {
        acc.saturating_mul((n - i) as u64) / (i as u64 + 1)
    })
}

/// The sets of `size` attributes out of `width`, as bit masks, in increasing order.
fn subsets(width: usize, size: usize) -> Vec<u64> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, u64, usize)> = vec![(0, 0, 0)];
    while let Some((from, set, n)) = stack.pop() {
        if n == size {
            out.push(set);
            continue;
        }
        for i in (from..width).rev() {
            if width - i >= size - n {
                stack.push((i + 1, set | 1 << i, n + 1));
            }
        }
    }
    out.sort_unstable();
    let unique: FxHashSet<u64> = out.iter().copied().collect();
    debug_assert_eq!(unique.len(), out.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(
            (binomial(9, 0), binomial(9, 4), binomial(64, 4)),
            (1, 126, 635_376)
        );
    }

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("q{i}")).collect()
    }

    #[test]
    fn subsets_are_the_binomial_sets() {
        assert_eq!(
            subsets(4, 2),
            vec![0b0011, 0b0101, 0b0110, 0b1001, 0b1010, 0b1100]
        );
        assert_eq!(subsets(5, 0), vec![0]);
        assert_eq!(subsets(6, 3).len(), 20);
    }

    /// 64 attributes over 200 distinct tuples: the sets of up to three attributes stay under
    /// the work limit, those of four would not.
    #[test]
    fn the_work_limit_stops_the_sizes() {
        let rows: Vec<(Vec<u32>, u64)> = (0..200u32)
            .map(|r| ((0..64).map(|j| (r * 31 + j * 7) % (3 + j % 5)).collect(), 1))
            .collect();
        assert!(binomial(64, 4) * 200 > WORK_LIMIT);
        let r = AttributeRisks::of_tuples(&names(64), &rows);
        assert_eq!(r.msu_max_size, 3);
        assert_eq!(r.records_with_msu_of_size.len(), 3);
        assert!(r.sample_uniqueness > 0.0);
    }

    /// Four records by hand: (a, x), (a, y), (b, x), (c, x).
    #[test]
    fn by_hand() {
        let t = |a, b| (vec![a, b], 1u64);
        let r = AttributeRisks::of_tuples(&names(2), &[t(0, 0), t(0, 1), t(1, 0), t(2, 0)]);
        assert_eq!(r.records, 4);
        assert_eq!(r.sample_uniqueness, 1.0);
        let (q0, q1) = (&r.attributes[0], &r.attributes[1]);
        assert_eq!((q0.distinct, q1.distinct), (3, 2));
        // q0: b and c are unique alone; q1: y.
        assert_eq!((q0.unique_alone, q1.unique_alone), (0.5, 0.25));
        // Pairs told apart: q0 all but (a, a): 1 - 2/12; q1 all but the 3 x's: 1 - 6/12.
        assert!((q0.separation - (1.0 - 2.0 / 12.0)).abs() < 1e-12);
        assert!((q1.separation - 0.5).abs() < 1e-12);
        // Without q1, (a, x) and (a, y) share a; without q0, the x's are three.
        assert_eq!((q0.needed, q1.needed), (0.75, 0.5));
        // MSUs: {q0} for b and c, {q1} for y, {q0, q1} for (a, x).
        assert_eq!(r.msu_max_size, 2);
        assert_eq!(r.records_with_msu_of_size, vec![0.75, 0.25]);
        assert_eq!((q0.in_msus, q1.in_msus), (0.75, 0.5));
    }
}
