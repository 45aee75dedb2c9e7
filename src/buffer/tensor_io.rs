//! Tensor data access with the reference's checks (named, and with the sizes in the message),
//! and copies between tensors, possibly of different backends.

use crate::base::report::{checked, ensure, fatal, null_handle};
#[cfg(tensor_2d)]
use crate::handle::Runs;
use crate::handle::{Backend, Buffer, Tensor};
use alloc::vec::Vec;
use core::ffi::c_void;

/// Which way data moves, for the bounds message ("tensor write out of bounds").
#[derive(Clone, Copy)]
pub enum Access {
    Read,
    Write,
}

impl Access {
    fn word(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }
}

/// Checks that `[offset, offset + size)` lies inside an allocated tensor.
pub fn check_range(caller: &str, tensor: Tensor, offset: usize, size: usize, access: Access) {
    ensure!(!tensor.data().is_null(), "{caller}: tensor not allocated ({})", tensor.name());
    let nbytes = tensor.nbytes();
    let in_bounds = offset.checked_add(size).is_some_and(|end| end <= nbytes);
    ensure!(
        in_bounds,
        "{caller}: tensor {} out of bounds (offset {offset} + size {size} > {nbytes} bytes of {})",
        access.word(),
        tensor.name()
    );
}

/// The checks of the synchronous accessors; returns the buffer that holds the bytes, or None
/// when there is nothing to do (size 0, checked first as the reference does, unless
/// `buffer_before_size`: 0.7's set and get report a tensor without a buffer even when empty).
fn checked_buffer(
    caller: &str,
    tensor: Tensor,
    offset: usize,
    size: usize,
    access: Access,
    buffer_before_size: bool,
) -> Option<Buffer> {
    let early = buffer_before_size.then(|| storage_buffer(caller, tensor));
    if size == 0 {
        return None;
    }
    let buffer = early.unwrap_or_else(|| storage_buffer(caller, tensor));
    check_range(caller, tensor, offset, size, access);
    Some(buffer)
}

/// The buffer that holds a tensor's bytes, or an abort naming the caller.
fn storage_buffer(caller: &str, tensor: Tensor) -> Buffer {
    match tensor.storage_buffer() {
        Some(buffer) => buffer,
        None => fatal!("{caller}: tensor buffer not set ({})", tensor.name()),
    }
}

/// Writes `size` bytes from `data` at `offset` of the tensor's data.
///
/// # Safety
/// `data` holds `size` readable bytes.
pub unsafe fn set(caller: &str, tensor: Tensor, data: *const c_void, offset: usize, size: usize) {
    let buffer_first = cfg!(empty_access_needs_buffer);
    if let Some(buffer) = checked_buffer(caller, tensor, offset, size, Access::Write, buffer_first) {
        // SAFETY: the range was checked; the caller vouches for `data`.
        unsafe { buffer.set_tensor(caller, tensor, data, offset, size) }
    }
}

/// Reads `size` bytes at `offset` of the tensor's data into `data`.
///
/// # Safety
/// `data` has room for `size` bytes.
pub unsafe fn get(caller: &str, tensor: Tensor, data: *mut c_void, offset: usize, size: usize) {
    let buffer_first = cfg!(empty_access_needs_buffer);
    if let Some(buffer) = checked_buffer(caller, tensor, offset, size, Access::Read, buffer_first) {
        // SAFETY: the range was checked; the caller vouches for `data`.
        unsafe { buffer.get_tensor(caller, tensor, data, offset, size) }
    }
}

/// Fills `size` bytes at `offset` of the tensor's data with `value`.
pub fn memset(caller: &str, tensor: Tensor, value: u8, offset: usize, size: usize) {
    if let Some(buffer) = checked_buffer(caller, tensor, offset, size, Access::Write, false) {
        // SAFETY: the range was checked.
        unsafe { buffer.memset_tensor(caller, tensor, value, offset, size) }
    }
}

/// Writes tensor data on the backend's queue (synchronously when it has no asynchronous path).
///
/// # Safety
/// `data` holds `size` readable bytes until the backend is synchronized.
pub unsafe fn set_async(
    caller: &str,
    backend: Backend,
    tensor: Tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    check_range(caller, tensor, offset, size, Access::Write);
    // SAFETY: the range was checked; the caller vouches for `data`.
    if !unsafe { backend.set_tensor_async(tensor, data, offset, size) } {
        wait_before_sync_access(backend);
        // SAFETY: `set` checks the range; the caller vouches for `data`.
        unsafe { set(caller, tensor, data, offset, size) }
    }
}

/// Reads tensor data on the backend's queue (synchronously when it has no asynchronous path).
///
/// # Safety
/// `data` has room for `size` bytes until the backend is synchronized.
pub unsafe fn get_async(caller: &str, backend: Backend, tensor: Tensor, data: *mut c_void, offset: usize, size: usize) {
    check_range(caller, tensor, offset, size, Access::Read);
    // SAFETY: the range was checked; the caller vouches for `data`.
    if !unsafe { backend.get_tensor_async(tensor, data, offset, size) } {
        wait_before_sync_access(backend);
        // SAFETY: `get` checks the range; the caller vouches for `data`.
        unsafe { get(caller, tensor, data, offset, size) }
    }
}

/// 0.7 finishes the backend's queued work before accessing a tensor synchronously in place of
/// an asynchronous access, so that the access is ordered after it.
fn wait_before_sync_access(backend: Backend) {
    if cfg!(sync_before_fallback) {
        backend.synchronize();
    }
}

/// Checks that the runs of a 2d access starting at `offset` lie inside an allocated tensor.
#[cfg(tensor_2d)]
fn check_runs(caller: &str, tensor: Tensor, offset: usize, runs: Runs, access: Access) {
    ensure!(!tensor.data().is_null(), "{caller}: tensor not allocated ({})", tensor.name());
    let nbytes = tensor.nbytes();
    let in_bounds = runs.tensor_span().and_then(|span| span.checked_add(offset)).is_some_and(|end| end <= nbytes);
    ensure!(
        in_bounds,
        "{caller}: tensor {} out of bounds (offset {offset} + {} runs of {} bytes, {} apart > {nbytes} bytes of {})",
        access.word(),
        runs.count,
        runs.size,
        runs.stride_tensor,
        tensor.name()
    );
}

/// Run `index` of a 2d access as a plain access: its offset in the tensor and its address in
/// the caller's memory; aborts when the offset does not fit in an address.
#[cfg(tensor_2d)]
fn run_at(caller: &str, tensor: Tensor, offset: usize, runs: Runs, index: usize, access: Access) -> (usize, usize) {
    match runs.run_start(index).and_then(|(in_tensor, in_data)| Some((offset.checked_add(in_tensor)?, in_data))) {
        Some(run) => run,
        None => fatal!("{caller}: tensor {} out of bounds (run {index} of {})", access.word(), tensor.name()),
    }
}

/// The order of a 2d access: with several runs, the runs are checked (unless empty) and handed to
/// the 2d entry `whole` (false: the buffer or backend has none); otherwise, or without the entry,
/// `run(offset in the tensor, offset in the caller's memory)` moves each run as a plain access.
#[cfg(tensor_2d)]
fn access_2d(
    caller: &str,
    tensor: Tensor,
    offset: usize,
    runs: Runs,
    access: Access,
    whole: impl FnOnce() -> bool,
    mut run: impl FnMut(usize, usize),
) {
    if runs.count > 1 {
        if runs.size > 0 {
            check_runs(caller, tensor, offset, runs, access);
        }
        if whole() {
            return;
        }
    }
    for index in 0..runs.count {
        let (at, in_data) = run_at(caller, tensor, offset, runs, index, access);
        run(at, in_data);
    }
}

/// Writes `runs` of `data` at `offset` (0.7's tensor_set_2d), through the buffer's 2d entry when
/// it has one.
///
/// # Safety
/// `data` holds the runs' bytes.
#[cfg(tensor_2d)]
pub unsafe fn set_2d(caller: &str, tensor: Tensor, data: *const c_void, offset: usize, runs: Runs) {
    let buffer = storage_buffer(caller, tensor);
    access_2d(
        caller,
        tensor,
        offset,
        runs,
        Access::Write,
        // SAFETY: access_2d checked the runs; the caller vouches for `data`.
        || unsafe { buffer.set_tensor_2d(tensor, data, offset, runs) },
        // SAFETY: set checks the run; the caller vouches for `data`.
        |at, in_data| unsafe { set(caller, tensor, data.wrapping_byte_add(in_data), at, runs.size) },
    )
}

/// Reads `runs` at `offset` into `data` (0.7's tensor_get_2d), as set_2d writes them.
///
/// # Safety
/// `data` has room for the runs.
#[cfg(tensor_2d)]
pub unsafe fn get_2d(caller: &str, tensor: Tensor, data: *mut c_void, offset: usize, runs: Runs) {
    let buffer = storage_buffer(caller, tensor);
    access_2d(
        caller,
        tensor,
        offset,
        runs,
        Access::Read,
        // SAFETY: access_2d checked the runs; the caller vouches for `data`.
        || unsafe { buffer.get_tensor_2d(tensor, data, offset, runs) },
        // SAFETY: get checks the run; the caller vouches for `data`.
        |at, in_data| unsafe { get(caller, tensor, data.wrapping_byte_add(in_data), at, runs.size) },
    )
}

/// Writes `runs` of `data` on the backend's queue (0.7's tensor_set_2d_async), through the
/// backend's 2d entry when it has one.
///
/// # Safety
/// `data` holds the runs' bytes until the backend is synchronized.
#[cfg(tensor_2d)]
pub unsafe fn set_2d_async(
    caller: &str,
    backend: Backend,
    tensor: Tensor,
    data: *const c_void,
    offset: usize,
    runs: Runs,
) {
    ensure!(!tensor.data().is_null(), "{caller}: tensor not allocated ({})", tensor.name());
    access_2d(
        caller,
        tensor,
        offset,
        runs,
        Access::Write,
        // SAFETY: access_2d checked the runs; the caller vouches for `data`.
        || unsafe { backend.set_tensor_2d_async(tensor, data, offset, runs) },
        // SAFETY: set_async checks the run; the caller vouches for `data`.
        |at, in_data| unsafe { set_async(caller, backend, tensor, data.wrapping_byte_add(in_data), at, runs.size) },
    )
}

/// Reads `runs` into `data` on the backend's queue (0.7's tensor_get_2d_async), as set_2d_async
/// writes them.
///
/// # Safety
/// `data` has room for the runs until the backend is synchronized.
#[cfg(tensor_2d)]
pub unsafe fn get_2d_async(
    caller: &str,
    backend: Backend,
    tensor: Tensor,
    data: *mut c_void,
    offset: usize,
    runs: Runs,
) {
    ensure!(!tensor.data().is_null(), "{caller}: tensor not allocated ({})", tensor.name());
    access_2d(
        caller,
        tensor,
        offset,
        runs,
        Access::Read,
        // SAFETY: access_2d checked the runs; the caller vouches for `data`.
        || unsafe { backend.get_tensor_2d_async(tensor, data, offset, runs) },
        // SAFETY: get_async checks the run; the caller vouches for `data`.
        |at, in_data| unsafe { get_async(caller, backend, tensor, data.wrapping_byte_add(in_data), at, runs.size) },
    )
}

/// ggml_backend_tensor_copy: `copy` after checking the layouts.
pub fn checked_copy(caller: &str, src: Tensor, dst: Tensor) {
    check_copy(caller, src, dst);
    copy(caller, src, dst)
}

/// Aborts unless both tensors have the same layout.
pub fn check_copy(caller: &str, src: Tensor, dst: Tensor) {
    if !src.same_layout(dst) {
        fatal!("{caller}: cannot copy tensors with different layouts ({} -> {})", src.name(), dst.name());
    }
}

/// Copies `src` into `dst` (same layout): directly when either side is host memory, through
/// the destination buffer's `cpy_tensor` when it can, otherwise through a staging copy.
pub fn copy(caller: &str, src: Tensor, dst: Tensor) {
    if src == dst {
        return;
    }
    let nbytes = src.nbytes();
    if nbytes == 0 {
        return;
    }
    let src_buffer = src.buffer().unwrap_or_else(|| null_handle(caller, "src->buffer"));
    // Whole tensors of the same layout: always in bounds, so only the buffers are checked.
    if checked!(src_buffer.is_host(caller)) {
        let dst_buffer = whole_tensor_buffer(caller, dst);
        // SAFETY: both hold nbytes allocated bytes; src's are host memory.
        unsafe { dst_buffer.set_tensor(caller, dst, src.data(), 0, nbytes) }
    } else if checked!(dst.buffer().unwrap_or_else(|| null_handle(caller, "dst->buffer")).is_host(caller)) {
        let src_buffer = whole_tensor_buffer(caller, src);
        // SAFETY: both hold nbytes allocated bytes; dst's are host memory.
        unsafe { src_buffer.get_tensor(caller, src, dst.data(), 0, nbytes) }
    } else {
        // SAFETY: same layout (checked by the callers), both allocated.
        let copied = checked!(unsafe { crate::buffer::copy_tensor(caller, src, dst) });
        if !copied {
            let mut staging: Vec<u8> = Vec::with_capacity(nbytes);
            // SAFETY: the staging vector has room for nbytes, which get fills.
            unsafe {
                get(caller, src, staging.as_mut_ptr() as *mut c_void, 0, nbytes);
                set(caller, dst, staging.as_ptr() as *const c_void, 0, nbytes);
            }
        }
    }
}

/// The buffer holding a tensor's bytes, for an access to all of them.
fn whole_tensor_buffer(caller: &str, tensor: Tensor) -> Buffer {
    let buffer = storage_buffer(caller, tensor);
    ensure!(!tensor.data().is_null(), "{caller}: tensor not allocated ({})", tensor.name());
    buffer
}

/// Copies `src` of `src_backend` into `dst` of `dst_backend` on their queues when the
/// destination can, otherwise after waiting for both.
pub fn copy_async(caller: &str, src_backend: Backend, dst_backend: Backend, src: Tensor, dst: Tensor) {
    check_copy(caller, src, dst);
    if src == dst {
        return;
    }
    // SAFETY: same layout (checked), both allocated (the API's contract).
    if unsafe { dst_backend.cpy_tensor_async(src_backend, src, dst) } {
        return;
    }
    src_backend.synchronize();
    dst_backend.synchronize();
    copy(caller, src, dst);
}
