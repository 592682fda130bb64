//! genVals as a columnar file: the same rows as [`super::genvals`] (each kept row in input
//! order, quasi-identifiers replaced by their labels, identifier columns removed), written as
//! Parquet or Arrow IPC ([`crate::io::columnar`]).
//!
//! Quasi-identifiers are strings, dictionary-encoded in Parquet (a release has few distinct
//! labels). The other columns keep their types: from a columnar input each batch's own arrays
//! are filtered and written as they are (an `Int64` stays one); from delimited text they are
//! the fields as read, as strings. The writer re-reads the input batch by batch beside the
//! [`LabelSource`], as genVals re-reads rows, so memory holds one batch and one row group.
//!
//! The same batches go to a [`Sink`] instead of a file for the library's in-memory release
//! ([`crate::api`]): one writer, so the release in memory is the file's row for row.

use std::path::Path;
use std::sync::Arc;

use arrow::array::{ArrayRef, BooleanArray, RecordBatch, StringBuilder, StringDictionaryBuilder};
use arrow::datatypes::{DataType, Field, Int32Type, Schema, SchemaRef};
use csv::ByteRecord;

use super::{LabelRow, LabelSource};
use crate::io::columnar::reader::{open_batches, text_column, BatchIter};
use crate::io::columnar::writer::BatchWriter;
use crate::io::columnar::{Kind, Sink, BATCH_ROWS};
use crate::io::Publication;
use crate::job::Job;
use crate::progress::Progress;
use crate::{Error, Result};

/// Whether a release's quasi-identifier labels are dictionary-encoded: in Parquet and in memory
/// (each distinct label once per batch, a 4-byte key per row: the release in memory takes about
/// a third of the plain strings' room on ADULT), not in an Arrow IPC file, whose dictionaries
/// cannot change from one batch to the next.
pub(crate) fn dictionary_labels(kind: Kind, in_memory: bool) -> bool {
    in_memory || kind == Kind::Parquet
}

/// The label column type of a quasi-identifier (see [`dictionary_labels`]).
pub(crate) fn label_type(dictionary: bool) -> DataType {
    if dictionary {
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
    } else {
        DataType::Utf8
    }
}

/// One quasi-identifier's labels for the batch being built.
enum Labels {
    Dictionary(StringDictionaryBuilder<Int32Type>),
    Plain(StringBuilder),
}

impl Labels {
    fn new(dictionary: bool) -> Labels {
        if dictionary {
            Labels::Dictionary(StringDictionaryBuilder::new())
        } else {
            Labels::Plain(StringBuilder::new())
        }
    }

    fn push(&mut self, label: &[u8], target: &Path) -> Result<()> {
        let s = std::str::from_utf8(label)
            .map_err(|_| Error::in_file(target, "a label is not UTF-8"))?;
        match self {
            Labels::Dictionary(b) => {
                b.append_value(s);
            }
            Labels::Plain(b) => b.append_value(s),
        }
        Ok(())
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Labels::Dictionary(b) => Arc::new(b.finish()),
            Labels::Plain(b) => Arc::new(b.finish()),
        }
    }
}

/// What each input column becomes: dropped (an identifier), a quasi-identifier's labels, or
/// kept as it is.
#[derive(Clone, Copy)]
enum Role {
    Dropped,
    Qid(usize),
    Kept,
}

fn roles(job: &Job, width: usize) -> Vec<Role> {
    let mut roles = vec![Role::Kept; width];
    for (q, qid) in job.qids.iter().enumerate() {
        if qid.index < width {
            roles[qid.index] = Role::Qid(q);
        }
    }
    for &i in &job.ids {
        if i < width {
            roles[i] = Role::Dropped;
        }
    }
    roles
}

/// Writes genVals for `job` to `out` as a `kind` file, staged in `publication`, or into its
/// [`Sink`] (`out.memory`); `records` is how many kept rows the load saw.
pub fn write(
    publication: &Publication,
    job: &Job,
    out: &crate::job::OutputSpec,
    kind: Kind,
    records: u64,
    labels: &mut dyn LabelSource,
    progress: &Progress,
) -> Result<()> {
    let (target, sink) = (out.path.as_path(), out.memory.as_ref());
    let dictionary = dictionary_labels(kind, sink.is_some());
    let mut file = match sink {
        Some(_) => None,
        None => Some(publication.create(target)?),
    };
    let mut open = |schema: SchemaRef| -> Result<Out> {
        match (sink, file.take()) {
            (Some(sink), _) => {
                sink.start(schema);
                Ok(Out::Memory(sink.clone()))
            }
            (None, Some(file)) => Ok(Out::File(Box::new(BatchWriter::new(
                kind, file, schema, target,
            )?))),
            (None, None) => unreachable!("one release per write"),
        }
    };
    let mut bar = progress.rows("write", records);
    let out = match &job.input.columnar {
        Some(source) => {
            let (schema, batches) = open_batches(&job.input.path, source, None)?;
            let roles = roles(job, schema.fields().len());
            let out_schema = output_schema(&schema, &roles, dictionary);
            let mut w = open(out_schema.clone())?;
            let mut state = FromBatches {
                batches,
                batch: None,
                kept: Vec::new(),
                released: Vec::new(),
                next: 0,
                labels: job.qids.iter().map(|_| Labels::new(dictionary)).collect(),
                roles,
                schema: out_schema,
                keep_unknown: job.input.keep_unknown,
                input: &job.input.path,
            };
            let mut n = 0u64;
            labels.for_each_record(&mut |row: &LabelRow| {
                state.row(row, &mut w, target)?;
                n += 1;
                bar.tick(0, n);
                Ok(())
            })?;
            state.flush(&mut w)?;
            if n != records || state.more()? {
                return Err(changed(&job.input.path, records));
            }
            w.finish()?
        }
        None => {
            let format = job.input.format()?;
            let mut reader = format.open(&job.input.path)?;
            let width = reader
                .header()
                .map(|h| h.len())
                .unwrap_or_else(|| super::genvals::max_index(job) + 1);
            let roles = roles(job, width);
            let names: Vec<String> = (0..width)
                .map(|i| match reader.header() {
                    Some(h) => String::from_utf8_lossy(&h[i]).into_owned(),
                    None => format!("att{i}"),
                })
                .collect();
            let fields: Vec<Field> = (0..width)
                .filter_map(|i| match roles[i] {
                    Role::Dropped => None,
                    Role::Qid(_) => Some(Field::new(&names[i], label_type(dictionary), false)),
                    Role::Kept => Some(Field::new(&names[i], DataType::Utf8, false)),
                })
                .collect();
            let schema: SchemaRef = Arc::new(Schema::new(fields));
            let mut w = open(schema.clone())?;
            let mut text: Vec<StringBuilder> = Vec::new();
            let mut qid: Vec<Labels> = job.qids.iter().map(|_| Labels::new(dictionary)).collect();
            let kept_cols = roles.iter().filter(|r| matches!(r, Role::Kept)).count();
            text.resize_with(kept_cols, StringBuilder::new);
            let mut rec = ByteRecord::new();
            let mut n = 0u64;
            let mut in_batch = 0usize;
            labels.for_each_record(&mut |row: &LabelRow| {
                if !reader.next_row(&mut rec)? {
                    return Err(changed(&job.input.path, records));
                }
                n += 1;
                bar.tick(0, n);
                if row.is_omitted() {
                    return Ok(());
                }
                w.mark(row.is_suppressed());
                let mut t = 0;
                for (i, f) in rec.iter().enumerate() {
                    match roles.get(i).copied().unwrap_or(Role::Dropped) {
                        Role::Dropped => {}
                        Role::Qid(q) => qid[q].push(row.get(q), target)?,
                        Role::Kept => {
                            let s = std::str::from_utf8(f).map_err(|_| {
                                Error::at(
                                    &job.input.path,
                                    reader.line(),
                                    None,
                                    "a field is not UTF-8",
                                )
                            })?;
                            text[t].append_value(s);
                            t += 1;
                        }
                    }
                }
                in_batch += 1;
                if in_batch == BATCH_ROWS {
                    in_batch = 0;
                    w.write(&text_batch(&schema, &roles, &mut qid, &mut text)?)?;
                }
                Ok(())
            })?;
            if in_batch > 0 {
                w.write(&text_batch(&schema, &roles, &mut qid, &mut text)?)?;
            }
            if n != records || reader.next_row(&mut rec)? {
                return Err(changed(&job.input.path, records));
            }
            w.finish()?
        }
    };
    bar.finish();
    match out {
        Some(file) => file.commit(),
        None => Ok(()),
    }
}

/// Where the release's batches go: a file, or memory.
enum Out {
    File(Box<BatchWriter<crate::io::AtomicFile>>),
    Memory(Sink),
}

impl Out {
    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            Out::File(w) => w.write(batch),
            Out::Memory(sink) => {
                sink.push(batch.clone());
                Ok(())
            }
        }
    }

    /// Notes whether the next released row is suppressed (kept in memory only).
    fn mark(&mut self, suppressed: bool) {
        if let Out::Memory(sink) = self {
            sink.mark(&[suppressed]);
        }
    }

    fn finish(self) -> Result<Option<crate::io::AtomicFile>> {
        match self {
            Out::File(w) => (*w).finish().map(Some),
            Out::Memory(_) => Ok(None),
        }
    }
}

/// The release's schema: the input's columns without identifiers, quasi-identifiers as labels.
fn output_schema(input: &Schema, roles: &[Role], dictionary: bool) -> SchemaRef {
    let fields: Vec<Field> = input
        .fields()
        .iter()
        .zip(roles)
        .filter_map(|(f, r)| match r {
            Role::Dropped => None,
            Role::Qid(_) => Some(Field::new(f.name(), label_type(dictionary), false)),
            Role::Kept => Some(f.as_ref().clone()),
        })
        .collect();
    Arc::new(Schema::new(fields))
}

fn text_batch(
    schema: &SchemaRef,
    roles: &[Role],
    qid: &mut [Labels],
    text: &mut [StringBuilder],
) -> Result<RecordBatch> {
    let mut cols: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    let mut t = 0;
    for r in roles {
        match r {
            Role::Dropped => {}
            Role::Qid(q) => cols.push(qid[*q].finish()),
            Role::Kept => {
                cols.push(Arc::new(text[t].finish()));
                t += 1;
            }
        }
    }
    RecordBatch::try_new(schema.clone(), cols).map_err(|e| Error::Invalid(e.to_string()))
}

/// The state of a columnar input read beside the labels: the current batch, which of its rows
/// are kept (not skipped for `?`) and released (not omitted), and the labels gathered.
struct FromBatches<'a> {
    batches: BatchIter,
    batch: Option<RecordBatch>,
    kept: Vec<bool>,
    released: Vec<bool>,
    next: usize,
    labels: Vec<Labels>,
    roles: Vec<Role>,
    schema: SchemaRef,
    keep_unknown: bool,
    input: &'a Path,
}

impl FromBatches<'_> {
    /// Pairs the next kept input row with `row`.
    fn row(&mut self, row: &LabelRow, w: &mut Out, target: &Path) -> Result<()> {
        loop {
            let len = self.batch.as_ref().map_or(0, RecordBatch::num_rows);
            while self.next < len && !self.kept[self.next] {
                self.next += 1;
            }
            if self.next < len {
                break;
            }
            self.flush(w)?;
            let Some(b) = self.batches.next() else {
                return Err(Error::in_file(
                    self.input,
                    "the input changed during the run (it has fewer rows than when loaded)",
                ));
            };
            self.start(b?)?;
        }
        let i = self.next;
        self.next += 1;
        if row.is_omitted() {
            return Ok(());
        }
        self.released[i] = true;
        w.mark(row.is_suppressed());
        for (q, l) in self.labels.iter_mut().enumerate() {
            l.push(row.get(q), target)?;
        }
        Ok(())
    }

    /// Takes a new batch: which rows the load kept (the `?` rule on their text).
    fn start(&mut self, batch: RecordBatch) -> Result<()> {
        let n = batch.num_rows();
        self.kept = vec![true; n];
        if !self.keep_unknown {
            for col in batch.columns() {
                let text = text_column(col).map_err(|m| Error::in_file(self.input, m))?;
                let s = arrow::array::AsArray::as_string::<i32>(&text);
                for (i, k) in self.kept.iter_mut().enumerate() {
                    if *k && arrow::array::Array::is_valid(s, i) && s.value(i).contains('?') {
                        *k = false;
                    }
                }
            }
        }
        self.released = vec![false; n];
        self.next = 0;
        self.batch = Some(batch);
        Ok(())
    }

    /// Writes the released rows of the current batch.
    fn flush(&mut self, w: &mut Out) -> Result<()> {
        let Some(batch) = self.batch.take() else {
            return Ok(());
        };
        let mask = BooleanArray::from(std::mem::take(&mut self.released));
        let mut cols: Vec<ArrayRef> = Vec::with_capacity(self.schema.fields().len());
        for (col, r) in batch.columns().iter().zip(&self.roles) {
            match r {
                Role::Dropped => {}
                Role::Qid(q) => cols.push(self.labels[*q].finish()),
                Role::Kept => cols.push(
                    arrow::compute::filter(col, &mask)
                        .map_err(|e| Error::Invalid(e.to_string()))?,
                ),
            }
        }
        let out = RecordBatch::try_new(self.schema.clone(), cols)
            .map_err(|e| Error::Invalid(e.to_string()))?;
        if out.num_rows() > 0 {
            w.write(&out)?;
        }
        Ok(())
    }

    /// True if kept rows remain in the input.
    fn more(&mut self) -> Result<bool> {
        if self.next < self.kept.len() && self.kept[self.next..].iter().any(|&k| k) {
            return Ok(true);
        }
        while let Some(b) = self.batches.next() {
            self.start(b?)?;
            if self.kept.iter().any(|&k| k) {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

fn changed(input: &Path, records: u64) -> Error {
    Error::in_file(
        input,
        format!("the input changed during the run (it had {records} records when loaded)"),
    )
}
