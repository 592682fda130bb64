//! Anonymization algorithms. Lattice searches (Flash, OLA, exhaustive) see transformations and
//! checker results only; `search` is their shared frame and [`solve`] the entry point.

pub mod exhaustive;
pub mod flash;
pub mod ola;
pub mod search;

use crate::check::CheckerConfig;
use crate::data::EncodedTable;
use crate::job::{Job, SuppressionLimit};
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;
use crate::Result;
pub use search::{Optimum, Outcome, Search};

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
) -> Result<Outcome> {
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
pub fn budget(job: &Job, rows: usize) -> u64 {
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
) -> Result<Outcome> {
    let criteria = crate::privacy::build(&job.privacy, job.k, table)?;
    let metric = crate::metrics::build(job.metric, table);
    solve(
        table,
        criteria,
        metric,
        budget(job, table.rows()),
        algorithm,
        config,
    )
}
