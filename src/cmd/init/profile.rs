//! The profile of a delimited file, column by column, in one streaming pass.
//!
//! Per column: the distinct values with their counts ([`Distinct`], capped so that a
//! near-unique column of a huge file stays bounded: memory grows with distinct values, never
//! with rows), the missing (empty) values, and, once the file is read, the [`Kind`] of the
//! values, decided over the distinct values only. A column of numbers or dates that also holds
//! missing-value markers ([`MARKERS`](crate::hierarchy::build::MARKERS): `NA`, `NULL`, ... as R, SQL and spreadsheets write
//! them) is a column of numbers or dates with missing values: the markers leave its
//! values for its missing ones, so that its hierarchy is intervals or calendar levels with
//! each marker kept apart (`missing-values`), not a mask over codes. Elsewhere a marker is a
//! value like any other (`NA` may be North America). Rows are read as the anonymizer reads them
//! (`io::DelimitedReader`, fields trimmed; rows containing `?` kept, as the config init writes
//! says with `unknown="keep"`), so the profile and the hierarchies built from it see exactly
//! the values a run will load.

use std::path::Path;
use std::sync::OnceLock;

use crate::hierarchy::build::dates::DateFormat;
use crate::hierarchy::build::distinct::Distinct;
use crate::hierarchy::build::is_marker;
use crate::hierarchy::build::number::Decimal;
use crate::io::{trim, Format};
use crate::{Error, Result};

/// Distinct values kept per column in the first pass; a column with more is near-unique, free
/// text, or numbers or dates (collected in full, see [`profile_with_cap`]).
pub const DISTINCT_CAP: usize = 1 << 20;

/// Date formats tried, in this order (the first that reads every value wins). chrono's `%Y`
/// reads a year of any number of digits (`05/01/09` as the year 9), so a `%Y` format reads only
/// values whose year has four digits or more ([`year_written_whole`]); two-digit years are read
/// by the `%y` formats (`09` is 2009, `70` is 1970).
pub const DATE_FORMATS: &[&str] = &[
    "%Y-%m-%d",
    "%Y/%m/%d",
    "%d.%m.%Y",
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%d-%m-%Y",
    "%d.%m.%y",
    "%d/%m/%y",
    "%m/%d/%y",
    "%d-%m-%y",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%d %b %Y",
    "%b %d, %Y",
    "%d-%b-%Y",
    "%d-%b-%y",
];

/// Dates written as eight digits, `19900105`: read as such when every value of a column is
/// one, in years [`COMPACT_YEARS`] (else they are numbers or codes).
pub const COMPACT_DATE: &str = "%Y%m%d";

/// The years a column of [`COMPACT_DATE`] values may hold.
pub const COMPACT_YEARS: std::ops::RangeInclusive<i32> = 1800..=2200;

/// What the values of a column are.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// No value at all (every field empty).
    Empty,
    /// Whole numbers (no leading zeros: `007` is a code).
    Integer { min: Decimal, max: Decimal },
    /// Numbers with fractional digits, after a decimal comma (`72,5`) if `comma`.
    Decimal {
        min: Decimal,
        max: Decimal,
        comma: bool,
    },
    /// Dates in one format.
    Date { format: &'static str },
    /// Short codes with digits and no spaces (ZIP, ICD, product codes).
    Code { longest: usize },
    /// Sentences: mostly several words, long.
    Text,
    /// Anything else: labels from a small vocabulary.
    Category,
}

impl Kind {
    /// True for numbers and dates: the kinds whose hierarchy needs every value (intervals,
    /// calendar levels) and whose missing-value markers are missing values.
    pub fn is_number_or_date(&self) -> bool {
        matches!(
            self,
            Kind::Integer { .. } | Kind::Decimal { .. } | Kind::Date { .. }
        )
    }

    /// The kind as `anonbox init` prints it.
    pub fn describe(&self) -> String {
        match self {
            Kind::Empty => "empty".into(),
            Kind::Integer { min, max } => format!("integer {min}..{max}"),
            Kind::Decimal {
                min,
                max,
                comma: false,
            } => format!("decimal {min}..{max}"),
            Kind::Decimal { min, max, .. } => format!("decimal {min}..{max}, decimal comma"),
            Kind::Date { format } => format!("date {format}"),
            Kind::Code { longest } => format!("code (up to {longest} characters)"),
            Kind::Text => "free text".into(),
            Kind::Category => "category".into(),
        }
    }
}

/// One column's profile.
#[derive(Debug, Clone)]
pub struct ColumnProfile {
    pub index: usize,
    /// Header name, or `att<index>`.
    pub name: String,
    pub kind: Kind,
    /// Distinct values with their counts, missing ones left out (at most [`DISTINCT_CAP`],
    /// except for numbers and dates).
    pub values: Distinct,
    /// True if the column had more distinct values than were kept.
    pub overflowed: bool,
    /// The missing values with their counts: the empty one (`""`) if any, then, in a column
    /// of numbers or dates, the markers in order of first appearance.
    pub missing_values: Vec<(String, u64)>,
}

impl ColumnProfile {
    /// Distinct values that are not missing (a lower bound when [`Self::overflowed`]).
    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    /// Records with a missing value: empty, or a marker in a column of numbers or dates.
    pub fn missing(&self) -> u64 {
        self.missing_values.iter().map(|(_, n)| n).sum()
    }

    /// Every distinct value with its count, the missing ones last: what the hierarchy lists.
    pub fn values_and_missing(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.values
            .values()
            .chain(self.missing_values.iter().map(|(v, n)| (v.as_str(), *n)))
    }

    /// The markers among the missing values (`NA`, `NULL`), if any.
    pub fn markers(&self) -> impl Iterator<Item = &str> + '_ {
        self.missing_values
            .iter()
            .map(|(v, _)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// Decides the kind from the values and, in a column of numbers or dates, moves the
    /// markers to the missing values (see the module docs). Called again after a second pass
    /// brought every value: the missing values are then the empty one only.
    fn classify(&mut self) {
        self.missing_values.retain(|(v, _)| v.is_empty());
        self.kind = kind_of(&self.values);
        if self.kind.is_number_or_date() || !self.values.values().any(|(v, _)| is_marker(v)) {
            return;
        }
        let kind = kind_among(&self.values, |v| !is_marker(v));
        if kind.is_number_or_date() {
            let (values, markers) = std::mem::take(&mut self.values).split_off(|v| !is_marker(v));
            self.kind = kind;
            self.values = values;
            self.missing_values.extend(markers);
        }
    }
}

/// The whole file's profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// Records profiled.
    pub records: u64,
    pub columns: Vec<ColumnProfile>,
}

/// Reads `path` and profiles every column (see [`profile_with_cap`]).
pub fn profile(format: &Format, path: &Path) -> Result<Profile> {
    profile_with_cap(format, path, DISTINCT_CAP)
}

/// Reads `path` once and profiles every column, keeping at most `cap` distinct values per
/// column. A column of numbers or dates with more (a measurement, a timestamp) may stay a
/// quasi-identifier (integers are identifiers only from 99 % distinct), whose hierarchy must
/// list every value, and its range and share come from every value: its values are collected
/// in full by a second pass over the file (memory grows with that column's distinct values).
/// Other columns past the cap are near-unique codes or free text, which need no list.
pub fn profile_with_cap(format: &Format, path: &Path, cap: usize) -> Result<Profile> {
    let mut profile = first_pass(format, path, cap)?;
    let again: Vec<usize> = profile
        .columns
        .iter()
        .filter(|c| c.overflowed && c.kind.is_number_or_date())
        .map(|c| c.index)
        .collect();
    if !again.is_empty() {
        let mut reader = format.open(path)?;
        let mut rec = csv::ByteRecord::new();
        let mut full: Vec<Distinct> = again.iter().map(|_| Distinct::new()).collect();
        while reader.next_row(&mut rec)? {
            for (d, &i) in full.iter_mut().zip(&again) {
                let value = trim(&rec[i]);
                if !value.is_empty() {
                    // Every field was checked to be UTF-8 by the first pass.
                    d.add(value).map_err(|m| Error::in_file(path, m))?;
                }
            }
        }
        for (d, &i) in full.into_iter().zip(&again) {
            let c = &mut profile.columns[i];
            c.values = d;
            c.overflowed = false;
            c.classify();
        }
    }
    Ok(profile)
}

/// The streaming pass of [`profile_with_cap`].
fn first_pass(format: &Format, path: &Path, cap: usize) -> Result<Profile> {
    let mut reader = format.open(path)?;
    let header: Option<Vec<String>> = reader.header().map(|h| {
        h.iter()
            .map(|f| String::from_utf8_lossy(trim(f)).into_owned())
            .collect()
    });
    let mut rec = csv::ByteRecord::new();
    let mut columns: Vec<(Distinct, u64)> = Vec::new();
    if let Some(h) = &header {
        columns = (0..h.len()).map(|_| (Distinct::with_cap(cap), 0)).collect();
    }
    while reader.next_row(&mut rec)? {
        if columns.is_empty() {
            columns = (0..rec.len())
                .map(|_| (Distinct::with_cap(cap), 0))
                .collect();
        }
        let line = reader.line();
        for (i, ((distinct, missing), field)) in columns.iter_mut().zip(rec.iter()).enumerate() {
            let value = trim(field);
            if value.is_empty() {
                *missing += 1;
                continue;
            }
            distinct.add(value).map_err(|m| {
                let name = header
                    .as_ref()
                    .map_or(format!("att{i}"), |h| crate::error::shown(&h[i]));
                Error::at(path, line, Some(name), m)
            })?;
        }
    }
    let stats = reader.stats();
    let columns = columns
        .into_iter()
        .enumerate()
        .map(|(index, (distinct, missing))| {
            let mut column = ColumnProfile {
                index,
                name: header
                    .as_ref()
                    .map_or(format!("att{index}"), |h| h[index].clone()),
                kind: Kind::Empty,
                overflowed: distinct.overflowed(),
                values: distinct,
                missing_values: (missing > 0)
                    .then(|| (String::new(), missing))
                    .into_iter()
                    .collect(),
            };
            column.classify();
            column
        })
        .collect();
    Ok(Profile {
        records: stats.records(),
        columns,
    })
}

/// The kind of a column from its distinct non-empty values.
pub fn kind_of(distinct: &Distinct) -> Kind {
    kind_among(distinct, |_| true)
}

/// The kind of a column from those of its distinct values that `keep` accepts.
fn kind_among(distinct: &Distinct, keep: impl Fn(&str) -> bool) -> Kind {
    let values = || distinct.values().map(|(v, _)| v).filter(|v| keep(v));
    let n = values().count();
    if n == 0 {
        return Kind::Empty;
    }
    if compact_dates(values()) {
        return Kind::Date {
            format: COMPACT_DATE,
        };
    }
    if let Some(kind) = numbers(values()) {
        return kind;
    }
    if let Some(kind) = comma_decimals(values()) {
        return kind;
    }
    if let Some(format) = date_format(values()) {
        return Kind::Date { format };
    }
    let n = n as f64;
    let spaced = values().filter(|v| v.contains(' ')).count() as f64;
    let chars: usize = values().map(|v| v.chars().count()).sum();
    if spaced / n >= 0.5 && chars as f64 / n >= 15.0 {
        return Kind::Text;
    }
    let code_chars = |v: &str| {
        v.len() <= 20
            && v.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'/'))
    };
    let with_digits = values()
        .filter(|v| v.bytes().any(|b| b.is_ascii_digit()))
        .count() as f64;
    if values().all(code_chars) && with_digits / n >= 0.8 {
        let longest = values().map(str::len).max().unwrap_or(0);
        return Kind::Code { longest };
    }
    Kind::Category
}

/// Integer or decimal, if every value is a number; integers with leading zeros are codes.
fn numbers<'a>(values: impl Iterator<Item = &'a str>) -> Option<Kind> {
    let mut integer = true;
    let (mut min, mut max): (Option<Decimal>, Option<Decimal>) = (None, None);
    for v in values {
        let x = Decimal::parse(v)?;
        let digits = v.trim_start_matches(['-', '+']);
        if digits.len() > 1 && digits.starts_with('0') && !digits.starts_with("0.") {
            return None; // 007, 01234: a code
        }
        integer &= !v.contains('.');
        min = Some(min.map_or(x, |m| m.min(x)));
        max = Some(max.map_or(x, |m| m.max(x)));
    }
    let (min, max) = (min?, max?);
    Some(if integer {
        Kind::Integer { min, max }
    } else {
        Kind::Decimal {
            min,
            max,
            comma: false,
        }
    })
}

/// Decimals written with a decimal comma (`72,5`), if every value is a number so written or a
/// whole one, and not every comma is followed by three digits (`1,234` is more likely a
/// thousand and more).
fn comma_decimals<'a>(values: impl Iterator<Item = &'a str> + Clone) -> Option<Kind> {
    let mut thousands = true;
    let mut any = false;
    for v in values.clone() {
        if let Some((_, frac)) = v.split_once(',') {
            any = true;
            thousands &= frac.len() == 3;
        }
    }
    if !any || thousands {
        return None;
    }
    let (mut min, mut max): (Option<Decimal>, Option<Decimal>) = (None, None);
    for v in values {
        if v.contains('.') {
            return None;
        }
        let x = Decimal::parse_comma(v)?;
        min = Some(min.map_or(x, |m| m.min(x)));
        max = Some(max.map_or(x, |m| m.max(x)));
    }
    Some(Kind::Decimal {
        min: min?,
        max: max?,
        comma: true,
    })
}

/// The first of [`DATE_FORMATS`] that reads every value (values of digits only are numbers or
/// codes, never dates).
fn date_format<'a>(values: impl Iterator<Item = &'a str>) -> Option<&'static str> {
    static FORMATS: OnceLock<Vec<DateFormat>> = OnceLock::new();
    let formats = FORMATS.get_or_init(|| {
        DATE_FORMATS
            .iter()
            .map(|f| DateFormat::new(f).expect("a whole date"))
            .collect()
    });
    let mut candidates: Vec<usize> = (0..formats.len()).collect();
    for v in values {
        if v.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        candidates.retain(|&f| {
            formats[f].parse(v).is_some()
                && (!DATE_FORMATS[f].contains("%Y") || year_written_whole(v))
        });
        if candidates.is_empty() {
            return None;
        }
    }
    candidates.first().map(|&f| DATE_FORMATS[f])
}

/// True if every value is a date of eight digits ([`COMPACT_DATE`], [`COMPACT_YEARS`]).
fn compact_dates<'a>(values: impl Iterator<Item = &'a str>) -> bool {
    static FORMAT: OnceLock<DateFormat> = OnceLock::new();
    let format = FORMAT.get_or_init(|| DateFormat::new(COMPACT_DATE).expect("a whole date"));
    values.into_iter().all(|v| {
        v.len() == 8
            && v.bytes().all(|b| b.is_ascii_digit())
            && format
                .parse(v)
                .is_some_and(|d| COMPACT_YEARS.contains(&chrono::Datelike::year(&d)))
    })
}

/// True if `value` has a run of four digits or more: in a value a `%Y` format reads, that is
/// the year (its other numbers, day, month, time, have at most two digits).
fn year_written_whole(value: &str) -> bool {
    value
        .split(|c: char| !c.is_ascii_digit())
        .any(|run| run.len() >= 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(values: &[&str]) -> Kind {
        let mut d = Distinct::new();
        for v in values {
            d.add(v.as_bytes()).unwrap();
        }
        kind_of(&d)
    }

    #[test]
    fn kinds() {
        assert!(matches!(kind(&["34", "-2", "90"]), Kind::Integer { .. }));
        assert!(matches!(
            kind(&["3.5", "2"]),
            Kind::Decimal { comma: false, .. }
        ));
        assert_eq!(
            kind(&["72,5", "80", "-1,25"]).describe(),
            "decimal -1.25..80, decimal comma"
        );
        // Three digits after every comma: thousands, not decimals; a comma and a point: text.
        assert_eq!(kind(&["1,234", "12,500"]), Kind::Category);
        assert_eq!(kind(&["1,5", "2.5"]), Kind::Category);
        assert_eq!(kind(&["01234", "81667"]), Kind::Code { longest: 5 });
        assert_eq!(
            kind(&["2024-03-15", "1999-12-31"]),
            Kind::Date { format: "%Y-%m-%d" }
        );
        assert_eq!(
            kind(&["31/12/1999", "01/02/2000"]),
            Kind::Date { format: "%d/%m/%Y" }
        );
        // Two-digit years are %y (chrono's %Y read them as the years 9 and 11).
        assert_eq!(
            kind(&["05/01/09", "31/12/11"]),
            Kind::Date { format: "%d/%m/%y" }
        );
        assert_eq!(
            kind(&["05/01/0009", "31/12/2011"]),
            Kind::Date { format: "%d/%m/%Y" }
        );
        assert_eq!(
            kind(&["12/31/99", "01/05/09"]),
            Kind::Date { format: "%m/%d/%y" }
        );
        assert_eq!(
            kind(&["5 Jan 09", "6 Feb 10"]),
            Kind::Category,
            "no %Y for a two-digit year"
        );
        assert_eq!(kind(&["A01.2", "B20"]), Kind::Code { longest: 5 });
        assert_eq!(
            kind(&["05-Jan-1990", "31-Dec-2001"]),
            Kind::Date { format: "%d-%b-%Y" }
        );
        assert_eq!(
            kind(&["19900105", "20011231"]),
            Kind::Date { format: "%Y%m%d" }
        );
        // Not all dates (a month 13), or out of the years: numbers.
        assert!(matches!(
            kind(&["19900105", "20011331"]),
            Kind::Integer { .. }
        ));
        assert!(matches!(
            kind(&["19900105", "12340101"]),
            Kind::Integer { .. }
        ));
        assert_eq!(kind(&["Male", "Female"]), Kind::Category);
        assert_eq!(
            kind(&["the patient reported pain", "no complaints at all today"]),
            Kind::Text
        );
        assert_eq!(kind(&[]), Kind::Empty);
    }

    fn profile_of(text: &str, cap: usize) -> Profile {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        std::fs::write(&path, text).unwrap();
        profile_with_cap(&Format::new(",", true).unwrap(), &path, cap).unwrap()
    }

    #[test]
    fn markers_are_missing_values_of_numbers_and_dates_only() {
        let mut text = String::from("age,born,region,code\n");
        for i in 0..20 {
            let (age, born) = match i % 5 {
                0 => ("NA".to_string(), "NULL".to_string()),
                1 => (String::new(), "null".to_string()),
                _ => ((30 + i).to_string(), format!("2001-02-{:02}", i + 1)),
            };
            let region = ["EU", "NA", "AS"][i % 3];
            let code = if i == 7 {
                "NA".to_string()
            } else {
                format!("C{i}")
            };
            text.push_str(&format!("{age},{born},{region},{code}\n"));
        }
        let p = profile_of(&text, 100);
        let [age, born, region, code] = &p.columns[..] else {
            panic!("four columns")
        };
        assert_eq!(age.kind.describe(), "integer 32..49");
        assert_eq!(age.missing(), 8);
        assert_eq!(
            age.missing_values,
            [(String::new(), 4), ("NA".to_string(), 4)]
        );
        assert_eq!(age.distinct(), 12);
        assert!(age.values.values().all(|(v, _)| v != "NA"));
        assert_eq!(born.kind, Kind::Date { format: "%Y-%m-%d" });
        assert_eq!(born.markers().collect::<Vec<_>>(), ["NULL", "null"]);
        assert_eq!(born.missing(), 8);
        // Among labels or codes a marker is a value: NA may be North America.
        assert_eq!(region.kind, Kind::Category);
        assert_eq!((region.missing(), region.distinct()), (0, 3));
        assert!(matches!(code.kind, Kind::Code { .. }), "{:?}", code.kind);
        assert!(code.missing_values.is_empty());
        // Past the cap, the second pass finds markers the first did not keep.
        let mut text = String::from("n\n");
        for i in 0..10 {
            text.push_str(&format!("{i}\n"));
        }
        text.push_str("NA\nNA\n");
        let p = profile_of(&text, 3);
        let n = &p.columns[0];
        assert_eq!(n.kind.describe(), "integer 0..9");
        assert_eq!(n.missing_values, [("NA".to_string(), 2)]);
        assert_eq!((n.missing(), n.distinct()), (2, 10));
    }

    #[test]
    fn numbers_and_dates_past_the_cap_are_collected_in_full() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        let mut text = String::from("w,day,code,n\n");
        for i in 0..10 {
            text.push_str(&format!("{i}.5,2024-01-{:02},C{i:03},{}\n", i + 1, i * 7));
        }
        std::fs::write(&path, text).unwrap();
        let p = profile_with_cap(&Format::new(",", true).unwrap(), &path, 3).unwrap();
        let [w, day, code, n] = &p.columns[..] else {
            panic!("four columns")
        };
        assert_eq!(n.kind.describe(), "integer 0..63");
        for c in [w, day, n] {
            assert!(!c.overflowed, "{c:?}");
            assert_eq!(c.distinct(), 10, "{c:?}");
        }
        assert_eq!(w.kind.describe(), "decimal 0.5..9.5");
        assert_eq!(day.kind, Kind::Date { format: "%Y-%m-%d" });
        // A code needs no list: it stays capped (and is proposed as an identifier).
        assert!(code.overflowed);
        assert_eq!(code.distinct(), 3);
    }

    /// A pattern read once ([`DateFormat`]) parses as chrono's `parse_from_str` with the
    /// pattern each time, for every format init tries and a few more.
    #[test]
    fn a_format_read_once_parses_as_chrono_does() {
        let plain = |v: &str, f: &str| {
            chrono::NaiveDate::parse_from_str(v, f).ok().or_else(|| {
                chrono::NaiveDateTime::parse_from_str(v, f)
                    .ok()
                    .map(|t| t.date())
            })
        };
        let values = [
            "2024-03-15",
            "2024/03/15",
            "15.03.2024",
            "15/03/2024",
            "03/15/2024",
            "31/02/2024",
            "2024-03-15T10:11:12",
            "2024-03-15 10:11:12",
            "2024-03-15 10:11",
            "2024-03-15 25:11",
            "15 Mar 2024",
            "Mar 15, 2024",
            " 2024-03-15",
            "2024-03-15x",
            "2024-3-5",
            "",
            "1700000000",
        ];
        let formats = DATE_FORMATS.iter().copied().chain([
            "%F",
            "%Y-%m-%dT%H:%M:%S%.f",
            "%d %B %Y",
            "%j/%Y",
            "%Y-%m-%d%%",
        ]);
        let mut parsed = 0;
        for f in formats {
            let format = DateFormat::new(f).unwrap();
            for v in values {
                assert_eq!(format.parse(v), plain(v, f), "'{v}' as {f}");
                parsed += usize::from(format.parse(v).is_some());
            }
        }
        assert!(parsed >= 12, "{parsed}");
    }
}
