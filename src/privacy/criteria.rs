//! The models with a sensitive attribute as checker plug-ins ([`PrivacyCriterion`]).
//!
//! Each criterion asks the checker for the distribution of its sensitive column and judges a
//! class with the shared functions of [`super::ldiversity`] and [`super::tcloseness`] in
//! [`Flavor::Arx`] arithmetic, so the Flash engine reproduces ARX's verdicts to the last bit
//! where they are reproducible (entropy's `log2` form decides 12 of ADULT's records at
//! l = 3). Monotonicity follows [`super::properties::is_monotonic`].

use super::distribution::DistributionBuf;
use super::ldiversity::{
    is_distinct_l_diverse, is_entropy_l_diverse, is_entropy_l_diverse_arx, is_recursive_cl_diverse,
    Log2Table,
};
use super::properties::{is_monotonic, Flavor};
use super::tcloseness::{EqualDistance, HierarchicalDistance, OrderedDistance};
use super::{ClassView, PrivacyCriterion, Requirements};
use super::{PrivacyModel, TDistance};
use crate::data::EncodedTable;
use crate::{Error, Result};

/// Builds the criterion of one model with a sensitive attribute (not k-anonymity, which the
/// checker handles by class size). `attribute` indexes [`EncodedTable::sensitive`].
pub fn build(
    model: &PrivacyModel,
    table: &EncodedTable,
    flavor: Flavor,
) -> Result<Box<dyn PrivacyCriterion>> {
    let column = |attribute: usize| {
        table.sensitive.get(attribute).ok_or_else(|| {
            Error::Invalid(format!(
                "privacy model {model:?}: no sensitive attribute number {attribute}"
            ))
        })
    };
    Ok(match *model {
        PrivacyModel::KAnonymity { k } => Box::new(super::KAnonymity { k }),
        PrivacyModel::DistinctL { attribute, l } => Box::new(DistinctL {
            name: column(attribute)?.name.clone(),
            attribute,
            l,
        }),
        PrivacyModel::EntropyL { attribute, l } => Box::new(EntropyL {
            name: column(attribute)?.name.clone(),
            attribute,
            l,
            flavor,
            log2: match flavor {
                Flavor::Arx => Log2Table::new(table.rows()),
                _ => Log2Table::default(),
            },
        }),
        PrivacyModel::RecursiveCL { attribute, c, l } => Box::new(RecursiveCL {
            name: column(attribute)?.name.clone(),
            attribute,
            c,
            l,
            flavor,
        }),
        PrivacyModel::TCloseness {
            attribute,
            t,
            distance,
        } => {
            let col = column(attribute)?;
            // The released records' distribution (ARX: the research subset's, if there is one).
            let table_dist = DistributionBuf::from_codes(
                col.codes
                    .iter()
                    .enumerate()
                    .filter(|&(r, _)| table.is_released(r))
                    .map(|(_, &c)| c),
            );
            let ground = match distance {
                TDistance::Equal => Ground::Equal(EqualDistance::new(table_dist.view())),
                TDistance::Ordered => {
                    let values = col.numeric.as_ref().ok_or_else(|| {
                        Error::Invalid(format!(
                            "t-closeness with ordered distance needs numeric values of \
                             attribute '{}'",
                            col.name
                        ))
                    })?;
                    Ground::Ordered(OrderedDistance::new(table_dist.view(), values))
                }
                TDistance::Hierarchical => {
                    let h = col.hierarchy.as_ref().ok_or_else(|| {
                        Error::Invalid(format!(
                            "t-closeness with hierarchical distance needs a hierarchy of \
                             attribute '{}'",
                            col.name
                        ))
                    })?;
                    Ground::Hierarchical(
                        HierarchicalDistance::new(table_dist.view(), h).map_err(Error::Invalid)?,
                    )
                }
            };
            Box::new(TCloseness {
                name: col.name.clone(),
                attribute,
                t,
                ground,
                flavor,
            })
        }
        PrivacyModel::DeltaPresence { dmin, dmax, .. } => Box::new(super::delta::DeltaPresence {
            dmin,
            dmax,
            column: table.subset_column().ok_or_else(|| {
                Error::Invalid(
                    "delta-presence needs the research subset loaded with the table".into(),
                )
            })?,
            flavor,
        }),
        PrivacyModel::KMap {
            k,
            ref population,
            significance,
            estimator,
        } => Box::new(super::kmap::KMap {
            k,
            derived: super::kmap::derived_k(
                k,
                significance,
                table.records() as u64,
                population.size,
                estimator,
            ),
            population: population.size,
        }),
        PrivacyModel::AverageRisk { threshold } => {
            Box::new(super::sizes::AverageRisk { threshold })
        }
        PrivacyModel::SampleUniqueness { threshold } => {
            Box::new(super::sizes::SampleUniqueness { threshold })
        }
        PrivacyModel::PopulationUniqueness {
            threshold,
            estimator,
            ref population,
        } => Box::new(super::uniqueness::PopulationUniqueness {
            threshold,
            estimator,
            population: population.size,
        }),
        PrivacyModel::DeltaDisclosure { attribute, delta } => {
            let (name, table) = released_frequencies(table, column(attribute)?);
            Box::new(super::disclosure::DeltaDisclosure {
                name,
                attribute,
                delta,
                table,
            })
        }
        PrivacyModel::BetaLikeness {
            attribute,
            beta,
            enhanced,
        } => {
            let (name, table) = released_frequencies(table, column(attribute)?);
            Box::new(super::disclosure::BetaLikeness {
                name,
                attribute,
                beta,
                enhanced,
                table,
            })
        }
        PrivacyModel::DifferentialPrivacy {
            epsilon,
            delta,
            search,
            ..
        } => {
            let p = super::differential::parameters(epsilon, delta, search.budget()).ok_or_else(
                || {
                    Error::Invalid(format!(
                        "({epsilon},{delta})-differential privacy: k and the sampling \
                         probability cannot be computed for these parameters"
                    ))
                },
            )?;
            Box::new(super::differential::DifferentialPrivacy {
                epsilon,
                delta,
                k: p.k,
            })
        }
    })
}

/// The name of a sensitive column and its values' frequencies in the released records.
fn released_frequencies(
    table: &EncodedTable,
    col: &crate::data::SensitiveColumn,
) -> (String, Vec<f64>) {
    let dist = DistributionBuf::from_codes(
        col.codes
            .iter()
            .enumerate()
            .filter(|&(r, _)| table.is_released(r))
            .map(|(_, &c)| c),
    );
    let top = col.codes.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
    let domain = col.values.len().max(top);
    (
        col.name.clone(),
        super::disclosure::frequencies(&dist, domain),
    )
}

fn requirements(min_class_size: f64, attribute: usize) -> Requirements {
    Requirements {
        min_class_size: (min_class_size.ceil() as u64).max(1),
        distributions: vec![attribute],
    }
}

/// Distinct l-diversity.
#[derive(Debug, Clone)]
pub struct DistinctL {
    pub name: String,
    pub attribute: usize,
    pub l: f64,
}

impl PrivacyCriterion for DistinctL {
    fn name(&self) -> String {
        format!("distinct {}-diversity of '{}'", self.l, self.name)
    }
    fn requirements(&self) -> Requirements {
        requirements(self.l, self.attribute)
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        is_monotonic(
            &PrivacyModel::DistinctL {
                attribute: self.attribute,
                l: self.l,
            },
            with_suppression,
        )
    }
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        is_distinct_l_diverse(class.distribution(0), self.l)
    }
}

/// Entropy l-diversity.
#[derive(Debug, Clone)]
pub struct EntropyL {
    pub name: String,
    pub attribute: usize,
    pub l: f64,
    pub flavor: Flavor,
    /// ARX's `log2` of every possible count, so a class costs no logarithm.
    pub log2: Log2Table,
}

impl PrivacyCriterion for EntropyL {
    fn name(&self) -> String {
        format!("entropy {}-diversity of '{}'", self.l, self.name)
    }
    fn requirements(&self) -> Requirements {
        requirements(self.l, self.attribute)
    }
    /// Never, for the search: entropy l-diversity without suppression is monotonic in exact
    /// arithmetic, but not as computed in floating point at the boundary (ARX's arithmetic
    /// passes a {2, 2} class at l = 2 and fails their union {3, 3}), so a search that tagged by
    /// it could miss the optimum. The search tags by the relaxation (distinct l-diversity, exact
    /// in integers) and checks what is left.
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        false
    }
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        match self.flavor {
            Flavor::Arx => is_entropy_l_diverse_arx(class.distribution(0), self.l, &self.log2),
            f => is_entropy_l_diverse(class.distribution(0), self.l, f),
        }
    }
    /// Entropy l-diversity needs `ceil(l)` distinct values (checked first in every flavor).
    fn relaxation(&self) -> Option<Box<dyn PrivacyCriterion>> {
        Some(Box::new(DistinctL {
            name: self.name.clone(),
            attribute: self.attribute,
            l: self.l,
        }))
    }
}

/// Recursive (c,l)-diversity.
#[derive(Debug, Clone)]
pub struct RecursiveCL {
    pub name: String,
    pub attribute: usize,
    pub c: f64,
    pub l: f64,
    pub flavor: Flavor,
}

impl PrivacyCriterion for RecursiveCL {
    fn name(&self) -> String {
        format!(
            "recursive ({},{})-diversity of '{}'",
            self.c, self.l, self.name
        )
    }
    fn requirements(&self) -> Requirements {
        requirements(self.l, self.attribute)
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        is_monotonic(
            &PrivacyModel::RecursiveCL {
                attribute: self.attribute,
                c: self.c,
                l: self.l,
            },
            with_suppression,
        )
    }
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        is_recursive_cl_diverse(class.distribution(0), self.c, self.l, self.flavor)
    }
    /// Recursive (c,l)-diversity needs `l` distinct values (`tail_start` fails below).
    fn relaxation(&self) -> Option<Box<dyn PrivacyCriterion>> {
        Some(Box::new(DistinctL {
            name: self.name.clone(),
            attribute: self.attribute,
            l: self.l,
        }))
    }
}

/// A ground distance, built once from the table's distribution.
#[derive(Debug, Clone)]
pub enum Ground {
    Equal(EqualDistance),
    Ordered(OrderedDistance),
    Hierarchical(HierarchicalDistance),
}

/// t-closeness against the distribution of the whole table (suppressed records included).
#[derive(Debug, Clone)]
pub struct TCloseness {
    pub name: String,
    pub attribute: usize,
    pub t: f64,
    pub ground: Ground,
    pub flavor: Flavor,
}

impl PrivacyCriterion for TCloseness {
    fn name(&self) -> String {
        let d = match self.ground {
            Ground::Equal(_) => "equal",
            Ground::Ordered(_) => "ordered",
            Ground::Hierarchical(_) => "hierarchical",
        };
        format!("{}-closeness of '{}' ({d} distance)", self.t, self.name)
    }
    fn requirements(&self) -> Requirements {
        requirements(1.0, self.attribute)
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        is_monotonic(
            &PrivacyModel::TCloseness {
                attribute: self.attribute,
                t: self.t,
                distance: TDistance::Equal,
            },
            with_suppression,
        )
    }
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        let d = class.distribution(0);
        match &self.ground {
            Ground::Equal(e) => e.is_close(d, self.t, self.flavor),
            Ground::Ordered(o) => o.is_close(d, self.t, self.flavor),
            Ground::Hierarchical(h) => h.is_close(d, self.t, self.flavor),
        }
    }
}
