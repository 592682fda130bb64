//! init on many columns: a suggested command that runs, time near-linear in the columns (case 8).
//!
//! init proposed every column that was not an identifier or free text as a quasi-identifier:
//! on 70 category columns the lattice (the product of the hierarchies' levels) passed 2^64, init
//! printed it saturated (`18446744073709551615`) and suggested `-method Optimal -timeLimit 60`,
//! which every lattice search refuses (exit 2). Its time grew with the square of the columns
//! (a hierarchy file per column, each checked against the others). Now it keeps as many
//! quasi-identifiers as the release bears (three for 20 records), keeps as they are the
//! others whose every value is on 5 records or more, removes the rest from the release and
//! names them, and checks the config with the run's own check.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The columns of [`wide_file`] whose values identify least (one value on 18 records of 20).
const SKEWED: [usize; 7] = [3, 13, 23, 33, 43, 53, 63];

/// `dir/wide.csv`: 70 category columns `c0`..`c69` over 20 records. The columns of [`SKEWED`]
/// hold `x` but on two records (`y`); the others hold `a` on the first ten records and `b` on
/// the last ten, so that those alone are 10-anonymous as they are (the search ends at once).
/// Each would be a quasi-identifier of two levels (value, `*`): 2^70 transformations; 20
/// records bear three.
fn wide_file(dir: &Path) -> PathBuf {
    let mut text: Vec<String> = vec![(0..70)
        .map(|c| format!("c{c}"))
        .collect::<Vec<_>>()
        .join(",")];
    for r in 0..20 {
        let row: Vec<&str> = (0..70)
            .map(|c| match (SKEWED.contains(&c), r) {
                (true, 0 | 10) => "y",
                (true, _) => "x",
                (false, r) if r < 10 => "a",
                _ => "b",
            })
            .collect();
        text.push(row.join(","));
    }
    let path = dir.join("wide.csv");
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    path
}

/// Runs `anonbox init wide.csv --header --dir job` in `dir`; returns what it printed.
fn init_wide(dir: &Path) -> String {
    wide_file(dir);
    let o = Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(dir)
        .args(["init", "wide.csv", "--header", "--dir", "job"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The command init suggests (its last line) runs as printed, and the lattice it prints is the
/// true one (2^3), not a saturated product. The release holds none of the columns left out.
#[test]
fn init_on_70_columns_suggests_a_command_that_runs() {
    let dir = tempfile::tempdir().unwrap();
    let printed = init_wide(dir.path());
    assert!(!printed.contains("18446744073709551615"), "{printed}");
    let lattice = printed
        .lines()
        .find_map(|l| l.strip_prefix("lattice: "))
        .unwrap_or_else(|| panic!("no lattice line: {printed}"));
    assert!(lattice.starts_with("8 transformations"), "{lattice}");
    let command = printed.lines().last().unwrap().trim();
    assert!(
        command.starts_with("anonbox -config job/config.xml -method Flash"),
        "{command}"
    );
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let started = Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(dir.path())
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{command}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(started.elapsed() < Duration::from_secs(30), "{command}");
    let release = std::fs::read_to_string(dir.path().join("job/wide-anonymized.csv")).unwrap();
    let header: Vec<&str> = release.lines().next().unwrap().split(',').collect();
    assert_eq!(header.len(), 63, "{header:?}");
    for c in SKEWED {
        assert!(!header.contains(&format!("c{c}").as_str()), "{header:?}");
    }
}

/// The columns left out are those whose values are on fewer than 5 records, named on stdout (a summary
/// line, and each column's line) and in config.xml, under `<id>` (removed from the release:
/// released raw beside the generalized ones, they could single records out), with no
/// hierarchy file.
#[test]
fn init_names_the_quasi_identifiers_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let printed = init_wide(dir.path());
    let names: Vec<String> = SKEWED.iter().map(|c| format!("c{c}")).collect();
    let summary = printed
        .lines()
        .find(|l| l.starts_with("left out of the quasi-identifiers: 7 columns"))
        .unwrap_or_else(|| panic!("no summary line: {printed}"));
    assert!(
        summary.contains(&format!("({})", names.join(", "))),
        "{summary}"
    );
    for (c, name) in SKEWED.iter().zip(&names) {
        let line = printed
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{c} {name}: ")))
            .unwrap();
        assert!(
            line.contains(": left out, past the quasi-identifiers the release bears"),
            "{line}"
        );
        assert!(!dir
            .path()
            .join(format!("job/hierarchy_{name}.csv"))
            .exists());
    }
    let config = std::fs::read_to_string(dir.path().join("job/config.xml")).unwrap();
    let block = |tag: &str| {
        let start = config.find(&format!("\n  <{tag}>\n")).unwrap();
        &config[start..start + config[start..].find(&format!("\n  </{tag}>")).unwrap()]
    };
    let (ids, qids) = (block("id"), block("qid"));
    for (c, name) in SKEWED.iter().zip(&names) {
        assert!(
            ids.contains(&format!(
                "<!-- {name}: left out, past the quasi-identifiers"
            )),
            "{ids}"
        );
        assert!(ids.contains(&format!("<att index=\"{c}\" name=\"{name}\"/>")));
    }
    assert_eq!(qids.matches("<att ").count(), 3);
    assert!(
        config.contains("7 quasi-identifiers were left out"),
        "{config}"
    );
}

/// init on 6,000 columns finishes well within 15 s (near-linear: well under a second on an
/// idle machine). Before, its time grew with the square of the columns: 48 s. It is stopped at
/// the bound.
#[test]
fn init_time_is_near_linear_in_the_columns() {
    let dir = tempfile::tempdir().unwrap();
    let columns = 6_000;
    let mut text = (0..columns)
        .map(|c| format!("c{c}"))
        .collect::<Vec<_>>()
        .join(",");
    text.push('\n');
    for r in 0..100usize {
        let row: Vec<&str> = (0..columns)
            .map(|c| ["a", "b", "c", "d"][(r * 7 + c * 13 + r * c) % 4])
            .collect();
        text.push_str(&row.join(","));
        text.push('\n');
    }
    std::fs::write(dir.path().join("many.csv"), text).unwrap();
    let mut init = Command::new(env!("CARGO_BIN_EXE_anonbox"));
    init.current_dir(dir.path())
        .args(["init", "many.csv", "--header", "--dir", "job"]);
    let what = format!("init on {columns} columns");
    let (o, _) = super::run_within(init, Duration::from_secs(15), &what);
    let status = o.status;
    assert!(status.success());
}
