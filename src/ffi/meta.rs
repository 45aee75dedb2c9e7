//! Exports: the meta backend (whisper.rn 0.7).

use super::{arg, named, ToC};
use crate::abi::*;
use crate::base::report::{checked, refuse};
use crate::handle::Device;
use crate::meta::{self, backend, buffer, split};
use alloc::vec::Vec;
use core::ffi::{c_char, c_void};

/// The axis's name; NULL for a value the enum does not have (the reference aborts).
///
/// # Safety
/// None (any value is accepted).
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_meta_split_axis_name(split_axis: ggml_backend_meta_split_axis) -> *const c_char {
    match split::axis_name(split_axis) {
        Some(name) => name.as_ptr(),
        None => refuse!("{FN}: {split_axis} is not a split axis"),
    }
}

/// Sets the usage of a meta buffer's simple buffers; aborts for another buffer (as the
/// reference asserts; nothing to return).
///
/// # Safety
/// `buffer` is NULL or a live buffer.
#[cfg(meta_set_usage)]
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_meta_buffer_set_usage(
    buffer: ggml_backend_buffer_t,
    usage: ggml_backend_buffer_usage,
) {
    checked!(buffer::meta_buffer(FN, arg!(buffer))).set_usage(usage)
}

/// False for NULL.
///
/// # Safety
/// `backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_is_meta(backend: ggml_backend_t) -> bool {
    arg!(backend, optional).is_some_and(backend::is_meta_backend)
}

/// False for NULL.
///
/// # Safety
/// `buf` is NULL or a live buffer.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buffer_is_meta(buf: ggml_backend_buffer_t) -> bool {
    arg!(buf, optional).is_some_and(buffer::is_meta_buffer)
}

/// False for NULL.
///
/// # Safety
/// `buft` is NULL or a live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_buft_is_meta(buft: ggml_backend_buffer_type_t) -> bool {
    arg!(buft, optional).is_some_and(meta::is_meta_buffer_type)
}

/// The meta device over `devs[0..n_devs]` (the same one for the same arguments); NULL for
/// more than GGML_BACKEND_META_MAX_DEVICES devices, a NULL device, or no memory.
///
/// # Safety
/// `devs` points to `n_devs` live devices (or `n_devs` is 0).
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_meta_device(
    devs: *mut ggml_backend_dev_t,
    n_devs: usize,
    get_split_state: ggml_backend_meta_get_split_state_t,
    get_split_state_ud: *mut c_void,
) -> ggml_backend_dev_t {
    if n_devs > GGML_BACKEND_META_MAX_DEVICES {
        refuse!("{FN}: {n_devs} devices, at most {GGML_BACKEND_META_MAX_DEVICES}");
    }
    let simple: Vec<Device> = arg!(devs[n_devs]);
    let device = meta::device_new(FN, simple, get_split_state, get_split_state_ud);
    Some(checked!(device.map_err(|failure| failure.refusal(FN)))).to_c()
}

/// How many simple backends a meta backend drives; 0 for another backend.
///
/// # Safety
/// `meta_backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_meta_n_backends(meta_backend: ggml_backend_t) -> usize {
    checked!(backend::meta_backend(FN, arg!(meta_backend))).simple.len()
}

/// Simple backend `index` of a meta backend; NULL for another backend or an index out of range
/// (which the reference does not check).
///
/// # Safety
/// `meta_backend` is NULL or a live backend.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_meta_simple_backend(
    meta_backend: ggml_backend_t,
    index: usize,
) -> ggml_backend_t {
    let simple = &checked!(backend::meta_backend(FN, arg!(meta_backend))).simple;
    let Some(&backend) = simple.get(index) else {
        refuse!("{FN}: index {index} out of range, the meta backend has {} backends", simple.len())
    };
    Some(backend).to_c()
}

/// Allocates the tensors of `ctx` in a new meta buffer of `buft`; NULL, with the tensors left
/// unallocated, for a buffer type that is not a meta one (ggml-alloc only calls it for those),
/// a tensor whose split state cannot be had, a part that cannot be allocated, or no memory.
///
/// # Safety
/// `ctx` is NULL or a live ggml context whose tensors are not allocated; `buft` is NULL or a
/// live buffer type.
#[no_mangle]
#[named]
pub unsafe extern "C" fn ggml_backend_meta_alloc_ctx_tensors_from_buft(
    ctx: *mut ggml_context,
    buft: ggml_backend_buffer_type_t,
) -> ggml_backend_buffer_t {
    let buft = arg!(buft);
    let buffer = meta::alloc_ctx_tensors(FN, arg!(ctx), buft);
    Some(checked!(buffer.map_err(|failure| failure.refusal(FN)))).to_c()
}
