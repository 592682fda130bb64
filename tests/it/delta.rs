//! δ-presence in the in-memory engine.
//!
//! - Property tests on small random populations with a research subset: the checker's verdict,
//!   suppressed records, classes and DM on *every* transformation agree with an independent
//!   brute-force evaluation of ARX's semantics (released data = the subset; δ over the
//!   population; classes without subset records judged by δ alone and never suppressed), on the
//!   plain path and with roll-ups and snapshots; Flash, OLA and exhaustive search find the
//!   brute-force optimum. With and without suppression, alone, with k and with distinct
//!   l-diversity (whose distributions must count subset records only).
//! - The loader: multiset matching of a subset file, errors naming the file and line.
//! - End to end on ADULT: `anonbox -method Flash` with a subset column and with an equivalent
//!   subset file (same result), output = the subset's rows; `anonbox audit` confirms δ on the
//!   written output against the population generalized independently, and k on the output.
//! - Bad subsets exit non-zero with a clear message and write nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anonbox::algorithms::{solve, LatticeAlgorithm};
use anonbox::check::{Checker, CheckerConfig};
use anonbox::cli::RunArgs;
use anonbox::config::build_job;
use anonbox::data::{EncodedTable, SensitiveColumn};
use anonbox::hierarchy::Hierarchy;
use anonbox::job::{MetricKind, PrivacyModel, SubsetSpec, SuppressionLimit};
use anonbox::metrics;
use proptest::prelude::*;
use serde_json::Value;

use crate::common;

// ---------------------------------------------------------------------------------------------
// Random populations against brute force.

/// A population: quasi-identifiers `(leaves, levels)`, rows of (codes, sensitive value, member).
#[derive(Debug, Clone)]
struct Population {
    qis: Vec<(usize, usize)>,
    rows: Vec<(Vec<u32>, u32, bool)>,
}

/// Level i groups leaves by code >> i; the top level is `*`.
fn qi_hierarchy(name: &str, leaves: usize, levels: usize) -> Hierarchy {
    let rows: Vec<Vec<String>> = (0..leaves)
        .map(|c| {
            (0..levels)
                .map(|l| match l {
                    0 => format!("v{c}"),
                    l if l == levels - 1 => "*".to_string(),
                    l => format!("g{l}-{}", c >> l),
                })
                .collect()
        })
        .collect();
    Hierarchy::from_label_rows(name, &rows)
}

impl Population {
    fn table(&self) -> EncodedTable {
        let hierarchies = self
            .qis
            .iter()
            .enumerate()
            .map(|(i, &(leaves, levels))| qi_hierarchy(&format!("q{i}"), leaves, levels))
            .collect();
        let codes = self.rows.iter().flat_map(|r| r.0.iter().copied()).collect();
        let sens = SensitiveColumn {
            name: "s".into(),
            codes: self.rows.iter().map(|r| r.1).collect(),
            values: (0..3).map(|v| format!("s{v}")).collect(),
            numeric: None,
            hierarchy: None,
        };
        EncodedTable::new(codes, hierarchies, vec![sens])
            .with_subset(self.rows.iter().map(|r| r.2).collect())
    }

    fn members(&self) -> u64 {
        self.rows.iter().filter(|r| r.2).count() as u64
    }
}

fn population() -> impl Strategy<Value = Population> {
    let qis = prop::collection::vec((2usize..5, 2usize..4), 2..4);
    (qis, 6usize..40).prop_flat_map(|(qis, n)| {
        let row = (
            qis.iter()
                .map(|&(leaves, _)| 0..leaves as u32)
                .collect::<Vec<_>>(),
            0u32..3,
            prop::bool::weighted(0.45),
        );
        (Just(qis), prop::collection::vec(row, n))
            .prop_map(|(qis, rows)| Population { qis, rows })
            .prop_filter("a non-empty subset", |p| p.rows.iter().any(|r| r.2))
    })
}

/// The models of one case, for the engine and the oracle.
#[derive(Debug, Clone, Copy)]
struct Models {
    dmin: f64,
    dmax: f64,
    /// k-anonymity of the released records, if any.
    k: Option<u64>,
    /// Distinct 2-diversity of the released records' sensitive values.
    l2: bool,
}

impl Models {
    fn privacy(&self) -> Vec<PrivacyModel> {
        let mut m = vec![PrivacyModel::DeltaPresence {
            dmin: self.dmin,
            dmax: self.dmax,
            subset: SubsetSpec::Column(0),
        }];
        if let Some(k) = self.k {
            m.push(PrivacyModel::KAnonymity { k });
        }
        if self.l2 {
            m.push(PrivacyModel::DistinctL {
                attribute: 0,
                l: 2.0,
            });
        }
        m
    }
}

/// Brute-force verdict on one transformation.
#[derive(Debug, Clone, PartialEq)]
struct Verdict {
    valid: bool,
    suppressed: u64,
    classes: u64,
    dm: u64,
}

/// ARX's semantics, written out: group the population at `levels`; a class with subset records
/// is kept if it has at least k of them, at least 2 distinct sensitive values among them and
/// dmin <= subset/population <= dmax, else its subset records are suppressed; a class without
/// subset records releases nothing and must have 0 >= dmin. DM counts released records.
fn oracle(p: &Population, hs: &[Hierarchy], levels: &[usize], m: &Models, budget: u64) -> Verdict {
    #[derive(Default)]
    struct C {
        pop: u64,
        sub: u64,
        values: Vec<u32>,
    }
    let mut classes: HashMap<Vec<u32>, C> = HashMap::new();
    for (codes, s, member) in &p.rows {
        let key: Vec<u32> = codes
            .iter()
            .zip(hs)
            .zip(levels)
            .map(|((&c, h), &l)| h.get(c, l))
            .collect();
        let c = classes.entry(key).or_default();
        c.pop += 1;
        if *member {
            c.sub += 1;
            if !c.values.contains(s) {
                c.values.push(*s);
            }
        }
    }
    let n = p.members();
    let (mut suppressed, mut kept, mut dm, mut empty_fails) = (0, 0, 0, false);
    for c in classes.values() {
        let delta = c.sub as f64 / c.pop as f64;
        let present = delta >= m.dmin && delta <= m.dmax;
        if c.sub == 0 {
            empty_fails |= !present;
            continue;
        }
        let ok = present && m.k.is_none_or(|k| c.sub >= k) && (!m.l2 || c.values.len() >= 2);
        if ok {
            kept += 1;
            dm += c.sub * c.sub;
        } else {
            suppressed += c.sub;
            dm += n * c.sub;
        }
    }
    Verdict {
        valid: suppressed <= budget && !empty_fails,
        suppressed,
        classes: kept,
        dm,
    }
}

/// Every levels vector of the lattice, by ascending level sum.
fn lattice(hs: &[Hierarchy]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for h in hs {
        all = all
            .into_iter()
            .flat_map(|v: Vec<usize>| {
                (0..h.levels()).map(move |l| {
                    let mut w = v.clone();
                    w.push(l);
                    w
                })
            })
            .collect();
    }
    all.sort_by_key(|v| (v.iter().sum::<usize>(), v.clone()));
    all
}

fn models() -> impl Strategy<Value = Models> {
    (
        prop::sample::select(vec![
            (0.0, 0.5),
            (0.0, 0.34),
            (0.2, 0.8),
            (0.1, 0.6),
            (0.3, 1.0),
        ]),
        prop::option::of(2u64..4),
        prop::bool::weighted(0.3),
    )
        .prop_map(|((dmin, dmax), k, l2)| Models { dmin, dmax, k, l2 })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// The checker agrees with the brute force on every transformation (plain path, and the
    /// default path with roll-ups and snapshots), and every search finds the brute-force optimum.
    #[test]
    fn engine_agrees_with_brute_force(
        p in population(),
        m in models(),
        suppression in prop::sample::select(vec![0.0, 0.2]),
    ) {
        let table = p.table();
        prop_assert_eq!(table.records() as u64, p.members());
        let budget = SuppressionLimit::Fraction(suppression).budget(p.members());
        let privacy = m.privacy();
        let criteria = || anonbox::privacy::build(&privacy, 1, &table).unwrap();
        let metric = || metrics::build(MetricKind::Dm, &table);
        let mut checkers = [
            Checker::new(&table, criteria(), metric(), budget, CheckerConfig::plain()).unwrap(),
            Checker::new(&table, criteria(), metric(), budget, CheckerConfig::default()).unwrap(),
        ];
        checkers[1].set_store_anonymous(true);
        let mut best: Option<u64> = None;
        for levels in lattice(&table.hierarchies) {
            let want = oracle(&p, &table.hierarchies, &levels, &m, budget);
            if want.valid {
                best = Some(best.map_or(want.dm, |b| b.min(want.dm)));
            }
            for (i, ch) in checkers.iter_mut().enumerate() {
                let r = ch.check(&levels, &|_| false);
                let got = Verdict {
                    valid: r.anonymous,
                    suppressed: r.suppressed,
                    classes: r.classes,
                    dm: want.dm,
                };
                // Past the budget a check stops judging classes and reports one record over
                // it and no class kept (the same on every path).
                let want = if want.suppressed > budget {
                    Verdict { suppressed: budget + 1, classes: 0, ..want.clone() }
                } else {
                    want.clone()
                };
                prop_assert_eq!(&got, &want, "checker {} at {:?}", i, levels);
                if r.anonymous {
                    prop_assert_eq!(r.loss, Some(want.dm as f64), "DM at {:?}", levels);
                    let outliers = ch.outlier_rows(&levels);
                    let n = outliers.iter().filter(|&&o| o).count() as u64;
                    prop_assert_eq!(n, want.suppressed);
                    for (r, &o) in outliers.iter().enumerate() {
                        prop_assert!(!o || p.rows[r].2, "a population-only row is an outlier");
                    }
                }
            }
        }
        for algorithm in [
            LatticeAlgorithm::Flash,
            LatticeAlgorithm::Ola,
            LatticeAlgorithm::Bfs,
            LatticeAlgorithm::Exhaustive,
        ] {
            let out = solve(&table, criteria(), metric(), budget, algorithm, CheckerConfig::default())
                .unwrap();
            prop_assert_eq!(out.optimum.as_ref().map(|o| o.loss), best.map(|b| b as f64),
                "{:?}", algorithm);
        }
        // And with the Loss metric (floating point, bounds from the levels), Flash still finds
        // exhaustive search's optimum.
        let loss = |algorithm| {
            solve(&table, criteria(), metrics::build(MetricKind::Loss, &table), budget, algorithm,
                CheckerConfig::default()).unwrap().optimum.map(|o| o.loss)
        };
        let (f, e) = (loss(LatticeAlgorithm::Flash), loss(LatticeAlgorithm::Exhaustive));
        prop_assert_eq!(f.is_some(), e.is_some());
        let b = loss(LatticeAlgorithm::Bfs);
        prop_assert_eq!(b.is_some(), e.is_some());
        if let (Some(b), Some(e)) = (b, e) {
            prop_assert!((b - e).abs() <= 1e-9 * e.abs().max(1.0), "BFS {} vs exhaustive {}", b, e);
        }
        if let (Some(f), Some(e)) = (f, e) {
            prop_assert!((f - e).abs() <= 1e-9 * e.abs().max(1.0), "flash {} vs exhaustive {}", f, e);
        }
    }
}

/// By hand: a class without subset records makes a transformation invalid when dmin > 0, and
/// no suppression budget helps; with dmin = 0 it is ignored.
#[test]
fn empty_classes_cannot_be_suppressed() {
    let p = Population {
        qis: vec![(2, 2)],
        // Class v0: 1 of 2 in the subset; class v1: none of 2.
        rows: vec![
            (vec![0], 0, true),
            (vec![0], 1, false),
            (vec![1], 0, false),
            (vec![1], 1, false),
        ],
    };
    let table = p.table();
    let check = |dmin: f64, budget: u64, levels: &[usize]| {
        let m = Models {
            dmin,
            dmax: 1.0,
            k: None,
            l2: false,
        };
        let criteria = anonbox::privacy::build(&m.privacy(), 1, &table).unwrap();
        let mut ch = Checker::new(
            &table,
            criteria,
            metrics::build(MetricKind::Dm, &table),
            budget,
            CheckerConfig::plain(),
        )
        .unwrap();
        ch.check(levels, &|_| false)
    };
    let r = check(0.1, 4, &[0]);
    assert!(!r.anonymous);
    assert_eq!((r.suppressed, r.classes, r.all_classes), (0, 1, 1));
    assert!(check(0.0, 0, &[0]).anonymous);
    // Generalized: one class, 1 of 4.
    assert!(check(0.25, 0, &[1]).anonymous);
    assert!(
        !check(0.3, 0, &[1]).anonymous,
        "1 of 4 < 0.3: 1 record to suppress"
    );
    assert_eq!(check(0.3, 1, &[1]).suppressed, 1);
    assert!(check(0.3, 1, &[1]).anonymous);
}

// ---------------------------------------------------------------------------------------------
// The loader.

/// A tiny population (header, `;`), one quasi-identifier with a hierarchy file, in `dir`.
fn tiny(dir: &Path, rows: &[&str], privacy: &str) -> PathBuf {
    std::fs::write(dir.join("h.csv"), "a;*\nb;*\nc;*\n").unwrap();
    let mut text = String::from("q;x;flag\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    std::fs::write(dir.join("pop.csv"), text).unwrap();
    let config = dir.join("config.xml");
    std::fs::write(
        &config,
        format!(
            "<config method='Flash'>\
               <input filename='pop.csv' separator=';' header='true'/>\
               <output filename='out.csv' format='genVals'/>\
               <qid><att index='0' name='q' hierarchy='h.csv'/></qid>\
               <privacy>{privacy}</privacy>\
             </config>"
        ),
    )
    .unwrap();
    config
}

fn load(config: &Path) -> anonbox::Result<EncodedTable> {
    let args = RunArgs {
        config: Some(config.to_path_buf()),
        quiet: true,
        ..RunArgs::default()
    };
    let job = build_job(&args).unwrap();
    crate::common::load_table(&job).map(|t| t.0)
}

const ROWS: &[&str] = &["a;1;1", "b;2;0", "a;1;1", "c;3;0", "a;1;0", "b; 2 ;1"];

#[test]
fn subset_column_and_file_give_the_same_membership() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let col = load(&tiny(
        d,
        ROWS,
        "<delta-presence dmin='0' dmax='1' subset-index='2'/>",
    ))
    .unwrap();
    assert_eq!(
        col.subset().unwrap(),
        &[true, false, true, false, false, true]
    );
    assert_eq!(col.records(), 3);
    // The same subset as a file: order does not matter, duplicates match distinct rows (the
    // first unmatched ones), fields are compared trimmed and unquoted.
    std::fs::write(d.join("sub.csv"), "q;x;flag\n\"b\";2;1\na;1;1\n a ;1;1\n").unwrap();
    let file = load(&tiny(
        d,
        ROWS,
        "<delta-presence dmin='0' dmax='1' subset='sub.csv'/>",
    ))
    .unwrap();
    assert_eq!(file.subset(), col.subset());
    let m = file.subset_column().unwrap();
    assert_eq!(file.sensitive[m].codes, vec![1, 0, 1, 0, 0, 1]);
}

#[test]
fn subset_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = |body: &str| {
        std::fs::write(d.join("sub.csv"), body).unwrap();
        let config = tiny(
            d,
            ROWS,
            "<delta-presence dmin='0' dmax='1' subset='sub.csv'/>",
        );
        load(&config).expect_err("an error").to_string()
    };
    // Three copies of a row the population holds twice: the third is unmatched.
    let e = file("q;x;flag\na;1;1\nb;2;0\na;1;1\na;1;1\n");
    assert!(
        e.contains("sub.csv:5: this research-subset row matches no remaining row of the input"),
        "{e}"
    );
    let e = file("q;x;flag\nc;3;1\n");
    assert!(e.contains("sub.csv:2:"), "{e}");
    let e = file("q;y;flag\na;1;1\n");
    assert!(
        e.contains("sub.csv:1: the header differs from the input's"),
        "{e}"
    );
    let e = file("q;x;flag\n");
    assert!(e.contains("the research subset has no rows"), "{e}");
    // Column flags.
    let bad = ["a;1;1", "b;2;yes"];
    let e = load(&tiny(
        d,
        &bad,
        "<delta-presence dmin='0' dmax='1' subset-index='2'/>",
    ))
    .err()
    .unwrap()
    .to_string();
    assert!(
        e.contains("pop.csv:3: flag: subset flag 'yes' is neither 1 nor 0"),
        "{e}"
    );
    let e = load(&tiny(
        d,
        &["a;1;0"],
        "<delta-presence dmin='0' dmax='1' subset-index='2'/>",
    ))
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("the research subset is empty"), "{e}");
    let e = load(&tiny(
        d,
        ROWS,
        "<delta-presence dmin='0' dmax='1' subset-index='2'/>\
         <delta-presence dmin='0' dmax='1' subset-index='1'/>",
    ))
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("different research subsets"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// End to end on ADULT.

const QIS: [&str; 9] = crate::common::ADULT_ATTRIBUTES;

/// ADULT as a population with a 0/1 `in-study` column (about 30% of the rows, pseudo-random),
/// and the same subset as a file of its rows in reverse order. Returns (population, subset
/// file, rows of the population with their membership).
fn adult_population(dir: &Path) -> (PathBuf, PathBuf, Vec<(String, bool)>) {
    let text = std::fs::read_to_string(common::data("adult/adult.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let rows: Vec<(String, bool)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (l.to_string(), state % 10 < 3)
        })
        .collect();
    let mut pop = format!("{header};in-study\n");
    for (l, m) in &rows {
        pop.push_str(&format!("{l};{}\n", u8::from(*m)));
    }
    let mut sub = format!("{header}\n");
    for (l, _) in rows.iter().rev().filter(|r| r.1) {
        sub.push_str(l);
        sub.push('\n');
    }
    let (p, s) = (dir.join("population.csv"), dir.join("subset.csv"));
    std::fs::write(&p, pop).unwrap();
    std::fs::write(&s, sub).unwrap();
    (p, s, rows)
}

fn adult_config(dir: &Path, name: &str, input: &Path, privacy: &str) -> PathBuf {
    let atts: String = QIS
        .iter()
        .enumerate()
        .map(|(i, q)| {
            format!(
                "<att index='{i}' name='{q}' hierarchy='{}'/>",
                common::data(&format!("adult/adult_hierarchy_{q}.csv")).display()
            )
        })
        .collect();
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "<config method='Flash'>\
               <input filename='{}' separator=';' header='true'/>\
               <qid>{atts}</qid>\
               <privacy>{privacy}</privacy>\
             </config>",
            input.display()
        ),
    )
    .unwrap();
    path
}

/// Runs `anonbox` with `config`; returns the output rows (split) and the report.
fn run(dir: &Path, config: &Path, tag: &str, extra: &[&str]) -> (Vec<Vec<String>>, Value) {
    let out = dir.join(format!("{tag}.csv"));
    let rep = dir.join(format!("{tag}.json"));
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .arg("-config")
        .arg(config)
        .args(["-quiet", "-output"])
        .arg(&out)
        .arg("-report")
        .arg(&rep)
        .args(extra)
        .assert()
        .success();
    let rows = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect();
    (
        rows,
        serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap(),
    )
}

/// `anonbox audit` (the binary) with `args` and `--json`: (exit code, report).
fn audit(args: &[String]) -> (i32, Value) {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .arg("audit")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    let code = out.status.code().unwrap();
    assert!(
        code < 2,
        "audit failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (code, serde_json::from_slice(&out.stdout).unwrap())
}

/// The ADULT hierarchies: value -> labels by level, per quasi-identifier.
fn hierarchies() -> Vec<HashMap<String, Vec<String>>> {
    QIS.iter()
        .map(|q| {
            std::fs::read_to_string(common::data(&format!("adult/adult_hierarchy_{q}.csv")))
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty())
                .map(|l| {
                    let labels: Vec<String> = l.split(';').map(str::to_string).collect();
                    (labels[0].clone(), labels)
                })
                .collect()
        })
        .collect()
}

/// Checks one run's output against the population: it holds exactly the subset's rows in
/// input order, each generalized to the report's levels or suppressed (every quasi-identifier
/// `*`), with the flag column 1. Writes the population generalized the same way (rows of
/// classes whose subset records were suppressed all `*`), then `anonbox audit` confirms δ on
/// the written output and k on the output alone.
fn confirm(
    dir: &Path,
    rows: &[(String, bool)],
    out: &[Vec<String>],
    report: &Value,
    (dmin, dmax, k): (f64, f64, u64),
) {
    let levels = common::levels(report);
    let hs = hierarchies();
    let generalize = |fields: &[&str]| -> Vec<String> {
        (0..QIS.len())
            .map(|j| hs[j][fields[j]][levels[j]].clone())
            .collect()
    };
    let members: Vec<&str> = rows.iter().filter(|r| r.1).map(|r| r.0.as_str()).collect();
    assert_eq!(out.len(), members.len(), "the output is the subset's rows");
    assert_eq!(report["research_subset_records"], members.len() as u64);
    let mut suppressed_classes = std::collections::HashSet::new();
    let mut suppressed = 0u64;
    for (m, o) in members.iter().zip(out) {
        let fields: Vec<&str> = m.split(';').collect();
        assert_eq!(o.len(), QIS.len() + 1, "the quasi-identifiers and the flag");
        assert_eq!(o[QIS.len()], "1");
        let g = generalize(&fields);
        if o[..QIS.len()].iter().all(|v| v == "*") && g.iter().any(|v| v != "*") {
            suppressed += 1;
            suppressed_classes.insert(g);
        } else {
            assert_eq!(&o[..QIS.len()], &g[..], "row {m}");
        }
    }
    assert_eq!(report["suppressed_records"], suppressed);
    // The population, generalized independently.
    let mut text = QIS.join(";");
    text.push('\n');
    for (r, _) in rows {
        let fields: Vec<&str> = r.split(';').collect();
        let g = generalize(&fields);
        let shown = if suppressed_classes.contains(&g) {
            vec!["*".to_string(); QIS.len()]
        } else {
            g
        };
        text.push_str(&shown.join(";"));
        text.push('\n');
    }
    let population = dir.join("population-generalized.csv");
    std::fs::write(&population, text).unwrap();
    // The output's quasi-identifier columns, as a subset file of the same layout.
    let mut text = QIS.join(";");
    text.push('\n');
    for o in out {
        text.push_str(&o[..QIS.len()].join(";"));
        text.push('\n');
    }
    let released = dir.join("released-qis.csv");
    std::fs::write(&released, text).unwrap();
    let qi = QIS.join(",");
    let s = |x: &str| x.to_string();
    let (code, v) = audit(&[
        population.display().to_string(),
        s("--separator"),
        s(";"),
        s("--qi"),
        qi.clone(),
        s("--subset"),
        released.display().to_string(),
        s("--dmin"),
        dmin.to_string(),
        s("--dmax"),
        dmax.to_string(),
    ]);
    assert_eq!(code, 0, "audit: delta bounds do not hold: {v}");
    let d = &v["delta"];
    assert!(d["min"].as_f64().unwrap() >= dmin && d["max"].as_f64().unwrap() <= dmax);
    assert_eq!(
        d["subset_records"].as_u64().unwrap(),
        members.len() as u64 - suppressed
    );
    let (code, v) = audit(&[
        released.display().to_string(),
        s("--separator"),
        s(";"),
        s("--qi"),
        qi,
        s("-k"),
        k.to_string(),
    ]);
    assert_eq!(code, 0, "audit: k does not hold on the output: {v}");
    assert_eq!(v["suppressed"], suppressed);
    assert_eq!(v["classes"], report["equivalence_classes"]);
}

/// A subset column and the same subset as a file: the same optimum, the same released rows;
/// audit confirms δ in [0.05, 0.6] and k = 3 on the output.
#[test]
fn adult_subset_column_and_file_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pop, sub, rows) = adult_population(d);
    let models = "<k-anonymity k='3'/><delta-presence dmin='0.05' dmax='0.6' subset-index='9'/>";
    let col = adult_config(d, "col.xml", &pop, models);
    let (out, report) = run(d, &col, "col", &[]);
    confirm(d, &rows, &out, &report, (0.05, 0.6, 3));
    let models = format!(
        "<k-anonymity k='3'/><delta-presence dmin='0.05' dmax='0.6' subset='{}'/>",
        sub.display()
    );
    let file = adult_config(d, "file.xml", &common::data("adult/adult.csv"), &models);
    let (out2, report2) = run(d, &file, "file", &[]);
    for f in [
        "transformation",
        "information_loss",
        "suppressed_records",
        "equivalence_classes",
        "research_subset_records",
    ] {
        assert_eq!(report[f], report2[f], "{f}");
    }
    // The same rows but for the flag column. As a multiset: a subset row matches the first
    // unmatched one of identical population rows, which may come earlier than the flagged one.
    let mut a: Vec<&[String]> = out.iter().map(|r| &r[..r.len() - 1]).collect();
    let mut b: Vec<&[String]> = out2.iter().map(|r| &r[..]).collect();
    a.sort();
    b.sort();
    assert!(a == b, "subset column vs file");
}

/// With suppression: outlier classes' subset records are suppressed within floor(0.02 *
/// subset) and audit still confirms δ and k on what is released.
#[test]
fn adult_with_suppression_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pop, _, rows) = adult_population(d);
    let models = "<k-anonymity k='2'/><delta-presence dmin='0' dmax='0.5' subset-index='9'/>";
    let config = adult_config(d, "s.xml", &pop, models);
    let (out, report) = run(d, &config, "s", &["-suppression", "0.02", "-threads", "2"]);
    let members = rows.iter().filter(|r| r.1).count() as u64;
    assert_eq!(report["suppression_limit"], members * 2 / 100);
    assert!(report["suppressed_records"].as_u64().unwrap() > 0);
    confirm(d, &rows, &out, &report, (0.0, 0.5, 2));
    // Two threads share each check (ADULT's 19,502 tuples, laid out in two parts) and give what
    // one thread gives, the subset's weights and membership distributions included. The team
    // joins a search once it has run for 10 ms (check::TEAM_AFTER): a search of 50 ms must
    // have used it (a faster machine than ours may finish alone, and then proves nothing here).
    let search = report["elapsed_seconds"]["search"].as_f64().unwrap();
    if search > 0.05 {
        assert_eq!(
            report["checker"]["team_covered"].as_u64().map(|t| t > 0),
            Some(true),
            "a search of {search} s ran without its team"
        );
    }
    let (out1, report1) = run(d, &config, "s1", &["-suppression", "0.02", "-threads", "1"]);
    for f in [
        "transformation",
        "information_loss",
        "suppressed_records",
        "equivalence_classes",
        "transformations_checked",
    ] {
        assert_eq!(report[f], report1[f], "{f}");
    }
    assert!(out == out1, "1 and 2 threads release different rows");
}

/// Bad subsets: a clear message naming the file and line, exit status 1, no output file.
#[test]
fn bad_subsets_fail_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (pop, sub, _) = adult_population(d);
    let fail = |config: &Path, want: &str| {
        let out = d.join("never.csv");
        assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .arg("-config")
            .arg(config)
            .args(["-quiet", "-output"])
            .arg(&out)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(want));
        assert!(!out.exists(), "nothing is written");
    };
    // A subset row changed so it matches no population row (line 4 of the file).
    let text = std::fs::read_to_string(&sub).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[3] = format!("x{}", lines[3]);
    let bad = d.join("bad-subset.csv");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let config = adult_config(
        d,
        "bad-file.xml",
        &common::data("adult/adult.csv"),
        &format!(
            "<delta-presence dmin='0' dmax='0.5' subset='{}'/>",
            bad.display()
        ),
    );
    fail(
        &config,
        &format!(
            "{}:4: this research-subset row matches no remaining row of the input",
            bad.display()
        ),
    );
    // A flag that is neither 0 nor 1 (line 6 of the population).
    let text = std::fs::read_to_string(&pop).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let l = lines[5].len();
    lines[5].replace_range(l - 1.., "2");
    let bad_pop = d.join("bad-population.csv");
    std::fs::write(&bad_pop, lines.join("\n") + "\n").unwrap();
    let config = adult_config(
        d,
        "bad-col.xml",
        &bad_pop,
        "<delta-presence dmin='0' dmax='0.5' subset-index='9'/>",
    );
    fail(
        &config,
        &format!(
            "{}:6: in-study: subset flag '2' is neither 1 nor 0",
            bad_pop.display()
        ),
    );
}

/// Other methods would ignore the model and release the whole population: refused up front.
#[test]
fn delta_presence_needs_the_in_memory_engine() {
    let dir = tempfile::tempdir().unwrap();
    let config = tiny(
        dir.path(),
        ROWS,
        "<delta-presence dmin='0' dmax='1' subset-index='2'/>",
    );
    for method in ["Datafly", "Incognito_K"] {
        assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .arg("-config")
            .arg(&config)
            .args(["-quiet", "-method", method])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(format!(
                "<delta-presence>: delta-presence needs the in-memory engine (-method Flash, OLA, \
                 BFS or Optimal), not {method}"
            )));
    }
    assert!(!dir.path().join("out.csv").exists());
    // OLA runs it.
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(dir.path())
        .arg("-config")
        .arg(&config)
        .args(["-quiet", "-method", "OLA"])
        .assert()
        .success();
    let out = std::fs::read_to_string(dir.path().join("out.csv")).unwrap();
    assert_eq!(out.lines().count(), 1 + 3, "header and the 3 subset rows");
}
