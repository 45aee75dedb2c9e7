//! The split state of each tensor of a meta buffer: the application's for a static tensor, else
//! inferred from its sources' ([`crate::meta::split`]), cached while the tensor is described the
//! same, and logged with `GGML_META_DEBUG`.

use super::{is_meta_buffer, meta_buffer_of, MetaBuffer};
use crate::abi::*;
use crate::base::fallible::FallibleText;
use crate::base::report::{refused, Refused};
use crate::base::text::Lossy;
use crate::handle::Tensor;
use crate::meta::split::{self, Parts, SplitState};
use core::fmt::Write;

/// What inference needs of a tensor besides its split state.
fn shape(t: Tensor) -> split::Shape {
    split::Shape {
        op: t.op(),
        ne: t.ne(),
        nb: t.nb(),
        op_params: t.op_params(),
        n_dims: t.n_dims(),
        contiguous: t.is_contiguous(),
        permuted: t.is_permuted(),
    }
}

/// The split state of a tensor of a meta buffer: the application's for a static tensor, else
/// inferred from its sources'. `assume_sync`: PARTIAL sums count as reduced.
pub fn split_state(caller: &str, tensor: Tensor, assume_sync: bool) -> Result<SplitState, Refused> {
    let meta = meta_buffer_of(caller, tensor)?;
    let key = (tensor.addr(), assume_sync);
    let fp = tensor.fingerprint();
    let cached = meta.cache.with(|cache| cache.get(&key).copied());
    let state = match cached {
        Some((state, seen)) if seen == fp => state,
        stale => {
            if stale.is_some() {
                // Tensors derived from this one may be stale too.
                meta.cache.with(|cache| cache.clear());
            }
            let state = calculate(caller, meta, tensor, assume_sync)?;
            // Without room for it, the state is derived again when next asked for.
            let _ = meta.cache.with(|cache| cache.try_insert(key, (state, fp)));
            if meta.debug {
                log_split_state(caller, meta.n_devs(), tensor, &state)?;
            }
            state
        }
    };
    if state.axis == GGML_BACKEND_SPLIT_AXIS_NONE {
        return refused!("{caller}: tensor {} has split state NONE", tensor.name());
    }
    Ok(state)
}

/// `GGML_META_DEBUG` > 0: each newly derived split state goes to the debug log with its
/// sources' (the reference's format), written into one line as it goes (what the heap has no
/// room for is left out).
fn log_split_state(caller: &str, n_devs: usize, tensor: Tensor, state: &SplitState) -> Result<(), Refused> {
    let describe = |line: &mut FallibleText, t: Tensor, s: &SplitState| {
        let Some(axis) = split::axis_name(s.axis) else {
            return refused!("{caller}: split axis {} has no name", s.axis);
        };
        let _ = write!(line, "{}[{}, {}, {{", t.name(), t.op_name(), Lossy(axis.to_bytes()));
        // Each share with its repeat count (0.7, meta_nr; 0.6 has none), as the reference
        // prints one segment; several segments (which the reference cannot print: it aborts)
        // one after the other, separated by "; ".
        let n_segments = if split::is_dim(s.axis) { (s.n_segments as usize).clamp(1, s.nr.len()) } else { 1 };
        for seg in 0..n_segments {
            for j in 0..n_devs {
                let separator = if j > 0 {
                    ", "
                } else if seg > 0 {
                    "; "
                } else {
                    ""
                };
                let ne = s.part(n_devs, seg, j);
                let _ = if cfg!(meta_nr) {
                    write!(line, "{separator}{ne}x{}", s.nr[seg])
                } else {
                    write!(line, "{separator}{ne}")
                };
            }
        }
        let _ = line.write_str("}]");
        Ok(())
    };
    let mut line = FallibleText::default();
    let _ = line.write_str("{");
    for (i, &src) in tensor.srcs().iter().flatten().filter(|&&src| src != tensor).enumerate() {
        if i > 0 {
            let _ = line.write_str(", ");
        }
        describe(&mut line, src, &split_state(caller, src, true)?)?;
    }
    let _ = line.write_str("} -> ");
    describe(&mut line, tensor, state)?;
    crate::base::report::log_debug!("SPLIT_STATE: {}\n", line.0);
    Ok(())
}

fn calculate(caller: &str, meta: &MetaBuffer, tensor: Tensor, assume_sync: bool) -> Result<SplitState, Refused> {
    if tensor.nelements() == 0 {
        return Ok(split::whole(GGML_BACKEND_SPLIT_AXIS_UNKNOWN, 1));
    }
    let Some(buffer) = tensor.buffer() else {
        return refused!("{caller}: tensor->buffer is NULL");
    };
    if buffer.usage() != ggml_backend_buffer_usage::GGML_BACKEND_BUFFER_USAGE_COMPUTE && tensor.view_src().is_none() {
        let state = meta.device.static_split_state(caller, tensor)?;
        if let Err(why) = split::check_static(&state, &tensor.ne(), tensor.blck_size(), meta.n_devs()) {
            return refused!("{caller}: the split state of tensor {}: {why}", tensor.name());
        }
        return Ok(state);
    }
    if let Some(run) = view_run(caller, meta, tensor)? {
        return Ok(run.state);
    }
    let mut srcs: [split::Source; GGML_MAX_SRC] = [None; GGML_MAX_SRC];
    for (slot, src) in tensor.srcs().iter().enumerate() {
        let Some(src) = *src else { continue };
        if src == tensor {
            continue;
        }
        let state = split_state(caller, src, true)?;
        if state.axis == GGML_BACKEND_SPLIT_AXIS_UNKNOWN {
            return refused!("{caller}: source {} of {} has an unknown split", src.name(), tensor.name());
        }
        srcs[slot] = Some((shape(src), state));
    }
    match split::infer(&shape(tensor), &srcs, meta.n_devs(), assume_sync) {
        Ok(state) => Ok(state),
        Err(why) => refused!("{caller}: meta backend: tensor {} ({}): {why}", tensor.name(), tensor.op_name()),
    }
}

/// A VIEW of a run of its meta source's split axis, narrower than the axis: the source's
/// strides along every dimension the view has, inside the source's extents (the source's
/// dimensions in order, none overlapping the next). The source
/// is the view's own (a reshape of a weight, say), whose slices are views of the same tensor's.
pub(super) struct ViewRun {
    pub(super) base: Tensor,
    pub(super) axis: usize,
    /// Where the view starts in the source: the index along each dimension, and the bytes left
    /// below an element.
    pub(super) at: [i64; GGML_MAX_DIMS],
    pub(super) rest: usize,
    /// Each device's elements of the run: where they start in its slice, and how many.
    pub(super) parts: Parts,
    /// The view's split state along `axis`.
    pub(super) state: SplitState,
}

/// The view's run when `tensor` is such a view (None for any other tensor, and for a view of
/// the whole split axis, whose segments carry over). Each device's part of the run is computed
/// exactly: scaling the view's extent and offset to each device's share, as the reference does,
/// is right only where the view covers whole segments shared alike. A run that is neither one
/// run per device in device order nor whole segments (parts of several segments) is refused.
pub(super) fn view_run(caller: &str, meta: &MetaBuffer, tensor: Tensor) -> Result<Option<ViewRun>, Refused> {
    if tensor.op() != op::VIEW {
        return Ok(None);
    }
    let Some(base) = tensor.srcs()[0].filter(|b| b.buffer().is_some_and(is_meta_buffer)) else {
        return Ok(None);
    };
    // The view's offset is into the tensor whose view the source is (or the source itself).
    let base_offs = match base.view_src() {
        None if tensor.view_src() == Some(base) => 0,
        Some(root) if tensor.view_src() == Some(root) => base.view_offs(),
        _ => return Ok(None),
    };
    let base_state = split_state(caller, base, true)?;
    if !split::is_dim(base_state.axis) {
        return Ok(None);
    }
    let (ne, nb, base_ne, base_nb) = (tensor.ne(), tensor.nb(), base.ne(), base.nb());
    if !(0..GGML_MAX_DIMS).all(|d| ne[d] == 1 || nb[d] == base_nb[d]) {
        return Ok(None);
    }
    // The source's dimensions in order, each step past the one below (an offset has one index
    // per dimension then).
    let dims = (0..GGML_MAX_DIMS).filter(|&d| base_ne[d] != 1);
    if dims
        .clone()
        .zip(dims.clone().skip(1))
        .any(|(lo, hi)| base_nb[hi] < base_nb[lo].saturating_mul(base_ne[lo] as usize))
    {
        return Ok(None);
    }
    let mut at = [0i64; GGML_MAX_DIMS];
    let Some(mut rest) = tensor.view_offs().checked_sub(base_offs) else {
        return Ok(None);
    };
    for d in dims.rev() {
        if let Some(index) = rest.checked_div(base_nb[d]) {
            at[d] = index as i64;
            rest -= index * base_nb[d];
        }
    }
    if (0..GGML_MAX_DIMS).any(|d| at[d] + ne[d] > base_ne[d]) {
        return Ok(None);
    }
    let axis = base_state.axis as usize;
    let (start, end) = (at[axis], at[axis] + ne[axis]);
    if start == 0 && end == base_ne[axis] {
        return Ok(None);
    }
    let Some((parts, state)) = split::range_parts(&base_state, meta.n_devs(), start, end) else {
        return refused!(
            "{caller}: meta backend: tensor {} (VIEW): a view of indices {start} to {end} of {}'s split axis {axis} \
             takes parts of several segments (a view of part of one segment, or of whole segments, is supported)",
            tensor.name(),
            base.name()
        );
    };
    Ok(Some(ViewRun { base, axis, at, rest, parts, state }))
}
