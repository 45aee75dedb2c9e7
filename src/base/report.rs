//! The two ways this library reports trouble, both through ggml: its log, and a logged message
//! followed by `ggml_abort` where the reference asserts.

use super::ggml::{ggml_abort, ggml_log_internal};
use crate::abi::*;
use std::ffi::{c_int, CString};

/// Sends one line to ggml's log (and so to whatever callback the application installed).
pub fn log(level: ggml_log_level, message: &str) {
    // An interior NUL cannot come from our own messages; drop the tail if a C name carried one.
    let text = CString::new(message).unwrap_or_else(|e| {
        let end = e.nul_position();
        CString::new(&message.as_bytes()[..end]).unwrap_or_default()
    });
    // SAFETY: both strings are NUL-terminated and "%s" consumes exactly one char pointer.
    unsafe { ggml_log_internal(level, c"%s".as_ptr(), text.as_ptr()) }
}

/// Reports a broken precondition the way the reference's GGML_ASSERT does (a message, then
/// `abort()`), but with a message that names the function and the cause, and also through
/// ggml's log so that applications with a log callback see it.
#[cold]
#[inline(never)]
pub fn fatal_at(file: &'static str, line: u32, message: &str) -> ! {
    log(GGML_LOG_LEVEL_ERROR, &format!("{message}\n"));
    let file = CString::new(file).unwrap_or_default();
    let text = CString::new(message.replace('\0', "")).unwrap_or_default();
    // SAFETY: NUL-terminated strings, "%s" takes one; ggml_abort never returns.
    unsafe { ggml_abort(file.as_ptr(), line as c_int, c"%s".as_ptr(), text.as_ptr()) }
}

/// `fatal!("fmt", args..)`: abort with a formatted message, recording the caller's location.
macro_rules! fatal {
    ($($arg:tt)*) => {
        $crate::base::report::fatal_at(file!(), line!(), &format!($($arg)*))
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
        $crate::base::report::log($level, &format!($($arg)*))
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
pub trait ErrorValue {
    /// `why` names the export and the cause ("FN: buffer is NULL").
    #[track_caller]
    fn refused(why: &str) -> Self;
}

impl ErrorValue for () {
    #[cold]
    #[track_caller]
    fn refused(why: &str) {
        let at = core::panic::Location::caller();
        fatal_at(at.file(), at.line(), why)
    }
}

/// The error values, each logged with its reason.
macro_rules! error_values {
    ($($t:ty => $value:expr),* $(,)?) => {$(
        impl ErrorValue for $t {
            #[cold]
            fn refused(why: &str) -> Self {
                log(GGML_LOG_LEVEL_ERROR, &format!("{why}\n"));
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

impl<T> ErrorValue for *mut T {
    #[cold]
    fn refused(why: &str) -> Self {
        log(GGML_LOG_LEVEL_ERROR, &format!("{why}\n"));
        core::ptr::null_mut()
    }
}

/// A handle method's "none": the export that returns it gives C NULL.
impl<T> ErrorValue for Option<T> {
    #[cold]
    fn refused(why: &str) -> Self {
        log(GGML_LOG_LEVEL_ERROR, &format!("{why}\n"));
        None
    }
}

impl<T> ErrorValue for *const T {
    #[cold]
    fn refused(why: &str) -> Self {
        log(GGML_LOG_LEVEL_ERROR, &format!("{why}\n"));
        core::ptr::null()
    }
}

/// `refuse!("fmt", args..)`: returns the function's error value, with the formatted reason in
/// ggml's log (or aborts, in a function that returns nothing): see [`ErrorValue`].
macro_rules! refuse {
    ($($arg:tt)*) => {
        return $crate::base::report::ErrorValue::refused(&format!($($arg)*))
    };
}

/// `checked!(result)`: the value of an `Ok`, or the function's error value for an `Err`'s
/// [`Refused`] reason.
macro_rules! checked {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err($crate::base::report::Refused(why)) => return $crate::base::report::ErrorValue::refused(&why),
        }
    };
}

pub(crate) use {checked, refuse};

/// Input refused below the boundary, with the reason (naming the export): the export turns it
/// into its error value with [`checked!`].
#[derive(Debug, PartialEq, Eq)]
pub struct Refused(pub String);

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
        Err($crate::base::report::Refused(format!($($arg)*)))
    };
}
pub(crate) use refused;

/// Reports a NULL handle where nothing can be returned: "`func`: `param` is NULL", then an
/// abort (the reference crashes).
#[cold]
#[inline(never)]
pub fn null_handle(func: &str, param: &str) -> ! {
    fatal_at(file!(), line!(), &format!("{func}: {param} is NULL"))
}
