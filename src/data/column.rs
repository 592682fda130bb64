//! A column of codes in the narrowest unsigned integer type that holds them.
//!
//! The in-memory table keeps one code per distinct tuple and quasi-identifier; most columns have
//! few values (sex, race, marital status: one byte), some a few thousand (age in days: two),
//! few more than 65,536 (a five-digit zip code: four). A [`Column`] starts as bytes and widens
//! itself, once, when a code no longer fits (codes come in as they are read, so the domain is
//! known only at the end): the people benchmark's six columns take 10 bytes a tuple instead of 24.
//!
//! Hot loops do not pay a branch per code: [`Column::view`] gives a [`Codes`] slice, and
//! `with_codes!` runs a loop body once per width, monomorphized, so the loop inside reads a
//! plain slice of `u8`, `u16` or `u32`.

/// Codes of one column, in the narrowest width seen so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Column {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

/// A borrowed [`Column`].
#[derive(Debug, Clone, Copy)]
pub enum Codes<'a> {
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
}

/// Runs `$body` with `$slice` bound to the column's codes as a plain slice of their width (a
/// loop body compiled once per width): `with_codes!(codes, c => c.iter().count())`.
#[macro_export]
macro_rules! with_codes {
    ($codes:expr, $slice:ident => $body:expr) => {
        match $codes {
            $crate::data::Codes::U8($slice) => $body,
            $crate::data::Codes::U16($slice) => $body,
            $crate::data::Codes::U32($slice) => $body,
        }
    };
}

impl Default for Column {
    fn default() -> Self {
        Column::U8(Vec::new())
    }
}

impl Column {
    /// An empty column of bytes.
    pub fn new() -> Column {
        Column::default()
    }

    /// The narrowest column holding `codes`.
    pub fn from_codes(codes: impl IntoIterator<Item = u32>) -> Column {
        let mut c = Column::new();
        for code in codes {
            c.push(code);
        }
        c.shrink_to_fit();
        c
    }

    /// Appends `code`, widening the column first if it does not fit.
    #[inline]
    pub fn push(&mut self, code: u32) {
        match self {
            Column::U8(v) => match u8::try_from(code) {
                Ok(c) => v.push(c),
                Err(_) => {
                    self.widen(code);
                    self.push(code);
                }
            },
            Column::U16(v) => match u16::try_from(code) {
                Ok(c) => v.push(c),
                Err(_) => {
                    self.widen(code);
                    self.push(code);
                }
            },
            Column::U32(v) => v.push(code),
        }
    }

    /// Copies the codes into the width that holds `code`.
    #[cold]
    fn widen(&mut self, code: u32) {
        let codes: Vec<u32> = self.view().iter().collect();
        *self = if code <= u32::from(u16::MAX) {
            Column::U16(codes.iter().map(|&c| c as u16).collect())
        } else {
            Column::U32(codes)
        };
    }

    /// The code of tuple `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        self.view().get(i)
    }

    pub fn len(&self) -> usize {
        self.view().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Frees the spare capacity.
    pub fn shrink_to_fit(&mut self) {
        match self {
            Column::U8(v) => v.shrink_to_fit(),
            Column::U16(v) => v.shrink_to_fit(),
            Column::U32(v) => v.shrink_to_fit(),
        }
    }

    /// The codes, borrowed.
    #[inline]
    pub fn view(&self) -> Codes<'_> {
        match self {
            Column::U8(v) => Codes::U8(v),
            Column::U16(v) => Codes::U16(v),
            Column::U32(v) => Codes::U32(v),
        }
    }

    /// The codes at `order` (`order[i]` gives code `i`), in this column's width.
    pub fn gather(&self, order: &[u32]) -> Column {
        match self.view() {
            Codes::U8(v) => Column::U8(order.iter().map(|&i| v[i as usize]).collect()),
            Codes::U16(v) => Column::U16(order.iter().map(|&i| v[i as usize]).collect()),
            Codes::U32(v) => Column::U32(order.iter().map(|&i| v[i as usize]).collect()),
        }
    }

    /// Bytes a code takes.
    pub fn width(&self) -> usize {
        match self {
            Column::U8(_) => 1,
            Column::U16(_) => 2,
            Column::U32(_) => 4,
        }
    }
}

impl<'a> Codes<'a> {
    /// The code of tuple `i` (one branch on the width; loops use `with_codes!`).
    #[inline]
    pub fn get(self, i: usize) -> u32 {
        match self {
            Codes::U8(v) => u32::from(v[i]),
            Codes::U16(v) => u32::from(v[i]),
            Codes::U32(v) => v[i],
        }
    }

    pub fn len(self) -> usize {
        with_codes!(self, v => v.len())
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The codes of tuples `range`.
    pub fn slice(self, range: std::ops::Range<usize>) -> Codes<'a> {
        match self {
            Codes::U8(v) => Codes::U8(&v[range]),
            Codes::U16(v) => Codes::U16(&v[range]),
            Codes::U32(v) => Codes::U32(&v[range]),
        }
    }

    /// Every code, widened to `u32`.
    pub fn iter(self) -> impl Iterator<Item = u32> + 'a {
        (0..self.len()).map(move |i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::Column;

    /// Codes read back as pushed across both widenings, each column in the narrowest width.
    #[test]
    fn widens_once_per_width_and_keeps_every_code() {
        let codes: Vec<u32> = (0..300u32).chain([70_000, 3, 255]).chain(0..10).collect();
        let mut c = Column::new();
        for (i, &code) in codes.iter().enumerate() {
            c.push(code);
            let want = match codes[..=i].iter().max() {
                Some(&m) if m > 65_535 => 4,
                Some(&m) if m > 255 => 2,
                _ => 1,
            };
            assert_eq!(c.width(), want, "after {i} codes");
        }
        assert_eq!(c.view().iter().collect::<Vec<_>>(), codes);
        assert_eq!(c.len(), codes.len());
        assert_eq!(Column::from_codes([1, 2, 255]).width(), 1);
        assert_eq!(Column::from_codes([65_535]).width(), 2);
    }
}
