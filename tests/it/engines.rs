//! The engines (`-engine embedded`, `-engine datafusion`): ARX's optimum from Parquet on
//! DataFusion; the same frequency set, transformation and released rows as the embedded engine
//! (row for row: both keep input order) on hierarchy files, VGHs, a category map and hierarchy
//! builders, from CSV, Parquet and a data set folder, with Flash, Datafly and Mondrian (the
//! toolbox's and over hierarchies); the embedded engine's first-appearance
//! codes do not change its result (a shuffled input gives the same release, as a multiset);
//! a frequency set spilled under `-memoryLimit` equals the one in memory, and its private folder
//! is gone after the run and after SIGTERM; what cannot run on DataFusion is refused (exit 2).
//! Every release written here is re-checked by the independent checker.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use anonbox::cli::RunArgs;

use crate::columnar::{
    adult_rows, arx_k5_rows, assert_matches_arx, config, read_release, recheck, write_csv,
    write_parquet,
};
use crate::common::{self, anonbox};
use crate::kcheck;

/// Runs anonbox in `dir` with `args` and a JSON report; returns the report.
pub fn run_ok(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["-quiet", "-report", "report.json"];
    all.extend_from_slice(args);
    let out = anonbox(dir, &all);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(dir.join("report.json")).unwrap()).unwrap()
}

/// The data rows of a delimited release.
pub fn csv_rows(path: &Path, separator: &str, header: bool) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(usize::from(header))
        .map(|l| l.split(separator).map(str::to_string).collect())
        .collect()
}

/// Re-checks ADULT release rows (quasi-identifiers in columns 0-8) with the independent
/// checker: k-anonymous, at most `budget` suppressed; returns what it found.
/// The golden ARX rows of k = 5 with the input as Parquet on DataFusion: ARX's information
/// loss (and its transformation's figures where it is the same one); the report names the
/// engine; the release passes the independent checker.
#[test]
fn datafusion_on_parquet_gives_arx_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("adult.parquet");
    write_parquet(&input, &adult_rows(), 4096);
    let cfg = config(dir.path(), &input, "", "out.parquet");
    for (row, s, metric) in arx_k5_rows() {
        let r = run_ok(
            dir.path(),
            &[
                "-config",
                cfg.to_str().unwrap(),
                "-engine",
                "datafusion",
                "-threads",
                "2",
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
        assert_eq!(r["engine"], "datafusion");
        assert_matches_arx(dir.path(), &row, &r, s);
    }
}

/// The same jobs on both engines: ADULT from CSV, from Parquet (row groups smaller than a
/// partition's share, two threads) and from a folder of three files, into CSV and Parquet, with
/// Flash and with Datafly (a store method): the same report figures and the same released
/// rows, row for row (both engines keep input order).
#[test]
fn datafusion_and_embedded_release_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = adult_rows();
    let csv = d.join("adult.csv");
    write_csv(&csv, &rows);
    let parquet = d.join("adult.parquet");
    write_parquet(&parquet, &rows, 3000);
    let folder = d.join("set");
    std::fs::create_dir_all(folder.join("part=1")).unwrap();
    write_parquet(&folder.join("a.parquet"), &rows[..10_000], 3000);
    write_parquet(&folder.join("b.parquet"), &rows[10_000..20_000], 3000);
    write_parquet(&folder.join("part=1/c.parquet"), &rows[20_000..], 3000);

    let read = |path: &Path| -> Vec<Vec<String>> {
        if path.extension().is_some_and(|e| e == "csv") {
            csv_rows(path, ";", true)
        } else {
            read_release(path).1
        }
    };
    let cases: [(&Path, &str, &str, &[&str]); 5] = [
        (
            &csv,
            "separator=\";\" header=\"true\"",
            "csv",
            &["-method", "Flash", "-suppression", "0.02"],
        ),
        (
            &parquet,
            "",
            "parquet",
            &["-method", "Flash", "-suppression", "0.02"],
        ),
        (
            &folder,
            "",
            "parquet",
            &[
                "-method",
                "Flash",
                "-suppression",
                "0.05",
                "-metric",
                "Loss",
            ],
        ),
        (
            &parquet,
            "",
            "csv",
            &["-method", "Flash", "-suppression", "0"],
        ),
        (
            &csv,
            "separator=\";\" header=\"true\"",
            "parquet",
            &["-method", "Datafly"],
        ),
    ];
    for (i, (input, attrs, ext, flags)) in cases.into_iter().enumerate() {
        let mut released = Vec::new();
        let mut reports = Vec::new();
        for engine in ["embedded", "datafusion"] {
            let out = format!("out-{i}-{engine}.{ext}");
            let cfg = config(d, input, attrs, &out);
            let mut args = vec![
                "-config",
                cfg.to_str().unwrap(),
                "-engine",
                engine,
                "-threads",
                "2",
                "-k",
                "5",
                "-separator",
                ";",
            ];
            args.extend_from_slice(flags);
            let r = run_ok(d, &args);
            assert_eq!(r["engine"], engine);
            let rows = read(&d.join(&out));
            let found = recheck(d, &rows, 5, rows.len());
            assert_eq!(r["suppressed_records"], found.suppressed as u64, "case {i}");
            released.push(rows);
            reports.push(r);
        }
        for key in [
            "transformation",
            "records",
            "rows_read",
            "rows_skipped",
            "suppressed_records",
            "equivalence_classes",
            "information_loss",
            "checked_transformations",
        ] {
            assert_eq!(reports[0][key], reports[1][key], "case {i}: {key}");
        }
        assert_eq!(released[0].len(), 30162, "case {i}");
        assert!(released[0] == released[1], "case {i}: the releases differ");
    }
}

/// A data set folder release (`-output DIR/`): the embedded engine writes one part, DataFusion
/// a part per partition of its plan (two threads: at least two parts, written in parallel);
/// the same rows as a multiset, k-anonymous by the independent checker, and nothing else in
/// the folder. A second release into the folder with fewer parts leaves exactly its own parts
/// (and a `_SUCCESS` marker another tool put there); a folder holding another file is refused
/// before the input is read (exit 2), the file untouched, and so is a report inside the folder.
#[test]
fn a_data_set_folder_release_is_the_same_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("adult.parquet");
    write_parquet(&input, &adult_rows(), 3000);
    let release = |engine: &str, out: &str| {
        let cfg = config(d, &input, "", out);
        let flags = [
            "-config",
            cfg.to_str().unwrap(),
            "-engine",
            engine,
            "-threads",
            "2",
            "-k",
            "5",
            "-suppression",
            "0.02",
        ];
        let r = run_ok(d, &flags);
        (r, read_release(&d.join(out)).1)
    };
    let (embedded, mut want) = release("embedded", "embedded/");
    assert_eq!(
        common::files_in(&d.join("embedded")),
        ["part-00000.parquet"]
    );
    let (datafusion, mut got) = release("datafusion", "datafusion/");
    let parts = common::files_in(&d.join("datafusion"));
    assert!(parts.len() >= 2, "one part a partition: {parts:?}");
    for (n, name) in parts.iter().enumerate() {
        assert_eq!(name, &format!("part-{n:05}.parquet"));
        let mode = std::fs::metadata(d.join("datafusion").join(name))
            .unwrap()
            .permissions();
        assert_eq!(
            std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
            0o600
        );
    }
    for key in [
        "transformation",
        "suppressed_records",
        "equivalence_classes",
    ] {
        assert_eq!(embedded[key], datafusion[key], "{key}");
    }
    assert_eq!(got.len(), 30_162);
    let found = recheck(d, &got, 5, (0.02f64 * 30162.0).floor() as usize);
    assert_eq!(datafusion["suppressed_records"], found.suppressed as u64);
    want.sort();
    got.sort();
    assert!(want == got, "the folders' rows differ");

    // Again into the DataFusion folder, with one part: the old parts go, the marker stays.
    std::fs::write(d.join("datafusion/_SUCCESS"), b"").unwrap();
    let (_, again) = release("embedded", "datafusion/");
    assert_eq!(
        common::files_in(&d.join("datafusion")),
        ["_SUCCESS", "part-00000.parquet"]
    );
    assert_eq!(again.len(), 30_162);

    // A folder with another file, and a report in the folder: refused, nothing touched.
    std::fs::write(d.join("embedded/notes.txt"), b"mine").unwrap();
    let before = std::fs::read(d.join("embedded/part-00000.parquet")).unwrap();
    let cfg = config(d, &input, "", "embedded/");
    for (engine, report) in [
        ("datafusion", "report.json"),
        ("embedded", "embedded/r.json"),
    ] {
        if engine == "embedded" {
            std::fs::remove_file(d.join("embedded/notes.txt")).unwrap();
        }
        let out = anonbox(
            d,
            &[
                "-quiet",
                "-config",
                cfg.to_str().unwrap(),
                "-engine",
                engine,
                "-k",
                "5",
                "-report",
                report,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{engine}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("anonbox:") && err.lines().count() == 1,
            "{err}"
        );
        assert!(
            err.contains(if engine == "datafusion" {
                "notes.txt"
            } else {
                "in the output folder"
            }),
            "{err}"
        );
    }
    assert_eq!(
        std::fs::read(d.join("embedded/part-00000.parquet")).unwrap(),
        before
    );
    assert_eq!(
        common::files_in(&d.join("datafusion")),
        ["_SUCCESS", "part-00000.parquet"]
    );
}

/// Delimited text without a quote is read in byte ranges on every core; a file whose quoted
/// values hold line breaks (most of its line breaks, so that a range boundary read as a record
/// boundary would cut a value) is read as one range. Either way DataFusion releases the
/// embedded engine's rows and suppresses as much. (Which scan is split: the engine's unit
/// test; a part a range on a cluster: `cluster.rs`.)
#[test]
fn delimited_text_is_read_in_ranges_unless_quoted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = adult_rows();
    let plain = d.join("plain.csv");
    write_csv(&plain, &rows);
    let quoted = d.join("quoted.csv");
    let mut text = common::ADULT_ATTRIBUTES.join(";") + ";row\n";
    for r in &rows {
        text += &format!("{};\"{}\n\n\n\n\n\n\n\n\n\"\n", r[..9].join(";"), r[9]);
    }
    std::fs::write(&quoted, text).unwrap();
    for input in [&plain, &quoted] {
        let release = |engine: &str, out: &str| {
            let cfg = config(d, input, "separator=\";\" header=\"true\"", out);
            let flags = ["-config", cfg.to_str().unwrap(), "-engine", engine];
            let r = run_ok(
                d,
                &[
                    &flags[..],
                    &["-threads", "4", "-k", "5", "-suppression", "0.02"],
                ]
                .concat(),
            );
            let mut got = read_release(&d.join(out)).1;
            got.sort();
            (r, got)
        };
        let (embedded, want) = release("embedded", "embedded/");
        let (datafusion, got) = release("datafusion", "datafusion/");
        assert_eq!(got.len(), 30_162);
        assert!(want == got, "{input:?}: the released rows differ");
        for key in ["transformation", "suppressed_records"] {
            assert_eq!(embedded[key], datafusion[key], "{input:?}: {key}");
        }
        // The checker reads the quasi-identifiers (the `row` values hold line breaks).
        let qids: Vec<Vec<String>> = got.iter().map(|r| r[..9].to_vec()).collect();
        let found = recheck(d, &qids, 5, (0.02f64 * 30162.0).floor() as usize);
        assert_eq!(datafusion["suppressed_records"], found.suppressed as u64);
    }
}

/// The toolbox's census sample (VGHs, a category map, `?` rows skipped, identifiers dropped,
/// a sensitive attribute with l-diversity) and hierarchy builders (`<intervals/>`, `<mask/>`,
/// `<categories/>`, codes in order of first appearance on the embedded engine): both engines
/// release the same rows; and the embedded engine on the input reversed (other codes, other
/// tuple numbers) releases the same rows as a multiset, so the order in which values are
/// numbered does not change the result.
#[test]
fn value_order_changes_no_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Census: VGH on sex (mapped) and age, income as sensitive.
    let census = common::data("census-income-1k/Input/census-income_1K.data");
    let text = std::fs::read_to_string(&census).unwrap();
    let reversed: String = text.lines().rev().map(|l| format!("{l}\n")).collect();
    std::fs::write(d.join("reversed.data"), reversed).unwrap();
    let census_cfg =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/census-income-1k.xml");
    let census_args = |input: &Path, out: &str, engine: &str| -> Vec<String> {
        [
            "-config",
            census_cfg.to_str().unwrap(),
            "-input",
            input.to_str().unwrap(),
            "-output",
            out,
            "-engine",
            engine,
            "-method",
            "Flash",
            "-k",
            "10",
            "-suppression",
            "0.05",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    // Builders: age by intervals, zip masked, sex as categories.
    write_people(d);
    let builders = |input: &str| {
        let xml = format!(
            "<config>\n<input filename='{input}' separator=';' header='true'/>\n\
             <id><att name='name'/></id>\n<qid>\n\
             <att name='age'><intervals widths='5,10,20' start='0'/></att>\n\
             <att name='zip'><mask step='1'/></att>\n\
             <att name='sex'><categories/></att>\n</qid>\n</config>\n"
        );
        let path = d.join(format!("{input}.xml"));
        std::fs::write(&path, xml).unwrap();
        path
    };
    let builder_args = |input: &str, out: &str, engine: &str| -> Vec<String> {
        let cfg = builders(input);
        [
            "-config",
            cfg.to_str().unwrap(),
            "-output",
            out,
            "-engine",
            engine,
            "-method",
            "Flash",
            "-k",
            "4",
            "-suppression",
            "0.03",
            "-metric",
            "Loss",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    type Args<'a> = Box<dyn Fn(&str, &str) -> Vec<String> + 'a>;
    // Name, the arguments of the input and of the reversed input, separator, header, the
    // quasi-identifiers' columns, their top labels, k.
    type Case<'a> = (
        &'a str,
        Args<'a>,
        Args<'a>,
        &'a str,
        bool,
        &'a [usize],
        &'a [&'a str],
        usize,
    );
    let cases: Vec<Case> = vec![
        (
            "census",
            Box::new(|out, engine| census_args(&census, out, engine)),
            Box::new(|out, engine| census_args(&d.join("reversed.data"), out, engine)),
            ",",
            false,
            &[10, 0],
            &["[0:1]", "[0:100)"],
            10,
        ),
        (
            "builders",
            Box::new(|out, engine| builder_args("b.csv", out, engine)),
            Box::new(|out, engine| builder_args("b-reversed.csv", out, engine)),
            ";",
            true,
            &[0, 1, 2],
            &["*", "*", "*"],
            4,
        ),
    ];
    for (name, straight, reversed, sep, header, qids, top, k) in &cases {
        let mut reports = Vec::new();
        let mut released = Vec::new();
        for (args, engine) in [
            (straight(&format!("{name}-e.out"), "embedded"), "embedded"),
            (
                straight(&format!("{name}-df.out"), "datafusion"),
                "datafusion",
            ),
            (reversed(&format!("{name}-r.out"), "embedded"), "embedded"),
        ] {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let r = run_ok(d, &args);
            assert_eq!(r["engine"], engine);
            let out = args[args.iter().position(|&a| a == "-output").unwrap() + 1];
            let path = d.join(out);
            let spec = kcheck::Spec {
                separator: sep,
                header: *header,
                qid_columns: qids,
                top,
                k: *k,
                max_suppressed: usize::MAX,
                full_domain: true,
            };
            let found = kcheck::check(&path, &spec).unwrap();
            assert_eq!(r["records"], found.rows as u64, "{name} {engine}");
            released.push(csv_rows(&path, sep, *header));
            reports.push(r);
        }
        for key in [
            "transformation",
            "records",
            "rows_skipped",
            "suppressed_records",
            "equivalence_classes",
            "information_loss",
        ] {
            assert_eq!(
                reports[0][key], reports[1][key],
                "{name}: {key} on datafusion"
            );
            assert_eq!(reports[0][key], reports[2][key], "{name}: {key} reversed");
        }
        assert!(
            released[0] == released[1],
            "{name}: the engines' releases differ"
        );
        let mut a = released[0].clone();
        let mut b = released[2].clone();
        a.sort();
        b.sort();
        assert!(a == b, "{name}: the reversed input's release differs");
    }
}

/// Builders that count records (equal-frequency bins of age, countries and races grouped by
/// their record counts) on ADULT, where most tuples stand for several records: DataFusion
/// counts each group's records, not its one row, so both engines build the same hierarchies,
/// find the same transformation and release the same rows, which pass the independent checker.
#[test]
fn record_counting_builders_are_the_same_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let csv = d.join("adult.csv");
    write_csv(&csv, &adult_rows());
    let education = common::data("adult/adult_hierarchy_education.csv");
    let xml = format!(
        "<config>\n<input filename='{}' separator=';' header='true'/>\n<qid>\n\
         <att name='sex'><categories/></att>\n\
         <att name='age'><intervals quantiles='8,4,2'/></att>\n\
         <att name='race'><categories frequency='1000'/></att>\n\
         <att name='education' hierarchy='{}'/>\n\
         <att name='native-country'><categories frequency='300'/></att>\n\
         </qid>\n</config>\n",
        csv.display(),
        education.display()
    );
    let cfg = d.join("counting.xml");
    std::fs::write(&cfg, xml).unwrap();
    let mut reports = Vec::new();
    let mut released = Vec::new();
    for engine in ["embedded", "datafusion"] {
        let out = format!("counting-{engine}.csv");
        let r = run_ok(
            d,
            &[
                "-config",
                cfg.to_str().unwrap(),
                "-output",
                &out,
                "-engine",
                engine,
                "-threads",
                "2",
                "-method",
                "Flash",
                "-k",
                "5",
                "-suppression",
                "0.01",
                "-metric",
                "Loss",
            ],
        );
        let spec = kcheck::Spec {
            separator: ";",
            header: true,
            qid_columns: &[0, 1, 2, 4, 5],
            top: &["*"; 5],
            k: 5,
            max_suppressed: 302,
            full_domain: true,
        };
        let found = kcheck::check(&d.join(&out), &spec).unwrap();
        assert_eq!(r["suppressed_records"], found.suppressed as u64, "{engine}");
        released.push(csv_rows(&d.join(&out), ";", true));
        reports.push(r);
    }
    for key in [
        "transformation",
        "suppressed_records",
        "equivalence_classes",
        "information_loss",
    ] {
        assert_eq!(reports[0][key], reports[1][key], "{key}");
    }
    assert!(released[0] == released[1], "the engines' releases differ");
}

/// Mondrian on DataFusion: the toolbox's (VGHs, k alone, census sample) and Mondrian over
/// hierarchies (ADULT's hierarchy files from Parquet, builders with node and set labels, the
/// builders' input reversed) release the embedded engine's rows, row for row, with the same
/// classes and loss; each release is k-anonymous by the independent checker.
#[test]
fn mondrian_releases_the_same_rows_on_both_engines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let census = common::data("census-income-1k/Input/census-income_1K.data");
    let census_cfg =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/census-income-1k.xml");
    let parquet = d.join("adult.parquet");
    write_parquet(&parquet, &adult_rows(), 3000);
    let adult_cfg = config(d, &parquet, "", "unused.parquet");
    write_people(d);
    for input in ["b.csv", "b-reversed.csv"] {
        let xml = format!(
            "<config>\n<input filename='{input}' separator=';' header='true'/>\n\
             <id><att name='name'/></id>\n<qid>\n\
             <att name='age'><intervals widths='5,10,20' start='0'/></att>\n\
             <att name='zip'><mask step='1'/></att>\n\
             <att name='sex'><categories/></att>\n</qid>\n</config>\n"
        );
        std::fs::write(d.join(format!("{input}.xml")), xml).unwrap();
    }
    let owned = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    // Name, arguments (beside -output and -engine), the output's extension, separator and
    // header, the quasi-identifiers' columns, k.
    type Case<'a> = (
        &'a str,
        Vec<String>,
        &'a str,
        &'a str,
        bool,
        Vec<usize>,
        usize,
    );
    let builders = |input: &str, labels: &str| -> Vec<String> {
        let cfg = d.join(format!("{input}.xml"));
        owned(&[
            "-config",
            cfg.to_str().unwrap(),
            "-method",
            "Mondrian",
            "-k",
            "4",
            "-labels",
            labels,
        ])
    };
    let cases: Vec<Case> = vec![
        (
            "census",
            owned(&[
                "-config",
                census_cfg.to_str().unwrap(),
                "-input",
                census.to_str().unwrap(),
                "-method",
                "Mondrian",
                "-k",
                "10",
            ]),
            "data",
            ",",
            false,
            vec![10, 0],
            10,
        ),
        (
            "adult",
            owned(&[
                "-config",
                adult_cfg.to_str().unwrap(),
                "-method",
                "Mondrian",
                "-k",
                "5",
            ]),
            "parquet",
            ";",
            true,
            (0..9).collect(),
            5,
        ),
        (
            "nodes",
            builders("b.csv", "nodes"),
            "csv",
            ";",
            true,
            vec![0, 1, 2],
            4,
        ),
        (
            "sets",
            builders("b.csv", "sets"),
            "csv",
            ";",
            true,
            vec![0, 1, 2],
            4,
        ),
        (
            "sets-reversed",
            builders("b-reversed.csv", "sets"),
            "csv",
            ";",
            true,
            vec![0, 1, 2],
            4,
        ),
    ];
    for (name, args, ext, sep, header, qids, k) in &cases {
        let mut reports = Vec::new();
        let mut released = Vec::new();
        for engine in ["embedded", "datafusion"] {
            let out = format!("{name}-{engine}.{ext}");
            let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
            all.extend(["-output", &out, "-engine", engine, "-threads", "2"]);
            let r = run_ok(d, &all);
            assert_eq!(r["engine"], engine);
            let path = d.join(&out);
            let rows = if *ext == "parquet" {
                read_release(&path).1
            } else {
                csv_rows(&path, sep, *header)
            };
            // The independent checker: every class of printed labels holds k records.
            let text = d.join(format!("{name}-{engine}.check"));
            let body: String = rows.iter().map(|r| r.join("\t") + "\n").collect();
            std::fs::write(&text, body).unwrap();
            let top = vec!["\u{0}"; qids.len()];
            let spec = kcheck::Spec {
                separator: "\t",
                header: false,
                qid_columns: qids,
                top: &top,
                k: *k,
                max_suppressed: 0,
                full_domain: false,
            };
            let found = kcheck::check(&text, &spec).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(r["records"], found.rows as u64, "{name} {engine}");
            assert_eq!(
                r["equivalence_classes"], found.classes as u64,
                "{name} {engine}"
            );
            released.push(rows);
            reports.push(r);
        }
        for key in [
            "records",
            "equivalence_classes",
            "information_loss",
            "method",
        ] {
            assert_eq!(reports[0][key], reports[1][key], "{name}: {key}");
        }
        assert!(
            released[0] == released[1],
            "{name}: the engines' releases differ"
        );
    }
}

/// Writes `b.csv`, 3,000 people (name; age; zip; sex; disease) for hierarchy builders, and
/// `b-reversed.csv`, the same rows in reverse order, into `d`.
fn write_people(d: &Path) {
    let mut data = String::from("name;age;zip;sex;disease\n");
    for i in 0..3000u64 {
        let x = i.wrapping_mul(2_654_435_761) % 1_000_003;
        data.push_str(&format!(
            "p{i};{};{:05};{};{}\n",
            17 + x % 70,
            81000 + x % 37 * 13,
            ["f", "m", "x"][(x % 3) as usize],
            ["flu", "cold", "ache", "none"][(x / 7 % 4) as usize]
        ));
    }
    std::fs::write(d.join("b.csv"), &data).unwrap();
    let mut lines: Vec<&str> = data.lines().collect();
    lines[1..].reverse();
    std::fs::write(d.join("b-reversed.csv"), lines.join("\n") + "\n").unwrap();
}

/// ADULT `copies` times over, each record's row number (its column 9) made unique across the
/// copies: with the row as a sensitive attribute ([`numbered_config`]) every group of the
/// frequency set is one record.
pub fn numbered_adult_rows(copies: usize) -> Vec<Vec<String>> {
    (0..copies)
        .flat_map(|c| {
            adult_rows().into_iter().map(move |mut r| {
                let n: usize = r[9].parse().unwrap();
                r[9] = (c * 100_000 + n).to_string();
                r
            })
        })
        .collect()
}

/// ADULT's config for `input` into `output` (in `d`) with the row number as a sensitive
/// attribute.
pub fn numbered_config(d: &Path, input: &Path, output: &str) -> std::path::PathBuf {
    let cfg = config(d, input, "", output);
    let xml = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("</qid>", "</qid>\n<sens><att name=\"row\"/></sens>");
    std::fs::write(&cfg, xml).unwrap();
    cfg
}

/// The distinct tuples of a table (their level-0 labels) with their record counts.
fn frequencies(table: &anonbox::data::EncodedTable) -> BTreeMap<Vec<String>, u64> {
    let mut counts = vec![0u64; table.tuples()];
    for &t in table.record_tuples() {
        counts[t as usize] += 1;
    }
    (0..table.tuples())
        .map(|t| {
            let labels = table
                .tuple(t)
                .zip(&table.hierarchies)
                .map(|(c, h)| h.label(0, c).to_string())
                .collect();
            (labels, counts[t])
        })
        .collect()
}

/// A memory limit below the frequency set's size: the group-by spills (bytes counted by the
/// plan), completes, and gives the embedded engine's frequency set; its spill folder is
/// private (0700) while the session lives and gone after. Then a whole run under the limit
/// releases the unlimited run's rows and leaves nothing in its temporary folder.
#[test]
fn a_spilled_frequency_set_is_the_same() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // ADULT four times over, with a row number among the attributes (as a sensitive number)
    // so that every group of the group-by is distinct: it is as large as the input.
    let rows = numbered_adult_rows(4);
    let input = d.join("big.parquet");
    write_parquet(&input, &rows, 8192);
    let cfg = numbered_config(d, &input, "out.parquet");
    let args = RunArgs {
        config: Some(cfg.clone()),
        threads: Some(2),
        quiet: true,
        ..RunArgs::default()
    };
    let job = anonbox::config::build_job(&args).unwrap();
    let (embedded, _, _) = common::load_table(&job).unwrap();
    let want = frequencies(&embedded);
    assert_eq!(want.values().sum::<u64>(), rows.len() as u64);

    let cleanup = anonbox::io::Cleanup::default();
    let mut runs = Vec::new();
    for limit in [None, Some(16 << 20)] {
        let params = anonbox::engine::datafusion::Params {
            threads: 2,
            memory_limit: limit,
            cluster: None,
        };
        let mut session = anonbox::engine::datafusion::Session::new(&params, &cleanup).unwrap();
        let spill = session.spill_dir().to_path_buf();
        let mode = std::fs::metadata(&spill).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        let (table, _, summary) = session
            .frequency_set(&job.source().unwrap(), &mut ())
            .unwrap();
        assert_eq!(summary.records(), rows.len() as u64);
        assert_eq!(frequencies(&table), want, "limit {limit:?}");
        runs.push(session.spilled_bytes());
        drop(session);
        assert!(!spill.exists(), "the spill folder outlived its session");
    }
    assert_eq!(runs[0], 0, "no limit, no spill");
    assert!(runs[1] > 0, "16 MiB should not hold {} groups", rows.len());

    // A whole run under the limit, its temporary folder watched.
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut released = Vec::new();
    for (out, limit) in [("free.parquet", None), ("spilled.parquet", Some("16M"))] {
        let mut args = vec![
            "-config",
            cfg.to_str().unwrap(),
            "-engine",
            "datafusion",
            "-threads",
            "2",
            "-method",
            "Flash",
            "-k",
            "5",
            "-suppression",
            "0.02",
            "-output",
            out,
            "-quiet",
        ];
        if let Some(l) = limit {
            args.extend(["-memoryLimit", l]);
        }
        let o = Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .current_dir(d)
            .env("TMPDIR", &tmp)
            .args(&args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(common::files_in(&tmp), Vec::<String>::new());
        let rows = read_release(&d.join(out)).1;
        let found = recheck(d, &rows, 5, rows.len() / 50);
        assert_eq!(found.rows, rows.len());
        released.push(rows);
    }
    assert!(
        released[0] == released[1],
        "the spilled run released other rows"
    );
}

/// Texts the reader reads as one value (`30` and ` 30 `, spaces trimmed) are two groups of
/// the group-by, and sort apart (` 30` before `31` before `30`): DataFusion's frequency set
/// still holds one tuple for them, with both groups' records, as the embedded engine's does.
/// Without such texts its tuples come sorted; both ways give the embedded engine's tuples.
#[test]
fn texts_read_as_one_value_are_one_tuple() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut with_spaces = String::from("age;sex;zip\n");
    let mut plain = with_spaces.clone();
    for i in 0..400u32 {
        let age = 20 + i % 17;
        let padded = if i % 3 == 0 {
            format!(" {age} ")
        } else {
            age.to_string()
        };
        let sex = ["f", "m", " f"][(i % 7 % 3) as usize];
        let zip = 81000 + i % 5;
        with_spaces.push_str(&format!("{padded};{sex};{zip}\n"));
        plain.push_str(&format!("{age};{};{zip}\n", sex.trim()));
    }
    for (name, data) in [("spaces", &with_spaces), ("plain", &plain)] {
        let input = d.join(format!("{name}.csv"));
        std::fs::write(&input, data).unwrap();
        let cfg = d.join(format!("{name}.xml"));
        std::fs::write(
            &cfg,
            format!(
                "<config>\n<input filename='{}' separator=';' header='true'/>\n<qid>\n\
                 <att name='age'><intervals widths='5,10' start='0'/></att>\n\
                 <att name='sex'><categories/></att>\n\
                 <att name='zip'><mask step='1'/></att>\n</qid>\n\
                 <output filename='{}'/>\n</config>\n",
                input.display(),
                d.join(format!("{name}.out")).display()
            ),
        )
        .unwrap();
        let args = RunArgs {
            config: Some(cfg),
            threads: Some(2),
            quiet: true,
            ..RunArgs::default()
        };
        let job = anonbox::config::build_job(&args).unwrap();
        let (embedded, _, _) = common::load_table(&job).unwrap();
        let cleanup = anonbox::io::Cleanup::default();
        let params = anonbox::engine::datafusion::Params {
            threads: 2,
            memory_limit: None,
            cluster: None,
        };
        let mut session = anonbox::engine::datafusion::Session::new(&params, &cleanup).unwrap();
        let (table, _, _) = session
            .frequency_set(&job.source().unwrap(), &mut ())
            .unwrap();
        assert_eq!(table.tuples(), embedded.tuples(), "{name}");
        assert_eq!(frequencies(&table), frequencies(&embedded), "{name}");
        assert_eq!(table.rows(), 400);
    }
}

/// SIGTERM while the spill folder holds the frequency set's work: the folder goes with the
/// run, and nothing is written.
#[test]
fn sigterm_removes_the_spill_folder() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let input = d.join("adult.parquet");
    write_parquet(&input, &adult_rows()[..5000], 1000);
    let cfg = config(d, &input, "", "out.parquet");
    let tmp = d.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(d)
        .env("TMPDIR", &tmp)
        .env("ANONBOX_TEST_ENGINE_DELAY_MS", "10000")
        .args([
            "-config",
            cfg.to_str().unwrap(),
            "-engine",
            "datafusion",
            "-quiet",
        ])
        .args(["-method", "Flash", "-k", "5"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), "anonbox: test: frequency set");
    let spill = common::files_in(&tmp);
    assert_eq!(spill.len(), 1, "{spill:?}");
    assert!(spill[0].starts_with("anonbox-spill-"), "{spill:?}");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(common::files_in(&tmp), Vec::<String>::new());
    assert!(!d.join("out.parquet").exists());
}

/// What cannot run on DataFusion is refused before the input is read (exit 2, one line naming
/// what to do): Mondrian's relaxed partitioning, Anatomy, MDAV, local recoding, cell
/// suppression, differential privacy, genValsDist, a Ballista address (not in this build, flag
/// or config), a bad memory limit.
#[test]
fn what_datafusion_cannot_run_is_a_config_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let adult = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/adult.xml");
    let adult = adult.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "-config",
                adult,
                "-engine",
                "datafusion",
                "-method",
                "Mondrian",
                "-partition",
                "relaxed",
            ],
            "relaxed partitioning",
        ),
        (
            &[
                "-config",
                adult,
                "-engine",
                "datafusion",
                "-method",
                "Anatomy",
            ],
            "Anatomy",
        ),
        (
            &[
                "-config",
                adult,
                "-engine",
                "datafusion",
                "-outputFormat",
                "genValsDist",
            ],
            "genValsDist",
        ),
        (
            &["-config", adult, "-engine", "datafusion", "-method", "MDAV"],
            "MDAV",
        ),
        (
            &[
                "-config",
                adult,
                "-engine",
                "datafusion",
                "-method",
                "Flash",
                "-suppression",
                "0.02",
                "-localRecoding",
            ],
            "local recoding",
        ),
        (
            &[
                "-config",
                adult,
                "-engine",
                "datafusion",
                "-method",
                "Flash",
                "-suppression",
                "0.02",
                "-suppress",
                "cells",
            ],
            "cell suppression",
        ),
        (
            // The cluster refuses what DataFusion does, before it is reached.
            &[
                "-config",
                adult,
                "-engine",
                "ballista://127.0.0.1:50050",
                "-method",
                "MDAV",
            ],
            "MDAV replaces each record's values",
        ),
        (
            &["-config", adult, "-engine", "ballista://nohost"],
            "ballista://HOST:PORT",
        ),
        (
            &["-config", adult, "-engine", "spark"],
            "accepted: embedded, datafusion",
        ),
        (
            &[
                "-config",
                adult,
                "-engine",
                "datafusion",
                "-memoryLimit",
                "lots",
            ],
            "-memoryLimit",
        ),
    ];
    for (args, said) in cases {
        let o = anonbox(d, &[&["-output", "o.csv"], *args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("anonbox:") && err.contains(said),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!d.join("o.csv").exists());
    }
    // The config's <engine>: an address without a port is refused at its line.
    let data = common::data("adult");
    let xml = std::fs::read_to_string(adult)
        .unwrap()
        .replace("../tests/data/adult", data.to_str().unwrap())
        .replace("<qid>", "<engine name='ballista://h'/>\n<qid>");
    let local = d.join("c.xml");
    std::fs::write(&local, &xml).unwrap();
    let o = anonbox(d, &["-config", local.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("c.xml") && err.contains("ballista://HOST:PORT"),
        "{err}"
    );
    // SafePub samples records: the sample is a set of rows.
    let xml = std::fs::read_to_string(adult)
        .unwrap()
        .replace("../tests/data/adult", data.to_str().unwrap())
        .replace(
            "</qid>",
            "</qid>\n<privacy><differential-privacy epsilon='2' delta='1e-5'/></privacy>",
        );
    std::fs::write(&local, &xml).unwrap();
    let o = anonbox(
        d,
        &[
            "-config",
            local.to_str().unwrap(),
            "-method",
            "Flash",
            "-engine",
            "datafusion",
            "-output",
            "o.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("differential privacy"), "{err}");
    assert!(!d.join("o.csv").exists());
}
