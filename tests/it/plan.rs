//! `anonbox plan`: the resolved plan of a run, from the config and the input's first rows only,
//! with nothing written. Figures are re-derived here from the files themselves (hierarchy
//! columns, the input's first row).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common::{data, ADULT_ATTRIBUTES};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Runs `anonbox plan ARGS` in `dir` (with its own TMPDIR): (status, stdout, stderr).
fn plan(dir: &Path, tmp: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(dir)
        .env("TMPDIR", tmp)
        .arg("plan")
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8(o.stdout).unwrap(),
        String::from_utf8(o.stderr).unwrap(),
    )
}

/// Every file and folder under `dir`, with sizes and modification times.
fn listing(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = std::fs::symlink_metadata(e.path()).unwrap();
            if m.is_dir() {
                stack.push(e.path());
            }
            out.push((e.path(), m.len(), m.modified().unwrap()));
        }
    }
    out.sort();
    out
}

/// The lattice size of a config's quasi-identifiers with ARX hierarchy files: the product of
/// the files' column counts (the levels), read here from the files.
fn levels_of(files: &[&str]) -> u64 {
    files
        .iter()
        .map(|f| {
            let text =
                std::fs::read_to_string(data(&format!("adult/adult_hierarchy_{f}.csv"))).unwrap();
            text.lines().next().unwrap().split(';').count() as u64
        })
        .product()
}

fn with_commas(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn plan_on_the_bundled_configs() {
    let tmp = tempfile::tempdir().unwrap();
    let all = ADULT_ATTRIBUTES;
    let no_occupation: Vec<&str> = all.iter().copied().filter(|&a| a != "occupation").collect();
    // (config, extra flags, what the plan must say)
    let cases: Vec<(&str, Vec<&str>, Vec<String>)> = vec![
        (
            "adult.xml",
            vec![],
            vec![
                format!("{} transformations", with_commas(levels_of(&all))),
                "Datafly (from the config's method attribute)".into(),
                "9 fields, rows containing '?' skipped)".into(),
                "at most 5 records".into(),
                // The report gives the loss of Datafly's result too.
                "metric  Loss (measured on the result, not minimized)".into(),
            ],
        ),
        (
            "adult.xml",
            vec!["-method", "Optimal", "-suppression", "0.02"],
            vec![
                "Optimal (from -method)".into(),
                "runs Flash: the lattice has at most 131,072 (2^17) transformations".into(),
                "at most floor(0.02 x records)".into(),
                "metric  Loss".into(),
            ],
        ),
        (
            "adult-occupation.xml",
            vec![],
            vec![
                format!("{} transformations", with_commas(levels_of(&no_occupation))),
                "-method Optimal would run Flash".into(),
                "5-anonymity, distinct-2-diversity(occupation)".into(),
                "none: no record may be suppressed".into(),
            ],
        ),
        (
            "census-income-1k.xml",
            vec![],
            vec![
                // <qid> order: att12, [0:1] (2 levels); att0, leaves at depth 2 (4 levels).
                "8 transformations (2 x 4 levels)".into(),
                "identifier".into(),
                "att41".into(),
            ],
        ),
    ];
    for (config, flags, wants) in &cases {
        let mut args = vec!["-config", config];
        args.extend(flags);
        let (code, out, err) = plan(&repo("configs"), tmp.path(), &args);
        assert_eq!(code, Some(0), "{config} {flags:?}: {err}");
        for want in wants {
            assert!(
                out.contains(want.as_str()),
                "{config}: no '{want}' in\n{out}"
            );
        }
    }
    // Every bundled config (also ones added later) plans successfully.
    for e in std::fs::read_dir(repo("configs")).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "xml") {
            let (code, out, err) = plan(
                &repo("configs"),
                tmp.path(),
                &["-config", path.to_str().unwrap()],
            );
            assert_eq!(code, Some(0), "{}: {err}", path.display());
            assert!(out.contains("privacy  "), "{out}");
        }
    }
    // The first record's age, generalized as the hierarchy file says.
    let input = std::fs::read_to_string(data("adult/adult.csv")).unwrap();
    let age = input.lines().nth(1).unwrap().split(';').nth(1).unwrap();
    let hierarchy = std::fs::read_to_string(data("adult/adult_hierarchy_age.csv")).unwrap();
    let path = hierarchy
        .lines()
        .find(|l| l.split(';').next() == Some(age))
        .unwrap()
        .replace(';', " -> ");
    let (_, out, _) = plan(&repo("configs"), tmp.path(), &["-config", "adult.xml"]);
    let line = out.lines().find(|l| l.contains(" age ")).unwrap();
    assert!(line.contains("height 4"), "{line}");
    assert!(line.ends_with(&path), "{line} / {path}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
}

/// A small job in a fresh folder: a config naming `in.csv` (hierarchy files for two
/// quasi-identifiers).
fn small_job(dir: &Path, method: &str, rows: &str) {
    std::fs::write(
        dir.join("h-age.csv"),
        "30;30-39;*\n31;30-39;*\n40;40-49;*\n41;40-49;*\n",
    )
    .unwrap();
    std::fs::write(dir.join("h-sex.csv"), "F;*\nM;*\n").unwrap();
    std::fs::write(
        dir.join("c.xml"),
        format!(
            "<config method='{method}' k='2'>\
               <input filename='in.csv' separator=';' header='true'/>\
               <output filename='out.csv' format='genVals'/>\
               <qid><att index='0' name='age' hierarchy='h-age.csv'/>\
                    <att index='1' name='sex' hierarchy='h-sex.csv'/></qid>\
             </config>"
        ),
    )
    .unwrap();
    std::fs::write(dir.join("in.csv"), format!("age;sex;x\n{rows}")).unwrap();
}

const ROWS: &str = "30;F;a\n31;F;b\n40;M;c\n41;M;d\n";

#[test]
fn plan_writes_nothing() {
    for method in ["Flash", "Datafly", "BFS", "Mondrian"] {
        let dir = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let d = dir.path();
        small_job(d, method, ROWS);
        // An existing output stays as it is.
        std::fs::write(d.join("out.csv"), "previous").unwrap();
        let before = listing(d);
        let (code, out, err) = plan(
            d,
            tmp.path(),
            &[
                "-config", "c.xml", "-report", "r.json", "-db", "work.db", "-output", "out.csv",
            ],
        );
        assert_eq!(code, Some(0), "{method}: {err}");
        assert!(
            out.contains("out.csv (genVals), exists: would be replaced"),
            "{out}"
        );
        assert!(out.contains("r.json, new"), "{out}");
        assert!(out.contains("work.db: new"), "{out}");
        if method == "Mondrian" {
            // Its hierarchy files make it Mondrian over hierarchies.
            assert!(
                out.contains("partitioning over the hierarchies (strict)"),
                "{out}"
            );
        }
        assert_eq!(listing(d), before, "{method}: plan changed the folder");
        // Without -db, only the toolbox's methods (here Datafly) work on a temporary store.
        let (code, out, err) = plan(d, tmp.path(), &["-config", "c.xml"]);
        assert_eq!(code, Some(0), "{method}: {err}");
        let database = if method == "Datafly" {
            "temporary (unlinked at once"
        } else {
            "none (the method works in memory)"
        };
        assert!(out.contains(database), "{method}: {out}");
        assert_eq!(
            std::fs::read_to_string(d.join("out.csv")).unwrap(),
            "previous"
        );
        assert_eq!(
            listing(tmp.path()),
            vec![],
            "{method}: plan left temporary files"
        );
    }
}

#[test]
fn plan_reads_only_the_beginning_of_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 25 good rows, then rows a run rejects (wrong width, a value outside the hierarchy).
    let mut rows: String = ROWS.repeat(7);
    rows.push_str("30;F\n99;X;y\n");
    small_job(d, "Flash", &rows);
    let (code, out, err) = plan(d, tmp.path(), &["-config", "c.xml"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("first 20 rows were read"), "{out}");
    assert!(out.contains("about "), "{out}");
    // The run reads on and fails on the first bad row.
    let o = Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(d)
        .env("TMPDIR", tmp.path())
        .args(["-config", "c.xml", "-quiet"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("in.csv:30:"));
    assert!(!d.join("out.csv").exists());

    // A 1 TiB input (sparse: the good rows, then zero bytes to the end) is planned at once.
    std::fs::write(d.join("in.csv"), format!("age;sex;x\n{}", ROWS.repeat(7))).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(d.join("in.csv"))
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    let started = std::time::Instant::now();
    let (code, out, err) = plan(d, tmp.path(), &["-config", "c.xml"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    assert!(out.contains("1.00 TiB"), "{out}");
}

#[test]
fn plan_errors_exit_as_a_run_does() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let d = dir.path();
    small_job(d, "Flash", ROWS);
    // Flags and config: 2.
    let (code, _, err) = plan(d, tmp.path(), &["-config", "missing.xml"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = plan(d, tmp.path(), &["-config", "c.xml", "-k", "0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("k must be at least 1"), "{err}");
    let (code, _, err) = plan(d, tmp.path(), &["-config", "c.xml", "-nosuchflag"]);
    assert_eq!(code, Some(2), "{err}");
    // A -db the run would refuse (not an anonbox database).
    std::fs::write(d.join("notes.db"), "my notes\n").unwrap();
    let (code, _, err) = plan(d, tmp.path(), &["-config", "c.xml", "-db", "notes.db"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("-db:") && err.contains("not an SQLite database"),
        "{err}"
    );
    // A bad value among the first rows: the run's data error, 1.
    small_job(d, "Flash", "30;F;a\n77;F;b\n");
    let (code, out, err) = plan(d, tmp.path(), &["-config", "c.xml"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("in.csv:3:") && err.contains("'77'"), "{err}");
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn plan_is_in_the_help() {
    let cases: [(&[&str], &str); 4] = [
        (&["help"], "anonbox plan [FLAGS]"),
        (&["--help"], "anonbox plan [FLAGS]"),
        (&["help", "plan"], "Usage: anonbox plan [FLAGS]"),
        (&["plan", "--help"], "Usage: anonbox plan [FLAGS]"),
    ];
    for (args, want) in cases {
        let o = Command::cargo_bin("anonbox")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(want), "{args:?}: {out}");
    }
}
