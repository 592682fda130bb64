//! `anonbox init DATA`: from a raw delimited file to a config that runs.
//!
//! 0. Without `--header` or `--no-header`, [`header`] decides on the first records whether the
//!    first line names the columns; init says so, and why, on its first line.
//! 1. [`profile`] reads the file once, streaming: per column the kind of values, the distinct
//!    values with their counts and the missing share (memory grows with distinct values).
//! 2. [`propose`] gives each column a role with its reason (identifier, sensitive,
//!    quasi-identifier, insensitive; from what [`meaning`] reads in its name and values, with
//!    the HIPAA Safe Harbor flags), keeps the quasi-identifiers to what a release bears, and
//!    gives each a builder of [`crate::hierarchy::build`], keeping the lattice small or, with
//!    many quasi-identifiers, the search limited in time. Sensitive attributes get distinct
//!    l-diversity in `<privacy>` and a file listing their values (read as categories).
//!    What init prints of each hierarchy is made from the builder that wrote it and the row of
//!    the column's most frequent value, so it says what the file holds.
//! 3. The config's method and the lattice init prints come from the levels of the hierarchies
//!    it writes, checked by the run's own check ([`crate::algorithms::lattice_limits`]): init
//!    never writes a config, nor prints a command, that the run refuses.
//! 4. The builders run on the profile's distinct values (no second pass), and `DIR/config.xml`
//!    and one `hierarchy_NAME.csv` per quasi-identifier are written through init's
//!    [`Publication`], published together at the end: a failed init writes nothing, and a `--dir`
//!    it created for them is removed again, on an error or a signal
//!    ([`Publication::create_dir`]);
//!    a folder that was there before is never removed. Hierarchy files list raw values, so new
//!    ones are owner-only (0600). Every column's element
//!    (or, for insensitive columns, a line) carries a one-line comment with the reason and the
//!    profile, so the user sees what to edit.
//!
//! What comes from the data is made safe where it lands: names in XML attributes are escaped,
//! control characters included (`&#9;`, so the config reader reads a tab back, not a space);
//! comments hold one line with control characters shown as `\t`; hierarchy file names keep the
//! column name's safe characters, cut to [`NAME_IN_FILE`] so that they (and their temporary
//! names) stay under the file system's 255 bytes; what init prints shows names as error
//! messages do ([`crate::error::shown`]). The data file's path in the config is relative to the
//! real folder of the config, links resolved, so it names the data wherever `--dir` points.
//!
//! As for the other subcommands, [`prepare`] does everything that can fail on flags before the
//! data is read (exit 2), and [`InitJob::run`] the rest (exit 1); see [`crate::cmd::Stage`].

pub mod encoding;
pub mod header;
pub mod meaning;
pub mod profile;
pub mod propose;

use std::collections::HashSet;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::Instant;

use clap::Parser;

use crate::hierarchy::build::Builder;
use crate::io::{Cleanup, Format, Publication};
use crate::{Error, Result};
use profile::Profile;
use propose::{Proposal, Role};

/// The flags of `anonbox init`.
#[derive(Debug, Parser)]
#[command(
    name = "anonbox init",
    about = "Profile a delimited file and write a config and hierarchies to start from",
    long_about = "Profile a delimited file (kind of values, distinct values, missing share per \
                  column), propose a role per column with its reason (identifiers: names, \
                  contact details, numbers, near-unique columns; sensitive: outcomes, \
                  diagnoses, income, under distinct l-diversity; quasi-identifiers: \
                  demographics, geography, dates, as many as the release bears; the rest kept \
                  as it is or left out), flag HIPAA Safe Harbor identifiers with their \
                  treatment, and write DIR/config.xml with a comment per column and a \
                  hierarchy file per quasi-identifier and sensitive attribute. Then run the \
                  command it prints: anonbox -config DIR/config.xml -method Flash -k 5 (with \
                  a large lattice: -method Optimal -timeLimit 60 -k 5).\n\n\
                  Exit status: 0 written, 1 a data or I/O error (nothing written), 2 bad flags.",
    disable_version_flag = true
)]
pub struct InitArgs {
    /// The delimited data file
    #[arg(value_name = "DATA")]
    pub data: PathBuf,
    /// Field separator (one character, \t, or a string such as ", ")
    #[arg(long, value_name = "SEP", default_value = ",")]
    pub separator: String,
    /// The first line is a header (names the columns) [default: decided on the first 200
    /// records, said on the first line printed]
    #[arg(long, conflicts_with = "no_header")]
    pub header: bool,
    /// The first line is a record
    #[arg(long)]
    pub no_header: bool,
    /// Text encoding of the file (and of the hierarchy files written): a WHATWG label such as
    /// windows-1252 (latin1), iso-8859-15, shift_jis [default: UTF-8 if the file is, else
    /// windows-1252, said in the output and written in the config]
    #[arg(long, value_name = "LABEL", value_parser = crate::io::encoding::for_label)]
    pub encoding: Option<&'static crate::io::encoding::Encoding>,
    /// Folder of config.xml and the hierarchy files (created if missing, one level only: its
    /// parent must exist; removed again if init fails)
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Replace an existing DIR/config.xml and DIR/hierarchy_*.csv files
    #[arg(long)]
    pub force: bool,
    /// Longest line (or quoted record) of DATA, in bytes or with K, M, G (KiB, MiB, GiB); a
    /// longer one is an error [default: 64M]
    #[arg(long, value_name = "SIZE", value_parser = crate::io::source::parse_size)]
    pub max_line_length: Option<usize>,
    /// Permission bits (octal) of the files written, new or replaced [default: 600 for a new
    /// file; a replaced file of the user's keeps its own]
    #[arg(long, value_name = "OCTAL", value_parser = crate::io::parse_file_mode)]
    pub mode: Option<u32>,
}

/// What `anonbox init` asks for.
pub enum Request {
    /// `--help`: the text to print.
    Help(String),
    /// The checked command.
    Init(Box<InitJob>),
}

/// The validated job of `anonbox init`: its flags and the input's format, checked and ready to
/// read the data.
pub struct InitJob {
    args: InitArgs,
    separator: String,
    format: Format,
}

/// Parses and checks the arguments after `init`: the setup stage ([`crate::cmd::Stage`]), whose
/// errors are flag errors (exit 2).
pub fn prepare(args: &[String]) -> Result<Request> {
    let Some(a) = crate::cli::parse_subcommand::<InitArgs>("init", args)? else {
        return Ok(Request::Help(
            <InitArgs as clap::CommandFactory>::command()
                .render_long_help()
                .to_string(),
        ));
    };
    let usage = |m: String| Error::Usage(format!("init: {m}"));
    let separator = crate::io::separator_arg(&a.separator);
    let format = format_of(&a, &separator, a.header).map_err(usage)?;
    if !a.data.is_file() {
        return Err(usage(format!(
            "{} does not exist or is not a file",
            a.data.display()
        )));
    }
    // The folder that will take the files (--dir, or the one --dir is created in) must take a
    // new file: found now, before the data is read, as a run finds its destinations.
    let writable = |folder: &Path| {
        tempfile::tempfile_in(folder).map(drop).map_err(|e| {
            usage(format!(
                "--dir: cannot write into folder {}: {e}",
                folder.display()
            ))
        })
    };
    if a.dir.exists() {
        check_dir(&a).map_err(usage)?;
        writable(&a.dir)?;
    } else {
        let parent = crate::paths::folder_of(&a.dir);
        if !parent.is_dir() {
            return Err(usage(format!(
                "--dir: folder {} does not exist",
                parent.display()
            )));
        }
        writable(parent)?;
    }
    Ok(Request::Init(Box::new(InitJob {
        args: a,
        separator,
        format,
    })))
}

/// The format init reads DATA with: `?` is a value like any other (the config says
/// `unknown="keep"`, so the run reads the rows the profile read).
fn format_of(a: &InitArgs, separator: &str, header: bool) -> std::result::Result<Format, String> {
    Ok(Format::new(separator, header)
        .map_err(|e| format!("--separator: {e}"))?
        .unknown_kept(true)
        .encoded(a.encoding.unwrap_or(encoding_rs::UTF_8))
        .max_line(
            a.max_line_length
                .unwrap_or(crate::io::source::DEFAULT_MAX_LINE),
        ))
}

/// True for the names init writes in its folder: `config.xml` and `hierarchy_*.csv`.
fn written_by_init(name: &str) -> bool {
    name == "config.xml" || (name.starts_with("hierarchy_") && name.ends_with(".csv"))
}

/// Checks an existing `--dir` before the data is read: init writes `config.xml` and one
/// `hierarchy_<column>.csv` per quasi-identifier, names known only once the data is profiled,
/// so every file of those names already there is checked now. Such a file may be a hierarchy
/// built or edited by hand (README, step 3): without `--force` init replaces none of them.
/// Whatever the flags, it refuses a link (its target is outside what init was asked to
/// write), anything that is not a regular file, the data file itself, and another user's file
/// in a folder other users can write (see [`crate::io::dest`]).
fn check_dir(a: &InitArgs) -> std::result::Result<(), String> {
    if !a.dir.is_dir() {
        return Err(format!("--dir: {} is not a folder", a.dir.display()));
    }
    let entries = std::fs::read_dir(&a.dir).map_err(|e| format!("{}: {e}", a.dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| written_by_init(n))
        .collect();
    names.sort();
    let data = std::fs::canonicalize(&a.data).ok();
    for name in &names {
        let path = a.dir.join(name);
        let meta =
            std::fs::symlink_metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        if std::fs::canonicalize(&path).ok() == data && data.is_some() {
            return Err(format!(
                "{} is the data file: init writes config.xml and hierarchy_*.csv files in \
                 --dir, so give it another folder",
                path.display()
            ));
        }
        if meta.file_type().is_symlink() {
            return Err(format!(
                "{} is a symbolic link: init replaces only plain files in --dir",
                path.display()
            ));
        }
        if !meta.is_file() {
            return Err(format!(
                "{} exists and is not a regular file: init does not replace it",
                path.display()
            ));
        }
        // Another user's file in a folder others can write (their own folder, say).
        crate::io::Dest::resolve(&path).map_err(|m| format!("{} {m}", path.display()))?;
    }
    if !a.force && !names.is_empty() {
        let shown: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
        let more = if names.len() > 3 {
            format!(" and {} more", names.len() - 3)
        } else {
            String::new()
        };
        return Err(format!(
            "{} already holds {}{more}: edit them, choose another --dir, or give --force to \
             replace them",
            a.dir.display(),
            shown.join(", ")
        ));
    }
    Ok(())
}

/// A common separator other than `separator` in the first value of a file profiled as one
/// column (its header name, or its first value): most likely the file's own.
fn other_separator(profile: &Profile, separator: &str) -> Option<&'static str> {
    let [column] = &profile.columns[..] else {
        return None;
    };
    let first = column.values.values().next().map_or("", |(v, _)| v);
    [",", ";", "\t", "|"]
        .into_iter()
        .find(|s| *s != separator && (column.name.contains(s) || first.contains(s)))
}

/// What init read: the profile, in which encoding, and, when the encoding was chosen because
/// the file is not UTF-8 (no `--encoding`), where it is not.
struct Reading<'a> {
    encoding: &'static crate::io::encoding::Encoding,
    guessed: Option<String>,
    /// The first line is a header (given, or decided).
    header: bool,
    /// Why, when init decided it (neither `--header` nor `--no-header`).
    header_said: Option<String>,
    profile: &'a Profile,
}

/// A quasi-identifier's hierarchy: the builder that passed every value and its file.
struct Built {
    column: usize,
    file: String,
    description: String,
    builder: Builder,
    /// Levels of the file written (its columns: the value, each level, `*`).
    levels: usize,
    /// What the hierarchy written does, in words, with the row of the column's most frequent
    /// value as the file holds it: `intervals of 5, 10, 20: 36 -> [35:40) -> ... -> *`.
    hierarchy: String,
    /// A quasi-identifier's (else a sensitive attribute's, which lists its values).
    qi: bool,
}

/// The search the config runs, decided on the levels of the hierarchy files written.
struct Search {
    /// Transformations of the lattice (`None`: more than 2^64).
    size: Option<u64>,
    method: crate::job::Method,
    time_limit: Option<u32>,
}

impl Search {
    /// The search of the hierarchies `built`, checked by the run's own check
    /// ([`crate::algorithms::lattice_limits`]) on the levels of the files written: init never
    /// writes a config, nor prints a command, that the run would refuse.
    fn of(profile: &Profile, built: &[Built]) -> Result<Search> {
        let heights: Vec<(&str, usize)> = built
            .iter()
            .filter(|b| b.qi)
            .map(|b| (profile.columns[b.column].name.as_str(), b.levels))
            .collect();
        let size = propose::lattice_size(heights.iter().map(|&(_, l)| l));
        let (method, time_limit) = propose::method(size);
        crate::algorithms::lattice_limits(method, &heights).map_err(|e| {
            Error::Invalid(format!(
                "init: the config it would write cannot run, nothing written (please report \
                 it): {e}"
            ))
        })?;
        Ok(Search {
            size,
            method,
            time_limit,
        })
    }

    fn flags(&self) -> String {
        propose::method_flags(self.method, self.time_limit)
    }
}

impl InitJob {
    /// Profiles, proposes, builds and writes; prints what it decided on `out`. What a signal
    /// must remove is listed in `cleanup`.
    pub fn run(&self, out: &mut dyn Write, cleanup: &Cleanup) -> Result<()> {
        let publication = Publication::new(cleanup).file_mode(self.args.mode);
        self.write_all(out, publication)
    }

    /// Everything [`InitJob::run`] does, the files staged in `publication` (dropped unpublished on
    /// an error: a failed init writes nothing).
    fn write_all(&self, out: &mut dyn Write, publication: Publication) -> Result<()> {
        let a = &self.args;
        let started = Instant::now();
        // Without --encoding: UTF-8, or windows-1252 for a file that is not (said and kept).
        // Without --header or --no-header: decided on the first records, and said.
        let (header, header_said) = if a.header || a.no_header {
            (a.header, None)
        } else {
            let d = header::detect(&self.format, &a.data)?;
            (d.header, Some(d.why))
        };
        let base = if header == self.format.header() {
            self.format.clone()
        } else {
            format_of(a, &self.separator, header).map_err(Error::Invalid)?
        };
        let guessed = match a.encoding {
            Some(_) => None,
            None => encoding::not_utf8(&base, &a.data)?,
        };
        let format = match guessed {
            Some(_) => base.encoded(encoding::FALLBACK),
            None => base,
        };
        let profile = profile::profile(&format, &a.data)?;
        let profiled = started.elapsed().as_secs_f64();
        if profile.records == 0 {
            return Err(Error::in_file(
                &a.data,
                "no records to profile (the file is empty or a header only)",
            ));
        }
        if let Some(likely) = other_separator(&profile, &self.separator) {
            let likely = likely.escape_default();
            eprintln!(
                "anonbox: warning: {}: one column, but its first line holds '{likely}': give \
                 --separator '{likely}' if the file is separated by it",
                a.data.display()
            );
        }
        let mut proposal = propose::propose(&profile, &self.separator);
        let built = self.choose_builders(&profile, &mut proposal)?;
        if !built.iter().any(|b| b.qi) {
            return Err(Error::in_file(
                &a.data,
                "no column qualifies as a quasi-identifier (every column is an identifier, \
                 free text, empty or of one value): nothing to anonymize",
            ));
        }
        let search = Search::of(&profile, &built)?;
        publication.create_dir(&a.dir).map_err(|e| {
            Error::in_file(&a.dir, format!("creating the folder given by --dir: {e}"))
        })?;
        let config = a.dir.join("config.xml");
        let mut writes = vec![("config", config.clone())];
        writes.extend(
            built
                .iter()
                .map(|b| ("hierarchy file", a.dir.join(&b.file))),
        );
        let reads = [("input file", a.data.clone())];
        publication.never_replace(&reads);
        crate::paths::check(&reads, &writes)?;
        for b in &built {
            // One hierarchy at a time: its rows are made as they are written.
            let column = &profile.columns[b.column];
            let mut values: Vec<(&str, u64)> = column.values_and_missing().collect();
            b.builder.sort(&mut values);
            crate::hierarchy::file::write(
                &publication,
                &a.dir.join(&b.file),
                b.builder.rows(&values),
                format.encoding(),
            )?;
        }
        let read = Reading {
            encoding: format.encoding(),
            guessed,
            header,
            header_said,
            profile: &profile,
        };
        let xml = self.config_xml(&read, &proposal, &built, &search)?;
        publication.write(&config, xml.as_bytes())?;
        publication.publish()?;
        self.print(out, &read, &proposal, &built, &search, profiled)
            .map_err(|e| Error::io("<stdout>", e))
    }

    /// Checks each quasi-identifier's builder against the profile's values. A builder that
    /// refuses a value (a number too large for exact intervals) falls back to value -> `*`.
    fn choose_builders(&self, profile: &Profile, proposal: &mut Proposal) -> Result<Vec<Built>> {
        let mut built = Vec::new();
        let mut files: HashSet<String> = HashSet::new();
        for (c, p) in profile.columns.iter().zip(proposal.columns.iter_mut()) {
            // A sensitive attribute's file lists its values (value -> `*`): the run reads them
            // as categories, whatever they are (without one it reads numbers).
            let (kind, params, qi) = match &p.role {
                Role::QuasiIdentifier { kind, params } => (*kind, params.clone(), true),
                Role::Sensitive { .. } => ("categories", Vec::new(), false),
                _ => continue,
            };
            let builder = propose::builder(kind, &params)
                .ok()
                .filter(|b| c.values_and_missing().all(|(v, _)| b.check(v).is_ok()));
            let builder = match builder {
                Some(b) => b,
                None if qi => {
                    p.role = Role::QuasiIdentifier {
                        kind: "categories",
                        params: Vec::new(),
                    };
                    p.reason = format!("{} (its proposed builder refused a value)", p.reason);
                    Builder::from_params("categories", &Default::default())
                        .map_err(Error::Invalid)?
                }
                None => {
                    return Err(Error::Invalid(format!(
                        "init: no hierarchy lists the values of {} (please report it)",
                        crate::error::shown(&c.name)
                    )))
                }
            };
            // The words come from the final builder and the example from its rows: what is
            // printed is what the file holds.
            let words = match &p.role {
                Role::QuasiIdentifier { kind, params } => propose::hierarchy_words(kind, params),
                _ => "its values listed in a hierarchy file, read as categories".to_string(),
            };
            let values: Vec<(&str, u64)> = c.values_and_missing().collect();
            // The most frequent value that is not missing (missing ones stay themselves).
            let most = c
                .values
                .values()
                .max_by_key(|&(v, n)| (n, std::cmp::Reverse(v)))
                .or_else(|| values.first().copied())
                .map_or("", |(v, _)| v);
            let example = builder
                .rows(&values)
                .find(|row| row.first().is_some_and(|v| v == most))
                .map(|row| {
                    row.iter()
                        .map(|v| crate::error::shown(v))
                        .collect::<Vec<_>>()
                        .join(" -> ")
                })
                .unwrap_or_default();
            let hierarchy = format!("{words}, e.g. {example}");
            // The levels of the file it writes: fixed by the builder, or (a mask without a
            // length) by the longest value, as the first row shows.
            let levels = match builder.levels() {
                Some(l) => l,
                None => {
                    let values: Vec<(&str, u64)> = c.values_and_missing().collect();
                    let width = builder.rows(&values).next().map_or(2, |row| row.len());
                    width
                }
            };
            // Unique among this config's files: a name taken (two columns of one name, or
            // names equal once made safe or cut) gets the column's index, and a counter if a
            // column is named like that too.
            let base = file_name(&c.name);
            let mut file = format!("hierarchy_{base}.csv");
            let mut n = 1;
            while files.contains(&file) {
                file = match n {
                    1 => format!("hierarchy_{base}_{}.csv", c.index),
                    n => format!("hierarchy_{base}_{}_{n}.csv", c.index),
                };
                n += 1;
            }
            files.insert(file.clone());
            built.push(Built {
                column: c.index,
                file,
                description: builder.describe(),
                builder,
                levels,
                hierarchy,
                qi,
            });
        }
        Ok(built)
    }

    /// The text of `config.xml`.
    fn config_xml(
        &self,
        read: &Reading,
        proposal: &Proposal,
        built: &[Built],
        search: &Search,
    ) -> Result<String> {
        let a = &self.args;
        let profile = read.profile;
        let esc = attribute;
        let input = relative(&a.dir, &a.data)?;
        let stem = a
            .data
            .file_stem()
            .map_or("data".into(), |s| s.to_string_lossy().into_owned());
        let ext = a
            .data
            .extension()
            .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
        let separator = if self.separator == "\t" {
            "\\t".to_string()
        } else {
            self.separator.clone()
        };
        let lattice = propose::size_text(search.size);
        let left_out: Vec<usize> = proposal.left_out().collect();
        let mut x = String::new();
        x.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        x.push_str(&comment(&format!(
            "written by anonbox init from {}: {} records, {} columns. Edit the roles and \
             hierarchies, then run: anonbox -config config.xml {} -k 5",
            a.data.display(),
            profile.records,
            profile.columns.len(),
            search.flags()
        )));
        let (method, time_limit) = (search.method.name(), search.time_limit);
        x.push_str(&comment(&format!(
            "suppression: at most 5 % of the records may be suppressed; lattice: {lattice} \
             transformations{}{}{}",
            match time_limit {
                None => String::new(),
                Some(t) => format!(
                    " (more than Flash proves in seconds: Optimal releases the best found in \
                     {t} s, with a proven bound in the report; raise timeLimit for a better \
                     one)"
                ),
            },
            match &proposal.bounded {
                None => String::new(),
                Some(b) => format!(". {b}"),
            },
            if left_out.is_empty() {
                String::new()
            } else {
                format!(
                    ". {} quasi-identifiers were left out and {} kept (each comment says why); \
                     those left out are under <id>, removed from the release (released as they \
                     are, they could single records out again beside the generalized ones). \
                     To release one generalized, write its hierarchy with anonbox hierarchy \
                     and move its <att> into <qid> in place of another",
                    left_out.len(),
                    built.iter().filter(|b| b.qi).count()
                )
            }
        )));
        x.push_str(&format!(
            "<config method=\"{method}\" k=\"5\" suppression=\"0.05\"{}>\n",
            time_limit.map_or(String::new(), |t| format!(" timeLimit=\"{t}\""))
        ));
        if let Some(guessed) = &read.guessed {
            x.push_str(&format!(
                "  {}",
                comment(&format!(
                    "encoding: the file is not UTF-8 ({guessed}): read as {} (Latin-1); the \
                     hierarchy files and the release are written in it. If the file is in \
                     another encoding, set it here and run anonbox init again with that \
                     encoding",
                    read.encoding.name()
                ))
            ));
        }
        x.push_str(&format!(
            "  <input filename=\"{}\" separator=\"{}\"{} unknown=\"keep\"{}/>\n",
            esc(&input),
            esc(&separator),
            if read.header { " header=\"true\"" } else { "" },
            if crate::io::encoding::is_utf8(read.encoding) {
                String::new()
            } else {
                format!(" encoding=\"{}\"", read.encoding.name())
            }
        ));
        x.push_str(&format!(
            "  <output filename=\"{}\"/>\n",
            esc(&format!("{stem}-anonymized{ext}"))
        ));
        let att = |i: usize, extra: &str| {
            let name = &profile.columns[i].name;
            // XML 1.0 has no way to write most control characters, even as references: such a
            // name is left out (the index alone names the column).
            if read.header && name.chars().all(xml_char) {
                format!("<att index=\"{i}\" name=\"{}\"{extra}/>", esc(name))
            } else {
                format!("<att index=\"{i}\"{extra}/>")
            }
        };
        // Identifiers, and the quasi-identifiers left out: both removed from the release.
        let ids: Vec<usize> = (0..proposal.columns.len())
            .filter(|&i| matches!(proposal.columns[i].role, Role::Identifier | Role::LeftOut))
            .collect();
        if !ids.is_empty() {
            x.push_str("  <id>\n");
            for &i in &ids {
                let c = &profile.columns[i];
                x.push_str(&format!(
                    "    {}",
                    comment(&format!("{}: {}", c.name, proposal.columns[i].line(None)))
                ));
                x.push_str(&format!("    {}\n", att(i, "")));
            }
            x.push_str("  </id>\n");
        }
        x.push_str("  <qid>\n");
        for b in built.iter().filter(|b| b.qi) {
            let c = &profile.columns[b.column];
            x.push_str(&format!(
                "    {}",
                comment(&format!(
                    "{}: {}; built by: {}",
                    c.name,
                    proposal.columns[b.column].line(Some(&b.hierarchy)),
                    b.description
                ))
            ));
            x.push_str(&format!(
                "    {}\n",
                att(b.column, &format!(" hierarchy=\"{}\"", esc(&b.file)))
            ));
        }
        x.push_str("  </qid>\n");
        let sensitive: Vec<(usize, usize)> = proposal
            .columns
            .iter()
            .enumerate()
            .filter_map(|(i, p)| match p.role {
                Role::Sensitive { l } => Some((i, l)),
                _ => None,
            })
            .collect();
        if !sensitive.is_empty() {
            x.push_str("  <sens>\n");
            for &(i, _) in &sensitive {
                x.push_str(&format!(
                    "    {}",
                    comment(&format!(
                        "{}: {}",
                        profile.columns[i].name,
                        proposal.columns[i].line(None)
                    ))
                ));
                let file = built
                    .iter()
                    .find(|b| b.column == i)
                    .map_or(String::new(), |b| {
                        format!(" hierarchy=\"{}\"", esc(&b.file))
                    });
                x.push_str(&format!("    {}\n", att(i, &file)));
            }
            x.push_str("  </sens>\n");
            x.push_str(&format!(
                "  {}",
                comment(&format!(
                    "privacy: every class of at least {} records, and the sensitive \
                     attributes diverse in every class (raise l for more protection; a run \
                     that finds no release names the model to relax)",
                    propose::K
                ))
            ));
            x.push_str("  <privacy>\n");
            x.push_str(&format!("    <k-anonymity k=\"{}\"/>\n", propose::K));
            for &(i, l) in &sensitive {
                // The attribute by its name, which XML may be unable to hold: then the only
                // sensitive attribute goes without (the config reader takes it), and several
                // cannot be told apart.
                let name = &profile.columns[i].name;
                let attribute = if read.header && name.chars().all(xml_char) {
                    format!(" attribute=\"{}\"", esc(name))
                } else if sensitive.len() == 1 {
                    String::new()
                } else {
                    return Err(Error::in_file(
                        &a.data,
                        format!(
                            "column {i}, a sensitive attribute, has a name XML cannot hold \
                             ({}): rename it in the header line and run init again",
                            crate::error::shown(name)
                        ),
                    ));
                };
                x.push_str(&format!(
                    "    <distinct-l-diversity{attribute} l=\"{l}\"/>\n"
                ));
            }
            x.push_str("  </privacy>\n");
        }
        for (i, p) in proposal.columns.iter().enumerate() {
            if p.role == Role::Insensitive {
                x.push_str(&format!(
                    "  {}",
                    comment(&format!(
                        "{} (column {i}): {}; released as it is",
                        profile.columns[i].name,
                        p.line(None)
                    ))
                ));
            }
        }
        x.push_str("</config>\n");
        Ok(x)
    }

    /// What init decided, for the user.
    fn print(
        &self,
        out: &mut dyn Write,
        read: &Reading,
        proposal: &Proposal,
        built: &[Built],
        search: &Search,
        seconds: f64,
    ) -> std::io::Result<()> {
        let a = &self.args;
        let profile = read.profile;
        if let Some(guessed) = &read.guessed {
            writeln!(
                out,
                "{}: not UTF-8 ({guessed}): read as {} (Latin-1); give --encoding if it is \
                 another",
                a.data.display(),
                read.encoding.name()
            )?;
        }
        let header = match (&read.header_said, read.header) {
            (None, _) => String::new(),
            (Some(why), true) => format!(
                " (its first line read as the header: {why}; give --no-header if it is a \
                 record)"
            ),
            (Some(why), false) => {
                format!(" (no header: {why}; give --header if the first line names the columns)")
            }
        };
        writeln!(
            out,
            "{}: {} records, {} columns{header}, profiled in {seconds:.2} s",
            a.data.display(),
            profile.records,
            profile.columns.len(),
        )?;
        let mut files: Vec<Option<&Built>> = vec![None; profile.columns.len()];
        for b in built {
            files[b.column] = Some(b);
        }
        for (c, p) in profile.columns.iter().zip(&proposal.columns) {
            let built = files[c.index];
            let file = built.map_or(String::new(), |b| {
                format!(" -> {}", a.dir.join(&b.file).display())
            });
            writeln!(
                out,
                "  {:>3} {}: {}{file}",
                c.index,
                crate::error::shown(&c.name),
                p.line(built.map(|b| b.hierarchy.as_str()))
            )?;
        }
        let flagged: Vec<String> = profile
            .columns
            .iter()
            .zip(&proposal.columns)
            .filter_map(|(c, p)| {
                let sh = p.safe_harbor.as_ref()?;
                Some(format!("{} ({})", crate::error::shown(&c.name), sh.letter))
            })
            .collect();
        if !flagged.is_empty() {
            writeln!(
                out,
                "HIPAA Safe Harbor identifiers: {}; each line above says its treatment",
                flagged.join(", ")
            )?;
        }
        let sensitive: Vec<String> = profile
            .columns
            .iter()
            .zip(&proposal.columns)
            .filter_map(|(c, p)| match p.role {
                Role::Sensitive { l } => Some(format!(
                    "distinct {l}-diversity of {}",
                    crate::error::shown(&c.name)
                )),
                _ => None,
            })
            .collect();
        writeln!(
            out,
            "privacy: {}-anonymity{}",
            propose::K,
            sensitive
                .iter()
                .map(|s| format!(", {s}"))
                .collect::<String>()
        )?;
        if let Some(bounded) = &proposal.bounded {
            writeln!(out, "{bounded}")?;
        }
        let left_out: Vec<usize> = proposal.left_out().collect();
        if !left_out.is_empty() {
            const NAMED: usize = 10;
            let names: Vec<String> = left_out
                .iter()
                .take(NAMED)
                .map(|&i| crate::error::shown(&profile.columns[i].name))
                .collect();
            let more = match left_out.len().saturating_sub(NAMED) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            writeln!(
                out,
                "left out of the quasi-identifiers: {} columns ({}{more}), removed from the \
                 release as identifiers are (each one's line says why); {} quasi-identifiers \
                 kept",
                left_out.len(),
                names.join(", "),
                built.iter().filter(|b| b.qi).count()
            )?;
        }
        let config = a.dir.join("config.xml");
        writeln!(
            out,
            "lattice: {} transformations; wrote {} and {} hierarchy files. Run:",
            propose::size_text(search.size),
            config.display(),
            built.len()
        )?;
        writeln!(
            out,
            "  anonbox -config {} {} -k 5{}",
            config.display(),
            search.flags(),
            line_flag(a.max_line_length)
        )
    }
}

/// The run's `-maxLineLength` for a limit init was given above the default: the file init read
/// in full has lines the run would otherwise refuse, and the printed command must run as printed.
fn line_flag(max_line_length: Option<usize>) -> String {
    match max_line_length {
        Some(n) if n > crate::io::source::DEFAULT_MAX_LINE => format!(" -maxLineLength {n}"),
        _ => String::new(),
    }
}

/// An XML attribute value: `&`, `<`, `>`, quotes escaped, and tab, line feed and carriage
/// return as character references, which a reader keeps (written raw, XML's attribute-value
/// normalization reads them back as spaces, and a column name would no longer match).
fn attribute(s: &str) -> String {
    let escaped = quick_xml::escape::escape(s);
    if !escaped.contains(['\t', '\n', '\r']) {
        return escaped.into_owned();
    }
    escaped
        .replace('\t', "&#9;")
        .replace('\n', "&#10;")
        .replace('\r', "&#13;")
}

/// A character XML 1.0 can hold (escaped as [`attribute`] does).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' '..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// A one-line XML comment: control characters shown escaped (`\t`, `\n`, `\u{1b}`), and `--`
/// (which cannot appear inside one) split.
fn comment(text: &str) -> String {
    let mut t = String::with_capacity(text.len());
    for c in text.chars() {
        crate::error::push_escaped(&mut t, c);
    }
    while t.contains("--") {
        t = t.replace("--", "- -");
    }
    format!("<!-- {t} -->\n")
}

/// Most characters of a column name kept in its hierarchy file's name: with `hierarchy_`, an
/// index and `.csv`, and the temporary (`.NAME.XXXXXX.anonbox.tmp`) and set-aside (`.NAME.PID.N.old`)
/// names made from it, a file name stays well under the 255 bytes file systems allow.
pub const NAME_IN_FILE: usize = 100;

/// A column name made safe for a file name (ASCII letters, digits, `-_.`; the rest `_`), cut to
/// [`NAME_IN_FILE`] characters.
fn file_name(name: &str) -> String {
    let s: String = name
        .chars()
        .take(NAME_IN_FILE)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        format!("_{s}")
    } else {
        s
    }
}

/// The path of `file` relative to folder `dir`, as the config's `<input filename>` wants it;
/// absolute when the two share no root. Both are compared as real paths, links resolved
/// ([`real`]): the reader joins the relative path to the config's folder and the system walks
/// `..` from where a link leads, not from where it sits.
fn relative(dir: &Path, file: &Path) -> Result<String> {
    let (d, f) = (real(dir)?, real(file)?);
    let dc: Vec<Component> = d.components().collect();
    let fc: Vec<Component> = f.components().collect();
    let common = dc.iter().zip(&fc).take_while(|(a, b)| a == b).count();
    // Only the root in common (another tree, such as /tmp and /home): absolute is clearer.
    if common <= 1 {
        return Ok(f.display().to_string());
    }
    let mut rel = PathBuf::new();
    for _ in common..dc.len() {
        rel.push("..");
    }
    for c in &fc[common..] {
        rel.push(c);
    }
    Ok(rel.display().to_string())
}

/// `p` absolute and through its links: canonical if it exists; else its longest existing
/// ancestor canonical, then the rest normalized lexically (a folder not created yet).
fn real(p: &Path) -> Result<PathBuf> {
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| Error::io(".", e))?
            .join(p)
    };
    let mut base = p.as_path();
    let mut rest: Vec<Component> = Vec::new();
    let mut out = loop {
        if let Ok(real) = std::fs::canonicalize(base) {
            break real;
        }
        match (base.parent(), base.components().next_back()) {
            (Some(parent), Some(last)) => {
                rest.push(last);
                base = parent;
            }
            _ => break PathBuf::new(),
        }
    };
    for c in rest.into_iter().rev() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_raised_line_limit_goes_into_the_printed_command() {
        let default = crate::io::source::DEFAULT_MAX_LINE;
        assert_eq!(line_flag(None), "");
        assert_eq!(line_flag(Some(1 << 20)), "");
        assert_eq!(line_flag(Some(default)), "");
        assert_eq!(
            line_flag(Some(default + 1)),
            format!(" -maxLineLength {}", default + 1)
        );
    }

    #[test]
    fn relative_paths_and_names() {
        assert_eq!(
            relative(Path::new("/a/b/out"), Path::new("/a/b/data.csv")).unwrap(),
            "../data.csv"
        );
        assert_eq!(
            relative(Path::new("/a"), Path::new("/a/x/d.csv")).unwrap(),
            "x/d.csv"
        );
        assert_eq!(
            relative(Path::new("/tmp/x"), Path::new("/home/d.csv")).unwrap(),
            "/home/d.csv"
        );
        assert_eq!(file_name("marital status/2"), "marital_status_2");
        assert_eq!(comment("a--b\nc\td"), "<!-- a- -b\\nc\\td -->\n");
        assert_eq!(attribute("a\tb\n<c>\r"), "a&#9;b&#10;&lt;c&gt;&#13;");
        assert_eq!(file_name(&"é".repeat(300)), "_".repeat(NAME_IN_FILE));
    }

    /// `--dir` through a link: the path is relative to where the link leads (the config reader
    /// joins it to the link's path, and the system walks `..` from the link's target).
    #[cfg(unix)]
    #[test]
    fn relative_paths_follow_links() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        std::fs::create_dir_all(root.join("elsewhere/deep")).unwrap();
        std::fs::write(root.join("tab.csv"), "a\n").unwrap();
        std::os::unix::fs::symlink("elsewhere/deep", root.join("rel")).unwrap();
        let rel = relative(&root.join("rel"), &root.join("tab.csv")).unwrap();
        assert_eq!(rel, "../../tab.csv");
        assert!(root.join("rel").join(&rel).is_file());
        // A folder not created yet under the link.
        let rel = relative(&root.join("rel/new"), &root.join("tab.csv")).unwrap();
        assert_eq!(rel, "../../../tab.csv");
    }
}
