//! Atomic files: an output written into a temporary file beside its destination, renamed into
//! place only with the run's other outputs.
//!
//! An [`AtomicFile`] comes from a [`Publication`] ([`Publication::create`]). It resolves the
//! destination once ([`Dest::resolve`]) and writes into a new temporary file in the
//! destination's folder, created through the folder's handle (`openat` with `O_CREAT | O_EXCL |
//! O_NOFOLLOW`, mode 0600, so no name planted in the folder is ever opened and nobody else can
//! read the data while it is written), and locked (`flock`) while it lives, so that a sweep
//! ([`super::sweep`]) never takes a live run's file for a killed one's. [`AtomicFile::commit`]
//! flushes and syncs it and stages it into its publication, which renames it into place when
//! the run is published. Dropped uncommitted (an error, a panic), it removes its temporary file.
//!
//! Streams: a destination that names an inherited descriptor (`-`, `/dev/stdout`, ...) or is an
//! existing FIFO or character device is written into, never renamed over (see [`super::dest`]).

use std::ffi::{OsStr, OsString};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, Mode as RawMode, OFlags};

use super::cleanup::{lock, Cleanup};
use super::dest::{self, Dest, Dir, Place};
use super::publication::{Publication, Staging};
use super::sweep::TEMP_SUFFIX;
use crate::{Error, Result};

/// A file that appears at its path only when its publication is published (see the module
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
pub(super) enum Mode {
    /// `-mode`'s, else a replaced file's if the user owns it, else owner-only (0600).
    Release,
    /// Owner-only (0600) in every case: a kept database.
    Private,
}

/// A temporary file in a destination's folder, listed in its publication's [`Cleanup`].
/// Dropped before it is published, it is removed (if it is still ours) and unlisted.
pub(super) struct Temp {
    pub(super) file: std::fs::File,
    pub(super) dir: Arc<Dir>,
    /// The temporary file's name in `dir`.
    pub(super) name: OsString,
    pub(super) ino: u64,
    /// The destination's name in `dir`.
    pub(super) target: OsString,
    /// The path as given (for messages).
    pub(super) shown: PathBuf,
    pub(super) mode: Mode,
    published: bool,
    cleanup: Cleanup,
}

impl Temp {
    /// Renamed into place: no longer removed nor listed.
    pub(super) fn mark_published(&mut self) {
        self.published = true;
        self.cleanup.unregister(&self.dir, &self.name);
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.published {
            dest::remove_if(&self.dir, &self.name, self.ino);
            self.cleanup.unregister(&self.dir, &self.name);
        }
    }
}

/// A temporary file not committed yet, and the staging of the publication it commits into.
/// Dropped (an error, a panic), the file goes under the phase lock, so a signal's cleanup either
/// finds its entry or finds it gone.
struct Uncommitted {
    temp: Option<Temp>,
    staging: Arc<Staging>,
}

impl Drop for Uncommitted {
    fn drop(&mut self) {
        if let Some(t) = self.temp.take() {
            let cleanup = t.cleanup.clone();
            let _phase = cleanup.phase();
            drop(t);
        }
    }
}

impl Write for Sink {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Temp(t) => t.temp.as_mut().expect("open").file.write(buf),
            Sink::Stream(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Temp(t) => t.temp.as_mut().expect("open").file.flush(),
            Sink::Stream(w) => w.flush(),
        }
    }
}

/// Debug builds only: a pause of `var`'s milliseconds, announced on stderr as `what`, for the
/// tests of a signal arriving at that point (creating a temporary file, publishing).
pub(crate) fn test_pause(var: &str, what: &str) {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var(var).ok().and_then(|v| v.parse().ok()) {
        eprintln!("anonbox: test: {what}");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
    #[cfg(not(debug_assertions))]
    let _ = (var, what);
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
    /// Starts writing `target` for `publication` (see the module docs). The folder must exist.
    pub(super) fn create_in(
        publication: &Publication,
        target: &Path,
        mode: Mode,
    ) -> Result<AtomicFile> {
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
        if let Some(e) = place
            .existing
            .and_then(|i| publication.read_by_the_run(target, i.id()))
        {
            return Err(e);
        }
        super::sweep::sweep_stale(&place.dir, &place.name, publication.quiet);
        // Created and listed under the phase lock: a signal's cleanup runs before the file
        // exists or after it is listed, never in between (where it would leave the file).
        // After a cleanup has started, the lock is never released and the run waits here for
        // the process to exit.
        let cleanup = &publication.cleanup;
        let temp = {
            let phase = cleanup.phase();
            if *phase == super::cleanup::Phase::Cancelled {
                return Err(Error::io(target, super::cleanup::cancelled()));
            }
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
                cleanup: cleanup.clone(),
            };
            test_pause("ANONBOX_TEST_CREATE_DELAY_MS", "creating");
            cleanup.register(&temp.dir, &temp.name);
            temp
        };
        let sink = Sink::Temp(Uncommitted {
            temp: Some(temp),
            staging: Arc::clone(&publication.staging),
        });
        Ok(AtomicFile {
            target: target.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, sink),
        })
    }

    /// The temporary file's path (none for a stream).
    pub fn temp_path(&self) -> Option<PathBuf> {
        match self.out.get_ref() {
            Sink::Temp(t) => t.temp.as_ref().map(|t| t.dir.path().join(&t.name)),
            Sink::Stream(_) => None,
        }
    }

    /// Once the run is published, removes the files named as the destination followed by each
    /// of `suffixes` beside it (those that are regular files of the user's), and never if the
    /// run fails: the side files of a database being replaced (`-wal`: an SQLite `-wal` next to
    /// a new database would be replayed into it, and holds the old one's data).
    pub fn remove_beside_on_publish(&self, suffixes: &[&str]) {
        if let Sink::Temp(Uncommitted {
            temp: Some(t),
            staging,
        }) = self.out.get_ref()
        {
            let names = suffixes.iter().map(|s| {
                let mut n = t.target.clone();
                n.push(s);
                (Arc::clone(&t.dir), n)
            });
            lock(&staging.obsolete).extend(names);
        }
    }

    /// Replaces the temporary file's content by the file `from` (renamed over it: same file
    /// system) and commits (see [`Publication::adopt`]).
    pub(super) fn adopt(mut self, from: &Path) -> Result<()> {
        let target = self.target.clone();
        let Sink::Temp(Uncommitted { temp: Some(t), .. }) = self.out.get_mut() else {
            return Err(Error::Invalid(format!(
                "{} is not a regular file: a part of a release must be one",
                target.display()
            )));
        };
        let failed = |e: io::Error| Error::io(from, e);
        let (Some(parent), Some(name)) = (from.parent(), from.file_name()) else {
            return Err(failed(io::ErrorKind::InvalidInput.into()));
        };
        let from_dir = Dir::open(parent).map_err(failed)?;
        rustix::fs::renameat(&from_dir, name, &*t.dir, &t.name).map_err(|e| failed(e.into()))?;
        let fd = rustix::fs::openat(
            &*t.dir,
            &t.name,
            OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            RawMode::empty(),
        )
        .map_err(|e| failed(e.into()))?;
        let info = dest::stat_fd(&fd).map_err(failed)?;
        // From here on the temporary file is the adopted one (removed if the run fails).
        t.ino = info.ino;
        t.file = std::fs::File::from(fd);
        if !(info.is_file() && info.is_mine()) {
            return Err(Error::in_file(
                from,
                "is not a regular file of the user's: nothing was written",
            ));
        }
        let _ = t.file.try_lock();
        self.commit()
    }

    /// The path as given.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes and syncs the file and stages it into the publication that created it (a stream
    /// is only flushed).
    pub fn commit(self) -> Result<()> {
        let target = self.target;
        let sink = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&target, e.into_error()))?;
        match sink {
            Sink::Stream(mut w) => w.flush().map_err(|e| Error::io(&target, e)),
            Sink::Temp(mut t) => {
                let temp = t.temp.take().expect("open");
                temp.file.sync_all().map_err(|e| Error::io(&target, e))?;
                lock(&t.staging.staged).push(temp);
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

/// Six letters or digits, different at each call: a new `RandomState` has new keys (std
/// draws a thread's keys once and counts them up at each one), with the process and the time.
fn random_tag() -> String {
    use std::hash::{BuildHasher, Hasher};
    const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
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
