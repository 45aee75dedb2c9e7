//! Running a call that may abort: in a forked child, so that the fuzzing process survives it.
//!
//! The library answers bad input with a message and `wsp_ggml_abort` (ggml's log line, then
//! `abort()`), as the reference's asserts do. A fuzz target cannot survive an abort, so a call the
//! target expects to be refused runs in a child process: the child installs ggml's abort callback,
//! which sends the message to the parent through a pipe, and restores the default SIGABRT action
//! (libFuzzer's handler would report a crash). The parent then sees how the child ended: it
//! returned from the call (exit 0), aborted after the library's message, or died otherwise (a
//! signal without a message: a segfault, a Rust panic that could not unwind into C, a sanitizer
//! report).
//!
//! A fork of a process under AddressSanitizer takes milliseconds: a target grants each input a
//! few children (`allow`); calls beyond them are skipped, not made.

use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicI32, Ordering};

extern "C" {
    fn wsp_ggml_set_abort_callback(
        callback: Option<unsafe extern "C" fn(*const c_char)>,
    ) -> Option<unsafe extern "C" fn(*const c_char)>;
}

/// How a child's call ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The call returned.
    Returned,
    /// ggml's abort with this message.
    Aborted(String),
    /// Anything else (what the parent saw).
    Died(String),
}

/// Children the current input may still fork.
static CHILDREN_LEFT: AtomicI32 = AtomicI32::new(0);

/// Lets the current input fork `n` more children.
pub fn allow(n: i32) {
    CHILDREN_LEFT.store(n, Ordering::Relaxed);
}

/// The child's end of the pipe, for the abort callback.
static MESSAGE_FD: AtomicI32 = AtomicI32::new(-1);

unsafe extern "C" fn send_message(message: *const c_char) {
    // SAFETY: ggml passes its NUL-terminated message.
    let bytes = unsafe { CStr::from_ptr(message) }.to_bytes();
    let fd = MESSAGE_FD.load(Ordering::Relaxed);
    // SAFETY: a buffer of bytes.len() bytes; a short write only shortens the message.
    unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len().max(1)) };
}

/// Runs `call` in a forked child and reports how it ended; None (and `call` is not made) when
/// the input has no child left. The parent must be single-threaded (libFuzzer's is).
pub fn run(call: impl FnOnce()) -> Option<Outcome> {
    if CHILDREN_LEFT.fetch_sub(1, Ordering::Relaxed) <= 0 {
        return None;
    }
    let mut fds = [0; 2];
    // SAFETY: an array of two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: the child only calls into the library and then _exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        // SAFETY: the child's own descriptors, signal disposition and limits (no core file).
        unsafe {
            libc::close(fds[0]);
            libc::signal(libc::SIGABRT, libc::SIG_DFL);
            libc::setrlimit(libc::RLIMIT_CORE, &libc::rlimit { rlim_cur: 0, rlim_max: 0 });
        }
        MESSAGE_FD.store(fds[1], Ordering::Relaxed);
        // SAFETY: a callback for the rest of the child's life.
        unsafe { wsp_ggml_set_abort_callback(Some(send_message)) };
        call();
        // SAFETY: leaves without exit handlers (libFuzzer's, LeakSanitizer's).
        unsafe { libc::_exit(0) };
    }
    // SAFETY: the parent's copy of the write end.
    unsafe { libc::close(fds[1]) };
    let mut message = Vec::new();
    let mut chunk = [0u8; 512];
    loop {
        // SAFETY: a buffer of chunk.len() bytes.
        let n = unsafe { libc::read(fds[0], chunk.as_mut_ptr().cast(), chunk.len()) };
        if n < 0 && interrupted() {
            continue;
        }
        if n <= 0 {
            break;
        }
        message.extend_from_slice(&chunk[..n as usize]);
    }
    // SAFETY: our read end.
    unsafe { libc::close(fds[0]) };
    let mut status = 0;
    // SAFETY: our child. (libFuzzer's timer signal may interrupt the wait.)
    while unsafe { libc::waitpid(pid, &mut status, 0) } != pid {
        assert!(interrupted(), "waitpid: {}", std::io::Error::last_os_error());
    }
    let message = String::from_utf8_lossy(&message).into_owned();
    Some(if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 && message.is_empty() {
        Outcome::Returned
    } else if libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGABRT && !message.is_empty() {
        Outcome::Aborted(message)
    } else {
        Outcome::Died(format!("status {status:#x}, message {message:?}"))
    })
}

/// Whether the last system call was interrupted by a signal.
fn interrupted() -> bool {
    std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
}

/// Runs `call` in a child (when the input has one left) and panics (a finding) unless it aborted
/// with a message containing one of `words`.
pub fn expect_abort(what: &str, words: &[&str], call: impl FnOnce()) {
    match run(call) {
        None => {}
        Some(Outcome::Aborted(m)) if words.iter().any(|w| m.contains(w)) => {
            if std::env::var_os("WSP_FUZZ_VERBOSE").is_some() {
                eprintln!("{what}: aborted: {m}");
            }
        }
        other => panic!("{what}: expected an abort with a message naming one of {words:?}, got {other:?}"),
    }
}
