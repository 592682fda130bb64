//! `anonbox init`: on every bundled data file, the config it writes runs with Flash at k = 5
//! and 5 % suppression, and the output passes the independent checker (`kcheck`); roles on a
//! made-up file; errors and exit codes.

use std::path::Path;

use crate::common::{self, anonbox, files_in};
use crate::kcheck;

/// The column indexes of the elements under `<tag>` in a config written by init (read with
/// plain string matching, not anonbox's parser).
fn indexes(config: &str, tag: &str) -> Vec<usize> {
    let Some(start) = config.find(&format!("\n  <{tag}>\n")) else {
        return Vec::new();
    };
    let end = config[start..].find(&format!("\n  </{tag}>")).unwrap() + start;
    config[start..end]
        .split("<att index=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].parse().unwrap())
        .collect()
}

/// Runs `anonbox init ARGS` in `dir`, asserts it succeeded and returns what it printed.
fn init_ok(dir: &Path, args: &[&str]) -> String {
    let args: Vec<&str> = std::iter::once("init")
        .chain(args.iter().copied())
        .collect();
    let o = anonbox(dir, &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Each hierarchy init printed (`e.g. 39 -> [35:40) -> ... -> *`, the row of the column's most
/// frequent value) is a row of the file it names: the summary is made from what was written
/// (it once said "intervals of 1000, 2000, 4000" over a file going `13;[0:4000);*`).
fn examples_are_rows_of_the_files(printed: &str) {
    let mut seen = 0;
    for line in printed.lines() {
        let (Some(start), Some(file)) = (line.find(", e.g. "), line.rfind(" -> ")) else {
            continue;
        };
        let rest = &line[start + ", e.g. ".len()..];
        let Some(end) = rest.find(" (") else { continue };
        let row = rest[..end].replace(" -> ", ";");
        let file = &line[file + 4..];
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(
            text.lines().any(|l| l == row),
            "{row} not in {file}:\n{line}"
        );
        seen += 1;
    }
    assert!(seen > 0, "{printed}");
}

/// init, then the run it proposes (Flash, or Optimal with a time limit on a large lattice) at
/// k = 5 with 5 % suppression, then the independent check of the output. Returns what init
/// printed and the run's report.
fn init_then_release(data: &Path, separator: &str, header: bool) -> (String, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("job");
    let mut args = vec![
        data.to_str().unwrap(),
        "--separator",
        separator,
        "--dir",
        out.to_str().unwrap(),
    ];
    if header {
        args.push("--header");
    }
    let printed = init_ok(dir.path(), &args);
    assert!(
        printed.contains("-method Flash -k 5")
            || printed.contains("-method Optimal -timeLimit 60 -k 5"),
        "{printed}"
    );
    examples_are_rows_of_the_files(&printed);
    let config = std::fs::read_to_string(out.join("config.xml")).unwrap();
    let qids = indexes(&config, "qid");
    let ids = indexes(&config, "id");
    assert!(!qids.is_empty());
    // One comment per column element, giving the reason and the profile.
    let lines: Vec<&str> = config.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if l.trim_start().starts_with("<att ") {
            assert!(lines[i - 1].trim_start().starts_with("<!-- "), "{l}");
        }
    }
    // No hierarchy lists the header's name as a value: the header is no record.
    if header {
        let names: Vec<String> = std::fs::read_to_string(data)
            .unwrap()
            .lines()
            .next()
            .unwrap()
            .split(separator)
            .map(str::to_string)
            .collect();
        for (i, name) in names.iter().enumerate() {
            let file = out.join(format!("hierarchy_{name}.csv"));
            if let Ok(h) = std::fs::read_to_string(&file) {
                assert!(
                    !h.lines()
                        .any(|l| l.split(';').next() == Some(name.as_str())),
                    "column {i}: {name} in {}",
                    file.display()
                );
            }
        }
    }
    let config_path = out.join("config.xml");
    let report = dir.path().join("report.json");
    let o = anonbox(
        dir.path(),
        &[
            "-config",
            config_path.to_str().unwrap(),
            // Beside the config's 60 s (census 1K proposes all 40 columns: BFS then runs to
            // its limit); a flag beside the config may lower it.
            "-timeLimit",
            "2",
            "-report",
            report.to_str().unwrap(),
            "-quiet",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let records = report["records"].as_u64().unwrap() as usize;
    let output = report["output"].as_str().unwrap();
    // Output columns: the input's without the identifiers.
    let qid_columns: Vec<usize> = qids
        .iter()
        .map(|&q| q - ids.iter().filter(|&&i| i < q).count())
        .collect();
    let top = vec!["*"; qids.len()];
    let found = kcheck::check(
        Path::new(output),
        &kcheck::Spec {
            separator,
            header,
            qid_columns: &qid_columns,
            top: &top,
            k: 5,
            max_suppressed: records * 5 / 100,
            full_domain: true,
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    assert_eq!(found.rows, records);
    assert_eq!(
        found.suppressed as u64,
        report["suppressed_records"].as_u64().unwrap()
    );
    (printed, report)
}

#[test]
fn adult_init_runs_and_passes_the_checker() {
    init_then_release(&common::data("adult/adult.csv"), ";", true);
}

#[test]
fn example_init_runs_and_passes_the_checker() {
    init_then_release(&common::data("example/example.csv"), ";", true);
}

#[test]
fn census_1k_init_runs_and_passes_the_checker() {
    init_then_release(
        &common::data("census-income-1k/Input/census-income_1K.data"),
        ",",
        false,
    );
}

#[test]
fn roles_follow_the_profile() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("id,age,zip,born,notes,country,constant\n");
    for i in 0..200 {
        text.push_str(&format!(
            "P{i:05},{},{:05},{}-0{}-{},\"note number {i} about the visit\",{},x\n",
            20 + i % 50,
            i % 40 * 997,
            // Five dates a year, two or three a month: every level groups.
            1950 + i % 40,
            1 + i / 80,
            10 + i / 40,
            ["FR", "NO", "IT"][i % 3]
        ));
    }
    std::fs::write(dir.path().join("p.csv"), text).unwrap();
    let o = anonbox(dir.path(), &["init", "p.csv", "--header", "--dir", "cfg"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let config = std::fs::read_to_string(dir.path().join("cfg/config.xml")).unwrap();
    assert_eq!(indexes(&config, "id"), [0], "{config}");
    assert_eq!(indexes(&config, "qid"), [1, 2, 3, 5], "{config}");
    for expected in [
        "id: identifier: an identifier, by its name (id) (code",
        "age: quasi-identifier: demographic, by its name (age): intervals of 5, 10, 20, e.g. ",
        "(integer 20..69",
        "zip: quasi-identifier: geography, by its name (zip): masked from the right, e.g. ",
        "(code (up to 5 characters)",
        "HIPAA Safe Harbor (B) ZIP code: release at most its first 3 digits",
        "born: quasi-identifier: a date, by its name (born): month, year, decade, e.g. ",
        "(date %Y-%m-%d",
        "HIPAA Safe Harbor (C) dates more precise than a year",
        "notes (column 4): insensitive: free text",
        "constant (column 6): insensitive: one value",
        "<input filename=\"../p.csv\" separator=\",\" header=\"true\" unknown=\"keep\"/>",
    ] {
        assert!(config.contains(expected), "{expected}\n{config}");
    }
    // No level hiding every character of a ZIP code (it says no more than *).
    let zip = std::fs::read_to_string(dir.path().join("cfg/hierarchy_zip.csv")).unwrap();
    assert!(zip.lines().any(|l| l == "00997;009**;0****;*"), "{zip}");
    assert!(!zip.contains("*****"), "{zip}");
    let born = std::fs::read_to_string(dir.path().join("cfg/hierarchy_born.csv")).unwrap();
    assert!(
        born.contains("1950-01-10;1950-01;1950;1950-1959;*"),
        "{born}"
    );

    // A second init does not replace the (maybe edited) config without --force.
    let o = anonbox(dir.path(), &["init", "p.csv", "--header", "--dir", "cfg"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    let o = anonbox(
        dir.path(),
        &["init", "p.csv", "--header", "--dir", "cfg", "--force"],
    );
    assert!(o.status.success());
}

#[test]
fn errors_and_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let o = anonbox(dir.path(), &["init", "missing.csv"]);
    assert_eq!(o.status.code(), Some(2));
    let o = anonbox(dir.path(), &["init", "x.csv", "--bogus"]);
    assert_eq!(o.status.code(), Some(2));
    std::fs::write(dir.path().join("bad.csv"), b"a,b\n1,x\n2,\xfe\n").unwrap();
    // Said to be UTF-8, it is not (without --encoding init reads it as windows-1252: see
    // tests/it/encoding.rs).
    let o = anonbox(
        dir.path(),
        &[
            "init",
            "bad.csv",
            "--header",
            "--encoding",
            "utf-8",
            "--dir",
            "out",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("anonbox: bad.csv:3: b: value '"), "{err}");
    assert!(
        err.contains("is not valid UTF-8 (if the file is Latin-1"),
        "{err}"
    );
    assert!(!dir.path().join("out/config.xml").exists());
}

/// init replaces no file it finds in `--dir` without `--force` (a hierarchy built or edited by
/// hand), never writes through a link (its target lies outside the folder), and never names
/// the data file; and the config it writes runs when a header name holds the separator or a
/// quote (the config reader splits the header as the loader does).
#[test]
fn existing_files_links_and_quoted_names() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut text = String::from("\"age, years\",\"sex \"\"at birth\"\"\"\n");
    for i in 0..200 {
        text.push_str(&format!("{},{}\n", 20 + i % 50, ["F", "M"][i % 2]));
    }
    std::fs::write(p.join("q.csv"), &text).unwrap();
    std::fs::create_dir(p.join("cfg")).unwrap();
    std::fs::write(p.join("cfg/hierarchy_sex.csv"), "HAND EDITED\n").unwrap();
    let o = anonbox(p, &["init", "q.csv", "--header", "--dir", "cfg"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("already holds hierarchy_sex.csv")
            && err.contains("--force")
            && !err.contains("  "),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(p.join("cfg/hierarchy_sex.csv")).unwrap(),
        "HAND EDITED\n"
    );
    assert!(!p.join("cfg/config.xml").exists());

    // With --force it writes, and the config runs.
    let o = anonbox(p, &["init", "q.csv", "--header", "--dir", "cfg", "--force"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = anonbox(
        p,
        &[
            "-config",
            "cfg/config.xml",
            "-method",
            "Flash",
            "-k",
            "5",
            "-quiet",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // A link is refused even with --force, and its target is left alone.
    #[cfg(unix)]
    {
        std::fs::write(p.join("precious.csv"), "keep me\n").unwrap();
        std::fs::create_dir(p.join("linked")).unwrap();
        std::os::unix::fs::symlink("../precious.csv", p.join("linked/hierarchy_x.csv")).unwrap();
        let o = anonbox(
            p,
            &["init", "q.csv", "--header", "--dir", "linked", "--force"],
        );
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("hierarchy_x.csv is a symbolic link"), "{err}");
        assert_eq!(
            std::fs::read_to_string(p.join("precious.csv")).unwrap(),
            "keep me\n"
        );
        assert!(!p.join("linked/config.xml").exists());
    }

    // The data file itself, named like a file init writes.
    std::fs::create_dir(p.join("own")).unwrap();
    std::fs::write(p.join("own/hierarchy_age.csv"), &text).unwrap();
    let o = anonbox(
        p,
        &[
            "init",
            "own/hierarchy_age.csv",
            "--header",
            "--dir",
            "own",
            "--force",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is the data file"));
    assert_eq!(
        std::fs::read_to_string(p.join("own/hierarchy_age.csv")).unwrap(),
        text
    );
}

/// Runs the config init wrote in `dir` (Flash, k = 5) and asserts it succeeds.
fn config_runs(dir: &Path, config: &Path) {
    let o = anonbox(
        dir,
        &[
            "-config",
            config.to_str().unwrap(),
            "-method",
            "Flash",
            "-k",
            "5",
            "-quiet",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A tab or a line break in a column name or in the data file's path was written raw into an
/// XML attribute, read back as a space, and the config failed ("name 'a b' does not match
/// column 0"). They are written as character references; comments stay one line.
#[test]
fn control_characters_in_names_and_paths_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir(p.join("in\tput")).unwrap();
    let mut text = String::from("a\tb;\"c\nd\";\"e\r-->f\";g\u{1}h\n");
    // 80 records: a release bears 4 quasi-identifiers.
    for _ in 0..40 {
        text.push_str("x;p;1;u\ny;q;2;v\n");
    }
    std::fs::write(p.join("in\tput/t\tab.csv"), text).unwrap();
    let printed = init_ok(
        p,
        &[
            "in\tput/t\tab.csv",
            "--separator",
            ";",
            "--header",
            "--dir",
            "out",
        ],
    );
    assert!(printed.contains("  0 a\\tb: "), "{printed}");
    let config = std::fs::read_to_string(p.join("out/config.xml")).unwrap();
    assert!(config.contains("name=\"a&#9;b\""), "{config}");
    assert!(config.contains("name=\"c&#10;d\""), "{config}");
    assert!(config.contains("name=\"e&#13;--&gt;f\""), "{config}");
    // A character XML cannot hold at all: the index alone names the column.
    assert!(config.contains("<att index=\"3\" hierarchy="), "{config}");
    assert!(!config.contains('\u{1}'), "{config}");
    assert!(
        config.contains("filename=\"../in&#9;put/t&#9;ab.csv\""),
        "{config}"
    );
    // Every comment on one line, closed on that line.
    for line in config.lines().filter(|l| l.contains("<!--")) {
        assert!(line.trim_end().ends_with("-->"), "{line}");
        assert_eq!(line.matches("-->").count(), 1, "{line}");
    }
    config_runs(p, &p.join("out/config.xml"));
}

/// `--dir` a symbolic link to a folder elsewhere: the data path was made relative to the link's
/// path as written (`../tab.csv`), not to the folder it leads to, and the config did not run.
#[cfg(unix)]
#[test]
fn dir_through_a_link_names_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut text = String::from("a;c\n");
    for _ in 0..20 {
        text.push_str("x;p\ny;q\n");
    }
    std::fs::write(p.join("tab.csv"), text).unwrap();
    std::fs::create_dir_all(p.join("elsewhere/deep")).unwrap();
    std::os::unix::fs::symlink("elsewhere/deep", p.join("rel")).unwrap();
    let o = anonbox(
        p,
        &[
            "init",
            "tab.csv",
            "--separator",
            ";",
            "--header",
            "--dir",
            "rel",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let config = std::fs::read_to_string(p.join("rel/config.xml")).unwrap();
    assert!(config.contains("filename=\"../../tab.csv\""), "{config}");
    config_runs(p, &p.join("rel/config.xml"));
}

/// Column names of hundreds of characters made hierarchy file names longer than the file
/// system allows: init failed ("File name too long") with a 384-character message and left
/// the folder it had created. Names are cut (unique still), and printed cut.
#[test]
fn long_column_names_make_short_unique_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let long = "n".repeat(300);
    let mut text = format!("{long}a;{long}b;{long}a\n");
    for i in 0..40 {
        text.push_str(&format!("{};{};{}\n", ["x", "y"][i % 2], i % 3, i % 4));
    }
    std::fs::write(p.join("long.csv"), text).unwrap();
    let printed = init_ok(
        p,
        &["long.csv", "--separator", ";", "--header", "--dir", "out"],
    );
    assert!(printed.lines().all(|l| l.len() < 400), "{printed}");
    assert!(printed.contains("... (301 characters)"), "{printed}");
    let files = files_in(&p.join("out"));
    assert_eq!(files.len(), 4, "{files:?}");
    assert!(files.iter().all(|f| f.len() <= 120), "{files:?}");
    config_runs(p, &p.join("out/config.xml"));
}

/// A failed or interrupted init left the `--dir` it had created behind (empty). It is removed
/// on a signal and on an error; a folder that existed before is kept; a folder that cannot be
/// created says what failed.
#[cfg(unix)]
#[test]
#[cfg_attr(
    not(debug_assertions),
    ignore = "needs the debug build's pause hooks (ANONBOX_TEST_*_DELAY_MS)"
)]
fn a_failed_or_interrupted_init_leaves_no_folder() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let data = common::data("adult/adult.csv");
    let interrupted = |out: &str| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .current_dir(p)
            .env("ANONBOX_TEST_CREATE_DELAY_MS", "600")
            .args(["init", data.to_str().unwrap(), "--separator", ";"])
            .args(["--header", "--dir", out])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert_eq!(line.trim_end(), "anonbox: test: creating");
        let _ = std::process::Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
        assert_eq!(child.wait().unwrap().code(), Some(130), "{rest}");
    };
    interrupted("new");
    assert!(
        !p.join("new").exists(),
        "the folder init created is removed"
    );
    std::fs::create_dir(p.join("old")).unwrap();
    interrupted("old");
    assert!(p.join("old").is_dir(), "a folder that existed is kept");
    assert_eq!(files_in(&p.join("old")), Vec::<String>::new());

    // (An error after the folder is created: the unit tests of `io::writer`.)
    #[cfg(target_os = "linux")]
    {
        let o = anonbox(
            p,
            &["init", data.to_str().unwrap(), "--dir", "/proc/newdir"],
        );
        // A folder that takes no file: a flag error found before the data is read.
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("anonbox: init: --dir: cannot write into folder /proc: "),
            "{err}"
        );
        assert!(!Path::new("/proc/newdir").exists());
    }
}

/// Hierarchy files list every distinct value raw: new ones are owner-only (0600), as a kept
/// database is; a replaced one keeps its permission bits.
#[cfg(unix)]
#[test]
fn new_hierarchy_files_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mode = |f: &str| std::fs::metadata(p.join(f)).unwrap().permissions().mode() & 0o777;
    let data = common::data("adult/adult.csv");
    let data = data.to_str().unwrap();
    let o = anonbox(
        p,
        &["init", data, "--separator", ";", "--header", "--dir", "out"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(mode("out/hierarchy_age.csv"), 0o600);
    let build = || {
        anonbox(
            p,
            &[
                "hierarchy",
                "categories",
                "--input",
                data,
                "--separator",
                ";",
                "--header",
                "--column",
                "sex",
                "--output",
                "h.csv",
                "--force",
            ],
        )
    };
    assert!(build().status.success());
    assert_eq!(mode("h.csv"), 0o600);
    std::fs::set_permissions(p.join("h.csv"), std::fs::Permissions::from_mode(0o640)).unwrap();
    assert!(build().status.success());
    assert_eq!(mode("h.csv"), 0o640, "a replaced file keeps its bits");
}

/// init read two-digit years (`05/01/09`) with `%d/%m/%Y` as the year 9; they are `%y` now
/// (2009), and four-digit years stay `%Y`.
#[test]
fn two_digit_years_are_read_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut text = String::from("day;long\n");
    for i in 0..40 {
        text.push_str(&format!(
            "{:02}/0{}/09;{:02}/0{}/2009\n",
            i % 28 + 1,
            i % 9 + 1,
            i % 28 + 1,
            i % 9 + 1
        ));
    }
    std::fs::write(p.join("d.csv"), text).unwrap();
    let printed = init_ok(
        p,
        &["d.csv", "--separator", ";", "--header", "--dir", "out"],
    );
    assert!(
        printed.contains("day: ") && printed.contains("date %d/%m/%y"),
        "{printed}"
    );
    assert!(printed.contains("date %d/%m/%Y"), "{printed}");
    // Every date in 2009: the year and the decade would group them all, so weeks, months
    // and quarters stand in for them.
    assert!(
        printed
            .contains("day: quasi-identifier: a date, by its values: week, month, quarter, e.g. ")
            && printed.contains("(date %d/%m/%y"),
        "{printed}"
    );
    let h = std::fs::read_to_string(p.join("out/hierarchy_day.csv")).unwrap();
    assert!(h.lines().all(|l| l.contains(";2009-Q")), "{h}");
    config_runs(p, &p.join("out/config.xml"));
}

/// A column of ages with `NA` and empty values was profiled as codes and masked from the
/// right (`NA` -> `N*`, ages of 2* with it); its markers are missing values now: intervals with
/// `NA` kept apart, and a release that passes the checker.
#[test]
fn markers_in_numbers_are_missing_values() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut text = String::from("age,admitted,sex\n");
    for i in 0..300 {
        let age = match i % 13 {
            0 => "NA".to_string(),
            1 => String::new(),
            _ => (18 + i % 60).to_string(),
        };
        let day = if i % 11 == 0 {
            "NULL".to_string()
        } else {
            format!("2024-{:02}-{:02}", i % 12 + 1, i % 28 + 1)
        };
        text.push_str(&format!("{age},{day},{}\n", ["F", "M"][i % 2]));
    }
    std::fs::write(p.join("d.csv"), text).unwrap();
    let printed = init_ok(p, &["d.csv", "--header", "--dir", "out"]);
    assert!(
        printed.contains("age: quasi-identifier: demographic, by its name (age): intervals of")
            && printed.contains("integer 18..77, 60 distinct, 15.7 % missing: empty, NA)"),
        "{printed}"
    );
    assert!(
        printed.contains("date %Y-%m-%d") && printed.contains("% missing: NULL)"),
        "{printed}"
    );
    let config = std::fs::read_to_string(p.join("out/config.xml")).unwrap();
    assert!(
        config.contains("missing=keep missing-values=NA -->"),
        "{config}"
    );
    let h = std::fs::read_to_string(p.join("out/hierarchy_age.csv")).unwrap();
    assert!(h.lines().any(|l| l == "NA;NA;NA;NA;*"), "{h}");
    assert!(h.lines().any(|l| l == ";;;;*"), "{h}");
    let h = std::fs::read_to_string(p.join("out/hierarchy_admitted.csv")).unwrap();
    assert!(h.lines().any(|l| l == "NULL;NULL;NULL;NULL;*"), "{h}");
    init_then_release(&p.join("d.csv"), ",", true);
}

/// Twelve columns that nothing names: a release of 5,120 records bears ten quasi-identifiers
/// (2^10 classes of 5); the ten most identifying stay, coarsened to the lattice budget, and
/// the config releases a checked file. The other two: kept as they are where
/// every value is on 5 records or more, named on their lines.
#[test]
fn many_quasi_identifiers_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("wide.csv");
    let mut text: String = (0..12).map(|c| format!("q{c},")).collect::<String>() + "note\n";
    for i in 0..5120usize {
        for c in 0..12usize {
            // Integers of 8 to 20 values (intervals) and categories of 3 to 6 (value -> *).
            let v = if c % 2 == 0 {
                ((i * (c + 3) + c) % (8 + c)).to_string()
            } else {
                ["a", "b", "c", "d", "e", "f"][(i / (c + 1)) % (3 + c % 4)].to_string()
            };
            text.push_str(&v);
            text.push(',');
        }
        text.push_str("same\n");
    }
    std::fs::write(&data, text).unwrap();
    let (printed, report) = init_then_release(&data, ",", true);
    assert_eq!(
        printed.matches(": quasi-identifier: ").count(),
        10,
        "{printed}"
    );
    assert_eq!(
        printed
            .matches(": insensitive, kept as it is: past the quasi-identifiers")
            .count(),
        2,
        "{printed}"
    );
    assert!(
        printed.contains("10 quasi-identifiers kept of 12: a release of 5120 records bears"),
        "{printed}"
    );
    assert!(printed.contains("; finest levels dropped to keep the lattice small"));
    assert_eq!(report["transformation"].as_array().unwrap().len(), 10);
}

/// A user's own file: a row holding `?` (a question in a note, an unknown age) is a record
/// like any other. init's profile skipped such rows, as the toolbox does, and so did the run
/// of its config: a third of this file was never released. The config says
/// `unknown="keep"` now, and `?` among numbers is a missing value.
#[test]
fn rows_with_question_marks_are_records() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("q.csv");
    let mut text = String::from("age,sex,note\n");
    for i in 0..300 {
        let age = if i % 10 == 0 {
            "?".to_string()
        } else {
            (20 + i % 40).to_string()
        };
        let note = if i % 3 == 0 {
            "\"follow-up? see you, maybe\""
        } else {
            "\"seen, all well today\""
        };
        text.push_str(&format!("{age},{},{note}\n", ["f", "m"][i % 2]));
    }
    std::fs::write(&data, text).unwrap();
    let (printed, report) = init_then_release(&data, ",", true);
    assert!(printed.contains("q.csv: 300 records"), "{printed}");
    assert!(
        printed.contains("age: quasi-identifier: demographic, by its name (age): intervals of")
            && printed.contains("10.0 % missing: ?)"),
        "{printed}"
    );
    assert_eq!(report["records"], 300, "{report}");
}

/// A comma-separated file profiled with `--separator ';'` is one column: init says which
/// separator the first line holds.
#[test]
fn one_column_names_the_likely_separator() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("age,sex\n");
    for i in 0..60 {
        text.push_str(&format!("{},{}\n", 20 + i % 30, ["f", "m"][i % 2]));
    }
    std::fs::write(dir.path().join("c.csv"), text).unwrap();
    let o = anonbox(
        dir.path(),
        &[
            "init",
            "c.csv",
            "--header",
            "--separator",
            ";",
            "--dir",
            "out",
        ],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("c.csv: one column, but its first line holds ',': give --separator ','"),
        "{err}"
    );
}

/// The role of each column in a config init wrote: `id`, `qid`, `sens`, or `kept` (a comment
/// saying it is released as it is), by column index.
fn roles_of(config: &str) -> Vec<(usize, &'static str)> {
    let mut roles: Vec<(usize, &'static str)> = Vec::new();
    for (tag, role) in [("id", "id"), ("qid", "qid"), ("sens", "sens")] {
        roles.extend(indexes(config, tag).into_iter().map(|i| (i, role)));
    }
    for line in config
        .lines()
        .filter(|l| l.contains("released as it is -->"))
    {
        let i = line.find("(column ").unwrap() + "(column ".len();
        let n: usize = line[i..i + line[i..].find(')').unwrap()].parse().unwrap();
        roles.push((n, "kept"));
    }
    roles.sort();
    roles
}

/// Runs init on `data` with neither --header nor --no-header; returns what it printed and the
/// config.
fn init_detecting(data: &Path, separator: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let printed = init_ok(
        dir.path(),
        &[
            data.to_str().unwrap(),
            "--separator",
            separator,
            "--dir",
            "job",
        ],
    );
    let config = std::fs::read_to_string(dir.path().join("job/config.xml")).unwrap();
    (printed, config)
}

/// The roles a custodian would choose, on the bundled files and on files shaped like the
/// ones the issue tried (a wage panel, traffic accidents, a patient list), with the header
/// found without --header: ADULT as ARX's example declares it (eight quasi-identifiers, the
/// salary class sensitive under l-diversity); the census sample's age a quasi-identifier and
/// its income class sensitive, as the toolbox's own config has them; identifiers by name and
/// by shape; Safe Harbor's treatments.
#[test]
fn roles_a_custodian_would_choose() {
    let (printed, config) = init_detecting(&common::data("adult/adult.csv"), ";");
    assert!(
        printed.lines().next().unwrap().contains(
            "(its first line read as the header: age heads a column of numbers; give \
             --no-header if it is a record)"
        ),
        "{printed}"
    );
    let mut expected: Vec<(usize, &str)> = (0..8).map(|i| (i, "qid")).collect();
    expected.push((8, "sens"));
    assert_eq!(roles_of(&config), expected, "{config}");
    assert!(config.contains("<distinct-l-diversity attribute=\"salary-class\" l=\"2\"/>"));
    assert!(printed.contains("privacy: 5-anonymity, distinct 2-diversity of salary-class"));
    // Ages over 89 (ADULT tops at 90): top-coded, and said.
    assert!(
        printed.contains("HIPAA Safe Harbor (C) ages over 89"),
        "{printed}"
    );
    assert!(config.contains("end=90 top=true"), "{config}");

    let (printed, config) = init_detecting(
        &common::data("census-income-1k/Input/census-income_1K.data"),
        ",",
    );
    assert!(
        printed
            .lines()
            .next()
            .unwrap()
            .contains("(no header: its first line holds the number 58;"),
        "{printed}"
    );
    let roles = roles_of(&config);
    assert_eq!(roles.len(), 42);
    assert!(roles.contains(&(0, "qid")), "{roles:?}");
    assert!(roles.contains(&(41, "sens")), "{roles:?}");
    assert_eq!(
        roles.iter().filter(|r| r.1 == "qid").count(),
        6,
        "{roles:?}"
    );
    // One value: kept as it is.
    assert!(roles.contains(&(15, "kept")) && roles.contains(&(40, "kept")));
    // Every column kept as it is has each value on 5 records or more.
    let rows: Vec<Vec<String>> =
        std::fs::read_to_string(common::data("census-income-1k/Input/census-income_1K.data"))
            .unwrap()
            .lines()
            .map(|l| l.split(',').map(|f| f.trim().to_string()).collect())
            .collect();
    for &(c, _) in roles.iter().filter(|r| r.1 == "kept") {
        let mut counts = std::collections::HashMap::new();
        for r in &rows {
            *counts.entry(r[c].as_str()).or_insert(0) += 1;
        }
        assert!(counts.values().all(|&n| n >= 5), "column {c}: {counts:?}");
    }

    let (_, config) = init_detecting(&common::data("example/example.csv"), ";");
    assert_eq!(roles_of(&config), [(0, "qid"), (1, "qid"), (2, "qid")]);
    assert!(
        config.contains("HIPAA Safe Harbor (B) ZIP code"),
        "{config}"
    );

    // A wage panel (R's Males): the person's number an identifier, wage and health
    // sensitive, the year and the demographics quasi-identifiers.
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("nr,year,school,exper,union,ethn,married,health,wage,industry\n");
    for i in 0..4360usize {
        text.push_str(&format!(
            "{},{},{},{},{},{},{},{},{:.3},{}\n",
            13 + (i / 8) * 7,
            1980 + i % 8,
            3 + i % 14,
            i % 18,
            ["yes", "no"][i % 3 % 2],
            ["other", "black", "hisp"][i % 7 % 3],
            ["yes", "no"][i / 8 % 2],
            ["yes", "no"][usize::from(i % 11 == 0)],
            0.5 + (i % 97) as f64 / 31.0,
            ["Manufacturing", "Trade", "Finance", "Construction"][i / 16 % 4]
        ));
    }
    std::fs::write(dir.path().join("males.csv"), text).unwrap();
    let (printed, config) = init_detecting(&dir.path().join("males.csv"), ",");
    assert_eq!(
        roles_of(&config),
        [
            (0, "id"),
            (1, "qid"),
            (2, "qid"),
            (3, "qid"),
            (4, "qid"),
            (5, "qid"),
            (6, "qid"),
            (7, "sens"),
            (8, "sens"),
            (9, "qid")
        ],
        "{printed}"
    );
    assert!(printed.contains("  0 nr: identifier: an identifier, by its name (nr)"));
    assert!(printed.contains("  8 wage: sensitive: income, by its name (wage)"));
    assert!(config.contains("<distinct-l-diversity attribute=\"wage\" l=\"3\"/>"));
    assert!(config.contains("<distinct-l-diversity attribute=\"health\" l=\"2\"/>"));

    // A patient list: names, e-mail, phone, record numbers removed; the diagnosis sensitive;
    // the ZIP code masked to 3 digits; dates to calendar levels.
    let mut text =
        String::from("Patient Name;email;phone;MRN;zip;admission;age;diagnosis;ward note\n");
    for i in 0..400usize {
        text.push_str(&format!(
            "Name{i} Surname{};p{i}@example.org;+1 555 {:04};M{:06};{:05};2023-{:02}-{:02};{};{};{}\n",
            i % 37,
            i,
            i * 13,
            10000 + (i % 9) * 1111,
            1 + i % 12,
            1 + i % 28,
            20 + i % 75,
            ["flu", "asthma", "diabetes", "fracture", "migraine", "other"][i % 6],
            ["seen by the nurse on the morning round", "to be seen again next week please"]
                [i % 2]
        ));
    }
    std::fs::write(dir.path().join("patients.csv"), text).unwrap();
    let (printed, config) = init_detecting(&dir.path().join("patients.csv"), ";");
    assert_eq!(
        roles_of(&config),
        [
            (0, "id"),
            (1, "id"),
            (2, "id"),
            (3, "id"),
            (4, "qid"),
            (5, "qid"),
            (6, "qid"),
            (7, "sens"),
            (8, "kept")
        ],
        "{printed}"
    );
    for flag in [
        "(A) names",
        "(F) e-mail addresses",
        "(D) telephone numbers",
        "(H) medical record numbers",
        "(B) ZIP code",
        "(C) dates more precise than a year",
        "(C) ages over 89",
    ] {
        assert!(
            printed.contains(&format!("HIPAA Safe Harbor {flag}")),
            "{flag}\n{printed}"
        );
    }
    assert!(
        printed.contains("HIPAA Safe Harbor identifiers: Patient Name (A), email (F), phone (D), MRN (H), zip (B), admission (C), age (C)"),
        "{printed}"
    );
}
