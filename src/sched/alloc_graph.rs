//! The graph the scheduler hands to ggml-alloc, with the backend id of each node and leaf.
//!
//! The id arrays are kept from one graph to the next, at least as long as the longest graph so
//! far (as the reference's fixed-size arrays are), so that a new graph's assignments can be
//! compared with the previous graph's: when a tensor moved to another buffer type, ggml-alloc
//! must reserve again.

use crate::abi::*;
use crate::base::fallible::{reserve_total, OutOfMemory};
use crate::handle::{graph_over, BufferType, Tensor};
use alloc::vec::Vec;
use core::ffi::c_int;

pub struct AllocGraph {
    nodes: Vec<Tensor>,
    leafs: Vec<Tensor>,
    node_ids: Vec<c_int>,
    leaf_ids: Vec<c_int>,
    prev_node_ids: Vec<c_int>,
    prev_leaf_ids: Vec<c_int>,
    graph: ggml_cgraph,
}

impl Default for AllocGraph {
    fn default() -> Self {
        let (mut nodes, mut leafs) = (Vec::new(), Vec::new());
        let graph = graph_over(&mut nodes, &mut leafs);
        AllocGraph {
            nodes,
            leafs,
            node_ids: Vec::new(),
            leaf_ids: Vec::new(),
            prev_node_ids: Vec::new(),
            prev_leaf_ids: Vec::new(),
            graph,
        }
    }
}

/// Writes the graph's tensors and their backend ids in order.
pub struct AllocGraphBuilder<'a> {
    alloc_graph: &'a mut AllocGraph,
}

/// Writes `id` at position `at` of `ids`, growing it only past its longest length so far.
#[inline]
fn put_id(ids: &mut Vec<c_int>, at: usize, id: c_int) {
    if at == ids.len() {
        ids.push(id);
    } else {
        ids[at] = id;
    }
}

impl AllocGraph {
    /// Room for a graph of `n_nodes` nodes and `n_leafs` leafs.
    pub fn make_room(&mut self, n_nodes: usize, n_leafs: usize) -> Result<(), OutOfMemory> {
        reserve_total(&mut self.nodes, n_nodes)?;
        reserve_total(&mut self.leafs, n_leafs)?;
        for ids in [&mut self.node_ids, &mut self.prev_node_ids] {
            reserve_total(ids, n_nodes)?;
        }
        for ids in [&mut self.leaf_ids, &mut self.prev_leaf_ids] {
            reserve_total(ids, n_leafs)?;
        }
        Ok(())
    }

    /// Starts a new graph (room for it made); the current one's ids become the previous ones.
    pub fn start(&mut self) -> AllocGraphBuilder<'_> {
        core::mem::swap(&mut self.node_ids, &mut self.prev_node_ids);
        core::mem::swap(&mut self.leaf_ids, &mut self.prev_leaf_ids);
        self.nodes.clear();
        self.leafs.clear();
        AllocGraphBuilder { alloc_graph: self }
    }

    /// Whether a node or leaf is assigned to a backend of another buffer type than in the
    /// previous graph.
    pub fn moved_buffer_type(&self, buft_of: impl Fn(c_int) -> Option<BufferType>) -> bool {
        let moved = |ids: &[c_int], prev: &[c_int]| {
            ids.iter().zip(prev).any(|(&id, &prev)| id != prev && buft_of(id) != buft_of(prev))
        };
        let (n_nodes, n_leafs) = (self.nodes.len(), self.leafs.len());
        moved(&self.node_ids[..n_nodes], &self.prev_node_ids[..n_nodes])
            || moved(&self.leaf_ids[..n_leafs], &self.prev_leaf_ids[..n_leafs])
    }

    pub fn graph(&mut self) -> *mut ggml_cgraph {
        &mut self.graph
    }

    /// How many nodes and leafs the graph has.
    #[cfg(sched_debug_realloc)]
    pub fn counts(&self) -> (usize, usize) {
        (self.nodes.len(), self.leafs.len())
    }

    /// The graph with its node and leaf ids, for ggml-alloc's reserve.
    pub fn graph_and_ids(&mut self) -> (*mut ggml_cgraph, *const c_int, *const c_int) {
        (&mut self.graph, self.node_ids.as_ptr(), self.leaf_ids.as_ptr())
    }
}

impl AllocGraphBuilder<'_> {
    pub fn push_node(&mut self, node: Tensor, backend: c_int) {
        let g = &mut *self.alloc_graph;
        put_id(&mut g.node_ids, g.nodes.len(), backend);
        g.nodes.push(node);
    }

    /// A run of nodes with their backends, in bulk.
    pub fn push_nodes(&mut self, nodes: &[Tensor], backends: impl Iterator<Item = c_int>) {
        let g = &mut *self.alloc_graph;
        let (start, end) = (g.nodes.len(), g.nodes.len() + nodes.len());
        if g.node_ids.len() < end {
            g.node_ids.resize(end, 0);
        }
        for (id, backend) in g.node_ids[start..end].iter_mut().zip(backends) {
            *id = backend;
        }
        g.nodes.extend_from_slice(nodes);
    }

    pub fn push_leaf(&mut self, leaf: Tensor, backend: c_int) {
        let g = &mut *self.alloc_graph;
        put_id(&mut g.leaf_ids, g.leafs.len(), backend);
        g.leafs.push(leaf);
    }

    /// Completes the graph: every id array is at least as long as the graph.
    pub fn finish(self) {
        let g = self.alloc_graph;
        let (n_nodes, n_leafs) = (g.nodes.len(), g.leafs.len());
        for ids in [&mut g.prev_node_ids, &mut g.node_ids] {
            if ids.len() < n_nodes {
                ids.resize(n_nodes, 0);
            }
        }
        for ids in [&mut g.prev_leaf_ids, &mut g.leaf_ids] {
            if ids.len() < n_leafs {
                ids.resize(n_leafs, 0);
            }
        }
        g.graph = graph_over(&mut g.nodes, &mut g.leafs);
    }
}
