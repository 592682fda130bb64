//! What the search may assume about a model, and whose arithmetic a verdict follows.
//!
//! ## Monotonicity (for predictive tagging)
//! A model is *monotonic* if every generalization of a transformation that satisfies it satisfies
//! it too, so the search may tag all generalizations of a valid transformation without checking
//! them. With monotonic hierarchies a generalization only merges classes, so a model is monotonic
//! without suppression if a union of valid classes is valid:
//! - k-anonymity: |A ∪ B| >= min(|A|, |B|);
//! - distinct l-diversity: distinct(A ∪ B) >= max(distinct A, distinct B);
//! - entropy l-diversity: entropy is concave, H(mix) >= Σ w·H(part) >= min H(part);
//! - recursive (c,l)-diversity: Machanavajjhala et al. 2007, Theorem 3 (the "r1 < c·tail"
//!   condition survives unions);
//! - t-closeness (equal, ordered, hierarchical EMD): each EMD is convex in the class
//!   distribution, so the union's distance is at most the larger part's;
//! - k-map (estimated): k'-anonymity (`kmap`);
//! - β-likeness: a union's frequency of each value is at most the larger part's (`disclosure`);
//! - average risk, sample uniqueness: models of the class sizes, monotonic with suppression too
//!   (`sizes` has the argument);
//! - population uniqueness: with Zayatz's estimate and no suppression only, as ARX declares it
//!   (`uniqueness`);
//! - δ-disclosure is *not* monotonic, even without suppression (`disclosure` has the
//!   counterexample): the search checks it everywhere it cannot rule a transformation out.
//! - δ-presence: the union's share is a mediant of the parts' shares, so it stays within their
//!   bounds. With a research subset the other models judge the subset's records only and a class
//!   with population records only is judged by δ alone (see `delta`); a union's subset records
//!   are the union of its parts', so the arguments above carry over.
//!
//! With suppression the question is whether the *outliers* of a generalization are at most those
//! of the specialization. That holds when a union of classes is invalid only if every part was:
//! true for k-anonymity and distinct l-diversity (both counts only grow), false for the others
//! (a big invalid class can swallow a small valid one: {x×1000} ∪ {x,y,z} fails entropy
//! 3-diversity, so 1003 records become outliers where 1000 were). This is ARX's table
//! (`PrivacyCriterion.isMonotonic`: true only for k-anonymity and distinct l-diversity; ARX's
//! `DPresence` is monotonic with generalization, not with suppression). δ-presence is not
//! monotonic with suppression even for δmin = 0: with δmax = 1/2, a class with 2 of 2 records in
//! the subset (δ = 1, 2 outliers) merged with a valid one with 1 of 3 (δ = 1/3) has δ = 3/5, so
//! 3 records become outliers where 2 were.
//!
//! Floating point caveat: [`Flavor::Arx`] and [`Flavor::Toolbox`] reproduce their tools'
//! arithmetic, which is not exactly monotonic at the boundary (ARX passes entropy 3-diversity for
//! counts {1,1,1} and fails it for their doubling {2,2,2}). Searches that must agree with an
//! exhaustive check at such boundaries must use the same predicate in both.
//!
//! ## Flavors
//! Where the tools disagree in arithmetic (not in definition), a [`Flavor`] says whose to follow.

use super::PrivacyModel;

/// Whose arithmetic a verdict follows, where ARX, the UT Dallas toolbox and exact mathematics
/// differ in the last bits or in index rounding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// ARX 3.9 as the Flash engine must reproduce it: entropy in ARX's `log2` form, recursive
    /// (c,l) with `ceil(l)`, ordered distance summed and aborted as ARX does. Equal and
    /// hierarchical distances are exact (ARX's result there depends on its hash order).
    Arx,
    /// The UT Dallas toolbox's Incognito_L / Incognito_T: entropy summed as `p·ln p` in ascending
    /// code order, recursive (c,l) with `round(m - l)`, distances summed in code / value order.
    Toolbox,
    /// Exact values (integer arithmetic where possible) with a tolerance of 1e-12 at the
    /// thresholds, for `anonbox audit`: it accepts whatever either tool accepts, except
    /// differences beyond rounding.
    Exact,
}

/// Tolerance of [`Flavor::Exact`] verdicts: a figure within this (absolute) of its threshold
/// passes.
pub const EXACT_TOLERANCE: f64 = 1e-12;

/// True if `model` is monotonic under generalization, given whether records may be suppressed
/// (see the module docs). Conservative: false only costs search time.
pub fn is_monotonic(model: &PrivacyModel, suppression: bool) -> bool {
    match model {
        PrivacyModel::KAnonymity { .. }
        | PrivacyModel::DistinctL { .. }
        | PrivacyModel::DifferentialPrivacy { .. }
        | PrivacyModel::KMap { .. }
        | PrivacyModel::AverageRisk { .. }
        | PrivacyModel::SampleUniqueness { .. } => true,
        PrivacyModel::EntropyL { .. }
        | PrivacyModel::RecursiveCL { .. }
        | PrivacyModel::TCloseness { .. }
        | PrivacyModel::DeltaPresence { .. }
        | PrivacyModel::BetaLikeness { .. } => !suppression,
        PrivacyModel::DeltaDisclosure { .. } => false,
        PrivacyModel::PopulationUniqueness { estimator, .. } => {
            !suppression && *estimator == super::uniqueness::Estimator::Zayatz
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::subset::SubsetSpec;
    use crate::privacy::TDistance;

    #[test]
    fn monotonicity_table() {
        let models = [
            (PrivacyModel::KAnonymity { k: 5 }, true),
            (
                PrivacyModel::DistinctL {
                    attribute: 0,
                    l: 3.0,
                },
                true,
            ),
            (
                PrivacyModel::EntropyL {
                    attribute: 0,
                    l: 3.0,
                },
                false,
            ),
            (
                PrivacyModel::RecursiveCL {
                    attribute: 0,
                    c: 4.0,
                    l: 3.0,
                },
                false,
            ),
            (
                PrivacyModel::TCloseness {
                    attribute: 0,
                    t: 0.2,
                    distance: TDistance::Equal,
                },
                false,
            ),
            (
                PrivacyModel::DeltaPresence {
                    dmin: 0.0,
                    dmax: 0.5,
                    subset: SubsetSpec::Column(3),
                },
                false,
            ),
        ];
        // The risk-based models (see their modules for the arguments).
        let risk = [
            (PrivacyModel::AverageRisk { threshold: 0.1 }, true, true),
            (
                PrivacyModel::SampleUniqueness { threshold: 0.1 },
                true,
                true,
            ),
            (
                PrivacyModel::KMap {
                    k: 5,
                    population: crate::privacy::population::Population::of_size(100),
                    significance: 0.01,
                    estimator: crate::privacy::kmap::Estimator::Poisson,
                },
                true,
                true,
            ),
            (
                PrivacyModel::BetaLikeness {
                    attribute: 0,
                    beta: 1.0,
                    enhanced: true,
                },
                true,
                false,
            ),
            (
                PrivacyModel::DeltaDisclosure {
                    attribute: 0,
                    delta: 1.0,
                },
                false,
                false,
            ),
        ];
        for (m, without, with) in risk {
            assert_eq!(is_monotonic(&m, false), without, "{m:?}");
            assert_eq!(is_monotonic(&m, true), with, "{m:?}");
        }
        for (m, with_suppression) in models {
            assert!(is_monotonic(&m, false), "{m:?} without suppression");
            assert_eq!(
                is_monotonic(&m, true),
                with_suppression,
                "{m:?} with suppression"
            );
        }
    }
}

/// Randomized checks of the monotonicity claims above (union of two classes) and of the exact
/// distances against independent formulas.
#[cfg(test)]
mod proptests {
    use super::*;
    use crate::hierarchy::Hierarchy;
    use crate::privacy::distribution::DistributionBuf;
    use crate::privacy::ldiversity::*;
    use crate::privacy::tcloseness::*;
    use proptest::prelude::*;

    const M: usize = 7;

    /// A table's distribution over M codes split into two disjoint classes A and B (each a
    /// sub-multiset), with every code present in the table.
    fn split() -> impl Strategy<Value = (Vec<u32>, Vec<u32>, Vec<u32>)> {
        (
            prop::collection::vec(0u32..6, M),
            prop::collection::vec(0u32..6, M),
            prop::collection::vec(1u32..6, M),
        )
            .prop_map(|(a, b, rest)| {
                let table: Vec<u32> = (0..M).map(|i| a[i] + b[i] + rest[i]).collect();
                (table, a, b)
            })
    }

    /// A three-level hierarchy over M leaves: leaf -> group (parent[i]) -> *.
    fn hierarchy(parent: &[u8]) -> Hierarchy {
        let rows: Vec<Vec<String>> = (0..M)
            .map(|i| vec![format!("v{i}"), format!("g{}", parent[i]), "*".to_string()])
            .collect();
        Hierarchy::from_label_rows("s", &rows)
    }

    fn union(a: &DistributionBuf, b: &DistributionBuf) -> DistributionBuf {
        let mut u = a.clone();
        u.merge(b.view());
        u
    }

    fn shares(d: &[u32]) -> Vec<f64> {
        let n: u32 = d.iter().sum();
        d.iter().map(|&x| x as f64 / n as f64).collect()
    }

    proptest! {
        #[test]
        fn distances_match_independent_formulas(
            (table, a, _b) in split(),
            parent in prop::collection::vec(0u8..3, M),
        ) {
            prop_assume!(a.iter().sum::<u32>() > 0);
            let t = DistributionBuf::from_dense(&table);
            let c = DistributionBuf::from_dense(&a);
            let (p, q) = (shares(&a), shares(&table));
            // Equal: ½ Σ |p − q|.
            let naive: f64 = p.iter().zip(&q).map(|(x, y)| (x - y).abs()).sum::<f64>() / 2.0;
            prop_assert!((EqualDistance::new(t.view()).distance(c.view()) - naive).abs() < 1e-12);
            // Ordered (codes in value order): Σ |cumulative| / (m − 1).
            let values: Vec<f64> = (0..M).map(|i| i as f64).collect();
            let (mut cum, mut naive) = (0.0, 0.0);
            for i in 0..M { cum += p[i] - q[i]; naive += f64::abs(cum); }
            naive /= (M - 1) as f64;
            prop_assert!((OrderedDistance::new(t.view(), &values).distance(c.view()) - naive).abs() < 1e-12);
            // Hierarchical: a tree metric with every edge 1/(2·height), so the EMD is
            // Σ over non-root nodes of |imbalance below the node| / (2·height).
            let h = hierarchy(&parent);
            let height = 2.0;
            let mut edge = 0.0;
            for i in 0..M { edge += (p[i] - q[i]).abs(); }
            for g in 0..3u8 {
                let s: f64 = (0..M).filter(|&i| parent[i] == g).map(|i| p[i] - q[i]).sum();
                edge += s.abs();
            }
            edge /= 2.0 * height;
            let hd = HierarchicalDistance::new(t.view(), &h).unwrap();
            prop_assert!((hd.distance(c.view()) - edge).abs() < 1e-12, "{} vs {}", hd.distance(c.view()), edge);
        }

        #[test]
        fn unions_of_valid_classes_stay_valid(
            (table, a, b) in split(),
            parent in prop::collection::vec(0u8..3, M),
            c in 0.5f64..4.0,
            l in 1.0f64..4.0,
        ) {
            let (da, db) = (DistributionBuf::from_dense(&a), DistributionBuf::from_dense(&b));
            prop_assume!(!da.is_empty() && !db.is_empty());
            let u = union(&da, &db);
            let t = DistributionBuf::from_dense(&table);
            // distinct and entropy l, recursive l: never below the smaller part's.
            prop_assert!(distinct_l(u.view()) >= distinct_l(da.view()).min(distinct_l(db.view())));
            prop_assert!(entropy(u.view()) >= entropy(da.view()).min(entropy(db.view())) - 1e-12);
            let (ra, rb) = (recursive_l(da.view(), c), recursive_l(db.view(), c));
            let lint = l.floor();
            if (ra as f64) >= lint && (rb as f64) >= lint {
                prop_assert!(is_recursive_cl_diverse(u.view(), c, lint, Flavor::Exact));
            }
            // t: never above the larger part's.
            let e = EqualDistance::new(t.view());
            prop_assert!(e.distance(u.view()) <= e.distance(da.view()).max(e.distance(db.view())) + 1e-12);
            let values: Vec<f64> = (0..M).map(|i| (i * i) as f64).collect();
            let o = OrderedDistance::new(t.view(), &values);
            prop_assert!(o.distance(u.view()) <= o.distance(da.view()).max(o.distance(db.view())) + 1e-12);
            let hd = HierarchicalDistance::new(t.view(), &hierarchy(&parent)).unwrap();
            prop_assert!(hd.distance(u.view()) <= hd.distance(da.view()).max(hd.distance(db.view())) + 1e-12);
        }
    }
}
