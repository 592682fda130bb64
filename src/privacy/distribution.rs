//! Frequencies of sensitive values: the input every model with a sensitive attribute works on.
//!
//! A [`Distribution`] holds the counts of the sensitive codes in one equivalence class (or in a
//! whole table). It is sparse, because a class usually holds few of the attribute's values: a
//! vector of `(code, count)` pairs sorted by code, counts > 0. Sorted order makes merging two
//! classes (roll-up, snapshots) a linear merge and makes every computation over it deterministic
//! (sums in ascending code order), which matters where a model reproduces another tool's floating
//! point arithmetic.
//!
//! Codes are whatever the caller's dictionary assigns (`SensitiveColumn::codes`). Models that need
//! more than counts (an order for the ordered distance, a hierarchy for the hierarchical one) get
//! it from their own constructor, never from the distribution.

/// Counts of sensitive codes: sparse, sorted by code, every count > 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Distribution {
    entries: Vec<(u32, u32)>,
}

impl Distribution {
    /// An empty distribution.
    pub fn new() -> Distribution {
        Distribution::default()
    }

    /// The distribution of a sequence of codes (one per record).
    pub fn from_codes<I: IntoIterator<Item = u32>>(codes: I) -> Distribution {
        let mut dense: Vec<u32> = Vec::new();
        for c in codes {
            let c = c as usize;
            if c >= dense.len() {
                dense.resize(c + 1, 0);
            }
            dense[c] += 1;
        }
        Distribution::from_dense(&dense)
    }

    /// The distribution of dense counts: `counts[code]` (zeros are skipped).
    pub fn from_dense(counts: &[u32]) -> Distribution {
        Distribution {
            entries: counts
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(c, &n)| (c as u32, n))
                .collect(),
        }
    }

    /// The distribution of `(code, count)` pairs in any order; repeated codes add up, zero counts
    /// are dropped.
    pub fn from_pairs<I: IntoIterator<Item = (u32, u32)>>(pairs: I) -> Distribution {
        let mut entries: Vec<(u32, u32)> = pairs.into_iter().filter(|p| p.1 > 0).collect();
        entries.sort_unstable_by_key(|p| p.0);
        entries.dedup_by(|next, kept| {
            if next.0 == kept.0 {
                kept.1 += next.1;
                true
            } else {
                false
            }
        });
        Distribution { entries }
    }

    /// Adds `count` records with `code`.
    #[inline]
    pub fn add(&mut self, code: u32, count: u32) {
        if count == 0 {
            return;
        }
        // Classes hold few values and rows tend to arrive with a recent code: check the end first.
        if let Some(last) = self.entries.last_mut() {
            if last.0 == code {
                last.1 += count;
                return;
            }
            if last.0 < code {
                self.entries.push((code, count));
                return;
            }
        } else {
            self.entries.push((code, count));
            return;
        }
        match self.entries.binary_search_by_key(&code, |p| p.0) {
            Ok(i) => self.entries[i].1 += count,
            Err(i) => self.entries.insert(i, (code, count)),
        }
    }

    /// Adds every count of `other` (the union of two classes).
    pub fn merge(&mut self, other: &Distribution) {
        if other.entries.is_empty() {
            return;
        }
        if self.entries.is_empty() {
            self.entries.extend_from_slice(&other.entries);
            return;
        }
        if other.entries.len() == 1 {
            let (c, n) = other.entries[0];
            self.add(c, n);
            return;
        }
        let (a, b) = (&self.entries, &other.entries);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                std::cmp::Ordering::Less => {
                    out.push(a[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    out.push(b[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    out.push((a[i].0, a[i].1 + b[j].1));
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        self.entries = out;
    }

    /// Removes all counts (keeps the allocation).
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Number of records.
    pub fn total(&self) -> u64 {
        self.entries.iter().map(|p| p.1 as u64).sum()
    }

    /// Number of distinct codes.
    #[inline]
    pub fn distinct(&self) -> usize {
        self.entries.len()
    }

    /// True if no record was added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The count of `code` (0 if absent).
    pub fn count(&self, code: u32) -> u32 {
        self.entries
            .binary_search_by_key(&code, |p| p.0)
            .map_or(0, |i| self.entries[i].1)
    }

    /// `(code, count)` pairs in ascending code order.
    #[inline]
    pub fn entries(&self) -> &[(u32, u32)] {
        &self.entries
    }

    /// Counts in ascending code order.
    pub fn counts(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries.iter().map(|p| p.1)
    }

    /// Dense counts `0..len` (codes beyond `len` must not occur).
    pub fn to_dense(&self, len: usize) -> Vec<u32> {
        let mut d = vec![0; len];
        for &(c, n) in &self.entries {
            d[c as usize] = n;
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_sorted_sparse_counts() {
        let d = Distribution::from_codes([3, 1, 3, 0, 3]);
        assert_eq!(d.entries(), &[(0, 1), (1, 1), (3, 3)]);
        assert_eq!(d.total(), 5);
        assert_eq!(d.distinct(), 3);
        assert_eq!(d.count(3), 3);
        assert_eq!(d.count(2), 0);
        assert_eq!(d.to_dense(4), vec![1, 1, 0, 3]);
        assert_eq!(Distribution::from_dense(&[1, 1, 0, 3]), d);
        assert_eq!(
            Distribution::from_pairs([(3, 2), (0, 1), (1, 1), (3, 1), (2, 0)]),
            d
        );
    }

    #[test]
    fn add_keeps_order_whatever_the_arrival() {
        let mut d = Distribution::new();
        for c in [5, 2, 9, 2, 0, 5, 7, 9, 9] {
            d.add(c, 1);
        }
        d.add(4, 0);
        assert_eq!(d.entries(), &[(0, 1), (2, 2), (5, 2), (7, 1), (9, 3)]);
    }

    #[test]
    fn merge_is_the_union_of_counts() {
        let mut a = Distribution::from_codes([0, 2, 2, 7]);
        let b = Distribution::from_codes([1, 2, 8, 8]);
        a.merge(&b);
        assert_eq!(a.entries(), &[(0, 1), (1, 1), (2, 3), (7, 1), (8, 2)]);
        let mut e = Distribution::new();
        e.merge(&a);
        assert_eq!(e, a);
        e.merge(&Distribution::new());
        assert_eq!(e, a);
        e.merge(&Distribution::from_codes([7]));
        assert_eq!(e.count(7), 2);
        e.clear();
        assert!(e.is_empty());
    }
}
