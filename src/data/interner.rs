//! Interned strings: each distinct value once, coded `0..len()` in order of insertion.
//!
//! The values lie one after another in one text buffer, with where each ends; the index is a
//! hash table of codes (hashbrown's `HashTable`), so no value is held twice and none is an
//! allocation of its own. A column of two million 19-byte timestamps takes about 31 bytes a
//! value (its bytes, its end, its slot) where a `Vec<String>` beside a `HashMap<String, u32>`
//! took about 130, with two allocations each. Dictionaries of the loader, hierarchy labels and
//! the profiles of `anonbox init` all keep their values here.
//!
//! Growing the index hashes the values again: keeping each hash in its slot was 10-15 % faster
//! on two million timestamps, but 4 or 12 more bytes a slot took init's peak from 243 to 339 or
//! 465 MB.

use std::fmt;
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// Distinct strings coded in order of insertion (see the module docs).
#[derive(Clone, Default)]
pub struct Interner {
    /// The values, one after another.
    text: String,
    /// Where each value ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
    /// Codes, hashed by their value's bytes.
    index: HashTable<u32>,
}

fn hash(value: &[u8]) -> u64 {
    FxBuildHasher.hash_one(value)
}

impl Interner {
    pub fn new() -> Interner {
        Interner::default()
    }

    /// The code of `value` (looked up by its bytes), if present.
    #[inline]
    pub fn find(&self, value: &[u8]) -> Option<u32> {
        let text = self.text.as_bytes();
        self.index
            .find(hash(value), |&c| &text[span(&self.ends, c)] == value)
            .copied()
    }

    /// The code of `value`, adding it if new. Returns (code, was new).
    #[inline]
    pub fn intern(&mut self, value: &str) -> (u32, bool) {
        match self.find(value.as_bytes()) {
            Some(c) => (c, false),
            None => (self.insert(value), true),
        }
    }

    /// Adds `value`, which must not be present ([`Interner::find`]), and returns its code.
    pub fn insert(&mut self, value: &str) -> u32 {
        debug_assert!(self.find(value.as_bytes()).is_none());
        let code = u32::try_from(self.ends.len()).expect("fewer than 2^32 distinct values");
        self.text.push_str(value);
        self.ends.push(self.text.len());
        let (text, ends) = (self.text.as_bytes(), &self.ends);
        self.index
            .insert_unique(hash(value.as_bytes()), code, |&c| {
                hash(&text[span(ends, c)])
            });
        code
    }

    /// The value of `code`.
    #[inline]
    pub fn get(&self, code: u32) -> &str {
        &self.text[span(&self.ends, code)]
    }

    /// Distinct values.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The values in code order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + Clone + '_ {
        (0..self.len() as u32).map(|c| self.get(c))
    }

    /// The values as strings of their own, in code order.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }
}

/// Where value `code` lies in the text, from the ends of the values.
#[inline]
fn span(ends: &[usize], code: u32) -> std::ops::Range<usize> {
    let c = code as usize;
    (if c == 0 { 0 } else { ends[c - 1] })..ends[c]
}

impl PartialEq for Interner {
    /// The same values in the same order (the index follows from them).
    fn eq(&self, other: &Interner) -> bool {
        self.text == other.text && self.ends == other.ends
    }
}

impl fmt::Debug for Interner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Codes, values and lookups are those of a list beside a map.
        #[test]
        fn codes_values_as_a_list_and_a_map_would(
            values in prop::collection::vec("[ab7é]{0,3}", 0..300),
        ) {
            let mut interner = Interner::new();
            let mut list: Vec<String> = Vec::new();
            let mut map = std::collections::HashMap::new();
            for v in &values {
                let want = match map.get(v) {
                    Some(&c) => (c, false),
                    None => {
                        map.insert(v.clone(), list.len() as u32);
                        list.push(v.clone());
                        (list.len() as u32 - 1, true)
                    }
                };
                prop_assert_eq!(interner.intern(v), want);
            }
            prop_assert_eq!(interner.iter().collect::<Vec<_>>(), list.iter().map(String::as_str).collect::<Vec<_>>());
            for (v, &c) in &map {
                prop_assert_eq!(interner.find(v.as_bytes()), Some(c));
                prop_assert_eq!(interner.get(c), v.as_str());
            }
            prop_assert_eq!(interner.find(b"zz"), None);
            prop_assert_eq!(&interner.clone(), &interner);
        }
    }
}
