//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::PathBuf;

/// Absolute path of a file under `tests/data/`.
pub fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}
