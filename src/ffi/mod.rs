//! The C boundary: every exported function, grouped as the header's sections are. Each export
//! is a plain `#[no_mangle] pub unsafe extern "C" fn` (so that cbindgen sees its signature)
//! marked `#[named]`, which gives it `const FN`, its own name; it converts its arguments with
//! [`arg!`], calls the core and converts the result. Nothing else in the library calls an
//! export, so every message names the function the C caller called. The interface entries that
//! Rust implements for C (the CPU and meta buffers, the meta device and backend) follow the same
//! pattern, marked `#[callback(EXPORT)]`: their messages name the export that reached them and
//! the callback itself.
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

pub(crate) use crate::handle::arg;
use crate::handle::ToC;
use wsp_ggml_backend_macros::named;
