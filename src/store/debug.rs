//! Raw SQL on the working database, for tests that check the tables themselves (and debugging
//! sessions). Nothing in anonbox calls these: its methods and writers read and write through
//! the typed functions of [`super::queries`], and the connection stays private.

use rusqlite::types::Value;

use super::{SqlContext, Store};
use crate::Result;

impl Store {
    /// Every row of the query `sql`, each column as SQLite returns it.
    #[doc(hidden)]
    pub fn debug_query(&self, sql: &str) -> Result<Vec<Vec<Value>>> {
        let db = self.path();
        let mut stmt = self.conn().prepare(sql).ctx(db)?;
        let width = stmt.column_count();
        let rows = stmt
            .query_map([], |r| (0..width).map(|i| r.get::<_, Value>(i)).collect())
            .ctx(db)?
            .collect::<rusqlite::Result<Vec<Vec<Value>>>>()
            .ctx(db)?;
        Ok(rows)
    }

    /// Runs `sql` (statements without rows), as a test that damages the tables on purpose does.
    #[doc(hidden)]
    pub fn debug_exec(&self, sql: &str) -> Result<()> {
        self.exec(sql)
    }
}
