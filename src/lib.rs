//! wsp-ggml-backend: a drop-in, C-ABI-identical Rust replacement for the ggml backend layer
//! that whisper.rn vendors (`cpp/ggml-backend.cpp` and `cpp/ggml-backend-reg.cpp`, every
//! symbol prefixed `wsp_`).
//!
//! The library exports exactly the 111 functions of whisper.rn 0.4.0's `ggml-backend.h` and
//! `ggml-backend-impl.h`, and imports what it needs from whisper.rn's ggml core, ggml-alloc
//! and (with the default `cpu` feature) its CPU backend, which are linked beside it.
//!
//! Modules follow the header's sections. `unsafe` is confined to the C boundary: handles are
//! checked (NULL gives a named message and an abort, or an error value where the function
//! has one) and dispatched through the C interface tables; the registry and the scheduler's
//! planning are safe Rust over plain data.

// Every export has the same safety contract, that of the C API: handle arguments are NULL or
// live objects of their type, and buffers and sizes passed together agree.
#![allow(clippy::missing_safety_doc)]

pub mod abi;
#[cfg(feature = "count-allocations")]
mod alloc_count;
mod ffi;
pub mod ggml;

pub mod backend;
pub mod buffer;
pub mod buffer_type;
pub mod cpu_buffer;
pub mod device;
pub mod event;
pub mod loader;
pub mod registry;
pub mod sched;
mod sync;
pub mod utils;
