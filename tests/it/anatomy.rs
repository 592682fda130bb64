//! Anatomy end to end: it works (the toolbox's always fails), and its files prove it by
//! themselves: every group holds at least l distinct sensitive values, and every input record
//! appears exactly once in the QIT and once in the ST.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common;
use crate::utd_methods::lines;

fn census() -> PathBuf {
    common::data("census-income-1k")
}

fn anonbox() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_anonbox"));
    // The toolbox's console lines are compared with the reference's.
    cmd.arg("-verbose");
    cmd.current_dir(census());
    cmd
}

/// The sample's kept records.
fn records() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(census().join("Input/census-income_1K.data")).unwrap();
    text.split("\r\n")
        .filter(|l| !l.is_empty() && !l.contains('?'))
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

/// Reads a QIT/ST pair and checks it against the input using only the files' contents:
/// - both files have one line per input record;
/// - QIT line i is input record i's quasi-identifiers (as the toolbox prints them: numbers as
///   Java doubles, sex as its mapped 0/1) and its group id;
/// - the ST is grouped by id (in no relation to the QIT's order: anonbox unlinks the pair), and
///   each group's ST rows are exactly the published fields of the records the QIT puts in it,
///   so every record appears exactly once in each file;
/// - every group holds at least `l` distinct values of the sensitive column.
///
/// Returns the groups' sensitive values by id.
fn check_anatomy(
    qit: &Path,
    st: &Path,
    qid_cols: &[usize],
    sens_col: usize,
    l: usize,
) -> HashMap<String, Vec<String>> {
    let input = records();
    let (q, s) = (lines(qit, ","), lines(st, ","));
    assert_eq!(q.len(), input.len(), "QIT: one line per record");
    assert_eq!(s.len(), input.len(), "ST: one line per record");
    let ids = [1usize, 2];
    let published: Vec<usize> = (0..input[0].len())
        .filter(|c| !qid_cols.contains(c) && !ids.contains(c))
        .collect();
    let sens_st = 1 + published.iter().position(|&c| c == sens_col).unwrap();
    let number = |v: &str| -> f64 {
        match v.trim() {
            "Female" => 0.0,
            "Male" => 1.0,
            t => t.parse().unwrap(),
        }
    };
    let group_ids: Vec<u64> = s.iter().map(|l| l[0].parse().unwrap()).collect();
    assert!(
        group_ids.windows(2).all(|w| w[0] <= w[1]),
        "ST grouped by id"
    );
    let mut st_rows: HashMap<String, Vec<Vec<String>>> = HashMap::new();
    for sl in &s {
        st_rows
            .entry(sl[0].clone())
            .or_default()
            .push(sl[1..].to_vec());
    }
    let mut members: HashMap<String, Vec<Vec<String>>> = HashMap::new();
    for (i, (ql, rec)) in q.iter().zip(&input).enumerate() {
        let eid = ql.last().unwrap().clone();
        assert!(eid.parse::<u64>().unwrap() >= 1);
        for (j, &c) in qid_cols.iter().enumerate() {
            assert_eq!(number(&ql[j]), number(&rec[c]), "QIT line {}", i + 1);
        }
        members
            .entry(eid)
            .or_default()
            .push(published.iter().map(|&c| rec[c].clone()).collect());
    }
    assert_eq!(
        members.len(),
        st_rows.len(),
        "the same groups in both files"
    );
    let mut groups: HashMap<String, Vec<String>> = HashMap::new();
    for (eid, mut want) in members {
        let mut got = st_rows.remove(&eid).unwrap_or_default();
        want.sort();
        got.sort();
        assert!(
            got == want,
            "group {eid}: its ST rows are not its records' fields"
        );
        let values: Vec<String> = got.iter().map(|r| r[sens_st - 1].clone()).collect();
        let mut distinct = values.clone();
        distinct.sort();
        distinct.dedup();
        assert!(
            distinct.len() >= l,
            "group {eid}: {} distinct values {distinct:?}, l = {l}",
            distinct.len()
        );
        groups.insert(eid, values);
    }
    groups
}

fn run(args: &[&str], target: &Path) -> String {
    let out = anonbox()
        .args(args)
        .arg("-output")
        .arg(target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn pair(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{name}_QIT.data")),
        dir.join(format!("{name}_ST.data")),
    )
}

/// The acceptance run: education (column 4, 17 values) sensitive, l = 2, 3, 4.
#[test]
fn education_groups_are_l_diverse() {
    let dir = tempfile::tempdir().unwrap();
    for l in [2usize, 3, 4] {
        let name = format!("edu{l}");
        run(
            &["-config", "config-education.xml", "-l", &l.to_string()],
            &dir.path().join(format!("{name}.data")),
        );
        let (qit, st) = pair(dir.path(), &name);
        let groups = check_anatomy(&qit, &st, &[12, 0], 4, l);
        // Groups hold l records each, plus fewer than l residue records spread over them.
        let sizes: usize = groups.values().map(Vec::len).sum();
        assert_eq!(sizes, records().len());
        assert!(groups.len() >= records().len() / l - 1 && groups.len() <= records().len() / l);
    }
}

/// The checker itself fails on a group with too few values and on a missing record.
#[test]
#[should_panic(expected = "distinct values")]
fn checker_catches_a_group_without_l_values() {
    let dir = tempfile::tempdir().unwrap();
    run(
        &["-config", "config-education.xml", "-l", "2"],
        &dir.path().join("x.data"),
    );
    let (qit, st) = pair(dir.path(), "x");
    // Demanding more diversity than the run was asked for must fail.
    check_anatomy(&qit, &st, &[12, 0], 4, 5);
}

#[test]
#[should_panic(expected = "its ST rows are not its records' fields")]
fn checker_catches_a_duplicated_record() {
    let dir = tempfile::tempdir().unwrap();
    run(
        &["-config", "config-education.xml", "-l", "2"],
        &dir.path().join("x.data"),
    );
    let (qit, st) = pair(dir.path(), "x");
    // A record's published fields twice, another's missing.
    let mut l: Vec<String> = std::fs::read_to_string(&st)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    l[1] = l[0].clone();
    std::fs::write(&st, l.join("\n") + "\n").unwrap();
    check_anatomy(&qit, &st, &[12, 0], 4, 2);
}

/// The seed decides the grouping: the same seed gives the same files, another seed others.
#[test]
fn seeded_and_reproducible() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, seed) in [("a", None), ("b", Some("3345")), ("c", Some("7"))] {
        let mut args = vec!["-config", "config-education.xml", "-l", "3"];
        if let Some(s) = seed {
            args.extend(["-seed", s]);
        }
        run(&args, &dir.path().join(format!("{name}.data")));
        let (qit, st) = pair(dir.path(), name);
        check_anatomy(&qit, &st, &[12, 0], 4, 3);
        files.push((std::fs::read(&qit).unwrap(), std::fs::read(&st).unwrap()));
    }
    assert!(files[0] == files[1], "default seed is 3345");
    assert!(files[0] != files[2], "another seed, another grouping");
}

/// A rational l is refused (exit 2, nothing written): Anatomy enforces distinct l-diversity,
/// a count of distinct values, and the toolbox's rounding to the nearest took 2.4 for 2.
#[test]
fn rational_l_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for l in ["2.5", "2.4"] {
        let out = anonbox()
            .args(["-config", "config-education.xml", "-l", l, "-output"])
            .arg(dir.path().join("r.data"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(
            stderr.trim_end(),
            format!(
                "anonbox: -l: distinct l-diversity needs a whole number l (got {l}): it counts \
                     distinct values (ARX takes a whole number; the toolbox rounded a fractional \
                     one to the nearest, 2.4 to 2)"
            )
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// A numeric sensitive attribute (no map): age, with sex and education as quasi-identifiers.
#[test]
fn numeric_sensitive_attribute() {
    let dir = tempfile::tempdir().unwrap();
    let config = std::fs::read_to_string(census().join("config-education.xml")).unwrap();
    // Swap roles: education becomes a quasi-identifier... simpler: keep sex, drop age from the
    // quasi-identifiers and make it the sensitive attribute.
    let start = config.find("    <att index=\"0\"").unwrap();
    let end = start + config[start..].find("</att>").unwrap() + "</att>\n".len();
    let mut c = config.clone();
    c.replace_range(start..end, "");
    let s0 = c.find("<sens>").unwrap();
    let s1 = c.find("</sens>").unwrap();
    c.replace_range(s0..s1, "<sens><att index=\"0\"/>");
    let input = census().join("Input/census-income_1K.data");
    let c = c.replace(
        "filename=\"Input/census-income_1K.data\"",
        &format!("filename=\"{}\"", input.display()),
    );
    let cfg = dir.path().join("age.xml");
    std::fs::write(&cfg, c).unwrap();
    for l in ["2", "5"] {
        let target = dir.path().join(format!("age{l}.data"));
        let out = anonbox()
            .args(["-config", cfg.to_str().unwrap(), "-l", l, "-output"])
            .arg(&target)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let (qit, st) = pair(dir.path(), &format!("age{l}"));
        check_anatomy(&qit, &st, &[12], 0, l.parse().unwrap());
    }
}

/// Without a dot in the output path, the files are NAME_QIT and NAME_ST.
#[test]
fn output_without_a_dot() {
    // (A dot in a folder name would count: the toolbox splits the whole path at its last dot.)
    let dir = tempfile::Builder::new()
        .prefix("anatomy")
        .tempdir()
        .unwrap();
    assert!(!dir.path().to_string_lossy().contains('.'));
    run(
        &["-config", "config-education.xml", "-l", "2"],
        &dir.path().join("plain"),
    );
    assert_eq!(
        crate::common::files_in(dir.path()),
        ["plain_QIT", "plain_ST"]
    );
}

/// The eligibility errors leave nothing behind, also for a table that is large enough.
#[test]
fn ineligible_tables_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    for (l, message) in [
        (
            "5",
            "Anatomy: the table is not eligible for distinct 5-diversity",
        ),
        ("18", "Anatomy: distinct 18-diversity cannot be satisfied"),
    ] {
        let out = anonbox()
            .args(["-config", "config-education.xml", "-l", l, "-output"])
            .arg(dir.path().join("x.data"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(&format!("anonbox: {message}")),
            "{stderr}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// Regression (found by `protection`): of two distinct l-diversity models in `<privacy>`,
/// Anatomy enforces the larger l (it took the last one's, releasing groups of 2 values where
/// the first asked for 4).
#[test]
fn anatomy_enforces_the_largest_distinct_l_of_privacy() {
    let dir = tempfile::tempdir().unwrap();
    let census = common::data("census-income-1k");
    let config = std::fs::read_to_string(census.join("config-education.xml"))
        .unwrap()
        .replace(
            "filename=\"Input/",
            &format!("filename=\"{}/Input/", census.display()),
        )
        .replace(
            "</config>",
            "<privacy><distinct-l-diversity l=\"4\"/><distinct-l-diversity l=\"2\"/></privacy>\
             </config>",
        );
    let path = dir.path().join("config.xml");
    std::fs::write(&path, config).unwrap();
    run(
        &["-config", path.to_str().unwrap()],
        &dir.path().join("r.data"),
    );
    let (qit, st) = pair(dir.path(), "r");
    check_anatomy(&qit, &st, &[12, 0], 4, 4);
}
