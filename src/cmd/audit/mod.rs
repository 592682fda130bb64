//! `anonbox audit`: the privacy figures of a delimited file as it stands.
//!
//! Reads any delimited file (an input before anonymization, or an output after it), groups its
//! records into equivalence classes by the quasi-identifier columns given, and prints what an
//! attacker faces: k (the smallest class), the classes and the smallest ones, the records at risk,
//! and with a sensitive column its distinct, entropy and recursive (c,l) l, its t for each ground
//! distance, and with a research subset the δ bounds. Thresholds given as flags are checked class
//! by class; the exit status says whether they all hold (0), one fails (1) (the [`Verdict`]), or
//! the input was bad (2, decided by `main` from the error).
//!
//! Layout: this file parses the flags ([`AuditArgs`]), reads the file with [`crate::io`] into
//! [`figures::Classes`], and prints; [`figures`] computes with the shared models of
//! [`crate::privacy`] (exact flavor), so audit and engines cannot disagree on a definition.
//!
//! The file is taken as it stands: every row is a record (`?` is a value like any other, where
//! the anonymizer's input skips such rows as the toolbox does), values are compared as text (a
//! field that is not UTF-8 is an error, never replaced), and a file without records is bad input:
//! an audit that passed on an empty or truncated release would be worse than none.
//!
//! Records whose quasi-identifiers are all the suppression marker (`*`, or one per column, as a
//! toolbox config's VGH roots) are suppressed records of an anonymized output: they are left out
//! of the classes (as ARX reports classes) unless `--include-suppressed`, but their sensitive
//! values still count in the table's distribution that t-closeness compares with (as in ARX).

pub mod figures;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Parser;
use rustc_hash::FxHashMap;

use crate::data::{Dictionary, Interner};
use crate::hierarchy::Hierarchy;
use crate::io::{trim, Format};
use crate::job::TDistance;
use crate::risk::analysis::RiskFigures;
use crate::risk::attributes::AttributeRisks;
use crate::{Error, Result};
use figures::{Check, Classes, Figures, Params, Thresholds};

/// The flags of `anonbox audit`.
#[derive(Debug, Parser)]
#[command(
    name = "anonbox audit",
    about = "Print the privacy figures of a delimited file and check thresholds",
    long_about = "Print the privacy figures of a delimited file as it stands (k, classes, records \
                  at risk, l-diversity, t-closeness, delta-presence) and check thresholds.\n\n\
                  Exit status: 0 every threshold given holds, 1 one fails, 2 bad input.",
    disable_version_flag = true
)]
pub struct AuditArgs {
    /// The delimited file to audit
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Quasi-identifier columns: header names or 0-based indexes, comma-separated
    #[arg(long, value_name = "COLS", value_delimiter = ',', required = true)]
    pub qi: Vec<String>,
    /// Sensitive column (name or index)
    #[arg(long, value_name = "COL")]
    pub sensitive: Option<String>,
    /// ARX hierarchy file of the sensitive attribute (`value;level1;...`): hierarchical distance
    #[arg(long, value_name = "FILE", requires = "sensitive")]
    pub hierarchy: Option<PathBuf>,
    /// Field separator (one character or a string such as ", ")
    #[arg(long, value_name = "SEP", default_value = ",")]
    pub separator: String,
    /// The first line is data, not a header (columns are then indexes)
    #[arg(long)]
    pub no_header: bool,
    /// Text encoding of FILE and of --hierarchy: a WHATWG label such as windows-1252 (latin1),
    /// iso-8859-15, shift_jis [default: utf-8]
    #[arg(long, value_name = "LABEL", value_parser = crate::io::encoding::for_label)]
    pub encoding: Option<&'static crate::io::encoding::Encoding>,
    /// The value of a suppressed quasi-identifier; repeated, one per --qi column in order (a
    /// toolbox release suppresses to each attribute's VGH root: `[0:100)`, `[0:1]`)
    #[arg(long, value_name = "STR", default_value = "*", action = clap::ArgAction::Append)]
    pub suppressed: Vec<String>,
    /// Group records whose quasi-identifiers are all suppressed as a class of their own
    #[arg(long)]
    pub include_suppressed: bool,
    /// Research subset for delta-presence: a file of the same layout, whose records count
    /// toward the classes with the same quasi-identifiers
    #[arg(long, value_name = "FILE", conflicts_with = "subset_column")]
    pub subset: Option<PathBuf>,
    /// Research subset for delta-presence: a 0/1 column of the file
    #[arg(long, value_name = "COL")]
    pub subset_column: Option<String>,
    /// Check k-anonymity: every class has at least K records
    #[arg(short = 'k', long = "k", value_name = "K")]
    pub k: Option<u64>,
    /// Check distinct l-diversity (and, with -c, recursive (c,l)-diversity)
    #[arg(short = 'l', long = "l", value_name = "L", requires = "sensitive")]
    pub l: Option<f64>,
    /// Check entropy l-diversity
    #[arg(long = "entropy-l", value_name = "L", requires = "sensitive")]
    pub entropy_l: Option<f64>,
    /// c of recursive (c,l)-diversity: prints the recursive l for this c; with -l, checks it
    #[arg(short = 'c', long = "c", value_name = "C", requires = "sensitive")]
    pub c: Option<f64>,
    /// Check t-closeness with the distance of --distance
    #[arg(short = 't', long = "t", value_name = "T", requires = "sensitive")]
    pub t: Option<f64>,
    /// Ground distance that -t checks
    #[arg(long, value_enum, default_value = "equal")]
    pub distance: DistanceArg,
    /// Check delta-presence: every class's subset share is at least this
    #[arg(long, value_name = "D")]
    pub dmin: Option<f64>,
    /// Check delta-presence: every class's subset share is at most this
    #[arg(long, value_name = "D")]
    pub dmax: Option<f64>,
    /// Records in classes smaller than this are at risk [default: -k, else 2]
    #[arg(long, value_name = "K")]
    pub risk_k: Option<u64>,
    /// Prosecutor risk (1 / class size) above which a record counts as at risk in the
    /// re-identification figures (0..1)
    #[arg(long, value_name = "RISK", default_value_t = 0.2)]
    pub risk_threshold: f64,
    /// Population the file is a sample of, for the journalist, marketer and population
    /// uniqueness figures: a region (usa, uk, germany, ...) or a number of people
    /// [default: usa]
    #[arg(long, value_name = "REGION|N", value_parser = parse_population)]
    pub population: Option<crate::privacy::population::Population>,
    /// Check that at most this share of the records is at risk (0..1)
    #[arg(long, value_name = "SHARE")]
    pub max_risk: Option<f64>,
    /// How many of the smallest classes to list
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub smallest: usize,
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
    /// Longest line (or quoted record) of FILE, --hierarchy and --subset, in bytes or with K,
    /// M, G (KiB, MiB, GiB); a longer one is an error [default: 64M]
    #[arg(long, value_name = "SIZE", value_parser = crate::io::source::parse_size)]
    pub max_line_length: Option<usize>,
}

fn parse_population(
    text: &str,
) -> std::result::Result<crate::privacy::population::Population, String> {
    crate::privacy::population::Population::parse(text).map_err(|e| e.to_string())
}

/// Ground distance of `--distance`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DistanceArg {
    Equal,
    Ordered,
    Hierarchical,
}

impl From<DistanceArg> for TDistance {
    fn from(d: DistanceArg) -> TDistance {
        match d {
            DistanceArg::Equal => TDistance::Equal,
            DistanceArg::Ordered => TDistance::Ordered,
            DistanceArg::Hierarchical => TDistance::Hierarchical,
        }
    }
}

/// What an audit found of the thresholds given: exit status 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every threshold holds (or none was given, or `--help` was asked for).
    Holds,
    /// At least one threshold fails.
    Fails,
}

/// Runs `anonbox audit` with the arguments after `audit`, printing on `out`. Errors are bad
/// input (exit status 2, see [`crate::cmd::Stage::Audit`]).
pub fn run(args: &[String], out: &mut dyn Write) -> Result<Verdict> {
    let Some(a) = crate::cli::parse_subcommand::<AuditArgs>("audit", args)? else {
        let help = <AuditArgs as clap::CommandFactory>::command().render_long_help();
        write!(out, "{help}").map_err(|e| Error::io("<stdout>", e))?;
        return Ok(Verdict::Holds);
    };
    Ok(if audit(&a, out)? {
        Verdict::Holds
    } else {
        Verdict::Fails
    })
}

/// Validates the numbers of the flags.
fn validate(a: &AuditArgs) -> Result<()> {
    let usage = |m: String| Err(Error::Usage(format!("audit: {m}")));
    if a.suppressed.len() > 1 && a.suppressed.len() != a.qi.len() {
        return usage(format!(
            "--suppressed given {} times for {} --qi columns: give it once (for every column) or \
             once per column, in --qi order",
            a.suppressed.len(),
            a.qi.len()
        ));
    }
    if a.k == Some(0) {
        return usage("-k must be at least 1".into());
    }
    for (flag, v) in [("-l", a.l), ("--entropy-l", a.entropy_l)] {
        if let Some(v) = v {
            if !(v >= 1.0 && v.is_finite()) {
                return usage(format!("{flag} must be a number >= 1, not {v}"));
            }
        }
    }
    if let Some(c) = a.c {
        if !(c > 0.0 && c.is_finite()) {
            return usage(format!("-c must be a positive number, not {c}"));
        }
    }
    for (flag, v) in [
        ("-t", a.t),
        ("--dmin", a.dmin),
        ("--dmax", a.dmax),
        ("--max-risk", a.max_risk),
        ("--risk-threshold", Some(a.risk_threshold)),
    ] {
        if let Some(v) = v {
            if !(0.0..=1.0).contains(&v) {
                return usage(format!("{flag} must lie in [0, 1], not {v}"));
            }
        }
    }
    if let (Some(lo), Some(hi)) = (a.dmin, a.dmax) {
        if lo > hi {
            return usage(format!("--dmin {lo} is above --dmax {hi}"));
        }
    }
    if (a.dmin.is_some() || a.dmax.is_some()) && a.subset.is_none() && a.subset_column.is_none() {
        return usage("--dmin/--dmax need a research subset (--subset or --subset-column)".into());
    }
    if a.risk_k == Some(0) {
        return usage("--risk-k must be at least 1".into());
    }
    if a.t.is_some() && a.distance == DistanceArg::Hierarchical && a.hierarchy.is_none() {
        return usage("--distance hierarchical needs --hierarchy".into());
    }
    if a.qi.iter().any(|q| q.trim().is_empty()) {
        return usage("--qi has an empty column name".into());
    }
    Ok(())
}

/// Resolves a column given by name (with a header) or 0-based index.
fn column(
    spec: &str,
    header: Option<&[String]>,
    width: usize,
    flag: &str,
    file: &Path,
) -> Result<usize> {
    crate::io::column_index(spec, header, width, file)
        .map_err(|m| Error::Usage(format!("audit: {flag}: {m}")))
}

/// The file as read: classes plus what printing and the distances need.
struct Loaded {
    classes: Classes,
    qi_names: Vec<String>,
    qi_dicts: Vec<Dictionary>,
    sensitive_name: Option<String>,
    /// Numeric value of each sensitive code, if every value in the file is a number.
    numeric: Option<Vec<f64>>,
    hierarchy: Option<Hierarchy>,
    blank: u64,
}

fn load(a: &AuditArgs) -> Result<Loaded> {
    // Every row counts, `?` included: the file is audited as it stands (another tool's release
    // may keep `?` for unknown values; dropping those rows would overstate k).
    let encoding = a.encoding.unwrap_or(encoding_rs::UTF_8);
    let max_line = a
        .max_line_length
        .unwrap_or(crate::io::source::DEFAULT_MAX_LINE);
    let format = Format::new(&crate::io::separator_arg(&a.separator), !a.no_header)?
        .unknown_kept(true)
        .encoded(encoding)
        .max_line(max_line);
    let mut reader = format.open(&a.file)?;
    let mut rec = csv::ByteRecord::new();
    let header: Option<Vec<String>> = reader.header().map(|h| {
        h.iter()
            .map(|f| String::from_utf8_lossy(trim(f)).into_owned())
            .collect()
    });
    // Without a header the width is known after the first row.
    let mut have_row = reader.next_row(&mut rec)?;
    if !have_row {
        return Err(Error::in_file(
            &a.file,
            "no records to audit (the file is empty or a header only)",
        ));
    }
    let width = header.as_ref().map_or(rec.len(), Vec::len);
    let col = |spec: &str, flag: &str| column(spec, header.as_deref(), width, flag, &a.file);
    let qi: Vec<usize> = a.qi.iter().map(|s| col(s, "--qi")).collect::<Result<_>>()?;
    let sensitive = a
        .sensitive
        .as_deref()
        .map(|s| col(s, "--sensitive"))
        .transpose()?;
    let subset_col = a
        .subset_column
        .as_deref()
        .map(|s| col(s, "--subset-column"))
        .transpose()?;
    let name = |i: usize| header.as_ref().map_or(format!("att{i}"), |h| h[i].clone());
    let hierarchy = match (&a.hierarchy, sensitive) {
        (Some(path), Some(s)) => Some(crate::hierarchy::file::load(
            path,
            &name(s),
            encoding,
            max_line,
        )?),
        _ => None,
    };
    let hier_codes: Option<FxHashMap<&str, u32>> = hierarchy.as_ref().map(|h| {
        h.labels(0)
            .iter()
            .enumerate()
            .map(|(i, v)| (v, i as u32))
            .collect()
    });
    let mut qi_dicts = vec![Dictionary::new(); qi.len()];
    let mut sens_dict = Dictionary::new();
    let mut classes = Classes::new(qi.len());
    let mut key = vec![0u32; qi.len()];
    // One marker per quasi-identifier (validated: one for all, or one each).
    let markers: Vec<&[u8]> = (0..qi.len())
        .map(|j| a.suppressed[j.min(a.suppressed.len() - 1)].as_bytes())
        .collect();
    let all_suppressed =
        |rec: &csv::ByteRecord| qi.iter().zip(&markers).all(|(&i, m)| trim(&rec[i]) == *m);
    // Values are grouped as text: a field that is not UTF-8 is an error (read lossily, two
    // different byte strings could fall into one class).
    let at = |line: u64, i: usize| move |m: String| Error::at(&a.file, line, Some(name(i)), m);
    while have_row {
        let line = reader.line();
        let suppressed = !a.include_suppressed && all_suppressed(&rec);
        if !suppressed {
            for (j, &i) in qi.iter().enumerate() {
                key[j] = qi_dicts[j].intern(field(&rec, i).map_err(at(line, i))?).0;
            }
        }
        let s = match sensitive {
            None => None,
            Some(i) => {
                let v = field(&rec, i).map_err(at(line, i))?;
                Some(match &hier_codes {
                    Some(map) => *map.get(v).ok_or_else(|| {
                        Error::at(
                            &a.file,
                            line,
                            Some(name(i)),
                            format!(
                                "value '{v}' is not in the hierarchy file {}",
                                a.hierarchy
                                    .as_ref()
                                    .map_or(String::new(), |p| p.display().to_string())
                            ),
                        )
                    })?,
                    None => sens_dict.intern(v).0,
                })
            }
        };
        let in_subset = match subset_col {
            None => false,
            Some(i) => {
                let raw = trim(&rec[i]);
                crate::data::subset::parse_flag(raw).ok_or_else(|| {
                    Error::at(
                        &a.file,
                        line,
                        Some(name(i)),
                        format!(
                            "subset flag '{}' is neither 1 nor 0",
                            String::from_utf8_lossy(raw)
                        ),
                    )
                })?
            }
        };
        classes.add((!suppressed).then_some(&key[..]), s, in_subset);
        have_row = reader.next_row(&mut rec)?;
    }
    let stats = reader.stats();
    if let Some(path) = &a.subset {
        let mut sub = format.open(path)?;
        while sub.next_row(&mut rec)? {
            let line = sub.line();
            if rec.len() != width {
                return Err(Error::at(
                    path,
                    line,
                    None,
                    format!(
                        "expected {width} fields as in {}, found {}",
                        a.file.display(),
                        rec.len()
                    ),
                ));
            }
            if !a.include_suppressed && all_suppressed(&rec) {
                continue;
            }
            let mut found = true;
            for (j, &i) in qi.iter().enumerate() {
                let v = field(&rec, i).map_err(|m| Error::at(path, line, Some(name(i)), m))?;
                match qi_dicts[j].code(v) {
                    Some(c) => key[j] = c,
                    None => found = false,
                }
            }
            if !found || !classes.add_subset(&key) {
                return Err(Error::at(
                    path,
                    line,
                    None,
                    format!(
                        "this subset record matches no class of {} (its quasi-identifiers do not \
                         occur there)",
                        a.file.display()
                    ),
                ));
            }
        }
    }
    let numeric = match (sensitive, &hierarchy) {
        (None, _) => None,
        (Some(_), Some(h)) => parse_numbers(h.labels(0), &classes),
        (Some(_), None) => parse_numbers(sens_dict.values(), &classes),
    };
    Ok(Loaded {
        classes,
        qi_names: qi.iter().map(|&i| name(i)).collect(),
        qi_dicts,
        sensitive_name: sensitive.map(name),
        numeric,
        hierarchy,
        blank: stats.blank_lines,
    })
}

/// Field `i` of `rec`, trimmed, as text.
fn field(rec: &csv::ByteRecord, i: usize) -> std::result::Result<&str, String> {
    crate::io::utf8_field(trim(&rec[i]))
}

/// The numeric value of each sensitive code, if every value present in the file is a finite
/// number (codes absent from the file get NaN and are never ordered).
fn parse_numbers(labels: &Interner, classes: &Classes) -> Option<Vec<f64>> {
    let present = classes.table_codes();
    let mut values = vec![f64::NAN; labels.len()];
    for &c in present {
        let v: f64 = labels.get(c).trim().parse().ok()?;
        if !v.is_finite() {
            return None;
        }
        values[c as usize] = v;
    }
    Some(values)
}

/// The audit proper: read, compute, check, print.
fn audit(a: &AuditArgs, out: &mut dyn Write) -> Result<bool> {
    validate(a)?;
    let loaded = load(a)?;
    let risk_k = a.risk_k.or(a.k).unwrap_or(2);
    if a.t.is_some() && a.distance == DistanceArg::Ordered && loaded.numeric.is_none() {
        return Err(Error::Usage(format!(
            "audit: --distance ordered needs numeric values in column '{}'",
            loaded.sensitive_name.as_deref().unwrap_or("")
        )));
    }
    let params = Params {
        risk_k,
        risk_threshold: a.risk_threshold,
        smallest: a.smallest,
        sensitive: loaded.sensitive_name.clone(),
        c: a.c,
        numeric: loaded.numeric.as_deref(),
        hierarchy: loaded.hierarchy.as_ref(),
        subset: a.subset.is_some() || a.subset_column.is_some(),
    };
    let invalid = |m: String| Error::Invalid(format!("audit: {m}"));
    let mut figures = Figures::compute(&loaded.classes, &params).map_err(invalid)?;
    for s in &mut figures.smallest {
        s.values = loaded
            .classes
            .key(s.class)
            .iter()
            .zip(&loaded.qi_dicts)
            .map(|(&c, d)| d.value(c).to_string())
            .collect();
    }
    let delta = (a.dmin.is_some() || a.dmax.is_some())
        .then(|| (a.dmin.unwrap_or(0.0), a.dmax.unwrap_or(1.0)));
    let thresholds = Thresholds {
        k: a.k,
        l: a.l,
        entropy_l: a.entropy_l,
        c: a.c,
        t: a.t.map(|t| (t, a.distance.into())),
        delta,
        max_risk: a.max_risk,
    };
    let checks = figures::checks(&loaded.classes, &params, &thresholds).map_err(invalid)?;
    let holds = checks.iter().all(|c| c.holds);
    let population = a
        .population
        .clone()
        .unwrap_or_else(crate::risk::analysis::default_population);
    let analysis = RiskFigures::of_sizes(
        loaded.classes.sizes().iter().map(|&s| (s, 1)),
        &population,
        a.risk_threshold,
    );
    // The classes are the file's frequency set: each distinct tuple with its records.
    let tuples: Vec<(Vec<u32>, u64)> = (0..loaded.classes.len())
        .map(|c| (loaded.classes.key(c).to_vec(), loaded.classes.sizes()[c]))
        .collect();
    let attributes = AttributeRisks::of_tuples(&loaded.qi_names, &tuples);
    let text = if a.json {
        json(
            a,
            &loaded,
            &figures,
            &checks,
            holds,
            (&population, &analysis, &attributes),
        )
    } else {
        let mut t = text(a, &loaded, &figures, &checks);
        risk_lines(&mut t, &population, &analysis);
        attribute_lines(&mut t, &attributes);
        t
    };
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("<stdout>", e))?;
    Ok(holds)
}

#[derive(serde::Serialize)]
struct JsonReport<'a> {
    file: String,
    quasi_identifiers: &'a [String],
    #[serde(flatten)]
    figures: &'a Figures,
    checks: &'a [Check],
    holds: bool,
    population: &'a crate::privacy::population::Population,
    /// The risk analysis of the classes ([`crate::risk::analysis`]).
    risk_analysis: &'a RiskFigures,
    /// Each quasi-identifier's risk ([`crate::risk::attributes`]).
    attribute_risk: &'a AttributeRisks,
}

fn json(
    a: &AuditArgs,
    l: &Loaded,
    f: &Figures,
    checks: &[Check],
    holds: bool,
    (population, risk_analysis, attribute_risk): (
        &crate::privacy::population::Population,
        &RiskFigures,
        &AttributeRisks,
    ),
) -> String {
    let report = JsonReport {
        file: a.file.display().to_string(),
        quasi_identifiers: &l.qi_names,
        figures: f,
        checks,
        holds,
        population,
        risk_analysis,
        attribute_risk,
    };
    let mut s = serde_json::to_string_pretty(&report).expect("serializable report");
    s.push('\n');
    s
}

/// The risk analysis's lines of the text output (after the checks).
fn risk_lines(
    s: &mut String,
    population: &crate::privacy::population::Population,
    r: &RiskFigures,
) {
    use std::fmt::Write as _;
    let mut row = |label: &str, value: String| {
        let _ = writeln!(s, "{label:<22}{value}");
    };
    row(
        "population",
        format!(
            "{} ({} people; sampling fraction {})",
            population.name,
            population.size,
            num(r.sampling_fraction)
        ),
    );
    row(
        "journalist risk",
        format!(
            "highest {}, average {}, {} of the records at risk",
            num(r.journalist.highest),
            num(r.journalist.average),
            percent(r.journalist.records_at_risk)
        ),
    );
    row("marketer risk", num(r.marketer));
    row(
        "sample uniques",
        format!("{} ({})", r.sample_uniques, percent(r.sample_uniqueness)),
    );
    let p = &r.population_uniques;
    for (name, e) in [
        ("pitman", &p.pitman),
        ("zayatz", &p.zayatz),
        ("snb", &p.snb),
        ("dankar", &p.dankar),
    ] {
        let label = if name == "pitman" {
            "population uniques"
        } else {
            ""
        };
        let value = if e.available {
            format!("{:.0} ({})", e.uniques, percent(e.share))
        } else {
            "no estimate (did not converge)".to_string()
        };
        let pick = if name == "dankar" {
            format!(" [{}]", p.dankar_model.name())
        } else {
            String::new()
        };
        row(label, format!("{name:<7}{value}{pick}"));
    }
}

/// The attribute risks' lines of the text output (after the risk analysis): one a
/// quasi-identifier, names escaped as the other lines show them.
fn attribute_lines(s: &mut String, r: &AttributeRisks) {
    use std::fmt::Write as _;
    let _ = writeln!(
        s,
        "attribute risk        unique alone / needed / in MSUs (up to {}) / distinction / separation",
        r.msu_max_size
    );
    for a in &r.attributes {
        let _ = writeln!(
            s,
            "  {:<20}{} / {} / {} / {} / {}",
            crate::error::shown(&a.name),
            percent(a.unique_alone),
            percent(a.needed),
            percent(a.in_msus),
            num(a.distinction),
            num(a.separation)
        );
    }
}

/// A share as a percentage with two decimals.
fn percent(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// A figure with up to 6 significant decimals, trailing zeros dropped.
fn num(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn text(a: &AuditArgs, l: &Loaded, f: &Figures, checks: &[Check]) -> String {
    use crate::error::shown;
    use std::fmt::Write as _;
    let mut s = String::new();
    let row = |s: &mut String, label: &str, value: String| {
        let _ = writeln!(s, "{label:<22}{value}");
    };
    row(&mut s, "file", a.file.display().to_string());
    // Names and values come from the file: escaped (control characters, line breaks) and cut
    // as messages show them, so that every figure stays on its line.
    let shown_all = |v: &[String]| v.iter().map(|x| shown(x)).collect::<Vec<_>>();
    row(
        &mut s,
        "quasi-identifiers",
        shown_all(&l.qi_names).join(", "),
    );
    row(&mut s, "records", f.records.to_string());
    if l.blank > 0 {
        row(&mut s, "skipped", format!("{} blank lines", l.blank));
    }
    if !a.include_suppressed {
        row(
            &mut s,
            "suppressed",
            format!(
                "{} (every quasi-identifier '{}'; left out of the classes)",
                f.suppressed,
                shown_all(&a.suppressed).join("', '")
            ),
        );
    }
    row(&mut s, "classes", f.classes.to_string());
    let k = if f.classes == 0 {
        "none: every record is suppressed".to_string()
    } else {
        f.k.to_string()
    };
    row(&mut s, "k (smallest class)", k);
    row(&mut s, "average class size", num(f.average_class_size));
    for (i, c) in f.smallest.iter().enumerate() {
        row(
            &mut s,
            if i == 0 { "smallest classes" } else { "" },
            format!("{:>6}  {}", c.size, shown_all(&c.values).join(", ")),
        );
    }
    row(
        &mut s,
        &format!("at risk (class < {})", f.risk.k),
        format!(
            "{} records ({} of all records)",
            f.risk.records,
            percent(f.risk.share)
        ),
    );
    row(
        &mut s,
        "re-identification",
        format!(
            "prosecutor risk: highest {}, average {}, {} of the records in classes above {}",
            num(f.risk.highest),
            num(f.risk.average),
            percent(f.risk.records_at_risk),
            num(f.risk.threshold)
        ),
    );
    if let Some(sf) = &f.sensitive {
        row(
            &mut s,
            "sensitive",
            format!("{} ({} values)", shown(&sf.attribute), sf.values),
        );
        row(&mut s, "  distinct l", sf.distinct_l.to_string());
        row(&mut s, "  entropy l", num(sf.entropy_l));
        if let Some(r) = &sf.recursive {
            row(
                &mut s,
                &format!("  recursive l (c={})", r.c),
                r.l.to_string(),
            );
        }
        row(&mut s, "  t (equal)", num(sf.t_equal));
        if let Some(t) = sf.t_ordered {
            row(&mut s, "  t (ordered)", num(t));
        }
        if let Some(t) = sf.t_hierarchical {
            row(&mut s, "  t (hierarchical)", num(t));
        }
    }
    if let Some(d) = &f.delta {
        row(
            &mut s,
            "delta",
            format!(
                "{} .. {} ({} subset records)",
                num(d.min),
                num(d.max),
                d.subset_records
            ),
        );
    }
    if !checks.is_empty() {
        s.push('\n');
        for c in checks {
            let verdict = if c.holds {
                "holds".to_string()
            } else {
                format!(
                    "FAILS: {} classes, {} records",
                    c.failing_classes, c.failing_records
                )
            };
            let _ = writeln!(s, "{:<40}{verdict}", c.model);
        }
    }
    s
}
