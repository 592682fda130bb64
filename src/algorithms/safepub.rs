//! SafePub (Bild, Kuhn and Prasser, PoPETs 2018) as ARX 3.9 runs it: the release of a random
//! sample under one full-domain transformation, every class of fewer than k sampled records
//! suppressed (`privacy::differential` draws the sample and derives k and β; the caller hands
//! this module the table with its sample, `EncodedTable::with_sample`).
//!
//! The transformation is chosen in one of two ways, neither of which looks for an optimum:
//! - data-independent ([`DpSearch::Degree`]): fixed before the data is seen, round(degree ×
//!   height) per quasi-identifier; one check;
//! - data-dependent ([`DpSearch::Steps`]): ARX's `DataDependentEDDPAlgorithm`. From the top of
//!   the lattice, each step adds the current pivot's direct specializations to a set of
//!   candidates, removes the pivot, and draws the next pivot from the candidates by the
//!   exponential mechanism: probability proportional to exp(ε_step · score / 2), ε_step the
//!   search's budget over the steps (rounded down), the score SafePub's for the run's metric
//!   (`metrics::score`). The release is the pivot of the best score (the top included; ties
//!   go to the lower transformation, then to the earlier pivot). At most 1 + steps × the
//!   quasi-identifiers transformations are checked.
//!
//! Nothing is pruned: with the suppression limit at 100 % (as ARX sets it for this model) every
//! transformation is valid, and the mechanism must see every candidate's score. The coins of
//! the mechanism are a ChaCha20 stream of the run's seed apart from the sample's.

use super::outcome::{DpDetails, Outcome};
use super::{Details, FullDomainResult};
use crate::check::{Checker, CheckerConfig};
use crate::data::EncodedTable;
use crate::metrics::score::Score;
use crate::metrics::MetricKind;
use crate::privacy::differential::{self, DpSearch, Interval, Rng};
use crate::privacy::PrivacyModel;
use crate::{Error, Result};

/// The ChaCha20 stream of the exponential mechanism (the sample's is 0).
pub const MECHANISM_STREAM: u64 = 1;

/// What a SafePub run is asked for.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    /// The run's privacy models: one differential-privacy model, perhaps k-anonymity too.
    pub privacy: &'a [PrivacyModel],
    pub k: u64,
    pub metric: MetricKind,
    /// The seed of the sample and the mechanism, and whether the run was given it.
    pub seed: u64,
    pub seeded: bool,
}

/// The differential-privacy model's parameters among `privacy`.
fn model(privacy: &[PrivacyModel]) -> Result<(f64, f64, DpSearch)> {
    match PrivacyModel::differential_privacy(privacy) {
        Some(&PrivacyModel::DifferentialPrivacy {
            epsilon,
            delta,
            search,
            ..
        }) => Ok((epsilon, delta, search)),
        _ => Err(Error::Invalid(
            "internal error: SafePub without a differential-privacy model".into(),
        )),
    }
}

/// The derived parameters of the run's model.
pub fn parameters(privacy: &[PrivacyModel]) -> Result<differential::Parameters> {
    let (epsilon, delta, search) = model(privacy)?;
    differential::parameters(epsilon, delta, search.budget()).ok_or_else(|| {
        Error::Invalid(format!(
            "({epsilon},{delta})-differential privacy: k and the sampling probability cannot be \
             computed for these parameters"
        ))
    })
}

/// Chooses the transformation of a sampled `table` and the rows it suppresses (sampled rows
/// in classes of fewer than k sampled records; the caller suppresses the unsampled ones).
pub fn run(params: &Params<'_>, table: &EncodedTable) -> Result<(Outcome, FullDomainResult)> {
    let (epsilon, delta, search) = model(params.privacy)?;
    let p = parameters(params.privacy)?;
    let heights: Vec<usize> = table.hierarchies.iter().map(|h| h.levels()).collect();
    // Every released (sampled) record may be suppressed.
    let budget = table.records() as u64;
    let (levels, walk, checks) = match search {
        DpSearch::Degree(d) => (d.levels(&heights), Vec::new(), 0),
        DpSearch::Steps { steps, budget: b } => {
            let score = Score::new(params.metric, table, p.k).ok_or_else(|| {
                Error::Invalid(format!(
                    "the {} metric has no score for the data-dependent search",
                    params.metric.name()
                ))
            })?;
            let criteria = crate::privacy::build(params.privacy, params.k, table)?;
            let mut checker = Checker::new(
                table,
                criteria,
                Box::new(score),
                budget,
                CheckerConfig::default(),
            )?;
            let eps_step = Interval::point(b)
                .div(Interval::point(steps as f64))
                .map_or(0.0, |i| i.lo);
            let mut rng = Rng::stream(params.seed, MECHANISM_STREAM);
            let walk = walk(&heights, steps, eps_step, &mut rng, |levels| {
                let r = checker.check(levels, &|_| false);
                r.loss.map(|l| -l).ok_or_else(|| {
                    Error::Invalid(format!(
                        "internal error: transformation {levels:?} is not valid with every \
                         record suppressible"
                    ))
                })
            })?;
            let best = walk.best.clone();
            (best, walk.pivots, checker.stats().checks)
        }
    };
    // The chosen transformation's figures with the run's own metric.
    let criteria = crate::privacy::build(params.privacy, params.k, table)?;
    let metric = crate::metrics::build(params.metric, table);
    let mut checker = Checker::new(table, criteria, metric, budget, CheckerConfig::default())?;
    let r = checker.check(&levels, &|_| false);
    let suppressed = checker.outlier_rows(&levels);
    let details = DpDetails {
        epsilon,
        delta,
        k: p.k,
        beta: p.beta,
        epsilon_anonymization: p.epsilon_anonymization,
        search,
        seed: params.seeded.then_some(params.seed),
        sampled: table.records() as u64,
        unsampled: (table.rows() - table.records()) as u64,
        pivots: walk,
    };
    let outcome = Outcome {
        transformation: Some(levels.clone()),
        metric: Some(params.metric),
        information_loss: r.loss,
        // As the release reads: every record may be suppressed, and the records left out of
        // the sample are (the loss, as ARX's, measures the sample).
        suppression_limit: Some(table.rows() as u64),
        suppressed_records: r.suppressed + (table.rows() - table.records()) as u64,
        equivalence_classes: r.classes,
        // The search's checks (the final check with the run's metric repeats one of them).
        transformations_checked: Some(checks.max(1)),
        details: Details::DifferentialPrivacy(Box::new(details)),
        checked: None,
    };
    Ok((outcome, FullDomainResult { levels, suppressed }))
}

/// The pivots of a data-dependent walk and the one released.
#[derive(Debug, Clone, PartialEq)]
pub struct Walk {
    /// The top, then the pivot drawn at each step.
    pub pivots: Vec<Vec<usize>>,
    pub best: Vec<usize>,
}

/// ARX's data-dependent walk over the lattice of hierarchies of `heights` levels: `score`
/// checks a transformation (higher is better), `eps_step` is each draw's budget. It stops after
/// `steps` draws, when no candidate is left, or once steps × quasi-identifiers transformations
/// are checked (ARX's limit of checks).
pub fn walk(
    heights: &[usize],
    steps: usize,
    eps_step: f64,
    rng: &mut Rng,
    mut score: impl FnMut(&[usize]) -> Result<f64>,
) -> Result<Walk> {
    let top: Vec<usize> = heights.iter().map(|h| h.saturating_sub(1)).collect();
    let mut pivot = top.clone();
    let mut known: std::collections::HashMap<Vec<usize>, f64> = Default::default();
    let s = score(&pivot)?;
    known.insert(pivot.clone(), s);
    let mut best = (pivot.clone(), s);
    let mut pivots = vec![pivot.clone()];
    // The candidates in the order they came (the mechanism's draw does not depend on it).
    let mut candidates: Vec<(Vec<usize>, f64)> = vec![(pivot.clone(), s)];
    for _ in 0..steps {
        for j in 0..pivot.len() {
            if pivot[j] == 0 {
                continue;
            }
            let mut pred = pivot.clone();
            pred[j] -= 1;
            if candidates.iter().any(|(c, _)| *c == pred) {
                continue;
            }
            let s = match known.get(&pred) {
                Some(&s) => s,
                None => {
                    let s = score(&pred)?;
                    known.insert(pred.clone(), s);
                    s
                }
            };
            candidates.push((pred, s));
        }
        candidates.retain(|(c, _)| *c != pivot);
        if candidates.is_empty() {
            break;
        }
        let scores: Vec<f64> = candidates.iter().map(|&(_, s)| s).collect();
        let i = exponential_mechanism(&scores, eps_step, rng);
        pivot = candidates[i].0.clone();
        let s = candidates[i].1;
        let level = |t: &[usize]| t.iter().sum::<usize>();
        if s > best.1 || (s == best.1 && level(&pivot) < level(&best.0)) {
            best = (pivot.clone(), s);
        }
        pivots.push(pivot.clone());
        // ARX also stops once it has checked steps × quasi-identifiers transformations (its
        // check limit for a limit of expansions): with one quasi-identifier, a step early.
        if known.len() >= steps * heights.len() {
            break;
        }
    }
    Ok(Walk {
        pivots,
        best: best.0,
    })
}

/// The exponential mechanism: index i with probability proportional to exp(ε · score_i / 2)
/// (shifted by the largest exponent, as ARX does, so that nothing overflows).
pub fn exponential_mechanism(scores: &[f64], epsilon: f64, rng: &mut Rng) -> usize {
    let exponents: Vec<f64> = scores.iter().map(|s| 0.5 * epsilon * s).collect();
    let shift = exponents.iter().copied().fold(-f64::MAX, f64::max);
    let weights: Vec<f64> = exponents.iter().map(|e| (e - shift).exp()).collect();
    let total: f64 = weights.iter().sum();
    let u = rng.next_f64() * total;
    let mut acc = 0.0;
    for (i, w) in weights.iter().enumerate() {
        acc += w;
        if u < acc {
            return i;
        }
    }
    weights.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::privacy::differential::Rng;
    use proptest::prelude::*;

    proptest! {
        /// On random lattices and scores: the walk starts at the top, each pivot is a direct
        /// specialization of an earlier one, no pivot repeats while it is a candidate (two
        /// consecutive pivots differ), it checks each transformation once and at most
        /// 1 + steps × dims of them, and it releases the best pivot (ties: the lowest, then
        /// the first).
        #[test]
        fn walk_follows_arx(
            heights in prop::collection::vec(1usize..5, 1..4),
            steps in 1usize..12,
            eps in 0.0f64..4.0,
            seed in 0u64..1000,
            salt in 0u64..1000,
        ) {
            let score = |t: &[usize]| {
                let h = t.iter().fold(salt, |h, &l| h.wrapping_mul(31).wrapping_add(l as u64));
                (h % 7) as f64 - t.iter().sum::<usize>() as f64 * 0.1
            };
            let mut checked: Vec<Vec<usize>> = Vec::new();
            let mut rng = Rng::new(seed);
            let w = walk(&heights, steps, eps, &mut rng, |t| {
                checked.push(t.to_vec());
                Ok(score(t))
            })
            .unwrap();
            let top: Vec<usize> = heights.iter().map(|h| h - 1).collect();
            prop_assert_eq!(&w.pivots[0], &top);
            prop_assert!(w.pivots.len() <= steps + 1);
            let mut sorted = checked.clone();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), checked.len(), "checked twice");
            prop_assert!(checked.len() <= 1 + steps * heights.len());
            for (i, p) in w.pivots.iter().enumerate().skip(1) {
                let below = |q: &Vec<usize>| {
                    q.iter().zip(p).map(|(a, b)| a.abs_diff(*b)).sum::<usize>() == 1
                        && q.iter().sum::<usize>() == p.iter().sum::<usize>() + 1
                };
                prop_assert!(w.pivots[..i].iter().any(below), "pivot {:?} from nowhere", p);
                prop_assert_ne!(&w.pivots[i - 1], p);
            }
            let level = |t: &[usize]| t.iter().sum::<usize>();
            let mut best = &w.pivots[0];
            for p in &w.pivots[1..] {
                let (a, b) = (score(p), score(best));
                if a > b || (a == b && level(p) < level(best)) {
                    best = p;
                }
            }
            prop_assert_eq!(&w.best, best);
        }
    }

    /// The mechanism's frequencies follow exp(ε s / 2) within a binomial bound.
    #[test]
    fn mechanism_frequencies() {
        let scores = [0.0, -1.0, -2.0, 1.5];
        let eps: f64 = 1.3;
        let w: Vec<f64> = scores.iter().map(|s| (0.5 * eps * s).exp()).collect();
        let total: f64 = w.iter().sum();
        let mut rng = Rng::new(11);
        let n = 40_000;
        let mut counts = [0u32; 4];
        for _ in 0..n {
            counts[exponential_mechanism(&scores, eps, &mut rng)] += 1;
        }
        for (c, w) in counts.iter().zip(&w) {
            let p = w / total;
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!(
                (*c as f64 - n as f64 * p).abs() < 5.0 * sd,
                "{counts:?} against p = {p}"
            );
        }
    }

    /// The walk goes down one level per step, never revisits a pivot while it is a candidate,
    /// and releases the best pivot (ties: the lower one).
    #[test]
    fn walk_descends_and_keeps_the_best() {
        let heights = [3, 2, 4];
        let mut rng = Rng::new(5);
        // Score: minus the distance from (1, 0, 2).
        let w = walk(&heights, 6, 1.0, &mut rng, |t| {
            Ok(-((t[0] as f64 - 1.0).abs() + t[1] as f64 + (t[2] as f64 - 2.0).abs()))
        })
        .unwrap();
        assert_eq!(w.pivots[0], vec![2, 1, 3]);
        assert_eq!(w.pivots.len(), 7);
        let score =
            |t: &[usize]| -((t[0] as f64 - 1.0).abs() + t[1] as f64 + (t[2] as f64 - 2.0).abs());
        let best = w
            .pivots
            .iter()
            .map(|p| score(p.as_slice()))
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(score(&w.best), best);
        // A walk with nowhere to go stops.
        let w = walk(&[1, 1], 5, 1.0, &mut rng, |_| Ok(0.0)).unwrap();
        assert_eq!(w.pivots, vec![vec![0, 0]]);
    }
}
