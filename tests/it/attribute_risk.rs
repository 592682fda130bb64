//! Attribute risk (`risk::attributes`) against its definitions, written out on the records of
//! small random tables: uniqueness counted on the rows themselves for every set of attributes,
//! minimal sample uniques checked against every proper subset (not only those one smaller),
//! and the tuples given with duplicates and in any order. The run's report and HTML carry it.

use std::collections::HashMap;

use anonbox::risk::attributes::{AttributeRisks, MAX_MSU};
use proptest::prelude::*;

/// Whether row `r` is unique on the attributes of `set` (a bit mask).
fn unique(rows: &[Vec<u32>], r: usize, set: u64) -> bool {
    let on = |x: &Vec<u32>| -> Vec<u32> {
        (0..x.len())
            .filter(|&i| set >> i & 1 == 1)
            .map(|i| x[i])
            .collect()
    };
    let key = on(&rows[r]);
    rows.iter().filter(|x| on(x) == key).count() == 1
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn figures_follow_their_definitions(
        width in 1usize..=5,
        domain in 2u32..=4,
        seed in prop::collection::vec(0u32..4096, 4..40),
    ) {
        // Each record's values from bits of its seed; every other attribute's codes far apart
        // and near u32::MAX (hierarchy codes need not be dense).
        let rows: Vec<Vec<u32>> = seed
            .iter()
            .map(|s| {
                (0..width)
                    .map(|j| {
                        let v = (s >> (2 * j)) % domain;
                        if j % 2 == 1 { u32::MAX - v * 7919 } else { v }
                    })
                    .collect()
            })
            .collect();
        let n = rows.len();
        let names: Vec<String> = (0..width).map(|j| format!("a{j}")).collect();
        // Every record its own tuple, in reverse: the module merges equal tuples.
        let tuples: Vec<(Vec<u32>, u64)> = rows.iter().rev().map(|r| (r.clone(), 1)).collect();
        let got = AttributeRisks::of_tuples(&names, &tuples);
        let all = (1u64 << width) - 1;
        let share = |c: usize| c as f64 / n as f64;
        prop_assert_eq!(got.records, n as u64);
        let uniques: Vec<usize> = (0..n).filter(|&r| unique(&rows, r, all)).collect();
        prop_assert_eq!(got.sample_uniqueness, share(uniques.len()));
        // MSUs by definition: unique on the set, on no proper non-empty subset.
        let msu = |r: usize, set: u64| {
            unique(&rows, r, set)
                && (1..set).filter(|&s| s & set == s && s != set).all(|s| !unique(&rows, r, s))
        };
        let max = MAX_MSU.min(width);
        prop_assert_eq!(got.msu_max_size, max);
        for size in 1..=max {
            let sets: Vec<u64> = (1..=all).filter(|s| s.count_ones() as usize == size).collect();
            let with = (0..n).filter(|&r| sets.iter().any(|&s| msu(r, s))).count();
            prop_assert_eq!(got.records_with_msu_of_size[size - 1], share(with), "size {}", size);
        }
        for (j, a) in got.attributes.iter().enumerate() {
            let bit = 1u64 << j;
            let mut values: HashMap<u32, usize> = HashMap::new();
            for r in &rows {
                *values.entry(r[j]).or_insert(0) += 1;
            }
            prop_assert_eq!(a.distinct, values.len() as u64);
            let alone = (0..n).filter(|&r| unique(&rows, r, bit)).count();
            prop_assert_eq!(a.unique_alone, share(alone));
            let needed = uniques.iter().filter(|&&r| !unique(&rows, r, all & !bit)).count();
            prop_assert_eq!(a.needed, share(needed), "needed {}", j);
            let in_msus = (0..n)
                .filter(|&r| (1..=all).any(|s| s & bit != 0 && s.count_ones() as usize <= max && msu(r, s)))
                .count();
            prop_assert_eq!(a.in_msus, share(in_msus), "in_msus {}", j);
            let pairs = (n * (n - 1)) as f64;
            let apart = (0..n).flat_map(|x| (0..n).map(move |y| (x, y))).filter(|&(x, y)| x != y && rows[x][j] != rows[y][j]).count();
            prop_assert!((a.separation - apart as f64 / pairs).abs() < 1e-12);
        }
    }
}

/// `anonbox audit` gives the same attribute risk for a file as a run's report gives for its
/// input: two paths (the audit's classes of the file's text, the run's encoded frequency set)
/// to one definition.
#[test]
fn audit_and_report_agree_on_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = crate::common::data("adult");
    let qis = ["sex", "age", "race", "marital-status", "education"];
    let atts: String = qis
        .iter()
        .enumerate()
        .map(|(i, q)| {
            format!(
                "<att index='{i}' name='{q}' hierarchy='{}'/>",
                data.join(format!("adult_hierarchy_{q}.csv")).display()
            )
        })
        .collect();
    let input = data.join("adult.csv");
    std::fs::write(
        d.join("c.xml"),
        format!(
            "<config method='Flash' k='5'><input filename='{}' separator=';' header='true'/>\
             <output filename='out.csv'/><qid>{atts}</qid></config>",
            input.display()
        ),
    )
    .unwrap();
    let out = crate::common::anonbox(d, &["-config", "c.xml", "-quiet", "-report", "r.json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    let audit = crate::common::anonbox(
        d,
        &[
            "audit",
            input.to_str().unwrap(),
            "--separator",
            ";",
            "--qi",
            &qis.join(","),
            "--json",
        ],
    );
    assert!(
        audit.status.success(),
        "{}",
        String::from_utf8_lossy(&audit.stderr)
    );
    let audit: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let from_run = &report["risk_analysis"]["attributes_input"];
    assert!(from_run["attributes"]
        .as_array()
        .is_some_and(|a| a.len() == 5));
    assert_eq!(&audit["attribute_risk"], from_run);
}
