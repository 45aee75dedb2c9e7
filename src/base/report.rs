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

/// Reports a NULL handle: "`func`: `param` is NULL", then an abort (the reference crashes).
#[cold]
#[inline(never)]
pub fn null_handle(func: &str, param: &str) -> ! {
    fatal_at(file!(), line!(), &format!("{func}: {param} is NULL"))
}
