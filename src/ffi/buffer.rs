//! Exports: buffers, multi-buffers and the CPU buffer types.

use super::{arg, named, ToC};
use crate::abi::*;
use crate::base::fallible::OutOfMemory;
use crate::base::report::{checked, refuse};
use crate::buffer;
use core::ffi::{c_char, c_void};

/// A new buffer object over `context`, with the interface `iface`; backends call it from their
/// `alloc_buffer`. It is released by `ggml_backend_buffer_free`.
///
/// # Safety
/// `buft` is NULL or a live buffer type; `iface` and `context` are the backend's.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_init(
    buft: ggml_backend_buffer_type_t,
    iface: ggml_backend_buffer_i,
    context: *mut c_void,
    size: usize,
) -> ggml_backend_buffer_t {
    match buffer::new_buffer(arg!(buft, optional), iface, context, size) {
        Ok(buffer) => buffer.as_ptr(),
        Err(OutOfMemory) => refuse!("{FN}: out of memory for a buffer"),
    }
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_name(buffer: ggml_backend_buffer_t) -> *const c_char {
    checked!(arg!(buffer).buft_checked(FN)).name(FN)
}

/// NULL is ignored, as `free(NULL)` is.
///
/// # Safety
/// `buffer` is NULL or a live buffer, not used afterwards.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_free(buffer: ggml_backend_buffer_t) {
    if let Some(buffer) = arg!(buffer, optional) {
        // SAFETY: the caller gives the buffer up.
        unsafe { buffer::free_buffer(buffer) }
    }
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_get_size(buffer: ggml_backend_buffer_t) -> usize {
    arg!(buffer).size()
}

/// NULL for a zero-sized buffer, and (unlike the reference, which crashes) for a buffer
/// without a single base address such as a multi-buffer.
///
/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_get_base(buffer: ggml_backend_buffer_t) -> *mut c_void {
    checked!(buffer::base(FN, arg!(buffer)))
}

/// # Safety
/// `buffer` is NULL or a live buffer; `tensor` is a live tensor placed in it.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_init_tensor(
    buffer: ggml_backend_buffer_t,
    tensor: *mut ggml_tensor,
) -> ggml_status {
    arg!(buffer).init_tensor(arg!(tensor))
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_clear(buffer: ggml_backend_buffer_t, value: u8) {
    buffer::clear(FN, arg!(buffer), value)
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_get_alignment(buffer: ggml_backend_buffer_t) -> usize {
    checked!(arg!(buffer).buft_checked(FN)).alignment(FN)
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_get_max_size(buffer: ggml_backend_buffer_t) -> usize {
    checked!(arg!(buffer).buft_checked(FN)).max_size()
}

/// # Safety
/// `buffer` is NULL or a live buffer; `tensor` is NULL or a live tensor.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_get_alloc_size(
    buffer: ggml_backend_buffer_t,
    tensor: *const ggml_tensor,
) -> usize {
    checked!(arg!(buffer).buft_checked(FN)).alloc_size(arg!(tensor))
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_is_host(buffer: ggml_backend_buffer_t) -> bool {
    checked!(arg!(buffer).is_host(FN))
}

/// Sets the usage of the buffer and, for a multi-buffer, of its parts.
///
/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_set_usage(
    buffer: ggml_backend_buffer_t,
    usage: ggml_backend_buffer_usage,
) {
    let buffer = arg!(buffer);
    buffer::set_usage(buffer, usage);
    // From plain ggml 0.3.36 a meta buffer passes it on to its simple buffers.
    #[cfg(meta_set_usage)]
    if crate::meta::buffer::is_meta_buffer(buffer) {
        checked!(crate::meta::buffer::meta_buffer(FN, buffer)).set_usage(usage);
    }
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_get_usage(buffer: ggml_backend_buffer_t) -> ggml_backend_buffer_usage {
    arg!(buffer).usage()
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_get_type(buffer: ggml_backend_buffer_t) -> ggml_backend_buffer_type_t {
    arg!(buffer).buft().to_c()
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_reset(buffer: ggml_backend_buffer_t) {
    arg!(buffer).reset()
}

/// Asks the destination's buffer to copy `src` in (false when it cannot).
///
/// # Safety
/// `src` and `dst` are NULL or live, allocated tensors of the same layout.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_copy_tensor(src: *const ggml_tensor, dst: *mut ggml_tensor) -> bool {
    let (src, dst) = (arg!(src), arg!(dst));
    // SAFETY: the caller's promise.
    checked!(unsafe { buffer::copy_tensor(FN, src, dst) })
}

/// Takes ownership of `buffers[0..n_buffers]`; NULL (with a log line) for no buffers.
///
/// # Safety
/// `buffers` is NULL or holds `n_buffers` live buffers, which the multi-buffer then owns.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_multi_buffer_alloc_buffer(
    buffers: *mut ggml_backend_buffer_t,
    n_buffers: usize,
) -> ggml_backend_buffer_t {
    if buffers.is_null() || n_buffers == 0 {
        crate::base::report::log_error!("{FN}: no buffers given\n");
        return core::ptr::null_mut();
    }
    checked!(buffer::multi_buffer_alloc(FN, arg!(buffers[n_buffers]))).as_ptr()
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_is_multi_buffer(buffer: ggml_backend_buffer_t) -> bool {
    buffer::is_multi_buffer(arg!(buffer))
}

/// # Safety
/// `buffer` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_multi_buffer_set_usage(
    buffer: ggml_backend_buffer_t,
    usage: ggml_backend_buffer_usage,
) {
    buffer::multi_buffer_set_usage(FN, arg!(buffer), usage)
}

/// # Safety
/// None: no arguments.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_cpu_buffer_type() -> ggml_backend_buffer_type_t {
    Some(crate::buffer::cpu::cpu_buffer_type_handle()).to_c()
}

/// Wraps caller-owned memory. A pointer that is not TENSOR_ALIGNMENT-aligned gives NULL
/// and a log line (the reference asserts).
///
/// # Safety
/// `[ptr, ptr + size)` is memory that outlives the buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_cpu_buffer_from_ptr(ptr: *mut c_void, size: usize) -> ggml_backend_buffer_t {
    crate::buffer::cpu::buffer_from_ptr(FN, ptr, size).to_c()
}
