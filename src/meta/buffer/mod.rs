//! The meta buffer: one simple buffer per simple device, and for every tensor placed in it one
//! simple tensor per device (its slice, [`slices`]), kept in ggml contexts of the buffer. Each
//! tensor's split state is inferred from its sources' ([`state`]); tensor data moves between the
//! caller and the slices ([`transfer`]) in chunks planned by [`chunks`]. This module holds the
//! buffer's context, its allocation and the buffer interface Rust gives to C.

pub mod chunks;
mod slices;
mod state;
mod transfer;

pub use self::chunks::Chunk;
use self::slices::init_slices;
pub use self::slices::{remake_lost_slices, repoint_sources, simple_tensor};
use self::state::env_int;
pub use self::state::split_state;
pub use self::transfer::{access_chunks, plan, Access};
use self::transfer::{get_tensor, memset_tensor, set_tensor};
use super::split::SplitState;
use super::{MetaBufferType, MetaDevice};
use crate::abi::*;
use crate::base::report::{ensure, fatal, null_handle};
use crate::handle::{arg, Buffer, BufferType, Context, Fingerprint, Tensor};
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
    /// GGML_META_DEBUG > 0 when the buffer was made: split states are logged.
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
        debug: env_int(env_var!("GGML_META_DEBUG")) > 0,
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

#[callback(ggml_backend_buffer_free)]
unsafe extern "C" fn buffer_free(buffer: ggml_backend_buffer_t) {
    let meta: *const MetaBuffer = meta_buffer(FN, arg!(buffer));
    // SAFETY: the context boxed by new_meta_buffer, released once, here, as its buffer goes.
    let context = unsafe { Box::from_raw(meta.cast_mut()) };
    for part in context.simple.borrow().iter().flatten() {
        // SAFETY: the meta buffer owned its parts, and is going away.
        unsafe { crate::buffer::free_buffer(*part) };
    }
}

#[callback(ggml_backend_buffer_get_base)]
unsafe extern "C" fn buffer_get_base(_: ggml_backend_buffer_t) -> *mut c_void {
    META_BASE as *mut c_void
}

#[callback(ggml_backend_tensor_alloc)]
unsafe extern "C" fn buffer_init_tensor(buffer: ggml_backend_buffer_t, tensor: *mut ggml_tensor) -> ggml_status {
    let (meta, tensor) = (meta_buffer(FN, arg!(buffer)), arg!(tensor));
    meta.compute_index.set(meta.compute_index_next.get());
    init_slices(FN, meta.set_of(tensor), tensor);
    ggml_status::GGML_STATUS_SUCCESS
}

#[callback(ggml_backend_tensor_memset)]
unsafe extern "C" fn buffer_memset_tensor(
    _: ggml_backend_buffer_t,
    tensor: *mut ggml_tensor,
    value: u8,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the backend layer checked that the range lies inside the tensor.
    unsafe { memset_tensor(FN, tensor, value, offset, size) }
}

#[callback(ggml_backend_tensor_set)]
unsafe extern "C" fn buffer_set_tensor(
    _: ggml_backend_buffer_t,
    tensor: *mut ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the backend layer checked the range against the tensor; `data` holds `size`
    // bytes (the API's contract).
    unsafe { set_tensor(FN, tensor, data, offset, size) }
}

#[callback(ggml_backend_tensor_get)]
unsafe extern "C" fn buffer_get_tensor(
    _: ggml_backend_buffer_t,
    tensor: *const ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    let tensor = arg!(tensor);
    // SAFETY: the backend layer checked the range against the tensor; `data` has room for
    // `size` bytes (the API's contract).
    unsafe { get_tensor(FN, tensor, data, offset, size) }
}

#[callback(ggml_backend_buffer_clear)]
unsafe extern "C" fn buffer_clear(buffer: ggml_backend_buffer_t, value: u8) {
    for part in meta_buffer(FN, arg!(buffer)).simple.borrow().iter() {
        let part = part.unwrap_or_else(|| null_handle(FN, "simple buffer"));
        crate::buffer::clear(FN, part, value);
    }
}

#[callback(ggml_backend_buffer_reset)]
unsafe extern "C" fn buffer_reset(buffer: ggml_backend_buffer_t) {
    for part in meta_buffer(FN, arg!(buffer)).simple.borrow().iter().flatten() {
        part.reset();
    }
}

const BUFFER_IFACE: ggml_backend_buffer_i = ggml_backend_buffer_i {
    free_buffer: Some(buffer_free),
    get_base: Some(buffer_get_base),
    init_tensor: Some(buffer_init_tensor),
    memset_tensor: Some(buffer_memset_tensor),
    set_tensor: Some(buffer_set_tensor),
    get_tensor: Some(buffer_get_tensor),
    clear: Some(buffer_clear),
    reset: Some(buffer_reset),
    ..ggml_backend_buffer_i::NONE
};
