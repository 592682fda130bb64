//! The `anonbox` binary: parse, dispatch to the command ([`anonbox::cmd`]), exit code. All logic
//! lives in the library.
//!
//! Exit status (also in `--help`), chosen in one place from the stage an error stopped
//! ([`anonbox::cmd::Stage::exit_code`]):
//! - 0: success, or stdout was closed by its reader (a broken pipe is not an error);
//! - 1: the run failed (input data, I/O, database): the command's work returned an error;
//! - 2: bad flags or configuration: the command line or the job could not be built, so nothing
//!   was read or written.
//!
//! `anonbox audit` has its own: 0 every threshold holds, 1 one fails, 2 bad input.
//!
//! - 129 / 130 / 143: interrupted by SIGHUP / SIGINT / SIGTERM: the temporary outputs were
//!   removed (the temporary database never has a name on disk) and nothing was written.
//!
//! Every error is printed as one line, `anonbox: <message>`, on stderr.

use std::io::Write;
use std::process::ExitCode;

use anonbox::cli::{self, Command};
use anonbox::cmd::{self, audit::Verdict, Stage};
use anonbox::io::Cleanup;
use anonbox::Error;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let result = cli::parse_args(args)
        .map_err(|e| (Stage::Setup, e))
        .and_then(dispatch);
    match result {
        Ok(code) => code,
        Err((stage, e)) => fail(&e, stage.exit_code(&e)),
    }
}

/// Runs `command` (see [`anonbox::cmd`]); an error comes with the stage it stopped.
fn dispatch(command: Command) -> Result<ExitCode, (Stage, Error)> {
    let setup = |e: Error| (Stage::Setup, e);
    let work = |e: Error| (Stage::Work, e);
    match command {
        Command::Help(text) | Command::Version(text) => print(&text).map_err(work)?,
        Command::Audit(args) => {
            let verdict = cmd::audit::run(&args, &mut std::io::stdout().lock())
                .map_err(|e| (Stage::Audit, e))?;
            return Ok(match verdict {
                Verdict::Holds => ExitCode::SUCCESS,
                Verdict::Fails => ExitCode::from(1),
            });
        }
        Command::Plan(args) => {
            let (job, warnings) = anonbox::config::build_job_with_warnings(&args).map_err(setup)?;
            cmd::plan::run(&args, &job, &warnings, &mut std::io::stdout().lock()).map_err(work)?;
        }
        Command::Hierarchy(args) => match cmd::hierarchy::prepare(&args).map_err(setup)? {
            cmd::hierarchy::Request::Help(text) => print(&text).map_err(work)?,
            cmd::hierarchy::Request::Build(job) => {
                let cleanup = watch_signals().map_err(work)?;
                let summary = settled(&cleanup, job.run_with(&cleanup)).map_err(work)?;
                // One line, names cut, as errors are: it quotes the column's name.
                eprintln!("anonbox: {}", anonbox::error::one_line(&summary));
            }
        },
        Command::Init(args) => match cmd::init::prepare(&args).map_err(setup)? {
            cmd::init::Request::Help(text) => print(&text).map_err(work)?,
            cmd::init::Request::Init(job) => {
                let cleanup = watch_signals().map_err(work)?;
                settled(&cleanup, job.run(&mut std::io::stdout().lock(), &cleanup))
                    .map_err(work)?;
            }
        },
        Command::Run(args) => {
            let job = anonbox::config::build_job(&args).map_err(setup)?;
            let cleanup = watch_signals().map_err(work)?;
            settled(&cleanup, cmd::run::run(&job, &cleanup)).map_err(work)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints `text` on stdout (a closed stdout is not an error, see [`fail`]).
fn print(text: &str) -> anonbox::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("<stdout>", e))
}

/// On SIGHUP, SIGINT or SIGTERM: removes the run's temporary output files, says so in one line
/// and exits 129, 130 or 143. (SIGHUP: the terminal of a long run closed, an SSH session
/// dropped; by default it killed the process and left the temporary outputs.) A thread waits
/// for the signals (signal-hook), so the cleanup runs as ordinary code, not in a signal handler;
/// it holds the returned [`Cleanup`], which the command's publication lists its temporary files
/// in. The outputs are published by renames at the very end of a run; a signal during those
/// renames waits for them, and a signal after them is ignored (the run has succeeded and is
/// ending). An error report waits for a cleanup under way ([`settled`]), so a failure the
/// cleanup caused is never reported instead.
fn watch_signals() -> anonbox::Result<Cleanup> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGHUP, SIGINT, SIGTERM])
        .map_err(|e| Error::io("<signal handler>", e))?;
    let cleanup = Cleanup::default();
    let watched = cleanup.clone();
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if !watched.interrupt() {
                continue;
            }
            let name = match signal {
                SIGHUP => "SIGHUP",
                SIGINT => "SIGINT",
                _ => "SIGTERM",
            };
            let _ = writeln!(
                std::io::stderr(),
                "anonbox: interrupted by {name}: temporary files removed, no output was written"
            );
            std::process::exit(128 + signal);
        }
    });
    Ok(cleanup)
}

/// The result of a command [`watch_signals`] watches, once it may be reported: an error waits
/// while a signal's cleanup runs (that cleanup exits the process itself, so an error it caused
/// is never reported in place of the signal) and keeps later signals from starting one
/// ([`Cleanup::hold_for_exit`]).
fn settled<T>(cleanup: &Cleanup, result: anonbox::Result<T>) -> anonbox::Result<T> {
    if result.is_err() {
        cleanup.hold_for_exit();
    }
    result
}

/// Reports `e` as one line on stderr and returns `code`; a broken pipe exits 0.
fn fail(e: &Error, code: u8) -> ExitCode {
    if is_broken_pipe(e) {
        return ExitCode::SUCCESS;
    }
    let _ = writeln!(
        std::io::stderr(),
        "anonbox: {}",
        anonbox::error::one_line(&e.to_string())
    );
    ExitCode::from(code)
}

/// Standard output of a text (a plan, an audit, help) closed by its reader (`| head`): the
/// reader has what it wanted. A release to standard output (`-output -`) closed early is a
/// failed run like any other (exit 1: the release is cut short and the report not written), as
/// is a FIFO or another destination closed early.
fn is_broken_pipe(e: &Error) -> bool {
    matches!(e, Error::Io { source, path }
        if source.kind() == std::io::ErrorKind::BrokenPipe && path.as_os_str() == "<stdout>")
}
