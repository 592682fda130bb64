//! Destinations in shared folders: modes, planted links, streams, concurrent runs (cases 1-4).
//!
//! The neighbour is `nobody` (uid and gid 65534): its steps (`touch`, `ln -s`, `mkdir`) run as
//! that user through `sh`, in a sticky world-writable folder (`drop`, mode 1777, as `/tmp`) of a
//! temporary folder it may traverse. Those tests need root to switch users and are skipped with
//! a message otherwise; the others run as any user.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::config::{small_config, SMALL_INPUT, SMALL_QID};

const NOBODY: u32 = 65534;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_anonbox"))
}

/// True if the tests run as root (the neighbour's steps can then run as `nobody`); otherwise
/// says that `test` is skipped.
fn as_root(test: &str) -> bool {
    let probe = tempfile::tempfile().unwrap();
    let root = probe.metadata().unwrap().uid() == 0;
    if !root {
        eprintln!("skipped {test}: it runs a neighbour's steps as nobody, which needs root");
    }
    root
}

/// Runs `script` with `sh` as `nobody`, its arguments `$1`, `$2`, ... the `paths`.
fn as_nobody(script: &str, paths: &[&Path]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("neighbour")
        .args(paths)
        .uid(NOBODY)
        .gid(NOBODY)
        .output()
        .unwrap()
}

/// [`as_nobody`], which must succeed.
fn neighbour(script: &str, paths: &[&Path]) {
    let o = as_nobody(script, paths);
    assert!(o.status.success(), "{script}: {o:?}");
}

/// A folder of root's (mode 0755, so that `nobody` may traverse it) holding the small config
/// and its input (`c.xml`, `in.csv`), and `drop`, a sticky world-writable folder in it.
struct Shared {
    _dir: tempfile::TempDir,
    base: PathBuf,
    drop: PathBuf,
}

/// [`shared`] where `nobody` can reach `drop`; otherwise (a temporary folder under one that
/// `nobody` cannot traverse) says that `test` is skipped.
fn shared_for(test: &str) -> Option<Shared> {
    let s = shared();
    if as_nobody("test -w \"$1\" && test -x \"$1\"", &[&s.drop])
        .status
        .success()
    {
        Some(s)
    } else {
        eprintln!("skipped {test}: nobody cannot reach {}", s.drop.display());
        None
    }
}

fn shared() -> Shared {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().to_path_buf();
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(base.join("in.csv"), SMALL_INPUT).unwrap();
    std::fs::write(base.join("c.xml"), small_config("", SMALL_QID)).unwrap();
    let drop = base.join("drop");
    std::fs::create_dir(&drop).unwrap();
    std::fs::set_permissions(&drop, std::fs::Permissions::from_mode(0o1777)).unwrap();
    Shared {
        _dir: dir,
        base,
        drop,
    }
}

/// A run of the small config (Flash, k=2) in `dir` with the extra flags `args`.
fn run(dir: &Path, args: &[&str]) -> Output {
    bin()
        .current_dir(dir)
        .args(["-config", "c.xml", "-method", "Flash", "-k", "2", "-quiet"])
        .args(args)
        .output()
        .unwrap()
}

/// `anonbox hierarchy mask` of the first column of `input` into `output`, in `dir`.
fn mask(dir: &Path, input: &Path, output: &Path) -> Output {
    bin()
        .current_dir(dir)
        .args(["hierarchy", "mask", "--column", "0", "--input"])
        .arg(input)
        .arg("--output")
        .arg(output)
        .output()
        .unwrap()
}

/// Asserts that `o` is a refusal: exit 2 and one line naming `name`.
fn refused(o: &Output, name: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("anonbox: ") && err.lines().count() == 1,
        "{err}"
    );
    assert!(err.contains(name), "{name} not in {err}");
}

/// `path`'s (owner, permission bits, content), links not followed for the owner.
fn state(path: &Path) -> (u32, u32, Vec<u8>) {
    let m = std::fs::metadata(path).unwrap();
    (m.uid(), m.mode() & 0o7777, std::fs::read(path).unwrap())
}

/// Case 1: in a sticky world-writable folder another user pre-created the destination with mode
/// 0666 (or a link to their own 0666 file); `hierarchy mask` wrote 600,000 raw SSNs into it,
/// and a run its release: a replaced file kept its mode. `init --force` into a folder another
/// user owns kept 0666 on its files (that user could then edit the config). Now another user's
/// file in a folder others can write is refused (exit 2) and left as it was, and every file
/// anonbox creates is owner-only (0600), new outputs and reports included.
#[test]
fn raw_values_never_reach_a_file_another_user_can_read() {
    if !as_root("raw_values_never_reach_a_file_another_user_can_read") {
        return;
    }
    let Some(s) = shared_for("raw_values_never_reach_a_file_another_user_can_read") else {
        return;
    };
    let (base, drop) = (&s.base, &s.drop);
    let syn = base.join("syn.csv");
    let ssns: String = (0..200).map(|i| format!("123-45-{i:04}\n")).collect();
    std::fs::write(&syn, ssns).unwrap();
    let theirs = drop.join("theirs");
    neighbour(
        "umask 0 && : > \"$1/h.csv\" && : > \"$1/release.csv\" && mkdir \"$1/own\" && \
         : > \"$1/own/x.csv\" && ln -s \"$1/own/x.csv\" \"$1/hl.csv\" && \
         mkdir \"$1/empty\" && umask 022 && mkdir \"$2\" && echo '<config/>' > \"$2/config.xml\" && \
         chmod 666 \"$2/config.xml\"",
        &[drop, &theirs],
    );
    let before: Vec<_> = ["h.csv", "release.csv", "own/x.csv", "theirs/config.xml"]
        .iter()
        .map(|f| state(&drop.join(f)))
        .collect();

    refused(&mask(base, &syn, &drop.join("h.csv")), "h.csv");
    refused(&mask(base, &syn, &drop.join("hl.csv")), "hl.csv");
    refused(
        &run(
            base,
            &["-output", drop.join("release.csv").to_str().unwrap()],
        ),
        "release.csv",
    );
    let adult = crate::common::data("adult/adult.csv");
    let init = |dir: &Path| {
        bin()
            .current_dir(base)
            .arg("init")
            .arg(&adult)
            .args(["--separator", ";", "--header", "--force", "--dir"])
            .arg(dir)
            .output()
            .unwrap()
    };
    refused(&init(&theirs), "config.xml");
    let after: Vec<_> = ["h.csv", "release.csv", "own/x.csv", "theirs/config.xml"]
        .iter()
        .map(|f| state(&drop.join(f)))
        .collect();
    assert_eq!(after, before, "another user's files are left as they were");

    // New files: owner-only, wherever they are.
    let o = run(
        base,
        &[
            "-output",
            drop.join("new.csv").to_str().unwrap(),
            "-report",
            drop.join("new.json").to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let o = mask(base, &syn, &drop.join("new-h.csv"));
    assert!(o.status.success(), "{o:?}");
    for f in ["new.csv", "new.json", "new-h.csv"] {
        let (uid, mode, _) = state(&drop.join(f));
        assert_eq!((uid, mode), (0, 0o600), "{f}");
    }
    let empty = drop.join("empty");
    let o = init(&empty);
    assert!(o.status.success(), "{o:?}");
    let written = crate::common::files_in(&empty);
    assert!(written.contains(&"config.xml".to_string()), "{written:?}");
    for f in written {
        let (uid, mode, _) = state(&empty.join(&f));
        assert_eq!((uid, mode), (0, 0o600), "{f}");
    }
}

/// Case 2: another user's link in a sticky world-writable folder (`ln -s $SECRET/victim.txt
/// $DROP/release.csv`, `$SECRET` a folder only root can enter) made root's run replace the
/// victim, and a dangling one made it create a file there: anonbox resolved the link itself,
/// so the kernel's `protected_symlinks` could not help. A link in a folder others can write is
/// refused now (exit 2), for a run and for `anonbox hierarchy`, and nothing is written.
#[test]
fn a_planted_symlink_is_never_followed() {
    if !as_root("a_planted_symlink_is_never_followed") {
        return;
    }
    let Some(s) = shared_for("a_planted_symlink_is_never_followed") else {
        return;
    };
    let (base, drop) = (&s.base, &s.drop);
    let secret = base.join("secret");
    std::fs::create_dir(&secret).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o700)).unwrap();
    let victim = secret.join("victim.txt");
    std::fs::write(&victim, "root's secret\n").unwrap();
    neighbour(
        "ln -s \"$2/victim.txt\" \"$1/release.csv\" && ln -s \"$2/ghost.txt\" \"$1/ghost.csv\" \
         && ln -s \"$2/victim.txt\" \"$1/h.csv\"",
        &[drop, &secret],
    );
    let out = |name: &str| drop.join(name).to_str().unwrap().to_string();
    refused(&run(base, &["-output", &out("release.csv")]), "release.csv");
    refused(
        &run(
            base,
            &["-output", &out("new.csv"), "-report", &out("release.csv")],
        ),
        "release.csv",
    );
    refused(&run(base, &["-output", &out("ghost.csv")]), "ghost.csv");
    refused(&run(base, &["-db", &out("ghost.csv")]), "ghost.csv");
    refused(
        &mask(base, &base.join("in.csv"), &drop.join("h.csv")),
        "h.csv",
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's secret\n");
    assert_eq!(crate::common::files_in(&secret), ["victim.txt"]);
    for link in ["release.csv", "ghost.csv", "h.csv"] {
        assert!(std::fs::symlink_metadata(drop.join(link))
            .unwrap()
            .file_type()
            .is_symlink());
    }
    assert!(!drop.join("new.csv").exists());
}

/// Case 2, the same check-then-use gap: a link created while the run reads (output path -> the
/// input) made the run replace the raw input with the release, since the destination was
/// resolved again when the output was written. The debug build's pause while the kept
/// database's temporary file is created (before the input is read) opens the window. The input
/// stays as it was, and the run fails saying why.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the debug build's pause hooks (ANONBOX_TEST_*_DELAY_MS)"
)]
fn a_link_swapped_in_during_the_run_never_replaces_the_input() {
    use std::io::{BufRead, Read};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.csv"), SMALL_INPUT).unwrap();
    std::fs::write(d.join("c.xml"), small_config("", SMALL_QID)).unwrap();
    let mut child = bin()
        .current_dir(d)
        .env("ANONBOX_TEST_CREATE_DELAY_MS", "500")
        .args(["-config", "c.xml", "-method", "Flash", "-k", "2", "-quiet"])
        .args(["-db", "w.db", "-output", "o.csv"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), "anonbox: test: creating");
    std::os::unix::fs::symlink("in.csv", d.join("o.csv")).unwrap();
    let status = child.wait().unwrap();
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    assert_eq!(
        std::fs::read_to_string(d.join("in.csv")).unwrap(),
        SMALL_INPUT
    );
    assert!(!status.success(), "{rest}");
    assert!(rest.contains("o.csv") && rest.contains("in.csv"), "{rest}");
    assert!(std::fs::symlink_metadata(d.join("o.csv"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(!d.join("w.db").exists(), "a failed run writes nothing");
}

/// Case 3: `-output /dev/stdout >> app.log` replaced `app.log` (the link resolved to the regular
/// file, which was renamed over), and so did `-report /dev/stderr 2>> log`: earlier lines were
/// lost. A destination that names a file descriptor (`/dev/stdout`, `/dev/stderr`,
/// `/dev/fd/N`, `/proc/self/fd/N`) is written into, as the shell opened it.
#[test]
fn a_release_to_dev_stdout_is_appended_where_the_shell_sends_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.csv"), SMALL_INPUT).unwrap();
    std::fs::write(d.join("c.xml"), small_config("", SMALL_QID)).unwrap();
    let sh = |script: &str| {
        let o = Command::new("sh")
            .current_dir(d)
            .arg("-c")
            .arg(format!(
                "\"$0\" -config c.xml -method Flash -k 2 -quiet {script}"
            ))
            .arg(env!("CARGO_BIN_EXE_anonbox"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{script}: {o:?}");
    };
    std::fs::write(d.join("app.log"), "earlier line\n").unwrap();
    for fd in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
        sh(&format!("-output {fd} >> app.log"));
    }
    let log = std::fs::read_to_string(d.join("app.log")).unwrap();
    assert!(log.starts_with("earlier line\n"), "{log}");
    assert_eq!(log.lines().count(), 1 + 3 * 3, "{log}");

    std::fs::write(d.join("err.log"), "earlier line\n").unwrap();
    sh("-output o.csv -report /dev/stderr 2>> err.log");
    let log = std::fs::read_to_string(d.join("err.log")).unwrap();
    let report = log.strip_prefix("earlier line\n").expect(&log);
    let report: serde_json::Value = serde_json::from_str(report).unwrap();
    assert_eq!(report["k"], 2);
}

/// Case 4: two runs on the same `-output` and `-report`: about once in 1,500 pairs one run's
/// rollback deleted the other's published file (no output left, though one run exited 0), and
/// about once in 150 pairs a run failed with `out.csv: No such file or directory` (the file it
/// was about to set aside had just been set aside by the other). Here groups of eight runs on
/// the same destinations, a hundred times (every fifth time with the same kept database too,
/// every other time over existing files): every run succeeds, and the outputs are one run's,
/// complete, with nothing left beside them. (Before the fix, 8 to 35 of the 800 runs failed.)
#[test]
fn concurrent_runs_on_one_destination_never_lose_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.csv"), SMALL_INPUT).unwrap();
    std::fs::write(d.join("c.xml"), small_config("", SMALL_QID)).unwrap();
    let args = [
        "-config", "c.xml", "-method", "Flash", "-k", "2", "-quiet", "-output", "out.csv",
        "-report", "r.json",
    ];
    for round in 0..100 {
        if round % 2 == 0 {
            for f in ["out.csv", "r.json"] {
                let _ = std::fs::remove_file(d.join(f));
            }
        }
        let db: &[&str] = if round % 5 == 0 {
            &["-db", "w.db"]
        } else {
            &[]
        };
        let children: Vec<_> = (0..8)
            .map(|_| {
                bin()
                    .current_dir(d)
                    .args(args)
                    .args(db)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for c in children {
            let o = c.wait_with_output().unwrap();
            assert!(
                o.status.success(),
                "round {round}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        let mut expected = vec!["c.xml", "in.csv", "out.csv", "r.json"];
        if !db.is_empty() {
            expected.push("w.db");
        }
        assert_eq!(crate::common::files_in(d), expected, "round {round}");
        let _ = std::fs::remove_file(d.join("w.db"));
        let out = std::fs::read_to_string(d.join("out.csv")).unwrap();
        assert_eq!(out.lines().count(), 3, "round {round}: {out}");
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
        assert_eq!(report["k"], 2);
    }
}

/// Case 1, the way out of owner-only: `-mode OCTAL` (`--mode` for `init` and `hierarchy`) sets
/// the bits of every file written, new or replaced; the kept database stays 0600.
#[test]
fn the_mode_flag_sets_the_bits_of_every_file_but_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.csv"), SMALL_INPUT).unwrap();
    std::fs::write(d.join("c.xml"), small_config("", SMALL_QID)).unwrap();
    std::fs::write(d.join("old.csv"), "old\n").unwrap();
    std::fs::set_permissions(d.join("old.csv"), std::fs::Permissions::from_mode(0o600)).unwrap();
    let mode = |f: &str| state(&d.join(f)).1;
    let o = run(
        d,
        &[
            "-output", "old.csv", "-report", "r.json", "-db", "w.db", "-mode", "640",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        [mode("old.csv"), mode("r.json"), mode("w.db")],
        [0o640, 0o640, 0o600]
    );
    let o = bin()
        .current_dir(d)
        .args(["hierarchy", "mask", "--column", "2", "--input", "in.csv"])
        .args(["--output", "h.csv", "--mode", "0644"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(mode("h.csv"), 0o644);
    let o = run(d, &["-output", "x.csv", "-mode", "1777"]);
    refused(&o, "-mode");
}
