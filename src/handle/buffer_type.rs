//! `ggml_backend_buffer_type`: where memory comes from.

use super::{handle, required, Buffer, Device};
use crate::abi::*;
use crate::base::report::checked;
use crate::handle::Tensor;
use core::ffi::c_char;

handle!(
    /// A buffer type.
    BufferType => ggml_backend_buffer_type
);

// SAFETY: buffer types are static objects of their backends; the handle is only compared and
// used as the C API allows from any thread.
unsafe impl Send for BufferType {}

impl BufferType {
    /// The context a buffer type made by this library keeps (the meta buffer type).
    #[cfg(meta)]
    pub fn context(self) -> *mut core::ffi::c_void {
        self.raw().context
    }

    /// Whether the buffer type's `get_name` entry is `get_name` (see `Device::is_named_by`).
    #[cfg(meta)]
    pub fn is_named_by(self, get_name: unsafe extern "C" fn(ggml_backend_buffer_type_t) -> *const c_char) -> bool {
        matches!(self.raw().iface.get_name, Some(f) if core::ptr::fn_addr_eq(f, get_name))
    }

    pub fn name(self, caller: &str) -> *const c_char {
        let get_name = checked!(required(self.raw().iface.get_name, caller, "get_name"));
        // SAFETY: the entry of a live buffer type, called with it.
        unsafe { get_name(self.as_ptr()) }
    }

    /// A new buffer of `size` bytes (more than 0), or None when the backend has no memory.
    pub fn alloc_buffer(self, caller: &str, size: usize) -> Option<Buffer> {
        let alloc_buffer = checked!(required(self.raw().iface.alloc_buffer, caller, "alloc_buffer"));
        // SAFETY: the entry of a live buffer type, called with it; the result is NULL or a live buffer.
        unsafe { Buffer::from_raw(alloc_buffer(self.as_ptr(), size)) }
    }

    pub fn alignment(self, caller: &str) -> usize {
        let get_alignment = checked!(required(self.raw().iface.get_alignment, caller, "get_alignment"));
        // SAFETY: the entry of a live buffer type, called with it.
        unsafe { get_alignment(self.as_ptr()) }
    }

    /// Optional; no limit by default.
    pub fn max_size(self) -> usize {
        match self.raw().iface.get_max_size {
            // SAFETY: the entry of a live buffer type, called with it.
            Some(get_max_size) => unsafe { get_max_size(self.as_ptr()) },
            None => usize::MAX,
        }
    }

    /// Optional; the tensor's byte size by default.
    pub fn alloc_size(self, tensor: Tensor) -> usize {
        match self.raw().iface.get_alloc_size {
            Some(get_alloc_size) => {
                // SAFETY: the entry of a live buffer type, called with it, with a live tensor.
                let size = unsafe { get_alloc_size(self.as_ptr(), tensor.as_ptr()) };
                debug_assert!(size >= tensor.nbytes());
                #[cfg(op_alloc_size_may_expand)]
                if size > tensor.nbytes() {
                    self.check_expansion(tensor);
                }
                size
            }
            None => tensor.nbytes(),
        }
    }

    /// Logs (once) a buffer type that gives a tensor more than its bytes where plain ggml 0.3.36
    /// says none may (the reference asserts): the size stands, as the backend needs it.
    #[cfg(op_alloc_size_may_expand)]
    #[cold]
    #[inline(never)]
    fn check_expansion(self, tensor: Tensor) {
        use core::sync::atomic::{AtomicBool, Ordering};
        static LOGGED: AtomicBool = AtomicBool::new(false);
        let op = tensor.op();
        if super::is_view_op(op) || op == GGML_OP_NONE || tensor.is_quantized() || super::alloc_size_may_expand(op) {
            return;
        }
        if !LOGGED.swap(true, Ordering::Relaxed) {
            crate::base::report::log_error!(
                "{PREFIX}ggml_backend_buft_get_alloc_size: buffer type {} gives tensor {} (op {}) more than its bytes, which {PREFIX}ggml_op_alloc_size_may_expand does not allow for its op; the size stands (logged once)\n",
                // SAFETY: a buffer type's name is a string that lives as long as it does.
                unsafe { super::c_str_lossy(self.name(symbol!("ggml_backend_buft_get_alloc_size"))) },
                tensor.name(),
                tensor.op_name()
            );
        }
    }

    /// Optional; not host memory by default.
    pub fn is_host(self) -> bool {
        match self.raw().iface.is_host {
            // SAFETY: the entry of a live buffer type, called with it.
            Some(is_host) => unsafe { is_host(self.as_ptr()) },
            None => false,
        }
    }

    pub fn device(self) -> Option<Device> {
        // SAFETY: a buffer type's device is NULL or a live device.
        unsafe { Device::from_raw(self.raw().device) }
    }

    /// A buffer type's identity, as the scheduler's planner compares them.
    pub fn id(self) -> usize {
        self.as_ptr() as usize
    }
}

/// A buffer type object that the library defines itself, at a fixed address for the life of
/// the process.
pub struct StaticBufferType(core::cell::UnsafeCell<ggml_backend_buffer_type>);

// SAFETY: the object is never written after construction; C receives it as an opaque handle.
unsafe impl Sync for StaticBufferType {}

impl StaticBufferType {
    /// A buffer type without a device (as the reference's CPU buffer types are).
    pub const fn new(iface: ggml_backend_buffer_type_i) -> Self {
        StaticBufferType(core::cell::UnsafeCell::new(ggml_backend_buffer_type {
            iface,
            device: core::ptr::null_mut(),
            context: core::ptr::null_mut(),
        }))
    }

    pub fn handle(&'static self) -> BufferType {
        // SAFETY: a static object is live for the life of the process.
        unsafe { BufferType::from_raw(self.0.get()) }.expect("a static is never NULL")
    }
}
