//! wsp-ggml-backend: a drop-in, C-ABI-identical Rust replacement for the ggml backend layer
//! that whisper.rn vendors (`cpp/ggml-backend.cpp` and `cpp/ggml-backend-reg.cpp`, every
//! symbol prefixed `wsp_`).
//!
//! The library exports exactly the 111 functions of whisper.rn 0.4.0's `ggml-backend.h` and
//! `ggml-backend-impl.h`, and imports what it needs from whisper.rn's ggml core, ggml-alloc
//! and (with the default `cpu` feature) its CPU backend, which are linked beside it.
//!
//! The layers, from the C boundary down (each uses only those below it):
//! - [`ffi`]: the exports, one pattern for all: convert the arguments, call the core, convert
//!   the result;
//! - the core: [`buffer`], [`cpu_buffer`], [`tensor_io`], [`graph_copy`], [`registry`],
//!   [`loader`] and [`sched`], safe Rust over handles and plain data; with whisper.rn 0.7, also
//!   `meta`, the meta backend (a device over several devices, tensors split between them);
//! - [`handle`] and [`graph`]: typed handles over the C objects, tensors and graphs, the only
//!   code that reads their fields or calls their interface entries;
//! - [`abi`]: the `#[repr(C)]` mirrors of the chosen whisper.rn release; [`ggml`]: what the
//!   layer imports from ggml core, and its log and aborts; [`module`] and `sync`: shared
//!   libraries and locks.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod abi;
#[cfg(feature = "count-allocations")]
mod alloc_count;
pub mod ggml;
mod sync;

pub mod graph;
pub mod handle;
pub mod module;

pub mod buffer;
pub mod builtin;
pub mod cpu_buffer;
pub mod graph_copy;
pub mod loader;
#[cfg(meta)]
pub mod meta;
pub mod registry;
pub mod sched;
pub mod tensor_io;

mod ffi;
