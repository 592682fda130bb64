//! From a profile to proposals: a role per column and, per quasi-identifier, a builder.
//!
//! Roles, each with its reason (what its name or values say, see [`super::meaning`]):
//! - **identifier** (removed from the output): named as one (names, contact details, record,
//!   account and other numbers: `id`, `nr`, `mrn`, ...), shaped as one (e-mail, web and IP
//!   addresses, sequences), or near-unique: at least 90 % distinct values over at least 50
//!   records (99 % for integers, so that a measurement with many values stays a
//!   quasi-identifier), codes and categories only: a date of birth or a measurement is
//!   near-unique in a small file but is what an attacker knows, to generalize.
//! - **sensitive** (released as it is, under distinct l-diversity): named as an outcome,
//!   a diagnosis, income, a special category; or, when nothing is so named, the last column if
//!   a category of 2 to 10 values (where survey and census files keep their outcome). l is 2
//!   below six values, else 3 ([`sensitive_l`]).
//! - **quasi-identifier**: named as a demographic, geography or a date, or shaped as an age
//!   or a date; then the others, since declaring too many is safe and too few is not, up to
//!   what a release bears ([`bound_quasi_identifiers`]).
//! - **insensitive** (released as it is): free text (a hierarchy cannot generalize sentences;
//!   review it by hand), empty columns, columns of one value, and, past the bound, columns
//!   nothing names a quasi-identifier whose every value is shared by at least [`K`] records.
//! - **left out** (removed, as an identifier): past the bound, the others: released raw
//!   beside the generalized ones, they could single records out again.
//!
//! HIPAA Safe Harbor identifiers are flagged with their treatment ([`super::meaning`]); the
//! proposal applies it where a hierarchy can: ZIP codes masked to their first three digits at
//! the first level, ages top-coded at 90 (`>=90`), dates with calendar levels.
//!
//! Default hierarchies, chosen to be useful at the first try:
//! - integers and decimals: `intervals` of a round width giving about 16 intervals over the
//!   range (5 for ages 17..90), doubled twice (5, 10, 20), anchored at a multiple of the widest;
//!   up to 5 values: value -> `*`.
//! - dates: `dates` month, year, decade, in the detected format, each where it groups the
//!   dates (else quarter and week in its place; see [`date_levels`]).
//! - codes: `mask` from the right, a third of the longest code per level, without the level
//!   that hides every character (`levels`): `81667`, `816**`, `8****`, `*`.
//! - categories: up to 20 values: value -> `*`; more: the rare ones (fewer records than 0.1 %
//!   of the file, at least 5) grouped into `Other` first.
//!
//! The lattice of a run has the product of the hierarchies' heights. Under [`LATTICE_BUDGET`]
//! Flash proves the optimum in seconds to minutes, even on 200,000 records: a larger lattice
//! loses the finest level of its tallest hierarchy (of a code, the coarsest masking level: a
//! larger step would hide the first characters, the useful ones), one at a time, down to
//! value, one level, `*`. If it is still larger (nine or ten quasi-identifiers), every
//! quasi-identifier stays and the config runs `-method Optimal` (BFS over antichains above
//! [`crate::algorithms::OPTIMAL_FLASH_LIMIT`]) with a time limit of [`TIME_LIMIT`] seconds: the
//! release is the best transformation found by then, with the proven bound in the report.
//! (Removing quasi-identifiers from the output until Flash could take the rest, as init once
//! did, releases less: a removed column is generalized all the way, on every record.)
//!
//! The bound keeps the lattice within what a search takes: at most
//! [`MAX_QUASI_IDENTIFIERS`] hierarchies, each coarsened to three levels at most when the
//! budget needs it, are far below the 2^64 transformations a search takes
//! ([`crate::algorithms::lattice_limits`], which init still checks on the files it writes).
//!
//! Coarsening and choosing take time near-linear in the columns: a heap finds the tallest
//! hierarchy and a count of hierarchies per height gives the lattice's size, so that a file of
//! 10,000 columns is proposed in milliseconds.

use std::collections::BinaryHeap;

use super::meaning::{self, Meaning, SafeHarbor};
use super::profile::{ColumnProfile, Kind, Profile};
use crate::hierarchy::build::dates::DateFormat;
use crate::hierarchy::build::number::Decimal;
use crate::hierarchy::build::{Builder, Params};
use crate::job::Method;

/// Most transformations a proposed lattice should have: Flash checks such a lattice in
/// seconds.
pub const LATTICE_BUDGET: u64 = 20_000;

/// Seconds a proposed run searches when the lattice is larger than [`LATTICE_BUDGET`] after
/// coarsening (`timeLimit` in the config): the best transformation found by then is released.
pub const TIME_LIMIT: u32 = 60;

/// The role proposed for a column.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    Identifier,
    Insensitive,
    /// Released as it is, protected by distinct l-diversity of this `l` (see [`sensitive_l`]).
    Sensitive {
        l: usize,
    },
    /// With the builder's kind and parameters (name, value), in order.
    QuasiIdentifier {
        kind: &'static str,
        params: Vec<(String, String)>,
    },
    /// A quasi-identifier left out of the bounded set ([`bound_quasi_identifiers`]) or past
    /// what a search takes ([`keep_within_limits`]): removed from the release, as an
    /// identifier is.
    LeftOut,
}

/// One column's proposal and why.
#[derive(Debug, Clone)]
pub struct ColumnProposal {
    pub role: Role,
    /// Why this role: `quasi-identifier: demographic, by its name (age)`.
    pub reason: String,
    /// The profile the reason rests on: `integer 17..90, 72 distinct, 0.0 % missing`.
    pub profile: String,
    /// Its name or values say what it is (a quasi-identifier by name or shape comes before
    /// one that is a quasi-identifier only because nothing says otherwise).
    pub known: bool,
    /// Finest levels were taken off its hierarchy to keep the lattice small.
    pub coarsened: bool,
    /// The HIPAA Safe Harbor identifier it is, with the treatment.
    pub safe_harbor: Option<SafeHarbor>,
}

impl ColumnProposal {
    /// The line init prints and writes as the column's comment: the role and why, the
    /// hierarchy actually written (`hierarchy`, for a quasi-identifier), the profile and the
    /// Safe Harbor flag.
    pub fn line(&self, hierarchy: Option<&str>) -> String {
        let mut s = self.reason.clone();
        if let Some(h) = hierarchy {
            s.push_str(": ");
            s.push_str(h);
        }
        s.push_str(&format!(" ({})", self.profile));
        if self.coarsened {
            s.push_str("; finest levels dropped to keep the lattice small");
        }
        if let Some(sh) = &self.safe_harbor {
            s.push_str("; ");
            s.push_str(&sh.text());
        }
        s
    }
}

/// The proposals of a file.
#[derive(Debug, Clone)]
pub struct Proposal {
    /// One per column, in column order.
    pub columns: Vec<ColumnProposal>,
    /// Why fewer quasi-identifiers were kept than there were ([`bound_quasi_identifiers`]).
    pub bounded: Option<String>,
}

impl Proposal {
    /// The number of transformations of the lattice the proposed quasi-identifiers give (the
    /// product of their hierarchies' levels), `None` if more than 2^64.
    pub fn lattice(&self) -> Option<u64> {
        lattice_size(self.columns.iter().filter_map(qi_levels))
    }

    /// The columns left out of the quasi-identifiers ([`keep_within_limits`]), in column order.
    pub fn left_out(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.columns.len()).filter(|&i| self.columns[i].role == Role::LeftOut)
    }
}

/// The levels of a quasi-identifier's proposed hierarchy (`None` for other roles).
fn qi_levels(c: &ColumnProposal) -> Option<usize> {
    match &c.role {
        Role::QuasiIdentifier { kind, params } => Some(levels(kind, params)),
        _ => None,
    }
}

/// The product of `levels`, `None` if more than 2^64 (as [`crate::algorithms::search::lattice_size`]).
pub fn lattice_size(levels: impl IntoIterator<Item = usize>) -> Option<u64> {
    levels
        .into_iter()
        .try_fold(1u64, |size, l| size.checked_mul(l as u64))
}

/// A lattice's size as init prints it: the number, or `more than 2^64` (no search takes it).
pub fn size_text(size: Option<u64>) -> String {
    size.map_or("more than 2^64".to_string(), |s| s.to_string())
}

/// The search a config runs on a lattice of `size` transformations: Flash within
/// [`LATTICE_BUDGET`], else Optimal for [`TIME_LIMIT`] seconds (see the module docs).
pub fn method(size: Option<u64>) -> (Method, Option<u32>) {
    match size {
        Some(s) if s <= LATTICE_BUDGET => (Method::Flash, None),
        _ => (Method::Optimal, Some(TIME_LIMIT)),
    }
}

/// The method's flags as a command line takes them: `-method Flash`,
/// `-method Optimal -timeLimit 60`.
pub fn method_flags(method: Method, time_limit: Option<u32>) -> String {
    match time_limit {
        None => format!("-method {}", method.name()),
        Some(t) => format!("-method {} -timeLimit {t}", method.name()),
    }
}

/// The k of the config init writes (the suppression limit and the run's `-k` go with it).
pub const K: u64 = 5;

/// Most quasi-identifiers init proposes, whatever the file's size: beyond ten, Flash no longer
/// proves the optimum in seconds, and a release keeps little of any.
pub const MAX_QUASI_IDENTIFIERS: usize = 10;

/// Fewest quasi-identifiers the bound leaves, however small the file.
pub const MIN_QUASI_IDENTIFIERS: usize = 3;

/// How many quasi-identifiers a release of `records` records bears at k = [`K`]: at the
/// coarsest level short of `*`, q attributes of (at least) two groups each make up to 2^q
/// classes, and `records` records fill classes of k only if 2^q <= records / k. So
/// floor(log2(records / k)), within [`MIN_QUASI_IDENTIFIERS`]..=[`MAX_QUASI_IDENTIFIERS`].
pub fn quasi_identifier_bound(records: u64) -> usize {
    let fill = (records as f64 / K as f64).max(1.0).log2().floor() as usize;
    fill.clamp(MIN_QUASI_IDENTIFIERS, MAX_QUASI_IDENTIFIERS)
}

/// The l of the distinct l-diversity proposed for a sensitive attribute of `distinct` values:
/// 2 below six values (a yes/no outcome can have no more), else 3.
pub fn sensitive_l(distinct: usize) -> usize {
    if distinct < 6 {
        2
    } else {
        3
    }
}

/// Proposes a role per column of `profile`, a file whose fields are separated by `separator`
/// (interval labels avoid it: `[20:25)` rather than `[20, 25[` in a comma-separated file, so
/// the release needs no quotes).
pub fn propose(profile: &Profile, separator: &str) -> Proposal {
    let toolbox_labels = separator.contains(',');
    let mut columns: Vec<ColumnProposal> = profile
        .columns
        .iter()
        .map(|c| column(c, profile.records, toolbox_labels))
        .collect();
    sensitive_by_shape(&mut columns, profile);
    let bounded = bound_quasi_identifiers(&mut columns, profile);
    coarsen_to_budget(&mut columns);
    Proposal { columns, bounded }
}

/// Without a sensitive attribute by name, the last column when it is a category of 2 to 10
/// values that nothing names a quasi-identifier: files of survey and census data end with the
/// outcome (ADULT's salary class, the census sample's income class).
fn sensitive_by_shape(columns: &mut [ColumnProposal], profile: &Profile) {
    if columns
        .iter()
        .any(|c| matches!(c.role, Role::Sensitive { .. }))
    {
        return;
    }
    let (Some(last), Some(c)) = (columns.last_mut(), profile.columns.last()) else {
        return;
    };
    let distinct = c.distinct();
    if matches!(last.role, Role::QuasiIdentifier { .. })
        && !last.known
        && matches!(c.kind, Kind::Category | Kind::Code { .. })
        && (2..=10).contains(&distinct)
    {
        let l = sensitive_l(distinct);
        last.role = Role::Sensitive { l };
        last.reason = format!(
            "sensitive: the last column, of {distinct} values (a file's outcome, by the usual \
             layout); released as it is, every class holding at least {l} of its values \
             (distinct {l}-diversity)"
        );
    }
}

/// Keeps the quasi-identifiers to what a release bears ([`quasi_identifier_bound`]): those
/// known by name or shape first, then the most identifying ([`identifying`]); ties: column
/// order. Past the bound, a known one is left out (removed: an outsider may know it, and its
/// raw values beside the generalized ones would single records out again); another is kept as
/// it is (insensitive) when each of its values is shared by at least [`K`] records, else left
/// out too. Returns why, when it kept fewer than there were.
pub fn bound_quasi_identifiers(
    columns: &mut [ColumnProposal],
    profile: &Profile,
) -> Option<String> {
    let bound = quasi_identifier_bound(profile.records);
    let mut ranked: Vec<(bool, f64, usize)> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| qi_levels(c).is_some())
        .map(|(i, c)| (c.known, identifying(&profile.columns[i]), i))
        .collect();
    if ranked.len() <= bound {
        return None;
    }
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    for &(known, bits, i) in &ranked[bound..] {
        let column = &profile.columns[i];
        let c = &mut columns[i];
        let rare = column.values_and_missing().filter(|&(_, n)| n < K).count();
        if !known && rare == 0 {
            c.role = Role::Insensitive;
            c.reason = format!(
                "insensitive, kept as it is: past the quasi-identifiers the release bears, \
                 nothing names it one and each of its values is shared by at least {K} \
                 records; move its <att> into <qid> if an outsider could know it"
            );
        } else {
            let how = if known {
                "named as one".to_string()
            } else {
                format!("{rare} of its values are shared by fewer than {K} records")
            };
            c.role = Role::LeftOut;
            c.reason = format!(
                "left out, past the quasi-identifiers the release bears, and removed ({how}; \
                 its values give {bits:.2} bits): released as it is, it could single \
                 records out beside the generalized ones"
            );
        }
    }
    Some(format!(
        "{bound} quasi-identifiers kept of {}: a release of {} records bears about {bound} at \
         k = {K} ({} attributes of two groups each make up to 2^{} classes, more than the \
         records fill with {K} each); those named as quasi-identifiers first, then the most \
         identifying",
        ranked.len(),
        profile.records,
        bound + 1,
        bound + 1
    ))
}

/// Keeps the lattice under [`LATTICE_BUDGET`] if coarsening can: the tallest hierarchy first
/// (ties: the last column), one level at a time, down to one level between the value and `*`.
/// A heap of the hierarchies taller than that finds the tallest, and a count of hierarchies
/// per number of levels gives the lattice's size, each in time independent of the columns.
fn coarsen_to_budget(columns: &mut [ColumnProposal]) {
    let mut per_height: Vec<u32> = Vec::new();
    let mut tall: BinaryHeap<(usize, usize)> = BinaryHeap::new();
    fn count(per_height: &mut Vec<u32>, l: usize, add: bool) {
        if per_height.len() <= l {
            per_height.resize(l + 1, 0);
        }
        if add {
            per_height[l] += 1;
        } else {
            per_height[l] -= 1;
        }
    }
    for (i, c) in columns.iter().enumerate() {
        if let Some(l) = qi_levels(c) {
            count(&mut per_height, l, true);
            if l > 3 {
                tall.push((l, i));
            }
        }
    }
    let within_budget = |per_height: &[u32]| {
        per_height
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .try_fold(1u64, |size, (l, &n)| {
                size.checked_mul((l as u64).checked_pow(n)?)
            })
            .is_some_and(|s| s <= LATTICE_BUDGET)
    };
    while !within_budget(&per_height) {
        let Some((l, i)) = tall.pop() else { break };
        let c = &mut columns[i];
        if let Role::QuasiIdentifier { kind, params } = &mut c.role {
            coarsen(kind, params);
        }
        c.coarsened = true;
        let now = qi_levels(c).expect("still a quasi-identifier");
        count(&mut per_height, l, false);
        count(&mut per_height, now, true);
        if now > 3 {
            tall.push((now, i));
        }
    }
}

/// The information a column's values give about a record, in bits: the entropy of their
/// distribution (each missing value one more value). Counts are summed in one order (largest
/// first), so that two columns of equally spread values are equal and keep their column order.
pub fn identifying(c: &ColumnProfile) -> f64 {
    let mut counts: Vec<u64> = c.values_and_missing().map(|(_, n)| n).collect();
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return 0.0;
    }
    let total = total as f64;
    counts
        .iter()
        .map(|&n| {
            let p = n as f64 / total;
            -p * p.log2()
        })
        .sum::<f64>()
        .max(0.0)
}

/// Levels (columns of the hierarchy file) a proposed builder gives.
fn levels(kind: &str, params: &[(String, String)]) -> usize {
    let get = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    match kind {
        "intervals" => get("widths").map_or(1, |w| w.split(',').count()) + 2,
        "dates" => get("levels").map_or(1, |l| l.split(',').count()) + 2,
        "mask" => {
            let longest: usize = get("longest").and_then(|l| l.parse().ok()).unwrap_or(1);
            let step: usize = get("step").and_then(|s| s.parse().ok()).unwrap_or(1);
            let all = longest.div_ceil(step).max(1);
            get("levels")
                .and_then(|l| l.parse().ok())
                .map_or(all, |l: usize| l.min(all))
                + 2
        }
        _ => {
            if get("frequency").is_some() {
                3
            } else {
                2
            }
        }
    }
}

/// Takes one level off a proposed builder.
fn coarsen(kind: &mut &'static str, params: &mut Vec<(String, String)>) {
    let set = |params: &mut Vec<(String, String)>, name: &str, value: String| {
        if let Some(p) = params.iter_mut().find(|(k, _)| k == name) {
            p.1 = value;
        }
    };
    let get = |params: &[(String, String)], n: &str| {
        params
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    match *kind {
        "intervals" | "dates" => {
            let name = if *kind == "intervals" {
                "widths"
            } else {
                "levels"
            };
            let list = get(params, name);
            let rest: Vec<&str> = list.split(',').skip(1).collect();
            if rest.is_empty() {
                *kind = "categories";
                params.clear();
            } else {
                set(params, name, rest.join(","));
            }
        }
        "mask" => {
            // The coarsest masking level goes: the finer ones keep the code's start (a ZIP
            // code's first three digits), which a larger step would hide.
            let levels = levels("mask", params) - 2;
            if levels <= 1 {
                *kind = "categories";
                params.clear();
            } else if params.iter().any(|(k, _)| k == "levels") {
                set(params, "levels", (levels - 1).to_string());
            } else {
                params.push(("levels".to_string(), (levels - 1).to_string()));
            }
        }
        _ => params.retain(|(k, _)| k != "frequency"),
    }
}

/// The calendar levels of a date column: month, year and decade, each only where it groups
/// the column's dates into more than one value and fewer than the levels below; quarter and
/// week stand in for those that do not (admissions of one year: week, month, quarter; a
/// decade that holds every date tells no more than `*`). Empty if no level helps.
fn date_levels(c: &ColumnProfile, format: &str) -> Vec<&'static str> {
    use chrono::Datelike;
    use std::collections::HashSet;
    let Ok(format) = DateFormat::new(format) else {
        return Vec::new();
    };
    let dates: Vec<chrono::NaiveDate> = c
        .values
        .values()
        .filter_map(|(v, _)| format.parse(v))
        .collect();
    let days: HashSet<chrono::NaiveDate> = dates.iter().copied().collect();
    // Each level's key of a date: the week is days 1-7, 8-14, 15-21, 22-28, 29 to the end.
    let count = |level: &str| -> usize {
        let key = |d: &chrono::NaiveDate| -> (i32, u32, u32) {
            let (y, m) = (d.year(), d.month());
            match level {
                "week" => (y, m, ((d.day() - 1) / 7).min(4)),
                "month" => (y, m, 0),
                "quarter" => (y, (m - 1) / 3, 0),
                "year" => (y, 0, 0),
                _ => (y.div_euclid(10), 0, 0),
            }
        };
        dates.iter().map(key).collect::<HashSet<_>>().len()
    };
    let mut chosen: Vec<(&'static str, usize)> = Vec::new();
    for level in ["month", "year", "decade", "quarter", "week"] {
        if chosen.len() == 3 {
            break;
        }
        let n = count(level);
        if n > 1 && n < days.len() && chosen.iter().all(|&(_, m)| m != n) {
            chosen.push((level, n));
        }
    }
    // Fine to coarse, as the builder takes them.
    chosen.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    chosen.into_iter().map(|(l, _)| l).collect()
}

/// `missing=keep` and the markers as `missing-values`, for a column with missing values.
fn keep_missing(p: &mut Vec<(&str, String)>, markers: &[&str]) {
    p.push(("missing", "keep".to_string()));
    if !markers.is_empty() {
        p.push(("missing-values", markers.join(",")));
    }
}

fn pairs(p: &[(&str, String)]) -> Vec<(String, String)> {
    p.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
}

fn percent(part: u64, whole: u64) -> String {
    format!("{:.1} %", 100.0 * part as f64 / whole.max(1) as f64)
}

/// The proposal for one column: its role by what its name or values say ([`meaning`]), its
/// profile, and for a quasi-identifier the builder of its hierarchy.
fn column(c: &ColumnProfile, records: u64, toolbox_labels: bool) -> ColumnProposal {
    let missing_records = c.missing();
    let present = records - missing_records.min(records);
    let distinct = c.distinct() as u64;
    let share = distinct as f64 / present.max(1) as f64;
    let markers: Vec<&str> = c.markers().collect();
    let profile = format!(
        "{}, {}{} distinct, {} missing{}",
        c.kind.describe(),
        if c.overflowed { "more than " } else { "" },
        distinct,
        percent(missing_records, records),
        match (
            c.missing_values.iter().any(|(v, _)| v.is_empty()),
            &markers[..]
        ) {
            (_, []) => String::new(),
            (true, m) => format!(": empty, {}", m.join(", ")),
            (false, m) => format!(": {}", m.join(", ")),
        }
    );
    // What the name says, else what the values say. A date is never an identifier
    // (`record_date` is a date), and a column of numbers is no name or address.
    let by_name = meaning::by_name(&c.name).filter(|(m, _)| match m {
        Meaning::Identifier(_) => !matches!(c.kind, Kind::Date { .. }),
        _ => true,
    });
    let (meaning, word, by) = match by_name {
        Some((m, w)) => (Some(m), w.clone(), format!("by its name ({w})")),
        None => (
            meaning::by_shape(c),
            String::new(),
            "by its values".to_string(),
        ),
    };
    let safe_harbor = meaning::safe_harbor(c, meaning, &word);
    let say = |role: Role, why: String, known: bool| ColumnProposal {
        role,
        reason: why,
        profile: profile.clone(),
        known,
        coarsened: false,
        safe_harbor: safe_harbor.clone(),
    };
    let near_unique = |threshold: f64| c.overflowed || (present >= 50 && share >= threshold);
    if let Some(Meaning::Identifier(what)) = meaning {
        return say(Role::Identifier, format!("identifier: {what}, {by}"), true);
    }
    match &c.kind {
        Kind::Empty => return say(Role::Insensitive, "insensitive: no values".into(), false),
        Kind::Text => {
            return say(
                Role::Insensitive,
                "insensitive: free text, review it by hand".into(),
                false,
            )
        }
        _ if distinct <= 1 && missing_records == 0 => {
            return say(
                Role::Insensitive,
                "insensitive: one value, identifies no one".into(),
                false,
            )
        }
        _ => {}
    }
    if let Some(Meaning::Sensitive(what)) = meaning {
        let l = sensitive_l(distinct as usize);
        return say(
            Role::Sensitive { l },
            format!(
                "sensitive: {what}, {by}; released as it is, every class holding at least {l} \
                 of its values (distinct {l}-diversity)"
            ),
            true,
        );
    }
    match &c.kind {
        Kind::Code { .. } | Kind::Category if near_unique(0.9) => {
            return say(
                Role::Identifier,
                "identifier: near-unique (90 % distinct or more)".into(),
                true,
            )
        }
        Kind::Integer { .. } if near_unique(0.99) => {
            return say(
                Role::Identifier,
                "identifier: near-unique (99 % distinct or more)".into(),
                true,
            )
        }
        _ => {}
    }
    let missing = missing_records > 0;
    let zip = safe_harbor.as_ref().is_some_and(|s| s.what == "ZIP code");
    let age = meaning::is_age(c, &word) && matches!(meaning, Some(Meaning::QuasiIdentifier(_)));
    let (kind, params): (&'static str, Vec<(String, String)>) = match &c.kind {
        // Safe Harbor's ZIP codes keep their first 3 digits at the first masking level.
        Kind::Integer { .. } | Kind::Code { .. }
            if zip && c.values.values().all(|(v, _)| v.len() == 5) =>
        {
            (
                "mask",
                pairs(&[
                    ("step", "2".to_string()),
                    ("levels", "2".to_string()),
                    ("longest", "5".to_string()),
                ]),
            )
        }
        Kind::Integer { min, max } | Kind::Decimal { min, max, .. } if distinct > 5 => {
            let (widths, start) = widths(*min, *max);
            let mut p = vec![("widths", widths.join(",")), ("start", start)];
            if age {
                // Safe Harbor: ages over 89 aggregated into 90 or older.
                p.push(("end", "90".to_string()));
                p.push(("top", "true".to_string()));
            }
            if toolbox_labels {
                p.push(("labels", "toolbox".to_string()));
            }
            if matches!(c.kind, Kind::Decimal { comma: true, .. }) {
                p.push(("decimal", "comma".to_string()));
            }
            if missing {
                keep_missing(&mut p, &markers);
            }
            ("intervals", pairs(&p))
        }
        Kind::Date { format } => match &date_levels(c, format)[..] {
            [] => ("categories", Vec::new()),
            levels => {
                let mut p = vec![("format", format.to_string()), ("levels", levels.join(","))];
                if missing {
                    keep_missing(&mut p, &markers);
                }
                ("dates", pairs(&p))
            }
        },
        Kind::Code { longest } => {
            // A third of the code per level, without the level that hides every character
            // (no more than `*` about codes of one length).
            let step = longest.div_ceil(3).max(1);
            let mut p = vec![("step", step.to_string())];
            let masking = longest.div_ceil(step) - 1;
            if masking >= 1 {
                p.push(("levels", masking.to_string()));
            }
            // Not a builder parameter: the level count's input, removed before building.
            p.push(("longest", longest.to_string()));
            ("mask", pairs(&p))
        }
        Kind::Category if distinct > 20 => {
            let min = (records / 1000).max(5);
            ("categories", pairs(&[("frequency", min.to_string())]))
        }
        _ => ("categories", Vec::new()),
    };
    let (why, known) = match meaning {
        Some(Meaning::QuasiIdentifier(what)) => (format!("quasi-identifier: {what}, {by}"), true),
        _ => (
            "quasi-identifier: nothing says it is not (an outsider may know it)".to_string(),
            false,
        ),
    };
    say(Role::QuasiIdentifier { kind, params }, why, known)
}

/// What a quasi-identifier's hierarchy does, in words, from its builder's final parameters
/// (after coarsening and any fallback): `intervals of 5, 10, 20`, `masked from the right`.
pub fn hierarchy_words(kind: &str, params: &[(String, String)]) -> String {
    let get = |n: &str| params.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    match kind {
        "intervals" => format!(
            "intervals of {}{}",
            get("widths").unwrap_or("").replace(',', ", "),
            if get("top").is_some() {
                format!(", from {} on one group", get("end").unwrap_or(""))
            } else {
                String::new()
            }
        ),
        "dates" => get("levels").unwrap_or("").replace(',', ", "),
        "mask" => "masked from the right".to_string(),
        _ => match get("frequency") {
            Some(min) => format!("values of fewer than {min} records grouped into Other"),
            None => "value -> *".to_string(),
        },
    }
}

/// About 16 intervals over `[min, max]`: the smallest round width (1, 2 or 5 times a power of
/// ten) at least a sixteenth of the range, doubled twice; the start is a multiple of the widest
/// at or below `min`. Returns the widths and the start, as decimal strings.
fn widths(min: Decimal, max: Decimal) -> (Vec<String>, String) {
    let lo: f64 = min.to_string().parse().unwrap_or(0.0);
    let hi: f64 = max.to_string().parse().unwrap_or(0.0);
    let target = ((hi - lo) / 16.0).max(f64::MIN_POSITIVE);
    let mut exponent = target.log10().floor() as i32;
    let mut mantissa = 1u32;
    let pick = |m: u32, e: i32| f64::from(m) * 10f64.powi(e);
    while pick(mantissa, exponent) < target {
        mantissa = match mantissa {
            1 => 2,
            2 => 5,
            _ => {
                exponent += 1;
                1
            }
        };
    }
    // Whole numbers need no width below 1.
    if exponent < 0 && !min.to_string().contains('.') && !max.to_string().contains('.') {
        (mantissa, exponent) = (1, 0);
    }
    let exponent = exponent.clamp(-12, 30);
    let base = if exponent >= 0 {
        format!("{mantissa}{}", "0".repeat(exponent as usize))
    } else {
        format!("0.{}{mantissa}", "0".repeat((-exponent - 1) as usize))
    };
    let base = Decimal::parse(&base).expect("a plain number");
    let zero = Decimal::int(0);
    let widths: Vec<Decimal> = [1, 2, 4]
        .iter()
        .map(|&k| Decimal::bound(&zero, &base, k).expect("small"))
        .collect();
    let widest = widths[2];
    let start = min
        .bin(&zero, &widest)
        .and_then(|n| Decimal::bound(&zero, &widest, n))
        .unwrap_or(min);
    (
        widths.iter().map(Decimal::to_string).collect(),
        start.to_string(),
    )
}

/// The builder of a quasi-identifier proposal (the proposal's own bookkeeping removed).
pub fn builder(kind: &str, params: &[(String, String)]) -> Result<Builder, String> {
    let params: Vec<&(String, String)> = params.iter().filter(|(k, _)| k != "longest").collect();
    let pairs: Vec<(&str, &str)> = params
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    Builder::from_params(kind, &Params::from_pairs(".", &pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn round_widths() {
        assert_eq!(
            widths(d("17"), d("90")),
            (vec!["5".into(), "10".into(), "20".into()], "0".into())
        );
        assert_eq!(
            widths(d("0"), d("1")),
            (vec!["1".into(), "2".into(), "4".into()], "0".into())
        );
        assert_eq!(
            widths(d("0.1"), d("0.9")),
            (vec!["0.05".into(), "0.1".into(), "0.2".into()], "0".into())
        );
        assert_eq!(
            widths(d("-250"), d("1000")),
            (
                vec!["100".into(), "200".into(), "400".into()],
                "-400".into()
            )
        );
    }

    fn proposal(role: Role) -> ColumnProposal {
        ColumnProposal {
            role,
            reason: "quasi-identifier".into(),
            profile: String::new(),
            known: false,
            coarsened: false,
            safe_harbor: None,
        }
    }

    fn qi(kind: &'static str, params: &[(&str, &str)]) -> ColumnProposal {
        proposal(Role::QuasiIdentifier {
            kind,
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        })
    }

    /// The coarsening as it was written first (the whole proposal cloned and its lattice
    /// recomputed per level taken off): the heap gives the same proposals.
    fn coarsen_by_scanning(columns: &mut [ColumnProposal]) {
        while lattice_size(columns.iter().filter_map(qi_levels)).is_none_or(|s| s > LATTICE_BUDGET)
        {
            let tallest = columns
                .iter()
                .enumerate()
                .filter_map(|(i, c)| qi_levels(c).filter(|&l| l > 3).map(|l| (l, i)))
                .max_by_key(|&(l, i)| (l, i));
            let Some((_, i)) = tallest else { break };
            if let Role::QuasiIdentifier { kind, params } = &mut columns[i].role {
                coarsen(kind, params);
            }
        }
    }

    #[test]
    fn coarsening_takes_the_tallest_first() {
        let kinds = [
            qi("intervals", &[("widths", "5,10,20"), ("start", "0")]),
            qi(
                "dates",
                &[("format", "%Y-%m-%d"), ("levels", "month,year,decade")],
            ),
            qi("mask", &[("step", "2"), ("levels", "3"), ("longest", "8")]),
            qi("categories", &[("frequency", "5")]),
            qi("categories", &[]),
            proposal(Role::Insensitive),
        ];
        for n in [1, 3, 5, 8, 13, 40, 200] {
            let columns: Vec<ColumnProposal> = (0..n)
                .map(|i| kinds[(i * 7 + i / 3) % kinds.len()].clone())
                .collect();
            let (mut heap, mut scan) = (columns.clone(), columns);
            coarsen_to_budget(&mut heap);
            coarsen_by_scanning(&mut scan);
            let roles = |c: &[ColumnProposal]| c.iter().map(|c| c.role.clone()).collect::<Vec<_>>();
            assert_eq!(roles(&heap), roles(&scan), "{n} columns");
        }
    }

    /// Past the bound, the known quasi-identifiers come first; the others are kept as they
    /// are where every value is shared by K records, else left out.
    #[test]
    fn the_bound_keeps_known_ones_first() {
        assert_eq!(quasi_identifier_bound(7), MIN_QUASI_IDENTIFIERS);
        assert_eq!(quasi_identifier_bound(463), 6);
        assert_eq!(quasi_identifier_bound(30_162), MAX_QUASI_IDENTIFIERS);
        // 40 records: a bound of 3. Columns 0-1 known; 2-5 not: 2 spread evenly (4 values, 10
        // records each), 3 with one rare value, 4 and 5 of two values.
        let values: [&[(&str, u64)]; 6] = [
            &[("a", 20), ("b", 20)],
            &[("a", 39), ("b", 1)],
            &[("a", 10), ("b", 10), ("c", 10), ("d", 10)],
            &[("a", 36), ("b", 3), ("c", 1)],
            &[("a", 20), ("b", 20)],
            &[("a", 30), ("b", 10)],
        ];
        let profile = Profile {
            records: 40,
            columns: values
                .iter()
                .enumerate()
                .map(|(i, v)| profiled(i, v))
                .collect(),
        };
        let mut columns: Vec<ColumnProposal> = (0..6)
            .map(|i| {
                let mut c = qi("categories", &[]);
                c.known = i < 2;
                c
            })
            .collect();
        let why = bound_quasi_identifiers(&mut columns, &profile).unwrap();
        assert!(why.starts_with("3 quasi-identifiers kept of 6"), "{why}");
        let roles: Vec<&str> = columns
            .iter()
            .map(|c| match c.role {
                Role::QuasiIdentifier { .. } => "q",
                Role::Insensitive => "i",
                Role::LeftOut => "o",
                _ => "?",
            })
            .collect();
        // Known 0 and 1, then the most identifying, 2; then 4 (1 bit) and 5 kept as they are
        // (every value on 5 records or more), 3 left out (values on fewer).
        assert_eq!(roles, ["q", "q", "q", "o", "i", "i"]);
        assert!(columns[3]
            .reason
            .contains("2 of its values are shared by fewer than 5"));
    }

    /// A column of `values` (each with its count) as profiled.
    fn profiled(index: usize, values: &[(&str, u64)]) -> ColumnProfile {
        let mut distinct = crate::hierarchy::build::distinct::Distinct::new();
        for &(v, n) in values {
            for _ in 0..n {
                distinct.add(v.as_bytes()).unwrap();
            }
        }
        ColumnProfile {
            index,
            name: format!("c{index}"),
            kind: Kind::Category,
            values: distinct,
            overflowed: false,
            missing_values: Vec::new(),
        }
    }
}
