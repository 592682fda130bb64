//! The run of MDAV microaggregation ([`crate::algorithms::mdav`]): the input in memory
//! ([`load_table`]), its groups, each group's labels (numbers as means, the rest as modes), and
//! the genVals output from them ([`GroupLabels`]). Groups that publish the same labels form one
//! class of the release (its class sizes and risk are those of the labels a reader sees).

use std::collections::HashMap;
use std::time::Instant;

use super::ran::{load_in_memory, Ran};
use crate::algorithms::mdav;
use crate::algorithms::{Details, Outcome};
use crate::data::labels::{LabelRow, LabelSource};
use crate::data::EncodedTable;
use crate::io::Publication;
use crate::job::Job;
use crate::output::Elapsed;
use crate::progress::Progress;
use crate::release::Release;
use crate::Result;

/// Loads, microaggregates and writes (staged in `publication`).
pub fn run(
    job: &Job,
    publication: &Publication,
    progress: &Progress,
    started: Instant,
) -> Result<Ran> {
    let (table, encoding, summary, t_load) = load_in_memory(job, progress, started)?;

    let mut steps = progress.steps();
    crate::algorithms::StepObserver::start(&mut steps, "MDAV microaggregation");
    let m = mdav::microaggregate(&table, &job.mdav())?;
    crate::algorithms::StepObserver::finish(&mut steps);
    let width = table.width();
    // Classes: the distinct label tuples of the groups, in order of first group.
    let mut class_of_labels: HashMap<Vec<String>, u32> = HashMap::new();
    let mut group_class = Vec::with_capacity(m.sizes.len());
    let mut labels: Vec<String> = Vec::new();
    let mut sizes: Vec<u64> = Vec::new();
    for (g, &size) in m.sizes.iter().enumerate() {
        let tuple: Vec<String> = (0..width)
            .map(|j| category(job, j, m.label(&table, g, j)))
            .collect();
        let next = sizes.len() as u32;
        let c = *class_of_labels.entry(tuple.clone()).or_insert(next);
        if c == next {
            labels.extend(tuple);
            sizes.push(0);
        }
        sizes[c as usize] += size;
        group_class.push(c);
    }
    drop(class_of_labels);
    let release = Release::of_classes(job, &table, &sizes, &labels, None, Some((m.sse, m.il1s)));
    let t_search = started.elapsed().as_secs_f64();
    let mut source = GroupLabels {
        table: &table,
        m: &m,
        group_class: &group_class,
        labels: &labels,
    };
    crate::output::genvals::write_release(
        publication,
        job,
        summary.records(),
        &mut source,
        progress,
    )?;
    let t_total = started.elapsed().as_secs_f64();
    let outcome = Outcome {
        equivalence_classes: sizes.len() as u64,
        suppression_limit: Some(0),
        details: Details::Microaggregation {
            grouping: m.grouping,
            groups: m.sizes.len() as u64,
            sse: m.sse,
            sst: m.sst,
            il1s: m.il1s,
            attributes: job
                .qids
                .iter()
                .zip(&m.numeric)
                .map(|(q, &numeric)| (q.name.clone(), numeric))
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
        None,
    ))
}

/// The category a mode of a `<vgh>` with a category map stands for (its point, `[1.0]`, is the
/// category's code): the value as the input wrote it.
fn category(job: &Job, j: usize, label: String) -> String {
    if let crate::data::Generalization::Vgh(vgh) = &job.qids[j].generalization {
        if let Some(map) = &vgh.map {
            let x = label
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<f64>();
            if let Some((c, _)) = map.entries().iter().find(|(_, i)| Ok(*i as f64) == x) {
                return c.clone();
            }
        }
    }
    label
}

/// Labels of microaggregated records: each record takes the next group of its tuple's
/// (a tuple's records may be split between groups, in table order) and prints the labels of
/// that group's class.
struct GroupLabels<'a> {
    table: &'a EncodedTable,
    m: &'a mdav::Microaggregation,
    group_class: &'a [u32],
    labels: &'a [String],
}

impl LabelSource for GroupLabels<'_> {
    fn for_each_record(&mut self, f: &mut dyn FnMut(&LabelRow) -> Result<()>) -> Result<()> {
        let mut row = LabelRow::new();
        let width = self.table.width();
        // Per tuple: the split it is at and the records that split has already given.
        let mut at: Vec<usize> = self.m.split_start[..self.table.tuples()].to_vec();
        let mut given = vec![0u64; self.table.tuples()];
        for r in 0..self.table.rows() {
            row.clear();
            if !self.table.is_released(r) {
                row.omit();
            } else {
                let t = self.table.tuple_of(r);
                let (g, n) = self.m.splits[at[t]];
                given[t] += 1;
                if given[t] == n {
                    at[t] += 1;
                    given[t] = 0;
                }
                let c = self.group_class[g as usize] as usize;
                for l in &self.labels[c * width..(c + 1) * width] {
                    row.push(l.as_bytes());
                }
            }
            f(&row)?;
        }
        Ok(())
    }
}
