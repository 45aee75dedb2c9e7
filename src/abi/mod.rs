//! The C ABI of the whisper.rn release this library is built for: one mirror module per ABI,
//! chosen at build time. Only the mirrors and the handle methods that read their fields
//! (`crate::handle`, `crate::graph`) know a layout; everything above works through those.
#![allow(non_camel_case_types)]

mod v1;
pub use v1::*;
