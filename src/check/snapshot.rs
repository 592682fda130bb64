//! The snapshot transition, and keeping snapshots.
//!
//! A snapshot (see `history`) holds the `(representative, count)` pairs of an earlier check's
//! classes. Grouping a generalization from it keys each class from the buffer row of its
//! representative plus the columns where the buffer's levels differ from the target's (see
//! `steps`), which is why a snapshot needs the buffer. After a check, its classes are offered
//! to the history ([`Engine::keep_groups`]); the classes one checker keeps can be handed to
//! the other checkers of the same search ([`SharedClasses`]) without a copy.

use std::sync::Arc;

use super::engine::Engine;
use super::groupify::merge_slots;
use super::history::{self, History};
use super::steps::step_key;
use super::CheckerStats;

/// The classes of a check, handed from one checker to another of the same table
/// ([`super::Checker::share_classes`], [`super::Checker::kept`], [`super::Checker::adopt`]):
/// the transformation and its classes, shared, never copied, between the histories that keep
/// them.
#[derive(Clone)]
pub struct SharedClasses {
    levels: Vec<usize>,
    classes: Arc<history::Classes>,
}

impl<const W: usize> Engine<'_, W> {
    /// Groups the classes of history snapshot `index` at `levels`, which generalizes it; false
    /// if it stopped at the class limit.
    pub(super) fn snapshot(&mut self, index: usize, levels: &[usize]) -> bool {
        let from = self
            .buffer_levels
            .clone()
            .expect("snapshots need the buffer");
        let (enc, projection) = (&self.s.enc, self.s.config.projection);
        self.steps.plan(enc, projection, Some(&from), levels);
        let use_deltas = self
            .steps
            .plan_deltas(enc, self.history.snapshots[index].len());
        self.history.touch(index);
        let track = !self.s.criteria.slots.is_empty();
        let n = self.history.snapshots[index].len();
        if let Some(team) = self.team.clone().filter(|_| n >= self.s.config.team_items) {
            self.stats.cells += (n * self.steps.list.len()) as u64;
            let snap = self.history.snapshots[index].classes.clone();
            let buffer = std::mem::take(&mut self.buffer);
            let start_key = |e: usize| {
                if projection {
                    buffer[snap.reps[e] as usize]
                } else {
                    [0; W]
                }
            };
            let from = track.then(|| (&snap.dist[..], &snap.verdict[..]));
            let done = self.regroup_split(
                levels,
                &snap.counts,
                &snap.reps,
                &start_key,
                from,
                use_deltas,
                &team,
            );
            self.buffer = buffer;
            return done;
        }
        // Field by field: the tables are written while the columns are read.
        let (enc, steps) = (&self.s.enc, &self.steps.list);
        let cols = self.steps.resolve(enc, use_deltas);
        let snap = &*self.history.snapshots[index].classes;
        let dst = &mut self.groups;
        dst.reset(snap.len());
        self.targets.clear();
        for (&rep, &count) in snap.reps.iter().zip(&snap.counts) {
            let mut key = if projection {
                self.buffer[rep as usize]
            } else {
                [0; W]
            };
            step_key(enc, steps, &cols, use_deltas, &mut key, rep as usize);
            let t = dst.insert(key, count, rep);
            if t as usize >= self.s.class_limit {
                return false;
            }
            if track {
                self.targets.push(t);
            }
        }
        self.stats.items += snap.len() as u64;
        self.stats.cells += (snap.len() * self.steps.list.len()) as u64;
        if track {
            merge_slots(
                dst,
                &snap.dist,
                &snap.verdict,
                &self.targets,
                &self.s.domains,
                &mut self.merge_buffers,
                !self.s.criteria.evaluated.is_empty(),
            );
        }
        true
    }

    /// Keeps the current classes (of `levels`) as a snapshot if the history's controls allow;
    /// `max_classes` replaces its own limit of classes (hubs, see `transition`).
    pub(super) fn keep_groups(
        &mut self,
        levels: &[usize],
        max_classes: Option<usize>,
        finished: &dyn Fn(&[usize]) -> bool,
    ) {
        let g = &self.groups;
        let kept = self
            .history
            .store(levels, g.len(), max_classes, finished, |s| {
                s.reps.extend_from_slice(&g.reps);
                s.counts.extend_from_slice(&g.counts);
                s.dist.clone_from(&g.dist);
                s.verdict.clone_from(&g.verdict);
            });
        if let Some(classes) = kept {
            count_stored(&mut self.stats, &self.history);
            self.kept = Some(SharedClasses {
                levels: levels.to_vec(),
                classes,
            });
        }
    }

    /// The classes of the last check, if a snapshot could hold them (see
    /// [`super::Checker::share_classes`]).
    pub fn share_classes(&self) -> Option<SharedClasses> {
        let g = &self.groups;
        let levels = g.levels.as_ref()?;
        if let Some(kept) = self.kept.as_ref().filter(|k| k.levels == *levels) {
            return Some(kept.clone());
        }
        if !self.s.config.history || g.len() > self.history.max_classes() {
            return None;
        }
        let classes = history::Classes {
            reps: g.reps.clone(),
            counts: g.counts.clone(),
            dist: g.dist.clone(),
            verdict: g.verdict.clone(),
        };
        Some(SharedClasses {
            levels: levels.clone(),
            classes: Arc::new(classes),
        })
    }

    /// The snapshot the last check kept, taken.
    pub fn kept(&mut self) -> Option<SharedClasses> {
        self.kept.take()
    }

    /// Offers another checker's classes to the history.
    pub fn adopt(&mut self, c: SharedClasses, finished: &dyn Fn(&[usize]) -> bool) {
        if !self.s.config.history || self.buffer_levels.is_none() {
            return;
        }
        if self.history.store_shared(&c.levels, &c.classes, finished) {
            count_stored(&mut self.stats, &self.history);
        }
    }
}

/// Counts a snapshot the history has just stored.
fn count_stored(stats: &mut CheckerStats, history: &History) {
    stats.snapshots_stored += 1;
    stats.history_peak_bytes = stats.history_peak_bytes.max(history.bytes());
}
