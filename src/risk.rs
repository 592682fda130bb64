//! Re-identification risk of a release under the prosecutor model, as ARX's risk analysis
//! computes it: every record of a class of `n` records has risk `1 / n`; the highest risk is
//! `1 / the smallest class`, the average risk is `classes / records`, and the records at risk are
//! the share of records whose risk exceeds a threshold. Suppressed records are left out (they
//! are released without quasi-identifiers), as the JSON report and `anonbox audit` say.
//!
//! This module sees class sizes only; [`crate::release`] derives them from a run's result (the
//! input's classes are its distinct quasi-identifier tuples). [`analysis`] adds the journalist
//! and marketer models, sample and population uniques (ARX's full risk analysis);
//! [`attributes`] the attribute risks, which need the distinct tuples themselves.

pub mod analysis;
pub mod attributes;

use serde::Serialize;

/// A multiset of class sizes, kept as the number of classes of each size (ascending): the input
/// of a huge file has tens of millions of classes (its distinct tuples) but a few distinct
/// sizes, so its figures and charts need no list of every class.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SizeCounts(Vec<(u64, u64)>);

impl SizeCounts {
    /// The multiset of `sizes` (zeros are kept: class figures ignore them).
    pub fn from_sizes(sizes: impl IntoIterator<Item = u64>) -> SizeCounts {
        let mut counts: rustc_hash::FxHashMap<u64, u64> = Default::default();
        for n in sizes {
            *counts.entry(n).or_insert(0) += 1;
        }
        SizeCounts::from_counts(counts)
    }

    /// The multiset with `classes` classes of each `size`.
    pub fn from_counts(counts: impl IntoIterator<Item = (u64, u64)>) -> SizeCounts {
        let mut v: Vec<(u64, u64)> = counts.into_iter().filter(|p| p.1 > 0).collect();
        v.sort_unstable();
        SizeCounts(v)
    }

    /// Every class's size, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.0
            .iter()
            .flat_map(|&(size, classes)| std::iter::repeat_n(size, classes as usize))
    }

    /// `(size, classes of that size)`, ascending by size.
    pub fn counts(&self) -> &[(u64, u64)] {
        &self.0
    }
}

/// The threshold of [`Risk::records_at_risk`] when none is given (ARX's default highlight).
pub const DEFAULT_THRESHOLD: f64 = 0.2;

/// Prosecutor risk figures of one table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Risk {
    /// Always `"prosecutor"`.
    pub model: &'static str,
    /// 1 / the smallest class (0 without classes).
    pub highest: f64,
    /// Classes / records in classes (0 without classes).
    pub average: f64,
    /// Share of the records (in classes) whose risk `1 / class size` exceeds `threshold`.
    pub records_at_risk: f64,
    pub threshold: f64,
}

impl Risk {
    /// The figures of a table whose classes have `sizes` records (zeros are ignored).
    pub fn from_sizes(sizes: impl IntoIterator<Item = u64>, threshold: f64) -> Risk {
        let (mut classes, mut records, mut smallest, mut over) = (0u64, 0u64, u64::MAX, 0u64);
        for n in sizes.into_iter().filter(|&n| n > 0) {
            classes += 1;
            records += n;
            smallest = smallest.min(n);
            if 1.0 / n as f64 > threshold {
                over += n;
            }
        }
        let share = |x: u64| {
            if records == 0 {
                0.0
            } else {
                x as f64 / records as f64
            }
        };
        Risk {
            model: "prosecutor",
            highest: if classes == 0 {
                0.0
            } else {
                1.0 / smallest as f64
            },
            average: share(classes),
            records_at_risk: share(over),
            threshold,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Classes of 1, 3 and 4 records: highest 1, average 3/8; above 0.2 all 8 records, above
    /// 0.3 the classes of 1 and 3 (4 of 8), above 1 none.
    #[test]
    fn figures_by_hand() {
        let r = Risk::from_sizes([3, 1, 4], 0.2);
        assert_eq!(r.highest, 1.0);
        assert_eq!(r.average, 3.0 / 8.0);
        assert_eq!(r.records_at_risk, 1.0);
        assert_eq!(Risk::from_sizes([3, 1, 4], 0.3).records_at_risk, 0.5);
        assert_eq!(Risk::from_sizes([3, 1, 4], 1.0).records_at_risk, 0.0);
        let empty = Risk::from_sizes([], 0.2);
        assert_eq!((empty.highest, empty.average), (0.0, 0.0));
    }
}
