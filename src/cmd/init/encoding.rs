//! init's choice of a file's text encoding when `--encoding` is not given.
//!
//! A file that is UTF-8 throughout is read as UTF-8. Any other is read as windows-1252, the
//! usual encoding of European exports ("Latin-1"): every byte decodes in it, so the profile
//! always succeeds, and init says so in one line naming where the file stopped being UTF-8, so
//! that a user whose file is in another encoding gives `--encoding`. The config records the
//! choice (`encoding="windows-1252"` on `<input>`), so the run reads what init read; the run
//! itself never guesses.
//!
//! The check costs one pass of UTF-8 validation over the raw bytes (no splitting); only a file
//! that fails it is read again, record by record, to name the line and field.

use std::io::Read;
use std::path::Path;

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

use crate::io::{trim, Format};
use crate::{Error, Result};

/// The encoding init reads a file in that is not UTF-8.
pub const FALLBACK: &Encoding = WINDOWS_1252;

/// `None` if `path` is UTF-8 throughout (or says it is, starting with a UTF-8 byte order mark:
/// then what is not UTF-8 in it is an error of the profile), else where it is not: `line L,
/// field NAME` (read with `format`'s separator and header).
pub fn not_utf8(format: &Format, path: &Path) -> Result<Option<String>> {
    if is_utf8_file(path)? || starts_with_utf8_bom(path)? {
        return Ok(None);
    }
    let format = format.clone().encoded(UTF_8).any_bytes();
    let mut reader = format.open(path)?;
    let names: Option<Vec<String>> = reader.header().map(|h| {
        h.iter()
            .map(|f| String::from_utf8_lossy(trim(f)).into_owned())
            .collect()
    });
    if let Some(i) = reader
        .header()
        .and_then(|h| h.iter().position(|f| std::str::from_utf8(f).is_err()))
    {
        return Ok(Some(format!("line 1, the name of column {i}")));
    }
    let mut rec = csv::ByteRecord::new();
    while reader.next_row(&mut rec)? {
        if let Some(i) = rec.iter().position(|f| std::str::from_utf8(f).is_err()) {
            let name = names
                .as_ref()
                .map_or(format!("att{i}"), |n| crate::error::shown(&n[i]));
            return Ok(Some(format!("line {}, field {name}", reader.line())));
        }
    }
    // Outside every field (a byte order mark of another kind is refused by the reader).
    Ok(Some("outside the fields".to_string()))
}

fn starts_with_utf8_bom(path: &Path) -> Result<bool> {
    let mut start = Vec::with_capacity(3);
    let file = crate::io::source::open_regular(path).map_err(|e| Error::io(path, e))?;
    file.take(3)
        .read_to_end(&mut start)
        .map_err(|e| Error::io(path, e))?;
    Ok(start == b"\xef\xbb\xbf")
}

/// True if the bytes of `path` are UTF-8 (validated a megabyte at a time, a character cut at a
/// chunk's end carried over to the next).
fn is_utf8_file(path: &Path) -> Result<bool> {
    let mut file = crate::io::source::open_regular(path).map_err(|e| Error::io(path, e))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut carried = 0;
    loop {
        let n = match file.read(&mut buf[carried..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        if n == 0 {
            return Ok(carried == 0);
        }
        let len = carried + n;
        carried = match std::str::from_utf8(&buf[..len]) {
            Ok(_) => 0,
            // Cut at the end: at most three bytes, completed by the next read.
            Err(e) if e.error_len().is_none() => {
                buf.copy_within(e.valid_up_to()..len, 0);
                len - e.valid_up_to()
            }
            Err(_) => return Ok(false),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bytes: &[u8]) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.csv");
        std::fs::write(&path, bytes).unwrap();
        not_utf8(&Format::new(";", true).unwrap(), &path).unwrap()
    }

    #[test]
    fn names_the_first_field_that_is_not_utf8() {
        assert_eq!(check("name;age\nJosé;3\n".as_bytes()), None);
        assert_eq!(
            check(b"name;age\nAnna;3\nJos\xe9;4\n").as_deref(),
            Some("line 3, field name")
        );
        assert_eq!(
            check(b"na\xefve;age\nx;1\n").as_deref(),
            Some("line 1, the name of column 0")
        );
        // A file that says it is UTF-8 is taken at its word.
        assert_eq!(check(b"\xef\xbb\xbfname;age\nJos\xe9;4\n"), None);
    }

    #[test]
    fn a_character_across_the_chunk_boundary_is_utf8() {
        let mut bytes = b"a;b\n".to_vec();
        bytes.resize((1 << 20) - 1, b'x');
        bytes.extend_from_slice("é;1\n".as_bytes());
        assert_eq!(check(&bytes), None);
        // A cut character at the very end is not.
        assert!(check(b"a;b\nx;\xc3").is_some());
    }
}
