//! Anonymization methods. Each one receives a small parameter struct that the run builds from
//! its plan (`datafly::Params`, [`LatticeParams`], ...; never the plan itself, never flags) and
//! a backend, tells an observer how it progresses ([`observe`]), and returns an [`Outcome`]
//! with its own findings typed ([`Details`]); the output writers take the labels from the
//! backend.
//!
//! Store-backed methods (Datafly, Mondrian, Incognito; Anatomy on records) work on the SQLite
//! [`Store`](crate::store::Store): they read `QidTuple` (distinct quasi-identifier tuples with
//! counts) and write `EquivalenceTable` and `QidTuple.EquivalenceID`; the pipeline checks the
//! result ([`Store::check_classes`](crate::store::Store::check_classes)). In-memory methods
//! (Flash, OLA) work on an [`EncodedTable`](crate::data::EncodedTable): they see transformations
//! and checker results only; `search` is their shared frame and [`solve`] their entry point.

pub mod anatomy;
pub mod bfs;
pub mod cells;
pub mod datafly;
pub mod exhaustive;
pub mod flash;
pub mod incognito;
pub mod local_recoding;
pub mod lookahead;
pub mod mdav;
mod method;
pub mod mondrian;
pub mod observe;
pub mod ola;
mod outcome;
pub mod safepub;
pub mod search;
pub mod tuples;

use std::time::Duration;

use crate::check::CheckerConfig;
use crate::data::EncodedTable;
use crate::lattice::PropertyStore;
use crate::metrics::{Metric, MetricKind};
use crate::privacy::{PrivacyCriterion, PrivacyModel, SuppressionLimit};
use crate::Result;
pub use method::Method;
pub use observe::{SearchObserver, SearchStatus, StepObserver};
pub use outcome::{Details, DpDetails, LatticeDetails, Outcome};
pub use search::{
    Ahead, CheckedSample, CheckedTransformation, Limit, Optimum, Purpose, PurposeCount, Search,
    SearchOutcome, CHECKED_CAP,
};

/// What an in-memory full-domain method chose: one level per quasi-identifier and the rows it
/// suppresses (`suppressed[row]`). The pipeline writes the output from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FullDomainResult {
    pub levels: Vec<usize>,
    pub suppressed: Vec<bool>,
}

/// A lattice search strategy. Flash is the default: it checks the fewest transformations (see
/// `BENCHMARKS.md` for sizes it handles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LatticeAlgorithm {
    #[default]
    Flash,
    Ola,
    Exhaustive,
    /// Best-first branch and bound ([`bfs`]).
    Bfs,
}

/// Above this many transformations `-method Optimal` runs BFS with antichains instead of Flash:
/// 2^17 (131,072), about where BFS overtakes Flash (ARX refuses its optimal search above 10^5).
/// Measured on the census benchmark (`BENCHMARKS.md`, one thread): at 34,560 transformations
/// both take the same time with Loss (Flash 1.04 s, BFS 0.96 s; with DM* Flash is 20 % faster);
/// at 311,040 BFS is 2.4x faster with Loss, as fast with DM*, 5.8x faster with entropy
/// l-diversity and 1.4x with t-closeness; at 2.8 million 4.5x with Loss.
pub const OPTIMAL_FLASH_LIMIT: u64 = 1 << 17;

/// Up to this many transformations (2^22, 4,194,304) Flash and OLA keep one property byte per
/// transformation (4 MiB) and their final phase lists its candidates (at most 40 bytes each);
/// above, they keep antichains and the final phase walks best-first
/// ([`LatticeAlgorithm::store_for`], [`Search::optimize_remaining`]). The census benchmark's
/// lattices for Flash (up to 2.8 million transformations) stay below it.
pub const DENSE_LIMIT: u64 = 1 << 22;

/// Flash and OLA take the nodes of a lattice level (Flash: those still unresolved; OLA: a
/// sub-lattice's middle level) in chunks of at most this many, each sorted in Flash's order
/// (a level of up to this many is sorted whole, as it always was): the middle level of 30
/// two-level quasi-identifiers, 155 million transformations, took 7 GB to list and sort.
/// 2^18 ids and their sort keys are about 12 MB, sorted in a few tens of milliseconds.
pub const LEVEL_CHUNK: usize = 1 << 18;

impl LatticeAlgorithm {
    /// The strategy of a lattice method for a space of `size` transformations (`None` for the
    /// other methods).
    pub fn for_method(method: Method, size: u64) -> Option<LatticeAlgorithm> {
        Some(match method {
            Method::Flash => LatticeAlgorithm::Flash,
            Method::Ola => LatticeAlgorithm::Ola,
            Method::Bfs => LatticeAlgorithm::Bfs,
            Method::Optimal if size <= OPTIMAL_FLASH_LIMIT => LatticeAlgorithm::Flash,
            Method::Optimal => LatticeAlgorithm::Bfs,
            _ => return None,
        })
    }

    /// The property store the strategy runs on, for hierarchies of these numbers of `levels`:
    /// BFS on antichains (it never enumerates the space); the others on the dense store up to
    /// [`DENSE_LIMIT`] transformations and on antichains above, so that what they keep grows
    /// with what they learnt, not with the lattice (the dense store of 2^30 transformations
    /// took a gigabyte, and tagging one down-set walked 2^25 of them at once). A lattice the
    /// antichains cannot hold (a hierarchy of more than 256 levels, more than 64
    /// quasi-identifiers) keeps the dense store.
    pub fn store_for(self, levels: &[usize]) -> StoreKind {
        if self.store() == StoreKind::Antichain {
            return StoreKind::Antichain;
        }
        let size = levels
            .iter()
            .try_fold(1u64, |size, &l| size.checked_mul(l as u64));
        let max: Vec<usize> = levels.iter().map(|l| l.saturating_sub(1)).collect();
        match size {
            Some(size) if size <= DENSE_LIMIT => StoreKind::Dense,
            _ if crate::lattice::Antichain::fits(&max) => StoreKind::Antichain,
            _ => StoreKind::Dense,
        }
    }

    /// The property store of the strategy on a lattice of at most [`DENSE_LIMIT`]
    /// transformations: antichains for BFS, the dense store for the others.
    pub fn store(self) -> StoreKind {
        match self {
            LatticeAlgorithm::Bfs => StoreKind::Antichain,
            _ => StoreKind::Dense,
        }
    }

    /// The name in reports.
    pub fn name(self) -> &'static str {
        match self {
            LatticeAlgorithm::Flash => "Flash",
            LatticeAlgorithm::Ola => "OLA",
            LatticeAlgorithm::Exhaustive => "exhaustive",
            LatticeAlgorithm::Bfs => "BFS",
        }
    }
}

/// Where a search keeps its predictive properties (see [`crate::lattice`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum StoreKind {
    /// One byte per transformation: spaces up to [`crate::lattice::Dense::MAX_SIZE`].
    #[default]
    Dense,
    /// Antichains in prefix trees: any size.
    Antichain,
}

/// Finds the transformation of minimal information loss that satisfies `criteria` with at most
/// `budget` suppressed records (dense property store).
pub fn solve(
    table: &EncodedTable,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    metric: Box<dyn Metric>,
    budget: u64,
    algorithm: LatticeAlgorithm,
    config: CheckerConfig,
) -> Result<SearchOutcome> {
    solve_in(
        table,
        criteria,
        metric,
        budget,
        algorithm,
        config,
        StoreKind::Dense,
    )
}

/// [`solve`] with a choice of property store.
pub fn solve_in(
    table: &EncodedTable,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    metric: Box<dyn Metric>,
    budget: u64,
    algorithm: LatticeAlgorithm,
    config: CheckerConfig,
    store: StoreKind,
) -> Result<SearchOutcome> {
    let setup = SearchSetup {
        algorithm,
        store,
        config,
        limit: Limit::default(),
        threads: 1,
    };
    Ok(execute(table, criteria, metric, budget, setup, false)?.0)
}

/// How one lattice search is set up: the strategy, its property store, the checker, the limits
/// and the threads.
#[derive(Debug, Clone)]
pub struct SearchSetup {
    pub algorithm: LatticeAlgorithm,
    pub store: StoreKind,
    pub config: CheckerConfig,
    pub limit: Limit,
    /// Threads of the search (see [`Search::set_threads`]); 1 runs on the calling thread.
    pub threads: usize,
}

/// Runs a search as `setup` says; with `rows`, also which rows the best transformation
/// suppresses.
pub fn execute(
    table: &EncodedTable,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    metric: Box<dyn Metric>,
    budget: u64,
    setup: SearchSetup,
    rows: bool,
) -> Result<(SearchOutcome, Option<Vec<bool>>)> {
    execute_observed(table, criteria, metric, budget, setup, rows, None)
}

/// [`execute`], telling `observer` how the search progresses ([`observe`]).
pub fn execute_observed<'a>(
    table: &'a EncodedTable,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    metric: Box<dyn Metric>,
    budget: u64,
    setup: SearchSetup,
    rows: bool,
    observer: Option<Box<dyn SearchObserver + 'a>>,
) -> Result<(SearchOutcome, Option<Vec<bool>>)> {
    fn go<'a, S: PropertyStore>(
        mut search: Search<'a, S>,
        setup: SearchSetup,
        rows: bool,
        observer: Option<Box<dyn SearchObserver + 'a>>,
    ) -> (SearchOutcome, Option<Vec<bool>>) {
        search.set_limit(setup.limit);
        search.set_threads(setup.threads);
        if let Some(o) = observer {
            search.set_observer(o);
        }
        // Where checks split over the pool from the first one (huge inputs), the search runs
        // on it, one of its threads: a split check's ranges that no other thread has taken yet
        // are its own to run. Elsewhere it runs on the calling thread, and the pool's threads
        // start only when the search needs them (see `Search::set_threads`).
        match search.pool() {
            Some(pool) => pool.install(|| run_search(&mut search, setup.algorithm)),
            None => run_search(&mut search, setup.algorithm),
        }
        let out = search.outcome();
        search.finish_observing(&out);
        let suppressed = match (&out.optimum, rows) {
            (Some(opt), true) => Some(search.outlier_rows(&opt.levels)),
            _ => None,
        };
        (out, suppressed)
    }
    let config = setup.config;
    Ok(match setup.store {
        StoreKind::Dense => go::<crate::lattice::Dense>(
            Search::new(table, criteria, metric, budget, config)?,
            setup,
            rows,
            observer,
        ),
        StoreKind::Antichain => go::<crate::lattice::Antichain>(
            Search::new(table, criteria, metric, budget, config)?,
            setup,
            rows,
            observer,
        ),
    })
}

fn run_search<S: PropertyStore>(search: &mut Search<'_, S>, algorithm: LatticeAlgorithm) {
    match algorithm {
        LatticeAlgorithm::Flash => flash::classify(search),
        LatticeAlgorithm::Ola => ola::classify(search),
        LatticeAlgorithm::Exhaustive => exhaustive::classify(search),
        // Exact by itself: it never needs the final phase's enumeration.
        LatticeAlgorithm::Bfs => bfs::search(search),
    }
    if algorithm != LatticeAlgorithm::Bfs {
        search.optimize_remaining();
    }
    search.fall_back_to_top();
}

/// What a lattice search is asked for: the run builds it from its plan.
#[derive(Debug, Clone, Copy)]
pub struct LatticeParams<'a> {
    /// Flash, OLA, BFS or Optimal.
    pub method: Method,
    /// The privacy models; none: k-anonymity with `k`.
    pub privacy: &'a [PrivacyModel],
    pub k: u64,
    pub metric: MetricKind,
    /// `None`: ARX's default, nothing suppressed.
    pub suppression: Option<SuppressionLimit>,
    /// The search stops after this long with the best transformation found so far.
    pub time_limit: Option<Duration>,
    /// Threads of the search (at least 1).
    pub threads: usize,
    /// A flag that stops the search as its time limit does (an interrupted library call).
    pub stop: Option<&'a crate::sync::Stop>,
}

impl LatticeParams<'_> {
    /// The limit of a search starting now: the time limit from now, and the stop flag.
    pub fn limit(&self) -> Limit {
        Limit {
            // A limit beyond what the clock can represent (from about 9.2e18 s) is never reached.
            deadline: self
                .time_limit
                .and_then(|t| std::time::Instant::now().checked_add(t)),
            max_checks: None,
            stop: self.stop.cloned(),
        }
    }

    /// The suppression budget for a table of `rows` records: ARX's semantics, default 0.
    pub fn budget(&self, rows: usize) -> u64 {
        self.suppression
            .unwrap_or(SuppressionLimit::Fraction(0.0))
            .budget(rows as u64)
    }
}

/// Runs a lattice method (Flash, OLA, BFS, Optimal) for the pipeline: the report's outcome and
/// the chosen levels with the rows they suppress; `observer` follows the search. Fails if no
/// transformation satisfies the privacy models within the suppression budget.
pub fn run_lattice<'a>(
    params: &LatticeParams<'_>,
    table: &'a EncodedTable,
    observer: Option<Box<dyn SearchObserver + 'a>>,
) -> Result<(Outcome, FullDomainResult)> {
    let criteria = crate::privacy::build(params.privacy, params.k, table)?;
    let names: Vec<String> = criteria.iter().map(|c| c.name()).collect();
    let metric = crate::metrics::build(params.metric, table);
    // A share of the released records: with a research subset, of the subset (as in ARX).
    let budget = params.budget(table.records());
    // The config refused a lattice too large for the method before the input was read (exit
    // 2) where it alone decides every height. A builder whose levels follow the data (`mask`
    // without `length`: one level per character of the longest value) is known only now: a
    // refusal here is exit 1, before any search and with nothing written.
    let heights: Vec<(&str, usize)> = table
        .hierarchies
        .iter()
        .map(|h| (h.name.as_str(), h.levels()))
        .collect();
    let algorithm = lattice_limits(params.method, &heights)?;
    let levels: Vec<usize> = heights.iter().map(|&(_, l)| l).collect();
    let setup = SearchSetup {
        algorithm,
        store: algorithm.store_for(&levels),
        config: CheckerConfig::default(),
        limit: params.limit(),
        threads: params.threads,
    };
    let (out, suppressed) = execute_observed(
        table,
        criteria,
        metric,
        budget,
        setup.clone(),
        true,
        observer,
    )?;
    let Some(opt) = out.optimum else {
        if !out.proven_optimal {
            return Err(crate::Error::Invalid(format!(
                "the time limit was reached before any transformation satisfying {} was found \
                 (checked {} of {} transformations); nothing was written",
                names.join(" and "),
                out.checks,
                out.lattice_size
            )));
        }
        return Err(crate::Error::Invalid(format!(
            "no transformation satisfies {} with at most {budget} of {} records suppressed \
             (checked {} of {} transformations)",
            names.join(" and "),
            table.records(),
            out.checks,
            out.lattice_size
        )));
    };
    let suppressed = suppressed.expect("rows of the optimum");
    let n_suppressed = suppressed.iter().filter(|&&s| s).count() as u64;
    if n_suppressed != opt.suppressed {
        return Err(crate::Error::Invalid(format!(
            "internal error: {} rows suppressed, the search counted {}",
            n_suppressed, opt.suppressed
        )));
    }
    let details = LatticeDetails {
        algorithm,
        lattice_size: out.lattice_size,
        proven_optimal: out.proven_optimal,
        lower_bound: out.lower_bound,
        threads: setup.threads,
        time_limit: params.time_limit,
        research_subset_records: table.subset().is_some().then(|| table.records()),
        first_valid_seconds: out.first_valid_seconds,
        best_seconds: out.best_seconds,
        store: out.store,
        store_sizes: out.store_sizes,
        purposes: out.purposes,
        tag_hits: out.tag_hits,
        ahead: out.ahead,
        checker: out.stats,
    };
    let outcome = Outcome {
        transformation: Some(opt.levels.clone()),
        metric: Some(params.metric),
        information_loss: Some(opt.loss),
        suppression_limit: Some(budget),
        suppressed_records: opt.suppressed,
        equivalence_classes: opt.classes,
        transformations_checked: Some(out.checks),
        details: Details::Lattice(Box::new(details)),
        checked: Some(out.checked),
    };
    Ok((
        outcome,
        FullDomainResult {
            levels: opt.levels,
            suppressed,
        },
    ))
}

/// The algorithm a lattice `method` runs on the lattice of hierarchies of these numbers of
/// levels (with their quasi-identifiers' names), or why none can search it, in one line: more
/// than 2^64 transformations (every search: ids are `u64`); more than Flash's and OLA's dense
/// store holds ([`crate::lattice::Dense::MAX_SIZE`]); for BFS, whose antichains keep a level
/// in a byte, a hierarchy of more than 256 levels or more than
/// [`crate::lattice::MAX_DIMS`] quasi-identifiers. The one check of the two places that
/// make it: the config, before the input is read, where it decides every height
/// ([`crate::data::Generalization::levels`]), and [`run_lattice`] after the load.
pub fn lattice_limits(method: Method, heights: &[(&str, usize)]) -> Result<LatticeAlgorithm> {
    use crate::lattice::{Dense, MAX_DIMS, MAX_LEVEL};
    let levels: Vec<usize> = heights.iter().map(|&(_, l)| l).collect();
    let size = search::lattice_size(&levels)?;
    let algorithm =
        LatticeAlgorithm::for_method(method, size).expect("lattice_limits of a lattice method");
    if algorithm != LatticeAlgorithm::Bfs {
        if size > Dense::MAX_SIZE {
            return Err(crate::Error::Invalid(format!(
                "the generalization lattice has {size} transformations, more than {} can search \
                 (at most {}): use -method BFS or Optimal",
                algorithm.name(),
                Dense::MAX_SIZE
            )));
        }
        return Ok(algorithm);
    }
    let why = if let Some((name, levels)) = heights.iter().find(|&&(_, l)| l > MAX_LEVEL + 1) {
        format!(
            "the hierarchy of {name} has {levels} levels, more than BFS can search (at most {})",
            MAX_LEVEL + 1
        )
    } else if heights.len() > MAX_DIMS {
        format!(
            "{} quasi-identifiers are more than BFS can search (at most {MAX_DIMS})",
            heights.len()
        )
    } else {
        return Ok(algorithm);
    };
    let runs = if method == Method::Optimal {
        format!(" (-method Optimal runs BFS above {OPTIMAL_FLASH_LIMIT} transformations)")
    } else {
        String::new()
    };
    Err(crate::Error::Invalid(format!(
        "{why}{runs}: use -method Flash or OLA (up to {} transformations), or fewer levels",
        Dense::MAX_SIZE
    )))
}

/// Runs a lattice search for `params` on an encoded table.
pub fn solve_for(
    params: &LatticeParams<'_>,
    table: &EncodedTable,
    algorithm: LatticeAlgorithm,
    config: CheckerConfig,
) -> Result<SearchOutcome> {
    let criteria = crate::privacy::build(params.privacy, params.k, table)?;
    let metric = crate::metrics::build(params.metric, table);
    solve(
        table,
        criteria,
        metric,
        params.budget(table.records()),
        algorithm,
        config,
    )
}
