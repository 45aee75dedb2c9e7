//! whisper.rn's C ABI (ggml backend API version 1 for 0.4, 2 for 0.5 and 0.7): `#[repr(C)]`
//! mirrors of the structs, interface tables, enums and typedefs of its `ggml-backend.h` /
//! `ggml-backend-impl.h`, and of the parts of `ggml.h` / `ggml-impl.h` that the backend layer
//! reads. What 0.5 added is marked `#[cfg(feature = "whisper-rn-0-5")]` (which 0.7 implies), what
//! 0.7 added `#[cfg(feature = "whisper-rn-0-7")]`. Layouts are asserted at
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

/// 0.5's ggml.h inserts ADD_ID and CUMSUM before RESHAPE, shifting the ops below by two.
const OP_SHIFT: wsp_ggml_op = if cfg!(feature = "whisper-rn-0-5") { 2 } else { 0 };
pub const WSP_GGML_OP_NONE: wsp_ggml_op = 0;
pub const WSP_GGML_OP_RESHAPE: wsp_ggml_op = 34 + OP_SHIFT;
pub const WSP_GGML_OP_VIEW: wsp_ggml_op = 35 + OP_SHIFT;
pub const WSP_GGML_OP_PERMUTE: wsp_ggml_op = 36 + OP_SHIFT;
pub const WSP_GGML_OP_TRANSPOSE: wsp_ggml_op = 37 + OP_SHIFT;
pub const WSP_GGML_OP_ROPE: wsp_ggml_op = 46 + OP_SHIFT;

#[cfg(feature = "whisper-rn-0-7")]
/// 0.7.4's ggml.h op numbers, for the ops the meta backend distinguishes (its split-state
/// inference takes the ops between two named ones; 55, COL2IM_1D, is in none). layout-check
/// compares every one with the release's headers; cbindgen leaves them to ggml.h.
///
/// cbindgen:ignore
pub mod op {
    pub const NONE: super::wsp_ggml_op = 0;
    pub const DUP: super::wsp_ggml_op = 1;
    pub const ADD: super::wsp_ggml_op = 2;
    pub const ADD_ID: super::wsp_ggml_op = 3;
    pub const ADD1: super::wsp_ggml_op = 4;
    pub const ACC: super::wsp_ggml_op = 5;
    pub const SUB: super::wsp_ggml_op = 6;
    pub const MUL: super::wsp_ggml_op = 7;
    pub const DIV: super::wsp_ggml_op = 8;
    pub const SQR: super::wsp_ggml_op = 9;
    pub const COS: super::wsp_ggml_op = 13;
    pub const SUM: super::wsp_ggml_op = 14;
    pub const SUM_ROWS: super::wsp_ggml_op = 15;
    pub const COUNT_EQUAL: super::wsp_ggml_op = 19;
    pub const REPEAT: super::wsp_ggml_op = 20;
    pub const REPEAT_BACK: super::wsp_ggml_op = 21;
    pub const CONCAT: super::wsp_ggml_op = 22;
    pub const SILU_BACK: super::wsp_ggml_op = 23;
    pub const NORM: super::wsp_ggml_op = 24;
    pub const L2_NORM: super::wsp_ggml_op = 28;
    pub const MUL_MAT: super::wsp_ggml_op = 29;
    pub const MUL_MAT_ID: super::wsp_ggml_op = 30;
    pub const OUT_PROD: super::wsp_ggml_op = 31;
    pub const SCALE: super::wsp_ggml_op = 32;
    pub const SET: super::wsp_ggml_op = 33;
    pub const CPY: super::wsp_ggml_op = 34;
    pub const CONT: super::wsp_ggml_op = 35;
    pub const RESHAPE: super::wsp_ggml_op = 36;
    pub const VIEW: super::wsp_ggml_op = 37;
    pub const PERMUTE: super::wsp_ggml_op = 38;
    pub const TRANSPOSE: super::wsp_ggml_op = 39;
    pub const GET_ROWS: super::wsp_ggml_op = 40;
    pub const GET_ROWS_BACK: super::wsp_ggml_op = 41;
    pub const SET_ROWS: super::wsp_ggml_op = 42;
    pub const DIAG: super::wsp_ggml_op = 43;
    pub const DIAG_MASK_ZERO: super::wsp_ggml_op = 45;
    pub const SOFT_MAX: super::wsp_ggml_op = 46;
    pub const SOFT_MAX_BACK: super::wsp_ggml_op = 47;
    pub const ROPE: super::wsp_ggml_op = 48;
    pub const ROPE_BACK: super::wsp_ggml_op = 49;
    pub const CLAMP: super::wsp_ggml_op = 50;
    pub const CONV_TRANSPOSE_1D: super::wsp_ggml_op = 51;
    pub const IM2COL_3D: super::wsp_ggml_op = 54;
    pub const CONV_2D: super::wsp_ggml_op = 56;
    pub const UPSCALE: super::wsp_ggml_op = 63;
    pub const PAD: super::wsp_ggml_op = 64;
    pub const PAD_REFLECT_1D: super::wsp_ggml_op = 65;
    pub const TIMESTEP_EMBEDDING: super::wsp_ggml_op = 68;
    pub const ARGSORT: super::wsp_ggml_op = 69;
    pub const TOP_K: super::wsp_ggml_op = 70;
    pub const LEAKY_RELU: super::wsp_ggml_op = 71;
    pub const TRI: super::wsp_ggml_op = 72;
    pub const FILL: super::wsp_ggml_op = 73;
    pub const FLASH_ATTN_EXT: super::wsp_ggml_op = 74;
    pub const FLASH_ATTN_BACK: super::wsp_ggml_op = 75;
    pub const SSM_CONV: super::wsp_ggml_op = 76;
    pub const SSM_SCAN: super::wsp_ggml_op = 77;
    pub const SOLVE_TRI: super::wsp_ggml_op = 85;
    pub const GATED_DELTA_NET: super::wsp_ggml_op = 86;
    pub const LIGHTNING_INDEXER: super::wsp_ggml_op = 87;
    pub const DSV4_HC_COMB: super::wsp_ggml_op = 88;
    pub const DSV4_HC_POST: super::wsp_ggml_op = 90;
    pub const UNARY: super::wsp_ggml_op = 91;
    pub const MAP_CUSTOM1: super::wsp_ggml_op = 92;
    pub const CUSTOM: super::wsp_ggml_op = 95;
    pub const CROSS_ENTROPY_LOSS: super::wsp_ggml_op = 96;
    pub const CROSS_ENTROPY_LOSS_BACK: super::wsp_ggml_op = 97;
    pub const OPT_STEP_ADAMW: super::wsp_ggml_op = 98;
    pub const OPT_STEP_SGD: super::wsp_ggml_op = 99;
    pub const GLU: super::wsp_ggml_op = 100;
}

pub const WSP_GGML_TENSOR_FLAG_INPUT: i32 = 1;
pub const WSP_GGML_TENSOR_FLAG_OUTPUT: i32 = 2;
/// 0.7's ggml.h: the node must be computed (backends skip nodes without it).
#[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-5")]
    WSP_GGML_BACKEND_DEVICE_TYPE_IGPU = 2,
    #[cfg(not(feature = "whisper-rn-0-5"))]
    WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL = 2,
    #[cfg(feature = "whisper-rn-0-5")]
    WSP_GGML_BACKEND_DEVICE_TYPE_ACCEL = 3,
    /// A device spanning several others, for tensor parallelism (0.7).
    #[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-5")]
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

#[cfg(not(feature = "whisper-rn-0-5"))]
pub const WSP_GGML_BACKEND_API_VERSION: c_int = 1;
#[cfg(feature = "whisper-rn-0-5")]
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
    #[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-7")]
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
        #[cfg(feature = "whisper-rn-0-7")]
        set_tensor_2d: None,
        #[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-7")]
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
    #[cfg(feature = "whisper-rn-0-5")]
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
#[cfg(feature = "whisper-rn-0-7")]
pub const WSP_GGML_BACKEND_META_MAX_DEVICES: usize = 16;

/// `enum wsp_ggml_backend_meta_split_axis` as the header declares it (cbindgen gives it the C
/// name). Rust holds an axis as its integer, [`wsp_ggml_backend_meta_split_axis`], so that any
/// value C hands us is valid: 0..=3 split along that dimension, then the whole-tensor states and
/// two used only inside the meta backend.
#[cfg(feature = "whisper-rn-0-7")]
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
#[cfg(feature = "whisper-rn-0-7")]
pub type wsp_ggml_backend_meta_split_axis = c_int;

macro_rules! split_axes {
    ($($name:ident)*) => {$(
        #[cfg(feature = "whisper-rn-0-7")]
        pub const $name: wsp_ggml_backend_meta_split_axis = wsp_ggml_backend_meta_split_axis_decl::$name as c_int;
    )*};
}
split_axes!(
    WSP_GGML_BACKEND_SPLIT_AXIS_0 WSP_GGML_BACKEND_SPLIT_AXIS_1 WSP_GGML_BACKEND_SPLIT_AXIS_2
    WSP_GGML_BACKEND_SPLIT_AXIS_3 WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED WSP_GGML_BACKEND_SPLIT_AXIS_PARTIAL
    WSP_GGML_BACKEND_SPLIT_AXIS_NONE WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN
);

/// `struct wsp_ggml_backend_meta_split_state`: how a tensor is spread over the simple devices.
/// For a dimension axis, `ne[s * n_devices + j]` is device j's share of segment s, and segment s
/// repeats `nr[s]` times along the axis.
#[cfg(feature = "whisper-rn-0-7")]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct wsp_ggml_backend_meta_split_state {
    pub axis: wsp_ggml_backend_meta_split_axis,
    /// 16 * WSP_GGML_BACKEND_META_MAX_DEVICES entries (spelled out for cbindgen).
    pub ne: [i64; 256],
    pub nr: [u32; 16],
    pub n_segments: u32,
}

#[cfg(feature = "whisper-rn-0-7")]
const _: () = assert!(256 == 16 * WSP_GGML_BACKEND_META_MAX_DEVICES);

/// `wsp_ggml_backend_meta_get_split_state_t`: the application's split of statically allocated
/// tensors.
#[cfg(feature = "whisper-rn-0-7")]
pub type wsp_ggml_backend_meta_get_split_state_t = Option<
    unsafe extern "C" fn(tensor: *const wsp_ggml_tensor, userdata: *mut c_void) -> wsp_ggml_backend_meta_split_state,
>;

pub type wsp_ggml_backend_init_t = Option<unsafe extern "C" fn() -> wsp_ggml_backend_reg_t>;
pub type wsp_ggml_backend_score_t = Option<unsafe extern "C" fn() -> c_int>;

// ---------------------------------------------------------------------------------------------
// Compile-time layout checks, for 64-bit (x86-64, aarch64) and 32-bit (armv7, i686) targets; the
// numbers are those of whisper.rn's headers compiled for each (ctests/abi/abi_layout.c), and the
// C side is compared at run time by the ABI test.
// ---------------------------------------------------------------------------------------------

/// Whether the layouts checked are 0.5's (API v2), whose backend interface has one entry more.
#[cfg(not(feature = "whisper-rn-0-7"))]
const V2: bool = cfg!(feature = "whisper-rn-0-5");

macro_rules! assert_layout {
    ($t:ty, size $size:expr, align $align:expr $(, $field:ident @ $off:expr)* $(,)?) => {
        const _: () = assert!(std::mem::size_of::<$t>() == $size);
        const _: () = assert!(std::mem::align_of::<$t>() == $align);
        $(const _: () = assert!(std::mem::offset_of!($t, $field) == $off);)*
    };
}

#[cfg(target_pointer_width = "64")]
mod layout_checks {
    use super::*;
    assert_layout!(wsp_ggml_tensor, size 336, align 8,
        r#type @ 0, buffer @ 8, ne @ 16, nb @ 48, op @ 80, op_params @ 84, flags @ 148, src @ 152,
        view_src @ 232, view_offs @ 240, data @ 248, name @ 256, extra @ 320, padding @ 328);
    assert_layout!(wsp_ggml_hash_set, size 24, align 8, size @ 0, used @ 8, keys @ 16);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_cgraph, size 88, align 8,
        size @ 0, n_nodes @ 4, n_leafs @ 8, nodes @ 16, grads @ 24, grad_accs @ 32, leafs @ 40,
        use_counts @ 48, visited_hash_set @ 56, order @ 80);
    assert_layout!(wsp_ggml_init_params, size 24, align 8, mem_size @ 0, mem_buffer @ 8, no_alloc @ 16);
    assert_layout!(wsp_ggml_status, size 4, align 4);
    assert_layout!(wsp_ggml_backend_buffer_usage, size 4, align 4);
    assert_layout!(wsp_ggml_backend_dev_type, size 4, align 4);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_dev_caps, size 4, align 1,
        r#async @ 0, host_buffer @ 1, buffer_from_host_ptr @ 2, events @ 3);
    #[cfg(not(feature = "whisper-rn-0-5"))]
    assert_layout!(wsp_ggml_backend_dev_props, size 40, align 8,
        name @ 0, description @ 8, memory_free @ 16, memory_total @ 24, r#type @ 32, caps @ 36);
    #[cfg(all(feature = "whisper-rn-0-5", not(feature = "whisper-rn-0-7")))]
    assert_layout!(wsp_ggml_backend_dev_props, size 56, align 8,
        name @ 0, description @ 8, memory_free @ 16, memory_total @ 24, r#type @ 32, device_id @ 40, caps @ 48);
    assert_layout!(wsp_ggml_backend_feature, size 16, align 8, name @ 0, value @ 8);
    assert_layout!(wsp_ggml_backend_graph_copy, size 32, align 8,
        buffer @ 0, ctx_allocated @ 8, ctx_unallocated @ 16, graph @ 24);
    assert_layout!(wsp_ggml_backend_buffer_type_i, size 48, align 8,
        get_name @ 0, alloc_buffer @ 8, get_alignment @ 16, get_max_size @ 24, get_alloc_size @ 32, is_host @ 40);
    assert_layout!(wsp_ggml_backend_buffer_type, size 64, align 8, iface @ 0, device @ 48, context @ 56);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_buffer_i, size 72, align 8,
        free_buffer @ 0, get_base @ 8, init_tensor @ 16, memset_tensor @ 24, set_tensor @ 32,
        get_tensor @ 40, cpy_tensor @ 48, clear @ 56, reset @ 64);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_buffer, size 104, align 8,
        iface @ 0, buft @ 72, context @ 80, size @ 88, usage @ 96);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_i, size if V2 { 112 } else { 104 }, align 8,
        get_name @ 0, free @ 8, set_tensor_async @ 16, get_tensor_async @ 24, cpy_tensor_async @ 32,
        synchronize @ 40, graph_plan_create @ 48, graph_plan_free @ 56, graph_plan_update @ 64,
        graph_plan_compute @ 72, graph_compute @ 80, event_record @ 88, event_wait @ 96);
    #[cfg(all(feature = "whisper-rn-0-5", not(feature = "whisper-rn-0-7")))]
    assert_layout!(wsp_ggml_backend_i, size 112, align 8, graph_optimize @ 104);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend, size if V2 { 136 } else { 128 }, align 8,
        guid @ 0, iface @ 8, device @ if V2 { 120 } else { 112 }, context @ if V2 { 128 } else { 120 });
    assert_layout!(wsp_ggml_backend_event, size 16, align 8, device @ 0, context @ 8);
    assert_layout!(wsp_ggml_backend_device_i, size 120, align 8,
        get_name @ 0, get_description @ 8, get_memory @ 16, get_type @ 24, get_props @ 32,
        init_backend @ 40, get_buffer_type @ 48, get_host_buffer_type @ 56, buffer_from_host_ptr @ 64,
        supports_op @ 72, supports_buft @ 80, offload_op @ 88, event_new @ 96, event_free @ 104,
        event_synchronize @ 112);
    assert_layout!(wsp_ggml_backend_device, size 136, align 8, iface @ 0, reg @ 120, context @ 128);
    assert_layout!(wsp_ggml_backend_reg_i, size 32, align 8,
        get_name @ 0, get_device_count @ 8, get_device @ 16, get_proc_address @ 24);
    assert_layout!(wsp_ggml_backend_reg, size 48, align 8, api_version @ 0, iface @ 8, context @ 40);
}

// ILP32: pointers and size_t are 4 bytes; int64_t fields align to 8 on ARM but to 4 on i686, which
// only changes wsp_ggml_tensor's alignment.
#[cfg(target_pointer_width = "32")]
mod layout_checks {
    use super::*;
    assert_layout!(wsp_ggml_tensor, size 256, align (if cfg!(target_arch = "x86") { 4 } else { 8 }),
        r#type @ 0, buffer @ 4, ne @ 8, nb @ 40, op @ 56, op_params @ 60, flags @ 124, src @ 128,
        view_src @ 168, view_offs @ 172, data @ 176, name @ 180, extra @ 244, padding @ 248);
    assert_layout!(wsp_ggml_hash_set, size 12, align 4, size @ 0, used @ 4, keys @ 8);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_cgraph, size 48, align 4,
        size @ 0, n_nodes @ 4, n_leafs @ 8, nodes @ 12, grads @ 16, grad_accs @ 20, leafs @ 24,
        use_counts @ 28, visited_hash_set @ 32, order @ 44);
    assert_layout!(wsp_ggml_init_params, size 12, align 4, mem_size @ 0, mem_buffer @ 4, no_alloc @ 8);
    assert_layout!(wsp_ggml_status, size 4, align 4);
    assert_layout!(wsp_ggml_backend_buffer_usage, size 4, align 4);
    assert_layout!(wsp_ggml_backend_dev_type, size 4, align 4);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_dev_caps, size 4, align 1,
        r#async @ 0, host_buffer @ 1, buffer_from_host_ptr @ 2, events @ 3);
    #[cfg(not(feature = "whisper-rn-0-5"))]
    assert_layout!(wsp_ggml_backend_dev_props, size 24, align 4,
        name @ 0, description @ 4, memory_free @ 8, memory_total @ 12, r#type @ 16, caps @ 20);
    #[cfg(all(feature = "whisper-rn-0-5", not(feature = "whisper-rn-0-7")))]
    assert_layout!(wsp_ggml_backend_dev_props, size 28, align 4,
        name @ 0, description @ 4, memory_free @ 8, memory_total @ 12, r#type @ 16, device_id @ 20, caps @ 24);
    assert_layout!(wsp_ggml_backend_feature, size 8, align 4, name @ 0, value @ 4);
    assert_layout!(wsp_ggml_backend_graph_copy, size 16, align 4,
        buffer @ 0, ctx_allocated @ 4, ctx_unallocated @ 8, graph @ 12);
    assert_layout!(wsp_ggml_backend_buffer_type_i, size 24, align 4,
        get_name @ 0, alloc_buffer @ 4, get_alignment @ 8, get_max_size @ 12, get_alloc_size @ 16, is_host @ 20);
    assert_layout!(wsp_ggml_backend_buffer_type, size 32, align 4, iface @ 0, device @ 24, context @ 28);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_buffer_i, size 36, align 4,
        free_buffer @ 0, get_base @ 4, init_tensor @ 8, memset_tensor @ 12, set_tensor @ 16,
        get_tensor @ 20, cpy_tensor @ 24, clear @ 28, reset @ 32);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_buffer, size 52, align 4,
        iface @ 0, buft @ 36, context @ 40, size @ 44, usage @ 48);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend_i, size if V2 { 56 } else { 52 }, align 4,
        get_name @ 0, free @ 4, set_tensor_async @ 8, get_tensor_async @ 12, cpy_tensor_async @ 16,
        synchronize @ 20, graph_plan_create @ 24, graph_plan_free @ 28, graph_plan_update @ 32,
        graph_plan_compute @ 36, graph_compute @ 40, event_record @ 44, event_wait @ 48);
    #[cfg(all(feature = "whisper-rn-0-5", not(feature = "whisper-rn-0-7")))]
    assert_layout!(wsp_ggml_backend_i, size 56, align 4, graph_optimize @ 52);
    #[cfg(not(feature = "whisper-rn-0-7"))]
    assert_layout!(wsp_ggml_backend, size if V2 { 68 } else { 64 }, align 4,
        guid @ 0, iface @ 4, device @ if V2 { 60 } else { 56 }, context @ if V2 { 64 } else { 60 });
    assert_layout!(wsp_ggml_backend_event, size 8, align 4, device @ 0, context @ 4);
    assert_layout!(wsp_ggml_backend_device_i, size 60, align 4,
        get_name @ 0, get_description @ 4, get_memory @ 8, get_type @ 12, get_props @ 16,
        init_backend @ 20, get_buffer_type @ 24, get_host_buffer_type @ 28, buffer_from_host_ptr @ 32,
        supports_op @ 36, supports_buft @ 40, offload_op @ 44, event_new @ 48, event_free @ 52,
        event_synchronize @ 56);
    assert_layout!(wsp_ggml_backend_device, size 68, align 4, iface @ 0, reg @ 60, context @ 64);
    assert_layout!(wsp_ggml_backend_reg_i, size 16, align 4,
        get_name @ 0, get_device_count @ 4, get_device @ 8, get_proc_address @ 12);
    assert_layout!(wsp_ggml_backend_reg, size 24, align 4, api_version @ 0, iface @ 4, context @ 20);
}

/// 0.7's layouts, for either pointer width: the interface tables are arrays of pointer-sized
/// entries, with the 2d accessors inserted after the plain ones.
#[cfg(feature = "whisper-rn-0-7")]
mod layout_checks_0_7 {
    use super::*;
    const P: usize = std::mem::size_of::<usize>();
    const ORDER: usize = std::mem::offset_of!(wsp_ggml_cgraph, order);
    const U64_ALIGN: usize = std::mem::align_of::<u64>();
    assert_layout!(wsp_ggml_cgraph, size (ORDER + 4).next_multiple_of(U64_ALIGN) + 8, align U64_ALIGN,
        uid @ (ORDER + 4).next_multiple_of(U64_ALIGN));
    assert_layout!(wsp_ggml_backend_dev_caps, size 5, align 1,
        r#async @ 0, host_buffer @ 1, buffer_from_host_ptr @ 2, events @ 3, mmap_support @ 4);
    assert_layout!(wsp_ggml_backend_dev_props, size (6 * P + 5).next_multiple_of(P), align P,
        device_id @ 5 * P, caps @ 6 * P);
    assert_layout!(wsp_ggml_backend_buffer_i, size 11 * P, align P,
        free_buffer @ 0, get_base @ P, init_tensor @ 2 * P, memset_tensor @ 3 * P, set_tensor @ 4 * P,
        get_tensor @ 5 * P, set_tensor_2d @ 6 * P, get_tensor_2d @ 7 * P, cpy_tensor @ 8 * P,
        clear @ 9 * P, reset @ 10 * P);
    assert_layout!(wsp_ggml_backend_buffer, size 15 * P, align P,
        iface @ 0, buft @ 11 * P, context @ 12 * P, size @ 13 * P, usage @ 14 * P);
    assert_layout!(wsp_ggml_backend_i, size 16 * P, align P,
        get_name @ 0, free @ P, set_tensor_async @ 2 * P, get_tensor_async @ 3 * P,
        set_tensor_2d_async @ 4 * P, get_tensor_2d_async @ 5 * P, cpy_tensor_async @ 6 * P,
        synchronize @ 7 * P, graph_plan_create @ 8 * P, graph_plan_free @ 9 * P,
        graph_plan_update @ 10 * P, graph_plan_compute @ 11 * P, graph_compute @ 12 * P,
        event_record @ 13 * P, event_wait @ 14 * P, graph_optimize @ 15 * P);
    assert_layout!(wsp_ggml_backend, size 19 * P, align P, guid @ 0, iface @ P, device @ 17 * P, context @ 18 * P);
    // int64_t aligns to 4 on i686, to 8 elsewhere.
    const I64: usize = std::mem::align_of::<i64>();
    assert_layout!(wsp_ggml_backend_meta_split_state, size (I64 + 8 * 256 + 4 * 17).next_multiple_of(I64), align I64,
        axis @ 0, ne @ I64, nr @ I64 + 8 * 256, n_segments @ I64 + 8 * 256 + 4 * 16);
}
