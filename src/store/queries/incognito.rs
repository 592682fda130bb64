//! Incognito's reads: the sensitive distributions of the table and of each tuple, and its SQL
//! backend ([`IncognitoTuples`]), which groups the tuples at a lattice node with one `GROUP BY`
//! per node, their codes generalized by `HierarchyMap` lookups (its primary key).

use crate::store::classes::hierarchy_joins;
use crate::store::{SqlContext, Store};
use crate::{Error, Result};

impl Store {
    /// The records of each value of sensitive attribute `s` (its position among the sensitive
    /// attributes): `(code, records)` pairs.
    pub fn sensitive_counts(&self, s: usize) -> Result<Vec<(u32, u32)>> {
        let col = self.sensitive_column(s)?;
        let db = self.path();
        let mut stmt = self
            .conn()
            .prepare(&format!(
                "SELECT {col}, COUNT(*) FROM AnonRecordTable GROUP BY {col}"
            ))
            .ctx(db)?;
        let pairs = stmt
            .query_map([], |r| {
                Ok((r.get::<_, i64>(0)? as u32, r.get::<_, i64>(1)? as u32))
            })
            .ctx(db)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .ctx(db)?;
        Ok(pairs)
    }

    /// Streams the records of each tuple and value of sensitive attribute `s`: `f(codes,
    /// sensitive code, records)`.
    pub fn for_each_tuple_sensitive_count(
        &self,
        s: usize,
        mut f: impl FnMut(&[u32], u32, u32) -> Result<()>,
    ) -> Result<()> {
        let col = self.sensitive_column(s)?;
        let width = self.layout().qids.len();
        let cols = self.layout().qids.join(", ");
        let db = self.path();
        let mut stmt = self
            .conn()
            .prepare(&format!(
                "SELECT {cols}, {col}, COUNT(*) FROM AnonRecordTable GROUP BY {cols}, {col}"
            ))
            .ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        let mut key = vec![0u32; width];
        while let Some(r) = rows.next().ctx(db)? {
            for (q, k) in key.iter_mut().enumerate() {
                *k = r.get::<_, i64>(q).ctx(db)? as u32;
            }
            let s = r.get::<_, i64>(width).ctx(db)? as u32;
            let n = r.get::<_, i64>(width + 1).ctx(db)? as u32;
            f(&key, s, n)?;
        }
        Ok(())
    }

    /// The column of sensitive attribute `s`.
    pub(in crate::store) fn sensitive_column(&self, s: usize) -> Result<&str> {
        self.layout()
            .sensitive
            .get(s)
            .map(String::as_str)
            .ok_or_else(|| Error::Invalid(format!("no sensitive attribute {s} in the store")))
    }
}

/// The tuples Incognito groups through SQL: `QidTuple`, or with a sensitive attribute
/// `temp.IncognitoSens` (the tuples split by sensitive value, with their records).
pub struct IncognitoTuples<'a> {
    store: &'a Store,
    /// `temp.IncognitoSens` or `QidTuple`.
    source: &'static str,
    with_sens: bool,
}

impl<'a> IncognitoTuples<'a> {
    /// The tuples, split by the values of sensitive attribute `sens` if given.
    pub fn new(store: &'a Store, sens: Option<usize>) -> Result<IncognitoTuples<'a>> {
        let Some(s) = sens else {
            return Ok(IncognitoTuples {
                store,
                source: "QidTuple",
                with_sens: false,
            });
        };
        let col = store.sensitive_column(s)?;
        let cols = store.layout().qids.join(", ");
        store.exec(&format!(
            "DROP TABLE IF EXISTS temp.IncognitoSens;\n\
             CREATE TEMP TABLE IncognitoSens AS SELECT {cols}, {col} AS Sens, COUNT(*) AS Count \
             FROM AnonRecordTable GROUP BY {cols}, {col};"
        ))?;
        Ok(IncognitoTuples {
            store,
            source: "temp.IncognitoSens",
            with_sens: true,
        })
    }

    /// Streams the tuples generalized to `node` (one level per quasi-identifier), grouped and
    /// in key order: `visit(generalized ids, sensitive code (0 without one), records)`, one
    /// row per class and sensitive value; `visit` returns false to stop.
    pub fn for_each_generalized(
        &self,
        node: &[usize],
        mut visit: impl FnMut(&[u32], u32, u64) -> Result<bool>,
    ) -> Result<()> {
        let cols = &self.store.layout().qids;
        let ids: Vec<String> = (0..cols.len()).map(|q| format!("h{q}.Id")).collect();
        let mut group = ids.join(", ");
        if self.with_sens {
            group.push_str(", t.Sens");
        }
        let sens = if self.with_sens { "t.Sens" } else { "0" };
        let sql = format!(
            "SELECT {}, {sens}, SUM(t.Count) FROM {} t {} GROUP BY {group} ORDER BY {group}",
            ids.join(", "),
            self.source,
            hierarchy_joins(cols, node, "t"),
        );
        let db = self.store.path();
        let mut stmt = self.store.conn().prepare(&sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        let width = cols.len();
        let mut key = vec![0u32; width];
        while let Some(r) = rows.next().ctx(db)? {
            for (q, k) in key.iter_mut().enumerate() {
                *k = r.get::<_, i64>(q).ctx(db)? as u32;
            }
            let s = r.get::<_, i64>(width).ctx(db)? as u32;
            let n = r.get::<_, i64>(width + 1).ctx(db)? as u64;
            if !visit(&key, s, n)? {
                break;
            }
        }
        Ok(())
    }

    /// Drops the working table.
    pub fn drop_tables(&self) -> Result<()> {
        self.store.exec("DROP TABLE IF EXISTS temp.IncognitoSens")
    }
}
