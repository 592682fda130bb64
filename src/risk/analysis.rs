//! The re-identification risk analysis regulators ask for (ARX 3.9's risk estimator,
//! `DataHandle.getRiskEstimator`), of the input and of a release, from class sizes alone:
//! - prosecutor risk (the attacker knows the person is in the data): a record's risk is
//!   1 / its class size; highest, average (classes / records) and the share of records at risk
//!   (risk above the threshold);
//! - journalist risk (the attacker does not know): the same figures against the population's
//!   classes. With no population table (anonbox has none), ARX uses the sample's classes, so
//!   they equal the prosecutor's; marketer risk (re-identifying as many as possible): the
//!   average, classes / records;
//! - sample uniques: records alone in their class;
//! - population uniques: estimated by Pitman's, Zayatz's and the SNB model and by Dankar's rule
//!   against the population model (`privacy::uniqueness`), with whether each estimate converged
//!   (ARX's `isAvailableEstimate`: an estimate other than 0, or nothing to estimate).
//!
//! Suppressed records are left out (they carry no quasi-identifiers), as in ARX.

use serde::Serialize;

use super::attributes::AttributeRisks;
use crate::privacy::population::Population;
use crate::privacy::sizes::ClassSizes;
use crate::privacy::uniqueness::{population_uniques, Estimator};

/// The population a risk analysis assumes when none is given (ARX's default region).
pub fn default_population() -> Population {
    Population::parse("usa").expect("a region")
}

/// The figures of one attacker model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackerRisk {
    /// 1 / the smallest class.
    pub highest: f64,
    /// Classes / records.
    pub average: f64,
    /// Share of the records whose risk exceeds the threshold.
    pub records_at_risk: f64,
}

/// One estimate of population uniques.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UniquesEstimate {
    /// Estimated population uniques / population size (0 when unavailable).
    pub share: f64,
    /// Estimated population uniques.
    pub uniques: f64,
    /// False when the estimate did not converge (while sample uniques exist).
    pub available: bool,
}

/// Population uniques under the four estimators.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PopulationUniques {
    pub pitman: UniquesEstimate,
    pub zayatz: UniquesEstimate,
    pub snb: UniquesEstimate,
    pub dankar: UniquesEstimate,
    /// The estimator Dankar's rule picked (`dankar` when there was nothing to estimate).
    pub dankar_model: Estimator,
}

/// The risk analysis of one table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RiskFigures {
    /// Records in classes (suppressed ones left out) and classes.
    pub records: u64,
    pub classes: u64,
    /// Records / population size.
    pub sampling_fraction: f64,
    pub prosecutor: AttackerRisk,
    pub journalist: AttackerRisk,
    /// Marketer risk: the expected share of records re-identified.
    pub marketer: f64,
    /// Records alone in their class, and their share of the records.
    pub sample_uniques: u64,
    pub sample_uniqueness: f64,
    pub population_uniques: PopulationUniques,
}

/// The risk analysis of a run: input and release against one population.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RiskAnalysis {
    pub population: Population,
    /// Risk above which a record counts as at risk.
    pub threshold: f64,
    pub input: RiskFigures,
    /// `None` where the release has no classes of generalized quasi-identifiers (Anatomy).
    pub release: Option<RiskFigures>,
    /// Which quasi-identifiers single records out in the input and in the release
    /// ([`crate::risk::attributes`]); measured for a run that writes a report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes_input: Option<AttributeRisks>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes_release: Option<AttributeRisks>,
}

impl RiskAnalysis {
    /// The analysis of a run's input and release, against the job's population and threshold.
    pub fn of_release(job: &crate::job::Job, release: &crate::release::Release) -> RiskAnalysis {
        let (population, threshold) = (&job.population, job.risk_threshold);
        RiskAnalysis {
            population: population.clone(),
            threshold,
            input: RiskFigures::of_sizes(
                release.input_class_sizes.counts().iter().copied(),
                population,
                threshold,
            ),
            release: release.risk.as_ref().map(|_| {
                RiskFigures::of_sizes(
                    release.class_sizes.iter().map(|&s| (s, 1)),
                    population,
                    threshold,
                )
            }),
            attributes_input: release.attribute_risk.clone(),
            attributes_release: release.attribute_risk_release.clone(),
        }
    }
}

impl RiskFigures {
    /// The figures of a table whose classes have these sizes (zeros ignored).
    pub fn of_sizes(
        sizes: impl IntoIterator<Item = (u64, u64)>,
        population: &Population,
        threshold: f64,
    ) -> RiskFigures {
        let mut groups: Vec<(u64, u64)> =
            sizes.into_iter().filter(|&(s, n)| s > 0 && n > 0).collect();
        groups.sort_unstable();
        groups.dedup_by(|b, a| {
            if a.0 == b.0 {
                a.1 += b.1;
                true
            } else {
                false
            }
        });
        let sizes = ClassSizes::from_groups(groups);
        let (records, classes) = (sizes.records(), sizes.classes());
        let share = |x: u64| {
            if records == 0 {
                0.0
            } else {
                x as f64 / records as f64
            }
        };
        let at_risk: u64 = sizes
            .groups()
            .iter()
            .filter(|&&(s, _)| 1.0 / s as f64 > threshold)
            .map(|&(s, n)| s * n)
            .sum();
        let prosecutor = AttackerRisk {
            highest: sizes.groups().first().map_or(0.0, |&(s, _)| 1.0 / s as f64),
            average: share(classes),
            records_at_risk: share(at_risk),
        };
        let uniques = sizes.of_size(1);
        let p = population.size;
        let estimate = |e: Estimator| {
            let (u, picked) = population_uniques(&sizes, p, e, true);
            (
                UniquesEstimate {
                    share: u / p as f64,
                    uniques: u,
                    available: u != 0.0 || uniques == 0,
                },
                picked,
            )
        };
        let (dankar, dankar_model) = estimate(Estimator::Dankar);
        RiskFigures {
            records,
            classes,
            sampling_fraction: population.sampling_fraction(records),
            journalist: prosecutor.clone(),
            marketer: prosecutor.average,
            prosecutor,
            sample_uniques: uniques,
            sample_uniqueness: share(uniques),
            population_uniques: PopulationUniques {
                pitman: estimate(Estimator::Pitman).0,
                zayatz: estimate(Estimator::Zayatz).0,
                snb: estimate(Estimator::Snb).0,
                dankar,
                dankar_model: if uniques == 0 {
                    Estimator::Dankar
                } else {
                    dankar_model
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_by_hand() {
        // Classes of 1, 1, 3 and 5 records (10 records).
        let f = RiskFigures::of_sizes([(1, 2), (3, 1), (5, 1)], &Population::of_size(1000), 0.25);
        assert_eq!((f.records, f.classes), (10, 4));
        assert_eq!(f.prosecutor.highest, 1.0);
        assert_eq!(f.prosecutor.average, 0.4);
        assert_eq!(f.prosecutor.records_at_risk, 0.5, "1/1 and 1/3 exceed 0.25");
        assert_eq!(f.journalist, f.prosecutor);
        assert_eq!(f.marketer, 0.4);
        assert_eq!((f.sample_uniques, f.sample_uniqueness), (2, 0.2));
        assert_eq!(f.sampling_fraction, 0.01);
        let z = &f.population_uniques.zayatz;
        assert!(z.available && z.uniques > 0.0 && z.share == z.uniques / 1000.0);
        // No uniques: every estimate is 0 and available.
        let g = RiskFigures::of_sizes([(2, 3)], &Population::of_size(1000), 0.2);
        assert_eq!(g.population_uniques.dankar_model, Estimator::Dankar);
        assert!(g.population_uniques.snb.available && g.population_uniques.snb.uniques == 0.0);
        // Nothing at all.
        let e = RiskFigures::of_sizes([], &Population::of_size(10), 0.2);
        assert_eq!((e.prosecutor.highest, e.marketer), (0.0, 0.0));
    }
}
