//! The roles of the input's columns, as a load reads them: quasi-identifiers with how their
//! values generalize ([`Generalization`]), sensitive attributes with their category map or
//! hierarchy. The config builds them (in `<qid>` and `<sens>` order); [`super::load`] encodes
//! the columns they name. A [`Source`] is the input file with its layout and these roles: what a
//! load, and the research subset's reader beside it, read.

use std::path::{Path, PathBuf};

use crate::hierarchy::build::Builder;
use crate::hierarchy::vgh::{CategoryMap, Vgh};
use crate::hierarchy::Hierarchy;
use crate::io::Format;

/// How a quasi-identifier's values generalize.
#[derive(Debug, Clone)]
pub enum Generalization {
    /// A UT Dallas interval VGH, with a category map for categorical attributes.
    Vgh(Vgh),
    /// An ARX hierarchy file, already parsed and validated (the domain is its rows).
    File { path: PathBuf, hierarchy: Hierarchy },
    /// A hierarchy builder of the config (`<intervals .../>`), checked; it runs on the
    /// column's distinct values while the data is loaded ([`super::load`]), so a value it
    /// refuses is a data error at its line.
    Built(Box<Builder>),
}

impl Generalization {
    /// The number of levels of the hierarchy (the value up to the top), where the config alone
    /// decides it: a hierarchy file's columns, a `<vgh>`'s depth (leaves at equal depth, as
    /// the full-domain methods require), a builder's levels when its description fixes them
    /// ([`Builder::levels`]); `None` for a builder whose levels follow the data (`mask`
    /// without `length`), known once the column is loaded.
    pub fn levels(&self) -> Option<usize> {
        match self {
            Generalization::Vgh(vgh) => Some(vgh.levels()),
            Generalization::File { hierarchy, .. } => Some(hierarchy.levels()),
            Generalization::Built(builder) => builder.levels(),
        }
    }
}

/// A quasi-identifier, in `<qid>` order.
#[derive(Debug, Clone)]
pub struct QuasiIdentifier {
    /// 0-based column index in the input row.
    pub index: usize,
    /// Header name, or `att<index>` without a header.
    pub name: String,
    pub generalization: Generalization,
}

/// A sensitive attribute, in `<sens>` order.
#[derive(Debug, Clone)]
pub struct SensitiveAttribute {
    pub index: usize,
    pub name: String,
    /// Category map (`<map>`): categorical; without one, values are numbers.
    pub map: Option<CategoryMap>,
    /// Hierarchy file, where a distance (hierarchical t-closeness) needs one.
    pub hierarchy: Option<(PathBuf, Hierarchy)>,
}

/// What a load reads: the input file, how it is laid out, and the roles of its columns.
#[derive(Debug, Clone)]
pub struct Source<'a> {
    pub path: &'a Path,
    pub format: Format,
    /// Identifier columns: a load only checks that they exist.
    pub ids: &'a [usize],
    pub qids: &'a [QuasiIdentifier],
    pub sensitive: &'a [SensitiveAttribute],
}
