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
    pub fn wsp_ggml_init(params: ggml_init_params) -> *mut ggml_context;
    pub fn wsp_ggml_free(ctx: *mut ggml_context);
    pub fn wsp_ggml_tensor_overhead() -> usize;
    pub fn wsp_ggml_graph_overhead_custom(size: usize, grads: bool) -> usize;
    pub fn wsp_ggml_new_tensor_3d(
        ctx: *mut ggml_context,
        ty: ggml_type,
        ne0: i64,
        ne1: i64,
        ne2: i64,
    ) -> *mut ggml_tensor;
    pub fn wsp_ggml_set_name(tensor: *mut ggml_tensor, name: *const c_char) -> *mut ggml_tensor;
    pub fn wsp_ggml_set_input(tensor: *mut ggml_tensor);
    pub fn wsp_ggml_set_output(tensor: *mut ggml_tensor);
    pub fn wsp_ggml_nbytes(tensor: *const ggml_tensor) -> usize;
    pub fn wsp_ggml_nelements(tensor: *const ggml_tensor) -> i64;
    pub fn wsp_ggml_is_contiguous(tensor: *const ggml_tensor) -> bool;
    pub fn wsp_ggml_is_contiguous_1(tensor: *const ggml_tensor) -> bool;
    pub fn wsp_ggml_are_same_shape(t0: *const ggml_tensor, t1: *const ggml_tensor) -> bool;
    pub fn wsp_ggml_can_repeat(t0: *const ggml_tensor, t1: *const ggml_tensor) -> bool;
    pub fn wsp_ggml_op_name(op: ggml_op) -> *const c_char;

    pub fn wsp_ggml_add(ctx: *mut ggml_context, a: *mut ggml_tensor, b: *mut ggml_tensor) -> *mut ggml_tensor;
    pub fn wsp_ggml_sub(ctx: *mut ggml_context, a: *mut ggml_tensor, b: *mut ggml_tensor) -> *mut ggml_tensor;
    pub fn wsp_ggml_mul(ctx: *mut ggml_context, a: *mut ggml_tensor, b: *mut ggml_tensor) -> *mut ggml_tensor;
    pub fn wsp_ggml_div(ctx: *mut ggml_context, a: *mut ggml_tensor, b: *mut ggml_tensor) -> *mut ggml_tensor;
    pub fn wsp_ggml_scale(ctx: *mut ggml_context, a: *mut ggml_tensor, s: f32) -> *mut ggml_tensor;
    pub fn wsp_ggml_sqr(ctx: *mut ggml_context, a: *mut ggml_tensor) -> *mut ggml_tensor;
    pub fn wsp_ggml_reshape_3d(
        ctx: *mut ggml_context,
        a: *mut ggml_tensor,
        ne0: i64,
        ne1: i64,
        ne2: i64,
    ) -> *mut ggml_tensor;
    pub fn wsp_ggml_view_1d(ctx: *mut ggml_context, a: *mut ggml_tensor, ne0: i64, offset: usize) -> *mut ggml_tensor;
    pub fn wsp_ggml_view_2d(
        ctx: *mut ggml_context,
        a: *mut ggml_tensor,
        ne0: i64,
        ne1: i64,
        nb1: usize,
        offset: usize,
    ) -> *mut ggml_tensor;
    pub fn wsp_ggml_permute(
        ctx: *mut ggml_context,
        a: *mut ggml_tensor,
        a0: c_int,
        a1: c_int,
        a2: c_int,
        a3: c_int,
    ) -> *mut ggml_tensor;
    pub fn wsp_ggml_transpose(ctx: *mut ggml_context, a: *mut ggml_tensor) -> *mut ggml_tensor;

    pub fn wsp_ggml_new_graph_custom(ctx: *mut ggml_context, size: usize, grads: bool) -> *mut ggml_cgraph;
    pub fn wsp_ggml_build_forward_expand(graph: *mut ggml_cgraph, tensor: *mut ggml_tensor);
    pub fn wsp_ggml_log_set(
        callback: Option<unsafe extern "C" fn(c_int, *const c_char, *mut c_void)>,
        user_data: *mut c_void,
    );

    pub fn wsp_ggml_backend_alloc_ctx_tensors(ctx: *mut ggml_context, backend: ggml_backend_t)
        -> ggml_backend_buffer_t;
    pub fn wsp_ggml_backend_cpu_init() -> ggml_backend_t;
    pub fn wsp_ggml_backend_cpu_set_n_threads(backend: ggml_backend_t, n_threads: c_int);
}

// ---------------------------------------------------------------------------------------------
// the backend layer's exports (this library)
// ---------------------------------------------------------------------------------------------

extern "C" {
    pub fn wsp_ggml_backend_free(backend: ggml_backend_t);
    pub fn wsp_ggml_backend_get_default_buffer_type(backend: ggml_backend_t) -> ggml_backend_buffer_type_t;
    pub fn wsp_ggml_backend_synchronize(backend: ggml_backend_t);
    pub fn wsp_ggml_backend_tensor_set(tensor: *mut ggml_tensor, data: *const c_void, offset: usize, size: usize);
    pub fn wsp_ggml_backend_tensor_get(tensor: *const ggml_tensor, data: *mut c_void, offset: usize, size: usize);
    pub fn wsp_ggml_backend_buffer_free(buffer: ggml_backend_buffer_t);
    pub fn wsp_ggml_backend_buffer_set_usage(buffer: ggml_backend_buffer_t, usage: ggml_backend_buffer_usage);
    pub fn wsp_ggml_backend_dev_buffer_type(device: ggml_backend_dev_t) -> ggml_backend_buffer_type_t;
    pub fn wsp_ggml_backend_dev_init(device: ggml_backend_dev_t, params: *const c_char) -> ggml_backend_t;

    pub fn wsp_ggml_backend_sched_new(
        backends: *mut ggml_backend_t,
        bufts: *mut ggml_backend_buffer_type_t,
        n_backends: c_int,
        graph_size: usize,
        parallel: bool,
        op_offload: bool,
    ) -> ggml_backend_sched_t;
    pub fn wsp_ggml_backend_sched_free(sched: ggml_backend_sched_t);
    pub fn wsp_ggml_backend_sched_reserve(sched: ggml_backend_sched_t, measure_graph: *mut ggml_cgraph) -> bool;
    pub fn wsp_ggml_backend_sched_get_n_backends(sched: ggml_backend_sched_t) -> c_int;
    pub fn wsp_ggml_backend_sched_get_backend(sched: ggml_backend_sched_t, i: c_int) -> ggml_backend_t;
    pub fn wsp_ggml_backend_sched_get_n_splits(sched: ggml_backend_sched_t) -> c_int;
    pub fn wsp_ggml_backend_sched_get_n_copies(sched: ggml_backend_sched_t) -> c_int;
    pub fn wsp_ggml_backend_sched_get_buffer_size(sched: ggml_backend_sched_t, backend: ggml_backend_t) -> usize;
    pub fn wsp_ggml_backend_sched_set_tensor_backend(
        sched: ggml_backend_sched_t,
        node: *mut ggml_tensor,
        backend: ggml_backend_t,
    );
    pub fn wsp_ggml_backend_sched_get_tensor_backend(
        sched: ggml_backend_sched_t,
        node: *mut ggml_tensor,
    ) -> ggml_backend_t;
    pub fn wsp_ggml_backend_sched_alloc_graph(sched: ggml_backend_sched_t, graph: *mut ggml_cgraph) -> bool;
    pub fn wsp_ggml_backend_sched_graph_compute(sched: ggml_backend_sched_t, graph: *mut ggml_cgraph) -> ggml_status;
    pub fn wsp_ggml_backend_sched_reset(sched: ggml_backend_sched_t);
    pub fn wsp_ggml_backend_sched_set_eval_callback(
        sched: ggml_backend_sched_t,
        callback: ggml_backend_sched_eval_callback,
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
    pub fn test_backend_reg() -> ggml_backend_reg_t;
    pub fn test_backend_dev() -> ggml_backend_dev_t;
    pub fn test_backend_init() -> ggml_backend_t;
    pub fn test_backend_set_fail_alloc(fail: bool);
    pub fn test_backend_set_supported_ops(ops: *const ggml_op, n_ops: c_int);
    pub fn test_backend_set_offload_ops(ops: *const ggml_op, n_ops: c_int);
    pub fn test_backend_set_accept_host_srcs(accept: bool);
    pub fn test_backend_set_async_iface(enable: bool);
    pub fn test_backend_reset_config();
    pub fn test_backend_counters(out: *mut Counters);
    pub fn test_backend_reset_counters();
}
