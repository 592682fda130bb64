//! The summary a successful run prints on stderr (not with `-quiet`): the verdict first (what
//! holds, in plain words, [`crate::output::verdict`]), then a few aligned lines; every figure
//! taken from the run's [`Report`], so the summary and the JSON report cannot disagree, and
//! written for reading ([`readable`]: four significant digits, shares as %; the JSON keeps
//! them exact).
//!
//! ```text
//! anonbox: Flash finished in 0.412 s
//!       verdict  holds: 5-anonymity: every released class has at least 5 records, the smallest 5
//!                172 of 30162 records suppressed (0.5703 %); the limit was 1508 (5 %)
//!                proven optimal: no transformation of the lattice that meets the models loses less (Loss)
//!        output  out.csv
//!       records  30162 read, 0 skipped, 30162 anonymized, 29990 released, 172 suppressed
//!       privacy  5-anonymity
//!     transform  sex 0, age 2, race 1
//!       classes  312 (average 96.1 records)
//!          risk  highest 0.2, average 0.0104, 0 % of records above 0.2
//!    input risk  highest 1, average 0.413, 50.9 % of records above 0.2
//!          loss  0.0123 (Loss)
//!       metrics  DM* 1523, DM 1523, Height 3, Precision 0.41, Loss 0.0123, Entropy 12.5, AECS 96.1
//!       utility  discernibility 1523, average class size 96.1
//! ```

use std::fmt::Write as _;

use crate::output::verdict::{lines, percent, readable};
use crate::output::Report;

/// The summary lines of `report`, each ending in a newline.
pub fn render(report: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "anonbox: {} finished in {} s",
        report.method,
        readable(report.elapsed_seconds.total)
    );
    let mut row = |label: &str, value: String| {
        let _ = writeln!(s, "{label:>14}  {value}");
    };
    for (i, line) in lines(report).into_iter().enumerate() {
        row(if i == 0 { "verdict" } else { "" }, line);
    }
    row(
        "output",
        if report.output_files.is_empty() {
            "(none)".into()
        } else {
            report.output_files.join(", ")
        },
    );
    // With δ-presence only the research subset is anonymized and released.
    let subset = report
        .extra
        .get("research_subset_records")
        .and_then(|v| v.as_u64());
    let anonymized = subset.unwrap_or(report.records);
    let released = anonymized - report.suppressed_records;
    row(
        "records",
        format!(
            "{} read, {} skipped, {anonymized} anonymized{}, {released} released, {} suppressed",
            report.rows_read,
            report.rows_skipped,
            if subset.is_some() {
                " (the research subset)"
            } else {
                ""
            },
            report.suppressed_records
        ),
    );
    if let Some(cells) = report.extra.get("cell_suppression") {
        let n = |key: &str| cells.get(key).and_then(|v| v.as_u64()).unwrap_or(0);
        let by: Vec<String> = cells
            .get("cells_by_attribute")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter(|a| a.get("cells").and_then(|v| v.as_u64()).unwrap_or(0) > 0)
            .map(|a| {
                format!(
                    "{} {}",
                    crate::error::shown(a.get("attribute").and_then(|v| v.as_str()).unwrap_or("")),
                    a.get("cells").and_then(|v| v.as_u64()).unwrap_or(0)
                )
            })
            .collect();
        row(
            "cells",
            format!(
                "{} blanked{}, in {} records (record suppression: {} records)",
                n("cells_suppressed"),
                if by.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", by.join(", "))
                },
                n("records_touched"),
                n("records_record_suppression")
            ),
        );
    }
    // Differential privacy: the records left out of the sample are released suppressed too.
    if let Some(dp) = report.extra.get("differential_privacy") {
        let num = |f: &str| dp[f].as_f64().map_or("?".into(), readable);
        row(
            "sample",
            format!(
                "{} sampled (probability {}), {} left out and released suppressed; k {}, \
                 epsilon {}, delta {}, seed {}",
                dp["sampled_records"],
                num("beta"),
                dp["unsampled_records"],
                dp["k"],
                num("epsilon"),
                dp["delta"],
                match &dp["seed"] {
                    serde_json::Value::String(s) => s.clone(),
                    v => v.to_string(),
                }
            ),
        );
    }
    row("privacy", report.privacy_models.join(", "));
    if let Some(levels) = &report.transformation {
        let parts: Vec<String> = report
            .quasi_identifiers
            .iter()
            .zip(levels)
            // A column name comes from the data: escaped, so that the summary stays one line
            // per figure and no control sequence reaches the terminal.
            .map(|(q, l)| format!("{} {l}", crate::error::shown(q)))
            .collect();
        row("transform", parts.join(", "));
    }
    if let Some(lr) = report.extra.get("local_recoding") {
        let (b, a) = (&lr["before"], &lr["after"]);
        let f = |v: &serde_json::Value| readable(v.as_f64().unwrap_or(f64::NAN));
        row(
            "local recoding",
            format!(
                "suppressed {} -> {} records, Loss {} -> {}, {} transformations",
                b["suppressed_records"],
                a["suppressed_records"],
                f(&b["loss"]),
                f(&a["loss"]),
                lr["steps"].as_array().map_or(0, Vec::len)
            ),
        );
        for step in lr["steps"].as_array().into_iter().flatten() {
            let levels: Vec<String> = step["transformation"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|l| l.to_string())
                .collect();
            row(
                "",
                format!("{} records at {}", step["records"], levels.join(",")),
            );
        }
    }
    let average = if report.equivalence_classes == 0 {
        0.0
    } else {
        released as f64 / report.equivalence_classes as f64
    };
    row(
        "classes",
        format!(
            "{} (average {} records)",
            report.equivalence_classes,
            readable(average)
        ),
    );
    let risk = |r: &crate::risk::Risk| {
        format!(
            "highest {}, average {}, {} of records above {}",
            readable(r.highest),
            readable(r.average),
            percent(r.records_at_risk),
            readable(r.threshold)
        )
    };
    if let Some(r) = &report.risk {
        row("risk", risk(r));
    }
    if let Some(r) = &report.risk_input {
        row("input risk", risk(r));
    }
    if let Some(loss) = report.information_loss {
        row(
            "loss",
            format!(
                "{} ({})",
                readable(loss),
                report.metric.unwrap_or("information loss")
            ),
        );
    }
    let u = &report.utility;
    let metrics: Vec<String> = [
        ("DM*", u.dm_star),
        ("DM", u.dm),
        ("Height", u.height),
        ("Precision", u.precision),
        ("Loss", u.loss),
        ("Entropy", u.entropy),
        ("AECS", u.aecs),
    ]
    .iter()
    .filter_map(|(name, v)| v.map(|v| format!("{name} {}", readable(v))))
    .collect();
    if !metrics.is_empty() {
        row("metrics", metrics.join(", "));
    }
    let mut utility = format!(
        "discernibility {}, average class size {}",
        readable(u.discernibility),
        readable(u.average_class_size)
    );
    if let Some(ncp) = u.ncp {
        let _ = write!(utility, ", NCP {}", readable(ncp));
    }
    row("utility", utility);
    s
}
