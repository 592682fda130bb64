//! A transaction as a value (as `rusqlite::Transaction`, which it wraps): [`Store::begin`]
//! opens it, [`Transaction::commit`] ends it, and dropping it uncommitted rolls it back, so a
//! method that returns an error with `?` halfway leaves the tables as they were. It dereferences
//! to the [`Store`], whose typed functions run inside it.

use std::ops::Deref;

use super::{SqlContext, Store};
use crate::Result;

/// An open transaction on a [`Store`]; rolled back when dropped without [`Self::commit`].
pub struct Transaction<'a> {
    store: &'a Store,
    tx: rusqlite::Transaction<'a>,
}

impl Store {
    /// Opens a transaction (`BEGIN`): the store's writes until [`Transaction::commit`] are one.
    pub fn begin(&self) -> Result<Transaction<'_>> {
        // `unchecked_transaction`: the store is shared (`&Store`) while a method writes, and
        // transactions never nest (nothing inside one opens another).
        let tx = self.conn.unchecked_transaction().ctx(&self.path)?;
        Ok(Transaction { store: self, tx })
    }
}

impl Transaction<'_> {
    /// Commits (`COMMIT`).
    pub fn commit(self) -> Result<()> {
        let path = &self.store.path;
        self.tx.commit().ctx(path)
    }
}

impl Deref for Transaction<'_> {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.store
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(store: &Store) -> usize {
        store.debug_query("SELECT * FROM T").unwrap().len()
    }

    #[test]
    fn a_dropped_transaction_rolls_back_and_a_committed_one_stays() {
        let store = Store::open_in_memory().unwrap();
        store.exec("CREATE TABLE T (x INTEGER)").unwrap();
        {
            let tx = store.begin().unwrap();
            tx.exec("INSERT INTO T VALUES (1)").unwrap();
            assert_eq!(rows(&tx), 1);
        }
        assert_eq!(rows(&store), 0, "dropped uncommitted: rolled back");
        let tx = store.begin().unwrap();
        tx.exec("INSERT INTO T VALUES (2)").unwrap();
        tx.commit().unwrap();
        assert_eq!(rows(&store), 1);
        // An error returned with `?` halfway leaves the table as it was.
        let failing = || -> Result<()> {
            let tx = store.begin()?;
            tx.exec("INSERT INTO T VALUES (3)")?;
            tx.exec("INSERT INTO Missing VALUES (4)")?;
            tx.commit()
        };
        assert!(failing().is_err());
        assert_eq!(rows(&store), 1);
        // The store takes a new transaction after both.
        store.begin().unwrap().commit().unwrap();
    }
}
