//! Differential test of the checker's code paths: plain, projection, roll-up, snapshot and
//! deduplicated items must group rows identically for any sequence of transformations.
//! Compared per step: the sorted multiset of (generalized tuple, count, sensitive distribution)
//! and the verdict (anonymous, suppressed, classes, loss, bound).

use anonbox::check::{CheckResult, Checker, CheckerConfig, Class, Source, Team};
use anonbox::data::EncodedTable;
use anonbox::job::MetricKind;
use anonbox::metrics;
use anonbox::privacy::{KAnonymity, PrivacyCriterion};

use crate::flash::{adult, entropy_l2, random_table, Rng, TestDistinctL};

fn configs() -> Vec<(&'static str, CheckerConfig)> {
    let plain = CheckerConfig::plain();
    // Store every snapshot, so snapshots of snapshot-built classes (buffer levels != snapshot
    // levels) are exercised too.
    let eager = CheckerConfig {
        snapshot_max_fraction: 1.0,
        snapshot_min_reduction: 1.0,
        ..plain
    };
    vec![
        ("plain", plain),
        (
            "projection",
            CheckerConfig {
                projection: true,
                ..plain
            },
        ),
        (
            "dedup",
            CheckerConfig {
                dedup: true,
                ..plain
            },
        ),
        (
            "rollup",
            CheckerConfig {
                rollup: true,
                ..plain
            },
        ),
        (
            "rollup+projection",
            CheckerConfig {
                rollup: true,
                projection: true,
                ..plain
            },
        ),
        (
            "snapshot",
            CheckerConfig {
                history: true,
                ..eager
            },
        ),
        (
            "snapshot+projection",
            CheckerConfig {
                history: true,
                projection: true,
                ..eager
            },
        ),
        (
            "snapshot+projection+dedup",
            CheckerConfig {
                history: true,
                projection: true,
                dedup: true,
                ..eager
            },
        ),
        ("all", CheckerConfig::default()),
        // Hubs: a scattered search's checks from scratch go through a snapshot of a meet.
        ("all, scattered", CheckerConfig::default()),
        (
            // Snapshots dropped for their bytes, not their number.
            "all, scattered, tiny history bytes",
            CheckerConfig {
                history_max_bytes: 2048,
                snapshot_max_fraction: 1.0,
                ..CheckerConfig::default()
            },
        ),
        (
            // Checks stop at the class limit: compared by verdict only (see `compare`).
            "all, stopping early",
            CheckerConfig {
                stop_early_items: 0,
                ..CheckerConfig::default()
            },
        ),
        (
            // Every check from scratch split over the pool's threads (see `compare`).
            "all, split",
            CheckerConfig {
                split_items: 0,
                ..CheckerConfig::default()
            },
        ),
        (
            "all, split, stopping early",
            CheckerConfig {
                split_items: 0,
                stop_early_items: 0,
                ..CheckerConfig::default()
            },
        ),
        (
            // Every grouping and tally split over a team of three (see `compare`), classes
            // partitioned by hash: the same classes in another order.
            "all, team",
            CheckerConfig {
                team_items: 0,
                layout_balance: 0.0,
                ..CheckerConfig::default()
            },
        ),
        (
            "all, team, stopping early",
            CheckerConfig {
                team_items: 0,
                layout_balance: 0.0,
                stop_early_items: 0,
                ..CheckerConfig::default()
            },
        ),
        (
            // The items laid out in three parts however uneven (the transformations that keep
            // classes within them grouped part by part, the others by hash).
            "all, team, laid out",
            CheckerConfig {
                team_items: 0,
                layout_balance: f64::INFINITY,
                ..CheckerConfig::default()
            },
        ),
        (
            "all, team, laid out, stopping early",
            CheckerConfig {
                team_items: 0,
                layout_balance: f64::INFINITY,
                stop_early_items: 0,
                ..CheckerConfig::default()
            },
        ),
        (
            "all, tiny history",
            CheckerConfig {
                history_capacity: 2,
                snapshot_max_fraction: 1.0,
                ..CheckerConfig::default()
            },
        ),
    ]
}

/// A random walk: half the steps generalize the previous transformation, the others jump.
fn walk(rng: &mut Rng, max: &[usize], steps: usize) -> Vec<Vec<usize>> {
    let mut cur: Vec<usize> = max.iter().map(|&m| rng.below(m + 1)).collect();
    let mut out = vec![cur.clone()];
    for _ in 1..steps {
        if rng.below(2) == 0 {
            for (l, &m) in cur.iter_mut().zip(max) {
                *l = (*l + rng.below(2)).min(m);
            }
        } else {
            cur = max.iter().map(|&m| rng.below(m + 1)).collect();
        }
        out.push(cur.clone());
    }
    out
}

fn criteria(with_dist: bool, table: &EncodedTable) -> Vec<Box<dyn PrivacyCriterion>> {
    let mut c: Vec<Box<dyn PrivacyCriterion>> = vec![Box::new(KAnonymity { k: 2 })];
    if with_dist {
        // Distributions, a criterion that is not monotonic and a relaxation: the verdicts of
        // both are compared across paths.
        c.push(Box::new(TestDistinctL { l: 2 }));
        c.push(entropy_l2(table));
    }
    c
}

fn grouping(checker: &Checker<'_>) -> Vec<Class> {
    let mut classes = checker.classes();
    for c in &classes {
        assert_eq!(c.ids, c.rep_ids, "class key and representative disagree");
    }
    classes.sort();
    classes
}

/// Runs every configuration over the same walk and compares them step by step; returns how
/// often each source was used, and the hubs grouped, per configuration, and the groupings on
/// the parts of laid-out items.
fn compare(
    table: &EncodedTable,
    walk: &[Vec<usize>],
    with_dist: bool,
    budget: u64,
) -> (Vec<[u64; 4]>, u64) {
    // The caller and two helpers, served for the whole walk.
    let team = std::sync::Arc::new(Team::new(2));
    std::thread::scope(|scope| {
        for i in 0..2 {
            let team = &team;
            scope.spawn(move || team.serve(i));
        }
        let _close = team.closer();
        compare_with(table, walk, with_dist, budget, &team)
    })
}

fn compare_with(
    table: &EncodedTable,
    walk: &[Vec<usize>],
    with_dist: bool,
    budget: u64,
    team: &std::sync::Arc<Team>,
) -> (Vec<[u64; 4]>, u64) {
    // Three threads: ranges of unequal work, and a merge of more than one table.
    let pool = std::sync::Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap(),
    );
    // The classes of "all" in their order, which a split check must reproduce exactly.
    let mut in_order: Option<Vec<Class>> = None;
    let mut checkers: Vec<(&str, Checker<'_>)> = configs()
        .into_iter()
        .map(|(name, config)| {
            let mut c = Checker::new(
                table,
                criteria(with_dist, table),
                metrics::build(MetricKind::Loss, table),
                budget,
                config,
            )
            .unwrap();
            c.set_store_anonymous(true);
            if name.contains("scattered") {
                c.set_scattered();
            }
            if name.contains("split") {
                c.set_pool(Some(pool.clone()));
            }
            if name.contains("team") {
                c.set_team(Some(team.clone()));
            }
            (name, c)
        })
        .collect();
    let mut used = vec![[0u64; 4]; checkers.len()];
    for levels in walk {
        let mut reference: Option<(CheckResult, Vec<Class>)> = None;
        for (i, (name, checker)) in checkers.iter_mut().enumerate() {
            let stopped = checker.stats().stopped;
            let r = checker.check(levels, &|_| false);
            used[i][r.source as usize] += 1;
            if checker.stats().stopped > stopped {
                // Stopped at the class limit: invalid, and its figures are lower bounds.
                let (r0, _) = reference.as_ref().unwrap();
                assert!(
                    !r0.anonymous && !r.anonymous && !r.relaxed,
                    "{name} {levels:?}"
                );
                assert!(r0.suppressed >= r.suppressed, "{name} {levels:?}");
                assert!(r0.all_classes >= r.all_classes, "{name} {levels:?}");
                assert_eq!(r.suppressed, budget + 1);
                assert!(grouping(checker).is_empty());
                used[i][3] += 1;
                continue;
            }
            if *name == "all" {
                in_order = Some(checker.classes());
            } else if name.contains("split") && !name.contains("stopping") {
                let order = in_order.as_ref().unwrap();
                assert_eq!(
                    order,
                    &checker.classes(),
                    "{name} orders {levels:?} differently"
                );
            }
            let g = grouping(checker);
            if with_dist {
                assert!(g.iter().all(|c| c.distributions.len() == 1));
            }
            match &reference {
                None => reference = Some((r, g)),
                Some((r0, g0)) => {
                    assert_eq!(g0, &g, "{name} groups {levels:?} differently");
                    let strip = |r: &CheckResult| CheckResult {
                        source: Source::Plain,
                        ..*r
                    };
                    assert_eq!(strip(r0), strip(&r), "{name} judges {levels:?} differently");
                }
            }
        }
    }
    let mut laid_out = 0;
    for (u, (name, checker)) in used.iter_mut().zip(&checkers) {
        if !name.contains("stopping") {
            u[3] = checker.stats().hubs;
        }
        let split = checker.stats().split;
        if name.contains("split") {
            assert_eq!(
                split,
                checker.stats().plain,
                "{name}: every check from scratch splits"
            );
        } else {
            assert_eq!(split, 0, "{name} splits without a pool");
        }
        let teamed = checker.stats().team;
        if name.contains("team") {
            // Every tally at least.
            assert!(
                teamed >= checker.stats().checks,
                "{name}: {teamed} team checks"
            );
        } else {
            assert_eq!(teamed, 0, "{name} uses a team it does not have");
        }
        let covered = checker.stats().covered;
        if name.contains("laid out") {
            laid_out += covered;
        } else {
            assert_eq!(covered, 0, "{name} groups by parts it does not have");
        }
    }
    (used, laid_out)
}

fn assert_paths_exercised(used: &[[u64; 4]]) {
    let names: Vec<&str> = configs().iter().map(|c| c.0).collect();
    for (name, u) in names.iter().zip(used) {
        let [plain, rollup, snapshot, hubs] = *u;
        if name.contains("stopping") {
            // `hubs` counts the checks that stopped here.
            assert!(hubs > 0, "{name} never stopped early");
        } else if name.contains("scattered") {
            assert!(hubs > 0, "{name} never grouped a hub");
        } else {
            assert_eq!(hubs, 0, "{name}: hubs only for scattered searches");
        }
        assert!(plain > 0, "{name}: the first check is plain");
        if name.contains("rollup") || *name == "all" {
            assert!(rollup > 0, "{name} never rolled up");
        }
        if name.contains("snapshot") || *name == "all" {
            assert!(snapshot > 0, "{name} never used a snapshot");
        }
        if *name == "plain" || *name == "projection" || *name == "dedup" {
            assert_eq!(rollup + snapshot, 0, "{name} must only group from scratch");
        }
    }
}

#[test]
fn adult_paths_agree_on_a_random_walk() {
    let table = adult();
    let max: Vec<usize> = table.hierarchies.iter().map(|h| h.max_level()).collect();
    let mut rng = Rng::new(7);
    let mut steps = walk(&mut rng, &max, 120);
    // The bottom and one step above it: more classes (19,502 and more than 15,381) than k = 2
    // and 300 outliers allow among 30,162 records, so checks that stop early do.
    let mut above = vec![0; max.len()];
    above[0] = 1;
    steps.splice(0..0, [vec![0; max.len()], above]);
    let (used, laid_out) = compare(&table, &steps, false, 300);
    assert_paths_exercised(&used);
    // Age at level 3 or below: part by part (every check from scratch, roll-up and snapshot
    // on the team there, in both configurations).
    assert!(laid_out > 20, "{laid_out} groupings on the items' parts");
}

#[test]
fn laid_out_parts_merge_distributions_as_one_thread() {
    // Random tables with sensitive attributes (the proptest below runs the same comparison on
    // others): their groupings on the items' parts merge distributions and verdicts.
    let mut laid_out = 0;
    for seed in 0..8 {
        let table = random_table(seed, 50, 400);
        let max: Vec<usize> = table.hierarchies.iter().map(|h| h.max_level()).collect();
        let mut rng = Rng::new(seed);
        let steps = walk(&mut rng, &max, 40);
        laid_out += compare(&table, &steps, true, 10).1;
    }
    assert!(laid_out > 0, "no grouping on the items' parts");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    #[test]
    fn random_tables_paths_agree(seed in proptest::prelude::any::<u64>(), rows in 1usize..60) {
        let table = random_table(seed, rows, 400);
        let max: Vec<usize> = table.hierarchies.iter().map(|h| h.max_level()).collect();
        let mut rng = Rng::new(seed);
        let steps = walk(&mut rng, &max, 40);
        compare(&table, &steps, true, rows as u64 / 5);
    }
}
