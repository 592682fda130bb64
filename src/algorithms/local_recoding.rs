//! Local recoding for the lattice searches, as ARX 3.9 does it (`ARXResult.optimizeIterativeFast`):
//! after the optimal global transformation, the records it suppresses are anonymized again
//! among themselves, and again, each group released at its own transformation instead of
//! suppressed.
//!
//! One step: the records still suppressed (their distinct tuples, each with its records: a
//! sub-frequency set, [`EncodedTable::restricted`]) are searched by the run's own lattice search,
//! with
//! - the run's privacy models, built on the *whole* table: a class of the step is judged against
//!   the whole input's distributions (t-closeness, δ-disclosure, β-likeness) as ARX's subset
//!   instance delegates them to its source, and k-map's k' is the whole sample's;
//! - a suppression limit that makes the step release at least `fraction x records of the
//!   table` of them (ARX: `1 - fraction n / m` of the `m` searched, floor as a budget);
//! - the run's metric, Loss weighted by ARX's gs-factor ([`crate::metrics::Loss::with_gs_factor`],
//!   0.05 as ARX's GUI: suppression is cheap, so a step releases the records it can release
//!   with little generalization and leaves the others to the next step). Other metrics have
//!   no gs-factor and are used as they are.
//!
//! The records the step's optimum keeps take its transformation; the others are the next
//! step's. The iteration stops when a step keeps no record, no transformation is valid, or
//! fewer records remain than the smallest class the models allow (ARX's `isOptimizable`). A
//! step may keep a class at the top of every hierarchy (it prints as suppression does); as in
//! ARX its records count as released, one class that satisfies the models.
//! Suppression is decided per class, and a class is a union of distinct tuples, so every step
//! assigns whole tuples: the result is one step per distinct tuple ([`Recoded::tuple_step`]).
//!
//! Only models judged class by class are local: a union of classes that each satisfy one of
//! them satisfies it too (sizes add; distinct and entropy l-diversity and recursive
//! (c,l)-diversity are monotonic under merging (Machanavajjhala et al.); t-closeness's EMD,
//! δ-disclosure's and β-likeness's frequency ratios are convex in the class's distribution),
//! so classes of different steps that publish the same values may merge in the release.
//! Models of the whole table's class sizes (average risk, sample and population uniqueness)
//! and δ-presence (a research subset of a population) are refused ([`supports`]); ARX refuses
//! the last two as well. [`verify`] re-checks every model on the combined release all the same.
//!
//! Everything here sees transformations, tuples and the searches' results; the run writes the
//! rows.

use super::FullDomainResult;
use super::{execute, lattice_limits, LatticeAlgorithm, LatticeParams, SearchSetup};
use crate::check::CheckerConfig;
use crate::data::EncodedTable;
use crate::hierarchy::Hierarchy;
use crate::metrics::{Loss, Metric, MetricKind};
use crate::privacy::PrivacyModel;
use crate::{Error, Result};

/// `Recoded::tuple_step` of a tuple that stays suppressed.
pub const SUPPRESSED: u32 = u32::MAX;

/// How local recoding iterates (ARX's `optimizeIterativeFast(handle, fraction, gsFactor)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Each step releases at least this share of the table's records, if it can (ARX's GUI:
    /// 1 / 100 iterations).
    pub fraction: f64,
    /// ARX's gs-factor of the steps' Loss (ARX's GUI: 0.05).
    pub gs_factor: f64,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            fraction: 0.01,
            gs_factor: 0.05,
        }
    }
}

/// One group of records released at its own transformation.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub levels: Vec<usize>,
    /// Records released at `levels`.
    pub records: u64,
    /// Records the step searched (those still suppressed before it) and the suppression budget
    /// it had; for the global optimum, the table and the run's budget.
    pub searched: u64,
    pub budget: u64,
    /// Transformations its search checked.
    pub checks: u64,
}

/// A locally recoded result.
#[derive(Debug, Clone, PartialEq)]
pub struct Recoded {
    /// `tuple_step[t]`: the step whose transformation releases distinct tuple `t` (0: the global
    /// optimum), or [`SUPPRESSED`].
    pub tuple_step: Vec<u32>,
    /// The global optimum, then the local steps in order.
    pub steps: Vec<Step>,
    pub suppressed_before: u64,
    pub suppressed_after: u64,
    /// ARX's Loss ([`Loss::of_parts`]) of the global optimum's release and of the locally
    /// recoded one, with the value of each quasi-identifier.
    pub loss_before: (f64, Vec<f64>),
    pub loss_after: (f64, Vec<f64>),
}

impl Recoded {
    /// The levels of tuple `t`, `None` if it is suppressed.
    pub fn levels_of(&self, t: usize) -> Option<&[usize]> {
        match self.tuple_step[t] {
            SUPPRESSED => None,
            s => Some(&self.steps[s as usize].levels),
        }
    }
}

/// Whether local recoding can enforce `model` on a whole release (see the module's docs).
pub fn supports(model: &PrivacyModel) -> bool {
    // (ε,δ)-differential privacy releases one random sample at one transformation: SafePub's
    // guarantee covers nothing searched again on the suppressed records.
    !matches!(
        model,
        PrivacyModel::DeltaPresence { .. }
            | PrivacyModel::AverageRisk { .. }
            | PrivacyModel::SampleUniqueness { .. }
            | PrivacyModel::PopulationUniqueness { .. }
            | PrivacyModel::DifferentialPrivacy { .. }
    )
}

/// Recodes locally the records that `global` (the run's optimum on `table`, found with
/// `params`) suppresses.
pub fn recode(
    params: &LatticeParams<'_>,
    lr: &Params,
    table: &EncodedTable,
    global: &FullDomainResult,
    global_checks: u64,
) -> Result<Recoded> {
    if let Some(m) = params.privacy.iter().find(|m| !supports(m)) {
        return Err(Error::Invalid(format!(
            "local recoding cannot enforce {m:?} on the whole release"
        )));
    }
    if table.subset().is_some() {
        return Err(Error::Invalid(
            "local recoding releases no research subset".into(),
        ));
    }
    let heights: Vec<(&str, usize)> = table
        .hierarchies
        .iter()
        .map(|h| (h.name.as_str(), h.levels()))
        .collect();
    let algorithm = lattice_limits(params.method, &heights)?;
    let levels: Vec<usize> = heights.iter().map(|&(_, l)| l).collect();

    // One step per tuple: suppression is decided per class, a union of tuples.
    let mut tuple_step = vec![0u32; table.tuples()];
    for (r, &s) in global.suppressed.iter().enumerate() {
        let t = table.tuple_of(r);
        if s {
            tuple_step[t] = SUPPRESSED;
        }
    }
    for (r, &s) in global.suppressed.iter().enumerate() {
        if s != (tuple_step[table.tuple_of(r)] == SUPPRESSED) {
            return Err(Error::Invalid(
                "internal error: the optimum suppresses part of a tuple's records".into(),
            ));
        }
    }
    let n = table.records() as u64;
    let suppressed_before = global.suppressed.iter().filter(|&&s| s).count() as u64;
    let mut steps = vec![Step {
        levels: global.levels.clone(),
        records: n - suppressed_before,
        searched: n,
        budget: params.budget(table.records()),
        checks: global_checks,
    }];
    // ARX's `getMinimalGroupSize`: fewer records cannot form a class.
    let min_group = crate::privacy::build(params.privacy, params.k, table)?
        .iter()
        .map(|c| c.requirements().min_class_size)
        .max()
        .unwrap_or(1);
    loop {
        let rows: Vec<usize> = (0..table.rows())
            .filter(|&r| tuple_step[table.tuple_of(r)] == SUPPRESSED)
            .collect();
        let m = rows.len() as u64;
        if m == 0 || m < min_group {
            break;
        }
        let share = (lr.fraction * n as f64 / m as f64).clamp(0.0, 1.0);
        let budget = ((1.0 - share) * m as f64).floor() as u64;
        let sub = table.restricted(&rows);
        let criteria = crate::privacy::build(params.privacy, params.k, table)?;
        let metric: Box<dyn Metric> = match params.metric {
            MetricKind::Loss => Box::new(Loss::new(&sub).with_gs_factor(lr.gs_factor)),
            kind => crate::metrics::build(kind, &sub),
        };
        let setup = SearchSetup {
            algorithm,
            store: algorithm.store_for(&levels),
            config: CheckerConfig::default(),
            limit: params.limit(),
            threads: params.threads,
        };
        let (out, outliers) = execute(&sub, criteria, metric, budget, setup, true)?;
        let (Some(opt), Some(outliers)) = (out.optimum, outliers) else {
            break;
        };
        let kept = outliers.iter().filter(|&&o| !o).count() as u64;
        if kept == 0 {
            break;
        }
        let step = steps.len() as u32;
        for (&r, _) in rows.iter().zip(&outliers).filter(|(_, &o)| !o) {
            tuple_step[table.tuple_of(r)] = step;
        }
        steps.push(Step {
            levels: opt.levels,
            records: kept,
            searched: m,
            budget,
            checks: out.checks,
        });
    }

    let loss = Loss::new(table);
    let mut counts = vec![0u64; table.tuples()];
    for r in 0..table.rows() {
        counts[table.tuple_of(r)] += 1;
    }
    let loss_before = loss.of_parts(
        table,
        counts.iter().enumerate().map(|(t, &c)| {
            let before = (tuple_step[t] == 0).then_some(global.levels.as_slice());
            (t, c, before)
        }),
    );
    let mut recoded = Recoded {
        tuple_step,
        steps,
        suppressed_before,
        suppressed_after: 0,
        loss_before,
        loss_after: (0.0, Vec::new()),
    };
    let suppressed_after = counts
        .iter()
        .enumerate()
        .filter(|&(t, _)| recoded.tuple_step[t] == SUPPRESSED)
        .map(|(_, &c)| c)
        .sum();
    let loss_after = loss.of_parts(
        table,
        counts
            .iter()
            .enumerate()
            .map(|(t, &c)| (t, c, recoded.levels_of(t))),
    );
    recoded.suppressed_after = suppressed_after;
    recoded.loss_after = loss_after;
    Ok(recoded)
}

/// Re-checks every model of `params` on a combined release: `tuple_class[t]` is the released
/// class of distinct tuple `t` (classes numbered from 0, `classes` of them), or [`SUPPRESSED`].
/// The released records are searched as a table of one quasi-identifier, their class, with no
/// suppression: the models, built on the whole table as the steps' were, must accept every
/// class. An error says which cannot; nothing may then be released.
pub fn verify(
    params: &LatticeParams<'_>,
    table: &EncodedTable,
    tuple_class: &[u32],
    classes: usize,
) -> Result<()> {
    let rows: Vec<usize> = (0..table.rows())
        .filter(|&r| tuple_class[table.tuple_of(r)] != SUPPRESSED)
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    let ids: Vec<Vec<String>> = (0..classes).map(|c| vec![c.to_string()]).collect();
    let codes: Vec<u32> = rows
        .iter()
        .map(|&r| tuple_class[table.tuple_of(r)])
        .collect();
    let sensitive = table.restricted(&rows).sensitive;
    let release = EncodedTable::new(
        codes,
        vec![Hierarchy::from_label_rows("class", &ids)],
        sensitive,
    );
    let criteria = crate::privacy::build(params.privacy, params.k, table)?;
    let names: Vec<String> = criteria.iter().map(|c| c.name()).collect();
    let metric = crate::metrics::build(MetricKind::DmStar, &release);
    let out = super::solve(
        &release,
        criteria,
        metric,
        0,
        LatticeAlgorithm::Exhaustive,
        CheckerConfig::default(),
    )?;
    match out.optimum {
        Some(_) => Ok(()),
        None => Err(Error::Invalid(format!(
            "internal error: the locally recoded release does not satisfy {}; nothing was \
             written",
            names.join(" and ")
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::{run_lattice, Method};
    use crate::privacy::SuppressionLimit;
    use proptest::prelude::*;

    fn labels(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    /// x: a..d under ab, cd, then *; y: p, q under *.
    fn hierarchies() -> Vec<Hierarchy> {
        vec![
            Hierarchy::from_label_rows(
                "x",
                labels(&[
                    &["a", "ab", "*"],
                    &["b", "ab", "*"],
                    &["c", "cd", "*"],
                    &["d", "cd", "*"],
                ]),
            ),
            Hierarchy::from_label_rows("y", labels(&[&["p", "*"], &["q", "*"]])),
        ]
    }

    fn params(k: u64, fraction: f64, threads: usize) -> LatticeParams<'static> {
        LatticeParams {
            method: Method::Flash,
            privacy: &[],
            k,
            metric: MetricKind::Loss,
            suppression: Some(SuppressionLimit::Fraction(fraction)),
            time_limit: None,
            threads,
            stop: None,
        }
    }

    /// 20 (a,p), 20 (b,p), one (c,p), one (d,p): the optimum keeps x and y and suppresses the
    /// two singletons (Loss 1/21); among themselves they are a class at x's level 1, released
    /// there (Loss after by hand: x (40/4 + 2 x 2/4 - 42/4) / (42 - 42/4) = 1/63, y 0).
    #[test]
    fn singletons_are_released_at_a_level_of_their_own() {
        let mut rows = Vec::new();
        for _ in 0..20 {
            rows.extend([0, 0, 1, 0]);
        }
        rows.extend([2, 0, 3, 0]);
        let table = EncodedTable::new(rows, hierarchies(), vec![]);
        let p = params(2, 0.05, 1);
        let (outcome, chosen) = run_lattice(&p, &table, None).unwrap();
        assert_eq!(chosen.levels, vec![0, 0]);
        let r = recode(&p, &Params::default(), &table, &chosen, 1).unwrap();
        assert_eq!(r.suppressed_before, 2);
        assert_eq!(r.suppressed_after, 0);
        assert_eq!(r.steps.len(), 2);
        assert_eq!(
            (r.steps[1].levels.clone(), r.steps[1].records),
            (vec![1, 0], 2)
        );
        // One transformation: Loss over the records is the metric's value.
        assert_eq!(Some(r.loss_before.0), outcome.information_loss);
        assert!(
            (r.loss_before.0 - 1.0 / 21.0).abs() < 1e-9,
            "{:?}",
            r.loss_before
        );
        let x = 1.0 / 63.0;
        assert!((r.loss_after.1[0] - x).abs() < 1e-9, "{:?}", r.loss_after);
        assert_eq!(r.loss_after.1[1], 0.0);
        assert!((r.loss_after.0 - ((1.0 + x).sqrt() - 1.0)).abs() < 1e-9);
    }

    /// ARX's gs-factor 0.05 (g = 1, s = 0.1) on the same table at (0, 0) with the two records
    /// suppressed, by hand: x (40/4 + 2/4 + 0.1 (2 - 2/4) - 42/4) / 31.5, y (20 + 1 + 0.1 -
    /// 21) / 21; at 0.5 the plain metric.
    #[test]
    fn gs_factor_weights_suppression_as_arx() {
        let mut rows = Vec::new();
        for _ in 0..20 {
            rows.extend([0, 0, 1, 0]);
        }
        rows.extend([2, 0, 3, 0]);
        let table = EncodedTable::new(rows, hierarchies(), vec![]);
        let crit = || crate::privacy::build(&[], 2, &table).unwrap();
        let solve = |m: Loss| {
            crate::algorithms::solve(
                &table,
                crit(),
                Box::new(m),
                2,
                LatticeAlgorithm::Exhaustive,
                CheckerConfig::default(),
            )
            .unwrap()
            .optimum
            .unwrap()
        };
        let plain = solve(Loss::new(&table));
        let half = solve(Loss::new(&table).with_gs_factor(0.5));
        assert_eq!(plain, half);
        let low = solve(Loss::new(&table).with_gs_factor(0.05));
        assert_eq!(low.levels, vec![0, 0]);
        let x: f64 = (0.5 + 0.1 * 1.5 - 0.5) / 31.5;
        let y: f64 = 0.1 / 21.0;
        let want = ((1.0 + x) * (1.0 + y)).sqrt() - 1.0;
        assert!((low.loss - want).abs() < 1e-9, "{} {want}", low.loss);
    }

    /// The re-check refuses a release with a class below k, and accepts one without.
    #[test]
    fn verify_refuses_a_class_below_k() {
        let mut rows = Vec::new();
        for _ in 0..20 {
            rows.extend([0, 0, 1, 0]);
        }
        rows.extend([2, 0, 3, 0]);
        let table = EncodedTable::new(rows, hierarchies(), vec![]);
        let p = params(2, 0.05, 1);
        // Tuples in order of appearance: (a,p), (b,p), (c,p), (d,p).
        assert!(verify(&p, &table, &[0, 1, 2, 2], 3).is_ok());
        assert!(verify(&p, &table, &[0, 1, SUPPRESSED, SUPPRESSED], 2).is_ok());
        let e = verify(&p, &table, &[0, 1, 2, 3], 4)
            .unwrap_err()
            .to_string();
        assert!(e.contains("2-anonymity"), "{e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

        /// On random tables: local recoding never suppresses more nor loses more than the
        /// global optimum, every record is released by one step or suppressed, every class of
        /// the release (tuples grouped by their labels, counted here) has at least k records,
        /// and 1 and 2 threads recode alike.
        #[test]
        fn never_less_protection_nor_more_suppression(
            records in proptest::collection::vec((0u32..4, 0u32..2), 8..60),
            k in 2u64..5,
            fraction in 0.05f64..0.5,
        ) {
            let rows: Vec<u32> = records.iter().flat_map(|&(x, y)| [x, y]).collect();
            let table = EncodedTable::new(rows, hierarchies(), vec![]);
            let p = params(k, fraction, 1);
            let Ok((_, chosen)) = run_lattice(&p, &table, None) else {
                return Ok(());
            };
            let r = recode(&p, &Params::default(), &table, &chosen, 1).unwrap();
            prop_assert!(r.suppressed_after <= r.suppressed_before);
            prop_assert!(r.loss_after.0 <= r.loss_before.0 + 1e-12);
            let released: u64 = r.steps.iter().map(|s| s.records).sum();
            prop_assert_eq!(released + r.suppressed_after, table.rows() as u64);
            let mut classes: std::collections::HashMap<Vec<String>, u64> = Default::default();
            for row in 0..table.rows() {
                let t = table.tuple_of(row);
                if let Some(levels) = r.levels_of(t) {
                    let key = table
                        .tuple(t)
                        .zip(&table.hierarchies)
                        .zip(levels)
                        .map(|((c, h), &l)| h.label(l, h.get(c, l)).to_string())
                        .collect();
                    *classes.entry(key).or_default() += 1;
                }
            }
            prop_assert!(classes.values().all(|&n| n >= k), "{:?}", classes);
            let p2 = params(k, fraction, 2);
            let (_, chosen2) = run_lattice(&p2, &table, None).unwrap();
            let r2 = recode(&p2, &Params::default(), &table, &chosen2, 1).unwrap();
            prop_assert_eq!(r, r2);
        }
    }
}
