//! A connection's link to its server: the driver calls waiting on it, and the watchdog that
//! gives up on one stuck past its timeout.
//!
//! Through a link that stops forwarding (the server's host gone, its packets dropped, a proxy
//! that keeps the TCP connection open and forwards nothing), a driver call waits on its socket
//! with no bound of its own: psqlODBC's query timeout is the server's `statement_timeout`,
//! MariaDB Connector/ODBC 3.1 ignores it, and TCP-level timeouts never fire while the kernel
//! acknowledges what is sent (docs/driver-quirks.md). So every call that may wait on the
//! server runs through `Link::call`, which records the thread making it. A call with a timeout
//! still running at timeout + `GRACE` is given up by the watchdog thread: the TCP socket that
//! thread waits on is shut down (`blocked::shut_socket`), the driver's poll or recv returns an
//! error and the driver returns; the call fails with HYT00 (HYT01 for a connection timeout).
//!
//! A given-up call, or any call that reported the connection lost (class 08, PostgreSQL's
//! 57P01-57P03), breaks the link: no later call reaches the driver (08S01 at once), except
//! the ones that free its handles (`closing`). psqlODBC may crash when called again on a
//! connection it lost; a link known broken never asks it.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::diagnostics::{DiagRecord, Diagnostics, Error, Result};

mod blocked;
mod watchdog;

/// How long past its timeout a call may run before the watchdog gives up on it: room for the
/// driver's own timeout (psqlODBC: the server's statement_timeout) to answer first.
pub const GRACE: Duration = Duration::from_secs(2);

/// How long a call that frees or ends a connection being closed (SQLCancel, ROLLBACK,
/// SQLDisconnect, a statement's close) may wait on the server: `close()` returns promptly.
pub const CLOSE_BOUND: Duration = Duration::from_secs(2);

/// What a call is, for its timeout and its error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    /// `SQLDriverConnect`: the login timeout.
    Login,
    /// A statement's execution, fetch or catalog call: the query timeout (else the
    /// connection timeout).
    Query,
    /// Any other call on the connection (commit, attributes, SQLGetInfo): the connection
    /// timeout (else the query timeout).
    Connection,
    /// Ending a statement or the connection: the query or connection timeout, and
    /// `CLOSE_BOUND` once the connection is being closed. Runs on a broken link too.
    Closing,
    /// `SQLCancel`, which reaches the server over a new connection (psqlODBC, MariaDB):
    /// always bounded by `CLOSE_BOUND`. Given up, it gives up every call of the link too: the
    /// server is out of reach, and the call it was to stop would wait forever.
    Cancel,
}

const OPEN: u8 = 0;
const LOST: u8 = 1;
const TIMED_OUT: u8 = 2;
const ABANDONED: u8 = 3;

struct Call {
    id: u64,
    kind: CallKind,
    /// The kernel's id of the thread making the call (the watchdog reads what it waits on).
    thread: i32,
    given_up: bool,
}

/// A connection's link to its server (shared by the connection and its statements).
pub struct Link {
    calls: Mutex<Vec<Call>>,
    state: AtomicU8,
    login_timeout: u32,
    query_timeout: AtomicU32,
    connection_timeout: AtomicU32,
    /// The driver talks to a server over the network (not `Strategy::unwatched_calls`): its
    /// calls get deadlines. Unknown until connected, so a login is always watched.
    watched: AtomicBool,
    /// `close` began: closing calls are bounded by `CLOSE_BOUND`.
    closing: AtomicBool,
    /// A caller's limit on every call for now, in milliseconds (0: none): a pool validating a
    /// connection within what is left of its checkout's timeout.
    limit_ms: AtomicU64,
    next_id: AtomicU64,
}

impl Link {
    pub fn new(login_timeout: u32) -> Arc<Link> {
        Arc::new(Link {
            calls: Mutex::new(Vec::new()),
            state: AtomicU8::new(OPEN),
            login_timeout,
            query_timeout: AtomicU32::new(0),
            connection_timeout: AtomicU32::new(0),
            watched: AtomicBool::new(true),
            closing: AtomicBool::new(false),
            limit_ms: AtomicU64::new(0),
            next_id: AtomicU64::new(1),
        })
    }

    /// Whether calls get deadlines (not `Strategy::unwatched_calls`).
    pub fn set_watched(&self, on: bool) {
        self.watched.store(on, Ordering::Release);
    }

    /// The query timeout in seconds (0: none), `cnxn.timeout`.
    pub fn set_query_timeout(&self, seconds: u32) {
        self.query_timeout.store(seconds, Ordering::Release);
    }

    /// `SQL_ATTR_CONNECTION_TIMEOUT` in seconds (0: none).
    pub fn set_connection_timeout(&self, seconds: u32) {
        self.connection_timeout.store(seconds, Ordering::Release);
    }

    /// Bounds every later call (not a login) by `limit` as well, until set to `None`: past it
    /// the call is given up and the link broken, with no grace (the caller gives up on the
    /// connection, not on a statement the driver may still end by itself).
    pub fn set_limit(&self, limit: Option<Duration>) {
        let ms = limit.map_or(0, |d| {
            u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
        });
        self.limit_ms.store(ms, Ordering::Release);
    }

    /// The connection is being closed: closing calls are bounded from now on.
    pub fn begin_close(&self) {
        self.closing.store(true, Ordering::Release);
    }

    /// A call gave up or reported the connection lost: the driver is not called again.
    pub fn is_broken(&self) -> bool {
        self.state.load(Ordering::Acquire) != OPEN
    }

    fn calls(&self) -> MutexGuard<'_, Vec<Call>> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn break_as(&self, state: u8) {
        let _ = self
            .state
            .compare_exchange(OPEN, state, Ordering::AcqRel, Ordering::Acquire);
    }

    /// The timeout bounding a call of `kind`, if any: its own, or the caller's limit if that
    /// comes first.
    fn bound(&self, kind: CallKind) -> Option<Duration> {
        let own = self.own_bound(kind);
        match self.limit_ms.load(Ordering::Acquire) {
            0 => own,
            _ if kind == CallKind::Login || !self.watched.load(Ordering::Acquire) => own,
            ms => {
                let limit = Duration::from_millis(ms);
                Some(own.map_or(limit, |own| own.min(limit)))
            }
        }
    }

    fn own_bound(&self, kind: CallKind) -> Option<Duration> {
        let secs = |a: &AtomicU32| match a.load(Ordering::Acquire) {
            0 => None,
            s => Some(Duration::from_secs(u64::from(s)) + GRACE),
        };
        let query = || secs(&self.query_timeout).or_else(|| secs(&self.connection_timeout));
        match kind {
            CallKind::Login => match self.login_timeout {
                0 => None,
                s => Some(Duration::from_secs(u64::from(s)) + GRACE),
            },
            _ if !self.watched.load(Ordering::Acquire) => None,
            CallKind::Query => query(),
            // `cnxn.timeout` bounds these too, as pyodbc's sets the connection timeout.
            CallKind::Connection => {
                secs(&self.connection_timeout).or_else(|| secs(&self.query_timeout))
            }
            CallKind::Cancel => Some(CLOSE_BOUND),
            CallKind::Closing if self.closing.load(Ordering::Acquire) => Some(CLOSE_BOUND),
            CallKind::Closing => query(),
        }
    }

    /// Runs the driver call `f` of `kind`: refused at once (08S01) on a broken link unless
    /// closing; given up by the watchdog past its timeout + `GRACE` (HYT00 / HYT01); a call
    /// reporting the connection lost breaks the link.
    pub fn call<T>(self: &Arc<Self>, kind: CallKind, f: impl FnOnce() -> Result<T>) -> Result<T> {
        if kind != CallKind::Closing && self.is_broken() {
            return Err(self.broken_error());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.calls().push(Call {
            id,
            kind,
            thread: blocked::thread_id(),
            given_up: false,
        });
        let bound = self.bound(kind);
        if let Some(bound) = bound {
            watchdog::watch(Instant::now() + bound, Arc::downgrade(self), id);
        }
        let outcome = f();
        let given_up = {
            let mut calls = self.calls();
            let at = calls.iter().position(|c| c.id == id);
            at.map(|i| calls.swap_remove(i).given_up).unwrap_or(false)
        };
        if given_up {
            let limited = bound != self.own_bound(kind);
            return Err(timeout_error(kind, bound.unwrap_or(GRACE), limited));
        }
        if let Err(e) = &outcome {
            if kind != CallKind::Login && reports_link_lost(e) {
                self.break_as(LOST);
            }
        }
        outcome
    }

    fn has_call(&self, id: u64) -> bool {
        self.calls().iter().any(|c| c.id == id)
    }

    /// The watchdog: call `id` is past its deadline. Returns false once the call is over.
    fn give_up(&self, id: u64) -> bool {
        let (thread, kind) = {
            let mut calls = self.calls();
            let Some(call) = calls.iter_mut().find(|c| c.id == id) else {
                return false;
            };
            call.given_up = true;
            (call.thread, call.kind)
        };
        self.break_as(TIMED_OUT);
        blocked::shut_socket(thread);
        if kind == CallKind::Cancel {
            self.give_up_all();
        }
        true
    }

    /// Gives up on every call running now (`close()` from another thread while a call waits
    /// on a stalled link): their sockets are shut down, the link is broken.
    pub fn give_up_all(&self) {
        let threads: Vec<i32> = {
            let mut calls = self.calls();
            calls.iter_mut().for_each(|c| c.given_up = true);
            calls.iter().map(|c| c.thread).collect()
        };
        if threads.is_empty() {
            return;
        }
        self.break_as(ABANDONED);
        for t in threads {
            blocked::shut_socket(t);
        }
    }

    /// Whether a driver call is running on this link now.
    pub fn busy(&self) -> bool {
        !self.calls().is_empty()
    }

    /// What a call on a broken link answers.
    pub fn broken_error(&self) -> Error {
        let why = match self.state.load(Ordering::Acquire) {
            TIMED_OUT => "a call did not return within its timeout: its link was shut down",
            ABANDONED => "the connection was closed while a call waited on it",
            _ => "the driver reported it lost",
        };
        odbc_error(
            "fastodbc",
            "08S01",
            format!("The connection is broken ({why}); it can only be closed"),
        )
    }
}

fn odbc_error(function: &'static str, sqlstate: &str, message: String) -> Error {
    Error::Odbc {
        function,
        diagnostics: Diagnostics {
            records: vec![DiagRecord {
                sqlstate: sqlstate.into(),
                native: 0,
                message,
            }],
            connection_failure: None,
        },
    }
}

/// The error of a call the watchdog gave up on: ODBC's timeout SQLSTATEs.
fn timeout_error(kind: CallKind, bound: Duration, limited: bool) -> Error {
    let (state, what) = match kind {
        CallKind::Login => ("HYT00", "Login timeout expired"),
        CallKind::Query => ("HYT00", "Timeout expired"),
        CallKind::Connection | CallKind::Closing | CallKind::Cancel => {
            ("HYT01", "Connection timeout expired")
        }
    };
    odbc_error(
        "fastodbc",
        state,
        format!(
            "{what}: the driver did not return within {:.1} s ({}); the connection's link \
             was shut down and the connection is broken",
            bound.as_secs_f64(),
            if limited {
                "the caller's limit".to_string()
            } else {
                format!("its timeout plus {} s", GRACE.as_secs())
            }
        ),
    )
}

/// The error says the session is gone: a connection exception (class 08, or a general error
/// the driver reports dead), or PostgreSQL's 57P01-57P03 (the server ended the session).
fn reports_link_lost(e: &Error) -> bool {
    match e {
        Error::Odbc { diagnostics, .. } => {
            diagnostics.connection_lost()
                || diagnostics
                    .records
                    .iter()
                    .any(|r| matches!(r.sqlstate.as_str(), "57P01" | "57P02" | "57P03"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lost(state: &str) -> Error {
        odbc_error("SQLFetch", state, "gone".into())
    }

    #[test]
    fn a_lost_connection_breaks_the_link_and_later_calls_never_reach_the_driver() {
        let link = Link::new(0);
        assert!(link
            .call(CallKind::Query, || Err::<(), _>(lost("42S02")))
            .is_err());
        assert!(!link.is_broken());
        assert!(link
            .call(CallKind::Query, || Err::<(), _>(lost("57P01")))
            .is_err());
        assert!(link.is_broken());
        let mut reached = false;
        let e = link.call(CallKind::Query, || {
            reached = true;
            Ok(())
        });
        assert!(!reached);
        assert_eq!(
            e.err().map(|e| e.sqlstate().to_owned()),
            Some("08S01".into())
        );
        // Freeing still reaches the driver.
        assert!(link.call(CallKind::Closing, || Ok(())).is_ok());
    }

    #[test]
    fn a_call_past_its_timeout_is_given_up() {
        // No socket to shut down here: the call ends by itself, after its deadline.
        let link = Link::new(0);
        link.set_query_timeout(1);
        let started = Instant::now();
        let e = link.call(CallKind::Query, || {
            std::thread::sleep(Duration::from_secs(1) + GRACE + Duration::from_millis(400));
            Ok(())
        });
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            e.err().map(|e| e.sqlstate().to_owned()),
            Some("HYT00".into())
        );
        assert!(link.is_broken());
        assert!(!link.busy());
    }

    #[test]
    fn a_callers_limit_bounds_every_call_but_a_login_while_it_is_set() {
        let link = Link::new(5);
        let limit = Duration::from_millis(300);
        link.set_limit(Some(limit));
        assert_eq!(link.bound(CallKind::Query), Some(limit));
        assert_eq!(link.bound(CallKind::Connection), Some(limit));
        assert_eq!(
            link.bound(CallKind::Login),
            Some(Duration::from_secs(5) + GRACE)
        );
        // A shorter bound of the call's own stays.
        link.set_limit(Some(Duration::from_secs(60)));
        link.set_query_timeout(1);
        assert_eq!(
            link.bound(CallKind::Query),
            Some(Duration::from_secs(1) + GRACE)
        );
        link.set_query_timeout(0);
        link.set_limit(Some(limit));
        let started = Instant::now();
        let e = link.call(CallKind::Connection, || {
            std::thread::sleep(limit + Duration::from_millis(400));
            Ok(())
        });
        assert!(started.elapsed() < Duration::from_secs(2));
        let e = e.err().map(|e| (e.sqlstate().to_owned(), e.to_string()));
        assert!(
            matches!(&e, Some((state, text)) if state == "HYT01" && text.contains("the caller's limit")),
            "{e:?}"
        );
        assert!(link.is_broken());
        link.set_limit(None);
        assert_eq!(link.bound(CallKind::Query), None);
    }

    #[test]
    fn unwatched_links_have_no_deadlines() {
        let link = Link::new(0);
        link.set_query_timeout(1);
        link.set_watched(false);
        assert_eq!(link.bound(CallKind::Query), None);
        link.begin_close();
        assert_eq!(link.bound(CallKind::Closing), None);
        assert_eq!(link.bound(CallKind::Cancel), None);
        link.set_watched(true);
        assert_eq!(link.bound(CallKind::Closing), Some(CLOSE_BOUND));
        assert_eq!(link.bound(CallKind::Cancel), Some(CLOSE_BOUND));
        // The query timeout bounds connection calls where no connection timeout is set.
        assert_eq!(
            link.bound(CallKind::Connection),
            Some(Duration::from_secs(1) + GRACE)
        );
        assert_eq!(
            link.bound(CallKind::Query),
            Some(Duration::from_secs(1) + GRACE)
        );
    }
}
