//! MDAV microaggregation (`-method MDAV`): every release re-checked here, independently of
//! anonbox's code (one row per input record, the other columns as they were, classes of equal
//! quasi-identifiers of at least k records, each released number the mean of its class's
//! records to the printed precision, each categorical value one its class holds, the report's
//! SSE and IL1s recomputed from the files); its SSE against a plain O(n²) MDAV written here
//! (several columns) and against the optimal univariate microaggregation by dynamic programming
//! (Hansen and Mukherjee 2003); and the configs it refuses.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::common;

/// A small deterministic generator (the tests' data, reproducible without a dependency).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn read(path: &Path, sep: u8) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .delimiter(sep)
        .has_headers(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// Sample mean and standard deviation.
fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    (m, (ss / (n - 1.0)).sqrt())
}

/// What a release is re-checked with: the quasi-identifier columns (input = output columns, no
/// identifiers), which of them are numeric.
struct Qis {
    numeric: Vec<usize>,
    categorical: Vec<usize>,
}

/// Checks a release (rows without header) against its input; returns (SSE, IL1s) of the released
/// numbers, standardized by the input's sample standard deviations.
fn check_release(input: &[Vec<String>], output: &[Vec<String>], qis: &Qis, k: usize) -> (f64, f64) {
    assert_eq!(input.len(), output.len(), "one row per record");
    let all: Vec<usize> = qis
        .numeric
        .iter()
        .chain(&qis.categorical)
        .copied()
        .collect();
    let mut classes: HashMap<Vec<String>, Vec<usize>> = HashMap::new();
    for (r, (i, o)) in input.iter().zip(output).enumerate() {
        assert_eq!(i.len(), o.len());
        for c in (0..i.len()).filter(|c| !all.contains(c)) {
            assert_eq!(i[c], o[c], "row {r}: column {c} changed");
        }
        classes
            .entry(all.iter().map(|&c| o[c].clone()).collect())
            .or_default()
            .push(r);
    }
    let num = |s: &str| s.trim().parse::<f64>().unwrap();
    // Means are printed to two decimals more than the column's values have: within half a unit
    // of that last decimal.
    let tolerance: Vec<f64> = qis
        .numeric
        .iter()
        .map(|&c| {
            let decimals = input
                .iter()
                .map(|r| r[c].trim().split_once('.').map_or(0, |(_, f)| f.len()))
                .max()
                .unwrap_or(0);
            0.5 * 10f64.powi(-(decimals as i32 + 2)) + 1e-9
        })
        .collect();
    for (key, rows) in &classes {
        assert!(
            rows.len() >= k,
            "a class of {} < k = {k}: {key:?}",
            rows.len()
        );
        for (a, &c) in qis.numeric.iter().enumerate() {
            let mean = rows.iter().map(|&r| num(&input[r][c])).sum::<f64>() / rows.len() as f64;
            let released = num(&key[a]);
            assert!(
                (mean - released).abs() <= tolerance[a],
                "column {c}: released {released}, mean {mean}"
            );
        }
        for (a, &c) in qis.categorical.iter().enumerate() {
            let v = &key[qis.numeric.len() + a];
            assert!(
                rows.iter().any(|&r| &input[r][c] == v),
                "column {c}: {v} is no value of its class"
            );
        }
    }
    let (mut sse, mut abs) = (0.0, 0.0);
    for &c in &qis.numeric {
        let xs: Vec<f64> = input.iter().map(|r| num(&r[c])).collect();
        let (_, sd) = mean_sd(&xs);
        let sd = if sd > 0.0 { sd } else { 1.0 };
        for (x, o) in xs.iter().zip(output) {
            let d = (x - num(&o[c])) / sd;
            sse += d * d;
            abs += d.abs() / std::f64::consts::SQRT_2;
        }
    }
    (sse, abs / (input.len() * qis.numeric.len()) as f64)
}

/// Writes a headed `;` file of `rows`, a hierarchy file (value;*) per quasi-identifier and a
/// config naming them, in `dir`.
fn write_case(dir: &Path, header: &[&str], rows: &[Vec<String>], qis: &[usize]) {
    let mut text = header.join(";") + "\n";
    for r in rows {
        text += &(r.join(";") + "\n");
    }
    std::fs::write(dir.join("data.csv"), text).unwrap();
    let mut atts = String::new();
    for &c in qis {
        let mut values: Vec<&str> = rows.iter().map(|r| r[c].as_str()).collect();
        values.sort_unstable();
        values.dedup();
        let h: String = values.iter().map(|v| format!("{v};*\n")).collect();
        std::fs::write(dir.join(format!("h{c}.csv")), h).unwrap();
        atts += &format!(
            "    <att index=\"{c}\" name=\"{}\" hierarchy=\"h{c}.csv\"/>\n",
            header[c]
        );
    }
    let config = format!(
        "<config method=\"MDAV\" k=\"3\">\n  <input filename=\"data.csv\" separator=\";\" \
         header=\"true\"/>\n  <output filename=\"out.csv\"/>\n  <qid>\n{atts}  </qid>\n</config>\n"
    );
    std::fs::write(dir.join("config.xml"), config).unwrap();
}

/// Runs MDAV k = `k` on the case in `dir`; checks the release and the report's figures; returns
/// the release's SSE.
fn run_case(dir: &Path, k: usize, qis: &Qis) -> f64 {
    let ks = k.to_string();
    let out = common::anonbox(
        dir,
        &[
            "-config",
            "config.xml",
            "-k",
            &ks,
            "-report",
            "r.json",
            "-quiet",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut input = read(&dir.join("data.csv"), b';');
    let mut output = read(&dir.join("out.csv"), b';');
    input.remove(0);
    output.remove(0);
    let (sse, il1s) = check_release(&input, &output, qis, k);
    let r: Value = serde_json::from_slice(&std::fs::read(dir.join("r.json")).unwrap()).unwrap();
    assert_eq!(r["method"], "MDAV");
    let grouping = if qis.numeric.len() == 1 {
        "optimal univariate"
    } else {
        "MDAV"
    };
    assert_eq!(r["grouping"], grouping);
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12);
    let (rs, ri) = (r["sse"].as_f64().unwrap(), r["il1s"].as_f64().unwrap());
    assert!(close(rs, sse), "report SSE {rs}, file {sse}");
    assert!(close(ri, il1s), "report IL1s {ri}, file {il1s}");
    assert!(close(r["utility"]["sse"].as_f64().unwrap(), sse));
    assert_eq!(r["privacy_achieved"][0]["holds"], true);
    sse
}

/// Plain MDAV on records (Domingo-Ferrer and Mateo-Sanz 2002), scanning every remaining record
/// for each query, over the standardized columns; returns its SSE (exact means).
fn plain_mdav_sse(points: &[Vec<f64>], k: usize) -> f64 {
    let d2 = |a: &[f64], b: &[f64]| -> f64 { a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum() };
    let mut left: Vec<usize> = (0..points.len()).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let centroid = |left: &[usize]| -> Vec<f64> {
        let dims = points[0].len();
        (0..dims)
            .map(|j| left.iter().map(|&i| points[i][j]).sum::<f64>() / left.len() as f64)
            .collect()
    };
    let farthest = |left: &[usize], q: &[f64]| -> usize {
        *left
            .iter()
            .max_by(|&&a, &&b| {
                d2(&points[a], q)
                    .total_cmp(&d2(&points[b], q))
                    .then(b.cmp(&a))
            })
            .unwrap()
    };
    let take = |left: &mut Vec<usize>, r: usize| -> Vec<usize> {
        let q = points[r].clone();
        left.sort_by(|&a, &b| {
            d2(&points[a], &q)
                .total_cmp(&d2(&points[b], &q))
                .then(a.cmp(&b))
        });
        left.drain(..k).collect()
    };
    while left.len() >= 3 * k {
        let c = centroid(&left);
        let r = farthest(&left, &c);
        let s = farthest(&left, &points[r]);
        groups.push(take(&mut left, r));
        groups.push(take(&mut left, s));
    }
    if left.len() >= 2 * k {
        let c = centroid(&left);
        let r = farthest(&left, &c);
        groups.push(take(&mut left, r));
    }
    if !left.is_empty() {
        groups.push(left);
    }
    let mut sse = 0.0;
    for g in &groups {
        let c = centroid(g);
        sse += g.iter().map(|&i| d2(&points[i], &c)).sum::<f64>();
    }
    sse
}

/// The optimal univariate microaggregation's SSE (Hansen and Mukherjee 2003): groups are runs of
/// the sorted values of k to 2k - 1 records; dynamic programming over the run ends.
fn optimal_univariate_sse(values: &[f64], k: usize) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let (mut s1, mut s2) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for i in 0..n {
        s1[i + 1] = s1[i] + v[i];
        s2[i + 1] = s2[i] + v[i] * v[i];
    }
    let cost = |a: usize, b: usize| {
        let m = (b - a) as f64;
        let s = s1[b] - s1[a];
        (s2[b] - s2[a] - s * s / m).max(0.0)
    };
    let mut best = vec![f64::INFINITY; n + 1];
    best[0] = 0.0;
    for b in k..=n {
        for size in k..=(2 * k - 1).min(b) {
            let a = b - size;
            if best[a].is_finite() {
                best[b] = best[b].min(best[a] + cost(a, b));
            }
        }
    }
    best[n]
}

/// Several numeric columns and a categorical one: MDAV's SSE is no worse than the plain MDAV's
/// (the same algorithm, so equal up to the rounding of the printed means).
#[test]
fn several_columns_sse_no_worse_than_plain_mdav() {
    for (seed, k) in [(1u64, 3usize), (2, 5), (3, 2), (4, 4)] {
        let mut rng = Lcg(seed);
        let n = 150 + 37 * seed as usize;
        let rows: Vec<Vec<String>> = (0..n)
            .map(|_| {
                let a = (rng.next() * 100.0 * 100.0).round() / 100.0;
                let b = (rng.next() * rng.next() * 5000.0).round();
                let c = ((a / 10.0 + rng.next() * 30.0) * 10.0).round() / 10.0;
                let cat = ["red", "green", "blue"][(rng.next() * 3.0) as usize];
                vec![
                    format!("{a}"),
                    format!("{b}"),
                    cat.to_string(),
                    format!("{c}"),
                    format!("s{}", (rng.next() * 4.0) as u32),
                ]
            })
            .collect();
        let dir = tempfile::tempdir().unwrap();
        write_case(
            dir.path(),
            &["a", "b", "cat", "c", "sens"],
            &rows,
            &[0, 1, 2, 3],
        );
        let qis = Qis {
            numeric: vec![0, 1, 3],
            categorical: vec![2],
        };
        let sse = run_case(dir.path(), k, &qis);
        let columns: Vec<(f64, f64)> = [0, 1, 3]
            .iter()
            .map(|&c| {
                mean_sd(
                    &rows
                        .iter()
                        .map(|r| r[c].parse().unwrap())
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let points: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| {
                [0, 1, 3]
                    .iter()
                    .zip(&columns)
                    .map(|(&c, &(m, sd))| (r[c].parse::<f64>().unwrap() - m) / sd)
                    .collect()
            })
            .collect();
        let plain = plain_mdav_sse(&points, k);
        assert!(
            sse <= plain * (1.0 + 1e-4),
            "seed {seed} k {k}: SSE {sse} > plain MDAV's {plain}"
        );
    }
}

/// One numeric column: the groups are the optimal univariate microaggregation's (the report
/// says so), whose SSE the DP here gives (MDAV itself was 19 % above it on seed 11; the issue
/// asks for 5 %).
#[test]
fn univariate_sse_within_5_percent_of_optimal() {
    for (seed, k) in [(11u64, 3usize), (12, 4), (13, 5), (14, 7)] {
        let mut rng = Lcg(seed);
        let n = 400;
        // Uniform, skewed and clustered values, with ties.
        let values: Vec<f64> = (0..n)
            .map(|i| match i % 3 {
                0 => (rng.next() * 1000.0).round(),
                1 => (rng.next().powi(3) * 10000.0).round(),
                _ => (500.0 + rng.next() * 20.0).round(),
            })
            .collect();
        let rows: Vec<Vec<String>> = values
            .iter()
            .map(|v| vec![format!("{v}"), format!("r{}", (rng.next() * 9.0) as u32)])
            .collect();
        let dir = tempfile::tempdir().unwrap();
        write_case(dir.path(), &["x", "other"], &rows, &[0]);
        let qis = Qis {
            numeric: vec![0],
            categorical: vec![],
        };
        let sse = run_case(dir.path(), k, &qis);
        let (_, sd) = mean_sd(&values);
        let optimal = optimal_univariate_sse(&values, k) / (sd * sd);
        assert!(
            sse <= optimal * (1.0 + 1e-4),
            "seed {seed} k {k}: SSE {sse}, optimal {optimal} (ratio {})",
            sse / optimal
        );
    }
}

/// The DP is the optimum: on tiny inputs it equals the best of every grouping into sorted runs,
/// and it never exceeds plain MDAV's SSE.
#[test]
fn dynamic_programming_is_optimal_on_small_inputs() {
    fn brute(v: &[f64], k: usize) -> f64 {
        if v.is_empty() {
            return 0.0;
        }
        (k..=v.len().min(2 * k - 1))
            .filter(|&s| v.len() - s == 0 || v.len() - s >= k)
            .map(|s| {
                let g = &v[..s];
                let m = g.iter().sum::<f64>() / s as f64;
                g.iter().map(|x| (x - m).powi(2)).sum::<f64>() + brute(&v[s..], k)
            })
            .fold(f64::INFINITY, f64::min)
    }
    let mut rng = Lcg(5);
    for k in 2..5 {
        let mut v: Vec<f64> = (0..13).map(|_| (rng.next() * 50.0).round()).collect();
        let dp = optimal_univariate_sse(&v, k);
        let points: Vec<Vec<f64>> = v.iter().map(|&x| vec![x]).collect();
        assert!(dp <= plain_mdav_sse(&points, k) + 1e-9);
        v.sort_by(f64::total_cmp);
        assert!((dp - brute(&v, k)).abs() < 1e-9, "k {k}");
    }
}

/// The configs `anonbox init` writes for ADULT (age numeric, seven categorical
/// quasi-identifiers; its l-diversity removed, which MDAV refuses) and the toolbox's census
/// sample (`<vgh>`s, sex through a category map, so categorical): re-checked releases.
#[test]
fn init_and_toolbox_configs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = common::data("adult/adult.csv");
    let init = common::anonbox(
        d,
        &[
            "init",
            data.to_str().unwrap(),
            "--separator",
            ";",
            "--header",
            "--dir",
            "rel",
        ],
    );
    assert!(init.status.success());
    let config = d.join("rel/config.xml");
    let text = std::fs::read_to_string(&config).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.contains("l-diversity"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&config, text).unwrap();
    let run = common::anonbox(
        d,
        &[
            "-config",
            "rel/config.xml",
            "-method",
            "MDAV",
            "-k",
            "5",
            "-output",
            "out.csv",
            "-report",
            "r.json",
            "-quiet",
        ],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut input = read(&data, b';');
    let mut output = read(&d.join("out.csv"), b';');
    input.remove(0);
    output.remove(0);
    let qis = Qis {
        numeric: vec![1],
        categorical: vec![0, 2, 3, 4, 5, 6, 7],
    };
    let (sse, _) = check_release(&input, &output, &qis, 5);
    let r: Value = serde_json::from_slice(&std::fs::read(d.join("r.json")).unwrap()).unwrap();
    assert!((r["sse"].as_f64().unwrap() - sse).abs() < 1e-9 * sse.max(1.0));
    assert_eq!(r["released_values"][1]["released"], "group mean");
    assert_eq!(r["released_values"][0]["released"], "group mode");

    // The census sample: columns 12 (sex, categorical) and 0 (age), identifiers 1 and 2 dropped.
    let dir = common::workdir("census-income-1k.xml");
    let d = dir.path();
    let run = common::anonbox(
        d,
        &[
            "-config",
            "configs/census-income-1k.xml",
            "-method",
            "MDAV",
            "-k",
            "3",
            "-output",
            "out.data",
            "-report",
            "r.html",
            "-quiet",
        ],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // The HTML page's utility table has SSE and IL1s.
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(
        html.contains("data-key=\"utility.sse\"") && html.contains("data-key=\"utility.il1s\"")
    );
    let input: Vec<Vec<String>> = read(
        &common::data("census-income-1k/Input/census-income_1K.data"),
        b',',
    )
    .into_iter()
    .map(|r| {
        r.into_iter()
            .enumerate()
            .filter(|(i, _)| *i != 1 && *i != 2)
            .map(|(_, v)| v.trim().to_string())
            .collect()
    })
    .collect();
    let output: Vec<Vec<String>> = read(&d.join("out.data"), b',')
        .into_iter()
        .map(|r| r.into_iter().map(|v| v.trim().to_string()).collect())
        .collect();
    // Column 12 of the input is 10 of the output (two identifiers before it removed).
    check_release(
        &input,
        &output,
        &Qis {
            numeric: vec![0],
            categorical: vec![10],
        },
        3,
    );
}

/// MDAV refuses at config time (exit 2, nothing written) the models it cannot enforce, a kept
/// database and another output format; a table without a numeric quasi-identifier fails the run
/// (exit 1, nothing written).
#[test]
fn refuses_what_it_cannot_enforce() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows: Vec<Vec<String>> = (0..20)
        .map(|i| {
            vec![
                format!("{}", i * 3 % 17),
                format!("c{}", i % 3),
                format!("s{}", i % 2),
            ]
        })
        .collect();
    write_case(d, &["x", "c", "s"], &rows, &[0, 1]);
    let before = common::files_in(d);
    let text = std::fs::read_to_string(d.join("config.xml")).unwrap();
    let with_l = text.replace(
        "</qid>\n",
        "</qid>\n  <sens><att index=\"2\" name=\"s\"/></sens>\n  <privacy><distinct-l-diversity \
         attribute=\"s\" l=\"2\"/></privacy>\n",
    );
    std::fs::write(d.join("l.xml"), with_l).unwrap();
    let out = common::anonbox(d, &["-config", "l.xml", "-quiet"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not enforced by MDAV"), "{err}");
    let out = common::anonbox(d, &["-config", "config.xml", "-db", "w.db", "-quiet"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-db: MDAV"));
    let out = common::anonbox(
        d,
        &[
            "-config",
            "config.xml",
            "-outputFormat",
            "genValsDist",
            "-quiet",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let mut expected = before.clone();
    expected.push("l.xml".into());
    expected.sort();
    assert_eq!(common::files_in(d), expected);

    // Only the categorical column as a quasi-identifier.
    let cat = text.replace(
        "    <att index=\"0\" name=\"x\" hierarchy=\"h0.csv\"/>\n",
        "",
    );
    std::fs::write(d.join("cat.xml"), cat).unwrap();
    let out = common::anonbox(d, &["-config", "cat.xml", "-report", "r.json", "-quiet"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("MDAV needs a numeric"));
    assert!(!d.join("out.csv").exists() && !d.join("r.json").exists());
}
