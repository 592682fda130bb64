//! t-closeness: the distance between a class's sensitive distribution and the table's.
//!
//! Li, Li and Venkatasubramanian (ICDE 2007) measure it with the Earth Mover's Distance (EMD)
//! under a ground distance between values. Three ground distances, one type each; each is built
//! once from the table's distribution (which, as in ARX, includes suppressed records) and then
//! measures any number of classes:
//! - [`EqualDistance`]: all values at distance 1. EMD = ½·Σ|p_i − q_i| (total variation).
//! - [`OrderedDistance`]: values in ascending order, adjacent ones at distance 1/(m−1), m the
//!   number of distinct values in the table. EMD = Σ_{i<m} |Σ_{j<=i} (p_j − q_j)| / (m−1).
//! - [`HierarchicalDistance`]: two values are at distance level(lowest common ancestor)/height in
//!   the attribute's hierarchy (height = levels − 1). EMD computed bottom-up: at each inner node
//!   the children's surpluses (positive extras) and deficits (negative extras) cancel as far as
//!   they can, at cost (node level / height) per unit moved; what remains moves up.
//!
//! `distance` gives the exact figure: all sums are done in integers scaled by the two totals
//! (`a_i·N − b_i·n`, exact for any real table) and divided once at the end. `is_close` decides
//! `distance <= t` in the arithmetic of a [`Flavor`]: the toolbox's and ARX's ordered distance
//! are reproduced operation by operation (their sums run in a fixed order); ARX's equal and
//! hierarchical sums depend on its hash order, so the exact figure stands in for them.
//!
//! Codes index the table's distribution; a class may only contain codes the table contains.

use super::distribution::Distribution;
#[cfg(test)]
use super::distribution::DistributionBuf;
use super::properties::{Flavor, EXACT_TOLERANCE};
use crate::hierarchy::Hierarchy;

/// EMD with equal ground distance (total variation distance).
#[derive(Debug, Clone)]
pub struct EqualDistance {
    /// `table[code]`: records with that code in the table.
    table: Vec<u64>,
    total: u64,
}

impl EqualDistance {
    /// Built from the table's distribution (suppressed records included).
    pub fn new(table: Distribution<'_>) -> EqualDistance {
        let len = table.codes.last().map_or(0, |&c| c as usize + 1);
        let mut dense = vec![0u64; len];
        for (c, n) in table.iter() {
            dense[c as usize] = n as u64;
        }
        EqualDistance {
            table: dense,
            total: table.total(),
        }
    }

    fn table_count(&self, code: u32) -> u64 {
        self.table.get(code as usize).copied().unwrap_or(0)
    }

    /// ½·Σ|p_i − q_i|, exact up to one final rounding. 0 for an empty class.
    pub fn distance(&self, class: Distribution<'_>) -> f64 {
        // Σ over the class's codes |a·N − b·n|, plus b·n for every table code not in the class.
        // That sum is at most 2·n·N, so below 2^31 records 64-bit integers cannot overflow.
        if self.total < 1 << 31 {
            let n: i64 = class.counts.iter().map(|&a| a as i64).sum();
            let big_n = self.total as i64;
            if n == 0 || big_n == 0 {
                return 0.0;
            }
            let (mut x, mut covered) = (0i64, 0i64);
            for (&c, &a) in class.codes.iter().zip(class.counts) {
                let b = self.table_count(c) as i64;
                x += (a as i64 * big_n - b * n).abs();
                covered += b;
            }
            x += (big_n - covered).max(0) * n;
            return x as f64 / (2 * n * big_n) as f64;
        }
        let n = class.total() as i128;
        let big_n = self.total as i128;
        if n == 0 || big_n == 0 {
            return 0.0;
        }
        let mut x: i128 = 0;
        let mut covered: i128 = 0;
        for (c, a) in class.iter() {
            let b = self.table_count(c) as i128;
            x += (a as i128 * big_n - b * n).abs();
            covered += b;
        }
        x += (big_n - covered).max(0) * n;
        x as f64 / (2 * n * big_n) as f64
    }

    /// True if the class is t-close, in the arithmetic of `flavor`.
    pub fn is_close(&self, class: Distribution<'_>, t: f64, flavor: Flavor) -> bool {
        match flavor {
            Flavor::Toolbox => {
                // Σ over all codes 0..m in code order of |table/N − class/n|, halved; fails if > t.
                // Codes absent from both add 0.0 and do not change the sum.
                let n = class.total() as f64;
                let big_n = self.total as f64;
                let mut sum = 0.0f64;
                let mut it = class.iter().peekable();
                for (code, &b) in self.table.iter().enumerate() {
                    let a = match it.peek() {
                        Some(&(c, a)) if c as usize == code => {
                            it.next();
                            a as f64
                        }
                        _ => 0.0,
                    };
                    sum += (b as f64 / big_n - a / n).abs();
                }
                for (_, a) in it {
                    sum += (0.0 - a as f64 / n).abs();
                }
                // Fails if `sum / 2 > t`; negated as in the toolbox, so NaN passes.
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                let pass = !(sum / 2.0 > t);
                pass
            }
            Flavor::Arx => self.distance(class) <= t,
            Flavor::Exact => self.distance(class) <= t + EXACT_TOLERANCE,
        }
    }
}

/// EMD with ordered ground distance over the table's distinct values, normalized by m − 1.
#[derive(Debug, Clone)]
pub struct OrderedDistance {
    /// Codes present in the table, in ascending value order.
    order: Vec<u32>,
    /// `rank[code]`: position in `order` (u32::MAX for codes absent from the table).
    rank: Vec<u32>,
    /// Table counts in `order`.
    table: Vec<u64>,
    total: u64,
}

impl OrderedDistance {
    /// Built from the table's distribution and the numeric value of each code (`values[code]`).
    /// Codes are ordered by value (ties by code); only codes present in the table count towards
    /// m. Values must not be NaN.
    pub fn new(table: Distribution<'_>, values: &[f64]) -> OrderedDistance {
        let mut codes: Vec<u32> = table.codes.to_vec();
        codes.sort_by(|&a, &b| {
            values[a as usize]
                .partial_cmp(&values[b as usize])
                .expect("ordered distance: NaN value")
                .then(a.cmp(&b))
        });
        OrderedDistance::with_order(table, codes)
    }

    /// Built from the table's distribution and its codes in ascending order (each code present
    /// in the table exactly once).
    pub fn with_order(table: Distribution<'_>, order: Vec<u32>) -> OrderedDistance {
        let len = order.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut rank = vec![u32::MAX; len];
        for (i, &c) in order.iter().enumerate() {
            rank[c as usize] = i as u32;
        }
        let table_counts = order.iter().map(|&c| table.count(c) as u64).collect();
        OrderedDistance {
            order,
            rank,
            table: table_counts,
            total: table.total(),
        }
    }

    /// Number of distinct values in the table (m).
    pub fn m(&self) -> usize {
        self.order.len()
    }

    /// The class's counts by rank (dense, length m).
    fn class_by_rank(&self, class: Distribution<'_>) -> Vec<u64> {
        let mut q = vec![0u64; self.order.len()];
        for (c, a) in class.iter() {
            let r = self.rank.get(c as usize).copied().unwrap_or(u32::MAX);
            assert!(
                r != u32::MAX,
                "ordered distance: code {c} is not in the table"
            );
            q[r as usize] = a as u64;
        }
        q
    }

    /// Σ_{i<m} |Σ_{j<=i}(p_j − q_j)| / (m − 1), exact up to one final rounding. 0 if m <= 1 or
    /// the class is empty.
    pub fn distance(&self, class: Distribution<'_>) -> f64 {
        let m = self.order.len();
        let n = class.total() as i128;
        let big_n = self.total as i128;
        if m <= 1 || n == 0 {
            return 0.0;
        }
        let q = self.class_by_rank(class);
        let (mut cum, mut x) = (0i128, 0i128);
        for (&a, &b) in q.iter().zip(&self.table) {
            cum += a as i128 * big_n - b as i128 * n;
            x += cum.abs();
        }
        x as f64 / (n * big_n * (m as i128 - 1)) as f64
    }

    /// True if the class is t-close, in the arithmetic of `flavor`:
    /// - ARX: `sum += class/n − table/N` in value order, `distance += |sum|`, fail as soon as
    ///   `distance > t·(m − 1)` (all m terms count).
    /// - toolbox: `r = table/N − class/n`, `sum += r`, fail if `distance > t·(m − 1)` *before*
    ///   adding `|sum|` (so only the first m − 1 terms count).
    pub fn is_close(&self, class: Distribution<'_>, t: f64, flavor: Flavor) -> bool {
        let m = self.order.len();
        let threshold = t * (m as f64 - 1.0);
        match flavor {
            Flavor::Exact => self.distance(class) <= t + EXACT_TOLERANCE,
            Flavor::Arx | Flavor::Toolbox if m == 0 || class.is_empty() => true,
            Flavor::Arx => {
                let q = self.class_by_rank(class);
                let (n, big_n) = (class.total() as f64, self.total as f64);
                let (mut sum, mut distance) = (0.0f64, 0.0f64);
                for (&a, &b) in q.iter().zip(&self.table) {
                    let freq = a as f64 / n;
                    sum += freq - b as f64 / big_n;
                    distance += sum.abs();
                    if distance > threshold {
                        return false;
                    }
                }
                true
            }
            Flavor::Toolbox => {
                let q = self.class_by_rank(class);
                let (n, big_n) = (class.total() as f64, self.total as f64);
                let (mut sum, mut distance) = (0.0f64, 0.0f64);
                for (&a, &b) in q.iter().zip(&self.table) {
                    let r = if a == 0 {
                        b as f64 / big_n
                    } else {
                        b as f64 / big_n - a as f64 / n
                    };
                    sum += r;
                    if distance > threshold {
                        return false;
                    }
                    distance += sum.abs();
                }
                true
            }
        }
    }
}

/// EMD with hierarchical ground distance.
#[derive(Debug, Clone)]
pub struct HierarchicalDistance {
    /// `parent[level][id]`: id at `level + 1` of id `id` at `level`, for `level < height`.
    parent: Vec<Vec<u32>>,
    /// Width of each level.
    width: Vec<usize>,
    /// Table counts by leaf code.
    table: Vec<u64>,
    total: u64,
}

impl HierarchicalDistance {
    /// Built from the table's distribution and a hierarchy over the sensitive codes (level 0 ids
    /// = codes). Errors if the hierarchy has a single level, is not monotonic (an id with two
    /// parents), or does not cover a code of the table.
    pub fn new(
        table: Distribution<'_>,
        hierarchy: &Hierarchy,
    ) -> std::result::Result<HierarchicalDistance, String> {
        let levels = hierarchy.levels();
        if levels < 2 {
            return Err(format!(
                "hierarchy '{}' has one level; the hierarchical distance needs at least two",
                hierarchy.name
            ));
        }
        if let Err((level, label)) = hierarchy.check_monotonic() {
            return Err(format!(
                "hierarchy '{}' is not monotonic: '{label}' at level {level} has two parents",
                hierarchy.name
            ));
        }
        if let Some(&c) = table.codes.last() {
            if c as usize >= hierarchy.leaves() {
                return Err(format!(
                    "hierarchy '{}' does not cover every sensitive value",
                    hierarchy.name
                ));
            }
        }
        let width: Vec<usize> = (0..levels).map(|l| hierarchy.width(l)).collect();
        let mut parent: Vec<Vec<u32>> = (0..levels - 1).map(|l| vec![0; width[l]]).collect();
        for code in 0..hierarchy.leaves() as u32 {
            let row = hierarchy.row(code);
            for level in 0..levels - 1 {
                parent[level][row[level] as usize] = row[level + 1];
            }
        }
        Ok(HierarchicalDistance {
            parent,
            width,
            table: table
                .to_dense(hierarchy.leaves())
                .into_iter()
                .map(u64::from)
                .collect(),
            total: table.total(),
        })
    }

    /// The hierarchical EMD, exact up to one final rounding. 0 for an empty class.
    ///
    /// Below 2^31 records (every extra `b·n − a·N` then fits 62 bits) the extras are summed in
    /// 64-bit integers in one buffer on the stack ([`Self::distance_narrow`]), which a check of
    /// t-closeness calls once per class; above, in 128-bit ones ([`Self::distance_wide`]). Both
    /// give the same integers, so the same figure.
    pub fn distance(&self, class: Distribution<'_>) -> f64 {
        if self.total < 1 << 31 {
            self.distance_narrow(class)
        } else {
            self.distance_wide(class)
        }
    }

    /// [`Self::distance`] in 64-bit integers (the table has fewer than 2^31 records, so the
    /// class too: `|b·n − a·N| < 2^62`, and a level moves at most `n·N`).
    fn distance_narrow(&self, class: Distribution<'_>) -> f64 {
        let n = class.total() as i64;
        let big_n = self.total as i64;
        if n == 0 || big_n == 0 {
            return 0.0;
        }
        // The extras of the current level (at most the leaves) and the surpluses and deficits
        // of the level above; on the stack for the small hierarchies sensitive values have.
        const STACK: usize = 64;
        let w0 = self.width[0];
        let upper = self.width[1..].iter().copied().max().unwrap_or(0);
        let len = w0 + 2 * upper;
        let mut stack = [0i64; STACK];
        let mut heap = Vec::new();
        let buf: &mut [i64] = if len <= STACK {
            &mut stack[..len]
        } else {
            heap.resize(len, 0);
            &mut heap
        };
        let (extra, rest) = buf.split_at_mut(w0);
        let (pos, neg) = rest.split_at_mut(upper);
        for (e, &b) in extra.iter_mut().zip(&self.table) {
            *e = b as i64 * n;
        }
        for (c, a) in class.iter() {
            extra[c as usize] -= a as i64 * big_n;
        }
        let height = self.parent.len();
        let mut cost: i64 = 0;
        let mut width = w0;
        for level in 1..=height {
            let up = self.width[level];
            pos[..up].fill(0);
            neg[..up].fill(0);
            for (&e, &p) in extra[..width].iter().zip(&self.parent[level - 1]) {
                if e > 0 {
                    pos[p as usize] += e;
                } else {
                    neg[p as usize] -= e;
                }
            }
            let mut moved: i64 = 0;
            for ((x, &p), &q) in extra[..up].iter_mut().zip(&pos[..up]).zip(&neg[..up]) {
                moved += p.min(q);
                *x = p - q;
            }
            // A cost beyond 64 bits (a tall hierarchy over nearly 2^31 records): the wide sums.
            match (level as i64)
                .checked_mul(moved)
                .and_then(|c| cost.checked_add(c))
            {
                Some(c) => cost = c,
                None => return self.distance_wide(class),
            }
            width = up;
        }
        // The same integers as the wide sums, hence the same figure.
        match (height as i64).checked_mul(n * big_n) {
            Some(d) => cost as f64 / d as f64,
            None => cost as f64 / (height as i128 * n as i128 * big_n as i128) as f64,
        }
    }

    /// [`Self::distance`] in 128-bit integers, for any number of records.
    fn distance_wide(&self, class: Distribution<'_>) -> f64 {
        let n = class.total() as i128;
        let big_n = self.total as i128;
        if n == 0 || big_n == 0 {
            return 0.0;
        }
        let height = self.parent.len();
        // Extras at level 0: table share minus class share, scaled by n·N.
        let mut extra: Vec<i128> = self.table.iter().map(|&b| b as i128 * n).collect();
        for (c, a) in class.iter() {
            extra[c as usize] -= a as i128 * big_n;
        }
        let mut cost: i128 = 0;
        for level in 1..=height {
            let mut pos = vec![0i128; self.width[level]];
            let mut neg = vec![0i128; self.width[level]];
            for (id, &e) in extra.iter().enumerate() {
                let p = self.parent[level - 1][id] as usize;
                if e > 0 {
                    pos[p] += e;
                } else {
                    neg[p] -= e;
                }
            }
            let moved: i128 = pos.iter().zip(&neg).map(|(&p, &q)| p.min(q)).sum();
            cost += level as i128 * moved;
            extra = pos.iter().zip(&neg).map(|(&p, &q)| p - q).collect();
        }
        cost as f64 / (height as i128 * n * big_n) as f64
    }

    /// True if the class is t-close (`distance <= t`; [`Flavor::Exact`] with tolerance).
    pub fn is_close(&self, class: Distribution<'_>, t: f64, flavor: Flavor) -> bool {
        match flavor {
            Flavor::Exact => self.distance(class) <= t + EXACT_TOLERANCE,
            Flavor::Arx | Flavor::Toolbox => self.distance(class) <= t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dist(counts: &[u32]) -> DistributionBuf {
        DistributionBuf::from_dense(counts)
    }

    const ALL: [Flavor; 3] = [Flavor::Arx, Flavor::Toolbox, Flavor::Exact];

    #[test]
    fn equal_by_hand() {
        let table = dist(&[2, 2]);
        let e = EqualDistance::new(table.view());
        // P = (1, 0) vs Q = (.5, .5): ½(.5 + .5) = .5
        assert_eq!(e.distance(dist(&[2]).view()), 0.5);
        assert_eq!(e.distance(dist(&[0, 1]).view()), 0.5);
        assert_eq!(e.distance(table.view()), 0.0);
        assert_eq!(
            e.distance(dist(&[1, 1]).view()),
            0.0,
            "same shares, other size"
        );
        // Table (a 3, b 1, c 4), class (a 1, c 1): P = (.5, 0, .5), Q = (3/8, 1/8, 1/2):
        // ½(1/8 + 1/8 + 0) = 1/8.
        let e = EqualDistance::new(dist(&[3, 1, 4]).view());
        assert_eq!(e.distance(dist(&[1, 0, 1]).view()), 0.125);
        for f in ALL {
            assert!(e.is_close(dist(&[1, 0, 1]).view(), 0.125, f), "{f:?}");
            assert!(!e.is_close(dist(&[1, 0, 1]).view(), 0.1249, f), "{f:?}");
            assert!(
                e.is_close(dist(&[3, 1, 4]).view(), 0.0, f),
                "{f:?}: the table itself"
            );
        }
    }

    #[test]
    fn ordered_by_hand_li_et_al() {
        // Li et al.'s salary example: 9 values 3k..11k, one record each. Class {3k, 4k, 5k}:
        // D = 0.375; class {6k, 8k, 11k}: D = 0.1667.
        let table = dist(&[1; 9]);
        let values: Vec<f64> = (3..=11).map(|v| v as f64 * 1000.0).collect();
        let o = OrderedDistance::new(table.view(), &values);
        assert_eq!(o.m(), 9);
        assert_eq!(o.distance(dist(&[1, 1, 1]).view()), 0.375);
        let d = o.distance(DistributionBuf::from_codes([3, 5, 8]).view());
        assert!((d - 1.0 / 6.0).abs() < 1e-15, "{d}");
        assert_eq!(o.distance(table.view()), 0.0);
        for f in ALL {
            assert!(o.is_close(dist(&[1, 1, 1]).view(), 0.3751, f), "{f:?}");
            assert!(!o.is_close(dist(&[1, 1, 1]).view(), 0.37, f), "{f:?}");
            assert!(o.is_close(table.view(), 0.0, f), "{f:?}");
        }
        // At exactly t = 0.375 ARX's running double sum reaches 3.0000000000000004 > 0.375·8
        // and fails the class; the exact figure is 3 and passes.
        assert!(!o.is_close(dist(&[1, 1, 1]).view(), 0.375, Flavor::Arx));
        assert!(o.is_close(dist(&[1, 1, 1]).view(), 0.375, Flavor::Exact));
    }

    #[test]
    fn ordered_uses_value_order_not_code_order() {
        // Codes 0,1,2 with values 30, 10, 20: order is 1, 2, 0. Table one each.
        let table = dist(&[1, 1, 1]);
        let o = OrderedDistance::new(table.view(), &[30.0, 10.0, 20.0]);
        // Class {value 10}: P by rank (1,0,0) vs Q (1/3,1/3,1/3): cum 2/3, 1/3, 0 -> 1 / 2 = .5
        assert_eq!(o.distance(DistributionBuf::from_codes([1]).view()), 0.5);
        // Class {value 30}: P (0,0,1): cum -1/3, -2/3, 0 -> 1 / 2 = .5
        assert_eq!(o.distance(DistributionBuf::from_codes([0]).view()), 0.5);
        // Class {value 20}: P (0,1,0): cum -1/3, 1/3, 0 -> 2/3 / 2 = 1/3
        let d = o.distance(DistributionBuf::from_codes([2]).view());
        assert!((d - 1.0 / 3.0).abs() < 1e-15);
        // m = 1: always 0.
        let o = OrderedDistance::new(dist(&[0, 4]).view(), &[1.0, 2.0]);
        assert_eq!(o.m(), 1);
        assert_eq!(o.distance(dist(&[0, 1]).view()), 0.0);
    }

    #[test]
    fn ordered_toolbox_counts_only_m_minus_1_terms() {
        // The last cumulative term is 0 in exact arithmetic, so the verdicts agree whenever the
        // floating point sum of the last term is exactly 0. Check a case with many terms.
        let table = dist(&[3, 1, 4, 1, 5, 9, 2, 6]);
        let values: Vec<f64> = (0..8).map(|v| v as f64).collect();
        let o = OrderedDistance::new(table.view(), &values);
        let class = dist(&[1, 0, 2, 0, 0, 3, 0, 1]);
        let d = o.distance(class.view());
        for f in ALL {
            assert!(o.is_close(class.view(), d + 1e-9, f), "{f:?}");
            assert!(!o.is_close(class.view(), d - 1e-9, f), "{f:?}");
        }
    }

    fn two_level() -> Hierarchy {
        // a, b under X; c, d under Y; all under *.
        let rows: Vec<Vec<String>> = [
            ["a", "X", "*"],
            ["b", "X", "*"],
            ["c", "Y", "*"],
            ["d", "Y", "*"],
        ]
        .iter()
        .map(|r| r.iter().map(|s| s.to_string()).collect())
        .collect();
        Hierarchy::from_label_rows("disease", &rows)
    }

    /// The 64-bit sums (below 2^31 records) give the 128-bit ones' figures, bit for bit, on
    /// random tables and classes over a three-level hierarchy of uneven fan-out, and on one of
    /// more leaves than the stack buffer holds.
    #[test]
    fn hierarchical_narrow_sums_are_the_wide_ones() {
        let hierarchy = |leaves: usize| {
            let rows: Vec<Vec<String>> = (0..leaves)
                .map(|i| {
                    vec![
                        format!("v{i}"),
                        format!("g{}", i * i % 7),
                        format!("G{}", i * i % 7 % 3),
                        "*".to_string(),
                    ]
                })
                .collect();
            Hierarchy::from_label_rows("s", &rows)
        };
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for leaves in [5, 23, 300] {
            let h = hierarchy(leaves);
            for _ in 0..200 {
                let table: Vec<u32> = (0..leaves).map(|_| 1 + next(50) as u32).collect();
                let hd = HierarchicalDistance::new(dist(&table).view(), &h).unwrap();
                let class: Vec<u32> = table.iter().map(|&b| next(b as u64 + 1) as u32).collect();
                let class = dist(&class);
                let (narrow, wide) = (
                    hd.distance_narrow(class.view()),
                    hd.distance_wide(class.view()),
                );
                assert_eq!(narrow.to_bits(), wide.to_bits(), "{leaves} leaves");
            }
        }
    }

    #[test]
    fn hierarchical_by_hand() {
        let h = two_level();
        let table = dist(&[1, 1, 1, 1]);
        let hd = HierarchicalDistance::new(table.view(), &h).unwrap();
        // {a}: .75 of surplus at a; .25 moves to b within X (cost 1/2), .5 to Y (cost 1):
        // .125 + .5 = .625.
        assert_eq!(hd.distance(dist(&[1]).view()), 0.625);
        // {a, b}: .25 + .25 move from X to Y at cost 1: .5.
        assert_eq!(hd.distance(dist(&[1, 1]).view()), 0.5);
        // {a, c}: .25 a->b and .25 c->d, each at cost 1/2: .25.
        assert_eq!(hd.distance(dist(&[1, 0, 1]).view()), 0.25);
        assert_eq!(hd.distance(table.view()), 0.0);
        assert_eq!(hd.distance(dist(&[3, 3, 3, 3]).view()), 0.0);
        for f in ALL {
            assert!(hd.is_close(dist(&[1, 0, 1]).view(), 0.25, f));
            assert!(!hd.is_close(dist(&[1, 0, 1]).view(), 0.2499, f));
        }
    }

    #[test]
    fn hierarchical_with_one_group_is_equal_distance() {
        // A two-level hierarchy (value, *): every pair at distance 1 = equal distance.
        let rows: Vec<Vec<String>> = ["a", "b", "c"]
            .iter()
            .map(|v| vec![v.to_string(), "*".to_string()])
            .collect();
        let h = Hierarchy::from_label_rows("s", &rows);
        let table = dist(&[3, 1, 4]);
        let hd = HierarchicalDistance::new(table.view(), &h).unwrap();
        let e = EqualDistance::new(table.view());
        for class in [&[1, 0, 1][..], &[0, 1], &[2, 1, 0], &[0, 0, 4]] {
            let c = dist(class);
            assert_eq!(hd.distance(c.view()), e.distance(c.view()), "{class:?}");
        }
    }

    #[test]
    fn hierarchical_rejects_bad_hierarchies() {
        let flat = Hierarchy::from_label_rows("s", &[vec!["a".to_string()]]);
        assert!(HierarchicalDistance::new(dist(&[1]).view(), &flat)
            .unwrap_err()
            .contains("one level"));
        let rows: Vec<Vec<String>> = [["a", "g", "1"], ["b", "g", "2"]]
            .iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect();
        let bad = Hierarchy::from_label_rows("s", &rows);
        assert!(HierarchicalDistance::new(dist(&[1, 1]).view(), &bad)
            .unwrap_err()
            .contains("not monotonic"));
        assert!(
            HierarchicalDistance::new(dist(&[1, 1, 1, 1, 1]).view(), &two_level())
                .unwrap_err()
                .contains("cover")
        );
    }
}
