//! The library's in-memory run (`anonbox::api`, the Python package's entry point): ADULT as
//! record batches gives, in memory, the release the command line writes to Parquet and to CSV
//! from the same data, row for row; the suppressed rows it marks are the release's suppressed
//! rows; the other columns keep their types; nothing is written; failures keep the command
//! line's exit status.

use arrow::array::{AsArray, RecordBatch};
use arrow::datatypes::DataType;

use crate::columnar::{
    adult_batch, adult_rows, adult_schema, config, csv_rows, read_release, recheck, run, write_csv,
};

fn batches() -> anonbox::io::columnar::Batches {
    let rows = adult_rows();
    let batches: Vec<RecordBatch> = rows.chunks(7000).map(adult_batch).collect();
    anonbox::io::columnar::Batches::new(adult_schema(), batches).unwrap()
}

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The rows of batches as text, as [`read_release`] reads a file.
fn text_rows(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for b in batches {
        let text: Vec<_> = b
            .columns()
            .iter()
            .map(|c| arrow::compute::cast(c, &DataType::Utf8).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            rows.push(
                text.iter()
                    .map(|c| c.as_string::<i32>().value(i).to_string())
                    .collect(),
            );
        }
    }
    rows
}

#[test]
fn adult_flash_k5_in_memory_equals_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let rows = adult_rows();
    let csv = dir.path().join("adult.csv");
    write_csv(&csv, &rows);
    let flags = ["-method", "Flash", "-k", "5", "-suppression", "0.02"];
    // The command line, from the CSV, to Parquet and to CSV.
    let cfg = config(
        dir.path(),
        &csv,
        "separator=\";\" header=\"true\"",
        "cli.parquet",
    );
    let (out, cli_report) = run(dir.path(), &cfg, &flags);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (_, from_parquet) = read_release(&dir.path().join("cli.parquet"));
    let mut all = vec!["-output", "cli.csv"];
    all.extend_from_slice(&flags);
    let (out, _) = run(dir.path(), &cfg, &all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_csv = csv_rows(&dir.path().join("cli.csv"));

    // The library, from record batches, into memory (the config's output is not written).
    let cfg = config(dir.path(), &csv, "", "never-written.parquet");
    let mut a = args(&["-config", cfg.to_str().unwrap(), "-quiet"]);
    a.extend(args(&flags));
    let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    let watch = anonbox::progress::Watch::default();
    assert_eq!(watch.now(), None);
    let done = anonbox::api::run(
        &a,
        Some(batches()),
        true,
        Some(watch.clone()),
        &Default::default(),
    )
    .unwrap();
    // The watch saw the run's bars without a terminal: the last one writes the release.
    let last = watch.now().expect("a watched bar");
    assert_eq!((last.phase.as_str(), last.length), ("write", Some(30162)));
    // Every bar stays readable after its phase ended, in the run's order (a caller polling
    // slower than a phase lasts still sees it).
    let phases: Vec<String> = watch.since(0).into_iter().map(|s| s.phase).collect();
    assert_eq!(
        phases.first().map(String::as_str),
        Some("load"),
        "{phases:?}"
    );
    assert!(phases.iter().any(|p| p == "search"), "{phases:?}");
    assert_eq!(watch.since(phases.len() - 1), vec![last]);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        before.len(),
        "the in-memory run wrote a file"
    );
    let release = done.release.as_ref().expect("a release in memory");
    // Quasi-identifiers as dictionary-encoded strings, `row` still an Int64.
    assert_eq!(
        release.schema.field(1).data_type(),
        &DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
    );
    assert_eq!(
        release.schema.field_with_name("row").unwrap().data_type(),
        &DataType::Int64
    );
    let mine = text_rows(&release.batches);
    assert_eq!(mine.len(), 30162);
    assert_eq!(mine, from_parquet, "memory vs the command line's Parquet");
    assert_eq!(mine, from_csv, "memory vs the command line's CSV");
    assert_eq!(done.report["transformation"], cli_report["transformation"]);
    assert_eq!(
        done.report["information_loss"],
        cli_report["information_loss"]
    );

    // The suppressed mask marks exactly the rows released with every label at the top.
    let suppressed = release
        .suppressed
        .as_ref()
        .expect("Flash marks suppressed rows");
    let n = suppressed.iter().filter(|&&s| s).count() as u64;
    assert!(
        n > 0,
        "k = 5 with 2 % suppression suppresses some rows on ADULT"
    );
    assert_eq!(done.report["suppressed_records"], n);
    for (r, &s) in mine.iter().zip(suppressed) {
        assert_eq!(r[..9].iter().all(|l| l == "*"), s, "{r:?}");
    }
    let found = recheck(dir.path(), &mine, 5, 603);
    assert_eq!(found.suppressed as u64, n);

    let levels = done.transformation().unwrap();
    assert_eq!(levels.len(), 9);
    assert_eq!(levels[0].0, "sex");
    let html = done.html().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") || html.starts_with("<!doctype html>"));
}

/// A bad flag is exit 2 (a config error, nothing read), an input with too few records exit 1;
/// the message is the command line's.
#[test]
fn failures_keep_the_command_lines_exit_status() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &dir.path().join("x.csv"), "", "out.parquet");
    let c = cfg.to_str().unwrap();
    let e = anonbox::api::run(
        &args(&["-config", c, "-k", "x"]),
        Some(batches()),
        true,
        None,
        &Default::default(),
    )
    .unwrap_err();
    assert_eq!(e.exit_code, 2, "{e}");
    assert!(e.message().contains("-k"), "{e}");
    let few =
        anonbox::io::columnar::Batches::new(adult_schema(), vec![adult_batch(&adult_rows()[..3])])
            .unwrap();
    let e = anonbox::api::run(
        &args(&["-config", c, "-quiet", "-method", "Flash", "-k", "5"]),
        Some(few),
        true,
        None,
        &Default::default(),
    )
    .unwrap_err();
    assert_eq!(e.exit_code, 1, "{e}");
    assert!(e.message().contains("fewer than k"), "{e}");
    let e =
        anonbox::api::command(&args(&["audit", "--qi", "age"]), &Default::default()).unwrap_err();
    assert_eq!(e.exit_code, 2, "{e}");
}
