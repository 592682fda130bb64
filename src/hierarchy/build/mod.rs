//! Hierarchy builders: a generalization hierarchy from a column's distinct values.
//!
//! Writing a hierarchy by hand (one line per distinct value, every level) is where new users
//! give up; these builders write it from a short description. One [`Builder`] per kind:
//! [`intervals`] (numbers: nested fixed-width intervals or equal-frequency bins), [`mask`]
//! (codes: characters replaced by `*`), [`dates`] (calendar levels, with chrono) and
//! [`categories`] (a mapping file, or the rarest values grouped into `Other`).
//!
//! The same description comes from two places, so it is parsed in one: command-line options of
//! `anonbox hierarchy KIND --widths 5,10,20` and attributes of a config element
//! `<intervals widths="5,10,20"/>` both arrive as name/value [`Params`] ([`Builder::from_params`]).
//! Everything about the description is checked there, before any data is read: a bad width is a
//! configuration error (exit 2).
//!
//! The data come in two steps, so that a data error can name its line: [`Builder::check`] sees
//! each distinct value once, when it first appears (a non-number for `intervals`, a value the
//! mapping file lacks), and [`Builder::rows`] builds the hierarchy once every value is known
//! (equal-frequency bins need all of them). `rows` cannot fail on values `check` accepted.
//!
//! A built hierarchy is ARX's: one row per distinct value, `value;level1;...;*`, every row of
//! the same width, monotonic (values equal at one level stay equal above), the last level one
//! value, `*`. Every requested level is produced, even where its values coincide with the level
//! below (ARX's interval builder drops such levels, so a config's levels would shift).

pub mod categories;
pub mod dates;
pub mod distinct;
pub mod intervals;
pub mod mask;
pub mod number;

use std::path::{Path, PathBuf};

/// The top level of every built hierarchy.
pub const TOP: &str = "*";

/// A built hierarchy's rows, one distinct value at a time (see [`Builder::rows`]).
pub type Rows<'a> = Box<dyn Iterator<Item = Vec<String>> + 'a>;

/// Name/value parameters of a builder, in the order given (flags or XML attributes). A flag
/// without a value (`--bottom`) has the value `true`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    pairs: Vec<(String, String)>,
    /// Folder that relative file names (a mapping file) are resolved against.
    base: PathBuf,
}

impl Params {
    /// Parameters whose relative paths resolve against `base` (the config's folder, or the
    /// working directory).
    pub fn new(base: impl Into<PathBuf>) -> Params {
        Params {
            pairs: Vec::new(),
            base: base.into(),
        }
    }

    /// Parameters from name/value pairs (relative paths resolve against `base`).
    pub fn from_pairs<K: AsRef<str>, V: AsRef<str>>(
        base: impl Into<PathBuf>,
        pairs: &[(K, V)],
    ) -> Params {
        let mut p = Params::new(base);
        for (k, v) in pairs {
            p.push(k.as_ref(), v.as_ref());
        }
        p
    }

    /// The given parameters among `names`, as `name=value` words (a builder's description).
    fn describe(&self, names: &[&str]) -> String {
        names
            .iter()
            .filter_map(|n| self.get(n).map(|v| format!("{n}={v}")))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `missing=keep` (missing values stay apart up to `*`) or `missing=error` (the default),
    /// and `missing-values`, the values besides the empty one that mean "missing" (see
    /// [`Missing`]).
    fn missing(&self) -> Result<Missing, String> {
        let keep = self.either("missing", "error", "keep")?;
        let mut values = Vec::new();
        if let Some(given) = self.get("missing-values") {
            if !keep {
                return Err(format!(
                    "missing-values '{given}' needs missing=keep (missing values stay apart up \
                     to *)"
                ));
            }
            for v in list(given) {
                if v.is_empty() {
                    return Err(format!(
                        "missing-values '{given}' has an empty item (the empty value is always \
                         missing with missing=keep)"
                    ));
                }
                if !values.iter().any(|m| m == v) {
                    values.push(v.to_string());
                }
            }
        }
        Ok(Missing { keep, values })
    }

    /// Adds one parameter.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.pairs.push((name.into(), value.into()));
    }

    /// The value of `name`, if given.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// A file name resolved against the base folder.
    pub fn path(&self, name: &str) -> Option<PathBuf> {
        self.get(name).map(|f| {
            let p = Path::new(f);
            if p.is_absolute() || self.base.as_os_str().is_empty() || self.base == Path::new(".") {
                p.to_path_buf()
            } else {
                self.base.join(p)
            }
        })
    }

    /// A choice of two words (any case): `false` for `default` or when absent, `true` for
    /// `other` (`labels=arx|toolbox`, `from=right|left`).
    pub fn either(&self, name: &str, default: &str, other: &str) -> Result<bool, String> {
        match self.get(name).map(str::to_ascii_lowercase) {
            None => Ok(false),
            Some(v) if v == default => Ok(false),
            Some(v) if v == other => Ok(true),
            Some(v) => Err(format!("{name}: '{v}' is not {default} or {other}")),
        }
    }

    /// A yes/no parameter (`true`/`false`, `yes`/`no`, `1`/`0`); absent is `false`.
    pub fn flag(&self, name: &str) -> Result<bool, String> {
        match self.get(name).map(str::to_ascii_lowercase).as_deref() {
            None | Some("false" | "no" | "0") => Ok(false),
            Some("true" | "yes" | "1" | "") => Ok(true),
            Some(other) => Err(format!("{name}: '{other}' is not true or false")),
        }
    }

    /// A whole number >= `min`.
    pub fn count(&self, name: &str, min: usize) -> Result<Option<usize>, String> {
        self.get(name)
            .map(|v| match v.trim().parse::<usize>() {
                Ok(n) if n >= min => Ok(n),
                _ => Err(format!("{name}: '{v}' is not a whole number >= {min}")),
            })
            .transpose()
    }

    /// Refuses names not in `known`, listing the accepted ones.
    fn only(&self, kind: &str, known: &[&str]) -> Result<(), String> {
        match self
            .pairs
            .iter()
            .find(|(n, _)| !known.contains(&n.as_str()))
        {
            Some((n, _)) => Err(format!(
                "{kind} takes no parameter '{n}'; accepted: {}",
                known.join(", ")
            )),
            None => Ok(()),
        }
    }
}

/// Values that commonly mean "missing" (R, SQL, spreadsheets), compared ignoring ASCII case:
/// what `anonbox init` takes for missing values in a column of numbers or dates, and what a
/// builder refusing one names `missing-values` for.
pub const MARKERS: &[&str] = &[
    "NA", "N/A", "#N/A", "NULL", "NaN", "None", "nil", "missing", "unknown", "-", "--", ".", "?",
];

/// True if `value` is one of [`MARKERS`].
pub fn is_marker(value: &str) -> bool {
    MARKERS.iter().any(|m| m.eq_ignore_ascii_case(value))
}

/// What a builder refusing `value` adds when it is one of [`MARKERS`]: how to keep it apart
/// as a missing value (empty for any other value).
fn marker_hint(value: &str) -> String {
    if is_marker(value) {
        format!(" (missing=keep missing-values={value} keeps it apart as a missing value)")
    } else {
        String::new()
    }
}

/// Missing values of a number or date column (`missing=keep`, `missing-values=NA,NULL`): the
/// empty value and the listed ones (R's `NA`, SQL's `NULL`, a sentinel such as `999`, even
/// where it reads as a number). Each stays itself at every level up to `*`: apart from the
/// numbers or dates, and apart from the other missing values (they may mean different things:
/// not asked, not known). Without `missing=keep` every value must be a number or date.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Missing {
    keep: bool,
    values: Vec<String>,
}

impl Missing {
    /// True if `value` is a missing value that is kept apart.
    pub fn is_missing(&self, value: &str) -> bool {
        self.keep && (value.is_empty() || self.values.iter().any(|m| m == value))
    }

    /// The row of a missing value: itself at every one of `levels` levels, then `*`.
    fn row(value: &str, levels: usize) -> Vec<String> {
        let mut row = vec![value.to_string(); levels + 1];
        row.push(TOP.to_string());
        row
    }

    /// ` missing=keep missing-values=NA,NULL` as far as given (a builder's description).
    fn describe(&self) -> String {
        let mut text = String::new();
        if self.keep {
            text.push_str(" missing=keep");
        }
        if !self.values.is_empty() {
            text.push_str(&format!(" missing-values={}", self.values.join(",")));
        }
        text
    }
}

/// Builds one kind of builder from its parameters.
type MakeBuilder = fn(&Params) -> Result<Builder, String>;

/// A validated builder (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub enum Builder {
    Intervals(intervals::Intervals),
    Mask(mask::Mask),
    Dates(dates::Dates),
    Categories(categories::Categories),
}

impl Builder {
    /// The kinds, as written on the command line and as config elements.
    pub const KINDS: &'static [&'static str] = &["intervals", "mask", "dates", "categories"];

    /// Builds and checks the description of `kind` (errors: a configuration error, the message
    /// names the parameter).
    pub fn from_params(kind: &str, params: &Params) -> Result<Builder, String> {
        let (known, build): (&[&str], MakeBuilder) = match kind {
            "intervals" => (intervals::PARAMS, |p| {
                intervals::Intervals::new(p).map(Builder::Intervals)
            }),
            "mask" => (mask::PARAMS, |p| mask::Mask::new(p).map(Builder::Mask)),
            "dates" => (dates::PARAMS, |p| dates::Dates::new(p).map(Builder::Dates)),
            "categories" => (categories::PARAMS, |p| {
                categories::Categories::new(p).map(Builder::Categories)
            }),
            other => {
                return Err(format!(
                    "unknown hierarchy builder '{other}'; accepted: {}",
                    Builder::KINDS.join(", ")
                ))
            }
        };
        params.only(kind, known)?;
        build(params)
    }

    /// The kind's name.
    pub fn kind(&self) -> &'static str {
        match self {
            Builder::Intervals(_) => "intervals",
            Builder::Mask(_) => "mask",
            Builder::Dates(_) => "dates",
            Builder::Categories(_) => "categories",
        }
    }

    /// The description in one line, e.g. `intervals widths=5,10,20 start=0` (report, store).
    pub fn describe(&self) -> String {
        let params = match self {
            Builder::Intervals(b) => b.describe(),
            Builder::Mask(b) => b.describe(),
            Builder::Dates(b) => b.describe(),
            Builder::Categories(b) => b.describe(),
        };
        format!("{} {params}", self.kind()).trim_end().to_string()
    }

    /// Files the builder reads (a mapping file), so a run never writes over them.
    pub fn reads(&self) -> Option<&Path> {
        match self {
            Builder::Categories(b) => b.map_path(),
            _ => None,
        }
    }

    /// The number of levels of the hierarchy it builds (the value, each level, `*`), where the
    /// description alone decides it: every builder but `mask` without `length`, whose levels
    /// follow the longest value of the data. The lattice's limits are checked with it before
    /// the data is read ([`crate::job::Generalization::levels`]).
    pub fn levels(&self) -> Option<usize> {
        match self {
            Builder::Intervals(b) => Some(b.levels()),
            Builder::Mask(b) => b.levels(),
            Builder::Dates(b) => Some(b.levels()),
            Builder::Categories(b) => Some(b.levels()),
        }
    }

    /// Checks one distinct value of the data, the first time it appears. The error is the
    /// message of a data error at that value's line.
    pub fn check(&self, value: &str) -> Result<(), String> {
        match self {
            Builder::Intervals(b) => b.check(value),
            Builder::Mask(b) => b.check(value),
            Builder::Dates(b) => b.check(value),
            Builder::Categories(b) => b.check(value),
        }
    }

    /// The hierarchy rows of the distinct `values` (each checked, with its count of records),
    /// in their order: `value, level 1, ..., *`, all of the same width. Made one at a time as
    /// they are taken (the caller writes or encodes each), so that a column of millions of
    /// values never holds all its labels as strings at once; only equal-frequency bins, which
    /// need every value first, are made in full.
    pub fn rows<'a>(&'a self, values: &'a [(&'a str, u64)]) -> Rows<'a> {
        match self {
            Builder::Intervals(b) => b.rows(values),
            Builder::Mask(b) => b.rows(values),
            Builder::Dates(b) => b.rows(values),
            Builder::Categories(b) => b.rows(values),
        }
    }

    /// Puts distinct values in the order a hierarchy file lists them: numbers and dates in
    /// order, strings as text.
    pub fn sort(&self, values: &mut [(&str, u64)]) {
        match self {
            Builder::Intervals(b) => b.sort(values),
            Builder::Dates(b) => b.sort(values),
            _ => values.sort_by(|a, b| a.0.cmp(b.0)),
        }
    }
}

/// True if `name` is a parameter of some builder.
pub fn is_param(name: &str) -> bool {
    [
        intervals::PARAMS,
        mask::PARAMS,
        dates::PARAMS,
        categories::PARAMS,
    ]
    .iter()
    .any(|p| p.contains(&name))
}

/// Splits a comma-separated list, trimming each item.
fn list(value: &str) -> Vec<&str> {
    value.split(',').map(str::trim).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Builder::levels`] is the width of every row the builder makes, whatever the data,
    /// where the description decides it; `mask` without `length` follows the longest value.
    #[test]
    fn levels_known_from_the_description_are_the_rows_width() {
        let dir = tempfile::tempdir().unwrap();
        let map = dir.path().join("map.csv");
        std::fs::write(&map, "a;g1;h\nb;g1;h\nc;g2;h\n").unwrap();
        let map = map.to_string_lossy().into_owned();
        let datas: [&[(&str, u64)]; 3] = [
            &[("1", 1)],
            &[("3", 4), ("17", 1), ("", 2), ("NA", 1)],
            &[("2020-01-05", 3), ("1999-12-31", 1), ("", 1)],
        ];
        let known = [
            (
                "intervals",
                vec![("widths", "5,10,20"), ("missing", "keep")],
            ),
            (
                "intervals",
                vec![("quantiles", "10,4,2,1"), ("missing", "keep")],
            ),
            ("dates", vec![("format", "%Y-%m-%d"), ("missing", "keep")]),
            (
                "dates",
                vec![
                    ("format", "%Y-%m-%d"),
                    ("levels", "year"),
                    ("missing", "keep"),
                ],
            ),
            ("mask", vec![("pad", "0"), ("length", "12"), ("step", "2")]),
            (
                "mask",
                vec![("pad", "0"), ("length", "12"), ("levels", "3")],
            ),
            ("categories", vec![("frequency", "2")]),
            ("categories", vec![]),
        ];
        for (kind, params) in &known {
            let b = Builder::from_params(kind, &Params::from_pairs(".", params)).unwrap();
            let levels = b.levels().expect("known from the description");
            for data in datas {
                let data: Vec<_> = data
                    .iter()
                    .filter(|(v, _)| b.check(v).is_ok())
                    .copied()
                    .collect();
                for row in b.rows(&data) {
                    assert_eq!(row.len(), levels, "{kind} {params:?}: {row:?}");
                }
            }
        }
        let b =
            Builder::from_params("categories", &Params::from_pairs(".", &[("map", &map)])).unwrap();
        assert_eq!(b.levels(), Some(4));
        for row in b.rows(&[("a", 1), ("c", 1)]) {
            assert_eq!(row.len(), 4, "{row:?}");
        }
        // mask without length: one level per character of the longest value.
        let b = Builder::from_params("mask", &Params::from_pairs(".", &[("levels", "3")])).unwrap();
        assert_eq!(b.levels(), None);
        let width = |data: &[(&str, u64)]| b.rows(data).next().unwrap().len();
        assert_eq!((width(&[("1", 1)]), width(&[("12345", 1)])), (3, 5));
    }
}
