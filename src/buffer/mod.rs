//! Buffers: their life cycle, the placeholder for zero-byte allocations, and multi-buffers;
//! the CPU buffer types (`cpu`), tensor data access (`tensor_io`), and placing tensors and whole
//! graphs in buffers (`graph_copy`).
//!
//! A buffer object is made here ([`new_buffer`]) and released here ([`free_buffer`]), whoever
//! implements its interface, as the reference's `new`/`delete` pair.

pub mod cpu;
pub mod graph_copy;
pub mod tensor_io;

use crate::abi::*;
use crate::base::fallible::{try_box, OutOfMemory};
use crate::base::report::{ensure, log_error, refused, Refused};
use crate::handle::{Buffer, BufferType, Tensor};
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ffi::c_void;
use wsp_ggml_backend_macros::callback;

/// A new buffer object, released by [`free_buffer`].
pub fn new_buffer(
    buft: Option<BufferType>,
    iface: ggml_backend_buffer_i,
    context: *mut c_void,
    size: usize,
) -> Result<Buffer, OutOfMemory> {
    let buffer = Buffer::new(buft, iface, context, size)?;
    if let Err(OutOfMemory) = live_buffers::created(buffer) {
        // SAFETY: made above and not handed out; its interface's free_buffer is not called (the
        // caller keeps what it gave).
        unsafe { buffer.forget() };
        return Err(OutOfMemory);
    }
    Ok(buffer)
}

/// Allocates every tensor of `ctx` in one new buffer of `buft` (ggml-alloc); None when that
/// fails or the tensors need no memory (0.6, 0.7: the meta buffer's parts).
#[cfg(meta)]
pub fn alloc_ctx_tensors(ctx: crate::handle::Context, buft: BufferType) -> Option<Buffer> {
    // SAFETY: a live context and buffer type; ggml-alloc returns NULL or a new live buffer.
    unsafe {
        Buffer::from_raw(crate::base::ggml::ggml_backend_alloc_ctx_tensors_from_buft(ctx.as_ptr(), buft.as_ptr()))
    }
}

/// Releases a buffer (and, for a multi-buffer, its parts).
///
/// # Safety
/// `buffer` is not used afterwards.
pub unsafe fn free_buffer(buffer: Buffer) {
    live_buffers::freeing(buffer);
    // SAFETY: every buffer comes from new_buffer, and the caller gives this one up.
    unsafe { buffer.destroy() }
}

/// The buffers alive, so that freeing one twice (undefined behaviour in C: whisper.cpp does it
/// when memory runs out as it makes a KV cache again) is refused with a message instead of
/// corrupting the heap.
mod live_buffers {
    use crate::abi::PREFIX;
    use crate::base::fallible::{OutOfMemory, SortedMap};
    use crate::base::sync::StaticMutex;
    use crate::handle::Buffer;

    static LIVE: StaticMutex<SortedMap<usize, ()>> = StaticMutex::new(SortedMap::new());

    pub fn created(buffer: Buffer) -> Result<(), OutOfMemory> {
        LIVE.lock().try_insert(buffer.as_ptr() as usize, ())
    }

    pub fn freeing(buffer: Buffer) {
        if LIVE.lock().remove(&(buffer.as_ptr() as usize)).is_none() {
            crate::base::report::fatal!(
                "{PREFIX}ggml_backend_buffer_free: buffer {:p} was already freed (or never created)",
                buffer.as_ptr()
            );
        }
    }
}

/// A buffer of `size` bytes of `buft`. Zero bytes give a placeholder without asking the
/// backend: no memory, no interface.
pub fn alloc_buffer(caller: &str, buft: BufferType, size: usize) -> Option<Buffer> {
    if size == 0 {
        let placeholder = new_buffer(Some(buft), ggml_backend_buffer_i::NONE, core::ptr::null_mut(), 0);
        return placeholder.map_err(|OutOfMemory| log_error!("{caller}: out of memory for a buffer\n")).ok();
    }
    buft.alloc_buffer(caller, size)
}

/// The base address: NULL for a zero-sized buffer, and (unlike 0.4's reference, which crashes)
/// for a buffer without a single base address such as a multi-buffer. 0.5 returns NULL there
/// too, quietly: its callers ask multi-buffers as a matter of course. A buffer whose `get_base`
/// gives NULL is refused (the reference asserts).
pub fn base(caller: &str, buffer: Buffer) -> Result<*mut c_void, Refused> {
    if buffer.size() == 0 && !is_meta(caller, buffer) {
        return Ok(core::ptr::null_mut());
    }
    let Some(base) = buffer.base() else {
        if !cfg!(quiet_multi_buffer_base) {
            log_error!("{caller}: buffer has no single base address (get_base not implemented)\n");
        }
        return Ok(core::ptr::null_mut());
    };
    if base.is_null() {
        return refused!("{caller}: backend buffer base cannot be NULL");
    }
    Ok(base)
}

/// Whether `buffer` belongs to a meta device (0.7): it reports its (placeholder) base even when
/// empty, and ggml-alloc's bounds do not apply to it (its tensors live in per-device slices).
/// Asked of the buffer's device, so that this layer stays below the meta backend's.
pub fn is_meta(caller: &str, buffer: Buffer) -> bool {
    #[cfg(meta)]
    return buffer.buft().and_then(BufferType::device).is_some_and(|device| {
        device.device_type(caller) == crate::abi::ggml_backend_dev_type::GGML_BACKEND_DEVICE_TYPE_META
    });
    #[cfg(not(meta))]
    return {
        let _ = (caller, buffer);
        false
    };
}

/// Fills the buffer with `value` (nothing to do for a zero-sized one).
pub fn clear(caller: &str, buffer: Buffer, value: u8) {
    if buffer.size() != 0 {
        buffer.clear(caller, value);
    }
}

/// Sets the usage of a buffer and, for a multi-buffer, of every part.
pub fn set_usage(buffer: Buffer, usage: ggml_backend_buffer_usage) {
    buffer.set_usage(usage);
    for &part in multi_buffer_parts(buffer) {
        set_usage(part, usage);
    }
}

/// Asks the destination's buffer to copy `src` in; false when it cannot.
///
/// # Safety
/// Both tensors are allocated and have the same layout.
pub unsafe fn copy_tensor(caller: &str, src: Tensor, dst: Tensor) -> Result<bool, Refused> {
    let Some(dst_buffer) = dst.storage_buffer() else {
        return refused!("{caller}: dst->buffer is NULL");
    };
    // SAFETY: the caller's promise.
    Ok(unsafe { dst_buffer.cpy_tensor(src, dst) })
}

// ---------------------------------------------------------------------------------------------
// multi-buffer: one buffer object that owns several buffers of the same type
// ---------------------------------------------------------------------------------------------

#[callback(ggml_backend_buffer_free)]
unsafe extern "C" fn multi_buffer_free(buffer: ggml_backend_buffer_t) {
    // SAFETY: called by Buffer::destroy with a live multi-buffer.
    let Some(buffer) = (unsafe { Buffer::from_raw(buffer) }) else { return };
    // SAFETY: a multi-buffer's context is the parts vector that multi_buffer_alloc boxed;
    // released once, here.
    let parts = unsafe { Box::from_raw(buffer.context() as *mut Vec<Buffer>) };
    for &part in parts.iter() {
        // SAFETY: the multi-buffer owned its parts, and is going away.
        unsafe { free_buffer(part) };
    }
}

#[callback(ggml_backend_buffer_clear)]
unsafe extern "C" fn multi_buffer_clear(buffer: ggml_backend_buffer_t, value: u8) {
    // SAFETY: called through the interface of a live multi-buffer.
    if let Some(buffer) = unsafe { Buffer::from_raw(buffer) } {
        for &part in multi_buffer_parts(buffer) {
            clear(symbol!("ggml_backend_buffer_clear"), part, value);
        }
    }
}

const MULTI_BUFFER_IFACE: ggml_backend_buffer_i = ggml_backend_buffer_i {
    free_buffer: Some(multi_buffer_free),
    clear: Some(multi_buffer_clear),
    ..ggml_backend_buffer_i::NONE
};

/// One buffer that owns `parts` (at least one); its size is theirs added up. Without memory
/// for it, the parts are freed (they were given up) and the refusal says so.
pub fn multi_buffer_alloc(caller: &str, parts: Vec<Buffer>) -> Result<Buffer, Refused> {
    let size = parts.iter().map(|part| part.size()).sum();
    let buft = parts[0].buft();
    let Ok(context) = try_box(parts) else {
        return refused!("{caller}: out of memory for a multi-buffer");
    };
    let context = Box::into_raw(context);
    new_buffer(buft, MULTI_BUFFER_IFACE, context as *mut c_void, size).or_else(|OutOfMemory| {
        // SAFETY: the context boxed above, not handed out; its parts were given up to it.
        for part in *unsafe { Box::from_raw(context) } {
            // SAFETY: the caller gave the part up.
            unsafe { free_buffer(part) };
        }
        refused!("{caller}: out of memory for a multi-buffer")
    })
}

pub fn is_multi_buffer(buffer: Buffer) -> bool {
    buffer.is_freed_by(multi_buffer_free)
}

/// The parts of a multi-buffer; none for any other buffer.
fn multi_buffer_parts<'a>(buffer: Buffer) -> &'a [Buffer] {
    if is_multi_buffer(buffer) {
        // SAFETY: a multi-buffer's context is its parts vector, alive as long as the buffer.
        unsafe { &*(buffer.context() as *const Vec<Buffer>) }
    } else {
        &[]
    }
}

/// Sets the usage of every part of a multi-buffer.
pub fn multi_buffer_set_usage(caller: &str, buffer: Buffer, usage: ggml_backend_buffer_usage) {
    ensure!(is_multi_buffer(buffer), "{caller}: buffer is not a multi-buffer");
    for &part in multi_buffer_parts(buffer) {
        set_usage(part, usage);
    }
}
