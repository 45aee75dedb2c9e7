//! `ggml_backend_buffer`: memory of a buffer type, and the tensor data in it.

use super::{handle, required, BufferType};
use crate::abi::*;
use crate::base::fallible::{try_box, OutOfMemory};
use crate::base::report::{checked, Refused};
use crate::handle::Tensor;
use alloc::boxed::Box;
use alloc::format;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU64, Ordering};

/// Counts the changes of what a buffer says about the tensors in it: a buffer made, a buffer
/// released, a usage set. Through this layer only: the buffer object is this library's, and C
/// code changes it through the API (whisper.rn's C++, its backends, ggml-alloc, RPC and Vulkan
/// never write its fields).
///
/// Its reader is the scheduler's reading of a graph (`sched::reading`): a tensor's buffer facts
/// (its buffer type, the weights usage, host memory) stand while the count is the one they were
/// read at. It is one count for the process because a buffer does not know which schedulers have
/// read it (several may: a model's weights serve every scheduler of its contexts), so a change
/// cannot be told to them one by one.
static CHANGES: AtomicU64 = AtomicU64::new(0);

/// The number of buffer changes so far (see `CHANGES`): while it stays the same, every buffer
/// that exists says what it said, and an address names the same buffer.
pub fn buffer_changes() -> u64 {
    CHANGES.load(Ordering::Relaxed)
}

fn buffer_changed() {
    CHANGES.fetch_add(1, Ordering::Relaxed);
}

handle!(
    /// A buffer.
    Buffer => ggml_backend_buffer
);

/// The signature of `ggml_backend_buffer_i.free_buffer`, by which a buffer kind is known.
pub type FreeBufferFn = unsafe extern "C" fn(buffer: ggml_backend_buffer_t);

impl Buffer {
    /// A new buffer object (usage ANY), owned by whoever frees it with [`Buffer::destroy`].
    pub fn new(
        buft: Option<BufferType>,
        iface: ggml_backend_buffer_i,
        context: *mut c_void,
        size: usize,
    ) -> Result<Buffer, OutOfMemory> {
        let object = try_box(ggml_backend_buffer {
            iface,
            buft: buft.map_or(core::ptr::null_mut(), BufferType::as_ptr),
            context,
            size,
            usage: ggml_backend_buffer_usage::GGML_BACKEND_BUFFER_USAGE_ANY,
        })?;
        buffer_changed();
        Ok(Buffer(core::ptr::NonNull::from(Box::leak(object))))
    }

    /// Calls the buffer's `free_buffer` (optional) and releases the object.
    ///
    /// # Safety
    /// The buffer was made by [`Buffer::new`] (every buffer is: C backends create theirs through
    /// `ggml_backend_buffer_init`), is not destroyed yet, and is not used afterwards.
    pub unsafe fn destroy(self) {
        if let Some(free_buffer) = self.raw().iface.free_buffer {
            // SAFETY: the entry of a live buffer, called with it once.
            unsafe { free_buffer(self.as_ptr()) };
        }
        // SAFETY: the caller's promise is forget's.
        unsafe { self.forget() }
    }

    /// Releases the object alone, without its `free_buffer`: the memory it was given stays its
    /// owner's.
    ///
    /// # Safety
    /// As for [`Self::destroy`].
    pub unsafe fn forget(self) {
        // SAFETY: made by Box::leak in new and released once (the caller's promise).
        drop(unsafe { Box::from_raw(self.as_ptr()) });
        buffer_changed();
    }

    pub fn buft(self) -> Option<BufferType> {
        // SAFETY: a buffer's type is NULL or a live buffer type.
        unsafe { BufferType::from_raw(self.raw().buft) }
    }

    /// The buffer's type, or the refusal naming the caller when it has none.
    pub fn buft_checked(self, caller: &str) -> Result<BufferType, Refused> {
        self.buft().ok_or_else(|| Refused(format!("{caller}: buffer->buft is NULL")))
    }

    #[inline(always)]
    pub fn size(self) -> usize {
        self.raw().size
    }

    /// Sets the size of a buffer this library made, once its parts are known (the meta buffer
    /// of a context).
    #[cfg(meta)]
    pub fn set_size(self, size: usize) {
        // SAFETY: live, and not used from another thread meanwhile (the ggml API's rule).
        unsafe { (*self.as_ptr()).size = size };
    }

    #[inline(always)]
    pub fn usage(self) -> ggml_backend_buffer_usage {
        self.raw().usage
    }

    pub fn set_usage(self, usage: ggml_backend_buffer_usage) {
        // SAFETY: live, and not used from another thread meanwhile (the ggml API's rule).
        unsafe { (*self.as_ptr()).usage = usage };
        buffer_changed();
    }

    pub fn context(self) -> *mut c_void {
        self.raw().context
    }

    /// Whether the buffer's `free_buffer` entry is `free_buffer`: how a kind of buffer made by
    /// this library recognises its own.
    pub fn is_freed_by(self, free_buffer: FreeBufferFn) -> bool {
        matches!(self.raw().iface.free_buffer, Some(f) if core::ptr::fn_addr_eq(f, free_buffer))
    }

    /// Whether the buffer's type is host memory.
    pub fn is_host(self, caller: &str) -> Result<bool, Refused> {
        Ok(self.buft_checked(caller)?.is_host())
    }

    /// The base address; None when the buffer has no single one (get_base is optional).
    pub fn base(self) -> Option<*mut c_void> {
        let get_base = self.raw().iface.get_base?;
        // SAFETY: the entry of a live buffer, called with it.
        Some(unsafe { get_base(self.as_ptr()) })
    }

    /// Optional; nothing to do by default.
    pub fn init_tensor(self, tensor: Tensor) -> ggml_status {
        match self.raw().iface.init_tensor {
            // SAFETY: the entry of a live buffer, called with it, with a live tensor placed in this buffer.
            Some(init_tensor) => unsafe { init_tensor(self.as_ptr(), tensor.as_ptr()) },
            None => ggml_status::GGML_STATUS_SUCCESS,
        }
    }

    /// # Safety
    /// `[offset, offset + size)` lies inside the allocated tensor, which lives in this buffer.
    pub unsafe fn memset_tensor(self, caller: &str, tensor: Tensor, value: u8, offset: usize, size: usize) {
        let memset_tensor = checked!(required(self.raw().iface.memset_tensor, caller, "memset_tensor"));
        // SAFETY: the caller's promise.
        unsafe { memset_tensor(self.as_ptr(), tensor.as_ptr(), value, offset, size) }
    }

    /// # Safety
    /// As for memset_tensor, and `data` holds `size` readable bytes.
    pub unsafe fn set_tensor(self, caller: &str, tensor: Tensor, data: *const c_void, offset: usize, size: usize) {
        let set_tensor = checked!(required(self.raw().iface.set_tensor, caller, "set_tensor"));
        // SAFETY: the caller's promise.
        unsafe { set_tensor(self.as_ptr(), tensor.as_ptr(), data, offset, size) }
    }

    /// # Safety
    /// As for memset_tensor, and `data` has room for `size` bytes.
    pub unsafe fn get_tensor(self, caller: &str, tensor: Tensor, data: *mut c_void, offset: usize, size: usize) {
        let get_tensor = checked!(required(self.raw().iface.get_tensor, caller, "get_tensor"));
        // SAFETY: the caller's promise.
        unsafe { get_tensor(self.as_ptr(), tensor.as_ptr(), data, offset, size) }
    }

    /// Writes `runs` of `data` starting at `offset` (nothing when the runs are empty, as in 0.7);
    /// false when the buffer has no 2d entry (it is optional) and the caller must write run by
    /// run.
    ///
    /// # Safety
    /// Every run lies inside the allocated tensor, which lives in this buffer; `data` holds the
    /// runs' bytes.
    #[cfg(tensor_2d)]
    pub unsafe fn set_tensor_2d(self, tensor: Tensor, data: *const c_void, offset: usize, runs: Runs) -> bool {
        let Some(set_2d) = self.raw().iface.set_tensor_2d else { return false };
        if runs.size > 0 {
            let (size, n_copies, stride_tensor, stride_data) = runs.args();
            // SAFETY: the caller's promise.
            unsafe { set_2d(self.as_ptr(), tensor.as_ptr(), data, offset, size, n_copies, stride_tensor, stride_data) };
        }
        true
    }

    /// Reads `runs` starting at `offset` into `data`; false without a 2d entry, as for
    /// set_tensor_2d.
    ///
    /// # Safety
    /// As for set_tensor_2d, with room for the runs at `data`.
    #[cfg(tensor_2d)]
    pub unsafe fn get_tensor_2d(self, tensor: Tensor, data: *mut c_void, offset: usize, runs: Runs) -> bool {
        let Some(get_2d) = self.raw().iface.get_tensor_2d else { return false };
        if runs.size > 0 {
            let (size, n_copies, stride_tensor, stride_data) = runs.args();
            // SAFETY: the caller's promise.
            unsafe { get_2d(self.as_ptr(), tensor.as_ptr(), data, offset, size, n_copies, stride_tensor, stride_data) };
        }
        true
    }

    /// Copies `src` into `dst`, which lives in this buffer; optional, false (not done) by
    /// default.
    ///
    /// # Safety
    /// Both tensors are allocated and have the same layout.
    pub unsafe fn cpy_tensor(self, src: Tensor, dst: Tensor) -> bool {
        match self.raw().iface.cpy_tensor {
            // SAFETY: the caller's promise.
            Some(cpy_tensor) => unsafe { cpy_tensor(self.as_ptr(), src.as_ptr(), dst.as_ptr()) },
            None => false,
        }
    }

    pub fn clear(self, caller: &str, value: u8) {
        let clear = checked!(required(self.raw().iface.clear, caller, "clear"));
        // SAFETY: the entry of a live buffer, called with it.
        unsafe { clear(self.as_ptr(), value) }
    }

    /// Optional; nothing to do by default.
    pub fn reset(self) {
        if let Some(reset) = self.raw().iface.reset {
            // SAFETY: the entry of a live buffer, called with it.
            unsafe { reset(self.as_ptr()) }
        }
    }
}

/// A tensor's buffers.
impl Tensor {
    pub fn buffer(self) -> Option<Buffer> {
        // SAFETY: a tensor's buffer is NULL or a live buffer.
        unsafe { Buffer::from_raw(self.buffer_ptr()) }
    }

    /// The buffer that holds the bytes: the view source's for a view.
    #[inline]
    pub fn storage_buffer(self) -> Option<Buffer> {
        match self.view_src() {
            Some(view_src) => view_src.buffer(),
            None => self.buffer(),
        }
    }

    /// Places the tensor at `data` inside `buffer`.
    pub fn set_buffer_and_data(self, buffer: Buffer, data: *mut c_void) {
        self.set_buffer_ptr_and_data(buffer.as_ptr(), data);
    }
}

/// A 2d transfer (0.7): `count` runs of `size` bytes, `stride_tensor` apart in the tensor and
/// `stride_data` apart in the caller's memory.
#[cfg(tensor_2d)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Runs {
    pub size: usize,
    pub count: usize,
    pub stride_tensor: usize,
    pub stride_data: usize,
}

#[cfg(tensor_2d)]
impl Runs {
    /// Where run `index` starts, relative to the transfer's start, in the tensor and in the
    /// caller's memory; None when that does not fit in an address.
    pub fn run_start(self, index: usize) -> Option<(usize, usize)> {
        Some((index.checked_mul(self.stride_tensor)?, index.checked_mul(self.stride_data)?))
    }

    /// The interface entries' trailing arguments: size, n_copies, stride_tensor, stride_data.
    pub fn args(self) -> (usize, usize, usize, usize) {
        (self.size, self.count, self.stride_tensor, self.stride_data)
    }

    /// The bytes of the tensor the runs cover, from their start to the end of the last run;
    /// None when that does not fit in an address.
    pub fn tensor_span(self) -> Option<usize> {
        let (last_start, _) = self.run_start(self.count.checked_sub(1)?)?;
        last_start.checked_add(self.size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn making_releasing_and_setting_the_usage_of_a_buffer_are_changes() {
        // Other tests make buffers meanwhile: the count only grows.
        let before = buffer_changes();
        let buffer = Buffer::new(None, ggml_backend_buffer_i::NONE, std::ptr::null_mut(), 0).unwrap();
        let made = buffer_changes();
        assert!(made > before);
        buffer.set_usage(ggml_backend_buffer_usage::GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        let used = buffer_changes();
        assert!(used > made);
        // SAFETY: made above, released once, not used afterwards.
        unsafe { buffer.destroy() };
        assert!(buffer_changes() > used);
    }
}
