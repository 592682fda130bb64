//! Delimited output: fields joined by a separator, quoted only where they would not read back.

use std::io::{self, Write};

use super::encoding::FieldEncoder;

/// True if `field` would not read back as itself unquoted: it contains the separator or a line
/// end, or it starts with a quote. Other bytes (a quote inside a field, non-UTF-8) are written
/// as they came, so unquoted input fields pass through byte for byte.
#[inline]
pub fn needs_quotes(field: &[u8], sep: &[u8]) -> bool {
    if field.first() == Some(&b'"') {
        return true;
    }
    if sep.len() == 1 {
        let s = sep[0];
        field.iter().any(|&b| b == s || b == b'\n' || b == b'\r')
    } else {
        field.iter().any(|&b| b == b'\n' || b == b'\r')
            || field.windows(sep.len()).any(|w| w == sep)
            // A separator that overlaps itself (`::`): a field ending in `:` followed by `::`
            // reads back as a separator one byte early.
            || (1..sep.len())
                .any(|k| field.ends_with(&sep[..k]) && sep[k..] == sep[..sep.len() - k])
    }
}

/// Writes records as fields joined by a separator string, each line ending in `\n`, in UTF-8
/// or, with a [`FieldEncoder`], in the input's encoding.
pub struct DelimitedWriter<W: Write> {
    out: W,
    sep: Vec<u8>,
    fields: usize,
    /// The only field so far was empty (an empty line would read back as a blank line).
    lone_empty: bool,
    /// Another encoding than UTF-8 (`None`: fields are written as they are).
    encoder: Option<Box<FieldEncoder>>,
}

impl<W: Write> DelimitedWriter<W> {
    pub(super) fn new(
        out: W,
        sep: &[u8],
        encoder: Option<Box<FieldEncoder>>,
    ) -> DelimitedWriter<W> {
        DelimitedWriter {
            out,
            sep: sep.to_vec(),
            fields: 0,
            lone_empty: false,
            encoder,
        }
    }

    /// Appends one field to the current record.
    #[inline]
    pub fn field(&mut self, field: &[u8]) -> io::Result<()> {
        let first = self.fields == 0;
        self.fields += 1;
        self.lone_empty = first && field.is_empty();
        match &mut self.encoder {
            None => put_field(&mut self.out, &self.sep, first, field),
            Some(e) => e.field(
                &mut self.out,
                self.fields,
                |text| put_field(text, &self.sep, first, field),
                field,
            ),
        }
    }

    /// Ends the current record with `\n`.
    #[inline]
    pub fn end_record(&mut self) -> io::Result<()> {
        if self.fields == 1 && self.lone_empty {
            self.out.write_all(b"\"\"")?;
        }
        if let Some(e) = &mut self.encoder {
            e.end_record();
        }
        self.fields = 0;
        self.out.write_all(b"\n")
    }

    /// Writes a whole record.
    pub fn record<'a, I: IntoIterator<Item = &'a [u8]>>(&mut self, fields: I) -> io::Result<()> {
        for f in fields {
            self.field(f)?;
        }
        self.end_record()
    }

    /// The underlying writer.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// Writes `field` to `out`, after the separator unless it is the record's `first`, quoted if it
/// would not read back as itself ([`needs_quotes`]).
#[inline(always)]
fn put_field<W: Write>(out: &mut W, sep: &[u8], first: bool, field: &[u8]) -> io::Result<()> {
    if !first {
        out.write_all(sep)?;
    }
    if needs_quotes(field, sep) {
        out.write_all(b"\"")?;
        for (i, part) in field.split(|&b| b == b'"').enumerate() {
            if i > 0 {
                out.write_all(b"\"\"")?;
            }
            out.write_all(part)?;
        }
        out.write_all(b"\"")
    } else {
        out.write_all(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Format;
    use std::path::Path;

    #[test]
    fn quotes_only_what_would_not_read_back() {
        let f = Format::new(",", false).unwrap();
        let mut w = f.writer(Vec::new());
        w.record([&b"a\"b"[..], b"x,y", b"\"q", b"l\nm", b"\xff"])
            .unwrap();
        w.record([&b""[..]]).unwrap();
        w.record([&b""[..], b""]).unwrap();
        assert_eq!(
            w.into_inner(),
            b"a\"b,\"x,y\",\"\"\"q\",\"l\nm\",\xff\n\"\"\n,\n".to_vec()
        );
        let f = Format::new(", ", false).unwrap();
        let mut w = f.writer(Vec::new());
        w.record([&b"1,000"[..], b"a, b"]).unwrap();
        assert_eq!(w.into_inner(), b"1,000, \"a, b\"\n".to_vec());
        // A separator that overlaps itself: a field ending in its start is quoted.
        let f = Format::new("::", false).unwrap();
        let mut w = f.writer(Vec::new());
        w.record([&b"A:"[..], b"c0", b"x:"]).unwrap();
        assert_eq!(w.into_inner(), b"\"A:\"::c0::\"x:\"\n".to_vec());
        assert!(!needs_quotes(b"a,", b", "));
    }

    #[test]
    fn round_trips_through_the_reader() {
        let fields: Vec<&[u8]> = vec![b"a\"b", b"x,y", b"\"q", b"l\r\nm", b"", b"A:", b"\xff ,"];
        for sep in [",", ";", ", ", "::"] {
            let f = Format::new(sep, false).unwrap();
            let mut w = f.writer(Vec::new());
            w.record(fields.iter().copied()).unwrap();
            let bytes = w.into_inner();
            let mut r = f
                .clone()
                .any_bytes()
                .reader(Path::new("x"), &bytes[..])
                .unwrap();
            let mut rec = csv::ByteRecord::new();
            assert!(r.next_row(&mut rec).unwrap());
            let got: Vec<&[u8]> = rec.iter().collect();
            assert_eq!(got, fields, "separator {sep:?}");
        }
    }
}
