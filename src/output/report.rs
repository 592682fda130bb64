//! The JSON report of a run (`-report FILE`).
//!
//! One struct for every method: the load fills the row counts, the method fills an
//! [`Outcome`] (transformation, metric, classes, suppression, lattice statistics, and its own
//! findings, [`Details`]), the pipeline adds timings. Fields that do not apply to a method are
//! `null`, never missing, so consumers can rely on the keys. A method's own fields come last,
//! in alphabetical order ([`Report::extra`], named here: [`details`]).

use std::path::Path;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::algorithms::{Details, LatticeDetails, Outcome, Purpose};
use crate::data::load::Encoding;
use crate::data::load::LoadSummary;
use crate::io::Publication;
use crate::job::{Generalization, Job};
use crate::metrics::Utility;
use crate::release::Release;
use crate::risk::analysis::RiskAnalysis;
use crate::risk::Risk;
use crate::store::LoadTimings;
use crate::{Error, Result};

/// Seconds spent per phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Elapsed {
    /// Reading and encoding the input.
    pub load: f64,
    /// From the loaded input to the method's result: a lattice search's transformation and the
    /// rows it suppresses (the checker's set-up, its threads and every check included), or the
    /// classes a store-backed method leaves in the store.
    pub search: f64,
    /// The release's figures (utility, risk) and the outputs.
    pub write: f64,
    pub total: f64,
}

impl Elapsed {
    /// The phases of a run from its marks: seconds since the start when the load ended, when the
    /// search ended, and when the writes ended.
    pub fn of_marks(load_end: f64, search_end: f64, total: f64) -> Elapsed {
        Elapsed {
            load: load_end,
            search: search_end - load_end,
            write: total - search_end,
            total,
        }
    }
}

/// The report document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub anonbox_version: &'static str,
    pub method: &'static str,
    /// The engine that read the records and wrote the release (`embedded`, `datafusion`, or
    /// the Ballista scheduler's `ballista://HOST:PORT`).
    pub engine: String,
    pub input: String,
    /// The input's text encoding (`UTF-8`, `windows-1252`, ...): that of the release too. The
    /// report itself is UTF-8.
    pub input_encoding: &'static str,
    pub output: Option<String>,
    /// The files written for `output`: itself, or the anatomy format's `_QIT` and `_ST` pair.
    pub output_files: Vec<String>,
    /// Data rows read (header and blank lines excluded), skipped ones included.
    pub rows_read: u64,
    /// Rows skipped because a field contains `?`.
    pub rows_skipped: u64,
    /// Blank lines skipped.
    pub blank_lines: u64,
    /// Records anonymized: `rows_read - rows_skipped`.
    pub records: u64,
    /// Quasi-identifier names (header names, or `att<index>`), in `<qid>` order.
    pub quasi_identifiers: Vec<String>,
    /// The k of k-anonymity enforced (`null` when no model asks for k-anonymity).
    pub k: Option<u64>,
    /// Every privacy model the method enforced, e.g. `5-anonymity`.
    pub privacy_models: Vec<String>,
    /// For each model: its attribute, the figure required and the figure the release achieves
    /// ([`crate::output::verdict`]).
    pub privacy_achieved: Vec<crate::output::verdict::Achieved>,
    /// The suppression budget in records.
    pub suppression_limit: Option<u64>,
    /// Levels in `quasi_identifiers` order (full-domain methods).
    pub transformation: Option<Vec<usize>>,
    /// Quasi-identifiers generalized to the top of their hierarchy (every value `*`).
    pub attributes_removed: Vec<String>,
    pub metric: Option<&'static str>,
    pub information_loss: Option<f64>,
    pub suppressed_records: u64,
    /// Classes of the output, suppressed records excluded.
    pub equivalence_classes: u64,
    /// Lattice methods: transformations whose anonymity was evaluated.
    pub transformations_checked: Option<u64>,
    pub elapsed_seconds: Elapsed,
    /// Prosecutor re-identification risk of the released classes (suppressed records left out;
    /// `null` for Anatomy, whose quasi-identifier table is not generalized): [`crate::risk`].
    pub risk: Option<Risk>,
    /// The same figures for the input before anonymization (its classes are the distinct
    /// quasi-identifier tuples).
    pub risk_input: Option<Risk>,
    /// The full risk analysis of the input and the release (journalist, marketer, sample and
    /// population uniques): [`crate::risk::analysis`].
    pub risk_analysis: RiskAnalysis,
    /// The hierarchies the config's builders built (`<intervals/>`, ...), so that a release
    /// can be reproduced and read: `null` when no builder ran.
    pub built_hierarchies: Option<Vec<BuiltHierarchy>>,
    /// Utility of the release: [`crate::metrics::utility`].
    pub utility: Utility,
    /// Method-specific details, by name in alphabetical order ([`details`]; the store methods
    /// add their load's steps, [`Report::add_load_steps`]).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Report {
    /// Assembles the report of a finished run. A full-domain method that optimized no metric
    /// (Datafly, Incognito) reports the `-metric` of its release as its information loss.
    pub fn new(
        job: &Job,
        load: &LoadSummary,
        outcome: &Outcome,
        release: &Release,
        elapsed: Elapsed,
    ) -> Report {
        let (metric, information_loss) = match (outcome.metric, outcome.information_loss) {
            (Some(m), loss @ Some(_)) => (Some(m), loss),
            _ => match release.utility.metric(job.metric) {
                Some(loss) => (Some(job.metric), Some(loss)),
                None => (outcome.metric, outcome.information_loss),
            },
        };
        Report {
            anonbox_version: env!("CARGO_PKG_VERSION"),
            method: job.method.name(),
            engine: job.engine.name().to_string(),
            input: job.input.path.display().to_string(),
            input_encoding: job.input.encoding.name(),
            output: job.output.as_ref().map(|o| o.path.display().to_string()),
            output_files: job
                .output
                .as_ref()
                .map_or_else(Vec::new, |o| match o.format {
                    crate::job::OutputFormat::Anatomy => {
                        let (qit, st) = crate::paths::anatomy_paths(&o.path);
                        vec![qit.display().to_string(), st.display().to_string()]
                    }
                    _ => vec![o.path.display().to_string()],
                }),
            rows_read: load.stats.rows_read,
            rows_skipped: load.stats.rows_skipped,
            blank_lines: load.stats.blank_lines,
            records: load.records(),
            quasi_identifiers: job.qids.iter().map(|q| q.name.clone()).collect(),
            k: job.enforced_k(),
            privacy_models: job.enforced_models(),
            privacy_achieved: crate::output::verdict::achieved(job, release),
            suppression_limit: outcome.suppression_limit,
            transformation: outcome.transformation.clone(),
            attributes_removed: crate::output::verdict::removed(release),
            metric: metric.map(|m| m.name()),
            information_loss,
            suppressed_records: outcome.suppressed_records,
            equivalence_classes: outcome.equivalence_classes,
            transformations_checked: outcome.transformations_checked,
            elapsed_seconds: Elapsed {
                load: micros(elapsed.load),
                search: micros(elapsed.search),
                write: micros(elapsed.write),
                total: micros(elapsed.total),
            },
            risk: release.risk.clone(),
            risk_input: release.risk_input.clone(),
            risk_analysis: RiskAnalysis::of_release(job, release),
            utility: release.utility.clone(),
            built_hierarchies: None,
            extra: {
                let mut extra = details(&outcome.details);
                k_map(job, load, outcome, &mut extra);
                extra
            },
        }
    }

    /// Adds the seconds of a store load's steps (`load_steps`).
    pub fn add_load_steps(&mut self, t: &LoadTimings) {
        self.extra.insert(
            "load_steps".into(),
            json!({
                "insert": t.insert,
                "catalogue": t.catalogue,
                "tuples": t.tuples,
            }),
        );
    }

    /// The report as pretty JSON (keys in declaration order, `extra` last).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report serializes")
    }

    /// Writes the report to `path`, staged in `publication`.
    pub fn write(&self, publication: &Publication, path: &Path) -> Result<()> {
        let mut json = self.to_json();
        json.push('\n');
        publication
            .write(path, json.as_bytes())
            .map_err(|e| match e {
                Error::Io { source, .. } => Error::io(path, source),
                other => other,
            })
    }
}

/// One hierarchy built at load time: what built it and its shape, never its rows. Its rows
/// start with every distinct raw value of the column, held by one record or by many; a report
/// travels beside the release (the HTML report shows no value held by fewer than k records for
/// the same reason). The rows are in the kept database (`-db`, `HierarchyView`), and the same
/// builder as a command (`anonbox hierarchy`) writes them again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BuiltHierarchy {
    pub attribute: String,
    /// The builder's description, e.g. `intervals widths=5,10,20 start=0`.
    pub builder: String,
    /// Distinct values at each level, from the column's own (level 0) up to `*`.
    pub widths: Vec<usize>,
}

impl BuiltHierarchy {
    /// The built hierarchies of a job's quasi-identifiers, from the load's encoding (`None`
    /// when the config has no builder).
    pub fn of(job: &Job, encoding: &Encoding) -> Option<Vec<BuiltHierarchy>> {
        let built: Vec<BuiltHierarchy> = job
            .qids
            .iter()
            .zip(&encoding.qids)
            .filter_map(|(q, e)| match &q.generalization {
                Generalization::Built(b) => Some(BuiltHierarchy {
                    attribute: q.name.clone(),
                    builder: b.describe(),
                    widths: (0..e.hierarchy.levels())
                        .map(|level| e.hierarchy.width(level))
                        .collect(),
                }),
                _ => None,
            })
            .collect();
        (!built.is_empty()).then_some(built)
    }
}

/// A method's own fields of the report, by name.
pub fn details(details: &Details) -> Map<String, Value> {
    let mut m = Map::new();
    match details {
        Details::None => {}
        Details::Datafly {
            backend,
            generalized,
        } => {
            m.insert("generalized".into(), json!(generalized));
            m.insert("backend".into(), json!(backend));
        }
        Details::Mondrian { backend, passes } => {
            m.insert("backend".into(), json!(backend));
            m.insert("passes".into(), json!(passes));
        }
        Details::MondrianHierarchies {
            partitioning,
            labels,
            attributes,
        } => {
            m.insert("backend".into(), json!("memory"));
            m.insert("partitioning".into(), json!(partitioning));
            m.insert("labels".into(), json!(labels));
            let per: Vec<Value> = attributes
                .iter()
                .map(|(name, numeric, ncp)| {
                    json!({
                        "attribute": name,
                        "split": if *numeric { "median" } else { "hierarchy" },
                        "ncp": ncp,
                    })
                })
                .collect();
            m.insert("ncp_by_attribute".into(), json!(per));
        }
        Details::Microaggregation {
            grouping,
            groups,
            sse,
            sst,
            il1s,
            attributes,
        } => {
            m.insert("backend".into(), json!("memory"));
            m.insert("grouping".into(), json!(grouping));
            m.insert("groups".into(), json!(groups));
            m.insert("sse".into(), json!(sse));
            m.insert("sst".into(), json!(sst));
            m.insert("il1s".into(), json!(il1s));
            let per: Vec<Value> = attributes
                .iter()
                .map(|(name, numeric)| {
                    json!({
                        "attribute": name,
                        "released": if *numeric { "group mean" } else { "group mode" },
                    })
                })
                .collect();
            m.insert("released_values".into(), json!(per));
        }
        Details::Incognito {
            backend,
            anonymous_generalizations,
        } => {
            m.insert("backend".into(), json!(backend));
            m.insert(
                "anonymous_generalizations".into(),
                json!(anonymous_generalizations),
            );
        }
        Details::Anatomy {
            backend,
            l,
            seed,
            residue,
        } => {
            m.insert("l".into(), json!(l));
            m.insert("seed".into(), json!(seed));
            m.insert("residue".into(), json!(residue));
            m.insert("backend".into(), json!(backend));
        }
        Details::Lattice(d) => lattice_details(d, &mut m),
        Details::DifferentialPrivacy(d) => {
            m.insert("differential_privacy".into(), dp_details(d));
        }
    }
    m
}

/// `k_map`: for each k-map model, the k-anonymity it was estimated as (ARX's derived k, from k,
/// the significance and the sampling fraction: records / population), so that a custodian sees
/// what was enforced; with a large population it is far below k.
fn k_map(job: &Job, load: &LoadSummary, outcome: &Outcome, m: &mut Map<String, Value>) {
    // Class sizes count the research subset's records where δ-presence names one.
    let records = outcome
        .details
        .lattice()
        .and_then(|d| d.research_subset_records)
        .unwrap_or(load.records() as usize) as u64;
    let rows: Vec<Value> = job
        .privacy
        .iter()
        .filter_map(|model| match model {
            crate::privacy::PrivacyModel::KMap {
                k,
                population,
                significance,
                estimator,
            } => Some(json!({
                "k": k,
                "population": population.name,
                "population_size": population.size,
                "significance": significance,
                "estimator": estimator.name(),
                "sampling_fraction": records as f64 / population.size as f64,
                "derived_k": crate::privacy::kmap::derived_k(
                    *k,
                    *significance,
                    records,
                    population.size,
                    *estimator
                ),
            })),
            _ => None,
        })
        .collect();
    if !rows.is_empty() {
        m.insert("k_map".into(), Value::Array(rows));
    }
}

/// SafePub's guarantee: ε, δ, the derived k and β, the search's budget and the seed.
fn dp_details(d: &crate::algorithms::DpDetails) -> Value {
    use crate::privacy::differential::DpSearch;
    let (generalization, steps, budget) = match d.search {
        DpSearch::Degree(g) => (Some(g.name()), None, 0.0),
        DpSearch::Steps { steps, budget } => (None, Some(steps), budget),
    };
    let search = if steps.is_some() {
        "data-dependent"
    } else {
        "data-independent"
    };
    json!({
        "epsilon": d.epsilon,
        "delta": d.delta,
        "k": d.k,
        "beta": d.beta,
        "epsilon_anonymization": d.epsilon_anonymization,
        "search": search,
        "generalization": generalization,
        "steps": steps,
        "search_budget": budget,
        "seed": d.seed.map_or(json!("random"), |s| json!(s)),
        "sampled_records": d.sampled,
        "unsampled_records": d.unsampled,
        "pivots": d.pivots,
    })
}

/// A lattice search's fields: the proof, the bound and the search's statistics.
fn lattice_details(d: &LatticeDetails, m: &mut Map<String, Value>) {
    if let Some(records) = d.research_subset_records {
        m.insert("research_subset_records".into(), records.into());
    }
    m.insert("algorithm".into(), d.algorithm.name().into());
    m.insert("lattice_size".into(), d.lattice_size.into());
    m.insert("proven_optimal".into(), d.proven_optimal.into());
    m.insert("threads".into(), d.threads.into());
    m.insert("lower_bound".into(), d.lower_bound.into());
    if let Some(limit) = d.time_limit {
        m.insert("time_limit_seconds".into(), limit.as_secs_f64().into());
    }
    m.insert(
        "search_progress".into(),
        json!({
            "first_valid_seconds": d.first_valid_seconds,
            "best_seconds": d.best_seconds,
        }),
    );
    m.insert(
        "property_store".into(),
        json!({
            "kind": d.store,
            "anonymous": d.store_sizes.anonymous,
            "not_anonymous": d.store_sizes.not_anonymous,
            "pruned": d.store_sizes.pruned,
        }),
    );
    let purposes: Map<String, Value> = Purpose::ALL
        .iter()
        .zip(&d.purposes)
        .filter(|(_, c)| c.checks > 0)
        .map(|(p, c)| {
            let v = json!({ "checks": c.checks, "valid": c.valid });
            (p.name().to_string(), v)
        })
        .collect();
    m.insert("checks_by_purpose".into(), purposes.into());
    m.insert("tag_hits".into(), d.tag_hits.into());
    m.insert(
        "evaluated_ahead".into(),
        json!({ "checks": d.ahead.evaluated, "used": d.ahead.used }),
    );
    let c = &d.checker;
    m.insert(
        "checker".into(),
        json!({
            "plain": c.plain,
            "rollups": c.rollups,
            "snapshots": c.snapshots,
            "items_grouped": c.items,
            "snapshots_stored": c.snapshots_stored,
            "hubs": c.hubs,
            "stopped_early": c.stopped,
            "split": c.split,
            "team": c.team,
            "team_covered": c.covered,
            "history_peak_bytes": c.history_peak_bytes,
        }),
    );
}

/// Seconds rounded to microseconds (no float noise in the report).
fn micros(s: f64) -> f64 {
    (s * 1e6).round() / 1e6
}
