//! UT Dallas value generalization hierarchies: interval trees and category maps.
//!
//! A VGH is a tree of intervals written in the XML (`[0:100)` -> `[0:50)` -> `[0:25)`). Raw values
//! are points: numbers as written, or the mapped integer of a category. A raw value's first
//! generalization is the first leaf, in breadth-first order, whose interval contains the point;
//! after that it climbs the tree. Labels are printed verbatim as written in the XML; a raw point is
//! printed `[` + Java `Double.toString(x)` + `]` (`[73.0]`). See `../shared/UTD-TOOLBOX.md` §4.
//!
//! The parser lives in `config::utd_xml`; this module holds the types and the interval logic.

/// An interval of the toolbox's notation: `[a:b]`, `[a:b)`, `(a:b]`, `(a:b)`, `[v]`, or `v`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    pub low_closed: bool,
    pub high_closed: bool,
}

/// A VGH node: its label as written, its interval, its children.
#[derive(Debug, Clone, PartialEq)]
pub struct VghNode {
    pub label: String,
    pub interval: Interval,
    pub children: Vec<VghNode>,
}

/// A category map (`<map><entry cat='Female' int='0'/>...`): category -> integer.
/// Duplicate categories: the last one wins, as in the toolbox.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CategoryMap {
    /// Entries in document order (after duplicates were resolved).
    pub entries: Vec<(String, i64)>,
}

/// The VGH of one quasi-identifier.
#[derive(Debug, Clone, PartialEq)]
pub struct Vgh {
    pub root: VghNode,
    /// Present for categorical attributes.
    pub map: Option<CategoryMap>,
}
