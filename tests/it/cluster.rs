//! The Ballista engine (`-engine ballista://HOST:PORT`) on a local cluster started by
//! `scripts/cluster.sh` (a scheduler and two executors, each its own process of this build's
//! `anonbox-cluster`): ARX's optimum from Parquet, the same released rows as the embedded
//! engine (as a multiset), an unreachable scheduler refused within 10 s (exit 1, nothing
//! written), and `down` stops exactly the cluster's processes and removes its work folder.
//! Every release written here is re-checked by the independent checker.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::columnar::{
    adult_rows, arx_k5_rows, assert_matches_arx, config, read_release, recheck, write_csv,
    write_parquet,
};
use crate::common::anonbox;
use crate::engines::{csv_rows, run_ok};

/// A cluster of `scripts/cluster.sh`, stopped when dropped.
struct Cluster {
    state: tempfile::TempDir,
    address: String,
}

fn script(state: &Path, args: &[&str]) -> std::process::Output {
    Command::new("bash")
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
        let state = tempfile::tempdir().unwrap();
        let port = free_port().to_string();
        let n = executors.to_string();
        let out = script(state.path(), &["up", "--executors", &n, "--port", &port]);
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

    fn down(&self) -> std::process::Output {
        script(self.state.path(), &["down"])
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.down();
    }
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
        let r = run_ok(
            d,
            &[
                "-config",
                cfg.to_str().unwrap(),
                "-engine",
                &cluster.address,
                "-method",
                "Flash",
                "-k",
                "5",
                "-suppression",
                &s.to_string(),
                "-metric",
                &metric,
            ],
        );
        assert_eq!(r["engine"], cluster.address.as_str());
        assert_matches_arx(d, &row, &r, s);
    }

    // From CSV into CSV with suppression: the embedded engine's rows, as a multiset.
    let csv = d.join("adult.csv");
    write_csv(&csv, &adult_rows());
    let rows_of = |engine: &str, out: &str| {
        let cfg = config(d, &csv, "separator=\";\" header=\"true\"", out);
        let r = run_ok(
            d,
            &[
                "-config",
                cfg.to_str().unwrap(),
                "-engine",
                engine,
                "-separator",
                ";",
                "-method",
                "Flash",
                "-k",
                "10",
                "-suppression",
                "0.02",
            ],
        );
        let rows = csv_rows(&d.join(out), ";", true);
        (r, rows)
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
    assert_eq!(sorted(got), sorted(want));

    // The Parquet release's rows too.
    let (_, parquet_rows) = read_release(&d.join("out.parquet"));
    assert_eq!(parquet_rows.len(), 30_162);

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
