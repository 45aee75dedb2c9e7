//! The C boundary: every exported function, grouped as the header's sections are. Each export
//! is a plain `#[no_mangle] pub unsafe extern "C" fn` (so that cbindgen sees its signature)
//! that names itself in `const FN`, converts its arguments with [`arg!`], calls the core and
//! converts the result. Nothing else in the library calls an export, so every message names
//! the function the C caller called.
//!
//! Every export has the C API's safety contract, stated in its `# Safety` section: each handle
//! argument is NULL or a live object of its type that no other thread uses meanwhile, and
//! pointers and sizes passed together agree.
//!
//! Panics never cross into C: the library is built with `panic = "abort"`, and a panic inside
//! an `extern "C"` function aborts the process rather than unwinding in any case.

mod backend;
mod buffer;
mod buffer_type;
mod device;
mod event;
mod graph;
#[cfg(meta)]
mod meta;
mod registry;
mod sched;

use crate::abi::*;
use crate::graph::{Graph, Tensor};
use crate::handle::{Backend, Buffer, BufferType, Device, Event, Reg};
use crate::sched::Sched;
use std::ffi::{c_char, CStr};

/// A C argument that may be NULL, and what it stands for in Rust.
pub trait FromC {
    type Rust;
    /// # Safety
    /// `self` is NULL or points to a live object of its type.
    unsafe fn into_rust(self) -> Option<Self::Rust>;
}

/// A Rust result as C receives it (NULL for None).
pub trait ToC {
    type C;
    fn to_c(self) -> Self::C;
}

/// The conversions of the handle types, both ways.
macro_rules! handle_conversions {
    ($($raw:ty => $handle:ty),* $(,)?) => {$(
        impl FromC for $raw {
            type Rust = $handle;
            #[inline(always)]
            unsafe fn into_rust(self) -> Option<$handle> {
                // SAFETY: the caller's promise is from_raw's.
                unsafe { <$handle>::from_raw(self as _) }
            }
        }
        impl ToC for Option<$handle> {
            type C = $raw;
            #[inline(always)]
            fn to_c(self) -> $raw {
                self.map_or(std::ptr::null_mut(), |h| h.as_ptr() as _)
            }
        }
    )*};
}

handle_conversions!(
    wsp_ggml_backend_t => Backend,
    wsp_ggml_backend_buffer_t => Buffer,
    wsp_ggml_backend_buffer_type_t => BufferType,
    wsp_ggml_backend_dev_t => Device,
    wsp_ggml_backend_event_t => Event,
    wsp_ggml_backend_reg_t => Reg,
    wsp_ggml_backend_sched_t => Sched,
    *mut wsp_ggml_tensor => Tensor,
    *mut wsp_ggml_cgraph => Graph,
);

impl FromC for *const wsp_ggml_tensor {
    type Rust = Tensor;
    #[inline(always)]
    unsafe fn into_rust(self) -> Option<Tensor> {
        // SAFETY: the caller's promise is from_raw's.
        unsafe { Tensor::from_raw(self) }
    }
}

impl FromC for *const c_char {
    type Rust = &'static CStr;
    unsafe fn into_rust(self) -> Option<&'static CStr> {
        // SAFETY: NULL or a NUL-terminated string, which the export only uses during the call.
        (!self.is_null()).then(|| unsafe { CStr::from_ptr(self) })
    }
}

impl FromC for *mut wsp_ggml_backend_dev_props {
    type Rust = &'static mut wsp_ggml_backend_dev_props;
    unsafe fn into_rust(self) -> Option<Self::Rust> {
        // SAFETY: NULL or a writable struct, which the export only uses during the call.
        unsafe { self.as_mut() }
    }
}

/// An array the caller fills in (its length is the export's to know).
#[cfg(sched_reserve_size)]
impl FromC for *mut usize {
    type Rust = std::ptr::NonNull<usize>;
    unsafe fn into_rust(self) -> Option<Self::Rust> {
        std::ptr::NonNull::new(self)
    }
}

/// A caller's array of tensor pointers.
#[cfg(compare_test_nodes)]
impl FromC for *const *const wsp_ggml_tensor {
    type Rust = std::ptr::NonNull<*const wsp_ggml_tensor>;
    unsafe fn into_rust(self) -> Option<Self::Rust> {
        std::ptr::NonNull::new(self.cast_mut())
    }
}

/// Converts an export's argument `p` (the export must define `const FN`):
/// - `arg!(p)`: NULL gives "FN: p is NULL" and an abort (where the reference asserts or
///   crashes);
/// - `arg!(p, or VALUE)`: NULL gives that line in ggml's log and returns VALUE, the function's
///   error value (`arg!(p, or return)` in a function without a result);
/// - `arg!(p, optional)`: an `Option`, for arguments where NULL has a meaning.
macro_rules! arg {
    ($p:ident) => {
        // SAFETY: every pointer argument of an export is NULL or live (its # Safety section).
        match unsafe { $crate::ffi::FromC::into_rust($p) } {
            Some(converted) => converted,
            None => $crate::ggml::null_handle(FN, stringify!($p)),
        }
    };
    ($p:ident, or return) => {
        // SAFETY: as above.
        match unsafe { $crate::ffi::FromC::into_rust($p) } {
            Some(converted) => converted,
            None => {
                $crate::ggml::log_error!("{FN}: {} is NULL\n", stringify!($p));
                return;
            }
        }
    };
    ($p:ident, or $error:expr) => {
        // SAFETY: as above.
        match unsafe { $crate::ffi::FromC::into_rust($p) } {
            Some(converted) => converted,
            None => {
                $crate::ggml::log_error!("{FN}: {} is NULL\n", stringify!($p));
                return $error;
            }
        }
    };
    ($p:ident, optional) => {
        // SAFETY: as above.
        unsafe { $crate::ffi::FromC::into_rust($p) }
    };
}
use arg;

/// Optional C function pointers (callbacks).
impl<F: Copy> FromC for Option<F> {
    type Rust = F;
    unsafe fn into_rust(self) -> Option<F> {
        self
    }
}
