//! The checker: transforms, groups and evaluates one transformation at a time.
//!
//! Given a levels vector, [`Checker::check`] builds the equivalence classes, asks the privacy
//! criteria which classes are outliers, applies the suppression budget and asks the metric for
//! the information loss. It never sees the lattice; the search passes a `finished` predicate so
//! the history can drop snapshots nobody will use. How the classes are built never changes the
//! result: every transition, split and thread count gives the classes of one check from
//! scratch (on a team, in another order), and every sum over classes is an integer.
//!
//! Where things are (as ARX splits its `TransformationChecker`, state machine,
//! `HashGroupify` and `History`):
//! - [`Checker`] (`checker`): the public face, forwarding to the engine of the table's key
//!   width; `engine`: one thread's state ([`Checker::fork`] makes another over the same
//!   shared part, `shared`) and the check's steps in order;
//! - `transition`: the state machine and the choice of transition (plain, roll-up, snapshot,
//!   and hubs); `plain`, `rollup`, `snapshot`: the transitions; `steps`: how keys move between
//!   levels; `encode`: the packed keys; `groupify`: the hash table of classes; `history`: the
//!   snapshots;
//! - evaluation: `criteria` (the privacy criteria on one class), `tally` (the per-class pass),
//!   `evaluate` (budget, loss and class bound), `sizes` (the models of the class sizes);
//! - threads: `team` (the threads one check is split over), `partitioned` (a grouping or tally
//!   split over them by hash), `layout` (the items laid out in parts so that most groupings
//!   need no partitioning), `plain` (a huge check from scratch split over a pool's threads).
//!
//! Which of the checker's optimizations run is set by [`CheckerConfig`] (each can be switched
//! off, for the ablation benchmark).

mod checker;
mod config;
mod criteria;
mod encode;
mod engine;
mod evaluate;
mod groupify;
mod history;
mod layout;
mod partitioned;
mod plain;
mod result;
mod rollup;
mod shared;
mod sizes;
mod snapshot;
mod steps;
mod tally;
pub mod team;
mod transition;

pub use checker::{Checker, Classification};
pub use config::{
    CheckerConfig, HISTORY_MAX_BYTES, LAYOUT_BALANCE, SPLIT_CHECK_ITEMS, STOP_EARLY_ITEMS,
    TEAM_AFTER, TEAM_INPUT_ITEMS, TEAM_ITEMS,
};
pub use result::{CheckResult, CheckerStats, Class, Source};
pub use snapshot::SharedClasses;
pub use team::Team;
