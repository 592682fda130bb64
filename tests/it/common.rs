//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::PathBuf;

/// Absolute path of a file under `tests/data/`.
pub fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(rel)
}

/// ADULT's columns (`tests/data/adult/adult.csv`), in file order; each has a hierarchy file
/// `adult_hierarchy_<name>.csv`.
pub const ADULT_ATTRIBUTES: [&str; 9] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
];
