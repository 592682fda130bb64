//! Schema migrations: `migrations/NNNN_name.sql`, embedded at build time, applied in order at
//! open in one exclusive transaction, the version kept in `PRAGMA user_version` (as cargo's
//! `util/sqlite.rs`). Append-only: a released migration never changes.

use rusqlite::{Connection, TransactionBehavior};

use super::SqlContext;
use crate::{Error, Result};

/// Every migration, in order; `user_version` = how many are applied.
pub const MIGRATIONS: &[(&str, &str)] = &[
    (
        "0001_catalogue",
        include_str!("../../migrations/0001_catalogue.sql"),
    ),
    (
        "0002_builder_source",
        include_str!("../../migrations/0002_builder_source.sql"),
    ),
];

/// The schema version this anonbox writes.
pub fn latest() -> i64 {
    MIGRATIONS.len() as i64
}

/// The database's schema version.
pub fn version(conn: &Connection, db: &std::path::Path) -> Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
        .ctx(db)
}

/// Brings the database to [`latest`]; refuses a database from a newer anonbox.
pub fn migrate(conn: &mut Connection, db: &std::path::Path) -> Result<()> {
    // Migrations rebuild tables (SQLite's way to change a constraint), which foreign key
    // enforcement would refuse; the pragma is a no-op inside a transaction, so set it here.
    let fk: bool = conn
        .pragma_query_value(None, "foreign_keys", |r| r.get(0))
        .ctx(db)?;
    conn.pragma_update(None, "foreign_keys", false).ctx(db)?;
    let result = apply(conn, db);
    conn.pragma_update(None, "foreign_keys", fk).ctx(db)?;
    result
}

fn apply(conn: &mut Connection, db: &std::path::Path) -> Result<()> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Exclusive)
        .ctx(db)?;
    let have = version(&tx, db)?;
    if have > latest() {
        return Err(Error::Invalid(format!(
            "database {} was written by a newer anonbox (schema version {have}; this anonbox \
             knows versions up to {}): use a newer anonbox, or another -db file",
            db.display(),
            latest()
        )));
    }
    for (name, sql) in &MIGRATIONS[have.max(0) as usize..] {
        tx.execute_batch(sql).map_err(|e| {
            Error::Invalid(format!(
                "database {}: migration {name} failed: {e}",
                db.display()
            ))
        })?;
    }
    tx.pragma_update(None, "user_version", latest()).ctx(db)?;
    tx.commit().ctx(db)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn migrations_apply_to_an_empty_database() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, Path::new(":memory:")).unwrap();
        assert_eq!(version(&conn, Path::new("m")).unwrap(), latest());
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        for t in [
            "Attribute",
            "Dictionary",
            "HierarchyLabel",
            "HierarchyMap",
            "HierarchyView",
            "Run",
        ] {
            assert!(tables.iter().any(|x| x == t), "{t} missing from {tables:?}");
        }
        // Idempotent: a second open applies nothing.
        migrate(&mut conn, Path::new(":memory:")).unwrap();
    }

    #[test]
    fn a_version_1_database_keeps_its_rows_and_takes_builders() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(MIGRATIONS[0].1).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        conn.execute_batch(
            "INSERT INTO Attribute VALUES (0, 1, 'age', 'qid', 'hierarchy', 'h.csv', 5, '*', \
             'ATT_1'); INSERT INTO Dictionary VALUES (0, 0, '34');",
        )
        .unwrap();
        migrate(&mut conn, Path::new("old.db")).unwrap();
        let name: String = conn
            .query_row("SELECT Name FROM Attribute WHERE InputIndex = 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(name, "age");
        conn.execute(
            "INSERT INTO Attribute VALUES (1, 2, 'zip', 'qid', 'builder', 'mask', 6, '*', \
             'ATT_2')",
            [],
        )
        .unwrap();
        assert!(conn
            .execute(
                "INSERT INTO Attribute VALUES (2, 3, 'x', 'qid', 'other', NULL, 2, '*', 'ATT_3')",
                [],
            )
            .is_err());
        let rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM HierarchyView", [], |r| r.get(0))
            .unwrap();
        assert_eq!(rows, 0);
    }

    #[test]
    fn every_migration_opens_with_a_comment() {
        for (name, sql) in MIGRATIONS {
            assert!(sql.starts_with("-- "), "{name} must say why it exists");
        }
    }

    #[test]
    fn refuses_a_newer_database() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", latest() + 1)
            .unwrap();
        let err = migrate(&mut conn, Path::new("kept.db"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("kept.db was written by a newer anonbox"),
            "{err}"
        );
    }
}
