//! The C ABI of the whisper.rn release this library is built for, chosen at build time by a
//! cargo feature: whisper.rn 0.4 (ggml backend API v1) by default, 0.5 (API v2) with
//! `whisper-rn-0-5`. One set of `#[repr(C)]` mirrors serves both: a field, enum value or
//! constant that only one release has carries that release's `cfg`, as ggml's own headers grew
//! field by field (a module per release would repeat every unchanged struct). Only the mirrors and
//! the handle methods that read their fields (`crate::handle`, `crate::graph`) know a layout;
//! everything above works through those.
#![allow(non_camel_case_types)]

mod mirrors;
pub use mirrors::*;
