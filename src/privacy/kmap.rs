//! k-map (Sweeney): every record must match at least k people of the *population*, not only k
//! records of the sample. Without a population table the class sizes in the population are
//! estimated, as ARX 3.9 does (`KMap` with an estimator, Pannekoek's Poisson model by default):
//! a class of size f in a sample drawn with fraction π holds about Poisson(π·k) records when
//! its population count is k, so k-map holds with significance α when every sample class has
//! at least k' records, k' the smallest count with P[Poisson(π·k) <= k' - 2] >= 1 - α (ARX's
//! loop returns the count two past the quantile), capped at k and at the number of records.
//! The model is then k'-anonymity: a class-size criterion, monotonic with and without
//! suppression as k-anonymity is, and the checker treats it as one ([`KMap`] is size-only).

use super::{ClassView, PrivacyCriterion, Requirements};

/// How the population counts of the sample's classes are estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Estimator {
    /// Poisson(π·k) (Pannekoek; ARX's default).
    Poisson,
    /// Poisson truncated at zero (El Emam), for samples known to contain every class.
    ZeroTruncatedPoisson,
}

impl Estimator {
    /// As the config names it (`estimator=`).
    pub fn name(self) -> &'static str {
        match self {
            Estimator::Poisson => "poisson",
            Estimator::ZeroTruncatedPoisson => "zero-truncated-poisson",
        }
    }
}

/// k' for k-map with `k`, significance `alpha`, `records` in the sample and a population of
/// `population` people (ARX's `KMap.initialize`).
pub fn derived_k(k: u64, alpha: f64, records: u64, population: u64, estimator: Estimator) -> u64 {
    let lambda = records as f64 / population as f64 * k as f64;
    let threshold = 1.0 - alpha;
    let raw = match estimator {
        Estimator::Poisson => {
            // counter counts the quantiles tried; the loop's result is counter + 1.
            let mut counter = 0u64;
            let mut value = 0.0;
            while value < threshold {
                value = poisson_cdf(lambda, counter);
                counter += 1;
                if counter >= k {
                    break;
                }
            }
            counter + 1
        }
        Estimator::ZeroTruncatedPoisson => {
            let v2 = 1.0 - poisson_pmf(lambda, 0);
            let mut counter = 1u64;
            let mut value = 0.0;
            while value < threshold {
                value += poisson_pmf(lambda, counter) / v2;
                counter += 1;
                if counter >= k {
                    break;
                }
            }
            counter
        }
    };
    raw.min(records).min(k)
}

/// P[X = i] for X ~ Poisson(λ), in log space.
pub fn poisson_pmf(lambda: f64, i: u64) -> f64 {
    if lambda <= 0.0 {
        return if i == 0 { 1.0 } else { 0.0 };
    }
    (i as f64 * lambda.ln() - lambda - ln_factorial(i)).exp()
}

/// P[X <= i] for X ~ Poisson(λ).
pub fn poisson_cdf(lambda: f64, i: u64) -> f64 {
    (0..=i)
        .map(|j| poisson_pmf(lambda, j))
        .sum::<f64>()
        .min(1.0)
}

/// ln(n!), exact summation (the quantiles k-map needs are small).
fn ln_factorial(n: u64) -> f64 {
    (2..=n).map(|j| (j as f64).ln()).sum()
}

/// k-map as a class-size criterion (k'-anonymity, see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct KMap {
    pub k: u64,
    pub derived: u64,
    pub population: u64,
}

impl PrivacyCriterion for KMap {
    fn name(&self) -> String {
        format!(
            "{}-map in a population of {} (estimated as {}-anonymity)",
            self.k, self.population, self.derived
        )
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: self.derived.max(1),
            distributions: Vec::new(),
        }
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        true
    }
    fn size_only(&self) -> bool {
        true
    }
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        class.count >= self.derived
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_k_as_arx() {
        // ARX 3.9.2 on ADULT (30,162 records), significance 0.01 (runner's kmap_derived_k).
        assert_eq!(
            derived_k(5, 0.01, 30_162, 317_238_626, Estimator::Poisson),
            2
        );
        assert_eq!(derived_k(10, 0.01, 30_162, 60_000, Estimator::Poisson), 10);
        assert_eq!(derived_k(3, 0.01, 30_162, 40_000, Estimator::Poisson), 3);
        assert_eq!(
            derived_k(10, 0.01, 30_162, 1_000_000, Estimator::Poisson),
            4
        );
        // Never above the records.
        assert_eq!(derived_k(50, 0.01, 7, 8, Estimator::Poisson), 7);
    }

    #[test]
    fn poisson_by_hand() {
        let l: f64 = 1.5;
        assert!((poisson_pmf(l, 2) - l * l / 2.0 * (-l).exp()).abs() < 1e-15);
        assert!((poisson_cdf(l, 1) - (1.0 + l) * (-l).exp()).abs() < 1e-15);
        let s: f64 = (1..60).map(|i| poisson_pmf(l, i)).sum();
        assert!((s - (1.0 - (-l).exp())).abs() < 1e-12);
    }
}
