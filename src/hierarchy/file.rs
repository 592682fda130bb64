//! ARX hierarchy files: one row per original value, `value;level1;level2;...`.
//!
//! `;`-separated, no header, CSV quoting allowed (`"a;b";*`). Column `i` is level `i`, so a file
//! with `c` columns gives `c` levels; the rows, in file order, are the attribute's domain (see
//! `../shared/ARX-SEMANTICS.md`). Line ends may be LF or CRLF; blank lines are skipped.
//!
//! The file is validated here, with errors naming the file and line: every row has the same
//! number of columns, no original value appears twice, and the hierarchy is monotonic (a value
//! at level `i` generalizes to one value at level `i + 1`, wherever it appears). A value that is
//! in the data but not in the file can only be found while loading the data; [`missing_value`]
//! builds that error so that every loader words it the same way.

use std::path::Path;

use crate::hierarchy::{Hierarchy, LabelRows};
use crate::io::encoding::Encoding;
use crate::{Error, Result};

/// Reads and validates the hierarchy file `path` for the attribute `name`, in the data's text
/// `encoding` (it lists the data's values; see [`crate::io::encoding`]).
/// A line longer than `max_line` bytes is an error naming it (see [`crate::io::source`]); a
/// path that is not a regular file is refused.
pub fn load(
    path: &Path,
    name: &str,
    encoding: &'static Encoding,
    max_line: usize,
) -> Result<Hierarchy> {
    let file = match crate::io::source::open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::in_file(
                path,
                format!("hierarchy file of attribute '{name}' does not exist"),
            ))
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    let source = crate::io::encoding::decoded(file, encoding);
    parse(
        path,
        crate::io::source::LineLimit::new(
            std::io::BufReader::with_capacity(1 << 16, source),
            max_line,
        ),
        name,
    )
}

/// Parses the content of hierarchy file `path` (the path is used in messages only) row by row,
/// straight into the hierarchy's ids ([`LabelRows`]): no row is kept as strings, so memory
/// grows with the distinct labels (a file of two million timestamps took 860 MB read as rows
/// first). Each row is checked as it comes, and the first
/// offending line is reported: a width other than the first row's, an original value seen
/// before with other generalizations (identical lines are counted, see `Hierarchy::repeats`;
/// ARX would silently let the last one win), a label whose generalization one level up
/// differs from the one it had before (not monotonic).
pub fn parse<R: std::io::Read>(path: &Path, source: R, name: &str) -> Result<Hierarchy> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .flexible(true)
        .from_reader(source);
    let mut record = csv::StringRecord::new();
    // Set by the first row: its width and line, and the hierarchy so far.
    let mut first: Option<(usize, u64, LabelRows)> = None;
    // Per leaf: its first line and how many lines it has.
    let mut leaf_line: Vec<u64> = Vec::new();
    let mut repeats: Vec<u32> = Vec::new();
    // Per level 1.. and id at that level: the id one level up, and the line where it was set.
    let mut parent: Vec<Vec<(u32, u64)>> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                let msg = match e.kind() {
                    csv::ErrorKind::Utf8 { .. } => {
                        format!("not valid UTF-8 {}", crate::io::NOT_UTF8_HINT)
                    }
                    csv::ErrorKind::Io(_) => match e.into_kind() {
                        csv::ErrorKind::Io(io) => {
                            return Err(match crate::io::source::line_too_long(&io) {
                                Some((line, message)) => Error::at(path, line, None, message),
                                None => Error::io(path, io),
                            })
                        }
                        _ => unreachable!("an I/O error"),
                    },
                    _ => format!("unreadable hierarchy row: {e}"),
                };
                return Err(Error::at(path, line, None, msg));
            }
        }
        let line = record.position().map_or(0, |p| p.line());
        if record.len() == 1 && record[0].trim().is_empty() {
            continue; // blank line
        }
        let (width, first_line, rows) =
            first.get_or_insert_with(|| (record.len(), line, LabelRows::new(record.len())));
        let width = *width;
        if record.len() != width {
            return Err(Error::at(
                path,
                line,
                None,
                format!(
                    "{} columns, but line {first_line} has {width}: every row needs one value \
                     per level",
                    record.len(),
                ),
            ));
        }
        let known = rows.width(0);
        rows.intern(record.iter(), &mut ids);
        let leaf = ids[0] as usize;
        if leaf < known {
            if rows.row(leaf) == ids.as_slice() {
                repeats[leaf] += 1;
                continue;
            }
            return Err(Error::at(
                path,
                line,
                None,
                format!(
                    "duplicate original value '{}' (also on line {}, with other \
                     generalizations)",
                    &record[0], leaf_line[leaf]
                ),
            ));
        }
        // Monotonic: one parent per label and level (Hierarchy::check_monotonic's rule).
        parent.resize_with(width.saturating_sub(1), Vec::new);
        for level in 1..width.saturating_sub(1) {
            let (id, up) = (ids[level] as usize, ids[level + 1]);
            let seen = &mut parent[level];
            if seen.len() <= id {
                seen.resize(id + 1, (u32::MAX, 0));
            }
            match seen[id] {
                (u32::MAX, _) => seen[id] = (up, line),
                (p, _) if p == up => {}
                (p, seen_line) => {
                    return Err(Error::at(
                        path,
                        line,
                        None,
                        format!(
                            "not monotonic: '{}' at level {level} generalizes to '{}' here \
                             but to '{}' on line {seen_line}",
                            &record[level],
                            &record[level + 1],
                            rows.label(level + 1, p)
                        ),
                    ));
                }
            }
        }
        rows.push(&ids);
        leaf_line.push(line);
        repeats.push(1);
    }
    let Some((_, _, rows)) = first else {
        return Err(Error::in_file(path, "hierarchy file has no rows"));
    };
    let hierarchy = rows.finish(name).with_repeats(repeats);
    debug_assert!(hierarchy.check_monotonic().is_ok());
    Ok(hierarchy)
}

/// Writes `rows` (`value;level1;...`) as an ARX hierarchy file at `path`: `;`-separated,
/// quoted where a field would not read back ([`crate::io::needs_quotes`]). The file is staged
/// in `publication`: it appears only when the caller publishes. A new file is
/// owner-only (0600), as every file anonbox writes: it lists every distinct value of the column,
/// raw. Written in the data's text `encoding`, as it is read ([`load`]). Returns the
/// rows written.
pub fn write<R: AsRef<[String]>>(
    publication: &crate::io::Publication,
    path: &Path,
    rows: impl IntoIterator<Item = R>,
    encoding: &'static Encoding,
) -> Result<u64> {
    use std::io::Write;
    let file = publication.create(path)?;
    let mut w = crate::io::Format::new(";", false)?
        .encoded(encoding)
        .writer(file);
    let mut written = 0;
    for row in rows {
        w.record(row.as_ref().iter().map(|f| f.as_bytes()))
            .map_err(|e| Error::io(path, e))?;
        written += 1;
    }
    let mut file = w.into_inner();
    file.flush().map_err(|e| Error::io(path, e))?;
    file.commit()?;
    Ok(written)
}

/// The error for a value of the data that the hierarchy file does not list: it names the data
/// file, line and column, the value, and the hierarchy file.
pub fn missing_value(
    hierarchy_path: &Path,
    data_path: &Path,
    line: u64,
    column: &str,
    value: &str,
) -> Error {
    Error::at(
        data_path,
        line,
        Some(column.to_string()),
        format!(
            "value '{value}' is not in the hierarchy file {}",
            hierarchy_path.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::source::DEFAULT_MAX_LINE;

    fn parse_str(text: &str) -> Result<Hierarchy> {
        parse(Path::new("h.csv"), text.as_bytes(), "age")
    }

    #[test]
    fn reads_rows_as_levels() {
        let h = parse_str("34;<50;*\r\n45;<50;*\r\n\r\n66;>=50;*\r\n").unwrap();
        assert_eq!(h.name, "age");
        assert_eq!(h.levels(), 3);
        assert_eq!(h.leaves(), 3);
        assert_eq!(h.labels(0).to_vec(), ["34", "45", "66"]);
        assert_eq!(h.labels(1).to_vec(), ["<50", ">=50"]);
        assert_eq!(h.label(1, h.get(2, 1)), ">=50");
        assert_eq!(h.width(2), 1);
    }

    #[test]
    fn single_column_is_one_level_and_quotes_work() {
        let h = parse_str("a\nb\n").unwrap();
        assert_eq!(h.levels(), 1);
        let h = parse_str("\"x;y\";*\nz;*\n").unwrap();
        assert_eq!(h.labels(0).to_vec(), ["x;y", "z"]);
    }

    #[test]
    fn reads_the_adult_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adult");
        let h = load(
            &dir.join("adult_hierarchy_age.csv"),
            "age",
            encoding_rs::UTF_8,
            DEFAULT_MAX_LINE,
        )
        .unwrap();
        assert_eq!(h.levels(), 5);
        let h = load(
            &dir.join("adult_hierarchy_sex.csv"),
            "sex",
            encoding_rs::UTF_8,
            DEFAULT_MAX_LINE,
        )
        .unwrap();
        assert_eq!(h.levels(), 2);
        assert_eq!(h.width(1), 1);
    }

    /// A hierarchy in the data's encoding is written and read back in it; a label it cannot
    /// hold is an error naming the file, line and value.
    #[test]
    fn written_and_read_in_the_data_encoding() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.csv");
        let latin1 = encoding_rs::WINDOWS_1252;
        let rows = [["José", "J*", "*"], ["Zoë", "Z*", "*"]].map(|r| r.map(String::from));
        let publication = crate::io::Publication::default();
        write(&publication, &path, &rows, latin1).unwrap();
        publication.publish().unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            b"Jos\xe9;J*;*\nZo\xeb;Z*;*\n"
        );
        let h = load(&path, "name", latin1, DEFAULT_MAX_LINE).unwrap();
        assert_eq!(h.labels(0).to_vec(), ["José", "Zoë"]);
        let e = load(&path, "name", encoding_rs::UTF_8, DEFAULT_MAX_LINE)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not valid UTF-8 (if the file is Latin-1"), "{e}");
        let publication = crate::io::Publication::default();
        let e = write(
            &publication,
            &dir.path().join("g.csv"),
            [["a", "≤30"].map(String::from)],
            latin1,
        )
        .unwrap_err()
        .to_string();
        drop(publication);
        assert!(e.contains("g.csv:1: field 2: value '≤30' cannot be written in windows-1252"));
        assert!(!dir.path().join("g.csv").exists());
    }

    #[test]
    fn rejects_unequal_rows() {
        let e = parse_str("a;x;*\nb;x\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "h.csv:2: 2 columns, but line 1 has 3: every row needs one value per level"
        );
    }

    #[test]
    fn rejects_disagreeing_duplicates_and_counts_identical_ones() {
        let e = parse_str("a;x;*\nb;x;*\na;y;*\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "h.csv:3: duplicate original value 'a' (also on line 1, with other generalizations)"
        );
        let h = parse_str("a;x;*\nb;x;*\na;x;*\na;x;*\n").unwrap();
        assert_eq!(h.leaves(), 2);
        assert_eq!((h.repeats(0), h.repeats(1), h.lines()), (3, 1, 4));
    }

    #[test]
    fn rejects_non_monotonic() {
        let e = parse_str("a;g;1;*\nb;g;2;*\n").unwrap_err().to_string();
        assert_eq!(
            e,
            "h.csv:2: not monotonic: 'g' at level 1 generalizes to '2' here but to '1' on line 1"
        );
    }

    #[test]
    fn rejects_empty_and_missing_files() {
        assert_eq!(
            parse_str("\n\n").unwrap_err().to_string(),
            "h.csv: hierarchy file has no rows"
        );
        let e = load(
            Path::new("/nonexistent/h.csv"),
            "age",
            encoding_rs::UTF_8,
            DEFAULT_MAX_LINE,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            e,
            "/nonexistent/h.csv: hierarchy file of attribute 'age' does not exist"
        );
    }

    #[test]
    fn missing_value_message() {
        let e = missing_value(Path::new("h.csv"), Path::new("adult.csv"), 7, "age", "200");
        assert_eq!(
            e.to_string(),
            "adult.csv:7: age: value '200' is not in the hierarchy file h.csv"
        );
    }
}
