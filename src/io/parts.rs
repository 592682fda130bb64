//! A release written as a data set folder: part files `part-00000.parquet`, `part-00001.parquet`,
//! ... in one folder (`-output DIR/`), published with the run's other outputs, all or nothing.
//!
//! Each part is an output of the run's [`Publication`] like any file: written into a temporary
//! file beside it and renamed into place only when the whole run has succeeded. A folder the
//! run creates goes again if it fails. An existing folder may hold only a release's parts (and
//! hidden or `_` files, which no reader takes for data): anything else is refused before the
//! input is read ([`check_folder`]), so the run never mixes its parts with other data nor
//! removes a file it was not asked to write. Parts of an earlier release that the new one does
//! not replace (it has fewer) are removed once the run is published, so the folder then holds
//! exactly the new release.
//!
//! Parts written by other processes (a cluster's executors) go into the folder's private
//! staging folder ([`PartsFolder::staging`]: `.anonbox-parts-XXXXXX`, 0700, inside the
//! destination so that a rename moves a part into place) and are adopted by the run one by one
//! ([`PartsFolder::adopt`]): renamed over a temporary file of the publication, checked to be a
//! regular file of the user's, and published with the rest. The staging folder, whatever is
//! left in it, goes after the run and on a signal; one left by a killed run is swept by the next
//! run into the same folder (a live run holds its folder's lock).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use rustix::fs::FlockOperation;

use super::columnar::Kind;
use super::{Cleanup, PrivateDir, Publication};
use crate::{Error, Result};

/// The prefix of a staging folder's name.
const STAGING: &str = ".anonbox-parts-";

/// The extension of a part of `kind`.
pub fn extension(kind: Kind) -> &'static str {
    match kind {
        Kind::Parquet => "parquet",
        Kind::Ipc => "arrow",
    }
}

/// The name of part `n` of `kind`: `part-00000.parquet`.
pub fn part_name(n: usize, kind: Kind) -> String {
    format!("part-{n:05}.{}", extension(kind))
}

/// True if `name` is a part's (`part-NNNNN.parquet` or `.arrow`, any number of digits).
fn is_part(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("part-") else {
        return false;
    };
    let Some((digits, ext)) = rest.split_once('.') else {
        return false;
    };
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (ext == "parquet" || ext == "arrow")
}

/// Why the folder at `dir` cannot take a release's parts, if it cannot: it holds something
/// else than parts (hidden and `_` entries aside), or is not a folder. A missing folder can.
pub fn check_folder(dir: &Path) -> std::result::Result<(), String> {
    parts_in(dir).map(drop)
}

/// The parts in the folder at `dir` (none if it is missing), or why it cannot take a release's
/// parts ([`check_folder`]).
fn parts_in(dir: &Path) -> std::result::Result<Vec<OsString>, String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("cannot list the folder: {e}")),
    };
    let mut parts = Vec::new();
    for e in entries {
        let e = e.map_err(|e| format!("cannot list the folder: {e}"))?;
        let file_name = e.file_name();
        let name = file_name.to_string_lossy();
        if name.starts_with('.') || name.starts_with('_') {
            continue;
        }
        let regular = e.file_type().is_ok_and(|t| t.is_file());
        if !(regular && is_part(&name)) {
            return Err(format!(
                "holds {name}, which is not a part of a release (part-NNNNN.parquet): anonbox \
                 writes a data set folder only where it holds nothing else; choose an empty or \
                 new folder"
            ));
        }
        parts.push(file_name.clone());
    }
    Ok(parts)
}

/// A data set folder being written (see the module docs).
pub struct PartsFolder<'a> {
    publication: &'a Publication,
    dir: PathBuf,
    kind: Kind,
    /// The parts there before the run, by name.
    before: Vec<OsString>,
    staging: Option<Staging>,
}

impl<'a> PartsFolder<'a> {
    /// Starts a release into the folder `dir` (created if missing, and removed again if the
    /// run fails), after checking it again ([`check_folder`]).
    pub fn open(publication: &'a Publication, dir: &Path, kind: Kind) -> Result<PartsFolder<'a>> {
        publication.create_dir(dir).map_err(|e| Error::io(dir, e))?;
        let before = parts_in(dir).map_err(|m| Error::in_file(dir, m))?;
        sweep_staging(dir);
        Ok(PartsFolder {
            publication,
            dir: dir.to_path_buf(),
            kind,
            before,
            staging: None,
        })
    }

    /// The path of part `n`.
    pub fn part(&self, n: usize) -> PathBuf {
        self.dir.join(part_name(n, self.kind))
    }

    /// The private folder where other processes write parts for [`PartsFolder::adopt`] (made
    /// on the first call).
    pub fn staging(&mut self) -> Result<&Path> {
        if self.staging.is_none() {
            self.staging = Some(Staging::new(&self.dir, self.publication.cleanup())?);
        }
        Ok(self.staging.as_ref().expect("made").dir.path())
    }

    /// Makes `name`, a part written into the staging folder, part `n` of the release.
    pub fn adopt(&self, n: usize, name: &str) -> Result<()> {
        let staging = self
            .staging
            .as_ref()
            .ok_or_else(|| Error::Invalid("internal error: no staging folder".into()))?;
        if name.contains('/') || name.starts_with('.') {
            return Err(Error::Invalid(format!(
                "internal error: a part named {name} was returned"
            )));
        }
        self.publication
            .adopt(&self.part(n), &staging.dir.path().join(name))
    }

    /// Ends the release at `parts` parts: the earlier release's parts past them are removed
    /// once the run is published.
    pub fn finish(self, parts: usize) -> Result<()> {
        let new: Vec<OsString> = (0..parts)
            .map(|n| OsString::from(part_name(n, self.kind)))
            .collect();
        let stale: Vec<OsString> = self
            .before
            .iter()
            .filter(|b| !new.contains(b))
            .cloned()
            .collect();
        self.publication.remove_on_publish(&self.dir, &stale)
    }
}

/// A staging folder: private ([`PrivateDir`]: 0700, removed when dropped and on a signal), and
/// locked while the run lives.
struct Staging {
    dir: PrivateDir,
    /// Holds the folder's lock: a sweep never takes a live run's folder.
    _lock: std::fs::File,
}

impl Staging {
    fn new(parent: &Path, cleanup: &Cleanup) -> Result<Staging> {
        let dir = PrivateDir::new_in(parent, STAGING, cleanup)?;
        let lock = std::fs::File::open(dir.path()).map_err(|e| Error::io(dir.path(), e))?;
        let _ = rustix::fs::flock(&lock, FlockOperation::NonBlockingLockExclusive);
        Ok(Staging { dir, _lock: lock })
    }
}

/// Removes the staging folders in `dir` that killed runs left: the user's own, not locked by a
/// live run.
fn sweep_staging(dir: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(STAGING) {
            continue;
        }
        let path = e.path();
        let ours = std::fs::symlink_metadata(&path)
            .is_ok_and(|m| m.is_dir() && m.uid() == super::dest::euid());
        let Ok(f) = std::fs::File::open(&path) else {
            continue;
        };
        if ours && rustix::fs::flock(&f, FlockOperation::NonBlockingLockExclusive).is_ok() {
            let _ = std::fs::remove_dir_all(&path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_named_and_known() {
        assert_eq!(part_name(0, Kind::Parquet), "part-00000.parquet");
        assert_eq!(part_name(123_456, Kind::Ipc), "part-123456.arrow");
        assert!(is_part("part-00007.parquet"));
        for other in [
            "part-.parquet",
            "part-1.csv",
            "part-x.parquet",
            "data.parquet",
        ] {
            assert!(!is_part(other), "{other}");
        }
    }

    #[test]
    fn a_folder_of_other_files_is_refused() {
        let t = tempfile::tempdir().unwrap();
        assert!(check_folder(&t.path().join("new")).is_ok());
        std::fs::write(t.path().join("part-00000.parquet"), b"x").unwrap();
        std::fs::write(t.path().join("_SUCCESS"), b"").unwrap();
        assert!(check_folder(t.path()).is_ok());
        std::fs::write(t.path().join("notes.txt"), b"keep me").unwrap();
        let why = check_folder(t.path()).unwrap_err();
        assert!(why.contains("notes.txt"), "{why}");
    }

    #[test]
    fn a_release_replaces_the_parts_and_nothing_else() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("release");
        std::fs::create_dir(&dir).unwrap();
        for n in 0..3 {
            std::fs::write(dir.join(part_name(n, Kind::Parquet)), b"old").unwrap();
        }
        std::fs::write(dir.join("_SUCCESS"), b"").unwrap();
        let publication = Publication::default();
        let mut folder = PartsFolder::open(&publication, &dir, Kind::Parquet).unwrap();
        // Part 0 written here, part 1 by "another process" into the staging folder.
        publication.write(&folder.part(0), b"new 0").unwrap();
        let staging = folder.staging().unwrap().to_path_buf();
        assert_eq!(
            std::fs::metadata(&staging).unwrap().permissions().mode() & 0o777,
            0o700
        );
        std::fs::write(staging.join("p1.parquet"), b"new 1").unwrap();
        folder.adopt(1, "p1.parquet").unwrap();
        assert!(folder.adopt(2, "../escape").is_err());
        folder.finish(2).unwrap();
        // Nothing changes before the run is published.
        assert_eq!(
            std::fs::read(dir.join("part-00001.parquet")).unwrap(),
            b"old"
        );
        publication.publish().unwrap();
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["_SUCCESS", "part-00000.parquet", "part-00001.parquet"]
        );
        assert_eq!(
            std::fs::read(dir.join("part-00000.parquet")).unwrap(),
            b"new 0"
        );
        assert_eq!(
            std::fs::read(dir.join("part-00001.parquet")).unwrap(),
            b"new 1"
        );
        assert!(!staging.exists());
    }

    #[test]
    fn a_failed_release_leaves_the_folder_as_it_was() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("new-release");
        {
            let publication = Publication::default();
            let mut folder = PartsFolder::open(&publication, &dir, Kind::Parquet).unwrap();
            publication.write(&folder.part(0), b"0").unwrap();
            let staging = folder.staging().unwrap().to_path_buf();
            std::fs::write(staging.join("p1.parquet"), b"1").unwrap();
            folder.adopt(1, "p1.parquet").unwrap();
            folder.finish(2).unwrap();
            // Dropped unpublished: the run failed.
        }
        assert!(!dir.exists(), "the folder the run created goes with it");
    }

    use std::os::unix::fs::PermissionsExt;
}
