//! A private spill folder: where an engine's temporary files (raw records sorted or hashed out
//! of memory) go. `anonbox-spill-XXXXXX`, mode 0700, in the temporary folder (`TMPDIR`), listed
//! in the run's clean-up so that SIGHUP, SIGINT or SIGTERM removes it with its contents
//! ([`Cleanup::interrupt`]), and removed with its contents when dropped: after a run, whether it
//! succeeded or failed.

use std::path::{Path, PathBuf};

use crate::io::Cleanup;
use crate::{Error, Result};

/// A private folder, gone when dropped (see the module docs).
pub struct SpillDir {
    path: PathBuf,
    cleanup: Cleanup,
}

impl SpillDir {
    /// Creates the folder and lists it in `cleanup`.
    pub fn new(cleanup: &Cleanup) -> Result<SpillDir> {
        use std::os::unix::fs::PermissionsExt;
        let base = std::env::temp_dir();
        let dir = tempfile::Builder::new()
            .prefix("anonbox-spill-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir_in(&base)
            .map_err(|e| Error::io(&base, e))?;
        // Listed before tempfile lets go of it: there is no moment a signal would miss it.
        cleanup.add_private_dir(dir.path());
        Ok(SpillDir {
            path: dir.keep(),
            cleanup: cleanup.clone(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        self.cleanup.remove_private_dir(&self.path);
    }
}
