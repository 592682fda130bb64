//! Search-time benchmark of the Flash engine with privacy models over a sensitive attribute:
//! every row of `tests/data/reference/arx-adult-sensitive.json` (occupation sensitive, 8
//! quasi-identifiers, suppression 0.02, Loss), against ARX's CPU time for the same search.
//!
//! `cargo bench --bench privacy_search -- [--reps N] [--only NAME]`
//! Prints one JSON object per row: the median thread CPU time of the search over `--reps` runs
//! (loading excluded, as ARX's figure excludes it), ARX's median, and their ratio.

use std::path::Path;

use anonbox::algorithms::{solve, LatticeAlgorithm};
use anonbox::check::CheckerConfig;
use anonbox::data::{EncodedTable, SensitiveColumn};
use anonbox::hierarchy::Hierarchy;
use anonbox::job::{MetricKind, PrivacyModel, SuppressionLimit, TDistance};
use anonbox::metrics;
use anonbox::privacy::{criteria, Flavor};

fn hierarchy(path: &Path, name: &str) -> Hierarchy {
    let rows: Vec<Vec<String>> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect();
    Hierarchy::from_label_rows(name, &rows)
}

/// ADULT with `qis` as quasi-identifiers and `sensitive` as the sensitive attribute.
fn adult(root: &Path, qis: &[String], sensitive: &str) -> EncodedTable {
    let dir = root.join("tests/data/adult");
    let text = std::fs::read_to_string(dir.join("adult.csv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let load = |n: &str| hierarchy(&dir.join(format!("adult_hierarchy_{n}.csv")), n);
    let hs: Vec<Hierarchy> = qis.iter().map(|q| load(q)).collect();
    let maps: Vec<std::collections::HashMap<String, u32>> = hs
        .iter()
        .map(|h| {
            (0..h.leaves() as u32)
                .map(|c| (h.label(0, c).to_string(), c))
                .collect()
        })
        .collect();
    let sh = load(sensitive);
    let smap: std::collections::HashMap<String, u32> = (0..sh.leaves() as u32)
        .map(|c| (sh.label(0, c).to_string(), c))
        .collect();
    let cols: Vec<usize> = qis.iter().map(|q| col(q)).collect();
    let s = col(sensitive);
    let (mut codes, mut scodes) = (Vec::new(), Vec::new());
    for line in lines.filter(|l| !l.is_empty()) {
        let f: Vec<&str> = line.split(';').collect();
        for (j, &c) in cols.iter().enumerate() {
            codes.push(maps[j][f[c]]);
        }
        scodes.push(smap[f[s]]);
    }
    let sens = SensitiveColumn {
        name: sensitive.to_string(),
        codes: scodes,
        values: sh.labels(0).to_vec(),
        numeric: None,
        hierarchy: Some(sh),
    };
    EncodedTable::new(codes, hs, vec![sens])
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let reps: usize = get("--reps").and_then(|s| s.parse().ok()).unwrap_or(5);
    let only = get("--only");
    let mut config = CheckerConfig::default();
    if let Some(f) = get("--snapshot-fraction").and_then(|s| s.parse().ok()) {
        config.snapshot_max_fraction = f;
    }
    if let Some(c) = get("--history").and_then(|s| s.parse().ok()) {
        config.history_capacity = c;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let refs: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/reference/arx-adult-sensitive.json"))
            .unwrap(),
    )
    .unwrap();
    for r in &refs {
        let name = r["privacy_model"].as_str().unwrap();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let qis: Vec<String> = r["quasi_identifiers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let table = adult(root, &qis, r["sensitive_attribute"].as_str().unwrap());
        let f = |k: &str| r[k].as_f64().unwrap();
        let model = match name {
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
            _ => PrivacyModel::TCloseness {
                attribute: 0,
                t: f("t"),
                distance: TDistance::Equal,
            },
        };
        let budget = SuppressionLimit::Fraction(f("suppression_limit")).budget(table.rows() as u64);
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..reps {
            let start = thread_cpu_ns();
            let out = solve(
                &table,
                vec![criteria::build(&model, &table, Flavor::Arx).unwrap()],
                metrics::build(MetricKind::Loss, &table),
                budget,
                LatticeAlgorithm::Flash,
                config,
            )
            .unwrap();
            times.push((thread_cpu_ns() - start) as f64 / 1e6);
            last = Some(out);
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let ms = times[times.len() / 2];
        let out = last.unwrap();
        let opt = out.optimum.unwrap();
        let arx = f("arx_anonymize_cpu_ms_median");
        println!(
            "{}",
            serde_json::json!({
                "model": name,
                "cpu_ms_median": (ms * 10.0).round() / 10.0,
                "arx_cpu_ms_median": arx,
                "ratio": ((ms / arx) * 1000.0).round() / 1000.0,
                "checks": out.checks,
                "plain": out.stats.plain,
                "rollups": out.stats.rollups,
                "snapshots": out.stats.snapshots,
                "items": out.stats.items,
                "arx_checks": r["transformations_checked"],
                "levels": opt.levels,
                "loss": opt.loss,
                "suppressed": opt.suppressed,
                "classes": opt.classes,
            })
        );
    }
}
