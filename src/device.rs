//! Devices and backend registrations (regs): dispatch through `wsp_ggml_backend_device_i` and
//! `wsp_ggml_backend_reg_i`, with the defaults for their optional entries.

use crate::abi::*;
use crate::ffi::arg;
use crate::ggml::{log_error, required};
use std::ffi::{c_char, c_void};

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_name(device: wsp_ggml_backend_dev_t) -> *const c_char {
    const FN: &str = "wsp_ggml_backend_dev_name";
    required(arg!(device).iface.get_name, FN, "get_name")(device)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_description(device: wsp_ggml_backend_dev_t) -> *const c_char {
    const FN: &str = "wsp_ggml_backend_dev_description";
    required(arg!(device).iface.get_description, FN, "get_description")(device)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_memory(device: wsp_ggml_backend_dev_t, free: *mut usize, total: *mut usize) {
    const FN: &str = "wsp_ggml_backend_dev_memory";
    required(arg!(device).iface.get_memory, FN, "get_memory")(device, free, total)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_type(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_dev_type {
    const FN: &str = "wsp_ggml_backend_dev_type";
    required(arg!(device).iface.get_type, FN, "get_type")(device)
}

/// Zeroes `props` before the device fills it in, so fields it skips read as 0/NULL/false.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_get_props(device: wsp_ggml_backend_dev_t, props: *mut wsp_ggml_backend_dev_props) {
    const FN: &str = "wsp_ggml_backend_dev_get_props";
    let get_props = required(arg!(device).iface.get_props, FN, "get_props");
    arg!(props);
    std::ptr::write_bytes(props, 0, 1);
    get_props(device, props)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_backend_reg(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_reg_t {
    const FN: &str = "wsp_ggml_backend_dev_backend_reg";
    arg!(device).reg
}

/// NULL (with a log line) for a NULL device.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_init(device: wsp_ggml_backend_dev_t, params: *const c_char) -> wsp_ggml_backend_t {
    const FN: &str = "wsp_ggml_backend_dev_init";
    let Some(d) = device.as_ref() else {
        log_error!("{FN}: device is NULL\n");
        return std::ptr::null_mut();
    };
    required(d.iface.init_backend, FN, "init_backend")(device, params)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_buffer_type(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_buffer_type_t {
    const FN: &str = "wsp_ggml_backend_dev_buffer_type";
    required(arg!(device).iface.get_buffer_type, FN, "get_buffer_type")(device)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_host_buffer_type(device: wsp_ggml_backend_dev_t) -> wsp_ggml_backend_buffer_type_t {
    const FN: &str = "wsp_ggml_backend_dev_host_buffer_type";
    match arg!(device).iface.get_host_buffer_type {
        Some(get) => get(device),
        None => std::ptr::null_mut(),
    }
}

/// NULL (with a log line) when the device cannot wrap host memory.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_buffer_from_host_ptr(
    device: wsp_ggml_backend_dev_t,
    ptr: *mut c_void,
    size: usize,
    max_tensor_size: usize,
) -> wsp_ggml_backend_buffer_t {
    const FN: &str = "wsp_ggml_backend_dev_buffer_from_host_ptr";
    match arg!(device).iface.buffer_from_host_ptr {
        Some(from_ptr) => from_ptr(device, ptr, size, max_tensor_size),
        None => {
            log_error!("{FN}: buffer_from_host_ptr not implemented by this device\n");
            std::ptr::null_mut()
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_supports_op(device: wsp_ggml_backend_dev_t, op: *const wsp_ggml_tensor) -> bool {
    const FN: &str = "wsp_ggml_backend_dev_supports_op";
    required(arg!(device).iface.supports_op, FN, "supports_op")(device, op)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_supports_buft(device: wsp_ggml_backend_dev_t, buft: wsp_ggml_backend_buffer_type_t) -> bool {
    const FN: &str = "wsp_ggml_backend_dev_supports_buft";
    required(arg!(device).iface.supports_buft, FN, "supports_buft")(device, buft)
}

/// `offload_op` is optional and defaults to false.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_dev_offload_op(device: wsp_ggml_backend_dev_t, op: *const wsp_ggml_tensor) -> bool {
    const FN: &str = "wsp_ggml_backend_dev_offload_op";
    match arg!(device).iface.offload_op {
        Some(offload) => offload(device, op),
        None => false,
    }
}

// ---------------------------------------------------------------------------------------------
// backend registrations
// ---------------------------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_reg_name(reg: wsp_ggml_backend_reg_t) -> *const c_char {
    const FN: &str = "wsp_ggml_backend_reg_name";
    required(arg!(reg).iface.get_name, FN, "get_name")(reg)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_reg_dev_count(reg: wsp_ggml_backend_reg_t) -> usize {
    const FN: &str = "wsp_ggml_backend_reg_dev_count";
    required(arg!(reg).iface.get_device_count, FN, "get_device_count")(reg)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_reg_dev_get(reg: wsp_ggml_backend_reg_t, index: usize) -> wsp_ggml_backend_dev_t {
    const FN: &str = "wsp_ggml_backend_reg_dev_get";
    required(arg!(reg).iface.get_device, FN, "get_device")(reg, index)
}

/// NULL when the reg has no custom functions or does not know `name`.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_reg_get_proc_address(reg: wsp_ggml_backend_reg_t, name: *const c_char) -> *mut c_void {
    const FN: &str = "wsp_ggml_backend_reg_get_proc_address";
    match arg!(reg).iface.get_proc_address {
        Some(get) if !name.is_null() => get(reg, name),
        _ => std::ptr::null_mut(),
    }
}
