//! Microaggregation by MDAV, maximum distance to average vector (Domingo-Ferrer and
//! Mateo-Sanz 2002; the fixed-size form of Domingo-Ferrer and Torra 2005, as sdcMicro's `mdav`):
//! records are grouped by k, each group's numeric quasi-identifiers are replaced by the group's
//! mean, and every released tuple is then shared by at least k records (k-anonymity on the
//! released quasi-identifiers; groups hold k to 2k - 1 records).
//!
//! While at least 3k records remain: the record r farthest from the remaining records'
//! centroid and the record s farthest from r each take the k - 1 records nearest to them
//! (r's group first); with 2k to 3k - 1 left, the record farthest from the centroid takes its
//! k - 1 nearest and the rest form the last group; fewer than 2k form one group. Distances are
//! Euclidean over the numeric quasi-identifiers standardized (mean 0, sample standard deviation
//! 1; a constant column drops out), so that no unit dominates.
//!
//! The method is multivariate over the numeric quasi-identifiers only (a quasi-identifier is
//! numeric when every value of its column is a number). A categorical one takes its group's
//! *mode* (the value most of the group's records hold; ties: the first in the hierarchy's
//! order), not a generalization to the group's lowest common node: the release keeps values
//! of the input's own domain, as microaggregation does for numbers (a mean is a value of the
//! number line), needs no hierarchy, and a group's categorical values are not what MDAV chose
//! it for, so their common node would often be the top (`*`) and remove the attribute.
//!
//! The points are the table's distinct tuples weighted by their records (as every in-memory
//! method sees the frequency set): a group may take part of a tuple's records, which is MDAV on
//! records with equal records taken in table order. The farthest and nearest queries run on a
//! shrinking k-d tree ([`kdtree`]) instead of a scan of the remaining records (plain MDAV is
//! `O(n²/k)`); the centroid is kept as a running sum. With a single numeric quasi-identifier
//! the groups are the optimal ones instead ([`univariate`]: as fast, never worse).
//!
//! Figures (sdcMicro's definitions): SSE, the sum over records of the squared distance between
//! the standardized record and its released value, beside SST (the same to the overall
//! centroid; SSE/SST is the share of the variance removed), and IL1s, the mean over records and
//! numeric attributes of |x − x'| / (√2 · S), S the attribute's standard deviation. Released
//! means are rounded to two decimals more than the column's values show, and the figures are of
//! the released (rounded) values.

pub mod kdtree;
pub mod univariate;

use crate::data::EncodedTable;
use crate::{Error, Result};
use kdtree::KdTree;

/// What MDAV is asked for.
#[derive(Debug, Clone)]
pub struct Params {
    /// Records per group, at least.
    pub k: u64,
    /// Quasi-identifiers to treat as categorical whatever their values (codes of a category
    /// map); the others are numeric when all their values are numbers.
    pub categorical: Vec<bool>,
}

/// The number a leaf label stands for: a number, or a toolbox point (`[73.0]`).
fn number_of(label: &str) -> Option<f64> {
    let t = label.trim();
    let t = t
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(t);
    crate::algorithms::mondrian::hierarchical::number_of(t)
}

/// A released value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// The group's mean of a numeric attribute, rounded to `decimals`.
    Mean { value: f64, decimals: usize },
    /// The group's mode of a categorical attribute: a leaf code.
    Mode(u32),
}

/// The groups and their released values.
#[derive(Debug, Clone, PartialEq)]
pub struct Microaggregation {
    /// Records per group.
    pub sizes: Vec<u64>,
    /// `values[group * width + j]`.
    pub values: Vec<Value>,
    /// Tuple `t`'s records go, in table order, to the groups of
    /// `splits[split_start[t]..split_start[t + 1]]`: (group, records).
    pub split_start: Vec<usize>,
    pub splits: Vec<(u32, u64)>,
    /// Whether each quasi-identifier was aggregated as a number.
    pub numeric: Vec<bool>,
    /// How the groups were formed: `MDAV`, or `optimal univariate` for a single number.
    pub grouping: &'static str,
    pub sse: f64,
    pub sst: f64,
    pub il1s: f64,
}

impl Microaggregation {
    /// The label group `g` publishes for quasi-identifier `j`.
    pub fn label(&self, table: &EncodedTable, g: usize, j: usize) -> String {
        match self.values[g * table.width() + j] {
            Value::Mean { value, decimals } => format_number(value, decimals),
            Value::Mode(code) => {
                let h = &table.hierarchies[j];
                h.label(0, h.get(code, 0)).to_string()
            }
        }
    }
}

/// A number with at most `decimals` decimals, trailing zeros dropped (`38.67`, `40`).
pub fn format_number(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".to_string()
    } else {
        s
    }
}

/// The decimals the values need (at most 12): the fewest at which each is a whole number of
/// units (`[1.25, 3]` 2, `[40.0]` 0).
fn decimals_of(values: &[f64]) -> usize {
    (0..12)
        .find(|&d| {
            let p = 10f64.powi(d as i32);
            values
                .iter()
                .all(|&v| ((v * p) - (v * p).round()).abs() <= 1e-9 * (v * p).abs().max(1.0))
        })
        .unwrap_or(12)
}

/// Groups `weight[p]` records at each point (`coords` row-major, `dims` per point) by MDAV; each
/// group lists (point, records). Needs at least k records in all (else one group of them all).
pub fn mdav(coords: &[f64], dims: usize, weight: &[u64], k: u64) -> Vec<Vec<(u32, u64)>> {
    let k = k.max(1);
    let mut tree = KdTree::new(coords, dims, weight.to_vec());
    let mut sum = vec![0.0; dims];
    for (p, &w) in weight.iter().enumerate() {
        for (j, s) in sum.iter_mut().enumerate() {
            *s += coords[p * dims + j] * w as f64;
        }
    }
    let mut live = weight.iter().filter(|&&w| w > 0).count();
    let mut groups = Vec::new();
    let around = |tree: &mut KdTree<'_>, sum: &mut [f64], live: &mut usize, p: u32| {
        let q = tree.point(p).to_vec();
        let mut need = k;
        let mut group = Vec::new();
        // Each live point holds a record at least: k points hold k records.
        for n in tree.nearest(&q, (k as usize).min(*live)) {
            let take = tree.weight(n).min(need);
            for (j, s) in sum.iter_mut().enumerate() {
                *s -= tree.point(n)[j] * take as f64;
            }
            tree.take(n, take);
            if tree.weight(n) == 0 {
                *live -= 1;
            }
            group.push((n, take));
            need -= take;
            if need == 0 {
                break;
            }
        }
        group
    };
    let centroid = |sum: &[f64], n: u64| -> Vec<f64> { sum.iter().map(|s| s / n as f64).collect() };
    while tree.total() >= 3 * k {
        let c = centroid(&sum, tree.total());
        let r = tree.farthest(&c).expect("records remain");
        let xr = tree.point(r).to_vec();
        let s = tree.farthest(&xr).expect("records remain");
        groups.push(around(&mut tree, &mut sum, &mut live, r));
        // s is farthest from r, so r's k nearest leave it unless every point is as far.
        let s = if tree.weight(s) > 0 {
            s
        } else {
            tree.farthest(&xr).expect("records remain")
        };
        groups.push(around(&mut tree, &mut sum, &mut live, s));
    }
    if tree.total() >= 2 * k {
        let c = centroid(&sum, tree.total());
        let r = tree.farthest(&c).expect("records remain");
        groups.push(around(&mut tree, &mut sum, &mut live, r));
    }
    if tree.total() > 0 {
        let rest: Vec<(u32, u64)> = tree.live().map(|p| (p, tree.weight(p))).collect();
        groups.push(rest);
    }
    groups
}

/// Microaggregates the table's released records by MDAV.
pub fn microaggregate(table: &EncodedTable, params: &Params) -> Result<Microaggregation> {
    let width = table.width();
    let n = table.tuples();
    let mut counts = vec![0u64; n];
    for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
        counts[table.tuple_of(r)] += 1;
    }
    let records: u64 = counts.iter().sum();
    // Each quasi-identifier's leaf values as numbers, if they all are.
    let numbers: Vec<Option<Vec<f64>>> = table
        .hierarchies
        .iter()
        .enumerate()
        .map(|(j, h)| {
            (0..h.leaves() as u32)
                .map(|c| number_of(h.label(0, h.get(c, 0))))
                .collect::<Option<Vec<f64>>>()
                .filter(|v| !v.is_empty() && !params.categorical.get(j).copied().unwrap_or(false))
        })
        .collect();
    let numeric_cols: Vec<usize> = (0..width).filter(|&j| numbers[j].is_some()).collect();
    if numeric_cols.is_empty() {
        return Err(Error::Invalid(
            "MDAV needs a numeric quasi-identifier (a column whose every value is a number): \
             none of the quasi-identifiers is; use Mondrian or Flash for categorical ones"
                .to_string(),
        ));
    }
    if records < params.k {
        return Err(Error::Invalid(format!(
            "MDAV cannot form a group of k = {} from {records} records",
            params.k
        )));
    }
    let decimals: Vec<usize> = numbers
        .iter()
        .map(|v| v.as_deref().map_or(0, decimals_of) + 2)
        .collect();
    let value = |t: usize, j: usize| -> f64 {
        numbers[j].as_ref().expect("numeric")[table.column(j).get(t) as usize]
    };
    // Mean and sample standard deviation per numeric column, over records.
    let dims = numeric_cols.len();
    let mut mean = vec![0.0; dims];
    let mut sd = vec![0.0; dims];
    for (i, &j) in numeric_cols.iter().enumerate() {
        let m = (0..n).map(|t| value(t, j) * counts[t] as f64).sum::<f64>() / records as f64;
        let ss: f64 = (0..n)
            .map(|t| (value(t, j) - m).powi(2) * counts[t] as f64)
            .sum();
        mean[i] = m;
        sd[i] = if records > 1 {
            (ss / (records - 1) as f64).sqrt()
        } else {
            0.0
        };
    }
    let scale: Vec<f64> = sd.iter().map(|&s| if s > 0.0 { s } else { 1.0 }).collect();
    let mut coords = Vec::with_capacity(n * dims);
    for t in 0..n {
        for (i, &j) in numeric_cols.iter().enumerate() {
            coords.push((value(t, j) - mean[i]) / scale[i]);
        }
    }
    let optimal = dims == 1;
    let groups = if optimal {
        univariate::optimal(&coords, &counts, params.k)
    } else {
        mdav(&coords, dims, &counts, params.k)
    };

    let mut sizes = Vec::with_capacity(groups.len());
    let mut values = Vec::with_capacity(groups.len() * width);
    let mut tuple_splits: Vec<(u32, u32, u64)> = Vec::new();
    let (mut sse, mut sst, mut abs) = (0.0, 0.0, 0.0);
    for (g, group) in groups.iter().enumerate() {
        let size: u64 = group.iter().map(|&(_, w)| w).sum();
        sizes.push(size);
        for j in 0..width {
            let v = match &numbers[j] {
                Some(_) => {
                    let m = group
                        .iter()
                        .map(|&(t, w)| value(t as usize, j) * w as f64)
                        .sum::<f64>()
                        / size as f64;
                    let p = 10f64.powi(decimals[j] as i32);
                    let rounded = (m * p).round() / p;
                    Value::Mean {
                        value: if rounded.is_finite() { rounded } else { m },
                        decimals: decimals[j],
                    }
                }
                None => {
                    let mut by: Vec<(u32, u64)> = group
                        .iter()
                        .map(|&(t, w)| (table.column(j).get(t as usize), w))
                        .collect();
                    by.sort_unstable();
                    let mut best = (0u32, 0u64);
                    let mut i = 0;
                    while i < by.len() {
                        let code = by[i].0;
                        let mut w = 0;
                        while i < by.len() && by[i].0 == code {
                            w += by[i].1;
                            i += 1;
                        }
                        if w > best.1 {
                            best = (code, w);
                        }
                    }
                    Value::Mode(best.0)
                }
            };
            values.push(v);
        }
        for &(t, w) in group {
            tuple_splits.push((t, g as u32, w));
            for (i, &j) in numeric_cols.iter().enumerate() {
                let Value::Mean {
                    value: released, ..
                } = values[g * width + j]
                else {
                    unreachable!("numeric")
                };
                let x = value(t as usize, j);
                let dz = (x - released) / scale[i];
                sse += dz * dz * w as f64;
                let z = (x - mean[i]) / scale[i];
                sst += z * z * w as f64;
                abs += (x - released).abs() / (std::f64::consts::SQRT_2 * scale[i]) * w as f64;
            }
        }
    }
    tuple_splits.sort_by_key(|&(t, g, _)| (t, g));
    let mut split_start = vec![0usize; n + 1];
    for &(t, _, _) in &tuple_splits {
        split_start[t as usize + 1] += 1;
    }
    for t in 0..n {
        split_start[t + 1] += split_start[t];
    }
    Ok(Microaggregation {
        sizes,
        values,
        split_start,
        splits: tuple_splits.into_iter().map(|(_, g, w)| (g, w)).collect(),
        numeric: numbers.iter().map(Option::is_some).collect(),
        grouping: if optimal {
            "optimal univariate"
        } else {
            "MDAV"
        },
        sse,
        sst,
        il1s: abs / (records as f64 * dims as f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// MDAV on weighted points by scanning every live point for each query (the plain
    /// `O(n²/k)` algorithm), with the tree's tie rules: farthest ties to the smaller point,
    /// nearest by (distance, point).
    fn plain(coords: &[f64], dims: usize, weight: &[u64], k: u64) -> Vec<Vec<(u32, u64)>> {
        let mut w = weight.to_vec();
        let d2 = |p: usize, q: &[f64]| -> f64 {
            (0..dims)
                .map(|j| (coords[p * dims + j] - q[j]).powi(2))
                .sum()
        };
        let total = |w: &[u64]| w.iter().sum::<u64>();
        let centroid = |w: &[u64]| -> Vec<f64> {
            let n = total(w) as f64;
            (0..dims)
                .map(|j| {
                    (0..w.len())
                        .map(|p| coords[p * dims + j] * w[p] as f64)
                        .sum::<f64>()
                        / n
                })
                .collect()
        };
        let farthest = |w: &[u64], q: &[f64]| -> usize {
            let mut best: Option<(f64, usize)> = None;
            for p in (0..w.len()).filter(|&p| w[p] > 0) {
                let d = d2(p, q);
                if best.is_none_or(|(bd, _)| d > bd) {
                    best = Some((d, p));
                }
            }
            best.unwrap().1
        };
        let around = |w: &mut Vec<u64>, r: usize| -> Vec<(u32, u64)> {
            let q: Vec<f64> = coords[r * dims..(r + 1) * dims].to_vec();
            let mut live: Vec<usize> = (0..w.len()).filter(|&p| w[p] > 0).collect();
            live.sort_by(|&a, &b| d2(a, &q).total_cmp(&d2(b, &q)).then(a.cmp(&b)));
            let mut need = k;
            let mut group = Vec::new();
            for p in live {
                let take = w[p].min(need);
                w[p] -= take;
                group.push((p as u32, take));
                need -= take;
                if need == 0 {
                    break;
                }
            }
            group
        };
        let mut groups = Vec::new();
        while total(&w) >= 3 * k {
            let r = farthest(&w, &centroid(&w));
            let xr: Vec<f64> = coords[r * dims..(r + 1) * dims].to_vec();
            let s = farthest(&w, &xr);
            groups.push(around(&mut w, r));
            let s = if w[s] > 0 { s } else { farthest(&w, &xr) };
            groups.push(around(&mut w, s));
        }
        if total(&w) >= 2 * k {
            let r = farthest(&w, &centroid(&w));
            groups.push(around(&mut w, r));
        }
        if total(&w) > 0 {
            groups.push(
                (0..w.len())
                    .filter(|&p| w[p] > 0)
                    .map(|p| (p as u32, w[p]))
                    .collect(),
            );
        }
        groups
    }

    proptest! {
        /// The k-d tree's MDAV forms exactly the plain scan's groups (small grids, so ties and
        /// repeated points are common; weights up to 4 records).
        #[test]
        fn tree_mdav_equals_plain_mdav(
            dims in 1usize..4,
            k in 1u64..5,
            points in prop::collection::vec((prop::collection::vec(0u8..6, 3), 1u64..5), 1..60),
        ) {
            let coords: Vec<f64> = points
                .iter()
                .flat_map(|(c, _)| c[..dims].iter().map(|&x| f64::from(x)))
                .collect();
            let weight: Vec<u64> = points.iter().map(|&(_, w)| w).collect();
            prop_assume!(weight.iter().sum::<u64>() >= k);
            prop_assert_eq!(mdav(&coords, dims, &weight, k), plain(&coords, dims, &weight, k));
        }
    }

    #[test]
    fn numbers_print_with_their_decimals() {
        assert_eq!(format_number(38.666, 2), "38.67");
        assert_eq!(format_number(40.0, 2), "40");
        assert_eq!(format_number(-0.001, 2), "0");
        assert_eq!(decimals_of(&[1.25, 3.0]), 2);
        assert_eq!(decimals_of(&[40.0, 3e4]), 0);
        assert_eq!(decimals_of(&[0.1]), 1);
    }

    /// Groups hold k to 2k - 1 records and every record once, weighted points split as needed.
    #[test]
    fn groups_hold_k_to_2k_minus_1_records() {
        let coords: Vec<f64> = (0..40).map(|i| ((i * 37) % 23) as f64).collect();
        let weight: Vec<u64> = (0..40).map(|i| 1 + (i % 4) as u64).collect();
        for k in [1, 2, 3, 5, 7] {
            let groups = mdav(&coords, 1, &weight, k);
            let mut held = vec![0u64; 40];
            for g in &groups {
                let size: u64 = g.iter().map(|&(_, w)| w).sum();
                assert!(size >= k && size < 2 * k, "k {k}: {size}");
                for &(p, w) in g {
                    held[p as usize] += w;
                }
            }
            assert_eq!(held, weight, "k {k}");
        }
    }
}
