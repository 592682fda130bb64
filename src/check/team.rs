//! A team: the threads one check is split over ([`Team::run`]), for checks of a few thousand
//! items and more, whose parts are short.
//!
//! Why not `rayon::join`: a pool thread that had gone to sleep between two checks took longer to
//! start its half than a split of such a check saves (`BENCHMARKS.md`). Here each helper is
//! one long job on the search's rayon pool for the whole classification ([`Team::serve`],
//! spawned in a scope like the lookahead worker): between tasks it spins, then yields, and
//! parks only after [`crate::sync::PARK_AFTER`] without a task, so handing it a task costs
//! little (figures in `BENCHMARKS.md`).
//!
//! A task is a closure over the check's own borrowed data, called once per part with the part's
//! index: the caller runs part 0, helper `i` part `i + 1`. [`Team::run`] returns only when every
//! part has returned (or panicked: the panic is raised again on the caller), so the closure it
//! lends the helpers outlives every use of it; that is the one `unsafe` of this module. A part
//! a helper has not started by the time the caller's own part ends (its job may still wait for
//! a pool thread) is taken back and run by the caller, so a task never waits for a thread that
//! is busy elsewhere.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;

use crate::sync::{backoff, lock, Idle};

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const RUNNING: u8 = 2;
const DONE: u8 = 3;

/// The task lent to the helpers, its lifetime erased (see the module docs).
type TaskRef = &'static (dyn Fn(usize) + Sync);

/// One helper's mailbox.
struct Slot {
    state: AtomicU8,
    task: Mutex<Option<TaskRef>>,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    thread: OnceLock<Thread>,
}

/// The caller's thread and `helpers` more (see the module docs).
pub struct Team {
    slots: Vec<Slot>,
    closed: AtomicBool,
}

impl Team {
    /// A team of the caller and `helpers` helpers; each helper must be served by a thread
    /// calling [`Team::serve`] with its index (until [`Team::close`]).
    pub fn new(helpers: usize) -> Team {
        Team {
            slots: (0..helpers)
                .map(|_| Slot {
                    state: AtomicU8::new(IDLE),
                    task: Mutex::new(None),
                    panic: Mutex::new(None),
                    thread: OnceLock::new(),
                })
                .collect(),
            closed: AtomicBool::new(false),
        }
    }

    /// Parts a task is cut into: the caller's and one per helper.
    pub fn parts(&self) -> usize {
        self.slots.len() + 1
    }

    /// Calls `task(p)` for every part `p` in `0..parts()`, part 0 on the caller's thread and the
    /// others on the helpers (or on the caller, for a helper that has not started its part by
    /// the time part 0 ends); returns when all have returned.
    pub fn run(&self, task: &(dyn Fn(usize) + Sync)) {
        // SAFETY: the reference is handed to the helpers only until this function returns, and
        // it returns only once no helper holds or runs it: each slot ends IDLE (taken back before
        // a helper claimed it) or DONE (the helper has returned from the task and dropped it).
        let lent: TaskRef =
            unsafe { std::mem::transmute::<&(dyn Fn(usize) + Sync), TaskRef>(task) };
        for slot in &self.slots {
            *lock(&slot.task) = Some(lent);
            slot.state.store(POSTED, Ordering::Release);
            if let Some(t) = slot.thread.get() {
                t.unpark();
            }
        }
        let own = catch_unwind(AssertUnwindSafe(|| task(0)));
        let mut panic = own.err();
        for (i, slot) in self.slots.iter().enumerate() {
            let mut spins = 0u32;
            loop {
                match slot.state.load(Ordering::Acquire) {
                    DONE => break,
                    POSTED => {
                        if claim(&slot.state, POSTED, IDLE) {
                            lock(&slot.task).take();
                            if let Err(p) = catch_unwind(AssertUnwindSafe(|| task(i + 1))) {
                                panic.get_or_insert(p);
                            }
                            break;
                        }
                    }
                    _ => backoff(&mut spins),
                }
            }
            if slot.state.load(Ordering::Acquire) == DONE {
                if let Some(p) = lock(&slot.panic).take() {
                    panic.get_or_insert(p);
                }
                slot.state.store(IDLE, Ordering::Release);
            }
        }
        if let Some(p) = panic {
            resume_unwind(p);
        }
    }

    /// Helper `i`'s loop: runs its part of each task until [`Team::close`].
    pub fn serve(&self, i: usize) {
        let slot = &self.slots[i];
        let _ = slot.thread.set(std::thread::current());
        let mut idle = Idle::new();
        while !self.closed.load(Ordering::Acquire) {
            if !claim(&slot.state, POSTED, RUNNING) {
                idle.wait();
                continue;
            }
            let task = lock(&slot.task).take();
            if let Some(task) = task {
                if let Err(p) = catch_unwind(AssertUnwindSafe(|| task(i + 1))) {
                    *lock(&slot.panic) = Some(p);
                }
            }
            slot.state.store(DONE, Ordering::Release);
            idle = Idle::new();
        }
    }

    /// Ends every [`Team::serve`] (after the part it is running).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        for slot in &self.slots {
            if let Some(t) = slot.thread.get() {
                t.unpark();
            }
        }
    }

    /// A guard that calls [`Team::close`] when dropped.
    pub fn closer(&self) -> Closer<'_> {
        Closer(self)
    }
}

/// Closes its [`Team`] when dropped (at the end of the strategy, or when it panics).
pub struct Closer<'a>(&'a Team);

impl Drop for Closer<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

fn claim(state: &AtomicU8, from: u8, to: u8) -> bool {
    state
        .compare_exchange(from, to, Ordering::AcqRel, Ordering::Acquire)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    fn with_team(helpers: usize, f: impl FnOnce(&Team) + Send) {
        let team = Team::new(helpers);
        std::thread::scope(|s| {
            for i in 0..helpers {
                let team = &team;
                s.spawn(move || team.serve(i));
            }
            let _close = team.closer();
            f(&team);
        });
    }

    #[test]
    fn every_part_runs_once_per_task() {
        with_team(3, |team| {
            for _ in 0..200 {
                let hits: Vec<AtomicUsize> =
                    (0..team.parts()).map(|_| AtomicUsize::new(0)).collect();
                team.run(&|p| {
                    hits[p].fetch_add(1, Ordering::Relaxed);
                });
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
            }
        });
    }

    #[test]
    fn parts_of_helpers_never_started_run_on_the_caller() {
        // No thread serves the team: the caller runs every part itself.
        let team = Team::new(2);
        let hits = AtomicUsize::new(0);
        team.run(&|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(hits.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_helpers_panic_reaches_the_caller() {
        with_team(1, |team| {
            let r = catch_unwind(AssertUnwindSafe(|| {
                team.run(&|p| {
                    if p == 1 {
                        panic!("part 1");
                    }
                })
            }));
            assert!(r.is_err());
            // The team still works afterwards.
            let hits = AtomicUsize::new(0);
            team.run(&|_| {
                hits.fetch_add(1, Ordering::Relaxed);
            });
            assert_eq!(hits.load(Ordering::Relaxed), 2);
        });
    }
}
