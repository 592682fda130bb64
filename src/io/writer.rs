//! Delimited output and atomic files.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

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
    }
}

/// Writes records as fields joined by a separator string, each line ending in `\n`.
pub struct DelimitedWriter<W: Write> {
    out: W,
    sep: Vec<u8>,
    fields: usize,
    /// The only field so far was empty (an empty line would read back as a blank line).
    lone_empty: bool,
}

impl<W: Write> DelimitedWriter<W> {
    pub(super) fn new(out: W, sep: &[u8]) -> DelimitedWriter<W> {
        DelimitedWriter {
            out,
            sep: sep.to_vec(),
            fields: 0,
            lone_empty: false,
        }
    }

    /// Appends one field to the current record.
    #[inline]
    pub fn field(&mut self, field: &[u8]) -> io::Result<()> {
        if self.fields > 0 {
            self.out.write_all(&self.sep)?;
        }
        self.fields += 1;
        self.lone_empty = self.fields == 1 && field.is_empty();
        if needs_quotes(field, &self.sep) {
            self.out.write_all(b"\"")?;
            for (i, part) in field.split(|&b| b == b'"').enumerate() {
                if i > 0 {
                    self.out.write_all(b"\"\"")?;
                }
                self.out.write_all(part)?;
            }
            self.out.write_all(b"\"")
        } else {
            self.out.write_all(field)
        }
    }

    /// Ends the current record with `\n`.
    #[inline]
    pub fn end_record(&mut self) -> io::Result<()> {
        if self.fields == 1 && self.lone_empty {
            self.out.write_all(b"\"\"")?;
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

/// A file that appears at its path only when complete.
///
/// Data goes to a temporary file in the target's folder (so the final rename stays on one file
/// system); [`commit`](Self::commit) flushes, syncs and renames it over the target. Dropping an
/// uncommitted `AtomicFile` (an error, a panic) removes the temporary file: the target is either
/// the complete new file or untouched.
pub struct AtomicFile {
    target: PathBuf,
    out: BufWriter<tempfile::NamedTempFile>,
}

impl AtomicFile {
    /// Starts writing `target`. The folder must exist.
    pub fn create(target: &Path) -> Result<AtomicFile> {
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // As an ordinary new file: the umask decides.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(dir).map_err(|e| Error::io(target, e))?;
        Ok(AtomicFile {
            target: target.to_path_buf(),
            out: BufWriter::with_capacity(1 << 20, temp),
        })
    }

    /// The final path.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes, syncs and renames the temporary file over the target.
    pub fn commit(self) -> Result<()> {
        let target = self.target;
        let temp = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&target, e.into_error()))?;
        temp.as_file()
            .sync_all()
            .map_err(|e| Error::io(&target, e))?;
        temp.persist(&target)
            .map_err(|e| Error::io(&target, e.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    #[inline]
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Writes `bytes` to `path` atomically (small files: reports).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes).map_err(|e| Error::io(path, e))?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Format;

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
    }

    #[test]
    fn round_trips_through_the_reader() {
        let fields: Vec<&[u8]> = vec![b"a\"b", b"x,y", b"\"q", b"l\r\nm", b"", b"\xff ,"];
        for sep in [",", ";", ", ", "::"] {
            let f = Format::new(sep, false).unwrap();
            let mut w = f.writer(Vec::new());
            w.record(fields.iter().copied()).unwrap();
            let bytes = w.into_inner();
            let mut r = f.reader(Path::new("x"), &bytes[..]).unwrap();
            let mut rec = csv::ByteRecord::new();
            assert!(r.next_row(&mut rec).unwrap());
            let got: Vec<&[u8]> = rec.iter().collect();
            assert_eq!(got, fields, "separator {sep:?}");
        }
    }

    #[test]
    fn atomic_file_appears_only_on_commit() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.csv");
        std::fs::write(&target, b"old").unwrap();
        {
            let mut f = AtomicFile::create(&target).unwrap();
            f.write_all(b"new").unwrap();
            // dropped without commit
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let mut f = AtomicFile::create(&target).unwrap();
        f.write_all(b"new").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
