//! Cell suppression (`-suppress cells`): every release re-checked here on the written file as
//! plain text (a blanked cell, `*`, is a value of its own: a class is the records printing the
//! same quasi-identifiers), with k and every other model asked; against the record
//! suppression of the same run on ADULT (every record kept, every cell as the record
//! suppression or the input's generalized value prints it, the records untouched that the
//! record suppression keeps); the importance ranking; random tables (proptest) against the
//! bound of record suppression; and the configs it refuses.

use std::collections::HashMap;
use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::common;

fn read(path: &Path) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The plain-text classes of `rows` over the columns `qis`: quasi-identifier text -> rows.
fn classes(rows: &[Vec<String>], qis: &[usize]) -> HashMap<Vec<String>, Vec<usize>> {
    let mut classes: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
    for (r, row) in rows.iter().enumerate() {
        classes
            .entry(qis.iter().map(|&c| row[c].clone()).collect())
            .or_default()
            .push(r);
    }
    classes
}

/// Checks k and, with `sensitive = Some((column, l))`, distinct l-diversity of every plain-text
/// class of `rows`; the class whose every quasi-identifier is `*` may fail only if it is no
/// larger than `suppressed` (records suppressed, as a record suppression prints them). Returns
/// the records of that class.
fn check_models(
    rows: &[Vec<String>],
    qis: &[usize],
    k: usize,
    sensitive: Option<(usize, usize)>,
    suppressed: usize,
) -> usize {
    let mut all_blank = 0;
    for (key, members) in classes(rows, qis) {
        let distinct = sensitive.map(|(s, _)| {
            let mut values: Vec<&str> = members.iter().map(|&r| rows[r][s].as_str()).collect();
            values.sort_unstable();
            values.dedup();
            values.len()
        });
        let holds = members.len() >= k && sensitive.is_none_or(|(_, l)| distinct.unwrap() >= l);
        let blank = key.iter().all(|v| v == "*");
        if blank {
            all_blank = members.len();
        }
        assert!(
            holds || (blank && members.len() <= suppressed),
            "class {key:?} of {} records (distinct sensitive values {distinct:?}) fails",
            members.len()
        );
    }
    all_blank
}

/// ARX hierarchy files of ADULT: value -> its labels by level.
fn hierarchy(name: &str) -> HashMap<String, Vec<String>> {
    let text = std::fs::read_to_string(common::data(&format!("adult/adult_hierarchy_{name}.csv")))
        .unwrap();
    text.lines()
        .map(|l| {
            let row: Vec<String> = l.split(';').map(String::from).collect();
            (row[0].clone(), row)
        })
        .collect()
}

#[test]
fn adult_k5_cells_against_records() {
    let dir = common::workdir("adult.xml");
    let run = |mode: &str| {
        let out = common::anonbox(
            dir.path(),
            &[
                "-config",
                "configs/adult.xml",
                "-method",
                "Flash",
                "-k",
                "5",
                "-suppression",
                "0.02",
                "-suppress",
                mode,
                "-output",
                &format!("{mode}.csv"),
                "-report",
                &format!("{mode}.json"),
            ],
        );
        assert!(
            out.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if mode == "cells" {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("blanked"), "the summary's cells line: {err}");
        }
        (
            read(&dir.path().join(format!("{mode}.csv"))),
            json(&dir.path().join(format!("{mode}.json"))),
        )
    };
    let (records, records_report) = run("records");
    let (cells, report) = run("cells");
    let input = read(&common::data("adult/adult.csv"));
    assert_eq!(
        cells.len(),
        input.len(),
        "one row per record, the header too"
    );
    assert_eq!(records.len(), input.len());
    assert_eq!(cells[0], input[0], "the header");
    let levels = common::levels(&report);
    assert_eq!(levels, common::levels(&records_report), "the same search");
    let cs = &report["cell_suppression"];
    let failing = records_report["suppressed_records"].as_u64().unwrap() as usize;
    assert!(
        failing > 0,
        "record suppression removes records at k = 5, 2 %"
    );
    assert_eq!(cs["records_record_suppression"], failing);
    assert_eq!(report["suppressed_records"], 0, "every record kept");
    assert_eq!(cs["records_suppressed"], 0);

    // Each cell: as the record suppression prints it where that keeps the record; else the
    // input's value generalized to the transformation, or * (blanked).
    let hierarchies: Vec<_> = common::ADULT_ATTRIBUTES
        .iter()
        .map(|a| hierarchy(a))
        .collect();
    let (mut touched, mut blanked) = (0usize, vec![0u64; 9]);
    for r in 1..input.len() {
        let kept = records[r].iter().any(|v| v != "*");
        if kept {
            assert_eq!(
                cells[r], records[r],
                "row {r}: a record the record suppression keeps"
            );
            continue;
        }
        let mut any = false;
        for q in 0..9 {
            let generalized = &hierarchies[q][&input[r][q]][levels[q]];
            if cells[r][q] == *generalized {
                continue;
            }
            assert_eq!(cells[r][q], "*", "row {r}, column {q}");
            blanked[q] += 1;
            any = true;
        }
        touched += usize::from(any);
    }
    let by: Vec<u64> = cs["cells_by_attribute"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["cells"].as_u64().unwrap())
        .collect();
    assert_eq!(by, blanked, "cells per attribute, recounted from the files");
    assert_eq!(cs["cells_suppressed"], blanked.iter().sum::<u64>());
    assert_eq!(cs["records_touched"], touched);
    assert!(
        blanked.iter().sum::<u64>() < 9 * failing as u64,
        "fewer cells than the record suppression's {}",
        9 * failing
    );
    // 5-anonymous as plain text, no class left aside (an all-* class too has 5 records).
    check_models(&cells[1..], &(0..9).collect::<Vec<_>>(), 5, None, 0);
}

#[test]
fn adult_occupation_l_diversity_with_cells_and_html() {
    let dir = common::workdir("adult-occupation.xml");
    let run = |report: &str| {
        let out = common::anonbox(
            dir.path(),
            &[
                "-config",
                "configs/adult-occupation.xml",
                "-suppression",
                "0.05",
                "-suppress",
                "cells",
                "-output",
                "out.csv",
                "-report",
                report,
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        read(&dir.path().join("out.csv"))
    };
    let rows = run("out.json");
    let report = json(&dir.path().join("out.json"));
    let suppressed = report["suppressed_records"].as_u64().unwrap() as usize;
    assert_eq!(rows.len(), 30_163, "every record and the header");
    // 5-anonymity and distinct 2-diversity of occupation (column 7), as plain text.
    let qis = [0, 1, 2, 3, 4, 5, 6, 8];
    check_models(&rows[1..], &qis, 5, Some((7, 2)), suppressed);
    assert!(
        report["cell_suppression"]["cells_suppressed"]
            .as_u64()
            .unwrap()
            > 0
    );
    // The report measures the models on the release's classes, as the checker above.
    for a in report["privacy_achieved"].as_array().unwrap() {
        assert_eq!(a["holds"], true, "{a}");
    }
    // The HTML report of the same run: the release is the same, the cells are shown.
    assert_eq!(run("out.html"), rows);
    let html = std::fs::read_to_string(dir.path().join("out.html")).unwrap();
    assert!(html.contains("cells blanked") && html.contains("records touched"));
}

/// A small file: h1 (a b c d) and h2 (x y), each value -> *. Valid (a,x) x2, (b,y) x2;
/// failing (c,x) (c,y) (d,x) at k = 2: blanking h2 pools (c,x) and (c,y) as (c,*); blanking
/// h1 pools (c,x) and (d,x) as (*,x).
fn small(dir: &Path, importance: (&str, &str), suppress_attr: &str) {
    std::fs::write(
        dir.join("data.csv"),
        "h1;h2;s\na;x;1\na;x;2\nb;y;3\nb;y;4\nc;x;5\nc;y;6\nd;x;7\n",
    )
    .unwrap();
    std::fs::write(dir.join("h1.csv"), "a;*\nb;*\nc;*\nd;*\n").unwrap();
    std::fs::write(dir.join("h2.csv"), "x;*\ny;*\n").unwrap();
    std::fs::write(
        dir.join("config.xml"),
        format!(
            "<config k='2' method='Flash' metric='Height' suppression='0.5'{suppress_attr}>
  <input filename='data.csv' separator=';' header='true'/>
  <output filename='out.csv'/>
  <qid>
    <att index='0' name='h1' hierarchy='h1.csv'{}/>
    <att index='1' name='h2' hierarchy='h2.csv'{}/>
  </qid>
</config>",
            importance.0, importance.1
        ),
    )
    .unwrap();
}

fn run_small(dir: &Path, args: &[&str]) -> (Vec<Vec<String>>, Value) {
    let mut all = vec!["-config", "config.xml", "-report", "out.json"];
    all.extend_from_slice(args);
    let out = common::anonbox(dir, &all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = json(&dir.join("out.json"));
    assert_eq!(
        common::levels(&report),
        vec![0, 0],
        "the search keeps the values"
    );
    (read(&dir.join("out.csv")), report)
}

#[test]
fn importance_decides_which_attribute_is_blanked() {
    let dir = tempfile::tempdir().unwrap();
    // h1 most important: h2 is blanked, h1 only where nothing else works ((d,x): alone).
    small(
        dir.path(),
        (" importance='1'", " importance='2'"),
        " suppress='cells'",
    );
    let (rows, report) = run_small(dir.path(), &[]);
    let shown: Vec<String> = rows[5..]
        .iter()
        .map(|r| format!("{},{}", r[0], r[1]))
        .collect();
    assert_eq!(shown, ["c,*", "c,*", "*,*"]);
    assert_eq!(
        report["suppressed_records"], 1,
        "(d,x) alone, every cell blank"
    );
    assert_eq!(
        report["cell_suppression"]["blank_order"],
        serde_json::json!(["h2", "h1"])
    );
    check_models(&rows[1..], &[0, 1], 2, None, 1);
    // The identical sensitive column passes through.
    assert_eq!(rows[7][2], "7");

    // h2 most important: h1 is blanked.
    small(dir.path(), (" importance='2'", " importance='1'"), "");
    let (rows, _) = run_small(dir.path(), &["-suppress", "cells"]);
    let shown: Vec<String> = rows[5..]
        .iter()
        .map(|r| format!("{},{}", r[0], r[1]))
        .collect();
    assert_eq!(shown, ["*,x", "*,*", "*,x"]);

    // No importance: sdcMicro's default blanks the attribute of most distinct values (h1).
    small(dir.path(), ("", ""), " suppress='cells'");
    let (rows, _) = run_small(dir.path(), &[]);
    let shown: Vec<String> = rows[5..]
        .iter()
        .map(|r| format!("{},{}", r[0], r[1]))
        .collect();
    assert_eq!(shown, ["*,x", "*,*", "*,x"]);

    // Records (the flag over the config): the three failing records are suppressed whole.
    let (rows, report) = run_small(dir.path(), &["-suppress", "records"]);
    assert_eq!(report["suppressed_records"], 3);
    assert!(report.get("cell_suppression").is_none());
    assert!(rows[5..].iter().all(|r| r[0] == "*" && r[1] == "*"));
}

#[test]
fn refusals() {
    let dir = tempfile::tempdir().unwrap();
    small(dir.path(), ("", ""), "");
    let refused = |args: &[&str], says: &str| {
        let mut all = vec!["-config", "config.xml"];
        all.extend_from_slice(args);
        let out = common::anonbox(dir.path(), &all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(!dir.path().join("out.csv").exists());
    };
    refused(
        &["-suppress", "fields"],
        "-suppress: unknown suppression 'fields'",
    );
    refused(
        &["-suppress", "cells", "-method", "Datafly"],
        "-suppress cells: Datafly suppresses no cells",
    );
    refused(&["-suppress", "cells", "-db", "w.db"], "omit -db");
    refused(
        &["-suppress", "cells", "-outputFormat", "genValsDist"],
        "writes genVals only",
    );
    // A model of the whole table's class sizes: refused, naming the config's attribute.
    std::fs::write(
        dir.path().join("config.xml"),
        "<config method='Flash' suppression='0.5' suppress='cells'>
  <input filename='data.csv' separator=';' header='true'/>
  <output filename='out.csv'/>
  <qid><att index='0' name='h1' hierarchy='h1.csv'/><att index='1' name='h2' hierarchy='h2.csv'/></qid>
  <privacy><average-risk threshold='0.3'/></privacy>
</config>",
    )
    .unwrap();
    refused(&[], "not enforced by cell suppression");
    std::fs::write(
        dir.path().join("config.xml"),
        "<config method='Flash' suppress='some'><input filename='data.csv'/></config>",
    )
    .unwrap();
    refused(&[], "unknown suppress 'some'");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Random tables: the labels written (as plain text) are k-anonymous and, with a sensitive
    /// model, distinctly l-diverse; records the search keeps print their generalized values;
    /// a record it suppresses prints each cell generalized or blank; the cells blanked are
    /// counted right and are no more than every quasi-identifier of every suppressed record.
    #[test]
    fn random_tables_are_k_anonymous_as_text(
        seed in any::<u64>(),
        rows in 4usize..60,
        k in 2u64..4,
        l in proptest::option::of(2usize..3),
        share in 0.05f64..0.6,
        top_blank in any::<bool>(),
    ) {
        use anonbox::algorithms::{cells, run_lattice, LatticeParams, Method};
        use anonbox::job::{MetricKind, PrivacyModel, SuppressionLimit};
        let table = crate::flash::random_table(seed, rows, 400);
        let mut privacy = vec![PrivacyModel::KAnonymity { k }];
        if let Some(l) = l {
            privacy.push(PrivacyModel::DistinctL { attribute: 0, l: l as f64 });
        }
        let params = LatticeParams {
            method: Method::Flash,
            privacy: &privacy,
            k,
            metric: MetricKind::Loss,
            suppression: Some(SuppressionLimit::Fraction(share)),
            time_limit: None,
            threads: 1,
            stop: None,
        };
        let Ok((outcome, chosen)) = run_lattice(&params, &table, None) else {
            return Ok(()); // nothing satisfies the models within the budget
        };
        let d = table.width();
        // The suppression label: "*", or a label the top level prints (then such cells count
        // as blank already, as their text says).
        let blank: Vec<String> = table
            .hierarchies
            .iter()
            .map(|h| if top_blank { h.label(h.max_level(), h.get(0, h.max_level())).to_string() } else { "*".into() })
            .collect();
        let importance = vec![None; d];
        let cp = cells::Params { k, privacy: &privacy, importance: &importance, blank: &blank };
        let release = cells::suppress(&table, &chosen.levels, &chosen.suppressed, &cp).unwrap();
        // The written labels, one row per record (and its sensitive value last).
        let mut written: Vec<Vec<String>> = Vec::new();
        let mut cells_blanked = 0u64;
        for r in 0..table.rows() {
            let t = table.tuple_of(r);
            let c = release.tuple_class[t];
            let generalized: Vec<String> = table.row(r).zip(&table.hierarchies).zip(&chosen.levels)
                .map(|((code, h), &lv)| h.label(lv, h.get(code, lv)).to_string())
                .collect();
            let mut row: Vec<String> = (0..d)
                .map(|q| if c == cells::SUPPRESSED { blank[q].clone() } else { release.label(&table, &chosen.levels, &blank, c as usize, q).to_string() })
                .collect();
            if chosen.suppressed[r] {
                for q in 0..d {
                    prop_assert!(row[q] == generalized[q] || row[q] == blank[q]);
                    if row[q] != generalized[q] {
                        cells_blanked += 1;
                    }
                }
            } else {
                prop_assert_eq!(&row, &generalized, "a record the search keeps");
            }
            row.push(table.sensitive[0].codes[r].to_string());
            written.push(row);
        }
        prop_assert_eq!(cells_blanked, release.total_cells());
        prop_assert!(cells_blanked <= d as u64 * outcome.suppressed_records);
        prop_assert_eq!(release.records_failing, outcome.suppressed_records);
        // Plain-text classes; the all-blank one may fail only as the suppressed records.
        let qis: Vec<usize> = (0..d).collect();
        for (key, members) in classes(&written, &qis) {
            let mut values: Vec<&str> = members.iter().map(|&r| written[r][d].as_str()).collect();
            values.sort_unstable();
            values.dedup();
            let holds = members.len() as u64 >= k && l.is_none_or(|l| values.len() >= l);
            let all_blank = key.iter().zip(&blank).all(|(v, b)| v == b);
            prop_assert!(
                holds || (all_blank && release.records_suppressed > 0
                    && release.records_suppressed <= outcome.suppressed_records),
                "class {:?} of {} fails", key, members.len()
            );
        }
    }
}
