//! Search-time benchmark of the Flash engine on ARX-style data sets (not criterion: one
//! measurement per configuration: the median CPU time of the search thread over `--reps` runs).
//!
//! `cargo bench --bench flash_search -- [--data DIR] [--reps N] [--ablation] [--algorithm flash|ola]`
//! Prints one JSON object per line.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anonbox::algorithms::{solve, LatticeAlgorithm};
use anonbox::check::CheckerConfig;
use anonbox::data::EncodedTable;
use anonbox::hierarchy::Hierarchy;
use anonbox::job::{MetricKind, SuppressionLimit};
use anonbox::metrics;
use anonbox::privacy::KAnonymity;

pub fn load_arx(csv: &Path, hierarchy_dir: &Path, prefix: &str, copies: usize) -> EncodedTable {
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
            codes.push(index[j][v]);
        }
    }
    let one = codes.clone();
    for _ in 1..copies {
        codes.extend_from_slice(&one);
    }
    EncodedTable::new(codes, hierarchies, vec![])
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
}

/// CPU time of this thread in nanoseconds (Linux `CLOCK_THREAD_CPUTIME_ID`).
fn thread_cpu_ns() -> u64 {
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock id is a Linux constant.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

struct Case {
    name: String,
    table_key: (String, usize),
    k: u64,
    s: f64,
    metric: MetricKind,
    arx_ms: Option<f64>,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let reps: usize = get("--reps").and_then(|s| s.parse().ok()).unwrap_or(3);
    let ablation = args.iter().any(|a| a == "--ablation");
    let algorithm = match get("--algorithm").as_deref() {
        Some("ola") => LatticeAlgorithm::Ola,
        Some("exhaustive") => LatticeAlgorithm::Exhaustive,
        _ => LatticeAlgorithm::Flash,
    };
    let only = get("--only");
    let cup = get("--cup").map(PathBuf::from);

    let mut cases = Vec::new();
    let refs: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/reference/arx-adult-k-anonymity.json"))
            .unwrap(),
    )
    .unwrap();
    let reps_json: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/reference/arx-adult-replicated.json"))
            .unwrap(),
    )
    .unwrap();
    for r in refs.iter().chain(&reps_json) {
        let ds = r["dataset"].as_str().unwrap();
        let copies = match ds {
            "adult_x10.csv" => 10,
            "adult_x40.csv" => 40,
            _ => 1,
        };
        let k = r["k"].as_u64().unwrap();
        let s = r["suppression_limit"].as_f64().unwrap();
        let m = r["metric"].as_str().unwrap();
        cases.push(Case {
            name: format!("{ds} k={k} s={s} {m}"),
            table_key: ("adult".into(), copies),
            k,
            s,
            metric: MetricKind::parse(m).unwrap(),
            arx_ms: r["arx_anonymize_cpu_ms_median"].as_f64(),
        });
    }
    if let Some(dir) = &cup {
        for s in [0.0, 0.02] {
            cases.push(Case {
                name: format!("cup.csv k=5 s={s} loss"),
                table_key: (dir.display().to_string(), 1),
                k: 5,
                s,
                metric: MetricKind::Loss,
                arx_ms: None,
            });
        }
    }

    let mut base = CheckerConfig::default();
    if let Some(f) = get("--snapshot-fraction").and_then(|s| s.parse().ok()) {
        base.snapshot_max_fraction = f;
    }
    if let Some(f) = get("--min-reduction").and_then(|s| s.parse().ok()) {
        base.snapshot_min_reduction = f;
    }
    let configs: Vec<(&str, CheckerConfig)> = if ablation {
        let all = base;
        vec![
            ("all", all),
            (
                "no-projection",
                CheckerConfig {
                    projection: false,
                    ..all
                },
            ),
            (
                "no-rollup",
                CheckerConfig {
                    rollup: false,
                    ..all
                },
            ),
            (
                "no-history",
                CheckerConfig {
                    history: false,
                    ..all
                },
            ),
            (
                "no-dedup",
                CheckerConfig {
                    dedup: false,
                    ..all
                },
            ),
            ("none", CheckerConfig::plain()),
        ]
    } else {
        vec![("all", base)]
    };

    let mut loaded: Option<((String, usize), EncodedTable)> = None;
    for case in &cases {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
        if loaded.as_ref().map(|l| &l.0) != Some(&case.table_key) {
            let (dir, copies) = &case.table_key;
            let table = if dir == "adult" {
                let d = root.join("tests/data/adult");
                load_arx(&d.join("adult.csv"), &d, "adult", *copies)
            } else {
                let d = PathBuf::from(dir);
                load_arx(&d.join("cup.csv"), &d, "cup", *copies)
            };
            loaded = Some((case.table_key.clone(), table));
        }
        let table = &loaded.as_ref().unwrap().1;
        for (cname, config) in &configs {
            let mut cpu = Vec::new();
            let mut wall = Vec::new();
            let mut last = None;
            for _ in 0..reps {
                let budget = SuppressionLimit::Fraction(case.s).budget(table.rows() as u64);
                let t0 = thread_cpu_ns();
                let w0 = Instant::now();
                let out = solve(
                    table,
                    vec![Box::new(KAnonymity { k: case.k })],
                    metrics::build(case.metric, table),
                    budget,
                    algorithm,
                    *config,
                )
                .unwrap();
                wall.push(w0.elapsed().as_secs_f64() * 1e3);
                cpu.push((thread_cpu_ns() - t0) as f64 / 1e6);
                last = Some(out);
            }
            cpu.sort_by(f64::total_cmp);
            wall.sort_by(f64::total_cmp);
            let out = last.unwrap();
            let opt = out.optimum.as_ref();
            let line = serde_json::json!({
                "case": case.name,
                "config": cname,
                "algorithm": format!("{algorithm:?}"),
                "cpu_ms_median": cpu[cpu.len() / 2],
                "wall_ms_median": wall[wall.len() / 2],
                "arx_cpu_ms": case.arx_ms,
                "ratio": case.arx_ms.map(|a| cpu[cpu.len() / 2] / a),
                "checks": out.checks,
                "plain": out.stats.plain,
                "rollups": out.stats.rollups,
                "snapshots": out.stats.snapshots,
                "items": out.stats.items,
                "history_peak_kb": out.stats.history_peak_bytes / 1024,
                "transformation": opt.map(|o| o.levels.clone()),
                "loss": opt.map(|o| o.loss),
            });
            println!("{line}");
        }
    }
}
