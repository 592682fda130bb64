//! A private spill folder: where an engine's temporary files (raw records sorted or hashed out
//! of memory) go. `anonbox-spill-XXXXXX`, mode 0700, in the temporary folder (`TMPDIR`), listed
//! in the run's clean-up so that SIGHUP, SIGINT or SIGTERM removes it with its contents, and
//! removed with its contents when dropped: after a run, whether it succeeded or failed
//! ([`PrivateDir`]).

use crate::io::{Cleanup, PrivateDir};
use crate::Result;

/// A new spill folder, listed in `cleanup`.
pub fn spill_dir(cleanup: &Cleanup) -> Result<PrivateDir> {
    PrivateDir::new_in(&std::env::temp_dir(), "anonbox-spill-", cleanup)
}
