//! Property tests of the risk-based models on small random tables: Flash, OLA and BFS find the
//! exhaustive search's optimum, and the optimum's release (the rows the checker suppresses)
//! satisfies every model by the independent checks of `risk_models::independent`.

use anonbox::algorithms::LatticeAlgorithm;
use anonbox::check::{Checker, CheckerConfig};
use anonbox::job::{MetricKind, PrivacyModel, SuppressionLimit};
use anonbox::metrics;
use anonbox::privacy::kmap::Estimator as KEstimator;
use anonbox::privacy::population::Population;
use anonbox::privacy::uniqueness::Estimator;
use proptest::prelude::*;
use serde_json::json;

use crate::privacy::{random_table, search};
use crate::risk_models::independent;

/// A model the property draws, and its description for the independent check.
fn model(i: usize, rows: usize, strict: bool) -> (PrivacyModel, serde_json::Value) {
    // δ and β: strict ones fail more classes, where monotonicity matters most.
    let (delta, beta) = if strict { (0.8, 0.5) } else { (1.5, 1.0) };
    match i {
        0 => (
            PrivacyModel::AverageRisk { threshold: 0.3 },
            json!({"model": "average-risk", "risk_threshold": 0.3}),
        ),
        1 => (
            PrivacyModel::SampleUniqueness { threshold: 0.1 },
            json!({"model": "sample-uniqueness", "risk_threshold": 0.1}),
        ),
        2 => {
            // A population twice the sample: k' = 3 or so of k = 4.
            let pop = 2 * rows as u64;
            (
                PrivacyModel::KMap {
                    k: 4,
                    population: Population::of_size(pop),
                    significance: 0.01,
                    estimator: KEstimator::Poisson,
                },
                json!({"model": "kmap", "k": 4, "population_size": pop}),
            )
        }
        3 => (
            PrivacyModel::PopulationUniqueness {
                threshold: 0.15,
                estimator: Estimator::Zayatz,
                population: Population::of_size(3 * rows as u64),
            },
            json!({"model": "population-uniqueness", "pop_model": "zayatz",
                   "risk_threshold": 0.15, "population_size": 3 * rows}),
        ),
        7..=9 => {
            let estimator = [Estimator::Pitman, Estimator::Snb, Estimator::Dankar][i - 7];
            (
                PrivacyModel::PopulationUniqueness {
                    threshold: 0.15,
                    estimator,
                    population: Population::of_size(3 * rows as u64),
                },
                json!({"model": "population-uniqueness", "pop_model": estimator.name(),
                       "risk_threshold": 0.15, "population_size": 3 * rows}),
            )
        }
        4 => (
            PrivacyModel::DeltaDisclosure {
                attribute: 0,
                delta,
            },
            json!({"model": "delta-disclosure", "delta": delta}),
        ),
        5 => (
            PrivacyModel::BetaLikeness {
                attribute: 0,
                beta,
                enhanced: false,
            },
            json!({"model": "basic-beta-likeness", "beta": beta}),
        ),
        _ => (
            PrivacyModel::BetaLikeness {
                attribute: 0,
                beta,
                enhanced: true,
            },
            json!({"model": "enhanced-beta-likeness", "beta": beta}),
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn searches_agree_with_exhaustive_and_releases_satisfy_the_models(
        r in random_table(),
        m in 0usize..10,
        suppression in prop::sample::select(vec![0.0, 0.15, 1.0]),
        with_k in any::<bool>(),
        strict in any::<bool>(),
        metric in prop::sample::select(vec![MetricKind::Loss, MetricKind::DmStar]),
    ) {
        let table = r.table();
        let (model, mut spec) = model(m, table.rows(), strict);
        let mut models = vec![model];
        if with_k && m != 2 {
            models.push(PrivacyModel::KAnonymity { k: 2 });
            spec["k"] = json!(2);
        }
        spec["suppression_limit"] = json!(suppression);
        let budget = SuppressionLimit::Fraction(suppression).budget(table.rows() as u64);
        let all = search(&table, &models, budget, metric, LatticeAlgorithm::Exhaustive);
        for algorithm in [LatticeAlgorithm::Flash, LatticeAlgorithm::Ola, LatticeAlgorithm::Bfs] {
            let got = search(&table, &models, budget, metric, algorithm);
            match (&got.optimum, &all.optimum) {
                (None, None) => {}
                (Some(g), Some(e)) => prop_assert!(
                    (g.loss - e.loss).abs() <= 1e-9 * e.loss.abs().max(1.0),
                    "{algorithm:?} {g:?} vs exhaustive {e:?}"
                ),
                (g, e) => prop_assert!(false, "{algorithm:?} {g:?} vs exhaustive {e:?}"),
            }
        }
        if let Some(opt) = &all.optimum {
            let mut checker = Checker::new(
                &table,
                anonbox::privacy::build(&models, 1, &table).unwrap(),
                metrics::build(metric, &table),
                budget,
                CheckerConfig::default(),
            )
            .unwrap();
            let suppressed = checker.outlier_rows(&opt.levels);
            prop_assert_eq!(
                suppressed.iter().filter(|&&s| s).count() as u64,
                opt.suppressed
            );
            prop_assert!(
                independent::satisfies(&table, &spec, &opt.levels, &suppressed),
                "{spec} at {opt:?}"
            );
        }
    }
}
