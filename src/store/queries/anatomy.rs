//! Anatomy's reads and writes: it groups records, not tuples, so it reads `AnonRecordTable`'s
//! sensitive codes and writes each record's group to `AnonRecordTable.EquivalenceID`. Its SQL
//! backend ([`AnatomyRecords`]) numbers each bucket's records in record order
//! (`temp.AnatomyRecord(Bucket, Rank, RecordID)`), so that "the k-th remaining record of a
//! bucket" is a primary key lookup once the caller turned k into a rank.

use crate::store::{SqlContext, Store};
use crate::Result;

impl Store {
    /// Streams the code of sensitive attribute `s` of every record, in record order.
    pub fn for_each_sensitive_code(
        &self,
        s: usize,
        mut f: impl FnMut(u32) -> Result<()>,
    ) -> Result<()> {
        let col = self.sensitive_column(s)?;
        let db = self.path();
        let mut stmt = self
            .conn()
            .prepare(&format!(
                "SELECT {col} FROM AnonRecordTable ORDER BY RecordID"
            ))
            .ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        while let Some(r) = rows.next().ctx(db)? {
            f(r.get::<_, i64>(0).ctx(db)? as u32)?;
        }
        Ok(())
    }

    /// Writes every record's group (`groups[record - 1]`) to `AnonRecordTable.EquivalenceID`,
    /// in one transaction.
    pub fn write_record_groups(&self, groups: &[u32]) -> Result<()> {
        let db = self.path();
        let tx = self.begin()?;
        {
            let mut stmt = tx
                .conn()
                .prepare("UPDATE AnonRecordTable SET EquivalenceID = ?1 WHERE RecordID = ?2")
                .ctx(db)?;
            for (i, &g) in groups.iter().enumerate() {
                stmt.execute([g as i64, i as i64 + 1]).ctx(db)?;
            }
        }
        tx.commit()
    }

    /// The records of each group of `AnonRecordTable.EquivalenceID`: `(group, records)`, by
    /// ascending group.
    pub fn record_group_sizes(&self) -> Result<Vec<(i64, u64)>> {
        let db = self.path();
        let mut stmt = self
            .conn()
            .prepare(
                "SELECT EquivalenceID, COUNT(*) FROM AnonRecordTable GROUP BY EquivalenceID \
                 ORDER BY EquivalenceID",
            )
            .ctx(db)?;
        let sizes = stmt
            .query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
            .ctx(db)?
            .map(|r| r.map(|(g, n)| (g, n as u64)))
            .collect::<rusqlite::Result<Vec<_>>>()
            .ctx(db)?;
        Ok(sizes)
    }
}

/// Anatomy's records in SQL: `temp.AnatomyBucket(Code, Bucket)` maps each sensitive code to its
/// bucket, `temp.AnatomyRecord(Bucket, Rank, RecordID)` numbers each bucket's records in record
/// order from 0, and an index on the sensitive column finds the groups holding a value.
pub struct AnatomyRecords<'a> {
    store: &'a Store,
    col: String,
}

impl<'a> AnatomyRecords<'a> {
    /// Creates the working tables for sensitive attribute `s`, whose code `c` is in bucket
    /// `bucket_of[c]`.
    pub fn create(store: &'a Store, s: usize, bucket_of: &[u32]) -> Result<AnatomyRecords<'a>> {
        let col = store.sensitive_column(s)?.to_string();
        let db = store.path();
        store.exec(
            "DROP TABLE IF EXISTS temp.AnatomyBucket; DROP TABLE IF EXISTS temp.AnatomyRecord;\n\
             CREATE TEMP TABLE AnatomyBucket (Code INTEGER PRIMARY KEY, Bucket INTEGER NOT NULL);",
        )?;
        let tx = store.begin()?;
        {
            let mut stmt = tx
                .conn()
                .prepare("INSERT INTO temp.AnatomyBucket VALUES (?1, ?2)")
                .ctx(db)?;
            for (code, &b) in bucket_of.iter().enumerate() {
                stmt.execute([code as i64, b as i64]).ctx(db)?;
            }
        }
        tx.commit()?;
        store.exec(&format!(
            "CREATE TEMP TABLE AnatomyRecord (Bucket INTEGER NOT NULL, Rank INTEGER NOT NULL, \
             RecordID INTEGER NOT NULL, PRIMARY KEY (Bucket, Rank)) WITHOUT ROWID;\n\
             INSERT INTO temp.AnatomyRecord SELECT b.Bucket, \
             ROW_NUMBER() OVER (PARTITION BY b.Bucket ORDER BY r.RecordID) - 1, r.RecordID \
             FROM AnonRecordTable r JOIN temp.AnatomyBucket b ON b.Code = r.{col};\n\
             CREATE INDEX IF NOT EXISTS AnatomyBySensitive ON AnonRecordTable ({col});"
        ))?;
        Ok(AnatomyRecords { store, col })
    }

    /// The records of each of the buckets `0..buckets`.
    pub fn bucket_sizes(&self, buckets: usize) -> Result<Vec<u64>> {
        let db = self.store.path();
        let mut stmt = self
            .store
            .conn()
            .prepare("SELECT COUNT(*) FROM temp.AnatomyRecord WHERE Bucket = ?1")
            .ctx(db)?;
        (0..buckets)
            .map(|b| {
                let n: i64 = stmt.query_row([b as i64], |r| r.get(0)).ctx(db)?;
                Ok(n as u64)
            })
            .collect()
    }

    /// Puts the record of rank `rank` in `bucket` into `group`.
    pub fn take(&self, bucket: usize, rank: usize, group: u32) -> Result<()> {
        self.store
            .conn()
            .prepare_cached(
                "UPDATE AnonRecordTable SET EquivalenceID = ?1 WHERE RecordID = \
                 (SELECT RecordID FROM temp.AnatomyRecord WHERE Bucket = ?2 AND Rank = ?3)",
            )
            .and_then(|mut s| s.execute([group as i64, bucket as i64, rank as i64]))
            .ctx(self.store.path())?;
        Ok(())
    }

    /// The records without a group, in record order, with their buckets.
    pub fn remaining(&self) -> Result<Vec<(u64, usize)>> {
        let db = self.store.path();
        let mut stmt = self
            .store
            .conn()
            .prepare(&format!(
                "SELECT r.RecordID, b.Bucket FROM AnonRecordTable r \
                 JOIN temp.AnatomyBucket b ON b.Code = r.{} \
                 WHERE r.EquivalenceID IS NULL ORDER BY r.RecordID",
                self.col
            ))
            .ctx(db)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((r.get::<_, i64>(0)? as u64, r.get::<_, i64>(1)? as usize))
            })
            .ctx(db)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .ctx(db)?;
        Ok(rows)
    }

    /// The groups (ascending, distinct) holding a record whose sensitive code is `code`.
    pub fn groups_with(&self, code: u32) -> Result<Vec<u32>> {
        let db = self.store.path();
        let mut stmt = self
            .store
            .conn()
            .prepare(&format!(
                "SELECT DISTINCT EquivalenceID FROM AnonRecordTable \
                 WHERE {} = ?1 AND EquivalenceID IS NOT NULL ORDER BY 1",
                self.col
            ))
            .ctx(db)?;
        let rows = stmt
            .query_map([code as i64], |r| Ok(r.get::<_, i64>(0)? as u32))
            .ctx(db)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .ctx(db)?;
        Ok(rows)
    }

    /// Puts record `record` into `group`.
    pub fn assign(&self, record: u64, group: u32) -> Result<()> {
        self.store
            .conn()
            .prepare_cached("UPDATE AnonRecordTable SET EquivalenceID = ?1 WHERE RecordID = ?2")
            .and_then(|mut s| s.execute([group as i64, record as i64]))
            .ctx(self.store.path())?;
        Ok(())
    }

    /// Drops the working tables and the index.
    pub fn drop_tables(&self) -> Result<()> {
        self.store.exec(
            "DROP TABLE IF EXISTS temp.AnatomyRecord; DROP TABLE IF EXISTS temp.AnatomyBucket;\n\
             DROP INDEX IF EXISTS AnatomyBySensitive;",
        )
    }
}
