//! whisper.rn's C ABI (ggml backend API version 1 for 0.4, 2 for 0.5 and 0.7): `#[repr(C)]`
//! mirrors of the structs, interface tables, enums and typedefs of its `ggml-backend.h` /
//! `ggml-backend-impl.h`, and of the parts of `ggml.h` / `ggml-impl.h` that the backend layer
//! reads. What a family added carries the capability's cfg (`#[cfg(api_v2)]`, `#[cfg(tensor_2d)]`,
//! ...; releases.txt lists each family's). Layouts are asserted at
//! compile time at the bottom of this file and compared with the C compiler's view by the ABI
//! parity test.
//!
//! Names follow C so that cbindgen emits exactly the C declarations.

use std::ffi::{c_char, c_int, c_void};

// ---------------------------------------------------------------------------------------------
// ggml core (defined by ggml.h / ggml-impl.h; cbindgen does not emit these)
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// ggml-backend.h
// ---------------------------------------------------------------------------------------------

pub type wsp_ggml_backend_buffer_type_t = *mut wsp_ggml_backend_buffer_type;
pub type wsp_ggml_backend_buffer_t = *mut wsp_ggml_backend_buffer;
pub type wsp_ggml_backend_event_t = *mut wsp_ggml_backend_event;
pub type wsp_ggml_backend_t = *mut wsp_ggml_backend;
pub type wsp_ggml_backend_graph_plan_t = *mut c_void;
pub type wsp_ggml_backend_reg_t = *mut wsp_ggml_backend_reg;
pub type wsp_ggml_backend_dev_t = *mut wsp_ggml_backend_device;
pub type wsp_ggml_backend_sched_t = *mut wsp_ggml_backend_sched;

/// Opaque `struct wsp_ggml_backend_sched`: C only ever holds a pointer to the library's
/// scheduler.
#[repr(C)]
pub struct wsp_ggml_backend_sched {
    _opaque: [u8; 0],
}

/// `enum wsp_ggml_backend_buffer_usage`
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum wsp_ggml_backend_buffer_usage {
    WSP_GGML_BACKEND_BUFFER_USAGE_ANY = 0,
    WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1,
    WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
}

/// `enum wsp_ggml_backend_dev_type`
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum wsp_ggml_backend_dev_type {
    WSP_GGML_BACKEND_DEVICE_TYPE_CPU = 0,
    WSP_GGML_BACKEND_DEVICE_TYPE_GPU = 1,
    /// An integrated GPU using host memory (0.5).
    #[cfg(api_v2)]
    WSP_GGML_BACKEND_DEVICE_TYPE_IGPU = 2,
    #[cfg(not(api_v2))]
    WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL = 2,
    #[cfg(api_v2)]
    WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL = 3,
    /// A device spanning several others, for tensor parallelism (0.7).
    #[cfg(meta)]
    WSP_GGML_BACKEND_DEVICE_TYPE_META = 4,
}

/// `struct wsp_ggml_backend_dev_caps`
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct wsp_ggml_backend_dev_caps {
    pub r#async: bool,
    pub host_buffer: bool,
    pub buffer_from_host_ptr: bool,
    pub events: bool,
    /// Whether model files can be mapped into this device's memory (0.7).
    #[cfg(mmap_support)]
    pub mmap_support: bool,
}

/// `struct wsp_ggml_backend_dev_props`
#[repr(C)]
pub struct wsp_ggml_backend_dev_props {
    pub name: *const c_char,
    pub description: *const c_char,
    pub memory_free: usize,
    pub memory_total: usize,
    pub r#type: wsp_ggml_backend_dev_type,
    /// A PCI device's bus id ("0000:01:00.0"), or NULL (0.5).
    #[cfg(api_v2)]
    pub device_id: *const c_char,
    pub caps: wsp_ggml_backend_dev_caps,
}

/// `struct wsp_ggml_backend_feature`
#[repr(C)]
pub struct wsp_ggml_backend_feature {
    pub name: *const c_char,
    pub value: *const c_char,
}

pub type wsp_ggml_backend_split_buffer_type_t =
    Option<unsafe extern "C" fn(main_device: c_int, tensor_split: *const f32) -> wsp_ggml_backend_buffer_type_t>;
pub type wsp_ggml_backend_set_n_threads_t = Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t, n_threads: c_int)>;
pub type wsp_ggml_backend_dev_get_extra_bufts_t =
    Option<unsafe extern "C" fn(device: wsp_ggml_backend_dev_t) -> *mut wsp_ggml_backend_buffer_type_t>;
pub type wsp_ggml_backend_set_abort_callback_t = Option<
    unsafe extern "C" fn(
        backend: wsp_ggml_backend_t,
        abort_callback: wsp_ggml_abort_callback,
        abort_callback_data: *mut c_void,
    ),
>;
pub type wsp_ggml_backend_get_features_t =
    Option<unsafe extern "C" fn(reg: wsp_ggml_backend_reg_t) -> *mut wsp_ggml_backend_feature>;

pub type wsp_ggml_backend_sched_eval_callback =
    Option<unsafe extern "C" fn(t: *mut wsp_ggml_tensor, ask: bool, user_data: *mut c_void) -> bool>;

/// `struct wsp_ggml_backend_graph_copy`
#[repr(C)]
pub struct wsp_ggml_backend_graph_copy {
    pub buffer: wsp_ggml_backend_buffer_t,
    pub ctx_allocated: *mut wsp_ggml_context,
    pub ctx_unallocated: *mut wsp_ggml_context,
    pub graph: *mut wsp_ggml_cgraph,
}

pub type wsp_ggml_backend_eval_callback = Option<
    unsafe extern "C" fn(
        node_index: c_int,
        t1: *mut wsp_ggml_tensor,
        t2: *mut wsp_ggml_tensor,
        user_data: *mut c_void,
    ) -> bool,
>;

// ---------------------------------------------------------------------------------------------
// ggml-backend-impl.h
// ---------------------------------------------------------------------------------------------

#[cfg(not(api_v2))]
pub const WSP_GGML_BACKEND_API_VERSION: c_int = 1;
#[cfg(api_v2)]
pub const WSP_GGML_BACKEND_API_VERSION: c_int = 2;

/// `struct wsp_ggml_backend_buffer_type_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wsp_ggml_backend_buffer_type_i {
    pub get_name: Option<unsafe extern "C" fn(buft: wsp_ggml_backend_buffer_type_t) -> *const c_char>,
    pub alloc_buffer:
        Option<unsafe extern "C" fn(buft: wsp_ggml_backend_buffer_type_t, size: usize) -> wsp_ggml_backend_buffer_t>,
    pub get_alignment: Option<unsafe extern "C" fn(buft: wsp_ggml_backend_buffer_type_t) -> usize>,
    pub get_max_size: Option<unsafe extern "C" fn(buft: wsp_ggml_backend_buffer_type_t) -> usize>,
    pub get_alloc_size:
        Option<unsafe extern "C" fn(buft: wsp_ggml_backend_buffer_type_t, tensor: *const wsp_ggml_tensor) -> usize>,
    pub is_host: Option<unsafe extern "C" fn(buft: wsp_ggml_backend_buffer_type_t) -> bool>,
}

/// `struct wsp_ggml_backend_buffer_type`
#[repr(C)]
pub struct wsp_ggml_backend_buffer_type {
    pub iface: wsp_ggml_backend_buffer_type_i,
    pub device: wsp_ggml_backend_dev_t,
    pub context: *mut c_void,
}

/// `struct wsp_ggml_backend_buffer_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wsp_ggml_backend_buffer_i {
    pub free_buffer: Option<unsafe extern "C" fn(buffer: wsp_ggml_backend_buffer_t)>,
    pub get_base: Option<unsafe extern "C" fn(buffer: wsp_ggml_backend_buffer_t) -> *mut c_void>,
    pub init_tensor: Option<
        unsafe extern "C" fn(buffer: wsp_ggml_backend_buffer_t, tensor: *mut wsp_ggml_tensor) -> wsp_ggml_status,
    >,
    pub memset_tensor: Option<
        unsafe extern "C" fn(
            buffer: wsp_ggml_backend_buffer_t,
            tensor: *mut wsp_ggml_tensor,
            value: u8,
            offset: usize,
            size: usize,
        ),
    >,
    pub set_tensor: Option<
        unsafe extern "C" fn(
            buffer: wsp_ggml_backend_buffer_t,
            tensor: *mut wsp_ggml_tensor,
            data: *const c_void,
            offset: usize,
            size: usize,
        ),
    >,
    pub get_tensor: Option<
        unsafe extern "C" fn(
            buffer: wsp_ggml_backend_buffer_t,
            tensor: *const wsp_ggml_tensor,
            data: *mut c_void,
            offset: usize,
            size: usize,
        ),
    >,
    /// Writes `n_copies` runs of `size` bytes, strided on both sides (optional, 0.7).
    #[cfg(tensor_2d)]
    pub set_tensor_2d: Option<
        unsafe extern "C" fn(
            buffer: wsp_ggml_backend_buffer_t,
            tensor: *mut wsp_ggml_tensor,
            data: *const c_void,
            offset: usize,
            size: usize,
            n_copies: usize,
            stride_tensor: usize,
            stride_data: usize,
        ),
    >,
    /// Reads `n_copies` runs of `size` bytes, strided on both sides (optional, 0.7).
    #[cfg(tensor_2d)]
    pub get_tensor_2d: Option<
        unsafe extern "C" fn(
            buffer: wsp_ggml_backend_buffer_t,
            tensor: *const wsp_ggml_tensor,
            data: *mut c_void,
            offset: usize,
            size: usize,
            n_copies: usize,
            stride_tensor: usize,
            stride_data: usize,
        ),
    >,
    pub cpy_tensor: Option<
        unsafe extern "C" fn(
            buffer: wsp_ggml_backend_buffer_t,
            src: *const wsp_ggml_tensor,
            dst: *mut wsp_ggml_tensor,
        ) -> bool,
    >,
    pub clear: Option<unsafe extern "C" fn(buffer: wsp_ggml_backend_buffer_t, value: u8)>,
    pub reset: Option<unsafe extern "C" fn(buffer: wsp_ggml_backend_buffer_t)>,
}

impl wsp_ggml_backend_buffer_i {
    /// A table without entries, to start interface tables from (`..NONE`).
    pub(crate) const NONE: Self = wsp_ggml_backend_buffer_i {
        free_buffer: None,
        get_base: None,
        init_tensor: None,
        memset_tensor: None,
        set_tensor: None,
        get_tensor: None,
        #[cfg(tensor_2d)]
        set_tensor_2d: None,
        #[cfg(tensor_2d)]
        get_tensor_2d: None,
        cpy_tensor: None,
        clear: None,
        reset: None,
    };
}

/// `struct wsp_ggml_backend_buffer`
#[repr(C)]
pub struct wsp_ggml_backend_buffer {
    pub iface: wsp_ggml_backend_buffer_i,
    pub buft: wsp_ggml_backend_buffer_type_t,
    pub context: *mut c_void,
    pub size: usize,
    pub usage: wsp_ggml_backend_buffer_usage,
}

/// `struct wsp_ggml_backend_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wsp_ggml_backend_i {
    pub get_name: Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t) -> *const c_char>,
    pub free: Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t)>,
    pub set_tensor_async: Option<
        unsafe extern "C" fn(
            backend: wsp_ggml_backend_t,
            tensor: *mut wsp_ggml_tensor,
            data: *const c_void,
            offset: usize,
            size: usize,
        ),
    >,
    pub get_tensor_async: Option<
        unsafe extern "C" fn(
            backend: wsp_ggml_backend_t,
            tensor: *const wsp_ggml_tensor,
            data: *mut c_void,
            offset: usize,
            size: usize,
        ),
    >,
    /// The asynchronous `set_tensor_2d` (optional, 0.7).
    #[cfg(tensor_2d)]
    pub set_tensor_2d_async: Option<
        unsafe extern "C" fn(
            backend: wsp_ggml_backend_t,
            tensor: *mut wsp_ggml_tensor,
            data: *const c_void,
            offset: usize,
            size: usize,
            n_copies: usize,
            stride_tensor: usize,
            stride_data: usize,
        ),
    >,
    /// The asynchronous `get_tensor_2d` (optional, 0.7).
    #[cfg(tensor_2d)]
    pub get_tensor_2d_async: Option<
        unsafe extern "C" fn(
            backend: wsp_ggml_backend_t,
            tensor: *const wsp_ggml_tensor,
            data: *mut c_void,
            offset: usize,
            size: usize,
            n_copies: usize,
            stride_tensor: usize,
            stride_data: usize,
        ),
    >,
    pub cpy_tensor_async: Option<
        unsafe extern "C" fn(
            backend_src: wsp_ggml_backend_t,
            backend_dst: wsp_ggml_backend_t,
            src: *const wsp_ggml_tensor,
            dst: *mut wsp_ggml_tensor,
        ) -> bool,
    >,
    pub synchronize: Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t)>,
    pub graph_plan_create: Option<
        unsafe extern "C" fn(
            backend: wsp_ggml_backend_t,
            cgraph: *const wsp_ggml_cgraph,
        ) -> wsp_ggml_backend_graph_plan_t,
    >,
    pub graph_plan_free: Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t, plan: wsp_ggml_backend_graph_plan_t)>,
    pub graph_plan_update: Option<
        unsafe extern "C" fn(
            backend: wsp_ggml_backend_t,
            plan: wsp_ggml_backend_graph_plan_t,
            cgraph: *const wsp_ggml_cgraph,
        ),
    >,
    pub graph_plan_compute: Option<
        unsafe extern "C" fn(backend: wsp_ggml_backend_t, plan: wsp_ggml_backend_graph_plan_t) -> wsp_ggml_status,
    >,
    pub graph_compute:
        Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t, cgraph: *mut wsp_ggml_cgraph) -> wsp_ggml_status>,
    pub event_record: Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t, event: wsp_ggml_backend_event_t)>,
    pub event_wait: Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t, event: wsp_ggml_backend_event_t)>,
    /// Reorders a split's nodes before it is computed (0.5).
    #[cfg(api_v2)]
    pub graph_optimize: Option<unsafe extern "C" fn(backend: wsp_ggml_backend_t, cgraph: *mut wsp_ggml_cgraph)>,
}

/// `struct wsp_ggml_backend`
#[repr(C)]
pub struct wsp_ggml_backend {
    pub guid: wsp_ggml_guid_t,
    pub iface: wsp_ggml_backend_i,
    pub device: wsp_ggml_backend_dev_t,
    pub context: *mut c_void,
}

/// `struct wsp_ggml_backend_event`
#[repr(C)]
pub struct wsp_ggml_backend_event {
    pub device: *mut wsp_ggml_backend_device,
    pub context: *mut c_void,
}

/// `struct wsp_ggml_backend_device_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wsp_ggml_backend_device_i {
    pub get_name: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t) -> *const c_char>,
    pub get_description: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t) -> *const c_char>,
    pub get_memory: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, free: *mut usize, total: *mut usize)>,
    pub get_type: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_dev_type>,
    pub get_props: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, props: *mut wsp_ggml_backend_dev_props)>,
    pub init_backend:
        Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, params: *const c_char) -> wsp_ggml_backend_t>,
    pub get_buffer_type: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_buffer_type_t>,
    pub get_host_buffer_type:
        Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_buffer_type_t>,
    pub buffer_from_host_ptr: Option<
        unsafe extern "C" fn(
            dev: wsp_ggml_backend_dev_t,
            ptr: *mut c_void,
            size: usize,
            max_tensor_size: usize,
        ) -> wsp_ggml_backend_buffer_t,
    >,
    pub supports_op: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, op: *const wsp_ggml_tensor) -> bool>,
    pub supports_buft:
        Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, buft: wsp_ggml_backend_buffer_type_t) -> bool>,
    pub offload_op: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, op: *const wsp_ggml_tensor) -> bool>,
    pub event_new: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_event_t>,
    pub event_free: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, event: wsp_ggml_backend_event_t)>,
    pub event_synchronize: Option<unsafe extern "C" fn(dev: wsp_ggml_backend_dev_t, event: wsp_ggml_backend_event_t)>,
}

/// `struct wsp_ggml_backend_device`
#[repr(C)]
pub struct wsp_ggml_backend_device {
    pub iface: wsp_ggml_backend_device_i,
    pub reg: wsp_ggml_backend_reg_t,
    pub context: *mut c_void,
}

/// `struct wsp_ggml_backend_reg_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct wsp_ggml_backend_reg_i {
    pub get_name: Option<unsafe extern "C" fn(reg: wsp_ggml_backend_reg_t) -> *const c_char>,
    pub get_device_count: Option<unsafe extern "C" fn(reg: wsp_ggml_backend_reg_t) -> usize>,
    pub get_device: Option<unsafe extern "C" fn(reg: wsp_ggml_backend_reg_t, index: usize) -> wsp_ggml_backend_dev_t>,
    pub get_proc_address: Option<unsafe extern "C" fn(reg: wsp_ggml_backend_reg_t, name: *const c_char) -> *mut c_void>,
}

/// `struct wsp_ggml_backend_reg`
#[repr(C)]
pub struct wsp_ggml_backend_reg {
    pub api_version: c_int,
    pub iface: wsp_ggml_backend_reg_i,
    pub context: *mut c_void,
}

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

// ---------------------------------------------------------------------------------------------
// Compile-time layout checks, written once for every family and pointer width (x86-64, aarch64,
// armv7, i686): offsets in pointer sizes, with the entries a capability inserts counted in. The
// numbers agree with whisper.rn's headers compiled for each target (ctests/abi/abi_layout.c, and
// layout-check/, which asserts the same from bindgen's reading of a release's headers).
// ---------------------------------------------------------------------------------------------

macro_rules! assert_layout {
    ($t:ty, size $size:expr, align $align:expr $(, $field:ident @ $off:expr)* $(,)?) => {
        const _: () = assert!(std::mem::size_of::<$t>() == $size);
        const _: () = assert!(std::mem::align_of::<$t>() == $align);
        $(const _: () = assert!(std::mem::offset_of!($t, $field) == $off);)*
    };
}

mod layout_checks {
    use super::*;
    /// Pointers and size_t.
    const P: usize = std::mem::size_of::<usize>();
    /// int64_t and uint64_t align to 4 on i686, to 8 elsewhere.
    const I64: usize = std::mem::align_of::<i64>();
    /// The 2d accessors' entries (tensor_2d), after get_tensor and after get_tensor_async.
    const T2D: usize = if cfg!(tensor_2d) { 2 } else { 0 };
    /// backend_i's graph_optimize, last (api_v2).
    const OPTIMIZE: usize = if cfg!(api_v2) { 1 } else { 0 };

    assert_layout!(wsp_ggml_tensor, size 20 * P + 176, align I64,
        r#type @ 0, buffer @ P, ne @ 2 * P, nb @ 2 * P + 32, op @ 6 * P + 32, op_params @ 6 * P + 36,
        flags @ 6 * P + 100, src @ 6 * P + 104, view_src @ 16 * P + 104, view_offs @ 17 * P + 104,
        data @ 18 * P + 104, name @ 19 * P + 104, extra @ 19 * P + 168, padding @ 20 * P + 168);
    assert_layout!(wsp_ggml_hash_set, size 3 * P, align P, size @ 0, used @ P, keys @ 2 * P);
    const NODES: usize = 12usize.next_multiple_of(P);
    const ORDER: usize = NODES + 8 * P;
    const UID: usize = (ORDER + 4).next_multiple_of(I64);
    const CGRAPH_SIZE: usize = if cfg!(graph_uid) { UID + 8 } else { (ORDER + 4).next_multiple_of(P) };
    assert_layout!(wsp_ggml_cgraph, size CGRAPH_SIZE, align (if cfg!(graph_uid) { I64 } else { P }),
        size @ 0, n_nodes @ 4, n_leafs @ 8, nodes @ NODES, grads @ NODES + P, grad_accs @ NODES + 2 * P,
        leafs @ NODES + 3 * P, use_counts @ NODES + 4 * P, visited_hash_set @ NODES + 5 * P, order @ ORDER);
    #[cfg(graph_uid)]
    assert_layout!(wsp_ggml_cgraph, size UID + 8, align I64, uid @ UID);
    assert_layout!(wsp_ggml_init_params, size 3 * P, align P, mem_size @ 0, mem_buffer @ P, no_alloc @ 2 * P);
    assert_layout!(wsp_ggml_status, size 4, align 4);
    assert_layout!(wsp_ggml_backend_buffer_usage, size 4, align 4);
    assert_layout!(wsp_ggml_backend_dev_type, size 4, align 4);

    const CAPS_SIZE: usize = if cfg!(mmap_support) { 5 } else { 4 };
    assert_layout!(wsp_ggml_backend_dev_caps, size CAPS_SIZE, align 1,
        r#async @ 0, host_buffer @ 1, buffer_from_host_ptr @ 2, events @ 3);
    #[cfg(mmap_support)]
    assert_layout!(wsp_ggml_backend_dev_caps, size 5, align 1, mmap_support @ 4);
    const CAPS: usize = if cfg!(api_v2) { 6 * P } else { 4 * P + 4 };
    assert_layout!(wsp_ggml_backend_dev_props, size (CAPS + CAPS_SIZE).next_multiple_of(P), align P,
        name @ 0, description @ P, memory_free @ 2 * P, memory_total @ 3 * P, r#type @ 4 * P, caps @ CAPS);
    #[cfg(api_v2)]
    assert_layout!(wsp_ggml_backend_dev_props, size (CAPS + CAPS_SIZE).next_multiple_of(P), align P, device_id @ 5 * P);
    assert_layout!(wsp_ggml_backend_feature, size 2 * P, align P, name @ 0, value @ P);
    assert_layout!(wsp_ggml_backend_graph_copy, size 4 * P, align P,
        buffer @ 0, ctx_allocated @ P, ctx_unallocated @ 2 * P, graph @ 3 * P);

    assert_layout!(wsp_ggml_backend_buffer_type_i, size 6 * P, align P,
        get_name @ 0, alloc_buffer @ P, get_alignment @ 2 * P, get_max_size @ 3 * P, get_alloc_size @ 4 * P,
        is_host @ 5 * P);
    assert_layout!(wsp_ggml_backend_buffer_type, size 8 * P, align P, iface @ 0, device @ 6 * P, context @ 7 * P);
    const BUFFER_I: usize = (9 + T2D) * P;
    assert_layout!(wsp_ggml_backend_buffer_i, size BUFFER_I, align P,
        free_buffer @ 0, get_base @ P, init_tensor @ 2 * P, memset_tensor @ 3 * P, set_tensor @ 4 * P,
        get_tensor @ 5 * P, cpy_tensor @ (6 + T2D) * P, clear @ (7 + T2D) * P, reset @ (8 + T2D) * P);
    #[cfg(tensor_2d)]
    assert_layout!(wsp_ggml_backend_buffer_i, size BUFFER_I, align P, set_tensor_2d @ 6 * P, get_tensor_2d @ 7 * P);
    assert_layout!(wsp_ggml_backend_buffer, size BUFFER_I + 4 * P, align P,
        iface @ 0, buft @ BUFFER_I, context @ BUFFER_I + P, size @ BUFFER_I + 2 * P, usage @ BUFFER_I + 3 * P);
    const BACKEND_I: usize = (13 + T2D + OPTIMIZE) * P;
    assert_layout!(wsp_ggml_backend_i, size BACKEND_I, align P,
        get_name @ 0, free @ P, set_tensor_async @ 2 * P, get_tensor_async @ 3 * P,
        cpy_tensor_async @ (4 + T2D) * P, synchronize @ (5 + T2D) * P, graph_plan_create @ (6 + T2D) * P,
        graph_plan_free @ (7 + T2D) * P, graph_plan_update @ (8 + T2D) * P, graph_plan_compute @ (9 + T2D) * P,
        graph_compute @ (10 + T2D) * P, event_record @ (11 + T2D) * P, event_wait @ (12 + T2D) * P);
    #[cfg(tensor_2d)]
    assert_layout!(wsp_ggml_backend_i, size BACKEND_I, align P, set_tensor_2d_async @ 4 * P, get_tensor_2d_async @ 5 * P);
    #[cfg(api_v2)]
    assert_layout!(wsp_ggml_backend_i, size BACKEND_I, align P, graph_optimize @ (13 + T2D) * P);
    assert_layout!(wsp_ggml_backend, size BACKEND_I + 3 * P, align P,
        guid @ 0, iface @ P, device @ BACKEND_I + P, context @ BACKEND_I + 2 * P);
    assert_layout!(wsp_ggml_backend_event, size 2 * P, align P, device @ 0, context @ P);
    assert_layout!(wsp_ggml_backend_device_i, size 15 * P, align P,
        get_name @ 0, get_description @ P, get_memory @ 2 * P, get_type @ 3 * P, get_props @ 4 * P,
        init_backend @ 5 * P, get_buffer_type @ 6 * P, get_host_buffer_type @ 7 * P, buffer_from_host_ptr @ 8 * P,
        supports_op @ 9 * P, supports_buft @ 10 * P, offload_op @ 11 * P, event_new @ 12 * P, event_free @ 13 * P,
        event_synchronize @ 14 * P);
    assert_layout!(wsp_ggml_backend_device, size 17 * P, align P, iface @ 0, reg @ 15 * P, context @ 16 * P);
    assert_layout!(wsp_ggml_backend_reg_i, size 4 * P, align P,
        get_name @ 0, get_device_count @ P, get_device @ 2 * P, get_proc_address @ 3 * P);
    assert_layout!(wsp_ggml_backend_reg, size 6 * P, align P, api_version @ 0, iface @ P, context @ 5 * P);

    /// The split state's nr[16] (meta_nr), between ne and n_segments.
    #[cfg(meta)]
    const NR: usize = if cfg!(meta_nr) { 4 * 16 } else { 0 };
    #[cfg(meta)]
    assert_layout!(wsp_ggml_backend_meta_split_state, size (I64 + 8 * 256 + NR + 4).next_multiple_of(I64), align I64,
        axis @ 0, ne @ I64, n_segments @ I64 + 8 * 256 + NR);
    #[cfg(meta_nr)]
    assert_layout!(wsp_ggml_backend_meta_split_state, size (I64 + 8 * 256 + NR + 4).next_multiple_of(I64), align I64,
        nr @ I64 + 8 * 256);
}
