//! What the backend layer imports from whisper.rn's ggml core and ggml-alloc (resolved when the
//! library is linked with those objects), with safe wrappers where a call has no precondition.

use crate::abi::*;
use core::ffi::{c_char, c_int, c_void};
use wsp_ggml_backend_macros::prefixed;

#[prefixed]
extern "C" {
    pub fn ggml_nbytes(tensor: *const ggml_tensor) -> usize;
    pub fn ggml_init(params: ggml_init_params) -> *mut ggml_context;
    pub fn ggml_free(ctx: *mut ggml_context);
    pub fn ggml_tensor_overhead() -> usize;
    pub fn ggml_dup_tensor(ctx: *mut ggml_context, src: *const ggml_tensor) -> *mut ggml_tensor;
    pub fn ggml_set_name(tensor: *mut ggml_tensor, name: *const c_char) -> *mut ggml_tensor;
    pub fn ggml_op_name(op: ggml_op) -> *const c_char;
    pub fn ggml_op_desc(tensor: *const ggml_tensor) -> *const c_char;
    pub fn ggml_graph_overhead_custom(size: usize, grads: bool) -> usize;
    pub fn ggml_new_graph_custom(ctx: *mut ggml_context, size: usize, grads: bool) -> *mut ggml_cgraph;
    pub fn ggml_aligned_malloc(size: usize) -> *mut c_void;
    pub fn ggml_aligned_free(ptr: *mut c_void, size: usize);
    pub fn ggml_log_internal(level: ggml_log_level, format: *const c_char, ...);
    pub fn ggml_abort(file: *const c_char, line: c_int, format: *const c_char, ...) -> !;

    pub fn ggml_gallocr_new_n(bufts: *mut ggml_backend_buffer_type_t, n_bufs: c_int) -> ggml_gallocr_t;
    pub fn ggml_gallocr_free(galloc: ggml_gallocr_t);
    pub fn ggml_gallocr_reserve_n(
        galloc: ggml_gallocr_t,
        graph: *mut ggml_cgraph,
        node_buffer_ids: *const c_int,
        leaf_buffer_ids: *const c_int,
    ) -> bool;
    /// 0.5's ggml-alloc: the sizes reserve_n would allocate, one per buffer, without allocating.
    #[cfg(sched_reserve_size)]
    pub fn ggml_gallocr_reserve_n_size(
        galloc: ggml_gallocr_t,
        graph: *mut ggml_cgraph,
        node_buffer_ids: *const c_int,
        leaf_buffer_ids: *const c_int,
        sizes: *mut usize,
    );
    /// 0.7's ggml core: a process-wide, increasing graph identifier.
    #[cfg(graph_uid)]
    fn ggml_graph_next_uid() -> u64;
    pub fn ggml_gallocr_alloc_graph(galloc: ggml_gallocr_t, graph: *mut ggml_cgraph) -> bool;
    pub fn ggml_gallocr_get_buffer_size(galloc: ggml_gallocr_t, buffer_id: c_int) -> usize;
    pub fn ggml_backend_alloc_ctx_tensors(ctx: *mut ggml_context, backend: ggml_backend_t) -> ggml_backend_buffer_t;
}

/// A new graph identifier from ggml core (0.7).
#[cfg(graph_uid)]
pub fn next_graph_uid() -> u64 {
    // SAFETY: no arguments; ggml core increments an atomic counter.
    unsafe { ggml_graph_next_uid() }
}

// What the meta backend (0.7) also imports: per-device tensors live in ggml contexts, and the
// parts of a meta context are allocated by ggml-alloc.
#[cfg(meta)]
#[prefixed]
extern "C" {
    pub fn ggml_new_tensor(
        ctx: *mut ggml_context,
        r#type: ggml_type,
        n_dims: c_int,
        ne: *const i64,
    ) -> *mut ggml_tensor;
    pub fn ggml_reset(ctx: *mut ggml_context);
    pub fn ggml_get_first_tensor(ctx: *const ggml_context) -> *mut ggml_tensor;
    pub fn ggml_get_next_tensor(ctx: *const ggml_context, tensor: *const ggml_tensor) -> *mut ggml_tensor;
    pub fn ggml_get_mem_size(ctx: *const ggml_context) -> usize;
    pub fn ggml_is_contiguous(tensor: *const ggml_tensor) -> bool;
    pub fn ggml_is_permuted(tensor: *const ggml_tensor) -> bool;
    pub fn ggml_n_dims(tensor: *const ggml_tensor) -> c_int;
    pub fn ggml_nelements(tensor: *const ggml_tensor) -> i64;
    pub fn ggml_blck_size(r#type: ggml_type) -> i64;
    pub fn ggml_backend_alloc_ctx_tensors_from_buft(
        ctx: *mut ggml_context,
        buft: ggml_backend_buffer_type_t,
    ) -> ggml_backend_buffer_t;
}

// Whether a type is quantized, where a buffer type's expansion of a tensor is checked (plain ggml
// 0.3.36: see handle::alloc_size_may_expand).
#[cfg(op_alloc_size_may_expand)]
#[prefixed]
extern "C" {
    pub fn ggml_is_quantized(r#type: ggml_type) -> bool;
}

/// The bytes ggml needs for a tensor's header in a context.
pub fn tensor_overhead() -> usize {
    // SAFETY: no arguments; ggml returns a constant.
    unsafe { ggml_tensor_overhead() }
}
