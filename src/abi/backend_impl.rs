//! `ggml-backend-impl.h`: the interface tables and objects a backend implements.

use super::*;
use core::ffi::{c_char, c_int, c_void};

#[cfg(not(api_v2))]
pub const GGML_BACKEND_API_VERSION: c_int = 1;
#[cfg(api_v2)]
pub const GGML_BACKEND_API_VERSION: c_int = 2;

/// `struct ggml_backend_buffer_type_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ggml_backend_buffer_type_i {
    pub get_name: Option<unsafe extern "C" fn(buft: ggml_backend_buffer_type_t) -> *const c_char>,
    pub alloc_buffer:
        Option<unsafe extern "C" fn(buft: ggml_backend_buffer_type_t, size: usize) -> ggml_backend_buffer_t>,
    pub get_alignment: Option<unsafe extern "C" fn(buft: ggml_backend_buffer_type_t) -> usize>,
    pub get_max_size: Option<unsafe extern "C" fn(buft: ggml_backend_buffer_type_t) -> usize>,
    pub get_alloc_size:
        Option<unsafe extern "C" fn(buft: ggml_backend_buffer_type_t, tensor: *const ggml_tensor) -> usize>,
    pub is_host: Option<unsafe extern "C" fn(buft: ggml_backend_buffer_type_t) -> bool>,
}

/// `struct ggml_backend_buffer_type`
#[repr(C)]
pub struct ggml_backend_buffer_type {
    pub iface: ggml_backend_buffer_type_i,
    pub device: ggml_backend_dev_t,
    pub context: *mut c_void,
}

/// `struct ggml_backend_buffer_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ggml_backend_buffer_i {
    pub free_buffer: Option<unsafe extern "C" fn(buffer: ggml_backend_buffer_t)>,
    pub get_base: Option<unsafe extern "C" fn(buffer: ggml_backend_buffer_t) -> *mut c_void>,
    pub init_tensor:
        Option<unsafe extern "C" fn(buffer: ggml_backend_buffer_t, tensor: *mut ggml_tensor) -> ggml_status>,
    pub memset_tensor: Option<
        unsafe extern "C" fn(
            buffer: ggml_backend_buffer_t,
            tensor: *mut ggml_tensor,
            value: u8,
            offset: usize,
            size: usize,
        ),
    >,
    pub set_tensor: Option<
        unsafe extern "C" fn(
            buffer: ggml_backend_buffer_t,
            tensor: *mut ggml_tensor,
            data: *const c_void,
            offset: usize,
            size: usize,
        ),
    >,
    pub get_tensor: Option<
        unsafe extern "C" fn(
            buffer: ggml_backend_buffer_t,
            tensor: *const ggml_tensor,
            data: *mut c_void,
            offset: usize,
            size: usize,
        ),
    >,
    /// Writes `n_copies` runs of `size` bytes, strided on both sides (optional, 0.7).
    #[cfg(tensor_2d)]
    pub set_tensor_2d: Option<
        unsafe extern "C" fn(
            buffer: ggml_backend_buffer_t,
            tensor: *mut ggml_tensor,
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
            buffer: ggml_backend_buffer_t,
            tensor: *const ggml_tensor,
            data: *mut c_void,
            offset: usize,
            size: usize,
            n_copies: usize,
            stride_tensor: usize,
            stride_data: usize,
        ),
    >,
    pub cpy_tensor: Option<
        unsafe extern "C" fn(buffer: ggml_backend_buffer_t, src: *const ggml_tensor, dst: *mut ggml_tensor) -> bool,
    >,
    pub clear: Option<unsafe extern "C" fn(buffer: ggml_backend_buffer_t, value: u8)>,
    pub reset: Option<unsafe extern "C" fn(buffer: ggml_backend_buffer_t)>,
}

impl ggml_backend_buffer_i {
    /// A table without entries, to start interface tables from (`..NONE`).
    pub(crate) const NONE: Self = ggml_backend_buffer_i {
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

/// `struct ggml_backend_buffer`
#[repr(C)]
pub struct ggml_backend_buffer {
    pub iface: ggml_backend_buffer_i,
    pub buft: ggml_backend_buffer_type_t,
    pub context: *mut c_void,
    pub size: usize,
    pub usage: ggml_backend_buffer_usage,
}

/// `struct ggml_backend_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ggml_backend_i {
    pub get_name: Option<unsafe extern "C" fn(backend: ggml_backend_t) -> *const c_char>,
    pub free: Option<unsafe extern "C" fn(backend: ggml_backend_t)>,
    pub set_tensor_async: Option<
        unsafe extern "C" fn(
            backend: ggml_backend_t,
            tensor: *mut ggml_tensor,
            data: *const c_void,
            offset: usize,
            size: usize,
        ),
    >,
    pub get_tensor_async: Option<
        unsafe extern "C" fn(
            backend: ggml_backend_t,
            tensor: *const ggml_tensor,
            data: *mut c_void,
            offset: usize,
            size: usize,
        ),
    >,
    /// The asynchronous `set_tensor_2d` (optional, 0.7).
    #[cfg(tensor_2d)]
    pub set_tensor_2d_async: Option<
        unsafe extern "C" fn(
            backend: ggml_backend_t,
            tensor: *mut ggml_tensor,
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
            backend: ggml_backend_t,
            tensor: *const ggml_tensor,
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
            backend_src: ggml_backend_t,
            backend_dst: ggml_backend_t,
            src: *const ggml_tensor,
            dst: *mut ggml_tensor,
        ) -> bool,
    >,
    pub synchronize: Option<unsafe extern "C" fn(backend: ggml_backend_t)>,
    pub graph_plan_create:
        Option<unsafe extern "C" fn(backend: ggml_backend_t, cgraph: *const ggml_cgraph) -> ggml_backend_graph_plan_t>,
    pub graph_plan_free: Option<unsafe extern "C" fn(backend: ggml_backend_t, plan: ggml_backend_graph_plan_t)>,
    pub graph_plan_update: Option<
        unsafe extern "C" fn(backend: ggml_backend_t, plan: ggml_backend_graph_plan_t, cgraph: *const ggml_cgraph),
    >,
    pub graph_plan_compute:
        Option<unsafe extern "C" fn(backend: ggml_backend_t, plan: ggml_backend_graph_plan_t) -> ggml_status>,
    pub graph_compute: Option<unsafe extern "C" fn(backend: ggml_backend_t, cgraph: *mut ggml_cgraph) -> ggml_status>,
    pub event_record: Option<unsafe extern "C" fn(backend: ggml_backend_t, event: ggml_backend_event_t)>,
    pub event_wait: Option<unsafe extern "C" fn(backend: ggml_backend_t, event: ggml_backend_event_t)>,
    /// Reorders a split's nodes before it is computed (0.5).
    #[cfg(all(api_v2, not(graph_optimize_params)))]
    pub graph_optimize: Option<unsafe extern "C" fn(backend: ggml_backend_t, cgraph: *mut ggml_cgraph)>,
    /// Reorders a split's nodes before it is computed, and may keep tensors allocated until a
    /// later node through `params` (plain ggml 0.3.36).
    #[cfg(graph_optimize_params)]
    pub graph_optimize: Option<
        unsafe extern "C" fn(
            backend: ggml_backend_t,
            cgraph: *mut ggml_cgraph,
            params: *mut ggml_backend_graph_optimize_params,
        ),
    >,
}

/// `struct ggml_backend_graph_optimize_params`: given to a backend's graph_optimize, so that a
/// backend that runs parts of a graph out of order (on concurrent streams) keeps a tensor
/// allocated until a node where they have joined.
#[cfg(graph_optimize_params)]
#[repr(C)]
pub struct ggml_backend_graph_optimize_params {
    /// Keep `tensor` allocated at least until `until` (a node of the same graph) is computed.
    pub add_alloc_dep:
        Option<unsafe extern "C" fn(user_data: *mut c_void, tensor: *mut ggml_tensor, until: *mut ggml_tensor)>,
    pub user_data: *mut c_void,
}

/// `struct ggml_backend`
#[repr(C)]
pub struct ggml_backend {
    pub guid: ggml_guid_t,
    pub iface: ggml_backend_i,
    pub device: ggml_backend_dev_t,
    pub context: *mut c_void,
}

/// `struct ggml_backend_event`
#[repr(C)]
pub struct ggml_backend_event {
    pub device: *mut ggml_backend_device,
    pub context: *mut c_void,
}

/// `struct ggml_backend_device_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ggml_backend_device_i {
    pub get_name: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t) -> *const c_char>,
    pub get_description: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t) -> *const c_char>,
    pub get_memory: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, free: *mut usize, total: *mut usize)>,
    pub get_type: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t) -> ggml_backend_dev_type>,
    pub get_props: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, props: *mut ggml_backend_dev_props)>,
    pub init_backend: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, params: *const c_char) -> ggml_backend_t>,
    pub get_buffer_type: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t) -> ggml_backend_buffer_type_t>,
    pub get_host_buffer_type: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t) -> ggml_backend_buffer_type_t>,
    pub buffer_from_host_ptr: Option<
        unsafe extern "C" fn(
            dev: ggml_backend_dev_t,
            ptr: *mut c_void,
            size: usize,
            max_tensor_size: usize,
        ) -> ggml_backend_buffer_t,
    >,
    pub supports_op: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, op: *const ggml_tensor) -> bool>,
    pub supports_buft: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, buft: ggml_backend_buffer_type_t) -> bool>,
    pub offload_op: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, op: *const ggml_tensor) -> bool>,
    pub event_new: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t) -> ggml_backend_event_t>,
    pub event_free: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, event: ggml_backend_event_t)>,
    pub event_synchronize: Option<unsafe extern "C" fn(dev: ggml_backend_dev_t, event: ggml_backend_event_t)>,
}

/// `struct ggml_backend_device`
#[repr(C)]
pub struct ggml_backend_device {
    pub iface: ggml_backend_device_i,
    pub reg: ggml_backend_reg_t,
    pub context: *mut c_void,
}

/// `struct ggml_backend_reg_i`
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ggml_backend_reg_i {
    pub get_name: Option<unsafe extern "C" fn(reg: ggml_backend_reg_t) -> *const c_char>,
    pub get_device_count: Option<unsafe extern "C" fn(reg: ggml_backend_reg_t) -> usize>,
    pub get_device: Option<unsafe extern "C" fn(reg: ggml_backend_reg_t, index: usize) -> ggml_backend_dev_t>,
    pub get_proc_address: Option<unsafe extern "C" fn(reg: ggml_backend_reg_t, name: *const c_char) -> *mut c_void>,
}

/// `struct ggml_backend_reg`
#[repr(C)]
pub struct ggml_backend_reg {
    pub api_version: c_int,
    pub iface: ggml_backend_reg_i,
    pub context: *mut c_void,
}
