//! (ε,δ)-differential privacy (SafePub) against ARX 3.9.2 on ADULT: the derived k and β
//! (`reference/arx-dp-parameters.jsonl`), the data-independent transformation of each degree
//! (`reference/arx-adult-dp-degrees.jsonl`), and the distribution of the data-dependent
//! search's choices over ARX's own random runs (`reference/arx-adult-dp-search.json`); every
//! release re-checked from its files by an independent checker written here.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anonbox::algorithms::safepub;
use anonbox::cli::RunArgs;
use anonbox::config::build_job;
use anonbox::privacy::differential::{self, Degree};
use serde_json::Value;

use crate::common;

fn jsonl(name: &str) -> Vec<Value> {
    std::fs::read_to_string(common::data(name))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// k and β as ARX derives them, for a grid of ε, δ and search budgets (the runner's `dp_k`,
/// `dp_beta`).
#[test]
fn derived_k_and_beta_equal_arx() {
    let rows = jsonl("reference/arx-dp-parameters.jsonl");
    assert!(rows.len() >= 20, "the grid");
    for row in rows {
        let eps = row["epsilon"].as_f64().unwrap();
        let delta = row["delta"].as_f64().unwrap();
        let budget = row["dp_search_budget"].as_f64().unwrap_or(0.0);
        let p = differential::parameters(eps, delta, budget).expect("computable");
        let (k, beta) = (
            row["dp_k"].as_u64().unwrap(),
            row["dp_beta"].as_f64().unwrap(),
        );
        assert_eq!(p.k, k, "k for eps {eps} delta {delta} budget {budget}");
        assert!(
            (p.beta - beta).abs() <= 4.0 * f64::EPSILON * beta,
            "beta for eps {eps} delta {delta} budget {budget}: {} vs ARX {beta}",
            p.beta
        );
    }
}

/// A config for ADULT's `qis` (all nine by default) with `privacy`, writing `o.csv`.
fn config(dir: &Path, qis: &[&str], privacy: &str, metric: &str) -> PathBuf {
    let data = common::data("adult");
    let att = |c: &str| {
        let i = common::ADULT_ATTRIBUTES
            .iter()
            .position(|h| *h == c)
            .unwrap();
        format!(
            "<att index='{i}' name='{c}' hierarchy='{}'/>",
            data.join(format!("adult_hierarchy_{c}.csv")).display()
        )
    };
    let qid: String = qis.iter().map(|c| att(c)).collect();
    let config = dir.join("dp.xml");
    std::fs::write(
        &config,
        format!(
            "<config method='Flash' metric='{metric}'>\
             <input filename='{}' separator=';' header='true'/><output filename='o.csv'/>\
             <qid>{qid}</qid><privacy>{privacy}</privacy></config>",
            data.join("adult.csv").display(),
        ),
    )
    .unwrap();
    config
}

fn job_of(config: PathBuf, seed: u64) -> anonbox::job::Job {
    build_job(&RunArgs {
        config: Some(config),
        quiet: true,
        seed: Some(seed),
        ..RunArgs::default()
    })
    .unwrap()
}

/// Runs SafePub in the library as a run does: the sample of `seed`, then the release.
fn release(
    job: &anonbox::job::Job,
    table: &anonbox::data::EncodedTable,
) -> (anonbox::algorithms::Outcome, Vec<usize>, Vec<bool>) {
    let params = job.safepub().expect("a differential-privacy model");
    let beta = safepub::parameters(params.privacy).unwrap().beta;
    let sampled = table
        .clone()
        .with_sample(differential::sample(table.rows(), beta, params.seed));
    let (outcome, result) = safepub::run(&params, &sampled).unwrap();
    (outcome, result.levels, result.suppressed)
}

/// Each degree's transformation on ADULT is ARX's, and so are k and β.
#[test]
fn data_independent_transformation_equals_arx() {
    let dir = tempfile::tempdir().unwrap();
    let rows = jsonl("reference/arx-adult-dp-degrees.jsonl");
    assert!(rows.len() >= 5);
    for row in rows {
        let degree = row["dp_generalization"].as_str().unwrap();
        let privacy = format!(
            "<differential-privacy epsilon='{}' delta='{}' generalization='{degree}'/>",
            row["epsilon"], row["delta"]
        );
        let job = job_of(
            config(dir.path(), &common::ADULT_ATTRIBUTES, &privacy, "Loss"),
            1,
        );
        let table = common::load_table(&job).unwrap().0;
        let (outcome, levels, _) = release(&job, &table);
        assert_eq!(levels, common::levels(&row), "{degree}");
        let anonbox::algorithms::Details::DifferentialPrivacy(d) = &outcome.details else {
            panic!("{degree}: no differential-privacy details");
        };
        assert_eq!(d.k, row["dp_k"].as_u64().unwrap(), "{degree}");
        assert_eq!(
            outcome.transformations_checked,
            Some(1),
            "{degree}: one check"
        );
    }
}

/// The hierarchy file of an ADULT column: value -> its labels by level.
fn hierarchy(column: &str) -> HashMap<String, Vec<String>> {
    std::fs::read_to_string(common::data(&format!("adult/adult_hierarchy_{column}.csv")))
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let labels: Vec<String> = l.split(';').map(str::to_string).collect();
            (labels[0].clone(), labels)
        })
        .collect()
}

/// ADULT's records (without the header).
fn adult() -> Vec<Vec<String>> {
    std::fs::read_to_string(common::data("adult/adult.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

/// The independent check of a release written to `output` with the report `report`: every
/// record left out of the sample (drawn again from the reported seed) is released suppressed;
/// every other record is released as its values generalized to the reported transformation
/// by the hierarchy files, or suppressed; a released class holds at least k (the report's)
/// sampled records, and no class of at least k sampled records is suppressed.
fn check_release(output: &Path, report: &Value, qis: &[&str]) -> Result<(), String> {
    let dp = &report["differential_privacy"];
    let k = dp["k"].as_u64().unwrap() as usize;
    let beta = dp["beta"].as_f64().unwrap();
    let seed = dp["seed"].as_u64().ok_or("the report states the seed")?;
    let levels = common::levels(report);
    let input = adult();
    let text = std::fs::read_to_string(output).unwrap();
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    if lines.first().is_some_and(|l| l.starts_with("sex")) {
        lines.remove(0);
    }
    if lines.len() != input.len() {
        return Err(format!("{} rows for {} records", lines.len(), input.len()));
    }
    let members = differential::sample(input.len(), beta, seed);
    let cols: Vec<usize> = qis
        .iter()
        .map(|q| {
            common::ADULT_ATTRIBUTES
                .iter()
                .position(|a| a == q)
                .unwrap()
        })
        .collect();
    let hs: Vec<HashMap<String, Vec<String>>> = qis.iter().map(|q| hierarchy(q)).collect();
    let mut classes: HashMap<Vec<String>, usize> = HashMap::new();
    let mut expected: HashMap<Vec<String>, usize> = HashMap::new();
    let (mut sampled, mut suppressed) = (0, 0);
    for (r, (line, record)) in lines.iter().zip(&input).enumerate() {
        let fields: Vec<&str> = line.split(';').collect();
        let released: Vec<String> = cols.iter().map(|&c| fields[c].to_string()).collect();
        let general: Vec<String> = cols
            .iter()
            .zip(&hs)
            .zip(&levels)
            .map(|((&c, h), &l)| h[&record[c]][l].clone())
            .collect();
        let is_suppressed = released.iter().all(|v| v == "*");
        if members[r] {
            sampled += 1;
            *expected.entry(general.clone()).or_default() += 1;
        }
        if is_suppressed && general.iter().all(|v| v == "*") {
            // At the top of every hierarchy a released record reads as a suppressed one.
            continue;
        }
        if is_suppressed {
            suppressed += 1;
            continue;
        }
        if !members[r] {
            return Err(format!("row {r}: left out of the sample but released"));
        }
        if released != general {
            return Err(format!(
                "row {r}: {released:?}, the transformation gives {general:?}"
            ));
        }
        *classes.entry(released).or_default() += 1;
    }
    if let Some((c, n)) = classes.iter().find(|(_, &n)| n < k) {
        return Err(format!("class {c:?} of {n} < k = {k} sampled records"));
    }
    for (c, &n) in &expected {
        if n >= k && classes.get(c) != Some(&n) && c.iter().any(|v| v != "*") {
            return Err(format!(
                "class {c:?} of {n} >= k sampled records was suppressed"
            ));
        }
    }
    let unsampled = input.len() - sampled;
    if dp["sampled_records"] != sampled || dp["unsampled_records"] != unsampled {
        return Err(format!(
            "the report says {} sampled, {} left out; the seed gives {sampled}, {unsampled}",
            dp["sampled_records"], dp["unsampled_records"]
        ));
    }
    if suppressed < unsampled {
        return Err("fewer records suppressed than left out of the sample".into());
    }
    Ok(())
}

/// Runs the binary on a DP config with `-seed`, returning the output's bytes and the report.
fn run_binary(dir: &Path, config: &Path, seed: &str, extra: &[&str]) -> (Vec<u8>, Value) {
    let config = config.to_str().unwrap();
    let mut args = vec![
        "-config", config, "-seed", seed, "-output", "o.csv", "-report", "r.json",
    ];
    args.extend_from_slice(extra);
    let out = common::anonbox(dir, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("r.json")).unwrap()).unwrap();
    (std::fs::read(dir.join("o.csv")).unwrap(), report)
}

/// Releases of both kinds written by the binary pass the independent check; the same seed
/// gives the same release, another seed another sample.
#[test]
fn releases_pass_the_independent_check_and_follow_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let qis = common::ADULT_ATTRIBUTES;
    for (privacy, metric) in [
        (
            "<differential-privacy epsilon='2' delta='1e-5' generalization='medium'/>",
            "Loss",
        ),
        (
            "<differential-privacy epsilon='1' delta='1e-4' generalization='high'/>",
            "Loss",
        ),
        (
            "<differential-privacy epsilon='2' delta='1e-5' steps='12'/>",
            "Loss",
        ),
        (
            "<differential-privacy epsilon='1.5' delta='1e-6' steps='6' budget='0.2'/>",
            "AECS",
        ),
    ] {
        let config = config(dir.path(), &qis, privacy, metric);
        let (a, report) = run_binary(dir.path(), &config, "7", &[]);
        check_release(&dir.path().join("o.csv"), &report, &qis)
            .unwrap_or_else(|e| panic!("{privacy}: {e}"));
        let dp = &report["differential_privacy"];
        assert_eq!(dp["seed"], 7);
        for field in ["epsilon", "delta", "k", "beta", "search_budget"] {
            assert!(!dp[field].is_null(), "{privacy}: the report states {field}");
        }
        let (b, _) = run_binary(dir.path(), &config, "7", &[]);
        assert!(a == b, "{privacy}: seed 7 twice gave two releases");
        let (c, other) = run_binary(dir.path(), &config, "8", &[]);
        assert!(a != c, "{privacy}: seeds 7 and 8 gave the same release");
        check_release(&dir.path().join("o.csv"), &other, &qis)
            .unwrap_or_else(|e| panic!("{privacy} seed 8: {e}"));
        let beta = dp["beta"].as_f64().unwrap();
        assert_ne!(
            differential::sample(30_162, beta, 7),
            differential::sample(30_162, beta, 8),
            "{privacy}: another seed, another sample"
        );
    }
}

/// Without -seed, the report says the seed was random (and states no number).
#[test]
fn an_unseeded_run_reports_a_random_seed() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(
        dir.path(),
        &["sex", "age", "race"],
        "<differential-privacy epsilon='2' delta='1e-5'/>",
        "Loss",
    );
    let out = common::anonbox(
        dir.path(),
        &[
            "-config",
            config.to_str().unwrap(),
            "-output",
            "o.csv",
            "-report",
            "r.json",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(report["differential_privacy"]["seed"], "random");
    assert_eq!(report["differential_privacy"]["generalization"], "medium");
}

/// Over many seeds the share of sampled records is β within a binomial bound (5 standard
/// deviations), and each seed's share within its own.
#[test]
fn sampling_rate_is_beta() {
    let beta_of = |eps: f64| differential::parameters(eps, 1e-5, 0.0).unwrap().beta;
    for (beta, rows, seeds) in [
        (beta_of(2.0), 30_162, 200u64),
        (beta_of(0.5), 1_000, 2_000),
        (1.0 - (-0.05f64).exp(), 5_000, 300),
    ] {
        let mut total = 0u64;
        for seed in 0..seeds {
            let n = differential::sample(rows, beta, seed)
                .iter()
                .filter(|&&m| m)
                .count() as f64;
            let sd = (rows as f64 * beta * (1.0 - beta)).sqrt();
            assert!(
                (n - rows as f64 * beta).abs() < 6.0 * sd,
                "seed {seed}: {n} of {rows}, beta {beta}"
            );
            total += n as u64;
        }
        let draws = (rows as u64 * seeds) as f64;
        let sd = (draws * beta * (1.0 - beta)).sqrt();
        assert!(
            (total as f64 - draws * beta).abs() < 5.0 * sd,
            "{total} of {draws}, beta {beta}"
        );
    }
}

/// ADULT's quasi-identifiers of the data-dependent comparison (a lattice of 80
/// transformations, so that the choices concentrate on a few of them).
const SEARCH_QIS: [&str; 4] = ["sex", "age", "race", "education"];

/// The reference runs of the data-dependent search: its parameters and ARX's choices.
fn search_reference() -> (Value, Vec<Vec<usize>>) {
    let text = std::fs::read_to_string(common::data("reference/arx-adult-dp-search.json")).unwrap();
    let row: Value = serde_json::from_str(&text).unwrap();
    let chosen = row["per_rep"]
        .as_array()
        .unwrap()
        .iter()
        .map(common::levels)
        .collect();
    (row, chosen)
}

/// Two-sample chi-square statistic of two samples of outcomes, over the outcomes pooled until
/// each bin expects at least 5 in both samples (the rarest pooled together), with its degrees
/// of freedom.
fn chi_square(a: &[Vec<usize>], b: &[Vec<usize>]) -> (f64, usize) {
    let mut counts: BTreeMap<&Vec<usize>, (f64, f64)> = BTreeMap::new();
    for t in a {
        counts.entry(t).or_default().0 += 1.0;
    }
    for t in b {
        counts.entry(t).or_default().1 += 1.0;
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let mut cells: Vec<(f64, f64)> = counts.into_values().collect();
    cells.sort_by(|x, y| (x.0 + x.1).total_cmp(&(y.0 + y.1)));
    // Pool the smallest cells until each expects >= 5 in the smaller sample.
    let min_total = 5.0 * (na + nb) / na.min(nb);
    let mut bins: Vec<(f64, f64)> = Vec::new();
    let mut acc = (0.0, 0.0);
    for c in cells {
        acc = (acc.0 + c.0, acc.1 + c.1);
        if acc.0 + acc.1 >= min_total {
            bins.push(acc);
            acc = (0.0, 0.0);
        }
    }
    if acc.0 + acc.1 > 0.0 {
        match bins.last_mut() {
            Some(last) => *last = (last.0 + acc.0, last.1 + acc.1),
            None => bins.push(acc),
        }
    }
    let stat = bins
        .iter()
        .map(|&(x, y)| {
            let t = x + y;
            let (ea, eb) = (t * na / (na + nb), t * nb / (na + nb));
            (x - ea).powi(2) / ea + (y - eb).powi(2) / eb
        })
        .sum();
    (stat, bins.len().saturating_sub(1))
}

/// A bound the statistic exceeds with probability about 1e-6 under the null hypothesis
/// (Wilson-Hilferty's approximation of the chi-square quantile, z = 4.75).
fn chi_square_bound(df: usize) -> f64 {
    let k = df.max(1) as f64;
    let z = 4.75;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// The data-dependent search's choices over `seeds`, with the search's budget `budget`.
fn our_choices(seeds: std::ops::Range<u64>, budget: Option<f64>) -> Vec<Vec<usize>> {
    let (row, _) = search_reference();
    let dir = tempfile::tempdir().unwrap();
    let privacy = format!(
        "<differential-privacy epsilon='{}' delta='{}' steps='{}' budget='{}'/>",
        row["epsilon"],
        row["delta"],
        row["dp_search_steps_expansions"],
        budget.unwrap_or(row["dp_search_budget"].as_f64().unwrap())
    );
    let config = config(dir.path(), &SEARCH_QIS, &privacy, "Loss");
    let job = job_of(config, 0);
    let table = common::load_table(&job).unwrap().0;
    seeds
        .map(|seed| {
            let mut params = job.safepub().unwrap();
            params.seed = seed;
            let beta = safepub::parameters(params.privacy).unwrap().beta;
            let sampled = table
                .clone()
                .with_sample(differential::sample(table.rows(), beta, seed));
            safepub::run(&params, &sampled).unwrap().1.levels
        })
        .collect()
}

/// The distribution of the data-dependent search's releases over 400 seeds matches ARX's over
/// its 400 random runs (two-sample chi-square below its 1e-6 quantile); the same comparison
/// rejects a search that spends ten times the budget (its choices concentrate on the best
/// transformations), so it can fail.
#[test]
fn data_dependent_choices_match_arx_in_distribution() {
    let (row, arx) = search_reference();
    assert!(arx.len() >= 300, "ARX's runs");
    let ours = our_choices(0..400, None);
    let (stat, df) = chi_square(&ours, &arx);
    assert!(df >= 2, "the outcomes spread over several transformations");
    assert!(
        stat < chi_square_bound(df),
        "chi-square {stat} with {df} degrees of freedom (bound {})",
        chi_square_bound(df)
    );
    let greedy = our_choices(
        0..400,
        Some(10.0 * row["dp_search_budget"].as_f64().unwrap()),
    );
    let (stat, df) = chi_square(&greedy, &arx);
    assert!(
        stat > chi_square_bound(df),
        "ten times the budget passed: chi-square {stat}, {df} degrees of freedom"
    );
}

/// What SafePub cannot enforce is refused before the input is read (exit 2), naming the
/// element or flag.
#[test]
fn refusals() {
    let dir = tempfile::tempdir().unwrap();
    let dp = "<differential-privacy epsilon='2' delta='1e-5'/>";
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        (
            dp.into(),
            vec!["-method", "Datafly"],
            "not enforced by Datafly",
        ),
        (
            dp.into(),
            vec!["-method", "Mondrian"],
            "not enforced by Mondrian",
        ),
        (
            dp.into(),
            vec!["-suppression", "0.5"],
            "does not apply to differential privacy",
        ),
        (dp.into(), vec!["-db", "w.db"], "keeps no database"),
        (
            format!("{dp}<average-risk threshold='0.1'/>"),
            vec![],
            "combined with k-anonymity only",
        ),
        (
            "<differential-privacy epsilon='2' delta='1e-5' steps='5'/>".into(),
            vec!["-metric", "Entropy"],
            "score functions for Loss",
        ),
        (
            "<differential-privacy epsilon='2' delta='1e-5' steps='5' generalization='low'/>"
                .into(),
            vec![],
            "not both",
        ),
        (
            "<differential-privacy epsilon='0.05' delta='1e-5' steps='5'/>".into(),
            vec![],
            "below epsilon",
        ),
        (
            "<differential-privacy epsilon='2' delta='1'/>".into(),
            vec![],
            "strictly between 0 and 1",
        ),
        (
            "<differential-privacy epsilon='2' delta='1e-5' generalization='extreme'/>".into(),
            vec![],
            "unknown generalization",
        ),
        (
            format!("{dp}{dp}"),
            vec![],
            "one differential-privacy model",
        ),
    ];
    for (privacy, flags, says) in cases {
        let config = config(dir.path(), &["sex", "age"], &privacy, "Loss");
        let mut args = vec!["-config", config.to_str().unwrap()];
        args.extend(flags.iter());
        let out = common::anonbox(dir.path(), &args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{privacy} {flags:?}: {stderr}");
        assert!(stderr.contains(says), "{privacy} {flags:?}: {stderr}");
        assert!(!dir.path().join("o.csv").exists(), "nothing written");
    }
}

/// The generalization degrees' levels on ADULT's hierarchies (heights 1 to 4) as ARX rounds them.
#[test]
fn degrees_round_as_arx() {
    assert_eq!(Degree::Low.levels(&[2, 5, 3]), vec![0, 1, 0]);
    assert_eq!(Degree::High.levels(&[2, 5, 3]), vec![1, 3, 2]);
}
