//! `ggml-backend.h`: the public types of the backend layer.

use super::*;
use core::ffi::{c_char, c_int, c_void};

pub type ggml_backend_buffer_type_t = *mut ggml_backend_buffer_type;
pub type ggml_backend_buffer_t = *mut ggml_backend_buffer;
pub type ggml_backend_event_t = *mut ggml_backend_event;
pub type ggml_backend_t = *mut ggml_backend;
pub type ggml_backend_graph_plan_t = *mut c_void;
pub type ggml_backend_reg_t = *mut ggml_backend_reg;
pub type ggml_backend_dev_t = *mut ggml_backend_device;
pub type ggml_backend_sched_t = *mut ggml_backend_sched;

/// Opaque `struct ggml_backend_sched`: C only ever holds a pointer to the library's
/// scheduler.
#[repr(C)]
pub struct ggml_backend_sched {
    _opaque: [u8; 0],
}

/// `enum ggml_backend_buffer_usage`
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ggml_backend_buffer_usage {
    GGML_BACKEND_BUFFER_USAGE_ANY = 0,
    GGML_BACKEND_BUFFER_USAGE_WEIGHTS = 1,
    GGML_BACKEND_BUFFER_USAGE_COMPUTE = 2,
}

/// `enum ggml_backend_dev_type`
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ggml_backend_dev_type {
    GGML_BACKEND_DEVICE_TYPE_CPU = 0,
    GGML_BACKEND_DEVICE_TYPE_GPU = 1,
    /// An integrated GPU using host memory (0.5).
    #[cfg(api_v2)]
    GGML_BACKEND_DEVICE_TYPE_IGPU = 2,
    #[cfg(not(api_v2))]
    GGML_BACKEND_DEVICE_TYPE_ACCEL = 2,
    #[cfg(api_v2)]
    GGML_BACKEND_DEVICE_TYPE_ACCEL = 3,
    /// A device spanning several others, for tensor parallelism (0.7).
    #[cfg(meta)]
    GGML_BACKEND_DEVICE_TYPE_META = 4,
}

/// `struct ggml_backend_dev_caps`
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ggml_backend_dev_caps {
    pub r#async: bool,
    pub host_buffer: bool,
    pub buffer_from_host_ptr: bool,
    pub events: bool,
    /// Whether model files can be mapped into this device's memory (0.7).
    #[cfg(mmap_support)]
    pub mmap_support: bool,
}

/// `struct ggml_backend_dev_props`
#[repr(C)]
pub struct ggml_backend_dev_props {
    pub name: *const c_char,
    pub description: *const c_char,
    pub memory_free: usize,
    pub memory_total: usize,
    pub r#type: ggml_backend_dev_type,
    /// A PCI device's bus id ("0000:01:00.0"), or NULL (0.5).
    #[cfg(api_v2)]
    pub device_id: *const c_char,
    pub caps: ggml_backend_dev_caps,
}

/// `struct ggml_backend_feature`
#[repr(C)]
pub struct ggml_backend_feature {
    pub name: *const c_char,
    pub value: *const c_char,
}

pub type ggml_backend_split_buffer_type_t =
    Option<unsafe extern "C" fn(main_device: c_int, tensor_split: *const f32) -> ggml_backend_buffer_type_t>;
pub type ggml_backend_set_n_threads_t = Option<unsafe extern "C" fn(backend: ggml_backend_t, n_threads: c_int)>;
pub type ggml_backend_dev_get_extra_bufts_t =
    Option<unsafe extern "C" fn(device: ggml_backend_dev_t) -> *mut ggml_backend_buffer_type_t>;
pub type ggml_backend_set_abort_callback_t = Option<
    unsafe extern "C" fn(
        backend: ggml_backend_t,
        abort_callback: ggml_abort_callback,
        abort_callback_data: *mut c_void,
    ),
>;
pub type ggml_backend_get_features_t =
    Option<unsafe extern "C" fn(reg: ggml_backend_reg_t) -> *mut ggml_backend_feature>;

pub type ggml_backend_sched_eval_callback =
    Option<unsafe extern "C" fn(t: *mut ggml_tensor, ask: bool, user_data: *mut c_void) -> bool>;

/// `struct ggml_backend_graph_copy`
#[repr(C)]
pub struct ggml_backend_graph_copy {
    pub buffer: ggml_backend_buffer_t,
    pub ctx_allocated: *mut ggml_context,
    pub ctx_unallocated: *mut ggml_context,
    pub graph: *mut ggml_cgraph,
}

impl ggml_backend_graph_copy {
    /// The copy that was not made: every field NULL.
    pub const EMPTY: Self = Self {
        buffer: core::ptr::null_mut(),
        ctx_allocated: core::ptr::null_mut(),
        ctx_unallocated: core::ptr::null_mut(),
        graph: core::ptr::null_mut(),
    };
}

pub type ggml_backend_eval_callback = Option<
    unsafe extern "C" fn(node_index: c_int, t1: *mut ggml_tensor, t2: *mut ggml_tensor, user_data: *mut c_void) -> bool,
>;
