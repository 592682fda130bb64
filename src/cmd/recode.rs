//! The run of a lattice search with local recoding (`-localRecoding`): the input in memory
//! ([`load_table`]), the optimal global transformation ([`algorithms::run_lattice`]), the
//! suppressed records recoded step by step ([`local_recoding::recode`]), then the release:
//! every distinct tuple printed at its step's levels (or suppressed), tuples that print the same
//! labels forming one class (what a reader sees), every model re-checked on those classes
//! ([`local_recoding::verify`]) before anything is written, and the genVals output from them.
//!
//! The report keeps the run's usual fields for the release (suppressed records, classes, Loss)
//! and adds `local_recoding`: the global optimum before (its transformation, suppressed records,
//! Loss), the release after, and the steps (transformation, records). A locally recoded
//! release has no single transformation, so its Loss is ARX's over each record at its own
//! levels ([`crate::metrics::Loss::of_parts`]) and `transformation` is null.

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{json, Value};

use super::ran::{load_in_memory, Ran};
use crate::algorithms::local_recoding::{self, Recoded, SUPPRESSED};
use crate::algorithms::{self, Outcome};
use crate::data::labels::{LabelRow, LabelSource};
use crate::data::EncodedTable;
use crate::io::Publication;
use crate::job::Job;
use crate::metrics::{MetricKind, Utility};
use crate::output::Elapsed;
use crate::progress::Progress;
use crate::release::Release;
use crate::Result;

/// How the report says the Loss of a locally recoded release is computed.
pub const LOSS_COMPUTED_AS: &str = "ARX's Loss with each record at its own levels: per \
    quasi-identifier the records' domain shares (1 for a suppressed record) summed, normalized \
    from n/|domain| to n and truncated to 10 decimals, then the geometric mean over the \
    quasi-identifiers (1 minus ARX's granularity, aggregated as the Loss metric; for one \
    transformation it is the metric's value)";

/// Loads, searches, recodes locally and writes (staged in `publication`).
pub fn run(
    job: &Job,
    publication: &Publication,
    progress: &Progress,
    started: Instant,
) -> Result<Ran> {
    let (table, encoding, summary, t_load) = load_in_memory(job, progress, started)?;

    let params = job.lattice();
    let bar = progress
        .search()
        .map(|b| Box::new(b) as Box<dyn algorithms::SearchObserver>);
    let (mut global, chosen) = algorithms::run_lattice(&params, &table, bar)?;
    let mut steps = progress.steps();
    algorithms::StepObserver::start(&mut steps, "Local recoding");
    let lr = local_recoding::Params::default();
    let recoded = local_recoding::recode(
        &params,
        &lr,
        &table,
        &chosen,
        global.transformations_checked.unwrap_or(0),
    )?;
    algorithms::StepObserver::finish(&mut steps);

    // Classes: the distinct label tuples of the released tuples, in order of first tuple.
    let width = table.width();
    let mut class_of: HashMap<Vec<String>, u32> = HashMap::new();
    let mut tuple_class = vec![SUPPRESSED; table.tuples()];
    let mut labels: Vec<String> = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    let mut counts = vec![0u64; table.tuples()];
    for r in 0..table.rows() {
        counts[table.tuple_of(r)] += 1;
    }
    for (t, &count) in counts.iter().enumerate() {
        let Some(levels) = recoded.levels_of(t) else {
            continue;
        };
        let tuple: Vec<String> = table
            .tuple(t)
            .zip(&table.hierarchies)
            .zip(levels)
            .map(|((code, h), &l)| h.label(l, h.get(code, l)).to_string())
            .collect();
        let next = sizes.len() as u32;
        let c = *class_of.entry(tuple.clone()).or_insert(next);
        if c == next {
            labels.extend(tuple);
            sizes.push(0);
        }
        sizes[c as usize] += count;
        tuple_class[t] = c;
    }
    drop(class_of);
    local_recoding::verify(&params, &table, &tuple_class, sizes.len())?;

    let mut release = Release::of_classes(job, &table, &sizes, &labels, None, None);
    release.utility = Utility::of_classes(sizes.iter().copied(), recoded.suppressed_after);
    release.utility.loss = Some(recoded.loss_after.0);
    release.sensitive = crate::release::sensitive_of_classes(job, &table, &tuple_class, u32::MAX);
    let t_search = started.elapsed().as_secs_f64();

    let suppression: Vec<&str> = encoding
        .qids
        .iter()
        .map(|q| q.suppressed.as_str())
        .collect();
    let mut source = RecodedLabels {
        table: &table,
        tuple_class: &tuple_class,
        labels: &labels,
        suppression: &suppression,
        width,
    };
    crate::output::genvals::write_release(
        publication,
        job,
        summary.records(),
        &mut source,
        progress,
    )?;
    let t_total = started.elapsed().as_secs_f64();

    let before = json!({
        "transformation": chosen.levels,
        "suppressed_records": recoded.suppressed_before,
        "equivalence_classes": global.equivalence_classes,
        "loss": recoded.loss_before.0,
        "loss_by_attribute": per_attribute(job, &recoded.loss_before.1),
    });
    let checked = global.checked.take();
    let outcome = Outcome {
        transformation: None,
        metric: Some(job.metric),
        information_loss: (job.metric == MetricKind::Loss).then_some(recoded.loss_after.0),
        suppressed_records: recoded.suppressed_after,
        equivalence_classes: sizes.len() as u64,
        transformations_checked: Some(recoded.steps.iter().map(|s| s.checks).sum()),
        ..global
    };
    let elapsed = Elapsed::of_marks(t_load, t_search, t_total);
    let mut ran = Ran::new(
        job,
        (&summary, &encoding),
        &outcome,
        release,
        elapsed,
        checked,
        None,
    );
    ran.report.extra.insert(
        "local_recoding".into(),
        report(job, &lr, &recoded, before, sizes.len() as u64),
    );
    Ok(ran)
}

/// The report's `local_recoding`: parameters, before, after and the steps.
fn report(
    job: &Job,
    lr: &local_recoding::Params,
    recoded: &Recoded,
    before: Value,
    classes: u64,
) -> Value {
    let steps: Vec<Value> = recoded
        .steps
        .iter()
        .map(|s| {
            json!({
                "transformation": s.levels,
                "records": s.records,
                "searched": s.searched,
                "budget": s.budget,
                "transformations_checked": s.checks,
            })
        })
        .collect();
    let groups: Vec<String> = recoded
        .steps
        .iter()
        .map(|s| {
            let levels: Vec<String> = s.levels.iter().map(usize::to_string).collect();
            format!("{} records at {}", s.records, levels.join(","))
        })
        .collect();
    json!({
        "mode": "iterative (ARX's optimizeIterativeFast)",
        "records_per_step": lr.fraction,
        "gs_factor": lr.gs_factor,
        "before": before,
        "after": {
            "suppressed_records": recoded.suppressed_after,
            "equivalence_classes": classes,
            "loss": recoded.loss_after.0,
            "loss_by_attribute": per_attribute(job, &recoded.loss_after.1),
        },
        "steps": steps,
        "groups": groups,
        "loss_computed_as": LOSS_COMPUTED_AS,
    })
}

fn per_attribute(job: &Job, values: &[f64]) -> Value {
    job.qids
        .iter()
        .zip(values)
        .map(|(q, &v)| (q.name.clone(), json!(v)))
        .collect::<serde_json::Map<String, Value>>()
        .into()
}

/// Labels of a locally recoded release: each record prints its tuple's class's labels, or the
/// suppression labels.
struct RecodedLabels<'a> {
    table: &'a EncodedTable,
    tuple_class: &'a [u32],
    labels: &'a [String],
    suppression: &'a [&'a str],
    width: usize,
}

impl LabelSource for RecodedLabels<'_> {
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        let mut row = LabelRow::new();
        for r in 0..self.table.rows() {
            row.clear();
            match self.tuple_class[self.table.tuple_of(r)] {
                SUPPRESSED => {
                    row.suppress();
                    for l in self.suppression {
                        row.push(l.as_bytes());
                    }
                }
                c => {
                    let c = c as usize;
                    for l in &self.labels[c * self.width..(c + 1) * self.width] {
                        row.push(l.as_bytes());
                    }
                }
            }
            f(&row)?;
        }
        Ok(())
    }
}
