//! The plain transition: every item grouped at the target levels, from the buffer of keys.
//!
//! The buffer keeps one packed key per item (the generalized row, see `encode`) at the
//! buffer's levels; with projection only the columns whose level differs from the target's
//! are rewritten, otherwise every key is rebuilt (see `steps`). A hub (see `transition`) is a
//! plain transition to a meet below the target, kept as a snapshot and rolled up.
//!
//! On inputs of [`super::SPLIT_CHECK_ITEMS`] items and more, with a pool
//! ([`super::Checker::set_pool`]), the items are cut into one range per thread and the
//! ranges' tables merged ([`Engine::plain_split`]: the very table one thread builds); with a
//! team, the grouping is split as `partitioned` and `layout` say (the same classes in another
//! order). Either way every result is that of one thread.

use super::engine::Engine;
use super::groupify::{merge_slots, Groups};
use super::steps::transform_range;
use super::transition::HUB_MAX_FRACTION;

/// One range of a split check: its classes and its items' classes in them. Aligned to its own
/// cache lines: each range's thread pushes to its vectors, and neighbours' lengths would
/// otherwise share a line.
#[repr(align(128))]
pub(super) struct Chunk<const W: usize> {
    groups: Groups<W>,
    targets: Vec<u32>,
    /// Items grouped, negated if the range stopped at the class limit.
    done: isize,
}

impl<const W: usize> Chunk<W> {
    fn new(slots: usize) -> Chunk<W> {
        Chunk {
            groups: Groups::new(slots),
            targets: Vec::new(),
            done: 0,
        }
    }
}

impl<const W: usize> Engine<'_, W> {
    /// The plain transition to `levels`, through a hub below it if the hubs offer one (see
    /// `transition`); false if it stopped at the class limit.
    pub(super) fn plain_or_hub(
        &mut self,
        levels: &[usize],
        finished: &dyn Fn(&[usize]) -> bool,
    ) -> bool {
        let hub = if self.builds_hubs() {
            self.hubs.below(levels)
        } else {
            None
        };
        let Some(hub) = hub else {
            return self.plain(levels);
        };
        self.stats.hubs += 1;
        if self.plain(&hub) {
            self.groups.levels = Some(hub.clone());
            let cap = (HUB_MAX_FRACTION * self.s.enc.items() as f64) as usize;
            self.keep_groups(&hub, Some(cap), finished);
            self.rollup(levels)
        } else {
            // The hub has too many classes; `levels` may not.
            self.plain(levels)
        }
    }

    /// Groups every item at `levels`; false if it stopped at the class limit (see `shared`).
    /// From [`super::SPLIT_CHECK_ITEMS`] items, with a pool ([`super::Checker::set_pool`]),
    /// the items are split over its threads (see [`Self::plain_split`]).
    pub(super) fn plain(&mut self, levels: &[usize]) -> bool {
        let n = self.s.enc.items();
        // The team merges the distributions itself.
        let mut merged = false;
        let complete = match (self.pool.clone(), self.team.clone()) {
            (_, Some(team)) if n >= self.s.config.team_items => {
                merged = true;
                if self.covers(levels) {
                    self.stats.covered += 1;
                    self.plain_covered(levels, &team)
                } else {
                    self.plain_team(levels, &team)
                }
            }
            (Some(pool), _) if n >= self.s.config.split_items && pool.current_num_threads() > 1 => {
                self.plain_split(levels, &pool)
            }
            _ => {
                let use_deltas = self.prepare_transform(levels);
                let mut buffer = std::mem::take(&mut self.buffer);
                let cols = self.steps.resolve(&self.s.enc, use_deltas);
                transform_range(&self.s.enc, &self.steps.list, &cols, &mut buffer, 0);
                drop(cols);
                self.buffer = buffer;
                let track = self.s.criteria.needs_targets();
                self.targets.clear();
                self.groups.reset(n.min(self.last_plain_classes.max(1024)));
                let done = group_range(
                    &mut self.groups,
                    &self.buffer,
                    &self.s.enc.weights,
                    0,
                    self.s.class_limit,
                    track.then_some(&mut self.targets),
                );
                self.stats.items += done.unsigned_abs() as u64;
                done >= 0
            }
        };
        self.buffer_levels = Some(levels.to_vec());
        self.stats.cells += (n * self.steps.list.len()) as u64;
        self.last_plain_classes = self.groups.len();
        if complete && !merged {
            self.merge_item_distributions();
        }
        complete
    }

    /// [`Self::plain`] over the pool's threads. The items are cut into one consecutive range
    /// per thread; each thread moves its range's buffer keys and groups them into a table of
    /// its own. The other tables are then inserted, in range order and each in its own order,
    /// into the first range's, which becomes the checker's: a class keeps the representative
    /// and the place of its first item, so the result is the very table one thread builds
    /// (same classes, counts, representatives and order), whatever the number of threads. The
    /// merge is sequential and costs the other ranges' classes, so the split pays when classes
    /// are fewer than items (on huge inputs most checks from scratch have a few percent as
    /// many classes as items), and the class limit bounds it where they are not. Stopping: a
    /// range with more classes than the limit, or a merge that passes it, means the whole has
    /// more.
    fn plain_split(&mut self, levels: &[usize], pool: &rayon::ThreadPool) -> bool {
        let n = self.s.enc.items();
        self.stats.split += 1;
        // One range per thread: every further range costs its classes again in the merge.
        let parts = pool.current_num_threads().min(n).max(1);
        let use_deltas = self.prepare_transform(levels);
        // Out of `self` while the columns borrow it.
        let mut buffer = std::mem::take(&mut self.buffer);
        let mut chunks = std::mem::take(&mut self.chunks);
        let cols = self.steps.resolve(&self.s.enc, use_deltas);
        let track = self.s.criteria.needs_targets();
        let limit = self.s.class_limit;
        let size = n.div_ceil(parts);
        let expected = size.min(self.last_plain_classes.max(1024));
        while chunks.len() < parts {
            chunks.push(Chunk::new(self.s.criteria.slots.len()));
        }
        let (enc, steps, weights) = (&self.s.enc, &self.steps.list[..], &self.s.enc.weights[..]);
        let cols = &cols[..];
        pool.install(|| {
            use rayon::prelude::*;
            chunks[..parts]
                .par_iter_mut()
                .zip(buffer.par_chunks_mut(size))
                .enumerate()
                .with_max_len(1)
                .for_each(|(i, (chunk, keys))| {
                    let start = i * size;
                    transform_range(enc, steps, cols, keys, start);
                    chunk.groups.reset(expected);
                    chunk.targets.clear();
                    chunk.done = group_range(
                        &mut chunk.groups,
                        keys,
                        weights,
                        start,
                        limit,
                        track.then_some(&mut chunk.targets),
                    );
                })
        });
        self.buffer = buffer;
        self.chunks = chunks;
        let chunks = &mut self.chunks[..parts];
        self.stats.items += chunks
            .iter()
            .map(|c| c.done.unsigned_abs() as u64)
            .sum::<u64>();
        if chunks.iter().any(|c| c.done < 0) {
            return false;
        }
        let (first, rest) = chunks.split_at_mut(1);
        let first = &mut first[0];
        let mut remap: Vec<u32> = Vec::new();
        for chunk in rest.iter() {
            remap.clear();
            let g = &chunk.groups;
            for e in 0..g.len() {
                let t = first.groups.insert(g.keys[e], g.counts[e], g.reps[e]);
                if t as usize >= limit {
                    return false;
                }
                if track {
                    remap.push(t);
                }
            }
            if track {
                first
                    .targets
                    .extend(chunk.targets.iter().map(|&l| remap[l as usize]));
            }
        }
        std::mem::swap(&mut self.groups, &mut first.groups);
        std::mem::swap(&mut self.targets, &mut first.targets);
        true
    }

    /// Plans moving the buffer to `levels` (projection: only the columns whose level changed;
    /// rebuilding: every key zeroed first) and sizes it; true if the steps go by per-leaf
    /// deltas (see [`super::steps::Steps::plan_deltas`]).
    pub(super) fn prepare_transform(&mut self, levels: &[usize]) -> bool {
        let n = self.s.enc.items();
        if self.buffer.len() != n {
            self.buffer = vec![[0; W]; n];
            self.buffer_levels = None;
        }
        let from = self.buffer_levels.take();
        let (enc, projection) = (&self.s.enc, self.s.config.projection);
        self.steps.plan(enc, projection, from.as_deref(), levels);
        if self.steps.rebuilds() {
            // Rebuilding: every key starts at zero and adds all columns.
            self.steps.plan(enc, projection, None, levels);
        }
        self.steps.plan_deltas(enc, n)
    }

    /// After grouping every item: merges the items' distributions (and cached verdicts) into
    /// their classes (`targets`), when a criterion needs them.
    fn merge_item_distributions(&mut self) {
        if !self.s.criteria.needs_targets() {
            return;
        }
        let cache = self.s.criteria.caches_verdicts();
        merge_slots(
            &mut self.groups,
            &self.s.base_dist,
            &self.s.base_verdict,
            &self.targets,
            &self.s.domains,
            &mut self.merge_buffers,
            cache,
        );
    }
}

/// Groups the items `start..` by their buffer keys `keys` into `groups` (already reset),
/// pushing each item's class to `targets` if given. Returns the items grouped, negated if it
/// stopped at the class limit.
fn group_range<const W: usize>(
    groups: &mut Groups<W>,
    keys: &[[u64; W]],
    weights: &[u32],
    start: usize,
    limit: usize,
    mut targets: Option<&mut Vec<u32>>,
) -> isize {
    for (i, (key, &w)) in keys.iter().zip(&weights[start..]).enumerate() {
        let t = groups.insert(*key, w, (start + i) as u32);
        if t as usize >= limit {
            return -(i as isize + 1);
        }
        if let Some(targets) = targets.as_deref_mut() {
            targets.push(t);
        }
    }
    keys.len() as isize
}
