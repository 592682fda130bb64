//! Reads of `QidTuple` (the distinct quasi-identifier tuples with their record counts) that the
//! tuple-based methods share: its size, and its rows in the orders the methods need them.

use crate::store::{SqlContext, Store};
use crate::Result;

impl Store {
    /// Number of distinct tuples.
    pub fn tuple_count(&self) -> Result<u64> {
        Ok(self.value::<i64>("SELECT COUNT(*) FROM QidTuple", [])? as u64)
    }

    /// Records of all tuples (the sum of their counts).
    pub fn tuple_records(&self) -> Result<u64> {
        Ok(self.value::<i64>("SELECT COALESCE(SUM(Count), 0) FROM QidTuple", [])? as u64)
    }

    /// Streams the tuples in order of first record: `f(codes, count, first record)`.
    pub fn for_each_tuple_by_first_record(
        &self,
        f: impl FnMut(&[u32], u64, u64) -> Result<()>,
    ) -> Result<()> {
        self.tuples_ordered("FirstRecord", f)
    }

    /// Streams the tuples in key order (their codes, lexicographically): `f(codes, count,
    /// first record)`.
    pub fn for_each_tuple_in_key_order(
        &self,
        f: impl FnMut(&[u32], u64, u64) -> Result<()>,
    ) -> Result<()> {
        let cols = self.layout().qids.join(", ");
        self.tuples_ordered(&cols, f)
    }

    /// Streams the tuples in key order with their counts only: `f(codes, count)` (Mondrian's
    /// passes over the store).
    pub fn for_each_tuple_count_in_key_order(
        &self,
        mut f: impl FnMut(&[u32], u64) -> Result<()>,
    ) -> Result<()> {
        let cols = self.layout().qids.join(", ");
        let width = self.layout().qids.len();
        let db = self.path();
        let mut stmt = self
            .conn()
            .prepare(&format!(
                "SELECT {cols}, Count FROM QidTuple ORDER BY {cols}"
            ))
            .ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        let mut codes = vec![0u32; width];
        while let Some(row) = rows.next().ctx(db)? {
            for (q, c) in codes.iter_mut().enumerate() {
                *c = row.get::<_, i64>(q).ctx(db)? as u32;
            }
            f(&codes, row.get::<_, i64>(width).ctx(db)? as u64)?;
        }
        Ok(())
    }

    /// `SELECT codes, Count, FirstRecord FROM QidTuple ORDER BY order`, streamed.
    fn tuples_ordered(
        &self,
        order: &str,
        mut f: impl FnMut(&[u32], u64, u64) -> Result<()>,
    ) -> Result<()> {
        let cols = &self.layout().qids;
        let width = cols.len();
        let sql = format!(
            "SELECT {}, Count, FirstRecord FROM QidTuple ORDER BY {order}",
            cols.join(", ")
        );
        let db = self.path();
        let mut stmt = self.conn().prepare(&sql).ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        let mut codes = vec![0u32; width];
        while let Some(r) = rows.next().ctx(db)? {
            for (q, c) in codes.iter_mut().enumerate() {
                *c = r.get::<_, i64>(q).ctx(db)? as u32;
            }
            let count = r.get::<_, i64>(width).ctx(db)? as u64;
            let first = r.get::<_, i64>(width + 1).ctx(db)? as u64;
            f(&codes, count, first)?;
        }
        Ok(())
    }
}
