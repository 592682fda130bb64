//! The per-run data tables and views, generated from the input's attributes.
//!
//! Their width is the input's (one column per attribute), so they cannot live in `migrations/`.
//! Columns are named `ATT_<input index>` as in the toolbox; `Attribute` maps names to columns,
//! and the views put names and labels back for people reading the database with sqlite3:
//! - `RecordView`: each record's original values (dictionary labels) and its class;
//! - `AnonymizedView`: each record's generalized quasi-identifiers, as the output prints them.

use crate::data::load::Source;

/// Column names of the data tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// One per quasi-identifier, in `<qid>` order: `ATT_<index>`.
    pub qids: Vec<String>,
    /// One per sensitive attribute.
    pub sensitive: Vec<String>,
    /// Attribute names, quasi-identifiers then sensitive (for the views).
    pub names: Vec<String>,
}

impl Layout {
    pub fn new(source: &Source<'_>) -> Layout {
        Layout {
            qids: source.qids.iter().map(|q| column(q.index)).collect(),
            sensitive: source.sensitive.iter().map(|s| column(s.index)).collect(),
            names: source
                .qids
                .iter()
                .map(|q| q.name.clone())
                .chain(source.sensitive.iter().map(|s| s.name.clone()))
                .collect(),
        }
    }

    /// All attribute columns: quasi-identifiers, then sensitive attributes.
    pub fn all(&self) -> impl Iterator<Item = &String> {
        self.qids.iter().chain(&self.sensitive)
    }

    /// The data tables (created empty, before the load; `QidTuple`'s key is built with its rows).
    pub fn create_tables(&self) -> String {
        let attrs = self
            .all()
            .map(|c| format!("    {c} INTEGER NOT NULL,\n"))
            .collect::<String>();
        let qid_texts = self
            .qids
            .iter()
            .map(|c| format!("    {c} TEXT NOT NULL,\n"))
            .collect::<String>();
        let tuples = self.create_qid_tuple("QidTuple");
        format!(
            "-- Kept input rows in input order; attribute columns hold dictionary codes.\n\
             CREATE TABLE AnonRecordTable (\n    RecordID INTEGER PRIMARY KEY,\n    \
             EquivalenceID INTEGER,\n{attrs}    CHECK (RecordID > 0)\n);\n\
             -- Distinct quasi-identifier tuples (codes) with their records.\n\
             {tuples}\
             -- Final classes, generalizations as printed.\n\
             CREATE TABLE EquivalenceTable (\n    EquivalenceID INTEGER PRIMARY KEY,\n\
             {qid_texts}    Size INTEGER NOT NULL,\n    Suppressed INTEGER NOT NULL DEFAULT 0\n);\n"
        )
    }

    /// `QidTuple`'s definition under the name `table` (a rebuild creates its replacement with
    /// it, see [`super::Store::write_tuple_classes`]).
    pub fn create_qid_tuple(&self, table: &str) -> String {
        let qid_ints = self
            .qids
            .iter()
            .map(|c| format!("    {c} INTEGER NOT NULL,\n"))
            .collect::<String>();
        format!(
            "CREATE TABLE {table} (\n{qid_ints}    Count INTEGER NOT NULL,\n    \
             FirstRecord INTEGER NOT NULL,\n    EquivalenceID INTEGER,\n    \
             PRIMARY KEY ({})\n) WITHOUT ROWID;\n",
            self.qids.join(", ")
        )
    }

    /// The views with names and labels.
    pub fn create_views(&self) -> String {
        let originals = self
            .all()
            .zip(&self.names)
            .enumerate()
            .map(|(id, (c, name))| {
                format!(
                    ",\n    (SELECT Value FROM Dictionary WHERE AttributeID = {id} AND Code = r.{c}) \
                     AS {}",
                    quote_ident(name)
                )
            })
            .collect::<String>();
        let generalized = self
            .qids
            .iter()
            .zip(&self.names)
            .map(|(c, name)| format!(",\n    e.{c} AS {}", quote_ident(name)))
            .collect::<String>();
        format!(
            "CREATE VIEW RecordView AS\nSELECT r.RecordID, r.EquivalenceID{originals}\n\
             FROM AnonRecordTable r;\n\
             CREATE VIEW AnonymizedView AS\nSELECT r.RecordID, r.EquivalenceID, \
             e.Suppressed{generalized}\n\
             FROM AnonRecordTable r JOIN EquivalenceTable e ON e.EquivalenceID = r.EquivalenceID;\n"
        )
    }
}

/// The data-table column of input column `index`.
pub fn column(index: usize) -> String {
    format!("ATT_{index}")
}

/// An SQL identifier in double quotes (names come from input headers).
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
