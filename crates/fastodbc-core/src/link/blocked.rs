//! Which TCP socket a thread of this process waits on, and shutting it down (Linux).
//!
//! The kernel shows the system call a blocked thread is in, with its arguments, in
//! `/proc/self/task/<tid>/syscall`. A driver waiting on the network is in `poll`/`ppoll`
//! (libpq, MariaDB Connector/C: the first argument points to its `pollfd` array, read from
//! this process's memory through `/proc/self/mem`, which answers an error rather than a fault
//! for an address no longer mapped) or in `recv`/`read`/`send`/`connect` (the first argument
//! is the descriptor). Only a stream socket of the Internet families is shut down, and only
//! when the thread is still in the same system call after it was found, so a descriptor the
//! driver closed and another thread reused meanwhile is left alone. `shutdown(2)` (not
//! `close`) leaves the descriptor to its owner: the driver's call returns an error, and the
//! driver closes it as it would any broken connection.

/// The calling thread's kernel id.
pub(super) fn thread_id() -> i32 {
    #[cfg(target_os = "linux")]
    {
        thread_local!(static TID: i32 = {
            // SAFETY: gettid has no arguments and cannot fail.
            unsafe { libc::syscall(libc::SYS_gettid) as i32 }
        });
        TID.with(|t| *t)
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// Shuts down the TCP socket thread `tid` waits on, if it waits on one.
#[cfg(target_os = "linux")]
pub(super) fn shut_socket(tid: i32) {
    let path = format!("/proc/self/task/{tid}/syscall");
    let Ok(first) = std::fs::read_to_string(&path) else {
        return;
    };
    for fd in waited_descriptors(&first) {
        if !is_tcp_socket(fd) {
            continue;
        }
        // Still in the same call: `fd` is still the one it waits on.
        if std::fs::read_to_string(&path).ok().as_deref() != Some(first.as_str()) {
            return;
        }
        // SAFETY: shutdown on a descriptor checked just now to be a socket; it changes the
        // connection's state only, the descriptor stays its owner's.
        unsafe { libc::shutdown(fd, libc::SHUT_RDWR) };
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn shut_socket(_tid: i32) {}

/// The descriptors a system call line of `/proc/<pid>/task/<tid>/syscall` waits on: "<nr>
/// <arg1> ... <arg6> <sp> <pc>" in hex, or "running" / "-1 ..." outside a system call.
#[cfg(target_os = "linux")]
fn waited_descriptors(line: &str) -> Vec<i32> {
    let mut parts = line.split_whitespace();
    let Some(Ok(nr)) = parts.next().map(str::parse::<i64>) else {
        return Vec::new();
    };
    let args: Vec<u64> = parts
        .take(2)
        .filter_map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok())
        .collect();
    let [first, second] = args[..] else {
        return Vec::new();
    };
    #[cfg(target_arch = "x86_64")]
    let polling = nr == libc::SYS_poll || nr == libc::SYS_ppoll;
    #[cfg(not(target_arch = "x86_64"))]
    let polling = nr == libc::SYS_ppoll;
    let on_descriptor = [
        libc::SYS_read,
        libc::SYS_readv,
        libc::SYS_recvfrom,
        libc::SYS_recvmsg,
        libc::SYS_write,
        libc::SYS_writev,
        libc::SYS_sendto,
        libc::SYS_sendmsg,
        libc::SYS_connect,
    ];
    if polling {
        poll_descriptors(first, second.min(16) as usize)
    } else if on_descriptor.contains(&nr) {
        i32::try_from(first).map(|fd| vec![fd]).unwrap_or_default()
    } else {
        Vec::new()
    }
}

/// The descriptors of the `pollfd` array of `count` entries at `address` in this process.
#[cfg(target_os = "linux")]
fn poll_descriptors(address: u64, count: usize) -> Vec<i32> {
    use std::os::unix::fs::FileExt;
    // struct pollfd { int fd; short events; short revents; }: 8 bytes each.
    let mut raw = vec![0u8; count * 8];
    let read =
        std::fs::File::open("/proc/self/mem").and_then(|f| f.read_exact_at(&mut raw, address));
    if read.is_err() {
        return Vec::new();
    }
    raw.chunks_exact(8)
        .map(|p| i32::from_ne_bytes([p[0], p[1], p[2], p[3]]))
        .filter(|fd| *fd >= 0)
        .collect()
}

/// `fd` is a stream socket of the Internet families (not a Unix socket, nor anything else).
#[cfg(target_os = "linux")]
fn is_tcp_socket(fd: i32) -> bool {
    let mut kind: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the output buffers are valid for the lengths passed; a descriptor that is not a
    // socket answers an error.
    let ret = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_TYPE,
            &mut kind as *mut libc::c_int as *mut libc::c_void,
            &mut len,
        )
    };
    if ret != 0 || kind != libc::SOCK_STREAM {
        return false;
    }
    // SAFETY: as above; sockaddr_storage holds any address.
    let family = unsafe {
        let mut addr: libc::sockaddr_storage = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
        let ret = libc::getsockname(fd, &mut addr as *mut _ as *mut libc::sockaddr, &mut len);
        if ret != 0 {
            return false;
        }
        addr.ss_family as libc::c_int
    };
    family == libc::AF_INET || family == libc::AF_INET6
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::{TcpListener, TcpStream};
    use std::os::fd::AsRawFd;
    use std::time::{Duration, Instant};

    #[test]
    fn a_thread_blocked_in_recv_is_released() {
        // A listener that never answers: the reader waits until its socket is shut down.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            tx.send(thread_id()).unwrap();
            let mut buf = [0u8; 16];
            stream.read(&mut buf).map(|n| (n, stream.as_raw_fd()))
        });
        let tid = rx.recv().unwrap();
        let started = Instant::now();
        while !reader.is_finished() && started.elapsed() < Duration::from_secs(10) {
            std::thread::sleep(Duration::from_millis(50));
            shut_socket(tid);
        }
        assert!(reader.is_finished(), "the reader still waits");
        assert_eq!(reader.join().unwrap().unwrap().0, 0);
        drop(listener);
    }

    #[test]
    fn lines_outside_a_system_call_name_nothing() {
        assert!(waited_descriptors("running").is_empty());
        assert!(waited_descriptors("-1 0x7ffd 0x1").is_empty());
        let read = format!(
            "{} 0x5 0x7ffd 0x10 0x0 0x0 0x0 0x7ffc 0x7f00",
            libc::SYS_read
        );
        assert_eq!(waited_descriptors(&read), vec![5]);
    }
}
