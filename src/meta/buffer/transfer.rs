//! Moving data between the caller and a meta tensor's slices: whole tensors or ranges, written,
//! read or set, through each slice's buffer or its device's backend.

use super::chunks::{chunks, Chunk};
use super::meta_buffer_of;
use super::slices::slice_of;
use super::state::split_state;
use crate::abi::*;
use crate::base::report::{refused, Refused};
use crate::handle::{Backend, Buffer, Tensor};
use crate::meta::split::{self, SplitState};
use alloc::format;
use alloc::vec;
use alloc::vec::Vec;
use core::ffi::c_void;

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
) -> Result<(), Refused> {
    for c in chunks {
        let Some(&slice) = slices.get(c.dev) else {
            return refused!("{caller}: a transfer to device {} of {}", c.dev, slices.len());
        };
        for r in 0..c.runs.count {
            let Some((tensor_start, data_start)) = c.runs.run_start(r) else {
                return refused!("{caller}: a run of tensor {} overflows", slice.name());
            };
            let (at, data_at, len) = (c.slice_offset + tensor_start, c.data_offset + data_start, c.runs.size);
            let backend = backends.and_then(|b| b.get(c.dev));
            // SAFETY: the run lies inside the slice and the caller's bytes (the caller's
            // promise); a backend without an asynchronous entry declines and the buffer does it.
            unsafe {
                let done = match (access, backend) {
                    (Access::Set(data), Some(b)) => b.set_tensor_async(slice, data.wrapping_byte_add(data_at), at, len),
                    (Access::Get(data), Some(b)) => b.get_tensor_async(slice, data.wrapping_byte_add(data_at), at, len),
                    _ => false,
                };
                if !done {
                    let buffer = storage(caller, slice)?;
                    match access {
                        Access::Set(data) => buffer.set_tensor(caller, slice, data.wrapping_byte_add(data_at), at, len),
                        Access::Get(data) => buffer.get_tensor(caller, slice, data.wrapping_byte_add(data_at), at, len),
                        Access::Memset(value) => buffer.memset_tensor(caller, slice, value, at, len),
                    }
                }
            }
        }
    }
    Ok(())
}

/// The slices of a tensor of a meta buffer (at least one).
fn slices(caller: &str, tensor: Tensor) -> Result<Vec<Tensor>, Refused> {
    let n = meta_buffer_of(caller, tensor)?.n_devs();
    if n == 0 {
        return refused!("{caller}: the meta device of tensor {} spans no devices", tensor.name());
    }
    (0..n).map(|j| slice_of(caller, tensor, j)).collect()
}

/// The chunks of a transfer, or the refusal with the reason.
pub fn plan(
    caller: &str,
    tensor: Tensor,
    state: &SplitState,
    slices: &[Tensor],
    offset: usize,
    size: usize,
) -> Result<Vec<Chunk>, Refused> {
    let slice_nb: Vec<[usize; 4]> = slices.iter().map(|s| s.nb()).collect();
    chunks(state, &tensor.ne(), &tensor.nb(), tensor.blck_size(), &slice_nb, offset, size)
        .map_err(|why| Refused(format!("{caller}: tensor {}: {why}", tensor.name())))
}

fn storage(caller: &str, slice: Tensor) -> Result<Buffer, Refused> {
    slice.storage_buffer().ok_or_else(|| Refused(format!("{caller}: slice->buffer is NULL")))
}

/// How a transfer treats the tensor: checks it can, and gives its state.
fn transfer_state(caller: &str, tensor: Tensor) -> Result<SplitState, Refused> {
    let state = split_state(caller, tensor, false)?;
    if !tensor.is_contiguous() && state.axis != GGML_BACKEND_SPLIT_AXIS_MIRRORED {
        return refused!("{caller}: tensor {} is neither contiguous nor MIRRORED", tensor.name());
    }
    Ok(state)
}

/// Does `access` to bytes `[offset, offset + size)` of a meta tensor where its split is along a
/// dimension or in segments (the bytes move in chunks), and gives None; else the tensor's state
/// and slices, for the caller to treat MIRRORED and PARTIAL tensors.
///
/// # Safety
/// The data pointer of `access` holds (or has room for) `size` bytes; the range lies inside the
/// tensor.
unsafe fn access_split(
    caller: &str,
    tensor: Tensor,
    access: Access,
    offset: usize,
    size: usize,
) -> Result<Option<(SplitState, Vec<Tensor>)>, Refused> {
    let state = transfer_state(caller, tensor)?;
    let slices = slices(caller, tensor)?;
    if !split::is_segmented(&state) && !split::is_dim(state.axis) {
        return Ok(Some((state, slices)));
    }
    let chunks = plan(caller, tensor, &state, &slices, offset, size)?;
    // SAFETY: the plan covers the range, inside the tensor and the caller's bytes (the caller's
    // promise).
    unsafe { access_chunks(caller, &chunks, &slices, access, None)? };
    Ok(None)
}

/// Writes `size` bytes at `data` into bytes `[offset, offset + size)` of a meta tensor.
///
/// # Safety
/// `data` holds `size` readable bytes; the range lies inside the tensor.
pub unsafe fn set_tensor(
    caller: &str,
    tensor: Tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) -> Result<(), Refused> {
    // SAFETY: the caller's promise.
    let Some((state, slices)) = (unsafe { access_split(caller, tensor, Access::Set(data), offset, size) })? else {
        return Ok(());
    };
    match state.axis {
        GGML_BACKEND_SPLIT_AXIS_MIRRORED => {
            for &s in &slices {
                // SAFETY: every slice has the tensor's layout.
                unsafe { storage(caller, s)?.set_tensor(caller, s, data, offset, size) };
            }
        }
        GGML_BACKEND_SPLIT_AXIS_PARTIAL => {
            if tensor.r#type() != 0 {
                return refused!("{caller}: a PARTIAL tensor must be F32");
            }
            if offset % 4 != 0 || size % 4 != 0 {
                return refused!("{caller}: a PARTIAL range must be whole floats");
            }
            // SAFETY: the caller's bytes, read as floats without alignment assumptions.
            let values: Vec<f32> =
                (0..size / 4).map(|i| unsafe { (data as *const f32).add(i).read_unaligned() }).collect();
            let n = slices.len();
            // From 0.7 the devices with a share (ne[j] != 0), when any has one, hold the sum;
            // 0.6 gives every device its part.
            let contributors = state.segment(n, 0).iter().filter(|&&part| part != 0).count();
            let masked = cfg!(meta_partial_contributors) && contributors != 0;
            let parts = if masked { contributors } else { n } as f32;
            let share: Vec<f32> = values.iter().map(|v| v / parts).collect();
            let zero = vec![0f32; values.len()];
            for (j, &s) in slices.iter().enumerate() {
                let part = if masked && state.ne[j] == 0 { &zero } else { &share };
                // SAFETY: `size` bytes of floats, the slice has the tensor's layout.
                unsafe { storage(caller, s)?.set_tensor(caller, s, part.as_ptr() as *const c_void, offset, size) };
            }
        }
        axis => return refused!("{caller}: cannot write a tensor with split axis {axis}"),
    }
    Ok(())
}

/// Reads bytes `[offset, offset + size)` of a meta tensor into `data`.
///
/// # Safety
/// `data` has room for `size` bytes; the range lies inside the tensor.
pub unsafe fn get_tensor(
    caller: &str,
    tensor: Tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) -> Result<(), Refused> {
    // SAFETY: the caller's promise.
    let Some((state, slices)) = (unsafe { access_split(caller, tensor, Access::Get(data), offset, size) })? else {
        return Ok(());
    };
    match (state.axis, slices.first()) {
        // Any device has all values; the first is asked.
        (GGML_BACKEND_SPLIT_AXIS_MIRRORED, Some(&first)) => {
            // SAFETY: the slice has the tensor's layout.
            unsafe { storage(caller, first)?.get_tensor(caller, first, data, offset, size) };
            Ok(())
        }
        (axis, _) => refused!("{caller}: cannot read a tensor with split axis {axis}"),
    }
}

/// Sets bytes `[offset, offset + size)` of a meta tensor to `value`.
///
/// # Safety
/// The range lies inside the tensor.
pub unsafe fn memset_tensor(
    caller: &str,
    tensor: Tensor,
    value: u8,
    offset: usize,
    size: usize,
) -> Result<(), Refused> {
    // SAFETY: the caller's promise.
    let Some((state, slices)) = (unsafe { access_split(caller, tensor, Access::Memset(value), offset, size) })? else {
        return Ok(());
    };
    match state.axis {
        GGML_BACKEND_SPLIT_AXIS_MIRRORED | GGML_BACKEND_SPLIT_AXIS_PARTIAL => {
            if state.axis == GGML_BACKEND_SPLIT_AXIS_PARTIAL && value != 0 {
                return refused!("{caller}: a PARTIAL tensor can only be zeroed");
            }
            for &s in &slices {
                // SAFETY: every slice has the tensor's layout.
                unsafe { storage(caller, s)?.memset_tensor(caller, s, value, offset, size) };
            }
            Ok(())
        }
        axis => refused!("{caller}: cannot set a tensor with split axis {axis}"),
    }
}
