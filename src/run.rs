//! The pipeline of one anonymization run: load, search, write, report.
//! (Owned by the store/pipeline work; this is the contract `main` calls.)

use crate::job::Job;
use crate::Result;

/// Runs a validated job to completion: outputs are written atomically, or not at all.
pub fn run(_job: &Job) -> Result<()> {
    todo!("pipeline")
}
