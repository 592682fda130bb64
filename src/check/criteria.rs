//! The privacy criteria as the checker applies them to one class ([`Criteria::judge`]): which
//! criteria read the class's distributions, which judge classes without released records, the
//! smallest class any accepts, and, when some criterion is not monotonic, the monotonic
//! relaxation a search may tag by ([`Criteria::judge_relaxed`]).
//!
//! Research subset (δ-presence, `EncodedTable::with_subset`): counts and distributions cover
//! the released records only (item weights, see `encode`), except the membership column's,
//! which counts every record so δ-presence sees the population. Classes of count 0 (population
//! records only) are not classes of the released data: they are never outliers and are judged
//! only by criteria that [`PrivacyCriterion::judges_empty_classes`]; failing one makes the
//! transformation invalid, whatever the budget.

use super::groupify::{Csr, VERDICT_OK, VERDICT_OUTLIER};
use crate::privacy::{ClassView, Distribution, PrivacyCriterion};

/// The criteria of a check, with what the per-class pass needs to know about them.
pub(super) struct Criteria {
    /// The job's criteria, followed by the relaxations of those that are not monotonic.
    pub all: Vec<Box<dyn PrivacyCriterion>>,
    /// Criteria that need `is_satisfied` (not size-only).
    pub evaluated: Vec<usize>,
    /// Whether verdicts of the monotonic relaxation are computed (some criterion is not
    /// monotonic), with its criteria (indices into `all`: the monotonic criteria and the
    /// relaxations) and minimum class size.
    pub relaxing: bool,
    pub relaxed_set: Vec<usize>,
    pub relaxed_min_size: u64,
    /// Criteria that judge classes without released records.
    pub judges_empty: Vec<usize>,
    /// Per criterion, its distributions' slots.
    pub maps: Vec<Vec<usize>>,
    /// The smallest class every criterion of the job accepts.
    pub min_size: u64,
    /// Sensitive column of each distribution slot.
    pub slots: Vec<usize>,
    /// The job's criteria of the table's class sizes ([`PrivacyCriterion::judges_sizes`]),
    /// enforced after the per-class pass (see `sizes`).
    pub sizes: Vec<usize>,
}

impl Criteria {
    /// The criteria of a job (`criteria`), with their relaxations when some is not monotonic
    /// under the suppression setting.
    pub fn new(criteria: Vec<Box<dyn PrivacyCriterion>>, suppression: bool) -> Criteria {
        let relaxing = !criteria.iter().all(|c| c.is_monotonic(suppression));
        let job_criteria = criteria.len();
        let mut all = criteria;
        let mut relaxed_set = Vec::new();
        if relaxing {
            for i in 0..job_criteria {
                if all[i].is_monotonic(suppression) {
                    relaxed_set.push(i);
                } else if let Some(r) = all[i].relaxation() {
                    if r.is_monotonic(suppression) {
                        relaxed_set.push(all.len());
                        all.push(r);
                    }
                }
            }
        }
        let mut slots: Vec<usize> = Vec::new();
        let mut maps = Vec::new();
        let mut evaluated = Vec::new();
        let mut judges_empty = Vec::new();
        let mut sizes = Vec::new();
        let mut min_size = 1;
        let mut relaxed_min_size = 1;
        for (i, c) in all.iter().enumerate() {
            let req = c.requirements();
            if i < job_criteria {
                min_size = min_size.max(req.min_class_size);
            }
            relaxed_min_size = relaxed_min_size.max(req.min_class_size);
            let map = req
                .distributions
                .iter()
                .map(|s| match slots.iter().position(|x| x == s) {
                    Some(p) => p,
                    None => {
                        slots.push(*s);
                        slots.len() - 1
                    }
                })
                .collect();
            maps.push(map);
            if i < job_criteria && !c.size_only() {
                evaluated.push(i);
            }
            if i < job_criteria && c.judges_empty_classes() {
                judges_empty.push(i);
            }
            if i < job_criteria && c.judges_sizes() {
                sizes.push(i);
            }
        }
        relaxed_set.retain(|&i| !all[i].size_only());
        Criteria {
            all,
            evaluated,
            relaxing,
            relaxed_set,
            relaxed_min_size,
            judges_empty,
            maps,
            min_size,
            slots,
            sizes,
        }
    }

    /// The criteria of the table's class sizes.
    pub fn size_rules(&self) -> Vec<&dyn PrivacyCriterion> {
        self.sizes.iter().map(|&i| &*self.all[i]).collect()
    }

    /// True if class verdicts are cached and inherited (criteria that read distributions).
    pub fn caches_verdicts(&self) -> bool {
        !self.evaluated.is_empty() && !self.slots.is_empty()
    }

    /// True if classes carry distributions (some criterion reads them), so a grouping must
    /// know each item's class.
    pub fn needs_targets(&self) -> bool {
        !self.slots.is_empty()
    }

    /// True if a class of `count` (released) records whose distributions are class `e` of
    /// `dist` satisfies every criterion.
    pub fn judge<'g>(
        &self,
        count: u64,
        dist: &'g [Csr],
        e: usize,
        views: &mut Vec<Distribution<'g>>,
    ) -> bool {
        // A class without released records (count 0, research subset only) is judged only by
        // the criteria that judge such classes.
        let judges = if count == 0 {
            &self.judges_empty
        } else if count < self.min_size {
            return false;
        } else {
            &self.evaluated
        };
        judges.is_empty() || self.satisfies(judges, count, dist, e, views)
    }

    /// True if a class (as in [`Self::judge`]) satisfies the monotonic relaxation.
    #[inline]
    pub fn judge_relaxed<'g>(
        &self,
        count: u64,
        dist: &'g [Csr],
        e: usize,
        views: &mut Vec<Distribution<'g>>,
    ) -> bool {
        if count < self.relaxed_min_size {
            return false;
        }
        if self.relaxed_set.is_empty() {
            return true;
        }
        self.satisfies(&self.relaxed_set, count, dist, e, views)
    }

    /// True if class `e` of `count` records (its distributions in `dist`) satisfies every
    /// criterion of `set` (indices into `all`).
    fn satisfies<'g>(
        &self,
        set: &[usize],
        count: u64,
        dist: &'g [Csr],
        e: usize,
        views: &mut Vec<Distribution<'g>>,
    ) -> bool {
        views.clear();
        for d in dist {
            let (codes, counts) = d.class(e);
            views.push(Distribution { codes, counts });
        }
        set.iter()
            .all(|&i| self.all[i].is_satisfied(&ClassView::new(count, views, &self.maps[i])))
    }
}

/// The cached verdict of a class that satisfies the criteria (`ok`) or not.
pub(super) fn verdict(ok: bool) -> u8 {
    if ok {
        VERDICT_OK
    } else {
        VERDICT_OUTLIER
    }
}
