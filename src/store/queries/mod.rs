//! Each method's SQL, as typed functions: the methods of `algorithms` and the writers of
//! `output` say what they read or write (a tuple's codes and count, a class's labels, a
//! record's group) and never see a statement or the connection.
//!
//! - [`tuples`]: reads of `QidTuple` shared by the methods that work on tuples (Datafly and
//!   Incognito in memory, Mondrian's passes).
//! - [`datafly`]: Datafly's SQL backend, a working copy of the tuples generalized in place.
//! - [`incognito`]: Incognito's sensitive distributions and its SQL backend, one `GROUP BY` per
//!   lattice node.
//! - [`anatomy`]: Anatomy's records by sensitive value and its SQL backend's picks.
//! - [`output`]: what the anatomy and genValsDist writers read: each record's class and the
//!   classes' statistics.
//! - [`figures`]: what the report measures on a release: each released class's sensitive
//!   values.
//!
//! A method's working tables are `temp.` tables named for it, created and dropped by the type
//! that owns them; writes that belong together run in a [`super::Transaction`].

pub mod anatomy;
pub mod datafly;
pub mod figures;
pub mod incognito;
pub mod output;
pub mod tuples;
