//! What a plan becomes in ggml's terms: the copies it asked for and the views that keep their
//! sources alive (in the scheduler's arena), the nodes rewired to read the copies, the graph
//! handed to ggml-alloc and each split's nodes as a view of the user's graph.

use super::alloc_graph::AllocGraph;
#[cfg(graph_optimize_params)]
use super::alloc_graph::AllocGraphBuilder;
use super::arena::TensorArena;
use super::backends::BackendSet;
use super::plan::Plan;
use super::reading::GraphReading;
use super::table::Tid;
use crate::abi::*;
use crate::base::fallible::{reserve_total, OutOfMemory};
use crate::handle::{Graph, Tensor};
use alloc::vec::Vec;
use core::ffi::c_int;

/// What the last graph's splits took room for: the tensors the scheduler makes (copies and the
/// views that keep their sources alive), the nodes and leafs of the graph for ggml-alloc, the
/// splits' graphs.
#[derive(Clone, Copy, Default)]
struct SplitRoom {
    tensors: usize,
    nodes: usize,
    leafs: usize,
    splits: usize,
}

impl SplitRoom {
    fn fits_in(&self, room: &SplitRoom) -> bool {
        self.tensors <= room.tensors
            && self.nodes <= room.nodes
            && self.leafs <= room.leafs
            && self.splits <= room.splits
    }
}

/// The materialized plan.
///
/// Invariants: `copies` has a slot per id, backend and pipeline copy for every id read so far;
/// a slot is read only after the copy request that writes it (a new id has none: the table's
/// copy bits start clear). The split graphs and the graph for ggml-alloc name the tensors of the
/// last graph materialized.
pub(super) struct Materialized {
    n_backends: usize,
    n_copies: usize,
    /// `[tid][backend][copy]` copies made for other backends.
    copies: Vec<Option<Tensor>>,
    arena: TensorArena,
    /// The graph handed to ggml-alloc.
    pub(super) alloc_graph: AllocGraph,
    /// Each split's nodes as a view of the user's graph.
    pub(super) split_graphs: Vec<ggml_cgraph>,
    room: SplitRoom,
    /// What the backends asked to keep allocated while reordering the splits.
    #[cfg(graph_optimize_params)]
    deps: crate::handle::AllocDeps,
}

impl Materialized {
    pub(super) fn new(n_backends: usize, n_copies: usize) -> Self {
        Materialized {
            n_backends,
            n_copies,
            copies: Vec::new(),
            arena: TensorArena::default(),
            alloc_graph: AllocGraph::default(),
            split_graphs: Vec::new(),
            room: SplitRoom::default(),
            #[cfg(graph_optimize_params)]
            deps: Default::default(),
        }
    }

    /// Room for what `plan` makes of `graph`, whose reading recorded `n_ids` ids: the copies
    /// and the views that keep their sources alive, the graph for ggml-alloc and the splits'
    /// graphs. Frees the tensors made for the graph before.
    fn make_room(&mut self, plan: &Plan, graph: Graph, n_ids: usize) -> Result<(), OutOfMemory> {
        self.arena.reset();
        let slots = n_ids * self.n_backends * self.n_copies;
        if self.copies.len() < slots {
            reserve_total(&mut self.copies, slots)?;
            self.copies.resize(slots, None);
        }
        let n_inputs = plan.split_inputs.len();
        let pipelined = if self.n_copies > 1 { self.n_copies * (plan.graph_inputs.len() + n_inputs) } else { 0 };
        let room = SplitRoom {
            tensors: plan.copy_requests.len() * self.n_copies + n_inputs,
            nodes: graph.nodes().len() + 2 * n_inputs,
            leafs: graph.leafs().len() + pipelined,
            splits: plan.splits.len(),
        };
        if room.fits_in(&self.room) {
            return Ok(());
        }
        self.arena.make_room(room.tensors)?;
        self.alloc_graph.make_room(room.nodes, room.leafs)?;
        reserve_total(&mut self.split_graphs, room.splits)?;
        self.room = room;
        Ok(())
    }

    fn slot(&self, tid: Tid, backend: usize, copy: usize) -> usize {
        (tid as usize * self.n_backends + backend) * self.n_copies + copy
    }

    /// The slots of every pipeline copy of `tid` for `backend`.
    fn slots(&self, tid: Tid, backend: usize) -> core::ops::Range<usize> {
        let first = self.slot(tid, backend, 0);
        first..first + self.n_copies
    }

    /// The copy of `tid` made for `backend` in pipeline slot `copy`.
    pub(super) fn copy(&self, tid: Tid, backend: usize, copy: usize) -> Tensor {
        self.made(self.slot(tid, backend, copy))
    }

    /// The copy in `slot`, which the plan made.
    fn made(&self, slot: usize) -> Tensor {
        match self.copies.get(slot) {
            Some(&Some(copy)) => copy,
            _ => not_made(),
        }
    }

    /// Takes room for what `plan` makes of `graph` (see [`Self::make_room`]), creates the copies
    /// it asked for (`cur_copy`: the pipeline slot of this evaluation) and points the nodes at
    /// them.
    pub(super) fn make_copies(
        &mut self,
        plan: &Plan,
        reading: &GraphReading,
        backends: &BackendSet,
        graph: Graph,
        cur_copy: usize,
    ) -> Result<(), OutOfMemory> {
        self.make_room(plan, graph, reading.tensors.len())?;
        let parallel = self.n_copies > 1;
        for request in &plan.copy_requests {
            let src = reading.tensors[request.tid];
            for c in 0..self.n_copies {
                let copy = if request.graph_input && c == cur_copy {
                    // The user's tensor itself is the current copy.
                    src
                } else {
                    // "BACKEND#name#copy", with the original's layout.
                    let dst = self.arena.alloc(src.layout_only());
                    let name = &backends.names[request.backend];
                    dst.set_name(&[name, b"#", src.name_bytes(), b"#", &[b'0' + c as u8]]);
                    dst
                };
                if parallel {
                    copy.keep_allocated();
                }
                let slot = self.slot(request.tid, request.backend, c);
                self.copies[slot] = Some(copy);
            }
        }
        for rewrite in &plan.rewrites {
            let copy = self.copy(rewrite.src, rewrite.backend as usize, cur_copy);
            graph.nodes()[rewrite.node as usize].set_src(rewrite.slot as usize, copy);
        }
        Ok(())
    }

    /// Builds the graph for ggml-alloc: before each split its inputs (a dependency on the
    /// source, then the copy), then its nodes; in parallel mode every copy is also a leaf so
    /// that it is allocated first; then the graph's own leafs. From whisper.rn 0.6 each split's
    /// backend may reorder the split's nodes first (`graph_optimize`), which are then read again;
    /// from plain ggml 0.3.36 it may also keep tensors allocated until a later node, which a view
    /// node after that node does (see [`Self::push_nodes_keeping`]).
    pub(super) fn build_alloc_graph(
        &mut self,
        plan: &Plan,
        reading: &mut GraphReading,
        #[cfg_attr(not(api_v2), allow(unused_variables))] backends: &BackendSet,
        graph: Graph,
        cur_copy: usize,
    ) -> Result<(), OutOfMemory> {
        self.split_graphs.clear();
        #[cfg(graph_optimize_params)]
        self.deps.clear();
        for split in &plan.splits {
            let split_graph = graph.view(split.i_start, split.i_end);
            #[cfg(api_v2)]
            let split_graph = optimize_split(
                split_graph,
                split,
                reading,
                backends,
                #[cfg(graph_optimize_params)]
                &mut self.deps,
            );
            self.split_graphs.push(split_graph);
        }
        #[cfg(graph_optimize_params)]
        self.make_room_for_kept(plan)?;

        // Taken out while it is written, so that the arena and the copies stay usable.
        let mut alloc_graph = core::mem::take(&mut self.alloc_graph);
        let mut builder = alloc_graph.start();
        for split in &plan.splits {
            for &input_tid in &plan.split_inputs[split.inputs.clone()] {
                let input = reading.tensors[input_tid];
                // A view of the input that keeps it alive until its copy is made.
                let dependency = self.arena.alloc(input.dependent_view());
                dependency.set_name(&[input.name_bytes(), b" (view)"]);
                builder.push_node(dependency, reading.table.backend[input_tid]);
                builder.push_node(self.copy(input_tid, split.backend, cur_copy), split.backend as c_int);
            }
            let nodes = split.i_start..split.i_end;
            let assigned = reading.node_tids[nodes.clone()].iter().map(|&tid| reading.table.backend[tid]);
            #[cfg(graph_optimize_params)]
            if !self.deps.is_empty() {
                self.push_nodes_keeping(&mut builder, &graph.nodes()[nodes], assigned, split.backend as c_int);
                continue;
            }
            builder.push_nodes(&graph.nodes()[nodes], assigned);
        }
        #[cfg(graph_optimize_params)]
        if let Some(last) = plan.splits.last() {
            self.push_unplaced_kept(&mut builder, last.backend as c_int);
        }

        if self.n_copies > 1 {
            for &input_tid in &plan.graph_inputs {
                let backend = reading.table.backend[input_tid];
                for slot in self.slots(input_tid, backend as usize) {
                    builder.push_leaf(self.made(slot), backend);
                }
            }
            for split in &plan.splits {
                for &input_tid in &plan.split_inputs[split.inputs.clone()] {
                    for slot in self.slots(input_tid, split.backend) {
                        builder.push_leaf(self.made(slot), split.backend as c_int);
                    }
                }
            }
        }
        for (&leaf, &tid) in graph.leafs().iter().zip(&reading.leaf_tids) {
            builder.push_leaf(leaf, reading.table.backend[tid]);
        }
        builder.finish();
        self.alloc_graph = alloc_graph;
        // 0.7: each split is a new graph to backends that cache per graph.
        #[cfg(graph_uid)]
        for split_graph in &mut self.split_graphs {
            split_graph.uid = crate::base::ggml::next_graph_uid();
        }
        Ok(())
    }

    /// Room for the view nodes that keep tensors allocated (one per `GGML_MAX_SRC` tensors kept
    /// until a node), besides the split inputs' views still to be made.
    #[cfg(graph_optimize_params)]
    fn make_room_for_kept(&mut self, plan: &Plan) -> Result<(), OutOfMemory> {
        if self.deps.lost_one() {
            return Err(OutOfMemory);
        }
        if self.deps.is_empty() {
            return Ok(());
        }
        self.deps.group();
        let kept = self.deps.all();
        let mut n_views = 0;
        let mut i = 0;
        while i < kept.len() {
            let n = kept[i..].iter().take_while(|k| k.until == kept[i].until).count();
            n_views += n.div_ceil(GGML_MAX_SRC);
            i += n;
        }
        self.arena.make_room(plan.split_inputs.len() + n_views)?;
        self.alloc_graph.make_room(self.room.nodes + n_views, self.room.leafs)
    }

    /// A split's nodes one by one, each followed by the views that keep the tensors asked to stay
    /// allocated until it (on the split's backend).
    #[cfg(graph_optimize_params)]
    fn push_nodes_keeping(
        &mut self,
        builder: &mut AllocGraphBuilder<'_>,
        nodes: &[Tensor],
        assigned: impl Iterator<Item = c_int>,
        backend: c_int,
    ) {
        for (&node, id) in nodes.iter().zip(assigned) {
            builder.push_node(node, id);
            let kept = self.deps.kept_until(node);
            for k in kept.iter_mut() {
                k.placed = true;
            }
            push_keeping_views(&mut self.arena, builder, kept, backend);
        }
    }

    /// The tensors a backend asked to keep until a tensor that is not a node of the graph (the
    /// reference aborts): kept to the end of the graph instead, with a log line.
    #[cfg(graph_optimize_params)]
    fn push_unplaced_kept(&mut self, builder: &mut AllocGraphBuilder<'_>, backend: c_int) {
        let kept = self.deps.all();
        let start = kept.iter().position(|k| !k.placed);
        if let Some(start) = start {
            crate::base::report::log_error!(
                "{PREFIX}ggml_backend_sched: a backend's graph_optimize kept a tensor ({}) until a tensor that is not a node of the graph ({}); kept to the end of the graph\n",
                kept[start].tensor.name(),
                kept[start].until.name()
            );
        }
        let mut i = 0;
        while i < kept.len() {
            let n = kept[i..].iter().take_while(|k| k.until == kept[i].until).count();
            if !kept[i].placed {
                push_keeping_views(&mut self.arena, builder, &kept[i..i + n], backend);
            }
            i += n;
        }
    }
}

/// A copy the plan asked for and `make_copies` did not make: the scheduler's own broken
/// invariant, from one place (not a panic location at every use).
#[cold]
#[inline(never)]
fn not_made() -> ! {
    panic!("{PREFIX}ggml_backend_sched: a copy the plan made is missing")
}

/// Views that keep `kept` allocated, `GGML_MAX_SRC` tensors each (the first the view's source).
#[cfg(graph_optimize_params)]
fn push_keeping_views(
    arena: &mut TensorArena,
    builder: &mut AllocGraphBuilder<'_>,
    kept: &[crate::handle::KeptUntil],
    backend: c_int,
) {
    for chunk in kept.chunks(GGML_MAX_SRC) {
        let first = chunk[0].tensor;
        let view = arena.alloc(first.dependent_view());
        view.set_name(&[first.name_bytes(), b" (view)"]);
        for (slot, k) in chunk.iter().enumerate().skip(1) {
            view.set_src(slot, k.tensor);
        }
        builder.push_node(view, backend);
    }
}

/// Lets the split's backend reorder the split's nodes (in the user's graph, which the view
/// shares), before ggml-alloc sees them, and reads the new order.
#[cfg(api_v2)]
fn optimize_split(
    mut split_graph: ggml_cgraph,
    split: &super::plan::Split,
    reading: &mut GraphReading,
    backends: &BackendSet,
    #[cfg(graph_optimize_params)] deps: &mut crate::handle::AllocDeps,
) -> ggml_cgraph {
    let backend = backends.backends[split.backend];
    // SAFETY: a view of the user's live graph.
    #[cfg(not(graph_optimize_params))]
    let reordered = unsafe { backend.graph_optimize(&mut split_graph) };
    // SAFETY: a view of the user's live graph.
    #[cfg(graph_optimize_params)]
    let reordered = unsafe { backend.graph_optimize(&mut split_graph, deps) };
    if reordered {
        // SAFETY: the view still shares the user's live graph.
        let view = unsafe { Graph::from_raw(&mut split_graph) }.expect("a local is never NULL");
        for (j, &node) in (split.i_start..split.i_end).zip(view.nodes()) {
            reading.node_tids[j] = reading.refresh_out_of_line(node);
        }
    }
    split_graph
}
