//! The run of Mondrian over hierarchies: the frequency set from the job's engine (as the
//! lattice searches load it), the partition of its distinct tuples
//! ([`crate::algorithms::mondrian::hierarchical`]), each class's labels, and the genVals output
//! from them ([`PartitionLabels`]), written by the engine (another engine rewrites each record
//! by its tuple's class, [`Rewrite::of_classes`]). With `-db` the records and classes also go
//! into a kept database, so that it reads like the toolbox's Mondrian's.

use std::time::Instant;

use super::ran::{check_records, warn_skipped, Ran};
use crate::algorithms::mondrian::hierarchical::{self, Partition};
use crate::algorithms::{Details, Outcome};
use crate::data::load::{Encoding, LoadSummary};
use crate::data::EncodedTable;
use crate::engine::{Rewrite, Rows};
use crate::io::Publication;
use crate::job::Job;
use crate::output::{Elapsed, PartitionLabels};
use crate::progress::Progress;
use crate::release::Release;
use crate::store::Store;
use crate::Result;

/// Loads, partitions and writes (staged in `publication`).
pub fn run(
    job: &Job,
    publication: &Publication,
    progress: &Progress,
    started: Instant,
) -> Result<Ran> {
    let mut store = match &job.db {
        Some(db) => {
            let store = Store::open(Some(db), publication)?;
            store.record_run(&job.run_record())?;
            Some(store)
        }
        None => None,
    };
    let mut rows = Rows::new(job, publication)?;
    let (table, encoding, summary) = rows.load(job, &mut progress.load())?;
    warn_skipped(job, &summary);
    check_records(job, summary.records())?;
    let t_load = started.elapsed().as_secs_f64();

    let mut steps = progress.steps();
    crate::algorithms::StepObserver::start(&mut steps, "Mondrian over hierarchies");
    let partition = hierarchical::partition(&table, &job.mondrian_hierarchical())?;
    crate::algorithms::StepObserver::finish(&mut steps);
    let width = table.width();
    let mut labels = Vec::with_capacity(partition.classes.len() * width);
    for c in 0..partition.classes.len() {
        for (j, q) in encoding.qids.iter().enumerate() {
            labels.push(partition.label(&table, c, j, &q.suppressed));
        }
    }
    let sizes: Vec<u64> = partition.classes.iter().map(|c| c.size).collect();
    let release = Release::of_partition(
        job,
        &table,
        &partition.tuple_class,
        &sizes,
        &labels,
        partition.ncp,
    );
    let t_search = started.elapsed().as_secs_f64();
    if let Some(store) = &mut store {
        keep(job, store, &table, &encoding, &summary, &partition, &labels)?;
    }
    let mut source = PartitionLabels {
        table: &table,
        tuple_class: &partition.tuple_class,
        labels: &labels,
    };
    // genVals only (the config refuses the other formats), as text or columnar.
    rows.write(
        job,
        publication,
        summary.records(),
        &mut source,
        |labels| Rewrite::of_classes(&table, labels),
        &encoding,
        progress,
    )?;
    let t_total = started.elapsed().as_secs_f64();
    let outcome = Outcome {
        equivalence_classes: partition.classes.len() as u64,
        suppression_limit: Some(0),
        details: Details::MondrianHierarchies {
            partitioning: job.partitioning.name(),
            labels: job.labels.name(),
            attributes: job
                .qids
                .iter()
                .zip(&partition.numeric)
                .zip(&partition.ncp_by_attribute)
                .map(|((q, &numeric), &ncp)| (q.name.clone(), numeric, ncp))
                .collect(),
        },
        ..Outcome::default()
    };
    let elapsed = Elapsed::of_marks(t_load, t_search, t_total);
    Ok(Ran::new(
        job,
        (&summary, &encoding),
        &outcome,
        release,
        elapsed,
        None,
        store,
    ))
}

/// Fills a kept database: the records ([`Store::load_table`]), the classes with their labels,
/// each tuple's class (tuples in the store's key order: by codes), each record's.
fn keep(
    job: &Job,
    store: &mut Store,
    table: &EncodedTable,
    encoding: &Encoding,
    summary: &LoadSummary,
    partition: &Partition,
    labels: &[String],
) -> Result<()> {
    store.load_table(&job.source()?, table, encoding, summary)?;
    let width = table.width();
    let tx = store.begin()?;
    for (c, class) in partition.classes.iter().enumerate() {
        let refs: Vec<&str> = labels[c * width..(c + 1) * width]
            .iter()
            .map(String::as_str)
            .collect();
        tx.insert_class(c as i64 + 1, &refs, class.size, false)?;
    }
    tx.commit()?;
    // The store holds the tuples of released records only.
    let mut released = vec![false; table.tuples()];
    for r in (0..table.rows()).filter(|&r| table.is_released(r)) {
        released[table.tuple_of(r)] = true;
    }
    let mut order: Vec<u32> = (0..table.tuples() as u32)
        .filter(|&t| released[t as usize])
        .collect();
    order.sort_by_cached_key(|&t| table.tuple(t as usize).collect::<Vec<u32>>());
    let classes: Vec<u32> = order
        .iter()
        .map(|&t| partition.tuple_class[t as usize] + 1)
        .collect();
    store.write_tuple_classes(&classes)?;
    store.check_classes(table.records() as u64)?;
    store.assign_records()
}
