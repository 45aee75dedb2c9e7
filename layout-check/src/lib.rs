//! Compile-time layout parity between the library's ABI mirrors and a whisper.rn release's own
//! headers, as bindgen reads them for the target being checked: `cargo check` of this crate
//! fails when a size, an alignment, a field offset or an enum value differs, or when the
//! headers declare a field or value the mirrors lack. Nothing here is typed by hand but the
//! list of what to compare (build.rs).
#![allow(non_camel_case_types, non_upper_case_globals, dead_code, clippy::all)]

use std::mem::{align_of, offset_of, size_of};
use wsp_ggml_backend::abi as mirror;

/// The release's declarations, from bindgen.
mod release {
    include!(concat!(env!("OUT_DIR"), "/release.rs"));
}

/// `same_layout!(T { mirror_field = release_field, .. })`
macro_rules! same_layout {
    ($name:ident { $($field:ident = $c_field:ident),* $(,)? }) => {
        const _: () = assert!(size_of::<mirror::$name>() == size_of::<release::$name>(), concat!("size of ", stringify!($name)));
        const _: () = assert!(align_of::<mirror::$name>() == align_of::<release::$name>(), concat!("alignment of ", stringify!($name)));
        $(const _: () = assert!(
            offset_of!(mirror::$name, $field) == offset_of!(release::$name, $c_field),
            concat!("offset of ", stringify!($name), ".", stringify!($field))
        );)*
    };
}

macro_rules! same_value {
    ($name:ident, $value:ident) => {
        const _: () =
            assert!(mirror::$name::$value as i64 == release::$value as i64, concat!("value of ", stringify!($value)));
    };
}

macro_rules! same_op {
    ($op:ident) => {
        const _: () = assert!(mirror::$op as i64 == release::$op as i64, concat!("value of ", stringify!($op)));
    };
    (op::$name:ident = $op:ident) => {
        const _: () = assert!(mirror::op::$name as i64 == release::$op as i64, concat!("value of ", stringify!($op)));
    };
}

/// `same_prefix!("wsp_")`: the library was built for the package whose headers these are.
macro_rules! same_prefix {
    ($prefix:literal) => {
        const _: () =
            assert!(same_str(mirror::PREFIX, $prefix), concat!("the library's prefix is not the headers' ", $prefix));
    };
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `no_op!(NAME)`: the mirrors' `op` module has no NAME in this build (the release's ggml.h has
/// no such op). Two glob imports of the same name are ambiguous where it is used, so this
/// compiles only when the mirrors' glob brings no NAME.
#[allow(unused_macros)]
macro_rules! no_op {
    ($name:ident) => {
        #[allow(non_snake_case)]
        mod $name {
            mod absent {
                pub const $name: i64 = -1;
            }
            use absent::*;
            #[allow(unused_imports)]
            use wsp_ggml_backend::abi::op::*;
            const _: () = assert!($name as i64 == -1, concat!("the release's ggml.h has no op ", stringify!($name)));
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/checks.rs"));
