//! The anatomy format (UT Dallas toolbox §6.3): two files, for any method.
//!
//! With `-output dir/name.ext` they are `dir/name_QIT.ext` and `dir/name_ST.ext` (split at the
//! last `.` of the whole path, as the toolbox does; without a dot, `NAME_QIT` and `NAME_ST`:
//! [`crate::config::anatomy_paths`]). One line per kept input record, in input order, fields
//! joined by the configured separator:
//! - **QIT**: the raw quasi-identifier values as the toolbox stores them (Java's
//!   `Double.toString` of the number, a category as its mapped integer: `1.0,58.0`), in `<qid>`
//!   order, then the record's equivalence (or Anatomy group) id: `1.0,58.0,1`.
//! - **ST**: the id, then every input field that is neither a quasi-identifier nor an
//!   identifier, in input order, as read (untrimmed, bytes unchanged).
//!
//! The ids are the method's final classes: Datafly's and Incognito's class numbers (suppressed
//! records in the suppression class), Mondrian's in finalisation order, Anatomy's groups. An
//! input with a header gives each file a header (`EID` for the id). A quasi-identifier with a
//! hierarchy file prints its original value.
//!
//! Both files are written to temporary files and renamed only when both are complete; if the
//! second rename fails the first file is removed again, so a run leaves both or neither.

use std::path::Path;

use csv::ByteRecord;

use crate::algorithms::tuples::qid_points;
use crate::config::anatomy_paths;
use crate::data::load::Encoding;
use crate::io::{AtomicFile, Format};
use crate::javafmt::double_to_string;
use crate::job::{Generalization, Job};
use crate::progress::Progress;
use crate::store::{SqlContext, Store};
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

/// Writes the `_QIT` and `_ST` files for `target` from a store whose records are assigned to
/// classes (`AnonRecordTable.EquivalenceID`). `records`: kept rows the load saw.
pub fn write_from_store(
    job: &Job,
    store: &Store,
    encoding: &Encoding,
    target: &Path,
    records: u64,
    progress: &Progress,
) -> Result<()> {
    let values = qit_values(job, encoding);
    let db = store.path();
    let cols = &store.layout().qids;
    let sql = if cols.is_empty() {
        "SELECT EquivalenceID FROM AnonRecordTable ORDER BY RecordID".to_string()
    } else {
        format!(
            "SELECT EquivalenceID, {} FROM AnonRecordTable ORDER BY RecordID",
            cols.join(", ")
        )
    };
    let mut stmt = store.conn().prepare(&sql).ctx(db)?;
    let mut rows = stmt.query([]).ctx(db)?;
    write(job, target, records, &values, progress, &mut |codes| {
        let Some(r) = rows.next().ctx(db)? else {
            return Ok(None);
        };
        let eid: Option<i64> = r.get(0).ctx(db)?;
        let eid = eid.ok_or_else(|| {
            Error::Invalid("internal error: a record has no equivalence class".into())
        })?;
        for (q, c) in codes.iter_mut().enumerate() {
            *c = r.get::<_, i64>(q + 1).ctx(db)? as u32;
        }
        Ok(Some(eid as u64))
    })
}

/// Writes both files; `next` fills the next kept record's quasi-identifier codes (input order)
/// and returns its id, `None` after the last; `values[q][code]` is the QIT text.
pub fn write(
    job: &Job,
    target: &Path,
    records: u64,
    values: &[Vec<String>],
    progress: &Progress,
    next: &mut dyn FnMut(&mut [u32]) -> Result<Option<u64>>,
) -> Result<()> {
    let (qit_path, st_path) = anatomy_paths(target);
    let input = &job.input.path;
    let format = Format::from_spec(&job.input)?;
    let mut reader = format.open(input)?;
    let mut qit = AtomicFile::create(&qit_path)?;
    let mut st = AtomicFile::create(&st_path)?;
    let qit_err = |e| Error::io(&qit_path, e);
    let st_err = |e| Error::io(&st_path, e);

    let width = reader.header().map(|h| h.len()).unwrap_or(0);
    let published = |i: usize| !job.qids.iter().any(|q| q.index == i) && !job.ids.contains(&i);
    {
        let mut wq = format.writer(&mut qit);
        let mut ws = format.writer(&mut st);
        if let Some(h) = reader.header() {
            for q in &job.qids {
                wq.field(h.get(q.index).unwrap_or(b"")).map_err(qit_err)?;
            }
            wq.field(b"EID").map_err(qit_err)?;
            wq.end_record().map_err(qit_err)?;
            ws.field(b"EID").map_err(st_err)?;
            for (i, f) in h.iter().enumerate().take(width) {
                if published(i) {
                    ws.field(f).map_err(st_err)?;
                }
            }
            ws.end_record().map_err(st_err)?;
        }

        let mut bar = progress.rows("write", records);
        let mut rec = ByteRecord::new();
        let mut n = 0u64;
        let mut eid_text = String::new();
        let mut codes = vec![0u32; job.qids.len()];
        while let Some(eid) = next(&mut codes)? {
            if !reader.next_row(&mut rec)? {
                return Err(changed(input, records));
            }
            n += 1;
            eid_text.clear();
            eid_text.push_str(&eid.to_string());
            for (q, &c) in codes.iter().enumerate() {
                wq.field(values[q][c as usize].as_bytes())
                    .map_err(qit_err)?;
            }
            wq.field(eid_text.as_bytes()).map_err(qit_err)?;
            wq.end_record().map_err(qit_err)?;
            ws.field(eid_text.as_bytes()).map_err(st_err)?;
            for (i, f) in rec.iter().enumerate() {
                if published(i) {
                    ws.field(f).map_err(st_err)?;
                }
            }
            ws.end_record().map_err(st_err)?;
            bar.tick(0, n);
        }
        if n != records || reader.next_row(&mut rec)? {
            return Err(changed(input, records));
        }
        bar.finish();
    }
    commit_pair(qit, st)
}

/// Renames both files into place, or neither (the first is removed if the second fails).
fn commit_pair(first: AtomicFile, second: AtomicFile) -> Result<()> {
    let first_target = first.target().to_path_buf();
    first.commit()?;
    if let Err(e) = second.commit() {
        let _ = std::fs::remove_file(&first_target);
        return Err(e);
    }
    Ok(())
}

fn changed(input: &Path, records: u64) -> Error {
    Error::in_file(
        input,
        format!("the input changed during the run (it had {records} records when loaded)"),
    )
}
