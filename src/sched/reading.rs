//! Reading a graph into the scheduler's tables: each tensor's id (the one it had before where
//! the graph is rebuilt in the same memory), and its [`TensorInfo`](super::table::TensorInfo), read once per split and only
//! where it may have changed.

use super::answers::Answers;
use super::per_id::PerId;
use super::table::{TensorTable, Tid, NO_TENSOR};
use crate::abi::*;
use crate::base::fallible::{reserve_total, try_vec, OutOfMemory};
use crate::handle::{BufferType, Graph, Tensor};
use alloc::vec::Vec;

/// How many ids ahead of the one read the kept descriptions are asked for: about a memory
/// latency's worth of tensors (on whisper's decoder 6 measured a little better than 3 and 12).
const PREFETCH_AHEAD: usize = 6;

/// What reading a graph builds, the planner's inputs: an id per tensor, each id's tensor and
/// description ([`TensorTable`]), the graph's nodes and leafs as ids, and the backends' answers
/// kept while a tensor stays the same ([`Answers`]).
///
/// Invariants: `tensors[tid]` is the tensor the table maps to `tid`; every per-id array has room
/// for the ids below `room_end`; after [`Self::read`] succeeds, every id of `node_tids` and
/// `leaf_tids`, and of their sources, is refreshed in this reading's epoch.
pub(super) struct GraphReading {
    /// Per-tensor descriptions and decisions, by id.
    pub(super) table: TensorTable,
    /// The tensor of each id.
    pub(super) tensors: PerId<Tensor>,
    pub(super) answers: Answers,
    pub(super) node_tids: Vec<Tid>,
    pub(super) leaf_tids: Vec<Tid>,
    /// Counts readings, to refresh each tensor's info once per reading.
    epoch: u32,
    /// The [`buffer_changes`](crate::handle::buffer_changes) count when this reading began: a
    /// tensor's buffer facts read since then stand.
    buffer_changes: u64,
    /// Ids below this have room in every per-id array (see [`Self::make_room_for_ids`]).
    room_end: usize,
    /// Reading ran out of room and memory for more: what it read is not to be used.
    out_of_room: bool,
    /// This reading found a planning input other than at the last plan (a tensor info, an id,
    /// or an assignment from before the graph).
    inputs_changed: bool,
}

impl GraphReading {
    /// Tables for `n_backends` backends with room for graphs of `graph_size` tensors (they grow
    /// for larger ones).
    pub(super) fn new(n_backends: usize, graph_size: usize, answers: Answers) -> Result<Self, OutOfMemory> {
        Ok(GraphReading {
            table: TensorTable::new(n_backends, graph_size)?,
            tensors: PerId(try_vec(graph_size)?),
            answers,
            node_tids: try_vec(graph_size)?,
            leaf_tids: try_vec(graph_size)?,
            epoch: 0,
            buffer_changes: 0,
            room_end: 0,
            out_of_room: false,
            inputs_changed: true,
        })
    }

    /// Reads `graph`'s leafs, then its nodes. Assignments made before it (no reset since the
    /// last graph, or by hand) count as changed planning inputs.
    #[inline(never)]
    pub(super) fn read(&mut self, graph: Graph) -> Result<(), OutOfMemory> {
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.buffer_changes = crate::handle::buffer_changes();
        self.inputs_changed = !self.table.is_empty();
        self.make_room(graph)?;
        self.answers.begin_reading();
        self.node_tids.clear();
        self.leaf_tids.clear();
        for &leaf in graph.leafs() {
            let tid = self.refresh(leaf);
            self.leaf_tids.push(tid);
        }
        for &node in graph.nodes() {
            let tid = self.refresh(node);
            self.node_tids.push(tid);
        }
        if self.out_of_room {
            return Err(OutOfMemory);
        }
        Ok(())
    }

    /// Whether the last reading found a planning input other than at the last plan.
    pub(super) fn inputs_changed(&self) -> bool {
        self.inputs_changed
    }

    /// Room for reading `graph`, taken before it is read, so that the tables do not grow
    /// halfway: its nodes and leafs (a view or source outside it, and what that reads, take
    /// more room as they are met: [`Self::grow_room`]).
    fn make_room(&mut self, graph: Graph) -> Result<(), OutOfMemory> {
        let (n_nodes, n_leafs) = (graph.nodes().len(), graph.leafs().len());
        self.out_of_room = false;
        self.make_room_for_ids(n_nodes + n_leafs)?;
        reserve_total(&mut self.node_tids, n_nodes)?;
        reserve_total(&mut self.leaf_tids, n_leafs)
    }

    /// Room in every per-id array for `n` more ids than are in use (nothing to do, mostly: the
    /// graph read for every token is as large as the one before).
    #[inline]
    pub(super) fn make_room_for_ids(&mut self, n: usize) -> Result<(), OutOfMemory> {
        if self.table.len() + n <= self.room_end && self.table.map_has_room(n) {
            return Ok(());
        }
        self.grow_for_ids(n)
    }

    #[cold]
    #[inline(never)]
    fn grow_for_ids(&mut self, n: usize) -> Result<(), OutOfMemory> {
        self.table.make_room(n)?;
        let total = self.table.len() + n;
        reserve_total(&mut self.tensors, total)?;
        self.answers.make_room(total)?;
        self.room_end = self.room_end.max(total);
        Ok(())
    }

    /// More room, for tensors read outside the graph; without memory for it, reading goes on
    /// without adding ids (a tensor met then is read as id 0) and [`Self::read`] reports it.
    #[cold]
    #[inline(never)]
    fn grow_room(&mut self) {
        let more = self.table.len().max(64);
        if self.make_room_for_ids(more).is_err() {
            self.out_of_room = true;
        }
    }

    /// The id of a tensor, recording it when new (unless the id was this tensor's before: its
    /// record stands, as every id the table added was recorded).
    #[inline(always)]
    pub(super) fn tid_of(&mut self, tensor: Tensor) -> Tid {
        if let Some(tid) = self.table.reuse_next(tensor.addr()) {
            debug_assert_eq!(self.tensors[tid], tensor);
            return tid;
        }
        if self.table.len() >= self.room_end {
            self.grow_room();
            if self.out_of_room {
                // The reading is dropped (see grow_room): any id in use will do meanwhile.
                return 0;
            }
        }
        let (tid, added) = self.table.id_from_map(tensor.addr());
        if added {
            self.record(tid, tensor);
            self.inputs_changed = true;
        }
        tid
    }

    /// Records a new id's tensor. Like the table, this array only grows: a new id after a
    /// reset reuses a forgotten tensor's entry.
    #[inline(always)]
    fn record(&mut self, tid: Tid, tensor: Tensor) {
        let i = tid as usize;
        if i < self.tensors.len() {
            self.tensors[i as Tid] = tensor;
        } else {
            self.tensors.push(tensor);
        }
    }

    /// Reads what the planner needs to know about `tensor` (once per split).
    #[inline(always)]
    pub(super) fn refresh(&mut self, tensor: Tensor) -> Tid {
        // The next id reused for the tensor it belonged to (see tid_of): new, so not fresh.
        if let Some(tid) = self.table.reuse_next_refreshed(tensor.addr(), self.epoch) {
            debug_assert_eq!(self.tensors[tid], tensor);
            // A graph rebuilt in the same memory is read in id order: the ids a few tensors on
            // will be read next.
            self.answers.prefetch(tid as usize + PREFETCH_AHEAD);
            self.read_info(tid, tensor);
            return tid;
        }
        let tid = self.tid_of(tensor);
        self.refresh_tid(tid);
        tid
    }

    /// [`Self::refresh`] for a tensor that already has an id.
    #[inline(always)]
    fn refresh_tid(&mut self, tid: Tid) {
        // Most calls find the tensor fresh already.
        if !self.table.mark_refreshed(tid, self.epoch) {
            // The slice's own index check: through `PerId`'s, the reading loop this is inlined
            // into ran 2.5 % more instructions (`sched_overhead`, callgrind).
            self.read_info(tid, self.tensors.0[tid as usize]);
        }
    }

    /// Fills in the [`TensorInfo`](super::table::TensorInfo) of `tid` from its tensor `t`. A tensor
    /// described as at its last evaluation keeps its sources' ids while they are the same tensors,
    /// and its answers while their descriptions are unchanged too (see
    /// [`Answers`](super::answers::Answers)). Its buffer facts stand while it and its sources are
    /// as they were and no buffer has changed since they were read (a buffer's usage may change
    /// between evaluations), or while it has neither a buffer nor a view source (the description
    /// holds both addresses, and a tensor with another description in between would have been
    /// learnt again). A tensor described otherwise is learnt again, its answers forgotten; it keeps
    /// its sources' ids where its slots name the tensors they name (see
    /// [`Self::reads_as_recorded`]), and its buffer facts are read again.
    #[inline(always)]
    fn read_info(&mut self, tid: Tid, t: Tensor) {
        if self.answers.still_describes(tid, t, self.epoch) {
            let (known, same) = self.sources_known_and_same(tid, t);
            if !known {
                self.read_sources(tid, t);
            }
            if !(known && same) {
                self.answers.forget(tid);
            }
            if known && same && self.table.info[tid].buffers_read_at == self.buffer_changes {
                return;
            }
            if t.buffer_ptr().is_null() && t.view_src().is_none() {
                return;
            }
        } else {
            self.relearn(tid, t);
        }
        self.read_buffers(tid, t);
    }

    /// [`Self::read_info`] for a tensor described otherwise than at its last evaluation: out
    /// of line, as it is the less common way and `read_info` is inlined where tensors are read.
    #[inline(never)]
    fn relearn(&mut self, tid: Tid, t: Tensor) {
        // Mostly a shape that follows the KV length, over the same sources.
        if self.reads_as_recorded(tid, t) {
            self.read_op_facts(tid, t);
        } else {
            self.read_sources(tid, t);
        }
        self.answers.learn(tid, t);
    }

    /// Whether `tid`'s tensor, described otherwise than at its last evaluation, reads the
    /// tensors its recorded ids name, in the same slots: then [`Self::read_sources`] would
    /// record the same ids.
    #[inline(always)]
    fn reads_as_recorded(&self, tid: Tid, t: Tensor) -> bool {
        let info = &self.table.info[tid];
        src_mask(t.srcs()) == info.src_mask
            && (info.view_src == NO_TENSOR) == t.view_src().is_none()
            && self.sources_known_and_same(tid, t).0
    }

    /// Whether the ids recorded for `tid`'s sources and view source at its last evaluation
    /// still name the tensors it names in those slots now, and whether their descriptions are
    /// unchanged too. Other slots are not looked at: an unchanged description has the same
    /// ones empty, and [`Self::reads_as_recorded`] checks them otherwise.
    #[inline(always)]
    fn sources_known_and_same(&self, tid: Tid, t: Tensor) -> (bool, bool) {
        let info = &self.table.info[tid];
        let (mut known, mut same) = (true, true);
        let mut check = |src_tid: Tid, src: Option<Tensor>| {
            // Found unchanged in this split implies refreshed in it.
            let src_same = self.answers.is_same(src_tid, self.epoch);
            let fresh = src_same || self.table.refreshed_in(src_tid, self.epoch);
            known &= fresh && Some(self.tensors[src_tid]) == src;
            same &= src_same;
        };
        if info.view_src != NO_TENSOR {
            check(info.view_src, t.view_src());
        }
        let srcs = t.srcs();
        // The slots in place (`info.sources()` would copy the ids).
        let mut bits = info.src_mask;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            check(info.srcs[slot], srcs[slot]);
        }
        (known, same)
    }

    /// Whether `src_tid` is in use in this split for `src` (so its id, without a map lookup).
    #[inline(always)]
    fn is_fresh_id_of(&self, src_tid: Tid, src: Tensor) -> bool {
        self.table.refreshed_in(src_tid, self.epoch) && self.tensors[src_tid] == src
    }

    /// The id of `src`, refreshed: `hint` (the id the slot held before) when it still names it.
    #[inline(always)]
    fn refreshed_source(&mut self, hint: Tid, src: Tensor) -> Tid {
        if hint != NO_TENSOR && self.is_fresh_id_of(hint, src) {
            return hint;
        }
        self.refresh_out_of_line(src)
    }

    /// [`Self::refresh`] out of line, one copy for the rare readers: a source whose slot held
    /// another id before (in graph order sources come first and are fresh already; one outside
    /// the graph is read here), and a node that a backend's `graph_optimize` moved.
    #[inline(never)]
    pub(super) fn refresh_out_of_line(&mut self, tensor: Tensor) -> Tid {
        self.refresh(tensor)
    }

    /// The ids of `tid`'s sources and view source (refreshing any not seen yet), and what its
    /// op and flags say. A slot that names the tensor it named before keeps its id (a node
    /// whose shape changed mostly reads the same tensors).
    fn read_sources(&mut self, tid: Tid, t: Tensor) {
        let old = self.table.info[tid];
        let view_src_tid = t.view_src().map_or(NO_TENSOR, |v| self.refreshed_source(old.view_src, v));
        let src_ptrs = t.srcs();
        let src_mask = src_mask(src_ptrs);
        let mut bits = src_mask;
        while bits != 0 {
            let slot = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some(src) = src_ptrs[slot] {
                let hint = if old.src_mask & (1 << slot) != 0 { old.srcs[slot] } else { NO_TENSOR };
                let src_tid = self.refreshed_source(hint, src);
                self.table.info[tid].srcs[slot] = src_tid;
            }
        }
        let info = &mut self.table.info[tid];
        info.view_src = view_src_tid;
        info.src_mask = src_mask;
        self.inputs_changed |= *info != old;
        self.read_op_facts(tid, t);
    }

    /// What `tid`'s op and flags say.
    #[inline(always)]
    fn read_op_facts(&mut self, tid: Tid, t: Tensor) {
        let info = &mut self.table.info[tid];
        let read = (t.is_input(), t.is_view_op(), ignores_weights(t.op()));
        if (info.input, info.is_view_op, info.ignores_weights) != read {
            (info.input, info.is_view_op, info.ignores_weights) = read;
            self.inputs_changed = true;
        }
    }

    /// What `tid`'s buffer, or its view source's, says.
    #[inline(always)]
    fn read_buffers(&mut self, tid: Tid, t: Tensor) {
        let view_src = t.view_src();
        let own = t.buffer();
        let storage = match view_src {
            Some(v) => v.buffer(),
            None => own,
        };
        let weights = own.filter(|b| b.usage() == ggml_backend_buffer_usage::GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
        let storage_buft = storage.map(|b| b.buft().map_or(0, BufferType::id));
        let preallocated = own.is_some() || view_src.is_some_and(|v| v.buffer().is_some());
        // Only asked about weights (the op-offload rule), so only computed for them.
        let host = weights.and_then(|b| b.buft()).is_some_and(|t| t.is_host());
        let info = &mut self.table.info[tid];
        info.buffers_read_at = self.buffer_changes;
        let read = (storage_buft, preallocated, weights.is_some(), host);
        if (info.storage_buft, info.preallocated, info.weights, info.host) != read {
            (info.storage_buft, info.preallocated, info.weights, info.host) = read;
            self.inputs_changed = true;
        }
    }
}

/// Bit i set: source slot i holds a tensor. Without a branch per slot (most of the ten are
/// empty).
#[inline(always)]
fn src_mask(srcs: &[Option<Tensor>; GGML_MAX_SRC]) -> u16 {
    let mut mask = 0u16;
    for (slot, src) in srcs.iter().enumerate() {
        mask |= (src.is_some() as u16) << slot;
    }
    mask
}

/// Whether an op is placed without regard to its weights' backend (see `TensorInfo::ignores_weights`).
fn ignores_weights(op: ggml_op) -> bool {
    #[cfg(flash_attn_ignores_weights)]
    if op == crate::abi::op::FLASH_ATTN_EXT {
        return true;
    }
    op == GGML_OP_ROPE
}
