//! What a signal cleans up: the temporary files and new folders of a publication, and where it
//! stands.
//!
//! A [`Cleanup`] is shared (an `Arc`) between a [`Publication`](super::Publication), its files,
//! and the thread that waits for SIGHUP, SIGINT and SIGTERM (`main`). The publication lists each
//! temporary file and each folder it creates here as it creates them, and unlists them as they
//! are renamed into place or removed; on a signal, [`Cleanup::interrupt`] removes what is listed.
//!
//! One lock, the phase, orders the two: [`Publication::publish`](super::Publication::publish)
//! and [`Cleanup::interrupt`] hold it while they act, so a signal never removes a temporary file
//! that is being renamed into place, and a run's last renames are never cut in half by the
//! cleanup. Creating a temporary file or a folder and removing an uncommitted file hold it too,
//! so the list is never behind the disk. The cleanup keeps the lock until the process exits, so
//! the error report ([`Cleanup::hold_for_exit`]) waits: an error the cleanup itself caused (a
//! temporary file gone) is never reported in place of the signal.
//!
//! A library caller's process does not exit on an interrupt (Ctrl-C in Python): there
//! [`Cleanup::cancel`] removes the same files but releases the lock, marking the publication
//! cancelled. The run's thread then reads the stop flag ([`Cleanup::stop`]) at its search's next
//! step, may no longer create or publish anything (an error), and ends, its memory freed.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rustix::fs::AtFlags;

use super::dest::Dir;

/// The clean-up list of one publication and its phase, shared with the thread that waits for
/// signals (see the module docs). A clone is another handle to the same list.
#[derive(Clone, Default)]
pub struct Cleanup(Arc<Shared>);

#[derive(Default)]
struct Shared {
    phase: Mutex<Phase>,
    /// Temporary files not published yet: each folder and name.
    temporary: Mutex<Vec<(Arc<Dir>, OsString)>>,
    /// Folders created for the outputs ([`Cleanup::create_dir`]) while they are not published.
    created: Mutex<Vec<PathBuf>>,
    /// Raised by [`Cleanup::interrupt`]: the run's work stops at its next check of it.
    stop: crate::sync::Stop,
    /// Private working folders (an engine's spill folder, raw records in it): removed with
    /// everything in them on a signal ([`Cleanup::add_private_dir`]).
    private: Mutex<Vec<PathBuf>>,
    /// What stops work running outside this process (a cluster's jobs) before the files go
    /// ([`Cleanup::on_interrupt`]).
    stoppers: Mutex<Vec<Stopper>>,
}

/// A hook [`Cleanup::on_interrupt`] lists.
type Stopper = Arc<dyn Fn() + Send + Sync>;

/// Where a publication stands (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum Phase {
    #[default]
    Running,
    Published,
    /// Interrupted by a library caller ([`Cleanup::cancel`]): nothing is created or published.
    Cancelled,
}

/// What creating or publishing an output fails with once the run was cancelled.
pub(super) fn cancelled() -> std::io::Error {
    std::io::Error::other("the run was interrupted: nothing is written")
}

/// Locks `m`, whatever a panic that held it left (the lists stay usable).
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Cleanup {
    /// The phase lock (see the module docs).
    pub(super) fn phase(&self) -> MutexGuard<'_, Phase> {
        lock(&self.0.phase)
    }

    /// Lists the temporary file `name` in `dir` (the caller holds the phase lock).
    pub(super) fn register(&self, dir: &Arc<Dir>, name: &OsStr) {
        lock(&self.0.temporary).push((Arc::clone(dir), name.to_os_string()));
    }

    /// Unlists the temporary file `name` in `dir` (renamed into place, or removed).
    pub(super) fn unregister(&self, dir: &Dir, name: &OsStr) {
        lock(&self.0.temporary).retain(|(d, n)| !(std::ptr::eq(&**d, dir) && n == name));
    }

    /// True if a temporary file in the folder `dir` is listed (tests).
    #[cfg(test)]
    pub(super) fn lists(&self, dir: &Path) -> bool {
        lock(&self.0.temporary)
            .iter()
            .any(|(d, _)| d.path().starts_with(dir))
    }

    /// True if the phase is locked (tests).
    #[cfg(test)]
    pub(super) fn is_held(&self) -> bool {
        self.0.phase.try_lock().is_err()
    }

    /// Creates the folder `path` and lists it, under the phase lock, as temporary files are, so
    /// a signal's cleanup never misses it; returns false if a folder is already there (see
    /// [`Publication::create_dir`](super::Publication::create_dir)).
    pub(super) fn create_dir(&self, path: &Path) -> std::io::Result<bool> {
        let phase = self.phase();
        if *phase == Phase::Cancelled {
            return Err(cancelled());
        }
        match std::fs::create_dir(path) {
            Ok(()) => {
                lock(&self.0.created).push(path.to_path_buf());
                Ok(true)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && path.is_dir() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Lists a private working folder (raw records spilled by an engine): a signal's cleanup
    /// removes it with its contents. Its owner removes it after the run and unlists it
    /// ([`Cleanup::remove_private_dir`]).
    pub fn add_private_dir(&self, path: &Path) {
        let _phase = self.phase();
        lock(&self.0.private).push(path.to_path_buf());
    }

    /// Lists `stop`, run by a signal's cleanup (or a library caller's cancel) before anything
    /// is removed: it stops work that would still write into the listed folders, such as a
    /// cluster's tasks writing a release's parts. It must return within a few seconds, and do
    /// nothing once its work is over.
    pub fn on_interrupt(&self, stop: Stopper) {
        lock(&self.0.stoppers).push(stop);
    }

    /// Removes a private working folder with its contents and unlists it.
    pub fn remove_private_dir(&self, path: &Path) {
        let _phase = self.phase();
        remove_private(path);
        lock(&self.0.private).retain(|p| p != path);
    }

    /// Forgets the created folders: published, they stay.
    pub(super) fn keep_created_dirs(&self) {
        lock(&self.0.created).clear();
    }

    /// Removes the created folders not published yet, the last created first, each only if
    /// empty (`remove_dir`: nothing someone else put into one goes with it). The caller holds
    /// the phase lock.
    pub(super) fn remove_created_dirs(&self) {
        let created = std::mem::take(&mut *lock(&self.0.created));
        for dir in created.into_iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }

    /// For the signal thread: removes every temporary file and created folder listed and
    /// returns true, keeping the phase locked so that nothing else is published or reported
    /// before the process exits (the caller exits next). Returns false, removing nothing, once
    /// the outputs are published: the run has succeeded and ends on its own.
    pub fn interrupt(&self) -> bool {
        self.0.stop.raise();
        let guard = self.phase();
        if *guard == Phase::Published {
            return false;
        }
        self.remove_listed();
        std::mem::forget(guard);
        true
    }

    /// For a library caller interrupted (see the module docs): removes what is listed as
    /// [`Cleanup::interrupt`] does and raises the stop flag, but releases the lock, the
    /// publication cancelled. Returns false, removing nothing, once the outputs are published.
    pub fn cancel(&self) -> bool {
        self.0.stop.raise();
        let mut guard = self.phase();
        if *guard == Phase::Published {
            return false;
        }
        self.remove_listed();
        *guard = Phase::Cancelled;
        true
    }

    /// Stops the work listed with [`Cleanup::on_interrupt`], then removes every temporary file
    /// and created folder listed (the caller holds the lock).
    fn remove_listed(&self) {
        let stoppers = lock(&self.0.stoppers).clone();
        for stop in stoppers {
            // A hook that fails must not keep the files from going.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| stop()));
        }
        for dir in std::mem::take(&mut *lock(&self.0.private)) {
            remove_private(&dir);
        }
        let temporary = lock(&self.0.temporary).clone();
        for (dir, name) in temporary {
            let _ = rustix::fs::unlinkat(&*dir, &name, AtFlags::empty());
        }
        self.remove_created_dirs();
    }

    /// The flag [`Cleanup::interrupt`] raises: a library caller's run stops its search at it
    /// and writes nothing (the command line's process exits instead).
    pub fn stop(&self) -> crate::sync::Stop {
        self.0.stop.clone()
    }

    /// For the error report before the process exits: waits while a signal's cleanup runs
    /// (that cleanup then exits the process itself) and keeps later signals from starting one.
    pub fn hold_for_exit(&self) {
        std::mem::forget(self.phase());
    }
}

/// Removes the private folder `dir` with its contents. Work stopped just before (a cluster's
/// task) may still create a file in it while it goes, which leaves the folder in place: it is
/// tried again for up to a second.
fn remove_private(dir: &Path) {
    for _ in 0..20 {
        match std::fs::remove_dir_all(dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound && dir.exists() => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            _ => return,
        }
    }
}

/// A private working folder (mode 0700), listed in a run's clean-up from the moment it exists
/// so that a signal removes it with its contents ([`Cleanup::interrupt`]), and removed with its
/// contents when dropped: after the run, whether it succeeded or failed. An engine's spill
/// folder, a data set release's staging folder.
pub struct PrivateDir {
    path: PathBuf,
    cleanup: Cleanup,
}

impl PrivateDir {
    /// Creates `PREFIX` + six random characters in `parent` and lists it in `cleanup`.
    pub fn new_in(parent: &Path, prefix: &str, cleanup: &Cleanup) -> crate::Result<PrivateDir> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix(prefix)
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(parent)
            .map_err(|e| crate::Error::io(parent, e))?;
        // Listed before tempfile lets go of it: there is no moment a signal would miss it.
        cleanup.add_private_dir(dir.path());
        Ok(PrivateDir {
            path: dir.keep(),
            cleanup: cleanup.clone(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        self.cleanup.remove_private_dir(&self.path);
    }
}
