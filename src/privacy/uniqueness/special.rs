//! The special functions the population models need, with ARX 3.9's arithmetic where it has its
//! own: digamma and trigamma as ARX's `risk.Gamma` computes them (recurrence up to 12 resp. 8,
//! then the asymptotic series; ARX adds trigamma's series only from 12 on, so arguments that the
//! recurrence lifts into [8, 12) get none, and the estimates depend on that), log-gamma and gamma
//! by Lanczos' approximation (accurate to about 1e-15 relative, as commons-math's), and the
//! hypergeometric probability of exactly one success.

use std::f64::consts::PI;

const DIGAMMA_1: f64 = -0.577_215_664_901_532_9;
const TRIGAMMA_1: f64 = PI * PI / 6.0;
const TETRAGAMMA_1: f64 = -2.0 * 1.202_056_903_159_594_3;

/// ψ(x), ARX's recurrence and series.
pub fn digamma(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x < 0.0 {
        return digamma(1.0 - x) + PI / (-PI * x).tan();
    }
    if x <= 1e-6 {
        return DIGAMMA_1 - 1.0 / x + TRIGAMMA_1 * x;
    }
    let (mut x, mut result) = (x, 0.0);
    while x < 12.0 {
        result -= 1.0 / x;
        x += 1.0;
    }
    let mut r = 1.0 / x;
    result += x.ln() - 0.5 * r;
    r *= r;
    result
        - r * (1.0 / 12.0
            - r * (1.0 / 120.0 - r * (1.0 / 252.0 - r * (1.0 / 240.0 - r * (1.0 / 132.0)))))
}

/// ψ'(x) as ARX computes it (see the module docs for its gap in [8, 12)).
pub fn trigamma(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if x < 0.0 {
        let r = PI / (-PI * x).sin();
        return -trigamma(1.0 - x) + r * r;
    }
    if x <= 1e-4 {
        return 1.0 / (x * x) + TRIGAMMA_1 + TETRAGAMMA_1 * x;
    }
    let (mut x, mut result) = (x, 0.0);
    while x < 8.0 {
        result += 1.0 / (x * x);
        x += 1.0;
    }
    if x >= 12.0 {
        let r = 1.0 / (x * x);
        let (b2, b4, b6, b8, b10) = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0);
        result += 0.5 * r + (1.0 + r * (b2 + r * (b4 + r * (b6 + r * (b8 + r * b10))))) / x;
    }
    result
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7); NaN elsewhere.
pub fn ln_gamma(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1-x) = π / sin(πx).
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Γ(x) for x > 0 (infinite beyond about 171.6).
pub fn gamma(x: f64) -> f64 {
    ln_gamma(x).exp()
}

/// P[X = 1] for X hypergeometric: one of `sample` draws without replacement from `population`
/// items, `successes` of them successes: (K n / N) Π_{i<K-1} (N - n - i) / (N - 1 - i), summed in
/// logarithms with ln_1p so that huge populations lose nothing to cancellation.
pub fn hypergeometric_one(population: f64, successes: f64, sample: f64) -> f64 {
    let (n_pop, k, n) = (population, successes, sample);
    if k < 1.0 || n < 1.0 || k > n_pop || n > n_pop || k + n - 1.0 > n_pop {
        return 0.0;
    }
    let mut log = (k * n / n_pop).ln();
    let mut i = 0.0;
    while i < k - 1.0 {
        // (N - n - i) / (N - 1 - i) = 1 - (n - 1) / (N - 1 - i)
        log += (-(n - 1.0) / (n_pop - 1.0 - i)).ln_1p();
        i += 1.0;
    }
    log.exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn against_known_values() {
        assert!((digamma(1.0) - DIGAMMA_1).abs() < 1e-14);
        assert!((digamma(0.5) - (-1.963_510_026_021_423_5)).abs() < 1e-13);
        assert!((digamma(100.0) - 4.600_161_852_738_087).abs() < 1e-13);
        // ARX's trigamma: exact from 12 on, without the tail when the recurrence stops in [8, 12).
        let x: f64 = 12.5;
        let series = 1.0 / x + 1.0 / (2.0 * x * x) + 1.0 / (6.0 * x.powi(3))
            - 1.0 / (30.0 * x.powi(5))
            + 1.0 / (42.0 * x.powi(7))
            - 1.0 / (30.0 * x.powi(9));
        assert!((trigamma(x) - series).abs() < 1e-13, "{}", trigamma(x));
        let partial: f64 = (1..8).map(|i| 1.0 / (i * i) as f64).sum();
        assert_eq!(trigamma(1.0), partial);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - PI.sqrt().ln()).abs() < 1e-13);
        assert!((gamma(5.0) - 24.0).abs() < 1e-11);
        // Hypergeometric P[X = 1], against the binomial coefficients.
        let c =
            |n: f64, k: f64| (ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)).exp();
        let (big_n, k, n) = (50.0, 4.0, 10.0);
        let want = k * c(big_n - k, n - 1.0) / c(big_n, n);
        assert!((hypergeometric_one(big_n, k, n) - want).abs() < 1e-12);
        assert!((hypergeometric_one(100.0, 1.0, 10.0) - 0.1).abs() < 1e-15);
    }
}
