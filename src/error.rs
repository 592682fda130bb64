//! One error type for the whole crate.
//!
//! Every user-facing failure names *where* it happened: the file, and when known the line and the
//! field or XML element. `main` prints the error's `Display` as one line and exits non-zero; no
//! stack traces reach the user. Library code returns `Result<T>`; only `main` decides exit codes.

use std::path::{Path, PathBuf};

/// Crate-wide result.
pub type Result<T> = std::result::Result<T, Error>;

/// Everything that can go wrong in a run.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad flag or flag value on the command line.
    #[error("{0}")]
    Usage(String),
    /// A problem located in a file: `file:line: field: message` (line and field optional).
    #[error("{}", located(.file, *.line, .field.as_deref(), .message))]
    Input {
        file: PathBuf,
        line: Option<u64>,
        field: Option<String>,
        message: String,
    },
    /// A configuration that parses but cannot be run (e.g. too few rows for k).
    #[error("{0}")]
    Invalid(String),
    /// An input without records: a data error (exit 1) wherever it is found, even while the
    /// job is built (an empty input that the config says has a header line).
    #[error(
        "{}: the input has no records to anonymize (it is empty, or a header only, or every \
         row was skipped)",
        .0.display()
    )]
    NoRecords(PathBuf),
    /// Text that is not in the encoding it should be in: a file anonbox does not read (UTF-16),
    /// bytes not valid in the input's declared encoding, or a value the release's encoding
    /// cannot hold. A data error (exit 1) wherever it is found, even while the job is built.
    #[error("{}", located(.file, *.line, .field.as_deref(), .message))]
    Encoding {
        file: PathBuf,
        line: Option<u64>,
        field: Option<String>,
        message: String,
    },
    /// A line (or a record over several lines) longer than the reader's limit
    /// ([`crate::io::Format::max_line`]): not delimited text, or the limit is too low. A data
    /// error (exit 1) wherever it is found, even while the job is built (the header line).
    #[error("{}", located(.file, Some(*.line), None, .message))]
    LineTooLong {
        file: PathBuf,
        line: u64,
        message: String,
    },
    /// A file that is not what its format says: a corrupt Parquet or Arrow file. A data
    /// error (exit 1) wherever it is found, even while the job is built (a schema read from a
    /// damaged footer).
    #[error("{}: {message}", .file.display())]
    Corrupt { file: PathBuf, message: String },
    /// An I/O failure on a named file (`-` is standard output, so named).
    #[error("{}: {source}", io_name(.path))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A failure of the SQLite store.
    #[error("database {}: {source}", .path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

/// A message that knows its line (and field) but not its file: the payload of an I/O error
/// raised below a reader or writer that only the caller can name ([`Error::io`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub line: Option<u64>,
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Located {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(l) = self.line {
            write!(f, "line {l}: ")?;
        }
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Located {}

fn located(file: &Path, line: Option<u64>, field: Option<&str>, message: &str) -> String {
    let mut s = file.display().to_string();
    if let Some(l) = line {
        s.push_str(&format!(":{l}"));
    }
    s.push_str(": ");
    if let Some(f) = field {
        s.push_str(f);
        s.push_str(": ");
    }
    s.push_str(message);
    s
}

/// How an I/O error names its file: `-` (a release to standard output) as such.
fn io_name(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard output (-output -)".to_string()
    } else {
        path.display().to_string()
    }
}

impl Error {
    /// An error in `file` with no line (e.g. an XML element or a whole file).
    pub fn in_file(file: impl Into<PathBuf>, message: impl Into<String>) -> Error {
        Error::Input {
            file: file.into(),
            line: None,
            field: None,
            message: message.into(),
        }
    }

    /// An error at `file:line`, optionally naming the field (column name or element).
    pub fn at(
        file: impl Into<PathBuf>,
        line: u64,
        field: Option<String>,
        message: impl Into<String>,
    ) -> Error {
        Error::Input {
            file: file.into(),
            line: Some(line),
            field,
            message: message.into(),
        }
    }

    /// Wraps an I/O error with the path it concerns. An error carrying a [`Located`] (from
    /// [`crate::io::encoding`]) becomes an [`Error::Encoding`] at its line and field.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
        if let Some(l) = source.get_ref().and_then(|e| e.downcast_ref::<Located>()) {
            return Error::Encoding {
                file: path.into(),
                line: l.line,
                field: l.field.clone(),
                message: l.message.clone(),
            };
        }
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// Wraps a SQLite error with the database path it concerns.
    pub fn sqlite(path: impl Into<PathBuf>, source: rusqlite::Error) -> Error {
        Error::Sqlite {
            path: path.into(),
            source,
        }
    }
}

/// Longest quoted value an error message shows whole; longer ones are cut, with their length.
pub const MAX_SHOWN: usize = 80;

/// An error message made fit for one line of a terminal: line breaks and other control
/// characters are escaped (`\n`, `\r`, `\t`, `\u{1b}`), and every quoted value (between `'`
/// quotes, how messages quote values from inputs, configs and hierarchy files) longer than
/// [`MAX_SHOWN`] characters is cut to its start and its length, so a 10 MB value never floods
/// the terminal. `main` prints every error through it.
pub fn one_line(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4096));
    let mut quoted = false;
    let mut shown = 0usize;
    let mut cut = 0usize;
    for c in message.chars() {
        if c == '\'' {
            if quoted && cut > 0 {
                out.push_str(&format!("... ({} characters)", shown + cut));
            }
            quoted = !quoted;
            shown = 0;
            cut = 0;
            out.push(c);
            continue;
        }
        if quoted {
            if shown >= MAX_SHOWN {
                cut += 1;
                continue;
            }
            shown += 1;
        }
        push_escaped(&mut out, c);
    }
    if quoted && cut > 0 {
        out.push_str(&format!("... ({} characters)", shown + cut));
    }
    out
}

/// Appends `c` as one line shows it: line breaks, tabs and other control characters escaped
/// (`\n`, `\r`, `\t`, `\u{1b}`), anything else as it is.
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
        c => out.push(c),
    }
}

/// A name from the data (a column name) as messages show it unquoted: control characters
/// escaped as in [`one_line`], and cut to [`MAX_SHOWN`] characters and its length.
pub fn shown(name: &str) -> String {
    let n = name.chars().count();
    let mut out = String::new();
    for c in name.chars().take(MAX_SHOWN) {
        push_escaped(&mut out, c);
    }
    if n > MAX_SHOWN {
        out.push_str(&format!("... ({n} characters)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_escapes_breaks_and_cuts_long_values() {
        assert_eq!(one_line("a\nb\r\tc"), "a\\nb\\r\\tc");
        let long = "x".repeat(10_000_000);
        let msg = one_line(&format!("f.csv:2: age: '{long}' is not a number"));
        assert!(msg.len() < 200, "{}", msg.len());
        assert!(msg.starts_with(&format!("f.csv:2: age: '{}", "x".repeat(80))));
        assert!(
            msg.ends_with("... (10000000 characters)' is not a number"),
            "{msg}"
        );
        assert_eq!(one_line("value 'ok' stays"), "value 'ok' stays");
        assert_eq!(shown("a\tb"), "a\\tb");
        assert_eq!(
            shown(&"n".repeat(300)),
            format!("{}... (300 characters)", "n".repeat(80))
        );
        // An unbalanced quote (an apostrophe) still cuts what follows it.
        assert!(one_line(&format!("it's {long}")).len() < 200);
    }
}
