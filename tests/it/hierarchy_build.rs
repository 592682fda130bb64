//! `anonbox hierarchy KIND`: every builder's file passes an independent validator on generated
//! columns; ADULT's age against ARX's own hierarchy; dates against chrono; errors and exit
//! codes.
//!
//! The validator reads the written file with the csv crate only (no anonbox code) and demands
//! what an ARX hierarchy must be: every distinct value of the column (trimmed, as the
//! anonymizer reads it) on exactly one line, every line of the same width, monotonic (a label
//! at level i has one parent at level i + 1), and the last column a single value.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use chrono::{Datelike, NaiveDate};
use proptest::prelude::*;

use crate::common::{self, anonbox};

/// The rows of a hierarchy file, read independently.
fn read_rows(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .unwrap();
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// Checks the hierarchy rules; `Err` names the first violation.
pub fn validate(rows: &[Vec<String>], distinct: &BTreeSet<String>) -> Result<(), String> {
    let width = rows.first().ok_or("no rows")?.len();
    if width < 2 {
        return Err(format!(
            "{width} columns: a hierarchy needs a value and a top"
        ));
    }
    let mut seen = BTreeSet::new();
    for row in rows {
        if row.len() != width {
            return Err(format!(
                "row {row:?} has {} columns, not {width}",
                row.len()
            ));
        }
        if !seen.insert(row[0].clone()) {
            return Err(format!("value '{}' on two lines", row[0]));
        }
    }
    if &seen != distinct {
        return Err(format!(
            "values differ from the column's: missing {:?}, extra {:?}",
            distinct.difference(&seen).collect::<Vec<_>>(),
            seen.difference(distinct).collect::<Vec<_>>()
        ));
    }
    for level in 0..width - 1 {
        let mut parent: HashMap<&str, &str> = HashMap::new();
        for row in rows {
            let up = parent.entry(&row[level]).or_insert(&row[level + 1]);
            if *up != row[level + 1] {
                return Err(format!(
                    "not monotonic: '{}' at level {level} goes to '{}' and '{}'",
                    row[level],
                    up,
                    row[level + 1]
                ));
            }
        }
    }
    let tops: BTreeSet<&str> = rows.iter().map(|r| r[width - 1].as_str()).collect();
    if tops.len() != 1 {
        return Err(format!("last column has {} values", tops.len()));
    }
    Ok(())
}

/// Java's trim, as the anonymizer applies it to values.
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// A one-column CSV (header `col`), fields quoted where they hold `,`, `"` or a space.
fn csv_file(dir: &Path, values: &[String]) -> std::path::PathBuf {
    let mut text = String::from("col\n");
    for v in values {
        if v.contains([',', '"', ' ']) || v.is_empty() {
            text.push_str(&format!("\"{}\"\n", v.replace('"', "\"\"")));
        } else {
            text.push_str(&format!("{v}\n"));
        }
    }
    let path = dir.join("in.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// Builds with `kind` and `options` through the library (the same code as the command, with
/// no process per case), writes the file, and validates it.
fn build_and_validate(
    values: &[String],
    kind: &str,
    options: &[&str],
) -> Result<Vec<Vec<String>>, String> {
    let dir = tempfile::tempdir().unwrap();
    let input = csv_file(dir.path(), values);
    let output = dir.path().join("h.csv");
    let mut args: Vec<String> = [
        kind,
        "--input",
        input.to_str().unwrap(),
        "--header",
        "--column",
        "col",
        "--output",
        output.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(options.iter().map(|s| s.to_string()));
    let job = match anonbox::cmd::hierarchy::prepare(&args).map_err(|e| e.to_string())? {
        anonbox::cmd::hierarchy::Request::Build(p) => p,
        anonbox::cmd::hierarchy::Request::Help(_) => return Err("help".into()),
    };
    job.run().map_err(|e| format!("run: {e}"))?;
    let distinct: BTreeSet<String> = values.iter().map(|v| trim(v).to_string()).collect();
    let rows = read_rows(&output);
    validate(&rows, &distinct)?;
    Ok(rows)
}

/// Columns of one value, or of a few values repeated, from `value`.
fn column(value: impl Strategy<Value = String> + Clone) -> impl Strategy<Value = Vec<String>> {
    prop_oneof![
        (value.clone(), 1..5usize).prop_map(|(v, n)| vec![v; n]),
        prop::collection::vec(value, 1..40),
    ]
}

fn number() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        (-1000i64..1000).prop_map(|i| i.to_string()),
        any::<i64>().prop_map(|i| i.to_string()),
        Just(u64::MAX.to_string()),
        Just("-1000000000000000000000000000000".to_string()),
        (-10_000i64..10_000, 1u32..4).prop_map(|(m, s)| {
            let v = m as f64 / 10f64.powi(s as i32);
            format!("{v:.*}", s as usize)
        }),
    ]
}

/// Text with the separator, quotes, spaces, accents, and empty strings (no `?`: rows holding
/// one are skipped by design).
fn text() -> impl Strategy<Value = String> + Clone {
    prop_oneof!["[a-c0-9]{0,6}", "[ ,\"éa;*]{0,5}", Just(String::new())]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn intervals_widths_are_valid(values in column(number()), w in 1u32..50, m1 in 1u32..4,
                                  m2 in 1u32..4, start in -100i64..100) {
        let widths = format!("{w},{},{}", w * m1, w * m1 * m2);
        let start = start.to_string();
        build_and_validate(&values, "intervals",
            &["--widths", &widths, "--start", &start, "--bottom"]).unwrap();
    }

    #[test]
    fn intervals_decimal_widths_and_top_coding(values in column(number()), end in 1i64..500) {
        let end = end.to_string();
        build_and_validate(&values, "intervals", &["--widths", "0.25,0.5", "--start",
            "-1", "--bottom", "--end", &end, "--top",
            "--labels", "toolbox"]).unwrap();
    }

    #[test]
    fn intervals_quantiles_are_valid(values in column(number()), a in 1usize..12, b in 1usize..12) {
        let q = format!("{},{}", a.max(b), a.min(b));
        build_and_validate(&values, "intervals", &["--quantiles", &q]).unwrap();
    }

    /// Missing values (empty, a marker, a sentinel that reads as a number) stay themselves at
    /// every level up to `*`, among numbers cut by widths or quantiles, and among dates.
    #[test]
    fn missing_values_stay_apart(values in column(prop_oneof![
            3 => (0i64..200).prop_map(|i| i.to_string()),
            1 => prop_oneof![Just("NA"), Just("999"), Just("")].prop_map(String::from)]),
            quantiles in any::<bool>()) {
        let cut = if quantiles { ["--quantiles", "4,2"] } else { ["--widths", "10,20"] };
        let mut opts = cut.to_vec();
        opts.extend(["--missing", "keep", "--missing-values", "NA,999"]);
        let rows = build_and_validate(&values, "intervals", &opts).unwrap();
        let dates: Vec<String> = values.iter().map(|v| match v.parse::<i64>() {
            Ok(d) if d != 999 => format!("2001-01-01 +{d}"),
            _ => v.clone(),
        }).collect();
        let dates: Vec<String> = dates.iter().map(|d| match d.strip_prefix("2001-01-01 +") {
            Some(n) => (NaiveDate::from_ymd_opt(2001, 1, 1).unwrap()
                + chrono::Duration::days(n.parse::<i64>().unwrap() * 40)).to_string(),
            None => d.clone(),
        }).collect();
        let date_rows = build_and_validate(&dates, "dates",
            &["--format", "%Y-%m-%d", "--missing", "keep", "--missing-values", "NA,999"])
            .unwrap();
        for row in rows.iter().chain(&date_rows) {
            let missing = ["", "NA", "999"].contains(&row[0].as_str());
            let apart = row[1..row.len() - 1].iter().all(|l| *l == row[0]);
            prop_assert_eq!(missing, apart, "{:?}", row);
        }
    }

    #[test]
    fn mask_is_valid(values in column(text()), step in 1usize..4, left in any::<bool>(),
                     pad in any::<bool>(), most in 0usize..3) {
        let step = step.to_string();
        let most = most.to_string();
        let mut opts = vec!["--step", step.as_str()];
        if left { opts.extend(["--from", "left"]); }
        if pad { opts.extend(["--pad", "0"]); }
        if most != "0" { opts.extend(["--levels", most.as_str()]); }
        build_and_validate(&values, "mask", &opts).unwrap();
    }

    #[test]
    fn categories_are_valid(values in column(text()), n in 1usize..4) {
        let n = n.to_string();
        build_and_validate(&values, "categories", &["--frequency", &n]).unwrap();
        build_and_validate(&values, "categories", &[]).unwrap();
    }

    #[test]
    fn dates_are_valid(days in prop::collection::vec(-40_000i64..40_000, 1..30),
                       fine in any::<bool>()) {
        let epoch = NaiveDate::from_ymd_opt(2000, 1, 1).unwrap();
        let values: Vec<String> = days.iter()
            .map(|&d| (epoch + chrono::Duration::days(d)).format("%d/%m/%Y").to_string())
            .collect();
        let levels = if fine { "day,week,month,quarter,year,decade" } else { "year" };
        build_and_validate(&values, "dates", &["--format", "%d/%m/%Y", "--levels", levels])
            .unwrap();
    }
}

#[test]
fn the_validator_catches_bad_hierarchies() {
    let rows = |v: &[&[&str]]| -> Vec<Vec<String>> {
        v.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    };
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let ok = rows(&[&["a", "x", "*"], &["b", "x", "*"]]);
    assert!(validate(&ok, &set(&["a", "b"])).is_ok());
    assert!(validate(&ok, &set(&["a"])).unwrap_err().contains("extra"));
    let bad = rows(&[&["a", "x", "1"], &["b", "x", "2"]]);
    assert!(validate(&bad, &set(&["a", "b"]))
        .unwrap_err()
        .contains("not monotonic"));
    let bad = rows(&[&["a", "x"], &["b", "x", "*"]]);
    assert!(validate(&bad, &set(&["a", "b"])).is_err());
    let bad = rows(&[&["a", "*"], &["a", "*"]]);
    assert!(validate(&bad, &set(&["a"]))
        .unwrap_err()
        .contains("two lines"));
}

/// ADULT's age with widths 5, 10, 20 against `adult_hierarchy_age.csv` (ARX's, in
/// tests/data/adult/). ARX's file groups 21..25 under `20-24`, 1..20 under `0-19`: its groups
/// are the intervals ]20, 25], ]0, 20], i.e. our grid anchored at 1, `[21, 26[` and `[1, 21[`.
/// With `--start 1` levels 1, 2 and 3 correspond group for group (ARX's label `a-b` is our
/// `[a+1, b+2[`), and our level 4 is ARX's level 4, `*`. ARX's file lists 1..100; only the 72
/// ages of the data are compared.
#[test]
fn adult_age_matches_arx_levels() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("age.csv");
    let adult = common::data("adult/adult.csv");
    let o = anonbox(
        dir.path(),
        &[
            "hierarchy",
            "intervals",
            "--input",
            adult.to_str().unwrap(),
            "--separator",
            ";",
            "--header",
            "--column",
            "age",
            "--widths",
            "5,10,20",
            "--start",
            "1",
            "--output",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ours = read_rows(&out);
    let arx: HashMap<String, Vec<String>> =
        read_rows(&common::data("adult/adult_hierarchy_age.csv"))
            .into_iter()
            .map(|r| (r[0].clone(), r))
            .collect();
    assert_eq!(ours.len(), 72);
    let as_arx = |label: &str| -> String {
        // "[21, 26[" -> "20-24"
        let inner = label.trim_start_matches('[').trim_end_matches('[');
        let (lo, hi) = inner.split_once(", ").unwrap();
        let (lo, hi): (i64, i64) = (lo.parse().unwrap(), hi.parse().unwrap());
        format!("{}-{}", lo - 1, hi - 2)
    };
    for row in &ours {
        let theirs = &arx[&row[0]];
        assert_eq!(row.len(), 5);
        for level in 1..=3 {
            assert_eq!(
                as_arx(&row[level]),
                theirs[level],
                "age {} level {level}",
                row[0]
            );
        }
        assert_eq!(row[4], theirs[4]);
    }
    let distinct: BTreeSet<String> = ours.iter().map(|r| r[0].clone()).collect();
    validate(&ours, &distinct).unwrap();
}

/// Dates in three formats, levels month, year and decade, against chrono in the test.
#[test]
fn dates_round_trip_in_three_formats() {
    let dates: Vec<NaiveDate> = [(1969, 12, 31), (1970, 1, 1), (2000, 2, 29), (2024, 11, 25)]
        .iter()
        .map(|&(y, m, d)| NaiveDate::from_ymd_opt(y, m, d).unwrap())
        .collect();
    for format in ["%Y-%m-%d", "%d.%m.%Y", "%b %d, %Y"] {
        let dir = tempfile::tempdir().unwrap();
        let values: Vec<String> = dates.iter().map(|d| d.format(format).to_string()).collect();
        let input = csv_file(dir.path(), &values);
        let out = dir.path().join("d.csv");
        let o = anonbox(
            dir.path(),
            &[
                "hierarchy",
                "dates",
                "--input",
                input.to_str().unwrap(),
                "--header",
                "--column",
                "0",
                "--format",
                format,
                "--levels",
                "month,year,decade",
                "--output",
                out.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let rows: HashMap<String, Vec<String>> = read_rows(&out)
            .into_iter()
            .map(|r| (r[0].clone(), r))
            .collect();
        for d in &dates {
            let row = &rows[&d.format(format).to_string()];
            let decade = d.year().div_euclid(10) * 10;
            assert_eq!(
                row[1..],
                [
                    format!("{:04}-{:02}", d.year(), d.month()),
                    format!("{:04}", d.year()),
                    format!("{decade:04}-{:04}", decade + 9),
                    "*".to_string()
                ],
                "{format}"
            );
        }
    }
}

#[test]
fn errors_name_file_line_and_column_with_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, b"id,age\n1,34\n2,x\n3,\xff\n").unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "hierarchy",
            "intervals",
            "--input",
            "in.csv",
            "--header",
            "--output",
            "h.csv",
        ];
        args.extend(extra);
        let o = anonbox(dir.path(), &args);
        (
            o.status.code().unwrap(),
            String::from_utf8_lossy(&o.stderr).trim().to_string(),
        )
    };
    let (code, err) = run(&["--column", "age", "--widths", "5"]);
    assert_eq!(
        (code, err.as_str()),
        (1, "anonbox: in.csv:3: age: 'x' is not a number")
    );
    assert!(
        !dir.path().join("h.csv").exists(),
        "nothing written on a failed run"
    );
    let (code, err) = run(&["--column", "id", "--widths", "5,7"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--widths: 7 is not a whole multiple of 5"),
        "{err}"
    );
    let (code, err) = run(&["--column", "height", "--widths", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("no column named 'height'"), "{err}");
    let (code, err) = run(&["--column", "id", "--step", "2", "--widths", "5"]);
    assert_eq!(code, 2);
    assert!(err.contains("takes no flag '--step'"), "{err}");
    let (code, err) = run(&["--column", "id"]);
    assert_eq!(code, 2);
    assert!(err.contains("need widths"), "{err}");

    // Non-UTF-8 bytes: a clear data error at their line.
    let o = anonbox(
        dir.path(),
        &[
            "hierarchy",
            "mask",
            "--input",
            "in.csv",
            "--header",
            "--column",
            "age",
            "--output",
            "h.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("anonbox: in.csv:4: age: value '") && err.contains("is not valid UTF-8"),
        "{err}"
    );
    // The output may not be the input.
    let o = anonbox(
        dir.path(),
        &[
            "hierarchy",
            "mask",
            "--input",
            "in.csv",
            "--column",
            "0",
            "--output",
            "in.csv",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        std::fs::read(&input).unwrap(),
        b"id,age\n1,34\n2,x\n3,\xff\n"
    );
}

#[test]
fn categories_mapping_file_covers_the_data() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("in.csv"),
        "city\nParis\nOslo\nParis\nRome\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("map.csv"),
        "Paris;FR;EU\nOslo;NO;EU\nLyon;FR;EU\n",
    )
    .unwrap();
    let args = [
        "hierarchy",
        "categories",
        "--input",
        "in.csv",
        "--header",
        "--column",
        "city",
        "--map",
        "map.csv",
        "--output",
        "h.csv",
    ];
    let o = anonbox(dir.path(), &args);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("in.csv:5: city: value 'Rome' is not in the mapping file map.csv"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("map.csv"),
        "Paris;FR;EU\nOslo;NO;EU\nRome;IT;EU\n",
    )
    .unwrap();
    let o = anonbox(dir.path(), &args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = read_rows(&dir.path().join("h.csv"));
    assert_eq!(
        rows,
        [
            ["Oslo", "NO", "EU", "*"],
            ["Paris", "FR", "EU", "*"],
            ["Rome", "IT", "EU", "*"]
        ]
    );
    let distinct = ["Oslo", "Paris", "Rome"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    validate(&rows, &distinct).unwrap();
}

/// A config whose quasi-identifiers are built at load time by `<intervals/>`, `<mask/>`,
/// `<dates/>` and `<categories/>`.
fn builder_config(dir: &Path, age: &str) -> std::path::PathBuf {
    let mut data = String::from("name;age;zip;visit;sex\n");
    for i in 0..60 {
        data.push_str(&format!(
            "p{i};{};{:05};{}-{:02}-{:02};{}\n",
            18 + i % 47,
            81000 + i % 7 * 13,
            2001 + i % 9,
            1 + i % 12,
            1 + i % 28,
            ["f", "m"][i % 2]
        ));
    }
    std::fs::write(dir.join("d.csv"), data).unwrap();
    let config = format!(
        "<config method='Flash' k='5' suppression='0.05'>\n\
         <input filename='d.csv' separator=';' header='true'/>\n\
         <output filename='out.csv'/>\n\
         <id><att name='name'/></id>\n\
         <qid>\n\
         <att index='1' name='age'>{age}</att>\n\
         <att name='zip'><mask step='2'/></att>\n\
         <att name='visit'><dates format='%Y-%m-%d' levels='month,year'/></att>\n\
         <att name='sex'><categories/></att>\n\
         </qid>\n</config>\n"
    );
    let path = dir.join("c.xml");
    std::fs::write(&path, config).unwrap();
    path
}

#[test]
fn config_builders_run_at_load_and_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    builder_config(dir.path(), "<intervals widths='5,10,20' start='0'/>");
    let o = anonbox(
        dir.path(),
        &[
            "-config", "c.xml", "-report", "r.json", "-db", "w.db", "-quiet",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    let built = report["built_hierarchies"].as_array().unwrap();
    assert_eq!(built.len(), 4);
    let data = std::fs::read_to_string(dir.path().join("d.csv")).unwrap();
    // The rows, from the kept database (the report has none: they hold every raw value).
    let db = rusqlite::Connection::open(dir.path().join("w.db")).unwrap();
    let rows_of = |attribute: &str| -> Vec<Vec<String>> {
        let mut rows: std::collections::BTreeMap<i64, Vec<String>> = Default::default();
        let mut q = db
            .prepare(
                "SELECT Code, Value, Level, Label FROM HierarchyView WHERE Attribute = ?1 \
                 ORDER BY Code, Level",
            )
            .unwrap();
        let mut it = q.query([attribute]).unwrap();
        while let Some(r) = it.next().unwrap() {
            let row = rows.entry(r.get(0).unwrap()).or_default();
            if row.is_empty() {
                row.push(r.get(1).unwrap());
            }
            let level: usize = r.get(2).unwrap();
            assert_eq!(row.len(), level + 1, "{attribute}: levels in order");
            row.push(r.get(3).unwrap());
        }
        rows.into_values().collect()
    };
    let from_db: Vec<Vec<Vec<String>>> = built
        .iter()
        .map(|b| rows_of(b["attribute"].as_str().unwrap()))
        .collect();
    for ((b, column), rows) in built.iter().zip([1usize, 2, 3, 4]).zip(&from_db) {
        // HierarchyView's level 0 is the value's own label: drop the copy.
        let rows: Vec<Vec<String>> = rows.iter().map(|r| r[1..].to_vec()).collect();
        let distinct: BTreeSet<String> = data
            .lines()
            .skip(1)
            .map(|l| l.split(';').nth(column).unwrap().to_string())
            .collect();
        validate(&rows, &distinct).unwrap_or_else(|e| panic!("{}: {e}", b["attribute"]));
        // The report gives the shape only: distinct values per level, no value.
        let widths: Vec<usize> = (0..rows[0].len())
            .map(|l| rows.iter().map(|r| &r[l]).collect::<BTreeSet<_>>().len())
            .collect();
        assert_eq!(b["widths"], serde_json::json!(widths), "{}", b["attribute"]);
        assert!(b.get("rows").is_none());
    }
    let text = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
    assert!(
        !text.contains("\"p17\"") && !text.contains("81013"),
        "raw values in the report"
    );
    assert_eq!(built[0]["builder"], "intervals widths=5,10,20 start=0");
    assert_eq!(
        built[2]["builder"],
        "dates format=%Y-%m-%d levels=month,year"
    );
    // The same builder as a command gives the same rows (the command sorts them).
    let o = anonbox(
        dir.path(),
        &[
            "hierarchy",
            "intervals",
            "--input",
            "d.csv",
            "--separator",
            ";",
            "--header",
            "--column",
            "age",
            "--widths",
            "5,10,20",
            "--output",
            "age.csv",
        ],
    );
    assert!(o.status.success());
    let from_command: BTreeSet<Vec<String>> =
        read_rows(&dir.path().join("age.csv")).into_iter().collect();
    let from_db: BTreeSet<Vec<String>> = from_db[0].iter().map(|r| r[1..].to_vec()).collect();
    assert_eq!(from_command, from_db);
    // The release is 5-anonymous over the four quasi-identifiers (name removed).
    let records = report["records"].as_u64().unwrap() as usize;
    crate::kcheck::check(
        &dir.path().join("out.csv"),
        &crate::kcheck::Spec {
            separator: ";",
            header: true,
            qid_columns: &[0, 1, 2, 3],
            top: &["*"; 4],
            k: 5,
            max_suppressed: records * 5 / 100,
            full_domain: true,
        },
    )
    .unwrap();
}

#[test]
fn config_builder_errors_are_config_errors_and_data_errors_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    // A bad builder attribute: exit 2, naming the config's element, though the data is bad too
    // (it is never read).
    builder_config(dir.path(), "<intervals widths='5,12'/>");
    let data = dir.path().join("d.csv");
    let mut text = std::fs::read_to_string(&data).unwrap();
    text.push_str("q;old;81000;2001-01-01;f\n");
    std::fs::write(&data, &text).unwrap();
    let o = anonbox(dir.path(), &["-config", "c.xml", "-quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("c.xml:6: <intervals>: widths: 12 is not a whole multiple of 5"),
        "{err}"
    );
    for bad in [
        "<intervals widths='5' color='red'/>",
        "<dates format='%Y'/>",
        "<mask from='middle'/>",
        "<categories map='missing.csv'/>",
        "<intervals widths='5'/><mask/>",
    ] {
        builder_config(dir.path(), bad);
        std::fs::write(&data, &text).unwrap();
        let o = anonbox(dir.path(), &["-config", "c.xml", "-quiet"]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
    // A good description and a non-number in the data: exit 1 at the line, nothing written.
    builder_config(dir.path(), "<intervals widths='5,10'/>");
    std::fs::write(&data, &text).unwrap();
    let o = anonbox(dir.path(), &["-config", "c.xml", "-quiet"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("d.csv:62: age: 'old' is not a number"),
        "{err}"
    );
    assert!(!dir.path().join("out.csv").exists());
    // Mondrian runs on builders too (Mondrian over hierarchies), and stops at the same bad line.
    builder_config(dir.path(), "<intervals widths='5,10'/>");
    let o = anonbox(dir.path(), &["-config", "c.xml", "-method", "Mondrian"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.path().join("out.csv").exists());
    std::fs::remove_file(dir.path().join("out.csv")).unwrap();
    std::fs::write(&data, &text).unwrap();
    let o = anonbox(dir.path(), &["-config", "c.xml", "-method", "Mondrian"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("d.csv:62: age: 'old' is not a number"));
    assert!(!dir.path().join("out.csv").exists());
}

#[test]
fn config_builders_are_stored_with_db() {
    let dir = tempfile::tempdir().unwrap();
    builder_config(dir.path(), "<intervals widths='5,10,20'/>");
    let o = anonbox(
        dir.path(),
        &[
            "-config", "c.xml", "-method", "Datafly", "-k", "5", "-db", "w.db", "-quiet",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let db = rusqlite::Connection::open(dir.path().join("w.db")).unwrap();
    let (source, file, levels): (String, String, i64) = db
        .query_row(
            "SELECT Source, HierarchyFile, Levels FROM Attribute WHERE Name = 'age'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        (source.as_str(), file.as_str(), levels),
        ("builder", "intervals widths=5,10,20", 5)
    );
    let label: String = db
        .query_row(
            "SELECT Label FROM HierarchyView WHERE Attribute = 'age' AND Value = '34' AND \
             Level = 3",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(label, "[20, 40[");
}

/// `mask` makes one level per `--step` characters: a hierarchy taller than the lattice allows
/// (255 levels) is refused in one line, as a flag error for `--length` and as a data error
/// naming the line for a value, and nothing is written (it allocated quadratically and aborted).
#[test]
fn mask_refuses_too_many_levels() {
    let dir = tempfile::tempdir().unwrap();
    let long = "9".repeat(100_000);
    std::fs::write(
        dir.path().join("z.csv"),
        format!("zip\n12345\n{long}\n123\n"),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "hierarchy",
            "mask",
            "--input",
            "z.csv",
            "--header",
            "--column",
            "zip",
            "--output",
            "zh.csv",
        ];
        args.extend(extra);
        let o = anonbox(dir.path(), &args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.len() < 400, "{err}");
        assert!(!dir.path().join("zh.csv").exists(), "nothing written");
        (o.status.code(), err)
    };
    let (code, err) = run(&["--pad", "0", "--length", "100000"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--length: 100000 characters") && err.contains("more than 255"),
        "{err}"
    );
    let (code, err) = run(&[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("anonbox: z.csv:3: zip: '999") && err.contains("more than 255"),
        "{err}"
    );
}

/// `--pad` never pads an empty value into a code (`0000*` would merge it with real codes):
/// it stays apart up to `*`, as without `--pad`.
#[test]
fn mask_pad_leaves_empty_values_apart() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("zip2.csv"), "z;k\n12345;a\n;b\n123;c\n").unwrap();
    let o = anonbox(
        dir.path(),
        &[
            "hierarchy",
            "mask",
            "--input",
            "zip2.csv",
            "--separator",
            ";",
            "--header",
            "--column",
            "z",
            "--pad",
            "0",
            "--output",
            "m6.csv",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = read_rows(&dir.path().join("m6.csv"));
    let empty = rows
        .iter()
        .find(|r| r[0].is_empty())
        .expect("the empty value");
    assert!(
        empty[1..empty.len() - 1].iter().all(String::is_empty),
        "{empty:?}"
    );
    let short = rows.iter().find(|r| r[0] == "123").unwrap();
    assert_eq!(short[1], "0012*");
    let distinct: BTreeSet<String> = ["12345", "", "123"].map(String::from).into();
    validate(&rows, &distinct).unwrap();
}

/// The summary `anonbox hierarchy` prints quotes the column's name: a name of hundreds of
/// characters, or with a tab, is cut and escaped as in error messages.
#[test]
fn the_summary_is_one_short_line() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("a\t{}", "n".repeat(300));
    std::fs::write(dir.path().join("in.csv"), format!("{name}\nx\ny\n")).unwrap();
    let o = anonbox(
        dir.path(),
        &[
            "hierarchy",
            "categories",
            "--input",
            "in.csv",
            "--header",
            "--column",
            "0",
            "--output",
            "h.csv",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("'a\\tnnn") && err.contains("(302 characters)'"),
        "{err}"
    );
}
