//! The CPU buffer types, which live in the backend layer so that every backend can use host
//! memory: "CPU" (memory from `ggml_aligned_malloc`, owned by the buffer) and "CPU_Mapped"
//! (memory owned by the caller, wrapped by `ggml_backend_cpu_buffer_from_ptr`).

use crate::abi::*;
use crate::base::fallible::OutOfMemory;
use crate::base::ggml::{ggml_aligned_free, ggml_aligned_malloc};
use crate::base::report::log_error;
use crate::buffer::new_buffer;
use crate::handle::{arg, Buffer, BufferType, StaticBufferType, Tensor};
use core::ffi::{c_char, c_void};
use wsp_ggml_backend_macros::callback;

/// ggml's TENSOR_ALIGNMENT: gguf only guarantees 32-byte alignment for mapped files.
pub const TENSOR_ALIGNMENT: usize = 32;

const fn cpu_buffer_type(
    get_name: unsafe extern "C" fn(ggml_backend_buffer_type_t) -> *const c_char,
) -> StaticBufferType {
    StaticBufferType::new(ggml_backend_buffer_type_i {
        get_name: Some(get_name),
        alloc_buffer: Some(cpu_buft_alloc_buffer),
        get_alignment: Some(cpu_buft_get_alignment),
        get_max_size: None,
        get_alloc_size: None,
        is_host: Some(cpu_buft_is_host),
    })
}

static CPU_BUFFER_TYPE: StaticBufferType = cpu_buffer_type(cpu_buft_name);
static CPU_MAPPED_BUFFER_TYPE: StaticBufferType = cpu_buffer_type(cpu_mapped_buft_name);

/// The "CPU" buffer type.
pub fn cpu_buffer_type_handle() -> BufferType {
    CPU_BUFFER_TYPE.handle()
}

/// Wraps `size` bytes of caller-owned memory at `ptr` in a "CPU_Mapped" buffer. None, with a
/// log line, for a pointer that is not TENSOR_ALIGNMENT-aligned (the reference asserts).
pub fn buffer_from_ptr(caller: &str, ptr: *mut c_void, size: usize) -> Option<Buffer> {
    if ptr.is_null() && size != 0 {
        log_error!("{caller}: ptr is NULL\n");
        return None;
    }
    if (ptr as usize) % TENSOR_ALIGNMENT != 0 {
        log_error!("{caller}: buffer pointer must be aligned to {TENSOR_ALIGNMENT} bytes\n");
        return None;
    }
    let buffer = new_buffer(Some(CPU_MAPPED_BUFFER_TYPE.handle()), CPU_BORROWED_BUFFER_IFACE, ptr, size);
    buffer.map_err(|OutOfMemory| log_error!("{caller}: out of memory for a buffer\n")).ok()
}

#[callback(ggml_backend_buft_name)]
unsafe extern "C" fn cpu_buft_name(_: ggml_backend_buffer_type_t) -> *const c_char {
    c"CPU".as_ptr()
}

#[callback(ggml_backend_buft_name)]
unsafe extern "C" fn cpu_mapped_buft_name(_: ggml_backend_buffer_type_t) -> *const c_char {
    c"CPU_Mapped".as_ptr()
}

#[callback(ggml_backend_buft_alloc_buffer)]
unsafe extern "C" fn cpu_buft_alloc_buffer(buft: ggml_backend_buffer_type_t, size: usize) -> ggml_backend_buffer_t {
    // SAFETY: ggml's allocator, for any size.
    let data = unsafe { ggml_aligned_malloc(size) };
    if data.is_null() {
        log_error!("{PREFIX}ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size {size}\n");
        return core::ptr::null_mut();
    }
    // SAFETY: called through the interface of a live buffer type.
    let buft = unsafe { BufferType::from_raw(buft) };
    match new_buffer(buft, CPU_OWNED_BUFFER_IFACE, data, size) {
        Ok(buffer) => buffer.as_ptr(),
        Err(OutOfMemory) => {
            // SAFETY: allocated above with this size, not handed out.
            unsafe { ggml_aligned_free(data, size) };
            log_error!("{PREFIX}ggml_backend_cpu_buffer_type_alloc_buffer: out of memory for a buffer\n");
            core::ptr::null_mut()
        }
    }
}

#[callback(ggml_backend_buft_get_alignment)]
unsafe extern "C" fn cpu_buft_get_alignment(_: ggml_backend_buffer_type_t) -> usize {
    TENSOR_ALIGNMENT
}

#[callback(ggml_backend_buft_is_host)]
unsafe extern "C" fn cpu_buft_is_host(_: ggml_backend_buffer_type_t) -> bool {
    true
}

// ---------------------------------------------------------------------------------------------
// CPU buffers: the context is the start of the memory. The entries are called by the backend
// layer (or by ggml) with a live buffer of these types and, for tensor access, a range inside an
// allocated tensor of that buffer, checked by the caller. `FN` names the export that leads here.
// ---------------------------------------------------------------------------------------------

/// The address of byte `offset` of an allocated tensor's data.
fn tensor_bytes(tensor: Tensor, offset: usize) -> *mut u8 {
    tensor.data().cast::<u8>().wrapping_add(offset)
}

#[callback(ggml_backend_buffer_get_base)]
unsafe extern "C" fn cpu_buffer_get_base(buffer: ggml_backend_buffer_t) -> *mut c_void {
    let data = arg!(buffer).context() as usize;
    data.next_multiple_of(TENSOR_ALIGNMENT) as *mut c_void
}

#[callback(ggml_backend_buffer_free)]
unsafe extern "C" fn cpu_buffer_free(buffer: ggml_backend_buffer_t) {
    let buffer = arg!(buffer);
    // SAFETY: the memory came from ggml_aligned_malloc with this size, and is freed once.
    unsafe { ggml_aligned_free(buffer.context(), buffer.size()) }
}

#[callback(ggml_backend_tensor_memset)]
unsafe extern "C" fn cpu_buffer_memset_tensor(
    _: ggml_backend_buffer_t,
    tensor: *mut ggml_tensor,
    value: u8,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the backend layer checked that the range lies inside the allocated tensor, whose
    // bytes are host memory of this buffer.
    unsafe { core::ptr::write_bytes(tensor_bytes(tensor, offset), value, size) }
}

#[callback(ggml_backend_tensor_set)]
unsafe extern "C" fn cpu_buffer_set_tensor(
    _: ggml_backend_buffer_t,
    tensor: *mut ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the range lies inside the allocated host tensor (checked by the backend layer);
    // `data` holds `size` bytes (the API's contract).
    unsafe { core::ptr::copy_nonoverlapping(data as *const u8, tensor_bytes(tensor, offset), size) }
}

#[callback(ggml_backend_tensor_get)]
unsafe extern "C" fn cpu_buffer_get_tensor(
    _: ggml_backend_buffer_t,
    tensor: *const ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the range lies inside the allocated host tensor (checked by the backend layer);
    // `data` has room for `size` bytes (the API's contract).
    unsafe { core::ptr::copy_nonoverlapping(tensor_bytes(tensor, offset), data as *mut u8, size) }
}

#[callback(ggml_backend_tensor_copy)]
unsafe extern "C" fn cpu_buffer_cpy_tensor(
    _: ggml_backend_buffer_t,
    src: *const ggml_tensor,
    dst: *mut ggml_tensor,
) -> bool {
    let (src, dst) = (arg!(src), arg!(dst));
    if !src.buffer().and_then(|b| b.buft()).is_some_and(|t| t.is_host()) {
        return false;
    }
    // memmove: a tensor may be copied onto an overlapping view of itself.
    // SAFETY: both are allocated host tensors of src.nbytes() bytes (the API's contract).
    unsafe { core::ptr::copy(tensor_bytes(src, 0), tensor_bytes(dst, 0), src.nbytes()) };
    true
}

#[callback(ggml_backend_buffer_clear)]
unsafe extern "C" fn cpu_buffer_clear(buffer: ggml_backend_buffer_t, value: u8) {
    let buffer = arg!(buffer);
    // SAFETY: the buffer's memory is `size` bytes from its context.
    unsafe { core::ptr::write_bytes(buffer.context() as *mut u8, value, buffer.size()) }
}

/// Memory the buffer owns (freed with it).
const CPU_OWNED_BUFFER_IFACE: ggml_backend_buffer_i = ggml_backend_buffer_i {
    free_buffer: Some(cpu_buffer_free),
    get_base: Some(cpu_buffer_get_base),
    memset_tensor: Some(cpu_buffer_memset_tensor),
    set_tensor: Some(cpu_buffer_set_tensor),
    get_tensor: Some(cpu_buffer_get_tensor),
    cpy_tensor: Some(cpu_buffer_cpy_tensor),
    clear: Some(cpu_buffer_clear),
    ..ggml_backend_buffer_i::NONE
};

/// Memory the caller owns (left alone when the buffer is freed).
const CPU_BORROWED_BUFFER_IFACE: ggml_backend_buffer_i =
    ggml_backend_buffer_i { free_buffer: None, ..CPU_OWNED_BUFFER_IFACE };
