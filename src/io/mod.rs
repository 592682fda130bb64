//! Delimited text in and out.
//!
//! One configuration object, [`Format`] (separator and header flag, as xsv's `Config`), builds
//! every reader and writer, so the load pass and the output pass split lines identically.
//!
//! Reading ([`DelimitedReader`]) goes line by line: the reader owns line numbering, so errors
//! name the physical line a record starts on, and it sees blank lines (skipped and counted,
//! where the toolbox stopped reading). Each record is split by the csv crate's parser
//! (`csv_core`, RFC 4180 quoting) for single-byte separators, or by a small splitter of the
//! same quoting rules for the multi-character separators toolbox configs use (`, `). Records
//! land in one reused [`csv::ByteRecord`]: no UTF-8 decoding, no allocation per row.
//!
//! Text encodings: UTF-8 by default; a [`Format`] given another encoding
//! ([`Format::encoded`]) decodes the file's bytes to UTF-8 below the reader and encodes what its
//! writers write back into that encoding (see [`encoding`]). With UTF-8 neither happens.
//!
//! Reading is bounded and checked (see [`source`]): a file read by name must be a regular file
//! (opened without blocking, so a FIFO or device is refused, never waited on or read for
//! ever), and a line (or a record over several lines) longer than the format's limit
//! ([`Format::max_line`], 64 MiB by default) is an error naming the line. Without another
//! encoding the text is checked to be UTF-8 as it is read (`str::from_utf8` over each buffer
//! read, a line at a time only where a buffer fails); a field that is not is an error naming its
//! line and column, in whichever column it is, so nothing that is not text is copied into a
//! release.
//!
//! Writing: [`DelimitedWriter`] joins fields with the separator string and quotes only the
//! fields that would not read back (see [`needs_quotes`]). Files are written through a
//! [`Publication`], a value the command owns: each [`AtomicFile`] writes to a temporary file in
//! the target's folder, and the publication renames them all over their targets only when the
//! command has succeeded, so a failed run never leaves a partial output behind; a signal's
//! cleanup removes what its [`Cleanup`] lists, and the next run sweeps what a killed one left.
//! A destination is resolved once ([`Dest`]): through the handle of its folder, refusing what
//! another user planted in a shared folder, and writing into inherited descriptors
//! (`/dev/stdout`) rather than over the file behind them. Nothing here is process-wide: what a
//! command has created, staged and replaced is in its publication.

mod atomic;
mod cleanup;
pub mod columnar;
pub mod dest;
pub mod encoding;
pub mod parts;
mod publication;
mod reader;
pub mod source;
mod sweep;
mod writer;

use std::io::{BufReader, Read};
use std::path::Path;

use encoding::Encoding;

#[cfg(feature = "datafusion")]
pub(crate) use atomic::test_pause;
pub use atomic::{check_writable, is_stdout, is_stream, AtomicFile};
pub use cleanup::{Cleanup, PrivateDir};
pub use dest::Dest;
pub use publication::{parse_file_mode, Publication};
pub use reader::{DelimitedReader, ReadStats};
pub use writer::{needs_quotes, DelimitedWriter};

use crate::{Error, Result};

/// Input buffer size: large reads keep the line loop in memory.
const READ_BUFFER: usize = 1 << 20;

/// How a delimited file is laid out: the one place separators and headers are decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    separator: Vec<u8>,
    header: bool,
    /// Rows containing `?` are data (else skipped, as the toolbox skips them).
    keep_unknown: bool,
    /// The file's text encoding (UTF-8: read and written as it is).
    encoding: &'static Encoding,
    /// The longest line (or record over several lines) read, in bytes.
    max_line: usize,
    /// Fields of a UTF-8 file must be UTF-8 (else: any bytes, for init's check of the encoding).
    check_utf8: bool,
    /// A columnar input ([`columnar`]): rows from record batches, the schema as the header;
    /// `None`: delimited text.
    columnar: Option<columnar::Columnar>,
}

/// A delimited reader of a file: its bytes, or their decoding to UTF-8.
pub type TextReader = DelimitedReader<BufReader<Box<dyn Read + Send>>>;

/// A reader of an input opened by [`Format::open`]: delimited text or columnar rows, with one
/// interface (every reader of the input reads either the same way).
pub enum FileReader {
    Text(TextReader),
    Columnar(columnar::ColumnarReader),
}

macro_rules! either {
    ($self:ident, $r:ident => $e:expr) => {
        match $self {
            FileReader::Text($r) => $e,
            FileReader::Columnar($r) => $e,
        }
    };
}

impl FileReader {
    /// The file being read, as named in messages.
    pub fn path(&self) -> &Path {
        either!(self, r => r.path())
    }

    /// The header record (a columnar input's column names), if any.
    pub fn header(&self) -> Option<&csv::ByteRecord> {
        either!(self, r => r.header())
    }

    /// Fields per record.
    pub fn width(&self) -> Option<usize> {
        either!(self, r => r.width())
    }

    /// The line the last record returned starts on (a columnar input's row number, from 1).
    pub fn line(&self) -> u64 {
        either!(self, r => r.line())
    }

    /// Bytes consumed so far (for progress).
    pub fn bytes_read(&self) -> u64 {
        either!(self, r => r.bytes_read())
    }

    /// Counts of rows read, skipped and blank lines so far.
    pub fn stats(&self) -> ReadStats {
        either!(self, r => r.stats())
    }

    /// Reads the next data row into `rec`; `false` at the end.
    pub fn next_row(&mut self, rec: &mut csv::ByteRecord) -> Result<bool> {
        either!(self, r => r.next_row(rec))
    }
}

/// The size of an input in bytes: a file's, or the sum of a data set folder's files (progress).
pub fn input_size(path: &Path) -> u64 {
    if path.is_dir() {
        columnar::dataset_files(path, None)
            .map(|fs| {
                fs.iter()
                    .filter_map(|f| std::fs::metadata(f).ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    } else {
        std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
    }
}

impl Format {
    /// A format with `separator` (one byte or several, used literally) and an optional header.
    /// Errors: an empty separator, or one containing a quote or a line end.
    pub fn new(separator: &str, header: bool) -> Result<Format> {
        let sep = separator.as_bytes();
        if sep.is_empty() {
            return Err(Error::Invalid("the field separator is empty".into()));
        }
        if sep.iter().any(|&b| matches!(b, b'"' | b'\n' | b'\r')) {
            return Err(Error::Invalid(format!(
                "the field separator {separator:?} contains a quote or a line end"
            )));
        }
        Ok(Format {
            separator: sep.to_vec(),
            header,
            keep_unknown: false,
            encoding: encoding_rs::UTF_8,
            max_line: source::DEFAULT_MAX_LINE,
            check_utf8: true,
            columnar: None,
        })
    }

    /// The format of a columnar input: rows from its record batches, its schema the header.
    pub fn columnar(mut self, source: columnar::Columnar) -> Format {
        self.header = true;
        self.columnar = Some(source);
        self
    }

    /// The format of a file that sits beside an input of this format and has its columns (a
    /// research subset): the input's format for delimited text; for a columnar input, the
    /// file's own kind by its extension (a Parquet or Arrow file or folder), else delimited
    /// text with this separator and a header (a columnar input's columns have names).
    pub fn beside(&self, path: &Path) -> Format {
        if self.columnar.is_none() {
            return self.clone();
        }
        let mut format = self.clone();
        format.columnar = None;
        format.header = true;
        match columnar::Kind::of_input(path) {
            Some(kind) => format.columnar(columnar::Columnar::File(kind)),
            None => format,
        }
    }

    /// The columnar source, if the input is not delimited text.
    pub fn columnar_source(&self) -> Option<&columnar::Columnar> {
        self.columnar.as_ref()
    }

    /// The format with the file's text encoding: readers decode it to UTF-8, writers encode
    /// their UTF-8 fields back into it (an ASCII-compatible encoding, see
    /// [`encoding::for_label`]).
    pub fn encoded(mut self, encoding: &'static Encoding) -> Format {
        self.encoding = encoding;
        self
    }

    /// The file's text encoding.
    pub fn encoding(&self) -> &'static Encoding {
        self.encoding
    }

    /// The format with a longest line of `bytes` ([`source::DEFAULT_MAX_LINE`] by default): a
    /// longer line, or a record whose lines add up to more, is an error naming the line.
    pub fn max_line(mut self, bytes: usize) -> Format {
        self.max_line = bytes;
        self
    }

    /// The longest line read, in bytes.
    pub fn max_line_length(&self) -> usize {
        self.max_line
    }

    /// The format reading fields of any bytes where the encoding is UTF-8 (by default a field
    /// that is not UTF-8 is an error): for a check of the encoding that finds such fields.
    pub fn any_bytes(mut self) -> Format {
        self.check_utf8 = false;
        self
    }

    /// Whether rows containing `?` are data (`true`) or skipped (`false`, the default, as the
    /// UT Dallas toolbox skips them).
    pub fn unknown_kept(mut self, keep: bool) -> Format {
        self.keep_unknown = keep;
        self
    }

    /// True if rows containing `?` are data.
    pub fn keeps_unknown(&self) -> bool {
        self.keep_unknown
    }

    /// The separator's bytes.
    pub fn separator(&self) -> &[u8] {
        &self.separator
    }

    /// True if the first record is a header.
    pub fn header(&self) -> bool {
        self.header
    }

    /// Opens `path` for reading (and reads its header, if the format has one), decoding it to
    /// UTF-8 if the format has another encoding. (UTF-8 reads the file itself: the boxed
    /// source is called once per megabyte buffered, the line loop is unchanged.) A path that
    /// is not a regular file is refused ([`source::open_regular`]).
    pub fn open(&self, path: &Path) -> Result<FileReader> {
        self.open_columns(path, None)
    }

    /// [`Format::open`] for a reader that needs only `columns` (when given): a columnar input
    /// then reads only those (the others are empty fields); delimited text is read whole.
    pub fn open_columns(&self, path: &Path, columns: Option<&[usize]>) -> Result<FileReader> {
        if let Some(c) = &self.columnar {
            return Ok(FileReader::Columnar(columnar::ColumnarReader::open(
                path,
                c,
                self.keep_unknown,
                columns,
            )?));
        }
        let file = source::open_regular(path).map_err(|e| Error::io(path, e))?;
        let src = encoding::decoded(file, self.encoding);
        DelimitedReader::new(self, path, BufReader::with_capacity(READ_BUFFER, src))
            .map(FileReader::Text)
    }

    /// A reader over any buffered source; `path` names it in error messages.
    pub fn reader<R: std::io::BufRead>(&self, path: &Path, src: R) -> Result<DelimitedReader<R>> {
        DelimitedReader::new(self, path, src)
    }

    /// A writer joining fields with this format's separator, lines ending in `\n`.
    /// In the format's encoding: a value it cannot hold is an error naming the line and field.
    pub fn writer<W: std::io::Write>(&self, out: W) -> DelimitedWriter<W> {
        DelimitedWriter::new(
            out,
            &self.separator,
            encoding::FieldEncoder::new(self.encoding, self.header),
        )
    }
}

/// The 0-based column that `spec` names in `file`: a header name (when there is a header),
/// else an index below `width`. The error says what the file has.
pub fn column_index(
    spec: &str,
    header: Option<&[String]>,
    width: usize,
    file: &Path,
) -> std::result::Result<usize, String> {
    let spec = spec.trim();
    if let Some(names) = header {
        let mut found = names
            .iter()
            .enumerate()
            .filter(|(_, n)| *n == spec)
            .map(|(i, _)| i);
        match (found.next(), found.next()) {
            (Some(i), None) => return Ok(i),
            (Some(i), Some(j)) => {
                return Err(format!(
                    "'{spec}' names columns {i} and {j} of {}: give the column's index",
                    file.display()
                ))
            }
            _ => {}
        }
    }
    match spec.parse::<usize>() {
        Ok(i) if i < width => Ok(i),
        Ok(i) => Err(format!(
            "column index {i} is out of range: {} has {width} columns",
            file.display()
        )),
        Err(_) => Err(match header {
            Some(names) => format!(
                "no column named '{spec}' in {} (columns: {})",
                file.display(),
                names.join(", ")
            ),
            None => format!("'{spec}' is not a column index (the file has no header)"),
        }),
    }
}

/// A separator as given on a command line or in a config: `\t` (as typed on a shell; the
/// toolbox split with a Java regex, where it means a tab) is a tab, anything else is itself.
pub fn separator_arg(given: &str) -> String {
    if given == "\\t" {
        "\t".to_string()
    } else {
        given.to_string()
    }
}

/// A field as text, or the one message every reader gives for a field that is not UTF-8
/// (read without an encoding: one that is given decodes every field to UTF-8).
pub fn utf8_field(raw: &[u8]) -> std::result::Result<&str, String> {
    std::str::from_utf8(raw).map_err(|_| {
        format!(
            "value '{}' is not valid UTF-8 {NOT_UTF8_HINT}",
            String::from_utf8_lossy(raw)
        )
    })
}

/// What every "not valid UTF-8" message adds.
pub const NOT_UTF8_HINT: &str = "(if the file is Latin-1, set encoding=\"windows-1252\" on \
                                 <input> or give -encoding windows-1252; init, hierarchy and \
                                 audit take --encoding)";

/// Java's `String.trim`: strips bytes `<= b' '` at both ends (the toolbox trims QID values).
#[inline]
pub fn trim(field: &[u8]) -> &[u8] {
    let start = field.iter().position(|&b| b > b' ').unwrap_or(field.len());
    let end = field
        .iter()
        .rposition(|&b| b > b' ')
        .map_or(start, |p| p + 1);
    &field[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_like_java() {
        assert_eq!(trim(b"  a b\t\r"), b"a b");
        assert_eq!(trim(b"   "), b"");
        assert_eq!(trim(b""), b"");
        assert_eq!(trim(b"\xc3\xa9 "), b"\xc3\xa9");
    }

    #[test]
    fn columns_by_name_or_index() {
        let names: Vec<String> = ["a", "b", "a"].map(String::from).to_vec();
        let f = Path::new("f.csv");
        assert_eq!(column_index("b", Some(&names), 3, f), Ok(1));
        assert_eq!(column_index("2", Some(&names), 3, f), Ok(2));
        let e = column_index("a", Some(&names), 3, f).unwrap_err();
        assert_eq!(
            e,
            "'a' names columns 0 and 2 of f.csv: give the column's index"
        );
        assert!(column_index("3", None, 3, f)
            .unwrap_err()
            .contains("out of range"));
    }

    #[test]
    fn rejects_bad_separators() {
        assert!(Format::new("", false).is_err());
        assert!(Format::new("\"", false).is_err());
        assert!(Format::new(",\n", false).is_err());
        assert!(Format::new(", ", false).is_ok());
        assert!(Format::new("\t", true).is_ok());
    }
}
