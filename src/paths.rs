//! What a run reads and what it writes, checked before the input is read.
//!
//! anonbox never writes over anything it reads (the config, the input, a hierarchy file, a
//! research subset file), compared as files (device and inode, so symbolic and hard links are
//! seen through), and never replaces what is not a regular file: an existing FIFO or character
//! device (`/dev/null`, a terminal) is written into as a stream, `-` and the names of inherited
//! descriptors (`/dev/stdout`) are written into as well, and a folder, socket or block device is
//! refused. In a folder other users can write, a symbolic link or another user's file is refused
//! (see [`crate::io::dest`]). Every destination's folder must exist and take a new file. All of
//! these are flag or config errors (exit 2), found before a row is read; the writer checks them
//! again when it creates and publishes each file (a link or a rename during the run).

use std::path::{Path, PathBuf};

use crate::io::Dest;
use crate::job::{Generalization, Job, Method, OutputFormat, PrivacyModel, SubsetSpec};
use crate::{Error, Result};

/// The folder a path names a file in: its parent, or `.` for a bare name.
pub fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Every file the run reads, with what it is.
pub fn reads(job: &Job) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some(c) = &job.config_path {
        out.push(("config file", c.clone()));
    }
    out.push(("input file", job.input.path.clone()));
    for q in &job.qids {
        match &q.generalization {
            Generalization::File { path, .. } => out.push(("hierarchy file", path.clone())),
            Generalization::Built(b) => {
                out.extend(b.reads().map(|p| ("mapping file", p.to_path_buf())))
            }
            Generalization::Vgh(_) => {}
        }
    }
    for s in &job.sensitive {
        if let Some((path, _)) = &s.hierarchy {
            out.push(("hierarchy file", path.clone()));
        }
    }
    for m in &job.privacy {
        if let PrivacyModel::DeltaPresence {
            subset: SubsetSpec::File(path),
            ..
        } = m
        {
            out.push(("subset file", path.clone()));
        }
    }
    out
}

/// Every file the run writes, with what it is (the anatomy pair as two files).
pub fn writes(job: &Job) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    if let Some(o) = job.output.as_ref().filter(|o| o.memory.is_none()) {
        if o.format == OutputFormat::Anatomy || job.method == Method::Anatomy {
            let (qit, st) = anatomy_paths(&o.path);
            out.push(("output", qit));
            out.push(("output", st));
        } else if o.folder {
            // A data set folder: its own rules (crate::io::parts, checked with the job).
        } else {
            out.push(("output", o.path.clone()));
        }
    }
    if let Some(r) = &job.report {
        out.push(("report", r.clone()));
    }
    if let Some(d) = &job.db {
        out.push(("database", d.clone()));
    }
    out
}

/// The two files of the anatomy format for `-output dir/name.ext`: the name is split at the last
/// `.` of the whole path, as the toolbox does (`dir/name_QIT.ext`, `dir/name_ST.ext`); without a
/// dot, `NAME_QIT` and `NAME_ST`.
pub fn anatomy_paths(output: &Path) -> (PathBuf, PathBuf) {
    let s = output.to_string_lossy();
    match s.rfind('.') {
        Some(dot) => (
            PathBuf::from(format!("{}_QIT{}", &s[..dot], &s[dot..])),
            PathBuf::from(format!("{}_ST{}", &s[..dot], &s[dot..])),
        ),
        None => (
            PathBuf::from(format!("{s}_QIT")),
            PathBuf::from(format!("{s}_ST")),
        ),
    }
}

/// The identity of an existing file (device, inode), following links.
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Checks the job's destinations (see the module docs). Errors are [`Error::Usage`].
pub fn check_destinations(job: &Job) -> Result<()> {
    let writes = writes(job);
    if let Some(o) = job.output.as_ref().filter(|o| o.folder) {
        let folder = std::fs::canonicalize(&o.path).unwrap_or_else(|_| o.path.clone());
        for (what, path) in &writes {
            let parent = folder_of(path);
            if std::fs::canonicalize(parent).is_ok_and(|p| p.starts_with(&folder)) {
                return Err(usage(format!(
                    "the {what} {} is in the output folder {}, which holds the release's parts \
                     only: write it elsewhere",
                    path.display(),
                    o.path.display()
                )));
            }
        }
    }
    check(&reads(job), &writes)
}

/// What makes two destinations the same: a descriptor, or a name in a folder.
#[derive(PartialEq, Eq)]
enum Key {
    Fd(i32),
    Name((u64, u64), std::ffi::OsString),
}

/// Checks destinations `writes` against the files a command `reads` (see the module docs):
/// the same rules for a run, `anonbox hierarchy` and `anonbox init`. The command gives the
/// reads to its publication too, which checks them again as it creates and publishes each file
/// ([`crate::io::Publication::never_replace`]). Errors are [`Error::Usage`].
pub fn check(reads: &[(&'static str, PathBuf)], writes: &[(&'static str, PathBuf)]) -> Result<()> {
    let read_ids: Vec<_> = reads
        .iter()
        .filter_map(|(what, p)| identity(p).map(|id| (id, *what, p)))
        .collect();
    let mut seen: Vec<(Key, &'static str, &Path)> = Vec::new();
    for (what, path) in writes {
        if crate::io::is_stdout(path) {
            if *what != "output" || writes.iter().filter(|(w, _)| *w == "output").count() > 1 {
                return Err(usage(format!(
                    "the {what} cannot go to standard output ('-'): only a single output file can"
                )));
            }
            continue;
        }
        let dest =
            Dest::resolve(path).map_err(|m| usage(format!("the {what} {} {m}", path.display())))?;
        if let Some(id) = dest.identity() {
            if let Some((_, read_what, read_path)) = read_ids.iter().find(|(r, _, _)| *r == id) {
                return Err(usage(format!(
                    "the {what} {} is the {read_what} {}: anonbox never writes over what it reads",
                    path.display(),
                    read_path.display()
                )));
            }
        }
        let key = match &dest {
            Dest::Fd(_) | Dest::Stream(_) if *what == "database" => {
                return Err(usage(format!(
                    "the {what} {} exists and is not a regular file: anonbox does not replace it",
                    path.display()
                )))
            }
            Dest::Fd(fd) => Key::Fd(*fd),
            Dest::Stream(_) => continue, // written in place (`/dev/null` may take several)
            Dest::File(place) => {
                if let Err(e) = crate::io::check_writable(place) {
                    return Err(usage(format!(
                        "the {what} {}: cannot write into folder {}: {e}",
                        path.display(),
                        place.dir.path().display()
                    )));
                }
                Key::Name(place.dir.id(), place.name.clone())
            }
        };
        if let Some((_, other, other_path)) = seen.iter().find(|(k, _, _)| *k == key) {
            return Err(usage(format!(
                "the {what} {} and the {other} {} are the same file",
                path.display(),
                other_path.display()
            )));
        }
        seen.push((key, what, path));
    }
    Ok(())
}

fn usage(message: String) -> Error {
    Error::Usage(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anatomy_paths_split_at_the_last_dot() {
        assert_eq!(
            anatomy_paths(Path::new("out/x.data")),
            ("out/x_QIT.data".into(), "out/x_ST.data".into())
        );
        assert_eq!(
            anatomy_paths(Path::new("out.d/x")),
            ("out_QIT.d/x".into(), "out_ST.d/x".into())
        );
        assert_eq!(
            anatomy_paths(Path::new("x")),
            ("x_QIT".into(), "x_ST".into())
        );
    }
}
