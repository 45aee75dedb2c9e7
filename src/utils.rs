//! Utilities: placing tensors in buffers, copying a whole graph to another backend, and
//! comparing two backends node by node.

use crate::abi::*;
use crate::backend::{tensor_copy, wsp_ggml_backend_graph_compute};
use crate::buffer::{init_tensor, wsp_ggml_backend_buffer_free, wsp_ggml_backend_buffer_get_alloc_size, wsp_ggml_backend_buffer_get_base};
use crate::ffi::arg;
use crate::ggml::*;
use crate::sched::{graph_view, is_view_op};
use std::collections::HashMap;
use std::ffi::c_void;

/// Logs why a status-returning call was refused and returns WSP_GGML_STATUS_FAILED.
fn refuse(message: std::fmt::Arguments<'_>) -> wsp_ggml_status {
    log_error!("{message}\n");
    wsp_ggml_status::WSP_GGML_STATUS_FAILED
}

/// Points a view at its source's memory. Returns WSP_GGML_STATUS_FAILED with a log line
/// when the tensor is not an unallocated view of an allocated tensor (the reference asserts).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_view_init(tensor: *mut wsp_ggml_tensor) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_view_init";
    let Some(t) = tensor.as_mut() else { return refuse(format_args!("{FN}: tensor is NULL")) };
    if !t.buffer.is_null() {
        return refuse(format_args!("{FN}: tensor {} is already allocated", tensor_name(t)));
    }
    let Some(view_src) = t.view_src.as_ref() else {
        return refuse(format_args!("{FN}: tensor {} is not a view", tensor_name(t)));
    };
    if view_src.buffer.is_null() || view_src.data.is_null() {
        return refuse(format_args!("{FN}: the source of view {} is not allocated", tensor_name(t)));
    }
    t.buffer = view_src.buffer;
    t.data = (view_src.data as *mut u8).add(t.view_offs) as *mut c_void;
    init_tensor(&*t.buffer, t.buffer, tensor)
}

/// Places an unallocated tensor at `addr` inside `buffer`. Returns WSP_GGML_STATUS_FAILED
/// with a log line on a bad request (the reference asserts).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_tensor_alloc(buffer: wsp_ggml_backend_buffer_t, tensor: *mut wsp_ggml_tensor, addr: *mut c_void) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_tensor_alloc";
    if buffer.is_null() {
        return refuse(format_args!("{FN}: buffer is NULL"));
    }
    let Some(t) = tensor.as_mut() else { return refuse(format_args!("{FN}: tensor is NULL")) };
    if !t.buffer.is_null() || !t.data.is_null() {
        return refuse(format_args!("{FN}: tensor {} is already allocated", tensor_name(t)));
    }
    if !t.view_src.is_null() {
        return refuse(format_args!("{FN}: tensor {} is a view; use wsp_ggml_backend_view_init", tensor_name(t)));
    }
    let base = wsp_ggml_backend_buffer_get_base(buffer) as usize;
    let end = base + (*buffer).size;
    let size = wsp_ggml_backend_buffer_get_alloc_size(buffer, tensor);
    let fits = (addr as usize) >= base && (addr as usize).checked_add(size).is_some_and(|e| e <= end);
    if !fits {
        return refuse(format_args!(
            "{FN}: {size} bytes for tensor {} at offset {} fall outside the buffer ({} bytes)",
            tensor_name(t),
            (addr as isize).wrapping_sub(base as isize),
            (*buffer).size
        ));
    }
    t.buffer = buffer;
    t.data = addr;
    init_tensor(&*buffer, buffer, tensor)
}

// ---------------------------------------------------------------------------------------------
// graph copy
// ---------------------------------------------------------------------------------------------

/// The state of one graph copy: original tensor → its copy, and whether the copy's data has
/// been initialised.
struct GraphCopier {
    copies: HashMap<*mut wsp_ggml_tensor, (*mut wsp_ggml_tensor, bool)>,
    ctx_allocated: *mut wsp_ggml_context,
    ctx_unallocated: *mut wsp_ggml_context,
}

/// A new tensor with the same type, shape and strides as `src`.
///
/// # Safety
/// `ctx` is a live context with room for one more tensor; `src` is live.
pub unsafe fn dup_tensor_layout(ctx: *mut wsp_ggml_context, src: *const wsp_ggml_tensor) -> *mut wsp_ggml_tensor {
    let dup = wsp_ggml_dup_tensor(ctx, src);
    (*dup).nb = (*src).nb;
    dup
}

impl GraphCopier {
    /// Creates (once) the copy of `src` and of everything it depends on, in the reference's
    /// depth-first order: allocated tensors into the context that will get a buffer.
    unsafe fn dup(&mut self, src: *mut wsp_ggml_tensor) -> *mut wsp_ggml_tensor {
        ensure!(!(*src).data.is_null(), "wsp_ggml_backend_graph_copy: graph must be allocated ({})", tensor_name(src));
        if let Some(&(copy, _)) = self.copies.get(&src) {
            return copy;
        }
        let s = &*src;
        let ctx = if s.view_src.is_null() { self.ctx_allocated } else { self.ctx_unallocated };
        let dst = dup_tensor_layout(ctx, src);
        // Reserve the entry first so that cycles through view_src cannot recurse forever.
        self.copies.insert(src, (dst, false));
        if !s.view_src.is_null() {
            (*dst).view_src = self.dup(s.view_src);
            (*dst).view_offs = s.view_offs;
        }
        (*dst).op = s.op;
        (*dst).op_params = s.op_params;
        wsp_ggml_set_name(dst, s.name.as_ptr());
        for (j, &source) in s.src.iter().enumerate() {
            if !source.is_null() {
                (*dst).src[j] = self.dup(source);
            }
        }
        dst
    }

    /// Gives the copy of `src` (and of its sources) its data: views are pointed at their
    /// copied source, other tensors have their bytes copied.
    unsafe fn init(&mut self, src: *mut wsp_ggml_tensor) {
        let Some(entry) = self.copies.get_mut(&src) else { return };
        if entry.1 {
            return;
        }
        entry.1 = true;
        let dst = entry.0;
        if !(*dst).view_src.is_null() {
            self.init((*src).view_src);
            let status = crate::utils::wsp_ggml_backend_view_init(dst);
            ensure!(status == wsp_ggml_status::WSP_GGML_STATUS_SUCCESS, "wsp_ggml_backend_graph_copy: cannot initialize view {}", tensor_name(dst));
        } else {
            tensor_copy("wsp_ggml_backend_graph_copy", src, dst);
        }
        for &source in (*src).src.iter() {
            if !source.is_null() {
                self.init(source);
            }
        }
    }
}

/// Counts the distinct tensors a graph's nodes reach (nodes, sources, view sources).
///
/// # Safety
/// The graph's tensors are live.
unsafe fn count_reachable(nodes: &[*mut wsp_ggml_tensor]) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut stack: Vec<*mut wsp_ggml_tensor> = nodes.to_vec();
    while let Some(t) = stack.pop() {
        if t.is_null() || !seen.insert(t) {
            continue;
        }
        stack.push((*t).view_src);
        stack.extend((*t).src.iter().copied());
    }
    seen.len()
}

const EMPTY_GRAPH_COPY: wsp_ggml_backend_graph_copy = wsp_ggml_backend_graph_copy {
    buffer: std::ptr::null_mut(),
    ctx_allocated: std::ptr::null_mut(),
    ctx_unallocated: std::ptr::null_mut(),
    graph: std::ptr::null_mut(),
};

/// Graph nodes as a slice.
///
/// # Safety
/// `graph` is live.
pub unsafe fn graph_nodes<'a>(graph: &wsp_ggml_cgraph) -> &'a [*mut wsp_ggml_tensor] {
    if graph.n_nodes <= 0 || graph.nodes.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(graph.nodes, graph.n_nodes as usize)
    }
}

/// Copies an allocated graph (its nodes, their sources and data) into a new buffer of
/// `backend`. All fields are NULL (with a log line) when it cannot be done.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_graph_copy(backend: wsp_ggml_backend_t, graph: *mut wsp_ggml_cgraph) -> wsp_ggml_backend_graph_copy {
    const FN: &str = "wsp_ggml_backend_graph_copy";
    arg!(backend);
    let graph_ref = arg!(graph);
    let nodes = graph_nodes(graph_ref);
    // Sized for exactly what is copied, so that the contexts cannot run out.
    let n_tensors = count_reachable(nodes);
    let params = wsp_ggml_init_params {
        mem_size: wsp_ggml_tensor_overhead() * n_tensors.max(1)
            + wsp_ggml_graph_overhead_custom(graph_ref.size.max(0) as usize, false),
        mem_buffer: std::ptr::null_mut(),
        no_alloc: true,
    };
    let ctx_allocated = wsp_ggml_init(wsp_ggml_init_params { ..params });
    let ctx_unallocated = wsp_ggml_init(params);
    let fail = |what: &str| {
        log_error!("{FN}: failed to allocate {what} for graph copy\n");
        wsp_ggml_free(ctx_allocated);
        wsp_ggml_free(ctx_unallocated);
        EMPTY_GRAPH_COPY
    };
    if ctx_allocated.is_null() || ctx_unallocated.is_null() {
        return fail("context");
    }
    let mut copier = GraphCopier { copies: HashMap::with_capacity(n_tensors), ctx_allocated, ctx_unallocated };
    for &node in nodes {
        copier.dup(node);
    }
    let buffer = wsp_ggml_backend_alloc_ctx_tensors(ctx_allocated, backend);
    if buffer.is_null() {
        return fail("buffer");
    }
    for &node in nodes {
        copier.init(node);
    }
    let graph_copy = wsp_ggml_new_graph_custom(ctx_allocated, graph_ref.size.max(0) as usize, false);
    for (i, &node) in nodes.iter().enumerate() {
        *(*graph_copy).nodes.add(i) = copier.copies[&node].0;
    }
    (*graph_copy).n_nodes = graph_ref.n_nodes;
    wsp_ggml_backend_graph_copy { buffer, ctx_allocated, ctx_unallocated, graph: graph_copy }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_graph_copy_free(copy: wsp_ggml_backend_graph_copy) {
    wsp_ggml_backend_buffer_free(copy.buffer);
    wsp_ggml_free(copy.ctx_allocated);
    wsp_ggml_free(copy.ctx_unallocated);
}

/// Computes `graph` on `backend1` and a copy of it on `backend2` one node at a time,
/// handing each pair of non-view results to `callback` until it returns false. False when
/// the copy cannot be made or no callback is given. (whisper.rn 0.4.0's five arguments;
/// a 0.4.3 caller's sixth argument is ignored.)
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_compare_graph_backend(
    backend1: wsp_ggml_backend_t,
    backend2: wsp_ggml_backend_t,
    graph: *mut wsp_ggml_cgraph,
    callback: wsp_ggml_backend_eval_callback,
    user_data: *mut c_void,
) -> bool {
    const FN: &str = "wsp_ggml_backend_compare_graph_backend";
    arg!(backend1);
    let Some(callback) = callback else {
        log_error!("{FN}: callback is NULL\n");
        return false;
    };
    let copy = wsp_ggml_backend_graph_copy(backend2, graph);
    if copy.buffer.is_null() {
        return false;
    }
    let g1 = &mut *graph;
    let g2 = &mut *copy.graph;
    for i in 0..g1.n_nodes {
        let t1 = *g1.nodes.add(i as usize);
        let t2 = *g2.nodes.add(i as usize);
        let mut g1v = graph_view(g1, i, i + 1);
        let mut g2v = graph_view(g2, i, i + 1);
        wsp_ggml_backend_graph_compute(backend1, &mut g1v);
        wsp_ggml_backend_graph_compute(backend2, &mut g2v);
        if is_view_op((*t1).op) {
            continue;
        }
        if !callback(i, t1, t2, user_data) {
            break;
        }
    }
    wsp_ggml_backend_graph_copy_free(copy);
    true
}
