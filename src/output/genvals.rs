//! genVals (UT Dallas toolbox §6.1): each kept input row (with δ-presence, each row of the
//! research subset: rows the [`LabelSource`] omits are skipped), in input order, with every
//! quasi-identifier field replaced by its class's generalization and every identifier column
//! removed. Other fields are written as read (untrimmed, bytes unchanged), joined by the
//! configured separator string, lines ending in `\n`; a header, if the input has one, comes
//! first (without identifier columns).
//!
//! The writer re-reads the input with the same [`Format`](crate::io::Format) as the load, so it
//! skips the same rows, and pairs each kept row with the next record of the [`LabelSource`]. If
//! the input no longer has the rows that were loaded, it stops with an error. The file appears
//! only when the run's [`Publication`] is published.

use std::path::Path;

use csv::ByteRecord;

use super::{LabelRow, LabelSource};
use crate::io::Publication;
use crate::job::Job;
use crate::progress::Progress;
use crate::{Error, Result};

/// Writes `job`'s genVals release, if it has an output, as [`write_as`] does: for the rooms
/// whose release is genVals only (partitions, microaggregation, local recoding, cells).
pub fn write_release(
    publication: &Publication,
    job: &Job,
    records: u64,
    labels: &mut dyn LabelSource,
    progress: &Progress,
) -> Result<()> {
    match &job.output {
        Some(out) => write_as(publication, job, out, records, labels, progress),
        None => Ok(()),
    }
}

/// Writes the genVals release of `out` as its file asks: a columnar file
/// ([`crate::output::columnar`]) or delimited text ([`write`]).
pub fn write_as(
    publication: &Publication,
    job: &Job,
    out: &crate::job::OutputSpec,
    records: u64,
    labels: &mut dyn LabelSource,
    progress: &Progress,
) -> Result<()> {
    match out.columnar {
        // A data set folder from this process: one part.
        Some(kind) if out.folder => {
            let folder = crate::io::parts::PartsFolder::open(publication, &out.path, kind)?;
            let part = crate::job::OutputSpec {
                path: folder.part(0),
                folder: false,
                ..out.clone()
            };
            crate::output::columnar::write(
                publication,
                job,
                &part,
                kind,
                records,
                labels,
                progress,
            )?;
            folder.finish(1)
        }
        Some(kind) => {
            crate::output::columnar::write(publication, job, out, kind, records, labels, progress)
        }
        None => write(publication, job, &out.path, records, labels, progress),
    }
}

/// Writes genVals for `job` to `target`, staged in `publication`; `records` is how many kept
/// rows the load saw.
pub fn write(
    publication: &Publication,
    job: &Job,
    target: &Path,
    records: u64,
    labels: &mut dyn LabelSource,
    progress: &Progress,
) -> Result<()> {
    let input = &job.input.path;
    let format = job.input.format()?;
    let mut reader = format.open(input)?;
    let mut file = publication.create(target)?;
    let io_err = |e| Error::io(target, e);

    // What to do with each input column.
    let width = reader
        .header()
        .map(|h| h.len())
        .unwrap_or_else(|| max_index(job) + 1);
    let mut qid_of: Vec<Option<usize>> = vec![None; width];
    for (q, qid) in job.qids.iter().enumerate() {
        if qid.index < width {
            qid_of[qid.index] = Some(q);
        }
    }
    let mut dropped = vec![false; width];
    for &i in &job.ids {
        if i < width {
            dropped[i] = true;
        }
    }

    let mut bar = progress.rows("write", records);
    let mut w = format.writer(&mut file);
    if let Some(h) = reader.header() {
        for (i, f) in h.iter().enumerate() {
            if !dropped.get(i).copied().unwrap_or(false) {
                w.field(f).map_err(io_err)?;
            }
        }
        w.end_record().map_err(io_err)?;
    }

    let mut rec = ByteRecord::new();
    let mut n = 0u64;
    labels.for_each_record(&mut |row: &LabelRow| {
        if !reader.next_row(&mut rec)? {
            return Err(changed(input, records));
        }
        n += 1;
        if row.is_omitted() {
            bar.tick(0, n);
            return Ok(());
        }
        for (i, f) in rec.iter().enumerate() {
            if dropped.get(i).copied().unwrap_or(false) {
                continue;
            }
            match qid_of.get(i).copied().flatten() {
                Some(q) => w.field(row.get(q)),
                None => w.field(f),
            }
            .map_err(io_err)?;
        }
        w.end_record().map_err(io_err)?;
        bar.tick(0, n);
        Ok(())
    })?;
    if n != records || reader.next_row(&mut rec)? {
        return Err(changed(input, records));
    }
    bar.finish();
    drop(w);
    file.commit()
}

fn changed(input: &Path, records: u64) -> Error {
    Error::in_file(
        input,
        format!("the input changed during the run (it had {records} records when loaded)"),
    )
}

pub(crate) fn max_index(job: &Job) -> usize {
    job.qids
        .iter()
        .map(|q| q.index)
        .chain(job.ids.iter().copied())
        .chain(job.sensitive.iter().map(|s| s.index))
        .max()
        .unwrap_or(0)
}
