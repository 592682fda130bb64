//! Streaming the input into the store.
//!
//! Rows come from [`crate::data::load::read_encoded`] (the same parsing and encoding as the
//! in-memory loader) and go into `AnonRecordTable` through one cached `INSERT`, bound
//! parameter by parameter, committed every [`BATCH`] rows: memory stays bounded by the page
//! cache and the per-attribute dictionaries, however large the input. After the rows: the
//! catalogue (attributes, dictionaries, hierarchies) and `QidTuple`.
//!
//! `QidTuple` (distinct quasi-identifier tuples with counts) is counted while the rows stream
//! by, in a hash map bounded by [`TUPLE_MEMORY`]: real data has far fewer distinct tuples than
//! rows (ADULT: 19,502 in 30,162 rows, and as many in any replication of it), so the map usually
//! holds them all and `QidTuple` is written from it, sorted, with no pass over the rows. When
//! the map is full its partial counts spill to a staging table, and `QidTuple` is one
//! `GROUP BY` over the staged partial counts: memory stays bounded either way.

use std::time::Instant;

use rusqlite::params;
use rustc_hash::FxHashMap;

use super::schema::Layout;
use super::{SqlContext, Store};
use crate::data::load::{read_encoded, Encoding, LoadSummary};
use crate::hierarchy::Hierarchy;
use crate::job::{Generalization, Job};
use crate::progress::Progress;
use crate::Result;

/// Rows per transaction.
pub const BATCH: u64 = 100_000;

/// Memory for counting distinct quasi-identifier tuples during the load, in bytes.
pub const TUPLE_MEMORY: usize = 48 << 20;

/// What [`Store::load`] produced.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// Dictionaries and hierarchies of the attributes.
    pub encoding: Encoding,
    /// Rows read and skipped, the header.
    pub summary: LoadSummary,
    /// Distinct quasi-identifier tuples.
    pub tuples: u64,
    /// Seconds per step.
    pub timings: LoadTimings,
}

/// Where the load's time went, in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LoadTimings {
    /// Reading, encoding and inserting the rows.
    pub insert: f64,
    /// Dictionaries, hierarchies, views.
    pub catalogue: f64,
    /// Grouping `QidTuple`.
    pub tuples: f64,
}

impl Store {
    /// Creates the data tables and loads `job`'s input (see the module docs).
    pub fn load(&mut self, job: &Job, progress: &Progress) -> Result<Loaded> {
        let started = Instant::now();
        let layout = Layout::new(job);
        self.exec(&format!("BEGIN;\n{}COMMIT;", layout.create_tables()))?;
        self.layout = Some(layout);
        let mut counter = TupleCounter::new(job.qids.len(), self.tuple_memory);
        let (encoding, summary) = self.insert_records(job, progress, &mut counter)?;
        let inserted = started.elapsed().as_secs_f64();
        self.write_catalogue(job, &encoding)?;
        let l = self.layout();
        self.exec(&format!("BEGIN;\n{}COMMIT;", l.create_views()))?;
        let catalogued = started.elapsed().as_secs_f64();
        let tuples = counter.finish(self)?;
        let timings = LoadTimings {
            insert: inserted,
            catalogue: catalogued - inserted,
            tuples: started.elapsed().as_secs_f64() - catalogued,
        };
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
            timings,
        })
    }

    fn insert_records(
        &self,
        job: &Job,
        progress: &Progress,
        counter: &mut TupleCounter,
    ) -> Result<(Encoding, LoadSummary)> {
        let nq = job.qids.len();
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
                counter.add(&codes[..nq], n, self)?;
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
}

/// Counts distinct quasi-identifier tuples in bounded memory (see the module docs).
struct TupleCounter {
    /// tuple -> (records, first record).
    map: FxHashMap<Box<[u32]>, (u64, u64)>,
    cap: usize,
    spilled: bool,
}

impl TupleCounter {
    fn new(nq: usize, memory: usize) -> TupleCounter {
        // Key on the heap, its box, the value, the table's slot and control byte, allocator slack.
        let per_entry = 4 * nq + 16 + 16 + 16 + 24;
        TupleCounter {
            map: FxHashMap::default(),
            cap: (memory / per_entry).max(1),
            spilled: false,
        }
    }

    #[inline]
    fn add(&mut self, tuple: &[u32], record: u64, store: &Store) -> Result<()> {
        if let Some(e) = self.map.get_mut(tuple) {
            e.0 += 1;
            return Ok(());
        }
        if self.map.len() >= self.cap {
            self.spill(store)?;
        }
        self.map.insert(tuple.into(), (1, record));
        Ok(())
    }

    /// Moves the partial counts to `temp.TupleStage` (inside the load's transaction).
    #[cold]
    fn spill(&mut self, store: &Store) -> Result<()> {
        let cols = store.layout().qids.join(", ");
        if !self.spilled {
            store.exec(&format!(
                "CREATE TEMP TABLE TupleStage AS SELECT {cols}, Count, FirstRecord \
                 FROM QidTuple WHERE 0"
            ))?;
            self.spilled = true;
        }
        let n = store.layout().qids.len();
        let sql = format!(
            "INSERT INTO temp.TupleStage VALUES ({})",
            placeholders(n + 2)
        );
        insert_entries(store, &sql, self.map.drain())
    }

    /// Writes `QidTuple`; returns the number of distinct tuples.
    fn finish(mut self, store: &Store) -> Result<u64> {
        let cols = store.layout().qids.join(", ");
        store.exec("BEGIN")?;
        if self.spilled {
            self.spill(store)?;
            store.exec(&format!(
                "INSERT INTO QidTuple ({cols}, Count, FirstRecord) \
                 SELECT {cols}, SUM(Count), MIN(FirstRecord) FROM temp.TupleStage \
                 GROUP BY {cols} ORDER BY {cols}; DROP TABLE temp.TupleStage;"
            ))?;
        } else {
            let mut entries: Vec<_> = self.map.drain().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            let sql = format!(
                "INSERT INTO QidTuple ({cols}, Count, FirstRecord) VALUES ({})",
                placeholders(store.layout().qids.len() + 2)
            );
            insert_entries(store, &sql, entries.into_iter())?;
        }
        store.exec("COMMIT")?;
        let n: i64 = store.value("SELECT COUNT(*) FROM QidTuple", [])?;
        Ok(n as u64)
    }
}

fn placeholders(n: usize) -> String {
    (1..=n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Inserts (tuple, (count, first)) rows with `sql` (tuple columns, count, first).
fn insert_entries(
    store: &Store,
    sql: &str,
    entries: impl Iterator<Item = (Box<[u32]>, (u64, u64))>,
) -> Result<()> {
    let db = store.path();
    let mut stmt = store.conn().prepare_cached(sql).ctx(db)?;
    for (tuple, (count, first)) in entries {
        for (i, &c) in tuple.iter().enumerate() {
            stmt.raw_bind_parameter(i + 1, c as i64).ctx(db)?;
        }
        stmt.raw_bind_parameter(tuple.len() + 1, count as i64)
            .ctx(db)?;
        stmt.raw_bind_parameter(tuple.len() + 2, first as i64)
            .ctx(db)?;
        stmt.raw_execute().ctx(db)?;
    }
    Ok(())
}
