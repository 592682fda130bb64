//! The distinct quasi-identifier tuples of the store (`QidTuple`), shared by Mondrian and
//! Incognito.
//!
//! Both methods put whole tuples into classes (Mondrian cuts on `x <= v`, Incognito generalizes
//! values), so they work on `QidTuple` (codes, record count, first record), never on records.
//! When the tuples fit the memory budget ([`MEMORY_TUPLES`]) they are read once into a
//! [`Tuples`] and the method runs in memory; otherwise the method runs its own SQL over
//! `QidTuple`. Both backends produce identical classes (tested), written back the same way:
//! `EquivalenceTable` rows and `QidTuple.EquivalenceID` (the pipeline checks them).

use rusqlite::types::Value;

use crate::data::load::QidEncoding;
use crate::store::{SqlContext, Store};
use crate::{Error, Result};

/// Tuples up to which a method works in memory: about 32 bytes per tuple and quasi-identifier
/// at the most, so 2 million tuples stay far below the 200 MB budget.
pub const MEMORY_TUPLES: u64 = 2_000_000;

/// Which implementation a store-backed method uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// In memory if the tuples fit ([`MEMORY_TUPLES`]), else SQL.
    Auto,
    /// Always in memory.
    Memory,
    /// Always SQL on the store (Mondrian: every cut by passes over the store).
    Sql,
    /// In memory up to this many distinct tuples, else SQL (Mondrian: classes of at most this
    /// many tuples are finished in memory); tests force the hybrid paths with a small one.
    Hybrid(u64),
}

impl Backend {
    /// True if a table with `tuples` distinct tuples is processed in memory.
    pub fn in_memory(self, tuples: u64) -> bool {
        match self {
            Backend::Auto => tuples <= MEMORY_TUPLES,
            Backend::Memory => true,
            Backend::Sql => false,
            Backend::Hybrid(m) => tuples <= m,
        }
    }
}

/// `QidTuple` in memory, in order of first record.
#[derive(Debug, Clone, Default)]
pub struct Tuples {
    pub width: usize,
    /// Tuple-major codes, one per quasi-identifier.
    pub codes: Vec<u32>,
    pub counts: Vec<u64>,
    pub first_records: Vec<u64>,
}

impl Tuples {
    /// Reads `QidTuple` ordered by first record.
    pub fn load(store: &Store) -> Result<Tuples> {
        let cols = &store.layout().qids;
        let width = cols.len();
        let sql = format!(
            "SELECT {}, Count, FirstRecord FROM QidTuple ORDER BY FirstRecord",
            cols.join(", ")
        );
        let db = store.path();
        let mut stmt = store.conn().prepare(&sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        let mut t = Tuples {
            width,
            ..Tuples::default()
        };
        while let Some(r) = rows.next().ctx(db)? {
            for i in 0..width {
                t.codes.push(r.get::<_, i64>(i).ctx(db)? as u32);
            }
            t.counts.push(r.get::<_, i64>(width).ctx(db)? as u64);
            t.first_records
                .push(r.get::<_, i64>(width + 1).ctx(db)? as u64);
        }
        Ok(t)
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Codes of tuple `t`.
    pub fn tuple(&self, t: usize) -> &[u32] {
        &self.codes[t * self.width..(t + 1) * self.width]
    }

    /// Writes each tuple's class (`eids[t]`) to `QidTuple.EquivalenceID`.
    pub fn write_classes(&self, store: &Store, eids: &[u32]) -> Result<()> {
        let cols = &store.layout().qids;
        let sql = format!(
            "UPDATE QidTuple SET EquivalenceID = ?1 WHERE {}",
            cols.iter()
                .enumerate()
                .map(|(i, c)| format!("{c} = ?{}", i + 2))
                .collect::<Vec<_>>()
                .join(" AND ")
        );
        let db = store.path();
        store.exec("BEGIN")?;
        let result = (|| {
            let mut stmt = store.conn().prepare_cached(&sql).ctx(db)?;
            for (t, &eid) in eids.iter().enumerate() {
                stmt.raw_bind_parameter(1, eid as i64).ctx(db)?;
                for (i, &c) in self.tuple(t).iter().enumerate() {
                    stmt.raw_bind_parameter(i + 2, c as i64).ctx(db)?;
                }
                stmt.raw_execute().ctx(db)?;
            }
            Ok(())
        })();
        finish_transaction(store, result)
    }
}

/// Commits if `result` is Ok, else rolls back and returns the error.
pub fn finish_transaction(store: &Store, result: Result<()>) -> Result<()> {
    store.end_transaction(result)
}

/// Number of distinct tuples.
pub fn count(store: &Store) -> Result<u64> {
    Ok(store.value::<i64>("SELECT COUNT(*) FROM QidTuple", [])? as u64)
}

/// The point of each code of a quasi-identifier with a VGH: the dictionary holds the toolbox's
/// point labels (`[73.0]`, a category's mapped integer as `[1.0]`). `None` for a hierarchy-file
/// attribute whose values are not all numbers.
pub fn qid_points(q: &QidEncoding) -> Option<Vec<f64>> {
    q.dictionary
        .values()
        .iter()
        .map(|v| {
            let inner = v
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .unwrap_or(v);
            crate::javafmt::parse_double(inner)
        })
        .collect()
}

/// Binds a list of values to a statement and runs it once.
pub fn exec_with(store: &Store, sql: &str, values: &[Value]) -> Result<usize> {
    store
        .conn()
        .prepare_cached(sql)
        .and_then(|mut s| s.execute(rusqlite::params_from_iter(values.iter())))
        .map_err(|e| Error::sqlite(store.path(), e))
}
