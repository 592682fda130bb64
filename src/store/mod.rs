//! The SQLite working database: records larger than memory.
//!
//! Layout (the toolbox manual's §3.2, with integer codes instead of doubles):
//! - `AnonRecordTable(RecordID, EquivalenceID, ATT_<i>...)`: one row per kept input row, in input
//!   order, each quasi-identifier and sensitive attribute as its dictionary code. Non-attribute
//!   columns are not stored: the output pass re-reads the input file.
//! - `QidTuple(ATT_<qid>..., Count, FirstRecord, EquivalenceID)`: the distinct quasi-identifier
//!   tuples with their record counts (the toolbox's initial equivalence table). Algorithms work
//!   on these, not on rows; `EquivalenceID` is where a method puts each tuple.
//! - `EquivalenceTable(EquivalenceID, ATT_<qid>..., Size, Suppressed)`: the final classes with
//!   their generalizations as printed.
//! - The catalogue of `migrations/` (`Run`, `Attribute`, `Dictionary`, `HierarchyMap`,
//!   `HierarchyLabel`) and generated views with labels (see [`schema`]).
//!
//! Life cycle: [`Store::open`] creates the file owner-only (0600) before anything is written,
//! sets pragmas (`journal_mode=OFF`, `synchronous=OFF`: nobody else opens the file while the run
//! writes it) and migrates. A kept database (`-db`) is a fresh temporary file next to its
//! destination, created through the run's [`Publication`](crate::io::Publication), which
//! [`Store::commit`] stages and the run renames into place with its other outputs: a failed or interrupted run leaves no database behind and an existing one untouched
//! (its previous run is replaced as a whole). [`Store::load`] streams the input in
//! large transactions through multi-row inserts, then writes the catalogue and groups the
//! tuples (indexes after the data); [`Store::load_table`] does the same from a table the in-memory
//! engine already read (the lattice searches with `-db`), and [`Store::assign_full_domain`]
//! writes the classes of a full-domain result (Incognito, and those searches). A method fills
//! `EquivalenceTable` and `QidTuple.EquivalenceID` ([`Store::insert_class`], its own typed
//! queries in [`queries`], or [`Store::assign_full_domain`]); [`Store::labels`] streams
//! the generalized labels in record order for the writers, each record through its tuple
//! (kept by the load as one `u32` a record while the tuples fit its memory). A method that
//! decides every tuple's class at once writes them with [`Store::write_tuple_classes`], one
//! rebuild of `QidTuple` instead of millions of row updates. A
//! kept database also gets `AnonRecordTable.EquivalenceID` ([`Store::assign_records`]), so that
//! it reads like the toolbox's tables; a throwaway one skips that pass over the records.
//!
//! The store owns its SQL (as cargo's `util/sqlite.rs` and `rusqlite::Transaction` do): the
//! connection is private, every statement lives in this module, each method's and writer's in
//! its module of [`queries`], and callers see typed functions (codes, counts, labels, ids).
//! Writes that belong together run in a [`Transaction`], a value that rolls back when dropped
//! uncommitted. The labels the writers read are `data`'s
//! [`LabelSource`](crate::data::LabelSource), so the store, which `output` uses, does not
//! import `output`.
//!
//! The throwaway database is SQLite's private temporary database (opened with an empty file
//! name): SQLite unlinks its file as soon as it is created, so no signal, crash or kill can
//! leave the raw data behind in the temporary folder.

mod classes;
mod debug;
mod labels;
mod load;
mod migrate;
pub mod queries;
pub mod schema;
mod transaction;

use std::path::{Path, PathBuf};

use rusqlite::Connection;

pub use labels::StoreLabels;
pub use load::{LoadTimings, Loaded, BATCH, TUPLE_MEMORY};
pub use migrate::{latest as schema_version, MIGRATIONS};
pub use queries::anatomy::AnatomyRecords;
pub use queries::datafly::DataflyTuples;
pub use queries::incognito::IncognitoTuples;
pub use queries::output::{ClassLookup, ClassStats, RecordClasses, StatsColumn};
pub use schema::Layout;
pub use transaction::Transaction;

use crate::{Error, Result};

/// Adds the database path to rusqlite errors.
trait SqlContext<T> {
    fn ctx(self, db: &Path) -> Result<T>;
}

impl<T> SqlContext<T> for rusqlite::Result<T> {
    #[inline]
    fn ctx(self, db: &Path) -> Result<T> {
        self.map_err(|e| Error::sqlite(db, e))
    }
}

/// Page cache of the working database, in KiB (SQLite's negative `cache_size`).
const CACHE_KIB: i64 = 32 * 1024;

/// Tuples per pass of the label writer's hash join when the load kept no record's tuple
/// (`StoreLabels`): about 140 MB of table for six quasi-identifiers.
pub const LABEL_PASS_TUPLES: usize = 4_000_000;

/// An open working database.
pub struct Store {
    conn: Connection,
    /// A kept database's temporary file, staged by [`Store::commit`] into the run's publication
    /// (declared after `conn`, so that the connection closes before an uncommitted file is
    /// removed).
    file: Option<crate::io::AtomicFile>,
    path: PathBuf,
    layout: Option<Layout>,
    /// Memory for counting tuples during the load ([`load::TUPLE_MEMORY`]).
    tuple_memory: usize,
    /// Tuples per pass of the label writer's join ([`LABEL_PASS_TUPLES`]).
    label_pass_tuples: usize,
    /// Each record's tuple, as its position in `QidTuple`'s key order (when the load counted
    /// the tuples in memory): the writers' record -> tuple step, 4 bytes a record.
    record_tuple: Option<Vec<u32>>,
}

/// SQL expressions, comma-separated, for the labels of a class row `alias` whose columns
/// `G0, G1, ...` hold each quasi-identifier's id at `levels[q]` (looked up in `HierarchyLabel`).
fn level_labels_sql(levels: &[usize], alias: &str) -> String {
    levels
        .iter()
        .enumerate()
        .map(|(q, level)| {
            format!(
                "(SELECT Label FROM HierarchyLabel WHERE AttributeID = {q} AND Level = {level} \
                 AND Id = {alias}.G{q})"
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a run is, as the `Run` row keeps it for a reader of the database (built by the run
/// from its job): the method, its parameters as JSON, and where the config, input and output are.
#[derive(Debug, Clone, Default)]
pub struct RunRecord {
    pub method: &'static str,
    /// The parameters as a JSON object (`k`, `l`, `c`, `t`, suppression, metric, privacy, seed).
    pub parameters: String,
    pub config_path: Option<String>,
    pub config_text: Option<String>,
    pub input_path: String,
    pub separator: String,
    pub header: bool,
    pub output_path: Option<String>,
    pub output_format: Option<String>,
}

impl Store {
    /// Opens the working database: `db` to keep it there (an output of the run, staged in
    /// `publication`), else a temporary file removed when the `Store` drops
    /// ([`Store::open_temporary`]). A kept database's previous run is cleared.
    pub fn open(db: Option<&Path>, publication: &crate::io::Publication) -> Result<Store> {
        Store::open_in(db.map(|path| (path, publication)))
    }

    /// A throwaway working database, removed when the `Store` drops.
    pub fn open_temporary() -> Result<Store> {
        Store::open_in(None)
    }

    /// [`Store::open`]: a kept database at the path, staged in the publication, or none.
    fn open_in(kept: Option<(&Path, &crate::io::Publication)>) -> Result<Store> {
        let (conn, file, path) = match kept {
            None => {
                // SQLite's private temporary database (an empty file name): SQLite creates it in
                // the temporary folder and unlinks it at once, so no path ever shows the raw
                // data and nothing survives the process, however it ends.
                let path = PathBuf::from("");
                let conn = Connection::open(&path).ctx(&path)?;
                // Throwaway: no journal, no syncing, nobody else opens it.
                conn.execute_batch(
                    "PRAGMA page_size = 65536; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; \
                     PRAGMA locking_mode = EXCLUSIVE;",
                )
                .ctx(&path)?;
                (conn, None, PathBuf::from("<temporary database>"))
            }
            Some((path, publication)) => {
                check_kept(path)?;
                // Written into a temporary file next to `path` and renamed over it with the
                // run's other outputs: a failed or interrupted run leaves no database, and an
                // existing one as it was. Nobody else opens the file before that, so it runs
                // as the throwaway one does (no journal, no syncing until the commit).
                let file = publication.create_private(path)?;
                let temp = file.temp_path().expect("a database is a file");
                let conn = Connection::open(&temp).ctx(path)?;
                conn.execute_batch(
                    "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; \
                     PRAGMA locking_mode = EXCLUSIVE;",
                )
                .ctx(path)?;
                (conn, Some(file), path.to_path_buf())
            }
        };
        // `threads`: helper threads of SQLite's sorter, one per core (the `GROUP BY` of a
        // spilled tuple count over 20 M tuples: 29 -> 21 s on 2 cores).
        let sorter = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
        conn.execute_batch(&format!(
            "PRAGMA cache_size = -{CACHE_KIB}; PRAGMA temp_store = FILE; PRAGMA foreign_keys = OFF; \
             PRAGMA threads = {sorter};"
        ))
        .ctx(&path)?;
        let mut store = Store {
            conn,
            file,
            path,
            layout: None,
            tuple_memory: load::TUPLE_MEMORY,
            label_pass_tuples: LABEL_PASS_TUPLES,
            record_tuple: None,
        };
        migrate::migrate(&mut store.conn, &store.path)?;
        Ok(store)
    }

    /// An in-memory store (tests).
    pub fn open_in_memory() -> Result<Store> {
        let path = PathBuf::from(":memory:");
        let mut conn = Connection::open_in_memory().ctx(&path)?;
        migrate::migrate(&mut conn, &path)?;
        Ok(Store {
            conn,
            file: None,
            path,
            layout: None,
            tuple_memory: load::TUPLE_MEMORY,
            label_pass_tuples: LABEL_PASS_TUPLES,
            record_tuple: None,
        })
    }

    /// Sets the memory for counting distinct tuples during the load (tests force the spilling
    /// path with a tiny budget).
    pub fn set_tuple_memory(&mut self, bytes: usize) {
        self.tuple_memory = bytes;
    }

    /// Sets the tuples per pass of the label writer's join (tests force several passes).
    pub fn set_label_pass_tuples(&mut self, tuples: usize) {
        self.label_pass_tuples = tuples;
    }

    /// The connection: the store's own (methods and writers call the typed functions of
    /// [`queries`]).
    fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The database file (a temporary path unless kept).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True if the database outlives the run (`-db`).
    pub fn is_kept(&self) -> bool {
        self.file.is_some()
    }

    /// Column names of the data tables (after [`Store::load`]).
    pub fn layout(&self) -> &Layout {
        self.layout
            .as_ref()
            .expect("the store's layout is known once the input is loaded")
    }

    /// Runs `sql` (no parameters, no rows), naming this database in errors.
    fn exec(&self, sql: &str) -> Result<()> {
        self.conn.execute_batch(sql).ctx(&self.path)
    }

    /// Commits the transaction the load opened with `BEGIN` if `result` is Ok, else rolls it
    /// back and returns the error. The load commits every [`BATCH`] records inside it
    /// (`COMMIT; BEGIN`), which a [`Transaction`] value does not span; everything else uses one.
    fn end_transaction<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Ok(v) => {
                self.exec("COMMIT")?;
                Ok(v)
            }
            Err(e) => {
                let _ = self.exec("ROLLBACK");
                Err(e)
            }
        }
    }

    /// A single value from `sql`.
    fn value<T: rusqlite::types::FromSql>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
    ) -> Result<T> {
        self.conn
            .query_row(sql, params, |r| r.get(0))
            .ctx(&self.path)
    }

    /// Closes the database and stages a kept one in the publication it was opened with (the
    /// run's last step before its outputs are renamed into place). A throwaway database just
    /// closes.
    pub fn commit(self) -> Result<()> {
        let Store {
            conn, file, path, ..
        } = self;
        conn.close().map_err(|(_, e)| e).ctx(&path)?;
        match file {
            Some(f) => {
                // The replaced database's journal files (an older anonbox kept it in WAL),
                // beside the file replaced (SQLite puts them beside a link's target).
                f.remove_beside_on_publish(&["-wal", "-shm", "-journal"]);
                f.commit()
            }
            None => Ok(()),
        }
    }

    /// Records what is being run (the `Run` row).
    pub fn record_run(&self, run: &RunRecord) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO Run (RunID, AnonboxVersion, Method, Parameters, ConfigPath, \
                 ConfigText, InputPath, Separator, Header, OutputPath, OutputFormat) \
                 VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                rusqlite::params![
                    env!("CARGO_PKG_VERSION"),
                    run.method,
                    run.parameters,
                    run.config_path,
                    run.config_text,
                    run.input_path,
                    run.separator,
                    run.header,
                    run.output_path,
                    run.output_format,
                ],
            )
            .ctx(&self.path)?;
        Ok(())
    }

    /// Stores the run's report and end time.
    pub fn finish_run(&self, report_json: &str) -> Result<()> {
        self.conn
            .execute(
                "UPDATE Run SET Report = ?1, \
                 FinishedAt = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE RunID = 1",
                [report_json],
            )
            .ctx(&self.path)?;
        Ok(())
    }

    /// Adds the suppression class: every quasi-identifier at its suppression label (the VGH root
    /// or the hierarchy's top level), holding `records` records. Nothing when `records` is 0.
    pub fn insert_suppression_class(
        &self,
        id: i64,
        encoding: &crate::data::load::Encoding,
        records: u64,
    ) -> Result<()> {
        if records == 0 {
            return Ok(());
        }
        let root: Vec<&str> = encoding
            .qids
            .iter()
            .map(|e| e.suppressed.as_str())
            .collect();
        self.insert_class(id, &root, records, true)
    }

    /// The ids of the suppressed classes of `EquivalenceTable` (the suppression class of
    /// Datafly and Incognito), whose records every output format must print suppressed.
    pub fn suppressed_classes(&self) -> Result<rustc_hash::FxHashSet<u64>> {
        let mut stmt = self
            .conn
            .prepare("SELECT EquivalenceID FROM EquivalenceTable WHERE Suppressed")
            .ctx(&self.path)?;
        let ids = stmt
            .query_map([], |r| r.get::<_, i64>(0))
            .ctx(&self.path)?
            .map(|r| r.map(|id| id as u64).ctx(&self.path))
            .collect();
        ids
    }

    /// Adds one final class to `EquivalenceTable` (`labels` in quasi-identifier order).
    pub fn insert_class(
        &self,
        id: i64,
        labels: &[&str],
        size: u64,
        suppressed: bool,
    ) -> Result<()> {
        let layout = self.layout();
        let sql = format!(
            "INSERT INTO EquivalenceTable (EquivalenceID, {}, Size, Suppressed) VALUES ({})",
            layout.qids.join(", "),
            (1..=labels.len() + 3)
                .map(|i| format!("?{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut stmt = self.conn.prepare_cached(&sql).ctx(&self.path)?;
        stmt.raw_bind_parameter(1, id).ctx(&self.path)?;
        for (i, l) in labels.iter().enumerate() {
            stmt.raw_bind_parameter(i + 2, l).ctx(&self.path)?;
        }
        stmt.raw_bind_parameter(labels.len() + 2, size as i64)
            .ctx(&self.path)?;
        stmt.raw_bind_parameter(labels.len() + 3, suppressed)
            .ctx(&self.path)?;
        stmt.raw_execute().ctx(&self.path)?;
        Ok(())
    }

    /// Every class of `EquivalenceTable` by its id (ids are `1..` in every method, so a dense
    /// array: one byte a class, where a join to the table cost a B-tree search per tuple, a tenth
    /// of Mondrian's run at 5 M tuples). `None` if the ids are not dense enough for an array.
    fn classes_by_id(&self) -> Result<Option<ClassesById>> {
        let (min, max, n): (Option<i64>, Option<i64>, i64) = self
            .conn
            .query_row(
                "SELECT MIN(EquivalenceID), MAX(EquivalenceID), COUNT(*) FROM EquivalenceTable",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .ctx(&self.path)?;
        let (min, max) = (min.unwrap_or(0), max.unwrap_or(0));
        if min < 0 || max > 4 * n + (1 << 20) {
            return Ok(None);
        }
        let mut flags = vec![0u8; max as usize + 1];
        let mut stmt = self
            .conn
            .prepare("SELECT EquivalenceID, Suppressed FROM EquivalenceTable")
            .ctx(&self.path)?;
        let mut rows = stmt.query([]).ctx(&self.path)?;
        while let Some(r) = rows.next().ctx(&self.path)? {
            let id: i64 = r.get(0).ctx(&self.path)?;
            let suppressed: bool = r.get(1).ctx(&self.path)?;
            flags[id as usize] = if suppressed { 2 } else { 1 };
        }
        Ok(Some(ClassesById(flags)))
    }

    /// Checks a method's result: every tuple is in a class of `EquivalenceTable`, and the
    /// classes hold every record exactly once.
    pub fn check_classes(&self, records: u64) -> Result<()> {
        let sizes: i64 = self.value("SELECT COALESCE(SUM(Size), 0) FROM EquivalenceTable", [])?;
        let (orphans, counted) = match self.classes_by_id()? {
            Some(classes) => {
                let mut stmt = self
                    .conn
                    .prepare("SELECT EquivalenceID, Count FROM QidTuple")
                    .ctx(&self.path)?;
                let mut rows = stmt.query([]).ctx(&self.path)?;
                let (mut orphans, mut counted) = (0i64, 0i64);
                while let Some(r) = rows.next().ctx(&self.path)? {
                    let id: Option<i64> = r.get(0).ctx(&self.path)?;
                    orphans += i64::from(classes.suppressed(id).is_none());
                    counted += r.get::<_, i64>(1).ctx(&self.path)?;
                }
                (orphans, counted)
            }
            None => (
                self.value(
                    "SELECT COUNT(*) FROM QidTuple t WHERE NOT EXISTS \
                     (SELECT 1 FROM EquivalenceTable e WHERE e.EquivalenceID = t.EquivalenceID)",
                    [],
                )?,
                self.value("SELECT COALESCE(SUM(t.Count), 0) FROM QidTuple t", [])?,
            ),
        };
        if orphans > 0 || sizes as u64 != records || counted as u64 != records {
            return Err(Error::Invalid(format!(
                "internal error: {orphans} tuples without a class; classes hold {sizes} records, \
                 tuples {counted}, the input {records}"
            )));
        }
        Ok(())
    }

    /// Streams `QidTuple`: each distinct tuple's codes, its records and whether its class is
    /// suppressed (a tuple without a class, as after Anatomy, counts as not suppressed).
    pub fn for_each_tuple(&self, mut f: impl FnMut(&[u32], u64, bool)) -> Result<()> {
        let cols = &self.layout().qids;
        let classes = self.classes_by_id()?;
        let t_cols = cols
            .iter()
            .map(|c| format!("t.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = match classes {
            Some(_) => format!("SELECT {t_cols}, t.Count, t.EquivalenceID FROM QidTuple t"),
            None => format!(
                "SELECT {t_cols}, t.Count, COALESCE(e.Suppressed, 0) FROM QidTuple t \
                 LEFT JOIN EquivalenceTable e ON e.EquivalenceID = t.EquivalenceID"
            ),
        };
        let width = cols.len();
        let mut stmt = self.conn.prepare(&sql).ctx(&self.path)?;
        let mut rows = stmt.query([]).ctx(&self.path)?;
        let mut codes = vec![0u32; width];
        while let Some(r) = rows.next().ctx(&self.path)? {
            for (i, c) in codes.iter_mut().enumerate() {
                *c = r.get::<_, i64>(i).ctx(&self.path)? as u32;
            }
            let count = r.get::<_, i64>(width).ctx(&self.path)? as u64;
            let suppressed = match &classes {
                Some(classes) => {
                    let id: Option<i64> = r.get(width + 1).ctx(&self.path)?;
                    classes.suppressed(id).unwrap_or(false)
                }
                None => r.get::<_, bool>(width + 1).ctx(&self.path)?,
            };
            f(&codes, count, suppressed);
        }
        Ok(())
    }

    /// Streams the released classes of `EquivalenceTable` (suppressed ones left out): each
    /// class's labels, in quasi-identifier order, and its size.
    pub fn for_each_released_class(&self, mut f: impl FnMut(&[String], u64)) -> Result<()> {
        let cols = &self.layout().qids;
        let sql = format!(
            "SELECT {}, Size FROM EquivalenceTable WHERE Suppressed = 0 ORDER BY EquivalenceID",
            cols.join(", ")
        );
        let width = cols.len();
        let mut stmt = self.conn.prepare(&sql).ctx(&self.path)?;
        let mut rows = stmt.query([]).ctx(&self.path)?;
        let mut labels = vec![String::new(); width];
        while let Some(r) = rows.next().ctx(&self.path)? {
            for (i, l) in labels.iter_mut().enumerate() {
                *l = r.get::<_, String>(i).ctx(&self.path)?;
            }
            f(&labels, r.get::<_, i64>(width).ctx(&self.path)? as u64);
        }
        Ok(())
    }

    /// Points every record at its class: `AnonRecordTable.EquivalenceID` from
    /// `QidTuple.EquivalenceID` (one pass over the records). The pipeline does this for a kept
    /// database only; the writers go through `QidTuple` and do not need it.
    pub fn assign_records(&self) -> Result<()> {
        let l = self.layout();
        let on = l
            .qids
            .iter()
            .map(|c| format!("t.{c} = AnonRecordTable.{c}"))
            .collect::<Vec<_>>()
            .join(" AND ");
        let tx = self.begin()?;
        tx.exec(&format!(
            "UPDATE AnonRecordTable SET EquivalenceID = \
             (SELECT t.EquivalenceID FROM QidTuple t WHERE {on});"
        ))?;
        tx.commit()
    }

    /// Sets every tuple's class at once: the `t`-th tuple of `QidTuple` in key order gets
    /// `classes[t]`. The table is rebuilt (its rows appended in key order to a new table that
    /// replaces it) rather than updated row by row: an update rewrites each row where it lies,
    /// several times slower than appending once there are millions.
    pub fn write_tuple_classes(&self, classes: &[u32]) -> Result<()> {
        let l = self.layout();
        let cols = l.qids.join(", ");
        let db = &self.path;
        let tx = self.begin()?;
        tx.exec(&format!(
            "DROP TABLE IF EXISTS QidTupleNew; {}",
            l.create_qid_tuple("QidTupleNew")
        ))?;
        {
            let names: Vec<&str> = l
                .qids
                .iter()
                .map(String::as_str)
                .chain(["Count", "FirstRecord", "EquivalenceID"])
                .collect();
            let mut bulk = load::Bulk::new(self, "QidTupleNew", &names)?;
            let mut stmt = self
                .conn
                .prepare(&format!(
                    "SELECT {cols}, Count, FirstRecord FROM QidTuple ORDER BY {cols}"
                ))
                .ctx(db)?;
            let mut rows = stmt.query([]).ctx(db)?;
            let width = l.qids.len() + 2;
            let mut row: Vec<i64> = Vec::with_capacity(width);
            let mut t = 0usize;
            while let Some(r) = rows.next().ctx(db)? {
                let class = *classes.get(t).ok_or_else(|| {
                    Error::Invalid("internal error: more tuples than classes".into())
                })?;
                row.clear();
                for i in 0..width {
                    row.push(r.get::<_, i64>(i).ctx(db)?);
                }
                bulk.push(self, row.iter().copied().chain([class as i64]))?;
                t += 1;
            }
            bulk.flush(self)?;
            if t != classes.len() {
                return Err(Error::Invalid(
                    "internal error: fewer tuples than classes".into(),
                ));
            }
        }
        tx.exec("DROP TABLE QidTuple; ALTER TABLE QidTupleNew RENAME TO QidTuple;")?;
        tx.commit()
    }

    /// Kept classes and suppressed records, from `EquivalenceTable`.
    pub fn class_summary(&self) -> Result<(u64, u64)> {
        let (classes, suppressed): (i64, i64) = self
            .conn
            .query_row(
                "SELECT COALESCE(SUM(Suppressed = 0), 0), \
                 COALESCE(SUM(CASE WHEN Suppressed THEN Size ELSE 0 END), 0) \
                 FROM EquivalenceTable",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .ctx(&self.path)?;
        Ok((classes as u64, suppressed as u64))
    }
}

/// Each class of `EquivalenceTable` by id: 0 none, 1 released, 2 suppressed.
struct ClassesById(Vec<u8>);

impl ClassesById {
    /// Whether class `id` is suppressed; `None` if there is no such class.
    fn suppressed(&self, id: Option<i64>) -> Option<bool> {
        match id
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| self.0.get(i))
        {
            Some(1) => Some(false),
            Some(2) => Some(true),
            _ => None,
        }
    }
}

/// Checks an existing `-db` file before anything is written (errors are flag errors: the file
/// is left as it is): it must be an anonbox database this anonbox can read (or empty); anything
/// else is refused rather than overwritten.
pub fn check_kept(path: &Path) -> Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let refuse = |why: String| {
        Error::Usage(format!(
            "-db: {} {why}: choose another -db file",
            path.display()
        ))
    };
    // Immutable: read without locks and without creating the `-shm` file a WAL database would
    // otherwise get (a failed run must leave the folder as it was).
    let mut uri = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'?' | b'#' | b'%' | 0x80.. => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(*b as char),
        }
    }
    uri.push_str("?immutable=1");
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(&uri, flags)
        .map_err(|e| refuse(format!("cannot be opened ({e})")))?;
    let objects: i64 = conn
        .query_row("SELECT COUNT(*) FROM sqlite_master", [], |r| r.get(0))
        .map_err(|e| refuse(format!("is not an SQLite database ({e})")))?;
    let version = migrate::version(&conn, path)?;
    // Another program's database may set `user_version` too: an anonbox database also has the
    // catalogue of its first migration.
    let catalogue: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN \
             ('Run', 'Attribute', 'Dictionary', 'HierarchyMap', 'HierarchyLabel')",
            [],
            |r| r.get(0),
        )
        .map_err(|e| refuse(format!("is not an SQLite database ({e})")))?;
    if (version == 0 && objects > 0) || (version > 0 && catalogue < 5) {
        return Err(refuse("exists and is not an anonbox database".into()));
    }
    if version > migrate::latest() {
        return Err(refuse(format!(
            "was written by a newer anonbox (schema version {version}; this anonbox knows \
             versions up to {})",
            migrate::latest()
        )));
    }
    Ok(())
}
