//! One thread's checker ([`Engine`]): its buffer, groupify tables, snapshot history and
//! statistics over the search's [`Shared`] part, monomorphised over the key width `W` (64-bit
//! words per key). [`Engine::check`] runs the state machine of `transition`: it chooses the
//! source of the classes, runs that transition (`plain`, `rollup`, `snapshot`), evaluates the
//! classes (`evaluate`) and keeps them as a snapshot if the history takes them.

use std::sync::Arc;

use super::encode::Encoding;
use super::groupify::{Groups, MergeBuffers};
use super::history::History;
use super::partitioned::{Padded, Partitions};
use super::plain::Chunk;
use super::shared::Shared;
use super::snapshot::SharedClasses;
use super::steps::Steps;
use super::team::Team;
use super::transition::{self, Hubs, Transition};
use super::{CheckResult, CheckerConfig, CheckerStats, Class};
use crate::data::EncodedTable;
use crate::metrics::Metric;
use crate::privacy::PrivacyCriterion;

/// One thread's checker state over the [`Shared`] part: its groupify tables, buffers and
/// snapshot history.
pub(super) struct Engine<'a, const W: usize> {
    pub s: Arc<Shared<'a>>,
    // The state machine's state (see `transition`): the buffer of keys at `buffer_levels`,
    // and the previous check's classes (`groups`, at `groups.levels`).
    pub buffer: Vec<[u64; W]>,
    pub buffer_levels: Option<Vec<usize>>,
    pub groups: Groups<W>,
    // Working space of the transitions and the evaluation.
    pub spare: Groups<W>,
    pub steps: Steps,
    pub targets: Vec<u32>,
    pub outliers: Vec<(u32, u32)>,
    pub merge_buffers: MergeBuffers,
    pub last_plain_classes: usize,
    /// The tables of a split check's ranges, one per range; the first range's becomes the
    /// checker's table (see `plain`).
    pub chunks: Vec<Chunk<W>>,
    /// The team's buffers (see `partitioned`), and per part of a split tally, its outliers.
    pub partitions: Partitions<W>,
    pub part_outliers: Vec<Padded<Vec<(u32, u32)>>>,
    // Snapshots and hubs.
    pub history: History,
    /// The snapshot the last check kept ([`super::Checker::kept`]).
    pub kept: Option<SharedClasses>,
    pub hubs: Hubs,
    // Settings.
    /// Snapshots of anonymous transformations are kept too
    /// ([`super::Checker::set_store_anonymous`]).
    pub store_anonymous: bool,
    /// The search's checks are scattered ([`super::Checker::set_scattered`]).
    pub scattered: bool,
    /// See [`super::Checker::set_loss_cutoff`].
    pub loss_cutoff: Option<f64>,
    /// Threads a large check from scratch is split over ([`super::Checker::set_pool`]).
    pub pool: Option<Arc<rayon::ThreadPool>>,
    /// The team checks are split over ([`super::Checker::set_team`]).
    pub team: Option<Arc<Team>>,
    pub stats: CheckerStats,
}

impl<'a, const W: usize> Engine<'a, W> {
    pub fn new(
        table: &'a EncodedTable,
        enc: Encoding<'a>,
        criteria: Vec<Box<dyn PrivacyCriterion>>,
        metric: Box<dyn Metric>,
        budget: u64,
        config: CheckerConfig,
    ) -> Self {
        let mut merge_buffers = MergeBuffers::default();
        let shared = Shared::new(
            table,
            enc,
            criteria,
            metric,
            budget,
            config,
            &mut merge_buffers,
        );
        Self::with_shared(Arc::new(shared), merge_buffers)
    }

    /// A fresh engine (empty buffer, tables and history) over `s`.
    fn with_shared(s: Arc<Shared<'a>>, merge_buffers: MergeBuffers) -> Self {
        let config = s.config;
        let max_levels = s.table.hierarchies.iter().map(|h| h.max_level()).collect();
        let max_classes = (config.snapshot_max_fraction * s.table.rows() as f64) as usize;
        let nslots = s.criteria.slots.len();
        Engine {
            s,
            store_anonymous: false,
            buffer: Vec::new(),
            buffer_levels: None,
            groups: Groups::new(nslots),
            spare: Groups::new(nslots),
            history: History::new(
                if config.history {
                    config.history_capacity
                } else {
                    0
                },
                max_classes,
                config.snapshot_min_reduction,
                max_levels,
                config.history_max_bytes,
            ),
            outliers: Vec::new(),
            targets: Vec::new(),
            steps: Steps::default(),
            stats: CheckerStats::default(),
            last_plain_classes: 0,
            merge_buffers,
            scattered: false,
            loss_cutoff: None,
            hubs: Hubs::default(),
            pool: None,
            chunks: Vec::new(),
            kept: None,
            team: None,
            partitions: Partitions::new(),
            part_outliers: Vec::new(),
        }
    }

    /// A fresh engine over the same shared part (see [`super::Checker::fork`]).
    pub fn fork(&self) -> Engine<'a, W> {
        Engine::with_shared(self.s.clone(), MergeBuffers::default())
    }

    /// Checks the transformation `levels` (see [`super::Checker::check`]).
    pub fn check(&mut self, levels: &[usize], finished: &dyn Fn(&[usize]) -> bool) -> CheckResult {
        assert_eq!(levels.len(), self.s.enc.dims, "levels per quasi-identifier");
        self.stats.checks += 1;
        self.kept = None;
        let transition = self.choose(levels);
        let complete = match transition {
            Transition::Plain => {
                self.stats.plain += 1;
                let complete = self.plain_or_hub(levels, finished);
                self.hubs.remember(levels);
                complete
            }
            Transition::Rollup => {
                self.stats.rollups += 1;
                self.rollup(levels)
            }
            Transition::Snapshot(i) => {
                self.stats.snapshots += 1;
                self.snapshot(i, levels)
            }
        };
        let source = transition.source();
        if !complete {
            return self.stopped(source);
        }
        self.groups.levels = Some(levels.to_vec());
        let result = self.evaluate(levels, source);
        if self.s.config.history && (self.store_anonymous || !result.anonymous) {
            self.keep_groups(levels, None, finished);
        }
        result
    }

    /// The transition that builds the classes of `levels` from what this engine holds (see
    /// [`transition::choose`]).
    #[inline]
    fn choose(&self, levels: &[usize]) -> Transition {
        let config = &self.s.config;
        let previous = match &self.groups.levels {
            Some(p) if config.rollup => Some((&p[..], self.groups.len())),
            _ => None,
        };
        let snapshot = if config.history && self.buffer_levels.is_some() {
            self.history
                .best_for(levels)
                .map(|i| (i, self.history.snapshots[i].len()))
        } else {
            None
        };
        transition::choose(levels, self.s.enc.items(), previous, snapshot)
    }

    /// True if hubs are built (the search's checks are scattered and the history keeps
    /// snapshots, see `transition`).
    pub fn builds_hubs(&self) -> bool {
        let c = &self.s.config;
        self.scattered && c.hubs && c.history && c.history_capacity > 0
    }

    pub fn set_pool(&mut self, pool: Option<Arc<rayon::ThreadPool>>) {
        self.pool = pool;
    }

    pub fn set_team(&mut self, team: Option<Arc<Team>>) {
        self.team = team.filter(|t| t.parts() > 1);
        if let Some(t) = &self.team {
            self.lay_out(t.parts());
        }
    }

    pub fn prefers_team(&self) -> bool {
        let items = self.s.enc.items();
        items >= self.s.config.team_input_items && items < self.s.config.split_items
    }

    pub fn splits_checks(&self) -> bool {
        self.pool
            .as_ref()
            .is_some_and(|p| p.current_num_threads() > 1)
            && self.s.enc.items() >= self.s.config.split_items
    }

    pub fn set_store_anonymous(&mut self, yes: bool) {
        self.store_anonymous = yes;
    }

    pub fn set_scattered(&mut self) {
        self.scattered = true;
        self.history.forget_path_order();
    }

    pub fn set_loss_cutoff(&mut self, cutoff: Option<f64>) {
        self.loss_cutoff = cutoff;
    }

    pub fn split_history(&mut self, parts: usize) {
        self.history
            .set_max_bytes(self.s.config.history_max_bytes / parts.max(1));
    }

    pub fn scale_history(&mut self, factor: usize) {
        if self.s.config.history {
            self.history
                .set_capacity(self.s.config.history_capacity.saturating_mul(factor));
        }
    }

    pub fn stats(&self) -> &CheckerStats {
        &self.stats
    }

    pub fn metric(&self) -> &dyn Metric {
        &*self.s.metric
    }

    /// The classes of the last check, decoded.
    pub fn classes(&self) -> Vec<Class> {
        let g = &self.groups;
        let Some(levels) = &g.levels else {
            return Vec::new();
        };
        (0..g.len())
            .map(|e| {
                let rep: Vec<u32> = self
                    .s
                    .table
                    .tuple(self.s.enc.tuple(g.reps[e] as usize) as usize)
                    .collect();
                Class {
                    ids: self.s.enc.decode(&g.keys[e], levels),
                    count: g.counts[e] as u64,
                    distributions: g
                        .dist
                        .iter()
                        .map(|d| {
                            let (c, k) = d.class(e);
                            c.iter().copied().zip(k.iter().copied()).collect()
                        })
                        .collect(),
                    rep_ids: (0..self.s.enc.dims)
                        .map(|j| self.s.table.hierarchies[j].get(rep[j], levels[j]))
                        .collect(),
                }
            })
            .collect()
    }

    /// Frees the buffer, the tables and the history (see [`super::Checker::free_buffers`]).
    pub fn free_buffers(&mut self) {
        let slots = self.s.criteria.slots.len();
        self.buffer = Vec::new();
        self.buffer_levels = None;
        self.groups = Groups::new(slots);
        self.spare = Groups::new(slots);
        self.history.clear();
        self.targets = Vec::new();
        self.outliers = Vec::new();
        self.hubs.clear();
        self.chunks = Vec::new();
        self.kept = None;
        self.partitions = Partitions::new();
        self.part_outliers = Vec::new();
    }
}
