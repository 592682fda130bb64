//! What the writers read: the generalized label of every quasi-identifier of every kept record.
//!
//! Both backends produce it and every writer consumes it, so it belongs to neither: the SQLite
//! store streams its classes' labels as a [`LabelSource`] (`store::StoreLabels`), the in-memory
//! engine computes them from codes and levels (`output::FullDomainLabels`), and the writers of
//! `output` take any source.

use crate::Result;

/// The labels of one record's quasi-identifiers (in `<qid>` order), in one reused buffer.
#[derive(Debug, Clone, Default)]
pub struct LabelRow {
    buf: Vec<u8>,
    ends: Vec<usize>,
    omitted: bool,
    suppressed: bool,
}

impl LabelRow {
    pub fn new() -> LabelRow {
        LabelRow::default()
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.ends.clear();
        self.omitted = false;
        self.suppressed = false;
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

    /// Marks the record as suppressed (released with its suppression labels), where the source
    /// knows it (a full-domain result in memory): the in-memory release reports it per row.
    pub fn suppress(&mut self) {
        self.suppressed = true;
    }

    /// True if the source marked the record as suppressed.
    pub fn is_suppressed(&self) -> bool {
        self.suppressed
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
