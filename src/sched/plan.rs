//! The scheduler's decisions, in safe Rust over dense per-tensor arrays: which backend runs each
//! node, where the graph is cut into splits, and which tensors must be copied between backends.
//!
//! The algorithm is the reference's (five passes: pre-allocated tensors, expansion of non-CPU
//! assignments down and up, then of all assignments, upgrades to higher-priority backends with
//! the same buffer type, assignment of remaining sources, and the cut), with two deliberate
//! differences: a split's inputs are not limited in number, so a split is never cut, and a
//! scheduler never aborts, because it holds ten inputs; and a graph that cannot be placed (the
//! reference aborts) still gets a complete plan, with the first reason it cannot run, so that
//! the scheduler reports the failure and stays usable.
//!
//! Questions about ops and buffer types go to the [`Oracle`], which the FFI layer implements
//! over the real backends and the unit tests implement over tables.

use super::table::{BuftId, TensorInfo, TensorTable, Tid, NO_TENSOR};
use crate::base::fallible::{reserve_total, OutOfMemory};
use alloc::vec::Vec;
use core::ops::Range;

/// What the planner asks of the backends. The FFI layer answers from the real backends.
pub trait Oracle {
    fn supports_op(&mut self, backend: usize, node: Tid) -> bool;
    fn offload_op(&mut self, backend: usize, node: Tid) -> bool;
    fn supports_buft(&mut self, backend: usize, buft: BuftId) -> bool;
}

/// The fixed facts about the scheduler's backends.
pub struct SchedConfig<'a> {
    /// Buffer type of each backend, in priority order (the last backend is the CPU).
    pub bufts: &'a [BuftId],
    pub n_copies: usize,
    pub op_offload: bool,
}

impl SchedConfig<'_> {
    fn n_backends(&self) -> usize {
        self.bufts.len()
    }
    fn last(&self) -> i32 {
        self.bufts.len() as i32 - 1
    }
}

/// A run of consecutive nodes computed by one backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    pub backend: usize,
    pub i_start: usize,
    pub i_end: usize,
    /// Positions in [`Plan::split_inputs`] of the tensors copied in before the split runs.
    pub inputs: Range<usize>,
}

/// Copies of `tid` to make for `backend` (one per pipeline copy). For a graph input, the copy
/// for the current pipeline slot is the tensor itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyRequest {
    pub tid: Tid,
    pub backend: usize,
    pub graph_input: bool,
}

/// Node `node` must read its source `slot` from the copy of `src` on `backend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrcRewrite {
    pub node: u32,
    pub slot: u8,
    pub src: Tid,
    pub backend: u16,
}

/// Why a graph cannot be scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// A tensor already in a buffer whose backends cannot run its op.
    Preallocated(Tid),
    /// No backend was found for a node (no backend, not even the CPU, supports its op).
    Unassigned(Tid),
}

/// The planner's output for one graph; reused between graphs to avoid allocation.
#[derive(Default)]
pub struct Plan {
    pub splits: Vec<Split>,
    pub split_inputs: Vec<Tid>,
    pub graph_inputs: Vec<Tid>,
    pub copy_requests: Vec<CopyRequest>,
    /// In graph order: node by node, each node's slots in order.
    pub rewrites: Vec<SrcRewrite>,
    /// Backend of the first split when the graph has no computing node (the reference keeps
    /// whatever its first split slot held).
    first_backend: usize,
}

impl Plan {
    /// Room for planning the graph of `nodes` and `n_leafs` leafs (in `table`), so that planning
    /// allocates nothing: each node starts at most one split, each source read reads at most one
    /// input, one copy and one rewrite, and each source or leaf is at most one graph input.
    pub fn make_room(&mut self, table: &TensorTable, nodes: &[Tid], n_leafs: usize) -> Result<(), OutOfMemory> {
        let n_reads: usize = nodes.iter().map(|&n| table.info[n].src_mask.count_ones() as usize).sum();
        reserve_total(&mut self.splits, nodes.len() + 1)?;
        reserve_total(&mut self.split_inputs, n_reads)?;
        reserve_total(&mut self.rewrites, n_reads)?;
        reserve_total(&mut self.graph_inputs, n_reads + n_leafs)?;
        reserve_total(&mut self.copy_requests, 2 * n_reads + n_leafs)?;
        Ok(())
    }

    /// No split: what a graph that could not be read has.
    pub fn clear(&mut self) {
        self.splits.clear();
        self.split_inputs.clear();
        self.graph_inputs.clear();
        self.copy_requests.clear();
        self.rewrites.clear();
    }
}

/// Per-call scratch state of the passes.
struct Planner<'a, O: Oracle> {
    table: &'a mut TensorTable,
    config: &'a SchedConfig<'a>,
    oracle: &'a mut O,
    /// The oracle's `supports_buft` answers about the last buffer type asked about, at hand
    /// (a graph's tensors share a few buffer types, and are mostly asked about in runs).
    last_buft: BuftAnswers,
    /// The first tensor found that cannot run where the plan puts it.
    error: Option<PlanError>,
}

/// `supports_buft` answers about one buffer type: bit b of `known` set when backend b's answer
/// is in bit b of `yes`.
#[derive(Clone, Copy, Default)]
struct BuftAnswers {
    buft: BuftId,
    known: u16,
    yes: u16,
}

impl<O: Oracle> Planner<'_, O> {
    fn info(&self, tid: Tid) -> &TensorInfo {
        &self.table.info[tid]
    }

    /// The oracle's `supports_buft`, asked once while the buffer type is the last one asked about.
    #[inline(always)]
    fn supports_buft(&mut self, backend: usize, buft: BuftId) -> bool {
        let bit = 1u16 << backend;
        if self.last_buft.buft != buft || self.last_buft.known & bit == 0 {
            self.ask_supports_buft(backend, buft);
        }
        self.last_buft.yes & bit != 0
    }

    #[inline(never)]
    fn ask_supports_buft(&mut self, backend: usize, buft: BuftId) {
        if self.last_buft.buft != buft {
            self.last_buft = BuftAnswers { buft, known: 0, yes: 0 };
        }
        let bit = 1u16 << backend;
        self.last_buft.known |= bit;
        if self.oracle.supports_buft(backend, buft) {
            self.last_buft.yes |= bit;
        }
    }

    /// Highest-priority backend that can use `tensor`'s buffer and run `op`, or -1.
    fn backend_from_buffer(&mut self, tensor: Tid, op: Tid) -> i32 {
        let Some(buft) = self.info(tensor).storage_buft else { return -1 };
        (0..self.config.n_backends())
            .find(|&b| self.supports_buft(b, buft) && self.oracle.supports_op(b, op))
            .map_or(-1, |b| b as i32)
    }

    /// The backend a tensor should use given where its data and weights already are.
    fn backend_from_current(&mut self, tid: Tid) -> i32 {
        let backend = self.backend_from_buffer(tid, tid);
        if backend != -1 {
            return backend;
        }
        let info = *self.info(tid);
        if info.view_src != NO_TENSOR {
            let backend = self.backend_from_buffer(info.view_src, tid);
            if backend != -1 {
                return backend;
            }
        }
        if info.preallocated {
            return self.unrunnable_in_buffer(tid);
        }
        if info.input {
            return self.config.last();
        }
        if info.ignores_weights {
            return -1;
        }
        // Ops with weights prefer the weights' backend.
        for (_, src) in info.sources() {
            let (weights, host) = (self.info(src).weights, self.info(src).host);
            if weights {
                let src_backend = self.backend_from_buffer(src, tid);
                if self.config.op_offload && src_backend == self.config.last() && host {
                    for b in 0..src_backend as usize {
                        if self.oracle.supports_op(b, tid) && self.oracle.offload_op(b, tid) {
                            return b as i32;
                        }
                    }
                }
                return src_backend;
            }
        }
        -1
    }

    /// A tensor already in a buffer whose backends cannot run its op: the error, and the backend
    /// it is left on so that the plan stays complete (the first that can use the buffer, where
    /// its data is, else the last).
    #[cold]
    fn unrunnable_in_buffer(&mut self, tid: Tid) -> i32 {
        self.error.get_or_insert(PlanError::Preallocated(tid));
        let info = *self.info(tid);
        let view_buft = || (info.view_src != NO_TENSOR).then(|| self.info(info.view_src).storage_buft).flatten();
        let buft = info.storage_buft.or_else(view_buft);
        buft.and_then(|buft| (0..self.config.n_backends()).find(|&b| self.supports_buft(b, buft)))
            .map_or(self.config.last(), |b| b as i32)
    }

    /// Whether backend `b` can read `tid` where it is (or where it will be allocated).
    fn buffer_supported(&mut self, tid: Tid, b: usize) -> bool {
        let info = self.info(tid);
        let buft = match info.storage_buft {
            Some(buft) => Some(buft),
            None => {
                let mut backend = self.table.backend_of(tid);
                if backend == -1 {
                    backend = self.table.backend_of(info.view_src);
                }
                (backend != -1).then(|| self.config.bufts[backend as usize])
            }
        };
        // Asked in turns about several buffer types: the oracle's own cache serves better.
        buft.is_some_and(|buft| self.oracle.supports_buft(b, buft))
    }

    /// Pass 1: tensors whose place is dictated by their buffers, inputs and weights.
    fn assign_from_current(&mut self, tids: &[Tid]) {
        for &tid in tids {
            // User assignments are kept.
            if self.table.backend[tid] == -1 {
                self.table.backend[tid] = self.backend_from_current(tid);
            }
        }
    }

    /// Pass 2 (one sweep): spread each assignment to following unassigned nodes that the same
    /// backend supports; `skip_last` leaves the CPU's assignments unspread.
    fn expand(&mut self, order: impl Iterator<Item = Tid>, skip_last: bool) {
        let mut cur = -1;
        for tid in order {
            if self.info(tid).is_view_op {
                continue;
            }
            let backend = self.table.backend[tid];
            if backend != -1 {
                cur = if skip_last && backend == self.config.last() { -1 } else { backend };
            } else if cur != -1 && self.oracle.supports_op(cur as usize, tid) {
                self.table.backend[tid] = cur;
            }
        }
    }

    /// Pass 3: unassigned nodes go to the backend that can read most of their sources; assigned
    /// ones move to a higher-priority backend with the same buffer type when it can.
    fn settle(&mut self, nodes: &[Tid]) {
        for &node in nodes {
            let info = *self.info(node);
            if info.is_view_op {
                continue;
            }
            let srcs = info.sources().map(|(_, src)| src);
            let current = self.table.backend[node];
            if current == -1 {
                let mut best = -1;
                for b in 0..self.config.n_backends() {
                    if !self.oracle.supports_op(b, node) {
                        continue;
                    }
                    let mut n_supported = 0;
                    for src in srcs.clone() {
                        let view_src = self.info(src).view_src;
                        let placed = self.table.backend_of(src) != -1 || self.table.backend_of(view_src) != -1;
                        if placed && self.buffer_supported(src, b) {
                            n_supported += 1;
                        }
                    }
                    if n_supported > best {
                        best = n_supported;
                        self.table.backend[node] = b as i32;
                    }
                }
            } else {
                for b in 0..current as usize {
                    if self.config.bufts[b] != self.config.bufts[current as usize] || !self.oracle.supports_op(b, node)
                    {
                        continue;
                    }
                    if srcs.clone().all(|src| self.buffer_supported(src, b)) {
                        self.table.backend[node] = b as i32;
                        break;
                    }
                }
            }
        }
    }

    /// Pass 4: views follow their source; unassigned sources follow their user; a node still
    /// unassigned goes to the first backend that runs it (as 0.5 does; 0.4 would crash).
    fn assign_sources(&mut self, nodes: &[Tid]) {
        for &node in nodes {
            let info = *self.info(node);
            if info.view_src != NO_TENSOR && self.table.backend[node] == -1 {
                self.table.backend[node] = self.table.backend_of(info.view_src);
            }
            let node_backend = self.table.backend[node];
            for (_, src) in info.sources() {
                if self.table.backend[src] == -1 {
                    let view_src = self.info(src).view_src;
                    self.table.backend[src] =
                        if view_src != NO_TENSOR { self.table.backend_of(view_src) } else { node_backend };
                }
            }
            if node_backend == -1 {
                if let Some(b) = (0..self.config.n_backends()).find(|&b| self.oracle.supports_op(b, node)) {
                    self.table.backend[node] = b as i32;
                }
            }
        }
    }

    /// Pass 5: cut the graph where the backend changes (or where a weight would have to be
    /// copied in), and list the copies each split needs.
    fn cut(&mut self, nodes: &[Tid], plan: &mut Plan) {
        let first = nodes.iter().position(|&n| !self.info(n).is_view_op);
        if let Some(i) = first {
            plan.first_backend = self.backend_checked(nodes[i]);
        }
        let mut split = Split { backend: plan.first_backend, i_start: 0, i_end: 0, inputs: 0..0 };
        for (i, &node) in nodes.iter().enumerate().skip(first.unwrap_or(nodes.len())) {
            let info = *self.info(node);
            if info.is_view_op {
                continue;
            }
            let node_backend = self.backend_checked(node);
            let srcs = info.sources();

            // A weight on another, incompatible backend starts a new split, so that the memory
            // of the weights copied in for this one can be reused.
            let mut need_new_split = false;
            if node_backend == split.backend && !split.inputs.is_empty() {
                for (_, src) in srcs.clone() {
                    let src_backend = self.table.backend[src];
                    if self.info(src).weights
                        && src_backend != split.backend as i32
                        && !self.buffer_supported(src, split.backend)
                    {
                        need_new_split = true;
                        break;
                    }
                }
            }
            if node_backend != split.backend || need_new_split {
                split.i_end = i;
                let inputs_end = plan.split_inputs.len();
                plan.splits.push(core::mem::replace(
                    &mut split,
                    Split { backend: node_backend, i_start: i, i_end: 0, inputs: inputs_end..inputs_end },
                ));
            }

            for (slot, src) in srcs {
                let src_backend = self.backend_checked(src);
                // (From plain ggml 0.3.36 the graph inputs are the input leafs: pass 6.)
                #[cfg(not(graph_inputs_from_leafs))]
                if self.config.n_copies > 1 && self.info(src).input && !self.table.has_copy(src, src_backend) {
                    self.table.set_has_copy(src, src_backend);
                    plan.copy_requests.push(CopyRequest { tid: src, backend: src_backend, graph_input: true });
                    plan.graph_inputs.push(src);
                }
                if src_backend != split.backend && !self.buffer_supported(src, split.backend) {
                    if !self.table.has_copy(src, split.backend) {
                        self.table.set_has_copy(src, split.backend);
                        plan.copy_requests.push(CopyRequest { tid: src, backend: split.backend, graph_input: false });
                        plan.split_inputs.push(src);
                        split.inputs.end = plan.split_inputs.len();
                    }
                    plan.rewrites.push(SrcRewrite {
                        node: i as u32,
                        slot: slot as u8,
                        src,
                        backend: split.backend as u16,
                    });
                }
            }
        }
        split.i_end = nodes.len();
        plan.splits.push(split);
    }

    /// Pass 6 (plain ggml 0.3.36), with pipeline copies: every input leaf is a graph input, used
    /// or not, so that the graph for ggml-alloc does not depend on which inputs a batch uses
    /// (ggml-alloc would allocate it again when they change).
    #[cfg(graph_inputs_from_leafs)]
    fn collect_graph_inputs(&mut self, leafs: &[Tid], plan: &mut Plan) {
        for &leaf in leafs {
            if !self.info(leaf).input {
                continue;
            }
            let backend = self.backend_checked(leaf);
            if !self.table.has_copy(leaf, backend) {
                self.table.set_has_copy(leaf, backend);
                plan.copy_requests.push(CopyRequest { tid: leaf, backend, graph_input: true });
                plan.graph_inputs.push(leaf);
            }
        }
    }

    /// One backend without pipeline copies (whisper.cpp's CPU-only case): nothing to decide.
    /// Everything the graph computes or reads runs there, in one split, as the passes would
    /// conclude; only tensors already in a buffer are checked, as pass 1 checks them.
    fn place_on_single_backend(&mut self, nodes: &[Tid], leafs: &[Tid], plan: &mut Plan) {
        // backend_from_buffer for the one backend.
        let from_buffer = |planner: &mut Self, tensor: Tid, op: Tid| {
            let Some(buft) = planner.info(tensor).storage_buft else { return false };
            planner.supports_buft(0, buft) && planner.oracle.supports_op(0, op)
        };
        for &tid in leafs.iter().chain(nodes) {
            if self.table.backend[tid] != -1 {
                continue;
            }
            let TensorInfo { preallocated, input, view_src, .. } = *self.info(tid);
            if preallocated {
                let readable =
                    from_buffer(self, tid, tid) || (view_src != NO_TENSOR && from_buffer(self, view_src, tid));
                if !readable {
                    self.error.get_or_insert(PlanError::Preallocated(tid));
                }
                self.table.backend[tid] = 0;
            } else if input {
                self.table.backend[tid] = 0;
            }
        }
        let (info, backend) = (&self.table.info, &mut self.table.backend);
        for &node in nodes {
            backend[node] = 0;
            // The slots in place (`sources()` would copy the ids).
            let node_info = &info[node];
            let mut bits = node_info.src_mask;
            while bits != 0 {
                let src = node_info.srcs[bits.trailing_zeros() as usize];
                bits &= bits - 1;
                if backend[src] == -1 {
                    let view_src = info[src].view_src;
                    backend[src] = if view_src != NO_TENSOR { backend[view_src] } else { 0 };
                }
            }
        }
        plan.first_backend = 0;
        plan.splits.push(Split { backend: 0, i_start: 0, i_end: nodes.len(), inputs: 0..0 });
    }

    /// The backend assigned to `tid`; one that no pass placed is the error, left on the last
    /// backend so that the plan stays complete.
    fn backend_checked(&mut self, tid: Tid) -> usize {
        match self.table.backend[tid] {
            -1 => {
                self.error.get_or_insert(PlanError::Unassigned(tid));
                self.table.backend[tid] = self.config.last();
                self.config.last() as usize
            }
            b => b as usize,
        }
    }
}

/// Assigns backends to the graph's tensors and cuts it into splits. `nodes` and `leafs` are
/// the graph's tensors in order, already in `table` with fresh [`TensorInfo`].
///
/// The plan is complete either way: every node and every source has a backend, and the splits
/// cover the graph. An error names the first tensor the plan puts where it cannot run (such a
/// plan must not be run).
pub fn plan_graph<O: Oracle>(
    table: &mut TensorTable,
    config: &SchedConfig<'_>,
    oracle: &mut O,
    nodes: &[Tid],
    leafs: &[Tid],
    plan: &mut Plan,
) -> Result<(), PlanError> {
    plan.clear();

    let mut planner = Planner { table, config, oracle, last_buft: BuftAnswers::default(), error: None };
    if config.n_backends() == 1 && config.n_copies == 1 {
        planner.place_on_single_backend(nodes, leafs, plan);
        return planner.error.map_or(Ok(()), Err);
    }
    planner.assign_from_current(leafs);
    planner.assign_from_current(nodes);
    // Spread accelerator assignments first (the CPU, last, is used only where nothing else
    // fits), then all assignments, each down and up the graph.
    planner.expand(nodes.iter().copied(), true);
    planner.expand(nodes.iter().rev().copied(), true);
    planner.expand(nodes.iter().copied(), false);
    planner.expand(nodes.iter().rev().copied(), false);
    planner.settle(nodes);
    planner.assign_sources(nodes);
    planner.cut(nodes, plan);
    #[cfg(graph_inputs_from_leafs)]
    if config.n_copies > 1 {
        planner.collect_graph_inputs(leafs, plan);
    }
    planner.error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::super::memo::PlanMemo;
    use super::*;

    /// Backends 0 ("GPU", buft 100) and 1 ("CPU", buft 200). The GPU runs the nodes listed in
    /// `gpu_ops` and reads only its own buffer type; the CPU runs everything and reads only host.
    struct TableOracle {
        gpu_ops: Vec<Tid>,
    }

    impl Oracle for TableOracle {
        fn supports_op(&mut self, backend: usize, node: Tid) -> bool {
            backend == 1 || self.gpu_ops.contains(&node)
        }
        fn offload_op(&mut self, _: usize, _: Tid) -> bool {
            false
        }
        fn supports_buft(&mut self, backend: usize, buft: BuftId) -> bool {
            buft == [100, 200][backend]
        }
    }

    const BUFTS: [BuftId; 2] = [100, 200];

    /// A chain: input leaf 0 -> node 1 -> node 2 -> node 3, each node reading the previous.
    fn chain(table: &mut TensorTable) -> (Vec<Tid>, Vec<Tid>) {
        let ids: Vec<Tid> = (1..=4).map(|i| table.id(i * 0x100).0).collect();
        table.info[ids[0]].input = true;
        for k in 1..4 {
            table.info[ids[k]].set_src(0, ids[k - 1]);
        }
        (ids[1..].to_vec(), vec![ids[0]])
    }

    /// Gives node `node` a weight preallocated in the GPU's buffer type.
    fn add_gpu_weight(table: &mut TensorTable, node: Tid) {
        let weight = table.id(0x10000 + node as usize * 0x100).0;
        table.info[weight] =
            TensorInfo { storage_buft: Some(100), preallocated: true, weights: true, ..Default::default() };
        table.info[node].set_src(1, weight);
    }

    /// Plans the chain with GPU weights on `weighted` nodes and GPU support for `gpu_ops`.
    fn plan(weighted: &[Tid], gpu_ops: Vec<Tid>, n_copies: usize) -> (TensorTable, Vec<Tid>, Plan) {
        let mut table = TensorTable::new(2, 8).unwrap();
        let (nodes, leafs) = chain(&mut table);
        for &node in weighted {
            add_gpu_weight(&mut table, node);
        }
        let config = SchedConfig { bufts: &BUFTS, n_copies, op_offload: true };
        let mut p = Plan::default();
        plan_graph(&mut table, &config, &mut TableOracle { gpu_ops }, &nodes, &leafs, &mut p).unwrap();
        (table, nodes, p)
    }

    #[test]
    fn a_graph_the_cpu_runs_alone_is_one_split_without_copies() {
        let (table, _, p) = plan(&[], vec![], 1);
        assert_eq!(p.splits, vec![Split { backend: 1, i_start: 0, i_end: 3, inputs: 0..0 }]);
        assert!(p.copy_requests.is_empty());
        assert_eq!(table.backend.0[..table.len()], [1, 1, 1, 1]);
    }

    #[test]
    fn a_gpu_node_in_the_middle_cuts_the_graph_and_copies_across() {
        // Only the second node (tid 2) runs on the GPU, where its weight is.
        let (_, _, p) = plan(&[2], vec![2], 1);
        let backends: Vec<usize> = p.splits.iter().map(|s| s.backend).collect();
        assert_eq!(backends, vec![1, 0, 1]);
        assert_eq!(p.split_inputs, vec![1, 2], "node 1's result goes to the GPU, node 2's comes back");
        assert_eq!(p.rewrites.len(), 2);
    }

    #[test]
    fn gpu_assignments_spread_to_neighbours_the_gpu_supports() {
        let (table, nodes, p) = plan(&[2], vec![1, 2, 3], 1);
        assert_eq!(nodes.iter().map(|&n| table.backend[n]).collect::<Vec<_>>(), vec![0, 0, 0]);
        assert_eq!(p.splits.len(), 1);
        assert_eq!(p.split_inputs, vec![0], "only the CPU input crosses");
    }

    #[test]
    fn without_gpu_assignments_unassigned_nodes_go_where_most_sources_are_readable() {
        // The GPU supports node 2 but nothing pulls it there: its source is on the CPU.
        let (table, nodes, p) = plan(&[], vec![2], 1);
        assert_eq!(table.backend[nodes[1]], 1);
        assert_eq!(p.splits.len(), 1);
    }

    #[test]
    fn a_node_no_pass_placed_goes_to_the_first_backend_that_runs_it() {
        // Node 2 is a view op without a view source: passes 2 and 3 skip view ops, and pass 4
        // has no source to take a backend from.
        let mut table = TensorTable::new(2, 8).unwrap();
        let (nodes, leafs) = chain(&mut table);
        table.info[nodes[1]].is_view_op = true;
        let config = SchedConfig { bufts: &BUFTS, n_copies: 1, op_offload: true };
        let mut p = Plan::default();
        plan_graph(&mut table, &config, &mut TableOracle { gpu_ops: vec![nodes[1]] }, &nodes, &leafs, &mut p).unwrap();
        assert_eq!(table.backend[nodes[1]], 0, "the GPU, first in priority, runs it");
    }

    #[test]
    fn pipeline_copies_register_graph_inputs_once() {
        let (_, _, p) = plan(&[2], vec![2], 4);
        assert_eq!(p.graph_inputs, vec![0]);
        assert_eq!(p.copy_requests.iter().filter(|r| r.graph_input).count(), 1);
    }

    /// Only the CPU (backend 1 of TableOracle, here the one and only backend 0 through a
    /// one-entry buft list that maps to it).
    struct CpuOnly;
    impl Oracle for CpuOnly {
        fn supports_op(&mut self, _: usize, _: Tid) -> bool {
            true
        }
        fn offload_op(&mut self, _: usize, _: Tid) -> bool {
            false
        }
        fn supports_buft(&mut self, _: usize, buft: BuftId) -> bool {
            buft == 200
        }
    }

    /// The table's assignments and copy bits.
    fn decisions(table: &TensorTable) -> (Vec<i32>, Vec<u16>) {
        (table.backend.0[..table.len()].to_vec(), (0..table.len() as Tid).map(|tid| table.copy_bits(tid)).collect())
    }

    /// Forgets the table's ids and adds them again in the same order (what the scheduler's
    /// reading does after a reset, for a graph rebuilt in the same memory).
    fn clear_and_read_again(table: &mut TensorTable) {
        let n = table.len();
        table.clear();
        for t in 0..n {
            table.add(t, 0);
        }
    }

    #[test]
    fn a_remembered_plan_puts_back_what_planning_again_makes() {
        for n_copies in [1, 4] {
            let (mut table, nodes, first) = plan(&[2], vec![1, 2], n_copies);
            let leafs = vec![0]; // the chain's input (its weight is a source only)
            let mut memo = PlanMemo::default();
            assert!(!memo.is_for(&table, &nodes, &leafs), "nothing remembered yet");
            memo.remember(&table, &nodes, &leafs);
            assert!(decisions(&table).1.iter().any(|&bits| bits != 0), "the plan copies across");

            clear_and_read_again(&mut table);
            let config = SchedConfig { bufts: &BUFTS, n_copies, op_offload: true };
            let mut again = Plan::default();
            plan_graph(&mut table, &config, &mut TableOracle { gpu_ops: vec![1, 2] }, &nodes, &leafs, &mut again)
                .unwrap();
            let planned = decisions(&table);
            assert_eq!(
                (&again.splits, &again.copy_requests, &again.rewrites),
                (&first.splits, &first.copy_requests, &first.rewrites)
            );

            clear_and_read_again(&mut table);
            assert!(memo.is_for(&table, &nodes, &leafs));
            memo.restore(&mut table, &first);
            assert_eq!(decisions(&table), planned);

            // Another order, or another number of ids, is another graph.
            let reversed: Vec<Tid> = nodes.iter().rev().copied().collect();
            assert!(!memo.is_for(&table, &reversed, &leafs));
            assert!(!memo.is_for(&table, &nodes, &[]));
            table.add(table.len(), 0);
            assert!(!memo.is_for(&table, &nodes, &leafs));
        }
    }

    #[test]
    fn one_backend_places_everything_there_in_one_split() {
        let mut table = TensorTable::new(1, 8).unwrap();
        let (nodes, leafs) = chain(&mut table);
        let unused_leaf = table.id(0x5000).0;
        let weight = table.id(0x6000).0;
        table.info[weight] =
            TensorInfo { storage_buft: Some(200), preallocated: true, weights: true, ..Default::default() };
        table.info[nodes[2]].set_src(1, weight);
        let config = SchedConfig { bufts: &[200], n_copies: 1, op_offload: true };
        let mut p = Plan::default();
        let all_leafs = [leafs[0], unused_leaf];
        plan_graph(&mut table, &config, &mut CpuOnly, &nodes, &all_leafs, &mut p).unwrap();
        assert_eq!(p.splits, vec![Split { backend: 0, i_start: 0, i_end: 3, inputs: 0..0 }]);
        assert!(p.copy_requests.is_empty() && p.rewrites.is_empty());
        for tid in nodes.iter().chain(&leafs).chain([&weight]) {
            assert_eq!(table.backend[*tid], 0);
        }
        assert_eq!(table.backend[unused_leaf], -1, "a leaf nothing reads stays unassigned, as in the reference");
    }

    #[test]
    fn one_backend_still_refuses_a_buffer_it_cannot_use() {
        let mut table = TensorTable::new(1, 8).unwrap();
        let (nodes, leafs) = chain(&mut table);
        table.info[nodes[1]].storage_buft = Some(100);
        table.info[nodes[1]].preallocated = true;
        let config = SchedConfig { bufts: &[200], n_copies: 1, op_offload: true };
        let mut p = Plan::default();
        let r = plan_graph(&mut table, &config, &mut CpuOnly, &nodes, &leafs, &mut p);
        assert_eq!(r, Err(PlanError::Preallocated(nodes[1])));
        assert_complete(&table, &nodes, &p, 1);
    }

    /// What a caller may read of a plan that failed: every node and source on a backend of the
    /// scheduler, and splits that cover the graph in order.
    fn assert_complete(table: &TensorTable, nodes: &[Tid], p: &Plan, n_backends: i32) {
        for &node in nodes {
            let info = &table.info[node];
            for tid in std::iter::once(node).chain(info.sources().map(|(_, src)| src)) {
                assert!((0..n_backends).contains(&table.backend[tid]), "tensor {tid} has a backend");
            }
        }
        assert_eq!(p.splits.first().map(|s| s.i_start), Some(0));
        assert_eq!(p.splits.last().map(|s| s.i_end), Some(nodes.len()));
        assert!(p.splits.windows(2).all(|w| w[0].i_end == w[1].i_start));
    }

    #[test]
    fn a_preallocated_tensor_no_backend_can_run_is_an_error() {
        let mut table = TensorTable::new(2, 8).unwrap();
        let (nodes, leafs) = chain(&mut table);
        table.info[nodes[0]].storage_buft = Some(100);
        table.info[nodes[0]].preallocated = true;
        let config = SchedConfig { bufts: &BUFTS, n_copies: 1, op_offload: false };
        let mut p = Plan::default();
        let r = plan_graph(&mut table, &config, &mut TableOracle { gpu_ops: vec![] }, &nodes, &leafs, &mut p);
        assert_eq!(r, Err(PlanError::Preallocated(nodes[0])));
        assert_eq!(table.backend[nodes[0]], 0, "left where its buffer is");
        assert_complete(&table, &nodes, &p, 2);
    }

    #[test]
    fn a_node_no_backend_runs_is_an_error_left_on_the_last_backend() {
        /// The GPU runs nothing, the CPU everything but one node.
        struct Picky(Tid);
        impl Oracle for Picky {
            fn supports_op(&mut self, backend: usize, node: Tid) -> bool {
                backend == 1 && node != self.0
            }
            fn offload_op(&mut self, _: usize, _: Tid) -> bool {
                false
            }
            fn supports_buft(&mut self, backend: usize, buft: BuftId) -> bool {
                buft == BUFTS[backend]
            }
        }
        let mut table = TensorTable::new(2, 8).unwrap();
        let (nodes, leafs) = chain(&mut table);
        let config = SchedConfig { bufts: &BUFTS, n_copies: 1, op_offload: false };
        let mut p = Plan::default();
        // The last node: an earlier one would be placed with its user by pass 4.
        let r = plan_graph(&mut table, &config, &mut Picky(nodes[2]), &nodes, &leafs, &mut p);
        assert_eq!(r, Err(PlanError::Unassigned(nodes[2])));
        assert_eq!(table.backend[nodes[2]], 1);
        assert_complete(&table, &nodes, &p, 2);
    }
}
