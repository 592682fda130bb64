//! The transformer's encoding: generalized rows as packed integer keys.
//!
//! Each quasi-identifier column keeps the table's leaf codes, and at every level the generalized
//! values present in the data get dense ids `0..` (at most `m` of them, `m` the leaves present).
//! A generalized row is then a mixed-radix number: column `j` contributes `id * mult[j]` to one
//! 64-bit word of a `[u64; W]` key (columns are packed greedily, a new word when the product of
//! radices would exceed 2^64). So the "buffer of generalized codes" of ARX is one key per row,
//! and changing column `j` from level `a` to level `b` is `key[w] += g[b] - g[a]` with
//! `g[l] = id(l) * mult[j]` precomputed per leaf code and level ([`Encoding::gm`]) in wrapping
//! arithmetic: exact, because every complete key fits its words.
//!
//! Items: the checker works on *items*, not rows. With deduplication on, the items are the
//! table's distinct quasi-identifier tuples with their multiplicities as weights (ADULT: 19,502
//! items for 30,162 rows, and the same 19,502 for any replication of it), so even a check from
//! scratch costs distinct tuples, not rows; their codes are the table's own columns, borrowed,
//! not copied. Without it, every row is an item of weight 1 (the ablation benchmark).
//!
//! With a research subset (δ-presence) an item's weight counts its released records only, so
//! class counts are subset counts as in ARX; items of population records only weigh 0 and make
//! classes of count 0, which δ-presence still judges through its membership distribution.

use std::borrow::Cow;

use crate::data::{Column, EncodedTable};

/// Item codes and per-level premultiplied ids of one table.
#[derive(Debug, Clone)]
pub struct Encoding<'a> {
    /// Released records of the table (the research subset's, if it has one).
    pub rows: usize,
    pub dims: usize,
    /// Leaf codes by column and item (`codes[j].get(item)`), each column in its narrowest
    /// integer type.
    pub codes: Vec<Cow<'a, Column>>,
    /// Records per item.
    pub weights: Vec<u32>,
    /// The table's tuple of each item; `None`: item `i` is tuple `i`.
    item_tuple: Option<Vec<u32>>,
    /// The item of each row, as first numbered (see [`Encoding::item_of_row`]).
    row_item: Cow<'a, [u32]>,
    /// After [`Encoding::permute`]: each first-numbered item's place.
    item_rank: Option<Vec<u32>>,
    /// Levels per column.
    pub levels: Vec<usize>,
    /// `gm[j][code * levels[j] + level]` = dense id of leaf `code` at `level`, times `mult[j]`
    /// (0 for leaves absent from the data).
    pub gm: Vec<Vec<u64>>,
    /// Key word of each column.
    pub word: Vec<usize>,
    pub mult: Vec<u64>,
    pub radix: Vec<u64>,
    /// Number of key words needed.
    pub words: usize,
    /// `hid[j][level][dense id]` = hierarchy id (for decoding keys).
    pub hid: Vec<Vec<Vec<u32>>>,
}

impl<'a> Encoding<'a> {
    /// Encodes `table`; with `dedup`, items are its distinct quasi-identifier tuples, otherwise
    /// its rows.
    pub fn new(table: &'a EncodedTable, dedup: bool) -> Encoding<'a> {
        let d = table.width();
        let rows = table.record_tuples();
        let (codes, item_tuple, row_item): (Vec<Cow<'a, Column>>, _, Cow<'a, [u32]>) = if dedup {
            (
                (0..d)
                    .map(|j| Cow::Borrowed(table.column_codes(j)))
                    .collect(),
                None,
                Cow::Borrowed(rows),
            )
        } else {
            (
                (0..d)
                    .map(|j| {
                        let col = table.column(j);
                        Cow::Owned(Column::from_codes(
                            rows.iter().map(|&t| col.get(t as usize)),
                        ))
                    })
                    .collect(),
                Some(rows.to_vec()),
                Cow::Owned((0..rows.len() as u32).collect()),
            )
        };
        let items = if dedup { table.tuples() } else { rows.len() };
        let mut weights = vec![0u32; items];
        for (r, &i) in row_item.iter().enumerate() {
            weights[i as usize] += u32::from(table.is_released(r));
        }
        let mut gm = Vec::with_capacity(d);
        let mut hid = Vec::with_capacity(d);
        let mut levels = Vec::with_capacity(d);
        let mut word = Vec::with_capacity(d);
        let mut mult = Vec::with_capacity(d);
        let mut radix = Vec::with_capacity(d);
        let mut words = 0usize;
        let mut product: u128 = u128::MAX; // forces a first word
        for (j, h) in table.hierarchies.iter().enumerate() {
            // The leaves present, in order of first appearance among the items.
            let mut seen = vec![false; h.leaves()];
            let mut present: Vec<u32> = Vec::new();
            for c in codes[j].view().iter() {
                if !std::mem::replace(&mut seen[c as usize], true) {
                    present.push(c);
                }
            }
            let m = present.len();
            let l_count = h.levels();
            let rad = m.max(1) as u128;
            if product.saturating_mul(rad) > (1u128 << 64) {
                words += 1;
                product = 1;
            }
            word.push(words - 1);
            mult.push(product as u64);
            radix.push(rad as u64);
            product *= rad;
            let mlt = *mult.last().unwrap();
            // Dense ids per level, in order of first appearance over the present leaves.
            let mut g = vec![0u64; h.leaves() * l_count];
            let mut back = Vec::with_capacity(l_count);
            for l in 0..l_count {
                let mut map = vec![u32::MAX; h.width(l)];
                let mut b = Vec::new();
                for &leaf in &present {
                    let id = h.get(leaf, l);
                    let s = &mut map[id as usize];
                    if *s == u32::MAX {
                        *s = b.len() as u32;
                        b.push(id);
                    }
                    g[leaf as usize * l_count + l] = *s as u64 * mlt;
                }
                back.push(b);
            }
            gm.push(g);
            hid.push(back);
            levels.push(l_count);
        }
        Encoding {
            rows: table.records(),
            dims: d,
            codes,
            weights,
            item_tuple,
            row_item,
            item_rank: None,
            levels,
            gm,
            word,
            mult,
            radix,
            words: words.max(1),
            hid,
        }
    }

    /// The item of row `r`.
    #[inline]
    pub fn item_of_row(&self, r: usize) -> u32 {
        let i = self.row_item[r];
        self.item_rank.as_ref().map_or(i, |k| k[i as usize])
    }

    /// The item of every row.
    pub fn row_items(&self) -> Cow<'_, [u32]> {
        match &self.item_rank {
            None => Cow::Borrowed(&self.row_item),
            Some(k) => Cow::Owned(self.row_item.iter().map(|&i| k[i as usize]).collect()),
        }
    }

    /// Rows of the table (released or not).
    pub fn table_rows(&self) -> usize {
        self.row_item.len()
    }

    /// Puts the items in another order: item `order[i]` becomes item `i` (`order` is a
    /// permutation of the items). Its columns become copies; the rows keep their first
    /// numbering beside the new places (one number per item, not per row).
    pub fn permute(&mut self, order: &[u32]) {
        debug_assert_eq!(order.len(), self.items());
        for c in &mut self.codes {
            *c = Cow::Owned(c.gather(order));
        }
        self.weights = order.iter().map(|&i| self.weights[i as usize]).collect();
        let tuples: Vec<u32> = order.iter().map(|&i| self.tuple(i as usize)).collect();
        self.item_tuple = Some(tuples);
        let mut rank = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            rank[old as usize] = new as u32;
        }
        // Composed with an earlier permutation: first numbering -> old place -> new place.
        self.item_rank = Some(match self.item_rank.take() {
            Some(prev) => prev.iter().map(|&o| rank[o as usize]).collect(),
            None => rank,
        });
    }

    /// Number of items.
    pub fn items(&self) -> usize {
        self.weights.len()
    }

    /// The table's distinct tuple of `item`.
    #[inline]
    pub fn tuple(&self, item: usize) -> u32 {
        self.item_tuple.as_ref().map_or(item as u32, |t| t[item])
    }

    /// Hierarchy ids of a key at `levels`.
    pub fn decode<const W: usize>(&self, key: &[u64; W], levels: &[usize]) -> Vec<u32> {
        (0..self.dims)
            .map(|j| {
                let dense = (key[self.word[j]] / self.mult[j]) % self.radix[j];
                self.hid[j][levels[j]][dense as usize]
            })
            .collect()
    }
}
