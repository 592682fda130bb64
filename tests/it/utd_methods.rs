//! The UT Dallas methods (Mondrian, Incognito_K/L/T, Anatomy) and output formats (genValsDist,
//! anatomy) end to end through the `anonbox` binary.
//!
//! - Every run of `census-income-1k/README.md`'s table is one test ([`reference!`]): the command
//!   comes from the README itself, the outputs are compared with the toolbox's (genVals and
//!   anatomy byte for byte, genValsDist numerically within 1e-9 relative), the console summary
//!   of Incognito with the toolbox's, and the error runs must fail with the toolbox's message
//!   and leave no file. Incognito_K runs get `-suppThreshold 0`, as the README says.
//! - Every output is then checked for its privacy model by [`check`], which reads only the
//!   output file(s) with naive splitting and its own arithmetic (no anonbox code).
//! - The store's in-memory and SQL backends give identical files ([`backends_agree`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::common;

fn anonbox(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_anonbox"));
    // The toolbox's console lines are compared with the reference's.
    cmd.arg("-verbose");
    cmd.current_dir(dir);
    cmd
}

fn census() -> PathBuf {
    common::data("census-income-1k")
}

/// The ARGS column of the README's row `name`.
fn readme_args(name: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(census().join("README.md")).unwrap();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() >= 3 && cells[1] == name {
            return cells[2]
                .trim_matches('`')
                .split_whitespace()
                .map(String::from)
                .collect();
        }
    }
    panic!("{name} is not in the README's table");
}

// ---------------------------------------------------------------------------------------------
// The independent checker.

/// What an output must satisfy; all columns are 0-based in the *output* file.
#[derive(Debug, Clone, Default)]
pub struct Model {
    pub k: Option<usize>,
    /// Suppressed rows print these strings in the quasi-identifier columns (genVals only).
    pub top: Vec<String>,
    pub max_suppressed: usize,
    /// Entropy l: −Σ p ln p >= ln l.
    pub entropy_l: Option<f64>,
    /// Recursive (c, l) with an integer l.
    pub recursive: Option<(f64, usize)>,
    /// Distinct l.
    pub distinct_l: Option<usize>,
    /// Equal-distance t-closeness.
    pub t_equal: Option<f64>,
    /// Ordered-distance t-closeness over numeric values (EMD normalized by m − 1).
    pub t_ordered: Option<f64>,
    /// Hierarchical-distance t-closeness: t, and each sensitive value's labels by level (level 0
    /// the value itself, the last the root); two values are level(lowest common ancestor) /
    /// height apart.
    pub t_hierarchical: Option<(f64, HashMap<String, Vec<String>>)>,
}

/// Classes read from an output: the sensitive values of each class's records.
#[derive(Debug, Default)]
pub struct Classes {
    pub classes: Vec<Vec<String>>,
    /// Rows in the suppression class (all quasi-identifiers at the top), not in `classes`.
    pub suppressed: Vec<String>,
}

/// Splits a file into lines of fields (naively: the census data has no quoting).
pub fn lines(path: &Path, sep: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.split_terminator('\n')
        .map(|l| l.split(sep).map(String::from).collect())
        .collect()
}

/// Groups a genVals or genValsDist file by its quasi-identifier columns; rows printing `top` are
/// the suppressed ones, unless every row does (then nothing tells suppression apart from a
/// transformation to the top level: the file is one class).
pub fn classes_of_generalized(
    path: &Path,
    qid_cols: &[usize],
    sens_col: usize,
    top: &[String],
) -> Classes {
    let mut groups: HashMap<Vec<String>, Vec<String>> = HashMap::new();
    let mut order = Vec::new();
    let mut out = Classes::default();
    for f in lines(path, ",") {
        let key: Vec<String> = qid_cols.iter().map(|&c| f[c].clone()).collect();
        if !top.is_empty() && key == top {
            out.suppressed.push(f[sens_col].clone());
            continue;
        }
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(f[sens_col].clone());
    }
    out.classes = order
        .into_iter()
        .map(|k| groups.remove(&k).unwrap())
        .collect();
    if out.classes.is_empty() && !out.suppressed.is_empty() {
        out.classes.push(std::mem::take(&mut out.suppressed));
    }
    out
}

/// Groups an anatomy pair by the id (QIT's last field, ST's first), checking that QIT line i is
/// input record i's quasi-identifiers with its id, that the ST is grouped by id (rows in no
/// relation to the QIT's order: anonbox unlinks the pair, see `output::anatomy`), and that each
/// group's ST rows are exactly the published fields of the records the QIT puts in it.
/// `raw(j, value, printed)` says whether the QIT prints the input's `value` of the j-th
/// quasi-identifier as `printed`. A group whose QIT lines all print `top` is the suppression
/// class.
pub fn classes_of_anatomy(
    qit: &Path,
    st: &Path,
    input: &[Vec<String>],
    (qid_cols, id_cols, sens_input_col): (&[usize], &[usize], usize),
    top: &[String],
    raw: &dyn Fn(usize, &str, &str) -> bool,
) -> Classes {
    let (q, s) = (lines(qit, ","), lines(st, ","));
    assert_eq!(q.len(), input.len(), "QIT has one line per record");
    assert_eq!(s.len(), input.len(), "ST has one line per record");
    let published: Vec<usize> = (0..input[0].len())
        .filter(|c| !qid_cols.contains(c) && !id_cols.contains(c))
        .collect();
    let sens_st = 1 + published.iter().position(|&c| c == sens_input_col).unwrap();
    let ids: Vec<u64> = s.iter().map(|l| l[0].parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] <= w[1]), "ST grouped by id");
    // Per id: the ST rows, and the published fields of the records the QIT puts there.
    let mut st_rows: HashMap<&str, Vec<Vec<String>>> = HashMap::new();
    for sl in &s {
        st_rows.entry(&sl[0]).or_default().push(sl[1..].to_vec());
    }
    let mut qit_rows: HashMap<&str, Vec<Vec<String>>> = HashMap::new();
    let mut groups: HashMap<String, Vec<String>> = HashMap::new();
    let mut order = Vec::new();
    let mut unsuppressed = std::collections::HashSet::new();
    for (i, rec) in input.iter().enumerate() {
        let ql = &q[i];
        let eid = ql.last().unwrap();
        assert_eq!(ql.len(), qid_cols.len() + 1);
        // A suppressed record prints its attributes' top labels, never its values.
        let suppressed = !top.is_empty() && ql[..qid_cols.len()] == *top;
        for (j, &c) in qid_cols.iter().enumerate().filter(|_| !suppressed) {
            let value = rec[c].trim();
            assert!(
                raw(j, value, &ql[j]),
                "line {}: QIT value {} for {value}",
                i + 1,
                ql[j]
            );
        }
        if !suppressed {
            unsuppressed.insert(eid.clone());
        }
        qit_rows
            .entry(eid)
            .or_default()
            .push(published.iter().map(|&c| rec[c].clone()).collect());
        if !groups.contains_key(eid) {
            order.push(eid.clone());
            groups.insert(eid.clone(), Vec::new());
        }
    }
    assert_eq!(st_rows.len(), qit_rows.len(), "the same ids in QIT and ST");
    for (eid, mut want) in qit_rows {
        let mut got = st_rows.remove(eid).unwrap_or_default();
        got.sort();
        want.sort();
        assert!(
            got == want,
            "group {eid}: ST rows are not its records' fields"
        );
        groups
            .get_mut(eid)
            .unwrap()
            .extend(got.iter().map(|r| r[sens_st - 1].clone()));
    }
    let mut out = Classes::default();
    for eid in order {
        let values = groups.remove(&eid).unwrap();
        if unsuppressed.contains(&eid) {
            out.classes.push(values);
        } else {
            out.suppressed.extend(values);
        }
    }
    out
}

/// The census QIT prints sex as 0 / 1 and numbers as doubles.
fn census_raw(_: usize, value: &str, printed: &str) -> bool {
    let printed: f64 = printed.parse().unwrap();
    let want: f64 = match value {
        "Female" => 0.0,
        "Male" => 1.0,
        v => v.parse().unwrap_or(printed),
    };
    printed == want
}

fn counts(values: &[String]) -> Vec<usize> {
    let mut m: HashMap<&str, usize> = HashMap::new();
    for v in values {
        *m.entry(v).or_default() += 1;
    }
    m.into_values().collect()
}

/// Checks `model` on `classes`; `Err` names the first violation.
pub fn check(classes: &Classes, model: &Model) -> Result<(), String> {
    if classes.suppressed.len() > model.max_suppressed {
        return Err(format!(
            "{} suppressed rows, at most {} allowed",
            classes.suppressed.len(),
            model.max_suppressed
        ));
    }
    // Classes smaller than k count as suppressed (genValsDist and anatomy files do not show
    // which rows were suppressed; their suppression class is just a class).
    if let Some(k) = model.k {
        let small: usize = classes
            .classes
            .iter()
            .map(Vec::len)
            .filter(|&n| n < k)
            .sum::<usize>()
            + classes.suppressed.len();
        if small > model.max_suppressed {
            return Err(format!(
                "{small} records in classes smaller than k = {k} (or suppressed), at most {} \
                 allowed",
                model.max_suppressed
            ));
        }
    }
    let all: Vec<String> = classes
        .classes
        .iter()
        .flatten()
        .chain(&classes.suppressed)
        .cloned()
        .collect();
    let mut table_share: HashMap<&str, f64> = HashMap::new();
    for v in &all {
        *table_share.entry(v).or_default() += 1.0 / all.len() as f64;
    }
    for (i, class) in classes.classes.iter().enumerate() {
        let n = class.len();
        let c = counts(class);
        if let Some(l) = model.distinct_l {
            if c.len() < l {
                return Err(format!(
                    "class {i} has {} distinct values, l = {l}",
                    c.len()
                ));
            }
        }
        if let Some(l) = model.entropy_l {
            let h: f64 = c
                .iter()
                .map(|&x| {
                    let p = x as f64 / n as f64;
                    -p * p.ln()
                })
                .sum();
            if h < l.ln() - 1e-12 {
                return Err(format!("class {i}: entropy {h} < ln {l}"));
            }
        }
        if let Some((cc, l)) = model.recursive {
            let mut sorted = c.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            if sorted.len() < l {
                return Err(format!("class {i}: fewer than {l} values"));
            }
            let tail: usize = sorted[l - 1..].iter().sum();
            if (sorted[0] as f64) >= cc * tail as f64 {
                return Err(format!(
                    "class {i}: r1 = {} >= c·tail = {}",
                    sorted[0],
                    cc * tail as f64
                ));
            }
        }
        if let Some(t) = model.t_ordered {
            let mut values: Vec<f64> = table_share.keys().map(|v| v.parse().unwrap()).collect();
            values.sort_by(f64::total_cmp);
            let mut share: HashMap<String, f64> = HashMap::new();
            for v in class {
                *share.entry(v.clone()).or_default() += 1.0 / n as f64;
            }
            let key = |x: f64| {
                table_share
                    .keys()
                    .find(|k| k.parse::<f64>().unwrap() == x)
                    .unwrap()
                    .to_string()
            };
            let (mut cum, mut emd) = (0.0, 0.0);
            for &x in &values {
                let k = key(x);
                cum += table_share[k.as_str()] - share.get(&k).copied().unwrap_or(0.0);
                emd += f64::abs(cum);
            }
            // One value in the table: every class has its distribution (no distance to move).
            let d = if values.len() < 2 {
                0.0
            } else {
                emd / (values.len() as f64 - 1.0)
            };
            if d > t + 1e-12 {
                return Err(format!("class {i}: ordered distance {d} > t = {t}"));
            }
        }
        if let Some((t, labels)) = &model.t_hierarchical {
            let d = hierarchical_emd(class, &table_share, labels);
            if d > t + 1e-12 {
                return Err(format!("class {i}: hierarchical distance {d} > t = {t}"));
            }
        }
        if let Some(t) = model.t_equal {
            let mut share: HashMap<&str, f64> = HashMap::new();
            for v in class {
                *share.entry(v).or_default() += 1.0 / n as f64;
            }
            let d: f64 = table_share
                .iter()
                .map(|(v, &p)| (p - share.get(v).copied().unwrap_or(0.0)).abs())
                .sum::<f64>()
                / 2.0;
            if d > t + 1e-12 {
                return Err(format!("class {i}: distance {d} > t = {t}"));
            }
        }
    }
    Ok(())
}

/// The EMD between a class's values and the table's shares under the hierarchical ground
/// distance (Li et al.): bottom-up, at each node of level j the surpluses and deficits of its
/// children cancel as far as they can, at cost j / height per unit; the rest moves up.
fn hierarchical_emd(
    class: &[String],
    table_share: &HashMap<&str, f64>,
    labels: &HashMap<String, Vec<String>>,
) -> f64 {
    let height = labels.values().next().expect("a hierarchy").len() - 1;
    // Extra (table share − class share) of each node of the level below, by its label, with a
    // value under it (to find its parent: the hierarchy is monotonic).
    let mut extra: HashMap<&str, (f64, &str)> = HashMap::new();
    for (v, &p) in table_share {
        extra.entry(v).or_insert((0.0, v)).0 += p;
    }
    for v in class {
        extra.entry(v).or_insert((0.0, v)).0 -= 1.0 / class.len() as f64;
    }
    let mut cost = 0.0;
    for level in 1..=height {
        let mut up: HashMap<&str, (f64, f64, &str)> = HashMap::new();
        for (e, value) in extra.into_values() {
            let parent = labels[value].get(level).expect("a label at every level");
            let sums = up.entry(parent.as_str()).or_insert((0.0, 0.0, value));
            if e > 0.0 {
                sums.0 += e;
            } else {
                sums.1 -= e;
            }
        }
        extra = HashMap::new();
        for (node, (pos, neg, value)) in up {
            cost += level as f64 / height as f64 * pos.min(neg);
            extra.insert(node, (pos - neg, value));
        }
    }
    cost
}

/// Fields of genValsDist lines equal within `rel` (numbers split at `:`).
pub fn assert_close_files(got: &Path, want: &Path, rel: f64) {
    let (g, w) = (lines(got, ","), lines(want, ","));
    assert_eq!(g.len(), w.len(), "{}: line count", got.display());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert_eq!(a.len(), b.len(), "line {}: field count", i + 1);
        for (x, y) in a.iter().zip(b) {
            if x == y {
                continue;
            }
            let (xs, ys): (Vec<&str>, Vec<&str>) = (x.split(':').collect(), y.split(':').collect());
            assert_eq!(xs.len(), ys.len(), "line {}: {x} vs {y}", i + 1);
            for (p, q) in xs.iter().zip(&ys) {
                let (p, q): (f64, f64) =
                    (p.parse().unwrap_or(f64::NAN), q.parse().unwrap_or(f64::NAN));
                assert!(
                    (p - q).abs() <= rel * p.abs().max(q.abs()),
                    "{} line {}: {x} vs {y}",
                    got.display(),
                    i + 1
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The reference runs.

/// The toolbox's QIT lines with the suppression class's quasi-identifiers printed as the
/// attributes' top labels, as anonbox prints them: a class of fewer than k records of a Datafly
/// run is its suppression class (the toolbox printed their raw values).
fn suppressed_as_top(mut qit: Vec<Vec<String>>, model: &Model) -> Vec<Vec<String>> {
    let (Some(k), false) = (model.k, model.top.is_empty()) else {
        return qit;
    };
    let mut sizes: HashMap<String, usize> = HashMap::new();
    for l in &qit {
        *sizes.entry(l.last().unwrap().clone()).or_default() += 1;
    }
    for l in &mut qit {
        if sizes[l.last().unwrap()] < k && l.len() == model.top.len() + 1 {
            l[..model.top.len()].clone_from_slice(&model.top);
        }
    }
    qit
}

/// Census output columns: identifiers 1 and 2 are removed, so age (0) stays 0, sex (12) is 10,
/// salary (41) is 39.
const OUT_QIDS: [usize; 2] = [10, 0];
const OUT_SALARY: usize = 39;

/// The kept input records of the sample, split.
fn input_records() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(census().join("Input/census-income_1K.data")).unwrap();
    text.split("\r\n")
        .filter(|l| !l.is_empty() && !l.contains('?'))
        .map(|l| l.split(',').map(String::from).collect())
        .collect()
}

/// The privacy model a reference run's arguments ask for.
fn model_of(args: &[String]) -> Model {
    let get = |flag: &str| {
        args.iter()
            .position(|a| a.eq_ignore_ascii_case(flag))
            .map(|i| args[i + 1].clone())
    };
    let method = get("-method").unwrap().to_ascii_lowercase();
    let mut m = Model::default();
    match method.as_str() {
        "datafly" => {
            let k: usize = get("-k").unwrap().parse().unwrap();
            m.k = Some(k);
            m.max_suppressed = k;
            m.top = vec!["[0:1]".into(), "[0:100)".into()];
        }
        "mondrian" | "incognito_k" => m.k = Some(get("-k").unwrap().parse().unwrap()),
        "incognito_l" => {
            let l: f64 = get("-l").unwrap().parse().unwrap();
            let c: f64 = get("-c").map_or(0.2, |c| c.parse().unwrap());
            if c <= 0.0 {
                m.entropy_l = Some(l);
            } else {
                m.recursive = Some((c, l as usize));
            }
        }
        "incognito_t" => m.t_equal = Some(get("-t").unwrap().parse().unwrap()),
        other => panic!("no model for {other}"),
    }
    m
}

/// The console lines of the toolbox that anonbox prints too: Incognito's trace and summary.
fn console_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            l.starts_with("Generalization ")
                || l.starts_with("QI-Atts")
                || l.starts_with("----")
                || l.starts_with("Anonymous generalizations")
                || l.starts_with("Selection")
                || l.starts_with("Parameter c")
                || l.is_empty()
        })
        .map(String::from)
        .collect()
}

/// Runs the README's row `name` and checks everything (see the module docs).
fn reference_run(name: &str) {
    let dir = census();
    let reference = dir.join("reference");
    let mut args = readme_args(name);
    let method = args[args.iter().position(|a| a == "-method").unwrap() + 1].clone();
    if method.eq_ignore_ascii_case("Incognito_K") {
        args.extend(["-suppThreshold".to_string(), "0".to_string()]);
    }
    let out = tempfile::tempdir().unwrap();
    let target = out.path().join(format!("{name}.data"));
    let run = anonbox(&dir)
        .args(&args)
        .arg("-output")
        .arg(&target)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).to_string();
    let stderr = String::from_utf8_lossy(&run.stderr).to_string();
    let console = std::fs::read_to_string(reference.join(format!("{name}.console.txt"))).unwrap();

    let want_plain = reference.join(format!("{name}.data"));
    let want_qit = reference.join(format!("{name}_QIT.data"));
    if !want_plain.exists() && !want_qit.exists() {
        // An error run: the toolbox's message among its console lines (stdout, -verbose),
        // ours on stderr (one voice: `anonbox:`, no `!!!`), a non-zero exit, no file at all.
        let message = console
            .lines()
            .find_map(|l| l.strip_prefix("java.lang.Exception: "))
            .unwrap();
        assert!(!run.status.success(), "{name} should fail");
        assert_eq!(run.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stdout.lines().any(|l| l == message),
            "{name}: stdout {stdout:?} lacks {message:?}"
        );
        assert!(
            stderr
                .lines()
                .all(|l| l.starts_with("anonbox: ") && !l.contains("!!!")),
            "{name}: stderr {stderr:?}"
        );
        let left: Vec<_> = std::fs::read_dir(out.path()).unwrap().collect();
        assert!(left.is_empty(), "{name} left files: {left:?}");
        assert_eq!(
            console_lines(&stdout),
            console_lines(&console),
            "{name}: console"
        );
        return;
    }
    assert!(run.status.success(), "{name}: {stderr}");
    assert_eq!(
        console_lines(&stdout),
        console_lines(&console),
        "{name}: console"
    );
    let model = model_of(&args);

    let found = if want_qit.exists() {
        let (qit, st) = (
            out.path().join(format!("{name}_QIT.data")),
            out.path().join(format!("{name}_ST.data")),
        );
        assert_eq!(
            lines(&qit, ","),
            suppressed_as_top(lines(&want_qit, ","), &model),
            "{}: differs from the toolbox's",
            qit.display()
        );
        // The ST holds the toolbox's lines, grouped by id instead of in input order.
        let sorted = |p: &Path| {
            let text = std::fs::read_to_string(p).unwrap();
            let mut l: Vec<String> = text.split_inclusive('\n').map(String::from).collect();
            l.sort();
            l
        };
        assert!(
            sorted(&st) == sorted(&reference.join(format!("{name}_ST.data"))),
            "{}: not the toolbox's lines",
            st.display()
        );
        classes_of_anatomy(
            &qit,
            &st,
            &input_records(),
            (&[12, 0], &[1, 2], 41),
            &model.top,
            &census_raw,
        )
    } else {
        if name.contains("genValsDist") {
            // The toolbox printed statistics for the suppressed records; anonbox prints their
            // top labels, as in genVals (the rows the same run's genVals suppresses).
            let genvals =
                reference.join(format!("{}.data", name.replace("genValsDist", "genVals")));
            let suppressed: Vec<bool> = lines(&genvals, ",")
                .iter()
                .map(|l| {
                    OUT_QIDS.iter().zip(&model.top).all(|(&c, t)| l[c] == *t)
                        && !model.top.is_empty()
                })
                .collect();
            let mut want = lines(&want_plain, ",");
            for (l, &s) in want.iter_mut().zip(&suppressed) {
                if s {
                    for (&c, t) in OUT_QIDS.iter().zip(&model.top) {
                        l[c] = t.clone();
                    }
                }
            }
            let masked = out.path().join("want-masked.data");
            let text: String = want.iter().map(|l| l.join(",") + "\n").collect();
            std::fs::write(&masked, text).unwrap();
            assert_close_files(&target, &masked, 1e-9);
        } else {
            assert!(
                std::fs::read(&target).unwrap() == std::fs::read(&want_plain).unwrap(),
                "{name}: differs from the toolbox's"
            );
        }
        let top = if name.contains("genValsDist") {
            vec![]
        } else {
            model.top.clone()
        };
        classes_of_generalized(&target, &OUT_QIDS, OUT_SALARY, &top)
    };
    if let Err(e) = check(&found, &model) {
        panic!("{name}: {e}");
    }
}

macro_rules! reference {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                reference_run($name);
            }
        )*

        /// Every row of the README's table has a test above.
        #[test]
        fn every_readme_row_has_a_test() {
            let readme = std::fs::read_to_string(census().join("README.md")).unwrap();
            let rows: Vec<String> = readme
                .lines()
                .filter_map(|l| {
                    let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                    (cells.len() >= 3 && cells[2].starts_with("`-config")).then(|| cells[1].to_string())
                })
                .collect();
            let tested = [$($name),*];
            assert_eq!(rows.len(), tested.len());
            for r in rows {
                assert!(tested.contains(&r.as_str()), "{r} has no test");
            }
        }
    };
}

reference! {
    datafly_genvals_k2 => "Datafly_genVals_k2",
    mondrian_genvals_k2 => "Mondrian_genVals_k2",
    incognito_k_genvals_k2 => "Incognito_K_genVals_k2",
    datafly_genvalsdist_k2 => "Datafly_genValsDist_k2",
    mondrian_genvalsdist_k2 => "Mondrian_genValsDist_k2",
    incognito_k_genvalsdist_k2 => "Incognito_K_genValsDist_k2",
    datafly_anatomy_k2 => "Datafly_anatomy_k2",
    mondrian_anatomy_k2 => "Mondrian_anatomy_k2",
    incognito_k_anatomy_k2 => "Incognito_K_anatomy_k2",
    datafly_genvals_k5 => "Datafly_genVals_k5",
    mondrian_genvals_k5 => "Mondrian_genVals_k5",
    incognito_k_genvals_k5 => "Incognito_K_genVals_k5",
    datafly_genvalsdist_k5 => "Datafly_genValsDist_k5",
    mondrian_genvalsdist_k5 => "Mondrian_genValsDist_k5",
    incognito_k_genvalsdist_k5 => "Incognito_K_genValsDist_k5",
    datafly_anatomy_k5 => "Datafly_anatomy_k5",
    mondrian_anatomy_k5 => "Mondrian_anatomy_k5",
    incognito_k_anatomy_k5 => "Incognito_K_anatomy_k5",
    datafly_genvals_k10 => "Datafly_genVals_k10",
    mondrian_genvals_k10 => "Mondrian_genVals_k10",
    incognito_k_genvals_k10 => "Incognito_K_genVals_k10",
    datafly_genvalsdist_k10 => "Datafly_genValsDist_k10",
    mondrian_genvalsdist_k10 => "Mondrian_genValsDist_k10",
    incognito_k_genvalsdist_k10 => "Incognito_K_genValsDist_k10",
    datafly_anatomy_k10 => "Datafly_anatomy_k10",
    mondrian_anatomy_k10 => "Mondrian_anatomy_k10",
    incognito_k_anatomy_k10 => "Incognito_K_anatomy_k10",
    incognito_l_genvals_default => "Incognito_L_genVals_default",
    anatomy_anatomy_default => "Anatomy_anatomy_default",
    anatomy_anatomy_l2 => "Anatomy_anatomy_l2",
    incognito_l_entropy_genvals_l1_2 => "Incognito_L-entropy_genVals_l1.2",
    incognito_l_recursive_genvals_l2_c15 => "Incognito_L-recursive_genVals_l2_c15",
    incognito_t_genvals_t0_2 => "Incognito_T_genVals_t0.2",
    incognito_t_genvals_t0_05 => "Incognito_T_genVals_t0.05",
    incognito_l_entropy_genvalsdist_l1_2 => "Incognito_L-entropy_genValsDist_l1.2",
    incognito_l_recursive_genvalsdist_l2_c15 => "Incognito_L-recursive_genValsDist_l2_c15",
    incognito_t_genvalsdist_t0_2 => "Incognito_T_genValsDist_t0.2",
    incognito_t_genvalsdist_t0_05 => "Incognito_T_genValsDist_t0.05",
    incognito_l_entropy_anatomy_l1_2 => "Incognito_L-entropy_anatomy_l1.2",
    incognito_l_recursive_anatomy_l2_c15 => "Incognito_L-recursive_anatomy_l2_c15",
    incognito_t_anatomy_t0_2 => "Incognito_T_anatomy_t0.2",
    incognito_t_anatomy_t0_05 => "Incognito_T_anatomy_t0.05",
}

// ---------------------------------------------------------------------------------------------
// The checker must be able to fail.

fn classes(groups: &[&[&str]]) -> Classes {
    Classes {
        classes: groups
            .iter()
            .map(|g| g.iter().map(|s| s.to_string()).collect())
            .collect(),
        suppressed: Vec::new(),
    }
}

#[test]
fn checker_rejects_violations() {
    let c = classes(&[&["a", "b", "a"], &["a", "b"]]);
    let k = |k| Model {
        k: Some(k),
        ..Model::default()
    };
    assert!(check(&c, &k(2)).is_ok());
    assert!(check(&c, &k(3)).is_err());
    assert!(check(
        &c,
        &Model {
            k: Some(3),
            max_suppressed: 2,
            ..Model::default()
        }
    )
    .is_ok());
    let entropy = |l| Model {
        entropy_l: Some(l),
        ..Model::default()
    };
    // {a,a,b}: H = ln 3 − (2/3) ln 2 = 0.6365, exp = 1.89.
    assert!(check(&c, &entropy(1.88)).is_ok());
    assert!(check(&c, &entropy(1.9)).is_err());
    let recursive = |c, l| Model {
        recursive: Some((c, l)),
        ..Model::default()
    };
    // {a,a,b}: r1 = 2, tail(l=2) = 1: needs c > 2.
    assert!(check(&c, &recursive(2.01, 2)).is_ok());
    assert!(check(&c, &recursive(2.0, 2)).is_err());
    assert!(check(&c, &recursive(9.0, 3)).is_err());
    // Table a:3/5, b:2/5; class {a,a,b}: |3/5 − 2/3| = 1/15 per value, distance 1/15.
    let t = |t| Model {
        t_equal: Some(t),
        ..Model::default()
    };
    assert!(check(&c, &t(0.1)).is_ok());
    assert!(check(&c, &t(0.05)).is_err());
    // Ordered over 1 < 2 < 3: table {1,1,2,3} = (1/2, 1/4, 1/4), class {1,3} = (1/2, 0, 1/2):
    // cumulative differences 0, 1/4 -> EMD 1/4 over m − 1 = 2: 0.125.
    let o = classes(&[&["1", "3"], &["1", "2"]]);
    let ordered = |t| Model {
        t_ordered: Some(t),
        ..Model::default()
    };
    assert!(check(&o, &ordered(0.13)).is_ok());
    assert!(check(&o, &ordered(0.12)).is_err());
    let d = Model {
        distinct_l: Some(2),
        ..Model::default()
    };
    assert!(check(&c, &d).is_ok());
    assert!(check(&classes(&[&["a", "a"], &["a", "b"]]), &d).is_err());
}

// ---------------------------------------------------------------------------------------------
// More runs: the four-quasi-identifier config, Incognito_K's suppression threshold.

/// Runs anonbox in the census folder; returns stdout.
fn run_ok(args: &[&str]) -> String {
    let out = anonbox(&census()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn four_quasi_identifiers_are_k_anonymous() {
    let out = tempfile::tempdir().unwrap();
    // Output columns: age 0, education 4 -> 2, marital status 7 -> 5, sex 12 -> 10.
    let qids = [0usize, 2, 5, 10];
    for method in ["Mondrian", "Datafly", "Incognito_K"] {
        for k in [2usize, 5, 25] {
            for format in ["genVals", "anatomy"] {
                let target = out.path().join(format!("{method}_{k}.data"));
                let t = target.to_str().unwrap();
                run_ok(&[
                    "-config",
                    "config-4qid.xml",
                    "-method",
                    method,
                    "-k",
                    &k.to_string(),
                    "-outputFormat",
                    format,
                    "-output",
                    t,
                ]);
                let top: Vec<String> = ["[0:100)", "[0:16]", "[0:7)", "[0:1]"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                let found = if format == "anatomy" {
                    classes_of_anatomy(
                        &out.path().join(format!("{method}_{k}_QIT.data")),
                        &out.path().join(format!("{method}_{k}_ST.data")),
                        &input_records(),
                        (&[0, 12, 4, 7], &[1, 2], 41),
                        // <qid> order: age, sex, education, marital status.
                        &[&top[0], &top[3], &top[1], &top[2]].map(String::clone),
                        &census_raw,
                    )
                } else {
                    let top = if method == "Mondrian" {
                        vec![]
                    } else {
                        top.clone()
                    };
                    classes_of_generalized(&target, &qids, OUT_SALARY, &top)
                };
                let model = Model {
                    k: Some(k),
                    max_suppressed: if method == "Mondrian" { 0 } else { k },
                    ..Model::default()
                };
                if let Err(e) = check(&found, &model) {
                    panic!("{method} k={k} {format}: {e}");
                }
                assert!(found.classes.len() > 1, "{method} k={k}: one class");
            }
        }
    }
}

/// Incognito_K suppresses up to k records by default (the manual's default threshold), which
/// can select a more specific generalization than the toolbox's (threshold 0).
#[test]
fn incognito_k_honours_the_suppression_threshold() {
    let out = tempfile::tempdir().unwrap();
    let mut selections = Vec::new();
    for (threshold, allowed) in [(None, 10usize), (Some("0"), 0), (Some("30"), 30)] {
        let target = out.path().join(format!("t{allowed}.data"));
        let report = out.path().join(format!("t{allowed}.json"));
        let mut args = vec![
            "-config",
            "config.xml",
            "-method",
            "Incognito_K",
            "-k",
            "10",
            "-output",
            target.to_str().unwrap(),
            "-report",
            report.to_str().unwrap(),
        ];
        if let Some(t) = threshold {
            args.extend(["-suppThreshold", t]);
        }
        let stdout = run_ok(&args);
        let selection = stdout
            .lines()
            .find_map(|l| l.strip_prefix("Selection: "))
            .unwrap()
            .to_string();
        let found = classes_of_generalized(
            &target,
            &OUT_QIDS,
            OUT_SALARY,
            &["[0:1]".to_string(), "[0:100)".to_string()],
        );
        let model = Model {
            k: Some(10),
            max_suppressed: allowed,
            ..Model::default()
        };
        check(&found, &model).unwrap_or_else(|e| panic!("threshold {allowed}: {e}"));
        let rep: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        assert_eq!(rep["suppression_limit"], allowed);
        assert!(rep["suppressed_records"].as_u64().unwrap() <= allowed as u64);
        assert_eq!(
            rep["suppressed_records"].as_u64().unwrap() as usize,
            found.suppressed.len()
        );
        selections.push((selection, found.suppressed.len()));
    }
    // The toolbox's selection without suppression; with the default threshold the 7 men over
    // 75 are suppressed and age keeps its leaves (0_1 has more classes than 1_1).
    assert_eq!(selections[1], ("1_1".to_string(), 0));
    assert_eq!(selections[0], ("0_1".to_string(), 7));
}

// ---------------------------------------------------------------------------------------------
// The in-memory and SQL backends agree.

mod backends {
    use super::*;
    use anonbox::algorithms::tuples::Backend;
    use anonbox::algorithms::{anatomy, incognito, mondrian};
    use anonbox::cli::{parse_args, Command};
    use anonbox::io::Publication;
    use anonbox::job::{Method, OutputFormat};
    use anonbox::progress::Progress;
    use anonbox::store::Store;

    /// Runs `args` (plus `-output target`) through the library with `backend`; returns the
    /// bytes of every output file, in name order.
    fn run(args: &[&str], backend: Backend, dir: &Path) -> Vec<(String, Vec<u8>)> {
        let target = dir.join("out.data");
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(["-output".to_string(), target.display().to_string()]);
        let Command::Run(raw) = parse_args(all).unwrap() else {
            panic!("not a run")
        };
        let job = anonbox::config::build_job_with_warnings(&raw).unwrap().0;
        let progress = Progress::hidden();
        let mut store = Store::open_temporary().unwrap();
        store.record_run(&job.run_record()).unwrap();
        let loaded = store.load(&job.source().unwrap(), &mut ()).unwrap();
        let records = loaded.summary.records();
        let outcome = match job.method {
            Method::Mondrian => {
                mondrian::run(&store, &job.mondrian(), &loaded.encoding, &mut (), backend).unwrap()
            }
            Method::Anatomy => anatomy::run(
                &store,
                &job.anatomy(),
                &loaded.encoding,
                records,
                &mut (),
                backend,
                &mut |_| {},
            )
            .unwrap(),
            _ => incognito::run(
                &store,
                &job.incognito(),
                &loaded.encoding,
                records,
                &mut (),
                backend,
                &mut |_| {},
            )
            .unwrap(),
        };
        let expected: &[&str] = match (backend, job.method) {
            (Backend::Memory, _) => &["memory"],
            (Backend::Sql, Method::Mondrian) => &["passes"],
            // The census tables have more than 10 distinct tuples; a larger budget may hold
            // them all.
            (Backend::Hybrid(m), Method::Mondrian) if m <= 10 => &["hybrid"],
            (Backend::Hybrid(_), Method::Mondrian) => &["hybrid", "memory"],
            _ => &["sql"],
        };
        assert!(
            expected.contains(&outcome.details.backend().unwrap()),
            "{:?}",
            outcome.details.backend()
        );
        let mut files = Vec::new();
        if job.method != Method::Anatomy {
            store.check_classes(records).unwrap();
            files.push(("(classes)".to_string(), class_dump(&store)));
        }
        let out = job.output.as_ref().unwrap();
        let enc = &loaded.encoding;
        let publication = Publication::default();
        match out.format {
            OutputFormat::GenVals => anonbox::output::genvals::write(
                &publication,
                &job,
                &out.path,
                records,
                &mut store.labels(),
                &progress,
            ),
            OutputFormat::GenValsDist => anonbox::output::genvalsdist::write_from_store(
                &publication,
                &job,
                &store,
                enc,
                &out.path,
                records,
                &progress,
                backend,
            ),
            OutputFormat::Anatomy => anonbox::output::anatomy::write_from_store(
                &publication,
                &job,
                &store,
                enc,
                &out.path,
                records,
                &progress,
                backend,
            ),
        }
        .unwrap();
        publication.publish().unwrap();
        files.extend(std::fs::read_dir(dir).unwrap().map(|e| {
            let p = e.unwrap().path();
            (
                p.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read(&p).unwrap(),
            )
        }));
        files.sort();
        files
    }

    /// The classes a method wrote: `EquivalenceTable` (ids, labels, sizes) and every tuple's
    /// class, as text.
    fn class_dump(store: &Store) -> Vec<u8> {
        let l = store.layout();
        let cols = l.qids.join(" || ',' || ");
        let mut out = String::new();
        for sql in [
            format!(
                "SELECT EquivalenceID || ':' || {cols} || ':' || Size || ':' || Suppressed \
                 FROM EquivalenceTable ORDER BY EquivalenceID"
            ),
            format!(
                "SELECT {cols} || ':' || Count || ':' || FirstRecord || ':' || EquivalenceID \
                 FROM QidTuple ORDER BY {}",
                l.qids.join(", ")
            ),
        ] {
            for r in store.debug_query(&sql).unwrap() {
                let rusqlite::types::Value::Text(line) = &r[0] else {
                    panic!("{r:?}")
                };
                out.push_str(line);
                out.push('\n');
            }
        }
        out.into_bytes()
    }

    fn agree(args: &[&str]) {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let config = census().join(args[0]);
        let mut full = vec!["-config", config.to_str().unwrap()];
        full.extend(&args[1..]);
        let mem = run(&full, Backend::Memory, a.path());
        let sql = run(&full, Backend::Sql, b.path());
        same(args, &mem, &sql);
    }

    /// Both runs wrote the same files, byte for byte, and the same classes.
    fn same(args: &[&str], a: &[(String, Vec<u8>)], b: &[(String, Vec<u8>)]) {
        assert!(a.len() >= 2, "{args:?}: an output and the classes");
        assert_eq!(a.len(), b.len());
        for ((n1, f1), (n2, f2)) in a.iter().zip(b) {
            assert_eq!(n1, n2);
            assert!(f1 == f2, "{args:?}: {n1} differs between the backends");
        }
    }

    #[test]
    fn mondrian() {
        for k in ["2", "5", "10"] {
            for f in ["genVals", "genValsDist", "anatomy"] {
                agree(&[
                    "config.xml",
                    "-method",
                    "Mondrian",
                    "-k",
                    k,
                    "-outputFormat",
                    f,
                ]);
            }
            agree(&["config-4qid.xml", "-method", "Mondrian", "-k", k]);
        }
    }

    /// Mondrian's hybrid backend (issue 14): cutting on the store by passes while a class holds
    /// more than the memory budget, then finishing each class in memory, gives the classes (ids,
    /// labels, sizes, every tuple's class) and the outputs of the in-memory run, whatever the
    /// budget: from 1 tuple (every class but the last cut on the store) to more than the table.
    #[test]
    fn mondrian_hybrid() {
        for (config, k) in [
            ("config.xml", "5"),
            ("config.xml", "2"),
            ("config-4qid.xml", "10"),
        ] {
            let path = census().join(config);
            let args = [path.to_str().unwrap(), "-method", "Mondrian", "-k", k];
            let full = ["-config", args[0], "-method", "Mondrian", "-k", k];
            let dir = tempfile::tempdir().unwrap();
            let mem = run(&full, Backend::Memory, dir.path());
            for budget in [1, 7, 60, 400] {
                let dir = tempfile::tempdir().unwrap();
                let hybrid = run(&full, Backend::Hybrid(budget), dir.path());
                same(&args, &mem, &hybrid);
            }
        }
    }

    #[test]
    fn incognito() {
        for f in ["genVals", "genValsDist", "anatomy"] {
            for k in ["2", "10"] {
                agree(&[
                    "config.xml",
                    "-method",
                    "Incognito_K",
                    "-k",
                    k,
                    "-outputFormat",
                    f,
                ]);
                agree(&[
                    "config.xml",
                    "-method",
                    "Incognito_K",
                    "-k",
                    k,
                    "-outputFormat",
                    f,
                    "-suppThreshold",
                    "0",
                ]);
            }
            agree(&[
                "config.xml",
                "-method",
                "Incognito_L",
                "-l",
                "1.2",
                "-c",
                "0",
                "-outputFormat",
                f,
            ]);
            agree(&[
                "config.xml",
                "-method",
                "Incognito_L",
                "-l",
                "2",
                "-c",
                "15",
                "-outputFormat",
                f,
            ]);
            agree(&[
                "config.xml",
                "-method",
                "Incognito_T",
                "-t",
                "0.05",
                "-outputFormat",
                f,
            ]);
        }
        agree(&["config-4qid.xml", "-method", "Incognito_K", "-k", "5"]);
        agree(&["config-4qid.xml", "-method", "Incognito_T", "-t", "0.1"]);
    }

    #[test]
    fn anatomy() {
        for l in ["2", "3", "4"] {
            agree(&["config-education.xml", "-l", l]);
            agree(&["config-education.xml", "-l", l, "-seed", "42"]);
        }
    }
}

/// Incognito_T with a numeric sensitive attribute (age, no map) uses the ordered distance
/// normalized by m − 1; checked from the output file.
#[test]
fn incognito_t_ordered_distance_on_a_numeric_attribute() {
    let dir = tempfile::tempdir().unwrap();
    let config = std::fs::read_to_string(census().join("config-4qid.xml")).unwrap();
    // Age (column 0) leaves the quasi-identifiers and becomes the sensitive attribute.
    let start = config.find("    <att index=\"0\" name=\"age\">").unwrap();
    let end = start + config[start..].find("</att>").unwrap() + "</att>\n".len();
    let mut c = config.clone();
    c.replace_range(start..end, "");
    let s0 = c.find("<sens>").unwrap();
    let s1 = c.find("</sens>").unwrap();
    c.replace_range(s0..s1, "<sens><att index=\"0\" name=\"age\"/>");
    let input = census().join("Input/census-income_1K.data");
    let c = c.replace(
        "filename=\"Input/census-income_1K.data\"",
        &format!("filename=\"{}\"", input.display()),
    );
    let cfg = dir.path().join("age-sensitive.xml");
    std::fs::write(&cfg, c).unwrap();
    let mut selections = Vec::new();
    for t in ["0.05", "0.1", "0.2"] {
        let target = dir.path().join(format!("t{t}.data"));
        let out = anonbox(&census())
            .args([
                "-config",
                cfg.to_str().unwrap(),
                "-method",
                "Incognito_T",
                "-t",
                t,
            ])
            .arg("-output")
            .arg(&target)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        selections.push(
            stdout
                .lines()
                .find_map(|l| l.strip_prefix("Selection: "))
                .unwrap()
                .to_string(),
        );
        // Output columns: age 0 (sensitive, raw), education 2, marital status 5, sex 10.
        let found = classes_of_generalized(&target, &[10, 2, 5], 0, &[]);
        let model = Model {
            t_ordered: Some(t.parse().unwrap()),
            ..Model::default()
        };
        check(&found, &model).unwrap_or_else(|e| panic!("t = {t}: {e}"));
        // Not trivially: the selected table has more than one class.
        assert!(found.classes.len() > 1, "t = {t}: one class");
        // And the stricter check fails on the looser run (the test can fail).
        if t == "0.2" {
            let strict = Model {
                t_ordered: Some(0.05),
                ..Model::default()
            };
            assert!(check(&found, &strict).is_err());
        }
    }
    assert_ne!(selections[0], selections[2]);
}
