//! anonbox: an anonymizer for tabular personal data.
//!
//! [`api`] runs a job on record batches in memory and hands back the release (the Python
//! package).
//!
//! Layout (`README.md` also says where a new privacy model, method, input format or command goes):
//! - [`cmd`]: one module per command (run, plan, init, hierarchy, audit); the binary parses,
//!   dispatches to them and chooses the exit status in one place ([`cmd::Stage`]).
//! - [`cli`] parses flags and [`config`] reads UT Dallas XML configs; both merge into a run's
//!   validated [`job::Job`], whose reads and writes [`paths`] checks before the run starts.
//! - [`io`] reads and writes delimited text; [`store`] is the SQLite backend (records larger
//!   than memory); [`data`] is the in-memory dictionary encoding; [`hierarchy`] holds the
//!   generalization hierarchies: the encoded model, VGHs, ARX hierarchy files and the builders.
//! - [`engine`] is the seam of the work that grows with the rows (the frequency set, the
//!   release): embedded, or Apache DataFusion.
//! - [`lattice`], [`check`] and [`algorithms`] search over transformations only; [`privacy`] and
//!   [`metrics`] plug into the checker.
//! - [`output`] writes genVals, genValsDist, anatomy and the reports, with the figures of
//!   [`release`] and [`risk`].

pub mod algorithms;
pub mod api;
pub mod check;
pub mod cli;
pub mod cmd;
pub mod config;
pub mod data;
pub mod engine;
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
