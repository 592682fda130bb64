//! What a run reads and what it writes, checked before the input is read.
//!
//! anonbox never writes over anything it reads (the config, the input, a hierarchy file, a
//! research subset file), compared as files (device and inode, so symbolic and hard links are
//! seen through), and never replaces what is not a regular file: an existing FIFO or character
//! device (`/dev/null`, a terminal) is written into as a stream, `-` is standard output, and a
//! folder, socket or block device is refused. Every destination's folder must exist and take a
//! new file. All of these are flag or config errors (exit 2), found before a row is read.

use std::path::{Path, PathBuf};

use crate::job::{Generalization, Job, Method, OutputFormat, PrivacyModel, SubsetSpec};
use crate::{Error, Result};

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
    if let Some(o) = &job.output {
        if o.format == OutputFormat::Anatomy || job.method == Method::Anatomy {
            let (qit, st) = crate::config::anatomy_paths(&o.path);
            out.push(("output", qit));
            out.push(("output", st));
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

/// The identity of an existing file (device, inode), following links.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Checks the job's destinations (see the module docs). Errors are [`Error::Usage`].
pub fn check_destinations(job: &Job) -> Result<()> {
    check(&reads(job), &writes(job))
}

/// Checks destinations `writes` against the files a command `reads` (see the module docs):
/// the same rules for a run, `anonbox hierarchy` and `anonbox init`. Errors are
/// [`Error::Usage`].
pub fn check(reads: &[(&'static str, PathBuf)], writes: &[(&'static str, PathBuf)]) -> Result<()> {
    let read_ids: Vec<_> = reads
        .iter()
        .filter_map(|(what, p)| identity(p).map(|id| (id, *what, p)))
        .collect();
    let mut seen: Vec<(PathBuf, &'static str, &Path)> = Vec::new();
    for (what, path) in writes {
        if crate::io::is_stdout(path) {
            if *what != "output" || writes.iter().filter(|(w, _)| *w == "output").count() > 1 {
                return Err(usage(format!(
                    "the {what} cannot go to standard output ('-'): only a single output file can"
                )));
            }
            continue;
        }
        if let Some(id) = identity(path) {
            if let Some((_, read_what, read_path)) = read_ids.iter().find(|(r, _, _)| *r == id) {
                return Err(usage(format!(
                    "the {what} {} is the {read_what} {}: anonbox never writes over what it reads",
                    path.display(),
                    read_path.display()
                )));
            }
        }
        let meta = std::fs::metadata(path).ok();
        if let Some(m) = &meta {
            if m.is_dir() {
                return Err(usage(format!("the {what} {} is a folder", path.display())));
            }
            if !m.is_file() {
                if crate::io::is_stream(path) && *what != "database" {
                    continue; // written in place, as a stream
                }
                return Err(usage(format!(
                    "the {what} {} exists and is not a regular file: anonbox does not replace it",
                    path.display()
                )));
            }
        }
        // A name ending in a separator names a folder, existing or not.
        if path
            .as_os_str()
            .to_string_lossy()
            .ends_with(std::path::MAIN_SEPARATOR)
        {
            return Err(usage(format!(
                "the {what} {} names a folder: give a file name",
                path.display()
            )));
        }
        // A link that leads nowhere but to links (a loop, or deeper than the system follows)
        // would be replaced by a file; a dangling link is fine (its target is created).
        if let Err(e) = std::fs::metadata(path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                return Err(usage(format!("the {what} {}: {e}", path.display())));
            }
        }
        // The file that will really be replaced (a link's target) and its folder.
        let real = crate::io::resolve_link(path);
        let dir = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(usage(format!(
                "the {what} {}: folder {} does not exist",
                path.display(),
                dir.display()
            )));
        }
        if let Err(e) = tempfile::tempfile_in(&dir) {
            return Err(usage(format!(
                "the {what} {}: cannot write into folder {}: {e}",
                path.display(),
                dir.display()
            )));
        }
        let key = std::fs::canonicalize(&dir)
            .unwrap_or(dir)
            .join(real.file_name().unwrap_or_default());
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
