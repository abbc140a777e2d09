//! Turns at the GIL between fastodbc's own threads.
//!
//! A thread coming back from a driver call needs the GIL again. CPython hands it over when
//! its holder releases it, or once the waiter has asked for it and waited
//! `sys.getswitchinterval()` (5 ms). A thread converting a long result holds the GIL from one
//! block to the next, so another thread's `SELECT 1` (execute, describe, fetch: three returns)
//! waited up to 5 ms at each return: the GIL convoy. So a thread returning from a driver call
//! is counted while it waits for the GIL (`detached`), and a thread converting rows gives the
//! GIL up while one is counted (`yield_to_returning`): a relaxed load per row when none is.
//! Threads outside fastodbc are not counted; for them CPython's interval stands. Nor is a
//! thread polling a lock another fastodbc thread holds (`lock.rs`): that thread may be the one
//! converting, and each of its polls would stop it.
//!
//! A free-threaded CPython has no GIL to wait for: there nothing is counted and no thread
//! yields; driver calls are still made detached, so a stop-the-world pause (its collector)
//! never waits for one.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use crate::FREE_THREADED;

/// fastodbc threads back from a driver call, waiting for the GIL.
static RETURNING: AtomicUsize = AtomicUsize::new(0);

/// How long a converting thread stays off the GIL for returning threads, at most: each takes
/// it within microseconds of its release; the bound only covers a counted thread that is slow
/// to be scheduled.
const YIELD_FOR: Duration = Duration::from_millis(1);

/// `f()` with the GIL released (a driver call), counted as returning from the moment it ends
/// until this thread holds the GIL again.
pub fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> T + Send) -> T {
    if FREE_THREADED {
        return py.allow_threads(f);
    }
    let out = py.allow_threads(|| {
        let out = f();
        RETURNING.fetch_add(1, Ordering::Relaxed);
        out
    });
    RETURNING.fetch_sub(1, Ordering::Relaxed);
    out
}

/// A fastodbc thread is back from the driver and waits for the GIL (never, without a GIL).
#[inline]
pub fn others_returning() -> bool {
    RETURNING.load(Ordering::Relaxed) != 0
}

/// For a thread holding the GIL through a long conversion: if a fastodbc thread is back from
/// the driver and waits for the GIL, release it until that thread has taken it (or
/// `YIELD_FOR` has passed).
#[inline]
pub fn yield_to_returning(py: Python<'_>) {
    if !others_returning() {
        return;
    }
    py.allow_threads(|| {
        let until = Instant::now() + YIELD_FOR;
        while RETURNING.load(Ordering::Relaxed) > 0 && Instant::now() < until {
            std::thread::yield_now();
        }
    });
}
