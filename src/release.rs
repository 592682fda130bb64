//! What a run released, measured once after the method: utility ([`Utility`]), risk before and
//! after ([`Risk`]), the class sizes and, per quasi-identifier, the values before and after. The
//! JSON report, the summary on stderr and the HTML report all take their figures from one
//! [`Release`], so they cannot disagree.
//!
//! Two sources, one shape:
//! - a full-domain result (every lattice search, Datafly, Incognito) is measured from its
//!   classes at the chosen levels ([`FullDomainClasses`]): the in-memory table's released rows,
//!   or the store's distinct tuples with their counts and suppression;
//! - a partition of the store that publishes labels of its own (Mondrian's intervals, Anatomy's
//!   groups) is measured from `EquivalenceTable`, and its input from the tuples.

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::cmd::audit::figures::{Classes, Figures, Params, SensitiveFigures};
use crate::data::load::Encoding;
use crate::data::EncodedTable;
use crate::hierarchy::vgh::Interval;
use crate::hierarchy::Hierarchy;
use crate::job::{Generalization, Job, Method};
use crate::metrics::utility::interval_ncp;
use crate::metrics::{FullDomainClasses, Utility};
use crate::privacy::PrivacyModel;
use crate::risk::attributes::AttributeRisks;
use crate::risk::{Risk, SizeCounts};
use crate::store::Store;
use crate::Result;

/// Example values kept per attribute and side (the most frequent).
pub const EXAMPLES: usize = 4;

/// Values of a sensitive attribute shown before and after (the most frequent).
pub const SENSITIVE_VALUES: usize = 12;

/// The figures of a release.
#[derive(Debug, Clone, PartialEq)]
pub struct Release {
    pub utility: Utility,
    /// Prosecutor risk of the released classes; `None` for Anatomy (its quasi-identifiers are
    /// published as they are, linked to groups).
    pub risk: Option<Risk>,
    /// The same for the input (its classes are the distinct quasi-identifier tuples).
    pub risk_input: Option<Risk>,
    /// Sizes of the released classes (suppressed records left out).
    pub class_sizes: Vec<u64>,
    /// Sizes of the input's classes.
    pub input_class_sizes: SizeCounts,
    pub attributes: Vec<AttributeProfile>,
    /// Each sensitive attribute before and after, with what the release achieves on it.
    pub sensitive: Vec<SensitiveProfile>,
    /// δ-presence: the smallest and largest share of research-subset records in a class of the
    /// generalized population (`None` without a research subset or where not measured).
    pub delta: Option<(f64, f64)>,
    /// The attribute risks of the input and of the release ([`AttributeRisks`]), measured for
    /// a run that writes a report; the release's `None` where its classes are not generalized
    /// tuples (Anatomy).
    pub attribute_risk: Option<AttributeRisks>,
    pub attribute_risk_release: Option<AttributeRisks>,
}

/// A sensitive attribute before and after, and its figures over the released classes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SensitiveProfile {
    pub name: String,
    /// Records of the input (of the research subset, with one), suppressed ones included.
    pub before: Values,
    /// The released records (suppressed ones left out).
    pub after: Values,
    /// The most frequent values (up to [`SENSITIVE_VALUES`], each held by at least as many
    /// records as a value shown before must be) with their records before and after.
    pub values: Vec<(String, u64, u64)>,
    /// Records before and after.
    pub records: (u64, u64),
    /// Distinct, entropy and recursive l (at the c of the job's model), t per distance, over
    /// the released classes; `None` where the method's classes are not measured here
    /// (Anatomy's groups: `anonbox audit` measures any release).
    pub figures: Option<SensitiveFigures>,
}

/// One quasi-identifier before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttributeProfile {
    pub name: String,
    /// The level released (full-domain results).
    pub level: Option<usize>,
    /// The hierarchy's highest level.
    pub height: usize,
    pub before: Values,
    /// The released records' values (suppressed records left out).
    pub after: Values,
}

/// The distinct values of a column and the most frequent ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Values {
    pub distinct: u64,
    /// Up to [`EXAMPLES`] `(value, records)`, most records first (ties: first seen), only
    /// values of at least the profile's minimum of records (see [`shown_before`]).
    pub examples: Vec<(String, u64)>,
}

impl Values {
    /// From `(label, records)` pairs (labels may repeat; zero counts are ignored); examples
    /// only of labels held by at least `min` records.
    fn of<'a>(pairs: impl IntoIterator<Item = (&'a str, u64)>, min: u64) -> Values {
        let mut order: Vec<(&'a str, u64)> = Vec::new();
        let mut index: rustc_hash::FxHashMap<&'a str, usize> = Default::default();
        for (label, n) in pairs.into_iter().filter(|p| p.1 > 0) {
            match index.get(label) {
                Some(&i) => order[i].1 += n,
                None => {
                    index.insert(label, order.len());
                    order.push((label, n));
                }
            }
        }
        let distinct = order.len() as u64;
        order.sort_by_key(|p| std::cmp::Reverse(p.1));
        Values {
            distinct,
            examples: order
                .into_iter()
                .filter(|p| p.1 >= min)
                .take(EXAMPLES)
                .map(|(l, n)| (l.to_string(), n))
                .collect(),
        }
    }
}

impl Release {
    /// A full-domain result given by its classes; `names` in quasi-identifier order.
    pub fn full_domain(
        classes: &FullDomainClasses<'_>,
        names: &[String],
        threshold: f64,
        min_before: u64,
    ) -> Release {
        let class_sizes = classes.released_sizes();
        let input_class_sizes = classes.input_sizes();
        let hierarchies = classes.hierarchies();
        let attributes = hierarchies
            .iter()
            .enumerate()
            .map(|(j, h)| {
                let level = classes.levels()[j];
                let after = Values::of(
                    classes
                        .classes()
                        .iter()
                        .filter(|(_, c)| !c.suppressed)
                        .map(|(ids, c)| (h.label(level, ids[j]), c.size)),
                    1,
                );
                AttributeProfile {
                    name: names.get(j).cloned().unwrap_or_default(),
                    level: Some(level),
                    height: h.max_level(),
                    before: before(h, classes.leaf_counts(j), min_before),
                    after,
                }
            })
            .collect();
        Release::new(
            classes.utility(),
            class_sizes,
            input_class_sizes,
            attributes,
            threshold,
        )
    }

    /// A release from its figures, with the risk of the release and of the input from the class
    /// sizes at `threshold`.
    fn new(
        utility: Utility,
        class_sizes: Vec<u64>,
        input_class_sizes: SizeCounts,
        attributes: Vec<AttributeProfile>,
        threshold: f64,
    ) -> Release {
        Release {
            utility,
            risk: Some(Risk::from_sizes(class_sizes.iter().copied(), threshold)),
            risk_input: Some(Risk::from_sizes(input_class_sizes.iter(), threshold)),
            class_sizes,
            input_class_sizes,
            attributes,
            sensitive: Vec::new(),
            delta: None,
            attribute_risk: None,
            attribute_risk_release: None,
        }
    }

    /// The release of an in-memory full-domain result.
    pub fn of_table(
        job: &Job,
        table: &EncodedTable,
        levels: &[usize],
        suppressed: &[bool],
    ) -> Release {
        let classes = FullDomainClasses::of_table(table, levels, suppressed);
        let mut release =
            Release::full_domain(&classes, &names(job), job.risk_threshold, shown_before(job));
        release.sensitive = sensitive_of_table(job, table, levels, suppressed);
        release.delta = delta_of_table(table, levels, suppressed);
        if job.report.is_some() {
            let mut counts = vec![0u64; table.tuples()];
            for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
                counts[table.tuple_of(r)] += 1;
            }
            let input: Vec<(Vec<u32>, u64)> = counts
                .iter()
                .enumerate()
                .map(|(t, &n)| (table.tuple(t).collect(), n))
                .collect();
            release.attribute_risk = Some(AttributeRisks::of_tuples(&names(job), &input));
            release.attribute_risk_release = Some(released_attribute_risk(job, &classes));
        }
        release
    }

    /// The release of an in-memory partition whose classes publish labels of their own
    /// (Mondrian over hierarchies): `tuple_class[tuple]`, each class's released records
    /// (`sizes`) and labels (`labels[class * width + q]`), and the partition's NCP.
    pub fn of_partition(
        job: &Job,
        table: &EncodedTable,
        tuple_class: &[u32],
        sizes: &[u64],
        labels: &[String],
        ncp: f64,
    ) -> Release {
        debug_assert_eq!(tuple_class.len(), table.tuples());
        Release::of_classes(job, table, sizes, labels, Some(ncp), None)
    }

    /// The release of classes that publish labels of their own (`labels[class * width + q]`,
    /// `sizes[class]` records), from a partition or from microaggregation (`sse_il1s`: its SSE
    /// and IL1s).
    pub fn of_classes(
        job: &Job,
        table: &EncodedTable,
        sizes: &[u64],
        labels: &[String],
        ncp: Option<f64>,
        sse_il1s: Option<(f64, f64)>,
    ) -> Release {
        let d = table.width();
        let mut leaf: Vec<Vec<u64>> = table
            .hierarchies
            .iter()
            .map(|h| vec![0; h.leaves()])
            .collect();
        let mut tuple_records = vec![0u64; table.tuples()];
        for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
            for (counts, code) in leaf.iter_mut().zip(table.row(r)) {
                counts[code as usize] += 1;
            }
            tuple_records[table.tuple_of(r)] += 1;
        }
        let mut input_class_sizes: rustc_hash::FxHashMap<u64, u64> = Default::default();
        for &n in tuple_records.iter().filter(|&&n| n > 0) {
            *input_class_sizes.entry(n).or_insert(0) += 1;
        }
        let mut utility = Utility::of_classes(sizes.iter().copied(), 0);
        utility.ncp = ncp;
        utility.sse = sse_il1s.map(|(sse, _)| sse);
        utility.il1s = sse_il1s.map(|(_, il1s)| il1s);
        let attributes = table
            .hierarchies
            .iter()
            .enumerate()
            .map(|(j, h)| AttributeProfile {
                name: job.qids[j].name.clone(),
                level: None,
                height: h.max_level(),
                before: before(h, &leaf[j], shown_before(job)),
                after: Values::of(
                    sizes
                        .iter()
                        .enumerate()
                        .map(|(c, &n)| (labels[c * d + j].as_str(), n)),
                    1,
                ),
            })
            .collect();
        Release::new(
            utility,
            sizes.to_vec(),
            SizeCounts::from_counts(input_class_sizes),
            attributes,
            job.risk_threshold,
        )
    }

    /// The release of a store-backed method, after the method filled `EquivalenceTable` and
    /// `QidTuple.EquivalenceID`. `levels`: the transformation of a full-domain method.
    pub fn of_store(
        job: &Job,
        store: &Store,
        encoding: &Encoding,
        levels: Option<&[usize]>,
    ) -> Result<Release> {
        let hierarchies: Vec<Hierarchy> =
            encoding.qids.iter().map(|q| q.hierarchy.clone()).collect();
        let threshold = job.risk_threshold;
        if let Some(levels) = levels {
            let mut classes = FullDomainClasses::over_tuples(&hierarchies, levels);
            let mut input = Vec::new();
            let measure = job.report.is_some();
            store.for_each_tuple(|codes, n, suppressed| {
                classes.add(codes, n, suppressed);
                if measure {
                    input.push((codes.to_vec(), n));
                }
            })?;
            let mut class_sizes = Vec::new();
            store.for_each_released_class(|_, n| class_sizes.push(n))?;
            let mut r = Release::full_domain(&classes, &names(job), threshold, shown_before(job));
            r.risk = Some(Risk::from_sizes(class_sizes.iter().copied(), threshold));
            r.class_sizes = class_sizes;
            r.sensitive = sensitive_of_store(job, store, encoding)?;
            if measure {
                r.attribute_risk = Some(AttributeRisks::of_tuples(&names(job), &input));
                r.attribute_risk_release = Some(released_attribute_risk(job, &classes));
            }
            return Ok(r);
        }
        // A partition (Mondrian, Anatomy): the input's classes are the tuples themselves, so
        // they stream by with no map of classes (which took some 100 bytes a distinct tuple).
        let mut leaf: Vec<Vec<u64>> = hierarchies.iter().map(|h| vec![0; h.leaves()]).collect();
        let mut input_class_sizes: rustc_hash::FxHashMap<u64, u64> = Default::default();
        let mut suppressed = 0u64;
        let measure = job.report.is_some();
        let mut input = Vec::new();
        store.for_each_tuple(|codes, n, s| {
            for (counts, &c) in leaf.iter_mut().zip(codes) {
                counts[c as usize] += n;
            }
            if measure {
                input.push((codes.to_vec(), n));
            }
            *input_class_sizes.entry(n).or_insert(0) += 1;
            if s {
                suppressed += n;
            }
        })?;
        // What was released, as published: the classes of `EquivalenceTable`.
        let mut published: Vec<(Vec<String>, u64)> = Vec::new();
        store.for_each_released_class(|labels, n| published.push((labels.to_vec(), n)))?;
        let class_sizes: Vec<u64> = published.iter().map(|p| p.1).collect();
        let mut utility = Utility::of_classes(class_sizes.iter().copied(), suppressed);
        let anatomy = job.method == Method::Anatomy;
        if job.method == Method::Mondrian {
            utility.ncp = mondrian_ncp(job, &published);
        }
        let attributes = hierarchies
            .iter()
            .enumerate()
            .map(|(j, h)| {
                let before = before(h, &leaf[j], shown_before(job));
                AttributeProfile {
                    name: job.qids[j].name.clone(),
                    level: None,
                    height: h.max_level(),
                    // Anatomy publishes the original values (in its quasi-identifier table).
                    after: if anatomy {
                        before.clone()
                    } else {
                        Values::of(published.iter().map(|(l, n)| (l[j].as_str(), *n)), 1)
                    },
                    before,
                }
            })
            .collect();
        let mut release = Release::new(
            utility,
            class_sizes,
            SizeCounts::from_counts(input_class_sizes),
            attributes,
            threshold,
        );
        if anatomy {
            release.risk = None;
        } else {
            release.sensitive = sensitive_of_store(job, store, encoding)?;
        }
        if measure {
            release.attribute_risk = Some(AttributeRisks::of_tuples(&names(job), &input));
            if !anatomy {
                // The published labels, coded per column.
                let mut codes: Vec<FxHashMap<&str, u32>> =
                    vec![Default::default(); names(job).len()];
                let tuples: Vec<(Vec<u32>, u64)> = published
                    .iter()
                    .map(|(labels, n)| {
                        let key = labels
                            .iter()
                            .zip(codes.iter_mut())
                            .map(|(l, c)| {
                                let next = c.len() as u32;
                                *c.entry(l.as_str()).or_insert(next)
                            })
                            .collect();
                        (key, *n)
                    })
                    .collect();
                release.attribute_risk_release =
                    Some(AttributeRisks::of_tuples(&names(job), &tuples));
            }
        }
        Ok(release)
    }
}

/// The attribute risks of a full-domain release: its classes are its tuples.
fn released_attribute_risk(job: &Job, classes: &FullDomainClasses<'_>) -> AttributeRisks {
    let tuples: Vec<(Vec<u32>, u64)> = classes
        .classes()
        .iter()
        .filter(|(_, c)| !c.suppressed)
        .map(|(ids, c)| (ids.clone(), c.size))
        .collect();
    AttributeRisks::of_tuples(&names(job), &tuples)
}

/// A record's class at `levels` (`None` if suppressed).
fn class_key(
    table: &EncodedTable,
    levels: &[usize],
    suppressed: &[bool],
    r: usize,
    key: &mut Vec<u32>,
) -> bool {
    if suppressed.get(r).copied().unwrap_or(false) {
        return false;
    }
    key.clear();
    key.extend(
        table
            .row(r)
            .zip(&table.hierarchies)
            .zip(levels)
            .map(|((code, h), &level)| h.get(code, level)),
    );
    true
}

/// The sensitive attributes of an in-memory release: values before and after, and the
/// figures of the released classes as `anonbox audit` computes them (the same shared models).
fn sensitive_of_table(
    job: &Job,
    table: &EncodedTable,
    levels: &[usize],
    suppressed: &[bool],
) -> Vec<SensitiveProfile> {
    let mut key = Vec::with_capacity(levels.len());
    table
        .sensitive
        .iter()
        .enumerate()
        .map(|(a, s)| {
            let mut classes = Classes::new(levels.len());
            let mut before = vec![0u64; s.values.len()];
            let mut after = vec![0u64; s.values.len()];
            for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
                let code = s.codes[r];
                before[code as usize] += 1;
                if class_key(table, levels, suppressed, r, &mut key) {
                    after[code as usize] += 1;
                    classes.add(Some(&key), Some(code), false);
                } else {
                    classes.add(None, Some(code), false);
                }
            }
            let attribute = SensitiveValues {
                name: &s.name,
                values: &s.values,
                numeric: s.numeric.as_deref(),
                hierarchy: s.hierarchy.as_ref(),
            };
            sensitive_profile(job, a, attribute, &before, &after, &classes)
        })
        .collect()
}

/// The sensitive attributes of a release whose classes are given per distinct tuple
/// (`tuple_class[t]`; `u32::MAX`: suppressed), as a locally recoded one: as
/// [`sensitive_of_table`], each class keyed by its number.
pub fn sensitive_of_tuple_classes(
    job: &Job,
    table: &EncodedTable,
    tuple_class: &[u32],
) -> Vec<SensitiveProfile> {
    table
        .sensitive
        .iter()
        .enumerate()
        .map(|(a, s)| {
            let mut classes = Classes::new(1);
            let mut before = vec![0u64; s.values.len()];
            let mut after = vec![0u64; s.values.len()];
            for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
                let code = s.codes[r];
                before[code as usize] += 1;
                match tuple_class[table.tuple_of(r)] {
                    u32::MAX => classes.add(None, Some(code), false),
                    c => {
                        after[code as usize] += 1;
                        classes.add(Some(&[c]), Some(code), false);
                    }
                }
            }
            let attribute = SensitiveValues {
                name: &s.name,
                values: &s.values,
                numeric: s.numeric.as_deref(),
                hierarchy: s.hierarchy.as_ref(),
            };
            sensitive_profile(job, a, attribute, &before, &after, &classes)
        })
        .collect()
}

/// The sensitive attributes of a store method's release whose classes are tuples' (Datafly,
/// Incognito, Mondrian): as [`sensitive_of_table`], from each released class's sensitive
/// values in the store.
fn sensitive_of_store(
    job: &Job,
    store: &Store,
    encoding: &Encoding,
) -> Result<Vec<SensitiveProfile>> {
    encoding
        .sensitive
        .iter()
        .enumerate()
        .map(|(a, s)| {
            let values: Vec<String> = (0..s.dictionary.len() as u32)
                .map(|code| s.dictionary.value(code).to_string())
                .collect();
            let mut before = vec![0u64; values.len()];
            for (code, n) in store.sensitive_counts(a)? {
                before[code as usize] += u64::from(n);
            }
            let mut after = vec![0u64; values.len()];
            let mut classes = Classes::new(1);
            store.for_each_released_sensitive(a, |class, code, n| {
                after[code as usize] += n;
                classes.add_records(Some(&[class as u32]), Some(code), false, n);
            })?;
            for (code, (&b, &r)) in before.iter().zip(&after).enumerate() {
                // The suppressed records: in the table's distribution, in no class.
                classes.add_records(None, Some(code as u32), false, b.saturating_sub(r));
            }
            let attribute = SensitiveValues {
                name: &s.name,
                values: &values,
                numeric: s.numeric.as_deref(),
                hierarchy: s.hierarchy.as_ref(),
            };
            Ok(sensitive_profile(
                job, a, attribute, &before, &after, &classes,
            ))
        })
        .collect()
}

/// A sensitive attribute's values by code, with what its distances need.
struct SensitiveValues<'a> {
    name: &'a str,
    values: &'a [String],
    numeric: Option<&'a [f64]>,
    hierarchy: Option<&'a Hierarchy>,
}

/// Sensitive attribute `a` before and after (records by code) with the figures of the released
/// `classes`, the recursive l at the c of the job's (c,l) model of that attribute.
fn sensitive_profile(
    job: &Job,
    a: usize,
    s: SensitiveValues<'_>,
    before: &[u64],
    after: &[u64],
    classes: &Classes,
) -> SensitiveProfile {
    let min = shown_before(job);
    let c = job.privacy.iter().find_map(|m| match m {
        PrivacyModel::RecursiveCL { attribute, c, .. } if *attribute == a => Some(*c),
        _ => None,
    });
    let params = Params {
        risk_k: 1,
        risk_threshold: job.risk_threshold,
        sensitive: Some(s.name.to_string()),
        c,
        numeric: s.numeric,
        hierarchy: s.hierarchy,
        ..Params::default()
    };
    let values = |counts: &[u64], min: u64| {
        Values::of(
            counts
                .iter()
                .enumerate()
                .map(|(code, &n)| (s.values[code].as_str(), n)),
            min,
        )
    };
    let mut shown: Vec<(String, u64, u64)> = (0..s.values.len())
        .filter(|&code| before[code] >= min)
        .map(|code| (s.values[code].clone(), before[code], after[code]))
        .collect();
    shown.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    shown.truncate(SENSITIVE_VALUES);
    SensitiveProfile {
        name: s.name.to_string(),
        before: values(before, min),
        after: values(after, min),
        values: shown,
        records: (before.iter().sum(), after.iter().sum()),
        figures: Figures::compute(classes, &params)
            .ok()
            .and_then(|f| f.sensitive),
    }
}

/// δ-presence of an in-memory release with a research subset: the smallest and largest share
/// of subset records over the classes of the generalized population.
fn delta_of_table(
    table: &EncodedTable,
    levels: &[usize],
    suppressed: &[bool],
) -> Option<(f64, f64)> {
    let subset = table.subset()?;
    let mut classes = Classes::new(levels.len());
    let mut key = Vec::with_capacity(levels.len());
    for (r, &member) in subset.iter().enumerate().take(table.rows()) {
        if class_key(table, levels, suppressed, r, &mut key) {
            classes.add(Some(&key), None, member);
        }
    }
    let params = Params {
        risk_k: 1,
        subset: true,
        ..Params::default()
    };
    let d = Figures::compute(&classes, &params).ok()?.delta?;
    Some((d.min, d.max))
}

/// Quasi-identifier names of a job.
fn names(job: &Job) -> Vec<String> {
    job.qids.iter().map(|q| q.name.clone()).collect()
}

/// The original values of a column: level-0 labels with their records.
fn before(h: &Hierarchy, leaf: &[u64], min: u64) -> Values {
    Values::of(
        leaf.iter()
            .enumerate()
            .map(|(code, &n)| (h.label(0, h.get(code as u32, 0)), n)),
        min,
    )
}

/// The fewest records an input value must hold to be shown as an example (reports are read,
/// and passed on, beside the release): the k enforced, or the job's k if larger (the method's
/// own parameter, 10 by default), at least 2. A rarer value is a fact about a few people that
/// the release itself may hide (an age held by one record, listed in input order, would link the
/// first row of a genVals output to its raw age).
fn shown_before(job: &Job) -> u64 {
    job.k.max(job.enforced_k().unwrap_or(0)).max(2)
}

/// [`interval_ncp`] of Mondrian's published classes against the VGH roots; `None` if a label
/// or root is not an interval.
fn mondrian_ncp(job: &Job, published: &[(Vec<String>, u64)]) -> Option<f64> {
    let roots: Vec<Interval> = job
        .qids
        .iter()
        .map(|q| match &q.generalization {
            Generalization::Vgh(v) => Interval::parse(v.root_label()).ok(),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let classes: Vec<(Vec<Interval>, u64)> = published
        .iter()
        .map(|(labels, n)| {
            labels
                .iter()
                .map(|l| Interval::parse(l).ok())
                .collect::<Option<Vec<_>>>()
                .map(|iv| (iv, *n))
        })
        .collect::<Option<_>>()?;
    Some(interval_ncp(&classes, &roots))
}
