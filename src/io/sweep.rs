//! The sweep of killed runs' leftovers.
//!
//! SIGKILL (the OOM killer) or an abort runs no cleanup: a run killed while writing leaves its
//! temporary file (a kept database's holds the raw data), and one killed while publishing may
//! leave the file it had set aside (`.NAME.PID.N.old`), the destination missing if it died
//! between two renames. The next run that writes the same name cleans up after it
//! ([`sweep_stale`], called as each output is created).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{AtFlags, Mode as RawMode, OFlags};

use super::dest::{self, remove_if, Dir, Info};

/// How the temporary files of [`super::AtomicFile`] end: `.NAME.XXXXXX.anonbox.tmp`, so that a
/// sweep knows them from any other program's.
pub const TEMP_SUFFIX: &str = ".anonbox.tmp";

/// How a file set aside by a publication ends: `.NAME.PID.N.old`.
pub(super) const ASIDE_SUFFIX: &str = ".old";

/// How long a temporary file must have been left unchanged before a sweep may take it for a
/// killed run's (a live run locks its file right after creating it: this only covers that
/// instant).
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Cleans up after the runs that were killed while writing `name` in `dir`: SIGKILL (the OOM
/// killer) or an abort runs no cleanup. Their temporary files ([`sweep_temporary`]: a kept
/// database's holds the raw data) are removed, and the previous file one of them had set
/// aside while publishing ([`sweep_set_aside`]) is put back or removed. Only the user's own
/// regular files are touched, through the folder's handle and under its lock (so never while
/// another run publishes there). Each is said on stderr, unless `quiet` (`-quiet`).
pub(super) fn sweep_stale(dir: &Dir, name: &OsStr, quiet: bool) {
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
            sweep_temporary(dir, entry_name, middle, quiet);
        } else if let Some(middle) = rest.strip_suffix(ASIDE_SUFFIX.as_bytes()) {
            sweep_set_aside(dir, entry_name, name, middle, quiet);
        }
    }
}

/// Says what a sweep did, on stderr, unless `quiet` (`-quiet`).
fn say_swept(quiet: bool, what: std::fmt::Arguments<'_>) {
    if !quiet {
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
fn sweep_temporary(dir: &Dir, name: &OsStr, middle: &[u8], quiet: bool) {
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
        say_swept(
            quiet,
            format_args!(
                "removed {}, the temporary file of a run that was killed",
                dir.path().join(name).display()
            ),
        );
    }
}

/// `name`, the file that was at `target` and that a run set aside while publishing
/// (`.NAME.PID.N.old`, `middle` the `PID.N`), left there because process `PID` was killed
/// before it removed it. Only once that process is gone: if `target` is there (the new file
/// was published, or the old one never left), the set-aside one is removed; if not (killed
/// between two renames), it is put back, since a failed run leaves the previous output as it
/// was. Put back without replacing anything (a link, then the set-aside name removed).
fn sweep_set_aside(dir: &Dir, name: &OsStr, target: &OsStr, middle: &[u8], quiet: bool) {
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
                say_swept(
                    quiet,
                    format_args!(
                        "removed {}, the previous {} that run {pid} (killed) had set aside",
                        path.display(),
                        target_path.display()
                    ),
                );
            }
        }
        Ok(None) => {
            if rustix::fs::linkat(dir, name, dir, target, AtFlags::empty()).is_ok() {
                remove_if(dir, name, info.ino);
                say_swept(
                    quiet,
                    format_args!(
                        "restored {} from {}, where run {pid} had set it aside and was killed \
                     before publishing",
                        target_path.display(),
                        path.display()
                    ),
                );
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
            sweep_stale(&folder, OsStr::new(name), false);
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
}
