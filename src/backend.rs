//! Backends (streams): dispatch through `wsp_ggml_backend_i`, tensor data access with the
//! reference's checks (named, and with the sizes in the message), and tensor copies.

use crate::abi::*;
use crate::buffer::{buffer_is_host, storage_buffer};
use crate::device::*;
use crate::ffi::arg;
use crate::ggml::{deref, ensure, fatal, log_error, required, wsp_ggml_nbytes};
use std::ffi::{c_char, c_void};

/// NULL for a NULL backend, as in the reference.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_guid(backend: wsp_ggml_backend_t) -> wsp_ggml_guid_t {
    match backend.as_ref() {
        Some(b) => b.guid,
        None => std::ptr::null_mut(),
    }
}

/// "NULL" for a NULL backend, as in the reference.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_name(backend: wsp_ggml_backend_t) -> *const c_char {
    const FN: &str = "wsp_ggml_backend_name";
    match backend.as_ref() {
        Some(b) => required(b.iface.get_name, FN, "get_name")(backend),
        None => c"NULL".as_ptr(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_free(backend: wsp_ggml_backend_t) {
    const FN: &str = "wsp_ggml_backend_free";
    if let Some(b) = backend.as_ref() {
        required(b.iface.free, FN, "free")(backend);
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_get_default_buffer_type(backend: wsp_ggml_backend_t) -> wsp_ggml_backend_buffer_type_t {
    const FN: &str = "wsp_ggml_backend_get_default_buffer_type";
    wsp_ggml_backend_dev_buffer_type(arg!(backend).device)
}

/// NULL (with a log line) for a NULL backend.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_alloc_buffer(backend: wsp_ggml_backend_t, size: usize) -> wsp_ggml_backend_buffer_t {
    const FN: &str = "wsp_ggml_backend_alloc_buffer";
    let Some(b) = backend.as_ref() else {
        log_error!("{FN}: backend is NULL\n");
        return std::ptr::null_mut();
    };
    crate::buffer_type::wsp_ggml_backend_buft_alloc_buffer(wsp_ggml_backend_dev_buffer_type(b.device), size)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_get_alignment(backend: wsp_ggml_backend_t) -> usize {
    const FN: &str = "wsp_ggml_backend_get_alignment";
    crate::buffer_type::wsp_ggml_backend_buft_get_alignment(wsp_ggml_backend_dev_buffer_type(arg!(backend).device))
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_get_max_size(backend: wsp_ggml_backend_t) -> usize {
    const FN: &str = "wsp_ggml_backend_get_max_size";
    crate::buffer_type::wsp_ggml_backend_buft_get_max_size(wsp_ggml_backend_dev_buffer_type(arg!(backend).device))
}

// ---------------------------------------------------------------------------------------------
// tensor data access
// ---------------------------------------------------------------------------------------------

/// Which way data moves, for the bounds message ("tensor write out of bounds").
#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
}

impl Access {
    fn word(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }
}

/// Checks that `[offset, offset + size)` lies inside an allocated tensor.
///
/// # Safety
/// `tensor` is a live tensor.
unsafe fn check_range(func: &str, tensor: &wsp_ggml_tensor, offset: usize, size: usize, access: Access) {
    ensure!(!tensor.data.is_null(), "{func}: tensor not allocated ({})", crate::ggml::tensor_name(tensor));
    let nbytes = wsp_ggml_nbytes(tensor);
    let in_bounds = offset.checked_add(size).is_some_and(|end| end <= nbytes);
    ensure!(
        in_bounds,
        "{func}: tensor {} out of bounds (offset {offset} + size {size} > {nbytes} bytes of {})",
        access.word(),
        crate::ggml::tensor_name(tensor)
    );
}

/// The checks shared by the synchronous accessors; returns the buffer that holds the bytes,
/// or None when there is nothing to do (size 0, checked before anything else as the reference
/// does).
///
/// # Safety
/// `tensor` is a live tensor.
unsafe fn io_buffer(
    func: &str,
    tensor: &wsp_ggml_tensor,
    offset: usize,
    size: usize,
    access: Access,
) -> Option<wsp_ggml_backend_buffer_t> {
    if size == 0 {
        return None;
    }
    let buf = storage_buffer(tensor);
    ensure!(!buf.is_null(), "{func}: tensor buffer not set ({})", crate::ggml::tensor_name(tensor));
    check_range(func, tensor, offset, size, access);
    Some(buf)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_set(tensor: *mut wsp_ggml_tensor, data: *const c_void, offset: usize, size: usize) {
    const FN: &str = "wsp_ggml_backend_tensor_set";
    if let Some(buf) = io_buffer(FN, arg!(tensor), offset, size, Access::Write) {
        required((*buf).iface.set_tensor, FN, "set_tensor")(buf, tensor, data, offset, size);
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_get(tensor: *const wsp_ggml_tensor, data: *mut c_void, offset: usize, size: usize) {
    const FN: &str = "wsp_ggml_backend_tensor_get";
    if let Some(buf) = io_buffer(FN, arg!(tensor), offset, size, Access::Read) {
        required((*buf).iface.get_tensor, FN, "get_tensor")(buf, tensor, data, offset, size);
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_memset(tensor: *mut wsp_ggml_tensor, value: u8, offset: usize, size: usize) {
    const FN: &str = "wsp_ggml_backend_tensor_memset";
    if let Some(buf) = io_buffer(FN, arg!(tensor), offset, size, Access::Write) {
        required((*buf).iface.memset_tensor, FN, "memset_tensor")(buf, tensor, value, offset, size);
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_set_async(
    backend: wsp_ggml_backend_t,
    tensor: *mut wsp_ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    const FN: &str = "wsp_ggml_backend_tensor_set_async";
    let backend_ref = arg!(backend);
    check_range(FN, arg!(tensor), offset, size, Access::Write);
    match backend_ref.iface.set_tensor_async {
        Some(set_async) => set_async(backend, tensor, data, offset, size),
        None => wsp_ggml_backend_tensor_set(tensor, data, offset, size),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_get_async(
    backend: wsp_ggml_backend_t,
    tensor: *const wsp_ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    const FN: &str = "wsp_ggml_backend_tensor_get_async";
    let backend_ref = arg!(backend);
    check_range(FN, arg!(tensor), offset, size, Access::Read);
    match backend_ref.iface.get_tensor_async {
        Some(get_async) => get_async(backend, tensor, data, offset, size),
        None => wsp_ggml_backend_tensor_get(tensor, data, offset, size),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_synchronize(backend: wsp_ggml_backend_t) {
    const FN: &str = "wsp_ggml_backend_synchronize";
    synchronize(arg!(backend), backend);
}

/// `synchronize` is optional (synchronous backends leave it NULL).
///
/// # Safety
/// `backend_ref` is the object behind `backend`.
#[inline]
pub unsafe fn synchronize(backend_ref: &wsp_ggml_backend, backend: wsp_ggml_backend_t) {
    if let Some(sync) = backend_ref.iface.synchronize {
        sync(backend);
    }
}

// ---------------------------------------------------------------------------------------------
// graph computation
// ---------------------------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_graph_plan_create(backend: wsp_ggml_backend_t, cgraph: *mut wsp_ggml_cgraph) -> wsp_ggml_backend_graph_plan_t {
    const FN: &str = "wsp_ggml_backend_graph_plan_create";
    required(arg!(backend).iface.graph_plan_create, FN, "graph_plan_create")(backend, cgraph)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_graph_plan_free(backend: wsp_ggml_backend_t, plan: wsp_ggml_backend_graph_plan_t) {
    const FN: &str = "wsp_ggml_backend_graph_plan_free";
    required(arg!(backend).iface.graph_plan_free, FN, "graph_plan_free")(backend, plan)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_graph_plan_compute(backend: wsp_ggml_backend_t, plan: wsp_ggml_backend_graph_plan_t) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_graph_plan_compute";
    required(arg!(backend).iface.graph_plan_compute, FN, "graph_plan_compute")(backend, plan)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_graph_compute(backend: wsp_ggml_backend_t, cgraph: *mut wsp_ggml_cgraph) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_graph_compute";
    let status = graph_compute_async(FN, backend, cgraph);
    if let Some(b) = backend.as_ref() {
        synchronize(b, backend);
    }
    status
}

/// WSP_GGML_STATUS_FAILED (with a log line) for a NULL backend or graph.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_graph_compute_async(backend: wsp_ggml_backend_t, cgraph: *mut wsp_ggml_cgraph) -> wsp_ggml_status {
    graph_compute_async("wsp_ggml_backend_graph_compute_async", backend, cgraph)
}

/// Starts computing `cgraph` on `backend`; NULLs are refused with a log line naming `func`.
///
/// # Safety
/// `backend` and `cgraph` are NULL or live.
pub unsafe fn graph_compute_async(func: &str, backend: wsp_ggml_backend_t, cgraph: *mut wsp_ggml_cgraph) -> wsp_ggml_status {
    let Some(b) = backend.as_ref() else {
        log_error!("{func}: backend is NULL\n");
        return wsp_ggml_status::WSP_GGML_STATUS_FAILED;
    };
    if cgraph.is_null() {
        log_error!("{func}: cgraph is NULL\n");
        return wsp_ggml_status::WSP_GGML_STATUS_FAILED;
    }
    required(b.iface.graph_compute, func, "graph_compute")(backend, cgraph)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_supports_op(backend: wsp_ggml_backend_t, op: *const wsp_ggml_tensor) -> bool {
    const FN: &str = "wsp_ggml_backend_supports_op";
    wsp_ggml_backend_dev_supports_op(arg!(backend).device, op)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_supports_buft(backend: wsp_ggml_backend_t, buft: wsp_ggml_backend_buffer_type_t) -> bool {
    const FN: &str = "wsp_ggml_backend_supports_buft";
    wsp_ggml_backend_dev_supports_buft(arg!(backend).device, buft)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_offload_op(backend: wsp_ggml_backend_t, op: *const wsp_ggml_tensor) -> bool {
    const FN: &str = "wsp_ggml_backend_offload_op";
    wsp_ggml_backend_dev_offload_op(arg!(backend).device, op)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_get_device(backend: wsp_ggml_backend_t) -> wsp_ggml_backend_dev_t {
    const FN: &str = "wsp_ggml_backend_get_device";
    arg!(backend).device
}

// ---------------------------------------------------------------------------------------------
// copies between tensors, possibly of different backends
// ---------------------------------------------------------------------------------------------

fn same_layout(a: &wsp_ggml_tensor, b: &wsp_ggml_tensor) -> bool {
    a.r#type == b.r#type && a.ne == b.ne && a.nb == b.nb
}

/// # Safety
/// Both tensors are live.
unsafe fn check_copy(func: &str, src: &wsp_ggml_tensor, dst: &wsp_ggml_tensor) {
    if !same_layout(src, dst) {
        fatal!(
            "{func}: cannot copy tensors with different layouts ({} -> {})",
            crate::ggml::tensor_name(src),
            crate::ggml::tensor_name(dst)
        );
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_copy(src: *mut wsp_ggml_tensor, dst: *mut wsp_ggml_tensor) {
    const FN: &str = "wsp_ggml_backend_tensor_copy";
    check_copy(FN, arg!(src), arg!(dst));
    tensor_copy(FN, src, dst);
}

/// Copies `src` into `dst` (same layout): directly when either side is host memory, through
/// the destination buffer's `cpy_tensor` when it can, otherwise through a staging copy.
///
/// # Safety
/// Both tensors are live and of the same layout.
pub unsafe fn tensor_copy(func: &str, src: *mut wsp_ggml_tensor, dst: *mut wsp_ggml_tensor) {
    if src == dst {
        return;
    }
    let nbytes = wsp_ggml_nbytes(src);
    if nbytes == 0 {
        return;
    }
    // Whole tensors of the same layout: always in bounds, so only the buffers are checked.
    if buffer_is_host(deref((*src).buffer, func, "src->buffer"), func) {
        let buf = whole_tensor_buffer(func, &*dst);
        required((*buf).iface.set_tensor, func, "set_tensor")(buf, dst, (*src).data, 0, nbytes);
    } else if buffer_is_host(deref((*dst).buffer, func, "dst->buffer"), func) {
        let buf = whole_tensor_buffer(func, &*src);
        required((*buf).iface.get_tensor, func, "get_tensor")(buf, src, (*dst).data, 0, nbytes);
    } else if !crate::buffer::wsp_ggml_backend_buffer_copy_tensor(src, dst) {
        let mut staging: Vec<u8> = Vec::with_capacity(nbytes);
        wsp_ggml_backend_tensor_get(src, staging.as_mut_ptr() as *mut c_void, 0, nbytes);
        wsp_ggml_backend_tensor_set(dst, staging.as_ptr() as *const c_void, 0, nbytes);
    }
}

/// The buffer holding a tensor's bytes, for an access to all of them.
///
/// # Safety
/// `tensor` is a live tensor.
unsafe fn whole_tensor_buffer(func: &str, tensor: &wsp_ggml_tensor) -> wsp_ggml_backend_buffer_t {
    let buf = storage_buffer(tensor);
    ensure!(!buf.is_null(), "{func}: tensor buffer not set ({})", crate::ggml::tensor_name(tensor));
    ensure!(!tensor.data.is_null(), "{func}: tensor not allocated ({})", crate::ggml::tensor_name(tensor));
    buf
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_copy_async(
    backend_src: wsp_ggml_backend_t,
    backend_dst: wsp_ggml_backend_t,
    src: *mut wsp_ggml_tensor,
    dst: *mut wsp_ggml_tensor,
) {
    const FN: &str = "wsp_ggml_backend_tensor_copy_async";
    let src_backend = arg!(backend_src);
    let dst_backend = arg!(backend_dst);
    check_copy(FN, arg!(src), arg!(dst));
    if src == dst {
        return;
    }
    if let Some(cpy_async) = dst_backend.iface.cpy_tensor_async {
        if cpy_async(backend_src, backend_dst, src, dst) {
            return;
        }
    }
    // Without an asynchronous path, wait for both queues and copy synchronously.
    synchronize(src_backend, backend_src);
    synchronize(dst_backend, backend_dst);
    tensor_copy(FN, src, dst);
}
