//! ggml contexts (0.6, 0.7: the meta backend keeps its per-device tensors in contexts).

use super::Tensor;
use crate::abi::*;
use alloc::vec::Vec;
use core::ffi::c_int;
use core::ptr::NonNull;

/// A ggml context (0.6, 0.7: the meta backend keeps its per-device tensors in contexts).
#[cfg(meta)]
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(transparent)]
pub struct Context(NonNull<ggml_context>);

#[cfg(meta)]
impl Context {
    /// # Safety
    /// `ptr` is NULL or a live context that stays live while the handle is used.
    pub unsafe fn from_raw(ptr: *mut ggml_context) -> Option<Context> {
        NonNull::new(ptr).map(Context)
    }

    /// A new context of `mem_size` bytes for tensor headers only (no data), freed by
    /// [`Context::free`].
    pub fn new(mem_size: usize) -> Context {
        let params = ggml_init_params { mem_size, mem_buffer: core::ptr::null_mut(), no_alloc: true };
        // SAFETY: valid parameters; ggml allocates the memory itself.
        let ctx = unsafe { crate::base::ggml::ggml_init(params) };
        Context(NonNull::new(ctx).unwrap_or_else(|| crate::base::report::fatal!("{PREFIX}ggml_init: out of memory")))
    }

    pub fn as_ptr(self) -> *mut ggml_context {
        self.0.as_ptr()
    }

    /// Frees the context and its tensors.
    ///
    /// # Safety
    /// Neither the context nor its tensors are used afterwards.
    pub unsafe fn free(self) {
        // SAFETY: a live context, given up by the caller.
        unsafe { crate::base::ggml::ggml_free(self.as_ptr()) }
    }

    /// Forgets the context's tensors, making room for new ones.
    ///
    /// # Safety
    /// The context's tensors are not used afterwards.
    pub unsafe fn reset(self) {
        // SAFETY: a live context; the caller gives its tensors up.
        unsafe { crate::base::ggml::ggml_reset(self.as_ptr()) }
    }

    pub fn mem_size(self) -> usize {
        // SAFETY: a live context.
        unsafe { crate::base::ggml::ggml_get_mem_size(self.as_ptr()) }
    }

    /// A new tensor of the context, with `ne` as its extents and contiguous strides.
    pub fn new_tensor(self, r#type: ggml_type, ne: &[i64; GGML_MAX_DIMS]) -> Tensor {
        // SAFETY: a live context and four extents; ggml aborts rather than give NULL.
        let raw =
            unsafe { crate::base::ggml::ggml_new_tensor(self.as_ptr(), r#type, GGML_MAX_DIMS as c_int, ne.as_ptr()) };
        // SAFETY: NULL or a tensor that lives as long as the context.
        unsafe { Tensor::from_raw(raw) }.expect("ggml_new_tensor never returns NULL")
    }

    /// The context's tensors, in the order they were made.
    pub fn tensors(self) -> Vec<Tensor> {
        let mut tensors = Vec::new();
        // SAFETY: a live context; the first tensor is NULL or one of its own.
        let mut t = unsafe { Tensor::from_raw(crate::base::ggml::ggml_get_first_tensor(self.as_ptr())) };
        while let Some(tensor) = t {
            tensors.push(tensor);
            // SAFETY: a tensor of the live context; the next is NULL or one of its own.
            t = unsafe { Tensor::from_raw(crate::base::ggml::ggml_get_next_tensor(self.as_ptr(), tensor.as_ptr())) };
        }
        tensors
    }
}
