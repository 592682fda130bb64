//! Flash, OLA and exhaustive search: golden tests against ARX's results on ADULT, the paper's
//! example, and property tests against exhaustive search on random tables.

use std::path::Path;

use anonbox::algorithms::{solve, LatticeAlgorithm, Outcome};
use anonbox::check::{Checker, CheckerConfig};
use anonbox::data::EncodedTable;
use anonbox::hierarchy::Hierarchy;
use anonbox::job::{MetricKind, SuppressionLimit};
use anonbox::metrics;
use anonbox::privacy::{KAnonymity, PrivacyCriterion};

use crate::common;

/// Loads an ARX-style data set: `csv` (';'-separated, header) and one hierarchy file per column,
/// `<hierarchy_dir>/<prefix>_hierarchy_<column>.csv`. (Test-only stand-in for the real loader.)
pub fn load_arx(csv: &Path, hierarchy_dir: &Path, prefix: &str) -> EncodedTable {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let hierarchies: Vec<Hierarchy> = header
        .iter()
        .map(|col| {
            let path = hierarchy_dir.join(format!("{prefix}_hierarchy_{col}.csv"));
            let rows: Vec<Vec<String>> = std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty())
                .map(|l| l.split(';').map(str::to_string).collect())
                .collect();
            Hierarchy::from_label_rows(*col, &rows)
        })
        .collect();
    let index: Vec<std::collections::HashMap<&str, u32>> = hierarchies
        .iter()
        .map(|h| {
            h.labels(0)
                .iter()
                .enumerate()
                .map(|(i, v)| (v.as_str(), i as u32))
                .collect()
        })
        .collect();
    let mut codes = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        for (j, v) in line.split(';').enumerate() {
            codes.push(
                *index[j]
                    .get(v)
                    .unwrap_or_else(|| panic!("{v} not in hierarchy {j}")),
            );
        }
    }
    EncodedTable::new(codes, hierarchies, vec![])
}

pub fn adult() -> EncodedTable {
    let dir = common::data("adult");
    load_arx(&dir.join("adult.csv"), &dir, "adult")
}

pub fn metric_kind(name: &str) -> MetricKind {
    MetricKind::parse(name).unwrap_or_else(|| panic!("metric {name}"))
}

fn k_anon(k: u64) -> Vec<Box<dyn PrivacyCriterion>> {
    vec![Box::new(KAnonymity { k })]
}

pub fn run(
    table: &EncodedTable,
    k: u64,
    fraction: f64,
    metric: MetricKind,
    algorithm: LatticeAlgorithm,
    config: CheckerConfig,
) -> Outcome {
    let budget = SuppressionLimit::Fraction(fraction).budget(table.rows() as u64);
    solve(
        table,
        k_anon(k),
        metrics::build(metric, table),
        budget,
        algorithm,
        config,
    )
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300)
}

/// Checks one reference row: the reference transformation evaluates to the reference figures,
/// and Flash finds the same loss (and the same transformation, or a tie).
fn golden(table: &EncodedTable, row: &serde_json::Value) {
    let k = row["k"].as_u64().unwrap();
    let s = row["suppression_limit"].as_f64().unwrap();
    let metric = metric_kind(row["metric"].as_str().unwrap());
    let want: Vec<usize> = row["transformation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let loss = row["information_loss"].as_f64().unwrap();
    let supp = row["suppressed_records"].as_u64().unwrap();
    let classes = row["equivalence_classes"].as_u64().unwrap();
    let what = format!("k={k} s={s} {metric:?}");

    let budget = SuppressionLimit::Fraction(s).budget(table.rows() as u64);
    let mut checker = Checker::new(
        table,
        k_anon(k),
        metrics::build(metric, table),
        budget,
        CheckerConfig::plain(),
    )
    .unwrap();
    let r = checker.check(&want, &|_| false);
    assert!(r.anonymous, "{what}: reference transformation invalid");
    assert!(
        close(r.loss.unwrap(), loss),
        "{what}: {:?} vs {loss}",
        r.loss
    );
    assert_eq!((r.suppressed, r.classes), (supp, classes), "{what}");

    let out = run(
        table,
        k,
        s,
        metric,
        LatticeAlgorithm::Flash,
        CheckerConfig::default(),
    );
    let got = out.optimum.expect("a solution");
    assert!(
        close(got.loss, loss),
        "{what}: Flash {} vs ARX {loss}",
        got.loss
    );
    if matches!(metric, MetricKind::DmStar | MetricKind::Dm) {
        assert_eq!(got.loss, loss, "{what}: DM/DM* exactly");
    }
    if got.levels == want {
        assert_eq!((got.suppressed, got.classes), (supp, classes), "{what}");
    } else {
        eprintln!("{what}: tie {:?} vs ARX {want:?}", got.levels);
    }
}

fn reference(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(common::data(&format!("reference/{name}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn adult_matches_arx_for_every_reference_row() {
    let table = adult();
    let rows = reference("arx-adult-k-anonymity.json");
    assert_eq!(rows.len(), 27);
    for row in &rows {
        golden(&table, row);
    }
}

#[test]
fn paper_example_k2_is_112() {
    let dir = common::data("example");
    let table = load_arx(&dir.join("example.csv"), &dir, "example");
    for algorithm in [
        LatticeAlgorithm::Flash,
        LatticeAlgorithm::Ola,
        LatticeAlgorithm::Exhaustive,
    ] {
        let out = run(
            &table,
            2,
            0.0,
            MetricKind::DmStar,
            algorithm,
            CheckerConfig::default(),
        );
        let opt = out.optimum.unwrap();
        assert_eq!(opt.levels, vec![1, 1, 2], "{algorithm:?}");
        assert_eq!(opt.suppressed, 0);
        assert_eq!(opt.classes, 3); // <50|816**, >=50|819**, <50|819**
    }
}
