//! The dictionary-encoded table of the in-memory engine.

use crate::hierarchy::Hierarchy;

/// A sensitive attribute as codes, with what distances need.
#[derive(Debug, Clone)]
pub struct SensitiveColumn {
    pub name: String,
    /// `codes[row]`: code into `values`.
    pub codes: Vec<u32>,
    /// Distinct values by code.
    pub values: Vec<String>,
    /// Numeric value of each code, where the attribute is numeric (ordered distance).
    pub numeric: Option<Vec<f64>>,
    /// Hierarchy over the codes (level 0 ids = codes), for hierarchical distance.
    pub hierarchy: Option<Hierarchy>,
}

/// Quasi-identifiers as leaf codes, row-major, plus hierarchies and sensitive columns.
#[derive(Debug, Clone)]
pub struct EncodedTable {
    rows: usize,
    /// `qi[row * width + column]`: leaf code of quasi-identifier `column` in `row`.
    qi: Vec<u32>,
    /// One hierarchy per quasi-identifier, in quasi-identifier order.
    pub hierarchies: Vec<Hierarchy>,
    pub sensitive: Vec<SensitiveColumn>,
}

impl EncodedTable {
    /// Builds a table from row-major codes; `qi.len()` must be `rows * hierarchies.len()` and
    /// every code must be a leaf of its column's hierarchy.
    pub fn new(
        qi: Vec<u32>,
        hierarchies: Vec<Hierarchy>,
        sensitive: Vec<SensitiveColumn>,
    ) -> EncodedTable {
        let width = hierarchies.len().max(1);
        assert_eq!(
            qi.len() % width,
            0,
            "row-major codes do not fill whole rows"
        );
        let rows = if hierarchies.is_empty() {
            0
        } else {
            qi.len() / width
        };
        for (i, &c) in qi.iter().enumerate() {
            debug_assert!((c as usize) < hierarchies[i % width].leaves());
        }
        EncodedTable {
            rows,
            qi,
            hierarchies,
            sensitive,
        }
    }

    /// Number of records.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of quasi-identifiers.
    pub fn width(&self) -> usize {
        self.hierarchies.len()
    }

    /// Leaf codes of one row.
    #[inline]
    pub fn row(&self, r: usize) -> &[u32] {
        let w = self.width();
        &self.qi[r * w..(r + 1) * w]
    }

    /// All codes, row-major.
    pub fn codes(&self) -> &[u32] {
        &self.qi
    }
}
