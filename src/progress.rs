//! Progress bars for the long phases (load, search, write), on stderr.
//!
//! Shown only when stderr is a terminal and the job is not `-quiet`; otherwise every call is a
//! no-op, so callers never branch on it. Hot loops call [`Bar::tick`] with their counters; it
//! redraws at most every [`TICK_ROWS`] rows, so the cost per row is one comparison.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Rows between two updates of a bar.
pub const TICK_ROWS: u64 = 1 << 16;

/// Decides whether bars are drawn, and makes them.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    enabled: bool,
}

impl Progress {
    /// Bars on a terminal unless `quiet`.
    pub fn new(quiet: bool) -> Progress {
        Progress {
            enabled: !quiet && std::io::stderr().is_terminal(),
        }
    }

    /// Never draws (tests, library use).
    pub fn hidden() -> Progress {
        Progress { enabled: false }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    fn make(&self, kind: Kind, len: Option<u64>, template: &str) -> Bar {
        let bar = self.enabled.then(|| {
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

    /// A spinner with a message (phases without a known length).
    pub fn spinner(&self, phase: &str) -> Bar {
        self.make(
            Kind::Spinner,
            None,
            &format!("{phase:>6} {{spinner}} {{msg}} ({{elapsed}})"),
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bytes,
    Rows,
    Spinner,
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
            Kind::Spinner => {}
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
