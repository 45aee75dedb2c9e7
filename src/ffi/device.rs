//! Exports: devices and backend registrations (regs).

use super::{arg, named, ToC};
use crate::abi::*;
use std::ffi::{c_char, c_void};

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_name(device: wsp_ggml_backend_dev_t) -> *const c_char {
    arg!(device).name(FN)
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_description(device: wsp_ggml_backend_dev_t) -> *const c_char {
    arg!(device).description(FN)
}

/// # Safety
/// `device` is NULL or a live device; `free` and `total` are writable.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_memory(
    device: wsp_ggml_backend_dev_t,
    free: *mut usize,
    total: *mut usize,
) {
    let device = arg!(device);
    // SAFETY: the caller's promise for `free` and `total`.
    unsafe { device.memory(FN, free, total) }
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_type(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_dev_type {
    arg!(device).device_type(FN)
}

/// Zeroes `props` before the device fills it in, so fields it skips read as 0/NULL/false.
///
/// # Safety
/// `device` is NULL or a live device; `props` is NULL or writable.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_get_props(
    device: wsp_ggml_backend_dev_t,
    props: *mut wsp_ggml_backend_dev_props,
) {
    let device = arg!(device);
    device.props(FN, arg!(props))
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_backend_reg(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_reg_t {
    arg!(device).reg().to_c()
}

/// NULL (with a log line) for a NULL device.
///
/// # Safety
/// `device` is NULL or a live device; `params` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_init(
    device: wsp_ggml_backend_dev_t,
    params: *const c_char,
) -> wsp_ggml_backend_t {
    let device = arg!(device, or std::ptr::null_mut());
    // SAFETY: the caller's promise for `params`.
    unsafe { device.init_backend(FN, params) }.to_c()
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_buffer_type(
    device: wsp_ggml_backend_dev_t,
) -> wsp_ggml_backend_buffer_type_t {
    arg!(device).buffer_type(FN).to_c()
}

/// NULL when the device has no host buffer type.
///
/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_host_buffer_type(
    device: wsp_ggml_backend_dev_t,
) -> wsp_ggml_backend_buffer_type_t {
    arg!(device).host_buffer_type().to_c()
}

/// NULL (with a log line) when the device cannot wrap host memory.
///
/// # Safety
/// `device` is NULL or a live device; `[ptr, ptr + size)` is memory that outlives the buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_buffer_from_host_ptr(
    device: wsp_ggml_backend_dev_t,
    ptr: *mut c_void,
    size: usize,
    max_tensor_size: usize,
) -> wsp_ggml_backend_buffer_t {
    let device = arg!(device);
    // SAFETY: the caller's promise for the memory.
    let buffer = unsafe { device.buffer_from_host_ptr(ptr, size, max_tensor_size) };
    buffer
        .unwrap_or_else(|| {
            crate::base::report::log_error!("{FN}: buffer_from_host_ptr not implemented by this device\n");
            None
        })
        .to_c()
}

/// # Safety
/// `device` and `op` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_supports_op(
    device: wsp_ggml_backend_dev_t,
    op: *const wsp_ggml_tensor,
) -> bool {
    arg!(device).supports_op(FN, arg!(op))
}

/// # Safety
/// `device` and `buft` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_supports_buft(
    device: wsp_ggml_backend_dev_t,
    buft: wsp_ggml_backend_buffer_type_t,
) -> bool {
    arg!(device).supports_buft(FN, arg!(buft))
}

/// False when the device does not say (the entry is optional).
///
/// # Safety
/// `device` and `op` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_dev_offload_op(
    device: wsp_ggml_backend_dev_t,
    op: *const wsp_ggml_tensor,
) -> bool {
    arg!(device).offload_op(arg!(op))
}

/// # Safety
/// `reg` is NULL or a live reg.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_reg_name(reg: wsp_ggml_backend_reg_t) -> *const c_char {
    arg!(reg).name(FN)
}

/// # Safety
/// `reg` is NULL or a live reg.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_reg_dev_count(reg: wsp_ggml_backend_reg_t) -> usize {
    arg!(reg).device_count(FN)
}

/// # Safety
/// `reg` is NULL or a live reg.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_reg_dev_get(
    reg: wsp_ggml_backend_reg_t,
    index: usize,
) -> wsp_ggml_backend_dev_t {
    arg!(reg).device(FN, index).to_c()
}

/// NULL when the reg has no custom functions or does not know `name`.
///
/// # Safety
/// `reg` is NULL or a live reg; `name` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn wsp_ggml_backend_reg_get_proc_address(
    reg: wsp_ggml_backend_reg_t,
    name: *const c_char,
) -> *mut c_void {
    let reg = arg!(reg);
    arg!(name, optional).map_or(std::ptr::null_mut(), |name| reg.proc_address(name))
}
