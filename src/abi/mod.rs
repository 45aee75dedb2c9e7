//! The C ABI of the family this library is built for, chosen at build time by a cargo feature
//! (the release table, `releases.txt`, names each family's). One set of `#[repr(C)]` mirrors
//! serves them all: a field, enum value or constant that only some families have carries the
//! `cfg` of the capability that brings it (`releases.txt`), as ggml's own headers grew field by
//! field (a module per release would repeat every unchanged struct). Only the mirrors and the
//! handle methods that read their fields (`crate::handle`) know a layout; everything above works
//! through those.
//!
//! One file per header: `ggml` (the parts of ggml.h and ggml-impl.h the layer reads), `backend`
//! (ggml-backend.h), `backend_impl` (ggml-backend-impl.h), `meta` (the meta backend's types,
//! each under the `meta` capability); `layout_checks` asserts every layout at compile time.
//! Names follow C so that cbindgen emits exactly the C declarations.
#![allow(non_camel_case_types)]

mod backend;
mod backend_impl;
mod ggml;
mod layout_checks;
mod meta;
mod prefix;

pub use backend::*;
pub use backend_impl::*;
pub use ggml::*;
pub use meta::*;
pub use prefix::*;
