//! Backend buffers and multi-buffers.
//!
//! A buffer object is allocated here (`buffer_init`) and freed here (`buffer_free`), whoever
//! implements its interface, exactly as the reference's `new`/`delete` pair.

use crate::abi::*;
use crate::buffer_type::buft_is_host;
use crate::ffi::arg;
use crate::ggml::{deref, ensure, log_error, required};
use std::ffi::{c_char, c_void};

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_init(
    buft: wsp_ggml_backend_buffer_type_t,
    iface: wsp_ggml_backend_buffer_i,
    context: *mut c_void,
    size: usize,
) -> wsp_ggml_backend_buffer_t {
    new_buffer(buft, iface, context, size)
}

/// Allocates a buffer object; it is released by `wsp_ggml_backend_buffer_free`.
pub fn new_buffer(
    buft: wsp_ggml_backend_buffer_type_t,
    iface: wsp_ggml_backend_buffer_i,
    context: *mut c_void,
    size: usize,
) -> wsp_ggml_backend_buffer_t {
    let buffer = Box::into_raw(Box::new(wsp_ggml_backend_buffer {
        iface,
        buft,
        context,
        size,
        usage: wsp_ggml_backend_buffer_usage::WSP_GGML_BACKEND_BUFFER_USAGE_ANY,
    }));
    live_buffers::created(buffer);
    buffer
}

/// Debug builds remember which buffers are alive, so that freeing one twice (undefined
/// behaviour in C) is reported instead of corrupting the heap. Release builds keep nothing.
#[cfg(debug_assertions)]
mod live_buffers {
    use super::wsp_ggml_backend_buffer_t;
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};

    fn live() -> std::sync::MutexGuard<'static, HashSet<usize>> {
        static LIVE: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
        LIVE.get_or_init(Default::default).lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn created(buffer: wsp_ggml_backend_buffer_t) {
        live().insert(buffer as usize);
    }

    pub fn freeing(buffer: wsp_ggml_backend_buffer_t) {
        if !live().remove(&(buffer as usize)) {
            crate::ggml::fatal!("wsp_ggml_backend_buffer_free: buffer {buffer:p} was already freed (or never created)");
        }
    }
}

#[cfg(not(debug_assertions))]
mod live_buffers {
    use super::wsp_ggml_backend_buffer_t;
    #[inline(always)]
    pub fn created(_: wsp_ggml_backend_buffer_t) {}
    #[inline(always)]
    pub fn freeing(_: wsp_ggml_backend_buffer_t) {}
}

/// The placeholder buffer for zero-byte allocations: no memory, no interface.
pub fn zero_sized_buffer(buft: wsp_ggml_backend_buffer_type_t) -> wsp_ggml_backend_buffer_t {
    new_buffer(buft, EMPTY_BUFFER_IFACE, std::ptr::null_mut(), 0)
}

const EMPTY_BUFFER_IFACE: wsp_ggml_backend_buffer_i = wsp_ggml_backend_buffer_i {
    free_buffer: None,
    get_base: None,
    init_tensor: None,
    memset_tensor: None,
    set_tensor: None,
    get_tensor: None,
    cpy_tensor: None,
    clear: None,
    reset: None,
};

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_name(buffer: wsp_ggml_backend_buffer_t) -> *const c_char {
    const FN: &str = "wsp_ggml_backend_buffer_name";
    let buft = arg!(buffer).buft;
    crate::buffer_type::wsp_ggml_backend_buft_name(buft)
}

/// NULL is ignored, as `free(NULL)` is.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_free(buffer: wsp_ggml_backend_buffer_t) {
    if buffer.is_null() {
        return;
    }
    live_buffers::freeing(buffer);
    if let Some(free_buffer) = (*buffer).iface.free_buffer {
        free_buffer(buffer);
    }
    drop(Box::from_raw(buffer));
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_get_size(buffer: wsp_ggml_backend_buffer_t) -> usize {
    const FN: &str = "wsp_ggml_backend_buffer_get_size";
    arg!(buffer).size
}

/// NULL for a zero-sized buffer, and (unlike the reference, which crashes) for a buffer
/// without a single base address such as a multi-buffer.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_get_base(buffer: wsp_ggml_backend_buffer_t) -> *mut c_void {
    const FN: &str = "wsp_ggml_backend_buffer_get_base";
    let buffer_ref = arg!(buffer);
    if buffer_ref.size == 0 {
        return std::ptr::null_mut();
    }
    let Some(get_base) = buffer_ref.iface.get_base else {
        log_error!("{FN}: buffer has no single base address (get_base not implemented)\n");
        return std::ptr::null_mut();
    };
    let base = get_base(buffer);
    ensure!(!base.is_null(), "{FN}: backend buffer base cannot be NULL");
    base
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_init_tensor(buffer: wsp_ggml_backend_buffer_t, tensor: *mut wsp_ggml_tensor) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_buffer_init_tensor";
    init_tensor(arg!(buffer), buffer, tensor)
}

/// `init_tensor` is optional.
///
/// # Safety
/// `buffer_ref` is the object behind `buffer`; `tensor` is a live tensor.
pub unsafe fn init_tensor(
    buffer_ref: &wsp_ggml_backend_buffer,
    buffer: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
) -> wsp_ggml_status {
    match buffer_ref.iface.init_tensor {
        Some(init) => init(buffer, tensor),
        None => wsp_ggml_status::WSP_GGML_STATUS_SUCCESS,
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_clear(buffer: wsp_ggml_backend_buffer_t, value: u8) {
    const FN: &str = "wsp_ggml_backend_buffer_clear";
    let buffer_ref = arg!(buffer);
    if buffer_ref.size == 0 {
        return;
    }
    required(buffer_ref.iface.clear, FN, "clear")(buffer, value)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_get_alignment(buffer: wsp_ggml_backend_buffer_t) -> usize {
    const FN: &str = "wsp_ggml_backend_buffer_get_alignment";
    crate::buffer_type::wsp_ggml_backend_buft_get_alignment(arg!(buffer).buft)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_get_max_size(buffer: wsp_ggml_backend_buffer_t) -> usize {
    const FN: &str = "wsp_ggml_backend_buffer_get_max_size";
    crate::buffer_type::wsp_ggml_backend_buft_get_max_size(arg!(buffer).buft)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_get_alloc_size(buffer: wsp_ggml_backend_buffer_t, tensor: *const wsp_ggml_tensor) -> usize {
    const FN: &str = "wsp_ggml_backend_buffer_get_alloc_size";
    crate::buffer_type::wsp_ggml_backend_buft_get_alloc_size(arg!(buffer).buft, tensor)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_is_host(buffer: wsp_ggml_backend_buffer_t) -> bool {
    const FN: &str = "wsp_ggml_backend_buffer_is_host";
    buffer_is_host(arg!(buffer), FN)
}

/// # Safety
/// The buffer's type must be live.
pub unsafe fn buffer_is_host(buffer_ref: &wsp_ggml_backend_buffer, func: &str) -> bool {
    buft_is_host(deref(buffer_ref.buft, func, "buffer->buft"), buffer_ref.buft)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_set_usage(buffer: wsp_ggml_backend_buffer_t, usage: wsp_ggml_backend_buffer_usage) {
    const FN: &str = "wsp_ggml_backend_buffer_set_usage";
    arg!(buffer);
    set_usage(buffer, usage);
}

/// Sets the usage of a buffer and, for a multi-buffer, of every part.
///
/// # Safety
/// `buffer` must be a live buffer.
unsafe fn set_usage(buffer: wsp_ggml_backend_buffer_t, usage: wsp_ggml_backend_buffer_usage) {
    (*buffer).usage = usage;
    if let Some(parts) = multi_buffer_parts(&*buffer) {
        for &part in parts {
            set_usage(part, usage);
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_get_usage(buffer: wsp_ggml_backend_buffer_t) -> wsp_ggml_backend_buffer_usage {
    const FN: &str = "wsp_ggml_backend_buffer_get_usage";
    arg!(buffer).usage
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_get_type(buffer: wsp_ggml_backend_buffer_t) -> wsp_ggml_backend_buffer_type_t {
    const FN: &str = "wsp_ggml_backend_buffer_get_type";
    arg!(buffer).buft
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_reset(buffer: wsp_ggml_backend_buffer_t) {
    const FN: &str = "wsp_ggml_backend_buffer_reset";
    if let Some(reset) = arg!(buffer).iface.reset {
        reset(buffer);
    }
}

/// Asks the destination's buffer to copy `src` in (false when it cannot).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_copy_tensor(src: *const wsp_ggml_tensor, dst: *mut wsp_ggml_tensor) -> bool {
    const FN: &str = "wsp_ggml_backend_buffer_copy_tensor";
    arg!(src);
    let dst_buf = storage_buffer(arg!(dst));
    let dst_buf_ref = deref(dst_buf, FN, "dst->buffer");
    match dst_buf_ref.iface.cpy_tensor {
        Some(cpy_tensor) => cpy_tensor(dst_buf, src, dst),
        None => false,
    }
}

/// The buffer that holds a tensor's bytes: its view source's buffer for a view.
///
/// # Safety
/// `tensor.view_src` must be NULL or live.
#[inline]
pub unsafe fn storage_buffer(tensor: &wsp_ggml_tensor) -> wsp_ggml_backend_buffer_t {
    match tensor.view_src.as_ref() {
        Some(view_src) => view_src.buffer,
        None => tensor.buffer,
    }
}

// ---------------------------------------------------------------------------------------------
// multi-buffer: one buffer object that owns several buffers of the same type
// ---------------------------------------------------------------------------------------------

unsafe extern "C" fn multi_buffer_free(buffer: wsp_ggml_backend_buffer_t) {
    let parts = Box::from_raw((*buffer).context as *mut Vec<wsp_ggml_backend_buffer_t>);
    for &part in parts.iter() {
        wsp_ggml_backend_buffer_free(part);
    }
}

unsafe extern "C" fn multi_buffer_clear(buffer: wsp_ggml_backend_buffer_t, value: u8) {
    for &part in multi_buffer_parts(&*buffer).unwrap_or_default() {
        wsp_ggml_backend_buffer_clear(part, value);
    }
}

const MULTI_BUFFER_IFACE: wsp_ggml_backend_buffer_i = wsp_ggml_backend_buffer_i {
    free_buffer: Some(multi_buffer_free),
    clear: Some(multi_buffer_clear),
    ..EMPTY_BUFFER_IFACE
};

/// The parts of a multi-buffer, or None for any other buffer.
///
/// # Safety
/// A multi-buffer's context must be the parts vector this module put there.
unsafe fn multi_buffer_parts(buffer: &wsp_ggml_backend_buffer) -> Option<&[wsp_ggml_backend_buffer_t]> {
    if is_multi_buffer(buffer) {
        Some(&*(buffer.context as *const Vec<wsp_ggml_backend_buffer_t>))
    } else {
        None
    }
}

fn is_multi_buffer(buffer: &wsp_ggml_backend_buffer) -> bool {
    matches!(buffer.iface.free_buffer, Some(f) if std::ptr::fn_addr_eq(f, multi_buffer_free as unsafe extern "C" fn(_)))
}

/// Takes ownership of `buffers[0..n_buffers]`; NULL (with a log line) for no buffers.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_multi_buffer_alloc_buffer(buffers: *mut wsp_ggml_backend_buffer_t, n_buffers: usize) -> wsp_ggml_backend_buffer_t {
    const FN: &str = "wsp_ggml_backend_multi_buffer_alloc_buffer";
    if buffers.is_null() || n_buffers == 0 {
        log_error!("{FN}: no buffers given\n");
        return std::ptr::null_mut();
    }
    let parts = std::slice::from_raw_parts(buffers, n_buffers).to_vec();
    let mut total_size = 0usize;
    for (i, &part) in parts.iter().enumerate() {
        ensure!(!part.is_null(), "{FN}: buffers[{i}] is NULL");
        total_size += (*part).size;
    }
    let buft = (*parts[0]).buft;
    new_buffer(buft, MULTI_BUFFER_IFACE, Box::into_raw(Box::new(parts)) as *mut c_void, total_size)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_buffer_is_multi_buffer(buffer: wsp_ggml_backend_buffer_t) -> bool {
    const FN: &str = "wsp_ggml_backend_buffer_is_multi_buffer";
    is_multi_buffer(arg!(buffer))
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_multi_buffer_set_usage(buffer: wsp_ggml_backend_buffer_t, usage: wsp_ggml_backend_buffer_usage) {
    const FN: &str = "wsp_ggml_backend_multi_buffer_set_usage";
    ensure!(is_multi_buffer(arg!(buffer)), "{FN}: buffer is not a multi-buffer");
    for &part in multi_buffer_parts(&*buffer).unwrap_or_default() {
        set_usage(part, usage);
    }
}
