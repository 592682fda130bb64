//! Utility metrics: the information loss of a transformation, exactly as ARX reports it.
//!
//! With a research subset (δ-presence) every metric measures the released data, the subset's
//! records, as ARX does: `rows` and the per-level constants count them only.
//!
//! Definitions: `../shared/ARX-SEMANTICS.md` (DM*, DM, Height, Precision, Loss, non-uniform
//! Entropy) and ARX's `MetricSDAECS` (AECS = records / (kept classes + 1 if any record is
//! suppressed)). Every metric is built once per table ([`build`]); what depends only on a
//! column's level is precomputed then, so evaluating a checked transformation touches only the
//! aggregate class statistics and the few suppressed classes ([`ClassStats`]):
//!
//! - Loss: per attribute the sum of domain shares over *all* records at each level is a constant
//!   `S(l)` (an integer numerator over `|dom|`); the kept records' sum is `S(l)` minus the
//!   suppressed classes' shares, plus one per suppressed record.
//! - Entropy: the entropy over all records at each level is a constant; suppression adds a term
//!   over the suppressed records only.
//!
//! Lower bounds make the search global for metrics that are not monotonic under suppression
//! (every metric but DM* and Height once records may be suppressed):
//! - [`Metric::level_bound`] depends on the levels alone and bounds the loss of that transformation
//!   whatever is suppressed (Height, Precision, Loss, Entropy: the value without suppression,
//!   computed with the same floating-point formula, so the bound holds exactly).
//! - [`Metric::class_bound`] comes from a checked transformation's classes and bounds the loss of
//!   every generalization of it (DM*, DM: DM*, since a suppressed class costs `n|E| >= |E|^2` and
//!   merging classes only increases the sum of squares; AECS: records / all classes).

mod kind;
pub mod score;
pub mod utility;

use crate::data::EncodedTable;
use crate::hierarchy::Hierarchy;

pub use kind::MetricKind;
pub use utility::{FullDomainClasses, Utility};

/// Class statistics of one checked transformation, as the checker hands them to a metric.
#[derive(Debug, Clone, Copy)]
pub struct ClassStats<'a> {
    /// Records in the table.
    pub rows: u64,
    /// Records in outlier classes (suppressed if the transformation is valid).
    pub suppressed: u64,
    /// Classes that are not outliers.
    pub kept_classes: u64,
    /// All classes, outliers included.
    pub all_classes: u64,
    /// Sum of squared class sizes over all classes.
    pub sum_sq_all: u64,
    /// Sum of squared class sizes over kept classes.
    pub sum_sq_kept: u64,
    /// Sum over all classes of `|C| * max(|C|, m)`, `m` = min(smallest class a criterion can
    /// accept, rows): a lower bound of DM for every generalization (a record of `C` ends in a
    /// kept class of at least `max(|C|, m)` records or costs `n`).
    pub sum_sq_raised: u64,
    /// `(representative distinct tuple of the table, size)` of every outlier class.
    pub outliers: &'a [(u32, u32)],
}

/// A utility metric, precomputed for one table.
pub trait Metric: Send + Sync {
    fn kind(&self) -> MetricKind;

    /// True if no generalization has a smaller loss. `with_suppression`: records may be
    /// suppressed (budget > 0).
    fn is_monotonic(&self, with_suppression: bool) -> bool;

    /// A lower bound of the loss of the transformation `levels`, from the levels alone
    /// (0 when the metric has none).
    fn level_bound(&self, _levels: &[usize]) -> f64 {
        0.0
    }

    /// A lower bound of the loss of every generalization of a checked transformation
    /// (itself included), from its classes; `None` when the metric has none.
    fn class_bound(&self, _stats: &ClassStats<'_>) -> Option<f64> {
        None
    }

    /// True if [`class_bound`](Self::class_bound) returns a bound.
    fn has_class_bound(&self) -> bool {
        false
    }

    /// Relative slack a bound must exceed the best loss by before it prunes: 0 for metrics
    /// computed exactly (integers), a little more than rounding error for the others.
    fn bound_slack(&self) -> f64 {
        1e-12
    }

    /// The information loss of a valid transformation.
    fn evaluate(&self, table: &EncodedTable, levels: &[usize], stats: &ClassStats<'_>) -> f64;

    /// Where a class of `count` records whose representative is the table's tuple `tuple`
    /// stands among the classes of its size that the models of the class sizes may suppress
    /// at `levels`, smaller first (`check::sizes`): ARX's order, the class's own loss for Loss,
    /// none (0) for the metrics ARX orders by representative only.
    fn suppression_order(
        &self,
        _table: &EncodedTable,
        _levels: &[usize],
        _tuple: u32,
        _count: u64,
    ) -> f64 {
        0.0
    }
}

/// Builds the metric `kind` for `table`.
pub fn build(kind: MetricKind, table: &EncodedTable) -> Box<dyn Metric> {
    match kind {
        MetricKind::DmStar => Box::new(DmStar),
        MetricKind::Dm => Box::new(Dm),
        MetricKind::Height => Box::new(Height),
        MetricKind::Precision => Box::new(Precision::new(table)),
        MetricKind::Loss => Box::new(Loss::new(table)),
        MetricKind::Entropy => Box::new(Entropy::new(table)),
        MetricKind::Aecs => Box::new(Aecs),
    }
}

/// Builds the metric `kind` for records whose leaf codes are counted in `counts`
/// (`counts[column][code]`, as [`leaf_counts`] counts a table's released records): for tables
/// kept elsewhere, e.g. the distinct tuples of the SQLite store with their counts.
pub fn build_from_counts(
    kind: MetricKind,
    hierarchies: &[Hierarchy],
    counts: &[Vec<u64>],
) -> Box<dyn Metric> {
    match kind {
        MetricKind::Precision => Box::new(Precision::with_rows(hierarchies, records_of(counts))),
        MetricKind::Loss => Box::new(Loss::from_counts(hierarchies, counts)),
        MetricKind::Entropy => Box::new(Entropy::from_counts(hierarchies, counts)),
        MetricKind::DmStar => Box::new(DmStar),
        MetricKind::Dm => Box::new(Dm),
        MetricKind::Height => Box::new(Height),
        MetricKind::Aecs => Box::new(Aecs),
    }
}

/// Records counted by leaf counts (those of the first column; 0 without columns).
fn records_of(counts: &[Vec<u64>]) -> u64 {
    counts.first().map_or(0, |c| c.iter().sum())
}

/// Truncation to 10 decimals, as ARX rounds Loss and Entropy per attribute.
fn truncate10(v: f64) -> f64 {
    (v * 1e10).floor() / 1e10
}

/// Released records per leaf code of every quasi-identifier column.
pub fn leaf_counts(table: &EncodedTable) -> Vec<Vec<u64>> {
    let mut counts: Vec<Vec<u64>> = table
        .hierarchies
        .iter()
        .map(|h| vec![0; h.leaves()])
        .collect();
    let mut per_tuple = vec![0u64; table.tuples()];
    for (r, &t) in table.record_tuples().iter().enumerate() {
        per_tuple[t as usize] += u64::from(table.is_released(r));
    }
    for (j, col) in counts.iter_mut().enumerate() {
        for (c, &n) in table.column(j).iter().zip(&per_tuple) {
            col[c as usize] += n;
        }
    }
    counts
}

/// DM*: sum of squared class sizes, suppressed classes included; ignores suppression.
pub struct DmStar;

impl Metric for DmStar {
    fn kind(&self) -> MetricKind {
        MetricKind::DmStar
    }
    fn bound_slack(&self) -> f64 {
        0.0
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        true
    }
    fn has_class_bound(&self) -> bool {
        true
    }
    fn class_bound(&self, s: &ClassStats<'_>) -> Option<f64> {
        Some(s.sum_sq_all as f64)
    }
    fn evaluate(&self, _t: &EncodedTable, _levels: &[usize], s: &ClassStats<'_>) -> f64 {
        s.sum_sq_all as f64
    }
}

/// DM: squared sizes of kept classes plus `n * |E|` per suppressed class.
pub struct Dm;

impl Metric for Dm {
    fn kind(&self) -> MetricKind {
        MetricKind::Dm
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        !with_suppression
    }
    fn has_class_bound(&self) -> bool {
        true
    }
    fn bound_slack(&self) -> f64 {
        0.0
    }
    fn class_bound(&self, s: &ClassStats<'_>) -> Option<f64> {
        Some(s.sum_sq_raised as f64)
    }
    fn evaluate(&self, _t: &EncodedTable, _levels: &[usize], s: &ClassStats<'_>) -> f64 {
        (s.sum_sq_kept + s.rows * s.suppressed) as f64
    }
}

/// Height: sum of the levels.
pub struct Height;

impl Metric for Height {
    fn kind(&self) -> MetricKind {
        MetricKind::Height
    }
    fn bound_slack(&self) -> f64 {
        0.0
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        true
    }
    fn level_bound(&self, levels: &[usize]) -> f64 {
        levels.iter().sum::<usize>() as f64
    }
    fn evaluate(&self, _t: &EncodedTable, levels: &[usize], _s: &ClassStats<'_>) -> f64 {
        self.level_bound(levels)
    }
}

/// AECS: records / (kept classes + 1 if any record is suppressed).
pub struct Aecs;

impl Metric for Aecs {
    fn kind(&self) -> MetricKind {
        MetricKind::Aecs
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        !with_suppression
    }
    fn has_class_bound(&self) -> bool {
        true
    }
    fn class_bound(&self, s: &ClassStats<'_>) -> Option<f64> {
        Some(s.rows as f64 / s.all_classes.max(1) as f64)
    }
    fn evaluate(&self, _t: &EncodedTable, _levels: &[usize], s: &ClassStats<'_>) -> f64 {
        let groups = s.kept_classes + u64::from(s.suppressed > 0);
        s.rows as f64 / groups.max(1) as f64
    }
}

/// Precision: per attribute (kept * level/max + suppressed) / n, averaged.
pub struct Precision {
    rows: u64,
    max: Vec<usize>,
}

impl Precision {
    pub fn new(table: &EncodedTable) -> Precision {
        Precision::with_rows(&table.hierarchies, table.records() as u64)
    }

    /// Precision of `rows` records generalized by `hierarchies`.
    pub fn with_rows(hierarchies: &[Hierarchy], rows: u64) -> Precision {
        Precision {
            rows,
            max: hierarchies.iter().map(|h| h.max_level()).collect(),
        }
    }

    fn value(&self, levels: &[usize], rows: u64, suppressed: u64) -> f64 {
        let kept = rows - suppressed;
        let sum: f64 = levels
            .iter()
            .zip(&self.max)
            .map(|(&l, &m)| {
                let g = if m == 0 {
                    0.0
                } else {
                    (kept * l as u64) as f64 / m as f64
                };
                (g + suppressed as f64) / rows.max(1) as f64
            })
            .sum();
        sum / levels.len().max(1) as f64
    }
}

impl Metric for Precision {
    fn kind(&self) -> MetricKind {
        MetricKind::Precision
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        !with_suppression
    }
    fn level_bound(&self, levels: &[usize]) -> f64 {
        // The same formula without suppression: a suppressed record costs 1 >= level/max.
        self.value(levels, self.rows, 0)
    }
    fn evaluate(&self, _t: &EncodedTable, levels: &[usize], s: &ClassStats<'_>) -> f64 {
        self.value(levels, s.rows, s.suppressed)
    }
}

/// Loss: domain shares per attribute, normalized, truncated, geometric mean (ARX's default).
pub struct Loss {
    rows: u64,
    /// `|dom|` per attribute (rows of the hierarchy).
    dom: Vec<u64>,
    /// `all[j][l]`: sum over all records of `group[j][l][id(record)]`.
    all: Vec<Vec<u64>>,
    /// `share[j][l][id]`: how many leaves of attribute j (weighted by their hierarchy lines)
    /// have the value `id` at level l, so that a suppressed record's share is two lookups by its
    /// row's code (the hierarchy's, then this one). Kept per value, not per leaf: a column of
    /// two million distinct leaves would otherwise hold a `u64` per leaf and level (64 MB).
    share: Vec<Vec<Vec<u64>>>,
    /// ARX's generalization and suppression factors `(g, s)` of a gs-factor other than 0.5
    /// ([`Loss::with_gs_factor`]); `None`: 0.5, both 1.
    gs: Option<(f64, f64)>,
}

impl Loss {
    pub fn new(table: &EncodedTable) -> Loss {
        Loss::from_counts(&table.hierarchies, &leaf_counts(table))
    }

    /// Loss of the records counted in `counts` (see [`build_from_counts`]).
    pub fn from_counts(hierarchies: &[Hierarchy], counts: &[Vec<u64>]) -> Loss {
        let mut all = Vec::new();
        let mut share = Vec::new();
        for (h, cnt) in hierarchies.iter().zip(counts) {
            let mut aj = Vec::new();
            let mut sj = Vec::new();
            for l in 0..h.levels() {
                // Leaves weighted by their lines in the hierarchy file (ARX's domain).
                let mut g = vec![0u64; h.width(l)];
                for code in 0..h.leaves() as u32 {
                    g[h.get(code, l) as usize] += h.repeats(code);
                }
                let a = (0..h.leaves() as u32)
                    .map(|c| cnt[c as usize] * g[h.get(c, l) as usize])
                    .sum();
                sj.push(g);
                aj.push(a);
            }
            all.push(aj);
            share.push(sj);
        }
        Loss {
            rows: records_of(counts),
            dom: hierarchies.iter().map(|h| h.lines()).collect(),
            all,
            share,
            gs: None,
        }
    }

    /// The same metric weighting generalization against suppression by ARX's gs-factor `f` in
    /// [0, 1] (`MetricMDNMLoss(gsFactor)`): below 0.5 a kept record costs its share and a
    /// suppressed one `share + 2f (1 - share)` (suppression is cheaper, free at 0); above, a
    /// kept record costs `(1 - 2(f - 0.5))` times its share and a suppressed one 1. Each
    /// attribute is normalized from `g n / |dom|` (g the generalization factor) to `n`. Local
    /// recoding searches with it (ARX's default 0.05); 0.5 is the plain metric.
    pub fn with_gs_factor(mut self, f: f64) -> Loss {
        let s = if f < 0.5 { 2.0 * f } else { 1.0 };
        let g = if f <= 0.5 { 1.0 } else { 1.0 - 2.0 * (f - 0.5) };
        self.gs = (f != 0.5).then_some((g, s));
        self
    }

    /// Loss with factors `(g, s)` of one attribute whose kept records' shares sum to `kept`
    /// and whose suppressed ones to `removed` (both over `|dom|`) with `suppressed` records.
    fn attribute_gs(
        &self,
        j: usize,
        (g, s): (f64, f64),
        kept: u64,
        removed: u64,
        suppressed: u64,
    ) -> f64 {
        let n = self.rows as f64;
        let dom = self.dom[j] as f64;
        let sup = if s == 1.0 {
            suppressed as f64
        } else {
            let share = removed as f64 / dom;
            share + s * (suppressed as f64 - share)
        };
        let sum = g * (kept as f64 / dom) + sup;
        let min = g * n / dom;
        let denom = n - min;
        if denom <= 0.0 {
            return 0.0;
        }
        truncate10(((sum - min) / denom).max(0.0))
    }

    /// ARX's Loss of a release whose records keep levels of their own (local recoding), from
    /// each distinct tuple of `table` with its records and its levels (`None`: suppressed):
    /// per attribute the records' domain shares at their own levels summed (1 for a suppressed
    /// record), normalized and truncated as [`Metric::evaluate`] does, and their geometric
    /// mean. This is 1 minus ARX's granularity of an output per attribute, aggregated as the
    /// Loss metric; for one transformation it equals the metric. Returns the aggregate and the
    /// value of each attribute.
    pub fn of_parts<'a>(
        &self,
        table: &EncodedTable,
        parts: impl IntoIterator<Item = (usize, u64, Option<&'a [usize]>)>,
    ) -> (f64, Vec<f64>) {
        let d = table.width();
        let mut num = vec![0u64; d];
        for (t, count, levels) in parts {
            match levels {
                None => {
                    for (n, &dom) in num.iter_mut().zip(&self.dom) {
                        *n += count * dom;
                    }
                }
                Some(levels) => {
                    for ((j, code), &l) in table.tuple(t).enumerate().zip(levels) {
                        let h = &table.hierarchies[j];
                        num[j] += count * self.share[j][l][h.get(code, l) as usize];
                    }
                }
            }
        }
        let per: Vec<f64> = num
            .iter()
            .enumerate()
            .map(|(j, &n)| self.attribute(j, n))
            .collect();
        (Loss::aggregate(per.iter().copied(), d), per)
    }

    /// Normalized, clamped, truncated loss of one attribute whose share numerator is `num`
    /// (the sum is `num / |dom|`).
    fn attribute(&self, j: usize, num: u64) -> f64 {
        let n = self.rows as f64;
        let dom = self.dom[j] as f64;
        let sum = num as f64 / dom;
        let min = n / dom;
        let denom = n - min;
        if denom <= 0.0 {
            return 0.0;
        }
        truncate10(((sum - min) / denom).max(0.0))
    }

    /// Per attribute, the released records' shares over `|dom|` as an integer numerator: the
    /// kept records' shares at `levels`, and one (`|dom|`) per suppressed record.
    pub(crate) fn numerators(
        &self,
        table: &EncodedTable,
        levels: &[usize],
        s: &ClassStats<'_>,
    ) -> Vec<u64> {
        let removed = self.removed(table, levels, s);
        levels
            .iter()
            .enumerate()
            .map(|(j, &l)| self.all[j][l] - removed[j] + s.suppressed * self.dom[j])
            .collect()
    }

    /// Per attribute, the suppressed records' shares of its domain: one pass over their rows
    /// (each row read once).
    fn removed(&self, table: &EncodedTable, levels: &[usize], s: &ClassStats<'_>) -> Vec<u64> {
        let shares: Vec<(&Hierarchy, usize, &[u64])> = levels
            .iter()
            .enumerate()
            .map(|(j, &l)| (&table.hierarchies[j], l, &self.share[j][l][..]))
            .collect();
        let mut removed = vec![0u64; levels.len()];
        for &(rep, c) in s.outliers {
            let row = table.tuple(rep as usize);
            for ((r, &(h, l, share)), code) in removed.iter_mut().zip(&shares).zip(row) {
                *r += c as u64 * share[h.get(code, l) as usize];
            }
        }
        removed
    }

    fn aggregate(values: impl Iterator<Item = f64>, d: usize) -> f64 {
        let p: f64 = values.map(|v| v + 1.0).product();
        p.powf(1.0 / d.max(1) as f64) - 1.0
    }
}

impl Metric for Loss {
    fn kind(&self) -> MetricKind {
        MetricKind::Loss
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        !with_suppression
    }
    fn level_bound(&self, levels: &[usize]) -> f64 {
        if let Some(gs) = self.gs {
            // A suppressed record costs at least g times its share (see `with_gs_factor`).
            return Loss::aggregate(
                levels
                    .iter()
                    .enumerate()
                    .map(|(j, &l)| self.attribute_gs(j, gs, self.all[j][l], 0, 0)),
                levels.len(),
            );
        }
        // Without suppression; a suppressed record contributes |dom|/|dom| >= its share.
        Loss::aggregate(
            levels
                .iter()
                .enumerate()
                .map(|(j, &l)| self.attribute(j, self.all[j][l])),
            levels.len(),
        )
    }
    fn evaluate(&self, table: &EncodedTable, levels: &[usize], s: &ClassStats<'_>) -> f64 {
        if let Some(gs) = self.gs {
            let removed = self.removed(table, levels, s);
            return Loss::aggregate(
                levels.iter().enumerate().map(|(j, &l)| {
                    self.attribute_gs(j, gs, self.all[j][l] - removed[j], removed[j], s.suppressed)
                }),
                levels.len(),
            );
        }
        let nums = self.numerators(table, levels, s);
        Loss::aggregate(
            nums.iter()
                .enumerate()
                .map(|(j, &num)| self.attribute(j, num)),
            levels.len(),
        )
    }
    /// ARX's loss of one class (`MetricMDNMLoss` on an entry): per attribute the class's
    /// records times its value's domain share, not normalized, aggregated as the geometric
    /// mean of `1 + x` per attribute, minus 1.
    fn suppression_order(
        &self,
        table: &EncodedTable,
        levels: &[usize],
        tuple: u32,
        count: u64,
    ) -> f64 {
        let d = levels.len().max(1) as f64;
        let mut p = 1.0;
        for ((j, &l), code) in levels.iter().enumerate().zip(table.tuple(tuple as usize)) {
            let h = &table.hierarchies[j];
            let share = self.share[j][l][h.get(code, l) as usize] as f64 / self.dom[j] as f64;
            p *= (count as f64 * share + 1.0).powf(1.0 / d);
        }
        p - 1.0
    }
}

/// Non-uniform entropy (bits), per attribute truncated to 10 decimals, summed.
pub struct Entropy {
    /// `base[j][l]`: -sum_v a_v log2(a_v / b_g(v)) over all records.
    base: Vec<Vec<f64>>,
}

impl Entropy {
    pub fn new(table: &EncodedTable) -> Entropy {
        Entropy::from_counts(&table.hierarchies, &leaf_counts(table))
    }

    /// Entropy of the records counted in `counts` (see [`build_from_counts`]).
    pub fn from_counts(hierarchies: &[Hierarchy], counts: &[Vec<u64>]) -> Entropy {
        let base = hierarchies
            .iter()
            .zip(counts)
            .map(|(h, a)| {
                (0..h.levels())
                    .map(|l| {
                        let mut b = vec![0u64; h.width(l)];
                        for c in 0..h.leaves() as u32 {
                            b[h.get(c, l) as usize] += a[c as usize];
                        }
                        let mut e = 0.0;
                        for c in 0..h.leaves() as u32 {
                            let av = a[c as usize];
                            if av > 0 {
                                let bg = b[h.get(c, l) as usize];
                                e += av as f64 * (av as f64 / bg as f64).log2();
                            }
                        }
                        -e
                    })
                    .collect::<Vec<f64>>()
            })
            .map(|mut v| {
                // Mathematically non-decreasing in the level; make it so in floating point too,
                // so the level bound is monotonic along generalization.
                for l in 1..v.len() {
                    v[l] = v[l].max(v[l - 1]);
                }
                v
            })
            .collect();
        Entropy { base }
    }

    fn value(
        &self,
        levels: &[usize],
        mut suppression_term: impl FnMut(usize, usize) -> f64,
    ) -> f64 {
        levels
            .iter()
            .enumerate()
            .map(|(j, &l)| truncate10(self.base[j][l] + suppression_term(j, l)))
            .sum()
    }
}

impl Metric for Entropy {
    fn kind(&self) -> MetricKind {
        MetricKind::Entropy
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        !with_suppression
    }
    fn level_bound(&self, levels: &[usize]) -> f64 {
        // The suppression term is >= 0.
        self.value(levels, |_, _| 0.0)
    }
    fn evaluate(&self, table: &EncodedTable, levels: &[usize], s: &ClassStats<'_>) -> f64 {
        if s.suppressed == 0 {
            return self.level_bound(levels);
        }
        let total = s.suppressed as f64;
        let mut ids: Vec<(u32, u64)> = Vec::with_capacity(s.outliers.len());
        self.value(levels, |j, l| {
            let h = &table.hierarchies[j];
            ids.clear();
            ids.extend(
                s.outliers
                    .iter()
                    .map(|&(rep, c)| (h.get(table.column(j).get(rep as usize), l), c as u64)),
            );
            ids.sort_unstable_by_key(|p| p.0);
            let mut e = 0.0;
            let mut i = 0;
            while i < ids.len() {
                let mut c = 0u64;
                let g = ids[i].0;
                while i < ids.len() && ids[i].0 == g {
                    c += ids[i].1;
                    i += 1;
                }
                e += c as f64 * (c as f64 / total).log2();
            }
            -e
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::hierarchy::Hierarchy;

    /// A hierarchy from label rows written inline (also for `utility`'s and `check::layout`'s
    /// tests).
    pub(crate) fn h(name: &str, rows: &[&[&str]]) -> Hierarchy {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
        Hierarchy::from_label_rows(name, &rows)
    }

    /// Two attributes; 4 records: (a,x) (a,x) (b,y) (c,y).
    fn table() -> EncodedTable {
        let h1 = h(
            "A",
            &[
                &["a", "ab", "*"],
                &["b", "ab", "*"],
                &["c", "c", "*"],
                &["d", "d", "*"],
            ],
        );
        let h2 = h("B", &[&["x", "*"], &["y", "*"]]);
        EncodedTable::new(vec![0, 0, 0, 0, 1, 1, 2, 1], vec![h1, h2], vec![])
    }

    fn stats<'a>(outliers: &'a [(u32, u32)], suppressed: u64) -> ClassStats<'a> {
        ClassStats {
            rows: 4,
            suppressed,
            kept_classes: 2,
            all_classes: 2 + outliers.len() as u64,
            sum_sq_all: 6,
            sum_sq_kept: 4,
            sum_sq_raised: 8,
            outliers,
        }
    }

    #[test]
    fn loss_by_hand() {
        let t = table();
        let m = Loss::new(&t);
        // Levels (1, 0): shares of A at level 1: ab = 2/4, c = 1/4; records a,a,b,c -> 7/4.
        // v_A = (7/4 - 1) / (4 - 1) = 0.25; v_B = 0 (level 0). Geometric: sqrt(1.25) - 1.
        let none = stats(&[], 0);
        let v = m.evaluate(&t, &[1, 0], &none);
        assert!((v - (1.25f64.sqrt() - 1.0)).abs() < 1e-12, "{v}");
        assert_eq!(m.level_bound(&[1, 0]), v);
        // Suppress the class of row 3 (c,y): A sum = 3 * 2/4 + 1 = 2.5 -> v_A = (2.5 - 1) / 3 = 0.5;
        // B (|dom| = 2, min = 2): 3 * 1/2 + 1 = 2.5 -> v_B = (2.5 - 2) / 2 = 0.25.
        let out = [(t.tuple_of(3) as u32, 1u32)];
        let v = m.evaluate(&t, &[1, 0], &stats(&out, 1));
        let want = (1.5f64 * 1.25).sqrt() - 1.0;
        assert!((v - want).abs() < 1e-12, "{v} {want}");
        assert!(m.level_bound(&[1, 0]) <= v);
    }

    #[test]
    fn entropy_by_hand() {
        let t = table();
        let m = Entropy::new(&t);
        // A at level 1: a (2 records) and b (1) share "ab" (3): -(2 log2 2/3 + 1 log2 1/3).
        let want = -(2.0 * (2.0f64 / 3.0).log2() + (1.0f64 / 3.0).log2());
        let v = m.evaluate(&t, &[1, 0], &stats(&[], 0));
        assert!((v - truncate10(want)).abs() < 1e-9);
        // Suppressing rows 2 (b,y) and 3 (c,y) as two classes: A's suppressed ids ab, c: 2 bits;
        // B's: y, y: 0 bits.
        let out = [(t.tuple_of(2) as u32, 1), (t.tuple_of(3) as u32, 1)];
        let v2 = m.evaluate(&t, &[1, 0], &stats(&out, 2));
        assert!((v2 - (truncate10(want + 2.0))).abs() < 1e-9, "{v2}");
    }

    #[test]
    fn dm_precision_aecs() {
        let t = table();
        let s = stats(&[(3, 1)], 1);
        assert_eq!(Dm.evaluate(&t, &[0, 0], &s), 4.0 + 4.0);
        assert_eq!(DmStar.evaluate(&t, &[0, 0], &s), 6.0);
        assert_eq!(Aecs.evaluate(&t, &[0, 0], &s), 4.0 / 3.0);
        assert_eq!(Aecs.class_bound(&s), Some(4.0 / 3.0));
        let p = Precision::new(&t);
        // A: (3 * 1/2 + 1) / 4 = 0.625, B: (0 + 1)/4 = 0.25.
        assert!((p.evaluate(&t, &[1, 0], &s) - 0.4375).abs() < 1e-15);
        assert_eq!(p.level_bound(&[1, 0]), 0.25);
        assert_eq!(Height.evaluate(&t, &[1, 1], &s), 2.0);
    }
}
