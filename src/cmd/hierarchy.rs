//! `anonbox hierarchy KIND`: an ARX hierarchy file for one column of a delimited file.
//!
//! Two stages, so that `main` can tell the exit codes apart ([`crate::cmd::Stage`]): [`prepare`]
//! parses the flags, checks the builder's description
//! ([`crate::hierarchy::build::Builder::from_params`]), the input and the output path, and reads
//! the header; any error there is a flag error (exit 2), and nothing was written.
//! [`HierarchyJob::run`] streams the rows, keeps each distinct value of the column once
//! ([`Distinct`]), checks it where it first appears (a data error names the file, line and
//! column: exit 1), builds the rows and writes the file through the command's [`Publication`],
//! published only when complete. A new hierarchy file is
//! owner-only (0600) unless `--mode` says otherwise: it lists every distinct value of the
//! column, raw.

use std::path::{Path, PathBuf};

use clap::Parser;

use crate::hierarchy::build::distinct::Distinct;
use crate::hierarchy::build::{Builder, Params};
use crate::io::{trim, Cleanup, Format, Publication};
use crate::{Error, Result};

/// The flags of `anonbox hierarchy`.
#[derive(Debug, Parser)]
#[command(
    name = "anonbox hierarchy",
    about = "Write an ARX hierarchy file (value;level1;...;*) for one column of a delimited file",
    long_about = "Write an ARX hierarchy file (value;level1;...;*, one line per distinct value) \
                  for one column of a delimited file, built by one of the builders:\n\n  \
                  intervals   numbers: --widths 5,10,20 [--start 0] or --quantiles 10,4,2\n  \
                  mask        codes: characters replaced by * from the right (--from left)\n  \
                  dates       --format %Y-%m-%d --levels month,year,decade\n  \
                  categories  --map FILE (value;group), --frequency N, or value -> *\n\n\
                  Numbers and dates with missing values (empty, NA, NULL, 999): --missing keep \
                  [--missing-values NA,NULL,999] keeps each apart up to *.\n\n\
                  Exit status: 0 written, 1 a data or I/O error (nothing written), 2 bad flags.",
    disable_version_flag = true
)]
pub struct HierarchyArgs {
    /// Builder: intervals, mask, dates or categories
    #[arg(value_name = "KIND")]
    pub kind: String,
    /// The delimited input file
    #[arg(long, value_name = "FILE")]
    pub input: PathBuf,
    /// The column: a header name (with --header) or a 0-based index
    #[arg(long, value_name = "NAME|INDEX")]
    pub column: String,
    /// Field separator (one character, \t, or a string such as ", ")
    #[arg(long, value_name = "SEP", default_value = ",")]
    pub separator: String,
    /// The first line is a header
    #[arg(long)]
    pub header: bool,
    /// Text encoding of the input and of the hierarchy written: a WHATWG label such as
    /// windows-1252 (latin1), iso-8859-15, shift_jis [default: utf-8]
    #[arg(long, value_name = "LABEL", value_parser = crate::io::encoding::for_label)]
    pub encoding: Option<&'static crate::io::encoding::Encoding>,
    /// Longest line (or quoted record) of the input, in bytes or with K, M, G (KiB, MiB,
    /// GiB); a longer one is an error [default: 64M]
    #[arg(long, value_name = "SIZE", value_parser = crate::io::source::parse_size)]
    pub max_line_length: Option<usize>,
    /// The hierarchy file to write (an existing one only with --force)
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
    /// Replace an existing --output file (a hierarchy built or edited by hand is not replaced
    /// without it, as anonbox init does not)
    #[arg(long)]
    pub force: bool,
    /// Permission bits (octal) of the file written, new or replaced [default: 600 for a new
    /// file; a replaced file of the user's keeps its own]
    #[arg(long, value_name = "OCTAL", value_parser = crate::io::parse_file_mode)]
    pub mode: Option<u32>,
    /// intervals: nested widths, each a multiple of the one before
    #[arg(long, value_name = "W1,W2,...", help_heading = "intervals")]
    pub widths: Option<String>,
    /// intervals: equal-frequency bins per level, then groups of adjacent bins
    #[arg(long, value_name = "N1,N2,...", help_heading = "intervals")]
    pub quantiles: Option<String>,
    /// intervals: where the intervals start [default: 0]
    #[arg(
        long,
        value_name = "NUM",
        allow_hyphen_values = true,
        help_heading = "intervals"
    )]
    pub start: Option<String>,
    /// intervals: where they end (exclusive) [default: no end]
    #[arg(
        long,
        value_name = "NUM",
        allow_hyphen_values = true,
        help_heading = "intervals"
    )]
    pub end: Option<String>,
    /// intervals: code values below --start as <start instead of failing
    #[arg(long, help_heading = "intervals")]
    pub bottom: bool,
    /// intervals: code values from --end on as >=end instead of failing
    #[arg(long, help_heading = "intervals")]
    pub top: bool,
    /// intervals: label style, arx ([20, 25[) or toolbox ([20:25)) [default: arx]
    #[arg(long, value_name = "STYLE", help_heading = "intervals")]
    pub labels: Option<String>,
    /// intervals: values written with a decimal comma (72,5): comma [default: point]
    #[arg(long, value_name = "point|comma", help_heading = "intervals")]
    pub decimal: Option<String>,
    /// intervals and dates: missing values (empty, and those of --missing-values): error, or
    /// keep each apart up to * [default: error]
    #[arg(long, value_name = "error|keep", help_heading = "intervals")]
    pub missing: Option<String>,
    /// intervals and dates: values that mean missing besides the empty one, e.g. NA,NULL or a
    /// sentinel such as 999 (needs --missing keep)
    #[arg(
        long,
        value_name = "V1,V2,...",
        allow_hyphen_values = true,
        help_heading = "intervals"
    )]
    pub missing_values: Option<String>,
    /// mask: the side characters are hidden from, left or right [default: right]
    #[arg(long, value_name = "SIDE", help_heading = "mask")]
    pub from: Option<String>,
    /// mask: characters hidden per level [default: 1]
    #[arg(long, value_name = "N", help_heading = "mask")]
    pub step: Option<String>,
    /// mask: pad shorter values with this character first
    #[arg(long, value_name = "CHAR", help_heading = "mask")]
    pub pad: Option<String>,
    /// mask: the length to pad to [default: the longest value]
    #[arg(long, value_name = "N", help_heading = "mask")]
    pub length: Option<String>,
    /// dates: strftime-style format of the values, e.g. %Y-%m-%d
    #[arg(long, value_name = "FORMAT", help_heading = "dates")]
    pub format: Option<String>,
    /// dates: increasing subset of day,week,month,quarter,year,decade [default:
    /// month,year,decade]; mask: at most this many levels, the finest [default: until every
    /// character is hidden]
    #[arg(long, value_name = "LEVELS", help_heading = "dates")]
    pub levels: Option<String>,
    /// categories: mapping file, value;group[;group...] per line
    #[arg(long, value_name = "FILE", help_heading = "categories")]
    pub map: Option<String>,
    /// categories: values held by fewer than N records become Other
    #[arg(long, value_name = "N", help_heading = "categories")]
    pub frequency: Option<String>,
    /// categories: the label of the rare values [default: Other]
    #[arg(long, value_name = "LABEL", help_heading = "categories")]
    pub other: Option<String>,
}

impl HierarchyArgs {
    /// The builder options given, as [`Params`] (paths relative to the working directory).
    fn params(&self) -> Params {
        let mut p = Params::new(".");
        let options = [
            ("widths", &self.widths),
            ("quantiles", &self.quantiles),
            ("start", &self.start),
            ("end", &self.end),
            ("labels", &self.labels),
            ("decimal", &self.decimal),
            ("missing", &self.missing),
            ("missing-values", &self.missing_values),
            ("from", &self.from),
            ("step", &self.step),
            ("pad", &self.pad),
            ("length", &self.length),
            ("format", &self.format),
            ("levels", &self.levels),
            ("map", &self.map),
            ("frequency", &self.frequency),
            ("other", &self.other),
        ];
        for (name, value) in options {
            if let Some(v) = value {
                p.push(name, v.clone());
            }
        }
        for (name, on) in [("bottom", self.bottom), ("top", self.top)] {
            if on {
                p.push(name, "true");
            }
        }
        p
    }
}

/// What `anonbox hierarchy` asks for.
pub enum Request {
    /// `--help`: the text to print.
    Help(String),
    /// The checked command.
    Build(Box<HierarchyJob>),
}

/// The validated job of `anonbox hierarchy`: the builder, the input's column and the output,
/// checked and ready to read the data.
pub struct HierarchyJob {
    builder: Builder,
    format: Format,
    input: PathBuf,
    column: usize,
    name: String,
    output: PathBuf,
    /// The files read, never replaced ([`Publication::never_replace`]).
    reads: Vec<(&'static str, PathBuf)>,
    /// `--mode`.
    mode: Option<u32>,
}

/// Parses and checks the arguments after `hierarchy`: the setup stage ([`crate::cmd::Stage`]),
/// whose errors are flag errors (exit 2) but for a header the input's encoding cannot read (a
/// data error, exit 1).
pub fn prepare(args: &[String]) -> Result<Request> {
    let a = match crate::cli::parse_subcommand::<HierarchyArgs>("hierarchy", args)? {
        Some(a) => a,
        None => {
            return Ok(Request::Help(
                <HierarchyArgs as clap::CommandFactory>::command()
                    .render_long_help()
                    .to_string(),
            ))
        }
    };
    let usage = |m: String| Error::Usage(format!("hierarchy {}: {m}", a.kind));
    let builder = Builder::from_params(&a.kind, &a.params()).map_err(|m| {
        // Parameters are flags here: name them as flags.
        let m = m.replace("takes no parameter '", "takes no flag '--");
        let m = match m.split_once(':') {
            Some((name, _)) if crate::hierarchy::build::is_param(name) => format!("--{m}"),
            _ => m,
        };
        usage(m)
    })?;
    let separator = crate::io::separator_arg(&a.separator);
    let format = Format::new(&separator, a.header)
        .map_err(|e| usage(e.to_string()))?
        .encoded(a.encoding.unwrap_or(encoding_rs::UTF_8))
        .max_line(
            a.max_line_length
                .unwrap_or(crate::io::source::DEFAULT_MAX_LINE),
        );
    if !a.input.is_file() {
        return Err(usage(format!(
            "--input: {} does not exist or is not a file",
            a.input.display()
        )));
    }
    let mut reads = vec![("input file", a.input.clone())];
    reads.extend(builder.reads().map(|m| ("mapping file", m.to_path_buf())));
    crate::paths::check(&reads, &[("hierarchy file", a.output.clone())])
        .map_err(|e| usage(format!("--output: {e}")))?;
    if !a.force && std::fs::symlink_metadata(&a.output).is_ok() {
        return Err(usage(format!(
            "--output: {} exists (a hierarchy you may have built or edited): give --force to \
             replace it, or another --output",
            a.output.display()
        )));
    }
    // The column: from the header, else the first row's width.
    let mut reader = format.open(&a.input)?;
    let header: Option<Vec<String>> = reader.header().map(|h| {
        h.iter()
            .map(|f| String::from_utf8_lossy(trim(f)).into_owned())
            .collect()
    });
    let width = match &header {
        Some(h) => h.len(),
        None => {
            let mut rec = csv::ByteRecord::new();
            if reader.next_row(&mut rec)? {
                rec.len()
            } else {
                0
            }
        }
    };
    let column = crate::io::column_index(&a.column, header.as_deref(), width, &a.input)
        .map_err(|m| usage(format!("--column: {m}")))?;
    let name = header.map_or(format!("att{column}"), |h| h[column].clone());
    Ok(Request::Build(Box::new(HierarchyJob {
        builder,
        format,
        input: a.input,
        column,
        name,
        output: a.output,
        reads,
        mode: a.mode,
    })))
}

impl HierarchyJob {
    /// Reads the column, builds the hierarchy and writes it (the work stage: errors are data or
    /// I/O errors, exit 1).
    /// Returns a one-line summary of what was written. No signal's cleanup watches it: see
    /// [`HierarchyJob::run_with`].
    pub fn run(&self) -> Result<String> {
        self.run_with(&Cleanup::default())
    }

    /// [`HierarchyJob::run`], listing what a signal must remove in `cleanup`.
    pub fn run_with(&self, cleanup: &Cleanup) -> Result<String> {
        let publication = Publication::new(cleanup).file_mode(self.mode);
        publication.never_replace(&self.reads);
        let distinct = self.values()?;
        let mut values: Vec<(&str, u64)> = distinct.values().collect();
        self.builder.sort(&mut values);
        let mut width = 0;
        let rows = self.builder.rows(&values).inspect(|r| width = r.len());
        let written = crate::hierarchy::file::write(
            &publication,
            &self.output,
            rows,
            self.format.encoding(),
        )?;
        publication.publish()?;
        Ok(format!(
            "wrote {}: {written} distinct values of '{}', {width} columns ({})",
            self.output.display(),
            self.name,
            self.builder.describe()
        ))
    }

    /// The column's distinct values, each checked by the builder (an empty column is an error).
    fn values(&self) -> Result<Distinct> {
        let values = column_values(
            &self.format,
            &self.input,
            self.column,
            &self.name,
            &self.builder,
        )?;
        if values.is_empty() {
            return Err(Error::in_file(
                &self.input,
                format!("column '{}' has no values (no data rows)", self.name),
            ));
        }
        Ok(values)
    }
}

/// The distinct values of column `column` (named `name` in messages) of `input`, with their
/// counts, each checked by `builder` at the line where it first appears. Rows are read as the
/// anonymizer reads them (rows containing `?` skipped, fields trimmed).
pub fn column_values(
    format: &Format,
    input: &Path,
    column: usize,
    name: &str,
    builder: &Builder,
) -> Result<Distinct> {
    let mut reader = format.open(input)?;
    let mut rec = csv::ByteRecord::new();
    let mut distinct = Distinct::new();
    while reader.next_row(&mut rec)? {
        let line = reader.line();
        let field = rec.get(column).ok_or_else(|| {
            Error::at(
                input,
                line,
                None,
                format!("the row has {} fields, no column {column}", rec.len()),
            )
        })?;
        let at = |m: String| Error::at(input, line, Some(name.to_string()), m);
        if let Some(value) = distinct.add(trim(field)).map_err(at)? {
            builder.check(value).map_err(at)?;
        }
    }
    Ok(distinct)
}
