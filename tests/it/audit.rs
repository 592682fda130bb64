//! `anonbox audit`: figures computed by hand on small files, exit codes, bad input, and ADULT
//! figures cross-checked with an independent computation.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::common;

/// Writes `files` (name, content) into a fresh directory.
fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    dir
}

fn audit(dir: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(dir)
        .arg("audit")
        .args(args)
        .assert()
}

fn json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = args.to_vec();
    all.push("--json");
    let out = audit(dir, &all).get_output().clone();
    let code = out.status.code().unwrap();
    let v: Value = strict_json(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (code, v)
}

/// Parses JSON, failing on a key repeated in one object (serde_json's `Value` keeps the last).
fn strict_json(bytes: &[u8]) -> serde_json::Result<Value> {
    use serde::de::{Deserialize, Deserializer, Error, MapAccess, SeqAccess, Visitor};
    struct Strict(Value);
    impl<'de> Deserialize<'de> for Strict {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Strict;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("JSON")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Strict, A::Error> {
                    let mut map = serde_json::Map::new();
                    while let Some((k, Strict(v))) = m.next_entry::<String, Strict>()? {
                        if map.insert(k.clone(), v).is_some() {
                            return Err(A::Error::custom(format!("duplicate key '{k}'")));
                        }
                    }
                    Ok(Strict(Value::Object(map)))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Strict, A::Error> {
                    let mut v = Vec::new();
                    while let Some(Strict(x)) = s.next_element::<Strict>()? {
                        v.push(x);
                    }
                    Ok(Strict(Value::Array(v)))
                }
                fn visit_bool<E: Error>(self, b: bool) -> Result<Strict, E> {
                    Ok(Strict(Value::Bool(b)))
                }
                fn visit_u64<E: Error>(self, n: u64) -> Result<Strict, E> {
                    Ok(Strict(n.into()))
                }
                fn visit_i64<E: Error>(self, n: i64) -> Result<Strict, E> {
                    Ok(Strict(n.into()))
                }
                fn visit_f64<E: Error>(self, n: f64) -> Result<Strict, E> {
                    Ok(Strict(
                        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
                    ))
                }
                fn visit_str<E: Error>(self, s: &str) -> Result<Strict, E> {
                    Ok(Strict(Value::String(s.to_string())))
                }
                fn visit_unit<E: Error>(self) -> Result<Strict, E> {
                    Ok(Strict(Value::Null))
                }
            }
            d.deserialize_any(V)
        }
    }
    serde_json::from_slice::<Strict>(bytes).map(|s| s.0)
}

#[test]
fn strict_json_rejects_a_repeated_key() {
    assert!(strict_json(br#"{"a": 1, "b": {"c": [1, 2.5, null, "x"]}}"#).is_ok());
    let e = strict_json(br#"{"a": 1, "b": {"a": 2, "a": 3}}"#).unwrap_err();
    assert!(e.to_string().contains("duplicate key 'a'"), "{e}");
}

/// Prosecutor risk by hand on CLINIC: classes of 3, 4 and 1 records (the suppressed record left
/// out): highest 1/1, average 3 classes / 8 records; above 0.2 every class (1/3, 1/4, 1): 8/8;
/// above 0.3 the classes of 3 and 1: 4/8.
#[test]
fn prosecutor_risk_by_hand() {
    let dir = dir_with(&[("c.csv", CLINIC)]);
    let (code, v) = json(
        dir.path(),
        &["c.csv", "--qi", "zip,age", "--sensitive", "disease"],
    );
    assert_eq!(code, 0);
    let r = &v["risk"];
    assert_eq!(r["model"], "prosecutor");
    close(&r["highest"], 1.0);
    close(&r["average"], 3.0 / 8.0);
    close(&r["records_at_risk"], 1.0);
    close(&r["threshold"], 0.2);
    assert_eq!(v["sensitive"]["attribute"], "disease");
    let (_, v) = json(
        dir.path(),
        &["c.csv", "--qi", "zip,age", "--risk-threshold", "0.3"],
    );
    close(&v["risk"]["records_at_risk"], 0.5);
    close(&v["risk"]["threshold"], 0.3);
}

fn close(v: &Value, want: f64) {
    let got = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((got - want).abs() < 1e-12, "got {got}, want {want}");
}

/// Classes over (zip, age): (130,20) flu flu cold; (130,30) flu cancer cold cold; (140,30)
/// cancer; one suppressed record (cold). Table: flu 3, cold 4, cancer 2 of 9.
const CLINIC: &str = "zip,age,disease,flag
130,20,flu,1
130,20,flu,0
130,30,flu,0
130,20,cold,1
130,30,cancer,1
130,30,cold,0
130,30,cold,1
140,30,cancer,0
*,*,cold,0
";

const DISEASES: &str = "flu;respiratory;*\ncold;respiratory;*\ncancer;other;*\n";

#[test]
fn figures_by_hand() {
    let d = dir_with(&[("clinic.csv", CLINIC), ("disease.csv", DISEASES)]);
    let (code, v) = json(
        d.path(),
        &[
            "clinic.csv",
            "--qi",
            "zip,age",
            "--sensitive",
            "disease",
            "--hierarchy",
            "disease.csv",
            "-c",
            "2",
            "--subset-column",
            "flag",
            "--smallest",
            "2",
        ],
    );
    assert_eq!(code, 0, "no threshold asked: holds");
    assert_eq!(v["records"], 9);
    assert_eq!(v["suppressed"], 1);
    assert_eq!(v["classes"], 3);
    assert_eq!(v["k"], 1);
    close(&v["average_class_size"], 8.0 / 3.0);
    assert_eq!(v["smallest"][0]["size"], 1);
    assert_eq!(v["smallest"][0]["values"], serde_json::json!(["140", "30"]));
    assert_eq!(v["smallest"][1]["size"], 3);
    assert_eq!(v["smallest"][1]["values"], serde_json::json!(["130", "20"]));
    assert_eq!(v["smallest"].as_array().unwrap().len(), 2);
    // At risk: classes smaller than 2 (the default): 1 record of 9.
    assert_eq!(v["risk"]["k"], 2);
    assert_eq!(v["risk"]["records"], 1);
    close(&v["risk"]["share"], 1.0 / 9.0);
    let s = &v["sensitive"];
    assert_eq!(s["attribute"], "disease");
    assert_eq!(s["values"], 3);
    assert_eq!(s["distinct_l"], 1);
    close(&s["entropy_l"], 1.0);
    // Recursive l, c = 2: {flu 2, cold 1} l=2: 2 < 2·1 fails -> 1; {cancer}: 1 < 2·1 -> 1;
    // {cold 2, flu 1, cancer 1}: l=2 2 < 4, l=3 2 < 2 fails -> 2. Minimum 1.
    assert_eq!(s["recursive"]["l"], 1);
    // Equal: {cancer} vs (3/9 flu, 4/9 cold, 2/9 cancer): ½(3/9 + 4/9 + 7/9) = 7/9.
    close(&s["t_equal"], 7.0 / 9.0);
    // Hierarchical: {cancer} moves 7/9 across the root: 7/9 (the others: 5/18 and 1/18).
    close(&s["t_hierarchical"], 7.0 / 9.0);
    assert!(s.get("t_ordered").is_none(), "not numeric");
    // δ: (130,20) 2/3, (130,30) 2/4, (140,30) 0.
    assert_eq!(v["delta"]["subset_records"], 4);
    close(&v["delta"]["min"], 0.0);
    close(&v["delta"]["max"], 2.0 / 3.0);
}

#[test]
fn hierarchical_distance_without_the_outlier() {
    // Without the (140,30) record the table is flu 3, cold 4, cancer 1 of 8. (130,20): flu +7/24,
    // cold -4/24, cancer -3/24: 4/24 moves within respiratory (cost 1/2), 3/24 across the root:
    // 2/24 + 3/24 = 5/24. (130,30): 1/8 across the root. Max 5/24.
    let body: String = CLINIC
        .lines()
        .filter(|l| !l.starts_with("140"))
        .collect::<Vec<_>>()
        .join("\n");
    let d = dir_with(&[("c.csv", &body), ("h.csv", DISEASES)]);
    let (_, v) = json(
        d.path(),
        &[
            "c.csv",
            "--qi",
            "zip,age",
            "--sensitive",
            "disease",
            "--hierarchy",
            "h.csv",
        ],
    );
    close(&v["sensitive"]["t_hierarchical"], 5.0 / 24.0);
    // Equal: (130,20) ½(|2/3-3/8| + |1/3-4/8| + |0-1/8|) = ½(7/24 + 4/24 + 3/24) = 7/24.
    close(&v["sensitive"]["t_equal"], 7.0 / 24.0);
}

#[test]
fn ordered_distance_for_numbers() {
    // Table 1,1,2,3,2,3 -> (1/3, 1/3, 1/3). Class a (2/3, 1/3, 0): cum 1/3, 1/3, 0 -> 2/3 / 2.
    let d = dir_with(&[("n.csv", "g;v\na;1\na;1\na;2\nb;3\nb;2\nb;3\n")]);
    let (code, v) = json(
        d.path(),
        &[
            "n.csv",
            "--separator",
            ";",
            "--qi",
            "g",
            "--sensitive",
            "v",
            "-t",
            "0.34",
            "--distance",
            "ordered",
        ],
    );
    close(&v["sensitive"]["t_ordered"], 1.0 / 3.0);
    close(&v["sensitive"]["t_equal"], 1.0 / 3.0);
    assert_eq!(code, 0);
    assert_eq!(v["checks"][0]["model"], "0.34-closeness (ordered distance)");
    let (code, v) = json(
        d.path(),
        &[
            "n.csv",
            "--separator",
            ";",
            "--qi",
            "g",
            "--sensitive",
            "v",
            "-t",
            "0.3",
            "--distance",
            "ordered",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(v["checks"][0]["failing_classes"], 2);
    assert_eq!(v["holds"], false);
}

#[test]
fn exit_codes_follow_the_thresholds() {
    let d = dir_with(&[("clinic.csv", CLINIC)]);
    let base = ["clinic.csv", "--qi", "zip,age", "--sensitive", "disease"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let run = |extra: &[&str]| {
        let args = with(extra);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        json(d.path(), &args)
    };
    let (code, v) = run(&["-k", "1", "-l", "1", "-t", "0.8"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["holds"], true);
    let (code, v) = run(&["-k", "2", "-t", "0.8"]);
    assert_eq!(code, 1);
    assert_eq!(v["checks"][0]["model"], "2-anonymity");
    assert_eq!(v["checks"][0]["failing_records"], 1);
    assert_eq!(v["checks"][1]["holds"], true);
    // t = 7/9 exactly is allowed; a hair below is not.
    assert_eq!(run(&["-t", "0.7777777777777778"]).0, 0);
    assert_eq!(run(&["-t", "0.7777"]).0, 1);
    // Entropy 2-diversity: (130,20) H = 0.6365 < ln 2 and {cancer} fail (4 records).
    let (code, v) = run(&["--entropy-l", "2"]);
    assert_eq!(code, 1);
    assert_eq!(v["checks"][0]["failing_classes"], 2);
    assert_eq!(v["checks"][0]["failing_records"], 4);
    // Recursive (2,2): only (130,30) passes.
    let (_, v) = run(&["-l", "2", "-c", "2"]);
    assert_eq!(v["checks"][1]["model"], "recursive (2,2)-diversity");
    assert_eq!(v["checks"][1]["failing_records"], 4);
    // Records at risk: 1 of 9 = 11.1%.
    assert_eq!(run(&["--max-risk", "0.12"]).0, 0);
    assert_eq!(run(&["--max-risk", "0.11"]).0, 1);
    // Text output says the same.
    audit(
        d.path(),
        &with(&["-k", "2"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    )
    .code(1)
    .stdout(predicates::str::contains("2-anonymity"))
    .stdout(predicates::str::contains("FAILS: 1 classes, 1 records"))
    .stdout(predicates::str::contains("k (smallest class)    1"));
}

#[test]
fn suppressed_records_are_left_out_unless_asked() {
    let d = dir_with(&[("clinic.csv", CLINIC)]);
    let (_, v) = json(
        d.path(),
        &["clinic.csv", "--qi", "zip,age", "--include-suppressed"],
    );
    assert_eq!(v["suppressed"], 0);
    assert_eq!(v["classes"], 4);
    // Another marker: the * row is then a class of its own.
    let (_, v) = json(
        d.path(),
        &["clinic.csv", "--qi", "zip,age", "--suppressed", "-"],
    );
    assert_eq!(v["classes"], 4);
    // A row suppressed in only one QI is a normal record.
    let d = dir_with(&[("p.csv", "a,b\n*,1\n*,1\n*,*\n")]);
    let (_, v) = json(d.path(), &["p.csv", "--qi", "a,b"]);
    assert_eq!(
        (
            v["classes"].as_u64(),
            v["suppressed"].as_u64(),
            v["k"].as_u64()
        ),
        (Some(1), Some(1), Some(2))
    );
}

#[test]
fn columns_by_index_without_header_and_multichar_separator() {
    let d = dir_with(&[("x.txt", "1, a, u\n1, a, v\n2, b, u\n")]);
    let (_, v) = json(
        d.path(),
        &[
            "x.txt",
            "--no-header",
            "--separator",
            ", ",
            "--qi",
            "0,1",
            "--sensitive",
            "2",
        ],
    );
    assert_eq!(v["classes"], 2);
    assert_eq!(v["k"], 1);
    assert_eq!(v["quasi_identifiers"], serde_json::json!(["att0", "att1"]));
    assert_eq!(v["sensitive"]["distinct_l"], 1);
}

#[test]
fn subset_file_counts_toward_matching_classes() {
    let subset = "zip,age,disease,flag\n130,20,flu,1\n130,30,cold,0\n130,30,flu,0\n";
    let d = dir_with(&[("clinic.csv", CLINIC), ("subset.csv", subset)]);
    let (code, v) = json(
        d.path(),
        &[
            "clinic.csv",
            "--qi",
            "zip,age",
            "--subset",
            "subset.csv",
            "--dmax",
            "0.5",
        ],
    );
    // (130,20) 1/3, (130,30) 2/4, (140,30) 0.
    assert_eq!(v["delta"]["subset_records"], 3);
    close(&v["delta"]["max"], 0.5);
    assert_eq!(code, 0);
    let (code, v) = json(
        d.path(),
        &[
            "clinic.csv",
            "--qi",
            "zip,age",
            "--subset",
            "subset.csv",
            "--dmin",
            "0.1",
        ],
    );
    assert_eq!(code, 1, "(140,30) has no subset record: delta 0");
    assert_eq!(v["checks"][0]["model"], "(0.1,1)-presence");
}

/// Runs audit expecting exit 2 and a message containing every `needle`.
fn bad(dir: &Path, args: &[&str], needles: &[&str]) {
    let out = audit(dir, args).code(2).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    for n in needles {
        assert!(err.contains(n), "{err:?} lacks {n:?}");
    }
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let d = dir_with(&[
        ("clinic.csv", CLINIC),
        ("h.csv", "flu;respiratory;*\ncold;respiratory;*\n"),
        ("bad-subset.csv", "zip,age,disease,flag\n999,20,flu,1\n"),
    ]);
    let p = d.path();
    bad(p, &["missing.csv", "--qi", "a"], &["missing.csv"]);
    bad(
        p,
        &["clinic.csv", "--qi", "zip,nope"],
        &["no column named 'nope'", "zip, age, disease, flag"],
    );
    bad(
        p,
        &["clinic.csv", "--qi", "7"],
        &["index 7 is out of range"],
    );
    bad(p, &["clinic.csv"], &["--qi"]);
    bad(
        p,
        &["clinic.csv", "--qi", "zip", "--frobnicate"],
        &["--frobnicate"],
    );
    bad(
        p,
        &["clinic.csv", "--qi", "zip", "-l", "2"],
        &["--sensitive"],
    );
    bad(
        p,
        &["clinic.csv", "--qi", "zip", "-k", "0"],
        &["-k must be at least 1"],
    );
    bad(
        p,
        &[
            "clinic.csv",
            "--qi",
            "zip",
            "--sensitive",
            "disease",
            "-t",
            "2",
        ],
        &["-t must lie in [0, 1]"],
    );
    bad(
        p,
        &["clinic.csv", "--qi", "zip", "--dmin", "0.1"],
        &["research subset"],
    );
    bad(p, &["clinic.csv", "--qi", "zip", "-k", "x"], &["'x'"]);
    bad(
        p,
        &[
            "clinic.csv",
            "--qi",
            "zip",
            "--sensitive",
            "disease",
            "--hierarchy",
            "h.csv",
        ],
        &["clinic.csv:6: disease: value 'cancer' is not in the hierarchy file"],
    );
    bad(
        p,
        &[
            "clinic.csv",
            "--qi",
            "zip",
            "--sensitive",
            "disease",
            "-t",
            "0.1",
            "--distance",
            "ordered",
        ],
        &["numeric"],
    );
    bad(
        p,
        &[
            "clinic.csv",
            "--qi",
            "zip",
            "--sensitive",
            "disease",
            "-t",
            "0.1",
            "--distance",
            "hierarchical",
        ],
        &["--hierarchy"],
    );
    bad(
        p,
        &["clinic.csv", "--qi", "zip", "--subset-column", "disease"],
        &["clinic.csv:2: disease: subset flag 'flu'"],
    );
    bad(
        p,
        &[
            "clinic.csv",
            "--qi",
            "zip,age",
            "--subset",
            "bad-subset.csv",
        ],
        &["bad-subset.csv:2", "matches no class"],
    );
    bad(
        p,
        &[
            "clinic.csv",
            "--qi",
            "zip",
            "--sensitive",
            "disease",
            "--hierarchy",
            "nohier.csv",
        ],
        &["nohier.csv"],
    );
}

#[test]
fn help_exits_0() {
    let d = tempfile::tempdir().unwrap();
    audit(d.path(), &["--help"])
        .code(0)
        .stdout(predicates::str::contains("--include-suppressed"));
}

/// ADULT with sex, age, race as quasi-identifiers and occupation sensitive. The figures were
/// computed independently (a Python script over the CSV module, natural-log entropy, the
/// textbook definitions); they pin the whole pipeline on real data.
#[test]
fn adult_figures_match_an_independent_computation() {
    let file: PathBuf = common::data("adult/adult.csv");
    let d = tempfile::tempdir().unwrap();
    let (code, v) = json(
        d.path(),
        &[
            file.to_str().unwrap(),
            "--separator",
            ";",
            "--qi",
            "sex,age,race",
            "--sensitive",
            "occupation",
            "-k",
            "5",
            "-l",
            "3",
            "-c",
            "4",
            "--entropy-l",
            "3",
            "-t",
            "0.2",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(v["records"], 30162);
    assert_eq!(v["classes"], 528);
    assert_eq!(v["k"], 1);
    assert_eq!(v["risk"]["records"], 425);
    close(&v["sensitive"]["t_equal"], 0.9952589350838805);
    let failing: Vec<(String, u64, u64)> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["model"].as_str().unwrap().to_string(),
                c["failing_classes"].as_u64().unwrap(),
                c["failing_records"].as_u64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("5-anonymity", 191, 425),
        ("distinct 3-diversity", 141, 244),
        ("recursive (4,3)-diversity", 144, 279),
        ("entropy 3-diversity", 173, 436),
        ("0.2-closeness (equal distance)", 497, 18948),
    ];
    assert_eq!(failing.len(), want.len());
    for (g, w) in failing.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.1, g.2), w);
    }
}

/// The README's audit example, run as written from a fresh directory (the bundled config's paths
/// are relative to its folder): the run releases 5-anonymous, 2-diverse data, the audit agrees
/// (exit 0) and its JSON has no repeated key.
#[test]
fn readme_audit_example_runs_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let run = "anonbox -config configs/adult-occupation.xml -output out.csv";
    let audit_line = "anonbox audit out.csv --separator ';' --qi \
                      sex,age,race,marital-status,education,native-country,workclass,salary-class \\";
    assert!(readme.contains(run) && readme.contains(audit_line));
    assert!(readme.contains("        --sensitive occupation -k 5 -l 2 --json\n"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("configs")).unwrap();
    std::fs::copy(
        root.join("configs/adult-occupation.xml"),
        dir.path().join("configs/adult-occupation.xml"),
    )
    .unwrap();
    // The config names ../tests/data/adult: give the copy the same neighbours.
    std::os::unix::fs::symlink(root.join("tests"), dir.path().join("tests")).unwrap();
    Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(dir.path())
        .args([
            "-config",
            "configs/adult-occupation.xml",
            "-output",
            "out.csv",
            "-quiet",
        ])
        .assert()
        .success();
    let (code, v) = json(
        dir.path(),
        &[
            "out.csv",
            "--separator",
            ";",
            "--qi",
            "sex,age,race,marital-status,education,native-country,workclass,salary-class",
            "--sensitive",
            "occupation",
            "-k",
            "5",
            "-l",
            "2",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["holds"], true);
    assert!(v["k"].as_u64().unwrap() >= 5);
    assert!(v["sensitive"]["distinct_l"].as_u64().unwrap() >= 2);
}

/// A file is audited as it stands: every row counts, `?` included (ARX releases keep it for
/// unknown values); values are compared as text, so a field that is not UTF-8 is an error (read
/// lossily, two different values would fall into one class and k would be overstated); a file
/// without records is bad input, not a release that holds; a release whose records are all
/// suppressed has no smallest class.
#[test]
fn every_row_counts_and_nothing_is_guessed() {
    let d = dir_with(&[
        (
            "qm.csv",
            "a,b,note\n1,x,ok\n1,x,ok\n2,y,what?\n?,?,?\n?,?,?\n",
        ),
        ("headeronly.csv", "a,b\n"),
        ("empty.csv", ""),
        ("allsup.csv", "a,b\n*,*\n*,*\n"),
    ]);
    std::fs::write(d.path().join("bad.csv"), b"a,b\n1,caf\xe9\n2,caf\xe8\n").unwrap();
    let p = d.path();
    let (code, v) = json(p, &["qm.csv", "--qi", "a,b", "-k", "2"]);
    assert_eq!(code, 1, "(2,y) is unique: {v}");
    assert_eq!(v["records"], 5);
    assert_eq!(v["classes"], 3);
    assert_eq!(v["k"], 1);
    bad(
        p,
        &["bad.csv", "--qi", "b", "-k", "2"],
        &["bad.csv:2: b: value 'caf", "not valid UTF-8"],
    );
    bad(
        p,
        &["empty.csv", "--qi", "0", "--no-header"],
        &["empty.csv", "no records to audit"],
    );
    bad(
        p,
        &["headeronly.csv", "--qi", "a"],
        &["headeronly.csv", "no records to audit"],
    );
    let out = audit(p, &["allsup.csv", "--qi", "a,b"])
        .code(0)
        .get_output()
        .clone();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("k (smallest class)    none: every record is suppressed"),
        "{text}"
    );
    // `\t` is a tab, as for init, hierarchy and the configs.
    std::fs::write(p.join("t.tsv"), "a\tb\n1\t2\n1\t2\n").unwrap();
    let (code, v) = json(
        p,
        &["t.tsv", "--separator", "\\t", "--qi", "a,b", "-k", "2"],
    );
    assert_eq!((code, v["k"].as_u64()), (0, Some(2)), "{v}");
}

/// A toolbox config suppresses each attribute to its own VGH root: one `--suppressed` per
/// quasi-identifier recognizes those records, so audit agrees with the run's report (it counted
/// them as a class of 7 under 10-anonymity, and failed).
#[test]
fn suppression_labels_per_column() {
    let d = dir_with(&[(
        "c.data",
        "[0:50),[0.0],a\n[0:50),[0.0],b\n[0:100),[0:1],c\n[0:100),[0:1],d\n[0:100),[0.0],e\n",
    )]);
    let p = d.path();
    let args = ["c.data", "--no-header", "--qi", "0,1", "-k", "2"];
    let (code, v) = json(p, &args);
    assert_eq!((code, v["suppressed"].as_u64()), (1, Some(0)), "{v}");
    let mut per_column = args.to_vec();
    per_column.extend(["--suppressed", "[0:100)", "--suppressed", "[0:1]"]);
    let (code, v) = json(p, &per_column);
    assert_eq!(code, 1, "[0:100),[0.0] is a class of one: {v}");
    assert_eq!(v["suppressed"], 2);
    assert_eq!(v["classes"], 2);
    let mut three = per_column.clone();
    three.extend(["--suppressed", "x"]);
    bad(
        p,
        &three,
        &["--suppressed given 3 times for 2 --qi columns"],
    );
}
