//! Generalization hierarchies: where they come from, and the one form the engines see.
//!
//! Three sources, a module each, all ending here as a [`Hierarchy`]:
//! - [`file`]: ARX hierarchy files (`value;level1;level2;...`), read and written: the domain is
//!   the file's rows, in file order, whether or not the data contains them.
//! - [`vgh`]: UT Dallas VGHs (interval trees in the XML, parsed by `config::utd_xml`): the
//!   domain is the distinct raw values of the data, labelled as the toolbox prints them
//!   (`[73.0]`), each mapped to the first breadth-first leaf interval containing it, then up the
//!   tree.
//! - [`build`]: the builders (intervals, mask, dates, categories), ARX rows from a column's
//!   distinct values: written to a file by `anonbox hierarchy` and `anonbox init`, or run while
//!   the data is loaded for a config's builder element (the domain: the data's values).
//!
//! A [`Hierarchy`] is the ARX representation: a 2-D array `map[code][level]` of integer ids, where
//! `code` is the dictionary code of an original (level-0) value, `0..leaves()`, and the result is
//! the id of its generalization *at that level*. Ids are per level: level `l` has
//! `labels[l].len()` distinct values with ids `0..`, and level 0's ids are the codes themselves.
//! Per-level ids keep metrics simple (a count or a domain share per id and level).
//!
//! Nothing after loading looks at labels except the output writers.

pub mod build;
pub mod file;
pub mod vgh;

use crate::data::Interner;

/// An encoded generalization hierarchy for one attribute.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    /// Attribute name (header name, or `att<index>`).
    pub name: String,
    /// Number of levels, including level 0 (the original values). At least 1.
    levels: usize,
    /// `labels[level].get(id)`: the printed form of each distinct value at each level.
    labels: Vec<Interner>,
    /// Row-major `leaves() x levels`: `map[code * levels + level]` = id at `level`.
    map: Vec<u32>,
    /// Lines of the hierarchy file per leaf, when a file repeats identical lines (empty: one
    /// each). ARX counts every line in the Loss metric's domain size and shares; so do we.
    repeats: Vec<u32>,
}

impl Hierarchy {
    /// Builds a hierarchy from per-leaf label paths: `rows[code][level]` is the label of leaf `code`
    /// at `level` (level 0 = the original value). All rows must have the same length >= 1.
    /// Ids at each level are assigned in order of first appearance.
    pub fn from_label_rows<R: AsRef<[String]>>(
        name: impl Into<String>,
        rows: impl IntoIterator<Item = R>,
    ) -> Hierarchy {
        let mut rows = rows.into_iter().peekable();
        let levels = rows.peek().map_or(1, |r| r.as_ref().len()).max(1);
        let mut built = LabelRows::new(levels);
        let mut ids = Vec::with_capacity(levels);
        for row in rows {
            let row = row.as_ref();
            debug_assert_eq!(row.len(), levels);
            built.intern(row.iter().map(String::as_str), &mut ids);
            built.push(&ids);
        }
        built.finish(name)
    }

    /// Sets how many file lines each leaf had (see the field's docs); all ones is the default.
    pub fn with_repeats(mut self, repeats: Vec<u32>) -> Hierarchy {
        debug_assert_eq!(repeats.len(), self.leaves());
        self.repeats = if repeats.iter().all(|&r| r == 1) {
            Vec::new()
        } else {
            repeats
        };
        self
    }

    /// How many lines of its hierarchy file leaf `code` had (1 unless lines were repeated).
    pub fn repeats(&self, code: u32) -> u64 {
        self.repeats.get(code as usize).map_or(1, |&r| r as u64)
    }

    /// Lines of the hierarchy file (leaves, counting repeated lines).
    pub fn lines(&self) -> u64 {
        if self.repeats.is_empty() {
            self.leaves() as u64
        } else {
            self.repeats.iter().map(|&r| r as u64).sum()
        }
    }

    /// Number of levels (height + 1 in ARX's terms: a file with c columns has c levels).
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// Highest level index (`levels() - 1`).
    pub fn max_level(&self) -> usize {
        self.levels - 1
    }

    /// Number of original values (leaf codes).
    pub fn leaves(&self) -> usize {
        self.labels[0].len()
    }

    /// Number of distinct values at `level`.
    pub fn width(&self, level: usize) -> usize {
        self.labels[level].len()
    }

    /// Id of leaf `code` generalized to `level`.
    #[inline]
    pub fn get(&self, code: u32, level: usize) -> u32 {
        self.map[code as usize * self.levels + level]
    }

    /// The generalization path of one leaf: ids at levels `0..levels()`.
    #[inline]
    pub fn row(&self, code: u32) -> &[u32] {
        let s = code as usize * self.levels;
        &self.map[s..s + self.levels]
    }

    /// Printed label of id `id` at `level`.
    pub fn label(&self, level: usize, id: u32) -> &str {
        self.labels[level].get(id)
    }

    /// All labels at `level`, by id.
    pub fn labels(&self, level: usize) -> &Interner {
        &self.labels[level]
    }

    /// Code of an original value, if it is in the domain.
    pub fn code_of(&self, value: &str) -> Option<u32> {
        self.labels[0].find(value.as_bytes())
    }

    /// True if every group at level `l + 1` is a union of groups at level `l` (ARX's
    /// monotonicity requirement): each id at level `l` has a single parent at `l + 1`.
    /// Returns the first offending (level, label) otherwise.
    pub fn check_monotonic(&self) -> std::result::Result<(), (usize, String)> {
        for level in 0..self.levels.saturating_sub(1) {
            let mut parent = vec![u32::MAX; self.width(level)];
            for code in 0..self.leaves() as u32 {
                let (a, b) = (self.get(code, level), self.get(code, level + 1));
                let p = &mut parent[a as usize];
                if *p == u32::MAX {
                    *p = b;
                } else if *p != b {
                    return Err((level, self.label(level, a).to_string()));
                }
            }
        }
        Ok(())
    }
}

/// A hierarchy being read or built, one row at a time: each row's labels are interned level by
/// level (ids in order of first appearance), and the rows pushed become the leaves in order.
///
/// Each label is held once, in its level's [`Interner`], so a hierarchy of two million
/// timestamps never holds its labels twice, nor all its rows as strings (reading such a file
/// as rows of strings first took 700 MB).
pub struct LabelRows {
    labels: Vec<Interner>,
    /// Row-major ids of the rows pushed (see [`Hierarchy`]'s `map`).
    map: Vec<u32>,
}

impl LabelRows {
    /// An empty hierarchy of `levels` levels (at least 1).
    pub fn new(levels: usize) -> LabelRows {
        LabelRows {
            labels: vec![Interner::new(); levels.max(1)],
            map: Vec::new(),
        }
    }

    /// The ids of a row's labels, level by level, into `ids`; a label new at its level gets
    /// the next id. A row shorter than the levels leaves the rest out; extra labels are ignored.
    pub fn intern<'r>(&mut self, row: impl IntoIterator<Item = &'r str>, ids: &mut Vec<u32>) {
        ids.clear();
        for (label, labels) in row.into_iter().zip(&mut self.labels) {
            ids.push(labels.intern(label).0);
        }
    }

    /// Rows pushed so far.
    pub fn rows(&self) -> usize {
        self.map.len() / self.labels.len()
    }

    /// Distinct labels at `level` so far (at level 0: values seen, pushed or not).
    pub fn width(&self, level: usize) -> usize {
        self.labels[level].len()
    }

    /// The ids of pushed row `row`.
    pub fn row(&self, row: usize) -> &[u32] {
        let levels = self.labels.len();
        &self.map[row * levels..(row + 1) * levels]
    }

    /// The label of `id` at `level`.
    pub fn label(&self, level: usize, id: u32) -> &str {
        self.labels[level].get(id)
    }

    /// Appends the row of `ids` (from [`LabelRows::intern`]) as the next leaf: its level-0
    /// label must be new.
    pub fn push(&mut self, ids: &[u32]) {
        debug_assert_eq!(ids.len(), self.labels.len());
        debug_assert_eq!(
            ids[0] as usize,
            self.rows(),
            "leaves in order of first appearance"
        );
        self.map.extend_from_slice(ids);
    }

    /// The hierarchy of the rows pushed.
    pub fn finish(self, name: impl Into<String>) -> Hierarchy {
        Hierarchy {
            name: name.into(),
            levels: self.labels.len(),
            labels: self.labels,
            map: self.map,
            repeats: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(v: &[&[&str]]) -> Vec<Vec<String>> {
        v.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn encodes_levels_with_per_level_ids() {
        let h = Hierarchy::from_label_rows(
            "age",
            rows(&[
                &["34", "<50", "*"],
                &["45", "<50", "*"],
                &["66", ">=50", "*"],
            ]),
        );
        assert_eq!(h.levels(), 3);
        assert_eq!(h.leaves(), 3);
        assert_eq!(h.width(1), 2);
        assert_eq!(h.get(2, 1), 1);
        assert_eq!(h.label(1, h.get(1, 1)), "<50");
        assert_eq!(h.get(0, 2), h.get(2, 2));
        assert!(h.check_monotonic().is_ok());
    }

    #[test]
    fn detects_non_monotonic() {
        let h = Hierarchy::from_label_rows("x", rows(&[&["a", "g", "1"], &["b", "g", "2"]]));
        assert_eq!(h.check_monotonic(), Err((1, "g".to_string())));
    }
}
