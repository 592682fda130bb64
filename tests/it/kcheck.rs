//! An independent k-anonymity checker: it reads only an output file, with its own naive
//! splitting (no anonbox code), groups the rows by the strings of the quasi-identifier columns,
//! and asserts that every group has at least k rows, except suppressed rows (every
//! quasi-identifier at its top level), which must number at most the suppression threshold.
//!
//! Which all-top rows are suppressed: in a full-domain output where some row is not all-top,
//! no attribute is at its top level for the whole table, so every all-top row is a suppressed
//! one (whatever their number). Otherwise an all-top group smaller than k is suppressed, and
//! one of k rows or more is an ordinary class.

use std::collections::HashMap;
use std::path::Path;

/// How to read an output file and what to demand of it.
pub struct Spec<'a> {
    pub separator: &'a str,
    pub header: bool,
    /// 0-based columns of the quasi-identifiers in the output file.
    pub qid_columns: &'a [usize],
    /// What each quasi-identifier prints when suppressed (VGH root, hierarchy top level).
    pub top: &'a [&'a str],
    pub k: usize,
    pub max_suppressed: usize,
    /// The output is a full-domain generalization (Datafly, Incognito, Flash).
    pub full_domain: bool,
}

/// What the checker found.
#[derive(Debug, PartialEq, Eq)]
pub struct Found {
    pub rows: usize,
    pub classes: usize,
    pub suppressed: usize,
    pub smallest_class: usize,
}

/// Checks `spec` on the file at `path`; `Err` explains the first violation.
pub fn check(path: &Path, spec: &Spec) -> Result<Found, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&text);
    assert_eq!(spec.qid_columns.len(), spec.top.len());
    let mut groups: HashMap<Vec<String>, usize> = HashMap::new();
    let mut rows = 0;
    let mut width = None;
    for (i, line) in text.split_terminator('\n').enumerate() {
        if i == 0 && spec.header {
            continue;
        }
        let fields: Vec<&str> = line.split(spec.separator).collect();
        if *width.get_or_insert(fields.len()) != fields.len() {
            return Err(format!("line {}: {} fields", i + 1, fields.len()));
        }
        let key: Vec<String> = spec
            .qid_columns
            .iter()
            .map(|&c| fields.get(c).copied().unwrap_or("").to_string())
            .collect();
        *groups.entry(key).or_default() += 1;
        rows += 1;
    }
    let top_key: Vec<String> = spec.top.iter().map(|t| t.to_string()).collect();
    let top_rows = groups.get(&top_key).copied().unwrap_or(0);
    let top_suppressed = (spec.full_domain && rows > top_rows) || top_rows < spec.k;
    let mut suppressed = 0;
    let mut classes = 0;
    let mut smallest = usize::MAX;
    for (key, &n) in &groups {
        if *key == top_key && top_suppressed {
            suppressed = n;
            continue;
        }
        if n < spec.k {
            return Err(format!("class {key:?} has {n} rows < k = {}", spec.k));
        }
        classes += 1;
        smallest = smallest.min(n);
    }
    if suppressed > spec.max_suppressed {
        return Err(format!(
            "{suppressed} suppressed rows > threshold {}",
            spec.max_suppressed
        ));
    }
    Ok(Found {
        rows,
        classes,
        suppressed,
        smallest_class: smallest,
    })
}

#[test]
fn the_checker_itself_rejects_what_it_must() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("o.csv");
    let spec = |k, max| Spec {
        separator: ";",
        header: true,
        qid_columns: &[0, 2],
        top: &["*", "*"],
        k,
        max_suppressed: max,
        full_domain: false,
    };
    std::fs::write(&p, "a;b;c\nx;1;y\nx;2;y\nz;3;w\nz;4;w\n*;5;*\n").unwrap();
    assert_eq!(
        check(&p, &spec(2, 1)),
        Ok(Found {
            rows: 5,
            classes: 2,
            suppressed: 1,
            smallest_class: 2
        })
    );
    // The suppressed row is over the threshold.
    assert!(check(&p, &spec(2, 0)).unwrap_err().contains("suppressed"));
    // A class smaller than k.
    assert!(check(&p, &spec(3, 5)).unwrap_err().contains("< k = 3"));
    // A small class that is not all top level is not "suppressed".
    std::fs::write(&p, "a;b;c\nx;1;y\nx;2;y\n*;3;y\n").unwrap();
    assert!(check(&p, &spec(2, 5)).unwrap_err().contains("< k = 2"));
    // Full-domain: a large all-top group next to other classes is suppression, and counts.
    std::fs::write(&p, "a;b;c\nx;1;y\nx;2;y\n*;3;*\n*;4;*\n*;5;*\n").unwrap();
    let full = |max| Spec {
        full_domain: true,
        ..spec(2, max)
    };
    assert!(check(&p, &full(2))
        .unwrap_err()
        .contains("3 suppressed rows > threshold 2"));
    assert_eq!(check(&p, &full(3)).unwrap().suppressed, 3);
    // Not full-domain: the same group is an ordinary class of 3 >= k.
    assert_eq!(check(&p, &spec(2, 0)).unwrap().classes, 2);
    // Everything at the top is one ordinary class (nothing to tell suppression apart).
    std::fs::write(&p, "a;b;c\n*;3;*\n*;4;*\n").unwrap();
    assert_eq!(check(&p, &full(0)).unwrap().classes, 1);
    // Ragged rows.
    std::fs::write(&p, "a;b;c\nx;1;y\nx;2\n").unwrap();
    assert!(check(&p, &spec(1, 0)).unwrap_err().contains("fields"));
}
