//! Placing tensors in buffers, copying a whole graph to another backend, and comparing two
//! backends node by node.

use crate::abi::*;
use crate::base::fallible::{try_collect, OutOfMemory, SortedMap};
use crate::base::ggml::*;
use crate::base::report::*;
use crate::handle::{Backend, Buffer, Graph, Tensor};
use core::fmt;

/// Points an unallocated view at its source's memory.
pub fn view_init(caller: &str, tensor: Tensor) -> Result<ggml_status, Refused> {
    if tensor.buffer().is_some() {
        return refused!("{caller}: tensor {} is already allocated", tensor.name());
    }
    let Some(view_src) = tensor.view_src() else {
        return refused!("{caller}: tensor {} is not a view", tensor.name());
    };
    let Some(buffer) = view_src.buffer().filter(|_| !view_src.data().is_null()) else {
        return refused!("{caller}: the source of view {} is not allocated", tensor.name());
    };
    tensor.set_buffer_and_data(buffer, view_src.data().wrapping_byte_add(tensor.view_offs()));
    Ok(buffer.init_tensor(tensor))
}

/// Places an unallocated tensor at `addr` inside `buffer`.
pub fn tensor_alloc(
    caller: &str,
    buffer: Buffer,
    tensor: Tensor,
    addr: *mut core::ffi::c_void,
) -> Result<ggml_status, Refused> {
    if tensor.buffer().is_some() || !tensor.data().is_null() {
        return refused!("{caller}: tensor {} is already allocated", tensor.name());
    }
    if tensor.view_src().is_some() {
        return refused!("{caller}: tensor {} is a view; use {PREFIX}ggml_backend_view_init", tensor.name());
    }
    let base = crate::buffer::base(caller, buffer)? as usize;
    let end = base + buffer.size();
    let size = buffer.buft_checked(caller)?.alloc_size(tensor);
    let fits = (addr as usize) >= base
        && ((addr as usize).checked_add(size).is_some_and(|e| e <= end) || crate::buffer::is_meta(caller, buffer));
    if !fits {
        return refused!(
            "{caller}: {size} bytes for tensor {} at offset {} fall outside the buffer ({} bytes)",
            tensor.name(),
            (addr as isize).wrapping_sub(base as isize),
            buffer.size()
        );
    }
    tensor.set_buffer_and_data(buffer, addr);
    Ok(buffer.init_tensor(tensor))
}

// ---------------------------------------------------------------------------------------------
// graph copy
// ---------------------------------------------------------------------------------------------

const CALLER: &str = symbol!("ggml_backend_graph_copy");

/// The state of one graph copy: original tensor → its copy, and whether the copy's data has
/// been initialised.
struct GraphCopier {
    copies: SortedMap<Tensor, (Tensor, bool)>,
    ctx_allocated: *mut ggml_context,
    ctx_unallocated: *mut ggml_context,
}

impl GraphCopier {
    /// A new tensor in `ctx` with the same type, shape and strides as `src`.
    fn dup_layout(ctx: *mut ggml_context, src: Tensor) -> Tensor {
        // SAFETY: the contexts were sized for every tensor the copy makes; src is live.
        let dup = unsafe { Tensor::from_raw(ggml_dup_tensor(ctx, src.as_ptr())) };
        let dup = dup.unwrap_or_else(|| fatal!("{CALLER}: out of context memory"));
        dup.copy_strides_from(src);
        dup
    }

    /// Creates (once) the copy of `src` and of everything it depends on, in the reference's
    /// depth-first order: allocated tensors into the context that will get a buffer.
    fn dup(&mut self, src: Tensor) -> Result<Tensor, OutOfMemory> {
        if let Some(&(copy, _)) = self.copies.get(&src) {
            return Ok(copy);
        }
        let ctx = if src.view_src().is_none() { self.ctx_allocated } else { self.ctx_unallocated };
        let dst = Self::dup_layout(ctx, src);
        // Reserve the entry first so that cycles through view_src cannot recurse forever.
        self.copies.try_insert(src, (dst, false))?;
        if let Some(view_src) = src.view_src() {
            let view_src_copy = self.dup(view_src)?;
            dst.set_view_src(view_src_copy, src.view_offs());
        }
        dst.copy_op_from(src);
        // SAFETY: both are live tensors; ggml copies the name.
        unsafe { ggml_set_name(dst.as_ptr(), src.name_ptr()) };
        for (slot, &source) in src.srcs().iter().enumerate() {
            if let Some(source) = source {
                let source_copy = self.dup(source)?;
                dst.set_src(slot, source_copy);
            }
        }
        Ok(dst)
    }

    /// Gives the copy of `src` (and of its sources) its data: views are pointed at their
    /// copied source, other tensors have their bytes copied.
    fn init(&mut self, src: Tensor) -> Result<(), Refused> {
        let Some(&(dst, false)) = self.copies.get(&src) else { return Ok(()) };
        // Marked first, as dup reserved first.
        let _ = self.copies.try_insert(src, (dst, true));
        if dst.view_src().is_some() {
            if let Some(view_src) = src.view_src() {
                self.init(view_src)?;
            }
            if view_init(CALLER, dst)? != ggml_status::GGML_STATUS_SUCCESS {
                return refused!("{CALLER}: cannot initialize view {}", dst.name());
            }
        } else {
            crate::buffer::tensor_io::copy(CALLER, src, dst);
        }
        for &source in src.srcs().iter().flatten() {
            self.init(source)?;
        }
        Ok(())
    }
}

/// Counts the distinct tensors a graph's nodes reach (nodes, sources, view sources), each of
/// which must be allocated.
fn count_reachable(nodes: &[Tensor]) -> Result<usize, Refused> {
    let out_of_memory = || refused!("{CALLER}: out of memory for a graph copy");
    let mut seen = SortedMap::default();
    let Ok(mut stack) = try_collect(nodes.iter().copied()) else { return out_of_memory() };
    while let Some(t) = stack.pop() {
        if seen.contains_key(&t) {
            continue;
        }
        if t.data().is_null() {
            return refused!("{CALLER}: graph must be allocated ({})", t.name());
        }
        if seen.try_insert(t, ()).is_err() || stack.try_reserve(GGML_MAX_SRC + 1).is_err() {
            return out_of_memory();
        }
        stack.extend(t.view_src());
        stack.extend(t.srcs().iter().flatten());
    }
    Ok(seen.len())
}

/// Copies an allocated graph (its nodes, their sources and data) into a new buffer of
/// `backend`. All fields are NULL (with a log line) when it cannot be done.
pub fn graph_copy(backend: Backend, graph: Graph) -> ggml_backend_graph_copy {
    let nodes = graph.nodes();
    // Sized for exactly what is copied, so that the contexts cannot run out.
    let n_tensors = checked!(count_reachable(nodes));
    // SAFETY: ggml's size queries have no preconditions.
    let mem_size =
        unsafe { ggml_tensor_overhead() * n_tensors.max(1) + ggml_graph_overhead_custom(graph.size(), false) };
    let params = || ggml_init_params { mem_size, mem_buffer: core::ptr::null_mut(), no_alloc: true };
    // SAFETY: ggml_init with valid parameters; the contexts are freed below or by copy_free.
    let (ctx_allocated, ctx_unallocated) = unsafe { (ggml_init(params()), ggml_init(params())) };
    let fail = |why: fmt::Arguments, buffer: ggml_backend_buffer_t| {
        // SAFETY: NULL or the buffer and contexts made above, released once.
        unsafe {
            graph_copy_free(ggml_backend_graph_copy {
                buffer,
                ctx_allocated,
                ctx_unallocated,
                ..ggml_backend_graph_copy::EMPTY
            })
        };
        ggml_backend_graph_copy::refused(why)
    };
    if ctx_allocated.is_null() || ctx_unallocated.is_null() {
        return fail(format_args!("{CALLER}: failed to allocate context for graph copy"), core::ptr::null_mut());
    }
    let mut copier = GraphCopier { copies: SortedMap::default(), ctx_allocated, ctx_unallocated };
    for &node in nodes {
        if copier.dup(node).is_err() {
            return fail(format_args!("{CALLER}: out of memory for a graph copy"), core::ptr::null_mut());
        }
    }
    // SAFETY: a live context and backend.
    let buffer = unsafe { ggml_backend_alloc_ctx_tensors(ctx_allocated, backend.as_ptr()) };
    if buffer.is_null() {
        return fail(format_args!("{CALLER}: failed to allocate buffer for graph copy"), buffer);
    }
    for &node in nodes {
        if let Err(refused) = copier.init(node) {
            return fail(format_args!("{refused}"), buffer);
        }
    }
    // SAFETY: a live context with room for a graph of this size (counted in mem_size).
    let copy = unsafe { Graph::from_raw(ggml_new_graph_custom(ctx_allocated, graph.size(), false)) };
    let copy = copy.unwrap_or_else(|| fatal!("{CALLER}: out of context memory"));
    // Every node has its copy (dup made them all).
    copy.set_nodes(nodes.iter().map(|node| copier.copies.get(node).expect("dup made every node's copy").0));
    ggml_backend_graph_copy { buffer, ctx_allocated, ctx_unallocated, graph: copy.as_ptr() }
}

/// Releases a graph copy's buffer and contexts.
///
/// # Safety
/// `copy` was made by [`graph_copy`] (or is all NULL) and is not used afterwards.
pub unsafe fn graph_copy_free(copy: ggml_backend_graph_copy) {
    // SAFETY: the copy's own buffer (or NULL), released once.
    if let Some(buffer) = unsafe { Buffer::from_raw(copy.buffer) } {
        // SAFETY: the caller gives the copy up.
        unsafe { crate::buffer::free_buffer(buffer) };
    }
    // SAFETY: NULL or the copy's contexts, freed once.
    unsafe {
        ggml_free(copy.ctx_allocated);
        ggml_free(copy.ctx_unallocated);
    }
}

/// Computes `graph` on `backend1` and a copy of it on `backend2` one node at a time, handing
/// each pair of non-view results to `callback` until it returns false. False when the copy
/// cannot be made.
pub fn compare_graph_backend(
    caller: &str,
    backend1: Backend,
    backend2: Backend,
    graph: Graph,
    mut callback: impl FnMut(usize, Tensor, Tensor) -> bool,
) -> bool {
    let copy = graph_copy(backend2, graph);
    // SAFETY: NULL or the copy's live graph.
    let Some(graph2) = (unsafe { Graph::from_raw(copy.graph) }) else {
        return false;
    };
    for (i, (&t1, &t2)) in graph.nodes().iter().zip(graph2.nodes()).enumerate() {
        let mut view1 = graph.view(i, i + 1);
        let mut view2 = graph2.view(i, i + 1);
        // SAFETY: views of live, allocated graphs.
        unsafe {
            backend1.graph_compute(caller, &mut view1);
            backend1.synchronize();
            backend2.graph_compute(caller, &mut view2);
            backend2.synchronize();
        }
        if t1.is_view_op() {
            continue;
        }
        if !callback(i, t1, t2) {
            break;
        }
    }
    // SAFETY: made above, not used afterwards.
    unsafe { graph_copy_free(copy) };
    true
}

/// Computes `graph` on `backend1` and a copy of it on `backend2`, whole, then hands `callback`
/// the pairs of results of the nodes `is_test_node` picks (its answer is not used), in graph
/// order. At least one node must be picked: the refusal names the caller otherwise.
#[cfg(any(compare_test_node, compare_test_nodes))]
pub fn compare_test_nodes(
    caller: &str,
    backend1: Backend,
    backend2: Backend,
    graph: Graph,
    is_test_node: impl Fn(Tensor) -> bool,
    mut callback: impl FnMut(usize, Tensor, Tensor) -> bool,
) -> Result<bool, Refused> {
    let copy = graph_copy(backend2, graph);
    // SAFETY: NULL or the copy's live graph.
    let Some(graph2) = (unsafe { Graph::from_raw(copy.graph) }) else {
        return Ok(false);
    };
    // SAFETY: live, allocated graphs.
    unsafe {
        backend1.graph_compute(caller, graph.as_ptr());
        backend1.synchronize();
        backend2.graph_compute(caller, graph2.as_ptr());
        backend2.synchronize();
    }
    let mut found = false;
    for (i, (&t1, &t2)) in graph.nodes().iter().zip(graph2.nodes()).enumerate() {
        if is_test_node(t1) {
            callback(i, t1, t2);
            found = true;
        }
    }
    // SAFETY: made above, not used afterwards.
    unsafe { graph_copy_free(copy) };
    if !found {
        return refused!("{caller}: none of the test nodes is a node of the graph");
    }
    Ok(true)
}
