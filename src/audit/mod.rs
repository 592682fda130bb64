//! `anonbox audit`: the privacy figures of a delimited file as it stands.
pub mod figures;
