//! Backend buffer types: thin dispatch through `wsp_ggml_backend_buffer_type_i`, with the
//! defaults the interface documents for its optional entries.

use crate::abi::*;
use crate::buffer::zero_sized_buffer;
use crate::ffi::arg;
use crate::ggml::{log_error, required, wsp_ggml_nbytes};
use std::ffi::c_char;

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buft_name(buft: wsp_ggml_backend_buffer_type_t) -> *const c_char {
    const FN: &str = "wsp_ggml_backend_buft_name";
    required(arg!(buft).iface.get_name, FN, "get_name")(buft)
}

/// Zero bytes give a dummy buffer without asking the backend; NULL buft gives NULL.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buft_alloc_buffer(buft: wsp_ggml_backend_buffer_type_t, size: usize) -> wsp_ggml_backend_buffer_t {
    const FN: &str = "wsp_ggml_backend_buft_alloc_buffer";
    let Some(buft_ref) = buft.as_ref() else {
        log_error!("{FN}: buft is NULL\n");
        return std::ptr::null_mut();
    };
    if size == 0 {
        return zero_sized_buffer(buft);
    }
    required(buft_ref.iface.alloc_buffer, FN, "alloc_buffer")(buft, size)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buft_get_alignment(buft: wsp_ggml_backend_buffer_type_t) -> usize {
    const FN: &str = "wsp_ggml_backend_buft_get_alignment";
    required(arg!(buft).iface.get_alignment, FN, "get_alignment")(buft)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buft_get_max_size(buft: wsp_ggml_backend_buffer_type_t) -> usize {
    const FN: &str = "wsp_ggml_backend_buft_get_max_size";
    match arg!(buft).iface.get_max_size {
        Some(get_max_size) => get_max_size(buft),
        None => usize::MAX,
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buft_get_alloc_size(buft: wsp_ggml_backend_buffer_type_t, tensor: *const wsp_ggml_tensor) -> usize {
    const FN: &str = "wsp_ggml_backend_buft_get_alloc_size";
    let buft_ref = arg!(buft);
    arg!(tensor);
    match buft_ref.iface.get_alloc_size {
        Some(get_alloc_size) => {
            let size = get_alloc_size(buft, tensor);
            debug_assert!(size >= wsp_ggml_nbytes(tensor));
            size
        }
        None => wsp_ggml_nbytes(tensor),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buft_is_host(buft: wsp_ggml_backend_buffer_type_t) -> bool {
    const FN: &str = "wsp_ggml_backend_buft_is_host";
    buft_is_host(arg!(buft), buft)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buft_get_device(buft: wsp_ggml_backend_buffer_type_t) -> wsp_ggml_backend_dev_t {
    const FN: &str = "wsp_ggml_backend_buft_get_device";
    arg!(buft).device
}

/// `is_host` is optional and defaults to false.
///
/// # Safety
/// `buft_ref` must be the object behind `buft`.
pub unsafe fn buft_is_host(buft_ref: &wsp_ggml_backend_buffer_type, buft: wsp_ggml_backend_buffer_type_t) -> bool {
    match buft_ref.iface.is_host {
        Some(is_host) => is_host(buft),
        None => false,
    }
}
