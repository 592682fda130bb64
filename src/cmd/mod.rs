//! The subcommands, one module each: [`run`] (anonymize, the default), [`plan`], [`init`],
//! [`hierarchy`] and [`audit`].
//!
//! A command runs in two stages. The setup stage checks everything that can be checked before
//! the data is read: the flags, the config, the destinations, the input's header (for a run and
//! a plan, [`crate::config::build_job`] builds the [`crate::job::Job`]; `init` and `hierarchy`
//! build their own validated job, [`init::InitJob`] and [`hierarchy::HierarchyJob`]). The work
//! stage reads the data and writes. `main` watches for signals in between, once there is
//! something to clean up, and then hands each command's typed result to the user: nothing for
//! a run, a plan or an init (they print as they go), the line `hierarchy` says of what it
//! wrote, the [`audit::Verdict`] of an audit.
//!
//! Exit statuses are chosen in one place, from the stage an error stopped
//! ([`Stage::exit_code`]). A new command gets a module here, a variant of
//! [`crate::cli::Command`] and its arm in `main`'s dispatch.

pub mod audit;
mod cells;
pub mod hierarchy;
pub mod init;
mod microaggregate;
mod partition;
pub mod plan;
mod ran;
mod recode;
pub mod run;

use crate::Error;

/// Where a command stopped on an error, which decides the exit status ([`Stage::exit_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Before the data is read: the command line, the config, hierarchy files, destinations,
    /// the input's header.
    Setup,
    /// Reading the data and writing the results.
    Work,
    /// Anywhere in `anonbox audit`, whose exit status 1 says that a threshold fails.
    Audit,
}

impl Stage {
    /// The exit status of `e`, found at this stage: 2 for a flag or config error (nothing was
    /// read or written), 1 for a failed run.
    /// - Setup: 2, but a data error is 1 wherever it is found (an input without records, text
    ///   not in its encoding, a line too long, a corrupt Parquet file: [`Error::NoRecords`],
    ///   [`Error::Encoding`], [`Error::LineTooLong`], [`Error::Corrupt`]).
    /// - Work: 1, but a flag or config error the work found ([`Error::Usage`]: a destination
    ///   refused once its name is known, a method's limits) is 2.
    /// - Audit: 2 for every error (bad input), as 1 is a failed threshold.
    pub fn exit_code(self, e: &Error) -> u8 {
        let data = matches!(
            e,
            Error::NoRecords(_)
                | Error::Encoding { .. }
                | Error::LineTooLong { .. }
                | Error::Corrupt { .. }
        );
        match self {
            Stage::Setup if data => 1,
            Stage::Setup => 2,
            Stage::Work if matches!(e, Error::Usage(_)) => 2,
            Stage::Work => 1,
            Stage::Audit => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes() {
        let usage = Error::Usage("-k: 'x' is not an integer".into());
        let input = Error::in_file("c.xml", "no <qid>");
        let io = Error::io("in.csv", std::io::ErrorKind::NotFound.into());
        let no_records = Error::NoRecords("in.csv".into());
        let encoding = Error::Encoding {
            file: "in.csv".into(),
            line: Some(2),
            field: None,
            message: "not valid UTF-8".into(),
        };
        let long = Error::LineTooLong {
            file: "in.csv".into(),
            line: 1,
            message: "too long".into(),
        };
        let codes = |stage: Stage| {
            [&usage, &input, &io, &no_records, &encoding, &long].map(|e| stage.exit_code(e))
        };
        assert_eq!(codes(Stage::Setup), [2, 2, 2, 1, 1, 1]);
        assert_eq!(codes(Stage::Work), [2, 1, 1, 1, 1, 1]);
        assert_eq!(codes(Stage::Audit), [2; 6]);
    }
}
