//! `anonbox plan`: what a run with the same flags would do, without running it.
//!
//! The job is built exactly as for a run (`config::build_job`: flags over the config, hierarchy
//! files read, destinations checked), so every flag and config error is the run's, with exit
//! status 2. Then only the first [`FIRST_ROWS`] records of the input are read, through the same
//! encoder as a run ([`read_prefix`]), so a bad value among them is the run's error too (exit 1),
//! and their first record gives each attribute an example with its generalizations. The rest of
//! the input is never read, and nothing is written: not the output, the report or the database,
//! and no temporary file.
//!
//! What is printed, in order: the config and the input (size, separator, header, fields, an
//! estimate of its records from the bytes the first rows take); each column the job uses with
//! its role, hierarchy, height and example; the generalization lattice of the full-domain methods
//! (its size as the product of the heights + 1); the method, where it came from and why, and
//! for the lattice searches which algorithm runs (what `-method Optimal` would pick, see
//! [`LatticeAlgorithm::for_method`]); the privacy models; the suppression budget; the lattice
//! searches' metric, time limit and threads; and every destination with whether it exists.

use std::fmt::Write as _;
use std::path::Path;

use crate::algorithms::{LatticeAlgorithm, OPTIMAL_FLASH_LIMIT};
use crate::cli::RunArgs;
use crate::data::load::{read_prefix, Encoding, LoadSummary};
use crate::job::{Generalization, Job, Method, OutputFormat, SuppressionLimit};
use crate::{Error, Result};

/// Records of the input a plan reads (the first ones).
pub const FIRST_ROWS: u64 = 20;

/// Prints the plan of `job` (built from `args`, with the config's `warnings`) on `out`.
pub fn run(
    args: &RunArgs,
    job: &Job,
    warnings: &[String],
    out: &mut dyn std::io::Write,
) -> Result<()> {
    let input = &job.input.path;
    if !input.exists() {
        return Err(Error::in_file(input, "input file not found"));
    }
    // The run refuses a -db that is not an anonbox database before it reads a row: so does
    // the plan.
    if let Some(db) = &job.db {
        crate::store::check_kept(db)?;
    }
    let mut first: Option<Vec<u32>> = None;
    let (encoding, summary) =
        read_prefix(&job.source()?, &mut (), FIRST_ROWS, |_, codes, _, _| {
            first.get_or_insert_with(|| codes.to_vec());
            Ok(())
        })?;
    let text = render(args, job, warnings, &encoding, &summary, first.as_deref());
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::io("<stdout>", e))
}

/// The plan as text (see the module docs).
fn render(
    args: &RunArgs,
    job: &Job,
    warnings: &[String],
    encoding: &Encoding,
    summary: &LoadSummary,
    first: Option<&[u32]>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "anonbox plan: {} (nothing was run or written; the input's first {} rows were read)",
        job.method.name(),
        summary.stats.records()
    );
    let mut row = |label: &str, value: String| {
        let _ = writeln!(s, "{label:>12}  {value}");
    };
    if let Some(config) = &job.config_path {
        row("config", config.display().to_string());
    }
    row("input", input_line(job, summary));
    for (i, line) in attribute_lines(job, encoding, first)
        .into_iter()
        .enumerate()
    {
        row(if i == 0 { "attributes" } else { "" }, line);
    }
    let lattice = lattice_size(job, encoding);
    if let Some(line) = lattice.as_ref().map(|l| l.describe()) {
        row("lattice", line);
    }
    row("method", method_line(args, job));
    for line in method_why(job, lattice.as_ref()) {
        row("", line);
    }
    row("privacy", job.enforced_models().join(", "));
    let mut suppression = suppression_line(job, summary);
    if job.suppress == crate::algorithms::cells::Suppress::Cells {
        suppression.push_str(
            "; cells: those records are kept, with the fewest quasi-identifier cells blanked",
        );
    }
    row("suppression", suppression);
    if !job.method.is_lattice() && job.method.is_full_domain() {
        // Datafly and Incognito report the loss of their result; they do not minimize it.
        row(
            "metric",
            format!(
                "{} (measured on the result, not minimized)",
                job.metric.name()
            ),
        );
    }
    if job.method.is_lattice() {
        row("metric", job.metric.name().to_string());
        row(
            "time limit",
            job.time_limit
                .map_or("none: the search runs to its proof".into(), |t| {
                    format!(
                        "{} s, then the best transformation found and a lower bound",
                        t.as_secs_f64()
                    )
                }),
        );
        row("threads", job.threads().to_string());
        if job.local_recoding {
            row(
                "local recoding",
                "the records the optimum suppresses, searched again among themselves step by \
                 step (ARX's iterative local recoding: 1 % of the records a step, gs-factor \
                 0.05), each group released at its own transformation"
                    .into(),
            );
        }
    }
    for (label, line) in destination_lines(job) {
        row(label, line);
    }
    for w in warnings {
        row("warning", crate::error::one_line(w));
    }
    s
}

/// Size, separator, header, fields, and the records estimated from the first rows' bytes.
fn input_line(job: &Job, summary: &LoadSummary) -> String {
    let path = &job.input.path;
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let read = summary.stats.records();
    let records = if read < FIRST_ROWS {
        format!("{read} records (all read)")
    } else if summary.bytes_read > 0 {
        let estimate = size as f64 * summary.stats.rows_read as f64 / summary.bytes_read as f64;
        format!(
            "about {} rows (estimated from the size and the first {read})",
            indicatif::HumanCount(estimate.round() as u64)
        )
    } else {
        String::new()
    };
    format!(
        "{} ({}, separator '{}', {}{}, {} fields, rows containing '?' {}), {records}",
        path.display(),
        indicatif::HumanBytes(size),
        job.input.separator,
        if job.input.header {
            "header line"
        } else {
            "no header"
        },
        if crate::io::encoding::is_utf8(job.input.encoding) {
            String::new()
        } else {
            format!(", {}", job.input.encoding.name())
        },
        summary.width,
        if job.input.keep_unknown {
            "kept"
        } else {
            "skipped"
        }
    )
}

/// One line per column the job uses: input column, name, role, hierarchy and height, example
/// from the first record with its generalizations.
///
/// Names and values come from the data: escaped and cut as messages show them
/// ([`crate::error::shown`]), so that each attribute stays on its line and no control sequence
/// reaches the terminal.
fn attribute_lines(job: &Job, encoding: &Encoding, first: Option<&[u32]>) -> Vec<String> {
    use crate::error::shown;
    let nq = job.qids.len();
    let mut rows: Vec<(usize, String, String, String, String)> = Vec::new();
    for &index in &job.ids {
        rows.push((
            index,
            String::new(),
            "identifier".into(),
            "removed from the output".into(),
            String::new(),
        ));
    }
    for (q, (qid, enc)) in job.qids.iter().zip(&encoding.qids).enumerate() {
        let source = match &qid.generalization {
            Generalization::File { path, .. } => format!("hierarchy {}", file_name(path)),
            Generalization::Vgh(_) => "<vgh>".to_string(),
            Generalization::Built(b) => format!("builder {}", b.describe()),
        };
        let height = match qid.generalization.levels() {
            Some(levels) => levels.saturating_sub(1).to_string(),
            None => format!("{} (built from the first rows)", enc.hierarchy.max_level()),
        };
        let example = first.map_or(String::new(), |codes| {
            let h = &enc.hierarchy;
            (0..h.levels())
                .map(|level| shown(h.label(level, h.get(codes[q], level))))
                .collect::<Vec<_>>()
                .join(" -> ")
        });
        rows.push((
            qid.index,
            shown(&qid.name),
            "quasi-identifier".into(),
            format!("{source}, height {height}"),
            example,
        ));
    }
    for (i, (sens, enc)) in job.sensitive.iter().zip(&encoding.sensitive).enumerate() {
        let source = match (&sens.hierarchy, &sens.map) {
            (Some((path, _)), _) => format!("hierarchy {}", file_name(path)),
            (None, Some(_)) => "categories (<map>)".into(),
            (None, None) => "numbers".into(),
        };
        let example = first
            .map(|codes| codes[nq + i])
            .filter(|&c| (c as usize) < enc.dictionary.len())
            .map(|c| shown(enc.dictionary.value(c)))
            .unwrap_or_default();
        rows.push((
            sens.index,
            shown(&sens.name),
            "sensitive".into(),
            source,
            example,
        ));
    }
    rows.sort_by_key(|r| r.0);
    let width = |f: fn(&(usize, String, String, String, String)) -> usize| {
        rows.iter().map(f).max().unwrap_or(0)
    };
    let (wn, wr, ws) = (
        width(|r| r.1.len()),
        width(|r| r.2.len()),
        width(|r| r.3.len()),
    );
    let mut lines = vec![format!(
        "{:>6}  {:wn$}  {:wr$}  {:ws$}  {}",
        "column", "name", "role", "generalization", "first record"
    )];
    lines.extend(rows.iter().map(|(i, n, r, src, ex)| {
        format!("{i:>6}  {n:wn$}  {r:wr$}  {src:ws$}  {ex}")
            .trim_end()
            .to_string()
    }));
    lines
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

/// The full-domain generalization lattice: each quasi-identifier's name and number of levels.
struct Lattice<'a> {
    heights: Vec<(&'a str, usize)>,
}

impl Lattice<'_> {
    /// The number of transformations, if it fits in 64 bits (the search's limit).
    fn size(&self) -> Option<u64> {
        let levels: Vec<usize> = self.heights.iter().map(|&(_, l)| l).collect();
        crate::algorithms::search::lattice_size(&levels).ok()
    }

    fn describe(&self) -> String {
        let factors = self
            .heights
            .iter()
            .map(|(_, l)| l.to_string())
            .collect::<Vec<_>>()
            .join(" x ");
        match self.size() {
            Some(n) => format!(
                "{} transformations ({factors} levels)",
                indicatif::HumanCount(n)
            ),
            None => format!("more than 2^64 transformations ({factors} levels)"),
        }
    }
}

/// The lattice of a full-domain method (`None` for Mondrian and Anatomy). A builder whose
/// levels follow the data counts with the levels it built from the first rows.
fn lattice_size<'a>(job: &'a Job, encoding: &Encoding) -> Option<Lattice<'a>> {
    if !job.method.is_full_domain() {
        return None;
    }
    let heights = job
        .qids
        .iter()
        .zip(&encoding.qids)
        .map(|(q, enc)| {
            let levels = q.generalization.levels();
            (q.name.as_str(), levels.unwrap_or(enc.hierarchy.levels()))
        })
        .collect();
    Some(Lattice { heights })
}

/// The method and where it came from.
fn method_line(args: &RunArgs, job: &Job) -> String {
    let from = if args.method.is_some() {
        "from -method".to_string()
    } else {
        let config_says = job
            .config_path
            .as_deref()
            .and_then(|p| crate::config::utd_xml::load(p).ok())
            .and_then(|c| c.method)
            .is_some();
        if config_says {
            "from the config's method attribute".into()
        } else {
            "the default (neither -method nor the config names one)".into()
        }
    };
    format!("{} ({from})", job.method.name())
}

/// What the method does, and for the lattice searches which algorithm runs and why.
fn method_why(job: &Job, lattice: Option<&Lattice<'_>>) -> Vec<String> {
    let mut lines = vec![match job.method {
        Method::Datafly => "greedy full-domain generalization of the attribute with the most \
                            distinct values, then suppression (SQL on the working database)"
            .to_string(),
        Method::Mondrian if job.mondrian_on_hierarchies() => format!(
            "multidimensional partitioning over the hierarchies ({}): numbers at their median, \
             other attributes along their hierarchy's tree ({}), every model checked per class, \
             in memory",
            job.partitioning.name(),
            match job.labels {
                crate::algorithms::mondrian::hierarchical::Labels::Nodes => "each class's node",
                crate::algorithms::mondrian::hierarchical::Labels::Sets => {
                    "each class's set of values"
                }
            }
        ),
        Method::Mondrian => "multidimensional partitioning by median splits".into(),
        Method::IncognitoK | Method::IncognitoL | Method::IncognitoT => {
            "breadth-first full-domain lattice search, the toolbox's selection (most classes)"
                .into()
        }
        Method::Anatomy => "bucketization into l-diverse groups (QIT and ST tables)".into(),
        Method::Flash => "globally optimal full-domain search (ARX's Flash), in memory".into(),
        Method::Ola => "globally optimal full-domain search (OLA), in memory".into(),
        Method::Bfs => "best-first branch and bound over an implicit lattice (antichains), \
                        in memory"
            .into(),
        Method::Optimal => "Flash for small lattices, BFS for large ones".into(),
        Method::Mdav => "microaggregation (MDAV): groups of k to 2k-1 records by distance over \
                         the standardized numbers, each number replaced by its group's mean, \
                         each other attribute by its group's mode, in memory"
            .into(),
    }];
    if !job.method.is_lattice() {
        return lines;
    }
    let Some((lattice, size)) = lattice.and_then(|l| Some((l, l.size()?))) else {
        lines.push("the lattice does not fit in 64 bits: no search can run on it".into());
        return lines;
    };
    let optimal = LatticeAlgorithm::for_method(Method::Optimal, size)
        .expect("Optimal is a lattice method")
        .name();
    let limit = format!(
        "{} (2^{})",
        indicatif::HumanCount(OPTIMAL_FLASH_LIMIT),
        OPTIMAL_FLASH_LIMIT.trailing_zeros()
    );
    let optimal_why = if size <= OPTIMAL_FLASH_LIMIT {
        format!("the lattice has at most {limit} transformations")
    } else {
        format!("the lattice has more than {limit} transformations")
    };
    if job.method == Method::Optimal {
        lines.push(format!("runs {optimal}: {optimal_why}"));
    } else {
        lines.push(format!(
            "-method Optimal would run {optimal} ({optimal_why})"
        ));
    }
    // Only where a builder's levels follow the data: the job refused any other lattice.
    if let Err(e) = crate::algorithms::lattice_limits(job.method, &lattice.heights) {
        lines.push(format!("the run would fail (the first rows' levels): {e}"));
    }
    lines
}

/// The suppression budget that applies, as each method reads it.
fn suppression_line(job: &Job, summary: &LoadSummary) -> String {
    let limit = match job.method {
        Method::Datafly | Method::IncognitoK => {
            Some(job.suppression.unwrap_or(SuppressionLimit::Tuples(job.k)))
        }
        Method::IncognitoL | Method::IncognitoT => Some(SuppressionLimit::Tuples(0)),
        Method::Mondrian | Method::Anatomy | Method::Mdav => None,
        Method::Flash | Method::Ola | Method::Bfs | Method::Optimal => {
            Some(job.suppression.unwrap_or(SuppressionLimit::Fraction(0.0)))
        }
    };
    match limit {
        None => format!("none ({} suppresses nothing)", job.method.name()),
        Some(SuppressionLimit::Tuples(0)) | Some(SuppressionLimit::Fraction(0.0)) => {
            "none: no record may be suppressed".into()
        }
        Some(SuppressionLimit::Tuples(n)) => format!("at most {n} records"),
        Some(SuppressionLimit::Fraction(f)) => {
            let mut line = format!("at most floor({f} x records)");
            if summary.stats.records() < FIRST_ROWS {
                let n = summary.stats.records();
                let _ = write!(
                    line,
                    " = {} of {n}",
                    SuppressionLimit::Fraction(f).budget(n)
                );
            }
            line
        }
    }
}

/// Every destination of the run, with what the run would do to it.
fn destination_lines(job: &Job) -> Vec<(&'static str, String)> {
    let mut lines = Vec::new();
    match &job.output {
        None => lines.push(("output", "none".to_string())),
        Some(out) if out.format == OutputFormat::Anatomy => {
            let (qit, st) = crate::paths::anatomy_paths(&out.path);
            lines.push((
                "output",
                format!("{} (anatomy QIT), {}", qit.display(), state(&qit)),
            ));
            lines.push(("", format!("{} (anatomy ST), {}", st.display(), state(&st))));
        }
        Some(out) if out.folder => lines.push((
            "output",
            format!(
                "{} (genVals, a data set folder of {} parts), {}",
                out.path.display(),
                out.columnar.map_or("Parquet", |k| k.name()),
                if out.path.exists() {
                    "exists: its parts would be replaced"
                } else {
                    "new"
                }
            ),
        )),
        Some(out) => lines.push((
            "output",
            format!(
                "{} ({}), {}",
                out.path.display(),
                crate::output::format_name(out.format),
                state(&out.path)
            ),
        )),
    }
    lines.push((
        "report",
        job.report
            .as_ref()
            .map_or("none".into(), |p| format!("{}, {}", p.display(), state(p))),
    ));
    lines.push((
        "database",
        match &job.db {
            None if job.works_on_a_store() => {
                "temporary (unlinked at once, nothing left behind)".into()
            }
            None => "none (the method works in memory)".into(),
            Some(p) if p.exists() => {
                format!("{}: exists; its previous run would be cleared", p.display())
            }
            Some(p) => format!("{}: new, created owner-only (mode 0600)", p.display()),
        },
    ));
    lines
}

/// What a run would do to a destination.
fn state(path: &Path) -> &'static str {
    if crate::io::is_stdout(path) {
        "standard output"
    } else if crate::io::is_stream(path) {
        "exists (a FIFO or device): written into"
    } else if path.exists() {
        "exists: would be replaced"
    } else {
        "new"
    }
}
