//! Per-column dictionary: distinct value -> code.

use super::Interner;

/// Distinct values of one column, coded `0..len()` in order of insertion.
#[derive(Debug, Clone, Default)]
pub struct Dictionary {
    values: Interner,
}

impl Dictionary {
    pub fn new() -> Dictionary {
        Dictionary::default()
    }

    /// A dictionary seeded with `values`, codes in their order (a hierarchy's leaves: a copy
    /// of its buffers, not a value at a time).
    pub fn seeded(values: &Interner) -> Dictionary {
        Dictionary {
            values: values.clone(),
        }
    }

    /// The code of `value`, adding it if new. Returns (code, was_new).
    #[inline]
    pub fn intern(&mut self, value: &str) -> (u32, bool) {
        self.values.intern(value)
    }

    /// The code of `value`, if present.
    #[inline]
    pub fn code(&self, value: &str) -> Option<u32> {
        self.values.find(value.as_bytes())
    }

    /// The value of `code`.
    pub fn value(&self, code: u32) -> &str {
        self.values.get(code)
    }

    /// The values, by code.
    pub fn values(&self) -> &Interner {
        &self.values
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}
