//! Local recoding (`-localRecoding`, `<privacy local-recoding="true">`) against ARX 3.9.2's
//! (`optimizeIterativeFast(handle, 1/100, 0.05)`, `tests/data/reference/arx-adult-local-recoding.jsonl`,
//! made by `scripts/arx_local_recoding_reference.sh`): on ADULT, never more records suppressed
//! nor a higher Loss than ARX's, never more suppressed than the global optimum. Every release is
//! re-checked here from the output file alone: classes of equal quasi-identifiers of at least k
//! records (suppressed rows: every quasi-identifier `*`), distinct l and equal-distance t of
//! the sensitive attribute per class, and the report's Loss recomputed from the labels and the
//! hierarchy files. Then 1 and 2 threads, the report's three forms, and what is refused.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::common;

fn reference() -> Vec<Value> {
    let path = common::data("reference/arx-adult-local-recoding.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn read(path: &Path) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(true)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// A hierarchy file as rows of labels.
fn hierarchy(name: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(common::data(&format!("adult/adult_hierarchy_{name}.csv")))
        .unwrap();
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split(';').map(String::from).collect())
        .collect()
}

/// What a release must hold.
struct Asked {
    k: usize,
    /// Sensitive column, distinct l and equal-distance t (0: not asked).
    sensitive: Option<(usize, usize, f64)>,
}

/// Re-checks a locally recoded ADULT release from its file; returns (suppressed rows, Loss
/// recomputed as ARX computes it from an output: per quasi-identifier the mean domain share of
/// the records' labels, 1 for a suppressed record, normalized from 1/|dom| to 1, geometric mean).
fn check_release(
    input: &[Vec<String>],
    output: &[Vec<String>],
    qis: &[usize],
    names: &[&str],
    asked: &Asked,
) -> (usize, f64) {
    assert_eq!(input.len(), output.len(), "one row per record");
    for (i, o) in input.iter().zip(output) {
        for c in (0..i.len()).filter(|c| !qis.contains(c)) {
            assert_eq!(i[c], o[c], "column {c} is released as it was");
        }
    }
    let suppressed = |row: &Vec<String>| qis.iter().all(|&q| row[q] == "*");
    let mut classes: HashMap<Vec<&str>, Vec<usize>> = HashMap::new();
    for (r, row) in output
        .iter()
        .enumerate()
        .filter(|(_, row)| !suppressed(row))
    {
        classes
            .entry(qis.iter().map(|&q| row[q].as_str()).collect())
            .or_default()
            .push(r);
    }
    let n = output.len() as f64;
    for (key, rows) in &classes {
        assert!(
            rows.len() >= asked.k,
            "class {key:?} has {} < k = {} records",
            rows.len(),
            asked.k
        );
        if let Some((s, l, t)) = asked.sensitive {
            let mut counts: HashMap<&str, usize> = HashMap::new();
            for &r in rows {
                *counts.entry(input[r][s].as_str()).or_default() += 1;
            }
            assert!(
                counts.len() >= l,
                "class {key:?}: {} distinct values < l = {l}",
                counts.len()
            );
            if t > 0.0 {
                let mut all: HashMap<&str, usize> = HashMap::new();
                for row in input {
                    *all.entry(row[s].as_str()).or_default() += 1;
                }
                let d: f64 = all
                    .iter()
                    .map(|(v, &a)| {
                        let p = *counts.get(v).unwrap_or(&0) as f64 / rows.len() as f64;
                        (p - a as f64 / n).abs()
                    })
                    .sum::<f64>()
                    / 2.0;
                assert!(d <= t + 1e-12, "class {key:?}: distance {d} > t = {t}");
            }
        }
    }
    let suppressed_rows = output.iter().filter(|r| suppressed(r)).count();
    // Loss from the labels: a label's share is the hierarchy's rows that hold it at its level.
    let mut product = 1.0f64;
    for (&q, name) in qis.iter().zip(names) {
        let h = hierarchy(name);
        let dom = h.len() as f64;
        let mut share: HashMap<&str, f64> = HashMap::new();
        for level in 0..h[0].len() {
            for row in &h {
                if !share.contains_key(row[level].as_str()) {
                    let count = h.iter().filter(|r| r[level] == row[level]).count();
                    share.insert(row[level].as_str(), count as f64 / dom);
                }
            }
        }
        let sum: f64 = output
            .iter()
            .map(|row| {
                if suppressed(row) {
                    1.0
                } else {
                    share[row[q].as_str()]
                }
            })
            .sum();
        let v = ((sum / n - 1.0 / dom) / (1.0 - 1.0 / dom)).max(0.0);
        product *= (1.0 + v).powf(1.0 / qis.len() as f64);
    }
    (suppressed_rows, product - 1.0)
}

/// The config of a reference row, written into `dir`: ADULT's nine columns, or eight beside
/// occupation with its model; local recoding asked in `<privacy>`.
fn config(dir: &Path, row: &Value) -> (Vec<&'static str>, Asked) {
    let adult = common::data("adult");
    let sensitive = row["sensitive"].as_str();
    let names: Vec<&'static str> = match sensitive {
        Some(s) => common::adult_attributes_but(s),
        None => common::ADULT_ATTRIBUTES.to_vec(),
    };
    let att = |name: &str| {
        let i = common::ADULT_ATTRIBUTES
            .iter()
            .position(|a| *a == name)
            .unwrap();
        format!(
            "<att index=\"{i}\" name=\"{name}\" hierarchy=\"{}/adult_hierarchy_{name}.csv\"/>",
            adult.display()
        )
    };
    let qid: String = names.iter().map(|n| att(n)).collect();
    let k = row["k"].as_u64().unwrap_or(1) as usize;
    let mut models = match row["k"].as_u64() {
        Some(k) => format!("<k-anonymity k=\"{k}\"/>"),
        None => String::new(),
    };
    let mut asked = Asked { k, sensitive: None };
    let sens = match sensitive {
        Some(s) => {
            let column = common::ADULT_ATTRIBUTES
                .iter()
                .position(|a| *a == s)
                .unwrap();
            let l = row["l"].as_u64().unwrap_or(1) as usize;
            let t = row["t"].as_f64().unwrap_or(0.0);
            if l > 1 {
                models += &format!("<distinct-l-diversity attribute=\"{s}\" l=\"{l}\"/>");
            }
            if t > 0.0 {
                models += &format!("<t-closeness attribute=\"{s}\" t=\"{t}\" distance=\"equal\"/>");
            }
            asked.sensitive = Some((column, l, t));
            format!("<sens>{}</sens>", att(s))
        }
        None => String::new(),
    };
    let text = format!(
        "<config method=\"Flash\" suppression=\"{}\" metric=\"Loss\">\
         <input filename=\"{}/adult.csv\" separator=\";\" header=\"true\"/>\
         <output filename=\"out.csv\" format=\"genVals\"/>\
         <qid>{qid}</qid>{sens}<privacy local-recoding=\"true\">{models}</privacy></config>",
        row["suppression_limit"].as_f64().unwrap(),
        adult.display()
    );
    std::fs::write(dir.join("config.xml"), text).unwrap();
    (names, asked)
}

/// Every reference row: the release re-checked, suppressed records and Loss no worse than ARX's
/// local recoding and the report's figures those of the file.
#[test]
fn adult_no_worse_than_arx_local_recoding() {
    let input = read(&common::data("adult/adult.csv"));
    for row in reference() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (names, asked) = config(d, &row);
        let out = common::anonbox(d, &["-config", "config.xml", "-report", "r.json", "-quiet"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: Value =
            serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
        let lr = &report["local_recoding"];
        let qis: Vec<usize> = names
            .iter()
            .map(|n| {
                common::ADULT_ATTRIBUTES
                    .iter()
                    .position(|a| a == n)
                    .unwrap()
            })
            .collect();
        let output = read(&d.join("out.csv"));
        let (suppressed, loss) = check_release(&input, &output, &qis, &names, &asked);
        let arx = &row["local_recoding"];
        let ours_after = lr["after"]["suppressed_records"].as_u64().unwrap();
        // Every suppressed record prints `*` everywhere; a group released at labels that are
        // all `*` (the top of every hierarchy) prints alike, and ARX counts it released too.
        assert!(
            ours_after <= suppressed as u64,
            "suppressed records print `*`"
        );
        assert_eq!(report["suppressed_records"].as_u64(), Some(ours_after));
        let ours_loss = lr["after"]["loss"].as_f64().unwrap();
        assert!(
            (ours_loss - loss).abs() < 1e-9,
            "report {ours_loss}, file {loss}"
        );
        // Before: the global optimum, ARX's.
        assert_eq!(
            lr["before"]["suppressed_records"], arx["before"]["suppressed_records"],
            "{row}"
        );
        let before = lr["before"]["loss"].as_f64().unwrap();
        let arx_before = arx["before"]["information_loss"].as_f64().unwrap();
        assert!(
            (before - arx_before).abs() < 1e-9,
            "{before} vs ARX {arx_before}"
        );
        // After: no worse than ARX's.
        let arx_after = arx["after"]["suppressed_records"].as_u64().unwrap();
        let arx_loss = arx["after"]["information_loss"].as_f64().unwrap();
        assert!(
            ours_after <= arx_after,
            "{ours_after} suppressed > ARX's {arx_after}: {row}"
        );
        assert!(
            ours_loss <= arx_loss + 1e-9,
            "Loss {ours_loss} > ARX's {arx_loss}: {row}"
        );
        assert!(ours_after <= lr["before"]["suppressed_records"].as_u64().unwrap());
        assert!(ours_loss <= before + 1e-12);
    }
}

/// The same release with 1 and 2 threads, byte for byte, and the same steps.
#[test]
fn one_and_two_threads_release_alike() {
    let dir = common::workdir("adult.xml");
    let d = dir.path();
    let run = |threads: &str, out: &str, report: &str| {
        let o = common::anonbox(
            d,
            &[
                "-config",
                "configs/adult.xml",
                "-method",
                "Flash",
                "-k",
                "5",
                "-suppression",
                "0.04",
                "-localRecoding",
                "-threads",
                threads,
                "-output",
                out,
                "-report",
                report,
                "-quiet",
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let r: Value = serde_json::from_slice(&std::fs::read(d.join(report)).unwrap()).unwrap();
        (
            std::fs::read(d.join(out)).unwrap(),
            r["local_recoding"].clone(),
        )
    };
    let (a, ra) = run("1", "a.csv", "a.json");
    let (b, rb) = run("2", "b.csv", "b.json");
    assert!(a == b, "the releases differ");
    assert_eq!(ra, rb);
    assert!(ra["steps"].as_array().unwrap().len() > 1, "{ra}");
}

/// The console summary and the HTML report say what local recoding did; the JSON's
/// `transformation` is null (no single one) and its Loss is the release's.
#[test]
fn summary_and_html_give_before_and_after() {
    let dir = common::workdir("adult.xml");
    let d = dir.path();
    let o = common::anonbox(
        d,
        &[
            "-config",
            "configs/adult.xml",
            "-method",
            "Flash",
            "-k",
            "2",
            "-suppression",
            "0.02",
            "-localRecoding",
            "-output",
            "o.csv",
            "-report",
            "r.html",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("local recoding  suppressed"), "{err}");
    assert!(err.contains(" records at "), "{err}");
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    for label in [
        "suppressed before local recoding",
        "Loss after local recoding",
        "local recoding groups",
    ] {
        assert!(html.contains(label), "{label}");
    }
    let o = common::anonbox(
        d,
        &[
            "-config",
            "configs/adult.xml",
            "-method",
            "Flash",
            "-k",
            "2",
            "-suppression",
            "0.02",
            "-localRecoding",
            "-output",
            "o.csv",
            "-report",
            "r.json",
            "-quiet",
        ],
    );
    assert!(o.status.success());
    let r: Value = serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    assert!(r["transformation"].is_null());
    assert_eq!(r["information_loss"], r["local_recoding"]["after"]["loss"]);
    assert_eq!(r["utility"]["Loss"], r["local_recoding"]["after"]["loss"]);
    assert!(r["local_recoding"]["loss_computed_as"]
        .as_str()
        .unwrap()
        .contains("own levels"));
}

/// Refused at config time (exit 2, nothing written): a method without a global transformation,
/// a model of the whole table, a kept database, a misspelled value.
#[test]
fn refuses_what_it_cannot_enforce() {
    let dir = common::workdir("adult.xml");
    let d = dir.path();
    let refused = |args: &[&str], says: &str| {
        let o = common::anonbox(d, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!d.join("o.csv").exists());
    };
    let base = [
        "-config",
        "configs/adult.xml",
        "-output",
        "o.csv",
        "-localRecoding",
    ];
    refused(
        &[&base[..], &["-method", "Mondrian"]].concat(),
        "-localRecoding: Mondrian",
    );
    refused(
        &[&base[..], &["-method", "Datafly"]].concat(),
        "-localRecoding: Datafly",
    );
    refused(
        &[&base[..], &["-method", "Flash", "-db", "w.db"]].concat(),
        "-db",
    );
    // Cell suppression keeps the same records another way; SafePub releases one sample.
    refused(
        &[&base[..], &["-method", "Flash", "-suppress", "cells"]].concat(),
        "choose one of -suppress cells and local recoding",
    );
    let dp = std::fs::read_to_string(d.join("configs/adult.xml"))
        .unwrap()
        .replace("Datafly", "Flash")
        .replace(
            "</qid>",
            "</qid><privacy><differential-privacy epsilon=\"2\" delta=\"1e-5\"/></privacy>",
        );
    std::fs::write(d.join("configs/dp.xml"), dp).unwrap();
    refused(
        &[
            &["-config", "configs/dp.xml", "-suppression", "1"][..],
            &base[2..],
        ]
        .concat(),
        "releases one random sample at one transformation",
    );
    let text = std::fs::read_to_string(d.join("configs/adult.xml")).unwrap();
    let risk = text.replace(
        "</qid>",
        "</qid><privacy local-recoding=\"true\"><average-risk threshold=\"0.1\"/></privacy>",
    );
    std::fs::write(d.join("configs/risk.xml"), risk.replace("Datafly", "Flash")).unwrap();
    refused(
        &["-config", "configs/risk.xml", "-output", "o.csv"],
        "average-risk(0.1) judges the whole table",
    );
    let typo = text.replace(
        "</qid>",
        "</qid><privacy local-recoding=\"yes\"><k-anonymity k=\"5\"/></privacy>",
    );
    std::fs::write(d.join("configs/typo.xml"), typo.replace("Datafly", "Flash")).unwrap();
    refused(
        &["-config", "configs/typo.xml", "-output", "o.csv"],
        "local-recoding='yes'",
    );
    let unknown = text.replace(
        "</qid>",
        "</qid><privacy local=\"true\"><k-anonymity k=\"5\"/></privacy>",
    );
    std::fs::write(d.join("configs/unknown.xml"), unknown).unwrap();
    refused(
        &["-config", "configs/unknown.xml", "-output", "o.csv"],
        "unknown attribute 'local' of <privacy>",
    );
}
