//! The Ballista engine (`-engine ballista://HOST:PORT`) on a local cluster started by
//! `scripts/cluster.sh` (a scheduler and two executors, each its own process of this build's
//! `anonbox-cluster`): ARX's optimum from Parquet; the same released rows as the embedded
//! engine (as a multiset, with Flash and with Mondrian); an unreachable scheduler refused
//! within 10 s (exit 1, nothing written); executors under a memory limit below the frequency
//! set's size (their plans spill into their work folders) giving the same release; an executor
//! killed mid-run (the run retries or fails, and publishes nothing partial); and `down` stops
//! exactly the cluster's processes and removes its work folder. Every release written here is
//! re-checked by the independent checker.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::columnar::{
    adult_rows, arx_k5_rows, assert_matches_arx, config, read_release, recheck, write_csv,
    write_parquet,
};
use crate::common::anonbox;
use crate::engines::{csv_rows, numbered_adult_rows, numbered_config, run_ok};

/// A cluster of `scripts/cluster.sh`, stopped when dropped.
struct Cluster {
    state: tempfile::TempDir,
    address: String,
}

fn script(state: &Path, args: &[&str]) -> std::process::Output {
    script_env(state, args, &[])
}

/// `scripts/cluster.sh` with `env` set for it (and the processes it starts).
fn script_env(state: &Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    Command::new("bash")
        .envs(env.iter().copied())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/cluster.sh"))
        .args(args)
        .env("ANONBOX_CLUSTER_BIN", env!("CARGO_BIN_EXE_anonbox-cluster"))
        .env("ANONBOX_CLUSTER_STATE", state.join("cluster"))
        .output()
        .unwrap()
}

/// A port nothing listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Cluster {
    fn up(executors: usize) -> Cluster {
        Cluster::up_with(executors, &[])
    }

    /// A cluster started with `up`'s `options` beside the executors and the port.
    fn up_with(executors: usize, options: &[&str]) -> Cluster {
        Cluster::up_env(executors, options, &[])
    }

    /// A cluster started with `options`, its processes with `env` set.
    fn up_env(executors: usize, options: &[&str], env: &[(&str, &str)]) -> Cluster {
        let state = tempfile::tempdir().unwrap();
        let port = free_port().to_string();
        let n = executors.to_string();
        let mut args = vec!["up", "--executors", &n, "--port", &port];
        args.extend_from_slice(options);
        let out = script_env(state.path(), &args, env);
        assert!(
            out.status.success(),
            "cluster.sh up: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let address = String::from_utf8(out.stdout).unwrap().trim().to_string();
        assert!(address.starts_with("ballista://127.0.0.1:"), "{address}");
        Cluster { state, address }
    }

    fn dir(&self) -> PathBuf {
        self.state.path().join("cluster")
    }

    /// The cluster's process ids, as the script recorded them.
    fn pids(&self) -> Vec<u32> {
        std::fs::read_to_string(self.dir().join("pids"))
            .unwrap_or_default()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    }

    /// The executors' logs, one string.
    fn executor_logs(&self) -> String {
        let mut all = String::new();
        for name in crate::common::files_in(&self.dir().join("logs")) {
            if name.starts_with("executor-") {
                all += &std::fs::read_to_string(self.dir().join("logs").join(name)).unwrap();
            }
        }
        all
    }

    fn down(&self) -> std::process::Output {
        script(self.state.path(), &["down"])
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.down();
    }
}

/// Runs anonbox in `d` with `cfg` on `engine` and `flags`; returns the report.
fn run_on(d: &Path, cfg: &Path, engine: &str, flags: &[&str]) -> serde_json::Value {
    let mut args = vec!["-config", cfg.to_str().unwrap(), "-engine", engine];
    args.extend_from_slice(flags);
    run_ok(d, &args)
}

fn sorted(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.sort();
    rows
}

/// One cluster for the golden rows, the comparison with the embedded engine and `down`.
#[test]
fn ballista_gives_arx_optimum_and_the_embedded_engines_rows() {
    let cluster = Cluster::up(2);
    let pids = cluster.pids();
    assert_eq!(pids.len(), 3, "a scheduler and two executors");
    let work = cluster.dir().join("work");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(cluster.dir()).unwrap().permissions(),
    );
    assert_eq!(mode & 0o777, 0o700, "the cluster's folder is private");

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("adult.parquet");
    write_parquet(&input, &adult_rows(), 4096);
    let cfg = config(d, &input, "", "out.parquet");
    for (row, s, metric) in arx_k5_rows() {
        let s_flag = s.to_string();
        let flags = [
            "-method",
            "Flash",
            "-k",
            "5",
            "-suppression",
            &s_flag,
            "-metric",
            &metric,
        ];
        let r = run_on(d, &cfg, &cluster.address, &flags);
        assert_eq!(r["engine"], cluster.address.as_str());
        assert_matches_arx(d, &row, &r, s);
    }

    // From CSV into CSV with suppression: the embedded engine's rows, as a multiset.
    let csv = d.join("adult.csv");
    write_csv(&csv, &adult_rows());
    let search = ["-method", "Flash", "-k", "10", "-suppression", "0.02"];
    let rows_of = |engine: &str, out: &str| {
        let cfg = config(d, &csv, "separator=\";\" header=\"true\"", out);
        let r = run_on(
            d,
            &cfg,
            engine,
            &[&["-separator", ";"][..], &search].concat(),
        );
        (r, csv_rows(&d.join(out), ";", true))
    };
    let (embedded, want) = rows_of("embedded", "embedded.csv");
    let (on_cluster, got) = rows_of(&cluster.address, "cluster.csv");
    for key in [
        "transformation",
        "suppressed_records",
        "equivalence_classes",
    ] {
        assert_eq!(embedded[key], on_cluster[key], "{key}");
    }
    assert_eq!(got.len(), 30_162);
    let found = recheck(d, &got, 10, (0.02f64 * 30162.0).floor() as usize);
    assert_eq!(on_cluster["suppressed_records"], found.suppressed as u64);
    let want = sorted(want);
    assert_eq!(sorted(got), want);

    // The same CSV (no quote in it) into a data set folder: the executors read the file in
    // byte ranges, each task writing the part of its range.
    let cfg = config(d, &csv, "separator=\";\" header=\"true\"", "csvparts/");
    run_on(
        d,
        &cfg,
        &cluster.address,
        &[&["-threads", "2"][..], &search].concat(),
    );
    let parts = crate::common::files_in(&d.join("csvparts"));
    assert!(parts.len() >= 2, "a part a byte range: {parts:?}");
    assert_eq!(sorted(read_release(&d.join("csvparts")).1), want);

    // The Parquet release's rows too.
    let (_, parquet_rows) = read_release(&d.join("out.parquet"));
    assert_eq!(parquet_rows.len(), 30_162);

    // Mondrian over hierarchies from Parquet: each record rewritten by its tuple's class on
    // the executors, the embedded engine's rows as a multiset, k-anonymous.
    let mondrian = |engine: &str, out: &str| {
        let cfg = config(d, &input, "", out);
        let r = run_on(d, &cfg, engine, &["-method", "Mondrian", "-k", "5"]);
        (r, read_release(&d.join(out)).1)
    };
    let (embedded, want) = mondrian("embedded", "mondrian-embedded.parquet");
    let (on_cluster, got) = mondrian(&cluster.address, "mondrian-cluster.parquet");
    for key in ["equivalence_classes", "information_loss"] {
        assert_eq!(embedded[key], on_cluster[key], "Mondrian: {key}");
    }
    let mut classes: std::collections::HashMap<&[String], usize> = Default::default();
    for r in &got {
        *classes.entry(&r[..9]).or_default() += 1;
    }
    assert!(classes.values().all(|&n| n >= 5), "a class under k = 5");
    assert_eq!(on_cluster["equivalence_classes"], classes.len() as u64);
    assert_eq!(sorted(got), sorted(want));

    // A data set folder: each executor's task writes its part, the driver adopts them; the
    // embedded engine's rows as a multiset, nothing else left in the folder.
    let cfg = config(d, &input, "", "parts/");
    let r = run_on(
        d,
        &cfg,
        &cluster.address,
        &[
            "-threads",
            "2",
            "-method",
            "Flash",
            "-k",
            "5",
            "-suppression",
            "0.02",
        ],
    );
    let names = crate::common::files_in(&d.join("parts"));
    assert!(names.len() >= 2, "a part a task: {names:?}");
    assert!(
        names
            .iter()
            .enumerate()
            .all(|(n, f)| *f == format!("part-{n:05}.parquet")),
        "{names:?}"
    );
    let got = read_release(&d.join("parts")).1;
    let found = recheck(d, &got, 5, (0.02f64 * 30162.0).floor() as usize);
    assert_eq!(r["suppressed_records"], found.suppressed as u64);
    let cfg = config(d, &input, "", "flash-embedded.parquet");
    run_on(
        d,
        &cfg,
        "embedded",
        &["-method", "Flash", "-k", "5", "-suppression", "0.02"],
    );
    assert_eq!(
        sorted(got),
        sorted(read_release(&d.join("flash-embedded.parquet")).1)
    );

    // `down`: exactly the cluster's processes stop, and its folder (the shuffle files) goes.
    assert!(work.exists());
    let out = cluster.down();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for pid in pids {
        let gone = !Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/status"))
                .is_ok_and(|s| s.contains("State:\tZ"));
        assert!(gone, "process {pid} still runs");
    }
    assert!(!cluster.dir().exists(), "the cluster's folder is gone");
}

/// A scheduler nobody runs: exit 1 within 10 s, the address in the message, nothing written.
#[test]
fn an_unreachable_cluster_is_a_data_error_within_ten_seconds() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("adult.parquet");
    write_parquet(&input, &adult_rows()[..500], 4096);
    let cfg = config(d, &input, "", "out.parquet");
    let address = format!("ballista://127.0.0.1:{}", free_port());
    let start = Instant::now();
    let out = anonbox(
        d,
        &[
            "-quiet",
            "-config",
            cfg.to_str().unwrap(),
            "-engine",
            &address,
            "-method",
            "Flash",
            "-k",
            "5",
        ],
    );
    let took = start.elapsed();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        err.starts_with("anonbox:") && err.contains(&address),
        "{err}"
    );
    assert!(!d.join("out.parquet").exists());
}

/// An executor killed with SIGKILL mid-run (the driver paused between the frequency set and the
/// release): the run either retries on the other executor and releases the embedded engine's
/// rows, or fails (exit 1, one line) with nothing published and no staged file left; either
/// way within three minutes.
#[test]
fn an_executor_killed_mid_run_retries_or_fails_cleanly() {
    use std::io::{BufRead, Read};
    let cluster = Cluster::up(2);
    let pids = cluster.pids();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("adult.parquet");
    write_parquet(&input, &adult_rows(), 4096);
    let flags = ["-method", "Flash", "-k", "5", "-suppression", "0.02"];
    let cfg = config(d, &input, "", "embedded.parquet");
    run_on(d, &cfg, "embedded", &flags);
    let want = sorted(read_release(&d.join("embedded.parquet")).1);
    let before = crate::common::files_in(d);

    let cfg = config(d, &input, "", "out.parquet");
    let mut child = Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(d)
        .env("ANONBOX_TEST_ENGINE_DELAY_MS", "2000")
        .args(["-quiet", "-config", cfg.to_str().unwrap()])
        .args(["-engine", &cluster.address])
        .args(flags)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), "anonbox: test: frequency set");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pids[2] as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(180) {
            let _ = child.kill();
            panic!("the run still waits three minutes after an executor was killed");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let mut err = String::new();
    stderr.read_to_string(&mut err).unwrap();
    if status.success() {
        eprintln!("an executor killed mid-run: the run retried and completed");
        assert_eq!(sorted(read_release(&d.join("out.parquet")).1), want);
    } else {
        eprintln!("an executor killed mid-run: the run failed: {err}");
        assert_eq!(status.code(), Some(1), "{err}");
        assert!(err.starts_with("anonbox:"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!d.join("out.parquet").exists());
    }
    let mut after = crate::common::files_in(d);
    after.retain(|f| f != "out.parquet");
    assert_eq!(after, before, "a staged file was left behind");
}

/// SIGTERM while the executors write a release's parts (the debug build's executors pause each
/// part's task once its file is created): the driver cancels the job before it removes its
/// staging folder, so the executors abort the tasks (each removing its unfinished file) rather
/// than writing on after the run has ended; the run exits 143 and leaves nothing in the output
/// folder's parent but what was there.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the debug build's pause hooks (ANONBOX_TEST_*_DELAY_MS)"
)]
fn sigterm_during_a_cluster_release_cancels_its_job() {
    use std::io::Read;
    let cluster = Cluster::up_env(2, &[], &[("ANONBOX_TEST_PART_DELAY_MS", "600000")]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("adult.parquet");
    write_parquet(&input, &adult_rows(), 4096);
    let cfg = config(d, &input, "", "parts/");
    let before = crate::common::files_in(d);
    let mut child = Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(d)
        .args(["-quiet", "-config", cfg.to_str().unwrap()])
        .args(["-engine", &cluster.address, "-threads", "2"])
        .args(["-method", "Flash", "-k", "5"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Waits up to `secs` for the executors' logs to hold one of `lines`.
    let waited = |lines: &[&str], secs: u64| {
        let start = Instant::now();
        loop {
            let logs = cluster.executor_logs();
            if lines.iter().any(|l| logs.contains(l)) {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(secs),
                "none of {lines:?} in the executors' logs after {secs} s: {logs}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    waited(&["anonbox: test: writing a part"], 120);
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(143), "{err}");
    // Without the cancellation the tasks sleep on for ten minutes. With it, the executor
    // aborts the task: its part's future says so, or Ballista does (a task running several
    // partitions aborts them through its own spawned streams).
    waited(
        &["anonbox: test: part task aborted", "Task has been aborted"],
        20,
    );
    assert_eq!(crate::common::files_in(d), before, "{err}");
}

/// Executors started with a memory limit below the frequency set's size (ADULT four times
/// over with a row number as a sensitive attribute: 120 k groups of ten texts; the group-by
/// spills into the executors' private work folders): the same transformation and rows as the
/// embedded engine. `-memoryLimit` with a cluster is a config error naming the script's option.
#[test]
fn executors_under_a_memory_limit_give_the_same_release() {
    let cluster = Cluster::up_with(2, &["--memory-limit", "16M"]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("big.parquet");
    write_parquet(&input, &numbered_adult_rows(4), 8192);
    let run = |engine: &str, out: &str| {
        let cfg = numbered_config(d, &input, out);
        let flags = ["-method", "Flash", "-k", "5", "-suppression", "0.02"];
        let r = run_on(d, &cfg, engine, &flags);
        (r, sorted(read_release(&d.join(out)).1))
    };
    let (embedded, want) = run("embedded", "embedded.parquet");
    let (limited, got) = run(&cluster.address, "cluster.parquet");
    for key in ["transformation", "suppressed_records", "information_loss"] {
        assert_eq!(embedded[key], limited[key], "{key}");
    }
    assert_eq!(got, want);

    let cfg = config(d, &input, "", "refused.parquet");
    let out = anonbox(
        d,
        &[
            "-config",
            cfg.to_str().unwrap(),
            "-engine",
            &cluster.address,
            "-memoryLimit",
            "1G",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cluster.sh up --memory-limit SIZE"), "{err}");
    assert!(!d.join("refused.parquet").exists());
}
