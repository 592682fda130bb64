//! Per-column dictionary: distinct value -> code.

use rustc_hash::FxHashMap;

/// Distinct values of one column, coded `0..len()` in order of insertion.
#[derive(Debug, Clone, Default)]
pub struct Dictionary {
    values: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Dictionary {
    pub fn new() -> Dictionary {
        Dictionary::default()
    }

    /// A dictionary seeded with `values` (codes in that order; duplicates keep the first code).
    pub fn seeded<I: IntoIterator<Item = String>>(values: I) -> Dictionary {
        let mut d = Dictionary::new();
        for v in values {
            d.intern(&v);
        }
        d
    }

    /// The code of `value`, adding it if new. Returns (code, was_new).
    #[inline]
    pub fn intern(&mut self, value: &str) -> (u32, bool) {
        if let Some(&c) = self.index.get(value) {
            return (c, false);
        }
        let c = self.values.len() as u32;
        self.values.push(value.to_string());
        self.index.insert(value.to_string(), c);
        (c, true)
    }

    /// The code of `value`, if present.
    #[inline]
    pub fn code(&self, value: &str) -> Option<u32> {
        self.index.get(value).copied()
    }

    /// The value of `code`.
    pub fn value(&self, code: u32) -> &str {
        &self.values[code as usize]
    }

    pub fn values(&self) -> &[String] {
        &self.values
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}
