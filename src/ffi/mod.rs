//! The C boundary: every exported function, grouped as the header's sections are. Each export
//! is a plain `#[no_mangle] pub unsafe extern "C" fn` (so that cbindgen sees its signature)
//! marked `#[named]`, which gives it `const FN`, its own name; it converts its arguments with
//! [`arg!`], calls the core and converts the result. Nothing else in the library calls an
//! export, so every message names the function the C caller called.
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
pub(crate) use crate::handle::arg;
pub use crate::handle::{FromC, ToC};
use crate::sched::Sched;
use wsp_ggml_backend_macros::named;

impl FromC for wsp_ggml_backend_sched_t {
    type Rust = Sched;
    #[inline(always)]
    unsafe fn into_rust(self) -> Option<Sched> {
        // SAFETY: the caller's promise is from_raw's.
        unsafe { Sched::from_raw(self as _) }
    }
}

impl ToC for Option<Sched> {
    type C = wsp_ggml_backend_sched_t;
    #[inline(always)]
    fn to_c(self) -> wsp_ggml_backend_sched_t {
        self.map_or(std::ptr::null_mut(), |h| h.as_ptr() as _)
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
