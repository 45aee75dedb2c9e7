//! The one pattern every export follows: a plain `#[no_mangle] pub unsafe extern "C" fn`
//! (so that cbindgen sees its signature) whose body starts with `const FN: &str = "<name>";`,
//! and whose handle arguments are borrowed with `arg!(p)`, which turns a NULL into a clear,
//! named abort instead of a crash.
//!
//! Panics never cross into C: the library is built with `panic = "abort"`, and a panic inside
//! an `extern "C"` function aborts the process rather than unwinding in any case.

/// `arg!(p)`: borrow the object behind a handle argument, aborting with
/// "<function>: p is NULL" when it is NULL. Needs the function's `FN` constant.
macro_rules! arg {
    ($ptr:ident) => {
        $crate::ggml::deref($ptr, FN, stringify!($ptr))
    };
}

pub(crate) use arg;
