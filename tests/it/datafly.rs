//! Datafly end to end through the `anonbox` binary: byte-identical to the UT Dallas toolbox on
//! its census sample, and k-anonymous (by the independent checker) on ADULT with hierarchy files.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common;
use crate::kcheck::{self, Spec};

fn anonbox(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_anonbox"));
    cmd.current_dir(dir);
    cmd
}

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn report(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Census sample output columns: ids 1 and 2 are removed, so age (0) stays 0 and sex (12) is 10.
const CENSUS_QIDS: [usize; 2] = [10, 0];
const CENSUS_TOP: [&str; 2] = ["[0:1]", "[0:100)"];

#[test]
fn census_sample_matches_the_toolbox_byte_for_byte() {
    let census = common::data("census-income-1k");
    let out = tempfile::tempdir().unwrap();
    for k in [2usize, 5, 10] {
        let target = out.path().join(format!("k{k}.data"));
        let rep = out.path().join(format!("k{k}.json"));
        anonbox(&census)
            .args([
                "-config",
                "config.xml",
                "-method",
                "Datafly",
                "-k",
                &k.to_string(),
            ])
            .args(["-outputFormat", "genVals", "-output"])
            .arg(&target)
            .arg("-report")
            .arg(&rep)
            .assert()
            .success()
            .stdout("");
        let want =
            std::fs::read(census.join(format!("reference/Datafly_genVals_k{k}.data"))).unwrap();
        let got = std::fs::read(&target).unwrap();
        assert!(got == want, "k = {k}: output differs from the toolbox's");

        let found = kcheck::check(
            &target,
            &Spec {
                separator: ",",
                header: false,
                qid_columns: &CENSUS_QIDS,
                top: &CENSUS_TOP,
                k,
                max_suppressed: k,
                full_domain: true,
            },
        )
        .unwrap();
        let r = report(&rep);
        assert_eq!(r["method"], "Datafly");
        assert_eq!(r["rows_read"], 463);
        assert_eq!(r["records"], 463);
        assert_eq!(r["rows_skipped"], 0);
        assert_eq!(r["quasi_identifiers"], serde_json::json!(["att12", "att0"]));
        // One step: age to its first VGH level (the toolbox's "Generalizing attribute 0").
        assert_eq!(r["transformation"], serde_json::json!([0, 1]));
        assert_eq!(r["suppressed_records"], found.suppressed);
        assert_eq!(r["equivalence_classes"], found.classes);
        // Datafly optimizes no metric: it reports its release's Loss (the default -metric).
        assert_eq!(r["metric"], "Loss");
        assert_eq!(r["information_loss"], r["utility"]["Loss"]);
        for phase in ["load", "search", "write", "total"] {
            assert!(r["elapsed_seconds"][phase].as_f64().unwrap() >= 0.0);
        }
        // k = 10 suppresses the 7 rows of [75:100) Male, as the toolbox does.
        assert_eq!(found.suppressed, if k == 10 { 7 } else { 0 });
    }
}

/// ADULT: 9 quasi-identifiers with hierarchy files, suppressed values print `*`.
pub(crate) fn adult_spec(k: usize, max_suppressed: usize) -> Spec<'static> {
    Spec {
        separator: ";",
        header: true,
        qid_columns: &[0, 1, 2, 3, 4, 5, 6, 7, 8],
        top: &["*"; 9],
        k,
        max_suppressed,
        full_domain: true,
    }
}

fn run_adult(extra: &[&str]) -> (tempfile::TempDir, PathBuf, serde_json::Value) {
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("adult.csv");
    let rep = out.path().join("adult.json");
    anonbox(&repo("."))
        .args(["-config", "configs/adult.xml", "-output"])
        .arg(&target)
        .arg("-report")
        .arg(&rep)
        .args(extra)
        .assert()
        .success();
    let r = report(&rep);
    (out, target, r)
}

#[test]
fn adult_is_k_anonymous_with_default_threshold() {
    for k in [5usize, 50] {
        let (_dir, target, r) = run_adult(&["-k", &k.to_string()]);
        let found = kcheck::check(&target, &adult_spec(k, k)).unwrap();
        assert_eq!(found.rows, 30162);
        assert_eq!(r["records"], 30162);
        assert_eq!(r["suppressed_records"], found.suppressed);
        assert_eq!(r["equivalence_classes"], found.classes);
        assert!(found.smallest_class >= k);
        let header = std::fs::read_to_string(&target).unwrap();
        assert!(header.starts_with(
            "sex;age;race;marital-status;education;native-country;workclass;occupation;salary-class\n"
        ));
        let levels = r["transformation"].as_array().unwrap();
        assert_eq!(levels.len(), 9);
    }
}

#[test]
fn adult_suppresses_up_to_a_larger_threshold() {
    // A generous threshold: fewer generalization steps, and some records suppressed.
    let (_dir, target, r) = run_adult(&["-k", "10", "-suppThreshold", "1500"]);
    let found = kcheck::check(&target, &adult_spec(10, 1500)).unwrap();
    assert!(found.suppressed > 0, "{found:?}");
    assert_eq!(r["suppressed_records"], found.suppressed);
    assert_eq!(r["suppression_limit"], 1500);
    // The same k with the default threshold (k) generalizes at least as much.
    let (_d2, _t2, strict) = run_adult(&["-k", "10"]);
    let sum = |v: &serde_json::Value| -> u64 {
        v["transformation"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum()
    };
    assert!(sum(&strict) > sum(&r));

    // A fraction: floor(0.02 * 30162) = 603 records.
    let (_d3, target, r) = run_adult(&["-k", "10", "-suppression", "0.02"]);
    assert_eq!(r["suppression_limit"], 603);
    kcheck::check(&target, &adult_spec(10, 603)).unwrap();
}

#[test]
fn fewer_rows_than_k_cannot_be_anonymized() {
    let census = common::data("census-income-1k");
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join("o.data");
    let a = anonbox(&census)
        .args([
            "-config",
            "config.xml",
            "-method",
            "Datafly",
            "-k",
            "464",
            "-output",
        ])
        .arg(&target)
        .assert()
        .code(1);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.starts_with("anonbox: ")
            && stderr.contains("This input cannot be anonymized at k = 464")
            && stderr.lines().count() == 1,
        "{stderr}"
    );
    assert!(!target.exists());
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}

/// Class numbers follow the toolbox's (first record order, suppressed classes' numbers skipped,
/// the suppression class next): each record's `EquivalenceID` in a kept database equals the EID
/// the toolbox printed in its anatomy QIT file for the same run.
#[test]
fn class_numbers_match_the_toolbox() {
    let census = common::data("census-income-1k");
    let out = tempfile::tempdir().unwrap();
    for k in [2usize, 5, 10] {
        let db = out.path().join(format!("k{k}.db"));
        anonbox(&census)
            .args([
                "-config",
                "config.xml",
                "-method",
                "Datafly",
                "-k",
                &k.to_string(),
            ])
            .arg("-output")
            .arg(out.path().join("o.data"))
            .arg("-db")
            .arg(&db)
            .assert()
            .success();
        let conn = rusqlite::Connection::open(&db).unwrap();
        let ours: Vec<i64> = conn
            .prepare("SELECT EquivalenceID FROM AnonRecordTable ORDER BY RecordID")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        let qit = std::fs::read_to_string(
            census.join(format!("reference/Datafly_anatomy_k{k}_QIT.data")),
        )
        .unwrap();
        let theirs: Vec<i64> = qit
            .lines()
            .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(ours, theirs, "k = {k}");
    }
}
