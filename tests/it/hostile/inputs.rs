//! Inputs and configs that are not regular files, lines without end, bytes not in the input's
//! encoding (cases 5 and 9).
//!
//! Each command is run with a deadline: a regression that blocks (a FIFO waited on) or reads
//! for ever (a device) fails the test instead of hanging the suite.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use crate::common::{data, files_in};

/// Runs anonbox in `dir` with `args`; kills it and fails if it has not ended within `secs`.
fn anonbox_within(dir: &Path, args: &[&str], secs: u64) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_anonbox"));
    cmd.current_dir(dir).args(args).stdin(Stdio::null());
    let what = format!("anonbox {args:?}");
    super::run_within(cmd, Duration::from_secs(secs), &what).0
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts that `o` failed with `code` and one line on stderr starting with `start`.
fn refused(o: &Output, code: i32, start: &str) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert!(e.starts_with(start), "expected '{start}...', got: {e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(!e.contains("panicked") && !e.contains("backtrace"), "{e}");
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// The example table (`age;gender;zipcode`, 8 rows) with a config of one quasi-identifier,
/// `age`, in `dir`: `c.xml` reads `in.csv` (copied) and writes `out.csv`.
fn example(dir: &Path, extra: &str) {
    std::fs::copy(data("example/example.csv"), dir.join("in.csv")).unwrap();
    std::fs::write(
        dir.join("c.xml"),
        format!(
            "<config method='Flash' k='2'>\
               <input filename='in.csv' separator=';' header='true'/>\
               <output filename='out.csv'/>\
               {extra}\
               <qid><att index='0' name='age' hierarchy='{}'/></qid>\
             </config>",
            data("example/example_hierarchy_age.csv").display()
        ),
    )
    .unwrap();
}

/// Case 5: `anonbox audit /dev/zero` read without end (18.8 GB in 60 s, then an abort). A
/// device where a file is read (audit's input, a run's input) is refused at once, saying what
/// it is.
#[test]
fn a_device_is_refused_where_a_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = anonbox_within(d, &["audit", "/dev/zero", "--qi", "0"], 10);
    refused(
        &o,
        2,
        "anonbox: /dev/zero: a character device, not a regular file",
    );
    // The hierarchy of the sensitive attribute too.
    std::fs::copy(data("example/example.csv"), d.join("in.csv")).unwrap();
    let o = anonbox_within(
        d,
        &[
            "audit",
            "in.csv",
            "--separator",
            ";",
            "--qi",
            "age",
            "--sensitive",
            "zipcode",
            "--hierarchy",
            "/dev/zero",
        ],
        10,
    );
    refused(
        &o,
        2,
        "anonbox: /dev/zero: a character device, not a regular file",
    );
    example(d, "");
    let o = anonbox_within(d, &["-config", "c.xml", "-input", "/dev/zero"], 10);
    refused(&o, 2, "anonbox: -input: input /dev/zero is a stream");
    assert_eq!(files_in(d), ["c.xml", "in.csv"]);
}

/// Case 5: a FIFO as `-config`, as audit's input or a `categories` mapping file, with nothing
/// writing into it, blocked for ever (opening a FIFO waits for a writer). Each is refused at
/// once (the file is opened without blocking and its type checked).
#[test]
fn a_fifo_without_a_writer_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("fifo");
    mkfifo(&fifo);
    example(d, "");
    let o = anonbox_within(d, &["-config", "fifo"], 10);
    refused(
        &o,
        2,
        "anonbox: fifo: the configuration file is a FIFO (named pipe) that nothing writes into",
    );
    let o = anonbox_within(d, &["plan", "-config", "fifo"], 10);
    refused(&o, 2, "anonbox: fifo: the configuration file is a FIFO");
    let o = anonbox_within(d, &["audit", "fifo", "--qi", "0"], 10);
    refused(
        &o,
        2,
        "anonbox: fifo: a FIFO (named pipe), not a regular file",
    );
    let o = anonbox_within(
        d,
        &[
            "hierarchy",
            "categories",
            "--input",
            "in.csv",
            "--separator",
            ";",
            "--header",
            "--column",
            "gender",
            "--map",
            "fifo",
            "--output",
            "h.csv",
        ],
        10,
    );
    refused(&o, 2, "anonbox: hierarchy categories: ");
    assert!(
        stderr(&o).contains("fifo: a FIFO (named pipe), not a regular file"),
        "{}",
        stderr(&o)
    );
    assert_eq!(files_in(d), ["c.xml", "fifo", "in.csv"]);
}

/// Case 5: no command capped a line's length: a file without a line end was read whole into
/// memory (1 GB aborted run, audit and init). A line longer than the limit is one line of
/// error naming the file and line, exit 1 (audit: 2, its "bad input"), nothing written;
/// `-maxLineLength` / `--max-line-length` set the limit, 64 MiB by default.
#[test]
fn a_line_longer_than_the_limit_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    example(d, "");
    // Two megabytes without a line end after the example's rows.
    let mut big = std::fs::read(d.join("in.csv")).unwrap();
    big.extend(std::iter::repeat_n(b'7', 2 << 20));
    std::fs::write(d.join("in.csv"), &big).unwrap();
    let limit = "the line is longer than 1 MiB, the longest line anonbox reads: is the file \
                 delimited text? (raise the limit with -maxLineLength SIZE, or \
                 --max-line-length SIZE for audit, init and hierarchy)\n";
    let o = anonbox_within(d, &["-config", "c.xml", "-maxLineLength", "1M"], 20);
    refused(&o, 1, &format!("anonbox: in.csv:9: {limit}"));
    let o = anonbox_within(d, &["plan", "-config", "c.xml", "-maxLineLength", "1M"], 20);
    refused(&o, 1, &format!("anonbox: in.csv:9: {limit}"));
    let o = anonbox_within(
        d,
        &[
            "audit",
            "in.csv",
            "--separator",
            ";",
            "--qi",
            "age",
            "--max-line-length",
            "1M",
        ],
        20,
    );
    refused(&o, 2, &format!("anonbox: in.csv:9: {limit}"));
    let o = anonbox_within(
        d,
        &[
            "init",
            "in.csv",
            "--separator",
            ";",
            "--header",
            "--dir",
            "rel",
            "--max-line-length",
            "1M",
        ],
        20,
    );
    refused(&o, 1, &format!("anonbox: in.csv:9: {limit}"));
    let o = anonbox_within(
        d,
        &[
            "hierarchy",
            "mask",
            "--input",
            "in.csv",
            "--separator",
            ";",
            "--header",
            "--column",
            "zipcode",
            "--output",
            "h.csv",
            "--max-line-length",
            "1M",
        ],
        20,
    );
    refused(&o, 1, &format!("anonbox: in.csv:9: {limit}"));
    // A header line without end is found while the job is built: still data, exit 1.
    std::fs::write(d.join("in.csv"), &big[big.len() - (2 << 20)..]).unwrap();
    let o = anonbox_within(d, &["-config", "c.xml", "-maxLineLength", "1M"], 20);
    refused(&o, 1, &format!("anonbox: in.csv:1: {limit}"));
    assert_eq!(files_in(d), ["c.xml", "in.csv"]);

    // The default, 64 MiB: a line one byte longer is refused, and says so.
    let mut huge = b"age;gender;zipcode\n".to_vec();
    huge.extend(std::iter::repeat_n(b'7', (64 << 20) + 1));
    std::fs::write(d.join("in.csv"), &huge).unwrap();
    let o = anonbox_within(
        d,
        &["audit", "in.csv", "--separator", ";", "--qi", "age"],
        60,
    );
    refused(
        &o,
        2,
        "anonbox: in.csv:2: the line is longer than 64 MiB, the longest line anonbox reads",
    );
    // A bad limit is a flag error.
    let o = anonbox_within(d, &["-config", "c.xml", "-maxLineLength", "0"], 10);
    refused(
        &o,
        2,
        "anonbox: -maxLineLength: '0' is not a size in bytes > 0",
    );
}

/// Case 9: a byte that is not UTF-8 in a column that is not a quasi-identifier (an insensitive
/// column, copied into the release, or an identifier, dropped from it) was accepted and
/// copied through, where the README says a run never guesses. It is an error wherever it is,
/// naming the file, line and column (exit 1, nothing written); `-encoding` reads it.
#[test]
fn a_byte_not_utf8_is_an_error_in_every_column() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let hint = "(if the file is Latin-1, set encoding=\"windows-1252\" on <input> or give \
                -encoding windows-1252; init, hierarchy and audit take --encoding)\n";
    for (extra, column) in [
        ("", "gender"),
        ("<id><att index='1' name='gender'/></id>", "gender"),
    ] {
        example(d, extra);
        // Line 4: `66;male;81925` -> `66;m\xe4le;81925` (windows-1252 "ä").
        let mut input = std::fs::read(d.join("in.csv")).unwrap();
        let line4: usize = input
            .split_inclusive(|&b| b == b'\n')
            .take(3)
            .map(<[u8]>::len)
            .sum();
        assert!(input[line4..].starts_with(b"66;male;"));
        input[line4 + 4] = 0xE4;
        std::fs::write(d.join("in.csv"), &input).unwrap();
        let o = anonbox_within(d, &["-config", "c.xml"], 20);
        refused(
            &o,
            1,
            &format!("anonbox: in.csv:4: {column}: value 'm\u{FFFD}le' is not valid UTF-8 {hint}"),
        );
        assert_eq!(files_in(d), ["c.xml", "in.csv"]);
        // Declared, it is read (and the release written in it).
        let o = anonbox_within(d, &["-config", "c.xml", "-encoding", "windows-1252"], 20);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::remove_file(d.join("out.csv")).unwrap();
    }
    // audit: a column that is not audited is read all the same.
    let o = anonbox_within(
        d,
        &["audit", "in.csv", "--separator", ";", "--qi", "age"],
        20,
    );
    refused(
        &o,
        2,
        &format!("anonbox: in.csv:4: gender: value 'm\u{FFFD}le' is not valid UTF-8 {hint}"),
    );
}
