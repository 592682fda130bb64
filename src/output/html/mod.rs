//! The HTML report (`-report run.html`): one self-contained file a person can read in any
//! browser, with nothing fetched (no scripts, fonts, styles or images from elsewhere).
//!
//! The page is rendered by minijinja from `templates/report.html`, embedded at build time; every
//! value is escaped by the template engine's HTML auto-escaping (names, labels and paths are user
//! data), except the charts, which are SVG text drawn by plotters ([`charts`]) from numbers only.
//!
//! Every figure comes from the run's [`Report`] and [`Release`]: the summary table reads its
//! values from the report's JSON form, and each cell carries the exact JSON value in
//! `data-key`/`data-value`, so a reader (or a test) can match the page against `-report x.json`.

pub mod charts;

use std::path::Path;

use serde::Serialize;

use crate::algorithms::CheckedSample;
use crate::io::Publication;
use crate::job::Job;
use crate::output::{summary, Report};
use crate::release::{AttributeProfile, Release};
use crate::{Error, Result};

/// The page template (autoescaped as HTML by its name).
const TEMPLATE: &str = include_str!("../../../templates/report.html");

/// True if `path` names an HTML report (`.html` or `.htm`, any case).
pub fn is_html(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
}

/// One row of a table of figures: a label, the report's key (`risk.highest`: the path of the
/// value in the JSON report), its exact JSON value and a short form for people.
#[derive(Debug, Serialize)]
struct Figure {
    label: &'static str,
    key: String,
    value: String,
    shown: String,
}

/// A chart: its title, the SVG and a caption.
#[derive(Debug, Serialize)]
struct Chart {
    id: &'static str,
    title: String,
    svg: String,
    caption: String,
}

#[derive(Debug, Serialize)]
struct Page<'a> {
    method: &'a str,
    version: &'a str,
    input: &'a str,
    output: Option<&'a str>,
    summary: String,
    figures: Vec<Figure>,
    utility: Vec<Figure>,
    attributes: &'a [AttributeProfile],
    charts: Vec<Chart>,
    /// The risk analysis, input beside release ([`risk_rows`]).
    risk_analysis: Vec<RiskRow>,
    risk_population: String,
}

/// One row of the risk analysis table: a figure of the input and of the release.
#[derive(Debug, Serialize)]
struct RiskRow {
    label: &'static str,
    input: Option<Figure>,
    release: Option<Figure>,
}

/// The risk analysis table: label and key below `risk_analysis.input` / `.release`.
const RISK_ANALYSIS: [(&str, &str); 13] = [
    ("records", "records"),
    ("classes", "classes"),
    ("prosecutor: highest risk", "prosecutor.highest"),
    ("prosecutor: average risk", "prosecutor.average"),
    ("prosecutor: records at risk", "prosecutor.records_at_risk"),
    ("journalist: highest risk", "journalist.highest"),
    ("journalist: records at risk", "journalist.records_at_risk"),
    ("marketer risk", "marketer"),
    ("sample uniques (share)", "sample_uniqueness"),
    (
        "population uniques: Pitman",
        "population_uniques.pitman.share",
    ),
    (
        "population uniques: Zayatz",
        "population_uniques.zayatz.share",
    ),
    ("population uniques: SNB", "population_uniques.snb.share"),
    (
        "population uniques: Dankar",
        "population_uniques.dankar.share",
    ),
];

/// The rows of the risk analysis table; an estimate that did not converge shows as none.
fn risk_rows(json: &serde_json::Value) -> Vec<RiskRow> {
    let side = |side: &str, key: &str| {
        let full = format!("risk_analysis.{side}.{key}");
        if let Some(e) = key.strip_suffix(".share") {
            let available = format!("/risk_analysis/{side}/{}/available", e.replace('.', "/"));
            if json.pointer(&available) == Some(&serde_json::Value::Bool(false)) {
                return None;
            }
        }
        figures(json, &[("", &full)]).pop()
    };
    RISK_ANALYSIS
        .iter()
        .map(|&(label, key)| RiskRow {
            label,
            input: side("input", key),
            release: side("release", key),
        })
        .collect()
}

/// The summary table: label and the report key it shows.
const SUMMARY: [(&str, &str); 18] = [
    ("input encoding", "input_encoding"),
    ("records read", "rows_read"),
    ("rows skipped", "rows_skipped"),
    ("records anonymized", "records"),
    ("records suppressed", "suppressed_records"),
    ("privacy models", "privacy_models"),
    ("k", "k"),
    ("classes released", "equivalence_classes"),
    ("information loss", "information_loss"),
    ("metric", "metric"),
    ("highest risk", "risk.highest"),
    ("average risk", "risk.average"),
    ("records at risk", "risk.records_at_risk"),
    ("input: highest risk", "risk_input.highest"),
    ("input: average risk", "risk_input.average"),
    ("input: records at risk", "risk_input.records_at_risk"),
    ("risk threshold", "risk.threshold"),
    ("total time (s)", "elapsed_seconds.total"),
];

/// The utility table.
const UTILITY: [(&str, &str); 10] = [
    ("Loss", "utility.Loss"),
    ("Precision", "utility.Precision"),
    ("Height", "utility.Height"),
    ("Entropy", "utility.Entropy"),
    ("DM*", "utility.DMStar"),
    ("DM", "utility.DM"),
    ("AECS", "utility.AECS"),
    ("discernibility", "utility.discernibility"),
    ("average class size", "utility.average_class_size"),
    ("NCP (Mondrian)", "utility.ncp"),
];

/// The figures of `rows` present (not null) in the report's JSON.
fn figures(json: &serde_json::Value, rows: &[(&'static str, &str)]) -> Vec<Figure> {
    rows.iter()
        .filter_map(|&(label, key)| {
            let v = json.pointer(&format!("/{}", key.replace('.', "/")))?;
            let (value, shown) = match v {
                serde_json::Value::Null => return None,
                serde_json::Value::String(s) => (s.clone(), s.clone()),
                serde_json::Value::Number(n) => (
                    n.to_string(),
                    match n.as_u64() {
                        Some(i) => i.to_string(),
                        None => charts::short(n.as_f64().unwrap_or(f64::NAN)),
                    },
                ),
                serde_json::Value::Array(items) => {
                    let text = items
                        .iter()
                        .map(|i| match i {
                            serde_json::Value::String(s) => s.clone(),
                            other => other.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ");
                    (v.to_string(), text)
                }
                other => (other.to_string(), other.to_string()),
            };
            Some(Figure {
                label,
                key: key.to_string(),
                value,
                shown,
            })
        })
        .collect()
}

/// Renders the page.
pub fn render(
    job: &Job,
    report: &Report,
    release: &Release,
    checked: Option<&CheckedSample>,
) -> Result<String> {
    let json = serde_json::to_value(report).expect("a report serializes");
    let mut charts_list = vec![Chart {
        id: "class-sizes",
        title: "Class sizes".into(),
        svg: charts::class_sizes(&release.class_sizes, report.k)?,
        caption: format!(
            "{} released classes by size (suppressed records left out){}.",
            release.class_sizes.len(),
            report
                .k
                .map(|k| format!("; the red line marks k = {k}"))
                .unwrap_or_default()
        ),
    }];
    charts_list.push(Chart {
        id: "risk",
        title: "Re-identification risk before and after".into(),
        svg: charts::risk_bands(
            &release.input_class_sizes,
            release
                .risk
                .as_ref()
                .map(|_| release.class_sizes.as_slice()),
            job.risk_threshold,
        )?,
        caption: if release.risk.is_some() {
            "Share of the records in each band of prosecutor risk (1 / the size of the \
             record's class), in the input (its distinct quasi-identifier tuples) and in the \
             release (suppressed records left out)."
        } else {
            "Share of the records in each band of prosecutor risk (1 / the size of the \
             record's class) in the input (its distinct quasi-identifier tuples). The release \
             publishes the quasi-identifiers as they are (Anatomy's QIT): their risk is the \
             input's; what Anatomy protects is the link to the sensitive values."
        }
        .into(),
    });
    if let Some(sample) = checked {
        let shown = sample.items.len();
        let sampled = if sample.stride > 1 {
            format!(
                " The search checked {} transformations: one in {} is shown ({shown}, in \
                 transformation order), and the optimum.",
                sample.total, sample.stride
            )
        } else {
            format!(" All {} checked transformations are shown.", sample.total)
        };
        let metric = report.metric.unwrap_or("information loss");
        charts_list.push(Chart {
            id: "candidates",
            title: "Transformations the search checked".into(),
            svg: charts::candidates(sample, report.transformation.as_deref(), metric)?,
            caption: format!(
                "Information loss ({metric}) of each checked transformation against the sum of \
                 its levels: valid ones (blue), invalid ones (grey crosses, drawn at the lower \
                 bound of their loss), the optimum released (orange).{sampled}"
            ),
        });
    }
    let page = Page {
        method: report.method,
        version: report.anonbox_version,
        input: &report.input,
        output: report.output.as_deref(),
        summary: summary::render(report),
        figures: figures(&json, &SUMMARY),
        utility: figures(&json, &UTILITY),
        attributes: &release.attributes,
        charts: charts_list,
        risk_analysis: risk_rows(&json),
        risk_population: format!(
            "{} ({} people)",
            report.risk_analysis.population.name, report.risk_analysis.population.size
        ),
    };
    let mut env = minijinja::Environment::new();
    env.add_template("report.html", TEMPLATE)
        .map_err(|e| Error::Invalid(format!("internal error: HTML template: {e}")))?;
    env.get_template("report.html")
        .and_then(|t| t.render(minijinja::value::Serde(&page)))
        .map_err(|e| Error::Invalid(format!("internal error: HTML report: {e}")))
}

/// Writes the HTML report to `path`, staged in `publication` (with the run's other outputs).
pub fn write(
    publication: &Publication,
    path: &Path,
    job: &Job,
    report: &Report,
    release: &Release,
    checked: Option<&CheckedSample>,
) -> Result<()> {
    let html = render(job, report, release, checked)?;
    publication
        .write(path, html.as_bytes())
        .map_err(|e| match e {
            Error::Io { source, .. } => Error::io(path, source),
            other => other,
        })
}
