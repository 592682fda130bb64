//! The engine seam: the two parts of a run that grow with the rows.
//!
//! Every search works on the frequency set (the distinct quasi-identifier tuples with their
//! counts, and the sensitive values' with them), which fits one machine for any realistic set of
//! quasi-identifiers. Only (a) reading the records into that frequency set and (b) writing the
//! release (each record rewritten by the chosen transformation, with suppression) touch every
//! row. A [`Rows`] engine does those two; the run ([`crate::cmd::run`]) does the rest the same
//! way on every engine, and the methods, the checker, the privacy models and the metrics never
//! know which engine ran.
//!
//! - `embedded` (the default): today's path. (a) the load reads the input once into an
//!   [`EncodedTable`] (or the SQLite store for the toolbox's methods); (b) the writers re-read
//!   the input beside the labels of every record, in input order.
//!
//! - `datafusion` ([`datafusion`]): Apache DataFusion in the process, on every core. (a) is a
//!   group-by of the input on the attributes' text forms with a count, spilling to a private
//!   folder under `-memoryLimit`; the driver encodes each distinct tuple once. (b) is a
//!   projection over the input: each quasi-identifier's text mapped to its label at the chosen
//!   level, and the suppressed classes' records to the suppression labels (or, for Mondrian,
//!   the tuple mapped to its class's labels), written in input order; into a data set folder,
//!   every partition of the plan writes its own part ([`parts`]).
//! - `ballista://HOST:PORT` ([`ballista`]): the same plans, run by an Apache Ballista
//!   scheduler and its executors (anonbox's own, `anonbox-cluster`, which decode the release's
//!   function); the driver encodes the frequency set's groups, and the executors write a data
//!   set folder's parts (a single file is written by the driver, as on `datafusion`).
//!
//! Each of the two is a cargo feature of the same name (`ballista` includes `datafusion`;
//! DataFusion is most of a cold build): a build without it refuses the engine with the job
//! (exit 2), naming the feature.
//!
//! An engine other than the embedded one sees only what the method decided ([`Rewrite`]),
//! never a row of the driver's: a full-domain transformation with its suppressed classes, or
//! Mondrian's partition of the distinct tuples with each class's labels (records of one tuple
//! always share a class). What needs rows on the driver cannot run on another engine and is
//! refused with the job (exit 2, [`check_job`]): Anatomy (groups records), Mondrian's relaxed
//! partitioning (breaks ties by input order), δ-presence (its research subset is a set of
//! rows), and the toolbox's genValsDist and anatomy formats.

#[cfg(feature = "ballista")]
pub mod ballista;
#[cfg(feature = "datafusion")]
pub mod datafusion;
#[cfg(feature = "datafusion")]
mod groups;
pub mod kind;
#[cfg(feature = "datafusion")]
pub mod parts;
#[cfg(feature = "datafusion")]
pub mod release_fn;
#[cfg(feature = "datafusion")]
mod spill;
#[cfg(feature = "datafusion")]
mod text_ids;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::data::load::{Encoding, LoadObserver, LoadSummary};
use crate::data::{EncodedTable, LabelRow, LabelSource};
use crate::io::Publication;
use crate::job::{Job, Method, OutputFormat};
use crate::progress::Progress;
use crate::{Error, Result};

pub use kind::EngineKind;

/// Why `job` cannot run on its engine, if it cannot (see the module docs): a config error.
pub fn check_job(job: &Job) -> Result<()> {
    if job.engine == EngineKind::Embedded {
        return Ok(());
    }
    let why = if job.method == Method::Anatomy {
        "Anatomy runs on the embedded engine only (its release groups records, not tuples)"
            .to_string()
    } else if job.method == Method::Mondrian
        && job.partitioning == crate::algorithms::mondrian::hierarchical::Partitioning::Relaxed
    {
        "relaxed partitioning breaks ties between tuples by their order in the input, which \
         another engine does not keep (or use -partition strict)"
            .to_string()
    } else if job
        .output
        .as_ref()
        .is_some_and(|o| o.format != OutputFormat::GenVals)
    {
        "the toolbox's genValsDist and anatomy formats are written by the embedded engine only"
            .to_string()
    } else if job.research_subset()?.is_some() {
        "δ-presence needs its research subset's rows: it runs on the embedded engine only"
            .to_string()
    } else if job.output.as_ref().is_some_and(|o| o.memory.is_some()) {
        "a release held in memory is written by the embedded engine only".to_string()
    } else if job.method == Method::Mdav {
        "MDAV replaces each record's values by its group's centroid: it runs on the embedded \
         engine only"
            .to_string()
    } else if job.local_recoding {
        "local recoding releases groups of records at their own transformations: it runs on \
         the embedded engine only"
            .to_string()
    } else if job.suppress == crate::algorithms::cells::Suppress::Cells {
        "cell suppression blanks cells record by record: it runs on the embedded engine only"
            .to_string()
    } else if crate::privacy::PrivacyModel::differential_privacy(&job.privacy).is_some() {
        "differential privacy releases a random sample of the records: it runs on the \
         embedded engine only"
            .to_string()
    } else if matches!(job.engine, EngineKind::Ballista(_)) && job.memory_limit.is_some() {
        return Err(Error::Usage(format!(
            "-engine {}: -memoryLimit (or <engine memoryLimit>) is the datafusion engine's in \
             this process; a Ballista cluster's executors take theirs when they start \
             (scripts/cluster.sh up --memory-limit SIZE): drop it",
            job.engine.name()
        )));
    } else if let Some(why) = unsupported_input(job) {
        why
    } else {
        return Ok(());
    };
    Err(Error::Usage(format!(
        "-engine {}: {why}; use -engine embedded",
        job.engine.name()
    )))
}

/// Why this build cannot run `job`'s engine on its input, if it cannot: the engine's feature
/// is not in the build, or DataFusion cannot read the input.
fn unsupported_input(job: &Job) -> Option<String> {
    let built = match job.engine {
        EngineKind::Embedded => true,
        EngineKind::DataFusion => cfg!(feature = "datafusion"),
        EngineKind::Ballista(_) => cfg!(feature = "ballista"),
    };
    if !built {
        let feature = job.engine.feature().unwrap_or_default();
        return Some(format!(
            "this build of anonbox has no {feature} engine: build it with `cargo build \
             --release --features {feature}`"
        ));
    }
    if let EngineKind::Ballista(_) = job.engine {
        if matches!(
            job.input.columnar,
            Some(crate::io::columnar::Columnar::Memory(_))
        ) {
            return Some(
                "a Ballista cluster reads files, not a table in memory: write it to a Parquet \
                 file first"
                    .to_string(),
            );
        }
    }
    #[cfg(feature = "datafusion")]
    if job.engine != EngineKind::Embedded {
        return datafusion::unsupported_input(&job.input);
    }
    None
}

/// What a release rewrite needs from the method, never a row: a full-domain transformation
/// with the classes it suppresses, or a partition of the distinct tuples (Mondrian's) with
/// each class's labels.
#[derive(Debug, Clone, PartialEq)]
pub enum Rewrite {
    /// The transformation, and the classes it suppresses (each a generalized tuple: one
    /// hierarchy id per quasi-identifier at its level).
    Levels {
        levels: Vec<usize>,
        suppressed: Vec<Vec<u32>>,
    },
    /// Each distinct tuple's class, and each class's labels.
    Classes(Classes),
}

/// A partition of the distinct tuples: records of one tuple always share a class (Mondrian
/// cuts on values, never between equal tuples), so a record's labels follow from its tuple.
#[derive(Debug, Clone, PartialEq)]
pub struct Classes {
    /// Each distinct tuple (its leaf codes, one per quasi-identifier) and its class, in the
    /// table's tuple order.
    pub tuples: Vec<(Vec<u32>, u32)>,
    /// Each class's labels, one per quasi-identifier; two classes never print the same row.
    pub labels: Vec<Vec<String>>,
}

impl Rewrite {
    /// From a full-domain result over `table`: the classes of the suppressed records.
    pub fn of_records(table: &EncodedTable, levels: &[usize], suppressed: &[bool]) -> Rewrite {
        let mut set: FxHashSet<Vec<u32>> = FxHashSet::default();
        let mut last = usize::MAX;
        for (r, _) in suppressed.iter().enumerate().filter(|(_, &s)| s) {
            let t = table.tuple_of(r);
            if t == last {
                continue;
            }
            last = t;
            set.insert(generalized(table, t, levels));
        }
        let mut suppressed: Vec<Vec<u32>> = set.into_iter().collect();
        suppressed.sort_unstable();
        Rewrite::Levels {
            levels: levels.to_vec(),
            suppressed,
        }
    }

    /// From the labels of every record of `table` (a store method's): a record printed with
    /// other labels than its class's at `levels` is suppressed (it must print `suppression`).
    pub fn of_labels(
        table: &EncodedTable,
        levels: &[usize],
        suppression: &[String],
        labels: &mut dyn LabelSource,
    ) -> Result<Rewrite> {
        let mut set: FxHashSet<Vec<u32>> = FxHashSet::default();
        let mut r = 0usize;
        labels.for_each_record(&mut |row: &LabelRow| {
            let t = table.tuple_of(r);
            r += 1;
            let g = generalized(table, t, levels);
            let same = g.iter().enumerate().all(|(q, &id)| {
                let h = &table.hierarchies[q];
                row.get(q) == h.label(levels[q], id).as_bytes()
            });
            if !same {
                let top = suppression
                    .iter()
                    .enumerate()
                    .all(|(q, l)| row.get(q) == l.as_bytes());
                if !top {
                    return Err(Error::Invalid(
                        "internal error: a record is neither generalized nor suppressed".into(),
                    ));
                }
                set.insert(g);
            }
            Ok(())
        })?;
        let mut suppressed: Vec<Vec<u32>> = set.into_iter().collect();
        suppressed.sort_unstable();
        Ok(Rewrite::Levels {
            levels: levels.to_vec(),
            suppressed,
        })
    }

    /// From the labels of every record of `table` (in the table's order) of a partition of its
    /// tuples: each tuple's labels, found once. Records of one tuple printed with two rows of
    /// labels are an internal error (the partition cut a tuple).
    pub fn of_classes(table: &EncodedTable, labels: &mut dyn LabelSource) -> Result<Rewrite> {
        const NONE: u32 = u32::MAX;
        let width = table.width();
        let mut class_of = vec![NONE; table.tuples()];
        let mut classes: FxHashMap<Vec<String>, u32> = FxHashMap::default();
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut r = 0usize;
        labels.for_each_record(&mut |row: &LabelRow| {
            let t = table.tuple_of(r);
            r += 1;
            if row.is_omitted() {
                return Ok(());
            }
            if class_of[t] != NONE {
                // A tuple seen before: its labels must be its class's (no copy made).
                let known = &rows[class_of[t] as usize];
                if (0..width).any(|q| row.get(q) != known[q].as_bytes()) {
                    return Err(Error::Invalid(
                        "internal error: the records of one distinct tuple are in two classes"
                            .into(),
                    ));
                }
                return Ok(());
            }
            let texts: Vec<String> = (0..width)
                .map(|q| String::from_utf8_lossy(row.get(q)).into_owned())
                .collect();
            let next = rows.len() as u32;
            class_of[t] = *classes.entry(texts).or_insert_with_key(|texts| {
                rows.push(texts.clone());
                next
            });
            Ok(())
        })?;
        let tuples = class_of
            .iter()
            .enumerate()
            .filter(|(_, &c)| c != NONE)
            .map(|(t, &c)| (table.tuple(t).collect(), c))
            .collect();
        Ok(Rewrite::Classes(Classes {
            tuples,
            labels: rows,
        }))
    }
}

/// The generalized tuple of distinct tuple `t` at `levels`.
fn generalized(table: &EncodedTable, t: usize, levels: &[usize]) -> Vec<u32> {
    table
        .tuple(t)
        .zip(&table.hierarchies)
        .zip(levels)
        .map(|((code, h), &l)| h.get(code, l))
        .collect()
}

/// The DataFusion (or Ballista) engine's parameters of `job`.
#[cfg(feature = "datafusion")]
fn params(job: &Job) -> datafusion::Params {
    datafusion::Params {
        threads: job.threads(),
        memory_limit: job.memory_limit,
        cluster: match &job.engine {
            EngineKind::Ballista(address) => Some(address.clone()),
            _ => None,
        },
    }
}

/// The engine of one run (see the module docs).
pub enum Rows {
    Embedded,
    #[cfg(feature = "datafusion")]
    DataFusion(Box<datafusion::Session>),
}

impl Rows {
    /// The engine `job` asks for, ready to run (its working folders listed in
    /// `publication`'s clean-up).
    pub fn new(job: &Job, publication: &Publication) -> Result<Rows> {
        Ok(match &job.engine {
            EngineKind::Embedded => Rows::Embedded,
            // The same session in this process or on a cluster (`params(job).cluster`); a build
            // without the ballista feature refused a cluster with the job (`check_job`).
            #[cfg(feature = "datafusion")]
            EngineKind::DataFusion | EngineKind::Ballista(_) => Rows::DataFusion(Box::new(
                datafusion::Session::new(&params(job), publication.cleanup())?,
            )),
            #[allow(unreachable_patterns)]
            _ => {
                let _ = publication;
                return Err(Error::Usage(unsupported_input(job).unwrap_or_default()));
            }
        })
    }

    pub fn is_embedded(&self) -> bool {
        matches!(self, Rows::Embedded)
    }

    /// (a) The frequency set as the in-memory table (see the module docs).
    pub fn load(
        &mut self,
        job: &Job,
        observer: &mut dyn LoadObserver,
    ) -> Result<(EncodedTable, Encoding, LoadSummary)> {
        match self {
            Rows::Embedded => {
                crate::data::load::load_table(&job.source()?, job.research_subset()?, observer)
            }
            #[cfg(feature = "datafusion")]
            Rows::DataFusion(s) => s.frequency_set(&job.source()?, observer),
        }
    }

    /// (b) The release: the embedded engine writes `labels` (every record's, in input order)
    /// beside the input; another engine rewrites the input with what `rewrite` makes of them
    /// (called only there).
    #[allow(clippy::too_many_arguments)]
    pub fn write(
        &mut self,
        job: &Job,
        publication: &Publication,
        records: u64,
        labels: &mut dyn LabelSource,
        rewrite: impl FnOnce(&mut dyn LabelSource) -> Result<Rewrite>,
        encoding: &Encoding,
        progress: &Progress,
    ) -> Result<()> {
        let Some(out) = &job.output else {
            return Ok(());
        };
        match self {
            Rows::Embedded => {
                drop(rewrite);
                let _ = encoding;
                crate::output::genvals::write_as(publication, job, out, records, labels, progress)
            }
            #[cfg(feature = "datafusion")]
            Rows::DataFusion(s) => {
                let rewrite = rewrite(labels)?;
                s.release(job, publication, records, &rewrite, encoding, progress)
            }
        }
    }
}
