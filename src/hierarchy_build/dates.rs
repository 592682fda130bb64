//! `dates`: dates generalized along the calendar.
//!
//! `format` is a strftime-style pattern (`%Y-%m-%d`, `%d/%m/%Y`, `%Y-%m-%d %H:%M:%S`), parsed by
//! chrono: a value that does not match it is a data error. `levels` is an increasing subset of
//!
//! | level | label |
//! |---|---|
//! | day | `2024-03-15` |
//! | week | `2024-03 days 15-21`: days 1-7, 8-14, 15-21, 22-28 and 29 to the end of the month |
//! | month | `2024-03` |
//! | quarter | `2024-Q1` |
//! | year | `2024` |
//! | decade | `2020-2029` |
//!
//! (default `month,year,decade`), then `*`. An empty value is an error unless `missing=keep`:
//! then it stays empty up to `*`. Weeks are parts of a month, not ISO weeks: an ISO
//! week can straddle two months or two years, and a hierarchy whose week falls into two months
//! would not be monotonic.

use chrono::{Datelike, NaiveDate, NaiveDateTime};

use super::{list, Params, TOP};

/// Parameters `dates` accepts.
pub const PARAMS: &[&str] = &["format", "levels", "missing"];

/// The calendar levels, finest first.
pub const LEVELS: &[&str] = &["day", "week", "month", "quarter", "year", "decade"];

/// A validated `dates` description.
#[derive(Debug, Clone, PartialEq)]
pub struct Dates {
    format: String,
    /// Indexes into [`LEVELS`], increasing.
    levels: Vec<usize>,
    /// `missing=keep`: empty values stay empty up to `*` (else they are an error).
    keep_missing: bool,
}

impl Dates {
    /// Checks the parameters (see the module docs).
    pub fn new(p: &Params) -> Result<Dates, String> {
        let format = p
            .get("format")
            .ok_or("dates need a format, e.g. %Y-%m-%d")?
            .to_string();
        check_format(&format)?;
        let mut levels: Vec<usize> = Vec::new();
        for name in list(p.get("levels").unwrap_or("month,year,decade")) {
            let i = LEVELS
                .iter()
                .position(|l| l.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    format!(
                        "levels: unknown level '{name}'; accepted, in this order: {}",
                        LEVELS.join(", ")
                    )
                })?;
            if levels.last().is_some_and(|&prev| i <= prev) {
                return Err(format!(
                    "levels: '{name}' after '{}': levels go from fine to coarse ({})",
                    LEVELS[*levels.last().unwrap()],
                    LEVELS.join(", ")
                ));
            }
            levels.push(i);
        }
        let keep_missing = p.keep_missing()?;
        Ok(Dates {
            format,
            levels,
            keep_missing,
        })
    }

    pub(super) fn describe(&self) -> String {
        let levels: Vec<&str> = self.levels.iter().map(|&i| LEVELS[i]).collect();
        let missing = if self.keep_missing {
            " missing=keep"
        } else {
            ""
        };
        format!(
            "format={} levels={}{missing}",
            self.format,
            levels.join(",")
        )
    }

    /// The date of a value, in this format.
    pub fn parse(&self, value: &str) -> Option<NaiveDate> {
        parse_date(value, &self.format)
    }

    pub(super) fn check(&self, value: &str) -> Result<(), String> {
        if value.is_empty() && self.keep_missing {
            return Ok(());
        }
        self.parse(value)
            .map(|_| ())
            .ok_or_else(|| format!("'{value}' is not a date of the form {}", self.format))
    }

    pub(super) fn rows(&self, values: &[(&str, u64)]) -> Vec<Vec<String>> {
        values
            .iter()
            .map(|&(v, _)| {
                let mut row = vec![v.to_string()];
                match self.parse(v) {
                    Some(date) => row.extend(self.levels.iter().map(|&l| label(date, l))),
                    None => row.extend(self.levels.iter().map(|_| String::new())),
                }
                row.push(TOP.to_string());
                row
            })
            .collect()
    }

    /// Chronological order (values that do not parse last, as text).
    pub(super) fn sort(&self, values: &mut [(String, u64)]) {
        values.sort_by(|a, b| {
            let (da, db) = (self.parse(&a.0), self.parse(&b.0));
            (da.is_none(), da, &a.0).cmp(&(db.is_none(), db, &b.0))
        });
    }
}

/// Parses a date, or a date and time (keeping the date), in a strftime-style `format`.
pub fn parse_date(value: &str, format: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(value, format).ok().or_else(|| {
        NaiveDateTime::parse_from_str(value, format)
            .ok()
            .map(|t| t.date())
    })
}

/// Refuses a pattern chrono cannot read, or one without a whole date in it.
fn check_format(format: &str) -> Result<(), String> {
    use chrono::format::{Item, StrftimeItems};
    if StrftimeItems::new(format).any(|i| matches!(i, Item::Error)) {
        return Err(format!(
            "format: '{format}' is not a strftime-style pattern"
        ));
    }
    let has = |specs: &[&str]| specs.iter().any(|s| format.contains(s));
    if !(has(&["%Y", "%y", "%C", "%G", "%F", "%D", "%x"])
        && (has(&["%j", "%F", "%D", "%x"]) || has(&["%m", "%b", "%B", "%h"]) && has(&["%d", "%e"])))
    {
        return Err(format!(
            "format: '{format}' does not give a whole date (year, month and day)"
        ));
    }
    Ok(())
}

/// The label of `date` at level `LEVELS[level]`.
pub fn label(date: NaiveDate, level: usize) -> String {
    let (y, m, d) = (date.year(), date.month(), date.day());
    match LEVELS[level] {
        "day" => format!("{y:04}-{m:02}-{d:02}"),
        "week" => {
            let first = (d - 1) / 7 * 7 + 1;
            let last = if first == 29 {
                last_day(date)
            } else {
                first + 6
            };
            format!("{y:04}-{m:02} days {first}-{last}")
        }
        "month" => format!("{y:04}-{m:02}"),
        "quarter" => format!("{y:04}-Q{}", (m - 1) / 3 + 1),
        "year" => format!("{y:04}"),
        "decade" => {
            let start = y.div_euclid(10) * 10;
            format!("{start:04}-{:04}", start + 9)
        }
        _ => unreachable!("levels are LEVELS"),
    }
}

fn last_day(date: NaiveDate) -> u32 {
    let (y, m) = (date.year(), date.month());
    let next = if m == 12 {
        NaiveDate::from_ymd_opt(y + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(y, m + 1, 1)
    };
    next.and_then(|n| n.pred_opt()).map_or(31, |d| d.day())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(params: &[(&str, &str)]) -> Result<Dates, String> {
        Dates::new(&Params::from_pairs(".", params))
    }

    #[test]
    fn levels_follow_the_calendar() {
        let b = build(&[
            ("format", "%d/%m/%Y"),
            ("levels", LEVELS.join(",").as_str()),
        ])
        .unwrap();
        assert_eq!(
            b.rows(&[("29/02/2024", 1)])[0],
            [
                "29/02/2024",
                "2024-02-29",
                "2024-02 days 29-29",
                "2024-02",
                "2024-Q1",
                "2024",
                "2020-2029",
                "*"
            ]
        );
        let b = build(&[("format", "%Y-%m-%d %H:%M")]).unwrap();
        assert_eq!(
            b.rows(&[("1999-12-31 23:59", 1)])[0],
            ["1999-12-31 23:59", "1999-12", "1999", "1990-1999", "*"]
        );
        assert!(b
            .check("1999-12-31")
            .unwrap_err()
            .contains("not a date of the form"));
    }

    #[test]
    fn bad_descriptions() {
        assert!(build(&[]).unwrap_err().contains("need a format"));
        assert!(build(&[("format", "%Y-%m")])
            .unwrap_err()
            .contains("whole date"));
        assert!(build(&[("format", "%Q")]).unwrap_err().contains("strftime"));
        let e = build(&[("format", "%F"), ("levels", "year,month")]).unwrap_err();
        assert!(e.contains("from fine to coarse"), "{e}");
        assert!(build(&[("format", "%F"), ("levels", "fortnight")]).is_err());
    }
}
