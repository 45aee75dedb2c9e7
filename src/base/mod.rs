//! The base layer, below the handles: what the library imports from ggml core (`ggml`), how it
//! reports trouble through ggml's log and abort (`report`), allocation that reports failure
//! (`fallible`), bytes from C shown as text (`text`), the locks of its process-wide state (`sync`), cache prefetch hints
//! (`prefetch`), and the allocation counter of the `count-allocations` feature.

// The C library's heap (with the `count-allocations` counters); a Rust program that links the
// crate (the tests, the fuzzers) has std's.
pub mod fallible;
pub mod ggml;
#[cfg(not(any(test, feature = "std")))]
mod heap;
pub mod os;
pub mod prefetch;
pub mod report;
pub(crate) mod sync;
pub mod text;
