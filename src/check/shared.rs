//! What every thread's engine of one search shares ([`Shared`]), built once and read-only
//! during checks: the encoding, the criteria, the metric, the budget, the items' distributions
//! and cached verdicts, and the class limit.
//!
//! **Stopping early** (from [`super::STOP_EARLY_ITEMS`] items, see
//! [`super::CheckerConfig::stop_early_items`]): every class smaller than the criteria's
//! minimum size `m` is an outlier, so an anonymous transformation has at most `rows / m` kept
//! classes plus `budget` outlier classes. A grouping that passes that many classes (the
//! *class limit*) stops: the transformation is not anonymous, whatever the rest would give. On
//! a huge input of nearly distinct tuples the transformations near the bottom would otherwise
//! fill a table of as many classes as items; stopped, no table grows past `rows / m` classes.
//! Not with a research subset (classes of no released record), nor when the criteria have a
//! relaxed condition to report. The stopped check leaves no classes (no roll-up, no snapshot
//! from it) and no class bound: the search's results are the same, only its work differs.
//! Below the threshold the tables are small and an invalid transformation's classes are worth
//! keeping as the next roll-up's source, so checks run to the end.

use super::criteria::{verdict, Criteria};
use super::encode::Encoding;
use super::groupify::{merge_csr, Csr, MergeBuffers};
use super::layout::ItemParts;
use super::CheckerConfig;
use crate::data::EncodedTable;
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;

/// What every thread's engine shares, built once per search (encoding, criteria, metric, base
/// distributions and cached verdicts); read-only during checks.
pub(super) struct Shared<'a> {
    pub table: &'a EncodedTable,
    pub enc: Encoding<'a>,
    pub criteria: Criteria,
    /// The items' parts for a team, once laid out (see `layout`).
    pub item_parts: Option<ItemParts>,
    pub metric: Box<dyn Metric>,
    pub budget: u64,
    pub config: CheckerConfig,
    /// Size of the sensitive domain of each distribution slot (codes are below it).
    pub domains: Vec<usize>,
    /// Per slot, the distributions of the items.
    pub base_dist: Vec<Csr>,
    /// Per item, its verdict as a class of its own (when verdicts are cached).
    pub base_verdict: Vec<u8>,
    /// Most classes an anonymous transformation can have, if checks stop early (module docs);
    /// `usize::MAX` otherwise.
    pub class_limit: usize,
    /// With criteria of the class sizes: per column and level, the id of the value labelled as
    /// the column's top value, if that level has it (see `sizes`).
    pub top_ids: Vec<Vec<Option<u32>>>,
}

impl<'a> Shared<'a> {
    /// The shared part of the checkers of `table` under `criteria`, `metric` and `budget`;
    /// `merge_buffers` are the first engine's (used here to merge the items' distributions).
    pub fn new(
        table: &'a EncodedTable,
        enc: Encoding<'a>,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
        metric: Box<dyn Metric>,
        budget: u64,
        config: CheckerConfig,
        merge_buffers: &mut MergeBuffers,
    ) -> Shared<'a> {
        let criteria = Criteria::new(criteria, budget > 0);
        let domains = domains(table, &criteria.slots);
        let base_dist = item_distributions(table, &enc, &criteria.slots, &domains, merge_buffers);
        let mut shared = Shared {
            table,
            enc,
            criteria,
            metric,
            budget,
            config,
            domains,
            base_dist,
            base_verdict: Vec::new(),
            class_limit: usize::MAX,
            item_parts: None,
            top_ids: Vec::new(),
        };
        if !shared.criteria.sizes.is_empty() {
            shared.top_ids = super::sizes::top_ids(table);
        }
        shared.class_limit = shared.class_limit();
        if shared.criteria.caches_verdicts() {
            shared.base_verdict = shared.item_verdicts();
        }
        shared
    }

    /// Most classes an anonymous transformation can have, if checks stop early (module docs),
    /// else `usize::MAX`. Every class below `min_size` is an outlier, so an anonymous
    /// transformation has at most rows / min_size kept classes and `budget` outlier classes
    /// (each of at least one record: without a research subset no class is empty). The relaxed
    /// verdict is not derived.
    fn class_limit(&self) -> usize {
        let c = &self.criteria;
        if self.enc.items() >= self.config.stop_early_items
            && c.min_size > 1
            && !c.relaxing
            && self.table.subset().is_none()
        {
            let limit = self.enc.rows as u64 / c.min_size + self.budget;
            usize::try_from(limit).unwrap_or(usize::MAX)
        } else {
            usize::MAX
        }
    }

    /// Each item's verdict as a class of its own.
    fn item_verdicts(&self) -> Vec<u8> {
        let mut views = Vec::new();
        (0..self.enc.items())
            .map(|i| {
                let count = self.enc.weights[i] as u64;
                verdict(self.criteria.judge(count, &self.base_dist, i, &mut views))
            })
            .collect()
    }
}

/// Per distribution slot (sensitive column `slots[i]`), the size of its domain: codes are
/// below it.
fn domains(table: &EncodedTable, slots: &[usize]) -> Vec<usize> {
    slots
        .iter()
        .map(|&s| {
            let col = &table.sensitive[s];
            let top = col.codes.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
            col.values.len().max(top)
        })
        .collect()
}

/// Per distribution slot, the distribution of each item: its rows' sensitive codes merged.
fn item_distributions(
    table: &EncodedTable,
    enc: &Encoding,
    slots: &[usize],
    domains: &[usize],
    merge_buffers: &mut MergeBuffers,
) -> Vec<Csr> {
    slots
        .iter()
        .zip(domains)
        .map(|(&s, &m)| {
            let rows = row_distributions(table, s);
            let mut out = Csr::default();
            let row_item = enc.row_items();
            merge_csr(
                &mut out,
                enc.items(),
                &row_item,
                &rows,
                m,
                merge_buffers,
                None,
            );
            out
        })
        .collect()
}

/// Each row as a source "class" of one record of sensitive column `s`; with a research
/// subset, of none unless released (the membership column counts every record).
fn row_distributions(table: &EncodedTable, s: usize) -> Csr {
    let col = &table.sensitive[s].codes;
    match table.subset() {
        Some(members) if table.subset_column() != Some(s) => {
            let mut rows = Csr::default();
            rows.offsets.push(0);
            for (&c, &m) in col.iter().zip(members) {
                if m {
                    rows.codes.push(c);
                    rows.counts.push(1);
                }
                rows.offsets.push(rows.codes.len() as u32);
            }
            rows
        }
        _ => Csr {
            offsets: (0..=col.len() as u32).collect(),
            codes: col.clone(),
            counts: vec![1; col.len()],
        },
    }
}
