//! Atomic files: an output appears at its path only when the whole run has succeeded.
//!
//! [`AtomicFile::create`] resolves the destination once ([`Dest::resolve`]) and writes into a
//! new temporary file in the destination's folder, created through the folder's handle
//! (`openat` with `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600, so no name planted in the folder
//! is ever opened and nobody else can read the data while it is written), and locked (`flock`)
//! while it lives. [`AtomicFile::commit`] flushes and syncs it and *stages* it: every output of
//! a run (data, the anatomy pair, the report, a kept database) is staged, and [`publish`]
//! renames them all into place at the end of a successful run, while [`discard`] (any error)
//! removes them. Dropping an uncommitted `AtomicFile` removes its temporary file. So a failed
//! run changes no file.
//!
//! Publishing acts on what was resolved: each name is renamed within its folder's handle
//! (`renameat`), after checking it again under the folder's lock: a name that has become a
//! link, a folder, another user's file in a shared folder or one of the files the run reads
//! ([`never_replace`]) fails the run, and a temporary file that is no longer ours too. The file
//! at a destination is first kept aside (a second name, `.NAME.PID.N.old`, in the same folder)
//! so that a failed rename puts every earlier one back; the rollback removes or puts back only
//! a file that is still the one this run put there (same inode).
//!
//! Concurrent runs: the renames take each destination folder's advisory lock (`flock` on the
//! folder itself, so no lock file is ever left behind), taken in one order (by device and
//! inode) and held only while renaming. A second run publishing into the same folder waits for
//! the first's renames, then replaces its files; the last run to publish wins, whole.
//!
//! Modes: a new file is owner-only (0600); a replaced file keeps its permission bits only if
//! the user owns it (else it is replaced by a new file, 0600); `-mode` ([`set_file_mode`])
//! sets the bits of every file written, new or replaced. A kept database is 0600 in every case
//! ([`AtomicFile::create_private`]).
//!
//! Streams: a destination that names an inherited descriptor (`-`, `/dev/stdout`, ...) or is an
//! existing FIFO or character device is written into, never renamed over (see [`super::dest`]).
//!
//! Temporary files are also listed in a process-wide registry so that a signal handler can
//! remove them before the process exits ([`interrupt`]). A run killed by SIGKILL leaves its
//! temporary file, or a file it had set aside: the next run that writes the same name cleans
//! up after it ([`sweep_stale`]).

use std::ffi::{OsStr, OsString};
use std::io::{self, BufWriter, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use rustix::fs::{AtFlags, Mode as RawMode, OFlags};

use super::dest::{self, Dest, Dir, Info, Place};
use crate::{Error, Result};

/// A file that appears at its path only when the whole run has succeeded (see the module
/// docs).
pub struct AtomicFile {
    /// The path as given (for messages).
    target: PathBuf,
    out: BufWriter<Sink>,
}

enum Sink {
    Temp(Uncommitted),
    Stream(Box<dyn Write + Send>),
}

/// The permission bits a file gets when it is published.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// `-mode`'s, else a replaced file's if the user owns it, else owner-only (0600).
    Release,
    /// Owner-only (0600) in every case: a kept database.
    Private,
}

/// A temporary file in a destination's folder. Dropped before it is published, it is removed
/// (if it is still ours) and unlisted.
struct Temp {
    file: std::fs::File,
    dir: Arc<Dir>,
    /// The temporary file's name in `dir`.
    name: OsString,
    ino: u64,
    /// The destination's name in `dir`.
    target: OsString,
    /// The path as given (for messages).
    shown: PathBuf,
    mode: Mode,
    published: bool,
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.published {
            remove_if(&self.dir, &self.name, self.ino);
            unregister(&self.dir, &self.name);
        }
    }
}

/// A temporary file not committed yet: dropped (an error, a panic), it goes under the phase
/// lock, so a signal's cleanup either finds its entry or finds it gone.
struct Uncommitted(Option<Temp>);

impl Drop for Uncommitted {
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            let _phase = phase();
            drop(t);
        }
    }
}

impl Write for Sink {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Temp(t) => t.0.as_mut().expect("open").file.write(buf),
            Sink::Stream(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Temp(t) => t.0.as_mut().expect("open").file.flush(),
            Sink::Stream(w) => w.flush(),
        }
    }
}

/// Removes `name` from `dir` if it is still the file `ino` (a name someone else reused is
/// left alone).
fn remove_if(dir: &Dir, name: &OsStr, ino: u64) -> bool {
    match dest::stat_at(dir, name) {
        Ok(Some(i)) if i.ino == ino && !i.is_symlink() => {
            rustix::fs::unlinkat(dir, name, AtFlags::empty()).is_ok()
        }
        _ => false,
    }
}

/// Temporary files of this process that are not published yet (for the signal handler).
static TEMPORARY: std::sync::Mutex<Vec<(Arc<Dir>, OsString)>> = std::sync::Mutex::new(Vec::new());

fn register(dir: &Arc<Dir>, name: &OsStr) {
    if let Ok(mut t) = TEMPORARY.lock() {
        t.push((Arc::clone(dir), name.to_os_string()));
    }
}

fn unregister(dir: &Dir, name: &OsStr) {
    if let Ok(mut t) = TEMPORARY.lock() {
        t.retain(|(d, n)| !(std::ptr::eq(&**d, dir) && n == name));
    }
}

/// Folders this process created for its outputs ([`create_dir`]) while they are not published:
/// a failed or interrupted run removes them, so it leaves no empty folder behind. Process-wide
/// for the signal handler; each with the thread of its run, as [`discard`] and [`publish`] act
/// on the current thread's outputs only.
static CREATED: std::sync::Mutex<Vec<(std::thread::ThreadId, PathBuf)>> =
    std::sync::Mutex::new(Vec::new());

/// Creates the folder `path` for outputs (its parent must exist) and returns true, or returns
/// false if a folder is already there. A folder created here is removed again if the run fails
/// ([`discard`]) or is interrupted ([`interrupt`]), and kept once the outputs are published; a
/// folder that existed before is never removed. Only an empty folder is ever removed
/// (`remove_dir`), so nothing put into it by someone else goes with it. Created and listed under
/// the phase lock, as temporary files are, so a signal's cleanup never misses it.
pub fn create_dir(path: &Path) -> io::Result<bool> {
    let _phase = phase();
    match std::fs::create_dir(path) {
        Ok(()) => {
            if let Ok(mut c) = CREATED.lock() {
                c.push((std::thread::current().id(), path.to_path_buf()));
            }
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && path.is_dir() => Ok(false),
        Err(e) => Err(e),
    }
}

/// Takes the folders of [`create_dir`] not published yet: those of the current thread, or
/// with `all` every thread's.
fn take_created_dirs(all: bool) -> Vec<PathBuf> {
    let me = std::thread::current().id();
    let Ok(mut c) = CREATED.lock() else {
        return Vec::new();
    };
    let (taken, kept) = std::mem::take(&mut *c)
        .into_iter()
        .partition(|(thread, _)| all || *thread == me);
    *c = kept;
    taken.into_iter().map(|(_, dir)| dir).collect()
}

/// Removes the folders of [`create_dir`] not published yet (see [`take_created_dirs`]), the last
/// created first, each only if empty. The caller holds the phase lock.
fn remove_created_dirs(all: bool) {
    for dir in take_created_dirs(all).into_iter().rev() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// A file the command reads, by identity: never replaced (checked when a destination is
/// created and again when it is published).
struct Protected {
    id: (u64, u64),
    what: &'static str,
    path: PathBuf,
}

thread_local! {
    /// The outputs the current run has committed (a run writes its outputs on one thread).
    static STAGED: std::cell::RefCell<Vec<Temp>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Files that belong to a replaced output and go with it once the run is published.
    static OBSOLETE: std::cell::RefCell<Vec<(Arc<Dir>, OsString)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The files the current command reads ([`never_replace`]).
    static PROTECTED: std::cell::RefCell<Vec<Protected>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Records the files the command reads (`what`, path), as they are now, so that no output of
/// this thread's run replaces one of them: checked again when each output is created and when
/// it is published, since a link or a rename during the run can make a destination one of them.
/// Forgotten once the run is published or discarded.
pub fn never_replace(reads: &[(&'static str, PathBuf)]) {
    use std::os::unix::fs::MetadataExt;
    PROTECTED.with(|p| {
        let mut p = p.borrow_mut();
        for (what, path) in reads {
            if let Ok(m) = std::fs::metadata(path) {
                p.push(Protected {
                    id: (m.dev(), m.ino()),
                    what,
                    path: path.clone(),
                });
            }
        }
    });
}

/// The message for a destination `shown` that is now the file `id`, if the run reads it.
fn read_by_the_run(shown: &Path, id: (u64, u64)) -> Option<Error> {
    PROTECTED.with(|p| {
        p.borrow().iter().find(|r| r.id == id).map(|r| {
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
    })
}

/// No `-mode`.
const NO_MODE: u32 = u32::MAX;

/// `-mode`: the permission bits of every file written ([`NO_MODE`]: not given).
static FILE_MODE: AtomicU32 = AtomicU32::new(NO_MODE);

/// Sets the permission bits of every file the command writes, new or replaced, but a kept
/// database (`-mode`, `--mode`); `None`: owner-only for a new file, a replaced one's own if the
/// user owns it.
pub fn set_file_mode(mode: Option<u32>) {
    FILE_MODE.store(mode.unwrap_or(NO_MODE), Ordering::Relaxed);
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

/// The bits a file published with `mode` gets, over `current` (the file it replaces).
fn final_mode(mode: Mode, current: Option<&Info>) -> u32 {
    if mode == Mode::Private {
        return 0o600;
    }
    match FILE_MODE.load(Ordering::Relaxed) {
        NO_MODE => current
            .filter(|c| c.is_file() && c.is_mine())
            .map_or(0o600, |c| c.mode & 0o777),
        given => given,
    }
}

/// Removes `names` in the folder of the file `of` writes (those that exist, are regular files
/// and are the user's) right after the run's outputs are published, and never if the run
/// fails: the side files of a database being replaced (an SQLite `-wal` next to a new database
/// would be replayed into it, and holds the old one's data).
fn remove_on_publish(dir: &Arc<Dir>, names: Vec<OsString>) {
    OBSOLETE.with(|o| {
        o.borrow_mut()
            .extend(names.into_iter().map(|n| (Arc::clone(dir), n)))
    });
}

/// Where the process stands between its run and a signal. [`publish`] and [`interrupt`] hold
/// the lock while they act, so a signal never removes a temporary file that is being renamed
/// into place, and a run's last renames are never cut in half by the cleanup. Creating a
/// temporary file and removing one hold it too, so the cleanup's list of files is never behind
/// the disk. The cleanup keeps the lock until the process exits, so [`hold_for_exit`] (the error
/// report) waits: an error the cleanup itself caused (a temporary file gone) is never reported
/// in place of the signal.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    Published,
}

static PHASE: std::sync::Mutex<Phase> = std::sync::Mutex::new(Phase::Running);

fn phase() -> std::sync::MutexGuard<'static, Phase> {
    PHASE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// For the signal handler: removes every temporary output file and returns true, keeping the
/// phase locked so that nothing else is published or reported before the process exits (the
/// caller exits next). Returns false, removing nothing, once the outputs are published: the run
/// has succeeded and ends on its own.
pub fn interrupt() -> bool {
    let guard = phase();
    if *guard == Phase::Published {
        return false;
    }
    let temporary = TEMPORARY.lock().map(|t| t.clone()).unwrap_or_default();
    for (dir, name) in temporary {
        let _ = rustix::fs::unlinkat(&*dir, &name, AtFlags::empty());
    }
    remove_created_dirs(true);
    std::mem::forget(guard);
    true
}

/// For the error report before the process exits: waits while a signal's cleanup runs (that
/// cleanup then exits the process itself) and keeps later signals from starting one.
pub fn hold_for_exit() {
    std::mem::forget(phase());
}

/// Debug builds only: a pause of `var`'s milliseconds, announced on stderr as `what`, for the
/// tests of a signal arriving at that point (creating a temporary file, publishing).
fn test_pause(var: &str, what: &str) {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var(var).ok().and_then(|v| v.parse().ok()) {
        eprintln!("anonbox: test: {what}");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    #[cfg(not(debug_assertions))]
    let _ = (var, what);
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

/// Renames every output committed on this thread into place, in commit order, under the locks
/// of their folders (see the module docs). When a step fails, every earlier one is undone and
/// the old files are back: a failed run changes no file. The old files are removed once all
/// are in.
pub fn publish() -> Result<()> {
    let mut phase = phase();
    test_pause("ANONBOX_TEST_PUBLISH_DELAY_MS", "publishing");
    let mut staged = STAGED.with(|s| std::mem::take(&mut *s.borrow_mut()));
    // One handle per folder (two handles of one folder would wait for each other), locked in
    // one order, so that two runs with several folders never wait for each other in a circle.
    let mut dirs: Vec<Arc<Dir>> = staged.iter().map(|t| Arc::clone(&t.dir)).collect();
    dirs.sort_by_key(|d| d.id());
    dirs.dedup_by_key(|d| d.id());
    let locks: Vec<_> = dirs.iter().map(|d| d.lock()).collect();
    let mut done: Vec<Done> = Vec::new();
    let mut result = Ok(());
    for temp in &mut staged {
        match put_in_place(temp) {
            Ok(d) => done.push(d),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    PROTECTED.with(|p| p.borrow_mut().clear());
    if result.is_err() {
        for d in done.into_iter().rev() {
            let ours = matches!(dest::stat_at(&d.dir, &d.target), Ok(Some(i)) if i.ino == d.ino);
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
        OBSOLETE.with(|o| o.borrow_mut().clear());
        drop(staged);
        drop(locks);
        return result;
    }
    for d in &done {
        if let Some(old) = &d.aside {
            let _ = rustix::fs::unlinkat(&*d.dir, old, AtFlags::empty());
        }
    }
    for (dir, name) in OBSOLETE.with(|o| std::mem::take(&mut *o.borrow_mut())) {
        if let Ok(Some(i)) = dest::stat_at(&dir, &name) {
            if i.is_file() && i.is_mine() {
                let _ = rustix::fs::unlinkat(&*dir, &name, AtFlags::empty());
            }
        }
    }
    drop(locks);
    *phase = Phase::Published;
    take_created_dirs(false);
    Ok(())
}

/// Renames `temp` over its destination, after checking both names again; returns what to undo.
fn put_in_place(temp: &mut Temp) -> Result<Done> {
    let dir = Arc::clone(&temp.dir);
    let shown = &temp.shown;
    let failed = |e: io::Error| Error::io(shown, e);
    let current = dest::stat_at(&dir, &temp.target).map_err(failed)?;
    if let Some(c) = &current {
        let changed = |what: &str| {
            Error::in_file(
                shown,
                format!(
                    "{what} during the run: anonbox replaces only what it checked, and wrote \
                     nothing"
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
        if let Some(e) = read_by_the_run(shown, c.id()) {
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
                    "its temporary file {} was replaced or removed during the run: nothing was \
                     written",
                    dir.path().join(&temp.name).display()
                ),
            ))
        }
    }
    let mode = final_mode(temp.mode, current.as_ref());
    rustix::fs::fchmod(&temp.file, RawMode::from_raw_mode(mode as _))
        .map_err(|e| failed(e.into()))?;
    let aside = match &current {
        Some(_) => Some(set_aside(&dir, &temp.target).map_err(failed)?),
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
    temp.published = true;
    unregister(&dir, &temp.name);
    Ok(Done {
        dir,
        target: temp.target.clone(),
        ino: temp.ino,
        aside: aside.map(|(old, _)| old),
    })
}

/// Keeps the file at `target` under a second name, `.NAME.PID.N.old`, in its folder: a hard
/// link (the destination never goes missing), else a rename (file systems without hard links).
/// Returns the name and whether the file was moved.
fn set_aside(dir: &Dir, target: &OsStr) -> io::Result<(OsString, bool)> {
    static ASIDE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = ASIDE.fetch_add(1, Ordering::Relaxed);
    let mut old = OsString::from(".");
    old.push(target);
    old.push(format!(".{}.{n}{ASIDE_SUFFIX}", std::process::id()));
    match rustix::fs::linkat(dir, target, dir, &old, AtFlags::empty()) {
        Ok(()) => Ok((old, false)),
        Err(_) => {
            rustix::fs::renameat(dir, target, dir, &old)?;
            Ok((old, true))
        }
    }
}

/// Removes every output committed on this thread and not published (a failed run), then the
/// folders created for them ([`create_dir`]).
pub fn discard() {
    OBSOLETE.with(|o| o.borrow_mut().clear());
    PROTECTED.with(|p| p.borrow_mut().clear());
    let staged = STAGED.with(|s| std::mem::take(&mut *s.borrow_mut()));
    drop(staged);
    let _phase = phase();
    remove_created_dirs(false);
}

/// True if `path` names standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// True if `path` is a stream, written into in place and never replaced: it names an inherited
/// descriptor (`/dev/stdout`, ...) or is an existing FIFO or character device (also where it
/// could not be written: a closed descriptor, another user's FIFO).
pub fn is_stream(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    if is_stdout(path) {
        return false;
    }
    match Dest::resolve(path) {
        Ok(d) => d.is_stream(),
        Err(_) => {
            dest::names_fd(path)
                || std::fs::metadata(path).is_ok_and(|m| {
                    let t = m.file_type();
                    t.is_fifo() || t.is_char_device()
                })
        }
    }
}

impl AtomicFile {
    /// Starts writing `target` (see the module docs). The folder must exist.
    pub fn create(target: &Path) -> Result<AtomicFile> {
        AtomicFile::create_with(target, Mode::Release)
    }

    /// A temporary file for a database that another library writes (SQLite, through
    /// [`temp_path`](Self::temp_path)), owner-only (0600) whatever the file it replaces and
    /// whatever `-mode`: it holds the raw data. Staged and published like any output, so a
    /// failed or interrupted run leaves no database and an existing one untouched. Never a
    /// stream.
    pub fn create_private(target: &Path) -> Result<AtomicFile> {
        if is_stdout(target) || is_stream(target) {
            return Err(Error::Usage(format!(
                "{} is not a regular file: a database must be a file",
                target.display()
            )));
        }
        AtomicFile::create_with(target, Mode::Private)
    }

    /// The temporary file's path (none for a stream).
    pub fn temp_path(&self) -> Option<PathBuf> {
        match self.out.get_ref() {
            Sink::Temp(t) => t.0.as_ref().map(|t| t.dir.path().join(&t.name)),
            Sink::Stream(_) => None,
        }
    }

    /// Once the run is published, removes the files named as the destination followed by each
    /// of `suffixes` beside it (those that are regular files of the user's), and never if the
    /// run fails: the side files of a database being replaced (`-wal`: an SQLite `-wal` next to
    /// a new database would be replayed into it, and holds the old one's data).
    pub fn remove_beside_on_publish(&self, suffixes: &[&str]) {
        if let Sink::Temp(Uncommitted(Some(t))) = self.out.get_ref() {
            let names = suffixes
                .iter()
                .map(|s| {
                    let mut n = t.target.clone();
                    n.push(s);
                    n
                })
                .collect();
            remove_on_publish(&t.dir, names);
        }
    }

    fn create_with(target: &Path, mode: Mode) -> Result<AtomicFile> {
        let refused = |m: String| Error::Invalid(format!("the file {} {m}", target.display()));
        let stream = |w: Box<dyn Write + Send>| AtomicFile {
            target: target.to_path_buf(),
            out: BufWriter::with_capacity(1 << 16, Sink::Stream(w)),
        };
        let place = match Dest::resolve(target).map_err(refused)? {
            Dest::Fd(fd) => {
                return Ok(stream(dest::open_fd(fd).map_err(|e| Error::io(target, e))?))
            }
            Dest::Stream(place) => {
                let f = dest::open_stream(&place).map_err(|e| Error::io(target, e))?;
                return Ok(stream(Box::new(f)));
            }
            Dest::File(place) => place,
        };
        if let Some(e) = place.existing.and_then(|i| read_by_the_run(target, i.id())) {
            return Err(e);
        }
        sweep_stale(&place.dir, &place.name);
        // Created and listed under the phase lock: a signal's cleanup runs before the file
        // exists or after it is listed, never in between (where it would leave the file).
        // After a cleanup has started, the lock is never released and the run waits here for
        // the process to exit.
        let temp = {
            let _phase = phase();
            let (name, file) =
                create_temp(&place.dir, &place.name).map_err(|e| Error::io(target, e))?;
            let ino = dest::stat_fd(&file).map_err(|e| Error::io(target, e))?.ino;
            // Held until the file is renamed or removed: a live run's file is never stale.
            let _ = file.try_lock();
            let temp = Temp {
                file,
                dir: Arc::clone(&place.dir),
                name,
                ino,
                target: place.name.clone(),
                shown: target.to_path_buf(),
                mode,
                published: false,
            };
            test_pause("ANONBOX_TEST_CREATE_DELAY_MS", "creating");
            register(&temp.dir, &temp.name);
            temp
        };
        Ok(AtomicFile {
            target: target.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, Sink::Temp(Uncommitted(Some(temp)))),
        })
    }

    /// The path as given.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes and syncs the file and stages it for [`publish`] (a stream is only flushed).
    pub fn commit(self) -> Result<()> {
        let target = self.target;
        let sink = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&target, e.into_error()))?;
        match sink {
            Sink::Stream(mut w) => w.flush().map_err(|e| Error::io(&target, e)),
            Sink::Temp(mut t) => {
                let temp = t.0.take().expect("open");
                temp.file.sync_all().map_err(|e| Error::io(&target, e))?;
                STAGED.with(|s| s.borrow_mut().push(temp));
                Ok(())
            }
        }
    }
}

impl Write for AtomicFile {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Creates a new temporary file for `target` in `dir`: `.NAME.XXXXXX.anonbox.tmp`, mode 0600,
/// never through a name that exists (`O_EXCL | O_NOFOLLOW`).
fn create_temp(dir: &Dir, target: &OsStr) -> io::Result<(OsString, std::fs::File)> {
    let mut last = None;
    for _ in 0..64 {
        let mut name = OsString::from(".");
        name.push(target);
        name.push(".");
        name.push(random_tag());
        name.push(TEMP_SUFFIX);
        match rustix::fs::openat(
            dir,
            &name,
            OFlags::RDWR | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            RawMode::from_raw_mode(0o600),
        ) {
            Ok(fd) => return Ok((name, std::fs::File::from(fd))),
            Err(rustix::io::Errno::EXIST) => last = Some(rustix::io::Errno::EXIST),
            Err(e) => return Err(e.into()),
        }
    }
    Err(last.unwrap_or(rustix::io::Errno::EXIST).into())
}

/// Six letters or digits, different at each call.
fn random_tag() -> String {
    use std::hash::{BuildHasher, Hasher};
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(CALLS.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    if let Ok(t) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(t.as_nanos());
    }
    let mut x = h.finish();
    (0..6)
        .map(|_| {
            let c = ALNUM[(x % ALNUM.len() as u64) as usize];
            x /= ALNUM.len() as u64;
            c as char
        })
        .collect()
}

/// Checks that `path` can take a new file: creates one there and removes it.
pub fn check_writable(place: &Place) -> io::Result<()> {
    let (name, file) = create_temp(&place.dir, &place.name)?;
    drop(file);
    rustix::fs::unlinkat(&*place.dir, &name, AtFlags::empty())?;
    Ok(())
}

/// Writes `bytes` to `path` atomically (small files: reports).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.commit()
}

/// How the temporary files of [`AtomicFile`] end: `.NAME.XXXXXX.anonbox.tmp`, so that
/// [`sweep_stale`] knows them from any other program's.
pub const TEMP_SUFFIX: &str = ".anonbox.tmp";

/// How a file set aside by [`set_aside`] ends: `.NAME.PID.N.old`.
const ASIDE_SUFFIX: &str = ".old";

/// `-quiet`: [`sweep_stale`] removes without saying so.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes [`sweep_stale`] silent (`-quiet`: errors only).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// How long a temporary file must have been left unchanged before a sweep may take it for a
/// killed run's (a live run locks its file right after creating it: this only covers that
/// instant).
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Cleans up after the runs that were killed while writing `name` in `dir`: SIGKILL (the OOM
/// killer) or an abort runs no cleanup. Their temporary files ([`sweep_temporary`]: a kept
/// database's holds the raw data) are removed, and the previous file one of them had set
/// aside while publishing ([`sweep_set_aside`]) is put back or removed. Only the user's own
/// regular files are touched, through the folder's handle and under its lock (so never while
/// another run publishes there). Each is said on stderr (not with `-quiet`).
fn sweep_stale(dir: &Dir, name: &OsStr) {
    if !dir.readable() {
        return;
    }
    let _lock = dir.lock();
    let mut prefix = b".".to_vec();
    prefix.extend_from_slice(name.as_bytes());
    prefix.push(b'.');
    let Ok(entries) = rustix::fs::Dir::read_from(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name().to_bytes();
        let Some(rest) = file_name.strip_prefix(&prefix[..]) else {
            continue;
        };
        let entry_name = OsStr::from_bytes(file_name);
        if let Some(middle) = rest.strip_suffix(TEMP_SUFFIX.as_bytes()) {
            sweep_temporary(dir, entry_name, middle);
        } else if let Some(middle) = rest.strip_suffix(ASIDE_SUFFIX.as_bytes()) {
            sweep_set_aside(dir, entry_name, name, middle);
        }
    }
}

/// Says what a sweep did, on stderr, unless `-quiet`.
fn say_swept(what: std::fmt::Arguments<'_>) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("anonbox: {what}");
    }
}

/// The user's own regular file `name` in `dir` (not through a link), opened for reading
/// without blocking (a FIFO planted under that name is never waited on).
fn open_own(dir: &Dir, name: &OsStr) -> Option<(std::fs::File, Info)> {
    let fd = rustix::fs::openat(
        dir,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
        RawMode::empty(),
    )
    .ok()?;
    let info = dest::stat_fd(&fd).ok()?;
    (info.is_file() && info.is_mine()).then(|| (std::fs::File::from(fd), info))
}

/// Removes `name`, a temporary file (`.NAME.XXXXXX.anonbox.tmp`, `middle` the `XXXXXX`), if a
/// killed run left it: nobody holds its lock (every run locks each of its temporary files,
/// `flock`, until it is renamed or removed; a process that dies releases its locks), and it
/// has not changed for [`STALE_AFTER`]. Where locks are not supported, nothing is removed.
fn sweep_temporary(dir: &Dir, name: &OsStr, middle: &[u8]) {
    if middle.len() != 6 || !middle.iter().all(|b| b.is_ascii_alphanumeric()) {
        return;
    }
    let Some((file, info)) = open_own(dir, name) else {
        return;
    };
    let unchanged = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .is_ok_and(|now| now.as_secs() as i64 - info.mtime >= STALE_AFTER.as_secs() as i64);
    if unchanged && file.try_lock().is_ok() && remove_if(dir, name, info.ino) {
        say_swept(format_args!(
            "removed {}, the temporary file of a run that was killed",
            dir.path().join(name).display()
        ));
    }
}

/// `name`, the file that was at `target` and that a run set aside while publishing
/// (`.NAME.PID.N.old`, `middle` the `PID.N`), left there because process `PID` was killed
/// before it removed it. Only once that process is gone: if `target` is there (the new file
/// was published, or the old one never left), the set-aside one is removed; if not (killed
/// between two renames), it is put back, since a failed run leaves the previous output as it
/// was. Put back without replacing anything (a link, then the set-aside name removed).
fn sweep_set_aside(dir: &Dir, name: &OsStr, target: &OsStr, middle: &[u8]) {
    let Some(pid) = std::str::from_utf8(middle).ok().and_then(|m| {
        let (pid, n) = m.split_once('.')?;
        let pid = pid.parse::<u32>().ok()?;
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && process_is_gone(pid))
            .then_some(pid)
    }) else {
        return;
    };
    let Some((_, info)) = open_own(dir, name) else {
        return;
    };
    let path = dir.path().join(name);
    let target_path = dir.path().join(target);
    match dest::stat_at(dir, target) {
        Ok(Some(_)) => {
            if remove_if(dir, name, info.ino) {
                say_swept(format_args!(
                    "removed {}, the previous {} that run {pid} (killed) had set aside",
                    path.display(),
                    target_path.display()
                ));
            }
        }
        Ok(None) => {
            if rustix::fs::linkat(dir, name, dir, target, AtFlags::empty()).is_ok() {
                remove_if(dir, name, info.ino);
                say_swept(format_args!(
                    "restored {} from {}, where run {pid} had set it aside and was killed \
                     before publishing",
                    target_path.display(),
                    path.display()
                ));
            }
        }
        Err(_) => {}
    }
}

/// True if process `pid` is known to have ended: not this one, and missing from `/proc`
/// where `/proc` lists the processes (Linux). Elsewhere every process counts as alive, and
/// no set-aside file is swept.
fn process_is_gone(pid: u32) -> bool {
    pid != std::process::id()
        && Path::new("/proc/self").exists()
        && !Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, b"old").unwrap();
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"new").unwrap();
            // dropped without commit
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(
            std::fs::read(&target).unwrap(),
            b"old",
            "staged, not published"
        );
        discard();
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let listed = TEMPORARY.lock().unwrap().clone();
        assert!(listed
            .iter()
            .all(|(d, _)| !d.path().starts_with(dir.path())));
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        publish().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_created_folder_goes_with_a_failed_run() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new");
        assert!(create_dir(&new).unwrap());
        write_atomic(&new.join("a.csv"), b"x").unwrap();
        discard();
        assert!(!new.exists(), "created, then removed with the failed run");
        let old = dir.path().join("old");
        std::fs::create_dir(&old).unwrap();
        assert!(!create_dir(&old).unwrap());
        discard();
        assert!(old.is_dir(), "a folder that was there is kept");
        assert!(create_dir(&new).unwrap());
        write_atomic(&new.join("a.csv"), b"x").unwrap();
        publish().unwrap();
        discard();
        assert!(new.join("a.csv").is_file(), "published: kept");
        assert!(create_dir(&dir.path().join("no/such")).is_err());
    }

    /// A run killed (SIGKILL) while publishing left the previous file set aside as
    /// `.NAME.PID.N.old` for good, and the target missing if it died between two renames. The
    /// next run writing NAME removes it (the target is there) or puts it back (not there), once
    /// that process is gone; a live process's file stays.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_killed_publishs_set_aside_file_is_swept() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let mut live = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let aside = |name: &str, pid: u32| d.join(format!(".{name}.{pid}.0.old"));
        // Published, then killed: the new file is in place, the old one goes.
        std::fs::write(d.join("a.csv"), "new").unwrap();
        std::fs::write(aside("a.csv", dead), "old").unwrap();
        // Killed between the renames: the old file comes back.
        std::fs::write(aside("b.csv", dead), "previous").unwrap();
        // A live process's files stay, whatever the target.
        std::fs::write(aside("c.csv", live.id()), "previous").unwrap();
        std::fs::write(d.join("d.csv"), "new").unwrap();
        std::fs::write(aside("d.csv", live.id()), "old").unwrap();
        // Not ours.
        std::fs::write(d.join(".e.csv.12x.0.old"), "other").unwrap();
        let folder = Dir::open(d).unwrap();
        for name in ["a.csv", "b.csv", "c.csv", "d.csv", "e.csv"] {
            sweep_stale(&folder, OsStr::new(name));
        }
        live.kill().unwrap();
        live.wait().unwrap();
        assert_eq!(std::fs::read_to_string(d.join("a.csv")).unwrap(), "new");
        assert!(!aside("a.csv", dead).exists());
        assert_eq!(
            std::fs::read_to_string(d.join("b.csv")).unwrap(),
            "previous"
        );
        assert!(!aside("b.csv", dead).exists());
        assert!(!d.join("c.csv").exists() && aside("c.csv", live.id()).exists());
        assert!(aside("d.csv", live.id()).exists());
        assert!(!d.join("e.csv").exists() && d.join(".e.csv.12x.0.old").exists());
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
        write_atomic(&link, b"new").unwrap();
        publish().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&real), 0o640);
        let new = dir.path().join("new.csv");
        write_atomic(&new, b"new").unwrap();
        publish().unwrap();
        assert_eq!(mode(&new), 0o600);
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
