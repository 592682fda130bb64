//! What a column is about, from its name and the shape of its values: the evidence behind the
//! roles init proposes, and the HIPAA Safe Harbor flags.
//!
//! A name is split into lowercase words (`patientID` -> `patient`, `id`; `marital-status` ->
//! `marital`, `status`) and the words are looked up in small vocabularies, in this order:
//! direct identifiers (names, contact details, numbers that point at a person or a record),
//! sensitive attributes (outcomes, diagnoses, income), then quasi-identifiers (demographics,
//! geography, dates). The first that matches wins, so `patient_id` is an identifier and not a
//! demographic, and `salary-class` is sensitive. Shapes stand in where names say nothing (a file
//! without a header names its columns `att0`, `att1`, ...): e-mail addresses, web addresses, IP
//! addresses and sequences are identifiers; dates and integers within 0..120 (ages) are
//! quasi-identifiers.
//!
//! Safe Harbor (45 CFR 164.514(b)(2)) lists eighteen kinds of identifiers a de-identified
//! release must not hold. Each flag carries the letter of the rule and its treatment: remove
//! (names, contact details, numbers), keep at most the first three digits of a ZIP code (000
//! where those cover 20,000 people or fewer, which init cannot know: said), generalize other
//! geography below a state, keep the year of a date, and aggregate ages over 89 into 90 or
//! older.

use super::profile::{ColumnProfile, Kind};

/// What a column's name (or values) say about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// Points at a person or a record: removed.
    Identifier(&'static str),
    /// What the release is about (an outcome, a diagnosis, income): protected by l-diversity.
    Sensitive(&'static str),
    /// What an outsider may know of a person: generalized.
    QuasiIdentifier(&'static str),
}

/// A HIPAA Safe Harbor identifier: the rule's letter, what it names, and its treatment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafeHarbor {
    pub letter: char,
    pub what: &'static str,
    pub treatment: String,
}

impl SafeHarbor {
    /// As init prints it: `HIPAA Safe Harbor (B) ZIP code: keep at most ...`.
    pub fn text(&self) -> String {
        format!(
            "HIPAA Safe Harbor ({}) {}: {}",
            self.letter, self.what, self.treatment
        )
    }
}

/// The lowercase words of a column name: split at anything but letters and digits, and
/// between a lowercase letter and an uppercase one (`patientID`).
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// Words (or word prefixes, ending in `*`) and what they mean, first match wins.
const IDENTIFIERS: &[(&str, &str)] = &[
    ("name", "a name"),
    ("names", "a name"),
    ("surname", "a name"),
    ("forename", "a name"),
    ("firstname", "a name"),
    ("lastname", "a name"),
    ("fullname", "a name"),
    ("email", "an e-mail address"),
    ("mail", "an e-mail address"),
    ("phone", "a telephone number"),
    ("telephone", "a telephone number"),
    ("tel", "a telephone number"),
    ("mobile", "a telephone number"),
    ("fax", "a fax number"),
    ("ssn", "a social security number"),
    ("social", "a social security number"),
    ("mrn", "a medical record number"),
    ("record", "a record number"),
    ("chart", "a medical record number"),
    ("beneficiary", "a health plan beneficiary number"),
    ("account", "an account number"),
    ("iban", "an account number"),
    ("licence", "a certificate or license number"),
    ("license", "a certificate or license number"),
    ("certificate", "a certificate or license number"),
    ("vin", "a vehicle identifier"),
    ("plate", "a vehicle identifier"),
    ("vehicle", "a vehicle identifier"),
    ("device", "a device identifier"),
    ("serial", "a device identifier"),
    ("imei", "a device identifier"),
    ("url", "a web address"),
    ("website", "a web address"),
    ("ip", "an IP address"),
    ("fingerprint", "a biometric identifier"),
    ("biometric*", "a biometric identifier"),
    ("photo*", "a photograph"),
    ("address", "a street address"),
    ("street", "a street address"),
    ("id", "an identifier"),
    ("ids", "an identifier"),
    ("identifier", "an identifier"),
    ("uuid", "an identifier"),
    ("guid", "an identifier"),
    ("pid", "an identifier"),
    ("nr", "an identifier"),
    ("key", "an identifier"),
];

const SENSITIVE: &[(&str, &str)] = &[
    ("income", "income"),
    ("salary", "income"),
    ("wage", "income"),
    ("wages", "income"),
    ("lwage", "income"),
    ("lnwage", "income"),
    ("earnings", "income"),
    ("pay", "income"),
    ("health", "health"),
    ("illness", "health"),
    ("ill", "health"),
    ("disease*", "a diagnosis"),
    ("diagnos*", "a diagnosis"),
    ("diag", "a diagnosis"),
    ("icd*", "a diagnosis"),
    ("disorder", "a diagnosis"),
    ("condition", "a diagnosis"),
    ("cancer", "a diagnosis"),
    ("hiv", "a diagnosis"),
    ("disab*", "health"),
    ("pregnan*", "health"),
    ("treatment", "a treatment"),
    ("medication*", "a treatment"),
    ("drug*", "a treatment"),
    ("prescription*", "a treatment"),
    ("outcome", "an outcome"),
    ("severity", "an outcome"),
    ("injury", "an outcome"),
    ("injuries", "an outcome"),
    ("fatal*", "an outcome"),
    ("casualt*", "an outcome"),
    ("religion", "a special category (religion)"),
    ("religious", "a special category (religion)"),
    ("sexual", "a special category (sexual orientation)"),
    ("orientation", "a special category (sexual orientation)"),
    ("political", "a special category (political opinion)"),
    ("criminal", "a conviction"),
    ("conviction*", "a conviction"),
    ("offence*", "a conviction"),
    ("offense*", "a conviction"),
    ("debt*", "finances"),
];

const QUASI_IDENTIFIERS: &[(&str, &str)] = &[
    ("age", "demographic"),
    ("sex", "demographic"),
    ("gender", "demographic"),
    ("race", "demographic"),
    ("ethn*", "demographic"),
    ("nationality", "demographic"),
    ("citizenship", "demographic"),
    ("marital", "demographic"),
    ("married", "demographic"),
    ("spouse", "demographic"),
    ("relationship", "demographic"),
    ("household", "demographic"),
    ("children", "demographic"),
    ("education*", "demographic"),
    ("school*", "demographic"),
    ("degree", "demographic"),
    ("occupation*", "demographic"),
    ("job", "demographic"),
    ("profession", "demographic"),
    ("workclass", "demographic"),
    ("employment", "demographic"),
    ("industry", "demographic"),
    ("language", "demographic"),
    ("native", "geography"),
    ("country", "geography"),
    ("zip", "geography"),
    ("zipcode", "geography"),
    ("postcode", "geography"),
    ("postal", "geography"),
    ("plz", "geography"),
    ("city", "geography"),
    ("town", "geography"),
    ("county", "geography"),
    ("state", "geography"),
    ("region", "geography"),
    ("province", "geography"),
    ("district", "geography"),
    ("municipality", "geography"),
    ("residence", "geography"),
    ("area", "geography"),
    ("location", "geography"),
    ("latitude", "geography"),
    ("longitude", "geography"),
    ("lat", "geography"),
    ("lon", "geography"),
    ("geo*", "geography"),
    ("birth*", "a date"),
    ("born", "a date"),
    ("dob", "a date"),
    ("date", "a date"),
    ("year", "a date"),
    ("yob", "a date"),
    ("admission", "a date"),
    ("discharge", "a date"),
    ("death", "a date"),
];

fn matches(word: &str, entry: &str) -> bool {
    match entry.strip_suffix('*') {
        Some(prefix) => word.starts_with(prefix),
        None => word == entry,
    }
}

fn lookup(words: &[String], table: &[(&str, &'static str)]) -> Option<(&'static str, String)> {
    table.iter().find_map(|&(entry, what)| {
        words
            .iter()
            .find(|w| matches(w, entry))
            .map(|w| (what, w.clone()))
    })
}

/// What the name of a column says it is (`None` for a name that says nothing, such as `att3`),
/// with the word that says so.
pub fn by_name(name: &str) -> Option<(Meaning, String)> {
    let words = words(name);
    if let Some((what, w)) = lookup(&words, IDENTIFIERS) {
        return Some((Meaning::Identifier(what), w));
    }
    if let Some((what, w)) = lookup(&words, SENSITIVE) {
        return Some((Meaning::Sensitive(what), w));
    }
    lookup(&words, QUASI_IDENTIFIERS).map(|(what, w)| (Meaning::QuasiIdentifier(what), w))
}

/// What the values of a column say it is, where they say it alone: e-mail, web and IP
/// addresses, sequences (identifiers), ages and dates (quasi-identifiers).
pub fn by_shape(c: &ColumnProfile) -> Option<Meaning> {
    let n = c.distinct();
    if n == 0 {
        return None;
    }
    let share = |f: &dyn Fn(&str) -> bool| {
        c.values.values().filter(|(v, _)| f(v)).count() as f64 / n as f64
    };
    if share(&|v| {
        let mut parts = v.split('@');
        matches!((parts.next(), parts.next(), parts.next()), (Some(a), Some(d), None) if !a.is_empty() && d.contains('.') && !v.contains(' '))
    }) >= 0.9
    {
        return Some(Meaning::Identifier("an e-mail address"));
    }
    if share(&|v| v.starts_with("http://") || v.starts_with("https://") || v.starts_with("www."))
        >= 0.9
    {
        return Some(Meaning::Identifier("a web address"));
    }
    if share(&|v| {
        let parts: Vec<&str> = v.split('.').collect();
        parts.len() == 4 && parts.iter().all(|p| p.parse::<u8>().is_ok())
    }) >= 0.9
    {
        return Some(Meaning::Identifier("an IP address"));
    }
    match &c.kind {
        Kind::Integer { min, max } => {
            let (lo, hi) = (num(min), num(max));
            let present = c.values.values().map(|(_, k)| k).sum::<u64>();
            // Every value once, and no gap: 1, 2, 3, ... (a row number).
            if n >= 10 && present == n as u64 && hi - lo + 1.0 == n as f64 {
                return Some(Meaning::Identifier("a sequence (row numbers)"));
            }
            // Ages: from childhood or youth to old age, more than 20 of them.
            if (0.0..=20.0).contains(&lo) && (60.0..=120.0).contains(&hi) && n > 20 {
                return Some(Meaning::QuasiIdentifier("an age"));
            }
            None
        }
        Kind::Date { .. } => Some(Meaning::QuasiIdentifier("a date")),
        _ => None,
    }
}

fn num(d: &crate::hierarchy::build::number::Decimal) -> f64 {
    d.to_string().parse().unwrap_or(0.0)
}

/// The Safe Harbor flag of a column, if any: by its meaning (`meaning`, from [`by_name`] or
/// [`by_shape`]), the word of its name that gave it (empty: its values did) and its values.
pub fn safe_harbor(c: &ColumnProfile, meaning: Option<Meaning>, word: &str) -> Option<SafeHarbor> {
    let flag = |letter, what, treatment: &str| {
        Some(SafeHarbor {
            letter,
            what,
            treatment: treatment.to_string(),
        })
    };
    const REMOVE: &str = "remove it (proposed under <id>)";
    match meaning? {
        Meaning::Identifier(what) => match what {
            "a name" => flag('A', "names", REMOVE),
            "a street address" => flag('B', "street address", REMOVE),
            "a telephone number" => flag('D', "telephone numbers", REMOVE),
            "a fax number" => flag('E', "fax numbers", REMOVE),
            "an e-mail address" => flag('F', "e-mail addresses", REMOVE),
            "a social security number" => flag('G', "social security numbers", REMOVE),
            "a medical record number" | "a record number" => {
                flag('H', "medical record numbers", REMOVE)
            }
            "a health plan beneficiary number" => {
                flag('I', "health plan beneficiary numbers", REMOVE)
            }
            "an account number" => flag('J', "account numbers", REMOVE),
            "a certificate or license number" => flag('K', "certificate/license numbers", REMOVE),
            "a vehicle identifier" => flag('L', "vehicle identifiers", REMOVE),
            "a device identifier" => flag('M', "device identifiers", REMOVE),
            "a web address" => flag('N', "web addresses", REMOVE),
            "an IP address" => flag('O', "IP addresses", REMOVE),
            "a biometric identifier" => flag('P', "biometric identifiers", REMOVE),
            "a photograph" => flag('Q', "full-face photographs", REMOVE),
            _ => flag('R', "other unique identifying numbers or codes", REMOVE),
        },
        Meaning::QuasiIdentifier("geography") => match word {
            "zip" | "zipcode" | "postcode" | "postal" | "plz" => flag(
                'B',
                "ZIP code",
                "release at most its first 3 digits (its hierarchy's first masking level), \
                 and 000 where those 3 digits cover 20,000 people or fewer (check the \
                 Census figures)",
            ),
            "country" | "native" | "state" | "region" | "province" => None,
            _ => flag(
                'B',
                "geographic units below a state",
                "release the state or nothing (its hierarchy's *)",
            ),
        },
        Meaning::QuasiIdentifier(_) if matches!(c.kind, Kind::Date { .. }) => flag(
            'C',
            "dates more precise than a year",
            "release the year only (its hierarchy's year level or above)",
        ),
        Meaning::QuasiIdentifier(_) if is_age(c, word) => flag(
            'C',
            "ages over 89",
            "aggregate ages over 89 into 90 or older (its hierarchy codes them >=90)",
        ),
        _ => None,
    }
}

/// An age column with ages over 89: named `age` (or an age by its values) and above 89.
pub fn is_age(c: &ColumnProfile, word: &str) -> bool {
    let Kind::Integer { max, .. } = &c.kind else {
        return false;
    };
    (word == "age" || word.is_empty()) && num(max) > 89.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_words() {
        assert_eq!(words("patientID"), ["patient", "id"]);
        assert_eq!(words("marital-status"), ["marital", "status"]);
        assert_eq!(words("native_country "), ["native", "country"]);
        assert_eq!(words("E-Mail"), ["e", "mail"]);
        assert_eq!(words("att12"), ["att12"]);
    }

    #[test]
    fn names_say_what_a_column_is() {
        let m = |n: &str| by_name(n).map(|(m, _)| m);
        assert_eq!(m("patient_id"), Some(Meaning::Identifier("an identifier")));
        assert_eq!(m("nr"), Some(Meaning::Identifier("an identifier")));
        assert_eq!(m("salary-class"), Some(Meaning::Sensitive("income")));
        assert_eq!(m("Diagnosis"), Some(Meaning::Sensitive("a diagnosis")));
        assert_eq!(m("age"), Some(Meaning::QuasiIdentifier("demographic")));
        assert_eq!(
            m("native-country"),
            Some(Meaning::QuasiIdentifier("geography"))
        );
        assert_eq!(
            m("marital-status"),
            Some(Meaning::QuasiIdentifier("demographic"))
        );
        assert_eq!(m("ZipCode"), Some(Meaning::QuasiIdentifier("geography")));
        assert_eq!(m("att3"), None);
        assert_eq!(m("hours-per-week"), None);
        // Not a word inside another: "usage" is no age, "filename" no name.
        assert_eq!(m("usage"), None);
        assert_eq!(m("filename"), None);
    }
}
