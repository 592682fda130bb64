//! The dictionary-encoded table of the in-memory engine.
//!
//! With δ-presence the table is the *population* and a research subset of its records is what
//! gets released ([`EncodedTable::with_subset`]). Following ARX, every figure of the released data
//! is computed on the subset's records only: class sizes (k, the metrics, suppression), the
//! distributions of sensitive attributes and the suppression budget. The population enters only
//! through δ, via the membership column the subset adds to [`EncodedTable::sensitive`], whose
//! per-class distribution counts *all* records of a class: code 1 the subset's, code 0 the others.

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
    /// The research subset: `members[row]`, and the index of its membership column in
    /// `sensitive`. `None`: every record is released.
    subset: Option<Subset>,
}

#[derive(Debug, Clone)]
struct Subset {
    members: Vec<bool>,
    column: usize,
    records: usize,
}

/// Name of the membership column that [`EncodedTable::with_subset`] appends.
pub const SUBSET_COLUMN: &str = "(research subset)";

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
            subset: None,
        }
    }

    /// The same table as the population of a research subset: `members[row]` says whether the
    /// record belongs to the subset (and is released). Appends the membership column (codes 1
    /// for members, 0 for the others; named [`SUBSET_COLUMN`]) to `sensitive`.
    pub fn with_subset(mut self, members: Vec<bool>) -> EncodedTable {
        assert_eq!(members.len(), self.rows, "one membership flag per record");
        let column = self.sensitive.len();
        self.sensitive.push(SensitiveColumn {
            name: SUBSET_COLUMN.to_string(),
            codes: members.iter().map(|&m| u32::from(m)).collect(),
            values: vec!["0".to_string(), "1".to_string()],
            numeric: None,
            hierarchy: None,
        });
        let records = members.iter().filter(|&&m| m).count();
        self.subset = Some(Subset {
            members,
            column,
            records,
        });
        self
    }

    /// Membership of each record in the research subset, if the table has one.
    pub fn subset(&self) -> Option<&[bool]> {
        self.subset.as_ref().map(|s| s.members.as_slice())
    }

    /// Index in [`sensitive`](Self::sensitive) of the membership column, if the table has a
    /// research subset.
    pub fn subset_column(&self) -> Option<usize> {
        self.subset.as_ref().map(|s| s.column)
    }

    /// True if record `r` is released: it is in the research subset, or there is none.
    #[inline]
    pub fn is_released(&self, r: usize) -> bool {
        self.subset.as_ref().is_none_or(|s| s.members[r])
    }

    /// Number of released records: the research subset's size, else [`rows`](Self::rows).
    pub fn records(&self) -> usize {
        self.subset.as_ref().map_or(self.rows, |s| s.records)
    }

    /// Number of records (the population, with a research subset).
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
