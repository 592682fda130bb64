//! What a release achieves, in figures and in plain words: the report's `privacy_achieved`
//! (each model, its attribute, the figure required and the figure achieved), and the verdict
//! the console summary and the HTML report open with (each model and its figure, the records
//! suppressed against the limit, proven optimal or the bound, attributes removed entirely).
//!
//! The achieved figures are measured on the released classes with the shared models of
//! [`crate::privacy`], as `anonbox audit` measures a file: k is the smallest class; distinct,
//! entropy and recursive l the lowest over classes; t the largest distance of a class to the
//! table; δ the smallest and largest share of research-subset records. The store methods'
//! classes are measured in the store (`release::of_store`), except Anatomy's groups: there
//! `achieved` is `null` and the words say to run `anonbox audit`.
//!
//! Numbers are written for reading ([`readable`]: four significant digits, no exponent; shares
//! as %), and kept exact in the JSON.

use serde::Serialize;
use serde_json::{json, Value};

use crate::job::{Job, Method};
use crate::privacy::properties::EXACT_TOLERANCE;
use crate::privacy::{PrivacyModel, TDistance};
use crate::release::{Release, SensitiveProfile};

/// One privacy model and what the release achieves.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Achieved {
    /// The model as `privacy_models` names it, e.g. `distinct-3-diversity(disease)`.
    pub model: String,
    /// The sensitive attribute (`null` for k-anonymity and δ-presence).
    pub attribute: Option<String>,
    /// The figure: `k`, `l`, `t`, `delta`, `risk` (average risk), `uniques` (sample uniqueness)
    /// or `model` (a risk-based model the report does not measure).
    pub figure: &'static str,
    /// The figure required (`[dmin, dmax]` for δ).
    pub required: Value,
    /// The figure achieved (`[min, max]` for δ); `null` where not measured.
    pub achieved: Value,
    /// Whether the achieved figure meets the required one (`null` where not measured).
    pub holds: Option<bool>,
    /// The same in plain words.
    pub says: String,
}

/// The privacy models a run enforced (the toolbox methods' from their parameters).
pub fn models(job: &Job) -> Vec<PrivacyModel> {
    match job.method {
        Method::Datafly | Method::Mondrian => vec![PrivacyModel::KAnonymity { k: job.k }],
        Method::Anatomy => vec![PrivacyModel::DistinctL {
            attribute: 0,
            l: job.l,
        }],
        _ => job.privacy.clone(),
    }
}

/// A number for reading: whole numbers as they are; from 1,000 on, rounded to a whole number;
/// below, four significant digits; never an exponent.
pub fn readable(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    if x.abs() >= 1000.0 {
        return format!("{}", x.round() as i64);
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let s = format!("{x:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A share (0..1) as a percentage for reading: `72.86 %`.
pub fn percent(share: f64) -> String {
    format!("{} %", readable(100.0 * share))
}

/// What the release achieves for each model of the run.
pub fn achieved(job: &Job, release: &Release) -> Vec<Achieved> {
    // Names come from the data: shown as error messages show them (control characters
    // escaped), so that the words stay one line on a terminal.
    let name = |a: usize| job.sensitive.get(a).map(|s| crate::error::shown(&s.name));
    let profile = |a: usize| -> Option<&SensitiveProfile> {
        let n = job.sensitive.get(a)?;
        release.sensitive.iter().find(|s| s.name == n.name)
    };
    let not_measured = "not measured here: anonbox audit measures it on the release";
    models(job)
        .iter()
        .map(|m| {
            let model = m.describe(&job.sensitive);
            match m {
                PrivacyModel::KAnonymity { k } => {
                    let smallest = release.class_sizes.iter().copied().min();
                    let says = match smallest {
                        Some(s) => format!(
                            "{k}-anonymity: every released class has at least {k} records, the \
                             smallest {s}"
                        ),
                        None => {
                            format!("{k}-anonymity: no record released, no class to single out")
                        }
                    };
                    Achieved {
                        model,
                        attribute: None,
                        figure: "k",
                        required: json!(k),
                        achieved: json!(smallest),
                        holds: Some(smallest.is_none_or(|s| s >= *k)),
                        says,
                    }
                }
                PrivacyModel::DistinctL { attribute, l } => {
                    let a = name(*attribute).unwrap_or_default();
                    let got = profile(*attribute)
                        .and_then(|p| p.figures.as_ref())
                        .map(|f| f.distinct_l);
                    Achieved {
                        model,
                        attribute: Some(a.clone()),
                        figure: "l",
                        required: json!(l),
                        achieved: json!(got),
                        holds: got.map(|g| g as f64 >= *l),
                        says: format!(
                            "distinct {}-diversity of {a}: every class holds at least {} of its \
                             values, {}",
                            readable(*l),
                            readable(*l),
                            got.map_or(not_measured.to_string(), |g| format!("the lowest {g}"))
                        ),
                    }
                }
                PrivacyModel::EntropyL { attribute, l } => {
                    let a = name(*attribute).unwrap_or_default();
                    let got = profile(*attribute)
                        .and_then(|p| p.figures.as_ref())
                        .map(|f| f.entropy_l);
                    Achieved {
                        model,
                        attribute: Some(a.clone()),
                        figure: "l",
                        required: json!(l),
                        achieved: json!(got),
                        holds: got.map(|g| g >= *l - EXACT_TOLERANCE),
                        says: format!(
                            "entropy {}-diversity of {a}: the values of every class are as \
                             spread as {} equally frequent ones or more (exp of their entropy), \
                             {}",
                            readable(*l),
                            readable(*l),
                            got.map_or(not_measured.to_string(), |g| format!(
                                "the lowest {}",
                                readable(g)
                            ))
                        ),
                    }
                }
                PrivacyModel::RecursiveCL { attribute, c, l } => {
                    let a = name(*attribute).unwrap_or_default();
                    let got = profile(*attribute)
                        .and_then(|p| p.figures.as_ref())
                        .and_then(|f| f.recursive.as_ref())
                        .map(|r| r.l);
                    Achieved {
                        model,
                        attribute: Some(a.clone()),
                        figure: "l",
                        required: json!(l),
                        achieved: json!(got),
                        holds: got.map(|g| g as f64 >= *l),
                        says: format!(
                            "recursive ({}, {})-diversity of {a}: in every class the most \
                             frequent value has fewer records than {} times those of the values \
                             from the {}th most frequent on, {}",
                            readable(*c),
                            readable(*l),
                            readable(*c),
                            readable(*l),
                            got.map_or(not_measured.to_string(), |g| format!(
                                "the largest l every class meets {g}"
                            ))
                        ),
                    }
                }
                PrivacyModel::TCloseness {
                    attribute,
                    t,
                    distance,
                } => {
                    let a = name(*attribute).unwrap_or_default();
                    let figures = profile(*attribute).and_then(|p| p.figures.as_ref());
                    let got = figures.and_then(|f| match distance {
                        TDistance::Equal => Some(f.t_equal),
                        TDistance::Ordered => f.t_ordered,
                        TDistance::Hierarchical => f.t_hierarchical,
                    });
                    let d = match distance {
                        TDistance::Equal => "equal",
                        TDistance::Ordered => "ordered",
                        TDistance::Hierarchical => "hierarchical",
                    };
                    Achieved {
                        model,
                        attribute: Some(a.clone()),
                        figure: "t",
                        required: json!(t),
                        achieved: json!(got),
                        holds: got.map(|g| g <= *t + EXACT_TOLERANCE),
                        says: format!(
                            "{}-closeness of {a} ({d} distance): the distribution of {a} in \
                             every class is within {} of the whole table's, {}",
                            readable(*t),
                            readable(*t),
                            got.map_or(not_measured.to_string(), |g| format!(
                                "the farthest {}",
                                readable(g)
                            ))
                        ),
                    }
                }
                // The models of the class sizes, measured on the released classes (ARX leaves
                // suppressed records out, as the risk analysis does).
                PrivacyModel::AverageRisk { threshold } => {
                    let records: u64 = release.class_sizes.iter().sum();
                    let got =
                        (records > 0).then(|| release.class_sizes.len() as f64 / records as f64);
                    Achieved {
                        model,
                        attribute: None,
                        figure: "risk",
                        required: json!(threshold),
                        achieved: json!(got),
                        holds: Some(got.is_none_or(|g| g <= *threshold + EXACT_TOLERANCE)),
                        says: format!(
                            "average re-identification risk at most {}: {}",
                            percent(*threshold),
                            got.map_or("no record released".to_string(), |g| format!(
                                "the release's {}",
                                percent(g)
                            ))
                        ),
                    }
                }
                PrivacyModel::SampleUniqueness { threshold } => {
                    let records: u64 = release.class_sizes.iter().sum();
                    let uniques = release.class_sizes.iter().filter(|&&s| s == 1).count();
                    let got = (records > 0).then(|| uniques as f64 / records as f64);
                    Achieved {
                        model,
                        attribute: None,
                        figure: "uniques",
                        required: json!(threshold),
                        achieved: json!(got),
                        holds: Some(got.is_none_or(|g| g <= *threshold + EXACT_TOLERANCE)),
                        says: format!(
                            "sample uniqueness at most {}: {}",
                            percent(*threshold),
                            got.map_or("no record released".to_string(), |g| format!(
                                "the release's {} of records are alone in their class",
                                percent(g)
                            ))
                        ),
                    }
                }
                PrivacyModel::DifferentialPrivacy {
                    epsilon,
                    delta,
                    search,
                    ..
                } => {
                    // The guarantee rests on the sample and the classes of at least k of its
                    // records: the smallest released class is the figure to check.
                    let k =
                        crate::privacy::differential::parameters(*epsilon, *delta, search.budget())
                            .map(|p| p.k);
                    let smallest = release.class_sizes.iter().copied().min();
                    Achieved {
                        model,
                        attribute: None,
                        figure: "k",
                        required: json!(k),
                        achieved: json!(smallest),
                        holds: k.map(|k| smallest.is_none_or(|s| s >= k)),
                        says: format!(
                            "({epsilon}, {delta})-differential privacy: a random sample, every \
                             released class at least {} sampled records{}",
                            k.map_or("?".into(), |k| k.to_string()),
                            smallest.map_or(", no record released".into(), |s| format!(
                                ", the smallest {s}"
                            ))
                        ),
                    }
                }
                PrivacyModel::KMap { .. }
                | PrivacyModel::PopulationUniqueness { .. }
                | PrivacyModel::DeltaDisclosure { .. }
                | PrivacyModel::BetaLikeness { .. } => Achieved {
                    says: format!("{model}: enforced by the search; {not_measured}"),
                    model,
                    attribute: None,
                    figure: "model",
                    required: Value::Null,
                    achieved: Value::Null,
                    holds: None,
                },
                PrivacyModel::DeltaPresence { dmin, dmax, .. } => {
                    let got = release.delta;
                    Achieved {
                        model,
                        attribute: None,
                        figure: "delta",
                        required: json!([dmin, dmax]),
                        achieved: got.map_or(Value::Null, |(lo, hi)| json!([lo, hi])),
                        holds: got.map(|(lo, hi)| {
                            lo >= *dmin - EXACT_TOLERANCE && hi <= *dmax + EXACT_TOLERANCE
                        }),
                        says: format!(
                            "({}, {})-presence: every class of the population holds between {} \
                             and {} of research-subset records, {}",
                            readable(*dmin),
                            readable(*dmax),
                            percent(*dmin),
                            percent(*dmax),
                            got.map_or(not_measured.to_string(), |(lo, hi)| format!(
                                "from {} to {}",
                                percent(lo),
                                percent(hi)
                            ))
                        ),
                    }
                }
            }
        })
        .collect()
}

/// The verdict in plain words, from the report's figures: each model and what it achieves,
/// the records suppressed against the limit, whether the release is proven optimal (or how
/// far from the optimum it may be), and the attributes removed entirely.
pub fn lines(report: &crate::output::Report) -> Vec<String> {
    let mut out: Vec<String> = report
        .privacy_achieved
        .iter()
        .map(|a| {
            let mark = match a.holds {
                Some(true) => "holds",
                Some(false) => "FAILS",
                None => "not measured",
            };
            format!("{mark}: {}", a.says)
        })
        .collect();
    let subset = report
        .extra
        .get("research_subset_records")
        .and_then(|v| v.as_u64());
    let anonymized = subset.unwrap_or(report.records);
    let share = |n: u64| {
        if anonymized == 0 {
            0.0
        } else {
            n as f64 / anonymized as f64
        }
    };
    out.push(match report.suppression_limit {
        Some(limit) => format!(
            "{} of {anonymized} records suppressed ({}); the limit was {limit} ({})",
            report.suppressed_records,
            percent(share(report.suppressed_records)),
            percent(share(limit))
        ),
        None => format!(
            "{} of {anonymized} records suppressed ({})",
            report.suppressed_records,
            percent(share(report.suppressed_records))
        ),
    });
    let metric = report.metric.unwrap_or("information loss");
    match (
        report.extra.get("proven_optimal").and_then(|v| v.as_bool()),
        report.information_loss,
        report.extra.get("lower_bound").and_then(|v| v.as_f64()),
    ) {
        (Some(true), _, _) => out.push(format!(
            "proven optimal: no transformation of the lattice that meets the models loses \
             less ({metric})"
        )),
        (Some(false), Some(loss), Some(bound)) => out.push(format!(
            "not proven optimal (the search stopped at its time limit): {metric} {} is at \
             most {} above the optimum (proven lower bound {})",
            readable(loss),
            readable((loss - bound).max(0.0)),
            readable(bound)
        )),
        _ => out.push(format!(
            "not proven optimal: {} does not search for the least {metric}",
            report.method
        )),
    }
    if !report.attributes_removed.is_empty() {
        out.push(format!(
            "removed entirely (every value generalized to the top of its hierarchy): {}",
            report
                .attributes_removed
                .iter()
                .map(|a| crate::error::shown(a))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

/// The quasi-identifiers a full-domain release generalized to the top of their hierarchy
/// (every value `*`): removed entirely, though still a column of the release.
pub fn removed(release: &Release) -> Vec<String> {
    release
        .attributes
        .iter()
        .filter(|a| a.height > 0 && a.level == Some(a.height))
        .map(|a| a.name.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_reading() {
        assert_eq!(readable(0.010334029227557412), "0.01033");
        assert_eq!(readable(0.8551), "0.8551");
        assert_eq!(readable(91587862.0), "91587862");
        assert_eq!(readable(390419.00466036086), "390419");
        assert_eq!(readable(225.73282442748092), "225.7");
        assert_eq!(readable(2.0), "2");
        assert_eq!(readable(0.2), "0.2");
        assert_eq!(readable(1e-9), "0.000000001");
        assert_eq!(readable(-0.5), "-0.5");
        assert_eq!(percent(0.728632053577349), "72.86 %");
        assert_eq!(percent(0.05), "5 %");
    }
}
