//! Exports: buffer types.

use super::{arg, named, ToC};
use crate::abi::*;
use core::ffi::c_char;

/// # Safety
/// `buft` is NULL or a live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_name(buft: ggml_backend_buffer_type_t) -> *const c_char {
    arg!(buft).name(FN)
}

/// Zero bytes give a dummy buffer without asking the backend; NULL buft gives NULL.
///
/// # Safety
/// `buft` is NULL or a live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_alloc_buffer(
    buft: ggml_backend_buffer_type_t,
    size: usize,
) -> ggml_backend_buffer_t {
    crate::buffer::alloc_buffer(FN, arg!(buft), size).to_c()
}

/// # Safety
/// `buft` is NULL or a live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_get_alignment(buft: ggml_backend_buffer_type_t) -> usize {
    arg!(buft).alignment(FN)
}

/// # Safety
/// `buft` is NULL or a live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_get_max_size(buft: ggml_backend_buffer_type_t) -> usize {
    arg!(buft).max_size()
}

/// # Safety
/// `buft` is NULL or a live buffer type; `tensor` is NULL or a live tensor.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_get_alloc_size(
    buft: ggml_backend_buffer_type_t,
    tensor: *const ggml_tensor,
) -> usize {
    arg!(buft).alloc_size(arg!(tensor))
}

/// # Safety
/// `buft` is NULL or a live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_is_host(buft: ggml_backend_buffer_type_t) -> bool {
    arg!(buft).is_host()
}

/// # Safety
/// `buft` is NULL or a live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_get_device(buft: ggml_backend_buffer_type_t) -> ggml_backend_dev_t {
    arg!(buft).device().to_c()
}

/// Whether a buffer type may give the output of `op` more than its bytes.
#[cfg(op_alloc_size_may_expand)]
#[no_mangle]
#[named]
pub extern "C" fn ggml_op_alloc_size_may_expand(op: ggml_op) -> bool {
    crate::handle::alloc_size_may_expand(op)
}
