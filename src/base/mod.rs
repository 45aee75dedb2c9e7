//! The base layer, below the handles: what the library imports from ggml core (`ggml`), how it
//! reports trouble through ggml's log and abort (`report`), allocation that reports failure
//! (`fallible`), the locks of its process-wide state (`sync`), cache prefetch hints
//! (`prefetch`), and the allocation counter of the `count-allocations` feature.

#[cfg(feature = "count-allocations")]
mod alloc_count;
pub mod fallible;
pub mod ggml;
pub mod prefetch;
pub mod report;
pub(crate) mod sync;
