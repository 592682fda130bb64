//! l-diversity of one class: distinct, entropy and recursive (c,l).
//!
//! Definitions (Machanavajjhala et al. 2007), over the counts of the class's sensitive values:
//! - **distinct**: at least `l` distinct values (`ceil(l)` for a fractional `l`).
//! - **entropy**: H = -Σ p·ln p >= ln l. The class's *entropy l* is `exp(H)`: the largest `l` it
//!   satisfies (a class split 50/50 has entropy l 2).
//! - **recursive (c,l)**: with counts sorted descending r1 >= r2 >= ... >= rm,
//!   `r1 < c·(r_l + ... + r_m)`. For a given `c`, a class's *recursive l* is the largest `l` it
//!   satisfies.
//!
//! The tools differ only in arithmetic, chosen by [`Flavor`]:
//! - entropy: ARX computes `-(Σ f·log2 f / n - log2 n) >= log2 l` (and first requires `ceil(l)`
//!   distinct values); the toolbox sums `p·ln p` with `p = f/n` and fails a class if
//!   `-Σ < ln l`. Both go wrong by one unit in the last place at exact boundaries, differently:
//!   ARX fails {2,2,2} and {3,3} at l = 3 and 2, the toolbox fails {1,1,1} at l = 3. The flavors
//!   reproduce that; [`Flavor::Exact`] accepts all of them (tolerance 1e-12).
//! - recursive: both require `l` distinct values, sort the counts ascending, and sum the tail
//!   from index `start` down to 0, then compare `r1 < c·tail`. ARX's start is `m - ceil(l)`, the
//!   toolbox's `Math.round(m - l)` (= `floor(m - l + 0.5)`); they agree for integer `l`. The
//!   comparison is the same double arithmetic in both (an integer sum times `c`).

use super::distribution::Distribution;
#[cfg(test)]
use super::distribution::DistributionBuf;
use super::properties::{Flavor, EXACT_TOLERANCE};

/// Number of distinct sensitive values in the class (its distinct l).
#[inline]
pub fn distinct_l(d: Distribution<'_>) -> usize {
    d.distinct()
}

/// Distinct l-diversity: at least `ceil(l)` distinct values.
#[inline]
pub fn is_distinct_l_diverse(d: Distribution<'_>, l: f64) -> bool {
    d.distinct() as f64 >= l.ceil()
}

/// Entropy of the class's sensitive values in nats, `Σ p·ln(1/p)`, computed term by term so that
/// an even split over m values gives exactly `ln m` where the floating point allows (m = 2, 4).
/// 0 for an empty class.
pub fn entropy(d: Distribution<'_>) -> f64 {
    let n = d.total() as f64;
    if n == 0.0 {
        return 0.0;
    }
    d.counts
        .iter()
        .copied()
        .map(|f| {
            let f = f as f64;
            (f / n) * (n / f).ln()
        })
        .sum()
}

/// The class's entropy l, `exp(H)`: the largest `l` for which it is entropy l-diverse
/// (1 for a class with one value, 0 for an empty class).
pub fn entropy_l(d: Distribution<'_>) -> f64 {
    if d.is_empty() {
        return 0.0;
    }
    entropy(d).exp()
}

/// Entropy l-diversity of one class, in the arithmetic of `flavor` (see the module docs).
pub fn is_entropy_l_diverse(d: Distribution<'_>, l: f64, flavor: Flavor) -> bool {
    match flavor {
        Flavor::Arx => is_entropy_l_diverse_arx(d, l, &Log2Table::default()),
        Flavor::Toolbox => {
            let total: f64 = d.counts.iter().copied().map(|f| f as f64).sum();
            let mut e = 0.0f64;
            for f in d.counts.iter().copied() {
                let p = f as f64 / total;
                e += p * p.ln();
            }
            // The toolbox fails a class if `-e < ln l`; written negated so that NaN passes, as
            // in Java.
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            let pass = !(-e < l.ln());
            pass
        }
        Flavor::Exact => !d.is_empty() && entropy(d) >= l.ln() - EXACT_TOLERANCE,
    }
}

/// `ln f / ln 2` for counts `f` in `0..len`, exactly as ARX computes each term of its entropy
/// (`Math.log(f) / Math.log(2)`), so a lookup gives the same bits as the computation. Counts
/// beyond the table are computed.
#[derive(Debug, Clone, Default)]
pub struct Log2Table(Vec<f64>);

impl Log2Table {
    /// A table for counts up to `max` (a table's number of records).
    pub fn new(max: usize) -> Log2Table {
        Log2Table(
            (0..=max)
                .map(|f| (f as f64).ln() / std::f64::consts::LN_2)
                .collect(),
        )
    }

    #[inline]
    fn get(&self, f: u32) -> f64 {
        match self.0.get(f as usize) {
            Some(&v) => v,
            None => (f as f64).ln() / std::f64::consts::LN_2,
        }
    }
}

/// Entropy l-diversity in ARX's arithmetic ([`Flavor::Arx`]), with `log2` looked up in `table`:
/// `ceil(l)` distinct values and `-(Σ f·log2 f / n − log2 n) >= log2 l`.
pub fn is_entropy_l_diverse_arx(d: Distribution<'_>, l: f64, table: &Log2Table) -> bool {
    if (d.distinct() as f64) < l.ceil() {
        return false;
    }
    let (mut sum, mut total) = (0.0f64, 0u32);
    for &f in d.counts {
        sum += f as f64 * table.get(f);
        total += f;
    }
    let val = -((sum / total as f64) - table.get(total));
    val >= l.ln() / 2f64.ln()
}

/// Calls `f` with the class's counts sorted ascending: on the stack for up to 64 values (the
/// usual case; no allocation per class), else in a vector.
fn with_sorted_counts<R>(d: Distribution<'_>, f: impl FnOnce(&[u32]) -> R) -> R {
    const STACK: usize = 64;
    if d.counts.len() <= STACK {
        let mut buf = [0u32; STACK];
        let buf = &mut buf[..d.counts.len()];
        buf.copy_from_slice(d.counts);
        buf.sort_unstable();
        f(buf)
    } else {
        let mut buf = d.counts.to_vec();
        buf.sort_unstable();
        f(&buf)
    }
}

/// The tail start index (into counts sorted ascending) for `m` distinct values and parameter
/// `l`; `None` if `m < l`.
fn tail_start(m: usize, l: f64, flavor: Flavor) -> Option<usize> {
    if (m as f64) < l {
        return None;
    }
    let start = match flavor {
        Flavor::Toolbox => (m as f64 - l + 0.5).floor(),
        Flavor::Arx | Flavor::Exact => m as f64 - l.ceil(),
    };
    Some(start.max(0.0) as usize)
}

/// Recursive (c,l)-diversity of one class, in the arithmetic of `flavor`: `l` distinct values and
/// `r1 < c·(r_l + ... + r_m)`.
pub fn is_recursive_cl_diverse(d: Distribution<'_>, c: f64, l: f64, flavor: Flavor) -> bool {
    let m = d.distinct();
    let Some(start) = tail_start(m, l, flavor) else {
        return false;
    };
    if m == 0 {
        return false;
    }
    with_sorted_counts(d, |counts| {
        let r1 = counts[m - 1] as f64;
        let tail: u64 = counts[..=start].iter().map(|&x| x as u64).sum();
        r1 < c * tail as f64
    })
}

/// The class's recursive l for a given `c`: the largest integer `l` (1..=m) with
/// `r1 < c·(r_l + ... + r_m)`, or 0 if even `l = 1` fails (c <= 1) or the class is empty.
pub fn recursive_l(d: Distribution<'_>, c: f64) -> usize {
    let m = d.distinct();
    if m == 0 {
        return 0;
    }
    with_sorted_counts(d, |counts| {
        let r1 = counts[m - 1] as f64;
        // Tail of l = the l-th largest count and all smaller ones = ascending indices 0..=m-l.
        // It shrinks as l grows: scan l upwards, keeping the last l that passes.
        let mut tail: u64 = counts.iter().map(|&x| x as u64).sum();
        let mut best = 0;
        for l in 1..=m {
            if r1 < c * tail as f64 {
                best = l;
            } else {
                break;
            }
            tail -= counts[m - l] as u64;
        }
        best
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(counts: &[u32]) -> DistributionBuf {
        DistributionBuf::from_dense(counts)
    }

    const ALL: [Flavor; 3] = [Flavor::Arx, Flavor::Toolbox, Flavor::Exact];

    #[test]
    fn distinct() {
        let d = dist(&[3, 0, 1]);
        assert_eq!(distinct_l(d.view()), 2);
        assert!(is_distinct_l_diverse(d.view(), 2.0));
        assert!(
            !is_distinct_l_diverse(d.view(), 2.5),
            "fractional l needs ceil(l) values"
        );
        assert!(!is_distinct_l_diverse(d.view(), 3.0));
        assert!(!is_distinct_l_diverse(Distribution::default(), 1.0));
    }

    #[test]
    fn entropy_by_hand() {
        // 50/50: H = ln 2, entropy l exactly 2.
        let d = dist(&[5, 5]);
        assert_eq!(entropy(d.view()), std::f64::consts::LN_2);
        assert_eq!(entropy_l(d.view()), 2.0);
        for f in ALL {
            assert!(is_entropy_l_diverse(d.view(), 2.0, f), "{f:?}");
            assert!(!is_entropy_l_diverse(d.view(), 2.0001, f), "{f:?}");
        }
        // 3:1: H = -(3/4 ln 3/4 + 1/4 ln 1/4) = ln 4 - 3/4 ln 3 = 0.5623351446188083...
        let d = dist(&[3, 1]);
        let h = 4f64.ln() - 0.75 * 3f64.ln();
        assert!((entropy(d.view()) - h).abs() < 1e-15);
        assert!((entropy_l(d.view()) - 4.0 / 3f64.powf(0.75)).abs() < 1e-14);
        for f in ALL {
            assert!(is_entropy_l_diverse(d.view(), 1.75, f), "{f:?}");
            assert!(!is_entropy_l_diverse(d.view(), 1.76, f), "{f:?}");
        }
        // One value: H = 0, entropy l 1; empty: 0.
        assert_eq!(entropy_l(dist(&[0, 7]).view()), 1.0);
        assert_eq!(entropy_l(Distribution::default()), 0.0);
        // Even split over 4: ln 4.
        assert!((entropy_l(dist(&[2, 2, 2, 2]).view()) - 4.0).abs() < 1e-14);
    }

    #[test]
    fn entropy_boundaries_follow_each_tool() {
        // ARX's log2 form loses one ulp on {2,2,2} and {3,3}, not on {1,1,1}.
        assert!(is_entropy_l_diverse(
            dist(&[1, 1, 1]).view(),
            3.0,
            Flavor::Arx
        ));
        assert!(!is_entropy_l_diverse(
            dist(&[2, 2, 2]).view(),
            3.0,
            Flavor::Arx
        ));
        assert!(is_entropy_l_diverse(
            dist(&[3, 3, 3]).view(),
            3.0,
            Flavor::Arx
        ));
        assert!(!is_entropy_l_diverse(
            dist(&[3, 3]).view(),
            2.0,
            Flavor::Arx
        ));
        // The toolbox's Σ p ln p loses one on {1,1,1} (and on any even split over 3).
        assert!(!is_entropy_l_diverse(
            dist(&[1, 1, 1]).view(),
            3.0,
            Flavor::Toolbox
        ));
        assert!(!is_entropy_l_diverse(
            dist(&[2, 2, 2]).view(),
            3.0,
            Flavor::Toolbox
        ));
        assert!(is_entropy_l_diverse(
            dist(&[3, 3]).view(),
            2.0,
            Flavor::Toolbox
        ));
        // Exact accepts all even splits.
        for c in [&[1, 1, 1][..], &[2, 2, 2], &[3, 3, 3], &[7, 7, 7]] {
            assert!(
                is_entropy_l_diverse(dist(c).view(), 3.0, Flavor::Exact),
                "{c:?}"
            );
        }
        assert!(is_entropy_l_diverse(
            dist(&[3, 3]).view(),
            2.0,
            Flavor::Exact
        ));
        // ARX also needs ceil(l) distinct values: l = 2.5 on {1,1} fails anyway; an entropy of
        // ln 2.5 with 3 values {2,1,1}? H = 1.0397 >= ln 2.5 = 0.9163.
        assert!(!is_entropy_l_diverse(
            dist(&[1, 1]).view(),
            2.5,
            Flavor::Arx
        ));
        for f in ALL {
            assert!(
                is_entropy_l_diverse(dist(&[2, 1, 1]).view(), 2.5, f),
                "{f:?}"
            );
        }
    }

    #[test]
    fn arx_entropy_table_gives_the_same_bits() {
        let t = Log2Table::new(50);
        for counts in [
            &[1, 1, 1][..],
            &[2, 2, 2],
            &[3, 3],
            &[5, 9, 1, 30],
            &[40, 40],
        ] {
            for l in [1.5, 2.0, 3.0] {
                let d = dist(counts);
                assert_eq!(
                    is_entropy_l_diverse_arx(d.view(), l, &t),
                    is_entropy_l_diverse_arx(d.view(), l, &Log2Table::default()),
                );
            }
        }
        // Totals beyond the table fall back to computing.
        assert!(!is_entropy_l_diverse_arx(
            dist(&[40, 40]).view(),
            2.0,
            &Log2Table::new(3)
        ));
        assert!(is_entropy_l_diverse_arx(
            dist(&[2, 2]).view(),
            2.0,
            &Log2Table::new(3)
        ));
    }

    #[test]
    fn recursive_by_hand() {
        // Descending 5,3,2,2; c = 2: l=2 tail 7 (5 < 14), l=3 tail 4 (5 < 8), l=4 tail 2 (5 < 4 no).
        let d = dist(&[2, 5, 2, 3]);
        for f in ALL {
            assert!(is_recursive_cl_diverse(d.view(), 2.0, 2.0, f));
            assert!(is_recursive_cl_diverse(d.view(), 2.0, 3.0, f));
            assert!(!is_recursive_cl_diverse(d.view(), 2.0, 4.0, f));
            assert!(
                !is_recursive_cl_diverse(d.view(), 2.0, 5.0, f),
                "fewer than l values"
            );
        }
        assert_eq!(recursive_l(d.view(), 2.0), 3);
        assert_eq!(recursive_l(d.view(), 2.5001), 4);
        assert_eq!(recursive_l(d.view(), 2.5), 3, "5 < 2.5·2 is false: strict");
        // c = 1: l=1 5 < 12, l=2 5 < 7, l=3 5 < 4 no.
        assert_eq!(recursive_l(d.view(), 1.0), 2);
        // One value: l = 1 is r1 < c·r1, which needs c > 1.
        assert_eq!(recursive_l(dist(&[0, 7]).view(), 1.0), 0);
        assert_eq!(recursive_l(dist(&[0, 7]).view(), 1.5), 1);
        assert_eq!(recursive_l(Distribution::default(), 9.0), 0);
    }

    #[test]
    fn recursive_ties() {
        // {3,3,3}, l = 3: r1 = 3, tail = r3 = 3; 3 < c·3 needs c > 1.
        let d = dist(&[3, 3, 3]);
        for f in ALL {
            assert!(!is_recursive_cl_diverse(d.view(), 1.0, 3.0, f), "{f:?}");
            assert!(
                is_recursive_cl_diverse(d.view(), 1.0000001, 3.0, f),
                "{f:?}"
            );
            assert!(is_recursive_cl_diverse(d.view(), 1.0, 2.0, f), "3 < 1·6");
        }
        assert_eq!(recursive_l(d.view(), 1.0), 2);
        assert_eq!(recursive_l(d.view(), 1.0000001), 3);
        // Ties at the top: {4,4,1}, c = 1, l = 2: tail = 4 + 1 = 5 > 4 passes.
        assert!(is_recursive_cl_diverse(
            dist(&[4, 1, 4]).view(),
            1.0,
            2.0,
            Flavor::Arx
        ));
    }

    #[test]
    fn recursive_fractional_l_differs_between_tools() {
        // Descending 4,3,2,1, l = 2.5, c = 1. ARX: start m - ceil(l) = 1 -> tail 1+2 = 3, 4 < 3
        // fails. Toolbox: start round(1.5) = 2 -> tail 1+2+3 = 6, 4 < 6 passes.
        let d = dist(&[1, 2, 3, 4]);
        assert!(!is_recursive_cl_diverse(d.view(), 1.0, 2.5, Flavor::Arx));
        assert!(is_recursive_cl_diverse(d.view(), 1.0, 2.5, Flavor::Toolbox));
        // Integer l: the same.
        for l in [2.0, 3.0, 4.0] {
            for c in [0.5, 1.0, 1.5, 2.0, 4.0] {
                assert_eq!(
                    is_recursive_cl_diverse(d.view(), c, l, Flavor::Arx),
                    is_recursive_cl_diverse(d.view(), c, l, Flavor::Toolbox),
                );
            }
        }
    }

    #[test]
    fn recursive_l_agrees_with_the_predicate() {
        let cases: &[&[u32]] = &[
            &[1],
            &[5, 1],
            &[3, 3, 3],
            &[9, 1, 1, 1, 1],
            &[4, 4, 2, 1, 7],
        ];
        for counts in cases {
            let d = dist(counts);
            for c in [0.5, 1.0, 1.2, 2.0, 3.0, 10.0] {
                let best = recursive_l(d.view(), c);
                for l in 1..=counts.len() + 1 {
                    let ok = is_recursive_cl_diverse(d.view(), c, l as f64, Flavor::Exact);
                    assert_eq!(ok, l <= best, "{counts:?} c={c} l={l}");
                }
            }
        }
    }
}
