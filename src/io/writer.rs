//! Delimited output and atomic files.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::encoding::FieldEncoder;
use crate::{Error, Result};

/// True if `field` would not read back as itself unquoted: it contains the separator or a line
/// end, or it starts with a quote. Other bytes (a quote inside a field, non-UTF-8) are written
/// as they came, so unquoted input fields pass through byte for byte.
#[inline]
pub fn needs_quotes(field: &[u8], sep: &[u8]) -> bool {
    if field.first() == Some(&b'"') {
        return true;
    }
    if sep.len() == 1 {
        let s = sep[0];
        field.iter().any(|&b| b == s || b == b'\n' || b == b'\r')
    } else {
        field.iter().any(|&b| b == b'\n' || b == b'\r')
            || field.windows(sep.len()).any(|w| w == sep)
            // A separator that overlaps itself (`::`): a field ending in `:` followed by `::`
            // reads back as a separator one byte early.
            || (1..sep.len())
                .any(|k| field.ends_with(&sep[..k]) && sep[k..] == sep[..sep.len() - k])
    }
}

/// Writes records as fields joined by a separator string, each line ending in `\n`, in UTF-8
/// or, with a [`FieldEncoder`], in the input's encoding.
pub struct DelimitedWriter<W: Write> {
    out: W,
    sep: Vec<u8>,
    fields: usize,
    /// The only field so far was empty (an empty line would read back as a blank line).
    lone_empty: bool,
    /// Another encoding than UTF-8 (`None`: fields are written as they are).
    encoder: Option<Box<FieldEncoder>>,
}

impl<W: Write> DelimitedWriter<W> {
    pub(super) fn new(
        out: W,
        sep: &[u8],
        encoder: Option<Box<FieldEncoder>>,
    ) -> DelimitedWriter<W> {
        DelimitedWriter {
            out,
            sep: sep.to_vec(),
            fields: 0,
            lone_empty: false,
            encoder,
        }
    }

    /// Appends one field to the current record.
    #[inline]
    pub fn field(&mut self, field: &[u8]) -> io::Result<()> {
        let first = self.fields == 0;
        self.fields += 1;
        self.lone_empty = first && field.is_empty();
        match &mut self.encoder {
            None => put_field(&mut self.out, &self.sep, first, field),
            Some(e) => e.field(
                &mut self.out,
                self.fields,
                |text| put_field(text, &self.sep, first, field),
                field,
            ),
        }
    }

    /// Ends the current record with `\n`.
    #[inline]
    pub fn end_record(&mut self) -> io::Result<()> {
        if self.fields == 1 && self.lone_empty {
            self.out.write_all(b"\"\"")?;
        }
        if let Some(e) = &mut self.encoder {
            e.end_record();
        }
        self.fields = 0;
        self.out.write_all(b"\n")
    }

    /// Writes a whole record.
    pub fn record<'a, I: IntoIterator<Item = &'a [u8]>>(&mut self, fields: I) -> io::Result<()> {
        for f in fields {
            self.field(f)?;
        }
        self.end_record()
    }

    /// The underlying writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Writes `field` to `out`, after the separator unless it is the record's `first`, quoted if it
/// would not read back as itself ([`needs_quotes`]).
#[inline]
fn put_field<W: Write>(out: &mut W, sep: &[u8], first: bool, field: &[u8]) -> io::Result<()> {
    if !first {
        out.write_all(sep)?;
    }
    if needs_quotes(field, sep) {
        out.write_all(b"\"")?;
        for (i, part) in field.split(|&b| b == b'"').enumerate() {
            if i > 0 {
                out.write_all(b"\"\"")?;
            }
            out.write_all(part)?;
        }
        out.write_all(b"\"")
    } else {
        out.write_all(field)
    }
}

/// A file that appears at its path only when the whole run has succeeded.
///
/// Data goes to a temporary file in the target's folder (so the final rename stays on one file
/// system). [`commit`](Self::commit) flushes and syncs it and *stages* it: every output of a run
/// (data, the anatomy pair, the report) is staged, and [`publish`] renames them all at the end
/// of a successful run, while [`discard`] (any error) removes them. Dropping an uncommitted
/// `AtomicFile` (an error, a panic) removes its temporary file. So a failed run changes no file.
///
/// Destinations that are not regular files are written as they are: `-` is standard output,
/// and an existing FIFO or character device (`/dev/null`, a terminal, a pipe) is opened and
/// streamed into (nothing can be renamed over them; a device is never replaced by a file). A
/// symbolic link is followed: its final target is replaced atomically and the link stays. A
/// replaced file keeps its permission bits; a new one gets the umask's, or is owner-only (0600)
/// when it lists raw values ([`create_owner_only`](Self::create_owner_only): hierarchy files).
///
/// Temporary files are also listed in a process-wide registry ([`temporary_files`]) so that a
/// signal handler can remove them before the process exits (`main`).
pub struct AtomicFile {
    target: PathBuf,
    out: BufWriter<Sink>,
}

enum Sink {
    Temp(Registered),
    Stream(Box<dyn Write + Send>),
}

/// The permission bits of a file [`AtomicFile`] writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A replaced file's, else the umask's.
    Umask,
    /// A replaced file's, else owner-only (0600).
    OwnerOnlyIfNew,
    /// Owner-only (0600) in every case.
    OwnerOnly,
}

/// A temporary file listed in the registry until it is staged or dropped.
struct Registered(Option<tempfile::NamedTempFile>);

impl Drop for Registered {
    /// Removes the file, then its entry, under the phase lock: a signal's cleanup either finds
    /// the entry (and removes the file) or finds the file gone. (Unregistered first, the file
    /// could outlive a signal arriving between the two steps.)
    fn drop(&mut self) {
        if let Some(t) = self.0.take() {
            let _phase = phase();
            let path = t.path().to_path_buf();
            drop(t);
            unregister(&path);
        }
    }
}

impl Write for Sink {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Temp(f) => f.0.as_mut().expect("open").write(buf),
            Sink::Stream(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Temp(f) => f.0.as_mut().expect("open").flush(),
            Sink::Stream(w) => w.flush(),
        }
    }
}

/// Temporary files of this process that are not published yet (for the signal handler).
static TEMPORARY: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

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

/// Paths of this process's temporary output files not yet published or removed.
fn temporary_files() -> Vec<PathBuf> {
    TEMPORARY.lock().map(|t| t.clone()).unwrap_or_default()
}

fn register(path: &Path) {
    if let Ok(mut t) = TEMPORARY.lock() {
        t.push(path.to_path_buf());
    }
}

fn unregister(path: &Path) {
    if let Ok(mut t) = TEMPORARY.lock() {
        t.retain(|p| p != path);
    }
}

/// A committed temporary file waiting for [`publish`], still locked ([`sweep_stale`]).
struct Staged {
    temp: tempfile::TempPath,
    target: PathBuf,
    _lock: Option<std::fs::File>,
}

thread_local! {
    /// The outputs the current run has committed (a run writes its outputs on one thread).
    static STAGED: std::cell::RefCell<Vec<Staged>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Files that belong to a replaced output and go with it once the run is published.
    static OBSOLETE: std::cell::RefCell<Vec<PathBuf>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Removes `paths` (those that exist) right after the run's outputs are published, and never
/// if the run fails: the side files of a database being replaced (an SQLite `-wal` next to a
/// new database would be replayed into it, and holds the old one's data).
pub fn remove_on_publish(paths: &[PathBuf]) {
    OBSOLETE.with(|o| o.borrow_mut().extend_from_slice(paths));
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
    for path in temporary_files() {
        let _ = std::fs::remove_file(path);
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

/// Renames every output committed on this thread into place, in commit order. A file already
/// at a target is first moved aside (renamed in its folder), so that when a rename fails (a
/// folder made read-only, a directory put in the way) every earlier one is undone and the old
/// files are back: a failed run changes no file. The old files are removed once all are in.
pub fn publish() -> Result<()> {
    let mut phase = phase();
    test_pause("ANONBOX_TEST_PUBLISH_DELAY_MS", "publishing");
    let staged = STAGED.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let mut done: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    let mut result = Ok(());
    for s in staged {
        let path = s.temp.to_path_buf();
        if result.is_ok() {
            let target = s.target.clone();
            match replace(s) {
                Ok(aside) => done.push((target, aside)),
                Err(e) => result = Err(e),
            }
        }
        unregister(&path);
    }
    if result.is_err() {
        for (target, aside) in done.into_iter().rev() {
            let _ = match aside {
                Some(old) => std::fs::rename(old, &target),
                None => std::fs::remove_file(&target),
            };
        }
        return result;
    }
    for (_, aside) in done {
        if let Some(old) = aside {
            let _ = std::fs::remove_file(old);
        }
    }
    *phase = Phase::Published;
    take_created_dirs(false);
    for path in OBSOLETE.with(|o| std::mem::take(&mut *o.borrow_mut())) {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Renames `s` into place, the file there (if any) moved aside first; returns where it went.
fn replace(s: Staged) -> Result<Option<PathBuf>> {
    static ASIDE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let target = s.target;
    let aside = match std::fs::symlink_metadata(&target) {
        Ok(m) if m.is_file() => {
            let n = ASIDE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let name = target
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let old =
                target.with_file_name(format!(".{name}.{}.{n}{ASIDE_SUFFIX}", std::process::id()));
            std::fs::rename(&target, &old).map_err(|e| Error::io(&target, e))?;
            Some(old)
        }
        _ => None,
    };
    if let Err(e) = s.temp.persist(&target) {
        if let Some(old) = &aside {
            let _ = std::fs::rename(old, &target);
        }
        return Err(Error::io(&target, e.error));
    }
    Ok(aside)
}

/// Removes every output committed on this thread and not published (a failed run), then the
/// folders created for them ([`create_dir`]).
pub fn discard() {
    OBSOLETE.with(|o| o.borrow_mut().clear());
    let staged = STAGED.with(|s| std::mem::take(&mut *s.borrow_mut()));
    for s in staged {
        let path = s.temp.to_path_buf();
        drop(s);
        unregister(&path);
    }
    let _phase = phase();
    remove_created_dirs(false);
}

/// The path a write to `target` really replaces: `target`, or for a symbolic link its final
/// target (a dangling link's target is created).
pub fn resolve_link(target: &Path) -> PathBuf {
    let mut path = target.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&path) {
                Ok(to) => {
                    path = match path.parent() {
                        Some(dir) if to.is_relative() => dir.join(to),
                        _ => to,
                    };
                }
                Err(_) => break,
            },
            _ => break,
        }
    }
    path
}

/// True if `path` names standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// True if `path` exists and is a FIFO or a character device (written in place, never
/// replaced).
pub fn is_stream(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(m) = std::fs::metadata(path) {
            let t = m.file_type();
            return t.is_fifo() || t.is_char_device();
        }
    }
    false
}

impl AtomicFile {
    /// Starts writing `target` (see the type's docs). The folder must exist.
    pub fn create(target: &Path) -> Result<AtomicFile> {
        AtomicFile::create_with(target, Mode::Umask)
    }

    /// Like [`create`](Self::create), but a new file is owner-only (0600), as a kept database
    /// is: for files that list raw values of the data (hierarchy files hold every distinct
    /// value of a quasi-identifier). A replaced file keeps its permission bits.
    pub fn create_owner_only(target: &Path) -> Result<AtomicFile> {
        AtomicFile::create_with(target, Mode::OwnerOnlyIfNew)
    }

    /// A temporary file for a database that another library writes (SQLite, through
    /// [`temp_path`](Self::temp_path)), owner-only (0600) whatever the file it replaces: it
    /// holds the raw data. Staged and published like any output, so a failed or interrupted
    /// run leaves no database and an existing one untouched. Never a stream.
    pub fn create_private(target: &Path) -> Result<AtomicFile> {
        if is_stdout(target) || is_stream(target) {
            return Err(Error::Usage(format!(
                "{} is not a regular file: a database must be a file",
                target.display()
            )));
        }
        AtomicFile::create_with(target, Mode::OwnerOnly)
    }

    /// The temporary file's path (none for a stream).
    pub fn temp_path(&self) -> Option<&Path> {
        match self.out.get_ref() {
            Sink::Temp(r) => r.0.as_ref().map(|t| t.path()),
            Sink::Stream(_) => None,
        }
    }

    fn create_with(target: &Path, mode: Mode) -> Result<AtomicFile> {
        if is_stdout(target) {
            return Ok(AtomicFile {
                target: target.to_path_buf(),
                out: BufWriter::with_capacity(1 << 16, Sink::Stream(Box::new(io::stdout()))),
            });
        }
        if is_stream(target) {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(target)
                .map_err(|e| Error::io(target, e))?;
            return Ok(AtomicFile {
                target: target.to_path_buf(),
                out: BufWriter::with_capacity(1 << 16, Sink::Stream(Box::new(f))),
            });
        }
        let real = resolve_link(target);
        let dir = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = real
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        sweep_stale(&dir, &name);
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(TEMP_SUFFIX);
        // A replaced file keeps its mode exactly (set again after creation: the umask applies
        // to a new file's mode); a new one is an ordinary new file (the umask decides), or
        // owner-only if it lists raw values; a database is owner-only.
        #[cfg(unix)]
        let keep: Option<u32> = {
            use std::os::unix::fs::PermissionsExt;
            let old = std::fs::metadata(&real)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.permissions().mode() & 0o7777);
            let keep = match mode {
                Mode::OwnerOnly => Some(0o600),
                Mode::OwnerOnlyIfNew => old.or(Some(0o600)),
                Mode::Umask => old,
            };
            builder.permissions(std::fs::Permissions::from_mode(keep.unwrap_or(0o666)));
            keep
        };
        #[cfg(not(unix))]
        let _ = mode;
        // Created and listed under the phase lock: a signal's cleanup runs before the file
        // exists or after it is listed, never in between (where it would leave the file).
        // After a cleanup has started, the lock is never released and the run waits here for
        // the process to exit.
        let temp = {
            let _phase = phase();
            let temp = builder
                .tempfile_in(&dir)
                .map_err(|e| Error::io(target, e))?;
            #[cfg(unix)]
            if let Some(mode) = keep {
                use std::os::unix::fs::PermissionsExt;
                temp.as_file()
                    .set_permissions(std::fs::Permissions::from_mode(mode))
                    .map_err(|e| Error::io(target, e))?;
            }
            // Held until the file is renamed or removed: a live run's file is never stale.
            let _ = temp.as_file().try_lock();
            test_pause("ANONBOX_TEST_CREATE_DELAY_MS", "creating");
            register(temp.path());
            temp
        };
        Ok(AtomicFile {
            target: real,
            out: BufWriter::with_capacity(1 << 20, Sink::Temp(Registered(Some(temp)))),
        })
    }

    /// The final path.
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
            Sink::Temp(mut reg) => {
                let temp = reg.0.take().expect("open");
                temp.as_file()
                    .sync_all()
                    .map_err(|e| Error::io(&target, e))?;
                // The same open file, so the same lock, kept while the file waits.
                let lock = temp.as_file().try_clone().ok();
                let temp = temp.into_temp_path();
                STAGED.with(|s| {
                    s.borrow_mut().push(Staged {
                        temp,
                        target,
                        _lock: lock,
                    })
                });
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

/// How the temporary files of [`AtomicFile`] end: `.NAME.XXXXXX.anonbox.tmp`, so that
/// [`sweep_stale`] knows them from any other program's.
pub const TEMP_SUFFIX: &str = ".anonbox.tmp";

/// `-quiet`: [`sweep_stale`] removes without saying so.
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes [`sweep_stale`] silent (`-quiet`: errors only).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, std::sync::atomic::Ordering::Relaxed);
}

/// How long a temporary file must have been left unchanged before a sweep may take it for a
/// killed run's (a live run locks its file right after creating it: this only covers that
/// instant).
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Cleans up after the runs that were killed while writing `name` in `dir`: SIGKILL (the OOM
/// killer) or an abort runs no cleanup. Their temporary files ([`sweep_temporary`]: a kept
/// database's holds the raw data) are removed, and the previous file one of them had set
/// aside while publishing ([`sweep_set_aside`]) is put back or removed. Each is said on stderr
/// (not with `-quiet`).
fn sweep_stale(dir: &Path, name: &str) {
    let prefix = format!(".{name}.");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        if let Some(middle) = rest.strip_suffix(TEMP_SUFFIX) {
            sweep_temporary(&entry.path(), middle);
        } else if let Some(middle) = rest.strip_suffix(ASIDE_SUFFIX) {
            sweep_set_aside(&entry.path(), &dir.join(name), middle);
        }
    }
}

/// Says what a sweep did, on stderr, unless `-quiet`.
fn say_swept(what: std::fmt::Arguments<'_>) {
    if !QUIET.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("anonbox: {what}");
    }
}

/// Removes `path`, a temporary file of `name` (`.NAME.XXXXXX.anonbox.tmp`, `middle` the
/// `XXXXXX`), if a killed run left it: nobody holds its lock (every run locks each of its
/// temporary files, `flock`, until it is renamed or removed; a process that dies releases its
/// locks), and it has not changed for [`STALE_AFTER`]. Where locks are not supported, nothing
/// is removed.
fn sweep_temporary(path: &Path, middle: &str) {
    if middle.len() != 6 || !middle.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return;
    };
    let unchanged = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age >= STALE_AFTER);
    if unchanged && file.try_lock().is_ok() && std::fs::remove_file(path).is_ok() {
        say_swept(format_args!(
            "removed {}, the temporary file of a run that was killed",
            path.display()
        ));
    }
}

/// How a file set aside by [`replace`] ends: `.NAME.PID.N.old`.
const ASIDE_SUFFIX: &str = ".old";

/// `path`, the file that was at `target` and that [`replace`] set aside while publishing
/// (`.NAME.PID.N.old`, `middle` the `PID.N`), left there because process `PID` was killed
/// before it removed it. Only once that process is gone: if `target` is there (the new file
/// was published), the old one is removed; if not (killed between the two renames), it is
/// put back, since a failed run leaves the previous output as it was. Put back without
/// replacing anything (a link, then the set-aside name removed): a file that appeared at
/// `target` meanwhile stays.
fn sweep_set_aside(path: &Path, target: &Path, middle: &str) {
    let pid = match middle.split_once('.') {
        Some((pid, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            match pid.parse::<u32>() {
                Ok(pid) if process_is_gone(pid) => pid,
                _ => return,
            }
        }
        _ => return,
    };
    match std::fs::symlink_metadata(target) {
        Ok(_) => {
            if std::fs::remove_file(path).is_ok() {
                say_swept(format_args!(
                    "removed {}, the previous {} that run {pid} (killed) had set aside",
                    path.display(),
                    target.display()
                ));
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if std::fs::hard_link(path, target).is_ok() {
                let _ = std::fs::remove_file(path);
                say_swept(format_args!(
                    "restored {} from {}, where run {pid} had set it aside and was killed \
                     before publishing",
                    target.display(),
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

/// Writes `bytes` to `path` atomically (small files: reports).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Format;

    #[test]
    fn quotes_only_what_would_not_read_back() {
        let f = Format::new(",", false).unwrap();
        let mut w = f.writer(Vec::new());
        w.record([&b"a\"b"[..], b"x,y", b"\"q", b"l\nm", b"\xff"])
            .unwrap();
        w.record([&b""[..]]).unwrap();
        w.record([&b""[..], b""]).unwrap();
        assert_eq!(
            w.into_inner(),
            b"a\"b,\"x,y\",\"\"\"q\",\"l\nm\",\xff\n\"\"\n,\n".to_vec()
        );
        let f = Format::new(", ", false).unwrap();
        let mut w = f.writer(Vec::new());
        w.record([&b"1,000"[..], b"a, b"]).unwrap();
        assert_eq!(w.into_inner(), b"1,000, \"a, b\"\n".to_vec());
        // A separator that overlaps itself: a field ending in its start is quoted.
        let f = Format::new("::", false).unwrap();
        let mut w = f.writer(Vec::new());
        w.record([&b"A:"[..], b"c0", b"x:"]).unwrap();
        assert_eq!(w.into_inner(), b"\"A:\"::c0::\"x:\"\n".to_vec());
        assert!(!needs_quotes(b"a,", b", "));
    }

    #[test]
    fn round_trips_through_the_reader() {
        let fields: Vec<&[u8]> = vec![b"a\"b", b"x,y", b"\"q", b"l\r\nm", b"", b"A:", b"\xff ,"];
        for sep in [",", ";", ", ", "::"] {
            let f = Format::new(sep, false).unwrap();
            let mut w = f.writer(Vec::new());
            w.record(fields.iter().copied()).unwrap();
            let bytes = w.into_inner();
            let mut r = f
                .clone()
                .any_bytes()
                .reader(Path::new("x"), &bytes[..])
                .unwrap();
            let mut rec = csv::ByteRecord::new();
            assert!(r.next_row(&mut rec).unwrap());
            let got: Vec<&[u8]> = rec.iter().collect();
            assert_eq!(got, fields, "separator {sep:?}");
        }
    }

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
        assert!(temporary_files().iter().all(|p| !p.starts_with(dir.path())));
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
    /// `.NAME.PID.N.old` for good, and the target missing if it died before the new file was
    /// in place. The next run writing NAME removes it (the target is there) or puts it back
    /// (not there), once that process is gone; a live process's file stays.
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
        for name in ["a.csv", "b.csv", "c.csv", "d.csv", "e.csv"] {
            sweep_stale(d, name);
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

    #[cfg(unix)]
    #[test]
    fn links_are_followed_and_modes_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.csv");
        std::fs::write(&real, b"old").unwrap();
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        publish().unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
