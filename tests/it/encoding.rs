//! Inputs in encodings other than UTF-8: windows-1252 through `init` (detected) and a run,
//! releases byte for byte in the input's encoding, Shift_JIS split on characters, and the
//! refusals (unknown labels, UTF-16, values the encoding cannot hold). Outputs are decoded here
//! with encoding_rs and checked by the independent k-anonymity checker.

use std::path::Path;

use encoding_rs::{SHIFT_JIS, WINDOWS_1252};

use crate::common::{anonbox, files_in};
use crate::kcheck::{self, Spec};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn encode(enc: &'static encoding_rs::Encoding, text: &str) -> Vec<u8> {
    let (bytes, _, unmappable) = enc.encode(text);
    assert!(!unmappable, "{text}");
    bytes.into_owned()
}

/// Decodes `bytes`, which must be valid in `enc` (no replacement).
fn decode(enc: &'static encoding_rs::Encoding, bytes: &[u8]) -> String {
    enc.decode_without_bom_handling_and_without_replacement(bytes)
        .expect("valid in the encoding")
        .into_owned()
}

/// A windows-1252 patient list: name (an identifier), age, city and zip (quasi-identifiers),
/// a note (one value).
fn latin1_patients() -> String {
    let names = [
        "José",
        "Zoë",
        "Müller",
        "Ångström",
        "François",
        "Anna",
        "Øystein",
    ];
    let cities = ["Köln", "Zürich", "Malmö", "Besançon"];
    let mut text = String::from("name;age;city;zip;note\n");
    let mut x = 7u64;
    for i in 0..300 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (x >> 33) as usize;
        text.push_str(&format!(
            "{}{i};{};{};{};ça va, 5 €\n",
            names[r % names.len()],
            20 + r % 60,
            cities[(r / 7) % cities.len()],
            10000 + (r / 11) % 100
        ));
    }
    text
}

#[test]
fn init_detects_windows_1252_and_the_run_releases_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = latin1_patients();
    std::fs::write(d.join("lat.csv"), encode(WINDOWS_1252, &text)).unwrap();
    let o = anonbox(
        d,
        &[
            "init",
            "lat.csv",
            "--separator",
            ";",
            "--header",
            "--dir",
            "rel",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let printed = String::from_utf8(o.stdout).unwrap();
    assert!(
        printed.starts_with(
            "lat.csv: not UTF-8 (line 2, field name): read as windows-1252 (Latin-1); give \
             --encoding if it is another\n"
        ),
        "{printed}"
    );
    let config = std::fs::read_to_string(d.join("rel/config.xml")).unwrap();
    assert!(config.contains(" encoding=\"windows-1252\"/>"), "{config}");
    assert!(config.contains("<!-- encoding: the file is not UTF-8 (line 2, field name)"));
    // The hierarchies hold the data's values, in its encoding.
    let city = std::fs::read(d.join("rel/hierarchy_city.csv")).unwrap();
    assert!(std::str::from_utf8(&city).is_err());
    assert!(decode(WINDOWS_1252, &city).contains("Köln;"));

    // The plan says how the input is read.
    let o = anonbox(d, &["plan", "-config", "rel/config.xml"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plan = String::from_utf8(o.stdout).unwrap();
    assert!(
        plan.contains("separator ';', header line, windows-1252, 5 fields"),
        "{plan}"
    );
    // The command init printed, as it stands (with a report and a kept database).
    let run = printed.lines().last().unwrap().trim();
    let mut args: Vec<&str> = run.split_whitespace().skip(1).collect();
    assert_eq!(
        args,
        ["-config", "rel/config.xml", "-method", "Flash", "-k", "5"]
    );
    args.extend(["-report", "r.json", "-db", "w.db"]);
    let o = anonbox(d, &args);
    assert!(o.status.success(), "{}", stderr(&o));

    let out = std::fs::read(d.join("rel/lat-anonymized.csv")).unwrap();
    assert!(
        std::str::from_utf8(&out).is_err(),
        "written in windows-1252"
    );
    let released = decode(WINDOWS_1252, &out);
    let lines: Vec<&str> = released.lines().collect();
    assert_eq!(lines[0], "age;city;zip;note");
    assert!(lines[1..].iter().all(|l| l.ends_with(";ça va, 5 €")));
    // Every city is one of the data's or generalized, read back in the input's encoding.
    let utf8 = d.join("released-utf8.csv");
    std::fs::write(&utf8, &released).unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    let found = kcheck::check(
        &utf8,
        &Spec {
            separator: ";",
            header: true,
            qid_columns: &[0, 1, 2],
            top: &["*", "*", "*"],
            k: 5,
            max_suppressed: 15,
            full_domain: true,
        },
    )
    .unwrap();
    assert_eq!(found.rows, 300);
    assert_eq!(report["suppressed_records"], found.suppressed as u64);
    assert_eq!(report["input_encoding"], "windows-1252");
    // anonbox audit reads the release in the same encoding (its JSON is UTF-8).
    let audit = [
        "audit",
        "rel/lat-anonymized.csv",
        "--separator",
        ";",
        "--qi",
        "age,city,zip",
    ];
    let o = anonbox(
        d,
        &[&audit[..], &["-k", "5", "--encoding", "latin1", "--json"]].concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let figures: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(figures["k"], found.smallest_class as u64);
    assert_eq!(figures["suppressed"], found.suppressed as u64);
    let o = anonbox(d, &audit);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not valid UTF-8 (if the file is Latin-1"));
    // The store holds decoded text: sqlite3 shows it readable.
    let db = rusqlite::Connection::open(d.join("w.db")).unwrap();
    let values: Vec<String> = db
        .prepare("SELECT Value FROM Dictionary")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(values.iter().any(|v| v == "Köln"), "{values:?}");
}

/// A config of one quasi-identifier `g` (hierarchy `h.csv`, or the given element) over
/// `in.csv`, released as `out.csv`.
fn config(dir: &Path, encoding: &str, separator: &str, qid: &str) {
    std::fs::write(
        dir.join("c.xml"),
        format!(
            "<config method='Flash' k='2'>\
               <input filename='in.csv' separator='{separator}' header='true' unknown='keep'{encoding}/>\
               <output filename='out.csv'/>\
               <qid>{qid}</qid>\
             </config>"
        ),
    )
    .unwrap();
}

/// Runs anonbox in `dir` with `args` and asserts that it released `out.csv` equal to `input`,
/// byte for byte.
fn released_unchanged(dir: &Path, args: &[&str], input: &[u8]) {
    let o = anonbox(dir, args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(dir.join("out.csv")).unwrap(), input);
}

/// genVals keeps what it does not generalize byte for byte: every byte 0x20..0xFF but the
/// separator and the quote, in windows-1252, comes out as it went in.
#[test]
fn genvals_keeps_every_windows_1252_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let raw: Vec<u8> = (0x20u8..=0xFF).filter(|b| !b";\"".contains(b)).collect();
    let mut input = b"g;raw\n".to_vec();
    for g in [&b"a"[..], b"\xe9", b"a", b"\xe9"] {
        input.extend_from_slice(g);
        input.push(b';');
        input.extend_from_slice(&raw);
        input.push(b'\n');
    }
    std::fs::write(d.join("in.csv"), &input).unwrap();
    std::fs::write(d.join("h.csv"), b"a;*\n\xe9;*\n").unwrap();
    config(
        d,
        " encoding='latin1'",
        ";",
        "<att index='0' name='g' hierarchy='h.csv'/>",
    );
    released_unchanged(d, &["-config", "c.xml"], &input);

    // Without the encoding, the run stops at the first field that is not UTF-8 (the
    // hierarchy file's, then the data's), with a hint; it never guesses.
    config(d, "", ";", "<att index='0' name='g' hierarchy='h.csv'/>");
    std::fs::remove_file(d.join("out.csv")).unwrap();
    let hint = "(if the file is Latin-1, set encoding=\"windows-1252\" on <input> or give \
                -encoding windows-1252; init, hierarchy and audit take --encoding)\n";
    let o = anonbox(d, &["-config", "c.xml"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("anonbox: h.csv:2: not valid UTF-8 {hint}")
    );
    std::fs::write(d.join("ascii.csv"), "a;*\n").unwrap();
    config(
        d,
        "",
        ";",
        "<att index='0' name='g' hierarchy='ascii.csv'/>",
    );
    // The first such field is `raw`'s on line 2: a column that is not a quasi-identifier is
    // read as text all the same (it was copied through as bytes).
    let o = anonbox(d, &["-config", "c.xml"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.starts_with("anonbox: in.csv:2: raw: value ' !#$%&"),
        "{e}"
    );
    assert!(e.contains("is not valid UTF-8"), "{e}");
    assert!(!d.join("out.csv").exists());
    // Where only `g` is not UTF-8, the error names it.
    std::fs::write(d.join("in.csv"), b"g;raw\na;x\n\xe9;y\n").unwrap();
    let o = anonbox(d, &["-config", "c.xml"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("anonbox: in.csv:3: g: value '\u{FFFD}' is not valid UTF-8 {hint}")
    );
    assert!(!d.join("out.csv").exists());
    std::fs::write(d.join("in.csv"), &input).unwrap();
    // -encoding on the command line does what the attribute does.
    config(d, "", ";", "<att index='0' name='g' hierarchy='h.csv'/>");
    released_unchanged(
        d,
        &["-config", "c.xml", "-encoding", "windows-1252"],
        &input,
    );
}

/// Shift_JIS with `|` separators: "ポ" is 0x83 0x7C, its trail byte a `|`. The stream is
/// decoded before it is split, so the field holds the character (and the release gives the
/// bytes back); anonbox hierarchy reads and writes it in the same encoding.
#[test]
fn shift_jis_trail_bytes_equal_to_the_separator_split_right() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = "g|name\n1|ポイント\n1|表示\n2|ポ\n2|ソ\n";
    let input = encode(SHIFT_JIS, text);
    assert!(input.windows(2).any(|w| w == b"\x83\x7c"));
    std::fs::write(d.join("in.csv"), &input).unwrap();
    let o = anonbox(
        d,
        &[
            "hierarchy",
            "categories",
            "--input",
            "in.csv",
            "--column",
            "name",
            "--separator",
            "|",
            "--header",
            "--encoding",
            "shift_jis",
            "--output",
            "names.csv",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let names = decode(SHIFT_JIS, &std::fs::read(d.join("names.csv")).unwrap());
    let mut names: Vec<&str> = names.lines().collect();
    names.sort_unstable();
    assert_eq!(names, ["ソ;*", "ポ;*", "ポイント;*", "表示;*"]);

    std::fs::write(d.join("h.csv"), b"1;*\n2;*\n").unwrap();
    config(
        d,
        " encoding='shift_jis'",
        "|",
        "<att index='0' name='g' hierarchy='h.csv'/>",
    );
    released_unchanged(d, &["-config", "c.xml"], &input);
    // The name column as a quasi-identifier: its values are whole characters.
    config(
        d,
        " encoding='shift_jis'",
        "|",
        "<att index='1' name='name' hierarchy='names.csv'/>",
    );
    released_unchanged(
        d,
        &["-config", "c.xml", "-method", "Flash", "-k", "1"],
        &input,
    );
    // Bytes that are not Shift_JIS are an error naming their line (exit 1), never replaced.
    let mut bad = input.clone();
    bad.extend_from_slice(b"2|\x81\x20\n");
    std::fs::write(d.join("in.csv"), &bad).unwrap();
    std::fs::remove_file(d.join("out.csv")).unwrap();
    let o = anonbox(d, &["-config", "c.xml", "-method", "Flash", "-k", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "anonbox: in.csv:6: byte 0x81 is not valid Shift_JIS (is it the file's encoding?)\n"
    );
    assert!(!d.join("out.csv").exists());
}

/// An unknown label is a flag or config error, found before the input is read (which here
/// does not exist): exit 2, one line, nothing written.
#[test]
fn unknown_labels_are_refused_before_the_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    config(
        d,
        " encoding='klingon'",
        ";",
        "<att index='0' hierarchy='h.csv'/>",
    );
    let runs: [(&[&str], &str); 5] = [
        (
            &["-config", "c.xml"],
            "c.xml:1: <input encoding='klingon'>: unknown encoding 'klingon'",
        ),
        (
            &["-input", "missing.csv", "-encoding", "klingon", "-k", "2"],
            "-encoding: unknown encoding 'klingon'",
        ),
        (
            &["init", "missing.csv", "--encoding", "klingon"],
            "unknown encoding 'klingon'",
        ),
        (
            &[
                "hierarchy",
                "mask",
                "--input",
                "missing.csv",
                "--column",
                "0",
                "--output",
                "h.csv",
                "--encoding",
                "klingon",
            ],
            "unknown encoding 'klingon'",
        ),
        (
            &["audit", "missing.csv", "--qi", "0", "--encoding", "utf-16"],
            "UTF-16, which anonbox does not read: save the file as UTF-8",
        ),
    ];
    for (args, want) in runs {
        let o = anonbox(d, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains(want), "{args:?}: {e}");
        assert!(!e.contains("missing.csv"), "read before the input: {e}");
    }
    assert_eq!(files_in(d), ["c.xml"]);
}

/// A file starting with a UTF-16 byte order mark is refused in one line naming UTF-16, by a
/// run (exit 1: it is data) and by init.
#[test]
fn utf16_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut input = vec![0xFF, 0xFE];
    for u in "g;x\na;1\n".encode_utf16() {
        input.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::write(d.join("in.csv"), &input).unwrap();
    std::fs::write(d.join("h.csv"), "a;*\n").unwrap();
    config(d, "", ";", "<att index='0' name='g' hierarchy='h.csv'/>");
    for (args, code) in [
        (&["-config", "c.xml"][..], 1),
        (&["-config", "c.xml", "-encoding", "latin1"], 1),
        (&["init", "in.csv", "--dir", "job"], 1),
    ] {
        let o = anonbox(d, args);
        assert_eq!(o.status.code(), Some(code), "{args:?}: {}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "anonbox: in.csv: the file is UTF-16 (it starts with a UTF-16 byte order mark), \
             which anonbox does not read: save it as UTF-8\n"
        );
    }
    assert_eq!(files_in(d), ["c.xml", "h.csv", "in.csv"]);
}

/// A generalized label that windows-1252 cannot hold stops the run with the file, line,
/// field and value; no output is left.
#[test]
fn a_label_the_encoding_cannot_hold_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("in.csv"), b"g;x\nJos\xe9;1\nJos\xe9;2\nb;3\nc;4\n").unwrap();
    config(
        d,
        " encoding='windows-1252'",
        ";",
        "<att index='0' name='g'><categories frequency='2' other='rare ≤ 1'/></att>",
    );
    let o = anonbox(d, &["-config", "c.xml", "-report", "r.json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "anonbox: out.csv:4: g: value 'rare ≤ 1' cannot be written in windows-1252, the \
         input's encoding: it has no '≤' (U+2264); use labels it can hold, or save the input \
         as UTF-8\n"
    );
    assert_eq!(files_in(d), ["c.xml", "in.csv"]);
}

/// Anatomy writes both files in the input's encoding: the ST gives the published fields back
/// byte for byte, and the config's map (UTF-8 XML) names the decoded values.
#[test]
fn anatomy_writes_its_pair_in_the_input_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows: [&[u8]; 4] = [
        b"a;Caf\xe9;n\xe9e",
        b"a;Th\xe9;x\xff",
        b"b;Caf\xe9;\xe0 1",
        b"b;Th\xe9;\xe0 2",
    ];
    let mut input = b"g;s;note\n".to_vec();
    for r in rows {
        input.extend_from_slice(r);
        input.push(b'\n');
    }
    std::fs::write(d.join("in.csv"), &input).unwrap();
    std::fs::write(d.join("h.csv"), "a;*\nb;*\n").unwrap();
    std::fs::write(
        d.join("c.xml"),
        "<config method='Anatomy' l='2'>\
           <input filename='in.csv' separator=';' header='true' encoding='windows-1252'/>\
           <output filename='out.csv'/>\
           <qid><att index='0' name='g' hierarchy='h.csv'/></qid>\
           <sens><att index='1' name='s'><map><e cat='Café' int='0'/><e cat='Thé' int='1'/>\
           </map></att></sens>\
         </config>",
    )
    .unwrap();
    let o = anonbox(d, &["-config", "c.xml", "-quiet"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let st = std::fs::read(d.join("out_ST.csv")).unwrap();
    let mut published: Vec<&[u8]> = st
        .split(|&b| b == b'\n')
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| &l[l.iter().position(|&b| b == b';').unwrap() + 1..])
        .collect();
    published.sort_unstable();
    let mut want: Vec<&[u8]> = rows.iter().map(|r| &r[2..]).collect();
    want.sort_unstable();
    assert_eq!(published, want);
    assert_eq!(
        std::fs::read(d.join("out_QIT.csv")).unwrap()[..6],
        b"g;EID\n"[..]
    );
}
