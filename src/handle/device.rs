//! `ggml_backend_device`: a device of a reg, which makes backends, buffer types and events
//! and says which ops and buffer types it can use.

use super::{handle, required, Backend, Buffer, BufferType, Event, Reg};
use crate::abi::*;
use crate::base::report::{checked, Refused};
use crate::handle::Tensor;
use alloc::format;
use core::ffi::{c_char, c_void};

handle!(
    /// A device.
    Device => ggml_backend_device
);

// SAFETY: devices are objects of their regs, which the ggml API requires to outlive their
// registration; the registry only stores and compares the handles and hands them back to C.
unsafe impl Send for Device {}

impl Device {
    /// The context a device made by this library keeps (the meta device).
    #[cfg(meta)]
    pub fn context(self) -> *mut c_void {
        self.raw().context
    }

    /// Whether the device's `get_name` entry is `get_name`: how a kind of device made by this
    /// library recognises its own.
    #[cfg(meta)]
    pub fn is_named_by(self, get_name: unsafe extern "C" fn(ggml_backend_dev_t) -> *const c_char) -> bool {
        matches!(self.raw().iface.get_name, Some(f) if core::ptr::fn_addr_eq(f, get_name))
    }

    pub fn name(self, caller: &str) -> *const c_char {
        let get_name = checked!(required(self.raw().iface.get_name, caller, "get_name"));
        // SAFETY: the entry of a live device, called with it.
        unsafe { get_name(self.as_ptr()) }
    }

    pub fn description(self, caller: &str) -> *const c_char {
        let get_description = checked!(required(self.raw().iface.get_description, caller, "get_description"));
        // SAFETY: the entry of a live device, called with it.
        unsafe { get_description(self.as_ptr()) }
    }

    /// # Safety
    /// `free` and `total` are NULL or writable (as the device requires).
    pub unsafe fn memory(self, caller: &str, free: *mut usize, total: *mut usize) {
        let get_memory = checked!(required(self.raw().iface.get_memory, caller, "get_memory"));
        // SAFETY: the caller's promise.
        unsafe { get_memory(self.as_ptr(), free, total) }
    }

    pub fn device_type(self, caller: &str) -> ggml_backend_dev_type {
        let get_type = checked!(required(self.raw().iface.get_type, caller, "get_type"));
        // SAFETY: the entry of a live device, called with it.
        unsafe { get_type(self.as_ptr()) }
    }

    /// The device's properties; fields the device does not fill in read as 0, NULL or false.
    pub fn props(self, caller: &str, props: &mut ggml_backend_dev_props) {
        let get_props = checked!(required(self.raw().iface.get_props, caller, "get_props"));
        // SAFETY: all-zero is a valid value of the struct (NULL pointers, zero numbers, type
        // CPU, no caps).
        *props = unsafe { core::mem::zeroed() };
        // SAFETY: the entry of a live device, called with it, with a writable struct.
        unsafe { get_props(self.as_ptr(), props) }
    }

    /// The device's properties, as a value (see `props`).
    pub fn props_value(self, caller: &str) -> ggml_backend_dev_props {
        // SAFETY: all-zero is a valid value of the struct (NULL pointers, zero numbers).
        let mut props = unsafe { core::mem::zeroed() };
        self.props(caller, &mut props);
        props
    }

    pub fn reg(self) -> Option<Reg> {
        // SAFETY: a device's reg is NULL or a live reg.
        unsafe { Reg::from_raw(self.raw().reg) }
    }

    /// A new backend on the device, or None when it cannot make one.
    ///
    /// # Safety
    /// `params` is NULL or a NUL-terminated string.
    pub unsafe fn init_backend(self, caller: &str, params: *const c_char) -> Option<Backend> {
        let init_backend = checked!(required(self.raw().iface.init_backend, caller, "init_backend"));
        // SAFETY: the caller's promise; the result is NULL or a live backend.
        unsafe { Backend::from_raw(init_backend(self.as_ptr(), params)) }
    }

    pub fn buffer_type(self, caller: &str) -> Option<BufferType> {
        let get_buffer_type = checked!(required(self.raw().iface.get_buffer_type, caller, "get_buffer_type"));
        // SAFETY: the entry of a live device, called with it; the result is NULL or a live buffer type.
        unsafe { BufferType::from_raw(get_buffer_type(self.as_ptr())) }
    }

    /// The device's default buffer type, or the refusal naming the caller when it has none.
    pub fn buffer_type_checked(self, caller: &str) -> Result<BufferType, Refused> {
        self.buffer_type(caller).ok_or_else(|| Refused(format!("{caller}: the device has no buffer type")))
    }

    /// Optional; None by default.
    pub fn host_buffer_type(self) -> Option<BufferType> {
        let get_host_buffer_type = self.raw().iface.get_host_buffer_type?;
        // SAFETY: the entry of a live device, called with it; the result is NULL or a live buffer
        // type.
        unsafe { BufferType::from_raw(get_host_buffer_type(self.as_ptr())) }
    }

    /// A buffer over host memory the caller owns. Outer None: the device cannot wrap host
    /// memory (the entry is optional); inner None: it failed.
    ///
    /// # Safety
    /// `[ptr, ptr + size)` is memory that outlives the buffer.
    pub unsafe fn buffer_from_host_ptr(
        self,
        ptr: *mut c_void,
        size: usize,
        max_tensor_size: usize,
    ) -> Option<Option<Buffer>> {
        let from_ptr = self.raw().iface.buffer_from_host_ptr?;
        // SAFETY: the caller's promise; the result is NULL or a live buffer.
        Some(unsafe { Buffer::from_raw(from_ptr(self.as_ptr(), ptr, size, max_tensor_size)) })
    }

    #[inline]
    pub fn supports_op(self, caller: &str, op: Tensor) -> bool {
        let supports_op = checked!(required(self.raw().iface.supports_op, caller, "supports_op"));
        // SAFETY: the entry of a live device, called with it, with a live tensor.
        unsafe { supports_op(self.as_ptr(), op.as_ptr()) }
    }

    pub fn supports_buft(self, caller: &str, buft: BufferType) -> bool {
        let supports_buft = checked!(required(self.raw().iface.supports_buft, caller, "supports_buft"));
        // SAFETY: the entry of a live device, called with it, with a live buffer type.
        unsafe { supports_buft(self.as_ptr(), buft.as_ptr()) }
    }

    /// Optional; false (not worth offloading) by default.
    pub fn offload_op(self, op: Tensor) -> bool {
        match self.raw().iface.offload_op {
            // SAFETY: the entry of a live device, called with it and a live tensor.
            Some(offload_op) => unsafe { offload_op(self.as_ptr(), op.as_ptr()) },
            None => false,
        }
    }

    /// Optional; None (no events) by default.
    pub fn event_new(self) -> Option<Event> {
        let event_new = self.raw().iface.event_new?;
        // SAFETY: the entry of a live device, called with it; the result is NULL or a live event.
        unsafe { Event::from_raw(event_new(self.as_ptr())) }
    }

    pub fn event_free(self, caller: &str, event: Event) {
        let event_free = checked!(required(self.raw().iface.event_free, caller, "event_free"));
        // SAFETY: the entry of a live device, called with it, with a live event of this device.
        unsafe { event_free(self.as_ptr(), event.as_ptr()) }
    }

    pub fn event_synchronize(self, caller: &str, event: Event) {
        let event_synchronize = checked!(required(self.raw().iface.event_synchronize, caller, "event_synchronize"));
        // SAFETY: the entry of a live device, called with it, with a live event of this device.
        unsafe { event_synchronize(self.as_ptr(), event.as_ptr()) }
    }
}
