//! Mondrian over any hierarchy (LeFevre, DeWitt and Ramakrishnan 2006, with categorical splits
//! over a taxonomy as in their §4 and in Xu et al.'s NCP), for the configs `anonbox init`
//! writes: ARX hierarchy files and builders, and `<privacy>` models of every kind.
//!
//! The toolbox's Mondrian (the parent module) splits raw points and prints VGH intervals; this
//! one works on the in-memory table's distinct tuples (the frequency set: a class is always a
//! union of tuples, whose records share every quasi-identifier) and publishes, per class and
//! attribute, the tightest value that covers the class:
//! - a *numeric* attribute (every value of its hierarchy is a number) is split at the median of
//!   its records, as the toolbox splits; the class publishes the range of its values,
//!   `[17:35]` (closed, in the toolbox's notation), or the value itself when it holds one;
//! - any other attribute is split along its hierarchy's tree: a class publishes the lowest
//!   node that covers all its values (a leaf, a group, or the hierarchy's top; the records
//!   whose values share no node print the suppression label `*`), and a split replaces that
//!   node by its children, one class per child that holds records; children that fail the
//!   models alone are pooled into one class, which keeps their common node ([`pool_small`]).
//!   With [`Labels::Sets`] a class publishes the set of values it holds instead (`{a,b}`, a
//!   single value as itself); its width, for choosing the attribute to split and for the NCP,
//!   is then those values over the column's, minus one each. The splits still follow the tree.
//!
//! Each class tries its attributes by decreasing normalized width (ties: `<qid>` order; the
//! numeric width is the class's range over the table's, the categorical one the leaves under
//! its node, minus one, over the hierarchy's, minus one; with sets, its values, minus one, over
//! the column's, minus one) and takes the first allowable split.
//! A split is allowable if every part satisfies every privacy criterion (k-anonymity, the
//! l-diversities, t-closeness, ... as [`crate::privacy`] builds them for the checker; not
//! δ-presence, whose classes are the population's): the criteria judge each part as Incognito judges a class, from its size and the
//! distributions of its sensitive values (kept per tuple). A class without an allowable split
//! is final; the whole table must satisfy the criteria, or nothing can be released.
//!
//! Partitioning: *strict* cuts a numeric class into the records at or below the median and
//! those above (when the median is the largest value, at the value below it); *relaxed*
//! (LeFevre's relaxed multidimensional partitioning) sorts the class's tuples by the attribute
//! and cuts at the middle record, so that tuples equal to the median may fall on both sides and
//! the two ranges may share that value: classes stay balanced on skewed columns. Records of one
//! distinct tuple are never separated (they would publish the same labels).
//!
//! Classes are numbered in first-in, first-out order, as the toolbox's. Cost: every level of
//! the recursion reads each tuple a bounded number of times per attribute (`O(T · d)` with a
//! sort for the relaxed and categorical splits), and memory is a few words per distinct tuple
//! and per distinct (tuple, sensitive value).

use std::collections::VecDeque;

use crate::data::EncodedTable;
use crate::hierarchy::Hierarchy;
use crate::privacy::{
    self, distribution::DistributionBuf, ClassView, Distribution, PrivacyCriterion, PrivacyModel,
};
use crate::{Error, Result};

/// How numeric classes are cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Partitioning {
    /// At or below the median, and above: disjoint ranges.
    #[default]
    Strict,
    /// At the middle record: ranges may share the median.
    Relaxed,
}

impl Partitioning {
    pub const NAMES: &'static [&'static str] = &["strict", "relaxed"];

    pub fn parse(s: &str) -> Option<Partitioning> {
        match s.to_ascii_lowercase().as_str() {
            "strict" => Some(Partitioning::Strict),
            "relaxed" => Some(Partitioning::Relaxed),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Partitioning::Strict => "strict",
            Partitioning::Relaxed => "relaxed",
        }
    }
}

/// What a class publishes for a categorical attribute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Labels {
    /// The lowest node of the hierarchy that covers the class's values.
    #[default]
    Nodes,
    /// The values the class holds, as a set (`{a,b}`; a single value as itself): the same
    /// classes, each saying exactly which values it pools (set-valued generalization, as the
    /// Mondrian implementations without hierarchies publish).
    Sets,
}

impl Labels {
    pub const NAMES: &'static [&'static str] = &["nodes", "sets"];

    pub fn parse(s: &str) -> Option<Labels> {
        match s.to_ascii_lowercase().as_str() {
            "nodes" => Some(Labels::Nodes),
            "sets" => Some(Labels::Sets),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Labels::Nodes => "nodes",
            Labels::Sets => "sets",
        }
    }
}

/// What Mondrian over hierarchies is asked for.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    /// k of k-anonymity (enforced beside `privacy`).
    pub k: u64,
    /// The run's `<privacy>` models.
    pub privacy: &'a [PrivacyModel],
    pub partitioning: Partitioning,
    pub labels: Labels,
}

/// A final class's extent on one attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// A numeric attribute: the leaf codes of the class's smallest and largest value.
    Range { low: u32, high: u32 },
    /// A categorical attribute: the lowest node covering the class's values.
    Node { level: usize, id: u32 },
    /// A categorical attribute whose values share no node (the hierarchy's top level has several
    /// values): printed as a suppressed value.
    Top,
    /// A categorical attribute published as the set of its values ([`Labels::Sets`]): their
    /// leaf codes are `Partition::sets[start..start + len]`.
    Set { start: u32, len: u32 },
}

/// A final class.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalClass {
    /// Released records.
    pub size: u64,
    pub extents: Vec<Extent>,
}

/// The partition of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// Classes in first-in, first-out order.
    pub classes: Vec<FinalClass>,
    /// `tuple_class[t]`: the class (index into `classes`) of distinct tuple `t`.
    pub tuple_class: Vec<u32>,
    /// Per attribute, the records' mean normalized certainty penalty.
    pub ncp_by_attribute: Vec<f64>,
    /// Their mean: the NCP (GCP) of the release.
    pub ncp: f64,
    /// Whether each attribute was numeric.
    pub numeric: Vec<bool>,
    /// The leaf codes of the [`Extent::Set`]s, each set's in label order.
    pub sets: Vec<u32>,
}

impl Partition {
    /// The printed label of class `c` on attribute `j`; `top` is what a [`Extent::Top`]
    /// prints (the suppressed label).
    pub fn label(&self, table: &EncodedTable, c: usize, j: usize, top: &str) -> String {
        let h = &table.hierarchies[j];
        let leaf = |code: u32| h.label(0, h.get(code, 0));
        match self.classes[c].extents[j] {
            Extent::Range { low, high } if low == high => leaf(low).to_string(),
            Extent::Range { low, high } => format!("[{}:{}]", leaf(low), leaf(high)),
            Extent::Node { level, id } => h.label(level, id).to_string(),
            Extent::Top => top.to_string(),
            Extent::Set { start, len } => {
                let codes = &self.sets[start as usize..(start + len) as usize];
                match codes {
                    [one] => leaf(*one).to_string(),
                    _ => {
                        let values: Vec<&str> = codes.iter().map(|&c| leaf(c)).collect();
                        format!("{{{}}}", values.join(","))
                    }
                }
            }
        }
    }
}

/// The number of a leaf label, if it is one (surrounding spaces allowed).
pub fn number_of(label: &str) -> Option<f64> {
    label.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

/// One attribute as the splits see it.
enum Axis<'a> {
    /// `rank[code]`: the rank of the leaf's value among the distinct values; `values[rank]`,
    /// `code[rank]` (the first leaf of that value); `span`: the table's range.
    Numeric {
        rank: Vec<u32>,
        values: Vec<f64>,
        code: Vec<u32>,
        span: f64,
    },
    /// `under[level][id]`: the leaves under a node.
    Tree {
        h: &'a Hierarchy,
        under: Vec<Vec<u32>>,
    },
}

impl<'a> Axis<'a> {
    fn of(h: &'a Hierarchy, present: &[bool]) -> Axis<'a> {
        let numbers: Option<Vec<f64>> = (0..h.leaves() as u32)
            .map(|c| number_of(h.label(0, h.get(c, 0))))
            .collect();
        match numbers {
            Some(numbers) if !numbers.is_empty() => {
                let mut order: Vec<u32> = (0..numbers.len() as u32).collect();
                order.sort_by(|&a, &b| numbers[a as usize].total_cmp(&numbers[b as usize]));
                let mut rank = vec![0u32; numbers.len()];
                let mut values: Vec<f64> = Vec::new();
                let mut code = Vec::new();
                for &c in &order {
                    let x = numbers[c as usize];
                    if values.last() != Some(&x) {
                        values.push(x);
                        code.push(c);
                    }
                    rank[c as usize] = values.len() as u32 - 1;
                }
                // The span of the values the table holds (a hierarchy may list more).
                let held: Vec<f64> = (0..numbers.len())
                    .filter(|&c| present[c])
                    .map(|c| numbers[c])
                    .collect();
                let lo = held.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = held.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                Axis::Numeric {
                    rank,
                    values,
                    code,
                    span: if hi > lo { hi - lo } else { 0.0 },
                }
            }
            _ => {
                let under = (0..h.levels())
                    .map(|level| {
                        let mut n = vec![0u32; h.width(level)];
                        for c in 0..h.leaves() as u32 {
                            n[h.get(c, level) as usize] += 1;
                        }
                        n
                    })
                    .collect();
                Axis::Tree { h, under }
            }
        }
    }

    /// The key of a leaf code on this axis: its rank, or the code itself.
    fn key(&self, code: u32) -> u32 {
        match self {
            Axis::Numeric { rank, .. } => rank[code as usize],
            Axis::Tree { .. } => code,
        }
    }

    /// The extent of a set of keys (non-empty) and its normalized width.
    fn extent(&self, keys: impl Iterator<Item = u32>) -> (Extent, f64) {
        match self {
            Axis::Numeric {
                values, code, span, ..
            } => {
                let (mut lo, mut hi) = (u32::MAX, 0u32);
                for k in keys {
                    lo = lo.min(k);
                    hi = hi.max(k);
                }
                let width = if *span > 0.0 {
                    (values[hi as usize] - values[lo as usize]) / span
                } else {
                    0.0
                };
                (
                    Extent::Range {
                        low: code[lo as usize],
                        high: code[hi as usize],
                    },
                    width,
                )
            }
            Axis::Tree { h, under } => {
                let mut keys = keys.peekable();
                let first = *keys.peek().expect("a class holds a tuple");
                let mut level = 0usize;
                for c in keys {
                    while level < h.levels() && h.get(c, level) != h.get(first, level) {
                        level += 1;
                    }
                }
                let total = h.leaves() as f64;
                if level == h.levels() {
                    return (Extent::Top, if total > 1.0 { 1.0 } else { 0.0 });
                }
                let id = h.get(first, level);
                let width = if total > 1.0 {
                    (under[level][id as usize] as f64 - 1.0) / (total - 1.0)
                } else {
                    0.0
                };
                (Extent::Node { level, id }, width)
            }
        }
    }
}

/// Per-tuple distributions of one sensitive column: tuple `t`'s codes and counts at
/// `start[t]..start[t + 1]`.
struct TupleDistributions {
    start: Vec<u32>,
    codes: Vec<u32>,
    counts: Vec<u32>,
    values: usize,
}

impl TupleDistributions {
    /// Of column `s`, over the released records.
    fn new(table: &EncodedTable, s: usize) -> TupleDistributions {
        let col = &table.sensitive[s];
        let mut pairs: Vec<(u32, u32)> = (0..table.rows())
            .filter(|&r| table.is_released(r))
            .map(|r| (table.tuple_of(r) as u32, col.codes[r]))
            .collect();
        pairs.sort_unstable();
        let mut start = vec![0u32; table.tuples() + 1];
        let (mut codes, mut counts) = (Vec::new(), Vec::<u32>::new());
        let mut last = None;
        for (t, c) in pairs {
            if last == Some((t, c)) {
                *counts.last_mut().expect("pushed") += 1;
            } else {
                codes.push(c);
                counts.push(1);
                start[t as usize + 1] = codes.len() as u32;
                last = Some((t, c));
            }
        }
        for t in 1..start.len() {
            start[t] = start[t].max(start[t - 1]);
        }
        TupleDistributions {
            start,
            codes,
            counts,
            values: col.values.len(),
        }
    }
}

/// Judges sets of distinct tuples by every criterion, as the checker judges a class: here the
/// parts of a partition, and the classes of a cell suppression ([`crate::algorithms::cells`]).
pub(crate) struct Judge {
    pub(crate) criteria: Vec<Box<dyn PrivacyCriterion>>,
    min: u64,
    /// Sensitive columns whose distributions are kept, and each criterion's slots.
    tuples: Vec<TupleDistributions>,
    maps: Vec<Vec<usize>>,
    dense: Vec<Vec<u32>>,
    bufs: Vec<DistributionBuf>,
}

impl Judge {
    fn new(table: &EncodedTable, params: &Params<'_>) -> Result<Judge> {
        let mut criteria = privacy::build(params.privacy, params.k, table)?;
        // A model of the whole table's class sizes passes every class alone: a partition
        // cannot enforce it (the config refuses it; this keeps a library caller from it too).
        if let Some(c) = criteria.iter().find(|c| c.judges_sizes()) {
            return Err(Error::Invalid(format!(
                "{} is not enforced by Mondrian: it judges the whole table's class sizes",
                c.name()
            )));
        }
        if !params.privacy.is_empty() {
            criteria.push(Box::new(privacy::KAnonymity { k: params.k }));
        }
        Ok(Judge::of_criteria(table, criteria))
    }

    /// A judge of `criteria` over `table`'s released records.
    pub(crate) fn of_criteria(
        table: &EncodedTable,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
    ) -> Judge {
        let mut columns: Vec<usize> = Vec::new();
        let mut maps = Vec::new();
        let mut min = 1;
        for c in &criteria {
            let req = c.requirements();
            min = min.max(req.min_class_size);
            maps.push(
                req.distributions
                    .iter()
                    .map(|&s| match columns.iter().position(|&x| x == s) {
                        Some(i) => i,
                        None => {
                            columns.push(s);
                            columns.len() - 1
                        }
                    })
                    .collect(),
            );
        }
        let tuples: Vec<TupleDistributions> = columns
            .iter()
            .map(|&s| TupleDistributions::new(table, s))
            .collect();
        Judge {
            criteria,
            min,
            dense: tuples.iter().map(|t| vec![0; t.values]).collect(),
            bufs: vec![DistributionBuf::new(); tuples.len()],
            tuples,
            maps,
        }
    }

    /// The first criterion that the records of `tuples` fail, if any (`counts[t]`: tuple
    /// `t`'s released records).
    pub(crate) fn fails(&mut self, tuples: &[u32], counts: &[u64]) -> Option<usize> {
        let size: u64 = tuples.iter().map(|&t| counts[t as usize]).sum();
        if size < self.min {
            return Some(
                self.criteria
                    .iter()
                    .position(|c| c.requirements().min_class_size > size)
                    .unwrap_or(0),
            );
        }
        for ((d, dense), buf) in self.tuples.iter().zip(&mut self.dense).zip(&mut self.bufs) {
            let mut touched = Vec::new();
            for &t in tuples {
                let (s, e) = (
                    d.start[t as usize] as usize,
                    d.start[t as usize + 1] as usize,
                );
                for i in s..e {
                    let c = d.codes[i] as usize;
                    if dense[c] == 0 {
                        touched.push(d.codes[i]);
                    }
                    dense[c] += d.counts[i];
                }
            }
            *buf = DistributionBuf::from_pairs(touched.iter().map(|&c| (c, dense[c as usize])));
            for &c in &touched {
                dense[c as usize] = 0;
            }
        }
        let views: Vec<Distribution<'_>> = self.bufs.iter().map(DistributionBuf::view).collect();
        self.criteria.iter().zip(&self.maps).position(|(c, map)| {
            !(c.size_only() || c.is_satisfied(&ClassView::new(size, &views, map)))
        })
    }
}

/// Runs Mondrian over the table's distinct tuples.
pub fn partition(table: &EncodedTable, params: &Params<'_>) -> Result<Partition> {
    let d = table.width();
    let n = table.tuples();
    let mut counts = vec![0u64; n];
    for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
        counts[table.tuple_of(r)] += 1;
    }
    let axes: Vec<Axis<'_>> = table
        .hierarchies
        .iter()
        .enumerate()
        .map(|(j, h)| {
            let mut present = vec![false; h.leaves()];
            for c in table.column(j).iter() {
                present[c as usize] = true;
            }
            Axis::of(h, &present)
        })
        .collect();
    let keys: Vec<Vec<u32>> = axes
        .iter()
        .enumerate()
        .map(|(j, a)| table.column(j).iter().map(|c| a.key(c)).collect())
        .collect();
    // The values each attribute holds (the denominator of a set's NCP).
    let held: Vec<usize> = (0..d)
        .map(|j| {
            let mut seen = vec![false; table.hierarchies[j].leaves()];
            table.column(j).iter().for_each(|c| seen[c as usize] = true);
            seen.iter().filter(|&&x| x).count()
        })
        .collect();
    let mut sets: Vec<u32> = Vec::new();
    // Per attribute, the stamp of the last class that held each value (sets' widths).
    let mut seen: Vec<Vec<u32>> = if params.labels == Labels::Sets {
        (0..d)
            .map(|j| vec![0; table.hierarchies[j].leaves()])
            .collect()
    } else {
        Vec::new()
    };
    let mut stamp = 0u32;
    let mut judge = Judge::new(table, params)?;
    let mut perm: Vec<u32> = (0..n as u32).collect();
    if let Some(c) = judge.fails(&perm, &counts) {
        return Err(Error::Invalid(format!(
            "Mondrian: the whole table fails {}, so no partition of it can satisfy it",
            judge.criteria[c].name()
        )));
    }

    let mut classes = Vec::new();
    let mut tuple_class = vec![0u32; n];
    let mut penalty = vec![0.0f64; d];
    let mut records = 0u64;
    let mut queue: VecDeque<(usize, usize)> = VecDeque::from([(0, n)]);
    while let Some((s, e)) = queue.pop_front() {
        let mut extents = Vec::with_capacity(d);
        let mut widths = Vec::with_capacity(d);
        for (j, (axis, key)) in axes.iter().zip(&keys).enumerate() {
            let (x, mut w) = axis.extent(perm[s..e].iter().map(|&t| key[t as usize]));
            if params.labels == Labels::Sets && matches!(axis, Axis::Tree { .. }) {
                // A set's width: the class's values over the column's.
                stamp += 1;
                let mut distinct = 0usize;
                for &t in &perm[s..e] {
                    let c = key[t as usize] as usize;
                    if seen[j][c] != stamp {
                        seen[j][c] = stamp;
                        distinct += 1;
                    }
                }
                w = if held[j] > 1 {
                    (distinct - 1) as f64 / (held[j] - 1) as f64
                } else {
                    0.0
                };
            }
            extents.push(x);
            widths.push(w);
        }
        let mut order: Vec<usize> = (0..d).filter(|&j| widths[j] > 0.0).collect();
        order.sort_by(|&a, &b| widths[b].total_cmp(&widths[a]).then(a.cmp(&b)));
        let mut cut = None;
        for j in order {
            let part = &mut perm[s..e];
            let bounds = match &axes[j] {
                Axis::Numeric { .. } => split_numeric(part, &keys[j], &counts, params.partitioning),
                Axis::Tree { h, .. } => {
                    let level = match extents[j] {
                        Extent::Node { level, .. } => level - 1,
                        _ => h.max_level(),
                    };
                    split_tree(part, &keys[j], h, level)
                        .and_then(|groups| pool_small(part, groups, &counts, &mut judge))
                }
            };
            let Some(bounds) = bounds else { continue };
            let mut from = 0;
            let ok = bounds.iter().all(|&to| {
                let fails = judge.fails(&part[from..to], &counts).is_some();
                from = to;
                !fails
            });
            if ok {
                cut = Some(bounds);
                break;
            }
        }
        match cut {
            Some(bounds) => {
                let mut from = s;
                for b in bounds {
                    queue.push_back((from, s + b));
                    from = s + b;
                }
            }
            None => {
                let size: u64 = perm[s..e].iter().map(|&t| counts[t as usize]).sum();
                for &t in &perm[s..e] {
                    tuple_class[t as usize] = classes.len() as u32;
                }
                if params.labels == Labels::Sets {
                    for (j, axis) in axes.iter().enumerate() {
                        let Axis::Tree { h, .. } = axis else { continue };
                        let mut codes: Vec<u32> =
                            perm[s..e].iter().map(|&t| keys[j][t as usize]).collect();
                        codes.sort_unstable();
                        codes.dedup();
                        codes
                            .sort_by(|&a, &b| h.label(0, h.get(a, 0)).cmp(h.label(0, h.get(b, 0))));
                        widths[j] = if held[j] > 1 {
                            (codes.len() - 1) as f64 / (held[j] - 1) as f64
                        } else {
                            0.0
                        };
                        extents[j] = Extent::Set {
                            start: sets.len() as u32,
                            len: codes.len() as u32,
                        };
                        sets.extend(codes);
                    }
                }
                for (p, w) in penalty.iter_mut().zip(&widths) {
                    *p += size as f64 * w;
                }
                records += size;
                classes.push(FinalClass { size, extents });
            }
        }
    }
    let ncp_by_attribute: Vec<f64> = penalty
        .iter()
        .map(|p| if records > 0 { p / records as f64 } else { 0.0 })
        .collect();
    let ncp = if d > 0 {
        ncp_by_attribute.iter().sum::<f64>() / d as f64
    } else {
        0.0
    };
    Ok(Partition {
        classes,
        tuple_class,
        ncp_by_attribute,
        ncp,
        numeric: axes
            .iter()
            .map(|a| matches!(a, Axis::Numeric { .. }))
            .collect(),
        sets,
    })
}

/// Reorders a numeric class's tuples into two parts and returns their ends (`None`: no cut).
fn split_numeric(
    part: &mut [u32],
    key: &[u32],
    counts: &[u64],
    partitioning: Partitioning,
) -> Option<Vec<usize>> {
    let size: u64 = part.iter().map(|&t| counts[t as usize]).sum();
    let target = size.div_ceil(2).max(1);
    match partitioning {
        Partitioning::Strict => {
            let mut items: Vec<(u32, u64)> = part
                .iter()
                .map(|&t| (key[t as usize], counts[t as usize]))
                .collect();
            let mut median = super::weighted_select(&mut items, target);
            let max = items
                .iter()
                .map(|i| i.0)
                .max()
                .expect("a class holds a tuple");
            if median == max {
                // Everything at or below the median: cut below it instead.
                median = items.iter().map(|i| i.0).filter(|&k| k < max).max()?;
            }
            let mut i = 0;
            for j in 0..part.len() {
                if key[part[j] as usize] <= median {
                    part.swap(i, j);
                    i += 1;
                }
            }
            Some(vec![i, part.len()])
        }
        Partitioning::Relaxed => {
            part.sort_unstable_by_key(|&t| (key[t as usize], t));
            let mut cum = 0u64;
            let mut i = 0;
            while i < part.len() && cum < target {
                cum += counts[part[i] as usize];
                i += 1;
            }
            if i == part.len() {
                i -= 1;
            }
            (i > 0).then(|| vec![i, part.len()])
        }
    }
}

/// Keeps each child group of a categorical split that satisfies the criteria as a part of its
/// own and pools the others into one part (which publishes their lowest common node, the
/// class's own if they span several children); while the pool fails, the smallest group joins
/// it. Reorders `part` (groups ending at `groups`) into the parts and returns their ends, or
/// `None` if fewer than two parts remain. Without the pool one small child would forbid the
/// split of all the others (a country held by three records keeps every country at `*`).
fn pool_small(
    part: &mut [u32],
    groups: Vec<usize>,
    counts: &[u64],
    judge: &mut Judge,
) -> Option<Vec<usize>> {
    let mut from = 0;
    // (start, end, records, passes) per group.
    let mut info: Vec<(usize, usize, u64, bool)> = groups
        .iter()
        .map(|&to| {
            let g = &part[from..to];
            let records = g.iter().map(|&t| counts[t as usize]).sum();
            let passes = judge.fails(g, counts).is_none();
            let range = (from, to, records, passes);
            from = to;
            range
        })
        .collect();
    if info.iter().all(|g| g.3) {
        return Some(groups);
    }
    let pool_of = |info: &[(usize, usize, u64, bool)]| -> Vec<u32> {
        info.iter()
            .filter(|g| !g.3)
            .flat_map(|g| part[g.0..g.1].iter().copied())
            .collect()
    };
    loop {
        let pool = pool_of(&info);
        if judge.fails(&pool, counts).is_none() {
            break;
        }
        // The smallest group still apart joins the pool.
        let smallest = info.iter_mut().filter(|g| g.3).min_by_key(|g| g.2)?;
        smallest.3 = false;
    }
    let apart = info.iter().filter(|g| g.3).count();
    if apart == 0 || (apart == 1 && info.iter().all(|g| g.3)) {
        return None;
    }
    let mut reordered: Vec<u32> = Vec::with_capacity(part.len());
    let mut ends = Vec::new();
    for g in info.iter().filter(|g| g.3) {
        reordered.extend_from_slice(&part[g.0..g.1]);
        ends.push(reordered.len());
    }
    reordered.extend(pool_of(&info));
    if reordered.len() > *ends.last().expect("a group apart") {
        ends.push(reordered.len());
    }
    (ends.len() >= 2).then(|| {
        part.copy_from_slice(&reordered);
        ends
    })
}

/// Reorders a categorical class's tuples by their node at `level` and returns the groups' ends
/// (`None` if they share one).
fn split_tree(part: &mut [u32], key: &[u32], h: &Hierarchy, level: usize) -> Option<Vec<usize>> {
    part.sort_unstable_by_key(|&t| (h.get(key[t as usize], level), t));
    let mut bounds = Vec::new();
    for i in 1..part.len() {
        if h.get(key[part[i] as usize], level) != h.get(key[part[i - 1] as usize], level) {
            bounds.push(i);
        }
    }
    if bounds.is_empty() {
        return None;
    }
    bounds.push(part.len());
    Some(bounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::SensitiveColumn;

    fn hierarchy(name: &str, rows: &[&[&str]]) -> Hierarchy {
        let rows: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
        Hierarchy::from_label_rows(name, &rows)
    }

    /// Ages (numeric) and a two-level tree of jobs; the classes, their labels and the NCP.
    #[test]
    fn numeric_and_tree_splits() {
        let age = hierarchy(
            "age",
            &[&["20", "*"], &["30", "*"], &["40", "*"], &["50", "*"]],
        );
        let job = hierarchy(
            "job",
            &[
                &["nurse", "health", "*"],
                &["doctor", "health", "*"],
                &["clerk", "office", "*"],
                &["typist", "office", "*"],
            ],
        );
        // (age code, job code) per record.
        let rows: Vec<u32> = [
            (0, 0),
            (0, 1),
            (1, 0),
            (1, 1),
            (2, 2),
            (2, 3),
            (3, 2),
            (3, 3),
        ]
        .iter()
        .flat_map(|&(a, j)| [a, j])
        .collect();
        let table = EncodedTable::new(rows, vec![age, job], vec![]);
        let params = Params {
            k: 2,
            privacy: &[],
            partitioning: Partitioning::Strict,
            labels: Labels::Nodes,
        };
        let p = partition(&table, &params).unwrap();
        let labels: Vec<Vec<String>> = (0..p.classes.len())
            .map(|c| (0..2).map(|j| p.label(&table, c, j, "*")).collect())
            .collect();
        // Age splits first (its width 1 ties the job's, first in order); then each half
        // splits by age again.
        assert_eq!(
            labels,
            vec![
                vec!["20".to_string(), "health".into()],
                vec!["30".into(), "health".into()],
                vec!["40".into(), "office".into()],
                vec!["50".into(), "office".into()],
            ]
        );
        assert!(p.classes.iter().all(|c| c.size == 2));
        assert!((p.ncp_by_attribute[0] - 0.0).abs() < 1e-12);
        assert!((p.ncp_by_attribute[1] - 1.0 / 3.0).abs() < 1e-12);
        // k = 4: one cut (age), then the tree gives nothing more.
        let p = partition(&table, &Params { k: 4, ..params }).unwrap();
        assert_eq!(p.classes.len(), 2);
        assert_eq!(p.label(&table, 0, 0, "*"), "[20:30]");
        assert_eq!(p.label(&table, 0, 1, "*"), "health");
    }

    /// Children too small alone are pooled (with the smallest child that passes, if the pool
    /// fails): b apart, a and c together at the top.
    #[test]
    fn small_children_are_pooled() {
        let x = hierarchy("x", &[&["a", "*"], &["b", "*"], &["c", "*"]]);
        let rows = vec![0, 0, 0, 1, 1, 1, 2];
        let table = EncodedTable::new(rows, vec![x], vec![]);
        let params = Params {
            k: 3,
            privacy: &[],
            partitioning: Partitioning::Strict,
            labels: Labels::Nodes,
        };
        let p = partition(&table, &params).unwrap();
        let labels: Vec<String> = (0..2).map(|c| p.label(&table, c, 0, "*")).collect();
        assert_eq!(labels, ["b", "*"]);
        assert_eq!(p.classes[1].size, 4);
        // k = 4: the pool takes everything: no split.
        assert_eq!(
            partition(&table, &Params { k: 4, ..params })
                .unwrap()
                .classes
                .len(),
            1
        );
    }

    /// Distinct 2-diversity refuses a split whose parts hold one sensitive value.
    #[test]
    fn privacy_models_are_checked_per_part() {
        let age = hierarchy("age", &[&["1", "*"], &["2", "*"]]);
        let rows = vec![0, 0, 1, 1];
        let sens = SensitiveColumn {
            name: "disease".into(),
            codes: vec![0, 0, 1, 1],
            values: vec!["flu".into(), "cold".into()],
            numeric: None,
            hierarchy: None,
        };
        let table = EncodedTable::new(rows, vec![age], vec![sens]);
        let models = [PrivacyModel::DistinctL {
            attribute: 0,
            l: 2.0,
        }];
        let params = Params {
            k: 1,
            privacy: &models,
            partitioning: Partitioning::Strict,
            labels: Labels::Nodes,
        };
        let p = partition(&table, &params).unwrap();
        assert_eq!(p.classes.len(), 1);
        assert_eq!(p.label(&table, 0, 0, "*"), "[1:2]");
        let p = partition(
            &table,
            &Params {
                privacy: &[],
                ..params
            },
        )
        .unwrap();
        assert_eq!(p.classes.len(), 2);
        // 3-diversity fails on the whole table.
        let models = [PrivacyModel::DistinctL {
            attribute: 0,
            l: 3.0,
        }];
        let e = partition(
            &table,
            &Params {
                privacy: &models,
                ..params
            },
        )
        .unwrap_err();
        assert!(e.to_string().contains("the whole table fails"), "{e}");
    }

    /// Relaxed partitioning splits a class that strict partitioning cannot: most records hold
    /// the median.
    #[test]
    fn relaxed_splits_at_the_middle_record() {
        let x = hierarchy("x", &[&["1", "*"], &["2", "*"], &["3", "*"]]);
        let y = hierarchy("y", &[&["a", "*"], &["b", "*"]]);
        // x = 2 for most records; y cannot split (b holds 2 records).
        let rows: Vec<u32> = [(0, 0), (1, 0), (1, 0), (1, 1), (1, 1), (2, 0)]
            .iter()
            .flat_map(|&(a, b)| [a, b])
            .collect();
        let table = EncodedTable::new(rows, vec![x, y], vec![]);
        let strict = Params {
            k: 3,
            privacy: &[],
            partitioning: Partitioning::Strict,
            labels: Labels::Nodes,
        };
        // Strict: x <= 2 holds 5 records, x <= 1 one.
        let p = partition(&table, &strict).unwrap();
        assert_eq!(p.classes.len(), 1);
        let relaxed = Params {
            partitioning: Partitioning::Relaxed,
            labels: Labels::Nodes,
            ..strict
        };
        let r = partition(&table, &relaxed).unwrap();
        assert_eq!(r.classes.len(), 2);
        assert_eq!(r.label(&table, 0, 0, "*"), "[1:2]");
        assert_eq!(r.label(&table, 1, 0, "*"), "[2:3]");
        assert!(r.classes.iter().all(|c| c.size == 3));
        assert!(r.ncp < p.ncp);
    }
}
