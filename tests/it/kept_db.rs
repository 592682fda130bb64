//! `-db` for the in-memory lattice searches: the kept database of a Flash (or BFS) run is opened
//! with rusqlite and checked against the output file and the input file by the test's own
//! reading of both (naive splitting, no anonbox code): every record's class, every class's
//! labels, size and suppressed flag, the original values, and the run row with its report.

use std::collections::HashMap;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::data;
use crate::kcheck;

/// Lines of a ';'-separated file with a header: (header, rows).
fn read_rows(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let split = |l: &str| l.split(';').map(|f| f.trim().to_string()).collect();
    let header = split(lines.next().unwrap());
    (header, lines.map(split).collect())
}

fn check_kept_database(method: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(d)
        .arg("-config")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/adult.xml"))
        .args(["-method", method, "-k", "5", "-suppression", "0.02"])
        .args(["-quiet", "-output", "out.csv", "-report", "r.json"])
        .args(["-db", "work.db"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: Value = serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();

    // The output passes the independent k-anonymity checker.
    let spec = kcheck::Spec {
        separator: ";",
        header: true,
        qid_columns: &[0, 1, 2, 3, 4, 5, 6, 7, 8],
        top: &["*"; 9],
        k: 5,
        max_suppressed: 603, // floor(0.02 * 30,162)
        full_domain: true,
    };
    let found = kcheck::check(&d.join("out.csv"), &spec).unwrap_or_else(|e| panic!("{e}"));
    assert!(found.suppressed > 0, "{method}: the case should suppress");

    let (_, output) = read_rows(&d.join("out.csv"));
    let (_, input) = read_rows(&data("adult/adult.csv"));
    assert_eq!(output.len(), input.len());

    let conn = rusqlite::Connection::open(d.join("work.db")).unwrap();
    let cols: Vec<String> = (0..9).map(|i| format!("ATT_{i}")).collect();

    // Classes as stored: id -> (labels, size, suppressed).
    let mut classes: HashMap<i64, (Vec<String>, i64, bool)> = HashMap::new();
    let mut stmt = conn
        .prepare(&format!(
            "SELECT EquivalenceID, {}, Size, Suppressed FROM EquivalenceTable",
            cols.join(", ")
        ))
        .unwrap();
    let mut rows = stmt.query([]).unwrap();
    while let Some(r) = rows.next().unwrap() {
        let labels: Vec<String> = (1..=9).map(|i| r.get(i).unwrap()).collect();
        let id: i64 = r.get(0).unwrap();
        classes.insert(id, (labels, r.get(10).unwrap(), r.get(11).unwrap()));
    }
    let suppressed_classes: Vec<_> = classes.values().filter(|c| c.2).collect();
    assert_eq!(
        suppressed_classes.len(),
        1,
        "{method}: one suppression class"
    );
    assert_eq!(suppressed_classes[0].0, vec!["*"; 9]);
    assert_eq!(suppressed_classes[0].1 as usize, found.suppressed);
    assert_eq!(classes.len(), found.classes + 1);

    // Every record: its class's labels are its output row's; its codes decode to its input row.
    let mut dictionary: HashMap<(i64, i64), String> = HashMap::new();
    let mut stmt = conn
        .prepare("SELECT AttributeID, Code, Value FROM Dictionary")
        .unwrap();
    let mut rows = stmt.query([]).unwrap();
    while let Some(r) = rows.next().unwrap() {
        dictionary.insert((r.get(0).unwrap(), r.get(1).unwrap()), r.get(2).unwrap());
    }
    let mut members: HashMap<i64, i64> = HashMap::new();
    let mut stmt = conn
        .prepare(&format!(
            "SELECT RecordID, EquivalenceID, {} FROM AnonRecordTable ORDER BY RecordID",
            cols.join(", ")
        ))
        .unwrap();
    let mut rows = stmt.query([]).unwrap();
    let mut n = 0;
    while let Some(r) = rows.next().unwrap() {
        let record: i64 = r.get(0).unwrap();
        n += 1;
        assert_eq!(record, n, "records in input order");
        let class: i64 = r.get(1).unwrap();
        *members.entry(class).or_default() += 1;
        let (labels, _, suppressed) = &classes[&class];
        let out = &output[n as usize - 1];
        assert_eq!(&out[..9], labels.as_slice(), "{method}: record {record}");
        assert_eq!(*suppressed, out[..9].iter().all(|v| v == "*"));
        for q in 0..9 {
            let code: i64 = r.get(q + 2).unwrap();
            assert_eq!(
                dictionary[&(q as i64, code)],
                input[n as usize - 1][q],
                "{method}: record {record}, attribute {q}"
            );
        }
    }
    assert_eq!(n as usize, output.len());
    for (id, (_, size, _)) in &classes {
        assert_eq!(members.get(id).copied().unwrap_or(0), *size, "class {id}");
    }

    // The run row: what ran, the counts and the report.
    let (m, records, stored): (String, i64, String) = conn
        .query_row("SELECT Method, Records, Report FROM Run", [], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(m, method);
    assert_eq!(records, 30162);
    let stored: Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["suppressed_records"], report["suppressed_records"]);
    assert_eq!(stored["transformation"], report["transformation"]);
    assert_eq!(
        report["equivalence_classes"].as_u64().unwrap() as usize,
        found.classes
    );
    // The README's views work on it.
    let view: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM AnonymizedView a JOIN RecordView r USING (RecordID)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(view, 30162);
}

#[test]
fn flash_keeps_a_database_that_matches_its_output() {
    check_kept_database("Flash");
}

#[test]
fn bfs_keeps_a_database_that_matches_its_output() {
    check_kept_database("BFS");
}
