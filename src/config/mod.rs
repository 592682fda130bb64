//! From flags and an XML config to a validated [`Job`].
//!
//! [`build_job`] reads the toolbox XML (`utd_xml`), merges the command line over it (a flag
//! beats the config, the config beats the default), resolves attribute names against the input's
//! header, loads hierarchy files ([`crate::hierarchy::file`]), derives the privacy models, and
//! checks everything that can be checked before touching the data. Each check stops with one message
//! that names the file and the element (or the flag) at fault, so a bad configuration never
//! reaches the run ([`crate::cmd::run`]) and never leaves an output file behind.
//!
//! Defaults (neither flag nor config): method Mondrian (the toolbox's fallback), k 10, l 10,
//! c 0.2, t 0.2, separator `,`, format genVals, metric Loss (ARX's default), seed 3345 (the
//! toolbox's `Random` seed), suppression: the method's own default. The separator is literal
//! (it may have several characters, like `, `); the two characters `\t` mean a tab, as they did
//! in the toolbox's regex split.
//!
//! Privacy models: a `<privacy>` element gives them explicitly (a `-k`, `-l`, `-c` or `-t` flag
//! can only make the matching parameter stricter: the larger k or l, the smaller c or t; a weaker
//! flag is kept out, with a warning); without one they follow from the method: k-anonymity
//! for Datafly, Mondrian, Incognito_K, Flash and OLA; recursive (c,l)-diversity for Incognito_L
//! (entropy l-diversity when c <= 0); t-closeness for Incognito_T (equal distance for a mapped
//! sensitive attribute, ordered for a numeric one); distinct l-diversity for Anatomy.

pub mod utd_xml;
mod xml;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::cli::RunArgs;
use crate::hierarchy::vgh::Vgh;
use crate::io::Format;
use crate::job::{
    Generalization, InputSpec, Job, Method, MetricKind, OutputFormat, OutputSpec, PrivacyModel,
    QuasiIdentifier, SensitiveAttribute, SubsetSpec, SuppressionLimit, TDistance,
};
use crate::{Error, Result};
use utd_xml::{AttributeElement, PrivacyKind, Site, Subset, UtdConfig};

/// The toolbox's default config file, relative to the working directory.
pub const DEFAULT_CONFIG: &str = "config.xml";
/// The toolbox's `java.util.Random` seed for Anatomy.
pub const DEFAULT_SEED: u64 = 3345;

/// Builds the job from the flags and the config they name; warnings go to stderr (not with
/// `-quiet`).
pub fn build_job(args: &RunArgs) -> Result<Job> {
    let (job, warnings) = build_job_with_warnings(args)?;
    if !args.quiet {
        for w in warnings {
            eprintln!("{}", crate::error::one_line(&w));
        }
    }
    Ok(job)
}

/// Like [`build_job`], returning the warnings instead of printing them.
pub fn build_job_with_warnings(args: &RunArgs) -> Result<(Job, Vec<String>)> {
    let config_path = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG));
    let cfg = utd_xml::load(&config_path)?;
    Builder {
        args,
        cfg: &cfg,
        warnings: Vec::new(),
        overwritten: Vec::new(),
        encoding: encoding_rs::UTF_8,
    }
    .build()
}

/// Where a value came from, so that its error names the flag or the config element.
#[derive(Clone, Copy)]
enum Source<'a> {
    Flag(&'static str),
    Config(&'a Site, &'static str),
    Default,
}

struct Builder<'a> {
    args: &'a RunArgs,
    cfg: &'a UtdConfig,
    warnings: Vec<String>,
    /// Existing output files (see [`Job::overwritten`]).
    overwritten: Vec<PathBuf>,
    /// The input's text encoding, that of its hierarchy files too.
    encoding: &'static crate::io::encoding::Encoding,
}

/// The input's first record (its first non-blank line, or lines if quoted), split.
struct FirstLine {
    fields: Vec<String>,
}

impl<'a> Builder<'a> {
    fn at(&self, site: &Site, msg: impl Into<String>) -> Error {
        Error::at(&self.cfg.path, site.line, Some(site.tag.clone()), msg)
    }

    fn source_err(&self, src: Source<'_>, msg: impl std::fmt::Display) -> Error {
        match src {
            Source::Flag(flag) => Error::Usage(format!("{flag}: {msg}")),
            Source::Config(site, attr) => Error::at(
                &self.cfg.path,
                site.line,
                Some(format!("{} attribute {attr}", site.tag)),
                msg.to_string(),
            ),
            Source::Default => Error::Invalid(msg.to_string()),
        }
    }

    /// Flag, else config, else default.
    fn pick<T: Copy>(
        &self,
        flag: Option<T>,
        flag_name: &'static str,
        config: Option<T>,
        attr: &'static str,
        default: T,
    ) -> (T, Source<'a>) {
        match (flag, config) {
            (Some(v), _) => (v, Source::Flag(flag_name)),
            (None, Some(v)) => (v, Source::Config(&self.cfg.root, attr)),
            (None, None) => (default, Source::Default),
        }
    }

    fn build(mut self) -> Result<(Job, Vec<String>)> {
        let args = self.args;
        let cfg = self.cfg;
        let method = args.method.or(cfg.method).unwrap_or(Method::Mondrian);

        let (k, k_src) = self.pick(args.k, "-k", cfg.k, "k", 10);
        if k < 1 {
            return Err(self.source_err(k_src, format!("k must be at least 1 (got {k})")));
        }
        let (l, l_src) = self.pick(args.l, "-l", cfg.l, "l", 10.0);
        let (c, _) = self.pick(args.c, "-c", cfg.c, "c", 0.2);
        let (t, t_src) = self.pick(args.t, "-t", cfg.t, "t", 0.2);
        check_t(t).map_err(|m| self.source_err(t_src, m))?;
        if matches!(method, Method::IncognitoL | Method::Anatomy) && cfg.privacy.is_none() {
            check_l(l).map_err(|m| self.source_err(l_src, format!("{}: {m}", method.name())))?;
        }

        let input = self.input()?;
        self.encoding = input.encoding;
        let schema = match &input.columnar {
            Some(c) => Some(crate::io::columnar::schema(&input.path, c)?),
            None => None,
        };
        let first = match &schema {
            Some(schema) => Some(FirstLine {
                fields: schema.fields().iter().map(|f| f.name().clone()).collect(),
            }),
            None => peek_first_line(&input)?,
        };
        let header = if input.header || schema.is_some() {
            match &first {
                Some(f) => Some(f.fields.clone()),
                // Data, not config: exit 1 like an input of a header only.
                None => return Err(Error::NoRecords(input.path.clone())),
            }
        } else {
            None
        };
        let width = first.as_ref().map(|f| f.fields.len());

        // Identifiers, quasi-identifiers, sensitive attributes: columns and names.
        let qid_elements = match &cfg.qid {
            Some((_, atts)) if !atts.is_empty() => atts,
            Some((site, _)) => {
                return Err(self.at(site, "No quasi-identifier: <qid> declares no attribute"))
            }
            None => {
                return Err(self.at(
                    &cfg.root,
                    "No quasi-identifier: the config has no <qid> element",
                ))
            }
        };
        let sens_elements: &'a [AttributeElement] =
            cfg.sens.as_ref().map_or(&[], |(_, atts)| atts.as_slice());
        let mut columns: HashMap<usize, (&str, &Site)> = HashMap::new();
        let mut resolve = |this: &Self, att: &'a AttributeElement, role: &'static str| {
            let (index, name) = this.column(att, header.as_deref(), &input.path)?;
            if let Some(w) = width {
                if index >= w {
                    let msg = match &schema {
                        Some(_) => format!(
                            "index {index} is beyond the {w} columns of {} (indexes start at 0)",
                            input.path.display()
                        ),
                        None => format!(
                            "index {index} is beyond the row width: the first line of {} has \
                             {w} fields (separator '{}'; indexes start at 0)",
                            input.path.display(),
                            input.separator
                        ),
                    };
                    return Err(this.at(&att.site, msg));
                }
            }
            if let Some(field) = schema.as_ref().and_then(|s| s.fields().get(index)) {
                if !crate::io::columnar::usable(field.data_type()) {
                    return Err(this.at(
                        &att.site,
                        format!(
                            "column '{}' of {} is of type {}, which has no text form to \
                             generalize or count: choose another column",
                            field.name(),
                            input.path.display(),
                            field.data_type()
                        ),
                    ));
                }
            }
            if let Some((other_role, other)) = columns.insert(index, (role, &att.site)) {
                return Err(this.at(
                    &att.site,
                    format!(
                        "column {index} is declared twice: as {role} here and as {other_role} \
                         on line {} ({})",
                        other.line, other.tag
                    ),
                ));
            }
            Ok((index, name))
        };

        let mut ids = Vec::new();
        for att in &cfg.ids {
            ids.push(resolve(&self, att, "an identifier")?.0);
        }
        let mut qids = Vec::new();
        let importance: Vec<Option<u32>> = qid_elements.iter().map(|a| a.importance).collect();
        for att in qid_elements {
            let (index, name) = resolve(&self, att, "a quasi-identifier")?;
            let generalization = match (&att.hierarchy, &att.vgh) {
                _ if att.builder.is_some() => {
                    let (_, builder) = att.builder.as_ref().expect("checked");
                    Generalization::Built(Box::new(builder.clone()))
                }
                (Some(path), _) => Generalization::File {
                    hierarchy: self.hierarchy(att, path, &name)?,
                    path: path.clone(),
                },
                (None, Some(root)) => {
                    let vgh = Vgh::new(root.clone(), att.map.clone());
                    if method.is_full_domain() {
                        if let Some((leaf, got, want)) = vgh.first_unequal_leaf() {
                            return Err(self.at(
                                &att.site,
                                format!(
                                    "{}: all leaf nodes should be at the same depth: leaf {leaf} \
                                     gives {got} levels, the first leaf {want} (full-domain \
                                     methods need equal depths; Mondrian and Anatomy do not)",
                                    method.name()
                                ),
                            ));
                        }
                    }
                    Generalization::Vgh(vgh)
                }
                (None, None) => unreachable!("utd_xml requires a <vgh> or a hierarchy file"),
            };
            qids.push(QuasiIdentifier {
                index,
                name,
                generalization,
            });
        }
        // A lattice the method cannot search is a config error (exit 2), found here where the
        // config decides every hierarchy's height; else after the load
        // (`algorithms::run_lattice`), with the same message.
        if method.is_lattice() {
            let heights: Option<Vec<(&str, usize)>> = qids
                .iter()
                .map(|q| q.generalization.levels().map(|l| (q.name.as_str(), l)))
                .collect();
            if let Some(heights) = heights {
                crate::algorithms::lattice_limits(method, &heights)
                    .map_err(|e| Error::in_file(&cfg.path, e.to_string()))?;
            }
        }
        let mut sensitive = Vec::new();
        for att in sens_elements {
            let (index, name) = resolve(&self, att, "a sensitive attribute")?;
            let hierarchy = match &att.hierarchy {
                Some(path) => Some((path.clone(), self.hierarchy(att, path, &name)?)),
                None => None,
            };
            sensitive.push(SensitiveAttribute {
                index,
                name,
                map: att.map.clone(),
                hierarchy,
            });
        }

        if matches!(
            method,
            Method::IncognitoL | Method::IncognitoT | Method::Anatomy
        ) && sensitive.len() != 1
        {
            let site = cfg.sens.as_ref().map_or(&cfg.root, |(s, _)| s);
            return Err(self.at(
                site,
                format!(
                    "{}: set 1 (and only 1) sensitive attribute under <sens> (found {})",
                    method.name(),
                    sensitive.len()
                ),
            ));
        }

        let (privacy, weaker) = self.privacy(method, k, l, c, t, &sensitive, width)?;
        self.warnings.extend(weaker);
        // The root's k is the toolbox's parameter of every method; Incognito_L/_T and Anatomy
        // never used it. Said, since a custodian may read it as asked for.
        if let (true, Some(root_k)) = (
            matches!(
                method,
                Method::IncognitoL | Method::IncognitoT | Method::Anatomy
            ),
            self.cfg.k,
        ) {
            if !privacy
                .iter()
                .any(|m| matches!(m, PrivacyModel::KAnonymity { .. }))
            {
                self.warnings.push(format!(
                    "anonbox: k = {root_k} of the config root is not enforced by {} (the toolbox \
                     ignored it too); for k-anonymity as well, put <k-anonymity> in <privacy> \
                     (Incognito_L/_T) or use -method Flash",
                    method.name()
                ));
            }
        }
        // Distinct and recursive (c,l)-diversity count values, so their l is a whole number.
        // Recursive: the toolbox rounds a fractional l to the nearest, ARX up, so the model
        // enforced would depend on the tool. Distinct: ARX takes a whole number, and the
        // toolbox's Anatomy rounded to the nearest (2.4 to 2: fewer values than asked); the
        // report would name an l that no class count can have. Entropy l-diversity takes any
        // l > 1 (its entropy is compared with log l).
        if let Some((model, l, why)) = privacy.iter().find_map(|m| match m {
            PrivacyModel::DistinctL { l, .. } if l.fract() != 0.0 => Some((
                "distinct l-diversity",
                *l,
                "it counts distinct values (ARX takes a whole number; the toolbox rounded a \
                 fractional one to the nearest, 2.4 to 2)",
            )),
            PrivacyModel::RecursiveCL { l, .. } if l.fract() != 0.0 => Some((
                "recursive (c,l)-diversity",
                *l,
                "which l a fractional one enforces differs between the toolbox and ARX",
            )),
            _ => None,
        }) {
            let msg = format!("{model} needs a whole number l (got {l}): {why}");
            // Named where the l came from: -l, or the config (a weaker -l is kept out).
            return Err(match (args.l == Some(l), &self.cfg.privacy) {
                (true, _) => Error::Usage(format!("-l: {msg}")),
                (false, Some((site, _))) => self.at(site, msg),
                (false, None) => self.at(&self.cfg.root, msg),
            });
        }
        self.flags_apply(method, &privacy)?;
        let given_k = args.k.or(cfg.k);
        let (k, l) = self.enforceable(method, &privacy, (k, given_k), l, &sensitive)?;

        let suppression = match (args.supp_threshold, args.suppression, cfg.suppression) {
            (Some(n), _, _) => Some(SuppressionLimit::Tuples(n)),
            (None, Some(f), _) => Some(SuppressionLimit::Fraction(f)),
            (None, None, Some(f)) => {
                if !(0.0..=1.0).contains(&f) {
                    return Err(self.source_err(
                        Source::Config(&cfg.root, "suppression"),
                        format!("suppression {f} is not a fraction in [0, 1]"),
                    ));
                }
                Some(SuppressionLimit::Fraction(f))
            }
            (None, None, None) => None,
        };

        let output = self.output(method, &input)?;
        if args.partition.is_some() && method != Method::Mondrian {
            return Err(Error::Usage(format!(
                "-partition: {} does not partition (Mondrian does)",
                method.name()
            )));
        }
        if args.labels.is_some() && method != Method::Mondrian {
            return Err(Error::Usage(format!(
                "-labels: {} publishes no partition's labels (Mondrian does)",
                method.name()
            )));
        }

        let local_recoding = self.local_recoding(method, &privacy, &output, &sensitive)?;

        let mut job = Job {
            progress: self.args.progress.clone(),
            method,
            config_path: Some(cfg.path.clone()),
            config_text: Some(cfg.text.clone()),
            input,
            output,
            overwritten: std::mem::take(&mut self.overwritten),
            ids,
            qids,
            sensitive,
            k: k as u64,
            l,
            c,
            t,
            suppression,
            metric: args.metric.or(cfg.metric).unwrap_or(MetricKind::Loss),
            privacy,
            seed: args.seed.unwrap_or(DEFAULT_SEED),
            partitioning: args.partition.unwrap_or_default(),
            labels: args.labels.unwrap_or_default(),
            local_recoding,
            db: args.db.clone(),
            report: args.report.clone(),
            quiet: args.quiet,
            file_mode: args.mode,
            verbose: args.verbose,
            time_limit: args
                .time_limit
                .or(cfg.time_limit)
                .map(|t| {
                    std::time::Duration::try_from_secs_f64(t).map_err(|_| {
                        Error::Usage(format!(
                            "the time limit of {t:e} s is too large (at most {} s)",
                            u64::MAX
                        ))
                    })
                })
                .transpose()?,
            threads: args.threads,
            risk_threshold: args
                .risk_threshold
                .unwrap_or(crate::risk::DEFAULT_THRESHOLD),
            population: args
                .population
                .clone()
                .unwrap_or_else(crate::risk::analysis::default_population),
            engine: args
                .engine
                .clone()
                .or(cfg.engine.as_ref().map(|e| e.kind.clone()))
                .unwrap_or_default(),
            suppress: args.suppress.or(cfg.suppress).unwrap_or_default(),
            importance,
            memory_limit: args
                .memory_limit
                .or(cfg.engine.as_ref().and_then(|e| e.memory_limit)),
        };
        self.check_cells(&job)?;
        if job.method == Method::Mdav {
            // MDAV keeps no database and releases genVals (its means are no generalization that
            // genValsDist or anatomy could describe).
            if job.db.is_some() {
                return Err(Error::Usage(
                    "-db: MDAV runs in memory and keeps no database (omit -db)".into(),
                ));
            }
            if let Some(o) = job
                .output
                .as_ref()
                .filter(|o| o.format != OutputFormat::GenVals)
            {
                return Err(Error::Usage(format!(
                    "output format {}: MDAV writes genVals only",
                    crate::output::format_name(o.format)
                )));
            }
        }
        if job.mondrian_on_hierarchies() {
            if let Some(o) = job
                .output
                .as_ref()
                .filter(|o| o.format != OutputFormat::GenVals)
            {
                return Err(Error::Usage(format!(
                    "output format {}: Mondrian over hierarchies writes genVals only (genValsDist \
                     and anatomy describe the toolbox's Mondrian on <vgh>s with k-anonymity alone)",
                    crate::output::format_name(o.format)
                )));
            }
        }
        if PrivacyModel::differential_privacy(&job.privacy).is_some() {
            self.check_differential_privacy(&mut job)?;
        }
        crate::engine::check_job(&job)?;
        crate::paths::check_destinations(&job)?;
        Ok((job, self.warnings))
    }

    /// What SafePub needs of the run (`privacy::differential`), checked before the input is
    /// read: a lattice method (the config refused the others); no model beside it but
    /// k-anonymity (SafePub's guarantee covers suppressing the classes below k, not classes
    /// suppressed for what they hold); a metric with a score for the data-dependent search;
    /// the suppression limit at 100 % (every class below k and every unsampled record is
    /// suppressed, whatever their number, as ARX sets it); no kept database (it would hold
    /// the sample apart from the records left out).
    fn check_differential_privacy(&self, job: &mut Job) -> Result<()> {
        use crate::privacy::differential::DpSearch;
        let site = self.cfg.privacy.as_ref().map(|(site, _)| site.clone());
        let at = |msg: String| match &site {
            Some(site) => self.at(site, msg),
            None => Error::Invalid(msg),
        };
        if let Some(other) = job.privacy.iter().find(|m| {
            !matches!(
                m,
                PrivacyModel::DifferentialPrivacy { .. } | PrivacyModel::KAnonymity { .. }
            )
        }) {
            return Err(at(format!(
                "differential privacy is combined with k-anonymity only, not {}: SafePub's \
                 guarantee covers suppressing the classes of fewer than k sampled records, not \
                 classes suppressed for what they hold (run the other models separately)",
                other.describe(&job.sensitive)
            )));
        }
        if let Some(PrivacyModel::DifferentialPrivacy {
            search: DpSearch::Steps { .. },
            ..
        }) = PrivacyModel::differential_privacy(&job.privacy)
        {
            if !crate::metrics::score::supports(job.metric) {
                return Err(Error::Usage(format!(
                    "-metric {}: the data-dependent search of differential privacy (steps='N') \
                     has score functions for Loss, Precision, DM, DMStar and AECS only",
                    job.metric.name()
                )));
            }
        }
        match job.suppression {
            None => job.suppression = Some(SuppressionLimit::Fraction(1.0)),
            Some(SuppressionLimit::Fraction(f)) if f >= 1.0 => {}
            Some(limit) => {
                let src = match (self.args.supp_threshold, self.args.suppression) {
                    (Some(_), _) => Source::Flag("-suppThreshold"),
                    (None, Some(_)) => Source::Flag("-suppression"),
                    _ => Source::Config(&self.cfg.root, "suppression"),
                };
                let given = match limit {
                    SuppressionLimit::Tuples(t) => format!("{t} records"),
                    SuppressionLimit::Fraction(f) => format!("{f}"),
                };
                return Err(self.source_err(
                    src,
                    format!(
                        "a limit of {given} does not apply to differential privacy: it suppresses \
                         every class of fewer than k sampled records and every record left out \
                         of the sample, however many (as ARX does); give a limit of 1 or none"
                    ),
                ));
            }
        }
        if job.db.is_some() {
            return Err(Error::Usage(
                "-db: a differentially private run keeps no database (omit -db)".into(),
            ));
        }
        Ok(())
    }

    fn input(&self) -> Result<InputSpec> {
        let cfg_input = self.cfg.input.as_ref();
        if let Some(batches) = &self.args.batches {
            // Record batches in memory: read twice as a file is, never opened.
            return Ok(InputSpec {
                path: self
                    .args
                    .input
                    .clone()
                    .unwrap_or_else(|| PathBuf::from("(record batches)")),
                separator: ",".to_string(),
                header: true,
                keep_unknown: cfg_input.and_then(|i| i.keep_unknown).unwrap_or(true),
                encoding: encoding_rs::UTF_8,
                max_line: crate::io::source::DEFAULT_MAX_LINE,
                columnar: Some(crate::io::columnar::Columnar::Memory(batches.clone())),
            });
        }
        let (path, from_flag) = match (&self.args.input, cfg_input.and_then(|i| i.filename.clone()))
        {
            (Some(p), _) => (p.clone(), true),
            (None, Some(p)) => (p, false),
            (None, None) => {
                return Err(self.at(
                    cfg_input.map_or(&self.cfg.root, |i| &i.site),
                    "No input file: give -input FILE or <input filename='FILE'/>",
                ))
            }
        };
        let columnar = cfg_input
            .and_then(|i| i.format)
            .or_else(|| crate::io::columnar::Kind::of_input(&path));
        let data_set = columnar.is_some() && path.is_dir();
        if !(path.is_file() || data_set) {
            // The input is read twice (load, then output), so it must be a regular file.
            let msg = if path.as_os_str() == "-" || crate::io::is_stream(&path) {
                format!(
                    "input {} is a stream: anonbox reads its input twice, so give a file",
                    path.display()
                )
            } else if path.is_dir() {
                format!("input {} is a folder, not a file", path.display())
            } else if path.exists() {
                format!("input {} is not a regular file", path.display())
            } else {
                format!("input file {} does not exist", path.display())
            };
            return Err(if from_flag {
                Error::Usage(format!("-input: {msg}"))
            } else {
                self.at(&cfg_input.expect("from config").site, msg)
            });
        }
        let separator = match (
            &self.args.separator,
            cfg_input.and_then(|i| i.separator.clone()),
        ) {
            (Some(s), _) => s.clone(),
            (None, Some(s)) if s.is_empty() => {
                return Err(self.at(&cfg_input.expect("from config").site, "empty separator"))
            }
            (None, Some(s)) => s,
            (None, None) => ",".to_string(),
        };
        let separator = crate::io::separator_arg(&separator);
        let encoding = self
            .args
            .encoding
            .or(cfg_input.and_then(|i| i.encoding))
            .unwrap_or(encoding_rs::UTF_8);
        if let Some(kind) = columnar {
            if encoding != encoding_rs::UTF_8 {
                let msg = format!(
                    "{} input {} holds UTF-8 strings: an encoding applies to delimited text only",
                    kind.name(),
                    path.display()
                );
                return Err(match (self.args.encoding, cfg_input) {
                    (Some(_), _) | (None, None) => Error::Usage(format!("-encoding: {msg}")),
                    (None, Some(i)) => self.at(&i.site, msg),
                });
            }
        }
        Ok(InputSpec {
            columnar: columnar.map(crate::io::columnar::Columnar::File),
            path,
            separator,
            header: cfg_input.and_then(|i| i.header).unwrap_or(false),
            // `?` is the toolbox's missing value in its text files; a columnar file has nulls.
            keep_unknown: cfg_input
                .and_then(|i| i.keep_unknown)
                .unwrap_or(columnar.is_some()),
            encoding,
            max_line: self
                .args
                .max_line
                .unwrap_or(crate::io::source::DEFAULT_MAX_LINE),
        })
    }

    fn output(&mut self, method: Method, input: &InputSpec) -> Result<Option<OutputSpec>> {
        if let Some(sink) = &self.args.sink {
            // The release in memory (the library's callers): genVals as record batches.
            if method == Method::Anatomy {
                return Err(Error::Usage(
                    "Anatomy releases two tables (QIT and ST), not one: a release in memory \
                     needs another method"
                        .into(),
                ));
            }
            return Ok(Some(OutputSpec {
                path: PathBuf::from("(release in memory)"),
                format: OutputFormat::GenVals,
                columnar: Some(crate::io::columnar::Kind::Ipc),
                memory: Some(sink.clone()),
                folder: false,
            }));
        }
        let cfg_output = self.cfg.output.as_ref();
        let mut format = self
            .args
            .output_format
            .or(cfg_output.and_then(|o| o.format))
            .unwrap_or(OutputFormat::GenVals);
        if method == Method::Anatomy && format != OutputFormat::Anatomy {
            self.warnings.push(
                "anonbox: warning: the output format is anatomy, as the method is Anatomy \
                 (toolbox: WARNING: Output format set to Anatomy, since anonymization method is \
                 Anatomy)"
                    .to_string(),
            );
            format = OutputFormat::Anatomy;
        }
        let (path, src) =
            match (
                &self.args.output,
                cfg_output.and_then(|o| o.filename.clone()),
            ) {
                (Some(p), _) => (p.clone(), Source::Flag("-output")),
                (None, Some(p)) => (
                    p,
                    Source::Config(&cfg_output.expect("from config").site, "filename"),
                ),
                (None, None) if self.args.report.is_some() => return Ok(None),
                (None, None) => return Err(self.at(
                    cfg_output.map_or(&self.cfg.root, |o| &o.site),
                    "No output file: give -output FILE or <output filename='FILE'/> (or -report \
                     FILE for a report only)",
                )),
            };
        if method.is_lattice() && format != OutputFormat::GenVals {
            return Err(Error::Usage(format!(
                "output format {}: {} writes genVals only (genValsDist and anatomy describe the \
                 classes of the toolbox's methods)",
                crate::output::format_name(format),
                method.name()
            )));
        }
        if format == OutputFormat::Anatomy
            && (crate::io::is_stdout(&path) || crate::io::is_stream(&path))
        {
            return Err(self.source_err(
                src,
                format!(
                    "the anatomy format writes two files, NAME_QIT and NAME_ST: '{}' is not a \
                     file name",
                    path.display()
                ),
            ));
        }
        if is_folder_output(&path) {
            return self.folder_output(
                path,
                src,
                format,
                cfg_output.and_then(|o| o.columnar),
                input,
            );
        }
        let written = match format {
            OutputFormat::Anatomy => {
                let (qit, st) = crate::paths::anatomy_paths(&path);
                vec![qit, st]
            }
            _ => vec![path.clone()],
        };
        let input_real = std::fs::canonicalize(&input.path).ok();
        for file in &written {
            let parent = crate::paths::folder_of(file);
            if !parent.is_dir() {
                return Err(self.source_err(
                    src,
                    format!("output folder {} does not exist", parent.display()),
                ));
            }
            if file.is_dir() {
                return Err(self.source_err(src, format!("{} is a folder", file.display())));
            }
            let real = std::fs::canonicalize(parent)
                .ok()
                .and_then(|p| file.file_name().map(|n| p.join(n)));
            if file.exists() && !crate::io::is_stream(file) {
                self.overwritten.push(file.clone());
            }
            if real.is_some() && real == input_real {
                return Err(self.source_err(
                    src,
                    format!(
                        "output {} is the input file; choose another output path",
                        file.display()
                    ),
                ));
            }
        }
        let columnar = cfg_output
            .and_then(|o| o.columnar)
            .or(self.args.output_columnar)
            .or_else(|| crate::io::columnar::Kind::of_path(&path));
        if let Some(kind) = columnar {
            if format != OutputFormat::GenVals {
                return Err(self.source_err(
                    src,
                    format!(
                        "a {} release holds genVals: {} is written as delimited text only",
                        kind.name(),
                        crate::output::format_name(format)
                    ),
                ));
            }
            if crate::io::is_stdout(&path) || crate::io::is_stream(&path) {
                return Err(self.source_err(
                    src,
                    format!(
                        "a {} release is a file: '{}' is not one",
                        kind.name(),
                        path.display()
                    ),
                ));
            }
        }
        Ok(Some(OutputSpec {
            path,
            format,
            columnar,
            memory: None,
            folder: false,
        }))
    }

    /// A data set folder output (`-output DIR/`, or an existing folder): the release's part
    /// files, Parquet unless the format says Arrow IPC (see [`crate::io::parts`]).
    fn folder_output(
        &self,
        path: PathBuf,
        src: Source<'_>,
        format: OutputFormat,
        cfg_columnar: Option<crate::io::columnar::Kind>,
        input: &InputSpec,
    ) -> Result<Option<OutputSpec>> {
        if format != OutputFormat::GenVals {
            return Err(self.source_err(
                src,
                format!(
                    "a data set folder holds genVals: {} is written to a file",
                    crate::output::format_name(format)
                ),
            ));
        }
        let parent = crate::paths::folder_of(&path);
        if !parent.is_dir() {
            return Err(self.source_err(
                src,
                format!("output folder {} does not exist", parent.display()),
            ));
        }
        crate::io::parts::check_folder(&path)
            .map_err(|m| self.source_err(src, format!("{}: {m}", path.display())))?;
        if let (Ok(folder), Ok(input)) = (
            std::fs::canonicalize(&path),
            std::fs::canonicalize(&input.path),
        ) {
            if input.starts_with(&folder) {
                return Err(self.source_err(
                    src,
                    format!(
                        "the input {} is in the output folder {}; choose another output folder",
                        input.display(),
                        path.display()
                    ),
                ));
            }
        }
        let kind = cfg_columnar
            .or(self.args.output_columnar)
            .unwrap_or(crate::io::columnar::Kind::Parquet);
        Ok(Some(OutputSpec {
            path,
            format,
            columnar: Some(kind),
            memory: None,
            folder: true,
        }))
    }

    /// The column index and name of an attribute element, using the header when there is one.
    fn column(
        &self,
        att: &AttributeElement,
        header: Option<&[String]>,
        input: &Path,
    ) -> Result<(usize, String)> {
        match (att.index, &att.name, header) {
            (Some(i), None, None) => Ok((i, format!("att{i}"))),
            (Some(i), Some(name), None) => Ok((i, name.clone())),
            (None, Some(name), None) => Err(self.at(
                &att.site,
                format!(
                    "name '{name}' without an index needs a header line (<input header='true'/>)"
                ),
            )),
            (Some(i), name, Some(h)) => {
                let Some(col) = h.get(i) else {
                    return Ok((i, name.clone().unwrap_or_else(|| format!("att{i}"))));
                    // range checked by the caller
                };
                match name {
                    Some(n) if n != col => Err(self.at(
                        &att.site,
                        format!(
                            "name '{n}' does not match column {i} of the header of {}, '{col}'",
                            input.display()
                        ),
                    )),
                    _ => Ok((i, col.clone())),
                }
            }
            (None, Some(name), Some(h)) => match h.iter().position(|c| c == name) {
                // A name two columns share could leave the other one released as it is.
                Some(i) if h[i + 1..].contains(name) => Err(self.at(
                    &att.site,
                    format!(
                        "'{name}' names columns {i} and {} of the header of {}: give the \
                         column's index",
                        i + 1
                            + h[i + 1..]
                                .iter()
                                .position(|c| c == name)
                                .expect("contained"),
                        input.display()
                    ),
                )),
                Some(i) => Ok((i, name.clone())),
                None => Err(self.at(
                    &att.site,
                    format!(
                        "no column named '{name}' in the header of {} (columns: {})",
                        input.display(),
                        h.join(", ")
                    ),
                )),
            },
            (None, None, _) => unreachable!("utd_xml requires an index or a name"),
        }
    }

    fn hierarchy(
        &mut self,
        att: &AttributeElement,
        path: &Path,
        name: &str,
    ) -> Result<crate::hierarchy::Hierarchy> {
        if !path.is_file() {
            let what = if path.exists() {
                "is a folder or a device, not a file"
            } else {
                "does not exist"
            };
            return Err(self.at(
                &att.site,
                format!("hierarchy file {} {what}", path.display()),
            ));
        }
        let max_line = self
            .args
            .max_line
            .unwrap_or(crate::io::source::DEFAULT_MAX_LINE);
        let h = crate::hierarchy::file::load(path, name, self.encoding, max_line)?;
        if h.lines() > h.leaves() as u64 {
            self.warnings.push(format!(
                "anonbox: warning: {}: {} lines repeat an earlier line exactly; accepted as ARX \
                 accepts them (every line counts in the Loss metric's domain): remove them to \
                 silence this",
                path.display(),
                h.lines() - h.leaves() as u64
            ));
        }
        Ok(h)
    }

    /// Whether the run recodes locally (`-localRecoding`, `<privacy local-recoding="true">`),
    /// refused where it cannot: a method other than the lattice searches, a model of the whole
    /// table ([`crate::algorithms::local_recoding::supports`]), a kept database or an output
    /// format other than genVals (its release has no single transformation).
    fn local_recoding(
        &self,
        method: Method,
        privacy: &[PrivacyModel],
        output: &Option<crate::job::OutputSpec>,
        sensitive: &[SensitiveAttribute],
    ) -> Result<bool> {
        let flag = self.args.local_recoding;
        if !flag && self.cfg.local_recoding != Some(true) {
            return Ok(false);
        }
        let refuse = |msg: String| match (flag, &self.cfg.privacy) {
            (false, Some((site, _))) => self.at(site, format!("local-recoding: {msg}")),
            _ => Error::Usage(format!("-localRecoding: {msg}")),
        };
        if !method.is_lattice() {
            return Err(refuse(format!(
                "{} releases no global transformation to recode; local recoding follows the \
                 lattice searches (-method Flash, OLA, BFS or Optimal)",
                method.name()
            )));
        }
        if let Some(m) = privacy
            .iter()
            .find(|m| !crate::algorithms::local_recoding::supports(m))
        {
            let why = if matches!(m, PrivacyModel::DifferentialPrivacy { .. }) {
                "releases one random sample at one transformation"
            } else {
                "judges the whole table (its class sizes or a research subset), which a release \
                 at several transformations cannot be searched for step by step"
            };
            return Err(refuse(format!(
                "{} {why}; remove it or run without local recoding",
                m.describe(sensitive)
            )));
        }
        if self.args.db.is_some() {
            return Err(refuse(
                "a kept database (-db) holds one transformation's classes; run without -db".into(),
            ));
        }
        if self.args.suppress.or(self.cfg.suppress)
            == Some(crate::algorithms::cells::Suppress::Cells)
        {
            return Err(refuse(
                "cell suppression keeps the same records another way (its cells blanked); \
                 choose one of -suppress cells and local recoding"
                    .into(),
            ));
        }
        if let Some(o) = output {
            if o.format != OutputFormat::GenVals {
                return Err(refuse(format!(
                    "the {} format is written from one transformation; use genVals",
                    crate::output::format_name(o.format)
                )));
            }
        }
        Ok(true)
    }

    /// Refuses a privacy flag (`-k`, `-l`, `-c`, `-t`) that the run would ignore: neither the
    /// method's own parameter nor one of a model it enforces. A custodian who types `-l 3` asks
    /// for l-diversity; a release without it would be less protection than asked.
    fn flags_apply(&self, method: Method, models: &[PrivacyModel]) -> Result<()> {
        let args = self.args;
        let has = |f: fn(&PrivacyModel) -> bool| models.iter().any(f);
        let own_c = method == Method::IncognitoL && self.cfg.privacy.is_none();
        let flags = [
            (
                "-k",
                args.k.is_some(),
                // Datafly and Mondrian take the larger of -k and <privacy>'s k; the others
                // enforce it as a model (`privacy` adds it for Incognito_K and the lattice
                // methods).
                matches!(method, Method::Datafly | Method::Mondrian | Method::Mdav)
                    || has(|m| matches!(m, PrivacyModel::KAnonymity { .. })),
                "k-anonymity",
            ),
            (
                "-l",
                args.l.is_some(),
                has(|m| {
                    matches!(
                        m,
                        PrivacyModel::DistinctL { .. }
                            | PrivacyModel::EntropyL { .. }
                            | PrivacyModel::RecursiveCL { .. }
                    )
                }),
                "l-diversity",
            ),
            (
                "-c",
                args.c.is_some(),
                own_c || has(|m| matches!(m, PrivacyModel::RecursiveCL { .. })),
                "recursive (c,l)-diversity",
            ),
            (
                "-t",
                args.t.is_some(),
                has(|m| matches!(m, PrivacyModel::TCloseness { .. })),
                "t-closeness",
            ),
        ];
        for (flag, given, applies, model) in flags {
            if given && !applies {
                let hint = if method.is_lattice() || self.cfg.privacy.is_some() {
                    "declare it in the config's <privacy>"
                } else {
                    "use a method that enforces it, such as Flash with it in <privacy>"
                };
                return Err(Error::Usage(format!(
                    "{flag}: {} would ignore it: this run enforces no {model} ({hint})",
                    method.name()
                )));
            }
        }
        Ok(())
    }

    /// Cell suppression (`-suppress cells`, root `suppress='cells'`) runs after a lattice
    /// search, enforces the models judged class by class
    /// ([`crate::algorithms::cells::enforceable`]) and writes genVals, without a kept database
    /// (whose classes are the record suppression's): anything else is refused, naming where
    /// the mode came from.
    fn check_cells(&self, job: &Job) -> Result<()> {
        use crate::algorithms::cells::{enforceable, Suppress};
        if job.suppress != Suppress::Cells {
            return Ok(());
        }
        let why = if !job.method.is_lattice() {
            Some(format!(
                "{} suppresses no cells: cell suppression follows a lattice search (Flash, OLA, \
                 BFS, Optimal)",
                job.method.name()
            ))
        } else if let Some(m) = job.privacy.iter().find(|m| !enforceable(m)) {
            Some(format!(
                "{} is not enforced by cell suppression (it checks k-anonymity, l-diversity and \
                 t-closeness class by class); use -suppress records",
                m.describe(&job.sensitive)
            ))
        } else if job.db.is_some() {
            Some(
                "-db: a kept database holds the record suppression's classes; omit -db with \
                 cell suppression"
                    .to_string(),
            )
        } else {
            job.output
                .as_ref()
                .filter(|o| o.format != OutputFormat::GenVals)
                .map(|o| {
                    format!(
                        "output format {}: cell suppression writes genVals only",
                        crate::output::format_name(o.format)
                    )
                })
        };
        let Some(why) = why else {
            return Ok(());
        };
        Err(match self.args.suppress {
            Some(_) => Error::Usage(format!("-suppress cells: {why}")),
            None => self.source_err(Source::Config(&self.cfg.root, "suppress"), why),
        })
    }

    /// Refuses a `<privacy>` model the method would not enforce (a toolbox method never
    /// silently releases less protection than asked). What each method enforces:
    /// - Datafly: k-anonymity only (its k becomes the method's k);
    /// - Mondrian: k-anonymity, the l-diversities and t-closeness (k-anonymity alone on
    ///   `<vgh>`s is the toolbox's Mondrian, the rest Mondrian over hierarchies, which checks
    ///   them per partition);
    /// - Anatomy: distinct l-diversity of the first sensitive attribute only (its l becomes l);
    /// - Incognito_K/_L/_T: k-anonymity, the three l-diversities and t-closeness with equal or
    ///   ordered distance, of one sensitive attribute;
    /// - the lattice methods (Flash, OLA, BFS, Optimal): every model.
    ///
    /// Returns the k and l the method runs with. `k` is the run's k and the k given by `-k` or
    /// the root: with `<privacy>`, a method that enforces k-anonymity runs with the k it
    /// enforces, and the default k (10) raises nothing (a `<k-anonymity k="3"/>` alone is k = 3
    /// for Datafly, and Incognito_K's default suppression is 3 records, as for Flash).
    fn enforceable(
        &self,
        method: Method,
        models: &[PrivacyModel],
        (k, given_k): (i64, Option<i64>),
        l: f64,
        sensitive: &[SensitiveAttribute],
    ) -> Result<(i64, f64)> {
        let Some((site, _)) = &self.cfg.privacy else {
            return Ok((k, l));
        };
        let model_k = PrivacyModel::largest_k(models).map(|k| k as i64);
        let k = match (method, model_k) {
            (Method::Datafly | Method::Mondrian | Method::Mdav | Method::IncognitoK, Some(mk)) => {
                given_k.map_or(mk, |g| g.max(mk))
            }
            (m, Some(mk)) if m.is_lattice() => mk,
            _ => k,
        };
        let refuse = |m: &PrivacyModel, why: &str| {
            self.at(
                site,
                format!(
                    "{} is not enforced by {}{why}; use -method Flash, OLA, BFS or Optimal, which \
                     enforce every model",
                    m.describe(sensitive),
                    method.name()
                ),
            )
        };
        // Anatomy's l: the largest of its distinct l-diversity models (the last one's was taken).
        let mut anatomy_l = None;
        let mut attribute = None;
        for m in models {
            match (method, m) {
                (m2, _) if m2.is_lattice() => {}
                // δ-presence judges the population's classes, which a partition of the released
                // records does not have.
                (Method::Mondrian, PrivacyModel::DeltaPresence { .. }) => {
                    return Err(refuse(m, " (δ-presence needs a lattice method)"))
                }
                // k-anonymity, l-diversity and t-closeness run Mondrian over hierarchies, which
                // checks them per partition (`Job::mondrian_on_hierarchies`); the risk-based
                // models are refused (those of the whole table's class sizes judge no partition).
                (
                    Method::Mondrian,
                    PrivacyModel::KAnonymity { .. }
                    | PrivacyModel::DistinctL { .. }
                    | PrivacyModel::EntropyL { .. }
                    | PrivacyModel::RecursiveCL { .. }
                    | PrivacyModel::TCloseness { .. },
                ) => {}
                (Method::Mondrian, _) => {
                    return Err(refuse(
                        m,
                        " (it checks k-anonymity, l-diversity and t-closeness per partition)",
                    ))
                }
                (Method::Datafly | Method::Mdav, PrivacyModel::KAnonymity { .. }) => {}
                (Method::Datafly | Method::Mdav, _) => {
                    return Err(refuse(m, " (it enforces k-anonymity only)"))
                }
                (
                    Method::Anatomy,
                    PrivacyModel::DistinctL {
                        attribute: 0,
                        l: ml,
                    },
                ) => anatomy_l = Some(anatomy_l.map_or(*ml, |al: f64| al.max(*ml))),
                (Method::Anatomy, _) => {
                    return Err(refuse(
                        m,
                        " (it enforces distinct l-diversity of the first sensitive attribute only)",
                    ))
                }
                (
                    _,
                    PrivacyModel::TCloseness {
                        distance: TDistance::Hierarchical,
                        ..
                    },
                ) => return Err(refuse(m, " (Incognito_T has equal and ordered distances)")),
                (_, PrivacyModel::KAnonymity { .. }) => {}
                (
                    _,
                    PrivacyModel::DistinctL { attribute: a, .. }
                    | PrivacyModel::EntropyL { attribute: a, .. }
                    | PrivacyModel::RecursiveCL { attribute: a, .. }
                    | PrivacyModel::TCloseness { attribute: a, .. },
                ) => {
                    if attribute.is_some_and(|b| b != *a) {
                        return Err(refuse(m, " together with a model of another attribute"));
                    }
                    attribute = Some(*a);
                }
                (
                    _,
                    PrivacyModel::DeltaPresence { .. }
                    | PrivacyModel::KMap { .. }
                    | PrivacyModel::AverageRisk { .. }
                    | PrivacyModel::SampleUniqueness { .. }
                    | PrivacyModel::PopulationUniqueness { .. }
                    | PrivacyModel::DeltaDisclosure { .. }
                    | PrivacyModel::BetaLikeness { .. }
                    | PrivacyModel::DifferentialPrivacy { .. },
                ) => {
                    return Err(refuse(m, ""));
                }
            }
        }
        Ok((k, anatomy_l.unwrap_or(l)))
    }

    /// The privacy models of the run, and a warning for every flag weaker than the `<privacy>`
    /// parameter it meets (see the module docs: a flag never lowers what the config asks).
    #[allow(clippy::too_many_arguments)]
    fn privacy(
        &self,
        method: Method,
        k: i64,
        l: f64,
        c: f64,
        t: f64,
        sensitive: &[SensitiveAttribute],
        width: Option<usize>,
    ) -> Result<(Vec<PrivacyModel>, Vec<String>)> {
        let Some((_, elements)) = &self.cfg.privacy else {
            // Numbers: neither a map nor a hierarchy file (whose labels are categories).
            let numeric = sensitive
                .first()
                .is_some_and(|s| s.map.is_none() && s.hierarchy.is_none());
            return Ok((
                vec![match method {
                    Method::IncognitoL if c <= 0.0 => PrivacyModel::EntropyL { attribute: 0, l },
                    Method::IncognitoL => PrivacyModel::RecursiveCL { attribute: 0, c, l },
                    Method::IncognitoT => PrivacyModel::TCloseness {
                        attribute: 0,
                        t,
                        distance: if numeric {
                            TDistance::Ordered
                        } else {
                            TDistance::Equal
                        },
                    },
                    Method::Anatomy => PrivacyModel::DistinctL { attribute: 0, l },
                    _ => PrivacyModel::KAnonymity { k: k as u64 },
                }],
                Vec::new(),
            ));
        };
        let args = self.args;
        if let Some(l) = args.l {
            check_l(l).map_err(|m| Error::Usage(format!("-l: {m}")))?;
        }
        if let Some(t) = args.t {
            check_t(t).map_err(|m| Error::Usage(format!("-t: {m}")))?;
        }
        if let Some(k) = args.k.filter(|&k| k < 1) {
            return Err(Error::Usage(format!("-k: k must be at least 1 (got {k})")));
        }
        let weaker = std::cell::RefCell::new(Vec::new());
        // The stricter of a flag and the model's own value; a weaker flag is noted.
        let stricter =
            |flag: &str, given: Option<f64>, own: f64, larger: bool, model: &str| match given {
                Some(g) if (larger && g < own) || (!larger && g > own) => {
                    weaker.borrow_mut().push(weaker_flag(flag, g, own, model));
                    own
                }
                Some(g) => g,
                None => own,
            };
        let mut models = Vec::new();
        for el in elements {
            let attr = |name: &Option<String>| -> Result<usize> {
                match name {
                    Some(n) => sensitive.iter().position(|s| &s.name == n).ok_or_else(|| {
                        self.at(
                            &el.site,
                            format!(
                                "attribute '{n}' is not declared under <sens> (declared: {})",
                                names(sensitive)
                            ),
                        )
                    }),
                    None if sensitive.len() == 1 => Ok(0),
                    None => Err(self.at(
                        &el.site,
                        format!(
                            "attribute='NAME' is required: <sens> declares {} attributes ({})",
                            sensitive.len(),
                            names(sensitive)
                        ),
                    )),
                }
            };
            let with_l = |l: f64, model: &str| -> Result<f64> {
                check_l(l).map_err(|m| self.at(&el.site, m))?;
                Ok(stricter("-l", args.l, l, true, model))
            };
            let model = match &el.kind {
                PrivacyKind::KAnonymity { k } => {
                    if *k < 1 {
                        return Err(self.at(&el.site, format!("k must be at least 1 (got {k})")));
                    }
                    let k = stricter(
                        "-k",
                        args.k.map(|k| k as f64),
                        *k as f64,
                        true,
                        "k-anonymity",
                    );
                    PrivacyModel::KAnonymity { k: k as u64 }
                }
                PrivacyKind::DistinctL { attribute, l } => PrivacyModel::DistinctL {
                    attribute: attr(attribute)?,
                    l: with_l(*l, "distinct-l-diversity")?,
                },
                PrivacyKind::EntropyL { attribute, l } => PrivacyModel::EntropyL {
                    attribute: attr(attribute)?,
                    l: with_l(*l, "entropy-l-diversity")?,
                },
                PrivacyKind::RecursiveCL { attribute, c, l } => {
                    if let Some(c) = args.c.filter(|c| c.is_nan() || *c <= 0.0) {
                        return Err(Error::Usage(format!(
                            "-c: c must be greater than 0 for recursive (c,l)-diversity (got {c})"
                        )));
                    }
                    PrivacyModel::RecursiveCL {
                        attribute: attr(attribute)?,
                        c: stricter("-c", args.c, *c, false, "recursive-cl-diversity"),
                        l: with_l(*l, "recursive-cl-diversity")?,
                    }
                }
                PrivacyKind::TCloseness {
                    attribute,
                    t,
                    distance,
                } => {
                    let attribute = attr(attribute)?;
                    check_t(*t).map_err(|m| self.at(&el.site, m))?;
                    let t = stricter("-t", args.t, *t, false, "t-closeness");
                    if *distance == TDistance::Hierarchical
                        && sensitive[attribute].hierarchy.is_none()
                    {
                        return Err(self.at(
                            &el.site,
                            format!(
                                "hierarchical distance needs a hierarchy file for '{}' \
                                 (<att ... hierarchy='FILE'/> under <sens>)",
                                sensitive[attribute].name
                            ),
                        ));
                    }
                    PrivacyModel::TCloseness {
                        attribute,
                        t,
                        distance: *distance,
                    }
                }
                PrivacyKind::DeltaPresence { dmin, dmax, subset } => {
                    if !method.is_lattice() {
                        return Err(self.at(
                            &el.site,
                            format!(
                                "delta-presence needs the in-memory engine (-method Flash, OLA, \
                                 BFS or Optimal), not {}",
                                method.name()
                            ),
                        ));
                    }
                    let subset = match subset {
                        Subset::File(p) => {
                            if !p.is_file() {
                                return Err(self.at(
                                    &el.site,
                                    format!(
                                        "subset file {} does not exist or is not a regular file",
                                        p.display()
                                    ),
                                ));
                            }
                            SubsetSpec::File(p.clone())
                        }
                        Subset::Column(i) => {
                            if width.is_some_and(|w| *i >= w) {
                                return Err(self.at(
                                    &el.site,
                                    format!("subset-index {i} is beyond the row width"),
                                ));
                            }
                            SubsetSpec::Column(*i)
                        }
                    };
                    PrivacyModel::DeltaPresence {
                        dmin: *dmin,
                        dmax: *dmax,
                        subset,
                    }
                }
                PrivacyKind::KMap {
                    k,
                    population,
                    significance,
                    estimator,
                } => {
                    if *k < 1 {
                        return Err(self.at(&el.site, format!("k must be at least 1 (got {k})")));
                    }
                    PrivacyModel::KMap {
                        k: *k as u64,
                        population: population.clone(),
                        significance: *significance,
                        estimator: *estimator,
                    }
                }
                PrivacyKind::AverageRisk { threshold } => PrivacyModel::AverageRisk {
                    threshold: *threshold,
                },
                PrivacyKind::SampleUniqueness { threshold } => PrivacyModel::SampleUniqueness {
                    threshold: *threshold,
                },
                PrivacyKind::PopulationUniqueness {
                    threshold,
                    estimator,
                    population,
                } => PrivacyModel::PopulationUniqueness {
                    threshold: *threshold,
                    estimator: *estimator,
                    population: population.clone(),
                },
                PrivacyKind::DeltaDisclosure { attribute, delta } => {
                    PrivacyModel::DeltaDisclosure {
                        attribute: attr(attribute)?,
                        delta: *delta,
                    }
                }
                PrivacyKind::BetaLikeness {
                    attribute,
                    beta,
                    enhanced,
                } => PrivacyModel::BetaLikeness {
                    attribute: attr(attribute)?,
                    beta: *beta,
                    enhanced: *enhanced,
                },
                PrivacyKind::DifferentialPrivacy {
                    epsilon,
                    delta,
                    search,
                } => {
                    if crate::privacy::differential::parameters(*epsilon, *delta, search.budget())
                        .is_none()
                    {
                        return Err(self.at(
                            &el.site,
                            format!(
                                "k and the sampling probability cannot be computed for \
                                 epsilon={epsilon}, delta={delta} (the arithmetic overflows): \
                                 choose an epsilon nearer 1 or a larger delta"
                            ),
                        ));
                    }
                    if models
                        .iter()
                        .any(|m| matches!(m, PrivacyModel::DifferentialPrivacy { .. }))
                    {
                        return Err(self.at(&el.site, "a run has one differential-privacy model"));
                    }
                    PrivacyModel::DifferentialPrivacy {
                        epsilon: *epsilon,
                        delta: *delta,
                        search: *search,
                        seed: args.seed,
                    }
                }
            };
            models.push(model);
        }
        if models.is_empty() {
            let (site, _) = self.cfg.privacy.as_ref().expect("checked above");
            return Err(self.at(site, "<privacy> declares no privacy model"));
        }
        // A method that enforces k-anonymity never drops a k beside <privacy>: -k raises the
        // model's k (above) or adds the model; the root's k (the toolbox's parameter) raises
        // it, as Datafly and Mondrian take the larger. (Incognito_L/_T and Anatomy never used k.)
        let takes_k = method.is_lattice() || method == Method::IncognitoK;
        if let (true, Some(extra)) = (takes_k, args.k.or(self.cfg.k)) {
            let extra = extra.max(1) as u64;
            let model_k = models.iter_mut().find_map(|m| match m {
                PrivacyModel::KAnonymity { k } => Some(k),
                _ => None,
            });
            match (model_k, args.k) {
                (Some(_), Some(_)) => {} // -k met the model's k above
                (Some(k), None) => *k = (*k).max(extra),
                (None, _) => models.insert(0, PrivacyModel::KAnonymity { k: extra }),
            }
        }
        Ok((models, weaker.into_inner()))
    }
}

/// The warning for a flag weaker than the `<privacy>` model it meets (the model's value stays).
fn weaker_flag(flag: &str, given: f64, own: f64, model: &str) -> String {
    format!(
        "anonbox: {flag} {given} is weaker than the {model} of <privacy> ({own}): enforcing \
         {own} (a flag only makes a model stricter; edit the config to relax it)"
    )
}

fn names(sensitive: &[SensitiveAttribute]) -> String {
    if sensitive.is_empty() {
        return "none".to_string();
    }
    sensitive
        .iter()
        .map(|s| s.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_l(l: f64) -> std::result::Result<(), String> {
    if l > 1.0 {
        Ok(())
    } else {
        Err(format!(
            "l must be greater than 1 (got {l}; l-diversity with l <= 1 means nothing)"
        ))
    }
}

fn check_t(t: f64) -> std::result::Result<(), String> {
    if t > 0.0 && t <= 1.0 {
        Ok(())
    } else {
        Err(format!("t must be in (0, 1] (got {t})"))
    }
}

/// The input's first record, its fields trimmed; `None` for an input without one. Read by the
/// shared reader, so that quoting, a byte order mark and blank lines are read exactly as the
/// load pass reads them (a quoted header name may hold the separator).
fn peek_first_line(input: &InputSpec) -> Result<Option<FirstLine>> {
    let reader = Format::new(&input.separator, true)?
        .encoded(input.encoding)
        .max_line(input.max_line)
        .open(&input.path)?;
    Ok(reader.header().map(|h| FirstLine {
        fields: h
            .iter()
            .map(|f| String::from_utf8_lossy(f).trim().to_string())
            .collect(),
    }))
}

/// True if an output path names a data set folder: it ends with `/` or is an existing folder.
fn is_folder_output(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().ends_with(b"/") || path.is_dir()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert!(check_l(1.0).is_err());
        assert!(check_l(1.2).is_ok());
        assert!(check_t(0.0).is_err());
        assert!(check_t(1.0).is_ok());
        assert!(check_t(1.01).is_err());
        assert!(check_t(f64::NAN).is_err());
    }
}
