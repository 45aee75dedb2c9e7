//! What the fuzz targets call across the C boundary: whisper.rn's ggml core, ggml-alloc and CPU
//! backend (compiled by build.rs), the backend layer's exports (the rlib's `#[no_mangle]`
//! functions, which the crate does not offer as Rust paths), and the TEST backend fixture.
//! Shared by the targets through `#[path]`; each uses part of it.
#![allow(dead_code)]

use ::wsp_ggml_backend::abi::*;
use std::ffi::{c_char, c_int, c_void};

// ---------------------------------------------------------------------------------------------
// whisper.rn's ggml core, ggml-alloc and CPU backend (compiled by build.rs)
// ---------------------------------------------------------------------------------------------

extern "C" {
    pub fn wsp_ggml_init(params: wsp_ggml_init_params) -> *mut wsp_ggml_context;
    pub fn wsp_ggml_free(ctx: *mut wsp_ggml_context);
    pub fn wsp_ggml_tensor_overhead() -> usize;
    pub fn wsp_ggml_graph_overhead_custom(size: usize, grads: bool) -> usize;
    pub fn wsp_ggml_new_tensor_3d(
        ctx: *mut wsp_ggml_context,
        ty: wsp_ggml_type,
        ne0: i64,
        ne1: i64,
        ne2: i64,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_set_name(tensor: *mut wsp_ggml_tensor, name: *const c_char) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_set_input(tensor: *mut wsp_ggml_tensor);
    pub fn wsp_ggml_set_output(tensor: *mut wsp_ggml_tensor);
    pub fn wsp_ggml_nbytes(tensor: *const wsp_ggml_tensor) -> usize;
    pub fn wsp_ggml_nelements(tensor: *const wsp_ggml_tensor) -> i64;
    pub fn wsp_ggml_is_contiguous(tensor: *const wsp_ggml_tensor) -> bool;
    pub fn wsp_ggml_is_contiguous_1(tensor: *const wsp_ggml_tensor) -> bool;
    pub fn wsp_ggml_are_same_shape(t0: *const wsp_ggml_tensor, t1: *const wsp_ggml_tensor) -> bool;
    pub fn wsp_ggml_can_repeat(t0: *const wsp_ggml_tensor, t1: *const wsp_ggml_tensor) -> bool;
    pub fn wsp_ggml_op_name(op: wsp_ggml_op) -> *const c_char;

    pub fn wsp_ggml_add(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        b: *mut wsp_ggml_tensor,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_sub(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        b: *mut wsp_ggml_tensor,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_mul(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        b: *mut wsp_ggml_tensor,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_div(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        b: *mut wsp_ggml_tensor,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_scale(ctx: *mut wsp_ggml_context, a: *mut wsp_ggml_tensor, s: f32) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_sqr(ctx: *mut wsp_ggml_context, a: *mut wsp_ggml_tensor) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_reshape_3d(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        ne0: i64,
        ne1: i64,
        ne2: i64,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_view_1d(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        ne0: i64,
        offset: usize,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_view_2d(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        ne0: i64,
        ne1: i64,
        nb1: usize,
        offset: usize,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_permute(
        ctx: *mut wsp_ggml_context,
        a: *mut wsp_ggml_tensor,
        a0: c_int,
        a1: c_int,
        a2: c_int,
        a3: c_int,
    ) -> *mut wsp_ggml_tensor;
    pub fn wsp_ggml_transpose(ctx: *mut wsp_ggml_context, a: *mut wsp_ggml_tensor) -> *mut wsp_ggml_tensor;

    pub fn wsp_ggml_new_graph_custom(ctx: *mut wsp_ggml_context, size: usize, grads: bool) -> *mut wsp_ggml_cgraph;
    pub fn wsp_ggml_build_forward_expand(graph: *mut wsp_ggml_cgraph, tensor: *mut wsp_ggml_tensor);
    pub fn wsp_ggml_log_set(
        callback: Option<unsafe extern "C" fn(c_int, *const c_char, *mut c_void)>,
        user_data: *mut c_void,
    );

    pub fn wsp_ggml_backend_alloc_ctx_tensors(
        ctx: *mut wsp_ggml_context,
        backend: wsp_ggml_backend_t,
    ) -> wsp_ggml_backend_buffer_t;
    pub fn wsp_ggml_backend_cpu_init() -> wsp_ggml_backend_t;
    pub fn wsp_ggml_backend_cpu_set_n_threads(backend: wsp_ggml_backend_t, n_threads: c_int);
}

// ---------------------------------------------------------------------------------------------
// the backend layer's exports (this library)
// ---------------------------------------------------------------------------------------------

extern "C" {
    pub fn wsp_ggml_backend_free(backend: wsp_ggml_backend_t);
    pub fn wsp_ggml_backend_get_default_buffer_type(backend: wsp_ggml_backend_t) -> wsp_ggml_backend_buffer_type_t;
    pub fn wsp_ggml_backend_synchronize(backend: wsp_ggml_backend_t);
    pub fn wsp_ggml_backend_tensor_set(tensor: *mut wsp_ggml_tensor, data: *const c_void, offset: usize, size: usize);
    pub fn wsp_ggml_backend_tensor_get(tensor: *const wsp_ggml_tensor, data: *mut c_void, offset: usize, size: usize);
    pub fn wsp_ggml_backend_buffer_free(buffer: wsp_ggml_backend_buffer_t);
    pub fn wsp_ggml_backend_buffer_set_usage(buffer: wsp_ggml_backend_buffer_t, usage: wsp_ggml_backend_buffer_usage);
    pub fn wsp_ggml_backend_dev_buffer_type(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_buffer_type_t;
    pub fn wsp_ggml_backend_dev_init(device: wsp_ggml_backend_dev_t, params: *const c_char) -> wsp_ggml_backend_t;

    pub fn wsp_ggml_backend_sched_new(
        backends: *mut wsp_ggml_backend_t,
        bufts: *mut wsp_ggml_backend_buffer_type_t,
        n_backends: c_int,
        graph_size: usize,
        parallel: bool,
        op_offload: bool,
    ) -> wsp_ggml_backend_sched_t;
    pub fn wsp_ggml_backend_sched_free(sched: wsp_ggml_backend_sched_t);
    pub fn wsp_ggml_backend_sched_reserve(sched: wsp_ggml_backend_sched_t, measure_graph: *mut wsp_ggml_cgraph)
        -> bool;
    pub fn wsp_ggml_backend_sched_get_n_backends(sched: wsp_ggml_backend_sched_t) -> c_int;
    pub fn wsp_ggml_backend_sched_get_backend(sched: wsp_ggml_backend_sched_t, i: c_int) -> wsp_ggml_backend_t;
    pub fn wsp_ggml_backend_sched_get_n_splits(sched: wsp_ggml_backend_sched_t) -> c_int;
    pub fn wsp_ggml_backend_sched_get_n_copies(sched: wsp_ggml_backend_sched_t) -> c_int;
    pub fn wsp_ggml_backend_sched_get_buffer_size(
        sched: wsp_ggml_backend_sched_t,
        backend: wsp_ggml_backend_t,
    ) -> usize;
    pub fn wsp_ggml_backend_sched_set_tensor_backend(
        sched: wsp_ggml_backend_sched_t,
        node: *mut wsp_ggml_tensor,
        backend: wsp_ggml_backend_t,
    );
    pub fn wsp_ggml_backend_sched_get_tensor_backend(
        sched: wsp_ggml_backend_sched_t,
        node: *mut wsp_ggml_tensor,
    ) -> wsp_ggml_backend_t;
    pub fn wsp_ggml_backend_sched_alloc_graph(sched: wsp_ggml_backend_sched_t, graph: *mut wsp_ggml_cgraph) -> bool;
    pub fn wsp_ggml_backend_sched_graph_compute(
        sched: wsp_ggml_backend_sched_t,
        graph: *mut wsp_ggml_cgraph,
    ) -> wsp_ggml_status;
    pub fn wsp_ggml_backend_sched_reset(sched: wsp_ggml_backend_sched_t);
    pub fn wsp_ggml_backend_sched_set_eval_callback(
        sched: wsp_ggml_backend_sched_t,
        callback: wsp_ggml_backend_sched_eval_callback,
        user_data: *mut c_void,
    );
}

// ---------------------------------------------------------------------------------------------
// the TEST backend fixture (ctests/fixtures/test_backend.h)
// ---------------------------------------------------------------------------------------------

#[repr(C)]
#[derive(Default, Debug)]
pub struct Counters {
    pub backends_init: c_int,
    pub backends_free: c_int,
    pub buffers_alloc: c_int,
    pub buffers_free: c_int,
    pub graph_computes: c_int,
    pub nodes_computed: c_int,
    pub synchronize: c_int,
    pub set_async: c_int,
    pub get_async: c_int,
    pub cpy_async: c_int,
    pub buffer_cpy: c_int,
    pub event_new: c_int,
    pub event_free: c_int,
    pub event_record: c_int,
    pub event_wait: c_int,
    pub event_sync: c_int,
}

extern "C" {
    pub fn test_backend_reg() -> wsp_ggml_backend_reg_t;
    pub fn test_backend_dev() -> wsp_ggml_backend_dev_t;
    pub fn test_backend_init() -> wsp_ggml_backend_t;
    pub fn test_backend_set_fail_alloc(fail: bool);
    pub fn test_backend_set_supported_ops(ops: *const wsp_ggml_op, n_ops: c_int);
    pub fn test_backend_set_offload_ops(ops: *const wsp_ggml_op, n_ops: c_int);
    pub fn test_backend_set_accept_host_srcs(accept: bool);
    pub fn test_backend_set_async_iface(enable: bool);
    pub fn test_backend_reset_config();
    pub fn test_backend_counters(out: *mut Counters);
    pub fn test_backend_reset_counters();
}
