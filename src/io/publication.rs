//! Publishing as a value: a command's outputs appear at their paths only when the whole command
//! has succeeded, all together.
//!
//! A command (a run, `init`, `anonbox hierarchy`) owns a [`Publication`]. Every file it writes
//! is created through it ([`Publication::create`], [`Publication::create_private`],
//! [`Publication::write`]: an [`AtomicFile`], written into a temporary file beside its
//! destination), and so is every folder it makes for them ([`Publication::create_dir`]).
//! [`AtomicFile::commit`] stages a complete file into its publication; [`Publication::publish`]
//! renames every staged file into place at the end of a successful command. A publication
//! dropped unpublished (any error) removes them, and the folders it created: a failed command
//! changes no file. What a signal must remove is listed in the publication's [`Cleanup`], which
//! the signal thread holds.
//!
//! Publishing acts on what was resolved: each name is renamed within its folder's handle
//! (`renameat`), after checking it again under the folder's lock: a name that has become a
//! link, a folder, another user's file in a shared folder or one of the files the command reads
//! ([`Publication::never_replace`]) fails the run, and a temporary file that is no longer ours
//! too. The file at a destination is first kept aside (a second name, `.NAME.PID.N.old`, in the
//! same folder) so that a failed rename puts every earlier one back; the rollback removes or
//! puts back only a file that is still the one this run put there (same inode).
//!
//! Concurrent runs: the renames take each destination folder's advisory lock (`flock` on the
//! folder itself, so no lock file is ever left behind), taken in one order (by device and
//! inode) and held only while renaming. A second run publishing into the same folder waits for
//! the first's renames, then replaces its files; the last run to publish wins, whole.
//!
//! Modes: a new file is owner-only (0600); a replaced file keeps its permission bits only if
//! the user owns it (else it is replaced by a new file, 0600); `-mode`
//! ([`Publication::file_mode`]) sets the bits of every file written, new or replaced. A kept
//! database is 0600 in every case ([`Publication::create_private`]).

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustix::fs::{AtFlags, Mode as RawMode};

use super::atomic::{self, AtomicFile, Mode, Temp};
use super::cleanup::{lock, Cleanup, Phase};
use super::dest::{self, Dir, Info};
use super::sweep::ASIDE_SUFFIX;
use crate::{Error, Result};

/// The outputs of one command, published together or not at all (see the module docs).
/// Dropped unpublished, it removes them.
pub struct Publication {
    /// What a signal removes (shared with the signal thread).
    pub(super) cleanup: Cleanup,
    /// What the files stage into (shared with each uncommitted file).
    pub(super) staging: Arc<Staging>,
    /// The files the command reads ([`Publication::never_replace`]).
    protected: Mutex<Vec<Protected>>,
    /// `-mode`: the permission bits of every file written but a kept database.
    file_mode: Option<u32>,
    /// `-quiet`: a sweep of killed runs' files ([`super::sweep`]) says nothing.
    pub(super) quiet: bool,
}

/// What a publication's files stage into, shared with each of them until it commits.
#[derive(Default)]
pub(super) struct Staging {
    /// The outputs committed, in commit order.
    pub(super) staged: Mutex<Vec<Temp>>,
    /// Files that belong to a replaced output and go with it once the run is published
    /// ([`AtomicFile::remove_beside_on_publish`]).
    pub(super) obsolete: Mutex<Vec<(Arc<Dir>, OsString)>>,
}

/// A file the command reads, by identity: never replaced (checked when a destination is
/// created and again when it is published).
struct Protected {
    id: (u64, u64),
    what: &'static str,
    path: PathBuf,
}

/// A destination renamed into place: what to undo if a later one fails.
struct Done {
    dir: Arc<Dir>,
    target: OsString,
    /// The published file.
    ino: u64,
    /// Where the file it replaced was kept.
    aside: Option<OsString>,
}

impl Default for Publication {
    /// A publication no signal thread watches (tests, library use).
    fn default() -> Publication {
        Publication::new(&Cleanup::default())
    }
}

impl Publication {
    /// A publication that lists what a signal must remove in `cleanup` (a clone of the handle
    /// the signal thread holds; one publication per clean-up list). New files are owner-only,
    /// and a sweep says what it removed.
    pub fn new(cleanup: &Cleanup) -> Publication {
        Publication {
            cleanup: cleanup.clone(),
            staging: Arc::default(),
            protected: Mutex::default(),
            file_mode: None,
            quiet: false,
        }
    }

    /// The publication with the permission bits of every file it writes, new or replaced, but
    /// a kept database (`-mode`, `--mode`); `None`: owner-only for a new file, a replaced one's
    /// own if the user owns it.
    pub fn file_mode(mut self, mode: Option<u32>) -> Publication {
        self.file_mode = mode;
        self
    }

    /// The clean-up list a signal empties (an engine lists its private folders there).
    pub fn cleanup(&self) -> &Cleanup {
        &self.cleanup
    }

    /// The publication with `-quiet`: a sweep of killed runs' files removes without saying so.
    pub fn quiet(mut self, quiet: bool) -> Publication {
        self.quiet = quiet;
        self
    }

    /// Records the files the command reads (`what`, path), as they are now, so that no output
    /// replaces one of them: checked again when each output is created and when it is
    /// published, since a link or a rename during the run can make a destination one of them.
    pub fn never_replace(&self, reads: &[(&'static str, PathBuf)]) {
        use std::os::unix::fs::MetadataExt;
        let mut p = lock(&self.protected);
        for (what, path) in reads {
            if let Ok(m) = std::fs::metadata(path) {
                p.push(Protected {
                    id: (m.dev(), m.ino()),
                    what,
                    path: path.clone(),
                });
            }
        }
    }

    /// The message for a destination `shown` that is now the file `id`, if the command reads
    /// it.
    pub(super) fn read_by_the_run(&self, shown: &Path, id: (u64, u64)) -> Option<Error> {
        lock(&self.protected).iter().find(|r| r.id == id).map(|r| {
            Error::in_file(
                shown,
                format!(
                    "is now the {} {} (a link or a rename during the run): anonbox never \
                     writes over what it reads, and wrote nothing",
                    r.what,
                    r.path.display()
                ),
            )
        })
    }

    /// Starts writing `target` (see [`AtomicFile`]). The folder must exist.
    pub fn create(&self, target: &Path) -> Result<AtomicFile> {
        AtomicFile::create_in(self, target, Mode::Release)
    }

    /// A temporary file for a database that another library writes (SQLite, through
    /// [`AtomicFile::temp_path`]), owner-only (0600) whatever the file it replaces and whatever
    /// `-mode`: it holds the raw data. Staged and published like any output, so a failed or
    /// interrupted run leaves no database and an existing one untouched. Never a stream.
    pub fn create_private(&self, target: &Path) -> Result<AtomicFile> {
        if atomic::is_stdout(target) || atomic::is_stream(target) {
            return Err(Error::Usage(format!(
                "{} is not a regular file: a database must be a file",
                target.display()
            )));
        }
        AtomicFile::create_in(self, target, Mode::Private)
    }

    /// Writes `bytes` to `path` and stages it (small files: reports, configs).
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let mut f = self.create(path)?;
        f.write_all(bytes).map_err(|e| Error::io(path, e))?;
        f.commit()
    }

    /// Stages the finished file `from` (written by another process, in a private folder on
    /// `target`'s file system) as the output `target`: it is renamed over a new temporary file
    /// beside `target`, must be a regular file of the user's, and is published with the rest.
    pub fn adopt(&self, target: &Path, from: &Path) -> Result<()> {
        AtomicFile::create_in(self, target, Mode::Release)?.adopt(from)
    }

    /// Once the run is published, removes `names` in the folder `dir` (those that are regular
    /// files of the user's), and never if the run fails: an earlier release's parts that the
    /// new one does not replace.
    pub fn remove_on_publish(&self, dir: &Path, names: &[OsString]) -> Result<()> {
        if names.is_empty() {
            return Ok(());
        }
        let d = Arc::new(Dir::open(dir).map_err(|e| Error::io(dir, e))?);
        lock(&self.staging.obsolete).extend(names.iter().map(|n| (Arc::clone(&d), n.clone())));
        Ok(())
    }

    /// Creates the folder `path` for outputs (its parent must exist) and returns true, or
    /// returns false if a folder is already there. A folder created here is removed again if
    /// the command fails (the publication is dropped unpublished) or is interrupted
    /// ([`Cleanup::interrupt`]), and kept once the outputs are published; a folder that existed
    /// before is never removed. Only an empty folder is ever removed (`remove_dir`), so nothing
    /// put into it by someone else goes with it.
    pub fn create_dir(&self, path: &Path) -> io::Result<bool> {
        self.cleanup.create_dir(path)
    }

    /// The run's stop flag ([`Cleanup::stop`]), for its search.
    pub fn stop(&self) -> crate::sync::Stop {
        self.cleanup.stop()
    }

    /// An error once the run was interrupted ([`Cleanup::interrupt`]): an interrupted library
    /// call ends here, before it writes, instead of waiting for a publication that never comes.
    pub fn interrupted(&self) -> Result<()> {
        if self.cleanup.stop().raised() {
            return Err(crate::Error::Invalid(
                "the run was interrupted: nothing was written".into(),
            ));
        }
        Ok(())
    }

    /// Renames every staged output into place, in commit order, under the locks of their
    /// folders (see the module docs). When a step fails, every earlier one is undone and the
    /// old files are back: a failed run changes no file (and the publication, dropped, removes
    /// the rest). The old files are removed once all are in.
    pub fn publish(self) -> Result<()> {
        let mut phase = self.cleanup.phase();
        if *phase == Phase::Cancelled {
            return Err(crate::Error::Invalid(
                "the run was interrupted: nothing was written".into(),
            ));
        }
        atomic::test_pause("ANONBOX_TEST_PUBLISH_DELAY_MS", "publishing");
        let mut staged = std::mem::take(&mut *lock(&self.staging.staged));
        // One handle per folder (two handles of one folder would wait for each other), locked
        // in one order, so that two runs with several folders never wait for each other in a
        // circle.
        let mut dirs: Vec<Arc<Dir>> = staged.iter().map(|t| Arc::clone(&t.dir)).collect();
        dirs.sort_by_key(|d| d.id());
        dirs.dedup_by_key(|d| d.id());
        let locks: Vec<_> = dirs.iter().map(|d| d.lock()).collect();
        let mut done: Vec<Done> = Vec::new();
        let mut result = Ok(());
        for (n, temp) in staged.iter_mut().enumerate() {
            match self.put_in_place(temp, n) {
                Ok(d) => done.push(d),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        if result.is_err() {
            for d in done.into_iter().rev() {
                let ours =
                    matches!(dest::stat_at(&d.dir, &d.target), Ok(Some(i)) if i.ino == d.ino);
                match (&d.aside, ours) {
                    (Some(old), true) => {
                        let _ = rustix::fs::renameat(&*d.dir, old, &*d.dir, &d.target);
                    }
                    (None, true) => {
                        let _ = rustix::fs::unlinkat(&*d.dir, &d.target, AtFlags::empty());
                    }
                    // Someone else's file is there now: it stays, and what was set aside goes.
                    (Some(old), false) => {
                        let _ = rustix::fs::unlinkat(&*d.dir, old, AtFlags::empty());
                    }
                    (None, false) => {}
                }
            }
            lock(&self.staging.obsolete).clear();
            drop(staged);
            drop(locks);
            return result;
        }
        for d in &done {
            if let Some(old) = &d.aside {
                let _ = rustix::fs::unlinkat(&*d.dir, old, AtFlags::empty());
            }
        }
        for (dir, name) in std::mem::take(&mut *lock(&self.staging.obsolete)) {
            if let Ok(Some(i)) = dest::stat_at(&dir, &name) {
                if i.is_file() && i.is_mine() {
                    let _ = rustix::fs::unlinkat(&*dir, &name, AtFlags::empty());
                }
            }
        }
        drop(locks);
        *phase = Phase::Published;
        self.cleanup.keep_created_dirs();
        Ok(())
    }

    /// Renames `temp` over its destination, after checking both names again; returns what to
    /// undo. `n`: the rename's number in this publication (for the set-aside name).
    fn put_in_place(&self, temp: &mut Temp, n: usize) -> Result<Done> {
        let dir = Arc::clone(&temp.dir);
        let shown = &temp.shown;
        let failed = |e: io::Error| Error::io(shown, e);
        let current = dest::stat_at(&dir, &temp.target).map_err(failed)?;
        if let Some(c) = &current {
            let changed = |what: &str| {
                Error::in_file(
                    shown,
                    format!(
                        "{what} during the run: anonbox replaces only what it checked, and \
                         wrote nothing"
                    ),
                )
            };
            if c.is_symlink() {
                return Err(changed("became a symbolic link"));
            }
            if !c.is_file() {
                return Err(changed(
                    "became something else than a regular file (a folder, a device)",
                ));
            }
            if let Some(e) = self.read_by_the_run(shown, c.id()) {
                return Err(e);
            }
            if !c.is_mine() && dir.shared() {
                return Err(changed(&format!(
                    "became a file of another user (uid {}) in a folder other users can write",
                    c.uid
                )));
            }
        }
        match dest::stat_at(&dir, &temp.name) {
            Ok(Some(i)) if i.ino == temp.ino && i.is_file() => {}
            _ => {
                return Err(Error::in_file(
                    shown,
                    format!(
                        "its temporary file {} was replaced or removed during the run: nothing \
                         was written",
                        dir.path().join(&temp.name).display()
                    ),
                ))
            }
        }
        let mode = final_mode(temp.mode, self.file_mode, current.as_ref());
        rustix::fs::fchmod(&temp.file, RawMode::from_raw_mode(mode as _))
            .map_err(|e| failed(e.into()))?;
        let aside = match &current {
            Some(_) => Some(set_aside(&dir, &temp.target, n).map_err(failed)?),
            None => None,
        };
        if let Err(e) = rustix::fs::renameat(&*dir, &temp.name, &*dir, &temp.target) {
            if let Some((old, moved)) = &aside {
                let _ = if *moved {
                    rustix::fs::renameat(&*dir, old, &*dir, &temp.target)
                } else {
                    rustix::fs::unlinkat(&*dir, old, AtFlags::empty())
                };
            }
            return Err(failed(e.into()));
        }
        temp.mark_published();
        Ok(Done {
            dir,
            target: temp.target.clone(),
            ino: temp.ino,
            aside: aside.map(|(old, _)| old),
        })
    }
}

impl Drop for Publication {
    /// Removes every output staged and not published (a failed command), then the folders
    /// created for them. After a signal's cleanup has started, waits here for it to exit the
    /// process.
    fn drop(&mut self) {
        lock(&self.staging.obsolete).clear();
        let staged = std::mem::take(&mut *lock(&self.staging.staged));
        drop(staged);
        let _phase = self.cleanup.phase();
        self.cleanup.remove_created_dirs();
    }
}

/// The bits a file published with `mode` gets, over `current` (the file it replaces), given
/// `-mode` (`given`).
fn final_mode(mode: Mode, given: Option<u32>, current: Option<&Info>) -> u32 {
    if mode == Mode::Private {
        return 0o600;
    }
    match given {
        None => current
            .filter(|c| c.is_file() && c.is_mine())
            .map_or(0o600, |c| c.mode & 0o777),
        Some(given) => given,
    }
}

/// Parses a `-mode` value: octal permission bits, at most 777 (`640`, `0640`, `0o640`).
pub fn parse_file_mode(text: &str) -> std::result::Result<u32, String> {
    let t = text.trim();
    let digits = t.strip_prefix("0o").unwrap_or(t);
    match u32::from_str_radix(digits, 8) {
        Ok(m) if m <= 0o777 && !digits.is_empty() => Ok(m),
        _ => Err(format!(
            "'{text}' is not an octal file mode from 000 to 777 (such as 600 or 640)"
        )),
    }
}

/// Keeps the file at `target` under a second name, `.NAME.PID.N.old`, in its folder: a hard
/// link (the destination never goes missing), else a rename (file systems without hard links).
/// `N` is the rename's number in its publication, or the next number whose name is free (a name
/// taken is never replaced: another publication of this process may be renaming in the same
/// folder where the folder cannot be locked). Returns the name and whether the file was moved.
fn set_aside(dir: &Dir, target: &OsStr, n: usize) -> io::Result<(OsString, bool)> {
    let mut n = n;
    loop {
        let mut old = OsString::from(".");
        old.push(target);
        old.push(format!(".{}.{n}{ASIDE_SUFFIX}", std::process::id()));
        n += 1;
        match rustix::fs::linkat(dir, target, dir, &old, AtFlags::empty()) {
            Ok(()) => return Ok((old, false)),
            Err(rustix::io::Errno::EXIST) => continue,
            Err(_) if dest::stat_at(dir, &old)?.is_some() => continue,
            Err(_) => {
                rustix::fs::renameat(dir, target, dir, &old)?;
                return Ok((old, true));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_only_when_published() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, b"old").unwrap();
        let publication = Publication::default();
        {
            let mut f = publication.create(&target).unwrap();
            f.write_all(b"new").unwrap();
            // dropped without commit
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut f = publication.create(&target).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(
            std::fs::read(&target).unwrap(),
            b"old",
            "staged, not published"
        );
        let cleanup = publication.cleanup.clone();
        assert!(cleanup.lists(dir.path()));
        drop(publication);
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        assert!(!cleanup.lists(dir.path()), "unlisted once removed");
        let publication = Publication::default();
        let mut f = publication.create(&target).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        publication.publish().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Two publications at once (as tests run on several threads): each publishes or drops
    /// its own outputs only.
    /// A library caller's interrupt: the staged file and the created folder go at once, the
    /// stop flag is up, nothing more can be created or published, and the run's drops end
    /// (the lock is not kept, as it is for a signal, where the process exits).
    #[test]
    fn a_cancelled_run_writes_nothing_and_ends() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new");
        let publication = Publication::default();
        assert!(publication.create_dir(&new).unwrap());
        let mut f = publication.create(&new.join("a.csv")).unwrap();
        f.write_all(b"x").unwrap();
        let cleanup = publication.cleanup.clone();
        assert!(!cleanup.stop().raised());
        assert!(cleanup.cancel());
        assert!(cleanup.stop().raised());
        assert!(!new.exists(), "the staged file and its folder are removed");
        assert!(publication.interrupted().is_err());
        let e = publication.create(&dir.path().join("b.csv")).err().unwrap();
        assert!(e.to_string().contains("interrupted"), "{e}");
        assert!(publication.create_dir(&dir.path().join("c")).is_err());
        drop(f);
        let e = publication.publish().unwrap_err();
        assert!(e.to_string().contains("interrupted"), "{e}");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn publications_are_apart() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.csv"), dir.path().join("b.csv"));
        let first = Publication::default();
        let second = Publication::default();
        first.write(&a, b"a").unwrap();
        second.write(&b, b"b").unwrap();
        drop(second);
        first.publish().unwrap();
        assert!(a.is_file() && !b.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_created_folder_goes_with_a_failed_run() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new");
        let publication = Publication::default();
        assert!(publication.create_dir(&new).unwrap());
        publication.write(&new.join("a.csv"), b"x").unwrap();
        drop(publication);
        assert!(!new.exists(), "created, then removed with the failed run");
        let old = dir.path().join("old");
        std::fs::create_dir(&old).unwrap();
        let publication = Publication::default();
        assert!(!publication.create_dir(&old).unwrap());
        drop(publication);
        assert!(old.is_dir(), "a folder that was there is kept");
        let publication = Publication::default();
        assert!(publication.create_dir(&new).unwrap());
        publication.write(&new.join("a.csv"), b"x").unwrap();
        publication.publish().unwrap();
        assert!(new.join("a.csv").is_file(), "published: kept");
        let publication = Publication::default();
        assert!(publication.create_dir(&dir.path().join("no/such")).is_err());
    }

    /// A signal's cleanup removes the temporary files and the created folders, and keeps the
    /// phase locked; once published, it removes nothing.
    #[test]
    fn an_interrupt_removes_what_is_listed() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new");
        let cleanup = Cleanup::default();
        let publication = Publication::new(&cleanup);
        assert!(publication.create_dir(&new).unwrap());
        publication.write(&new.join("a.csv"), b"x").unwrap();
        let open = publication.create(&dir.path().join("b.csv")).unwrap();
        assert!(cleanup.interrupt());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        assert!(cleanup.is_held(), "held until the exit");
        // (The run would wait for the exit; here the publication and its file are leaked.)
        std::mem::forget(open);
        std::mem::forget(publication);
        let cleanup = Cleanup::default();
        let publication = Publication::new(&cleanup);
        publication.write(&dir.path().join("c.csv"), b"x").unwrap();
        publication.publish().unwrap();
        assert!(!cleanup.interrupt());
        assert!(dir.path().join("c.csv").is_file());
    }

    /// The hooks listed with `on_interrupt` run before anything is removed (a cluster's
    /// tasks stop before their staging folder goes), a failing one does not keep the rest from
    /// running or the files from going, and a library caller's cancel runs them too.
    #[test]
    fn an_interrupt_stops_outside_work_first() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        for cancel in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let cleanup = Cleanup::default();
            let private =
                super::super::cleanup::PrivateDir::new_in(dir.path(), "p-", &cleanup).unwrap();
            let path = private.path().to_path_buf();
            std::fs::write(path.join("part"), b"x").unwrap();
            let ran = Arc::new(AtomicUsize::new(0));
            cleanup.on_interrupt(Arc::new(|| panic!("a failing hook")));
            let (seen, p) = (Arc::clone(&ran), path.clone());
            cleanup.on_interrupt(Arc::new(move || {
                assert!(p.join("part").exists(), "the folder went before the hook");
                seen.fetch_add(1, Ordering::SeqCst);
            }));
            let done = if cancel {
                cleanup.cancel()
            } else {
                cleanup.interrupt()
            };
            assert!(done);
            assert_eq!(ran.load(Ordering::SeqCst), 1);
            assert!(!path.exists());
            std::mem::forget(private);
        }
    }

    #[test]
    fn links_are_followed_and_own_modes_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.csv");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        let publication = Publication::default();
        publication.write(&link, b"new").unwrap();
        publication.publish().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&real), 0o640);
        let new = dir.path().join("new.csv");
        let publication = Publication::default();
        publication.write(&new, b"new").unwrap();
        publication.publish().unwrap();
        assert_eq!(mode(&new), 0o600);
        let publication = Publication::default().file_mode(Some(0o644));
        publication.write(&new, b"newer").unwrap();
        publication.publish().unwrap();
        assert_eq!(mode(&new), 0o644);
    }

    #[test]
    fn file_modes_are_octal() {
        assert_eq!(parse_file_mode("640"), Ok(0o640));
        assert_eq!(parse_file_mode("0600"), Ok(0o600));
        assert_eq!(parse_file_mode("0o644"), Ok(0o644));
        for bad in ["", "8", "1777", "rw", "-1"] {
            assert!(parse_file_mode(bad).is_err(), "{bad}");
        }
    }
}
