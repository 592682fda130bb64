//! Datafly (Sweeney), as the UT Dallas toolbox runs it (UTD-TOOLBOX.md §7.1), with the
//! suppression threshold of §8.
//!
//! Full-domain and greedy: starting from the original values, while the records in classes
//! smaller than k number more than the suppression threshold, generalize one level the
//! quasi-identifier with the most distinct generalized values (ties: the first in `<qid>`
//! order); then suppress the classes still smaller than k: their quasi-identifiers print as the
//! VGH root or the hierarchy's top level. The threshold is `Job::suppression` (tuples, or
//! `floor(f * n)` for a fraction), k tuples by default. Fewer than k records cannot be
//! anonymized.
//!
//! Everything runs in SQL on the store, over the distinct quasi-identifier tuples (`QidTuple`,
//! with counts), never over rows: a working copy `DataflyTuple` carries each tuple's current
//! generalized ids, one column per quasi-identifier; a generalization step rewrites one column
//! from `HierarchyMap`; classes are `GROUP BY` over those columns. The distinct values "among
//! the classes" are the distinct values of the column.
//!
//! Class numbers follow the toolbox: classes are numbered in order of their first record,
//! suppressed classes' numbers are left unused, and the suppression class takes the next number
//! (so with k = 10 on the census sample the classes are 1..7 and 9, as the toolbox's).
//!
//! The toolbox prints `Generalizing attribute N` and `Suppressing equivalence E` on stdout;
//! anonbox keeps stdout clean and shows the step on the search progress bar, and lists the
//! steps in the report (`generalized`, attribute names in order).

use super::Outcome;
use crate::data::load::Encoding;
use crate::job::{Generalization, Job};
use crate::progress::Progress;
use crate::store::{SqlContext, Store};
use crate::{Error, Result};

/// Runs Datafly on a loaded store; fills `EquivalenceTable` and `QidTuple.EquivalenceID`.
pub fn run(
    store: &Store,
    job: &Job,
    encoding: &Encoding,
    records: u64,
    progress: &Progress,
) -> Result<Outcome> {
    let k = job.k.max(1);
    for q in &job.qids {
        if let Generalization::Vgh(v) = &q.generalization {
            if !v.leaves_at_equal_depth() {
                return Err(Error::Invalid(format!(
                    "Datafly: all leaf nodes of the VGH of '{}' should be at the same depth",
                    q.name
                )));
            }
        }
    }
    if records < k {
        return Err(Error::Invalid(format!(
            "This input cannot be anonymized at k = {k}"
        )));
    }
    let threshold = job.suppression.map_or(k, |s| s.budget(records));
    let db = store.path();
    let cols = &store.layout().qids;
    let nq = cols.len();
    let g: Vec<String> = (0..nq).map(|i| format!("G{i}")).collect();
    let gs = g.join(", ");
    let atts = cols.join(", ");
    let max: Vec<usize> = encoding
        .qids
        .iter()
        .map(|e| e.hierarchy.max_level())
        .collect();

    let bar = progress.spinner("search");
    bar.set_message("Datafly");
    store.exec(&format!(
        "DROP TABLE IF EXISTS temp.DataflyTuple; DROP TABLE IF EXISTS temp.DataflyClass;\n\
         CREATE TEMP TABLE DataflyTuple ({}, {}, Count INTEGER NOT NULL, \
         FirstRecord INTEGER NOT NULL, PRIMARY KEY ({atts})) WITHOUT ROWID;\n\
         INSERT INTO temp.DataflyTuple SELECT {atts}, {atts}, Count, FirstRecord FROM QidTuple;",
        cols.iter()
            .map(|c| format!("{c} INTEGER NOT NULL"))
            .collect::<Vec<_>>()
            .join(", "),
        g.iter()
            .map(|c| format!("{c} INTEGER NOT NULL"))
            .collect::<Vec<_>>()
            .join(", "),
    ))?;

    let small_sql = format!(
        "SELECT COALESCE(SUM(n), 0) FROM \
         (SELECT SUM(Count) AS n FROM temp.DataflyTuple GROUP BY {gs}) WHERE n < ?1"
    );
    let distinct_sql = format!(
        "SELECT {} FROM temp.DataflyTuple",
        g.iter()
            .map(|c| format!("COUNT(DISTINCT {c})"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut levels = vec![0usize; nq];
    let mut steps: Vec<String> = Vec::new();
    loop {
        let small: i64 = store.value(&small_sql, [k as i64])?;
        if small as u64 <= threshold {
            break;
        }
        let distinct: Vec<i64> = store
            .conn()
            .query_row(&distinct_sql, [], |r| {
                (0..nq).map(|i| r.get::<_, i64>(i)).collect()
            })
            .ctx(db)?;
        // The most distinct values among the attributes that can still climb; ties: first.
        let mut choice: Option<usize> = None;
        for q in 0..nq {
            if levels[q] < max[q] && choice.is_none_or(|c| distinct[q] > distinct[c]) {
                choice = Some(q);
            }
        }
        let Some(q) = choice else {
            return Err(Error::Invalid(format!(
                "This input cannot be anonymized at k = {k} with a suppression threshold of \
                 {threshold} records: {small} records are in classes smaller than k with every \
                 quasi-identifier at its highest level"
            )));
        };
        levels[q] += 1;
        steps.push(job.qids[q].name.clone());
        bar.set_message(format!(
            "Datafly: generalizing {} to level {}",
            job.qids[q].name, levels[q]
        ));
        store.exec(&format!(
            "BEGIN; UPDATE temp.DataflyTuple SET G{q} = (SELECT Id FROM HierarchyMap \
             WHERE AttributeID = {q} AND Level = {} AND Code = {}); COMMIT;",
            levels[q], cols[q]
        ))?;
    }

    // Final classes, numbered by first record (see the module docs).
    store.exec(&format!(
        "CREATE TEMP TABLE DataflyClass AS \
         SELECT {gs}, SUM(Count) AS Size, \
         ROW_NUMBER() OVER (ORDER BY MIN(FirstRecord)) AS EquivalenceID \
         FROM temp.DataflyTuple GROUP BY {gs};\n\
         CREATE UNIQUE INDEX temp.DataflyClassKey ON DataflyClass ({gs});"
    ))?;
    let classes: i64 = store.value("SELECT COUNT(*) FROM temp.DataflyClass", [])?;
    let suppression_id = classes + 1;
    let labels = crate::store::level_labels_sql(&levels, "c");
    let on = (0..nq)
        .map(|q| format!("c.G{q} = d.G{q}"))
        .collect::<Vec<_>>()
        .join(" AND ");
    let key = cols
        .iter()
        .map(|c| format!("d.{c} = QidTuple.{c}"))
        .collect::<Vec<_>>()
        .join(" AND ");
    store.exec(&format!(
        "BEGIN;\n\
         INSERT INTO EquivalenceTable (EquivalenceID, {atts}, Size, Suppressed) \
         SELECT c.EquivalenceID, {labels}, c.Size, 0 FROM temp.DataflyClass c \
         WHERE c.Size >= {k} ORDER BY c.EquivalenceID;\n\
         UPDATE QidTuple SET EquivalenceID = \
         (SELECT CASE WHEN c.Size < {k} THEN {suppression_id} ELSE c.EquivalenceID END \
         FROM temp.DataflyTuple d JOIN temp.DataflyClass c ON {on} WHERE {key});\n\
         COMMIT;"
    ))?;
    let suppressed: i64 = store.value(
        "SELECT COALESCE(SUM(Size), 0) FROM temp.DataflyClass WHERE Size < ?1",
        [k as i64],
    )?;
    store.insert_suppression_class(suppression_id, encoding, suppressed as u64)?;
    store.exec("DROP TABLE temp.DataflyClass; DROP TABLE temp.DataflyTuple;")?;
    bar.finish();

    let (kept, suppressed_records) = store.class_summary()?;
    let mut extra = serde_json::Map::new();
    extra.insert("generalized".into(), serde_json::json!(steps));
    Ok(Outcome {
        transformation: Some(levels),
        metric: None,
        information_loss: None,
        suppression_limit: Some(threshold),
        suppressed_records,
        equivalence_classes: kept,
        transformations_checked: None,
        extra,
        checked: None,
    })
}
