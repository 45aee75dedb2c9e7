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
pub use self::slices::{remake_lost_slices, repoint_sources, slice_of};
pub use self::state::split_state;
pub use self::transfer::{access_chunks, plan, Access};
use self::transfer::{get_tensor, memset_tensor, set_tensor};
use super::split::SplitState;
use super::{Failure, MetaBufferType, MetaDevice, Slot};
use crate::abi::*;
use crate::base::fallible::{try_box, try_vec, OutOfMemory, SortedMap};
use crate::base::report::{checked, refuse, refused, Refused};
use crate::handle::{arg, Buffer, BufferType, Context, Fingerprint, Tensor};
use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::Cell;
use core::ffi::c_void;
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
    slices: Slot<SortedMap<usize, Vec<Tensor>>>,
}

impl TensorSet {
    fn new(n_devs: usize, mem_size: usize) -> Result<TensorSet, OutOfMemory> {
        let mut contexts = try_vec(n_devs)?;
        contexts.extend((0..n_devs).map(|_| Context::new(mem_size)));
        Ok(TensorSet { contexts, slices: Slot::default() })
    }

    fn empty() -> TensorSet {
        TensorSet { contexts: Vec::new(), slices: Slot::default() }
    }

    fn clear(&self) {
        for &ctx in &self.contexts {
            // SAFETY: the map, cleared with the contexts, is where the slices are found: a
            // meta backend clears a set only once its graphs over these slices are done.
            unsafe { ctx.reset() };
        }
        self.slices.with(SortedMap::clear);
    }

    /// Whether the set has made `tensor`'s slices (out of line: each of the buffer's entries asks).
    #[inline(never)]
    fn holds(&self, tensor: Tensor) -> bool {
        self.slices.with(|slices| slices.contains_key(&tensor.addr()))
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
    /// Its part on each simple device (None until allocated), which it owns and frees.
    simple: Vec<Cell<Option<Buffer>>>,
    /// Slices of the tensors of the context the buffer was made for (alloc_ctx_tensors).
    fixed: TensorSet,
    /// Slices of every other tensor (views, graph nodes), in two sets used in turn: a meta
    /// backend clears the idle one when it starts a new graph, so that views made for one graph
    /// stay valid while the next is allocated.
    compute: [TensorSet; 2],
    compute_index: Cell<usize>,
    compute_index_next: Cell<usize>,
    cache: Slot<SortedMap<(usize, bool), (SplitState, Fingerprint)>>,
    /// GGML_META_DEBUG > 0 when the buffer was made: split states are logged.
    debug: bool,
}

impl MetaBuffer {
    /// A meta buffer on `device` without parts yet, whose compute sets hold `compute_mem`
    /// bytes of tensor headers per device.
    fn new(device: &'static MetaDevice, fixed: TensorSet, compute_mem: usize) -> Result<MetaBuffer, OutOfMemory> {
        let n = device.simple.len();
        let mut simple = try_vec(n)?;
        simple.resize_with(n, Cell::default);
        Ok(MetaBuffer {
            device,
            simple,
            fixed,
            compute: [TensorSet::new(n, compute_mem)?, TensorSet::new(n, compute_mem)?],
            compute_index: Cell::new(0),
            compute_index_next: Cell::new(0),
            cache: Slot::default(),
            debug: crate::base::os::env_int(env_var!("GGML_META_DEBUG")).unwrap_or(0) > 0,
        })
    }

    pub fn n_devs(&self) -> usize {
        self.device.simple.len()
    }

    /// The parts on the simple devices, in device order.
    fn parts(&self) -> impl Iterator<Item = Option<Buffer>> + '_ {
        self.simple.iter().map(Cell::get)
    }

    /// The set that holds `tensor`'s slices: the fixed one, else the current compute set (out of
    /// line, as [`TensorSet::holds`] is).
    #[inline(never)]
    fn set_of(&self, tensor: Tensor) -> &TensorSet {
        if self.fixed.holds(tensor) {
            &self.fixed
        } else {
            &self.compute[self.compute_index.get()]
        }
    }

    /// Sets the usage of its parts (plain ggml 0.3.36: a meta buffer of weights has simple
    /// buffers of weights, which the scheduler places by).
    #[cfg(meta_set_usage)]
    pub fn set_usage(&self, usage: ggml_backend_buffer_usage) {
        for part in self.parts().flatten() {
            crate::buffer::set_usage(part, usage);
        }
    }

    /// Clears the idle set of slices, to be used from the next tensor placed in the buffer.
    pub fn rotate_compute_sets(&self) {
        let next = self.compute_index.get() ^ 1;
        self.compute_index_next.set(next);
        self.compute[next].clear();
    }
}

impl Drop for MetaBuffer {
    fn drop(&mut self) {
        for part in self.parts().flatten() {
            // SAFETY: the meta buffer owns its parts, and is going away.
            unsafe { crate::buffer::free_buffer(part) };
        }
    }
}

pub fn is_meta_buffer(buffer: Buffer) -> bool {
    buffer.is_freed_by(buffer_free)
}

/// The context of a meta buffer, or the refusal naming the caller (out of line: called by most
/// of the buffer's entries).
#[inline(never)]
pub fn meta_buffer<'a>(caller: &str, buffer: Buffer) -> Result<&'a MetaBuffer, Refused> {
    if !is_meta_buffer(buffer) {
        return refused!("{caller}: buffer is not a meta buffer");
    }
    // SAFETY: a meta buffer's context is the MetaBuffer boxed by new_meta_buffer, released in
    // buffer_free; the buffer is live, so the context is too.
    Ok(unsafe { &*(buffer.context() as *const MetaBuffer) })
}

#[inline(never)]
fn meta_buffer_of<'a>(caller: &str, tensor: Tensor) -> Result<&'a MetaBuffer, Refused> {
    let Some(buffer) = tensor.buffer() else {
        return refused!("{caller}: tensor->buffer is NULL");
    };
    meta_buffer(caller, buffer)
}

/// The buffer object over `context`, of `size` bytes.
fn new_meta_buffer(buft: BufferType, context: MetaBuffer, size: usize) -> Result<Buffer, OutOfMemory> {
    let context = Box::into_raw(try_box(context)?);
    crate::buffer::new_buffer(Some(buft), BUFFER_IFACE, context as *mut c_void, size).inspect_err(|_| {
        // SAFETY: the context boxed above, not handed out.
        drop(unsafe { Box::from_raw(context) });
    })
}

fn device_of(caller: &str, buft: BufferType) -> Result<&'static MetaDevice, Refused> {
    let Some(device) = buft.device() else {
        return refused!("{caller}: buft->device is NULL");
    };
    super::meta_device(caller, device)
}

/// A meta buffer with a simple buffer of `size` bytes on every device (the simple buffers'
/// largest size is the meta buffer's).
pub fn alloc_buffer(
    caller: &str,
    buft: BufferType,
    meta_buft: &MetaBufferType,
    size: usize,
) -> Result<Buffer, Failure> {
    let compute_mem = 1024 * 1024 * crate::base::ggml::tensor_overhead();
    let meta = MetaBuffer::new(device_of(caller, buft)?, TensorSet::empty(), compute_mem)?;
    for (part, &simple_buft) in meta.simple.iter().zip(&meta_buft.simple) {
        // The parts made so far go with `meta`.
        let Some(allocated) = crate::buffer::alloc_buffer(caller, simple_buft, size) else {
            return Err(part_failed(format!("{caller}: a simple buffer allocation failed")));
        };
        part.set(Some(allocated));
    }
    let max = meta.parts().flatten().map(|b| b.size()).max().unwrap_or(0);
    Ok(new_meta_buffer(buft, meta, max)?)
}

/// A simple buffer type that could not give a part: its memory is what ran out.
fn part_failed(why: String) -> Failure {
    Failure::OutOfMemory(Some(Refused(why)))
}

/// Allocates every tensor of `ctx` (none of them allocated yet) in a new meta buffer of
/// `buft`: each gets its slices, and the slices of each device are allocated together by
/// ggml-alloc in that device's buffer type. When that fails, the tensors are left unallocated.
pub fn alloc_ctx_tensors(caller: &str, ctx: Context, buft: BufferType) -> Result<Buffer, Failure> {
    let meta_buft = super::meta_buffer_type(caller, buft)?;
    let ctx_size = ctx.mem_size();
    let fixed = TensorSet::new(meta_buft.simple.len(), ctx_size)?;
    let meta = MetaBuffer::new(device_of(caller, buft)?, fixed, COMPUTE_HEADROOM * ctx_size)?;
    let buffer = new_meta_buffer(buft, meta, 0)?;
    let tensors = ctx.tensors();
    let placed = place_ctx_tensors(caller, buffer, &tensors, meta_buft);
    if placed.is_err() {
        for t in tensors.iter().filter(|t| t.buffer_ptr() == buffer.as_ptr()) {
            t.set_buffer_ptr_and_data(core::ptr::null_mut(), core::ptr::null_mut());
        }
        // SAFETY: the buffer made here, which no tensor refers to any more.
        unsafe { crate::buffer::free_buffer(buffer) };
    }
    placed.map(|()| buffer)
}

fn place_ctx_tensors(
    caller: &str,
    buffer: Buffer,
    tensors: &[Tensor],
    meta_buft: &MetaBufferType,
) -> Result<(), Failure> {
    let meta = meta_buffer(caller, buffer)?;
    for &t in tensors {
        t.set_buffer_ptr_and_data(buffer.as_ptr(), t.data());
        init_slices(caller, &meta.fixed, t)?;
        // Placed after its slices are made, as the reference does (the cached split states of
        // the tensor are then stale, and derived again when next asked for).
        t.set_buffer_ptr_and_data(buffer.as_ptr(), META_STATIC_DATA as *mut c_void);
    }
    let mut size = 0;
    let devices = meta_buft.simple.iter().zip(&meta.fixed.contexts).zip(&meta.simple);
    for (j, ((&simple_buft, &ctx_j), part)) in devices.enumerate() {
        let slices = ctx_j.tensors();
        let allocated = if slices.iter().any(|t| t.nelements() != 0) {
            crate::buffer::alloc_ctx_tensors(ctx_j, simple_buft)
        } else {
            // Only empty slices: ggml-alloc would give NULL, so they get an empty buffer.
            let empty = crate::buffer::alloc_buffer(caller, simple_buft, 0);
            if let Some(empty) = empty {
                slices.iter().for_each(|t| t.set_buffer_ptr_and_data(empty.as_ptr(), t.data()));
            }
            empty
        };
        let Some(allocated) = allocated else {
            return Err(part_failed(format!("{caller}: allocating device {j}'s part of the context failed")));
        };
        size = size.max(allocated.size());
        part.set(Some(allocated));
    }
    buffer.set_size(size);
    Ok(())
}

#[callback(ggml_backend_buffer_free)]
unsafe extern "C" fn buffer_free(buffer: ggml_backend_buffer_t) {
    let meta: *const MetaBuffer = checked!(meta_buffer(FN, arg!(buffer)));
    // SAFETY: the context boxed by new_meta_buffer, released once, here, as its buffer goes
    // (and its parts with it).
    drop(unsafe { Box::from_raw(meta.cast_mut()) });
}

#[callback(ggml_backend_buffer_get_base)]
unsafe extern "C" fn buffer_get_base(_: ggml_backend_buffer_t) -> *mut c_void {
    META_BASE as *mut c_void
}

#[callback(ggml_backend_tensor_alloc)]
unsafe extern "C" fn buffer_init_tensor(buffer: ggml_backend_buffer_t, tensor: *mut ggml_tensor) -> ggml_status {
    let (meta, tensor) = (checked!(meta_buffer(FN, arg!(buffer))), arg!(tensor));
    meta.compute_index.set(meta.compute_index_next.get());
    match init_slices(FN, meta.set_of(tensor), tensor) {
        Ok(()) => ggml_status::GGML_STATUS_SUCCESS,
        Err(failure) => failure.status(FN),
    }
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
    checked!(unsafe { memset_tensor(FN, tensor, value, offset, size) })
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
    checked!(unsafe { set_tensor(FN, tensor, data, offset, size) })
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
    checked!(unsafe { get_tensor(FN, tensor, data, offset, size) })
}

#[callback(ggml_backend_buffer_clear)]
unsafe extern "C" fn buffer_clear(buffer: ggml_backend_buffer_t, value: u8) {
    for part in checked!(meta_buffer(FN, arg!(buffer))).parts() {
        let Some(part) = part else { refuse!("{FN}: simple buffer is NULL") };
        crate::buffer::clear(FN, part, value);
    }
}

#[callback(ggml_backend_buffer_reset)]
unsafe extern "C" fn buffer_reset(buffer: ggml_backend_buffer_t) {
    for part in checked!(meta_buffer(FN, arg!(buffer))).parts().flatten() {
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
