//! `intervals`: numbers generalized to intervals.
//!
//! Two ways to cut:
//! - `widths=5,10,20`: level `i` is the interval of width `w_i` holding the value, on a grid
//!   anchored at `start` (default 0): `[start + n w, start + (n + 1) w[`. Each width must be a
//!   whole multiple of the one before, so intervals nest and the hierarchy is monotonic. The
//!   range is `[start, end[` (`end` optional; an interval reaching past it stops at it, so
//!   labels never overlap the top code): a value outside it is a data error, unless
//!   `bottom` (values below `start` become `<start` at every level) or `top` (values from `end`
//!   on become `>=end`) coding is asked for.
//! - `quantiles=10,4,2`: level 1 puts the sorted values into 10 bins of about equal record
//!   counts (a value is never split, nor are `1` and `1.0`), level 2 groups those bins,
//!   adjacent ones together, into 4 of about equal counts, and so on. A bin reads `[lowest,
//!   next bin's lowest[`, the last one `[lowest, highest]`. With fewer distinct values than
//!   bins there are fewer bins, but the level is still there.
//!
//! Labels are ARX's (`[20, 25[`) or, with `labels=toolbox`, the UT Dallas toolbox's interval
//! syntax (`[20:25)`). Numbers are exact decimals ([`super::number`]); with `decimal=comma` the
//! values are written with a decimal comma (`72,5`; labels keep the point, `[70.5, 71[`). An empty value is an
//! error unless `missing=keep`: then it stays empty up to `*`, and so do the values
//! `missing-values` lists (`NA,NULL`, or a sentinel such as `999`, which then is no number:
//! not binned, not a quantile's weight; see [`super::Missing`]).

use super::number::Decimal;
use super::{list, Missing, Params, TOP};

/// Parameters `intervals` accepts.
pub const PARAMS: &[&str] = &[
    "widths",
    "quantiles",
    "start",
    "end",
    "bottom",
    "top",
    "labels",
    "decimal",
    "missing",
    "missing-values",
];

#[derive(Debug, Clone, PartialEq)]
enum Cut {
    Widths(Vec<Decimal>),
    Quantiles(Vec<usize>),
}

/// A validated `intervals` description.
#[derive(Debug, Clone, PartialEq)]
pub struct Intervals {
    cut: Cut,
    start: Decimal,
    end: Option<Decimal>,
    bottom: bool,
    top: bool,
    toolbox: bool,
    missing: Missing,
    /// `decimal=comma`: values read `72,5`.
    comma: bool,
    text: String,
}

impl Intervals {
    /// Checks the parameters (see the module docs).
    pub fn new(p: &Params) -> Result<Intervals, String> {
        let number = |name: &str| -> Result<Option<Decimal>, String> {
            p.get(name)
                .map(|v| {
                    Decimal::parse(v.trim()).ok_or_else(|| format!("{name}: '{v}' is not a number"))
                })
                .transpose()
        };
        let cut = match (p.get("widths"), p.get("quantiles")) {
            (Some(w), None) => {
                let mut widths = Vec::new();
                for item in list(w) {
                    let d = Decimal::parse(item)
                        .filter(Decimal::is_positive)
                        .ok_or_else(|| format!("widths: '{item}' is not a number > 0"))?;
                    if let Some(prev) = widths.last() {
                        if !d.is_multiple_of(prev) {
                            return Err(format!(
                                "widths: {d} is not a whole multiple of {prev}: each width must \
                                 be a multiple of the one before, so that intervals nest"
                            ));
                        }
                    }
                    widths.push(d);
                }
                Cut::Widths(widths)
            }
            (None, Some(q)) => {
                let mut bins = Vec::new();
                for item in list(q) {
                    let n = item
                        .parse::<usize>()
                        .ok()
                        .filter(|&n| n >= 1)
                        .ok_or_else(|| format!("quantiles: '{item}' is not a whole number >= 1"))?;
                    if bins.last().is_some_and(|&prev| n > prev) {
                        return Err(format!(
                            "quantiles: {n} bins after {}: each level groups the bins of the \
                             one before, so it has at most as many",
                            bins.last().unwrap()
                        ));
                    }
                    bins.push(n);
                }
                for name in ["start", "end", "bottom", "top"] {
                    if p.get(name).is_some() {
                        return Err(format!(
                            "{name} applies to widths only (quantiles follow the data)"
                        ));
                    }
                }
                Cut::Quantiles(bins)
            }
            (Some(_), Some(_)) => return Err("give widths or quantiles, not both".to_string()),
            (None, None) => {
                return Err(
                    "intervals need widths (e.g. 5,10,20) or quantiles (e.g. 10,4,2)".to_string(),
                )
            }
        };
        let start = number("start")?.unwrap_or(Decimal::int(0));
        let end = number("end")?;
        if end.is_some_and(|e| e <= start) {
            return Err(format!(
                "end: {} is not above start {start}",
                end.expect("checked")
            ));
        }
        let top = p.flag("top")?;
        if top && end.is_none() {
            return Err("top coding needs an end: the values from end on are coded".to_string());
        }
        let toolbox = p.either("labels", "arx", "toolbox")?;
        let missing = p.missing()?;
        let comma = p.either("decimal", "point", "comma")?;
        Ok(Intervals {
            cut,
            start,
            end,
            bottom: p.flag("bottom")?,
            top,
            toolbox,
            missing,
            comma,
            text: p.describe(PARAMS),
        })
    }

    pub(super) fn describe(&self) -> String {
        self.text.clone()
    }

    /// The value, one level per width or bin count, `*`: every level asked for is written.
    pub(super) fn levels(&self) -> usize {
        match &self.cut {
            Cut::Widths(widths) => widths.len() + 2,
            Cut::Quantiles(bins) => bins.len() + 2,
        }
    }

    /// The number a value of the data stands for, if any.
    fn number(&self, value: &str) -> Option<Decimal> {
        if self.comma {
            Decimal::parse_comma(value)
        } else {
            Decimal::parse(value)
        }
    }

    /// The number of a value, or why it has none / lies outside the range.
    pub(super) fn check(&self, value: &str) -> Result<(), String> {
        if self.missing.is_missing(value) {
            return Ok(());
        }
        if value.is_empty() {
            return Err(
                "empty value: intervals need a number (missing=keep keeps empty values apart)"
                    .to_string(),
            );
        }
        let x = self
            .number(value)
            .ok_or_else(|| format!("'{value}' is not a number{}", super::marker_hint(value)))?;
        let Cut::Widths(widths) = &self.cut else {
            return Ok(());
        };
        if x < self.start {
            return if self.bottom {
                Ok(())
            } else {
                Err(format!(
                    "{value} is below the start of the intervals, {} (bottom coding codes such \
                     values as <{})",
                    self.start, self.start
                ))
            };
        }
        if let Some(end) = self.end.filter(|&e| x >= e) {
            return if self.top {
                Ok(())
            } else {
                Err(format!(
                    "{value} is not below the end of the intervals, {end} (top coding codes \
                     such values as >={end})"
                ))
            };
        }
        for w in widths {
            x.bin(&self.start, w)
                .and_then(|n| Decimal::bound(&self.start, w, n + 1))
                .ok_or_else(|| format!("{value} is too large for intervals of width {w}"))?;
        }
        Ok(())
    }

    fn label(&self, lo: Decimal, hi: Decimal, closed: bool) -> String {
        match (self.toolbox, closed) {
            (false, false) => format!("[{lo}, {hi}["),
            (false, true) => format!("[{lo}, {hi}]"),
            (true, false) => format!("[{lo}:{hi})"),
            (true, true) => format!("[{lo}:{hi}]"),
        }
    }

    pub(super) fn rows<'a>(&'a self, values: &'a [(&'a str, u64)]) -> super::Rows<'a> {
        match &self.cut {
            Cut::Widths(widths) => Box::new(values.iter().map(move |&(v, _)| {
                if self.missing.is_missing(v) {
                    return Missing::row(v, widths.len());
                }
                let mut row = vec![v.to_string()];
                match self.number(v) {
                    None => row.extend(widths.iter().map(|_| String::new())),
                    Some(x) if x < self.start => {
                        row.extend(widths.iter().map(|_| format!("<{}", self.start)))
                    }
                    Some(x) if self.end.is_some_and(|e| x >= e) => {
                        let end = self.end.expect("checked");
                        row.extend(widths.iter().map(|_| format!(">={end}")))
                    }
                    Some(x) => {
                        for w in widths {
                            let n = x.bin(&self.start, w).expect("checked");
                            let lo = Decimal::bound(&self.start, w, n).expect("checked");
                            let hi = Decimal::bound(&self.start, w, n + 1).expect("checked");
                            // The last interval stops at `end` when it is off the grid
                            // (values from `end` on are top coded or refused).
                            let hi = self.end.map_or(hi, |e| hi.min(e));
                            row.push(self.label(lo, hi, false));
                        }
                    }
                }
                row.push(TOP.to_string());
                row
            })),
            Cut::Quantiles(bins) => Box::new(self.quantile_rows(values, bins).into_iter()),
        }
    }

    fn quantile_rows(&self, values: &[(&str, u64)], bins: &[usize]) -> Vec<Vec<String>> {
        // Distinct numbers in order; `unit[i]` is the group of sorted value i at the level
        // being built (level 1 starts from the values themselves).
        let mut order: Vec<(Decimal, usize)> = values
            .iter()
            .enumerate()
            .filter(|(_, &(v, _))| !self.missing.is_missing(v))
            .filter_map(|(i, &(v, _))| self.number(v).map(|x| (x, i)))
            .collect();
        order.sort();
        let counts: Vec<u64> = order.iter().map(|&(_, i)| values[i].1).collect();
        let mut labels: Vec<Vec<String>> = vec![Vec::with_capacity(bins.len()); order.len()];
        // One unit per number, not per text: `1`, `1.0` and `01` are one value, never split.
        let mut unit: Vec<usize> = Vec::with_capacity(order.len());
        for (i, &(x, _)) in order.iter().enumerate() {
            let same = i > 0 && order[i - 1].0 == x;
            unit.push(match unit.last() {
                Some(&u) if same => u,
                Some(&u) => u + 1,
                None => 0,
            });
        }
        for &b in bins {
            // Records per unit, units in order.
            let units = unit.last().map_or(0, |&u| u + 1);
            let mut weight = vec![0u64; units];
            for (&u, &c) in unit.iter().zip(&counts) {
                weight[u] += c;
            }
            let total: u64 = weight.iter().sum();
            let mut bin_of = Vec::with_capacity(units);
            let mut before = 0u64;
            for &w in &weight {
                // The bin holding the unit's middle record: about total / b records per bin.
                let mid = 2 * before + w;
                let bin = ((mid as u128 * b as u128) / (2 * total.max(1) as u128)) as usize;
                bin_of.push(bin.min(b - 1));
                before += w;
            }
            // Renumber the bins that got units 0, 1, ... so they are the next level's units.
            let mut next = Vec::with_capacity(units);
            let mut id = 0usize;
            for u in 0..units {
                if u > 0 && bin_of[u] != bin_of[u - 1] {
                    id += 1;
                }
                next.push(id);
            }
            unit = unit.iter().map(|&u| next[u]).collect();
            // Labels: each bin's lowest value, up to the next bin's lowest (or its highest).
            let mut i = 0;
            while i < order.len() {
                let mut j = i;
                while j < order.len() && unit[j] == unit[i] {
                    j += 1;
                }
                let label = match order.get(j) {
                    Some(&(hi, _)) => self.label(order[i].0, hi, false),
                    None => self.label(order[i].0, order[j - 1].0, true),
                };
                for l in &mut labels[i..j] {
                    l.push(label.clone());
                }
                i = j;
            }
        }
        let mut rows: Vec<Vec<String>> = values
            .iter()
            .map(|&(v, _)| Missing::row(v, bins.len()))
            .collect();
        for ((_, i), l) in order.iter().zip(labels) {
            rows[*i].splice(1..=bins.len(), l);
        }
        rows
    }

    /// Missing values first (empty, then the others as text), then numbers in order.
    pub(super) fn sort(&self, values: &mut [(&str, u64)]) {
        values.sort_by(|a, b| a.0.cmp(b.0));
        values.sort_by_cached_key(|(v, _)| self.number(v).filter(|_| !self.missing.is_missing(v)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(params: &[(&str, &str)]) -> Result<Intervals, String> {
        Intervals::new(&Params::from_pairs(".", params))
    }

    #[test]
    fn widths_nest_and_label_like_arx() {
        let b = build(&[("widths", "5,10,20")]).unwrap();
        let rows = b
            .rows(&[("34", 1), ("0", 1), ("-3", 1)])
            .collect::<Vec<_>>();
        assert_eq!(rows[0], ["34", "[30, 35[", "[30, 40[", "[20, 40[", "*"]);
        assert_eq!(rows[1], ["0", "[0, 5[", "[0, 10[", "[0, 20[", "*"]);
        assert!(b.check("-3").unwrap_err().contains("below the start"));
        let b = build(&[("widths", "0.5,1"), ("start", "-2"), ("labels", "toolbox")]).unwrap();
        assert_eq!(
            b.rows(&[("-1.2", 1)]).collect::<Vec<_>>()[0],
            ["-1.2", "[-1.5:-1)", "[-2:-1)", "*"]
        );
    }

    #[test]
    fn coding_and_range() {
        let b = build(&[
            ("widths", "10"),
            ("start", "20"),
            ("end", "60"),
            ("bottom", "true"),
            ("top", "true"),
        ])
        .unwrap();
        let rows = b
            .rows(&[("5", 1), ("60", 1), ("59.5", 1)])
            .collect::<Vec<_>>();
        assert_eq!(rows[0], ["5", "<20", "*"]);
        assert_eq!(rows[1], ["60", ">=60", "*"]);
        assert_eq!(rows[2], ["59.5", "[50, 60[", "*"]);
        // An end off the grid clips the last interval, at every level.
        let b = build(&[("widths", "10,20"), ("end", "25"), ("top", "true")]).unwrap();
        let rows = b
            .rows(&[("22", 1), ("26", 1), ("3", 1)])
            .collect::<Vec<_>>();
        assert_eq!(rows[0], ["22", "[20, 25[", "[20, 25[", "*"]);
        assert_eq!(rows[1], ["26", ">=25", ">=25", "*"]);
        assert_eq!(rows[2], ["3", "[0, 10[", "[0, 20[", "*"]);
        let b = build(&[("widths", "10"), ("end", "60")]).unwrap();
        assert!(b.check("60").unwrap_err().contains("top coding"));
        assert!(b.check("x").unwrap_err().contains("'x' is not a number"));
        assert!(b.check("").unwrap_err().contains("missing=keep"));
    }

    #[test]
    fn missing_values_stay_apart_and_are_no_numbers() {
        let b = build(&[
            ("widths", "10,20"),
            ("missing", "keep"),
            ("missing-values", "NA, 999,NA"),
        ])
        .unwrap();
        assert_eq!(
            b.describe(),
            "widths=10,20 missing=keep missing-values=NA, 999,NA"
        );
        for v in ["", "NA", "999", "34"] {
            assert_eq!(b.check(v), Ok(()), "{v}");
        }
        // A sentinel that reads as a number is no number: never binned.
        assert!(b.check("NULL").unwrap_err().contains("missing-values=NULL"));
        assert_eq!(b.check("x").unwrap_err(), "'x' is not a number");
        let mut values = vec![("34", 1), ("999", 1), ("NA", 1), ("", 1), ("3", 1)];
        b.sort(&mut values);
        let rows: Vec<_> = b.rows(&values).collect();
        assert_eq!(rows[0], ["", "", "", "*"]);
        assert_eq!(rows[1], ["999", "999", "999", "*"]);
        assert_eq!(rows[2], ["NA", "NA", "NA", "*"]);
        assert_eq!(rows[3], ["3", "[0, 10[", "[0, 20[", "*"]);
        assert_eq!(rows[4], ["34", "[30, 40[", "[20, 40[", "*"]);
        // Quantiles: a missing value weighs in no bin.
        let b = build(&[
            ("quantiles", "2"),
            ("missing", "keep"),
            ("missing-values", "999"),
        ])
        .unwrap();
        let rows: Vec<_> = b.rows(&[("1", 1), ("2", 1), ("999", 1000)]).collect();
        assert_eq!(rows[0], ["1", "[1, 2[", "*"]);
        assert_eq!(rows[1], ["2", "[2, 2]", "*"]);
        assert_eq!(rows[2], ["999", "999", "*"]);
        let e = |p: &[(&str, &str)]| build(p).unwrap_err();
        assert!(e(&[("widths", "5"), ("missing-values", "NA")]).contains("needs missing=keep"));
        assert!(e(&[
            ("widths", "5"),
            ("missing", "keep"),
            ("missing-values", "NA,,x")
        ])
        .contains("empty item"));
    }

    #[test]
    fn decimal_commas() {
        let b = build(&[("widths", "0.5,1"), ("decimal", "comma")]).unwrap();
        let mut values = vec![("72,75", 1), ("3", 1), ("72,25", 1)];
        b.sort(&mut values);
        let rows: Vec<_> = b.rows(&values).collect();
        assert_eq!(rows[0], ["3", "[3, 3.5[", "[3, 4[", "*"]);
        assert_eq!(rows[1], ["72,25", "[72, 72.5[", "[72, 73[", "*"]);
        assert_eq!(rows[2], ["72,75", "[72.5, 73[", "[72, 73[", "*"]);
        assert!(b.check("72.5").is_ok(), "a point still reads");
        assert!(b.check("1,2,3").unwrap_err().contains("not a number"));
        let plain = build(&[("widths", "1")]).unwrap();
        assert!(plain.check("72,5").unwrap_err().contains("not a number"));
        assert!(build(&[("widths", "1"), ("decimal", ",")])
            .unwrap_err()
            .contains("decimal"));
    }

    #[test]
    fn bad_descriptions() {
        let e = |p: &[(&str, &str)]| build(p).unwrap_err();
        assert!(e(&[("widths", "5,12")]).contains("not a whole multiple of 5"));
        assert!(e(&[("widths", "0")]).contains("not a number > 0"));
        assert!(e(&[]).contains("need widths"));
        assert!(e(&[("widths", "5"), ("quantiles", "2")]).contains("not both"));
        assert!(e(&[("quantiles", "2,4")]).contains("at most as many"));
        assert!(e(&[("widths", "5"), ("top", "true")]).contains("needs an end"));
        assert!(e(&[("widths", "5"), ("labels", "x")]).contains("labels"));
    }

    #[test]
    fn quantiles_balance_records_and_keep_every_level() {
        let b = build(&[("quantiles", "4,2,2")]).unwrap();
        let values: Vec<(String, u64)> = (1..=8).map(|i| (i.to_string(), 1)).collect();
        let refs: Vec<(&str, u64)> = values.iter().map(|(v, c)| (v.as_str(), *c)).collect();
        let rows = b.rows(&refs).collect::<Vec<_>>();
        assert_eq!(rows[0], ["1", "[1, 3[", "[1, 5[", "[1, 5[", "*"]);
        assert_eq!(rows[7], ["8", "[7, 8]", "[5, 8]", "[5, 8]", "*"]);
        // Numerically equal values are one value, whatever their text.
        let values = [
            ("1", 3),
            ("1.0", 1),
            ("01", 1),
            ("2", 1),
            ("3", 1),
            ("4", 1),
        ];
        let rows = build(&[("quantiles", "2")])
            .unwrap()
            .rows(&values)
            .collect::<Vec<_>>();
        for r in &rows[..3] {
            assert_eq!(r[1], "[1, 2[", "{r:?}");
        }
        assert_eq!(rows[3][1], "[2, 4]");
        // One value: one bin per level, every level present.
        assert_eq!(
            b.rows(&[("3", 9)]).collect::<Vec<_>>()[0],
            ["3", "[3, 3]", "[3, 3]", "[3, 3]", "*"]
        );
    }
}
