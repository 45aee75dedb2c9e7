//! wsp-ggml-backend: a drop-in, C-ABI-identical Rust replacement for the ggml backend layer
//! that whisper.rn (`wsp_`) and llama.rn (`lm_`) vendor (`cpp/ggml-backend*.cpp`). The sources
//! name ggml's items without the prefix; the prefix is a fact of the release table, which
//! `abi::prefix` and the `#[named]`/`#[prefixed]` attributes apply.
//!
//! One build serves one family of one package's releases, chosen by a cargo feature (none: the
//! default family); the release table (`releases.txt`) lists the families, their releases and
//! features. The library exports exactly the functions of that release's `ggml-backend.h` and
//! `ggml-backend-impl.h` (the family's `symbols` list), and imports what it needs from the
//! package's ggml core, ggml-alloc and (with the default `cpu` feature) its CPU backend, which
//! are linked beside it.
//!
//! The layers, from the C boundary down (each uses only those below it; README.md, "How it is
//! built", draws them):
//! - `ffi`: the exports, one pattern for all (`#[named]`, then `arg!`): convert the arguments,
//!   call the core, convert the result;
//! - the core, safe Rust over handles and plain data: `meta` (0.6, 0.7: the meta backend, a
//!   device over several devices, tensors split between them), [`sched`] (the scheduler),
//!   [`registry`] (the registry, dynamic loading, the built-in backends) and [`buffer`]
//!   (buffers, the CPU buffer types, tensor data access, graph copy);
//! - [`handle`]: typed handles over the C objects, tensors, graphs and ggml contexts, the only
//!   code that reads their fields or calls their interface entries, and the `arg!` forms by
//!   which C arguments become handles;
//! - [`base`]: what the layer imports from ggml core, its log and aborts, the locks, cache
//!   prefetch hints;
//! - [`abi`]: the `#[repr(C)]` mirrors of the chosen family.
//!
//! The library needs no Rust standard library (`core` and `alloc` only), so that it adds to an
//! app's native library little more than its own code: its heap is C's (`base::heap`), a panic
//! reports through ggml's log and `ggml_abort` (`base::report`), and files, environment
//! variables and `dlopen` are the C library's (`base::os`). The `std` feature (the Rust tests
//! and fuzzers, which bring std's heap and panic runtime) builds it with std instead.
#![cfg_attr(not(any(test, feature = "std")), no_std)]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]
// The Rust docs are for the library's maintainers (its users see the C headers): the modules'
// docs link to the private parts they describe (`cargo doc --document-private-items`).
#![allow(rustdoc::private_intra_doc_links)]

extern crate alloc;

pub mod abi;
pub mod base;
pub mod handle;

pub mod buffer;
#[cfg(meta)]
pub mod meta;
pub mod registry;
pub mod sched;

mod ffi;
