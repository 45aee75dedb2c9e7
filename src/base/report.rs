//! The ways this library reports trouble, all through ggml: its log; the error value an export
//! returns for input it refuses ([`ErrorValue`], [`Refused`]); and, where nothing can be
//! returned, a logged message followed by `ggml_abort`, as the reference's GGML_ASSERT does. A
//! panic (a broken invariant of the library's own) takes that last way too (`lib.rs`'s panic
//! handler), so the abort callback an application installs sees every abort with its reason.
//!
//! Reporting needs no heap: a line is formatted on the stack (on the heap only when it is
//! longer than [`CLine`]'s room and the heap has room), so that running out of memory can be
//! reported.

use super::fallible::FallibleText;
use super::ggml::{ggml_abort, ggml_log_internal};
use crate::abi::*;
use alloc::string::String;
use alloc::vec::Vec;
use core::ffi::{c_char, c_int};
use core::fmt::{self, Write as _};

/// A NUL-terminated line formatted without the heap where it fits in 1 KiB (log lines nearly
/// always do), on the heap where it does not and the heap has room, else cut short.
struct CLine {
    short: [u8; 1024],
    len: usize,
    long: Vec<u8>,
}

impl CLine {
    fn new() -> Self {
        CLine { short: [0; 1024], len: 0, long: Vec::new() }
    }

    fn formatted(args: fmt::Arguments) -> Self {
        let mut line = CLine::new();
        // Writing never fails: what does not fit is dropped.
        let _ = line.write_fmt(args);
        line
    }

    /// The line for C (cut at a NUL inside, as C reads it).
    fn as_ptr(&mut self) -> *const c_char {
        if self.long.is_empty() {
            self.short[self.len.min(self.short.len() - 1)] = 0;
            self.short.as_ptr() as *const c_char
        } else {
            self.long.push(0);
            self.long.as_ptr() as *const c_char
        }
    }
}

impl fmt::Write for CLine {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let bytes = text.as_bytes();
        if self.long.is_empty() && self.len + bytes.len() < self.short.len() {
            self.short[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
            return Ok(());
        }
        if self.long.is_empty() {
            // Room for the line so far, this text and the NUL; without it, the line stays cut.
            if self.long.try_reserve(2 * (self.len + bytes.len()) + 1).is_err() {
                return Ok(());
            }
            self.long.extend_from_slice(&self.short[..self.len]);
        }
        if self.long.try_reserve(bytes.len() + 1).is_ok() {
            self.long.extend_from_slice(bytes);
        }
        Ok(())
    }
}

/// Sends one formatted line to ggml's log (and so to whatever callback the application
/// installed). Never inlined: a line's formatting is the same code for every caller.
#[inline(never)]
pub fn log_args(level: ggml_log_level, args: fmt::Arguments) {
    let mut line = CLine::formatted(args);
    // SAFETY: both strings are NUL-terminated and "%s" consumes exactly one char pointer.
    unsafe { ggml_log_internal(level, c"%s".as_ptr(), line.as_ptr()) }
}

/// Sends one line to ggml's log.
pub fn log(level: ggml_log_level, message: &str) {
    log_args(level, format_args!("{message}"))
}

/// Reports a broken precondition the way the reference's GGML_ASSERT does (a message, then
/// `abort()`), but with a message that names the function and the cause, and also through
/// ggml's log so that applications with a log callback see it.
#[cold]
#[inline(never)]
pub fn fatal_args(file: &str, line: u32, args: fmt::Arguments) -> ! {
    log_args(GGML_LOG_LEVEL_ERROR, format_args!("{args}\n"));
    let mut c_file = CLine::formatted(format_args!("{file}"));
    let mut text = CLine::formatted(args);
    // SAFETY: NUL-terminated strings, "%s" takes one; ggml_abort never returns.
    unsafe { ggml_abort(c_file.as_ptr(), line as c_int, c"%s".as_ptr(), text.as_ptr()) }
}

/// [`fatal_args`] with a message.
#[cold]
pub fn fatal_at(file: &str, line: u32, message: &str) -> ! {
    fatal_args(file, line, format_args!("{message}"))
}

/// `fatal!("fmt", args..)`: abort with a formatted message, recording the caller's location.
macro_rules! fatal {
    ($($arg:tt)*) => {
        $crate::base::report::fatal_args(file!(), line!(), format_args!($($arg)*))
    };
}

/// `ensure!(cond, "fmt", args..)`: the checked form of the reference's GGML_ASSERT.
macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            $crate::base::report::fatal!($($arg)*);
        }
    };
}

/// `log_error!` / `log_warn!` / `log_info!` / `log_debug!`: formatted lines to ggml's log.
macro_rules! log_at {
    ($level:expr, $($arg:tt)*) => {
        $crate::base::report::log_args($level, format_args!($($arg)*))
    };
}
macro_rules! log_error { ($($arg:tt)*) => { $crate::base::report::log_at!($crate::abi::GGML_LOG_LEVEL_ERROR, $($arg)*) }; }
macro_rules! log_warn { ($($arg:tt)*) => { $crate::base::report::log_at!($crate::abi::GGML_LOG_LEVEL_WARN, $($arg)*) }; }
macro_rules! log_info { ($($arg:tt)*) => { $crate::base::report::log_at!($crate::abi::GGML_LOG_LEVEL_INFO, $($arg)*) }; }
macro_rules! log_debug { ($($arg:tt)*) => { $crate::base::report::log_at!($crate::abi::GGML_LOG_LEVEL_DEBUG, $($arg)*) }; }

pub(crate) use {ensure, fatal, log_at, log_debug, log_error, log_info, log_warn};

/// What an export gives C for input it refuses (a NULL handle, an index out of range, a
/// missing interface entry, memory it cannot get): NULL, false, a failed status or 0, after the
/// reason goes to ggml's log. An export that returns nothing has no way to say no, so it aborts
/// through ggml as the reference does, with the reason.
pub trait ErrorValue: Sized {
    /// `why` names the export and the cause ("FN: buffer is NULL").
    fn refused(why: fmt::Arguments) -> Self;

    /// [`Self::refused`] for a [`Refused`] reason: one call where [`checked!`] is used, not a
    /// formatting of its own at each.
    #[cold]
    #[inline(never)]
    fn from_refused(why: Refused) -> Self {
        Self::refused(format_args!("{why}"))
    }

    /// [`Self::refused`] for a NULL argument, "`func`: `param` is NULL": one call where
    /// [`arg!`](crate::handle::arg) meets NULL, not a formatting of its own in every export.
    #[cold]
    #[inline(never)]
    fn null_argument(func: &'static str, param: &'static str) -> Self {
        Self::refused(format_args!("{func}: {param} is NULL"))
    }
}

// Only the abort records where it was refused (`#[track_caller]`): a caller's location is 48
// bytes of data and relocation at every use, which the error values' log lines do not need.
impl ErrorValue for () {
    #[cold]
    #[track_caller]
    fn refused(why: fmt::Arguments) {
        let at = core::panic::Location::caller();
        fatal_args(at.file(), at.line(), why)
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn from_refused(why: Refused) {
        Self::refused(format_args!("{why}"))
    }
}

/// The error values, each logged with its reason.
macro_rules! error_values {
    ($($t:ty => $value:expr),* $(,)?) => {$(
        impl ErrorValue for $t {
            #[cold]
            #[inline(never)]
            fn refused(why: fmt::Arguments) -> Self {
                log_args(GGML_LOG_LEVEL_ERROR, format_args!("{why}\n"));
                $value
            }
        }
    )*};
}

error_values!(
    bool => false,
    usize => 0,
    c_int => 0,
    ggml_status => ggml_status::GGML_STATUS_FAILED,
    // The first value: an enum has no error value, and the log line says why.
    ggml_backend_dev_type => ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_CPU,
    ggml_backend_buffer_usage => ggml_backend_buffer_usage::GGML_BACKEND_BUFFER_USAGE_ANY,
    ggml_backend_graph_copy => ggml_backend_graph_copy::EMPTY,
);

/// NULL, for the pointers C gets, and None, for a handle method's result (which its export
/// gives C as NULL).
macro_rules! none_values {
    ($($t:ty => $value:expr),* $(,)?) => {$(
        impl<T> ErrorValue for $t {
            #[cold]
            #[inline(never)]
            fn refused(why: fmt::Arguments) -> Self {
                log_args(GGML_LOG_LEVEL_ERROR, format_args!("{why}\n"));
                $value
            }
        }
    )*};
}

none_values!(*mut T => core::ptr::null_mut(), *const T => core::ptr::null(), Option<T> => None);

/// `refuse!("fmt", args..)`: returns the function's error value, with the formatted reason in
/// ggml's log (or aborts, in a function that returns nothing): see [`ErrorValue`].
macro_rules! refuse {
    ($($arg:tt)*) => {
        return $crate::base::report::ErrorValue::refused(format_args!($($arg)*))
    };
}

/// `checked!(result)`: the value of an `Ok`, or the function's error value for an `Err`'s
/// [`Refused`] reason.
macro_rules! checked {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(refused) => return $crate::base::report::ErrorValue::from_refused(refused),
        }
    };
}

pub(crate) use {checked, refuse};

/// Input refused below the boundary, with the reason (naming the export): the export turns it
/// into its error value with [`checked!`]. Made without aborting when the heap is full (the
/// reason is then cut short).
#[derive(Debug, PartialEq, Eq)]
pub struct Refused(pub String);

impl Refused {
    #[cold]
    #[inline(never)]
    pub fn new(why: fmt::Arguments) -> Refused {
        let mut why_text = FallibleText::default();
        let _ = why_text.write_fmt(why);
        Refused(why_text.0)
    }
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A result whose refusal aborts with its reason, where nothing can be returned to C.
pub trait OrFatal<T> {
    #[track_caller]
    fn or_fatal(self) -> T;
}

impl<T> OrFatal<T> for Result<T, Refused> {
    #[track_caller]
    fn or_fatal(self) -> T {
        match self {
            Ok(value) => value,
            Err(Refused(why)) => {
                let at = core::panic::Location::caller();
                fatal_at(at.file(), at.line(), &why)
            }
        }
    }
}

/// `refused!("fmt", args..)`: an `Err(Refused)` with the formatted reason.
macro_rules! refused {
    ($($arg:tt)*) => {
        Err($crate::base::report::Refused::new(format_args!($($arg)*)))
    };
}
pub(crate) use refused;

/// A panic is a broken invariant of the library's own: it aborts through ggml, with its message
/// and where it happened, as an assertion does. (A heap that cannot satisfy an allocation the
/// library cannot do without panics too: "memory allocation of N bytes failed".)
#[cfg(not(any(test, feature = "std")))]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    let (file, line) = info.location().map_or(("?", 0), |at| (at.file(), at.line()));
    fatal_args(file, line, format_args!("{PREFIX}ggml backend layer: {}", info.message()))
}

/// The unwinding personality the precompiled `alloc` refers to: never called, as the library is
/// built with `panic = "abort"`.
#[cfg(not(any(test, feature = "std")))]
#[no_mangle]
extern "C" fn rust_eh_personality() {}

/// Reports a NULL handle where nothing can be returned: "`func`: `param` is NULL", then an
/// abort (the reference crashes).
#[cold]
#[inline(never)]
pub fn null_handle(func: &str, param: &str) -> ! {
    fatal_args(file!(), line!(), format_args!("{func}: {param} is NULL"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c_text(line: &mut CLine) -> String {
        // SAFETY: as_ptr gives a NUL-terminated line.
        unsafe { core::ffi::CStr::from_ptr(line.as_ptr()) }.to_string_lossy().into_owned()
    }

    #[test]
    fn a_short_line_stays_on_the_stack_and_a_long_one_moves_to_the_heap_whole() {
        let mut short = CLine::formatted(format_args!("{}: {} is NULL", "f", "p"));
        assert!(short.long.is_empty());
        assert_eq!(c_text(&mut short), "f: p is NULL");
        let long_text = "x".repeat(3000);
        let mut long = CLine::formatted(format_args!("a{long_text}b"));
        assert_eq!(c_text(&mut long), format!("a{long_text}b"));
    }

    #[test]
    fn a_refusal_displays_its_reason() {
        let refused: Result<(), Refused> = refused!("{}: index {} out of range", "f", 3);
        assert_eq!(refused.unwrap_err().to_string(), "f: index 3 out of range");
    }
}
