//! The DataFusion engine: the frequency set and the release as Apache DataFusion plans, run in
//! this process on every core (see the module docs of [`super`] for the seam).
//!
//! What runs where:
//! - **In the plans** (DataFusion's threads, `-threads` partitions of the input, spilling to a
//!   private 0700 folder under `-memoryLimit`, [`super::spill`]): the scan of the input (Parquet
//!   by row group, a data set folder's files in path order, Arrow IPC, record batches in memory,
//!   or UTF-8 delimited text of a one-byte separator, every column a string, in byte ranges
//!   unless the file holds a quote, [`unquoted`]), each attribute's
//!   text form (arrow's cast to a string, a null as empty: what the embedded reader reads), the
//!   toolbox's `?` rule (a record with `?` in any field is skipped and counted), the group-by
//!   with a count, and the release's projection.
//! - **On the driver**: sorting the groups, encoding the distinct tuples with the embedded
//!   loader's own [`RowEncoder`] (so the checks, the errors, the hierarchies and the suppression
//!   labels are the embedded engine's), the search, and the value -> label map of the chosen
//!   transformation.
//!
//! Dictionary order. The embedded loader numbers a built or VGH quasi-identifier's values and
//! the distinct tuples in order of first appearance; the group-by has no input order, so here
//! the distinct tuples come sorted by their text and are numbered in that order (the same on
//! every run and thread count). Hierarchy-file codes are the file's on both engines. Codes and
//! tuple numbers name values and classes, they do not change them: the same transformation,
//! the same suppressed classes and the same released rows (`tests/it/engines.rs` compares both
//! engines on each kind of hierarchy, and the embedded engine with its input shuffled).
//!
//! The table carries each distinct tuple with its count expanded to one 4-byte entry a record
//! (the methods' record -> tuple index, as on the embedded engine): the driver's memory grows
//! with the frequency set and 4 bytes a record, never with the records' text.
//!
//! The release is a projection over a fresh scan: one function maps a record's
//! quasi-identifiers' text to their labels at the chosen levels, or to the suppression labels
//! when their class is one of the suppressed, or (Mondrian) to its tuple's class's labels
//! ([`Rewrite`]); the other columns pass through
//! (their types kept), identifiers are dropped. To keep input order as the embedded engine
//! does, the release reads each file as one partition (DataFusion's byte-range partitions of a
//! file did not come back in order in our tests), one file after the other for a data set
//! folder (path order), the next batches prefetched by a task while one is written: the
//! release's projection runs on one core a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use csv::ByteRecord;
use datafusion::datasource::file_format::options::ArrowReadOptions;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::execution::TaskContext;
use datafusion::functions::core::expr_fn::coalesce;
use datafusion::functions_aggregate::expr_fn::count;
use datafusion::logical_expr::{cast, lit, Expr, ScalarUDF};
use datafusion::physical_plan::{ExecutionPlan, SendableRecordBatchStream};
use datafusion::prelude::{
    CsvReadOptions, DataFrame, ParquetReadOptions, SessionConfig, SessionContext,
};
use futures::StreamExt;
use rustc_hash::{FxHashMap, FxHashSet};

use super::groups::Sorted;
use super::parts::{Planner, WriteParts};
use super::release_fn::ReleaseFn;
use super::spill::spill_dir;
use super::Rewrite;
use crate::data::load::{Encoding, LoadObserver, LoadSummary, RowEncoder, Source};
use crate::data::{EncodedTable, TupleBuilder};
use crate::io::columnar::writer::BatchWriter;
use crate::io::columnar::{dataset_files, Columnar, Kind, BATCH_ROWS};
use crate::io::parts::PartsFolder;
use crate::io::{Cleanup, Format, PrivateDir, Publication, ReadStats};
use crate::job::{InputSpec, Job};
use crate::progress::Progress;
use crate::{Error, Result};

/// What the engine needs of a job (built by `engine::params`).
#[derive(Debug, Clone)]
pub struct Params {
    /// Partitions of the scans and threads of the plans.
    pub threads: usize,
    /// Memory of the plans in bytes; past it they spill. `None`: no limit.
    pub memory_limit: Option<usize>,
    /// The Ballista scheduler that runs the plans (`ballista://HOST:PORT`); `None`: this
    /// process runs them.
    pub cluster: Option<String>,
}

/// Batches a release partition reads ahead of the one being written.
const PREFETCH: usize = 16;

/// Why DataFusion cannot read `input`, if it cannot: delimited text must be UTF-8 with a
/// one-byte separator (DataFusion's CSV reader).
pub fn unsupported_input(input: &InputSpec) -> Option<String> {
    if input.columnar.is_some() {
        return None;
    }
    if input.separator.len() != 1 {
        return Some(format!(
            "DataFusion reads delimited text of a one-byte separator, not '{}'",
            input.separator
        ));
    }
    if input.encoding != encoding_rs::UTF_8 {
        return Some(format!(
            "DataFusion reads UTF-8 text, not {}",
            input.encoding.name()
        ));
    }
    None
}

/// A DataFusion error about `input`: a data error (exit 1), on one line.
fn df_err(input: &Path, e: impl std::fmt::Display) -> Error {
    let text = e.to_string();
    let hint = if text.contains("Resources exhausted") {
        " (raise -memoryLimit)"
    } else {
        ""
    };
    Error::in_file(
        input,
        format!("DataFusion: {}{hint}", crate::error::one_line(&text)),
    )
}

/// The DataFusion engine of one run: its threads, its sessions (memory pool, spill folder) and
/// what the frequency set taught the driver (each quasi-identifier's texts and codes).
pub struct Session {
    runtime: tokio::runtime::Runtime,
    /// The frequency set's session: every core, round-robin repartitioning where a scan has
    /// fewer partitions than cores.
    ctx: SessionContext,
    /// The release's: one partition a file, never repartitioned, so that it reads the input
    /// in order.
    ordered: SessionContext,
    /// Per quasi-identifier: each distinct text (as the plans see it) -> its leaf code.
    raw: Vec<FxHashMap<String, u32>>,
    /// Bytes the frequency set spilled to disk.
    spilled: usize,
    /// Threads of the plans and of the driver's work on the groups.
    threads: usize,
    /// Per delimited file scanned: whether it holds no quote ([`unquoted`]), found once for the
    /// frequency set and the release.
    unquoted: std::sync::Mutex<FxHashMap<PathBuf, bool>>,
    /// The plans sent to a cluster, cancelled on a signal.
    #[cfg(feature = "ballista")]
    jobs: Option<Arc<super::ballista::Jobs>>,
    /// Removed (with the spill files) when the session is dropped, after the plans.
    spill: PrivateDir,
}

impl Session {
    /// A session for `params`, its spill folder listed in `cleanup`.
    pub fn new(params: &Params, cleanup: &Cleanup) -> Result<Session> {
        let spill = spill_dir(cleanup)?;
        let threads = params.threads.max(1);
        let mut env = RuntimeEnvBuilder::new().with_disk_manager_builder(
            DiskManagerBuilder::default().with_mode(DiskManagerMode::Directories(vec![spill
                .path()
                .to_path_buf()])),
        );
        if let Some(limit) = params.memory_limit {
            // Fair shares: every spilling operator (the group-by's partitions, the sort) gets
            // its part of the limit, rather than the first one taking it all.
            env = env.with_memory_pool(Arc::new(
                datafusion::execution::memory_pool::FairSpillPool::new(limit),
            ));
        }
        let env: Arc<RuntimeEnv> = env.build_arc().map_err(|e| df_err(spill.path(), e))?;
        let config = || {
            SessionConfig::new()
                .with_target_partitions(threads)
                .with_batch_size(BATCH_ROWS)
                .set_bool(
                    "datafusion.execution.parquet.schema_force_view_types",
                    false,
                )
                // A file of a few row groups is read on every core (the default waits for
                // 1 MiB a partition).
                .set_usize("datafusion.optimizer.repartition_file_min_size", 1 << 18)
        };
        let ordered_config = || {
            config()
                .set_bool("datafusion.optimizer.enable_round_robin_repartition", false)
                .set_bool("datafusion.optimizer.repartition_file_scans", false)
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .thread_name("anonbox-datafusion")
            .build()
            .map_err(|e| Error::Invalid(format!("cannot start DataFusion's threads: {e}")))?;
        let (ctx, ordered) = match &params.cluster {
            None => {
                // DataFusion's planner, plus the release's part writer.
                let local = |c: SessionConfig, env: Arc<RuntimeEnv>| {
                    SessionContext::new_with_state(
                        SessionStateBuilder::new()
                            .with_config(c)
                            .with_runtime_env(env)
                            .with_default_features()
                            .with_query_planner(Arc::new(Planner))
                            .build(),
                    )
                };
                (local(config(), env.clone()), local(ordered_config(), env))
            }
            #[cfg(feature = "ballista")]
            Some(address) => {
                super::ballista::reachable(address)?;
                let remote = |c| {
                    runtime
                        .block_on(super::ballista::context(address, c))
                        .map_err(|e| {
                            Error::Invalid(format!(
                                "Ballista scheduler at {address}: {}",
                                crate::error::one_line(&e.to_string())
                            ))
                        })
                };
                (remote(config())?, remote(ordered_config())?)
            }
            #[cfg(not(feature = "ballista"))]
            Some(address) => {
                return Err(Error::Usage(format!(
                    "-engine {address}: this build of anonbox has no ballista engine"
                )))
            }
        };
        // A signal cancels the cluster's jobs before the run's folders go (while the session
        // lives: the hook holds it weakly).
        #[cfg(feature = "ballista")]
        let jobs = params.cluster.as_deref().map(|address| {
            let jobs = Arc::new(super::ballista::Jobs::new(address));
            let weak = Arc::downgrade(&jobs);
            cleanup.on_interrupt(Arc::new(move || {
                if let Some(jobs) = weak.upgrade() {
                    jobs.cancel();
                }
            }));
            jobs
        });
        Ok(Session {
            runtime,
            ctx,
            ordered,
            raw: Vec::new(),
            spilled: 0,
            threads,
            unquoted: Default::default(),
            #[cfg(feature = "ballista")]
            jobs,
            spill,
        })
    }

    /// Bytes the frequency set spilled to the private folder (0: it fitted in memory).
    pub fn spilled_bytes(&self) -> usize {
        self.spilled
    }

    /// The private spill folder.
    pub fn spill_dir(&self) -> &Path {
        self.spill.path()
    }

    /// `df`'s physical plan and its task context (errors name `at`). A cluster's plan is
    /// tracked, so that a signal cancels its job.
    fn plan(&self, df: DataFrame, at: &Path) -> Result<(Arc<dyn ExecutionPlan>, Arc<TaskContext>)> {
        let task = Arc::new(df.task_ctx());
        let plan = self
            .runtime
            .block_on(df.create_physical_plan())
            .map_err(|e| df_err(at, e))?;
        #[cfg(feature = "ballista")]
        if let Some(jobs) = &self.jobs {
            jobs.track(&plan);
        }
        Ok((plan, task))
    }

    /// [`unquoted`] of `path`, read once a session.
    fn unquoted(&self, path: &Path) -> bool {
        let mut known = self
            .unquoted
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *known
            .entry(path.to_path_buf())
            .or_insert_with(|| unquoted(path, self.threads))
    }

    /// The input of `format` at `path` as a DataFrame of `ctx`, and its column names in order.
    fn scan(&self, ctx: &SessionContext, path: &Path, format: &Format) -> Result<Scan> {
        let err = |e| df_err(path, e);
        let files = |kind: Kind| -> Result<Vec<String>> {
            let files = if path.is_dir() {
                dataset_files(path, Some(kind))?
            } else {
                vec![path.to_path_buf()]
            };
            Ok(files
                .iter()
                .map(|f| absolute(f).to_string_lossy().into_owned())
                .collect())
        };
        let df = match format.columnar_source() {
            Some(Columnar::File(Kind::Parquet)) => {
                let opts = ParquetReadOptions {
                    file_extension: "",
                    ..Default::default()
                };
                self.runtime
                    .block_on(ctx.read_parquet(files(Kind::Parquet)?, opts))
                    .map_err(err)?
            }
            Some(Columnar::File(Kind::Ipc)) => {
                let opts = ArrowReadOptions {
                    file_extension: "",
                    ..Default::default()
                };
                self.runtime
                    .block_on(ctx.read_arrow(files(Kind::Ipc)?, opts))
                    .map_err(err)?
            }
            Some(Columnar::Memory(b)) => {
                let n = ctx.copied_config().target_partitions().max(1);
                let per = b.batches.len().div_ceil(n).max(1);
                let parts: Vec<Vec<RecordBatch>> =
                    b.batches.chunks(per).map(<[RecordBatch]>::to_vec).collect();
                let table = datafusion::datasource::MemTable::try_new(b.schema.clone(), parts)
                    .map_err(err)?;
                ctx.read_table(Arc::new(table)).map_err(err)?
            }
            None => {
                // Every column a string, named by position (a header's names may repeat).
                let width = self.width(path, format)?;
                let schema = Schema::new(
                    (0..width)
                        .map(|i| Field::new(format!("c{i}"), DataType::Utf8, true))
                        .collect::<Vec<_>>(),
                );
                let opts = CsvReadOptions::new()
                    .has_header(format.header())
                    .delimiter(format.separator()[0])
                    .schema(&schema)
                    .newlines_in_values(!self.unquoted(path))
                    .file_extension("");
                self.runtime
                    .block_on(ctx.read_csv(absolute(path).to_string_lossy().into_owned(), opts))
                    .map_err(err)?
            }
        };
        let names = df
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        Ok(Scan { df, names })
    }

    /// Fields per row of a delimited input, as the embedded reader finds them.
    fn width(&self, path: &Path, format: &Format) -> Result<usize> {
        let mut reader = format.open(path)?;
        if let Some(w) = reader.width() {
            return Ok(w);
        }
        let mut rec = ByteRecord::new();
        reader.next_row(&mut rec)?;
        Ok(reader.width().unwrap_or(rec.len()))
    }

    fn next(
        &self,
        stream: &mut SendableRecordBatchStream,
        input: &Path,
    ) -> Result<Option<RecordBatch>> {
        match self.runtime.block_on(stream.next()) {
            None => Ok(None),
            Some(b) => b.map(Some).map_err(|e| df_err(input, e)),
        }
    }

    /// (a) The frequency set of `source` as the in-memory table (see the module docs).
    pub fn frequency_set(
        &mut self,
        source: &Source<'_>,
        observer: &mut dyn LoadObserver,
    ) -> Result<(EncodedTable, Encoding, LoadSummary)> {
        let input = source.path;
        let format = &source.format;
        let bytes = crate::io::input_size(input);
        observer.start(bytes);
        // The header and width as the embedded reader sees them (its checks, its messages).
        let (header, width) = {
            let reader = format.open(input)?;
            let header = reader.header().cloned();
            drop(reader);
            let width = match &header {
                Some(h) => h.len(),
                None => self.width(input, format)?,
            };
            (header, width)
        };
        let mut encoder = RowEncoder::new(source);
        encoder.check_width(width, 1)?;
        let Scan { df, names } = self.scan(&self.ctx, input, format)?;
        let nq = source.qids.len();
        let attrs: Vec<usize> = source
            .qids
            .iter()
            .map(|q| q.index)
            .chain(source.sensitive.iter().map(|s| s.index))
            .collect();
        let mut groups: Vec<Expr> = attrs
            .iter()
            .enumerate()
            .map(|(a, &i)| text(&names[i]).alias(format!("__a{a}")))
            .collect();
        let skip_unknown = !format.keeps_unknown();
        if skip_unknown {
            groups.push(unknown(&names).alias("__q"));
        }
        let df = df
            .aggregate(groups, vec![count(lit(1)).alias("__n")])
            .map_err(|e| df_err(input, e))?;
        let (plan, task) = self.plan(df, input)?;
        let mut stream = {
            // Executing starts the partitions' tasks: on this session's runtime.
            let _runtime = self.runtime.enter();
            datafusion::physical_plan::execute_stream(plan.clone(), task)
                .map_err(|e| df_err(input, e))?
        };

        let mut codes = vec![0u32; encoder.width()];
        let mut tuples = TupleBuilder::new(nq);
        let mut sens: Vec<Vec<u32>> = vec![Vec::new(); source.sensitive.len()];
        let mut stats = ReadStats::default();
        // The groups as they come (they are the frequency set: its memory is the driver's
        // anyway), put in the order of their texts, so that codes follow one order on every
        // run ([`Sorted`]).
        let mut batches = Vec::new();
        while let Some(batch) = self.next(&mut stream, input)? {
            batches.push(batch);
        }
        drop(stream);
        let flag = skip_unknown.then_some(attrs.len());
        let sorted = Sorted::new(&batches, attrs.len(), flag, self.threads, utf8)?;
        // Each attribute's code by rank, once a group has encoded it: a text is encoded (and
        // checked) once, where its rank first comes, and only counted after that.
        const UNSEEN: u32 = u32::MAX;
        let mut code_of: Vec<Vec<u32>> = (0..attrs.len())
            .map(|a| vec![UNSEEN; sorted.distinct(a)])
            .collect();
        // While each quasi-identifier's codes name one text each (the reader may read two texts
        // as one value, e.g. with spaces trimmed), groups with the same tuple come one after
        // the other, and tuples need no lookup.
        let mut taken: Vec<Vec<bool>> = vec![Vec::new(); nq];
        let mut one_to_one = true;
        sorted.try_for_each(|count, skipped, ranks| -> Result<()> {
            stats.rows_read += count;
            if skipped {
                stats.rows_skipped += count;
                return Ok(());
            }
            for (a, (&rank, code)) in ranks.iter().zip(codes.iter_mut()).enumerate() {
                let known = &mut code_of[a][rank as usize];
                if *known == UNSEEN {
                    *known = encoder
                        .encode_field(a, sorted.text(a, rank).as_bytes(), count)
                        .map_err(unnumbered)?;
                    if let Some(taken) = taken.get_mut(a) {
                        let c = *known as usize;
                        if taken.len() <= c {
                            taken.resize(c + 1, false);
                        }
                        one_to_one &= !std::mem::replace(&mut taken[c], true);
                    }
                } else {
                    encoder.recount(a, *known, count);
                }
                *code = *known;
            }
            if one_to_one {
                tuples.push_sorted_n(&codes[..nq], count);
            } else {
                tuples.push_n(&codes[..nq], count);
            }
            for (col, &c) in sens.iter_mut().zip(&codes[nq..]) {
                col.extend(std::iter::repeat_n(c, count as usize));
            }
            Ok(())
        })?;
        // The release's map: each text the plans showed -> its code.
        let raw: Vec<FxHashMap<String, u32>> = code_of[..nq]
            .iter()
            .enumerate()
            .map(|(q, by_rank)| {
                by_rank
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| c != UNSEEN)
                    .map(|(rank, &c)| (sorted.text(q, rank as u32).to_string(), c))
                    .collect()
            })
            .collect();
        drop(sorted);
        drop(batches);
        self.spilled = spilled_bytes(plan.as_ref());
        observer.finish();
        crate::io::test_pause("ANONBOX_TEST_ENGINE_DELAY_MS", "frequency set");
        self.raw = raw;
        let encoding = encoder.finish();
        let summary = LoadSummary {
            stats,
            header,
            width,
            bytes_read: bytes,
        };
        let table = crate::data::load::finish_table(tuples, &encoding, sens);
        Ok((table, encoding, summary))
    }

    /// (b) The release of `rewrite` over `job`'s input, written to its output through
    /// `publication` (see the module docs). `records`: the load's count, checked.
    pub fn release(
        &mut self,
        job: &Job,
        publication: &Publication,
        records: u64,
        rewrite: &Rewrite,
        encoding: &Encoding,
        progress: &Progress,
    ) -> Result<()> {
        let Some(out) = &job.output else {
            return Ok(());
        };
        let input = &job.input.path;
        let format = job.input.format()?;
        let label_type = match out.columnar {
            Some(kind) => {
                use crate::output::columnar::{dictionary_labels, label_type};
                label_type(dictionary_labels(kind, false))
            }
            None => DataType::Utf8,
        };
        let udf = release_udf(&self.raw, rewrite, encoding, input)?;
        if out.folder {
            // Parts: every partition of one plan over the whole input, on every core.
            let kind = out.columnar.unwrap_or(Kind::Parquet);
            let df = self.release_frame(&self.ctx, input, job, &format, &udf, &label_type)?;
            return self.release_parts(df, input, &out.path, kind, publication, records, progress);
        }
        // A data set folder: one plan a file, in path order (the partitions of one plan keep
        // the order of one file's byte ranges, not of several files).
        let targets: Vec<PathBuf> = match format.columnar_source() {
            Some(Columnar::File(kind)) if input.is_dir() => dataset_files(input, Some(*kind))?,
            _ => vec![input.to_path_buf()],
        };
        type Batch = datafusion::error::Result<RecordBatch>;
        type Parts = Vec<tokio::sync::mpsc::Receiver<Batch>>;
        // The release plan of one file: each partition read ahead by its own task.
        let parts = |target: &Path| -> Result<(SchemaRef, Parts)> {
            let err = |e| df_err(target, e);
            let df = self.release_frame(&self.ordered, target, job, &format, &udf, &label_type)?;
            let (plan, task) = self.plan(df, target)?;
            let partitions = {
                let _runtime = self.runtime.enter();
                datafusion::physical_plan::execute_stream_partitioned(plan, task).map_err(err)?
            };
            let schema: SchemaRef = match partitions.first() {
                Some(p) => p.schema(),
                None => {
                    return Err(Error::in_file(
                        target,
                        "DataFusion: the scan has no partition",
                    ))
                }
            };
            let mut ahead = Vec::with_capacity(partitions.len());
            for mut p in partitions {
                let (tx, rx) = tokio::sync::mpsc::channel::<Batch>(PREFETCH);
                self.runtime.spawn(async move {
                    while let Some(b) = p.next().await {
                        if tx.send(b).await.is_err() {
                            break;
                        }
                    }
                });
                ahead.push(rx);
            }
            Ok((schema, ahead))
        };
        let next = |rx: &mut tokio::sync::mpsc::Receiver<Batch>| -> Result<Option<RecordBatch>> {
            match rx.blocking_recv() {
                None => Ok(None),
                Some(b) => b.map(Some).map_err(|e| df_err(input, e)),
            }
        };
        let (schema, first) = parts(&targets[0])?;
        let mut first = Some(first);
        let mut all = targets.iter().map(|t| match first.take() {
            Some(p) => Ok(p),
            None => parts(t).map(|(_, p)| p),
        });
        let mut bar = progress.rows("write", records);
        let mut file = publication.create(&out.path)?;
        let mut written = 0u64;
        match out.columnar {
            Some(kind) => {
                let mut w = BatchWriter::new(kind, file, schema.clone(), &out.path)?;
                for parts in &mut all {
                    for mut rx in parts? {
                        while let Some(batch) = next(&mut rx)? {
                            written += batch.num_rows() as u64;
                            w.write(&batch)?;
                            bar.tick(0, written);
                        }
                    }
                }
                file = w.finish()?;
            }
            None => {
                let mut w = format.writer(&mut file);
                let io_err = |e| Error::io(&out.path, e);
                // The header: the input's own line (or, from a columnar input, its names).
                let header = format.open(input)?.header().cloned();
                if let Some(h) = header {
                    for (i, f) in h.iter().enumerate() {
                        if !job.ids.contains(&i) {
                            w.field(f).map_err(io_err)?;
                        }
                    }
                    w.end_record().map_err(io_err)?;
                }
                for parts in &mut all {
                    for mut rx in parts? {
                        while let Some(batch) = next(&mut rx)? {
                            written += batch.num_rows() as u64;
                            let text: Vec<ArrayRef> =
                                batch.columns().iter().map(utf8).collect::<Result<_>>()?;
                            for row in 0..batch.num_rows() {
                                for c in &text {
                                    let s = c.as_string::<i32>();
                                    let v = if s.is_valid(row) { s.value(row) } else { "" };
                                    w.field(v.as_bytes()).map_err(io_err)?;
                                }
                                w.end_record().map_err(io_err)?;
                            }
                            bar.tick(0, written);
                        }
                    }
                }
            }
        }
        if written != records {
            return Err(changed(input, records, written));
        }
        bar.finish();
        file.commit()
    }

    /// The release's projection of `target` in `ctx`: the quasi-identifiers' labels from
    /// `udf`, the other columns as they are, the identifiers dropped.
    fn release_frame(
        &self,
        ctx: &SessionContext,
        target: &Path,
        job: &Job,
        format: &Format,
        udf: &ScalarUDF,
        label_type: &DataType,
    ) -> Result<DataFrame> {
        let err = |e| df_err(target, e);
        let Scan { mut df, names } = self.scan(ctx, target, format)?;
        if !job.input.keep_unknown {
            df = df.filter(!unknown(&names)).map_err(err)?;
        }
        let qids: Vec<usize> = job.qids.iter().map(|q| q.index).collect();
        labelled(df, &names, &qids, &job.ids, udf, label_type).map_err(err)
    }

    /// (b) into a data set folder: every partition of the release's plan written as a part
    /// where it runs ([`super::parts`]), then adopted into `folder` in partition order; `input`
    /// is named if the rows do not add up to the load's.
    #[allow(clippy::too_many_arguments)]
    fn release_parts(
        &self,
        df: DataFrame,
        input: &Path,
        folder: &Path,
        kind: Kind,
        publication: &Publication,
        records: u64,
        progress: &Progress,
    ) -> Result<()> {
        let err = |e| df_err(folder, e);
        let mut parts = PartsFolder::open(publication, folder, kind)?;
        let staging = absolute(parts.staging()?);
        let bar = progress.rows("write", records);
        let (state, plan) = df.into_parts();
        let plan = WriteParts::new(plan, &staging, kind).map_err(err)?.plan();
        let (plan, task) = self.plan(DataFrame::new(state, plan), folder)?;
        let batches = self
            .runtime
            .block_on(datafusion::physical_plan::collect(plan, task))
            .map_err(err)?;
        let mut written = Vec::new();
        for b in &batches {
            let partition = b.column(0).as_primitive::<arrow::datatypes::UInt64Type>();
            let file = b.column(1).as_string::<i32>();
            let rows = b.column(2).as_primitive::<arrow::datatypes::UInt64Type>();
            for i in 0..b.num_rows() {
                written.push((partition.value(i), file.value(i).to_string(), rows.value(i)));
            }
        }
        written.sort();
        let rows: u64 = written.iter().map(|(_, _, r)| r).sum();
        if rows != records {
            return Err(changed(input, records, rows));
        }
        for (n, (_, file, _)) in written.iter().enumerate() {
            parts.adopt(n, file)?;
        }
        bar.finish();
        parts.finish(written.len())
    }
}

/// The error of a release of `written` records where the load counted `records`; `path` names
/// it.
fn changed(path: &Path, records: u64, written: u64) -> Error {
    Error::in_file(
        path,
        format!(
            "the input changed during the run (it had {records} records when loaded, the \
             release has {written})"
        ),
    )
}

/// `df` (columns `names`) with the columns at `qids` replaced by their labels from `udf` (in
/// `label_type`), the other columns as they are, the identifiers (`ids`) dropped.
fn labelled(
    mut df: DataFrame,
    names: &[String],
    qids: &[usize],
    ids: &[usize],
    udf: &ScalarUDF,
    label_type: &DataType,
) -> datafusion::error::Result<DataFrame> {
    // The columns as they are: the function takes texts, integers and dictionaries, and has
    // anything else cast to text.
    let args = qids.iter().map(|&i| column(&names[i])).collect();
    let mut select = Vec::with_capacity(names.len() + 1);
    select.push(udf.call(args).alias("__labels"));
    select.extend(names.iter().map(|n| column(n)));
    df = df.select(select)?;
    // The struct's fields as columns (`__labels.l0`, ...). Reading them with `get_field`
    // instead let the optimizers push each field access down into the projection that calls
    // the function, which then ran once a quasi-identifier, not once a batch.
    df = df.unnest_columns(&["__labels"])?;
    let mut qid_of: Vec<Option<usize>> = vec![None; names.len()];
    for (j, &i) in qids.iter().enumerate() {
        qid_of[i] = Some(j);
    }
    let mut select = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if ids.contains(&i) {
            continue;
        }
        select.push(match qid_of[i] {
            Some(j) => cast(column(&format!("__labels.l{j}")), label_type.clone()).alias(name),
            None => column(name).alias(name),
        });
    }
    df.select(select)
}

/// A scan: the DataFrame and its column names by index.
struct Scan {
    df: DataFrame,
    names: Vec<String>,
}

/// True if the delimited file at `path` holds no quote (`"`), read on `threads` threads side
/// by side: no value can then hold a line break, and the scans may split the file into byte
/// ranges, each starting after a line break, read on every core (on a cluster, by every
/// executor). A file with a quote is read as one range: a line break may sit inside a value.
/// Anything but a regular file, or a read error, counts as quoted (the scan reports the error).
fn unquoted(path: &Path, threads: usize) -> bool {
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let len = match file.metadata() {
        Ok(m) if m.is_file() => m.len(),
        _ => return false,
    };
    let quoted = AtomicBool::new(false);
    let per = len.div_ceil(threads.max(1) as u64).max(1);
    std::thread::scope(|scope| {
        for start in (0..len).step_by(per as usize) {
            let (file, quoted) = (&file, &quoted);
            scope.spawn(move || {
                let end = (start + per).min(len);
                let mut buf = vec![0u8; 1 << 20];
                let mut at = start;
                while at < end && !quoted.load(Ordering::Relaxed) {
                    let want = ((end - at) as usize).min(buf.len());
                    match file.read_at(&mut buf[..want], at) {
                        Ok(0) => break,
                        Ok(n) if memchr::memchr(b'"', &buf[..n]).is_none() => at += n as u64,
                        _ => {
                            quoted.store(true, Ordering::Relaxed);
                            break;
                        }
                    }
                }
            });
        }
    });
    !quoted.load(Ordering::Relaxed)
}

/// `path` made absolute (DataFusion reads URLs).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Bytes spilled by every operator of `plan`.
fn spilled_bytes(plan: &dyn ExecutionPlan) -> usize {
    plan.metrics().and_then(|m| m.spilled_bytes()).unwrap_or(0)
        + plan
            .children()
            .into_iter()
            .map(|c| spilled_bytes(c.as_ref()))
            .sum::<usize>()
}

/// The column `name` (never parsed: a dot or a capital is part of the name).
fn column(name: &str) -> Expr {
    Expr::Column(datafusion::common::Column::new_unqualified(name))
}

/// A column's text as the embedded reader reads it: arrow's cast to a string, null as empty.
fn text(name: &str) -> Expr {
    coalesce(vec![cast(column(name), DataType::Utf8), lit("")])
}

/// True where some column's text holds `?` (the toolbox's unknown value).
fn unknown(names: &[String]) -> Expr {
    names
        .iter()
        .map(|n| text(n).like(lit("%?%")))
        .reduce(Expr::or)
        .unwrap_or(lit(false))
}

/// A column as a `Utf8` array.
fn utf8(a: &ArrayRef) -> Result<ArrayRef> {
    crate::io::columnar::reader::text_column(a).map_err(Error::Invalid)
}

/// A line number the frequency set does not know (0) dropped from a load error.
fn unnumbered(e: Error) -> Error {
    match e {
        Error::Input {
            file,
            line: Some(0),
            field,
            message,
        } => Error::Input {
            file,
            line: None,
            field,
            message,
        },
        e => e,
    }
}

/// The release's function of `rewrite` ([`ReleaseFn`]): each quasi-identifier's texts (as the
/// frequency set saw them) -> their generalized ids at `rewrite`'s levels, each id's label, and
/// the suppressed classes; or, for a partition, the texts -> their leaf codes, each tuple's
/// class, and each class's labels.
fn release_udf(
    raw: &[FxHashMap<String, u32>],
    rewrite: &Rewrite,
    encoding: &Encoding,
    input: &Path,
) -> Result<ScalarUDF> {
    let input = input.display().to_string();
    let (levels, suppressed) = match rewrite {
        Rewrite::Levels { levels, suppressed } => (levels, suppressed),
        Rewrite::Classes(c) => {
            let labels = (0..raw.len())
                .map(|q| c.labels.iter().map(|row| row[q].clone()).collect())
                .collect();
            let udf = ReleaseFn::of_partition(input, raw.to_vec(), labels, c.tuples.clone());
            return Ok(udf.udf());
        }
    };
    let ids: Vec<FxHashMap<String, u32>> = raw
        .iter()
        .zip(&encoding.qids)
        .zip(levels)
        .map(|((m, q), &l)| {
            m.iter()
                .map(|(v, &c)| (v.clone(), q.hierarchy.get(c, l)))
                .collect()
        })
        .collect();
    let labels: Vec<Vec<String>> = encoding
        .qids
        .iter()
        .zip(levels)
        .map(|(q, &l)| {
            (0..q.hierarchy.width(l))
                .map(|id| q.hierarchy.label(l, id as u32).to_string())
                .chain(std::iter::once(q.suppressed.clone()))
                .collect()
        })
        .collect();
    let suppressed: FxHashSet<Vec<u32>> = suppressed.iter().cloned().collect();
    Ok(ReleaseFn::new(input, ids, labels, suppressed).udf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::release_fn::NAME;
    use arrow::array::{Int64Array, StringArray};

    /// A delimited file is scanned in byte ranges, one a thread, unless it holds a quote
    /// anywhere (the first byte, the last, at a thread's boundary): then in one range.
    #[test]
    fn only_unquoted_text_is_scanned_in_ranges() {
        let dir = tempfile::tempdir().unwrap();
        let cleanup = Cleanup::default();
        let params = Params {
            threads: 4,
            memory_limit: None,
            cluster: None,
        };
        let session = Session::new(&params, &cleanup).unwrap();
        let format = Format::new(";", true).unwrap();
        let mut text = String::from("a;b\n");
        for i in 0..200_000 {
            text += &format!("{i};x\n");
        }
        let len = text.len();
        let plain = dir.path().join("plain.csv");
        std::fs::write(&plain, &text).unwrap();
        let mut cases = vec![(plain, 4)];
        for at in [4, len / 4, len / 2, len - 2] {
            let mut bytes = text.clone().into_bytes();
            bytes[at] = b'"';
            let path = dir.path().join(format!("quoted-{at}.csv"));
            std::fs::write(&path, bytes).unwrap();
            cases.push((path, 1));
        }
        for (path, ranges) in cases {
            assert_eq!(unquoted(&path, 4), ranges > 1, "{path:?}");
            let scan = session.scan(&session.ctx, &path, &format).unwrap();
            let plan = session
                .runtime
                .block_on(scan.df.create_physical_plan())
                .unwrap();
            assert_eq!(
                plan.properties().partitioning.partition_count(),
                ranges,
                "{path:?}"
            );
        }
        assert!(!unquoted(&dir.path().join("missing.csv"), 4));
        assert!(!unquoted(dir.path(), 4));
    }

    /// The release's projection as DataFusion optimizes and runs it: the function is called
    /// once (not once a quasi-identifier: a field access pushed down into its projection did
    /// that), an integer column maps by its value, the identifier is dropped and the other
    /// column kept.
    #[test]
    fn the_release_function_runs_once_a_batch() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("name", DataType::Utf8, false),
            Field::new("age", DataType::Int64, true),
            Field::new("sex", DataType::Utf8, true),
            Field::new("note", DataType::Utf8, false),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(StringArray::from(vec!["ann", "bob", "cy"])),
                Arc::new(Int64Array::from(vec![Some(30), Some(41), None])),
                Arc::new(StringArray::from(vec![Some("f"), Some("m"), None])),
                Arc::new(StringArray::from(vec!["x", "y", "z"])),
            ],
        )
        .unwrap();
        let map = |pairs: &[(&str, u32)]| -> FxHashMap<String, u32> {
            pairs.iter().map(|&(t, id)| (t.to_string(), id)).collect()
        };
        let udf = ReleaseFn::new(
            "in.parquet".into(),
            vec![
                map(&[("30", 0), ("41", 1), ("", 1)]),
                map(&[("f", 0), ("m", 1), ("", 1)]),
            ],
            vec![
                vec!["<40".into(), ">=40".into(), "*".into()],
                vec!["f".into(), "other".into(), "*".into()],
            ],
            FxHashSet::default(),
        )
        .udf();
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
        let table = datafusion::datasource::MemTable::try_new(schema, vec![vec![batch]]).unwrap();
        let df = ctx.read_table(Arc::new(table)).unwrap();
        let names: Vec<String> = ["name", "age", "sex", "note"].map(String::from).into();
        let df = labelled(df, &names, &[1, 2], &[0], &udf, &DataType::Utf8).unwrap();
        let rt = tokio::runtime::Runtime::new().unwrap();
        let plan = rt.block_on(df.clone().create_physical_plan()).unwrap();
        let shown = datafusion::physical_plan::displayable(plan.as_ref())
            .indent(true)
            .to_string();
        assert_eq!(shown.matches(NAME).count(), 1, "{shown}");
        let out = rt.block_on(df.collect()).unwrap();
        let rows: Vec<Vec<String>> = out
            .iter()
            .flat_map(|b| {
                let cols: Vec<ArrayRef> = b.columns().iter().map(|c| utf8(c).unwrap()).collect();
                (0..b.num_rows())
                    .map(move |r| {
                        cols.iter()
                            .map(|c| c.as_string::<i32>().value(r).to_string())
                            .collect()
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(
            rows,
            [
                ["<40", "f", "x"],
                [">=40", "other", "y"],
                [">=40", "other", "z"]
            ]
        );
    }
}
