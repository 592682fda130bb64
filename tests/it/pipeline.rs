//! The load -> store -> output pipeline through the binary: bad input rows (message with file,
//! line and value; exit 1; no output, no report, no database left behind), separators, quoting,
//! skipped rows, bytes passing through, the kept database; and the in-memory loader against the
//! store.

use std::path::PathBuf;

use assert_cmd::Command;

use crate::common;
use crate::kcheck::{self, Spec};
use anonbox::algorithms::tuples::Backend;
use anonbox::io::Publication;

/// A folder for one test; the binary runs inside it with its own TMPDIR (to see the temporary
/// database go away).
struct Dir {
    dir: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

impl Dir {
    fn new() -> Dir {
        Dir {
            dir: tempfile::tempdir().unwrap(),
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, content: impl AsRef<[u8]>) {
        std::fs::write(self.path(name), content).unwrap();
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_anonbox"));
        c.current_dir(self.dir.path())
            .env("TMPDIR", self.tmp.path())
            .args(args);
        c
    }

    fn files(&self) -> Vec<String> {
        crate::common::files_in(self.dir.path())
    }

    fn temp_is_empty(&self) -> bool {
        std::fs::read_dir(self.tmp.path()).unwrap().count() == 0
    }
}

/// VGH config: age (column 0, leaves of width 25) and sex (column 1, mapped); column 2 is an
/// identifier; `extra` goes into the root (e.g. a `<sens>`).
pub fn vgh_config(separator: &str, header: bool, extra: &str) -> String {
    format!(
        "<config k='2' method='Datafly'>\n\
         <input filename='in.csv' separator='{separator}' header='{header}'/>\n\
         <output filename='out.csv' format='genVals'/>\n\
         <id><att index='2'/></id>\n\
         <qid>\n\
         <att index='0'><vgh value='[0:100)'><node value='[0:50)'><node value='[0:25)'/>\
         <node value='[25:50)'/></node><node value='[50:100)'><node value='[50:75)'/>\
         <node value='[75:100)'/></node></vgh></att>\n\
         <att index='1'><map><e cat='F' int='0'/><e cat='M' int='1'/></map><vgh value='[0:1]'/></att>\n\
         </qid>\n{extra}\n</config>\n"
    )
}

/// Runs a config whose input has one bad row; asserts exit 1, a one-line message with every
/// needle, and that nothing was written (output, report, database).
fn bad_input(config: &str, input: &str, needles: &[&str]) {
    let d = Dir::new();
    d.write("c.xml", config);
    d.write("in.csv", input);
    let before = d.files();
    let a = d
        .cmd(&["-config", "c.xml", "-report", "r.json"])
        .assert()
        .code(1);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(stderr.starts_with("anonbox: "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for n in needles {
        assert!(stderr.contains(n), "{n:?} not in {stderr}");
    }
    assert_eq!(d.files(), before, "nothing may be written");
    assert!(d.temp_is_empty(), "the temporary database must be removed");
}

#[test]
fn wrong_number_of_fields() {
    bad_input(
        &vgh_config(",", false, ""),
        "30,F,1,a\n31,F,2\n60,M,3,c\n",
        &["in.csv:2: expected 4 fields, found 3"],
    );
    // With a header, the header's width counts.
    bad_input(
        &vgh_config(";", true, ""),
        "age;sex;id;x\n30;F;1;a;extra\n",
        &["in.csv:2: expected 4 fields, found 5"],
    );
}

#[test]
fn value_outside_every_vgh_leaf() {
    bad_input(
        &vgh_config(",", false, ""),
        "30,F,1,a\n31,F,2,b\n\n150,M,3,c\n",
        &["in.csv:4: att0: value '150' is outside every leaf of the VGH"],
    );
    // Below the root's range too.
    bad_input(
        &vgh_config(",", false, ""),
        "-1,F,1,a\n",
        &["in.csv:1: att0: value '-1' is outside every leaf of the VGH"],
    );
}

#[test]
fn unmapped_category() {
    bad_input(
        &vgh_config(",", false, ""),
        "30,F,1,a\n31, X ,2,b\n",
        &["in.csv:2: att1: unmapped category 'X'"],
    );
    // A sensitive attribute's map too.
    bad_input(
        &vgh_config(
            ",",
            false,
            "<sens><att index='3'><map><e cat='a' int='0'/></map></att></sens>",
        ),
        "30,F,1,a\n31,F,2,b\n",
        &["in.csv:2: att3: unmapped category 'b'"],
    );
}

#[test]
fn non_numeric_value_of_a_numeric_attribute() {
    bad_input(
        &vgh_config(",", false, ""),
        "30,F,1,a\n3O,F,2,b\n",
        &["in.csv:2: att0: '3O' is not a number"],
    );
    // A numeric sensitive attribute (no map).
    bad_input(
        &vgh_config(",", false, "<sens><att index='3'/></sens>"),
        "30,F,1,7\n31,F,2,seven\n",
        &["in.csv:2: att3: 'seven' is not a number"],
    );
}

#[test]
fn value_missing_from_its_hierarchy_file() {
    let cfg = "<config k='2' method='Datafly'>\n\
               <input filename='in.csv' separator=';' header='true'/>\n\
               <output filename='out.csv'/>\n\
               <qid><att index='0' name='age' hierarchy='age.csv'/></qid>\n</config>\n";
    let d = Dir::new();
    d.write("age.csv", "34;<50;*\n45;<50;*\n66;>=50;*\n");
    d.write("c.xml", cfg);
    d.write("in.csv", "age;x\n34;a\n45;b\n50;c\n");
    let before = d.files();
    let a = d.cmd(&["-config", "c.xml"]).assert().code(1);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("in.csv:4: age: value '50' is not in the hierarchy file")
            && stderr.contains("age.csv"),
        "{stderr}"
    );
    assert_eq!(d.files(), before);
    assert!(d.temp_is_empty());
}

#[test]
fn multi_character_separator_trims_qids_and_keeps_other_fields() {
    let d = Dir::new();
    d.write("c.xml", vgh_config(", ", false, ""));
    d.write(
        "in.csv",
        " 30, F, 1,  a\r\n31, F, 2, b,c\r\n 60 , M, 3, \"x, y\"\r\n61, M, 4, d \r\n",
    );
    d.cmd(&["-config", "c.xml", "-k", "2"]).assert().success();
    let out = std::fs::read_to_string(d.path("out.csv")).unwrap();
    assert_eq!(
        out,
        "[25:50), [0.0],  a\n[25:50), [0.0], b,c\n[50:75), [1.0], \"x, y\"\n[50:75), [1.0], d \n"
    );
}

/// Fields that are not quasi-identifiers are copied byte for byte (quoting aside); a byte
/// that is not UTF-8 is refused in them too (issue 28, case 9: it was copied through).
#[test]
fn skipped_rows_blank_lines_quoting_and_raw_bytes() {
    let d = Dir::new();
    d.write("c.xml", vgh_config(";", true, ""));
    let mut input: Vec<u8> = b"age;sex;id;note\n".to_vec();
    input.extend_from_slice(
        b"30;F;1;\"a;b\"\n\n31;F;2;\xc3\xbc\xe2\x82\xac\n40;?;3;x\n60;M;4;\"q\"\"\"\n",
    );
    input.extend_from_slice(b"61;M;5;caf\xc3\xa9\n");
    d.write("in.csv", &input);
    let a = d
        .cmd(&["-config", "c.xml", "-report", "r.json"])
        .assert()
        .success();
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("skipped 1 blank lines"), "{stderr}");
    assert!(
        stderr.contains("skipped 1 of 5 rows containing '?'"),
        "{stderr}"
    );
    let out = std::fs::read(d.path("out.csv")).unwrap();
    let mut want: Vec<u8> = b"age;sex;note\n".to_vec();
    want.extend_from_slice(b"[25:50);[0.0];\"a;b\"\n[25:50);[0.0];\xc3\xbc\xe2\x82\xac\n");
    want.extend_from_slice(b"[50:75);[1.0];q\"\n[50:75);[1.0];caf\xc3\xa9\n");
    assert_eq!(
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&want)
    );
    assert_eq!(out, want);
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.path("r.json")).unwrap()).unwrap();
    assert_eq!(r["rows_read"], 5);
    assert_eq!(r["rows_skipped"], 1);
    assert_eq!(r["blank_lines"], 1);
    assert_eq!(r["records"], 4);
    assert_eq!(r["quasi_identifiers"], serde_json::json!(["age", "sex"]));
    assert!(d.temp_is_empty());

    let raw = input
        .windows(6)
        .position(|w| w == b"\xc3\xbc\xe2\x82\xac\n")
        .unwrap();
    input.splice(raw..raw + 5, *b"\xff\xfe");
    d.write("in.csv", &input);
    let a = d.cmd(&["-config", "c.xml"]).assert().code(1);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.starts_with("anonbox: in.csv:4: note: value '\u{FFFD}\u{FFFD}' is not valid UTF-8"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(d.path("out.csv")).unwrap(), want);
    assert!(d.temp_is_empty());
}

#[test]
fn kept_database_is_private_and_explains_itself() {
    let d = Dir::new();
    d.write(
        "c.xml",
        vgh_config(",", false, "<sens><att index='3'/></sens>"),
    );
    d.write(
        "in.csv",
        "30,F,1,7\n31,F,2,8\n60,M,3,7\n61,M,4,7\n62,F,5,1\n",
    );
    for _ in 0..2 {
        // The second run reuses (clears) the same database.
        d.cmd(&["-config", "c.xml", "-db", "work.db"])
            .assert()
            .success();
    }
    let db = d.path("work.db");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&db).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
    let conn = rusqlite::Connection::open(&db).unwrap();
    let q = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(q("SELECT COUNT(*) FROM Run"), 1);
    assert_eq!(q("SELECT Records FROM Run"), 5);
    assert_eq!(q("SELECT COUNT(*) FROM AnonRecordTable"), 5);
    assert_eq!(q("SELECT COUNT(*) FROM Attribute"), 3);
    assert_eq!(q("PRAGMA user_version"), anonbox::store::schema_version());
    // Every record points at a class; the classes cover the records.
    assert_eq!(
        q("SELECT COUNT(*) FROM AnonRecordTable r JOIN EquivalenceTable e USING (EquivalenceID)"),
        5
    );
    assert_eq!(q("SELECT SUM(Size) FROM EquivalenceTable"), 5);
    let (method, config): (String, String) = conn
        .query_row("SELECT Method, ConfigText FROM Run", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(method, "Datafly");
    assert!(config.contains("<vgh value='[0:100)'>"));
    let label: String = conn
        .query_row(
            "SELECT att0 FROM AnonymizedView WHERE RecordID = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let original: String = conn
        .query_row("SELECT att3 FROM RecordView WHERE RecordID = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(original, "7.0");
    let out = std::fs::read_to_string(d.path("out.csv")).unwrap();
    assert!(out.starts_with(&format!("{label},")), "{out}");
    drop(conn);

    // A newer schema is refused before the input is read (exit 2), and the file is left alone.
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", 999).unwrap();
    drop(conn);
    let a = d
        .cmd(&["-config", "c.xml", "-db", "work.db"])
        .assert()
        .code(2);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("written by a newer anonbox"), "{stderr}");

    // A file that is not an anonbox database is not touched.
    d.write("other.db", "not a database at all, but precious");
    let a = d
        .cmd(&["-config", "c.xml", "-db", "other.db"])
        .assert()
        .code(2);
    let stderr = String::from_utf8(a.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("other.db"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(d.path("other.db")).unwrap(),
        "not a database at all, but precious"
    );
}

#[test]
fn output_stays_untouched_when_the_run_fails() {
    let d = Dir::new();
    d.write("c.xml", vgh_config(",", false, ""));
    d.write("in.csv", "30,F,1,a\n31,F,2,b\n999,M,3,c\n");
    d.write("out.csv", "previous output");
    d.cmd(&["-config", "c.xml"]).assert().code(1);
    assert_eq!(
        std::fs::read_to_string(d.path("out.csv")).unwrap(),
        "previous output"
    );
    assert_eq!(d.files(), ["c.xml", "in.csv", "out.csv"]);
}

/// The in-memory loader and the store loader see the same rows and codes.
#[test]
fn in_memory_loader_agrees_with_the_store() {
    let config = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/adult.xml");
    let args = match anonbox::cli::parse_args(["-config", config.to_str().unwrap()]).unwrap() {
        anonbox::cli::Command::Run(r) => *r,
        other => panic!("{other:?}"),
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
    let (table, encoding, summary) = crate::common::load_table(&job).unwrap();
    assert_eq!(table.rows(), 30162);
    assert_eq!(summary.records(), 30162);

    let mut store = anonbox::store::Store::open_in_memory().unwrap();
    store.record_run(&job.run_record()).unwrap();
    let loaded = store.load(&job.source().unwrap(), &mut ()).unwrap();
    assert_eq!(loaded.tuples, 19502);
    let cols = store.layout().qids.join(", ");
    let rows = store
        .debug_query(&format!(
            "SELECT {cols} FROM AnonRecordTable ORDER BY RecordID"
        ))
        .unwrap();
    for (r, row) in rows.iter().enumerate() {
        for (q, code) in table.row(r).enumerate() {
            assert_eq!(
                row[q],
                rusqlite::types::Value::Integer(code as i64),
                "row {r} qid {q}"
            );
        }
    }
    assert_eq!(rows.len(), table.rows());
    for (a, b) in encoding.qids.iter().zip(&loaded.encoding.qids) {
        assert_eq!(a.dictionary.values(), b.dictionary.values());
        assert_eq!(a.hierarchy, b.hierarchy);
    }
    // Hierarchy-file dictionaries follow the file's order.
    let age = &encoding.qids[1];
    assert_eq!(age.dictionary.value(0), "1");
    assert_eq!(age.suppressed, "*");
}

/// The census sample's VGH hierarchies, built from the data's points.
#[test]
fn vgh_hierarchies_from_points() {
    let cfg = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/census-income-1k.xml");
    let args = match anonbox::cli::parse_args(["-config", cfg.to_str().unwrap()]).unwrap() {
        anonbox::cli::Command::Run(r) => *r,
        other => panic!("{other:?}"),
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
    let (table, enc, _) = crate::common::load_table(&job).unwrap();
    assert_eq!(table.rows(), 463);
    let sex = &enc.qids[0];
    assert_eq!(sex.dictionary.values().to_vec(), ["[1.0]", "[0.0]"]);
    assert_eq!(sex.hierarchy.levels(), 2);
    assert_eq!(sex.suppressed, "[0:1]");
    let age = &enc.qids[1];
    assert_eq!(age.hierarchy.levels(), 4);
    let c = age.dictionary.code("[58.0]").unwrap();
    let h = &age.hierarchy;
    let path: Vec<&str> = (0..4).map(|l| h.label(l, h.get(c, l))).collect();
    assert_eq!(path, ["[58.0]", "[50:75)", "[50:100)", "[0:100)"]);
    assert_eq!(age.suppressed, "[0:100)");
}

/// kcheck on a Datafly run over a generated input with many small groups (suppression happens).
#[test]
fn datafly_on_generated_input_is_k_anonymous() {
    let d = Dir::new();
    d.write("c.xml", vgh_config(",", false, ""));
    let mut input = String::new();
    let mut x: u64 = 7;
    for i in 0..2000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let age = (x >> 33) % 100;
        let sex = if (x >> 20) & 1 == 0 { "F" } else { "M" };
        input.push_str(&format!("{age},{sex},{i},n{i}\n"));
    }
    d.write("in.csv", &input);
    for (k, t) in [(3usize, "3"), (40, "60"), (200, "250")] {
        d.cmd(&[
            "-config",
            "c.xml",
            "-k",
            &k.to_string(),
            "-suppThreshold",
            t,
        ])
        .assert()
        .success();
        let found = kcheck::check(
            &d.path("out.csv"),
            &Spec {
                separator: ",",
                header: false,
                qid_columns: &[0, 1],
                top: &["[0:100)", "[0:1]"],
                k,
                max_suppressed: t.parse().unwrap(),
                full_domain: true,
            },
        )
        .unwrap();
        assert_eq!(found.rows, 2000);
    }
}

/// Counting tuples in a tiny memory budget (spilling partial counts to SQL) gives the same
/// `QidTuple` as counting them all in memory.
#[test]
fn tuple_counts_spill_in_bounded_memory() {
    let config = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/adult.xml");
    let args = match anonbox::cli::parse_args(["-config", config.to_str().unwrap()]).unwrap() {
        anonbox::cli::Command::Run(r) => *r,
        other => panic!("{other:?}"),
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
    let tuples = |memory: Option<usize>| -> Vec<Vec<i64>> {
        let mut store = anonbox::store::Store::open_in_memory().unwrap();
        if let Some(m) = memory {
            store.set_tuple_memory(m);
        }
        store.record_run(&job.run_record()).unwrap();
        store.load(&job.source().unwrap(), &mut ()).unwrap();
        let mut rows = Vec::new();
        store
            .for_each_tuple_in_key_order(|codes, count, first| {
                let row = codes.iter().map(|&c| c as i64);
                rows.push(row.chain([count as i64, first as i64]).collect());
                Ok(())
            })
            .unwrap();
        rows
    };
    let in_memory = tuples(None);
    assert_eq!(in_memory.len(), 19502);
    assert_eq!(in_memory.iter().map(|r| r[9]).sum::<i64>(), 30162);
    // ~1,000 entries at a time: about 30 spills.
    let spilled = tuples(Some(100_000));
    assert_eq!(spilled, in_memory);
}

/// The store's label paths (tuple -> class in memory, a hash join in passes, and for full-domain
/// results generalized codes) write the same
/// genVals, for VGH and hierarchy-file configs, with and without suppression; Datafly in memory
/// and in SQL give the same result.
#[test]
fn label_paths_write_identical_output() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    for (config, flags) in [
        ("configs/census-income-1k.xml", vec!["-k", "10"]),
        (
            "configs/adult.xml",
            vec!["-k", "10", "-suppThreshold", "1500"],
        ),
    ] {
        let cfg = root.join(config);
        let out = dir.path().join("unused.out");
        let mut list = vec![
            "-config",
            cfg.to_str().unwrap(),
            "-output",
            out.to_str().unwrap(),
        ];
        list.extend(flags);
        let args = match anonbox::cli::parse_args(list).unwrap() {
            anonbox::cli::Command::Run(r) => *r,
            other => panic!("{other:?}"),
        };
        let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
        let progress = anonbox::progress::Progress::hidden();
        let mut outputs = Vec::new();
        for backend in [Backend::Memory, Backend::Sql] {
            let mut store = anonbox::store::Store::open_temporary().unwrap();
            store.record_run(&job.run_record()).unwrap();
            let loaded = store.load(&job.source().unwrap(), &mut ()).unwrap();
            let records = loaded.summary.records();
            let mut outcome = anonbox::algorithms::datafly::run(
                &store,
                &job.datafly(),
                &loaded.encoding,
                records,
                &mut (),
                backend,
            )
            .unwrap();
            store.check_classes(records).unwrap();
            assert!(outcome.suppressed_records > 0, "{config}: {outcome:?}");
            let anonbox::algorithms::Details::Datafly { backend: name, .. } = &mut outcome.details
            else {
                panic!("{outcome:?}")
            };
            assert_eq!(*name == "memory", backend == Backend::Memory);
            // The backends may differ only there.
            *name = "";

            let write = |store: &anonbox::store::Store, name: &str, in_memory: bool| -> Vec<u8> {
                let mut labels = store.labels();
                assert_eq!(labels.in_memory().unwrap(), in_memory);
                let target = dir.path().join(name);
                let out = Publication::default();
                anonbox::output::genvals::write(
                    &out,
                    &job,
                    &target,
                    records,
                    &mut labels,
                    &progress,
                )
                .unwrap();
                out.publish().unwrap();
                std::fs::read(target).unwrap()
            };
            let by_map = write(&store, "map.out", true);
            store.set_tuple_memory(0);
            let by_passes = write(&store, "passes.out", false);
            assert!(by_map == by_passes, "{config}: the label paths disagree");
            // Several passes of the join (the tuples split in parts by hash).
            store.set_label_pass_tuples(4000);
            let by_parts = write(&store, "parts.out", false);
            assert!(by_map == by_parts, "{config}: the label passes disagree");
            // By generalized codes (a full-domain result whose load kept no record's tuple).
            let levels = outcome.transformation.clone().unwrap();
            let hierarchies = loaded.encoding.qids.iter().map(|q| &q.hierarchy).collect();
            let mut labels = store.full_domain_labels(hierarchies, &levels);
            assert!(!labels.in_memory().unwrap());
            let target = dir.path().join("levels.out");
            let out = Publication::default();
            anonbox::output::genvals::write(&out, &job, &target, records, &mut labels, &progress)
                .unwrap();
            out.publish().unwrap();
            assert!(
                std::fs::read(target).unwrap() == by_map,
                "{config}: labels by levels disagree"
            );
            assert_eq!(
                by_map.iter().filter(|&&b| b == b'\n').count() as u64,
                records + u64::from(job.input.header)
            );
            outputs.push((outcome, by_map));
        }
        // Datafly in memory and in SQL: the same steps, classes and output (issue 14).
        assert_eq!(outputs[0], outputs[1], "{config}: the backends disagree");
    }
}

/// The in-memory runner writes what the store writes: Datafly's choice on the census sample
/// (age one level up, the 7 rows of classes under 10 suppressed), handed to `run_in_memory` as
/// levels and suppressed rows, reproduces the toolbox's k = 10 output byte for byte.
#[test]
fn in_memory_runner_writes_full_domain_results() {
    use anonbox::algorithms::FullDomainResult;
    use anonbox::cmd::run::run_in_memory;
    let census = common::data("census-income-1k");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("mem.data");
    let cfg = census.join("config.xml");
    let args = match anonbox::cli::parse_args([
        "-config",
        cfg.to_str().unwrap(),
        "-output",
        target.to_str().unwrap(),
    ])
    .unwrap()
    {
        anonbox::cli::Command::Run(r) => *r,
        other => panic!("{other:?}"),
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
    let levels = vec![0usize, 1];
    let out = Publication::default();
    let ran = run_in_memory(
        &job,
        &out,
        &anonbox::progress::Progress::hidden(),
        std::time::Instant::now(),
        |table, _, _| {
            let class = |r: usize| -> Vec<u32> {
                let row: Vec<u32> = table.row(r).collect();
                (0..2)
                    .map(|q| table.hierarchies[q].get(row[q], levels[q]))
                    .collect()
            };
            let mut sizes = std::collections::HashMap::new();
            for r in 0..table.rows() {
                *sizes.entry(class(r)).or_insert(0) += 1;
            }
            let suppressed: Vec<bool> = (0..table.rows()).map(|r| sizes[&class(r)] < 10).collect();
            let outcome = anonbox::algorithms::Outcome {
                transformation: Some(levels.clone()),
                suppressed_records: suppressed.iter().filter(|&&s| s).count() as u64,
                ..Default::default()
            };
            Ok((
                outcome,
                FullDomainResult {
                    levels: levels.clone(),
                    suppressed,
                },
            ))
        },
    )
    .unwrap();
    out.publish().unwrap();
    assert!(ran.store.is_none());
    assert_eq!(ran.report.suppressed_records, 7);
    assert_eq!(ran.report.records, 463);
    let want = std::fs::read(census.join("reference/Datafly_genVals_k10.data")).unwrap();
    assert!(std::fs::read(&target).unwrap() == want);
}

/// `check_classes` finds tuples whose class is missing, with the classes read by id into
/// memory; and `for_each_tuple` reports the suppressed tuples the classes say.
#[test]
fn check_classes_finds_a_tuple_without_its_class() {
    let cfg = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/adult.xml");
    let args = match anonbox::cli::parse_args([
        "-config",
        cfg.to_str().unwrap(),
        "-k",
        "10",
        "-suppThreshold",
        "1500",
    ])
    .unwrap()
    {
        anonbox::cli::Command::Run(r) => *r,
        other => panic!("{other:?}"),
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
    let mut store = anonbox::store::Store::open_temporary().unwrap();
    store.record_run(&job.run_record()).unwrap();
    let loaded = store.load(&job.source().unwrap(), &mut ()).unwrap();
    let records = loaded.summary.records();
    let outcome = anonbox::algorithms::datafly::run(
        &store,
        &job.datafly(),
        &loaded.encoding,
        records,
        &mut (),
        Backend::Memory,
    )
    .unwrap();
    store.check_classes(records).unwrap();
    let mut suppressed = 0u64;
    store
        .for_each_tuple(|_, n, s| suppressed += if s { n } else { 0 })
        .unwrap();
    assert_eq!(suppressed, outcome.suppressed_records);
    assert!(suppressed > 0);
    store
        .debug_exec(
            "UPDATE QidTuple SET EquivalenceID = 999999 WHERE EquivalenceID = \
             (SELECT MIN(EquivalenceID) FROM QidTuple)",
        )
        .unwrap();
    let err = store.check_classes(records).unwrap_err().to_string();
    assert!(err.contains("without a class"), "{err}");
}
