//! What the anatomy and genValsDist writers read besides the labels: each record's class
//! ([`RecordClasses`]) and, for genValsDist, each class's statistics strings ([`ClassStats`],
//! `temp.GenValsDist(EquivalenceID, S0, S1, ...)`), which the writer computes and stores per
//! class and reads back per record.

use rustc_hash::FxHashMap;

use crate::data::LabelRow;
use crate::store::{SqlContext, Store, Transaction};
use crate::{Error, Result};

/// How [`RecordClasses`] finds a record's class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassLookup {
    /// The record's own `AnonRecordTable.EquivalenceID` (Anatomy, which groups records).
    ByRecord,
    /// Through its tuple, in a hash map of `QidTuple` (the tuples fit in memory).
    TupleMap,
    /// Through its tuple, by a join on `QidTuple`'s primary key.
    TupleJoin,
}

/// Every record's class and quasi-identifier codes, in record order.
///
/// Anatomy groups records: its group is `AnonRecordTable.EquivalenceID`. Every other method puts
/// whole tuples into classes (`QidTuple.EquivalenceID`), and the pipeline fills
/// `AnonRecordTable.EquivalenceID` only for a kept database, so a record's class is looked up
/// through its tuple: in a hash map of the tuples when they fit, else by a join on `QidTuple`'s
/// primary key (see [`ClassLookup`]).
pub struct RecordClasses<'a> {
    store: &'a Store,
    /// The tuple map, when used.
    map: Option<FxHashMap<Box<[u32]>, u64>>,
    /// Rows: the class (or 0 when mapped), then the codes.
    sql: String,
}

impl Store {
    /// A reader of every record's class, found as `lookup` says.
    pub fn record_classes(&self, lookup: ClassLookup) -> Result<RecordClasses<'_>> {
        let cols = &self.layout().qids;
        let db = self.path();
        let list = cols.join(", ");
        let sep = if cols.is_empty() { "" } else { ", " };
        match lookup {
            ClassLookup::ByRecord => Ok(RecordClasses {
                store: self,
                map: None,
                sql: format!(
                    "SELECT EquivalenceID{sep}{list} FROM AnonRecordTable ORDER BY RecordID"
                ),
            }),
            ClassLookup::TupleMap => {
                let mut map: FxHashMap<Box<[u32]>, u64> = FxHashMap::default();
                let mut stmt = self
                    .conn()
                    .prepare(&format!("SELECT EquivalenceID{sep}{list} FROM QidTuple"))
                    .ctx(db)?;
                let mut rows = stmt.query([]).ctx(db)?;
                let mut key = vec![0u32; cols.len()];
                while let Some(r) = rows.next().ctx(db)? {
                    let eid: Option<i64> = r.get(0).ctx(db)?;
                    let eid = eid.ok_or_else(|| {
                        Error::Invalid("internal error: a tuple has no equivalence class".into())
                    })?;
                    for (q, k) in key.iter_mut().enumerate() {
                        *k = r.get::<_, i64>(q + 1).ctx(db)? as u32;
                    }
                    map.insert(key.as_slice().into(), eid as u64);
                }
                Ok(RecordClasses {
                    store: self,
                    map: Some(map),
                    sql: format!("SELECT 0{sep}{list} FROM AnonRecordTable ORDER BY RecordID"),
                })
            }
            ClassLookup::TupleJoin => {
                let on = self.record_tuple_join();
                let rcols: String = cols.iter().map(|c| format!(", r.{c}")).collect();
                // CROSS JOIN fixes the loop order: records outside (rowid order, no sort), one
                // primary key lookup in QidTuple per record.
                Ok(RecordClasses {
                    store: self,
                    map: None,
                    sql: format!(
                        "SELECT t.EquivalenceID{rcols} FROM AnonRecordTable r CROSS JOIN \
                         QidTuple t ON {on} ORDER BY r.RecordID"
                    ),
                })
            }
        }
    }

    /// Streams the tuples in order of first record with their classes: `f(class, codes,
    /// count)` (the order in which the toolbox sums a class's values for Datafly and
    /// Incognito). A tuple without a class is an internal error.
    pub fn for_each_classed_tuple_by_first_record(
        &self,
        mut f: impl FnMut(u64, &[u32], u64) -> Result<()>,
    ) -> Result<()> {
        let db = self.path();
        let width = self.layout().qids.len();
        let cols = self.layout().qids.join(", ");
        let sql = format!("SELECT EquivalenceID, {cols}, Count FROM QidTuple ORDER BY FirstRecord");
        let mut codes = vec![0u32; width];
        let mut stmt = self.conn().prepare(&sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        while let Some(r) = rows.next().ctx(db)? {
            let eid: Option<i64> = r.get(0).ctx(db)?;
            let eid = eid.ok_or_else(|| {
                Error::Invalid("internal error: a tuple has no equivalence class".into())
            })?;
            for (q, c) in codes.iter_mut().enumerate() {
                *c = r.get::<_, i64>(q + 1).ctx(db)? as u32;
            }
            let repeat = r.get::<_, i64>(width + 1).ctx(db)? as u64;
            f(eid as u64, &codes, repeat)?;
        }
        Ok(())
    }

    /// Streams the records of each class and code of quasi-identifier `q`, by class then code:
    /// `f(class, code, records)`. A tuple without a class is an internal error.
    pub fn for_each_class_code_count(
        &self,
        q: usize,
        mut f: impl FnMut(u64, u32, u64) -> Result<()>,
    ) -> Result<()> {
        let db = self.path();
        let col = &self.layout().qids[q];
        let mut stmt = self
            .conn()
            .prepare(&format!(
                "SELECT EquivalenceID, {col}, SUM(Count) FROM QidTuple \
                 GROUP BY EquivalenceID, {col} ORDER BY EquivalenceID, {col}"
            ))
            .ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        while let Some(r) = rows.next().ctx(db)? {
            let eid: Option<i64> = r.get(0).ctx(db)?;
            let eid = eid.ok_or_else(|| {
                Error::Invalid("internal error: a tuple has no equivalence class".into())
            })?;
            f(
                eid as u64,
                r.get::<_, i64>(1).ctx(db)? as u32,
                r.get::<_, i64>(2).ctx(db)? as u64,
            )?;
        }
        Ok(())
    }
}

impl RecordClasses<'_> {
    /// Calls `f(class, codes)` for every record, in record order.
    pub fn for_each(&self, f: &mut dyn FnMut(u64, &[u32]) -> Result<()>) -> Result<()> {
        let db = self.store.path();
        let width = self.store.layout().qids.len();
        let mut stmt = self.store.conn().prepare(&self.sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        let mut codes = vec![0u32; width];
        while let Some(r) = rows.next().ctx(db)? {
            for (q, c) in codes.iter_mut().enumerate() {
                *c = r.get::<_, i64>(q + 1).ctx(db)? as u32;
            }
            let eid = match &self.map {
                Some(map) => *map.get(codes.as_slice()).ok_or_else(|| {
                    Error::Invalid(
                        "internal error: a record's tuple is missing from QidTuple".into(),
                    )
                })?,
                None => {
                    let eid: Option<i64> = r.get(0).ctx(db)?;
                    eid.ok_or_else(|| {
                        Error::Invalid("internal error: a record has no equivalence class".into())
                    })? as u64
                }
            };
            f(eid, &codes)?;
        }
        Ok(())
    }
}

/// `temp.GenValsDist(EquivalenceID, S0, S1, ...)`: each class's statistics string per
/// quasi-identifier, from [`ClassStats::create`] until [`ClassStats::drop_table`].
pub struct ClassStats<'a> {
    store: &'a Store,
    width: usize,
}

impl<'a> ClassStats<'a> {
    /// Creates the table with one row per class of `EquivalenceTable`, its strings unset.
    pub fn create(store: &'a Store) -> Result<ClassStats<'a>> {
        let width = store.layout().qids.len();
        let s_cols: Vec<String> = (0..width).map(|q| format!("S{q} TEXT")).collect();
        store.exec(&format!(
            "DROP TABLE IF EXISTS temp.GenValsDist;\n\
             CREATE TEMP TABLE GenValsDist (EquivalenceID INTEGER PRIMARY KEY, {});\n\
             INSERT INTO temp.GenValsDist (EquivalenceID) SELECT EquivalenceID FROM EquivalenceTable;",
            s_cols.join(", ")
        ))?;
        Ok(ClassStats { store, width })
    }

    /// One more than the largest class id (0 classes: 1).
    pub fn id_bound(&self) -> Result<usize> {
        let max = self
            .store
            .value::<Option<i64>>("SELECT MAX(EquivalenceID) FROM EquivalenceTable", [])?;
        Ok(max.unwrap_or(0) as usize + 1)
    }

    /// A writer of quasi-identifier `q`'s strings, inside `tx`.
    pub fn column<'t>(&self, tx: &'t Transaction<'_>, q: usize) -> Result<StatsColumn<'t>> {
        let db = tx.path();
        let update = tx
            .conn()
            .prepare(&format!(
                "UPDATE temp.GenValsDist SET S{q} = ?1 WHERE EquivalenceID = ?2"
            ))
            .ctx(db)?;
        Ok(StatsColumn { update, db })
    }

    /// Gives every suppressed class of `EquivalenceTable` the strings `labels` (quasi-identifier
    /// order), instead of statistics that would describe its records.
    pub fn mask_suppressed(&self, labels: &[&str]) -> Result<()> {
        if labels.is_empty() {
            return Ok(());
        }
        let set: Vec<String> = (0..labels.len())
            .map(|q| format!("S{q} = ?{}", q + 1))
            .collect();
        let db = self.store.path();
        let mut stmt = self
            .store
            .conn()
            .prepare(&format!(
                "UPDATE temp.GenValsDist SET {} WHERE EquivalenceID IN \
                 (SELECT EquivalenceID FROM EquivalenceTable WHERE Suppressed)",
                set.join(", ")
            ))
            .ctx(db)?;
        stmt.execute(rusqlite::params_from_iter(labels)).ctx(db)?;
        Ok(())
    }

    /// Every class's strings, by class id (`None` for an id without a class).
    pub fn by_class(&self) -> Result<Vec<Option<LabelRow>>> {
        let db = self.store.path();
        let s_cols: Vec<String> = (0..self.width).map(|q| format!("g.S{q}")).collect();
        let mut stats: Vec<Option<LabelRow>> = Vec::new();
        let mut stmt = self
            .store
            .conn()
            .prepare(&format!(
                "SELECT g.EquivalenceID, {} FROM temp.GenValsDist g",
                s_cols.join(", ")
            ))
            .ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        while let Some(r) = rows.next().ctx(db)? {
            let eid = r.get::<_, i64>(0).ctx(db)? as usize;
            let mut row = LabelRow::new();
            self.read_row(r, 1, &mut row)?;
            if stats.len() <= eid {
                stats.resize(eid + 1, None);
            }
            stats[eid] = Some(row);
        }
        Ok(stats)
    }

    /// Streams the strings of every record's class, in record order, by a join of records,
    /// tuples and the statistics (bounded memory).
    pub fn for_each_record(&self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        let db = self.store.path();
        let s_cols: Vec<String> = (0..self.width).map(|q| format!("g.S{q}")).collect();
        let on = self.store.record_tuple_join();
        // Records outside in rowid order, primary key lookups inside.
        let sql = format!(
            "SELECT {} FROM AnonRecordTable r CROSS JOIN QidTuple t ON {on} \
             CROSS JOIN temp.GenValsDist g ON g.EquivalenceID = t.EquivalenceID \
             ORDER BY r.RecordID",
            s_cols.join(", ")
        );
        let mut stmt = self.store.conn().prepare(&sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        let mut row = LabelRow::new();
        while let Some(r) = rows.next().ctx(db)? {
            self.read_row(r, 0, &mut row)?;
            f(&row)?;
        }
        Ok(())
    }

    /// Drops the table.
    pub fn drop_table(self) -> Result<()> {
        self.store.exec("DROP TABLE IF EXISTS temp.GenValsDist")
    }

    /// The strings of columns `first..first + width` of `r` into `row`.
    fn read_row(&self, r: &rusqlite::Row<'_>, first: usize, row: &mut LabelRow) -> Result<()> {
        let db = self.store.path();
        row.clear();
        for i in 0..self.width {
            let v = r.get_ref(first + i).ctx(db)?;
            row.push(v.as_bytes().map_err(|e| Error::sqlite(db, e.into()))?);
        }
        Ok(())
    }
}

/// Writes one quasi-identifier's statistics strings (see [`ClassStats::column`]).
pub struct StatsColumn<'t> {
    update: rusqlite::Statement<'t>,
    db: &'t std::path::Path,
}

impl StatsColumn<'_> {
    /// Sets class `eid`'s string.
    pub fn set(&mut self, eid: u64, text: &str) -> Result<()> {
        self.update
            .execute(rusqlite::params![text, eid as i64])
            .ctx(self.db)?;
        Ok(())
    }
}
