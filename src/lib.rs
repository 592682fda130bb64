//! anonbox: an anonymizer for tabular personal data.
//!
//! Layout (see `README.md`): `cli` parses flags, `config` reads UT Dallas XML configs and ARX
//! hierarchy files, both merge into a validated [`job::Job`]. `io` reads and writes delimited
//! text; `store` is the SQLite backend (records larger than memory); `data` is the in-memory
//! dictionary encoding. `lattice`, `check` and `algorithms` search over transformations only;
//! `privacy` and `metrics` plug into the checker. `output` writes genVals, genValsDist, anatomy
//! and the JSON report.

pub mod algorithms;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod data;
pub mod error;
pub mod hierarchy;
pub mod io;
pub mod javafmt;
pub mod job;
pub mod lattice;
pub mod metrics;
pub mod output;
pub mod paths;
pub mod privacy;
pub mod progress;
pub mod release;
pub mod risk;
pub mod store;
pub mod sync;

pub use error::{Error, Result};
