//! Cell suppression (`-suppress cells`): sdcMicro's local suppression after a lattice search,
//! on the frequency set, read conservatively.
//!
//! The search chooses the transformation as with record suppression: its budget counts the
//! records whose cells may be blanked, which are exactly the records the transformation would
//! suppress (the records of the classes that fail the models), so the transformation is the
//! same optimum. Those records are then kept, and quasi-identifier cells of theirs are blanked
//! (printed as the suppression label, the attribute's top) instead of the whole record; the
//! records of the classes that pass are never touched.
//!
//! A blanked cell is a value of its own, `*`: a record's class is the set of records that print
//! the same labels, blanks included (sdcMicro's `alpha = 0`; its default, `alpha = 1`, lets a
//! missing value match every value, a reading under which the released text is not k-anonymous).
//! Keys are built on that reading: a cell whose label already is the suppression label (an
//! attribute at its top) counts as blank, so two keys are equal exactly when the printed
//! tuples are.
//!
//! The failing classes of the transformation are the groups to place (each a generalized tuple
//! with its distinct tuples: its records print alike, so they are placed together). Blank
//! patterns (sets of attributes to blank) are tried by size, one attribute first, then two, ...,
//! and among patterns of one size in the blanking order ([`blank_order`]); for each pattern the
//! groups still unplaced are pooled by the key they print under it, with the class of released
//! records already printing that key, and a pool is placed when the pooled class satisfies every
//! model (judged as the checker judges a class: size and sensitive distributions). So each group
//! gets the smallest pattern under which it joins a class that satisfies the models, preferring
//! the attributes blanked first. With more than 12 quasi-identifiers, the patterns stop at 4,096,
//! and the larger ones are the prefixes of the blanking order. The last pattern blanks every
//! attribute: what is left then prints as a record-suppressed record does (every cell `*`) and
//! is counted as suppressed, as the records of a record suppression are.
//!
//! The result blanks at most the cells a record suppression would (every quasi-identifier of
//! every record it removes), keeps every record that does not end fully blanked, and every class
//! of the release (read as plain text, fully blanked records aside) satisfies every model. Fewest
//! cells is NP-hard (Meyerson and Williams, 2004); the greedy order above is a heuristic.
//!
//! Only models judged class by class can be enforced so: k-anonymity, the l-diversities and
//! t-closeness ([`enforceable`]); the others are refused with the config.

use rustc_hash::{FxHashMap, FxHashSet};

use super::mondrian::hierarchical::Judge;
use crate::data::EncodedTable;
use crate::privacy::{self, PrivacyModel};
use crate::{Error, Result};

/// A blanked cell in a class key.
pub const BLANK: u32 = u32::MAX;

/// `tuple_class` of a tuple whose records are suppressed (every cell blanked, and still failing).
pub const SUPPRESSED: u32 = u32::MAX;

/// Most blank patterns tried: every subset of up to 12 quasi-identifiers.
const MAX_PATTERNS: usize = 4096;

/// What a lattice search does with the records of the classes that fail the models
/// (`-suppress`, root attribute `suppress`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Suppress {
    /// Every quasi-identifier of those records is suppressed (ARX's record suppression).
    #[default]
    Records,
    /// Their records are kept, and the fewest cells blanked (this module).
    Cells,
}

impl Suppress {
    pub const NAMES: &'static [&'static str] = &["records", "cells"];

    /// The mode named `s` (any case).
    pub fn parse(s: &str) -> Option<Suppress> {
        match s.trim().to_ascii_lowercase().as_str() {
            "records" => Some(Suppress::Records),
            "cells" => Some(Suppress::Cells),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Suppress::Records => "records",
            Suppress::Cells => "cells",
        }
    }
}

/// What a cell suppression is asked for.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    /// k of k-anonymity without `<privacy>` (as the lattice search has it).
    pub k: u64,
    pub privacy: &'a [PrivacyModel],
    /// `importance[q]`: 1 is the most important attribute, blanked last (sdcMicro's
    /// `importance`); `None`: ranked by [`blank_order`]'s default.
    pub importance: &'a [Option<u32>],
    /// `blank[q]`: what a blanked cell of quasi-identifier `q` prints (its suppression label).
    pub blank: &'a [String],
}

/// Whether cell suppression enforces `model`: it judges each class alone.
pub fn enforceable(model: &PrivacyModel) -> bool {
    matches!(
        model,
        PrivacyModel::KAnonymity { .. }
            | PrivacyModel::DistinctL { .. }
            | PrivacyModel::EntropyL { .. }
            | PrivacyModel::RecursiveCL { .. }
            | PrivacyModel::TCloseness { .. }
    )
}

/// The release of a cell suppression.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRelease {
    /// Quasi-identifiers.
    pub width: usize,
    /// `keys[c * width + q]`: class `c`'s id at quasi-identifier `q`'s level, or [`BLANK`].
    pub keys: Vec<u32>,
    /// Released records per class.
    pub sizes: Vec<u64>,
    /// `tuple_class[t]`: the class of distinct tuple `t`, or [`SUPPRESSED`].
    pub tuple_class: Vec<u32>,
    /// Quasi-identifiers in blanking order (the first is blanked first).
    pub order: Vec<usize>,
    /// Per quasi-identifier, the cells blanked (records whose label it changed).
    pub cells: Vec<u64>,
    /// Records with at least one cell blanked, suppressed ones included.
    pub records_touched: u64,
    /// Records left with every cell blank in a class failing the models.
    pub records_suppressed: u64,
    /// Records the transformation alone would suppress: those cell suppression placed.
    pub records_failing: u64,
}

impl CellRelease {
    /// Classes released.
    pub fn classes(&self) -> usize {
        self.sizes.len()
    }

    /// The printed label of class `c` on quasi-identifier `q`.
    pub fn label<'a>(
        &self,
        table: &'a EncodedTable,
        levels: &[usize],
        blank: &'a [String],
        c: usize,
        q: usize,
    ) -> &'a str {
        match self.keys[c * self.width + q] {
            BLANK => blank[q].as_str(),
            id => table.hierarchies[q].label(levels[q], id),
        }
    }

    /// Cells blanked in all.
    pub fn total_cells(&self) -> u64 {
        self.cells.iter().sum()
    }
}

/// The order in which quasi-identifiers are blanked, first blanked first: those without an
/// importance, then by importance from the least important (the largest number); ties, and
/// attributes without importance, by sdcMicro's default: most distinct values (`distinct[q]`,
/// at the released level) first, then the later attribute of `<qid>` first.
pub fn blank_order(importance: &[Option<u32>], distinct: &[usize]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..distinct.len()).collect();
    order.sort_by_key(|&q| {
        let imp = importance.get(q).copied().flatten();
        (
            imp.is_some(),
            std::cmp::Reverse(imp.unwrap_or(0)),
            std::cmp::Reverse(distinct[q]),
            std::cmp::Reverse(q),
        )
    });
    order
}

/// Blank patterns (sets of quasi-identifiers) in the order they are tried: by size, and within
/// a size lexicographically over the blanking `order`; at most [`MAX_PATTERNS`] of sizes below
/// `d` (then the prefixes of `order`), and the last one blanks every attribute.
fn patterns(order: &[usize]) -> Vec<Vec<usize>> {
    let d = order.len();
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut full = true;
    for s in 1..=d {
        if full && out.len() + binomial(d, s).min(MAX_PATTERNS + 1) <= MAX_PATTERNS {
            // Every combination of s ranks, lexicographically.
            let mut idx: Vec<usize> = (0..s).collect();
            loop {
                out.push(idx.iter().map(|&i| order[i]).collect());
                let Some(i) = (0..s).rev().find(|&i| idx[i] != i + d - s) else {
                    break;
                };
                idx[i] += 1;
                for j in i + 1..s {
                    idx[j] = idx[j - 1] + 1;
                }
            }
        } else {
            full = false;
            out.push(order[..s].to_vec());
        }
    }
    out
}

/// n choose k, saturating.
fn binomial(n: usize, k: usize) -> usize {
    let mut r: usize = 1;
    for i in 0..k {
        r = r.saturating_mul(n - i) / (i + 1);
    }
    r
}

/// A failing class of the transformation: its key, distinct tuples and records.
struct Group {
    key: Vec<u32>,
    tuples: Vec<u32>,
    size: u64,
}

/// Blanks cells of the records `suppressed` marks (the rows a lattice search suppresses at
/// `levels`) until every class satisfies the models (see the module docs).
pub fn suppress(
    table: &EncodedTable,
    levels: &[usize],
    suppressed: &[bool],
    params: &Params<'_>,
) -> Result<CellRelease> {
    if let Some(m) = params.privacy.iter().find(|m| !enforceable(m)) {
        return Err(Error::Invalid(format!(
            "cell suppression does not enforce {m:?}: it judges each class alone (k-anonymity, \
             l-diversity, t-closeness)"
        )));
    }
    let d = table.width();
    let n = table.tuples();
    let mut counts = vec![0u64; n];
    let mut failing = vec![false; n];
    for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
        let t = table.tuple_of(r);
        counts[t] += 1;
        if suppressed.get(r).copied().unwrap_or(false) {
            failing[t] = true;
        }
    }
    // The id that prints the suppression label at each attribute's level, if any: such a cell
    // is blank already.
    let blank_id: Vec<Option<u32>> = (0..d)
        .map(|q| {
            table.hierarchies[q]
                .labels(levels[q])
                .find(params.blank[q].as_bytes())
        })
        .collect();
    let key_of = |t: usize| -> Vec<u32> {
        table
            .tuple(t)
            .zip(&table.hierarchies)
            .enumerate()
            .map(|(q, (code, h))| {
                let id = h.get(code, levels[q]);
                if Some(id) == blank_id[q] {
                    BLANK
                } else {
                    id
                }
            })
            .collect()
    };

    let mut index: FxHashMap<Vec<u32>, u32> = FxHashMap::default();
    let mut keys: Vec<u32> = Vec::new();
    let mut members: Vec<Vec<u32>> = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    let mut tuple_class = vec![SUPPRESSED; n];
    let mut group_index: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    let mut groups: Vec<Group> = Vec::new();
    let mut distinct: Vec<FxHashSet<u32>> = vec![FxHashSet::default(); d];
    for t in (0..n).filter(|&t| counts[t] > 0) {
        let key = key_of(t);
        for (set, &id) in distinct.iter_mut().zip(&key) {
            if id != BLANK {
                set.insert(id);
            }
        }
        if failing[t] {
            let g = *group_index.entry(key.clone()).or_insert_with(|| {
                groups.push(Group {
                    key,
                    tuples: Vec::new(),
                    size: 0,
                });
                groups.len() - 1
            });
            groups[g].tuples.push(t as u32);
            groups[g].size += counts[t];
        } else {
            let c = class_of(&mut index, &mut keys, &mut members, &mut sizes, &key);
            members[c as usize].push(t as u32);
            sizes[c as usize] += counts[t];
            tuple_class[t] = c;
        }
    }
    drop(group_index);
    let order = blank_order(
        params.importance,
        &distinct.iter().map(|s| s.len()).collect::<Vec<_>>(),
    );

    let mut judge = Judge::of_criteria(table, privacy::build(params.privacy, params.k, table)?);
    let mut placed: Vec<u32> = vec![SUPPRESSED; groups.len()];
    let mut pending: Vec<usize> = (0..groups.len()).collect();
    let mut pooled: Vec<u32> = Vec::new();
    for pattern in patterns(&order) {
        if pending.is_empty() {
            break;
        }
        // The unplaced groups by the key they print under the pattern, in first-seen order.
        let mut pools: FxHashMap<Vec<u32>, Vec<usize>> = FxHashMap::default();
        let mut seen: Vec<Vec<u32>> = Vec::new();
        for &g in &pending {
            let mut key = groups[g].key.clone();
            for &q in &pattern {
                key[q] = BLANK;
            }
            pools
                .entry(key)
                .or_insert_with_key(|k| {
                    seen.push(k.clone());
                    Vec::new()
                })
                .push(g);
        }
        for key in seen {
            let pool = &pools[&key];
            pooled.clear();
            if let Some(&c) = index.get(&key) {
                pooled.extend_from_slice(&members[c as usize]);
            }
            for &g in pool {
                pooled.extend_from_slice(&groups[g].tuples);
            }
            if judge.fails(&pooled, &counts).is_some() {
                continue;
            }
            let c = class_of(&mut index, &mut keys, &mut members, &mut sizes, &key);
            for &g in pool {
                members[c as usize].extend_from_slice(&groups[g].tuples);
                sizes[c as usize] += groups[g].size;
                placed[g] = c;
            }
        }
        pending.retain(|&g| placed[g] == SUPPRESSED);
    }

    let mut cells = vec![0u64; d];
    let (mut touched, mut records_suppressed, mut records_failing) = (0u64, 0u64, 0u64);
    for (g, group) in groups.iter().enumerate() {
        records_failing += group.size;
        let c = placed[g];
        let mut blanked = false;
        for q in 0..d {
            let after = if c == SUPPRESSED {
                BLANK
            } else {
                keys[c as usize * d + q]
            };
            if after == BLANK && group.key[q] != BLANK {
                cells[q] += group.size;
                blanked = true;
            }
        }
        if blanked {
            touched += group.size;
        }
        if c == SUPPRESSED {
            records_suppressed += group.size;
        }
        for &t in &group.tuples {
            tuple_class[t as usize] = c;
        }
    }
    Ok(CellRelease {
        width: d,
        keys,
        sizes,
        tuple_class,
        order,
        cells,
        records_touched: touched,
        records_suppressed,
        records_failing,
    })
}

/// The class printing `key`, created empty if there is none.
fn class_of(
    index: &mut FxHashMap<Vec<u32>, u32>,
    keys: &mut Vec<u32>,
    members: &mut Vec<Vec<u32>>,
    sizes: &mut Vec<u64>,
    key: &[u32],
) -> u32 {
    if let Some(&c) = index.get(key) {
        return c;
    }
    let c = sizes.len() as u32;
    index.insert(key.to_vec(), c);
    keys.extend_from_slice(key);
    members.push(Vec::new());
    sizes.push(0);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hierarchy::Hierarchy;

    fn hierarchy(name: &str, rows: &[&[&str]]) -> Hierarchy {
        Hierarchy::from_label_rows(
            name,
            rows.iter()
                .map(|r| r.iter().map(|s| s.to_string()).collect::<Vec<String>>()),
        )
    }

    #[test]
    fn patterns_by_size_then_order() {
        let p = patterns(&[2, 0, 1]);
        assert_eq!(
            p,
            vec![
                vec![2],
                vec![0],
                vec![1],
                vec![2, 0],
                vec![2, 1],
                vec![0, 1],
                vec![2, 0, 1]
            ]
        );
        // 20 attributes: sizes 1 to 3 in full (20 + 190 + 1140), then prefixes.
        let order: Vec<usize> = (0..20).collect();
        let p = patterns(&order);
        assert_eq!(p.len(), 20 + 190 + 1140 + 17);
        assert_eq!(p.last().unwrap().len(), 20);
        assert_eq!(p[1350], (0..4).collect::<Vec<_>>());
    }

    #[test]
    fn default_order_is_most_distinct_first_and_importance_overrides() {
        assert_eq!(blank_order(&[None, None, None], &[3, 10, 3]), vec![1, 2, 0]);
        // Ranked attributes are blanked after unranked ones, the least important first.
        assert_eq!(
            blank_order(&[Some(1), None, Some(2)], &[3, 10, 3]),
            vec![1, 2, 0]
        );
        assert_eq!(
            blank_order(&[Some(2), Some(1), Some(3)], &[3, 10, 3]),
            vec![2, 0, 1]
        );
    }

    /// Two attributes at level 0, records given as (h1, h2) codes.
    fn table(rows: &[[u32; 2]]) -> EncodedTable {
        let h1 = hierarchy("h1", &[&["a", "*"], &["b", "*"], &["c", "*"], &["d", "*"]]);
        let h2 = hierarchy("h2", &[&["x", "*"], &["y", "*"], &["z", "*"]]);
        EncodedTable::new(rows.concat(), vec![h1, h2], Vec::new())
    }

    const BLANKS: [&str; 2] = ["*", "*"];

    fn run(
        table: &EncodedTable,
        suppressed: &[bool],
        k: u64,
        importance: &[Option<u32>],
    ) -> CellRelease {
        let blank: Vec<String> = BLANKS.iter().map(|s| s.to_string()).collect();
        let params = Params {
            k,
            privacy: &[],
            importance,
            blank: &blank,
        };
        suppress(table, &[0, 0], suppressed, &params).unwrap()
    }

    #[test]
    fn blanks_the_cells_that_pool_failing_records() {
        // (a,x) (a,x) (a,y) (b,y) (b,y) (c,z); k = 2 suppresses (a,y) and (c,z).
        let table = table(&[[0, 0], [0, 0], [0, 1], [1, 1], [1, 1], [2, 2]]);
        let suppressed = [false, false, true, false, false, true];
        let r = run(&table, &suppressed, 2, &[None, None]);
        // Three distinct values each: the later attribute is blanked first. (a,*) and (c,*)
        // differ, and so do (*,y) and (*,z); blanking both pools them: (*,*) of two.
        assert_eq!(r.order, vec![1, 0]);
        assert_eq!(r.records_failing, 2);
        assert_eq!(r.records_suppressed, 0);
        assert_eq!(r.records_touched, 2);
        assert_eq!(r.cells, vec![2, 2]);
        let c = r.tuple_class[table.tuple_of(2)] as usize;
        assert_eq!(r.sizes[c], 2);
        assert_eq!(&r.keys[c * 2..c * 2 + 2], &[BLANK, BLANK]);
        // The valid classes are untouched.
        let a = r.tuple_class[table.tuple_of(0)] as usize;
        assert_eq!((r.sizes[a], &r.keys[a * 2..a * 2 + 2]), (2, &[0, 0][..]));

        // With k = 3 the pool of two fails even fully blanked: suppressed, as records are.
        let r = run(&table, &suppressed, 3, &[None, None]);
        assert_eq!(r.records_suppressed, 2);
        assert_eq!(r.tuple_class[table.tuple_of(5)], SUPPRESSED);
    }

    #[test]
    fn the_most_important_attribute_is_blanked_only_when_nothing_else_works() {
        // Valid (a,x) (a,x) (b,y) (b,y); failing (c,x) (c,y) (d,x), k = 2. Blanking h2 pools
        // (c,x) and (c,y) as (c,*); blanking h1 pools (c,x) and (d,x) as (*,x).
        let rows = [[0, 0], [0, 0], [1, 1], [1, 1], [2, 0], [2, 1], [3, 0]];
        let table = table(&rows);
        let suppressed = [false, false, false, false, true, true, true];
        // h1 most important: h2 is blanked, (c,*) of two; (d,x) is left alone, fully blanked.
        let r = run(&table, &suppressed, 2, &[Some(1), Some(2)]);
        assert_eq!(r.order, vec![1, 0]);
        let c = r.tuple_class[table.tuple_of(4)] as usize;
        assert_eq!(&r.keys[c * 2..c * 2 + 2], &[2, BLANK]);
        assert_eq!(r.records_suppressed, 1);
        assert_eq!(r.cells, vec![1, 3]);
        // h2 most important: h1 is blanked, (*,x) of two.
        let r = run(&table, &suppressed, 2, &[Some(2), Some(1)]);
        assert_eq!(r.order, vec![0, 1]);
        let c = r.tuple_class[table.tuple_of(4)] as usize;
        assert_eq!(&r.keys[c * 2..c * 2 + 2], &[BLANK, 0]);
        assert_eq!(r.cells, vec![3, 1]);
    }
}
