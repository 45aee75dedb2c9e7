//! The CPU buffer types, which live in the backend layer so that every backend can use host
//! memory: "CPU" (memory from `wsp_ggml_aligned_malloc`, owned by the buffer) and "CPU_Mapped"
//! (memory owned by the caller, wrapped by `wsp_ggml_backend_cpu_buffer_from_ptr`).

use crate::abi::*;
use crate::buffer::new_buffer;
use crate::ggml::{log_error, wsp_ggml_aligned_free, wsp_ggml_aligned_malloc, wsp_ggml_nbytes};
use std::cell::UnsafeCell;
use std::ffi::{c_char, c_void};

/// ggml's TENSOR_ALIGNMENT: gguf only guarantees 32-byte alignment for mapped files.
pub const TENSOR_ALIGNMENT: usize = 32;

/// A buffer type with a fixed address for the life of the process, handed to C as a pointer.
struct StaticBufferType(UnsafeCell<wsp_ggml_backend_buffer_type>);
// SAFETY: the object is never written after construction; C receives it as an opaque handle.
unsafe impl Sync for StaticBufferType {}

impl StaticBufferType {
    const fn new(get_name: unsafe extern "C" fn(wsp_ggml_backend_buffer_type_t) -> *const c_char) -> Self {
        StaticBufferType(UnsafeCell::new(wsp_ggml_backend_buffer_type {
            iface: wsp_ggml_backend_buffer_type_i {
                get_name: Some(get_name),
                alloc_buffer: Some(cpu_buft_alloc_buffer),
                get_alignment: Some(cpu_buft_get_alignment),
                get_max_size: None,
                get_alloc_size: None,
                is_host: Some(cpu_buft_is_host),
            },
            // The reference leaves the device unset for these types as well.
            device: std::ptr::null_mut(),
            context: std::ptr::null_mut(),
        }))
    }

    fn get(&'static self) -> wsp_ggml_backend_buffer_type_t {
        self.0.get()
    }
}

static CPU_BUFFER_TYPE: StaticBufferType = StaticBufferType::new(cpu_buft_name);
static CPU_MAPPED_BUFFER_TYPE: StaticBufferType = StaticBufferType::new(cpu_mapped_buft_name);

unsafe extern "C" fn cpu_buft_name(_: wsp_ggml_backend_buffer_type_t) -> *const c_char {
    c"CPU".as_ptr()
}

unsafe extern "C" fn cpu_mapped_buft_name(_: wsp_ggml_backend_buffer_type_t) -> *const c_char {
    c"CPU_Mapped".as_ptr()
}

unsafe extern "C" fn cpu_buft_alloc_buffer(buft: wsp_ggml_backend_buffer_type_t, size: usize) -> wsp_ggml_backend_buffer_t {
    let data = wsp_ggml_aligned_malloc(size);
    if data.is_null() {
        log_error!("wsp_ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size {size}\n");
        return std::ptr::null_mut();
    }
    new_buffer(buft, CPU_OWNED_BUFFER_IFACE, data, size)
}

unsafe extern "C" fn cpu_buft_get_alignment(_: wsp_ggml_backend_buffer_type_t) -> usize {
    TENSOR_ALIGNMENT
}

unsafe extern "C" fn cpu_buft_is_host(_: wsp_ggml_backend_buffer_type_t) -> bool {
    true
}

// ---------------------------------------------------------------------------------------------
// CPU buffers: the context is the start of the memory
// ---------------------------------------------------------------------------------------------

unsafe extern "C" fn cpu_buffer_get_base(buffer: wsp_ggml_backend_buffer_t) -> *mut c_void {
    let data = (*buffer).context as usize;
    data.next_multiple_of(TENSOR_ALIGNMENT) as *mut c_void
}

unsafe extern "C" fn cpu_buffer_free(buffer: wsp_ggml_backend_buffer_t) {
    wsp_ggml_aligned_free((*buffer).context, (*buffer).size);
}

unsafe extern "C" fn cpu_buffer_memset_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
    value: u8,
    offset: usize,
    size: usize,
) {
    std::ptr::write_bytes(((*tensor).data as *mut u8).add(offset), value, size);
}

unsafe extern "C" fn cpu_buffer_set_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    std::ptr::copy_nonoverlapping(data as *const u8, ((*tensor).data as *mut u8).add(offset), size);
}

unsafe extern "C" fn cpu_buffer_get_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *const wsp_ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    std::ptr::copy_nonoverlapping(((*tensor).data as *const u8).add(offset), data as *mut u8, size);
}

unsafe extern "C" fn cpu_buffer_cpy_tensor(
    _: wsp_ggml_backend_buffer_t,
    src: *const wsp_ggml_tensor,
    dst: *mut wsp_ggml_tensor,
) -> bool {
    let src_buffer = (*src).buffer;
    if src_buffer.is_null() || !crate::buffer::buffer_is_host(&*src_buffer, "cpy_tensor") {
        return false;
    }
    // memmove: a tensor may be copied onto an overlapping view of itself.
    std::ptr::copy((*src).data as *const u8, (*dst).data as *mut u8, wsp_ggml_nbytes(src));
    true
}

unsafe extern "C" fn cpu_buffer_clear(buffer: wsp_ggml_backend_buffer_t, value: u8) {
    std::ptr::write_bytes((*buffer).context as *mut u8, value, (*buffer).size);
}

/// Memory the buffer owns (freed with it).
const CPU_OWNED_BUFFER_IFACE: wsp_ggml_backend_buffer_i = wsp_ggml_backend_buffer_i {
    free_buffer: Some(cpu_buffer_free),
    get_base: Some(cpu_buffer_get_base),
    init_tensor: None,
    memset_tensor: Some(cpu_buffer_memset_tensor),
    set_tensor: Some(cpu_buffer_set_tensor),
    get_tensor: Some(cpu_buffer_get_tensor),
    cpy_tensor: Some(cpu_buffer_cpy_tensor),
    clear: Some(cpu_buffer_clear),
    reset: None,
};

/// Memory the caller owns (left alone when the buffer is freed).
const CPU_BORROWED_BUFFER_IFACE: wsp_ggml_backend_buffer_i =
    wsp_ggml_backend_buffer_i { free_buffer: None, ..CPU_OWNED_BUFFER_IFACE };

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_cpu_buffer_type() -> wsp_ggml_backend_buffer_type_t {
    CPU_BUFFER_TYPE.get()
}

/// Wraps caller-owned memory. A pointer that is not TENSOR_ALIGNMENT-aligned gives NULL
/// and a log line (the reference asserts).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_cpu_buffer_from_ptr(ptr: *mut c_void, size: usize) -> wsp_ggml_backend_buffer_t {
    const FN: &str = "wsp_ggml_backend_cpu_buffer_from_ptr";
    if (ptr as usize) % TENSOR_ALIGNMENT != 0 {
        log_error!("{FN}: buffer pointer must be aligned to {TENSOR_ALIGNMENT} bytes\n");
        return std::ptr::null_mut();
    }
    new_buffer(CPU_MAPPED_BUFFER_TYPE.get(), CPU_BORROWED_BUFFER_IFACE, ptr, size)
}
