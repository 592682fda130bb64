//! The pipeline of one anonymization run: load, search, write, report.
//!
//! [`run`] checks the paths, then dispatches on the method to a backend runner:
//! [`run_on_store`] (SQLite: open, load, method, genVals from the store) for the toolbox's
//! methods; [`run_in_memory`] (an [`EncodedTable`] from [`load_table`], a method returning levels
//! and suppressed rows) for the in-memory engine (Flash, OLA, BFS, Optimal). Either way the
//! writers take a [`LabelSource`], and the report is assembled from the load
//! summary, the method's [`Outcome`] and the timings.
//!
//! `-db` works for both: the in-memory runner keeps its fast path (no SQLite at all without
//! `-db`); with it, the result is written into the same self-describing store after the search
//! ([`Store::load_table`] from the encoded table, then the classes of the chosen levels), so a
//! kept database reads the same whichever method wrote it.
//!
//! Outputs are written atomically, or not at all: the run owns a [`Publication`]; the output,
//! the report and a kept database go to temporary files staged in it and renamed into place
//! together when the run has succeeded, and the temporary database is removed when the run
//! ends, on success or error.

use std::time::Instant;

use crate::algorithms::tuples::Backend;
use crate::algorithms::{self, CheckedSample, FullDomainResult, LatticeParams, Outcome};
use crate::data::load::{Encoding, LoadSummary};
use crate::data::EncodedTable;
use crate::engine::{Rewrite, Rows};
use crate::io::{Cleanup, Publication};
use crate::job::{Job, Method, OutputFormat};
use crate::output::{self, genvals, Elapsed, FullDomainLabels, Report};
use crate::progress::Progress;
use crate::release::Release;
use crate::store::{Loaded, Store};
use crate::{Error, Result};

use super::ran::{check_records, warn_skipped, warn_unproven, Ran};

/// What a finished run produced (the report is also written if the job asks), with what the
/// HTML report is rendered from ([`output::html::render`]: the library renders it on request).
#[derive(Debug, Clone)]
pub struct RunResult {
    pub report: Report,
    pub release: Release,
    pub checked: Option<CheckedSample>,
}

/// Runs a validated job to completion: outputs are written atomically, or not at all. What a
/// signal must remove is listed in `cleanup`.
pub fn run(job: &Job, cleanup: &Cleanup) -> Result<()> {
    run_job(job, cleanup).map(|_| ())
}

/// [`run`], returning the report. Every output is staged in the run's [`Publication`] and
/// published only when the whole run has succeeded; on an error none is.
pub fn run_job(job: &Job, cleanup: &Cleanup) -> Result<RunResult> {
    let publication = Publication::new(cleanup)
        .file_mode(job.file_mode)
        .quiet(job.quiet);
    publication.never_replace(&crate::paths::reads(job));
    // Dropped unpublished on an error, the publication removes what the run staged.
    let result = run_staged(job, &publication).and_then(|r| publication.publish().map(|()| r));
    match &result {
        // The summary says what was released: only once it is; so does the toolbox's warning
        // (which it gave before the run).
        Ok(r) if !job.quiet => {
            for file in &job.overwritten {
                // The toolbox's words inside ours, for a script that looks for them.
                eprintln!(
                    "anonbox: warning: replaced {} (toolbox: WARNING: Output file will be \
                     overwritten ({}))",
                    file.display(),
                    file.display()
                );
            }
            eprint!("{}", output::summary::render(&r.report))
        }
        _ => {}
    }
    result
}

/// Checks, loads, runs the method and writes every output, staged in `out`.
fn run_staged(job: &Job, out: &Publication) -> Result<RunResult> {
    check_paths(job)?;
    let started = Instant::now();
    let progress = match &job.progress {
        Some(watch) => Progress::watched(watch.clone()),
        None => Progress::new(job.quiet),
    };
    let mut ran = match job.method {
        Method::Datafly => run_on_store(job, out, &progress, started, |store, loaded, p| {
            algorithms::datafly::run(
                store,
                &job.datafly(),
                &loaded.encoding,
                loaded.summary.records(),
                &mut p.steps(),
                Backend::Auto,
            )
        })?,
        Method::Mdav => super::microaggregate::run(job, out, &progress, started)?,
        Method::Mondrian if job.mondrian_on_hierarchies() => {
            super::partition::run(job, out, &progress, started)?
        }
        Method::Mondrian => run_on_store(job, out, &progress, started, |store, loaded, p| {
            algorithms::mondrian::run(
                store,
                &job.mondrian(),
                &loaded.encoding,
                &mut p.steps(),
                Backend::Auto,
            )
        })?,
        Method::IncognitoK | Method::IncognitoL | Method::IncognitoT => {
            run_on_store(job, out, &progress, started, |store, loaded, p| {
                algorithms::incognito::run(
                    store,
                    &job.incognito(),
                    &loaded.encoding,
                    loaded.summary.records(),
                    &mut p.steps(),
                    Backend::Auto,
                    &mut |line: &str| say(job, line),
                )
            })?
        }
        Method::Anatomy => run_on_store(job, out, &progress, started, |store, loaded, p| {
            algorithms::anatomy::run(
                store,
                &job.anatomy(),
                &loaded.encoding,
                loaded.summary.records(),
                &mut p.steps(),
                Backend::Auto,
                &mut |line: &str| say(job, line),
            )
        })?,
        Method::Flash | Method::Ola | Method::Bfs | Method::Optimal
            if job.suppress == crate::algorithms::cells::Suppress::Cells =>
        {
            super::cells::run(job, out, &progress, started)?
        }
        Method::Flash | Method::Ola | Method::Bfs | Method::Optimal
            if crate::privacy::PrivacyModel::differential_privacy(&job.privacy).is_some() =>
        {
            // One seed for the sample and the search (drawn once when -seed is not given).
            let dp = job.safepub().expect("checked by the guard");
            let beta = algorithms::safepub::parameters(dp.privacy)?.beta;
            let sample = Sample {
                beta,
                seed: dp.seed,
            };
            run_in_memory_with(job, out, &progress, started, Some(sample), |table, _, _| {
                algorithms::safepub::run(&dp, table)
            })?
        }
        Method::Flash | Method::Ola | Method::Bfs | Method::Optimal if job.local_recoding => {
            super::recode::run(job, out, &progress, started)?
        }
        Method::Flash | Method::Ola | Method::Bfs | Method::Optimal => {
            let stop = out.stop();
            run_in_memory(job, out, &progress, started, |table, _encoding, p| {
                let bar = p
                    .search()
                    .map(|b| Box::new(b) as Box<dyn algorithms::SearchObserver>);
                let params = LatticeParams {
                    stop: Some(&stop),
                    ..job.lattice()
                };
                let (outcome, chosen) = algorithms::run_lattice(&params, table, bar)?;
                warn_unproven(job, &outcome);
                Ok((outcome, chosen))
            })?
        }
    };
    finish(job, out, &mut ran)?;
    Ok(RunResult {
        report: ran.report,
        release: ran.release,
        checked: ran.checked,
    })
}

/// Load into a store, run `method`, write the output from the store into `publication`.
pub fn run_on_store(
    job: &Job,
    publication: &Publication,
    progress: &Progress,
    started: Instant,
    method: impl FnOnce(&Store, &Loaded, &Progress) -> Result<Outcome>,
) -> Result<Ran> {
    let mut store = Store::open(job.db.as_deref(), publication)?;
    store.record_run(&job.run_record())?;
    let mut rows = Rows::new(job, publication)?;
    // Another engine hands the store its frequency set (`table`, kept for the release).
    let (loaded, table) = if rows.is_embedded() {
        (store.load(&job.source()?, &mut progress.load())?, None)
    } else {
        let (table, encoding, summary) = rows.load(job, &mut progress.load())?;
        let loaded = store.load_table(&job.source()?, &table, &encoding, &summary)?;
        (loaded, Some(table))
    };
    warn_skipped(job, &loaded.summary);
    check_records(job, loaded.summary.records())?;
    let t_load = started.elapsed().as_secs_f64();

    let mut outcome = method(&store, &loaded, progress)?;
    publication.interrupted()?;
    // Anatomy groups records, not tuples: it fills `AnonRecordTable.EquivalenceID` itself.
    if job.method != Method::Anatomy {
        store.check_classes(loaded.summary.records())?;
        if store.is_kept() {
            store.assign_records()?;
        }
    }
    let t_search = started.elapsed().as_secs_f64();
    // The release's figures (utility, risk) are the report's, not the method's: they count as
    // writing (see [`Elapsed`]).
    let release = Release::of_store(
        job,
        &store,
        &loaded.encoding,
        outcome.transformation.as_deref(),
    )?;

    match (&table, outcome.transformation.as_deref()) {
        (Some(table), Some(levels)) => {
            let hierarchies = loaded.encoding.qids.iter().map(|q| &q.hierarchy).collect();
            let mut labels = store.full_domain_labels(hierarchies, levels);
            let top: Vec<String> = loaded
                .encoding
                .qids
                .iter()
                .map(|q| q.suppressed.clone())
                .collect();
            rows.write(
                job,
                publication,
                loaded.summary.records(),
                &mut labels,
                |labels| Rewrite::of_labels(table, levels, &top, labels),
                &loaded.encoding,
                progress,
            )?
        }
        // Mondrian on another engine: its classes' labels follow each record's tuple.
        (Some(table), None) => rows.write(
            job,
            publication,
            loaded.summary.records(),
            &mut store.labels(),
            |labels| Rewrite::of_classes(table, labels),
            &loaded.encoding,
            progress,
        )?,
        (None, _) => write_store_output(
            job,
            publication,
            &store,
            &loaded,
            progress,
            outcome.transformation.as_deref(),
        )?,
    }
    let elapsed = Elapsed::of_marks(t_load, t_search, started.elapsed().as_secs_f64());
    let checked = outcome.checked.take();
    let mut ran = Ran::new(
        job,
        (&loaded.summary, &loaded.encoding),
        &outcome,
        release,
        elapsed,
        checked,
        Some(store),
    );
    ran.report.add_load_steps(&loaded.timings);
    Ok(ran)
}

/// Load into memory ([`load_table`]), run `method`, write the output from its levels and
/// suppressed rows into `publication`. The in-memory counterpart of [`run_on_store`] (Flash,
/// OLA, BFS, Optimal); with `-db` it also fills a kept database ([`keep_full_domain`]).
pub fn run_in_memory(
    job: &Job,
    publication: &Publication,
    progress: &Progress,
    started: Instant,
    method: impl FnOnce(&EncodedTable, &Encoding, &Progress) -> Result<(Outcome, FullDomainResult)>,
) -> Result<Ran> {
    run_in_memory_with(job, publication, progress, started, None, method)
}

/// The random sample a differentially private run releases (`privacy::differential`): each
/// record with probability `beta`, drawn from `seed`.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub beta: f64,
    pub seed: u64,
}

/// [`run_in_memory`] on a random sample of the input, if `sample` says so: the method sees the
/// table with its sample ([`EncodedTable::with_sample`]) and the records left out are released
/// suppressed.
pub fn run_in_memory_with(
    job: &Job,
    publication: &Publication,
    progress: &Progress,
    started: Instant,
    sample: Option<Sample>,
    method: impl FnOnce(&EncodedTable, &Encoding, &Progress) -> Result<(Outcome, FullDomainResult)>,
) -> Result<Ran> {
    // A kept database is opened (and refused, if it is not one of ours) before the input is
    // read, as on the store path; it is filled after the search.
    let mut store = match &job.db {
        Some(db) => {
            let store = Store::open(Some(db), publication)?;
            store.record_run(&job.run_record())?;
            Some(store)
        }
        None => None,
    };
    let mut rows = Rows::new(job, publication)?;
    let (table, encoding, summary) = rows.load(job, &mut progress.load())?;
    warn_skipped(job, &summary);
    check_records(job, summary.records())?;
    let table = match sample {
        Some(s) => {
            let members = crate::privacy::differential::sample(table.rows(), s.beta, s.seed);
            table.with_sample(members)
        }
        None => table,
    };
    let t_load = started.elapsed().as_secs_f64();

    let (mut outcome, chosen) = method(&table, &encoding, progress)?;
    publication.interrupted()?;
    // The search ends with the transformation and the rows it suppresses; the release's
    // figures (utility, risk) are the report's and count as writing (see [`Elapsed`]).
    let t_search = started.elapsed().as_secs_f64();
    let release = Release::of_table(job, &table, &chosen.levels, &chosen.suppressed);
    // Filling a kept database counts as writing.
    if let Some(store) = &mut store {
        keep_full_domain(job, store, &table, &encoding, &summary, &chosen)?;
    }

    let suppression_labels: Vec<String> =
        encoding.qids.iter().map(|q| q.suppressed.clone()).collect();
    let mut labels = FullDomainLabels {
        table: &table,
        levels: &chosen.levels,
        suppressed: &chosen.suppressed,
        suppression_labels: &suppression_labels,
    };
    rows.write(
        job,
        publication,
        summary.records(),
        &mut labels,
        |_| {
            Ok(Rewrite::of_records(
                &table,
                &chosen.levels,
                &chosen.suppressed,
            ))
        },
        &encoding,
        progress,
    )?;
    let elapsed = Elapsed::of_marks(t_load, t_search, started.elapsed().as_secs_f64());
    let checked = outcome.checked.take();
    Ok(Ran::new(
        job,
        (&summary, &encoding),
        &outcome,
        release,
        elapsed,
        checked,
        store,
    ))
}

/// Writes an in-memory full-domain result into a kept database (`-db`), so that it reads like
/// the store methods' ones: the records and catalogue ([`Store::load_table`]), then the classes
/// of the chosen levels, the suppressed ones named by the generalized ids of their rows, and
/// every record's class.
fn keep_full_domain(
    job: &Job,
    store: &mut Store,
    table: &EncodedTable,
    encoding: &Encoding,
    summary: &LoadSummary,
    chosen: &FullDomainResult,
) -> Result<()> {
    store.load_table(&job.source()?, table, encoding, summary)?;
    let mut bad: rustc_hash::FxHashSet<Vec<u32>> = Default::default();
    for r in (0..table.rows()).filter(|&r| chosen.suppressed.get(r) == Some(&true)) {
        let key = table
            .row(r)
            .zip(&table.hierarchies)
            .zip(&chosen.levels)
            .map(|((code, h), &level)| h.get(code, level))
            .collect();
        bad.insert(key);
    }
    let mut bad: Vec<Vec<u32>> = bad.into_iter().collect();
    bad.sort_unstable();
    store.assign_full_domain(encoding, &chosen.levels, &bad)?;
    store.check_classes(table.records() as u64)?;
    let suppressed = chosen.suppressed.iter().filter(|&&s| s).count() as u64;
    let (_, in_store) = store.class_summary()?;
    if in_store != suppressed {
        return Err(Error::Invalid(format!(
            "internal error: the database suppresses {in_store} records, the search {suppressed}"
        )));
    }
    store.assign_records()
}

/// Writes the job's output, if any, from a store whose classes are assigned: every format
/// (genValsDist's statistics and anatomy's raw values come from the store's tuples and
/// records), into `publication`. `levels`: the transformation of a full-domain method.
pub fn write_store_output(
    job: &Job,
    publication: &Publication,
    store: &Store,
    loaded: &Loaded,
    progress: &Progress,
    levels: Option<&[usize]>,
) -> Result<()> {
    let Some(out) = &job.output else {
        return Ok(());
    };
    let records = loaded.summary.records();
    match out.format {
        OutputFormat::GenVals => {
            let mut labels = match levels {
                Some(levels) => store.full_domain_labels(
                    loaded.encoding.qids.iter().map(|q| &q.hierarchy).collect(),
                    levels,
                ),
                None => store.labels(),
            };
            genvals::write_as(publication, job, out, records, &mut labels, progress)
        }
        OutputFormat::GenValsDist => output::genvalsdist::write_from_store(
            publication,
            job,
            store,
            &loaded.encoding,
            &out.path,
            records,
            progress,
            Backend::Auto,
        ),
        OutputFormat::Anatomy => output::anatomy::write_from_store(
            publication,
            job,
            store,
            &loaded.encoding,
            &out.path,
            records,
            progress,
            Backend::Auto,
        ),
    }
}

/// Prints one of the toolbox's console lines on stdout with `-verbose` (a closed stdout is not
/// an error), unless `-quiet` or the output itself goes to stdout.
fn say(job: &Job, line: &str) {
    if !job.verbose
        || job.quiet
        || job
            .output
            .as_ref()
            .is_some_and(|o| crate::io::is_stdout(&o.path))
    {
        return;
    }
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// Report file (HTML or JSON, by the file's extension) and run record, staged in `publication`.
fn finish(job: &Job, publication: &Publication, ran: &mut Ran) -> Result<()> {
    if let Some(store) = ran.store.take() {
        store.finish_run(&ran.report.to_json())?;
        store.commit()?;
    }
    if let Some(path) = &job.report {
        if output::html::is_html(path) {
            output::html::write(
                publication,
                path,
                job,
                &ran.report,
                &ran.release,
                ran.checked.as_ref(),
            )?;
        } else {
            ran.report.write(publication, path)?;
        }
    }
    Ok(())
}

/// The input must exist (destinations were checked with the job: [`crate::paths`]).
fn check_paths(job: &Job) -> Result<()> {
    let input = &job.input.path;
    let folder = match &job.input.columnar {
        Some(crate::io::columnar::Columnar::Memory(_)) => true,
        Some(_) => input.exists(),
        None => false,
    };
    if !(input.is_file() || folder) {
        return Err(Error::in_file(input, "input file not found"));
    }
    Ok(())
}
