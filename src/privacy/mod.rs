//! Privacy models: k-anonymity, l-diversity, t-closeness, δ-presence, and the risk-based ones:
//! k-map ([`kmap`]), δ-disclosure and β-likeness ([`disclosure`]), average risk and sample
//! uniqueness ([`sizes`]), population uniqueness ([`uniqueness`]); and (ε,δ)-differential
//! privacy by sampling and k-anonymity (SafePub, [`differential`]).
//!
//! The models with a sensitive attribute are pure functions over class distributions
//! ([`distribution::Distribution`]) (and, for t-closeness, the table's distribution), shared by
//! every engine: the Flash checker and the UT Dallas Incognito_L / Incognito_T call the same code,
//! choosing whose arithmetic to follow with a [`Flavor`]. `anonbox audit` uses [`Flavor::Exact`].
//!
//! The checker's plug-in interface is [`PrivacyCriterion`]: a model says what the checker must
//! keep per equivalence class ([`Requirements`]: a minimum class size and the distributions of
//! sensitive attributes), whether it is monotonic (so the search may tag predictively), and
//! judges one class at a time ([`PrivacyCriterion::is_satisfied`]). A class that fails any
//! criterion is an outlier; its records are suppressed, and a transformation is valid if the
//! outliers fit the suppression budget (`../shared/ARX-SEMANTICS.md`). The checker filters classes
//! by the largest [`Requirements::min_class_size`] first and calls `is_satisfied` only for criteria
//! that are not [`PrivacyCriterion::size_only`], so plain k-anonymity costs one comparison per
//! class. A criterion that is not monotonic may name a monotonic necessary condition
//! ([`PrivacyCriterion::relaxation`]; entropy and recursive l-diversity: distinct l-diversity)
//! that the search can still tag by. [`criteria`] holds the models with a sensitive attribute as
//! criteria, [`delta`] δ-presence, which reads the membership column of a table with a research
//! subset (the released records; see `EncodedTable::with_subset`). A model of the whole table's
//! class sizes (average risk, uniqueness) is a criterion that
//! [`judges sizes`](PrivacyCriterion::judges_sizes): the checker builds the histogram of the
//! sizes of the classes the other criteria keep and suppresses the smallest until it holds
//! ([`sizes`]).

pub mod criteria;
pub mod delta;
pub mod differential;
pub mod disclosure;
pub mod distribution;
pub mod kmap;
pub mod ldiversity;
pub mod model;
pub mod population;
pub mod properties;
pub mod sizes;
pub mod tcloseness;
pub mod uniqueness;

pub use distribution::Distribution;
pub use model::{PrivacyModel, SuppressionLimit, TDistance};
pub use properties::Flavor;

use crate::data::EncodedTable;
use crate::Result;

/// What a criterion needs the checker to collect per class.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Requirements {
    /// Classes smaller than this fail the criterion (k for k-anonymity; 1 if no such bound).
    pub min_class_size: u64,
    /// Sensitive columns (indices into [`EncodedTable::sensitive`]) whose per-class distributions
    /// the criterion reads, in the order [`ClassView::distribution`] numbers them.
    pub distributions: Vec<usize>,
}

/// One equivalence class as a criterion sees it.
#[derive(Debug, Clone, Copy)]
pub struct ClassView<'a> {
    /// Number of records in the class.
    pub count: u64,
    /// All distributions the checker keeps (its slots).
    slots: &'a [Distribution<'a>],
    /// This criterion's `requirements().distributions[i]` is at `slots[map[i]]`.
    map: &'a [usize],
}

impl<'a> ClassView<'a> {
    /// A view for one criterion: `map[i]` is the slot of its i-th requested distribution.
    pub fn new(count: u64, slots: &'a [Distribution<'a>], map: &'a [usize]) -> ClassView<'a> {
        ClassView { count, slots, map }
    }

    /// The class's distribution of the criterion's `i`-th requested sensitive column.
    pub fn distribution(&self, i: usize) -> Distribution<'a> {
        self.slots[self.map[i]]
    }
}

/// A class-level privacy model.
pub trait PrivacyCriterion: Send + Sync {
    /// Human-readable name with parameters (`5-anonymity`).
    fn name(&self) -> String;

    /// What the checker must collect.
    fn requirements(&self) -> Requirements;

    /// True if, whenever a transformation satisfies the criterion, every generalization does too.
    /// `with_suppression`: when outlier classes may be suppressed (budget > 0), i.e. whether the
    /// outlier records can only shrink when classes merge.
    fn is_monotonic(&self, with_suppression: bool) -> bool;

    /// True if the verdict depends on the class size alone, so `count >= min_class_size` decides
    /// and [`is_satisfied`](Self::is_satisfied) is never called.
    fn size_only(&self) -> bool {
        false
    }

    /// With a research subset (δ-presence), a class may hold population records but no released
    /// one (its count is 0). Nothing of it is released, so criteria on the released records do
    /// not apply and there is nothing to suppress. A criterion that still constrains such classes
    /// returns true here: the checker then calls [`is_satisfied`](Self::is_satisfied) for them
    /// (whatever `min_class_size`), and a failure makes the whole transformation invalid.
    fn judges_empty_classes(&self) -> bool {
        false
    }

    /// Judges one class whose size is at least `min_class_size` (or an empty class, see
    /// [`judges_empty_classes`](Self::judges_empty_classes)).
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool;

    /// A monotonic necessary condition, for a criterion that is not monotonic itself: every
    /// class that fails the returned criterion fails this one, and the returned criterion is
    /// monotonic with suppression. The search then classifies the lattice by it with predictive
    /// tagging (a transformation whose classes fail it beyond the budget, and all its
    /// specializations, are invalid) and checks only what remains. Default: none.
    fn relaxation(&self) -> Option<Box<dyn PrivacyCriterion>> {
        None
    }

    /// True for a model of the table's class sizes ([`sizes`]): it is [`size_only`] with a
    /// minimum size of 1 (so it judges no single class) and the checker asks
    /// [`sizes_satisfied`](Self::sizes_satisfied) about the classes the other criteria keep.
    ///
    /// [`size_only`]: Self::size_only
    fn judges_sizes(&self) -> bool {
        false
    }

    /// Whether the kept classes, with these sizes, satisfy the model (see
    /// [`judges_sizes`](Self::judges_sizes)).
    fn sizes_satisfied(&self, _sizes: &sizes::ClassSizes) -> bool {
        true
    }
}

/// k-anonymity: every class has at least k records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KAnonymity {
    pub k: u64,
}

impl PrivacyCriterion for KAnonymity {
    fn name(&self) -> String {
        format!("{}-anonymity", self.k)
    }

    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: self.k.max(1),
            distributions: Vec::new(),
        }
    }

    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        true
    }

    fn size_only(&self) -> bool {
        true
    }

    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        class.count >= self.k
    }
}

/// Builds the criteria of a run for the lattice engine: its `<privacy>` models, or k-anonymity
/// with `k` if none. Models with a sensitive attribute follow ARX's arithmetic
/// ([`Flavor::Arx`], see [`criteria`]).
pub fn build(
    models: &[PrivacyModel],
    k: u64,
    table: &EncodedTable,
) -> Result<Vec<Box<dyn PrivacyCriterion>>> {
    if models.is_empty() {
        return Ok(vec![Box::new(KAnonymity { k })]);
    }
    models
        .iter()
        .map(|m| criteria::build(m, table, Flavor::Arx))
        .collect()
}
