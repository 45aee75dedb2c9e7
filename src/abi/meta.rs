//! The meta backend's types (0.6, 0.7; `meta` capability): split axes and split states.

use super::*;
use core::ffi::c_int;
#[cfg(meta)]
use core::ffi::c_void;

/// `GGML_BACKEND_META_MAX_DEVICES`: the most simple devices a meta device spans.
#[cfg(meta)]
pub const GGML_BACKEND_META_MAX_DEVICES: usize = 16;

/// `enum ggml_backend_meta_split_axis` as the header declares it (cbindgen gives it the C
/// name). Rust holds an axis as its integer, [`ggml_backend_meta_split_axis`], so that any
/// value C hands us is valid: 0..=3 split along that dimension, then the whole-tensor states and
/// two used only inside the meta backend.
#[cfg(meta)]
#[repr(C)]
pub enum ggml_backend_meta_split_axis_decl {
    GGML_BACKEND_SPLIT_AXIS_0 = 0,
    GGML_BACKEND_SPLIT_AXIS_1 = 1,
    GGML_BACKEND_SPLIT_AXIS_2 = 2,
    GGML_BACKEND_SPLIT_AXIS_3 = 3,
    /// Every simple device holds all values.
    GGML_BACKEND_SPLIT_AXIS_MIRRORED = 10,
    /// Every simple device holds a partial sum; the values are the sum over devices.
    GGML_BACKEND_SPLIT_AXIS_PARTIAL = 11,
    GGML_BACKEND_SPLIT_AXIS_NONE = 98,
    GGML_BACKEND_SPLIT_AXIS_UNKNOWN = 99,
}

/// A split axis as C passes it (`enum ggml_backend_meta_split_axis` in the header).
#[cfg(meta)]
pub type ggml_backend_meta_split_axis = c_int;

macro_rules! split_axes {
    ($($name:ident)*) => {$(
        #[cfg(meta)]
        pub const $name: ggml_backend_meta_split_axis = ggml_backend_meta_split_axis_decl::$name as c_int;
    )*};
}
split_axes!(
    GGML_BACKEND_SPLIT_AXIS_0 GGML_BACKEND_SPLIT_AXIS_1 GGML_BACKEND_SPLIT_AXIS_2
    GGML_BACKEND_SPLIT_AXIS_3 GGML_BACKEND_SPLIT_AXIS_MIRRORED GGML_BACKEND_SPLIT_AXIS_PARTIAL
    GGML_BACKEND_SPLIT_AXIS_NONE GGML_BACKEND_SPLIT_AXIS_UNKNOWN
);

/// `struct ggml_backend_meta_split_state`: how a tensor is spread over the simple devices.
/// For a dimension axis, `ne[s * n_devices + j]` is device j's share of segment s.
// (The meta code holds it as `meta::split::SplitState`, which always has `nr`.)
#[cfg(meta)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ggml_backend_meta_split_state {
    pub axis: ggml_backend_meta_split_axis,
    /// 16 * GGML_BACKEND_META_MAX_DEVICES entries (spelled out for cbindgen).
    pub ne: [i64; 256],
    /// How many times segment s repeats along the axis (0.7; 0.6's segments are not repeated).
    #[cfg(meta_nr)]
    pub nr: [u32; 16],
    pub n_segments: u32,
}

#[cfg(meta)]
const _: () = assert!(256 == 16 * GGML_BACKEND_META_MAX_DEVICES);

/// `ggml_backend_meta_get_split_state_t`: the application's split of statically allocated
/// tensors.
#[cfg(meta)]
pub type ggml_backend_meta_get_split_state_t =
    Option<unsafe extern "C" fn(tensor: *const ggml_tensor, userdata: *mut c_void) -> ggml_backend_meta_split_state>;

pub type ggml_backend_init_t = Option<unsafe extern "C" fn() -> ggml_backend_reg_t>;
pub type ggml_backend_score_t = Option<unsafe extern "C" fn() -> c_int>;
