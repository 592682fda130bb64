//! Moving keys between levels: the planned [`Steps`] of a transition and how a key, or a range
//! of the buffer's keys, takes them.
//!
//! A step changes one column of a key word from one level to another (`from`: `None` when the
//! key has not got the column yet), by adding `gm[to] - gm[from]` of the row's leaf code (see
//! `encode`), in wrapping arithmetic. When the table of what a step adds per leaf code
//! (`gm[to] - gm[from]`, "deltas") has no more entries than the keys to move, it is built once
//! per check and each key moves with one lookup per step instead of two.

use super::encode::Encoding;
use crate::data::Codes;

/// One transition step: column `j` in key word `word`, from level `from` (None: not yet
/// transformed) to level `to`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step {
    pub j: usize,
    pub word: usize,
    pub from: Option<usize>,
    pub to: usize,
}

/// A planned step resolved to its deltas ([`Steps::resolve`]): the column's codes, the deltas
/// by code and the key word.
pub(super) type Resolved<'e> = (Codes<'e>, &'e [u64], usize);

/// The steps of the current transition and their per-code deltas (see the module docs).
#[derive(Debug, Default)]
pub(super) struct Steps {
    pub list: Vec<Step>,
    /// Per-code key deltas of the steps (see [`Steps::plan_deltas`]), and where each step's
    /// start.
    deltas: Vec<u64>,
    delta_at: Vec<usize>,
}

impl Steps {
    /// Plans the steps that move keys at levels `from` (None: zero keys) to `to`; without
    /// `projection` every column is recomputed from zero.
    pub fn plan(&mut self, enc: &Encoding, projection: bool, from: Option<&[usize]>, to: &[usize]) {
        self.list.clear();
        for j in 0..enc.dims {
            let f = if projection { from.map(|f| f[j]) } else { None };
            if f != Some(to[j]) {
                self.list.push(Step {
                    j,
                    word: enc.word[j],
                    from: f,
                    to: to[j],
                });
            }
        }
    }

    /// True if some step rebuilds its column from zero.
    pub fn rebuilds(&self) -> bool {
        self.list.iter().any(|s| s.from.is_none())
    }

    /// Builds the deltas of the planned steps if that costs at most `items` entries: per step,
    /// for every code of its column, what the step adds to the key word (`gm[to] - gm[from]`),
    /// so a key moves with one lookup per step. Returns false (deltas not built) otherwise.
    pub fn plan_deltas(&mut self, enc: &Encoding, items: usize) -> bool {
        let total: usize = self
            .list
            .iter()
            .map(|s| enc.gm[s.j].len() / enc.levels[s.j].max(1))
            .sum();
        if total > items {
            return false;
        }
        self.deltas.clear();
        self.delta_at.clear();
        for s in &self.list {
            let l = enc.levels[s.j];
            let g = &enc.gm[s.j];
            self.delta_at.push(self.deltas.len());
            self.deltas
                .extend(g.chunks_exact(l).map(|row| match s.from {
                    Some(f) => row[s.to].wrapping_sub(row[f]),
                    None => row[s.to],
                }));
        }
        true
    }

    /// The planned steps with their deltas resolved (after [`Self::plan_deltas`] built them,
    /// `use_deltas`): per step, its column's codes, its deltas by code and its key word; none
    /// without deltas (the steps then go by two lookups in `gm`, [`apply`]).
    pub fn resolve<'e>(&'e self, enc: &'e Encoding, use_deltas: bool) -> Vec<Resolved<'e>> {
        if !use_deltas {
            return Vec::new();
        }
        self.list
            .iter()
            .zip(&self.delta_at)
            .map(|(s, &at)| {
                let n = enc.gm[s.j].len() / enc.levels[s.j].max(1);
                (enc.codes[s.j].view(), &self.deltas[at..at + n], s.word)
            })
            .collect()
    }
}

/// Applies the planned steps to one key, for source row `row`.
#[inline]
pub(super) fn apply<const W: usize>(
    enc: &Encoding,
    steps: &[Step],
    key: &mut [u64; W],
    row: usize,
) {
    for s in steps {
        let l = enc.levels[s.j];
        let base = enc.codes[s.j].get(row) as usize * l;
        let g = &enc.gm[s.j];
        let add = g[base + s.to];
        key[s.word] = match s.from {
            Some(f) => key[s.word].wrapping_sub(g[base + f]).wrapping_add(add),
            None => key[s.word].wrapping_add(add),
        };
    }
}

/// Applies resolved steps ([`Steps::resolve`]) to one key, for source row `row`.
#[inline(always)]
pub(super) fn apply_deltas<const W: usize>(cols: &[Resolved<'_>], key: &mut [u64; W], row: usize) {
    for &(codes, deltas, word) in cols {
        key[word] = key[word].wrapping_add(deltas[codes.get(row) as usize]);
    }
}

/// Moves a key by the planned steps: by their resolved deltas (`cols`, when built), else by
/// two lookups per step.
#[inline(always)]
pub(super) fn step_key<const W: usize>(
    enc: &Encoding,
    steps: &[Step],
    cols: &[Resolved<'_>],
    use_deltas: bool,
    key: &mut [u64; W],
    row: usize,
) {
    if use_deltas {
        apply_deltas(cols, key, row);
    } else {
        apply(enc, steps, key, row);
    }
}

/// Moves the buffer keys `keys` of items `start..` by the planned `steps` (`cols`: their
/// resolved deltas, or empty): one sequential sweep per changed column, adding what the step
/// adds to each leaf code's key (one lookup in a table of the column's leaves: on millions of
/// items the two lookups in `gm` missed the cache), or with two lookups when the leaves
/// outnumber the items. Steps from no level (rebuilding) zero the keys first.
pub(super) fn transform_range<const W: usize>(
    enc: &Encoding,
    steps: &[Step],
    cols: &[Resolved<'_>],
    keys: &mut [[u64; W]],
    start: usize,
) {
    let range = start..start + keys.len();
    if steps.iter().any(|s| s.from.is_none()) {
        keys.iter_mut().for_each(|k| *k = [0; W]);
    }
    if !cols.is_empty() || steps.is_empty() {
        for &(codes, deltas, w) in cols {
            crate::with_codes!(codes.slice(range.clone()), codes => {
                for (k, &c) in keys.iter_mut().zip(codes) {
                    k[w] = k[w].wrapping_add(deltas[c as usize]);
                }
            });
        }
        return;
    }
    for s in steps {
        let l = enc.levels[s.j];
        let g = &enc.gm[s.j];
        let w = s.word;
        crate::with_codes!(enc.codes[s.j].view().slice(range.clone()), codes => match s.from {
            Some(f) => {
                for (k, &c) in keys.iter_mut().zip(codes) {
                    let base = c as usize * l;
                    k[w] = k[w].wrapping_sub(g[base + f]).wrapping_add(g[base + s.to]);
                }
            }
            None => {
                for (k, &c) in keys.iter_mut().zip(codes) {
                    k[w] = k[w].wrapping_add(g[c as usize * l + s.to]);
                }
            }
        });
    }
}
