//! Loads a job's input into the store and prints the throughput: the load half of
//! `scripts/bench_load.sh`. Takes the same flags as `anonbox` (the method is not run).
//!
//! `cargo run --release --example load -- -config configs/adult.xml`

use std::time::Instant;

use anonbox::cli::{parse_args, Command};
use anonbox::progress::Progress;
use anonbox::store::Store;

fn main() -> anyhow::Result<()> {
    let args = match parse_args(std::env::args().skip(1))? {
        Command::Run(r) => *r,
        _ => anyhow::bail!("usage: load -config FILE [anonbox flags]"),
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args)?;
    let started = Instant::now();
    // A kept database (`-db`) is staged in a publication that is never published.
    let publication = anonbox::io::Publication::default();
    let mut store = Store::open(job.db.as_deref(), &publication)?;
    store.record_run(&job.run_record())?;
    let loaded = store.load(&job.source()?, &mut Progress::new(job.quiet).load())?;
    let secs = started.elapsed().as_secs_f64();
    let rows = loaded.summary.records();
    let t = loaded.timings;
    println!(
        "rows={rows} tuples={} load_seconds={secs:.3} rows_per_second={:.0} \
         insert_seconds={:.3} insert_rows_per_second={:.0} tuples_seconds={:.3}",
        loaded.tuples,
        rows as f64 / secs,
        t.insert,
        rows as f64 / t.insert,
        t.tuples,
    );
    Ok(())
}
