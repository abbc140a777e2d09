//! Locking a mutex shared between threads that also take the GIL.

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;

/// Locks a mutex without holding the GIL while waiting: another thread may hold the lock
/// while it waits for the GIL.
pub fn lock<'a, T>(py: Python<'_>, m: &'a Mutex<T>) -> MutexGuard<'a, T> {
    loop {
        match m.try_lock() {
            Ok(g) => return g,
            Err(std::sync::TryLockError::Poisoned(p)) => return p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                py.allow_threads(|| std::thread::sleep(std::time::Duration::from_micros(50)))
            }
        }
    }
}
