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

/// ADULT's columns but `sensitive`, in file order (the quasi-identifiers beside a sensitive
/// attribute, as in `configs/adult-occupation.xml`).
pub fn adult_attributes_but(sensitive: &str) -> Vec<&'static str> {
    ADULT_ATTRIBUTES
        .iter()
        .copied()
        .filter(|a| *a != sensitive)
        .collect()
}

/// The levels of a report's (or a reference row's) `transformation`.
pub fn levels(report: &serde_json::Value) -> Vec<usize> {
    report["transformation"]
        .as_array()
        .expect("a transformation")
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect()
}

/// A fresh directory holding `configs/NAME` and a link to the repository's `tests` (the
/// bundled configs name `../tests/data/...`).
pub fn workdir(config: &str) -> tempfile::TempDir {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("configs")).unwrap();
    std::fs::copy(
        root.join("configs").join(config),
        dir.path().join("configs").join(config),
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join("tests"), dir.path().join("tests")).unwrap();
    dir
}

/// The names of the files in `dir`, sorted (to assert what a run wrote, or that it wrote nothing).
pub fn files_in(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs the anonbox binary in `dir` with `args`.
pub fn anonbox(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    assert_cmd::Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

/// Loads a job's input into memory as a run does (its research subset included), with no
/// progress shown.
pub fn load_table(
    job: &anonbox::job::Job,
) -> anonbox::Result<(
    anonbox::data::EncodedTable,
    anonbox::data::load::Encoding,
    anonbox::data::load::LoadSummary,
)> {
    anonbox::data::load::load_table(&job.source()?, job.research_subset()?, &mut ())
}
