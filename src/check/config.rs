//! The checker's switches and thresholds ([`CheckerConfig`]). The thresholds were set by
//! measurement; the figures behind them are in `BENCHMARKS.md` ("Figures behind the engine's
//! design").

use std::time::Duration;

/// The history's bytes by default: 256 MiB, a fraction of what a search's other structures
/// need at the sizes it serves, for a small loss of speed where it binds.
pub const HISTORY_MAX_BYTES: usize = 256 << 20;

/// Items from which checks stop early (see `shared`): below it the groupify tables are small
/// and the classes of an invalid transformation are worth keeping as the next roll-up's source.
pub const STOP_EARLY_ITEMS: usize = 1 << 19;

/// Items from which a check from scratch is split over the threads of the checker's pool
/// ([`super::Checker::set_pool`]). Below it, Flash gains more from a lookahead worker on the
/// other thread (see `algorithms::lookahead`), since most checks are roll-ups and snapshots
/// there; on small inputs (ADULT) splitting alone is slower than one thread.
pub const SPLIT_CHECK_ITEMS: usize = 1 << 19;

/// Items (or source classes, or classes to tally) from which a check is split over the
/// checker's team ([`super::Checker::set_team`], see `partitioned`): below, the hand-overs
/// (three per check) cost more than half the work saves.
pub const TEAM_ITEMS: usize = 2048;

/// Distinct tuples from which a search splits its checks over a team
/// ([`super::Checker::set_team`]) instead of running a lookahead worker, below
/// [`SPLIT_CHECK_ITEMS`]: from there the team wins most rows, with distributions to merge
/// too; on ADULT, with the items laid out in parts (see `layout`), most rows with suppression.
pub const TEAM_INPUT_ITEMS: usize = 1 << 14;

/// How long a search runs on its own thread before a team joins it
/// ([`CheckerConfig::team_after`]): a search that ends sooner starts no thread and lays no
/// items out (on CUP without suppression, the layout alone cost a quarter of the search and the
/// team's hand-overs more than it saved), and a longer one does without the team's help for
/// that long only (figures in `BENCHMARKS.md`, "Short searches").
pub const TEAM_AFTER: Duration = Duration::from_millis(10);

/// Largest part of the items laid out for a team, relative to an equal share
/// ([`CheckerConfig::layout_balance`]): a grouping on the team takes as long as its largest
/// part.
pub const LAYOUT_BALANCE: f64 = 1.1;

/// Switches and controls of the checker's optimizations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckerConfig {
    /// Rewrite only the columns whose level changed.
    pub projection: bool,
    /// Merge the previous check's classes when the target generalizes it.
    pub rollup: bool,
    /// Keep snapshots of earlier classes.
    pub history: bool,
    /// Group identical input tuples once, so checks from scratch cost distinct tuples, not rows.
    pub dedup: bool,
    /// Largest snapshot, in classes relative to rows (paper: 0.2).
    pub snapshot_max_fraction: f64,
    /// A new snapshot must have at most this fraction of the classes of the best snapshot that
    /// could already serve its transformation (ARX: 0.8).
    pub snapshot_min_reduction: f64,
    /// Number of snapshots kept (paper: 200).
    pub history_capacity: usize,
    /// Most bytes the snapshots may hold in all (see `history`).
    pub history_max_bytes: usize,
    /// Group a hub below transformations that have no source but the items (see
    /// `transition`).
    pub hubs: bool,
    /// Stop grouping a transformation once it has more classes than an anonymous one can have
    /// (see `shared`), when there are at least this many items; `usize::MAX`: never.
    pub stop_early_items: usize,
    /// Split a check from scratch over the threads of the checker's pool
    /// ([`super::Checker::set_pool`]) when there are at least this many items; `usize::MAX`:
    /// never.
    pub split_items: usize,
    /// Split a check over the checker's team ([`super::Checker::set_team`]) when it groups or
    /// tallies at least this many items or classes.
    pub team_items: usize,
    /// A search with more than one thread splits its checks over a team, instead of running a
    /// lookahead worker, from this many items (and below `split_items`); `usize::MAX`: never.
    pub team_input_items: usize,
    /// Largest part of the items laid out for a team, relative to an equal share (see
    /// `layout`); `f64::INFINITY` accepts any split, `0.0` none.
    pub layout_balance: f64,
    /// A team joins a search (see `team_input_items`) once it has run this long on its own
    /// thread ([`TEAM_AFTER`]) ...
    pub team_after: Duration,
    /// ... and made this many checks (0 by default; tests set it to make the team join in
    /// the middle of a search, at a point that does not depend on time).
    pub team_after_checks: u64,
}

impl Default for CheckerConfig {
    fn default() -> Self {
        CheckerConfig {
            projection: true,
            rollup: true,
            history: true,
            dedup: true,
            snapshot_max_fraction: 0.2,
            snapshot_min_reduction: 0.8,
            history_capacity: 200,
            history_max_bytes: HISTORY_MAX_BYTES,
            hubs: true,
            stop_early_items: STOP_EARLY_ITEMS,
            split_items: SPLIT_CHECK_ITEMS,
            team_items: TEAM_ITEMS,
            team_input_items: TEAM_INPUT_ITEMS,
            layout_balance: LAYOUT_BALANCE,
            team_after: TEAM_AFTER,
            team_after_checks: 0,
        }
    }
}

impl CheckerConfig {
    /// Every optimization off: each check transforms and groups all rows.
    pub fn plain() -> CheckerConfig {
        CheckerConfig {
            projection: false,
            rollup: false,
            history: false,
            dedup: false,
            hubs: false,
            stop_early_items: usize::MAX,
            split_items: usize::MAX,
            team_input_items: usize::MAX,
            ..CheckerConfig::default()
        }
    }
}
