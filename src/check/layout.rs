//! Items laid out by part, so that most groupings on a team need no lists.
//!
//! A grouping on a team (`partitioned`) partitions the classes by their key's hash, so each
//! thread first lists its range's entries by partition: an extra pass, half of whose entries
//! cross to the other core. But any partition of the items under which no class of a
//! transformation crosses parts would do, and one is known before any check: the generalized
//! value of one column at one level. If column `c` is generalized to level `l` or less, two
//! items of one class share their value at the transformation's level, hence at `l` (a
//! hierarchy only merges values going up), so they fall in the same part. Such a
//! transformation is *covered*; for it, part `q`'s thread groups part `q`'s entries straight
//! into its table and nothing is listed:
//! - a check from scratch: the items are put in part order once ([`Encoding::permute`]), so
//!   part `q` is a consecutive range of the buffer, which its thread moves and groups;
//! - a roll-up or a snapshot: each thread reads every source class and takes those whose
//!   representative is an item of its part (a class lies in the part of any of its items).
//!
//! Other transformations are grouped as before, by hash. The choice ([`ItemParts::choose`]):
//! among the columns and levels below the top whose values split the items into parts within
//! [`super::LAYOUT_BALANCE`] of equal (values assigned largest first to the lightest part), the
//! one that covers the largest share of the column's levels (on ADULT with two parts, age at
//! level 3; what it covers and saves is in `BENCHMARKS.md`). A covered check costs less than
//! one by hash: no lists; what remains is the larger part's extra work, the copy of the tables
//! into one and the hand-overs.
//!
//! The layout is made when the team is set ([`super::Checker::set_team`]), before the engine is
//! forked (the forks share the encoding), and takes a pass over the items per column and a copy
//! of the columns; the engine's buffer, classes and snapshots, numbered in the former order, are
//! dropped with it.
//!
//! The result is the classes of one thread, in part order; nothing depends on the order of
//! the items or classes (see `partitioned`).

use std::ops::Range;
use std::sync::Mutex;

use super::encode::Encoding;
use super::engine::Engine;
use super::groupify::Csr;
use super::shared::Shared;
use super::steps::{step_key, transform_range};
use super::team::Team;
use crate::sync::lock;

/// The items' parts: a column, a level, and the items of each part (consecutive).
#[derive(Debug, Clone)]
pub(super) struct ItemParts {
    column: usize,
    level: usize,
    /// Part `q` is the items `ends[q - 1]..ends[q]` (from 0 for part 0).
    ends: Vec<usize>,
}

impl ItemParts {
    /// The column, level and item order (`order[i]`: the item that becomes item `i`) of
    /// `parts` parts for `enc`, if some column and level split its items evenly enough.
    pub(super) fn choose(
        enc: &Encoding,
        parts: usize,
        balance: f64,
    ) -> Option<(ItemParts, Vec<u32>)> {
        let n = enc.items();
        if parts < 2 || n < parts || parts > u8::MAX as usize {
            return None;
        }
        let most = n as f64 / parts as f64 * balance;
        // (share of the column's levels covered, largest part, column, level, part of each id)
        let mut best: Option<(f64, usize, usize, usize, Vec<usize>)> = None;
        for j in 0..enc.dims {
            let levels = enc.levels[j];
            // Items per leaf code, then per value at each level (one pass over the items per
            // column, not per level).
            let mut leaves: Vec<usize> = vec![0; enc.gm[j].len() / levels.max(1)];
            crate::with_codes!(enc.codes[j].view(), codes => {
                for &c in codes {
                    leaves[c as usize] += 1;
                }
            });
            // The leaves present (a hierarchy may have many more than the data: CUP's ZIP).
            let present: Vec<(usize, usize)> = leaves
                .iter()
                .enumerate()
                .filter(|&(_, &k)| k > 0)
                .map(|(c, &k)| (c, k))
                .collect();
            drop(leaves);
            for l in 0..levels.saturating_sub(1) {
                let covered = (l + 1) as f64 / levels as f64;
                if best.as_ref().is_some_and(|b| b.0 > covered) {
                    continue;
                }
                let mut sizes: Vec<usize> = Vec::new();
                for &(c, count) in &present {
                    let v = (enc.gm[j][c * levels + l] / enc.mult[j]) as usize;
                    if v >= sizes.len() {
                        sizes.resize(v + 1, 0);
                    }
                    sizes[v] += count;
                }
                let Some((largest, part)) = Self::assign(&sizes, parts) else {
                    continue;
                };
                let better = match &best {
                    None => true,
                    Some(b) => covered > b.0 || largest < b.1,
                };
                if largest as f64 <= most && better {
                    best = Some((covered, largest, j, l, part));
                }
            }
        }
        let (_, _, column, level, part) = best?;
        let levels = enc.levels[column];
        // The part of each leaf code, then of each item.
        let leaf_part: Vec<u8> = enc.gm[column]
            .chunks_exact(levels)
            .map(|g| part[(g[level] / enc.mult[column]) as usize] as u8)
            .collect();
        let item_part: Vec<u8> = crate::with_codes!(enc.codes[column].view(), codes => {
            codes.iter().map(|&c| leaf_part[c as usize]).collect()
        });
        let mut ends = vec![0usize; parts];
        for &q in &item_part {
            ends[q as usize] += 1;
        }
        let mut at: Vec<usize> = Vec::with_capacity(parts);
        let mut sum = 0;
        for e in &mut ends {
            at.push(sum);
            sum += *e;
            *e = sum;
        }
        let mut order = vec![0u32; n];
        for (i, &q) in item_part.iter().enumerate() {
            order[at[q as usize]] = i as u32;
            at[q as usize] += 1;
        }
        Some((
            ItemParts {
                column,
                level,
                ends,
            },
            order,
        ))
    }

    /// Values of sizes `sizes` assigned to `parts` parts, largest first to the lightest part:
    /// the largest part's size and each value's part; none if fewer values than parts.
    fn assign(sizes: &[usize], parts: usize) -> Option<(usize, Vec<usize>)> {
        let mut values: Vec<usize> = (0..sizes.len()).filter(|&v| sizes[v] > 0).collect();
        if values.len() < parts {
            return None;
        }
        values.sort_by_key(|&v| std::cmp::Reverse(sizes[v]));
        let mut load = vec![0usize; parts];
        let mut part = vec![0usize; sizes.len()];
        for v in values {
            let q = (0..parts).min_by_key(|&q| load[q]).unwrap_or(0);
            load[q] += sizes[v];
            part[v] = q;
        }
        Some((load.into_iter().max().unwrap_or(0), part))
    }

    /// Number of parts.
    pub(super) fn parts(&self) -> usize {
        self.ends.len()
    }

    /// True if no class of the transformation `levels` crosses parts.
    #[inline]
    pub(super) fn covers(&self, levels: &[usize]) -> bool {
        levels[self.column] <= self.level
    }

    /// The items of part `q`.
    pub(super) fn range(&self, q: usize) -> Range<usize> {
        let start = if q == 0 { 0 } else { self.ends[q - 1] };
        start..self.ends[q]
    }

    /// The part of item `i`.
    #[inline(always)]
    pub(super) fn part_of(&self, i: u32) -> usize {
        self.ends.partition_point(|&e| e <= i as usize)
    }
}

impl Shared<'_> {
    /// Lays the items out in `parts` parts ([`ItemParts::choose`]), if some column and level
    /// allow: the encoding, the items' distributions and verdicts put in part order.
    fn lay_out(&mut self, parts: usize) {
        let balance = self.config.layout_balance;
        let Some((item_parts, order)) = ItemParts::choose(&self.enc, parts, balance) else {
            return;
        };
        self.enc.permute(&order);
        for d in &mut self.base_dist {
            *d = permute_rows(d, &order);
        }
        if !self.base_verdict.is_empty() {
            self.base_verdict = order
                .iter()
                .map(|&i| self.base_verdict[i as usize])
                .collect();
        }
        self.item_parts = Some(item_parts);
    }
}

/// The rows of `csr` in `order` (row `i` of the result is row `order[i]`).
fn permute_rows(csr: &Csr, order: &[u32]) -> Csr {
    let mut out = Csr {
        offsets: Vec::with_capacity(order.len() + 1),
        codes: Vec::with_capacity(csr.codes.len()),
        counts: Vec::with_capacity(csr.counts.len()),
    };
    out.offsets.push(0);
    for &i in order {
        let (codes, counts) = csr.class(i as usize);
        out.codes.extend_from_slice(codes);
        out.counts.extend_from_slice(counts);
        out.offsets.push(out.codes.len() as u32);
    }
    out
}

impl<const W: usize> Engine<'_, W> {
    /// Lays the items out for the team (module docs), once, while no other engine shares
    /// this one's [`Shared`] (before any fork) and for inputs the team serves; the engine's
    /// buffer, classes and snapshots, of the items' former order, are dropped.
    pub(super) fn lay_out(&mut self, parts: usize) {
        let items = self.s.enc.items();
        let config = &self.s.config;
        if items < config.team_items.max(parts)
            || items >= config.split_items
            || self
                .s
                .item_parts
                .as_ref()
                .is_some_and(|p| p.parts() == parts)
        {
            return;
        }
        let Some(shared) = std::sync::Arc::get_mut(&mut self.s) else {
            return;
        };
        shared.lay_out(parts);
        self.buffer = Vec::new();
        self.buffer_levels = None;
        self.groups.reset(0);
        self.spare.reset(0);
        self.history.clear();
        self.kept = None;
        self.hubs.clear();
    }

    /// True if the items are laid out for the team and no class of `levels` crosses their
    /// parts (module docs).
    pub(super) fn covers(&self, levels: &[usize]) -> bool {
        match (&self.team, &self.s.item_parts) {
            (Some(team), Some(parts)) => parts.parts() == team.parts() && parts.covers(levels),
            _ => false,
        }
    }

    /// The classes `0..n` of a source (records `counts`, representatives `reps`, keys
    /// `start_key(e)` before the planned steps, distributions `track`) regrouped at `levels`
    /// on the team, into the checker's table: covered ([`Self::regroup_covered`]) or by hash
    /// ([`Self::regroup_team`]); false if it stopped at the class limit.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn regroup_split(
        &mut self,
        levels: &[usize],
        counts: &[u32],
        reps: &[u32],
        start_key: &(dyn Fn(usize) -> [u64; W] + Sync),
        track: Option<(&[Csr], &[u8])>,
        use_deltas: bool,
        team: &Team,
    ) -> bool {
        if self.covers(levels) {
            self.stats.covered += 1;
            self.regroup_covered(counts, reps, start_key, track, use_deltas, team)
        } else {
            self.regroup_team(counts, reps, start_key, track, use_deltas, team)
        }
    }

    /// [`Self::plain`] on the team for a covered transformation: part `q`'s thread moves and
    /// groups the buffer keys of part `q`'s items.
    pub(super) fn plain_covered(&mut self, levels: &[usize], team: &Team) -> bool {
        let n = self.s.enc.items();
        let parts = team.parts();
        let track = self.s.criteria.needs_targets();
        let use_deltas = self.prepare_transform(levels);
        self.partitions.size(parts, self.s.criteria.slots.len());
        // Out of `self` while the grouping borrows it.
        let mut buffer = std::mem::take(&mut self.buffer);
        let steps = std::mem::take(&mut self.steps);
        let s = self.s.clone();
        let item_parts = s.item_parts.as_ref().expect("covered: items laid out");
        let enc = &s.enc;
        let cols = steps.resolve(enc, use_deltas);
        let mut ranges: Vec<Mutex<&mut [[u64; W]]>> = Vec::with_capacity(parts);
        let mut rest = &mut buffer[..];
        for q in 0..parts {
            let (mine, more) = rest.split_at_mut(item_parts.range(q).len());
            ranges.push(Mutex::new(mine));
            rest = more;
        }
        let expected = n.min(self.last_plain_classes.max(1024));
        let weights = &enc.weights[..];
        let from = track.then(|| (&s.base_dist[..], &s.base_verdict[..]));
        let complete = self.group_parts(team, expected, from, |q, sink| {
            let range = item_parts.range(q);
            let mut keys = lock(&ranges[q]);
            transform_range(enc, &steps.list, &cols, &mut keys, range.start);
            for (k, i) in keys.iter().zip(range) {
                if !sink.push(*k, weights[i], i as u32, i as u32) {
                    return;
                }
            }
        });
        drop((ranges, cols));
        self.buffer = buffer;
        self.steps = steps;
        complete
    }

    /// [`Self::regroup_team`] for a covered transformation: each part's thread takes the
    /// source classes whose representative is one of its items.
    fn regroup_covered(
        &mut self,
        counts: &[u32],
        reps: &[u32],
        start_key: &(dyn Fn(usize) -> [u64; W] + Sync),
        track: Option<(&[Csr], &[u8])>,
        use_deltas: bool,
        team: &Team,
    ) -> bool {
        let n = counts.len();
        self.partitions
            .size(team.parts(), self.s.criteria.slots.len());
        let steps = std::mem::take(&mut self.steps);
        let s = self.s.clone();
        let item_parts = s.item_parts.as_ref().expect("covered: items laid out");
        let enc = &s.enc;
        let cols = steps.resolve(enc, use_deltas);
        let complete = self.group_parts(team, n, track, |q, sink| {
            for (e, (&rep, &count)) in reps.iter().zip(counts).enumerate() {
                if item_parts.part_of(rep) != q {
                    continue;
                }
                let mut key = start_key(e);
                step_key(enc, &steps.list, &cols, use_deltas, &mut key, rep as usize);
                if !sink.push(key, count, rep, e as u32) {
                    return;
                }
            }
        });
        drop(cols);
        self.steps = steps;
        complete
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::EncodedTable;
    use crate::metrics::tests::h;

    /// Column A: a, b, c, d -> ab, cd -> *; column B: x, y -> *. Rows as (A, B) code pairs.
    fn table(rows: &[(u32, u32)]) -> EncodedTable {
        let a = h(
            "A",
            &[
                &["a", "ab", "*"],
                &["b", "ab", "*"],
                &["c", "cd", "*"],
                &["d", "cd", "*"],
            ],
        );
        let b = h("B", &[&["x", "*"], &["y", "*"]]);
        let codes = rows.iter().flat_map(|&(x, y)| [x, y]).collect();
        EncodedTable::new(codes, vec![a, b], vec![])
    }

    #[test]
    fn the_balanced_level_covering_most_of_its_column_wins() {
        // Every (A, B) pair once, A's pairs `ab` and `cd` twice each: A at level 1 splits the
        // items evenly and covers two of A's three levels; B at level 0 splits them evenly too
        // but covers one of two.
        let rows: Vec<(u32, u32)> = (0..4).flat_map(|a| [(a, 0), (a, 1)]).collect();
        let t = table(&rows);
        let enc = Encoding::new(&t, true);
        let (parts, order) = ItemParts::choose(&enc, 2, 1.1).unwrap();
        assert_eq!((parts.column, parts.level), (0, 1));
        assert_eq!(parts.ends, vec![4, 8]);
        // Part by part: the items of one pair of A, then the other's.
        let pair = |i: u32| enc.codes[0].get(i as usize) / 2;
        assert!(order[..4].iter().all(|&i| pair(i) == pair(order[0])));
        assert!(order[4..].iter().all(|&i| pair(i) != pair(order[0])));
        assert!(parts.covers(&[1, 1]));
        assert!(!parts.covers(&[2, 0]));
        assert_eq!((parts.part_of(3), parts.part_of(4)), (0, 1));
        assert_eq!(parts.range(1), 4..8);
    }

    #[test]
    fn uneven_splits_are_refused_unless_any_is_accepted() {
        // Six items with A = a, one with b, one with d, and B all x: no even split in two.
        let rows: Vec<(u32, u32)> = [0, 0, 0, 0, 0, 0, 1, 3]
            .iter()
            .zip([0, 0, 0, 0, 0, 0, 0, 0])
            .map(|(&a, b)| (a, b))
            .collect();
        let t = table(&rows);
        let enc = Encoding::new(&t, false);
        assert!(ItemParts::choose(&enc, 2, 1.1).is_none());
        let (parts, _) = ItemParts::choose(&enc, 2, f64::INFINITY).unwrap();
        // A at level 1: ab (seven items) against cd (one).
        assert_eq!(
            (parts.column, parts.level, parts.ends.clone()),
            (0, 1, vec![7, 8])
        );
        // Three values of A at level 0, so three parts; four are more than any level has.
        let (parts, _) = ItemParts::choose(&enc, 3, f64::INFINITY).unwrap();
        assert_eq!(
            (parts.column, parts.level, parts.ends),
            (0, 0, vec![6, 7, 8])
        );
        assert!(ItemParts::choose(&enc, 4, f64::INFINITY).is_none());
    }

    #[test]
    fn permuted_items_keep_their_rows_tuples_and_weights() {
        let rows = [(0, 0), (1, 1), (0, 0), (2, 1), (3, 0), (1, 1), (2, 1)];
        let t = table(&rows);
        let mut enc = Encoding::new(&t, true);
        let before: Vec<(u32, u32)> = (0..rows.len())
            .map(|r| {
                let i = enc.item_of_row(r) as usize;
                (enc.tuple(i), enc.weights[i])
            })
            .collect();
        let n = enc.items() as u32;
        let order: Vec<u32> = (0..n).rev().collect();
        enc.permute(&order);
        // Twice: permutations compose.
        let again: Vec<u32> = (0..n).map(|i| (i + 1) % n).collect();
        enc.permute(&again);
        let row_items = enc.row_items();
        for (r, &(tuple, weight)) in before.iter().enumerate() {
            let i = enc.item_of_row(r);
            assert_eq!(row_items[r], i);
            assert_eq!(
                (enc.tuple(i as usize), enc.weights[i as usize]),
                (tuple, weight)
            );
            assert_eq!(enc.tuple(i as usize) as usize, t.tuple_of(r));
            let codes: Vec<u32> = (0..2).map(|j| enc.codes[j].get(i as usize)).collect();
            assert_eq!(codes, t.tuple(t.tuple_of(r)).collect::<Vec<_>>());
        }
    }
}
