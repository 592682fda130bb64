//! `categories`: categories generalized by a mapping, or the rare ones grouped.
//!
//! - `map=FILE`: a mapping file `value;group` (`;`-separated, CSV quoting, no header), with
//!   more columns for more levels (`value;group;supergroup`), read and checked as an ARX
//!   hierarchy file (one line per value, equal width, monotonic). Every value of the data must
//!   be in it (a data error names the line of the first one that is not); values of the file
//!   absent from the data are left out of the built hierarchy. `*` is added on top unless the
//!   file's last column already is `*` alone.
//! - `frequency=N`: values held by fewer than `N` records become `Other` (`other=LABEL`) at
//!   level 1, the others stay as they are; then `*`. Rare values are the re-identifying ones,
//!   and grouping them first keeps the frequent ones readable.
//! - neither: `value;*`, the usual hierarchy of a category with few values.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::{Params, TOP};

/// Parameters `categories` accepts.
pub const PARAMS: &[&str] = &["map", "frequency", "other"];

#[derive(Debug, Clone, PartialEq)]
enum Grouping {
    /// Value -> its labels at levels 1.. (the file's columns after the first).
    Map {
        path: PathBuf,
        groups: FxHashMap<String, Vec<String>>,
        width: usize,
    },
    Frequency {
        min: u64,
        other: String,
    },
    Top,
}

/// A validated `categories` description.
#[derive(Debug, Clone, PartialEq)]
pub struct Categories {
    grouping: Grouping,
    text: String,
}

impl Categories {
    /// Checks the parameters and reads the mapping file (see the module docs).
    pub fn new(p: &Params) -> Result<Categories, String> {
        let grouping = match (p.path("map"), p.get("frequency")) {
            (Some(_), Some(_)) => return Err("give map or frequency, not both".to_string()),
            (Some(path), None) => {
                if p.get("other").is_some() {
                    return Err("other is the label of frequency grouping".to_string());
                }
                let h = crate::hierarchy::file::load(
                    &path,
                    "mapping",
                    encoding_rs::UTF_8,
                    crate::io::source::DEFAULT_MAX_LINE,
                )
                .map_err(|e| e.to_string())?;
                let top_is_star = h.levels() > 1
                    && h.width(h.max_level()) == 1
                    && h.label(h.max_level(), 0) == TOP;
                let width = if top_is_star {
                    h.levels() - 1
                } else {
                    h.levels()
                };
                let mut groups = FxHashMap::default();
                for code in 0..h.leaves() as u32 {
                    let labels = (1..width)
                        .map(|l| h.label(l, h.get(code, l)).to_string())
                        .collect();
                    groups.insert(h.label(0, code).to_string(), labels);
                }
                Grouping::Map {
                    path,
                    groups,
                    width,
                }
            }
            (None, Some(_)) => Grouping::Frequency {
                min: p.count("frequency", 1)?.expect("given") as u64,
                other: p.get("other").unwrap_or("Other").to_string(),
            },
            (None, None) => {
                if p.get("other").is_some() {
                    return Err("other is the label of frequency grouping".to_string());
                }
                Grouping::Top
            }
        };
        Ok(Categories {
            grouping,
            text: p.describe(PARAMS),
        })
    }

    pub(super) fn describe(&self) -> String {
        self.text.clone()
    }

    /// The mapping file, if any.
    pub fn map_path(&self) -> Option<&Path> {
        match &self.grouping {
            Grouping::Map { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The value, the mapping file's groups (or `Other`), `*`.
    pub(super) fn levels(&self) -> usize {
        match &self.grouping {
            Grouping::Map { width, .. } => width + 1,
            Grouping::Frequency { .. } => 3,
            Grouping::Top => 2,
        }
    }

    pub(super) fn check(&self, value: &str) -> Result<(), String> {
        match &self.grouping {
            Grouping::Map { path, groups, .. } if !groups.contains_key(value) => Err(format!(
                "value '{value}' is not in the mapping file {}",
                path.display()
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn rows<'a>(&'a self, values: &'a [(&'a str, u64)]) -> super::Rows<'a> {
        Box::new(values.iter().map(move |&(v, count)| {
            let mut row = vec![v.to_string()];
            match &self.grouping {
                Grouping::Map { groups, width, .. } => {
                    let labels = &groups[v];
                    debug_assert_eq!(labels.len() + 1, *width);
                    row.extend(labels.iter().cloned());
                }
                Grouping::Frequency { min, other } => row.push(if count < *min {
                    other.clone()
                } else {
                    v.to_string()
                }),
                Grouping::Top => {}
            }
            row.push(TOP.to_string());
            row
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(params: &[(&str, &str)]) -> Result<Categories, String> {
        Categories::new(&Params::from_pairs(std::env::temp_dir(), params))
    }

    #[test]
    fn frequency_groups_the_rare_values() {
        let b = build(&[("frequency", "3")]).unwrap();
        assert_eq!(
            b.rows(&[("a", 5), ("b", 2)]).collect::<Vec<_>>(),
            [vec!["a", "a", "*"], vec!["b", "Other", "*"]]
        );
        let b = build(&[]).unwrap();
        assert_eq!(b.rows(&[("a", 5)]).collect::<Vec<_>>(), [vec!["a", "*"]]);
        assert!(build(&[("frequency", "0")]).is_err());
        assert!(build(&[("other", "x")]).is_err());
    }

    #[test]
    fn mapping_file_levels_and_coverage() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("map.csv");
        std::fs::write(&path, "Paris;FR;EU\nLyon;FR;EU\nOslo;NO;EU\n").unwrap();
        let b = build(&[("map", path.to_str().unwrap())]).unwrap();
        assert_eq!(
            b.rows(&[("Oslo", 1)]).collect::<Vec<_>>()[0],
            ["Oslo", "NO", "EU", "*"]
        );
        assert!(b
            .check("Rome")
            .unwrap_err()
            .contains("not in the mapping file"));
        std::fs::write(&path, "Paris;FR;*\nOslo;NO;*\n").unwrap();
        let b = build(&[("map", path.to_str().unwrap())]).unwrap();
        assert_eq!(
            b.rows(&[("Oslo", 1)]).collect::<Vec<_>>()[0],
            ["Oslo", "NO", "*"]
        );
        std::fs::write(&path, "Paris;FR\nParis;DE\n").unwrap();
        let e = build(&[("map", path.to_str().unwrap())]).unwrap_err();
        assert!(e.contains("duplicate original value 'Paris'"), "{e}");
    }
}
