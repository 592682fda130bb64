//! Columnar rows: batches from a Parquet file, a data set folder, an Arrow IPC file or memory,
//! handed out one [`ByteRecord`] at a time (see the module docs of [`super`]).

use std::fs::File;
use std::path::{Path, PathBuf};

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use arrow::datatypes::{DataType, SchemaRef};
use csv::ByteRecord;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;

use super::{dataset_files, Columnar, Kind, BATCH_ROWS};
use crate::io::ReadStats;
use crate::{Error, Result};

/// A stream of record batches of one schema.
pub type BatchIter = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// A corrupt or unreadable columnar file: a data error (exit 1) wherever it is found.
pub fn corrupt(path: &Path, kind: &str, e: impl std::fmt::Display) -> Error {
    Error::Corrupt {
        file: path.to_path_buf(),
        message: format!("not a readable {kind} file: {e}"),
    }
}

fn open_file(path: &Path) -> Result<File> {
    crate::io::source::open_regular(path).map_err(|e| Error::io(path, e))
}

thread_local! {
    /// This thread is decoding a file ([`guarded`]): a panic there is a damaged file, reported
    /// as an error, not printed.
    static DECODING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A file's batches, decoded with its decoder's panics caught: the `parquet` crate panics on
/// some damaged pages (a run-length count beyond its buffer), and a damaged file is a data
/// error (exit 1, nothing written), never a crash. After one, the stream ends.
fn guarded<I>(mut reader: I, path: PathBuf, kind: &'static str) -> BatchIter
where
    I: Iterator<Item = std::result::Result<RecordBatch, arrow::error::ArrowError>> + Send + 'static,
{
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !DECODING.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let mut failed = false;
    Box::new(std::iter::from_fn(move || {
        if failed {
            return None;
        }
        DECODING.with(|d| d.set(true));
        let next = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reader.next()));
        DECODING.with(|d| d.set(false));
        match next {
            Ok(b) => b.map(|b| b.map_err(|e| corrupt(&path, kind, e))),
            Err(_) => {
                failed = true;
                Some(Err(corrupt(
                    &path,
                    kind,
                    "a damaged page (its decoder gave up)",
                )))
            }
        }
    }))
}

/// One file's batches, with its schema; `columns`: read only these (by index), else all.
fn file_batches(
    path: &Path,
    kind: Kind,
    columns: Option<&[usize]>,
) -> Result<(SchemaRef, BatchIter)> {
    let file = open_file(path)?;
    let owned = path.to_path_buf();
    match kind {
        Kind::Parquet => {
            let builder = ParquetRecordBatchReaderBuilder::try_new(file)
                .map_err(|e| corrupt(path, "Parquet", e))?
                .with_batch_size(BATCH_ROWS);
            let mut schema = builder.schema().clone();
            let builder = match columns {
                Some(cols) => {
                    let mask =
                        ProjectionMask::roots(builder.parquet_schema(), cols.iter().copied());
                    schema = std::sync::Arc::new(
                        schema
                            .project(cols)
                            .map_err(|e| corrupt(path, "Parquet", e))?,
                    );
                    builder.with_projection(mask)
                }
                None => builder,
            };
            let reader = builder.build().map_err(|e| corrupt(path, "Parquet", e))?;
            Ok((schema, guarded(reader, owned, "Parquet")))
        }
        Kind::Ipc => {
            let reader = arrow::ipc::reader::FileReader::try_new(
                std::io::BufReader::new(file),
                columns.map(<[usize]>::to_vec),
            )
            .map_err(|e| corrupt(path, "Arrow IPC", e))?;
            let schema = reader.schema();
            Ok((schema, guarded(reader, owned, "Arrow IPC")))
        }
    }
}

/// The batches of a columnar input (a file, every file of a data set folder in path order, or
/// batches in memory) with its schema; `columns`: read only these. The files of a folder must
/// share the first one's schema.
pub fn open_batches(
    path: &Path,
    source: &Columnar,
    columns: Option<&[usize]>,
) -> Result<(SchemaRef, BatchIter)> {
    match source {
        Columnar::Memory(b) => {
            let schema = match columns {
                Some(c) => std::sync::Arc::new(
                    b.schema
                        .project(c)
                        .map_err(|e| Error::Invalid(e.to_string()))?,
                ),
                None => b.schema.clone(),
            };
            let batches = b.batches.clone();
            let cols = columns.map(<[usize]>::to_vec);
            let iter = (0..batches.len()).map(move |i| match &cols {
                Some(c) => batches[i]
                    .project(c)
                    .map_err(|e| Error::Invalid(e.to_string())),
                None => Ok(batches[i].clone()),
            });
            Ok((schema, Box::new(iter)))
        }
        Columnar::File(kind) if path.is_dir() => {
            let files = dataset_files(path, Some(*kind))?;
            let Some(first) = files.first() else {
                return Err(Error::in_file(
                    path,
                    format!("the folder holds no {} file", kind.name()),
                ));
            };
            let (schema, first_iter) = file_batches(first, *kind, columns)?;
            let kind = *kind;
            let want = schema.clone();
            let cols = columns.map(<[usize]>::to_vec);
            let rest = files[1..].to_vec();
            let later =
                rest.into_iter()
                    .flat_map(move |f| match file_batches(&f, kind, cols.as_deref()) {
                        Ok((s, it)) if s.fields() == want.fields() => it,
                        Ok((s, _)) => Box::new(std::iter::once(Err(Error::in_file(
                            &f,
                            format!(
                            "its schema differs from the data set's first file's: {} against {}",
                            s, want
                        ),
                        )))) as BatchIter,
                        Err(e) => Box::new(std::iter::once(Err(e))) as BatchIter,
                    });
            Ok((schema, Box::new(first_iter.chain(later))))
        }
        Columnar::File(kind) => file_batches(path, *kind, columns),
    }
}

/// Total rows of a columnar input, from its footers where it has them (progress only).
pub fn total_rows(path: &Path, source: &Columnar) -> Option<u64> {
    match source {
        Columnar::Memory(b) => Some(b.rows() as u64),
        Columnar::File(Kind::Parquet) => {
            let files = if path.is_dir() {
                dataset_files(path, Some(Kind::Parquet)).ok()?
            } else {
                vec![path.to_path_buf()]
            };
            let mut n = 0u64;
            for f in files {
                let b = ParquetRecordBatchReaderBuilder::try_new(open_file(&f).ok()?).ok()?;
                n += b.metadata().file_metadata().num_rows() as u64;
            }
            Some(n)
        }
        Columnar::File(Kind::Ipc) => None,
    }
}

/// The text form of every value of a column: arrow's cast to a string; nulls stay null (read
/// as empty fields).
pub fn text_column(column: &ArrayRef) -> std::result::Result<ArrayRef, String> {
    match column.data_type() {
        DataType::Utf8 => Ok(column.clone()),
        _ => arrow::compute::cast(column, &DataType::Utf8).map_err(|e| e.to_string()),
    }
}

/// Rows of a columnar input (see the module docs of [`super`]): the interface of the delimited
/// reader, so every reader of the input reads either.
pub struct ColumnarReader {
    path: PathBuf,
    header: ByteRecord,
    /// Where only some columns are read: each column's place among them.
    slots: Option<Vec<Option<usize>>>,
    batches: BatchIter,
    /// The current batch's columns as strings.
    text: Vec<ArrayRef>,
    /// The next row of the current batch, and its rows.
    next: usize,
    len: usize,
    stats: ReadStats,
    keep_unknown: bool,
    /// Rows handed out or skipped so far: the number of the last one read.
    row: u64,
    total_rows: Option<u64>,
    total_bytes: u64,
}

impl ColumnarReader {
    /// Opens a columnar input; `keep_unknown`: rows holding `?` are data (else skipped, as in
    /// delimited text). `columns`: only these are read (the others are empty fields of every
    /// row); all of them where rows holding `?` are skipped.
    pub fn open(
        path: &Path,
        source: &Columnar,
        keep_unknown: bool,
        columns: Option<&[usize]>,
    ) -> Result<ColumnarReader> {
        let (full, _) = open_batches(path, source, None)?;
        let mut columns: Option<Vec<usize>> = columns.filter(|_| keep_unknown).map(|c| {
            let mut c: Vec<usize> = c
                .iter()
                .copied()
                .filter(|&i| i < full.fields().len())
                .collect();
            c.sort_unstable();
            c.dedup();
            c
        });
        if columns
            .as_ref()
            .is_some_and(|c| c.len() == full.fields().len())
        {
            columns = None;
        }
        let (_, batches) = open_batches(path, source, columns.as_deref())?;
        let mut header = ByteRecord::new();
        for f in full.fields() {
            header.push_field(f.name().as_bytes());
        }
        let slots = columns.map(|c| {
            let mut slots = vec![None; full.fields().len()];
            for (k, &i) in c.iter().enumerate() {
                slots[i] = Some(k);
            }
            slots
        });
        Ok(ColumnarReader {
            path: path.to_path_buf(),
            header,
            slots,
            batches,
            text: Vec::new(),
            next: 0,
            len: 0,
            stats: ReadStats::default(),
            keep_unknown,
            row: 0,
            total_rows: total_rows(path, source),
            total_bytes: crate::io::input_size(path),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The column names.
    pub fn header(&self) -> Option<&ByteRecord> {
        Some(&self.header)
    }

    pub fn width(&self) -> Option<usize> {
        Some(self.header.len())
    }

    /// The number of the last row returned (from 1).
    pub fn line(&self) -> u64 {
        self.row
    }

    /// The share of the input's bytes the rows read so far stand for (progress).
    pub fn bytes_read(&self) -> u64 {
        match self.total_rows {
            Some(n) if n > 0 => (self.total_bytes as f64 * self.row as f64 / n as f64) as u64,
            _ => 0,
        }
    }

    pub fn stats(&self) -> ReadStats {
        self.stats
    }

    /// Reads the next row into `rec` (`false` at the end), skipping rows holding `?` unless
    /// they are kept.
    pub fn next_row(&mut self, rec: &mut ByteRecord) -> Result<bool> {
        loop {
            while self.next >= self.len {
                let Some(batch) = self.batches.next() else {
                    return Ok(false);
                };
                let batch = batch?;
                self.text = batch
                    .columns()
                    .iter()
                    .map(text_column)
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|m| Error::at(&self.path, self.row + 1, None, m))?;
                self.next = 0;
                self.len = batch.num_rows();
            }
            let i = self.next;
            self.next += 1;
            self.row += 1;
            self.stats.rows_read += 1;
            rec.clear();
            match &self.slots {
                None => {
                    for col in &self.text {
                        rec.push_field(value(col, i));
                    }
                }
                Some(slots) => {
                    for slot in slots {
                        match slot {
                            Some(k) => rec.push_field(value(&self.text[*k], i)),
                            None => rec.push_field(b""),
                        }
                    }
                }
            }
            if !self.keep_unknown && memchr::memchr(b'?', rec.as_slice()).is_some() {
                self.stats.rows_skipped += 1;
                continue;
            }
            return Ok(true);
        }
    }
}

/// Row `i` of a string column, a null as empty.
fn value(col: &ArrayRef, i: usize) -> &[u8] {
    let s = col.as_string::<i32>();
    if s.is_valid(i) {
        s.value(i).as_bytes()
    } else {
        b""
    }
}
