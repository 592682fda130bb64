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
//! (default `month,year,decade`), then `*`. A two-digit year (`%y`) is one of 1930 to 2029
//! ([`TWO_DIGIT_YEARS`]). An empty value is an error unless `missing=keep`:
//! then it stays empty up to `*`, and so do the values `missing-values` lists (`NA,NULL`; see
//! [`super::Missing`]). Weeks are parts of a month, not ISO weeks: an ISO
//! week can straddle two months or two years, and a hierarchy whose week falls into two months
//! would not be monotonic.

use chrono::format::{parse, Item, Parsed, StrftimeItems};
use chrono::{Datelike, NaiveDate};

use super::{list, Missing, Params, TOP};

/// Parameters `dates` accepts.
pub const PARAMS: &[&str] = &["format", "levels", "missing", "missing-values"];

/// The calendar levels, finest first.
pub const LEVELS: &[&str] = &["day", "week", "month", "quarter", "year", "decade"];

/// A validated `dates` description.
#[derive(Debug, Clone, PartialEq)]
pub struct Dates {
    format: DateFormat,
    /// Indexes into [`LEVELS`], increasing.
    levels: Vec<usize>,
    /// `missing=keep`, `missing-values`: missing values stay themselves up to `*` (else they
    /// are an error).
    missing: Missing,
}

impl Dates {
    /// Checks the parameters (see the module docs).
    pub fn new(p: &Params) -> Result<Dates, String> {
        let format = DateFormat::new(
            p.get("format")
                .ok_or("dates need a format, e.g. %Y-%m-%d")?,
        )?;
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
        let missing = p.missing()?;
        Ok(Dates {
            format,
            levels,
            missing,
        })
    }

    pub(super) fn describe(&self) -> String {
        let levels: Vec<&str> = self.levels.iter().map(|&i| LEVELS[i]).collect();
        format!(
            "format={} levels={}{}",
            self.format.as_str(),
            levels.join(","),
            self.missing.describe()
        )
    }

    /// The date of a value, in this format.
    pub fn parse(&self, value: &str) -> Option<NaiveDate> {
        self.format.parse(value)
    }

    pub(super) fn check(&self, value: &str) -> Result<(), String> {
        if self.missing.is_missing(value) {
            return Ok(());
        }
        self.parse(value).map(|_| ()).ok_or_else(|| {
            format!(
                "'{value}' is not a date of the form {}{}",
                self.format.as_str(),
                super::marker_hint(value)
            )
        })
    }

    /// The date, its calendar levels, `*`.
    pub(super) fn levels(&self) -> usize {
        self.levels.len() + 2
    }

    pub(super) fn rows<'a>(&'a self, values: &'a [(&'a str, u64)]) -> super::Rows<'a> {
        Box::new(values.iter().map(move |&(v, _)| {
            if self.missing.is_missing(v) {
                return Missing::row(v, self.levels.len());
            }
            let mut row = vec![v.to_string()];
            match self.parse(v) {
                Some(date) => row.extend(self.levels.iter().map(|&l| label(date, l))),
                None => row.extend(self.levels.iter().map(|_| String::new())),
            }
            row.push(TOP.to_string());
            row
        }))
    }

    /// Chronological order, days in text order (missing values last, as text). Each
    /// value is parsed once: two million timestamps sorted by parsing in every comparison took
    /// half a minute. Two stable sorts, by text then by date: one sort with the text in the
    /// cached key took 30 MB more at init's peak on two million timestamps.
    pub(super) fn sort(&self, values: &mut [(&str, u64)]) {
        values.sort_by(|a, b| a.0.cmp(b.0));
        values.sort_by_cached_key(|(v, _)| {
            let date = self.parse(v).filter(|_| !self.missing.is_missing(v));
            (date.is_none(), date)
        });
    }
}

/// A strftime-style pattern read once into chrono's items, to parse many values with: chrono's
/// `parse_from_str` reads the pattern again for every value (most of the time of profiling a
/// column of dates).
#[derive(Debug, Clone, PartialEq)]
pub struct DateFormat {
    text: String,
    items: Vec<Item<'static>>,
}

impl DateFormat {
    /// Reads `format`, refusing a pattern chrono cannot read or one without a whole date.
    pub fn new(format: &str) -> Result<DateFormat, String> {
        check_format(format)?;
        let items = StrftimeItems::new(format)
            .parse_to_owned()
            .map_err(|_| format!("format: '{format}' is not a strftime-style pattern"))?;
        Ok(DateFormat {
            text: format.to_string(),
            items,
        })
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The date of `value`, or of a date and time (keeping the date); `None` if `value` does
    /// not have this form. The same answers as chrono's `NaiveDate::parse_from_str`, then
    /// `NaiveDateTime::parse_from_str`, with the pattern read once, but for two-digit years
    /// ([`TWO_DIGIT_YEARS`]).
    pub fn parse(&self, value: &str) -> Option<NaiveDate> {
        let mut parsed = Parsed::new();
        parse(&mut parsed, value, self.items.iter()).ok()?;
        if let (Some(yy), None) = (parsed.year_mod_100(), parsed.year_div_100()) {
            let century = if yy < TWO_DIGIT_YEARS.0 % 100 { 20 } else { 19 };
            parsed.set_year_div_100(century).ok()?;
        }
        parsed.to_naive_date().ok().or_else(|| {
            parsed
                .to_naive_datetime_with_offset(0)
                .ok()
                .map(|t| t.date())
        })
    }
}

/// The years a two-digit year (`%y`) reads as: `30` to `99` are 1930 to 1999, `00` to `29` are
/// 2000 to 2029, as spreadsheets read them. (chrono reads `00` to `69` as 2000 to 2069: a birth
/// date of `05/03/55` fell in the decade 2050-2059.)
pub const TWO_DIGIT_YEARS: (i32, i32) = (1930, 2029);

/// Refuses a pattern chrono cannot read, or one without a whole date in it.
fn check_format(format: &str) -> Result<(), String> {
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
            b.rows(&[("29/02/2024", 1)]).collect::<Vec<_>>()[0],
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
            b.rows(&[("1999-12-31 23:59", 1)]).collect::<Vec<_>>()[0],
            ["1999-12-31 23:59", "1999-12", "1999", "1990-1999", "*"]
        );
        assert!(b
            .check("1999-12-31")
            .unwrap_err()
            .contains("not a date of the form"));
        // Two-digit years: 1930 to 2029 (chrono put 55 in 2055).
        let b = build(&[("format", "%d/%m/%y"), ("levels", "decade")]).unwrap();
        let rows: Vec<_> = b
            .rows(&[
                ("05/03/55", 1),
                ("01/01/30", 1),
                ("31/12/29", 1),
                ("01/01/00", 1),
            ])
            .collect();
        let decades: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
        assert_eq!(
            decades,
            ["1950-1959", "1930-1939", "2020-2029", "2000-2009"]
        );
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
