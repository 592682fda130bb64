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

impl Interval {
    /// Parses the toolbox's notation (see module docs). Errors: `Empty interval (...)!`-style text.
    pub fn parse(_s: &str) -> Result<Interval, String> {
        todo!("config helper")
    }

    /// True if the point `x` lies in the interval.
    pub fn contains_point(&self, _x: f64) -> bool {
        todo!("config helper")
    }

    /// True if `other` lies within `self` (the toolbox's `Interval.contains`).
    pub fn contains(&self, _other: &Interval) -> bool {
        todo!("config helper")
    }
}

impl CategoryMap {
    /// The integer of a (trimmed) category.
    pub fn get(&self, _category: &str) -> Option<i64> {
        todo!("config helper")
    }
}

impl Vgh {
    /// The point of a raw field: trimmed; a category's mapped integer, or the parsed number.
    /// Errors name the problem (`unmapped category 'X'`, `'X' is not a number`).
    pub fn point(&self, _raw: &str) -> Result<f64, String> {
        todo!("config helper")
    }

    /// The labels of a point from level 0 to the root: level 0 is the raw point label
    /// ([`point_label`]), level 1 the first breadth-first leaf containing it (skipped when that
    /// leaf is a singleton, which then coincides with level 0), then its ancestors up to the
    /// root. `None` if no leaf contains the point. With leaves at equal depth every path has
    /// [`Vgh::levels`] labels.
    pub fn path(&self, _x: f64) -> Option<Vec<String>> {
        todo!("config helper")
    }

    /// Number of levels of the full-domain lattice including level 0 (the toolbox's
    /// "levels" + 1): the repo's age VGH (leaves at depth 2) has 4, `<vgh value='[0:1]'/>` has 2.
    pub fn levels(&self) -> usize {
        todo!("config helper")
    }

    /// True if all leaves are at the same depth (required by full-domain methods).
    pub fn leaves_at_equal_depth(&self) -> bool {
        todo!("config helper")
    }

    /// The root's label: the suppression value.
    pub fn root_label(&self) -> &str {
        &self.root.label
    }
}

/// The printed form of a raw point: `[` + Java `Double.toString(x)` + `]`, e.g. `[73.0]`.
pub fn point_label(x: f64) -> String {
    format!("[{}]", crate::javafmt::double_to_string(x))
}
