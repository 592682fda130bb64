//! The choice of transition: where the classes of the next transformation come from.
//!
//! The checker's state is (buffer levels: none | L, previous classes: none | P). Three
//! transitions build the classes of a target `T`:
//! - **plain** (`plain`): from every item; moves the buffer to `T` (all rows, so the buffer is
//!   always consistent) and sets P = T;
//! - **roll-up** (`rollup`): needs P <= T (`T` generalizes the previous check's
//!   transformation); merges P's classes and sets P = T;
//! - **snapshot** (`snapshot`): needs a buffer and a history snapshot S <= T; merges S's
//!   classes and sets P = T.
//!
//! Roll-ups and snapshots never write the buffer, so no transition can leave it
//! half-transformed; that is what makes projection after a roll-up safe. [`choose`] takes the
//! source with the fewest items: the items for plain, classes otherwise (a roll-up when it has
//! no more classes than there are items, a snapshot when it has fewer classes than the cheaper
//! of those two).
//!
//! **Hubs** (with the history, when the search's checks are scattered, see
//! [`super::Checker::set_scattered`]): when a transformation `T` has no source but the items,
//! the checker first groups the *meet* `H` of `T` and a recent transformation that had none
//! either (levels taken one by one as the smaller, [`Hubs::below`]), keeps `H`'s classes as a
//! snapshot (up to [`HUB_MAX_FRACTION`] of the items, more than ordinary snapshots may hold),
//! and rolls `H` up to `T`. A search that works in one region of the lattice keeps coming back
//! to transformations above such a meet, which then start from its classes instead of every
//! item. Flash's walks gain nothing from them. The result never depends on it: a roll-up
//! groups exactly as a check from scratch.

use super::history::specializes;
use super::Source;

/// Transformations without a source remembered for choosing hubs (module docs).
const HUB_WINDOW: usize = 4;

/// Largest hub kept, in classes relative to the items: a hub pays when it has clearly fewer
/// classes than the items it replaces.
pub(super) const HUB_MAX_FRACTION: f64 = 0.5;

/// How the classes of a transformation are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transition {
    /// From every item (possibly through a hub).
    Plain,
    /// From the previous check's classes.
    Rollup,
    /// From the history's snapshot of this index.
    Snapshot(usize),
}

impl Transition {
    pub fn source(self) -> Source {
        match self {
            Transition::Plain => Source::Plain,
            Transition::Rollup => Source::Rollup,
            Transition::Snapshot(_) => Source::Snapshot,
        }
    }
}

/// The transition for the target `levels` over `items` items, given the previous check's
/// classes (`previous`: their levels and number, if a roll-up may use them) and the history's
/// best snapshot for `levels` (`snapshot`: its index and number of classes, if any): the
/// source with the fewest items, a roll-up winning a tie with the items and the items or the
/// roll-up a tie with the snapshot.
#[inline]
pub(super) fn choose(
    levels: &[usize],
    items: usize,
    previous: Option<(&[usize], usize)>,
    snapshot: Option<(usize, usize)>,
) -> Transition {
    let mut choice = Transition::Plain;
    let mut cost = items;
    if let Some((p, classes)) = previous {
        if specializes(p, levels) && classes <= cost {
            choice = Transition::Rollup;
            cost = classes;
        }
    }
    if let Some((i, classes)) = snapshot {
        if classes < cost {
            choice = Transition::Snapshot(i);
        }
    }
    choice
}

/// The last transformations that had no source but the items, newest last, from which hubs
/// are chosen (module docs).
#[derive(Debug, Default)]
pub(super) struct Hubs {
    recent: Vec<Vec<usize>>,
}

impl Hubs {
    /// The hub to group before `levels`, which has no source but the items: its meet with the
    /// newest recent such transformation that is neither `levels` nor that transformation
    /// (which, having no snapshot, was too large to keep or was dropped).
    pub fn below(&self, levels: &[usize]) -> Option<Vec<usize>> {
        self.recent.iter().rev().find_map(|p| {
            let meet: Vec<usize> = p.iter().zip(levels).map(|(&a, &b)| a.min(b)).collect();
            (meet != levels && meet != *p).then_some(meet)
        })
    }

    /// Remembers `levels`, which had no source but the items.
    pub fn remember(&mut self, levels: &[usize]) {
        if self.recent.len() == HUB_WINDOW {
            self.recent.remove(0);
        }
        self.recent.push(levels.to_vec());
    }

    pub fn clear(&mut self) {
        self.recent.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_with_the_fewest_items_wins() {
        let t = [1, 2];
        // Nothing but the items.
        assert_eq!(choose(&t, 100, None, None), Transition::Plain);
        // The previous classes, when the target generalizes them and they are no more than
        // the items.
        assert_eq!(
            choose(&t, 100, Some((&[1, 1], 40)), None),
            Transition::Rollup
        );
        assert_eq!(
            choose(&t, 100, Some((&[1, 2], 100)), None),
            Transition::Rollup
        );
        assert_eq!(
            choose(&t, 100, Some((&[1, 1], 101)), None),
            Transition::Plain
        );
        // Not when the target does not generalize them.
        assert_eq!(
            choose(&t, 100, Some((&[2, 0], 10)), None),
            Transition::Plain
        );
        // A snapshot with fewer classes than the cheapest other source.
        assert_eq!(
            choose(&t, 100, None, Some((3, 99))),
            Transition::Snapshot(3)
        );
        assert_eq!(choose(&t, 100, None, Some((3, 100))), Transition::Plain);
        assert_eq!(
            choose(&t, 100, Some((&[0, 2], 40)), Some((5, 39))),
            Transition::Snapshot(5)
        );
        assert_eq!(
            choose(&t, 100, Some((&[0, 2], 40)), Some((5, 40))),
            Transition::Rollup
        );
        // A snapshot beats previous classes the target does not generalize.
        assert_eq!(
            choose(&t, 100, Some((&[2, 2], 1)), Some((0, 50))),
            Transition::Snapshot(0)
        );
    }

    #[test]
    fn a_hub_is_the_meet_with_the_newest_other_transformation() {
        let mut hubs = Hubs::default();
        assert_eq!(hubs.below(&[2, 1]), None);
        hubs.remember(&[1, 3]);
        assert_eq!(hubs.below(&[2, 1]), Some(vec![1, 1]));
        // A meet equal to the target or to the remembered transformation is no hub.
        assert_eq!(hubs.below(&[1, 3]), None);
        assert_eq!(hubs.below(&[2, 4]), None);
        hubs.remember(&[0, 0]);
        // The newest gives the hub; one whose meet is no hub is passed over.
        assert_eq!(hubs.below(&[2, 2]), Some(vec![1, 2]));
        hubs.remember(&[3, 0]);
        assert_eq!(hubs.below(&[2, 2]), Some(vec![2, 0]));
    }

    #[test]
    fn hubs_remember_the_last_four() {
        let mut hubs = Hubs::default();
        for i in 0..6 {
            hubs.remember(&[i, 9]);
        }
        assert_eq!(
            hubs.recent,
            vec![vec![2, 9], vec![3, 9], vec![4, 9], vec![5, 9]]
        );
        hubs.clear();
        assert_eq!(hubs.below(&[9, 0]), None);
    }
}
