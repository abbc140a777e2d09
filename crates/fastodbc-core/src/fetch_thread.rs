//! The threads that fetch blocks ahead of the consumer (`ReadAhead`).
//!
//! A thread spawned for each block starts late: Linux queues a new thread on its parent's
//! core, and while the parent (the consumer, converting the current block) stays busy, the
//! new thread waits for the load balancer. On the 2-vCPU benchmark machine that took
//! 0.6-0.9 ms a block, as long as converting a block, so the fetch barely overlapped: 0.22 s
//! of PostgreSQL's 0.86 s int10 fetchall went to it. A parked thread woken through a channel
//! is placed on the idle core and runs within ~25 µs. So finished threads park here and take
//! the next fetch; one idle for `IDLE_EXIT` leaves. A forked child starts threads of its own.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

type Job = Box<dyn FnOnce() + Send>;

/// How long a parked thread waits for another fetch before it leaves: long enough to span
/// the gaps between the fetch calls of one result (Python code between `fetchmany` calls).
const IDLE_EXIT: Duration = Duration::from_secs(2);

/// A parked thread: the channel it takes its next job from.
struct Parked {
    id: u64,
    jobs: Sender<Job>,
}

/// A set of fetch threads: the process has one (`run`); tests make their own.
pub struct FetchThreads {
    /// The parked threads of the process `pid`.
    parked: Mutex<Vec<Parked>>,
    /// The process the list belongs to. A forked child inherits the list but not its threads,
    /// and maybe the lock held by one of them: see `parked`.
    pid: AtomicU32,
    /// How long a parked thread waits for another job before it leaves.
    idle_exit: Duration,
    /// Threads started so far.
    started: AtomicU64,
}

static FETCH_THREADS: FetchThreads = FetchThreads::new(IDLE_EXIT);

/// Runs `job` on one of the process's fetch threads (`FetchThreads::run`).
pub fn run<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> Pending<T> {
    FETCH_THREADS.run(job)
}

/// The outcome of a job running on a fetch thread.
pub struct Pending<T> {
    outcome: Receiver<T>,
    done: Option<T>,
}

impl<T> Pending<T> {
    /// The job has finished (its outcome is kept for `wait`).
    pub fn is_finished(&mut self) -> bool {
        if self.done.is_none() {
            match self.outcome.try_recv() {
                Ok(v) => self.done = Some(v),
                Err(TryRecvError::Empty) => return false,
                // The job panicked: `wait` reports it.
                Err(TryRecvError::Disconnected) => {}
            }
        }
        true
    }

    /// Waits for the job's outcome; `None` if it panicked.
    pub fn wait(self) -> Option<T> {
        match self.done {
            Some(v) => Some(v),
            None => self.outcome.recv().ok(),
        }
    }
}

impl FetchThreads {
    pub const fn new(idle_exit: Duration) -> FetchThreads {
        FetchThreads {
            parked: Mutex::new(Vec::new()),
            pid: AtomicU32::new(0),
            idle_exit,
            started: AtomicU64::new(0),
        }
    }

    /// The parked threads of this process; `None` when the list cannot be had. A poisoned
    /// lock only means a panic elsewhere: every change to the list is one push, pop or remove.
    fn parked(&self) -> Option<MutexGuard<'_, Vec<Parked>>> {
        let pid = std::process::id();
        if self.pid.load(Ordering::Acquire) == pid {
            return Some(self.parked.lock().unwrap_or_else(|p| p.into_inner()));
        }
        // The first use, or the first in a forked child. The child's copy of the lock may be
        // held for good (by a thread of the parent, which does not exist here): then this
        // process parks no threads, each fetch starting one. Otherwise the parent's threads
        // are forgotten, leaking their channels, whose other ends never ran here.
        let mut parked = match self.parked.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => return None,
        };
        std::mem::forget(std::mem::take(&mut *parked));
        self.pid.store(pid, Ordering::Release);
        Some(parked)
    }

    /// Threads parked now.
    pub fn parked_count(&self) -> usize {
        self.parked().map_or(0, |p| p.len())
    }

    /// Threads started so far.
    pub fn started(&self) -> u64 {
        self.started.load(Ordering::Relaxed)
    }

    /// Runs `job` on a parked thread, or a new one when none is parked. When no thread can be
    /// started, `job` runs here and now.
    pub fn run<T: Send + 'static>(
        &'static self,
        job: impl FnOnce() -> T + Send + 'static,
    ) -> Pending<T> {
        let (tx, outcome) = mpsc::sync_channel(1);
        let mut job: Job = Box::new(move || {
            // The consumer may have stopped waiting (it panicked): nothing to do then.
            let _ = tx.send(job());
        });
        loop {
            let parked = self.parked().and_then(|mut p| p.pop());
            let Some(thread) = parked else { break };
            // A parked thread leaves only after taking itself off the list, so this send
            // cannot fail; if it did, the job would come back and go to the next one.
            match thread.jobs.send(job) {
                Ok(()) => {
                    return Pending {
                        outcome,
                        done: None,
                    }
                }
                Err(mpsc::SendError(back)) => job = back,
            }
        }
        let (jobs, inbox) = mpsc::channel();
        let own = jobs.clone();
        let id = self.started.fetch_add(1, Ordering::Relaxed);
        let started = std::thread::Builder::new()
            .name("fastodbc-fetch".into())
            .spawn(move || self.serve(id, own, inbox));
        if started.is_ok() {
            // The new thread holds the receiver: the send cannot fail.
            match jobs.send(job) {
                Ok(()) => {
                    return Pending {
                        outcome,
                        done: None,
                    }
                }
                Err(mpsc::SendError(back)) => job = back,
            }
        }
        job();
        Pending {
            outcome,
            done: None,
        }
    }

    /// A fetch thread's life: run a job, park, repeat; leave after `idle_exit` parked, or at
    /// once when it cannot park. `own` is the sender of `inbox`, put in the list each time the
    /// thread parks.
    fn serve(&self, id: u64, own: Sender<Job>, inbox: Receiver<Job>) {
        loop {
            match inbox.recv_timeout(self.idle_exit) {
                Ok(job) => {
                    // A panic is the job's to report (its outcome channel closes); the thread
                    // goes on.
                    let _ = catch_unwind(AssertUnwindSafe(job));
                    let Some(mut parked) = self.parked() else {
                        return;
                    };
                    parked.push(Parked {
                        id,
                        jobs: own.clone(),
                    });
                }
                Err(RecvTimeoutError::Timeout) => {
                    let Some(mut parked) = self.parked() else {
                        return;
                    };
                    if let Some(at) = parked.iter().position(|p| p.id == id) {
                        parked.remove(at);
                        return;
                    }
                    // `run` took the thread off the list meanwhile: its job is on its way.
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::ThreadId;

    fn threads(idle_exit_ms: u64) -> &'static FetchThreads {
        Box::leak(Box::new(FetchThreads::new(Duration::from_millis(
            idle_exit_ms,
        ))))
    }

    fn thread_id(threads: &'static FetchThreads) -> ThreadId {
        threads
            .run(|| std::thread::current().id())
            .wait()
            .expect("the job ran")
    }

    /// Runs a job and waits until its thread has parked (`wait` returns as the job's outcome is
    /// sent, a moment before the thread parks); returns that thread.
    fn one_parked(threads: &'static FetchThreads) -> ThreadId {
        let id = thread_id(threads);
        while threads.parked_count() == 0 {
            std::thread::yield_now();
        }
        id
    }

    #[test]
    fn jobs_run_on_a_parked_thread_once_one_finished() {
        let threads = threads(60_000);
        let first = one_parked(threads);
        assert_ne!(first, std::thread::current().id());
        for _ in 0..50 {
            assert_eq!(one_parked(threads), first);
        }
        assert_eq!(threads.started(), 1);
    }

    #[test]
    fn busy_threads_are_not_shared() {
        let threads = threads(60_000);
        let (release, gate) = mpsc::channel::<()>();
        let mut blocked = threads.run(move || gate.recv().is_ok());
        assert!(!blocked.is_finished());
        // The first thread is busy: the second job gets a thread of its own.
        assert_ne!(thread_id(threads), std::thread::current().id());
        assert_eq!(threads.started(), 2);
        release.send(()).expect("the first job waits");
        assert_eq!(blocked.wait(), Some(true));
    }

    #[test]
    fn outcome_is_kept_by_is_finished() {
        let threads = threads(60_000);
        let mut pending = threads.run(|| 42);
        while !pending.is_finished() {
            std::thread::yield_now();
        }
        assert!(pending.is_finished());
        assert_eq!(pending.wait(), Some(42));
    }

    #[test]
    fn a_panicking_job_reports_none_and_the_thread_goes_on() {
        let threads = threads(60_000);
        let mut pending = threads.run(|| -> u32 { panic!("a job's bug") });
        while !pending.is_finished() {
            std::thread::yield_now();
        }
        assert_eq!(pending.wait(), None);
        while threads.parked_count() == 0 {
            std::thread::yield_now();
        }
        assert_eq!(threads.run(|| 7).wait(), Some(7));
        assert_eq!(threads.started(), 1);
    }

    #[test]
    fn idle_threads_leave() {
        let threads = threads(20);
        assert_eq!(threads.run(|| 1).wait(), Some(1));
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while threads.parked_count() > 0 || threads.started() == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "the idle thread stayed"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        // A later job starts a new thread.
        assert_eq!(threads.run(|| 2).wait(), Some(2));
        assert_eq!(threads.started(), 2);
    }

    #[test]
    fn threads_parked_by_another_process_are_forgotten() {
        let threads = threads(60_000);
        one_parked(threads);
        // As after a fork: the list belongs to another process.
        threads.pid.store(0, Ordering::Release);
        assert_eq!(threads.parked_count(), 0);
        assert_eq!(threads.run(|| 3).wait(), Some(3));
        assert_eq!(threads.started(), 2);
    }

    #[test]
    fn a_child_whose_inherited_lock_is_held_parks_nothing() {
        let threads = threads(60_000);
        one_parked(threads);
        // As after a fork while a parent's thread held the lock: it stays held here.
        let held = threads.parked.lock().expect("not poisoned");
        threads.pid.store(0, Ordering::Release);
        for n in 0..3 {
            assert_eq!(threads.run(move || n).wait(), Some(n));
        }
        assert_eq!(threads.started(), 4);
        drop(held);
    }
}
