//! The meta backend: one simple backend per simple device. A graph runs as per-device
//! subgraphs that end at each PARTIAL node; between two subgraphs the devices' partial sums are
//! added up (an all-reduce), by the simple backends' own collective when their reg offers one,
//! else by copying and adding on the simple backends.

use super::buffer::{is_meta_buffer, meta_buffer, remake_lost_slices, repoint_sources, simple_tensor, split_state};
use super::MetaDevice;
use super::{schedule, split};
use crate::abi::op;
use crate::abi::*;
use crate::ggml::{ensure, fatal, null_handle};
use crate::graph::{Graph, Tensor};
use crate::handle::{Backend, Buffer, Device};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_void, CString};

type CommInit = unsafe extern "C" fn(backends: *mut wsp_ggml_backend_t, n: usize) -> *mut c_void;
type CommFree = unsafe extern "C" fn(comm: *mut c_void);
type CommAllreduce = unsafe extern "C" fn(comm: *mut c_void, tensors: *mut *mut wsp_ggml_tensor) -> bool;

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
    /// Scratch buffers for the all-reduce: one per device and reduction step.
    scratch: RefCell<Vec<Vec<Option<Buffer>>>>,
    scratch_size: Cell<usize>,
    /// The graphs and tensors of the last computation, kept until the next one starts since
    /// the simple backends may still be working on them. Boxed: C holds pointers to the graph
    /// structs, which must not move when the vector grows.
    #[allow(clippy::vec_box)]
    graphs: RefCell<Vec<Box<DeviceGraph>>>,
    aux_tensors: RefCell<Vec<*mut wsp_ggml_tensor>>,
}

impl MetaBackend {
    /// Forgets the last computation's graphs and tensors.
    fn clear_last(&self) {
        self.graphs.borrow_mut().clear();
        for t in self.aux_tensors.borrow_mut().drain(..) {
            // SAFETY: made by Box::into_raw in aux_tensor, released once.
            drop(unsafe { Box::from_raw(t) });
        }
    }
}

static META_GUID: GuidCell = GuidCell(std::cell::UnsafeCell::new([
    0xf1, 0x0e, 0x34, 0xcf, 0x9c, 0x6f, 0x43, 0xcb, 0x96, 0x92, 0xbe, 0x8e, 0xbb, 0x71, 0x3f, 0xda,
]));

struct GuidCell(std::cell::UnsafeCell<wsp_ggml_guid>);
// SAFETY: never written; C only compares its bytes.
unsafe impl Sync for GuidCell {}

/// A new meta backend on `device`: a simple backend on each of its simple devices.
///
/// # Safety
/// `params` is NULL or a NUL-terminated string.
pub unsafe fn new_backend(caller: &str, device: Device, meta: &MetaDevice, params: *const c_char) -> Backend {
    let mut name = b"Meta(".to_vec();
    let mut simple = Vec::with_capacity(meta.simple.len());
    for (i, d) in meta.simple.iter().enumerate() {
        if i > 0 {
            name.push(b',');
        }
        name.extend_from_slice(super::c_bytes(d.name(caller)));
        // SAFETY: the caller's promise.
        let backend = unsafe { d.init_backend(caller, params) };
        simple.push(backend.unwrap_or_else(|| fatal!("{caller}: a simple device of the meta device made no backend")));
    }
    name.push(b')');
    let comm = if simple.len() > 1 { comm_init(caller, &mut simple) } else { None };
    let n_steps = reduce_steps(simple.len());
    let context = MetaBackend {
        name: CString::new(name).unwrap_or_default(),
        scratch: RefCell::new(vec![vec![None; n_steps]; simple.len()]),
        simple,
        comm,
        scratch_size: Cell::new(0),
        graphs: RefCell::new(Vec::new()),
        aux_tensors: RefCell::new(Vec::new()),
    };
    let object = Box::new(wsp_ggml_backend {
        guid: META_GUID.0.get(),
        iface: BACKEND_IFACE,
        device: device.as_ptr(),
        context: Box::into_raw(Box::new(context)) as *mut c_void,
    });
    // SAFETY: a box is never NULL; freed by backend_free.
    unsafe { Backend::from_raw(Box::into_raw(object)) }.expect("a box is never NULL")
}

/// ceil(log2(n)): the steps of a butterfly reduction over n devices.
fn reduce_steps(n: usize) -> usize {
    n.next_power_of_two().trailing_zeros() as usize
}

fn comm_init(caller: &str, simple: &mut [Backend]) -> Option<Comm> {
    let reg = simple[0].device_or_abort(caller).reg()?;
    let init = reg.proc_address(c"wsp_ggml_backend_comm_init");
    if init.is_null() {
        return None;
    }
    // SAFETY: a reg's "wsp_ggml_backend_comm_init" has this signature (ggml-backend.h).
    let init: CommInit = unsafe { std::mem::transmute::<*mut c_void, CommInit>(init) };
    // SAFETY: the simple backends, as an array of handles (transparent pointers).
    let context = unsafe { init(simple.as_mut_ptr() as *mut wsp_ggml_backend_t, simple.len()) };
    if context.is_null() {
        return None;
    }
    let allreduce = reg.proc_address(c"wsp_ggml_backend_comm_allreduce_tensor");
    let free = reg.proc_address(c"wsp_ggml_backend_comm_free");
    ensure!(
        !allreduce.is_null() && !free.is_null(),
        "{caller}: the reg has comm_init without comm_allreduce_tensor and comm_free"
    );
    // SAFETY: the reg's entries of these names have these signatures (ggml-backend.h).
    let (allreduce, free) = unsafe {
        (
            std::mem::transmute::<*mut c_void, CommAllreduce>(allreduce),
            std::mem::transmute::<*mut c_void, CommFree>(free),
        )
    };
    Some(Comm { context, allreduce, free })
}

pub fn is_meta_backend(backend: Backend) -> bool {
    backend.is_named_by(backend_get_name)
}

/// The context of a meta backend, or an abort naming the caller.
pub fn meta_backend<'a>(caller: &str, backend: Backend) -> &'a MetaBackend {
    ensure!(is_meta_backend(backend), "{caller}: backend is not a meta backend");
    // SAFETY: a meta backend's context is the MetaBackend boxed by new_backend, released in
    // backend_free; the backend is live, so the context is too.
    unsafe { &*(backend.context() as *const MetaBackend) }
}

/// A graph over one device's nodes, with its own hash set and use counts (ggml's fusion
/// checks look nodes up in them).
struct DeviceGraph {
    nodes: Vec<Tensor>,
    keys: Vec<*mut wsp_ggml_tensor>,
    used: Vec<u32>,
    use_counts: Vec<i32>,
    graph: wsp_ggml_cgraph,
}

impl DeviceGraph {
    /// `nodes` with their use counts, under a new graph uid (a backend may cache what it made of
    /// a graph by its uid).
    fn new(nodes: Vec<(Tensor, i32)>) -> Box<DeviceGraph> {
        let size = 2 * nodes.len() + 1;
        let mut g = Box::new(DeviceGraph {
            nodes: nodes.iter().map(|&(t, _)| t).collect(),
            keys: vec![std::ptr::null_mut(); size],
            used: vec![0; size.div_ceil(32)],
            use_counts: vec![0; size],
            graph: crate::graph::graph_over(&mut Vec::new(), &mut Vec::new()),
        });
        for &(t, count) in &nodes {
            // ggml's hash: linear probing from the address over 16.
            let mut i = (t.addr() >> 4) % size;
            while g.used[i >> 5] & (1 << (i & 31)) != 0 && g.keys[i] != t.as_ptr() {
                i = (i + 1) % size;
            }
            g.used[i >> 5] |= 1 << (i & 31);
            g.keys[i] = t.as_ptr();
            g.use_counts[i] = count;
        }
        let mut no_leafs = Vec::new();
        g.graph = crate::graph::graph_over(&mut g.nodes, &mut no_leafs);
        g.graph.use_counts = g.use_counts.as_mut_ptr();
        g.graph.visited_hash_set = wsp_ggml_hash_set { size, used: g.used.as_mut_ptr(), keys: g.keys.as_mut_ptr() };
        g.graph.uid = crate::ggml::next_graph_uid();
        g
    }
}

/// A view whose source is a host tensor outside the meta buffers: every device takes it as it
/// is. (0.7.4 also counts views of meta tensors whose meta buffer is host memory, and puts the
/// meta tensor itself in the devices' graphs; here those views use their per-device slices.)
fn is_host_view(node: Tensor) -> bool {
    node.view_src().is_some_and(|v| {
        v.op() == WSP_GGML_OP_NONE
            && v.buffer().is_some_and(|b| !is_meta_buffer(b) && b.buft().is_some_and(|t| t.is_host()))
    })
}

/// Computes `graph` on the simple backends.
///
/// # Safety
/// The graph and its tensors are live and allocated in meta buffers.
pub unsafe fn graph_compute(caller: &str, backend: &MetaBackend, graph: Graph) -> wsp_ggml_status {
    let n = backend.simple.len();
    let nodes = graph.nodes();
    // The previous computation is over (the caller synchronized or this backend is in order).
    backend.clear_last();
    let mut used: Vec<Buffer> =
        graph.leafs().iter().chain(nodes).filter_map(|t| t.buffer()).filter(|&b| is_meta_buffer(b)).collect();
    used.sort_by_key(|b| b.as_ptr() as usize);
    used.dedup();
    for b in used {
        meta_buffer(caller, b).rotate_compute_sets();
    }
    if nodes.is_empty() {
        return wsp_ggml_status::WSP_GGML_STATUS_SUCCESS;
    }
    // Graphs that share a static tensor each view it in its buffer, whose slices for a graph's
    // views go when the graph after next starts: a graph computed again later makes them again
    // (in graph order, sources first), and points their users' slices at them. The reference
    // reads the freed slices there instead.
    let in_meta = |node: &&Tensor| !is_host_view(**node) && node.buffer().is_some_and(is_meta_buffer);
    let mut remade = false;
    for &node in nodes.iter().filter(in_meta) {
        remade |= remake_lost_slices(caller, node);
    }
    if remade {
        nodes.iter().filter(in_meta).for_each(|&node| repoint_sources(caller, node));
    }

    let per_device: Vec<Vec<Tensor>> = (0..n)
        .map(|j| {
            nodes
                .iter()
                .map(|&node| {
                    if is_host_view(node) {
                        node
                    } else {
                        simple_tensor(caller, node, j)
                            .unwrap_or_else(|| fatal!("{caller}: node {} has no slice on device {j}", node.name()))
                    }
                })
                .collect()
        })
        .collect();

    let plan: Vec<schedule::Node> = nodes.iter().map(|&node| schedule_node(caller, graph, node)).collect();
    let mut compute: Vec<Vec<bool>> =
        per_device.iter().map(|d| d.iter().map(|t| t.flags() & WSP_GGML_TENSOR_FLAG_COMPUTE != 0).collect()).collect();
    let ends = schedule::subgraph_ends(&plan, &mut compute);
    for (slices, flags) in per_device.iter().zip(&compute) {
        for (slice, &on) in slices.iter().zip(flags) {
            if !on {
                slice.set_flags(slice.flags() & !WSP_GGML_TENSOR_FLAG_COMPUTE);
            }
        }
    }
    let scratch_size = ends[..ends.len() - 1].iter().map(|&end| nodes[end - 1].nbytes()).max().unwrap_or(0);
    backend.scratch_size.set(backend.scratch_size.get().max(scratch_size));

    let mut start = 0;
    for (k, &end) in ends.iter().enumerate() {
        for (j, &simple) in backend.simple.iter().enumerate() {
            let sub: Vec<(Tensor, i32)> = (start..end).map(|i| (per_device[j][i], graph.use_count(nodes[i]))).collect();
            let status = compute_on(caller, backend, simple, DeviceGraph::new(sub));
            if status != wsp_ggml_status::WSP_GGML_STATUS_SUCCESS {
                return status;
            }
        }
        if n > 1 && k + 1 < ends.len() {
            let last: Vec<Tensor> = per_device.iter().map(|d| d[end - 1]).collect();
            let by_comm = backend.comm.as_ref().is_some_and(|c| {
                let mut tensors: Vec<*mut wsp_ggml_tensor> = last.iter().map(|t| t.as_ptr()).collect();
                // SAFETY: the collective's context, with one live tensor per simple backend.
                unsafe { (c.allreduce)(c.context, tensors.as_mut_ptr()) }
            });
            if !by_comm {
                let status = allreduce(caller, backend, &last);
                if status != wsp_ggml_status::WSP_GGML_STATUS_SUCCESS {
                    return status;
                }
            }
        }
        start = end;
    }
    wsp_ggml_status::WSP_GGML_STATUS_SUCCESS
}

/// What the placement of the subgraph cuts needs of a node.
fn schedule_node(caller: &str, graph: Graph, node: Tensor) -> schedule::Node {
    let f = node.fields();
    let axis_of = |t: Tensor| match t.buffer() {
        Some(b) if is_meta_buffer(b) => split_state(caller, t, false).axis,
        _ => WSP_GGML_BACKEND_SPLIT_AXIS_UNKNOWN,
    };
    let mut srcs = [None; WSP_GGML_MAX_SRC];
    for (slot, src) in node.srcs().iter().enumerate() {
        srcs[slot] = src.map(|t| schedule::Src { id: t.addr(), axis: axis_of(t) });
    }
    schedule::Node {
        id: node.addr(),
        op: f.op,
        r#type: f.r#type,
        ne: f.ne,
        nb: f.nb,
        srcs,
        view_src: node.view_src().map(Tensor::addr),
        view_offs: f.view_offs,
        use_count: graph.use_count(node),
        axis: (!is_host_view(node)).then(|| axis_of(node)),
    }
}

fn compute_on(caller: &str, backend: &MetaBackend, simple: Backend, graph: Box<DeviceGraph>) -> wsp_ggml_status {
    let raw: *mut wsp_ggml_cgraph = {
        let mut graphs = backend.graphs.borrow_mut();
        graphs.push(graph);
        &mut graphs.last_mut().expect("just pushed").graph
    };
    // SAFETY: the graph's nodes are live slices (or host tensors), kept with the graph.
    unsafe { simple.graph_compute(caller, raw) }
}

/// A tensor of this backend's own with `like`'s type and layout, kept until the next graph.
fn aux_tensor(backend: &MetaBackend, like: Tensor) -> Tensor {
    let ptr = Box::into_raw(Box::new(like.layout_only()));
    backend.aux_tensors.borrow_mut().push(ptr);
    // SAFETY: the box lives until the next graph_compute or the backend's free.
    unsafe { Tensor::from_raw(ptr) }.expect("a box is never NULL")
}

/// The sum of the devices' `last` tensors on every device: a butterfly over the largest power
/// of two of devices, with the rest folded in first and copied back last.
fn allreduce(caller: &str, backend: &MetaBackend, last: &[Tensor]) -> wsp_ggml_status {
    let n = last.len();
    // A device that computed nothing (an empty share) holds garbage: it contributes zeros.
    // Written as zero bytes once the device is idle, not scaled by 0 on it as 0.7.4 does: garbage
    // that reads as NaN or infinity would survive the scaling and spoil the sum.
    for (j, &t) in last.iter().enumerate() {
        if t.flags() & WSP_GGML_TENSOR_FLAG_COMPUTE != 0 {
            continue;
        }
        backend.simple[j].synchronize();
        let buffer = t.storage_buffer().unwrap_or_else(|| null_handle(caller, "node->buffer"));
        // SAFETY: the whole of an allocated tensor, which the device no longer uses.
        unsafe { buffer.memset_tensor(caller, t, 0, 0, t.nbytes()) };
    }
    let half = if n / 2 == 0 { 0 } else { 1 << (usize::BITS - 1 - (n / 2).leading_zeros()) };
    let mut step = 0;
    for j_src in 2 * half..n {
        let add = push(caller, backend, last, j_src, j_src - 2 * half, step);
        let status = compute_on(caller, backend, backend.simple[j_src - 2 * half], add);
        if status != wsp_ggml_status::WSP_GGML_STATUS_SUCCESS {
            return status;
        }
        step = 1;
    }
    let mut offset = half;
    while offset >= 1 {
        // All copies of a step first, then the additions: every device sends its value of the
        // previous step.
        let adds: Vec<(usize, Box<DeviceGraph>)> = (0..2 * half)
            .filter(|&j| (j ^ offset) < n)
            .map(|j| (j ^ offset, push(caller, backend, last, j, j ^ offset, step)))
            .collect();
        for (dst, add) in adds {
            let status = compute_on(caller, backend, backend.simple[dst], add);
            if status != wsp_ggml_status::WSP_GGML_STATUS_SUCCESS {
                return status;
            }
        }
        step += 1;
        offset /= 2;
    }
    for j in 2 * half..n {
        copy_between(caller, backend, last[j - 2 * half], j - 2 * half, last[j], j);
    }
    wsp_ggml_status::WSP_GGML_STATUS_SUCCESS
}

/// Copies device `src`'s value into a scratch tensor on device `dst`, and gives the graph that
/// adds it to `dst`'s value in place.
fn push(caller: &str, backend: &MetaBackend, last: &[Tensor], src: usize, dst: usize, step: usize) -> Box<DeviceGraph> {
    let (node_src, node_dst) = (last[src], last[dst]);
    // SAFETY: live tensors.
    let contiguous = unsafe {
        crate::ggml::wsp_ggml_is_contiguous(node_src.as_ptr()) && crate::ggml::wsp_ggml_is_contiguous(node_dst.as_ptr())
    };
    ensure!(contiguous, "{caller}: PARTIAL node {} is not contiguous", node_dst.name());
    let tmp = aux_tensor(backend, node_dst);
    let scratch = scratch_buffer(caller, backend, dst, step);
    tmp.set_buffer_and_data(scratch, crate::buffer::base(caller, scratch));
    copy_between(caller, backend, node_src, src, tmp, dst);

    let add = aux_tensor(backend, node_dst);
    let (view_src, view_offs) = match node_dst.view_src() {
        Some(v) => (v, node_dst.view_offs()),
        None => (node_dst, 0),
    };
    let mut f = add.fields();
    f.op = op::ADD;
    f.src[0] = node_dst.as_ptr();
    f.src[1] = tmp.as_ptr();
    f.view_src = view_src.as_ptr();
    f.view_offs = view_offs;
    f.buffer = view_src.buffer_ptr();
    f.data = view_src.data().wrapping_byte_add(view_offs);
    f.flags = WSP_GGML_TENSOR_FLAG_COMPUTE;
    add.set_fields(f);
    DeviceGraph::new(vec![(add, 0)])
}

/// Device `dev`'s scratch buffer of reduction step `step`, (re)made large enough.
fn scratch_buffer(caller: &str, backend: &MetaBackend, dev: usize, step: usize) -> Buffer {
    let size = backend.scratch_size.get();
    let mut scratch = backend.scratch.borrow_mut();
    let slot = &mut scratch[dev][step];
    if let Some(b) = *slot {
        if b.size() >= size {
            return b;
        }
        // SAFETY: a buffer of this backend's, not used by a pending computation (each graph
        // waits for the copies into it).
        unsafe { crate::buffer::free_buffer(b) };
    }
    let simple = backend.simple[dev];
    let buft = simple.device_or_abort(caller).buffer_type_or_abort(caller);
    let b = crate::buffer::alloc_buffer(caller, buft, size)
        .unwrap_or_else(|| fatal!("{caller}: allocating an all-reduce buffer failed"));
    *slot = Some(b);
    b
}

/// Copies `src` (device `j_src`'s) into `dst` (device `j_dst`'s) through host memory, once
/// both devices are done with them.
fn copy_between(caller: &str, backend: &MetaBackend, src: Tensor, j_src: usize, dst: Tensor, j_dst: usize) {
    backend.simple[j_src].synchronize();
    backend.simple[j_dst].synchronize();
    let size = src.nbytes();
    let mut bytes = vec![0u8; size];
    let src_buffer = src.storage_buffer().unwrap_or_else(|| null_handle(caller, "src->buffer"));
    let dst_buffer = dst.storage_buffer().unwrap_or_else(|| null_handle(caller, "dst->buffer"));
    // SAFETY: both tensors are allocated with the same layout; the host bytes hold `size`.
    unsafe {
        src_buffer.get_tensor(caller, src, bytes.as_mut_ptr() as *mut c_void, 0, size);
        dst_buffer.set_tensor(caller, dst, bytes.as_ptr() as *const c_void, 0, size);
    }
}

// ---------------------------------------------------------------------------------------------
// The backend interface, called by the backend layer with the meta backend.
// ---------------------------------------------------------------------------------------------

/// # Safety
/// `backend` is NULL or a live backend.
unsafe fn this<'a>(caller: &str, backend: wsp_ggml_backend_t) -> &'a MetaBackend {
    // SAFETY: the caller's promise.
    let handle = unsafe { Backend::from_raw(backend) }.unwrap_or_else(|| null_handle(caller, "backend"));
    meta_backend(caller, handle)
}

unsafe extern "C" fn backend_get_name(backend: wsp_ggml_backend_t) -> *const c_char {
    // SAFETY: called through a backend's interface, with it.
    unsafe { this("wsp_ggml_backend_name", backend) }.name.as_ptr()
}

unsafe extern "C" fn backend_free(backend: wsp_ggml_backend_t) {
    const FN: &str = "wsp_ggml_backend_free";
    // SAFETY: called through a backend's interface, with it; checked to be a meta backend.
    unsafe { this(FN, backend) };
    // SAFETY: the object and context boxed by new_backend, released once, here.
    let (object, context) = unsafe {
        let object = Box::from_raw(backend);
        let context = Box::from_raw(object.context as *mut MetaBackend);
        (object, context)
    };
    if let Some(comm) = &context.comm {
        // SAFETY: the collective's context, freed once.
        unsafe { (comm.free)(comm.context) };
    }
    context.clear_last();
    for b in context.scratch.borrow().iter().flatten().flatten() {
        // SAFETY: the backend owned its scratch buffers.
        unsafe { crate::buffer::free_buffer(*b) };
    }
    for &simple in &context.simple {
        simple.free(FN);
    }
    drop(object);
}

/// Asynchronous transfers between the caller's bytes (the whole tensor) and the slices.
enum Transfer {
    Set(*const c_void),
    Get(*mut c_void),
}

/// # Safety
/// The data pointer holds (or has room for) `size` bytes, the whole tensor from offset 0.
unsafe fn transfer_async(
    caller: &str,
    backend: &MetaBackend,
    tensor: Tensor,
    transfer: Transfer,
    offset: usize,
    size: usize,
) {
    ensure!(offset == 0, "{caller}: the meta backend transfers whole tensors (offset {offset})");
    // SAFETY: a live tensor.
    let contiguous = unsafe { crate::ggml::wsp_ggml_is_contiguous(tensor.as_ptr()) };
    ensure!(contiguous, "{caller}: tensor {} is not contiguous", tensor.name());
    let state = split_state(caller, tensor, false);
    ensure!(!split::is_segmented(&state), "{caller}: tensor {} has a segmented split", tensor.name());
    let n = backend.simple.len();
    ensure!(n > 0, "{caller}: the meta backend drives no backends");
    let slices: Vec<Tensor> = (0..n)
        .map(|j| {
            simple_tensor(caller, tensor, j)
                .unwrap_or_else(|| fatal!("{caller}: tensor {} has no slice on device {j}", tensor.name()))
        })
        .collect();
    let runs = match state.axis {
        0..=2 => {
            let f = tensor.fields();
            let slice_nb: Vec<[usize; 4]> = slices.iter().map(|s| s.fields().nb).collect();
            // SAFETY: ggml's block size of any type value.
            let blck = unsafe { crate::ggml::wsp_ggml_blck_size(f.r#type) };
            super::buffer::chunks(&state, &f.ne, &f.nb, blck, &slice_nb, offset, size)
                .unwrap_or_else(|why| fatal!("{caller}: {why}"))
        }
        WSP_GGML_BACKEND_SPLIT_AXIS_MIRRORED => {
            // Written to every device, read from the first.
            let devices = if matches!(transfer, Transfer::Set(_)) { n } else { 1 };
            (0..devices)
                .map(|dev| super::buffer::Chunk {
                    dev,
                    slice_offset: offset,
                    data_offset: 0,
                    size,
                    rows: 1,
                    slice_stride: 0,
                    data_stride: 0,
                })
                .collect()
        }
        axis => fatal!("{caller}: cannot transfer a tensor with split axis {axis} asynchronously"),
    };
    for c in runs {
        let (simple, slice) = (backend.simple[c.dev], slices[c.dev]);
        for r in 0..c.rows {
            let (at, len) = (c.slice_offset + r * c.slice_stride, c.size);
            let data_at = c.data_offset + r * c.data_stride;
            // SAFETY: the runs stay inside the caller's bytes and the slice; without an
            // asynchronous entry the transfer is done synchronously, as the backend layer does.
            unsafe {
                let done = match transfer {
                    Transfer::Set(data) => simple.set_tensor_async(slice, data.wrapping_byte_add(data_at), at, len),
                    Transfer::Get(data) => simple.get_tensor_async(slice, data.wrapping_byte_add(data_at), at, len),
                };
                if !done {
                    let buffer = slice.storage_buffer().unwrap_or_else(|| null_handle(caller, "slice->buffer"));
                    match transfer {
                        Transfer::Set(data) => {
                            buffer.set_tensor(caller, slice, data.wrapping_byte_add(data_at), at, len)
                        }
                        Transfer::Get(data) => {
                            buffer.get_tensor(caller, slice, data.wrapping_byte_add(data_at), at, len)
                        }
                    }
                }
            }
        }
    }
}

unsafe extern "C" fn backend_set_tensor_async(
    backend: wsp_ggml_backend_t,
    tensor: *mut wsp_ggml_tensor,
    data: *const c_void,
    offset: usize,
    size: usize,
) {
    const FN: &str = "wsp_ggml_backend_tensor_set_async";
    // SAFETY: called through the interface with a live backend and tensor; `data` holds `size`
    // bytes (the API's contract).
    unsafe {
        let tensor = Tensor::from_raw(tensor).unwrap_or_else(|| null_handle(FN, "tensor"));
        transfer_async(FN, this(FN, backend), tensor, Transfer::Set(data), offset, size)
    }
}

unsafe extern "C" fn backend_get_tensor_async(
    backend: wsp_ggml_backend_t,
    tensor: *const wsp_ggml_tensor,
    data: *mut c_void,
    offset: usize,
    size: usize,
) {
    const FN: &str = "wsp_ggml_backend_tensor_get_async";
    // SAFETY: as for backend_set_tensor_async, with room for `size` bytes.
    unsafe {
        let tensor = Tensor::from_raw(tensor).unwrap_or_else(|| null_handle(FN, "tensor"));
        transfer_async(FN, this(FN, backend), tensor, Transfer::Get(data), offset, size)
    }
}

unsafe extern "C" fn backend_synchronize(backend: wsp_ggml_backend_t) {
    // SAFETY: called through the interface with a live backend.
    for simple in &unsafe { this("wsp_ggml_backend_synchronize", backend) }.simple {
        simple.synchronize();
    }
}

unsafe extern "C" fn backend_graph_compute(
    backend: wsp_ggml_backend_t,
    cgraph: *mut wsp_ggml_cgraph,
) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_graph_compute";
    // SAFETY: called through the interface with a live backend and graph.
    unsafe {
        let meta = this(FN, backend);
        let graph = Graph::from_raw(cgraph).unwrap_or_else(|| null_handle(FN, "cgraph"));
        ensure!((*cgraph).grads.is_null(), "{FN}: the meta backend does not compute gradients");
        graph_compute(FN, meta, graph)
    }
}

const BACKEND_IFACE: wsp_ggml_backend_i = wsp_ggml_backend_i {
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
