//! The privacy figures of a table as it stands, from its equivalence classes.
//!
//! [`Classes`] collects records one at a time (their quasi-identifier key already encoded as
//! integers by the reader), grouping them into classes with a count, the distribution of the
//! sensitive attribute and the count of research-subset records. [`Figures::compute`] then
//! derives every figure with the shared models of [`crate::privacy`] in their exact flavor:
//! - k = the smallest class size, the number of classes, the smallest classes;
//! - records at risk: records in classes smaller than a given k;
//! - distinct l, entropy l (`exp(H)`) and recursive l for a given c: each the minimum over
//!   classes;
//! - t for each distance (equal always, ordered when the attribute is numeric, hierarchical when a
//!   hierarchy is given): the maximum over classes, against the distribution of *all* records
//!   (suppressed ones included, as ARX does);
//! - δ bounds: the minimum and maximum over classes of subset / population records.

use rustc_hash::FxHashMap;

use crate::hierarchy::Hierarchy;
use crate::job::TDistance;
use crate::privacy::distribution::{Distribution, DistributionBuf};
use crate::privacy::ldiversity::{
    distinct_l, entropy_l, is_distinct_l_diverse, is_entropy_l_diverse, is_recursive_cl_diverse,
    recursive_l,
};
use crate::privacy::properties::EXACT_TOLERANCE;
use crate::privacy::tcloseness::{EqualDistance, HierarchicalDistance, OrderedDistance};
use crate::privacy::{delta, Flavor};

/// Records grouped into equivalence classes by their encoded quasi-identifier key.
#[derive(Debug, Default)]
pub struct Classes {
    width: usize,
    index: FxHashMap<Box<[u32]>, u32>,
    /// Key of each class, in order of first appearance.
    keys: Vec<Box<[u32]>>,
    sizes: Vec<u64>,
    /// Per class, when a sensitive attribute is audited.
    distributions: Vec<DistributionBuf>,
    /// Per class: records of the research subset.
    subset: Vec<u64>,
    /// Every record's sensitive value, suppressed ones included.
    table: DistributionBuf,
    suppressed: u64,
}

impl Classes {
    /// An empty grouping for keys of `width` codes.
    pub fn new(width: usize) -> Classes {
        Classes {
            width,
            ..Classes::default()
        }
    }

    fn class_of(&mut self, key: &[u32]) -> usize {
        debug_assert_eq!(key.len(), self.width);
        if let Some(&c) = self.index.get(key) {
            return c as usize;
        }
        let c = self.keys.len();
        self.keys.push(key.into());
        self.index.insert(key.into(), c as u32);
        self.sizes.push(0);
        self.distributions.push(DistributionBuf::new());
        self.subset.push(0);
        c
    }

    /// Adds one record: its key (`None` if it is left out as suppressed), its sensitive code, and
    /// whether it belongs to the research subset.
    pub fn add(&mut self, key: Option<&[u32]>, sensitive: Option<u32>, in_subset: bool) {
        self.add_records(key, sensitive, in_subset, 1);
    }

    /// Adds `n` records alike (see [`Self::add`]).
    pub fn add_records(
        &mut self,
        key: Option<&[u32]>,
        sensitive: Option<u32>,
        in_subset: bool,
        n: u64,
    ) {
        if let Some(s) = sensitive {
            add_counts(&mut self.table, s, n);
        }
        let Some(key) = key else {
            self.suppressed += n;
            return;
        };
        let c = self.class_of(key);
        self.sizes[c] += n;
        if let Some(s) = sensitive {
            add_counts(&mut self.distributions[c], s, n);
        }
        if in_subset {
            self.subset[c] += n;
        }
    }

    /// Counts one research-subset record given by its key (a separate subset file). Returns false
    /// if no class has that key.
    pub fn add_subset(&mut self, key: &[u32]) -> bool {
        match self.index.get(key) {
            Some(&c) => {
                self.subset[c as usize] += 1;
                true
            }
            None => false,
        }
    }

    /// Number of classes.
    /// The size of every class (suppressed records left out).
    pub fn sizes(&self) -> &[u64] {
        &self.sizes
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True if no record was grouped.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The sensitive codes present in the file (suppressed records included), ascending.
    pub fn table_codes(&self) -> &[u32] {
        self.table.view().codes
    }

    /// The key of class `c`.
    pub fn key(&self, c: usize) -> &[u32] {
        &self.keys[c]
    }
}

/// Adds `n` records of `code` to `d`, whose counts are u32: in parts beyond that.
fn add_counts(d: &mut DistributionBuf, code: u32, mut n: u64) {
    while n > 0 {
        let part = n.min(u64::from(u32::MAX));
        d.add(code, part as u32);
        n -= part;
    }
}

/// What [`Figures::compute`] should derive beyond the class sizes.
#[derive(Debug, Clone, Default)]
pub struct Params<'a> {
    /// Records at risk are those in classes smaller than this.
    pub risk_k: u64,
    /// Prosecutor risk above which a record counts in [`Risk::records_at_risk`].
    pub risk_threshold: f64,
    /// How many of the smallest classes to list.
    pub smallest: usize,
    /// The audited sensitive attribute's name, if any.
    pub sensitive: Option<String>,
    /// c for the recursive l.
    pub c: Option<f64>,
    /// Numeric value of each sensitive code (ordered distance).
    pub numeric: Option<&'a [f64]>,
    /// Hierarchy over the sensitive codes (hierarchical distance).
    pub hierarchy: Option<&'a Hierarchy>,
    /// A research subset was given.
    pub subset: bool,
}

/// One of the smallest classes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SmallClass {
    /// Index into [`Classes`] (order of first appearance).
    #[serde(skip)]
    pub class: usize,
    pub size: u64,
    /// The class's quasi-identifier values (filled in by the caller, who has the dictionaries).
    pub values: Vec<String>,
}

/// Records in classes smaller than `k`, and the re-identification risk of the prosecutor model as
/// ARX's risk analysis computes it over the classes (suppressed records left out): a record's
/// risk is 1 / its class size.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Risk {
    pub k: u64,
    pub records: u64,
    /// `records` over all records of the file.
    pub share: f64,
    /// Always `"prosecutor"`.
    pub model: &'static str,
    /// 1 / the smallest class (0 without classes).
    pub highest: f64,
    /// Classes / records in classes (0 without classes).
    pub average: f64,
    /// Share of the records in classes whose risk exceeds `threshold`.
    pub records_at_risk: f64,
    pub threshold: f64,
}

/// Figures of the sensitive attribute.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SensitiveFigures {
    pub attribute: String,
    /// Distinct values in the whole file.
    pub values: usize,
    /// Smallest number of distinct values in a class.
    pub distinct_l: usize,
    /// Smallest exp(entropy) of a class.
    pub entropy_l: f64,
    /// Recursive (c,l): c and the largest l every class satisfies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recursive: Option<RecursiveFigure>,
    /// Largest distance of a class to the file's distribution, per ground distance.
    pub t_equal: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_ordered: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t_hierarchical: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RecursiveFigure {
    pub c: f64,
    pub l: usize,
}

/// δ-presence figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DeltaFigures {
    pub subset_records: u64,
    pub min: f64,
    pub max: f64,
}

/// The figures of one file.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Figures {
    /// Records in the file (suppressed ones included).
    pub records: u64,
    /// Records left out because every quasi-identifier is suppressed.
    pub suppressed: u64,
    pub classes: usize,
    /// Smallest class size (0 without classes).
    pub k: u64,
    /// Average class size.
    pub average_class_size: f64,
    pub smallest: Vec<SmallClass>,
    pub risk: Risk,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sensitive: Option<SensitiveFigures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<DeltaFigures>,
}

impl Figures {
    /// Derives the figures. Errors (as text) only from an unusable hierarchy.
    pub fn compute(classes: &Classes, p: &Params) -> std::result::Result<Figures, String> {
        let grouped: u64 = classes.sizes.iter().sum();
        let records = grouped + classes.suppressed;
        let k = classes.sizes.iter().copied().min().unwrap_or(0);
        let mut order: Vec<usize> = (0..classes.len()).collect();
        order.sort_by_key(|&c| (classes.sizes[c], c));
        let smallest = order
            .iter()
            .take(p.smallest)
            .map(|&c| SmallClass {
                class: c,
                size: classes.sizes[c],
                values: Vec::new(),
            })
            .collect();
        let at_risk: u64 = classes.sizes.iter().filter(|&&s| s < p.risk_k).sum();
        let risk = Risk {
            k: p.risk_k,
            records: at_risk,
            share: if records == 0 {
                0.0
            } else {
                at_risk as f64 / records as f64
            },
            model: "prosecutor",
            highest: if k == 0 { 0.0 } else { 1.0 / k as f64 },
            average: if grouped == 0 {
                0.0
            } else {
                classes.len() as f64 / grouped as f64
            },
            records_at_risk: if grouped == 0 {
                0.0
            } else {
                let over: u64 = classes
                    .sizes
                    .iter()
                    .filter(|&&s| 1.0 / s as f64 > p.risk_threshold)
                    .sum();
                over as f64 / grouped as f64
            },
            threshold: p.risk_threshold,
        };
        let sensitive = match &p.sensitive {
            None => None,
            Some(name) => Some(sensitive_figures(classes, p, name)?),
        };
        let delta = p.subset.then(|| {
            let shares = classes
                .subset
                .iter()
                .zip(&classes.sizes)
                .map(|(&s, &n)| delta::delta(s, n));
            DeltaFigures {
                subset_records: classes.subset.iter().sum(),
                min: if classes.is_empty() {
                    0.0
                } else {
                    shares.clone().fold(f64::INFINITY, f64::min)
                },
                max: shares.fold(0.0, f64::max),
            }
        });
        Ok(Figures {
            records,
            suppressed: classes.suppressed,
            classes: classes.len(),
            k,
            average_class_size: if classes.is_empty() {
                0.0
            } else {
                grouped as f64 / classes.len() as f64
            },
            smallest,
            risk,
            sensitive,
            delta,
        })
    }
}

/// Thresholds to check; each is optional.
#[derive(Debug, Clone, Default)]
pub struct Thresholds {
    pub k: Option<u64>,
    /// Distinct l-diversity (and, with `c`, recursive (c,l)-diversity).
    pub l: Option<f64>,
    pub entropy_l: Option<f64>,
    pub c: Option<f64>,
    pub t: Option<(f64, TDistance)>,
    /// (δmin, δmax).
    pub delta: Option<(f64, f64)>,
    /// Largest allowed share of records at risk ([`Params::risk_k`]).
    pub max_risk: Option<f64>,
}

/// The verdict on one threshold.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Check {
    /// The model as usually written, e.g. `entropy 3-diversity`.
    pub model: String,
    pub holds: bool,
    /// Classes (and their records) that violate it.
    pub failing_classes: u64,
    pub failing_records: u64,
}

/// Checks every threshold given, class by class, with the exact flavor of the shared models
/// (so a class passes if either tool's arithmetic would pass it). A file without classes
/// satisfies every class-level model.
pub fn checks(
    classes: &Classes,
    p: &Params,
    th: &Thresholds,
) -> std::result::Result<Vec<Check>, String> {
    let mut out = Vec::new();
    let mut check = |model: String, pass: &mut dyn FnMut(usize) -> bool| {
        let (mut fc, mut fr) = (0u64, 0u64);
        for c in 0..classes.len() {
            if !pass(c) {
                fc += 1;
                fr += classes.sizes[c];
            }
        }
        out.push(Check {
            model,
            holds: fc == 0,
            failing_classes: fc,
            failing_records: fr,
        });
    };
    let dists = &classes.distributions;
    if let Some(k) = th.k {
        check(format!("{k}-anonymity"), &mut |c| classes.sizes[c] >= k);
    }
    if let Some(l) = th.l {
        check(format!("distinct {l}-diversity"), &mut |c| {
            is_distinct_l_diverse(dists[c].view(), l)
        });
        if let Some(cc) = th.c {
            check(format!("recursive ({cc},{l})-diversity"), &mut |c| {
                is_recursive_cl_diverse(dists[c].view(), cc, l, Flavor::Exact)
            });
        }
    }
    if let Some(l) = th.entropy_l {
        check(format!("entropy {l}-diversity"), &mut |c| {
            is_entropy_l_diverse(dists[c].view(), l, Flavor::Exact)
        });
    }
    if let Some((t, distance)) = th.t {
        match distance {
            TDistance::Equal => {
                let e = EqualDistance::new(classes.table.view());
                check(format!("{t}-closeness (equal distance)"), &mut |c| {
                    e.is_close(dists[c].view(), t, Flavor::Exact)
                });
            }
            TDistance::Ordered => {
                let values = p
                    .numeric
                    .ok_or("the ordered distance needs a numeric attribute")?;
                let o = OrderedDistance::new(classes.table.view(), values);
                check(format!("{t}-closeness (ordered distance)"), &mut |c| {
                    o.is_close(dists[c].view(), t, Flavor::Exact)
                });
            }
            TDistance::Hierarchical => {
                let h = p
                    .hierarchy
                    .ok_or("the hierarchical distance needs a hierarchy")?;
                let hd = HierarchicalDistance::new(classes.table.view(), h)?;
                check(format!("{t}-closeness (hierarchical distance)"), &mut |c| {
                    hd.is_close(dists[c].view(), t, Flavor::Exact)
                });
            }
        }
    }
    if let Some((dmin, dmax)) = th.delta {
        check(format!("({dmin},{dmax})-presence"), &mut |c| {
            delta::is_delta_present(
                classes.subset[c],
                classes.sizes[c],
                dmin,
                dmax,
                Flavor::Exact,
            )
        });
    }
    if let Some(max) = th.max_risk {
        let at_risk: Vec<bool> = classes.sizes.iter().map(|&s| s < p.risk_k).collect();
        let total = classes.sizes.iter().sum::<u64>() + classes.suppressed;
        let records: u64 = classes.sizes.iter().filter(|&&s| s < p.risk_k).sum();
        let share = if total == 0 {
            0.0
        } else {
            records as f64 / total as f64
        };
        let holds = share <= max + EXACT_TOLERANCE;
        out.push(Check {
            model: format!("records at risk (classes < {}) <= {max}", p.risk_k),
            holds,
            failing_classes: if holds {
                0
            } else {
                at_risk.iter().filter(|&&r| r).count() as u64
            },
            failing_records: if holds { 0 } else { records },
        });
    }
    Ok(out)
}

fn sensitive_figures(
    classes: &Classes,
    p: &Params,
    name: &str,
) -> std::result::Result<SensitiveFigures, String> {
    let dists = &classes.distributions;
    let min_usize = |f: &mut dyn FnMut(Distribution) -> usize| {
        dists.iter().map(|d| f(d.view())).min().unwrap_or(0)
    };
    let distinct = min_usize(&mut |d| distinct_l(d));
    let entropy = dists
        .iter()
        .map(|d| entropy_l(d.view()))
        .fold(f64::INFINITY, f64::min);
    let recursive = p.c.map(|c| RecursiveFigure {
        c,
        l: min_usize(&mut |d| recursive_l(d, c)),
    });
    let max_of =
        |f: &dyn Fn(Distribution) -> f64| dists.iter().map(|d| f(d.view())).fold(0.0, f64::max);
    let equal = EqualDistance::new(classes.table.view());
    let t_equal = max_of(&|d| equal.distance(d));
    let t_ordered = p.numeric.map(|values| {
        let o = OrderedDistance::new(classes.table.view(), values);
        max_of(&|d| o.distance(d))
    });
    let t_hierarchical = match p.hierarchy {
        Some(h) => {
            let hd = HierarchicalDistance::new(classes.table.view(), h)?;
            Some(max_of(&|d| hd.distance(d)))
        }
        None => None,
    };
    Ok(SensitiveFigures {
        attribute: name.to_string(),
        values: classes.table.distinct(),
        distinct_l: distinct,
        entropy_l: if dists.is_empty() { 0.0 } else { entropy },
        recursive,
        t_equal,
        t_ordered,
        t_hierarchical,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two QIDs; classes (0,0): sensitive a,a,b; (0,1): a,b,c,c; (1,1): c; one suppressed (b).
    fn sample() -> Classes {
        let mut c = Classes::new(2);
        for (key, s, sub) in [
            (Some([0, 0]), 0, true),
            (Some([0, 0]), 0, false),
            (Some([0, 1]), 0, true),
            (Some([0, 0]), 1, false),
            (Some([0, 1]), 1, false),
            (Some([0, 1]), 2, true),
            (Some([0, 1]), 2, true),
            (Some([1, 1]), 2, false),
            (None, 1, false),
        ] {
            c.add(key.as_ref().map(|k| &k[..]), Some(s), sub);
        }
        c
    }

    #[test]
    fn class_figures_by_hand() {
        let classes = sample();
        let f = Figures::compute(
            &classes,
            &Params {
                risk_k: 3,
                risk_threshold: 0.2,
                smallest: 2,
                ..Params::default()
            },
        )
        .unwrap();
        assert_eq!(f.records, 9);
        assert_eq!(f.suppressed, 1);
        assert_eq!(f.classes, 3);
        assert_eq!(f.k, 1);
        assert_eq!(f.average_class_size, 8.0 / 3.0);
        assert_eq!(
            f.smallest
                .iter()
                .map(|s| (s.class, s.size))
                .collect::<Vec<_>>(),
            vec![(2, 1), (0, 3)]
        );
        assert_eq!(classes.key(2), &[1, 1]);
        // Classes smaller than 3: the singleton. 1 of 9 records.
        assert_eq!(f.risk.records, 1);
        assert_eq!(f.risk.share, 1.0 / 9.0);
        assert!(f.sensitive.is_none());
        assert!(f.delta.is_none());
    }

    #[test]
    fn sensitive_figures_by_hand() {
        let classes = sample();
        // Table (all 9 records): a 3, b 3, c 3.
        let values = [1.0, 2.0, 3.0];
        let rows: Vec<Vec<String>> = [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]]
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
        let h = Hierarchy::from_label_rows("s", &rows);
        let f = Figures::compute(
            &classes,
            &Params {
                risk_k: 2,
                risk_threshold: 0.2,
                smallest: 0,
                sensitive: Some("s".into()),
                c: Some(2.0),
                numeric: Some(&values),
                hierarchy: Some(&h),
                subset: true,
            },
        )
        .unwrap();
        let s = f.sensitive.unwrap();
        assert_eq!(s.values, 3);
        assert_eq!(s.distinct_l, 1, "class (1,1) holds only c");
        assert_eq!(s.entropy_l, 1.0);
        // Recursive l with c = 2: {c}: l = 1 is 1 < 2·1, holds; {a,a,b}: l = 2 is 2 < 2·1, fails.
        assert_eq!(s.recursive, Some(RecursiveFigure { c: 2.0, l: 1 }));
        // Equal: class {c}: P = (0,0,1) vs Q = (1/3,1/3,1/3): ½(1/3 + 1/3 + 2/3) = 2/3.
        assert!((s.t_equal - 2.0 / 3.0).abs() < 1e-15);
        // Ordered: {c}: cum -1/3, -2/3, 0 -> 1 / 2 = 0.5; {a,a,b}: P (2/3,1/3,0): cum 1/3, 1/3 ->
        // 1/3; {a,b,c,c}: (1/4,1/4,1/2): cum -1/12, -1/6 -> 1/8. Max 0.5.
        assert_eq!(s.t_ordered, Some(0.5));
        // Hierarchical: {c}: 2/3 surplus at c moves to the ab group at cost 1: 2/3.
        // {a,a,b}: a +1/3, b 0, c -1/3: a -> c at cost 1: 1/3. Max 2/3.
        assert!((s.t_hierarchical.unwrap() - 2.0 / 3.0).abs() < 1e-15);
        // δ: (0,0) 1/3, (0,1) 3/4, (1,1) 0.
        let d = f.delta.unwrap();
        assert_eq!(d.subset_records, 4);
        assert_eq!(d.min, 0.0);
        assert_eq!(d.max, 0.75);
    }

    #[test]
    fn entropy_and_recursive_minimum_over_classes() {
        let mut c = Classes::new(1);
        // Class 0: a,b (entropy l 2); class 1: a,a,a,b,b,c (H = 1.0114, entropy l 2.749).
        for (k, s) in [
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 0),
            (1, 0),
            (1, 1),
            (1, 1),
            (1, 2),
        ] {
            c.add(Some(&[k]), Some(s), false);
        }
        let f = Figures::compute(
            &c,
            &Params {
                sensitive: Some("s".into()),
                c: Some(1.0),
                ..Params::default()
            },
        )
        .unwrap();
        let s = f.sensitive.unwrap();
        assert_eq!(s.distinct_l, 2);
        assert_eq!(s.entropy_l, 2.0);
        // c = 1: class 0 {1,1}: l=1 1 < 2, l=2 1 < 1 no -> 1. Class 1 {3,2,1}: l=1 3 < 6, l=2
        // 3 < 3 no -> 1.
        assert_eq!(s.recursive.unwrap().l, 1);
        assert!(s.t_ordered.is_none() && s.t_hierarchical.is_none());
    }

    #[test]
    fn subset_from_keys() {
        let mut c = sample();
        assert!(c.add_subset(&[1, 1]));
        assert!(!c.add_subset(&[1, 0]));
        let f = Figures::compute(
            &c,
            &Params {
                subset: true,
                ..Params::default()
            },
        )
        .unwrap();
        assert_eq!(f.delta.unwrap().max, 1.0);
    }

    #[test]
    fn checks_count_failing_classes_and_records() {
        let classes = sample();
        let values = [1.0, 2.0, 3.0];
        let p = Params {
            risk_k: 3,
            risk_threshold: 0.2,
            sensitive: Some("s".into()),
            numeric: Some(&values),
            subset: true,
            ..Params::default()
        };
        let th = Thresholds {
            k: Some(3),
            l: Some(2.0),
            entropy_l: Some(2.0),
            c: Some(2.0),
            t: Some((0.5, TDistance::Ordered)),
            delta: Some((0.3, 0.8)),
            max_risk: Some(0.1),
        };
        let got: Vec<(String, bool, u64, u64)> = checks(&classes, &p, &th)
            .unwrap()
            .into_iter()
            .map(|c| (c.model, c.holds, c.failing_classes, c.failing_records))
            .collect();
        let want = [
            ("3-anonymity", false, 1, 1),
            ("distinct 2-diversity", false, 1, 1),
            // {a,a,b}: l = 2 is 2 < 2·1, fails; {a,b,c,c}: 2 < 2·(1+1) holds; {c} too few values.
            ("recursive (2,2)-diversity", false, 2, 4),
            // {a,a,b}: H = 0.6365 < ln 2; {a,b,c,c}: 1.0397 >= ln 2.
            ("entropy 2-diversity", false, 2, 4),
            // Ordered distances 1/3, 1/8, 1/2 (see above): all <= 0.5.
            ("0.5-closeness (ordered distance)", true, 0, 0),
            // δ: 1/3, 3/4, 0.
            ("(0.3,0.8)-presence", false, 1, 1),
            // 1 of 9 records in classes < 3: 0.111 > 0.1.
            ("records at risk (classes < 3) <= 0.1", false, 1, 1),
        ];
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert_eq!((g.0.as_str(), g.1, g.2, g.3), w);
        }
        // Without the numeric values, the ordered distance cannot be checked.
        let p = Params { numeric: None, ..p };
        assert!(checks(&classes, &p, &th).is_err());
        // No classes: every class-level model holds.
        let mut empty = Classes::new(1);
        empty.add(None, Some(0), false);
        let p = Params {
            sensitive: Some("s".into()),
            ..Params::default()
        };
        let th = Thresholds {
            k: Some(5),
            l: Some(3.0),
            ..Thresholds::default()
        };
        assert!(checks(&empty, &p, &th).unwrap().iter().all(|c| c.holds));
    }
}
