//! The anatomy format (UT Dallas toolbox §6.3): two files, for any method.
//!
//! With `-output dir/name.ext` they are `dir/name_QIT.ext` and `dir/name_ST.ext` (split at the
//! last `.` of the whole path, as the toolbox does; without a dot, `NAME_QIT` and `NAME_ST`:
//! [`crate::paths::anatomy_paths`]). One line per kept input record, in input order, fields
//! joined by the configured separator:
//! - **QIT**: the raw quasi-identifier values as the toolbox stores them (Java's
//!   `Double.toString` of the number, a category as its mapped integer: `1.0,58.0`), in `<qid>`
//!   order, then the record's equivalence (or Anatomy group) id: `1.0,58.0,1`.
//! - **ST**: the id, then every input field that is neither a quasi-identifier nor an
//!   identifier, as read (untrimmed, bytes unchanged). Unlike the toolbox, whose ST is in input
//!   order (so line i of both files is the same person, which defeats Anatomy), the ST is
//!   grouped by id and shuffled within each group with the `-seed` generator: a record's
//!   sensitive values are linked to its group only, as the Anatomy paper intends. The ST rows
//!   are held in memory (their bytes) until the QIT is written.
//!
//! The ids are the method's final classes: Datafly's and Incognito's class numbers (suppressed
//! records in the suppression class), Mondrian's in finalisation order, Anatomy's groups. A
//! suppressed record's quasi-identifiers print as in genVals (the VGH root or the hierarchy's
//! top), not raw: the toolbox printed them raw, releasing the very records it suppressed, with
//! their exact quasi-identifiers, as a group smaller than k. An
//! input with a header gives each file a header (`EID` for the id). A quasi-identifier with a
//! hierarchy file prints its original value.
//!
//! Both files are written to temporary files and staged; the run renames them into place with
//! its other outputs only when every one is complete (see [`crate::io::Publication`]).

use std::io::Write;
use std::path::Path;

use csv::ByteRecord;

use crate::algorithms::tuples::{qid_points, Backend};
use crate::data::load::Encoding;
use crate::io::{AtomicFile, Publication};
use crate::javafmt::double_to_string;
use crate::job::{Generalization, Job, Method};
use crate::paths::anatomy_paths;
use crate::progress::Progress;
use crate::store::{ClassLookup, RecordClasses, Store};
use crate::{Error, Result};

/// The QIT text of each code of each quasi-identifier.
pub fn qit_values(job: &Job, encoding: &Encoding) -> Vec<Vec<String>> {
    job.qids
        .iter()
        .zip(&encoding.qids)
        .map(|(q, e)| match (&q.generalization, qid_points(e)) {
            (Generalization::Vgh(_), Some(points)) => {
                points.iter().map(|&x| double_to_string(x)).collect()
            }
            _ => e.dictionary.values().to_vec(),
        })
        .collect()
}

/// Writes the `_QIT` and `_ST` files for `target` from a store whose classes are assigned
/// (`records`: kept rows the load saw), looking records up with `backend` (see
/// [`record_classes`]).
#[allow(clippy::too_many_arguments)]
pub fn write_from_store(
    publication: &Publication,
    job: &Job,
    store: &Store,
    encoding: &Encoding,
    target: &Path,
    records: u64,
    progress: &Progress,
    backend: Backend,
) -> Result<()> {
    let values = qit_values(job, encoding);
    let classes = record_classes(store, job.method == Method::Anatomy, backend)?;
    let suppressed = Suppressed {
        classes: store.suppressed_classes()?,
        labels: encoding.qids.iter().map(|q| q.suppressed.clone()).collect(),
    };
    write(
        publication,
        job,
        target,
        records,
        &values,
        &suppressed,
        progress,
        &mut |f| classes.for_each(f),
    )
}

/// The suppressed classes and what a suppressed record's quasi-identifiers print in the QIT.
#[derive(Debug, Default)]
pub struct Suppressed {
    pub classes: rustc_hash::FxHashSet<u64>,
    /// Per quasi-identifier, in `<qid>` order.
    pub labels: Vec<String>,
}

/// Every record's class and codes, in record order ([`RecordClasses`]): after Anatomy
/// (`by_record`) each record's group, else each record's class through its tuple, in a map of
/// the tuples when `backend` holds them in memory ([`Backend::in_memory`]), else by a join.
pub fn record_classes(
    store: &Store,
    by_record: bool,
    backend: Backend,
) -> Result<RecordClasses<'_>> {
    let lookup = if by_record {
        ClassLookup::ByRecord
    } else if backend.in_memory(store.tuple_count()?) {
        ClassLookup::TupleMap
    } else {
        ClassLookup::TupleJoin
    };
    store.record_classes(lookup)
}

/// A source of records: calls its argument with each kept record's id and quasi-identifier
/// codes, in input order.
pub type RecordDriver<'a> = dyn FnMut(&mut dyn FnMut(u64, &[u32]) -> Result<()>) -> Result<()> + 'a;

/// Writes both files from `drive`'s records; `values[q][code]` is the QIT text.
#[allow(clippy::too_many_arguments)]
pub fn write(
    publication: &Publication,
    job: &Job,
    target: &Path,
    records: u64,
    values: &[Vec<String>],
    suppressed: &Suppressed,
    progress: &Progress,
    drive: &mut RecordDriver<'_>,
) -> Result<()> {
    let (qit_path, st_path) = anatomy_paths(target);
    let input = &job.input.path;
    let format = job.input.format()?;
    let mut reader = format.open(input)?;
    let mut qit = publication.create(&qit_path)?;
    let mut st = publication.create(&st_path)?;
    let qit_err = |e| Error::io(&qit_path, e);
    let st_err = |e| Error::io(&st_path, e);

    let width = reader.header().map(|h| h.len()).unwrap_or(0);
    let published = |i: usize| !job.qids.iter().any(|q| q.index == i) && !job.ids.contains(&i);
    {
        let mut wq = format.writer(&mut qit);
        let mut st_header = format.writer(&mut st);
        // ST rows are collected (bytes in one arena, with their id) and written grouped by id,
        // shuffled within each group, after the QIT: see the module docs.
        let mut ws = format.writer(Vec::<u8>::new());
        let mut st_rows: Vec<(u64, usize, usize)> = Vec::new();
        if let Some(h) = reader.header() {
            for q in &job.qids {
                wq.field(h.get(q.index).unwrap_or(b"")).map_err(qit_err)?;
            }
            wq.field(b"EID").map_err(qit_err)?;
            wq.end_record().map_err(qit_err)?;
            st_header.field(b"EID").map_err(st_err)?;
            for (i, f) in h.iter().enumerate().take(width) {
                if published(i) {
                    st_header.field(f).map_err(st_err)?;
                }
            }
            st_header.end_record().map_err(st_err)?;
        }

        let mut bar = progress.rows("write", records);
        let mut rec = ByteRecord::new();
        let mut n = 0u64;
        let mut eid_text = String::new();
        drive(&mut |eid, codes| {
            if !reader.next_row(&mut rec)? {
                return Err(changed(input, records));
            }
            n += 1;
            eid_text.clear();
            eid_text.push_str(&eid.to_string());
            if suppressed.classes.contains(&eid) {
                for label in &suppressed.labels {
                    wq.field(label.as_bytes()).map_err(qit_err)?;
                }
            } else {
                for (q, &c) in codes.iter().enumerate() {
                    wq.field(values[q][c as usize].as_bytes())
                        .map_err(qit_err)?;
                }
            }
            wq.field(eid_text.as_bytes()).map_err(qit_err)?;
            wq.end_record().map_err(qit_err)?;
            let start = ws.get_mut().len();
            ws.field(eid_text.as_bytes()).map_err(st_err)?;
            for (i, f) in rec.iter().enumerate() {
                if published(i) {
                    ws.field(f).map_err(st_err)?;
                }
            }
            ws.end_record().map_err(st_err)?;
            st_rows.push((eid, start, ws.get_mut().len()));
            bar.tick(0, n);
            Ok(())
        })?;
        if n != records || reader.next_row(&mut rec)? {
            return Err(changed(input, records));
        }
        let arena = ws.into_inner();
        unlink_rows(&mut st_rows, job.seed);
        let out = st_header.get_mut();
        for &(_, start, end) in &st_rows {
            out.write_all(&arena[start..end]).map_err(st_err)?;
        }
        bar.finish();
    }
    commit_pair(qit, st)
}

/// Orders ST rows so that a row's position says nothing about its QIT line: by id, then in a
/// seeded random order within each id (Fisher-Yates with the `-seed` generator).
fn unlink_rows(rows: &mut [(u64, usize, usize)], seed: u64) {
    rows.sort_by_key(|r| r.0);
    let mut rng = crate::algorithms::anatomy::JavaRandom::new(seed);
    for group in rows.chunk_by_mut(|a, b| a.0 == b.0) {
        for i in (1..group.len()).rev() {
            let j = rng.next_int_bounded(i as i32 + 1) as usize;
            group.swap(i, j);
        }
    }
}

/// Stages both files; the run publishes them with its other outputs, or none.
fn commit_pair(first: AtomicFile, second: AtomicFile) -> Result<()> {
    first.commit()?;
    second.commit()
}

fn changed(input: &Path, records: u64) -> Error {
    Error::in_file(
        input,
        format!("the input changed during the run (it had {records} records when loaded)"),
    )
}
