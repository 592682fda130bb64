//! Columnar input and output: Parquet files, folders of Parquet files (a partitioned data set),
//! Arrow IPC files, and Arrow record batches held in memory (the library's source, for callers
//! such as a Python binding).
//!
//! Reading: a [`Columnar`] input is a sequence of Arrow record batches with one schema. The
//! `parquet` crate decodes a file one row group at a time and hands out batches of
//! [`BATCH_ROWS`] rows, so memory is bounded by a row group's pages and one batch, never by
//! the file. [`ColumnarReader`] turns batches into the rows the delimited reader hands out
//! ([`csv::ByteRecord`]s, each value in its text form: arrow's cast to a string, a null as an
//! empty field), so the load, the research subset and the delimited writers read a Parquet file
//! exactly as they read the same data as text, with the same checks and the same `?` rule.
//! Rows are numbered from 1 (errors name `file:ROW`). The schema is the header: attributes
//! are found by column name as in a delimited file with a header.
//!
//! Writing ([`writer`]): the release as Parquet (quasi-identifiers dictionary-encoded strings,
//! the other columns in the input's own types) or Arrow IPC (plain strings: an IPC file cannot
//! replace a dictionary between batches), one row group per [`writer::ROW_GROUP_ROWS`] rows.
//!
//! No format is written by hand: the `arrow` and `parquet` crates read and write every byte.

pub mod reader;
pub mod writer;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::RecordBatch;
use arrow::datatypes::{DataType, SchemaRef};

pub use reader::ColumnarReader;

use crate::{Error, Result};

/// Rows per batch read from a columnar input.
pub const BATCH_ROWS: usize = 8192;

/// A columnar file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Kind {
    Parquet,
    /// Arrow IPC, file format (`.arrow`, `.feather`, `.ipc`).
    Ipc,
}

impl Kind {
    /// The kind named by a `format` attribute or flag (`parquet`, `arrow`, `ipc`, `feather`).
    pub fn parse(name: &str) -> Option<Kind> {
        match name.trim().to_ascii_lowercase().as_str() {
            "parquet" => Some(Kind::Parquet),
            "arrow" | "ipc" | "feather" => Some(Kind::Ipc),
            _ => None,
        }
    }

    /// The kind a file's extension says (any case), if any.
    pub fn of_path(path: &Path) -> Option<Kind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "parquet" | "parq" | "pq" => Some(Kind::Parquet),
            "arrow" | "feather" | "ipc" => Some(Kind::Ipc),
            _ => None,
        }
    }

    /// The kind of an input: its extension, else (a folder) the kind of the files in it.
    pub fn of_input(path: &Path) -> Option<Kind> {
        if path.is_dir() {
            return dataset_files(path, None)
                .ok()
                .and_then(|files| files.first().and_then(|f| Kind::of_path(f)));
        }
        Kind::of_path(path)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Parquet => "Parquet",
            Kind::Ipc => "Arrow IPC",
        }
    }
}

/// Record batches in memory: an input that is no file (the library's callers). Cloning shares
/// them; each pass over the input reads them again.
#[derive(Clone)]
pub struct Batches {
    pub schema: SchemaRef,
    pub batches: Arc<Vec<RecordBatch>>,
}

impl Batches {
    /// Batches of one schema (each batch's must be `schema`).
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Result<Batches> {
        if let Some(b) = batches
            .iter()
            .find(|b| b.schema().fields() != schema.fields())
        {
            return Err(Error::Invalid(format!(
                "a record batch's schema ({}) is not the table's ({})",
                b.schema(),
                schema
            )));
        }
        Ok(Batches {
            schema,
            batches: Arc::new(batches),
        })
    }

    /// Rows in all batches.
    pub fn rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }
}

impl fmt::Debug for Batches {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Batches({} batches, {} rows)",
            self.batches.len(),
            self.rows()
        )
    }
}

impl PartialEq for Batches {
    fn eq(&self, other: &Batches) -> bool {
        Arc::ptr_eq(&self.batches, &other.batches)
    }
}

impl Eq for Batches {}

/// A release held in memory (the library's output, no file): the batches the columnar writer
/// would have written (quasi-identifiers as plain strings, the other columns in the input's
/// types), and for each released row whether it was suppressed (known for full-domain results
/// held in memory; `false` otherwise). Cloning shares it: the run fills it, its caller takes it.
#[derive(Clone, Default)]
pub struct Sink(Arc<std::sync::Mutex<Collected>>);

/// What a [`Sink`] collected.
#[derive(Default)]
pub struct Collected {
    pub schema: Option<SchemaRef>,
    pub batches: Vec<RecordBatch>,
    pub suppressed: Vec<bool>,
}

impl Sink {
    /// Starts a release of `schema` (anything collected before is dropped).
    pub fn start(&self, schema: SchemaRef) {
        *crate::sync::lock(&self.0) = Collected {
            schema: Some(schema),
            ..Collected::default()
        };
    }

    /// Appends a batch.
    pub fn push(&self, batch: RecordBatch) {
        crate::sync::lock(&self.0).batches.push(batch);
    }

    /// Appends the suppression marks of released rows.
    pub fn mark(&self, suppressed: &[bool]) {
        crate::sync::lock(&self.0)
            .suppressed
            .extend_from_slice(suppressed);
    }

    /// Takes what was collected, leaving the sink empty.
    pub fn take(&self) -> Collected {
        std::mem::take(&mut *crate::sync::lock(&self.0))
    }
}

impl fmt::Debug for Sink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sink")
    }
}

impl PartialEq for Sink {
    fn eq(&self, other: &Sink) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Sink {}

/// Where columnar rows come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Columnar {
    /// A file, or a folder of files of this kind (read in path order).
    File(Kind),
    /// Record batches in memory.
    Memory(Batches),
}

impl Columnar {
    /// What messages call the input's format.
    pub fn name(&self) -> &'static str {
        match self {
            Columnar::File(k) => k.name(),
            Columnar::Memory(_) => "Arrow",
        }
    }
}

/// The files of a data set folder (any depth, `col=value` partition folders included), of
/// `kind` (or of the first columnar kind found), in path order. Hidden files and files starting
/// with `_` (`_SUCCESS`, `_metadata`) are not data.
pub fn dataset_files(dir: &Path, kind: Option<Kind>) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| Error::io(&d, e))?;
        for e in entries {
            let e = e.map_err(|e| Error::io(&d, e))?;
            let name = e.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name.starts_with('_') {
                continue;
            }
            let p = e.path();
            let ft = e.file_type().map_err(|e| Error::io(&p, e))?;
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                if let Some(k) = Kind::of_path(&p) {
                    if kind.is_none_or(|want| want == k) {
                        files.push(p);
                    }
                }
            }
        }
    }
    files.sort();
    if let (Some(first), None) = (files.first().and_then(|f| Kind::of_path(f)), kind) {
        files.retain(|f| Kind::of_path(f) == Some(first));
    }
    Ok(files)
}

/// Whether a column of this type can be an attribute: anything with a text form (numbers,
/// strings, dates, times, decimals, booleans, dictionaries of those), not nested values.
pub fn usable(t: &DataType) -> bool {
    match t {
        DataType::List(_)
        | DataType::LargeList(_)
        | DataType::ListView(_)
        | DataType::LargeListView(_)
        | DataType::FixedSizeList(..)
        | DataType::Struct(_)
        | DataType::Map(..)
        | DataType::Union(..)
        | DataType::RunEndEncoded(..) => false,
        DataType::Dictionary(_, v) => usable(v),
        t => arrow::compute::can_cast_types(t, &DataType::Utf8),
    }
}

/// The schema of a columnar input, read from its (first) file's footer without scanning.
pub fn schema(path: &Path, source: &Columnar) -> Result<SchemaRef> {
    reader::open_batches(path, source, None).map(|(schema, _)| schema)
}
