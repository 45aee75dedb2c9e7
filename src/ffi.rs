//! The one pattern every export follows.
//!
//! `ffi_fn!` declares a `#[no_mangle] extern "C"` function and gives its body a `FN` constant
//! (the exported name) so that `arg!(p)` can turn a NULL handle into a clear, named abort.
//!
//! Panics never cross into C: the library is built with `panic = "abort"`, and a panic inside
//! an `extern "C"` function aborts the process rather than unwinding in any case.

macro_rules! ffi_fn {
    ($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block) => {
        $(#[$meta])*
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
            #[allow(dead_code)]
            const FN: &str = stringify!($name);
            $body
        }
    };
}

/// `arg!(p)`: borrow the object behind a handle argument, aborting with
/// "<function>: p is NULL" when it is NULL. Only valid inside `ffi_fn!`.
macro_rules! arg {
    ($ptr:ident) => {
        $crate::ggml::deref($ptr, FN, stringify!($ptr))
    };
}

pub(crate) use {arg, ffi_fn};
