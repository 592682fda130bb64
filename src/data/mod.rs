//! Data becomes integers once.
//!
//! [`Dictionary`] maps the distinct values of one column to codes `0..m-1` in order of first
//! appearance (or in hierarchy-file order when seeded from one), each value held once in an
//! [`Interner`] (one text buffer, no string of its own per value; hierarchy labels too). [`EncodedTable`] is the in-memory
//! representation the Flash engine works on: the distinct quasi-identifier tuples as leaf-code
//! columns (each in the narrowest integer type, [`Column`]) and each record as the index of its tuple, each quasi-identifier with its
//! [`Hierarchy`], and sensitive attributes as code columns. Nothing after loading sees strings.
//!
//! [`attributes`] says what the input's columns are (quasi-identifiers and how they generalize,
//! sensitive attributes). [`load`] reads an input into codes once, for both backends:
//! [`load::load_table`] builds an `EncodedTable`, the SQLite store's loader inserts the same
//! codes into its tables.
//! [`subset`] reads the research subset of δ-presence alongside (in-memory engine only).
//! [`labels`] is what both backends hand the writers: each kept record's generalized labels.

pub mod attributes;
mod column;
mod dictionary;
pub mod interner;
pub mod labels;
pub mod load;
pub mod subset;
mod table;

pub use attributes::{Generalization, QuasiIdentifier, SensitiveAttribute};
pub use column::{Codes, Column};
pub use dictionary::Dictionary;
pub use interner::Interner;
pub use labels::{LabelRow, LabelSource};
pub use table::{EncodedTable, SensitiveColumn, TupleBuilder, SUBSET_COLUMN};
