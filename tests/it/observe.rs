//! The search's observer interface: what a lattice search reports while it runs (the progress
//! bar's figures) is consistent with its outcome, and every lower bound it reports is a true
//! lower bound of the optimum.

use anonbox::algorithms::observe::{Phase, Recorder};
use anonbox::algorithms::{
    execute_observed, LatticeAlgorithm, Limit, SearchObserver, SearchSetup, SearchStatus,
};
use anonbox::check::CheckerConfig;
use anonbox::data::EncodedTable;
use anonbox::job::{MetricKind, SuppressionLimit};
use anonbox::metrics;
use anonbox::privacy::{KAnonymity, PrivacyCriterion};

use crate::flash::adult;

/// Runs `algorithm` on ADULT (5-anonymity, 2 % suppression, Loss) with a recorder: the
/// statuses and the outcome's (checks, lattice size, optimum loss, proven).
fn observed(
    table: &EncodedTable,
    algorithm: LatticeAlgorithm,
    max_checks: Option<u64>,
) -> (Vec<SearchStatus>, Outcome) {
    let mut recorder = Recorder::default();
    let criteria: Vec<Box<dyn PrivacyCriterion>> = vec![Box::new(KAnonymity { k: 5 })];
    let setup = SearchSetup {
        algorithm,
        store: algorithm.store(),
        config: CheckerConfig::default(),
        limit: Limit {
            max_checks,
            ..Limit::default()
        },
        threads: 1,
    };
    let budget = SuppressionLimit::Fraction(0.02).budget(table.records() as u64);
    let observer: Box<dyn SearchObserver + '_> = Box::new(&mut recorder);
    let (out, _) = execute_observed(
        table,
        criteria,
        metrics::build(MetricKind::Loss, table),
        budget,
        setup,
        false,
        Some(observer),
    )
    .unwrap();
    (
        recorder.statuses,
        (
            out.checks,
            out.lattice_size,
            out.optimum.map(|o| o.loss),
            out.proven_optimal,
            out.lower_bound,
        ),
    )
}

/// Checks, lattice size, optimum loss, proven, lower bound.
type Outcome = (u64, u64, Option<f64>, bool, Option<f64>);

fn consistent(statuses: &[SearchStatus], outcome: Outcome, optimum: f64) {
    let (checks, size, loss, _, bound) = outcome;
    assert!(statuses.len() >= 2, "{statuses:?}");
    for w in statuses.windows(2) {
        assert!(w[0].checks <= w[1].checks, "checks go down: {w:?}");
        assert!(w[0].elapsed <= w[1].elapsed);
    }
    for s in statuses {
        assert_eq!(s.lattice_size, size);
        assert!(s.checks <= size);
        // The best loss so far is a valid transformation's: never below the optimum.
        if let Some(best) = s.best_loss {
            assert!(best >= optimum - 1e-12, "{s:?}");
        }
        // A lower bound is one: never above the optimum.
        if let Some(bound) = s.lower_bound {
            assert!(
                bound <= optimum + 1e-12,
                "bound {bound} > optimum {optimum}: {s:?}"
            );
        }
        if let Some((done, total)) = s.work {
            assert!(done <= total, "{s:?}");
        }
    }
    let last = statuses.last().unwrap();
    assert!(last.finished && statuses[..statuses.len() - 1].iter().all(|s| !s.finished));
    assert_eq!(last.checks, checks);
    assert_eq!(last.best_loss, loss);
    assert_eq!(last.lower_bound, bound);
}

#[test]
fn searches_report_progress_consistent_with_their_outcome() {
    let table = adult();
    let (flash, outcome) = observed(&table, LatticeAlgorithm::Flash, None);
    let optimum = outcome.2.unwrap();
    assert!(outcome.3);
    consistent(&flash, outcome, optimum);
    // Loss with suppression is not monotonic: Flash's final phase runs, with known work and a
    // bound (its candidates come in bound order).
    assert!(flash
        .iter()
        .any(|s| s.phase == Phase::Final && s.work.is_some()));
    assert!(flash
        .iter()
        .any(|s| s.phase == Phase::Final && s.lower_bound.is_some()));
    assert_eq!(flash.last().unwrap().lower_bound, Some(optimum));

    let (bfs, outcome) = observed(&table, LatticeAlgorithm::Bfs, None);
    assert_eq!(outcome.2, Some(optimum), "BFS and Flash agree");
    consistent(&bfs, outcome, optimum);
    assert!(bfs.iter().all(|s| s.phase == Phase::BestFirst));
    assert!(bfs.iter().any(|s| s.queued.is_some_and(|q| q > 0)));
    assert!(bfs.iter().any(|s| s.lower_bound.is_some()));
    let last = bfs.last().unwrap();
    assert_eq!((last.queued, last.lower_bound), (Some(0), Some(optimum)));

    // Cut short: the bounds it reported still hold, and its last one is the outcome's.
    let (cut, outcome) = observed(&table, LatticeAlgorithm::Bfs, Some(40));
    assert!(!outcome.3, "40 checks do not prove ADULT's optimum");
    assert!(outcome.4.is_some());
    consistent(&cut, outcome, optimum);
}
