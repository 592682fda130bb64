//! Exact decimal numbers for the interval builder.
//!
//! Interval bounds are computed as `start + floor((x - start) / w) * w`; in binary floating
//! point `0.3` falls into the wrong bin of width `0.1` and integers above 2^53 merge. So a
//! number here is a decimal: an `i128` mantissa and a count of fractional digits, parsed from
//! plain notation (`-12`, `3.25`, `.5`; no exponents, no `NaN`). Arithmetic brings both sides to
//! the larger scale with checked operations: a value too large for 38 digits is an error, never
//! a wrong bin.

use std::cmp::Ordering;

/// Most fractional digits accepted (the mantissa keeps 38 digits in all).
const MAX_SCALE: u32 = 18;

/// A decimal number `mantissa / 10^scale`.
#[derive(Debug, Clone, Copy)]
pub struct Decimal {
    mantissa: i128,
    scale: u32,
}

impl Decimal {
    /// A number written with a decimal comma (`72,5`, as much of Europe writes them), or a
    /// plain one: one comma, no point.
    pub fn parse_comma(s: &str) -> Option<Decimal> {
        match s.split_once(',') {
            Some((int, frac)) if !s.contains('.') && !frac.contains(',') => {
                Decimal::parse(&format!("{int}.{frac}"))
            }
            _ => Decimal::parse(s),
        }
    }

    /// Parses plain decimal notation; `None` for anything else.
    pub fn parse(s: &str) -> Option<Decimal> {
        let (negative, body) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let frac = frac.trim_end_matches('0');
        if frac.len() > MAX_SCALE as usize {
            return None;
        }
        let mut mantissa: i128 = 0;
        for b in int.bytes().chain(frac.bytes()) {
            mantissa = mantissa
                .checked_mul(10)?
                .checked_add(i128::from(b - b'0'))?;
        }
        Some(Decimal {
            mantissa: if negative { -mantissa } else { mantissa },
            scale: frac.len() as u32,
        })
    }

    /// An integer.
    pub fn int(v: i128) -> Decimal {
        Decimal {
            mantissa: v,
            scale: 0,
        }
    }

    /// True if the number is above zero.
    pub fn is_positive(&self) -> bool {
        self.mantissa > 0
    }

    /// The mantissa at `scale` (>= self.scale), if it fits.
    fn at(&self, scale: u32) -> Option<i128> {
        self.mantissa
            .checked_mul(10i128.checked_pow(scale - self.scale)?)
    }

    /// Both mantissas at their common scale.
    fn align(a: &Decimal, b: &Decimal) -> Option<(i128, i128, u32)> {
        let s = a.scale.max(b.scale);
        Some((a.at(s)?, b.at(s)?, s))
    }

    /// `floor((self - start) / width)`: the index of the bin of `width` anchored at `start`
    /// that holds `self`. `None` on overflow.
    pub fn bin(&self, start: &Decimal, width: &Decimal) -> Option<i128> {
        let s = self.scale.max(start.scale).max(width.scale);
        let (x, a, w) = (self.at(s)?, start.at(s)?, width.at(s)?);
        Some(x.checked_sub(a)?.div_euclid(w))
    }

    /// `start + index * width`. `None` on overflow.
    pub fn bound(start: &Decimal, width: &Decimal, index: i128) -> Option<Decimal> {
        let (a, w, s) = Decimal::align(start, width)?;
        Some(Decimal {
            mantissa: a.checked_add(w.checked_mul(index)?)?,
            scale: s,
        })
    }

    /// True if `self` is a whole multiple of `other` (`other` > 0).
    pub fn is_multiple_of(&self, other: &Decimal) -> bool {
        Decimal::align(self, other).is_some_and(|(a, b, _)| b != 0 && a % b == 0)
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Decimal) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        match Decimal::align(self, other) {
            Some((a, b, _)) => a.cmp(&b),
            // One side does not fit at the other's scale: compare integer parts, then the rest.
            None => {
                let ia = self.mantissa / 10i128.pow(self.scale);
                let ib = other.mantissa / 10i128.pow(other.scale);
                ia.cmp(&ib)
                    .then_with(|| self.mantissa.signum().cmp(&other.mantissa.signum()))
            }
        }
    }
}

impl std::fmt::Display for Decimal {
    /// Shortest plain notation: `20`, `-0.5`, `1.25`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let digits = self.mantissa.unsigned_abs().to_string();
        let sign = if self.mantissa < 0 { "-" } else { "" };
        let scale = self.scale as usize;
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        let padded = format!("{digits:0>width$}", width = scale + 1);
        let (int, frac) = padded.split_at(padded.len() - scale);
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() {
            write!(f, "{sign}{int}")
        } else {
            write!(f, "{sign}{int}.{frac}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn parses_plain_notation_only() {
        assert_eq!(d("20").to_string(), "20");
        assert_eq!(d("-0.50").to_string(), "-0.5");
        assert_eq!(d(".25").to_string(), "0.25");
        assert_eq!(d("+7.").to_string(), "7");
        for bad in [
            "", "-", ".", "1e5", "NaN", "inf", "1,5", " 1", "0x10", "1.2.3",
        ] {
            assert!(Decimal::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(
            d("170141183460469231731687303715884105727").to_string(),
            i128::MAX.to_string()
        );
        assert!(Decimal::parse("170141183460469231731687303715884105728").is_none());
    }

    #[test]
    fn bins_are_exact() {
        let (zero, w) = (d("0"), d("0.1"));
        assert_eq!(d("0.3").bin(&zero, &w), Some(3));
        assert_eq!(d("-0.01").bin(&zero, &w), Some(-1));
        assert_eq!(d("34").bin(&zero, &d("5")), Some(6));
        assert_eq!(Decimal::bound(&zero, &d("5"), 6).unwrap().to_string(), "30");
        assert_eq!(
            Decimal::bound(&d("-2.5"), &d("0.5"), 3)
                .unwrap()
                .to_string(),
            "-1"
        );
        let big = d("9223372036854775807");
        assert_eq!(
            big.bin(&zero, &d("10")),
            Some(922337203685477580),
            "i64::MAX bins exactly"
        );
    }

    #[test]
    fn orders_and_multiples() {
        assert!(d("0.3") < d("0.31"));
        assert!(d("-1") < d("0"));
        assert_eq!(d("2.50"), d("2.5"));
        assert!(d("10").is_multiple_of(&d("5")));
        assert!(!d("15").is_multiple_of(&d("10")));
        assert!(d("0.5").is_multiple_of(&d("0.25")));
    }
}
