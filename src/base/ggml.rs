//! What the backend layer imports from whisper.rn's ggml core and ggml-alloc (resolved when the
//! library is linked with those objects), with safe wrappers where a call has no precondition.

use crate::abi::*;
use std::ffi::{c_char, c_int, c_void};

extern "C" {
    pub fn wsp_ggml_nbytes(tensor: *const wsp_ggml_tensor) -> usize;
    pub fn wsp_ggml_init(params: wsp_ggml_init_params) -> *mut wsp_ggml_context;
    pub fn wsp_ggml_free(ctx: *mut wsp_ggml_context);
    pub fn wsp_ggml_tensor_overhead() -> usize;
    pub fn wsp_ggml_dup_tensor(ctx: *mut wsp_ggml_context, src: *const wsp_ggml_tensor) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_set_name(tensor: *mut wsp_ggml_tensor, name: *const c_char) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_op_name(op: wsp_ggml_op) -> *const c_char;
    pub fn wsp_ggml_op_desc(tensor: *const wsp_ggml_tensor) -> *const c_char;
    pub fn wsp_ggml_graph_overhead_custom(size: usize, grads: bool) -> usize;
    pub fn wsp_ggml_new_graph_custom(ctx: *mut wsp_ggml_context, size: usize, grads: bool) -> *mut wsp_ggml_cgraph;
    pub fn wsp_ggml_aligned_malloc(size: usize) -> *mut c_void;
    pub fn wsp_ggml_aligned_free(ptr: *mut c_void, size: usize);
    pub fn wsp_ggml_log_internal(level: wsp_ggml_log_level, format: *const c_char, ...);
    pub fn wsp_ggml_abort(file: *const c_char, line: c_int, format: *const c_char, ...) -> !;

    pub fn wsp_ggml_gallocr_new_n(bufts: *mut wsp_ggml_backend_buffer_type_t, n_bufs: c_int) -> wsp_ggml_gallocr_t;
    pub fn wsp_ggml_gallocr_free(galloc: wsp_ggml_gallocr_t);
    pub fn wsp_ggml_gallocr_reserve_n(
        galloc: wsp_ggml_gallocr_t,
        graph: *mut wsp_ggml_cgraph,
        node_buffer_ids: *const c_int,
        leaf_buffer_ids: *const c_int,
    ) -> bool;
    /// 0.5's ggml-alloc: the sizes reserve_n would allocate, one per buffer, without allocating.
    #[cfg(sched_reserve_size)]
    pub fn wsp_ggml_gallocr_reserve_n_size(
        galloc: wsp_ggml_gallocr_t,
        graph: *mut wsp_ggml_cgraph,
        node_buffer_ids: *const c_int,
        leaf_buffer_ids: *const c_int,
        sizes: *mut usize,
    );
    /// 0.7's ggml core: a process-wide, increasing graph identifier.
    #[cfg(graph_uid)]
    fn wsp_ggml_graph_next_uid() -> u64;
    pub fn wsp_ggml_gallocr_alloc_graph(galloc: wsp_ggml_gallocr_t, graph: *mut wsp_ggml_cgraph) -> bool;
    pub fn wsp_ggml_gallocr_get_buffer_size(galloc: wsp_ggml_gallocr_t, buffer_id: c_int) -> usize;
    pub fn wsp_ggml_backend_alloc_ctx_tensors(
        ctx: *mut wsp_ggml_context,
        backend: wsp_ggml_backend_t,
    ) -> wsp_ggml_backend_buffer_t;
}

/// A new graph identifier from ggml core (0.7).
#[cfg(graph_uid)]
pub fn next_graph_uid() -> u64 {
    // SAFETY: no arguments; ggml core increments an atomic counter.
    unsafe { wsp_ggml_graph_next_uid() }
}

// What the meta backend (0.7) also imports: per-device tensors live in ggml contexts, and the
// parts of a meta context are allocated by ggml-alloc.
#[cfg(meta)]
extern "C" {
    pub fn wsp_ggml_new_tensor(
        ctx: *mut wsp_ggml_context,
        r#type: wsp_ggml_type,
        n_dims: c_int,
        ne: *const i64,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_reset(ctx: *mut wsp_ggml_context);
    pub fn wsp_ggml_get_first_tensor(ctx: *const wsp_ggml_context) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_get_next_tensor(
        ctx: *const wsp_ggml_context,
        tensor: *const wsp_ggml_tensor,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_get_mem_size(ctx: *const wsp_ggml_context) -> usize;
    pub fn wsp_ggml_is_contiguous(tensor: *const wsp_ggml_tensor) -> bool;
    pub fn wsp_ggml_is_permuted(tensor: *const wsp_ggml_tensor) -> bool;
    pub fn wsp_ggml_n_dims(tensor: *const wsp_ggml_tensor) -> c_int;
    pub fn wsp_ggml_nelements(tensor: *const wsp_ggml_tensor) -> i64;
    pub fn wsp_ggml_blck_size(r#type: wsp_ggml_type) -> i64;
    pub fn wsp_ggml_backend_alloc_ctx_tensors_from_buft(
        ctx: *mut wsp_ggml_context,
        buft: wsp_ggml_backend_buffer_type_t,
    ) -> wsp_ggml_backend_buffer_t;
}

/// The bytes ggml needs for a tensor's header in a context.
pub fn tensor_overhead() -> usize {
    // SAFETY: no arguments; ggml returns a constant.
    unsafe { wsp_ggml_tensor_overhead() }
}
