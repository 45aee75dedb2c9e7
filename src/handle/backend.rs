//! `ggml_backend`: a stream on a device.

#[cfg(tensor_2d)]
use super::Runs;
use super::{handle, required, Device, Event};
use crate::abi::*;
use crate::base::report::{checked, Refused};
use crate::handle::Tensor;
use alloc::format;
use core::ffi::{c_char, c_void};

handle!(
    /// A backend.
    Backend => ggml_backend
);

impl Backend {
    /// The context a backend made by this library keeps (the meta backend).
    #[cfg(meta)]
    pub fn context(self) -> *mut c_void {
        self.raw().context
    }

    /// Whether the backend's `get_name` entry is `get_name` (see `Device::is_named_by`).
    #[cfg(meta)]
    pub fn is_named_by(self, get_name: unsafe extern "C" fn(ggml_backend_t) -> *const c_char) -> bool {
        matches!(self.raw().iface.get_name, Some(f) if core::ptr::fn_addr_eq(f, get_name))
    }

    pub fn guid(self) -> ggml_guid_t {
        self.raw().guid
    }

    pub fn name(self, caller: &str) -> *const c_char {
        let get_name = checked!(required(self.raw().iface.get_name, caller, "get_name"));
        // SAFETY: the entry of a live backend, called with it.
        unsafe { get_name(self.as_ptr()) }
    }

    /// Releases the backend; it must not be used afterwards.
    pub fn free(self, caller: &str) {
        let free = checked!(required(self.raw().iface.free, caller, "free"));
        // SAFETY: the entry of a live backend, called with it.
        unsafe { free(self.as_ptr()) }
    }

    pub fn device(self) -> Option<Device> {
        // SAFETY: a backend's device is NULL or a live device.
        unsafe { Device::from_raw(self.raw().device) }
    }

    /// The backend's device, or the refusal naming the caller when it has none.
    pub fn device_checked(self, caller: &str) -> Result<Device, Refused> {
        self.device().ok_or_else(|| Refused(format!("{caller}: backend->device is NULL")))
    }

    /// Starts writing tensor data; false when the backend has no asynchronous path (the entry
    /// is optional), and the caller must write synchronously.
    ///
    /// # Safety
    /// `[offset, offset + size)` lies inside the allocated tensor; `data` holds `size` bytes
    /// that stay readable until the backend is synchronized.
    pub unsafe fn set_tensor_async(self, tensor: Tensor, data: *const c_void, offset: usize, size: usize) -> bool {
        let Some(set_async) = self.raw().iface.set_tensor_async else { return false };
        // SAFETY: the caller's promise.
        unsafe { set_async(self.as_ptr(), tensor.as_ptr(), data, offset, size) };
        true
    }

    /// Starts reading tensor data; false without an asynchronous path, as for set_tensor_async.
    ///
    /// # Safety
    /// As for set_tensor_async, with room for `size` bytes at `data`.
    pub unsafe fn get_tensor_async(self, tensor: Tensor, data: *mut c_void, offset: usize, size: usize) -> bool {
        let Some(get_async) = self.raw().iface.get_tensor_async else { return false };
        // SAFETY: the caller's promise.
        unsafe { get_async(self.as_ptr(), tensor.as_ptr(), data, offset, size) };
        true
    }

    /// Starts writing `runs` of `data` at `offset` (nothing when the runs are empty, as in 0.7);
    /// false when the backend has no 2d entry (it is optional) and the caller must write run by
    /// run.
    ///
    /// # Safety
    /// Every run lies inside the allocated tensor; `data` holds the runs' bytes until the
    /// backend is synchronized.
    #[cfg(tensor_2d)]
    pub unsafe fn set_tensor_2d_async(self, tensor: Tensor, data: *const c_void, offset: usize, runs: Runs) -> bool {
        let Some(set_2d) = self.raw().iface.set_tensor_2d_async else { return false };
        if runs.size > 0 {
            let (size, n_copies, stride_tensor, stride_data) = runs.args();
            // SAFETY: the caller's promise.
            unsafe { set_2d(self.as_ptr(), tensor.as_ptr(), data, offset, size, n_copies, stride_tensor, stride_data) };
        }
        true
    }

    /// Starts reading `runs` at `offset` into `data`; false without a 2d entry, as for
    /// set_tensor_2d_async.
    ///
    /// # Safety
    /// As for set_tensor_2d_async, with room for the runs at `data`.
    #[cfg(tensor_2d)]
    pub unsafe fn get_tensor_2d_async(self, tensor: Tensor, data: *mut c_void, offset: usize, runs: Runs) -> bool {
        let Some(get_2d) = self.raw().iface.get_tensor_2d_async else { return false };
        if runs.size > 0 {
            let (size, n_copies, stride_tensor, stride_data) = runs.args();
            // SAFETY: the caller's promise.
            unsafe { get_2d(self.as_ptr(), tensor.as_ptr(), data, offset, size, n_copies, stride_tensor, stride_data) };
        }
        true
    }

    /// Asks this (destination) backend to copy `src` of `src_backend` into `dst`
    /// asynchronously; false when it cannot (the entry is optional).
    ///
    /// # Safety
    /// Both tensors are allocated and have the same layout.
    pub unsafe fn cpy_tensor_async(self, src_backend: Backend, src: Tensor, dst: Tensor) -> bool {
        match self.raw().iface.cpy_tensor_async {
            // SAFETY: the caller's promise; both backends are live.
            Some(cpy_async) => unsafe { cpy_async(src_backend.as_ptr(), self.as_ptr(), src.as_ptr(), dst.as_ptr()) },
            None => false,
        }
    }

    /// Waits for the backend's queue; optional (synchronous backends have nothing to wait for).
    #[inline]
    pub fn synchronize(self) {
        if let Some(synchronize) = self.raw().iface.synchronize {
            // SAFETY: the entry of a live backend, called with it.
            unsafe { synchronize(self.as_ptr()) }
        }
    }

    /// # Safety
    /// The graph and its tensors are live.
    pub unsafe fn graph_plan_create(self, caller: &str, graph: *const ggml_cgraph) -> ggml_backend_graph_plan_t {
        let create = checked!(required(self.raw().iface.graph_plan_create, caller, "graph_plan_create"));
        // SAFETY: the caller's promise.
        unsafe { create(self.as_ptr(), graph) }
    }

    /// # Safety
    /// `plan` was made by this backend and is not used afterwards.
    pub unsafe fn graph_plan_free(self, caller: &str, plan: ggml_backend_graph_plan_t) {
        let free = checked!(required(self.raw().iface.graph_plan_free, caller, "graph_plan_free"));
        // SAFETY: the caller's promise.
        unsafe { free(self.as_ptr(), plan) }
    }

    /// Points `plan` at a graph of the same shape; optional (nothing to update by default).
    ///
    /// # Safety
    /// `plan` was made by this backend; the graph and its tensors are live.
    pub unsafe fn graph_plan_update(self, plan: ggml_backend_graph_plan_t, graph: *const ggml_cgraph) {
        if let Some(update) = self.raw().iface.graph_plan_update {
            // SAFETY: the caller's promise.
            unsafe { update(self.as_ptr(), plan, graph) }
        }
    }

    /// # Safety
    /// `plan` was made by this backend, and its graph is live.
    pub unsafe fn graph_plan_compute(self, caller: &str, plan: ggml_backend_graph_plan_t) -> ggml_status {
        let compute = checked!(required(self.raw().iface.graph_plan_compute, caller, "graph_plan_compute"));
        // SAFETY: the caller's promise.
        unsafe { compute(self.as_ptr(), plan) }
    }

    /// Starts computing `graph`.
    ///
    /// # Safety
    /// The graph and its tensors are live and allocated.
    pub unsafe fn graph_compute(self, caller: &str, graph: *mut ggml_cgraph) -> ggml_status {
        let compute = checked!(required(self.raw().iface.graph_compute, caller, "graph_compute"));
        // SAFETY: the caller's promise.
        unsafe { compute(self.as_ptr(), graph) }
    }

    /// Lets the backend reorder a graph's nodes before they are allocated and computed; false
    /// when it has no such entry (optional), and the order is unchanged. From plain ggml 0.3.36
    /// the backend may also keep tensors allocated until a later node: it adds those pairs to
    /// `deps`.
    ///
    /// # Safety
    /// The graph and its tensors are live.
    #[cfg(api_v2)]
    pub unsafe fn graph_optimize(
        self,
        graph: *mut ggml_cgraph,
        #[cfg(graph_optimize_params)] deps: &mut super::AllocDeps,
    ) -> bool {
        let Some(optimize) = self.raw().iface.graph_optimize else { return false };
        // SAFETY: the caller's promise; the params point at `deps`, borrowed for the call.
        #[cfg(graph_optimize_params)]
        unsafe {
            optimize(self.as_ptr(), graph, &mut deps.params())
        };
        // SAFETY: the caller's promise.
        #[cfg(not(graph_optimize_params))]
        unsafe {
            optimize(self.as_ptr(), graph)
        };
        true
    }

    pub fn event_record(self, caller: &str, event: Event) {
        let record = checked!(required(self.raw().iface.event_record, caller, "event_record"));
        // SAFETY: the entry of a live backend, with a live event.
        unsafe { record(self.as_ptr(), event.as_ptr()) }
    }

    pub fn event_wait(self, caller: &str, event: Event) {
        let wait = checked!(required(self.raw().iface.event_wait, caller, "event_wait"));
        // SAFETY: the entry of a live backend, with a live event.
        unsafe { wait(self.as_ptr(), event.as_ptr()) }
    }
}
