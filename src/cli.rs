//! The command line: the toolbox's flags, GNU-style spellings, and subcommands.
//!
//! The toolbox takes `-name value` pairs, matches names case-insensitively and lets the first
//! occurrence win (`../shared/UTD-TOOLBOX.md` §3). anonbox accepts exactly that, plus GNU style
//! (`--method x`, `--method=x`), and new flags in both styles. Unlike the toolbox, an unknown
//! flag, a flag without its value, a bad number or an unknown method, format or metric is an
//! error that says what is accepted (§8).
//!
//! Parsing is three steps, in the ripgrep manner:
//! 1. [`normalize`]: toolbox spellings become canonical `--name=value` arguments (names looked up
//!    case-insensitively in clap's own argument list, so the two cannot drift apart; repeats are
//!    dropped so the first occurrence wins).
//! 2. clap parses them into [`RawArgs`]: raw strings, and the `--help` text.
//! 3. [`RunArgs::from_raw`] types and checks each value, naming the flag in errors.
//!
//! The merge with the XML config and all validation that needs the config or the input happen
//! in `config::build_job`. Subcommands: a first argument `audit`, `hierarchy` or `init` hands
//! the remaining arguments to that subcommand's parser ([`Command::Audit`], ...); `plan` takes a
//! run's flags ([`Command::Plan`]); anything else is a run.

use std::collections::HashSet;
use std::path::PathBuf;

use clap::{CommandFactory, Parser};

use crate::javafmt::parse_double;
use crate::job::{Method, MetricKind, OutputFormat};
use crate::{Error, Result};

const AFTER_HELP: &str = "\
Flag names are case-insensitive and may be written -name value (as the UT Dallas toolbox does),
--name value or --name=value. When a flag is repeated, the first occurrence wins. Flags override
the XML configuration; paths inside the configuration are relative to its folder.

Methods: Datafly, Mondrian, Incognito_K, Incognito_L, Incognito_T, Anatomy (the toolbox's),
Flash, OLA, BFS, Optimal (globally optimal lattice searches with -metric, <privacy> models and
-timeLimit; Optimal picks Flash for small lattices, BFS for large ones), MDAV (microaggregation:
numeric quasi-identifiers replaced by the means of groups of k to 2k-1 records).
Method Anatomy always writes the anatomy format (NAME_QIT.ext and NAME_ST.ext).

Subcommands:
  anonbox plan [FLAGS]               the resolved plan of a run with these flags (attributes,
                                     lattice, method and why, models, outputs): reads the config
                                     and the input's first rows only, writes nothing
                                     (anonbox plan --help)
  anonbox init DATA [--separator S] [--header] [--encoding LABEL] [--dir DIR]
                                     profile a file, propose roles, write DIR/config.xml and a
                                     hierarchy per quasi-identifier (anonbox init --help)
  anonbox hierarchy KIND --input FILE --column COL --output FILE ...
                                     write a hierarchy file: intervals, mask, dates, categories
                                     (anonbox hierarchy --help)
  anonbox audit FILE --qi COLS ...   print a file's privacy figures and risk, check thresholds
                                     (anonbox audit --help)
  anonbox help [plan|audit|hierarchy|init]  this help, or a subcommand's

Exit status: 0 success (also when the reader of stdout goes away), 1 the run failed (input data,
I/O, database), 2 bad flags or configuration (nothing was written), 129 / 130 / 143 interrupted
by SIGHUP / SIGINT / SIGTERM (temporary files removed, nothing was written).";

/// Raw flag values as clap parses them after [`normalize`]. `None` means "not given", so the XML
/// config's value (or the default) applies.
#[derive(Parser, Debug, Default, Clone, PartialEq)]
#[command(
    name = "anonbox",
    version,
    about = "Anonymize a delimited text file: UT Dallas Anonymization Toolbox configs and \
             methods, plus ARX-style optimal search.",
    after_help = AFTER_HELP,
    disable_help_subcommand = true
)]
pub struct RawArgs {
    /// UT Dallas XML configuration [default: config.xml]
    #[arg(long, value_name = "FILE")]
    pub config: Option<String>,
    /// Anonymization method (see below) [default: the config's, else Mondrian]
    #[arg(long, value_name = "NAME")]
    pub method: Option<String>,
    /// k of k-anonymity (Datafly, Mondrian, Incognito_K, Flash, OLA, MDAV) [default: 10]
    #[arg(long = "k", value_name = "INT")]
    pub k: Option<String>,
    /// l of l-diversity (Incognito_L, Anatomy) [default: 10]
    #[arg(long = "l", value_name = "NUM")]
    pub l: Option<String>,
    /// c of recursive (c,l)-diversity; c <= 0 selects entropy l-diversity [default: 0.2]
    #[arg(long = "c", value_name = "NUM")]
    pub c: Option<String>,
    /// t of t-closeness (Incognito_T), 0 < t <= 1 [default: 0.2]
    #[arg(long = "t", value_name = "NUM")]
    pub t: Option<String>,
    /// Suppress at most N tuples (Datafly, Incognito_K) [default: k]
    #[arg(long = "suppThreshold", value_name = "N")]
    pub supp_threshold: Option<String>,
    /// Suppress at most this fraction of the records, 0 <= F <= 1 (ARX style; not with
    /// -suppThreshold) [default: the config's, else the method's]
    #[arg(long, value_name = "FRACTION")]
    pub suppression: Option<String>,
    /// Lattice searches: what the records of failing classes lose: records (every
    /// quasi-identifier suppressed) or cells (the records kept, the fewest cells blanked)
    /// [default: the config's suppress, else records]
    #[arg(long, value_name = "records|cells")]
    pub suppress: Option<String>,
    /// Input file [default: the config's <input filename>]
    #[arg(long, value_name = "FILE")]
    pub input: Option<String>,
    /// Field separator, one or more characters [default: the config's, else ',']
    #[arg(long, value_name = "STRING")]
    pub separator: Option<String>,
    /// Text encoding of the input, its release and hierarchy files: a WHATWG label such as
    /// windows-1252 (latin1), iso-8859-15, shift_jis [default: the config's <input encoding>,
    /// else utf-8]
    #[arg(long, value_name = "LABEL")]
    pub encoding: Option<String>,
    /// Output file [default: the config's <output filename>]
    #[arg(long, value_name = "FILE")]
    pub output: Option<String>,
    /// genVals, genValsDist or anatomy; parquet or arrow: genVals as a columnar file
    /// [default: the config's, else the output's extension, else genVals]
    #[arg(long = "outputFormat", value_name = "NAME")]
    pub output_format: Option<String>,
    /// Utility metric of Flash/OLA: DMStar, DM, Height, Precision, Loss, Entropy, AECS
    /// [default: Loss]
    #[arg(long, value_name = "NAME")]
    pub metric: Option<String>,
    /// Lattice searches (Flash, OLA, BFS, Optimal): stop after SECONDS and release the best
    /// transformation found, with a lower bound of the optimum [default: run to the proof]
    #[arg(long = "timeLimit", value_name = "SECONDS")]
    pub time_limit: Option<String>,
    /// Threads of the lattice searches (1: single-threaded) [default: all cores]
    #[arg(long, value_name = "N")]
    pub threads: Option<String>,
    /// Engine that reads the records and writes the release: embedded, datafusion
    /// [default: the config's <engine>, else embedded]
    #[arg(long, value_name = "NAME")]
    pub engine: Option<String>,
    /// Memory of the datafusion engine's plans (such as 512M or 2G): past it they spill to a
    /// private temporary folder [default: the config's <engine memoryLimit>, else no limit]
    #[arg(long = "memoryLimit", value_name = "SIZE")]
    pub memory_limit: Option<String>,
    /// Keep the SQLite working database in FILE [default: a temporary file]
    #[arg(long, value_name = "FILE")]
    pub db: Option<String>,
    /// Write a report of the run to FILE: HTML if FILE ends in .html or .htm, else JSON
    /// [default: none]
    #[arg(long, value_name = "FILE")]
    pub report: Option<String>,
    /// Permission bits (octal) of the outputs and the report, new or replaced; a kept database
    /// is 600 in every case [default: 600 for a new file; a replaced file of the user's keeps
    /// its own]
    #[arg(long, value_name = "OCTAL")]
    pub mode: Option<String>,
    /// Prosecutor risk (1 / class size) above which a record counts as at risk in the report's
    /// risk figures, 0..1 [default: 0.2]
    #[arg(long = "riskThreshold", value_name = "RISK")]
    pub risk_threshold: Option<String>,
    /// Population the data are a sample of, for the report's journalist, marketer and
    /// population-uniqueness figures: a region (usa, uk, germany, france, canada, australia,
    /// brazil, china, india, eu, europe, africa, north-america, south-america) or a number of
    /// people [default: usa]
    #[arg(long, value_name = "REGION|N")]
    pub population: Option<String>,
    /// Seed of Anatomy's random choices [default: 3345, the toolbox's] and of differential
    /// privacy's sample and search [default: drawn from the system]
    #[arg(long, value_name = "N")]
    pub seed: Option<String>,
    /// Mondrian's cuts of numbers: strict (disjoint ranges) or relaxed (ranges may share the
    /// median) [default: strict]
    #[arg(long, value_name = "KIND")]
    pub partition: Option<String>,
    /// What Mondrian over hierarchies publishes for a categorical attribute: nodes (the lowest
    /// node of its hierarchy covering the class) or sets (the values the class holds, {a,b})
    /// [default: nodes]
    #[arg(long, value_name = "KIND")]
    pub labels: Option<String>,
    /// Longest line (or quoted record) of the input, hierarchy and subset files, in bytes or
    /// with K, M, G (KiB, MiB, GiB); a longer one is an error [default: 64M]
    #[arg(long = "maxLineLength", value_name = "SIZE")]
    pub max_line_length: Option<String>,
    /// Lattice searches (Flash, OLA, BFS, Optimal): release the records the optimum suppresses
    /// at transformations of their own, found by searching them again among themselves (ARX's
    /// local recoding) [default: the config's <privacy local-recoding>, else off]
    #[arg(long = "localRecoding")]
    pub local_recoding: bool,
    /// No progress bars, no summary, no warnings: errors only
    #[arg(long)]
    pub quiet: bool,
    /// Print the UT Dallas toolbox's console lines (Incognito, Anatomy) on stdout
    #[arg(long)]
    pub verbose: bool,
}

/// `anonbox plan --help`.
const PLAN_HELP: &str = "\
Print the resolved plan of a run without running it

Usage: anonbox plan [FLAGS]

Takes exactly the flags of a run (anonbox --help) and prints what that run would do: the
config and input, each attribute with its role, hierarchy and height and an example from the
input's first rows, the size of the generalization lattice, the method and why (for the lattice
searches, what -method Optimal would pick), the privacy models, the suppression budget, the
metric and limits, and each output with whether it exists already.

Only the config, its hierarchy files and the first rows of the input are read; nothing is
written. Exit status: 0 the plan was printed, 1 the input's first rows cannot be read, 2 bad
flags or configuration (as for a run).
";

/// What the command line asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Anonymize (the default).
    Run(Box<RunArgs>),
    /// `anonbox plan ...`: print what a run with these flags would do.
    Plan(Box<RunArgs>),
    /// `anonbox audit ...`: the arguments after `audit`, for the audit parser.
    Audit(Vec<String>),
    /// `anonbox hierarchy ...`: the arguments after `hierarchy` ([`crate::cmd::hierarchy`]).
    Hierarchy(Vec<String>),
    /// `anonbox init ...`: the arguments after `init` ([`crate::cmd::init`]).
    Init(Vec<String>),
    /// `--help`: the text to print on stdout.
    Help(String),
    /// `--version`: the text to print on stdout.
    Version(String),
}

/// Typed, checked flag values. `None` = not given on the command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunArgs {
    pub config: Option<PathBuf>,
    /// The library's input: Arrow record batches in memory instead of a file (no flag; see
    /// [`crate::io::columnar::Batches`]). `input`, if given, only names it in messages.
    pub batches: Option<crate::io::columnar::Batches>,
    /// The library's output: the release as record batches in memory instead of a file (no
    /// flag; see [`crate::io::columnar::Sink`]).
    pub sink: Option<crate::io::columnar::Sink>,
    /// The library's watch on the run's progress (no flag; see [`crate::progress::Watch`]).
    pub progress: Option<crate::progress::Watch>,
    pub method: Option<Method>,
    pub k: Option<i64>,
    pub l: Option<f64>,
    pub c: Option<f64>,
    pub t: Option<f64>,
    pub supp_threshold: Option<u64>,
    pub suppression: Option<f64>,
    /// `-suppress`: records or cells.
    pub suppress: Option<crate::algorithms::cells::Suppress>,
    pub input: Option<PathBuf>,
    pub separator: Option<String>,
    pub encoding: Option<&'static crate::io::encoding::Encoding>,
    pub output: Option<PathBuf>,
    pub output_format: Option<OutputFormat>,
    /// `-outputFormat parquet` or `arrow`: genVals as a columnar file.
    pub output_columnar: Option<crate::io::columnar::Kind>,
    pub metric: Option<MetricKind>,
    pub time_limit: Option<f64>,
    pub threads: Option<usize>,
    pub engine: Option<crate::engine::EngineKind>,
    /// `-memoryLimit` in bytes.
    pub memory_limit: Option<usize>,
    pub db: Option<PathBuf>,
    pub report: Option<PathBuf>,
    pub mode: Option<u32>,
    pub risk_threshold: Option<f64>,
    pub population: Option<crate::privacy::population::Population>,
    pub seed: Option<u64>,
    /// `-partition`: Mondrian's cuts of numbers.
    pub partition: Option<crate::algorithms::mondrian::hierarchical::Partitioning>,
    /// `-labels`: what Mondrian over hierarchies publishes for a categorical attribute.
    pub labels: Option<crate::algorithms::mondrian::hierarchical::Labels>,
    /// `-maxLineLength` in bytes.
    pub max_line: Option<usize>,
    /// `-localRecoding`.
    pub local_recoding: bool,
    pub quiet: bool,
    pub verbose: bool,
}

/// Parses the arguments after the program name.
pub fn parse_args<I, S>(args: I) -> Result<Command>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let args: Vec<String> = args.into_iter().map(Into::into).collect();
    match args.first().map(String::as_str) {
        Some("audit") => return Ok(Command::Audit(args[1..].to_vec())),
        Some("hierarchy") => return Ok(Command::Hierarchy(args[1..].to_vec())),
        Some("init") => return Ok(Command::Init(args[1..].to_vec())),
        Some("plan") => {
            return Ok(match parse_run(&args[1..])? {
                Command::Run(a) => Command::Plan(a),
                Command::Help(_) => Command::Help(PLAN_HELP.to_string()),
                other => other,
            })
        }
        Some("help") if args.len() > 1 => {
            let help = vec!["--help".to_string()];
            return match args[1].as_str() {
                "audit" => Ok(Command::Audit(help)),
                "hierarchy" => Ok(Command::Hierarchy(help)),
                "init" => Ok(Command::Init(help)),
                "plan" => Ok(Command::Help(PLAN_HELP.to_string())),
                other => Err(Error::Usage(format!(
                    "help: no subcommand '{other}'; accepted: plan, audit, hierarchy, init"
                ))),
            };
        }
        Some("help") => return Ok(Command::Help(help_text())),
        _ => {}
    }
    parse_run(&args)
}

/// Parses the flags of a run (also those of `anonbox plan`).
fn parse_run(args: &[String]) -> Result<Command> {
    let normalized = match normalize(args)? {
        Normalized::Args(a) => a,
        Normalized::Help => return Ok(Command::Help(help_text())),
        Normalized::Version => {
            let cmd = RawArgs::command();
            return Ok(Command::Version(format!(
                "{} {}\n",
                cmd.get_name(),
                cmd.get_version().unwrap_or("")
            )));
        }
    };
    let raw = RawArgs::try_parse_from(std::iter::once("anonbox".to_string()).chain(normalized))
        .map_err(|e| {
            // Not expected after normalize(); keep clap's first line as the message.
            let text = e.render().to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            Error::Usage(first.trim_start_matches("error: ").to_string())
        })?;
    Ok(Command::Run(Box::new(RunArgs::from_raw(&raw)?)))
}

/// Parses a subcommand's arguments (after its name) with clap: `None` for `--help`; errors are
/// clap's first paragraph on one line, as a flag error naming the subcommand.
pub fn parse_subcommand<T: Parser>(name: &str, args: &[String]) -> Result<Option<T>> {
    let parsed =
        T::try_parse_from(std::iter::once(format!("anonbox {name}")).chain(args.iter().cloned()));
    match parsed {
        Ok(a) => Ok(Some(a)),
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => Ok(None),
        Err(e) => {
            let text = e.render().to_string();
            let first: Vec<&str> = text
                .lines()
                .map(str::trim)
                .take_while(|l| !l.is_empty())
                .collect();
            Err(Error::Usage(format!(
                "{name}: {}",
                first.join(" ").trim_start_matches("error: ")
            )))
        }
    }
}

/// The `--help` text.
pub fn help_text() -> String {
    RawArgs::command().render_long_help().to_string()
}

enum Normalized {
    Args(Vec<String>),
    Help,
    Version,
}

/// One flag of the command line: canonical (clap) name and whether it takes a value.
struct Flag {
    name: String,
    takes_value: bool,
}

fn flags() -> Vec<Flag> {
    let mut cmd = RawArgs::command();
    cmd.build();
    cmd.get_arguments()
        .filter_map(|a| {
            Some(Flag {
                name: a.get_long()?.to_string(),
                takes_value: a.get_action().takes_values(),
            })
        })
        .collect()
}

/// Rewrites toolbox- and GNU-style flags as canonical `--name=value` / `--name`, first
/// occurrence winning. Errors on unknown flags, missing values and stray arguments.
fn normalize(args: &[String]) -> Result<Normalized> {
    let flags = flags();
    let accepted = || {
        flags
            .iter()
            .filter(|f| f.name != "help" && f.name != "version")
            .map(|f| format!("-{}", f.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let body = match arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) {
            Some(body) if !body.is_empty() => body,
            _ => {
                return Err(Error::Usage(format!(
                    "unexpected argument '{arg}' (flags are written -name value; see --help)"
                )))
            }
        };
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let lower = name.to_ascii_lowercase();
        if lower == "help" || lower == "h" {
            return Ok(Normalized::Help);
        }
        if lower == "version" || name == "V" {
            return Ok(Normalized::Version);
        }
        let Some(flag) = flags.iter().find(|f| f.name.eq_ignore_ascii_case(name)) else {
            return Err(Error::Usage(format!(
                "unknown flag '{arg}'; accepted flags: {}, --help, --version",
                accepted()
            )));
        };
        let shown = format!("-{}", flag.name);
        let value = if flag.takes_value {
            match inline {
                Some(v) => Some(v),
                None => match args.get(i) {
                    Some(v) => {
                        i += 1;
                        Some(v.clone())
                    }
                    None => return Err(Error::Usage(format!("{shown} needs a value"))),
                },
            }
        } else {
            if inline.is_some() {
                return Err(Error::Usage(format!("{shown} takes no value")));
            }
            None
        };
        if !seen.insert(flag.name.clone()) {
            continue; // the first occurrence wins, as in the toolbox
        }
        out.push(match value {
            Some(v) => format!("--{}={v}", flag.name),
            None => format!("--{}", flag.name),
        });
    }
    Ok(Normalized::Args(out))
}

impl RunArgs {
    /// Types and checks the raw values; errors name the flag.
    pub fn from_raw(raw: &RawArgs) -> Result<RunArgs> {
        let path = |v: &Option<String>, flag: &str| -> Result<Option<PathBuf>> {
            match v {
                Some(s) if s.is_empty() => Err(Error::Usage(format!("{flag}: empty file name"))),
                Some(s) => Ok(Some(PathBuf::from(s))),
                None => Ok(None),
            }
        };
        let double = |v: &Option<String>, flag: &str| -> Result<Option<f64>> {
            v.as_deref()
                .map(|s| {
                    parse_double(s)
                        .filter(|x| !x.is_nan())
                        .ok_or_else(|| Error::Usage(format!("{flag}: '{s}' is not a number")))
                })
                .transpose()
        };
        let named = |v: &Option<String>, flag: &str, what: &str, names: &[&str]| -> Error {
            Error::Usage(format!(
                "{flag}: unknown {what} '{}'; accepted: {}",
                v.as_deref().unwrap_or(""),
                names.join(", ")
            ))
        };

        let k = raw
            .k
            .as_deref()
            .map(|s| {
                s.trim()
                    .parse::<i64>()
                    .map_err(|_| Error::Usage(format!("-k: '{s}' is not an integer")))
            })
            .transpose()?;
        let supp_threshold = raw
            .supp_threshold
            .as_deref()
            .map(|s| {
                s.trim().parse::<u64>().map_err(|_| {
                    Error::Usage(format!(
                        "-suppThreshold: '{s}' is not a number of tuples (an integer >= 0)"
                    ))
                })
            })
            .transpose()?;
        let suppression = double(&raw.suppression, "-suppression")?;
        if let Some(f) = suppression {
            if !(0.0..=1.0).contains(&f) {
                return Err(Error::Usage(format!(
                    "-suppression: {} is not a fraction in [0, 1]",
                    raw.suppression.as_deref().unwrap_or("")
                )));
            }
        }
        if suppression.is_some() && supp_threshold.is_some() {
            return Err(Error::Usage(
                "-suppression and -suppThreshold cannot be combined: -suppression is a fraction \
                 of the records, -suppThreshold a number of tuples"
                    .to_string(),
            ));
        }
        let seed = raw
            .seed
            .as_deref()
            .map(|s| {
                s.trim()
                    .parse::<u64>()
                    .map_err(|_| Error::Usage(format!("-seed: '{s}' is not an integer >= 0")))
            })
            .transpose()?;
        let threads = raw
            .threads
            .as_deref()
            .map(|s| match s.trim().parse::<usize>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(Error::Usage(format!(
                    "-threads: '{s}' is not an integer > 0"
                ))),
            })
            .transpose()?;
        let method = match &raw.method {
            None => None,
            Some(s) => Some(
                Method::parse(s.trim())
                    .ok_or_else(|| named(&raw.method, "-method", "method", Method::NAMES))?,
            ),
        };
        let output_columnar = raw
            .output_format
            .as_deref()
            .and_then(crate::io::columnar::Kind::parse);
        let output_format = match &raw.output_format {
            None => None,
            Some(_) if output_columnar.is_some() => Some(OutputFormat::GenVals),
            Some(s) => Some(OutputFormat::parse(s.trim()).ok_or_else(|| {
                named(
                    &raw.output_format,
                    "-outputFormat",
                    "output format",
                    OutputFormat::NAMES,
                )
            })?),
        };
        let metric = match &raw.metric {
            None => None,
            Some(s) => Some(
                MetricKind::parse(s.trim())
                    .ok_or_else(|| named(&raw.metric, "-metric", "metric", MetricKind::NAMES))?,
            ),
        };
        let time_limit = double(&raw.time_limit, "-timeLimit")?;
        if let Some(t) = time_limit {
            if !(t > 0.0 && t.is_finite()) {
                return Err(Error::Usage(format!(
                    "-timeLimit: {} is not a number of seconds > 0",
                    raw.time_limit.as_deref().unwrap_or("")
                )));
            }
        }
        let risk_threshold = double(&raw.risk_threshold, "-riskThreshold")?;
        if let Some(r) = risk_threshold {
            if !(0.0..=1.0).contains(&r) {
                return Err(Error::Usage(format!(
                    "-riskThreshold: {} is not a risk in [0, 1]",
                    raw.risk_threshold.as_deref().unwrap_or("")
                )));
            }
        }
        if raw.separator.as_deref() == Some("") {
            return Err(Error::Usage("-separator: empty separator".to_string()));
        }
        Ok(RunArgs {
            config: path(&raw.config, "-config")?,
            batches: None,
            sink: None,
            progress: None,
            method,
            k,
            l: double(&raw.l, "-l")?,
            c: double(&raw.c, "-c")?,
            t: double(&raw.t, "-t")?,
            supp_threshold,
            suppression,
            suppress: raw
                .suppress
                .as_deref()
                .map(|s| {
                    crate::algorithms::cells::Suppress::parse(s).ok_or_else(|| {
                        named(
                            &raw.suppress,
                            "-suppress",
                            "suppression",
                            crate::algorithms::cells::Suppress::NAMES,
                        )
                    })
                })
                .transpose()?,
            input: path(&raw.input, "-input")?,
            separator: raw.separator.clone(),
            encoding: raw
                .encoding
                .as_deref()
                .map(crate::io::encoding::for_label)
                .transpose()
                .map_err(|m| Error::Usage(format!("-encoding: {m}")))?,
            output: path(&raw.output, "-output")?,
            output_format,
            output_columnar,
            metric,
            time_limit,
            threads,
            db: path(&raw.db, "-db")?,
            report: path(&raw.report, "-report")?,
            mode: raw
                .mode
                .as_deref()
                .map(crate::io::parse_file_mode)
                .transpose()
                .map_err(|m| Error::Usage(format!("-mode: {m}")))?,
            risk_threshold,
            population: raw
                .population
                .as_deref()
                .map(crate::privacy::population::Population::parse)
                .transpose()
                .map_err(|e| Error::Usage(format!("-population: {e}")))?,
            seed,
            partition: match &raw.partition {
                None => None,
                Some(s) => Some(
                    crate::algorithms::mondrian::hierarchical::Partitioning::parse(s.trim())
                        .ok_or_else(|| {
                            named(
                                &raw.partition,
                                "-partition",
                                "partitioning",
                                crate::algorithms::mondrian::hierarchical::Partitioning::NAMES,
                            )
                        })?,
                ),
            },
            labels: match &raw.labels {
                None => None,
                Some(s) => Some(
                    crate::algorithms::mondrian::hierarchical::Labels::parse(s.trim()).ok_or_else(
                        || {
                            named(
                                &raw.labels,
                                "-labels",
                                "labels",
                                crate::algorithms::mondrian::hierarchical::Labels::NAMES,
                            )
                        },
                    )?,
                ),
            },
            max_line: raw
                .max_line_length
                .as_deref()
                .map(crate::io::source::parse_size)
                .transpose()
                .map_err(|m| Error::Usage(format!("-maxLineLength: {m}")))?,
            engine: raw
                .engine
                .as_deref()
                .map(|e| {
                    crate::engine::EngineKind::parse_named(e)
                        .map_err(|m| Error::Usage(format!("-engine: {m}")))
                })
                .transpose()?,
            local_recoding: raw.local_recoding,
            memory_limit: raw
                .memory_limit
                .as_deref()
                .map(crate::io::source::parse_size)
                .transpose()
                .map_err(|m| Error::Usage(format!("-memoryLimit: {m}")))?,
            quiet: raw.quiet,
            verbose: raw.verbose,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> RunArgs {
        match parse_args(args.iter().copied()).unwrap() {
            Command::Run(r) => *r,
            other => panic!("{other:?}"),
        }
    }

    fn usage(args: &[&str]) -> String {
        match parse_args(args.iter().copied()) {
            Err(Error::Usage(m)) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        RawArgs::command().debug_assert();
    }

    #[test]
    fn toolbox_style_case_insensitive() {
        let r = run(&[
            "-CONFIG",
            "c.xml",
            "-Method",
            "datafly",
            "-K",
            "5",
            "-l",
            "2.5",
            "-c",
            "0",
            "-T",
            "0.3",
            "-SUPPTHRESHOLD",
            "4",
            "-input",
            "in.csv",
            "-separator",
            ";",
            "-output",
            "o.csv",
            "-outputformat",
            "GenValsDist",
        ]);
        assert_eq!(r.config, Some(PathBuf::from("c.xml")));
        assert_eq!(r.method, Some(Method::Datafly));
        assert_eq!(r.k, Some(5));
        assert_eq!((r.l, r.c, r.t), (Some(2.5), Some(0.0), Some(0.3)));
        assert_eq!(r.supp_threshold, Some(4));
        assert_eq!(r.input, Some(PathBuf::from("in.csv")));
        assert_eq!(r.separator.as_deref(), Some(";"));
        assert_eq!(r.output, Some(PathBuf::from("o.csv")));
        assert_eq!(r.output_format, Some(OutputFormat::GenValsDist));
        assert!(!r.quiet);
    }

    #[test]
    fn gnu_style_and_new_flags() {
        let r = run(&[
            "--method=flash",
            "--k",
            "3",
            "--suppression=0.02",
            "--metric",
            "dm*",
            "--db",
            "w.db",
            "--report=r.json",
            "--seed",
            "7",
            "--quiet",
            "-Quiet",
        ]);
        assert_eq!(r.method, Some(Method::Flash));
        assert_eq!(r.k, Some(3));
        assert_eq!(r.suppression, Some(0.02));
        assert_eq!(r.metric, Some(MetricKind::DmStar));
        assert_eq!(r.db, Some(PathBuf::from("w.db")));
        assert_eq!(r.report, Some(PathBuf::from("r.json")));
        assert_eq!(r.seed, Some(7));
        assert!(r.quiet);
    }

    #[test]
    fn first_occurrence_wins() {
        let r = run(&[
            "-k", "5", "-K", "7", "--k=9", "-method", "mondrian", "-method", "x",
        ]);
        assert_eq!(r.k, Some(5));
        assert_eq!(r.method, Some(Method::Mondrian));
    }

    #[test]
    fn values_may_look_like_flags() {
        let r = run(&["-separator", "-", "-k", "-5", "-input", "--weird"]);
        assert_eq!(r.separator.as_deref(), Some("-"));
        assert_eq!(r.k, Some(-5), "range is checked by build_job");
        assert_eq!(r.input, Some(PathBuf::from("--weird")));
        let r = run(&["-separator", ", "]);
        assert_eq!(r.separator.as_deref(), Some(", "));
    }

    #[test]
    fn no_flags_is_a_default_run() {
        assert_eq!(run(&[]), RunArgs::default());
    }

    #[test]
    fn errors_name_the_flag_and_list_what_is_accepted() {
        let e = usage(&["-foo", "1"]);
        assert!(
            e.starts_with("unknown flag '-foo'; accepted flags: -config, -method, -k,"),
            "{e}"
        );
        assert!(e.contains("-suppThreshold") && e.contains("-quiet"), "{e}");
        assert_eq!(usage(&["-k"]), "-k needs a value");
        assert_eq!(usage(&["-input", "a", "-OUTPUT"]), "-output needs a value");
        assert_eq!(usage(&["-k", "x"]), "-k: 'x' is not an integer");
        assert_eq!(usage(&["-k", "2.5"]), "-k: '2.5' is not an integer");
        assert_eq!(usage(&["-l", "many"]), "-l: 'many' is not a number");
        assert_eq!(usage(&["--t=NaN"]), "-t: 'NaN' is not a number");
        assert_eq!(
            usage(&["-method", "fast"]),
            "-method: unknown method 'fast'; accepted: Datafly, Mondrian, Incognito_K, \
             Incognito_L, Incognito_T, Anatomy, Flash, OLA, BFS, Optimal, MDAV"
        );
        assert_eq!(
            usage(&["-outputFormat", "csv"]),
            "-outputFormat: unknown output format 'csv'; accepted: genVals, genValsDist, anatomy"
        );
        assert!(usage(&["-metric", "gain"])
            .starts_with("-metric: unknown metric 'gain'; accepted: DMStar"));
        assert!(
            usage(&["-suppression", "0.1", "-suppThreshold", "3"]).contains("cannot be combined")
        );
        assert_eq!(
            usage(&["-suppression", "1.5"]),
            "-suppression: 1.5 is not a fraction in [0, 1]"
        );
        assert!(usage(&["-suppThreshold", "-1"]).starts_with("-suppThreshold: '-1' is not"));
        assert_eq!(usage(&["-seed", "x"]), "-seed: 'x' is not an integer >= 0");
        assert_eq!(
            usage(&["-timeLimit", "0"]),
            "-timeLimit: 0 is not a number of seconds > 0"
        );
        assert!(usage(&["-timeLimit", "soon"]).starts_with("-timeLimit: "));
        assert_eq!(run(&["--timelimit=2.5"]).time_limit, Some(2.5));
        assert_eq!(run(&["-threads", "2"]).threads, Some(2));
        assert_eq!(
            usage(&["-threads", "0"]),
            "-threads: '0' is not an integer > 0"
        );
        assert_eq!(run(&["-method", "bfs"]).method, Some(Method::Bfs));
        assert_eq!(run(&["-method", "OPTIMAL"]).method, Some(Method::Optimal));
        assert_eq!(usage(&["--quiet=yes"]), "-quiet takes no value");
        assert_eq!(usage(&["-separator", ""]), "-separator: empty separator");
        assert_eq!(usage(&["-input", ""]), "-input: empty file name");
        assert!(usage(&["-encoding", "ebcdic"])
            .starts_with("-encoding: unknown encoding 'ebcdic': give a label of the WHATWG"));
        assert!(usage(&["-Encoding", "utf-16le"]).contains("UTF-16"));
        assert_eq!(
            run(&["-ENCODING", "Latin1"]).encoding,
            Some(encoding_rs::WINDOWS_1252)
        );
        assert!(usage(&["config.xml"]).starts_with("unexpected argument 'config.xml'"));
        assert!(usage(&["-"]).starts_with("unexpected argument '-'"));
    }

    #[test]
    fn help_and_version() {
        let Command::Help(h) = parse_args(["-k", "x", "--help"]).unwrap() else {
            panic!()
        };
        for flag in [
            "--config",
            "--method",
            "--k",
            "--l",
            "--c",
            "--t",
            "--suppThreshold",
            "--input",
            "--separator",
            "--encoding",
            "--output",
            "--outputFormat",
            "--suppression",
            "--metric",
            "--db",
            "--report",
            "--seed",
            "--quiet",
        ] {
            assert!(h.contains(flag), "{flag} missing from help");
        }
        assert!(h.contains("[default: config.xml]") && h.contains("[default: 10]"));
        assert!(h.contains("Exit status"));
        assert!(matches!(parse_args(["-HELP"]).unwrap(), Command::Help(_)));
        assert!(matches!(parse_args(["-h"]).unwrap(), Command::Help(_)));
        let Command::Version(v) = parse_args(["--version"]).unwrap() else {
            panic!()
        };
        assert_eq!(v, format!("anonbox {}\n", env!("CARGO_PKG_VERSION")));
        assert!(matches!(parse_args(["-V"]).unwrap(), Command::Version(_)));
    }

    #[test]
    fn help_subcommand_and_help_lists_subcommands() {
        assert_eq!(parse_args(["help"]).unwrap(), Command::Help(help_text()));
        assert_eq!(
            parse_args(["help", "audit"]).unwrap(),
            Command::Audit(vec!["--help".into()])
        );
        assert!(help_text().contains("anonbox audit FILE"));
        assert!(help_text().contains("anonbox hierarchy KIND"));
        assert!(help_text().contains("anonbox init DATA"));
        assert_eq!(
            parse_args(["help", "init"]).unwrap(),
            Command::Init(vec!["--help".into()])
        );
        assert_eq!(
            parse_args(["hierarchy", "mask"]).unwrap(),
            Command::Hierarchy(vec!["mask".into()])
        );
        assert!(parse_args(["help", "x"]).is_err());
    }

    #[test]
    fn audit_dispatches() {
        assert_eq!(
            parse_args(["audit", "-k", "5", "x.csv"]).unwrap(),
            Command::Audit(vec!["-k".into(), "5".into(), "x.csv".into()])
        );
    }
}
