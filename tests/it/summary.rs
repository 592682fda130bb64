//! The end-of-run summary (stderr) and the risk figures of the JSON report, re-checked against
//! the output file by an independent computation here (grouping the released rows).

use std::collections::HashMap;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::{adult_attributes_but, workdir, ADULT_ATTRIBUTES};

/// Class sizes of a ';'-separated file with a header over `qis`, rows whose quasi-identifiers
/// are all `*` left out.
fn sizes(path: &Path, qis: &[&str]) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').map(str::trim).collect();
    let cols: Vec<usize> = qis
        .iter()
        .map(|q| header.iter().position(|h| h == q).unwrap())
        .collect();
    let mut classes: HashMap<Vec<String>, u64> = HashMap::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(';').map(str::trim).collect();
        let key: Vec<String> = cols.iter().map(|&c| f[c].to_string()).collect();
        if key.iter().all(|v| v == "*") {
            continue;
        }
        *classes.entry(key).or_insert(0) += 1;
    }
    classes.into_values().collect()
}

fn close(v: &Value, want: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((got - want).abs() < 1e-12, "got {got}, want {want}");
}

/// The report's risk against sizes computed here: highest 1/min, average classes/records,
/// share above 0.2.
fn check_risk(risk: &Value, sizes: &[u64]) {
    let records: u64 = sizes.iter().sum();
    assert_eq!(risk["model"], "prosecutor");
    close(&risk["threshold"], 0.2);
    close(&risk["highest"], 1.0 / *sizes.iter().min().unwrap() as f64);
    close(&risk["average"], sizes.len() as f64 / records as f64);
    let over: u64 = sizes.iter().filter(|&&n| 1.0 / n as f64 > 0.2).sum();
    close(&risk["records_at_risk"], over as f64 / records as f64);
}

/// The number after `label` in the summary line `label  ...`, up to `end`.
fn figure(summary: &str, line: &str, after: &str) -> f64 {
    let l = summary
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{line}  ")))
        .unwrap_or_else(|| panic!("no line '{line}' in\n{summary}"));
    let l = &l.trim_start()[line.len() + 2..];
    let rest = &l[l.find(after).unwrap_or_else(|| panic!("{l}")) + after.len()..];
    let end = rest.find([',', ' ', '%', '(']).unwrap_or(rest.len());
    rest[..end].parse().unwrap_or_else(|e| panic!("{e}: {l}"))
}

/// Runs `args` in `dir` with `-output out.csv -report r.json`: (stderr, report).
fn run(dir: &Path, args: &[&str]) -> (String, Value) {
    let out = Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .args(["-output", "out.csv", "-report", "r.json"])
        .assert()
        .success()
        .get_output()
        .clone();
    // Without -verbose, no console lines (Incognito printed 12,889 on ADULT).
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.join("r.json")).unwrap()).unwrap();
    (String::from_utf8(out.stderr).unwrap(), report)
}

/// A figure as the summary shows it for reading (four significant digits, whole numbers from
/// 1,000 on) stands for `want`.
fn reads(got: f64, want: f64, what: &str) {
    let tolerance = if want.abs() >= 1000.0 {
        0.5
    } else {
        5e-4 * want.abs()
    };
    assert!((got - want).abs() <= tolerance, "{what}: {got} for {want}");
}

/// The summary's figures are the report's, rounded for reading.
fn check_summary(summary: &str, r: &Value) {
    assert!(summary.contains(&format!(
        "anonbox: {} finished in ",
        r["method"].as_str().unwrap()
    )));
    let records = r["records"].as_u64().unwrap();
    let suppressed = r["suppressed_records"].as_u64().unwrap();
    assert_eq!(
        figure(summary, "records", ""),
        r["rows_read"].as_f64().unwrap()
    );
    assert_eq!(
        figure(summary, "records", "anonymized, ") as u64,
        records - suppressed
    );
    assert_eq!(figure(summary, "records", "released, ") as u64, suppressed);
    assert_eq!(
        figure(summary, "classes", ""),
        r["equivalence_classes"].as_f64().unwrap()
    );
    reads(
        figure(summary, "risk", "highest "),
        r["risk"]["highest"].as_f64().unwrap(),
        "highest",
    );
    reads(
        figure(summary, "risk", "average "),
        r["risk"]["average"].as_f64().unwrap(),
        "average",
    );
    if let Some(loss) = r["information_loss"].as_f64() {
        reads(figure(summary, "loss", ""), loss, "loss");
    }
    let u = &r["utility"];
    reads(
        figure(summary, "utility", "discernibility "),
        u["discernibility"].as_f64().unwrap(),
        "discernibility",
    );
    reads(
        figure(summary, "utility", "average class size "),
        u["average_class_size"].as_f64().unwrap(),
        "average class size",
    );
    for m in ["Loss", "AECS", "Entropy"] {
        if let Some(v) = u[m].as_f64() {
            reads(figure(summary, "metrics", &format!("{m} ")), v, m);
        }
    }
    // No figure in scientific notation, none with more than four significant digits below
    // 1,000 (the summary once printed 0.010334029227557412).
    for word in summary.split([' ', ',', '(', ')']) {
        if let Ok(x) = word.parse::<f64>() {
            assert!(!word.contains(['e', 'E']), "{word}");
            let digits = word.trim_start_matches(['-', '0', '.']).replace('.', "");
            assert!(
                x.abs() >= 1000.0 || digits.len() <= 4,
                "{word} in\n{summary}"
            );
        }
    }
    if let Some(levels) = r["transformation"].as_array() {
        let want: Vec<String> = r["quasi_identifiers"]
            .as_array()
            .unwrap()
            .iter()
            .zip(levels)
            .map(|(q, l)| format!("{} {l}", q.as_str().unwrap()))
            .collect();
        assert!(
            summary.contains(&format!("transform  {}", want.join(", "))),
            "{summary}"
        );
    }
}

#[test]
fn flash_summary_and_risk_match_the_output() {
    let dir = workdir("adult-occupation.xml");
    let (summary, r) = run(dir.path(), &["-config", "configs/adult-occupation.xml"]);
    check_summary(&summary, &r);
    let qis = adult_attributes_but("occupation");
    let out = sizes(&dir.path().join("out.csv"), &qis);
    assert_eq!(out.len() as u64, r["equivalence_classes"].as_u64().unwrap());
    check_risk(&r["risk"], &out);
    let input = sizes(&dir.path().join("tests/data/adult/adult.csv"), &qis);
    check_risk(&r["risk_input"], &input);
    // The risk went down, and no record of the release lies above 1/k.
    assert!(r["risk"]["highest"].as_f64().unwrap() <= 0.2);
    assert!(r["risk_input"]["highest"].as_f64().unwrap() == 1.0);
}

#[test]
fn toolbox_methods_summary_and_risk_match_the_output() {
    let all = ADULT_ATTRIBUTES;
    for method in ["Datafly", "Incognito_K"] {
        let dir = workdir("adult.xml");
        let (summary, r) = run(
            dir.path(),
            &["-config", "configs/adult.xml", "-method", method, "-k", "5"],
        );
        check_summary(&summary, &r);
        let out = sizes(&dir.path().join("out.csv"), &all);
        assert_eq!(
            out.len() as u64,
            r["equivalence_classes"].as_u64().unwrap(),
            "{method}"
        );
        check_risk(&r["risk"], &out);
        let input = sizes(&dir.path().join("tests/data/adult/adult.csv"), &all);
        check_risk(&r["risk_input"], &input);
    }
}

#[test]
fn quiet_prints_no_summary() {
    let dir = workdir("adult.xml");
    let out = Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "-config",
            "configs/adult.xml",
            "-output",
            "out.csv",
            "-quiet",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("finished in"));
}

/// Column names and values come from the data: the summary, `anonbox plan` and `anonbox audit`
/// print them escaped (a line break as `\n`, an escape character as `\u{1b}`), so that each
/// figure stays on its line and no control sequence from a file reaches the terminal (they were
/// printed raw: a value with a line break split the audit's list of smallest classes, and a
/// header with `ESC [31m` coloured the terminal).
#[test]
fn names_and_values_from_the_data_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.csv"),
        "id,no\x1b[31mte,sex\n1,\"a\nb\",F\n2,\"c\x1b[31mRED\",M\n3,x,F\n4,y,F\n5,z,M\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("c.xml"),
        r#"<config method="Flash" k="1">
  <input filename="in.csv" separator="," header="true"/>
  <output filename="out.csv"/>
  <qid><att index="1"><categories/></att><att index="2"><categories/></att></qid>
</config>"#,
    )
    .unwrap();
    let clean = |what: &str, text: &[u8], lines: usize| {
        let text = String::from_utf8_lossy(text);
        assert!(!text.contains('\x1b'), "{what}: raw escape in\n{text}");
        assert_eq!(text.lines().count(), lines, "{what}:\n{text}");
        text.into_owned()
    };
    let run = crate::common::anonbox(dir.path(), &["-config", "c.xml", "-k", "2"]);
    assert!(run.status.success(), "{run:?}");
    // With the verdict: the model, the suppression, the proof, the removed attribute.
    let summary = clean("summary", &run.stderr, 15);
    assert!(
        summary.contains("transform  no\\u{1b}[31mte 1, sex 0"),
        "{summary}"
    );
    let plan = crate::common::anonbox(dir.path(), &["plan", "-config", "c.xml"]);
    assert!(plan.status.success(), "{plan:?}");
    let plan = String::from_utf8_lossy(&plan.stdout).into_owned();
    let line = plan
        .lines()
        .find(|l| l.contains("no\\u{1b}[31mte"))
        .unwrap();
    assert!(line.ends_with("a\\nb -> *"), "{plan}");
    assert!(!plan.contains('\x1b'), "{plan}");
    let audit =
        crate::common::anonbox(dir.path(), &["audit", "in.csv", "--qi", "no\x1b[31mte,sex"]);
    assert!(audit.status.success(), "{audit:?}");
    // (14 lines of figures, 8 of the risk analysis: population, journalist, marketer, sample
    // uniques, the four estimates; 3 of attribute risk: its heading and a line a column)
    let audit = clean("audit", &audit.stdout, 25);
    assert!(audit.contains("\n  no\\u{1b}[31mte   "), "{audit}");
    assert!(
        audit.contains("quasi-identifiers     no\\u{1b}[31mte, sex\n"),
        "{audit}"
    );
    assert!(audit.contains("  a\\nb, F\n"), "{audit}");
    assert!(audit.contains("  c\\u{1b}[31mRED, M\n"), "{audit}");
}
