//! `anonbox._native`: the private native module of the Python package. The package (pure
//! Python, `python/anonbox/`) builds the command line's flags and config; this module runs them
//! through the core's [`anonbox::api`], so a release from Python is the command line's.
//!
//! Data crosses as Arrow: the input through the Arrow C stream interface (`__arrow_c_stream__`:
//! pyarrow, polars; no copy of the buffers), the release back as a pyarrow table. The run holds
//! no GIL: it works on a thread of its own while the caller's thread waits, taking the GIL every
//! [`POLL`] to let Python handle signals. On Ctrl-C the run's temporary files are removed, its
//! outputs are never published, and `KeyboardInterrupt` is raised at once; the run's search stops
//! at its next step (the stop flag), and its thread ends without writing anything.
//!
//! Errors are raised as `ConfigError` (the command line's exit status 2: flags, configs) or
//! `DataError` (1: data, I/O), both `anonbox.Error`, with the command line's message.

use std::sync::mpsc;
use std::time::Duration;

use arrow::array::{Array, BooleanArray};
use arrow::pyarrow::{FromPyArrow, IntoPyArrow, Table, ToPyArrow};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use anonbox::api::{Failure, Finished};
use anonbox::io::columnar::Batches;
use anonbox::io::Cleanup;
use anonbox::progress::{Shown, Watch};

create_exception!(anonbox, Error, PyException, "An anonbox command failed.");
create_exception!(
    anonbox,
    ConfigError,
    Error,
    "Bad arguments or configuration (the command line's exit status 2): nothing was read or \
     written."
);
create_exception!(
    anonbox,
    DataError,
    Error,
    "The data or a file could not be read or written (the command line's exit status 1): \
     nothing was written."
);

/// How often the waiting thread lets Python handle signals.
const POLL: Duration = Duration::from_millis(50);

fn raise(f: Failure) -> PyErr {
    let message = f.message();
    match f.exit_code {
        2 => ConfigError::new_err(message),
        _ => DataError::new_err(message),
    }
}

/// Runs `work` on a thread of its own without the GIL; the calling thread checks for signals
/// every [`POLL`] and, on one, interrupts `cleanup` and raises.
fn detached<T: Send + 'static>(
    py: Python<'_>,
    cleanup: &Cleanup,
    mut on_poll: impl FnMut(Python<'_>) -> PyResult<()>,
    work: impl FnOnce() -> T + Send + 'static,
) -> PyResult<T> {
    let (tx, rx) = mpsc::channel();
    // Borrowed by the detached waits: a receiver is not shared between threads bare.
    let rx = std::sync::Mutex::new(rx);
    std::thread::Builder::new()
        .name("anonbox-run".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| DataError::new_err(format!("cannot start the run's thread: {e}")))?;
    loop {
        match py.detach(|| anonbox::sync::lock(&rx).recv_timeout(POLL)) {
            Ok(v) => {
                on_poll(py)?;
                return Ok(v);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals().and_then(|()| on_poll(py)) {
                    // Removes the temporary files, keeps the run from publishing anything and
                    // stops its search; the run's thread ends on its own.
                    cleanup.cancel();
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::new_err("internal error: the run's thread panicked"))
            }
        }
    }
}

/// A finished run: the release in memory (if asked), the reports, the transformation.
#[pyclass(module = "anonbox._native", frozen)]
struct Run {
    finished: Finished,
    /// The release's batches, handed out once ([`Run::table`]): the package keeps the table
    /// (or the DataFrame made from it), not a second copy here.
    release: std::sync::Mutex<Option<anonbox::api::InMemory>>,
    suppressed: Option<Vec<bool>>,
}

#[pymethods]
impl Run {
    /// The release as a pyarrow Table (once: later calls give None), or None when it was
    /// written to a file.
    fn table<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(r) = anonbox::sync::lock(&self.release).take() else {
            return Ok(None);
        };
        let t = Table::try_new(r.batches, r.schema).map_err(|e| Error::new_err(e.to_string()))?;
        t.into_pyarrow(py).map(Some)
    }

    /// Per released row, True if it was suppressed (a pyarrow BooleanArray), or None where the
    /// method does not say.
    fn suppressed<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(s) = self.suppressed.as_ref() else {
            return Ok(None);
        };
        BooleanArray::from(s.clone())
            .into_data()
            .to_pyarrow(py)
            .map(Some)
    }

    /// The JSON report, as text.
    fn report_json(&self) -> String {
        self.finished.report.to_string()
    }

    /// The HTML report.
    fn html(&self, py: Python<'_>) -> PyResult<String> {
        let f = &self.finished;
        py.detach(|| f.html()).map_err(|e| {
            raise(Failure {
                error: e,
                exit_code: 1,
            })
        })
    }

    /// Each quasi-identifier's level, in order, or None (not a full-domain method).
    fn transformation(&self) -> Option<Vec<(String, usize)>> {
        self.finished.transformation()
    }
}

/// Runs the command line's run with `args` (its flags), reading `data` (anything with
/// `__arrow_c_stream__`) instead of an input file if given, keeping the release in memory if
/// `in_memory`. `progress(phase, position, length, message)` is called on the caller's thread
/// whenever the run's current bar changed (at most every [`POLL`]), once for every bar that
/// began and ended between two polls, and once at the end.
#[pyfunction]
#[pyo3(signature = (args, data=None, in_memory=false, progress=None))]
fn run(
    py: Python<'_>,
    args: Vec<String>,
    data: Option<&Bound<'_, PyAny>>,
    in_memory: bool,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<Run> {
    let batches = match data {
        Some(d) => {
            let (batches, schema) = Table::from_pyarrow_bound(d)?.into_inner();
            Some(Batches::new(schema, batches).map_err(|e| {
                raise(Failure {
                    error: e,
                    exit_code: 1,
                })
            })?)
        }
        None => None,
    };
    let cleanup = Cleanup::default();
    let held = cleanup.clone();
    let watch = progress.as_ref().map(|_| Watch::default());
    let watched = watch.clone();
    // The bars reported so far: every one before `reported.0` as it ended, bar `reported.0`
    // as `reported.1` shows it.
    let mut reported: (usize, Option<Shown>) = (0, None);
    let on_poll = |_py: Python<'_>| -> PyResult<()> {
        let (Some(callback), Some(watch)) = (&progress, &watch) else {
            return Ok(());
        };
        let bars = watch.since(reported.0);
        let Some(newest) = bars.len().checked_sub(1) else {
            return Ok(());
        };
        for (i, s) in bars.iter().enumerate() {
            if i == 0 && reported.1.as_ref() == Some(s) {
                continue;
            }
            callback.call1((&s.phase, s.position, s.length, &s.message))?;
        }
        reported = (reported.0 + newest, bars.last().cloned());
        Ok(())
    };
    let finished = detached(py, &cleanup, on_poll, move || {
        anonbox::api::run(&args, batches, in_memory, watched, &held)
    })?
    .map_err(raise)?;
    let mut finished = finished;
    let release = finished.release.take();
    let suppressed = release.as_ref().and_then(|r| r.suppressed.clone());
    Ok(Run {
        finished,
        release: std::sync::Mutex::new(release),
        suppressed,
    })
}

/// Runs `anonbox audit`, `init` or `hierarchy` with `args` (the subcommand first): what it
/// prints, and its exit status (an audit whose threshold fails: 1).
#[pyfunction]
fn command(py: Python<'_>, args: Vec<String>) -> PyResult<(String, u8)> {
    let cleanup = Cleanup::default();
    let held = cleanup.clone();
    detached(
        py,
        &cleanup,
        |_| Ok(()),
        move || anonbox::api::command(&args, &held),
    )?
    .map_err(raise)
}

/// Hands the memory freed since the run back to the system (glibc's `malloc_trim`). The run
/// builds its release on its own thread, whose allocator arena keeps freed pages for that
/// thread: once pandas holds the release's copy, the Arrow release's pages would otherwise stay
/// with the process. Elsewhere a no-op.
#[pyfunction]
fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's arenas to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The anonbox version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("DataError", py.get_type::<DataError>())?;
    m.add_class::<Run>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(command, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(release_memory, m)?)?;
    Ok(())
}
