//! Search-time benchmark of the Flash engine on ARX-style data sets (not criterion: one
//! measurement per configuration: the median CPU time of the search thread over `--reps` runs).
//!
//! `cargo bench --bench flash_search -- [--data DIR] [--reps N] [--ablation] [--algorithm flash|ola]
//! [--threads N] [--arx FILE] [--team-from TUPLES] [--layout-balance F]`
//! Prints one JSON object per line. With `--threads N` (N > 1) the search runs on N threads and
//! `ratio` compares its wall time with ARX's (one thread: the search thread's CPU time, as ARX's
//! figure); `process_cpu_ms_median` is the CPU of every thread. `--arx FILE` takes ARX's medians
//! from a run on this machine (see `scripts/bench_flash.sh threads`). `--team-from` and
//! `--layout-balance` set `CheckerConfig::team_input_items` and `layout_balance` (team against
//! lookahead, items laid out or not, in one harness).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anonbox::algorithms::{execute, solve, LatticeAlgorithm, SearchSetup, StoreKind};
use anonbox::check::CheckerConfig;
use anonbox::cli::RunArgs;
use anonbox::config::build_job;
use anonbox::data::load::load_table;
use anonbox::data::EncodedTable;
use anonbox::job::{MetricKind, SuppressionLimit};
use anonbox::metrics;
use anonbox::privacy::KAnonymity;

/// Loads a table as `anonbox` does: a job from an XML config (input overridden), then the
/// in-memory loader.
fn load(config: &Path, input: Option<&Path>) -> EncodedTable {
    let args = RunArgs {
        config: Some(config.to_path_buf()),
        input: input.map(Path::to_path_buf),
        quiet: true,
        ..RunArgs::default()
    };
    let job = build_job(&args).expect("job");
    load_job(&job)
}

/// The in-memory load of a job's input, with no progress shown.
fn load_job(job: &anonbox::job::Job) -> EncodedTable {
    let source = job.source().expect("source");
    let subset = job.research_subset().expect("subset");
    load_table(&source, subset, &mut ()).expect("load").0
}

/// ADULT's body repeated `copies` times under one header, in `dir` (made once).
fn replicate_adult(root: &Path, dir: &Path, copies: usize) -> PathBuf {
    let path = dir.join(format!("adult_x{copies}.csv"));
    if !path.exists() {
        let text = std::fs::read_to_string(root.join("tests/data/adult/adult.csv")).unwrap();
        let (header, body) = text.split_once('\n').unwrap();
        let mut out = String::with_capacity(text.len() * copies);
        out.push_str(header);
        out.push('\n');
        for _ in 0..copies {
            out.push_str(body);
        }
        std::fs::write(&path, out).unwrap();
    }
    path
}

/// A config for CUP (8 quasi-identifiers with hierarchy files) read from `dir`; written to `out`.
fn cup_config(dir: &Path, out: &Path) -> PathBuf {
    let cols = [
        "ZIP", "AGE", "GENDER", "INCOME", "STATE", "RAMNTALL", "NGIFTALL", "MINRAMNT",
    ];
    let atts: String = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "<att index='{i}' name='{c}' hierarchy='{}'/>",
                dir.join(format!("cup_hierarchy_{c}.csv")).display()
            )
        })
        .collect();
    let path = out.join("cup.xml");
    std::fs::write(
        &path,
        format!(
            "<config method='Flash'><input filename='{}' separator=';' header='true'/>\
             <output filename='{}'/><qid>{atts}</qid></config>",
            dir.join("cup.csv").display(),
            out.join("cup-out.csv").display()
        ),
    )
    .unwrap();
    path
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
    cpu_ns(3)
}

/// CPU time of the whole process (every thread) in nanoseconds (`CLOCK_PROCESS_CPUTIME_ID`).
fn process_cpu_ns() -> u64 {
    cpu_ns(2)
}

fn cpu_ns(clock: i32) -> u64 {
    let mut t = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; the clock ids are Linux constants.
    let rc = unsafe { clock_gettime(clock, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// `--threads N` (default 1) and `--arx FILE`: ARX's figures measured in the same run (JSON lines
/// with `case` and `anonymize_cpu_ms_median`, see `scripts/bench_flash.sh threads`), which replace
/// the stored reference medians.
fn threads_arg() -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == "--threads")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(1)
}

fn arx_same_run() -> std::collections::HashMap<String, f64> {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args
        .iter()
        .position(|a| a == "--arx")
        .and_then(|i| args.get(i + 1))
    else {
        return Default::default();
    };
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            Some((
                v["case"].as_str()?.to_string(),
                v["anonymize_cpu_ms_median"].as_f64()?,
            ))
        })
        .collect()
}

/// Runs one search as `setup` says, timing it: (outcome, calling thread's CPU ms, process CPU
/// ms, wall ms).
fn timed(
    table: &EncodedTable,
    criteria: Vec<Box<dyn anonbox::privacy::PrivacyCriterion>>,
    metric: Box<dyn anonbox::metrics::Metric>,
    budget: u64,
    setup: SearchSetup,
) -> (anonbox::algorithms::SearchOutcome, f64, f64, f64) {
    let (t0, p0, w0) = (thread_cpu_ns(), process_cpu_ns(), Instant::now());
    let (out, _) = execute(table, criteria, metric, budget, setup, false).unwrap();
    let wall = w0.elapsed().as_secs_f64() * 1e3;
    let cpu = (thread_cpu_ns() - t0) as f64 / 1e6;
    let proc = (process_cpu_ns() - p0) as f64 / 1e6;
    (out, cpu, proc, wall)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
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
    if let Some(spec) = get("--synthetic") {
        return synthetic(&spec, algorithm);
    }
    let mut base = CheckerConfig::default();
    if let Some(f) = get("--snapshot-fraction").and_then(|s| s.parse().ok()) {
        base.snapshot_max_fraction = f;
    }
    if let Some(f) = get("--min-reduction").and_then(|s| s.parse().ok()) {
        base.snapshot_min_reduction = f;
    }
    if let Some(n) = get("--history").and_then(|s| s.parse().ok()) {
        base.history_capacity = n;
    }
    // Distinct tuples from which a search with threads shares its checks over a team rather
    // than running a lookahead worker (`CheckerConfig::team_input_items`).
    if let Some(n) = get("--team-from").and_then(|s| s.parse().ok()) {
        base.team_input_items = n;
    }
    if let Some(f) = get("--layout-balance").and_then(|s| s.parse().ok()) {
        base.layout_balance = f;
    }
    if args.iter().any(|a| a == "--sensitive") {
        return sensitive(&root, reps, algorithm, base);
    }
    let cup = get("--cup").map(PathBuf::from);
    let threads = threads_arg();
    let arx = arx_same_run();

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
            for metric in [MetricKind::Loss, MetricKind::DmStar] {
                cases.push(Case {
                    name: format!("cup.csv k=5 s={s} {metric:?}"),
                    table_key: (dir.display().to_string(), 1),
                    k: 5,
                    s,
                    metric,
                    arx_ms: None,
                });
            }
        }
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

    let scratch = std::env::temp_dir().join("anonbox-bench-flash");
    std::fs::create_dir_all(&scratch).unwrap();
    let mut loaded: Option<((String, usize), EncodedTable)> = None;
    for case in &cases {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
        if loaded.as_ref().map(|l| &l.0) != Some(&case.table_key) {
            drop(loaded.take()); // free the previous table first
            let (dir, copies) = &case.table_key;
            let table = if dir == "adult" {
                let input = (*copies > 1).then(|| replicate_adult(&root, &scratch, *copies));
                load(&root.join("configs/adult.xml"), input.as_deref())
            } else {
                load(&cup_config(Path::new(dir), &scratch), None)
            };
            loaded = Some((case.table_key.clone(), table));
        }
        let table = &loaded.as_ref().unwrap().1;
        for (cname, config) in &configs {
            let (mut cpu, mut proc, mut wall) = (Vec::new(), Vec::new(), Vec::new());
            let mut last = None;
            for _ in 0..reps {
                let budget = SuppressionLimit::Fraction(case.s).budget(table.rows() as u64);
                let setup = SearchSetup {
                    algorithm,
                    store: StoreKind::Dense,
                    config: *config,
                    limit: Default::default(),
                    threads,
                };
                let (out, c, p, w) = timed(
                    table,
                    vec![Box::new(KAnonymity { k: case.k })],
                    metrics::build(case.metric, table),
                    budget,
                    setup,
                );
                cpu.push(c);
                proc.push(p);
                wall.push(w);
                last = Some(out);
            }
            let (cpu, proc, wall) = (median(&mut cpu), median(&mut proc), median(&mut wall));
            let arx_ms = arx.get(&case.name).copied().or(case.arx_ms);
            // One thread: the search thread's CPU (as ARX's figure); more: the wall time.
            let time = if threads > 1 { wall } else { cpu };
            let out = last.unwrap();
            let opt = out.optimum.as_ref();
            let line = serde_json::json!({
                "case": case.name,
                "config": cname,
                "algorithm": format!("{algorithm:?}"),
                "threads": threads,
                "cpu_ms_median": cpu,
                "process_cpu_ms_median": proc,
                "wall_ms_median": wall,
                "arx_cpu_ms": arx_ms,
                "arx_same_run": arx.contains_key(&case.name),
                "ratio": arx_ms.map(|a| time / a),
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

/// `--synthetic D,L,ROWS[,S]`: D quasi-identifiers, each with 16 values and L levels (binary
/// merges, the top level `*`), ROWS random records, k=5, suppression S (default 0), Loss: how
/// the search scales with the lattice (L^D transformations).
fn synthetic(spec: &str, algorithm: LatticeAlgorithm) {
    let v: Vec<f64> = spec.split(',').map(|x| x.parse().unwrap()).collect();
    let (d, levels, rows) = (v[0] as usize, v[1] as usize, v[2] as usize);
    let s = v.get(3).copied().unwrap_or(0.0);
    let hierarchies: Vec<anonbox::hierarchy::Hierarchy> = (0..d)
        .map(|j| {
            let rows: Vec<Vec<String>> = (0..16u32)
                .map(|c| {
                    (0..levels)
                        .map(|l| {
                            if l + 1 == levels && l > 0 {
                                "*".to_string()
                            } else {
                                format!("{}", c >> l)
                            }
                        })
                        .collect()
                })
                .collect();
            anonbox::hierarchy::Hierarchy::from_label_rows(format!("q{j}"), &rows)
        })
        .collect();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut codes = Vec::with_capacity(rows * d);
    for _ in 0..rows * d {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        codes.push((x % 16) as u32);
    }
    let table = EncodedTable::new(codes, hierarchies, vec![]);
    let budget = SuppressionLimit::Fraction(s).budget(rows as u64);
    let t0 = thread_cpu_ns();
    let out = solve(
        &table,
        vec![Box::new(KAnonymity { k: 5 })],
        metrics::build(MetricKind::Loss, &table),
        budget,
        algorithm,
        CheckerConfig::default(),
    )
    .unwrap();
    let line = serde_json::json!({
        "case": format!("synthetic d={d} levels={levels} rows={rows} s={s}"),
        "algorithm": format!("{algorithm:?}"),
        "lattice_size": out.lattice_size,
        "cpu_ms": (thread_cpu_ns() - t0) as f64 / 1e6,
        "checks": out.checks,
        "transformation": out.optimum.as_ref().map(|o| o.levels.clone()),
    });
    println!("{line}");
}

/// `--sensitive`: the rows of `arx-adult-sensitive.json` (ADULT, 8 quasi-identifiers, occupation
/// sensitive, suppression 0.02, Loss) through a generated config with a `<privacy>` model.
fn sensitive(root: &Path, reps: usize, algorithm: LatticeAlgorithm, checker: CheckerConfig) {
    let refs: Vec<serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/data/reference/arx-adult-sensitive.json"))
            .unwrap(),
    )
    .unwrap();
    let data = root.join("tests/data/adult");
    let cols = [
        "sex",
        "age",
        "race",
        "marital-status",
        "education",
        "native-country",
        "workclass",
    ];
    let mut atts: String = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let h = data.join(format!("adult_hierarchy_{c}.csv"));
            format!("<att index='{i}' name='{c}' hierarchy='{}'/>", h.display())
        })
        .collect();
    atts.push_str(&format!(
        "<att index='8' name='salary-class' hierarchy='{}'/>",
        data.join("adult_hierarchy_salary-class.csv").display()
    ));
    let scratch = std::env::temp_dir().join("anonbox-bench-flash");
    std::fs::create_dir_all(&scratch).unwrap();
    let only = std::env::args()
        .skip_while(|a| a != "--only")
        .nth(1)
        .unwrap_or_default();
    for r in refs
        .iter()
        .filter(|r| r["privacy_model"].as_str().unwrap().contains(&only))
    {
        let model = match r["privacy_model"].as_str().unwrap() {
            "distinct-l-diversity" => "<distinct-l-diversity l='3'/>".to_string(),
            "entropy-l-diversity" => "<entropy-l-diversity l='3'/>".to_string(),
            "recursive-(c,l)-diversity" => "<recursive-cl-diversity c='4' l='3'/>".to_string(),
            "t-closeness" => "<t-closeness t='0.2' distance='equal'/>".to_string(),
            m => panic!("model {m}"),
        };
        let config = scratch.join("adult-sensitive.xml");
        std::fs::write(
            &config,
            format!(
                "<config method='Flash' suppression='0.02' metric='loss'>\
                 <input filename='{}' separator=';' header='true'/>\
                 <output filename='{}'/><qid>{atts}</qid>\
                 <sens><att index='7' name='occupation' hierarchy='{}'/></sens>\
                 <privacy>{model}</privacy></config>",
                data.join("adult.csv").display(),
                scratch.join("sens-out.csv").display(),
                data.join("adult_hierarchy_occupation.csv").display()
            ),
        )
        .unwrap();
        let args = RunArgs {
            config: Some(config),
            quiet: true,
            ..RunArgs::default()
        };
        let job = build_job(&args).expect("job");
        let table = load_job(&job);
        let (mut cpu, mut proc, mut wall) = (Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        let threads = threads_arg();
        for _ in 0..reps {
            let setup = SearchSetup {
                algorithm,
                store: StoreKind::Dense,
                config: checker,
                limit: Default::default(),
                threads,
            };
            let (out, c, p, w) = timed(
                &table,
                anonbox::privacy::build(&job.privacy, job.k, &table).unwrap(),
                metrics::build(job.metric, &table),
                job.lattice().budget(table.records()),
                setup,
            );
            cpu.push(c);
            proc.push(p);
            wall.push(w);
            last = Some(out);
        }
        let (cpu, proc, wall) = (median(&mut cpu), median(&mut proc), median(&mut wall));
        let out = last.unwrap();
        let name = format!(
            "adult.csv {} s=0.02 loss",
            r["privacy_model"].as_str().unwrap()
        );
        let same = arx_same_run();
        let arx = same
            .get(&name)
            .copied()
            .or(r["arx_anonymize_cpu_ms_median"].as_f64());
        let time = if threads > 1 { wall } else { cpu };
        let line = serde_json::json!({
            "case": name,
            "config": "all",
            "algorithm": format!("{algorithm:?}"),
            "threads": threads,
            "cpu_ms_median": cpu,
            "process_cpu_ms_median": proc,
            "wall_ms_median": wall,
            "arx_cpu_ms": arx,
            "arx_same_run": same.contains_key(&name),
            "ratio": arx.map(|a| time / a),
            "checks": out.checks,
            "plain": out.stats.plain,
            "rollups": out.stats.rollups,
            "snapshots": out.stats.snapshots,
            "items": out.stats.items,
            "history_peak_kb": out.stats.history_peak_bytes / 1024,
            "transformation": out.optimum.as_ref().map(|o| o.levels.clone()),
            "loss": out.optimum.as_ref().map(|o| o.loss),
            "arx_transformation": r["transformation"],
            "arx_loss": r["information_loss"],
        });
        println!("{line}");
    }
}
