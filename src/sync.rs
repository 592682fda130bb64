//! What the threads of one search share for waiting and locking: the lookahead worker
//! (`algorithms::lookahead`) and the helpers of a team (`check::team`) wait for work by
//! spinning, then yielding, and park only after [`PARK_AFTER`] without any ([`Idle`]); a
//! request unparks them. Handing work to a parked thread took 30-80 µs on the benchmark
//! machine, to a spinning one about a microsecond.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Idle time after which a waiting thread parks instead of spinning. Long enough that a search
/// of a few milliseconds never parks it: with 2 ms, such searches (ADULT without suppression,
/// where nothing is guessed) waited about 0.1 ms at their end for the parked worker to wake and
/// end.
pub const PARK_AFTER: Duration = Duration::from_millis(20);

/// Spins of a waiting thread before it yields the core.
const SPINS: u32 = 1 << 12;

/// Spins a while, then yields the core.
pub fn backoff(spins: &mut u32) {
    if *spins < SPINS {
        *spins += 1;
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// A thread waiting for work: spins, yields, and parks once idle for [`PARK_AFTER`].
pub struct Idle {
    spins: u32,
    since: Instant,
}

impl Idle {
    /// Idle from now.
    pub fn new() -> Idle {
        Idle {
            spins: 0,
            since: Instant::now(),
        }
    }

    /// Waits a little: one step of spinning, yielding or parking.
    pub fn wait(&mut self) {
        if self.spins < SPINS {
            backoff(&mut self.spins);
        } else if self.since.elapsed() < PARK_AFTER {
            std::thread::yield_now();
        } else {
            std::thread::park_timeout(PARK_AFTER);
        }
    }
}

impl Default for Idle {
    fn default() -> Idle {
        Idle::new()
    }
}

/// Locks `m`, also when a thread panicked while holding it (its data stays usable: a panic is
/// raised again by whoever waits for that thread).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `m`'s value, through exclusive access (poisoned or not, as [`lock`]).
pub fn get_mut<T>(m: &mut Mutex<T>) -> &mut T {
    m.get_mut().unwrap_or_else(|e| e.into_inner())
}

/// `m`'s value, taken out (poisoned or not, as [`lock`]).
pub fn into_inner<T>(m: Mutex<T>) -> T {
    m.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// A flag one thread raises to ask another's work to stop: the library's caller interrupted
/// (Ctrl-C in Python), the search reads it where it reads its clock
/// ([`crate::algorithms::search::Limit`]). Clones share the flag.
#[derive(Debug, Clone, Default)]
pub struct Stop(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Stop {
    /// Asks the work to stop.
    pub fn raise(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// True once raised.
    pub fn raised(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl PartialEq for Stop {
    fn eq(&self, other: &Stop) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Stop {}
