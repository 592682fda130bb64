//! The report's risk analysis (`risk_analysis`) against ARX 3.9.2's risk estimator on ADULT
//! (`reference/arx-adult-risk-report.jsonl`: the runner's `--risk-report` of the input and of
//! the optimum's output), every figure within 1e-9; and `-population`'s errors.

use serde_json::Value;

use crate::common;

fn rows() -> Vec<Value> {
    std::fs::read_to_string(common::data("reference/arx-adult-risk-report.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn near(got: &Value, want: &Value, what: &str) {
    let (g, w) = (got.as_f64().unwrap(), want.as_f64().unwrap());
    assert!(
        (g - w).abs() <= 1e-9 * w.abs().max(1e-300) || (g - w).abs() <= 1e-15,
        "{what}: anonbox {g}, ARX {w}"
    );
}

/// One side (input or release) of the analysis against ARX's.
fn compare(got: &Value, arx: &Value, side: &str) {
    for model in ["prosecutor", "journalist"] {
        for f in ["highest", "average", "records_at_risk"] {
            near(
                &got[model][f],
                &arx[model][f],
                &format!("{side} {model} {f}"),
            );
        }
    }
    near(
        &got["marketer"],
        &arx["marketer"]["average"],
        &format!("{side} marketer"),
    );
    near(
        &got["sample_uniqueness"],
        &arx["sample_uniqueness"],
        &format!("{side} uniqueness"),
    );
    assert_eq!(
        got["sample_uniques"].as_f64(),
        arx["sample_uniques"].as_f64(),
        "{side}"
    );
    let pu = &arx["population_uniqueness"];
    assert_eq!(got["records"].as_f64(), pu["records"].as_f64(), "{side}");
    assert_eq!(got["classes"].as_f64(), pu["classes"].as_f64(), "{side}");
    near(
        &got["sampling_fraction"],
        &pu["sampling_fraction"],
        &format!("{side} fraction"),
    );
    for m in ["pitman", "zayatz", "snb", "dankar"] {
        let e = &got["population_uniques"][m];
        near(&e["share"], &pu[m], &format!("{side} {m}"));
        near(
            &e["uniques"],
            &pu[format!("{m}_uniques")],
            &format!("{side} {m} uniques"),
        );
        if m != "dankar" {
            assert_eq!(e["available"], pu[format!("{m}_available")], "{side} {m}");
        }
    }
    assert_eq!(
        got["population_uniques"]["dankar_model"], pu["dankar_model"],
        "{side} Dankar's pick"
    );
}

#[test]
fn risk_analysis_matches_arx_on_input_and_release() {
    let dir = tempfile::tempdir().unwrap();
    let config = std::fs::canonicalize(common::data("../../configs/adult.xml")).unwrap();
    for row in rows() {
        let arx = &row["risk_report"];
        let pop = arx["population_model"].as_str().unwrap().to_string();
        let (k, s) = (row["k"].to_string(), row["suppression_limit"].to_string());
        let out = common::anonbox(
            dir.path(),
            &[
                "-config",
                config.to_str().unwrap(),
                "-method",
                "Flash",
                "-k",
                &k,
                "-suppression",
                &s,
                "-metric",
                "Loss",
                "-population",
                &pop,
                "-quiet",
                "-output",
                "o.csv",
                "-report",
                "r.json",
            ],
        );
        assert!(out.status.success(), "{out:?}");
        let r: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("r.json")).unwrap()).unwrap();
        assert_eq!(r["transformation"], row["transformation"], "k {k} s {s}");
        let got = &r["risk_analysis"];
        assert_eq!(
            got["population"]["size"].as_u64(),
            arx["population_size"].as_u64()
        );
        assert_eq!(got["threshold"].as_f64(), arx["risk_threshold"].as_f64());
        compare(
            &got["input"],
            &arx["input"],
            &format!("k {k} s {s} {pop} input"),
        );
        compare(
            &got["release"],
            &arx["output"],
            &format!("k {k} s {s} {pop} release"),
        );

        // `anonbox audit` of the input and of the release gives the same figures.
        let qi = row["quasi_identifiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(",");
        let input = common::data("adult/adult.csv");
        let release = dir.path().join("o.csv");
        for (file, side) in [(&input, "input"), (&release, "output")] {
            let mut out = Vec::new();
            let args: Vec<String> = [
                file.to_str().unwrap(),
                "--separator",
                ";",
                "--qi",
                &qi,
                "--population",
                &pop,
                "--json",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            anonbox::cmd::audit::run(&args, &mut out).unwrap();
            let v: Value = serde_json::from_slice(&out).unwrap();
            compare(
                &v["risk_analysis"],
                &arx[side],
                &format!("audit {side} k {k} {pop}"),
            );
        }
    }
}

#[test]
fn population_flag_is_checked_before_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = common::anonbox(
        dir.path(),
        &[
            "-input",
            "missing.csv",
            "-k",
            "2",
            "-population",
            "atlantis",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("-population: population 'atlantis'"), "{err}");
}

/// The HTML report shows the risk analysis, input beside release, each cell carrying the JSON
/// report's exact value; an estimate that did not converge shows as none.
#[test]
fn html_report_shows_the_risk_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let config = std::fs::canonicalize(common::data("../../configs/adult.xml")).unwrap();
    let run = |report: &str| {
        let out = common::anonbox(
            dir.path(),
            &[
                "-config",
                config.to_str().unwrap(),
                "-method",
                "Flash",
                "-k",
                "2",
                "-population",
                "100000",
                "-quiet",
                "-output",
                "o.csv",
                "-report",
                report,
            ],
        );
        assert!(out.status.success(), "{out:?}");
        std::fs::read_to_string(dir.path().join(report)).unwrap()
    };
    let json: Value = serde_json::from_str(&run("r.json")).unwrap();
    let html = run("r.html");
    assert!(html.contains("<h2 id=\"risk-analysis\">Risk analysis</h2>"));
    assert!(html.contains("Population: 100000 (100000 people)"));
    for (side, key) in [
        ("input", "prosecutor/highest"),
        ("input", "population_uniques/pitman/share"),
        ("input", "population_uniques/zayatz/share"),
        ("release", "marketer"),
        ("release", "classes"),
    ] {
        let v = json
            .pointer(&format!("/risk_analysis/{side}/{key}"))
            .unwrap();
        let cell = format!(
            "data-key=\"risk_analysis.{side}.{}\" data-value=\"{v}\"",
            key.replace('/', ".")
        );
        assert!(html.contains(&cell), "{cell}");
    }
    // SNB has no estimate on ADULT's input at this population: no cell value.
    assert_eq!(
        json["risk_analysis"]["input"]["population_uniques"]["snb"]["available"],
        false
    );
    assert!(!html.contains("data-key=\"risk_analysis.input.population_uniques.snb.share\""));
}
