//! The parts of ggml core (`ggml.h`, `ggml-impl.h`) the backend layer reads: limits, op numbers,
//! flags, log levels, the tensor and graph structs. cbindgen does not emit these; ggml.h declares
//! them.

use super::*;
use std::ffi::{c_char, c_int, c_void};

pub const WSP_GGML_MAX_DIMS: usize = 4;
pub const WSP_GGML_MAX_SRC: usize = 10;
pub const WSP_GGML_MAX_NAME: usize = 64;
pub const WSP_GGML_MAX_OP_PARAMS: usize = 64;

/// `enum wsp_ggml_type`, kept as its integer so that any value C hands us is valid.
pub type wsp_ggml_type = c_int;
/// `enum wsp_ggml_op`, kept as its integer for the same reason.
pub type wsp_ggml_op = c_int;

/// From 0.5, ggml.h inserts ADD_ID (op_add_id) and then CUMSUM (op_cumsum) before RESHAPE,
/// shifting the ops below by one each.
const OP_SHIFT: wsp_ggml_op = cfg!(op_add_id) as wsp_ggml_op + cfg!(op_cumsum) as wsp_ggml_op;
pub const WSP_GGML_OP_NONE: wsp_ggml_op = 0;
pub const WSP_GGML_OP_RESHAPE: wsp_ggml_op = 34 + OP_SHIFT;
pub const WSP_GGML_OP_VIEW: wsp_ggml_op = 35 + OP_SHIFT;
pub const WSP_GGML_OP_PERMUTE: wsp_ggml_op = 36 + OP_SHIFT;
pub const WSP_GGML_OP_TRANSPOSE: wsp_ggml_op = 37 + OP_SHIFT;
pub const WSP_GGML_OP_ROPE: wsp_ggml_op = 46 + OP_SHIFT;

/// 0.7's ggml.h inserts COL2IM_1D after IM2COL_3D (op_col2im_1d; in none of the meta backend's
/// op ranges): the ops from CONV_2D on are one higher.
#[cfg(meta)]
const AFTER_IM2COL_3D: wsp_ggml_op = cfg!(op_col2im_1d) as wsp_ggml_op;
/// It also inserts LIGHTNING_INDEXER and DSV4_HC_COMB, _PRE and _POST after GATED_DELTA_NET
/// (op_lightning_indexer): the ops from UNARY on are four higher again.
#[cfg(meta)]
const AFTER_GATED_DELTA_NET: wsp_ggml_op = AFTER_IM2COL_3D + 4 * cfg!(op_lightning_indexer) as wsp_ggml_op;

#[cfg(meta)]
/// ggml.h's op numbers for the ops the meta backend distinguishes (its split-state inference
/// takes the ops between two named ones): 0.6's, counted up past a later release's insertions
/// (above). layout-check compares every one with the release's headers; cbindgen leaves them to
/// ggml.h.
///
/// cbindgen:ignore
pub mod op {
    use super::{wsp_ggml_op, AFTER_GATED_DELTA_NET, AFTER_IM2COL_3D};

    pub const NONE: wsp_ggml_op = 0;
    pub const DUP: wsp_ggml_op = 1;
    pub const ADD: wsp_ggml_op = 2;
    pub const ADD_ID: wsp_ggml_op = 3;
    pub const ADD1: wsp_ggml_op = 4;
    pub const ACC: wsp_ggml_op = 5;
    pub const SUB: wsp_ggml_op = 6;
    pub const MUL: wsp_ggml_op = 7;
    pub const DIV: wsp_ggml_op = 8;
    pub const SQR: wsp_ggml_op = 9;
    pub const COS: wsp_ggml_op = 13;
    pub const SUM: wsp_ggml_op = 14;
    pub const SUM_ROWS: wsp_ggml_op = 15;
    pub const COUNT_EQUAL: wsp_ggml_op = 19;
    pub const REPEAT: wsp_ggml_op = 20;
    pub const REPEAT_BACK: wsp_ggml_op = 21;
    pub const CONCAT: wsp_ggml_op = 22;
    pub const SILU_BACK: wsp_ggml_op = 23;
    pub const NORM: wsp_ggml_op = 24;
    pub const L2_NORM: wsp_ggml_op = 28;
    pub const MUL_MAT: wsp_ggml_op = 29;
    pub const MUL_MAT_ID: wsp_ggml_op = 30;
    pub const OUT_PROD: wsp_ggml_op = 31;
    pub const SCALE: wsp_ggml_op = 32;
    pub const SET: wsp_ggml_op = 33;
    pub const CPY: wsp_ggml_op = 34;
    pub const CONT: wsp_ggml_op = 35;
    pub const RESHAPE: wsp_ggml_op = 36;
    pub const VIEW: wsp_ggml_op = 37;
    pub const PERMUTE: wsp_ggml_op = 38;
    pub const TRANSPOSE: wsp_ggml_op = 39;
    pub const GET_ROWS: wsp_ggml_op = 40;
    pub const GET_ROWS_BACK: wsp_ggml_op = 41;
    pub const SET_ROWS: wsp_ggml_op = 42;
    pub const DIAG: wsp_ggml_op = 43;
    pub const DIAG_MASK_ZERO: wsp_ggml_op = 45;
    pub const SOFT_MAX: wsp_ggml_op = 46;
    pub const SOFT_MAX_BACK: wsp_ggml_op = 47;
    pub const ROPE: wsp_ggml_op = 48;
    pub const ROPE_BACK: wsp_ggml_op = 49;
    pub const CLAMP: wsp_ggml_op = 50;
    pub const CONV_TRANSPOSE_1D: wsp_ggml_op = 51;
    pub const IM2COL_3D: wsp_ggml_op = 54;
    pub const CONV_2D: wsp_ggml_op = 55 + AFTER_IM2COL_3D;
    pub const UPSCALE: wsp_ggml_op = 62 + AFTER_IM2COL_3D;
    pub const PAD: wsp_ggml_op = 63 + AFTER_IM2COL_3D;
    pub const PAD_REFLECT_1D: wsp_ggml_op = 64 + AFTER_IM2COL_3D;
    pub const TIMESTEP_EMBEDDING: wsp_ggml_op = 67 + AFTER_IM2COL_3D;
    pub const ARGSORT: wsp_ggml_op = 68 + AFTER_IM2COL_3D;
    pub const TOP_K: wsp_ggml_op = 69 + AFTER_IM2COL_3D;
    pub const LEAKY_RELU: wsp_ggml_op = 70 + AFTER_IM2COL_3D;
    pub const TRI: wsp_ggml_op = 71 + AFTER_IM2COL_3D;
    pub const FILL: wsp_ggml_op = 72 + AFTER_IM2COL_3D;
    pub const FLASH_ATTN_EXT: wsp_ggml_op = 73 + AFTER_IM2COL_3D;
    pub const FLASH_ATTN_BACK: wsp_ggml_op = 74 + AFTER_IM2COL_3D;
    pub const SSM_CONV: wsp_ggml_op = 75 + AFTER_IM2COL_3D;
    pub const SSM_SCAN: wsp_ggml_op = 76 + AFTER_IM2COL_3D;
    pub const SOLVE_TRI: wsp_ggml_op = 84 + AFTER_IM2COL_3D;
    pub const GATED_DELTA_NET: wsp_ggml_op = 85 + AFTER_IM2COL_3D;
    #[cfg(op_lightning_indexer)]
    pub const LIGHTNING_INDEXER: wsp_ggml_op = 86 + AFTER_IM2COL_3D;
    #[cfg(op_lightning_indexer)]
    pub const DSV4_HC_COMB: wsp_ggml_op = 87 + AFTER_IM2COL_3D;
    #[cfg(op_lightning_indexer)]
    pub const DSV4_HC_POST: wsp_ggml_op = 89 + AFTER_IM2COL_3D;
    pub const UNARY: wsp_ggml_op = 86 + AFTER_GATED_DELTA_NET;
    pub const MAP_CUSTOM1: wsp_ggml_op = 87 + AFTER_GATED_DELTA_NET;
    pub const CUSTOM: wsp_ggml_op = 90 + AFTER_GATED_DELTA_NET;
    pub const CROSS_ENTROPY_LOSS: wsp_ggml_op = 91 + AFTER_GATED_DELTA_NET;
    pub const CROSS_ENTROPY_LOSS_BACK: wsp_ggml_op = 92 + AFTER_GATED_DELTA_NET;
    pub const OPT_STEP_ADAMW: wsp_ggml_op = 93 + AFTER_GATED_DELTA_NET;
    pub const OPT_STEP_SGD: wsp_ggml_op = 94 + AFTER_GATED_DELTA_NET;
    pub const GLU: wsp_ggml_op = 95 + AFTER_GATED_DELTA_NET;
}

pub const WSP_GGML_TENSOR_FLAG_INPUT: i32 = 1;
pub const WSP_GGML_TENSOR_FLAG_OUTPUT: i32 = 2;
/// 0.7's ggml.h: the node must be computed (backends skip nodes without it).
#[cfg(compute_flag)]
pub const WSP_GGML_TENSOR_FLAG_COMPUTE: i32 = 16;

/// `enum wsp_ggml_log_level`
pub type wsp_ggml_log_level = c_int;
pub const WSP_GGML_LOG_LEVEL_DEBUG: wsp_ggml_log_level = 1;
pub const WSP_GGML_LOG_LEVEL_INFO: wsp_ggml_log_level = 2;
pub const WSP_GGML_LOG_LEVEL_WARN: wsp_ggml_log_level = 3;
pub const WSP_GGML_LOG_LEVEL_ERROR: wsp_ggml_log_level = 4;

/// `enum wsp_ggml_status`
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum wsp_ggml_status {
    WSP_GGML_STATUS_ALLOC_FAILED = -2,
    WSP_GGML_STATUS_FAILED = -1,
    WSP_GGML_STATUS_SUCCESS = 0,
    WSP_GGML_STATUS_ABORTED = 1,
}

/// `wsp_ggml_guid_t`: a pointer to 16 bytes.
pub type wsp_ggml_guid = [u8; 16];
pub type wsp_ggml_guid_t = *mut wsp_ggml_guid;

/// `struct wsp_ggml_tensor`
#[repr(C)]
pub struct wsp_ggml_tensor {
    pub r#type: wsp_ggml_type,
    pub buffer: *mut wsp_ggml_backend_buffer,
    pub ne: [i64; WSP_GGML_MAX_DIMS],
    pub nb: [usize; WSP_GGML_MAX_DIMS],
    pub op: wsp_ggml_op,
    pub op_params: [i32; WSP_GGML_MAX_OP_PARAMS / 4],
    pub flags: i32,
    pub src: [*mut wsp_ggml_tensor; WSP_GGML_MAX_SRC],
    pub view_src: *mut wsp_ggml_tensor,
    pub view_offs: usize,
    pub data: *mut c_void,
    pub name: [c_char; WSP_GGML_MAX_NAME],
    pub extra: *mut c_void,
    pub padding: [c_char; 8],
}

/// `struct wsp_ggml_hash_set` (ggml-impl.h)
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wsp_ggml_hash_set {
    pub size: usize,
    pub used: *mut u32,
    pub keys: *mut *mut wsp_ggml_tensor,
}

/// `struct wsp_ggml_cgraph` (ggml-impl.h)
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wsp_ggml_cgraph {
    pub size: c_int,
    pub n_nodes: c_int,
    pub n_leafs: c_int,
    pub nodes: *mut *mut wsp_ggml_tensor,
    pub grads: *mut *mut wsp_ggml_tensor,
    pub grad_accs: *mut *mut wsp_ggml_tensor,
    pub leafs: *mut *mut wsp_ggml_tensor,
    pub use_counts: *mut i32,
    pub visited_hash_set: wsp_ggml_hash_set,
    pub order: c_int,
    /// Identifies a graph to backends that cache per graph; 0 means unset (0.7).
    #[cfg(graph_uid)]
    pub uid: u64,
}

/// `struct wsp_ggml_init_params`
#[repr(C)]
pub struct wsp_ggml_init_params {
    pub mem_size: usize,
    pub mem_buffer: *mut c_void,
    pub no_alloc: bool,
}

/// Opaque `struct wsp_ggml_context`.
#[repr(C)]
pub struct wsp_ggml_context {
    _opaque: [u8; 0],
}

/// Opaque `struct wsp_ggml_gallocr` (ggml-alloc).
#[repr(C)]
pub struct wsp_ggml_gallocr {
    _opaque: [u8; 0],
}
pub type wsp_ggml_gallocr_t = *mut wsp_ggml_gallocr;

pub type wsp_ggml_abort_callback = Option<unsafe extern "C" fn(data: *mut c_void) -> bool>;
