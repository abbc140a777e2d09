//! Locking a mutex shared between threads that also take the GIL.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// Locks a mutex without holding the GIL while waiting: another thread may hold the lock
/// while it waits for the GIL.
pub fn lock<'a, T>(py: Python<'_>, m: &'a Mutex<T>) -> MutexGuard<'a, T> {
    loop {
        if let Some(g) = lock_within(py, m, Duration::from_secs(3600)) {
            return g;
        }
    }
}

/// As `lock`, giving up after `wait` (None): `close()` then breaks the link of a call that
/// holds the lock while it waits on the server.
pub fn lock_within<'a, T>(
    py: Python<'_>,
    m: &'a Mutex<T>,
    wait: Duration,
) -> Option<MutexGuard<'a, T>> {
    let until = Instant::now() + wait;
    loop {
        match m.try_lock() {
            Ok(g) => return Some(g),
            Err(std::sync::TryLockError::Poisoned(p)) => return Some(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if Instant::now() >= until => return None,
            Err(std::sync::TryLockError::WouldBlock) => {
                py.allow_threads(|| std::thread::sleep(Duration::from_micros(50)))
            }
        }
    }
}
