//! Anonymization methods. Each one receives the job (never flags) and a backend, and returns an
//! [`Outcome`] for the report; the output writers take the labels from the backend.
//!
//! Store-backed methods (Datafly, Mondrian, Incognito; Anatomy on records) work on the SQLite
//! [`Store`](crate::store::Store): they read `QidTuple` (distinct quasi-identifier tuples with
//! counts) and write `EquivalenceTable` and `QidTuple.EquivalenceID`; the pipeline checks the
//! result ([`Store::check_classes`](crate::store::Store::check_classes)). In-memory methods
//! (Flash, OLA) work on an [`EncodedTable`](crate::data::EncodedTable): they see transformations
//! and checker results only; `search` is their shared frame and [`solve`] their entry point.

pub mod anatomy;
pub mod bfs;
pub mod datafly;
pub mod exhaustive;
pub mod flash;
pub mod incognito;
pub mod lookahead;
pub mod mondrian;
pub mod observe;
pub mod ola;
pub mod search;
pub mod tuples;

use crate::check::CheckerConfig;
use crate::data::EncodedTable;
use crate::job::{Job, Method, MetricKind, SuppressionLimit};
use crate::lattice::PropertyStore;
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;
use crate::Result;
pub use observe::{SearchObserver, SearchStatus};
pub use search::{
    CheckedSample, CheckedTransformation, Limit, Optimum, Purpose, PurposeCount, Search,
    SearchOutcome, CHECKED_CAP,
};

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
    /// Lattice searches: the transformations checked, for the HTML report's chart.
    pub checked: Option<CheckedSample>,
}

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
    pub fn for_method(method: crate::job::Method, size: u64) -> Option<LatticeAlgorithm> {
        use crate::job::Method;
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
    let plan = Plan {
        algorithm,
        store,
        config,
        limit: Limit::default(),
        threads: 1,
    };
    Ok(execute(table, criteria, metric, budget, plan, false)?.0)
}

/// How to run one lattice search.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub algorithm: LatticeAlgorithm,
    pub store: StoreKind,
    pub config: CheckerConfig,
    pub limit: Limit,
    /// Threads of the search (see [`Search::set_threads`]); 1 runs on the calling thread.
    pub threads: usize,
}

/// Runs a search as `plan` says; with `rows`, also which rows the best transformation
/// suppresses.
pub fn execute(
    table: &EncodedTable,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    metric: Box<dyn Metric>,
    budget: u64,
    plan: Plan,
    rows: bool,
) -> Result<(SearchOutcome, Option<Vec<bool>>)> {
    execute_observed(table, criteria, metric, budget, plan, rows, None)
}

/// [`execute`], telling `observer` how the search progresses ([`observe`]).
pub fn execute_observed<'a>(
    table: &'a EncodedTable,
    criteria: Vec<Box<dyn PrivacyCriterion>>,
    metric: Box<dyn Metric>,
    budget: u64,
    plan: Plan,
    rows: bool,
    observer: Option<Box<dyn SearchObserver + 'a>>,
) -> Result<(SearchOutcome, Option<Vec<bool>>)> {
    fn go<'a, S: PropertyStore>(
        mut search: Search<'a, S>,
        plan: Plan,
        rows: bool,
        observer: Option<Box<dyn SearchObserver + 'a>>,
    ) -> (SearchOutcome, Option<Vec<bool>>) {
        search.set_limit(plan.limit);
        search.set_threads(plan.threads);
        if let Some(o) = observer {
            search.set_observer(o);
        }
        // On the search's pool, the search thread is one of its threads: a split check's ranges
        // that no other thread has taken yet are its own to run (see `Search::set_threads`).
        match search.pool() {
            Some(pool) => pool.install(|| run_search(&mut search, plan.algorithm)),
            None => run_search(&mut search, plan.algorithm),
        }
        let out = search.outcome();
        search.finish_observing(&out);
        let suppressed = match (&out.optimum, rows) {
            (Some(opt), true) => Some(search.outlier_rows(&opt.levels)),
            _ => None,
        };
        (out, suppressed)
    }
    let config = plan.config;
    Ok(match plan.store {
        StoreKind::Dense => go::<crate::lattice::Dense>(
            Search::new(table, criteria, metric, budget, config)?,
            plan,
            rows,
            observer,
        ),
        StoreKind::Antichain => go::<crate::lattice::Antichain>(
            Search::new(table, criteria, metric, budget, config)?,
            plan,
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

/// Runs a lattice method (Flash, OLA, BFS, Optimal) for the pipeline: the report's outcome and
/// the chosen levels with the rows they suppress; `observer` follows the search. Fails if no
/// transformation satisfies the privacy models within the suppression budget.
pub fn run_lattice<'a>(
    job: &Job,
    table: &'a EncodedTable,
    observer: Option<Box<dyn SearchObserver + 'a>>,
) -> Result<(Outcome, FullDomainResult)> {
    let criteria = crate::privacy::build(&job.privacy, job.k, table)?;
    let names: Vec<String> = criteria.iter().map(|c| c.name()).collect();
    let metric = crate::metrics::build(job.metric, table);
    // A share of the released records: with a research subset, of the subset (as in ARX).
    let budget = lattice_budget(job, table.records());
    // The config refused a lattice too large for the method before the input was read (exit
    // 2) where it alone decides every height. A builder whose levels follow the data (`mask`
    // without `length`: one level per character of the longest value) is known only now: a
    // refusal here is exit 1, before any search and with nothing written.
    let heights: Vec<(&str, usize)> = table
        .hierarchies
        .iter()
        .map(|h| (h.name.as_str(), h.levels()))
        .collect();
    let algorithm = lattice_limits(job.method, &heights)?;
    let levels: Vec<usize> = heights.iter().map(|&(_, l)| l).collect();
    let plan = Plan {
        algorithm,
        store: algorithm.store_for(&levels),
        config: CheckerConfig::default(),
        limit: Limit {
            // A limit beyond what the clock can represent (from about 9.2e18 s) is never reached.
            deadline: job
                .time_limit
                .and_then(|t| std::time::Instant::now().checked_add(t)),
            max_checks: None,
        },
        threads: job.threads(),
    };
    let (out, suppressed) =
        execute_observed(table, criteria, metric, budget, plan, true, observer)?;
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
    let mut extra = serde_json::Map::new();
    if table.subset().is_some() {
        extra.insert("research_subset_records".into(), table.records().into());
    }
    extra.insert("algorithm".into(), algorithm.name().into());
    extra.insert("lattice_size".into(), out.lattice_size.into());
    extra.insert("proven_optimal".into(), out.proven_optimal.into());
    extra.insert("threads".into(), plan.threads.into());
    extra.insert("lower_bound".into(), out.lower_bound.into());
    if let Some(limit) = job.time_limit {
        extra.insert("time_limit_seconds".into(), limit.as_secs_f64().into());
    }
    extra.insert(
        "search_progress".into(),
        serde_json::json!({
            "first_valid_seconds": out.first_valid_seconds,
            "best_seconds": out.best_seconds,
        }),
    );
    extra.insert(
        "property_store".into(),
        serde_json::json!({
            "kind": out.store,
            "anonymous": out.store_sizes.anonymous,
            "not_anonymous": out.store_sizes.not_anonymous,
            "pruned": out.store_sizes.pruned,
        }),
    );
    let purposes: serde_json::Map<String, serde_json::Value> = Purpose::ALL
        .iter()
        .zip(&out.purposes)
        .filter(|(_, c)| c.checks > 0)
        .map(|(p, c)| {
            let v = serde_json::json!({ "checks": c.checks, "valid": c.valid });
            (p.name().to_string(), v)
        })
        .collect();
    extra.insert("checks_by_purpose".into(), purposes.into());
    extra.insert("tag_hits".into(), out.tag_hits.into());
    extra.insert(
        "evaluated_ahead".into(),
        serde_json::json!({ "checks": out.ahead.evaluated, "used": out.ahead.used }),
    );
    extra.insert(
        "checker".into(),
        serde_json::json!({
            "plain": out.stats.plain,
            "rollups": out.stats.rollups,
            "snapshots": out.stats.snapshots,
            "items_grouped": out.stats.items,
            "snapshots_stored": out.stats.snapshots_stored,
            "hubs": out.stats.hubs,
            "stopped_early": out.stats.stopped,
            "split": out.stats.split,
            "team": out.stats.team,
            "team_covered": out.stats.covered,
            "history_peak_bytes": out.stats.history_peak_bytes,
        }),
    );
    let outcome = Outcome {
        transformation: Some(opt.levels.clone()),
        metric: Some(job.metric),
        information_loss: Some(opt.loss),
        suppression_limit: Some(budget),
        suppressed_records: opt.suppressed,
        equivalence_classes: opt.classes,
        transformations_checked: Some(out.checks),
        extra,
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
/// ([`crate::job::Generalization::levels`]), and [`run_lattice`] after the load.
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
        lattice_budget(job, table.records()),
        algorithm,
        config,
    )
}
