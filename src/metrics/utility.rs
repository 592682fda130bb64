//! The utility of a released table, for the report (`utility`): the seven metrics of the search
//! for every full-domain result, whichever method produced it, and the figures every method has.
//!
//! A full-domain release is measured from its classes ([`FullDomainClasses`]): items (records,
//! or distinct input tuples with their counts) are added with their leaf codes and whether they
//! were suppressed; they are grouped by their generalized ids at the release's levels, which is
//! all a metric needs. The metrics are the checker's own ([`super::build_from_counts`]) fed with
//! the same [`ClassStats`] the checker would hand them for that transformation and that
//! suppression, so the figures are the ones the Flash engine computes (a test checks it through
//! the checker). This works the same for the in-memory engine's rows and for the SQLite store's
//! `QidTuple` rows, which are streamed and never held in full: only the classes are kept.
//!
//! The figures for every method:
//! - `average_class_size`: released records (suppressed ones left out) / released classes;
//! - `discernibility` (Bayardo and Agrawal): the sum over released classes of the squared size,
//!   plus `N` for each suppressed record (`N` = all records); for a full-domain result it equals DM.
//!
//! Mondrian's `ncp` ([`interval_ncp`]) is the global certainty penalty (GCP) of Xu et al. (2006)
//! over the published intervals.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{build_from_counts, ClassStats};
use crate::data::EncodedTable;
use crate::hierarchy::vgh::Interval;
use crate::hierarchy::Hierarchy;
use crate::metrics::MetricKind;
use crate::risk::SizeCounts;

/// The utility figures of a release (JSON: `utility`). Metrics that do not apply are `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Utility {
    #[serde(rename = "DMStar")]
    pub dm_star: Option<f64>,
    #[serde(rename = "DM")]
    pub dm: Option<f64>,
    #[serde(rename = "Height")]
    pub height: Option<f64>,
    #[serde(rename = "Precision")]
    pub precision: Option<f64>,
    #[serde(rename = "Loss")]
    pub loss: Option<f64>,
    #[serde(rename = "Entropy")]
    pub entropy: Option<f64>,
    #[serde(rename = "AECS")]
    pub aecs: Option<f64>,
    /// Released records / released classes (0 without classes).
    pub average_class_size: f64,
    /// Sum of squared released class sizes + all records x suppressed records.
    pub discernibility: f64,
    /// Normalized certainty penalty of the published intervals (Mondrian), see [`interval_ncp`].
    pub ncp: Option<f64>,
    /// Microaggregation (MDAV): the sum of squared distances of the standardized numeric
    /// quasi-identifiers to their released values (`crate::algorithms::mdav`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sse: Option<f64>,
    /// Microaggregation: sdcMicro's IL1s, the mean of |x - x'| / (sqrt 2 * sd).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub il1s: Option<f64>,
}

impl Utility {
    /// The figures every method has, from the released classes' sizes and the suppressed records.
    pub fn of_classes(released: impl IntoIterator<Item = u64>, suppressed: u64) -> Utility {
        let (mut classes, mut records, mut squares) = (0u64, 0u64, 0u128);
        for n in released.into_iter().filter(|&n| n > 0) {
            classes += 1;
            records += n;
            squares += u128::from(n) * u128::from(n);
        }
        let all = u128::from(records + suppressed);
        Utility {
            average_class_size: if classes == 0 {
                0.0
            } else {
                records as f64 / classes as f64
            },
            discernibility: (squares + all * u128::from(suppressed)) as f64,
            ..Utility::default()
        }
    }

    /// The value of metric `kind` (`None` if it was not computed).
    pub fn metric(&self, kind: MetricKind) -> Option<f64> {
        match kind {
            MetricKind::DmStar => self.dm_star,
            MetricKind::Dm => self.dm,
            MetricKind::Height => self.height,
            MetricKind::Precision => self.precision,
            MetricKind::Loss => self.loss,
            MetricKind::Entropy => self.entropy,
            MetricKind::Aecs => self.aecs,
        }
    }

    fn set(&mut self, kind: MetricKind, v: f64) {
        let slot = match kind {
            MetricKind::DmStar => &mut self.dm_star,
            MetricKind::Dm => &mut self.dm,
            MetricKind::Height => &mut self.height,
            MetricKind::Precision => &mut self.precision,
            MetricKind::Loss => &mut self.loss,
            MetricKind::Entropy => &mut self.entropy,
            MetricKind::Aecs => &mut self.aecs,
        };
        *slot = Some(v);
    }
}

/// One class of a full-domain release.
#[derive(Debug, Clone)]
pub struct ReleasedClass {
    /// Records.
    pub size: u64,
    /// Suppressed (released without quasi-identifiers).
    pub suppressed: bool,
    /// Leaf codes of one of its items, kept for suppressed classes only (the metrics need them
    /// for those; empty otherwise).
    pub representative: Vec<u32>,
}

/// The classes of a full-domain release, built item by item (see the module docs), and the
/// records per leaf code (before generalization) and per input tuple.
pub struct FullDomainClasses<'a> {
    hierarchies: &'a [Hierarchy],
    levels: Vec<usize>,
    /// `leaf[column][code]`: records with that original value.
    leaf: Vec<Vec<u64>>,
    /// Generalized ids -> class, and the order classes were first seen.
    classes: FxHashMap<Vec<u32>, usize>,
    list: Vec<(Vec<u32>, ReleasedClass)>,
    /// Original tuples -> records (the classes of the input); not kept at levels 0, where the
    /// classes are the input's.
    input: FxHashMap<Vec<u32>, u64>,
    /// The same, for items of one record whose leaf codes pack into 64 bits (mixed radix,
    /// `input_radix`): one packed key per record, counted by sorting (8 bytes a record instead
    /// of some 100 bytes a distinct tuple in the map).
    input_keys: Vec<u64>,
    input_radix: Option<Vec<u64>>,
    identity: bool,
    /// The input's classes when every item is a distinct tuple ([`Self::over_tuples`]): the
    /// number of items of each size, no map of tuples.
    tuple_sizes: Option<FxHashMap<u64, u64>>,
    key: Vec<u32>,
}

impl<'a> FullDomainClasses<'a> {
    /// An empty release of the transformation `levels` over `hierarchies`.
    pub fn new(hierarchies: &'a [Hierarchy], levels: &[usize]) -> FullDomainClasses<'a> {
        FullDomainClasses {
            hierarchies,
            levels: levels.to_vec(),
            leaf: hierarchies.iter().map(|h| vec![0; h.leaves()]).collect(),
            classes: FxHashMap::default(),
            list: Vec::new(),
            input: FxHashMap::default(),
            input_keys: Vec::new(),
            input_radix: {
                let mut mult = Vec::with_capacity(hierarchies.len());
                let mut radix: u128 = 1;
                for h in hierarchies {
                    mult.push(radix as u64);
                    radix = radix.saturating_mul(h.leaves().max(1) as u128);
                }
                (radix <= u64::MAX as u128).then_some(mult)
            },
            identity: levels.iter().all(|&l| l == 0),
            tuple_sizes: None,
            key: Vec::with_capacity(levels.len()),
        }
    }

    /// [`Self::new`] for items that are distinct tuples (the store's `QidTuple`): each item is
    /// a class of the input, so the input's classes take 8 bytes an item instead of a map of
    /// boxed tuples (some 100 bytes a tuple, gigabytes at tens of millions of tuples).
    pub fn over_tuples(hierarchies: &'a [Hierarchy], levels: &[usize]) -> FullDomainClasses<'a> {
        let mut c = FullDomainClasses::new(hierarchies, levels);
        c.tuple_sizes = Some(FxHashMap::default());
        c
    }

    /// The released rows of an in-memory table at `levels`, `suppressed[row]` (shorter or empty:
    /// not suppressed).
    pub fn of_table(
        table: &'a EncodedTable,
        levels: &[usize],
        suppressed: &[bool],
    ) -> FullDomainClasses<'a> {
        let mut codes = Vec::with_capacity(table.width());
        if table.subset().is_some() {
            // Record by record: classes in order of their first released record.
            let mut c = FullDomainClasses::new(&table.hierarchies, levels);
            for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
                codes.clear();
                codes.extend(table.row(r));
                c.add(&codes, 1, suppressed.get(r).copied().unwrap_or(false));
            }
            return c;
        }
        // Tuple by tuple (every record released, so tuple order is first-appearance order).
        // The records of a tuple share its class, so they are suppressed together.
        let mut records = vec![0u64; table.tuples()];
        let mut out = vec![false; table.tuples()];
        for (r, &t) in table.record_tuples().iter().enumerate() {
            records[t as usize] += 1;
            out[t as usize] |= suppressed.get(r).copied().unwrap_or(false);
        }
        let mut c = FullDomainClasses::over_tuples(&table.hierarchies, levels);
        for (t, (&n, &s)) in records.iter().zip(&out).enumerate() {
            codes.clear();
            codes.extend(table.tuple(t));
            c.add(&codes, n, s);
        }
        c
    }

    /// Adds `records` records with the leaf codes `codes`.
    pub fn add(&mut self, codes: &[u32], records: u64, suppressed: bool) {
        self.key.clear();
        for (j, ((&code, h), &level)) in codes
            .iter()
            .zip(self.hierarchies)
            .zip(&self.levels)
            .enumerate()
        {
            self.leaf[j][code as usize] += records;
            self.key.push(h.get(code, level));
        }
        match self.classes.get(self.key.as_slice()) {
            Some(&i) => {
                let c = &mut self.list[i].1;
                c.size += records;
                if suppressed && !c.suppressed {
                    c.suppressed = true;
                    c.representative = codes.to_vec();
                }
            }
            None => {
                self.classes.insert(self.key.clone(), self.list.len());
                self.list.push((
                    self.key.clone(),
                    ReleasedClass {
                        size: records,
                        suppressed,
                        representative: if suppressed {
                            codes.to_vec()
                        } else {
                            Vec::new()
                        },
                    },
                ));
            }
        }
        if let Some(sizes) = &mut self.tuple_sizes {
            *sizes.entry(records).or_insert(0) += 1;
            return;
        }
        if self.identity {
            return;
        }
        if let (Some(mult), 1) = (&self.input_radix, records) {
            let key = codes.iter().zip(mult).map(|(&c, &m)| c as u64 * m).sum();
            self.input_keys.push(key);
            return;
        }
        match self.input.get_mut(codes) {
            Some(n) => *n += records,
            None => {
                self.input.insert(codes.to_vec(), records);
            }
        }
    }

    pub fn levels(&self) -> &[usize] {
        &self.levels
    }

    pub fn hierarchies(&self) -> &[Hierarchy] {
        self.hierarchies
    }

    /// Classes in order of first appearance: generalized ids and class.
    pub fn classes(&self) -> &[(Vec<u32>, ReleasedClass)] {
        &self.list
    }

    /// Records per leaf code of `column`.
    pub fn leaf_counts(&self, column: usize) -> &[u64] {
        &self.leaf[column]
    }

    /// Sizes of the released (not suppressed) classes.
    pub fn released_sizes(&self) -> Vec<u64> {
        self.list
            .iter()
            .filter(|(_, c)| !c.suppressed)
            .map(|(_, c)| c.size)
            .collect()
    }

    /// Sizes of the classes of the input (distinct original tuples).
    pub fn input_sizes(&self) -> SizeCounts {
        if let Some(sizes) = &self.tuple_sizes {
            return SizeCounts::from_counts(sizes.iter().map(|(&n, &c)| (n, c)));
        }
        if self.identity {
            return SizeCounts::from_sizes(self.list.iter().map(|(_, c)| c.size));
        }
        let mut keys = self.input_keys.clone();
        keys.sort_unstable();
        // A tuple may have come both ways (packed one record at a time, and in the map).
        let mut sizes: FxHashMap<u64, u64> = FxHashMap::default();
        let mut out: Vec<u64> = Vec::new();
        let mult = self.input_radix.as_deref().unwrap_or(&[]);
        for (codes, &n) in &self.input {
            if mult.is_empty() {
                out.push(n);
            } else {
                let key = codes.iter().zip(mult).map(|(&c, &m)| c as u64 * m).sum();
                *sizes.entry(key).or_insert(0) += n;
            }
        }
        for run in keys.chunk_by(|a, b| a == b) {
            match sizes.remove(&run[0]) {
                Some(n) => out.push(n + run.len() as u64),
                None => out.push(run.len() as u64),
            }
        }
        out.extend(sizes.into_values());
        SizeCounts::from_sizes(out)
    }

    /// Records in suppressed classes.
    pub fn suppressed_records(&self) -> u64 {
        self.list
            .iter()
            .filter(|(_, c)| c.suppressed)
            .map(|(_, c)| c.size)
            .sum()
    }

    /// The seven metrics and the figures of every method (see the module docs).
    pub fn utility(&self) -> Utility {
        let suppressed = self.suppressed_records();
        let mut u = Utility::of_classes(self.released_sizes(), suppressed);
        // The representatives of the outlier classes, as a table the metrics can read.
        let outlier_classes: Vec<&ReleasedClass> = self
            .list
            .iter()
            .map(|(_, c)| c)
            .filter(|c| c.suppressed)
            .collect();
        let reps = EncodedTable::new(
            outlier_classes
                .iter()
                .flat_map(|c| c.representative.iter().copied())
                .collect(),
            self.hierarchies.to_vec(),
            Vec::new(),
        );
        let outliers: Vec<(u32, u32)> = outlier_classes
            .iter()
            .enumerate()
            .map(|(i, c)| (reps.tuple_of(i) as u32, c.size as u32))
            .collect();
        let square = |n: u64| n * n;
        let sum_sq_all: u64 = self.list.iter().map(|(_, c)| square(c.size)).sum();
        let kept = self.list.len() - outliers.len();
        let stats = ClassStats {
            rows: self.leaf.first().map_or(0, |c| c.iter().sum()),
            suppressed,
            kept_classes: kept as u64,
            all_classes: self.list.len() as u64,
            sum_sq_all,
            sum_sq_kept: self
                .list
                .iter()
                .filter(|(_, c)| !c.suppressed)
                .map(|(_, c)| square(c.size))
                .sum(),
            sum_sq_raised: sum_sq_all,
            outliers: &outliers,
        };
        for kind in MetricKind::ALL {
            let metric = build_from_counts(kind, self.hierarchies, &self.leaf);
            u.set(kind, metric.evaluate(&reps, &self.levels, &stats));
        }
        u
    }
}

/// The normalized certainty penalty of a release whose classes publish intervals: the global
/// certainty penalty (GCP) of Xu et al. (2006), measured on the published intervals. For a
/// record whose class publishes the interval `I` of quasi-identifier `j` whose VGH root is `R`,
/// `NCP_j = (high(I) - low(I)) / (high(R) - low(R))` (0 for a single point or a root of width 0,
/// at most 1); the result is the average of `NCP_j` over the released records and the
/// quasi-identifiers: 0 when every value is published exactly, 1 when every value is the root.
/// `classes` are `(one interval per quasi-identifier, records)`.
pub fn interval_ncp(classes: &[(Vec<Interval>, u64)], roots: &[Interval]) -> f64 {
    let (mut penalty, mut records) = (0.0f64, 0u64);
    for (intervals, size) in classes {
        let sum: f64 = intervals
            .iter()
            .zip(roots)
            .map(|(i, r)| {
                let width = r.high - r.low;
                if width > 0.0 {
                    ((i.high - i.low) / width).clamp(0.0, 1.0)
                } else {
                    0.0
                }
            })
            .sum();
        penalty += *size as f64 * sum;
        records += size;
    }
    if records == 0 || roots.is_empty() {
        0.0
    } else {
        penalty / (records as f64 * roots.len() as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::tests::h;

    /// Six records of two attributes: A in {a, b, c, d} (a, b -> ab; c, d -> cd; then *),
    /// B in {x, y} (then *). Records: (a,x) (a,x) (b,x) (c,y) (c,y) (d,y).
    fn hierarchies() -> Vec<Hierarchy> {
        vec![
            h(
                "A",
                &[
                    &["a", "ab", "*"],
                    &["b", "ab", "*"],
                    &["c", "cd", "*"],
                    &["d", "cd", "*"],
                ],
            ),
            h("B", &[&["x", "*"], &["y", "*"]]),
        ]
    }

    const ROWS: [[u32; 2]; 6] = [[0, 0], [0, 0], [1, 0], [2, 1], [2, 1], [3, 1]];

    /// Levels (0, 0) with k = 2: classes (a,x) 2, (b,x) 1, (c,y) 2, (d,y) 1; the two singletons
    /// suppressed. Every figure by hand.
    #[test]
    fn seven_metrics_by_hand_with_suppression() {
        let hs = hierarchies();
        let mut c = FullDomainClasses::new(&hs, &[0, 0]);
        for r in ROWS {
            let suppressed = r == [1, 0] || r == [3, 1];
            c.add(&r, 1, suppressed);
        }
        let u = c.utility();
        // DM*: 4 + 1 + 4 + 1 = 10. DM: 4 + 4 + 6 * 2 = 20. Height: 0.
        assert_eq!(u.dm_star, Some(10.0));
        assert_eq!(u.dm, Some(20.0));
        assert_eq!(u.height, Some(0.0));
        // Precision: per attribute (kept * 0 + suppressed 2) / 6 = 1/3; average 1/3.
        assert!((u.precision.unwrap() - 1.0 / 3.0).abs() < 1e-15);
        // Loss (|dom| 4 and 2): A: kept 4 records with share 1/4 + 2 suppressed (1 each) =
        // 3, min 6/4: (3 - 1.5) / (6 - 1.5) = 1/3. B: kept 4 * 1/2 + 2 = 4, min 3: (4 - 3) /
        // (6 - 3) = 1/3. Geometric mean: sqrt(4/3 * 4/3) - 1 = 1/3.
        assert!((u.loss.unwrap() - 1.0 / 3.0).abs() < 1e-9, "{:?}", u.loss);
        // Entropy: level 0 costs 0; the two suppressed records have distinct A values (b, d):
        // 2 bits, and distinct B values (x, y): 2 bits. Total 4.
        assert!((u.entropy.unwrap() - 4.0).abs() < 1e-9, "{:?}", u.entropy);
        // AECS: 6 records / (2 kept classes + 1 for the suppressed) = 2.
        assert_eq!(u.aecs, Some(2.0));
        // Released: two classes of 2 -> average 2; discernibility = DM.
        assert_eq!(u.average_class_size, 2.0);
        assert_eq!(u.discernibility, 20.0);
        assert_eq!(c.released_sizes(), vec![2, 2]);
        let input: Vec<u64> = c.input_sizes().iter().collect();
        assert_eq!(input, vec![1, 1, 2, 2]);
    }

    /// Levels (1, 0), nothing suppressed: classes (ab,x) 3 and (cd,y) 3.
    #[test]
    fn generalized_without_suppression() {
        let hs = hierarchies();
        let mut c = FullDomainClasses::new(&hs, &[1, 0]);
        // Items may be tuples with counts: the same figures as record by record.
        c.add(&[0, 0], 2, false);
        c.add(&[1, 0], 1, false);
        c.add(&[2, 1], 2, false);
        c.add(&[3, 1], 1, false);
        let u = c.utility();
        assert_eq!((u.dm_star, u.dm), (Some(18.0), Some(18.0)));
        assert_eq!(u.height, Some(1.0));
        // Precision: A 1/2, B 0 -> 1/4.
        assert_eq!(u.precision, Some(0.25));
        // Loss: A every record shares 2/4: sum 3, (3 - 1.5) / 4.5 = 1/3; B 0.
        // sqrt(4/3) - 1.
        let want = (4.0f64 / 3.0).sqrt() - 1.0;
        assert!((u.loss.unwrap() - want).abs() < 1e-9);
        // Entropy of A at level 1: class ab holds a 2, b 1: -(2 log2 2/3 + log2 1/3); cd the same.
        let e = -2.0 * (2.0 * (2.0f64 / 3.0).log2() + (1.0f64 / 3.0).log2());
        assert!((u.entropy.unwrap() - e).abs() < 1e-9);
        assert_eq!(u.aecs, Some(3.0));
        assert_eq!((u.average_class_size, u.discernibility), (3.0, 18.0));
    }

    #[test]
    fn figures_of_any_partition() {
        // Classes 3 and 5 released, 2 records suppressed out of 10.
        let u = Utility::of_classes([3, 5], 2);
        assert_eq!(u.average_class_size, 4.0);
        assert_eq!(u.discernibility, (9 + 25 + 10 * 2) as f64);
        assert_eq!(u.loss, None);
    }

    #[test]
    fn ncp_of_intervals() {
        let root = Interval::parse("[0:100)").unwrap();
        let sex = Interval::parse("[0:1]").unwrap();
        // 3 records in [0:50) x [0:1] (0.5, 1), 1 record in [50:60] x [1] (0.1, 0).
        let classes = vec![
            (vec![Interval::parse("[0.0:50.0)").unwrap(), sex], 3),
            (
                vec![
                    Interval::parse("[50.0:60.0]").unwrap(),
                    Interval::parse("[1]").unwrap(),
                ],
                1,
            ),
        ];
        let v = interval_ncp(&classes, &[root, sex]);
        let want = (3.0 * 1.5 + 0.1) / (4.0 * 2.0);
        assert!((v - want).abs() < 1e-12, "{v}");
    }
}
