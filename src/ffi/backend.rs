//! Exports: backends, their tensor data access and graph computation, and tensor copies.

use super::{arg, named, ToC};
use crate::abi::*;
use crate::base::report::checked;
use crate::buffer::tensor_io;
#[cfg(tensor_2d)]
use crate::handle::Runs;
use core::ffi::{c_char, c_void};

/// NULL for a NULL backend, as in the reference.
///
/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_guid(backend: ggml_backend_t) -> ggml_guid_t {
    arg!(backend, optional).map_or(core::ptr::null_mut(), |b| b.guid())
}

/// "NULL" for a NULL backend, as in the reference.
///
/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_name(backend: ggml_backend_t) -> *const c_char {
    arg!(backend, optional).map_or(c"NULL".as_ptr(), |b| b.name(FN))
}

/// NULL is ignored.
///
/// # Safety
/// `backend` is NULL or a live backend, not used afterwards.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_free(backend: ggml_backend_t) {
    if let Some(backend) = arg!(backend, optional) {
        backend.free(FN);
    }
}

/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_get_default_buffer_type(backend: ggml_backend_t) -> ggml_backend_buffer_type_t {
    checked!(arg!(backend).device_checked(FN)).buffer_type(FN).to_c()
}

/// NULL (with a log line) for a NULL backend.
///
/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_alloc_buffer(backend: ggml_backend_t, size: usize) -> ggml_backend_buffer_t {
    let buft = checked!(arg!(backend).device_checked(FN)).buffer_type(FN);
    buft.and_then(|buft| crate::buffer::alloc_buffer(FN, buft, size)).to_c()
}

/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_get_alignment(backend: ggml_backend_t) -> usize {
    checked!(checked!(arg!(backend).device_checked(FN)).buffer_type_checked(FN)).alignment(FN)
}

/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_get_max_size(backend: ggml_backend_t) -> usize {
    checked!(checked!(arg!(backend).device_checked(FN)).buffer_type_checked(FN)).max_size()
}

/// # Safety
/// `tensor` is NULL or a live tensor; `data` holds `size` readable bytes.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_set(
    tensor: *mut ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::set(FN, tensor, data, offset, size) }
}

/// # Safety
/// `tensor` is NULL or a live tensor; `data` has room for `size` bytes.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_get(
    tensor: *const ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::get(FN, tensor, data, offset, size) }
}

/// # Safety
/// `tensor` is NULL or a live tensor.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_memset(tensor: *mut ggml_tensor, value: u8, offset: usize, size: usize) {
    tensor_io::memset(FN, arg!(tensor), value, offset, size)
}

/// # Safety
/// `backend` and `tensor` are NULL or live; `data` holds `size` bytes that stay readable
/// until the backend is synchronized.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_set_async(
    backend: ggml_backend_t,
    tensor: *mut ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    let (backend, tensor) = (arg!(backend), arg!(tensor));
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::set_async(FN, backend, tensor, data, offset, size) }
}

/// # Safety
/// `backend` and `tensor` are NULL or live; `data` has room for `size` bytes until the
/// backend is synchronized.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_get_async(
    backend: ggml_backend_t,
    tensor: *const ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    let (backend, tensor) = (arg!(backend), arg!(tensor));
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::get_async(FN, backend, tensor, data, offset, size) }
}

/// # Safety
/// `tensor` is NULL or a live tensor; `data` holds the runs' bytes (0.7).
#[cfg(tensor_2d)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_set_2d(
    tensor: *mut ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
    n_copies: usize,
    stride_tensor: usize,
    stride_data: usize,
) {
    let tensor = arg!(tensor);
    let runs = Runs { size, count: n_copies, stride_tensor, stride_data };
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::set_2d(FN, tensor, data, offset, runs) }
}

/// # Safety
/// `tensor` is NULL or a live tensor; `data` has room for the runs (0.7).
#[cfg(tensor_2d)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_get_2d(
    tensor: *const ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
    n_copies: usize,
    stride_tensor: usize,
    stride_data: usize,
) {
    let tensor = arg!(tensor);
    let runs = Runs { size, count: n_copies, stride_tensor, stride_data };
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::get_2d(FN, tensor, data, offset, runs) }
}

/// # Safety
/// `backend` and `tensor` are NULL or live; `data` holds the runs' bytes until the backend is
/// synchronized (0.7).
#[cfg(tensor_2d)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_set_2d_async(
    backend: ggml_backend_t,
    tensor: *mut ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
    n_copies: usize,
    stride_tensor: usize,
    stride_data: usize,
) {
    let (backend, tensor) = (arg!(backend), arg!(tensor));
    let runs = Runs { size, count: n_copies, stride_tensor, stride_data };
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::set_2d_async(FN, backend, tensor, data, offset, runs) }
}

/// # Safety
/// `backend` and `tensor` are NULL or live; `data` has room for the runs until the backend is
/// synchronized (0.7).
#[cfg(tensor_2d)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_get_2d_async(
    backend: ggml_backend_t,
    tensor: *const ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
    n_copies: usize,
    stride_tensor: usize,
    stride_data: usize,
) {
    let (backend, tensor) = (arg!(backend), arg!(tensor));
    let runs = Runs { size, count: n_copies, stride_tensor, stride_data };
    // SAFETY: the caller's promise for `data`.
    unsafe { tensor_io::get_2d_async(FN, backend, tensor, data, offset, runs) }
}

/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_synchronize(backend: ggml_backend_t) {
    arg!(backend).synchronize()
}

/// # Safety
/// `backend` and `cgraph` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_graph_plan_create(
    backend: ggml_backend_t,
    cgraph: *mut ggml_cgraph,
) -> ggml_backend_graph_plan_t {
    let (backend, cgraph) = (arg!(backend), arg!(cgraph));
    // SAFETY: a live graph (the caller's promise).
    unsafe { backend.graph_plan_create(FN, cgraph.as_ptr()) }
}

/// # Safety
/// `backend` is NULL or a live backend; `plan` was made by it and is not used afterwards.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_graph_plan_free(backend: ggml_backend_t, plan: ggml_backend_graph_plan_t) {
    let backend = arg!(backend);
    // SAFETY: the caller's promise for `plan`.
    unsafe { backend.graph_plan_free(FN, plan) }
}

/// # Safety
/// `backend` is NULL or a live backend; `plan` was made by it.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_graph_plan_compute(
    backend: ggml_backend_t,
    plan: ggml_backend_graph_plan_t,
) -> ggml_status {
    let backend = arg!(backend);
    // SAFETY: the caller's promise for `plan`.
    unsafe { backend.graph_plan_compute(FN, plan) }
}

/// Computes the graph and waits for the backend. GGML_STATUS_FAILED (with a log line) for
/// a NULL backend or graph.
///
/// # Safety
/// `backend` is NULL or a live backend; `cgraph` is NULL or a live, allocated graph.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_graph_compute(backend: ggml_backend_t, cgraph: *mut ggml_cgraph) -> ggml_status {
    let backend = arg!(backend);
    let cgraph = arg!(cgraph);
    // SAFETY: the caller's promise for the graph.
    let status = unsafe { backend.graph_compute(FN, cgraph.as_ptr()) };
    backend.synchronize();
    status
}

/// Starts computing the graph. GGML_STATUS_FAILED (with a log line) for a NULL backend or
/// graph.
///
/// # Safety
/// As for `ggml_backend_graph_compute`.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_graph_compute_async(
    backend: ggml_backend_t,
    cgraph: *mut ggml_cgraph,
) -> ggml_status {
    let backend = arg!(backend);
    let cgraph = arg!(cgraph);
    // SAFETY: the caller's promise for the graph.
    unsafe { backend.graph_compute(FN, cgraph.as_ptr()) }
}

/// # Safety
/// `backend` and `op` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_supports_op(backend: ggml_backend_t, op: *const ggml_tensor) -> bool {
    checked!(arg!(backend).device_checked(FN)).supports_op(FN, arg!(op))
}

/// # Safety
/// `backend` and `buft` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_supports_buft(backend: ggml_backend_t, buft: ggml_backend_buffer_type_t) -> bool {
    checked!(arg!(backend).device_checked(FN)).supports_buft(FN, arg!(buft))
}

/// # Safety
/// `backend` and `op` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_offload_op(backend: ggml_backend_t, op: *const ggml_tensor) -> bool {
    checked!(arg!(backend).device_checked(FN)).offload_op(arg!(op))
}

/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_get_device(backend: ggml_backend_t) -> ggml_backend_dev_t {
    arg!(backend).device().to_c()
}

/// Copies `src` into `dst` (same layout), whatever backends they belong to.
///
/// # Safety
/// `src` and `dst` are NULL or live, allocated tensors.
#[cfg(not(const_copy_source))]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_copy(src: *mut ggml_tensor, dst: *mut ggml_tensor) {
    tensor_io::checked_copy(FN, arg!(src), arg!(dst))
}

/// As before 0.7, which declares `src` const (the same ABI).
///
/// # Safety
/// `src` and `dst` are NULL or live, allocated tensors.
#[cfg(const_copy_source)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_copy(src: *const ggml_tensor, dst: *mut ggml_tensor) {
    tensor_io::checked_copy(FN, arg!(src), arg!(dst))
}

/// Copies `src` into `dst` on the backends' queues when the destination can, otherwise after
/// waiting for both.
///
/// # Safety
/// The backends are NULL or live; `src` and `dst` are NULL or live, allocated tensors.
#[cfg(not(const_copy_source))]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_copy_async(
    backend_src: ggml_backend_t,
    backend_dst: ggml_backend_t,
    src: *mut ggml_tensor,
    dst: *mut ggml_tensor,
) {
    let (backend_src, backend_dst) = (arg!(backend_src), arg!(backend_dst));
    tensor_io::copy_async(FN, backend_src, backend_dst, arg!(src), arg!(dst))
}

/// As before 0.7, which declares `src` const (the same ABI).
///
/// # Safety
/// The backends are NULL or live; `src` and `dst` are NULL or live, allocated tensors.
#[cfg(const_copy_source)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_tensor_copy_async(
    backend_src: ggml_backend_t,
    backend_dst: ggml_backend_t,
    src: *const ggml_tensor,
    dst: *mut ggml_tensor,
) {
    let (backend_src, backend_dst) = (arg!(backend_src), arg!(backend_dst));
    tensor_io::copy_async(FN, backend_src, backend_dst, arg!(src), arg!(dst))
}
