//! The frequency set's groups in one order on the driver.
//!
//! A group-by returns its groups in no particular order (partitions race), yet the driver must
//! number values and tuples the same way on every run. Sorting the groups by their texts (a
//! lexicographic sort of strings) was most of the driver's work on inputs where nearly every
//! tuple is distinct. Here each attribute's distinct texts are ranked once in byte order (one
//! hash lookup a cell, a text of up to 15 bytes hashed as one 128-bit key; one sort of the
//! distinct texts), and the groups are sorted by their ranks. The order is the same as the
//! texts' (rank order is byte order), so is every code the driver hands out.
//!
//! When a group's ranks fit in 64 bits (each attribute's in as many bits as its distinct texts
//! need, the first attribute's highest, the tie flag lowest), a group is that one word and its
//! record count: the sort compares words, and the groups are then read in order from one array,
//! with no lookup into the batches (a cache miss a group, most of the time on 20 M groups).
//! Wider groups keep their ranks in a table in group order, and sort by it. Attributes are
//! ranked side by side, and the groups sorted, on the run's threads.
//!
//! A rank also names its text: [`Sorted::text`] reads it from the first group that holds it,
//! and the release's text -> code map is made once per distinct text, not once per group.

use arrow::array::{Array, ArrayRef, AsArray, BooleanArray, RecordBatch, UInt64Array};
use arrow::compute::cast;
use arrow::datatypes::{DataType, UInt64Type};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::text_ids::short_key;
use crate::Result;

/// The groups of `batches` (their first `attrs` columns are the attributes' texts, as `Utf8`,
/// their last the group's record count), sorted by those texts; ties (groups that differ only
/// in the columns after them) keep a fixed order by the `tie` column, a boolean, when given.
pub struct Sorted {
    /// Per batch, per attribute: the texts.
    texts: Vec<Vec<ArrayRef>>,
    /// Each group's (batch, row).
    at: Vec<(u32, u32)>,
    /// Per batch: the groups' record counts.
    counts: Vec<UInt64Array>,
    /// Per batch: the tie column.
    ties: Vec<Option<BooleanArray>>,
    attrs: usize,
    /// Per attribute, per rank: the group (index into `at`) where its text is found.
    first: Vec<Vec<u32>>,
    order: Order,
}

/// The groups in order.
enum Order {
    /// Each group as its ranks packed in one word, attribute 0's in the highest bits (of
    /// `bits[0]`), with its record count; sorted by the word. `tie`: the word's lowest bit is
    /// the tie flag.
    Packed {
        groups: Vec<(u64, u64)>,
        bits: Vec<u32>,
        tie: bool,
    },
    /// Each group's ranks, `attrs` a group, and the groups (indexes into `at`) in order.
    Wide { ranks: Vec<u32>, order: Vec<u32> },
}

/// Bits that hold the numbers below `n`.
fn bits_for(n: usize) -> u32 {
    usize::BITS - n.saturating_sub(1).leading_zeros()
}

/// Each group's rank of its text in `a`'s column (the texts in byte order), and per rank the
/// group where its text is found.
fn ranked(texts: &[Vec<ArrayRef>], at: &[(u32, u32)], a: usize) -> (Vec<u32>, Vec<u32>) {
    // Each distinct text numbered as met, with the group where it was met.
    let mut short: FxHashMap<u128, u32> = FxHashMap::default();
    let mut long: FxHashMap<&str, u32> = FxHashMap::default();
    let mut met: Vec<u32> = Vec::new();
    let mut ranks = Vec::with_capacity(at.len());
    for cols in texts {
        let s = cols[a].as_string::<i32>();
        for row in 0..s.len() {
            let text = s.value(row);
            let g = ranks.len() as u32;
            let next = met.len() as u32;
            let new = |met: &mut Vec<u32>| {
                met.push(g);
                next
            };
            let id = match short_key(text.as_bytes()) {
                Some(k) => *short.entry(k).or_insert_with(|| new(&mut met)),
                None => *long.entry(text).or_insert_with(|| new(&mut met)),
            };
            ranks.push(id);
        }
    }
    drop((short, long));
    let text = |g: u32| {
        let (b, r) = at[g as usize];
        texts[b as usize][a].as_string::<i32>().value(r as usize)
    };
    let mut by_text: Vec<u32> = (0..met.len() as u32).collect();
    by_text.sort_unstable_by(|&x, &y| text(met[x as usize]).cmp(text(met[y as usize])));
    let mut rank_of = vec![0u32; met.len()];
    for (rank, &id) in by_text.iter().enumerate() {
        rank_of[id as usize] = rank as u32;
    }
    for r in ranks.iter_mut() {
        *r = rank_of[*r as usize];
    }
    (ranks, by_text.iter().map(|&id| met[id as usize]).collect())
}

impl Sorted {
    /// Ranks and sorts the groups of `batches` on `threads` threads; `utf8` turns a column into
    /// `Utf8`.
    pub fn new(
        batches: &[RecordBatch],
        attrs: usize,
        tie: Option<usize>,
        threads: usize,
        utf8: impl Fn(&ArrayRef) -> Result<ArrayRef>,
    ) -> Result<Sorted> {
        Self::sort(batches, attrs, tie, threads, utf8, 64)
    }

    /// [`Sorted::new`], packing groups into words only while their ranks take at most `word`
    /// bits (the tests' way to the wide order).
    fn sort(
        batches: &[RecordBatch],
        attrs: usize,
        tie: Option<usize>,
        threads: usize,
        utf8: impl Fn(&ArrayRef) -> Result<ArrayRef>,
        word: u32,
    ) -> Result<Sorted> {
        let texts: Vec<Vec<ArrayRef>> = batches
            .iter()
            .map(|b| (0..attrs).map(|a| utf8(b.column(a))).collect())
            .collect::<Result<_>>()?;
        let at: Vec<(u32, u32)> = batches
            .iter()
            .enumerate()
            .flat_map(|(b, batch)| (0..batch.num_rows() as u32).map(move |r| (b as u32, r)))
            .collect();
        let groups = at.len();
        let counts: Vec<UInt64Array> = batches
            .iter()
            .map(|b| {
                let c = cast(b.column(b.num_columns() - 1), &DataType::UInt64)
                    .map_err(|e| crate::Error::Invalid(e.to_string()))?;
                Ok(c.as_primitive::<UInt64Type>().clone())
            })
            .collect::<Result<_>>()?;
        let ties: Vec<Option<BooleanArray>> = batches
            .iter()
            .map(|b| tie.map(|c| b.column(c).as_boolean().clone()))
            .collect();
        let flag = |g: usize| {
            let (b, r) = at[g];
            ties[b as usize]
                .as_ref()
                .is_some_and(|t| t.value(r as usize))
        };
        // Packed while the ranks fit: `packed[g]`, bits used so far `used`. Once they do not,
        // `wide` holds every attribute's ranks, `attrs` a group.
        let mut packed: Vec<u64> = vec![0; groups];
        let mut bits: Vec<u32> = Vec::with_capacity(attrs + 1);
        let mut wide: Option<Vec<u32>> = None;
        let mut first = Vec::with_capacity(attrs);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| {
                crate::Error::Invalid(format!("cannot start the driver's threads: {e}"))
            })?;
        // Attributes ranked `threads` at a time, each on a thread: at most `threads` tables of
        // ranks alive at once.
        let all: Vec<usize> = (0..attrs).collect();
        for chunk in all.chunks(threads.max(1)) {
            let ranked: Vec<(Vec<u32>, Vec<u32>)> =
                pool.install(|| chunk.par_iter().map(|&a| ranked(&texts, &at, a)).collect());
            for (&a, (ranks, by_rank)) in chunk.iter().zip(ranked) {
                let b = bits_for(by_rank.len());
                first.push(by_rank);
                let used: u32 = bits.iter().sum();
                if wide.is_none() && used + b + u32::from(tie.is_some()) > word {
                    // Too wide from here on: the ranks packed so far, read back into a table.
                    let mut table = vec![0u32; groups * attrs];
                    for (g, &key) in packed.iter().enumerate() {
                        let mut shift = used;
                        for (j, &w) in bits.iter().enumerate() {
                            shift -= w;
                            table[g * attrs + j] = ((key >> shift) & mask(w)) as u32;
                        }
                    }
                    packed = Vec::new();
                    wide = Some(table);
                }
                match &mut wide {
                    Some(table) => {
                        for (g, &r) in ranks.iter().enumerate() {
                            table[g * attrs + a] = r;
                        }
                    }
                    None => {
                        for (key, &r) in packed.iter_mut().zip(&ranks) {
                            *key = *key << b | u64::from(r);
                        }
                        bits.push(b);
                    }
                }
            }
        }
        let order = match wide {
            None => {
                let mut keyed: Vec<(u64, u64)> = packed
                    .into_iter()
                    .enumerate()
                    .map(|(g, key)| {
                        let key = match tie {
                            Some(_) => key << 1 | u64::from(flag(g)),
                            None => key,
                        };
                        let (b, r) = at[g];
                        (key, counts[b as usize].value(r as usize))
                    })
                    .collect();
                // No two groups have the same texts and flag: no two words are equal.
                pool.install(|| keyed.par_sort_unstable_by_key(|&(key, _)| key));
                Order::Packed {
                    groups: keyed,
                    bits,
                    tie: tie.is_some(),
                }
            }
            Some(ranks) => {
                let mut order: Vec<u32> = (0..groups as u32).collect();
                pool.install(|| {
                    order.par_sort_unstable_by(|&x, &y| {
                        let (x, y) = (x as usize, y as usize);
                        ranks[x * attrs..(x + 1) * attrs]
                            .cmp(&ranks[y * attrs..(y + 1) * attrs])
                            .then_with(|| flag(x).cmp(&flag(y)))
                    })
                });
                Order::Wide { ranks, order }
            }
        };
        Ok(Sorted {
            texts,
            at,
            counts,
            ties,
            attrs,
            first,
            order,
        })
    }

    /// Calls `f` with each group in order: its record count, its tie flag and its ranks.
    pub fn try_for_each<E>(
        &self,
        mut f: impl FnMut(u64, bool, &[u32]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        match &self.order {
            Order::Packed { groups, bits, tie } => {
                let mut ranks = vec![0u32; self.attrs];
                for &(key, count) in groups {
                    let flagged = *tie && key & 1 == 1;
                    let mut key = if *tie { key >> 1 } else { key };
                    for (r, &w) in ranks.iter_mut().zip(bits).rev() {
                        *r = (key & mask(w)) as u32;
                        key >>= w;
                    }
                    f(count, flagged, &ranks)?;
                }
            }
            Order::Wide { ranks, order } => {
                for &g in order {
                    let (b, r) = self.at[g as usize];
                    let (b, r) = (b as usize, r as usize);
                    let flagged = self.ties[b].as_ref().is_some_and(|t| t.value(r));
                    let i = g as usize * self.attrs;
                    f(self.counts[b].value(r), flagged, &ranks[i..i + self.attrs])?;
                }
            }
        }
        Ok(())
    }

    /// How many distinct texts attribute `a` has (its ranks are below it).
    pub fn distinct(&self, a: usize) -> usize {
        self.first[a].len()
    }

    /// The text of rank `rank` of attribute `a`.
    pub fn text(&self, a: usize, rank: u32) -> &str {
        let (b, r) = self.at[self.first[a][rank as usize] as usize];
        self.texts[b as usize][a]
            .as_string::<i32>()
            .value(r as usize)
    }
}

/// The lowest `w` bits.
fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{Int64Array, StringArray};
    use arrow::datatypes::{Field, Schema};

    use super::*;

    /// Groups of texts `a` and `b`, tie flags `q` and counts `n`.
    fn batch(a: &[&str], b: &[&str], q: &[bool], n: &[i64]) -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("a", DataType::Utf8, false),
            Field::new("b", DataType::Utf8, false),
            Field::new("q", DataType::Boolean, false),
            Field::new("n", DataType::Int64, false),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(StringArray::from(a.to_vec())),
                Arc::new(StringArray::from(b.to_vec())),
                Arc::new(BooleanArray::from(q.to_vec())),
                Arc::new(Int64Array::from(n.to_vec())),
            ],
        )
        .unwrap()
    }

    /// Each group in order as (its texts, its count, its flag).
    fn groups(s: &Sorted) -> Vec<(String, String, u64, bool)> {
        let mut got = Vec::new();
        s.try_for_each(|n, q, r| {
            got.push((s.text(0, r[0]).into(), s.text(1, r[1]).into(), n, q));
            Ok::<(), ()>(())
        })
        .unwrap();
        got
    }

    /// Groups over two batches come out in the order of a lexicographic sort of their texts
    /// (byte order: `B` < `a`, `10` < `9`; texts longer than a 128-bit key among them), ties by
    /// the flag, each with its count; ranks name the texts. The same packed in one word, wide
    /// from the first attribute, and wide from the second (the first's ranks read back from
    /// the words).
    #[test]
    fn sorts_as_the_texts_sort() {
        let long = "a text of more than fifteen bytes";
        let batches = [
            batch(
                &["a", "B", "a", "9"],
                &["x", long, "w", "z"],
                &[false; 4],
                &[1, 2, 3, 4],
            ),
            batch(
                &["10", "a", "a"],
                &["z", "x", "w"],
                &[false, true, true],
                &[5, 6, 7],
            ),
        ];
        let want = [
            ("10", "z", 5, false),
            ("9", "z", 4, false),
            ("B", long, 2, false),
            ("a", "w", 3, false),
            ("a", "w", 7, true),
            ("a", "x", 1, false),
            ("a", "x", 6, true),
        ];
        let want: Vec<(String, String, u64, bool)> = want
            .iter()
            .map(|&(a, b, n, q)| (a.to_string(), b.to_string(), n, q))
            .collect();
        // Attribute 0 takes 2 bits, attribute 1 2 bits, the flag 1.
        for word in [64, 5, 3, 0] {
            let s = Sorted::sort(&batches, 2, Some(2), 2, |a| Ok(a.clone()), word).unwrap();
            let packed = matches!(s.order, Order::Packed { .. });
            assert_eq!(packed, word >= 5, "word {word}");
            assert_eq!(groups(&s), want, "word {word}");
            assert_eq!((s.distinct(0), s.distinct(1)), (4, 4));
        }
    }

    /// Without a tie column, and with an attribute of one text (no bits at all).
    #[test]
    fn one_text_takes_no_bits() {
        let batches = [batch(
            &["b", "a", "c"],
            &["x", "x", "x"],
            &[true; 3],
            &[1, 2, 3],
        )];
        let s = Sorted::new(&batches, 2, None, 1, |a| Ok(a.clone())).unwrap();
        let got = groups(&s);
        let texts: Vec<(&str, u64, bool)> = got
            .iter()
            .map(|(a, _, n, q)| (a.as_str(), *n, *q))
            .collect();
        assert_eq!(texts, [("a", 2, false), ("b", 1, false), ("c", 3, false)]);
        assert_eq!(bits_for(1), 0);
        assert_eq!(bits_for(4), 2);
        assert_eq!(bits_for(5), 3);
    }
}
