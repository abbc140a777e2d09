//! The watchdog: one thread for the process, started by the first call with a deadline. It
//! sleeps until the earliest deadline of the calls it watches, and gives up on a call past
//! its deadline (`Link::give_up`), again every `RETRY` until the call is over: a thread that
//! was not waiting in a system call yet is caught at the next try.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Condvar, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use super::Link;

const RETRY: Duration = Duration::from_millis(250);

struct Watched {
    at: Instant,
    link: Weak<Link>,
    id: u64,
}

struct Watchdog {
    watched: Mutex<Vec<Watched>>,
    wake: Condvar,
}

static WATCHDOG: OnceLock<Watchdog> = OnceLock::new();
/// The process whose watchdog thread runs: a forked child has none, and starts its own.
static RUNS_IN: AtomicU32 = AtomicU32::new(0);

fn watchdog() -> &'static Watchdog {
    let dog = WATCHDOG.get_or_init(|| Watchdog {
        watched: Mutex::new(Vec::new()),
        wake: Condvar::new(),
    });
    let pid = std::process::id();
    if RUNS_IN.swap(pid, Ordering::AcqRel) != pid {
        // A thread that cannot start leaves calls unwatched, as before the watchdog.
        let _ = std::thread::Builder::new()
            .name("fastodbc-watchdog".into())
            .spawn(move || dog.run());
    }
    dog
}

/// Watches call `id` of `link`: given up at `at` if still running.
pub(super) fn watch(at: Instant, link: Weak<Link>, id: u64) {
    let dog = watchdog();
    dog.watched
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Watched { at, link, id });
    dog.wake.notify_one();
}

impl Watchdog {
    fn run(&self) {
        let mut watched = self.watched.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let now = Instant::now();
            // Calls over, or of links gone, are forgotten; calls past their deadline given up
            // (their link's lock is taken inside this one's, never the other way round).
            watched.retain_mut(|w| {
                let Some(link) = w.link.upgrade() else {
                    return false;
                };
                if w.at > now {
                    return link.has_call(w.id);
                }
                w.at = now + RETRY;
                link.give_up(w.id)
            });
            let next = watched.iter().map(|w| w.at).min();
            watched = match next {
                None => self.wake.wait(watched).unwrap_or_else(|p| p.into_inner()),
                Some(at) => {
                    let wait = at.saturating_duration_since(Instant::now());
                    self.wake
                        .wait_timeout(watched, wait)
                        .unwrap_or_else(|p| p.into_inner())
                        .0
                }
            };
        }
    }
}
