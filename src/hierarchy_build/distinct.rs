//! The distinct values of a column, counted as a file streams by.
//!
//! Builders need each distinct value once (and, for equal-frequency bins, how many records
//! hold it), never the rows: memory grows with the distinct values, not with the file. Values
//! are the trimmed fields, as the loader sees them (`io::trim`), and must be UTF-8. A cap
//! bounds the memory of near-unique columns (`anonbox init` profiles every column): past it,
//! new values are counted but not kept.

use rustc_hash::FxHashMap;

/// Distinct values in order of first appearance, with their counts.
#[derive(Debug, Clone, Default)]
pub struct Distinct {
    index: FxHashMap<Box<str>, u32>,
    values: Vec<(Box<str>, u64)>,
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
    /// at its line), or the message of a field that is not UTF-8.
    pub fn add(&mut self, raw: &[u8]) -> Result<Option<&str>, String> {
        let value = crate::io::utf8_field(raw)?;
        if let Some(&i) = self.index.get(value) {
            self.values[i as usize].1 += 1;
            return Ok(None);
        }
        if self.cap.is_some_and(|c| self.values.len() >= c) {
            self.overflow += 1;
            return Ok(None);
        }
        let i = self.values.len();
        self.index.insert(value.into(), i as u32);
        self.values.push((value.into(), 1));
        Ok(Some(&self.values[i].0))
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

    /// The values and their counts, in order of first appearance.
    pub fn values(&self) -> impl Iterator<Item = (&str, u64)> {
        self.values.iter().map(|(v, c)| (&**v, *c))
    }

    /// The values and counts, owned.
    pub fn into_values(self) -> Vec<(String, u64)> {
        self.values
            .into_iter()
            .map(|(v, c)| (v.into_string(), c))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_caps() {
        let mut d = Distinct::with_cap(2);
        assert_eq!(d.add(b"a").unwrap(), Some("a"));
        assert_eq!(d.add(b"a").unwrap(), None);
        assert_eq!(d.add(b"b").unwrap(), Some("b"));
        assert_eq!(d.add(b"c").unwrap(), None);
        assert!(d.overflowed());
        assert_eq!(
            d.into_values(),
            [("a".to_string(), 2), ("b".to_string(), 1)]
        );
        let e = Distinct::new().add(b"\xff").unwrap_err();
        assert!(e.contains("not valid UTF-8"), "{e}");
    }
}
