//! One test per defect of the safety issue (issue 10), each named after what it guards against.
//! Every test fails on the code before the fix.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{data, files_in};
use crate::kcheck;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_anonbox"))
}

/// An ADULT config in `dir` with absolute data paths (hierarchy files from the repository), the
/// input `input` (default: ADULT itself) and root attributes `root`, `<privacy>` body `privacy`.
/// Runs anonbox on `config`, quietly, releasing to `output`.
fn release(config: &Path, output: &Path) -> std::process::Output {
    bin()
        .arg("-config")
        .arg(config)
        .args(["-quiet", "-output"])
        .arg(output)
        .output()
        .unwrap()
}

fn adult_config(dir: &Path, input: Option<&Path>, root: &str, privacy: &str) -> PathBuf {
    let adult = data("adult");
    let input = input.map_or(adult.join("adult.csv"), Path::to_path_buf);
    let names = crate::common::ADULT_ATTRIBUTES;
    let atts: String = names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            format!(
                "<att index='{i}' name='{n}' hierarchy='{}'/>\n",
                adult.join(format!("adult_hierarchy_{n}.csv")).display()
            )
        })
        .collect();
    let privacy = if privacy.is_empty() {
        String::new()
    } else {
        format!("<privacy>{privacy}</privacy>")
    };
    let text = format!(
        "<config {root}>\n<input filename='{}' separator=';' header='true'/>\n<qid>\n{atts}</qid>\n\
         {privacy}\n</config>\n",
        input.display()
    );
    let path = dir.join("config.xml");
    std::fs::write(&path, text).unwrap();
    path
}

/// ADULT's rows `copies` times under one header.
fn replicated_adult(dir: &Path, copies: usize) -> PathBuf {
    let text = std::fs::read_to_string(data("adult/adult.csv")).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    let mut out = String::with_capacity(text.len() * copies);
    out.push_str(header);
    out.push('\n');
    for _ in 0..copies {
        out.push_str(body);
    }
    let path = dir.join("big.csv");
    std::fs::write(&path, out).unwrap();
    path
}

/// The files of `dir` that hold at least one byte (a file that vanished while looking is none).
fn files_with_data(dir: &Path) -> Vec<String> {
    files_in(dir)
        .into_iter()
        .filter(|name| std::fs::metadata(dir.join(name)).is_ok_and(|m| m.len() > 0))
        .collect()
}

/// Defect 1: SIGTERM or SIGINT during a run left the temporary database (every raw record) in
/// $TMPDIR and a partial temporary output; SIGHUP (a closed terminal) left the temporary output.
/// Signals at several points of runs on 600,000 rows (at 300,000 the faster methods finish
/// before most of the signals): $TMPDIR (private to the test) never holds data and is empty at
/// the end, the old output stays intact, the exit status is 143 (130, 129) with one line saying
/// nothing was written.
#[test]
fn raw_data_never_left_behind_on_signals() {
    let dir = tempfile::tempdir().unwrap();
    let input = replicated_adult(dir.path(), 20);
    let config = adult_config(dir.path(), Some(&input), "k='5'", "");
    let tmp = dir.path().join("tmp");
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join("release.csv");
    let mut interrupted = 0;
    for (method, signal, delay_ms) in [
        ("Datafly", "TERM", 150),
        ("Datafly", "TERM", 400),
        ("Datafly", "INT", 700),
        ("Flash", "TERM", 100),
        ("Flash", "INT", 300),
        ("Flash", "HUP", 200),
        ("Incognito_K", "TERM", 250),
    ] {
        std::fs::write(&out, b"old release\n").unwrap();
        let child = bin()
            .env("TMPDIR", &tmp)
            .env("SQLITE_TMPDIR", &tmp)
            .args(["-config"])
            .arg(&config)
            .args(["-method", method, "-quiet", "-output"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(delay_ms) {
            // SQLite unlinks its temporary files right after creating them (before writing a
            // byte), so a name may show for that instant; no name ever holds data.
            assert_eq!(files_with_data(&tmp), Vec::<String>::new(), "{method}");
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status();
        let status = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&status.stderr);
        assert_eq!(files_in(&tmp), Vec::<String>::new(), "{method}");
        match status.status.code() {
            Some(0) => {
                // Finished before the signal: the new release is complete.
                assert!(std::fs::read(&out).unwrap().len() > 1_000_000, "{method}");
            }
            Some(code) => {
                let want = match signal {
                    "TERM" => 143,
                    "INT" => 130,
                    _ => 129,
                };
                assert_eq!(code, want, "{method} {signal}: {stderr}");
                assert_eq!(std::fs::read(&out).unwrap(), b"old release\n", "{method}");
                assert_eq!(files_in(&out_dir), vec!["release.csv"], "{method}");
                let last = stderr.trim_end().lines().last().unwrap_or("");
                assert_eq!(
                    last,
                    format!(
                        "anonbox: interrupted by SIG{signal}: temporary files removed, no output \
                         was written"
                    ),
                    "{method}: {stderr}"
                );
                interrupted += 1;
            }
            None => panic!("{method}: killed by a signal the handler did not take"),
        }
    }
    assert!(
        interrupted >= 3,
        "too few runs were interrupted ({interrupted})"
    );

    // A kept database (-db) interrupted mid-run: the one of the run before stays as it was,
    // and no temporary file is left beside it.
    let db = out_dir.join("work.db");
    let o = bin()
        .arg("-config")
        .arg(&config)
        .args(["-method", "Flash", "-quiet", "-output"])
        .arg(out_dir.join("kept.csv"))
        .arg("-db")
        .arg(&db)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let before = std::fs::read(&db).unwrap();
    let listed = files_in(&out_dir);
    let child = bin()
        .env("TMPDIR", &tmp)
        .arg("-config")
        .arg(&config)
        .args(["-method", "Datafly", "-quiet", "-output"])
        .arg(out_dir.join("kept.csv"))
        .arg("-db")
        .arg(&db)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(600));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(143),
        "the run ended before the signal"
    );
    assert!(
        std::fs::read(&db).unwrap() == before,
        "the kept database changed"
    );
    assert_eq!(files_in(&out_dir), listed);
    assert_eq!(files_in(&tmp), Vec::<String>::new());
}

/// A kept database (`-db`) is an output like the others: written to a temporary file and
/// renamed into place only when the run succeeds. A failed run neither creates one nor changes
/// the one there; a file that is not an anonbox database is refused before anything is read.
#[test]
fn a_kept_database_appears_only_with_a_successful_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, None, "k='5'", "");
    let run = |db: &str, k: &str| {
        bin()
            .current_dir(d)
            .arg("-config")
            .arg(&config)
            .args([
                "-method", "Flash", "-quiet", "-k", k, "-output", "out.csv", "-db", db,
            ])
            .output()
            .unwrap()
    };
    let o = run("w.db", "5");
    assert!(o.status.success(), "{o:?}");
    let good = std::fs::read(d.join("w.db")).unwrap();
    let listed = files_in(d);
    // More than the records: a data error after the load (exit 1).
    let o = run("w.db", "1000000");
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(std::fs::read(d.join("w.db")).unwrap() == good);
    let o = run("new.db", "1000000");
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(files_in(d), listed);
    // A database an older anonbox kept in WAL, its -wal and -shm still beside it (a writer
    // that never closed): a failed run leaves the three files as they are; a successful one
    // replaces the database and removes them (a stale -wal would be replayed into the new one).
    let conn = rusqlite::Connection::open(d.join("w.db")).unwrap();
    conn.execute_batch(
        "PRAGMA journal_mode = WAL; CREATE TABLE stale (x); INSERT INTO stale VALUES (1);",
    )
    .unwrap();
    std::mem::forget(conn);
    let side = |s: &str| d.join(format!("w.db{s}"));
    let wal = std::fs::read(side("-wal")).unwrap();
    assert!(side("-shm").exists());
    let o = run("w.db", "1000000");
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(std::fs::read(side("-wal")).unwrap() == wal && side("-shm").exists());
    let o = run("w.db", "5");
    assert!(o.status.success(), "{o:?}");
    assert!(!side("-wal").exists() && !side("-shm").exists());
    let conn = rusqlite::Connection::open(d.join("w.db")).unwrap();
    let stale: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE name = 'stale'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stale, 0);
    drop(conn);

    // Not an anonbox database: refused (exit 2), left alone.
    std::fs::write(d.join("notes.db"), b"my notes\n").unwrap();
    let foreign = rusqlite::Connection::open(d.join("other.db")).unwrap();
    foreign
        .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        .unwrap();
    drop(foreign);
    let other = std::fs::read(d.join("other.db")).unwrap();
    // Another program's database whose user_version looks like an anonbox schema version.
    let versioned = rusqlite::Connection::open(d.join("versioned.db")).unwrap();
    versioned
        .execute_batch("CREATE TABLE important (x); PRAGMA user_version = 1;")
        .unwrap();
    drop(versioned);
    let versioned = std::fs::read(d.join("versioned.db")).unwrap();
    for (db, why) in [
        ("notes.db", "is not an SQLite database"),
        ("other.db", "is not an anonbox database"),
        ("versioned.db", "is not an anonbox database"),
    ] {
        let o = run(db, "5");
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(why) && err.lines().count() == 1, "{err}");
    }
    assert_eq!(std::fs::read(d.join("notes.db")).unwrap(), b"my notes\n");
    assert!(std::fs::read(d.join("other.db")).unwrap() == other);
    assert!(std::fs::read(d.join("versioned.db")).unwrap() == versioned);
}

/// A rename that fails while the outputs are published (here a folder put where the report
/// goes, during the debug build's pause) undoes the renames before it: the release that was
/// already in place is the old one again, and nothing is left beside it. (Every output was
/// renamed in turn, and the ones before the failure stayed.)
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the debug build's pause hooks (ANONBOX_TEST_*_DELAY_MS)"
)]
fn a_failed_rename_while_publishing_undoes_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, None, "k='5'", "");
    std::fs::write(d.join("release.csv"), b"old release\n").unwrap();
    let (mut child, mut stderr) = paused(
        bin()
            .current_dir(d)
            .env("ANONBOX_TEST_PUBLISH_DELAY_MS", "600")
            .arg("-config")
            .arg(&config)
            .args([
                "-method",
                "Flash",
                "-quiet",
                "-output",
                "release.csv",
                "-db",
                "work.db",
            ])
            .args(["-report", "report.json"]),
        "publishing",
    );
    std::fs::create_dir(d.join("report.json")).unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(1), "{rest}");
    assert!(rest.contains("report.json"), "{rest}");
    assert_eq!(
        std::fs::read(d.join("release.csv")).unwrap(),
        b"old release\n"
    );
    assert_eq!(
        files_in(d),
        vec!["config.xml", "release.csv", "report.json"],
        "the database renamed before the failure is gone again"
    );
}

/// Spawns `cmd` with its stderr piped and waits for the debug build's announcement of the pause
/// `announced` (`anonbox: test: creating`); returns the child, paused there, and its stderr.
fn paused(
    cmd: &mut Command,
    announced: &str,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    use std::io::BufRead;
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), format!("anonbox: test: {announced}"));
    (child, stderr)
}

/// Runs Flash on ADULT (k=5) into `out` with `TMPDIR=tmp`, asks the debug build to pause at
/// the point `var` names, sends SIGTERM once the pause is announced (`announced`), and returns
/// the exit code and the rest of stderr.
fn terminate_during(
    config: &Path,
    tmp: &Path,
    out: &Path,
    var: &str,
    announced: &str,
) -> (Option<i32>, String) {
    let (mut child, mut stderr) = paused(
        bin()
            .env("TMPDIR", tmp)
            .env(var, "600")
            .args(["-config"])
            .arg(config)
            .args(["-method", "Flash", "-quiet", "-output"])
            .arg(out),
        announced,
    );
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    (child.wait().unwrap().code(), rest)
}

/// Defect 1b: a signal while the outputs were being renamed into place removed the temporary
/// files under the renames: the run failed with exit 1 ("No such file or directory") in place of
/// either a finished release or a clean interruption. The signal now waits for the renames and
/// is then ignored: the run has succeeded. (Debug builds pause inside the renames on request.)
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the debug build's pause hooks (ANONBOX_TEST_*_DELAY_MS)"
)]
fn a_signal_while_publishing_waits_for_the_release() {
    let dir = tempfile::tempdir().unwrap();
    let config = adult_config(dir.path(), None, "k='5'", "");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = dir.path().join("release.csv");
    std::fs::write(&out, b"old release\n").unwrap();
    let (code, rest) = terminate_during(
        &config,
        &tmp,
        &out,
        "ANONBOX_TEST_PUBLISH_DELAY_MS",
        "publishing",
    );
    assert_eq!(code, Some(0), "{rest}");
    let released = std::fs::read_to_string(&out).unwrap();
    assert_eq!(released.lines().count(), 30_163, "{rest}");
    kcheck::check(&out, &crate::datafly::adult_spec(5, 5)).unwrap();
    assert_eq!(files_in(dir.path()), ["config.xml", "release.csv", "tmp"]);
    assert_eq!(files_in(&tmp), Vec::<String>::new());
}

/// Defect 1c: a signal arriving between the creation of a temporary output file and its entry
/// in the cleanup's list (or while the cleanup ran) left the file, holding released data, beside
/// the output (seen once in CI). Creation now waits for a cleanup under way, and a cleanup
/// waits for a creation to be listed. (Debug builds pause between the two on request.)
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the debug build's pause hooks (ANONBOX_TEST_*_DELAY_MS)"
)]
fn a_signal_while_creating_an_output_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let config = adult_config(dir.path(), None, "k='5'", "");
    let tmp = dir.path().join("tmp");
    let out_dir = dir.path().join("out");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::create_dir_all(&out_dir).unwrap();
    let out = out_dir.join("release.csv");
    std::fs::write(&out, b"old release\n").unwrap();
    let (code, rest) = terminate_during(
        &config,
        &tmp,
        &out,
        "ANONBOX_TEST_CREATE_DELAY_MS",
        "creating",
    );
    assert_eq!(code, Some(143), "{rest}");
    assert_eq!(
        rest.trim_end(),
        "anonbox: interrupted by SIGTERM: temporary files removed, no output was written"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old release\n");
    assert_eq!(files_in(&out_dir), ["release.csv"]);
    assert_eq!(files_in(&tmp), Vec::<String>::new());
}

/// Defect 2: a report that could not be written failed the run after the output had already
/// replaced the old one. Every output is published only when all are complete.
#[test]
fn a_failed_run_changes_no_file() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = adult_config(dir.path(), None, "k='5'", "");
    let out = dir.path().join("release.csv");
    for method in ["Datafly", "Flash", "Anatomy"] {
        std::fs::write(&out, b"old").unwrap();
        let sens = if method == "Anatomy" {
            "anatomy"
        } else {
            "genVals"
        };
        let o = bin()
            .arg("-config")
            .arg(&config)
            .args([
                "-method",
                method,
                "-quiet",
                "-outputFormat",
                sens,
                "-output",
            ])
            .arg(&out)
            .args(["-report", "/dev/full"])
            .output()
            .unwrap();
        // Anatomy needs a sensitive attribute: a config error, before anything is read.
        let code = o.status.code();
        assert!(code == Some(1) || code == Some(2), "{method}: {o:?}");
        assert_eq!(std::fs::read(&out).unwrap(), b"old", "{method}");
        assert_eq!(
            files_in(dir.path()),
            vec!["config.xml", "release.csv"],
            "{method}"
        );
    }
    // A destination folder that does not exist: refused before the input is read.
    let o = bin()
        .arg("-config")
        .arg(&config)
        .args(["-method", "Flash", "-quiet", "-output"])
        .arg(&out)
        .arg("-report")
        .arg(dir.path().join("missing/report.json"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
}

/// Defect 3: `-output`, `-report` or `-db` equal to something the run reads overwrote it; a
/// device was replaced by a regular file; a symbolic link was replaced.
#[cfg(unix)]
#[test]
fn outputs_never_overwrite_what_the_run_reads_nor_devices_nor_links() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("adult.csv");
    std::fs::copy(data("adult/adult.csv"), &input).unwrap();
    let config = adult_config(d, Some(&input), "k='5' method='Flash'", "");
    let hier = data("adult/adult_hierarchy_age.csv");
    std::os::unix::fs::symlink(&input, d.join("link-to-input.csv")).unwrap();
    std::fs::hard_link(&config, d.join("hard-link-to-config.xml")).unwrap();
    let before: Vec<Vec<u8>> = [&input, &config, &hier]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let cases: Vec<(&str, PathBuf, &str)> = vec![
        ("-output", config.clone(), "is the config file"),
        ("-output", hier.clone(), "is the hierarchy file"),
        ("-output", d.join("link-to-input.csv"), "is the input file"),
        (
            "-report",
            d.join("hard-link-to-config.xml"),
            "is the config file",
        ),
        ("-output", d.join("x.csv"), ""),
        ("-report", d.to_path_buf(), "is a folder"),
    ];
    let db_case = ["-output", "out.csv", "-db"];
    for (flag, target, message) in &cases {
        if message.is_empty() {
            // -db equal to the input (with an output, which -db needs).
            let o = bin()
                .current_dir(d)
                .arg("-config")
                .arg(&config)
                .arg("-quiet")
                .args(db_case)
                .arg(&input)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "-db: {stderr}");
            assert!(stderr.contains("is the input file"), "-db: {stderr}");
            continue;
        }
        let o = bin()
            .arg("-config")
            .arg(&config)
            .args(["-quiet", flag])
            .arg(target)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {target:?}: {stderr}");
        assert!(stderr.contains(message), "{flag}: {stderr}");
        assert!(!stderr.contains("will be overwritten"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    let after: Vec<Vec<u8>> = [&input, &config, &hier]
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert!(before == after, "a file the run reads was changed");

    // A character device is written into, never replaced.
    let o = bin()
        .arg("-config")
        .arg(&config)
        .args(["-quiet", "-output", "/dev/null", "-report", "/dev/null"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());

    // `-output -` is standard output.
    let o = bin()
        .arg("-config")
        .arg(&config)
        .args(["-quiet", "-output", "-"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(o.stdout.iter().filter(|&&b| b == b'\n').count(), 30163);
    assert!(o.stdout.starts_with(b"sex;age;race"));

    // A FIFO is streamed into.
    let fifo = d.join("pipe");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let o = release(&config, &fifo);
    assert!(o.status.success(), "{o:?}");
    let streamed = reader.join().unwrap();
    assert_eq!(streamed.iter().filter(|&&b| b == b'\n').count(), 30163);

    // A symbolic link at the output path: its target is replaced, the link stays.
    let real = d.join("real-release.csv");
    std::fs::write(&real, b"old").unwrap();
    let link = d.join("release.csv");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let o = release(&config, &link);
    assert!(o.status.success(), "{o:?}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        std::fs::read(&real).unwrap().len(),
        std::fs::read(&link).unwrap().len()
    );
    assert!(std::fs::read(&real).unwrap().len() > 1000);
}

/// Defect 4: Datafly with `<distinct-l-diversity>` exited 0 and released a file that fails it;
/// `<k-anonymity k="50"/>` was reported as k 10. Every method enforces every model it is given or
/// refuses the config, and the report lists what was enforced.
#[test]
fn toolbox_methods_never_ignore_a_privacy_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The sensitive attribute for the models: occupation, the 8th column, under <sens>.
    let with_sens = |privacy: &str, root: &str| -> PathBuf {
        let path = adult_config(d, None, root, privacy);
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text
            .replace(
                &format!(
                    "<att index='7' name='occupation' hierarchy='{}'/>\n",
                    data("adult/adult_hierarchy_occupation.csv").display()
                ),
                "",
            )
            .replace(
                "</qid>",
                &format!(
                    "</qid>\n<sens><att index='7' name='occupation' hierarchy='{}'/></sens>",
                    data("adult/adult_hierarchy_occupation.csv").display()
                ),
            );
        std::fs::write(&path, text).unwrap();
        path
    };
    for (method, model, named) in [
        (
            "Datafly",
            "<distinct-l-diversity attribute='occupation' l='5'/>",
            "distinct-5-diversity(occupation)",
        ),
        (
            "Incognito_K",
            "<delta-presence dmin='0' dmax='0.5' subset-index='8'/>",
            "",
        ),
        ("Anatomy", "<k-anonymity k='5'/>", "5-anonymity"),
    ] {
        let config = with_sens(model, "k='5' l='2'");
        let o = bin()
            .arg("-config")
            .arg(&config)
            .args(["-quiet", "-method", method, "-output"])
            .arg(d.join("out.csv"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{method}: {stderr}");
        if !named.is_empty() {
            assert!(
                stderr.contains(&format!("{named} is not enforced by {method}")),
                "{stderr}"
            );
        }
        assert!(!d.join("out.csv").exists());
    }
    // k-anonymity from <privacy> is what Datafly enforces, and what the report says.
    let config = with_sens("<k-anonymity k='50'/>", "");
    let out = d.join("out.csv");
    let rep = d.join("report.json");
    let o = bin()
        .arg("-config")
        .arg(&config)
        .args(["-quiet", "-method", "Datafly", "-output"])
        .arg(&out)
        .arg("-report")
        .arg(&rep)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap();
    assert_eq!(r["k"], 50);
    assert_eq!(r["privacy_models"], serde_json::json!(["50-anonymity"]));
    let spec = kcheck::Spec {
        separator: ";",
        header: true,
        qid_columns: &[0, 1, 2, 3, 4, 5, 6, 8],
        top: &["*"; 8],
        k: 50,
        max_suppressed: 50,
        full_domain: true,
    };
    kcheck::check(&out, &spec).unwrap();
}

/// Defect 5: config errors found late (Mondrian with hierarchy files after loading all the data,
/// exit 1), `-db` into a missing folder, output equal to the input through a symlink after a
/// misleading warning. All are exit 2, before a row is read.
#[cfg(unix)]
#[test]
fn config_errors_exit_2_before_reading_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, None, "k='5'", "");
    let run = |args: &[&str]| {
        let o = bin()
            .arg("-config")
            .arg(&config)
            .arg("-quiet")
            .args(args)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let out = d.join("out.csv");
    let out_s = out.to_str().unwrap();
    // (Mondrian now runs on hierarchy files; a format it cannot write them in is refused.)
    let (code, err) = run(&[
        "-method",
        "Mondrian",
        "-outputFormat",
        "genValsDist",
        "-output",
        out_s,
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("Mondrian over hierarchies writes genVals only"),
        "{err}"
    );
    let db = d.join("missing/work.db");
    let (code, err) = run(&[
        "-method",
        "Flash",
        "-output",
        out_s,
        "-db",
        db.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    let link = d.join("input-link.csv");
    std::os::unix::fs::symlink(data("adult/adult.csv"), &link).unwrap();
    let (code, err) = run(&["-output", link.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(!err.contains("will be overwritten"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!out.exists());
}

/// Defect 6: a `<vgh>` nested 15,000 levels deep overflowed the stack (SIGABRT). Nesting beyond
/// the documented limit is a one-line config error, also on a small stack.
#[test]
fn deep_vgh_nesting_is_a_config_error_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in.data"), "1,a\n2,b\n").unwrap();
    for depth in [1_000, 15_000] {
        let mut vgh = String::new();
        for _ in 0..depth {
            vgh.push_str("<node value='[0:10)'>");
        }
        for _ in 0..depth {
            vgh.push_str("</node>");
        }
        let config = dir.path().join("c.xml");
        std::fs::write(
            &config,
            format!(
                "<config k='2' method='Datafly'><input filename='in.data'/>\
                 <output filename='out.data'/><qid><att index='0'><vgh value='[0:10)'>{vgh}\
                 </vgh></att></qid></config>"
            ),
        )
        .unwrap();
        // A thread with a small stack, as the crash happened with 1,000 levels there too.
        let config2 = config.clone();
        let result = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || {
                let args = anonbox::cli::RunArgs {
                    config: Some(config2),
                    ..Default::default()
                };
                anonbox::config::build_job(&args)
                    .err()
                    .map(|e| e.to_string())
            })
            .unwrap()
            .join()
            .expect("no stack overflow");
        let e = result.expect("refused");
        assert!(e.contains("nested more than 256 levels deep"), "{e}");
        let o = bin().arg("-config").arg(&config).output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
    }
}

/// Defect 7: a 10 MB value, or one with a line break, was echoed whole into the error. Errors
/// stay one short line.
#[test]
fn errors_never_echo_huge_values_or_break_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let huge = "9".repeat(10_000_000);
    // In the data (a value missing from a hierarchy file), and in an XML attribute.
    let input = d.join("adult.csv");
    let mut text = std::fs::read_to_string(data("adult/adult.csv")).unwrap();
    text.push_str(&format!(
        "Male;{huge};White;Married-civ-spouse;Bachelors;United-States;Private;Sales;<=50K\n"
    ));
    std::fs::write(&input, &text).unwrap();
    let config = adult_config(d, Some(&input), "k='5' method='Flash'", "");
    let o = release(&config, &d.join("o.csv"));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        &stderr[..stderr.len().min(300)]
    );
    assert!(stderr.len() < 1000, "{} bytes of stderr", stderr.len());
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("... (10000000 characters)'"), "{stderr}");
    let bad = adult_config(d, None, &format!("k='5' method='{huge}\nx'"), "");
    let o = bin().arg("-config").arg(&bad).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr.len() < 1000 && stderr.lines().count() == 1,
        "{}",
        stderr.len()
    );
}

/// Defect 8: an empty input (or a header only) and k above the number of records gave errors
/// for some methods and exit 0 with empty or fully suppressed files for others. Every method
/// now fails the same way: exit 1, one line, nothing written.
#[test]
fn empty_inputs_and_k_above_the_records_fail_alike_for_every_method() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let census = data("census-income-1k/config.xml");
    let empty = d.join("empty.data");
    std::fs::write(&empty, b"").unwrap();
    let methods = [
        "Datafly",
        "Mondrian",
        "Incognito_K",
        "Incognito_L",
        "Incognito_T",
        "Anatomy",
        "Flash",
        "OLA",
        "BFS",
    ];
    let out = d.join("out.data");
    // Runs `method` on `config` with `extra` flags: exit 1, one line saying `needle`, no output.
    let fails = |config: &Path, extra: &[&std::ffi::OsStr], method: &str, needle: &str| {
        let o = bin()
            .arg("-config")
            .arg(config)
            .args(extra)
            .args(["-quiet", "-method", method, "-output"])
            .arg(&out)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{method}: {stderr}");
        assert!(
            stderr.contains(needle) && stderr.lines().count() == 1,
            "{method}: {stderr}"
        );
        assert!(
            !out.exists() && !d.join("out_QIT.data").exists(),
            "{method}"
        );
    };
    for method in methods {
        let extra = ["-input".as_ref(), empty.as_os_str()];
        fails(&census, &extra, method, "the input has no records");
    }
    for method in ["Datafly", "Mondrian", "Incognito_K", "Flash", "BFS"] {
        let needle = "cannot be anonymized at k = 5000: it has 463 records";
        fails(&census, &["-k".as_ref(), "5000".as_ref()], method, needle);
    }
    // A header only, or nothing at all, with a header config: data errors too (exit 1), though
    // the empty one is found while the job is built.
    let header_only = d.join("header.csv");
    std::fs::write(
        &header_only,
        "sex;age;race;marital-status;education;native-country;workclass;occupation;salary-class\n",
    )
    .unwrap();
    for input in [&header_only, &empty] {
        let config = adult_config(d, Some(input), "k='2'", "");
        for method in ["Datafly", "Flash"] {
            fails(&config, &[], method, "the input has no records");
        }
        if input == &empty {
            // A header only is planned (0 records); nothing at all has no header to plan from.
            let o = bin()
                .args(["plan", "-method", "Flash", "-config"])
                .arg(&config)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1), "plan: {o:?}");
        }
    }
}

/// Defect 10: an existing output with mode 0600 was replaced by a 0644 file.
#[cfg(unix)]
#[test]
fn a_replaced_output_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let config = adult_config(dir.path(), None, "k='5' method='Flash'", "");
    let out = dir.path().join("release.csv");
    // 0o666: bits the umask (022 or 077) would take from a new file are kept too.
    for mode in [0o600, 0o666] {
        std::fs::write(&out, b"old").unwrap();
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(mode)).unwrap();
        let o = release(&config, &out);
        assert!(o.status.success(), "{o:?}");
        let meta = std::fs::metadata(&out).unwrap();
        assert!(meta.len() > 1000);
        assert_eq!(meta.permissions().mode() & 0o777, mode);
    }
}

/// Defect 11: ARX accepts hierarchy files that repeat a line for the same value; anonbox refused
/// them. Identical repeated lines are accepted with a warning and counted as ARX counts them in
/// Loss: on ADULT with `39` twice more and `50` once more in the age hierarchy, ARX 3.9.2 (run
/// through ../shared/arx) gives loss 0.3146758832097942 at k=5, 2 % suppression (0.3137130352819242
/// without the repeats), transformation [0,3,0,2,2,1,1,2,0], 506 records suppressed.
#[test]
fn repeated_identical_hierarchy_lines_count_as_in_arx() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let age = std::fs::read_to_string(data("adult/adult_hierarchy_age.csv")).unwrap();
    let line = |v: &str| {
        age.lines()
            .find(|l| l.starts_with(&format!("{v};")))
            .unwrap()
            .to_string()
    };
    let repeated = format!("{age}{}\n{}\n{}\n", line("39"), line("39"), line("50"));
    let config = adult_config(d, None, "k='5' method='Flash' suppression='0.02'", "");
    let text = std::fs::read_to_string(&config).unwrap();
    let age_path = d.join("age.csv");
    std::fs::write(&age_path, &repeated).unwrap();
    let text = text.replace(
        &data("adult/adult_hierarchy_age.csv").display().to_string(),
        &age_path.display().to_string(),
    );
    std::fs::write(&config, text).unwrap();
    let rep = d.join("r.json");
    let o = bin()
        .arg("-config")
        .arg(&config)
        .args(["-output"])
        .arg(d.join("o.csv"))
        .arg("-report")
        .arg(&rep)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    // A warning (not with -quiet, which keeps errors only).
    assert!(String::from_utf8_lossy(&o.stderr).contains("3 lines repeat an earlier line"));
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap();
    assert_eq!(
        r["transformation"],
        serde_json::json!([0, 3, 0, 2, 2, 1, 1, 2, 0])
    );
    assert_eq!(r["suppressed_records"], 506);
    let loss = r["information_loss"].as_f64().unwrap();
    assert!((loss - 0.3146758832097942).abs() < 1e-12, "{loss}");
    // Lines that disagree are still refused.
    std::fs::write(&age_path, format!("{age}39;35-39;30-39;40-59;*\n")).unwrap();
    let o = release(&config, &d.join("o.csv"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("with other generalizations"));
}

/// Fuzzing in the suite (bounded): the XML config parser, the hierarchy-file parser and the
/// delimited reader, on arbitrary bytes and on mutations of valid inputs, never panic, and every
/// error prints as one short line.
mod fuzz {
    use std::path::Path;

    use proptest::prelude::*;

    fn one_line_ok(e: &anonbox::Error) -> Result<(), TestCaseError> {
        let shown = anonbox::error::one_line(&e.to_string());
        prop_assert!(!shown.contains('\n') && !shown.is_empty(), "{shown}");
        Ok(())
    }

    /// A valid input with a few bytes replaced, inserted or removed.
    fn mutated(valid: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec((0..valid.len(), any::<u8>(), 0u8..3), 1..6).prop_map(
            move |edits| {
                let mut v = valid.to_vec();
                for (at, byte, kind) in edits {
                    let at = at.min(v.len().saturating_sub(1));
                    match kind {
                        0 if !v.is_empty() => v[at] = byte,
                        1 => v.insert(at, byte),
                        _ if !v.is_empty() => {
                            v.remove(at);
                        }
                        _ => {}
                    }
                }
                v
            },
        )
    }

    const CONFIG: &[u8] = b"<config k='2' method='Datafly'><input filename='in.data' \
        separator=','/><output filename='o.data'/><qid><att index='0'><vgh value='[0:10)'>\
        <node value='[0:5)'/><node value='[5:10)'/></vgh></att><att index='1'><map>\
        <entry cat='a' int='0'/><entry cat='b' int='1'/></map><vgh value='[0:1]'/></att></qid>\
        <privacy><k-anonymity k='2'/></privacy></config>";
    const HIERARCHY: &[u8] = b"1;0-4;*\n2;0-4;*\n7;5-9;*\n\"8\";5-9;*\n";
    const DATA: &[u8] = b"a,b,\"c,d\"\n1,2,3\r\n\"x\"\"y\",,z\n";

    fn config(bytes: &[u8]) -> Result<(), TestCaseError> {
        let text = String::from_utf8_lossy(bytes).into_owned();
        if let Err(e) = anonbox::config::utd_xml::parse(Path::new("c.xml"), text) {
            one_line_ok(&e)?;
        }
        Ok(())
    }

    fn hierarchy(bytes: &[u8]) -> Result<(), TestCaseError> {
        match anonbox::hierarchy::file::parse(Path::new("h.csv"), bytes, "att") {
            Err(e) => one_line_ok(&e),
            Ok(h) => {
                prop_assert!(h.check_monotonic().is_ok());
                Ok(())
            }
        }
    }

    fn reader(bytes: &[u8], sep: &str, header: bool) -> Result<(), TestCaseError> {
        let format = anonbox::io::Format::new(sep, header).unwrap();
        let mut r = match format.reader(Path::new("d.csv"), bytes) {
            Ok(r) => r,
            Err(e) => return one_line_ok(&e),
        };
        let mut rec = csv::ByteRecord::new();
        for _ in 0..10_000 {
            match r.next_row(&mut rec) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => return one_line_ok(&e),
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn config_parser(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            config(&bytes)?;
        }

        #[test]
        fn mutated_configs(bytes in mutated(CONFIG)) {
            config(&bytes)?;
        }

        #[test]
        fn hierarchy_parser(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            hierarchy(&bytes)?;
        }

        #[test]
        fn mutated_hierarchies(bytes in mutated(HIERARCHY)) {
            hierarchy(&bytes)?;
        }

        #[test]
        fn delimited_reader(
            bytes in proptest::collection::vec(any::<u8>(), 0..300),
            sep in prop::sample::select(vec![",", ";", ", ", "\\t", "::"]),
            header in any::<bool>(),
        ) {
            reader(&bytes, sep, header)?;
        }

        #[test]
        fn mutated_data(bytes in mutated(DATA), header in any::<bool>()) {
            reader(&bytes, ",", header)?;
        }
    }
}

/// Defect 9: Anatomy's QIT and ST were both in input order, so line i of each was the same
/// person and publishing both defeated Anatomy. The ST is now grouped by group id and shuffled
/// within each group (seeded): pairing the files line by line no longer gives the input back.
#[test]
fn anatomy_pair_is_not_linkable_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let census = data("census-income-1k");
    let out = dir.path().join("x.data");
    let o = bin()
        .current_dir(&census)
        .args([
            "-config",
            "config-education.xml",
            "-l",
            "2",
            "-quiet",
            "-output",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let read = |name: &str| -> Vec<Vec<String>> {
        std::fs::read_to_string(dir.path().join(name))
            .unwrap()
            .lines()
            .map(|l| l.split(',').map(String::from).collect())
            .collect()
    };
    let (qit, st) = (read("x_QIT.data"), read("x_ST.data"));
    assert_eq!(qit.len(), st.len());
    let st_ids: Vec<u64> = st.iter().map(|l| l[0].parse().unwrap()).collect();
    assert!(st_ids.windows(2).all(|w| w[0] <= w[1]), "ST grouped by id");
    let same_line_same_group = qit
        .iter()
        .zip(&st)
        .filter(|(q, s)| q.last() == s.first())
        .count();
    assert!(
        same_line_same_group < qit.len() / 2,
        "{same_line_same_group} of {} lines pair up",
        qit.len()
    );
    // Within a group the order is a seeded shuffle: the same seed, the same file.
    let again = dir.path().join("y.data");
    let o = bin()
        .current_dir(&census)
        .args([
            "-config",
            "config-education.xml",
            "-l",
            "2",
            "-quiet",
            "-output",
        ])
        .arg(&again)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(
        std::fs::read(dir.path().join("x_ST.data")).unwrap(),
        std::fs::read(dir.path().join("y_ST.data")).unwrap()
    );
}

/// A release to standard output whose reader goes away (`| head -1`) is a failed run: exit 1
/// with one line, and the report is not written. (It exited 0 with nothing said, as a plan or
/// an audit cut short by `head` does, which hid a release cut short and a missing report.)
#[test]
fn a_release_to_a_closed_standard_output_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, None, "k='5'", "");
    let mut child = bin()
        .current_dir(d)
        .arg("-config")
        .arg(&config)
        .args([
            "-method", "Flash", "-quiet", "-output", "-", "-report", "r.json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("anonbox: standard output (-output -): Broken pipe")
            && err.lines().count() == 1,
        "{err}"
    );
    assert!(!d.join("r.json").exists());
    // A plan cut short by its reader is not an error.
    let mut child = bin()
        .current_dir(d)
        .args(["plan", "-config"])
        .arg(&config)
        .args(["-method", "Flash", "-output", "out.csv"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}

/// SIGKILL (the OOM killer) runs no cleanup: a run killed while writing its kept database left
/// `.w.db.XXXXXX.anonbox.tmp`, the raw data, for good. The next run writing beside it removes
/// it and says so, once it is unchanged for a minute and unlocked (a live run holds a lock on
/// each of its temporary files); a live run's file, or another program's, stays.
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the debug build's pause hooks (ANONBOX_TEST_*_DELAY_MS)"
)]
fn a_killed_runs_temporary_file_is_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, None, "k='5'", "");
    // A Flash run keeping its database in w.db.
    let run = |output: &str| {
        let mut cmd = bin();
        cmd.current_dir(d)
            .arg("-config")
            .arg(&config)
            .args(["-method", "Flash", "-output", output, "-db", "w.db"]);
        cmd
    };
    let (mut child, _stderr) = paused(
        run("out.csv")
            .arg("-quiet")
            .env("ANONBOX_TEST_CREATE_DELAY_MS", "5000"),
        "creating",
    );
    let temp_names = || -> Vec<String> {
        files_in(d)
            .into_iter()
            .filter(|n| n.ends_with(".anonbox.tmp"))
            .collect()
    };
    // A live run's file is locked: a sweep now (made old enough) leaves it.
    let live = temp_names();
    assert_eq!(live.len(), 1, "{:?}", files_in(d));
    assert!(live[0].starts_with(".w.db."), "{live:?}");
    let age = |name: &str| {
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(d.join(name))
            .unwrap()
            .set_modified(old)
            .unwrap();
    };
    age(&live[0]);
    let other = run("other.csv").arg("-quiet").output().unwrap();
    assert!(other.status.success(), "{other:?}");
    assert!(d.join(&live[0]).exists(), "a live run's file was removed");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(d.join(&live[0]).exists());
    // Another program's files of the same look stay.
    std::fs::write(d.join(".w.db.AbC123.tmp"), "not ours").unwrap();
    std::fs::write(d.join(".w.db.AbC123.anonbox.tmp.bak"), "not ours").unwrap();
    // Killed, and unchanged for an hour: the next run removes it, and says so.
    let o = run("out.csv").output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("removed") && err.contains(&live[0]) && err.contains("a run that was killed"),
        "{err}"
    );
    assert_eq!(temp_names(), Vec::<String>::new());
    assert!(d.join(".w.db.AbC123.tmp").exists() && d.join(".w.db.AbC123.anonbox.tmp.bak").exists());
}

/// A lattice the method cannot search was refused after the load, as a data error (exit 1):
/// `-method Flash` on 14 quasi-identifiers of six levels (6^14 transformations) read the whole
/// input first. Where the config gives every height (here `mask` with `length`) it is a config
/// error (exit 2) found before a row is read: the input's too-long value, a data error, is
/// never reached. `mask` without `length` takes its levels from the longest value, so the same
/// lattice is refused only after the load (exit 1); either way before any search and with
/// nothing written, and `plan` says so as the run would.
#[test]
fn a_lattice_too_large_for_the_method_is_refused_before_the_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let q = 14;
    let header: Vec<String> = (0..q).map(|j| format!("a{j}")).collect();
    let row = |v: &str| vec![v; q].join(";") + "\n";
    let good = header.join(";") + "\n" + &row("abcd") + &row("abce");
    std::fs::write(d.join("good.csv"), &good).unwrap();
    std::fs::write(d.join("bad.csv"), good + &row("abcde")).unwrap();
    let config = |name: &str, input: &str, mask: &str| {
        let atts: String = (0..q)
            .map(|j| format!("<att index='{j}' name='a{j}'><mask {mask}/></att>"))
            .collect();
        std::fs::write(
            d.join(name),
            format!(
                "<config k='2'><input filename='{input}' separator=';' header='true'/>\
                 <output filename='out.csv'/><qid>{atts}</qid></config>"
            ),
        )
        .unwrap();
    };
    config("known.xml", "bad.csv", "pad='0' length='4'");
    config("data.xml", "good.csv", "");
    let before = files_in(d);
    let run = |args: &[&str]| bin().current_dir(d).args(args).output().unwrap();
    let want = "the generalization lattice has 78364164096 transformations, more than Flash can \
                search (at most 2147483648): use -method BFS or Optimal";
    for (config, code) in [("known.xml", 2), ("data.xml", 1)] {
        let o = run(&["-config", config, "-method", "Flash", "-report", "r.json"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(code), "{config}: {err}");
        assert!(err.contains(want), "{config}: {err}");
        assert_eq!(err.lines().count(), 1, "{config}: {err}");
        assert_eq!(files_in(d), before, "{config}");
    }
    let o = run(&["plan", "-config", "known.xml", "-method", "Flash"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains(want), "{o:?}");
    let o = run(&["plan", "-config", "data.xml", "-method", "Flash"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(
        out.contains(&format!(
            "the run would fail (the first rows' levels): {want}"
        )),
        "{out}"
    );
}

/// SIGKILL during the publish left the previous release set aside as `.NAME.PID.N.old` for
/// good, and the target missing when the kill came between the two renames: the previous
/// release was only in the hidden file. The next run writing NAME puts it back (the target is
/// missing) or removes it (the target is there) once that process is gone, and says so
/// unless `-quiet`; a live process's file stays.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_publishs_set_aside_file_is_restored_or_removed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let config = adult_config(d, None, "k='5' method='Flash'", "");
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let mut live = Command::new("sleep").arg("60").spawn().unwrap();
    let aside = |name: &str, pid: u32| format!(".{name}.{pid}.0.old");
    std::fs::write(d.join(aside("out.csv", dead)), "previous release").unwrap();
    std::fs::write(d.join("r.json"), "{}").unwrap();
    std::fs::write(d.join(aside("r.json", dead)), "previous report").unwrap();
    std::fs::write(d.join(aside("r.json", live.id())), "a live run's").unwrap();
    // A run that fails before writing sweeps nothing.
    let o = bin()
        .current_dir(d)
        .arg("-config")
        .arg(&config)
        .args(["-k", "40000", "-output", "out.csv", "-report", "r.json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(!d.join("out.csv").exists());
    // The next run writing them: out.csv comes back, then is replaced by the release; the
    // report's set-aside file goes; the live run's stays.
    let o = bin()
        .current_dir(d)
        .arg("-config")
        .arg(&config)
        .args(["-output", "out.csv", "-report", "r.json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let said = |what: &str, name: &str| {
        err.lines()
            .any(|l| l.starts_with(&format!("anonbox: {what} ")) && l.contains(name))
    };
    assert!(said("restored", &aside("out.csv", dead)), "{err}");
    assert!(said("removed", &aside("r.json", dead)), "{err}");
    assert!(!said("removed", &aside("r.json", live.id())), "{err}");
    assert!(std::fs::read_to_string(d.join("out.csv"))
        .unwrap()
        .starts_with("sex;age"));
    let mut left: Vec<String> = files_in(d)
        .into_iter()
        .filter(|n| n.ends_with(".old"))
        .collect();
    left.sort();
    assert_eq!(left, [aside("r.json", live.id())]);
    // Quietly with -quiet.
    std::fs::write(d.join(aside("out.csv", dead)), "previous release").unwrap();
    let o = release(&config, &d.join("out.csv"));
    assert!(o.status.success() && o.stderr.is_empty(), "{o:?}");
    assert!(!d.join(aside("out.csv", dead)).exists());
    live.kill().unwrap();
    live.wait().unwrap();
}

/// A `<k-anonymity k="3"/>` with neither `-k` nor a root `k` is k = 3 for every method that
/// enforces k-anonymity: Datafly enforced the default k (10) and Incognito_K's default
/// suppression limit was 10 records (found by `protection`). A `-k` above the model still
/// raises it; the independent checker re-checks each release.
#[test]
fn the_k_of_privacy_is_not_raised_by_the_default_k() {
    let dir = tempfile::tempdir().unwrap();
    let config = adult_config(dir.path(), None, "", "<k-anonymity k='3'/>");
    let top = ["*"; 9];
    for (method, flag_k, k) in [
        ("Datafly", None, 3),
        ("Incognito_K", None, 3),
        ("Flash", None, 3),
        ("Datafly", Some("7"), 7),
    ] {
        let output = dir.path().join(format!("{method}.csv"));
        let report = dir.path().join(format!("{method}.json"));
        let mut cmd = bin();
        cmd.arg("-config")
            .arg(&config)
            .args(["-method", method, "-quiet"]);
        cmd.arg("-output").arg(&output).arg("-report").arg(&report);
        if let Some(f) = flag_k {
            cmd.args(["-k", f]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{method}: {out:?}");
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        assert_eq!(r["k"], k, "{method} -k {flag_k:?}");
        assert_eq!(r["privacy_models"][0], format!("{k}-anonymity"), "{method}");
        let limit = match method {
            "Flash" => 0,
            _ => k,
        };
        assert_eq!(r["suppression_limit"], limit, "{method}");
        let found = kcheck::check(
            &output,
            &kcheck::Spec {
                separator: ";",
                header: true,
                qid_columns: &[0, 1, 2, 3, 4, 5, 6, 7, 8],
                top: &top,
                k,
                max_suppressed: limit,
                full_domain: true,
            },
        )
        .unwrap();
        assert!(found.smallest_class >= k, "{method}: {found:?}");
    }
}
