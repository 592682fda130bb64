//! The population a table is a sample of, as ARX models it (`ARXPopulationModel`): a region
//! with its census figure, or a size given outright. The risk models that look beyond the
//! sample (k-map's estimate, journalist and marketer risk, population uniqueness) read the
//! *sampling fraction*, records / population size; nothing else of the population is known.

use crate::{Error, Result};

/// ARX 3.9's regions and their population sizes (the figures ARX ships, so that a config naming a
/// region gives the same sampling fraction, hence the same estimates, as ARX).
pub const REGIONS: &[(&str, u64)] = &[
    ("africa", 1_100_000_000),
    ("australia", 23_130_900),
    ("europe", 740_000_000),
    ("north-america", 565_265_000),
    ("south-america", 385_742_554),
    ("eu", 507_420_000),
    ("brazil", 202_656_788),
    ("canada", 34_834_841),
    ("china", 1_366_040_000),
    ("france", 65_820_916),
    ("germany", 80_767_000),
    ("india", 1_210_569_573),
    ("uk", 63_705_000),
    ("usa", 317_238_626),
];

/// A population: its name (a region, or the size written out) and size.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Population {
    pub name: String,
    pub size: u64,
}

impl Population {
    /// A region of [`REGIONS`] (case-insensitive) or a size in people (a positive integer).
    pub fn parse(text: &str) -> Result<Population> {
        let t = text.trim().to_ascii_lowercase();
        if let Some(&(name, size)) = REGIONS.iter().find(|(n, _)| *n == t) {
            return Ok(Population {
                name: name.to_string(),
                size,
            });
        }
        match t.parse::<u64>() {
            Ok(size) if size > 0 => Ok(Population { name: t, size }),
            _ => Err(Error::Invalid(format!(
                "population '{text}' is neither a region ({}) nor a positive number of people",
                REGIONS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }

    /// A population of `size` people, named by its size.
    pub fn of_size(size: u64) -> Population {
        Population {
            name: size.to_string(),
            size,
        }
    }

    /// Records / population size (ARX's sampling fraction; above 1 if the population is
    /// smaller than the sample, which the estimators then treat as a census).
    pub fn sampling_fraction(&self, records: u64) -> f64 {
        records as f64 / self.size as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_sizes() {
        assert_eq!(Population::parse("USA").unwrap().size, 317_238_626);
        assert_eq!(Population::parse(" uk ").unwrap().name, "uk");
        assert_eq!(
            Population::parse("1000").unwrap(),
            Population::of_size(1000)
        );
        assert!(Population::parse("0").is_err());
        assert!(Population::parse("mars")
            .unwrap_err()
            .to_string()
            .contains("usa"));
        let p = Population::of_size(60_324);
        assert_eq!(p.sampling_fraction(30_162), 0.5);
    }
}
