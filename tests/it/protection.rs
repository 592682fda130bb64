//! "Never release less protection than asked", end to end and at random: small random tables
//! (skewed values, so that models are sometimes unsatisfiable) with hierarchies as ARX files,
//! `<vgh>` trees and builders, and random configs (every method, k, the l-diversities,
//! t-closeness with its three distances, δ-presence with a research subset column, suppression
//! limits, every output format) run through the `anonbox` binary. The input varies too: a
//! header line or none, the separator (`,`, `;`, tab, `, `), records holding `?` (skipped, or
//! kept with `unknown="keep"`), UTF-8 or windows-1252 (`é` in the hierarchy file labels and in
//! a free-text note), and lattice methods run with `-threads 1`, 2 and 4. The release is
//! decoded, its header checked and split on the separator here ([`canonical`]). Then:
//!
//! - exit 0: every model asked holds on what was written, checked by the independent checkers
//!   of `utd_methods` (which read only the output files, with their own arithmetic): k and the
//!   suppression limit counted from the output, the l-diversities, t-closeness (equal, ordered,
//!   hierarchical), and δ-presence computed here over the population generalized independently;
//!   one row per input record (the research subset's with δ-presence), identifier columns gone,
//!   every other non-quasi-identifier field unchanged; full-domain quasi-identifiers are their
//!   hierarchy's labels at the reported levels (or all top, suppressed, counted as reported),
//!   Mondrian's intervals contain the value (over hierarchies: a node above the value, or a
//!   range of numbers holding it: [`covers`]), the anatomy pair holds every record once.
//! - exit 2: the config is one the README refuses ([`refusal`] says which rule), refused before
//!   the input was read (the input of such a case ends in a ragged row, a data error, exit 1,
//!   for a run that reads it), and nothing was written; exit 1: nothing written, one line on stderr, and the release that puts every
//!   record in one class (which every method can reach) would not have satisfied the models.
//! - Any other exit (a panic is 101) is a defect.
//! - A lattice method run with `-threads 1` ends as its runs with 2 and 4 (same exit, stderr,
//!   release byte for byte, report but for thread counts, work counters and times); a
//!   release's report gives the input's `input_encoding`, `quasi_identifiers` (header names),
//!   `rows_read` and `rows_skipped`.
//!
//! `PROPTEST_CASES` raises the number of cases for a long run.

use std::collections::HashMap;
use std::path::Path;

use proptest::prelude::*;
use serde_json::Value;

use crate::common;
use crate::flash::Rng;
use crate::utd_methods::{
    check, classes_of_anatomy, classes_of_generalized, lines, Classes, Model,
};

// ---------------------------------------------------------------------------------------------
// Random tables.

/// A quasi-identifier and how its hierarchy is given.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Qi {
    /// Integers in [0, width·2^depth) under a complete binary `<vgh>` of `[a:b)` intervals.
    Vgh { depth: u32, width: u32 },
    /// Labels `é0`, `é1`, ... (not ASCII: the input's encoding matters) in an ARX hierarchy file: level j groups by code >> j, then `*`.
    File { leaves: usize, levels: usize },
    /// Integers in [0, 8·width) under `<intervals widths="width,2·width" labels="toolbox"/>`
    /// (labels `[a:b)`: ARX's `[a, b[` would be quoted in a comma-separated output).
    Intervals { width: u32 },
    /// Codes of `len` digits under `<mask/>`.
    Mask { len: usize },
}

/// An attribute of the config: its `<att>` element.
trait Att: Copy {
    /// The `<att>` element of input column `index`; writes a hierarchy file into `dir`.
    fn xml(self, index: usize, dir: &Path) -> String;
}

/// The `<att>` elements of `atts` at input columns `columns`.
fn atts<A: Att>(columns: &[usize], atts: &[A], dir: &Path) -> String {
    columns
        .iter()
        .zip(atts)
        .map(|(&i, a)| a.xml(i, dir))
        .collect()
}

impl Qi {
    fn domain(self) -> usize {
        match self {
            Qi::Vgh { depth, width } => (width << depth) as usize,
            Qi::File { leaves, .. } => leaves,
            Qi::Intervals { width } => 8 * width as usize,
            Qi::Mask { len } => 3 * 3usize.pow(len as u32 - 1),
        }
    }

    fn value(self, i: usize) -> String {
        match self {
            Qi::Vgh { .. } | Qi::Intervals { .. } => i.to_string(),
            Qi::File { .. } => format!("é{i}"),
            Qi::Mask { len } => {
                // First digit 1..=3, the others 0..=2.
                let mut s = String::new();
                let mut rest = i;
                for _ in 1..len {
                    s.insert(0, char::from(b'0' + (rest % 3) as u8));
                    rest /= 3;
                }
                s.insert(0, char::from(b'1' + rest as u8));
                s
            }
        }
    }

    /// The labels of `v` by level (level 0 as a full-domain release prints it).
    fn labels(self, v: &str) -> Vec<String> {
        match self {
            Qi::Vgh { depth, width } => {
                let x: u32 = v.parse().unwrap();
                let mut out = vec![format!("[{:?}]", x as f64)];
                for j in 0..=depth {
                    let w = width << j;
                    let a = x / w * w;
                    out.push(format!("[{a}:{})", a + w));
                }
                out
            }
            Qi::File { levels, .. } => {
                let c: usize = v.strip_prefix('é').unwrap().parse().unwrap();
                let mut out = vec![v.to_string()];
                out.extend((1..levels - 1).map(|j| format!("g{j}-{}", c >> j)));
                out.push("*".into());
                out
            }
            Qi::Intervals { width } => {
                let x: u32 = v.parse().unwrap();
                let mut out = vec![v.to_string()];
                for w in [width, 2 * width] {
                    let a = x / w * w;
                    out.push(format!("[{a}:{})", a + w));
                }
                out.push("*".into());
                out
            }
            Qi::Mask { len } => {
                let mut out: Vec<String> = (0..=len)
                    .map(|i| format!("{}{}", &v[..len - i], "*".repeat(i)))
                    .collect();
                out.push("*".into());
                out
            }
        }
    }

    fn top(self) -> String {
        match self {
            Qi::Vgh { depth, width } => format!("[0:{})", width << depth),
            _ => "*".into(),
        }
    }
}

impl Att for Qi {
    fn xml(self, index: usize, dir: &Path) -> String {
        match self {
            Qi::Vgh { depth, width } => {
                fn node(a: u32, w: u32, depth: u32, tag: &str) -> String {
                    let children = if depth == 0 {
                        String::new()
                    } else {
                        let h = w / 2;
                        node(a, h, depth - 1, "node") + &node(a + h, h, depth - 1, "node")
                    };
                    format!("<{tag} value=\"[{a}:{})\">{children}</{tag}>", a + w)
                }
                format!(
                    "<att index=\"{index}\">{}</att>",
                    node(0, width << depth, depth, "vgh")
                )
            }
            Qi::File { leaves, .. } => {
                let file = format!("h{index}.csv");
                let text: String = (0..leaves)
                    .map(|i| self.labels(&self.value(i)).join(";") + "\n")
                    .collect();
                std::fs::write(dir.join(&file), text).unwrap();
                format!("<att index=\"{index}\" hierarchy=\"{file}\"/>")
            }
            Qi::Intervals { width } => format!(
                "<att index=\"{index}\"><intervals widths=\"{width},{}\" labels=\"toolbox\"/></att>",
                2 * width
            ),
            Qi::Mask { .. } => format!("<att index=\"{index}\"><mask/></att>"),
        }
    }
}

/// A sensitive attribute: `m` values.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sens {
    /// Numbers (neither map nor hierarchy).
    Num { m: usize },
    /// Labels `s0`, ... with a hierarchy file `s;t(i>>1);*` (for the hierarchical distance).
    Hier { m: usize },
    /// Labels mapped to integers by a `<map>`.
    Map { m: usize },
}

impl Sens {
    fn m(self) -> usize {
        match self {
            Sens::Num { m } | Sens::Hier { m } | Sens::Map { m } => m,
        }
    }

    fn value(self, i: usize) -> String {
        match self {
            Sens::Num { .. } => (i * 7 % 50).to_string(),
            _ => format!("s{i}"),
        }
    }

    fn labels(self, i: usize) -> Vec<String> {
        vec![self.value(i), format!("t{}", i >> 1), "*".into()]
    }
}

impl Att for Sens {
    fn xml(self, index: usize, dir: &Path) -> String {
        match self {
            Sens::Num { .. } => format!("<att index=\"{index}\"/>"),
            Sens::Hier { m } => {
                let file = format!("h{index}.csv");
                let text: String = (0..m).map(|i| self.labels(i).join(";") + "\n").collect();
                std::fs::write(dir.join(&file), text).unwrap();
                format!("<att index=\"{index}\" hierarchy=\"{file}\"/>")
            }
            Sens::Map { m } => {
                let entries: String = (0..m)
                    .map(|i| format!("<entry cat=\"s{i}\" int=\"{i}\"/>"))
                    .collect();
                format!("<att index=\"{index}\"><map>{entries}</map></att>")
            }
        }
    }
}

/// A `<privacy>` model; `attr` indexes the sensitive attributes.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pm {
    K(u64),
    Distinct(f64, usize),
    Entropy(f64, usize),
    Recursive(f64, f64, usize),
    T(f64, &'static str, usize),
    Delta(f64, f64),
}

impl Pm {
    fn attr(self) -> Option<usize> {
        match self {
            Pm::Distinct(_, a) | Pm::Entropy(_, a) | Pm::Recursive(_, _, a) | Pm::T(_, _, a) => {
                Some(a)
            }
            Pm::K(_) | Pm::Delta(..) => None,
        }
    }
    fn is_l(self) -> bool {
        matches!(self, Pm::Distinct(..) | Pm::Entropy(..) | Pm::Recursive(..))
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Supp {
    None,
    Tuples(u64),
    Fraction(f64),
    /// The root's `suppression="F"`.
    Config(f64),
}

#[derive(Debug, Clone)]
struct Case {
    seed: u64,
    rows: usize,
    id: bool,
    qis: Vec<Qi>,
    sens: Vec<Sens>,
    /// Per column (quasi-identifiers, then sensitive): percent of the rows taking value 0.
    skew: Vec<u32>,
    method: &'static str,
    format: &'static str,
    privacy: Option<Vec<Pm>>,
    /// The root's `k` (the toolbox's parameter).
    root_k: Option<u64>,
    k: Option<u64>,
    l: Option<f64>,
    c: Option<f64>,
    t: Option<f64>,
    supp: Supp,
    /// The input (and so the release) starts with a header line (see [`Case::name`]).
    header: bool,
    /// The field separator of the input and the release.
    sep: &'static str,
    /// Some records' note is `?`; `keep` says `unknown="keep"` (else they are skipped).
    qmark: bool,
    keep: bool,
    /// `encoding="windows-1252"`: the input, the hierarchy files and the release in it.
    latin1: bool,
    /// How windows-1252 is given: a label (`windows-1252`, `latin1`, `iso-8859-1`: the same
    /// encoding), on `<input>` or as `-encoding` (`true`).
    label: (&'static str, bool),
    /// Lattice methods run with `-threads 1`, then 2 and 4: the same outcome byte for byte.
    threads: bool,
    /// `-localRecoding`: the records a lattice search suppresses released at levels of their
    /// own (each quasi-identifier a label of its value's hierarchy, at any level).
    local: bool,
}

fn is_lattice(method: &str) -> bool {
    matches!(method, "Flash" | "OLA" | "BFS" | "Optimal")
}

/// The input columns: [identifier], quasi-identifiers, sensitive attributes, [subset flag],
/// a free-text note.
struct Layout {
    id: Option<usize>,
    qis: Vec<usize>,
    sens: Vec<usize>,
    subset: Option<usize>,
    width: usize,
}

impl Case {
    fn delta(&self) -> Option<(f64, f64)> {
        self.privacy.iter().flatten().find_map(|m| match *m {
            Pm::Delta(a, b) => Some((a, b)),
            _ => None,
        })
    }

    fn layout(&self) -> Layout {
        let mut next = 0;
        let mut take = |n: usize| {
            let v: Vec<usize> = (next..next + n).collect();
            next += n;
            v
        };
        let id = take(usize::from(self.id)).first().copied();
        let qis = take(self.qis.len());
        let sens = take(self.sens.len());
        let subset = take(usize::from(self.delta().is_some())).first().copied();
        let _note = take(1);
        Layout {
            id,
            qis,
            sens,
            subset,
            width: next,
        }
    }

    fn table(&self) -> Vec<Vec<String>> {
        let mut rng = Rng::new(self.seed);
        let mut pick = |domain: usize, skew: u32| {
            if rng.below(100) < skew as usize {
                0
            } else {
                rng.below(domain)
            }
        };
        (0..self.rows)
            .map(|r| {
                let mut row = Vec::new();
                if self.id {
                    // An identifier may hold `?` too: the row is skipped all the same.
                    let q = if self.qmark && r % 7 == 6 { "?" } else { "" };
                    row.push(format!("p{q}{r}"));
                }
                for (j, q) in self.qis.iter().enumerate() {
                    row.push(q.value(pick(q.domain(), self.skew[j])));
                }
                for (j, s) in self.sens.iter().enumerate() {
                    row.push(s.value(pick(s.m(), self.skew[self.qis.len() + j])));
                }
                if self.delta().is_some() {
                    // The first record is always in the research subset.
                    row.push(if r == 0 || pick(2, 0) == 1 { "1" } else { "0" }.into());
                }
                // Never the first record's: it stays in the research subset and in the release.
                let unknown = self.qmark && r % 5 == 4;
                row.push(if unknown {
                    "café ?".into()
                } else {
                    format!("café {}", r % 3)
                });
                row
            })
            .collect()
    }

    /// The rows of `table` that are records: those holding `?` are skipped unless kept.
    fn records(&self, table: &[Vec<String>]) -> Vec<Vec<String>> {
        table
            .iter()
            .filter(|r| self.keep || !r.iter().any(|f| f.contains('?')))
            .cloned()
            .collect()
    }

    /// The name of input column `i`: the header's (not ASCII: its encoding matters; the note's
    /// holds `?` in a case with `?`, which does not make the header a skipped row), else `atti`.
    fn name(&self, i: usize) -> String {
        if self.header && self.qmark && i + 1 == self.layout().width {
            "note?".into()
        } else if self.header {
            format!("até{i}")
        } else {
            format!("att{i}")
        }
    }

    /// The input file: [header], rows, in the case's separator and encoding.
    fn input(&self, table: &[Vec<String>], refused: bool) -> Vec<u8> {
        let mut text = String::new();
        if self.header {
            let names: Vec<String> = (0..self.layout().width).map(|i| self.name(i)).collect();
            text += &(names.join(self.sep) + "\n");
        }
        text.extend(table.iter().map(|r| r.join(self.sep) + "\n"));
        if refused {
            // A refusal comes before the input is read: a run that read it would fail on this
            // row (exit 1, a data error) instead.
            text.push_str("a row of one field\n");
        }
        self.encode(&text)
    }

    fn encode(&self, text: &str) -> Vec<u8> {
        if self.latin1 {
            let (bytes, _, unmappable) = encoding_rs::WINDOWS_1252.encode(text);
            assert!(!unmappable, "{text}");
            bytes.into_owned()
        } else {
            text.as_bytes().to_vec()
        }
    }

    /// A released file's text, decoded independently of anonbox (`café` must be 0xE9 in
    /// windows-1252: UTF-8 bytes in such a release are a defect).
    fn decode(&self, bytes: &[u8]) -> Result<String, String> {
        if self.latin1 {
            if bytes.windows(2).any(|w| w == [0xC3, 0xA9]) {
                return Err("UTF-8 'é' in a windows-1252 release".into());
            }
            let (text, had_errors) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(bytes);
            if had_errors {
                return Err("a release not in windows-1252".into());
            }
            Ok(text.into_owned())
        } else {
            String::from_utf8(bytes.to_vec()).map_err(|e| format!("a release not in UTF-8: {e}"))
        }
    }

    fn config(&self, dir: &Path) -> String {
        let lay = self.layout();
        let id = lay
            .id
            .map(|i| format!("<id><att index=\"{i}\"/></id>"))
            .unwrap_or_default();
        let qid = atts(&lay.qis, &self.qis, dir);
        let sens = atts(&lay.sens, &self.sens, dir);
        let name = |a: usize| self.name(lay.sens[a]);
        let privacy = self.privacy.as_ref().map_or(String::new(), |models| {
            let m: String = models
                .iter()
                .map(|m| match *m {
                    Pm::K(k) => format!("<k-anonymity k=\"{k}\"/>"),
                    Pm::Distinct(l, a) => {
                        format!(
                            "<distinct-l-diversity attribute=\"{}\" l=\"{l}\"/>",
                            name(a)
                        )
                    }
                    Pm::Entropy(l, a) => {
                        format!("<entropy-l-diversity attribute=\"{}\" l=\"{l}\"/>", name(a))
                    }
                    Pm::Recursive(c, l, a) => format!(
                        "<recursive-cl-diversity attribute=\"{}\" c=\"{c}\" l=\"{l}\"/>",
                        name(a)
                    ),
                    Pm::T(t, d, a) => format!(
                        "<t-closeness attribute=\"{}\" t=\"{t}\" distance=\"{d}\"/>",
                        name(a)
                    ),
                    Pm::Delta(dmin, dmax) => format!(
                        "<delta-presence dmin=\"{dmin}\" dmax=\"{dmax}\" subset-index=\"{}\"/>",
                        lay.subset.unwrap()
                    ),
                })
                .collect();
            format!("<privacy>{m}</privacy>")
        });
        let mut root = String::new();
        if let Some(k) = self.root_k {
            root += &format!(" k=\"{k}\"");
        }
        if let Supp::Config(f) = self.supp {
            root += &format!(" suppression=\"{f}\"");
        }
        let mut input = format!(
            " separator=\"{}\"",
            if self.sep == "\t" { "\\t" } else { self.sep }
        );
        if self.header {
            input += " header=\"true\"";
        }
        if self.keep {
            input += " unknown=\"keep\"";
        }
        if self.latin1 {
            if !self.label.1 {
                input += &format!(" encoding=\"{}\"", self.label.0);
            }
            // The hierarchy files hold the data's values: in the input's encoding.
            for f in common::files_in(dir) {
                if f.starts_with('h') && f.ends_with(".csv") {
                    let text = std::fs::read_to_string(dir.join(&f)).unwrap();
                    std::fs::write(dir.join(&f), self.encode(&text)).unwrap();
                }
            }
        }
        format!(
            "<config{root}>\n<input filename=\"in.csv\"{input}/>\n{id}\n<qid>{qid}</qid>\n\
             <sens>{sens}</sens>\n{privacy}\n</config>\n"
        )
    }

    fn args(&self) -> Vec<String> {
        self.args_to("out.csv", "report.json", self.threads.then_some(1))
    }

    /// The arguments, writing `output` and `report`, with `-threads` if given.
    fn args_to(&self, output: &str, report: &str, threads: Option<usize>) -> Vec<String> {
        let mut a: Vec<String> = [
            "-config",
            "config.xml",
            "-method",
            self.method,
            "-outputFormat",
            self.format,
            "-output",
            output,
            "-report",
            report,
            "-quiet",
        ]
        .map(String::from)
        .to_vec();
        let mut flag = |f: &str, v: Option<String>| {
            if let Some(v) = v {
                a.extend([f.to_string(), v]);
            }
        };
        flag("-k", self.k.map(|v| v.to_string()));
        flag("-l", self.l.map(|v| v.to_string()));
        flag("-c", self.c.map(|v| v.to_string()));
        flag("-t", self.t.map(|v| v.to_string()));
        flag("-threads", threads.map(|v| v.to_string()));
        flag(
            "-encoding",
            (self.latin1 && self.label.1).then(|| self.label.0.to_string()),
        );
        match self.supp {
            Supp::None | Supp::Config(_) => {}
            Supp::Tuples(n) => flag("-suppThreshold", Some(n.to_string())),
            Supp::Fraction(f) => flag("-suppression", Some(f.to_string())),
        }
        if self.local {
            a.push("-localRecoding".to_string());
        }
        a
    }
}

// ---------------------------------------------------------------------------------------------
// What the README promises of a case.

/// The documented reason a case is refused (exit 2), if any: README "Safety" and
/// `config::Builder::{flags_apply, enforceable}`.
fn refusal(c: &Case) -> Option<&'static str> {
    let lattice = is_lattice(c.method);
    let one_sens = matches!(c.method, "Incognito_L" | "Incognito_T" | "Anatomy");
    if on_hierarchies(c) && c.format != "genVals" {
        return Some("Mondrian over hierarchies writes genVals only");
    }
    if one_sens && c.sens.len() != 1 {
        return Some("one sensitive attribute only");
    }
    if lattice && c.format != "genVals" {
        return Some("lattice methods write genVals only");
    }
    if c.local && !lattice {
        return Some("local recoding follows the lattice searches");
    }
    if c.local
        && c.privacy
            .iter()
            .flatten()
            .any(|m| matches!(m, Pm::Delta(..)))
    {
        return Some("local recoding cannot enforce delta-presence");
    }
    let Some(models) = &c.privacy else {
        return if c.k.is_some() && one_sens {
            Some("-k ignored")
        } else if c.l.is_some() && !matches!(c.method, "Incognito_L" | "Anatomy") {
            Some("-l ignored")
        } else if c.c.is_some() && c.method != "Incognito_L" {
            Some("-c ignored")
        } else if c.t.is_some() && c.method != "Incognito_T" {
            Some("-t ignored")
        } else if c.method == "Incognito_L"
            && c.c.unwrap_or(0.2) > 0.0
            && c.l.unwrap_or(10.0).fract() != 0.0
        {
            Some("recursive (c,l)-diversity with a fractional l")
        } else if c.method == "Anatomy" && c.l.unwrap_or(10.0).fract() != 0.0 {
            Some("distinct l-diversity with a fractional l")
        } else {
            None
        };
    };
    if !lattice && models.iter().any(|m| matches!(m, Pm::Delta(..))) {
        // (Mondrian too: its partition has no population classes.)
        return Some("delta-presence needs a lattice method");
    }
    // Recursive (c,l) and distinct l count values: a fractional l (the model's, or a stricter -l)
    // is refused.
    let fractional_l = models.iter().any(|m| match *m {
        Pm::Recursive(_, l, _) | Pm::Distinct(l, _) => l.max(c.l.unwrap_or(0.0)).fract() != 0.0,
        _ => false,
    });
    if fractional_l {
        return Some("recursive (c,l) or distinct l-diversity with a fractional l");
    }
    if c.c.is_some_and(|c| c <= 0.0) && models.iter().any(|m| matches!(m, Pm::Recursive(..))) {
        return Some("-c <= 0 with recursive (c,l)-diversity");
    }
    let takes_k = lattice || c.method == "Incognito_K";
    let has_k = models.iter().any(|m| matches!(m, Pm::K(_))) || (takes_k && c.k.is_some());
    let has = |f: fn(&Pm) -> bool| models.iter().any(f);
    if c.k.is_some() && !(matches!(c.method, "Datafly" | "Mondrian") || has_k) {
        return Some("-k ignored");
    }
    if c.l.is_some() && !has(|m| m.is_l()) {
        return Some("-l ignored");
    }
    if c.c.is_some() && !has(|m| matches!(m, Pm::Recursive(..))) {
        return Some("-c ignored");
    }
    if c.t.is_some() && !has(|m| matches!(m, Pm::T(..))) {
        return Some("-t ignored");
    }
    match c.method {
        m if is_lattice(m) => None,
        "Datafly" if has(|m| !matches!(m, Pm::K(_))) => Some("Datafly enforces k-anonymity only"),
        "Anatomy" if has(|m| !matches!(m, Pm::Distinct(_, 0))) => {
            Some("Anatomy enforces distinct l-diversity only")
        }
        "Incognito_K" | "Incognito_L" | "Incognito_T" => {
            let attrs: std::collections::HashSet<usize> =
                models.iter().filter_map(|m| m.attr()).collect();
            if has(|m| matches!(m, Pm::T(_, "hierarchical", _))) {
                Some("Incognito has no hierarchical distance")
            } else if attrs.len() > 1 {
                Some("Incognito enforces models of one attribute")
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether Mondrian runs over hierarchies (README "Methods"): a quasi-identifier without a
/// `<vgh>`, or a model beyond k-anonymity.
fn on_hierarchies(c: &Case) -> bool {
    c.method == "Mondrian"
        && (c.qis.iter().any(|q| !matches!(q, Qi::Vgh { .. }))
            || c.privacy.iter().flatten().any(|m| !matches!(m, Pm::K(_))))
}

/// What a run must deliver: the models of each sensitive attribute (k and the suppression limit
/// in every one), and δ-presence.
struct Asked {
    models: Vec<(usize, Model)>,
    k: Option<u64>,
    delta: Option<(f64, f64)>,
}

fn asked(c: &Case, table: &[Vec<String>]) -> Asked {
    let lay = c.layout();
    let released = match lay.subset {
        Some(s) if is_lattice(c.method) => table.iter().filter(|r| r[s] == "1").count(),
        _ => table.len(),
    };
    // One model per constraint (a config may repeat a model with other parameters), each with its
    // attribute; the first also carries k and the suppression limit alone.
    let mut models = vec![(0, Model::default())];
    let mut add = |a: usize, set: &dyn Fn(&mut Model)| {
        let mut m = Model::default();
        set(&mut m);
        models.push((a, m));
    };
    let mut k = None;
    let stricter_l = |l: f64| c.l.map_or(l, |f| f.max(l));
    let stricter = |v: f64, flag: Option<f64>| flag.map_or(v, |f| f.min(v));
    let labels = |a: usize| -> HashMap<String, Vec<String>> {
        (0..c.sens[a].m())
            .map(|i| (c.sens[a].value(i), c.sens[a].labels(i)))
            .collect()
    };
    // -k, else the root's k, else 10.
    let flag_k = c.k.or(c.root_k).unwrap_or(10);
    match &c.privacy {
        None => match c.method {
            "Incognito_L" => {
                let (l, cc) = (c.l.unwrap_or(10.0), c.c.unwrap_or(0.2));
                if cc <= 0.0 {
                    add(0, &|m| m.entropy_l = Some(l));
                } else {
                    add(0, &|m| m.recursive = Some((cc, l as usize)));
                }
            }
            "Incognito_T" => {
                let t = c.t.unwrap_or(0.2);
                match c.sens[0] {
                    Sens::Num { .. } => add(0, &|m| m.t_ordered = Some(t)),
                    _ => add(0, &|m| m.t_equal = Some(t)),
                }
            }
            "Anatomy" => add(0, &|m| {
                m.distinct_l = Some(c.l.unwrap_or(10.0).ceil() as usize)
            }),
            _ => k = Some(flag_k),
        },
        Some(privacy) => {
            for m in privacy {
                match *m {
                    Pm::K(mk) => k = Some(k.unwrap_or(0).max(mk)),
                    Pm::Distinct(l, a) => {
                        add(a, &|m| m.distinct_l = Some(stricter_l(l).ceil() as usize))
                    }
                    Pm::Entropy(l, a) => add(a, &|m| m.entropy_l = Some(stricter_l(l))),
                    Pm::Recursive(cc, l, a) => add(a, &|m| {
                        m.recursive = Some((stricter(cc, c.c), stricter_l(l) as usize))
                    }),
                    Pm::T(t, d, a) => {
                        let t = stricter(t, c.t);
                        match d {
                            "equal" => add(a, &|m| m.t_equal = Some(t)),
                            "ordered" => add(a, &|m| m.t_ordered = Some(t)),
                            _ => add(a, &|m| m.t_hierarchical = Some((t, labels(a)))),
                        }
                    }
                    Pm::Delta(..) => {}
                }
            }
            // Methods that enforce k-anonymity also enforce -k, else the root's k (never the
            // default 10: the model's k is what was asked).
            let takes_k =
                is_lattice(c.method) || matches!(c.method, "Incognito_K" | "Datafly" | "Mondrian");
            if let Some(fk) = c.k.or(c.root_k.filter(|_| takes_k)) {
                k = Some(k.unwrap_or(0).max(fk));
            }
        }
    }
    let budget = match (c.method, c.supp) {
        (m, Supp::Tuples(n)) if is_lattice(m) || matches!(m, "Datafly" | "Incognito_K") => n,
        (m, Supp::Fraction(f) | Supp::Config(f))
            if is_lattice(m) || matches!(m, "Datafly" | "Incognito_K") =>
        {
            (f * released as f64).floor() as u64
        }
        // The documented default of Datafly and Incognito_K: k tuples (the k enforced).
        ("Datafly" | "Incognito_K", Supp::None) => k.unwrap_or(flag_k),
        _ => 0,
    };
    for (_, m) in &mut models {
        m.k = k.map(|k| k as usize);
        m.max_suppressed = budget as usize;
    }
    Asked {
        models,
        k,
        delta: c.delta(),
    }
}

/// Whether the release of every record in one class (the top of every lattice, Datafly's and
/// Mondrian's last resort; Anatomy's eligibility) would satisfy what is asked: if so, a run
/// that fails (exit 1) gave up on an input it could have anonymized.
fn feasible(c: &Case, table: &[Vec<String>], asked: &Asked) -> bool {
    let lay = c.layout();
    let members: Vec<&Vec<String>> = table
        .iter()
        .filter(|r| lay.subset.is_none_or(|s| r[s] == "1"))
        .collect();
    if asked.k.is_some_and(|k| (members.len() as u64) < k) {
        return false;
    }
    if let Some((dmin, dmax)) = asked.delta {
        let d = members.len() as f64 / table.len() as f64;
        if d < dmin || d > dmax {
            return false;
        }
    }
    if c.method == "Anatomy" {
        // Xiao and Tao's eligibility: l distinct values, none held by more than n / l records,
        // for the largest l asked (Anatomy enforces the largest of several distinct-l models).
        let l = asked
            .models
            .iter()
            .filter_map(|(_, m)| m.distinct_l)
            .max()
            .unwrap();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for r in table {
            *counts.entry(&r[lay.sens[0]]).or_default() += 1;
        }
        return counts.len() >= l && counts.values().all(|&n| n * l <= table.len());
    }
    asked.models.iter().all(|(a, m)| {
        let one = Classes {
            classes: vec![members.iter().map(|r| r[lay.sens[*a]].clone()).collect()],
            suppressed: Vec::new(),
        };
        check(
            &one,
            &Model {
                k: None,
                ..m.clone()
            },
        )
        .is_ok()
    })
}

// ---------------------------------------------------------------------------------------------
// Running a case.

/// Writes the case, runs anonbox, checks the outcome; `Err` describes the defect.
fn run_case(c: &Case) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = c.table();
    let table = c.records(&rows);
    let why = refusal(c);
    std::fs::write(d.join("in.csv"), c.input(&rows, why.is_some())).unwrap();
    let config = c.config(d);
    std::fs::write(d.join("config.xml"), &config).unwrap();
    let inputs = common::files_in(d);
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(d)
        .args(c.args())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    let code = run.status.code();
    if std::env::var_os("PROTECTION_TRACE").is_some() {
        eprintln!(
            "TRACE {} {:?} {:?} header {} sep {:?} ? {} keep {} latin1 {} threads {}",
            c.method, code, why, c.header, c.sep, c.qmark, c.keep, c.latin1, c.threads
        );
    }
    let asked = asked(c, &table);
    let fail = |what: String| {
        if let Some(keep) = std::env::var_os("PROTECTION_KEEP") {
            // A debugging aid: the files of the last failing case stay in this folder.
            let _ = std::fs::remove_dir_all(&keep);
            std::fs::create_dir_all(&keep).unwrap();
            for f in common::files_in(d) {
                std::fs::copy(d.join(&f), Path::new(&keep).join(&f)).unwrap();
            }
        }
        Err(format!(
            "{what}\nexit {code:?}, stderr: {stderr}\nargs: {:?}\nconfig: {config}",
            c.args()
        ))
    };
    match (code, why) {
        (Some(0), None) => {}
        (Some(1), None) if feasible(c, &table, &asked) => {
            return fail("failed, but one class of every record satisfies the models".into())
        }
        (Some(1), None) | (Some(2), Some(_)) => {
            if common::files_in(d) != inputs {
                return fail(format!("a failed run wrote {:?}", common::files_in(d)));
            }
            if stderr.trim_end().lines().count() != 1 {
                return fail("not one line on stderr".into());
            }
            return same_across_threads(c, d, code, &stderr).or_else(fail);
        }
        (_, Some(why)) => return fail(format!("should be refused: {why}")),
        _ => return fail("neither a release, a failed run nor a refused config".into()),
    }
    check_report(c, d, rows.len() - table.len())
        .and_then(|()| canonical(c, d))
        .and_then(|canon| check_release(c, &canon, &table, &asked))
        .and_then(|()| same_across_threads(c, d, code, &stderr))
        .or_else(fail)
}

/// The report's encoding, quasi-identifier names and rows skipped (the records holding `?`,
/// unless kept).
fn check_report(c: &Case, d: &Path, skipped: usize) -> Result<(), String> {
    let report: Value = serde_json::from_slice(&std::fs::read(d.join("report.json")).unwrap())
        .map_err(|e| format!("report: {e}"))?;
    let encoding = if c.latin1 { "windows-1252" } else { "UTF-8" };
    if report["input_encoding"] != encoding {
        return Err(format!("input_encoding {}", report["input_encoding"]));
    }
    let names: Vec<String> = c.layout().qis.iter().map(|&i| c.name(i)).collect();
    if report["quasi_identifiers"] != serde_json::json!(names) {
        return Err(format!("quasi_identifiers {}", report["quasi_identifiers"]));
    }
    if report["rows_skipped"] != skipped || report["rows_read"] != c.rows {
        return Err(format!(
            "{} rows read, {} skipped; {} and {skipped} expected",
            report["rows_read"], report["rows_skipped"], c.rows
        ));
    }
    Ok(())
}

/// The release in a folder of its own (`canon` in `d`, with the report) as the checkers read
/// it: decoded (see [`Case::decode`]), its header checked and dropped, split on the case's
/// separator and joined by `,` (no released field holds one: asserted).
fn canonical(c: &Case, d: &Path) -> Result<std::path::PathBuf, String> {
    let lay = c.layout();
    let canon = d.join("canon");
    std::fs::create_dir(&canon).unwrap();
    std::fs::copy(d.join("report.json"), canon.join("report.json")).unwrap();
    let names = |cols: &mut dyn Iterator<Item = usize>| cols.map(|i| c.name(i)).collect::<Vec<_>>();
    let kept = |i: &usize| Some(*i) != lay.id;
    let files = if c.method == "Anatomy" || c.format == "anatomy" {
        let published = |i: &usize| kept(i) && !lay.qis.contains(i);
        let mut qit = names(&mut lay.qis.iter().copied());
        qit.push("EID".into());
        let mut st = vec!["EID".to_string()];
        st.extend(names(&mut (0..lay.width).filter(published)));
        vec![("out_QIT.csv", qit), ("out_ST.csv", st)]
    } else {
        vec![("out.csv", names(&mut (0..lay.width).filter(kept)))]
    };
    for (file, header) in files {
        let text = c.decode(&std::fs::read(d.join(file)).unwrap())?;
        let mut lines = text.split_terminator('\n');
        if c.header {
            let got = lines.next().unwrap_or_default();
            if got != header.join(c.sep) {
                return Err(format!("{file}: header {got:?}"));
            }
        }
        let mut out = String::new();
        for line in lines {
            let fields: Vec<&str> = line.split(c.sep).collect();
            if fields.iter().any(|f| f.contains(',')) {
                return Err(format!("{file}: a field holds ',' in {line:?}"));
            }
            out += &(fields.join(",") + "\n");
        }
        std::fs::write(canon.join(file), out).unwrap();
    }
    Ok(canon)
}

/// With `-threads`, a lattice method's run with 2 and 4 threads ends as the first (1 thread):
/// the same exit, stderr and release byte for byte, the same report but for its thread counts,
/// work counters and times.
fn same_across_threads(c: &Case, d: &Path, code: Option<i32>, stderr: &str) -> Result<(), String> {
    if !c.threads {
        return Ok(());
    }
    let read = |f: &str| std::fs::read(d.join(f)).unwrap_or_default();
    let report = |f: &str| -> Value { serde_json::from_slice(&read(f)).unwrap_or_default() };
    let same = [
        "transformation",
        "suppressed_records",
        "equivalence_classes",
        "information_loss",
        "lower_bound",
        "proven_optimal",
        "algorithm",
        "transformations_checked",
        "rows_read",
        "rows_skipped",
    ];
    for n in [2, 4] {
        let (out, rep) = (format!("t{n}.csv"), format!("t{n}.json"));
        let run = std::process::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .current_dir(d)
            .args(c.args_to(&out, &rep, Some(n)))
            .output()
            .unwrap();
        if run.status.code() != code || String::from_utf8_lossy(&run.stderr) != stderr {
            return Err(format!(
                "-threads {n}: exit {:?}, stderr {}",
                run.status.code(),
                String::from_utf8_lossy(&run.stderr)
            ));
        }
        if code != Some(0) {
            continue;
        }
        if read(&out) != read("out.csv") {
            return Err(format!("-threads {n}: another release"));
        }
        let (a, b) = (report("report.json"), report(&rep));
        for key in same {
            if a[key] != b[key] {
                return Err(format!(
                    "-threads {n}: {key} {} (1 thread: {})",
                    b[key], a[key]
                ));
            }
        }
    }
    Ok(())
}

/// Checks a successful run's files against the input and what was asked.
fn check_release(c: &Case, d: &Path, table: &[Vec<String>], asked: &Asked) -> Result<(), String> {
    let lay = c.layout();
    let report: Value = serde_json::from_slice(&std::fs::read(d.join("report.json")).unwrap())
        .map_err(|e| format!("report: {e}"))?;
    let anatomy = c.method == "Anatomy" || c.format == "anatomy";
    let full_domain = !matches!(c.method, "Mondrian" | "Anatomy");
    let top: Vec<String> = c.qis.iter().map(|q| q.top()).collect();
    // Output columns: the input's but the identifier.
    let out_col = |i: usize| i - usize::from(lay.id.is_some_and(|id| id < i));
    let qid_out: Vec<usize> = lay.qis.iter().map(|&i| out_col(i)).collect();
    let released: Vec<&Vec<String>> = table
        .iter()
        .filter(|r| !is_lattice(c.method) || lay.subset.is_none_or(|s| r[s] == "1"))
        .collect();
    let classes: Vec<Classes> = if anatomy {
        let (qit, st) = (d.join("out_QIT.csv"), d.join("out_ST.csv"));
        let raw = |j: usize, value: &str, printed: &str| match c.qis[j] {
            Qi::Vgh { .. } => printed.parse::<f64>().ok() == value.parse::<f64>().ok(),
            _ => printed == value,
        };
        let ids: Vec<usize> = lay.id.into_iter().collect();
        lay.sens
            .iter()
            .map(|&s| classes_of_anatomy(&qit, &st, table, (&lay.qis, &ids, s), &top, &raw))
            .collect()
    } else {
        let out = lines(&d.join("out.csv"), ",");
        if out.len() != released.len() {
            return Err(format!(
                "{} rows written for {} records",
                out.len(),
                released.len()
            ));
        }
        // A locally recoded release has no single transformation: each value is a label of
        // its hierarchy, at any level.
        let levels = (full_domain && !c.local).then(|| common::levels(&report));
        let mut suppressed = 0;
        for (o, r) in out.iter().zip(&released) {
            let want: Vec<&String> = (0..lay.width)
                .filter(|&i| Some(i) != lay.id)
                .map(|i| &r[i])
                .collect();
            if o.len() != want.len() {
                return Err(format!("row {o:?} for {r:?}"));
            }
            let all_top = qid_out.iter().zip(&top).all(|(&q, t)| o[q] == *t);
            let mut generalized = true;
            for (j, (&q, &i)) in qid_out.iter().zip(&lay.qis).enumerate() {
                let ok = match (&levels, c.format) {
                    (Some(l), "genVals") => c.qis[j].labels(&r[i])[l[j]] == o[q],
                    (None, "genVals") if c.local => c.qis[j].labels(&r[i]).contains(&o[q]),
                    (None, "genVals") if on_hierarchies(c) => covers(c.qis[j], &o[q], &r[i]),
                    (None, "genVals") => contains(&o[q], &r[i]),
                    _ => true,
                };
                generalized &= ok;
            }
            if !generalized && !all_top {
                return Err(format!("row {o:?} does not generalize {r:?}"));
            }
            // (Locally recoded: a suppressed row prints every top label, which are labels of
            // its values too.)
            suppressed += usize::from(!generalized || (c.local && all_top));
            for (i, (got, want)) in o.iter().zip(&want).enumerate() {
                if !qid_out.contains(&i) && got != *want {
                    return Err(format!("field {i} of {r:?} changed to {got}"));
                }
            }
        }
        // (When every row prints the top labels, suppressed rows look like the others.)
        let all_top = out
            .iter()
            .all(|o| qid_out.iter().zip(&top).all(|(&q, t)| o[q] == *t));
        if full_domain
            && c.format == "genVals"
            && !all_top
            && (if c.local {
                // (A group released at the top of every hierarchy prints as suppressed.)
                report["suppressed_records"].as_u64().unwrap_or(0) as usize > suppressed
            } else {
                report["suppressed_records"] != suppressed
            })
        {
            return Err(format!(
                "{suppressed} rows suppressed, the report says {}",
                report["suppressed_records"]
            ));
        }
        let top = if full_domain { top.clone() } else { Vec::new() };
        let budget = asked.models[0].1.max_suppressed;
        lay.sens
            .iter()
            .map(|&s| {
                let mut found =
                    classes_of_generalized(&d.join("out.csv"), &qid_out, out_col(s), &top);
                // Every row at the top: either one class, or every record suppressed, which
                // the limit may allow.
                if full_domain && all_top && out.len() <= budget {
                    found.suppressed = found.classes.concat();
                    found.classes.clear();
                }
                found
            })
            .collect()
    };
    for (a, model) in &asked.models {
        let found = &classes[*a];
        if let Some(k) = asked.k {
            if let Some(small) = found.classes.iter().find(|v| (v.len() as u64) < k) {
                return Err(format!("a class of {} records, k = {k}", small.len()));
            }
        }
        check(found, model).map_err(|e| format!("sensitive attribute {a}: {e}"))?;
    }
    if let Some(bounds) = asked.delta {
        check_delta(c, d, table, &report, bounds)?;
    }
    Ok(())
}

/// Whether Mondrian over hierarchies' `label` covers `value`: a node of its hierarchy above it
/// (a `<vgh>`'s interval, its own value, `*`), or a range `[a:b]` of numbers holding it.
fn covers(q: Qi, label: &str, value: &str) -> bool {
    if q.labels(value).iter().any(|l| l == label) || label == value || label == "*" {
        return true;
    }
    if let Qi::Vgh { .. } = q {
        return contains(label, value);
    }
    // A range of numbers, closed: `[a:b]`, a < b.
    let Some((lo, hi)) = label
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .and_then(|l| l.split_once(':'))
    else {
        return false;
    };
    match (lo.parse::<f64>(), hi.parse::<f64>(), value.parse::<f64>()) {
        (Ok(lo), Ok(hi), Ok(x)) => lo <= x && x <= hi && lo < hi,
        _ => false,
    }
}

/// Whether Mondrian's interval `label` (`[a:b)`, `(a:b]`, ..., or a point `[a]`) holds `value`.
fn contains(label: &str, value: &str) -> bool {
    let x: f64 = value.parse().unwrap();
    let inner = &label[1..label.len() - 1];
    let (lo, hi) = inner.split_once(':').unwrap_or((inner, inner));
    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
    let above = if label.starts_with('[') {
        x >= lo
    } else {
        x > lo
    };
    let below = if label.ends_with(']') {
        x <= hi
    } else {
        x < hi
    };
    above && below
}

/// δ-presence over the population generalized independently to the reported levels: every class
/// whose research subset records were released has a share of them in [dmin, dmax]; a class is
/// suppressed whole or not at all.
fn check_delta(
    c: &Case,
    d: &Path,
    table: &[Vec<String>],
    report: &Value,
    (dmin, dmax): (f64, f64),
) -> Result<(), String> {
    let lay = c.layout();
    let levels = common::levels(report);
    let top: Vec<String> = c.qis.iter().map(|q| q.top()).collect();
    let out_col = |i: usize| i - usize::from(lay.id.is_some_and(|id| id < i));
    let out = lines(&d.join("out.csv"), ",");
    let mut out = out.iter();
    // Per generalized tuple: records, subset records, suppressed subset records.
    let mut tally: HashMap<Vec<String>, (usize, usize, usize)> = HashMap::new();
    for r in table {
        let key: Vec<String> = c
            .qis
            .iter()
            .zip(&lay.qis)
            .zip(&levels)
            .map(|((q, &i), &l)| q.labels(&r[i])[l].clone())
            .collect();
        let e = tally.entry(key.clone()).or_default();
        e.0 += 1;
        if r[lay.subset.unwrap()] == "1" {
            e.1 += 1;
            let o = out.next().ok_or("fewer rows than subset records")?;
            let shown: Vec<String> = lay.qis.iter().map(|&i| o[out_col(i)].clone()).collect();
            e.2 += usize::from(shown == top && key != top);
        }
    }
    for (key, (records, members, suppressed)) in tally {
        let delta = members as f64 / records as f64;
        if suppressed > 0 && suppressed < members {
            return Err(format!(
                "class {key:?}: {suppressed} of its {members} subset records suppressed"
            ));
        }
        if suppressed == 0 && !(dmin..=dmax).contains(&delta) {
            return Err(format!(
                "class {key:?}: delta {members}/{records} outside [{dmin}, {dmax}]"
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Strategies.

fn qi() -> impl Strategy<Value = Qi> {
    prop_oneof![
        (1u32..4, prop::sample::select(vec![2u32, 4, 8]))
            .prop_map(|(depth, width)| Qi::Vgh { depth, width }),
        (2usize..9, 2usize..5).prop_map(|(leaves, levels)| Qi::File { leaves, levels }),
        (1u32..6).prop_map(|width| Qi::Intervals { width }),
        (2usize..4).prop_map(|len| Qi::Mask { len }),
    ]
}

fn sens() -> impl Strategy<Value = Sens> {
    (2usize..7, 0..3).prop_map(|(m, kind)| match kind {
        0 => Sens::Num { m },
        1 => Sens::Hier { m },
        _ => Sens::Map { m },
    })
}

fn model(sens: Vec<Sens>) -> impl Strategy<Value = Pm> {
    let n = sens.len();
    let l = prop::sample::select(vec![2.0, 2.4, 2.5, 3.0]);
    let distances = move |a: usize| match sens[a] {
        Sens::Num { .. } => vec!["equal", "ordered"],
        Sens::Hier { .. } => vec!["equal", "hierarchical"],
        Sens::Map { .. } => vec!["equal"],
    };
    prop_oneof![
        (1u64..8).prop_map(Pm::K),
        (l.clone(), 0..n).prop_map(|(l, a)| Pm::Distinct(l, a)),
        (l.clone(), 0..n).prop_map(|(l, a)| Pm::Entropy(l, a)),
        (prop::sample::select(vec![0.5, 1.0, 2.0, 4.0]), l, 0..n)
            .prop_map(|(c, l, a)| Pm::Recursive(c, l, a)),
        (1u32..8, 0..n, 0usize..2).prop_map(move |(t, a, d)| {
            let ds = distances(a);
            Pm::T(f64::from(t) / 10.0, ds[d % ds.len()], a)
        }),
        (
            prop::sample::select(vec![0.0, 0.1, 0.3]),
            prop::sample::select(vec![0.5, 0.8, 1.0])
        )
            .prop_map(|(a, b)| Pm::Delta(a, b)),
    ]
}

prop_compose! {
    fn case()(
        qis in prop::collection::vec(qi(), 2..5),
        sens in prop::collection::vec(sens(), 1..3),
    )(
        seed in any::<u64>(),
        rows in 20usize..200,
        id in any::<bool>(),
        skew in prop::collection::vec(prop::sample::select(vec![0u32, 0, 30, 60, 90]), 6),
        // MDAV releases means, not generalizations this checker can judge: tests/it/mdav.rs
        // re-checks its releases and its refusals.
        method in prop::sample::select(
            anonbox::job::Method::NAMES.iter().copied().filter(|&m| m != "MDAV").collect::<Vec<_>>()
        ),
        format in prop::sample::select(vec!["genVals", "genVals", "genValsDist", "anatomy"]),
        privacy in prop::option::weighted(0.6, prop::collection::vec(model(sens.clone()), 1..4)),
        k in prop::option::weighted(0.5, 1u64..8),
        root_k in prop::option::weighted(0.2, 1u64..8),
        l in prop::option::weighted(0.3, prop::sample::select(vec![2.0, 2.4, 3.0])),
        c in prop::option::weighted(0.15, prop::sample::select(vec![-1.0, 0.5, 2.0])),
        t in prop::option::weighted(0.15, prop::sample::select(vec![0.3, 0.6])),
        supp in prop_oneof![
            Just(Supp::None),
            (0u64..12).prop_map(Supp::Tuples),
            prop::sample::select(vec![0.0, 0.05, 0.1, 0.3]).prop_map(Supp::Fraction),
            prop::sample::select(vec![0.05, 0.2]).prop_map(Supp::Config),
        ],
        qis in Just(qis),
        sens in Just(sens),
        accepted in prop::bool::weighted(0.8),
        (header, sep, qmark, keep, latin1, threads, local) in (
            any::<bool>(),
            prop::sample::select(vec![",", ",", ";", "\t", ", "]),
            prop::bool::weighted(0.3),
            any::<bool>(),
            prop::bool::weighted(0.3),
            prop::bool::weighted(0.3),
            prop::bool::weighted(0.25),
        ),
        label in (
            prop::sample::select(vec!["windows-1252", "latin1", "iso-8859-1"]),
            prop::bool::weighted(0.3),
        ),
    ) -> Case {
        // One δ-presence model at most (one subset column).
        let privacy = privacy.map(|mut v| {
            let mut seen = false;
            v.retain(|m| !matches!(m, Pm::Delta(..)) || !std::mem::replace(&mut seen, true));
            v
        });
        let case = Case {
            seed, rows, id, qis, sens, skew, method, format, privacy, root_k, k, l, c, t, supp,
            header, sep, qmark, keep, latin1, label, threads: threads && is_lattice(method),
            local,
        };
        if accepted { accept(case) } else { case }
    }
}

/// Most random configs break some rule of the README; four cases in five are changed into one
/// the method accepts (the rest test the refusals).
fn accept(mut c: Case) -> Case {
    let lattice = is_lattice(c.method);
    // Half the Mondrian cases are the toolbox's (<vgh>s), the others over any hierarchy.
    if c.method == "Mondrian" && c.seed.is_multiple_of(2) {
        for q in &mut c.qis {
            let domain = q.domain().max(2) as u32;
            *q = Qi::Vgh {
                depth: 2,
                width: domain.div_ceil(4),
            };
        }
    }
    if matches!(c.method, "Incognito_L" | "Incognito_T" | "Anatomy") {
        c.sens.truncate(1);
    }
    let n = c.sens.len();
    if let Some(models) = &mut c.privacy {
        let mut attr = None;
        models.retain(|m| match (c.method, *m) {
            (m, _) if is_lattice(m) => true,
            ("Datafly" | "Mondrian", Pm::K(_)) => true,
            ("Anatomy", Pm::Distinct(_, 0)) => true,
            ("Mondrian", Pm::Delta(..)) => false,
            ("Mondrian", _) => true,
            ("Datafly" | "Anatomy", _) | (_, Pm::Delta(..)) => false,
            (_, Pm::T(_, "hierarchical", _)) => false,
            (_, m) => m
                .attr()
                .is_none_or(|a| *attr.get_or_insert(a) == a && a < n),
        });
        for m in models.iter_mut() {
            if let Pm::Recursive(_, l, _) | Pm::Distinct(l, _) = m {
                *l = l.floor();
            }
        }
    }
    if c.privacy.as_ref().is_some_and(Vec::is_empty) {
        c.privacy = None;
    }
    if lattice || on_hierarchies(&c) {
        c.format = "genVals";
    }
    // Local recoding with the lattice searches only, and without δ-presence.
    if !lattice
        || c.privacy
            .iter()
            .flatten()
            .any(|m| matches!(m, Pm::Delta(..)))
    {
        c.local = false;
    }
    if c.privacy.is_none() && matches!(c.method, "Incognito_L" | "Anatomy") {
        c.l = Some(c.l.unwrap_or(2.0).min(3.0));
    }
    for drop in 0..5 {
        if refusal(&c).is_none() {
            break;
        }
        match drop {
            0 => c.c = None,
            1 => c.t = None,
            2 => c.l = None,
            3 => c.k = None,
            _ => c.l = c.l.map(f64::floor),
        }
    }
    c
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn no_method_releases_less_protection_than_asked(c in case()) {
        run_case(&c).map_err(TestCaseError::fail)?;
    }
}
