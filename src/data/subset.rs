//! The research subset of δ-presence: which records of the population (the input) it holds.
//!
//! A `<delta-presence>` model names the subset in one of two ways ([`SubsetSpec`]; a run has one,
//! `PrivacyModel::research_subset`):
//! - `subset-index='N'`: column N of the input flags each record, `1` or `0` (also `true` /
//!   `false`, as `anonbox audit --subset-column` reads it: [`parse_flag`]); anything else is an
//!   error naming the input, line and column.
//! - `subset='FILE'`: a file of the subset's rows, in the input's layout (same separator, same
//!   header if the input has one; beside a columnar input, a Parquet or Arrow file, or delimited
//!   text with a header: [`crate::io::Format::beside`]). Each subset row must match a *distinct* input row: rows are
//!   compared field by field as the shared reader splits them, each field trimmed, so quoting and
//!   padding do not matter; a row given twice must occur twice in the input. A subset row left
//!   without a match is an error naming the subset file and its line. Rows containing `?` are
//!   skipped in both files alike.
//!
//! [`SubsetReader`] is fed every kept input row during the load ([`super::load::load_table`]) and returns
//! one flag per record. The subset file is read first into a map from row to the lines it
//! appears on, so the input is still read once and only the subset is held in memory.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use csv::ByteRecord;
use rustc_hash::FxHashMap;

use super::attributes::Source;
use crate::io::{trim, Format};
use crate::{Error, Result};

/// The research subset of δ-presence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum SubsetSpec {
    /// A file with the subset's rows (same layout as the input).
    File(PathBuf),
    /// A 0/1 column of the input (its index).
    Column(usize),
}

/// Parses a subset flag (a field of a `subset-index` column, trimmed): `1`/`true` or
/// `0`/`false` (`true`, `TRUE`, `True` and the same for false). `None` for anything else.
pub fn parse_flag(raw: &[u8]) -> Option<bool> {
    match raw {
        b"1" | b"true" | b"TRUE" | b"True" => Some(true),
        b"0" | b"false" | b"FALSE" | b"False" => Some(false),
        _ => None,
    }
}

/// Decides the subset membership of each input row, in input order.
#[derive(Debug)]
pub struct SubsetReader {
    input: PathBuf,
    kind: Kind,
    members: Vec<bool>,
    key: Vec<u8>,
}

#[derive(Debug)]
enum Kind {
    /// A 0/1 column of the input: its index and name (for messages).
    Column { index: usize, name: String },
    /// A subset file: each distinct row with the lines it still has to match.
    File {
        path: PathBuf,
        pending: FxHashMap<Box<[u8]>, VecDeque<u64>>,
        rows: u64,
    },
}

/// Appends the row's fields, trimmed and length-prefixed, to `key` (cleared first).
fn row_key(rec: &ByteRecord, key: &mut Vec<u8>) {
    key.clear();
    for f in rec.iter() {
        let f = trim(f);
        key.extend_from_slice(&(f.len() as u32).to_le_bytes());
        key.extend_from_slice(f);
    }
}

impl SubsetReader {
    /// A reader of the research subset `spec` of the input of `source`. Reads the subset file
    /// (if that is how the subset is given) and checks its header against the input's.
    pub fn new(source: &Source<'_>, spec: &SubsetSpec) -> Result<SubsetReader> {
        let format = &source.format;
        let input = source.path.to_path_buf();
        let header = format.open(&input)?.header().cloned();
        let kind = match spec {
            SubsetSpec::Column(index) => Kind::Column {
                index: *index,
                name: header
                    .as_ref()
                    .and_then(|h| h.get(*index))
                    .map_or(format!("att{index}"), |f| {
                        String::from_utf8_lossy(trim(f)).into_owned()
                    }),
            },
            SubsetSpec::File(path) => read_file(format, path, &input, header.as_ref())?,
        };
        Ok(SubsetReader {
            input,
            kind,
            members: Vec::new(),
            key: Vec::new(),
        })
    }

    /// Decides the membership of the next kept input row `rec`, read from `line`.
    pub fn row(&mut self, rec: &ByteRecord, line: u64) -> Result<()> {
        let member = match &mut self.kind {
            Kind::Column { index, name } => {
                let raw = trim(rec.get(*index).unwrap_or_default());
                parse_flag(raw).ok_or_else(|| {
                    Error::at(
                        &self.input,
                        line,
                        Some(name.clone()),
                        format!(
                            "subset flag '{}' is neither 1 nor 0",
                            String::from_utf8_lossy(raw)
                        ),
                    )
                })?
            }
            Kind::File { pending, .. } => {
                row_key(rec, &mut self.key);
                match pending.get_mut(self.key.as_slice()) {
                    Some(lines) => lines.pop_front().is_some(),
                    None => false,
                }
            }
        };
        self.members.push(member);
        Ok(())
    }

    /// The membership of every row, once all were seen. Fails on a subset row that matched no
    /// input row, and on an empty subset.
    pub fn finish(self) -> Result<Vec<bool>> {
        if let Kind::File {
            path,
            pending,
            rows,
        } = &self.kind
        {
            if let Some(line) = pending.values().filter_map(|l| l.front()).min() {
                return Err(Error::at(
                    path,
                    *line,
                    None,
                    format!(
                        "this research-subset row matches no remaining row of the input {} \
                         (each subset row must match a distinct input row)",
                        self.input.display()
                    ),
                ));
            }
            if *rows == 0 {
                return Err(Error::in_file(path, "the research subset has no rows"));
            }
        }
        if let Kind::Column { index, name } = &self.kind {
            if !self.members.iter().any(|&m| m) {
                return Err(Error::in_file(
                    &self.input,
                    format!(
                        "the research subset is empty: no row has 1 in column {index} ('{name}')"
                    ),
                ));
            }
        }
        Ok(self.members)
    }
}

/// Reads a subset file into a map from each distinct row to the lines it appears on.
fn read_file(
    format: &Format,
    path: &Path,
    input: &Path,
    header: Option<&ByteRecord>,
) -> Result<Kind> {
    let mut reader = format.beside(path).open(path)?;
    if let (Some(want), Some(got)) = (header, reader.header()) {
        if !want.iter().map(trim).eq(got.iter().map(trim)) {
            return Err(Error::at(
                path,
                1,
                None,
                format!(
                    "the header differs from the input's ({}): the research subset must have \
                     the input's layout",
                    input.display()
                ),
            ));
        }
    }
    let mut pending: FxHashMap<Box<[u8]>, VecDeque<u64>> = FxHashMap::default();
    let mut rec = ByteRecord::new();
    let mut key = Vec::new();
    let mut rows = 0u64;
    while reader.next_row(&mut rec)? {
        if let Some(h) = header {
            if rec.len() != h.len() {
                return Err(Error::at(
                    path,
                    reader.line(),
                    None,
                    format!(
                        "expected {} fields as in the input {}, found {}",
                        h.len(),
                        input.display(),
                        rec.len()
                    ),
                ));
            }
        }
        row_key(&rec, &mut key);
        pending
            .entry(key.as_slice().into())
            .or_default()
            .push_back(reader.line());
        rows += 1;
    }
    Ok(Kind::File {
        path: path.to_path_buf(),
        pending,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::parse_flag;

    #[test]
    fn flags() {
        for (raw, want) in [
            (&b"1"[..], Some(true)),
            (b"True", Some(true)),
            (b"0", Some(false)),
            (b"FALSE", Some(false)),
            (b"yes", None),
            (b"", None),
            (b"01", None),
        ] {
            assert_eq!(parse_flag(raw), want, "{raw:?}");
        }
    }
}
