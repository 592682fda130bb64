//! Privacy models: k-anonymity, l-diversity, t-closeness, δ-presence.
//!
//! The models with a sensitive attribute are pure functions over class distributions ([`distribution::Distribution`]) (and,
//! for t-closeness, the table's distribution), shared by every engine: the Flash checker and the
//! UT Dallas Incognito_L / Incognito_T call the same code, choosing whose arithmetic to follow with
//! a [`Flavor`]. `anonbox audit` uses [`Flavor::Exact`].

pub mod delta;
pub mod distribution;
pub mod ldiversity;
pub mod properties;
pub mod tcloseness;

pub use properties::Flavor;
