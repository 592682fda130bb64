//! `mask`: codes (ZIP, ICD, phone prefixes) generalized by hiding characters.
//!
//! Level `i` replaces `i * step` characters with `*`, from the right (`from=right`, the
//! default: `81667`, `8166*`, `816**`, ...) or from the left (`from=left`), until every
//! character is hidden; then `*`. Characters, not bytes, are counted. `levels=N` keeps the first
//! `N` of those levels only (`levels=1` with `step=2`: `81667`, `816**`, `*`): the level that
//! hides every character tells no more than `*` about codes of one length, and the finer
//! levels are the useful ones (a ZIP code's first three digits).
//!
//! With `pad=C`, values shorter than `length` (default: the longest value) are first padded
//! with `C` on the side that is masked last (the left when masking from the right), so `7` and
//! `0007` fall together from level 1 on; a value longer than `length` is a data error. Level 0
//! is always the value as it is in the data. An empty value (a missing one) is never padded: it
//! stays empty up to `*`, apart from every code, as without `pad` (padded, it would become
//! `0000*` and merge with real codes).
//!
//! One level per `step` characters: a hierarchy taller than the lattice allows
//! ([`crate::lattice::MAX_LEVEL`]) is refused, as a description error when `length` asks for it,
//! else as a data error at the first value that is too long (a value of 100,000 characters
//! would make 100,000 rows of 100,000 characters each).
//!
//! Monotonic by construction: two values equal at level `i` have the same length and the same
//! visible characters, and level `i + 1` shows a part of those.

use super::{Params, TOP};
use crate::lattice::MAX_LEVEL;

/// Parameters `mask` accepts.
pub const PARAMS: &[&str] = &["from", "step", "levels", "pad", "length"];

/// A validated `mask` description.
#[derive(Debug, Clone, PartialEq)]
pub struct Mask {
    from_left: bool,
    step: usize,
    pad: Option<char>,
    length: Option<usize>,
    /// `levels`: at most this many masking levels.
    most: Option<usize>,
    text: String,
}

impl Mask {
    /// Checks the parameters (see the module docs).
    pub fn new(p: &Params) -> Result<Mask, String> {
        let from_left = p.either("from", "right", "left")?;
        let pad = match p.get("pad") {
            None => None,
            Some(s) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if c != '*' => Some(c),
                    _ => return Err(format!("pad: '{s}' is not one character (other than '*')")),
                }
            }
        };
        let length = p.count("length", 1)?;
        if length.is_some() && pad.is_none() {
            return Err("length is the length values are padded to: give pad too".to_string());
        }
        let step = p.count("step", 1)?.unwrap_or(1);
        if let Some(n) = length {
            if levels(n, step) > MAX_LEVEL {
                return Err(format!(
                    "length: {n} characters hidden {step} per level make a hierarchy of {} \
                     levels, more than {MAX_LEVEL}: give a smaller length or a larger step",
                    levels(n, step)
                ));
            }
        }
        Ok(Mask {
            from_left,
            step,
            pad,
            length,
            most: p.count("levels", 1)?,
            text: p.describe(PARAMS),
        })
    }

    pub(super) fn describe(&self) -> String {
        self.text.clone()
    }

    /// The value, its masking levels, `*`, when `length` fixes them (values are padded to it,
    /// a longer one is a data error); without it they follow the longest value of the data.
    pub(super) fn levels(&self) -> Option<usize> {
        self.length.map(|n| self.masking_levels(n) + 2)
    }

    /// Masking levels of values up to `length` characters: enough to hide every character (at
    /// least one), or the first `levels`.
    fn masking_levels(&self, length: usize) -> usize {
        (levels(length, self.step) - 1).min(self.most.unwrap_or(usize::MAX))
    }

    pub(super) fn check(&self, value: &str) -> Result<(), String> {
        let chars = value.chars().count();
        match self.length {
            Some(n) if chars > n => Err(format!(
                "'{value}' has {chars} characters, more than the padding length {n}"
            )),
            _ if levels(chars, self.step) > MAX_LEVEL => Err(format!(
                "'{value}' has {chars} characters: hidden {} per level they make a hierarchy \
                 of {} levels, more than {MAX_LEVEL} (a code that long is an identifier or \
                 free text; else give a larger step)",
                self.step,
                levels(chars, self.step)
            )),
            _ => Ok(()),
        }
    }

    /// The value padded (if asked) to `length` characters; an empty value is never padded.
    fn padded(&self, value: &str, length: usize) -> Vec<char> {
        let chars: Vec<char> = value.chars().collect();
        let Some(pad) = self.pad.filter(|_| !chars.is_empty()) else {
            return chars;
        };
        let fill = std::iter::repeat_n(pad, length.saturating_sub(chars.len()));
        if self.from_left {
            chars.into_iter().chain(fill).collect()
        } else {
            fill.chain(chars).collect()
        }
    }

    pub(super) fn rows<'a>(&'a self, values: &'a [(&'a str, u64)]) -> super::Rows<'a> {
        let longest = values
            .iter()
            .map(|(v, _)| v.chars().count())
            .max()
            .unwrap_or(0);
        let length = self.length.unwrap_or(longest).max(longest);
        let levels = self.masking_levels(length);
        Box::new(values.iter().map(move |&(v, _)| {
            let chars = self.padded(v, length);
            let mut row = Vec::with_capacity(levels + 2);
            row.push(v.to_string());
            for level in 1..=levels {
                let hidden = (level * self.step).min(chars.len());
                let shown = chars.len() - hidden;
                let masked: String = if self.from_left {
                    std::iter::repeat_n('*', hidden)
                        .chain(chars[hidden..].iter().copied())
                        .collect()
                } else {
                    chars[..shown]
                        .iter()
                        .copied()
                        .chain(std::iter::repeat_n('*', hidden))
                        .collect()
                };
                row.push(masked);
            }
            row.push(TOP.to_string());
            row
        }))
    }
}

/// The highest level of the hierarchy of values up to `chars` characters long: one level per
/// `step` characters (at least one), then `*`.
fn levels(chars: usize, step: usize) -> usize {
    chars.div_ceil(step).max(1) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(params: &[(&str, &str)]) -> Result<Mask, String> {
        Mask::new(&Params::from_pairs(".", params))
    }

    #[test]
    fn masks_from_either_side_with_steps() {
        let b = build(&[]).unwrap();
        assert_eq!(
            b.rows(&[("816", 1), ("9", 1)]).collect::<Vec<_>>(),
            [
                vec!["816", "81*", "8**", "***", "*"],
                vec!["9", "*", "*", "*", "*"]
            ]
        );
        let b = build(&[("from", "left"), ("step", "2")]).unwrap();
        assert_eq!(
            b.rows(&[("abcde", 1)]).collect::<Vec<_>>()[0],
            ["abcde", "**cde", "****e", "*****", "*"]
        );
        // The first levels only: a ZIP code's first three digits, then *.
        let b = build(&[("step", "2"), ("levels", "1")]).unwrap();
        assert_eq!(
            b.rows(&[("81667", 1), ("9", 1)]).collect::<Vec<_>>(),
            [vec!["81667", "816**", "*"], vec!["9", "*", "*"]]
        );
        assert!(build(&[("levels", "0")]).unwrap_err().contains("levels"));
    }

    #[test]
    fn pads_on_the_side_masked_last() {
        let b = build(&[("pad", "0"), ("length", "4")]).unwrap();
        assert_eq!(
            b.rows(&[("7", 1)]).collect::<Vec<_>>()[0],
            ["7", "000*", "00**", "0***", "****", "*"]
        );
        assert!(b
            .check("12345")
            .unwrap_err()
            .contains("more than the padding length 4"));
        let e = build(&[("length", "4")]).unwrap_err();
        assert!(e.contains("give pad"), "{e}");
        assert!(build(&[("pad", "00")]).is_err());
        assert!(build(&[("from", "middle")]).is_err());
        assert!(build(&[("step", "0")]).is_err());
    }

    #[test]
    fn never_pads_an_empty_value() {
        let b = build(&[("pad", "0"), ("length", "3")]).unwrap();
        let rows: Vec<_> = b.rows(&[("", 1), ("7", 1)]).collect();
        assert_eq!(rows[0], ["", "", "", "", "*"]);
        assert_eq!(rows[1], ["7", "00*", "0**", "***", "*"]);
    }

    #[test]
    fn refuses_more_levels_than_the_lattice_allows() {
        // 254 characters: 254 masked levels, then `*` at level 255.
        assert!(build(&[("pad", "0"), ("length", "254")]).is_ok());
        let e = build(&[("pad", "0"), ("length", "255")]).unwrap_err();
        assert!(
            e.starts_with("length: 255 characters") && e.contains("256 levels"),
            "{e}"
        );
        assert!(build(&[("pad", "0"), ("length", "100000"), ("step", "400")]).is_ok());
        let b = build(&[]).unwrap();
        assert!(b.check(&"x".repeat(254)).is_ok());
        let e = b.check(&"x".repeat(100_000)).unwrap_err();
        assert!(
            e.contains("100000 characters") && e.contains("more than 255"),
            "{e}"
        );
        let longest = "x".repeat(254);
        let rows: Vec<_> = b.rows(&[(longest.as_str(), 1)]).collect();
        assert_eq!(rows[0].len(), MAX_LEVEL + 1);
    }
}
