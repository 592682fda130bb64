//! A run's validated job.
//!
//! Flags (`cli`) and the XML config (`config::utd_xml`) are raw inputs; they are merged and
//! validated into one [`Job`], which is all that loading, algorithms and writers ever see.
//! Command-line values override the config's. Paths in a config are already resolved against the
//! config file's folder when they arrive here.

use std::path::PathBuf;

use crate::hierarchy::build::Builder;
use crate::hierarchy::vgh::{CategoryMap, Vgh};
use crate::hierarchy::Hierarchy;
use crate::io::Format;

/// Anonymization method (`-method`, case-insensitive on the command line).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Method {
    Datafly,
    Mondrian,
    IncognitoK,
    IncognitoL,
    IncognitoT,
    Anatomy,
    /// ARX's globally optimal Flash search, in memory.
    Flash,
    /// El Emam et al.'s Optimal Lattice Anonymization, on the same checker as Flash.
    Ola,
    /// Best-first branch and bound over an implicit lattice with antichains: globally optimal
    /// for any number of quasi-identifiers, anytime with a lower bound.
    Bfs,
    /// Flash when the lattice fits the dense property store comfortably, else BFS.
    Optimal,
}

impl Method {
    /// Every accepted name, as printed in errors and `--help`.
    pub const NAMES: &'static [&'static str] = &[
        "Datafly",
        "Mondrian",
        "Incognito_K",
        "Incognito_L",
        "Incognito_T",
        "Anatomy",
        "Flash",
        "OLA",
        "BFS",
        "Optimal",
    ];

    /// Parses a method name case-insensitively.
    pub fn parse(s: &str) -> Option<Method> {
        Some(match s.to_ascii_lowercase().as_str() {
            "datafly" => Method::Datafly,
            "mondrian" => Method::Mondrian,
            "incognito_k" => Method::IncognitoK,
            "incognito_l" => Method::IncognitoL,
            "incognito_t" => Method::IncognitoT,
            "anatomy" => Method::Anatomy,
            "flash" => Method::Flash,
            "ola" => Method::Ola,
            "bfs" => Method::Bfs,
            "optimal" => Method::Optimal,
            _ => return None,
        })
    }

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Datafly => "Datafly",
            Method::Mondrian => "Mondrian",
            Method::IncognitoK => "Incognito_K",
            Method::IncognitoL => "Incognito_L",
            Method::IncognitoT => "Incognito_T",
            Method::Anatomy => "Anatomy",
            Method::Flash => "Flash",
            Method::Ola => "OLA",
            Method::Bfs => "BFS",
            Method::Optimal => "Optimal",
        }
    }

    /// The globally optimal lattice searches of the in-memory engine (Flash, OLA, BFS,
    /// Optimal): `-metric`, `<privacy>` models, `-timeLimit`.
    pub fn is_lattice(self) -> bool {
        matches!(
            self,
            Method::Flash | Method::Ola | Method::Bfs | Method::Optimal
        )
    }

    /// Full-domain methods need VGH leaves at equal depth.
    pub fn is_full_domain(self) -> bool {
        !matches!(self, Method::Mondrian | Method::Anatomy)
    }
}

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
            Method::Datafly | Method::Mondrian => vec![format!("{}-anonymity", self.k)],
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
            Method::Datafly | Method::Mondrian => Some(self.k),
            Method::Anatomy => None,
            _ => PrivacyModel::largest_k(&self.privacy),
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

/// Utility metric for lattice searches (`-metric`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum MetricKind {
    DmStar,
    Dm,
    Height,
    Precision,
    Loss,
    Entropy,
    Aecs,
}

impl MetricKind {
    /// Every metric, in the order of [`MetricKind::NAMES`].
    pub const ALL: [MetricKind; 7] = [
        MetricKind::DmStar,
        MetricKind::Dm,
        MetricKind::Height,
        MetricKind::Precision,
        MetricKind::Loss,
        MetricKind::Entropy,
        MetricKind::Aecs,
    ];

    pub const NAMES: &'static [&'static str] = &[
        "DMStar",
        "DM",
        "Height",
        "Precision",
        "Loss",
        "Entropy",
        "AECS",
    ];

    /// Parses a metric name case-insensitively.
    pub fn parse(s: &str) -> Option<MetricKind> {
        Some(match s.to_ascii_lowercase().as_str() {
            "dmstar" | "dm*" => MetricKind::DmStar,
            "dm" => MetricKind::Dm,
            "height" => MetricKind::Height,
            "precision" => MetricKind::Precision,
            "loss" => MetricKind::Loss,
            "entropy" => MetricKind::Entropy,
            "aecs" => MetricKind::Aecs,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            MetricKind::DmStar => "DMStar",
            MetricKind::Dm => "DM",
            MetricKind::Height => "Height",
            MetricKind::Precision => "Precision",
            MetricKind::Loss => "Loss",
            MetricKind::Entropy => "Entropy",
            MetricKind::Aecs => "AECS",
        }
    }
}

/// How many records may be suppressed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum SuppressionLimit {
    /// `-suppThreshold N`: an absolute number of tuples (the toolbox's meaning).
    Tuples(u64),
    /// `-suppression F`: a fraction of the records, 0 <= F < 1; budget floor(F * n) (ARX's meaning).
    Fraction(f64),
}

impl SuppressionLimit {
    /// The budget in records for a table of `n` records.
    pub fn budget(self, n: u64) -> u64 {
        match self {
            SuppressionLimit::Tuples(t) => t,
            SuppressionLimit::Fraction(f) => (f * n as f64).floor() as u64,
        }
    }
}

/// Ground distance of t-closeness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum TDistance {
    Equal,
    Hierarchical,
    Ordered,
}

impl PrivacyModel {
    /// The largest k of the k-anonymity models among `models`, if any.
    pub fn largest_k(models: &[PrivacyModel]) -> Option<u64> {
        models
            .iter()
            .filter_map(|m| match m {
                PrivacyModel::KAnonymity { k } => Some(*k),
                _ => None,
            })
            .max()
    }

    /// The model as the report and errors name it, e.g. `5-anonymity`,
    /// `distinct-3-diversity(occupation)`.
    pub fn describe(&self, sensitive: &[SensitiveAttribute]) -> String {
        let att = |a: usize| {
            sensitive
                .get(a)
                .map_or("?", |s| s.name.as_str())
                .to_string()
        };
        match self {
            PrivacyModel::KAnonymity { k } => format!("{k}-anonymity"),
            PrivacyModel::DistinctL { attribute, l } => {
                format!("distinct-{l}-diversity({})", att(*attribute))
            }
            PrivacyModel::EntropyL { attribute, l } => {
                format!("entropy-{l}-diversity({})", att(*attribute))
            }
            PrivacyModel::RecursiveCL { attribute, c, l } => {
                format!("recursive-({c},{l})-diversity({})", att(*attribute))
            }
            PrivacyModel::TCloseness {
                attribute,
                t,
                distance,
            } => format!(
                "{t}-closeness({}, {} distance)",
                att(*attribute),
                match distance {
                    TDistance::Equal => "equal",
                    TDistance::Hierarchical => "hierarchical",
                    TDistance::Ordered => "ordered",
                }
            ),
            PrivacyModel::DeltaPresence { dmin, dmax, .. } => {
                format!("({dmin},{dmax})-presence")
            }
        }
    }
}

/// One privacy model of a `<privacy>` element (or derived from `-k`, `-l`, `-c`, `-t`).
/// `attribute` is the position in [`Job::sensitive`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum PrivacyModel {
    KAnonymity {
        k: u64,
    },
    DistinctL {
        attribute: usize,
        l: f64,
    },
    EntropyL {
        attribute: usize,
        l: f64,
    },
    RecursiveCL {
        attribute: usize,
        c: f64,
        l: f64,
    },
    TCloseness {
        attribute: usize,
        t: f64,
        distance: TDistance,
    },
    DeltaPresence {
        dmin: f64,
        dmax: f64,
        subset: SubsetSpec,
    },
}

/// The research subset of delta-presence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum SubsetSpec {
    /// A file with the subset's rows (same layout as the input).
    File(PathBuf),
    /// A 0/1 column of the input (its index).
    Column(usize),
}

/// How a quasi-identifier's values generalize.
#[derive(Debug, Clone)]
pub enum Generalization {
    /// A UT Dallas interval VGH, with a category map for categorical attributes.
    Vgh(Vgh),
    /// An ARX hierarchy file, already parsed and validated (the domain is its rows).
    File { path: PathBuf, hierarchy: Hierarchy },
    /// A hierarchy builder of the config (`<intervals .../>`), checked; it runs on the
    /// column's distinct values while the data is loaded (`data::load`), so a value it refuses
    /// is a data error at its line.
    Built(Box<Builder>),
}

impl Generalization {
    /// The number of levels of the hierarchy (the value up to the top), where the config alone
    /// decides it: a hierarchy file's columns, a `<vgh>`'s depth (leaves at equal depth, as
    /// the full-domain methods require), a builder's levels when its description fixes them
    /// ([`Builder::levels`]); `None` for a builder whose levels follow the data (`mask`
    /// without `length`), known once the column is loaded.
    pub fn levels(&self) -> Option<usize> {
        match self {
            Generalization::Vgh(vgh) => Some(vgh.levels()),
            Generalization::File { hierarchy, .. } => Some(hierarchy.levels()),
            Generalization::Built(builder) => builder.levels(),
        }
    }
}

/// A quasi-identifier, in `<qid>` order.
#[derive(Debug, Clone)]
pub struct QuasiIdentifier {
    /// 0-based column index in the input row.
    pub index: usize,
    /// Header name, or `att<index>` without a header.
    pub name: String,
    pub generalization: Generalization,
}

/// A sensitive attribute, in `<sens>` order.
#[derive(Debug, Clone)]
pub struct SensitiveAttribute {
    pub index: usize,
    pub name: String,
    /// Category map (`<map>`): categorical; without one, values are numbers.
    pub map: Option<CategoryMap>,
    /// Hierarchy file, where a distance (hierarchical t-closeness) needs one.
    pub hierarchy: Option<(PathBuf, Hierarchy)>,
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
}

impl InputSpec {
    /// The format of the input: every reader of it (the load, the output, the research
    /// subset) skips the same rows.
    pub fn format(&self) -> crate::Result<Format> {
        Ok(Format::new(&self.separator, self.header)?
            .unknown_kept(self.keep_unknown)
            .encoded(self.encoding)
            .max_line(self.max_line))
    }
}

/// Where the output goes.
#[derive(Debug, Clone)]
pub struct OutputSpec {
    pub path: PathBuf,
    pub format: OutputFormat,
}

/// A run's validated job, built by [`crate::config::build_job`]: what `anonbox` runs and
/// `anonbox plan` describes.
#[derive(Debug, Clone)]
pub struct Job {
    pub method: Method,
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
}
