//! Datafly (Sweeney), as the UT Dallas toolbox runs it (UTD-TOOLBOX.md §7.1), with the
//! suppression threshold of §8.
//!
//! Full-domain and greedy: starting from the original values, while the records in classes
//! smaller than k number more than the suppression threshold, generalize one level the
//! quasi-identifier with the most distinct generalized values (ties: the first in `<qid>`
//! order); then suppress the classes still smaller than k: their quasi-identifiers print as the
//! VGH root or the hierarchy's top level. The threshold is [`Params::suppression`] (tuples, or
//! `floor(f * n)` for a fraction), k tuples by default. Fewer than k records cannot be
//! anonymized.
//!
//! Everything runs over the distinct quasi-identifier tuples (`QidTuple`, with counts), never
//! over rows: in memory up to [`MEMORY_DATAFLY`] tuples, else in SQL on the store
//! ([`DataflyTuples`]), where a working copy `DataflyTuple` carries each tuple's current
//! generalized ids, one column per quasi-identifier; a generalization step rewrites one column
//! from `HierarchyMap`; classes are `GROUP BY` over those columns. The distinct values "among
//! the classes" are the distinct values of the column.
//!
//! Class numbers follow the toolbox: classes are numbered in order of their first record,
//! suppressed classes' numbers are left unused, and the suppression class takes the next number
//! (so with k = 10 on the census sample the classes are 1..7 and 9, as the toolbox's).
//!
//! The toolbox prints `Generalizing attribute N` and `Suppressing equivalence E` on stdout;
//! anonbox keeps stdout clean and tells the step to its observer (the search progress bar), and
//! lists the steps in the report (`generalized`, attribute names in order).

use super::tuples::Backend;
use super::{Details, Outcome, StepObserver};
use crate::data::load::Encoding;
use crate::data::{Generalization, QuasiIdentifier};
use crate::hierarchy::Hierarchy;
use crate::privacy::SuppressionLimit;
use crate::store::{DataflyTuples, Store};
use crate::{Error, Result};

/// What Datafly is asked for: the run builds it from its plan.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    pub k: u64,
    /// The suppression threshold; `None`: k tuples.
    pub suppression: Option<SuppressionLimit>,
    /// The quasi-identifiers, in `<qid>` order (a VGH's leaves must be at equal depth).
    pub qids: &'a [QuasiIdentifier],
}

/// Distinct tuples up to which Datafly runs in memory: 36 bytes a tuple at the most (its packed
/// generalized key, record count and first record, a sort's pairs, at the end each tuple's
/// class), so 24 million tuples take about 860 MB. Larger tables, tables of more than
/// 2^32 - 1 records and tuples whose ids do not pack into 64 bits run in SQL.
pub const MEMORY_DATAFLY: u64 = 24_000_000;

/// Runs Datafly on a loaded store; fills `EquivalenceTable` and `QidTuple.EquivalenceID`.
pub fn run(
    store: &Store,
    params: &Params<'_>,
    encoding: &Encoding,
    records: u64,
    observer: &mut dyn StepObserver,
    backend: Backend,
) -> Result<Outcome> {
    let k = params.k.max(1);
    for q in params.qids {
        if let Generalization::Vgh(v) = &q.generalization {
            if !v.leaves_at_equal_depth() {
                return Err(Error::Invalid(format!(
                    "Datafly: all leaf nodes of the VGH of '{}' should be at the same depth",
                    q.name
                )));
            }
        }
    }
    if records < k {
        return Err(Error::Invalid(format!(
            "This input cannot be anonymized at k = {k}"
        )));
    }
    let threshold = params.suppression.map_or(k, |s| s.budget(records));
    let tuple_count = store.tuple_count()?;
    let hierarchies: Vec<&Hierarchy> = encoding.qids.iter().map(|q| &q.hierarchy).collect();
    let memory = match backend {
        Backend::Auto => tuple_count <= MEMORY_DATAFLY && records < u32::MAX as u64,
        b => b.in_memory(tuple_count),
    };
    if memory {
        if let Some(fields) = Fields::new(&hierarchies) {
            observer.start("Datafly");
            let result = in_memory(store, params, encoding, &fields, k, threshold, observer);
            observer.finish();
            return result;
        }
    }
    let nq = store.layout().qids.len();
    let max: Vec<usize> = encoding
        .qids
        .iter()
        .map(|e| e.hierarchy.max_level())
        .collect();

    observer.start("Datafly");
    let working = DataflyTuples::create(store)?;
    let mut levels = vec![0usize; nq];
    let mut steps: Vec<String> = Vec::new();
    loop {
        let small = working.small_records(k)?;
        if small <= threshold {
            break;
        }
        let distinct = working.distinct_values()?;
        let q = attribute_to_climb(&levels, &max, &distinct, (k, threshold, small))?;
        levels[q] += 1;
        steps.push(params.qids[q].name.clone());
        observer.step(&format!(
            "Datafly: generalizing {} to level {}",
            params.qids[q].name, levels[q]
        ));
        working.generalize(q, levels[q])?;
    }

    // Final classes, numbered by first record (see the module docs).
    working.write_classes(&levels, k, encoding)?;
    observer.finish();
    outcome(store, levels, steps, threshold, "sql")
}

/// The report's outcome of a finished run.
fn outcome(
    store: &Store,
    levels: Vec<usize>,
    steps: Vec<String>,
    threshold: u64,
    backend: &'static str,
) -> Result<Outcome> {
    let (kept, suppressed_records) = store.class_summary()?;
    Ok(Outcome {
        transformation: Some(levels),
        metric: None,
        information_loss: None,
        suppression_limit: Some(threshold),
        suppressed_records,
        equivalence_classes: kept,
        transformations_checked: None,
        details: Details::Datafly {
            backend,
            generalized: steps,
        },
        checked: None,
    })
}

/// Bit fields of a packed generalized tuple: quasi-identifier `q`'s id at its current level in
/// `bits[q]` bits from bit `shift[q]`.
struct Fields {
    shift: Vec<u32>,
    mask: Vec<u64>,
}

impl Fields {
    /// The fields of the hierarchies' ids, if they fit in 64 bits.
    fn new(hierarchies: &[&Hierarchy]) -> Option<Fields> {
        let mut shift = Vec::with_capacity(hierarchies.len());
        let mut mask = Vec::with_capacity(hierarchies.len());
        let mut at = 0u32;
        for h in hierarchies {
            let widest = (0..h.levels())
                .map(|l| h.width(l))
                .max()
                .unwrap_or(1)
                .max(1);
            let bits = u32::BITS - ((widest - 1) as u32).leading_zeros();
            if at + bits > u64::BITS {
                return None;
            }
            shift.push(at);
            mask.push(if bits == 0 {
                0
            } else {
                u64::MAX >> (64 - bits)
            });
            at += bits;
        }
        Some(Fields { shift, mask })
    }

    #[inline]
    fn get(&self, key: u64, q: usize) -> u32 {
        ((key >> self.shift[q]) & self.mask[q]) as u32
    }

    #[inline]
    fn set(&self, key: u64, q: usize, id: u32) -> u64 {
        (key & !(self.mask[q] << self.shift[q])) | (id as u64) << self.shift[q]
    }
}

/// Records in classes smaller than `k`: the tuples' keys sorted with their counts, summed per
/// class (`pairs` is scratch).
/// Datafly's step, on either backend: the attribute with the most distinct values among those
/// below their highest level (ties: the first). Fails when none can climb although `small`
/// records are still in classes smaller than `k` (more than `threshold`).
fn attribute_to_climb<D: PartialOrd>(
    levels: &[usize],
    max: &[usize],
    distinct: &[D],
    (k, threshold, small): (u64, u64, u64),
) -> Result<usize> {
    let mut choice: Option<usize> = None;
    for q in 0..levels.len() {
        if levels[q] < max[q] && choice.is_none_or(|c| distinct[q] > distinct[c]) {
            choice = Some(q);
        }
    }
    choice.ok_or_else(|| {
        Error::Invalid(format!(
            "This input cannot be anonymized at k = {k} with a suppression threshold of \
             {threshold} records: {small} records are in classes smaller than k with every \
             quasi-identifier at its highest level"
        ))
    })
}

fn small_records(keys: &[u64], counts: &[u32], k: u64, pairs: &mut Vec<(u64, u32)>) -> u64 {
    pairs.clear();
    pairs.extend(keys.iter().copied().zip(counts.iter().copied()));
    pairs.sort_unstable_by_key(|p| p.0);
    let mut small = 0u64;
    for class in pairs.chunk_by(|a, b| a.0 == b.0) {
        let n: u64 = class.iter().map(|p| p.1 as u64).sum();
        if n < k {
            small += n;
        }
    }
    small
}

/// Datafly over the distinct tuples in memory, each a packed key of its generalized ids (see
/// [`MEMORY_DATAFLY`]); the same steps, classes and numbering as the SQL above.
fn in_memory(
    store: &Store,
    params: &Params<'_>,
    encoding: &Encoding,
    fields: &Fields,
    k: u64,
    threshold: u64,
    observer: &mut dyn StepObserver,
) -> Result<Outcome> {
    let hierarchies: Vec<&Hierarchy> = encoding.qids.iter().map(|q| &q.hierarchy).collect();
    let nq = hierarchies.len();
    let (mut keys, mut counts, mut firsts) = (Vec::new(), Vec::new(), Vec::new());
    let mut present: Vec<Vec<bool>> = hierarchies
        .iter()
        .map(|h| vec![false; h.leaves()])
        .collect();
    store.for_each_tuple_in_key_order(|codes, count, first| {
        let mut key = 0u64;
        for (q, (seen, &code)) in present.iter_mut().zip(codes).enumerate() {
            seen[code as usize] = true;
            key = fields.set(key, q, code);
        }
        keys.push(key);
        counts.push(u32::try_from(count).unwrap_or(u32::MAX));
        firsts.push(u32::try_from(first).unwrap_or(u32::MAX));
        Ok(())
    })?;
    if counts.contains(&u32::MAX) || firsts.contains(&u32::MAX) {
        return Err(Error::Invalid(
            "Datafly in memory: more than 4,294,967,294 records".into(),
        ));
    }
    let max: Vec<usize> = hierarchies.iter().map(|h| h.max_level()).collect();
    let mut levels = vec![0usize; nq];
    let mut steps: Vec<String> = Vec::new();
    let mut pairs: Vec<(u64, u32)> = Vec::with_capacity(keys.len());
    loop {
        let small = small_records(&keys, &counts, k, &mut pairs);
        if small <= threshold {
            break;
        }
        // Distinct generalized values of each column: its present codes' ids at the level.
        let distinct: Vec<usize> = (0..nq)
            .map(|q| {
                let h = hierarchies[q];
                let mut seen = vec![false; h.width(levels[q])];
                for (c, _) in present[q].iter().enumerate().filter(|p| *p.1) {
                    seen[h.get(c as u32, levels[q]) as usize] = true;
                }
                seen.iter().filter(|&&s| s).count()
            })
            .collect();
        let q = attribute_to_climb(&levels, &max, &distinct, (k, threshold, small))?;
        let h = hierarchies[q];
        let mut up = vec![0u32; h.width(levels[q])];
        for c in 0..h.leaves() as u32 {
            up[h.get(c, levels[q]) as usize] = h.get(c, levels[q] + 1);
        }
        levels[q] += 1;
        steps.push(params.qids[q].name.clone());
        observer.step(&format!(
            "Datafly: generalizing {} to level {}",
            params.qids[q].name, levels[q]
        ));
        for key in &mut keys {
            *key = fields.set(*key, q, up[fields.get(*key, q) as usize]);
        }
    }

    // Classes numbered by first record; tuples of small classes to the suppression class.
    // `(key, tuple)` pairs in the buffer of the `(key, count)` ones: at 20 M tuples a second
    // buffer of 16 bytes a tuple would be the run's peak.
    let mut by_key = pairs;
    by_key.clear();
    by_key.extend(keys.iter().enumerate().map(|(t, &key)| (key, t as u32)));
    by_key.sort_unstable();
    struct Class {
        first: u32,
        size: u64,
        key: u64,
        start: usize,
        end: usize,
    }
    let mut classes: Vec<Class> = Vec::new();
    let mut start = 0;
    for group in by_key.chunk_by(|a, b| a.0 == b.0) {
        let members = group.iter().map(|p| p.1 as usize);
        classes.push(Class {
            first: members.clone().map(|t| firsts[t]).min().unwrap_or(0),
            size: members.map(|t| counts[t] as u64).sum(),
            key: group[0].0,
            start,
            end: start + group.len(),
        });
        start += group.len();
    }
    classes.sort_unstable_by_key(|c| c.first);
    let suppression_id = classes.len() as u32 + 1;
    let mut tuple_class = vec![0u32; keys.len()];
    let mut suppressed = 0u64;
    for (i, c) in classes.iter().enumerate() {
        let id = if c.size < k {
            suppressed += c.size;
            suppression_id
        } else {
            i as u32 + 1
        };
        for &(_, t) in &by_key[c.start..c.end] {
            tuple_class[t as usize] = id;
        }
    }
    drop(by_key);
    store.write_tuple_classes(&tuple_class)?;
    let tx = store.begin()?;
    for (i, c) in classes.iter().enumerate().filter(|(_, c)| c.size >= k) {
        let labels: Vec<&str> = (0..nq)
            .map(|q| hierarchies[q].label(levels[q], fields.get(c.key, q)))
            .collect();
        tx.insert_class(i as i64 + 1, &labels, c.size, false)?;
    }
    tx.insert_suppression_class(suppression_id as i64, encoding, suppressed)?;
    tx.commit()?;
    outcome(store, levels, steps, threshold, "memory")
}
