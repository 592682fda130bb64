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
    /// An I/O failure on a named file.
    #[error("{}: {source}", .path.display())]
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

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Error {
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
