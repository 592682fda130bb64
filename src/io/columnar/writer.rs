//! Record batches into a Parquet or Arrow IPC file (see the module docs of [`super`]).

use std::io::Write;
use std::path::{Path, PathBuf};

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::Kind;
use crate::{Error, Result};

/// Rows per Parquet row group written: what the writer holds in memory before it flushes.
pub const ROW_GROUP_ROWS: usize = 1 << 17;

enum Inner<W: Write + Send> {
    Parquet(ArrowWriter<W>),
    Ipc(arrow::ipc::writer::FileWriter<W>),
}

/// Writes record batches of one schema into `W` as a Parquet file (Snappy-compressed row groups
/// of [`ROW_GROUP_ROWS`] rows) or an Arrow IPC file.
pub struct BatchWriter<W: Write + Send> {
    inner: Inner<W>,
    target: PathBuf,
}

impl<W: Write + Send> BatchWriter<W> {
    /// A writer of `kind` into `out`; `target` names it in messages.
    pub fn new(kind: Kind, out: W, schema: SchemaRef, target: &Path) -> Result<BatchWriter<W>> {
        let err = |e: &dyn std::fmt::Display| writing(target, kind, e);
        let inner = match kind {
            Kind::Parquet => {
                let props = WriterProperties::builder()
                    .set_compression(Compression::SNAPPY)
                    .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
                    .build();
                Inner::Parquet(ArrowWriter::try_new(out, schema, Some(props)).map_err(|e| err(&e))?)
            }
            Kind::Ipc => Inner::Ipc(
                arrow::ipc::writer::FileWriter::try_new(out, &schema).map_err(|e| err(&e))?,
            ),
        };
        Ok(BatchWriter {
            inner,
            target: target.to_path_buf(),
        })
    }

    fn kind(&self) -> Kind {
        match self.inner {
            Inner::Parquet(_) => Kind::Parquet,
            Inner::Ipc(_) => Kind::Ipc,
        }
    }

    /// Appends a batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let kind = self.kind();
        match &mut self.inner {
            Inner::Parquet(w) => w.write(batch).map_err(|e| writing(&self.target, kind, &e)),
            Inner::Ipc(w) => w.write(batch).map_err(|e| writing(&self.target, kind, &e)),
        }
    }

    /// Writes the footer and hands back the sink.
    pub fn finish(self) -> Result<W> {
        let kind = self.kind();
        let target = self.target;
        match self.inner {
            Inner::Parquet(w) => w.into_inner().map_err(|e| writing(&target, kind, &e)),
            Inner::Ipc(mut w) => {
                w.finish().map_err(|e| writing(&target, kind, &e))?;
                w.into_inner().map_err(|e| writing(&target, kind, &e))
            }
        }
    }
}

fn writing(target: &Path, kind: Kind, e: &dyn std::fmt::Display) -> Error {
    Error::in_file(target, format!("writing {}: {e}", kind.name()))
}
