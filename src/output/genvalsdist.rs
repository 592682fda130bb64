//! genValsDist (UT Dallas toolbox §6.2): genVals with every quasi-identifier field replaced by
//! statistics of that attribute over the records of the row's equivalence class (the interval
//! itself is not printed, as in the toolbox):
//! - numeric attribute: `mean:variance`, the mean the sum over n, the variance the
//!   **population** variance Σ(x − mean)²/n;
//! - categorical attribute (a `<map>`): `p0:p1:...:p(m-1)`, m the number of map entries, pi the
//!   share of the class's records whose mapped integer is i. The map's integers must be
//!   `0..m-1` (the toolbox crashes otherwise; anonbox says so before writing anything).
//!
//! Numbers are printed with Java's `Double.toString` ([`crate::javafmt`]). The toolbox sums row
//! by row (sum, then Σ(x − mean)²) in the rowid order of its final table, so the last digits
//! depend on that order; anonbox adds the same numbers in the same order ([`SumOrder`]: record
//! order for Mondrian, original classes by first record for Datafly and Incognito), which
//! reproduces the toolbox's census outputs digit for digit.
//!
//! Records of a suppressed class print their attributes' suppression labels, as in genVals (the
//! toolbox printed the suppression class's statistics, describing the records it suppressed).
//!
//! Extension: a quasi-identifier with a hierarchy file is numeric if all its values are numbers,
//! else categorical over the file's values in file order.
//!
//! Every method that fills the store's classes (Datafly, Mondrian, Incognito) gets this format:
//! the statistics are computed per class from `QidTuple` (codes and counts, grouped by class)
//! into a temporary table, and the genVals writer streams them in record order as the labels of
//! each record ([`StatsLabels`]), so the other columns, the identifiers' removal, the header and
//! the atomic write are genVals's own.

use std::path::Path;

use super::anatomy::record_classes;
use super::{genvals, LabelRow, LabelSource};
use crate::algorithms::tuples::{qid_points, Backend};
use crate::data::load::Encoding;
use crate::io::Publication;
use crate::javafmt::double_to_string;
use crate::job::{Generalization, Job};
use crate::progress::Progress;
use crate::store::{ClassStats, Store};
use crate::{Error, Result};

/// How one quasi-identifier is summarized.
#[derive(Debug, Clone, PartialEq)]
pub enum Summary {
    /// `mean:variance` over `points[code]`.
    Numeric { points: Vec<f64> },
    /// `p0:...:p(m-1)`: `slot[code]` is the code's position among the m shares.
    Categorical { m: usize, slot: Vec<usize> },
}

impl Summary {
    /// The summary of each quasi-identifier of `job` (errors: a map whose integers are not
    /// `0..m-1`).
    pub fn for_job(job: &Job, encoding: &Encoding) -> Result<Vec<Summary>> {
        job.qids
            .iter()
            .zip(&encoding.qids)
            .map(|(q, e)| match &q.generalization {
                Generalization::Vgh(vgh) => {
                    let points = qid_points(e).ok_or_else(|| {
                        Error::Invalid(format!(
                            "genValsDist: values of '{}' are not numbers",
                            q.name
                        ))
                    })?;
                    match &vgh.map {
                        None => Ok(Summary::Numeric { points }),
                        Some(map) => {
                            let m = map.len();
                            let slot = points
                                .iter()
                                .map(|&x| {
                                    if x >= 0.0 && x < m as f64 && x.fract() == 0.0 {
                                        Ok(x as usize)
                                    } else {
                                        Err(Error::Invalid(format!(
                                            "genValsDist: '{}' has a category mapped to {}, but \
                                             the distribution needs the map's {m} integers to \
                                             be 0..{}",
                                            q.name,
                                            double_to_string(x),
                                            m.saturating_sub(1)
                                        )))
                                    }
                                })
                                .collect::<Result<Vec<usize>>>()?;
                            Ok(Summary::Categorical { m, slot })
                        }
                    }
                }
                Generalization::File { .. } | Generalization::Built(_) => Ok(match qid_points(e) {
                    Some(points) => Summary::Numeric { points },
                    None => Summary::Categorical {
                        m: e.hierarchy.leaves(),
                        slot: (0..e.dictionary.len()).collect(),
                    },
                }),
            })
            .collect()
    }

    /// The statistics string of one class from its `(code, count)` pairs.
    pub fn render(&self, class: &[(u32, u64)]) -> String {
        match self {
            Summary::Numeric { points } => {
                let values: Vec<(f64, u64)> = class
                    .iter()
                    .map(|&(c, n)| (points[c as usize], n))
                    .collect();
                let (mean, variance) = mean_variance(&values);
                format!("{}:{}", double_to_string(mean), double_to_string(variance))
            }
            Summary::Categorical { m, slot } => {
                let mut counts = vec![0u64; *m];
                for &(c, n) in class {
                    counts[slot[c as usize]] += n;
                }
                distribution(&counts)
            }
        }
    }
}

/// Mean and population variance of values with multiplicities.
pub fn mean_variance(values: &[(f64, u64)]) -> (f64, f64) {
    let n: u64 = values.iter().map(|v| v.1).sum();
    let n = n as f64;
    let sum: f64 = values.iter().map(|&(x, c)| x * c as f64).sum();
    let mean = sum / n;
    let sq: f64 = values
        .iter()
        .map(|&(x, c)| (x - mean) * (x - mean) * c as f64)
        .sum();
    (mean, sq / n)
}

/// `p0:p1:...` with `pi = counts[i] / n`.
pub fn distribution(counts: &[u64]) -> String {
    let n: u64 = counts.iter().sum();
    counts
        .iter()
        .map(|&c| double_to_string(c as f64 / n as f64))
        .collect::<Vec<_>>()
        .join(":")
}

/// The order in which the toolbox sums a class's values (it sums row by row in the rowid order
/// of its final table; the last digits of a mean or variance depend on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SumOrder {
    /// Record order (Mondrian moves records one by one, so its final table is in input order).
    Records,
    /// The original classes in order of their first record, each class's records in input
    /// order (Datafly and Incognito build their final table from the original classes). Within
    /// an original class all values are equal, so this is each `QidTuple` repeated `Count` times.
    Tuples,
}

impl SumOrder {
    /// The order of a method's final table.
    pub fn of(method: crate::job::Method) -> SumOrder {
        match method {
            crate::job::Method::Mondrian => SumOrder::Records,
            _ => SumOrder::Tuples,
        }
    }
}

/// Writes genValsDist for `job` to `target` from a store whose classes are assigned, looking
/// records up with `backend` (see [`record_classes`]).
#[allow(clippy::too_many_arguments)]
pub fn write_from_store(
    publication: &Publication,
    job: &Job,
    store: &Store,
    encoding: &Encoding,
    target: &Path,
    records: u64,
    progress: &Progress,
    backend: Backend,
) -> Result<()> {
    let summaries = Summary::for_job(job, encoding)?;
    let stats = ClassStats::create(store)?;
    fill_stats(store, &stats, &summaries, SumOrder::of(job.method), backend)?;
    // The suppressed records print their attributes' suppression labels, as in genVals: the
    // toolbox printed their class's statistics, which describe the very records it suppressed
    // (mean age 79, all male, on the census sample).
    let labels: Vec<&str> = encoding
        .qids
        .iter()
        .map(|q| q.suppressed.as_str())
        .collect();
    stats.mask_suppressed(&labels)?;
    let result = genvals::write(
        publication,
        job,
        target,
        records,
        &mut StatsLabels {
            store,
            stats: &stats,
            backend,
        },
        progress,
    );
    stats.drop_table()?;
    result
}

/// Per class and numeric quasi-identifier: the running sums of Java's two loops.
struct Moments {
    /// Numeric quasi-identifiers (positions in `<qid>` order) and their points.
    numeric: Vec<(usize, Vec<f64>)>,
    n: Vec<u64>,
    sum: Vec<f64>,
    sq: Vec<f64>,
}

impl Moments {
    /// Streams every record's class and codes in `order`, twice; `visit(pass, eid, codes,
    /// repeat)` is called per record (or per tuple with its record count).
    fn stream(
        store: &Store,
        order: SumOrder,
        backend: Backend,
        mut visit: impl FnMut(u32, usize, &[u32], u64) -> Result<()>,
    ) -> Result<()> {
        match order {
            SumOrder::Records => {
                let classes = record_classes(store, false, backend)?;
                for pass in 0..2 {
                    classes.for_each(&mut |eid, codes| visit(pass, eid as usize, codes, 1))?;
                }
            }
            SumOrder::Tuples => {
                for pass in 0..2 {
                    store.for_each_classed_tuple_by_first_record(|eid, codes, repeat| {
                        visit(pass, eid as usize, codes, repeat)
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Means and variances of every class, summed as the toolbox does (see [`SumOrder`]).
    fn compute(
        store: &Store,
        summaries: &[Summary],
        order: SumOrder,
        backend: Backend,
        classes: usize,
    ) -> Result<Moments> {
        let numeric: Vec<(usize, Vec<f64>)> = summaries
            .iter()
            .enumerate()
            .filter_map(|(q, s)| match s {
                Summary::Numeric { points } => Some((q, points.clone())),
                Summary::Categorical { .. } => None,
            })
            .collect();
        let w = numeric.len();
        let mut m = Moments {
            n: vec![0; classes],
            sum: vec![0.0; classes * w],
            sq: vec![0.0; classes * w],
            numeric,
        };
        if w == 0 {
            return Ok(m);
        }
        let mut means: Vec<f64> = Vec::new();
        Self::stream(store, order, backend, |pass, eid, codes, repeat| {
            if eid >= classes {
                return Err(Error::Invalid(format!(
                    "internal error: class {eid} is not in EquivalenceTable"
                )));
            }
            if pass == 1 && means.is_empty() {
                means = (0..classes * w)
                    .map(|i| m.sum[i] / m.n[i / w] as f64)
                    .collect();
            }
            if pass == 0 {
                m.n[eid] += repeat;
            }
            for (j, (q, points)) in m.numeric.iter().enumerate() {
                let x = points[codes[*q] as usize];
                let i = eid * w + j;
                // One addition per record, as Java's loop does.
                if pass == 0 {
                    for _ in 0..repeat {
                        m.sum[i] += x;
                    }
                } else {
                    let d = x - means[i];
                    for _ in 0..repeat {
                        m.sq[i] += d * d;
                    }
                }
            }
            Ok(())
        })?;
        m.sum = means;
        Ok(m)
    }

    /// `mean:variance` of class `eid`'s `j`-th numeric attribute.
    fn render(&self, eid: usize, j: usize) -> String {
        let w = self.numeric.len();
        let n = self.n[eid] as f64;
        let i = eid * w + j;
        format!(
            "{}:{}",
            double_to_string(self.sum[i]),
            double_to_string(self.sq[i] / n)
        )
    }
}

/// Each class's statistics strings into `stats` (`temp.GenValsDist`).
fn fill_stats(
    store: &Store,
    stats: &ClassStats<'_>,
    summaries: &[Summary],
    order: SumOrder,
    backend: Backend,
) -> Result<()> {
    let classes = stats.id_bound()?;
    let moments = Moments::compute(store, summaries, order, backend, classes)?;
    let tx = store.begin()?;
    for (j, (q, _)) in moments.numeric.iter().enumerate() {
        let mut column = stats.column(&tx, *q)?;
        for eid in 0..classes {
            if moments.n[eid] > 0 {
                column.set(eid as u64, &moments.render(eid, j))?;
            }
        }
    }
    for (q, summary) in summaries.iter().enumerate() {
        if matches!(summary, Summary::Numeric { .. }) {
            continue;
        }
        let mut column = stats.column(&tx, q)?;
        let mut class: Vec<(u32, u64)> = Vec::new();
        let mut current: Option<u64> = None;
        tx.for_each_class_code_count(q, |eid, code, n| {
            if let Some(c) = current.filter(|&c| c != eid) {
                column.set(c, &summary.render(&class))?;
                class.clear();
            }
            current = Some(eid);
            class.push((code, n));
            Ok(())
        })?;
        if let Some(c) = current {
            column.set(c, &summary.render(&class))?;
        }
    }
    tx.commit()
}

/// The statistics strings of every record's class, in record order: through the record's tuple
/// (see [`crate::store::RecordClasses`]), with the classes' strings in memory when the tuples
/// fit, else by a join of records, tuples and `temp.GenValsDist`.
struct StatsLabels<'a> {
    store: &'a Store,
    stats: &'a ClassStats<'a>,
    backend: Backend,
}

impl LabelSource for StatsLabels<'_> {
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        if !self.backend.in_memory(self.store.tuple_count()?) {
            return self.stats.for_each_record(f);
        }
        let stats = self.stats.by_class()?;
        let classes = record_classes(self.store, false, self.backend)?;
        classes.for_each(&mut |eid, _| {
            let row = stats
                .get(eid as usize)
                .and_then(Option::as_ref)
                .ok_or_else(|| {
                    Error::Invalid(format!("internal error: class {eid} has no statistics"))
                })?;
            f(row)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn population_variance_and_java_numbers() {
        // 56, 57, 58 ... as in the toolbox's first Mondrian class: check by hand on a small one.
        let (m, v) = mean_variance(&[(1.0, 1), (2.0, 1), (3.0, 1), (4.0, 1)]);
        assert_eq!((m, v), (2.5, 1.25));
        let (m, v) = mean_variance(&[(73.0, 3)]);
        assert_eq!((m, v), (73.0, 0.0));
        let s = Summary::Numeric {
            points: vec![50.0, 60.0, 74.0],
        };
        // mean 184/3 = 61.333333333333336 (Java), variance ((50-m)²+(60-m)²+(74-m)²)/3.
        let out = s.render(&[(0, 1), (1, 1), (2, 1)]);
        let (mean, var) = out.split_once(':').unwrap();
        assert_eq!(mean, "61.333333333333336");
        let want: f64 = [50.0f64, 60.0, 74.0]
            .iter()
            .map(|x| (x - 184.0 / 3.0).powi(2))
            .sum::<f64>()
            / 3.0;
        assert!((var.parse::<f64>().unwrap() - want).abs() < 1e-12);
    }

    #[test]
    fn categorical_shares() {
        let s = Summary::Categorical {
            m: 2,
            slot: vec![1, 0],
        };
        assert_eq!(s.render(&[(0, 7)]), "0.0:1.0");
        assert_eq!(s.render(&[(1, 1), (0, 3)]), "0.25:0.75");
        assert_eq!(
            distribution(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 9999]),
            "1.0E-4:0.0:0.0:0.0:0.0:0.0:0.0:0.0:0.0:0.9999"
        );
    }
}
