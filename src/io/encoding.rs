//! Text encodings of an input other than UTF-8 (Latin-1 / windows-1252, ISO-8859-15,
//! Shift_JIS, ...), named by the WHATWG Encoding Standard's labels (the `encoding_rs` crate).
//!
//! The design has three rules:
//! - **UTF-8 costs nothing.** Everything inside anonbox is UTF-8; an input in UTF-8 (the
//!   default) is read as it always was, with no wrapper and no conversion.
//! - **The byte stream is decoded, not the fields.** [`Decode`] turns the file's bytes into
//!   UTF-8 below the record reader, before lines and fields are split: in Shift_JIS a trail
//!   byte can equal `|` or `\`, so splitting first would cut characters in two. After it, every
//!   reader sees UTF-8 text, and names and values compare with the config's (UTF-8 XML).
//!   Bytes that are not valid in the declared encoding are an error naming the line; they are
//!   never replaced.
//! - **A release is written in its input's encoding** ([`FieldEncoder`], used by
//!   [`super::DelimitedWriter`]): fields read from the input go back byte for byte, and a value
//!   the encoding cannot hold (a generalized label with a character outside windows-1252) is an
//!   error naming the file, line, field and value, never a `?` or an HTML entity.
//!
//! Only ASCII-compatible encodings are accepted: separators, quotes and line ends are ASCII in
//! the file as in the text. UTF-16 (a label, or a file starting with a UTF-16 byte order mark)
//! is refused in one line that says to save the file as UTF-8.

use std::io::{self, Read, Write};

pub use encoding_rs::Encoding;
use encoding_rs::{DecoderResult, UTF_8};

use crate::error::Located;

/// Bytes decoded at a time.
const CHUNK: usize = 1 << 16;

/// The refusal of a UTF-16 file.
const UTF16: &str = "the file is UTF-16 (it starts with a UTF-16 byte order mark), which anonbox \
                     does not read: save it as UTF-8";

/// The encoding a WHATWG label names (`latin1`, `iso-8859-15`, `windows-1252`, `shift_jis`,
/// `utf-8`, case-insensitive), or the one-line message of a label that names none or an
/// encoding anonbox does not read (UTF-16 and the other encodings that are not ASCII-compatible).
pub fn for_label(label: &str) -> Result<&'static Encoding, String> {
    let Some(enc) = Encoding::for_label_no_replacement(label.trim().as_bytes()) else {
        return Err(format!(
            "unknown encoding '{label}': give a label of the WHATWG Encoding Standard, such as \
             utf-8, windows-1252 (latin1), iso-8859-15 or shift_jis"
        ));
    };
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        return Err(format!(
            "encoding '{label}' is UTF-16, which anonbox does not read: save the file as UTF-8"
        ));
    }
    if !enc.is_ascii_compatible() {
        return Err(format!(
            "encoding '{label}' ({}) does not keep ASCII as ASCII, which anonbox needs for \
             separators and quotes: save the file as UTF-8",
            enc.name()
        ));
    }
    Ok(enc)
}

/// True for UTF-8, the encoding anonbox reads and writes without conversion.
pub fn is_utf8(enc: &'static Encoding) -> bool {
    enc == UTF_8
}

/// The message for a file whose first bytes do not fit the declared encoding: a UTF-16 byte
/// order mark (any encoding), or a UTF-8 one in a file declared in another encoding.
pub fn refused_start(start: &[u8], enc: &'static Encoding) -> Option<String> {
    if start.starts_with(b"\xff\xfe") || start.starts_with(b"\xfe\xff") {
        return Some(UTF16.to_string());
    }
    if !is_utf8(enc) && start.starts_with(b"\xef\xbb\xbf") {
        return Some(format!(
            "the file starts with a UTF-8 byte order mark, so it is UTF-8, not {}: remove the \
             encoding",
            enc.name()
        ));
    }
    None
}

/// `src` as UTF-8: itself for UTF-8, else a [`Decode`].
pub fn decoded<R: Read + Send + 'static>(src: R, enc: &'static Encoding) -> Box<dyn Read + Send> {
    if is_utf8(enc) {
        Box::new(src)
    } else {
        Box::new(Decode::new(src, enc))
    }
}

/// A reader of UTF-8 text decoded from `R`'s bytes in an ASCII-compatible encoding.
///
/// Its errors (a refused start, bytes that are not valid in the encoding) are I/O errors
/// carrying a [`Located`] with the line, which [`crate::Error::io`] turns into a located error.
pub struct Decode<R> {
    inner: R,
    encoding: &'static Encoding,
    decoder: encoding_rs::Decoder,
    raw: Box<[u8]>,
    raw_pos: usize,
    raw_end: usize,
    out: Box<[u8]>,
    out_pos: usize,
    out_end: usize,
    started: bool,
    eof: bool,
    finished: bool,
    /// Line ends in the text decoded so far.
    lines: u64,
}

impl<R: Read> Decode<R> {
    /// Decodes `inner` from `encoding` (an ASCII-compatible one, see [`for_label`]).
    pub fn new(inner: R, encoding: &'static Encoding) -> Decode<R> {
        Decode {
            inner,
            encoding,
            decoder: encoding.new_decoder_without_bom_handling(),
            raw: vec![0; CHUNK].into_boxed_slice(),
            raw_pos: 0,
            raw_end: 0,
            out: vec![0; CHUNK].into_boxed_slice(),
            out_pos: 0,
            out_end: 0,
            started: false,
            eof: false,
            finished: false,
            lines: 0,
        }
    }

    /// Decodes the next chunk into `out`.
    fn decode_more(&mut self) -> io::Result<()> {
        if self.raw_pos == self.raw_end && !self.eof {
            let n = loop {
                match self.inner.read(&mut self.raw) {
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    r => break r?,
                }
            };
            (self.raw_pos, self.raw_end, self.eof) = (0, n, n == 0);
            if !self.started {
                self.started = true;
                if let Some(m) = refused_start(&self.raw[..n], self.encoding) {
                    return Err(fault(None, m));
                }
            }
        }
        let (result, read, written) = self.decoder.decode_to_utf8_without_replacement(
            &self.raw[self.raw_pos..self.raw_end],
            &mut self.out,
            self.eof,
        );
        self.raw_pos += read;
        (self.out_pos, self.out_end) = (0, written);
        self.lines += memchr::memchr_iter(b'\n', &self.out[..written]).count() as u64;
        match result {
            DecoderResult::InputEmpty => self.finished = self.eof,
            DecoderResult::OutputFull => {}
            DecoderResult::Malformed(bad, extra) => {
                let end = self.raw_pos - extra as usize;
                let bytes: Vec<String> = self.raw[end.saturating_sub(bad as usize)..end]
                    .iter()
                    .map(|b| format!("0x{b:02X}"))
                    .collect();
                let (noun, verb) = match bytes.len() {
                    1 => ("byte", "is"),
                    _ => ("bytes", "are"),
                };
                return Err(fault(
                    Some(self.lines + 1),
                    format!(
                        "{noun} {} {verb} not valid {} (is it the file's encoding?)",
                        bytes.join(" "),
                        self.encoding.name()
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Decode<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.out_pos == self.out_end {
            if self.finished {
                return Ok(0);
            }
            self.decode_more()?;
        }
        let n = buf.len().min(self.out_end - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

/// An I/O error carrying a located message (see [`crate::Error::io`]).
fn fault(line: Option<u64>, message: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        Located {
            line,
            field: None,
            message,
        },
    )
}

/// Writes UTF-8 fields in another encoding, for [`super::DelimitedWriter`]: each field, as the
/// writer would write it in UTF-8 (separator and quotes included), is encoded whole. Counts
/// lines and keeps the header's names so that an unrepresentable value is named where it is.
pub struct FieldEncoder {
    encoding: &'static Encoding,
    /// The first record is a header: its fields name the others in errors.
    header: bool,
    names: Vec<String>,
    /// 1-based line of the record being written.
    line: u64,
    scratch: Vec<u8>,
}

impl FieldEncoder {
    /// An encoder to `encoding`, or `None` for UTF-8 (nothing to convert).
    pub fn new(encoding: &'static Encoding, header: bool) -> Option<Box<FieldEncoder>> {
        (!is_utf8(encoding)).then(|| {
            Box::new(FieldEncoder {
                encoding,
                header,
                names: Vec::new(),
                line: 1,
                scratch: Vec::new(),
            })
        })
    }

    /// Writes field number `index` (1-based), given by `put` as it would be written in UTF-8.
    pub fn field<W: Write>(
        &mut self,
        out: &mut W,
        index: usize,
        put: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
        value: &[u8],
    ) -> io::Result<()> {
        self.scratch.clear();
        put(&mut self.scratch)?;
        let name = |names: &[String]| {
            names
                .get(index - 1)
                .map_or_else(|| format!("field {index}"), |n| crate::error::shown(n))
        };
        let text = std::str::from_utf8(&self.scratch).map_err(|_| {
            located(
                self.line,
                name(&self.names),
                format!(
                    "value '{}' is not UTF-8 text",
                    String::from_utf8_lossy(value)
                ),
            )
        })?;
        let (bytes, _, unmappable) = self.encoding.encode(text);
        if unmappable {
            let value = String::from_utf8_lossy(value);
            // In the value, or else in the separator.
            let c = text
                .chars()
                .find(|c| self.encoding.encode(c.encode_utf8(&mut [0; 4])).2)
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            return Err(located(
                self.line,
                name(&self.names),
                format!(
                    "value '{value}' cannot be written in {}, the input's encoding: it has no \
                     '{c}' (U+{:04X}); use labels it can hold, or save the input as UTF-8",
                    self.encoding.name(),
                    c as u32
                ),
            ));
        }
        if self.header && self.line == 1 {
            self.names.push(String::from_utf8_lossy(value).into_owned());
        }
        out.write_all(&bytes)
    }

    /// The record is ended.
    pub fn end_record(&mut self) {
        self.line += 1;
    }
}

fn located(line: u64, field: String, message: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        Located {
            line: Some(line),
            field: Some(field),
            message,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(bytes: &[u8], label: &str) -> io::Result<String> {
        let mut s = String::new();
        Decode::new(bytes, for_label(label).unwrap()).read_to_string(&mut s)?;
        Ok(s)
    }

    #[test]
    fn labels() {
        assert_eq!(for_label("latin1").unwrap().name(), "windows-1252");
        assert_eq!(for_label(" ISO-8859-1 ").unwrap().name(), "windows-1252");
        assert_eq!(for_label("iso-8859-15").unwrap().name(), "ISO-8859-15");
        assert_eq!(for_label("sjis").unwrap().name(), "Shift_JIS");
        assert!(is_utf8(for_label("utf8").unwrap()));
        assert!(for_label("klingon")
            .unwrap_err()
            .contains("unknown encoding 'klingon'"));
        for label in ["utf-16", "utf-16be", "UTF-16LE"] {
            let e = for_label(label).unwrap_err();
            assert!(
                e.contains("UTF-16") && e.contains("save the file as UTF-8"),
                "{e}"
            );
        }
        assert!(for_label("iso-2022-jp").unwrap_err().contains("ASCII"));
        assert!(for_label("iso-2022-kr").unwrap_err().contains("unknown"));
    }

    #[test]
    fn every_windows_1252_byte_decodes_and_encodes_back() {
        let bytes: Vec<u8> = (0u8..=255).collect();
        let text = decode_all(&bytes, "windows-1252").unwrap();
        let enc = for_label("windows-1252").unwrap();
        assert_eq!(&enc.encode(&text).0[..], &bytes[..]);
    }

    #[test]
    fn decodes_across_chunks_and_names_the_line_of_bad_bytes() {
        // Shift_JIS "表" is 0x95 0x5C: split across the chunk boundary.
        let mut bytes = vec![b'a'; CHUNK - 1];
        bytes.extend_from_slice(b"\x95\x5c\n");
        let text = decode_all(&bytes, "shift_jis").unwrap();
        assert!(text.ends_with("a表\n"));
        let e = decode_all(b"ok\nok\n\x81\x20\n", "shift_jis").unwrap_err();
        let located = e.get_ref().unwrap().downcast_ref::<Located>().unwrap();
        assert_eq!(located.line, Some(3));
        assert!(located.message.contains("0x81"), "{}", located.message);
    }

    #[test]
    fn refuses_utf16_and_a_utf8_bom_in_another_encoding() {
        let e = decode_all(b"\xff\xfea\x00", "windows-1252").unwrap_err();
        assert!(e.to_string().contains("UTF-16"));
        assert!(refused_start(b"\xfe\xff", UTF_8).is_some());
        assert!(refused_start(b"\xef\xbb\xbfa", UTF_8).is_none());
        let e = decode_all(b"\xef\xbb\xbfa", "latin1").unwrap_err();
        assert!(e.to_string().contains("UTF-8 byte order mark"));
    }

    #[test]
    fn an_unrepresentable_value_is_named() {
        let mut enc = FieldEncoder::new(for_label("latin1").unwrap(), true).unwrap();
        let mut out = Vec::new();
        for v in ["name", "age"] {
            let b = v.as_bytes();
            enc.field(&mut out, 1, |s| s.write_all(b), b).unwrap();
        }
        enc.end_record();
        enc.field(&mut out, 1, |s| s.write_all("José".as_bytes()), b"")
            .unwrap();
        assert_eq!(out, b"nameageJos\xe9");
        let v = "≤30".as_bytes();
        let e = enc.field(&mut out, 2, |s| s.write_all(v), v).unwrap_err();
        let l = e.get_ref().unwrap().downcast_ref::<Located>().unwrap();
        assert_eq!((l.line, l.field.as_deref()), (Some(2), Some("age")));
        assert!(l.message.contains("'≤30'") && l.message.contains("U+2264"));
        assert!(FieldEncoder::new(UTF_8, false).is_none());
    }
}
