//! The multi-backend scheduler: assigns each node of a graph to a backend, cuts the graph into
//! splits, copies tensors between backends, allocates compute buffers through ggml-alloc and
//! runs the splits (optionally pipelined with events).
//!
//! The decisions are made in safe Rust by [`plan`] over dense per-tensor arrays; this module
//! reads the C tensors into those arrays, materialises the plan (copy tensors, rewired
//! sources, the graph handed to ggml-alloc) and drives the backends.
//!
//! Thread safety: as in the reference, a scheduler must not be used from two threads at once.
//!
//! Deliberate differences from the reference, each a fix:
//! - no limit on the inputs of a split or on graph inputs (the reference aborts past 10);
//! - no limit on graph size: the tables grow instead of asserting;
//! - in pipeline-parallel mode, the copy slot is chosen when a graph is allocated, so that
//!   evaluating the same allocated graph again uses fresh inputs (upstream ggml #14855);
//! - `WSP_GGML_SCHED_DOT=file` writes the splits as a Graphviz graph.

mod arena;
mod dot;
pub mod plan;
mod tensor_map;

use crate::abi::*;
use crate::backend::synchronize;
use crate::buffer::{buffer_is_host, storage_buffer};
use crate::event::event_synchronize;
use crate::ffi::arg;
use crate::ggml::*;
use arena::TensorArena;
use plan::{plan_graph, BuftId, Oracle, Plan, PlanError, SchedConfig, TensorTable, Tid, NO_TENSOR};
use std::ffi::{c_char, c_int, c_void, CStr};

/// Most backends a scheduler takes (as in the reference).
pub const WSP_GGML_SCHED_MAX_BACKENDS: usize = 16;
/// Pipeline copies in parallel mode (as in the reference).
pub const WSP_GGML_SCHED_MAX_COPIES: usize = 4;

pub fn is_view_op(op: wsp_ggml_op) -> bool {
    matches!(op, WSP_GGML_OP_VIEW | WSP_GGML_OP_RESHAPE | WSP_GGML_OP_PERMUTE | WSP_GGML_OP_TRANSPOSE)
}

/// Nodes `[i0, i1)` of a graph, without leafs or gradients (ggml's graph view).
pub fn graph_view(graph: &mut wsp_ggml_cgraph, i0: c_int, i1: c_int) -> wsp_ggml_cgraph {
    wsp_ggml_cgraph {
        size: 0,
        n_nodes: i1 - i0,
        n_leafs: 0,
        nodes: graph.nodes.wrapping_add(i0 as usize),
        grads: std::ptr::null_mut(),
        grad_accs: std::ptr::null_mut(),
        leafs: std::ptr::null_mut(),
        use_counts: graph.use_counts,
        visited_hash_set: graph.visited_hash_set,
        order: graph.order,
    }
}

/// The scheduler (opaque to C).
#[allow(non_camel_case_types)]
pub struct wsp_ggml_backend_sched {
    /// Assignments were cleared since the last split.
    is_reset: bool,
    /// The last reservation failed: ggml-alloc keeps the layout it planned but has no buffer
    /// for it, so the next allocation must reserve again rather than trust that layout.
    needs_reserve: bool,
    /// A graph is allocated and ready to compute.
    is_alloc: bool,

    backends: Vec<wsp_ggml_backend_t>,
    /// Backend names, for the names of copies.
    backend_names: Vec<Vec<u8>>,
    bufts: Vec<wsp_ggml_backend_buffer_type_t>,
    buft_ids: Vec<BuftId>,
    galloc: wsp_ggml_gallocr_t,

    /// Per-tensor decisions, and the C side of each tensor id.
    table: TensorTable,
    tensors: Vec<*mut wsp_ggml_tensor>,
    /// `[tid][backend][copy]` copies made for other backends.
    copies: Vec<*mut wsp_ggml_tensor>,
    /// Counts splits, to refresh each tensor's info once per split.
    epoch: u32,
    node_tids: Vec<Tid>,
    leaf_tids: Vec<Tid>,
    plan: Plan,
    /// Answers to supports_op, per `[tid][backend]`, for the current split (0 = not asked).
    op_support: Vec<u8>,
    buft_support: Vec<(usize, BuftId, bool)>,

    /// The graph handed to ggml-alloc: split inputs, their copies, then each split's nodes.
    graph: wsp_ggml_cgraph,
    graph_nodes: Vec<*mut wsp_ggml_tensor>,
    graph_leafs: Vec<*mut wsp_ggml_tensor>,
    node_backend_ids: Vec<c_int>,
    leaf_backend_ids: Vec<c_int>,
    prev_node_backend_ids: Vec<c_int>,
    prev_leaf_backend_ids: Vec<c_int>,
    /// Each split's nodes, as a graph view of the user's graph.
    split_graphs: Vec<wsp_ggml_cgraph>,
    arena: TensorArena,

    n_copies: usize,
    cur_copy: usize,
    next_copy: usize,
    events: Vec<[wsp_ggml_backend_event_t; WSP_GGML_SCHED_MAX_COPIES]>,

    callback_eval: wsp_ggml_backend_sched_eval_callback,
    callback_eval_user_data: *mut c_void,

    op_offload: bool,
    debug: i32,
    dot_path: Option<std::path::PathBuf>,
}

/// Answers the planner's questions from the real backends, remembering answers for the
/// current split (the passes ask the same questions many times).
struct BackendOracle<'a> {
    backends: &'a [wsp_ggml_backend_t],
    tensors: &'a [*mut wsp_ggml_tensor],
    op_support: &'a mut Vec<u8>,
    buft_support: &'a mut Vec<(usize, BuftId, bool)>,
}

impl Oracle for BackendOracle<'_> {
    fn supports_op(&mut self, backend: usize, node: Tid) -> bool {
        let index = node as usize * self.backends.len() + backend;
        if index >= self.op_support.len() {
            self.op_support.resize((node as usize + 1) * self.backends.len(), 0);
        }
        match self.op_support[index] {
            1 => false,
            2 => true,
            _ => {
                // SAFETY: backends and graph tensors are live during the split.
                let yes = unsafe { crate::backend::wsp_ggml_backend_supports_op(self.backends[backend], self.tensors[node as usize]) };
                self.op_support[index] = 1 + yes as u8;
                yes
            }
        }
    }

    fn offload_op(&mut self, backend: usize, node: Tid) -> bool {
        // SAFETY: as above.
        unsafe { crate::backend::wsp_ggml_backend_offload_op(self.backends[backend], self.tensors[node as usize]) }
    }

    fn supports_buft(&mut self, backend: usize, buft: BuftId) -> bool {
        if let Some(&(_, _, yes)) = self.buft_support.iter().find(|&&(b, t, _)| b == backend && t == buft) {
            return yes;
        }
        // SAFETY: the id is the address of a live buffer type.
        let yes = unsafe {
            crate::backend::wsp_ggml_backend_supports_buft(self.backends[backend], buft as wsp_ggml_backend_buffer_type_t)
        };
        self.buft_support.push((backend, buft, yes));
        yes
    }
}

/// A tensor with `s`'s type, shape and strides and nothing else: no data, no sources, no
/// name (ggml's dup_tensor with the layout kept).
fn same_layout_as(s: &wsp_ggml_tensor) -> wsp_ggml_tensor {
    wsp_ggml_tensor {
        r#type: s.r#type,
        buffer: std::ptr::null_mut(),
        ne: s.ne,
        nb: s.nb,
        op: WSP_GGML_OP_NONE,
        op_params: [0; WSP_GGML_MAX_OP_PARAMS / 4],
        flags: 0,
        src: [std::ptr::null_mut(); WSP_GGML_MAX_SRC],
        view_src: std::ptr::null_mut(),
        view_offs: 0,
        data: std::ptr::null_mut(),
        name: [0; WSP_GGML_MAX_NAME],
        extra: std::ptr::null_mut(),
        padding: [0; 8],
    }
}

/// Writes `parts` into a tensor name, truncated to what fits (as snprintf would).
fn write_name(name: &mut [c_char; WSP_GGML_MAX_NAME], parts: &[&[u8]]) {
    // SAFETY: c_char and u8 have the same layout.
    let name: &mut [u8; WSP_GGML_MAX_NAME] = unsafe { &mut *(name as *mut [c_char; WSP_GGML_MAX_NAME] as *mut _) };
    let mut len = 0;
    for part in parts {
        let n = part.len().min(WSP_GGML_MAX_NAME - 1 - len);
        name[len..len + n].copy_from_slice(&part[..n]);
        len += n;
    }
    name[len] = 0;
}

/// The bytes of a tensor's name.
fn name_bytes(tensor: &wsp_ggml_tensor) -> &[u8] {
    let len = tensor.name.iter().position(|&c| c == 0).unwrap_or(WSP_GGML_MAX_NAME);
    // SAFETY: c_char and u8 have the same layout.
    unsafe { std::slice::from_raw_parts(tensor.name.as_ptr() as *const u8, len) }
}

impl wsp_ggml_backend_sched {
    fn n_backends(&self) -> usize {
        self.backends.len()
    }

    fn backend_index(&self, backend: wsp_ggml_backend_t) -> Option<usize> {
        self.backends.iter().position(|&b| b == backend)
    }

    /// The id of a tensor, recording its address when new.
    #[inline(always)]
    fn tid_of(&mut self, tensor: *mut wsp_ggml_tensor) -> Tid {
        let (tid, added) = self.table.id(tensor as usize);
        if added {
            self.tensors.push(tensor);
            let n = self.n_backends() * self.n_copies;
            self.copies.extend(std::iter::repeat_n(std::ptr::null_mut(), n));
        }
        tid
    }

    fn copy_slot(&self, tid: Tid, backend: usize, copy: usize) -> usize {
        (tid as usize * self.n_backends() + backend) * self.n_copies + copy
    }

    fn clear_tensors(&mut self) {
        self.table.clear();
        self.tensors.clear();
        self.copies.clear();
    }

    /// Reads what the planner needs to know about `tensor` (once per split).
    ///
    /// # Safety
    /// `tensor` and everything it points to are live.
    unsafe fn refresh(&mut self, tensor: *mut wsp_ggml_tensor) -> Tid {
        let tid = self.tid_of(tensor);
        self.refresh_tid(tid);
        tid
    }

    /// [`Self::refresh`] for a tensor that already has an id.
    #[inline(always)]
    unsafe fn refresh_tid(&mut self, tid: Tid) {
        // Most calls find the tensor fresh already: decide that without a call.
        if !self.table.mark_refreshed(tid, self.epoch) {
            self.read_info(tid);
        }
    }

    /// Fills in the [`plan::TensorInfo`] of `tid` from its tensor.
    #[inline(never)]
    unsafe fn read_info(&mut self, tid: Tid) {
        let t = &*self.tensors[tid as usize];
        let view_src = if t.view_src.is_null() { NO_TENSOR } else { self.refresh(t.view_src) };
        let storage = storage_buffer(t);
        let own = t.buffer.as_ref();
        let weights = own.is_some_and(|b| b.usage == wsp_ggml_backend_buffer_usage::WSP_GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        let mut srcs = [NO_TENSOR; WSP_GGML_MAX_SRC];
        for (slot, &src) in srcs.iter_mut().zip(&t.src) {
            if !src.is_null() {
                let src_tid = self.tid_of(src);
                // In graph order sources come first and are fresh already; one outside the
                // graph (rare) is read here.
                self.refresh_tid(src_tid);
                *slot = src_tid;
            }
        }
        let info = &mut self.table.info[tid as usize];
        info.view_src = view_src;
        info.storage_buft = storage.as_ref().map(|b| b.buft as BuftId);
        info.preallocated = !t.buffer.is_null() || t.view_src.as_ref().is_some_and(|v| !v.buffer.is_null());
        info.weights = weights;
        // Only asked about weights (the op-offload rule), so only computed for them.
        info.host = weights && buffer_is_host(&*t.buffer, "wsp_ggml_backend_sched_alloc_graph");
        info.input = t.flags & WSP_GGML_TENSOR_FLAG_INPUT != 0;
        info.is_view_op = is_view_op(t.op);
        info.is_rope = t.op == WSP_GGML_OP_ROPE;
        info.srcs = srcs;
    }

    /// A copy of `src` with the same layout, named "BACKEND#name#copy".
    unsafe fn make_copy(&mut self, src: *mut wsp_ggml_tensor, backend: usize, copy: usize) -> *mut wsp_ggml_tensor {
        let s = &*src;
        let dst = self.arena.alloc(same_layout_as(s));
        write_name(&mut (*dst).name, &[&self.backend_names[backend], b"#", name_bytes(s), b"#", &[b'0' + copy as u8]]);
        dst
    }

    /// A view of `input` that keeps it alive until its copy is made (ggml's view_tensor with
    /// `input` as its source).
    unsafe fn make_input_dependency(&mut self, input: *mut wsp_ggml_tensor) -> *mut wsp_ggml_tensor {
        let s = &*input;
        let (view_src, view_offs) = if s.view_src.is_null() { (input, 0) } else { (s.view_src, s.view_offs) };
        let mut view = same_layout_as(s);
        view.view_src = view_src;
        view.view_offs = view_offs;
        view.data = if (*view_src).data.is_null() { std::ptr::null_mut() } else { ((*view_src).data as *mut u8).add(view_offs) as *mut c_void };
        view.src[0] = input;
        let dst = self.arena.alloc(view);
        write_name(&mut (*dst).name, &[name_bytes(s), b" (view)"]);
        dst
    }

    /// Assigns backends, cuts the graph into splits and builds the graph for ggml-alloc.
    ///
    /// # Safety
    /// `graph` and its tensors are live.
    unsafe fn split_graph(&mut self, graph: *mut wsp_ggml_cgraph) {
        self.is_reset = false;
        self.arena.reset();
        self.epoch = self.epoch.wrapping_add(1).max(1);

        let g = &mut *graph;
        let (nodes, leafs) = (crate::utils::graph_nodes(g), graph_leafs(g));
        self.node_tids.clear();
        self.leaf_tids.clear();
        for &leaf in leafs {
            let tid = self.refresh(leaf);
            self.leaf_tids.push(tid);
        }
        for &node in nodes {
            let tid = self.refresh(node);
            self.node_tids.push(tid);
        }

        self.buft_support.clear();
        self.op_support.clear();
        self.op_support.resize(self.table.len() * self.n_backends(), 0);
        let config = SchedConfig { bufts: &self.buft_ids, n_copies: self.n_copies, op_offload: self.op_offload };
        let mut oracle = BackendOracle {
            backends: &self.backends,
            tensors: &self.tensors,
            op_support: &mut self.op_support,
            buft_support: &mut self.buft_support,
        };
        let planned = plan_graph(&mut self.table, &config, &mut oracle, &self.node_tids, &self.leaf_tids, &mut self.plan);
        if let Err(error) = planned {
            self.abort_on_plan_error(error);
        }

        self.materialize_copies(nodes);
        if self.debug > 0 {
            self.print_assignments(g);
        }
        if let Some(path) = self.dot_path.clone() {
            dot::write_splits(self, g, &path);
        }
        self.build_alloc_graph(g);
    }

    #[cold]
    unsafe fn abort_on_plan_error(&self, error: PlanError) -> ! {
        match error {
            PlanError::Preallocated(tid) => {
                let t = self.tensors[tid as usize];
                let buffer = storage_buffer(&*t);
                let buffer_name = if buffer.is_null() { "(none)".into() } else { c_str_lossy(crate::buffer::wsp_ggml_backend_buffer_name(buffer)) };
                fatal!(
                    "wsp_ggml_backend_sched: pre-allocated tensor ({}) in a buffer ({}) that cannot run the operation ({})",
                    tensor_name(t),
                    buffer_name,
                    c_str_lossy(wsp_ggml_op_name((*t).op))
                )
            }
            PlanError::Unassigned(tid) => {
                let t = self.tensors[tid as usize];
                fatal!(
                    "wsp_ggml_backend_sched: no backend can run tensor {} (op {}); the last backend should be a CPU backend that supports every op",
                    tensor_name(t),
                    c_str_lossy(wsp_ggml_op_name((*t).op))
                )
            }
        }
    }

    /// Creates the copies the plan asked for and points the nodes at them.
    unsafe fn materialize_copies(&mut self, nodes: &[*mut wsp_ggml_tensor]) {
        let parallel = self.n_copies > 1;
        for r in 0..self.plan.copy_requests.len() {
            let request = self.plan.copy_requests[r];
            let src = self.tensors[request.tid as usize];
            for c in 0..self.n_copies {
                let copy = if request.graph_input && c == self.cur_copy {
                    // The user's tensor itself is the current copy.
                    src
                } else {
                    self.make_copy(src, request.backend, c)
                };
                if parallel {
                    // Inputs, and kept as outputs so that ggml-alloc never reuses their memory.
                    (*copy).flags |= WSP_GGML_TENSOR_FLAG_INPUT | WSP_GGML_TENSOR_FLAG_OUTPUT;
                }
                let slot = self.copy_slot(request.tid, request.backend, c);
                self.copies[slot] = copy;
            }
        }
        for rewrite in &self.plan.rewrites {
            let slot = self.copy_slot(rewrite.src, rewrite.backend as usize, self.cur_copy);
            (*nodes[rewrite.node as usize]).src[rewrite.slot as usize] = self.copies[slot];
        }
    }

    /// Builds the graph for ggml-alloc: before each split its inputs (a dependency on the
    /// source, then the copy), then its nodes; in parallel mode every copy is also a leaf so
    /// that it is allocated first; then the graph's own leafs.
    unsafe fn build_alloc_graph(&mut self, g: &mut wsp_ggml_cgraph) {
        // The previous graph's assignments, to detect changes (ggml-alloc must then reserve).
        std::mem::swap(&mut self.node_backend_ids, &mut self.prev_node_backend_ids);
        std::mem::swap(&mut self.leaf_backend_ids, &mut self.prev_leaf_backend_ids);

        self.graph_nodes.clear();
        self.graph_leafs.clear();
        self.split_graphs.clear();
        let mut node_ids = std::mem::take(&mut self.node_backend_ids);
        let mut leaf_ids = std::mem::take(&mut self.leaf_backend_ids);
        let mut n_ids = 0;

        for s in 0..self.plan.splits.len() {
            let split = self.plan.splits[s].clone();
            self.split_graphs.push(graph_view(g, split.i_start as c_int, split.i_end as c_int));
            for k in split.inputs.clone() {
                let input_tid = self.plan.split_inputs[k];
                let input = self.tensors[input_tid as usize];
                let dependency = self.make_input_dependency(input);
                put_id(&mut node_ids, &mut n_ids, self.table.backend[input_tid as usize]);
                self.graph_nodes.push(dependency);
                let copy = self.copies[self.copy_slot(input_tid, split.backend, self.cur_copy)];
                put_id(&mut node_ids, &mut n_ids, split.backend as i32);
                self.graph_nodes.push(copy);
            }
            // The split's own nodes, in bulk.
            let (start, end) = (n_ids, n_ids + split.i_end - split.i_start);
            if node_ids.len() < end {
                node_ids.resize(end, 0);
            }
            for (id, &tid) in node_ids[start..end].iter_mut().zip(&self.node_tids[split.i_start..split.i_end]) {
                *id = self.table.backend[tid as usize];
            }
            n_ids = end;
            self.graph_nodes.extend_from_slice(&crate::utils::graph_nodes(g)[split.i_start..split.i_end]);
        }

        let mut n_leaf_ids = 0;
        if self.n_copies > 1 {
            for &input_tid in &self.plan.graph_inputs {
                let backend = self.table.backend[input_tid as usize];
                for c in 0..self.n_copies {
                    let copy = self.copies[self.copy_slot(input_tid, backend as usize, c)];
                    put_id(&mut leaf_ids, &mut n_leaf_ids, backend);
                    self.graph_leafs.push(copy);
                }
            }
            for split in &self.plan.splits {
                for &input_tid in &self.plan.split_inputs[split.inputs.clone()] {
                    for c in 0..self.n_copies {
                        let copy = self.copies[self.copy_slot(input_tid, split.backend, c)];
                        put_id(&mut leaf_ids, &mut n_leaf_ids, split.backend as i32);
                        self.graph_leafs.push(copy);
                    }
                }
            }
        }
        for (i, &leaf) in graph_leafs(g).iter().enumerate() {
            put_id(&mut leaf_ids, &mut n_leaf_ids, self.table.backend[self.leaf_tids[i] as usize]);
            self.graph_leafs.push(leaf);
        }

        // Keep the id arrays at least as long as the previous ones, as the reference's
        // fixed-size arrays are, so that change detection compares the same entries.
        self.node_backend_ids = node_ids;
        self.leaf_backend_ids = leaf_ids;
        let (n_nodes, n_leafs) = (self.graph_nodes.len(), self.graph_leafs.len());
        for ids in [&mut self.prev_node_backend_ids, &mut self.node_backend_ids] {
            if ids.len() < n_nodes {
                ids.resize(n_nodes, 0);
            }
        }
        for ids in [&mut self.prev_leaf_backend_ids, &mut self.leaf_backend_ids] {
            if ids.len() < n_leafs {
                ids.resize(n_leafs, 0);
            }
        }
        self.graph = wsp_ggml_cgraph {
            size: self.graph_nodes.capacity().max(self.graph_leafs.capacity()) as c_int,
            n_nodes: n_nodes as c_int,
            n_leafs: n_leafs as c_int,
            nodes: self.graph_nodes.as_mut_ptr(),
            grads: std::ptr::null_mut(),
            grad_accs: std::ptr::null_mut(),
            leafs: self.graph_leafs.as_mut_ptr(),
            use_counts: std::ptr::null_mut(),
            visited_hash_set: wsp_ggml_hash_set { size: 0, used: std::ptr::null_mut(), keys: std::ptr::null_mut() },
            order: 0,
        };
    }

    /// Allocates the split graph, re-reserving when assignments moved to another buffer type
    /// or the current buffers are too small.
    unsafe fn alloc_splits(&mut self) -> bool {
        let moved = |ids: &[c_int], prev: &[c_int]| {
            ids.iter().zip(prev).any(|(&id, &prev)| {
                id != prev && self.buft_of(id) != self.buft_of(prev)
            })
        };
        let n_nodes = self.graph.n_nodes as usize;
        let n_leafs = self.graph.n_leafs as usize;
        let changed = moved(&self.node_backend_ids[..n_nodes], &self.prev_node_backend_ids[..n_nodes])
            || moved(&self.leaf_backend_ids[..n_leafs], &self.prev_leaf_backend_ids[..n_leafs]);

        if self.needs_reserve || changed || !wsp_ggml_gallocr_alloc_graph(self.galloc, &mut self.graph) {
            // Re-allocation may move split inputs: wait for the backends first (without the
            // scheduler's synchronize, which would change the copy slot).
            for &backend in &self.backends {
                synchronize(&*backend, backend);
            }
            if !self.reserve() || !wsp_ggml_gallocr_alloc_graph(self.galloc, &mut self.graph) {
                log_error!("wsp_ggml_backend_sched_alloc_graph: failed to allocate graph\n");
                return false;
            }
        }
        true
    }

    /// Sizes ggml-alloc's buffers for the current split graph.
    unsafe fn reserve(&mut self) -> bool {
        let ok = wsp_ggml_gallocr_reserve_n(self.galloc, &mut self.graph, self.node_backend_ids.as_ptr(), self.leaf_backend_ids.as_ptr());
        self.needs_reserve = !ok;
        ok
    }

    /// The buffer type of a backend id (-1, an unassigned leaf, has none).
    fn buft_of(&self, id: c_int) -> Option<wsp_ggml_backend_buffer_type_t> {
        usize::try_from(id).ok().and_then(|i| self.bufts.get(i).copied())
    }

    fn event(&self, backend: usize) -> wsp_ggml_backend_event_t {
        self.events.get(backend).map_or(std::ptr::null_mut(), |e| e[self.cur_copy])
    }

    /// Copies each split's inputs in and runs it.
    unsafe fn compute_splits(&mut self) -> wsp_ggml_status {
        const FN: &str = "wsp_ggml_backend_sched_graph_compute";
        for s in 0..self.plan.splits.len() {
            let split = self.plan.splits[s].clone();
            let split_backend = self.backends[split.backend];
            let event = self.event(split.backend);

            for k in split.inputs.clone() {
                let input_tid = self.plan.split_inputs[k];
                let input = self.tensors[input_tid as usize];
                let input_backend = self.backends[self.table.backend[input_tid as usize] as usize];
                let input_copy = self.copies[self.copy_slot(input_tid, split.backend, self.cur_copy)];
                if (*input).flags & WSP_GGML_TENSOR_FLAG_INPUT != 0 {
                    // User inputs are copied at once, before the user can overwrite them.
                    if event.is_null() {
                        synchronize(&*split_backend, split_backend);
                    } else {
                        event_synchronize(FN, event);
                    }
                    crate::backend::tensor_copy(FN, input, input_copy);
                } else {
                    // Wait until the split backend no longer uses the copy's memory.
                    if event.is_null() {
                        synchronize(&*split_backend, split_backend);
                    } else {
                        crate::event::wsp_ggml_backend_event_wait(split_backend, event);
                    }
                    let copied_async = match (*split_backend).iface.cpy_tensor_async {
                        Some(cpy_async) => cpy_async(input_backend, split_backend, input, input_copy),
                        None => false,
                    };
                    if !copied_async {
                        synchronize(&*input_backend, input_backend);
                        if event.is_null() {
                            synchronize(&*split_backend, split_backend);
                        } else {
                            event_synchronize(FN, event);
                        }
                        crate::backend::tensor_copy(FN, input, input_copy);
                    }
                }
            }

            let split_graph = &mut self.split_graphs[s] as *mut wsp_ggml_cgraph;
            match self.callback_eval {
                None => {
                    let status = crate::backend::wsp_ggml_backend_graph_compute_async(split_backend, split_graph);
                    if status != wsp_ggml_status::WSP_GGML_STATUS_SUCCESS {
                        return status;
                    }
                }
                Some(callback) => {
                    let status = self.compute_observed(callback, split_backend, &mut *split_graph);
                    if status != wsp_ggml_status::WSP_GGML_STATUS_SUCCESS {
                        return status;
                    }
                }
            }

            if !split.inputs.is_empty() && !event.is_null() {
                crate::event::wsp_ggml_backend_event_record(event, split_backend);
            }
        }
        wsp_ggml_status::WSP_GGML_STATUS_SUCCESS
    }

    /// Runs a split in runs of nodes the callback does not want to see, stopping after a node
    /// it wants when it returns false (the remaining splits still run, as in the reference).
    unsafe fn compute_observed(
        &self,
        callback: unsafe extern "C" fn(*mut wsp_ggml_tensor, bool, *mut c_void) -> bool,
        backend: wsp_ggml_backend_t,
        split_graph: &mut wsp_ggml_cgraph,
    ) -> wsp_ggml_status {
        let user_data = self.callback_eval_user_data;
        let n = split_graph.n_nodes;
        let mut j0 = 0;
        while j0 < n {
            let mut t = *split_graph.nodes.add(j0 as usize);
            let mut need = callback(t, true, user_data);
            let mut j1 = j0;
            while !need && j1 < n - 1 {
                j1 += 1;
                t = *split_graph.nodes.add(j1 as usize);
                need = callback(t, true, user_data);
            }
            let mut view = graph_view(split_graph, j0, j1 + 1);
            let status = crate::backend::wsp_ggml_backend_graph_compute_async(backend, &mut view);
            if status != wsp_ggml_status::WSP_GGML_STATUS_SUCCESS {
                return status;
            }
            synchronize(&*backend, backend);
            if need && !callback(t, false, user_data) {
                break;
            }
            j0 = j1 + 1;
        }
        wsp_ggml_status::WSP_GGML_STATUS_SUCCESS
    }

    fn reset(&mut self) {
        if !self.is_reset {
            self.clear_tensors();
            self.is_reset = true;
        }
        self.is_alloc = false;
    }

    unsafe fn synchronize_all(&mut self) {
        for &backend in &self.backends {
            synchronize(&*backend, backend);
        }
        if !self.is_alloc {
            // Without an allocated graph, start again from copy 0 (keeps repeated graphs stable).
            self.next_copy = 0;
        }
    }

    unsafe fn alloc_graph(&mut self, graph: *mut wsp_ggml_cgraph) -> bool {
        self.cur_copy = self.next_copy;
        self.next_copy = (self.next_copy + 1) % self.n_copies;
        self.split_graph(graph);
        if !self.alloc_splits() {
            return false;
        }
        self.is_alloc = true;
        true
    }

    /// The debug listing of WSP_GGML_SCHED_DEBUG (1: splits and their inputs, 2: also every node).
    unsafe fn print_assignments(&self, g: &mut wsp_ggml_cgraph) {
        let mut next_split = 0;
        for (i, &node) in crate::utils::graph_nodes(g).iter().enumerate() {
            if let Some(split) = self.plan.splits.get(next_split).filter(|s| s.i_start == i) {
                let mut line = format!(
                    "\n## SPLIT #{next_split}: {} # {} inputs",
                    c_str_lossy(crate::backend::wsp_ggml_backend_name(self.backends[split.backend])),
                    split.inputs.len()
                );
                for (k, &input) in self.plan.split_inputs[split.inputs.clone()].iter().enumerate() {
                    let t = self.tensors[input as usize];
                    line += &format!("{}[{} ({:>5.5})] ", if k == 0 { ": " } else { "" }, tensor_name(t), fmt_size(wsp_ggml_nbytes(t)));
                }
                log_debug!("{line}\n");
                next_split += 1;
            }
            if is_view_op((*node).op) || self.debug < 2 {
                continue;
            }
            let mut line = format!(
                "node #{i:3} ({:>10.10}): {:>20.20} ({:>5.5}) [{:>5.5} {:>8.8}]:",
                c_str_lossy(wsp_ggml_op_name((*node).op)),
                tensor_name(node),
                fmt_size(wsp_ggml_nbytes(node)),
                self.backend_name_of(node),
                ""
            );
            for &src in (*node).src.iter().filter(|s| !s.is_null()) {
                line += &format!(
                    " {:>20.20} ({:>5.5}) [{:>5.5} {:>8.8}]",
                    tensor_name(src),
                    fmt_size(wsp_ggml_nbytes(src)),
                    self.backend_name_of(src),
                    ""
                );
            }
            log_debug!("{line}\n");
        }
    }

    unsafe fn backend_name_of(&self, tensor: *mut wsp_ggml_tensor) -> String {
        match self.table.lookup(tensor as usize).map(|tid| self.table.backend[tid as usize]) {
            Some(b) if b >= 0 => c_str_lossy(crate::backend::wsp_ggml_backend_name(self.backends[b as usize])).into_owned(),
            _ => "NULL".into(),
        }
    }
}

fn fmt_size(size: usize) -> String {
    if size >= 1024 * 1024 {
        format!("{}M", size / 1024 / 1024)
    } else {
        format!("{}K", size / 1024)
    }
}

/// Writes a backend id at `*at` (growing the array as the reference's fixed arrays would
/// have room) and advances.
#[inline]
fn put_id(ids: &mut Vec<c_int>, at: &mut usize, backend: c_int) {
    if *at == ids.len() {
        ids.push(0);
    }
    ids[*at] = backend;
    *at += 1;
}

/// Graph leafs as a slice.
///
/// # Safety
/// `graph` is live.
unsafe fn graph_leafs<'a>(graph: &wsp_ggml_cgraph) -> &'a [*mut wsp_ggml_tensor] {
    if graph.n_leafs <= 0 || graph.leafs.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(graph.leafs, graph.n_leafs as usize)
    }
}

impl Drop for wsp_ggml_backend_sched {
    fn drop(&mut self) {
        // SAFETY: the events and the allocator were created by this scheduler and are freed once.
        unsafe {
            for events in &self.events {
                for &event in events {
                    crate::event::wsp_ggml_backend_event_free(event);
                }
            }
            wsp_ggml_gallocr_free(self.galloc);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// exports
// ---------------------------------------------------------------------------------------------

/// Borrows the scheduler behind a handle (NULL aborts with the function's name).
macro_rules! sched {
    ($sched:ident) => {
        match $sched.as_mut() {
            Some(s) => s,
            None => null_handle(FN, "sched"),
        }
    };
}

/// Creates a scheduler over `backends` (highest priority first; the last must be a CPU
/// backend). Returns NULL with a log line for invalid arguments (the reference asserts).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_new(
    backends: *mut wsp_ggml_backend_t,
    bufts: *mut wsp_ggml_backend_buffer_type_t,
    n_backends: c_int,
    graph_size: usize,
    parallel: bool,
    op_offload: bool,
) -> wsp_ggml_backend_sched_t {
    const FN: &str = "wsp_ggml_backend_sched_new";
    let refuse = |why: String| {
        log_error!("{FN}: {why}\n");
        std::ptr::null_mut()
    };
    if backends.is_null() {
        return refuse("backends is NULL".into());
    }
    if n_backends <= 0 || n_backends as usize > WSP_GGML_SCHED_MAX_BACKENDS {
        return refuse(format!("n_backends is {n_backends}; it must be between 1 and {WSP_GGML_SCHED_MAX_BACKENDS}"));
    }
    let backends = std::slice::from_raw_parts(backends, n_backends as usize).to_vec();
    if let Some(i) = backends.iter().position(|b| b.is_null()) {
        return refuse(format!("backends[{i}] is NULL"));
    }
    let last_device = (*backends[backends.len() - 1]).device;
    if last_device.is_null()
        || crate::device::wsp_ggml_backend_dev_type(last_device) != wsp_ggml_backend_dev_type::WSP_GGML_BACKEND_DEVICE_TYPE_CPU
    {
        return refuse("the last backend must be a CPU backend".into());
    }
    let mut buffer_types = Vec::with_capacity(backends.len());
    for (i, &backend) in backends.iter().enumerate() {
        let buft = if bufts.is_null() || (*bufts.add(i)).is_null() {
            crate::backend::wsp_ggml_backend_get_default_buffer_type(backend)
        } else {
            *bufts.add(i)
        };
        if !crate::backend::wsp_ggml_backend_supports_buft(backend, buft) {
            return refuse(format!("backend {i} does not support its buffer type"));
        }
        buffer_types.push(buft);
    }
    let n_copies = if parallel { WSP_GGML_SCHED_MAX_COPIES } else { 1 };
    let events = if n_copies > 1 {
        backends
            .iter()
            .map(|&b| std::array::from_fn(|_| crate::event::wsp_ggml_backend_event_new((*b).device)))
            .collect()
    } else {
        Vec::new()
    };
    let galloc = wsp_ggml_gallocr_new_n(buffer_types.as_mut_ptr(), n_backends);
    let backend_names = backends
        .iter()
        .map(|&b| CStr::from_ptr(crate::backend::wsp_ggml_backend_name(b)).to_bytes().to_vec())
        .collect();
    let debug = std::env::var("WSP_GGML_SCHED_DEBUG").ok().and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let dot_path = std::env::var_os("WSP_GGML_SCHED_DOT").filter(|p| !p.is_empty()).map(Into::into);
    let n = backends.len();
    let sched = Box::new(wsp_ggml_backend_sched {
        is_reset: false,
        needs_reserve: false,
        is_alloc: false,
        backend_names,
        buft_ids: buffer_types.iter().map(|&b| b as BuftId).collect(),
        bufts: buffer_types,
        backends,
        galloc,
        table: TensorTable::new(n, graph_size),
        tensors: Vec::with_capacity(graph_size),
        copies: Vec::new(),
        epoch: 0,
        node_tids: Vec::with_capacity(graph_size),
        leaf_tids: Vec::with_capacity(graph_size),
        plan: Plan::default(),
        op_support: Vec::new(),
        buft_support: Vec::new(),
        graph: std::mem::zeroed(),
        graph_nodes: Vec::new(),
        graph_leafs: Vec::new(),
        node_backend_ids: Vec::new(),
        leaf_backend_ids: Vec::new(),
        prev_node_backend_ids: Vec::new(),
        prev_leaf_backend_ids: Vec::new(),
        split_graphs: Vec::new(),
        arena: TensorArena::default(),
        n_copies,
        cur_copy: 0,
        next_copy: 0,
        events,
        callback_eval: None,
        callback_eval_user_data: std::ptr::null_mut(),
        op_offload,
        debug,
        dot_path,
    });
    let sched = Box::into_raw(sched);
    (*sched).reset();
    sched
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_free(sched: wsp_ggml_backend_sched_t) {
    if !sched.is_null() {
        drop(Box::from_raw(sched));
    }
}

/// Sizes the compute buffers for `measure_graph` (the largest graph to come). False, with
/// a log line, when a buffer cannot be allocated; the scheduler stays usable.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_reserve(sched: wsp_ggml_backend_sched_t, measure_graph: *mut wsp_ggml_cgraph) -> bool {
    const FN: &str = "wsp_ggml_backend_sched_reserve";
    let s = sched!(sched);
    arg!(measure_graph);
    s.split_graph(measure_graph);
    s.synchronize_all();
    if !s.reserve() {
        log_error!("{FN}: failed to allocate the compute buffers\n");
        s.reset();
        return false;
    }
    s.reset();
    true
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_get_n_backends(sched: wsp_ggml_backend_sched_t) -> c_int {
    const FN: &str = "wsp_ggml_backend_sched_get_n_backends";
    sched!(sched).n_backends() as c_int
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_get_backend(sched: wsp_ggml_backend_sched_t, i: c_int) -> wsp_ggml_backend_t {
    const FN: &str = "wsp_ggml_backend_sched_get_backend";
    let s = sched!(sched);
    match usize::try_from(i).ok().and_then(|i| s.backends.get(i)) {
        Some(&backend) => backend,
        None => fatal!("{FN}: index {i} out of range ({} backends)", s.n_backends()),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_get_n_splits(sched: wsp_ggml_backend_sched_t) -> c_int {
    const FN: &str = "wsp_ggml_backend_sched_get_n_splits";
    sched!(sched).plan.splits.len() as c_int
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_get_n_copies(sched: wsp_ggml_backend_sched_t) -> c_int {
    const FN: &str = "wsp_ggml_backend_sched_get_n_copies";
    sched!(sched).n_copies as c_int
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_get_buffer_size(sched: wsp_ggml_backend_sched_t, backend: wsp_ggml_backend_t) -> usize {
    const FN: &str = "wsp_ggml_backend_sched_get_buffer_size";
    let s = sched!(sched);
    match s.backend_index(backend) {
        Some(i) => wsp_ggml_gallocr_get_buffer_size(s.galloc, i as c_int),
        None => fatal!("{FN}: backend {} is not in the scheduler", c_str_lossy(crate::backend::wsp_ggml_backend_name(backend))),
    }
}

/// Pins `node` to `backend` for the next split (kept until the scheduler is reset).
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_set_tensor_backend(sched: wsp_ggml_backend_sched_t, node: *mut wsp_ggml_tensor, backend: wsp_ggml_backend_t) {
    const FN: &str = "wsp_ggml_backend_sched_set_tensor_backend";
    let s = sched!(sched);
    arg!(node);
    let Some(index) = s.backend_index(backend) else {
        fatal!("{FN}: backend {} is not in the scheduler", c_str_lossy(crate::backend::wsp_ggml_backend_name(backend)))
    };
    let tid = s.tid_of(node);
    s.table.backend[tid as usize] = index as i32;
    s.is_reset = false;
}

/// The backend assigned to `node`, or NULL when it has none.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_get_tensor_backend(sched: wsp_ggml_backend_sched_t, node: *mut wsp_ggml_tensor) -> wsp_ggml_backend_t {
    const FN: &str = "wsp_ggml_backend_sched_get_tensor_backend";
    let s = sched!(sched);
    match s.table.lookup(node as usize).map(|tid| s.table.backend[tid as usize]) {
        Some(b) if b >= 0 => s.backends[b as usize],
        _ => std::ptr::null_mut(),
    }
}

/// Assigns, splits and allocates `graph` without computing it. False, with a log line, when
/// the compute buffers cannot be allocated; the scheduler stays usable.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_alloc_graph(sched: wsp_ggml_backend_sched_t, graph: *mut wsp_ggml_cgraph) -> bool {
    const FN: &str = "wsp_ggml_backend_sched_alloc_graph";
    let s = sched!(sched);
    arg!(graph);
    s.alloc_graph(graph)
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_graph_compute(sched: wsp_ggml_backend_sched_t, graph: *mut wsp_ggml_cgraph) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_sched_graph_compute";
    let status = wsp_ggml_backend_sched_graph_compute_async(sched, graph);
    sched!(sched).synchronize_all();
    status
}

/// Allocates `graph` if no graph is allocated, then runs the splits.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_graph_compute_async(sched: wsp_ggml_backend_sched_t, graph: *mut wsp_ggml_cgraph) -> wsp_ggml_status {
    const FN: &str = "wsp_ggml_backend_sched_graph_compute_async";
    let s = sched!(sched);
    if !s.is_reset && !s.is_alloc {
        s.reset();
    }
    if !s.is_alloc {
        arg!(graph);
        if !s.alloc_graph(graph) {
            return wsp_ggml_status::WSP_GGML_STATUS_ALLOC_FAILED;
        }
    }
    s.compute_splits()
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_synchronize(sched: wsp_ggml_backend_sched_t) {
    const FN: &str = "wsp_ggml_backend_sched_synchronize";
    sched!(sched).synchronize_all();
}

/// Forgets all assignments and the allocated graph; tensors allocated by the scheduler
/// must not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_reset(sched: wsp_ggml_backend_sched_t) {
    const FN: &str = "wsp_ggml_backend_sched_reset";
    sched!(sched).reset();
}

#[no_mangle]
pub unsafe extern "C" fn wsp_ggml_backend_sched_set_eval_callback(
    sched: wsp_ggml_backend_sched_t,
    callback: wsp_ggml_backend_sched_eval_callback,
    user_data: *mut c_void,
) {
    const FN: &str = "wsp_ggml_backend_sched_set_eval_callback";
    let s = sched!(sched);
    s.callback_eval = callback;
    s.callback_eval_user_data = user_data;
}
