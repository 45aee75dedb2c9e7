//! What a plan becomes in ggml's terms: the copies it asked for and the views that keep their
//! sources alive (in the scheduler's arena), the nodes rewired to read the copies, the graph
//! handed to ggml-alloc and each split's nodes as a view of the user's graph.

use super::alloc_graph::AllocGraph;
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
        self.copies[self.slot(tid, backend, copy)].expect("the plan made this copy")
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
            let src = reading.tensors[request.tid as usize];
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
    /// backend may reorder the split's nodes first (`graph_optimize`), which are then read again.
    pub(super) fn build_alloc_graph(
        &mut self,
        plan: &Plan,
        reading: &mut GraphReading,
        #[cfg_attr(not(api_v2), allow(unused_variables))] backends: &BackendSet,
        graph: Graph,
        cur_copy: usize,
    ) {
        self.split_graphs.clear();
        // Taken out while it is written, so that the arena and the copies stay usable.
        let mut alloc_graph = core::mem::take(&mut self.alloc_graph);
        let mut builder = alloc_graph.start();
        for split in &plan.splits {
            let split_graph = graph.view(split.i_start, split.i_end);
            #[cfg(api_v2)]
            let split_graph = optimize_split(split_graph, split, reading, backends);
            self.split_graphs.push(split_graph);
            for &input_tid in &plan.split_inputs[split.inputs.clone()] {
                let input = reading.tensors[input_tid as usize];
                // A view of the input that keeps it alive until its copy is made.
                let dependency = self.arena.alloc(input.dependent_view());
                dependency.set_name(&[input.name_bytes(), b" (view)"]);
                builder.push_node(dependency, reading.table.backend[input_tid as usize]);
                builder.push_node(self.copy(input_tid, split.backend, cur_copy), split.backend as c_int);
            }
            let nodes = split.i_start..split.i_end;
            let assigned = reading.node_tids[nodes.clone()].iter().map(|&tid| reading.table.backend[tid as usize]);
            builder.push_nodes(&graph.nodes()[nodes], assigned);
        }

        if self.n_copies > 1 {
            for &input_tid in &plan.graph_inputs {
                let backend = reading.table.backend[input_tid as usize];
                for slot in self.slots(input_tid, backend as usize) {
                    builder.push_leaf(self.copies[slot].expect("the plan made this copy"), backend);
                }
            }
            for split in &plan.splits {
                for &input_tid in &plan.split_inputs[split.inputs.clone()] {
                    for slot in self.slots(input_tid, split.backend) {
                        builder.push_leaf(self.copies[slot].expect("the plan made this copy"), split.backend as c_int);
                    }
                }
            }
        }
        for (&leaf, &tid) in graph.leafs().iter().zip(&reading.leaf_tids) {
            builder.push_leaf(leaf, reading.table.backend[tid as usize]);
        }
        builder.finish();
        self.alloc_graph = alloc_graph;
        // 0.7: each split is a new graph to backends that cache per graph.
        #[cfg(graph_uid)]
        for split_graph in &mut self.split_graphs {
            split_graph.uid = crate::base::ggml::next_graph_uid();
        }
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
) -> ggml_cgraph {
    // SAFETY: a view of the user's live graph.
    if unsafe { backends.backends[split.backend].graph_optimize(&mut split_graph) } {
        // SAFETY: the view still shares the user's live graph.
        let view = unsafe { Graph::from_raw(&mut split_graph) }.expect("a local is never NULL");
        for (j, &node) in (split.i_start..split.i_end).zip(view.nodes()) {
            reading.node_tids[j] = reading.refresh_out_of_line(node);
        }
    }
    split_graph
}
