//! δ-presence (Nergiz, Atzori and Clifton, SIGMOD 2007).
//!
//! The input is a *population* table; a *research subset* of its records is what gets published.
//! For each class of the population, δ = (subset records in the class) / (population records in
//! the class) is the probability that an individual of the class is in the subset. The table is
//! (δmin, δmax)-present if every class has δmin <= δ <= δmax. As in ARX, a class with no subset
//! records has δ = 0.
//!
//! A union of classes has a δ between its parts' (it is their mediant), so the model is monotonic
//! without suppression; with suppression it is not (see `properties`).

use super::properties::{Flavor, EXACT_TOLERANCE};

/// δ of one class: `subset / population`, 0 when the class holds no subset record.
#[inline]
pub fn delta(subset: u64, population: u64) -> f64 {
    if subset == 0 || population == 0 {
        0.0
    } else {
        subset as f64 / population as f64
    }
}

/// True if the class's δ lies in `[dmin, dmax]` ([`Flavor::Exact`]: with tolerance).
#[inline]
pub fn is_delta_present(
    subset: u64,
    population: u64,
    dmin: f64,
    dmax: f64,
    flavor: Flavor,
) -> bool {
    let d = delta(subset, population);
    match flavor {
        Flavor::Exact => d >= dmin - EXACT_TOLERANCE && d <= dmax + EXACT_TOLERANCE,
        Flavor::Arx | Flavor::Toolbox => d >= dmin && d <= dmax,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand() {
        assert_eq!(delta(1, 4), 0.25);
        assert_eq!(delta(0, 4), 0.0);
        assert_eq!(delta(3, 3), 1.0);
        for f in [Flavor::Arx, Flavor::Toolbox, Flavor::Exact] {
            assert!(is_delta_present(1, 4, 0.25, 0.5, f));
            assert!(is_delta_present(2, 4, 0.25, 0.5, f));
            assert!(!is_delta_present(3, 4, 0.25, 0.5, f));
            assert!(
                !is_delta_present(0, 4, 0.1, 0.5, f),
                "no subset record: delta 0"
            );
            assert!(is_delta_present(0, 4, 0.0, 0.5, f));
            // 1/3 against 1/3 written as a decimal: the exact flavor's tolerance absorbs it.
        }
        assert!(is_delta_present(
            1,
            3,
            0.0,
            0.333_333_333_333_333,
            Flavor::Exact
        ));
        assert!(!is_delta_present(
            1,
            3,
            0.0,
            0.333_333_333_333_333,
            Flavor::Arx
        ));
    }
}
