//! δ-presence (Nergiz, Atzori and Clifton, SIGMOD 2007).
//!
//! The input is a *population* table; a *research subset* of its records is what gets published.
//! For each class of the population, δ = (subset records in the class) / (population records in
//! the class) is the probability that an individual of the class is in the subset. The table is
//! (δmin, δmax)-present if every class has δmin <= δ <= δmax. As in ARX, a class with no subset
//! records has δ = 0.
//!
//! A union of classes has a δ between its parts' (it is their mediant), so the model is monotonic
//! without suppression; with suppression it is not, even with δmin = 0 (see `properties`).
//!
//! In the lattice engine ([`DeltaPresence`]) the research subset is the released data, and ARX's
//! semantics apply (`EncodedTable::with_subset`): a class's count is its subset records, δ's
//! population count comes from the membership column's distribution (code 1: subset, code 0:
//! the rest), every other figure is computed on the subset. A class that fails is an outlier and
//! its subset records are suppressed (they count toward the budget, which is a share of the
//! subset). A class with population records only releases nothing and cannot be suppressed: if
//! it fails (δ = 0 < δmin) the transformation is invalid
//! ([`PrivacyCriterion::judges_empty_classes`]). ARX 3.9 does the same, except that with
//! k-anonymity also required its class-size test runs first and lets such classes pass; we do
//! not copy that, since the class then reveals that none of its individuals is in the subset.

use super::properties::{is_monotonic, Flavor, EXACT_TOLERANCE};
use super::PrivacyModel;
use super::{ClassView, PrivacyCriterion, Requirements};
use crate::data::subset::SubsetSpec;

/// δ of one class: `subset / population`, 0 when the class holds no subset record.
#[inline]
pub fn delta(subset: u64, population: u64) -> f64 {
    if subset == 0 || population == 0 {
        0.0
    } else {
        subset as f64 / population as f64
    }
}

/// True if the class's δ lies in `[dmin, dmax]` ([`Flavor::Exact`]: with tolerance).
#[inline]
pub fn is_delta_present(
    subset: u64,
    population: u64,
    dmin: f64,
    dmax: f64,
    flavor: Flavor,
) -> bool {
    let d = delta(subset, population);
    match flavor {
        Flavor::Exact => d >= dmin - EXACT_TOLERANCE && d <= dmax + EXACT_TOLERANCE,
        Flavor::Arx | Flavor::Toolbox => d >= dmin && d <= dmax,
    }
}

/// δ-presence as a checker plug-in: reads the distribution of the table's membership column
/// (`EncodedTable::subset_column`), whose total is the class's population and whose code 1 count
/// is its subset records (the class's count).
#[derive(Debug, Clone)]
pub struct DeltaPresence {
    pub dmin: f64,
    pub dmax: f64,
    /// Index of the membership column in `EncodedTable::sensitive`.
    pub column: usize,
    pub flavor: Flavor,
}

impl PrivacyCriterion for DeltaPresence {
    fn name(&self) -> String {
        format!("({},{})-presence", self.dmin, self.dmax)
    }

    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: 1,
            distributions: vec![self.column],
        }
    }

    fn is_monotonic(&self, with_suppression: bool) -> bool {
        is_monotonic(
            &PrivacyModel::DeltaPresence {
                dmin: self.dmin,
                dmax: self.dmax,
                subset: SubsetSpec::Column(0),
            },
            with_suppression,
        )
    }

    fn judges_empty_classes(&self) -> bool {
        self.dmin > 0.0
    }

    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        let d = class.distribution(0);
        is_delta_present(
            d.count(1) as u64,
            d.total(),
            self.dmin,
            self.dmax,
            self.flavor,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn criterion_reads_the_membership_distribution() {
        let c = DeltaPresence {
            dmin: 0.25,
            dmax: 0.5,
            column: 0,
            flavor: Flavor::Arx,
        };
        let judge = |others: u32, members: u32| {
            let buf = crate::privacy::distribution::DistributionBuf::from_dense(&[others, members]);
            let slots = [buf.view()];
            c.is_satisfied(&ClassView::new(members as u64, &slots, &[0]))
        };
        assert!(judge(3, 1));
        assert!(judge(1, 1));
        assert!(!judge(0, 1), "delta 1");
        assert!(!judge(4, 1), "delta 0.2");
        assert!(!judge(4, 0), "no subset record: delta 0 < dmin");
        assert!(c.judges_empty_classes());
        assert!(!DeltaPresence { dmin: 0.0, ..c }.judges_empty_classes());
        assert_eq!(c.name(), "(0.25,0.5)-presence");
    }

    #[test]
    fn by_hand() {
        assert_eq!(delta(1, 4), 0.25);
        assert_eq!(delta(0, 4), 0.0);
        assert_eq!(delta(3, 3), 1.0);
        for f in [Flavor::Arx, Flavor::Toolbox, Flavor::Exact] {
            assert!(is_delta_present(1, 4, 0.25, 0.5, f));
            assert!(is_delta_present(2, 4, 0.25, 0.5, f));
            assert!(!is_delta_present(3, 4, 0.25, 0.5, f));
            assert!(
                !is_delta_present(0, 4, 0.1, 0.5, f),
                "no subset record: delta 0"
            );
            assert!(is_delta_present(0, 4, 0.0, 0.5, f));
            // 1/3 against 1/3 written as a decimal: the exact flavor's tolerance absorbs it.
        }
        assert!(is_delta_present(
            1,
            3,
            0.0,
            0.333_333_333_333_333,
            Flavor::Exact
        ));
        assert!(!is_delta_present(
            1,
            3,
            0.0,
            0.333_333_333_333_333,
            Flavor::Arx
        ));
    }
}
