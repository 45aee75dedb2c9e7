//! The parts of ggml core (`ggml.h`, `ggml-impl.h`) the backend layer reads: limits, op numbers,
//! flags, log levels, the tensor and graph structs. cbindgen does not emit these; ggml.h declares
//! them.

use super::*;
use core::ffi::{c_char, c_int, c_void};

pub const GGML_MAX_DIMS: usize = 4;
pub const GGML_MAX_SRC: usize = 10;
pub const GGML_MAX_NAME: usize = 64;
pub const GGML_MAX_OP_PARAMS: usize = 64;

/// `enum ggml_type`, kept as its integer so that any value C hands us is valid.
pub type ggml_type = c_int;
/// `enum ggml_op`, kept as its integer for the same reason.
pub type ggml_op = c_int;

/// From 0.5, ggml.h inserts ADD_ID (op_add_id) and then CUMSUM (op_cumsum) before RESHAPE,
/// shifting the ops below by one each.
const OP_SHIFT: ggml_op = cfg!(op_add_id) as ggml_op + cfg!(op_cumsum) as ggml_op;
pub const GGML_OP_NONE: ggml_op = 0;
pub const GGML_OP_RESHAPE: ggml_op = 34 + OP_SHIFT;
pub const GGML_OP_VIEW: ggml_op = 35 + OP_SHIFT;
pub const GGML_OP_PERMUTE: ggml_op = 36 + OP_SHIFT;
pub const GGML_OP_TRANSPOSE: ggml_op = 37 + OP_SHIFT;
pub const GGML_OP_ROPE: ggml_op = 46 + OP_SHIFT;

/// 0.7's ggml.h inserts COL2IM_1D after IM2COL_3D (op_col2im_1d; in none of the meta backend's
/// op ranges): the ops from CONV_2D on are one higher.
#[cfg(meta)]
const AFTER_IM2COL_3D: ggml_op = cfg!(op_col2im_1d) as ggml_op;
/// It also inserts LIGHTNING_INDEXER after GATED_DELTA_NET (op_lightning_indexer), and
/// DSV4_HC_COMB, _PRE and _POST after that (op_dsv4_hc; llama.rn 0.12.6 has the first without
/// the others): the ops from UNARY on are up to four higher again.
#[cfg(meta)]
const AFTER_LIGHTNING_INDEXER: ggml_op = AFTER_IM2COL_3D + cfg!(op_lightning_indexer) as ggml_op;
#[cfg(meta)]
const AFTER_GATED_DELTA_NET: ggml_op = AFTER_LIGHTNING_INDEXER + 3 * cfg!(op_dsv4_hc) as ggml_op;

#[cfg(meta)]
/// ggml.h's op numbers for the ops the meta backend distinguishes (its split-state inference
/// takes the ops between two named ones): 0.6's, counted up past a later release's insertions
/// (above). layout-check compares every one with the release's headers; cbindgen leaves them to
/// ggml.h.
///
/// cbindgen:ignore
pub mod op {
    use super::{ggml_op, AFTER_GATED_DELTA_NET, AFTER_IM2COL_3D};

    pub const NONE: ggml_op = 0;
    pub const DUP: ggml_op = 1;
    pub const ADD: ggml_op = 2;
    pub const ADD_ID: ggml_op = 3;
    pub const ADD1: ggml_op = 4;
    pub const ACC: ggml_op = 5;
    pub const SUB: ggml_op = 6;
    pub const MUL: ggml_op = 7;
    pub const DIV: ggml_op = 8;
    pub const SQR: ggml_op = 9;
    pub const COS: ggml_op = 13;
    pub const CUMSUM: ggml_op = 16;
    pub const SUM: ggml_op = 14;
    pub const SUM_ROWS: ggml_op = 15;
    pub const COUNT_EQUAL: ggml_op = 19;
    pub const REPEAT: ggml_op = 20;
    pub const REPEAT_BACK: ggml_op = 21;
    pub const CONCAT: ggml_op = 22;
    pub const SILU_BACK: ggml_op = 23;
    pub const NORM: ggml_op = 24;
    pub const L2_NORM: ggml_op = 28;
    pub const MUL_MAT: ggml_op = 29;
    pub const MUL_MAT_ID: ggml_op = 30;
    pub const OUT_PROD: ggml_op = 31;
    pub const SCALE: ggml_op = 32;
    pub const SET: ggml_op = 33;
    pub const CPY: ggml_op = 34;
    pub const CONT: ggml_op = 35;
    pub const RESHAPE: ggml_op = 36;
    pub const VIEW: ggml_op = 37;
    pub const PERMUTE: ggml_op = 38;
    pub const TRANSPOSE: ggml_op = 39;
    pub const GET_ROWS: ggml_op = 40;
    pub const GET_ROWS_BACK: ggml_op = 41;
    pub const SET_ROWS: ggml_op = 42;
    pub const DIAG: ggml_op = 43;
    pub const DIAG_MASK_ZERO: ggml_op = 45;
    pub const SOFT_MAX: ggml_op = 46;
    pub const SOFT_MAX_BACK: ggml_op = 47;
    pub const ROPE: ggml_op = 48;
    pub const ROPE_BACK: ggml_op = 49;
    pub const CLAMP: ggml_op = 50;
    pub const CONV_TRANSPOSE_1D: ggml_op = 51;
    pub const IM2COL_3D: ggml_op = 54;
    pub const CONV_2D: ggml_op = 55 + AFTER_IM2COL_3D;
    pub const UPSCALE: ggml_op = 62 + AFTER_IM2COL_3D;
    pub const PAD: ggml_op = 63 + AFTER_IM2COL_3D;
    pub const PAD_REFLECT_1D: ggml_op = 64 + AFTER_IM2COL_3D;
    pub const TIMESTEP_EMBEDDING: ggml_op = 67 + AFTER_IM2COL_3D;
    pub const ARGSORT: ggml_op = 68 + AFTER_IM2COL_3D;
    pub const TOP_K: ggml_op = 69 + AFTER_IM2COL_3D;
    pub const LEAKY_RELU: ggml_op = 70 + AFTER_IM2COL_3D;
    pub const TRI: ggml_op = 71 + AFTER_IM2COL_3D;
    pub const FILL: ggml_op = 72 + AFTER_IM2COL_3D;
    pub const FLASH_ATTN_EXT: ggml_op = 73 + AFTER_IM2COL_3D;
    pub const FLASH_ATTN_BACK: ggml_op = 74 + AFTER_IM2COL_3D;
    pub const SSM_CONV: ggml_op = 75 + AFTER_IM2COL_3D;
    pub const SSM_SCAN: ggml_op = 76 + AFTER_IM2COL_3D;
    pub const SOLVE_TRI: ggml_op = 84 + AFTER_IM2COL_3D;
    pub const GATED_DELTA_NET: ggml_op = 85 + AFTER_IM2COL_3D;
    #[cfg(op_lightning_indexer)]
    pub const LIGHTNING_INDEXER: ggml_op = 86 + AFTER_IM2COL_3D;
    #[cfg(op_dsv4_hc)]
    pub const DSV4_HC_COMB: ggml_op = 86 + super::AFTER_LIGHTNING_INDEXER;
    #[cfg(op_dsv4_hc)]
    pub const DSV4_HC_POST: ggml_op = 88 + super::AFTER_LIGHTNING_INDEXER;
    pub const UNARY: ggml_op = 86 + AFTER_GATED_DELTA_NET;
    pub const MAP_CUSTOM1: ggml_op = 87 + AFTER_GATED_DELTA_NET;
    pub const CUSTOM: ggml_op = 90 + AFTER_GATED_DELTA_NET;
    pub const CROSS_ENTROPY_LOSS: ggml_op = 91 + AFTER_GATED_DELTA_NET;
    pub const CROSS_ENTROPY_LOSS_BACK: ggml_op = 92 + AFTER_GATED_DELTA_NET;
    pub const OPT_STEP_ADAMW: ggml_op = 93 + AFTER_GATED_DELTA_NET;
    pub const OPT_STEP_SGD: ggml_op = 94 + AFTER_GATED_DELTA_NET;
    pub const GLU: ggml_op = 95 + AFTER_GATED_DELTA_NET;
}

pub const GGML_TENSOR_FLAG_INPUT: i32 = 1;
pub const GGML_TENSOR_FLAG_OUTPUT: i32 = 2;
/// 0.7's ggml.h: the node must be computed (backends skip nodes without it).
#[cfg(compute_flag)]
pub const GGML_TENSOR_FLAG_COMPUTE: i32 = 16;

/// `enum ggml_log_level`
pub type ggml_log_level = c_int;
pub const GGML_LOG_LEVEL_DEBUG: ggml_log_level = 1;
pub const GGML_LOG_LEVEL_INFO: ggml_log_level = 2;
pub const GGML_LOG_LEVEL_WARN: ggml_log_level = 3;
pub const GGML_LOG_LEVEL_ERROR: ggml_log_level = 4;

/// `enum ggml_status`
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ggml_status {
    GGML_STATUS_ALLOC_FAILED = -2,
    GGML_STATUS_FAILED = -1,
    GGML_STATUS_SUCCESS = 0,
    GGML_STATUS_ABORTED = 1,
}

/// `ggml_guid_t`: a pointer to 16 bytes.
pub type ggml_guid = [u8; 16];
pub type ggml_guid_t = *mut ggml_guid;

/// `struct ggml_tensor`
#[repr(C)]
pub struct ggml_tensor {
    pub r#type: ggml_type,
    pub buffer: *mut ggml_backend_buffer,
    pub ne: [i64; GGML_MAX_DIMS],
    pub nb: [usize; GGML_MAX_DIMS],
    pub op: ggml_op,
    pub op_params: [i32; GGML_MAX_OP_PARAMS / 4],
    pub flags: i32,
    pub src: [*mut ggml_tensor; GGML_MAX_SRC],
    pub view_src: *mut ggml_tensor,
    pub view_offs: usize,
    pub data: *mut c_void,
    pub name: [c_char; GGML_MAX_NAME],
    pub extra: *mut c_void,
    pub padding: [c_char; 8],
}

/// `struct ggml_hash_set` (ggml-impl.h)
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ggml_hash_set {
    pub size: usize,
    pub used: *mut u32,
    pub keys: *mut *mut ggml_tensor,
}

/// `struct ggml_cgraph` (ggml-impl.h)
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ggml_cgraph {
    pub size: c_int,
    pub n_nodes: c_int,
    pub n_leafs: c_int,
    pub nodes: *mut *mut ggml_tensor,
    pub grads: *mut *mut ggml_tensor,
    pub grad_accs: *mut *mut ggml_tensor,
    pub leafs: *mut *mut ggml_tensor,
    pub use_counts: *mut i32,
    pub visited_hash_set: ggml_hash_set,
    pub order: c_int,
    /// Identifies a graph to backends that cache per graph; 0 means unset (0.7).
    #[cfg(graph_uid)]
    pub uid: u64,
}

/// `struct ggml_init_params`
#[repr(C)]
pub struct ggml_init_params {
    pub mem_size: usize,
    pub mem_buffer: *mut c_void,
    pub no_alloc: bool,
}

/// Opaque `struct ggml_context`.
#[repr(C)]
pub struct ggml_context {
    _opaque: [u8; 0],
}

/// Opaque `struct ggml_gallocr` (ggml-alloc).
#[repr(C)]
pub struct ggml_gallocr {
    _opaque: [u8; 0],
}
pub type ggml_gallocr_t = *mut ggml_gallocr;

pub type ggml_abort_callback = Option<unsafe extern "C" fn(data: *mut c_void) -> bool>;
