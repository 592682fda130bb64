//! What every room of `anonymize` shares: [`Ran`], what a room hands back to the run
//! ([`super::run`]) to report and publish; the in-memory load of the rooms with their own
//! method ([`load_in_memory`]); and the checks and warnings of a load and of a search.

use std::time::Instant;

use crate::algorithms::{CheckedSample, Outcome};
use crate::data::load::{Encoding, LoadSummary};
use crate::data::EncodedTable;
use crate::job::Job;
use crate::output::report::BuiltHierarchy;
use crate::output::{Elapsed, Report};
use crate::progress::Progress;
use crate::release::Release;
use crate::store::Store;
use crate::{Error, Result};

/// What a backend runner hands back: the report, the figures of the release it was built from,
/// the transformations a lattice search checked, and the store of a store-backed method (for
/// the run record).
pub struct Ran {
    pub report: Report,
    pub release: Release,
    pub checked: Option<CheckedSample>,
    pub store: Option<Store>,
}

impl Ran {
    /// A finished run: its report (with the hierarchies the run built), its release, the
    /// checked transformations and the store it kept.
    pub(crate) fn new(
        job: &Job,
        (summary, encoding): (&LoadSummary, &Encoding),
        outcome: &Outcome,
        release: Release,
        elapsed: Elapsed,
        checked: Option<CheckedSample>,
        store: Option<Store>,
    ) -> Ran {
        let mut report = Report::new(job, summary, outcome, &release, elapsed);
        report.built_hierarchies = BuiltHierarchy::of(job, encoding);
        Ran {
            report,
            release,
            checked,
            store,
        }
    }
}

/// The in-memory load of a method with a room of its own (partition, MDAV, cells, local
/// recoding): the table with its encoding and summary, skipped rows warned and records
/// counted as a run's load is, and the load's seconds since `started`.
pub fn load_in_memory(
    job: &Job,
    progress: &Progress,
    started: Instant,
) -> Result<(EncodedTable, Encoding, LoadSummary, f64)> {
    let (table, encoding, summary) = crate::data::load::load_table(
        &job.source()?,
        job.research_subset()?,
        &mut progress.load(),
    )?;
    warn_skipped(job, &summary);
    check_records(job, summary.records())?;
    Ok((table, encoding, summary, started.elapsed().as_secs_f64()))
}

/// Warns (stderr) about skipped rows and blank lines (not with `-quiet`).
pub fn warn_skipped(job: &Job, summary: &LoadSummary) {
    if job.quiet {
        return;
    }
    let s = summary.stats;
    let input = job.input.path.display();
    if s.blank_lines > 0 {
        eprintln!(
            "anonbox: warning: {input}: skipped {} blank lines",
            s.blank_lines
        );
    }
    if s.rows_skipped > 0 {
        eprintln!(
            "anonbox: {input}: skipped {} of {} rows containing '?'",
            s.rows_skipped, s.rows_read
        );
    }
}

/// Says on stderr (one line) that a time limit cut the search short, with the gap to the bound
/// (not with `-quiet`: the report says it too).
pub(crate) fn warn_unproven(job: &Job, outcome: &Outcome) {
    let Some(search) = outcome.details.lattice() else {
        return;
    };
    if job.quiet || search.proven_optimal {
        return;
    }
    let loss = outcome.information_loss.unwrap_or(f64::NAN);
    // As the report has it: a bound that is not finite is none.
    let bound = search
        .lower_bound
        .filter(|b| b.is_finite())
        .unwrap_or(f64::NEG_INFINITY);
    let limit = job.time_limit.map_or(0.0, |t| t.as_secs_f64());
    eprintln!(
        "anonbox: time limit of {limit} s reached: releasing the best transformation found \
         (loss {loss}), not proven optimal; no transformation loses less than {bound}"
    );
}

/// One behaviour for every method: an input without records, or with fewer records than k, is
/// an error (exit 1, nothing written), found right after the load.
pub(crate) fn check_records(job: &Job, records: u64) -> Result<()> {
    let input = &job.input.path;
    if records == 0 {
        return Err(Error::NoRecords(input.clone()));
    }
    if let Some(k) = job.enforced_k().filter(|&k| k > records) {
        return Err(Error::in_file(
            input,
            format!(
                "This input cannot be anonymized at k = {k}: it has {records} records, fewer \
                 than k"
            ),
        ));
    }
    Ok(())
}
