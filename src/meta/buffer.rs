//! The meta buffer: one simple buffer per simple device, and for every tensor placed in it one
//! simple tensor per device (its slice), kept in ggml contexts of the buffer. Tensor data moves
//! between the caller and the slices in chunks planned by [`chunks`].

use super::split::{self, SplitState};
use super::{MetaBufferType, MetaDevice};
use crate::abi::*;
use crate::ggml::{ensure, fatal, null_handle};
use crate::graph::Tensor;
use crate::handle::{Buffer, BufferType};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;

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
    contexts: Vec<*mut wsp_ggml_context>,
    slices: RefCell<HashMap<usize, Vec<Tensor>>>,
}

impl TensorSet {
    fn new(n_devs: usize, mem_size: usize) -> TensorSet {
        let params = || wsp_ggml_init_params { mem_size, mem_buffer: std::ptr::null_mut(), no_alloc: true };
        // SAFETY: ggml_init with valid parameters; the contexts are freed in drop.
        let contexts = (0..n_devs).map(|_| unsafe { crate::ggml::wsp_ggml_init(params()) }).collect();
        TensorSet { contexts, slices: RefCell::new(HashMap::new()) }
    }

    fn empty() -> TensorSet {
        TensorSet { contexts: Vec::new(), slices: RefCell::new(HashMap::new()) }
    }

    fn clear(&self) {
        for &ctx in &self.contexts {
            // SAFETY: a context of this set; its tensors are forgotten with the map below.
            unsafe { crate::ggml::wsp_ggml_reset(ctx) };
        }
        self.slices.borrow_mut().clear();
    }
}

impl Drop for TensorSet {
    fn drop(&mut self) {
        for &ctx in &self.contexts {
            // SAFETY: made by ggml_init in new, freed once.
            unsafe { crate::ggml::wsp_ggml_free(ctx) };
        }
    }
}

/// What determines a tensor's split state; a cached state is stale once any of it changes.
type Fingerprint = (
    wsp_ggml_type,
    usize,
    [i64; 4],
    [usize; 4],
    wsp_ggml_op,
    [i32; 16],
    i32,
    [usize; WSP_GGML_MAX_SRC],
    usize,
    usize,
    usize,
);

fn fingerprint(t: &wsp_ggml_tensor) -> Fingerprint {
    (
        t.r#type,
        t.buffer as usize,
        t.ne,
        t.nb,
        t.op,
        t.op_params,
        t.flags,
        t.src.map(|s| s as usize),
        t.view_src as usize,
        t.view_offs,
        t.data as usize,
    )
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
    // SAFETY: no arguments.
    let compute_mem = 1024 * 1024 * unsafe { crate::ggml::wsp_ggml_tensor_overhead() };
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

/// Allocates every tensor of `ctx` in a new meta buffer of `buft`: each gets its slices, and
/// the slices of each device are allocated together by ggml-alloc in that device's buffer type.
///
/// # Safety
/// `ctx` is a live ggml context whose tensors are not allocated yet.
pub unsafe fn alloc_ctx_tensors(caller: &str, ctx: *mut wsp_ggml_context, buft: BufferType) -> Buffer {
    let meta_buft = super::meta_buffer_type(caller, buft);
    let n = meta_buft.simple.len();
    // SAFETY: the caller's live context.
    let ctx_size = unsafe { crate::ggml::wsp_ggml_get_mem_size(ctx) };
    let fixed = TensorSet::new(n, ctx_size);
    let buffer = new_meta_buffer(buft, device_of(caller, buft), fixed, COMPUTE_HEADROOM * ctx_size, vec![None; n], 0);
    let meta = meta_buffer(caller, buffer);
    // SAFETY: the caller's context; its tensors are live.
    for t in unsafe { context_tensors(ctx) } {
        t.set_buffer_ptr_and_data(buffer.as_ptr(), t.data());
        init_slices(caller, &meta.fixed, t);
        // Placed after its slices are made, as the reference does (the cached split states of
        // the tensor are then stale, and derived again when next asked for).
        t.set_buffer_ptr_and_data(buffer.as_ptr(), META_STATIC_DATA as *mut c_void);
    }
    let mut size = 0;
    for (j, &simple_buft) in meta_buft.simple.iter().enumerate() {
        let ctx_j = meta.fixed.contexts[j];
        // SAFETY: a live context of the buffer.
        let slices = unsafe { context_tensors(ctx_j) };
        // SAFETY: live tensors.
        let any_nonzero = slices.iter().any(|t| unsafe { crate::ggml::wsp_ggml_nelements(t.as_ptr()) } != 0);
        let part = if any_nonzero {
            // SAFETY: a live context whose tensors are not allocated; ggml-alloc returns NULL
            // or a buffer holding them.
            unsafe {
                Buffer::from_raw(crate::ggml::wsp_ggml_backend_alloc_ctx_tensors_from_buft(ctx_j, simple_buft.as_ptr()))
            }
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

/// # Safety
/// `ctx` is a live ggml context.
unsafe fn context_tensors(ctx: *mut wsp_ggml_context) -> Vec<Tensor> {
    let mut tensors = Vec::new();
    // SAFETY: the caller's live context; its tensors are live.
    let mut t = unsafe { crate::ggml::wsp_ggml_get_first_tensor(ctx) };
    // SAFETY: NULL or a live tensor of the context.
    while let Some(tensor) = unsafe { Tensor::from_raw(t) } {
        tensors.push(tensor);
        // SAFETY: as above.
        t = unsafe { crate::ggml::wsp_ggml_get_next_tensor(ctx, t) };
    }
    tensors
}

/// What inference needs of a tensor besides its split state.
fn shape(t: Tensor) -> split::Shape {
    let f = t.fields();
    let p = t.as_ptr();
    // SAFETY: ggml's queries of a live tensor.
    let (n_dims, contiguous, permuted) = unsafe {
        (crate::ggml::wsp_ggml_n_dims(p), crate::ggml::wsp_ggml_is_contiguous(p), crate::ggml::wsp_ggml_is_permuted(p))
    };
    split::Shape { op: f.op, ne: f.ne, nb: f.nb, op_params: f.op_params, n_dims, contiguous, permuted }
}

fn nelements(t: Tensor) -> i64 {
    // SAFETY: a live tensor.
    unsafe { crate::ggml::wsp_ggml_nelements(t.as_ptr()) }
}

/// The split state of a tensor of a meta buffer: the application's for a static tensor, else
/// inferred from its sources'. `assume_sync`: PARTIAL sums count as reduced.
pub fn split_state(caller: &str, tensor: Tensor, assume_sync: bool) -> SplitState {
    let meta = meta_buffer_of(caller, tensor);
    let key = (tensor.addr(), assume_sync);
    let fp = fingerprint(&tensor.fields());
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
        // Each share with its repeat count (0.7, meta_nr; 0.6 has none).
        let shares: Vec<String> = (0..n_devs)
            .map(|j| if cfg!(meta_nr) { format!("{}x{}", s.ne[j], s.nr[0]) } else { s.ne[j].to_string() })
            .collect();
        format!("{}[{}, {axis}, {{{}}}]", t.name(), t.op_name(), shares.join(", "))
    };
    let srcs: Vec<String> = tensor
        .srcs()
        .iter()
        .flatten()
        .filter(|&&src| src != tensor)
        .map(|&src| {
            let s = split_state(caller, src, true);
            ensure!(s.n_segments == 1, "{caller}: WSP_GGML_META_DEBUG shows single-segment sources only");
            describe(src, &s)
        })
        .collect();
    crate::ggml::log_debug!("SPLIT_STATE: {{{}}} -> {}\n", srcs.join(", "), describe(tensor, state));
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
    if nelements(tensor) == 0 {
        return split::whole(WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN, 1);
    }
    let buffer = tensor.buffer().unwrap_or_else(|| null_handle(caller, "tensor->buffer"));
    if buffer.usage() != wsp_ggml_backend_buffer_usage::WSP_GGML_BACKEND_BUFFER_USAGE_COMPUTE
        && tensor.view_src().is_none()
    {
        let state = meta.device.static_split_state(caller, tensor);
        let f = tensor.fields();
        // SAFETY: ggml's block size of any type value.
        let blck = unsafe { crate::ggml::wsp_ggml_blck_size(f.r#type) };
        if let Err(why) = split::check_static(&state, &f.ne, blck, meta.n_devs()) {
            fatal!("{caller}: the split state of tensor {}: {why}", tensor.name());
        }
        return state;
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

/// Makes the per-device slices of `tensor` in `set`.
fn init_slices(caller: &str, set: &TensorSet, tensor: Tensor) {
    let meta = meta_buffer_of(caller, tensor);
    let n = meta.n_devs();
    let state = split_state(caller, tensor, true);
    ensure!(
        nelements(tensor) == 0 || state.axis != WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN,
        "{caller}: tensor {} has an unknown split",
        tensor.name()
    );
    let f = tensor.fields();
    let simple_bufs = meta.simple.borrow().clone();
    // SAFETY: a tensor's view source is NULL or live.
    let view_of_meta = unsafe { Tensor::from_raw(f.view_src) }.filter(|v| v.buffer().is_some_and(is_meta_buffer));
    let mut slices = Vec::with_capacity(n);
    for (j, &simple_buf) in simple_bufs.iter().enumerate() {
        if simple_buf.is_some_and(crate::buffer::is_multi_buffer) {
            fatal!("{caller}: multi buffers are not supported by the meta backend");
        }
        let (ne, nb) = split::slice_layout(&state, &f.ne, &f.nb, n, j);
        // SAFETY: a live context of the set; ggml makes a tensor of this type and shape.
        let raw = unsafe {
            crate::ggml::wsp_ggml_new_tensor(set.contexts[j], f.r#type, WSP_GGML_MAX_DIMS as i32, ne.as_ptr())
        };
        // SAFETY: ggml aborts rather than return NULL; the tensor is live.
        let slice = unsafe { Tensor::from_raw(raw) }.expect("ggml_new_tensor never returns NULL");
        let mut s = slice.fields();
        s.op = f.op;
        s.nb = nb;
        s.flags = f.flags;
        s.op_params = f.op_params;
        s.name = f.name;
        s.buffer = simple_buf.map_or(std::ptr::null_mut(), Buffer::as_ptr);
        s.view_src = f.view_src;
        s.view_offs = f.view_offs;
        if let Some(view_src) = view_of_meta {
            s.view_src = simple_tensor_or_abort(caller, view_src, j).as_ptr();
            if f.view_offs > 0 && split::is_dim(state.axis) {
                let view_axis = split_state(caller, view_src, true).axis;
                s.view_offs = scaled_view_offset(
                    caller,
                    &f,
                    &view_src.fields(),
                    view_axis,
                    state.axis as usize,
                    ne[state.axis as usize],
                );
            }
        }
        if !s.view_src.is_null() {
            // SAFETY: the view source (a slice or a non-meta tensor) is live.
            let base = unsafe { Tensor::from_raw(s.view_src) }.expect("checked non-NULL").data();
            s.data = base.wrapping_byte_add(s.view_offs);
        } else if let Some(b) = simple_buf {
            // The same offset into the simple buffer as into the meta buffer.
            s.data = crate::buffer::base(caller, b).wrapping_byte_add((f.data as usize).wrapping_sub(META_BASE));
        }
        s.extra = f.extra;
        for (i, &src) in f.src.iter().enumerate() {
            // SAFETY: a tensor's sources are NULL or live.
            s.src[i] = match unsafe { Tensor::from_raw(src) } {
                None => std::ptr::null_mut(),
                Some(src_t) if src_t == tensor => raw,
                Some(src_t) if src_t.buffer().is_some_and(is_meta_buffer) => {
                    simple_tensor_or_abort(caller, src_t, j).as_ptr()
                }
                Some(src_t) => src_t.as_ptr(),
            };
        }
        slice.set_fields(s);
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
    view: &wsp_ggml_tensor,
    view_src: &wsp_ggml_tensor,
    view_src_axis: i32,
    axis: usize,
    slice_extent: i64,
) -> usize {
    ensure!(view.ne[axis] != 0, "{caller}: a view of extent 0 along its split axis");
    ensure!(
        split::is_dim(view_src_axis),
        "{caller}: a view with an offset into a tensor that is not split by a dimension"
    );
    let internal = view.view_offs <= view_src.nb[view_src_axis as usize]
        || (0..WSP_GGML_MAX_DIMS).any(|i| {
            let dim_size = view.ne[i] as usize * view.nb[i];
            view.view_offs <= dim_size && dim_size < view.nb[axis]
        });
    if internal {
        view.view_offs
    } else {
        (view.view_offs as i64 * slice_extent / view.ne[axis]) as usize
    }
}

// ---------------------------------------------------------------------------------------------
// Data transfer between a meta tensor's bytes and its slices
// ---------------------------------------------------------------------------------------------

/// `rows` runs of `size` bytes: run r is at `slice_offset + r * slice_stride` in device `dev`'s
/// slice and at `data_offset + r * data_stride` in the caller's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub dev: usize,
    pub slice_offset: usize,
    pub data_offset: usize,
    pub size: usize,
    pub rows: usize,
    pub slice_stride: usize,
    pub data_stride: usize,
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
    if state.n_segments != 1 || state.nr[0] != 1 {
        if !(axis == 0 || axis == 1) || state.nr[0] == 0 || ne[3] != 1 || (axis == 0 && ne[2] != 1) {
            return Err(format!("segmented or repeated split along axis {axis} of this shape"));
        }
        let row_stride = nb[axis + 1];
        if row_stride == 0 || offset % row_stride != 0 || size % row_stride != 0 {
            return Err("the range is not whole rows".into());
        }
        let (row_start, rows) = (offset / row_stride, size / row_stride);
        if (row_start + rows) as i64 > ne[axis + 1] {
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
                        ne_sj as usize * nb[1]
                    };
                    let slice_stride = slice_nb[j][axis + 1];
                    // A device without a share of the segment moves nothing (its slice may be
                    // empty, in a buffer that cannot be written).
                    if bytes > 0 {
                        out.push(Chunk {
                            dev: j,
                            slice_offset: slice_offsets[j] + row_start * slice_stride,
                            data_offset,
                            size: bytes,
                            rows,
                            slice_stride,
                            data_stride: row_stride,
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
            size: part,
            rows: i_stop - i_start,
            slice_stride: part,
            data_stride: full,
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
fn plan(caller: &str, tensor: Tensor, state: &SplitState, slices: &[Tensor], offset: usize, size: usize) -> Vec<Chunk> {
    let f = tensor.fields();
    // SAFETY: ggml's block size of any type value.
    let blck = unsafe { crate::ggml::wsp_ggml_blck_size(f.r#type) };
    let slice_nb: Vec<[usize; 4]> = slices.iter().map(|s| s.fields().nb).collect();
    chunks(state, &f.ne, &f.nb, blck, &slice_nb, offset, size)
        .unwrap_or_else(|why| fatal!("{caller}: tensor {}: {why}", tensor.name()))
}

fn storage(caller: &str, slice: Tensor) -> Buffer {
    slice.storage_buffer().unwrap_or_else(|| null_handle(caller, "slice->buffer"))
}

/// How a transfer treats the tensor: checks it can, and gives its state.
fn transfer_state(caller: &str, tensor: Tensor) -> SplitState {
    let state = split_state(caller, tensor, false);
    // SAFETY: a live tensor.
    let contiguous = unsafe { crate::ggml::wsp_ggml_is_contiguous(tensor.as_ptr()) };
    ensure!(
        contiguous || state.axis == WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED,
        "{caller}: tensor {} is neither contiguous nor MIRRORED",
        tensor.name()
    );
    state
}

fn segmented(state: &SplitState) -> bool {
    state.n_segments != 1 || state.nr[0] != 1
}

/// Writes `size` bytes at `data` into bytes `[offset, offset + size)` of a meta tensor.
///
/// # Safety
/// `data` holds `size` readable bytes; the range lies inside the tensor.
pub unsafe fn set_tensor(caller: &str, tensor: Tensor, data: *const c_void, offset: usize, size: usize) {
    let state = transfer_state(caller, tensor);
    let slices = slices(caller, tensor);
    if segmented(&state) || split::is_dim(state.axis) {
        for c in plan(caller, tensor, &state, &slices, offset, size) {
            let buffer = storage(caller, slices[c.dev]);
            for r in 0..c.rows {
                let src = data.wrapping_byte_add(c.data_offset + r * c.data_stride);
                // SAFETY: the plan stays inside the caller's bytes and the slice.
                unsafe { buffer.set_tensor(caller, slices[c.dev], src, c.slice_offset + r * c.slice_stride, c.size) };
            }
        }
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
            ensure!(tensor.fields().r#type == 0, "{caller}: a PARTIAL tensor must be F32");
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
    if segmented(&state) || split::is_dim(state.axis) {
        for c in plan(caller, tensor, &state, &slices, offset, size) {
            let buffer = storage(caller, slices[c.dev]);
            for r in 0..c.rows {
                let dst = data.wrapping_byte_add(c.data_offset + r * c.data_stride);
                // SAFETY: the plan stays inside the caller's bytes and the slice.
                unsafe { buffer.get_tensor(caller, slices[c.dev], dst, c.slice_offset + r * c.slice_stride, c.size) };
            }
        }
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
    if segmented(&state) || split::is_dim(state.axis) {
        for c in plan(caller, tensor, &state, &slices, offset, size) {
            let buffer = storage(caller, slices[c.dev]);
            for r in 0..c.rows {
                // SAFETY: the plan stays inside the slice.
                unsafe {
                    buffer.memset_tensor(caller, slices[c.dev], value, c.slice_offset + r * c.slice_stride, c.size)
                };
            }
        }
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

/// # Safety
/// `buffer` is a live buffer.
unsafe fn this<'a>(caller: &str, buffer: wsp_ggml_backend_buffer_t) -> (Buffer, &'a MetaBuffer) {
    // SAFETY: the caller's promise.
    let handle = unsafe { Buffer::from_raw(buffer) }.unwrap_or_else(|| null_handle(caller, "buffer"));
    (handle, meta_buffer(caller, handle))
}

/// # Safety
/// `tensor` is a live tensor.
unsafe fn tensor_arg(caller: &str, tensor: *const wsp_ggml_tensor) -> Tensor {
    // SAFETY: the caller's promise.
    unsafe { Tensor::from_raw(tensor) }.unwrap_or_else(|| null_handle(caller, "tensor"))
}

unsafe extern "C" fn buffer_free(buffer: wsp_ggml_backend_buffer_t) {
    // SAFETY: called by free_buffer with a live meta buffer.
    let (handle, _) = unsafe { this("wsp_ggml_backend_buffer_free", buffer) };
    // SAFETY: the context boxed by new_meta_buffer, released once, here.
    let context = unsafe { Box::from_raw(handle.context() as *mut MetaBuffer) };
    for part in context.simple.borrow().iter().flatten() {
        // SAFETY: the meta buffer owned its parts, and is going away.
        unsafe { crate::buffer::free_buffer(*part) };
    }
}

unsafe extern "C" fn buffer_get_base(_: wsp_ggml_backend_buffer_t) -> *mut c_void {
    META_BASE as *mut c_void
}

unsafe extern "C" fn buffer_init_tensor(
    buffer: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_tensor_alloc";
    // SAFETY: called through a meta buffer's interface with one of its tensors.
    let (_, meta) = unsafe { this(FN, buffer) };
    // SAFETY: as above.
    let tensor = unsafe { tensor_arg(FN, tensor) };
    meta.compute_index.set(meta.compute_index_next.get());
    init_slices(FN, meta.set_of(tensor), tensor);
    wsp_ggml_status::WSP_GGML_STATUS_SUCCESS
}

unsafe extern "C" fn buffer_memset_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
    value: u8,
    offset: usize,
    size: usize,
) {
    const FN: &str = "wsp_ggml_backend_tensor_memset";
    // SAFETY: see the section comment.
    unsafe { memset_tensor(FN, tensor_arg(FN, tensor), value, offset, size) }
}

unsafe extern "C" fn buffer_set_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *mut wsp_ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    const FN: &str = "wsp_ggml_backend_tensor_set";
    // SAFETY: see the section comment; `data` holds `size` bytes (the API's contract).
    unsafe { set_tensor(FN, tensor_arg(FN, tensor), data, offset, size) }
}

unsafe extern "C" fn buffer_get_tensor(
    _: wsp_ggml_backend_buffer_t,
    tensor: *const wsp_ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    const FN: &str = "wsp_ggml_backend_tensor_get";
    // SAFETY: see the section comment; `data` has room for `size` bytes (the API's contract).
    unsafe { get_tensor(FN, tensor_arg(FN, tensor), data, offset, size) }
}

unsafe extern "C" fn buffer_clear(buffer: wsp_ggml_backend_buffer_t, value: u8) {
    const FN: &str = "wsp_ggml_backend_buffer_clear";
    // SAFETY: see the section comment.
    let (_, meta) = unsafe { this(FN, buffer) };
    for part in meta.simple.borrow().iter() {
        let part = part.unwrap_or_else(|| null_handle(FN, "simple buffer"));
        crate::buffer::clear(FN, part, value);
    }
}

unsafe extern "C" fn buffer_reset(buffer: wsp_ggml_backend_buffer_t) {
    const FN: &str = "wsp_ggml_backend_buffer_reset";
    // SAFETY: see the section comment.
    let (_, meta) = unsafe { this(FN, buffer) };
    for part in meta.simple.borrow().iter().flatten() {
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
        assert_eq!((c[0].dev, c[0].slice_offset, c[0].data_offset, c[0].size, c[0].rows), (0, 0, 0, 128, 1));
        assert_eq!((c[1].dev, c[1].slice_offset, c[1].data_offset, c[1].size, c[1].rows), (1, 0, 128, 64, 1));
    }

    #[test]
    fn columns_split_along_axis_0_interleave_row_by_row() {
        // 6x2 f32 split 4/2 columns: each row gives 16 bytes to device 0 and 8 to device 1.
        let state = split(0, &[4, 2]);
        let c = chunks(&state, &[6, 2, 1, 1], &[4, 24, 48, 48], 1, &[[4, 16, 32, 32], [4, 8, 16, 16]], 0, 48).unwrap();
        assert_eq!(
            c[0],
            Chunk { dev: 0, slice_offset: 0, data_offset: 0, size: 16, rows: 2, slice_stride: 16, data_stride: 24 }
        );
        assert_eq!(
            c[1],
            Chunk { dev: 1, slice_offset: 0, data_offset: 16, size: 8, rows: 2, slice_stride: 8, data_stride: 24 }
        );
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
    fn a_device_without_a_share_of_a_segment_gets_no_chunk() {
        // 3x3 f32 in 2 segments along axis 1: segment 0 all 3 rows on device 0, segment 1 empty;
        // device 1's slice is empty (its buffer may not be writable): nothing goes to it.
        let mut state = split(1, &[3, 0, 0, 0]);
        state.n_segments = 2;
        state.nr[1] = 1;
        let c = chunks(&state, &[3, 3, 1, 1], &[4, 12, 36, 36], 1, &[[4, 12, 36, 36], [4, 12, 0, 0]], 0, 36).unwrap();
        assert_eq!(c.iter().map(|c| (c.dev, c.size)).collect::<Vec<_>>(), [(0, 36)]);
    }

    #[test]
    fn ranges_that_cut_a_step_of_the_split_axis_are_refused() {
        let state = split(1, &[4, 2]);
        assert!(chunks(&state, &[8, 6, 1, 1], &[4, 32, 192, 192], 1, &[[4, 32, 128, 128], [4, 32, 64, 64]], 0, 100)
            .is_err());
        assert!(chunks(&split(3, &[1, 1]), &[1, 1, 1, 2], &[4, 4, 4, 4], 1, &[[4, 4, 4, 4]; 2], 0, 8).is_err());
    }
}
