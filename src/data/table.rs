//! The dictionary-encoded table of the in-memory engine.
//!
//! With δ-presence the table is the *population* and a research subset of its records is what
//! gets released ([`EncodedTable::with_subset`]). Following ARX, every figure of the released data
//! is computed on the subset's records only: class sizes (k, the metrics, suppression), the
//! distributions of sensitive attributes and the suppression budget. The population enters only
//! through δ, via the membership column the subset adds to [`EncodedTable::sensitive`], whose
//! per-class distribution counts *all* records of a class: code 1 the subset's, code 0 the others.

use super::{Codes, Column};
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

/// Quasi-identifiers as the distinct tuples of the input (column-major leaf codes) and the tuple
/// of every record, plus hierarchies and sensitive columns.
///
/// Storing each distinct tuple once and a record as the index of its tuple (4 bytes) is what
/// keeps memory bounded by distinct tuples rather than rows; the checker groups these tuples
/// directly (they are its items, see `check::encode`), so the codes exist once in memory.
/// Tuples are numbered in order of first appearance among the records.
#[derive(Debug, Clone)]
pub struct EncodedTable {
    rows: usize,
    /// `columns[j]`: leaf codes of quasi-identifier `j` by distinct tuple.
    columns: Vec<Column>,
    /// `record_tuple[r]`: the distinct tuple of record `r`.
    record_tuple: Vec<u32>,
    /// One hierarchy per quasi-identifier, in quasi-identifier order.
    pub hierarchies: Vec<Hierarchy>,
    pub sensitive: Vec<SensitiveColumn>,
    /// The research subset: `members[row]`, and the index of its membership column in
    /// `sensitive`. `None`: every record is released.
    subset: Option<Subset>,
}

/// Builds the distinct tuples of a table one record at a time (the in-memory loader's sink):
/// an open-addressing table of tuple indexes (linear probing, at most 3/4 full: 5 to 7 bytes a
/// distinct tuple), dropped by [`finish`](Self::finish). Hashes are recomputed from the columns
/// when the table grows rather than kept (8 bytes a tuple more, at the load's peak).
#[derive(Debug)]
pub struct TupleBuilder {
    columns: Vec<Column>,
    record_tuple: Vec<u32>,
    /// Tuple index + 1; 0 = empty.
    slots: Vec<u32>,
    bits: u32,
    /// Scratch codes of one tuple (for rehashing).
    codes: Vec<u32>,
}

impl TupleBuilder {
    pub fn new(width: usize) -> TupleBuilder {
        TupleBuilder {
            columns: vec![Column::new(); width],
            record_tuple: Vec::new(),
            slots: vec![0; 1 << 12],
            bits: 12,
            codes: Vec::with_capacity(width),
        }
    }

    fn tuples(&self) -> usize {
        self.columns.first().map_or(0, Column::len)
    }

    fn hash(codes: &[u32]) -> u64 {
        let mut h = 0u64;
        for pair in codes.chunks(2) {
            let w = pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 32;
            h = (h.rotate_left(29) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        h
    }

    /// Adds a record with the leaf codes `codes` (one per quasi-identifier).
    pub fn push(&mut self, codes: &[u32]) {
        debug_assert_eq!(codes.len(), self.columns.len());
        if (self.tuples() + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let h = Self::hash(codes);
        let mask = self.slots.len() - 1;
        let mut i = (h >> (64 - self.bits)) as usize;
        let tuple = loop {
            let s = self.slots[i];
            if s == 0 {
                let t = self.tuples() as u32;
                self.slots[i] = t + 1;
                for (col, &c) in self.columns.iter_mut().zip(codes) {
                    col.push(c);
                }
                break t;
            }
            let t = (s - 1) as usize;
            if self
                .columns
                .iter()
                .zip(codes)
                .all(|(col, &c)| col.get(t) == c)
            {
                break t as u32;
            }
            i = (i + 1) & mask;
        };
        self.record_tuple.push(tuple);
    }

    /// Adds `n` records with the leaf codes `codes` (a frequency set's group and its count).
    pub fn push_n(&mut self, codes: &[u32], n: u64) {
        if n == 0 {
            return;
        }
        self.push(codes);
        let t = *self.record_tuple.last().expect("pushed");
        self.record_tuple
            .extend(std::iter::repeat_n(t, (n - 1) as usize));
    }

    /// [`push_n`](Self::push_n) for a caller that knows `codes` to be either the tuple added
    /// last or one not added before (sorted groups whose codes each name one value): no
    /// lookup, and the lookup table is dropped. A later `push` rebuilds it.
    pub fn push_sorted_n(&mut self, codes: &[u32], n: u64) {
        if n == 0 {
            return;
        }
        if !self.slots.is_empty() {
            self.slots = Vec::new();
        }
        let tuples = self.tuples();
        let last = tuples.checked_sub(1);
        let t = match last {
            Some(t) if self.columns.iter().zip(codes).all(|(c, &x)| c.get(t) == x) => t,
            _ => {
                for (col, &c) in self.columns.iter_mut().zip(codes) {
                    col.push(c);
                }
                tuples
            }
        };
        self.record_tuple
            .extend(std::iter::repeat_n(t as u32, n as usize));
    }

    #[cold]
    fn grow(&mut self) {
        // At most 3/4 full, with room for the next tuple (after `push_sorted_n`, the table
        // may be rebuilt for many tuples at once).
        self.bits += 1;
        while (self.tuples() + 1) * 4 > (3usize << self.bits) {
            self.bits += 1;
        }
        // The old table is freed before the new one is allocated (it is rebuilt from the
        // columns), so the two never add up at the load's peak.
        self.slots = Vec::new();
        self.slots = vec![0; 1 << self.bits];
        let mask = self.slots.len() - 1;
        let mut codes = std::mem::take(&mut self.codes);
        for t in 0..self.tuples() {
            codes.clear();
            codes.extend(self.columns.iter().map(|c| c.get(t)));
            let mut i = (Self::hash(&codes) >> (64 - self.bits)) as usize;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = t as u32 + 1;
        }
        self.codes = codes;
    }

    /// The table of the records pushed, with `hierarchies` (one per quasi-identifier; every
    /// code must be a leaf of its column's) and sensitive columns.
    pub fn finish(
        self,
        hierarchies: Vec<Hierarchy>,
        sensitive: Vec<SensitiveColumn>,
    ) -> EncodedTable {
        assert_eq!(
            hierarchies.len(),
            self.columns.len(),
            "one hierarchy per column"
        );
        let mut columns = self.columns;
        for (col, h) in columns.iter_mut().zip(&hierarchies) {
            col.shrink_to_fit();
            debug_assert!(col.view().iter().all(|c| (c as usize) < h.leaves()));
        }
        let mut record_tuple = self.record_tuple;
        record_tuple.shrink_to_fit();
        EncodedTable {
            rows: if columns.is_empty() {
                0
            } else {
                record_tuple.len()
            },
            columns,
            record_tuple,
            hierarchies,
            sensitive,
            subset: None,
        }
    }
}

#[derive(Debug, Clone)]
struct Subset {
    members: Vec<bool>,
    /// The membership column (δ-presence's research subset; none for a random sample).
    column: Option<usize>,
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
        let mut b = TupleBuilder::new(hierarchies.len());
        if !hierarchies.is_empty() {
            for row in qi.chunks_exact(width) {
                b.push(row);
            }
        }
        b.finish(hierarchies, sensitive)
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
            column: Some(column),
            records,
        });
        self
    }

    /// The same table with a random sample of its records released (differential privacy,
    /// `privacy::differential`): every figure counts the sampled records only, as with a
    /// research subset, but there is no membership column, and the records left out are
    /// released suppressed ([`is_sample`](Self::is_sample)), not omitted.
    pub fn with_sample(mut self, members: Vec<bool>) -> EncodedTable {
        assert_eq!(members.len(), self.rows, "one sampling flag per record");
        let records = members.iter().filter(|&&m| m).count();
        self.subset = Some(Subset {
            members,
            column: None,
            records,
        });
        self
    }

    /// True if the released records are a random sample ([`with_sample`](Self::with_sample)):
    /// the others are released suppressed.
    pub fn is_sample(&self) -> bool {
        self.subset.as_ref().is_some_and(|s| s.column.is_none())
    }

    /// The table of the records `rows` only (ascending), in their order: their distinct tuples
    /// (numbered anew, in order of first appearance), the same hierarchies and sensitive value
    /// codes. A search on it is a search on the sub-frequency set of those records (local
    /// recoding's). Without a research subset (its records and the population would not match).
    pub fn restricted(&self, rows: &[usize]) -> EncodedTable {
        assert!(self.subset.is_none(), "a restricted table has no subset");
        let mut b = TupleBuilder::new(self.width());
        let mut codes = Vec::with_capacity(self.width());
        for &r in rows {
            codes.clear();
            codes.extend(self.row(r));
            b.push(&codes);
        }
        let sensitive = self
            .sensitive
            .iter()
            .map(|s| SensitiveColumn {
                name: s.name.clone(),
                codes: rows.iter().map(|&r| s.codes[r]).collect(),
                values: s.values.clone(),
                numeric: s.numeric.clone(),
                hierarchy: s.hierarchy.clone(),
            })
            .collect();
        b.finish(self.hierarchies.clone(), sensitive)
    }

    /// Membership of each record in the research subset, if the table has one.
    pub fn subset(&self) -> Option<&[bool]> {
        self.subset.as_ref().map(|s| s.members.as_slice())
    }

    /// Index in [`sensitive`](Self::sensitive) of the membership column, if the table has a
    /// research subset.
    pub fn subset_column(&self) -> Option<usize> {
        self.subset.as_ref().and_then(|s| s.column)
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

    /// Number of distinct quasi-identifier tuples.
    pub fn tuples(&self) -> usize {
        self.columns.first().map_or(0, Column::len)
    }

    /// The distinct tuple of each record.
    pub fn record_tuples(&self) -> &[u32] {
        &self.record_tuple
    }

    /// The distinct tuple of record `r`.
    #[inline]
    pub fn tuple_of(&self, r: usize) -> usize {
        self.record_tuple[r] as usize
    }

    /// Leaf codes of quasi-identifier `j`, by tuple.
    pub fn column(&self, j: usize) -> Codes<'_> {
        self.columns[j].view()
    }

    /// The column of quasi-identifier `j` itself.
    pub fn column_codes(&self, j: usize) -> &Column {
        &self.columns[j]
    }

    /// Leaf codes of distinct tuple `t`, in quasi-identifier order.
    #[inline]
    pub fn tuple(&self, t: usize) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.columns.iter().map(move |c| c.get(t))
    }

    /// Leaf codes of record `r`, in quasi-identifier order.
    #[inline]
    pub fn row(&self, r: usize) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.tuple(self.tuple_of(r))
    }
}

#[cfg(test)]
mod tests {
    use super::EncodedTable;
    use crate::hierarchy::Hierarchy;

    /// Tuples in order of first appearance, each record mapped to its own, through several
    /// growths of the builder's table; rows read back as they went in.
    #[test]
    fn distinct_tuples_in_first_appearance_order() {
        let labels: Vec<Vec<String>> = (0..50).map(|v| vec![v.to_string(), "*".into()]).collect();
        let h = Hierarchy::from_label_rows("x", &labels);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rows = Vec::new();
        for _ in 0..20_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            rows.push([
                (seed % 50) as u32,
                (seed / 50 % 50) as u32,
                (seed / 2500 % 7) as u32,
            ]);
        }
        let table = EncodedTable::new(rows.concat(), vec![h.clone(), h.clone(), h], vec![]);
        let mut first: Vec<[u32; 3]> = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            let t = match first.iter().position(|f| f == row) {
                Some(t) => t,
                None => {
                    first.push(*row);
                    first.len() - 1
                }
            };
            assert_eq!(table.tuple_of(r), t, "record {r}");
            assert_eq!(table.row(r).collect::<Vec<_>>(), row.to_vec());
        }
        assert_eq!(table.tuples(), first.len());
        assert!(first.len() > 5_000, "{}", first.len());
        assert_eq!(table.rows(), rows.len());
    }

    /// Sorted groups pushed without lookups, then records by lookup: the lookup table rebuilt
    /// at once for all the sorted tuples (more than one growth's worth) finds every one of
    /// them, and the records map to the tuples a builder of lookups alone gives them.
    #[test]
    fn sorted_groups_then_lookups() {
        use super::TupleBuilder;
        let labels: Vec<Vec<String>> = (0..150).map(|v| vec![v.to_string(), "*".into()]).collect();
        let h = Hierarchy::from_label_rows("x", &labels);
        // 10,000 tuples: the table rebuilt for them takes two growths at once.
        let sorted: Vec<([u32; 2], u64)> = (0..100u32)
            .flat_map(|a| (0..100u32).map(move |b| ([a, b], 1 + (a + b) as u64 % 3)))
            .collect();
        let later: Vec<[u32; 2]> = (0..5000u32).map(|i| [i * 7 % 150, i * 11 % 150]).collect();
        let mut fast = TupleBuilder::new(2);
        let mut plain = TupleBuilder::new(2);
        for (codes, n) in &sorted {
            // Each group twice in a row (a sensitive value's split): the second merges.
            fast.push_sorted_n(codes, *n);
            fast.push_sorted_n(codes, 1);
            plain.push_n(codes, *n);
            plain.push_n(codes, 1);
        }
        for codes in &later {
            fast.push(codes);
            plain.push(codes);
        }
        let fast = fast.finish(vec![h.clone(), h.clone()], vec![]);
        let plain = plain.finish(vec![h.clone(), h], vec![]);
        assert_eq!(fast.tuples(), plain.tuples());
        assert!(fast.tuples() > sorted.len(), "later rows add tuples");
        assert_eq!(fast.rows(), plain.rows());
        for r in 0..fast.rows() {
            assert_eq!(fast.tuple_of(r), plain.tuple_of(r), "record {r}");
            assert_eq!(
                fast.row(r).collect::<Vec<_>>(),
                plain.row(r).collect::<Vec<_>>()
            );
        }
    }
}
