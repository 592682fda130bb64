//! What a run asks of its release, as plain values: the privacy models ([`PrivacyModel`], one
//! per `<privacy>` element or derived from `-k`, `-l`, `-c`, `-t`) and how many records may be
//! suppressed ([`SuppressionLimit`]). The config builds them; the methods turn them into checks
//! ([`super::build`] for the lattice searches, Incognito's own criteria for the toolbox's).

use super::differential::DpSearch;
use super::kmap::Estimator;
use super::population::Population;
use super::uniqueness::Estimator as UniquesEstimator;
use crate::data::subset::SubsetSpec;
use crate::data::SensitiveAttribute;
use crate::{Error, Result};

/// One privacy model of a `<privacy>` element (or derived from `-k`, `-l`, `-c`, `-t`).
/// `attribute` is the position of a sensitive attribute in the run's list of them.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum PrivacyModel {
    KAnonymity {
        k: u64,
    },
    DistinctL {
        attribute: usize,
        l: f64,
    },
    EntropyL {
        attribute: usize,
        l: f64,
    },
    RecursiveCL {
        attribute: usize,
        c: f64,
        l: f64,
    },
    TCloseness {
        attribute: usize,
        t: f64,
        distance: TDistance,
    },
    DeltaPresence {
        dmin: f64,
        dmax: f64,
        subset: SubsetSpec,
    },
    /// k-map against a population of `population` people, estimated (see `privacy::kmap`)
    /// with significance `significance`.
    KMap {
        k: u64,
        population: Population,
        significance: f64,
        estimator: Estimator,
    },
    /// Average re-identification risk at most `threshold`.
    AverageRisk {
        threshold: f64,
    },
    /// Share of sample uniques at most `threshold`.
    SampleUniqueness {
        threshold: f64,
    },
    /// Estimated share of population uniques at most `threshold`.
    PopulationUniqueness {
        threshold: f64,
        estimator: UniquesEstimator,
        population: Population,
    },
    /// δ-disclosure privacy of a sensitive attribute.
    DeltaDisclosure {
        attribute: usize,
        delta: f64,
    },
    /// Basic or enhanced β-likeness of a sensitive attribute.
    BetaLikeness {
        attribute: usize,
        beta: f64,
        enhanced: bool,
    },
    /// (ε,δ)-differential privacy by SafePub (`privacy::differential`): a random sample drawn
    /// with `seed` (`None`: from the system's entropy), k-anonymity, and a transformation chosen
    /// as `search` says.
    DifferentialPrivacy {
        epsilon: f64,
        delta: f64,
        search: DpSearch,
        seed: Option<u64>,
    },
}

/// Ground distance of t-closeness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum TDistance {
    Equal,
    Hierarchical,
    Ordered,
}

impl PrivacyModel {
    /// The largest k of the k-anonymity models among `models`, if any.
    pub fn largest_k(models: &[PrivacyModel]) -> Option<u64> {
        models
            .iter()
            .filter_map(|m| match m {
                PrivacyModel::KAnonymity { k } => Some(*k),
                _ => None,
            })
            .max()
    }

    /// The one research subset of the δ-presence models among `models`, if any. Two
    /// `<delta-presence>` elements must name the same subset (ARX allows one per run).
    pub fn research_subset(models: &[PrivacyModel]) -> Result<Option<&SubsetSpec>> {
        let mut found: Option<&SubsetSpec> = None;
        for m in models {
            if let PrivacyModel::DeltaPresence { subset, .. } = m {
                match found {
                    Some(f) if f != subset => {
                        return Err(Error::Invalid(
                            "the delta-presence models name different research subsets; a run \
                             has one"
                                .into(),
                        ))
                    }
                    _ => found = Some(subset),
                }
            }
        }
        Ok(found)
    }

    /// The differential-privacy model among `models`, if any (a run has at most one).
    pub fn differential_privacy(models: &[PrivacyModel]) -> Option<&PrivacyModel> {
        models
            .iter()
            .find(|m| matches!(m, PrivacyModel::DifferentialPrivacy { .. }))
    }

    /// The model as the report and errors name it, e.g. `5-anonymity`,
    /// `distinct-3-diversity(occupation)`.
    pub fn describe(&self, sensitive: &[SensitiveAttribute]) -> String {
        let att = |a: usize| {
            sensitive
                .get(a)
                .map_or("?", |s| s.name.as_str())
                .to_string()
        };
        match self {
            PrivacyModel::KAnonymity { k } => format!("{k}-anonymity"),
            PrivacyModel::DistinctL { attribute, l } => {
                format!("distinct-{l}-diversity({})", att(*attribute))
            }
            PrivacyModel::EntropyL { attribute, l } => {
                format!("entropy-{l}-diversity({})", att(*attribute))
            }
            PrivacyModel::RecursiveCL { attribute, c, l } => {
                format!("recursive-({c},{l})-diversity({})", att(*attribute))
            }
            PrivacyModel::TCloseness {
                attribute,
                t,
                distance,
            } => format!(
                "{t}-closeness({}, {} distance)",
                att(*attribute),
                match distance {
                    TDistance::Equal => "equal",
                    TDistance::Hierarchical => "hierarchical",
                    TDistance::Ordered => "ordered",
                }
            ),
            PrivacyModel::DeltaPresence { dmin, dmax, .. } => {
                format!("({dmin},{dmax})-presence")
            }
            PrivacyModel::KMap { k, population, .. } => {
                format!("{k}-map(population {})", population.name)
            }
            PrivacyModel::AverageRisk { threshold } => format!("average-risk({threshold})"),
            PrivacyModel::SampleUniqueness { threshold } => {
                format!("sample-uniqueness({threshold})")
            }
            PrivacyModel::PopulationUniqueness {
                threshold,
                estimator,
                population,
            } => format!(
                "population-uniqueness({threshold}, {}, population {})",
                estimator.name(),
                population.name
            ),
            PrivacyModel::DeltaDisclosure { attribute, delta } => {
                format!("{delta}-disclosure({})", att(*attribute))
            }
            PrivacyModel::BetaLikeness {
                attribute,
                beta,
                enhanced,
            } => format!(
                "{}-{beta}-likeness({})",
                if *enhanced { "enhanced" } else { "basic" },
                att(*attribute)
            ),
            PrivacyModel::DifferentialPrivacy { epsilon, delta, .. } => {
                format!("({epsilon},{delta})-differential-privacy")
            }
        }
    }
}

/// How many records may be suppressed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum SuppressionLimit {
    /// `-suppThreshold N`: an absolute number of tuples (the toolbox's meaning).
    Tuples(u64),
    /// `-suppression F`: a fraction of the records, 0 <= F <= 1; budget floor(F * n) (ARX's meaning).
    Fraction(f64),
}

impl SuppressionLimit {
    /// The budget in records for a table of `n` records.
    pub fn budget(self, n: u64) -> u64 {
        match self {
            SuppressionLimit::Tuples(t) => t,
            SuppressionLimit::Fraction(f) => (f * n as f64).floor() as u64,
        }
    }
}
