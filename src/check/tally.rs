//! The per-class pass of a check ([`tally`]): each class's verdict, and the sums the result and
//! the metrics need. Every sum is an integer, so a table cut into ranges tallied on different
//! threads ([`super::Team`]) adds up to exactly the one-thread tally, except on a
//! transformation whose outliers exceed the suppression budget: there the classes left are not
//! judged (the transformation is invalid whatever they hold), and [`super::Engine`] reports the
//! same figures for it on every path.

use std::ops::Range;

use super::criteria::verdict;
use super::groupify::{Groups, VERDICT_OK, VERDICT_OUTLIER, VERDICT_UNKNOWN};
use super::shared::Shared;

/// The sums over some classes of a table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    /// Records in outlier classes.
    pub supp: u64,
    /// Classes kept, and the sums of squared sizes over all and over kept classes.
    pub kept: u64,
    pub sq_all: u64,
    pub sq_kept: u64,
    /// Sum of `|C| * (m - |C|)` over classes below the smallest size a criterion accepts.
    pub raise: u64,
    /// Records in classes failing the monotonic relaxation.
    pub relaxed_supp: u64,
    /// Classes without released records (research subset only), and whether one fails.
    pub empty: u64,
    pub empty_fail: bool,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.supp += o.supp;
        self.kept += o.kept;
        self.sq_all += o.sq_all;
        self.sq_kept += o.sq_kept;
        self.raise += o.raise;
        self.relaxed_supp += o.relaxed_supp;
        self.empty += o.empty;
        self.empty_fail |= o.empty_fail;
    }
}

/// Tallies the classes `range` of `g`. `verdicts` are their cached verdicts (empty when
/// verdicts are not cached), filled in where unknown; the outlier classes go to `outliers` as
/// (representative tuple, size) while the outliers of the range fit in the budget (all of them
/// when the whole table's do).
#[inline]
pub(super) fn tally<const W: usize>(
    s: &Shared<'_>,
    g: &Groups<W>,
    range: Range<usize>,
    verdicts: &mut [u8],
    outliers: &mut Vec<(u32, u32)>,
) -> Tally {
    // Only class sizes to judge (k-anonymity alone): what `judge` would answer, without a call
    // per class, in a loop of its own.
    if s.criteria.evaluated.is_empty() && s.criteria.judges_empty.is_empty() {
        tally_with::<W, true>(s, g, range, verdicts, outliers)
    } else {
        tally_with::<W, false>(s, g, range, verdicts, outliers)
    }
}

/// [`tally`], with only class sizes to judge if `SIZES_ONLY`.
fn tally_with<const W: usize, const SIZES_ONLY: bool>(
    s: &Shared<'_>,
    g: &Groups<W>,
    range: Range<usize>,
    verdicts: &mut [u8],
    outliers: &mut Vec<(u32, u32)>,
) -> Tally {
    let (mut supp, mut kept, mut sq_all, mut sq_kept, mut raise) = (0, 0, 0, 0, 0);
    let (mut relaxed_supp, mut empty, mut empty_fail) = (0, 0, false);
    let mut views = Vec::with_capacity(s.criteria.slots.len());
    let floor = s.criteria.min_size.min(s.enc.rows as u64);
    let sizes_only = SIZES_ONLY;
    let (min_size, relaxing, budget) = (s.criteria.min_size, s.criteria.relaxing, s.budget);
    let start = range.start;
    for e in range {
        let c = g.counts[e] as u64;
        if c == 0 {
            // Judged afresh (a cached verdict is of released records).
            empty += 1;
            empty_fail = empty_fail || !(sizes_only || s.criteria.judge(0, &g.dist, e, &mut views));
            continue;
        }
        sq_all += c * c;
        if c < floor {
            raise += c * (floor - c);
        }
        // Beyond the budget the transformation is invalid whatever the other classes' verdicts:
        // a class not judged yet is left unjudged (its verdict stays unknown), and only the
        // monotonic relaxation, which a failing class may still fail, is asked
        // (`Engine::evaluate` reports such a result the same way on every path).
        let ok = match verdicts.get_mut(e - start) {
            Some(&mut VERDICT_OK) => Some(true),
            Some(&mut VERDICT_OUTLIER) => Some(false),
            Some(_) if supp > budget => None,
            Some(v) => {
                debug_assert_eq!(*v, VERDICT_UNKNOWN);
                let ok = s.criteria.judge(c, &g.dist, e, &mut views);
                *v = verdict(ok);
                Some(ok)
            }
            None if sizes_only => Some(c >= min_size),
            None if supp > budget => None,
            None => Some(s.criteria.judge(c, &g.dist, e, &mut views)),
        };
        match ok {
            Some(true) => {
                kept += 1;
                sq_kept += c * c;
            }
            Some(false) => {
                if relaxing && !s.criteria.judge_relaxed(c, &g.dist, e, &mut views) {
                    relaxed_supp += c;
                }
                supp += c;
                if supp <= budget {
                    outliers.push((s.enc.tuple(g.reps[e] as usize), c as u32));
                }
            }
            None => {
                if relaxing && !s.criteria.judge_relaxed(c, &g.dist, e, &mut views) {
                    relaxed_supp += c;
                }
            }
        }
    }
    Tally {
        supp,
        kept,
        sq_all,
        sq_kept,
        raise,
        relaxed_supp,
        empty,
        empty_fail,
    }
}
