//! The models of the table's class sizes on a grouping (ARX's sample-based criteria, see
//! `privacy::sizes`): after the per-class pass, the classes the per-class criteria keep form a
//! histogram of sizes; the fewest smallest classes that make the models hold are suppressed.
//!
//! Which classes of the last size go first: ARX orders classes of one size by their own
//! information loss under the metric (Loss; by representative for the other metrics), which
//! [`crate::metrics::Metric::suppression_order`] gives; equal ones by their generalized values
//! (ARX: by the first record of the class; anonbox's classes do not carry it, and the
//! generalized values give the same choice in every check of the transformation, whichever
//! transition built the classes). Only which of equal classes is suppressed can differ from
//! ARX, never how many records.
//!
//! A class whose values are all their column's top value (what a suppressed record shows) is
//! left out, as ARX leaves it out: it is neither in the histogram nor counted as suppressed.

use super::groupify::Groups;
use super::shared::Shared;
use crate::data::EncodedTable;
use crate::privacy::sizes::{suppress_like_arx, ClassSizes};

/// Per column and level, the id of the value labelled as the column's top value (that of its
/// first leaf at the top level), where the level has one.
pub(super) fn top_ids(table: &EncodedTable) -> Vec<Vec<Option<u32>>> {
    table
        .hierarchies
        .iter()
        .map(|h| {
            let top = h.max_level();
            if h.leaves() == 0 {
                return vec![None; h.levels()];
            }
            let label = h.label(top, h.get(0, top)).as_bytes().to_vec();
            (0..h.levels()).map(|l| h.labels(l).find(&label)).collect()
        })
        .collect()
}

/// The classes of `g` (at `levels`) that the size criteria suppress, of those `kept` by the
/// per-class criteria, their records, and whether the criteria then hold. Empty when the
/// criteria hold as they are.
pub(super) fn enforce<const W: usize>(
    s: &Shared<'_>,
    g: &Groups<W>,
    levels: &[usize],
    mut kept: impl FnMut(usize) -> bool,
) -> (Vec<usize>, u64, bool) {
    // Whether a class can be completely generalized at these levels at all.
    let tops: Option<Vec<u32>> = levels
        .iter()
        .enumerate()
        .map(|(j, &l)| s.top_ids[j][l])
        .collect();
    let completely_generalized = |e: usize| {
        tops.as_ref()
            .is_some_and(|t| s.enc.decode(&g.keys[e], levels) == *t)
    };
    let mut candidates: Vec<(u32, usize)> = (0..g.len())
        .filter(|&e| g.counts[e] > 0 && kept(e) && !completely_generalized(e))
        .map(|e| (g.counts[e], e))
        .collect();
    let sizes = ClassSizes::from_sizes(candidates.iter().map(|&(c, _)| c as u64));
    let (j, records, holds) = suppress_like_arx(&sizes, &s.criteria.size_rules());
    if j == 0 {
        return (Vec::new(), 0, holds);
    }
    let j = j as usize;
    candidates.sort_unstable_by_key(|&(c, _)| c);
    let cut = candidates[j - 1].0;
    let below = candidates.partition_point(|&(c, _)| c < cut);
    let mut out: Vec<usize> = candidates[..below].iter().map(|&(_, e)| e).collect();
    let end = candidates.partition_point(|&(c, _)| c <= cut);
    let mut ties: Vec<(f64, Vec<u32>, usize)> = candidates[below..end]
        .iter()
        .map(|&(c, e)| {
            let tuple = s.enc.tuple(g.reps[e] as usize);
            let order = s.metric.suppression_order(s.table, levels, tuple, c as u64);
            (order, s.enc.decode(&g.keys[e], levels), e)
        })
        .collect();
    ties.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    out.extend(ties[..j - below].iter().map(|t| t.2));
    (out, records, holds)
}
