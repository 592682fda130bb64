//! Flash, OLA and exhaustive search: golden tests against ARX's results on ADULT, the paper's
//! example, and property tests against exhaustive search on random tables.

use std::path::{Path, PathBuf};

use anonbox::cli::RunArgs;
use anonbox::config::build_job;

use anonbox::algorithms::{
    execute, solve, solve_in, LatticeAlgorithm, Limit, SearchOutcome, SearchSetup, StoreKind,
};
use anonbox::check::{Checker, CheckerConfig};
use anonbox::data::EncodedTable;
use anonbox::hierarchy::Hierarchy;
use anonbox::job::{MetricKind, SuppressionLimit};
use anonbox::metrics;
use anonbox::privacy::{KAnonymity, PrivacyCriterion};

use crate::common;
use crate::kcheck;

/// Loads a table as `anonbox` does: a job from an XML config (plus overrides), then the
/// in-memory loader.
pub fn load(config: &Path, input: Option<&Path>) -> EncodedTable {
    let args = RunArgs {
        config: Some(config.to_path_buf()),
        input: input.map(Path::to_path_buf),
        quiet: true,
        ..RunArgs::default()
    };
    let job = build_job(&args).unwrap();
    crate::common::load_table(&job).unwrap().0
}

pub fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

pub fn adult() -> EncodedTable {
    load(&repo("configs/adult.xml"), None)
}

/// ADULT's body repeated `copies` times under one header, in `dir`.
fn replicate_adult(dir: &Path, copies: usize) -> PathBuf {
    let text = std::fs::read_to_string(common::data("adult/adult.csv")).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    let path = dir.join(format!("adult_x{copies}.csv"));
    let mut out = String::with_capacity(text.len() * copies);
    out.push_str(header);
    out.push('\n');
    for _ in 0..copies {
        out.push_str(body);
    }
    std::fs::write(&path, out).unwrap();
    path
}

pub fn metric_kind(name: &str) -> MetricKind {
    MetricKind::parse(name).unwrap_or_else(|| panic!("metric {name}"))
}

fn k_anon(k: u64) -> Vec<Box<dyn PrivacyCriterion>> {
    vec![Box::new(KAnonymity { k })]
}

pub fn run(
    table: &EncodedTable,
    k: u64,
    fraction: f64,
    metric: MetricKind,
    algorithm: LatticeAlgorithm,
    config: CheckerConfig,
) -> SearchOutcome {
    let budget = SuppressionLimit::Fraction(fraction).budget(table.rows() as u64);
    solve(
        table,
        k_anon(k),
        metrics::build(metric, table),
        budget,
        algorithm,
        config,
    )
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300)
}

/// Checks one reference row: the reference transformation evaluates to the reference figures,
/// and Flash finds the same loss (and the same transformation, or a tie).
fn golden(table: &EncodedTable, row: &serde_json::Value) -> bool {
    let mut stopped_somewhere = false;
    let k = row["k"].as_u64().unwrap();
    let s = row["suppression_limit"].as_f64().unwrap();
    let metric = metric_kind(row["metric"].as_str().unwrap());
    let want = common::levels(row);
    let loss = row["information_loss"].as_f64().unwrap();
    let supp = row["suppressed_records"].as_u64().unwrap();
    let classes = row["equivalence_classes"].as_u64().unwrap();
    let what = format!("k={k} s={s} {metric:?}");

    let budget = SuppressionLimit::Fraction(s).budget(table.rows() as u64);
    let mut checker = Checker::new(
        table,
        k_anon(k),
        metrics::build(metric, table),
        budget,
        CheckerConfig::plain(),
    )
    .unwrap();
    let r = checker.check(&want, &|_| false);
    assert!(r.anonymous, "{what}: reference transformation invalid");
    assert!(
        close(r.loss.unwrap(), loss),
        "{what}: {:?} vs {loss}",
        r.loss
    );
    assert_eq!((r.suppressed, r.classes), (supp, classes), "{what}");

    let out = run(
        table,
        k,
        s,
        metric,
        LatticeAlgorithm::Flash,
        CheckerConfig::default(),
    );
    let got = out.optimum.clone().expect("a solution");
    assert!(
        close(got.loss, loss),
        "{what}: Flash {} vs ARX {loss}",
        got.loss
    );
    // Checks that stop at the class limit change the work, never the result.
    let stopping = CheckerConfig {
        stop_early_items: 0,
        ..CheckerConfig::default()
    };
    let early = run(table, k, s, metric, LatticeAlgorithm::Flash, stopping);
    assert_eq!(early.optimum, out.optimum, "{what}: stopping early");
    assert_eq!(
        out.stats.stopped, 0,
        "{what}: ADULT is below the default threshold"
    );
    stopped_somewhere |= early.stats.stopped > 0;
    if matches!(metric, MetricKind::DmStar | MetricKind::Dm) {
        assert_eq!(got.loss, loss, "{what}: DM/DM* exactly");
    }
    if got.levels == want {
        assert_eq!((got.suppressed, got.classes), (supp, classes), "{what}");
    } else {
        eprintln!("{what}: tie {:?} vs ARX {want:?}", got.levels);
    }
    stopped_somewhere
}

fn reference(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(common::data(&format!("reference/{name}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn adult_matches_arx_for_every_reference_row() {
    let table = adult();
    let rows = reference("arx-adult-k-anonymity.json");
    assert_eq!(rows.len(), 27);
    let mut stopped = 0;
    for row in &rows {
        stopped += usize::from(golden(&table, row));
    }
    assert!(
        stopped >= 5,
        "only {stopped} searches stopped a check early"
    );
}

#[test]
fn adult_reference_rows_are_the_same_with_every_thread_count() {
    let table = adult();
    let mut used = 0;
    for row in &reference("arx-adult-k-anonymity.json") {
        let k = row["k"].as_u64().unwrap();
        let s = row["suppression_limit"].as_f64().unwrap();
        let metric = metric_kind(row["metric"].as_str().unwrap());
        let budget = SuppressionLimit::Fraction(s).budget(table.rows() as u64);
        used += same_for_every_thread_count(
            &table,
            LatticeAlgorithm::Flash,
            StoreKind::Dense,
            budget,
            metric,
            &|| k_anon(k),
        )
        .unwrap_or_else(|e| panic!("k={k} s={s}: {e}"));
    }
    // Flash's lookahead worker ran and its results were recorded (see `lookahead`).
    assert!(used > 0, "no result evaluated ahead was used");
}

/// BFS guesses chains of checks (a maximal sweep's raises, a path's binary search) for the
/// lookahead worker: the same optimum, counts and proof with 1, 2 and 4 threads on the ADULT
/// rows with suppression (where checks are slow enough for the worker to run), and the worker's
/// results are used.
#[test]
fn bfs_is_the_same_with_every_thread_count() {
    let table = adult();
    let mut used = 0;
    for row in &reference("arx-adult-k-anonymity.json") {
        let k = row["k"].as_u64().unwrap();
        let s = row["suppression_limit"].as_f64().unwrap();
        if k != 5 || s == 0.0 {
            continue;
        }
        let metric = metric_kind(row["metric"].as_str().unwrap());
        let budget = SuppressionLimit::Fraction(s).budget(table.rows() as u64);
        used += same_for_every_thread_count(
            &table,
            LatticeAlgorithm::Bfs,
            StoreKind::Antichain,
            budget,
            metric,
            &|| k_anon(k),
        )
        .unwrap_or_else(|e| panic!("k={k} s={s}: {e}"));
    }
    assert!(used > 0, "no result evaluated ahead was used");
}

/// Runs every row of the replicated reference whose data set is ADULT x `copies`.
fn replicated(copies: usize) {
    let dir = tempfile::tempdir().unwrap();
    let input = replicate_adult(dir.path(), copies);
    let table = load(&repo("configs/adult.xml"), Some(&input));
    assert_eq!(table.rows(), 30162 * copies);
    let name = format!("adult_x{copies}.csv");
    let rows: Vec<_> = reference("arx-adult-replicated.json")
        .into_iter()
        .filter(|r| r["dataset"] == name.as_str())
        .collect();
    assert_eq!(rows.len(), 4);
    for row in &rows {
        golden(&table, row);
    }
}

#[test]
fn adult_x10_matches_arx() {
    replicated(10);
}

#[test]
fn adult_x40_matches_arx() {
    replicated(40);
}

#[test]
fn paper_example_k2_is_112() {
    let dir = tempfile::tempdir().unwrap();
    let data = common::data("example");
    let att = |i: usize, name: &str| {
        format!(
            "<att index='{i}' name='{name}' hierarchy='{}'/>",
            data.join(format!("example_hierarchy_{name}.csv")).display()
        )
    };
    let config = dir.path().join("example.xml");
    std::fs::write(
        &config,
        format!(
            "<config method='Flash'><input filename='{}' separator=';' header='true'/>\
             <output filename='out.csv'/><qid>{}{}{}</qid></config>",
            data.join("example.csv").display(),
            att(0, "age"),
            att(1, "gender"),
            att(2, "zipcode")
        ),
    )
    .unwrap();
    let table = load(&config, None);
    for algorithm in [
        LatticeAlgorithm::Flash,
        LatticeAlgorithm::Ola,
        LatticeAlgorithm::Exhaustive,
    ] {
        let out = run(
            &table,
            2,
            0.0,
            MetricKind::DmStar,
            algorithm,
            CheckerConfig::default(),
        );
        let opt = out.optimum.unwrap();
        assert_eq!(opt.levels, vec![1, 1, 2], "{algorithm:?}");
        assert_eq!(opt.suppressed, 0);
        assert_eq!(opt.classes, 3); // <50|816**, >=50|819**, <50|819**
    }
}

/// A tiny deterministic generator for random fixtures (proptest draws the seed).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random monotonic hierarchy: `leaves` values, `levels` levels; each level merges groups of
/// the one below (random parents), the top level is not necessarily a single value.
pub fn random_hierarchy(rng: &mut Rng, name: &str, leaves: usize, levels: usize) -> Hierarchy {
    let mut ids: Vec<Vec<usize>> = vec![(0..leaves).collect()];
    let mut width = leaves;
    for _ in 1..levels {
        let next_width = 1 + rng.below(width);
        let parent: Vec<usize> = (0..width).map(|_| rng.below(next_width)).collect();
        let prev = ids.last().unwrap().clone();
        ids.push(prev.iter().map(|&i| parent[i]).collect());
        width = next_width;
    }
    let rows: Vec<Vec<String>> = (0..leaves)
        .map(|c| {
            (0..levels)
                .map(|l| format!("{name}{l}_{}", ids[l][c]))
                .collect()
        })
        .collect();
    Hierarchy::from_label_rows(name, &rows)
}

/// A random table: 2-5 quasi-identifiers with lattices of at most `max_lattice` nodes, `rows`
/// records, and one sensitive column with up to 4 values.
pub fn random_table(seed: u64, rows: usize, max_lattice: usize) -> EncodedTable {
    let mut rng = Rng::new(seed);
    let d = 2 + rng.below(4);
    let (hierarchies, size) = loop {
        let hs: Vec<Hierarchy> = (0..d)
            .map(|j| {
                let leaves = 1 + rng.below(6);
                let levels = 1 + rng.below(4);
                random_hierarchy(&mut rng, &format!("q{j}_"), leaves, levels)
            })
            .collect();
        let size: usize = hs.iter().map(|h| h.levels()).product();
        if size <= max_lattice {
            break (hs, size);
        }
    };
    assert!(size <= max_lattice);
    let mut codes = Vec::with_capacity(rows * d);
    for _ in 0..rows {
        for h in &hierarchies {
            codes.push(rng.below(h.leaves()) as u32);
        }
    }
    let sens_values = 1 + rng.below(4);
    let sensitive = anonbox::data::SensitiveColumn {
        name: "s".into(),
        codes: (0..rows).map(|_| rng.below(sens_values) as u32).collect(),
        values: (0..sens_values).map(|v| format!("s{v}")).collect(),
        numeric: None,
        hierarchy: None,
    };
    EncodedTable::new(codes, hierarchies, vec![sensitive])
}

/// Distinct l-diversity over sensitive column 0, for tests of the distribution path (the real
/// model lives with the privacy models); it checks that every distribution it sees sums to the
/// class size.
pub struct TestDistinctL {
    pub l: usize,
}

impl PrivacyCriterion for TestDistinctL {
    fn name(&self) -> String {
        format!("distinct-{}-diversity", self.l)
    }
    fn requirements(&self) -> anonbox::privacy::Requirements {
        anonbox::privacy::Requirements {
            min_class_size: self.l as u64,
            distributions: vec![0],
        }
    }
    fn is_monotonic(&self, _with_suppression: bool) -> bool {
        true
    }
    fn is_satisfied(&self, class: &anonbox::privacy::ClassView<'_>) -> bool {
        let d = class.distribution(0);
        assert_eq!(
            d.total(),
            class.count,
            "distribution sums to the class size"
        );
        d.distinct() >= self.l
    }
}

/// No sensitive value in more than half of a class: monotonic without suppression (a merged
/// share is a weighted mean of shares) but not with it (merging a valid class with outliers can
/// make it fail), no minimum size and no relaxation. A genuinely non-monotonic test criterion.
pub struct TestMajority;

impl PrivacyCriterion for TestMajority {
    fn name(&self) -> String {
        "majority at most 1/2".into()
    }
    fn requirements(&self) -> anonbox::privacy::Requirements {
        anonbox::privacy::Requirements {
            min_class_size: 1,
            distributions: vec![0],
        }
    }
    fn is_monotonic(&self, with_suppression: bool) -> bool {
        !with_suppression
    }
    fn is_satisfied(&self, class: &anonbox::privacy::ClassView<'_>) -> bool {
        let d = class.distribution(0);
        d.counts.iter().all(|&c| 2 * c as u64 <= class.count)
    }
}

/// The privacy models of the property test, by search mode (with suppression; without it all
/// are monotonic): 0 k-anonymity (exact tagging); 1 + distinct 2-diversity (exact, with
/// distributions); 2 + majority (tagging by the relaxation: k-anonymity and sizes); 3 entropy
/// 2-diversity (tagging by its relaxation, distinct 2-diversity); 4 majority alone (nothing to
/// tag by: every transformation is checked or pruned).
fn criteria(kind: usize, k: u64, table: &EncodedTable) -> Vec<Box<dyn PrivacyCriterion>> {
    let k_anon: Box<dyn PrivacyCriterion> = Box::new(KAnonymity { k });
    match kind {
        0 => vec![k_anon],
        1 => vec![k_anon, Box::new(TestDistinctL { l: 2 })],
        2 => vec![k_anon, Box::new(TestMajority)],
        3 => vec![entropy_l2(table)],
        _ => vec![Box::new(TestMajority)],
    }
}

/// The privacy models' entropy 2-diversity of sensitive column 0 (ARX arithmetic).
pub fn entropy_l2(table: &EncodedTable) -> Box<dyn PrivacyCriterion> {
    let model = anonbox::job::PrivacyModel::EntropyL {
        attribute: 0,
        l: 2.0,
    };
    anonbox::privacy::criteria::build(&model, table, anonbox::privacy::Flavor::Arx).unwrap()
}

fn same_optimum(
    table: &EncodedTable,
    kind: usize,
    k: u64,
    budget: u64,
    metric: MetricKind,
) -> Result<(), String> {
    let solve_with = |alg, config, store| {
        solve_in(
            table,
            criteria(kind, k, table),
            metrics::build(metric, table),
            budget,
            alg,
            config,
            store,
        )
        .unwrap()
    };
    let oracle = solve_with(
        LatticeAlgorithm::Exhaustive,
        CheckerConfig::plain(),
        StoreKind::Dense,
    );
    let runs = [
        (LatticeAlgorithm::Flash, StoreKind::Dense),
        (LatticeAlgorithm::Ola, StoreKind::Dense),
        (LatticeAlgorithm::Flash, StoreKind::Antichain),
        (LatticeAlgorithm::Ola, StoreKind::Antichain),
        (LatticeAlgorithm::Bfs, StoreKind::Antichain),
        (LatticeAlgorithm::Bfs, StoreKind::Dense),
    ];
    for (alg, store) in runs {
        let got = solve_with(alg, CheckerConfig::default(), store);
        match (&oracle.optimum, &got.optimum) {
            (None, None) => {}
            (Some(o), Some(g)) => {
                if !close(o.loss, g.loss) {
                    return Err(format!(
                        "{alg:?} ({store:?}) {metric:?}: loss {} at {:?}, exhaustive {} at {:?}",
                        g.loss, g.levels, o.loss, o.levels
                    ));
                }
                // The reported figures are those of the transformation returned.
                let mut checker = Checker::new(
                    table,
                    criteria(kind, k, table),
                    metrics::build(metric, table),
                    budget,
                    CheckerConfig::plain(),
                )
                .unwrap();
                let r = checker.check(&g.levels, &|_| false);
                if !r.anonymous
                    || r.loss != Some(g.loss)
                    || (r.suppressed, r.classes) != (g.suppressed, g.classes)
                {
                    return Err(format!("{alg:?} {metric:?}: {g:?} re-checks as {r:?}"));
                }
            }
            (o, g) => return Err(format!("{alg:?} {metric:?}: {g:?} vs exhaustive {o:?}")),
        }
        if got.checks > oracle.checks {
            return Err(format!("{alg:?} checked more than exhaustive search"));
        }
    }
    // The rows the optimum suppresses, as the run releases them: the search's answer (which
    // groups nothing again when its check suppressed no record) is the plain checker's.
    let setup = SearchSetup {
        algorithm: LatticeAlgorithm::Flash,
        store: StoreKind::Dense,
        config: CheckerConfig::default(),
        limit: Limit::default(),
        threads: 1,
    };
    let criteria_now = criteria(kind, k, table);
    let (out, rows) = execute(
        table,
        criteria_now,
        metrics::build(metric, table),
        budget,
        setup,
        true,
    )
    .unwrap();
    if let Some(opt) = &out.optimum {
        let mut checker = Checker::new(
            table,
            criteria(kind, k, table),
            metrics::build(metric, table),
            budget,
            CheckerConfig::plain(),
        )
        .unwrap();
        let want = checker.outlier_rows(&opt.levels);
        let n = want.iter().filter(|&&o| o).count() as u64;
        if rows.as_ref() != Some(&want) || n != opt.suppressed {
            return Err(format!(
                "{metric:?}: rows suppressed by {:?} ({} records): {rows:?}, plain {want:?}",
                opt.levels, opt.suppressed
            ));
        }
    }
    // The result and the counts do not depend on the number of threads.
    for (alg, store) in runs {
        same_for_every_thread_count(table, alg, store, budget, metric, &|| {
            criteria(kind, k, table)
        })?;
    }
    // Both property stores answer alike, so a strategy makes the same checks with either.
    for alg in [
        LatticeAlgorithm::Flash,
        LatticeAlgorithm::Ola,
        LatticeAlgorithm::Bfs,
    ] {
        let dense = solve_with(alg, CheckerConfig::default(), StoreKind::Dense);
        let anti = solve_with(alg, CheckerConfig::default(), StoreKind::Antichain);
        if (&dense.optimum, dense.checks) != (&anti.optimum, anti.checks) {
            return Err(format!(
                "{alg:?} {metric:?}: dense store {:?} in {} checks, antichain {:?} in {}",
                dense.optimum, dense.checks, anti.optimum, anti.checks
            ));
        }
    }
    Ok(())
}

/// Runs `alg` with 1, 2 and 4 threads: the same optimum (levels, loss, suppressed records,
/// classes), the same number of checks and the same proof. Returns how many results evaluated
/// ahead on other threads the searches used.
fn same_for_every_thread_count(
    table: &EncodedTable,
    alg: LatticeAlgorithm,
    store: StoreKind,
    budget: u64,
    metric: MetricKind,
    criteria: &dyn Fn() -> Vec<Box<dyn PrivacyCriterion>>,
) -> Result<u64, String> {
    let with = |threads, config| {
        let setup = SearchSetup {
            algorithm: alg,
            store,
            config,
            limit: Limit::default(),
            threads,
        };
        let (out, _) = execute(
            table,
            criteria(),
            metrics::build(metric, table),
            budget,
            setup,
            false,
        )
        .unwrap();
        let used = out.ahead.used;
        (
            (out.optimum, out.checks, out.proven_optimal, out.lower_bound),
            used,
            out.stats.team,
        )
    };
    let (one, none, _) = with(1, CheckerConfig::default());
    if none != 0 {
        return Err(format!(
            "{alg:?}: one thread used {none} results evaluated ahead"
        ));
    }
    let mut used = 0;
    // With the lookahead, and with every check split over a team from the first check: the
    // items laid out in parts however uneven (2 and 3 threads), or classes by hash only; and
    // with the team joining after a few checks, in the middle of the walk (its layout drops the
    // checker's classes and snapshots), or never (the search ends before it is due).
    let lookahead = CheckerConfig {
        team_input_items: usize::MAX,
        ..CheckerConfig::default()
    };
    let team = CheckerConfig {
        team_input_items: 0,
        team_items: 0,
        layout_balance: f64::INFINITY,
        team_after: std::time::Duration::ZERO,
        ..CheckerConfig::default()
    };
    let by_hash = CheckerConfig {
        layout_balance: 0.0,
        ..team
    };
    let joining = CheckerConfig {
        team_after_checks: 3,
        ..team
    };
    let never = CheckerConfig {
        team_after: std::time::Duration::MAX,
        ..team
    };
    for (threads, config, how) in [
        (2, lookahead, "lookahead"),
        (4, lookahead, "lookahead"),
        (2, team, "team, laid out"),
        (3, team, "team, laid out"),
        (4, by_hash, "team by hash"),
        (2, joining, "team joining after 3 checks"),
        (2, never, "team never joining"),
    ] {
        let (got, u, team) = with(threads, config);
        used += u;
        // A team that never joined split nothing.
        if config.team_after == std::time::Duration::MAX && team != 0 {
            return Err(format!(
                "{alg:?} ({store:?}) {metric:?}: {how}: {team} split groupings"
            ));
        }
        if got != one {
            return Err(format!(
                "{alg:?} ({store:?}) {metric:?}: 1 thread {one:?}, {threads} threads ({how}) {got:?}"
            ));
        }
    }
    Ok(used)
}

/// A search cut short after `max_checks` checks: what it releases is valid, and its lower bound
/// never exceeds the exhaustive optimum (nor the loss it releases).
fn interrupted_bounds_hold(
    table: &EncodedTable,
    kind: usize,
    k: u64,
    budget: u64,
    metric: MetricKind,
    max_checks: u64,
) -> Result<(), String> {
    let oracle = solve(
        table,
        criteria(kind, k, table),
        metrics::build(metric, table),
        budget,
        LatticeAlgorithm::Exhaustive,
        CheckerConfig::plain(),
    )
    .unwrap();
    for alg in [
        LatticeAlgorithm::Flash,
        LatticeAlgorithm::Ola,
        LatticeAlgorithm::Bfs,
    ] {
        let setup = SearchSetup {
            algorithm: alg,
            store: alg.store(),
            config: CheckerConfig::default(),
            limit: Limit {
                max_checks: Some(max_checks),
                ..Limit::default()
            },
            threads: 1 + (max_checks % 2) as usize,
        };
        let crit = criteria(kind, k, table);
        let (got, _) = execute(
            table,
            crit,
            metrics::build(metric, table),
            budget,
            setup,
            false,
        )
        .map_err(|e| e.to_string())?;
        let tag = format!("{alg:?} {metric:?} after {max_checks} checks");
        if got.checks > max_checks.max(1) {
            return Err(format!("{tag}: made {} checks", got.checks));
        }
        if got.proven_optimal {
            // Finished within the limit: it is the exact optimum.
            let same = match (&got.optimum, &oracle.optimum) {
                (None, None) => true,
                (Some(g), Some(o)) => close(g.loss, o.loss),
                _ => false,
            };
            if !same {
                return Err(format!(
                    "{tag}: proven {:?} vs {:?}",
                    got.optimum, oracle.optimum
                ));
            }
        }
        if let (Some(b), Some(o)) = (got.lower_bound, &oracle.optimum) {
            if b > o.loss + 1e-9 * o.loss.abs().max(1.0) {
                return Err(format!(
                    "{tag}: lower bound {b} above the optimum {}",
                    o.loss
                ));
            }
        }
        if let Some(g) = &got.optimum {
            if oracle.optimum.is_none() {
                return Err(format!("{tag}: released {g:?}, nothing is valid"));
            }
            if got.lower_bound.is_none_or(|b| b > g.loss) {
                return Err(format!(
                    "{tag}: bound {:?} vs loss {}",
                    got.lower_bound, g.loss
                ));
            }
            let mut checker = Checker::new(
                table,
                criteria(kind, k, table),
                metrics::build(metric, table),
                budget,
                CheckerConfig::plain(),
            )
            .unwrap();
            let r = checker.check(&g.levels, &|_| false);
            if !r.anonymous || r.loss != Some(g.loss) {
                return Err(format!("{tag}: {g:?} re-checks as {r:?}"));
            }
        }
    }
    Ok(())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    #[test]
    fn interrupted_searches_release_valid_results_and_true_bounds(
        seed in proptest::prelude::any::<u64>(),
        rows in 1usize..48,
        k in 1u64..5,
        supp in 0usize..3,
        kind in 0usize..5,
        max_checks in 0u64..12,
    ) {
        let table = random_table(seed, rows, 400);
        let budget = [0, 1 + rows as u64 / 10, rows as u64 / 3][supp];
        for metric in MetricKind::ALL {
            if let Err(e) = interrupted_bounds_hold(&table, kind, k, budget, metric, max_checks) {
                return Err(proptest::test_runner::TestCaseError::fail(format!(
                    "seed {seed} rows {rows} k {k} budget {budget} kind {kind}: {e}"
                )));
            }
        }
    }

    #[test]
    fn flash_and_ola_find_the_exhaustive_optimum(
        seed in proptest::prelude::any::<u64>(),
        rows in 1usize..48,
        k in 1u64..5,
        supp in 0usize..3,
        kind in 0usize..5,
    ) {
        let table = random_table(seed, rows, 400);
        let budget = [0, 1 + rows as u64 / 10, rows as u64 / 3][supp];
        for metric in MetricKind::ALL {
            if let Err(e) = same_optimum(&table, kind, k, budget, metric) {
                return Err(proptest::test_runner::TestCaseError::fail(format!(
                    "seed {seed} rows {rows} k {k} budget {budget} kind {kind}: {e}"
                )));
            }
        }
    }
}

#[test]
fn ola_matches_arx_on_adult_samples() {
    let table = adult();
    for (k, s, metric, want) in [
        (5, 0.0, MetricKind::DmStar, 33627534.0),
        (2, 0.02, MetricKind::Loss, 0.2093709911332433),
        (5, 0.04, MetricKind::Dm, 7220555.0),
    ] {
        let out = run(
            &table,
            k,
            s,
            metric,
            LatticeAlgorithm::Ola,
            CheckerConfig::default(),
        );
        let got = out.optimum.unwrap().loss;
        assert!(
            close(got, want),
            "OLA k={k} s={s} {metric:?}: {got} vs {want}"
        );
    }
}

/// Runs the `anonbox` binary on ADULT with `args`; returns the temp dir, output and report.
fn cli_adult(args: &[&str]) -> (tempfile::TempDir, PathBuf, serde_json::Value) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.csv");
    let rep = dir.path().join("report.json");
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(repo("."))
        .args(["-config", "configs/adult.xml", "-quiet", "-output"])
        .arg(&out)
        .arg("-report")
        .arg(&rep)
        .args(args)
        .assert()
        .success();
    let report = serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap();
    (dir, out, report)
}

/// One reference row through the CLI: the report carries ARX's figures and the output file,
/// read by the independent checker, is k-anonymous within the budget and agrees with the report.
fn cli_golden(method: &str, row: &serde_json::Value) {
    let k = row["k"].as_u64().unwrap();
    let s = row["suppression_limit"].as_f64().unwrap();
    let metric = metric_kind(row["metric"].as_str().unwrap());
    let what = format!("{method} k={k} s={s} {metric:?}");
    let (_dir, out, r) = cli_adult(&[
        "-method",
        method,
        "-k",
        &k.to_string(),
        "-suppression",
        &s.to_string(),
        "-metric",
        metric.name(),
    ]);
    let budget = SuppressionLimit::Fraction(s).budget(30162);
    assert_eq!(r["method"], method, "{what}");
    assert_eq!(r["suppression_limit"], budget, "{what}");
    let loss = r["information_loss"].as_f64().unwrap();
    let want = row["information_loss"].as_f64().unwrap();
    assert!(close(loss, want), "{what}: {loss} vs ARX {want}");
    if r["transformation"] == row["transformation"] {
        assert_eq!(r["suppressed_records"], row["suppressed_records"], "{what}");
        assert_eq!(
            r["equivalence_classes"], row["equivalence_classes"],
            "{what}"
        );
    }
    let spec = kcheck::Spec {
        separator: ";",
        header: true,
        qid_columns: &[0, 1, 2, 3, 4, 5, 6, 7, 8],
        top: &["*"; 9],
        k: k as usize,
        max_suppressed: budget as usize,
        full_domain: true,
    };
    let found = kcheck::check(&out, &spec).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(found.rows, 30162);
    assert_eq!(r["suppressed_records"], found.suppressed as u64, "{what}");
    assert_eq!(r["equivalence_classes"], found.classes as u64, "{what}");
}

#[test]
fn cli_flash_reproduces_every_reference_row_and_outputs_pass_the_checker() {
    for row in &reference("arx-adult-k-anonymity.json") {
        cli_golden("Flash", row);
    }
}

#[test]
fn cli_ola_reproduces_reference_rows() {
    let rows = reference("arx-adult-k-anonymity.json");
    for row in rows.iter().filter(|r| r["k"] == 5) {
        cli_golden("OLA", row);
    }
}

#[test]
fn cli_bfs_reproduces_every_reference_row_and_proves_it() {
    for row in &reference("arx-adult-k-anonymity.json") {
        cli_golden("BFS", row);
    }
    let (_dir, _out, r) = cli_adult(&["-method", "BFS", "-k", "5", "-suppression", "0.02"]);
    assert_eq!(r["algorithm"], "BFS");
    assert_eq!(r["proven_optimal"], true);
    assert_eq!(r["lower_bound"], r["information_loss"]);
    assert_eq!(r["property_store"]["kind"], "antichain");
    // Every check is counted in exactly one phase; the seed and the local search ran.
    let phases = r["checks_by_purpose"].as_object().unwrap();
    let sum: u64 = phases.values().map(|p| p["checks"].as_u64().unwrap()).sum();
    assert_eq!(sum, r["transformations_checked"].as_u64().unwrap());
    assert!(phases["seed"]["valid"].as_u64().unwrap() >= 1, "{phases:?}");
    assert!(phases.contains_key("local_search"), "{phases:?}");
    for p in phases.values() {
        assert!(p["valid"].as_u64() <= p["checks"].as_u64());
    }
}

#[test]
fn cli_optimal_runs_flash_on_small_lattices_and_says_so() {
    let (_dir, _out, r) = cli_adult(&["-method", "Optimal", "-k", "5", "-timeLimit", "600"]);
    assert_eq!(r["method"], "Optimal");
    assert_eq!(r["algorithm"], "Flash");
    assert_eq!(r["property_store"]["kind"], "dense");
    assert_eq!(r["proven_optimal"], true);
    assert_eq!(r["time_limit_seconds"], 600.0);
}

/// Above 2^17 transformations `-method Optimal` runs BFS, and it finds Flash's optimum: six
/// attributes with eight levels each (262,144 transformations) over 300 generated rows.
#[test]
fn cli_optimal_runs_bfs_above_its_limit_and_matches_flash() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(11);
    let names: Vec<String> = (0..6).map(|j| format!("a{j}")).collect();
    let mut csv = names.join(";") + "\n";
    for _ in 0..300 {
        let row: Vec<String> = (0..6).map(|_| rng.below(128).to_string()).collect();
        csv += &(row.join(";") + "\n");
    }
    std::fs::write(dir.path().join("data.csv"), csv).unwrap();
    // Levels: the value, then halved six times (64 .. 1 groups), then `*`.
    let hierarchy: String = (0..128u32)
        .map(|v| {
            let mut line: Vec<String> = (0..7).map(|l| format!("g{}", v >> l)).collect();
            line[0] = v.to_string();
            line.push("*".into());
            line.join(";") + "\n"
        })
        .collect();
    let mut atts = String::new();
    for (j, name) in names.iter().enumerate() {
        std::fs::write(dir.path().join(format!("h{j}.csv")), &hierarchy).unwrap();
        atts += &format!("<att index=\"{j}\" name=\"{name}\" hierarchy=\"h{j}.csv\"/>");
    }
    std::fs::write(
        dir.path().join("config.xml"),
        format!(
            "<config k=\"3\" suppression=\"0.04\" metric=\"Loss\">\
             <input filename=\"data.csv\" separator=\";\" header=\"true\"/><qid>{atts}</qid></config>"
        ),
    )
    .unwrap();
    let run = |method: &str| -> serde_json::Value {
        let rep = dir.path().join(format!("{method}.json"));
        assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .current_dir(dir.path())
            .args([
                "-config",
                "config.xml",
                "-quiet",
                "-method",
                method,
                "-output",
            ])
            .arg(dir.path().join(format!("{method}.csv")))
            .arg("-report")
            .arg(&rep)
            .assert()
            .success();
        serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap()
    };
    let optimal = run("Optimal");
    let flash = run("Flash");
    assert_eq!(optimal["lattice_size"], 262_144);
    assert_eq!(optimal["algorithm"], "BFS");
    assert_eq!(optimal["property_store"]["kind"], "antichain");
    assert_eq!(flash["algorithm"], "Flash");
    assert_eq!(optimal["proven_optimal"], true);
    let (a, b) = (
        optimal["information_loss"].as_f64().unwrap(),
        flash["information_loss"].as_f64().unwrap(),
    );
    assert!((a - b).abs() < 1e-12, "Optimal (BFS) {a} against Flash {b}");
}

/// A time limit too far ahead for the clock (9.3e18 s: the deadline overflows an `Instant`,
/// though the limit is below the largest accepted, u64::MAX s) is a search without a limit;
/// it was a panic (exit 101) after the load.
#[test]
fn cli_time_limit_beyond_the_clock_runs_to_the_proof() {
    for limit in ["9.3e18", "1.8e19"] {
        let (_dir, _out, r) = cli_adult(&["-method", "BFS", "-k", "5", "-timeLimit", limit]);
        assert_eq!(r["proven_optimal"], true, "{limit}");
        assert_eq!(r["lower_bound"], r["information_loss"], "{limit}");
    }
}

/// A time limit reached before any valid transformation is known: the top (every
/// quasi-identifier at its hierarchy's top) is checked and released, not proven optimal, with
/// a lower bound (it was exit 1 with nothing written, though the top is a valid release).
#[test]
fn cli_time_limit_without_a_result_releases_the_top() {
    for method in ["Flash", "OLA", "BFS"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.csv");
        let rep = dir.path().join("report.json");
        assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .current_dir(repo("."))
            .args(["-config", "configs/adult.xml", "-quiet", "-method", method])
            .args(["-k", "5", "-timeLimit", "0.000000001", "-output"])
            .arg(&out)
            .arg("-report")
            .arg(&rep)
            .assert()
            .success();
        let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&rep).unwrap()).unwrap();
        assert!(out.exists(), "{method}");
        assert_eq!(r["proven_optimal"], false, "{method}");
        assert_eq!(r["transformations_checked"], 1, "{method}");
        assert_eq!(r["checks_by_purpose"]["seed"]["checks"], 1, "{method}");
        let top: Vec<serde_json::Value> = [1, 4, 1, 2, 3, 2, 2, 2, 1]
            .iter()
            .map(|&l| l.into())
            .collect();
        assert_eq!(
            r["transformation"],
            serde_json::Value::from(top),
            "{method}"
        );
        let (loss, bound) = (
            r["information_loss"].as_f64().unwrap(),
            r["lower_bound"].as_f64().unwrap(),
        );
        assert!(bound <= loss, "{method}: {bound} > {loss}");
    }
}

#[test]
fn cli_reports_when_k_exceeds_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never-written.csv");
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
        .current_dir(repo("."))
        .args([
            "-config",
            "configs/adult.xml",
            "-quiet",
            "-method",
            "Flash",
            "-k",
            "40000",
        ])
        .arg("-output")
        .arg(&out)
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "This input cannot be anonymized at k = 40000: it has 30162 records",
        ));
    assert!(!out.exists(), "nothing is written when the run fails");
}

/// ARX's rows with a sensitive attribute (occupation; 8 quasi-identifiers, suppression 0.02,
/// Loss): the privacy models plug into the checker through their distributions, so this is the
/// end-to-end test of the distribution path (roll-ups and snapshots merge them).
#[test]
fn flash_reproduces_arx_with_sensitive_attribute_models() {
    let data = common::data("adult");
    let dir = tempfile::tempdir().unwrap();
    let h = |c: &str| {
        data.join(format!("adult_hierarchy_{c}.csv"))
            .display()
            .to_string()
    };
    let qids = [
        (0, "sex"),
        (1, "age"),
        (2, "race"),
        (3, "marital-status"),
        (4, "education"),
        (5, "native-country"),
        (6, "workclass"),
        (8, "salary-class"),
    ];
    let atts: String = qids
        .iter()
        .map(|(i, c)| format!("<att index='{i}' name='{c}' hierarchy='{}'/>", h(c)))
        .collect();
    for row in reference("arx-adult-sensitive.json") {
        let model = match row["privacy_model"].as_str().unwrap() {
            "distinct-l-diversity" => "<distinct-l-diversity l='3'/>",
            "entropy-l-diversity" => "<entropy-l-diversity l='3'/>",
            "recursive-(c,l)-diversity" => "<recursive-cl-diversity c='4' l='3'/>",
            "t-closeness" => "<t-closeness t='0.2' distance='equal'/>",
            m => panic!("unknown model {m}"),
        };
        let config = dir.path().join("sensitive.xml");
        std::fs::write(
            &config,
            format!(
                "<config method='Flash' suppression='0.02' metric='loss'>\
                 <input filename='{}' separator=';' header='true'/><output filename='o.csv'/>\
                 <qid>{atts}</qid><sens><att index='7' name='occupation' hierarchy='{}'/></sens>\
                 <privacy>{model}</privacy></config>",
                data.join("adult.csv").display(),
                h("occupation")
            ),
        )
        .unwrap();
        let args = RunArgs {
            config: Some(config),
            quiet: true,
            ..RunArgs::default()
        };
        let job = build_job(&args).unwrap();
        let table = crate::common::load_table(&job).unwrap().0;
        let out = anonbox::algorithms::solve_for(
            &job.lattice(),
            &table,
            LatticeAlgorithm::Flash,
            CheckerConfig::default(),
        )
        .unwrap();
        let got = out.optimum.expect("a solution");
        let what = row["privacy_model"].as_str().unwrap();
        let want = row["information_loss"].as_f64().unwrap();
        assert!(close(got.loss, want), "{what}: {} vs ARX {want}", got.loss);
        let levels: Vec<u64> = got.levels.iter().map(|&l| l as u64).collect();
        if serde_json::json!(levels) == row["transformation"] {
            assert_eq!(
                got.suppressed,
                row["suppressed_records"].as_u64().unwrap(),
                "{what}"
            );
            assert_eq!(
                got.classes,
                row["equivalence_classes"].as_u64().unwrap(),
                "{what}"
            );
        }
    }
}

/// A strategy that panics inside the lookahead (two threads) ends with its panic: the worker
/// is closed, nothing waits for it, and the search still checks afterwards.
#[test]
fn a_panic_within_the_lookahead_does_not_hang() {
    let table = adult();
    let budget = SuppressionLimit::Fraction(0.02).budget(table.rows() as u64);
    let mut search: anonbox::algorithms::Search<'_> = anonbox::algorithms::Search::new(
        &table,
        k_anon(2),
        metrics::build(MetricKind::DmStar, &table),
        budget,
        CheckerConfig::default(),
    )
    .unwrap();
    search.set_threads(2);
    let top = search.space().size() - 1;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        search.with_helpers(|s| {
            s.check(0);
            s.guess(top);
            s.check(1);
            panic!("strategy fails");
        })
    }));
    assert!(caught.is_err(), "the strategy's panic reaches the caller");
    assert!(search.check(top).anonymous, "the top is anonymous");
}

/// A lattice of more than 2^64 transformations (33 quasi-identifiers of four levels: 2^66) is
/// refused in one line by every lattice method, and nothing is written (it was a panic): a
/// config error (exit 2), the hierarchy files giving every height.
#[test]
fn cli_lattice_beyond_2_64_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let q = 33;
    let names: Vec<String> = (0..q).map(|j| format!("a{j}")).collect();
    let mut csv = names.join(";") + "\n";
    let mut rng = Rng::new(5);
    for _ in 0..40 {
        let row: Vec<String> = (0..q).map(|_| rng.below(4).to_string()).collect();
        csv += &(row.join(";") + "\n");
    }
    std::fs::write(dir.path().join("data.csv"), csv).unwrap();
    // Levels: the value, its half, its quarter, then `*`.
    let hierarchy: String = (0..4u32)
        .map(|v| format!("{v};h{};q{};*\n", v >> 1, v >> 2))
        .collect();
    std::fs::write(dir.path().join("h.csv"), hierarchy).unwrap();
    let atts: String = names
        .iter()
        .enumerate()
        .map(|(j, n)| format!("<att index=\"{j}\" name=\"{n}\" hierarchy=\"h.csv\"/>"))
        .collect();
    std::fs::write(
        dir.path().join("config.xml"),
        format!(
            "<config k=\"2\"><input filename=\"data.csv\" separator=\";\" header=\"true\"/>\
             <qid>{atts}</qid></config>"
        ),
    )
    .unwrap();
    let before = common::files_in(dir.path());
    for method in ["BFS", "Optimal", "Flash", "OLA"] {
        let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .current_dir(dir.path())
            .args(["-config", "config.xml", "-quiet", "-method", method])
            .args(["-output", "out.csv", "-report", "report.json"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{method}: {stderr}");
        assert!(
            stderr.contains(
                "the generalization lattice of the 33 quasi-identifiers has more than 2^64"
            ),
            "{method}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{method}: {stderr}");
        assert_eq!(common::files_in(dir.path()), before, "{method}");
    }
}

/// BFS keeps levels in bytes and at most 64 quasi-identifiers: a hierarchy of 300 levels, or
/// 65 quasi-identifiers, is refused in one line naming what is too large and what can search
/// it (it said "the generalization lattice (301 transformations) is too large for this
/// search's property store"), as a config error (exit 2), nothing is written, and Flash
/// searches both.
#[test]
fn cli_bfs_names_a_hierarchy_too_tall_or_too_many_quasi_identifiers() {
    let dir = tempfile::tempdir().unwrap();
    // A: 300 levels (the value, 298 groupings, `*`); B: two levels; C0..C64: one value, no level.
    let tall: String = (0..8u32)
        .map(|v| {
            let mut row = vec![format!("v{v}")];
            row.extend((1..299).map(|l| format!("g{l}_{}", v >> (l / 100))));
            row.push("*".into());
            row.join(";") + "\n"
        })
        .collect();
    std::fs::write(dir.path().join("tall.csv"), tall).unwrap();
    std::fs::write(dir.path().join("b.csv"), "w0;*\nw1;*\n").unwrap();
    std::fs::write(dir.path().join("one.csv"), "x\n").unwrap();
    let mut csv = String::from("a;b");
    for j in 0..65 {
        csv += &format!(";c{j}");
    }
    csv += "\n";
    for i in 0..40 {
        csv += &format!("v{};w{}{}\n", i % 8, i % 2, ";x".repeat(65));
    }
    std::fs::write(dir.path().join("data.csv"), csv).unwrap();
    let config = |name: &str, atts: &str| {
        std::fs::write(
            dir.path().join(name),
            format!(
                "<config k=\"5\"><input filename=\"data.csv\" separator=\";\" header=\"true\"/>\
                 <qid>{atts}</qid></config>"
            ),
        )
        .unwrap();
    };
    config(
        "tall.xml",
        "<att index=\"0\" name=\"a\" hierarchy=\"tall.csv\"/>\
         <att index=\"1\" name=\"b\" hierarchy=\"b.csv\"/>",
    );
    let wide: String = (0..65)
        .map(|j| {
            format!(
                "<att index=\"{}\" name=\"c{j}\" hierarchy=\"one.csv\"/>",
                j + 2
            )
        })
        .collect();
    config(
        "wide.xml",
        &format!("<att index=\"1\" name=\"b\" hierarchy=\"b.csv\"/>{wide}"),
    );
    let before = common::files_in(dir.path());
    let run = |config: &str, method: &str| {
        assert_cmd::Command::new(env!("CARGO_BIN_EXE_anonbox"))
            .current_dir(dir.path())
            .args(["-config", config, "-quiet", "-method", method])
            .args(["-output", "out.csv", "-report", "report.json"])
            .output()
            .unwrap()
    };
    for (config, want) in [
        (
            "tall.xml",
            "the hierarchy of a has 300 levels, more than BFS can search (at most 256): use \
             -method Flash or OLA",
        ),
        (
            "wide.xml",
            "66 quasi-identifiers are more than BFS can search (at most 64): use -method Flash",
        ),
    ] {
        let out = run(config, "BFS");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{config}: {stderr}");
        assert!(stderr.contains(want), "{config}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{config}: {stderr}");
        assert_eq!(common::files_in(dir.path()), before, "{config}");
        let out = run(config, "Flash");
        assert!(out.status.success(), "{config}: {:?}", out);
        std::fs::remove_file(dir.path().join("out.csv")).unwrap();
        std::fs::remove_file(dir.path().join("report.json")).unwrap();
    }
}

/// A search stopped at its limit bounds what it left unexplored without enumerating the space:
/// Flash stopped after one check on a lattice of 2^27 transformations (27 quasi-identifiers of
/// two levels) answers at once (the enumeration took about a minute; on 20 quasi-identifiers,
/// 10^9 transformations, `-timeLimit 2` ran eight minutes), and its bound is still true. So
/// does a search whose stop flag is up (an interrupted library call).
#[test]
fn a_stopped_search_bounds_the_rest_without_enumerating_the_lattice() {
    let mut rng = Rng::new(27);
    let hierarchies: Vec<Hierarchy> = (0..27)
        .map(|j| random_hierarchy(&mut rng, &format!("q{j}_"), 3, 2))
        .collect();
    let rows = 60;
    let codes = (0..rows * 27).map(|_| rng.below(3) as u32).collect();
    let table = EncodedTable::new(codes, hierarchies, Vec::new());
    // Stopped after one check, or by a flag raised before the start (an interrupted call).
    let stop = anonbox::sync::Stop::default();
    stop.raise();
    let limits = [
        Limit {
            max_checks: Some(1),
            ..Limit::default()
        },
        Limit {
            stop: Some(stop),
            ..Limit::default()
        },
    ];
    for (alg, metric, limit) in [
        (LatticeAlgorithm::Flash, MetricKind::Loss, &limits[0]),
        (LatticeAlgorithm::Flash, MetricKind::Height, &limits[0]),
        (LatticeAlgorithm::Bfs, MetricKind::Loss, &limits[0]),
        (LatticeAlgorithm::Flash, MetricKind::Loss, &limits[1]),
        (LatticeAlgorithm::Ola, MetricKind::Loss, &limits[1]),
        (LatticeAlgorithm::Bfs, MetricKind::Height, &limits[1]),
    ] {
        let setup = SearchSetup {
            algorithm: alg,
            store: alg.store(),
            config: CheckerConfig::default(),
            limit: limit.clone(),
            threads: 1,
        };
        let started = std::time::Instant::now();
        let crit: Vec<Box<dyn PrivacyCriterion>> = vec![Box::new(KAnonymity { k: 2 })];
        let (out, _) = execute(
            &table,
            crit,
            metrics::build(metric, &table),
            3,
            setup,
            false,
        )
        .unwrap();
        let took = started.elapsed();
        if limit.stop.is_some() {
            // Stopped before its first step: at most the top checked, which proves that nothing
            // is valid when it is not (k-anonymity is monotonic).
            assert!(out.checks <= 1, "{alg:?} {metric:?}: {} checks", out.checks);
            assert!(
                !out.proven_optimal || out.optimum.is_none(),
                "{alg:?} {metric:?}"
            );
        } else {
            assert!(!out.proven_optimal, "{alg:?} {metric:?}");
        }
        assert!(
            took < std::time::Duration::from_secs(10),
            "{alg:?} {metric:?}: {took:?}"
        );
        if out.proven_optimal {
            continue; // nothing valid, proven: no bound to give
        }
        // Nothing loses less than the bottom's bound, and the bound is at most the best found.
        let bound = out.lower_bound.expect("a bound");
        assert!(bound >= 0.0, "{alg:?} {metric:?}: {bound}");
        if let Some(opt) = &out.optimum {
            assert!(
                bound <= opt.loss,
                "{alg:?} {metric:?}: {bound} > {}",
                opt.loss
            );
        }
    }
}
