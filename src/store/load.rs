//! Streaming the input into the store.
//!
//! Rows come from [`crate::data::load::read_encoded`] (the same parsing and encoding as the
//! in-memory loader) and go into `AnonRecordTable` through one cached `INSERT`, bound
//! parameter by parameter, committed every [`BATCH`] rows: memory stays bounded by the page
//! cache and the per-attribute dictionaries, however large the input. After the rows: the
//! catalogue (attributes, dictionaries, hierarchies), then `QidTuple` by one `GROUP BY`, whose
//! primary key is built from sorted rows.

use rusqlite::params;

use super::schema::Layout;
use super::{SqlContext, Store};
use crate::data::load::{read_encoded, Encoding, LoadSummary};
use crate::hierarchy::Hierarchy;
use crate::job::{Generalization, Job};
use crate::progress::Progress;
use crate::Result;

/// Rows per transaction.
pub const BATCH: u64 = 100_000;

/// What [`Store::load`] produced.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Dictionaries and hierarchies of the attributes.
    pub encoding: Encoding,
    /// Rows read and skipped, the header.
    pub summary: LoadSummary,
    /// Distinct quasi-identifier tuples.
    pub tuples: u64,
}

impl Store {
    /// Creates the data tables and loads `job`'s input (see the module docs).
    pub fn load(&mut self, job: &Job, progress: &Progress) -> Result<Loaded> {
        let layout = Layout::new(job);
        self.exec(&format!("BEGIN;\n{}COMMIT;", layout.create_tables()))?;
        self.layout = Some(layout);
        let (encoding, summary) = self.insert_records(job, progress)?;
        self.write_catalogue(job, &encoding)?;
        let tuples = self.group_tuples()?;
        let l = self.layout();
        self.exec(&format!("BEGIN;\n{}COMMIT;", l.create_views()))?;
        let s = summary.stats;
        self.conn
            .execute(
                "UPDATE Run SET RowsRead = ?1, RowsSkipped = ?2, BlankLines = ?3, Records = ?4 \
                 WHERE RunID = 1",
                params![
                    s.rows_read as i64,
                    s.rows_skipped as i64,
                    s.blank_lines as i64,
                    s.records() as i64
                ],
            )
            .ctx(&self.path)?;
        Ok(Loaded {
            encoding,
            summary,
            tuples,
        })
    }

    fn insert_records(&self, job: &Job, progress: &Progress) -> Result<(Encoding, LoadSummary)> {
        let l = self.layout();
        let cols: Vec<&String> = l.all().collect();
        let sql = format!(
            "INSERT INTO AnonRecordTable (RecordID, {}) VALUES (?1, {})",
            cols.iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            (2..=cols.len() + 1)
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let path = self.path.clone();
        self.exec("BEGIN")?;
        let result = {
            let mut stmt = self.conn.prepare_cached(&sql).ctx(&path)?;
            read_encoded(job, progress, |n, codes| {
                stmt.raw_bind_parameter(1, n as i64).ctx(&path)?;
                for (i, &c) in codes.iter().enumerate() {
                    stmt.raw_bind_parameter(i + 2, c as i64).ctx(&path)?;
                }
                stmt.raw_execute().ctx(&path)?;
                if n % BATCH == 0 {
                    self.conn.execute_batch("COMMIT; BEGIN").ctx(&path)?;
                }
                Ok(())
            })
        };
        match result {
            Ok(r) => {
                self.exec("COMMIT")?;
                Ok(r)
            }
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    fn write_catalogue(&self, job: &Job, enc: &Encoding) -> Result<()> {
        let path = self.path.clone();
        let l = self.layout().clone();
        self.exec("BEGIN")?;
        {
            let mut attr = self
                .conn
                .prepare_cached(
                    "INSERT INTO Attribute (AttributeID, InputIndex, Name, Role, Source, \
                     HierarchyFile, Levels, Suppressed, ColumnName) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                .ctx(&path)?;
            let mut dict = self
                .conn
                .prepare_cached(
                    "INSERT INTO Dictionary (AttributeID, Code, Value) VALUES (?1, ?2, ?3)",
                )
                .ctx(&path)?;
            for (id, (q, e)) in job.qids.iter().zip(&enc.qids).enumerate() {
                let (source, file) = match &q.generalization {
                    Generalization::Vgh(_) => ("vgh", None),
                    Generalization::File { path, .. } => {
                        ("hierarchy", Some(path.display().to_string()))
                    }
                };
                attr.execute(params![
                    id as i64,
                    q.index as i64,
                    q.name,
                    "qid",
                    source,
                    file,
                    e.hierarchy.levels() as i64,
                    e.suppressed,
                    l.qids[id]
                ])
                .ctx(&path)?;
                for (code, v) in e.dictionary.values().iter().enumerate() {
                    dict.execute(params![id as i64, code as i64, v])
                        .ctx(&path)?;
                }
                self.write_hierarchy(id, &e.hierarchy)?;
            }
            let nq = job.qids.len();
            for (i, (s, e)) in job.sensitive.iter().zip(&enc.sensitive).enumerate() {
                let id = nq + i;
                let (source, file) = match (&s.hierarchy, &s.map) {
                    (Some((p, _)), _) => ("hierarchy", Some(p.display().to_string())),
                    (None, Some(_)) => ("map", None),
                    (None, None) => ("number", None),
                };
                attr.execute(params![
                    id as i64,
                    s.index as i64,
                    s.name,
                    "sensitive",
                    source,
                    file,
                    e.hierarchy.as_ref().map(|h| h.levels() as i64),
                    Option::<String>::None,
                    l.sensitive[i]
                ])
                .ctx(&path)?;
                for (code, v) in e.dictionary.values().iter().enumerate() {
                    dict.execute(params![id as i64, code as i64, v])
                        .ctx(&path)?;
                }
                if let Some(h) = &e.hierarchy {
                    self.write_hierarchy(id, h)?;
                }
            }
        }
        self.exec("COMMIT")
    }

    fn write_hierarchy(&self, id: usize, h: &Hierarchy) -> Result<()> {
        let path = &self.path;
        let mut map = self
            .conn
            .prepare_cached(
                "INSERT INTO HierarchyMap (AttributeID, Level, Code, Id) VALUES (?1, ?2, ?3, ?4)",
            )
            .ctx(path)?;
        let mut label = self
            .conn
            .prepare_cached(
                "INSERT INTO HierarchyLabel (AttributeID, Level, Id, Label) VALUES (?1, ?2, ?3, ?4)",
            )
            .ctx(path)?;
        for level in 0..h.levels() {
            for code in 0..h.leaves() as u32 {
                map.execute(params![
                    id as i64,
                    level as i64,
                    code as i64,
                    h.get(code, level) as i64
                ])
                .ctx(path)?;
            }
            for (i, l) in h.labels(level).iter().enumerate() {
                label
                    .execute(params![id as i64, level as i64, i as i64, l])
                    .ctx(path)?;
            }
        }
        Ok(())
    }

    /// Fills `QidTuple` from `AnonRecordTable`; returns the number of tuples.
    fn group_tuples(&self) -> Result<u64> {
        let cols = self.layout().qids.join(", ");
        self.exec(&format!(
            "BEGIN; INSERT INTO QidTuple ({cols}, Count, FirstRecord) \
             SELECT {cols}, COUNT(*), MIN(RecordID) FROM AnonRecordTable GROUP BY {cols} \
             ORDER BY {cols}; COMMIT;"
        ))?;
        let n: i64 = self.value("SELECT COUNT(*) FROM QidTuple", [])?;
        Ok(n as u64)
    }
}
