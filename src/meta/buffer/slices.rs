//! A meta tensor's slices: the simple tensor each device holds of it, made when the tensor is
//! placed (or again when a later graph's start cleared them), with its place in the device's
//! buffer, its strides and its sources' slices.

use super::state::{split_state, view_run};
use super::{is_meta_buffer, meta_buffer_of, TensorSet, META_BASE};
use crate::abi::*;
use crate::base::fallible::try_vec;
use crate::base::report::{refused, Refused};
use crate::handle::{Buffer, Tensor};
use crate::meta::{failed, split, Failure};

/// Device `j`'s slice of a tensor of a meta buffer, or the refusal when none was made.
pub fn slice_of(caller: &str, tensor: Tensor, j: usize) -> Result<Tensor, Refused> {
    let meta = meta_buffer_of(caller, tensor)?;
    let slice = meta.set_of(tensor).slices.with(|slices| slices.get(&tensor.addr()).and_then(|v| v.get(j).copied()));
    match slice {
        Some(slice) => Ok(slice),
        None => refused!("{caller}: tensor {} has no slice on device {j}", tensor.name()),
    }
}

/// Makes a tensor's slices again when a later graph's start cleared them (the views of static
/// tensors that a graph made, when it is computed again after other graphs); true if it did.
pub fn remake_lost_slices(caller: &str, tensor: Tensor) -> Result<bool, Failure> {
    let set = meta_buffer_of(caller, tensor)?.set_of(tensor);
    let lost = !set.holds(tensor);
    if lost {
        init_slices(caller, set, tensor)?;
    }
    Ok(lost)
}

/// Points each slice of `tensor` at its sources' current slices (after some were made again).
pub fn repoint_sources(caller: &str, tensor: Tensor) -> Result<(), Refused> {
    let n = meta_buffer_of(caller, tensor)?.n_devs();
    for (i, src) in tensor.srcs().iter().enumerate() {
        let Some(src) = *src else { continue };
        if src == tensor || !src.buffer().is_some_and(is_meta_buffer) {
            continue;
        }
        for j in 0..n {
            slice_of(caller, tensor, j)?.set_src(i, slice_of(caller, src, j)?);
        }
    }
    Ok(())
}

/// Makes the per-device slices of `tensor` in `set`.
pub(super) fn init_slices(caller: &str, set: &TensorSet, tensor: Tensor) -> Result<(), Failure> {
    let meta = meta_buffer_of(caller, tensor)?;
    let n = meta.n_devs();
    let state = split_state(caller, tensor, true)?;
    if tensor.nelements() != 0 && state.axis == GGML_BACKEND_SPLIT_AXIS_UNKNOWN {
        return failed!("{caller}: tensor {} has an unknown split", tensor.name());
    }
    let (tensor_ne, tensor_nb, view_offs) = (tensor.ne(), tensor.nb(), tensor.view_offs());
    let view_of_meta = tensor.view_src().filter(|v| v.buffer().is_some_and(is_meta_buffer));
    let run = view_run(caller, meta, tensor)?;
    let mut slices = try_vec(n)?;
    for (j, (simple_buf, &context)) in meta.parts().zip(&set.contexts).enumerate() {
        // (From plain ggml 0.3.36 only a slice placed in the simple buffer itself is refused.)
        let multi = simple_buf.is_some_and(crate::buffer::is_multi_buffer);
        if multi && !cfg!(meta_slice_init) {
            return failed!("{caller}: multi buffers are not supported by the meta backend");
        }
        let (ne, mut nb) = split::slice_layout(&state, &tensor_ne, &tensor_nb, n, j);
        // A view's run: the source slice's strides, and the device's exact place in it.
        let run_offs = match (&run, view_of_meta) {
            (Some(run), Some(root)) => {
                let (base_slice, root_slice) = (slice_of(caller, run.base, j)?, slice_of(caller, root, j)?);
                let base_nb = base_slice.nb();
                let mut offs = (base_slice.data() as usize).wrapping_sub(root_slice.data() as usize) + run.rest;
                for d in 0..GGML_MAX_DIMS {
                    if tensor_nb[d] == run.base.nb()[d] {
                        nb[d] = base_nb[d];
                    }
                    let index = if d == run.axis { run.parts[j].0 } else { run.at[d] };
                    offs += index as usize * base_nb[d];
                }
                Some(offs)
            }
            _ => None,
        };
        let slice = context.new_tensor(tensor.r#type(), &ne);
        slice.copy_op_from(tensor);
        slice.set_flags(tensor.flags());
        slice.set_nb(nb);
        slice.copy_name_from(tensor);
        let (mut slice_view_src, mut slice_view_offs) = (tensor.view_src(), view_offs);
        if let Some(view_src) = view_of_meta {
            slice_view_src = Some(slice_of(caller, view_src, j)?);
            if let Some(offs) = run_offs {
                slice_view_offs = offs;
            } else if view_offs > 0 && split::is_dim(state.axis) {
                let view_axis = split_state(caller, view_src, true)?.axis;
                slice_view_offs = scaled_view_offset(
                    caller,
                    tensor,
                    view_src,
                    view_axis,
                    state.axis as usize,
                    ne[state.axis as usize],
                )?;
            }
        }
        slice.set_view(slice_view_src, slice_view_offs);
        // The buffer that holds the slice: the simple buffer, or from plain ggml 0.3.36 for a view
        // of a meta tensor the source slice's own (which may be a part of the simple buffer).
        let mut holder = simple_buf;
        let data = match (slice_view_src, simple_buf) {
            (Some(v), _) => {
                if cfg!(meta_slice_init) && view_of_meta.is_some() && v.buffer().is_some() {
                    holder = v.buffer();
                }
                v.data().wrapping_byte_add(slice_view_offs)
            }
            (None, Some(_)) if multi => {
                return failed!("{caller}: multi buffers are not supported by the meta backend");
            }
            // The same offset into the simple buffer as into the meta buffer.
            (None, Some(b)) => {
                crate::buffer::base(caller, b)?.wrapping_byte_add((tensor.data() as usize).wrapping_sub(META_BASE))
            }
            (None, None) => slice.data(),
        };
        slice.set_buffer_ptr_and_data(holder.map_or(core::ptr::null_mut(), Buffer::as_ptr), data);
        match holder.filter(|_| cfg!(meta_slice_init)) {
            // The backend that owns the buffer sets the slice's extra (plain ggml 0.3.36).
            Some(buffer) => {
                let status = buffer.init_tensor(slice);
                if status != ggml_status::GGML_STATUS_SUCCESS {
                    return failed!(
                        "{caller}: the simple buffer could not initialise a slice of {} ({status:?})",
                        tensor.name()
                    );
                }
            }
            None => slice.set_extra(tensor.extra()),
        }
        for (i, src) in tensor.srcs().iter().enumerate() {
            match *src {
                None => {}
                Some(src) if src == tensor => slice.set_src(i, slice),
                Some(src) if src.buffer().is_some_and(is_meta_buffer) => slice.set_src(i, slice_of(caller, src, j)?),
                Some(src) => slice.set_src(i, src),
            }
        }
        slices.push(slice);
    }
    // A device whose share of a split source is empty computes nothing.
    for src in tensor.srcs().iter().flatten() {
        if !src.buffer().is_some_and(is_meta_buffer) {
            continue;
        }
        let src_state = split_state(caller, *src, true)?;
        if !split::is_dim(src_state.axis) {
            continue;
        }
        for (j, slice) in slices.iter().enumerate() {
            if split::share(&src_state, n, j) == 0 {
                slice.set_flags(slice.flags() & !GGML_TENSOR_FLAG_COMPUTE);
            }
        }
    }
    let key = tensor.addr();
    set.slices.with(|map| map.try_insert(key, slices))?;
    Ok(())
}

/// A view's offset into its source's slice: kept when it lies inside one step of the split
/// axis, else scaled to the slice's share.
fn scaled_view_offset(
    caller: &str,
    view: Tensor,
    view_src: Tensor,
    view_src_axis: i32,
    axis: usize,
    slice_extent: i64,
) -> Result<usize, Refused> {
    let (ne, nb, view_offs) = (view.ne(), view.nb(), view.view_offs());
    if ne[axis] == 0 {
        return refused!("{caller}: a view of extent 0 along its split axis");
    }
    if !split::is_dim(view_src_axis) {
        return refused!("{caller}: a view with an offset into a tensor that is not split by a dimension");
    }
    let internal = view_offs <= view_src.nb()[view_src_axis as usize]
        || (0..GGML_MAX_DIMS).any(|i| {
            let dim_size = ne[i] as usize * nb[i];
            view_offs <= dim_size && dim_size < nb[axis]
        });
    Ok(if internal { view_offs } else { (view_offs as i64 * slice_extent / ne[axis]) as usize })
}
