//! Moving data between the caller and a meta tensor's slices: whole tensors or ranges, written,
//! read or set, through each slice's buffer or its device's backend.

use super::chunks::{chunks, Chunk};
use super::meta_buffer_of;
use super::slices::simple_tensor_or_abort;
use super::state::split_state;
use crate::abi::*;
use crate::base::report::{ensure, fatal, null_handle};
use crate::handle::{Backend, Buffer, Tensor};
use crate::meta::split::{self, SplitState};
use std::ffi::c_void;

/// An access to a meta tensor's bytes: from or into the caller's, or set to a value.
#[derive(Clone, Copy)]
pub enum Access {
    Set(*const c_void),
    Get(*mut c_void),
    Memset(u8),
}

/// Does `access` for every run of `chunks` on the slices: through `backends[dev]`
/// asynchronously where given and able, else synchronously through the slice's buffer.
///
/// # Safety
/// The runs lie inside the slices and inside the caller's bytes.
pub unsafe fn access_chunks(
    caller: &str,
    chunks: &[Chunk],
    slices: &[Tensor],
    access: Access,
    backends: Option<&[Backend]>,
) {
    for c in chunks {
        let slice = slices[c.dev];
        for r in 0..c.runs.count {
            let (tensor_start, data_start) =
                c.runs.run_start(r).unwrap_or_else(|| fatal!("{caller}: a run of tensor {} overflows", slice.name()));
            let (at, data_at, len) = (c.slice_offset + tensor_start, c.data_offset + data_start, c.runs.size);
            let backend = backends.map(|b| b[c.dev]);
            // SAFETY: the run lies inside the slice and the caller's bytes (the caller's
            // promise); a backend without an asynchronous entry declines and the buffer does it.
            unsafe {
                let done = match (access, backend) {
                    (Access::Set(data), Some(b)) => b.set_tensor_async(slice, data.wrapping_byte_add(data_at), at, len),
                    (Access::Get(data), Some(b)) => b.get_tensor_async(slice, data.wrapping_byte_add(data_at), at, len),
                    _ => false,
                };
                if !done {
                    let buffer = storage(caller, slice);
                    match access {
                        Access::Set(data) => buffer.set_tensor(caller, slice, data.wrapping_byte_add(data_at), at, len),
                        Access::Get(data) => buffer.get_tensor(caller, slice, data.wrapping_byte_add(data_at), at, len),
                        Access::Memset(value) => buffer.memset_tensor(caller, slice, value, at, len),
                    }
                }
            }
        }
    }
}

/// The slices of a tensor of a meta buffer (at least one).
fn slices(caller: &str, tensor: Tensor) -> Vec<Tensor> {
    let n = meta_buffer_of(caller, tensor).n_devs();
    ensure!(n > 0, "{caller}: the meta device of tensor {} spans no devices", tensor.name());
    (0..n).map(|j| simple_tensor_or_abort(caller, tensor, j)).collect()
}

/// The chunks of a transfer, or an abort with the reason.
pub fn plan(
    caller: &str,
    tensor: Tensor,
    state: &SplitState,
    slices: &[Tensor],
    offset: usize,
    size: usize,
) -> Vec<Chunk> {
    let slice_nb: Vec<[usize; 4]> = slices.iter().map(|s| s.nb()).collect();
    chunks(state, &tensor.ne(), &tensor.nb(), tensor.blck_size(), &slice_nb, offset, size)
        .unwrap_or_else(|why| fatal!("{caller}: tensor {}: {why}", tensor.name()))
}

fn storage(caller: &str, slice: Tensor) -> Buffer {
    slice.storage_buffer().unwrap_or_else(|| null_handle(caller, "slice->buffer"))
}

/// How a transfer treats the tensor: checks it can, and gives its state.
fn transfer_state(caller: &str, tensor: Tensor) -> SplitState {
    let state = split_state(caller, tensor, false);
    ensure!(
        tensor.is_contiguous() || state.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED,
        "{caller}: tensor {} is neither contiguous nor MIRRORED",
        tensor.name()
    );
    state
}

/// Writes `size` bytes at `data` into bytes `[offset, offset + size)` of a meta tensor.
///
/// # Safety
/// `data` holds `size` readable bytes; the range lies inside the tensor.
pub unsafe fn set_tensor(caller: &str, tensor: Tensor, data: *const c_void, offset: usize, size: usize) {
    let state = transfer_state(caller, tensor);
    let slices = slices(caller, tensor);
    if split::is_segmented(&state) || split::is_dim(state.axis) {
        let chunks = plan(caller, tensor, &state, &slices, offset, size);
        // SAFETY: the plan covers the range, inside the tensor and `data` (the caller's promise).
        unsafe { access_chunks(caller, &chunks, &slices, Access::Set(data), None) };
        return;
    }
    match state.axis {
        GGML_BACKEND_SPLIT_AXIS_MIRRORED => {
            for &s in &slices {
                // SAFETY: every slice has the tensor's layout.
                unsafe { storage(caller, s).set_tensor(caller, s, data, offset, size) };
            }
        }
        GGML_BACKEND_SPLIT_AXIS_PARTIAL => {
            ensure!(tensor.r#type() == 0, "{caller}: a PARTIAL tensor must be F32");
            ensure!(offset % 4 == 0 && size % 4 == 0, "{caller}: a PARTIAL range must be whole floats");
            // SAFETY: the caller's bytes, read as floats without alignment assumptions.
            let values: Vec<f32> =
                (0..size / 4).map(|i| unsafe { (data as *const f32).add(i).read_unaligned() }).collect();
            let n = slices.len();
            // From 0.7 the devices with a share (ne[j] != 0), when any has one, hold the sum;
            // 0.6 gives every device its part.
            let contributors = (0..n).filter(|&j| state.ne[j] != 0).count();
            let masked = cfg!(meta_partial_contributors) && contributors != 0;
            let parts = if masked { contributors } else { n } as f32;
            let share: Vec<f32> = values.iter().map(|v| v / parts).collect();
            let zero = vec![0f32; values.len()];
            for (j, &s) in slices.iter().enumerate() {
                let part = if masked && state.ne[j] == 0 { &zero } else { &share };
                // SAFETY: `size` bytes of floats, the slice has the tensor's layout.
                unsafe { storage(caller, s).set_tensor(caller, s, part.as_ptr() as *const c_void, offset, size) };
            }
        }
        axis => fatal!("{caller}: cannot write a tensor with split axis {axis}"),
    }
}

/// Reads bytes `[offset, offset + size)` of a meta tensor into `data`.
///
/// # Safety
/// `data` has room for `size` bytes; the range lies inside the tensor.
pub unsafe fn get_tensor(caller: &str, tensor: Tensor, data: *mut c_void, offset: usize, size: usize) {
    let state = transfer_state(caller, tensor);
    let slices = slices(caller, tensor);
    if split::is_segmented(&state) || split::is_dim(state.axis) {
        let chunks = plan(caller, tensor, &state, &slices, offset, size);
        // SAFETY: the plan covers the range, inside the tensor and `data` (the caller's promise).
        unsafe { access_chunks(caller, &chunks, &slices, Access::Get(data), None) };
        return;
    }
    match state.axis {
        // Any device has all values; the first is asked.
        // SAFETY: the slice has the tensor's layout.
        GGML_BACKEND_SPLIT_AXIS_MIRRORED => unsafe {
            storage(caller, slices[0]).get_tensor(caller, slices[0], data, offset, size)
        },
        axis => fatal!("{caller}: cannot read a tensor with split axis {axis}"),
    }
}

/// Sets bytes `[offset, offset + size)` of a meta tensor to `value`.
///
/// # Safety
/// The range lies inside the tensor.
pub unsafe fn memset_tensor(caller: &str, tensor: Tensor, value: u8, offset: usize, size: usize) {
    let state = transfer_state(caller, tensor);
    let slices = slices(caller, tensor);
    if split::is_segmented(&state) || split::is_dim(state.axis) {
        let chunks = plan(caller, tensor, &state, &slices, offset, size);
        // SAFETY: the plan covers the range, inside the tensor (the caller's promise).
        unsafe { access_chunks(caller, &chunks, &slices, Access::Memset(value), None) };
        return;
    }
    match state.axis {
        GGML_BACKEND_SPLIT_AXIS_MIRRORED | GGML_BACKEND_SPLIT_AXIS_PARTIAL => {
            ensure!(
                state.axis == GGML_BACKEND_SPLIT_AXIS_MIRRORED || value == 0,
                "{caller}: a PARTIAL tensor can only be zeroed"
            );
            for &s in &slices {
                // SAFETY: every slice has the tensor's layout.
                unsafe { storage(caller, s).memset_tensor(caller, s, value, offset, size) };
            }
        }
        axis => fatal!("{caller}: cannot set a tensor with split axis {axis}"),
    }
}
