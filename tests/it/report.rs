//! The report's `utility` for every method and the HTML report (`-report run.html`).
//!
//! Utility: the figures of the toolbox's full-domain methods (Datafly, Incognito) are recomputed
//! through the Flash engine's checker for the reported transformation and suppression, and the
//! class-size figures (DM*, DM, AECS, Height, Precision, discernibility, average class size,
//! Mondrian's NCP) independently here from the output file. HTML: its structure (charts, no
//! reference to the network, escaped user data) and its figures against the JSON report of the
//! same run.

use std::collections::HashMap;
use std::path::Path;

use anonbox::check::{Checker, CheckerConfig};
use anonbox::job::MetricKind;
use assert_cmd::Command;
use serde_json::Value;

use crate::common::{self, workdir};

/// Runs anonbox in `dir` with `args` and `-report REPORT`; returns stderr.
fn anonbox(dir: &Path, args: &[&str], report: &str) -> String {
    let out = Command::cargo_bin("anonbox")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .args(["-report", report])
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stderr).unwrap()
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Runs anonbox in `dir` with a JSON report (`r.json`) and returns it.
fn report(dir: &Path, args: &[&str]) -> Value {
    anonbox(dir, args, "r.json");
    json(&dir.join("r.json"))
}

/// The same run twice, with a JSON report and with an HTML one (`run.html`): both reports.
fn html_and_report(dir: &Path, args: &[&str]) -> (String, Value) {
    let r = report(dir, args);
    anonbox(dir, args, "run.html");
    (std::fs::read_to_string(dir.join("run.html")).unwrap(), r)
}

/// Classes as `(labels, records)`.
type Labelled = Vec<(Vec<String>, u64)>;

/// Class sizes of a delimited output over the columns `cols`: (released sizes, suppressed
/// records, rows for which `suppressed` holds) and the classes with their labels.
fn output_classes(
    path: &Path,
    sep: char,
    header: bool,
    cols: &[usize],
    suppressed: &dyn Fn(&[&str]) -> bool,
) -> (Vec<u64>, u64, Labelled) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut classes: HashMap<Vec<String>, u64> = HashMap::new();
    let mut gone = 0;
    for line in text.lines().skip(usize::from(header)) {
        let f: Vec<&str> = line.split(sep).map(str::trim).collect();
        let key: Vec<&str> = cols.iter().map(|&c| f[c]).collect();
        if suppressed(&key) {
            gone += 1;
            continue;
        }
        *classes
            .entry(key.iter().map(|s| s.to_string()).collect())
            .or_insert(0) += 1;
    }
    let labelled: Labelled = classes.into_iter().collect();
    (labelled.iter().map(|c| c.1).collect(), gone, labelled)
}

fn close(got: &Value, want: f64, what: &str) {
    let g = got
        .as_f64()
        .unwrap_or_else(|| panic!("{what}: not a number: {got}"));
    assert!(
        (g - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{what}: report {g}, here {want}"
    );
}

/// DM*, DM, AECS, discernibility and the average class size from class sizes, as defined
/// (suppressed records: one group for AECS, `n` each for DM).
fn check_class_figures(u: &Value, sizes: &[u64], suppressed: u64, full_domain: bool) {
    let released: u64 = sizes.iter().sum();
    let n = released + suppressed;
    let squares: u64 = sizes.iter().map(|s| s * s).sum();
    close(
        &u["average_class_size"],
        released as f64 / sizes.len() as f64,
        "average class size",
    );
    close(
        &u["discernibility"],
        (squares + n * suppressed) as f64,
        "discernibility",
    );
    if full_domain {
        close(&u["DM"], (squares + n * suppressed) as f64, "DM");
        // The suppressed records' classes are not visible in the output: DM* >= the released
        // squares plus each suppressed record alone.
        assert!(u["DMStar"].as_f64().unwrap() >= (squares + suppressed) as f64);
        let groups = sizes.len() as u64 + u64::from(suppressed > 0);
        close(&u["AECS"], n as f64 / groups as f64, "AECS");
    } else {
        for m in MetricKind::NAMES {
            assert!(u[m].is_null(), "{m}: {}", u[m]);
        }
    }
}

/// For Datafly and Incognito_K on ADULT: every metric of the report equals the Flash engine's
/// for the reported transformation, k-anonymity and the reported suppression (the checker
/// re-derives the suppressed classes itself); Height and Precision by hand; the class-size
/// figures against the output file.
#[test]
fn toolbox_full_domain_utility_is_the_engines() {
    let adult_qis: Vec<usize> = (0..9).collect();
    for method in ["Datafly", "Incognito_K"] {
        let dir = workdir("adult.xml");
        let args = [
            "-config",
            "configs/adult.xml",
            "-method",
            method,
            "-k",
            "5",
            "-output",
            "out.csv",
        ];
        let r = report(dir.path(), &args);
        let u = &r["utility"];
        let levels = common::levels(&r);
        let suppressed = r["suppressed_records"].as_u64().unwrap();

        // The engine, on the same input.
        let cwd_args: Vec<String> = args
            .iter()
            .map(|a| {
                if a.starts_with("configs/") {
                    dir.path().join(a).display().to_string()
                } else {
                    a.to_string()
                }
            })
            .collect();
        let run = match anonbox::cli::parse_args(cwd_args).unwrap() {
            anonbox::cli::Command::Run(r) => *r,
            other => panic!("{other:?}"),
        };
        let job = anonbox::config::build_job(&run).unwrap();
        let (table, _, _) = crate::common::load_table(&job).unwrap();
        for kind in MetricKind::ALL {
            let criteria = anonbox::privacy::build(&[], 5, &table).unwrap();
            let metric = anonbox::metrics::build(kind, &table);
            let mut checker = Checker::new(
                &table,
                criteria,
                metric,
                suppressed,
                CheckerConfig::default(),
            )
            .unwrap();
            let res = checker.check(&levels, &|_| false);
            assert!(
                res.anonymous,
                "{method}: the engine finds {levels:?} invalid"
            );
            assert_eq!(res.suppressed, suppressed, "{method}");
            let name = kind.name();
            assert_eq!(
                u[name].as_f64(),
                res.loss,
                "{method} {name}: report {}, engine {:?}",
                u[name],
                res.loss
            );
        }
        // The report's information loss is its -metric's (Loss by default).
        assert_eq!(r["metric"], "Loss");
        assert_eq!(r["information_loss"], u["Loss"]);
        // Height: the sum of the levels; Precision: per attribute (kept level / height +
        // suppressed) / n, averaged (ADULT's hierarchy heights).
        close(&u["Height"], levels.iter().sum::<usize>() as f64, "Height");
        let heights = [1usize, 4, 1, 2, 3, 2, 2, 2, 1];
        let n = r["records"].as_u64().unwrap() as f64;
        let kept = n - suppressed as f64;
        let precision: f64 = levels
            .iter()
            .zip(heights)
            .map(|(&l, h)| (kept * l as f64 / h as f64 + suppressed as f64) / n)
            .sum::<f64>()
            / 9.0;
        close(&u["Precision"], precision, "Precision");
        let (sizes, gone, _) = output_classes(
            &dir.path().join("out.csv"),
            ';',
            true,
            &adult_qis,
            &|k: &[&str]| k.iter().all(|v| *v == "*"),
        );
        assert_eq!(gone, suppressed, "{method}");
        check_class_figures(u, &sizes, gone, true);
        assert!(u["ncp"].is_null());
    }
}

/// Flash reports the same utility whatever metric it optimized, and its information loss is that
/// metric's figure.
#[test]
fn flash_utility_contains_its_own_loss() {
    let dir = workdir("adult.xml");
    for metric in ["Loss", "Entropy", "AECS"] {
        let args = [
            "-config",
            "configs/adult.xml",
            "-method",
            "Flash",
            "-metric",
            metric,
            "-suppression",
            "0.02",
            "-output",
            "out.csv",
            "-quiet",
        ];
        let r = report(dir.path(), &args);
        let name = if metric == "Loss" { "Loss" } else { metric };
        assert_eq!(r["utility"][name], r["information_loss"], "{metric}");
        let (sizes, gone, _) = output_classes(
            &dir.path().join("out.csv"),
            ';',
            true,
            &(0..9).collect::<Vec<_>>(),
            &|k: &[&str]| k.iter().all(|v| *v == "*"),
        );
        assert_eq!(gone, r["suppressed_records"].as_u64().unwrap());
        check_class_figures(&r["utility"], &sizes, gone, true);
    }
}

/// Mondrian: average class size, discernibility and NCP from the published intervals of the
/// output (census sample: sex in [0:1], age in [0:100)).
#[test]
fn mondrian_ncp_from_the_output() {
    let dir = workdir("census-income-1k.xml");
    let args = [
        "-config",
        "configs/census-income-1k.xml",
        "-method",
        "Mondrian",
        "-k",
        "10",
        "-output",
        "out.data",
        "-quiet",
    ];
    let r = report(dir.path(), &args);
    // Output columns: identifiers 1 and 2 are removed, so column 12 (sex) is the 10th.
    let (sizes, gone, classes) =
        output_classes(&dir.path().join("out.data"), ',', false, &[10, 0], &|_| {
            false
        });
    assert_eq!(gone, 0);
    check_class_figures(&r["utility"], &sizes, 0, false);
    let width = |label: &str| -> f64 {
        let inner = &label[1..label.len() - 1];
        match inner.split_once(':') {
            Some((a, b)) => b.parse::<f64>().unwrap() - a.parse::<f64>().unwrap(),
            None => 0.0,
        }
    };
    let records: u64 = sizes.iter().sum();
    let penalty: f64 = classes
        .iter()
        .map(|(labels, n)| *n as f64 * (width(&labels[0]) / 1.0 + width(&labels[1]) / 100.0))
        .sum();
    close(
        &r["utility"]["ncp"],
        penalty / (2.0 * records as f64),
        "ncp",
    );
}

/// A number as the page shows it for reading (four significant digits, no exponent, shares
/// as `%`) stands for `exact`.
fn reads_as(shown: &str, exact: f64, key: &str) {
    let (text, scale) = match shown.strip_suffix(" %") {
        Some(t) => (t, 100.0),
        None => (shown, 1.0),
    };
    assert!(!text.contains(['e', 'E']), "{key}: {shown} has an exponent");
    let got: f64 = text
        .parse()
        .unwrap_or_else(|e| panic!("{key}: '{shown}': {e}"));
    let want = exact * scale;
    // Four significant digits below 1,000; whole numbers above.
    let tolerance = if want.abs() >= 1000.0 {
        0.5
    } else {
        5e-4 * want.abs().max(1e-9)
    };
    assert!(
        (got - want).abs() <= tolerance,
        "{key}: shown {shown}, exact {exact}"
    );
}

/// What every HTML report must be, checked on its DOM (parsed by scraper, the html5ever
/// parser browsers' own rules follow): one file, charts inline, nothing from the network, no
/// script; the verdict first, stating each model and the figure achieved; the parameters; the
/// loss per attribute; each figure's exact `data-value` equal to the JSON report of the same
/// run, and the figure shown for reading equal to it within four significant digits.
fn check_html(html: &str, report: &Value, charts: usize) {
    use scraper::{Html, Selector};
    let sel = |s: &str| Selector::parse(s).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    let rest = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!rest.contains("http://") && !rest.contains("https://"));
    assert!(!rest.contains("<link") && !rest.contains("@import") && !rest.contains("url("));
    let dom = Html::parse_document(html);
    assert_eq!(dom.select(&sel("svg")).count(), charts, "charts");
    assert_eq!(dom.select(&sel("script")).count(), 0);
    // The verdict comes first: the first section of the body, one line per model, then the
    // suppression and the optimality.
    let first = dom
        .select(&sel("body > section, body > h2"))
        .next()
        .unwrap();
    assert_eq!(first.value().attr("id"), Some("verdict"));
    let achieved = report["privacy_achieved"].as_array().unwrap();
    assert!(!achieved.is_empty());
    let lines: Vec<String> = dom
        .select(&sel("#verdict li"))
        .map(|li| li.text().collect::<String>())
        .collect();
    assert!(lines.len() >= achieved.len() + 2, "{lines:?}");
    for (i, a) in achieved.iter().enumerate() {
        assert!(
            lines[i].contains(a["says"].as_str().unwrap()),
            "{}",
            lines[i]
        );
        let holds = a["holds"].as_bool();
        let li = dom.select(&sel("#verdict li")).nth(i).unwrap();
        let class = li.value().attr("class");
        match holds {
            Some(true) => assert_eq!(class, Some("holds")),
            Some(false) => assert_eq!(class, Some("fails")),
            None => assert_eq!(class, Some("unmeasured")),
        }
    }
    let suppressed = report["suppressed_records"].as_u64().unwrap();
    assert!(
        lines[achieved.len()].starts_with(&format!("{suppressed} of ")),
        "{lines:?}"
    );
    // Every figure: data-key names the JSON value, data-value holds it exactly, the text
    // shows it for reading.
    let mut seen = 0;
    for e in dom.select(&sel("[data-key]")) {
        let key = e.value().attr("data-key").unwrap();
        let value = e.value().attr("data-value").unwrap();
        let want = report
            .pointer(&format!("/{}", key.replace('.', "/")))
            .unwrap_or_else(|| panic!("{key} not in the report"));
        if key.starts_with("elapsed") {
            continue; // another run
        }
        let shown: String = e.text().collect();
        match want {
            Value::Number(n) => {
                let exact = n.as_f64().unwrap();
                assert_eq!(value.parse::<f64>().unwrap(), exact, "{key}");
                reads_as(shown.trim(), exact, key);
            }
            Value::String(s) => {
                assert_eq!(value, s, "{key}");
                assert_eq!(shown.trim(), s, "{key}");
            }
            other => assert_eq!(value, other.to_string(), "{key}"),
        }
        seen += 1;
    }
    assert!(seen >= 20, "only {seen} figures");
    // The parameters of the run.
    let parameters: Vec<String> = dom
        .select(&sel("#parameter-table td:first-child"))
        .map(|td| td.text().collect())
        .collect();
    for p in ["method", "privacy models", "input encoding"] {
        assert!(parameters.iter().any(|x| x == p), "{p}: {parameters:?}");
    }
    // Every metric shown is explained on its line.
    for row in dom.select(&sel("#utility tr")).skip(1) {
        let explain: String = row
            .select(&sel("td.explain"))
            .next()
            .unwrap()
            .text()
            .collect();
        assert!(explain.len() > 20, "{}", row.html());
    }
    // The loss per quasi-identifier: one row each; a full-domain release's bar is its level
    // over the hierarchy's height, said as "level L of H".
    let rows: Vec<_> = dom.select(&sel("#attribute-table tr")).skip(1).collect();
    let qis = report["quasi_identifiers"].as_array().unwrap();
    assert_eq!(rows.len(), qis.len());
    for (i, (row, q)) in rows.iter().zip(qis).enumerate() {
        let cells: Vec<String> = row
            .select(&sel("td"))
            .map(|td| td.text().collect())
            .collect();
        assert_eq!(cells[0], q.as_str().unwrap());
        if let Some(levels) = report["transformation"].as_array() {
            let level = levels[i].as_u64().unwrap();
            let said = cells[2]
                .strip_prefix(&format!("level {level} of "))
                .unwrap();
            let height: u64 = said.split(':').next().unwrap().parse().unwrap();
            let bar = row.select(&sel(".bar")).next().unwrap();
            let share: f64 = bar.value().attr("data-share").unwrap().parse().unwrap();
            assert_eq!(share, level as f64 / height as f64);
            let removed = report["attributes_removed"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r == q);
            assert_eq!(level == height, removed, "{}", q);
            assert_eq!(cells[2].ends_with(": removed entirely"), removed);
        }
    }
}

#[test]
fn html_report_of_flash_on_adult() {
    let dir = workdir("adult.xml");
    let args = [
        "-config",
        "configs/adult.xml",
        "-method",
        "Flash",
        "-output",
        "out.csv",
        "-quiet",
    ];
    let (html, r) = html_and_report(dir.path(), &args);
    check_html(&html, &r, 3);
    for id in ["chart-class-sizes", "chart-risk", "chart-candidates"] {
        assert!(html.contains(&format!("<figure id=\"{id}\">")), "{id}");
    }
    let checked = r["transformations_checked"].as_u64().unwrap();
    assert!(html.contains(&format!("All {checked} checked transformations are shown")));
    // An upper-case extension is HTML too; .json stays JSON.
    anonbox(dir.path(), &args, "RUN.HTM");
    assert!(std::fs::read_to_string(dir.path().join("RUN.HTM"))
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

#[test]
fn html_report_of_datafly_and_mondrian() {
    for (method, charts) in [("Datafly", 2), ("Mondrian", 2), ("Incognito_K", 2)] {
        let dir = workdir("census-income-1k.xml");
        let args = [
            "-config",
            "configs/census-income-1k.xml",
            "-method",
            method,
            "-k",
            "10",
            "-output",
            "out.data",
            "-quiet",
        ];
        let (html, r) = html_and_report(dir.path(), &args);
        check_html(&html, &r, charts);
    }
}

/// Names, values and labels are user data: the page shows them escaped.
#[test]
fn html_report_escapes_user_data() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut data = String::from("who<b>;age\n");
    for i in 0..12 {
        data.push_str(&format!("<i>&x{}</i>;{}\n", i % 2, 20 + i % 3));
    }
    std::fs::write(p.join("in.csv"), data).unwrap();
    std::fs::write(
        p.join("h.csv"),
        "<i>&x0</i>;<script>alert(1)</script>\n<i>&x1</i>;<script>alert(1)</script>\n",
    )
    .unwrap();
    std::fs::write(
        p.join("a.csv"),
        "20;<script>alert(2)</script>\n21;<script>alert(2)</script>\n22;<script>alert(2)</script>\n",
    )
    .unwrap();
    std::fs::write(
        p.join("c.xml"),
        r#"<config k="3" method="Flash">
  <input filename="in.csv" separator=";" header="true"/>
  <qid>
    <att index="0" name="who&lt;b&gt;" hierarchy="h.csv"/>
    <att index="1" name="age" hierarchy="a.csv"/>
  </qid>
</config>"#,
    )
    .unwrap();
    anonbox(
        p,
        &["-config", "c.xml", "-output", "o.csv", "-quiet"],
        "r.html",
    );
    let html = std::fs::read_to_string(p.join("r.html")).unwrap();
    assert!(!html.contains("<script"), "unescaped label");
    assert!(!html.contains("<i>") && !html.contains("who<b>"));
    assert!(
        html.contains("&lt;i&gt;&amp;x0"),
        "the original values are shown escaped"
    );
    assert!(
        html.contains("&lt;script&gt;alert("),
        "the released labels are shown escaped"
    );
    assert!(html.contains("who&lt;b&gt;"));
}

/// -riskThreshold sets the threshold of the records at risk (report and summary).
#[test]
fn risk_threshold_flag() {
    let dir = workdir("census-income-1k.xml");
    let stderr = anonbox(
        dir.path(),
        &[
            "-config",
            "configs/census-income-1k.xml",
            "-k",
            "10",
            "-output",
            "out.data",
            "-riskThreshold",
            "0.05",
        ],
        "r.json",
    );
    let r = json(&dir.path().join("r.json"));
    assert_eq!(r["risk"]["threshold"], 0.05);
    assert_eq!(r["risk_input"]["threshold"], 0.05);
    let (sizes, _, _) = output_classes(
        &dir.path().join("out.data"),
        ',',
        false,
        &[10, 0],
        &|k: &[&str]| k == ["[0:1]", "[0:100)"],
    );
    let released: u64 = sizes.iter().sum();
    let over: u64 = sizes.iter().filter(|&&n| 1.0 / n as f64 > 0.05).sum();
    close(
        &r["risk"]["records_at_risk"],
        over as f64 / released as f64,
        "records at risk",
    );
    assert!(stderr.contains("of records above 0.05"), "{stderr}");
    Command::cargo_bin("anonbox")
        .unwrap()
        .args([
            "-config",
            "configs/census-income-1k.xml",
            "-riskThreshold",
            "2",
        ])
        .assert()
        .code(2);
}

/// A search that checks more than `CHECKED_CAP` transformations keeps an even sample of them, in
/// transformation order, with the optimum; a smaller one keeps them all.
#[test]
fn checked_transformations_are_sampled_above_the_cap() {
    use anonbox::algorithms::{self, LatticeAlgorithm, CHECKED_CAP};
    use anonbox::data::EncodedTable;
    use anonbox::hierarchy::Hierarchy;
    // 15 binary attributes with one level above: 2^15 = 32,768 transformations.
    let dims = 15;
    let h = Hierarchy::from_label_rows(
        "b",
        &[
            vec!["0".to_string(), "*".to_string()],
            vec!["1".to_string(), "*".to_string()],
        ],
    );
    let rows = 24;
    let codes: Vec<u32> = (0..rows * dims)
        .map(|i| ((i / dims) >> (i % dims % 5) & 1) as u32)
        .collect();
    let table = EncodedTable::new(codes, vec![h; dims], Vec::new());
    let solve = |algorithm| {
        algorithms::solve(
            &table,
            anonbox::privacy::build(&[], 2, &table).unwrap(),
            anonbox::metrics::build(MetricKind::Loss, &table),
            0,
            algorithm,
            CheckerConfig::default(),
        )
        .unwrap()
    };
    let all = solve(LatticeAlgorithm::Exhaustive);
    let sample = &all.checked;
    assert_eq!(sample.total, 1 << dims);
    assert_eq!(sample.total, all.checks);
    let stride = (1u64 << dims).div_ceil(CHECKED_CAP as u64);
    assert_eq!(sample.stride, stride);
    assert!(sample.items.len() <= CHECKED_CAP + 1);
    assert!(sample.items.len() as u64 >= sample.total / stride);
    let best = all.optimum.unwrap();
    let shown = sample
        .items
        .iter()
        .find(|c| c.levels == best.levels)
        .unwrap();
    assert!(shown.valid && shown.loss == best.loss);
    assert!(sample.items.iter().any(|c| !c.valid));
    let flash = solve(LatticeAlgorithm::Flash);
    assert_eq!(flash.checked.stride, 1);
    assert_eq!(flash.checked.items.len() as u64, flash.checks);
}

/// The "most frequent before" cells show only input values of k records or more: with the
/// input in the output's order, a value of one record listed there (ties came in input order)
/// gave the raw age of the first rows of a fully generalized release. The k is the one
/// enforced: a `<privacy>` k above `-k` (which it outranks) counts, not the flag's.
#[test]
fn html_report_lists_no_rare_input_value() {
    let dir = workdir("census-income-1k.xml");
    let d = dir.path();
    let input =
        std::fs::read_to_string(d.join("tests/data/census-income-1k/Input/census-income_1K.data"))
            .unwrap();
    let small: String = input.split_inclusive('\n').take(12).collect();
    std::fs::write(d.join("small.data"), &small).unwrap();
    // Eight men and four women: 4 records shown at k = 3, hidden at k = 6.
    let (mut men, mut women) = (0, 0);
    let mixed: String = input
        .split_inclusive('\n')
        .filter(|line| match line.split(',').nth(12) {
            Some("Male") if men < 8 => {
                men += 1;
                true
            }
            Some("Female") if women < 4 => {
                women += 1;
                true
            }
            _ => false,
        })
        .collect();
    std::fs::write(d.join("mixed.data"), mixed).unwrap();
    let config = std::fs::read_to_string(d.join("configs/census-income-1k.xml")).unwrap();
    let with_privacy = config.replace(
        "</config>",
        "<privacy><k-anonymity k='6'/></privacy></config>",
    );
    std::fs::write(d.join("configs/k6.xml"), with_privacy).unwrap();
    for (config, input, min) in [
        ("configs/census-income-1k.xml", "small.data", 3),
        ("configs/census-income-1k.xml", "mixed.data", 3),
        ("configs/k6.xml", "mixed.data", 6),
    ] {
        let args = [
            "-config",
            config,
            "-input",
            input,
            "-method",
            "Flash",
            "-k",
            "3",
            "-suppression",
            "0.3",
            "-output",
            "out.data",
            "-quiet",
        ];
        let (html, report) = html_and_report(d, &args);
        assert_eq!(report["k"], min, "{config}");
        let table = &html[html.find("<table id=\"attribute-table\">").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        let mut cells = 0;
        let mut shown = 0;
        for row in table.split("<tr>").skip(2) {
            let before = row.split("<td class=\"examples\">").nth(1).unwrap();
            let before = &before[..before.find("</td>").unwrap()];
            for count in before.split('(').skip(1) {
                let n: u64 = count[..count.find(')').unwrap()].parse().unwrap();
                assert!(n >= min, "{config}: a value of {n} records shown: {before}");
                shown += 1;
            }
            cells += 1;
        }
        assert_eq!(cells, 2, "{table}");
        assert!(shown > 0, "{config}: no value shown at all: {table}");
        if input == "mixed.data" {
            let four = table.contains("(4)");
            assert_eq!(four, min <= 4, "{config}: the four women: {table}");
        }
    }
}

/// Anatomy publishes its quasi-identifiers as they are: the risk chart has no release series
/// (it drew one, far below the input's), and the report names the two files written.
#[test]
fn html_report_of_anatomy() {
    let dir = workdir("adult-occupation.xml");
    let d = dir.path();
    let config = std::fs::read_to_string(d.join("configs/adult-occupation.xml")).unwrap();
    let start = config.find("<privacy>").unwrap();
    let end = config.find("</privacy>").unwrap() + "</privacy>".len();
    let mut plain = config.clone();
    plain.replace_range(start..end, "");
    std::fs::write(d.join("configs/anatomy.xml"), plain).unwrap();
    let args = [
        "-config",
        "configs/anatomy.xml",
        "-method",
        "Anatomy",
        "-l",
        "2",
        "-output",
        "a.csv",
        "-quiet",
    ];
    let (html, r) = html_and_report(d, &args);
    assert_eq!(
        r["output_files"],
        serde_json::json!(["a_QIT.csv", "a_ST.csv"])
    );
    assert!(r["risk"].is_null());
    let risk = &html[html.find("<figure id=\"chart-risk\">").unwrap()..];
    let risk = &risk[..risk.find("</figure>").unwrap()];
    let texts: Vec<&str> = risk.split(['<', '>']).map(str::trim).collect();
    assert!(
        texts.contains(&"input") && !texts.contains(&"release"),
        "{risk}"
    );
    assert!(html.contains("a_QIT.csv, a_ST.csv"));
}

/// `privacy_achieved` states, for each model, the figure required and the figure the release
/// achieves, equal to the figures computed here from the output file alone: k the smallest
/// class, distinct l the fewest values of the sensitive attribute in a class, entropy l the
/// lowest exp(entropy), t (equal distance) the largest half-sum of the differences between a
/// class's distribution and the whole release's (suppressed records included). The HTML
/// report of the same run shows them (checked on its DOM).
#[test]
fn privacy_achieved_is_what_the_release_holds() {
    let dir = workdir("adult-occupation.xml");
    let text = std::fs::read_to_string(dir.path().join("configs/adult-occupation.xml")).unwrap();
    let start = text.find("<privacy>").unwrap();
    let end = text.find("</privacy>").unwrap() + "</privacy>".len();
    let config = format!(
        "{}<privacy>
    <k-anonymity k=\"5\"/>
    <distinct-l-diversity attribute=\"occupation\" l=\"2\"/>
    <entropy-l-diversity attribute=\"occupation\" l=\"1.5\"/>
    <t-closeness attribute=\"occupation\" t=\"0.6\" distance=\"equal\"/>
  </privacy>{}",
        &text[..start],
        &text[end..]
    );
    std::fs::write(dir.path().join("configs/achieved.xml"), config).unwrap();
    let args = [
        "-config",
        "configs/achieved.xml",
        "-suppression",
        "0.05",
        "-output",
        "out.csv",
        "-quiet",
    ];
    let (html, r) = html_and_report(dir.path(), &args);
    check_html(&html, &r, 3);
    let achieved = r["privacy_achieved"].as_array().unwrap();
    let figure = |i: usize| achieved[i]["achieved"].as_f64().unwrap();
    assert_eq!(
        achieved
            .iter()
            .map(|a| (a["figure"].as_str().unwrap(), a["holds"].as_bool().unwrap()))
            .collect::<Vec<_>>(),
        [("k", true), ("l", true), ("l", true), ("t", true)]
    );
    assert_eq!(achieved[1]["attribute"], "occupation");
    assert_eq!(achieved[3]["required"], 0.6);
    // The same figures from the output file.
    let (k, distinct, entropy, t) = held_figures(&dir.path().join("out.csv"), "occupation");
    assert_eq!(figure(0), k as f64);
    assert_eq!(figure(1), distinct as f64);
    assert!(
        (figure(2) - entropy).abs() < 1e-9,
        "{} {entropy}",
        figure(2)
    );
    assert!((figure(3) - t).abs() < 1e-9, "{} {t}", figure(3));
    // The console summary says the same in words.
    let summary = anonbox(dir.path(), &args[..6], "again.json");
    assert!(
        summary.contains(&format!(
            "       verdict  holds: 5-anonymity: every released class has at least 5 records, \
             the smallest {k}\n"
        )),
        "{summary}"
    );
    assert!(
        summary.contains(&format!(
            "holds: distinct 2-diversity of occupation: every class holds at least 2 of its \
             values, the lowest {distinct}\n"
        )),
        "{summary}"
    );
}

/// k, distinct l, entropy l and t (equal distance) of the sensitive column `sens` over the
/// classes of a delimited output, computed from the file alone: a class is the tuple of the
/// other columns; a record whose other columns are all `*` is suppressed (in the table's
/// distribution, in no class).
fn held_figures(path: &Path, sens: &str) -> (u64, usize, f64, f64) {
    let out = std::fs::read_to_string(path).unwrap();
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split(';').collect();
    let sens = header.iter().position(|h| *h == sens).unwrap();
    let mut classes: HashMap<Vec<String>, HashMap<String, u64>> = HashMap::new();
    let mut table: HashMap<String, u64> = HashMap::new();
    let mut all = 0u64;
    for line in lines {
        let f: Vec<&str> = line.split(';').collect();
        *table.entry(f[sens].to_string()).or_insert(0) += 1;
        all += 1;
        let key: Vec<String> = (0..f.len())
            .filter(|&c| c != sens)
            .map(|c| f[c].to_string())
            .collect();
        if key.iter().all(|v| v == "*") {
            continue;
        }
        *classes
            .entry(key)
            .or_default()
            .entry(f[sens].to_string())
            .or_insert(0) += 1;
    }
    let size = |c: &HashMap<String, u64>| c.values().sum::<u64>();
    let k = classes.values().map(size).min().unwrap();
    let distinct = classes.values().map(|c| c.len()).min().unwrap();
    let entropy = classes
        .values()
        .map(|c| {
            let n = size(c) as f64;
            let h: f64 = c
                .values()
                .map(|&m| -(m as f64 / n) * (m as f64 / n).ln())
                .sum();
            h.exp()
        })
        .fold(f64::INFINITY, f64::min);
    let t = classes
        .values()
        .map(|c| {
            let n = size(c) as f64;
            table
                .iter()
                .map(|(v, &m)| {
                    let p = c.get(v).copied().unwrap_or(0) as f64 / n;
                    (p - m as f64 / all as f64).abs()
                })
                .sum::<f64>()
                / 2.0
        })
        .fold(0.0, f64::max);
    (k, distinct, entropy, t)
}

/// The toolbox's methods state the l and t they achieve too (measured on the store's released
/// classes), equal to the figures of the output file.
#[test]
fn store_methods_state_the_l_and_t_they_hold() {
    let dir = workdir("adult-occupation.xml");
    let text = std::fs::read_to_string(dir.path().join("configs/adult-occupation.xml")).unwrap();
    let t_model = "<t-closeness attribute=\"occupation\" t=\"0.3\" distance=\"equal\"/>";
    let t_config = text.replace(
        "<distinct-l-diversity attribute=\"occupation\" l=\"2\"/>",
        t_model,
    );
    assert!(t_config.contains(t_model));
    std::fs::write(dir.path().join("configs/t.xml"), t_config).unwrap();
    for (method, config, param, figure) in [
        (
            "Incognito_L",
            "configs/adult-occupation.xml",
            ["-l", "3"],
            "l",
        ),
        ("Incognito_T", "configs/t.xml", ["-t", "0.3"], "t"),
    ] {
        let out = format!("{method}.csv");
        let args = [
            "-config", config, "-method", method, "-k", "5", param[0], param[1], "-output", &out,
            "-quiet",
        ];
        let r = report(dir.path(), &args);
        let (k, distinct, _, t) = held_figures(&dir.path().join(&out), "occupation");
        let achieved = r["privacy_achieved"].as_array().unwrap();
        let of = |f: &str| {
            achieved
                .iter()
                .find(|a| a["figure"] == f)
                .unwrap_or_else(|| panic!("{method}: no {f} in {achieved:?}"))
        };
        assert_eq!(of("k")["achieved"].as_u64(), Some(k), "{method}");
        let a = of(figure);
        assert_eq!(a["attribute"], "occupation", "{method}");
        assert_eq!(a["holds"], true, "{method}");
        match figure {
            "l" => assert_eq!(a["achieved"].as_u64(), Some(distinct as u64), "{method}"),
            _ => {
                let got = a["achieved"].as_f64().unwrap();
                assert!((got - t).abs() < 1e-9, "{method}: {got} vs {t}");
            }
        }
    }
}
