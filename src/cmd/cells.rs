//! The run of a lattice search with cell suppression (`-suppress cells`): the input in memory,
//! the search as with record suppression ([`algorithms::run_lattice`]), then the cells of the
//! records it would suppress blanked instead ([`algorithms::cells`]), and the genVals output
//! from the classes that makes ([`CellLabels`]). The report adds `cell_suppression`: cells
//! blanked per attribute, records touched, and records suppressed (those left fully blank).

use std::time::Instant;

use serde_json::json;

use super::ran::{load_in_memory, Ran};
use crate::algorithms::{self, cells};
use crate::io::Publication;
use crate::job::Job;
use crate::metrics::Utility;
use crate::output::{CellLabels, Elapsed};
use crate::progress::Progress;
use crate::release::Release;
use crate::Result;

/// Loads, searches, blanks and writes (staged in `publication`).
pub fn run(
    job: &Job,
    publication: &Publication,
    progress: &Progress,
    started: Instant,
) -> Result<Ran> {
    let (table, encoding, summary, t_load) = load_in_memory(job, progress, started)?;

    let bar = progress
        .search()
        .map(|b| Box::new(b) as Box<dyn algorithms::SearchObserver>);
    let (mut outcome, chosen) = algorithms::run_lattice(&job.lattice(), &table, bar)?;
    super::ran::warn_unproven(job, &outcome);
    let blank: Vec<String> = encoding.qids.iter().map(|q| q.suppressed.clone()).collect();
    let release = cells::suppress(
        &table,
        &chosen.levels,
        &chosen.suppressed,
        &job.cells(&blank),
    )?;
    let t_search = started.elapsed().as_secs_f64();

    let width = table.width();
    let mut labels = Vec::with_capacity(release.classes() * width);
    for c in 0..release.classes() {
        for q in 0..width {
            labels.push(
                release
                    .label(&table, &chosen.levels, &blank, c, q)
                    .to_string(),
            );
        }
    }
    let mut figures = Release::of_classes(job, &table, &release.sizes, &labels, None, None);
    figures.utility =
        Utility::of_classes(release.sizes.iter().copied(), release.records_suppressed);
    for (a, &level) in figures.attributes.iter_mut().zip(&chosen.levels) {
        a.level = Some(level);
    }
    figures.sensitive =
        crate::release::sensitive_of_classes(job, &table, &release.tuple_class, cells::SUPPRESSED);
    let mut source = CellLabels {
        table: &table,
        tuple_class: &release.tuple_class,
        labels: &labels,
        suppression_labels: &blank,
    };
    crate::output::genvals::write_release(
        publication,
        job,
        summary.records(),
        &mut source,
        progress,
    )?;
    let t_total = started.elapsed().as_secs_f64();

    outcome.suppressed_records = release.records_suppressed;
    outcome.equivalence_classes = release.classes() as u64;
    let checked = outcome.checked.take();
    let mut ran = Ran::new(
        job,
        (&summary, &encoding),
        &outcome,
        figures,
        Elapsed::of_marks(t_load, t_search, t_total),
        checked,
        None,
    );
    ran.report
        .extra
        .insert("cell_suppression".into(), report(job, &release));
    Ok(ran)
}

/// The report's `cell_suppression`.
fn report(job: &Job, release: &cells::CellRelease) -> serde_json::Value {
    let name = |q: usize| job.qids[q].name.clone();
    json!({
        "blank_order": release.order.iter().map(|&q| name(q)).collect::<Vec<_>>(),
        "cells_suppressed": release.total_cells(),
        "cells_by_attribute": release
            .cells
            .iter()
            .enumerate()
            .map(|(q, &n)| json!({
                "attribute": name(q),
                "cells": n,
                "importance": job.importance.get(q).copied().flatten(),
            }))
            .collect::<Vec<_>>(),
        "records_touched": release.records_touched,
        "records_suppressed": release.records_suppressed,
        "records_record_suppression": release.records_failing,
    })
}
