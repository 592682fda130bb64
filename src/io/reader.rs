//! The line-driven record reader (see the module docs of [`crate::io`]).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use csv::ByteRecord;
use csv_core::ReadRecordResult;

use super::Format;
use crate::{Error, Result};

/// What the reader skipped, for warnings and the report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReadStats {
    /// Data records read (the header excluded), including the skipped ones.
    pub rows_read: u64,
    /// Records skipped because a field contains `?` (the toolbox's unknown value).
    pub rows_skipped: u64,
    /// Empty lines outside quoted fields (skipped).
    pub blank_lines: u64,
}

impl ReadStats {
    /// Records kept: read minus skipped.
    pub fn records(&self) -> u64 {
        self.rows_read - self.rows_skipped
    }
}

/// How a record's bytes become fields.
enum Splitter {
    /// Single-byte separator: the csv crate's RFC 4180 parser.
    Csv {
        core: Box<csv_core::Reader>,
        out: Vec<u8>,
        ends: Vec<usize>,
        sep: u8,
    },
    /// Multi-byte separator: [`split_multi`] over the record's lines, joined in `logical`.
    Multi {
        sep: Vec<u8>,
        logical: Vec<u8>,
        field: Vec<u8>,
    },
}

impl Splitter {
    /// The separator as messages show it: `';'`, `'\t'`, `', '`.
    fn shown(&self) -> String {
        let sep = match self {
            Splitter::Csv { sep, .. } => std::slice::from_ref(sep),
            Splitter::Multi { sep, .. } => &sep[..],
        };
        format!("'{}'", String::from_utf8_lossy(sep).escape_default())
    }
}

/// Reads the records of a delimited file, one reused [`ByteRecord`] at a time.
///
/// [`next_row`](Self::next_row) returns data rows only: blank lines and rows containing `?` are
/// skipped and counted in [`stats`](Self::stats), and every row is checked to have the width of
/// the header (or, without one, of the first row).
pub struct DelimitedReader<R> {
    path: PathBuf,
    src: R,
    splitter: Splitter,
    /// The current physical line (terminator included) and how much of it is consumed.
    line_buf: Vec<u8>,
    line_pos: usize,
    /// Physical lines read so far (1-based number of the line in `line_buf`).
    lines: u64,
    /// First line of the last record returned.
    record_line: u64,
    bytes: u64,
    header: Option<ByteRecord>,
    width: Option<usize>,
    stats: ReadStats,
    eof: bool,
    /// The header (if any) is read: records are data rows.
    header_done: bool,
    /// Rows containing `?` are data like any other ([`Format::unknown_kept`]).
    keep_unknown: bool,
    /// The longest line (and record) read ([`Format::max_line`]).
    max_line: usize,
    /// Lines are checked to be UTF-8 (a UTF-8 format that does not read [`Format::any_bytes`]).
    check_utf8: bool,
    /// The line in `line_buf` is not UTF-8 (so the fields of records using it are checked).
    line_invalid: bool,
    /// A line of the record being read is not UTF-8.
    record_invalid: bool,
    /// Offset of the record being read (against `bytes`), for the limit of a record's lines.
    record_start: u64,
    /// The bytes before this offset (against `bytes`) are known to be UTF-8.
    valid_until: u64,
}

impl<R: BufRead> DelimitedReader<R> {
    pub(super) fn new(format: &Format, path: &Path, src: R) -> Result<DelimitedReader<R>> {
        let sep = format.separator();
        let splitter = if sep.len() == 1 {
            Splitter::Csv {
                core: Box::new(
                    csv_core::ReaderBuilder::new()
                        .delimiter(sep[0])
                        .terminator(csv_core::Terminator::CRLF)
                        .build(),
                ),
                out: vec![0; 1024],
                ends: vec![0; 64],
                sep: sep[0],
            }
        } else {
            Splitter::Multi {
                sep: sep.to_vec(),
                logical: Vec::new(),
                field: Vec::new(),
            }
        };
        let mut reader = DelimitedReader {
            path: path.to_path_buf(),
            src,
            splitter,
            line_buf: Vec::with_capacity(1024),
            line_pos: 0,
            lines: 0,
            record_line: 0,
            bytes: 0,
            header: None,
            width: None,
            stats: ReadStats::default(),
            eof: false,
            header_done: false,
            keep_unknown: format.keeps_unknown(),
            max_line: format.max_line_length(),
            check_utf8: format.check_utf8 && super::encoding::is_utf8(format.encoding()),
            line_invalid: false,
            record_invalid: false,
            record_start: 0,
            valid_until: 0,
        };
        if format.header() {
            let mut header = ByteRecord::new();
            if reader.read_record(&mut header)? {
                reader.width = Some(header.len());
                reader.header = Some(header);
            }
        }
        reader.header_done = true;
        Ok(reader)
    }

    /// The file being read, as named in messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The header record, if the format has one and the file is not empty.
    pub fn header(&self) -> Option<&ByteRecord> {
        self.header.as_ref()
    }

    /// Fields per record: the header's, else the first data row's (once one was read).
    pub fn width(&self) -> Option<usize> {
        self.width
    }

    /// The line the last record returned starts on (1-based; the header is line 1 if present).
    pub fn line(&self) -> u64 {
        self.record_line
    }

    /// Bytes consumed so far (for progress).
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// Counts of rows read, skipped and blank lines so far.
    pub fn stats(&self) -> ReadStats {
        self.stats
    }

    /// Reads the next data row into `rec`. Returns `false` at the end of the file. Skips (and
    /// counts) blank lines and rows containing `?`; errors on a row of the wrong width.
    pub fn next_row(&mut self, rec: &mut ByteRecord) -> Result<bool> {
        loop {
            if !self.read_record(rec)? {
                return Ok(false);
            }
            self.stats.rows_read += 1;
            if !self.keep_unknown && memchr::memchr(b'?', rec.as_slice()).is_some() {
                self.stats.rows_skipped += 1;
                continue;
            }
            let width = *self.width.get_or_insert(rec.len());
            if rec.len() != width {
                let mut message = format!("expected {width} fields, found {}", rec.len());
                if width == 1 {
                    // The first row had no separator: most likely the wrong one was given.
                    message.push_str(&format!(
                        " (the first {} has one field: is the separator {} the file's?)",
                        if self.header.is_some() { "line" } else { "row" },
                        self.splitter.shown()
                    ));
                }
                return Err(Error::at(&self.path, self.record_line, None, message));
            }
            return Ok(true);
        }
    }

    /// Makes the next physical line (or the unconsumed rest of the current one) available.
    /// Returns `false` at the end of the file.
    fn fill_line(&mut self) -> Result<bool> {
        if self.line_pos < self.line_buf.len() {
            return Ok(true);
        }
        self.line_buf.clear();
        self.line_pos = 0;
        match self.read_physical(self.max_line)? {
            Some(0) => return Ok(false),
            Some(_) => {}
            None => {
                return Err(Error::LineTooLong {
                    file: self.path.clone(),
                    line: self.lines + 1,
                    message: super::source::too_long(self.max_line),
                })
            }
        };
        if self.lines == 1 {
            if self.line_buf.starts_with(b"\xef\xbb\xbf") {
                self.line_pos = 3; // UTF-8 byte order mark
            } else if let Some(message) =
                super::encoding::refused_start(&self.line_buf, encoding_rs::UTF_8)
            {
                // UTF-16 (a decoded file was checked by its decoder, before decoding).
                return Err(Error::Encoding {
                    file: self.path.clone(),
                    line: None,
                    field: None,
                    message,
                });
            }
        }
        Ok(true)
    }

    /// Reads one physical line into `line_buf` (appended), at most `limit` bytes long: its
    /// length (0 at the end of the file), or `None` if it is longer. Counts it and checks it is
    /// UTF-8 (where the format asks).
    fn read_physical(&mut self, limit: usize) -> Result<Option<usize>> {
        if self.check_utf8 && self.bytes >= self.valid_until {
            // Validates what is buffered in one pass (a line at a time costs five times more):
            // lines that end before `valid_until` need no check of their own. (An error here
            // is left for `read_line` to report.)
            if let Ok(buffered) = self.src.fill_buf() {
                let valid = match std::str::from_utf8(buffered) {
                    Ok(_) => buffered.len(),
                    Err(e) => e.valid_up_to(),
                };
                self.valid_until = self.bytes + valid as u64;
            }
        }
        let start = self.line_buf.len();
        let n = super::source::read_line(&mut self.src, &mut self.line_buf, limit)
            .map_err(|e| Error::io(&self.path, e))?;
        if let Some(n) = n.filter(|&n| n > 0) {
            self.bytes += n as u64;
            self.lines += 1;
            if self.check_utf8 {
                // Separators, quotes and line ends are ASCII, which never occurs inside a
                // UTF-8 character: a line is UTF-8 if and only if each of its fields is.
                self.line_invalid = self.bytes > self.valid_until
                    && std::str::from_utf8(&self.line_buf[start..]).is_err();
                self.record_invalid |= self.line_invalid;
            }
        }
        Ok(n)
    }

    /// Reads the next line of a record that goes on past the end of its line (a quoted line
    /// end) into `line_buf`: `false` at the end of the file. The record's lines together may
    /// not be longer than the limit.
    fn continue_record(&mut self) -> Result<bool> {
        self.line_buf.clear();
        self.line_pos = 0;
        let used = usize::try_from(self.bytes - self.record_start).unwrap_or(usize::MAX);
        match self.read_physical(self.max_line.saturating_sub(used))? {
            Some(n) => Ok(n > 0),
            None => Err(Error::LineTooLong {
                file: self.path.clone(),
                line: self.record_line,
                message: format!(
                    "the record starting on this line is longer than {}, the longest record \
                     anonbox reads: is a quote left open? {}",
                    super::source::shown_size(self.max_line),
                    super::source::RAISE_HINT
                ),
            }),
        }
    }

    /// The error of the first field of `rec` that is not UTF-8, if any: named by the header
    /// (once read), else by its 0-based index.
    fn check_fields(&self, rec: &ByteRecord) -> Result<()> {
        let Some(i) = rec.iter().position(|f| std::str::from_utf8(f).is_err()) else {
            return Ok(());
        };
        let name = match self.header.as_ref().and_then(|h| h.get(i)) {
            Some(n) if self.header_done => {
                crate::error::shown(&String::from_utf8_lossy(super::trim(n)))
            }
            _ => format!("column {i}"),
        };
        Err(Error::Encoding {
            file: self.path.clone(),
            line: Some(self.record_line),
            field: Some(name),
            message: super::utf8_field(&rec[i]).expect_err("not UTF-8"),
        })
    }

    /// Reads one record (header or data), skipping blank lines. `false` at the end of the file.
    fn read_record(&mut self, rec: &mut ByteRecord) -> Result<bool> {
        if self.eof {
            return Ok(false);
        }
        // Skip blank lines, find the record's first line.
        loop {
            if !self.fill_line()? {
                self.eof = true;
                return Ok(false);
            }
            let rest = &self.line_buf[self.line_pos..];
            if matches!(rest, b"\n" | b"\r\n" | b"\r") {
                self.line_pos = self.line_buf.len();
                self.stats.blank_lines += 1;
                continue;
            }
            break;
        }
        self.record_line = self.lines;
        self.record_start = self.bytes - (self.line_buf.len() - self.line_pos) as u64;
        self.record_invalid = self.line_invalid;
        match self.splitter {
            Splitter::Csv { .. } => self.read_csv(rec),
            Splitter::Multi { .. } => self.read_multi(rec),
        }?;
        if self.record_invalid {
            self.check_fields(rec)?;
        }
        Ok(true)
    }

    fn read_csv(&mut self, rec: &mut ByteRecord) -> Result<()> {
        let Splitter::Csv { sep, .. } = self.splitter else {
            unreachable!()
        };
        // Fast path: a line without quotes and without a lone '\r' is exactly its fields split
        // at the separator, which csv_core would produce too, byte by byte and much slower
        // (memchr scans the line with SIMD instead).
        {
            let line = &self.line_buf[self.line_pos..];
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            let body = body.strip_suffix(b"\r").unwrap_or(body);
            if memchr::memchr2(b'"', b'\r', body).is_none() {
                rec.clear();
                if self.header_done
                    && !self.keep_unknown
                    && !self.record_invalid
                    && memchr::memchr(b'?', body).is_some()
                {
                    // A data row the caller skips for its '?': no need to split it (unless a
                    // field is not UTF-8, which is an error in a skipped row too).
                    rec.push_field(body);
                    self.line_pos = self.line_buf.len();
                    return Ok(());
                }
                let mut start = 0;
                for i in memchr::memchr_iter(sep, body) {
                    rec.push_field(&body[start..i]);
                    start = i + 1;
                }
                rec.push_field(&body[start..]);
                self.line_pos = self.line_buf.len();
                return Ok(());
            }
        }
        let (mut nout_total, mut nend_total) = (0, 0);
        loop {
            // Need more input: the record continues on the next line (quoted line end).
            let at_eof = self.line_pos >= self.line_buf.len() && !self.continue_record()?;
            let Splitter::Csv {
                core, out, ends, ..
            } = &mut self.splitter
            else {
                unreachable!()
            };
            let input: &[u8] = if at_eof {
                &[]
            } else {
                &self.line_buf[self.line_pos..]
            };
            let (res, nin, nout, nend) =
                core.read_record(input, &mut out[nout_total..], &mut ends[nend_total..]);
            self.line_pos += nin;
            nout_total += nout;
            nend_total += nend;
            match res {
                ReadRecordResult::InputEmpty => {
                    if at_eof {
                        // Only reachable if csv_core needs another empty read to finish.
                        continue;
                    }
                }
                ReadRecordResult::OutputFull => {
                    let n = out.len();
                    out.resize(n * 2, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    let n = ends.len();
                    ends.resize(n * 2, 0);
                }
                ReadRecordResult::Record => {
                    // A CRLF terminator stops at '\r': its '\n' belongs to this record.
                    if &self.line_buf[self.line_pos.min(self.line_buf.len())..] == b"\n" {
                        self.line_pos = self.line_buf.len();
                    }
                    if at_eof {
                        self.eof = true;
                    }
                    break;
                }
                ReadRecordResult::End => {
                    self.eof = true;
                    break;
                }
            }
        }
        let Splitter::Csv { out, ends, .. } = &self.splitter else {
            unreachable!()
        };
        rec.clear();
        let mut start = 0;
        for &end in &ends[..nend_total] {
            rec.push_field(&out[start..end]);
            start = end;
        }
        Ok(())
    }

    fn read_multi(&mut self, rec: &mut ByteRecord) -> Result<()> {
        let Splitter::Multi { logical, .. } = &mut self.splitter else {
            unreachable!()
        };
        logical.clear();
        logical.extend_from_slice(&self.line_buf[self.line_pos..]);
        self.line_pos = self.line_buf.len();
        loop {
            let Splitter::Multi {
                sep,
                logical,
                field,
            } = &mut self.splitter
            else {
                unreachable!()
            };
            let body = strip_terminator(logical);
            if split_multi(sep, body, rec, field) {
                return Ok(());
            }
            // Inside a quoted field at the end of the line: append the next line.
            let more = self.continue_record()?;
            let Splitter::Multi {
                sep,
                logical,
                field,
            } = &mut self.splitter
            else {
                unreachable!()
            };
            if !more {
                // Unterminated quote at the end of the file: take what there is.
                logical.push(b'"');
                let body = strip_terminator(logical);
                let done = split_multi(sep, body, rec, field);
                debug_assert!(done);
                self.eof = true;
                return Ok(());
            }
            logical.extend_from_slice(&self.line_buf);
            self.line_pos = self.line_buf.len();
        }
    }
}

/// `line` without its final `\n` or `\r\n`.
fn strip_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Position of `sep` in `hay`.
#[inline]
fn find(hay: &[u8], sep: &[u8]) -> Option<usize> {
    let first = sep[0];
    let mut from = 0;
    while let Some(p) = hay[from..].iter().position(|&b| b == first) {
        let at = from + p;
        if hay[at..].starts_with(sep) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Splits one logical record (line terminator removed) on a multi-byte separator, with the
/// csv crate's quoting rules: a field starting with `"` runs to the next lone `"` (`""` is a
/// quote); bytes after the closing quote up to the separator are kept. Returns `false` if the
/// record ends inside a quoted field (the caller appends the next line and retries).
fn split_multi(sep: &[u8], data: &[u8], rec: &mut ByteRecord, field: &mut Vec<u8>) -> bool {
    rec.clear();
    let mut i = 0;
    loop {
        if data.get(i) == Some(&b'"') {
            field.clear();
            i += 1;
            loop {
                match data[i..].iter().position(|&b| b == b'"') {
                    None => return false,
                    Some(j) => {
                        field.extend_from_slice(&data[i..i + j]);
                        i += j + 1;
                        if data.get(i) == Some(&b'"') {
                            field.push(b'"');
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            let end = find(&data[i..], sep).map_or(data.len(), |j| i + j);
            field.extend_from_slice(&data[i..end]);
            rec.push_field(field);
            i = end;
        } else {
            let end = find(&data[i..], sep).map_or(data.len(), |j| i + j);
            rec.push_field(&data[i..end]);
            i = end;
        }
        if i >= data.len() {
            return true;
        }
        i += sep.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Rows = Vec<(u64, Vec<Vec<u8>>)>;

    fn read(sep: &str, header: bool, data: &[u8]) -> (Rows, ReadStats) {
        let format = Format::new(sep, header).unwrap();
        let mut r = format.reader(Path::new("t.csv"), data).unwrap();
        let mut rec = ByteRecord::new();
        let mut out = Vec::new();
        while r.next_row(&mut rec).unwrap() {
            out.push((r.line(), rec.iter().map(|f| f.to_vec()).collect()));
        }
        (out, r.stats())
    }

    fn f(v: &[&str]) -> Vec<Vec<u8>> {
        v.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn lf_crlf_blank_lines_and_line_numbers() {
        for data in [
            &b"a,b\n\nc,d\n\n\ne,f"[..],
            b"a,b\r\n\r\nc,d\r\n\r\n\r\ne,f\r\n",
            b"a,b\n\r\nc,d\r\n\n\r\ne,f\n",
        ] {
            let (rows, stats) = read(",", false, data);
            assert_eq!(
                rows,
                vec![
                    (1, f(&["a", "b"])),
                    (3, f(&["c", "d"])),
                    (6, f(&["e", "f"]))
                ],
                "{data:?}"
            );
            assert_eq!(stats.blank_lines, 3);
            assert_eq!(stats.rows_read, 3);
        }
    }

    #[test]
    fn quoted_fields_span_lines() {
        let data = b"x,\"a\r\nb\",\"say \"\"hi\"\"\"\r\n\r\n\"\"\"\",1,\"z\n\n\"\n";
        let (rows, stats) = read(",", false, data);
        assert_eq!(
            rows,
            vec![
                (1, f(&["x", "a\r\nb", "say \"hi\""])),
                (4, f(&["\"", "1", "z\n\n"])),
            ]
        );
        assert_eq!(stats.blank_lines, 1);
    }

    #[test]
    fn header_and_question_marks_and_width() {
        let data = b"h1;h2\n1;?\n2;3\n";
        let format = Format::new(";", true).unwrap();
        let mut r = format.reader(Path::new("t.csv"), &data[..]).unwrap();
        assert_eq!(r.header().unwrap(), &ByteRecord::from(vec!["h1", "h2"]));
        let mut rec = ByteRecord::new();
        assert!(r.next_row(&mut rec).unwrap());
        assert_eq!(r.line(), 3);
        assert!(!r.next_row(&mut rec).unwrap());
        assert_eq!(
            r.stats(),
            ReadStats {
                rows_read: 2,
                rows_skipped: 1,
                blank_lines: 0
            }
        );

        let mut r = format
            .reader(Path::new("t.csv"), &b"a;b\n1;2;3\n"[..])
            .unwrap();
        let err = r.next_row(&mut rec).unwrap_err().to_string();
        assert_eq!(err, "t.csv:2: expected 2 fields, found 3");
    }

    #[test]
    fn width_from_first_row_without_header() {
        let format = Format::new(",", false).unwrap();
        let mut r = format.reader(Path::new("in"), &b"1,2\n3\n"[..]).unwrap();
        let mut rec = ByteRecord::new();
        assert!(r.next_row(&mut rec).unwrap());
        assert_eq!(r.width(), Some(2));
        assert_eq!(
            r.next_row(&mut rec).unwrap_err().to_string(),
            "in:2: expected 2 fields, found 1"
        );
        // A first row of one field: the separator is most likely not the file's.
        let format = Format::new("\t", false).unwrap();
        let mut r = format.reader(Path::new("in"), &b"1,2\n3\t4\n"[..]).unwrap();
        assert!(r.next_row(&mut rec).unwrap());
        assert_eq!(
            r.next_row(&mut rec).unwrap_err().to_string(),
            "in:2: expected 1 fields, found 2 (the first row has one field: is the separator \
             '\\t' the file's?)"
        );
    }

    /// The quote-free fast path splits exactly as the csv crate does, lone '\r's and quotes
    /// go through csv_core, and a header line with '?' is still split.
    #[test]
    fn fast_path_agrees_with_the_csv_crate() {
        let text: &[u8] = b"h?,b,c\r\n1,,3\r\n\"x,y\",z,w\n1,2,3\r4,5,6\n,,\n6,7,8";
        let want: Vec<Vec<Vec<u8>>> = csv::ReaderBuilder::new()
            .has_headers(false)
            .terminator(csv::Terminator::CRLF)
            .from_reader(text)
            .byte_records()
            .map(|r| r.unwrap().iter().map(<[u8]>::to_vec).collect())
            .collect();
        let f = Format::new(",", true).unwrap();
        let mut r = f.reader(Path::new("x"), text).unwrap();
        let mut got = vec![r.header().unwrap().iter().map(<[u8]>::to_vec).collect()];
        let mut rec = ByteRecord::new();
        while r.next_row(&mut rec).unwrap() {
            got.push(rec.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
        }
        assert_eq!(got, want);
        // A data row with '?' is skipped (and counted) whatever its shape.
        let mut r = f
            .reader(Path::new("x"), &b"a,b\n1,?\n?\n2,3\n"[..])
            .unwrap();
        let mut rows = Vec::new();
        while r.next_row(&mut rec).unwrap() {
            rows.push(rec.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
        }
        assert_eq!(rows, vec![vec![b"2".to_vec(), b"3".to_vec()]]);
        assert_eq!(r.stats().rows_skipped, 2);
        // Kept, they are split like any row (and a short one is an error).
        let mut r = f
            .clone()
            .unknown_kept(true)
            .reader(Path::new("x"), &b"a,b\n1,?\n\"?\",x\n?\n"[..])
            .unwrap();
        for want in [[&b"1"[..], b"?"], [b"?", b"x"]] {
            assert!(r.next_row(&mut rec).unwrap());
            assert_eq!(rec.iter().collect::<Vec<_>>(), want);
        }
        let e = r.next_row(&mut rec).unwrap_err().to_string();
        assert!(e.contains("x:4: expected 2 fields, found 1"), "{e}");
        assert_eq!(r.stats().rows_skipped, 0);
    }

    #[test]
    fn multi_byte_separator() {
        let data = b"1,000, abc, \"x, y\"\r\n\"multi\nline\", b,  c\n,  , \n";
        let (rows, stats) = read(", ", false, data);
        assert_eq!(
            rows,
            vec![
                (1, f(&["1,000", "abc", "x, y"])),
                (2, f(&["multi\nline", "b", " c"])),
                (4, f(&["", " ", ""])),
            ]
        );
        assert_eq!(stats.blank_lines, 0);
        // A separator whose tail contains its first byte.
        let (rows, _) = read("::", false, b"a:::b::c\n");
        assert_eq!(rows, vec![(1, f(&["a", ":b", "c"]))]);
    }

    #[test]
    fn utf16_is_refused() {
        let format = Format::new(",", true).unwrap();
        for data in [&b"\xff\xfea\x00,\x00b\x00"[..], b"\xfe\xff\x00a"] {
            let e = format.reader(Path::new("u.csv"), data).err().unwrap();
            assert!(matches!(e, Error::Encoding { .. }));
            assert!(
                e.to_string().starts_with("u.csv: the file is UTF-16"),
                "{e}"
            );
        }
    }

    /// A decoded stream is split after decoding: a Shift_JIS trail byte equal to the
    /// separator (0x7C in "ポ", 0x83 0x7C) stays inside its field.
    #[test]
    fn decoded_fields_split_on_characters() {
        let enc = crate::io::encoding::for_label("shift_jis").unwrap();
        let format = Format::new("|", true).unwrap().encoded(enc);
        let bytes: &[u8] = b"name|n\n\x83\x7c|1\n";
        let src = std::io::BufReader::new(crate::io::encoding::decoded(bytes, enc));
        let mut r = format.reader(Path::new("s.csv"), src).unwrap();
        let mut rec = ByteRecord::new();
        assert!(r.next_row(&mut rec).unwrap());
        assert_eq!(rec.iter().collect::<Vec<_>>(), [&b"\xe3\x83\x9d"[..], b"1"]);
    }

    /// Fields of any bytes pass where the format says so (init's check of the encoding).
    #[test]
    fn non_utf8_bytes_and_bom_pass_with_any_bytes() {
        let read_any = |sep: &str, data: &[u8]| {
            let format = Format::new(sep, false).unwrap().any_bytes();
            let mut r = format.reader(Path::new("t.csv"), data).unwrap();
            let mut rec = ByteRecord::new();
            assert!(r.next_row(&mut rec).unwrap());
            rec.iter().map(<[u8]>::to_vec).collect::<Vec<_>>()
        };
        let rows = read_any(",", b"\xef\xbb\xbf\xff\xfe,b\n");
        assert_eq!(rows, vec![b"\xff\xfe".to_vec(), b"b".to_vec()]);
        let rows = read_any("||", b"\xef\xbb\xbfa||\xe9\n");
        assert_eq!(rows, vec![b"a".to_vec(), b"\xe9".to_vec()]);
    }

    /// By default a field that is not UTF-8 is an error naming its line and column, in every
    /// column and every kind of row (the header, a quoted field over lines, a row skipped for
    /// its '?', a multi-byte separator); a character cut by a separator is no character.
    #[test]
    fn a_field_not_utf8_is_an_error_wherever_it_is() {
        let err = |sep: &str, header: bool, data: &[u8]| -> String {
            let format = Format::new(sep, header).unwrap();
            let mut rec = ByteRecord::new();
            let e = match format.reader(Path::new("t.csv"), data) {
                Err(e) => e,
                Ok(mut r) => loop {
                    match r.next_row(&mut rec) {
                        Ok(true) => {}
                        Ok(false) => panic!("no error in {data:?}"),
                        Err(e) => break e,
                    }
                },
            };
            assert!(matches!(e, Error::Encoding { .. }), "{e}");
            e.to_string()
        };
        let not_utf8 = "is not valid UTF-8 (if the file is Latin-1";
        for (sep, header, data, at) in [
            (
                ",",
                true,
                &b"a,b\n1,2\n3,x\xff\n"[..],
                "t.csv:3: b: value 'x\u{FFFD}' ",
            ),
            (
                ",",
                false,
                b"1,2\n3,x\xff\n",
                "t.csv:2: column 1: value 'x\u{FFFD}' ",
            ),
            (
                ",",
                true,
                b"a,\xe9\n1,2\n",
                "t.csv:1: column 1: value '\u{FFFD}' ",
            ),
            (
                ",",
                true,
                b"a,b\n1,\"x\n\xff\"\n",
                "t.csv:2: b: value 'x\n\u{FFFD}' ",
            ),
            (",", true, b"a,b\n?,\xff\n", "t.csv:2: b: value '\u{FFFD}' "),
            (
                ",",
                true,
                b"a,b\n\xc3,\xa9\n",
                "t.csv:2: a: value '\u{FFFD}' ",
            ),
            (
                ", ",
                true,
                b"a, b\n1, \xff\n",
                "t.csv:2: b: value '\u{FFFD}' ",
            ),
            (
                ";",
                true,
                b"a;b\n1;\"x\n\xff\"\n",
                "t.csv:2: b: value 'x\n\u{FFFD}' ",
            ),
        ] {
            let e = err(sep, header, data);
            assert!(e.starts_with(&format!("{at}{not_utf8}")), "{e}");
        }
        // Characters cut by the ends of the reader's buffer are whole characters all the same;
        // a bad byte past a buffer's end is found.
        let text = "é,ü\nàb,€\n\"x\n€\",y\n".repeat(5);
        let format = Format::new(",", false).unwrap();
        for capacity in 1..12 {
            let src = std::io::BufReader::with_capacity(capacity, text.as_bytes());
            let mut r = format.reader(Path::new("t.csv"), src).unwrap();
            let mut rec = ByteRecord::new();
            let mut n = 0;
            while r.next_row(&mut rec).unwrap() {
                n += 1;
            }
            assert_eq!(n, 15);
            let mut bad = text.clone().into_bytes();
            bad.extend_from_slice(b"z,\xe2\x82\n");
            let src = std::io::BufReader::with_capacity(capacity, &bad[..]);
            let mut r = format.reader(Path::new("t.csv"), src).unwrap();
            let e = loop {
                if let Err(e) = r.next_row(&mut rec) {
                    break e.to_string();
                }
            };
            assert!(
                e.starts_with("t.csv:21: column 1: value '\u{FFFD}' is not"),
                "{e}"
            );
        }
    }

    /// A line longer than the limit is an error naming it, and so is a record whose lines
    /// add up to more (a quote left open); a line of exactly the limit is read.
    #[test]
    fn lines_and_records_longer_than_the_limit_are_errors() {
        let first_error = |sep: &str, limit: usize, data: &[u8]| -> Option<Error> {
            let format = Format::new(sep, false).unwrap().max_line(limit);
            let mut rec = ByteRecord::new();
            let mut r = match format.reader(Path::new("t.csv"), data) {
                Err(e) => return Some(e),
                Ok(r) => r,
            };
            loop {
                match r.next_row(&mut rec) {
                    Ok(true) => {}
                    Ok(false) => return None,
                    Err(e) => return Some(e),
                }
            }
        };
        for sep in [",", ", "] {
            assert!(first_error(sep, 8, b"12345678\nabcdefgh").is_none());
            assert!(first_error(sep, 8, b"12345678\r\nabcdefgh\r\n").is_none());
            assert!(first_error(sep, 8, b"123456789\r\n").is_some());
            let e = first_error(sep, 8, b"1\n2\n123456789").unwrap();
            assert!(matches!(e, Error::LineTooLong { line: 3, .. }), "{e}");
            assert!(
                e.to_string().starts_with(
                    "t.csv:3: the line is longer than 8 bytes, the longest line anonbox reads"
                ),
                "{e}"
            );
            let e = first_error(sep, 8, b"1\n\"2\n3\n4\n5\n6\n").unwrap();
            assert!(matches!(e, Error::LineTooLong { line: 2, .. }), "{e}");
            assert!(
                e.to_string().contains("the record starting on this line"),
                "{e}"
            );
        }
        let e = first_error(",", 1 << 20, &vec![b'x'; 3 << 20]).unwrap();
        assert!(e.to_string().contains("longer than 1 MiB"), "{e}");
    }

    #[test]
    fn lone_cr_ends_a_record() {
        let (rows, _) = read(",", false, b"a,b\rc,d\n");
        assert_eq!(rows, vec![(1, f(&["a", "b"])), (1, f(&["c", "d"]))]);
    }

    #[test]
    fn unterminated_quote_at_eof() {
        let (rows, _) = read(",", false, b"a,\"b\nc");
        assert_eq!(rows, vec![(1, f(&["a", "b\nc"]))]);
        let (rows, _) = read(", ", false, b"a, \"b\nc");
        assert_eq!(rows, vec![(1, f(&["a", "b\nc"]))]);
    }
}
