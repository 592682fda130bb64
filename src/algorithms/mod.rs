//! Anonymization methods. Each one receives the job (never flags) and a backend, and returns an
//! [`Outcome`] for the report; the output writers take the labels from the backend.
//!
//! Store-backed methods (Datafly; Mondrian, Incognito, Anatomy to come) work on the SQLite
//! [`Store`](crate::store::Store): they read `QidTuple` (distinct quasi-identifier tuples with
//! counts) and write `EquivalenceTable` and `QidTuple.EquivalenceID`; the pipeline checks the
//! result ([`Store::check_classes`](crate::store::Store::check_classes)). In-memory methods
//! (Flash, OLA) work on an [`EncodedTable`](crate::data::EncodedTable): they see transformations
//! and checker results only; `search` is their shared frame and [`solve`] their entry point.

pub mod datafly;
pub mod exhaustive;
pub mod flash;
pub mod ola;
pub mod search;

use crate::check::CheckerConfig;
use crate::data::EncodedTable;
use crate::job::{Job, MetricKind, SuppressionLimit};
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;
use crate::Result;
pub use search::{Optimum, Search, SearchOutcome};

/// What a method reports about its result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// Levels per quasi-identifier (full-domain methods).
    pub transformation: Option<Vec<usize>>,
    /// The metric that was optimised or evaluated, and its value.
    pub metric: Option<MetricKind>,
    pub information_loss: Option<f64>,
    /// The suppression budget that applied, in records.
    pub suppression_limit: Option<u64>,
    pub suppressed_records: u64,
    /// Classes in the output, suppressed records excluded.
    pub equivalence_classes: u64,
    /// Lattice methods: transformations evaluated.
    pub transformations_checked: Option<u64>,
    /// Method-specific report fields.
    pub extra: serde_json::Map<String, serde_json::Value>,
}

/// A lattice search strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatticeAlgorithm {
    Flash,
    Ola,
    Exhaustive,
}

/// Finds the transformation of minimal information loss that satisfies `criteria` with at most
/// `budget` suppressed records.
pub fn solve(
    table: &EncodedTable,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    metric: Box<dyn Metric>,
    budget: u64,
    algorithm: LatticeAlgorithm,
    config: CheckerConfig,
) -> Result<SearchOutcome> {
    let mut search = Search::new(table, criteria, metric, budget, config)?;
    match algorithm {
        LatticeAlgorithm::Flash => flash::classify(&mut search),
        LatticeAlgorithm::Ola => ola::classify(&mut search),
        LatticeAlgorithm::Exhaustive => exhaustive::classify(&mut search),
    }
    search.optimize_remaining();
    Ok(search.outcome())
}

/// The suppression budget of a lattice job: ARX's semantics, default 0.
pub fn lattice_budget(job: &Job, rows: usize) -> u64 {
    job.suppression
        .unwrap_or(SuppressionLimit::Fraction(0.0))
        .budget(rows as u64)
}

/// Runs a lattice search for `job` on its encoded table.
pub fn solve_job(
    job: &Job,
    table: &EncodedTable,
    algorithm: LatticeAlgorithm,
    config: CheckerConfig,
) -> Result<SearchOutcome> {
    let criteria = crate::privacy::build(&job.privacy, job.k, table)?;
    let metric = crate::metrics::build(job.metric, table);
    solve(
        table,
        criteria,
        metric,
        lattice_budget(job, table.rows()),
        algorithm,
        config,
    )
}
