//! The meta backend: one simple backend per simple device. A graph runs as per-device
//! subgraphs that end at each PARTIAL node; between two subgraphs the devices' partial sums are
//! added up (an all-reduce), by the simple backends' own collective when their reg offers one,
//! else by copying and adding on the simple backends.

use super::buffer::{
    access_chunks, is_meta_buffer, meta_buffer, remake_lost_slices, repoint_sources, slice_of, split_state, Access,
    Chunk,
};
use super::{failed, joined_name, schedule, split, Failure, MetaDevice, Slot};
use crate::abi::op;
use crate::abi::*;
use crate::base::fallible::{try_box, try_collect, try_filled, try_vec, OutOfMemory};
use crate::base::report::{checked, refuse, refused, Refused};
use crate::handle::{arg, Backend, Buffer, Device, Graph, OwnedGraph, Tensor};
use alloc::boxed::Box;
use alloc::ffi::CString;
use alloc::format;
use alloc::vec::Vec;
use core::cell::Cell;
use core::ffi::{c_char, c_void};
use wsp_ggml_backend_macros::callback;

type CommInit = unsafe extern "C" fn(backends: *mut ggml_backend_t, n: usize) -> *mut c_void;
type CommFree = unsafe extern "C" fn(comm: *mut c_void);
type CommAllreduce = unsafe extern "C" fn(comm: *mut c_void, tensors: *mut *mut ggml_tensor) -> bool;

/// The simple backends' collective, from their reg.
struct Comm {
    context: *mut c_void,
    allreduce: CommAllreduce,
    free: CommFree,
}

/// What a meta backend keeps.
pub struct MetaBackend {
    name: CString,
    pub simple: Vec<Backend>,
    comm: Option<Comm>,
    /// Scratch buffers for the all-reduce: one per device and reduction step, device by device.
    scratch: Vec<Cell<Option<Buffer>>>,
    scratch_size: Cell<usize>,
    /// The graphs and tensors of the last computation, kept until the next one starts since
    /// the simple backends may still be working on them. Boxed: C holds pointers to the graph
    /// structs, which must not move when the vector grows.
    #[allow(clippy::vec_box)]
    graphs: Slot<Vec<Box<OwnedGraph>>>,
    aux_tensors: Slot<Vec<*mut ggml_tensor>>,
}

impl MetaBackend {
    /// Forgets the last computation's graphs and tensors.
    fn clear_last(&self) {
        self.graphs.with(Vec::clear);
        self.aux_tensors.with(|tensors| {
            for t in tensors.drain(..) {
                // SAFETY: a box leaked by aux_tensor (Tensor::leak), released once; the graphs
                // that used it were forgotten just before.
                drop(unsafe { Box::from_raw(t) });
            }
        });
    }

    /// Frees what the backend owns: the collective, the last computation, the scratch buffers
    /// and the simple backends.
    fn release(&self, caller: &str) {
        if let Some(comm) = &self.comm {
            // SAFETY: the collective's context, made by its comm_init, freed once.
            unsafe { (comm.free)(comm.context) };
        }
        self.clear_last();
        for b in self.scratch.iter().filter_map(Cell::get) {
            // SAFETY: the backend made its scratch buffers and owns them; its graphs are gone.
            unsafe { crate::buffer::free_buffer(b) };
        }
        for &simple in &self.simple {
            simple.free(caller);
        }
    }
}

static META_GUID: GuidCell = GuidCell(core::cell::UnsafeCell::new([
    0xf1, 0x0e, 0x34, 0xcf, 0x9c, 0x6f, 0x43, 0xcb, 0x96, 0x92, 0xbe, 0x8e, 0xbb, 0x71, 0x3f, 0xda,
]));

struct GuidCell(core::cell::UnsafeCell<ggml_guid>);
// SAFETY: never written; C only compares its bytes.
unsafe impl Sync for GuidCell {}

/// A new meta backend on `device`: a simple backend on each of its simple devices.
///
/// # Safety
/// `params` is NULL or a NUL-terminated string.
pub unsafe fn new_backend(
    caller: &str,
    device: Device,
    meta: &MetaDevice,
    params: *const c_char,
) -> Result<Backend, Failure> {
    let n = meta.simple.len();
    let names = try_collect(meta.simple.iter().map(|d| super::c_bytes(d.name(caller))))?;
    let mut scratch = try_vec(n * reduce_steps(n))?;
    scratch.resize_with(n * reduce_steps(n), Cell::default);
    // All the memory first: once the simple backends are made, only they can fail.
    let mut context = try_box(MetaBackend {
        name: joined_name(&names)?,
        simple: try_vec(n)?,
        comm: None,
        scratch,
        scratch_size: Cell::new(0),
        graphs: Slot::default(),
        aux_tensors: Slot::default(),
    })?;
    let mut object = try_box(ggml_backend {
        guid: META_GUID.0.get(),
        iface: BACKEND_IFACE,
        device: device.as_ptr(),
        context: core::ptr::null_mut(),
    })?;
    for d in &meta.simple {
        // SAFETY: params is NULL or a NUL-terminated string (this function's contract).
        let Some(backend) = (unsafe { d.init_backend(caller, params) }) else {
            context.release(caller);
            return failed!("{caller}: a simple device of the meta device made no backend");
        };
        context.simple.push(backend);
    }
    if n > 1 {
        match comm_init(caller, &mut context.simple) {
            Ok(comm) => context.comm = comm,
            Err(why) => {
                context.release(caller);
                return Err(why.into());
            }
        }
    }
    object.context = Box::into_raw(context) as *mut c_void;
    Ok(Backend::leak(object))
}

/// ceil(log2(n)): the steps of a butterfly reduction over n devices.
fn reduce_steps(n: usize) -> usize {
    n.next_power_of_two().trailing_zeros() as usize
}

fn comm_init(caller: &str, simple: &mut [Backend]) -> Result<Option<Comm>, Refused> {
    let Some(reg) = simple.first().and_then(|b| b.device()).and_then(|d| d.reg()) else {
        return Ok(None);
    };
    let init = reg.proc_address(symbol_c!("ggml_backend_comm_init"));
    if init.is_null() {
        return Ok(None);
    }
    // SAFETY: a reg's "ggml_backend_comm_init" has this signature (ggml-backend.h).
    let init: CommInit = unsafe { core::mem::transmute::<*mut c_void, CommInit>(init) };
    // SAFETY: the simple backends, as an array of handles (transparent pointers).
    let context = unsafe { init(simple.as_mut_ptr() as *mut ggml_backend_t, simple.len()) };
    if context.is_null() {
        return Ok(None);
    }
    let allreduce = reg.proc_address(symbol_c!("ggml_backend_comm_allreduce_tensor"));
    let free = reg.proc_address(symbol_c!("ggml_backend_comm_free"));
    if allreduce.is_null() || free.is_null() {
        return refused!("{caller}: the reg has comm_init without comm_allreduce_tensor and comm_free");
    }
    // SAFETY: the reg's entries of these names have these signatures (ggml-backend.h).
    let (allreduce, free) = unsafe {
        (
            core::mem::transmute::<*mut c_void, CommAllreduce>(allreduce),
            core::mem::transmute::<*mut c_void, CommFree>(free),
        )
    };
    Ok(Some(Comm { context, allreduce, free }))
}

pub fn is_meta_backend(backend: Backend) -> bool {
    backend.is_named_by(backend_get_name)
}

/// The context of a meta backend, or an abort naming the caller.
pub fn meta_backend<'a>(caller: &str, backend: Backend) -> Result<&'a MetaBackend, Refused> {
    if !is_meta_backend(backend) {
        return refused!("{caller}: backend is not a meta backend");
    }
    // SAFETY: a meta backend's context is the MetaBackend boxed by new_backend, released in
    // backend_free; the backend is live, so the context is too.
    Ok(unsafe { &*(backend.context() as *const MetaBackend) })
}

/// A view whose source is a host tensor outside the meta buffers: every device takes it as it
/// is. (0.7.4 also counts views of meta tensors whose meta buffer is host memory, and puts the
/// meta tensor itself in the devices' graphs; here those views use their per-device slices.)
fn is_host_view(node: Tensor) -> bool {
    node.view_src().is_some_and(|v| {
        v.op() == GGML_OP_NONE
            && v.buffer().is_some_and(|b| !is_meta_buffer(b) && b.buft().is_some_and(|t| t.is_host()))
    })
}

/// Computes `graph`, whose tensors are allocated in meta buffers, on the simple backends: the
/// first simple backend's status that is not a success, else success.
pub fn graph_compute(caller: &str, backend: &MetaBackend, graph: Graph) -> Result<ggml_status, Failure> {
    let n = backend.simple.len();
    let (nodes, leafs) = (graph.nodes(), graph.leafs());
    // The previous computation is over (the caller synchronized or this backend is in order).
    backend.clear_last();
    // Each meta buffer once; a graph uses a few, so a search beats sorting (in code size too).
    let mut used = try_vec(leafs.len() + nodes.len())?;
    for b in leafs.iter().chain(nodes).filter_map(|t| t.buffer()).filter(|&b| is_meta_buffer(b)) {
        if !used.contains(&b) {
            used.push(b);
        }
    }
    for b in used {
        meta_buffer(caller, b)?.rotate_compute_sets();
    }
    if nodes.is_empty() {
        return Ok(ggml_status::GGML_STATUS_SUCCESS);
    }
    // Graphs that share a static tensor each view it in its buffer, whose slices for a graph's
    // views go when the graph after next starts: a graph computed again later makes them again
    // (in graph order, sources first), and points their users' slices at them. The reference
    // reads the freed slices there instead.
    let in_meta = |node: &&Tensor| !is_host_view(**node) && node.buffer().is_some_and(is_meta_buffer);
    let mut remade = false;
    for &node in nodes.iter().filter(in_meta) {
        remade |= remake_lost_slices(caller, node)?;
    }
    if remade {
        for &node in nodes.iter().filter(in_meta) {
            repoint_sources(caller, node)?;
        }
    }

    let mut per_device: Vec<Vec<Tensor>> = try_vec(n)?;
    for j in 0..n {
        let mut slices = try_vec(nodes.len())?;
        for &node in nodes {
            slices.push(if is_host_view(node) { node } else { slice_of(caller, node, j)? });
        }
        per_device.push(slices);
    }
    let mut plan = try_vec(nodes.len())?;
    for &node in nodes {
        plan.push(schedule_node(caller, graph, node)?);
    }
    let mut compute: Vec<Vec<bool>> = try_vec(n)?;
    for slices in &per_device {
        compute.push(try_collect(slices.iter().map(|t| t.flags() & GGML_TENSOR_FLAG_COMPUTE != 0))?);
    }
    let ends = schedule::subgraph_ends(&plan, &mut compute)?;
    for (slices, flags) in per_device.iter().zip(&compute) {
        for (slice, &on) in slices.iter().zip(flags) {
            if !on {
                slice.set_flags(slice.flags() & !GGML_TENSOR_FLAG_COMPUTE);
            }
        }
    }
    // The sums are reduced after every subgraph but the last.
    let reduced = ends.split_last().map_or(&[][..], |(_, reduced)| reduced);
    let scratch_size = reduced.iter().map(|&end| nodes[end - 1].nbytes()).max().unwrap_or(0);
    backend.scratch_size.set(backend.scratch_size.get().max(scratch_size));

    let mut sub = try_vec(nodes.len())?;
    let mut start = 0;
    for (k, &end) in ends.iter().enumerate() {
        for (slices, &simple) in per_device.iter().zip(&backend.simple) {
            sub.clear();
            sub.extend((start..end).map(|i| (slices[i], graph.use_count(nodes[i]))));
            let status = compute_on(caller, backend, simple, OwnedGraph::new(&sub)?)?;
            if status != ggml_status::GGML_STATUS_SUCCESS {
                return Ok(status);
            }
        }
        if n > 1 && k < reduced.len() {
            let last = try_collect(per_device.iter().map(|slices| slices[end - 1]))?;
            let by_comm = match &backend.comm {
                Some(c) => {
                    let mut tensors = try_collect(last.iter().map(|t| t.as_ptr()))?;
                    // SAFETY: the collective's context, with one live tensor per simple backend.
                    unsafe { (c.allreduce)(c.context, tensors.as_mut_ptr()) }
                }
                None => false,
            };
            if !by_comm {
                let status = allreduce(caller, backend, &last)?;
                if status != ggml_status::GGML_STATUS_SUCCESS {
                    return Ok(status);
                }
            }
        }
        start = end;
    }
    Ok(ggml_status::GGML_STATUS_SUCCESS)
}

/// What the placement of the subgraph cuts needs of a node.
fn schedule_node(caller: &str, graph: Graph, node: Tensor) -> Result<schedule::Node, Refused> {
    let axis_of = |t: Tensor| match t.buffer() {
        Some(b) if is_meta_buffer(b) => split_state(caller, t, false).map(|state| state.axis),
        _ => Ok(GGML_BACKEND_SPLIT_AXIS_UNKNOWN),
    };
    let mut srcs = [None; GGML_MAX_SRC];
    for (slot, src) in node.srcs().iter().enumerate() {
        if let Some(t) = *src {
            srcs[slot] = Some(schedule::Src { id: t.addr(), axis: axis_of(t)? });
        }
    }
    Ok(schedule::Node {
        id: node.addr(),
        op: node.op(),
        r#type: node.r#type(),
        ne: node.ne(),
        nb: node.nb(),
        srcs,
        view_src: node.view_src().map(Tensor::addr),
        view_offs: node.view_offs(),
        use_count: graph.use_count(node),
        axis: if is_host_view(node) { None } else { Some(axis_of(node)?) },
    })
}

/// Computes `graph` on `simple`, keeping it until the next computation.
fn compute_on(
    caller: &str,
    backend: &MetaBackend,
    simple: Backend,
    graph: Box<OwnedGraph>,
) -> Result<ggml_status, Failure> {
    let kept = backend.graphs.with(|graphs| {
        graphs.try_reserve(1)?;
        graphs.push(graph);
        // The pointer taken where the graph is kept, which it does not leave.
        Ok::<_, OutOfMemory>(graphs.last_mut().map(|g| g.as_ptr()))
    })?;
    let Some(raw) = kept else {
        return failed!("{caller}: a subgraph was not kept");
    };
    // SAFETY: the graph's nodes are live slices (or host tensors); graph and nodes are kept
    // until the next computation, after the simple backend is done with them.
    Ok(unsafe { simple.graph_compute(caller, raw) })
}

/// A tensor of this backend's own with `like`'s type and layout, kept until the next graph.
fn aux_tensor(backend: &MetaBackend, like: Tensor) -> Result<Tensor, OutOfMemory> {
    backend.aux_tensors.with(|tensors| {
        tensors.try_reserve(1)?;
        let tensor = Tensor::leak(try_box(like.layout_only())?);
        tensors.push(tensor.as_ptr());
        Ok(tensor)
    })
}

/// The sum of the devices' `last` tensors on every device: a butterfly over the largest power
/// of two of devices, with the rest folded in first and copied back last.
fn allreduce(caller: &str, backend: &MetaBackend, last: &[Tensor]) -> Result<ggml_status, Failure> {
    let n = last.len();
    // A device that computed nothing (an empty share) holds garbage: it contributes zeros.
    // Written as zero bytes once the device is idle, not scaled by 0 on it as 0.7.4 does: garbage
    // that reads as NaN or infinity would survive the scaling and spoil the sum.
    for (&t, simple) in last.iter().zip(&backend.simple) {
        if t.flags() & GGML_TENSOR_FLAG_COMPUTE != 0 {
            continue;
        }
        simple.synchronize();
        let Some(buffer) = t.storage_buffer() else {
            return failed!("{caller}: node->buffer is NULL");
        };
        // SAFETY: the whole of an allocated tensor, which the device no longer uses.
        unsafe { buffer.memset_tensor(caller, t, 0, 0, t.nbytes()) };
    }
    let half = if n / 2 == 0 { 0 } else { 1 << (usize::BITS - 1 - (n / 2).leading_zeros()) };
    let mut step = 0;
    for j_src in 2 * half..n {
        let add = push(caller, backend, last, j_src, j_src - 2 * half, step)?;
        let status = compute_on(caller, backend, backend.simple[j_src - 2 * half], add)?;
        if status != ggml_status::GGML_STATUS_SUCCESS {
            return Ok(status);
        }
        step = 1;
    }
    let mut adds = try_vec(2 * half)?;
    let mut offset = half;
    while offset >= 1 {
        // All copies of a step first, then the additions: every device sends its value of the
        // previous step.
        for j in (0..2 * half).filter(|&j| (j ^ offset) < n) {
            adds.push((j ^ offset, push(caller, backend, last, j, j ^ offset, step)?));
        }
        for (dst, add) in adds.drain(..) {
            let status = compute_on(caller, backend, backend.simple[dst], add)?;
            if status != ggml_status::GGML_STATUS_SUCCESS {
                return Ok(status);
            }
        }
        step += 1;
        offset /= 2;
    }
    for j in 2 * half..n {
        copy_between(caller, backend, last[j - 2 * half], j - 2 * half, last[j], j)?;
    }
    Ok(ggml_status::GGML_STATUS_SUCCESS)
}

/// Copies device `src`'s value into a scratch tensor on device `dst`, and gives the graph that
/// adds it to `dst`'s value in place.
fn push(
    caller: &str,
    backend: &MetaBackend,
    last: &[Tensor],
    src: usize,
    dst: usize,
    step: usize,
) -> Result<Box<OwnedGraph>, Failure> {
    let (node_src, node_dst) = (last[src], last[dst]);
    if !node_src.is_contiguous() || !node_dst.is_contiguous() {
        return failed!("{caller}: PARTIAL node {} is not contiguous", node_dst.name());
    }
    let tmp = aux_tensor(backend, node_dst)?;
    let scratch = scratch_buffer(caller, backend, dst, step)?;
    tmp.set_buffer_and_data(scratch, crate::buffer::base(caller, scratch)?);
    copy_between(caller, backend, node_src, src, tmp, dst)?;

    let add = aux_tensor(backend, node_dst)?;
    let (view_src, view_offs) = match node_dst.view_src() {
        Some(v) => (v, node_dst.view_offs()),
        None => (node_dst, 0),
    };
    add.set_op(op::ADD);
    add.set_src(0, node_dst);
    add.set_src(1, tmp);
    add.set_view_src(view_src, view_offs);
    add.set_buffer_ptr_and_data(view_src.buffer_ptr(), view_src.data().wrapping_byte_add(view_offs));
    add.set_flags(GGML_TENSOR_FLAG_COMPUTE);
    Ok(OwnedGraph::new(&[(add, 0)])?)
}

/// Device `dev`'s scratch buffer of reduction step `step`, (re)made large enough.
fn scratch_buffer(caller: &str, backend: &MetaBackend, dev: usize, step: usize) -> Result<Buffer, Failure> {
    let size = backend.scratch_size.get();
    let Some(slot) = backend.scratch.get(dev * reduce_steps(backend.simple.len()) + step) else {
        return failed!("{caller}: no all-reduce buffer for device {dev} at step {step}");
    };
    if let Some(b) = slot.get() {
        if b.size() >= size {
            return Ok(b);
        }
        slot.set(None);
        // SAFETY: a buffer of this backend's, not used by a pending computation (each graph
        // waits for the copies into it), and no longer in its slot.
        unsafe { crate::buffer::free_buffer(b) };
    }
    let buft = backend.simple[dev].device_checked(caller)?.buffer_type_checked(caller)?;
    let Some(b) = crate::buffer::alloc_buffer(caller, buft, size) else {
        let why = Refused(format!("{caller}: allocating an all-reduce buffer failed"));
        return Err(Failure::OutOfMemory(Some(why)));
    };
    slot.set(Some(b));
    Ok(b)
}

/// Copies `src` (device `j_src`'s) into `dst` (device `j_dst`'s) through host memory, once
/// both devices are done with them.
fn copy_between(
    caller: &str,
    backend: &MetaBackend,
    src: Tensor,
    j_src: usize,
    dst: Tensor,
    j_dst: usize,
) -> Result<(), Failure> {
    backend.simple[j_src].synchronize();
    backend.simple[j_dst].synchronize();
    let size = src.nbytes();
    let mut bytes = try_filled(size, 0u8)?;
    let (Some(src_buffer), Some(dst_buffer)) = (src.storage_buffer(), dst.storage_buffer()) else {
        return failed!("{caller}: a tensor of the all-reduce has no buffer");
    };
    // SAFETY: both tensors are allocated with the same layout; the host bytes hold `size`.
    unsafe {
        src_buffer.get_tensor(caller, src, bytes.as_mut_ptr() as *mut c_void, 0, size);
        dst_buffer.set_tensor(caller, dst, bytes.as_ptr() as *const c_void, 0, size);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The backend interface, called by the backend layer with the meta backend.
// ---------------------------------------------------------------------------------------------

#[callback(ggml_backend_name)]
unsafe extern "C" fn backend_get_name(backend: ggml_backend_t) -> *const c_char {
    checked!(meta_backend(FN, arg!(backend))).name.as_ptr()
}

#[callback(ggml_backend_free)]
unsafe extern "C" fn backend_free(backend: ggml_backend_t) {
    let handle = arg!(backend);
    let context: *const MetaBackend = checked!(meta_backend(FN, handle));
    // SAFETY: the object and context boxed by new_backend (checked to be a meta backend's),
    // released once, here, as the backend goes.
    let (object, context) = unsafe { (Box::from_raw(handle.as_ptr()), Box::from_raw(context.cast_mut())) };
    context.release(FN);
    drop(object);
}

/// Transfers the whole of `tensor` between the caller's bytes and its slices, asynchronously
/// where the simple backends can.
///
/// # Safety
/// The data pointer of `access` holds (or has room for) `size` bytes.
unsafe fn transfer_async(
    caller: &str,
    backend: &MetaBackend,
    tensor: Tensor,
    access: Access,
    offset: usize,
    size: usize,
) -> Result<(), Refused> {
    if offset != 0 {
        return refused!("{caller}: the meta backend transfers whole tensors (offset {offset})");
    }
    if !tensor.is_contiguous() {
        return refused!("{caller}: tensor {} is not contiguous", tensor.name());
    }
    let state = split_state(caller, tensor, false)?;
    if split::is_segmented(&state) {
        return refused!("{caller}: tensor {} has a segmented split", tensor.name());
    }
    let n = backend.simple.len();
    if n == 0 {
        return refused!("{caller}: the meta backend drives no backends");
    }
    let slices = (0..n).map(|j| slice_of(caller, tensor, j)).collect::<Result<Vec<Tensor>, Refused>>()?;
    let chunks = match state.axis {
        0..=2 => super::buffer::plan(caller, tensor, &state, &slices, offset, size)?,
        GGML_BACKEND_SPLIT_AXIS_MIRRORED => {
            // Written to every device, read from the first.
            let devices = if matches!(access, Access::Set(_)) { n } else { 1 };
            (0..devices).map(|dev| Chunk::whole(dev, offset, 0, size)).collect()
        }
        axis => return refused!("{caller}: cannot transfer a tensor with split axis {axis} asynchronously"),
    };
    // SAFETY: the chunks cover the whole tensor, which the caller's bytes hold.
    unsafe { access_chunks(caller, &chunks, &slices, access, Some(&backend.simple)) }
}

#[callback(ggml_backend_tensor_set_async)]
unsafe extern "C" fn backend_set_tensor_async(
    backend: ggml_backend_t,
    tensor: *mut ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    let (meta, tensor) = (checked!(meta_backend(FN, arg!(backend))), arg!(tensor));
    // SAFETY: `data` holds `size` bytes (the API's contract).
    checked!(unsafe { transfer_async(FN, meta, tensor, Access::Set(data), offset, size) })
}

#[callback(ggml_backend_tensor_get_async)]
unsafe extern "C" fn backend_get_tensor_async(
    backend: ggml_backend_t,
    tensor: *const ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    let (meta, tensor) = (checked!(meta_backend(FN, arg!(backend))), arg!(tensor));
    // SAFETY: `data` has room for `size` bytes (the API's contract).
    checked!(unsafe { transfer_async(FN, meta, tensor, Access::Get(data), offset, size) })
}

#[callback(ggml_backend_synchronize)]
unsafe extern "C" fn backend_synchronize(backend: ggml_backend_t) {
    for simple in &checked!(meta_backend(FN, arg!(backend))).simple {
        simple.synchronize();
    }
}

#[callback(ggml_backend_graph_compute)]
unsafe extern "C" fn backend_graph_compute(backend: ggml_backend_t, cgraph: *mut ggml_cgraph) -> ggml_status {
    let meta = checked!(meta_backend(FN, arg!(backend)));
    let graph = arg!(cgraph);
    if graph.has_grads() {
        refuse!("{FN}: the meta backend does not compute gradients");
    }
    graph_compute(FN, meta, graph).unwrap_or_else(|failure| failure.status(FN))
}

const BACKEND_IFACE: ggml_backend_i = ggml_backend_i {
    get_name: Some(backend_get_name),
    free: Some(backend_free),
    set_tensor_async: Some(backend_set_tensor_async),
    get_tensor_async: Some(backend_get_tensor_async),
    set_tensor_2d_async: None,
    get_tensor_2d_async: None,
    cpy_tensor_async: None,
    synchronize: Some(backend_synchronize),
    graph_plan_create: None,
    graph_plan_free: None,
    graph_plan_update: None,
    graph_plan_compute: None,
    graph_compute: Some(backend_graph_compute),
    event_record: None,
    event_wait: None,
    graph_optimize: None,
};

#[cfg(test)]
mod tests {
    use super::reduce_steps;

    #[test]
    fn a_butterfly_takes_ceil_log2_steps() {
        assert_eq!([1, 2, 3, 4, 5, 8, 9, 16].map(reduce_steps), [0, 1, 2, 2, 3, 3, 4, 4]);
    }
}
