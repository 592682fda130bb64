//! One test per case of the hardening issue (issue 28): a hostile neighbour, a shared folder, a
//! busy destination, a pathological input or config. Each test fails on the code before its fix.
//!
//! The cases that need another user (a file planted by someone else in a shared folder) run the
//! neighbour's steps as `nobody` when the tests run as root, and are skipped with a message
//! otherwise.

mod init;
mod inputs;
mod limits;
mod publish;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` (stdout and stderr captured) for at most `bound`: its output and how long it
/// took, or a failure naming what ran too long (after killing it).
pub(super) fn run_within(mut cmd: Command, bound: Duration, what: &str) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain the pipes meanwhile: a full pipe must not stall the run.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut b).unwrap();
        b
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut b).unwrap();
        b
    });
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > bound {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what}: still running after {bound:?}, killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = started.elapsed();
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    (output, took)
}
