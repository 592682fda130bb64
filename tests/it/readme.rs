//! Every command README.md shows runs as written.
//!
//! The test reads README.md itself, so a section added later is covered without touching this
//! file. Conventions for README authors:
//!
//! - **What runs**: every line of every ` ```sh ` block (other blocks are only shown). A line
//!   ending in `\` continues on the next one; blank lines and lines starting with `#` are
//!   skipped.
//! - **Which binary**: `anonbox` is the binary under test (first on `PATH`); the prefix
//!   `cargo run --release --` is read as `anonbox` (the same program, without a release build
//!   inside the test suite).
//! - **Interactive sqlite3**: a line `sqlite3 [OPTIONS] FILE` followed by lines
//!   `sqlite> STATEMENT` is a session: each statement runs on FILE (through rusqlite), must
//!   succeed and must return at least one row.
//! - **Expectations**: by default every command must exit 0. An HTML comment (invisible in the
//!   rendered README) on the line just before the opening fence changes that for the block:
//!   `<!-- readme-test: skip (REASON) -->` does not run it (`cargo test` is this suite;
//!   `cargo install` changes the machine), and `<!-- readme-test: exit N -->` expects every
//!   command of the block to exit with status N (a documented failure).
//! - **Where**: the commands run in README order, each in its own `sh -c`, all in one temporary
//!   copy of the repository (everything but `target/` and hidden entries), so that a command can
//!   use what an earlier one wrote (an output, a kept database) and the repository is never
//!   modified. `TMPDIR` points into the copy's own temporary folder.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What a block expects of its commands.
#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Exit(i32),
    Skip,
}

/// One thing to run.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// A shell command (README line number, text) and its expected exit status.
    Shell(usize, String, i32),
    /// `sqlite3 ... FILE` with its `sqlite>` statements.
    Sqlite(usize, String, Vec<String>),
}

/// The `sh` blocks of `readme` as steps, with the skipped blocks' first lines.
fn steps(readme: &str) -> (Vec<Step>, Vec<String>) {
    let lines: Vec<&str> = readme.lines().collect();
    let mut steps = Vec::new();
    let mut skipped = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```sh" {
            i += 1;
            continue;
        }
        let expect = i
            .checked_sub(1)
            .map_or(Expect::Exit(0), |p| marker(lines[p], p + 1));
        let mut j = i + 1;
        let mut block: Vec<(usize, String)> = Vec::new();
        while j < lines.len() && lines[j].trim() != "```" {
            let line = lines[j];
            match block.last_mut() {
                Some((_, prev)) if prev.ends_with('\\') => {
                    prev.pop();
                    prev.truncate(prev.trim_end().len());
                    prev.push(' ');
                    prev.push_str(line.trim());
                }
                _ => block.push((j + 1, line.to_string())),
            }
            j += 1;
        }
        assert!(j < lines.len(), "README.md:{}: unclosed ```sh block", i + 1);
        i = j + 1;
        if expect == Expect::Skip {
            skipped.extend(block.first().map(|(_, l)| l.clone()));
            continue;
        }
        let Expect::Exit(code) = expect else {
            unreachable!()
        };
        for (n, line) in block {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(sql) = line.strip_prefix("sqlite>") {
                match steps.last_mut() {
                    Some(Step::Sqlite(_, _, stmts)) => stmts.push(sql.trim().to_string()),
                    _ => panic!("README.md:{n}: 'sqlite>' without a sqlite3 line before it"),
                }
            } else if line.starts_with("sqlite3 ") {
                steps.push(Step::Sqlite(n, line.to_string(), Vec::new()));
            } else {
                let line = match line.strip_prefix("cargo run --release --") {
                    Some(rest) => format!("anonbox{rest}"),
                    None => line.to_string(),
                };
                steps.push(Step::Shell(n, line, code));
            }
        }
    }
    (steps, skipped)
}

/// The expectation an HTML comment line sets (see the module docs).
fn marker(line: &str, n: usize) -> Expect {
    let Some(rest) = line.trim().strip_prefix("<!-- readme-test:") else {
        return Expect::Exit(0);
    };
    let rest = rest.trim().trim_end_matches("-->").trim();
    if rest.starts_with("skip") {
        Expect::Skip
    } else if let Some(code) = rest.strip_prefix("exit ") {
        Expect::Exit(
            code.trim()
                .parse()
                .unwrap_or_else(|_| panic!("README.md:{n}: bad exit status in '{line}'")),
        )
    } else {
        panic!("README.md:{n}: unknown readme-test marker '{line}'")
    }
}

/// Copies `from` into `to`, leaving out `target/` and hidden entries at the top.
fn copy_repo(from: &Path, to: &Path) {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            let dest = to.join(e.file_name());
            if t.is_dir() {
                copy(&e.path(), &dest);
            } else if t.is_file() {
                std::fs::copy(e.path(), &dest).unwrap();
            }
        }
    }
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "target" || name.starts_with('.') {
            continue;
        }
        let dest = to.join(&name);
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &dest);
        } else if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// The database a `sqlite3 [OPTIONS] FILE` line opens: its last argument.
fn sqlite_file(line: &str) -> PathBuf {
    PathBuf::from(line.split_whitespace().last().unwrap())
}

#[test]
fn readme_commands_run_as_written() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let (steps, skipped) = steps(&readme);
    // The README's own test command and install step are the documented skips.
    assert!(
        skipped.iter().any(|l| l.starts_with("cargo test")),
        "{skipped:?}"
    );
    assert!(
        steps
            .iter()
            .any(|s| matches!(s, Step::Shell(_, l, _) if l.starts_with("anonbox "))),
        "no anonbox command found in README.md"
    );

    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("repo");
    copy_repo(root, &work);
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_anonbox"), bin.join("anonbox")).unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    // The cluster of `scripts/cluster.sh up` runs this build's `anonbox-cluster`; it is
    // stopped however the test ends.
    struct Down<'a>(&'a Path, &'a Path);
    impl Drop for Down<'_> {
        fn drop(&mut self) {
            let _ = Command::new("bash")
                .args(["scripts/cluster.sh", "down"])
                .current_dir(self.0)
                .env("TMPDIR", self.1)
                .output();
        }
    }
    let _down = Down(&work, &tmp);
    #[cfg(feature = "ballista")]
    let cluster_bin = env!("CARGO_BIN_EXE_anonbox-cluster");
    #[cfg(not(feature = "ballista"))]
    let cluster_bin = "";
    for step in &steps {
        match step {
            Step::Shell(n, line, code) => {
                let o = Command::new("sh")
                    .arg("-c")
                    .arg(line)
                    .current_dir(&work)
                    .env("PATH", &path)
                    .env("TMPDIR", &tmp)
                    .env("ANONBOX_CLUSTER_BIN", cluster_bin)
                    .output()
                    .unwrap();
                assert_eq!(
                    o.status.code(),
                    Some(*code),
                    "README.md:{n}: `{line}` exited {:?}, expected {code}\nstdout: {}\nstderr: {}",
                    o.status.code(),
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
            }
            Step::Sqlite(n, line, statements) => {
                assert!(
                    !statements.is_empty(),
                    "README.md:{n}: `{line}` without statements"
                );
                let db = work.join(sqlite_file(line));
                assert!(db.is_file(), "README.md:{n}: no database {}", db.display());
                let conn = rusqlite::Connection::open(&db).unwrap();
                for sql in statements {
                    let mut stmt = conn
                        .prepare(sql)
                        .unwrap_or_else(|e| panic!("README.md:{n}: `{sql}`: {e}"));
                    let rows = stmt
                        .query_map([], |_| Ok(()))
                        .unwrap_or_else(|e| panic!("README.md:{n}: `{sql}`: {e}"))
                        .count();
                    assert!(rows > 0, "README.md:{n}: `{sql}` returned no rows");
                }
            }
        }
    }
}

#[test]
fn readme_blocks_are_read_by_the_conventions() {
    let text = "intro\n```sh\nanonbox -k 2 \\\n    -k 3\n# a comment\n\nsqlite3 -header w.db\n\
                sqlite> SELECT 1;  -- why\n```\n<!-- readme-test: skip (the suite) -->\n```sh\n\
                cargo test\n```\n<!-- readme-test: exit 2 -->\n```sh\nanonbox -nosuch\n```\n\
                ```\nanonbox not-run\n```\n```sh\ncargo run --release -- -k 5\n```\n";
    let (steps, skipped) = steps(text);
    assert_eq!(skipped, vec!["cargo test".to_string()]);
    assert_eq!(
        steps,
        vec![
            Step::Shell(3, "anonbox -k 2 -k 3".into(), 0),
            Step::Sqlite(
                7,
                "sqlite3 -header w.db".into(),
                vec!["SELECT 1;  -- why".into()]
            ),
            Step::Shell(16, "anonbox -nosuch".into(), 2),
            Step::Shell(22, "anonbox -k 5".into(), 0),
        ]
    );
    assert_eq!(sqlite_file("sqlite3 -header w.db"), PathBuf::from("w.db"));
}
