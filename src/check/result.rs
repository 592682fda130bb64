//! What a check returns ([`CheckResult`]), what the checker counts ([`CheckerStats`]) and the
//! decoded classes of a check ([`Class`], for tests and diagnostics).

/// Which transition built the classes (see `transition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Plain,
    Rollup,
    Snapshot,
}

/// The verdict on one transformation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckResult {
    /// The outlier records fit the suppression budget (and, with a research subset, no class
    /// without released records fails).
    pub anonymous: bool,
    /// Released records in outlier classes (suppressed if `anonymous`).
    pub suppressed: u64,
    /// Classes that are not outliers (classes without released records excluded).
    pub classes: u64,
    /// All classes, outliers included (classes without released records excluded).
    ///
    /// For a check that stopped at the class limit (see `shared`), `suppressed`, `classes` and
    /// `all_classes` are lower bounds: the budget + 1, 0 and the limit + 1.
    pub all_classes: u64,
    /// The monotonic necessary condition of the criteria holds within the budget (classes
    /// failing a criterion's [`relaxation`](crate::privacy::PrivacyCriterion::relaxation), a monotonic criterion
    /// or a minimum size fit the budget). If false, no specialization is anonymous either.
    /// Equal to `anonymous` when the criteria are monotonic.
    pub relaxed: bool,
    /// Information loss, if `anonymous`, unless the metric's level bound already reached the
    /// cutoff set by [`super::Checker::set_loss_cutoff`] (then `None` though `anonymous`).
    pub loss: Option<f64>,
    /// The metric's lower bound for every generalization, if it has one.
    pub class_bound: Option<f64>,
    pub source: Source,
}

/// Work counters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckerStats {
    pub checks: u64,
    pub plain: u64,
    pub rollups: u64,
    pub snapshots: u64,
    /// Items (input tuples or classes) inserted into the groupify table.
    pub items: u64,
    /// Cells (item x column) transformed.
    pub cells: u64,
    pub snapshots_stored: u64,
    /// Hubs grouped (counted in `plain` too: each groups every item).
    pub hubs: u64,
    /// Peak bytes held by the history.
    pub history_peak_bytes: usize,
    /// Checks stopped at the class limit (counted in `plain`, `rollups` or `snapshots` too).
    pub stopped: u64,
    /// Checks from scratch split over the threads ([`super::Checker::set_pool`], counted in
    /// `plain`).
    pub split: u64,
    /// Groupings and tallies split over the team ([`super::Checker::set_team`]).
    pub team: u64,
    /// Of those, groupings whose parts were the items' parts, with no lists (see `layout`).
    pub covered: u64,
}

impl CheckerStats {
    /// Adds another checker's counters (of another thread of the same search); peaks add up
    /// too, since the threads' histories coexist.
    pub fn add(&mut self, o: &CheckerStats) {
        self.checks += o.checks;
        self.plain += o.plain;
        self.rollups += o.rollups;
        self.snapshots += o.snapshots;
        self.items += o.items;
        self.cells += o.cells;
        self.snapshots_stored += o.snapshots_stored;
        self.hubs += o.hubs;
        self.history_peak_bytes += o.history_peak_bytes;
        self.stopped += o.stopped;
        self.split += o.split;
        self.team += o.team;
        self.covered += o.covered;
    }
}

/// One class of the current grouping, decoded (for tests and diagnostics).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Class {
    /// Hierarchy ids at the transformation's levels, decoded from the class key.
    pub ids: Vec<u32>,
    /// Released records (all records, without a research subset).
    pub count: u64,
    /// Per distribution slot: (sensitive code, count), codes ascending.
    pub distributions: Vec<Vec<(u32, u32)>>,
    /// Hierarchy ids of the representative row (must equal `ids`).
    pub rep_ids: Vec<u32>,
}
