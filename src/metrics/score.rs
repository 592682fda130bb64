//! SafePub's score functions (Bild, Kuhn and Prasser 2018, section 5; ARX 3.9's
//! `getScore`): the utility of a transformation of a sample, divided by its sensitivity, for
//! the exponential mechanism of the data-dependent search (`algorithms::safepub`). Higher is
//! better; as a [`Metric`] ([`Score`]) the checker reports the score negated, so that the
//! search keeps the lowest "loss" as every other search does.
//!
//! Every record left out of the sample counts as suppressed (ARX's `pcount - count`); k is the
//! model's derived k. Per metric (n the input's records, m the sample's, U = n - m, S the
//! sampled records in outlier classes, d the quasi-identifiers):
//! - Loss: -(U + S + (1/d) Σ_j Σ_kept share_j(value) · |class|) / (k - 1);
//! - Precision: -(1/d) Σ_j ((m - S) · level_j / height_j + S + U) / (k - 1);
//! - DM and DM* (ARX's discernibility, both): -(n (S + U) + Σ_kept |class|²) /
//!   (n (k² / (k - 1) + 1)), with 5 for the bracket when k = 1;
//! - AECS: kept classes, plus one if any record is suppressed or left out (sensitivity 1).
//!
//! (k - 1) divides only for k > 1, as in ARX. Entropy and Height have no score here (ARX has
//! none for Height; its entropy score needs each value's count over the kept classes, which
//! the checker's class statistics do not carry): a data-dependent run with them is refused.

use super::{ClassStats, Loss, Metric, MetricKind};
use crate::data::EncodedTable;

/// Whether `kind` has a score function for the data-dependent search.
pub fn supports(kind: MetricKind) -> bool {
    matches!(
        kind,
        MetricKind::Loss
            | MetricKind::Precision
            | MetricKind::Dm
            | MetricKind::DmStar
            | MetricKind::Aecs
    )
}

/// A score function as a metric: `evaluate` returns the negated score.
pub struct Score {
    kind: MetricKind,
    /// The model's derived k.
    k: u64,
    /// Records of the input, sampled or not.
    population: u64,
    /// Records left out of the sample.
    unsampled: u64,
    loss: Option<Loss>,
    /// Height of each quasi-identifier's hierarchy (Precision).
    heights: Vec<usize>,
}

impl Score {
    /// The score of `kind` on `table` (whose released records are the sample), or `None` if
    /// `kind` has none ([`supports`]).
    pub fn new(kind: MetricKind, table: &EncodedTable, k: u64) -> Option<Score> {
        if !supports(kind) {
            return None;
        }
        Some(Score {
            kind,
            k,
            population: table.rows() as u64,
            unsampled: (table.rows() - table.records()) as u64,
            loss: (kind == MetricKind::Loss).then(|| Loss::new(table)),
            heights: table
                .hierarchies
                .iter()
                .map(|h| h.levels().saturating_sub(1))
                .collect(),
        })
    }

    /// The score of a checked transformation (higher is better).
    pub fn score(&self, table: &EncodedTable, levels: &[usize], s: &ClassStats<'_>) -> f64 {
        let d = levels.len().max(1) as f64;
        let out = (s.suppressed + self.unsampled) as f64;
        let by_k = |x: f64| {
            if self.k > 1 {
                x / (self.k - 1) as f64
            } else {
                x
            }
        };
        let discernibility = |k: u64| {
            if k == 1 {
                5.0
            } else {
                let k = k as f64;
                k * k / (k - 1.0) + 1.0
            }
        };
        match self.kind {
            MetricKind::Loss => {
                let loss = self.loss.as_ref().expect("Loss's shares");
                // Σ_j (Σ_kept share · |class| + S), each over its domain size.
                let shares: f64 = loss
                    .numerators(table, levels, s)
                    .iter()
                    .zip(&loss.dom)
                    .map(|(&num, &dom)| num as f64 / dom as f64)
                    .sum();
                -by_k(self.unsampled as f64 + shares / d)
            }
            MetricKind::Precision => {
                let kept = (s.rows - s.suppressed) as f64;
                let sum: f64 = levels
                    .iter()
                    .zip(&self.heights)
                    .map(|(&l, &h)| {
                        let share = if h == 0 { 0.0 } else { l as f64 / h as f64 };
                        kept * share + out
                    })
                    .sum();
                -by_k(sum / d)
            }
            MetricKind::Dm | MetricKind::DmStar => {
                let n = self.population as f64;
                -(n * out + s.sum_sq_kept as f64) / (n * discernibility(self.k))
            }
            MetricKind::Aecs => (s.kept_classes + u64::from(out > 0.0)) as f64,
            MetricKind::Height | MetricKind::Entropy => unreachable!("no score (see supports)"),
        }
    }
}

impl Metric for Score {
    fn kind(&self) -> MetricKind {
        self.kind
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        false
    }
    fn evaluate(&self, table: &EncodedTable, levels: &[usize], s: &ClassStats<'_>) -> f64 {
        -self.score(table, levels, s)
    }
}
