//! (ε,δ)-differential privacy by sampling and k-anonymity: SafePub (Bild, Kuhn and Prasser,
//! PoPETs 2018), with ARX 3.9's parameters.
//!
//! Every record enters a random sample with probability β = 1 - e^(-ε'); the sample is
//! generalized by one transformation and every class of fewer than k sampled records is
//! suppressed, as are the records left out of the sample. For ε' the anonymization's share of
//! ε and the smallest k whose δ(k) < δ, this is (ε', δ)-differentially private (Li, Qardaji and
//! Su's theorem). [`parameters`] computes β and k as ARX's `ParameterCalculation` does, in
//! interval arithmetic ([`Interval`], ARX's `IntervalArithmeticDouble`: every operation widens
//! its result by one ulp each side), so k is never smaller than the exact figure; like ARX's
//! loop it returns one more than the first k whose δ(k) lies below δ.
//!
//! The transformation is either fixed in advance (data-independent: a generalization degree,
//! round(degree × height) per quasi-identifier, [`Degree::levels`]) or chosen by the
//! exponential mechanism over a number of steps with a share of ε (data-dependent:
//! `algorithms::safepub`). The sample is drawn by [`sample`] from a seeded ChaCha20 stream.
//!
//! As a criterion ([`DifferentialPrivacy`]) the model is "at least k sampled records in a
//! class": a class-size rule, monotonic with and without suppression (merging classes only
//! grows them), so it prunes like k-anonymity. The search does not use it to prune, though: the
//! data-independent release checks one transformation, the data-dependent one checks only what
//! the exponential mechanism walks through, and with every record suppressible (the suppression
//! limit is 100 %, as ARX sets it) every transformation is valid.

use super::{ClassView, PrivacyCriterion, Requirements};

/// ARX's default share of ε spent on the data-dependent search (`getDPSearchBudget`).
pub const DEFAULT_SEARCH_BUDGET: f64 = 0.1;

/// How SafePub chooses the transformation.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub enum DpSearch {
    /// A fixed generalization degree (data-independent).
    Degree(Degree),
    /// The exponential mechanism over `steps` steps, spending `budget` of ε (data-dependent).
    Steps { steps: usize, budget: f64 },
}

impl DpSearch {
    /// The share of ε the search spends (0 for a fixed degree).
    pub fn budget(self) -> f64 {
        match self {
            DpSearch::Degree(_) => 0.0,
            DpSearch::Steps { budget, .. } => budget,
        }
    }
}

/// ARX's generalization degrees (`DataGeneralizationScheme.GeneralizationDegree`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Degree {
    None,
    Low,
    LowMedium,
    Medium,
    MediumHigh,
    High,
    Complete,
}

impl Degree {
    pub const NAMES: &'static [&'static str] = &[
        "none",
        "low",
        "low-medium",
        "medium",
        "medium-high",
        "high",
        "complete",
    ];

    pub fn parse(s: &str) -> Option<Degree> {
        let all = [
            Degree::None,
            Degree::Low,
            Degree::LowMedium,
            Degree::Medium,
            Degree::MediumHigh,
            Degree::High,
            Degree::Complete,
        ];
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        Degree::NAMES.iter().position(|n| *n == s).map(|i| all[i])
    }

    pub fn name(self) -> &'static str {
        match self {
            Degree::None => "none",
            Degree::Low => "low",
            Degree::LowMedium => "low-medium",
            Degree::Medium => "medium",
            Degree::MediumHigh => "medium-high",
            Degree::High => "high",
            Degree::Complete => "complete",
        }
    }

    /// ARX's factor of the degree.
    pub fn factor(self) -> f64 {
        match self {
            Degree::None => 0.0,
            Degree::Low => 0.2,
            Degree::LowMedium => 0.4,
            Degree::Medium => 0.5,
            Degree::MediumHigh => 0.6,
            Degree::High => 0.8,
            Degree::Complete => 1.0,
        }
    }

    /// The level of each quasi-identifier whose hierarchy has `levels[j]` levels: Java's
    /// `Math.round(factor × height)` (half up), within the hierarchy.
    pub fn levels(self, levels: &[usize]) -> Vec<usize> {
        levels
            .iter()
            .map(|&l| {
                let height = l.saturating_sub(1);
                let level = (self.factor() * height as f64 + 0.5).floor() as usize;
                level.min(height)
            })
            .collect()
    }
}

/// The guarantee's derived parameters.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Parameters {
    /// ε spent on sampling and k-anonymity (ε minus the search's budget, rounded down).
    pub epsilon_anonymization: f64,
    /// Sampling probability.
    pub beta: f64,
    /// Smallest class size released.
    pub k: u64,
}

/// β and k for (ε, δ) with `search_budget` of ε spent on a data-dependent search (0 for a
/// data-independent one), as ARX 3.9 computes them. `None` where the interval arithmetic
/// overflows (ARX fails there too: ε very small or very large).
///
/// The series takes milliseconds and a run asks for the same parameters several times (the
/// config's validation, the search, the checker's criterion, the report), so each answer is
/// kept for the process.
pub fn parameters(epsilon: f64, delta: f64, search_budget: f64) -> Option<Parameters> {
    type Known = Vec<([u64; 3], Option<Parameters>)>;
    static KNOWN: std::sync::Mutex<Known> = std::sync::Mutex::new(Vec::new());
    let key = [epsilon.to_bits(), delta.to_bits(), search_budget.to_bits()];
    let known = |k: &Known| k.iter().find(|(q, _)| *q == key).map(|(_, p)| *p);
    if let Some(p) = known(&KNOWN.lock().unwrap_or_else(|e| e.into_inner())) {
        return p;
    }
    let p = compute_parameters(epsilon, delta, search_budget);
    let mut k = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    if known(&k).is_none() {
        k.push((key, p));
    }
    p
}

fn compute_parameters(epsilon: f64, delta: f64, search_budget: f64) -> Option<Parameters> {
    let eps = if search_budget > 0.0 {
        Interval::point(epsilon)
            .sub(Interval::point(search_budget))?
            .lo
    } else {
        epsilon
    };
    let e = Interval::point(eps);
    let d = Interval::point(delta);
    // β = 1 - exp(-ε)
    let beta = Interval::ONE.sub(Interval::MINUS_ONE.mul(e)?.exp()?)?;
    // γ = (e^ε - 1 + β) / e^ε
    let power = e.exp()?;
    let gamma = power.sub(Interval::ONE)?.add(beta)?.div(power)?;
    let mut cache = DeltaCache::default();
    let mut k: u64 = 1;
    let mut delta_k = Interval::point(f64::MAX);
    // ARX: `for (; !lessThan(delta_k, delta); ++k) delta_k = calculateDelta(k)`: the k after
    // the first whose δ(k) lies below δ. An undecidable comparison counts as "not below".
    loop {
        if delta_k.hi < d.lo {
            break;
        }
        delta_k = delta_of(k, beta, gamma, &mut cache)?;
        k += 1;
        if k > 1 << 24 {
            return None;
        }
    }
    Some(Parameters {
        epsilon_anonymization: eps,
        beta: beta.lo,
        k,
    })
}

/// ARX's caches of the sequences a(n) and c(n), which do not depend on k.
#[derive(Default)]
struct DeltaCache {
    a: std::collections::HashMap<u64, (Interval, Interval)>,
}

/// δ(k) = max over n >= n_m of a(n), n_m = ceil(k/γ - 1), until a(n) exceeds the bound c(n).
fn delta_of(k: u64, beta: Interval, gamma: Interval, cache: &mut DeltaCache) -> Option<Interval> {
    let n_m = Interval::point(k as f64)
        .div(gamma)?
        .sub(Interval::ONE)?
        .lo
        .ceil()
        .max(0.0) as u64;
    let mut delta = Interval::point(-f64::MAX);
    let mut bound = Interval::point(f64::MAX);
    let mut n = n_m;
    // ARX: `lessThanOrOverlap(delta, bound)`: delta.lo <= bound.hi.
    while delta.lo <= bound.hi {
        let (a, c) = match cache.a.get(&n) {
            Some(&ac) => ac,
            None => {
                let ac = (a_of(n, beta, gamma)?, c_of(n, beta, gamma)?);
                cache.a.insert(n, ac);
                ac
            }
        };
        delta = delta.max(a)?;
        bound = c;
        n += 1;
    }
    Some(delta)
}

/// a(n) = sum over j from floor(nγ) + 1 to n of Binomial(n, β)(j).
fn a_of(n: u64, beta: Interval, gamma: Interval) -> Option<Interval> {
    let from = Interval::point(n as f64).mul(gamma)?.lo.floor() as i64 + 1;
    let mut sum = Interval::ZERO;
    for j in from.max(0) as u64..=n {
        sum = sum.add(binomial(n, beta, j)?)?;
    }
    Some(sum)
}

/// c(n) = exp(-n (γ ln(γ/β) - (γ - β))).
fn c_of(n: u64, beta: Interval, gamma: Interval) -> Option<Interval> {
    let t1 = gamma.mul(gamma.div(beta)?.ln()?)?;
    let t2 = t1.sub(gamma.sub(beta)?)?;
    Interval::MINUS_ONE
        .mul(Interval::point(n as f64).mul(t2)?)?
        .exp()
}

/// ARX's `binomialProbability` (Loader's saddle-point form, in intervals).
fn binomial(n: u64, p: Interval, k: u64) -> Option<Interval> {
    if k > n {
        return Some(Interval::ZERO);
    }
    if k == 0 {
        return Interval::ONE.sub(p)?.powi(n as i32);
    }
    if k == n {
        return p.powi(n as i32);
    }
    let nn = Interval::point(n as f64);
    let kk = Interval::point(k as f64);
    let nk = nn.sub(kk)?;
    let dev = kk
        .mul(kk.div(nn.mul(p)?)?.ln()?)?
        .add(nk.mul(nk.div(nn.mul(Interval::ONE.sub(p)?)?)?.ln()?)?)?;
    let term1 = stirling_error(nn)?
        .sub(stirling_error(kk)?)?
        .sub(stirling_error(nk)?)?;
    // ARX's interval [3.1415926535897932384, ...385]: both bounds are this double.
    let pi = Interval::point(std::f64::consts::PI);
    let term2 = nn
        .div(Interval::point(2.0).mul(pi)?.mul(kk)?.mul(nk)?)?
        .sqrt()?;
    term2.ln()?.add(term1)?.sub(dev)?.exp()
}

/// ARX's Stirling error bound: 1/(12n) - 1/(360n³), widened by 1/(1260n⁵).
fn stirling_error(v: Interval) -> Option<Interval> {
    let base = Interval::point(12.0)
        .mul(v)?
        .inv()?
        .sub(Interval::point(360.0).mul(v.powi(3)?)?.inv()?)?;
    let bound = Interval::point(1260.0).mul(v.powi(5)?)?.inv()?;
    let offset = bound.lo.abs().max(bound.hi.abs());
    Interval::new(down(base.lo - offset), up(base.hi + offset))
}

/// A closed interval of doubles, as ARX's `IntervalDouble`: every operation takes the extreme
/// results of the bounds and widens them by one ulp, so the exact result lies inside. `None`
/// where a bound is not finite (ARX's `IntervalArithmeticException`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

fn up(x: f64) -> f64 {
    x.next_up()
}

fn down(x: f64) -> f64 {
    x.next_down()
}

// add/sub/mul/div return an Option (a bound may overflow), which the operator traits cannot.
#[allow(clippy::should_implement_trait)]
impl Interval {
    pub const ZERO: Interval = Interval { lo: 0.0, hi: 0.0 };
    pub const ONE: Interval = Interval { lo: 1.0, hi: 1.0 };
    pub const MINUS_ONE: Interval = Interval { lo: -1.0, hi: -1.0 };

    pub fn point(x: f64) -> Interval {
        Interval { lo: x, hi: x }
    }

    fn new(lo: f64, hi: f64) -> Option<Interval> {
        (lo.is_finite() && hi.is_finite() && lo <= hi).then_some(Interval { lo, hi })
    }

    fn binary(self, o: Interval, f: impl Fn(f64, f64) -> f64) -> Option<Interval> {
        let v = [
            f(self.lo, o.lo),
            f(self.lo, o.hi),
            f(self.hi, o.lo),
            f(self.hi, o.hi),
        ];
        if v.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Interval::new(down(lo), up(hi))
    }

    fn unary(self, f: impl Fn(f64) -> f64) -> Option<Interval> {
        let (a, b) = (f(self.lo), f(self.hi));
        if !a.is_finite() || !b.is_finite() {
            return None;
        }
        Interval::new(down(a.min(b)), up(a.max(b)))
    }

    pub fn add(self, o: Interval) -> Option<Interval> {
        self.binary(o, |a, b| a + b)
    }
    pub fn sub(self, o: Interval) -> Option<Interval> {
        self.binary(o, |a, b| a - b)
    }
    pub fn mul(self, o: Interval) -> Option<Interval> {
        self.binary(o, |a, b| a * b)
    }
    pub fn div(self, o: Interval) -> Option<Interval> {
        self.binary(o, |a, b| a / b)
    }
    pub fn exp(self) -> Option<Interval> {
        self.unary(f64::exp)
    }
    pub fn ln(self) -> Option<Interval> {
        self.unary(f64::ln)
    }
    pub fn sqrt(self) -> Option<Interval> {
        self.unary(f64::sqrt)
    }
    pub fn inv(self) -> Option<Interval> {
        self.unary(|x| 1.0 / x)
    }
    pub fn powi(self, e: i32) -> Option<Interval> {
        // Java's Math.pow, not repeated multiplication.
        self.unary(|x| x.powf(e as f64))
    }

    /// ARX's `max`: the interval above the other (touching bounds decide); `None` where they
    /// overlap (undecidable).
    pub fn max(self, o: Interval) -> Option<Interval> {
        if self.hi == o.lo {
            return Some(o);
        }
        if o.hi == self.lo {
            return Some(self);
        }
        if !(self.hi < o.lo || o.hi < self.lo) {
            return None;
        }
        Some(if self.hi < o.lo { o } else { self })
    }
}

/// The random sample: `members[r]` is true with probability `beta`, drawn independently for
/// each of `rows` records from ChaCha20 seeded by `seed` (uniform doubles of 53 bits, as
/// Java's `nextDouble`).
pub fn sample(rows: usize, beta: f64, seed: u64) -> Vec<bool> {
    let mut rng = Rng::new(seed);
    (0..rows).map(|_| rng.next_f64() < beta).collect()
}

/// A seeded stream of uniform doubles: ChaCha20 (a cryptographically secure generator, whose
/// output nobody can predict without the seed, as SafePub's guarantee assumes of its coins).
pub struct Rng(rand_chacha::ChaCha20Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng::stream(seed, 0)
    }

    /// Stream `stream` of the generator of `seed` (independent of the other streams).
    pub fn stream(seed: u64, stream: u64) -> Rng {
        use rand_chacha::rand_core::SeedableRng;
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Rng(rng)
    }

    /// A uniform double in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        use rand_chacha::rand_core::RngCore;
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A seed from the operating system's entropy, for a run without `-seed`.
pub fn random_seed() -> u64 {
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    rand_chacha::ChaCha20Rng::from_os_rng().next_u64()
}

/// The model as a criterion: classes of fewer than k sampled records are outliers.
#[derive(Debug, Clone, PartialEq)]
pub struct DifferentialPrivacy {
    pub epsilon: f64,
    pub delta: f64,
    pub k: u64,
}

impl PrivacyCriterion for DifferentialPrivacy {
    fn name(&self) -> String {
        format!(
            "({},{})-differential privacy (k = {})",
            self.epsilon, self.delta, self.k
        )
    }
    fn requirements(&self) -> Requirements {
        Requirements {
            min_class_size: self.k.max(1),
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
        class.count >= self.k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_levels_round_half_up_as_java() {
        // Heights 0..=5 at 0.5: 0, 0.5 -> 1, 1, 1.5 -> 2, 2, 2.5 -> 3.
        assert_eq!(
            Degree::Medium.levels(&[1, 2, 3, 4, 5, 6]),
            vec![0, 1, 1, 2, 2, 3]
        );
        assert_eq!(Degree::Complete.levels(&[1, 4]), vec![0, 3]);
        assert_eq!(Degree::parse("Low_Medium"), Some(Degree::LowMedium));
        assert_eq!(Degree::parse("x"), None);
    }

    #[test]
    fn interval_contains_the_exact_result() {
        let third = Interval::ONE.div(Interval::point(3.0)).unwrap();
        assert!(third.lo < 1.0 / 3.0 && 1.0 / 3.0 < third.hi);
        let e = Interval::ONE.exp().unwrap();
        assert!(e.lo < std::f64::consts::E && std::f64::consts::E < e.hi);
        assert_eq!(
            Interval::point(1.0).max(Interval::point(1.0)),
            Some(Interval::ONE)
        );
        assert_eq!(Interval::new(0.0, 2.0).unwrap().max(Interval::ONE), None);
    }

    #[test]
    fn sampling_is_seeded() {
        let a = sample(1000, 0.5, 7);
        assert_eq!(a, sample(1000, 0.5, 7));
        assert_ne!(a, sample(1000, 0.5, 8));
        assert!(sample(100, 0.0, 1).iter().all(|&m| !m));
        assert!(sample(100, 1.0, 1).iter().all(|&m| m));
    }
}
