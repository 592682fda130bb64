//! Mondrian multidimensional k-anonymity (LeFevre et al. 2006), exactly as the UT Dallas toolbox
//! runs it (`../shared/UTD-TOOLBOX.md` §7.2), on `<vgh>`s with k-anonymity alone. Every other
//! config (hierarchy files, builders, other privacy models, relaxed cuts) runs [`hierarchical`].
//!
//! The VGH is ignored except for its root: every quasi-identifier starts as the root interval
//! (printed verbatim, e.g. `[0:100)`) and is split on raw points (numbers, or the mapped integers
//! of categories). The classes are processed in increasing id order (the toolbox's SQL takes the
//! smallest pending id, and new ids are `max + 1`, so this is a FIFO queue). For a class of n
//! records and each quasi-identifier in `<qid>` order:
//! - the median is the smallest value v with `count(x <= v) >= n/2` (real division);
//! - the cut is allowable iff `count(x <= v) >= k` and `count(x > v) >= k` (so a median equal to
//!   the class maximum never cuts, even where another point would);
//! - the normalized width is (high − low of the class's interval) / (high − low of the root); a
//!   singleton-form interval (`[5]`) counts as width 1.
//!
//! The class is cut on the allowable dimension with the strictly largest normalized width (ties:
//! the first in `<qid>` order; width 0 never). The left half is `lowBracket low:median]`, the
//! right `(median:high highBracket`, bounds printed with Java's `Double.toString` (`[0.0:34.0]`,
//! `(34.0:100.0)`); the halves get ids `max + 1` (left) and `max + 2` (right). A class without an
//! allowable cut is final; final classes are numbered 1, 2, ... in the order they are finalised.
//! If a final class is smaller than k (only when n < k) the table cannot be anonymized.
//!
//! Trace lines (`Processing EID = e, [[g1],[g2]]`, `\tInserted a (left) and b (right)`,
//! `\tRemoving e (no allowable cuts)`) go to an optional callback, which the tests compare with
//! the toolbox's console output. The `anonbox` command does not print them: they are two lines
//! per class (tens of thousands on the full census file), a debugging trace rather than a
//! summary, and the report already gives the number of classes.
//!
//! Storage: the algorithm asks a [`Partitioner`] for medians and cuts. Since a dimension's values
//! are compared only by order, each dimension's distinct points are ranked once ([`Dimension`])
//! and backends work on `u32` ranks. [`MemoryPartitioner`] keeps the rows as a permutation with
//! one contiguous range per class (quickselect for the median, an in-place partition for the
//! cut: `O(n)` per level of the recursion); the store's partitioner does the same with `GROUP
//! BY` and `UPDATE` on an indexed working table. Both give identical classes (tested).

use std::collections::VecDeque;

pub mod hierarchical;
pub mod hybrid;

use super::tuples::{qid_points, Backend};
use super::{Details, Outcome, StepObserver};
use crate::data::load::Encoding;
use crate::data::{Generalization, QuasiIdentifier};
use crate::hierarchy::vgh::Interval;
use crate::javafmt::double_to_string;
use crate::store::Store;
use crate::{Error, Result};

/// A quasi-identifier as Mondrian sees it: its root interval and its distinct points, ranked.
#[derive(Debug, Clone)]
pub struct Dimension {
    /// The VGH root as written (what an unsplit class prints).
    pub root_label: String,
    pub root: Interval,
    /// Distinct points in ascending order: `points[rank]`.
    pub points: Vec<f64>,
}

impl Dimension {
    /// A dimension from the VGH root's label and the distinct points (any order, deduplicated
    /// here).
    pub fn new(root_label: &str, mut points: Vec<f64>) -> Result<Dimension> {
        let root = Interval::parse(root_label)
            .map_err(|m| Error::Invalid(format!("Mondrian: VGH root {root_label}: {m}")))?;
        points.sort_by(|a, b| a.partial_cmp(b).expect("points are numbers"));
        points.dedup();
        Ok(Dimension {
            root_label: root_label.to_string(),
            root,
            points,
        })
    }

    /// The rank of a point (which must be one of the dimension's points).
    pub fn rank(&self, x: f64) -> u32 {
        self.points
            .binary_search_by(|p| p.partial_cmp(&x).expect("points are numbers"))
            .expect("a point of the dimension") as u32
    }

    /// The toolbox's width of an interval: high − low, or 1 for a singleton-form label.
    fn width_of(label_is_singleton: bool, low: f64, high: f64) -> f64 {
        if label_is_singleton {
            1.0
        } else {
            high - low
        }
    }

    fn root_is_singleton_form(&self) -> bool {
        !self.root_label.contains(':')
    }

    fn root_width(&self) -> f64 {
        Self::width_of(self.root_is_singleton_form(), self.root.low, self.root.high)
    }
}

/// A class's interval on one dimension.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// Never split: prints the root's label.
    Root,
    /// Split at least once.
    Range {
        low: f64,
        high: f64,
        low_closed: bool,
        high_closed: bool,
    },
}

impl Bound {
    /// The printed form.
    pub fn label(&self, dim: &Dimension) -> String {
        match *self {
            Bound::Root => dim.root_label.clone(),
            Bound::Range {
                low,
                high,
                low_closed,
                high_closed,
            } => format!(
                "{}{}:{}{}",
                if low_closed { '[' } else { '(' },
                double_to_string(low),
                double_to_string(high),
                if high_closed { ']' } else { ')' }
            ),
        }
    }

    fn parts(&self, dim: &Dimension) -> (f64, f64, bool, bool) {
        match *self {
            Bound::Root => (
                dim.root.low,
                dim.root.high,
                dim.root.low_closed,
                dim.root.high_closed,
            ),
            Bound::Range {
                low,
                high,
                low_closed,
                high_closed,
            } => (low, high, low_closed, high_closed),
        }
    }

    /// Normalized width: this interval's width over the root's.
    fn normalized_width(&self, dim: &Dimension) -> f64 {
        let w = match *self {
            Bound::Root => dim.root_width(),
            Bound::Range { low, high, .. } => Dimension::width_of(false, low, high),
        };
        w / dim.root_width()
    }

    /// The two halves of a cut at `median`.
    fn split(&self, dim: &Dimension, median: f64) -> (Bound, Bound) {
        let (low, high, low_closed, high_closed) = self.parts(dim);
        (
            Bound::Range {
                low,
                high: median,
                low_closed,
                high_closed: true,
            },
            Bound::Range {
                low: median,
                high,
                low_closed: false,
                high_closed,
            },
        )
    }
}

/// The storage side of Mondrian: classes of rows, medians and cuts on ranks.
pub trait Partitioner {
    /// A handle on a class's rows.
    type Class: Clone;
    /// The class of all rows.
    fn all(&mut self) -> Result<Self::Class>;
    /// The smallest rank v on dimension `dim` with `count(x <= v) >= n/2` among the class's `n`
    /// rows, and `count(x <= v)`.
    fn median(&mut self, class: &Self::Class, n: u64, dim: usize) -> Result<(u32, u64)>;
    /// Cuts the class into rows with rank `<= median` on `dim` (left, `left` rows) and the rest.
    fn split(
        &mut self,
        class: Self::Class,
        dim: usize,
        median: u32,
        left: u64,
    ) -> Result<(Self::Class, Self::Class)>;
    /// Records the class as final with id `eid` (1, 2, ... in order).
    fn finalize(&mut self, class: Self::Class, eid: u32) -> Result<()>;
}

/// A final class: its id and its interval on each dimension.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalClass {
    pub eid: u32,
    pub size: u64,
    pub bounds: Vec<Bound>,
}

/// How many of a class's `n` records lie at or below the toolbox's median: the smallest count c
/// with `c >= n / 2` in real division, i.e. `ceil(n / 2)` (at least 1).
pub fn median_count(n: u64) -> u64 {
    n.div_ceil(2).max(1)
}

/// Where a class sits in the tree of cuts: its depth and the sides taken from the root (bit
/// `i` of the path, most significant first, is 1 for a right half at depth `i + 1`).
///
/// The toolbox's queue is first in, first out, so classes are processed (and final classes
/// numbered) breadth first: by depth, then by path. `Path`'s order is exactly that order, which
/// lets the hybrid backend number classes found partition by partition as the toolbox would.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Path {
    depth: u32,
    bits: Vec<u64>,
}

impl Path {
    /// The path of a half of this class.
    pub fn child(&self, right: bool) -> Path {
        let mut bits = self.bits.clone();
        let at = self.depth as usize;
        if at / 64 == bits.len() {
            bits.push(0);
        }
        if right {
            bits[at / 64] |= 1u64 << (63 - at % 64);
        }
        Path {
            depth: self.depth + 1,
            bits,
        }
    }
}

/// A class waiting to be cut: where it is and what it holds.
#[derive(Debug, Clone)]
pub struct Start {
    /// The toolbox's working id (trace lines only).
    pub eid: u64,
    pub size: u64,
    pub bounds: Vec<Bound>,
    pub path: Path,
}

impl Start {
    /// The class of all `rows` records.
    pub fn root(dims: &[Dimension], rows: u64) -> Start {
        Start {
            eid: 1,
            size: rows,
            bounds: vec![Bound::Root; dims.len()],
            path: Path::default(),
        }
    }

    /// The two halves of a cut on `dim` at rank `median`, with `left` records on the left;
    /// working ids `le` and `le + 1`.
    pub fn halves(&self, dims: &[Dimension], dim: usize, median: u32, left: u64) -> (Start, Start) {
        let (lb, rb) = self.bounds[dim].split(&dims[dim], dims[dim].points[median as usize]);
        let mut lbounds = self.bounds.clone();
        lbounds[dim] = lb;
        let mut rbounds = self.bounds.clone();
        rbounds[dim] = rb;
        (
            Start {
                eid: 0,
                size: left,
                bounds: lbounds,
                path: self.path.child(false),
            },
            Start {
                eid: 0,
                size: self.size - left,
                bounds: rbounds,
                path: self.path.child(true),
            },
        )
    }
}

/// The toolbox's cut of a class of `size` records with `bounds`: the allowable dimension of the
/// largest normalized width (ties: `<qid>` order; width 0 never), as `(dim, median, left)`.
/// `median(d)` gives the median rank on `d` and the records at or below it.
pub fn choose_cut(
    dims: &[Dimension],
    bounds: &[Bound],
    size: u64,
    k: u64,
    mut median: impl FnMut(usize) -> Result<(u32, u64)>,
) -> Result<Option<(usize, u32, u64)>> {
    if size < 2 * k {
        return Ok(None);
    }
    let widths: Vec<f64> = bounds
        .iter()
        .zip(dims)
        .map(|(b, d)| b.normalized_width(d))
        .collect();
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by(|&a, &b| {
        widths[b]
            .partial_cmp(&widths[a])
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    for d in order {
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !(widths[d] > 0.0) {
            break;
        }
        let (m, left) = median(d)?;
        if left >= k && size - left >= k {
            return Ok(Some((d, m, left)));
        }
    }
    Ok(None)
}

/// Runs Mondrian over `rows` records with the given dimensions. `trace`, if given, receives the
/// toolbox's console lines. Returns the final classes in id order.
pub fn anonymize<P: Partitioner>(
    dims: &[Dimension],
    rows: u64,
    k: u64,
    part: &mut P,
    trace: Option<&mut dyn FnMut(&str)>,
) -> Result<Vec<FinalClass>> {
    let mut finals = Vec::new();
    let all = part.all()?;
    split_from(
        dims,
        Start::root(dims, rows),
        all,
        k,
        part,
        trace,
        &mut |start, class, part| {
            let eid = finals.len() as u32 + 1;
            part.finalize(class, eid)?;
            finals.push(FinalClass {
                eid,
                size: start.size,
                bounds: start.bounds,
            });
            Ok(())
        },
    )?;
    Ok(finals)
}

/// What [`split_from`] does with a final class (its bounds, rows and partitioner).
pub type OnFinal<'a, P> = dyn FnMut(Start, <P as Partitioner>::Class, &mut P) -> Result<()> + 'a;

/// Cuts the class `start` (rows `class` of `part`) until no cut is allowable, in the toolbox's
/// first-in, first-out order; hands each final class to `done` in that order. Fails if a final
/// class is smaller than k.
pub fn split_from<P: Partitioner>(
    dims: &[Dimension],
    start: Start,
    class: P::Class,
    k: u64,
    part: &mut P,
    mut trace: Option<&mut dyn FnMut(&str)>,
    done: &mut OnFinal<'_, P>,
) -> Result<()> {
    let mut queue = VecDeque::new();
    let mut max_eid = start.eid;
    queue.push_back((start, class));
    while let Some((p, class)) = queue.pop_front() {
        if let Some(trace) = trace.as_mut() {
            let labels: Vec<String> = p
                .bounds
                .iter()
                .zip(dims)
                .map(|(b, d)| format!("[{}]", b.label(d)))
                .collect();
            trace(&format!(
                "Processing EID = {}, [{}]",
                p.eid,
                labels.join(",")
            ));
        }
        let cut = choose_cut(dims, &p.bounds, p.size, k, |d| {
            part.median(&class, p.size, d)
        })?;
        match cut {
            Some((d, median, left)) => {
                let (mut l, mut r) = p.halves(dims, d, median, left);
                let (lc, rc) = part.split(class, d, median, left)?;
                (l.eid, r.eid) = (max_eid + 1, max_eid + 2);
                max_eid += 2;
                if let Some(trace) = trace.as_mut() {
                    trace(&format!(
                        "\tInserted {} (left) and {} (right)",
                        l.eid, r.eid
                    ));
                }
                queue.push_back((l, lc));
                queue.push_back((r, rc));
            }
            None => {
                if let Some(trace) = trace.as_mut() {
                    trace(&format!("\tRemoving {} (no allowable cuts)", p.eid));
                }
                check_final_size(p.size, k)?;
                done(p, class, part)?;
            }
        }
    }
    Ok(())
}

/// A final class smaller than k (only when the table has fewer than k records) fails the run.
pub fn check_final_size(size: u64, k: u64) -> Result<()> {
    if size < k {
        return Err(Error::Invalid(format!(
            "This table cannot be anonymized at k = {k} (it has {size} records)"
        )));
    }
    Ok(())
}

/// Mondrian over distinct tuples in memory: `ranks[dim][tuple]`, each tuple's record count, a
/// permutation of the tuples with one contiguous range per class, and each tuple's final id.
///
/// Records with equal quasi-identifiers always fall on the same side of a cut (`x <= v`), so
/// classes are unions of tuples and working on tuples with counts gives the same classes as
/// working on records.
#[derive(Debug)]
pub struct MemoryPartitioner {
    ranks: Vec<Vec<u32>>,
    counts: Vec<u64>,
    perm: Vec<u32>,
    eid: Vec<u32>,
    scratch: Vec<(u32, u64)>,
}

impl MemoryPartitioner {
    /// From the tuples' ranks, one vector per dimension, and their record counts.
    pub fn new(ranks: Vec<Vec<u32>>, counts: Vec<u64>) -> MemoryPartitioner {
        let n = counts.len();
        debug_assert!(ranks.iter().all(|r| r.len() == n));
        MemoryPartitioner {
            ranks,
            counts,
            perm: (0..n as u32).collect(),
            eid: vec![0; n],
            scratch: Vec::new(),
        }
    }

    /// Records in all tuples.
    pub fn records(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Each tuple's final class id (`[tuple]`).
    pub fn into_eids(self) -> Vec<u32> {
        self.eid
    }
}

/// The smallest rank v with `Σ weight(rank <= v) >= target` among `items` (reordered in the
/// process): a weighted quickselect, expected `O(len)`.
pub fn weighted_select(items: &mut [(u32, u64)], mut target: u64) -> u32 {
    let mut lo = 0usize;
    let mut hi = items.len();
    loop {
        debug_assert!(lo < hi, "target beyond the total weight");
        let slice = &mut items[lo..hi];
        // Median of three as the pivot.
        let (a, b, c) = (
            slice[0].0,
            slice[slice.len() / 2].0,
            slice[slice.len() - 1].0,
        );
        let pivot = a.max(b).min(a.min(b).max(c));
        // Three-way partition: [< pivot | == pivot | > pivot].
        let (mut lt, mut i, mut gt) = (0usize, 0usize, slice.len());
        let (mut w_lt, mut w_eq) = (0u64, 0u64);
        while i < gt {
            let r = slice[i].0;
            if r < pivot {
                w_lt += slice[i].1;
                slice.swap(lt, i);
                lt += 1;
                i += 1;
            } else if r > pivot {
                gt -= 1;
                slice.swap(i, gt);
            } else {
                w_eq += slice[i].1;
                i += 1;
            }
        }
        if w_lt >= target {
            hi = lo + lt;
        } else if w_lt + w_eq >= target {
            return pivot;
        } else {
            target -= w_lt + w_eq;
            lo += gt;
        }
    }
}

impl Partitioner for MemoryPartitioner {
    type Class = (usize, usize);

    fn all(&mut self) -> Result<(usize, usize)> {
        Ok((0, self.perm.len()))
    }

    fn median(&mut self, &(s, e): &(usize, usize), n: u64, dim: usize) -> Result<(u32, u64)> {
        let col = &self.ranks[dim];
        let counts = &self.counts;
        self.scratch.clear();
        self.scratch.extend(
            self.perm[s..e]
                .iter()
                .map(|&t| (col[t as usize], counts[t as usize])),
        );
        let v = weighted_select(&mut self.scratch, median_count(n));
        let left = self
            .scratch
            .iter()
            .filter(|&&(r, _)| r <= v)
            .map(|&(_, w)| w)
            .sum();
        Ok((v, left))
    }

    fn split(
        &mut self,
        (s, e): (usize, usize),
        dim: usize,
        median: u32,
        _left: u64,
    ) -> Result<((usize, usize), (usize, usize))> {
        let col = &self.ranks[dim];
        let slice = &mut self.perm[s..e];
        let mut i = 0;
        for j in 0..slice.len() {
            if col[slice[j] as usize] <= median {
                slice.swap(i, j);
                i += 1;
            }
        }
        Ok(((s, s + i), (s + i, e)))
    }

    fn finalize(&mut self, (s, e): (usize, usize), eid: u32) -> Result<()> {
        for &t in &self.perm[s..e] {
            self.eid[t as usize] = eid;
        }
        Ok(())
    }
}

/// What Mondrian is asked for: the run builds it from its plan.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    pub k: u64,
    /// The quasi-identifiers, in `<qid>` order: each needs a VGH (its root is where the
    /// splits start).
    pub qids: &'a [QuasiIdentifier],
}

/// Runs Mondrian on a loaded store: fills `EquivalenceTable` and `QidTuple.EquivalenceID`.
/// `backend` sets the largest class finished in memory ([`hybrid::memory_tuples`]; see
/// [`hybrid`]); every backend gives the same classes, numbered the same way.
pub fn run(
    store: &Store,
    params: &Params<'_>,
    encoding: &Encoding,
    observer: &mut dyn StepObserver,
    backend: Backend,
) -> Result<Outcome> {
    let mut dims = Vec::with_capacity(params.qids.len());
    let mut rank_of_code: Vec<Vec<u32>> = Vec::with_capacity(params.qids.len());
    for (q, e) in params.qids.iter().zip(&encoding.qids) {
        let Generalization::Vgh(vgh) = &q.generalization else {
            return Err(Error::Invalid(format!(
                "Mondrian: quasi-identifier '{}' has a hierarchy file; Mondrian splits numbers \
                 and mapped categories, so it needs a <vgh> (its root is the starting interval)",
                q.name
            )));
        };
        let points = qid_points(e).ok_or_else(|| {
            Error::Invalid(format!(
                "Mondrian: the values of '{}' are not numbers",
                q.name
            ))
        })?;
        let dim = Dimension::new(vgh.root_label(), points.clone())?;
        rank_of_code.push(points.iter().map(|&x| dim.rank(x)).collect());
        dims.push(dim);
    }
    observer.start("Mondrian");
    let memory = hybrid::memory_tuples(backend);
    let classes = hybrid::partition(store, &dims, &rank_of_code, params.k, memory, observer)?;
    observer.step("Mondrian: writing classes");
    store.write_tuple_classes(&classes.tuple_class)?;
    let tx = store.begin()?;
    let d = dims.len();
    for (i, &size) in classes.sizes.iter().enumerate() {
        let labels: Vec<String> = classes.bounds[i * d..(i + 1) * d]
            .iter()
            .zip(&dims)
            .map(|(b, dim)| b.label(dim))
            .collect();
        let refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        tx.insert_class(i as i64 + 1, &refs, size, false)?;
    }
    tx.commit()?;
    observer.finish();
    let backend = match (memory, classes.store_passes) {
        (0, _) => "passes",
        (_, 0) => "memory",
        _ => "hybrid",
    };
    Ok(Outcome {
        equivalence_classes: classes.sizes.len() as u64,
        suppression_limit: Some(0),
        details: Details::Mondrian {
            backend,
            passes: classes.passes,
        },
        ..Outcome::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The census sample's (sex, age) tuples with counts, in order of first record.
    fn census() -> (Vec<Dimension>, Vec<Vec<u32>>, Vec<u64>) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/census-income-1k/Input/census-income_1K.data"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let mut tuples: Vec<(f64, f64)> = Vec::new();
        let mut counts: Vec<u64> = Vec::new();
        for line in text.lines().filter(|l| !l.contains('?') && !l.is_empty()) {
            let f: Vec<&str> = line.split(',').collect();
            let sex = if f[12].trim() == "Male" { 1.0 } else { 0.0 };
            let age: f64 = f[0].trim().parse().unwrap();
            match tuples.iter().position(|&t| t == (sex, age)) {
                Some(i) => counts[i] += 1,
                None => {
                    tuples.push((sex, age));
                    counts.push(1);
                }
            }
        }
        let sex = Dimension::new("[0:1]", tuples.iter().map(|t| t.0).collect()).unwrap();
        let age = Dimension::new("[0:100)", tuples.iter().map(|t| t.1).collect()).unwrap();
        let ranks = vec![
            tuples.iter().map(|t| sex.rank(t.0)).collect(),
            tuples.iter().map(|t| age.rank(t.1)).collect(),
        ];
        (vec![sex, age], ranks, counts)
    }

    /// The trace equals the toolbox's console output for k = 2, 5, 10.
    #[test]
    fn census_trace_matches_the_toolbox() {
        for k in [2u64, 5, 10] {
            let (dims, ranks, counts) = census();
            let mut part = MemoryPartitioner::new(ranks, counts);
            let n = part.records();
            let mut lines = Vec::new();
            let finals = anonymize(
                &dims,
                n,
                k,
                &mut part,
                Some(&mut |l: &str| lines.push(l.to_string())),
            )
            .unwrap();
            let console = std::fs::read_to_string(format!(
                "{}/tests/data/census-income-1k/reference/Mondrian_genVals_k{k}.console.txt",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            let want: Vec<&str> = console
                .lines()
                .filter(|l| l.starts_with("Processing") || l.starts_with('\t'))
                .collect();
            assert_eq!(lines, want, "k = {k}");
            assert!(finals.iter().all(|c| c.size >= k));
            assert_eq!(finals.iter().map(|c| c.size).sum::<u64>(), n);
        }
    }

    #[test]
    fn weighted_select_agrees_with_sorting() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for _ in 0..500 {
            let len = 1 + next() as usize % 40;
            let items: Vec<(u32, u64)> = (0..len)
                .map(|_| (next() % 12, 1 + next() as u64 % 5))
                .collect();
            let total: u64 = items.iter().map(|i| i.1).sum();
            let target = 1 + next() as u64 % total;
            let mut sorted = items.clone();
            sorted.sort();
            let mut cum = 0;
            let want = sorted
                .iter()
                .find(|i| {
                    cum += i.1;
                    cum >= target
                })
                .unwrap()
                .0;
            let mut work = items.clone();
            assert_eq!(
                weighted_select(&mut work, target),
                want,
                "{items:?} {target}"
            );
        }
    }

    #[test]
    fn labels_follow_the_toolbox() {
        let d = Dimension::new("[0:100)", vec![34.0]).unwrap();
        assert_eq!(Bound::Root.label(&d), "[0:100)");
        let (l, r) = Bound::Root.split(&d, 34.0);
        assert_eq!(l.label(&d), "[0.0:34.0]");
        assert_eq!(r.label(&d), "(34.0:100.0)");
        let (ll, lr) = l.split(&d, 20.0);
        assert_eq!(ll.label(&d), "[0.0:20.0]");
        assert_eq!(lr.label(&d), "(20.0:34.0]");
        assert_eq!(Bound::Root.normalized_width(&d), 1.0);
        assert_eq!(lr.normalized_width(&d), 0.14);
        let single = Dimension::new("[5]", vec![5.0]).unwrap();
        assert_eq!(Bound::Root.normalized_width(&single), 1.0);
        assert_eq!(median_count(5), 3);
        assert_eq!(median_count(4), 2);
        assert_eq!(median_count(1), 1);
    }

    #[test]
    fn too_few_records() {
        let d = Dimension::new("[0:10]", vec![1.0, 2.0]).unwrap();
        let mut part = MemoryPartitioner::new(vec![vec![0, 1]], vec![1, 1]);
        let e = anonymize(&[d], 2, 3, &mut part, None).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("This table cannot be anonymized at k = 3"));
    }
}
