//! The frequency set's groups in one order on the driver.
//!
//! A group-by returns its groups in no particular order (partitions race), yet the driver must
//! number values and tuples the same way on every run. Sorting the groups by their texts (a
//! lexicographic sort of strings) was most of the driver's work on inputs where nearly every
//! tuple is distinct. Here each attribute's distinct texts are ranked once in byte order (one
//! hash lookup a cell, one sort of the distinct texts), and the groups are sorted by their
//! ranks: small integers, compared without touching a string. The order is the same as the
//! texts' (rank order is byte order), so is every code the driver hands out.
//!
//! A rank also names its text: [`Sorted::text`] reads it from the first group that holds it,
//! and the release's text -> code map is made once per distinct text, not once per group.

use arrow::array::{Array, ArrayRef, AsArray, RecordBatch};
use rustc_hash::FxHashMap;

use crate::Result;

/// The groups of `batches` (their first `attrs` columns are the attributes' texts, as `Utf8`),
/// sorted by those texts; ties (groups that differ only in the columns after them) keep a
/// fixed order by the `tie` column, a boolean, when given.
pub struct Sorted {
    /// Per batch, per attribute: the texts.
    texts: Vec<Vec<ArrayRef>>,
    /// Each group's (batch, row).
    at: Vec<(u32, u32)>,
    /// Each group's ranks, `attrs` a group.
    ranks: Vec<u32>,
    attrs: usize,
    /// Per attribute, per rank: the group (index into `at`) where its text is found.
    first: Vec<Vec<u32>>,
    /// The groups in order.
    order: Vec<u32>,
}

impl Sorted {
    /// Ranks and sorts the groups of `batches`; `utf8` turns a column into `Utf8`.
    pub fn new(
        batches: &[RecordBatch],
        attrs: usize,
        tie: Option<usize>,
        utf8: impl Fn(&ArrayRef) -> Result<ArrayRef>,
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
        let mut ranks = vec![0u32; groups * attrs];
        let mut first = Vec::with_capacity(attrs);
        for a in 0..attrs {
            // Each distinct text numbered as met, with the group where it was met.
            let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
            let mut met: Vec<u32> = Vec::new();
            let mut g = 0usize;
            for cols in &texts {
                let s = cols[a].as_string::<i32>();
                for row in 0..s.len() {
                    let next = met.len() as u32;
                    let id = *ids.entry(s.value(row)).or_insert_with(|| {
                        met.push(g as u32);
                        next
                    });
                    ranks[g * attrs + a] = id;
                    g += 1;
                }
            }
            drop(ids);
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
            for g in 0..groups {
                let k = &mut ranks[g * attrs + a];
                *k = rank_of[*k as usize];
            }
            first.push(by_text.iter().map(|&id| met[id as usize]).collect());
        }
        let flag = |g: u32| {
            tie.is_some_and(|c| {
                let (b, r) = at[g as usize];
                batches[b as usize].column(c).as_boolean().value(r as usize)
            })
        };
        let mut order: Vec<u32> = (0..groups as u32).collect();
        order.sort_unstable_by(|&x, &y| {
            let (x, y) = (x as usize, y as usize);
            ranks[x * attrs..(x + 1) * attrs]
                .cmp(&ranks[y * attrs..(y + 1) * attrs])
                .then_with(|| flag(x as u32).cmp(&flag(y as u32)))
        });
        Ok(Sorted {
            texts,
            at,
            ranks,
            attrs,
            first,
            order,
        })
    }

    /// The groups in order: each one's (batch, row) and its ranks.
    pub fn iter(&self) -> impl Iterator<Item = ((usize, usize), &[u32])> + '_ {
        self.order.iter().map(|&g| {
            let g = g as usize;
            let (b, r) = self.at[g];
            (
                (b as usize, r as usize),
                &self.ranks[g * self.attrs..(g + 1) * self.attrs],
            )
        })
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow::array::{BooleanArray, StringArray};
    use arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    fn batch(a: &[&str], b: &[&str], q: &[bool]) -> RecordBatch {
        let schema = Schema::new(vec![
            Field::new("a", DataType::Utf8, false),
            Field::new("b", DataType::Utf8, false),
            Field::new("q", DataType::Boolean, false),
        ]);
        RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(StringArray::from(a.to_vec())),
                Arc::new(StringArray::from(b.to_vec())),
                Arc::new(BooleanArray::from(q.to_vec())),
            ],
        )
        .unwrap()
    }

    /// Groups over two batches come out in the order of a lexicographic sort of their texts
    /// (byte order: `B` < `a`, `10` < `9`), ties by the flag; ranks name the texts.
    #[test]
    fn sorts_as_the_texts_sort() {
        let batches = [
            batch(&["a", "B", "a", "9"], &["x", "y", "w", "z"], &[false; 4]),
            batch(&["10", "a", "a"], &["z", "x", "w"], &[false, true, true]),
        ];
        let s = Sorted::new(&batches, 2, Some(2), |a| Ok(a.clone())).unwrap();
        let got: Vec<(String, String, (usize, usize))> = s
            .iter()
            .map(|(at, r)| (s.text(0, r[0]).into(), s.text(1, r[1]).into(), at))
            .collect();
        let want = [
            ("10", "z", (1, 0)),
            ("9", "z", (0, 3)),
            ("B", "y", (0, 1)),
            ("a", "w", (0, 2)),
            ("a", "w", (1, 2)),
            ("a", "x", (0, 0)),
            ("a", "x", (1, 1)),
        ];
        let want: Vec<(String, String, (usize, usize))> = want
            .iter()
            .map(|(a, b, at)| (a.to_string(), b.to_string(), *at))
            .collect();
        assert_eq!(got, want);
        assert_eq!((s.distinct(0), s.distinct(1)), (4, 4));
    }
}
