//! The search space and what the search knows about it.
//!
//! - [`Space`] (`space`): the implicit lattice of full-domain transformations (mixed-radix `u64`
//!   ids, successors, predecessors, Flash's order). No per-node state, no size cap.
//! - [`PropertyStore`]: the predictive properties the search has established, behind one trait
//!   with two implementations:
//!   - [`Dense`] (`dense`): one byte per transformation; constant-time queries, tagging walks
//!     the up-set (down-set) once. For spaces that fit in memory ([`Dense::MAX_SIZE`]).
//!   - [`Antichain`] (`antichain`): per property only the minimal (resp. maximal) elements of the
//!     tagged set, in a prefix tree over the levels (Prasser et al., "Efficient and effective
//!     pruning strategies for health data de-identification", 2016). Memory grows with the
//!     number of tags, not with the space.
//!
//! # Properties
//! Every property a store holds is a **closed set**, which is what lets an antichain represent it:
//! - [`prop::ANONYMOUS`] is **up-closed**: a transformation known to satisfy monotonic privacy
//!   models makes every generalization satisfy them ([`PropertyStore::tag_up`]).
//! - [`prop::NOT_ANONYMOUS`] is **down-closed**: one known to fail them makes every
//!   specialization fail ([`PropertyStore::tag_down`]).
//! - [`prop::PRUNED`] is **up-closed**: a transformation whose proven lower bound of the
//!   information loss cannot beat the best loss excludes its generalizations too (the bounds are
//!   monotonic along generalization).
//!
//! Single-node marks are not properties of a store: whether a transformation was checked, and
//! its verdict when the models are not monotonic (so nothing may be tagged), live in the
//! search's result cache (`algorithms::search`).

mod antichain;
mod dense;
mod space;

pub use antichain::{Antichain, MinimalSet, MAX_DIMS};
pub use dense::Dense;
pub use space::{LevelNodes, NodeId, OrderKey, Space};

/// The highest level a hierarchy may have (levels 0 to 255, a value's row at most 256 columns):
/// the antichain store keeps levels in bytes, so a space with a taller hierarchy has no store
/// for the searches that need one. The hierarchy builders refuse to build taller ones
/// (`hierarchy::build::mask`), so a built hierarchy always fits.
pub const MAX_LEVEL: usize = 255;

/// Property bits (combine with `|` in queries).
pub mod prop {
    /// Known to satisfy the privacy models (checked or tagged). Up-closed.
    pub const ANONYMOUS: u8 = 2;
    /// Known not to satisfy them (checked or tagged). Down-closed.
    pub const NOT_ANONYMOUS: u8 = 4;
    /// Either tag: the node's anonymity is known.
    pub const TAGGED: u8 = ANONYMOUS | NOT_ANONYMOUS;
    /// Excluded by a proven lower bound of the information loss (so are its generalizations).
    /// Up-closed.
    pub const PRUNED: u8 = 8;
    /// Nothing more to learn for the classification: tagged or pruned.
    pub const RESOLVED: u8 = TAGGED | PRUNED;
    /// The up-closed properties.
    pub const UP: u8 = ANONYMOUS | PRUNED;
    /// The down-closed properties.
    pub const DOWN: u8 = NOT_ANONYMOUS;
}

/// Where the search keeps its predictive properties. Every property is a closed set (see the
/// module docs): `tag_up` may only set up-closed bits ([`prop::UP`]), `tag_down` only
/// down-closed ones ([`prop::DOWN`]).
pub trait PropertyStore: Send + Sync {
    /// A store for `space` with nothing tagged; `None` if the space is too large for it.
    fn for_space(space: &Space) -> Option<Self>
    where
        Self: Sized;

    /// True if `id` has any of `bits`.
    fn has(&self, id: NodeId, bits: u8) -> bool;

    /// Sets the up-closed `bits` on `id` and every generalization of it.
    fn tag_up(&mut self, id: NodeId, bits: u8);

    /// Sets the down-closed `bits` on `id` and every specialization of it.
    fn tag_down(&mut self, id: NodeId, bits: u8);

    /// Elements the store keeps per property, for the report: the antichains' sizes, or for a
    /// dense store the number of transformations having the property.
    fn sizes(&self) -> StoreSizes;

    /// The store's name in reports ("dense", "antichain").
    fn name(&self) -> &'static str;
}

/// How many elements a store keeps for each property (see [`PropertyStore::sizes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct StoreSizes {
    pub anonymous: u64,
    pub not_anonymous: u64,
    pub pruned: u64,
}

#[cfg(test)]
mod tests;
