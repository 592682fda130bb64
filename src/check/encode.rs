//! The transformer's encoding: generalized rows as packed integer keys.
//!
//! Each quasi-identifier column is re-coded densely over the values present in the data (`0..m`),
//! and at every level its generalized values get dense ids `0..` too (at most `m` of them). A
//! generalized row is then a mixed-radix number: column `j` contributes `id * mult[j]` to one
//! 64-bit word of a `[u64; W]` key (columns are packed greedily, a new word when the product of
//! radices would exceed 2^64). So the "buffer of generalized codes" of ARX is one key per row,
//! and changing column `j` from level `a` to level `b` is `key[w] += g[b] - g[a]` with
//! `g[l] = id(l) * mult[j]` precomputed per data code and level ([`Encoding::gm`]) in wrapping
//! arithmetic: exact, because every complete key fits its words.
//!
//! Items: the checker works on *items*, not rows. With deduplication on, an item is a distinct
//! quasi-identifier tuple of the input with its multiplicity as weight (ADULT: 19,502 items for
//! 30,162 rows, and the same 19,502 for any replication of it), so even a check from scratch costs
//! distinct tuples, not rows. Without it, every row is an item of weight 1.
//!
//! With a research subset (δ-presence) an item's weight counts its released records only, so
//! class counts are subset counts as in ARX; items of population records only weigh 0 and make
//! classes of count 0, which δ-presence still judges through its membership distribution.

use crate::data::EncodedTable;

/// Dense column codes and per-level premultiplied ids of one table.
#[derive(Debug, Clone)]
pub struct Encoding {
    /// Released records of the table (the research subset's, if it has one).
    pub rows: usize,
    pub dims: usize,
    /// Column-major dense codes: `codes[j][item]`.
    pub codes: Vec<Vec<u32>>,
    /// Records per item.
    pub weights: Vec<u32>,
    /// A row of each item.
    pub item_row: Vec<u32>,
    /// The item of each row.
    pub row_item: Vec<u32>,
    /// Levels per column.
    pub levels: Vec<usize>,
    /// `gm[j][code * levels[j] + level]` = dense id of `code` at `level`, times `mult[j]`.
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

/// Groups the rows of a row-major code array (`d` codes per row) by equal codes: returns the
/// item of each row and the first row of each item.
fn dedup_rows(codes: &[u32], d: usize) -> (Vec<u32>, Vec<u32>) {
    let n = codes.len().checked_div(d).unwrap_or(0);
    let row = |r: usize| &codes[r * d..(r + 1) * d];
    let hash = |v: &[u32]| {
        let mut h = 0u64;
        for pair in v.chunks(2) {
            let w = pair[0] as u64 | (pair.get(1).copied().unwrap_or(0) as u64) << 32;
            h = (h.rotate_left(29) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
        h
    };
    let mut bits = 12u32;
    let mut slots = vec![0u32; 1 << bits];
    let mut item_row: Vec<u32> = Vec::new();
    let mut item_hash: Vec<u64> = Vec::new();
    let mut row_item = Vec::with_capacity(n);
    for r in 0..n {
        let v = row(r);
        let h = hash(v);
        if (item_row.len() + 1) * 2 > slots.len() {
            bits += 1;
            slots = vec![0u32; 1 << bits];
            let mask = slots.len() - 1;
            for (it, &ih) in item_hash.iter().enumerate() {
                let mut i = (ih >> (64 - bits)) as usize;
                while slots[i] != 0 {
                    i = (i + 1) & mask;
                }
                slots[i] = it as u32 + 1;
            }
        }
        let mask = slots.len() - 1;
        let mut i = (h >> (64 - bits)) as usize;
        let item = loop {
            let s = slots[i];
            if s == 0 {
                let it = item_row.len() as u32;
                slots[i] = it + 1;
                item_row.push(r as u32);
                item_hash.push(h);
                break it;
            }
            let it = (s - 1) as usize;
            if item_hash[it] == h && row(item_row[it] as usize) == v {
                break it as u32;
            }
            i = (i + 1) & mask;
        };
        row_item.push(item);
    }
    (row_item, item_row)
}

impl Encoding {
    /// Encodes `table`; with `dedup`, items are its distinct quasi-identifier tuples, otherwise
    /// its rows.
    pub fn new(table: &EncodedTable, dedup: bool) -> Encoding {
        let n = table.rows();
        let d = table.width();
        let (row_item, item_row) = if dedup {
            dedup_rows(table.codes(), d)
        } else {
            ((0..n as u32).collect(), (0..n as u32).collect())
        };
        let mut weights = vec![0u32; item_row.len()];
        for (r, &i) in row_item.iter().enumerate() {
            weights[i as usize] += u32::from(table.is_released(r));
        }
        let items = item_row.len();
        let mut codes = vec![Vec::with_capacity(items); d];
        let mut leaf_of: Vec<Vec<u32>> = vec![Vec::new(); d];
        let mut dense_of: Vec<Vec<u32>> = table
            .hierarchies
            .iter()
            .map(|h| vec![u32::MAX; h.leaves()])
            .collect();
        for &r in &item_row {
            for (j, &leaf) in table.row(r as usize).iter().enumerate() {
                let slot = &mut dense_of[j][leaf as usize];
                if *slot == u32::MAX {
                    *slot = leaf_of[j].len() as u32;
                    leaf_of[j].push(leaf);
                }
                codes[j].push(*slot);
            }
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
            let m = leaf_of[j].len();
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
            // Dense ids per level, in order of first appearance over the dense codes.
            let mut ids = vec![0u32; m * l_count];
            let mut back = Vec::with_capacity(l_count);
            for l in 0..l_count {
                let mut map = vec![u32::MAX; h.width(l)];
                let mut b = Vec::new();
                for (c, &leaf) in leaf_of[j].iter().enumerate() {
                    let g = h.get(leaf, l);
                    let s = &mut map[g as usize];
                    if *s == u32::MAX {
                        *s = b.len() as u32;
                        b.push(g);
                    }
                    ids[c * l_count + l] = *s;
                }
                back.push(b);
            }
            let mlt = *mult.last().unwrap();
            gm.push(ids.iter().map(|&i| i as u64 * mlt).collect());
            hid.push(back);
            levels.push(l_count);
        }
        Encoding {
            rows: table.records(),
            dims: d,
            codes,
            weights,
            item_row,
            row_item,
            levels,
            gm,
            word,
            mult,
            radix,
            words: words.max(1),
            hid,
        }
    }

    /// Number of items.
    pub fn items(&self) -> usize {
        self.weights.len()
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
