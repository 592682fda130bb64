//! Frequencies of sensitive values: the input every model with a sensitive attribute works on.
//!
//! A [`Distribution`] holds the counts of the sensitive codes in one equivalence class (or in a
//! whole table). It is sparse, because a class usually holds few of the attribute's values: the
//! codes present, ascending, and their counts (> 0) in a parallel slice. [`Distribution`] is the
//! borrowed view every model reads (the checker keeps its own storage); [`DistributionBuf`] is an
//! owned one to add records to and merge classes into. Sorted order makes merging two
//! classes (roll-up, snapshots) a linear merge and makes every computation over it deterministic
//! (sums in ascending code order), which matters where a model reproduces another tool's floating
//! point arithmetic.
//!
//! Codes are whatever the caller's dictionary assigns (`SensitiveColumn::codes`). Models that need
//! more than counts (an order for the ordered distance, a hierarchy for the hierarchical one) get
//! it from their own constructor, never from the distribution.

/// The counts of sensitive codes in one class (or table), borrowed: `codes` ascending and
/// distinct, `counts[i] > 0` records with `codes[i]`. This is what the checker hands a model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Distribution<'a> {
    pub codes: &'a [u32],
    pub counts: &'a [u32],
}

impl<'a> Distribution<'a> {
    /// A view over parallel slices (`codes` ascending, `counts` > 0).
    pub fn new(codes: &'a [u32], counts: &'a [u32]) -> Distribution<'a> {
        debug_assert_eq!(codes.len(), counts.len());
        debug_assert!(codes.windows(2).all(|w| w[0] < w[1]));
        Distribution { codes, counts }
    }

    /// Number of distinct codes.
    #[inline]
    pub fn distinct(&self) -> usize {
        self.codes.len()
    }

    /// Number of records.
    #[inline]
    pub fn total(&self) -> u64 {
        self.counts.iter().map(|&c| c as u64).sum()
    }

    /// True if the class holds no record.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// The count of `code` (0 if absent).
    pub fn count(&self, code: u32) -> u32 {
        self.codes
            .binary_search(&code)
            .map_or(0, |i| self.counts[i])
    }

    /// `(code, count)` pairs in ascending code order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + 'a {
        self.codes.iter().copied().zip(self.counts.iter().copied())
    }

    /// Dense counts `0..len` (codes beyond `len` must not occur).
    pub fn to_dense(&self, len: usize) -> Vec<u32> {
        let mut d = vec![0; len];
        for (c, n) in self.iter() {
            d[c as usize] = n;
        }
        d
    }
}

/// An owned [`Distribution`] that records can be added to and classes merged into.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DistributionBuf {
    codes: Vec<u32>,
    counts: Vec<u32>,
}

impl DistributionBuf {
    /// An empty distribution.
    pub fn new() -> DistributionBuf {
        DistributionBuf::default()
    }

    /// The distribution of a sequence of codes (one per record).
    pub fn from_codes<I: IntoIterator<Item = u32>>(codes: I) -> DistributionBuf {
        let mut dense: Vec<u32> = Vec::new();
        for c in codes {
            let c = c as usize;
            if c >= dense.len() {
                dense.resize(c + 1, 0);
            }
            dense[c] += 1;
        }
        DistributionBuf::from_dense(&dense)
    }

    /// The distribution of dense counts: `counts[code]` (zeros are skipped).
    pub fn from_dense(counts: &[u32]) -> DistributionBuf {
        let mut d = DistributionBuf::new();
        for (c, &n) in counts.iter().enumerate() {
            if n > 0 {
                d.codes.push(c as u32);
                d.counts.push(n);
            }
        }
        d
    }

    /// The distribution of `(code, count)` pairs in any order; repeated codes add up, zero counts
    /// are dropped.
    pub fn from_pairs<I: IntoIterator<Item = (u32, u32)>>(pairs: I) -> DistributionBuf {
        let mut pairs: Vec<(u32, u32)> = pairs.into_iter().filter(|p| p.1 > 0).collect();
        pairs.sort_unstable_by_key(|p| p.0);
        let mut d = DistributionBuf::new();
        for (c, n) in pairs {
            if d.codes.last() == Some(&c) {
                *d.counts.last_mut().unwrap() += n;
            } else {
                d.codes.push(c);
                d.counts.push(n);
            }
        }
        d
    }

    /// The borrowed view.
    #[inline]
    pub fn view(&self) -> Distribution<'_> {
        Distribution {
            codes: &self.codes,
            counts: &self.counts,
        }
    }

    /// Adds `count` records with `code`.
    #[inline]
    pub fn add(&mut self, code: u32, count: u32) {
        if count == 0 {
            return;
        }
        // Classes hold few values and rows tend to arrive with a recent code: check the end first.
        match self.codes.last() {
            Some(&last) if last == code => {
                *self.counts.last_mut().unwrap() += count;
                return;
            }
            Some(&last) if last > code => {}
            _ => {
                self.codes.push(code);
                self.counts.push(count);
                return;
            }
        }
        match self.codes.binary_search(&code) {
            Ok(i) => self.counts[i] += count,
            Err(i) => {
                self.codes.insert(i, code);
                self.counts.insert(i, count);
            }
        }
    }

    /// Adds every count of `other` (the union of two classes).
    pub fn merge(&mut self, other: Distribution<'_>) {
        if other.is_empty() {
            return;
        }
        if self.codes.is_empty() {
            self.codes.extend_from_slice(other.codes);
            self.counts.extend_from_slice(other.counts);
            return;
        }
        if other.distinct() == 1 {
            self.add(other.codes[0], other.counts[0]);
            return;
        }
        let n = self.codes.len() + other.distinct();
        let (mut codes, mut counts) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (a, b) = (self.view(), other);
        let (mut i, mut j) = (0, 0);
        while i < a.codes.len() && j < b.codes.len() {
            match a.codes[i].cmp(&b.codes[j]) {
                std::cmp::Ordering::Less => {
                    codes.push(a.codes[i]);
                    counts.push(a.counts[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    codes.push(b.codes[j]);
                    counts.push(b.counts[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    codes.push(a.codes[i]);
                    counts.push(a.counts[i] + b.counts[j]);
                    i += 1;
                    j += 1;
                }
            }
        }
        codes.extend_from_slice(&a.codes[i..]);
        counts.extend_from_slice(&a.counts[i..]);
        codes.extend_from_slice(&b.codes[j..]);
        counts.extend_from_slice(&b.counts[j..]);
        self.codes = codes;
        self.counts = counts;
    }

    /// Removes all counts (keeps the allocation).
    pub fn clear(&mut self) {
        self.codes.clear();
        self.counts.clear();
    }

    /// Number of records.
    pub fn total(&self) -> u64 {
        self.view().total()
    }

    /// Number of distinct codes.
    pub fn distinct(&self) -> usize {
        self.codes.len()
    }

    /// True if no record was added.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(d: &DistributionBuf) -> Vec<(u32, u32)> {
        d.view().iter().collect()
    }

    #[test]
    fn builds_sorted_sparse_counts() {
        let d = DistributionBuf::from_codes([3, 1, 3, 0, 3]);
        assert_eq!(pairs(&d), vec![(0, 1), (1, 1), (3, 3)]);
        assert_eq!(d.total(), 5);
        assert_eq!(d.distinct(), 3);
        assert_eq!(d.view().count(3), 3);
        assert_eq!(d.view().count(2), 0);
        assert_eq!(d.view().to_dense(4), vec![1, 1, 0, 3]);
        assert_eq!(DistributionBuf::from_dense(&[1, 1, 0, 3]), d);
        assert_eq!(
            DistributionBuf::from_pairs([(3, 2), (0, 1), (1, 1), (3, 1), (2, 0)]),
            d
        );
        assert_eq!(Distribution::new(&[0, 1, 3], &[1, 1, 3]), d.view());
    }

    #[test]
    fn add_keeps_order_whatever_the_arrival() {
        let mut d = DistributionBuf::new();
        for c in [5, 2, 9, 2, 0, 5, 7, 9, 9] {
            d.add(c, 1);
        }
        d.add(4, 0);
        assert_eq!(pairs(&d), vec![(0, 1), (2, 2), (5, 2), (7, 1), (9, 3)]);
    }

    #[test]
    fn merge_is_the_union_of_counts() {
        let mut a = DistributionBuf::from_codes([0, 2, 2, 7]);
        let b = DistributionBuf::from_codes([1, 2, 8, 8]);
        a.merge(b.view());
        assert_eq!(pairs(&a), vec![(0, 1), (1, 1), (2, 3), (7, 1), (8, 2)]);
        let mut e = DistributionBuf::new();
        e.merge(a.view());
        assert_eq!(e, a);
        e.merge(Distribution::default());
        assert_eq!(e, a);
        e.merge(DistributionBuf::from_codes([7]).view());
        assert_eq!(e.view().count(7), 2);
        e.clear();
        assert!(e.is_empty());
    }
}
