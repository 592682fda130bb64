//! Writers of the results: genVals ([`genvals`]) and the JSON report ([`report`]).
//!
//! Writers do not know where the anonymization happened. A backend hands them a
//! [`LabelSource`] (defined in [`crate::data::labels`], which both backends and the writers
//! share): the generalized label of every quasi-identifier of every kept record, in input
//! order. The SQLite store streams them from `EquivalenceTable` ([`crate::store::StoreLabels`]);
//! the in-memory engine computes them from codes, levels and suppressed rows
//! ([`FullDomainLabels`]). Each writer re-reads the input for the other columns.

pub mod anatomy;
pub mod columnar;
pub mod genvals;
pub mod genvalsdist;
pub mod html;
pub mod report;
pub mod summary;
pub mod verdict;

pub use crate::data::labels::{LabelRow, LabelSource};
pub use report::{Elapsed, Report};

use crate::data::EncodedTable;
use crate::job::OutputFormat;
use crate::Result;

/// Labels of a full-domain transformation over an in-memory [`EncodedTable`]: each record's
/// codes at `levels`, or the suppression labels for suppressed records. With a research subset
/// only its records are released (as in ARX); the others are omitted. Records left out of a
/// random sample (differential privacy) are released suppressed, as ARX releases them.
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
            let unsampled = !self.table.is_released(r) && self.table.is_sample();
            if !self.table.is_released(r) && !unsampled {
                row.omit();
            } else if unsampled || self.suppressed.get(r).copied().unwrap_or(false) {
                row.suppress();
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

/// Labels of a partition of an in-memory [`EncodedTable`] whose classes publish labels of their
/// own (Mondrian over hierarchies): each record prints its tuple's class's labels,
/// `labels[class * width + q]`. Records outside a research subset are omitted.
pub struct PartitionLabels<'a> {
    pub table: &'a EncodedTable,
    /// `tuple_class[tuple]`: the class of each distinct tuple.
    pub tuple_class: &'a [u32],
    pub labels: &'a [String],
}

impl LabelSource for PartitionLabels<'_> {
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        let mut row = LabelRow::new();
        let width = self.table.width();
        for r in 0..self.table.rows() {
            row.clear();
            if !self.table.is_released(r) {
                row.omit();
            } else {
                let c = self.tuple_class[self.table.tuple_of(r)] as usize;
                for l in &self.labels[c * width..(c + 1) * width] {
                    row.push(l.as_bytes());
                }
            }
            f(&row)?;
        }
        Ok(())
    }
}

/// Labels of a cell suppression ([`crate::algorithms::cells`]): each record prints its
/// tuple's class's labels (`labels[class * width + q]`, blanked cells printing the suppression
/// label); a tuple in no class ([`crate::algorithms::cells::SUPPRESSED`]) prints the
/// suppression labels as a suppressed record. Records outside a research subset are omitted.
pub struct CellLabels<'a> {
    pub table: &'a EncodedTable,
    pub tuple_class: &'a [u32],
    pub labels: &'a [String],
    pub suppression_labels: &'a [String],
}

impl LabelSource for CellLabels<'_> {
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        let mut row = LabelRow::new();
        let width = self.table.width();
        for r in 0..self.table.rows() {
            row.clear();
            let c = self.tuple_class[self.table.tuple_of(r)];
            if !self.table.is_released(r) {
                row.omit();
            } else if c == crate::algorithms::cells::SUPPRESSED {
                row.suppress();
                for l in self.suppression_labels {
                    row.push(l.as_bytes());
                }
            } else {
                let c = c as usize;
                for l in &self.labels[c * width..(c + 1) * width] {
                    row.push(l.as_bytes());
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
