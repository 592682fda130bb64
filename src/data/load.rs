//! Reading the input once into dictionary codes: shared by both backends.
//!
//! [`RowEncoder`] turns one input row into codes, one per quasi-identifier and sensitive
//! attribute (in that order), validating as it goes; [`read_encoded`] drives it over a whole
//! file and hands each row's codes to a sink. The SQLite store's loader and the in-memory
//! [`load_table`] are two sinks of the same loop, so both see exactly the same rows, codes and
//! errors.
//!
//! Encoding per attribute:
//! - hierarchy-file quasi-identifier (or sensitive attribute with a hierarchy): the dictionary
//!   is seeded with the file's values in file order, so codes are the hierarchy's leaf codes; a
//!   value not in the file is an error.
//! - VGH quasi-identifier: the trimmed field becomes a point ([`Vgh::point`]: mapped category or
//!   number), labelled as the toolbox prints it ([`point_label`], `[73.0]`); codes follow first
//!   appearance. A new point must lie in some leaf ([`Vgh::path`]). After the load the hierarchy
//!   is built from the dictionary's points ([`Encoding`]).
//! - quasi-identifier with a hierarchy builder (`<intervals/>` in the config): the trimmed
//!   field, codes in order of first appearance, each new value checked by the builder (a
//!   non-number for intervals is a data error at its line); the records per code are counted.
//!   After the load the builder builds the hierarchy over the dictionary's values.
//! - sensitive attribute with a category map: the trimmed category, which must be mapped.
//! - other sensitive attribute: a number, labelled as Java prints it (`73.0`).
//!
//! Raw field bytes are looked up in a per-column cache first, so a repeated value costs one hash
//! lookup and no allocation.
//!
//! A load takes a [`Source`] (the input, its format and the roles of its columns, which the run
//! builds from its plan) and reports how far it has read to a [`LoadObserver`] (the interface's
//! progress bar, or `()`), every [`NOTICE_ROWS`] rows: the loop itself pays one comparison.

use std::path::{Path, PathBuf};

use csv::ByteRecord;
use rustc_hash::FxHashMap;

use super::subset::{SubsetReader, SubsetSpec};
use super::{Dictionary, EncodedTable, Generalization, SensitiveColumn, TupleBuilder};
use crate::hierarchy::build::Builder;
use crate::hierarchy::vgh::{point_label, CategoryMap, Vgh};
use crate::hierarchy::Hierarchy;
use crate::io::{self, ReadStats};
use crate::{Error, Result};

pub use super::attributes::Source;

/// Rows between two notices to a [`LoadObserver`].
pub const NOTICE_ROWS: u64 = 1 << 16;

/// Follows a load (see the module docs); `()` follows nothing.
pub trait LoadObserver: Send {
    /// The load starts reading an input of `bytes` bytes.
    fn start(&mut self, bytes: u64);
    /// `rows` records read, `bytes` bytes of the input consumed: every [`NOTICE_ROWS`] rows.
    fn read(&mut self, bytes: u64, rows: u64);
    /// The input is read.
    fn finish(&mut self);
}

impl LoadObserver for () {
    fn start(&mut self, _: u64) {}
    fn read(&mut self, _: u64, _: u64) {}
    fn finish(&mut self) {}
}

/// What a load read, besides the codes.
#[derive(Debug, Clone, Default)]
pub struct LoadSummary {
    /// Rows read, skipped (`?`), blank lines.
    pub stats: ReadStats,
    /// The header, if the input has one.
    pub header: Option<ByteRecord>,
    /// Fields per row.
    pub width: usize,
    /// Bytes of the input consumed.
    pub bytes_read: u64,
}

impl LoadSummary {
    /// Records kept (and encoded).
    pub fn records(&self) -> u64 {
        self.stats.records()
    }
}

/// The dictionaries and hierarchies a load produced.
#[derive(Debug, Clone)]
pub struct Encoding {
    /// One per quasi-identifier, in [`Source::qids`] order.
    pub qids: Vec<QidEncoding>,
    /// One per sensitive attribute, in [`Source::sensitive`] order.
    pub sensitive: Vec<SensitiveEncoding>,
}

/// A quasi-identifier's codes: dictionary (code -> level-0 label) and hierarchy over the codes.
#[derive(Debug, Clone)]
pub struct QidEncoding {
    pub name: String,
    /// Input column.
    pub index: usize,
    pub dictionary: Dictionary,
    /// Level-0 ids are the dictionary's codes.
    pub hierarchy: Hierarchy,
    /// What a suppressed record prints: the VGH root, or the hierarchy's top level.
    pub suppressed: String,
}

/// A sensitive attribute's codes.
#[derive(Debug, Clone)]
pub struct SensitiveEncoding {
    pub name: String,
    pub index: usize,
    pub dictionary: Dictionary,
    /// The value of each code, for numeric attributes (no map, no hierarchy).
    pub numeric: Option<Vec<f64>>,
    pub hierarchy: Option<Hierarchy>,
}

/// The in-memory table of a load: the distinct tuples, the quasi-identifiers' hierarchies and
/// the sensitive columns (`sens[s]`: column s's code per record) as `encoding` describes them.
pub fn finish_table(
    tuples: TupleBuilder,
    encoding: &Encoding,
    sens: Vec<Vec<u32>>,
) -> EncodedTable {
    let hierarchies = encoding.qids.iter().map(|q| q.hierarchy.clone()).collect();
    let sensitive = encoding
        .sensitive
        .iter()
        .zip(sens)
        .map(|(s, codes)| SensitiveColumn {
            name: s.name.clone(),
            codes,
            values: s.dictionary.values().to_vec(),
            numeric: s.numeric.clone(),
            hierarchy: s.hierarchy.clone(),
        })
        .collect();
    tuples.finish(hierarchies, sensitive)
}

/// The label suppressed records print for a hierarchy: its top level if that is one value,
/// else `*`.
pub fn top_label(h: &Hierarchy) -> String {
    let top = h.max_level();
    if h.width(top) == 1 {
        h.label(top, 0).to_string()
    } else {
        "*".to_string()
    }
}

/// Raw field bytes -> code. Fields of one to six ASCII digits (most numbers in real data) are
/// an index into a table by their length and value (4.4 MB, allocated when the first such
/// field shows up): no hashing, and the zip codes or ages of millions of rows stay in a few
/// cache-friendly pages. Other fields of up to 7 bytes are keyed by one `u64` holding their
/// bytes and length, longer ones by their boxed bytes. Keys are the raw bytes either way, so
/// `007` and `7` stay distinct fields.
#[derive(Default)]
struct FieldCache {
    /// `digits[DIGIT_BASE[len] + value]`: code + 1, 0 = not seen.
    digits: Vec<u32>,
    short: FxHashMap<u64, u32>,
    long: FxHashMap<Box<[u8]>, u32>,
}

/// Where the fields of each length start in [`FieldCache::digits`]: the sum of 10^i, i < len.
const DIGIT_BASE: [usize; 8] = [0, 0, 10, 110, 1_110, 11_110, 111_110, 1_111_110];

impl FieldCache {
    #[inline]
    fn digit_index(raw: &[u8]) -> Option<usize> {
        if raw.is_empty() || raw.len() > 6 {
            return None;
        }
        let mut v = 0usize;
        for &b in raw {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + d as usize;
        }
        Some(DIGIT_BASE[raw.len()] + v)
    }

    #[inline]
    fn short_key(raw: &[u8]) -> Option<u64> {
        (raw.len() < 8).then(|| {
            let mut b = [0u8; 8];
            b[..raw.len()].copy_from_slice(raw);
            b[7] = raw.len() as u8;
            u64::from_le_bytes(b)
        })
    }

    #[inline]
    fn get(&self, raw: &[u8]) -> Option<u32> {
        if let Some(i) = Self::digit_index(raw) {
            return self.digits.get(i).and_then(|&c| c.checked_sub(1));
        }
        match Self::short_key(raw) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(raw).copied(),
        }
    }

    fn insert(&mut self, raw: &[u8], code: u32) {
        if let Some(i) = Self::digit_index(raw) {
            if self.digits.is_empty() {
                self.digits = vec![0; DIGIT_BASE[7]];
            }
            self.digits[i] = code + 1;
            return;
        }
        match Self::short_key(raw) {
            Some(k) => self.short.insert(k, code),
            None => self.long.insert(raw.into(), code),
        };
    }
}

enum Column<'a> {
    /// Hierarchy file: the dictionary is the file's leaves.
    File { path: &'a Path },
    /// VGH: raw bytes -> code cache; the point of each code.
    Vgh {
        vgh: &'a Vgh,
        cache: FieldCache,
        points: Vec<f64>,
    },
    /// Hierarchy builder: codes follow first appearance, each new value checked by the
    /// builder; records per code, for builders that balance counts.
    Built {
        builder: &'a Builder,
        cache: FxHashMap<Box<[u8]>, u32>,
        counts: Vec<u64>,
    },
    /// Sensitive with a category map.
    Map { map: &'a CategoryMap },
    /// Sensitive number: raw bytes -> code cache; the value of each code.
    Number { cache: FieldCache, values: Vec<f64> },
}

struct ColumnEncoder<'a> {
    index: usize,
    name: &'a str,
    dictionary: Dictionary,
    kind: Column<'a>,
}

/// Encodes rows of one input (see the module docs).
pub struct RowEncoder<'a> {
    source: &'a Source<'a>,
    path: PathBuf,
    columns: Vec<ColumnEncoder<'a>>,
}

impl<'a> RowEncoder<'a> {
    /// An encoder for the quasi-identifiers and sensitive attributes of `source`.
    pub fn new(source: &'a Source<'a>) -> RowEncoder<'a> {
        let mut columns = Vec::with_capacity(source.qids.len() + source.sensitive.len());
        for q in source.qids {
            let (dictionary, kind) = match &q.generalization {
                Generalization::File { path, hierarchy } => (
                    Dictionary::seeded(hierarchy.labels(0)),
                    Column::File { path },
                ),
                Generalization::Built(builder) => (
                    Dictionary::new(),
                    Column::Built {
                        builder,
                        cache: FxHashMap::default(),
                        counts: Vec::new(),
                    },
                ),
                Generalization::Vgh(vgh) => (
                    Dictionary::new(),
                    Column::Vgh {
                        vgh,
                        cache: FieldCache::default(),
                        points: Vec::new(),
                    },
                ),
            };
            columns.push(ColumnEncoder {
                index: q.index,
                name: &q.name,
                dictionary,
                kind,
            });
        }
        for s in source.sensitive {
            let (dictionary, kind) = match (&s.hierarchy, &s.map) {
                (Some((path, h)), _) => (Dictionary::seeded(h.labels(0)), Column::File { path }),
                (None, Some(map)) => (Dictionary::new(), Column::Map { map }),
                (None, None) => (
                    Dictionary::new(),
                    Column::Number {
                        cache: FieldCache::default(),
                        values: Vec::new(),
                    },
                ),
            };
            columns.push(ColumnEncoder {
                index: s.index,
                name: &s.name,
                dictionary,
                kind,
            });
        }
        RowEncoder {
            source,
            path: source.path.to_path_buf(),
            columns,
        }
    }

    /// Codes per row: quasi-identifiers, then sensitive attributes.
    pub fn width(&self) -> usize {
        self.columns.len()
    }

    /// Checks that every attribute's column exists in rows of `width` fields.
    pub fn check_width(&self, width: usize, line: u64) -> Result<()> {
        let ids = self
            .source
            .ids
            .iter()
            .map(|&i| (i, "identifier".to_string()));
        let attrs = self
            .columns
            .iter()
            .map(|c| (c.index, format!("'{}'", c.name)));
        for (index, what) in attrs.chain(ids) {
            if index >= width {
                return Err(Error::at(
                    &self.path,
                    line,
                    None,
                    format!("column index {index} ({what}) is beyond the row's {width} fields"),
                ));
            }
        }
        Ok(())
    }

    /// Encodes one row (already checked to have the right width) into `out`
    /// (`out.len() == self.width()`). `line` is for error messages.
    #[inline]
    pub fn encode(&mut self, rec: &ByteRecord, line: u64, out: &mut [u32]) -> Result<()> {
        for (c, slot) in self.columns.iter_mut().zip(out.iter_mut()) {
            let raw = io::trim(&rec[c.index]);
            *slot = c
                .encode(raw, 1)
                .map_err(|msg| Error::at(&self.path, line, Some(c.name.to_string()), msg))?;
        }
        Ok(())
    }

    /// Encodes attribute `a`'s field (quasi-identifiers, then sensitive attributes) of a row
    /// that stands for `records` records (a group of a group-by): the code
    /// [`RowEncoder::encode`] gives it, and the value's record count (which equal-frequency
    /// bins and frequency groupings are built from) grows by `records`.
    #[inline]
    pub fn encode_field(&mut self, a: usize, raw: &[u8], records: u64) -> Result<u32> {
        let c = &mut self.columns[a];
        c.encode(io::trim(raw), records)
            .map_err(|msg| Error::at(&self.path, 0, Some(c.name.to_string()), msg))
    }

    /// Counts `records` more records of attribute `a`'s value `code`, encoded before: the
    /// same as encoding its field again, without reading it.
    #[inline]
    pub fn recount(&mut self, a: usize, code: u32, records: u64) {
        if let Column::Built { counts, .. } = &mut self.columns[a].kind {
            counts[code as usize] += records;
        }
    }

    /// The dictionaries and hierarchies, once every row is encoded.
    pub fn finish(self) -> Encoding {
        let nq = self.source.qids.len();
        let mut qids = Vec::with_capacity(nq);
        let mut sensitive = Vec::new();
        for (i, c) in self.columns.into_iter().enumerate() {
            if i < nq {
                let q = &self.source.qids[i];
                let (hierarchy, suppressed) = match (&q.generalization, &c.kind) {
                    (Generalization::File { hierarchy, .. }, _) => {
                        (hierarchy.clone(), top_label(hierarchy))
                    }
                    (Generalization::Vgh(vgh), Column::Vgh { points, .. }) => (
                        vgh_hierarchy(&q.name, vgh, points),
                        vgh.root_label().to_string(),
                    ),
                    (Generalization::Built(builder), Column::Built { counts, .. }) => {
                        let values: Vec<(&str, u64)> = c
                            .dictionary
                            .values()
                            .iter()
                            .zip(counts.iter().copied())
                            .collect();
                        let h = Hierarchy::from_label_rows(&q.name, builder.rows(&values));
                        let top = top_label(&h);
                        (h, top)
                    }
                    _ => unreachable!("quasi-identifier columns match their generalization"),
                };
                qids.push(QidEncoding {
                    name: q.name.clone(),
                    index: q.index,
                    dictionary: c.dictionary,
                    hierarchy,
                    suppressed,
                });
            } else {
                let s = &self.source.sensitive[i - nq];
                let numeric = match c.kind {
                    Column::Number { values, .. } => Some(values),
                    _ => None,
                };
                sensitive.push(SensitiveEncoding {
                    name: s.name.clone(),
                    index: s.index,
                    dictionary: c.dictionary,
                    numeric,
                    hierarchy: s.hierarchy.as_ref().map(|(_, h)| h.clone()),
                });
            }
        }
        Encoding { qids, sensitive }
    }
}

impl ColumnEncoder<'_> {
    /// The code of a trimmed field (of `records` records), or the message of what is wrong
    /// with it.
    #[inline]
    fn encode(&mut self, raw: &[u8], records: u64) -> std::result::Result<u32, String> {
        match &mut self.kind {
            Column::File { path } => {
                let v = crate::io::utf8_field(raw)?;
                self.dictionary.code(v).ok_or_else(|| {
                    format!(
                        "value '{v}' is not in the hierarchy file {}",
                        path.display()
                    )
                })
            }
            Column::Vgh { vgh, cache, points } => {
                if let Some(c) = cache.get(raw) {
                    return Ok(c);
                }
                let v = crate::io::utf8_field(raw)?;
                let x = vgh.point(v)?;
                let label = point_label(x);
                let (code, new) = self.dictionary.intern(&label);
                if new {
                    if vgh.leaf_chain(x).is_none() {
                        return Err(match &vgh.map {
                            Some(_) => format!(
                                "category '{v}' (mapped to {}) is outside every leaf of the VGH",
                                crate::javafmt::double_to_string(x)
                            ),
                            None => format!("value '{v}' is outside every leaf of the VGH"),
                        });
                    }
                    points.push(x);
                }
                cache.insert(raw, code);
                Ok(code)
            }
            Column::Built {
                builder,
                cache,
                counts,
            } => {
                if let Some(&c) = cache.get(raw) {
                    counts[c as usize] += records;
                    return Ok(c);
                }
                let v = crate::io::utf8_field(raw)?;
                builder.check(v)?;
                let (code, _) = self.dictionary.intern(v);
                cache.insert(raw.into(), code);
                counts.push(records);
                Ok(code)
            }
            Column::Map { map } => {
                let v = crate::io::utf8_field(raw)?;
                if let Some(c) = self.dictionary.code(v) {
                    return Ok(c);
                }
                if map.get(v).is_none() {
                    return Err(format!("unmapped category '{v}'"));
                }
                Ok(self.dictionary.intern(v).0)
            }
            Column::Number { cache, values } => {
                if let Some(c) = cache.get(raw) {
                    return Ok(c);
                }
                let v = crate::io::utf8_field(raw)?;
                let x = crate::javafmt::parse_double(v)
                    .ok_or_else(|| format!("'{v}' is not a number"))?;
                let (code, new) = self.dictionary.intern(&crate::javafmt::double_to_string(x));
                if new {
                    values.push(x);
                }
                cache.insert(raw, code);
                Ok(code)
            }
        }
    }
}

/// The hierarchy of a VGH quasi-identifier over its dictionary's points (code order). Paths of
/// unequal length (leaves at unequal depth, allowed for Mondrian) are padded with the root.
fn vgh_hierarchy(name: &str, vgh: &Vgh, points: &[f64]) -> Hierarchy {
    let mut rows: Vec<Vec<String>> = points
        .iter()
        .map(|&x| vgh.path(x).expect("points were checked at load"))
        .collect();
    let levels = rows.iter().map(Vec::len).max().unwrap_or(vgh.levels());
    for row in &mut rows {
        while row.len() < levels {
            row.push(vgh.root_label().to_string());
        }
    }
    Hierarchy::from_label_rows(name, &rows)
}

/// Reads the input of `source`, encodes every kept row and hands `(record number from 1, codes)`
/// to `sink`. Returns the encoding and what was read. Tells `observer` how far it has read.
pub fn read_encoded(
    source: &Source<'_>,
    observer: &mut dyn LoadObserver,
    mut sink: impl FnMut(u64, &[u32]) -> Result<()>,
) -> Result<(Encoding, LoadSummary)> {
    read_rows(source, observer, false, |n, codes, _, _| sink(n, codes))
}

/// [`read_encoded`], also handing the sink each row as read and its line.
/// A columnar input's row holds the attributes' fields only (the others empty) unless `whole`.
pub fn read_rows(
    source: &Source<'_>,
    observer: &mut dyn LoadObserver,
    whole: bool,
    sink: impl FnMut(u64, &[u32], &ByteRecord, u64) -> Result<()>,
) -> Result<(Encoding, LoadSummary)> {
    read_some(source, observer, u64::MAX, whole, sink)
}

/// [`read_rows`] over the first `max_records` records only: the rest of the input is never
/// read (`anonbox plan`). The summary counts what was read.
pub fn read_prefix(
    source: &Source<'_>,
    observer: &mut dyn LoadObserver,
    max_records: u64,
    sink: impl FnMut(u64, &[u32], &ByteRecord, u64) -> Result<()>,
) -> Result<(Encoding, LoadSummary)> {
    read_some(source, observer, max_records, false, sink)
}

fn read_some(
    source: &Source<'_>,
    observer: &mut dyn LoadObserver,
    max_records: u64,
    whole: bool,
    mut sink: impl FnMut(u64, &[u32], &ByteRecord, u64) -> Result<()>,
) -> Result<(Encoding, LoadSummary)> {
    let path = source.path;
    // A columnar input reads only the attributes' columns, unless the sink reads whole rows.
    let columns: Vec<usize> = source
        .qids
        .iter()
        .map(|q| q.index)
        .chain(source.sensitive.iter().map(|s| s.index))
        .chain(source.ids.iter().copied())
        .collect();
    let columns = (!whole).then_some(columns.as_slice());
    let mut reader = source.format.open_columns(path, columns)?;
    let total = io::input_size(path);
    observer.start(total);
    let mut notice = NOTICE_ROWS;
    let mut encoder = RowEncoder::new(source);
    let mut codes = vec![0u32; encoder.width()];
    let mut rec = ByteRecord::new();
    if let Some(h) = reader.header() {
        encoder.check_width(h.len(), 1)?;
    }
    let mut n = 0u64;
    while n < max_records && reader.next_row(&mut rec)? {
        if n == 0 && reader.header().is_none() {
            encoder.check_width(rec.len(), reader.line())?;
        }
        encoder.encode(&rec, reader.line(), &mut codes)?;
        n += 1;
        sink(n, &codes, &rec, reader.line())?;
        if n >= notice {
            notice = n + NOTICE_ROWS;
            observer.read(reader.bytes_read(), n);
        }
    }
    observer.finish();
    let summary = LoadSummary {
        stats: reader.stats(),
        header: reader.header().cloned(),
        width: reader.width().unwrap_or(0),
        bytes_read: reader.bytes_read(),
    };
    Ok((encoder.finish(), summary))
}

/// The in-memory loader: the whole input as an [`EncodedTable`] (Flash's representation). With
/// the research subset of a δ-presence model, the table carries it ([`super::subset`]).
pub fn load_table(
    source: &Source<'_>,
    subset: Option<&SubsetSpec>,
    observer: &mut dyn LoadObserver,
) -> Result<(EncodedTable, Encoding, LoadSummary)> {
    let nq = source.qids.len();
    let mut tuples = TupleBuilder::new(nq);
    let mut sens: Vec<Vec<u32>> = vec![Vec::new(); source.sensitive.len()];
    let mut subset = match subset {
        Some(spec) => Some(SubsetReader::new(source, spec)?),
        None => None,
    };
    // The subset's reader compares whole rows (or reads a column no attribute names).
    let whole = subset.is_some();
    let (encoding, summary) = read_rows(source, observer, whole, |_, codes, rec, line| {
        tuples.push(&codes[..nq]);
        for (col, &c) in sens.iter_mut().zip(&codes[nq..]) {
            col.push(c);
        }
        match &mut subset {
            Some(s) => s.row(rec, line),
            None => Ok(()),
        }
    })?;
    let mut table = finish_table(tuples, &encoding, sens);
    if let Some(s) = subset {
        table = table.with_subset(s.finish()?);
    }
    Ok((table, encoding, summary))
}

#[cfg(test)]
mod field_cache_tests {
    use super::FieldCache;

    /// Every kind of key finds its own code, and equal numbers written differently stay apart.
    #[test]
    fn keys_by_raw_bytes() {
        let mut c = FieldCache::default();
        let fields: [&[u8]; 9] = [
            b"7",
            b"007",
            b"0",
            b"999999",
            b"1000000",
            b"12a",
            b"",
            b"-3",
            b"a long field",
        ];
        for (i, f) in fields.iter().enumerate() {
            assert_eq!(c.get(f), None);
            c.insert(f, i as u32);
        }
        for (i, f) in fields.iter().enumerate() {
            assert_eq!(c.get(f), Some(i as u32), "{f:?}");
        }
        assert_eq!(c.get(b"07"), None);
    }
}
