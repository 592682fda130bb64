//! Privacy models of the whole table's class sizes (ARX's *sample-based* criteria): average
//! re-identification risk and sample uniqueness here, population uniqueness in
//! [`super::uniqueness`]. They judge the histogram of class sizes ([`ClassSizes`]) of the
//! classes the per-class models keep, not one class at a time.
//!
//! Enforcement, as ARX 3.9 does it (`RiskBasedCriterion.enforce`): if the kept classes fail, the
//! smallest classes are suppressed, smallest first, until they hold ([`suppress_like_arx`]
//! finds the fewest); the transformation is valid if all its suppressed records fit the budget.
//! Among classes of one size, which go first is the metric's business (ARX orders them by the
//! class's own information loss; see `check::sizes`). A class whose quasi-identifiers are all at
//! their hierarchy's top value is left out of the histogram and not counted as suppressed
//! (ARX's `HashGroupifyDistribution`), so the top transformation always holds.
//!
//! Monotonicity: both models are monotonic with and without suppression (ARX:
//! `RiskBasedCriterion(true, true, ..)`), so the search prunes by them. The argument: a
//! generalization merges classes. Let S be the classes a specialization suppresses and K those
//! it keeps. In the generalization, suppress every class made of S-classes only; each remaining
//! class contains a K-class, so there are at most |K| of them, holding at least K's records, and
//! at most as many records are suppressed. Average risk (classes / records) is then no higher,
//! and the uniques no more (a unique of the generalization is a unique K-class that merged with
//! nothing). Removing the smallest classes first is optimal for both (for a given number of
//! classes removed it removes the fewest records), so the generalization's fewest suppressed
//! records are at most the specialization's. The per-class models a run combines them with
//! suppress before the histogram is built; where those are monotonic, the argument holds with K
//! the classes they keep (a class of the generalization containing a kept class passes them).

use super::{ClassView, PrivacyCriterion, Requirements};

/// The histogram of class sizes: `(size, classes of that size)`, sizes ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassSizes {
    groups: Vec<(u64, u64)>,
    records: u64,
    classes: u64,
}

impl ClassSizes {
    /// The histogram of `sizes` (any order; sizes of 0 are ignored).
    pub fn from_sizes(sizes: impl IntoIterator<Item = u64>) -> ClassSizes {
        let mut v: Vec<u64> = sizes.into_iter().filter(|&s| s > 0).collect();
        v.sort_unstable();
        let mut groups: Vec<(u64, u64)> = Vec::new();
        for s in v {
            match groups.last_mut() {
                Some((size, n)) if *size == s => *n += 1,
                _ => groups.push((s, 1)),
            }
        }
        ClassSizes::from_groups(groups)
    }

    /// From `(size, classes)` pairs, sizes ascending and distinct.
    pub fn from_groups(groups: Vec<(u64, u64)>) -> ClassSizes {
        let records = groups.iter().map(|&(s, n)| s * n).sum();
        let classes = groups.iter().map(|&(_, n)| n).sum();
        ClassSizes {
            groups,
            records,
            classes,
        }
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    pub fn classes(&self) -> u64 {
        self.classes
    }

    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Classes of exactly `size` records.
    pub fn of_size(&self, size: u64) -> u64 {
        self.groups
            .binary_search_by_key(&size, |&(s, _)| s)
            .map_or(0, |i| self.groups[i].1)
    }

    /// `(size, classes)`, sizes ascending.
    pub fn groups(&self) -> &[(u64, u64)] {
        &self.groups
    }

    /// The histogram after the `j` smallest classes are removed, and the records removed.
    pub fn without_smallest(&self, mut j: u64) -> (ClassSizes, u64) {
        let mut removed = 0;
        let mut groups = Vec::with_capacity(self.groups.len());
        for &(s, n) in &self.groups {
            let take = j.min(n);
            j -= take;
            removed += take * s;
            if n > take {
                groups.push((s, n - take));
            }
        }
        (ClassSizes::from_groups(groups), removed)
    }
}

/// How many of the smallest classes to suppress so that every criterion of `rules` (criteria
/// that [`judge sizes`](PrivacyCriterion::judges_sizes)) holds, by ARX's binary search
/// (`HashGroupifyDistribution.suppressWhileNotFulfilledBinary`): `(classes, records, holds)`.
/// For rules that hold on a prefix-closed set (average risk, sample uniqueness: removing more
/// small classes never hurts, see the module docs) it finds the fewest, and they hold. For
/// others (population uniqueness) it finds what ARX finds, and `holds` says whether the rules
/// hold there (ARX does not ask again; the checker refuses the transformation if not).
pub fn suppress_like_arx(sizes: &ClassSizes, rules: &[&dyn PrivacyCriterion]) -> (u64, u64, bool) {
    let holds = |j: i64| {
        let (rest, removed) = sizes.without_smallest(j as u64);
        (rules.iter().all(|r| r.sizes_satisfied(&rest)), removed)
    };
    if holds(0).0 {
        return (0, 0, true);
    }
    let m = sizes.classes() as i64;
    if m == 0 {
        return (0, 0, false);
    }
    // The suppressed classes are always the first mid + 1 (Java's division truncates toward
    // zero, as Rust's does).
    let (mut low, mut high) = (0i64, m - 1);
    let mut mid = (low + high) / 2;
    while low <= high {
        if holds(mid + 1).0 {
            high = mid - 1;
        } else {
            low = mid + 1;
        }
        mid = (low + high) / 2;
    }
    let mut j = mid + 1;
    if !holds(j).0 && j < m {
        j += 1;
    }
    let (ok, removed) = holds(j);
    (j as u64, removed, ok)
}

/// Average re-identification risk (prosecutor model): 1 / average class size <= threshold
/// (EMA policy 0070 and Health Canada: 0.09 is common).
#[derive(Debug, Clone, PartialEq)]
pub struct AverageRisk {
    pub threshold: f64,
}

impl PrivacyCriterion for AverageRisk {
    fn name(&self) -> String {
        format!("average re-identification risk at most {}", self.threshold)
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: 1,
            distributions: Vec::new(),
        }
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        true
    }
    fn size_only(&self) -> bool {
        true
    }
    fn is_satisfied(&self, _class: &ClassView<'_>) -> bool {
        true
    }
    fn judges_sizes(&self) -> bool {
        true
    }
    fn sizes_satisfied(&self, sizes: &ClassSizes) -> bool {
        if sizes.is_empty() {
            return true;
        }
        // ARX's arithmetic: 1 / (records / classes).
        let average = sizes.records() as f64 / sizes.classes() as f64;
        1.0 / average <= self.threshold
    }
}

/// Sample uniqueness: the share of records that are alone in their class is at most the
/// threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleUniqueness {
    pub threshold: f64,
}

impl PrivacyCriterion for SampleUniqueness {
    fn name(&self) -> String {
        format!("sample uniqueness at most {}", self.threshold)
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: 1,
            distributions: Vec::new(),
        }
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        true
    }
    fn size_only(&self) -> bool {
        true
    }
    fn is_satisfied(&self, _class: &ClassView<'_>) -> bool {
        true
    }
    fn judges_sizes(&self) -> bool {
        true
    }
    fn sizes_satisfied(&self, sizes: &ClassSizes) -> bool {
        if sizes.is_empty() {
            return true;
        }
        sizes.of_size(1) as f64 / sizes.records() as f64 <= self.threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram() {
        let h = ClassSizes::from_sizes([3, 1, 1, 5, 3, 0]);
        assert_eq!(h.groups(), &[(1, 2), (3, 2), (5, 1)]);
        assert_eq!((h.records(), h.classes()), (13, 5));
        assert_eq!(h.of_size(3), 2);
        assert_eq!(h.of_size(2), 0);
        let (rest, removed) = h.without_smallest(3);
        assert_eq!(rest.groups(), &[(3, 1), (5, 1)]);
        assert_eq!(removed, 5);
        assert_eq!(h.without_smallest(9).0, ClassSizes::default());
    }

    #[test]
    fn fewest_suppressed_by_brute_force() {
        // Average risk 0.25 needs an average size of 4: [1,1,2,6,10] has 20/5 = 4.
        let h = ClassSizes::from_sizes([1, 1, 2, 6, 10]);
        let avg = AverageRisk { threshold: 0.25 };
        assert_eq!(suppress_like_arx(&h, &[&avg]), (0, 0, true));
        let avg = AverageRisk { threshold: 0.2 };
        // 5 per class: remove {1} (19/4 = 4.75), {1,1} (18/3 = 6).
        assert_eq!(suppress_like_arx(&h, &[&avg]), (2, 2, true));
        let su = SampleUniqueness { threshold: 0.0 };
        assert_eq!(suppress_like_arx(&h, &[&su]), (2, 2, true));
        let su = SampleUniqueness { threshold: 0.06 };
        // 2 uniques of 20 = 0.1; one removed: 1/19 = 0.053.
        assert_eq!(suppress_like_arx(&h, &[&su]), (1, 1, true));
        assert_eq!(suppress_like_arx(&h, &[&su, &avg]), (2, 2, true));
        // Everything removed holds.
        let strict = AverageRisk { threshold: 0.01 };
        assert_eq!(suppress_like_arx(&h, &[&strict]), (5, 20, true));
        // Against every prefix, on histograms of 1 to 40 classes.
        for m in 1..40u64 {
            let h = ClassSizes::from_sizes((0..m).map(|i| 1 + (i * 7 + 3) % 5 + i / 9));
            for t in [0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0] {
                for r in [
                    &AverageRisk { threshold: t } as &dyn PrivacyCriterion,
                    &SampleUniqueness { threshold: t },
                ] {
                    let j = (0..=m)
                        .find(|&j| r.sizes_satisfied(&h.without_smallest(j).0))
                        .unwrap();
                    let (got, _, ok) = suppress_like_arx(&h, &[r]);
                    assert_eq!((got, ok), (j, true), "{} of {m} classes", r.name());
                }
            }
        }
    }
}
