//! Evaluation: the privacy criteria and the metric on a grouping. The per-class pass
//! (`tally`, on the team when the classes are many) judges each class (`criteria`) and sums
//! what the verdict and the metric need; [`Engine::evaluate`] applies the suppression budget
//! and asks the metric for the loss and its class bound.

use super::engine::Engine;
use super::groupify::{merge_slots, Groups, VERDICT_OK, VERDICT_OUTLIER, VERDICT_UNKNOWN};
use super::steps::apply;
use super::tally;
use super::{CheckResult, Source};
use crate::metrics::ClassStats;
use crate::privacy::Distribution;

impl<const W: usize> Engine<'_, W> {
    /// The verdict on the classes just grouped at `levels` (by `source`).
    pub(super) fn evaluate(&mut self, levels: &[usize], source: Source) -> CheckResult {
        let mut outliers = std::mem::take(&mut self.outliers);
        outliers.clear();
        let cache = self.s.criteria.caches_verdicts();
        let mut verdicts = std::mem::take(&mut self.groups.verdict);
        if cache {
            verdicts.resize(self.groups.len(), VERDICT_UNKNOWN);
        }
        let n = self.groups.len();
        let t = match self.team.clone().filter(|_| n >= self.s.config.team_items) {
            Some(team) => self.tally_team(&team, &mut verdicts, &mut outliers),
            None => tally::tally(&self.s, &self.groups, 0..n, &mut verdicts, &mut outliers),
        };
        let tally::Tally {
            mut supp,
            mut kept,
            sq_all,
            mut sq_kept,
            raise,
            relaxed_supp,
            empty,
            empty_fail,
        } = t;
        // The models of the class sizes, on the classes the per-class criteria keep, when
        // those fit the budget (beyond it, nothing can make the transformation valid).
        let mut sizes_hold = true;
        if !self.s.criteria.sizes.is_empty() && supp <= self.s.budget && !empty_fail {
            self.groups.verdict = std::mem::take(&mut verdicts);
            let mut views = Vec::new();
            let g = &self.groups;
            let (suppress, records, holds) =
                super::sizes::enforce(&self.s, g, levels, |e| self.class_ok(g, e, &mut views));
            sizes_hold = holds;
            for &e in &suppress {
                let c = g.counts[e] as u64;
                sq_kept -= c * c;
                outliers.push((self.s.enc.tuple(g.reps[e] as usize), c as u32));
            }
            kept -= suppress.len() as u64;
            supp += records;
            verdicts = std::mem::take(&mut self.groups.verdict);
        }
        let anonymous = supp <= self.s.budget && !empty_fail && sizes_hold;
        if supp > self.s.budget {
            // The tally stopped judging classes past the budget (see `tally`), where the one
            // split over a team stopped elsewhere: every path reports an invalid
            // transformation as one record over the budget and no class kept.
            supp = self.s.budget + 1;
            kept = 0;
            sq_kept = 0;
        }
        let all_classes = n as u64 - empty;
        let relaxed = if self.s.criteria.relaxing {
            relaxed_supp <= self.s.budget
        } else {
            anonymous
        };
        let stats = ClassStats {
            rows: self.s.enc.rows as u64,
            suppressed: supp,
            kept_classes: kept,
            all_classes,
            sum_sq_all: sq_all,
            sum_sq_kept: sq_kept,
            sum_sq_raised: sq_all + raise,
            outliers: &outliers,
        };
        let wanted = self
            .loss_cutoff
            .is_none_or(|c| self.s.metric.level_bound(levels) < c);
        let loss =
            (anonymous && wanted).then(|| self.s.metric.evaluate(self.s.table, levels, &stats));
        let class_bound = self.s.metric.class_bound(&stats);
        self.outliers = outliers;
        self.groups.verdict = verdicts;
        CheckResult {
            anonymous,
            relaxed,
            suppressed: supp,
            classes: kept,
            all_classes,
            loss,
            class_bound,
            source,
        }
    }

    /// The result of a check that stopped at the class limit: not anonymous (see `shared`).
    /// The half-built table holds no classes.
    pub(super) fn stopped(&mut self, source: Source) -> CheckResult {
        self.stats.stopped += 1;
        self.groups.reset(0);
        let limit = self.s.class_limit as u64;
        CheckResult {
            anonymous: false,
            relaxed: false,
            suppressed: self.s.budget + 1,
            classes: 0,
            all_classes: limit + 1,
            loss: None,
            class_bound: None,
            source,
        }
    }

    /// True if class `e` of `g` satisfies every criterion (its cached verdict if known).
    fn class_ok<'g>(&self, g: &'g Groups<W>, e: usize, views: &mut Vec<Distribution<'g>>) -> bool {
        match g.verdict.get(e) {
            Some(&VERDICT_OK) => true,
            Some(&VERDICT_OUTLIER) => false,
            _ => self.s.criteria.judge(g.counts[e] as u64, &g.dist, e, views),
        }
    }

    /// For the transformation `levels`, which released rows fall into outlier classes (see
    /// [`super::Checker::outlier_rows`]): every item grouped from scratch, in a table of its
    /// own.
    pub fn outlier_rows(&mut self, levels: &[usize]) -> Vec<bool> {
        let n = self.s.enc.items();
        let mut g = Groups::<W>::new(self.s.criteria.slots.len());
        g.reset(n.min(1 << 16));
        // Every column, from zero.
        self.steps.plan(&self.s.enc, false, None, levels);
        let mut targets = Vec::with_capacity(n);
        for i in 0..n {
            let mut key = [0; W];
            apply(&self.s.enc, &self.steps.list, &mut key, i);
            targets.push(g.insert(key, self.s.enc.weights[i], i as u32));
        }
        merge_slots(
            &mut g,
            &self.s.base_dist,
            &[],
            &targets,
            &self.s.domains,
            &mut self.merge_buffers,
            false,
        );
        let mut views = Vec::new();
        let mut ok: Vec<bool> = (0..g.len())
            .map(|e| self.class_ok(&g, e, &mut views))
            .collect();
        if !self.s.criteria.sizes.is_empty() {
            let (suppress, _, _) = super::sizes::enforce(&self.s, &g, levels, |e| ok[e]);
            for e in suppress {
                ok[e] = false;
            }
        }
        let enc = &self.s.enc;
        (0..enc.table_rows())
            .map(|r| {
                let i = enc.item_of_row(r) as usize;
                self.s.table.is_released(r) && !ok[targets[i] as usize]
            })
            .collect()
    }
}
