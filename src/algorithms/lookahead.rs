//! Lookahead: a second checker that evaluates, on another core, the transformation a strategy
//! will likely check next, while the search's own checker checks the current one.
//!
//! Flash's checks are mostly the first and only check of a path, so a path's binary search has
//! little to evaluate ahead, but the next path's first check is usually known before the
//! current check ends: it is the middle of the path from the next untagged node, which the
//! current check mostly leaves alone. [`super::Search::guess`] names it; [`super::Search::check`]
//! hands it to the worker before checking its own transformation.
//!
//! Why not a rayon job per guess: a pool thread that had gone to sleep between two checks took
//! so long to start the job that many guesses were still waiting when the search's own check
//! ended, and the search was no faster than on one thread. Here the worker is one long job on
//! the search's rayon pool for the whole classification: between requests it spins, then
//! yields, and only after [`crate::sync::PARK_AFTER`] without a request does it park (a phase
//! without checks); a request unparks it.
//!
//! One request is in flight at a time: the search posts one only when the worker is idle, and
//! waits for the worker only when it needs the very transformation in flight. A queue of three
//! (the worker running further ahead while the search's thread checks a path's second point)
//! was slower: the search then waited for checks the worker had just started. A result is kept
//! aside and recorded only when the strategy checks that transformation, so the order of
//! records, the counts and the optimum are those of one thread (see the `search` module docs).
//! The worker's checker does not see the search's tags: it never drops a snapshot as finished
//! (a matter of memory and speed only; results never depend on the history). The classes of
//! each of its checks go to the search's own checker with the result, as a snapshot offered
//! to its history ([`Checker::adopt`]): without them the search's checker, which no longer
//! sees every path's first check, started from scratch more often. The other way, the snapshots
//! the search's own checks keep are offered to the worker ([`Lookahead::offer`]), which takes
//! them between requests. Both ways the classes are shared (`Arc`), never copied: copying the
//! search's classes for the worker cost its thread more than the worker gained. The figures
//! behind these choices are in `BENCHMARKS.md`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;

use crate::check::{CheckResult, Checker, SharedClasses};
use crate::lattice::NodeId;
use crate::sync::{backoff, lock, Idle};

const IDLE: u8 = 0;
const POSTED: u8 = 1;
const RUNNING: u8 = 2;
const DONE: u8 = 3;

/// A transformation to evaluate: its id, levels and the loss cutoff of the moment.
struct Request {
    id: NodeId,
    levels: Vec<usize>,
    cutoff: Option<f64>,
}

/// The worker's answer: the transformation, its result, and its classes for the search's own
/// history ([`Checker::share_classes`]).
pub type Answer = (NodeId, CheckResult, Option<SharedClasses>);

/// The mailbox between the search's thread and the lookahead worker.
pub struct Lookahead {
    state: AtomicU8,
    closed: AtomicBool,
    request: Mutex<Option<Request>>,
    response: Mutex<Option<Answer>>,
    /// Classes the search's own checks kept, for the worker's history ([`Lookahead::offer`]),
    /// and how many there are.
    offered: Mutex<VecDeque<SharedClasses>>,
    offers: AtomicUsize,
    worker_thread: OnceLock<Thread>,
}

/// Offered classes waiting for the worker; older ones are dropped (the worker, busy with a
/// long check, would take them late, and they are the least likely to serve).
const OFFERED_MAX: usize = 8;

impl Default for Lookahead {
    fn default() -> Self {
        Lookahead::new()
    }
}

impl Lookahead {
    pub fn new() -> Lookahead {
        Lookahead {
            state: AtomicU8::new(IDLE),
            closed: AtomicBool::new(false),
            request: Mutex::new(None),
            response: Mutex::new(None),
            offered: Mutex::new(VecDeque::new()),
            offers: AtomicUsize::new(0),
            worker_thread: OnceLock::new(),
        }
    }

    /// True if the worker has no request (it can take one now).
    pub fn idle(&self) -> bool {
        self.state.load(Ordering::Acquire) == IDLE
    }

    /// Hands `id` at `levels` to the worker; only when [`Lookahead::idle`].
    pub fn post(&self, id: NodeId, levels: Vec<usize>, cutoff: Option<f64>) {
        debug_assert!(self.idle(), "one request in flight at a time");
        *lock(&self.request) = Some(Request { id, levels, cutoff });
        self.state.store(POSTED, Ordering::Release);
        if let Some(t) = self.worker_thread.get() {
            t.unpark();
        }
    }

    /// The worker's result, if it has one. With `wait` (the search needs the transformation
    /// in flight): waits for it if the worker has started it, and otherwise withdraws the
    /// request (the worker may not have started at all: its job waits for a pool thread) and
    /// returns `None`, so that the search checks it itself.
    pub fn take(&self, wait: bool) -> Option<Answer> {
        let mut spins = 0u32;
        loop {
            match self.state.load(Ordering::Acquire) {
                DONE => {
                    let r = lock(&self.response).take();
                    self.state.store(IDLE, Ordering::Release);
                    return r;
                }
                RUNNING if wait => backoff(&mut spins),
                POSTED if wait => {
                    if self.claim(IDLE) {
                        lock(&self.request).take();
                        return None;
                    }
                }
                _ => return None,
            }
        }
    }

    /// Moves a posted request to `to`; false if another thread moved it first.
    fn claim(&self, to: u8) -> bool {
        self.state
            .compare_exchange(POSTED, to, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Offers classes the search's own checker kept ([`Checker::kept`]) to the worker's
    /// history: they are shared, not copied, and the worker takes them between requests.
    pub fn offer(&self, classes: SharedClasses) {
        let mut q = lock(&self.offered);
        if q.len() == OFFERED_MAX {
            q.pop_front();
        }
        q.push_back(classes);
        self.offers.store(q.len(), Ordering::Release);
    }

    /// Gives the offered classes to `checker`'s history.
    fn take_offered(&self, checker: &mut Checker<'_>) {
        if self.offers.load(Ordering::Acquire) == 0 {
            return;
        }
        let offered = {
            let mut q = lock(&self.offered);
            self.offers.store(0, Ordering::Release);
            std::mem::take(&mut *q)
        };
        for c in offered {
            checker.adopt(c, &|_| false);
        }
    }

    /// Ends [`Lookahead::serve`] (after the request it is running, if any; a request it has
    /// not started stays unanswered).
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        if let Some(t) = self.worker_thread.get() {
            t.unpark();
        }
    }

    /// A guard that calls [`Lookahead::close`] when dropped.
    pub fn closer(&self) -> Closer<'_> {
        Closer(self)
    }

    /// The worker's loop: checks each request with `checker` until [`Lookahead::close`].
    pub fn serve(&self, checker: &mut Checker<'_>) {
        let _ = self.worker_thread.set(std::thread::current());
        let mut idle = Idle::new();
        while !self.closed.load(Ordering::Acquire) {
            if !self.claim(RUNNING) {
                self.take_offered(checker);
                idle.wait();
                continue;
            }
            let Some(req) = lock(&self.request).take() else {
                self.state.store(IDLE, Ordering::Release);
                continue;
            };
            // Classes offered since the worker last looked may be the request's nearest.
            self.take_offered(checker);
            checker.set_loss_cutoff(req.cutoff);
            let r = checker.check(&req.levels, &|_| false);
            *lock(&self.response) = Some((req.id, r, checker.share_classes()));
            self.state.store(DONE, Ordering::Release);
            idle = Idle::new();
        }
    }
}

/// Closes its [`Lookahead`] when dropped (at the end of the strategy, or when it panics).
pub struct Closer<'a>(&'a Lookahead);

impl Drop for Closer<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}
