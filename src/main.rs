//! The `anonbox` binary: parse, build the job, run, exit code. All logic lives in the library.
//!
//! Exit status (also in `--help`):
//! - 0: success, or stdout was closed by its reader (a broken pipe is not an error);
//! - 1: the run failed (input data, I/O, database): [`anonbox::run::run`] returned an error;
//! - 2: bad flags or configuration: the command line or the job could not be built, so nothing
//!   was read or written.
//!
//! - 129 / 130 / 143: interrupted by SIGHUP / SIGINT / SIGTERM: the temporary outputs were
//!   removed (the temporary database never has a name on disk) and nothing was written.
//!
//! Every error is printed as one line, `anonbox: <message>`, on stderr.

use std::io::Write;
use std::process::ExitCode;

use anonbox::cli::{self, Command};
use anonbox::io::Cleanup;
use anonbox::Error;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let command = match cli::parse_args(args) {
        Ok(c) => c,
        Err(e) => return fail(&e, 2),
    };
    match command {
        Command::Help(text) | Command::Version(text) => print(&text),
        // Audit: 0 every threshold holds, 1 one fails, 2 bad input.
        Command::Audit(args) => match anonbox::audit::run(&args, &mut std::io::stdout().lock()) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => fail(&e, 2),
        },
        // Plan: 0 printed, 1 the input's first rows cannot be read, 2 bad flags or config.
        Command::Plan(args) => {
            let (job, warnings) = match anonbox::config::build_job_with_warnings(&args) {
                Ok(built) => built,
                Err(
                    e @ (Error::NoRecords(_) | Error::Encoding { .. } | Error::LineTooLong { .. }),
                ) => return fail(&e, 1),
                Err(e) => return fail(&e, 2),
            };
            match anonbox::plan::run(&args, &job, &warnings, &mut std::io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e @ Error::Usage(_)) => fail(&e, 2),
                Err(e) => fail(&e, 1),
            }
        }
        // Subcommands that write files: 2 for flags found before the data is read, 1 after.
        Command::Hierarchy(args) => match anonbox::hierarchy_cmd::plan(&args) {
            // The header is read by the plan: an input in an encoding it cannot read is data.
            Err(e @ (Error::Encoding { .. } | Error::LineTooLong { .. })) => fail(&e, 1),
            Err(e) => fail(&e, 2),
            Ok(anonbox::hierarchy_cmd::Request::Help(text)) => print(&text),
            Ok(anonbox::hierarchy_cmd::Request::Build(plan)) => {
                let cleanup = match watch_signals() {
                    Ok(c) => c,
                    Err(e) => return fail(&e, 1),
                };
                match settled(&cleanup, plan.run_with(&cleanup)) {
                    Ok(summary) => {
                        // One line, names cut, as errors are: it quotes the column's name.
                        eprintln!("anonbox: {}", anonbox::error::one_line(&summary));
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e, 1),
                }
            }
        },
        Command::Init(args) => match anonbox::init::plan(&args) {
            Err(e) => fail(&e, 2),
            Ok(anonbox::init::Request::Help(text)) => print(&text),
            Ok(anonbox::init::Request::Init(plan)) => {
                let cleanup = match watch_signals() {
                    Ok(c) => c,
                    Err(e) => return fail(&e, 1),
                };
                match settled(&cleanup, plan.run(&mut std::io::stdout().lock(), &cleanup)) {
                    Ok(()) => ExitCode::SUCCESS,
                    // A destination refused once the file names are known (after the profile).
                    Err(e @ Error::Usage(_)) => fail(&e, 2),
                    Err(e) => fail(&e, 1),
                }
            }
        },
        Command::Run(args) => {
            let job = match anonbox::config::build_job(&args) {
                Ok(job) => job,
                // The data errors found while the job is built.
                Err(
                    e @ (Error::NoRecords(_) | Error::Encoding { .. } | Error::LineTooLong { .. }),
                ) => return fail(&e, 1),
                Err(e) => return fail(&e, 2),
            };
            let cleanup = match watch_signals() {
                Ok(c) => c,
                Err(e) => return fail(&e, 1),
            };
            match settled(&cleanup, anonbox::run::run(&job, &cleanup)) {
                Ok(()) => ExitCode::SUCCESS,
                // A flag or config error the run found (a destination, a method's limits).
                Err(e @ Error::Usage(_)) => fail(&e, 2),
                Err(e) => fail(&e, 1),
            }
        }
    }
}

/// Prints `text` on stdout; a closed stdout is not an error.
fn print(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&Error::io("<stdout>", e), 1),
    }
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
