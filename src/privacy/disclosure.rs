//! Attribute disclosure bounded against the table's own distribution of a sensitive attribute:
//! δ-disclosure privacy (Brickell and Shmatikov, KDD 2008) and β-likeness (Cao and Karras,
//! VLDB 2012), with ARX 3.9's definitions and arithmetic.
//!
//! For a value s with frequency p_s in the released records and q_s in a class:
//! - δ-disclosure: |log2(q_s / p_s)| < δ for every value present in the class;
//! - basic β-likeness: (q_s - p_s) / p_s <= β for every value present in the class;
//! - enhanced β-likeness: (q_s - p_s) / p_s <= min(β, -ln p_s), which protects rare values
//!   less generously than frequent ones (equal to basic when every p_s < e^-β).
//!
//! Monotonicity (where the search prunes, see `properties`): β-likeness bounds q_s from above
//! only, and a union's q_s is the mediant of its parts' (or smaller, when a part lacks s), so a
//! union of valid classes is valid: monotonic without suppression, not with it (a big invalid
//! class swallows a small valid one, as for t-closeness). δ-disclosure also bounds q_s from
//! below for every value present, and a union brings values into a class at a low frequency:
//! p = (½, ½), {s} and {t×10} are both valid at δ = 1.2 (|log2 2| = 1), their union has
//! q_s = 1/11 (|log2(2/11)| = 2.46). It is monotonic in neither setting, so the search checks
//! every transformation it cannot rule out by the other models (ARX: `DDisclosurePrivacy`
//! monotonic with neither generalization nor suppression).
//!
//! Both have a monotonic necessary condition the search tags by ([`PrivacyCriterion::relaxation`],
//! [`min_class_size`]): every value of a class of n records has q_s >= 1/n, and (1/n - p)/p
//! falls as p grows, so a class smaller than the n at which 1/(n·p_max) reaches 1 + β (2^δ) fails
//! whatever values it holds. That is a class-size bound, monotonic with suppression as
//! k-anonymity is, and on ADULT it rules out the many transformations near the bottom whose
//! unique records exceed the budget.

use super::distribution::DistributionBuf;
use super::{ClassView, PrivacyCriterion, Requirements};

/// The released records' frequency of each code of a sensitive column (0 for absent codes).
pub fn frequencies(table_dist: &DistributionBuf, domain: usize) -> Vec<f64> {
    let view = table_dist.view();
    let n = view.total() as f64;
    let mut f = vec![0.0; domain];
    for (code, count) in view.iter() {
        if (code as usize) < domain {
            f[code as usize] = count as f64 / n;
        }
    }
    f
}

/// The smallest class that can satisfy a bound q_s <= p_s·`factor` on every value present, given
/// the table's frequencies (see the module docs); a little below the exact bound, so that it never
/// rules out a class the model's own arithmetic would accept. 1 when nothing is ruled out.
pub fn min_class_size(table: &[f64], factor: f64) -> u64 {
    let p_max = table.iter().copied().fold(0.0, f64::max);
    if p_max <= 0.0 || factor.is_nan() || factor <= 0.0 {
        return 1;
    }
    // Smallest n with 1 / (n p_max) <= factor (1 + 1e-9).
    let n = (1.0 / (p_max * factor * (1.0 + 1e-9))).ceil();
    if n.is_finite() && n >= 1.0 {
        n as u64
    } else {
        1
    }
}

/// The class-size relaxation of a model bounding frequencies by `factor` (none if it rules out
/// nothing).
fn size_relaxation(table: &[f64], factor: f64) -> Option<Box<dyn PrivacyCriterion>> {
    let k = min_class_size(table, factor);
    (k > 1).then(|| Box::new(super::KAnonymity { k }) as Box<dyn PrivacyCriterion>)
}

/// δ-disclosure privacy of one sensitive attribute.
#[derive(Debug, Clone)]
pub struct DeltaDisclosure {
    pub name: String,
    pub attribute: usize,
    pub delta: f64,
    /// Frequencies in the released records, by code.
    pub table: Vec<f64>,
}

impl PrivacyCriterion for DeltaDisclosure {
    fn name(&self) -> String {
        format!("{}-disclosure privacy of '{}'", self.delta, self.name)
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: 1,
            distributions: vec![self.attribute],
        }
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        false
    }
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        let n = class.count as f64;
        class.distribution(0).iter().all(|(code, count)| {
            let p = self.table[code as usize];
            let q = count as f64 / n;
            // ARX: log2 as ln / ln 2.
            ((q / p).ln() / std::f64::consts::LN_2).abs() < self.delta
        })
    }
    fn relaxation(&self) -> Option<Box<dyn PrivacyCriterion>> {
        size_relaxation(&self.table, self.delta.exp2())
    }
}

/// Basic or enhanced β-likeness of one sensitive attribute.
#[derive(Debug, Clone)]
pub struct BetaLikeness {
    pub name: String,
    pub attribute: usize,
    pub beta: f64,
    pub enhanced: bool,
    /// Frequencies in the released records, by code.
    pub table: Vec<f64>,
}

impl PrivacyCriterion for BetaLikeness {
    fn name(&self) -> String {
        format!(
            "{} {}-likeness of '{}'",
            if self.enhanced { "enhanced" } else { "basic" },
            self.beta,
            self.name
        )
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: 1,
            distributions: vec![self.attribute],
        }
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        !with_suppression
    }
    fn is_satisfied(&self, class: &ClassView<'_>) -> bool {
        let n = class.count as f64;
        class.distribution(0).iter().all(|(code, count)| {
            let p = self.table[code as usize];
            let q = count as f64 / n;
            let bound = if self.enhanced {
                self.beta.min(-p.ln())
            } else {
                self.beta
            };
            (q - p) / p <= bound
        })
    }
    fn relaxation(&self) -> Option<Box<dyn PrivacyCriterion>> {
        size_relaxation(&self.table, 1.0 + self.beta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(c: &dyn PrivacyCriterion, counts: &[u32]) -> bool {
        let buf = DistributionBuf::from_dense(counts);
        let slots = [buf.view()];
        let n = counts.iter().map(|&c| c as u64).sum();
        c.is_satisfied(&ClassView::new(n, &slots, &[0]))
    }

    #[test]
    fn delta_disclosure_by_hand() {
        let d = DeltaDisclosure {
            name: "s".into(),
            attribute: 0,
            delta: 1.2,
            table: vec![0.5, 0.5],
        };
        assert!(judge(&d, &[1, 0]), "log2 2 = 1 < 1.2");
        assert!(judge(&d, &[0, 10]));
        assert!(!judge(&d, &[1, 10]), "union: |log2(2/11)| = 2.46");
        assert!(
            !judge(&DeltaDisclosure { delta: 1.0, ..d }, &[1, 0]),
            "strict"
        );
    }

    /// The relaxation's bound: no class below it passes, some class at it can.
    #[test]
    fn size_bound_is_necessary() {
        let table = vec![0.1, 0.2, 0.7];
        for factor in [1.2, 1.5, 2.0, 3.0, 5.0] {
            let m = min_class_size(&table, factor);
            let b = BetaLikeness {
                name: "s".into(),
                attribute: 0,
                beta: factor - 1.0,
                enhanced: false,
                table: table.clone(),
            };
            // Every class of fewer than m records fails, whatever it holds.
            for n in 1..m as u32 {
                for a in 0..=n {
                    for c in 0..=(n - a) {
                        assert!(
                            !judge(&b, &[a, c, n - a - c]),
                            "factor {factor}, {n} records"
                        );
                    }
                }
            }
        }
        // Tight where the frequencies allow: four values of 1/4, factor 2: classes of 2 can pass.
        let even = vec![0.25; 4];
        assert_eq!(min_class_size(&even, 2.0), 2);
        let b = BetaLikeness {
            name: "s".into(),
            attribute: 0,
            beta: 1.0,
            enhanced: false,
            table: even,
        };
        assert!(judge(&b, &[1, 1, 0, 0]));
        assert!(!judge(&b, &[1, 0, 0, 0]));
        assert_eq!(min_class_size(&[0.5, 0.5], 2.0), 1);
    }

    #[test]
    fn beta_likeness_by_hand() {
        let b = BetaLikeness {
            name: "s".into(),
            attribute: 0,
            beta: 1.0,
            enhanced: false,
            table: vec![0.1, 0.9],
        };
        assert!(judge(&b, &[1, 9]));
        assert!(judge(&b, &[2, 8]), "(0.2 - 0.1) / 0.1 = 1 <= 1");
        assert!(!judge(&b, &[3, 7]));
        assert!(judge(&b, &[0, 1]), "0.9 grows by at most 1/9");
        // Enhanced: min(1, -ln 0.9 = 0.105) for the frequent value.
        let e = BetaLikeness {
            enhanced: true,
            ..b.clone()
        };
        assert!(judge(&e, &[2, 8]));
        assert!(!judge(&e, &[0, 1]), "(1 - 0.9) / 0.9 = 0.11 > 0.105");
        assert!(judge(&b, &[0, 1]));
    }
}
