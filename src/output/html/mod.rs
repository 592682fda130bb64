//! The HTML report (`-report run.html`): one self-contained file a person can read in any
//! browser, with nothing fetched (no scripts, fonts, styles or images from elsewhere).
//!
//! The page is rendered by minijinja from `templates/report.html`, embedded at build time; every
//! value is escaped by the template engine's HTML auto-escaping (names, labels and paths are user
//! data), except the charts, which are SVG text drawn by plotters ([`charts`]) from numbers only.
//!
//! The page opens with the verdict ([`crate::output::verdict`]: each model and the figure the
//! release achieves, records suppressed against the limit, proven optimal or the bound,
//! attributes removed entirely), then the parameters of the run, the figures (each metric
//! explained in one line), the loss per attribute as bars, each sensitive attribute's values
//! before and after, and the charts. The page is a list of [`Section`]s, so another section is
//! one more entry.
//!
//! Every figure comes from the run's [`Report`] and [`Release`]: tables read their values from
//! the report's JSON form, numbers are shown for reading ([`readable`]: four significant
//! digits, shares as %), and each carries the exact JSON value in `data-key`/`data-value`, so a
//! reader (or a test) can match the page against `-report x.json`.

pub mod charts;

use std::path::Path;

use serde::Serialize;

use crate::algorithms::CheckedSample;
use crate::io::Publication;
use crate::job::Job;
use crate::output::verdict::{percent, readable};
use crate::output::Report;
use crate::release::{AttributeProfile, Release, SensitiveProfile};
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
/// value in the JSON report), its exact JSON value, a form for people and what it means.
#[derive(Debug, Serialize)]
struct Figure {
    label: &'static str,
    key: String,
    value: String,
    shown: String,
    explain: &'static str,
}

/// One line of the verdict: the words, and where the model's achieved figure is in the JSON.
#[derive(Debug, Serialize)]
struct VerdictLine {
    /// `holds`, `fails`, `unmeasured`, or empty for the lines that are no model.
    class: &'static str,
    text: String,
    /// `privacy_achieved.N.achieved`, its exact value and its form for reading.
    key: Option<String>,
    value: String,
    shown: String,
}

/// A quasi-identifier's loss for the bars: the share of its hierarchy climbed.
#[derive(Debug, Serialize)]
struct AttributeLoss<'a> {
    profile: &'a AttributeProfile,
    /// level / height, exact (`None` for a partition's ranges, which have no level).
    share: Option<f64>,
    shown: String,
    percent: String,
    removed: bool,
    /// Distinct values after: a partition's ranges are counted as ranges (overlapping ranges
    /// of different classes can outnumber the values).
    after_distinct: String,
    before: Vec<(String, u64)>,
    after: Vec<(String, u64)>,
}

/// A label for reading: a toolbox interval's whole numbers without `.0` (`[18.0]` is `18`,
/// `(34.0:39.0]` is `(34:39]`); other labels as they are.
fn tidy(label: &str) -> String {
    let interval = label.len() > 2
        && matches!(label.as_bytes()[0], b'[' | b'(')
        && matches!(label.as_bytes()[label.len() - 1], b']' | b')');
    if !interval {
        return label.to_string();
    }
    let inner = &label[1..label.len() - 1];
    let whole = |x: &str| match x.strip_suffix(".0") {
        Some(w) if w.parse::<i64>().is_ok() => w.to_string(),
        _ => x.to_string(),
    };
    if !inner.contains(':') && label.starts_with('[') && label.ends_with(']') {
        return whole(inner);
    }
    let parts: Vec<String> = inner.split(':').map(whole).collect();
    format!(
        "{}{}{}",
        &label[..1],
        parts.join(":"),
        &label[label.len() - 1..]
    )
}

/// A sensitive attribute's values, before and after, as shares of the records.
#[derive(Debug, Serialize)]
struct SensitiveRows<'a> {
    profile: &'a SensitiveProfile,
    rows: Vec<(String, String, String)>,
}

/// A section of the page: its id and title; what it shows is chosen by `kind` in the template
/// (`figures`, `attributes`, `sensitive`, `chart`).
#[derive(Debug, Serialize)]
struct Section {
    id: &'static str,
    title: String,
    kind: &'static str,
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
    verdict: Vec<VerdictLine>,
    sections: Vec<Section>,
    parameters: Vec<Figure>,
    figures: Vec<Figure>,
    utility: Vec<Figure>,
    attributes: Vec<AttributeLoss<'a>>,
    sensitive: Vec<SensitiveRows<'a>>,
    charts: Vec<Chart>,
    /// The risk analysis, input beside release ([`risk_rows`]).
    risk_analysis: Vec<RiskRow>,
    /// The attribute risks, one row per quasi-identifier ([`attribute_risk_rows`]), and the
    /// largest minimal sample unique searched.
    attribute_risk: Vec<AttributeRiskRow>,
    attribute_risk_msu: usize,
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
        figures(json, &[("", &full, "")]).pop()
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

/// One quasi-identifier's attribute risks: its name and the shares of [`ATTRIBUTE_RISK`].
#[derive(Debug, Serialize)]
struct AttributeRiskRow {
    name: String,
    cells: Vec<Option<Figure>>,
}

/// The attribute risk table's columns: the side of the analysis and the figure.
const ATTRIBUTE_RISK: [(&str, &str); 4] = [
    ("attributes_input", "unique_alone"),
    ("attributes_input", "needed"),
    ("attributes_input", "in_msus"),
    ("attributes_release", "in_msus"),
];

/// The rows of the attribute risk table (none without the analysis).
fn attribute_risk_rows(json: &serde_json::Value) -> Vec<AttributeRiskRow> {
    let Some(attributes) = json
        .pointer("/risk_analysis/attributes_input/attributes")
        .and_then(|a| a.as_array())
    else {
        return Vec::new();
    };
    attributes
        .iter()
        .enumerate()
        .map(|(i, a)| AttributeRiskRow {
            name: a["name"].as_str().unwrap_or_default().to_string(),
            cells: ATTRIBUTE_RISK
                .iter()
                .map(|&(side, figure)| {
                    let key = format!("risk_analysis.{side}.attributes.{i}.{figure}");
                    let (value, shown) = value_at(json, &key, true)?;
                    Some(Figure {
                        label: "",
                        key,
                        value,
                        shown,
                        explain: "",
                    })
                })
                .collect(),
        })
        .collect()
}

/// The parameters of the run: label and the report key it shows.
const PARAMETERS: [(&str, &str, &str); 18] = [
    ("method", "method", "the anonymization method"),
    ("input", "input", "the file anonymized"),
    ("output files", "output_files", "the files released"),
    (
        "privacy models",
        "privacy_models",
        "what every released class must satisfy",
    ),
    ("k", "k", "fewest records a released class may hold"),
    (
        "suppression limit",
        "suppression_limit",
        "most records the method may suppress (remove) to meet the models",
    ),
    (
        "metric",
        "metric",
        "the information loss the search minimizes",
    ),
    (
        "time limit (s)",
        "time_limit_seconds",
        "the search stops then and releases the best found",
    ),
    (
        "input encoding",
        "input_encoding",
        "text encoding of the input and the release",
    ),
    (
        "risk threshold",
        "risk.threshold",
        "prosecutor risk above which a record is at risk",
    ),
    (
        "threads",
        "threads",
        "threads of the search (the result is the same for any)",
    ),
    (
        "differential privacy: ε",
        "differential_privacy.epsilon",
        "the privacy budget: whether a person is in the input changes a release's probability by at most e^ε",
    ),
    (
        "differential privacy: δ",
        "differential_privacy.delta",
        "the probability with which the bound of ε may fail",
    ),
    (
        "sampling probability β",
        "differential_privacy.beta",
        "each record's chance to enter the sample (derived from ε)",
    ),
    (
        "derived k",
        "differential_privacy.k",
        "fewest sampled records a released class may hold (derived from ε and δ)",
    ),
    (
        "search budget",
        "differential_privacy.search_budget",
        "the share of ε the data-dependent search spends (0: a generalization fixed in advance)",
    ),
    (
        "seed",
        "differential_privacy.seed",
        "the seed of the sample and of the search's choices, or random",
    ),
    (
        "records left out of the sample",
        "differential_privacy.unsampled_records",
        "released suppressed",
    ),
];

/// The figures table: label, the report key it shows, and what it means.
const SUMMARY: [(&str, &str, &str); 20] = [
    ("records read", "rows_read", "data rows of the input"),
    (
        "rows skipped",
        "rows_skipped",
        "rows holding ? (the toolbox's unknown value), not anonymized",
    ),
    (
        "records anonymized",
        "records",
        "records the method anonymized",
    ),
    (
        "records suppressed",
        "suppressed_records",
        "records removed from the release to meet the models",
    ),
    (
        "cells blanked",
        "cell_suppression.cells_suppressed",
        "cell suppression: quasi-identifier cells released as * instead of whole records",
    ),
    (
        "cells per attribute",
        "cell_suppression.cells_by_attribute",
        "cells blanked in each quasi-identifier",
    ),
    (
        "records touched",
        "cell_suppression.records_touched",
        "records with a cell blanked; every other record is as the transformation releases it",
    ),
    (
        "records suppression would take",
        "cell_suppression.records_record_suppression",
        "records a record suppression of the same transformation would suppress whole",
    ),
    (
        "classes released",
        "equivalence_classes",
        "groups of released records sharing every quasi-identifier value",
    ),
    (
        "information loss",
        "information_loss",
        "the metric's loss of the release (0: as the input)",
    ),
    (
        "highest risk",
        "risk.highest",
        "prosecutor risk of the most exposed record: 1 / its class's size",
    ),
    (
        "average risk",
        "risk.average",
        "prosecutor risk averaged over the released records",
    ),
    (
        "records at risk",
        "risk.records_at_risk",
        "share of the released records whose risk is above the threshold",
    ),
    (
        "input: highest risk",
        "risk_input.highest",
        "the same for the input (its distinct quasi-identifier tuples)",
    ),
    (
        "input: average risk",
        "risk_input.average",
        "the same for the input",
    ),
    (
        "input: records at risk",
        "risk_input.records_at_risk",
        "the same for the input",
    ),
    (
        "load (s)",
        "elapsed_seconds.load",
        "reading and encoding the input",
    ),
    (
        "search (s)",
        "elapsed_seconds.search",
        "the method's own time",
    ),
    ("write (s)", "elapsed_seconds.write", "writing the release"),
    ("total time (s)", "elapsed_seconds.total", "the whole run"),
];

/// The utility table: each metric explained in one line.
/// Local recoding's figures (`-localRecoding`), after the summary's.
const LOCAL_RECODING: [(&str, &str, &str); 5] = [
    ("suppressed before local recoding", "local_recoding.before.suppressed_records", "records the optimal global transformation suppresses"),
    ("suppressed after local recoding", "local_recoding.after.suppressed_records", "records still suppressed once the others were released at transformations of their own"),
    ("Loss before local recoding", "local_recoding.before.loss", "ARX's Loss of the optimal global transformation's release"),
    ("Loss after local recoding", "local_recoding.after.loss", "ARX's Loss with each record at its own levels (see local_recoding.loss_computed_as)"),
    ("local recoding groups", "local_recoding.groups", "each group's records and transformation (levels in quasi-identifier order); the first is the global optimum's"),
];

const UTILITY: [(&str, &str, &str); 12] = [
    ("Loss", "utility.Loss", "ARX's loss: the share of each attribute's range a released value covers, averaged (0: as the input, 1: all *)"),
    ("Precision", "utility.Precision", "Sweeney's precision loss: each value's level over its hierarchy's height, averaged (0: as the input, 1: all *)"),
    ("Height", "utility.Height", "the sum of the levels of the transformation"),
    ("Entropy", "utility.Entropy", "non-uniform entropy: bits of information the generalization removed, summed over records and attributes"),
    ("DM*", "utility.DMStar", "discernibility without suppression: the sum of the squared class sizes (lower: smaller classes, more detail)"),
    ("DM", "utility.DM", "discernibility: the same, each suppressed record counting as large as the whole table"),
    ("AECS", "utility.AECS", "average equivalence class size (suppressed records counted as one class)"),
    ("discernibility", "utility.discernibility", "Bayardo and Agrawal's discernibility of the release (equals DM for full-domain methods)"),
    ("average class size", "utility.average_class_size", "released records over released classes"),
    ("NCP (Mondrian)", "utility.ncp", "global certainty penalty: the share of each attribute's range a published interval covers, averaged"),
    ("SSE (MDAV)", "utility.sse", "sum of squared distances between each record's standardized numbers and the group means released"),
    ("IL1s (MDAV)", "utility.il1s", "sdcMicro's IL1s: each number's distance to its released mean over sqrt(2) standard deviations, averaged"),
];

/// The exact JSON value of `key` and its form for reading (four significant digits; `%` for
/// shares when `share`).
fn value_at(json: &serde_json::Value, key: &str, share: bool) -> Option<(String, String)> {
    let v = json.pointer(&format!("/{}", key.replace('.', "/")))?;
    Some(match v {
        serde_json::Value::Null => return None,
        serde_json::Value::String(s) => (s.clone(), s.clone()),
        serde_json::Value::Number(n) => (
            n.to_string(),
            match (n.as_u64(), share) {
                (Some(i), false) => i.to_string(),
                (_, true) => percent(n.as_f64().unwrap_or(f64::NAN)),
                _ => readable(n.as_f64().unwrap_or(f64::NAN)),
            },
        ),
        serde_json::Value::Array(items) => {
            let text = items
                .iter()
                .map(|i| match i {
                    serde_json::Value::String(s) => s.clone(),
                    // Cell suppression's cells per attribute.
                    serde_json::Value::Object(o) if o.contains_key("cells") => format!(
                        "{} {}",
                        o.get("attribute").and_then(|a| a.as_str()).unwrap_or(""),
                        o.get("cells").map_or(String::new(), |c| c.to_string())
                    ),
                    serde_json::Value::Number(n) => readable(n.as_f64().unwrap_or(f64::NAN)),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(", ");
            (v.to_string(), text)
        }
        other => (other.to_string(), other.to_string()),
    })
}

/// The figures of `rows` present (not null) in the report's JSON.
fn figures(json: &serde_json::Value, rows: &[(&'static str, &str, &'static str)]) -> Vec<Figure> {
    rows.iter()
        .filter_map(|&(label, key, explain)| {
            let share = key.ends_with("records_at_risk");
            let (value, shown) = value_at(json, key, share)?;
            Some(Figure {
                label,
                key: key.to_string(),
                value,
                shown,
                explain,
            })
        })
        .collect()
}

/// The verdict's lines: each model with its achieved figure, then the other lines.
fn verdict(report: &Report, json: &serde_json::Value) -> Vec<VerdictLine> {
    let lines = crate::output::verdict::lines(report);
    let models = report.privacy_achieved.len();
    lines
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let Some(a) = report.privacy_achieved.get(i).filter(|_| i < models) else {
                return VerdictLine {
                    class: "",
                    text,
                    key: None,
                    value: String::new(),
                    shown: String::new(),
                };
            };
            let key = format!("privacy_achieved.{i}.achieved");
            let (value, shown) = value_at(json, &key, false).unwrap_or_default();
            VerdictLine {
                class: match a.holds {
                    Some(true) => "holds",
                    Some(false) => "fails",
                    None => "unmeasured",
                },
                text,
                key: Some(key),
                value,
                shown,
            }
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
    let attributes = release
        .attributes
        .iter()
        .map(|a| {
            let share = a
                .level
                .filter(|_| a.height > 0)
                .map(|l| l as f64 / a.height as f64);
            AttributeLoss {
                profile: a,
                share,
                shown: match a.level {
                    Some(l) => format!("level {l} of {}", a.height),
                    None if report.extra.contains_key("local_recoding") => {
                        "a level of its own per group (local recoding)".to_string()
                    }
                    None => "ranges of its own per class".to_string(),
                },
                percent: share.map_or(String::new(), |s| format!("{:.1}", 100.0 * s)),
                removed: a.height > 0 && a.level == Some(a.height),
                after_distinct: match a.level {
                    Some(_) => a.after.distinct.to_string(),
                    None => format!("{} ranges", a.after.distinct),
                },
                before: a
                    .before
                    .examples
                    .iter()
                    .map(|(l, n)| (tidy(l), *n))
                    .collect(),
                after: a
                    .after
                    .examples
                    .iter()
                    .map(|(l, n)| (tidy(l), *n))
                    .collect(),
            }
        })
        .collect();
    let sensitive = release
        .sensitive
        .iter()
        .map(|p| {
            let share = |n: u64, of: u64| {
                if of == 0 {
                    String::new()
                } else {
                    percent(n as f64 / of as f64)
                }
            };
            let rows = p
                .values
                .iter()
                .map(|(value, before, after)| {
                    (
                        value.clone(),
                        share(*before, p.records.0),
                        share(*after, p.records.1),
                    )
                })
                .collect();
            SensitiveRows { profile: p, rows }
        })
        .collect();
    let section = |id, title: &str, kind| Section {
        id,
        title: title.to_string(),
        kind,
    };
    let mut sections = vec![
        section("parameters", "Parameters of the run", "parameters"),
        section("figures", "Figures", "figures"),
        section(
            "attributes",
            "Information loss per quasi-identifier",
            "attributes",
        ),
        section("risk-analysis", "Risk analysis", "risk"),
    ];
    let attribute_risk = attribute_risk_rows(&json);
    if !attribute_risk.is_empty() {
        sections.push(section(
            "attribute-risk",
            "Attribute risk: which quasi-identifiers single records out",
            "attribute-risk",
        ));
    }
    if !release.sensitive.is_empty() {
        sections.push(section(
            "sensitive",
            "Sensitive attributes before and after",
            "sensitive",
        ));
    }
    sections.push(section("charts", "Charts", "charts"));
    let page = Page {
        method: report.method,
        version: report.anonbox_version,
        input: &report.input,
        output: report.output.as_deref(),
        verdict: verdict(report, &json),
        sections,
        parameters: figures(&json, &PARAMETERS),
        figures: [figures(&json, &SUMMARY), figures(&json, &LOCAL_RECODING)]
            .into_iter()
            .flatten()
            .collect(),
        utility: figures(&json, &UTILITY),
        attributes,
        sensitive,
        charts: charts_list,
        risk_analysis: risk_rows(&json),
        attribute_risk,
        attribute_risk_msu: report
            .risk_analysis
            .attributes_input
            .as_ref()
            .map_or(0, |a| a.msu_max_size),
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

#[cfg(test)]
mod tests {
    #[test]
    fn labels_for_reading() {
        use super::tidy;
        assert_eq!(tidy("[18.0]"), "18");
        assert_eq!(tidy("(34.0:39.0]"), "(34:39]");
        assert_eq!(tidy("[0.5:1.0)"), "[0.5:1)");
        assert_eq!(tidy("[20, 25["), "[20, 25[");
        assert_eq!(tidy("Male"), "Male");
    }
}
