//! What a method returns: an [`Outcome`], the figures every method has (transformation,
//! classes, suppression, loss), and its own findings as a typed [`Details`], one variant per
//! method. The report (`output::report`) names and serialises them; nothing reads them back
//! from JSON.

use std::time::Duration;

use super::search::{Ahead, CheckedSample, PurposeCount};
use super::LatticeAlgorithm;
use crate::check::CheckerStats;
use crate::lattice::StoreSizes;
use crate::metrics::MetricKind;
use crate::privacy::differential::DpSearch;

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
    /// What the method alone reports.
    pub details: Details,
    /// Lattice searches: the transformations checked, for the HTML report's chart.
    pub checked: Option<CheckedSample>,
}

/// A method's own findings. `backend` says where a toolbox method ran: `memory`, `sql`, or
/// for Mondrian `passes` (on the store) and `hybrid`.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Details {
    /// Nothing beyond the [`Outcome`]'s figures.
    #[default]
    None,
    Datafly {
        backend: &'static str,
        /// The quasi-identifiers generalized, one per step, in order.
        generalized: Vec<String>,
    },
    Mondrian {
        backend: &'static str,
        /// Passes over the classes.
        passes: u64,
    },
    /// Mondrian over hierarchies (`mondrian::hierarchical`), in memory.
    MondrianHierarchies {
        /// `strict` or `relaxed`.
        partitioning: &'static str,
        /// `nodes` or `sets`.
        labels: &'static str,
        /// Each quasi-identifier's name, whether it was split as a number, and its records'
        /// mean normalized certainty penalty.
        attributes: Vec<(String, bool, f64)>,
    },
    /// MDAV microaggregation, in memory.
    Microaggregation {
        /// `MDAV`, or `optimal univariate` (a single numeric quasi-identifier).
        grouping: &'static str,
        groups: u64,
        sse: f64,
        sst: f64,
        il1s: f64,
        /// Each quasi-identifier's name and whether it was aggregated as a number (else its
        /// group's mode).
        attributes: Vec<(String, bool)>,
    },
    Incognito {
        backend: &'static str,
        /// The nodes that passed, in evaluation order (`1_0_2`).
        anonymous_generalizations: Vec<String>,
    },
    Anatomy {
        backend: &'static str,
        /// The l used (rounded as the toolbox does).
        l: usize,
        seed: u64,
        /// Records placed by the residue step.
        residue: u64,
    },
    /// Flash, OLA, BFS, Optimal.
    Lattice(Box<LatticeDetails>),
    /// SafePub's (ε,δ)-differentially private release (`safepub`).
    DifferentialPrivacy(Box<DpDetails>),
}

impl Details {
    /// Where a toolbox method ran (`None` for the lattice searches).
    pub fn backend(&self) -> Option<&'static str> {
        match self {
            Details::Datafly { backend, .. }
            | Details::Mondrian { backend, .. }
            | Details::Incognito { backend, .. }
            | Details::Anatomy { backend, .. } => Some(backend),
            Details::MondrianHierarchies { .. } | Details::Microaggregation { .. } => {
                Some("memory")
            }
            Details::None | Details::Lattice(_) | Details::DifferentialPrivacy(_) => None,
        }
    }

    /// The search's figures of a lattice method.
    pub fn lattice(&self) -> Option<&LatticeDetails> {
        match self {
            Details::Lattice(d) => Some(d),
            _ => None,
        }
    }
}

/// What a lattice search found besides its optimum: whether it is proven, the bound, and the
/// search's statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct LatticeDetails {
    pub algorithm: LatticeAlgorithm,
    pub lattice_size: u64,
    /// The search ran to its end: the optimum is proven.
    pub proven_optimal: bool,
    /// No transformation loses less than this (see `SearchOutcome::lower_bound`).
    pub lower_bound: Option<f64>,
    pub threads: usize,
    /// `-timeLimit`, if the run had one.
    pub time_limit: Option<Duration>,
    /// With δ-presence: the records of the research subset, the ones anonymized.
    pub research_subset_records: Option<usize>,
    /// Seconds from the search's start to its first valid transformation, and to the best.
    pub first_valid_seconds: Option<f64>,
    pub best_seconds: Option<f64>,
    /// The property store that was used ("dense", "antichain") and what it holds at the end.
    pub store: &'static str,
    pub store_sizes: StoreSizes,
    /// Checks per purpose (in `Purpose::ALL`'s order).
    pub purposes: [PurposeCount; 4],
    /// Transformations resolved by a tag when a strategy came to them.
    pub tag_hits: u64,
    /// Checks evaluated ahead on other threads, and used.
    pub ahead: Ahead,
    /// The checker's work counters.
    pub checker: CheckerStats,
}

/// The guarantee of a SafePub release and how it was drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct DpDetails {
    pub epsilon: f64,
    pub delta: f64,
    /// Derived: the smallest class released, in sampled records.
    pub k: u64,
    /// Derived: each record's probability to be sampled.
    pub beta: f64,
    /// ε spent on sampling and k-anonymity (ε minus the search's budget).
    pub epsilon_anonymization: f64,
    pub search: DpSearch,
    /// The seed, if the run was given one (else it was drawn from the system's entropy).
    pub seed: Option<u64>,
    /// Records in the sample, and left out (released suppressed).
    pub sampled: u64,
    pub unsampled: u64,
    /// Data-dependent search: the top, then the pivot of each step.
    pub pivots: Vec<Vec<usize>>,
}
