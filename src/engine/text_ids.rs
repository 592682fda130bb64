//! A quasi-identifier's texts -> their ids, for the release's function, which looks one up for
//! every record and attribute. Built for that:
//! - a text of at most 15 bytes is one 128-bit key (its bytes, then its length): hashed as two
//!   words and compared as one, with no call to compare bytes. Longer texts have a map of
//!   their own.
//! - an integer column is looked up by its value (the frequency set saw its decimal text), so
//!   no record's number is written out as text.
//! - a dictionary column looks up each dictionary value once, when a record first uses it.
//! - a whole column is mapped at a time, in one tight loop.
//!
//! A null is the empty text, as the frequency set read it.

use arrow::array::{Array, ArrayRef, AsArray};
use arrow::datatypes::{DataType, Int32Type, Int64Type};
use rustc_hash::FxHashMap;

/// The longest text kept as a 128-bit key.
const SHORT: usize = 15;

/// Texts -> ids (see the module docs).
pub struct TextIds {
    short: FxHashMap<u128, u32>,
    long: FxHashMap<Box<str>, u32>,
    ints: FxHashMap<i64, u32>,
}

/// What a column's lookup could not do.
pub enum Miss {
    /// A text the map does not hold.
    Text(String),
    /// A column of a type the function does not take.
    Type(DataType),
}

/// `text` as a 128-bit key (its bytes, then its length), if it is short enough.
#[inline]
pub(super) fn short_key(text: &[u8]) -> Option<u128> {
    if text.len() > SHORT {
        return None;
    }
    let mut b = [0u8; 16];
    b[..text.len()].copy_from_slice(text);
    b[SHORT] = text.len() as u8;
    Some(u128::from_le_bytes(b))
}

impl TextIds {
    /// The map of `ids` (text -> id).
    pub fn new<'a>(ids: impl IntoIterator<Item = (&'a str, u32)>) -> TextIds {
        let mut m = TextIds {
            short: FxHashMap::default(),
            long: FxHashMap::default(),
            ints: FxHashMap::default(),
        };
        for (text, id) in ids {
            match short_key(text.as_bytes()) {
                Some(k) => m.short.insert(k, id),
                None => m.long.insert(text.into(), id),
            };
            // A number's text as arrow writes it: the integer column's value maps to it.
            if let Ok(v) = text.parse::<i64>() {
                if v.to_string() == text {
                    m.ints.insert(v, id);
                }
            }
        }
        m
    }

    /// The id of `text`.
    #[inline]
    pub fn get(&self, text: &str) -> Option<u32> {
        match short_key(text.as_bytes()) {
            Some(k) => self.short.get(&k).copied(),
            None => self.long.get(text).copied(),
        }
    }

    /// Every (text, id), for the wire.
    pub fn entries(&self) -> Vec<(String, u32)> {
        let short = self.short.iter().map(|(&k, &id)| {
            let b = k.to_le_bytes();
            let text = std::str::from_utf8(&b[..b[SHORT] as usize]).expect("keys of texts");
            (text.to_string(), id)
        });
        let long = self.long.iter().map(|(t, &id)| (t.to_string(), id));
        short.chain(long).collect()
    }

    /// The greatest id plus one (0 for an empty map).
    pub fn radix(&self) -> u64 {
        self.short
            .values()
            .chain(self.long.values())
            .map(|&id| u64::from(id) + 1)
            .max()
            .unwrap_or(0)
    }

    /// The id of every row of `column` (`Utf8`, `Int64` or a dictionary of `Utf8`) into `out`.
    pub fn column(&self, column: &ArrayRef, out: &mut Vec<u32>) -> Result<(), Miss> {
        out.clear();
        out.reserve(column.len());
        let empty = || self.get("").ok_or_else(|| Miss::Text(String::new()));
        match column.data_type() {
            DataType::Utf8 => {
                let s = column.as_string::<i32>();
                for row in 0..s.len() {
                    let text = if s.is_null(row) { "" } else { s.value(row) };
                    out.push(self.get(text).ok_or_else(|| Miss::Text(text.to_string()))?);
                }
            }
            DataType::Int64 => {
                let a = column.as_primitive::<Int64Type>();
                for row in 0..a.len() {
                    if a.is_null(row) {
                        out.push(empty()?);
                        continue;
                    }
                    let v = a.value(row);
                    let id = self.ints.get(&v).copied();
                    out.push(id.ok_or_else(|| Miss::Text(v.to_string()))?);
                }
            }
            DataType::Dictionary(k, v) if **k == DataType::Int32 && **v == DataType::Utf8 => {
                let d = column.as_dictionary::<Int32Type>();
                let values = d.values().as_string::<i32>();
                const UNSEEN: u32 = u32::MAX;
                let mut of_value = vec![UNSEEN; values.len()];
                for row in 0..d.len() {
                    if d.is_null(row) {
                        out.push(empty()?);
                        continue;
                    }
                    let key = d.keys().value(row) as usize;
                    if of_value[key] == UNSEEN {
                        let text = if values.is_null(key) {
                            ""
                        } else {
                            values.value(key)
                        };
                        of_value[key] =
                            self.get(text).ok_or_else(|| Miss::Text(text.to_string()))?;
                    }
                    out.push(of_value[key]);
                }
            }
            other => return Err(Miss::Type(other.clone())),
        }
        Ok(())
    }
}

/// The type the release's function takes a column of `t` as: `Utf8`, `Int64` and dictionaries
/// of `Utf8` as they are, anything else cast to `Utf8` (arrow's text of it, as the frequency
/// set's).
pub fn argument_type(t: &DataType) -> DataType {
    match t {
        DataType::Utf8 | DataType::Int64 => t.clone(),
        DataType::Dictionary(k, v) if **k == DataType::Int32 && **v == DataType::Utf8 => t.clone(),
        _ => DataType::Utf8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::array::{DictionaryArray, Int32Array, Int64Array, StringArray};
    use std::sync::Arc;

    fn sample() -> TextIds {
        TextIds::new([
            ("", 0),
            ("a", 1),
            ("fifteen-bytes-x", 2),
            ("sixteen-bytes-xy", 3),
            ("a much longer text than a word", 4),
            ("42", 5),
            ("-7", 6),
            ("007", 7),
        ])
    }

    fn ids(m: &TextIds, a: ArrayRef) -> Result<Vec<u32>, String> {
        let mut out = Vec::new();
        m.column(&a, &mut out).map_err(|e| match e {
            Miss::Text(t) => t,
            Miss::Type(t) => format!("type {t}"),
        })?;
        Ok(out)
    }

    /// Short and long texts, the empty text, and every entry back for the wire.
    #[test]
    fn short_and_long_texts_map_and_come_back() {
        let m = sample();
        for (t, id) in [
            ("", 0),
            ("a", 1),
            ("fifteen-bytes-x", 2),
            ("sixteen-bytes-xy", 3),
            ("a much longer text than a word", 4),
        ] {
            assert_eq!(m.get(t), Some(id), "{t}");
        }
        // A prefix, a text padded with what the key pads with, a text one byte longer.
        assert_eq!(m.get("a\0"), None);
        assert_eq!(m.get("fifteen-bytes-"), None);
        assert_eq!(m.get("sixteen-bytes-x"), None);
        let mut e = m.entries();
        e.sort_unstable_by_key(|&(_, id)| id);
        let texts: Vec<&str> = e.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            texts[..5],
            [
                "",
                "a",
                "fifteen-bytes-x",
                "sixteen-bytes-xy",
                "a much longer text than a word"
            ]
        );
        assert_eq!(m.radix(), 8);
    }

    /// A column of each type: texts with a null (the empty text), integers by their canonical
    /// decimal text only ("007" is no integer's text), a dictionary with a null and unused
    /// values; a text not in the map is named.
    #[test]
    fn columns_of_each_type_map_alike() {
        let m = sample();
        let texts: ArrayRef = Arc::new(StringArray::from(vec![Some("a"), None, Some("42")]));
        assert_eq!(ids(&m, texts).unwrap(), [1, 0, 5]);
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![Some(42), Some(-7), None]));
        assert_eq!(ids(&m, ints).unwrap(), [5, 6, 0]);
        let seven: ArrayRef = Arc::new(Int64Array::from(vec![7]));
        assert_eq!(ids(&m, seven).unwrap_err(), "7");
        let values = Arc::new(StringArray::from(vec![
            "zzz",
            "a",
            "a much longer text than a word",
        ]));
        let keys = Int32Array::from(vec![Some(1), None, Some(2), Some(1)]);
        let dict: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).unwrap());
        assert_eq!(ids(&m, dict).unwrap(), [1, 0, 4, 1]);
        let values = Arc::new(StringArray::from(vec!["a", "zzz"]));
        let keys = Int32Array::from(vec![0, 1]);
        let dict: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values).unwrap());
        assert_eq!(ids(&m, dict).unwrap_err(), "zzz");
        let floats: ArrayRef = Arc::new(arrow::array::Float64Array::from(vec![1.0]));
        assert!(ids(&m, floats).unwrap_err().starts_with("type"));
        assert_eq!(argument_type(&DataType::Float64), DataType::Utf8);
        assert_eq!(argument_type(&DataType::LargeUtf8), DataType::Utf8);
        assert_eq!(argument_type(&DataType::Int64), DataType::Int64);
    }
}
