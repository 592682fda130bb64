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
//! attribute smaller (non-uniqueness passes to subsets). Each size groups every tuple once per
//! set of that size; the size stops early where that would exceed [`WORK_LIMIT`] tuple-sets
//! (`msu_max_size` says where it stopped), so that a report on many attributes stays quick.

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
        let mut merged: FxHashMap<&[u32], u64> = FxHashMap::default();
        for (codes, n) in tuples.iter().filter(|t| t.1 > 0) {
            debug_assert_eq!(codes.len(), width);
            *merged.entry(codes.as_slice()).or_insert(0) += n;
        }
        let tuples: Vec<(&[u32], u64)> = merged.into_iter().collect();
        let records: u64 = tuples.iter().map(|t| t.1).sum();
        let share = |x: u64| {
            if records == 0 {
                0.0
            } else {
                x as f64 / records as f64
            }
        };
        // Candidates: the tuples of one record, unique on all the attributes.
        let candidates: Vec<usize> = (0..tuples.len()).filter(|&t| tuples[t].1 == 1).collect();

        let mut attributes: Vec<AttributeRisk> = names
            .iter()
            .enumerate()
            .map(|(j, name)| {
                let mut values: FxHashMap<u32, u64> = FxHashMap::default();
                for (codes, n) in &tuples {
                    *values.entry(codes[j]).or_insert(0) += n;
                }
                let pairs = records as f64 * (records as f64 - 1.0);
                let same: f64 = values.values().map(|&n| n as f64 * (n as f64 - 1.0)).sum();
                let without: Vec<usize> = (0..width).filter(|&i| i != j).collect();
                let not_unique_without = unique_on(&tuples, &candidates, &without)
                    .iter()
                    .filter(|&&u| !u)
                    .count();
                AttributeRisk {
                    name: name.clone(),
                    distinct: values.len() as u64,
                    distinction: share(values.len() as u64),
                    separation: if pairs > 0.0 { 1.0 - same / pairs } else { 0.0 },
                    unique_alone: share(values.values().filter(|&&n| n == 1).count() as u64),
                    needed: share(not_unique_without as u64),
                    in_msus: 0.0,
                }
            })
            .collect();

        // MSUs by size: `unique[set]` for the sets of the previous size (bit i: attribute i).
        let mut max_size = 0;
        let mut with_msu_of_size = Vec::new();
        let mut has_msu_with = vec![vec![false; candidates.len()]; width];
        let mut previous: FxHashMap<u64, Vec<bool>> = FxHashMap::default();
        let mut work = 0u64;
        if candidates.is_empty() {
            // No record is unique: none has an MSU of any size.
            max_size = MAX_MSU.min(width);
            with_msu_of_size = vec![0.0; max_size];
        } else if width <= 64 {
            for size in 1..=MAX_MSU.min(width) {
                let sets = subsets(width, size);
                work = work.saturating_add(sets.len() as u64 * tuples.len() as u64);
                if work > WORK_LIMIT {
                    break;
                }
                max_size = size;
                let mut has_msu = vec![false; candidates.len()];
                let mut current: FxHashMap<u64, Vec<bool>> = FxHashMap::default();
                for &set in &sets {
                    let cols: Vec<usize> = (0..width).filter(|&i| set >> i & 1 == 1).collect();
                    let unique = unique_on(&tuples, &candidates, &cols);
                    for (c, &u) in unique.iter().enumerate() {
                        // Minimal: unique on no subset one smaller (none for one attribute).
                        let minimal = u
                            && cols
                                .iter()
                                .all(|&i| previous.get(&(set & !(1 << i))).is_none_or(|p| !p[c]));
                        if minimal {
                            has_msu[c] = true;
                            for &i in &cols {
                                has_msu_with[i][c] = true;
                            }
                        }
                    }
                    current.insert(set, unique);
                }
                with_msu_of_size.push(share(has_msu.iter().filter(|&&h| h).count() as u64));
                previous = current;
            }
        }
        for (a, has) in attributes.iter_mut().zip(&has_msu_with) {
            a.in_msus = share(has.iter().filter(|&&h| h).count() as u64);
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

/// For each candidate tuple, whether its values on `cols` are held by no other record.
fn unique_on(tuples: &[(&[u32], u64)], candidates: &[usize], cols: &[usize]) -> Vec<bool> {
    if cols.len() <= 4 {
        // The small sets of the MSU search: the key packed in one integer.
        let key = |codes: &[u32]| {
            cols.iter()
                .fold(0u128, |k, &i| k << 32 | u128::from(codes[i]))
        };
        let mut counts: FxHashMap<u128, u64> = FxHashMap::default();
        for (codes, n) in tuples {
            *counts.entry(key(codes)).or_insert(0) += n;
        }
        return candidates
            .iter()
            .map(|&t| counts.get(&key(tuples[t].0)) == Some(&1))
            .collect();
    }
    let mut counts: FxHashMap<Vec<u32>, u64> = FxHashMap::default();
    let mut key = Vec::with_capacity(cols.len());
    for (codes, n) in tuples {
        key.clear();
        key.extend(cols.iter().map(|&i| codes[i]));
        match counts.get_mut(key.as_slice()) {
            Some(c) => *c += n,
            None => {
                counts.insert(key.clone(), *n);
            }
        }
    }
    candidates
        .iter()
        .map(|&t| {
            key.clear();
            key.extend(cols.iter().map(|&i| tuples[t].0[i]));
            counts.get(key.as_slice()) == Some(&1)
        })
        .collect()
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
