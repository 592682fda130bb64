//! The library's entry points for callers in the same process (the Python package): a run
//! whose input and release are Arrow record batches in memory, and the other commands with
//! their standard output captured.
//!
//! [`run`] is the command line's run, not a second pipeline: its arguments are the command
//! line's (parsed by [`crate::cli::parse_args`]), record batches replace the input file
//! ([`crate::cli::RunArgs::batches`]) and a [`Sink`] replaces the output file
//! ([`crate::cli::RunArgs::sink`]); the job is built, searched and released by
//! [`crate::cmd::run::run_job`], whose columnar writer fills the sink with the batches it would
//! have written. So the release in memory is the file's row for row. The JSON report comes back
//! as a value; the HTML report is rendered on request ([`Finished::html`]).
//!
//! A failure keeps its [`Error`] and the exit status the command line would have given
//! ([`Failure::exit_code`]: 2 flags and configs, 1 data and I/O), which the binding maps to
//! its exception classes. The caller owns the [`Cleanup`]: interrupting it removes the run's
//! temporary files and keeps anything from being published.

use arrow::array::RecordBatch;
use arrow::datatypes::SchemaRef;

use crate::cli::{self, Command, RunArgs};
use crate::cmd::run::RunResult;
use crate::cmd::Stage;
use crate::io::columnar::{Batches, Sink};
use crate::io::Cleanup;
use crate::job::Job;
use crate::progress::Watch;
use crate::Error;

/// A failed command: the error, and the exit status the command line gives it.
#[derive(Debug)]
pub struct Failure {
    pub error: Error,
    pub exit_code: u8,
}

impl Failure {
    fn at(stage: Stage) -> impl Fn(Error) -> Failure {
        move |error| Failure {
            exit_code: stage.exit_code(&error),
            error,
        }
    }

    /// The message as the command line prints it after `anonbox: `.
    pub fn message(&self) -> String {
        crate::error::one_line(&self.error.to_string())
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

/// A release held in memory: the batches of genVals (quasi-identifiers as strings, the other
/// columns in the input's types, identifiers removed) and, per released row, whether it was
/// suppressed (`None` where the method does not say: the toolbox's methods).
#[derive(Debug, Clone)]
pub struct InMemory {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
    pub suppressed: Option<Vec<bool>>,
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The release, when it was asked for in memory.
    pub release: Option<InMemory>,
    /// The JSON report, as `-report FILE.json` writes it.
    pub report: serde_json::Value,
    pub job: Job,
    pub result: RunResult,
}

impl Finished {
    /// The HTML report, as `-report FILE.html` writes it.
    pub fn html(&self) -> crate::Result<String> {
        crate::output::html::render(
            &self.job,
            &self.result.report,
            &self.result.release,
            self.result.checked.as_ref(),
        )
    }

    /// The transformation: each quasi-identifier's level, in `<qid>` order (full-domain
    /// methods).
    pub fn transformation(&self) -> Option<Vec<(String, usize)>> {
        let r = &self.result.report;
        let levels = r.transformation.as_ref()?;
        Some(
            r.quasi_identifiers
                .iter()
                .cloned()
                .zip(levels.iter().copied())
                .collect(),
        )
    }
}

/// Runs the command line's run with `args` (flags as on the command line, without the program
/// name), reading `batches` instead of an input file when given, and keeping the release in
/// memory instead of writing an output file when `in_memory` (the config's `<output>` and
/// `-output` are then ignored; a report file is still written if asked). Nothing is printed
/// but the warnings and the summary the command line prints on stderr (none with `-quiet`);
/// with a `progress` watch the run's bars are kept there instead of drawn.
pub fn run(
    args: &[String],
    batches: Option<Batches>,
    in_memory: bool,
    progress: Option<Watch>,
    cleanup: &Cleanup,
) -> Result<Finished, Failure> {
    let setup = Failure::at(Stage::Setup);
    let mut run_args: RunArgs = match cli::parse_args(args.iter().cloned()).map_err(&setup)? {
        Command::Run(a) => *a,
        _ => {
            return Err(setup(Error::Usage(format!(
                "'{}' is not a run: give a run's flags (-config FILE, -method NAME, -k N, ...)",
                args.join(" ")
            ))))
        }
    };
    run_args.batches = batches;
    run_args.progress = progress;
    let sink = in_memory.then(Sink::default);
    run_args.sink = sink.clone();
    let job = crate::config::build_job(&run_args).map_err(&setup)?;
    let result = crate::cmd::run::run_job(&job, cleanup).map_err(Failure::at(Stage::Work))?;
    let release = sink.map(|s| {
        let c = s.take();
        let rows: usize = c.batches.iter().map(RecordBatch::num_rows).sum();
        let schema = c
            .schema
            .unwrap_or_else(|| std::sync::Arc::new(arrow::datatypes::Schema::empty()));
        // Only a full-domain result in memory marks its suppressed rows.
        let suppressed = (result.report.transformation.is_some()
            && job.method.is_lattice()
            && c.suppressed.len() == rows)
            .then_some(c.suppressed);
        InMemory {
            schema,
            batches: c.batches,
            suppressed,
        }
    });
    let report = serde_json::from_str(&result.report.to_json())
        .map_err(|e| setup(Error::Invalid(format!("internal error: the report: {e}"))))?;
    // The finished job no longer reads its input: the caller's batches are let go with it.
    let mut job = job;
    if let Some(crate::io::columnar::Columnar::Memory(_)) = job.input.columnar {
        job.input.columnar = None;
    }
    Ok(Finished {
        release,
        report,
        job,
        result,
    })
}

/// Runs `anonbox audit`, `init` or `hierarchy` with `args` (the subcommand first), returning
/// what it prints on standard output (the line `hierarchy` prints on stderr) and its exit
/// status (an audit whose threshold fails: 1).
pub fn command(args: &[String], cleanup: &Cleanup) -> Result<(String, u8), Failure> {
    let setup = Failure::at(Stage::Setup);
    let work = Failure::at(Stage::Work);
    let mut out: Vec<u8> = Vec::new();
    let code = match cli::parse_args(args.iter().cloned()).map_err(&setup)? {
        Command::Audit(a) => {
            match crate::cmd::audit::run(&a, &mut out).map_err(Failure::at(Stage::Audit))? {
                crate::cmd::audit::Verdict::Holds => 0,
                crate::cmd::audit::Verdict::Fails => 1,
            }
        }
        Command::Init(a) => match crate::cmd::init::prepare(&a).map_err(&setup)? {
            crate::cmd::init::Request::Help(text) => {
                out.extend(text.as_bytes());
                0
            }
            crate::cmd::init::Request::Init(job) => {
                job.run(&mut out, cleanup).map_err(&work)?;
                0
            }
        },
        Command::Hierarchy(a) => match crate::cmd::hierarchy::prepare(&a).map_err(&setup)? {
            crate::cmd::hierarchy::Request::Help(text) => {
                out.extend(text.as_bytes());
                0
            }
            crate::cmd::hierarchy::Request::Build(job) => {
                let line = job.run_with(cleanup).map_err(&work)?;
                out.extend(line.as_bytes());
                0
            }
        },
        _ => {
            return Err(setup(Error::Usage(format!(
                "'{}' is not audit, init or hierarchy",
                args.join(" ")
            ))))
        }
    };
    String::from_utf8(out)
        .map(|s| (s, code))
        .map_err(|_| work(Error::Invalid("internal error: output not UTF-8".into())))
}
