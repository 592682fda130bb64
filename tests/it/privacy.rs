//! Privacy models with a sensitive attribute in the Flash engine: ARX's results on ADULT
//! reproduced, Flash against exhaustive search on random tables (each model, with and without
//! suppression, alone and with k), and `anonbox audit` confirming the models on what the engine
//! produces.

use std::path::Path;

use anonbox::algorithms::{solve, LatticeAlgorithm, SearchOutcome};
use anonbox::check::{Checker, CheckerConfig};
use anonbox::data::{EncodedTable, SensitiveColumn};
use anonbox::hierarchy::Hierarchy;
use anonbox::job::{MetricKind, PrivacyModel, SuppressionLimit, TDistance};
use anonbox::metrics;
use anonbox::privacy::{criteria, Flavor, PrivacyCriterion};
use proptest::prelude::*;
use serde_json::Value;

use crate::common;

fn read_hierarchy(path: &Path, name: &str) -> Hierarchy {
    let rows: Vec<Vec<String>> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect();
    Hierarchy::from_label_rows(name, &rows)
}

/// ADULT with `qis` as quasi-identifiers (in that order) and `sensitive` as the one sensitive
/// attribute, coded in its hierarchy file's order (with the hierarchy, for the hierarchical
/// distance). Also returns the raw rows.
fn adult(qis: &[String], sensitive: &str) -> (EncodedTable, Vec<Vec<String>>) {
    let dir = common::data("adult");
    let text = std::fs::read_to_string(dir.join("adult.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let rows: Vec<Vec<String>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let load = |name: &str| read_hierarchy(&dir.join(format!("adult_hierarchy_{name}.csv")), name);
    let hierarchies: Vec<Hierarchy> = qis.iter().map(|q| load(q)).collect();
    let code = |h: &Hierarchy, v: &str| {
        h.code_of(v)
            .unwrap_or_else(|| panic!("{v} not in {}", h.name))
    };
    let index: Vec<std::collections::HashMap<String, u32>> = hierarchies
        .iter()
        .map(|h| {
            (0..h.leaves() as u32)
                .map(|c| (h.label(0, c).to_string(), c))
                .collect()
        })
        .collect();
    let cols: Vec<usize> = qis.iter().map(|q| col(q)).collect();
    let mut codes = Vec::with_capacity(rows.len() * qis.len());
    for r in &rows {
        for (j, &c) in cols.iter().enumerate() {
            codes.push(index[j][&r[c]]);
        }
    }
    let sh = load(sensitive);
    let s = col(sensitive);
    let sens = SensitiveColumn {
        name: sensitive.to_string(),
        codes: rows.iter().map(|r| code(&sh, &r[s])).collect(),
        values: sh.labels(0).to_vec(),
        numeric: None,
        hierarchy: Some(sh),
    };
    (EncodedTable::new(codes, hierarchies, vec![sens]), rows)
}

fn build(models: &[PrivacyModel], table: &EncodedTable) -> Vec<Box<dyn PrivacyCriterion>> {
    models
        .iter()
        .map(|m| criteria::build(m, table, Flavor::Arx).unwrap())
        .collect()
}

pub fn search(
    table: &EncodedTable,
    models: &[PrivacyModel],
    budget: u64,
    metric: MetricKind,
    algorithm: LatticeAlgorithm,
) -> SearchOutcome {
    solve(
        table,
        build(models, table),
        metrics::build(metric, table),
        budget,
        algorithm,
        CheckerConfig::default(),
    )
    .unwrap()
}

/// Writes the anonymized table: quasi-identifiers generalized to `levels`, outlier records with
/// every quasi-identifier `marker`, the sensitive column as is. Returns the file.
fn write_output(
    dir: &Path,
    table: &EncodedTable,
    models: &[PrivacyModel],
    budget: u64,
    levels: &[usize],
    marker: &str,
) -> std::path::PathBuf {
    let mut checker = Checker::new(
        table,
        build(models, table),
        metrics::build(MetricKind::Loss, table),
        budget,
        CheckerConfig::plain(),
    )
    .unwrap();
    let outliers = checker.outlier_rows(levels);
    let s = &table.sensitive[0];
    let mut text: String = table
        .hierarchies
        .iter()
        .map(|h| h.name.clone())
        .collect::<Vec<_>>()
        .join(";");
    text.push_str(&format!(";{}\n", s.name));
    for (r, &outlier) in outliers.iter().enumerate() {
        let fields: Vec<String> = table
            .row(r)
            .zip(&table.hierarchies)
            .zip(levels)
            .map(|((c, h), &l)| {
                if outlier {
                    marker.to_string()
                } else {
                    h.label(l, h.get(c, l)).to_string()
                }
            })
            .collect();
        text.push_str(&fields.join(";"));
        text.push(';');
        text.push_str(&s.values[s.codes[r] as usize]);
        text.push('\n');
    }
    let path = dir.join("out.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// `anonbox audit` (in process) on `file`: returns (all thresholds hold, JSON report).
fn audit(args: &[String]) -> (bool, Value) {
    let mut all = args.to_vec();
    all.push("--json".into());
    let mut out = Vec::new();
    let holds =
        anonbox::cmd::audit::run(&all, &mut out).unwrap() == anonbox::cmd::audit::Verdict::Holds;
    (holds, serde_json::from_slice(&out).unwrap())
}

/// Audit flags checking `models` on the sensitive column `sensitive`.
fn audit_flags(models: &[PrivacyModel], sensitive: &str, hierarchy: Option<&Path>) -> Vec<String> {
    let mut f: Vec<String> = vec!["--sensitive".into(), sensitive.into()];
    if let Some(h) = hierarchy {
        f.extend(["--hierarchy".into(), h.display().to_string()]);
    }
    for m in models {
        match *m {
            PrivacyModel::KAnonymity { k } => f.extend(["-k".into(), k.to_string()]),
            PrivacyModel::DistinctL { l, .. } => f.extend(["-l".into(), l.to_string()]),
            PrivacyModel::EntropyL { l, .. } => f.extend(["--entropy-l".into(), l.to_string()]),
            PrivacyModel::RecursiveCL { c, l, .. } => {
                f.extend(["-l".into(), l.to_string(), "-c".into(), c.to_string()])
            }
            PrivacyModel::TCloseness { t, distance, .. } => {
                let d = match distance {
                    TDistance::Equal => "equal",
                    TDistance::Ordered => "ordered",
                    TDistance::Hierarchical => "hierarchical",
                };
                f.extend(["-t".into(), t.to_string(), "--distance".into(), d.into()])
            }
            _ => unreachable!("the audit checks the models with a sensitive attribute"),
        }
    }
    f
}

/// Every row of `reference/arx-adult-sensitive.json` (occupation sensitive, 8 quasi-identifiers,
/// suppression 0.02, Loss): same information loss (relative 1e-9), suppressed records, classes
/// and transformation. Then `anonbox audit` confirms the model on the output.
#[test]
fn arx_adult_sensitive_golden() {
    let text = std::fs::read_to_string(common::data("reference/arx-adult-sensitive.json")).unwrap();
    let refs: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(refs.len(), 4);
    let tmp = tempfile::tempdir().unwrap();
    for r in &refs {
        let qis: Vec<String> = r["quasi_identifiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let sensitive = r["sensitive_attribute"].as_str().unwrap();
        let (table, _) = adult(&qis, sensitive);
        let f = |k: &str| r[k].as_f64().unwrap();
        let model = match r["privacy_model"].as_str().unwrap() {
            "distinct-l-diversity" => PrivacyModel::DistinctL {
                attribute: 0,
                l: f("l"),
            },
            "entropy-l-diversity" => PrivacyModel::EntropyL {
                attribute: 0,
                l: f("l"),
            },
            "recursive-(c,l)-diversity" => PrivacyModel::RecursiveCL {
                attribute: 0,
                c: f("c"),
                l: f("l"),
            },
            "t-closeness" => {
                assert_eq!(r["distance"], "equal");
                PrivacyModel::TCloseness {
                    attribute: 0,
                    t: f("t"),
                    distance: TDistance::Equal,
                }
            }
            other => panic!("model {other}"),
        };
        let models = [model];
        let budget = SuppressionLimit::Fraction(f("suppression_limit")).budget(table.rows() as u64);
        let start = std::time::Instant::now();
        let out = search(
            &table,
            &models,
            budget,
            MetricKind::Loss,
            LatticeAlgorithm::Flash,
        );
        let elapsed = start.elapsed();
        let opt = out.optimum.as_ref().expect("a solution");
        let want_loss = f("information_loss");
        let what = format!(
            "{}: {opt:?} in {elapsed:?}, {} checks",
            r["privacy_model"], out.checks
        );
        assert!(
            ((opt.loss - want_loss) / want_loss).abs() <= 1e-9,
            "{what}: loss {want_loss}"
        );
        assert_eq!(
            opt.suppressed,
            r["suppressed_records"].as_u64().unwrap(),
            "{what}"
        );
        assert_eq!(
            opt.classes,
            r["equivalence_classes"].as_u64().unwrap(),
            "{what}"
        );
        let levels = common::levels(r);
        assert_eq!(opt.levels, levels, "{what}");
        eprintln!("{what}");

        // The audit of the output confirms the model, and counts what the engine counted.
        let file = write_output(tmp.path(), &table, &models, budget, &opt.levels, "*");
        let hier = common::data("adult/adult_hierarchy_occupation.csv");
        let mut args = vec![
            file.display().to_string(),
            "--separator".into(),
            ";".into(),
            "--qi".into(),
            qis.join(","),
        ];
        args.extend(audit_flags(&models, sensitive, Some(&hier)));
        let (holds, v) = audit(&args);
        assert!(holds, "{what}: audit says {v}");
        assert_eq!(v["suppressed"].as_u64(), Some(opt.suppressed), "{what}");
        assert_eq!(v["classes"].as_u64(), Some(opt.classes), "{what}");
    }
}

/// A small random table: 2 or 3 quasi-identifiers with small hierarchies, one sensitive
/// attribute with a 3-level hierarchy and numeric values.
#[derive(Debug, Clone)]
pub struct Random {
    /// Per QI: leaves and, per level above 0, the group of each leaf (monotonic by construction).
    qis: Vec<(usize, usize)>,
    rows: Vec<(Vec<u32>, u32)>,
    /// Sensitive: number of values and the group (level 1) of each.
    values: usize,
    groups: Vec<u32>,
}

fn qi_hierarchy(name: &str, leaves: usize, levels: usize) -> Hierarchy {
    // Level i groups leaves by code >> i; the top level is `*`.
    let rows: Vec<Vec<String>> = (0..leaves)
        .map(|c| {
            (0..levels)
                .map(|l| {
                    if l == 0 {
                        format!("v{c}")
                    } else if l == levels - 1 {
                        "*".to_string()
                    } else {
                        format!("g{l}-{}", c >> l)
                    }
                })
                .collect()
        })
        .collect();
    Hierarchy::from_label_rows(name, &rows)
}

impl Random {
    pub fn table(&self) -> EncodedTable {
        let hierarchies: Vec<Hierarchy> = self
            .qis
            .iter()
            .enumerate()
            .map(|(i, &(leaves, levels))| qi_hierarchy(&format!("q{i}"), leaves, levels))
            .collect();
        let codes = self.rows.iter().flat_map(|r| r.0.iter().copied()).collect();
        let srows: Vec<Vec<String>> = (0..self.values)
            .map(|v| {
                vec![
                    format!("{}", 10 * v + 5),
                    format!("G{}", self.groups[v]),
                    "*".into(),
                ]
            })
            .collect();
        let sens = SensitiveColumn {
            name: "s".into(),
            codes: self.rows.iter().map(|r| r.1).collect(),
            values: (0..self.values)
                .map(|v| format!("{}", 10 * v + 5))
                .collect(),
            numeric: Some((0..self.values).map(|v| (10 * v + 5) as f64).collect()),
            hierarchy: Some(Hierarchy::from_label_rows("s", &srows)),
        };
        EncodedTable::new(codes, hierarchies, vec![sens])
    }

    fn hierarchy_file(&self, dir: &Path) -> std::path::PathBuf {
        let path = dir.join("s-hierarchy.csv");
        let text: String = (0..self.values)
            .map(|v| format!("{};G{};*\n", 10 * v + 5, self.groups[v]))
            .collect();
        std::fs::write(&path, text).unwrap();
        path
    }
}

pub fn random_table() -> impl Strategy<Value = Random> {
    let qis = prop::collection::vec((2usize..5, 2usize..4), 2..4);
    (qis, 2usize..6, 8usize..40).prop_flat_map(|(qis, values, n)| {
        let row = (
            qis.iter()
                .map(|&(leaves, _)| 0..leaves as u32)
                .collect::<Vec<_>>(),
            0..values as u32,
        );
        (
            Just(qis),
            Just(values),
            prop::collection::vec(0u32..2, values),
            prop::collection::vec(row, n),
        )
            .prop_map(|(qis, values, groups, rows)| Random {
                qis,
                rows,
                values,
                groups,
            })
    })
}

/// The models the property test draws from.
fn model(i: usize) -> PrivacyModel {
    match i {
        0 => PrivacyModel::DistinctL {
            attribute: 0,
            l: 2.0,
        },
        1 => PrivacyModel::EntropyL {
            attribute: 0,
            l: 1.8,
        },
        2 => PrivacyModel::RecursiveCL {
            attribute: 0,
            c: 2.0,
            l: 2.0,
        },
        3 => PrivacyModel::TCloseness {
            attribute: 0,
            t: 0.3,
            distance: TDistance::Equal,
        },
        4 => PrivacyModel::TCloseness {
            attribute: 0,
            t: 0.25,
            distance: TDistance::Ordered,
        },
        _ => PrivacyModel::TCloseness {
            attribute: 0,
            t: 0.3,
            distance: TDistance::Hierarchical,
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Flash finds the optimum of exhaustive search (same loss; ties allowed), its optimum is
    /// valid when checked on its own, and audit confirms the models on its output.
    #[test]
    fn flash_agrees_with_exhaustive_search(
        r in random_table(),
        m in 0usize..6,
        suppression in prop::sample::select(vec![0.0, 0.15]),
        with_k in any::<bool>(),
        metric in prop::sample::select(vec![MetricKind::Loss, MetricKind::DmStar]),
    ) {
        let table = r.table();
        let mut models = vec![model(m)];
        if with_k {
            models.push(PrivacyModel::KAnonymity { k: 2 });
        }
        let budget = SuppressionLimit::Fraction(suppression).budget(table.rows() as u64);
        let flash = search(&table, &models, budget, metric, LatticeAlgorithm::Flash);
        let all = search(&table, &models, budget, metric, LatticeAlgorithm::Exhaustive);
        let bfs = search(&table, &models, budget, metric, LatticeAlgorithm::Bfs);
        prop_assert_eq!(bfs.optimum.as_ref().map(|o| o.loss), flash.optimum.as_ref().map(|o| o.loss),
            "BFS vs Flash");
        match (&flash.optimum, &all.optimum) {
            (None, None) => {}
            (Some(f), Some(e)) => {
                prop_assert!((f.loss - e.loss).abs() <= 1e-9 * e.loss.abs().max(1.0),
                    "flash {f:?} vs exhaustive {e:?}");
                let mut checker = Checker::new(
                    &table, build(&models, &table), metrics::build(metric, &table), budget,
                    CheckerConfig::plain(),
                ).unwrap();
                let res = checker.check(&f.levels, &|_| false);
                prop_assert!(res.anonymous, "flash optimum {f:?} is not valid");
                // Audit (exact arithmetic) confirms every model on the output.
                let dir = tempfile::tempdir().unwrap();
                let file = write_output(dir.path(), &table, &models, budget, &f.levels, "#");
                let hier = r.hierarchy_file(dir.path());
                let qis: Vec<String> = table.hierarchies.iter().map(|h| h.name.clone()).collect();
                let mut args = vec![
                    file.display().to_string(), "--separator".into(), ";".into(),
                    "--qi".into(), qis.join(","), "--suppressed".into(), "#".into(),
                ];
                args.extend(audit_flags(&models, "s", Some(&hier)));
                let (holds, v) = audit(&args);
                prop_assert!(holds, "audit of {f:?}: {v}");
                prop_assert_eq!(v["suppressed"].as_u64(), Some(f.suppressed));
                prop_assert_eq!(v["classes"].as_u64(), Some(f.classes));
            }
            (f, e) => prop_assert!(false, "flash {f:?} vs exhaustive {e:?}"),
        }
    }
}

/// Combined models: every class must satisfy all of them; on ADULT the optimum of k = 5 plus
/// distinct 3-diversity is at least as general as either alone (its loss is at least the larger).
#[test]
fn models_combine_on_adult() {
    let qis: Vec<String> = common::adult_attributes_but("occupation")
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (table, _) = adult(&qis, "occupation");
    let budget = SuppressionLimit::Fraction(0.02).budget(table.rows() as u64);
    let k = PrivacyModel::KAnonymity { k: 5 };
    let l = PrivacyModel::DistinctL {
        attribute: 0,
        l: 3.0,
    };
    let t = PrivacyModel::TCloseness {
        attribute: 0,
        t: 0.2,
        distance: TDistance::Equal,
    };
    let loss = |models: &[PrivacyModel]| {
        search(
            &table,
            models,
            budget,
            MetricKind::Loss,
            LatticeAlgorithm::Flash,
        )
        .optimum
        .unwrap()
        .loss
    };
    let one = std::slice::from_ref;
    let (lk, ll, lt) = (loss(one(&k)), loss(one(&l)), loss(one(&t)));
    let both = loss(&[k.clone(), l.clone()]);
    let all = loss(&[k, l, t]);
    assert!(both >= lk.max(ll) - 1e-12, "{both} vs {lk}, {ll}");
    assert!(all >= both.max(lt) - 1e-12, "{all} vs {both}, {lt}");
}
