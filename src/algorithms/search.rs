//! The shared frame of the lattice searches (Flash, OLA, exhaustive, best-first): a [`Search`]
//! owns the implicit [`Space`], a [`PropertyStore`] of predictive properties and the checker; it
//! caches results, applies predictive tagging when the privacy models are monotonic, prunes by
//! lower bounds, and keeps the best valid transformation seen. The strategies only decide which
//! transformation to look at next, through [`Search::check`], [`Search::decide`] and the
//! property queries; they never see rows.
//!
//! `Search` is generic over the store: [`Dense`] (one byte per transformation, the default) for
//! spaces up to [`super::DENSE_LIMIT`], [`crate::lattice::Antichain`] for any size.
//!
//! Its parts, each in its own file with its own fields:
//! - `state`: what the search knows (results, tags, the best, pruning) and its check;
//! - `limits`: when it must stop ([`Limit`]) and the lower bound a stopped search reports;
//! - `telemetry`: what it tells its observer and the figures of its outcome;
//! - `helpers`: its other threads (the lookahead worker, the team, the final phase's pool);
//! - `final_phase`: global optimality when the classification alone does not give it
//!   ([`Search::optimize_remaining`]).
//!
//! Every strategy decides sequentially; whatever the threads evaluate ahead is recorded only
//! when the sequential search asks for it, so the optimum, the counts and the report are the
//! same for every number of threads.

mod final_phase;
mod helpers;
mod limits;
mod state;
mod telemetry;

use crate::check::{Checker, CheckerConfig, CheckerStats};
use crate::data::EncodedTable;
use crate::hierarchy::Hierarchy;
use crate::lattice::{Dense, NodeId, PropertyStore, Space, StoreSizes};
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;
use crate::{Error, Result};
use helpers::Helpers;
pub use limits::Limit;
use limits::Limits;
use state::State;
use telemetry::Telemetry;

/// The optimal transformation found.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimum {
    /// Levels, one per quasi-identifier.
    pub levels: Vec<usize>,
    pub loss: f64,
    /// Records suppressed (outlier classes).
    pub suppressed: u64,
    /// Equivalence classes, suppressed records excluded.
    pub classes: u64,
}

/// Why a strategy checks a transformation; the report counts checks per purpose (`checks_by_purpose`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A first valid transformation (BFS: binary search on one path).
    Seed,
    /// Improving the best by local moves (BFS's iterated local search).
    LocalSearch,
    /// Classifying transformations as anonymous or not (Flash's and OLA's walks, BFS's paths).
    Classification,
    /// Candidates checked for their loss (BFS's queue, the final phase of Flash and OLA).
    Candidates,
}

impl Purpose {
    pub const ALL: [Purpose; 4] = [
        Purpose::Seed,
        Purpose::LocalSearch,
        Purpose::Classification,
        Purpose::Candidates,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Purpose::Seed => "seed",
            Purpose::LocalSearch => "local_search",
            Purpose::Classification => "classification",
            Purpose::Candidates => "candidates",
        }
    }
}

/// Checks of one [`Purpose`] and how many of them were valid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PurposeCount {
    pub checks: u64,
    pub valid: u64,
}

/// What a search returns.
#[derive(Debug, Clone)]
pub struct SearchOutcome {
    /// `None` if no transformation satisfies the privacy models within the budget.
    pub optimum: Option<Optimum>,
    /// Transformations checked.
    pub checks: u64,
    pub lattice_size: u64,
    pub stats: CheckerStats,
    /// The property store that was used ("dense", "antichain") and what it holds at the end.
    pub store: &'static str,
    pub store_sizes: StoreSizes,
    /// The search ran to its end: the optimum is proven (or nothing is valid).
    pub proven_optimal: bool,
    /// No transformation loses less than this: the optimum's loss when proven, else the smallest
    /// lower bound of what was left unexplored (or the best loss, if smaller). `None` when
    /// nothing valid is known and nothing bounds the rest.
    pub lower_bound: Option<f64>,
    /// Seconds from the search's start to its first valid transformation, and to the best.
    pub first_valid_seconds: Option<f64>,
    pub best_seconds: Option<f64>,
    /// The transformations the search checked (all, or a sample of [`CHECKED_CAP`]).
    pub checked: CheckedSample,
    /// Checks per [`Purpose`] (in [`Purpose::ALL`]'s order).
    pub purposes: [PurposeCount; 4],
    /// Transformations a strategy found resolved by a tag (known invalid, or pruned) when it
    /// came to them, so that it did not check them.
    pub tag_hits: u64,
    /// Checks evaluated ahead on other threads (the final phase's batches, the lookahead worker),
    /// and how many of them the search then used (the others were work lost; the counts
    /// above never include them).
    pub ahead: Ahead,
}

/// Checks evaluated ahead on other threads, and used (see [`SearchOutcome::ahead`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ahead {
    pub evaluated: u64,
    pub used: u64,
}

/// At most this many checked transformations are kept for the report's chart; above, an even
/// sample (every n-th in transformation order, the optimum always included).
pub const CHECKED_CAP: usize = 20_000;

/// One checked transformation, as the report's chart shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedTransformation {
    pub levels: Vec<usize>,
    /// Satisfies the privacy models within the suppression budget.
    pub valid: bool,
    /// Information loss (valid ones); for an invalid one, or a valid one whose loss the search
    /// did not need (its bound already reached the best, see [`Checker::set_loss_cutoff`]), the
    /// metric's lower bound of its loss (from its levels and classes), what it at least loses.
    pub loss: f64,
}

/// The checked transformations of a search, all of them or an even sample.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CheckedSample {
    /// Transformations checked.
    pub total: u64,
    /// Every `stride`-th of them in transformation order (1: all), and the optimum.
    pub stride: u64,
    pub items: Vec<CheckedTransformation>,
}

/// The number of transformations of the lattice of hierarchies of `levels` levels each (the
/// product). Fails if it has more than 2^64 transformations (ids are `u64`): 30 or 40
/// quasi-identifiers of a few levels each.
pub fn lattice_size(levels: &[usize]) -> Result<u64> {
    levels
        .iter()
        .try_fold(1u64, |size, &l| size.checked_mul(l as u64))
        .ok_or_else(|| {
            Error::Invalid(format!(
                "the generalization lattice of the {} quasi-identifiers has more than 2^64 \
                 transformations (the product of their hierarchies' levels): no lattice search \
                 can run on it; use fewer quasi-identifiers or hierarchy levels",
                levels.len()
            ))
        })
}

/// The space of full-domain transformations over `hierarchies` (their heights and the
/// distinct values of each level, for Flash's order). Fails if it has more than 2^64
/// transformations ([`lattice_size`]).
pub fn space_of(hierarchies: &[Hierarchy]) -> Result<Space> {
    let levels: Vec<usize> = hierarchies.iter().map(|h| h.levels()).collect();
    lattice_size(&levels)?;
    let max: Vec<usize> = hierarchies.iter().map(|h| h.max_level()).collect();
    let distinct: Vec<Vec<usize>> = hierarchies
        .iter()
        .map(|h| (0..h.levels()).map(|l| h.width(l)).collect())
        .collect();
    Ok(Space::new(&max, &distinct).expect("its size fits in 64 bits"))
}

/// Space + property store + checker + results (see the module docs for its parts).
pub struct Search<'a, S: PropertyStore = Dense> {
    state: State<S>,
    checker: Checker<'a>,
    limits: Limits,
    telemetry: Telemetry<'a>,
    helpers: Helpers<'a>,
    /// Scratch levels of the transformation at hand.
    levels: Vec<usize>,
    /// Up to this many transformations the final phase lists its candidates; above, it walks
    /// them best-first ([`super::DENSE_LIMIT`]; tests lower it).
    list_limit: u64,
}

impl<'a, S: PropertyStore> Search<'a, S> {
    pub fn new(
        table: &'a EncodedTable,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
        metric: Box<dyn Metric>,
        budget: u64,
        config: CheckerConfig,
    ) -> Result<Search<'a, S>> {
        let space = space_of(&table.hierarchies)?;
        let store = S::for_space(&space).ok_or_else(|| {
            Error::Invalid(format!(
                "the generalization lattice ({} transformations) is too large for this search's \
                 property store",
                space.size()
            ))
        })?;
        if criteria.is_empty() {
            return Err(Error::Invalid("no privacy model to satisfy".into()));
        }
        let metric_monotonic = metric.is_monotonic(budget > 0);
        let slack = metric.bound_slack();
        let checker = Checker::new(table, criteria, metric, budget, config)?;
        let classification = checker.classification();
        let dims = space.dims();
        let started = std::time::Instant::now();
        Ok(Search {
            state: State::new(space, store, classification, metric_monotonic, slack),
            checker,
            limits: Limits::new(started),
            telemetry: Telemetry::new(started),
            helpers: Helpers::new(),
            levels: vec![0; dims],
            list_limit: super::DENSE_LIMIT,
        })
    }

    /// The outcome so far (final after the classification and [`Self::optimize_remaining`]).
    pub fn outcome(&self) -> SearchOutcome {
        let optimum = self.best().map(|(id, loss)| {
            let r = self
                .result(id)
                .expect("the best transformation was checked");
            Optimum {
                levels: self.space().levels(id),
                loss,
                suppressed: r.suppressed,
                classes: r.classes,
            }
        });
        SearchOutcome {
            optimum,
            proven_optimal: !self.stopped(),
            lower_bound: self.lower_bound(),
            first_valid_seconds: self.telemetry.first_valid(),
            best_seconds: self.telemetry.best_found(),
            checks: self.checks(),
            lattice_size: self.space().size(),
            stats: self.stats(),
            store: self.store().name(),
            store_sizes: self.store().sizes(),
            checked: self.checked_sample(),
            purposes: self.telemetry.purposes(),
            tag_hits: self.telemetry.tag_hits(),
            ahead: self.helpers.ahead(),
        }
    }

    /// The checked transformations, sampled down to [`CHECKED_CAP`].
    fn checked_sample(&self) -> CheckedSample {
        let mut ids: Vec<NodeId> = self.checked_ids().collect();
        ids.sort_unstable();
        let total = ids.len() as u64;
        let stride = total.div_ceil(CHECKED_CAP as u64).max(1);
        let best = self.best().map(|(id, _)| id);
        let metric = self.checker.metric();
        let items = ids
            .iter()
            .enumerate()
            .filter(|&(i, &id)| (i as u64).is_multiple_of(stride) || Some(id) == best)
            .map(|(_, &id)| {
                let r = self.result(id).expect("checked");
                let levels = self.space().levels(id);
                let loss = match r.loss {
                    Some(loss) if r.anonymous => loss,
                    _ => metric
                        .level_bound(&levels)
                        .max(r.class_bound.unwrap_or(0.0)),
                };
                CheckedTransformation {
                    valid: r.anonymous,
                    loss,
                    levels,
                }
            })
            .collect();
        CheckedSample {
            total,
            stride,
            items,
        }
    }
}

/// A transformation (by any key) queued by its lower bound: a [`std::collections::BinaryHeap`]
/// of them pops the smallest bound first (ties: the smallest key), as the final phase's
/// best-first walk and the bound of what a stopped search left unexplored both need.
#[derive(PartialEq)]
struct Queued<K>(f64, K);

impl<K: Ord> Eq for Queued<K> {}

impl<K: Ord> PartialOrd for Queued<K> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl<K: Ord> Ord for Queued<K> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed: the binary heap pops the smallest bound first.
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queued_pops_the_smallest_bound_then_the_smallest_key() {
        let mut heap = std::collections::BinaryHeap::new();
        for (bound, key) in [(0.5, 2u32), (0.1, 7), (0.5, 1), (0.9, 0)] {
            heap.push(Queued(bound, key));
        }
        let order: Vec<(f64, u32)> =
            std::iter::from_fn(|| heap.pop().map(|q| (q.0, q.1))).collect();
        assert_eq!(order, [(0.1, 7), (0.5, 1), (0.5, 2), (0.9, 0)]);
    }
    use crate::data::{Generalization, QuasiIdentifier};
    use crate::lattice::Antichain;
    use crate::metrics::MetricKind;
    use crate::privacy::SuppressionLimit;

    /// ADULT with its nine columns as quasi-identifiers, each with its hierarchy file (as
    /// `configs/adult.xml` has them).
    fn adult() -> EncodedTable {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adult");
        let names = [
            "sex",
            "age",
            "race",
            "marital-status",
            "education",
            "native-country",
            "workclass",
            "occupation",
            "salary-class",
        ];
        let qids: Vec<QuasiIdentifier> = names
            .iter()
            .enumerate()
            .map(|(index, name)| {
                let path = dir.join(format!("adult_hierarchy_{name}.csv"));
                let text = std::fs::read_to_string(&path).unwrap();
                let rows: Vec<Vec<String>> = text
                    .lines()
                    .map(|l| l.split(';').map(str::to_string).collect())
                    .collect();
                let hierarchy = crate::hierarchy::Hierarchy::from_label_rows(*name, &rows);
                QuasiIdentifier {
                    index,
                    name: name.to_string(),
                    generalization: Generalization::File { path, hierarchy },
                }
            })
            .collect();
        let source = crate::data::load::Source {
            path: &dir.join("adult.csv"),
            format: crate::io::Format::new(";", true).unwrap(),
            ids: &[],
            qids: &qids,
            sensitive: &[],
        };
        crate::data::load::load_table(&source, None, &mut ())
            .unwrap()
            .0
    }

    /// The final phase's best-first walk (lattices above [`super::super::DENSE_LIMIT`]) finds
    /// the loss the listing finds, on ADULT with suppression, for a metric with level bounds
    /// only and for ones with class bounds, on the antichain store it runs on.
    #[test]
    fn best_first_final_phase_finds_the_listed_optimum() {
        let table = adult();
        let metrics = [
            MetricKind::Loss,
            MetricKind::Entropy,
            MetricKind::Dm,
            MetricKind::Aecs,
        ];
        for metric in metrics {
            for (k, s) in [(5, 0.02), (50, 0.1)] {
                let budget = SuppressionLimit::Fraction(s).budget(table.rows() as u64);
                let run = |list_limit: u64| {
                    let criteria: Vec<Box<dyn PrivacyCriterion>> =
                        vec![Box::new(crate::privacy::KAnonymity { k })];
                    let metric = crate::metrics::build(metric, &table);
                    let mut search: Search<'_, Antichain> =
                        Search::new(&table, criteria, metric, budget, CheckerConfig::default())
                            .unwrap();
                    search.list_limit = list_limit;
                    super::super::flash::classify(&mut search);
                    search.optimize_remaining();
                    search.outcome()
                };
                let (listed, walked) = (run(u64::MAX), run(0));
                let (a, b) = (listed.optimum.unwrap(), walked.optimum.unwrap());
                assert!(
                    (a.loss - b.loss).abs() <= 1e-9 * a.loss.abs().max(1.0),
                    "{metric:?} k={k} s={s}: listed {a:?}, walked {b:?}"
                );
                assert!(walked.proven_optimal && listed.proven_optimal);
            }
        }
    }
}
