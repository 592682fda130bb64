//! Writers of the results: genVals ([`genvals`]) and the JSON report ([`report`]).
//!
//! Writers do not know where the anonymization happened. A backend hands them a
//! [`LabelSource`]: the generalized label of every quasi-identifier of every kept record, in
//! input order. The SQLite store streams them from `EquivalenceTable`
//! ([`crate::store::StoreLabels`]); the in-memory engine computes them from codes, levels and
//! suppressed rows ([`FullDomainLabels`]). Each writer re-reads the input for the other columns.

pub mod anatomy;
pub mod genvals;
pub mod genvalsdist;
pub mod html;
pub mod report;
pub mod summary;

pub use report::{Elapsed, Report};

use crate::data::EncodedTable;
use crate::job::OutputFormat;
use crate::Result;

/// The labels of one record's quasi-identifiers (in `<qid>` order), in one reused buffer.
#[derive(Debug, Clone, Default)]
pub struct LabelRow {
    buf: Vec<u8>,
    ends: Vec<usize>,
    omitted: bool,
}

impl LabelRow {
    pub fn new() -> LabelRow {
        LabelRow::default()
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.ends.clear();
        self.omitted = false;
    }

    /// Marks the record as not released: writers skip it (a population record outside the
    /// research subset of δ-presence).
    pub fn omit(&mut self) {
        self.omitted = true;
    }

    /// True if the record is not released.
    pub fn is_omitted(&self) -> bool {
        self.omitted
    }

    /// Appends the next quasi-identifier's label.
    #[inline]
    pub fn push(&mut self, label: &[u8]) {
        self.buf.extend_from_slice(label);
        self.ends.push(self.buf.len());
    }

    /// The label of quasi-identifier `q`.
    #[inline]
    pub fn get(&self, q: usize) -> &[u8] {
        let start = if q == 0 { 0 } else { self.ends[q - 1] };
        &self.buf[start..self.ends[q]]
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

/// The generalized quasi-identifiers of every kept record, in input order.
pub trait LabelSource {
    /// Calls `f` once per kept record, in input order.
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()>;
}

/// Labels of a full-domain transformation over an in-memory [`EncodedTable`]: each record's
/// codes at `levels`, or the suppression labels for suppressed records. With a research subset
/// only its records are released (as in ARX); the others are omitted.
pub struct FullDomainLabels<'a> {
    pub table: &'a EncodedTable,
    /// Level per quasi-identifier.
    pub levels: &'a [usize],
    /// `suppressed[row]`: the record is suppressed.
    pub suppressed: &'a [bool],
    /// What each quasi-identifier of a suppressed record prints.
    pub suppression_labels: &'a [String],
}

impl LabelSource for FullDomainLabels<'_> {
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        let mut row = LabelRow::new();
        for r in 0..self.table.rows() {
            row.clear();
            if !self.table.is_released(r) {
                row.omit();
            } else if self.suppressed.get(r).copied().unwrap_or(false) {
                for l in self.suppression_labels {
                    row.push(l.as_bytes());
                }
            } else {
                for ((code, h), &level) in self
                    .table
                    .row(r)
                    .zip(&self.table.hierarchies)
                    .zip(self.levels)
                {
                    row.push(h.label(level, h.get(code, level)).as_bytes());
                }
            }
            f(&row)?;
        }
        Ok(())
    }
}

/// The canonical name of an output format (`genVals`).
pub fn format_name(f: OutputFormat) -> &'static str {
    match f {
        OutputFormat::GenVals => "genVals",
        OutputFormat::GenValsDist => "genValsDist",
        OutputFormat::Anatomy => "anatomy",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_row_slices() {
        let mut r = LabelRow::new();
        r.push(b"[0:100)");
        r.push(b"");
        r.push(b"*");
        assert_eq!(r.len(), 3);
        assert_eq!(r.get(0), b"[0:100)");
        assert_eq!(r.get(1), b"");
        assert_eq!(r.get(2), b"*");
        r.clear();
        assert!(r.is_empty());
    }
}
