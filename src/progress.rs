//! Progress bars for the long phases (load, search, write), on stderr.
//!
//! Shown only when stderr is a terminal and the job is not `-quiet`; otherwise every call is a
//! no-op, so callers never branch on it. Hot loops call [`Bar::tick`] with their counters; it
//! redraws at most every [`TICK_ROWS`] rows, so the cost per row is one comparison.
//!
//! The engine knows nothing of terminals: it tells observers what it does, and the bars here
//! are those observers. A load is followed by a [`LoadBar`] ([`crate::data::load::LoadObserver`]:
//! bytes and rows read); a toolbox method by a [`StepBar`] ([`StepObserver`]: a spinner with
//! the method's step, a bar with an ETA once the method reports its work, as Incognito does
//! with the lattice's nodes); a lattice search by a [`SearchBar`] ([`SearchObserver`]): the search
//! hands it plain figures; the bar shows checks out of the lattice size (checked + queued for
//! BFS), the best loss so far, the current lower bound and an ETA where one can be estimated
//! ([`search_message`]).
//!
//! A library caller (the Python package) watches instead of drawing: [`Progress::watched`]
//! makes the same bars without a terminal and keeps them in a [`Watch`], which the caller reads
//! from its own thread ([`Watch::now`]: phase, position, length, message) to drive a progress
//! bar of its own. The watch keeps every bar of the run (a handful), so a caller that polls
//! also sees a phase that began and ended between two polls ([`Watch::since`]). The run's
//! threads never call into the caller.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::algorithms::observe::{Phase, SearchObserver, SearchStatus, StepObserver};
use crate::data::load::LoadObserver;

/// Rows between two updates of a bar.
pub const TICK_ROWS: u64 = 1 << 16;

/// Decides whether bars are drawn, and makes them.
#[derive(Debug, Clone)]
pub struct Progress {
    enabled: bool,
    watch: Option<Watch>,
}

/// The bars a watched run made, in order, the last one current (see the module docs); clones
/// share them.
#[derive(Clone, Default)]
pub struct Watch(std::sync::Arc<std::sync::Mutex<Vec<(String, ProgressBar)>>>);

/// What a [`Watch`] reads: the phase (`load`, `search`, `write`), the position and length
/// (bytes for `load`, checks for `search`, rows for `write`; no length for a spinner), and
/// the bar's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub phase: String,
    pub position: u64,
    pub length: Option<u64>,
    pub message: String,
}

impl Watch {
    /// The current bar, if one was made.
    pub fn now(&self) -> Option<Shown> {
        let bars = crate::sync::lock(&self.0);
        bars.last().map(|(phase, bar)| shown(phase, bar))
    }

    /// Every bar from the `first` made on (0 for all), in the order the run made them: those
    /// before the last are over and read as they ended.
    pub fn since(&self, first: usize) -> Vec<Shown> {
        let bars = crate::sync::lock(&self.0);
        bars.iter()
            .skip(first)
            .map(|(phase, bar)| shown(phase, bar))
            .collect()
    }

    fn show(&self, phase: &str, bar: &ProgressBar) {
        crate::sync::lock(&self.0).push((phase.to_string(), bar.clone()));
    }
}

fn shown(phase: &str, bar: &ProgressBar) -> Shown {
    Shown {
        phase: phase.to_string(),
        position: bar.position(),
        length: bar.length(),
        message: bar.message(),
    }
}

impl std::fmt::Debug for Watch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Watch")
    }
}

impl PartialEq for Watch {
    fn eq(&self, other: &Watch) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Progress {
    /// Bars on a terminal unless `quiet`.
    pub fn new(quiet: bool) -> Progress {
        Progress {
            enabled: !quiet && std::io::stderr().is_terminal(),
            watch: None,
        }
    }

    /// Never draws (tests, library use).
    pub fn hidden() -> Progress {
        Progress {
            enabled: false,
            watch: None,
        }
    }

    /// Draws nothing, keeps the current bar in `watch` (see the module docs).
    pub fn watched(watch: Watch) -> Progress {
        Progress {
            enabled: true,
            watch: Some(watch),
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    fn make(&self, kind: Kind, len: Option<u64>, template: &str) -> Bar {
        let bar = self.enabled.then(|| {
            if let Some(watch) = &self.watch {
                let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::hidden());
                let phase = template.split_whitespace().next().unwrap_or("");
                watch.show(phase, &bar);
                return bar;
            }
            let bar = match len {
                Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            };
            bar.set_style(
                ProgressStyle::with_template(template)
                    .expect("valid progress template")
                    .progress_chars("=> "),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Bar {
            bar,
            kind,
            started: Instant::now(),
            next: TICK_ROWS,
        }
    }

    /// A bar over the bytes of an input file, with rows and rows/s in its message.
    pub fn bytes(&self, phase: &str, total_bytes: u64) -> Bar {
        let bar = self.make(
            Kind::Bytes,
            Some(total_bytes),
            &format!("{phase:>6} [{{bar:30}}] {{percent:>3}}% {{msg}} ({{elapsed}})"),
        );
        bar.set_message("0 rows");
        bar
    }

    /// A bar over a known number of rows, with rows/s.
    pub fn rows(&self, phase: &str, total_rows: u64) -> Bar {
        self.make(
            Kind::Rows,
            Some(total_rows),
            &format!(
                "{phase:>6} [{{bar:30}}] {{human_pos}}/{{human_len}} rows, {{msg}} ({{elapsed}})"
            ),
        )
    }

    /// The bar of a lattice search, as the search's observer; `None` when bars are off (then
    /// the search has no observer and no cost).
    pub fn search(&self) -> Option<SearchBar> {
        let mut bar = self.make(
            Kind::Spinner,
            Some(1),
            "search [{bar:20}] {msg} ({elapsed})",
        );
        bar.bar.take().map(|bar| SearchBar { bar })
    }

    /// A spinner with a message (phases without a known length).
    pub fn spinner(&self, phase: &str) -> Bar {
        self.make(
            Kind::Spinner,
            None,
            &format!("{phase:>6} {{spinner}} {{msg}} ({{elapsed}})"),
        )
    }

    /// The bar of a load, as its observer: a [`Progress::bytes`] bar over the input, from the
    /// moment the load starts reading.
    pub fn load(&self) -> LoadBar {
        LoadBar {
            progress: self.clone(),
            bar: None,
        }
    }

    /// The spinner of a toolbox method's search, as its observer: it shows from the moment the
    /// method starts its search, with the method's step as its message.
    pub fn steps(&self) -> StepBar {
        StepBar {
            progress: self.clone(),
            bar: None,
        }
    }
}

/// A load's bar (see [`Progress::load`]). Cleared when the load finishes, or when dropped.
pub struct LoadBar {
    progress: Progress,
    bar: Option<Bar>,
}

impl LoadObserver for LoadBar {
    fn start(&mut self, bytes: u64) {
        self.bar = Some(self.progress.bytes("load", bytes));
    }

    fn read(&mut self, bytes: u64, rows: u64) {
        if let Some(bar) = &mut self.bar {
            bar.tick(bytes, rows);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// A toolbox method's spinner (see [`Progress::steps`]). Cleared when the method finishes, or
/// when dropped.
pub struct StepBar {
    progress: Progress,
    bar: Option<Bar>,
}

impl StepObserver for StepBar {
    fn start(&mut self, step: &str) {
        let bar = self.progress.spinner("search");
        bar.set_message(step);
        self.bar = Some(bar);
    }

    /// The first report of work turns the spinner into a bar over it, with an ETA.
    fn work(&mut self, done: u64, total: u64) {
        let Some(bar) = &mut self.bar else { return };
        if bar.kind == Kind::Spinner {
            let msg = bar.bar.as_ref().map(|b| b.message()).unwrap_or_default();
            bar.finish();
            *bar = self.progress.make(
                Kind::Work,
                Some(total.max(1)),
                "search [{bar:20}] {human_pos}/{human_len} nodes, ETA {eta} {msg}",
            );
            bar.set_message(msg);
        }
        if let Some(b) = &bar.bar {
            b.set_length(total.max(1));
            b.set_position(done);
        }
    }

    fn step(&mut self, step: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(step);
        }
    }

    fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bytes,
    Rows,
    Spinner,
    /// Units of a method's work ([`StepObserver::work`]).
    Work,
}

/// One phase's bar (or nothing). Cleared when finished or dropped.
pub struct Bar {
    bar: Option<ProgressBar>,
    kind: Kind,
    started: Instant,
    next: u64,
}

impl Bar {
    /// Reports `rows` rows done (and, for a bytes bar, `pos` bytes). Cheap between ticks.
    #[inline]
    pub fn tick(&mut self, pos: u64, rows: u64) {
        if rows >= self.next {
            self.next = rows + TICK_ROWS;
            self.redraw(pos, rows);
        }
    }

    #[cold]
    fn redraw(&self, pos: u64, rows: u64) {
        let Some(bar) = &self.bar else { return };
        match self.kind {
            Kind::Bytes => {
                bar.set_position(pos);
                bar.set_message(format!(
                    "{} rows, {}",
                    indicatif::HumanCount(rows),
                    self.rate(rows)
                ));
            }
            Kind::Rows => {
                bar.set_position(rows);
                bar.set_message(self.rate(rows));
            }
            Kind::Spinner | Kind::Work => {}
        }
    }

    fn rate(&self, rows: u64) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        format!(
            "{} rows/s",
            indicatif::HumanCount((rows as f64 / secs) as u64)
        )
    }

    /// Sets the message (spinners).
    pub fn set_message(&self, msg: impl Into<String>) {
        if let Some(bar) = &self.bar {
            bar.set_message(msg.into());
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.finish();
    }
}

/// A lattice search's bar (see [`Progress::search`]). Cleared when dropped.
pub struct SearchBar {
    bar: ProgressBar,
}

impl SearchObserver for SearchBar {
    fn update(&mut self, status: &SearchStatus) {
        let (pos, len) = match status.queued {
            Some(q) => (status.checks, status.checks + q),
            None => (status.checks, status.lattice_size),
        };
        self.bar.set_length(len.max(1));
        self.bar.set_position(pos);
        self.bar.set_message(search_message(status));
    }
}

impl Drop for SearchBar {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The text of a search's bar: checks out of the lattice size (BFS: and its queue), the
/// final phase's candidates, the best loss so far, the lower bound, the ETA where known.
pub fn search_message(s: &SearchStatus) -> String {
    let mut parts = vec![match s.queued {
        Some(q) => format!(
            "{} checks, {} queued",
            indicatif::HumanCount(s.checks),
            indicatif::HumanCount(q)
        ),
        None => format!(
            "{}/{} checks",
            indicatif::HumanCount(s.checks),
            indicatif::HumanCount(s.lattice_size)
        ),
    }];
    if let (Phase::Final, Some((done, total))) = (s.phase, s.work) {
        parts.push(format!(
            "final phase {}/{}",
            indicatif::HumanCount(done),
            indicatif::HumanCount(total)
        ));
    }
    parts.push(match s.best_loss {
        Some(loss) => format!("best {}", short(loss)),
        None => "nothing valid yet".into(),
    });
    if let Some(bound) = s.lower_bound {
        parts.push(format!("bound {}", short(bound)));
    }
    if let Some(eta) = s.eta().filter(|_| !s.finished) {
        parts.push(format!("ETA {}", indicatif::HumanDuration(eta)));
    }
    parts.join(", ")
}

/// A loss in a few digits.
fn short(x: f64) -> String {
    if x.abs() >= 1e4 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_message_shows_checks_best_bound_and_eta() {
        let mut s = SearchStatus {
            phase: Phase::Classify,
            checks: 1234,
            lattice_size: 4320,
            queued: None,
            best_loss: None,
            lower_bound: None,
            work: None,
            elapsed: Duration::from_secs(3),
            phase_elapsed: Duration::from_secs(3),
            time_left: None,
            finished: false,
        };
        assert_eq!(search_message(&s), "1,234/4,320 checks, nothing valid yet");
        s.best_loss = Some(0.31371);
        s.phase = Phase::Final;
        s.work = Some((10, 40));
        s.lower_bound = Some(0.3);
        assert_eq!(
            search_message(&s),
            "1,234/4,320 checks, final phase 10/40, best 0.3137, bound 0.3000, ETA 9 seconds"
        );
        s = SearchStatus {
            phase: Phase::BestFirst,
            queued: Some(56),
            work: None,
            best_loss: Some(123456.0),
            lower_bound: Some(120000.0),
            time_left: Some(Duration::from_secs(2)),
            ..s
        };
        assert_eq!(
            search_message(&s),
            "1,234 checks, 56 queued, best 123456, bound 120000, ETA 2 seconds"
        );
    }
}
