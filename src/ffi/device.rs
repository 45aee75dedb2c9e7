//! Exports: devices and backend registrations (regs).

use super::{arg, named, ToC};
use crate::abi::*;
use crate::base::report::refuse;
use core::ffi::{c_char, c_void};

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_name(device: ggml_backend_dev_t) -> *const c_char {
    arg!(device).name(FN)
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_description(device: ggml_backend_dev_t) -> *const c_char {
    arg!(device).description(FN)
}

/// # Safety
/// `device` is NULL or a live device; `free` and `total` are writable.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_memory(device: ggml_backend_dev_t, free: *mut usize, total: *mut usize) {
    let device = arg!(device);
    // SAFETY: the caller's promise for `free` and `total`.
    unsafe { device.memory(FN, free, total) }
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_type(device: ggml_backend_dev_t) -> ggml_backend_dev_type {
    arg!(device).device_type(FN)
}

/// Zeroes `props` before the device fills it in, so fields it skips read as 0/NULL/false.
///
/// # Safety
/// `device` is NULL or a live device; `props` is NULL or writable.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_get_props(device: ggml_backend_dev_t, props: *mut ggml_backend_dev_props) {
    let device = arg!(device);
    device.props(FN, arg!(props))
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_backend_reg(device: ggml_backend_dev_t) -> ggml_backend_reg_t {
    arg!(device).reg().to_c()
}

/// NULL (with a log line) for a NULL device.
///
/// # Safety
/// `device` is NULL or a live device; `params` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_init(device: ggml_backend_dev_t, params: *const c_char) -> ggml_backend_t {
    let device = arg!(device);
    // SAFETY: the caller's promise for `params`.
    unsafe { device.init_backend(FN, params) }.to_c()
}

/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_buffer_type(device: ggml_backend_dev_t) -> ggml_backend_buffer_type_t {
    arg!(device).buffer_type(FN).to_c()
}

/// NULL when the device has no host buffer type.
///
/// # Safety
/// `device` is NULL or a live device.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_host_buffer_type(device: ggml_backend_dev_t) -> ggml_backend_buffer_type_t {
    arg!(device).host_buffer_type().to_c()
}

/// NULL (with a log line) when the device cannot wrap host memory.
///
/// # Safety
/// `device` is NULL or a live device; `[ptr, ptr + size)` is memory that outlives the buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_buffer_from_host_ptr(
    device: ggml_backend_dev_t,
    ptr: *mut c_void,
    size: usize,
    max_tensor_size: usize,
) -> ggml_backend_buffer_t {
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
pub unsafe extern "C" fn ggml_backend_dev_supports_op(device: ggml_backend_dev_t, op: *const ggml_tensor) -> bool {
    arg!(device).supports_op(FN, arg!(op))
}

/// # Safety
/// `device` and `buft` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_supports_buft(
    device: ggml_backend_dev_t,
    buft: ggml_backend_buffer_type_t,
) -> bool {
    arg!(device).supports_buft(FN, arg!(buft))
}

/// False when the device does not say (the entry is optional).
///
/// # Safety
/// `device` and `op` are NULL or live.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_dev_offload_op(device: ggml_backend_dev_t, op: *const ggml_tensor) -> bool {
    arg!(device).offload_op(arg!(op))
}

/// # Safety
/// `reg` is NULL or a live reg.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_reg_name(reg: ggml_backend_reg_t) -> *const c_char {
    arg!(reg).name(FN)
}

/// # Safety
/// `reg` is NULL or a live reg.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_reg_dev_count(reg: ggml_backend_reg_t) -> usize {
    arg!(reg).device_count(FN)
}

/// # Safety
/// `reg` is NULL or a live reg.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_reg_dev_get(reg: ggml_backend_reg_t, index: usize) -> ggml_backend_dev_t {
    let reg = arg!(reg);
    let count = reg.device_count(FN);
    if index >= count {
        refuse!("{FN}: index {index} out of range ({count} devices)");
    }
    reg.device(FN, index).to_c()
}

/// NULL when the reg has no custom functions or does not know `name`.
///
/// # Safety
/// `reg` is NULL or a live reg; `name` is NULL or a string.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_reg_get_proc_address(
    reg: ggml_backend_reg_t,
    name: *const c_char,
) -> *mut c_void {
    let reg = arg!(reg);
    arg!(name, optional).map_or(core::ptr::null_mut(), |name| reg.proc_address(name))
}
