//! What the report measures on a store method's release: the sensitive values of each released
//! class, from which `release` derives the l and t the release achieves, as `anonbox audit`
//! would on the written file.

use crate::store::{SqlContext, Store};
use crate::Result;

impl Store {
    /// Streams the released records by class and value of sensitive attribute `s`: `f(class,
    /// sensitive code, records)`, one call per pair, a class's pairs together. Classes are the
    /// tuples' (`QidTuple.EquivalenceID`, every method but Anatomy); suppressed classes are
    /// left out.
    pub fn for_each_released_sensitive(
        &self,
        s: usize,
        mut f: impl FnMut(u64, u32, u64),
    ) -> Result<()> {
        let col = self.sensitive_column(s)?;
        let on = self.record_tuple_join();
        let db = self.path();
        // CROSS JOIN fixes the loop order: records outside, one primary key lookup in QidTuple
        // per record.
        let mut stmt = self
            .conn()
            .prepare(&format!(
                "SELECT t.EquivalenceID, r.{col}, COUNT(*) FROM AnonRecordTable r \
                 CROSS JOIN QidTuple t ON {on} \
                 JOIN EquivalenceTable e ON e.EquivalenceID = t.EquivalenceID \
                 WHERE e.Suppressed = 0 GROUP BY t.EquivalenceID, r.{col}"
            ))
            .ctx(db)?;
        let mut rows = stmt.query([]).ctx(db)?;
        while let Some(r) = rows.next().ctx(db)? {
            let class = r.get::<_, i64>(0).ctx(db)? as u64;
            let code = r.get::<_, i64>(1).ctx(db)? as u32;
            let n = r.get::<_, i64>(2).ctx(db)? as u64;
            f(class, code, n);
        }
        Ok(())
    }

    /// The condition joining a record `r` of `AnonRecordTable` to its tuple `t` of `QidTuple`
    /// (`1` without quasi-identifiers).
    pub(in crate::store) fn record_tuple_join(&self) -> String {
        let on = self
            .layout()
            .qids
            .iter()
            .map(|c| format!("t.{c} = r.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        if on.is_empty() {
            "1".to_string()
        } else {
            on
        }
    }
}
