//! Columnar input and output (Parquet, data set folders, Arrow IPC): ADULT written as Parquet
//! gives ARX's optimum, the same release as the CSV (row for row, in input order), keeps the
//! other columns' types, and every release is re-checked by the independent checker; bad
//! columns are config errors (exit 2) and a corrupt file a data error (exit 1), with nothing
//! written.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow::array::{Array, ArrayRef, AsArray, Int64Array, RecordBatch, StringArray};
use arrow::datatypes::{DataType, Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

use crate::common::{self, ADULT_ATTRIBUTES};
use crate::kcheck;

/// ADULT's rows (the CSV's fields) with a `row` number column appended.
pub fn adult_rows() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(common::data("adult/adult.csv")).unwrap();
    text.lines()
        .skip(1)
        .enumerate()
        .map(|(i, l)| {
            let mut r: Vec<String> = l.split(';').map(str::to_string).collect();
            r.push(i.to_string());
            r
        })
        .collect()
}

/// The Arrow schema of [`adult_rows`]: `age` and `row` as Int64, the rest strings.
pub fn adult_schema() -> Arc<Schema> {
    let mut fields: Vec<Field> = ADULT_ATTRIBUTES
        .iter()
        .map(|&a| {
            let t = if a == "age" {
                DataType::Int64
            } else {
                DataType::Utf8
            };
            Field::new(a, t, false)
        })
        .collect();
    fields.push(Field::new("row", DataType::Int64, false));
    Arc::new(Schema::new(fields))
}

pub fn adult_batch(rows: &[Vec<String>]) -> RecordBatch {
    let schema = adult_schema();
    let cols: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(j, f)| -> ArrayRef {
            match f.data_type() {
                DataType::Int64 => Arc::new(Int64Array::from_iter_values(
                    rows.iter().map(|r| r[j].parse::<i64>().unwrap()),
                )),
                _ => Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r[j]))),
            }
        })
        .collect();
    RecordBatch::try_new(schema, cols).unwrap()
}

/// Writes `rows` as Parquet, in row groups of `group` rows.
pub fn write_parquet(path: &Path, rows: &[Vec<String>], group: usize) {
    let batch = adult_batch(rows);
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group))
        .build();
    let mut w = ArrowWriter::try_new(
        std::fs::File::create(path).unwrap(),
        batch.schema(),
        Some(props),
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// Writes `rows` as `;`-separated text with a header.
pub fn write_csv(path: &Path, rows: &[Vec<String>]) {
    let mut names: Vec<&str> = ADULT_ATTRIBUTES.to_vec();
    names.push("row");
    let mut text = names.join(";") + "\n";
    for r in rows {
        text.push_str(&r.join(";"));
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

/// A config over `input` with ADULT's nine quasi-identifiers named (no indexes), and `row`
/// kept as it is; `input_attrs` go on `<input>`.
pub fn config(dir: &Path, input: &Path, input_attrs: &str, output: &str) -> PathBuf {
    let qids: String = ADULT_ATTRIBUTES
        .iter()
        .map(|a| {
            format!(
                "<att name=\"{a}\" hierarchy=\"{}\"/>\n",
                common::data(&format!("adult/adult_hierarchy_{a}.csv")).display()
            )
        })
        .collect();
    let xml = format!(
        "<config>\n<input filename=\"{}\" {input_attrs}/>\n<output filename=\"{output}\"/>\n\
         <qid>\n{qids}</qid>\n</config>\n",
        input.display()
    );
    let path = dir.join("config.xml");
    std::fs::write(&path, xml).unwrap();
    path
}

/// Runs anonbox in `dir`; returns the output and the report.
pub fn run(dir: &Path, config: &Path, args: &[&str]) -> (std::process::Output, serde_json::Value) {
    let mut all = vec![
        "-config",
        config.to_str().unwrap(),
        "-quiet",
        "-report",
        "report.json",
    ];
    all.extend_from_slice(args);
    let out = common::anonbox(dir, &all);
    let report = std::fs::read(dir.join("report.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or(serde_json::Value::Null);
    (out, report)
}

/// The rows of a columnar release as text (quasi-identifiers' labels, other values as arrow
/// prints them), with its schema.
pub fn read_release(path: &Path) -> (Arc<Schema>, Vec<Vec<String>>) {
    let files: Vec<PathBuf> = if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
            .collect();
        v.sort();
        v
    } else {
        vec![path.to_path_buf()]
    };
    let mut rows = Vec::new();
    let mut schema = None;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let batches: Vec<RecordBatch> = if bytes.starts_with(b"ARROW1") {
            arrow::ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
                .unwrap()
                .map(Result::unwrap)
                .collect()
        } else {
            ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&f).unwrap())
                .unwrap()
                .build()
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        for b in batches {
            schema.get_or_insert(b.schema());
            let text: Vec<ArrayRef> = b
                .columns()
                .iter()
                .map(|c| arrow::compute::cast(c, &DataType::Utf8).unwrap())
                .collect();
            for i in 0..b.num_rows() {
                rows.push(
                    text.iter()
                        .map(|c| c.as_string::<i32>().value(i).to_string())
                        .collect(),
                );
            }
        }
    }
    (schema.expect("a batch"), rows)
}

pub fn csv_rows(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

/// Re-checks rows of a release with the independent checker (through a `;` file).
pub fn recheck(dir: &Path, rows: &[Vec<String>], k: usize, budget: usize) -> kcheck::Found {
    let path = dir.join("recheck.csv");
    let mut text = String::from("header\n");
    for r in rows {
        text.push_str(&r.join(";"));
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    let spec = kcheck::Spec {
        separator: ";",
        header: true,
        qid_columns: &[0, 1, 2, 3, 4, 5, 6, 7, 8],
        top: &["*"; 9],
        k,
        max_suppressed: budget,
        full_domain: true,
    };
    kcheck::check(&path, &spec).unwrap()
}

/// ARX's golden rows of ADULT with k = 5: each row, its suppression limit and its metric as
/// the `-metric` flag names it.
pub fn arx_k5_rows() -> Vec<(serde_json::Value, f64, String)> {
    let text =
        std::fs::read_to_string(common::data("reference/arx-adult-k-anonymity.json")).unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| r["k"] == 5)
        .map(|row| {
            let s = row["suppression_limit"].as_f64().unwrap();
            let metric = match row["metric"].as_str().unwrap() {
                "dmstar" => "DMStar",
                "loss" => "Loss",
                m => m,
            }
            .to_string();
            (row, s, metric)
        })
        .collect();
    assert!(rows.len() >= 3);
    rows
}

/// A run's report `r` and its release `dir/out.parquet` against ARX's `row` (suppression limit
/// `s`): ARX's information loss, its transformation's figures where it is the same one, and the
/// release re-checked by the independent checker (5-anonymous, within the budget, the report's
/// figures).
pub fn assert_matches_arx(dir: &Path, row: &serde_json::Value, r: &serde_json::Value, s: f64) {
    let want = row["information_loss"].as_f64().unwrap();
    let got = r["information_loss"].as_f64().unwrap();
    assert!(
        (got - want).abs() <= 1e-9 * want.abs(),
        "s={s} {}: {got} vs ARX {want}",
        row["metric"]
    );
    if r["transformation"] == row["transformation"] {
        assert_eq!(r["suppressed_records"], row["suppressed_records"]);
        assert_eq!(r["equivalence_classes"], row["equivalence_classes"]);
    }
    let (_, released) = read_release(&dir.join("out.parquet"));
    let budget = (s * 30162.0).floor() as usize;
    let found = recheck(dir, &released, 5, budget);
    assert_eq!(found.rows, 30162);
    assert_eq!(r["suppressed_records"], found.suppressed as u64);
    assert_eq!(r["equivalence_classes"], found.classes as u64);
}

/// The golden ARX rows of k = 5 from a Parquet file read by column name: ARX's information
/// loss (and transformation, suppressed records and classes where it is the same one), and
/// the release passes the independent checker.
#[test]
fn parquet_input_gives_arx_optimum() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("adult.parquet");
    write_parquet(&input, &adult_rows(), 10_000);
    let cfg = config(dir.path(), &input, "", "out.parquet");
    for (row, s, metric) in arx_k5_rows() {
        let (out, r) = run(
            dir.path(),
            &cfg,
            &[
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
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_matches_arx(dir.path(), &row, &r, s);
    }
}

/// The same job on the CSV and on the Parquet file (one file, and a folder of three): the same
/// transformation and the same rows in the same order; the release keeps `row` an Int64 and
/// writes the quasi-identifiers as dictionary-encoded strings.
#[test]
fn csv_and_parquet_releases_are_the_same_rows() {
    let dir = tempfile::tempdir().unwrap();
    let rows = adult_rows();
    let csv = dir.path().join("adult.csv");
    write_csv(&csv, &rows);
    let parquet = dir.path().join("adult.parquet");
    write_parquet(&parquet, &rows, 4096);
    let folder = dir.path().join("set");
    std::fs::create_dir_all(folder.join("part=1")).unwrap();
    write_parquet(&folder.join("a.parquet"), &rows[..10_000], 3000);
    write_parquet(&folder.join("b.parquet"), &rows[10_000..20_000], 3000);
    write_parquet(&folder.join("part=1/c.parquet"), &rows[20_000..], 3000);
    std::fs::write(folder.join("_SUCCESS"), "").unwrap();

    let flags = ["-method", "Flash", "-k", "5", "-suppression", "0.02"];
    let cfg = config(
        dir.path(),
        &csv,
        "separator=\";\" header=\"true\"",
        "out.csv",
    );
    let (out, csv_report) = run(dir.path(), &cfg, &flags);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let from_csv = csv_rows(&dir.path().join("out.csv"));
    assert_eq!(from_csv.len(), 30162);

    for (input, output) in [
        (&parquet, "out.parquet"),
        (&folder, "out2.parquet"),
        (&parquet, "out.arrow"),
    ] {
        let cfg = config(dir.path(), input, "", output);
        let (out, report) = run(dir.path(), &cfg, &flags);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(report["transformation"], csv_report["transformation"]);
        assert_eq!(
            report["suppressed_records"],
            csv_report["suppressed_records"]
        );
        let (schema, released) = read_release(&dir.path().join(output));
        assert_eq!(released, from_csv, "{output} from {}", input.display());
        assert_eq!(schema.field(9).data_type(), &DataType::Int64, "{output}");
        let qi = schema.field(1).data_type();
        if output.ends_with(".parquet") {
            assert!(matches!(qi, DataType::Dictionary(..)), "{qi}");
        } else {
            assert_eq!(qi, &DataType::Utf8);
        }
    }

    // Parquet in, CSV out: the same text.
    let cfg = config(dir.path(), &parquet, "", "back.csv");
    let (out, _) = run(
        dir.path(),
        &cfg,
        &[
            "-method",
            "Flash",
            "-k",
            "5",
            "-suppression",
            "0.02",
            "-separator",
            ";",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(csv_rows(&dir.path().join("back.csv")), from_csv);

    // A store method (Datafly) reads the Parquet file as the CSV, and writes Parquet.
    let cfg = config(dir.path(), &csv, "separator=\";\" header=\"true\"", "d.csv");
    let (out, _) = run(dir.path(), &cfg, &["-method", "Datafly", "-k", "5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cfg = config(dir.path(), &parquet, "", "d.parquet");
    let (out, _) = run(dir.path(), &cfg, &["-method", "Datafly", "-k", "5"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        read_release(&dir.path().join("d.parquet")).1,
        csv_rows(&dir.path().join("d.csv"))
    );
}

/// A column the config names that the file lacks, or of a nested type: exit 2 naming it,
/// before any scan; nothing written.
#[test]
fn missing_or_unusable_columns_are_config_errors() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("adult.parquet");
    write_parquet(&input, &adult_rows()[..100], 50);
    let cfg = config(dir.path(), &input, "", "out.parquet");
    let xml = std::fs::read_to_string(&cfg)
        .unwrap()
        .replace("name=\"race\"", "name=\"ethnicity\"");
    std::fs::write(&cfg, xml).unwrap();
    let out = common::anonbox(
        dir.path(),
        &[
            "-config",
            cfg.to_str().unwrap(),
            "-method",
            "Flash",
            "-k",
            "2",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no column named 'ethnicity'"), "{err}");
    assert!(!dir.path().join("out.parquet").exists());

    // A list column as a quasi-identifier.
    let list = dir.path().join("list.parquet");
    let values = arrow::array::ListArray::from_iter_primitive::<arrow::datatypes::Int32Type, _, _>(
        (0..10).map(|i| Some(vec![Some(i)])),
    );
    let schema = Arc::new(Schema::new(vec![Field::new(
        "codes",
        values.data_type().clone(),
        true,
    )]));
    let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(values)]).unwrap();
    let mut w = ArrowWriter::try_new(std::fs::File::create(&list).unwrap(), schema, None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let xml = format!(
        "<config><input filename=\"{}\"/><output filename=\"o.parquet\"/><qid><att name=\"codes\"><mask/></att></qid></config>",
        list.display()
    );
    std::fs::write(dir.path().join("list.xml"), xml).unwrap();
    let out = common::anonbox(
        dir.path(),
        &["-config", "list.xml", "-method", "Flash", "-k", "2"],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("column 'codes'") && err.contains("List"),
        "{err}"
    );
}

/// A corrupt Parquet file: exit 1 naming it, nothing published, no temporary file left; a
/// file whose footer is whole but a page damaged fails during the scan the same way.
#[test]
fn corrupt_parquet_is_a_data_error() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("adult.parquet");
    write_parquet(&input, &adult_rows()[..2000], 500);
    let cfg = config(dir.path(), &input, "", "out.parquet");
    let good = std::fs::read(&input).unwrap();

    // The footer cut off.
    std::fs::write(&input, &good[..good.len() / 2]).unwrap();
    let before = common::files_in(dir.path());
    let out = common::anonbox(
        dir.path(),
        &[
            "-config",
            cfg.to_str().unwrap(),
            "-method",
            "Flash",
            "-k",
            "2",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("adult.parquet") && err.contains("Parquet"),
        "{err}"
    );
    assert_eq!(common::files_in(dir.path()), before);

    // Data pages overwritten, the footer whole.
    let mut bad = good.clone();
    for b in &mut bad[100..good.len() / 2] {
        *b = 0xff;
    }
    std::fs::write(&input, &bad).unwrap();
    let out = common::anonbox(
        dir.path(),
        &[
            "-config",
            cfg.to_str().unwrap(),
            "-method",
            "Flash",
            "-k",
            "2",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(common::files_in(dir.path()), before);
}

/// The engine seam's two readings of a full-domain result agree: the suppressed classes taken
/// from the search's suppressed records and taken from the labels the writers print (what a
/// store method hands over) are the same, on ADULT with Flash (k=5, 2 %: some suppressed). And
/// a partition's labels read back as each distinct tuple's class with the class's labels.
#[test]
fn the_seam_reads_suppressed_classes_from_records_and_labels_alike() {
    use anonbox::engine::Rewrite;
    use anonbox::output::FullDomainLabels;
    let args = anonbox::cli::RunArgs {
        config: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/adult.xml")),
        method: Some(anonbox::job::Method::Flash),
        k: Some(5),
        suppression: Some(0.02),
        quiet: true,
        ..Default::default()
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
    let (table, encoding, _) = common::load_table(&job).unwrap();
    let (_, chosen) = anonbox::algorithms::run_lattice(&job.lattice(), &table, None).unwrap();
    let from_records = Rewrite::of_records(&table, &chosen.levels, &chosen.suppressed);
    let Rewrite::Levels { suppressed, .. } = &from_records else {
        panic!("a full-domain result is a transformation")
    };
    assert!(!suppressed.is_empty());
    let top: Vec<String> = encoding.qids.iter().map(|q| q.suppressed.clone()).collect();
    let mut labels = FullDomainLabels {
        table: &table,
        levels: &chosen.levels,
        suppressed: &chosen.suppressed,
        suppression_labels: &top,
    };
    let from_labels = Rewrite::of_labels(&table, &chosen.levels, &top, &mut labels).unwrap();
    assert_eq!(from_records, from_labels);
    // Every suppressed record's class is listed, and no released record's.
    for r in 0..table.rows() {
        let g: Vec<u32> = table
            .row(r)
            .zip(&table.hierarchies)
            .zip(&chosen.levels)
            .map(|((c, h), &l)| h.get(c, l))
            .collect();
        assert_eq!(
            suppressed.binary_search(&g).is_ok(),
            chosen.suppressed[r],
            "record {r}"
        );
    }

    // A partition (Mondrian over ADULT's hierarchies, k = 5) read from its labels: every
    // distinct tuple once, each with its class's labels, as many classes as the partition's.
    let partition = anonbox::algorithms::mondrian::hierarchical::partition(
        &table,
        &job.mondrian_hierarchical(),
    )
    .unwrap();
    let width = table.width();
    let mut labels = Vec::new();
    for c in 0..partition.classes.len() {
        for (j, q) in encoding.qids.iter().enumerate() {
            labels.push(partition.label(&table, c, j, &q.suppressed));
        }
    }
    let mut source = anonbox::output::PartitionLabels {
        table: &table,
        tuple_class: &partition.tuple_class,
        labels: &labels,
    };
    let Rewrite::Classes(classes) = Rewrite::of_classes(&table, &mut source).unwrap() else {
        panic!("a partition is classes")
    };
    assert_eq!(classes.tuples.len(), table.tuples());
    assert_eq!(classes.labels.len(), partition.classes.len());
    for (t, (codes, c)) in classes.tuples.iter().enumerate() {
        assert_eq!(codes, &table.tuple(t).collect::<Vec<u32>>());
        let want = partition.tuple_class[t] as usize;
        assert_eq!(
            classes.labels[*c as usize],
            labels[want * width..(want + 1) * width].to_vec(),
            "tuple {t}"
        );
    }
}

/// The library's input: ADULT as record batches in memory (no file), in batches of 1,000 rows,
/// gives the release the Parquet file gives, row for row.
#[test]
fn record_batches_in_memory_are_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let rows = adult_rows();
    let parquet = dir.path().join("adult.parquet");
    write_parquet(&parquet, &rows, 5000);
    let cfg = config(dir.path(), &parquet, "", "from-file.parquet");
    let (out, _) = run(
        dir.path(),
        &cfg,
        &["-method", "Flash", "-k", "5", "-suppression", "0.02"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let batches: Vec<RecordBatch> = rows.chunks(1000).map(adult_batch).collect();
    let batches = anonbox::io::columnar::Batches::new(adult_schema(), batches).unwrap();
    let target = dir.path().join("from-memory.parquet");
    let args = anonbox::cli::RunArgs {
        config: Some(cfg.clone()),
        batches: Some(batches),
        output: Some(target.clone()),
        method: Some(anonbox::job::Method::Flash),
        k: Some(5),
        suppression: Some(0.02),
        quiet: true,
        ..Default::default()
    };
    let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
    let result = anonbox::cmd::run::run_job(&job, &anonbox::io::Cleanup::default()).unwrap();
    assert_eq!(result.report.records, 30162);
    assert_eq!(
        read_release(&target).1,
        read_release(&dir.path().join("from-file.parquet")).1
    );
}

/// δ-presence's research subset on a Parquet input: given as a Parquet file, as delimited text
/// with a header, and from record batches in memory, every run releases exactly the subset's
/// records (the `row` column, which no attribute names, is what identifies them: a load that
/// read only the attributes' columns matched no subset row).
#[test]
fn research_subset_of_a_columnar_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = adult_rows();
    let input = d.join("adult.parquet");
    write_parquet(&input, &rows, 10_000);
    let sub: Vec<Vec<String>> = rows.iter().step_by(3).cloned().collect();
    write_parquet(&d.join("sub.parquet"), &sub, 10_000);
    // Delimited text beside a columnar input: the config's separator (here the default `,`).
    let mut names: Vec<&str> = ADULT_ATTRIBUTES.to_vec();
    names.push("row");
    let text: Vec<String> = std::iter::once(names.join(","))
        .chain(sub.iter().map(|r| r.join(",")))
        .collect();
    std::fs::write(d.join("sub.csv"), text.join("\n") + "\n").unwrap();
    let want: Vec<String> = sub.iter().map(|r| r[9].clone()).collect();
    let released = |subset: &str, output: &str, batches: bool| -> Vec<String> {
        let cfg = config(d, &input, "", output);
        let xml = std::fs::read_to_string(&cfg).unwrap().replace(
            "</config>",
            &format!(
                "<privacy><k-anonymity k='2'/>\
                 <delta-presence dmin='0' dmax='1' subset='{}'/></privacy></config>",
                d.join(subset).display()
            ),
        );
        std::fs::write(&cfg, xml).unwrap();
        let target = d.join(output);
        if batches {
            let batches: Vec<RecordBatch> = rows.chunks(4000).map(adult_batch).collect();
            let args = anonbox::cli::RunArgs {
                config: Some(cfg),
                batches: Some(
                    anonbox::io::columnar::Batches::new(adult_schema(), batches).unwrap(),
                ),
                method: Some(anonbox::job::Method::Flash),
                suppression: Some(0.05),
                quiet: true,
                ..Default::default()
            };
            let (job, _) = anonbox::config::build_job_with_warnings(&args).unwrap();
            anonbox::cmd::run::run_job(&job, &anonbox::io::Cleanup::default()).unwrap();
        } else {
            let (out, report) = run(d, &cfg, &["-method", "Flash", "-suppression", "0.05"]);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(report["research_subset_records"], sub.len(), "{report}");
        }
        let (_, release) = read_release(&target);
        release.iter().map(|r| r[9].clone()).collect()
    };
    assert_eq!(released("sub.parquet", "a.parquet", false), want);
    assert_eq!(released("sub.csv", "b.parquet", false), want);
    assert_eq!(released("sub.csv", "c.parquet", true), want);
}
