//! Checks split over a [`Team`]: the classes are partitioned by their key's hash, one table per
//! part, so that no class is ever merged from two threads.
//!
//! A grouping on a team of `P` threads (from the items, [`Engine::plain_team`], or from the
//! classes of a roll-up or snapshot, [`Engine::regroup_team`]):
//! 1. each thread moves the keys of its own range of items (or source classes) and lists them
//!    by the partition of their key ([`part_of`]: a second mix of the table's hash, so a
//!    partition's keys still spread over its table's slots), key, records and representative
//!    together: the other thread then streams them instead of reading keys here and there;
//! 2. thread `q` groups the entries of partition `q`, from every range in order, into table
//!    `q`;
//! 3. the tables are copied one after the other into the checker's table
//!    ([`Groups::concat`]), each by its own thread.
//!
//! With distributions to merge (criteria over sensitive attributes), each entry's source (item
//! or class) is listed beside it, and thread `q` merges the distributions of partition `q`'s
//! classes from their sources ([`merge_slots_of`]) before the copy. The per-class pass then
//! runs on the team too ([`Engine::tally_team`]): one range of classes per thread, integer sums
//! added, outliers listed in range order.
//!
//! The result has the classes one thread finds, with the same counts and distributions, in
//! another order (partition by partition) and with other representatives (a roll-up from a
//! table in partition order meets a class's members in another order; any member represents
//! its class: its generalized values are the class's). Nothing a check returns depends on
//! either: the sums over classes are integers, and the metrics that read the outlier classes
//! look up the representative's values at the class's levels and add integers (Loss) or sort
//! them first (Entropy); snapshots and roll-ups from such a table give the same classes again.
//!
//! A transformation whose classes keep within the parts the items were laid out in needs no
//! lists: each thread groups its part's entries straight into its table (`layout`,
//! [`Engine::group_parts`] with another producer). What follows is for the others.
//!
//! Compared with cutting the items into ranges and merging the ranges' tables (what `plain`
//! does on millions of items), nothing is merged: on ADULT, whose checks from scratch have
//! nearly as many classes as items, the merge cost nearly what the split saved. What the split
//! costs instead is the lists (each entry written once more, half of them read on the other
//! core); entries in the lists beat indices (reading the keys where they are). The figures are
//! in `BENCHMARKS.md`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::engine::Engine;
use super::groupify::{hash, merge_slots_of, Csr, Groups, MergeBuffers};
use super::steps::{step_key, transform_range};
use super::tally::{tally, Tally};
use super::team::Team;
use crate::sync::{get_mut, into_inner, lock};

/// The partition of a key's hash among `parts`: the high half of a second multiplication, which
/// depends on every bit of the hash (the table's slots use its top bits).
#[inline(always)]
pub(super) fn part_of(h: u64, parts: usize) -> usize {
    let mixed = h.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 32;
    ((mixed * parts as u64) >> 32) as usize
}

/// A class to be: key, records, representative item.
type Entry<const W: usize> = ([u64; W], u32, u32);

/// A split check's buffers, kept by the engine between checks.
pub(super) struct Partitions<const W: usize> {
    /// Per range, per partition: the entries of that range in that partition.
    lists: Vec<Mutex<Vec<Padded<Vec<Entry<W>>>>>>,
    /// Per range, per partition: the sources (items, or classes) of those entries, when
    /// distributions are merged.
    sources: Vec<Mutex<Vec<Padded<Vec<u32>>>>>,
    /// Per partition, its classes, and (when distributions are merged) each entry's class in
    /// the order grouped and the merge's buffers.
    tables: Vec<Mutex<Groups<W>>>,
    targets: Vec<Mutex<PartTargets>>,
}

/// Per partition: each entry's class in the order grouped, each entry's source, and the merge's
/// buffers (when distributions are merged).
type PartTargets = (Vec<u32>, Vec<u32>, MergeBuffers);

/// Where one part of a grouping on the team puts its entries ([`Engine::group_parts`]).
pub(super) struct Sink<'g, const W: usize> {
    groups: &'g mut Groups<W>,
    /// Per entry pushed, its class (when tracking distributions), and its source.
    to: &'g mut Vec<u32>,
    from: &'g mut Vec<u32>,
    track: bool,
    limit: usize,
    items: u64,
    complete: bool,
}

impl<const W: usize> Sink<'_, W> {
    /// Groups a class to be (`source`: where its distributions come from, when tracking);
    /// false once the part has more classes than the class limit (push no more).
    #[inline(always)]
    pub(super) fn push(&mut self, key: [u64; W], count: u32, rep: u32, source: u32) -> bool {
        self.items += 1;
        let t = self.groups.insert(key, count, rep);
        if t as usize >= self.limit {
            self.complete = false;
            return false;
        }
        if self.track {
            self.to.push(t);
            self.from.push(source);
        }
        true
    }
}

impl<const W: usize> Partitions<W> {
    pub(super) fn new() -> Partitions<W> {
        Partitions {
            lists: Vec::new(),
            sources: Vec::new(),
            tables: Vec::new(),
            targets: Vec::new(),
        }
    }

    /// Sized for `parts` ranges and partitions, the lists empty, the tables with `slots`
    /// distribution slots.
    pub(super) fn size(&mut self, parts: usize, slots: usize) {
        while self.lists.len() < parts {
            self.lists.push(Mutex::new(Vec::new()));
            self.sources.push(Mutex::new(Vec::new()));
            self.tables.push(Mutex::new(Groups::new(slots)));
            self.targets.push(Mutex::default());
        }
        for (l, s) in self.lists[..parts]
            .iter_mut()
            .zip(&mut self.sources[..parts])
        {
            let l = get_mut(l);
            l.resize_with(parts, Default::default);
            l.iter_mut().for_each(|v| v.0.clear());
            let s = get_mut(s);
            s.resize_with(parts, Default::default);
            s.iter_mut().for_each(|v| v.0.clear());
        }
        for t in &mut self.tables[..parts] {
            let t = get_mut(t);
            if t.dist.len() != slots {
                *t = Groups::new(slots);
            }
        }
    }
}

/// One range of a split tally: its sums, its outliers and its classes' cached verdicts.
type TallyPart<'p> = (Tally, &'p mut Vec<(u32, u32)>, &'p mut [u8]);

/// A value on cache lines of its own (what two threads write must not share a line).
#[derive(Default)]
#[repr(align(128))]
pub(super) struct Padded<T>(pub T);

/// Lists `entry(i)` for `i` in `start..start + len` by partition into `out`, and `i` into
/// `sources` if given.
#[inline(always)]
fn list<const W: usize>(
    out: &mut [Padded<Vec<Entry<W>>>],
    mut sources: Option<&mut [Padded<Vec<u32>>]>,
    start: usize,
    len: usize,
    mut entry: impl FnMut(usize) -> Entry<W>,
) {
    let parts = out.len();
    for i in start..start + len {
        let e = entry(i);
        let q = part_of(hash(&e.0), parts);
        out[q].0.push(e);
        if let Some(s) = sources.as_deref_mut() {
            s[q].0.push(i as u32);
        }
    }
}

/// What a grouping merges its classes' distributions from, if it does: the sources'
/// distributions, one per slot, and their cached verdicts.
type Track<'t> = Option<(&'t [Csr], &'t [u8])>;

impl<const W: usize> Engine<'_, W> {
    /// [`Self::plain`] on the team (see the module docs), distributions merged; false if it
    /// stopped at the class limit.
    pub(super) fn plain_team(&mut self, levels: &[usize], team: &Team) -> bool {
        let n = self.s.enc.items();
        let parts = team.parts();
        let track = self.s.criteria.needs_targets();
        let use_deltas = self.prepare_transform(levels);
        let mut buffer = std::mem::take(&mut self.buffer);
        let mut p = std::mem::replace(&mut self.partitions, Partitions::new());
        p.size(parts, self.s.criteria.slots.len());
        let cols = self.steps.resolve(&self.s.enc, use_deltas);
        let (enc, steps, cols) = (&self.s.enc, &self.steps.list[..], &cols[..]);
        let weights = &enc.weights[..];
        let size = n.div_ceil(parts).max(1);
        // 1. Move the keys of each range and list its items by partition.
        {
            let ranges: Vec<Mutex<&mut [[u64; W]]>> =
                buffer.chunks_mut(size).map(Mutex::new).collect();
            let (lists, sources) = (&p.lists, &p.sources);
            team.run(&|r| {
                let Some(range) = ranges.get(r) else {
                    return;
                };
                let mut keys = lock(range);
                let start = r * size;
                transform_range(enc, steps, cols, &mut keys, start);
                let mut srcs = track.then(|| lock(&sources[r]));
                list(
                    &mut lock(&lists[r]),
                    srcs.as_deref_mut().map(|s| &mut s[..]),
                    start,
                    keys.len(),
                    |i| (keys[i - start], weights[i], i as u32),
                );
            });
        }
        self.buffer = buffer;
        let expected = n.min(self.last_plain_classes.max(1024));
        self.partitions = p;
        let s = self.s.clone();
        let from = track.then(|| (&s.base_dist[..], &s.base_verdict[..]));
        self.group_lists(team, expected, from)
    }

    /// The classes `0..n` of a source (records `counts`, representatives `reps`, keys
    /// `start_key(e)` before the planned steps, distributions `track`) regrouped at the planned
    /// levels on the team, into the checker's table; false if it stopped at the class limit.
    /// Used by roll-ups and snapshots.
    pub(super) fn regroup_team(
        &mut self,
        counts: &[u32],
        reps: &[u32],
        start_key: &(dyn Fn(usize) -> [u64; W] + Sync),
        track: Track<'_>,
        use_deltas: bool,
        team: &Team,
    ) -> bool {
        let n = counts.len();
        let parts = team.parts();
        let mut p = std::mem::replace(&mut self.partitions, Partitions::new());
        p.size(parts, self.s.criteria.slots.len());
        let cols = self.steps.resolve(&self.s.enc, use_deltas);
        let (enc, steps, cols) = (&self.s.enc, &self.steps.list[..], &cols[..]);
        let size = n.div_ceil(parts).max(1);
        let (lists, sources) = (&p.lists, &p.sources);
        team.run(&|r| {
            let start = (r * size).min(n);
            let len = size.min(n - start);
            let mut srcs = track.map(|_| lock(&sources[r]));
            let srcs = srcs.as_deref_mut().map(|s| &mut s[..]);
            list(&mut lock(&lists[r]), srcs, start, len, |e| {
                let rep = reps[e];
                let mut key = start_key(e);
                step_key(enc, steps, cols, use_deltas, &mut key, rep as usize);
                (key, counts[e], rep)
            });
        });
        self.partitions = p;
        self.group_lists(team, n, track)
    }

    /// Groups the listed entries, partition `q` on the team's part `q` (from every range, in
    /// order), and puts the partitions' classes one after the other into the checker's table;
    /// false if there are more classes than the class limit. About `expected` classes in all.
    /// With `track`, each partition's classes get their distributions (and inherited verdicts)
    /// from the sources listed with the entries ([`merge_slots_of`]).
    fn group_lists(&mut self, team: &Team, expected: usize, track: Track<'_>) -> bool {
        let parts = team.parts();
        let lists: Vec<Vec<Padded<Vec<Entry<W>>>>> = self.partitions.lists[..parts]
            .iter_mut()
            .map(|m| std::mem::take(get_mut(m)))
            .collect();
        let sources: Vec<Vec<Padded<Vec<u32>>>> = self.partitions.sources[..parts]
            .iter_mut()
            .map(|m| std::mem::take(get_mut(m)))
            .collect();
        let tracked = track.is_some();
        let complete = self.group_parts(team, expected, track, |q, sink| {
            for (r, range) in lists.iter().enumerate() {
                let from = &sources[r][q].0;
                for (k, &(key, count, rep)) in range[q].0.iter().enumerate() {
                    let source = if tracked { from[k] } else { 0 };
                    if !sink.push(key, count, rep, source) {
                        return;
                    }
                }
            }
        });
        let p = &mut self.partitions;
        for (l, list) in p.lists.iter_mut().zip(lists) {
            *get_mut(l) = list;
        }
        for (s, list) in p.sources.iter_mut().zip(sources) {
            *get_mut(s) = list;
        }
        complete
    }

    /// Groups on the team what `produce(q, sink)` pushes into part `q`'s sink, one table per
    /// part (the parts must share no class), and puts the parts' classes one after the other
    /// into the checker's table; false if there are more classes than the class limit. About
    /// `expected` classes in all. With `track`, each part's classes get their distributions
    /// (and inherited verdicts) from the sources pushed with the entries ([`merge_slots_of`]).
    /// The partitions' buffers must be sized for the team ([`Partitions::size`]).
    pub(super) fn group_parts(
        &mut self,
        team: &Team,
        expected: usize,
        track: Track<'_>,
        produce: impl Fn(usize, &mut Sink<'_, W>) + Sync,
    ) -> bool {
        let parts = team.parts();
        let p = std::mem::replace(&mut self.partitions, Partitions::new());
        let limit = self.s.class_limit;
        let grouped = AtomicU64::new(0);
        let (tables, targets) = (&p.tables, &p.targets);
        let (domains, cache) = (&self.s.domains[..], self.s.criteria.caches_verdicts());
        team.run(&|q| {
            // A table of this thread's own while it fills, not next to the other's header.
            let mut g = std::mem::replace(&mut *lock(&tables[q]), Groups::new(0));
            g.reset(expected.div_ceil(parts));
            let mut guard = lock(&targets[q]);
            let (to, from, buffers) = &mut *guard;
            to.clear();
            from.clear();
            let mut sink = Sink {
                groups: &mut g,
                to,
                from,
                track: track.is_some(),
                limit,
                items: 0,
                complete: true,
            };
            produce(q, &mut sink);
            let (items, complete) = (sink.items, sink.complete);
            if let (Some((dist, verdict)), true) = (track, complete) {
                let pairs = from.iter().map(|&i| i as usize).zip(to.iter().copied());
                merge_slots_of(&mut g, dist, verdict, pairs, domains, buffers, cache);
            }
            *lock(&tables[q]) = g;
            grouped.fetch_add(items, Ordering::Relaxed);
        });
        self.stats.team += 1;
        self.stats.items += grouped.into_inner();
        let total: usize = p.tables[..parts].iter().map(|t| lock(t).len()).sum();
        let complete = total <= limit;
        if complete {
            self.groups
                .concat(&p.tables[..parts], |task| team.run(task));
        } else {
            self.groups.reset(0);
        }
        self.partitions = p;
        complete
    }

    /// The per-class pass ([`super::tally::tally`]) on the team: one range of classes per part,
    /// the sums added and the outliers listed in range order.
    pub(super) fn tally_team(
        &mut self,
        team: &Team,
        verdicts: &mut [u8],
        outliers: &mut Vec<(u32, u32)>,
    ) -> Tally {
        let n = self.groups.len();
        let parts = team.parts();
        let size = n.div_ceil(parts).max(1);
        let cached = !verdicts.is_empty();
        let mut outs = std::mem::take(&mut self.part_outliers);
        outs.resize_with(parts, Default::default);
        let tallies: Vec<Mutex<TallyPart<'_>>> = {
            let mut v = verdicts;
            outs.iter_mut()
                .enumerate()
                .map(|(r, o)| {
                    let len = if cached {
                        size.min(n.saturating_sub(r * size))
                    } else {
                        0
                    };
                    let (mine, rest) = std::mem::take(&mut v).split_at_mut(len);
                    v = rest;
                    o.0.clear();
                    Mutex::new((Tally::default(), &mut o.0, mine))
                })
                .collect()
        };
        let (s, g) = (&*self.s, &self.groups);
        team.run(&|r| {
            let start = (r * size).min(n);
            let end = (start + size).min(n);
            let mut part = lock(&tallies[r]);
            let (t, out, v) = &mut *part;
            *t = tally(s, g, start..end, v, out);
        });
        self.stats.team += 1;
        let mut total = Tally::default();
        for part in tallies {
            let (t, out, _) = into_inner(part);
            total.add(&t);
            outliers.extend_from_slice(out);
        }
        self.part_outliers = outs;
        total
    }
}
