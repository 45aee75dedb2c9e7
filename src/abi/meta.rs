//! The meta backend's types (0.6, 0.7; `meta` capability): split axes and split states.

use super::*;
use std::ffi::c_int;
#[cfg(meta)]
use std::ffi::c_void;

/// `WSP_GGML_BACKEND_META_MAX_DEVICES`: the most simple devices a meta device spans.
#[cfg(meta)]
pub const WSP_GGML_BACKEND_META_MAX_DEVICES: usize = 16;

/// `enum wsp_ggml_backend_meta_split_axis` as the header declares it (cbindgen gives it the C
/// name). Rust holds an axis as its integer, [`wsp_ggml_backend_meta_split_axis`], so that any
/// value C hands us is valid: 0..=3 split along that dimension, then the whole-tensor states and
/// two used only inside the meta backend.
#[cfg(meta)]
#[repr(C)]
pub enum wsp_ggml_backend_meta_split_axis_decl {
    WSP_GGML_BACKEND_SPLIT_AXIS_0 = 0,
    WSP_GGML_BACKEND_SPLIT_AXIS_1 = 1,
    WSP_GGML_BACKEND_SPLIT_AXIS_2 = 2,
    WSP_GGML_BACKEND_SPLIT_AXIS_3 = 3,
    /// Every simple device holds all values.
    WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED = 10,
    /// Every simple device holds a partial sum; the values are the sum over devices.
    WSP_GGML_BACKEND_SPLIT_AXIS_PARTIAL = 11,
    WSP_GGML_BACKEND_SPLIT_AXIS_NONE = 98,
    WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN = 99,
}

/// A split axis as C passes it (`enum wsp_ggml_backend_meta_split_axis` in the header).
#[cfg(meta)]
pub type wsp_ggml_backend_meta_split_axis = c_int;

macro_rules! split_axes {
    ($($name:ident)*) => {$(
        #[cfg(meta)]
        pub const $name: wsp_ggml_backend_meta_split_axis = wsp_ggml_backend_meta_split_axis_decl::$name as c_int;
    )*};
}
split_axes!(
    WSP_GGML_BACKEND_SPLIT_AXIS_0 WSP_GGML_BACKEND_SPLIT_AXIS_1 WSP_GGML_BACKEND_SPLIT_AXIS_2
    WSP_GGML_BACKEND_SPLIT_AXIS_3 WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED WSP_GGML_BACKEND_SPLIT_AXIS_PARTIAL
    WSP_GGML_BACKEND_SPLIT_AXIS_NONE WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN
);

/// `struct wsp_ggml_backend_meta_split_state`: how a tensor is spread over the simple devices.
/// For a dimension axis, `ne[s * n_devices + j]` is device j's share of segment s.
// (The meta code holds it as `meta::split::SplitState`, which always has `nr`.)
#[cfg(meta)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct wsp_ggml_backend_meta_split_state {
    pub axis: wsp_ggml_backend_meta_split_axis,
    /// 16 * WSP_GGML_BACKEND_META_MAX_DEVICES entries (spelled out for cbindgen).
    pub ne: [i64; 256],
    /// How many times segment s repeats along the axis (0.7; 0.6's segments are not repeated).
    #[cfg(meta_nr)]
    pub nr: [u32; 16],
    pub n_segments: u32,
}

#[cfg(meta)]
const _: () = assert!(256 == 16 * WSP_GGML_BACKEND_META_MAX_DEVICES);

/// `wsp_ggml_backend_meta_get_split_state_t`: the application's split of statically allocated
/// tensors.
#[cfg(meta)]
pub type wsp_ggml_backend_meta_get_split_state_t = Option<
    unsafe extern "C" fn(tensor: *const wsp_ggml_tensor, userdata: *mut c_void) -> wsp_ggml_backend_meta_split_state,
>;

pub type wsp_ggml_backend_init_t = Option<unsafe extern "C" fn() -> wsp_ggml_backend_reg_t>;
pub type wsp_ggml_backend_score_t = Option<unsafe extern "C" fn() -> c_int>;
