//! Streaming the input into the store.
//!
//! Rows come from [`crate::data::load::read_encoded`] (the same parsing and encoding as the
//! in-memory loader), read and encoded on a second thread and handed over in chunks of
//! 4,096 rows, and go into `AnonRecordTable` through multi-row `INSERT`s ([`Bulk`]), committed
//! every [`BATCH`] rows: memory stays bounded by the page cache and the per-attribute
//! dictionaries, however large the input. After the rows: the catalogue (attributes,
//! dictionaries, hierarchies) and `QidTuple`. Issue 14 measured where a narrow row's time went
//! (perf on 1 M people rows): one statement per row, then hashing every field by its boxed
//! bytes, then one thread doing both halves; see `BENCHMARKS.md`, "Huge files".
//!
//! `QidTuple` (distinct quasi-identifier tuples with counts) is counted while the rows stream
//! by, in a hash map bounded by [`TUPLE_MEMORY`]: real data has far fewer distinct tuples than
//! rows (ADULT: 19,502 in 30,162 rows, and as many in any replication of it), so the map usually
//! holds them all and `QidTuple` is written from it, sorted, with no pass over the rows. When
//! the map is full its partial counts spill to a staging table, and `QidTuple` is one
//! `GROUP BY` over the staged partial counts: memory stays bounded either way. While nothing
//! has spilled the counter also keeps each record's tuple (4 bytes a record), which the label
//! writer uses instead of joining every record to its tuple.

use std::time::Instant;

use hashbrown::HashTable;
use rusqlite::params;
use rustc_hash::FxBuildHasher;
use std::hash::BuildHasher;

use super::schema::Layout;
use super::{SqlContext, Store};
use crate::data::load::Source;
use crate::data::load::{read_encoded, Encoding, LoadObserver, LoadSummary};
use crate::data::EncodedTable;
use crate::data::Generalization;
use crate::hierarchy::Hierarchy;
use crate::Result;

/// Rows per transaction.
pub const BATCH: u64 = 100_000;

/// Rows per `INSERT` statement (one statement execution per this many rows: SQLite's per-statement
/// overhead is the larger part of a narrow row's cost).
const ROWS_PER_INSERT: usize = 50;

/// Rows per chunk handed from the reading thread to the inserting one, and chunks in flight.
const CHUNK_ROWS: usize = 4096;
const CHUNKS_IN_FLIGHT: usize = 8;

/// Memory for counting distinct quasi-identifier tuples during the load, in bytes.
pub const TUPLE_MEMORY: usize = 256 << 20;

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
    /// Creates the data tables and loads `source`'s input (see the module docs); `observer`
    /// follows the reading.
    pub fn load(&mut self, source: &Source<'_>, observer: &mut dyn LoadObserver) -> Result<Loaded> {
        self.load_with(source, |store, counter| {
            store.insert_records(source, observer, counter)
        })
    }

    /// Fills the store from a table the in-memory loader already read (the lattice searches
    /// with `-db`): the same tables, catalogue and tuples as [`Store::load`], without reading
    /// the input again. With a research subset only the released (subset) records are stored,
    /// under their input record numbers.
    pub fn load_table(
        &mut self,
        source: &Source<'_>,
        table: &EncodedTable,
        encoding: &Encoding,
        summary: &LoadSummary,
    ) -> Result<Loaded> {
        self.load_with(source, |store, counter| {
            store.insert_table(source, table, counter)?;
            Ok((encoding.clone(), summary.clone()))
        })
    }

    /// Creates the data tables, inserts the records with `insert` (which counts their tuples),
    /// then writes the catalogue, the views, `QidTuple` and the run's row counts.
    fn load_with(
        &mut self,
        source: &Source<'_>,
        insert: impl FnOnce(&Store, &mut TupleCounter) -> Result<(Encoding, LoadSummary)>,
    ) -> Result<Loaded> {
        let started = Instant::now();
        let layout = Layout::new(source);
        self.exec(&format!("BEGIN;\n{}COMMIT;", layout.create_tables()))?;
        self.layout = Some(layout);
        let mut counter = TupleCounter::new(source.qids.len(), self.tuple_memory);
        let (encoding, summary) = insert(self, &mut counter)?;
        let inserted = started.elapsed().as_secs_f64();
        self.write_catalogue(source, &encoding)?;
        let l = self.layout();
        self.exec(&format!("BEGIN;\n{}COMMIT;", l.create_views()))?;
        let catalogued = started.elapsed().as_secs_f64();
        let (tuples, record_tuple) = counter.finish(self)?;
        self.record_tuple = record_tuple;
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
        source: &Source<'_>,
        observer: &mut dyn LoadObserver,
        counter: &mut TupleCounter,
    ) -> Result<(Encoding, LoadSummary)> {
        let nq = source.qids.len();
        let l = self.layout();
        let cols: Vec<&str> = std::iter::once("RecordID")
            .chain(l.all().map(String::as_str))
            .collect();
        let width = nq + source.sensitive.len();
        self.exec("BEGIN")?;
        let result = std::thread::scope(|scope| {
            // Reading and encoding on one thread, SQLite and the tuple counter on this one.
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u32>>(CHUNKS_IN_FLIGHT);
            let (back_tx, back_rx) = std::sync::mpsc::channel::<Vec<u32>>();
            let reader = scope.spawn(move || {
                let mut chunk = Vec::with_capacity(CHUNK_ROWS * width);
                let read = read_encoded(source, observer, |_, codes| {
                    chunk.extend_from_slice(codes);
                    if chunk.len() == CHUNK_ROWS * width {
                        let next = back_rx
                            .try_recv()
                            .unwrap_or_else(|_| Vec::with_capacity(CHUNK_ROWS * width));
                        // A closed channel: the inserting side failed and says why.
                        tx.send(std::mem::replace(&mut chunk, next))
                            .map_err(|_| crate::Error::Invalid("load cancelled".into()))?;
                    }
                    Ok(())
                });
                if read.is_ok() && !chunk.is_empty() {
                    let _ = tx.send(chunk);
                }
                read
            });
            let inserted = (|| {
                let mut rows = Bulk::new(self, "AnonRecordTable", &cols)?;
                let mut n = 0u64;
                for mut chunk in rx.iter() {
                    for codes in chunk.chunks_exact(width) {
                        n += 1;
                        self.insert_record(&mut rows, counter, n, codes, nq)?;
                    }
                    chunk.clear();
                    let _ = back_tx.send(chunk);
                }
                rows.flush(self)
            })();
            // On an insert error the reader stops at its next chunk.
            drop(rx);
            let read = reader.join().expect("the reading thread does not panic");
            inserted.and(read)
        });
        self.end_transaction(result)
    }

    /// Inserts record `n` (`codes`: its quasi-identifiers, then its sensitive attributes) into
    /// `AnonRecordTable` and counts its tuple; commits every [`BATCH`] records.
    fn insert_record(
        &self,
        rows: &mut Bulk,
        counter: &mut TupleCounter,
        n: u64,
        codes: &[u32],
        nq: usize,
    ) -> Result<()> {
        rows.push(
            self,
            std::iter::once(n as i64).chain(codes.iter().map(|&c| c as i64)),
        )?;
        counter.add(&codes[..nq], n, self)?;
        if n.is_multiple_of(BATCH) {
            self.exec("COMMIT; BEGIN")?;
        }
        Ok(())
    }

    /// Inserts the released records of an in-memory table (see [`Store::load_table`]).
    fn insert_table(
        &self,
        source: &Source<'_>,
        table: &EncodedTable,
        counter: &mut TupleCounter,
    ) -> Result<()> {
        let nq = source.qids.len();
        let ns = source.sensitive.len();
        let l = self.layout();
        let cols: Vec<&str> = std::iter::once("RecordID")
            .chain(l.all().map(String::as_str))
            .collect();
        self.exec("BEGIN")?;
        let result = (|| {
            let mut rows = Bulk::new(self, "AnonRecordTable", &cols)?;
            let mut codes = vec![0u32; nq + ns];
            for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
                let n = r as u64 + 1;
                for (slot, code) in codes[..nq].iter_mut().zip(table.row(r)) {
                    *slot = code;
                }
                for (slot, s) in codes[nq..].iter_mut().zip(&table.sensitive) {
                    *slot = s.codes[r];
                }
                self.insert_record(&mut rows, counter, n, &codes, nq)?;
            }
            rows.flush(self)
        })();
        self.end_transaction(result)
    }

    fn write_catalogue(&self, source: &Source<'_>, enc: &Encoding) -> Result<()> {
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
            for (id, (q, e)) in source.qids.iter().zip(&enc.qids).enumerate() {
                let (source, file) = match &q.generalization {
                    Generalization::Vgh(_) => ("vgh", None),
                    Generalization::File { path, .. } => {
                        ("hierarchy", Some(path.display().to_string()))
                    }
                    // The built hierarchy is in HierarchyMap/HierarchyLabel like any other;
                    // the description says how it was built.
                    Generalization::Built(b) => ("builder", Some(b.describe())),
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
            let nq = source.qids.len();
            for (i, (s, e)) in source.sensitive.iter().zip(&enc.sensitive).enumerate() {
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
        let mut map = Bulk::new(
            self,
            "HierarchyMap",
            &["AttributeID", "Level", "Code", "Id"],
        )?;
        let mut label = self
            .conn
            .prepare_cached(
                "INSERT INTO HierarchyLabel (AttributeID, Level, Id, Label) VALUES (?1, ?2, ?3, ?4)",
            )
            .ctx(path)?;
        for level in 0..h.levels() {
            for code in 0..h.leaves() as u32 {
                let row = [
                    id as i64,
                    level as i64,
                    code as i64,
                    h.get(code, level) as i64,
                ];
                map.push(self, row.into_iter())?;
            }
            for (i, l) in h.labels(level).iter().enumerate() {
                label
                    .execute(params![id as i64, level as i64, i as i64, l])
                    .ctx(path)?;
            }
        }
        map.flush(self)
    }
}

/// Counts distinct quasi-identifier tuples in bounded memory (see the module docs).
///
/// Flat: the tuples' codes side by side in one arena, counts and first records in parallel
/// vectors, and a hash table of `u32` positions into them (hashed by the codes): about
/// `4 * width + 21` bytes a tuple and no allocation per tuple.
struct TupleCounter {
    width: usize,
    /// `codes[t * width..][..width]`: tuple `t`.
    codes: Vec<u32>,
    counts: Vec<u64>,
    firsts: Vec<u64>,
    table: HashTable<u32>,
    hasher: FxBuildHasher,
    cap: usize,
    spilled: bool,
    /// Each record's tuple (its position here), while nothing has spilled.
    record_tuple: Vec<u32>,
}

impl TupleCounter {
    fn new(nq: usize, memory: usize) -> TupleCounter {
        // Codes, count, first record, the table's slot and control byte (at 7/8 load), and
        // the vectors' growth slack; records' tuples are counted as one entry per tuple.
        let per_entry = 4 * nq + 16 + 8 + 4;
        TupleCounter {
            width: nq,
            codes: Vec::new(),
            counts: Vec::new(),
            firsts: Vec::new(),
            table: HashTable::new(),
            hasher: FxBuildHasher,
            cap: (memory / per_entry).max(1),
            spilled: false,
            record_tuple: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.counts.len()
    }

    fn tuple(&self, t: usize) -> &[u32] {
        &self.codes[t * self.width..(t + 1) * self.width]
    }

    #[inline]
    fn add(&mut self, tuple: &[u32], record: u64, store: &Store) -> Result<()> {
        let hash = self.hasher.hash_one(tuple);
        let (w, codes) = (self.width, &self.codes);
        if let Some(&t) = self.table.find(hash, |&t| {
            &codes[t as usize * w..(t as usize + 1) * w] == tuple
        }) {
            self.counts[t as usize] += 1;
            if !self.spilled {
                self.record_tuple.push(t);
            }
            return Ok(());
        }
        if self.len() >= self.cap {
            self.spill(store)?;
        }
        let t = self.len() as u32;
        if !self.spilled {
            self.record_tuple.push(t);
        }
        self.codes.extend_from_slice(tuple);
        self.counts.push(1);
        self.firsts.push(record);
        let (hasher, codes) = (&self.hasher, &self.codes);
        self.table.insert_unique(hash, t, |&t| {
            hasher.hash_one(&codes[t as usize * w..(t as usize + 1) * w])
        });
        Ok(())
    }

    /// Forgets every tuple (keeping the allocations).
    fn clear(&mut self) {
        self.codes.clear();
        self.counts.clear();
        self.firsts.clear();
        self.table.clear();
    }

    /// Moves the partial counts to `temp.TupleStage` (inside the load's transaction).
    #[cold]
    fn spill(&mut self, store: &Store) -> Result<()> {
        let cols = store.layout().qids.join(", ");
        if !self.spilled {
            // Positions no longer name tuples once partial counts leave memory.
            self.record_tuple = Vec::new();
            store.exec(&format!(
                "CREATE TEMP TABLE TupleStage AS SELECT {cols}, Count, FirstRecord \
                 FROM QidTuple WHERE 0"
            ))?;
            self.spilled = true;
        }
        self.insert(store, "temp.TupleStage", 0..self.len())?;
        self.clear();
        Ok(())
    }

    /// Inserts tuples `ts` into `table` (tuple columns, count, first record).
    fn insert(&self, store: &Store, table: &str, ts: impl Iterator<Item = usize>) -> Result<()> {
        let qids = &store.layout().qids;
        let cols: Vec<&str> = qids
            .iter()
            .map(String::as_str)
            .chain(["Count", "FirstRecord"])
            .collect();
        let mut bulk = Bulk::new(store, table, &cols)?;
        for t in ts {
            let codes = self.tuple(t).iter().map(|&c| c as i64);
            bulk.push(
                store,
                codes.chain([self.counts[t] as i64, self.firsts[t] as i64]),
            )?;
        }
        bulk.flush(store)
    }

    /// The tuples in key (lexicographic) order. When the codes pack into 64 bits (the bits of
    /// each column's largest code, first column highest) the sort is on packed keys: one
    /// contiguous array instead of a comparison through the arena per step.
    fn key_order(&self) -> Vec<u32> {
        let w = self.width;
        let mut bits = vec![0u32; w];
        for t in self.codes.chunks_exact(w.max(1)) {
            for (b, &c) in bits.iter_mut().zip(t) {
                *b = (*b).max(u32::BITS - c.leading_zeros());
            }
        }
        if bits.iter().sum::<u32>() > u64::BITS {
            let mut order: Vec<u32> = (0..self.len() as u32).collect();
            order.sort_unstable_by(|&a, &b| self.tuple(a as usize).cmp(self.tuple(b as usize)));
            return order;
        }
        let mut keys: Vec<(u64, u32)> = self
            .codes
            .chunks_exact(w.max(1))
            .enumerate()
            .map(|(t, codes)| {
                let key = codes
                    .iter()
                    .zip(&bits)
                    .fold(0u64, |k, (&c, &b)| (k << b) | c as u64);
                (key, t as u32)
            })
            .collect();
        keys.sort_unstable();
        keys.into_iter().map(|(_, t)| t).collect()
    }

    /// Writes `QidTuple`; returns the number of distinct tuples and, when nothing spilled,
    /// each record's tuple as its position in `QidTuple`'s key order.
    fn finish(mut self, store: &Store) -> Result<(u64, Option<Vec<u32>>)> {
        let cols = store.layout().qids.join(", ");
        store.exec("BEGIN")?;
        let mut record_tuple = None;
        if self.spilled {
            self.spill(store)?;
            store.exec(&format!(
                "INSERT INTO QidTuple ({cols}, Count, FirstRecord) \
                 SELECT {cols}, SUM(Count), MIN(FirstRecord) FROM temp.TupleStage \
                 GROUP BY {cols} ORDER BY {cols}; DROP TABLE temp.TupleStage;"
            ))?;
        } else {
            // In key order, so that the rows append to QidTuple's b-tree.
            self.table = HashTable::new();
            let order = self.key_order();
            self.insert(store, "QidTuple", order.iter().map(|&t| t as usize))?;
            let mut rank = vec![0u32; order.len()];
            for (i, &t) in order.iter().enumerate() {
                rank[t as usize] = i as u32;
            }
            let mut records = std::mem::take(&mut self.record_tuple);
            for t in &mut records {
                *t = rank[*t as usize];
            }
            record_tuple = Some(records);
        }
        store.exec("COMMIT")?;
        let n: i64 = store.value("SELECT COUNT(*) FROM QidTuple", [])?;
        Ok((n as u64, record_tuple))
    }
}

/// Multi-row `INSERT`s of integer rows: [`ROWS_PER_INSERT`] rows per statement execution
/// (SQLite's per-statement overhead is the larger part of a narrow row's cost), the rest one
/// by one at [`Bulk::flush`].
pub(crate) struct Bulk {
    many: String,
    one: String,
    width: usize,
    pending: Vec<i64>,
}

impl Bulk {
    pub(crate) fn new(store: &Store, table: &str, cols: &[&str]) -> Result<Bulk> {
        let width = cols.len();
        let row = format!("({})", vec!["?"; width].join(", "));
        let sql = |rows: usize| {
            format!(
                "INSERT INTO {table} ({}) VALUES {}",
                cols.join(", "),
                vec![row.as_str(); rows].join(", ")
            )
        };
        let bulk = Bulk {
            many: sql(ROWS_PER_INSERT),
            one: sql(1),
            width,
            pending: Vec::with_capacity(ROWS_PER_INSERT * width),
        };
        // Prepared now, so that a statement error shows before any row is read.
        store.conn().prepare_cached(&bulk.many).ctx(store.path())?;
        Ok(bulk)
    }

    #[inline]
    pub(crate) fn push(&mut self, store: &Store, row: impl Iterator<Item = i64>) -> Result<()> {
        self.pending.extend(row);
        if self.pending.len() == ROWS_PER_INSERT * self.width {
            self.run(store, true)?;
        }
        Ok(())
    }

    fn run(&mut self, store: &Store, many: bool) -> Result<()> {
        let db = store.path();
        let (sql, chunk) = if many {
            (&self.many, self.pending.len())
        } else {
            (&self.one, self.width)
        };
        let mut stmt = store.conn().prepare_cached(sql).ctx(db)?;
        for rows in self.pending.chunks(chunk) {
            for (i, &v) in rows.iter().enumerate() {
                stmt.raw_bind_parameter(i + 1, v).ctx(db)?;
            }
            stmt.raw_execute().ctx(db)?;
        }
        self.pending.clear();
        Ok(())
    }

    /// Inserts the remaining rows.
    pub(crate) fn flush(&mut self, store: &Store) -> Result<()> {
        if !self.pending.is_empty() {
            self.run(store, false)?;
        }
        Ok(())
    }
}
