//! Search-time benchmark of the risk-based privacy models (`scripts/bench_risk.sh` runs it beside
//! ARX): for each config given, the median thread CPU time of the lattice search over `--reps`
//! runs (loading excluded, as ARX's anonymize() figure excludes its loading), with the optimum.
//!
//! `cargo bench --bench risk_search -- [--reps N] CONFIG...`

use anonbox::algorithms::{solve_for, LatticeAlgorithm};
use anonbox::check::CheckerConfig;
use anonbox::cli::RunArgs;
use anonbox::config::build_job;

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut reps = 5;
    let mut configs = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--reps" => {
                reps = args[i + 1].parse().unwrap();
                i += 1;
            }
            "--bench" => {}
            a => configs.push(a.to_string()),
        }
        i += 1;
    }
    for config in configs {
        let job = build_job(&RunArgs {
            config: Some(config.clone().into()),
            quiet: true,
            ..RunArgs::default()
        })
        .unwrap();
        let source = job.source().unwrap();
        let (table, _, _) =
            anonbox::data::load::load_table(&source, job.research_subset().unwrap(), &mut ())
                .unwrap();
        let mut times = Vec::new();
        let mut last = None;
        for _ in 0..reps {
            let start = thread_cpu_ns();
            let out = solve_for(
                &job.lattice(),
                &table,
                LatticeAlgorithm::Flash,
                CheckerConfig::default(),
            )
            .unwrap();
            times.push((thread_cpu_ns() - start) as f64 / 1e6);
            last = Some(out);
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let out = last.unwrap();
        let opt = out.optimum.unwrap();
        println!(
            "{}",
            serde_json::json!({
                "config": config,
                "cpu_ms_median": (times[times.len() / 2] * 10.0).round() / 10.0,
                "checks": out.checks,
                "levels": opt.levels,
                "loss": opt.loss,
            })
        );
    }
}
