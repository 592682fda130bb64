//! A run's validated job.
//!
//! Flags (`cli`) and the XML config (`config::utd_xml`) are raw inputs; they are merged and
//! validated into one [`Job`], which is all that the run and the writers ever see.
//! Command-line values override the config's. Paths in a config are already resolved against the
//! config file's folder when they arrive here.
//!
//! The engine never sees a `Job`: the run hands the load a [`Source`] ([`Job::source`]) and each
//! method its own parameters ([`Job::datafly`], [`Job::lattice`], ...). The value types a job
//! is made of live with the engine that reads them (privacy models in `privacy`, metrics in
//! `metrics`, columns' roles in `data`, methods in `algorithms`) and are re-exported here.

use std::path::PathBuf;

use crate::algorithms::{anatomy, datafly, incognito, mondrian, LatticeParams};
use crate::data::load::Source;
use crate::io::Format;
use crate::Result;

pub use crate::algorithms::Method;
pub use crate::data::subset::SubsetSpec;
pub use crate::data::{Generalization, QuasiIdentifier, SensitiveAttribute};
pub use crate::metrics::MetricKind;
pub use crate::privacy::{PrivacyModel, SuppressionLimit, TDistance};

impl Job {
    /// Threads of the lattice searches: `-threads`, at most every core (a search keeps a
    /// checker per thread: more threads than cores only cost memory and time), else every core.
    pub fn threads(&self) -> usize {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        self.threads.map_or(cores, |n| n.clamp(1, cores))
    }

    /// The privacy models the method enforces (see `config::Builder::enforceable`), as the
    /// report lists them.
    pub fn enforced_models(&self) -> Vec<String> {
        match self.method {
            Method::Mondrian if self.mondrian_on_hierarchies() => {
                let mut models = vec![format!("{}-anonymity", self.k)];
                models.extend(
                    self.privacy
                        .iter()
                        .filter(|m| !matches!(m, PrivacyModel::KAnonymity { .. }))
                        .map(|m| m.describe(&self.sensitive)),
                );
                models
            }
            Method::Datafly | Method::Mondrian | Method::Mdav => {
                vec![format!("{}-anonymity", self.k)]
            }
            Method::Anatomy => vec![PrivacyModel::DistinctL {
                attribute: 0,
                l: self.l,
            }
            .describe(&self.sensitive)],
            _ => self
                .privacy
                .iter()
                .map(|m| m.describe(&self.sensitive))
                .collect(),
        }
    }

    /// The k of k-anonymity the method enforces, if any.
    pub fn enforced_k(&self) -> Option<u64> {
        match self.method {
            Method::Datafly | Method::Mondrian | Method::Mdav => Some(self.k),
            Method::Anatomy => None,
            _ => PrivacyModel::largest_k(&self.privacy),
        }
    }

    /// What a load reads: the input, its format and the roles of its columns.
    pub fn source(&self) -> Result<Source<'_>> {
        Ok(Source {
            path: &self.input.path,
            format: self.input.format()?,
            ids: &self.ids,
            qids: &self.qids,
            sensitive: &self.sensitive,
        })
    }

    /// The research subset of the job's δ-presence models, if any (two must agree).
    pub fn research_subset(&self) -> Result<Option<&SubsetSpec>> {
        PrivacyModel::research_subset(&self.privacy)
    }

    /// Datafly's parameters.
    pub fn datafly(&self) -> datafly::Params<'_> {
        datafly::Params {
            k: self.k,
            suppression: self.suppression,
            qids: &self.qids,
        }
    }

    /// Whether the method works on an SQLite store of the records (the toolbox's methods): a
    /// temporary one without `-db`. The others work in memory and fill a store only with `-db`.
    pub fn works_on_a_store(&self) -> bool {
        match self.method {
            Method::Datafly
            | Method::IncognitoK
            | Method::IncognitoL
            | Method::IncognitoT
            | Method::Anatomy => true,
            Method::Mondrian => !self.mondrian_on_hierarchies(),
            Method::Flash | Method::Ola | Method::Bfs | Method::Optimal | Method::Mdav => false,
        }
    }

    /// Whether Mondrian runs over hierarchies ([`mondrian::hierarchical`]): a quasi-identifier
    /// with a hierarchy file or builder, a `<privacy>` model beyond k-anonymity, or relaxed
    /// partitioning, or set labels. Otherwise (`<vgh>`s and k alone) it is the toolbox's Mondrian, byte for
    /// byte.
    pub fn mondrian_on_hierarchies(&self) -> bool {
        self.method == Method::Mondrian
            && (self
                .qids
                .iter()
                .any(|q| !matches!(q.generalization, Generalization::Vgh(_)))
                || self
                    .privacy
                    .iter()
                    .any(|m| !matches!(m, PrivacyModel::KAnonymity { .. }))
                || self.partitioning != mondrian::hierarchical::Partitioning::Strict
                || self.labels != mondrian::hierarchical::Labels::Nodes)
    }

    /// The parameters of Mondrian over hierarchies.
    pub fn mondrian_hierarchical(&self) -> mondrian::hierarchical::Params<'_> {
        mondrian::hierarchical::Params {
            k: self.k,
            privacy: &self.privacy,
            partitioning: self.partitioning,
            labels: self.labels,
        }
    }

    /// MDAV's parameters: a `<vgh>` with a category map codes categories, not numbers.
    pub fn mdav(&self) -> crate::algorithms::mdav::Params {
        crate::algorithms::mdav::Params {
            k: self.k,
            categorical: self
                .qids
                .iter()
                .map(|q| matches!(&q.generalization, Generalization::Vgh(v) if v.map.is_some()))
                .collect(),
        }
    }

    /// Mondrian's parameters.
    pub fn mondrian(&self) -> mondrian::Params<'_> {
        mondrian::Params {
            k: self.k,
            qids: &self.qids,
        }
    }

    /// Incognito's parameters (Incognito_K, _L, _T).
    pub fn incognito(&self) -> incognito::Params<'_> {
        incognito::Params {
            method: self.method,
            k: self.k,
            suppression: self.suppression,
            c: self.c,
            privacy: &self.privacy,
            sensitive: &self.sensitive,
        }
    }

    /// Anatomy's parameters.
    pub fn anatomy(&self) -> anatomy::Params<'_> {
        anatomy::Params {
            l: self.l,
            seed: self.seed,
            sensitive: &self.sensitive,
        }
    }

    /// Cell suppression's parameters: `blank[q]` is what a blanked cell prints.
    pub fn cells<'a>(&'a self, blank: &'a [String]) -> crate::algorithms::cells::Params<'a> {
        crate::algorithms::cells::Params {
            k: self.k,
            privacy: &self.privacy,
            importance: &self.importance,
            blank,
        }
    }

    /// SafePub's parameters, if the run has a differential-privacy model: the seed of `-seed`,
    /// or one drawn from the system's entropy (at each call: call once per run).
    pub fn safepub(&self) -> Option<crate::algorithms::safepub::Params<'_>> {
        let Some(&PrivacyModel::DifferentialPrivacy { seed, .. }) =
            PrivacyModel::differential_privacy(&self.privacy)
        else {
            return None;
        };
        Some(crate::algorithms::safepub::Params {
            privacy: &self.privacy,
            k: self.k,
            metric: self.metric,
            seed: seed.unwrap_or_else(crate::privacy::differential::random_seed),
            seeded: seed.is_some(),
        })
    }

    /// A lattice search's parameters (Flash, OLA, BFS, Optimal).
    pub fn lattice(&self) -> LatticeParams<'_> {
        LatticeParams {
            method: self.method,
            privacy: &self.privacy,
            k: self.k,
            metric: self.metric,
            suppression: self.suppression,
            time_limit: self.time_limit,
            threads: self.threads(),
            stop: None,
        }
    }
}

/// Output format (`-outputFormat`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum OutputFormat {
    GenVals,
    GenValsDist,
    Anatomy,
}

impl OutputFormat {
    pub const NAMES: &'static [&'static str] = &["genVals", "genValsDist", "anatomy"];

    /// Parses a format name case-insensitively.
    pub fn parse(s: &str) -> Option<OutputFormat> {
        Some(match s.to_ascii_lowercase().as_str() {
            "genvals" => OutputFormat::GenVals,
            "genvalsdist" => OutputFormat::GenValsDist,
            "anatomy" => OutputFormat::Anatomy,
            _ => return None,
        })
    }
}

/// Where the input comes from and how it is split.
#[derive(Debug, Clone)]
pub struct InputSpec {
    pub path: PathBuf,
    /// Field separator: one byte or a multi-character string such as `, `.
    pub separator: String,
    /// The first line is a header (extension `header='true'`).
    pub header: bool,
    /// Rows containing `?` are data (extension `unknown='keep'`); else they are skipped, as
    /// the toolbox skips them.
    pub keep_unknown: bool,
    /// The text encoding of the input, its release and its hierarchy files (extension
    /// `encoding='windows-1252'`, flag `-encoding`); UTF-8 by default.
    pub encoding: &'static crate::io::encoding::Encoding,
    /// The longest line (or record) of the input and its hierarchy and subset files, in
    /// bytes (flag `-maxLineLength`).
    pub max_line: usize,
    /// A columnar input (Parquet, a data set folder, Arrow IPC, record batches in memory):
    /// `<input format>`, else the file's extension; `None`: delimited text.
    pub columnar: Option<crate::io::columnar::Columnar>,
}

impl Job {
    /// What the kept database's `Run` row says of this run.
    pub fn run_record(&self) -> crate::store::RunRecord {
        let parameters = serde_json::json!({
            "k": self.k,
            "l": self.l,
            "c": self.c,
            "t": self.t,
            "suppression": self.suppression,
            "suppress": self.suppress,
            "metric": self.metric,
            "privacy": self.privacy,
            "seed": self.seed,
        });
        crate::store::RunRecord {
            method: self.method.name(),
            parameters: parameters.to_string(),
            config_path: self.config_path.as_ref().map(|p| p.display().to_string()),
            config_text: self.config_text.clone(),
            input_path: self.input.path.display().to_string(),
            separator: self.input.separator.clone(),
            header: self.input.header,
            output_path: self.output.as_ref().map(|o| o.path.display().to_string()),
            output_format: self.output.as_ref().map(|o| format!("{:?}", o.format)),
        }
    }
}

impl InputSpec {
    /// The format of the input: every reader of it (the load, the output, the research
    /// subset) skips the same rows.
    pub fn format(&self) -> crate::Result<Format> {
        let format = Format::new(&self.separator, self.header)?
            .unknown_kept(self.keep_unknown)
            .encoded(self.encoding)
            .max_line(self.max_line);
        Ok(match &self.columnar {
            Some(c) => format.columnar(c.clone()),
            None => format,
        })
    }
}

/// Where the output goes.
#[derive(Debug, Clone)]
pub struct OutputSpec {
    pub path: PathBuf,
    pub format: OutputFormat,
    /// genVals as a columnar file (`<output format='parquet'>`, `-outputFormat parquet`, or
    /// the file's extension); `None`: delimited text.
    pub columnar: Option<crate::io::columnar::Kind>,
    /// The release goes to memory, not to `path` (the library's callers; `path` only names it).
    pub memory: Option<crate::io::columnar::Sink>,
    /// `path` is a data set folder: the release is its part files (`columnar` is their kind;
    /// see [`crate::io::parts`]).
    pub folder: bool,
}

/// A run's validated job, built by [`crate::config::build_job`]: what `anonbox` runs and
/// `anonbox plan` describes.
#[derive(Debug, Clone)]
pub struct Job {
    pub method: Method,
    /// A library caller's watch on the run's progress bars (no flag; see
    /// [`crate::progress::Watch`]).
    pub progress: Option<crate::progress::Watch>,
    /// The config file the job came from, if any (recorded in the store's run table).
    pub config_path: Option<PathBuf>,
    /// The config file's text, recorded verbatim in the store.
    pub config_text: Option<String>,
    pub input: InputSpec,
    pub output: Option<OutputSpec>,
    /// Output files that exist and that the run replaces: the toolbox's "will be overwritten"
    /// warning, said once the run has replaced them (a failed run replaces none).
    pub overwritten: Vec<PathBuf>,
    /// Identifier columns: removed from genVals/genValsDist/ST output.
    pub ids: Vec<usize>,
    pub qids: Vec<QuasiIdentifier>,
    pub sensitive: Vec<SensitiveAttribute>,
    pub k: u64,
    pub l: f64,
    pub c: f64,
    pub t: f64,
    /// Suppression limit; `None` means the method's default (Datafly: k tuples; Flash: 0).
    pub suppression: Option<SuppressionLimit>,
    pub metric: MetricKind,
    /// Privacy models for the lattice methods (from `<privacy>`, else k-anonymity with `k`).
    pub privacy: Vec<PrivacyModel>,
    /// Seed of Anatomy's random choices.
    pub seed: u64,
    /// Mondrian's cuts of numbers (`-partition`).
    pub partitioning: mondrian::hierarchical::Partitioning,
    /// What Mondrian over hierarchies publishes for a categorical attribute (`-labels`).
    pub labels: mondrian::hierarchical::Labels,
    /// Lattice searches: the suppressed records recoded locally (`-localRecoding`, `<privacy
    /// local-recoding>`; see [`crate::algorithms::local_recoding`]).
    pub local_recoding: bool,
    /// Keep the SQLite working database here (default: a temporary file).
    pub db: Option<PathBuf>,
    /// Write a JSON report here.
    pub report: Option<PathBuf>,
    /// `-mode`: the permission bits of the outputs and the report, new or replaced (`None`:
    /// 0600 for a new file, a replaced file of the user's keeps its own).
    pub file_mode: Option<u32>,
    /// No progress bars.
    pub quiet: bool,
    /// The toolbox's console lines (Incognito, Anatomy) on stdout (`-verbose`; not with `-quiet`).
    pub verbose: bool,
    /// Lattice searches stop after this long and release the best transformation found so far
    /// (`-timeLimit`, root attribute `timeLimit`); `None`: run to the proof of optimality.
    pub time_limit: Option<std::time::Duration>,
    /// Threads of the lattice searches (`-threads`); `None`: all cores.
    pub threads: Option<usize>,
    /// Risk above which a record counts as at risk in the report (`-riskThreshold`).
    pub risk_threshold: f64,
    /// The population of the report's risk analysis (`-population`).
    pub population: crate::privacy::population::Population,
    /// The engine that reads the records and writes the release (`-engine`, `<engine>`).
    pub engine: crate::engine::kind::EngineKind,
    /// What a lattice search suppresses: records, or cells (`-suppress`, root `suppress`).
    pub suppress: crate::algorithms::cells::Suppress,
    /// Each quasi-identifier's `importance` (`<att importance>`), for cell suppression.
    pub importance: Vec<Option<u32>>,
    /// Memory of the datafusion engine's plans, in bytes (`-memoryLimit`, `<engine
    /// memoryLimit>`): past it they spill; `None`: no limit.
    pub memory_limit: Option<usize>,
}
