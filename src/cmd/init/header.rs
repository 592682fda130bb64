//! Whether a file's first line names its columns, when neither `--header` nor `--no-header`
//! is given: decided on the first [`SAMPLE`] records, and said on init's first line so that a
//! wrong guess is seen and corrected.
//!
//! The first line is a header when none of its fields is empty, a number, a date or a repeat
//! of another, none comes back among the values of its column below, and either a column holds
//! numbers or dates below its name (`age` above `39`, `50`, ...) or some column repeats its
//! values (`sex` above `Male`, `Female`, `Male`: a first record's `Male` would come back). Names
//! are neither numbers nor dates, and a record's values come back in a file's other records.

use std::path::Path;

use super::profile::DATE_FORMATS;
use crate::hierarchy::build::dates::DateFormat;
use crate::hierarchy::build::number::Decimal;
use crate::io::{trim, Format};
use crate::Result;

/// Records read to decide.
pub const SAMPLE: usize = 200;

/// The decision and its reason, as init prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub header: bool,
    pub why: String,
}

/// Reads the first [`SAMPLE`] records of `path` with `format` (which must have no header) and
/// decides.
pub fn detect(format: &Format, path: &Path) -> Result<Detected> {
    let format = format.clone().any_bytes();
    let mut reader = format.open(path)?;
    let mut rec = csv::ByteRecord::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    while rows.len() < SAMPLE && reader.next_row(&mut rec)? {
        rows.push(
            rec.iter()
                .map(|f| String::from_utf8_lossy(trim(f)).into_owned())
                .collect(),
        );
    }
    Ok(decide(&rows))
}

fn is_number(v: &str) -> bool {
    Decimal::parse(v).is_some() || Decimal::parse_comma(v).is_some()
}

fn is_date(v: &str) -> bool {
    DATE_FORMATS
        .iter()
        .any(|f| DateFormat::new(f).is_ok_and(|f| f.parse(v).is_some()))
}

/// The decision on the first records of a file (fields trimmed).
pub fn decide(rows: &[Vec<String>]) -> Detected {
    let no = |why: String| Detected { header: false, why };
    let Some((first, rest)) = rows.split_first() else {
        return no("the file is empty".to_string());
    };
    if rest.is_empty() {
        return no("a single line: read as a record".to_string());
    }
    if first.iter().any(|v| v.is_empty()) {
        return no("its first line has an empty field, which names no column".to_string());
    }
    if let Some(v) = first.iter().find(|v| is_number(v)) {
        return no(format!(
            "its first line holds the number {}",
            crate::error::shown(v)
        ));
    }
    if let Some(v) = first.iter().find(|v| is_date(v)) {
        return no(format!(
            "its first line holds the date {}",
            crate::error::shown(v)
        ));
    }
    for (i, v) in first.iter().enumerate() {
        if first[..i].contains(v) {
            return no(format!(
                "its first line holds {} twice",
                crate::error::shown(v)
            ));
        }
    }
    let column = |i: usize| {
        rest.iter()
            .filter_map(move |r| r.get(i))
            .map(String::as_str)
    };
    if let Some(i) = (0..first.len()).find(|&i| column(i).any(|v| v == first[i])) {
        return no(format!(
            "{} on the first line comes back below it, as a value of its column",
            crate::error::shown(&first[i])
        ));
    }
    for (i, name) in first.iter().enumerate() {
        let values: Vec<&str> = column(i).filter(|v| !v.is_empty()).collect();
        if values.is_empty() {
            continue;
        }
        if values.iter().all(|v| is_number(v)) {
            return Detected {
                header: true,
                why: format!("{} heads a column of numbers", crate::error::shown(name)),
            };
        }
        if values.iter().all(|v| is_date(v)) {
            return Detected {
                header: true,
                why: format!("{} heads a column of dates", crate::error::shown(name)),
            };
        }
    }
    let repeats = (0..first.len()).any(|i| {
        let mut seen = std::collections::HashSet::new();
        column(i).any(|v| !seen.insert(v))
    });
    if repeats {
        Detected {
            header: true,
            why: "no name on the first line comes back as a value of its column".to_string(),
        }
    } else {
        no("its first line looks like the records below it".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(lines: &[&str]) -> Vec<Vec<String>> {
        lines
            .iter()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    }

    #[test]
    fn headers_and_records() {
        let d = |l: &[&str]| decide(&rows(l));
        let h = d(&["sex,age", "Male,39", "Female,50"]);
        assert!(
            h.header && h.why == "age heads a column of numbers",
            "{h:?}"
        );
        assert!(d(&["sex,race", "Male,White", "Female,White"]).header);
        // Records: a number, a value that comes back, an empty field.
        let r = d(&["58,Self", "9,Not"]);
        assert!(!r.header && r.why.contains("number 58"), "{r:?}");
        let r = d(&["Male,White", "Female,White", "Male,Black"]);
        assert!(!r.header && r.why.contains("comes back"), "{r:?}");
        assert!(!d(&["a,", "b,c", "b,d"]).header);
        assert!(!d(&["a,b"]).header);
        assert!(!d(&["x,x", "1,2"]).header);
        // A first line of dates over dates is a record.
        assert!(!d(&["2020-01-01,a", "2020-02-01,b", "2020-02-01,b"]).header);
        assert!(d(&["visit,a", "2020-01-01,b", "2020-02-01,b"]).header);
    }
}
