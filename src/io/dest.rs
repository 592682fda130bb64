//! Destinations: a path to write, resolved once into what anonbox acts on.
//!
//! [`Dest::resolve`] opens the destination's folder and looks at the name in it without
//! following it (`fstatat` with `AT_SYMLINK_NOFOLLOW`). The writer ([`super::AtomicFile`])
//! then creates, renames and removes files only through that folder's handle (`openat`,
//! `renameat`, `unlinkat`), so a folder or link swapped in later changes nothing of where
//! anonbox writes. A path resolves to one of:
//!
//! - a file descriptor the process inherited ([`Dest::Fd`]): `-` and `/dev/stdout` (1),
//!   `/dev/stderr` (2), `/dev/stdin` (0), `/dev/fd/N` and `/proc/self/fd/N`, or a link to one
//!   of them. It is written into as the shell opened it (`>> app.log` appends), never renamed
//!   over: the names in `/proc` lead to the file behind the descriptor, and replacing that
//!   file would lose what it held. Anything else under `/proc` is refused.
//! - an existing FIFO or character device ([`Dest::Stream`]): opened and written into.
//! - a regular file, existing or not ([`Dest::File`]): replaced by a rename in its folder.
//!
//! Shared folders: in a folder other users can write ([`Dir::shared`]: sticky as `/tmp`,
//! writable by others or by a group that is not the user's, or owned by another user than
//! root) a name may have been planted. There a symbolic link is refused (anonbox would
//! follow it with the user's rights; the kernel's `protected_symlinks` guards only the links
//! the kernel follows), and so is a file, FIFO or device of another user (its owner reads
//! what is written into it). Elsewhere a link is followed and its final target is replaced,
//! each hop meeting the same rules (a link into a shared folder cannot lead on to a link
//! planted there). Refusals are phrases that follow the destination's name ("is a folder").

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};

/// Links followed at most (as the kernel's `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// What `stat` says of a file, in fixed-size types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info {
    pub dev: u64,
    pub ino: u64,
    pub uid: u32,
    pub gid: u32,
    pub mode: u32,
    pub mtime: i64,
}

impl Info {
    #[allow(clippy::unnecessary_cast)] // the fields' types differ between platforms
    fn of(st: &rustix::fs::Stat) -> Info {
        Info {
            dev: st.st_dev as u64,
            ino: st.st_ino as u64,
            uid: st.st_uid as u32,
            gid: st.st_gid as u32,
            mode: st.st_mode as u32,
            mtime: st.st_mtime as i64,
        }
    }

    /// The file's identity: device and inode.
    pub fn id(&self) -> (u64, u64) {
        (self.dev, self.ino)
    }

    pub fn file_type(&self) -> FileType {
        FileType::from_raw_mode(self.mode as _)
    }

    pub fn is_file(&self) -> bool {
        self.file_type() == FileType::RegularFile
    }

    pub fn is_symlink(&self) -> bool {
        self.file_type() == FileType::Symlink
    }

    /// True if the user running anonbox owns the file.
    pub fn is_mine(&self) -> bool {
        self.uid == euid()
    }
}

/// The effective user id of the process.
pub fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// `name` in `dir`, not following a link; `None` if there is nothing by that name.
pub fn stat_at(dir: &Dir, name: &OsStr) -> std::io::Result<Option<Info>> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(Info::of(&st))),
        Err(rustix::io::Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Removes `name` from `dir` if it is still the file `ino` (a name someone else reused is
/// left alone).
pub fn remove_if(dir: &Dir, name: &OsStr, ino: u64) -> bool {
    match stat_at(dir, name) {
        Ok(Some(i)) if i.ino == ino && !i.is_symlink() => {
            rustix::fs::unlinkat(dir, name, AtFlags::empty()).is_ok()
        }
        _ => false,
    }
}

/// The open file's [`Info`].
pub fn stat_fd(fd: impl AsFd) -> std::io::Result<Info> {
    Ok(Info::of(&rustix::fs::fstat(fd)?))
}

/// A folder, opened once: every later step on its files goes through this handle.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
    info: Info,
    /// Opened for reading (not `O_PATH`): it can be locked and listed.
    readable: bool,
}

impl AsFd for Dir {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Dir {
    /// Opens the folder `path` (`""` is the current folder), following links as the kernel
    /// does. A folder the user may write but not list (`-wx`) is opened as a path only.
    pub fn open(path: &Path) -> std::io::Result<Dir> {
        let path = if path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            path
        };
        let flags = OFlags::DIRECTORY | OFlags::CLOEXEC;
        let (fd, readable) = match rustix::fs::open(path, flags | OFlags::RDONLY, Mode::empty()) {
            Ok(fd) => (fd, true),
            #[cfg(any(target_os = "linux", target_os = "android"))]
            Err(rustix::io::Errno::ACCESS) => (
                rustix::fs::open(path, flags | OFlags::PATH, Mode::empty())?,
                false,
            ),
            Err(e) => return Err(e.into()),
        };
        let info = stat_fd(&fd)?;
        Ok(Dir {
            fd,
            path: path.to_path_buf(),
            info,
            readable,
        })
    }

    /// The path it was opened by (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder's identity: device and inode.
    pub fn id(&self) -> (u64, u64) {
        self.info.id()
    }

    /// True if it can be listed (and locked).
    pub fn readable(&self) -> bool {
        self.readable
    }

    /// True if other users can put names into it: sticky (`/tmp`), writable by others or by
    /// a group that is not the user's own, or owned by another user than root.
    pub fn shared(&self) -> bool {
        let m = self.info.mode;
        let me = euid();
        m & 0o1000 != 0
            || m & 0o002 != 0
            || (m & 0o020 != 0 && self.info.gid != rustix::process::getegid().as_raw())
            || (self.info.uid != me && self.info.uid != 0)
    }

    /// Takes the folder's advisory lock (`flock`, exclusive), waiting for another process
    /// (or another handle of this one) to release it; released when the guard drops. Where
    /// the file system has no such locks (or the folder is open as a path only), nothing is
    /// locked.
    pub fn lock(&self) -> DirLock<'_> {
        if !self.readable {
            return DirLock(None);
        }
        loop {
            match rustix::fs::flock(self, FlockOperation::LockExclusive) {
                Ok(()) => return DirLock(Some(self)),
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return DirLock(None),
            }
        }
    }

    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn on_procfs(&self) -> bool {
        const PROC_SUPER_MAGIC: i64 = 0x9fa0;
        #[allow(clippy::unnecessary_cast)]
        rustix::fs::fstatfs(self).is_ok_and(|s| s.f_type as i64 == PROC_SUPER_MAGIC)
    }

    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    fn on_procfs(&self) -> bool {
        false
    }
}

/// A folder's lock, held until dropped ([`Dir::lock`]).
pub struct DirLock<'a>(Option<&'a Dir>);

impl Drop for DirLock<'_> {
    fn drop(&mut self) {
        if let Some(dir) = self.0 {
            let _ = rustix::fs::flock(dir, FlockOperation::Unlock);
        }
    }
}

/// A name in an opened folder, and what was there when it was resolved.
#[derive(Debug, Clone)]
pub struct Place {
    pub dir: Arc<Dir>,
    pub name: OsString,
    pub existing: Option<Info>,
}

/// What a destination path resolves to (see the module docs).
#[derive(Debug)]
pub enum Dest {
    /// A file descriptor the process inherited, written into.
    Fd(i32),
    /// An existing FIFO or character device, opened and written into.
    Stream(Place),
    /// A regular file, existing or not, replaced by a rename in its folder.
    File(Place),
}

impl Dest {
    /// Resolves `path` (see the module docs). The error is a phrase that follows the path
    /// ("is a folder").
    pub fn resolve(path: &Path) -> std::result::Result<Dest, String> {
        if path.as_os_str() == "-" {
            return Ok(Dest::Fd(1));
        }
        let mut path = path.to_path_buf();
        for hop in 0..=MAX_LINKS {
            // A refusal met after a link names the path it was met at.
            let at = |path: &Path, message: String| {
                if hop == 0 {
                    message
                } else {
                    format!("leads to {}, which {message}", path.display())
                }
            };
            if let Some(fd) = fd_number(&path) {
                check_fd(fd)?;
                return Ok(Dest::Fd(fd));
            }
            let (folder, name) = split(&path)?;
            let dir = Dir::open(&folder).map_err(|e| match e.raw_os_error() {
                Some(c) if c == rustix::io::Errno::NOENT.raw_os_error() => format!(
                    "cannot be written: folder {} does not exist",
                    folder.display()
                ),
                Some(c) if c == rustix::io::Errno::NOTDIR.raw_os_error() => {
                    format!("cannot be written: {} is not a folder", folder.display())
                }
                _ => format!("cannot be written: folder {}: {e}", folder.display()),
            })?;
            if dir.on_procfs() {
                return Err(at(
                    &path,
                    "is in /proc: anonbox writes into a file descriptor only as /dev/stdout, \
                     /dev/stderr, /dev/fd/N or /proc/self/fd/N, and into nothing else there"
                        .to_string(),
                ));
            }
            let info = stat_at(&dir, &name).map_err(|e| format!("cannot be checked: {e}"))?;
            let Some(info) = info else {
                return Ok(Dest::File(Place {
                    dir: Arc::new(dir),
                    name,
                    existing: None,
                }));
            };
            if info.is_symlink() {
                if dir.shared() {
                    return Err(at(
                        &path,
                        format!(
                            "is a symbolic link in {}, a folder other users can write: anonbox \
                             does not follow it there (give the path it leads to, or remove it)",
                            folder_name(&dir)
                        ),
                    ));
                }
                let to = rustix::fs::readlinkat(&dir, &name, Vec::new())
                    .map_err(|e| format!("cannot be resolved: {e}"))?;
                let to = PathBuf::from(OsString::from_vec(to.into_bytes()));
                path = if to.is_relative() {
                    folder.join(to)
                } else {
                    to
                };
                continue;
            }
            if !info.is_mine() && dir.shared() {
                return Err(at(
                    &path,
                    format!(
                        "belongs to another user (uid {}) in {}, a folder other users can \
                         write: anonbox does not write into it (remove it, or choose another \
                         path)",
                        info.uid,
                        folder_name(&dir)
                    ),
                ));
            }
            let place = Place {
                dir: Arc::new(dir),
                name,
                existing: Some(info),
            };
            return match info.file_type() {
                FileType::RegularFile => Ok(Dest::File(place)),
                FileType::Fifo | FileType::CharacterDevice => Ok(Dest::Stream(place)),
                FileType::Directory => Err(at(&path, "is a folder".to_string())),
                _ => Err(at(
                    &path,
                    "exists and is not a regular file: anonbox does not replace it".into(),
                )),
            };
        }
        Err(format!(
            "is a symbolic link that leads to no file (a loop, or more than {MAX_LINKS} links)"
        ))
    }

    /// True if written into in place (a file descriptor, a FIFO, a device).
    pub fn is_stream(&self) -> bool {
        !matches!(self, Dest::File(_))
    }

    /// The identity of the existing file it leads to, if any.
    pub fn identity(&self) -> Option<(u64, u64)> {
        match self {
            Dest::Fd(_) => None,
            Dest::Stream(p) | Dest::File(p) => p.existing.map(|i| i.id()),
        }
    }
}

/// How a folder is named in messages (`.` for the current one, no separator at the end).
fn folder_name(dir: &Dir) -> String {
    let shown = dir.path().display().to_string();
    match shown.trim_end_matches('/') {
        "" => shown,
        trimmed => trimmed.to_string(),
    }
}

/// The folder and the name of `path`. A path that ends in a separator, `.` or `..` names a
/// folder.
fn split(path: &Path) -> std::result::Result<(PathBuf, OsString), String> {
    let bytes = path.as_os_str().as_bytes();
    let last = bytes.rsplit(|&b| b == b'/').next().unwrap_or_default();
    if last.is_empty() || last == b"." || last == b".." {
        return Err("names a folder: give a file name".to_string());
    }
    let name = OsStr::from_bytes(last).to_os_string();
    let folder = PathBuf::from(OsStr::from_bytes(&bytes[..bytes.len() - last.len()]));
    Ok((folder, name))
}

/// The descriptor that `path` names, if it names one: `/dev/stdin`, `/dev/stdout`,
/// `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N` or
/// `/proc/PID/fd/N` with this process's PID.
fn fd_number(path: &Path) -> Option<i32> {
    let parts: Vec<&OsStr> = path
        .components()
        .map(|c| match c {
            Component::RootDir => OsStr::new("/"),
            other => other.as_os_str(),
        })
        .collect();
    let text: Option<Vec<&str>> = parts.iter().map(|p| p.to_str()).collect();
    let number = |n: &str| n.parse::<i32>().ok().filter(|n| *n >= 0);
    match text?.as_slice() {
        ["/", "dev", "stdin"] => Some(0),
        ["/", "dev", "stdout"] => Some(1),
        ["/", "dev", "stderr"] => Some(2),
        ["/", "dev", "fd", n] => number(n),
        ["/", "proc", process, "fd", n]
            if *process == "self"
                || *process == "thread-self"
                || process.parse::<u32>().ok() == Some(std::process::id()) =>
        {
            number(n)
        }
        _ => None,
    }
}

/// True if `path` names an inherited descriptor ([`fd_number`]).
pub fn names_fd(path: &Path) -> bool {
    fd_number(path).is_some()
}

/// Checks that descriptor `fd` is open for writing.
fn check_fd(fd: i32) -> std::result::Result<(), String> {
    let flags = match fd {
        0 => rustix::fs::fcntl_getfl(std::io::stdin()),
        1 => rustix::fs::fcntl_getfl(std::io::stdout()),
        2 => rustix::fs::fcntl_getfl(std::io::stderr()),
        _ => {
            return match std::fs::metadata(format!("/dev/fd/{fd}")) {
                Ok(_) => Ok(()),
                Err(_) => Err(format!("names file descriptor {fd}, which is not open")),
            }
        }
    };
    match flags {
        Ok(f) if f & OFlags::RWMODE == OFlags::RDONLY => Err(format!(
            "names file descriptor {fd}, which is open for reading only"
        )),
        Ok(_) => Ok(()),
        Err(_) => Err(format!("names file descriptor {fd}, which is not open")),
    }
}

/// Opens the inherited descriptor `fd` for writing: standard output and error as they are
/// (the same open file, so `>>` appends and the order with anonbox's own lines is kept),
/// another descriptor as a copy of it (0) or reopened for appending (`/dev/fd/N`).
pub fn open_fd(fd: i32) -> std::io::Result<Box<dyn std::io::Write + Send>> {
    Ok(match fd {
        1 => Box::new(std::io::stdout()),
        2 => Box::new(std::io::stderr()),
        0 => Box::new(std::fs::File::from(
            std::io::stdin().as_fd().try_clone_to_owned()?,
        )),
        n => Box::new(
            std::fs::OpenOptions::new()
                .append(true)
                .open(format!("/dev/fd/{n}"))?,
        ),
    })
}

/// Opens an existing FIFO or device at `place` for writing, not following a link, and checks
/// that it is still the file that was resolved.
pub fn open_stream(place: &Place) -> std::io::Result<std::fs::File> {
    let fd = rustix::fs::openat(
        &*place.dir,
        &place.name,
        OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let now = stat_fd(&fd)?;
    if Some(now.id()) != place.existing.map(|i| i.id()) {
        return Err(std::io::Error::other(
            "it was replaced after it was checked: nothing was written",
        ));
    }
    Ok(std::fs::File::from(fd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_descriptors() {
        assert_eq!(fd_number(Path::new("/dev/stdout")), Some(1));
        assert_eq!(fd_number(Path::new("//dev/./stderr")), Some(2));
        assert_eq!(fd_number(Path::new("/dev/fd/7")), Some(7));
        assert_eq!(fd_number(Path::new("/proc/self/fd/1")), Some(1));
        let own = format!("/proc/{}/fd/3", std::process::id());
        assert_eq!(fd_number(Path::new(&own)), Some(3));
        assert_eq!(fd_number(Path::new("/proc/1/fd/3")), None);
        assert_eq!(fd_number(Path::new("dev/stdout")), None);
        assert_eq!(fd_number(Path::new("/dev/fd/x")), None);
    }

    #[test]
    fn folder_and_name() {
        let s = |p: &str| split(Path::new(p)).map(|(d, n)| (d, n.into_string().unwrap()));
        assert_eq!(s("a/b.csv"), Ok((PathBuf::from("a/"), "b.csv".into())));
        assert_eq!(s("b.csv"), Ok((PathBuf::new(), "b.csv".into())));
        assert_eq!(s("/b.csv"), Ok((PathBuf::from("/"), "b.csv".into())));
        for folder in ["a/", "a/.", "..", "", "/"] {
            assert!(s(folder).is_err(), "{folder}");
        }
    }

    #[test]
    fn links_are_resolved_once_and_each_hop_checked() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("real.csv"), "x").unwrap();
        std::os::unix::fs::symlink("real.csv", d.join("link.csv")).unwrap();
        std::os::unix::fs::symlink("/dev/stdout", d.join("out.csv")).unwrap();
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        match Dest::resolve(&d.join("link.csv")).unwrap() {
            Dest::File(p) => assert_eq!(p.name, "real.csv"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            Dest::resolve(&d.join("out.csv")).unwrap(),
            Dest::Fd(1)
        ));
        assert!(Dest::resolve(&d.join("loop")).unwrap_err().contains("loop"));
        assert!(matches!(
            Dest::resolve(Path::new("/dev/null")).unwrap(),
            Dest::Stream(_)
        ));
        assert_eq!(Dest::resolve(d).unwrap_err(), "is a folder");
        let slash = format!("{}/", d.display());
        assert!(Dest::resolve(Path::new(&slash))
            .unwrap_err()
            .contains("names a folder"));
        let missing = Dest::resolve(&d.join("no/such.csv")).unwrap_err();
        assert!(missing.contains("does not exist"), "{missing}");
    }
}
