//! The meta buffer: one simple buffer per simple device, and for every tensor placed in it one
//! simple tensor per device (its slice), kept in ggml contexts of the buffer. Tensor data moves
//! between the caller and the slices in chunks planned by [`chunks`].

use super::split::{self, SplitState};
use super::{MetaBufferType, MetaDevice};
use crate::abi::*;
use crate::base::report::{ensure, fatal, null_handle};
use crate::handle::{arg, Backend, Buffer, BufferType, Context, Fingerprint, Runs, Tensor};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use wsp_ggml_backend_macros::callback;

/// The base address a meta buffer reports: its tensors' addresses only serve as offsets into
/// the simple buffers (the reference's value; on 32-bit targets, where the reference's value
/// truncates to a NULL base, one that fits).
#[cfg(target_pointer_width = "64")]
const META_BASE: usize = 0x1000_0000_0000_0000;
#[cfg(target_pointer_width = "32")]
const META_BASE: usize = 0x1000_0000;
/// The data address of tensors allocated by [`alloc_ctx_tensors`] (the reference's value; on
/// 32-bit targets, as for [`META_BASE`]).
#[cfg(target_pointer_width = "64")]
const META_STATIC_DATA: usize = 0x2000_0000_0000_0000;
#[cfg(target_pointer_width = "32")]
const META_STATIC_DATA: usize = 0x2000_0000;
/// Views per static tensor that can be made between two graph computations.
const COMPUTE_HEADROOM: usize = 16;

/// Per-device slices of some meta tensors, with the ggml contexts that hold them.
struct TensorSet {
    contexts: Vec<Context>,
    slices: RefCell<HashMap<usize, Vec<Tensor>>>,
}

impl TensorSet {
    fn new(n_devs: usize, mem_size: usize) -> TensorSet {
        TensorSet {
            contexts: (0..n_devs).map(|_| Context::new(mem_size)).collect(),
            slices: RefCell::new(HashMap::new()),
        }
    }

    fn empty() -> TensorSet {
        TensorSet { contexts: Vec::new(), slices: RefCell::new(HashMap::new()) }
    }

    fn clear(&self) {
        let mut slices = self.slices.borrow_mut();
        for &ctx in &self.contexts {
            // SAFETY: the map, cleared with the contexts, is where the slices are found: a
            // meta backend clears a set only once its graphs over these slices are done.
            unsafe { ctx.reset() };
        }
        slices.clear();
    }
}

impl Drop for TensorSet {
    fn drop(&mut self) {
        for &ctx in &self.contexts {
            // SAFETY: the set made the context and owns it; the slices go with the set.
            unsafe { ctx.free() };
        }
    }
}

/// What a meta buffer keeps.
pub struct MetaBuffer {
    device: &'static MetaDevice,
    simple: RefCell<Vec<Option<Buffer>>>,
    /// Slices of the tensors of the context the buffer was made for (alloc_ctx_tensors).
    fixed: TensorSet,
    /// Slices of every other tensor (views, graph nodes), in two sets used in turn: a meta
    /// backend clears the idle one when it starts a new graph, so that views made for one graph
    /// stay valid while the next is allocated.
    compute: [TensorSet; 2],
    compute_index: Cell<usize>,
    compute_index_next: Cell<usize>,
    cache: RefCell<HashMap<(usize, bool), (SplitState, Fingerprint)>>,
    /// WSP_GGML_META_DEBUG > 0 when the buffer was made: split states are logged.
    debug: bool,
}

impl MetaBuffer {
    pub fn n_devs(&self) -> usize {
        self.device.simple.len()
    }

    fn set_of(&self, tensor: Tensor) -> &TensorSet {
        if self.fixed.slices.borrow().contains_key(&tensor.addr()) {
            &self.fixed
        } else {
            &self.compute[self.compute_index.get()]
        }
    }

    /// Clears the idle set of slices, to be used from the next tensor placed in the buffer.
    pub fn rotate_compute_sets(&self) {
        let next = self.compute_index.get() ^ 1;
        self.compute_index_next.set(next);
        self.compute[next].clear();
    }
}

pub fn is_meta_buffer(buffer: Buffer) -> bool {
    buffer.is_freed_by(buffer_free)
}

/// The context of a meta buffer, or an abort naming the caller.
pub fn meta_buffer<'a>(caller: &str, buffer: Buffer) -> &'a MetaBuffer {
    ensure!(is_meta_buffer(buffer), "{caller}: buffer is not a meta buffer");
    // SAFETY: a meta buffer's context is the MetaBuffer boxed by new_meta_buffer, released in
    // buffer_free; the buffer is live, so the context is too.
    unsafe { &*(buffer.context() as *const MetaBuffer) }
}

fn meta_buffer_of<'a>(caller: &str, tensor: Tensor) -> &'a MetaBuffer {
    let buffer = tensor.buffer().unwrap_or_else(|| null_handle(caller, "tensor->buffer"));
    meta_buffer(caller, buffer)
}

/// Device `j`'s slice of a tensor of a meta buffer; None when none was made.
pub fn simple_tensor(caller: &str, tensor: Tensor, j: usize) -> Option<Tensor> {
    let meta = meta_buffer_of(caller, tensor);
    ensure!(j < meta.n_devs(), "{caller}: device index {j} out of range");
    meta.set_of(tensor).slices.borrow().get(&tensor.addr()).map(|v| v[j])
}

/// Makes a tensor's slices again when a later graph's start cleared them (the views of static
/// tensors that a graph made, when it is computed again after other graphs); true if it did.
pub fn remake_lost_slices(caller: &str, tensor: Tensor) -> bool {
    let meta = meta_buffer_of(caller, tensor);
    let set = meta.set_of(tensor);
    let lost = !set.slices.borrow().contains_key(&tensor.addr());
    if lost {
        init_slices(caller, set, tensor);
    }
    lost
}

/// Points each slice of `tensor` at its sources' current slices (after some were made again).
pub fn repoint_sources(caller: &str, tensor: Tensor) {
    let n = meta_buffer_of(caller, tensor).n_devs();
    for (i, src) in tensor.srcs().iter().enumerate() {
        let Some(src) = *src else { continue };
        if src == tensor || !src.buffer().is_some_and(is_meta_buffer) {
            continue;
        }
        for j in 0..n {
            simple_tensor_or_abort(caller, tensor, j).set_src(i, simple_tensor_or_abort(caller, src, j));
        }
    }
}

fn simple_tensor_or_abort(caller: &str, tensor: Tensor, j: usize) -> Tensor {
    simple_tensor(caller, tensor, j)
        .unwrap_or_else(|| fatal!("{caller}: tensor {} has no slice on device {j}", tensor.name()))
}

fn new_meta_buffer(
    buft: BufferType,
    device: &'static MetaDevice,
    fixed: TensorSet,
    compute_mem: usize,
    simple: Vec<Option<Buffer>>,
    size: usize,
) -> Buffer {
    let n = device.simple.len();
    let context = MetaBuffer {
        device,
        simple: RefCell::new(simple),
        fixed,
        compute: [TensorSet::new(n, compute_mem), TensorSet::new(n, compute_mem)],
        compute_index: Cell::new(0),
        compute_index_next: Cell::new(0),
        cache: RefCell::new(HashMap::new()),
        debug: env_int("WSP_GGML_META_DEBUG") > 0,
    };
    crate::buffer::new_buffer(Some(buft), BUFFER_IFACE, Box::into_raw(Box::new(context)) as *mut c_void, size)
}

fn device_of(caller: &str, buft: BufferType) -> &'static MetaDevice {
    let device = buft.device().unwrap_or_else(|| null_handle(caller, "buft->device"));
    super::meta_device(caller, device)
}

/// A meta buffer with a simple buffer of `size` bytes on every device (the simple buffers'
/// largest size is the meta buffer's).
pub fn alloc_buffer(caller: &str, buft: BufferType, meta_buft: &MetaBufferType, size: usize) -> Buffer {
    let compute_mem = 1024 * 1024 * crate::base::ggml::tensor_overhead();
    let simple: Vec<Option<Buffer>> = meta_buft
        .simple
        .iter()
        .map(|&b| {
            Some(
                crate::buffer::alloc_buffer(caller, b, size)
                    .unwrap_or_else(|| fatal!("{caller}: a simple buffer allocation failed")),
            )
        })
        .collect();
    let max = simple.iter().flatten().map(|b| b.size()).max().unwrap_or(0);
    new_meta_buffer(buft, device_of(caller, buft), TensorSet::empty(), compute_mem, simple, max)
}

/// Allocates every tensor of `ctx` (none of them allocated yet) in a new meta buffer of
/// `buft`: each gets its slices, and the slices of each device are allocated together by
/// ggml-alloc in that device's buffer type.
pub fn alloc_ctx_tensors(caller: &str, ctx: Context, buft: BufferType) -> Buffer {
    let meta_buft = super::meta_buffer_type(caller, buft);
    let n = meta_buft.simple.len();
    let ctx_size = ctx.mem_size();
    let fixed = TensorSet::new(n, ctx_size);
    let buffer = new_meta_buffer(buft, device_of(caller, buft), fixed, COMPUTE_HEADROOM * ctx_size, vec![None; n], 0);
    let meta = meta_buffer(caller, buffer);
    for t in ctx.tensors() {
        t.set_buffer_ptr_and_data(buffer.as_ptr(), t.data());
        init_slices(caller, &meta.fixed, t);
        // Placed after its slices are made, as the reference does (the cached split states of
        // the tensor are then stale, and derived again when next asked for).
        t.set_buffer_ptr_and_data(buffer.as_ptr(), META_STATIC_DATA as *mut c_void);
    }
    let mut size = 0;
    for (j, &simple_buft) in meta_buft.simple.iter().enumerate() {
        let ctx_j = meta.fixed.contexts[j];
        let slices = ctx_j.tensors();
        let part = if slices.iter().any(|t| t.nelements() != 0) {
            crate::buffer::alloc_ctx_tensors(ctx_j, simple_buft)
        } else {
            // Only empty slices: ggml-alloc would give NULL, so they get an empty buffer.
            let part = crate::buffer::alloc_buffer(caller, simple_buft, 0);
            if let Some(part) = part {
                slices.iter().for_each(|t| t.set_buffer_ptr_and_data(part.as_ptr(), t.data()));
            }
            part
        };
        let part = part.unwrap_or_else(|| fatal!("{caller}: allocating device {j}'s part of the context failed"));
        size = size.max(part.size());
        meta.simple.borrow_mut()[j] = Some(part);
    }
    buffer.set_size(size);
    buffer
}

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
pub fn split_state(caller: &str, tensor: Tensor, assume_sync: bool) -> SplitState {
    let meta = meta_buffer_of(caller, tensor);
    let key = (tensor.addr(), assume_sync);
    let fp = tensor.fingerprint();
    let cached = meta.cache.borrow().get(&key).copied();
    let state = match cached {
        Some((state, seen)) if seen == fp => state,
        stale => {
            if stale.is_some() {
                // Tensors derived from this one may be stale too.
                meta.cache.borrow_mut().clear();
            }
            let state = calculate(caller, meta, tensor, assume_sync);
            meta.cache.borrow_mut().insert(key, (state, fp));
            if meta.debug {
                log_split_state(caller, meta.n_devs(), tensor, &state);
            }
            state
        }
    };
    ensure!(state.axis != WSP_GGML_BACKEND_SPLIT_AXIS_NONE, "{caller}: tensor {} has split state NONE", tensor.name());
    state
}

/// `WSP_GGML_META_DEBUG` > 0: each newly derived split state goes to the debug log with its
/// sources' (the reference's format).
fn log_split_state(caller: &str, n_devs: usize, tensor: Tensor, state: &SplitState) {
    let describe = |t: Tensor, s: &SplitState| {
        let axis = split::axis_name(s.axis)
            .map_or_else(|| fatal!("{caller}: split axis {} has no name", s.axis), |n| n.to_string_lossy());
        // Each share with its repeat count (0.7, meta_nr; 0.6 has none), as the reference
        // prints one segment; several segments (which the reference cannot print: it aborts)
        // one after the other, separated by "; ".
        let n_segments = if split::is_dim(s.axis) { (s.n_segments as usize).clamp(1, s.nr.len()) } else { 1 };
        let segments: Vec<String> = (0..n_segments)
            .map(|seg| {
                let shares: Vec<String> = (0..n_devs)
                    .map(|j| {
                        let ne = s.ne[seg * n_devs + j];
                        if cfg!(meta_nr) {
                            format!("{ne}x{}", s.nr[seg])
                        } else {
                            ne.to_string()
                        }
                    })
                    .collect();
                shares.join(", ")
            })
            .collect();
        format!("{}[{}, {axis}, {{{}}}]", t.name(), t.op_name(), segments.join("; "))
    };
    let srcs: Vec<String> = tensor
        .srcs()
        .iter()
        .flatten()
        .filter(|&&src| src != tensor)
        .map(|&src| describe(src, &split_state(caller, src, true)))
        .collect();
    crate::base::report::log_debug!("SPLIT_STATE: {{{}}} -> {}\n", srcs.join(", "), describe(tensor, state));
}

/// The leading integer of an environment variable, as C's atoi reads it (0 when unset).
fn env_int(name: &str) -> i64 {
    let value = std::env::var(name).unwrap_or_default();
    let text = value.trim_start();
    let (sign, digits) = match text.as_bytes().first() {
        Some(b'-') => (-1, &text[1..]),
        Some(b'+') => (1, &text[1..]),
        _ => (1, text),
    };
    let end = digits.bytes().position(|c| !c.is_ascii_digit()).unwrap_or(digits.len());
    sign * digits[..end].parse::<i64>().unwrap_or(0)
}

fn calculate(caller: &str, meta: &MetaBuffer, tensor: Tensor, assume_sync: bool) -> SplitState {
    if tensor.nelements() == 0 {
        return split::whole(WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN, 1);
    }
    let buffer = tensor.buffer().unwrap_or_else(|| null_handle(caller, "tensor->buffer"));
    if buffer.usage() != wsp_ggml_backend_buffer_usage::WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE
        && tensor.view_src().is_none()
    {
        let state = meta.device.static_split_state(caller, tensor);
        if let Err(why) = split::check_static(&state, &tensor.ne(), tensor.blck_size(), meta.n_devs()) {
            fatal!("{caller}: the split state of tensor {}: {why}", tensor.name());
        }
        return state;
    }
    if let Some(run) = view_run(caller, meta, tensor) {
        return run.state;
    }
    let mut srcs: [split::Source; WSP_GGML_MAX_SRC] = [None; WSP_GGML_MAX_SRC];
    for (slot, src) in tensor.srcs().iter().enumerate() {
        let Some(src) = *src else { continue };
        if src == tensor {
            continue;
        }
        let state = split_state(caller, src, true);
        ensure!(
            state.axis != WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN,
            "{caller}: source {} of {} has an unknown split",
            src.name(),
            tensor.name()
        );
        srcs[slot] = Some((shape(src), state));
    }
    split::infer(&shape(tensor), &srcs, meta.n_devs(), assume_sync)
        .unwrap_or_else(|why| fatal!("{caller}: meta backend: tensor {} ({}): {why}", tensor.name(), tensor.op_name()))
}

/// A VIEW of a run of its meta source's split axis, narrower than the axis: the source's
/// strides along every dimension the view has, inside the source's extents (the source's
/// dimensions in order, none overlapping the next). The source
/// is the view's own (a reshape of a weight, say), whose slices are views of the same tensor's.
struct ViewRun {
    base: Tensor,
    axis: usize,
    /// Where the view starts in the source: the index along each dimension, and the bytes left
    /// below an element.
    at: [i64; WSP_GGML_MAX_DIMS],
    rest: usize,
    /// Each device's elements of the run: where they start in its slice, and how many.
    parts: Vec<(i64, i64)>,
    /// The view's split state along `axis`.
    state: SplitState,
}

/// The view's run when `tensor` is such a view (None for any other tensor, and for a view of
/// the whole split axis, whose segments carry over). Each device's part of the run is computed
/// exactly: scaling the view's extent and offset to each device's share, as the reference does,
/// is right only where the view covers whole segments shared alike. A run that is neither one
/// run per device in device order nor whole segments (parts of several segments) is refused.
fn view_run(caller: &str, meta: &MetaBuffer, tensor: Tensor) -> Option<ViewRun> {
    if tensor.op() != op::VIEW {
        return None;
    }
    let base = tensor.srcs()[0].filter(|b| b.buffer().is_some_and(is_meta_buffer))?;
    // The view's offset is into the tensor whose view the source is (or the source itself).
    let base_offs = match base.view_src() {
        None if tensor.view_src() == Some(base) => 0,
        Some(root) if tensor.view_src() == Some(root) => base.view_offs(),
        _ => return None,
    };
    let base_state = split_state(caller, base, true);
    if !split::is_dim(base_state.axis) {
        return None;
    }
    let (ne, nb, base_ne, base_nb) = (tensor.ne(), tensor.nb(), base.ne(), base.nb());
    if !(0..WSP_GGML_MAX_DIMS).all(|d| ne[d] == 1 || nb[d] == base_nb[d]) {
        return None;
    }
    // The source's dimensions in order, each step past the one below (an offset has one index
    // per dimension then).
    let dims: Vec<usize> = (0..WSP_GGML_MAX_DIMS).filter(|&d| base_ne[d] != 1).collect();
    if dims.windows(2).any(|w| base_nb[w[1]] < base_nb[w[0]].saturating_mul(base_ne[w[0]] as usize)) {
        return None;
    }
    let mut at = [0i64; WSP_GGML_MAX_DIMS];
    let mut rest = tensor.view_offs().checked_sub(base_offs)?;
    for &d in dims.iter().rev() {
        if let Some(index) = rest.checked_div(base_nb[d]) {
            at[d] = index as i64;
            rest -= index * base_nb[d];
        }
    }
    if (0..WSP_GGML_MAX_DIMS).any(|d| at[d] + ne[d] > base_ne[d]) {
        return None;
    }
    let axis = base_state.axis as usize;
    let (start, end) = (at[axis], at[axis] + ne[axis]);
    if start == 0 && end == base_ne[axis] {
        return None;
    }
    let (parts, state) = split::range_parts(&base_state, meta.n_devs(), start, end).unwrap_or_else(|| {
        fatal!(
            "{caller}: meta backend: tensor {} (VIEW): a view of indices {start} to {end} of {}'s split axis {axis} \
             takes parts of several segments (a view of part of one segment, or of whole segments, is supported)",
            tensor.name(),
            base.name()
        )
    });
    Some(ViewRun { base, axis, at, rest, parts, state })
}

/// Makes the per-device slices of `tensor` in `set`.
fn init_slices(caller: &str, set: &TensorSet, tensor: Tensor) {
    let meta = meta_buffer_of(caller, tensor);
    let n = meta.n_devs();
    let state = split_state(caller, tensor, true);
    ensure!(
        tensor.nelements() == 0 || state.axis != WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN,
        "{caller}: tensor {} has an unknown split",
        tensor.name()
    );
    let (tensor_ne, tensor_nb, view_offs) = (tensor.ne(), tensor.nb(), tensor.view_offs());
    let simple_bufs = meta.simple.borrow().clone();
    let view_of_meta = tensor.view_src().filter(|v| v.buffer().is_some_and(is_meta_buffer));
    let run = view_run(caller, meta, tensor);
    let mut slices = Vec::with_capacity(n);
    for (j, &simple_buf) in simple_bufs.iter().enumerate() {
        if simple_buf.is_some_and(crate::buffer::is_multi_buffer) {
            fatal!("{caller}: multi buffers are not supported by the meta backend");
        }
        let (ne, mut nb) = split::slice_layout(&state, &tensor_ne, &tensor_nb, n, j);
        // A view's run: the source slice's strides, and the device's exact place in it.
        let run_offs = run.as_ref().zip(view_of_meta).map(|(run, root)| {
            let (base_slice, root_slice) =
                (simple_tensor_or_abort(caller, run.base, j), simple_tensor_or_abort(caller, root, j));
            let base_nb = base_slice.nb();
            let mut offs = (base_slice.data() as usize).wrapping_sub(root_slice.data() as usize) + run.rest;
            for d in 0..WSP_GGML_MAX_DIMS {
                if tensor_nb[d] == run.base.nb()[d] {
                    nb[d] = base_nb[d];
                }
                let index = if d == run.axis { run.parts[j].0 } else { run.at[d] };
                offs += index as usize * base_nb[d];
            }
            offs
        });
        let slice = set.contexts[j].new_tensor(tensor.r#type(), &ne);
        slice.copy_op_from(tensor);
        slice.set_flags(tensor.flags());
        slice.set_nb(nb);
        slice.copy_name_from(tensor);
        let (mut slice_view_src, mut slice_view_offs) = (tensor.view_src(), view_offs);
        if let Some(view_src) = view_of_meta {
            slice_view_src = Some(simple_tensor_or_abort(caller, view_src, j));
            if let Some(offs) = run_offs {
                slice_view_offs = offs;
            } else if view_offs > 0 && split::is_dim(state.axis) {
                let view_axis = split_state(caller, view_src, true).axis;
                slice_view_offs = scaled_view_offset(
                    caller,
                    tensor,
                    view_src,
                    view_axis,
                    state.axis as usize,
                    ne[state.axis as usize],
                );
            }
        }
        slice.set_view(slice_view_src, slice_view_offs);
        let data = match (slice_view_src, simple_buf) {
            (Some(v), _) => v.data().wrapping_byte_add(slice_view_offs),
            // The same offset into the simple buffer as into the meta buffer.
            (None, Some(b)) => {
                crate::buffer::base(caller, b).wrapping_byte_add((tensor.data() as usize).wrapping_sub(META_BASE))
            }
            (None, None) => slice.data(),
        };
        slice.set_buffer_ptr_and_data(simple_buf.map_or(std::ptr::null_mut(), Buffer::as_ptr), data);
        slice.set_extra(tensor.extra());
        for (i, src) in tensor.srcs().iter().enumerate() {
            match *src {
                None => {}
                Some(src) if src == tensor => slice.set_src(i, slice),
                Some(src) if src.buffer().is_some_and(is_meta_buffer) => {
                    slice.set_src(i, simple_tensor_or_abort(caller, src, j))
                }
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
        let src_state = split_state(caller, *src, true);
        if !split::is_dim(src_state.axis) {
            continue;
        }
        for (j, slice) in slices.iter().enumerate() {
            if split::share(&src_state, n, j) == 0 {
                slice.set_flags(slice.flags() & !WSP_GGML_TENSOR_FLAG_COMPUTE);
            }
        }
    }
    set.slices.borrow_mut().insert(tensor.addr(), slices);
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
) -> usize {
    let (ne, nb, view_offs) = (view.ne(), view.nb(), view.view_offs());
    ensure!(ne[axis] != 0, "{caller}: a view of extent 0 along its split axis");
    ensure!(
        split::is_dim(view_src_axis),
        "{caller}: a view with an offset into a tensor that is not split by a dimension"
    );
    let internal = view_offs <= view_src.nb()[view_src_axis as usize]
        || (0..WSP_GGML_MAX_DIMS).any(|i| {
            let dim_size = ne[i] as usize * nb[i];
            view_offs <= dim_size && dim_size < nb[axis]
        });
    if internal {
        view_offs
    } else {
        (view_offs as i64 * slice_extent / ne[axis]) as usize
    }
}

// ---------------------------------------------------------------------------------------------
// Data transfer between a meta tensor's bytes and its slices
// ---------------------------------------------------------------------------------------------

/// Runs of device `dev`'s slice: run r is at `slice_offset` plus the run's tensor start in the
/// slice, and at `data_offset` plus its data start in the caller's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub dev: usize,
    pub slice_offset: usize,
    pub data_offset: usize,
    pub runs: Runs,
}

impl Chunk {
    /// One run of `size` bytes at `slice_offset` in the slice and `data_offset` in the bytes.
    pub fn whole(dev: usize, slice_offset: usize, data_offset: usize, size: usize) -> Chunk {
        Chunk { dev, slice_offset, data_offset, runs: Runs { size, count: 1, stride_tensor: 0, stride_data: 0 } }
    }
}

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

/// How bytes `[offset, offset + size)` of a contiguous tensor (extents `ne`, strides `nb`,
/// block size `blck`) split along a dimension map onto its slices, whose strides are
/// `slice_nb[j]`.
pub fn chunks(
    state: &SplitState,
    ne: &[i64; 4],
    nb: &[usize; 4],
    blck: i64,
    slice_nb: &[[usize; 4]],
    offset: usize,
    size: usize,
) -> Result<Vec<Chunk>, String> {
    let n = slice_nb.len();
    let axis = state.axis as usize;
    let mut out = Vec::new();
    if split::is_segmented(state) {
        // A contiguous tensor: a "row" is one step of every dimension above the split axis (all
        // of the tensor for axis 3), and each row holds the segments in turn.
        if axis > 3 || state.nr[0] == 0 {
            return Err(format!("segmented or repeated split along axis {axis}"));
        }
        let row_stride = if axis < 3 { nb[axis + 1] } else { nb[3] * ne[3] as usize };
        let total_rows: i64 = ne[axis + 1..].iter().product();
        if row_stride == 0 || offset % row_stride != 0 || size % row_stride != 0 {
            return Err("the range is not whole rows".into());
        }
        let (row_start, rows) = (offset / row_stride, size / row_stride);
        if (row_start + rows) as i64 > total_rows {
            return Err("the range goes past the tensor".into());
        }
        let mut slice_offsets = vec![0usize; n];
        let mut data_offset = 0;
        for s in 0..state.n_segments as usize {
            for _ in 0..state.nr[s] {
                for j in 0..n {
                    let ne_sj = state.ne[s * n + j];
                    let bytes = if axis == 0 {
                        if ne_sj % blck != 0 {
                            return Err("a share is not a whole number of blocks".into());
                        }
                        (ne_sj / blck) as usize * nb[0]
                    } else {
                        ne_sj as usize * nb[axis]
                    };
                    // (axis 3: one row, no stride)
                    let slice_stride = if axis < 3 { slice_nb[j][axis + 1] } else { 0 };
                    // A device without a share of the segment moves nothing (its slice may be
                    // empty, in a buffer that cannot be written).
                    if bytes > 0 {
                        out.push(Chunk {
                            dev: j,
                            slice_offset: slice_offsets[j] + row_start * slice_stride,
                            data_offset,
                            runs: Runs {
                                size: bytes,
                                count: rows,
                                stride_tensor: slice_stride,
                                stride_data: row_stride,
                            },
                        });
                    }
                    data_offset += bytes;
                    slice_offsets[j] += bytes;
                }
            }
        }
        if data_offset * rows != size {
            return Err("the segments do not cover the rows".into());
        }
        return Ok(out);
    }
    if axis > 2 {
        return Err(format!("transfers of tensors split along axis {axis}"));
    }
    let full = nb[axis + 1];
    if full == 0 || offset % full != 0 || size % full != 0 {
        return Err("the range is not whole steps of the split axis".into());
    }
    let (i_start, i_stop) = (offset / full, (offset + size) / full);
    let mut data_offset = 0;
    for (j, snb) in slice_nb.iter().enumerate() {
        let part = snb[axis + 1];
        if part == 0 {
            continue;
        }
        out.push(Chunk {
            dev: j,
            slice_offset: i_start * part,
            data_offset,
            runs: Runs { size: part, count: i_stop - i_start, stride_tensor: part, stride_data: full },
        });
        data_offset += part;
    }
    if data_offset != full {
        return Err("the slices do not add up to the tensor".into());
    }
    Ok(out)
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
        tensor.is_contiguous() || state.axis == WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED,
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
        WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED => {
            for &s in &slices {
                // SAFETY: every slice has the tensor's layout.
                unsafe { storage(caller, s).set_tensor(caller, s, data, offset, size) };
            }
        }
        WSP_GGML_BACKEND_SPLIT_AXIS_PARTIAL => {
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
        WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED => unsafe {
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
        WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED | WSP_GGML_BACKEND_SPLIT_AXIS_PARTIAL => {
            ensure!(
                state.axis == WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED || value == 0,
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

// ---------------------------------------------------------------------------------------------
// The buffer interface, called by the backend layer or ggml with the meta buffer and, for tensor
// access, a tensor of it and a range checked by the caller.
// ---------------------------------------------------------------------------------------------

#[callback(wsp_ggml_backend_buffer_free)]
unsafe extern "C" fn buffer_free(buffer: wsp_ggml_backend_buffer_t) {
    let meta: *const MetaBuffer = meta_buffer(FN, arg!(buffer));
    // SAFETY: the context boxed by new_meta_buffer, released once, here, as its buffer goes.
    let context = unsafe { Box::from_raw(meta.cast_mut()) };
    for part in context.simple.borrow().iter().flatten() {
        // SAFETY: the meta buffer owned its parts, and is going away.
        unsafe { crate::buffer::free_buffer(*part) };
    }
}

#[callback(wsp_ggml_backend_buffer_get_base)]
unsafe extern "C" fn buffer_get_base(_: wsp_ggml_backend_buffer_t) -> *mut c_void {
    META_BASE as *mut c_void
}

#[callback(wsp_ggml_backend_tensor_alloc)]
unsafe extern "C" fn buffer_init_tensor(
    buffer: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
) -> wsp_ggml_status {
    let (meta, tensor) = (meta_buffer(FN, arg!(buffer)), arg!(tensor));
    meta.compute_index.set(meta.compute_index_next.get());
    init_slices(FN, meta.set_of(tensor), tensor);
    wsp_ggml_status::WSP_GGML_STATUS_SUCCESS
}

#[callback(wsp_ggml_backend_tensor_memset)]
unsafe extern "C" fn buffer_memset_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
    value: u8,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the backend layer checked that the range lies inside the tensor.
    unsafe { memset_tensor(FN, tensor, value, offset, size) }
}

#[callback(wsp_ggml_backend_tensor_set)]
unsafe extern "C" fn buffer_set_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the backend layer checked the range against the tensor; `data` holds `size`
    // bytes (the API's contract).
    unsafe { set_tensor(FN, tensor, data, offset, size) }
}

#[callback(wsp_ggml_backend_tensor_get)]
unsafe extern "C" fn buffer_get_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *const wsp_ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the backend layer checked the range against the tensor; `data` has room for
    // `size` bytes (the API's contract).
    unsafe { get_tensor(FN, tensor, data, offset, size) }
}

#[callback(wsp_ggml_backend_buffer_clear)]
unsafe extern "C" fn buffer_clear(buffer: wsp_ggml_backend_buffer_t, value: u8) {
    for part in meta_buffer(FN, arg!(buffer)).simple.borrow().iter() {
        let part = part.unwrap_or_else(|| null_handle(FN, "simple buffer"));
        crate::buffer::clear(FN, part, value);
    }
}

#[callback(wsp_ggml_backend_buffer_reset)]
unsafe extern "C" fn buffer_reset(buffer: wsp_ggml_backend_buffer_t) {
    for part in meta_buffer(FN, arg!(buffer)).simple.borrow().iter().flatten() {
        part.reset();
    }
}

const BUFFER_IFACE: wsp_ggml_backend_buffer_i = wsp_ggml_backend_buffer_i {
    free_buffer: Some(buffer_free),
    get_base: Some(buffer_get_base),
    init_tensor: Some(buffer_init_tensor),
    memset_tensor: Some(buffer_memset_tensor),
    set_tensor: Some(buffer_set_tensor),
    get_tensor: Some(buffer_get_tensor),
    clear: Some(buffer_clear),
    reset: Some(buffer_reset),
    ..wsp_ggml_backend_buffer_i::NONE
};

#[cfg(test)]
mod tests {
    use super::*;

    fn split(axis: i32, shares: &[i64]) -> SplitState {
        let mut state = split::whole(axis, 1);
        state.ne[..shares.len()].copy_from_slice(shares);
        state
    }

    #[test]
    fn the_debug_variable_reads_as_atoi_would() {
        for (value, expected) in [("1", 1), (" 2x", 2), ("-3", -3), ("yes", 0), ("", 0)] {
            std::env::set_var("WSP_META_TEST_ENV_INT", value);
            assert_eq!(env_int("WSP_META_TEST_ENV_INT"), expected, "{value:?}");
        }
    }

    #[test]
    fn rows_split_along_axis_1_are_one_run_per_device() {
        // 8x6 f32 split 4/2 rows: device 0 takes bytes [0, 128), device 1 [128, 192).
        let state = split(1, &[4, 2]);
        let c = chunks(&state, &[8, 6, 1, 1], &[4, 32, 192, 192], 1, &[[4, 32, 128, 128], [4, 32, 64, 64]], 0, 192)
            .unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!((c[0].dev, c[0].slice_offset, c[0].data_offset, c[0].runs.size, c[0].runs.count), (0, 0, 0, 128, 1));
        assert_eq!(
            (c[1].dev, c[1].slice_offset, c[1].data_offset, c[1].runs.size, c[1].runs.count),
            (1, 0, 128, 64, 1)
        );
    }

    #[test]
    fn columns_split_along_axis_0_interleave_row_by_row() {
        // 6x2 f32 split 4/2 columns: each row gives 16 bytes to device 0 and 8 to device 1.
        let state = split(0, &[4, 2]);
        let c = chunks(&state, &[6, 2, 1, 1], &[4, 24, 48, 48], 1, &[[4, 16, 32, 32], [4, 8, 16, 16]], 0, 48).unwrap();
        let runs = |size, stride_tensor| Runs { size, count: 2, stride_tensor, stride_data: 24 };
        assert_eq!(c[0], Chunk { dev: 0, slice_offset: 0, data_offset: 0, runs: runs(16, 16) });
        assert_eq!(c[1], Chunk { dev: 1, slice_offset: 0, data_offset: 16, runs: runs(8, 8) });
    }

    #[test]
    fn segments_repeat_their_per_device_parts() {
        // A fused 2-segment split along axis 1 of an 2x6 tensor: segment 0 (1+1 rows) once,
        // segment 1 (1+1 rows) twice; devices get rows in the order d0 d1 d0 d1 d0 d1.
        let mut state = split(1, &[1, 1, 1, 1]);
        state.n_segments = 2;
        state.nr[1] = 2;
        let c = chunks(&state, &[2, 6, 1, 1], &[4, 8, 48, 48], 1, &[[4, 8, 24, 24], [4, 8, 24, 24]], 0, 48).unwrap();
        let layout: Vec<_> = c.iter().map(|c| (c.dev, c.slice_offset, c.data_offset)).collect();
        assert_eq!(layout, [(0, 0, 0), (1, 0, 8), (0, 8, 16), (1, 8, 24), (0, 16, 32), (1, 16, 40)]);
    }

    #[test]
    fn segments_along_an_outer_axis_move_as_blocks_of_every_row() {
        // [2, 2, 6, 2] f32 in 3 segments along axis 2 (1 + 1 each): per step of axis 3, device
        // 0 and 1 take 16 bytes in turn, three times; each slice holds 3 x 16 bytes per step.
        let mut state = split(2, &[1, 1, 1, 1, 1, 1]);
        state.n_segments = 3;
        state.nr[..3].fill(1);
        let slice_nb = [[4, 8, 16, 48]; 2];
        let c = chunks(&state, &[2, 2, 6, 2], &[4, 8, 16, 96], 1, &slice_nb, 0, 192).unwrap();
        let layout: Vec<_> = c.iter().map(|c| (c.dev, c.slice_offset, c.data_offset, c.runs.count)).collect();
        assert_eq!(
            layout,
            [(0, 0, 0, 2), (1, 0, 16, 2), (0, 16, 32, 2), (1, 16, 48, 2), (0, 32, 64, 2), (1, 32, 80, 2)]
        );
        assert!(c.iter().all(|c| c.runs.size == 16 && c.runs.stride_tensor == 48 && c.runs.stride_data == 96));
        // the second step of axis 3 alone
        let second = chunks(&state, &[2, 2, 6, 2], &[4, 8, 16, 96], 1, &slice_nb, 96, 96).unwrap();
        assert_eq!((second[1].slice_offset, second[1].data_offset, second[1].runs.count), (48, 16, 1));
        // along axis 3 the whole tensor is one row
        let mut outer = split(3, &[1, 1, 1, 1]);
        outer.n_segments = 2;
        outer.nr[..2].fill(1);
        let c = chunks(&outer, &[2, 1, 1, 4], &[4, 8, 8, 8], 1, &[[4, 8, 8, 8]; 2], 0, 32).unwrap();
        let layout: Vec<_> = c.iter().map(|c| (c.dev, c.slice_offset, c.data_offset, c.runs.size)).collect();
        assert_eq!(layout, [(0, 0, 0, 8), (1, 0, 8, 8), (0, 8, 16, 8), (1, 8, 24, 8)]);
    }

    #[test]
    fn a_device_without_a_share_of_a_segment_gets_no_chunk() {
        // 3x3 f32 in 2 segments along axis 1: segment 0 all 3 rows on device 0, segment 1 empty;
        // device 1's slice is empty (its buffer may not be writable): nothing goes to it.
        let mut state = split(1, &[3, 0, 0, 0]);
        state.n_segments = 2;
        state.nr[1] = 1;
        let c = chunks(&state, &[3, 3, 1, 1], &[4, 12, 36, 36], 1, &[[4, 12, 36, 36], [4, 12, 0, 0]], 0, 36).unwrap();
        assert_eq!(c.iter().map(|c| (c.dev, c.runs.size)).collect::<Vec<_>>(), [(0, 36)]);
    }

    #[test]
    fn ranges_that_cut_a_step_of_the_split_axis_are_refused() {
        let state = split(1, &[4, 2]);
        assert!(chunks(&state, &[8, 6, 1, 1], &[4, 32, 192, 192], 1, &[[4, 32, 128, 128], [4, 32, 64, 64]], 0, 100)
            .is_err());
        assert!(chunks(&split(3, &[1, 1]), &[1, 1, 1, 2], &[4, 4, 4, 4], 1, &[[4, 4, 4, 4]; 2], 0, 8).is_err());
    }
}
