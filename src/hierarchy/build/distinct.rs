//! The distinct values of a column, counted as a file streams by.
//!
//! Builders need each distinct value once (and, for equal-frequency bins, how many records
//! hold it), never the rows: memory grows with the distinct values, not with the file. Values
//! are the trimmed fields, as the loader sees them (`io::trim`), and must be UTF-8. A cap
//! bounds the memory of near-unique columns (`anonbox init` profiles every column): past it,
//! new values are counted but not kept.

use crate::data::Interner;

/// Distinct values in order of first appearance, with their counts (each value kept once, see
/// [`Interner`]).
#[derive(Debug, Clone, Default)]
pub struct Distinct {
    values: Interner,
    counts: Vec<u64>,
    cap: Option<usize>,
    /// Records whose value was new once the cap was reached.
    overflow: u64,
}

impl Distinct {
    /// A collector keeping every distinct value.
    pub fn new() -> Distinct {
        Distinct::default()
    }

    /// A collector keeping at most `cap` distinct values.
    pub fn with_cap(cap: usize) -> Distinct {
        Distinct {
            cap: Some(cap),
            ..Distinct::default()
        }
    }

    /// Counts one trimmed field. Returns the value if it is new (so the caller can check it
    /// at its line), or the message of a field that is not UTF-8. Values are looked up by
    /// their bytes (a field equal to a kept value is UTF-8), and checked when first seen.
    pub fn add(&mut self, raw: &[u8]) -> Result<Option<&str>, String> {
        if let Some(c) = self.values.find(raw) {
            self.counts[c as usize] += 1;
            return Ok(None);
        }
        let value = crate::io::utf8_field(raw)?;
        if self.cap.is_some_and(|c| self.values.len() >= c) {
            self.overflow += 1;
            return Ok(None);
        }
        let c = self.values.insert(value);
        self.counts.push(1);
        Ok(Some(self.values.get(c)))
    }

    /// Distinct values kept.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True if no value was kept.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// True if the cap was reached (some values were not kept).
    pub fn overflowed(&self) -> bool {
        self.overflow > 0
    }

    /// The values `keep` accepts, with their counts and in their order, and how many records
    /// held the others (the cap and the overflow stay).
    pub fn split_off(self, keep: impl Fn(&str) -> bool) -> (Distinct, Vec<(String, u64)>) {
        let mut kept = Distinct {
            cap: self.cap,
            overflow: self.overflow,
            ..Distinct::default()
        };
        let mut dropped = Vec::new();
        for (value, count) in self.values() {
            if keep(value) {
                kept.values.insert(value);
                kept.counts.push(count);
            } else {
                dropped.push((value.to_string(), count));
            }
        }
        (kept, dropped)
    }

    /// The values and their counts, in order of first appearance.
    pub fn values(&self) -> impl ExactSizeIterator<Item = (&str, u64)> + Clone + '_ {
        self.values.iter().zip(self.counts.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The one-buffer collector keeps what a map from each value to its count, in order of
        /// first appearance, would keep, with the same cap and the same refusals.
        #[test]
        fn keeps_what_a_plain_map_keeps(
            fields in prop::collection::vec(prop::collection::vec(
                prop::sample::select(vec![b'a', b'b', b'7', 0xc3, 0xa9, 0xff]), 0..4), 0..300),
            cap in 1usize..40,
        ) {
            let mut d = Distinct::with_cap(cap);
            let mut order: Vec<String> = Vec::new();
            let mut counts = std::collections::HashMap::new();
            let mut overflow = false;
            for f in &fields {
                let got = d.add(f).map(|v| v.map(str::to_string));
                let want = match std::str::from_utf8(f) {
                    Err(_) if !counts.contains_key(&f.to_vec()) => Err(()),
                    _ => {
                        let v = String::from_utf8(f.clone()).unwrap();
                        if let Some(c) = counts.get_mut(&f.to_vec()) {
                            *c += 1;
                            Ok(None)
                        } else if order.len() >= cap {
                            overflow = true;
                            Ok(None)
                        } else {
                            counts.insert(f.clone(), 1u64);
                            order.push(v.clone());
                            Ok(Some(v))
                        }
                    }
                };
                prop_assert_eq!(got.map_err(|_| ()), want);
            }
            let want: Vec<(&str, u64)> =
                order.iter().map(|v| (v.as_str(), counts[v.as_bytes()])).collect();
            prop_assert_eq!(d.values().collect::<Vec<_>>(), want);
            prop_assert_eq!(d.overflowed(), overflow);
        }
    }

    #[test]
    fn counts_and_caps() {
        let mut d = Distinct::with_cap(2);
        assert_eq!(d.add(b"a").unwrap(), Some("a"));
        assert_eq!(d.add(b"a").unwrap(), None);
        assert_eq!(d.add(b"b").unwrap(), Some("b"));
        assert_eq!(d.add(b"c").unwrap(), None);
        assert!(d.overflowed());
        assert_eq!(d.values().collect::<Vec<_>>(), [("a", 2), ("b", 1)]);
        let mut e = Distinct::new();
        let words: Vec<String> = (0..5000).map(|i| format!("w{}", i % 1700)).collect();
        for w in &words {
            e.add(w.as_bytes()).unwrap();
        }
        assert_eq!(e.len(), 1700);
        assert_eq!(e.values().nth(1699), Some(("w1699", 2)));
        assert_eq!(e.values().nth(7), Some(("w7", 3)));
        assert_eq!(e.add(b"").unwrap(), Some(""));
        assert_eq!(e.values().nth(1700), Some(("", 1)));
        let e = Distinct::new().add(b"\xff").unwrap_err();
        assert!(e.contains("not valid UTF-8"), "{e}");
    }
}
