//! The UT Dallas toolbox's XML configuration, read exactly as the toolbox reads it.
//!
//! See `../shared/UTD-TOOLBOX.md` §4. In short: the root is the first element, whatever its name;
//! its attributes `k`, `l`, `c`, `t`, `method` are read with case-insensitive names; its direct
//! children `input`, `output`, `id`, `qid`, `sens` are matched case-insensitively (several
//! `<id>` accumulate; the last `<qid>` and `<sens>` win); attribute elements under them may have
//! any name and need an `index`; inside one, `map` and `vgh` are matched case-sensitively; VGH
//! nodes may have any name, nest to any depth, and must lie within their parent; a `<map>` that
//! comes before the `<vgh>` must map every category into some leaf. Unknown attributes are
//! ignored, as in the toolbox; unknown children of the root are refused (a misspelled `<id>` or
//! `<privacy>` would release less protection than asked), except `<kid>` and `<sqlitefile>`,
//! which configs written for the toolbox carry; so is an element after the root.
//!
//! anonbox extensions (all optional, ignored by the toolbox):
//! - `<input filename='adult.csv' separator=';' header='true'/>`: the first line names the
//!   columns. Attribute elements may then give `name='age'` (checked against the header, or used
//!   to find the index when `index` is absent).
//! - `<att index='1' name='age' hierarchy='adult_hierarchy_age.csv'/>` under `<qid>` or `<sens>`:
//!   an ARX hierarchy file instead of `<map>` + `<vgh>`.
//! - a hierarchy builder as the child of a `<qid>` attribute element instead of `<map>` +
//!   `<vgh>` or a file: `<intervals widths='5,10,20' start='0'/>`, `<mask step='2'/>`,
//!   `<dates format='%Y-%m-%d' levels='month,year'/>`, `<categories frequency='10'/>` (the
//!   attributes are the builder's parameters, see [`crate::hierarchy::build`]). The description
//!   is checked here, so a bad one is a config error (exit 2) before the data is read; the
//!   builder runs while the data is loaded.
//! - root attributes `suppression` (a fraction of records, ARX style), `suppress` (`records` or
//!   `cells`: what the lattice searches suppress) and `metric`; `importance='N'` on a `<qid>`
//!   attribute (its rank for cell suppression).
//! - `<privacy>`: privacy models for the lattice methods (see [`PrivacyKind`]).
//!
//! Relative paths are resolved against the config file's folder. This module only reads; the
//! checks that need the input file or the method (index range, duplicates, leaf depth) are in
//! `config::build_job`. Errors name the file, the line and the element.

use std::path::{Path, PathBuf};

use super::xml::{self, Element};
use crate::hierarchy::build::{Builder, Params};
use crate::hierarchy::vgh::{CategoryMap, Interval, VghNode};
use crate::javafmt::{parse_double, parse_int};
use crate::job::{Method, MetricKind, OutputFormat, TDistance};
use crate::privacy::differential::{Degree, DpSearch, DEFAULT_SEARCH_BUDGET};
use crate::privacy::kmap::Estimator;
use crate::privacy::population::Population;
use crate::privacy::uniqueness::Estimator as UniquesEstimator;
use crate::{Error, Result};

/// Where an element was written: its line and its start tag (with the identifying attributes).
#[derive(Debug, Clone, PartialEq)]
pub struct Site {
    pub line: u64,
    pub tag: String,
}

/// A parsed toolbox configuration, before it is merged with the flags and the input.
#[derive(Debug, Clone)]
pub struct UtdConfig {
    /// The config file, as given.
    pub path: PathBuf,
    /// Its text, verbatim (recorded in the store).
    pub text: String,
    /// The root element.
    pub root: Site,
    pub k: Option<i64>,
    pub l: Option<f64>,
    pub c: Option<f64>,
    pub t: Option<f64>,
    pub method: Option<Method>,
    /// Extension: suppression limit as a fraction of records.
    pub suppression: Option<f64>,
    /// Extension: what the lattice searches suppress, records or cells (`suppress`).
    pub suppress: Option<crate::algorithms::cells::Suppress>,
    /// Extension: utility metric.
    pub metric: Option<MetricKind>,
    /// Extension: time limit of the lattice searches, seconds.
    pub time_limit: Option<f64>,
    pub input: Option<InputElement>,
    pub output: Option<OutputElement>,
    /// `<id>` children, all `<id>` elements together.
    pub ids: Vec<AttributeElement>,
    /// The `<qid>` (one at most): its site and children. `None` if there is no `<qid>`.
    pub qid: Option<(Site, Vec<AttributeElement>)>,
    /// The `<sens>` (one at most).
    pub sens: Option<(Site, Vec<AttributeElement>)>,
    /// The `<privacy>` (one at most).
    pub privacy: Option<(Site, Vec<PrivacyElement>)>,
    /// Extension: `<privacy local-recoding="true">` (lattice searches).
    pub local_recoding: Option<bool>,
    /// Extension `<engine name='datafusion' memoryLimit='2G'/>` (one at most).
    pub engine: Option<EngineElement>,
}

/// `<engine name memoryLimit>`: which engine reads the records and writes the release.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineElement {
    pub site: Site,
    pub kind: crate::engine::EngineKind,
    /// `memoryLimit` in bytes (the datafusion engine's plans).
    pub memory_limit: Option<usize>,
}

/// `<input filename separator header>`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputElement {
    pub site: Site,
    /// Resolved against the config's folder.
    pub filename: Option<PathBuf>,
    pub separator: Option<String>,
    pub header: Option<bool>,
    /// `unknown='keep'` (rows containing `?` are data) or `'skip'` (the toolbox's way).
    pub keep_unknown: Option<bool>,
    /// `encoding='LABEL'`: the input's text encoding (a WHATWG label, checked here).
    pub encoding: Option<&'static crate::io::encoding::Encoding>,
    /// `format='parquet'` (or `arrow`): a columnar input whatever its name says.
    pub format: Option<crate::io::columnar::Kind>,
}

/// `<output filename format>`.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputElement {
    pub site: Site,
    pub filename: Option<PathBuf>,
    pub format: Option<OutputFormat>,
    /// `format='parquet'` (or `arrow`): genVals written as a columnar file.
    pub columnar: Option<crate::io::columnar::Kind>,
}

/// A child of `<id>`, `<qid>` or `<sens>`.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeElement {
    pub site: Site,
    /// 0-based column. `None` only when a `name` is given (resolved from the header).
    pub index: Option<usize>,
    pub name: Option<String>,
    /// `<map>` (the last one, if several).
    pub map: Option<CategoryMap>,
    /// `<vgh>` (qid only).
    pub vgh: Option<VghNode>,
    /// Extension: an ARX hierarchy file, resolved against the config's folder.
    pub hierarchy: Option<PathBuf>,
    /// Extension: a hierarchy builder (`<intervals widths='5,10,20'/>`, `<mask/>`, `<dates/>`,
    /// `<categories/>`), checked here, run when the data is loaded.
    pub builder: Option<(Site, Builder)>,
    /// Extension (qid only): `importance='N'`, 1 the most important, blanked last by cell
    /// suppression.
    pub importance: Option<u32>,
}

impl AttributeElement {
    /// `index N` or `name 'x'`, for messages.
    pub fn describe(&self) -> String {
        match (&self.index, &self.name) {
            (Some(i), _) => format!("index {i}"),
            (None, Some(n)) => format!("name '{n}'"),
            (None, None) => "?".to_string(),
        }
    }
}

/// One child of `<privacy>`.
#[derive(Debug, Clone, PartialEq)]
pub struct PrivacyElement {
    pub site: Site,
    pub kind: PrivacyKind,
}

/// The privacy models of `<privacy>`. `attribute` names a column declared under `<sens>`; it may
/// be left out when there is exactly one.
#[derive(Debug, Clone, PartialEq)]
pub enum PrivacyKind {
    /// `<k-anonymity k='5'/>`
    KAnonymity { k: i64 },
    /// `<distinct-l-diversity attribute='occupation' l='3'/>`
    DistinctL { attribute: Option<String>, l: f64 },
    /// `<entropy-l-diversity attribute='occupation' l='3'/>`
    EntropyL { attribute: Option<String>, l: f64 },
    /// `<recursive-cl-diversity attribute='occupation' c='4' l='3'/>`
    RecursiveCL {
        attribute: Option<String>,
        c: f64,
        l: f64,
    },
    /// `<t-closeness attribute='occupation' t='0.2' distance='equal|hierarchical|ordered'/>`
    /// (distance defaults to `equal`).
    TCloseness {
        attribute: Option<String>,
        t: f64,
        distance: TDistance,
    },
    /// `<delta-presence dmin='0.0' dmax='0.5' subset='subset.csv'/>` (a file with the research
    /// subset's rows, resolved against the config's folder) or `subset-index='N'` (a 0/1 column).
    DeltaPresence {
        dmin: f64,
        dmax: f64,
        subset: Subset,
    },
    /// `<k-map k='5' population='usa'/>` or `population-size='N'`, with `significance='0.01'`
    /// and `estimator='poisson|zero-truncated-poisson'` (ARX's defaults).
    KMap {
        k: i64,
        population: Population,
        significance: f64,
        estimator: Estimator,
    },
    /// `<average-risk threshold='0.05'/>`
    AverageRisk { threshold: f64 },
    /// `<sample-uniqueness threshold='0.01'/>`
    SampleUniqueness { threshold: f64 },
    /// `<population-uniqueness threshold='0.01' model='pitman|zayatz|snb|dankar'
    /// population='usa'/>` (or `population-size='N'`; model defaults to `dankar`)
    PopulationUniqueness {
        threshold: f64,
        estimator: UniquesEstimator,
        population: Population,
    },
    /// `<delta-disclosure attribute='occupation' delta='1.2'/>`
    DeltaDisclosure {
        attribute: Option<String>,
        delta: f64,
    },
    /// `<beta-likeness attribute='occupation' beta='1.0' enhanced='false'/>`
    BetaLikeness {
        attribute: Option<String>,
        beta: f64,
        enhanced: bool,
    },
    /// `<differential-privacy epsilon='2' delta='1e-5' generalization='medium'/>`
    /// (data-independent; the default) or `steps='N'` with `budget='0.1'` (data-dependent).
    DifferentialPrivacy {
        epsilon: f64,
        delta: f64,
        search: DpSearch,
    },
}

/// Where delta-presence's research subset comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Subset {
    File(PathBuf),
    Column(usize),
}

/// The element names accepted under `<privacy>`.
pub const PRIVACY_NAMES: &[&str] = &[
    "k-anonymity",
    "distinct-l-diversity",
    "entropy-l-diversity",
    "recursive-cl-diversity",
    "t-closeness",
    "delta-presence",
    "k-map",
    "average-risk",
    "sample-uniqueness",
    "population-uniqueness",
    "delta-disclosure",
    "beta-likeness",
    "differential-privacy",
];

/// The largest config file read (VGHs of every value of a column included, configs stay far
/// below).
const MAX_CONFIG_BYTES: u64 = 256 << 20;

/// Reads and parses a config file. A missing file is reported as
/// `Configuration file X does not exist`.
pub fn load(path: &Path) -> Result<UtdConfig> {
    // A folder, a device or a FIFO nobody writes into is no config (`/dev/zero` was read for
    // ever, such a FIFO waited for ever); a pipe with a writer is (`-config <(...)`), up to a
    // size no config reaches.
    use crate::io::source::{open_config, Config};
    let read = open_config(path).and_then(|source| {
        use std::io::Read;
        let (mut bytes, file) = match source {
            // Larger than a config: refused before a byte is read.
            Config::File(_, len) if len > MAX_CONFIG_BYTES => return Ok(None),
            Config::File(f, len) => (Vec::with_capacity(len as usize), f),
            Config::Pipe(head, f) => (head, f),
        };
        let rest = MAX_CONFIG_BYTES + 1 - bytes.len() as u64;
        file.take(rest).read_to_end(&mut bytes)?;
        Ok((bytes.len() as u64 <= MAX_CONFIG_BYTES).then_some(bytes))
    });
    let text = match read {
        Ok(None) => {
            return Err(Error::in_file(
                path,
                format!(
                    "the configuration file is larger than {} MB: not a config",
                    MAX_CONFIG_BYTES >> 20
                ),
            ))
        }
        Ok(Some(bytes)) => String::from_utf8(bytes)
            .map_err(|_| Error::in_file(path, "the configuration file is not valid UTF-8"))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::in_file(
                path,
                "Configuration file does not exist (give one with -config FILE)",
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {
            return Err(Error::in_file(
                path,
                format!("the configuration file is {e}"),
            ))
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    parse(path, text)
}

/// Parses the text of config file `path` (used for messages and to resolve relative paths).
pub fn parse(path: &Path, text: String) -> Result<UtdConfig> {
    let root = xml::parse_document(path, &text)?
        .ok_or_else(|| Error::in_file(path, "Empty configuration file (no XML element)"))?;
    let p = Parser {
        path,
        dir: path.parent().unwrap_or(Path::new("")),
    };
    let mut cfg = UtdConfig {
        path: path.to_path_buf(),
        text: String::new(),
        root: site(&root, &[]),
        k: None,
        l: None,
        c: None,
        t: None,
        method: None,
        suppression: None,
        suppress: None,
        metric: None,
        time_limit: None,
        input: None,
        output: None,
        ids: Vec::new(),
        qid: None,
        sens: None,
        privacy: None,
        local_recoding: None,
        engine: None,
    };

    if let Some(v) = root.attr("k") {
        cfg.k = Some(p.int(&root, "k", v)?);
    }
    for (name, slot) in [
        ("l", &mut cfg.l),
        ("c", &mut cfg.c),
        ("t", &mut cfg.t),
        ("suppression", &mut cfg.suppression),
    ] {
        if let Some(v) = root.attr(name) {
            *slot = Some(p.double(&root, name, v)?);
        }
    }
    if let Some(v) = root.attr("method") {
        cfg.method = Some(Method::parse(v.trim()).ok_or_else(|| {
            p.err(
                &root,
                &["method"],
                format!(
                    "unknown method '{v}'; accepted: {}",
                    Method::NAMES.join(", ")
                ),
            )
        })?);
    }
    if let Some(v) = root.attr("suppress") {
        cfg.suppress = Some(crate::algorithms::cells::Suppress::parse(v).ok_or_else(|| {
            p.err(
                &root,
                &["suppress"],
                format!(
                    "unknown suppress '{v}'; accepted: {}",
                    crate::algorithms::cells::Suppress::NAMES.join(", ")
                ),
            )
        })?);
    }
    if let Some(v) = root.attr("metric") {
        cfg.metric = Some(MetricKind::parse(v.trim()).ok_or_else(|| {
            p.err(
                &root,
                &["metric"],
                format!(
                    "unknown metric '{v}'; accepted: {}",
                    MetricKind::NAMES.join(", ")
                ),
            )
        })?);
    }

    if let Some(v) = root.attr("timeLimit") {
        let t = v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|t| *t > 0.0 && t.is_finite());
        cfg.time_limit = Some(t.ok_or_else(|| {
            p.err(
                &root,
                &["timeLimit"],
                format!("timeLimit '{v}' is not a number of seconds > 0"),
            )
        })?);
    }

    // A block given twice would replace the first, whose columns would go out as they are
    // (or whose models would not be enforced): refused.
    for tag in ["input", "output", "qid", "sens", "privacy", "engine"] {
        if let Some(second) = root.children.iter().filter(|c| c.is(tag)).nth(1) {
            return Err(p.err(
                second,
                &[],
                format!("a second <{tag}> element: give one, with every attribute in it"),
            ));
        }
    }
    for child in &root.children {
        if child.is("input") {
            cfg.input = Some(p.input(child)?);
        } else if child.is("output") {
            cfg.output = Some(p.output(child)?);
        } else if child.is("id") {
            // Every identifier must name its column: one skipped would be released as it is.
            for att in &child.children {
                cfg.ids.push(p.attribute(att, Role::Id)?);
            }
        } else if child.is("qid") {
            let atts = child
                .children
                .iter()
                .map(|att| p.attribute(att, Role::Qid))
                .collect::<Result<_>>()?;
            cfg.qid = Some((site(child, &[]), atts));
        } else if child.is("sens") {
            let atts = child
                .children
                .iter()
                .map(|att| p.attribute(att, Role::Sens))
                .collect::<Result<_>>()?;
            cfg.sens = Some((site(child, &[]), atts));
        } else if child.is("privacy") {
            cfg.local_recoding = p.privacy_attributes(child)?;
            let models = child
                .children
                .iter()
                .map(|m| p.privacy(m))
                .collect::<Result<_>>()?;
            cfg.privacy = Some((site(child, &[]), models));
        } else if child.is("engine") {
            let name = p.required(child, "name", &[])?;
            let kind = crate::engine::EngineKind::parse_named(name)
                .map_err(|m| p.err(child, &["name"], m))?;
            let memory_limit = child
                .attr("memoryLimit")
                .map(|v| {
                    crate::io::source::parse_size(v.trim())
                        .map_err(|m| p.err(child, &["memoryLimit"], format!("memoryLimit: {m}")))
                })
                .transpose()?;
            cfg.engine = Some(EngineElement {
                site: site(child, &["name"]),
                kind,
                memory_limit,
            });
        } else if !IGNORED_CHILDREN.iter().any(|t| child.is(t)) {
            return Err(p.err(
                child,
                &[],
                "an element anonbox does not read: the root holds <input>, <output>, <id>, \
                 <qid>, <sens>, <privacy> and <engine> (a misspelled one would release identifiers or drop \
                 a privacy model)",
            ));
        }
    }
    cfg.text = text;
    Ok(cfg)
}

/// Root children the toolbox's own configs carry and it ignores (`UTD-TOOLBOX.md` §4); any
/// other unknown child is refused.
const IGNORED_CHILDREN: [&str; 2] = ["kid", "sqlitefile"];

/// The role of an attribute element, for its messages.
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Id,
    Qid,
    Sens,
}

impl Role {
    fn what(self) -> &'static str {
        match self {
            Role::Id => "identifier",
            Role::Qid => "qid",
            Role::Sens => "sensitive",
        }
    }
}

fn site(el: &Element, shown: &[&str]) -> Site {
    Site {
        line: el.line,
        tag: el.tag(shown),
    }
}

struct Parser<'a> {
    path: &'a Path,
    dir: &'a Path,
}

impl Parser<'_> {
    fn err(&self, el: &Element, shown: &[&str], msg: impl Into<String>) -> Error {
        Error::at(self.path, el.line, Some(el.tag(shown)), msg)
    }

    fn int(&self, el: &Element, name: &str, v: &str) -> Result<i64> {
        parse_int(v)
            .map(i64::from)
            .ok_or_else(|| self.err(el, &[name], format!("{name}='{v}' is not an integer")))
    }

    fn double(&self, el: &Element, name: &str, v: &str) -> Result<f64> {
        parse_double(v)
            .ok_or_else(|| self.err(el, &[name], format!("{name}='{v}' is not a number")))
    }

    fn required<'e>(&self, el: &'e Element, name: &str, shown: &[&str]) -> Result<&'e str> {
        el.attr(name)
            .ok_or_else(|| self.err(el, shown, format!("missing attribute '{name}'")))
    }

    fn resolve(&self, file: &str) -> PathBuf {
        let p = PathBuf::from(file);
        if p.is_absolute() {
            p
        } else {
            self.dir.join(p)
        }
    }

    fn input(&self, el: &Element) -> Result<InputElement> {
        let header = match el.attr("header") {
            None => None,
            Some(v) if v.trim().eq_ignore_ascii_case("true") => Some(true),
            Some(v) if v.trim().eq_ignore_ascii_case("false") => Some(false),
            Some(v) => {
                return Err(self.err(
                    el,
                    &["header"],
                    format!("header='{v}' must be 'true' or 'false'"),
                ))
            }
        };
        let keep_unknown = match el.attr("unknown").map(str::trim) {
            None => None,
            Some(v) if v.eq_ignore_ascii_case("keep") => Some(true),
            Some(v) if v.eq_ignore_ascii_case("skip") => Some(false),
            Some(v) => {
                return Err(self.err(
                    el,
                    &["unknown"],
                    format!(
                        "unknown='{v}' must be 'skip' (rows containing ? are skipped, as the \
                         toolbox does) or 'keep' (? is a value like any other)"
                    ),
                ))
            }
        };
        let encoding = el
            .attr("encoding")
            .map(crate::io::encoding::for_label)
            .transpose()
            .map_err(|m| self.err(el, &["encoding"], m))?;
        let format = match el.attr("format").map(str::trim) {
            None => None,
            Some(v) if v.eq_ignore_ascii_case("delimited") || v.eq_ignore_ascii_case("csv") => None,
            Some(v) => Some(crate::io::columnar::Kind::parse(v).ok_or_else(|| {
                self.err(
                    el,
                    &["format"],
                    format!("format='{v}' must be 'delimited', 'parquet' or 'arrow'"),
                )
            })?),
        };
        Ok(InputElement {
            format,
            site: site(el, &["filename"]),
            filename: el.attr("filename").map(|f| self.resolve(f)),
            separator: el.attr("separator").map(str::to_string),
            header,
            keep_unknown,
            encoding,
        })
    }

    fn output(&self, el: &Element) -> Result<OutputElement> {
        let columnar = el.attr("format").and_then(crate::io::columnar::Kind::parse);
        let format = match el.attr("format") {
            None => None,
            Some(_) if columnar.is_some() => Some(OutputFormat::GenVals),
            Some(v) => Some(OutputFormat::parse(v.trim()).ok_or_else(|| {
                self.err(
                    el,
                    &["format"],
                    format!(
                        "unknown output format '{v}'; accepted: {}, parquet, arrow",
                        OutputFormat::NAMES.join(", ")
                    ),
                )
            })?),
        };
        Ok(OutputElement {
            site: site(el, &["filename"]),
            filename: el.attr("filename").map(|f| self.resolve(f)),
            format,
            columnar,
        })
    }

    fn attribute(&self, el: &Element, role: Role) -> Result<AttributeElement> {
        let shown = &["index", "name"];
        let name = el.attr("name").map(|n| n.trim().to_string());
        let index = match el.attr("index") {
            Some(v) => {
                let i = self.int(el, "index", v)?;
                if i < 0 {
                    return Err(self.err(el, shown, format!("index {i} is negative")));
                }
                Some(i as usize)
            }
            None if name.is_some() => None,
            None => {
                let msg = match role {
                    Role::Qid => "Every quasi-identifier attribute should have an index",
                    Role::Sens => "Every sensitive attribute should have an index",
                    Role::Id => "Every identifier attribute should have an index",
                };
                return Err(self.err(el, shown, msg));
            }
        };
        let mut att = AttributeElement {
            site: site(el, shown),
            index,
            name,
            map: None,
            vgh: None,
            hierarchy: el.attr("hierarchy").map(|f| self.resolve(f)),
            builder: None,
            importance: None,
        };
        if role == Role::Id {
            return Ok(att);
        }
        if let (Some(v), Role::Qid) = (el.attr("importance"), role) {
            let i = self.int(el, "importance", v)?;
            if i < 1 {
                return Err(self.err(
                    el,
                    &["importance"],
                    format!("importance {i} is not a rank >= 1 (1: the most important)"),
                ));
            }
            att.importance = Some(i as u32);
        }
        let label = att.describe();
        for child in &el.children {
            // Case-sensitive, as in the toolbox.
            if child.name == "map" {
                att.map = Some(self.map(child, role, &label)?);
            } else if Builder::KINDS.contains(&child.name.as_str()) && role == Role::Qid {
                if att.builder.is_some() {
                    return Err(self.err(
                        child,
                        &[],
                        format!("qid attribute {label} has two hierarchy builders"),
                    ));
                }
                if let Some(inner) = child.children.first() {
                    return Err(self.err(
                        inner,
                        &[],
                        format!(
                            "a builder takes its parameters as attributes; <{}> has no children",
                            child.name
                        ),
                    ));
                }
                let mut params = Params::new(self.dir);
                for (k, v) in &child.attrs {
                    params.push(k.clone(), v.clone());
                }
                let builder = Builder::from_params(&child.name, &params)
                    .map_err(|m| self.err(child, &[], m))?;
                att.builder = Some((site(child, &[]), builder));
            } else if Builder::KINDS.contains(&child.name.as_str()) && role == Role::Sens {
                return Err(self.err(
                    child,
                    &[],
                    format!(
                        "a hierarchy builder is not read under <sens>: sensitive attribute \
                         {label} takes <map> or hierarchy='FILE'"
                    ),
                ));
            } else if child.name == "vgh" && role == Role::Qid {
                let vgh = self.vgh(child, &label)?;
                if let Some(map) = &att.map {
                    // The toolbox checks the map against the leaves only when <map> comes first.
                    check_map_in_leaves(map, &vgh)
                        .map_err(|msg| self.err(child, &["value"], msg))?;
                }
                att.vgh = Some(vgh);
            }
        }
        if let Some((site, b)) = &att.builder {
            if let Some(what) = att
                .hierarchy
                .as_ref()
                .map(|_| "a hierarchy file")
                .or(att.vgh.as_ref().map(|_| "a <vgh>"))
                .or(att.map.as_ref().map(|_| "a <map>"))
            {
                return Err(Error::at(
                    self.path,
                    site.line,
                    Some(site.tag.clone()),
                    format!(
                        "qid attribute {label} has {what}; it cannot also have <{}>",
                        b.kind()
                    ),
                ));
            }
        } else if att.hierarchy.is_some() {
            if let Some(child) = el
                .children
                .iter()
                .find(|c| c.name == "map" || (c.name == "vgh" && role == Role::Qid))
            {
                return Err(self.err(
                    child,
                    &[],
                    format!(
                        "{} attribute {label} has a hierarchy file; it cannot also have <{}>",
                        role.what(),
                        child.name
                    ),
                ));
            }
        } else if role == Role::Qid && att.vgh.is_none() {
            return Err(self.err(
                el,
                shown,
                format!(
                    "Cannot parse the VGH of qid-attribute at {label}: no <vgh> element \
                     (or hierarchy='FILE', or a builder: <intervals/>, <mask/>, <dates/>, \
                     <categories/>)"
                ),
            ));
        }
        Ok(att)
    }

    fn map(&self, el: &Element, role: Role, label: &str) -> Result<CategoryMap> {
        let mut map = CategoryMap::default();
        let what = match role {
            Role::Sens => "sensitive attribute",
            _ => "qid-attribute",
        };
        for entry in &el.children {
            let (Some(cat), Some(int)) = (entry.attr("cat"), entry.attr("int")) else {
                return Err(self.err(
                    entry,
                    &["cat", "int"],
                    format!(
                        "Cannot parse the mapping of the {what} at {label}: \
                         an entry needs both 'cat' and 'int'"
                    ),
                ));
            };
            let int = parse_int(int).ok_or_else(|| {
                self.err(
                    entry,
                    &["cat", "int"],
                    format!(
                        "Cannot parse the mapping of the {what} at {label}: \
                         int='{int}' is not an integer"
                    ),
                )
            })?;
            // The toolbox kept the last of two entries for one category: a category mapped to
            // two numbers is a mistake in the config, refused.
            if let Some(before) = map.get(cat).filter(|&b| b != i64::from(int)) {
                return Err(self.err(
                    entry,
                    &["cat", "int"],
                    format!(
                        "the {what} at {label} maps '{cat}' twice, to {before} and to {int}: give \
                         each category one entry"
                    ),
                ));
            }
            map.insert(cat, i64::from(int));
        }
        Ok(map)
    }

    fn vgh(&self, el: &Element, label: &str) -> Result<VghNode> {
        let root = self.vgh_node(el, None, label)?;
        // Labels key the toolbox's parent lookup; a repeated one would merge distinct nodes.
        let mut seen = rustc_hash::FxHashSet::default();
        let mut stack = vec![(&root, el)];
        while let Some((node, element)) = stack.pop() {
            if !seen.insert(node.label.as_str()) {
                return Err(self.err(
                    element,
                    &["value"],
                    format!(
                        "Error in VGH structure, attribute {label}: the value '{}' appears \
                         twice",
                        node.label
                    ),
                ));
            }
            stack.extend(node.children.iter().zip(&element.children));
        }
        Ok(root)
    }

    fn vgh_node(&self, el: &Element, parent: Option<&VghNode>, label: &str) -> Result<VghNode> {
        let value = el.attr("value").ok_or_else(|| {
            self.err(
                el,
                &[],
                format!("Error in VGH structure, attribute {label}: missing attribute 'value'"),
            )
        })?;
        let interval = Interval::parse(value).map_err(|msg| {
            self.err(
                el,
                &["value"],
                format!("Error in VGH structure, attribute {label}: {msg}"),
            )
        })?;
        if let Some(parent) = parent {
            if !parent.interval.contains(&interval) {
                return Err(self.err(
                    el,
                    &["value"],
                    format!(
                        "Error in VGH structure, attribute {label}: {value} is not within its \
                         parent {}",
                        parent.label
                    ),
                ));
            }
        }
        let mut node = VghNode {
            label: value.to_string(),
            interval,
            children: Vec::new(),
        };
        for child in &el.children {
            let c = self.vgh_node(child, Some(&node), label)?;
            node.children.push(c);
        }
        Ok(node)
    }

    /// A model's population: `population='REGION'` or `population-size='N'`.
    fn population(&self, el: &Element) -> Result<Population> {
        Ok(match (el.attr("population"), el.attr("population-size")) {
            (Some(p), None) => {
                Population::parse(p).map_err(|e| self.err(el, &["population"], e.to_string()))?
            }
            (None, Some(n)) => {
                let n = self.int(el, "population-size", n)?;
                if n < 1 {
                    return Err(self.err(
                        el,
                        &["population-size"],
                        "population-size must be at least 1",
                    ));
                }
                Population::of_size(n as u64)
            }
            _ => {
                return Err(self.err(
                    el,
                    &[],
                    "give exactly one of population='REGION' (usa, uk, germany, ...) \
                             and population-size='N'",
                ))
            }
        })
    }

    /// `<privacy>`'s own attributes: `local-recoding` only (a misspelled one would drop it).
    fn privacy_attributes(&self, el: &Element) -> Result<Option<bool>> {
        if let Some((a, _)) = el
            .attrs
            .iter()
            .find(|(a, _)| !a.eq_ignore_ascii_case("local-recoding"))
        {
            return Err(self.err(
                el,
                &[],
                format!("unknown attribute '{a}' of <privacy>; accepted: local-recoding"),
            ));
        }
        match el
            .attr("local-recoding")
            .map(|v| v.trim().to_ascii_lowercase())
        {
            None => Ok(None),
            Some(v) if v == "true" => Ok(Some(true)),
            Some(v) if v == "false" => Ok(Some(false)),
            Some(v) => Err(self.err(
                el,
                &["local-recoding"],
                format!("local-recoding='{v}': accepted: true, false"),
            )),
        }
    }

    fn privacy(&self, el: &Element) -> Result<PrivacyElement> {
        let name = el.name.to_ascii_lowercase();
        let shown: &[&str] = &["attribute"];
        let num = |attr: &str| -> Result<f64> {
            let v = self.required(el, attr, shown)?;
            self.double(el, attr, v)
        };
        let attribute = el.attr("attribute").map(|a| a.trim().to_string());
        let kind = match name.as_str() {
            "k-anonymity" => {
                let v = self.required(el, "k", &[])?;
                PrivacyKind::KAnonymity {
                    k: self.int(el, "k", v)?,
                }
            }
            "distinct-l-diversity" => PrivacyKind::DistinctL {
                attribute,
                l: num("l")?,
            },
            "entropy-l-diversity" => PrivacyKind::EntropyL {
                attribute,
                l: num("l")?,
            },
            "recursive-cl-diversity" => {
                let c = num("c")?;
                if c.is_nan() || c <= 0.0 {
                    return Err(self.err(el, &["c"], format!("c={c} must be greater than 0")));
                }
                PrivacyKind::RecursiveCL {
                    attribute,
                    c,
                    l: num("l")?,
                }
            }
            "t-closeness" => {
                let distance = match el.attr("distance").map(|d| d.trim().to_ascii_lowercase()) {
                    None => TDistance::Equal,
                    Some(d) if d == "equal" => TDistance::Equal,
                    Some(d) if d == "hierarchical" => TDistance::Hierarchical,
                    Some(d) if d == "ordered" => TDistance::Ordered,
                    Some(d) => {
                        return Err(self.err(
                            el,
                            &["distance"],
                            format!(
                                "unknown distance '{d}'; accepted: equal, hierarchical, ordered"
                            ),
                        ))
                    }
                };
                PrivacyKind::TCloseness {
                    attribute,
                    t: num("t")?,
                    distance,
                }
            }
            "delta-presence" => {
                let dmin = num("dmin")?;
                let dmax = num("dmax")?;
                if !(0.0..=1.0).contains(&dmin) || !(0.0..=1.0).contains(&dmax) || dmin > dmax {
                    return Err(self.err(el, &["dmin", "dmax"], "need 0 <= dmin <= dmax <= 1"));
                }
                let subset = match (el.attr("subset"), el.attr("subset-index")) {
                    (Some(f), None) => Subset::File(self.resolve(f)),
                    (None, Some(i)) => {
                        let i = self.int(el, "subset-index", i)?;
                        if i < 0 {
                            return Err(self.err(
                                el,
                                &["subset-index"],
                                "subset-index is negative",
                            ));
                        }
                        Subset::Column(i as usize)
                    }
                    _ => {
                        return Err(self.err(
                            el,
                            &[],
                            "give exactly one of subset='FILE' and subset-index='COLUMN'",
                        ))
                    }
                };
                PrivacyKind::DeltaPresence { dmin, dmax, subset }
            }
            "k-map" => {
                let v = self.required(el, "k", &[])?;
                let k = self.int(el, "k", v)?;
                let population = self.population(el)?;
                let significance = match el.attr("significance") {
                    Some(v) => self.double(el, "significance", v)?,
                    None => 0.01,
                };
                if !(0.0..=1.0).contains(&significance) {
                    return Err(self.err(el, &["significance"], "need 0 <= significance <= 1"));
                }
                let estimator = match el.attr("estimator").map(|d| d.trim().to_ascii_lowercase()) {
                    None => Estimator::Poisson,
                    Some(d) if d == "poisson" => Estimator::Poisson,
                    Some(d) if d == "zero-truncated-poisson" => Estimator::ZeroTruncatedPoisson,
                    Some(d) => {
                        return Err(self.err(
                            el,
                            &["estimator"],
                            format!(
                                "unknown estimator '{d}'; accepted: poisson, \
                                 zero-truncated-poisson"
                            ),
                        ))
                    }
                };
                PrivacyKind::KMap {
                    k,
                    population,
                    significance,
                    estimator,
                }
            }
            "average-risk" | "sample-uniqueness" => {
                let threshold = num("threshold")?;
                if !(0.0..=1.0).contains(&threshold) {
                    return Err(self.err(el, &["threshold"], "need 0 <= threshold <= 1"));
                }
                if name == "average-risk" {
                    PrivacyKind::AverageRisk { threshold }
                } else {
                    PrivacyKind::SampleUniqueness { threshold }
                }
            }
            "population-uniqueness" => {
                let threshold = num("threshold")?;
                if !(0.0..=1.0).contains(&threshold) {
                    return Err(self.err(el, &["threshold"], "need 0 <= threshold <= 1"));
                }
                let estimator = match el.attr("model") {
                    None => UniquesEstimator::Dankar,
                    Some(m) => UniquesEstimator::parse(m).ok_or_else(|| {
                        self.err(
                            el,
                            &["model"],
                            format!("unknown model '{m}'; accepted: pitman, zayatz, snb, dankar"),
                        )
                    })?,
                };
                PrivacyKind::PopulationUniqueness {
                    threshold,
                    estimator,
                    population: self.population(el)?,
                }
            }
            "delta-disclosure" => {
                let delta = num("delta")?;
                if delta.is_nan() || delta <= 0.0 {
                    return Err(self.err(el, &["delta"], format!("delta={delta} must be above 0")));
                }
                PrivacyKind::DeltaDisclosure { attribute, delta }
            }
            "beta-likeness" => {
                let beta = num("beta")?;
                if beta.is_nan() || beta <= 0.0 {
                    return Err(self.err(el, &["beta"], format!("beta={beta} must be above 0")));
                }
                let enhanced = match el.attr("enhanced").map(|d| d.trim().to_ascii_lowercase()) {
                    None => false,
                    Some(d) if d == "true" => true,
                    Some(d) if d == "false" => false,
                    Some(d) => {
                        return Err(self.err(
                            el,
                            &["enhanced"],
                            format!("enhanced='{d}': accepted: true, false"),
                        ))
                    }
                };
                PrivacyKind::BetaLikeness {
                    attribute,
                    beta,
                    enhanced,
                }
            }
            "differential-privacy" => {
                let epsilon = num("epsilon")?;
                if !(epsilon.is_finite() && epsilon > 0.0) {
                    return Err(self.err(
                        el,
                        &["epsilon"],
                        format!("epsilon={epsilon} must be above 0"),
                    ));
                }
                let delta = num("delta")?;
                if !(delta > 0.0 && delta < 1.0) {
                    return Err(self.err(
                        el,
                        &["delta"],
                        format!("delta={delta} must lie strictly between 0 and 1"),
                    ));
                }
                let search =
                    match (el.attr("steps"), el.attr("generalization")) {
                        (Some(_), Some(_)) => return Err(self.err(
                            el,
                            &["steps"],
                            "give steps='N' (a data-dependent search) or generalization='DEGREE' \
                             (data-independent), not both",
                        )),
                        (Some(v), None) => {
                            let steps = self.int(el, "steps", v)?;
                            if steps < 1 {
                                return Err(self.err(
                                    el,
                                    &["steps"],
                                    format!("steps={steps} must be at least 1"),
                                ));
                            }
                            let budget = match el.attr("budget") {
                                Some(v) => self.double(el, "budget", v)?,
                                None => DEFAULT_SEARCH_BUDGET,
                            };
                            if !(budget > 0.0 && budget < epsilon) {
                                return Err(self.err(
                                    el,
                                    &["budget"],
                                    format!(
                                        "the search's budget {budget} must lie above 0 and below \
                                     epsilon ({epsilon})"
                                    ),
                                ));
                            }
                            DpSearch::Steps {
                                steps: steps as usize,
                                budget,
                            }
                        }
                        (None, g) => {
                            if el.attr("budget").is_some() {
                                return Err(self.err(
                                    el,
                                    &["budget"],
                                    "budget='B' is the data-dependent search's share of epsilon: \
                                 give steps='N' with it",
                                ));
                            }
                            let degree = match g {
                                None => Degree::Medium,
                                Some(g) => Degree::parse(g).ok_or_else(|| {
                                    self.err(
                                        el,
                                        &["generalization"],
                                        format!(
                                            "unknown generalization '{g}'; accepted: {}",
                                            Degree::NAMES.join(", ")
                                        ),
                                    )
                                })?,
                            };
                            DpSearch::Degree(degree)
                        }
                    };
                PrivacyKind::DifferentialPrivacy {
                    epsilon,
                    delta,
                    search,
                }
            }
            _ => {
                return Err(self.err(
                    el,
                    &[],
                    format!(
                        "unknown privacy model <{}>; accepted: {}",
                        el.name,
                        PRIVACY_NAMES.join(", ")
                    ),
                ))
            }
        };
        // anonbox's own element: a misspelled attribute (`distnce=`) would quietly give the
        // default, a child would be dropped.
        let known: &[&str] = match kind {
            PrivacyKind::KAnonymity { .. } => &["k"],
            PrivacyKind::DistinctL { .. } | PrivacyKind::EntropyL { .. } => &["attribute", "l"],
            PrivacyKind::RecursiveCL { .. } => &["attribute", "c", "l"],
            PrivacyKind::TCloseness { .. } => &["attribute", "t", "distance"],
            PrivacyKind::DeltaPresence { .. } => &["dmin", "dmax", "subset", "subset-index"],
            PrivacyKind::KMap { .. } => &[
                "k",
                "population",
                "population-size",
                "significance",
                "estimator",
            ],
            PrivacyKind::AverageRisk { .. } | PrivacyKind::SampleUniqueness { .. } => {
                &["threshold"]
            }
            PrivacyKind::PopulationUniqueness { .. } => {
                &["threshold", "model", "population", "population-size"]
            }
            PrivacyKind::DeltaDisclosure { .. } => &["attribute", "delta"],
            PrivacyKind::BetaLikeness { .. } => &["attribute", "beta", "enhanced"],
            PrivacyKind::DifferentialPrivacy { .. } => {
                &["epsilon", "delta", "steps", "budget", "generalization"]
            }
        };
        if let Some((a, _)) = el
            .attrs
            .iter()
            .find(|(a, _)| !known.iter().any(|k| a.eq_ignore_ascii_case(k)))
        {
            return Err(self.err(
                el,
                &[],
                format!(
                    "unknown attribute '{a}' of <{}>; accepted: {}",
                    el.name,
                    known.join(", ")
                ),
            ));
        }
        if let Some(child) = el.children.first() {
            return Err(self.err(child, &[], format!("<{}> takes no child elements", el.name)));
        }
        Ok(PrivacyElement {
            site: site(el, shown),
            kind,
        })
    }
}

/// Every mapped int must lie in some leaf (`Malformed VGH, <int> cannot be generalized to any
/// value!!!`).
fn check_map_in_leaves(map: &CategoryMap, root: &VghNode) -> std::result::Result<(), String> {
    // Indexed: every entry against every leaf took minutes on large maps and VGHs.
    let leaves = crate::hierarchy::vgh::LeafIndex::new(root);
    for (cat, int) in map.entries() {
        let x = *int as f64;
        if leaves.leaf(x).is_none() {
            return Err(format!(
                "Malformed VGH, {int} (category '{cat}') cannot be generalized to any value"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<UtdConfig> {
        parse(Path::new("dir/c.xml"), text.to_string())
    }

    fn err(text: &str) -> String {
        parse_str(text).unwrap_err().to_string()
    }

    const CENSUS: &str = r#"<config k="10" method="Datafly" suppThreshold="10"><input filename="Input/census-income_1K.data" separator="," /><output filename="Output/Output-Datafly_genVals.data" format="genVals" /><id><att index="1" /><att index="2" /></id><qid><att index="12"><map><entry cat="Female" int="0" /><entry cat="Male" int="1" /></map><vgh value="[0:1]" /></att><att index="0"><vgh value="[0:100)"><node value="[0:50)"><node value="[0:25)" /><node value="[25:50)" /></node><node value="[50:100)"><node value="[50:75)" /><node value="[75:100)" /></node></vgh></att></qid><sens><att index="41"><map><entry cat="-_50000." int="1" /><entry cat="50000+." int="2" /></map></att></sens></config>"#;

    #[test]
    fn a_block_given_twice_or_an_unnamed_identifier_is_refused() {
        let two_qids = CENSUS.replace("</qid>", "</qid><qid><att index=\"3\"/></qid>");
        assert!(
            err(&two_qids).contains("a second <qid> element"),
            "{}",
            err(&two_qids)
        );
        let two = CENSUS.replace("</sens>", "</sens><privacy/><privacy/>");
        assert!(
            err(&two).contains("a second <privacy> element"),
            "{}",
            err(&two)
        );
        let unnamed = CENSUS.replace("<att index=\"2\" />", "<att idx=\"2\" />");
        assert!(err(&unnamed).contains("<att"), "{}", err(&unnamed));
    }

    #[test]
    fn reads_the_census_config() {
        let c = parse_str(CENSUS).unwrap();
        assert_eq!(c.k, Some(10));
        assert_eq!(c.method, Some(Method::Datafly));
        assert_eq!(
            c.suppression, None,
            "suppThreshold is ignored like the toolbox"
        );
        let input = c.input.unwrap();
        assert_eq!(
            input.filename,
            Some(PathBuf::from("dir/Input/census-income_1K.data"))
        );
        assert_eq!(input.separator.as_deref(), Some(","));
        let out = c.output.unwrap();
        assert_eq!(out.format, Some(OutputFormat::GenVals));
        assert_eq!(
            c.ids.iter().map(|a| a.index.unwrap()).collect::<Vec<_>>(),
            [1, 2]
        );
        let (_, qids) = c.qid.unwrap();
        assert_eq!(qids.len(), 2);
        assert_eq!(qids[0].index, Some(12));
        assert_eq!(qids[0].map.as_ref().unwrap().get("Male"), Some(1));
        assert_eq!(qids[0].vgh.as_ref().unwrap().label, "[0:1]");
        let age = qids[1].vgh.as_ref().unwrap();
        assert_eq!(age.children[1].children[0].label, "[50:75)");
        let (_, sens) = c.sens.unwrap();
        assert_eq!(sens[0].index, Some(41));
        assert_eq!(sens[0].map.as_ref().unwrap().len(), 2);
    }

    #[test]
    fn names_are_matched_as_the_toolbox_does() {
        let c = parse_str(
            "<Whatever K='3' METHOD='mondrian' L='2.5' c='0' T='0.1' wrapper='x'>
               <INPUT FileName='a.csv' SEPARATOR='&#09;'/>
               <Output FILENAME='o.csv' Format='GENVALSDIST'/>
               <Id><x index='4'/></Id>
               <ID><z index='5'/></ID>
               <kid><att index='9'/></kid>
               <qid><b index='1'><vgh value='[0:9]'><n value='[0:4]'/><m value='(4:9]'/></vgh></b></qid>
               <Sens><s index='2'/></Sens>
             </Whatever>",
        )
        .unwrap();
        assert_eq!(c.root.tag, "<Whatever>");
        assert_eq!(
            (c.k, c.l, c.c, c.t),
            (Some(3), Some(2.5), Some(0.0), Some(0.1))
        );
        assert_eq!(c.method, Some(Method::Mondrian));
        assert_eq!(c.input.unwrap().separator.as_deref(), Some("\t"));
        assert_eq!(c.output.unwrap().format, Some(OutputFormat::GenValsDist));
        // <id> elements accumulate (a child without index or name is refused, and so is a
        // second <qid>: see `a_block_given_twice_or_an_unnamed_identifier_is_refused`).
        assert_eq!(
            c.ids.iter().map(|a| a.index.unwrap()).collect::<Vec<_>>(),
            [4, 5]
        );
        let (_, q) = c.qid.unwrap();
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].index, Some(1));
        assert_eq!(q[0].vgh.as_ref().unwrap().children.len(), 2);
        assert_eq!(c.sens.unwrap().1[0].index, Some(2));
    }

    /// A root child anonbox does not read is refused (a misspelled `<id>` released the
    /// identifiers; a misspelled `<privacy>` dropped its models), and so is an element after
    /// the root; `<kid>` and `<sqlitefile>` of toolbox configs stay ignored.
    #[test]
    fn unknown_root_children_and_a_second_root_are_refused() {
        let qid = "<qid><b index='1'><vgh value='[0:9]'/></b></qid>";
        for (text, line, what) in [
            (
                format!("<c>\n<ids><a index='0'/></ids>{qid}</c>"),
                2,
                "<ids>",
            ),
            (
                format!("<c>{qid}\n\n<privcy><k-anonymity k='5'/></privcy></c>"),
                3,
                "<privcy>",
            ),
        ] {
            let e = err(&text);
            assert!(
                e.contains(&format!(
                    ":{line}: {what}: an element anonbox does not read"
                )),
                "{e}"
            );
        }
        let e = err(&format!(
            "<c>{qid}</c>\n<!-- a comment -->\n<c><privacy/></c>"
        ));
        assert!(e.contains(":3: an element after the root element"), "{e}");
        parse_str(&format!(
            "<c><SqliteFile/><kid/>{qid}</c>\n<!-- after -->\n"
        ))
        .unwrap();
        let e = err("<c><qid><a index='0'><intervals widths='5'><node value='x'/></intervals></a></qid></c>");
        assert!(
            e.contains("<node>: a builder takes its parameters as attributes"),
            "{e}"
        );
    }

    #[test]
    fn map_and_vgh_names_are_case_sensitive() {
        let e = err("<c><qid><a index='0'><VGH value='[0:1]'/></a></qid></c>");
        assert!(
            e.contains("Cannot parse the VGH of qid-attribute at index 0"),
            "{e}"
        );
        // <MAP> is ignored, so the category map is absent.
        let c = parse_str("<c><qid><a index='0'><MAP><e cat='x' int='0'/></MAP><vgh value='[0:1]'/></a></qid></c>")
            .unwrap();
        assert!(c.qid.unwrap().1[0].map.is_none());
    }

    /// A category mapped to two numbers is refused (the toolbox kept the last one); the same
    /// entry twice is accepted.
    #[test]
    fn a_category_mapped_twice_is_refused() {
        let vgh = "<vgh value='[0:1]'><n value='[0]'/><n value='[1]'/></vgh>";
        let e = err(&format!(
            "<c><qid><a index='0'><map><e cat='F' int='0'/>\n<e cat='F' int='1'/></map>{vgh}</a></qid></c>"
        ));
        assert!(e.contains(":2: <e cat='F' int='1'>: the qid-attribute at index 0 maps 'F' twice, to 0 and to 1"), "{e}");
        parse_str(&format!(
            "<c><qid><a index='0'><map><e cat='F' int='0'/><e cat='F' int='0'/></map>{vgh}</a></qid></c>"
        ))
        .unwrap();
    }

    #[test]
    fn vgh_nodes_nest_with_any_name() {
        let c = parse_str(
            "<c><qid><a index='0'><vgh value='[0:100]'><x value='[0:50]'><y value='[0:10]'><z value='[0:1]'/></y></x></vgh></a></qid></c>",
        )
        .unwrap();
        let v = c.qid.unwrap().1.remove(0).vgh.unwrap();
        assert_eq!(v.children[0].children[0].children[0].label, "[0:1]");
    }

    #[test]
    fn child_interval_must_lie_within_parent() {
        let e = err("<c>\n<qid>\n<a index='3'><vgh value='[0:100)'>\n<node value='[50:150)'/></vgh></a></qid></c>");
        assert_eq!(
            e,
            "dir/c.xml:4: <node value='[50:150)'>: Error in VGH structure, attribute index 3: \
             [50:150) is not within its parent [0:100)"
        );
        let e = err(
            "<c><qid><a index='3'><vgh value='[0:100)'><n value='[0:100]'/></vgh></a></qid></c>",
        );
        assert!(e.contains("is not within its parent"), "{e}");
    }

    #[test]
    fn vgh_errors_name_the_element() {
        let e = err("<c><qid><a index='3'><vgh/></a></qid></c>");
        assert!(
            e.contains(
                "<vgh>: Error in VGH structure, attribute index 3: missing attribute 'value'"
            ),
            "{e}"
        );
        let e = err("<c><qid><a index='3'><vgh value='[9:1]'/></a></qid></c>");
        assert!(e.contains("<vgh value='[9:1]'>: Error in VGH structure, attribute index 3: Empty interval ([9:1])!"), "{e}");
        let e = err("<c><qid><a index='3'><vgh value='[0:9]'><n value='[0:1]'/><n value='[0:1]'/></vgh></a></qid></c>");
        assert!(e.contains("appears twice"), "{e}");
        let e = err("<c><qid><a><vgh value='[0:9]'/></a></qid></c>");
        assert!(
            e.contains("<a>: Every quasi-identifier attribute should have an index"),
            "{e}"
        );
        let e = err("<c><sens><a/></sens><qid><a index='0'><vgh value='[0:9]'/></a></qid></c>");
        assert!(
            e.contains("Every sensitive attribute should have an index"),
            "{e}"
        );
        let e = err("<c><qid><a index='x'><vgh value='[0:9]'/></a></qid></c>");
        assert!(
            e.contains("<a index='x'>: index='x' is not an integer"),
            "{e}"
        );
        let e = err("<c><qid><a index='-1'><vgh value='[0:9]'/></a></qid></c>");
        assert!(e.contains("index -1 is negative"), "{e}");
    }

    #[test]
    fn map_before_vgh_checks_leaves_only_in_that_order() {
        let map_first = "<c><qid><a index='0'><map><e cat='A' int='0'/><e cat='B' int='7'/></map><vgh value='[0:1]'/></a></qid></c>";
        let e = err(map_first);
        assert!(
            e.contains("Malformed VGH, 7 (category 'B') cannot be generalized to any value"),
            "{e}"
        );
        let vgh_first = "<c><qid><a index='0'><vgh value='[0:1]'/><map><e cat='A' int='0'/><e cat='B' int='7'/></map></a></qid></c>";
        assert!(parse_str(vgh_first).is_ok());
    }

    #[test]
    fn map_entries_need_cat_and_int() {
        let e =
            err("<c><qid><a index='5'><map><e cat='A'/></map><vgh value='[0:1]'/></a></qid></c>");
        assert!(
            e.contains("Cannot parse the mapping of the qid-attribute at index 5"),
            "{e}"
        );
        let e = err("<c><sens><a index='5'><map><e cat='A' int='x'/></map></a></sens></c>");
        assert!(
            e.contains("Cannot parse the mapping of the sensitive attribute at index 5"),
            "{e}"
        );
        // The toolbox kept the last of two entries; refused (`a_category_mapped_twice_is_refused`).
        let e = err("<c><sens><a index='5'><map><e cat='A' int='1'/><e cat='A' int='2'/></map></a></sens></c>");
        assert!(e.contains("maps 'A' twice, to 1 and to 2"), "{e}");
    }

    #[test]
    fn root_attribute_errors() {
        assert!(err("<c k='ten'/>").contains("<c k='ten'>: k='ten' is not an integer"));
        assert!(err("<c l='x'/>").contains("l='x' is not a number"));
        let e = err("<c method='fast'/>");
        assert!(
            e.contains("unknown method 'fast'; accepted: Datafly, Mondrian"),
            "{e}"
        );
        let e = err("<c><output format='csv'/></c>");
        assert!(
            e.contains("unknown output format 'csv'; accepted: genVals"),
            "{e}"
        );
        assert_eq!(
            err(""),
            "dir/c.xml: Empty configuration file (no XML element)"
        );
        let e = err("<c><input header='yes'/></c>");
        assert!(e.contains("header='yes' must be 'true' or 'false'"), "{e}");
        let e = err("<c timeLimit='-3'/>");
        assert!(
            e.contains("timeLimit '-3' is not a number of seconds > 0"),
            "{e}"
        );
        assert_eq!(
            parse_str("<c timelimit='30'/>").unwrap().time_limit,
            Some(30.0)
        );
    }

    #[test]
    fn extensions() {
        let c = parse_str(
            "<c suppression='0.02' metric='loss' method='flash'>
               <input filename='/abs/adult.csv' separator=';' header='true' unknown='Keep'/>
               <qid><att name='age' hierarchy='h/age.csv'/><att index='0' name='sex' hierarchy='sex.csv'/></qid>
               <sens><att name='occupation' hierarchy='occ.csv'/></sens>
               <privacy>
                 <k-anonymity k='5'/>
                 <distinct-l-diversity attribute='occupation' l='3'/>
                 <Entropy-L-Diversity l='3'/>
                 <recursive-cl-diversity attribute='occupation' c='4' l='3'/>
                 <t-closeness attribute='occupation' t='0.2' distance='hierarchical'/>
                 <t-closeness t='0.3'/>
                 <delta-presence dmin='0.0' dmax='0.5' subset='subset.csv'/>
                 <delta-presence dmin='0.1' dmax='0.2' subset-index='3'/>
               </privacy>
             </c>",
        )
        .unwrap();
        assert_eq!(c.suppression, Some(0.02));
        assert_eq!(c.metric, Some(MetricKind::Loss));
        assert_eq!(c.method, Some(Method::Flash));
        let input = c.input.unwrap();
        assert_eq!(input.filename, Some(PathBuf::from("/abs/adult.csv")));
        assert_eq!(input.header, Some(true));
        assert_eq!(input.keep_unknown, Some(true));
        assert_eq!(
            parse_str("<c><input unknown='skip'/></c>")
                .unwrap()
                .input
                .unwrap()
                .keep_unknown,
            Some(false)
        );
        let input = |xml: &str| parse_str(xml).map(|c| c.input.unwrap().encoding);
        assert_eq!(
            input("<c><input encoding='Latin1'/></c>").unwrap(),
            Some(encoding_rs::WINDOWS_1252)
        );
        assert_eq!(input("<c><input/></c>").unwrap(), None);
        let e = input("<c><input encoding='ebcdic'/></c>")
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown encoding 'ebcdic'"), "{e}");
        let e = input("<c><input encoding='utf-16'/></c>")
            .unwrap_err()
            .to_string();
        assert!(e.contains("UTF-16"), "{e}");
        assert!(parse_str("<c><input unknown='yes'/></c>")
            .unwrap_err()
            .to_string()
            .contains("unknown='yes' must be 'skip'"));
        let (_, q) = c.qid.unwrap();
        assert_eq!(q[0].index, None);
        assert_eq!(q[0].name.as_deref(), Some("age"));
        assert_eq!(q[0].hierarchy, Some(PathBuf::from("dir/h/age.csv")));
        assert_eq!(q[1].index, Some(0));
        let (_, s) = c.sens.unwrap();
        assert_eq!(s[0].hierarchy, Some(PathBuf::from("dir/occ.csv")));
        let kinds: Vec<_> = c.privacy.unwrap().1.into_iter().map(|p| p.kind).collect();
        let occ = Some("occupation".to_string());
        assert_eq!(
            kinds,
            [
                PrivacyKind::KAnonymity { k: 5 },
                PrivacyKind::DistinctL {
                    attribute: occ.clone(),
                    l: 3.0
                },
                PrivacyKind::EntropyL {
                    attribute: None,
                    l: 3.0
                },
                PrivacyKind::RecursiveCL {
                    attribute: occ.clone(),
                    c: 4.0,
                    l: 3.0
                },
                PrivacyKind::TCloseness {
                    attribute: occ,
                    t: 0.2,
                    distance: TDistance::Hierarchical
                },
                PrivacyKind::TCloseness {
                    attribute: None,
                    t: 0.3,
                    distance: TDistance::Equal
                },
                PrivacyKind::DeltaPresence {
                    dmin: 0.0,
                    dmax: 0.5,
                    subset: Subset::File("dir/subset.csv".into())
                },
                PrivacyKind::DeltaPresence {
                    dmin: 0.1,
                    dmax: 0.2,
                    subset: Subset::Column(3)
                },
            ]
        );
    }

    #[test]
    fn privacy_errors() {
        let e = err("<c><privacy><k-anon k='5'/></privacy></c>");
        assert!(
            e.contains("<k-anon>: unknown privacy model <k-anon>; accepted: k-anonymity"),
            "{e}"
        );
        let e = err("<c><privacy>\n<t-closeness attribute='x'/></privacy></c>");
        assert!(
            e.starts_with("dir/c.xml:2: <t-closeness attribute='x'>: missing attribute 't'"),
            "{e}"
        );
        let e = err("<c><privacy><t-closeness t='0.1' distance='manhattan'/></privacy></c>");
        assert!(e.contains("unknown distance 'manhattan'"), "{e}");
        let e = err("<c><privacy><delta-presence dmin='0.6' dmax='0.5' subset='s'/></privacy></c>");
        assert!(e.contains("need 0 <= dmin <= dmax <= 1"), "{e}");
        let e = err("<c><privacy><delta-presence dmin='0' dmax='0.5'/></privacy></c>");
        assert!(e.contains("give exactly one of subset"), "{e}");
        let e = err("<c><privacy><t-closeness t='0.2' distnce='hierarchical'/></privacy></c>");
        assert!(
            e.contains(
                "unknown attribute 'distnce' of <t-closeness>; accepted: attribute, t, distance"
            ),
            "{e}"
        );
        let e = err("<c><privacy><k-anonymity k='5'><l/></k-anonymity></privacy></c>");
        assert!(e.contains("<k-anonymity> takes no child elements"), "{e}");
        let e = err("<c><sens><a index='1'><categories/></a></sens></c>");
        assert!(
            e.contains("a hierarchy builder is not read under <sens>"),
            "{e}"
        );
        let e = err("<c><privacy><recursive-cl-diversity c='0' l='2'/></privacy></c>");
        assert!(e.contains("c=0 must be greater than 0"), "{e}");
    }

    #[test]
    fn hierarchy_file_excludes_map_and_vgh() {
        let e = err("<c><qid><a index='0' hierarchy='h.csv'><vgh value='[0:1]'/></a></qid></c>");
        assert!(
            e.contains("qid attribute index 0 has a hierarchy file; it cannot also have <vgh>"),
            "{e}"
        );
    }
}
