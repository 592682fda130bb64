//! The distinct quasi-identifier tuples of the store (`QidTuple`), shared by Mondrian and
//! Incognito.
//!
//! Both methods put whole tuples into classes (Mondrian cuts on `x <= v`, Incognito generalizes
//! values), so they work on `QidTuple` (codes, record count, first record), never on records.
//! When the tuples fit the memory budget ([`MEMORY_TUPLES`]) they are read once into a
//! [`Tuples`] and the method runs in memory; otherwise it runs on the store, through the typed
//! queries of its module of [`crate::store::queries`]. Both backends produce identical classes
//! (tested), written back the same way: `EquivalenceTable` rows and `QidTuple.EquivalenceID`
//! (the pipeline checks them).

use crate::data::load::QidEncoding;
use crate::store::Store;
use crate::Result;

/// Tuples up to which a method works in memory: about 32 bytes per tuple and quasi-identifier
/// at the most, so 2 million tuples stay far below the 200 MB budget.
pub const MEMORY_TUPLES: u64 = 2_000_000;

/// Which implementation a store-backed method uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// In memory if the tuples fit ([`MEMORY_TUPLES`]), else SQL.
    Auto,
    /// Always in memory.
    Memory,
    /// Always SQL on the store (Mondrian: every cut by passes over the store).
    Sql,
    /// In memory up to this many distinct tuples, else SQL (Mondrian: classes of at most this
    /// many tuples are finished in memory); tests force the hybrid paths with a small one.
    Hybrid(u64),
}

impl Backend {
    /// True if a table with `tuples` distinct tuples is processed in memory.
    pub fn in_memory(self, tuples: u64) -> bool {
        match self {
            Backend::Auto => tuples <= MEMORY_TUPLES,
            Backend::Memory => true,
            Backend::Sql => false,
            Backend::Hybrid(m) => tuples <= m,
        }
    }
}

/// `QidTuple` in memory, in order of first record.
#[derive(Debug, Clone, Default)]
pub struct Tuples {
    pub width: usize,
    /// Tuple-major codes, one per quasi-identifier.
    pub codes: Vec<u32>,
    pub counts: Vec<u64>,
    pub first_records: Vec<u64>,
}

impl Tuples {
    /// Reads `QidTuple` ordered by first record.
    pub fn load(store: &Store) -> Result<Tuples> {
        let mut t = Tuples {
            width: store.layout().qids.len(),
            ..Tuples::default()
        };
        store.for_each_tuple_by_first_record(|codes, count, first| {
            t.codes.extend_from_slice(codes);
            t.counts.push(count);
            t.first_records.push(first);
            Ok(())
        })?;
        Ok(t)
    }

    pub fn len(&self) -> usize {
        self.counts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Codes of tuple `t`.
    pub fn tuple(&self, t: usize) -> &[u32] {
        &self.codes[t * self.width..(t + 1) * self.width]
    }
}

/// The point of each code of a quasi-identifier with a VGH: the dictionary holds the toolbox's
/// point labels (`[73.0]`, a category's mapped integer as `[1.0]`). `None` for a hierarchy-file
/// attribute whose values are not all numbers.
pub fn qid_points(q: &QidEncoding) -> Option<Vec<f64>> {
    q.dictionary
        .values()
        .iter()
        .map(|v| {
            let inner = v
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .unwrap_or(v);
            crate::javafmt::parse_double(inner)
        })
        .collect()
}
