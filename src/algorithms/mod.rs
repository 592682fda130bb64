//! Anonymization methods.

pub mod anatomy;
pub mod incognito;
pub mod mondrian;
