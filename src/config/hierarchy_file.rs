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

use rustc_hash::FxHashMap;

use crate::hierarchy::Hierarchy;
use crate::{Error, Result};

/// Reads and validates the hierarchy file `path` for the attribute `name`.
pub fn load(path: &Path, name: &str) -> Result<Hierarchy> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::in_file(
                path,
                format!("hierarchy file of attribute '{name}' does not exist"),
            ))
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    parse(path, &bytes, name)
}

/// Parses the content of hierarchy file `path` (the path is used in messages only).
pub fn parse(path: &Path, content: &[u8], name: &str) -> Result<Hierarchy> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b';')
        .has_headers(false)
        .flexible(true)
        .from_reader(content);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut lines: Vec<u64> = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        match reader.read_record(&mut record) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let line = e.position().map_or(0, |p| p.line());
                let msg = match e.kind() {
                    csv::ErrorKind::Utf8 { .. } => "not valid UTF-8".to_string(),
                    _ => format!("unreadable hierarchy row: {e}"),
                };
                return Err(Error::at(path, line, None, msg));
            }
        }
        let line = record.position().map_or(0, |p| p.line());
        if record.len() == 1 && record[0].trim().is_empty() {
            continue; // blank line
        }
        rows.push(record.iter().map(str::to_string).collect());
        lines.push(line);
    }
    if rows.is_empty() {
        return Err(Error::in_file(path, "hierarchy file has no rows"));
    }

    let width = rows[0].len();
    for (row, &line) in rows.iter().zip(&lines) {
        if row.len() != width {
            return Err(Error::at(
                path,
                line,
                None,
                format!(
                    "{} columns, but line {} has {width}: every row needs one value per level",
                    row.len(),
                    lines[0]
                ),
            ));
        }
    }

    // A value on several lines: identical lines are accepted as ARX accepts them (each counts
    // in the Loss metric's domain, see `Hierarchy::repeats`); lines that disagree are refused
    // (ARX would silently let the last one win).
    let mut first_line: FxHashMap<&str, (usize, u64)> = FxHashMap::default();
    let mut keep = vec![true; rows.len()];
    let mut repeats: Vec<u32> = Vec::new();
    let mut kept_index = vec![0usize; rows.len()];
    for (i, (row, &line)) in rows.iter().zip(&lines).enumerate() {
        match first_line.get(row[0].as_str()) {
            Some(&(first, first_no)) if rows[first] == *row => {
                keep[i] = false;
                repeats[kept_index[first]] += 1;
                let _ = first_no;
            }
            Some(&(_, first_no)) => {
                return Err(Error::at(
                    path,
                    line,
                    None,
                    format!(
                        "duplicate original value '{}' (also on line {first_no}, with other \
                         generalizations)",
                        row[0]
                    ),
                ));
            }
            None => {
                first_line.insert(&row[0], (i, line));
                kept_index[i] = repeats.len();
                repeats.push(1);
            }
        }
    }

    // Monotonic: one parent per value and level (Hierarchy::check_monotonic's rule, with lines).
    for level in 1..width.saturating_sub(1) {
        let mut parent: FxHashMap<&str, (&str, u64)> = FxHashMap::default();
        for (row, &line) in rows.iter().zip(&lines) {
            let (value, up) = (row[level].as_str(), row[level + 1].as_str());
            let (seen, seen_line) = *parent.entry(value).or_insert((up, line));
            if seen != up {
                return Err(Error::at(
                    path,
                    line,
                    None,
                    format!(
                        "not monotonic: '{value}' at level {level} generalizes to '{up}' here \
                         but to '{seen}' on line {seen_line}"
                    ),
                ));
            }
        }
    }

    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .zip(&keep)
        .filter_map(|(row, &k)| k.then_some(row))
        .collect();
    let hierarchy = Hierarchy::from_label_rows(name, &rows).with_repeats(repeats);
    debug_assert!(hierarchy.check_monotonic().is_ok());
    Ok(hierarchy)
}

/// Writes `rows` (`value;level1;...`) as an ARX hierarchy file at `path`: `;`-separated,
/// quoted where a field would not read back ([`crate::io::needs_quotes`]). The file is staged
/// ([`crate::io::AtomicFile`]): it appears only when the caller publishes. Returns the rows
/// written.
pub fn write<R: AsRef<[String]>>(path: &Path, rows: impl IntoIterator<Item = R>) -> Result<u64> {
    use std::io::Write;
    let file = crate::io::AtomicFile::create(path)?;
    let mut w = crate::io::Format::new(";", false)?.writer(file);
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

    fn parse_str(text: &str) -> Result<Hierarchy> {
        parse(Path::new("h.csv"), text.as_bytes(), "age")
    }

    #[test]
    fn reads_rows_as_levels() {
        let h = parse_str("34;<50;*\r\n45;<50;*\r\n\r\n66;>=50;*\r\n").unwrap();
        assert_eq!(h.name, "age");
        assert_eq!(h.levels(), 3);
        assert_eq!(h.leaves(), 3);
        assert_eq!(h.labels(0), ["34", "45", "66"]);
        assert_eq!(h.labels(1), ["<50", ">=50"]);
        assert_eq!(h.label(1, h.get(2, 1)), ">=50");
        assert_eq!(h.width(2), 1);
    }

    #[test]
    fn single_column_is_one_level_and_quotes_work() {
        let h = parse_str("a\nb\n").unwrap();
        assert_eq!(h.levels(), 1);
        let h = parse_str("\"x;y\";*\nz;*\n").unwrap();
        assert_eq!(h.labels(0), ["x;y", "z"]);
    }

    #[test]
    fn reads_the_adult_files() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/adult");
        let h = load(&dir.join("adult_hierarchy_age.csv"), "age").unwrap();
        assert_eq!(h.levels(), 5);
        let h = load(&dir.join("adult_hierarchy_sex.csv"), "sex").unwrap();
        assert_eq!(h.levels(), 2);
        assert_eq!(h.width(1), 1);
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
        let e = load(Path::new("/nonexistent/h.csv"), "age")
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
