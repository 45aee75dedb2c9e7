//! GGML_SCHED_DEBUG_REALLOC (0.5), for finding graphs that make the compute buffers grow
//! again and again: at 1, an abort when a graph the size of the previous one needs its buffers
//! reallocated although no tensor moved to another buffer type; at 2, on every reallocation.
//! A graph's size is 0.5's own measure: the larger of its node and leaf counts, plus room for 30
//! inputs, and their dependencies, per split and pipeline copy.

use crate::abi::{env_var, PREFIX};
use crate::base::report::fatal;
use crate::handle::Graph;

pub(super) struct ReallocCheck {
    level: i64,
    graph_size: usize,
    prev_graph_size: usize,
}

impl ReallocCheck {
    pub(super) fn from_env() -> Self {
        let level = crate::base::os::env_int(env_var!("GGML_SCHED_DEBUG_REALLOC"));
        ReallocCheck { level: level.unwrap_or(0), graph_size: 0, prev_graph_size: 0 }
    }

    pub(super) fn record(&mut self, graph: Graph, n_splits: usize, n_copies: usize) {
        self.prev_graph_size = self.graph_size;
        self.graph_size = graph.nodes().len().max(graph.leafs().len()) + n_splits * 30 * 2 * n_copies;
    }

    /// Before a reallocation of the graph ggml-alloc sees (`(nodes, leafs)`).
    pub(super) fn check(&self, buffer_types_changed: bool, (n_nodes, n_leafs): (usize, usize)) {
        let unexpected = !buffer_types_changed && self.prev_graph_size == self.graph_size;
        if self.level > 0 && (unexpected || self.level > 1) {
            fatal!(
                "{PREFIX}ggml_backend_sched_alloc_splits: unexpected graph reallocation (graph size = {}, nodes = {n_nodes}, leafs = {n_leafs}), debug_realloc = {}",
                self.graph_size,
                self.level
            );
        }
    }
}
