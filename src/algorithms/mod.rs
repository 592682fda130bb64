//! Anonymization methods. Each one receives the job (never flags) and a backend, and returns an
//! [`Outcome`] for the report; the output writers take the labels from the backend.
//!
//! Store-backed methods (Datafly; Mondrian, Incognito, Anatomy to come) work on the SQLite
//! [`Store`](crate::store::Store): they read `QidTuple` (distinct quasi-identifier tuples with
//! counts) and write `EquivalenceTable` and `QidTuple.EquivalenceID`; the pipeline checks the
//! result ([`Store::check_classes`](crate::store::Store::check_classes)). In-memory methods
//! (Flash, OLA) work on an [`EncodedTable`](crate::data::EncodedTable).

pub mod datafly;

use crate::job::MetricKind;

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
